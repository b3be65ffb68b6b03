//! S-PC (Aggarwal, Lan, Subramaniam and Xu): the testbed of
//! Sect. VI.A (Fig. 4(a)-(c)) and the large-scale simulation of Sect. VI.B
//! (Fig. 7 and 8), played on S-PC's own schedule model: machines run one task
//! at a time at their speed, so the schedule each policy computes is what
//! runs. Fig. 4 runs also in the YARN simulator (`spindle_sim`, what `spindle
//! simulate` runs: heartbeats, containers, JVM start-up, block reads,
//! shuffle, the MapReduce AM's slow start), with the same jobs ([`Model`]).
//! The paper gives its figures as bars without values; the values
//! printed as `paper` are those its text states (Sect. VI.A and VI.B).
//!
//! A MapReduce job is two jobs of the instance, `map` and `reduce` (after
//! `map`); the reduce stage carries the job's weight and the map stage a
//! thousandth of it ([`MAP_WEIGHT`]); the job's completion is its reduce
//! stage's, and the TWCT printed is over those.

use std::fmt::Write as _;
use std::time::Instant;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use spindle_core::instance::{InstanceFile, JobJson, NodeJson, TaskJson};
use spindle_core::model::Csr;
use spindle_core::spc::online::Resolver;
use spindle_core::spc::{lp, lp_jobs, JobSet, Speeds};
use spindle_core::{CostModel, Instance, JobScheduler, PolicyKind};
use spindle_sim::{simulate, JobSpec, Profile, SimConfig};

use crate::{metrics, setup, Opts, Report, ReproError, Result, Row};

/// Which model Fig. 4 runs in (`spindle repro spc --model`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Model {
    /// S-PC's own schedule model (Fig. 4, 7 and 8).
    Schedule,
    /// The YARN simulator (Fig. 4 only: Fig. 7 and 8 are the paper's own
    /// schedule-model simulation).
    Simulate,
    /// Both, and Fig. 4's best improvements of the two side by side.
    #[default]
    Both,
}

impl Model {
    fn schedule(self) -> bool {
        self != Model::Simulate
    }

    fn simulate(self) -> bool {
        self != Model::Schedule
    }
}

/// Testbed speeds in MB/s (ratio 8, Sect. VI.A). The paper gives the ratio
/// only; 4 and 32 MB/s are ours (a slow core's WordCount rate).
pub const SLOW_MBPS: f64 = 4.0;
pub const FAST_MBPS: f64 = 32.0;

/// The benchmarks of Sect. VI.A as reduce stages: reducers (the paper's:
/// WordCount 1, Sort and TeraSort 4) and reduce work as a fraction of the
/// input (ours: WordCount's output is small, Sort's is its input, TeraSort's
/// I/O-bound reduce counted twice).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bench {
    WordCount,
    Sort,
    TeraSort,
}

impl Bench {
    pub const ALL: [Bench; 3] = [Bench::WordCount, Bench::Sort, Bench::TeraSort];

    pub fn name(self) -> &'static str {
        match self {
            Bench::WordCount => "wordcount",
            Bench::Sort => "sort",
            Bench::TeraSort => "terasort",
        }
    }

    fn reducers(self) -> usize {
        match self {
            Bench::WordCount => 1,
            Bench::Sort | Bench::TeraSort => 4,
        }
    }

    fn reduce_fraction(self) -> f64 {
        match self {
            Bench::WordCount => 0.1,
            Bench::Sort => 1.0,
            Bench::TeraSort => 2.0,
        }
    }

    /// The simulator's job shape and per-MB costs for it.
    fn profile(self) -> Profile {
        match self {
            Bench::WordCount => Profile::Wordcount,
            Bench::Sort => Profile::Sort,
            Bench::TeraSort => Profile::Terasort,
        }
    }
}

/// The job mixes of Fig. 4: (jobs, input MB, task MB).
pub fn fig4_mix(fig: char) -> &'static [(usize, f64, f64)] {
    match fig {
        'a' => &[(20, 1024.0, 64.0)],
        'b' => &[(12, 1024.0, 64.0), (4, 512.0, 32.0), (4, 2048.0, 128.0)],
        _ => &[(6, 1024.0, 64.0), (6, 512.0, 32.0), (6, 2048.0, 128.0)],
    }
}

fn node(i: usize, speed: f64) -> NodeJson {
    NodeJson {
        host: format!("n{i:03}"),
        rack: "/default-rack".into(),
        speed,
        slots: 1,
        initial_load: 0.0,
    }
}

fn task(id: String, size: f64) -> TaskJson {
    TaskJson {
        id,
        replicas: Vec::new(),
        size,
    }
}

/// The map stage's share of its job's weight: the objective is the jobs'
/// completion, i.e. the reduce stages'; a map stage only needs to be early
/// enough for its reduce (its weight must be positive in an instance).
pub const MAP_WEIGHT: f64 = 1e-3;

