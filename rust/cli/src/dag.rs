//! `spindle dag-plan`, `dag-generate` and `dag-check` (the FISCH paper): arguments
//! and printing; the schedulers are in `spindle_core::dag`.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use spindle_core::dag::check::{from_entries, ScheduleFile};
use spindle_core::dag::generate::{self, Schema};
use spindle_core::dag::{check, metrics, plan, DagPolicy, DataCentre, Job, PlanOptions, Quality};

use crate::{emit, Limits};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DagFormat {
    Table,
    Json,
}

#[derive(Args)]
pub struct DagPlanArgs {
    /// Job files (task graphs), scheduled one after another in this order.
    #[arg(long, required = true, num_args = 1..)]
    job: Vec<PathBuf>,
    /// Data-centre file (a tree of switches with nodes at the leaves).
    #[arg(long)]
    datacentre: PathBuf,
    /// fisch, blind or greedy.
    #[arg(long)]
    policy: String,
    #[arg(long, value_enum, default_value_t = DagFormat::Table)]
    format: DagFormat,
    /// Quality condition that drives refinement: utilisation:F or makespan:F.
    #[arg(long, default_value = "utilisation:0.85")]
    quality: String,
    /// Refinement steps per job at most (6 lets FISCH reach the concrete job).
    #[arg(long, default_value_t = 6)]
    max_refinements: u32,
    /// Space job releases so the offered load is this share of the total power
    /// (Sect. 5.1: 0.95); by default every job is released at 0.
    #[arg(long)]
    load: Option<f64>,
    /// FISCH groups: subtrees this many levels above the nodes' switches.
    #[arg(long, default_value_t = 0)]
    group_height: u32,
    /// BLIND's alpha (similar-duration job abstraction).
    #[arg(long, default_value_t = 1.5)]
    blind_alpha: f64,
    /// FISCH and BLIND as the paper prints them: a task holds its whole
    /// abstract slot and a BLIND bulk asks for all of its abstract node.
    #[arg(long)]
    as_printed: bool,
}

fn read(path: &Path, limits: &Limits, what: &str) -> Result<String> {
    spindle_hadoop::input::read_text_bounded(
        path,
        limits.max_input_bytes,
        what,
        "--max-input-bytes",
    )
    .map_err(anyhow::Error::from)
}

fn load(jobs: &[PathBuf], dc: &Path, limits: &Limits) -> Result<(Vec<Job>, DataCentre)> {
    let dctext = read(dc, limits, "data centre")?;
    let dc = DataCentre::from_json(&dc.display().to_string(), &dctext)?;
    let mut out = Vec::with_capacity(jobs.len());
    let mut total = 0usize;
    for p in jobs {
        let text = read(p, limits, "job")?;
        let job = Job::from_json(&p.display().to_string(), &text)?;
        total += job.len();
        limits.check(dc.nodes(), total, &format!("job {}", p.display()))?;
        out.push(job);
    }
    Ok((out, dc))
}

pub fn cmd_plan(a: DagPlanArgs, limits: &Limits) -> Result<()> {
    let policy = DagPolicy::parse(&a.policy)?;
    let quality = Quality::parse(&a.quality)?;
    if let Some(l) = a.load {
        if !(l.is_finite() && l > 0.0 && l <= 100.0) {
            bail!("--load {l}: must be in (0, 100]");
        }
    }
    if !(a.blind_alpha.is_finite() && a.blind_alpha >= 1.0) {
        bail!("--blind-alpha {}: must be a number >= 1", a.blind_alpha);
    }
    if a.max_refinements > 16 {
        bail!("--max-refinements {}: at most 16", a.max_refinements);
    }
    let (jobs, dc) = load(&a.job, &a.datacentre, limits)?;
    let opts = PlanOptions {
        quality,
        max_refinements: a.max_refinements,
        load: a.load,
        fisch_group_height: a.group_height,
        blind_alpha: a.blind_alpha,
        as_printed: a.as_printed,
        ..PlanOptions::default()
    };
    let out = plan(&jobs, &dc, policy, &opts);
    match a.format {
        DagFormat::Json => emit(&(serde_json::to_string(&out.report(&jobs, &dc))? + "\n")),
        DagFormat::Table => emit(&format!(
            "policy {} on {} nodes: {} jobs, {} tasks\nmakespan {:.1} s  utilisation {:.1} %  plan {:.1} ms  per task {:.4} ms  refinements {}\n",
            policy.name(),
            dc.nodes(),
            jobs.len(),
            out.schedule.len(),
            out.metrics.makespan,
            100.0 * out.metrics.utilisation,
            out.plan_ms,
            out.per_task_ms,
            out.refinements
        )),
    }
}

#[derive(Args)]
pub struct DagGenerateArgs {
    /// A job of this schema: mapreduce, wavefront, fft, laplace, matrix, forkjoin.
    #[arg(
        long,
        conflicts_with = "datacentre",
        required_unless_present = "datacentre"
    )]
    schema: Option<String>,
    /// About this many tasks.
    #[arg(long, default_value_t = 1000)]
    tasks: usize,
    /// Equal durations and object sizes for parallel tasks (default: non-uniform).
    #[arg(long)]
    uniform: bool,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A data centre of Sect. 5.1: C0, C1, C2, C3, C4 or C5.
    #[arg(long)]
    datacentre: Option<String>,
    /// Write to this file instead of standard output.
    #[arg(long, short)]
    output: Option<PathBuf>,
}

pub fn cmd_generate(a: DagGenerateArgs, limits: &Limits) -> Result<()> {
    let text = match (&a.schema, &a.datacentre) {
        (Some(s), _) => {
            limits.check(0, a.tasks, "dag-generate")?;
            serde_json::to_string(&generate::job(
                Schema::parse(s)?,
                a.tasks,
                a.uniform,
                a.seed,
            )?)?
        }
        (None, Some(d)) => serde_json::to_string(&generate::datacentre(d)?)?,
        (None, None) => bail!("give --schema or --datacentre"),
    };
    match a.output {
        Some(p) => {
            std::fs::write(&p, text + "\n").with_context(|| format!("writing {}", p.display()))
        }
        None => emit(&(text + "\n")),
    }
}

#[derive(Args)]
pub struct DagCheckArgs {
    /// The job files, in the order the schedule's "job" numbers refer to.
    #[arg(long, required = true, num_args = 1..)]
    job: Vec<PathBuf>,
    #[arg(long)]
    datacentre: PathBuf,
    /// Schedule file: {"schedule": [{"job", "task", "node", "start", "end"}]}
    /// (the output of dag-plan --format json).
    #[arg(long)]
    schedule: PathBuf,
}

pub fn cmd_check(a: DagCheckArgs, limits: &Limits) -> Result<()> {
    let (jobs, dc) = load(&a.job, &a.datacentre, limits)?;
    let text = read(&a.schedule, limits, "schedule")?;
    let file: ScheduleFile = serde_json::from_str(&text)
        .with_context(|| format!("schedule {}", a.schedule.display()))?;
    let s = from_entries(&jobs, &dc, &file.schedule)
        .with_context(|| format!("schedule {}", a.schedule.display()))?;
    check(&jobs, &dc, &s).with_context(|| format!("schedule {}", a.schedule.display()))?;
    let m = metrics(&dc, &s);
    emit(&format!(
        "well formed: {} tasks of {} jobs on {} nodes; makespan {:.1} s, utilisation {:.1} %\n",
        s.len(),
        jobs.len(),
        dc.nodes(),
        m.makespan,
        100.0 * m.utilisation
    ))
}
