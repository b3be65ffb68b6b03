//! MaxCover-BalAssign (MB) of Fischer, Su and Yin, the flow-based baseline of
//! LABL (Sect. 4, "flow-based") and BAR (Sect. II.B and V). It produces
//! one total assignment per threshold and keeps the one of least makespan:
//!
//! - *max-cover*: a maximum set of tasks placed locally such that no server
//!   exceeds a per-server cap (a max flow, by augmenting paths);
//! - *bal-assign*: the uncovered tasks are handed out one by one to the server
//!   of least *virtual* load, a local task when that server still has one, any
//!   task otherwise. The remote cost is not known before the assignment is
//!   complete, so the virtual cost assumes pessimistically that every task left
//!   uncovered by max-cover runs remote: `C_rem(m - |cover|)` (BAR Sect. V:
//!   "it calculates the virtual cost which is a prediction of the remote cost").
//!
//! Thresholds. Fischer et al. cap every server at τ tasks, τ = 1, 2, ...; their
//! servers start idle. BAR runs MB with initial loads, so the cap here is on
//! the load: at level τ, server s may hold k covered tasks while
//! `L_init(s) + k·d(s) <= L_min + τ·d_max`, with `d(s)` its local unit duration
//! (`C_loc / (speed·slots)`). With zero loads and identical servers this is
//! exactly the count cap τ; stepping by the slowest server's unit keeps the
//! number of levels near (balanced load - L_min) / C_loc when one server is
//! much faster than the rest. Caps only grow with τ, so the flow of level τ is
//! the starting point of level τ + 1 (incremental max flow, as in Fischer et
//! al.), and the loop stops once every task with a replica is covered: larger
//! caps change nothing after that.
//!
//! The makespan used to keep the best assignment is BAR's eq. 8 (the largest
//! final load among servers that receive tasks), with the real remote cost
//! `C_rem(r)` of the assignment.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::model::{NodeId, OrdF64, Problem, TaskId, NONE};
use crate::plan::Assignment;
use crate::policy::Planner;

/// A local (partial) assignment grown by augmenting paths in the replica
/// graph: the max-flow machinery shared by MB's max-cover and BAR's balance
/// phase.
///
/// Why it is fast: tasks are never unassigned again, so `cursor[s]` finds a
/// free local task of `s` in amortised O(1); and a server from which no
/// augmenting path exists is dead for good (its reachable set is closed, holds
/// no free task, and later augmentations only flip arcs outside it), so a
/// failed search retires every server it reached at once.
#[derive(Debug, Default)]
pub struct LocalFlow {
    /// Server of each task, or `NONE`.
    pub owner: Vec<NodeId>,
    /// Tasks per server.
    pub count: Vec<u32>,
    /// Sum of the sizes of each server's tasks.
    pub work: Vec<f64>,
    /// Servers that can never reach a free task again.
    pub dead: Vec<bool>,
    /// The last augmenting path: (server, task it gained); server `i >= 1`
    /// lost the task gained by server `i - 1`.
    pub path: Vec<(NodeId, TaskId)>,
    /// Tasks assigned so far.
    pub assigned: usize,
    /// Unassigned tasks local to each server.
    pub free_local: Vec<u32>,
    cursor: Vec<u32>,
    stamp: Vec<u32>,
    parent: Vec<(NodeId, TaskId)>,
    stack: Vec<NodeId>,
    touched: Vec<NodeId>,
    epoch: u32,
}

impl LocalFlow {
    /// Empty flow for `problem`, reusing the buffers.
    pub fn reset(&mut self, problem: &Problem) {
        let (n, m) = (problem.num_nodes(), problem.num_tasks());
        self.owner.clear();
        self.owner.resize(m, NONE);
        for v in [&mut self.count, &mut self.cursor, &mut self.stamp] {
            v.clear();
            v.resize(n, 0);
        }
        self.work.clear();
        self.work.resize(n, 0.0);
        self.dead.clear();
        self.dead.resize(n, false);
        self.parent.clear();
        self.parent.resize(n, (NONE, NONE));
        self.path.clear();
        self.assigned = 0;
        self.epoch = 0;
        self.free_local.clear();
        self.free_local
            .extend((0..n).map(|s| problem.graph.node_tasks.degree(s) as u32));
    }