/// A MapReduce job as its two stages.
fn mapreduce(id: &str, weight: f64, release: f64, maps: &[f64], reduces: &[f64]) -> [JobJson; 2] {
    let map_id = format!("{id}-map");
    [
        JobJson {
            id: map_id.clone(),
            weight: weight * MAP_WEIGHT,
            release,
            after: Vec::new(),
            tasks: maps
                .iter()
                .enumerate()
                .map(|(i, &s)| task(format!("{id}-m{i}"), s))
                .collect(),
        },
        JobJson {
            id: format!("{id}-reduce"),
            weight,
            release,
            after: vec![map_id],
            tasks: reduces
                .iter()
                .enumerate()
                .map(|(i, &s)| task(format!("{id}-r{i}"), s))
                .collect(),
        },
    ]
}

/// Machines of the testbed (Sect. VI.A), half of them fast (the split is ours).
pub const TESTBED_MACHINES: usize = 12;

/// One MapReduce job of the Fig. 4 testbed, as either model runs it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TestbedJob {
    pub input_mb: f64,
    /// Task (block) size.
    pub block_mb: f64,
    /// Uniform in [1, 5].
    pub weight: f64,
    /// 0 or 60 s: two release groups of equal size.
    pub release_s: f64,
}

/// The jobs of Fig. 4(`fig`) for a run: the mix in random order, weights
/// uniform in [1, 5], the first half released at 0 and the rest at 60 s.
pub fn testbed_jobs(fig: char, seed: u64) -> Vec<TestbedJob> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut sizes: Vec<(f64, f64)> = Vec::new();
    for &(count, input, block) in fig4_mix(fig) {
        sizes.extend(std::iter::repeat_n((input, block), count));
    }
    sizes.shuffle(&mut rng);
    let half = sizes.len() / 2;
    sizes
        .iter()
        .enumerate()
        .map(|(k, &(input_mb, block_mb))| TestbedJob {
            input_mb,
            block_mb,
            weight: rng.gen_range(1.0..=5.0),
            release_s: if k < half { 0.0 } else { 60.0 },
        })
        .collect()
}

/// Sect. VI.A in the schedule model: 12 machines, 6 fast and 6 slow, one
/// task at a time; the jobs of [`testbed_jobs`].
pub fn testbed(fig: char, bench: Bench, seed: u64) -> InstanceFile {
    let nodes = (0..TESTBED_MACHINES)
        .map(|i| node(i, if i % 2 == 0 { FAST_MBPS } else { SLOW_MBPS }))
        .collect();
    let mut jobs = Vec::new();
    for (k, j) in testbed_jobs(fig, seed).iter().enumerate() {
        let maps = vec![j.block_mb; (j.input_mb / j.block_mb).ceil() as usize];
        let r = bench.reducers();
        let reduces = vec![j.input_mb * bench.reduce_fraction() / r as f64; r];
        jobs.extend(mapreduce(
            &format!("j{k:02}"),
            j.weight,
            j.release_s,
            &maps,
            &reduces,
        ));
    }
    InstanceFile {
        nodes,
        tasks: Vec::new(),
        jobs,
        cost: CostModel::default(),
    }
}

/// Sect. VI.B: `machines` with Gaussian speeds (mean 50 MB/s, sd 10, at
/// least 5), `jobs` MapReduce jobs of 1-50 map and 1-50 reduce tasks
/// (uniform), weights uniform in [1, w_max], all released at 0. Map tasks
/// are 1,000 MB (ours; the paper sweeps the reduce task size only).
pub fn large(jobs: usize, machines: usize, w_max: f64, reduce_mb: f64, seed: u64) -> InstanceFile {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let nodes = (0..machines)
        .map(|i| {
            // Box-Muller: rand 0.8 has no normal distribution without rand_distr.
            let (u, v): (f64, f64) = (rng.gen_range(f64::EPSILON..1.0), rng.gen());
            let z = (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos();
            node(i, (50.0 + 10.0 * z).max(5.0))
        })
        .collect();
    let mut out = Vec::new();
    for k in 0..jobs {
        let maps = vec![1000.0; rng.gen_range(1..=50)];
        let reduces = vec![reduce_mb; rng.gen_range(1..=50)];
        let w = rng.gen_range(1.0..=w_max.max(1.0));
        out.extend(mapreduce(&format!("j{k:03}"), w, 0.0, &maps, &reduces));
    }
    InstanceFile {
        nodes,
        tasks: Vec::new(),
        jobs: out,
        cost: CostModel::default(),
    }
}

/// Total weighted completion time of the MapReduce jobs (their reduce stages).
fn job_twct(jobs: &JobSet, completion: &[f64]) -> f64 {
    (0..jobs.len())
        .filter(|&j| jobs.ids[j].ends_with("-reduce"))
        .map(|j| jobs.weight[j] * completion[j])
        .sum()
}

/// The job scheduler of a registry line (the lists here hold only job
/// schedulers).
fn scheduler(kind: PolicyKind) -> Result<&'static dyn JobScheduler> {
    kind.job_scheduler()
        .ok_or_else(|| ReproError::Invalid(format!("policy {kind} schedules no jobs")))
}

