//! `spindle`: argument parsing and printing over `spindle-core`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use spindle_core::generate::{generate, GenSpec};
use spindle_core::plan::timed_plan;
use spindle_core::policy::asm1::{semi_matching, Asm1Workspace};
use spindle_core::policy::delay::LocalityDelay;
use spindle_core::session::{JobOrder, SessionEvent, TaskChoice};
use spindle_core::spc::JobSet;
use spindle_core::{Assignment, CostModel, Instance, JobScheduler, Metrics, PolicyKind};
use spindle_sim::{simulate, NetworkModel, SimConfig};

mod cluster;
mod dag;
mod estimate;
mod hdfs_input;
mod repro;

#[derive(Parser)]
#[command(
    name = "spindle",
    version,
    about = "Locality-aware task placement for Hadoop YARN: plan, compare and benchmark policies"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    limits: Limits,
}

/// Bounds on what a command takes from outside. The defaults are beyond any
/// real cluster or job; a larger input is refused with an error naming the
/// flag, rather than exhausting the machine.
#[derive(Args, Clone, Copy, Debug)]
pub struct Limits {
    /// Largest input file read (instance, job file, SWIM trace, fsck output), in bytes.
    #[arg(long, global = true, value_name = "BYTES", default_value_t = 512 << 20)]
    pub max_input_bytes: u64,
    /// Most nodes in a generated, planned or simulated cluster.
    #[arg(long, global = true, value_name = "N", default_value_t = spindle_sim::config::DEFAULT_MAX_NODES)]
    pub max_nodes: usize,
    /// Most tasks in a generated or planned instance, or maps and reduces in a simulated workload.
    #[arg(long, global = true, value_name = "N", default_value_t = spindle_sim::config::DEFAULT_MAX_TASKS)]
    pub max_tasks: usize,
}

impl Limits {
    /// Checks a node and a task count against the limits; `what` names where they come from.
    fn check(&self, nodes: usize, tasks: usize, what: &str) -> Result<()> {
        if nodes > self.max_nodes {
            bail!(
                "{what}: {nodes} nodes is more than the limit of {} (--max-nodes)",
                self.max_nodes
            );
        }
        if tasks > self.max_tasks {
            bail!(
                "{what}: {tasks} tasks is more than the limit of {} (--max-tasks)",
                self.max_tasks
            );
        }
        Ok(())
    }
}

#[derive(Subcommand)]
enum Command {
    /// Print a random instance (JSON) with HDFS's default rack-aware replica placement.
    Generate(GenerateArgs),
    /// Plan an instance file with a policy and print the plan.
    Plan(PlanArgs),
    /// Compare Hadoop's default greedy with ASM1 on an embedded simulated cluster.
    Demo(DemoArgs),
    /// Time a planner on an instance file (used by scripts/bench-asm1).
    Bench(BenchArgs),
    /// Time the core (a Session, as the plugin holds it) under MapReduce-shaped
    /// asks: full plans, plans while the cluster fills, heartbeats and ask
    /// updates while apps come and go.
    ChurnBench(ChurnBenchArgs),
    /// Run MapReduce jobs on a simulated YARN cluster, once per policy.
    Simulate(SimulateArgs),
    /// Write a workload (SWIM, a job file, a generated one or a trace) as a
    /// Scheduler Load Simulator trace and node file, or as a Rumen trace.
    Trace(TraceArgs),
    /// List every policy: its name, the paper it implements and a one-line summary.
    Policies(PoliciesArgs),
    /// Rerun a seed paper's experiments and print our figures beside the paper's.
    Repro(repro::ReproArgs),
    /// Predict task completion from progress reports (Hadoop's default and the
    /// JVM-start-up corrected estimator) and score both at 10/25/50 % progress.
    Estimate(estimate::EstimateArgs),
    /// Statically schedule task-graph jobs on a tree data centre (FISCH paper: FISCH, BLIND, greedy).
    DagPlan(dag::DagPlanArgs),
    /// Print a FISCH paper's job (task graph of a schema) or data centre (C0-C5) as JSON.
    DagGenerate(dag::DagGenerateArgs),
    /// Check that a schedule of task-graph jobs is well formed (FISCH paper, Sect. 2).
    DagCheck(dag::DagCheckArgs),
}

#[derive(Args)]
struct CostArgs {
    /// Cost of a node-local unit task.
    #[arg(long, default_value_t = 1.0)]
    cost_local: f64,
    /// Cost of a remote unit task (before growth).
    #[arg(long, default_value_t = 3.0)]
    cost_remote: f64,
    /// Growth of the remote cost per remote task in the plan (BAR's network factor q).
    #[arg(long, visible_alias = "network-factor", default_value_t = 0.0)]
    remote_growth: f64,
}

impl CostArgs {
    fn model(&self) -> CostModel {
        CostModel {
            local: self.cost_local,
            remote: self.cost_remote,
            remote_growth: self.remote_growth,
        }
    }
}

#[derive(Args)]
struct GenerateArgs {
    /// Number of nodes (datanodes that are also node managers).
    #[arg(long)]
    nodes: usize,
    /// Number of tasks (one input block each).
    #[arg(long)]
    tasks: usize,
    /// Replicas per block (HDFS dfs.replication).
    #[arg(long, default_value_t = 3)]
    replicas: usize,
    /// Number of racks; nodes are spread round-robin over them.
    #[arg(long, default_value_t = 1)]
    racks: usize,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Each node's initial load is uniform in [0, W] (BAR's cluster workload W).
    #[arg(long, default_value_t = 0.0, value_name = "W")]
    initial_load: f64,
    #[command(flatten)]
    cost: CostArgs,
    /// Write to this file instead of standard output.
    #[arg(long, short)]
    output: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Json,
    Table,
}

