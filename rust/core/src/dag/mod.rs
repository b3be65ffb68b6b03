//! Static scheduling of task-graph jobs on tree-shaped data centres (the FISCH paper,
//! Henzinger, Singh, Wies, Zufferey, "Scheduling large jobs by abstraction
//! refinement"): the job and data-centre models with their JSON formats, the
//! well-formedness check of a schedule, the paper's abstractions, the
//! schedulers FISCH (Sect. 3) and BLIND (Sect. 4), the greedy baseline, and
//! generators for the schemas and data centres of Sect. 5.1.

pub mod abstraction;
pub mod blind;
pub mod check;
pub mod fisch;
pub mod generate;
pub mod greedy;
pub mod model;
pub mod plan;
pub mod refine;

pub use check::{check, metrics, Metrics};
pub use model::{DataCentre, DataCentreFile, Job, JobFile, Placement};
pub use plan::{plan, DagPolicy, PlanOptions, PlanOutput, Quality};

use thiserror::Error;

/// Bad job, data-centre or schedule input, or a schedule that is not well
/// formed. Messages name the file, job, task, switch or host.
#[derive(Debug, Error, PartialEq)]
pub enum DagError {
    #[error("{file}: {message}")]
    Json { file: String, message: String },
    #[error("{file}: {problem}")]
    Job { file: String, problem: String },
    #[error("{file}: {problem}")]
    DataCentre { file: String, problem: String },
    #[error("schedule: {0}")]
    Schedule(String),
    #[error("schedule is not well formed: {0}")]
    NotWellFormed(String),
    #[error("unknown DAG policy {0:?}; known: fisch, blind, greedy")]
    UnknownPolicy(String),
    #[error("generate: {0}")]
    Generate(String),
    #[error("quality condition {0:?}: expected utilisation:F (0 < F <= 1) or makespan:F (F >= 1)")]
    BadQuality(String),
}

/// Tolerance of time comparisons (seconds, relative to the magnitude).
pub(crate) fn tol(t: f64) -> f64 {
    1e-6 * t.abs().max(1.0)
}