fn twct_of(kind: PolicyKind, file: InstanceFile, seed: u64) -> Result<f64> {
    let inst = Instance::from_file(file)?;
    let jobs = JobSet::from_instance(&inst);
    let o = scheduler(kind)?
        .schedule(&jobs, &inst.problem, seed)
        .map_err(|e| ReproError::Invalid(format!("policy {}: {e}", kind.name())))?;
    Ok(job_twct(&jobs, &o.schedule.completion))
}

/// A policy as Fig. 4 runs it: the row's label, the policy and, in the
/// simulator, the MapReduce AM's reduce slow start.
#[derive(Clone, Copy, Debug)]
struct Contender {
    label: &'static str,
    kind: PolicyKind,
    /// `mapreduce.job.reduce.slowstart.completedmaps` (simulator only).
    slowstart: f64,
}

/// Hadoop's default slow start: reducers are asked for once 5 % of the maps are done.
const HADOOP_SLOWSTART: f64 = 0.05;
/// Reducers asked for once every map is done: S-PC's schedule (Algorithm 2
/// starts a reduce after its maps) and the paper's setup text for FIFO.
const AFTER_MAPS: f64 = 1.0;

const fn contender(label: &'static str, kind: PolicyKind, slowstart: f64) -> Contender {
    Contender {
        label,
        kind,
        slowstart,
    }
}

/// S-PC first, then the paper's three baselines (Sect. VI.A). In the
/// schedule model FIFO's reducers hold machines from their release
/// (`policy::fifo`), whatever `slowstart` says.
const CONTENDERS: [Contender; 4] = [
    contender("spc", PolicyKind::Spc, AFTER_MAPS),
    contender("fifo", PolicyKind::Fifo, HADOOP_SLOWSTART),
    contender("spc-identical", PolicyKind::SpcIdentical, AFTER_MAPS),
    contender("spc-map-only", PolicyKind::SpcMapOnly, AFTER_MAPS),
];

/// The simulator runs the four of [`CONTENDERS`], then S-PC and FIFO each
/// under the other reading of its slow start.
const SIM_CONTENDERS: [Contender; 6] = [
    CONTENDERS[0],
    CONTENDERS[1],
    CONTENDERS[2],
    CONTENDERS[3],
    contender("fifo slowstart=1", PolicyKind::Fifo, AFTER_MAPS),
    contender("spc slowstart=0.05", PolicyKind::Spc, HADOOP_SLOWSTART),
];

/// The paper's "outperforms ... by up to" of Fig. 4(a) and 4(b), Sect. VI.A.
fn fig4_paper(fig: char, kind: PolicyKind) -> Option<f64> {
    match (fig, kind) {
        ('a', PolicyKind::Fifo) => Some(0.62),
        ('a', PolicyKind::SpcIdentical) => Some(0.68),
        ('a', PolicyKind::SpcMapOnly) => Some(0.45),
        ('b', PolicyKind::Fifo) => Some(0.80),
        ('b', PolicyKind::SpcIdentical) => Some(0.65),
        ('b', PolicyKind::SpcMapOnly) => Some(0.52),
        _ => None,
    }
}

/// MiB, the simulator's MB.
const MIB: f64 = (1u64 << 20) as f64;

/// Sect. VI.A in the YARN simulator: 12 nodes of one container each (one
/// task at a time), one rack behind 1 Gbit/s NICs, half of them computing at
/// 1/8 the speed of the others (reads, shuffle and writes run at the same
/// rates on both); the jobs of [`testbed_jobs`], each job's input in blocks
/// of its task size, shaped and costed by the simulator's profile of the
/// benchmark, with the paper's reducer counts.
pub fn sim_testbed(
    fig: char,
    bench: Bench,
    seed: u64,
    policy: PolicyKind,
    slowstart: f64,
) -> Result<(SimConfig, Vec<JobSpec>)> {
    let mut cfg = SimConfig {
        nodes: TESTBED_MACHINES,
        racks: 1,
        slow_fraction: 0.5,
        slow_speed: SLOW_MBPS / FAST_MBPS,
        slowstart,
        policy,
        seed,
        ..SimConfig::default()
    };
    cfg.set_slots(1).map_err(ReproError::Invalid)?;
    let jobs = testbed_jobs(fig, seed)
        .iter()
        .enumerate()
        .map(|(k, j)| {
            let mut spec = JobSpec::shaped(
                format!("j{k:02}"),
                (j.release_s * 1e3) as u64,
                (j.input_mb * MIB) as u64,
                bench.profile(),
            );
            spec.reduces = bench.reducers() as u32;
            spec.weight = j.weight;
            spec.block_size = Some((j.block_mb * MIB) as u64);
            spec
        })
        .collect();
    Ok((cfg, jobs))
}

/// One simulated run: TWCT (weight x finish time from 0, as in the
/// schedule model; the simulator's own `twct` counts from submission) and
/// the share of reduce tasks that ran on slow nodes.
fn sim_twct(c: &Contender, fig: char, bench: Bench, seed: u64) -> Result<(f64, f64)> {
    let (mut cfg, jobs) = sim_testbed(fig, bench, seed, c.kind, c.slowstart)?;
    cfg.record_tasks = true;
    let out = simulate(&cfg, &jobs, |_| {})?;
    let twct = out
        .result
        .jobs
        .iter()
        .zip(&jobs)
        .map(|(r, j)| j.weight * r.finish_s)
        .sum();
    let reduces = out.tasks.iter().filter(|t| t.reduce);
    let slow = reduces
        .clone()
        .filter(|t| cfg.speed(t.node as usize) < 1.0)
        .count();
    Ok((twct, slow as f64 / reduces.count().max(1) as f64))
}

