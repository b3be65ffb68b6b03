//! S-PC (Algorithm 1 of the S-PC paper): jobs in non-decreasing `C_j^LP` of
//! LP-Schedule (eq. 1-4), each job's tasks largest first on the machine
//! that completes them earliest (Algorithm 2).

use super::{JobScheduler, Planner};
use crate::model::Problem;
use crate::plan::Assignment;
use crate::spc::schedule::{place, Pick, Rules};
use crate::spc::{lp, lp_jobs, place_all, JobSet, Outcome, SpcError, Speeds};

pub struct Spc;

impl JobScheduler for Spc {
    fn name(&self) -> &'static str {
        "spc"
    }

    fn schedule(&self, jobs: &JobSet, problem: &Problem, seed: u64) -> Result<Outcome, SpcError> {
        jobs.check_acyclic()?;
        let speeds = Speeds::of(problem);
        let sol = lp::solve(&lp_jobs(jobs, &speeds), &jobs.after, speeds.mu(), &[])?;
        let order = jobs.topo_order(&sol.completion)?;
        let pick = vec![Pick::EarliestCompletion; jobs.len()];
        let schedule = place(jobs, problem, &Rules::new(&order, &pick, seed))?;
        Ok(Outcome {
            schedule,
            lp: Some(sol),
        })
    }
}

/// In the Session (RM and simulator) the LP orders the live applications
/// ([`crate::session::JobOrder::Spc`]) and this planner places their tasks,
/// handed over in that order as one job, by Algorithm 2: maps and, once
/// asked for, reducers ([`super::ReduceStage::Earliest`]).
impl Planner for Spc {
    fn name(&self) -> &'static str {
        "spc"
    }

    fn plan(&self, problem: &Problem, seed: u64) -> Assignment {
        super::placed_or_asm1(
            Planner::name(self),
            problem,
            seed,
            place_all(problem, Pick::EarliestCompletion, seed),
        )
    }

    /// The Session sizes a job's reducers apart from its maps: its order,
    /// not largest first ([`crate::spc::place_all_in_order`]).
    fn plan_in_order(&self, problem: &Problem, seed: u64) -> Assignment {
        let placed = crate::spc::place_all_in_order(problem, Pick::EarliestCompletion, false, seed);
        super::placed_or_asm1(Planner::name(self), problem, seed, placed)
    }
}

super::job_scheduler_policy!(Spc, Spc, super::ReduceStage::Earliest { identical: false });
