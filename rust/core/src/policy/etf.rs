//! Clairvoyant Earliest Time First of Beaumont et al., Sect. 6.2: locality-aware
//! Longest Processing Time first. Task durations are known in advance.
//!
//! - MAKESPAN variant (static): tasks in decreasing duration, each on the
//!   replica holder whose load (earliest free slot, initial load included)
//!   is smallest given the tasks placed before it.
//! - COMM variant: the criterion is applied to local tasks first, then to all
//!   remaining ones; read as a list schedule (no node idles while work
//!   remains): the node that frees first takes its longest local unprocessed
//!   task, or, with none, the longest unprocessed task anywhere. Durations are
//!   known, so this is a static plan; it is computed by playing it out.

use rand_chacha::ChaCha8Rng;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::execute::{execute, ExecState, Rule};
use crate::model::{Csr, NodeId, OrdF64, Problem, TaskId, NONE};
use crate::plan::{Assignment, NodeSlots};
use crate::policy::Planner;

/// `etf`.
pub const ETF: Etf = Etf { comm: false };
/// `etf-comm`.
pub const ETF_COMM: Etf = Etf { comm: true };

/// Locality-aware LPT; `comm` allows non-local tasks.
#[derive(Clone, Copy, Debug, Default)]
pub struct Etf {
    pub comm: bool,
}

impl Planner for Etf {
    fn name(&self) -> &'static str {
        if self.comm {
            "etf-comm"
        } else {
            "etf"
        }
    }

    fn plan(&self, problem: &Problem, seed: u64) -> Assignment {
        if self.comm {
            execute(problem, &mut EtfCommRule::new(problem), seed).assignment(problem.num_nodes())
        } else {
            lpt(problem)
        }
    }
}

/// ETF follows its plan and idles once done; ETF-COMM runs its list
/// schedule offline, and in the Session follows the plan, steals, spills.
impl crate::policy::Policy for Etf {
    fn name(&self) -> &'static str {
        Planner::name(self)
    }
    fn planner(&self) -> Option<&dyn Planner> {
        Some(self)
    }
    fn on_free_slot(&self) -> crate::policy::FreeSlot {
        use crate::policy::FreeSlot;
        if self.comm {
            FreeSlot::Spill { steal: true }
        } else {
            FreeSlot::Local { steal: false }
        }
    }
    fn clairvoyant(&self) -> bool {
        true
    }
    fn execute(&self, problem: &Problem, seed: u64) -> Option<crate::execute::Execution> {
        if self.comm {
            Some(execute(problem, &mut EtfCommRule::new(problem), seed))
        } else {
            crate::policy::execute_planned(self, problem, seed)
        }
    }
}

/// Local-only LPT. Tasks without a replica go to the node that frees first.
fn lpt(problem: &Problem) -> Assignment {
    let n_nodes = problem.num_nodes();
    let mut slots: Vec<NodeSlots> = (0..n_nodes)
        .map(|n| NodeSlots::new(problem.node_load[n], problem.node_slots[n]))
        .collect();
    // Every node by the time its earliest slot frees, for the tasks without
    // a replica (a scan of all nodes per such task was O(nodes * tasks));
    // an entry is stale once its node took another task.
    let mut free_first: BinaryHeap<Reverse<(OrdF64, NodeId)>> = (0..n_nodes)
        .map(|n| Reverse((OrdF64(slots[n].earliest()), n as NodeId)))
        .collect();
    let mut order: Vec<TaskId> = (0..problem.num_tasks() as TaskId).collect();
    order.sort_by(|&a, &b| {
        problem.task_size[b as usize]
            .total_cmp(&problem.task_size[a as usize])
            .then(a.cmp(&b))
    });
    let mut node_of = vec![NONE; problem.num_tasks()];
    for &t in &order {
        let replicas = problem.replicas(t);
        let mut best = (NONE, f64::INFINITY);
        if replicas.is_empty() {
            while let Some(&Reverse((OrdF64(at), n))) = free_first.peek() {
                if slots[n as usize].earliest() == at {
                    best = (n, at);
                    break;
                }
                free_first.pop();
            }
        } else {
            for &n in replicas {
                let at = slots[n as usize].earliest();
                // The first holder even when every load overflowed to infinity.
                if best.0 == NONE || at < best.1 {
                    best = (n, at);
                }
            }
        }
        let (n, _) = best;
        if n == NONE {
            continue;
        }
        let cost = if replicas.is_empty() {
            problem.cost.remote
        } else {
            problem.cost.local
        };
        let s = &mut slots[n as usize];
        s.start(problem.task_size[t as usize] * cost / problem.node_speed[n as usize]);
        free_first.push(Reverse((OrdF64(s.earliest()), n)));
        node_of[t as usize] = n;
    }
    Assignment::from_order(n_nodes, node_of, &order)
}