/// One model's Fig. 4(`fig`): the report, and S-PC's largest improvement
/// over each contender across the benchmarks (S-PC's own entry unused).
struct Fig4 {
    report: Report,
    best: Vec<f64>,
}

fn fig4(fig: char, model: Model, opts: &Opts) -> Result<Fig4> {
    let simulated = model == Model::Simulate;
    let contenders: &[Contender] = if simulated {
        &SIM_CONTENDERS
    } else {
        &CONTENDERS
    };
    let n = contenders.len();
    let runs = opts.runs_or(10);
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    let mut best = vec![f64::NEG_INFINITY; n];
    let mut spc_best_everywhere = true;
    let mut fifo_min = f64::INFINITY;
    for bench in Bench::ALL {
        let mut sum = vec![0.0; n];
        let mut slow_reduces = vec![0.0; n];
        for run in 0..runs {
            let seed = opts.seed.wrapping_mul(1000).wrapping_add(run as u64);
            let mut t = vec![0.0; n];
            for (k, c) in contenders.iter().enumerate() {
                t[k] = if simulated {
                    let (twct, slow) = sim_twct(c, fig, bench, seed)?;
                    slow_reduces[k] += slow;
                    twct
                } else {
                    twct_of(c.kind, testbed(fig, bench, seed), seed)?
                };
                sum[k] += t[k];
            }
            fifo_min = fifo_min.min(1.0 - t[0] / t[1]);
            opts.progress.inc(1);
        }
        for (k, c) in contenders.iter().enumerate() {
            let mean = sum[k] / runs as f64;
            let improvement = 1.0 - sum[0] / sum[k];
            if k > 0 {
                best[k] = best[k].max(improvement);
                // The paper's claim is over its four.
                spc_best_everywhere &= k >= CONTENDERS.len() || improvement >= 0.0;
            }
            let mut ours = metrics([("twct_s", mean), ("spc_improvement", improvement)]);
            if simulated {
                let pct = 100.0 * slow_reduces[k] / runs as f64;
                ours.insert("reduces_on_slow_pct".into(), pct);
            }
            rows.push(Row {
                setup: setup([
                    ("fig", format!("4({fig})").into()),
                    ("benchmark", bench.name().into()),
                    ("runs", runs.into()),
                ]),
                policy: c.label.into(),
                ours,
                paper: None,
            });
        }
    }
    for (k, c) in contenders.iter().enumerate().skip(1) {
        rows.push(Row {
            setup: setup([
                ("fig", format!("4({fig})").into()),
                ("benchmark", "best of the three".into()),
                ("runs", runs.into()),
            ]),
            policy: c.label.into(),
            ours: metrics([("spc_improvement_up_to", best[k])]),
            paper: (k < CONTENDERS.len())
                .then(|| fig4_paper(fig, c.kind))
                .flatten()
                .map(|p| metrics([("spc_improvement_up_to", p)])),
        });
    }
    notes.push(format!(
        "claim (Sect. VI.A): S-PC has the lowest TWCT of the four in every benchmark: {}",
        if spc_best_everywhere {
            "holds"
        } else {
            "does not hold"
        }
    ));
    if fig == 'b' {
        notes.push(format!(
            "claim (Sect. VI.A, Fig. 4(b)): S-PC outperforms FIFO by at least 36%: {} (our least improvement in a run: {:.1}%)",
            if fifo_min >= 0.36 { "holds" } else { "does not hold" },
            100.0 * fifo_min
        ));
    }
    if simulated {
        notes.push(format!(
            "YARN simulator (spindle simulate's engine): {TESTBED_MACHINES} nodes of one container, one rack, 1 Gbit/s NICs, 6 nodes computing at 1/8 speed (reads, shuffle, writes not slowed), heartbeats 1 s, JVM start-up 1-3 s, 3 replicas; profiles wordcount (1 reducer), sort, terasort (4 reducers each), each job's blocks at its task size; spc, spc-identical and spc-map-only ask for reducers once every map is done (slowstart 1: Algorithm 2 starts a reduce after its maps), fifo at Hadoop's slowstart 0.05 (the paper's results text: FIFO's reducers take machines early); the slowstart= rows swap the two readings; TWCT: weight x finish time from 0, as in the schedule model; reduces_on_slow_pct: reduce tasks run on a slow node"
        ));
    } else {
        notes.push(format!(
            "machines: 6 at {FAST_MBPS} MB/s and 6 at {SLOW_MBPS} MB/s (the paper gives the ratio 8 only); reduce work: wordcount 10% of the input in 1 reducer, sort 100% in 4, terasort 200% in 4 (ours); FIFO's reducers hold a machine from their release (Hadoop's slow-start); paper values: the text of Sect. VI.A (the bars carry no numbers)"
        ));
    }
    Ok(Fig4 {
        report: Report {
            experiment: if simulated {
                format!("spc-fig4{fig}-simulated")
            } else {
                format!("spc-fig4{fig}")
            },
            notes,
            rows,
        },
        best,
    })
}