#[derive(Args)]
struct PlanArgs {
    /// Instance file (JSON; the format is in docs/cli.md).
    #[arg(long, short, required_unless_present_any = ["webhdfs", "path", "fsck", "splits"])]
    input: Option<PathBuf>,
    /// Policy (`spindle policies` lists them; hadoop-default needs `spindle simulate`;
    /// spc, spc-identical, spc-map-only, fifo, huwf and tetris schedule whole jobs
    /// and print task start and end times). Default: asm1 for --input; for HDFS inputs spindle.policy from --conf-dir
    /// (asm1 when unset, as in the RM plugin).
    #[arg(long, short)]
    policy: Option<String>,
    #[command(flatten)]
    hdfs: hdfs_input::HdfsArgs,
    /// Seed of the policy's random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
}

#[derive(Args)]
struct PoliciesArgs {
    /// Output format (markdown: the table of docs/policies.md).
    #[arg(long, value_enum, default_value = "table")]
    format: PoliciesFormat,
}

#[derive(Clone, Copy, ValueEnum)]
enum PoliciesFormat {
    Table,
    Json,
    Markdown,
}

#[derive(Args)]
struct DemoArgs {
    /// Nodes of the simulated cluster.
    #[arg(long, default_value_t = 50)]
    nodes: usize,
    /// Racks of the simulated cluster.
    #[arg(long, default_value_t = 3)]
    racks: usize,
    /// Replicas per block.
    #[arg(long, default_value_t = 3)]
    replicas: usize,
    /// Task counts to try (comma separated).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "50,100,250,500,1000,2500"
    )]
    tasks: Vec<usize>,
    /// Instances per task count; figures are means.
    #[arg(long, default_value_t = 10)]
    runs: u64,
    /// First seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

#[derive(Args)]
struct BenchArgs {
    /// Instance file (JSON). Not with --all.
    #[arg(long, short, required_unless_present_any = ["all", "spc"])]
    input: Option<PathBuf>,
    /// Policy to time.
    #[arg(long, short, default_value = "asm1")]
    policy: String,
    /// Timed repetitions (stopping once 10 s are spent, or at 100,000); the best and the median are reported.
    #[arg(long, default_value_t = 5)]
    repeat: usize,
    /// Time every policy that has an offline planner on generated instances
    /// (--nodes x each of --tasks) and print one table.
    #[arg(long, conflicts_with_all = ["input", "policy"])]
    all: bool,
    /// Time S-PC: LP-Schedule, the full plan and the online
    /// re-solve on Sect. VI.B instances of each of --jobs MapReduce jobs.
    #[arg(long, conflicts_with_all = ["input", "policy", "all"])]
    spc: bool,
    /// With --spc: job counts (comma separated; N jobs are N/2 MapReduce jobs of two stages), 2 to 10000
    /// (to 20000 with --map-only).
    #[arg(long, value_delimiter = ',', default_value = "100,1000")]
    jobs: Vec<usize>,
    /// With --spc: time only Map-only's LP (the N/2 map stages, no precedence),
    /// which the exact greedy solves, and not the full LP, plan and re-solves.
    #[arg(long, requires = "spc")]
    map_only: bool,
    /// With --spc: time the cold cutting planes (lp::cutting_planes, the
    /// reference) only up to this many LP jobs; 0 skips them (minutes at 1,000).
    #[arg(long, requires = "spc", default_value_t = spindle_repro::spc::COLD_UP_TO)]
    cold_up_to: usize,
    /// With --all: nodes of the generated instances.
    #[arg(long, default_value_t = 2000)]
    nodes: usize,
    /// With --all: task counts (comma separated).
    #[arg(long, value_delimiter = ',', default_value = "100,1000,12800,100000")]
    tasks: Vec<usize>,
    /// With --all: each node's initial load is uniform in [0, W].
    #[arg(long, default_value_t = 0.0, value_name = "W")]
    initial_load: f64,
    /// With --all: skip a policy at a size when its time at the previous size,
    /// scaled by the squared size ratio, exceeds this many seconds.
    #[arg(long, default_value_t = 60.0)]
    budget_s: f64,
    #[command(flatten)]
    cost: CostArgs,
}

#[derive(Clone, Copy, ValueEnum)]
enum TraceFormat {
    Sls,
    Rumen,
}

#[derive(Args)]
struct TraceArgs {
    #[command(flatten)]
    w: cluster::WorkloadArgs,
    /// Output format: sls (SLS trace, plus --node-file-out) or rumen.
    #[arg(long, value_enum)]
    to: TraceFormat,
    /// Trace file to write.
    #[arg(long, short)]
    out: PathBuf,
    /// With --to sls: the SLS node file to write (SLS's --nodes).
    #[arg(long, value_name = "FILE")]
    node_file_out: Option<PathBuf>,
}

#[derive(Args)]
struct ChurnBenchArgs {
    /// Policy whose planner runs.
    #[arg(long, short, default_value = "asm1")]
    policy: String,
    #[arg(long, default_value_t = 10_000)]
    nodes: usize,
    /// Applications pending at the start (one finishes and one arrives every 500 heartbeats).
    #[arg(long, default_value_t = 1_000)]
    apps: usize,
    /// Maps per application (one container each).
    #[arg(long, default_value_t = 1_200)]
    maps: usize,
    /// Replica hosts per map, each asked for as MapReduce's AM does; 0: the
    /// old shape of 30 hosts per application.
    #[arg(long, default_value_t = 3)]
    hosts_per_map: usize,
    /// Heartbeats timed under churn once the cluster is full.
    #[arg(long, default_value_t = 200_000)]
    heartbeats: usize,
    /// Full plans of the empty cluster, timed.
    #[arg(long, default_value_t = 3)]
    full_plans: usize,
    /// Heartbeats between plans (a plan starts only if an ask changed).
    #[arg(long, default_value_t = 1_000)]
    plan_every: usize,
    /// A small run for CI: 1,000 nodes, 100 apps, 20,000 heartbeats.
    #[arg(long)]
    quick: bool,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Plan on a planner thread, the Session behind a lock, as the JNI
    /// core does: heartbeats are timed with their wait for the lock, and
    /// the planner's longest lock holds are reported.
    #[arg(long)]
    planner_thread: bool,
}

