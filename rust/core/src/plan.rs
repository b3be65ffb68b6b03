//! What a planner produces (an assignment with an ordered queue per node) and
//! the metrics every policy reports on it.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::Serialize;

use crate::model::{Csr, Locality, NodeId, OrdF64, Problem, TaskId, NONE};

/// Every task on exactly one node, and the order in which each node runs its tasks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    /// `node_of[t]` is the node that runs task `t`.
    pub node_of: Vec<NodeId>,
    /// Row `n` is node `n`'s queue, first task first.
    pub queues: Csr,
}

impl Assignment {
    /// Queues in the given global order: tasks appear in each node's queue in the
    /// order they appear in `order` (which must list every task once).
    pub fn from_order(num_nodes: usize, node_of: Vec<NodeId>, order: &[TaskId]) -> Assignment {
        let mut rows: Vec<Vec<TaskId>> = vec![Vec::new(); num_nodes];
        for &t in order {
            // A task no node could take (no nodes at all) is in no queue;
            // check_assignment reports it.
            if let Some(row) = rows.get_mut(node_of[t as usize] as usize) {
                row.push(t);
            }
        }
        Assignment {
            node_of,
            queues: Csr::from_rows(rows),
        }
    }

    /// Queues for a static plan: on each node, tasks with fewer replicas first
    /// (nobody else can run them), the widely replicated ones last, where an
    /// idle node can steal them without hurting anyone. Ties by task id.
    pub fn with_static_order(problem: &Problem, node_of: Vec<NodeId>) -> Assignment {
        // A counting sort by degree (ids stay in order within a degree).
        let degree = |t: usize| problem.graph.task_nodes.degree(t);
        let n = problem.num_tasks();
        let max = (0..n).map(degree).max().unwrap_or(0);
        let mut start = vec![0usize; max + 2];
        for t in 0..n {
            start[degree(t) + 1] += 1;
        }
        for d in 0..=max {
            start[d + 1] += start[d];
        }
        let mut order: Vec<TaskId> = vec![0; n];
        for t in 0..n {
            let d = degree(t);
            order[start[d]] = t as TaskId;
            start[d] += 1;
        }
        Assignment::from_order(problem.num_nodes(), node_of, &order)
    }

    /// Number of tasks per node.
    pub fn counts(&self) -> Vec<u32> {
        (0..self.queues.rows())
            .map(|n| self.queues.degree(n) as u32)
            .collect()
    }
}

/// One node's slots under list scheduling: the unused ones, free since the
/// node's initial load, and a min-heap of the used ones' finish times.
/// Memory grows with the tasks started, not with the slot count.
#[derive(Debug, Default)]
pub(crate) struct NodeSlots {
    load: f64,
    unused: u32,
    busy: BinaryHeap<Reverse<OrdF64>>,
    last: f64,
}

impl NodeSlots {
    pub(crate) fn new(load: f64, slots: u32) -> NodeSlots {
        let mut s = NodeSlots::default();
        s.reset(load, slots);
        s
    }

    pub(crate) fn reset(&mut self, load: f64, slots: u32) {
        self.load = load;
        self.unused = slots.max(1);
        self.busy.clear();
        self.last = load;
    }

    /// When the earliest slot is free.
    pub(crate) fn earliest(&self) -> f64 {
        match self.busy.peek() {
            Some(Reverse(OrdF64(t))) if self.unused == 0 => *t,
            _ => self.load,
        }
    }

    /// Starts a task lasting `dur` on the earliest free slot; returns its start.
    pub(crate) fn start(&mut self, dur: f64) -> f64 {
        let at = if self.unused > 0 {
            self.unused -= 1;
            self.load
        } else {
            self.busy.pop().map_or(self.load, |Reverse(OrdF64(t))| t)
        };
        self.busy.push(Reverse(OrdF64(at + dur)));
        self.last = self.last.max(at + dur);
        at
    }

    /// When the last task finishes (the initial load with no task).
    pub(crate) fn finish(&self) -> f64 {
        self.last
    }
}

/// The figures every policy reports.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Metrics {
    pub makespan: f64,
    pub max_tasks_per_node: u32,
    pub non_local: usize,
    pub non_local_fraction: f64,
    pub rack_local: usize,
    pub off_switch: usize,
    /// Planning time in milliseconds (filled in by whoever timed the planner).
    pub plan_ms: f64,
}

