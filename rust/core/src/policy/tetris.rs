//! Tetris-like (S-PC Sect. VI.B, after Grandl et al.): jobs by resource
//! usage score, the machines a job can use (`min(t_j, m)`) times its
//! execution time `p_j / mu_j`, smallest first; tasks on the machine
//! completing them earliest. Weights are not read. The paper's job is all
//! its rounds: a stage's score adds its later stages', and a stage never
//! goes before its predecessors.

use super::{JobScheduler, Planner};
use crate::model::Problem;
use crate::plan::Assignment;
use crate::spc::schedule::{place, Pick, Rules};
use crate::spc::{lp_jobs, JobSet, Outcome, SpcError, Speeds};

pub struct Tetris;

impl JobScheduler for Tetris {
    fn name(&self) -> &'static str {
        "tetris"
    }

    fn schedule(&self, jobs: &JobSet, problem: &Problem, seed: u64) -> Result<Outcome, SpcError> {
        let speeds = Speeds::of(problem);
        let lj = lp_jobs(jobs, &speeds);
        let key: Vec<f64> = lj
            .iter()
            .enumerate()
            .map(|(j, l)| {
                (jobs.tasks.degree(j) as u64).min(speeds.machines()) as f64 * l.min_time()
            })
            .collect();
        let order = jobs.topo_order(&key)?;
        let pick = vec![Pick::EarliestCompletion; jobs.len()];
        let schedule = place(jobs, problem, &Rules::new(&order, &pick, seed))?;
        Ok(Outcome { schedule, lp: None })
    }
}

/// In the Session applications rank by the score over their open stages
/// ([`crate::session::JobOrder::Tetris`]); their tasks, in that order, go
/// to the node completing them earliest.
impl Planner for Tetris {
    fn name(&self) -> &'static str {
        "tetris"
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

super::job_scheduler_policy!(Tetris, Tetris);