#[derive(Args)]
struct SimulateArgs {
    #[command(flatten)]
    w: cluster::WorkloadArgs,
    /// Policy to run; repeat for several (same cluster and workload each
    /// time). Default: the stock schedulers' models and Spindle's default.
    #[arg(long = "policy", short = 'p', default_values_t = ["hadoop-default".to_string(), "hadoop-fair".to_string(), "asm1".to_string()])]
    policies: Vec<String>,
    /// Give the scheduler each job's exact block replicas (as WebHDFS would).
    #[arg(long)]
    exact_blocks: bool,
    /// Network model of remote reads: `uplink` (per-rack uplink sharing),
    /// `bar:Q` (C_loc + Q ms per running remote read) or `flat` (a remote
    /// read costs a local one, as in Hadoop's Scheduler Load Simulator).
    #[arg(long, default_value = "uplink")]
    network: String,
    /// Fraction of a job's maps done before its reduces are asked for
    /// (mapreduce.job.reduce.slowstart.completedmaps; SLS's AM: 1).
    #[arg(long, default_value_t = 0.05)]
    slowstart: f64,
    /// CapacityScheduler node-locality-delay (missed opportunities) for hadoop-default.
    #[arg(long, default_value_t = 40)]
    node_locality_delay: i32,
    /// CapacityScheduler rack-locality-additional-delay (-1: derive from the request).
    #[arg(long, default_value_t = -1)]
    rack_locality_additional_delay: i32,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// Leave wall-clock figures out, so that the same seed gives identical output.
    #[arg(long)]
    no_wall_clock: bool,
    /// Draw job completion CDFs and locality bars to this SVG file.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Write the Session event stream and its grants to this file (tab-separated,
    /// one event a line; for replaying through the JNI core). One policy only.
    #[arg(long)]
    record_events: Option<PathBuf>,
    /// Modelled planning time, as the RM plugin's planner thread takes it: a
    /// plan is used this many ms after the change that started it (0: at once).
    #[arg(long, default_value_t = 0.0)]
    planning_ms: f64,
    /// ... plus this many ms per million tasks planned.
    #[arg(long, default_value_t = 0.0)]
    planning_ms_per_million_tasks: f64,
    /// Between full plans, ASM1 queues new tasks at once by an augmenting
    /// path from their replicas (spindle.planning.incremental; off by
    /// default: new asks wait for the next plan, served meanwhile by the
    /// fallback).
    #[arg(long)]
    incremental: bool,
    /// Locality-wait cap of local-only policies and asm1-priced
    /// (spindle.locality.max-wait-ms): maps that got no container for this
    /// long take a rack-local or off-switch slot before reducers do;
    /// negative: wait for ever.
    #[arg(long, default_value_t = spindle_core::session::DEFAULT_MAX_WAIT_MS, allow_hyphen_values = true)]
    max_wait_ms: i64,
    /// Order of jobs under planned policies: weighted-remaining (least
    /// pending containers over weight first), fifo (submission order) or
    /// spc (S-PC's LP order, re-solved at each plan; weighted-remaining
    /// above 200 open stages), or an S-PC baseline's order:
    /// spc-identical, spc-map-only, huwf, tetris (docs/design.md).
    #[arg(long, default_value = "weighted-remaining", value_parser = parse_job_order)]
    job_order: JobOrder,
    /// Which task a grant books under --exact-blocks: mapreduce (the task
    /// the MR AM runs in that container: the first pending map with a
    /// replica on its host, else its rack, else any) or planned (the plan's
    /// task, as for an AM told which task to run). The simulated AM is the
    /// MR AM either way.
    #[arg(long, default_value = "mapreduce", value_parser = parse_task_choice)]
    task_choice: TaskChoice,
    /// Say why job APP (its id in the workload) waited: the heartbeats that
    /// passed it over, each with its reason (no planned work for the
    /// node, waiting for locality until T, the job order put another job
    /// first, no room), printed after the table; in JSON under "explain".
    #[arg(long, value_name = "APP")]
    explain: Option<String>,
}

fn parse_task_choice(s: &str) -> Result<TaskChoice, String> {
    TaskChoice::from_name(s)
        .ok_or_else(|| format!("unknown task choice {s:?}: {}", TaskChoice::names()))
}

fn parse_job_order(s: &str) -> Result<JobOrder, String> {
    JobOrder::from_name(s).ok_or_else(|| format!("unknown job order {s:?}: {}", JobOrder::names()))
}

fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SPINDLE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let limits = cli.limits;
    let result = match cli.command {
        Command::Generate(a) => cmd_generate(a, &limits),
        Command::Plan(a) => cmd_plan(a, &limits),
        Command::Demo(a) => cmd_demo(a, &limits),
        Command::Bench(a) => cmd_bench(a, &limits),
        Command::ChurnBench(a) => cmd_churn_bench(a, &limits),
        Command::Simulate(a) => cmd_simulate(a, &limits),
        Command::Trace(a) => cmd_trace(a, &limits),
        Command::Policies(a) => emit(&policies_text(a.format)),
        Command::Repro(a) => repro::run(&a).and_then(|t| emit(&t)),
        Command::Estimate(a) => estimate::run(&a, &limits).and_then(|t| emit(&t)),
        Command::DagPlan(a) => dag::cmd_plan(a, &limits),
        Command::DagGenerate(a) => dag::cmd_generate(a, &limits),
        Command::DagCheck(a) => dag::cmd_check(a, &limits),
    };
    if let Err(e) = result {
        eprintln!("spindle: error: {e:#}");
        std::process::exit(1);
    }
}