/// The COMM variant's list-scheduling rule (clairvoyant: reads task sizes).
/// Sizes never change, so each node's local tasks and all tasks are sorted
/// once, longest first (ties by task id), and a cursor skips the claimed
/// ones: a pick costs amortised O(1) instead of a scan of every pending task.
pub struct EtfCommRule {
    local: Csr,
    local_cursor: Vec<u32>,
    all: Vec<TaskId>,
    all_cursor: usize,
}

impl EtfCommRule {
    pub fn new(problem: &Problem) -> EtfCommRule {
        let size = &problem.task_size;
        let longest_first = |a: &TaskId, b: &TaskId| {
            size[*b as usize]
                .total_cmp(&size[*a as usize])
                .then(a.cmp(b))
        };
        let local = Csr::from_rows((0..problem.num_nodes()).map(|n| {
            let mut row = problem.local_tasks(n as NodeId).to_vec();
            row.sort_by(longest_first);
            row
        }));
        let mut all: Vec<TaskId> = (0..problem.num_tasks() as TaskId).collect();
        all.sort_by(longest_first);
        EtfCommRule {
            local_cursor: vec![0; problem.num_nodes()],
            local,
            all,
            all_cursor: 0,
        }
    }
}

impl Rule for EtfCommRule {
    fn pick(&mut self, st: &ExecState, node: NodeId, _rng: &mut ChaCha8Rng) -> Option<TaskId> {
        let row = self.local.row(node as usize);
        let c = &mut self.local_cursor[node as usize];
        while let Some(&t) = row.get(*c as usize) {
            if st.is_free(t) {
                return Some(t);
            }
            *c += 1;
        }
        while let Some(&t) = self.all.get(self.all_cursor) {
            if st.is_free(t) {
                return Some(t);
            }
            self.all_cursor += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CostModel;
    use crate::plan::{check_assignment, evaluate};

    #[test]
    fn longest_first_on_the_least_loaded_holder() {
        // Sizes 4, 3, 3, 2 all on {n0, n1}: LPT gives n0 {4, 2}, n1 {3, 3}.
        let mut p = Problem::uniform(2, &vec![vec![0, 1]; 4], CostModel::default());
        p.task_size = vec![2.0, 3.0, 4.0, 3.0];
        let a = Etf { comm: false }.plan(&p, 0);
        check_assignment(&p, &a).unwrap();
        assert_eq!(a.node_of, vec![0, 1, 0, 1]);
        assert_eq!(a.queues.row(0), &[2, 0]);
        assert_eq!(evaluate(&p, &a).makespan, 6.0);
    }

    #[test]
    fn makespan_variant_is_local_and_comm_variant_fills_idle_nodes() {
        let mut p = Problem::uniform(
            3,
            &vec![vec![0]; 4],
            CostModel {
                local: 1.0,
                remote: 1.0,
                remote_growth: 0.0,
            },
        );
        p.task_size = vec![1.0, 5.0, 2.0, 1.0];
        let m = Etf { comm: false }.plan(&p, 0);
        assert_eq!(evaluate(&p, &m).non_local, 0);
        assert_eq!(evaluate(&p, &m).makespan, 9.0);
        // COMM: at t = 0 the three nodes start 5, 2 and 1 (longest first),
        // the last 1 goes to whoever frees first.
        for seed in 0..5 {
            let c = Etf { comm: true }.plan(&p, seed);
            check_assignment(&p, &c).unwrap();
            assert_eq!(evaluate(&p, &c).makespan, 5.0);
            assert_eq!(c.counts().iter().filter(|&&k| k > 0).count(), 3);
        }
    }
}