/// Fig. 4's best improvements of both models beside the paper's.
fn fig4_models(figs: &[(char, Fig4, Fig4)]) -> Report {
    let mut rows = Vec::new();
    for (fig, schedule, simulated) in figs {
        for (k, c) in CONTENDERS.iter().enumerate().skip(1) {
            for (model, out) in [("schedule", schedule), ("simulate", simulated)] {
                rows.push(Row {
                    setup: setup([("fig", format!("4({fig})").into()), ("model", model.into())]),
                    policy: c.label.into(),
                    ours: metrics([("spc_improvement_up_to", out.best[k])]),
                    paper: fig4_paper(*fig, c.kind)
                        .map(|p| metrics([("spc_improvement_up_to", p)])),
                });
            }
        }
    }
    Report {
        experiment: "spc-fig4-models".into(),
        notes: vec![
            "S-PC's largest mean improvement over each baseline across WordCount, Sort and TeraSort, in the schedule model (spc-fig4X) and the YARN simulator (spc-fig4X-simulated), same jobs, weights and seeds; paper: Sect. VI.A's text (none for Fig. 4(c))".into(),
        ],
        rows,
    }
}

const LARGE_POLICIES: [PolicyKind; 4] = [
    PolicyKind::Spc,
    PolicyKind::Huwf,
    PolicyKind::Tetris,
    PolicyKind::Fifo,
];

/// Fig. 7 (reduce task MB 600 -> 1400) and Fig. 8 (W_max 2 -> 18): the
/// paper's increases in TWCT between the ends of each sweep (Sect. VI.B).
fn large_paper(fig: u8, kind: PolicyKind) -> (f64, Option<f64>) {
    match (fig, kind) {
        (7, PolicyKind::Spc) => (44680.0, Some(0.2098)),
        (7, PolicyKind::Huwf) => (48730.0, Some(0.2169)),
        (7, PolicyKind::Tetris) => (51321.0, Some(0.218)),
        (7, _) => (78977.0, Some(0.2358)),
        (_, PolicyKind::Spc) => (330873.0, None),
        (_, PolicyKind::Huwf) => (361123.0, None),
        (_, PolicyKind::Tetris) => (388214.0, None),
        _ => (561185.0, None),
    }
}

fn large_fig(fig: u8, opts: &Opts) -> Result<Report> {
    let runs = opts.runs_or(20);
    let (jobs, machines) = if opts.quick { (20, 20) } else { (100, 100) };
    let points: Vec<f64> = match (fig, opts.quick) {
        (7, true) => vec![600.0, 1400.0],
        (7, false) => vec![600.0, 800.0, 1000.0, 1200.0, 1400.0],
        (_, true) => vec![2.0, 18.0],
        _ => vec![2.0, 6.0, 10.0, 14.0, 18.0],
    };
    let mut rows = Vec::new();
    let mut means: Vec<[f64; 4]> = Vec::new();
    let mut spc_lowest = true;
    for &x in &points {
        let mut sum = [0.0; 4];
        for run in 0..runs {
            let seed = opts.seed.wrapping_mul(1000).wrapping_add(run as u64);
            let (w_max, reduce_mb) = if fig == 7 { (10.0, x) } else { (x, 1000.0) };
            for (k, kind) in LARGE_POLICIES.iter().enumerate() {
                sum[k] += twct_of(*kind, large(jobs, machines, w_max, reduce_mb, seed), seed)?;
            }
            opts.progress.inc(1);
        }
        let mean = sum.map(|s| s / runs as f64);
        spc_lowest &= mean[1..].iter().all(|&m| mean[0] <= m);
        for (k, kind) in LARGE_POLICIES.iter().enumerate() {
            rows.push(Row {
                setup: setup([
                    ("fig", fig.into()),
                    (if fig == 7 { "reduce_mb" } else { "w_max" }, x.into()),
                    ("jobs", jobs.into()),
                    ("machines", machines.into()),
                    ("runs", runs.into()),
                ]),
                policy: kind.name().into(),
                ours: metrics([("twct_s", mean[k])]),
                paper: None,
            });
        }
        means.push(mean);
    }
    let (first, last) = (means[0], means[means.len() - 1]);
    let mut smallest_increase = true;
    for (k, kind) in LARGE_POLICIES.iter().enumerate() {
        let inc = last[k] - first[k];
        if k > 0 && inc < last[0] - first[0] {
            smallest_increase = false;
        }
        let (p_inc, p_rel) = large_paper(fig, *kind);
        let mut ours = metrics([("twct_increase_s", inc)]);
        let mut paper = metrics([("twct_increase_s", p_inc)]);
        if let Some(r) = p_rel {
            ours.insert("twct_increase_rel".into(), inc / first[k]);
            paper.insert("twct_increase_rel".into(), r);
        }
        rows.push(Row {
            setup: setup([
                ("fig", fig.into()),
                (
                    "sweep",
                    format!("{} -> {}", points[0], points[points.len() - 1]).into(),
                ),
            ]),
            policy: kind.name().into(),
            ours,
            paper: Some(paper),
        });
    }
    let notes = vec![
        format!(
            "claim (Sect. VI.B): S-PC has the lowest TWCT at every point: {}",
            if spc_lowest { "holds" } else { "does not hold" }
        ),
        format!(
            "claim (Sect. VI.B): S-PC's TWCT grows least over the sweep: {}",
            if smallest_increase { "holds" } else { "does not hold" }
        ),
        "map tasks 1,000 MB and releases at 0 are ours (the paper states neither); increases are in seconds of our model, the paper's in its own units: compare the ordering and the relative increase".into(),
    ];
    Ok(Report {
        experiment: format!("spc-fig{fig}"),
        notes,
        rows,
    })
}