    /// A free task local to `s`, if any.
    #[inline]
    fn free_local(&mut self, problem: &Problem, s: NodeId) -> Option<TaskId> {
        let local = problem.local_tasks(s);
        let c = &mut self.cursor[s as usize];
        while (*c as usize) < local.len() {
            let t = local[*c as usize];
            if self.owner[t as usize] == NONE {
                return Some(t);
            }
            *c += 1;
        }
        None
    }

    /// Gives `s0` one more task through an augmenting path (the other servers
    /// on the path keep their count). False, and `s0` with everything it
    /// reached marked dead, when no path exists.
    pub fn augment(&mut self, problem: &Problem, s0: NodeId) -> bool {
        self.path.clear();
        if self.dead[s0 as usize] {
            return false;
        }
        let epoch = next_epoch(&mut self.epoch, &mut self.stamp);
        self.stack.clear();
        self.touched.clear();
        self.stack.push(s0);
        self.touched.push(s0);
        self.stamp[s0 as usize] = epoch;
        while let Some(s) = self.stack.pop() {
            if let Some(t) = self.free_local(problem, s) {
                self.apply(problem, s, t);
                return true;
            }
            // Every local task of s is taken: walk to the servers that hold them.
            for &t in problem.local_tasks(s) {
                let o = self.owner[t as usize];
                if o != s && !self.dead[o as usize] && self.stamp[o as usize] != epoch {
                    self.stamp[o as usize] = epoch;
                    self.parent[o as usize] = (s, t);
                    self.stack.push(o);
                    self.touched.push(o);
                }
            }
        }
        for &s in &self.touched {
            self.dead[s as usize] = true;
        }
        false
    }

    /// Flips the path found by `augment`: `s` takes the free task `t`, then
    /// back to the root each server gives the task it was reached through to
    /// its parent.
    fn apply(&mut self, problem: &Problem, mut s: NodeId, mut t: TaskId) {
        let size = &problem.task_size;
        let root = self.touched[0];
        for &r in problem.replicas(t) {
            self.free_local[r as usize] -= 1;
        }
        loop {
            self.path.push((s, t));
            let si = s as usize;
            self.owner[t as usize] = s;
            self.work[si] += size[t as usize];
            if s == root {
                break;
            }
            let (p, via) = self.parent[si];
            self.work[si] -= size[via as usize];
            s = p;
            t = via;
        }
        self.count[root as usize] += 1;
        self.assigned += 1;
        self.path.reverse();
    }
}

/// A fresh stamp value: `stamps[i] == epoch` marks i in the current round
/// without clearing the array each round (cleared only when the counter wraps).
fn next_epoch(epoch: &mut u32, stamps: &mut [u32]) -> u32 {
    *epoch = epoch.wrapping_add(1);
    if *epoch == 0 {
        stamps.fill(0);
        *epoch = 1;
    }
    *epoch
}

/// The MaxCover-BalAssign planner.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mb;

impl Planner for Mb {
    fn name(&self) -> &'static str {
        "mb"
    }

    fn plan(&self, problem: &Problem, _seed: u64) -> Assignment {
        let node_of = max_cover_bal_assign(problem);
        Assignment::with_static_order(problem, node_of)
    }
}

