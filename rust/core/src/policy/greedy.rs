//! GREEDY-MAKESPAN and GREEDY-COMM of Beaumont et al., Sect. 4: Hadoop's default
//! behaviour as modelled in the paper. When a node frees a slot it takes a
//! random unprocessed task among those it holds a replica of; if it has none
//! left, the COMM variant takes a random unprocessed non-local task and the
//! MAKESPAN variant stays idle for good.
//!
//! This is a dispatcher, so a plan is obtained by playing it out: slots free
//! up at the node's initial load, a task takes `size * cost / speed`, where a
//! remote task costs `remote_cost(r)` with r the remote tasks dispatched so
//! far. Ties between slots freeing at the same time are broken at random (the
//! paper assumes no ties). In the Session the same rule runs at heartbeats.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::execute::{ExecState, LocalLists, Rule, SpareSlots};
use crate::model::{NodeId, OrdF64, Problem, TaskId, NONE};
use crate::plan::{place_unmatched, Assignment};
use crate::policy::Planner;

/// `greedy`: GREEDY-MAKESPAN.
pub const GREEDY: Greedy = Greedy { comm: false };
/// `greedy-comm`: GREEDY-COMM.
pub const GREEDY_COMM: Greedy = Greedy { comm: true };

/// Hadoop-default greedy; `comm: true` is GREEDY-COMM, `false` GREEDY-MAKESPAN.
#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy {
    pub comm: bool,
}

impl Planner for Greedy {
    fn name(&self) -> &'static str {
        if self.comm {
            "greedy-comm"
        } else {
            "greedy"
        }
    }

    fn plan(&self, problem: &Problem, seed: u64) -> Assignment {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n_tasks = problem.num_tasks();
        let n_nodes = problem.num_nodes();
        let mut node_of = vec![NONE; n_tasks];
        let mut order: Vec<TaskId> = Vec::with_capacity(n_tasks);

        // Per-node lists of possibly unprocessed local tasks (lazy deletion).
        let node_tasks = &problem.graph.node_tasks;
        let mut local: Vec<Vec<TaskId>> =
            (0..n_nodes).map(|p| node_tasks.row(p).to_vec()).collect();
        // All unprocessed tasks with O(1) removal, for the COMM variant.
        let mut pending: Vec<TaskId> = (0..n_tasks as TaskId).collect();
        let mut pos: Vec<u32> = (0..n_tasks as u32).collect();
        let take = |t: TaskId, pending: &mut Vec<TaskId>, pos: &mut Vec<u32>| {
            let i = pos[t as usize] as usize;
            let last = pending.len() - 1;
            pending.swap(i, last);
            pos[pending[i] as usize] = i as u32;
            pending.pop();
        };

        let mut events: BinaryHeap<Reverse<(OrdF64, u64, NodeId)>> = BinaryHeap::new();
        let mut spare = SpareSlots::new(problem);
        for p in 0..n_nodes as NodeId {
            events.push(Reverse((
                OrdF64(problem.node_load[p as usize]),
                rng.gen(),
                p,
            )));
        }
        let mut remote = 0usize;
        while !pending.is_empty() {
            let Some(Reverse((OrdF64(now), _, p))) = events.pop() else {
                break;
            };
            if spare.another(problem, p, now) {
                events.push(Reverse((OrdF64(now), rng.gen(), p)));
            }
            let list = &mut local[p as usize];
            let mut chosen = NONE;
            while !list.is_empty() {
                let i = rng.gen_range(0..list.len());
                let t = list.swap_remove(i);
                if node_of[t as usize] == NONE {
                    chosen = t;
                    break;
                }
            }
            let cost = if chosen != NONE {
                problem.cost.local
            } else if self.comm {
                chosen = pending[rng.gen_range(0..pending.len())];
                remote += 1;
                problem.cost.remote_cost(remote)
            } else {
                continue; // GREEDY-MAKESPAN: this slot stays idle from now on.
            };
            node_of[chosen as usize] = p;
            order.push(chosen);
            take(chosen, &mut pending, &mut pos);
            let dur = problem.task_size[chosen as usize] * cost / problem.node_speed[p as usize];
            events.push(Reverse((OrdF64(now + dur), rng.gen(), p)));
        }
        // Tasks nobody holds (MAKESPAN variant only) run remote on the least loaded nodes.
        let mut count = vec![0u32; n_nodes];
        for &n in node_of.iter().filter(|&&n| n != NONE) {
            count[n as usize] += 1;
        }
        let before = node_of.clone();
        place_unmatched(problem, &mut node_of, &mut count);
        order.extend((0..n_tasks as TaskId).filter(|&t| before[t as usize] == NONE));
        Assignment::from_order(n_nodes, node_of, &order)
    }
}