/// Every experiment of the S-PC paper in the models `opts.spc_model` asks
/// for (Fig. 7 and 8: schedule model only).
pub fn run(opts: &Opts) -> Result<Vec<Report>> {
    let model = opts.spc_model;
    let fig4_runs = opts.runs_or(10) * Bench::ALL.len() * 3;
    let large_points = if opts.quick { 2 } else { 5 };
    let mut length = 0;
    if model.schedule() {
        length += fig4_runs + 2 * large_points * opts.runs_or(20);
    }
    if model.simulate() {
        length += fig4_runs;
    }
    opts.progress.set_length(length as u64);
    let mut figs = Vec::new();
    for fig in ['a', 'b', 'c'] {
        let run_in = |m: Model| -> Result<Option<Fig4>> {
            let wanted = if m == Model::Schedule {
                model.schedule()
            } else {
                model.simulate()
            };
            if !wanted {
                return Ok(None);
            }
            opts.progress
                .set_message(format!("spc fig. 4({fig}), {m:?} model"));
            fig4(fig, m, opts).map(Some)
        };
        figs.push((fig, run_in(Model::Schedule)?, run_in(Model::Simulate)?));
    }
    let mut out: Vec<Report> = figs
        .iter()
        .filter_map(|(_, s, _)| s.as_ref().map(|f| f.report.clone()))
        .collect();
    out.extend(
        figs.iter()
            .filter_map(|(_, _, m)| m.as_ref().map(|f| f.report.clone())),
    );
    if model == Model::Both {
        let both: Vec<(char, Fig4, Fig4)> = figs
            .into_iter()
            .filter_map(|(fig, s, m)| Some((fig, s?, m?)))
            .collect();
        out.push(fig4_models(&both));
    }
    if model.schedule() {
        for fig in [7, 8] {
            opts.progress.set_message(format!("spc fig. {fig}"));
            out.push(large_fig(fig, opts)?);
        }
    }
    Ok(out)
}

/// `spindle bench --spc`: LP-Schedule and full S-PC plan time on Sect. VI.B
/// instances of `jobs` LP jobs (jobs / 2 MapReduce jobs of two stages) on
/// jobs / 2 machines, and the online re-solve (item 5) at the first 3 job
/// departures, warm from the previous cuts and cold.
/// The benches' instance of `n` jobs (n/2 MapReduce jobs on n/2 machines):
/// MapReduce jobs, instance, job set, speeds, LP jobs.
fn bench_case(n: usize) -> Result<(usize, Instance, JobSet, Speeds, Vec<lp::LpJob>)> {
    let half = (n / 2).max(1);
    let inst = Instance::from_file(large(half, half, 10.0, 1000.0, 7))?;
    let jobs = JobSet::from_instance(&inst);
    let speeds = Speeds::of(&inst.problem);
    let lj = lp_jobs(&jobs, &speeds);
    Ok((half, inst, jobs, speeds, lj))
}

/// `bench_map_only` times the cutting planes too up to this many LP jobs.
const CUTTING_PLANES_UP_TO: usize = 500;
/// `bench` times the cold cutting planes beside [`lp::solve`] up to this
/// many LP jobs by default (minutes at 1,000; `--cold-up-to`).
pub const COLD_UP_TO: usize = 1000;

/// Map-only's LP: the jobs without predecessors (the map stages), and no edges.
fn map_stages(jobs: &JobSet, lj: &[lp::LpJob]) -> (Vec<lp::LpJob>, Csr) {
    let roots: Vec<lp::LpJob> = (0..jobs.len())
        .filter(|&j| jobs.after.degree(j) == 0)
        .map(|j| lj[j])
        .collect();
    let none = Csr::from_rows(roots.iter().map(|_| std::iter::empty::<u32>()));
    (roots, none)
}