/// `spindle policies`: the registry's lines, in registry order.
fn policies_text(format: PoliciesFormat) -> String {
    let rows = PolicyKind::ALL.map(|p| (p.name(), p.paper(), p.summary()));
    let mut s = String::new();
    match format {
        PoliciesFormat::Json => {
            let v: Vec<_> = rows
                .iter()
                .map(|(n, p, d)| serde_json::json!({"name": n, "paper": p, "summary": d}))
                .collect();
            s = serde_json::Value::from(v).to_string() + "\n";
        }
        PoliciesFormat::Markdown => {
            s.push_str("| policy | paper | what it does |\n|---|---|---|\n");
            for (n, p, d) in rows {
                let _ = writeln!(s, "| `{n}` | {p} | {d} |");
            }
        }
        PoliciesFormat::Table => {
            let w = |f: fn(&(&str, &str, &str)) -> usize| rows.iter().map(f).max().unwrap_or(0);
            let (wn, wp) = (w(|r| r.0.len()), w(|r| r.1.len()));
            for (n, p, d) in rows {
                let _ = writeln!(s, "{n:wn$}  {p:wp$}  {d}");
            }
        }
    }
    s
}

fn cmd_generate(a: GenerateArgs, limits: &Limits) -> Result<()> {
    limits.check(a.nodes, a.tasks, "generate")?;
    let spec = GenSpec {
        nodes: a.nodes,
        tasks: a.tasks,
        replicas: a.replicas,
        racks: a.racks,
        seed: a.seed,
        initial_load: a.initial_load,
        cost: a.cost.model(),
    };
    let file = generate(&spec)?;
    let text = serde_json::to_string(&file)?;
    match a.output {
        Some(path) => std::fs::write(&path, text + "\n")
            .with_context(|| format!("writing {}", path.display()))?,
        None => emit(&(text + "\n"))?,
    }
    Ok(())
}

/// Reads and validates an instance file within the limits: its size before
/// it is parsed, its node and task counts after.
fn read_instance(path: &Path, limits: &Limits) -> Result<Instance> {
    let text = spindle_hadoop::input::read_text_bounded(
        path,
        limits.max_input_bytes,
        "instance",
        "--max-input-bytes",
    )?;
    let inst =
        Instance::from_json(&text).with_context(|| format!("instance {}", path.display()))?;
    let p = &inst.problem;
    limits.check(
        p.num_nodes(),
        p.num_tasks(),
        &format!("instance {}", path.display()),
    )?;
    Ok(inst)
}

fn cmd_plan(a: PlanArgs, limits: &Limits) -> Result<()> {
    // Job schedulers (S-PC and its baselines) have their own report.
    let job_scheduler = a.policy.as_deref().map(PolicyKind::from_name);
    if let Some(kind) = job_scheduler.and_then(|p| p.ok()?.job_scheduler()) {
        return cmd_plan_schedule(kind, a, limits);
    }
    // A bad --policy fails before any input is read.
    if let Some(p) = &a.policy {
        PolicyKind::from_name(p)?.offline_planner()?;
    }
    let (inst, cluster, conf_policy) = match hdfs_input::load(&a.hdfs, limits)? {
        Some(c) => (c.instance, Some(c.source), Some(c.settings.policy)),
        None => {
            let input = a.input.as_deref().context("--input is required")?;
            (read_instance(input, limits)?, None, None)
        }
    };
    let name = a.policy.or(conf_policy).unwrap_or_else(|| "asm1".into());
    let policy = PolicyKind::from_name(&name)?;
    let planner = policy.offline_planner()?;
    let (assignment, metrics) = timed_plan(planner, &inst.problem, a.seed);
    // Cluster inputs are compared with Hadoop's default greedy placement.
    let baseline = match &cluster {
        Some(_) => Some(timed_plan(PolicyKind::Greedy.offline_planner()?, &inst.problem, a.seed).1),
        None => None,
    };
    match a.format {
        Format::Json => {
            let report = inst.report(policy.name(), &assignment, metrics);
            let mut v = serde_json::to_value(&report)?;
            if let (Some(c), Some(b), Some(o)) = (&cluster, &baseline, v.as_object_mut()) {
                o.insert("source".into(), c.clone().into());
                o.insert("hadoop_default".into(), serde_json::to_value(b)?);
            }
            emit(&(serde_json::to_string(&v)? + "\n"))
        }
        Format::Table => {
            let mut s = String::new();
            if let (Some(c), Some(b)) = (&cluster, &baseline) {
                let _ = writeln!(s, "input: {} blocks from {}", inst.problem.num_tasks(), c);
                let _ = writeln!(s, "hadoop-default (greedy): makespan {:.3}, max {} tasks/node, non-local {} ({:.1}%: {} rack-local, {} off-switch)",
                    b.makespan, b.max_tasks_per_node, b.non_local, 100.0 * b.non_local_fraction, b.rack_local, b.off_switch);
            }
            s.push_str(&plan_table(policy, &inst, &assignment, &metrics));
            emit(&s)
        }
    }
}

