//! COMM-ORIENTED optimum of Beaumont et al. (Theorem 7 and the remark after it):
//! run ASM1, then move every node's excess above the balanced cap to the
//! least loaded nodes still under their cap. Only the moved tasks are
//! non-local, and since ASM1's semi-matching minimises the total load
//! imbalance, their number is the minimum possible under the cap.
//!
//! The cap of the paper is `ceil(|T|/|P|)` tasks per processor. With initial
//! loads, speeds and slots we use its natural generalisation: the smallest
//! finish time `lambda` at which the nodes can hold all tasks (water-filling
//! of unit tasks), and per node the number of tasks that finish by `lambda`.
//! On identical unloaded nodes this is exactly `ceil(|T|/|P|)`. ASM1's result
//! has no path from a node under `lambda` to one over it, so it is optimal for
//! this generalised imbalance too.
//!
//! Where the tasks go: as in the paper, to the node under its cap that would
//! finish first; among equally good nodes, one on the rack of a replica
//! (rack-local beats off-switch at no cost to the balance).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::model::{NodeId, OrdF64, Problem, TaskId};
use crate::plan::Assignment;
use crate::policy::asm1::{semi_matching, Asm1Workspace};
use crate::policy::Planner;

/// The ASM1 + Theorem 7 planner (balanced, fewest non-local tasks).
#[derive(Clone, Copy, Debug, Default)]
pub struct Asm1Comm;

impl Planner for Asm1Comm {
    fn name(&self) -> &'static str {
        "asm1-comm"
    }

    fn plan(&self, problem: &Problem, _seed: u64) -> Assignment {
        let mut ws = Asm1Workspace::default();
        let mut node_of = semi_matching(problem, &mut ws).to_vec();
        let mut count = ws.counts().to_vec();
        let cap = balanced_caps(problem);
        rebalance(problem, &mut node_of, &mut count, &cap);
        Assignment::with_static_order(problem, node_of)
    }
}

/// Follow the plan, steal local work, then spill rather than idle.
impl crate::policy::Policy for Asm1Comm {
    fn name(&self) -> &'static str {
        Planner::name(self)
    }
    fn planner(&self) -> Option<&dyn Planner> {
        Some(self)
    }
    fn on_free_slot(&self) -> crate::policy::FreeSlot {
        crate::policy::FreeSlot::Spill { steal: true }
    }
}