/// The plan already holds its remote tasks; a node whose queue is done
/// helps with local work, then with any work left.
impl crate::policy::Policy for Mb {
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

/// Local unit duration of each server: `C_loc / (speed * slots)`.
pub(crate) fn local_unit(problem: &Problem) -> Vec<f64> {
    (0..problem.num_nodes())
        .map(|s| problem.cost.local / (problem.node_speed[s] * problem.node_slots[s].max(1) as f64))
        .collect()
}

/// The MB assignment (`node_of`).
///
/// Cost. A level costs the servers still alive plus, when it is evaluated,
/// one bal-assign (O(m log n)). A level is evaluated only when a lower bound
/// on any completion of its cover is below the best makespan so far (an
/// exact pruning: a level is kept only when strictly better): the largest
/// load the cover already puts on a server, and a relaxation in which every
/// uncovered task has the smallest size, each server takes at most its own
/// uncovered local tasks at the local cost and the others at `C_rem(0)`.
/// With one server, or one host holding every replica, every level but the
/// first is pruned (each was a full bal-assign, so 1e5 tasks on one node
/// took minutes). With equal task sizes the cover's largest load only grows,
/// so the loop stops once it reaches the best makespan.
pub fn max_cover_bal_assign(problem: &Problem) -> Vec<NodeId> {
    let (n, m) = (problem.num_nodes(), problem.num_tasks());
    if n == 0 || m == 0 {
        return vec![0; m];
    }
    let unit = local_unit(problem);
    let rate: Vec<f64> = (0..n)
        .map(|s| 1.0 / (problem.node_speed[s] * problem.node_slots[s].max(1) as f64))
        .collect();
    let coverable = (0..m)
        .filter(|&t| problem.graph.task_nodes.degree(t) > 0)
        .count();
    let l_min = problem
        .node_load
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min);
    let step = unit.iter().copied().fold(0.0, f64::max);
    let size_min = problem
        .task_size
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min);
    let equal_sizes = problem.task_size.iter().all(|&z| z == size_min);

    let mut flow = LocalFlow::default();
    flow.reset(problem);
    let mut bal = BalAssign::default();
    let mut best: Vec<NodeId> = Vec::new();
    let mut best_makespan = f64::INFINITY;
    // Servers that can still take a local task (dead ones drop out lazily).
    let mut live: Vec<usize> = (0..n).collect();
    // tau as a float: a level index past 2^64 (an initial load of 1.9e19
    // over a unit of 1) must not stall the jumps below.
    let mut tau: f64 = 1.0;
    let mut theta = l_min + step;
    let mut last_assigned = usize::MAX;
    let cap_at = |s: usize, theta: f64| -> u32 {
        if step > 0.0 {
            let room = (theta - problem.node_load[s]) / unit[s];
            // A hair of slack so that exact multiples are not lost to rounding.
            (room + 1e-9).floor().clamp(0.0, m as f64) as u32
        } else {
            m as u32
        }
    };
    loop {
        // Max-cover at level tau, starting from the previous level's flow.
        for &s in &live {
            let cap = cap_at(s, theta);
            while flow.count[s] < cap && flow.augment(problem, s as NodeId) {}
        }
        live.retain(|&s| !flow.dead[s]);
        // A level that covered nothing new gives the same plan as the last one.
        if flow.assigned != last_assigned {
            last_assigned = flow.assigned;
            let tol = 1e-9 * best_makespan.abs().max(1.0);
            let covered_max = (0..n)
                .filter(|&s| flow.count[s] > 0)
                .map(|s| problem.node_load[s] + flow.work[s] * unit[s])
                .fold(f64::NEG_INFINITY, f64::max);
            if best.is_empty() {
                best_makespan = bal.run(problem, &flow, &unit, &rate);
                best = bal.assignment(&flow).to_vec();
            } else if covered_max >= best_makespan - tol {
                if equal_sizes {
                    break; // later levels only load the cover more
                }
            } else if can_finish_before(problem, &flow, &unit, &rate, size_min, best_makespan - tol)
            {
                let makespan = bal.run(problem, &flow, &unit, &rate);
                if makespan < best_makespan {
                    best_makespan = makespan;
                    best.clear();
                    best.extend_from_slice(bal.assignment(&flow));
                }
            }
        }
        if flow.assigned >= coverable || step <= 0.0 {
            break;
        }
        // Jump to the next level at which a server that can still take a
        // local task gets room for one more: the number of levels is then
        // bounded by the tasks and servers, not by the spread of the initial
        // loads over C_loc (Fischer et al. step one task at a time).
        let next = live
            .iter()
            .filter(|&&s| (flow.count[s] as usize) < m)
            .map(|&s| problem.node_load[s] + f64::from(cap_at(s, theta) + 1) * unit[s])
            .fold(f64::INFINITY, f64::min);
        if !next.is_finite() {
            break;
        }
        tau = ((next - l_min) / step - 1e-9).ceil().max(tau + 1.0);
        let t = l_min + tau * step;
        // Where tau * step no longer moves theta (loads far above C_loc),
        // go straight to the next cap.
        theta = if t > theta {
            t
        } else if next > theta {
            next
        } else {
            f64::from_bits(theta.to_bits() + 1) // theta > 0: the next float up
        };
    }
    best
}

