//! ASM1-Communications of Beaumont et al., Sect. 7.1, the stealing-enabled
//! counterpart of `asm1-comm`: ASM1's semi-matching computed statically (not
//! rebalanced); a node idle with no pre-assigned task left first takes one of
//! its local unprocessed tasks (from the node with the most planned tasks
//! left: an alternating path, which keeps the load imbalance), and otherwise
//! steals a task from the node with the largest number of unprocessed
//! assigned tasks. On identical tasks this is Theorem 7's transformation done
//! at run time; on heterogeneous ones the moves follow the actual durations,
//! which are revealed only as tasks run.
//!
//! As a planner it plays this rule out with the problem's task sizes.

use rand_chacha::ChaCha8Rng;

use crate::execute::{execute, ExecState, LocalLists, Planned, Rule};
use crate::model::{NodeId, Problem, TaskId, NONE};
use crate::plan::Assignment;
use crate::policy::asm1::Asm1;
use crate::policy::Planner;

/// The ASM1 hybrid for the communication metric.
#[derive(Clone, Copy, Debug, Default)]
pub struct Asm1CommSteal;

impl Planner for Asm1CommSteal {
    fn name(&self) -> &'static str {
        "asm1-comm-steal"
    }

    fn plan(&self, problem: &Problem, seed: u64) -> Assignment {
        execute(problem, &mut Asm1CommStealRule::new(problem, seed), seed)
            .assignment(problem.num_nodes())
    }
}

/// The plan, then local tasks, then stealing from the longest queue (its
/// own rule offline).
impl crate::policy::Policy for Asm1CommSteal {
    fn name(&self) -> &'static str {
        Planner::name(self)
    }
    fn planner(&self) -> Option<&dyn Planner> {
        Some(self)
    }
    fn on_free_slot(&self) -> crate::policy::FreeSlot {
        crate::policy::FreeSlot::Spill { steal: true }
    }
    fn execute(&self, problem: &Problem, seed: u64) -> Option<crate::execute::Execution> {
        let mut rule = Asm1CommStealRule::new(problem, seed);
        Some(execute(problem, &mut rule, seed))
    }
}

/// Planned ASM1 queues, then local tasks, then stealing from the longest queue.
pub struct Asm1CommStealRule {
    planned: Planned,
    local: LocalLists,
    owner: Vec<NodeId>,
}

impl Asm1CommStealRule {
    pub fn new(problem: &Problem, seed: u64) -> Asm1CommStealRule {
        let a = Asm1.plan(problem, seed);
        Asm1CommStealRule {
            planned: Planned::new(&a, false, false),
            local: LocalLists::new(problem),
            owner: a.node_of,
        }
    }
}

impl Rule for Asm1CommStealRule {
    fn has_planned(&self, node: NodeId) -> bool {
        self.planned.left(node) > 0
    }

    fn pick(&mut self, st: &ExecState, node: NodeId, _rng: &mut ChaCha8Rng) -> Option<TaskId> {
        if let Some(t) = self.planned.own(st, node) {
            return Some(t);
        }
        let mut best = NONE;
        let mut most = 0;
        for &t in self.local.live(st, node) {
            let left = self.planned.left(self.owner[t as usize]);
            if best == NONE || left > most {
                best = t;
                most = left;
            }
        }
        if best != NONE {
            return Some(self.planned.claimed(best));
        }
        match self.planned.longest(node, 1) {
            Some(v) => self.planned.from_back(st, v, |_| true),
            None => st.pending().first().copied(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CostModel;
    use crate::plan::{check_assignment, evaluate};
    use crate::policy::asm1_comm::Asm1Comm;

    #[test]
    fn homogeneous_matches_theorem_7() {
        // Five tasks all local to n0 only, three nodes: ASM1 puts all on n0,
        // the cap is 2, so three move (Theorem 7) - at run time, two nodes
        // steal at t=0 and one more at t=1.
        let p = Problem::uniform(
            3,
            &vec![vec![0]; 5],
            CostModel {
                local: 1.0,
                remote: 1.0,
                remote_growth: 0.0,
            },
        );
        let a = Asm1CommSteal.plan(&p, 2);
        check_assignment(&p, &a).unwrap();
        let m = evaluate(&p, &a);
        let opt = evaluate(&p, &Asm1Comm.plan(&p, 0));
        assert_eq!(m.non_local, opt.non_local);
        assert_eq!(m.non_local, 3);
        assert_eq!(m.makespan, 2.0);
    }

    #[test]
    fn idle_node_prefers_a_local_task_over_stealing() {
        // ASM1 plans t0 (long) then t1 on n0, t2 and t3 on n1. n1 is done at
        // 2 and takes t1, which it holds, instead of waiting or stealing.
        let mut p = Problem::uniform(
            2,
            &[vec![0], vec![0, 1], vec![1], vec![1]],
            CostModel::default(),
        );
        p.task_size = vec![3.0, 1.0, 1.0, 1.0];
        assert_eq!(Asm1.plan(&p, 0).node_of, vec![0, 0, 1, 1]);
        let e = execute(&p, &mut Asm1CommStealRule::new(&p, 0), 0);
        assert_eq!(e.non_local, 0);
        assert_eq!(e.node_of, vec![0, 1, 1, 1]);
        assert_eq!(e.makespan, 3.0);
    }
}