/// `spindle plan --policy spc|fifo|...`: the schedule with start and end times.
fn cmd_plan_schedule(kind: &dyn JobScheduler, a: PlanArgs, limits: &Limits) -> Result<()> {
    let inst = match hdfs_input::load(&a.hdfs, limits)? {
        Some(c) => c.instance,
        None => read_instance(a.input.as_deref().context("--input is required")?, limits)?,
    };
    let jobs = JobSet::from_instance(&inst);
    let started = std::time::Instant::now();
    let outcome = kind
        .schedule(&jobs, &inst.problem, a.seed)
        .with_context(|| format!("policy {}", kind.name()))?;
    let ms = started.elapsed().as_secs_f64() * 1e3;
    let report = outcome.report(kind.name(), &inst, &jobs, ms);
    match a.format {
        Format::Json => emit(&(serde_json::to_string(&report)? + "\n")),
        Format::Table => {
            let m = &report.metrics;
            let mut s = String::new();
            let _ = writeln!(
                s,
                "policy {}: {} jobs, {} tasks on {} nodes; total weighted completion time {:.3}, LP lower bound {}, {} cuts, makespan {:.3}, planned in {:.3} ms",
                kind.name(),
                jobs.len(),
                inst.problem.num_tasks(),
                inst.problem.num_nodes(),
                m.twct,
                m.lp_lower_bound.map_or("-".into(), |v| format!("{v:.3}")),
                m.lp_cuts.map_or("-".into(), |v| v.to_string()),
                m.makespan,
                m.plan_ms
            );
            let _ = writeln!(
                s,
                "{:<24} {:>8} {:>12} {:>12}",
                "job", "weight", "completion", "C_LP"
            );
            for &j in &outcome.schedule.job_order {
                let r = &report.jobs[j as usize];
                let _ = writeln!(
                    s,
                    "{:<24} {:>8.3} {:>12.3} {:>12}",
                    r.id,
                    r.weight,
                    r.completion,
                    r.lp_completion.map_or("-".into(), |v| format!("{v:.3}"))
                );
            }
            emit(&s)
        }
    }
}

fn plan_table(policy: PolicyKind, inst: &Instance, a: &Assignment, m: &Metrics) -> String {
    let p = &inst.problem;
    let mut s = String::new();
    let _ = writeln!(s, "policy {}: {} tasks on {} nodes; makespan {:.3}, max {} tasks/node, non-local {} ({:.1}%: {} rack-local, {} off-switch), planned in {:.3} ms",
        policy,
        p.num_tasks(),
        p.num_nodes(),
        m.makespan,
        m.max_tasks_per_node,
        m.non_local,
        100.0 * m.non_local_fraction,
        m.rack_local,
        m.off_switch,
        m.plan_ms
    );
    let _ = writeln!(
        s,
        "{:<20} {:<16} {:>6} {:>6} {:>6} {:>10}",
        "node", "rack", "tasks", "rack", "off", "first"
    );
    for n in 0..p.num_nodes() {
        let q = a.queues.row(n);
        let (mut rack, mut off) = (0, 0);
        for &t in q {
            match p.locality(t, n as u32) {
                spindle_core::Locality::Node => {}
                spindle_core::Locality::Rack => rack += 1,
                spindle_core::Locality::OffSwitch => off += 1,
            }
        }
        let first = q
            .first()
            .map_or("-", |&t| inst.task_ids[t as usize].as_str());
        let _ = writeln!(
            s,
            "{:<20} {:<16} {:>6} {:>6} {:>6} {:>10}",
            inst.hosts[n],
            inst.racks[p.node_rack[n] as usize],
            q.len(),
            rack,
            off,
            first
        );
    }
    s
}

fn cmd_demo(a: DemoArgs, limits: &Limits) -> Result<()> {
    for &tasks in &a.tasks {
        limits.check(a.nodes, tasks, "demo")?;
    }
    let spec = spindle_repro::demo::DemoSpec {
        nodes: a.nodes,
        racks: a.racks,
        replicas: a.replicas,
        tasks: a.tasks,
        runs: a.runs,
        seed: a.seed,
    };
    emit(&spindle_repro::demo::run(&spec)?)
}

fn cmd_simulate(a: SimulateArgs, limits: &Limits) -> Result<()> {
    let policies = a
        .policies
        .iter()
        .map(|p| PolicyKind::from_name(p))
        .collect::<Result<Vec<_>, _>>()?;
    let network = match a.network.as_str() {
        "uplink" => NetworkModel::RackUplink,
        "flat" => NetworkModel::Flat,
        other => match other
            .strip_prefix("bar:")
            .and_then(|q| q.parse::<f64>().ok())
        {
            Some(q_ms) if q_ms.is_finite() && q_ms >= 0.0 => NetworkModel::Bar { q_ms },
            _ => bail!(
                "--network must be `uplink`, `flat` or `bar:Q` with Q a finite number >= 0 of milliseconds, got {other:?}"
            ),
        },
    };
    let base = SimConfig {
        exact_blocks: a.exact_blocks,
        network,
        slowstart: a.slowstart,
        delay: LocalityDelay {
            node_locality_delay: a.node_locality_delay,
            rack_locality_additional_delay: a.rack_locality_additional_delay,
        },
        planning_base_ms: a.planning_ms,
        planning_ms_per_million_tasks: a.planning_ms_per_million_tasks,
        incremental: a.incremental,
        max_wait_ms: a.max_wait_ms,
        job_order: a.job_order,
        task_choice: a.task_choice,
        ..SimConfig::default()
    };
    let (mut cfg, jobs, load) = cluster::build(&a.w, limits, base)?;
    if a.record_events.is_some() && policies.len() != 1 {
        bail!("--record-events records one policy; give exactly one --policy");
    }
    cfg.record_events = a.record_events.is_some();
    if let Some(app) = &a.explain {
        if !jobs.iter().any(|j| &j.id == app) {
            bail!(
                "--explain {app:?}: no job of that id in the workload (its jobs are {} to {})",
                jobs[0].id,
                jobs[jobs.len() - 1].id
            );
        }
        cfg.explain = Some(app.clone());
    }
    let mut runs = Vec::with_capacity(policies.len());
    let mut explained = Vec::new();
    for &policy in &policies {
        cfg.policy = policy;
        let bar = progress_bar(&format!("simulating {policy}"));
        let started = Instant::now();
        let out = simulate(&cfg, &jobs, |p| {
            if started.elapsed().as_secs_f64() > 1.0 && bar.is_hidden() {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            }
            // Jobs finish late in a long run: the simulated clock and the
            // event count show it moving meanwhile.
            bar.set_message(format!(
                "simulating {policy}: {}/{} jobs done, {:.0} s simulated, {:.1}M events",
                p.jobs_done,
                p.jobs,
                p.sim_ms as f64 / 1000.0,
                p.events as f64 / 1e6
            ));
            bar.set_position((p.fraction() * 1000.0) as u64);
        })
        .with_context(|| format!("simulating policy {policy}"))?;
        bar.finish_and_clear();
        if let Some(path) = &a.record_events {
            std::fs::write(path, event_lines(&out.events))
                .with_context(|| format!("writing {}", path.display()))?;
        }
        if let Some(r) = out.activities {
            explained.push((policy.to_string(), r));
        }
        let mut result = out.result;
        if a.no_wall_clock {
            result.metrics.wall_ms = None;
        }
        runs.push(result);
    }
    if let Some(path) = &a.plot {
        spindle_repro::plot::plot(path, &runs)?;
    }
    match a.format {
        Format::Json => {
            let mut out = serde_json::json!({"seed": a.w.seed, "load": load, "policies": runs});
            if a.explain.is_some() {
                out["explain"] = serde_json::json!(explained
                    .iter()
                    .map(|(policy, r)| serde_json::json!({"policy": policy, "activities": r}))
                    .collect::<Vec<_>>());
            }
            emit(&(serde_json::to_string_pretty(&out)? + "\n"))
        }
        Format::Table => {
            let workload = match &a.w.jobs {
                Some(path) => path.display().to_string(),
                None => a.w.workload.clone(),
            };
            let mut text = simulate_table(&cfg, &workload, jobs.len(), load, &runs);
            if let Some(app) = &a.explain {
                for (policy, r) in &explained {
                    text += &explain_text(app, policy, r);
                }
            }
            emit(&text)
        }
    }
}