/// Checks that `a` is a total assignment of `problem` whose queues agree with `node_of`.
pub fn check_assignment(problem: &Problem, a: &Assignment) -> Result<(), String> {
    if a.node_of.len() != problem.num_tasks() {
        return Err(format!(
            "assignment covers {} tasks, problem has {}",
            a.node_of.len(),
            problem.num_tasks()
        ));
    }
    if a.queues.rows() != problem.num_nodes() {
        return Err(format!(
            "assignment has {} queues, problem has {} nodes",
            a.queues.rows(),
            problem.num_nodes()
        ));
    }
    let mut seen = vec![false; problem.num_tasks()];
    for n in 0..a.queues.rows() {
        for &t in a.queues.row(n) {
            let ti = t as usize;
            if ti >= seen.len() || seen[ti] {
                return Err(format!("task {t} queued twice or out of range"));
            }
            seen[ti] = true;
            if a.node_of[ti] != n as NodeId {
                return Err(format!(
                    "task {t} queued on node {n} but assigned to {}",
                    a.node_of[ti]
                ));
            }
        }
    }
    if let Some(t) = seen.iter().position(|s| !s) {
        return Err(format!("task {t} is in no queue"));
    }
    Ok(())
}

/// Metrics of an assignment. A node's finish time is its initial load plus its
/// queue list-scheduled over its slots, each task taking `size * cost / speed`,
/// where cost is `local` for a node-local task and `remote_cost(r)` otherwise,
/// `r` being the number of non-local tasks in the whole plan.
/// Plans `problem` with `planner` and evaluates the plan, with its planning time.
pub fn timed_plan(
    planner: &dyn crate::Planner,
    problem: &Problem,
    seed: u64,
) -> (Assignment, Metrics) {
    let start = std::time::Instant::now();
    let a = planner.plan(problem, seed);
    let ms = start.elapsed().as_secs_f64() * 1e3;
    let mut m = evaluate(problem, &a);
    m.plan_ms = ms;
    (a, m)
}

pub fn evaluate(problem: &Problem, a: &Assignment) -> Metrics {
    let mut rack_local = 0;
    let mut off_switch = 0;
    for (t, &n) in a.node_of.iter().enumerate() {
        match problem.locality(t as TaskId, n) {
            Locality::Node => {}
            Locality::Rack => rack_local += 1,
            Locality::OffSwitch => off_switch += 1,
        }
    }
    let non_local = rack_local + off_switch;
    let remote = problem.cost.remote_cost(non_local);
    let mut makespan: f64 = 0.0;
    let mut max_tasks = 0u32;
    let mut slots = NodeSlots::default();
    for n in 0..problem.num_nodes() {
        let queue = a.queues.row(n);
        max_tasks = max_tasks.max(queue.len() as u32);
        slots.reset(problem.node_load[n], problem.node_slots[n]);
        for &t in queue {
            let cost = if problem.replicas(t).contains(&(n as NodeId)) {
                problem.cost.local
            } else {
                remote
            };
            // Earliest free slot takes the next task.
            slots.start(problem.task_size[t as usize] * cost / problem.node_speed[n]);
        }
        makespan = makespan.max(slots.finish());
    }
    let n_tasks = problem.num_tasks();
    Metrics {
        makespan,
        max_tasks_per_node: max_tasks,
        non_local,
        non_local_fraction: if n_tasks == 0 {
            0.0
        } else {
            non_local as f64 / n_tasks as f64
        },
        rack_local,
        off_switch,
        plan_ms: 0.0,
    }
}

/// The figures of merit of LABL (Agosta et al.) Sect. 3.2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Accounting {
    /// `l(T) = max_s phi(s)`: the last finish time, initial loads included and
    /// normalised so that the least loaded node starts at 0 (Sect. 3.1).
    pub latency: f64,
    /// `C(T) = sum_s (phi(s) - phi_s)`: node time the job consumes.
    pub resource: f64,
    /// `R(T) = |T| / C(T)` (0 for an empty job).
    pub throughput: f64,
}

/// Time node `n` spends on task `t`: `size * cost / speed`, `cost` being the
/// local cost or `remote` (a remote task's cost, fixed for the plan).
#[inline]
pub fn task_work(problem: &Problem, t: TaskId, n: NodeId, remote: f64) -> f64 {
    let cost = if problem.replicas(t).contains(&n) {
        problem.cost.local
    } else {
        remote
    };
    problem.task_size[t as usize] * cost / problem.node_speed[n as usize]
}

