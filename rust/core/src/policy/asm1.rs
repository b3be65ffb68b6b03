//! ASM1 (Harvey, Ladner, Lovász, Tamir), as described in Beaumont et al.,
//! Algorithm 1 and Sect. 5.2: a local-only semi-matching of minimum
//! maximal load (MAKESPAN-ORIENTED), which by Theorem 10 also minimises the
//! total load imbalance (and any convex function of the loads).
//!
//! Algorithm 1 visits the processors in rounds; each visit looks for the
//! shortest alternating path from the processor to an unassigned task and
//! applies it, and a processor with no such path is removed. We visit in order
//! of the finish time the processor would have with one more task
//! (`Problem::unit_finish`), which is exactly the round order of Algorithm 1
//! when nodes are identical, and lets integer initial loads (a node busy for k
//! units joins at round k + 1), speeds and slots take part: processing
//! increments in increasing order of their finish time keeps the result a
//! minimum-maximum one (it computes, threshold by threshold, the max flow of
//! the capped problem).
//!
//! Implementation notes (why it is fast):
//! - `free_cnt[p]` counts p's unassigned local tasks, so "p can take a free
//!   task" is O(1); `cursor[p]` finds one in amortised O(1) since tasks are never
//!   unassigned again.
//! - The path search is a BFS over processors; when it fails, every processor
//!   it reached is also stuck for good (its reachable set is closed and holds
//!   no free task, and later augmentations cannot enter it), so they are all
//!   removed at once and never searched again.
//! - Tasks without any replica are placed afterwards on the least loaded nodes
//!   as remote tasks (MAKESPAN-ORIENTED has no local choice for them).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::model::{NodeId, OrdF64, Problem, TaskId, NONE};
use crate::plan::{place_unmatched, Assignment};
use crate::policy::Planner;

/// Reusable buffers for ASM1; keep one per planning thread.
#[derive(Default, Debug)]
pub struct Asm1Workspace {
    owner: Vec<NodeId>,
    free_cnt: Vec<u32>,
    cursor: Vec<u32>,
    count: Vec<u32>,
    dead: Vec<bool>,
    stamp: Vec<u32>,
    parent: Vec<NodeId>,
    via: Vec<TaskId>,
    queue: Vec<NodeId>,
    heap: BinaryHeap<Reverse<(OrdF64, NodeId)>>,
    epoch: u32,
}

/// The ASM1 planner (local-only, makespan oriented).
#[derive(Clone, Copy, Debug, Default)]
pub struct Asm1;

impl Planner for Asm1 {
    fn name(&self) -> &'static str {
        "asm1"
    }

    fn plan(&self, problem: &Problem, _seed: u64) -> Assignment {
        let mut ws = Asm1Workspace::default();
        let node_of = semi_matching(problem, &mut ws).to_vec();
        Assignment::with_static_order(problem, node_of)
    }
}

/// Follow the plan, then steal local work (Beaumont et al., Sect. 7.1); never remote.
impl crate::policy::Policy for Asm1 {
    fn name(&self) -> &'static str {
        Planner::name(self)
    }
    fn planner(&self) -> Option<&dyn Planner> {
        Some(self)
    }
    fn on_free_slot(&self) -> crate::policy::FreeSlot {
        crate::policy::FreeSlot::Local { steal: true }
    }
}

/// Runs ASM1 and returns `node_of` for every task (a slice into the workspace).
/// Tasks with replicas are all local; tasks without are placed as remote.
pub fn semi_matching<'w>(problem: &Problem, ws: &'w mut Asm1Workspace) -> &'w [NodeId] {
    let n_nodes = problem.num_nodes();
    let n_tasks = problem.num_tasks();
    let g = &problem.graph;
    ws.reset(n_nodes, n_tasks);
    for p in 0..n_nodes {
        ws.free_cnt[p] = g.node_tasks.degree(p) as u32;
    }
    let matchable = (0..n_tasks).filter(|&t| g.task_nodes.degree(t) > 0).count();

    for p in 0..n_nodes as NodeId {
        ws.heap
            .push(Reverse((OrdF64(problem.unit_finish(p, 1)), p)));
    }
    let mut assigned = 0usize;
    while assigned < matchable {
        let Some(Reverse((_, p))) = ws.heap.pop() else {
            break;
        };
        if ws.dead[p as usize] {
            continue;
        }
        if ws.augment(problem, p) {
            assigned += 1;
            let c = &mut ws.count[p as usize];
            *c += 1;
            let key = problem.unit_finish(p, *c + 1);
            ws.heap.push(Reverse((OrdF64(key), p)));
        }
    }
    place_unmatched(problem, &mut ws.owner, &mut ws.count);
    &ws.owner
}