/// Most entries `--explain` lists per policy (the counts cover them all).
const EXPLAIN_LINES: usize = 20;

/// `simulate --explain`: why heartbeats under `policy` passed `app` over,
/// by reason, then the first entries.
fn explain_text(app: &str, policy: &str, r: &spindle_core::session::ActivitiesReport) -> String {
    let mut s = format!("\nwhy {app} waited under {policy}:\n");
    if r.activities.is_empty() {
        let _ = writeln!(s, "  no heartbeat passed it over");
        return s;
    }
    let mut by_reason: Vec<(&str, &str, u64)> = Vec::new();
    for e in &r.activities {
        let name = e.reason.name();
        match by_reason.iter_mut().find(|(n, _, _)| *n == name) {
            Some(x) => x.2 += u64::from(e.repeats),
            None => by_reason.push((name, e.description, u64::from(e.repeats))),
        }
    }
    by_reason.sort_by_key(|x| std::cmp::Reverse(x.2));
    for (name, description, n) in &by_reason {
        let _ = writeln!(s, "  {n:>8} heartbeats  {name:<16} {description}");
    }
    let _ = writeln!(
        s,
        "  first {} of {} entries:",
        EXPLAIN_LINES.min(r.activities.len()),
        r.activities.len()
    );
    for e in r.activities.iter().take(EXPLAIN_LINES) {
        let until = if e.until_ms >= 0 {
            format!(" until {:.1} s", e.until_ms as f64 / 1000.0)
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "  {:>9.1}-{:<9.1} s  {:<10} {}{until}  (x{})",
            e.first_ms as f64 / 1000.0,
            e.last_ms as f64 / 1000.0,
            e.host,
            e.reason.name(),
            e.repeats
        );
    }
    s
}

/// The recorded stream as tab-separated lines (read by the JVM tests).
fn event_lines(events: &[(SessionEvent, Vec<spindle_core::Grant>)]) -> String {
    let mut s = String::new();
    for (event, grants) in events {
        let _ = match event {
            SessionEvent::AddNode {
                host,
                rack,
                capacity,
                speed,
            } => writeln!(
                s,
                "add_node\t{host}\t{rack}\t{}\t{}\t{speed}",
                capacity.memory_mb, capacity.vcores
            ),
            SessionEvent::RemoveNode { node } => writeln!(s, "remove_node\t{node}"),
            SessionEvent::UpdateNode { node, capacity } => writeln!(
                s,
                "update_node\t{node}\t{}\t{}",
                capacity.memory_mb, capacity.vcores
            ),
            SessionEvent::AddApp {
                app,
                weight,
                submit_ms,
            } => writeln!(s, "add_app\t{app}\t{weight}\t{submit_ms}"),
            SessionEvent::FinishApp { app } => writeln!(s, "finish_app\t{app}"),
            SessionEvent::UpdateAsk {
                app,
                priority,
                resource,
                count,
                capability,
                relax_locality,
            } => writeln!(
                s,
                "update_ask\t{app}\t{priority}\t{resource}\t{count}\t{}\t{}\t{}",
                capability.memory_mb, capability.vcores, *relax_locality as u8
            ),
            SessionEvent::InputBlocks {
                app,
                priority,
                tasks,
            } => {
                let tasks: Vec<String> = tasks.iter().map(|t| t.join(",")).collect();
                writeln!(s, "input_blocks\t{app}\t{priority}\t{}", tasks.join("\t"))
            }
            SessionEvent::ContainerFinished { node, app: None } => {
                writeln!(s, "container_finished\t{node}")
            }
            SessionEvent::ContainerFinished {
                node,
                app: Some(app),
            } => writeln!(s, "container_finished\t{node}\t{app}"),
            SessionEvent::Heartbeat { node, free, now_ms } => {
                let g: Vec<String> = grants
                    .iter()
                    .map(|g| format!("{},{},{},{}", g.app, g.priority, g.count, g.locality as u8))
                    .collect();
                writeln!(
                    s,
                    "heartbeat\t{node}\t{}\t{}\t{now_ms}\t{}",
                    free.memory_mb,
                    free.vcores,
                    g.join(";")
                )
            }
            SessionEvent::SetAppWeight { app, weight } => {
                writeln!(s, "set_app_weight\t{app}\t{weight}")
            }
            SessionEvent::AppProgress {
                app,
                progress,
                now_ms,
            } => writeln!(s, "app_progress\t{app}\t{progress}\t{now_ms}"),
            SessionEvent::ContainerRecovered { node, app } => {
                writeln!(s, "container_recovered\t{node}\t{app}")
            }
        };
    }
    s
}