/// `spindle bench --spc --map-only`: Map-only's LP (the map stages of the
/// Sect. VI.B instances, no precedence) by the exact greedy, best of `repeat`.
pub fn bench_map_only(job_counts: &[usize], repeat: usize) -> Result<String> {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "S-PC Map-only's LP (the map stages of N/2 MapReduce jobs, no precedence) by the exact greedy (lp::solve_independent), best of {repeat} runs"
    );
    let _ = writeln!(
        s,
        "{:>6} {:>8} {:>10} {:>12} {:>16} {:>18} {:>16}",
        "jobs", "mr jobs", "lp jobs", "greedy ms", "objective", "cutting planes ms", "objective"
    );
    for &n in job_counts {
        let (half, _, jobs, speeds, lj) = bench_case(n)?;
        let (roots, none) = map_stages(&jobs, &lj);
        let invalid = |e: spindle_core::spc::SpcError| ReproError::Invalid(e.to_string());
        let mut ms = f64::INFINITY;
        let mut objective = 0.0;
        for _ in 0..repeat.max(1) {
            let t = Instant::now();
            let sol = lp::solve(&roots, &none, speeds.mu(), &[]).map_err(invalid)?;
            ms = ms.min(t.elapsed().as_secs_f64() * 1e3);
            objective = sol.objective;
        }
        // The same LP by the cutting planes, once, where they take seconds at most.
        let (cp_ms, cp_obj) = if roots.len() <= CUTTING_PLANES_UP_TO {
            let t = Instant::now();
            let sol = lp::cutting_planes(&roots, &none, speeds.mu(), &[]).map_err(invalid)?;
            (
                format!("{:.2}", t.elapsed().as_secs_f64() * 1e3),
                format!("{:.6e}", sol.objective),
            )
        } else {
            ("-".to_string(), "-".to_string())
        };
        let _ = writeln!(
            s,
            "{:>6} {:>8} {:>10} {:>12.2} {:>16.6e} {:>18} {:>16}",
            jobs.len(),
            half,
            roots.len(),
            ms,
            objective,
            cp_ms,
            cp_obj
        );
    }
    Ok(s)
}

