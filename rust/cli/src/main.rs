//! `spindle`: argument parsing and printing over `spindle-core`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use spindle_core::generate::{generate, GenSpec};
use spindle_core::plan::evaluate;
use spindle_core::policy::asm1::{semi_matching, Asm1Workspace};
use spindle_core::policy::delay::LocalityDelay;
use spindle_core::session::SessionEvent;
use spindle_core::{Assignment, CostModel, Instance, Metrics, Planner, PolicyKind};
use spindle_sim::{simulate, NetworkModel, SimConfig, Workload};

mod hdfs_input;
mod plot;
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
    /// Run MapReduce jobs on a simulated YARN cluster, once per policy.
    Simulate(SimulateArgs),
    /// Rerun a seed paper's experiments and print our figures beside the paper's.
    Repro(repro::ReproArgs),
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
    /// Instance file (JSON; see the README for the format).
    #[arg(long, short, required_unless_present_any = ["webhdfs", "path", "fsck", "splits"])]
    input: Option<PathBuf>,
    /// Policy (see the README's policy table; hadoop-default needs `spindle simulate`).
    /// Default: asm1 for --input; for HDFS inputs spindle.policy from --conf-dir
    /// (asm1-comm when unset, as in the RM plugin).
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
    #[arg(long, short, required_unless_present = "all")]
    input: Option<PathBuf>,
    /// Policy to time.
    #[arg(long, short, default_value = "asm1")]
    policy: String,
    /// Timed repetitions; the best and the median are reported.
    #[arg(long, default_value_t = 5)]
    repeat: usize,
    /// Time every policy that has an offline planner on generated instances
    /// (--nodes x each of --tasks) and print one table.
    #[arg(long, conflicts_with_all = ["input", "policy"])]
    all: bool,
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

#[derive(Args)]
struct SimulateArgs {
    /// Node managers (each also a datanode).
    #[arg(long, default_value_t = 100)]
    nodes: usize,
    /// Racks; nodes are spread round-robin.
    #[arg(long, default_value_t = 4)]
    racks: usize,
    /// Containers per node (1024 MB, 1 vcore each).
    #[arg(long, default_value_t = 4)]
    slots: u32,
    /// Fraction of nodes that compute at --slow-speed (heterogeneous cluster).
    #[arg(long, default_value_t = 0.0)]
    slow_fraction: f64,
    /// Relative speed of the slow nodes.
    #[arg(long, default_value_t = 0.5)]
    slow_speed: f64,
    /// Job file (JSON; see the README). Overrides --workload.
    #[arg(long)]
    jobs: Option<PathBuf>,
    /// wordcount, terasort, mixed, or swim:FILE (a SWIM Facebook trace).
    #[arg(long, default_value = "mixed")]
    workload: String,
    /// Keep only the first N jobs of the workload.
    #[arg(long)]
    max_jobs: Option<usize>,
    /// Policy to run; repeat for several (same cluster and workload each time).
    #[arg(long = "policy", short = 'p', default_values_t = ["hadoop-default".to_string(), "asm1".to_string()])]
    policies: Vec<String>,
    /// Random seed (placement, heartbeat phases, JVM start-up times).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Give the scheduler each job's exact block replicas (as WebHDFS would).
    #[arg(long)]
    exact_blocks: bool,
    /// Network model of remote reads: `uplink` (per-rack uplink sharing) or `bar:Q` (C_loc + Q ms per running remote read).
    #[arg(long, default_value = "uplink")]
    network: String,
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
    let result = match cli.command {
        Command::Generate(a) => cmd_generate(a),
        Command::Plan(a) => cmd_plan(a),
        Command::Demo(a) => cmd_demo(a),
        Command::Bench(a) => cmd_bench(a),
        Command::Simulate(a) => cmd_simulate(a),
        Command::Repro(a) => repro::run(&a).and_then(|t| emit(&t)),
    };
    if let Err(e) = result {
        eprintln!("spindle: error: {e:#}");
        std::process::exit(1);
    }
}

fn cmd_generate(a: GenerateArgs) -> Result<()> {
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

fn read_instance(path: &Path) -> Result<Instance> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading instance {}", path.display()))?;
    Instance::from_json(&text).with_context(|| format!("instance {}", path.display()))
}

