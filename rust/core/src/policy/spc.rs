//! S-PC (seed 002, Algorithm 1): jobs in non-decreasing `C_j^LP` of
//! LP-Schedule (eq. 1-4), each job's tasks largest first on the machine
//! that completes them earliest (Algorithm 2).

use super::JobScheduler;
use crate::model::Problem;
use crate::spc::schedule::{place, Pick, Rules};
use crate::spc::{lp, lp_jobs, JobSet, Outcome, SpcError, Speeds};

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