impl Asm1Workspace {
    fn reset(&mut self, n_nodes: usize, n_tasks: usize) {
        fn fill<T: Copy>(v: &mut Vec<T>, n: usize, x: T) {
            v.clear();
            v.resize(n, x);
        }
        fill(&mut self.owner, n_tasks, NONE);
        fill(&mut self.free_cnt, n_nodes, 0);
        fill(&mut self.cursor, n_nodes, 0);
        fill(&mut self.count, n_nodes, 0);
        fill(&mut self.dead, n_nodes, false);
        fill(&mut self.stamp, n_nodes, 0);
        fill(&mut self.parent, n_nodes, NONE);
        fill(&mut self.via, n_nodes, NONE);
        self.queue.clear();
        self.heap.clear();
        self.epoch = 0;
    }

    /// Number of tasks each node holds after the last run.
    pub fn counts(&self) -> &[u32] {
        &self.count
    }

    fn take_free_task(&mut self, problem: &Problem, p: NodeId) -> TaskId {
        let row = problem.local_tasks(p);
        let mut c = self.cursor[p as usize] as usize;
        while self.owner[row[c] as usize] != NONE {
            c += 1;
        }
        self.cursor[p as usize] = c as u32 + 1;
        row[c]
    }

    fn assign(&mut self, problem: &Problem, t: TaskId, p: NodeId) {
        self.owner[t as usize] = p;
        for &q in problem.replicas(t) {
            self.free_cnt[q as usize] -= 1;
        }
    }

    /// Applies the shortest alternating path from `p` to an unassigned task, if
    /// any: p gains one task, every other node on the path keeps its count.
    fn augment(&mut self, problem: &Problem, p: NodeId) -> bool {
        if self.free_cnt[p as usize] > 0 {
            let t = self.take_free_task(problem, p);
            self.assign(problem, t, p);
            return true;
        }
        self.epoch += 1;
        let epoch = self.epoch;
        self.stamp[p as usize] = epoch;
        self.queue.clear();
        self.queue.push(p);
        let mut head = 0;
        let mut found = NONE;
        'bfs: while head < self.queue.len() {
            let u = self.queue[head];
            head += 1;
            for &t in problem.local_tasks(u) {
                // u has no free task, so every neighbour task has an owner.
                let o = self.owner[t as usize];
                if o == u {
                    continue;
                }
                let oi = o as usize;
                if self.dead[oi] || self.stamp[oi] == epoch {
                    continue;
                }
                self.stamp[oi] = epoch;
                self.parent[oi] = u;
                self.via[oi] = t;
                if self.free_cnt[oi] > 0 {
                    found = o;
                    break 'bfs;
                }
                self.queue.push(o);
            }
        }
        if found == NONE {
            for i in 0..self.queue.len() {
                let u = self.queue[i];
                self.dead[u as usize] = true;
            }
            return false;
        }
        let f = self.take_free_task(problem, found);
        self.assign(problem, f, found);
        let mut x = found;
        while x != p {
            let t = self.via[x as usize];
            let y = self.parent[x as usize];
            self.owner[t as usize] = y;
            x = y;
        }
        true
    }
}

