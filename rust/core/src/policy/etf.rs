//! Clairvoyant Earliest Time First of seed 000 Sect. 6.2: locality-aware
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

use crate::execute::{execute, ExecState, LocalLists, Rule};
use crate::model::{NodeId, Problem, TaskId, NONE};
use crate::plan::Assignment;
use crate::policy::locaware::argmax;
use crate::policy::Planner;

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

/// Local-only LPT. Tasks without a replica go to the node that frees first.
fn lpt(problem: &Problem) -> Assignment {
    let n_nodes = problem.num_nodes();
    let mut slots: Vec<Vec<f64>> = (0..n_nodes)
        .map(|n| vec![problem.node_load[n]; problem.node_slots[n].max(1) as usize])
        .collect();
    let earliest = |s: &[f64]| -> (usize, f64) {
        s.iter()
            .copied()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap_or((0, f64::INFINITY))
    };
    let mut order: Vec<TaskId> = (0..problem.num_tasks() as TaskId).collect();
    order.sort_by(|&a, &b| {
        problem.task_size[b as usize]
            .total_cmp(&problem.task_size[a as usize])
            .then(a.cmp(&b))
    });
    let mut node_of = vec![NONE; problem.num_tasks()];
    for &t in &order {
        let replicas = problem.replicas(t);
        let candidates: Box<dyn Iterator<Item = NodeId>> = if replicas.is_empty() {
            Box::new(0..n_nodes as NodeId)
        } else {
            Box::new(replicas.iter().copied())
        };
        let mut best = (NONE, 0usize, f64::INFINITY);
        for n in candidates {
            let (slot, at) = earliest(&slots[n as usize]);
            if at < best.2 {
                best = (n, slot, at);
            }
        }
        let (n, slot, at) = best;
        if n == NONE {
            continue;
        }
        let cost = if replicas.is_empty() {
            problem.cost.remote
        } else {
            problem.cost.local
        };
        slots[n as usize][slot] =
            at + problem.task_size[t as usize] * cost / problem.node_speed[n as usize];
        node_of[t as usize] = n;
    }
    Assignment::from_order(n_nodes, node_of, &order)
}

/// The COMM variant's list-scheduling rule (clairvoyant: reads task sizes).
pub struct EtfCommRule {
    local: LocalLists,
}

impl EtfCommRule {
    pub fn new(problem: &Problem) -> EtfCommRule {
        EtfCommRule {
            local: LocalLists::new(problem),
        }
    }
}

impl Rule for EtfCommRule {
    fn pick(&mut self, st: &ExecState, node: NodeId, _rng: &mut ChaCha8Rng) -> Option<TaskId> {
        let size = &st.problem.task_size;
        let t = argmax(self.local.live(st, node), |t| size[t as usize]);
        if t != NONE {
            return Some(t);
        }
        let t = argmax(st.pending(), |t| size[t as usize]);
        (t != NONE).then_some(t)
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