/// Whether the relaxation of MB's completion can place every uncovered task
/// with all servers finishing by `limit`: each uncovered task has the
/// smallest size, costs `C_loc` on a server holding one of the server's
/// uncovered local tasks (at most that many) and `C_rem(0)` elsewhere. When
/// it cannot, no completion of this cover finishes by `limit`.
fn can_finish_before(
    problem: &Problem,
    flow: &LocalFlow,
    unit: &[f64],
    rate: &[f64],
    size: f64,
    limit: f64,
) -> bool {
    let left = (problem.num_tasks() - flow.assigned) as f64;
    if left == 0.0 {
        return true;
    }
    let mut fit = 0.0;
    for s in 0..problem.num_nodes() {
        let room = limit - (problem.node_load[s] + flow.work[s] * unit[s]);
        if room < 0.0 {
            continue;
        }
        let local = size * unit[s];
        let remote = size * problem.cost.remote * rate[s];
        let free = f64::from(flow.free_local[s]);
        fit += if remote <= local {
            if remote > 0.0 {
                (room / remote).floor()
            } else {
                f64::INFINITY
            }
        } else {
            let k = if local > 0.0 {
                (room / local).floor().min(free)
            } else {
                free
            };
            k + ((room - k * local) / remote).floor()
        };
        if fit >= left {
            return true;
        }
    }
    false
}

/// Buffers of the bal-assign phase, reused across thresholds. A run costs
/// the uncovered tasks and their replicas plus O(n log n), not O(m): the
/// covered tasks are neither copied nor scanned (the full copy and scan made
/// every level O(m), and MB evaluates up to one level per task).
#[derive(Default)]
struct BalAssign {
    /// Uncovered tasks of the current level, in id order.
    uncovered: Vec<TaskId>,
    started: bool,
    /// The uncovered tasks local to each server, in id order (CSR).
    offsets: Vec<u32>,
    targets: Vec<TaskId>,
    cursor: Vec<u32>,
    /// `taken[t] == epoch`: task t was handed out in this run.
    taken: Vec<u32>,
    epoch: u32,
    /// This run's hand-outs.
    choice: Vec<(TaskId, NodeId)>,
    heap: BinaryHeap<Reverse<(OrdF64, NodeId)>>,
    local_add: Vec<f64>,
    remote_add: Vec<f64>,
    got: Vec<bool>,
    /// The last run's assignment, built by [`BalAssign::assignment`].
    node_of: Vec<NodeId>,
}

