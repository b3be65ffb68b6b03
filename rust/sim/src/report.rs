//! What a simulation reports, in the JSON shape of `spindle simulate`.

use serde::Serialize;

/// Figures of one run (one policy).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimMetrics {
    /// Last job finish minus first job submission, seconds.
    pub makespan_s: f64,
    /// Maps by where they read their block.
    pub node_local: u64,
    pub rack_local: u64,
    pub off_switch: u64,
    /// Total weighted completion time: sum of weight * (finish - submit), seconds.
    pub twct: f64,
    /// Mean job completion time (finish - submit), seconds.
    pub mean_jct_s: f64,
    /// Container-seconds held / (slots * makespan).
    pub utilization: f64,
    /// Simulation events processed.
    pub events: u64,
    /// Wall-clock time of the run (absent when asked for reproducible output).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wall_ms: Option<f64>,
}

/// One job's outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobResult {
    pub id: String,
    pub submit_s: f64,
    pub finish_s: f64,
    pub maps: u32,
    pub reduces: u32,
    pub node_local: u32,
    pub rack_local: u32,
    pub off_switch: u32,
}

/// One policy's run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimResult {
    pub policy: String,
    pub metrics: SimMetrics,
    pub jobs: Vec<JobResult>,
}
