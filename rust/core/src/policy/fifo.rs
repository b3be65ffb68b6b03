//! FIFO as S-PC runs it (Sect. VI.A, VI.B; Hadoop's FIFO scheduler): jobs
//! in release order, each task to the first available machine whatever its
//! speed. A later stage (a reduce) takes its machines as soon as it is
//! released, before its maps finish, and waits there (Hadoop's reduce
//! slow-start: the paper's "reduce tasks occupy all fast machines").

use super::{JobScheduler, Planner};
use crate::model::Problem;
use crate::plan::Assignment;
use crate::spc::schedule::{place, Pick, Rules};
use crate::spc::{JobSet, Outcome, SpcError};

pub struct Fifo;

impl JobScheduler for Fifo {
    fn name(&self) -> &'static str {
        "fifo"
    }

    fn schedule(&self, jobs: &JobSet, problem: &Problem, seed: u64) -> Result<Outcome, SpcError> {
        let order = jobs.topo_order(&jobs.release)?;
        let pick = vec![Pick::FirstFree; jobs.len()];
        let schedule = place(
            jobs,
            problem,
            &Rules {
                hold_early: true,
                ..Rules::new(&order, &pick, seed)
            },
        )?;
        Ok(Outcome { schedule, lp: None })
    }
}

/// In the Session: applications in submission order
/// ([`crate::session::JobOrder::Fifo`]), each task to the node free first
/// whatever its speed. Reducers are never planned (no early holds): they
/// take containers at heartbeats as any fallback does.
impl Planner for Fifo {
    fn name(&self) -> &'static str {
        "fifo"
    }

    fn plan(&self, problem: &Problem, seed: u64) -> Assignment {
        super::placed_or_asm1(
            Planner::name(self),
            problem,
            seed,
            crate::spc::place_all(problem, Pick::FirstFree, seed),
        )
    }
}

super::job_scheduler_policy!(Fifo, Fifo);