impl BalAssign {
    /// Completes the cover greedily and returns the eq. 8 makespan.
    fn run(&mut self, problem: &Problem, flow: &LocalFlow, unit: &[f64], rate: &[f64]) -> f64 {
        let (n, m) = (problem.num_nodes(), problem.num_tasks());
        if !self.started {
            self.started = true;
            self.uncovered = (0..m as TaskId).collect();
            self.taken = vec![0; m];
        }
        // Tasks are covered for good once covered.
        self.uncovered.retain(|&t| flow.owner[t as usize] == NONE);
        self.offsets.clear();
        self.offsets.resize(n + 1, 0);
        for &t in &self.uncovered {
            for &r in problem.replicas(t) {
                self.offsets[r as usize + 1] += 1;
            }
        }
        for s in 0..n {
            self.offsets[s + 1] += self.offsets[s];
        }
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.offsets[..n]);
        self.targets.clear();
        self.targets.resize(self.offsets[n] as usize, 0);
        for &t in &self.uncovered {
            for &r in problem.replicas(t) {
                let c = &mut self.cursor[r as usize];
                self.targets[*c as usize] = t;
                *c += 1;
            }
        }
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.offsets[..n]);
        let epoch = next_epoch(&mut self.epoch, &mut self.taken);
        self.choice.clear();
        for v in [&mut self.local_add, &mut self.remote_add] {
            v.clear();
            v.resize(n, 0.0);
        }
        self.got.clear();
        self.got.resize(n, false);

        let mut left = self.uncovered.len();
        let virtual_remote = problem.cost.remote_cost(left);
        self.heap.clear();
        self.heap.extend((0..n).map(|s| {
            let load = problem.node_load[s] + flow.work[s] * unit[s];
            Reverse((OrdF64(load), s as NodeId))
        }));
        let mut next_any = 0usize;
        let mut remote = 0usize;
        while left > 0 {
            let Some(Reverse((OrdF64(load), s))) = self.heap.pop() else {
                break;
            };
            let si = s as usize;
            let mut chosen = NONE;
            while self.cursor[si] < self.offsets[si + 1] {
                let t = self.targets[self.cursor[si] as usize];
                self.cursor[si] += 1;
                if self.taken[t as usize] != epoch {
                    chosen = t;
                    break;
                }
            }
            let size;
            let cost = if chosen != NONE {
                size = problem.task_size[chosen as usize];
                self.local_add[si] += size;
                unit[si]
            } else {
                // s has no uncovered local task left, so this one is remote.
                while self.taken[self.uncovered[next_any] as usize] == epoch {
                    next_any += 1;
                }
                chosen = self.uncovered[next_any];
                size = problem.task_size[chosen as usize];
                self.remote_add[si] += size;
                remote += 1;
                virtual_remote * rate[si]
            };
            self.taken[chosen as usize] = epoch;
            self.choice.push((chosen, s));
            self.got[si] = true;
            left -= 1;
            self.heap.push(Reverse((OrdF64(load + size * cost), s)));
        }
        // BAR's eq. 8 over the servers that run something (see active_makespan).
        let c_rem = problem.cost.remote_cost(remote);
        let mut makespan: f64 = 0.0;
        for s in 0..n {
            if flow.count[s] == 0 && !self.got[s] {
                continue;
            }
            let rate = 1.0 / (problem.node_speed[s] * problem.node_slots[s].max(1) as f64);
            let local_work = flow.work[s] + self.local_add[s];
            let load = problem.node_load[s]
                + (local_work * problem.cost.local + self.remote_add[s] * c_rem) * rate;
            makespan = makespan.max(load);
        }
        makespan
    }

    /// The last run's assignment: the cover plus the hand-outs.
    fn assignment(&mut self, flow: &LocalFlow) -> &[NodeId] {
        self.node_of.clone_from(&flow.owner);
        for &(t, s) in &self.choice {
            self.node_of[t as usize] = s;
        }
        &self.node_of
    }
}

/// BAR's eq. 8: the largest final load among servers that run at least one
/// task, a server's load being its initial load plus its tasks' costs run one
/// after the other over its slots (`size * cost / (speed * slots)`), local tasks
/// costing `C_loc` and the others `C_rem(r)` for the `r` non-local tasks of the
/// plan. Zero for an empty plan.
pub fn active_makespan(problem: &Problem, node_of: &[NodeId]) -> f64 {
    active_makespan_with(problem, node_of, &mut Vec::new(), &mut Vec::new())
}