/// Runs a planner and times it.
fn timed_plan(planner: &dyn Planner, inst: &Instance, seed: u64) -> (Assignment, Metrics) {
    let start = Instant::now();
    let a = planner.plan(&inst.problem, seed);
    let ms = start.elapsed().as_secs_f64() * 1e3;
    let mut m = evaluate(&inst.problem, &a);
    m.plan_ms = ms;
    (a, m)
}

fn cmd_plan(a: PlanArgs) -> Result<()> {
    // A bad --policy fails before any input is read.
    if let Some(p) = &a.policy {
        PolicyKind::from_name(p)?.offline_planner()?;
    }
    let (inst, cluster, conf_policy) = match hdfs_input::load(&a.hdfs)? {
        Some(c) => (c.instance, Some(c.source), Some(c.settings.policy)),
        None => {
            let input = a.input.as_deref().context("--input is required")?;
            (read_instance(input)?, None, None)
        }
    };
    let name = a.policy.or(conf_policy).unwrap_or_else(|| "asm1".into());
    let policy = PolicyKind::from_name(&name)?;
    let planner = policy.offline_planner()?;
    let (assignment, metrics) = timed_plan(planner, &inst, a.seed);
    // Cluster inputs are compared with Hadoop's default greedy placement.
    let baseline = match &cluster {
        Some(_) => Some(timed_plan(PolicyKind::Greedy.offline_planner()?, &inst, a.seed).1),
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

#[derive(Default)]
struct Mean {
    makespan: f64,
    non_local: f64,
    ms: f64,
}

fn cmd_demo(a: DemoArgs) -> Result<()> {
    if a.runs == 0 {
        bail!("--runs must be at least 1");
    }
    // The paper's homogeneous model: unit tasks, communication overlapped
    // (a remote task also takes one unit), so both criteria are counts.
    let mut s = String::new();
    let cost = CostModel {
        local: 1.0,
        remote: 1.0,
        remote_growth: 0.0,
    };
    let _ = writeln!(s, "Spindle demo: {} nodes, {} racks, {} replicas per block placed as HDFS does; unit tasks; mean of {} instances per row.",
        a.nodes, a.racks, a.replicas, a.runs
    );
    let _ = writeln!(s, "Hadoop's default (seed 000 Sect. 4: an idle node takes a random local task) against ASM1 (optimal semi-matching).");
    let _ = writeln!(s);
    let _ = writeln!(s, "MAKESPAN-ORIENTED: local tasks only (greedy stays idle when it has no local task; ASM1 plans all at once)");
    let _ = writeln!(
        s,
        "{:>7} {:>9} | {:>15} {:>10} | {:>14} {:>10}",
        "tasks", "ceil(T/P)", "greedy makespan", "greedy ms", "ASM1 makespan", "ASM1 ms"
    );
    let policies = [
        PolicyKind::Greedy,
        PolicyKind::Asm1,
        PolicyKind::GreedyComm,
        PolicyKind::Asm1Comm,
    ];
    let mut comm_rows = Vec::new();
    for &tasks in &a.tasks {
        let mut means: Vec<Mean> = policies.iter().map(|_| Mean::default()).collect();
        for run in 0..a.runs {
            let spec = GenSpec {
                nodes: a.nodes,
                tasks,
                replicas: a.replicas,
                racks: a.racks,
                seed: a.seed + run,
                initial_load: 0.0,
                cost,
            };
            let inst = Instance::from_file(generate(&spec)?)?;
            for (i, &policy) in policies.iter().enumerate() {
                let (_, m) = timed_plan(policy.offline_planner()?, &inst, a.seed + run);
                means[i].makespan += m.makespan / a.runs as f64;
                means[i].non_local += m.non_local_fraction / a.runs as f64;
                means[i].ms += m.plan_ms / a.runs as f64;
            }
        }
        let _ = writeln!(
            s,
            "{:>7} {:>9} | {:>15.2} {:>10.3} | {:>14.2} {:>10.3}",
            tasks,
            tasks.div_ceil(a.nodes),
            means[0].makespan,
            means[0].ms,
            means[1].makespan,
            means[1].ms
        );
        comm_rows.push((tasks, means));
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "COMM-ORIENTED: no node idles while work remains; fewer non-local tasks is better"
    );
    let _ = writeln!(
        s,
        "{:>7} | {:>18} {:>10} {:>10} | {:>18} {:>10} {:>10}",
        "tasks", "greedy-comm nonloc", "makespan", "ms", "ASM1-comm nonloc", "makespan", "ms"
    );
    for (tasks, means) in comm_rows {
        let _ = writeln!(
            s,
            "{:>7} | {:>17.1}% {:>10.2} {:>10.3} | {:>17.1}% {:>10.2} {:>10.3}",
            tasks,
            100.0 * means[2].non_local,
            means[2].makespan,
            means[2].ms,
            100.0 * means[3].non_local,
            means[3].makespan,
            means[3].ms
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "Makespan in task units; ms = planning time (greedy: time to play the dispatcher out)."
    );
    let _ = writeln!(s, "Try: spindle generate --nodes 50 --tasks 500 --racks 3 > i.json && spindle plan -i i.json -p asm1 --format table");
    emit(&s)
}

fn cmd_simulate(a: SimulateArgs) -> Result<()> {
    let policies = a
        .policies
        .iter()
        .map(|p| PolicyKind::from_name(p))
        .collect::<Result<Vec<_>, _>>()?;
    let network = match a.network.as_str() {
        "uplink" => NetworkModel::RackUplink,
        other => match other
            .strip_prefix("bar:")
            .and_then(|q| q.parse::<f64>().ok())
        {
            Some(q_ms) if q_ms >= 0.0 => NetworkModel::Bar { q_ms },
            _ => bail!(
                "--network must be `uplink` or `bar:Q` with Q >= 0 milliseconds, got {other:?}"
            ),
        },
    };
    let jobs = match &a.jobs {
        Some(path) => spindle_sim::workload::read_job_file(path)?,
        None => Workload::parse(&a.workload)?.jobs(a.nodes, a.seed, None)?,
    };
    let jobs: Vec<_> = jobs
        .into_iter()
        .take(a.max_jobs.unwrap_or(usize::MAX))
        .collect();
    if jobs.is_empty() {
        bail!("the workload has no jobs");
    }
    let mut cfg = SimConfig {
        nodes: a.nodes,
        racks: a.racks,
        seed: a.seed,
        exact_blocks: a.exact_blocks,
        network,
        slow_fraction: a.slow_fraction,
        slow_speed: a.slow_speed,
        delay: LocalityDelay {
            node_locality_delay: a.node_locality_delay,
            rack_locality_additional_delay: a.rack_locality_additional_delay,
        },
        ..SimConfig::default()
    };
    cfg.set_slots(a.slots);
    if a.record_events.is_some() && policies.len() != 1 {
        bail!("--record-events records one policy; give exactly one --policy");
    }
    cfg.record_events = a.record_events.is_some();
    let mut runs = Vec::with_capacity(policies.len());
    for &policy in &policies {
        cfg.policy = policy;
        let bar = progress_bar(&format!("simulating {policy}"));
        let started = Instant::now();
        let out = simulate(&cfg, &jobs, |f| {
            if started.elapsed().as_secs_f64() > 1.0 && bar.is_hidden() {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            }
            bar.set_position((f * 1000.0) as u64);
        })
        .with_context(|| format!("simulating policy {policy}"))?;
        bar.finish_and_clear();
        if let Some(path) = &a.record_events {
            std::fs::write(path, event_lines(&out.events))
                .with_context(|| format!("writing {}", path.display()))?;
        }
        let mut result = out.result;
        if a.no_wall_clock {
            result.metrics.wall_ms = None;
        }
        runs.push(result);
    }
    if let Some(path) = &a.plot {
        plot::plot(path, &runs)?;
    }
    match a.format {
        Format::Json => {
            let out = serde_json::json!({"seed": a.seed, "policies": runs});
            emit(&(serde_json::to_string_pretty(&out)? + "\n"))
        }
        Format::Table => emit(&simulate_table(&cfg, jobs.len(), &runs)),
    }
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
            SessionEvent::ContainerFinished { node } => writeln!(s, "container_finished\t{node}"),
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
        };
    }
    s
}

fn progress_bar(message: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(1000),
        indicatif::ProgressDrawTarget::hidden(),
    );
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{msg} [{bar:40}] {percent}% of jobs done")
    {
        bar.set_style(style);
    }
    bar.set_message(message.to_string());
    bar
}