fn progress_bar(message: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(1000),
        indicatif::ProgressDrawTarget::hidden(),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template("{msg} [{bar:30}] {elapsed}") {
        bar.set_style(style);
    }
    bar.set_message(message.to_string());
    bar
}

/// Jobs listed one by one below the policy table; a longer workload gets
/// a summary (`--format json` has every job).
const JOB_LINES_MAX: usize = 40;

fn simulate_table(
    cfg: &SimConfig,
    workload: &str,
    jobs: usize,
    load: Option<spindle_sim::LoadScaling>,
    runs: &[spindle_sim::SimResult],
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} nodes in {} racks, {} containers each; {} jobs ({workload}); seed {}.",
        cfg.nodes,
        cfg.racks,
        cfg.slots(),
        jobs,
        cfg.seed
    );
    if let Some(l) = load {
        let _ = writeln!(
            s,
            "--load {}: gaps between submissions scaled by {:.4} (estimated offered load {:.1} % -> {:.1} %; `util` is what each run reached).",
            l.target,
            l.factor,
            100.0 * l.offered_before,
            100.0 * l.target
        );
    }
    let _ = writeln!(
        s,
        "{:<16} {:>10} {:>9} {:>11} {:>8} {:>8} {:>8} {:>17} {:>6} {:>10} {:>9}",
        "policy",
        "makespan s",
        "mean JCT",
        "TWCT s",
        "node %",
        "rack %",
        "off %",
        "booked n/r/o %",
        "util",
        "events",
        "wall ms"
    );
    for r in runs {
        let m = &r.metrics;
        let maps = (m.node_local + m.rack_local + m.off_switch).max(1) as f64;
        let pct = |x: u64| 100.0 * x as f64 / maps;
        let _ = writeln!(
            s,
            "{:<16} {:>10.1} {:>9.1} {:>11.1} {:>8.1} {:>8.1} {:>8.1} {:>17} {:>6.2} {:>10} {:>9}",
            r.policy,
            m.makespan_s,
            m.mean_jct_s,
            m.twct,
            pct(m.node_local),
            pct(m.rack_local),
            pct(m.off_switch),
            {
                // The scheduler's own labels at the grant (YARN's queue metrics).
                let b =
                    (m.booked_node_local + m.booked_rack_local + m.booked_off_switch).max(1) as f64;
                let p = |x: u64| 100.0 * x as f64 / b;
                format!(
                    "{:.1}/{:.1}/{:.1}",
                    p(m.booked_node_local),
                    p(m.booked_rack_local),
                    p(m.booked_off_switch)
                )
            },
            m.utilization,
            m.events,
            m.wall_ms.map_or("-".to_string(), |w| format!("{w:.0}"))
        );
    }
    let _ = writeln!(s);
    if jobs > JOB_LINES_MAX {
        job_summary(&mut s, runs);
        return s;
    }
    let _ = write!(
        s,
        "{:<14} {:>9} {:>6} {:>4}",
        "job", "submit s", "maps", "red"
    );
    for r in runs {
        let _ = write!(s, " {:>16}", format!("{} done s", r.policy));
    }
    let _ = writeln!(s);
    for (k, job) in runs[0].jobs.iter().enumerate() {
        let _ = write!(
            s,
            "{:<14} {:>9.1} {:>6} {:>4}",
            job.id, job.submit_s, job.maps, job.reduces
        );
        for r in runs {
            let _ = write!(s, " {:>16.1}", r.jobs[k].finish_s);
        }
        let _ = writeln!(s);
    }
    s
}

fn cmd_trace(a: TraceArgs, limits: &Limits) -> Result<()> {
    let (cfg, jobs, _) = cluster::build(&a.w, limits, SimConfig::default())?;
    let create = |p: &PathBuf| -> Result<std::io::BufWriter<std::fs::File>> {
        Ok(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
        ))
    };
    let mut out = create(&a.out)?;
    let line = match a.to {
        TraceFormat::Sls => {
            let Some(nf) = &a.node_file_out else {
                bail!("--to sls needs --node-file-out FILE (SLS's node file)");
            };
            let mut nodes = create(nf)?;
            let s = spindle_sim::trace::write_sls(&cfg, &jobs, &mut out, &mut nodes)?;
            nodes
                .flush()
                .with_context(|| format!("writing {}", nf.display()))?;
            format!(
                "{} jobs ({} maps, {} reduces) on {} nodes in {} racks: {} and {}\n",
                s.jobs,
                s.maps,
                s.reduces,
                s.nodes,
                s.racks,
                a.out.display(),
                nf.display()
            )
        }
        TraceFormat::Rumen => {
            let n = spindle_sim::trace::write_rumen(&cfg, &jobs, &mut out)?;
            format!("{n} jobs: {}\n", a.out.display())
        }
    };
    out.flush()
        .with_context(|| format!("writing {}", a.out.display()))?;
    emit(&line)
}

