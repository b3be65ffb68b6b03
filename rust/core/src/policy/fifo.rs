//! FIFO as seed 002 runs it (Sect. VI.A, VI.B; Hadoop's FIFO scheduler): jobs
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
        crate::spc::place_all(problem, Pick::FirstFree, seed).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "fifo: placement refused; planning with asm1");
            super::asm1::Asm1.plan(problem, seed)
        })
    }
}

/// The plan already holds its remote choices (each task on the machine
/// finishing it first): an idle node takes a local task, never another
/// remote one. Its job order orders the Session's queues.
impl crate::policy::Policy for Fifo {
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
        Some(crate::session::JobOrder::Fifo)
    }
}