fn simulate_table(cfg: &SimConfig, jobs: usize, runs: &[spindle_sim::SimResult]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} nodes in {} racks, {} containers each; {} jobs; seed {}.",
        cfg.nodes,
        cfg.racks,
        cfg.slots(),
        jobs,
        cfg.seed
    );
    let _ = writeln!(
        s,
        "{:<16} {:>10} {:>9} {:>11} {:>8} {:>8} {:>8} {:>6} {:>10} {:>9}",
        "policy",
        "makespan s",
        "mean JCT",
        "TWCT s",
        "node %",
        "rack %",
        "off %",
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
            "{:<16} {:>10.1} {:>9.1} {:>11.1} {:>8.1} {:>8.1} {:>8.1} {:>6.2} {:>10} {:>9}",
            r.policy,
            m.makespan_s,
            m.mean_jct_s,
            m.twct,
            pct(m.node_local),
            pct(m.rack_local),
            pct(m.off_switch),
            m.utilization,
            m.events,
            m.wall_ms.map_or("-".to_string(), |w| format!("{w:.0}"))
        );
    }
    let _ = writeln!(s);
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

fn cmd_bench(a: BenchArgs) -> Result<()> {
    if a.repeat == 0 {
        bail!("--repeat must be at least 1");
    }
    if a.all {
        return emit(&bench_all(&a)?);
    }
    let policy = PolicyKind::from_name(&a.policy)?;
    let planner = policy.offline_planner()?;
    let Some(input) = &a.input else {
        bail!("--input is required without --all");
    };
    let inst = read_instance(input)?;
    let p = &inst.problem;
    let mut times = Vec::with_capacity(a.repeat);
    let mut counts: Vec<u32> = Vec::new();
    let mut ws = Asm1Workspace::default();
    for _ in 0..a.repeat {
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

/// `spindle bench --all`: plan time of every offline planner at each size, in
/// one run on the same generated instances. Repetitions stop early once a
/// cell has used 10 s; a policy whose previous time, scaled by the squared
/// size ratio, would exceed the budget is skipped at that size.
fn bench_all(a: &BenchArgs) -> Result<String> {
    let policies: Vec<PolicyKind> = PolicyKind::ALL
        .into_iter()
        .filter(|p| p.planner().is_some())
        .collect();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "plan time, best of up to {} runs, ms ({} nodes, 3 replicas, initial load U[0, {}], cost local {} remote {} growth {})",
        a.repeat, a.nodes, a.initial_load, a.cost.cost_local, a.cost.cost_remote, a.cost.remote_growth
    );
    let width = policies.iter().map(|p| p.name().len()).max().unwrap_or(6);
    let _ = write!(s, "{:<width$}", "policy");
    for t in &a.tasks {
        let _ = write!(s, " {:>14}", format!("{t} tasks"));
    }
    let _ = writeln!(s);
    let mut instances = Vec::with_capacity(a.tasks.len());
    for (i, &tasks) in a.tasks.iter().enumerate() {
        let spec = GenSpec {
            nodes: a.nodes,
            tasks,
            replicas: 3,
            racks: 1,
            seed: 1 + i as u64,
            initial_load: a.initial_load,
            cost: a.cost.model(),
        };
        instances.push(Instance::from_file(generate(&spec)?)?);
    }
    for policy in policies {
        let planner = policy.offline_planner()?;
        let _ = write!(s, "{:<width$}", policy.name());
        let mut last: Option<(usize, f64)> = None;
        for (inst, &tasks) in instances.iter().zip(&a.tasks) {
            if let Some((prev_tasks, prev_ms)) = last {
                let ratio = tasks as f64 / prev_tasks.max(1) as f64;
                if prev_ms * ratio * ratio > a.budget_s * 1e3 {
                    let _ = write!(s, " {:>14}", "skipped");
                    last = Some((tasks, prev_ms * ratio * ratio));
                    continue;
                }
            }
            let mut best = f64::INFINITY;
            let mut spent = 0.0;
            for run in 0..a.repeat {
                let start = Instant::now();
                let plan = planner.plan(&inst.problem, 1 + run as u64);
                let ms = start.elapsed().as_secs_f64() * 1e3;
                std::hint::black_box(plan);
                best = best.min(ms);
                spent += ms;
                if spent > 10_000.0 {
                    break;
                }
            }
            let _ = write!(s, " {:>14.3}", best);
            last = Some((tasks, best));
        }
        let _ = writeln!(s);
    }
    let _ = writeln!(
        s,
        "skipped: the time at the previous size times the squared size ratio exceeds {} s",
        a.budget_s
    );
    Ok(s)
}

/// Writes to standard output; a closed pipe (`spindle demo | head`) is not an error.
fn emit(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing to standard output"),
    }
}
