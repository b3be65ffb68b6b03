//! ASM1-Makespan of Beaumont et al., Sect. 7.1: ASM1's assignment computed
//! statically; a node that is idle with no pre-assigned task left picks a
//! random unprocessed task among those it holds a replica of (local only, as
//! MAKESPAN-ORIENTED requires). Durations are unknown to it: it reacts to
//! tasks finishing, never to their sizes.
//!
//! As a planner it plays this rule out with the problem's task sizes.

use rand_chacha::ChaCha8Rng;

use crate::execute::{execute, ExecState, LocalLists, Planned, Rule};
use crate::model::{NodeId, Problem, TaskId};
use crate::plan::Assignment;
use crate::policy::asm1::Asm1;
use crate::policy::Planner;

/// The ASM1 hybrid for the makespan metric.
#[derive(Clone, Copy, Debug, Default)]
pub struct Asm1Makespan;

impl Planner for Asm1Makespan {
    fn name(&self) -> &'static str {
        "asm1-makespan"
    }

    fn plan(&self, problem: &Problem, seed: u64) -> Assignment {
        execute(problem, &mut Asm1MakespanRule::new(problem, seed), seed)
            .assignment(problem.num_nodes())
    }
}

/// The plan, then random local tasks (its own rule offline); the Session
/// steals local work, its closest rule.
impl crate::policy::Policy for Asm1Makespan {
    fn name(&self) -> &'static str {
        Planner::name(self)
    }
    fn planner(&self) -> Option<&dyn Planner> {
        Some(self)
    }
    fn on_free_slot(&self) -> crate::policy::FreeSlot {
        crate::policy::FreeSlot::Local { steal: true }
    }
    fn execute(&self, problem: &Problem, seed: u64) -> Option<crate::execute::Execution> {
        let mut rule = Asm1MakespanRule::new(problem, seed);
        Some(execute(problem, &mut rule, seed))
    }
}

/// Planned ASM1 queues, then random local tasks.
pub struct Asm1MakespanRule {
    planned: Planned,
    local: LocalLists,
}

impl Asm1MakespanRule {
    pub fn new(problem: &Problem, seed: u64) -> Asm1MakespanRule {
        Asm1MakespanRule {
            planned: Planned::new(&Asm1.plan(problem, seed), false, false),
            local: LocalLists::new(problem),
        }
    }
}

impl Rule for Asm1MakespanRule {
    fn has_planned(&self, node: NodeId) -> bool {
        self.planned.left(node) > 0
    }

    fn pick(&mut self, st: &ExecState, node: NodeId, rng: &mut ChaCha8Rng) -> Option<TaskId> {
        if let Some(t) = self.planned.own(st, node) {
            return Some(t);
        }
        let t = self.local.random(st, node, rng)?;
        Some(self.planned.claimed(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CostModel;
    use crate::plan::check_assignment;

    #[test]
    fn an_idle_node_takes_a_local_task_planned_elsewhere() {
        // Four tasks local to both nodes, ASM1 gives each two. With t0 long,
        // the other node runs the three short ones locally.
        let mut p = Problem::uniform(2, &vec![vec![0, 1]; 4], CostModel::default());
        p.task_size = vec![5.0, 1.0, 1.0, 1.0];
        let a = Asm1Makespan.plan(&p, 1);
        check_assignment(&p, &a).unwrap();
        let e = execute(&p, &mut Asm1MakespanRule::new(&p, 1), 1);
        assert_eq!(e.non_local, 0);
        assert_eq!(e.makespan, 5.0);
        let long = a.node_of[0] as usize;
        assert_eq!(a.counts()[long], 1);
    }

    #[test]
    fn never_runs_a_task_remote() {
        let mut p = Problem::uniform(
            3,
            &[vec![0], vec![0], vec![0], vec![1]],
            CostModel::default(),
        );
        p.task_size = vec![1.0, 2.0, 3.0, 1.0];
        let e = execute(&p, &mut Asm1MakespanRule::new(&p, 0), 0);
        assert_eq!(e.non_local, 0);
        assert_eq!(e.makespan, 6.0);
    }
}
