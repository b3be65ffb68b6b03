//! Tetris-like (seed 002 Sect. VI.B, after Grandl et al.): jobs by resource
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
        crate::spc::place_all(problem, Pick::EarliestCompletion, seed).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "tetris: placement refused; planning with asm1");
            super::asm1::Asm1.plan(problem, seed)
        })
    }
}

/// The plan already holds its remote choices (each task on the machine
/// finishing it first): an idle node takes a local task, never another
/// remote one. Its job order orders the Session's queues.
impl crate::policy::Policy for Tetris {
    fn name(&self) -> &'static str {
        Planner::name(self)
    }
    fn planner(&self) -> Option<&dyn Planner> {
        Some(self)
    }
    fn on_free_slot(&self) -> crate::policy::FreeSlot {
        crate::policy::FreeSlot::Local { steal: true }
    }
    fn job_order(&self) -> Option<crate::session::JobOrder> {
        Some(crate::session::JobOrder::Tetris)
    }
}
