//! A discrete-event YARN cluster running MapReduce jobs, driving the same
//! [`spindle_core::Session`] the ResourceManager plugin drives. Integer
//! milliseconds, one priority queue of events, deterministic for a seed.
//!
//! What it models, and where the numbers come from:
//! - node managers heartbeat every `heartbeat_ms` (YARN's
//!   `yarn.resourcemanager.nodemanagers.heartbeat-interval-ms`, 1000) with a
//!   random phase; each heartbeat calls `Session::node_heartbeat` with the
//!   node's free resources and launches the grants;
//! - HDFS files cut into 128 MiB blocks, 3 replicas placed rack-aware;
//! - the stock MapReduce AM: asks per split at host, rack and ANY; reduces
//!   after `slowstart` of the maps; containers reach it at its own heartbeat,
//!   it picks a task host-local first, then rack-local, then any, and lowers
//!   its asks (only changed entries are sent, as the MR AM does);
//! - a container starts a JVM (uniform `jvm_min_ms..=jvm_max_ms`), then the
//!   task runs: map = read (local disk, or network with per-rack uplink
//!   sharing, or BAR's `C_loc + q*r`) + compute; reduce = shuffle + sort/reduce
//!   + write; progress reports every `progress_ms` once the JVM is up.

pub mod config;
pub mod engine;
pub mod estimate;
pub mod load;
pub mod report;
pub mod trace;
pub mod workload;

pub use config::{NetworkModel, SimConfig};
pub use engine::{
    run_static, simulate, Progress, SimError, SimOutput, StaticRun, StaticTask, TaskRecord,
    HORIZON_MS,
};
pub use estimate::{estimator_errors, EstimateRun, EstimateSetup};
pub use load::{scale_to_load, LoadScaling};
pub use report::{JobResult, SimMetrics, SimResult};
pub use trace::Loaded;
pub use workload::{JobSpec, Profile, Workload, WorkloadError};