/// `spindle bench --spc`; the cold cutting planes only up to `cold_up_to` LP jobs.
pub fn bench(job_counts: &[usize], repeat: usize, cold_up_to: usize) -> Result<String> {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "S-PC on the S-PC paper's Sect. VI.B instances (N jobs = N/2 MapReduce jobs of a map and a reduce stage, N/2 machines, 1-50 map and 1-50 reduce tasks a MapReduce job), best of {repeat} runs"
    );
    let _ = writeln!(
        s,
        "{:>6} {:>8} {:>8} {:>10} {:>8} {:>16} {:>12} {:>8} {:>16} {:>12} {:>14} {:>14} {:>13} {:>10}",
        "jobs",
        "mr jobs",
        "tasks",
        "lp ms",
        "cuts",
        "objective",
        "cold lp ms",
        "cuts",
        "objective",
        "plan ms",
        "resolve warm",
        "resolve cold",
        "map-only ms",
        "lp cpu ms"
    );
    for &n in job_counts {
        let (half, inst, jobs, speeds, lj) = bench_case(n)?;
        let invalid = |e: spindle_core::spc::SpcError| ReproError::Invalid(e.to_string());
        let (mut lp_ms, mut plan_ms) = (f64::INFINITY, f64::INFINITY);
        // Map-only's LP: the map stages (no predecessors), by the greedy.
        let (roots, no_preds) = map_stages(&jobs, &lj);
        let mut map_only_ms = f64::INFINITY;
        let mut lp_cpu_ms = f64::INFINITY;
        let (mut cuts, mut objective) = (0, 0.0);
        for _ in 0..repeat.max(1) {
            let t = Instant::now();
            lp::solve(&roots, &no_preds, speeds.mu(), &[]).map_err(invalid)?;
            map_only_ms = map_only_ms.min(t.elapsed().as_secs_f64() * 1e3);
            let (t, cpu) = (Instant::now(), crate::churn::thread_cpu_ms());
            let sol = lp::solve(&lj, &jobs.after, speeds.mu(), &[]).map_err(invalid)?;
            lp_ms = lp_ms.min(t.elapsed().as_secs_f64() * 1e3);
            lp_cpu_ms = lp_cpu_ms.min(crate::churn::thread_cpu_ms() - cpu);
            cuts = sol.cuts.len();
            objective = sol.objective;
            let t = Instant::now();
            scheduler(PolicyKind::Spc)?
                .schedule(&jobs, &inst.problem, 0)
                .map_err(invalid)?;
            plan_ms = plan_ms.min(t.elapsed().as_secs_f64() * 1e3);
        }
        // The same LP by the cold cutting planes (the solver before the chain start), once.
        let cold = if lj.len() <= cold_up_to {
            let t = Instant::now();
            let sol = lp::cutting_planes(&lj, &jobs.after, speeds.mu(), &[]).map_err(invalid)?;
            (
                format!("{:.1}", t.elapsed().as_secs_f64() * 1e3),
                sol.cuts.len().to_string(),
                format!("{:.9e}", sol.objective),
            )
        } else {
            ("-".to_string(), "-".to_string(), "-".to_string())
        };
        // Online: re-solve at the first 10 job departures of S-PC's schedule.
        let o = scheduler(PolicyKind::Spc)?
            .schedule(&jobs, &inst.problem, 0)
            .map_err(invalid)?;
        let mut departures: Vec<f64> = o.schedule.completion.clone();
        departures.sort_by(f64::total_cmp);
        let (mut warm_ms, mut cold_ms, mut events) = (0.0, 0.0, 0);
        let mut resolver = Resolver::default();
        resolver
            .resolve(&jobs, &speeds, &jobs.task_size, 0.0, true)
            .map_err(invalid)?;
        for &now in departures.iter().take(3) {
            let remaining: Vec<f64> = (0..jobs.task_size.len())
                .map(|t| {
                    let (st, en) = (o.schedule.start[t], o.schedule.end[t]);
                    if en <= now {
                        0.0
                    } else if st >= now {
                        jobs.task_size[t]
                    } else {
                        jobs.task_size[t] * (en - now) / (en - st)
                    }
                })
                .collect();
            let t = Instant::now();
            resolver
                .resolve(&jobs, &speeds, &remaining, now, true)
                .map_err(invalid)?;
            warm_ms += t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now();
            Resolver::default()
                .resolve(&jobs, &speeds, &remaining, now, false)
                .map_err(invalid)?;
            cold_ms += t.elapsed().as_secs_f64() * 1e3;
            events += 1;
        }
        let ev = events.max(1) as f64;
        let _ = writeln!(
            s,
            "{:>6} {:>8} {:>8} {:>10.1} {:>8} {:>16.9e} {:>12} {:>8} {:>16} {:>12.1} {:>11.1} ms {:>11.1} ms {:>13.2} {:>10.1}",
            jobs.len(),
            half,
            jobs.task_size.len(),
            lp_ms,
            cuts,
            objective,
            cold.0,
            cold.1,
            cold.2,
            plan_ms,
            warm_ms / ev,
            cold_ms / ev,
            map_only_ms,
            lp_cpu_ms
        );
    }
    let _ = writeln!(
        s,
        "resolve: mean time of one re-solve with the remaining work at each of the first 3 job departures (warm: from the previous solve's cuts); lp: lp::solve (chains of prefix sets by an interior point method, lp::chain_ipm); cuts: its optimum's tight prefixes, cold: lp::cutting_planes (no chain), once, up to {cold_up_to} LP jobs; lp cpu: the solving thread's CPU time of lp::solve (best of the runs)"
    );
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_models_run_the_same_jobs() {
        for fig in ['a', 'b', 'c'] {
            let inst = testbed(fig, Bench::TeraSort, 4);
            let (cfg, jobs) =
                sim_testbed(fig, Bench::TeraSort, 4, PolicyKind::Spc, AFTER_MAPS).unwrap();
            assert_eq!((cfg.nodes, cfg.racks, cfg.slots()), (12, 1, 1));
            let slow = (0..12).filter(|&n| cfg.speed(n) == 0.125).count();
            assert_eq!(slow, 6);
            assert!((0..12).all(|n| [0.125, 1.0].contains(&cfg.speed(n))));
            assert_eq!(2 * jobs.len(), inst.jobs.len());
            for (spec, stages) in jobs.iter().zip(inst.jobs.chunks(2)) {
                let (map, reduce) = (&stages[0], &stages[1]);
                assert_eq!(spec.weight, reduce.weight);
                assert_eq!(spec.submit_ms as f64, map.release * 1e3);
                assert_eq!(spec.maps(cfg.block_size) as usize, map.tasks.len());
                let block_mb = spec.block_bytes(cfg.block_size) as f64 / MIB;
                assert_eq!(block_mb, map.tasks[0].size);
                assert_eq!(spec.reduce_count() as usize, reduce.tasks.len());
                assert_eq!(spec.profile, Profile::Terasort);
            }
        }
    }

    #[test]
    fn every_contender_finishes_the_simulated_testbed() {
        let jobs = testbed_jobs('a', 1);
        let least: f64 = jobs.iter().map(|j| j.weight * j.release_s).sum();
        for c in &SIM_CONTENDERS {
            let (t, slow) = sim_twct(c, 'a', Bench::WordCount, 1).unwrap();
            // Every job ends after its release, with work to do.
            assert!(t > least, "{}: {t}", c.label);
            assert!((0.0..=1.0).contains(&slow));
        }
    }

    #[test]
    fn testbed_has_the_papers_shape() {
        let f = testbed('b', Bench::Sort, 3);
        assert_eq!(f.nodes.len(), 12);
        assert_eq!(f.jobs.len(), 40);
        let maps: usize = f.jobs.iter().step_by(2).map(|j| j.tasks.len()).sum();
        // 12 x 16 + 4 x 16 + 4 x 16 map tasks.
        assert_eq!(maps, 320);
        assert!(f.jobs.iter().skip(1).step_by(2).all(|j| j.tasks.len() == 4));
        assert_eq!(f.jobs.iter().filter(|j| j.release == 60.0).count(), 20);
        let reduces = f.jobs.iter().skip(1).step_by(2);
        assert!(reduces.clone().all(|j| (1.0..=5.0).contains(&j.weight)));
        assert!(f
            .jobs
            .iter()
            .step_by(2)
            .zip(reduces)
            .all(|(m, r)| m.weight == r.weight * MAP_WEIGHT));
    }
}