/// Latency, resource accounting and throughput of `a` (LABL Sect. 3.2).
/// A node's load is `phi(s) = phi_s + work / slots` (the paper's servers run
/// one task at a time; several slots share the work); the remote cost is
/// `remote_cost(r)` with r the plan's remote tasks, as in [`evaluate`].
pub fn accounting(problem: &Problem, a: &Assignment) -> Accounting {
    let n_nodes = problem.num_nodes();
    let remote_count = a
        .node_of
        .iter()
        .enumerate()
        .filter(|&(t, &n)| !problem.replicas(t as TaskId).contains(&n))
        .count();
    let remote = problem.cost.remote_cost(remote_count);
    let base = problem
        .node_load
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min);
    let base = if base.is_finite() { base } else { 0.0 };
    let mut latency: f64 = 0.0;
    let mut resource = 0.0;
    for n in 0..n_nodes {
        let work: f64 = a
            .queues
            .row(n)
            .iter()
            .map(|&t| task_work(problem, t, n as NodeId, remote))
            .sum();
        resource += work;
        let phi = problem.node_load[n] - base + work / f64::from(problem.node_slots[n].max(1));
        latency = latency.max(phi);
    }
    let tasks = a.node_of.len();
    Accounting {
        latency,
        resource,
        throughput: if resource > 0.0 {
            tasks as f64 / resource
        } else {
            0.0
        },
    }
}

/// Places the tasks still at `NONE` (those no node can run locally) one by one
/// on the node whose finish time after one more remote unit task is smallest.
/// `count[n]` is node n's current number of tasks and is updated.
pub fn place_unmatched(problem: &Problem, node_of: &mut [NodeId], count: &mut [u32]) {
    if problem.num_nodes() == 0 || !node_of.contains(&NONE) {
        return;
    }
    let mut heap: BinaryHeap<Reverse<(OrdF64, NodeId)>> = (0..problem.num_nodes() as NodeId)
        .map(|n| Reverse((OrdF64(remote_finish(problem, n, count[n as usize])), n)))
        .collect();
    for slot in node_of.iter_mut().filter(|n| **n == NONE) {
        if let Some(Reverse((_, n))) = heap.pop() {
            *slot = n;
            count[n as usize] += 1;
            heap.push(Reverse((
                OrdF64(remote_finish(problem, n, count[n as usize])),
                n,
            )));
        }
    }
}

fn remote_finish(problem: &Problem, node: NodeId, count: u32) -> f64 {
    let n = node as usize;
    let waves = (count + 1).div_ceil(problem.node_slots[n]);
    problem.node_load[n] + waves as f64 * problem.cost.remote / problem.node_speed[n]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CostModel;

    #[test]
    fn evaluate_counts_locality_and_finish() {
        // t0 local on n0, t1 remote on n0 (replica on n1, other rack), t2 local on n1.
        let mut p = Problem::uniform(2, &[vec![0], vec![1], vec![1]], CostModel::default());
        p.node_rack = vec![0, 1];
        let a = Assignment::from_order(2, vec![0, 0, 1], &[0, 1, 2]);
        check_assignment(&p, &a).unwrap();
        let m = evaluate(&p, &a);
        assert_eq!(m.makespan, 4.0); // 1 local + 3 remote on n0
        assert_eq!(m.off_switch, 1);
        assert_eq!(m.rack_local, 0);
        assert_eq!(m.non_local, 1);
        assert_eq!(m.max_tasks_per_node, 2);
        assert!((m.non_local_fraction - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn remote_growth_uses_the_plan_wide_remote_count() {
        let cost = CostModel {
            local: 1.0,
            remote: 1.0,
            remote_growth: 0.5,
        };
        let p = Problem::uniform(2, &[vec![1], vec![0]], cost);
        let a = Assignment::from_order(2, vec![0, 1], &[0, 1]);
        // Two remote tasks: each costs 1 + 0.5 * 2 = 2.
        assert_eq!(evaluate(&p, &a).makespan, 2.0);
    }

    #[test]
    fn accounting_counts_initial_loads_in_latency_only() {
        // t0 local on n0, t1 remote on n0, t2 local on n1; loads 2 and 1.
        let mut p = Problem::uniform(2, &[vec![0], vec![1], vec![1]], CostModel::default());
        p.node_load = vec![2.0, 1.0];
        let a = Assignment::from_order(2, vec![0, 0, 1], &[0, 1, 2]);
        let acc = accounting(&p, &a);
        // Normalised loads 1 and 0: n0 finishes at 1 + 1 + 3 = 5, n1 at 0 + 1.
        assert_eq!(acc.latency, 5.0);
        assert_eq!(acc.resource, 5.0);
        assert!((acc.throughput - 3.0 / 5.0).abs() < 1e-12);
    }

    #[test]
    fn check_assignment_rejects_a_missing_task() {
        let p = Problem::uniform(1, &[vec![0], vec![0]], CostModel::default());
        let a = Assignment {
            node_of: vec![0, 0],
            queues: Csr::from_rows(vec![vec![0u32]]),
        };
        assert_eq!(
            check_assignment(&p, &a).unwrap_err(),
            "task 1 is in no queue"
        );
    }
}
