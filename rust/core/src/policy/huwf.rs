//! High Unit Weight First (S-PC Sect. VI.B): jobs by `w_j` over their
//! execution time, highest first, tasks on the machine completing them
//! earliest. Execution time: `p_j / mu_j`, the job alone on its fastest
//! machines. The paper's job is all its rounds: a stage's execution time
//! adds its later stages', its weight is the largest among them, and a
//! stage never goes before its predecessors.

use super::{JobScheduler, Planner};
use crate::model::Problem;
use crate::plan::Assignment;
use crate::spc::schedule::{place, Pick, Rules};
use crate::spc::{lp_jobs, JobSet, Outcome, SpcError, Speeds};

pub struct Huwf;

impl JobScheduler for Huwf {
    fn name(&self) -> &'static str {
        "huwf"
    }

    fn schedule(&self, jobs: &JobSet, problem: &Problem, seed: u64) -> Result<Outcome, SpcError> {
        let lj = lp_jobs(jobs, &Speeds::of(problem));
        let time = jobs.downstream_sum(&lj.iter().map(|j| j.min_time()).collect::<Vec<_>>())?;
        let weight = jobs.downstream_max(&jobs.weight)?;
        // Descending unit weight; a job without work comes first.
        let key: Vec<f64> = (0..jobs.len())
            .map(|j| -(weight[j] / time[j].max(f64::MIN_POSITIVE)))
            .collect();
        let order = jobs.topo_order(&key)?;
        let pick = vec![Pick::EarliestCompletion; jobs.len()];
        let schedule = place(jobs, problem, &Rules::new(&order, &pick, seed))?;
        Ok(Outcome { schedule, lp: None })
    }
}

/// In the Session applications rank by unit weight over their open stages
/// ([`crate::session::JobOrder::Huwf`]); their tasks, in that order, go to
/// the node completing them earliest.
impl Planner for Huwf {
    fn name(&self) -> &'static str {
        "huwf"
    }

    fn plan(&self, problem: &Problem, seed: u64) -> Assignment {
        super::placed_or_asm1(
            Planner::name(self),
            problem,
            seed,
            crate::spc::place_all(problem, Pick::EarliestCompletion, seed),
        )
    }
}

super::job_scheduler_policy!(Huwf, Huwf);