/// A dispatcher: its rule offline, the same at heartbeats (no queues).
impl crate::policy::Policy for Greedy {
    fn name(&self) -> &'static str {
        Planner::name(self)
    }
    fn planner(&self) -> Option<&dyn Planner> {
        Some(self)
    }
    fn planned(&self) -> bool {
        false
    }
    fn on_free_slot(&self) -> crate::policy::FreeSlot {
        use crate::policy::{compile_time::Dispatcher, FreeSlot};
        if self.comm {
            FreeSlot::Dispatch(Dispatcher::Any)
        } else {
            FreeSlot::Local { steal: false }
        }
    }
    /// GREEDY-COMM dispatches ([`Dispatcher::Any`](crate::policy::compile_time::Dispatcher::Any)).
    fn heartbeat_rule(
        &self,
        _: crate::policy::delay::LocalityDelay,
    ) -> Option<Box<dyn crate::policy::heartbeat_rule::HeartbeatRule>> {
        use crate::policy::compile_time::{DispatchRule, Dispatcher};
        self.comm.then(|| {
            Box::new(DispatchRule::new(Dispatcher::Any))
                as Box<dyn crate::policy::heartbeat_rule::HeartbeatRule>
        })
    }
    fn execute(&self, problem: &Problem, seed: u64) -> Option<crate::execute::Execution> {
        Some(crate::execute::execute(
            problem,
            &mut self.rule(problem),
            seed,
        ))
    }
}

impl Greedy {
    /// The same rule for [`crate::execute::execute`].
    pub fn rule(self, problem: &Problem) -> GreedyRule {
        GreedyRule {
            comm: self.comm,
            local: LocalLists::new(problem),
        }
    }
}

/// An idle node takes a random local task, else (COMM) a random one.
pub struct GreedyRule {
    comm: bool,
    local: LocalLists,
}

impl Rule for GreedyRule {
    fn pick(&mut self, st: &ExecState, node: NodeId, rng: &mut ChaCha8Rng) -> Option<TaskId> {
        if let Some(t) = self.local.random(st, node, rng) {
            return Some(t);
        }
        let pending = st.pending();
        (self.comm && !pending.is_empty()).then(|| pending[rng.gen_range(0..pending.len())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CostModel;
    use crate::plan::{check_assignment, evaluate};

    #[test]
    fn makespan_variant_stays_local() {
        let replicas = vec![vec![0], vec![0], vec![0], vec![0, 1]];
        let p = Problem::uniform(3, &replicas, CostModel::default());
        for seed in 0..20 {
            let a = Greedy { comm: false }.plan(&p, seed);
            check_assignment(&p, &a).unwrap();
            let m = evaluate(&p, &a);
            assert_eq!(m.non_local, 0);
            assert_eq!(a.counts()[2], 0, "node 2 holds nothing and stays idle");
        }
    }

    #[test]
    fn comm_variant_never_leaves_a_slot_idle() {
        let replicas = vec![vec![0]; 5];
        let p = Problem::uniform(3, &replicas, CostModel::default());
        let a = Greedy { comm: true }.plan(&p, 7);
        check_assignment(&p, &a).unwrap();
        // At t=0 node 0 starts a local task (cost 1) and nodes 1 and 2 remote
        // ones (cost 3); node 0 runs the last two at t=1 and t=2.
        assert_eq!(a.counts(), vec![3, 1, 1]);
        assert_eq!(evaluate(&p, &a).non_local, 2);
    }

    #[test]
    fn executor_rule_matches_the_planner_counts() {
        let replicas = vec![vec![0]; 5];
        let p = Problem::uniform(3, &replicas, CostModel::default());
        let e = crate::execute::execute(&p, &mut Greedy { comm: true }.rule(&p), 7);
        assert_eq!(e.assignment(3).counts(), vec![3, 1, 1]);
        let m = crate::execute::execute(&p, &mut Greedy { comm: false }.rule(&p), 7);
        assert_eq!(m.assignment(3).counts(), vec![5, 0, 0]);
        assert_eq!(m.makespan, 5.0);
    }

    #[test]
    fn same_seed_same_plan() {
        let replicas: Vec<Vec<u32>> = (0..40).map(|i| vec![i % 5, (i * 7 + 1) % 5]).collect();
        let p = Problem::uniform(5, &replicas, CostModel::default());
        let g = Greedy { comm: true };
        assert_eq!(g.plan(&p, 3), g.plan(&p, 3));
    }
}