/// A lower bound on the maximum number of tasks per node of any local
/// assignment, certified from `node_of` (unit tasks, every task with a
/// replica): close the set R of nodes reachable from a most-loaded node by
/// moving one of its tasks to another replica holder, and so on; the tasks
/// assigned inside R have all their replicas in R, so some node of R must
/// take at least ceil(tasks / |R|). When `node_of` has no cost-reducing path
/// (Theorem 10) this equals its own maximum: an independent optimality check.
pub fn certified_lower_bound(problem: &Problem, node_of: &[NodeId]) -> u32 {
    let n = problem.num_nodes();
    let mut count = vec![0u32; n];
    let mut assigned: Vec<Vec<TaskId>> = vec![Vec::new(); n];
    for (t, &p) in node_of.iter().enumerate() {
        if (p as usize) < n {
            count[p as usize] += 1;
            assigned[p as usize].push(t as TaskId);
        }
    }
    let Some(top) = (0..n).max_by_key(|&p| (count[p], std::cmp::Reverse(p))) else {
        return 0;
    };
    let mut in_r = vec![false; n];
    in_r[top] = true;
    let mut stack = vec![top];
    let (mut nodes, mut tasks) = (0u64, 0u64);
    while let Some(u) = stack.pop() {
        nodes += 1;
        tasks += u64::from(count[u]);
        for &t in &assigned[u] {
            for &q in problem.replicas(t) {
                if !in_r[q as usize] {
                    in_r[q as usize] = true;
                    stack.push(q as usize);
                }
            }
        }
    }
    tasks.div_ceil(nodes) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CostModel;
    use crate::plan::{check_assignment, evaluate};

    /// The example of Beaumont et al., Fig. 4: processors 1..4, tasks a..f.
    /// a:{2}, b:{2,3}, c:{4}, d:{1,2}, e:{1}, f:{3}. ASM1 ends with every
    /// processor holding at most 2 tasks, and it needs the path 2-b-3-f.
    #[test]
    fn paper_figure_4() {
        let replicas = vec![vec![1], vec![1, 2], vec![3], vec![0, 1], vec![0], vec![2]];
        let p = Problem::uniform(4, &replicas, CostModel::default());
        let a = Asm1.plan(&p, 0);
        check_assignment(&p, &a).unwrap();
        let m = evaluate(&p, &a);
        assert_eq!(m.max_tasks_per_node, 2);
        assert_eq!(m.non_local, 0);
        assert_eq!(
            a.node_of[1], 1,
            "b moves to processor 2 through the alternating path"
        );
        assert_eq!(a.node_of[5], 2);
    }

    #[test]
    fn integer_initial_load_counts_as_tasks() {
        // Two tasks on both nodes; node 0 is busy for 2 units: both go to node 1.
        let mut p = Problem::uniform(2, &[vec![0, 1], vec![0, 1]], CostModel::default());
        p.node_load = vec![2.0, 0.0];
        let a = Asm1.plan(&p, 0);
        assert_eq!(a.node_of, vec![1, 1]);
        assert_eq!(evaluate(&p, &a).makespan, 2.0);
    }

    #[test]
    fn tasks_without_replicas_go_remote_to_the_least_loaded_node() {
        let p = Problem::uniform(2, &[vec![0], vec![0], vec![]], CostModel::default());
        let a = Asm1.plan(&p, 0);
        assert_eq!(a.node_of, vec![0, 0, 1]);
    }

    #[test]
    fn certificate_matches_asm1_and_exposes_a_bad_assignment() {
        let replicas = vec![vec![1], vec![1, 2], vec![3], vec![0, 1], vec![0], vec![2]];
        let p = Problem::uniform(4, &replicas, CostModel::default());
        let a = Asm1.plan(&p, 0);
        assert_eq!(certified_lower_bound(&p, &a.node_of), 2);
        // Everything that can go to processor 2 (index 1) goes there: max 3,
        // but the closure proves only 2 is forced.
        assert_eq!(certified_lower_bound(&p, &[1, 1, 3, 1, 0, 2]), 2);
    }

    #[test]
    fn workspace_is_reusable() {
        let p1 = Problem::uniform(2, &[vec![0], vec![0, 1], vec![1]], CostModel::default());
        let p2 = Problem::uniform(3, &[vec![2], vec![2]], CostModel::default());
        let mut ws = Asm1Workspace::default();
        assert_eq!(semi_matching(&p1, &mut ws).len(), 3);
        assert_eq!(semi_matching(&p2, &mut ws), &[2, 2]);
        assert_eq!(ws.counts(), &[0, 0, 2]);
    }
}