fn cmd_churn_bench(a: ChurnBenchArgs, limits: &Limits) -> Result<()> {
    let (nodes, apps, heartbeats) = if a.quick {
        (1_000, 100, 20_000)
    } else {
        (a.nodes, a.apps, a.heartbeats)
    };
    limits.check(nodes, apps.saturating_mul(a.maps), "churn-bench")?;
    let spec = spindle_repro::churn::ChurnSpec {
        policy: PolicyKind::from_name(&a.policy)?,
        nodes,
        apps,
        maps: a.maps,
        hosts_per_map: a.hosts_per_map,
        heartbeats,
        full_plans: a.full_plans,
        plan_every: a.plan_every,
        seed: a.seed,
        planner_thread: a.planner_thread,
        ..Default::default()
    };
    let report = spindle_repro::churn::run(&spec)?;
    match a.format {
        Format::Json => emit(&(serde_json::to_string_pretty(&report)? + "\n")),
        Format::Table => emit(&report.table()),
    }
}

/// Job completion times of a long run: percentiles, and the mean by job
/// size (a heavy-tailed trace is mostly small jobs behind a few big ones).
fn job_summary(s: &mut String, runs: &[spindle_sim::SimResult]) {
    let _ = writeln!(
        s,
        "{:<16} {:>9} {:>9} {:>9} {:>9}   job completion time, s",
        "policy", "p50", "p90", "p99", "max"
    );
    for r in runs {
        let q = |x| r.jct_quantile(x);
        let _ = writeln!(
            s,
            "{:<16} {:>9.1} {:>9.1} {:>9.1} {:>9.1}",
            r.policy,
            q(0.5),
            q(0.9),
            q(0.99),
            q(1.0)
        );
    }
    let _ = writeln!(s);
    // Size classes with jobs in them (every run has the same jobs).
    let counts = runs[0].mean_jct_by_size();
    let shown: Vec<usize> = (0..counts.len()).filter(|&k| counts[k].0 > 0).collect();
    let _ = write!(s, "{:<16}", "policy");
    for &k in &shown {
        let label = spindle_sim::report::SIZE_CLASSES[k].0;
        let _ = write!(s, " {:>16}", format!("{label} ({})", counts[k].0));
    }
    let _ = writeln!(s, "   mean JCT s by maps (jobs)");
    for r in runs {
        let _ = write!(s, "{:<16}", r.policy);
        let by_size = r.mean_jct_by_size();
        for &k in &shown {
            let _ = write!(s, " {:>16.1}", by_size[k].1);
        }
        let _ = writeln!(s);
    }
    let _ = writeln!(s, "\nEvery job: --format json.");
}

fn cmd_bench(a: BenchArgs, limits: &Limits) -> Result<()> {
    if a.repeat == 0 {
        bail!("--repeat must be at least 1");
    }
    if a.spc {
        if a.map_only {
            if let Some(&j) = a.jobs.iter().find(|&&j| !(2..=20_000).contains(&j)) {
                bail!("--jobs {j}: with --map-only each count must be from 2 to 20000 (N/2 map stages; S-PC's LP holds at most 10000 jobs)");
            }
            return emit(&spindle_repro::spc::bench_map_only(&a.jobs, a.repeat)?);
        }
        if let Some(&j) = a.jobs.iter().find(|&&j| !(2..=10_000).contains(&j)) {
            bail!("--jobs {j}: each count must be from 2 to 10000 (S-PC's LP holds at most 10000 jobs)");
        }
        return emit(&spindle_repro::spc::bench(&a.jobs, a.repeat, a.cold_up_to)?);
    }
    if a.all {
        for &tasks in &a.tasks {
            limits.check(a.nodes, tasks, "bench --all")?;
        }
        let spec = spindle_repro::bench::BenchAllSpec {
            nodes: a.nodes,
            tasks: a.tasks.clone(),
            initial_load: a.initial_load,
            cost: a.cost.model(),
            repeat: a.repeat,
            budget_s: a.budget_s,
        };
        return emit(&spindle_repro::bench::all(&spec)?);
    }
    let policy = PolicyKind::from_name(&a.policy)?;
    let planner = policy.offline_planner()?;
    let Some(input) = &a.input else {
        bail!("--input is required without --all");
    };
    let inst = read_instance(input, limits)?;
    let p = &inst.problem;
    let mut times = Vec::with_capacity(a.repeat.min(1024));
    let mut counts: Vec<u32> = Vec::new();
    let mut ws = Asm1Workspace::default();
    let started = Instant::now();
    for _ in 0..a.repeat {
        // As --all: repetitions stop once 10 s are spent, and at 100,000
        // timings (--repeat 4e9 ran for ever, its buffer asked for 32 GB).
        if !times.is_empty() && (started.elapsed().as_secs_f64() > 10.0 || times.len() >= 100_000) {
            break;
        }
        let start = Instant::now();
        // ASM1 through its reusable workspace, as the Session runs it.
        let node_of: Vec<u32> = if policy == PolicyKind::Asm1 {
            let r = semi_matching(p, &mut ws);
            let ms = start.elapsed().as_secs_f64() * 1e3;
            times.push(ms);
            r.to_vec()
        } else {
            let r = planner.plan(p, 1).node_of;
            times.push(start.elapsed().as_secs_f64() * 1e3);
            r
        };
        counts = vec![0; p.num_nodes()];
        for n in node_of {
            counts[n as usize] += 1;
        }
    }
    times.sort_by(f64::total_cmp);
    let convex: u64 = counts.iter().map(|&d| d as u64 * (d as u64 + 1) / 2).sum();
    let out = serde_json::json!({
        "policy": policy.name(),
        "tasks": p.num_tasks(),
        "nodes": p.num_nodes(),
        "edges": p.graph.task_nodes.len(),
        "best_ms": times[0],
        "median_ms": times[times.len() / 2],
        "max_tasks_per_node": counts.iter().copied().max().unwrap_or(0),
        "sum_k_cost": convex,
    });
    emit(&format!("{out}\n"))
}

/// Writes to standard output; a closed pipe (`spindle demo | head`) is not an error.
fn emit(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing to standard output"),
    }
}
