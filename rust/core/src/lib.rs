//! Spindle's core: the placement model, the policies of the seed papers and
//! the [`Session`] state machine that both the ResourceManager plugin (over
//! JNI) and the simulator drive. No I/O, no async.

pub mod dag;
pub mod error;
pub mod estimate;
pub mod execute;
pub mod generate;
pub mod instance;
pub mod model;
pub mod plan;
pub mod policy;
pub mod session;
pub mod spc;

pub use error::CoreError;
pub use instance::{Instance, InstanceFile, PlanReport};
pub use model::{CostModel, Locality, NodeId, Problem, TaskId};
pub use plan::{evaluate, Assignment, Metrics};
pub use policy::{JobScheduler, Planner, PolicyKind};
pub use session::{AppId, Grant, Resources, Session, SessionConfig, SessionError};
