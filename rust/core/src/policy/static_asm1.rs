//! Static-ASM1 of Beaumont et al., Sect. 7.1: ASM1's assignment (Alg. 1) run exactly
//! as planned; a node that finishes its queue stays idle. On identical tasks
//! this is the MAKESPAN-ORIENTED optimum; on heterogeneous ones it shows what
//! the dynamic part of the hybrids buys.

use crate::model::Problem;
use crate::plan::Assignment;
use crate::policy::asm1::Asm1;
use crate::policy::Planner;

/// ASM1 without stealing.
#[derive(Clone, Copy, Debug, Default)]
pub struct StaticAsm1;

impl Planner for StaticAsm1 {
    fn name(&self) -> &'static str {
        "static-asm1"
    }

    fn plan(&self, problem: &Problem, seed: u64) -> Assignment {
        Asm1.plan(problem, seed)
    }
}

/// The plan exactly; a node whose queue is done stays idle.
impl crate::policy::Policy for StaticAsm1 {
    fn name(&self) -> &'static str {
        Planner::name(self)
    }
    fn planner(&self) -> Option<&dyn Planner> {
        Some(self)
    }
    fn on_free_slot(&self) -> crate::policy::FreeSlot {
        crate::policy::FreeSlot::Local { steal: false }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::execute::{execute, Planned};
    use crate::model::CostModel;

    #[test]
    fn a_node_that_finishes_early_stays_idle() {
        // ASM1 gives one task to each node; the long one decides the makespan
        // because n1 never steals t2 although it holds a replica.
        let mut p = Problem::uniform(2, &[vec![0, 1], vec![0, 1]], CostModel::default());
        p.task_size = vec![5.0, 1.0];
        let a = StaticAsm1.plan(&p, 0);
        assert_eq!(a.counts(), vec![1, 1]);
        let e = execute(&p, &mut Planned::new(&a, false, false), 0);
        assert_eq!(e.makespan, 5.0);
    }
}
