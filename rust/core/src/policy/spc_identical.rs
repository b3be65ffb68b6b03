//! Identical-machine (S-PC Sect. VI.A): S-PC as if every machine had
//! the same speed, for the LP and for placement; the tasks then run at the
//! machines' real speeds in the queues so decided.

use super::{JobScheduler, Planner};
use crate::model::Problem;
use crate::plan::Assignment;
use crate::spc::schedule::{place, Pick, Rules};
use crate::spc::{lp, lp_jobs, JobSet, Outcome, SpcError, Speeds};

pub struct SpcIdentical;

impl JobScheduler for SpcIdentical {
    fn name(&self) -> &'static str {
        "spc-identical"
    }

    fn schedule(&self, jobs: &JobSet, problem: &Problem, seed: u64) -> Result<Outcome, SpcError> {
        jobs.check_acyclic()?;
        let speeds = Speeds::identical(problem);
        let sol = lp::solve(&lp_jobs(jobs, &speeds), &jobs.after, speeds.mu(), &[])?;
        let order = jobs.topo_order(&sol.completion)?;
        let pick = vec![Pick::EarliestCompletion; jobs.len()];
        let ones = vec![1.0; problem.num_nodes()];
        let schedule = place(
            jobs,
            problem,
            &Rules {
                believed_speed: Some(&ones),
                ..Rules::new(&order, &pick, seed)
            },
        )?;
        // Its LP is over machines that do not exist: no lower bound to report.
        Ok(Outcome { schedule, lp: None })
    }
}

/// In the Session the LP as if every node had speed 1 orders the
/// applications ([`crate::session::JobOrder::SpcIdentical`]); this planner
/// places their tasks (maps and reducers), in that order, believing every
/// node at speed 1.
impl Planner for SpcIdentical {
    fn name(&self) -> &'static str {
        "spc-identical"
    }

    fn plan(&self, problem: &Problem, seed: u64) -> Assignment {
        super::placed_or_asm1(
            Planner::name(self),
            problem,
            seed,
            crate::spc::place_all_identical(problem, seed),
        )
    }

    /// As [`super::spc::Spc`]'s: the Session's order, not largest first.
    fn plan_in_order(&self, problem: &Problem, seed: u64) -> Assignment {
        let placed = crate::spc::place_all_in_order(problem, Pick::EarliestCompletion, true, seed);
        super::placed_or_asm1(Planner::name(self), problem, seed, placed)
    }
}

super::job_scheduler_policy!(
    SpcIdentical,
    SpcIdentical,
    super::ReduceStage::Earliest { identical: true }
);