fn active_makespan_with(
    problem: &Problem,
    node_of: &[NodeId],
    local_work: &mut Vec<f64>,
    remote_work: &mut Vec<f64>,
) -> f64 {
    let n = problem.num_nodes();
    local_work.clear();
    local_work.resize(n, -1.0);
    remote_work.clear();
    remote_work.resize(n, 0.0);
    let mut remote = 0usize;
    for (t, &s) in node_of.iter().enumerate() {
        let si = s as usize;
        if local_work[si] < 0.0 {
            local_work[si] = 0.0; // marks the server active
        }
        let size = problem.task_size[t];
        if problem.replicas(t as TaskId).contains(&s) {
            local_work[si] += size;
        } else {
            remote_work[si] += size;
            remote += 1;
        }
    }
    let c_rem = problem.cost.remote_cost(remote);
    let mut makespan: f64 = 0.0;
    for s in 0..n {
        if local_work[s] < 0.0 {
            continue;
        }
        let rate = 1.0 / (problem.node_speed[s] * problem.node_slots[s].max(1) as f64);
        let load = problem.node_load[s]
            + (local_work[s] * problem.cost.local + remote_work[s] * c_rem) * rate;
        makespan = makespan.max(load);
    }
    makespan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CostModel;
    use crate::plan::check_assignment;
    use proptest::strategy::Strategy;

    fn bar_cost(c_loc: f64, q: f64) -> CostModel {
        CostModel {
            local: c_loc,
            remote: c_loc,
            remote_growth: q,
        }
    }

    /// Thresholds jump to where a cap grows: a busy holder far above the
    /// others no longer costs one level per C_loc of load (this took minutes).
    #[test]
    fn a_huge_initial_load_does_not_mean_a_huge_number_of_levels() {
        let mut p = Problem::uniform(2000, &[vec![1]], CostModel::default());
        p.node_load[1] = 1e6;
        let a = Mb.plan(&p, 1);
        check_assignment(&p, &a).unwrap();
        // Remote on an idle server (cost 3) beats waiting 1e6 for the holder.
        assert_ne!(a.node_of[0], 1);
    }

    #[test]
    fn augmenting_path_moves_a_task_along() {
        // t0 on {1, 0}, t1 on {1}. Node 1 takes t0; then from node 0 the only
        // path is 0 -> t0 -> 1 -> t1; after it, no free task is left.
        let p = Problem::uniform(2, &[vec![1, 0], vec![1]], bar_cost(1.0, 0.0));
        let mut f = LocalFlow::default();
        f.reset(&p);
        assert!(f.augment(&p, 1)); // takes t0 (first free local task of node 1)
        assert_eq!(f.owner, vec![1, NONE]);
        assert!(f.augment(&p, 0)); // path 0 -> t0 -> 1 -> t1: t0 moves to 0, 1 takes t1
        assert_eq!(f.owner, vec![0, 1]);
        assert_eq!(f.count, vec![1, 1]);
        assert_eq!(f.path, vec![(0, 0), (1, 1)]);
        assert_eq!(f.work, vec![1.0, 1.0]);
        assert!(!f.augment(&p, 0));
        assert!(f.dead[0]);
    }

    #[test]
    fn all_local_when_loads_are_even() {
        // Six tasks, two replicas each on three idle servers: MB covers all
        // tasks two per server (makespan 2 local units).
        let replicas = vec![
            vec![0, 1],
            vec![1, 2],
            vec![2, 0],
            vec![0, 1],
            vec![1, 2],
            vec![2, 0],
        ];
        let p = Problem::uniform(3, &replicas, bar_cost(1.0, 1.0));
        let a = Mb.plan(&p, 0);
        check_assignment(&p, &a).unwrap();
        assert_eq!(a.counts(), vec![2, 2, 2]);
        assert_eq!(active_makespan(&p, &a.node_of), 2.0);
    }

    #[test]
    fn goes_remote_when_the_only_replica_is_busy() {
        // Four tasks all on server 0; server 1 idle; C_loc = 1, C_rem(r) = 1 + r/2.
        // tau = 1 covers one task; bal-assign (virtual cost 2.5) sends one task
        // remote to server 1 and two more locally to server 0: loads 3 and 1.5.
        // The other levels give 3 (tau = 2, 3) and 4 (all local). Optimum: k
        // remote tasks cost max(4 - k, k (1 + k/2)), least at k = 1: 3.
        let p = Problem::uniform(2, &vec![vec![0]; 4], bar_cost(1.0, 0.5));
        let a = Mb.plan(&p, 0);
        check_assignment(&p, &a).unwrap();
        assert_eq!(active_makespan(&p, &a.node_of), 3.0);
        assert_eq!(a.counts(), vec![3, 1]);
    }

    #[test]
    fn initial_load_caps_the_cover() {
        // Server 0 busy until 10, server 1 idle; both hold both tasks.
        let mut p = Problem::uniform(2, &[vec![0, 1], vec![0, 1]], bar_cost(1.0, 0.0));
        p.node_load = vec![10.0, 0.0];
        let a = Mb.plan(&p, 0);
        assert_eq!(a.counts(), vec![0, 2]);
        assert_eq!(active_makespan(&p, &a.node_of), 2.0);
    }

    #[test]
    fn eq8_ignores_idle_servers() {
        let mut p = Problem::uniform(2, &[vec![1]], bar_cost(20.0, 10.0));
        p.node_load = vec![100.0, 5.0];
        assert_eq!(active_makespan(&p, &[1]), 25.0);
        // Remote on server 0: 100 + 20 + 10 * 1.
        assert_eq!(active_makespan(&p, &[0]), 130.0);
        assert_eq!(active_makespan(&p, &[]), 0.0);
    }

    #[test]
    fn tasks_without_replicas_are_placed() {
        let p = Problem::uniform(2, &[vec![], vec![0], vec![]], bar_cost(1.0, 0.0));
        let a = Mb.plan(&p, 0);
        check_assignment(&p, &a).unwrap();
        assert_eq!(a.node_of[1], 0);
    }

    /// Least eq. 8 makespan over all local-only assignments (brute force).
    fn best_local(p: &Problem, replicas: &[Vec<NodeId>]) -> f64 {
        fn go(t: usize, p: &Problem, r: &[Vec<NodeId>], node_of: &mut Vec<NodeId>, best: &mut f64) {
            if t == r.len() {
                *best = best.min(active_makespan(p, node_of));
                return;
            }
            for &s in &r[t] {
                node_of.push(s);
                go(t + 1, p, r, node_of, best);
                node_of.pop();
            }
        }
        let mut best = f64::INFINITY;
        go(0, p, replicas, &mut Vec::new(), &mut best);
        best
    }

    proptest::proptest! {
        /// With integer loads the level at which the cover becomes total is the
        /// best local-only makespan, so MB never does worse than it.
        #[test]
        fn never_worse_than_the_best_local_assignment(
            (nodes, replicas, loads, q) in (1usize..5).prop_flat_map(|n| (
                proptest::strategy::Just(n),
                proptest::collection::vec(
                    proptest::sample::subsequence((0..n as NodeId).collect::<Vec<_>>(), 1..=n.min(3)),
                    1..7,
                ),
                proptest::collection::vec(0u32..4, n),
                0u32..3,
            ))
        ) {
            let mut p = Problem::uniform(nodes, &replicas, bar_cost(1.0, q as f64));
            p.node_load = loads.iter().map(|&l| l as f64).collect();
            let a = Mb.plan(&p, 0);
            proptest::prop_assert!(check_assignment(&p, &a).is_ok());
            let ms = active_makespan(&p, &a.node_of);
            proptest::prop_assert!(ms <= best_local(&p, &replicas) + 1e-9, "mb {ms}");
        }
    }
}