/// Per-node task caps of the COMM-ORIENTED problem: the most unit tasks each
/// node can finish by the optimal balanced finish time `lambda`.
pub fn balanced_caps(problem: &Problem) -> Vec<u32> {
    let n = problem.num_nodes();
    let mut count = vec![0u32; n];
    if n == 0 {
        return count;
    }
    let mut heap: BinaryHeap<Reverse<(OrdF64, NodeId)>> = (0..n as NodeId)
        .map(|p| Reverse((OrdF64(problem.unit_finish(p, 1)), p)))
        .collect();
    let mut lambda = f64::NEG_INFINITY;
    for _ in 0..problem.num_tasks() {
        let Some(Reverse((OrdF64(key), p))) = heap.pop() else {
            break;
        };
        lambda = key;
        count[p as usize] += 1;
        heap.push(Reverse((
            OrdF64(problem.unit_finish(p, count[p as usize] + 1)),
            p,
        )));
    }
    // Nodes tied with lambda may hold more waves without raising it (up to
    // |T|: with a zero local cost every count ties). unit_finish grows with
    // the count, so the largest count within lambda is found by bisection
    // (a step at a time was O(|P| |T|) with a zero local cost).
    let tol = 1e-9 * lambda.abs().max(1.0);
    let tasks = problem.num_tasks().min(u32::MAX as usize) as u32;
    for p in 0..n as NodeId {
        let c = &mut count[p as usize];
        let (mut lo, mut hi) = (*c, tasks);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if problem.unit_finish(p, mid) <= lambda + tol {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        *c = lo.max(*c);
    }
    count
}

/// Moves the tasks above each node's cap to nodes under their cap (Theorem 7).
fn rebalance(problem: &Problem, node_of: &mut [NodeId], count: &mut [u32], cap: &[u32]) {
    let mut excess: Vec<TaskId> = Vec::new();
    let mut seen = vec![0u32; problem.num_nodes()];
    // Keep on each node the tasks with fewest replicas; move the others.
    let mut order: Vec<TaskId> = (0..problem.num_tasks() as TaskId).collect();
    order.sort_by_key(|&t| (problem.graph.task_nodes.degree(t as usize), t));
    for &t in &order {
        let p = node_of[t as usize] as usize;
        seen[p] += 1;
        if seen[p] > cap[p] {
            excess.push(t);
        }
    }
    if excess.is_empty() {
        return;
    }
    let racks = problem.node_rack.iter().copied().max().map_or(0, |r| r + 1) as usize;
    let mut rack_heaps: Vec<BinaryHeap<Reverse<(OrdF64, NodeId)>>> =
        (0..racks).map(|_| BinaryHeap::new()).collect();
    let mut global: BinaryHeap<Reverse<(OrdF64, NodeId)>> = BinaryHeap::new();
    let key = |count: &[u32], p: NodeId| OrdF64(problem.unit_finish(p, count[p as usize] + 1));
    for p in 0..problem.num_nodes() as NodeId {
        if count[p as usize] < cap[p as usize] {
            let k = key(count, p);
            rack_heaps[problem.node_rack[p as usize] as usize].push(Reverse((k, p)));
            global.push(Reverse((k, p)));
        }
    }
    // Drops stale entries (the node filled up, or its key changed) lazily.
    // A node's count changes only when it receives a task, and a fresh entry
    // is pushed then, so a stale entry is simply dropped: pushing it back
    // would duplicate the node in the heap at every move, and the duplicates
    // made this quadratic when many tasks leave one host (issue 14).
    fn best(
        heap: &mut BinaryHeap<Reverse<(OrdF64, NodeId)>>,
        count: &[u32],
        cap: &[u32],
        key: &dyn Fn(&[u32], NodeId) -> OrdF64,
    ) -> Option<(OrdF64, NodeId)> {
        while let Some(&Reverse((k, p))) = heap.peek() {
            if count[p as usize] < cap[p as usize] && key(count, p) == k {
                return Some((k, p));
            }
            heap.pop();
        }
        None
    }
    for t in excess {
        let from = node_of[t as usize];
        let Some(least) = best(&mut global, count, cap, &key) else {
            // Caps always sum to at least |T|, so this cannot happen; keep the task local.
            continue;
        };
        let mut to = least.1;
        for &r in problem.replicas(t) {
            let rack = problem.node_rack[r as usize] as usize;
            if let Some((k, q)) = best(&mut rack_heaps[rack], count, cap, &key) {
                if k == least.0 {
                    to = q;
                    break;
                }
            }
        }
        node_of[t as usize] = to;
        count[from as usize] -= 1;
        count[to as usize] += 1;
        if count[to as usize] < cap[to as usize] {
            let k = key(count, to);
            rack_heaps[problem.node_rack[to as usize] as usize].push(Reverse((k, to)));
            global.push(Reverse((k, to)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CostModel;
    use crate::plan::{check_assignment, evaluate};
    use crate::Locality;

    #[test]
    fn caps_are_ceil_t_over_p_on_identical_nodes() {
        let p = Problem::uniform(3, &vec![vec![0]; 7], CostModel::default());
        assert_eq!(balanced_caps(&p), vec![3, 3, 3]);
        let p = Problem::uniform(3, &vec![vec![0]; 6], CostModel::default());
        assert_eq!(balanced_caps(&p), vec![2, 2, 2]);
    }

    #[test]
    fn zero_local_cost_terminates() {
        let mut p = Problem::uniform(2, &vec![vec![0]; 3], CostModel::default());
        p.cost.local = 0.0;
        assert_eq!(balanced_caps(&p), vec![3, 3]);
        let a = Asm1Comm.plan(&p, 0);
        assert_eq!(a.counts(), vec![3, 0]);
    }

    #[test]
    fn excess_moves_to_idle_nodes_rack_local_first() {
        // Four tasks all on node 0; nodes 1 (rack 1) and 2 (rack 0) are empty.
        let mut p = Problem::uniform(3, &vec![vec![0]; 4], CostModel::default());
        p.node_rack = vec![0, 1, 0];
        let a = Asm1Comm.plan(&p, 0);
        check_assignment(&p, &a).unwrap();
        let m = evaluate(&p, &a);
        assert_eq!(m.max_tasks_per_node, 2);
        assert_eq!(m.non_local, 2);
        // Nodes 1 and 2 are equally idle: the first moved task takes the
        // rack-local node 2, the second the now least loaded node 1.
        assert_eq!(a.counts(), vec![2, 1, 1]);
        assert_eq!(p.locality(a.queues.row(2)[0], 2), Locality::Rack);
        assert_eq!(m.rack_local, 1);
    }
}
