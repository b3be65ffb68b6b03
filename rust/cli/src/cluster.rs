//! The cluster and workload flags `simulate` and `trace` share, and the
//! simulator configuration and jobs they give.

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Args;
use spindle_sim::trace::{read_sls_nodes, TraceLimits};
use spindle_sim::{JobSpec, LoadScaling, SimConfig, Workload};

use crate::Limits;

#[derive(Args)]
pub struct WorkloadArgs {
    /// Node managers (each also a datanode).
    #[arg(long, default_value_t = 100)]
    pub nodes: usize,
    /// Racks; nodes are spread round-robin.
    #[arg(long, default_value_t = 4)]
    pub racks: usize,
    /// The cluster as an SLS node file (stream of {"rack": R, "nodes":
    /// [{"node": H}]}); replaces --nodes and --racks. An sls: or rumen:
    /// workload otherwise runs on the hosts its trace names.
    #[arg(long, value_name = "FILE")]
    pub node_file: Option<PathBuf>,
    /// Containers per node (1024 MB, 1 vcore each).
    #[arg(long, default_value_t = 4)]
    pub slots: u32,
    /// Fraction of nodes that compute at --slow-speed (heterogeneous cluster).
    #[arg(long, default_value_t = 0.0)]
    pub slow_fraction: f64,
    /// Relative speed of the slow nodes.
    #[arg(long, default_value_t = 0.5)]
    pub slow_speed: f64,
    /// Job file (JSON; the format is in docs/simulator.md). Overrides --workload.
    #[arg(long)]
    pub jobs: Option<PathBuf>,
    /// fb2009-6h (six hours of SWIM's Facebook 2009 trace, shipped with
    /// Spindle, run busy: see --load), wordcount, terasort, mixed (40
    /// WordCount and TeraSort jobs), swim:FILE (a SWIM Facebook trace),
    /// sls:FILE (a Scheduler Load Simulator trace) or rumen:FILE (a Rumen
    /// job trace).
    #[arg(long, default_value = "fb2009-6h")]
    pub workload: String,
    /// Keep only the first N jobs of the workload.
    #[arg(long)]
    pub max_jobs: Option<usize>,
    /// Scale the gaps between submissions so that the cluster's offered
    /// load is about U (0 < U <= 1); the utilisation reached is the `util` column.
    /// Default: 0.85 for fb2009-6h, the workload's own times otherwise.
    #[arg(long, value_name = "U")]
    pub load: Option<f64>,
    /// Random seed (placement, heartbeat phases, JVM start-up times).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The cluster (`--nodes`/`--racks`, or `--node-file`, or the trace's
/// hosts), the jobs, and the `--load` scaling applied to them. The rest of
/// `cfg` is left as given.
pub fn build(
    a: &WorkloadArgs,
    limits: &Limits,
    mut cfg: SimConfig,
) -> Result<(SimConfig, Vec<JobSpec>, Option<LoadScaling>)> {
    // Sizes are checked before a job is read or a node allocated.
    if a.nodes > limits.max_nodes {
        bail!(
            "--nodes {}: more than the limit of {} (--max-nodes)",
            a.nodes,
            limits.max_nodes
        );
    }
    let tl = TraceLimits {
        max_bytes: limits.max_input_bytes,
        max_nodes: limits.max_nodes,
        max_tasks: limits.max_tasks,
    };
    cfg.nodes = a.nodes;
    cfg.racks = a.racks;
    cfg.seed = a.seed;
    cfg.slow_fraction = a.slow_fraction;
    cfg.slow_speed = a.slow_speed;
    cfg.max_nodes = limits.max_nodes;
    cfg.max_tasks = limits.max_tasks;
    if let Some(f) = &a.node_file {
        cfg.set_topology(read_sls_nodes(&f.display().to_string(), &tl)?);
    }
    let mut default_load = None;
    let jobs = match &a.jobs {
        Some(path) => spindle_sim::workload::read_job_file(path, limits.max_input_bytes)?,
        None => {
            let w = Workload::parse(&a.workload)?;
            default_load = w.default_load();
            let loaded = spindle_sim::trace::load(&w, cfg.nodes, a.seed, None, &tl)?;
            match loaded.nodes {
                Some(nodes) if cfg.topology.is_none() && !nodes.is_empty() => {
                    cfg.set_topology(nodes)
                }
                _ => {}
            }
            loaded.jobs
        }
    };
    let mut jobs: Vec<_> = jobs
        .into_iter()
        .take(a.max_jobs.unwrap_or(usize::MAX))
        .collect();
    if jobs.is_empty() {
        bail!("the workload has no jobs");
    }
    cfg.set_slots(a.slots)
        .map_err(|e| anyhow::anyhow!("--slots {}: {e}", a.slots))?;
    let load = match (a.load, default_load) {
        (Some(u), _) => Some(spindle_sim::scale_to_load(&mut jobs, &cfg, u)?),
        // A workload's own load applies where it can: one job has no gaps.
        (None, Some(u)) => spindle_sim::scale_to_load(&mut jobs, &cfg, u).ok(),
        (None, None) => None,
    };
    Ok((cfg, jobs, load))
}
