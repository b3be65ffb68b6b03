//! The discrete-event loop: node managers, the MapReduce AMs, HDFS reads, and
//! the Session playing the ResourceManager's scheduler.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use spindle_core::generate::Placement;
use spindle_core::session::{ActivitiesReport, Planning, SessionEvent, ANY};
use spindle_core::{AppId, Grant, Locality, Resources, Session, SessionConfig, SessionError};
use thiserror::Error;

use crate::config::{Layout, NetworkModel, SimConfig};
use crate::report::{JobResult, SimMetrics, SimResult};
use crate::workload::JobSpec;

/// MapReduce AM priorities (RMContainerAllocator).
pub const PRIORITY_MAP: i32 = 20;
pub const PRIORITY_REDUCE: i32 = 10;
/// With work left, a cluster where no container was granted, started or
/// finished for this long has stalled (no simulated task lasts this long).
const STALL_MS: u64 = 4 * 3_600_000;
/// The slowest node speed the simulator takes. Every node heartbeats each
/// second of simulated time while a task runs, so a node 1e9 times slower
/// kept one 1 MB map running for years of heartbeats (an hour of wall time)
/// before any horizon was reached.
const MIN_SLOW_SPEED: f64 = 1e-3;
const MB: f64 = (1u64 << 20) as f64;
/// mapreduce.job.reducer.unconditional-preempt.delay.sec (300 s).
const REDUCER_PREEMPT_DELAY_MS: u64 = 300_000;

/// Simulated time stops here: 100 years in milliseconds. Anything that
/// would end later (a node of speed 1e-300, a remote read of 1e300 ms) is an
/// error naming it, not a wrapped or saturated clock.
pub const HORIZON_MS: u64 = 100 * 36_525 * 86_400_000 / 100;

#[derive(Debug, Error)]
pub enum SimError {
    #[error("configuration: {0}")]
    Config(String),
    #[error("the Session rejected an event: {0}")]
    Session(#[from] SessionError),
    #[error("simulation stalled at {at_s:.0} s: no container was granted, started or finished for 4 hours and no task is running, while jobs {jobs} still had work (policy {policy} found nothing to run)")]
    Stalled {
        at_s: f64,
        jobs: String,
        policy: String,
    },
    #[error("simulated time would pass the simulator's horizon of 100 years: {what}")]
    Horizon { what: String },
}

/// How far a run has got, for a progress display.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Progress {
    pub jobs_done: usize,
    pub jobs: usize,
    /// Simulated time.
    pub sim_ms: u64,
    pub events: u64,
}

impl Progress {
    /// Fraction of the jobs finished.
    pub fn fraction(&self) -> f64 {
        self.jobs_done as f64 / self.jobs.max(1) as f64
    }
}

/// Where and when one task ran (kept with `record_tasks`).
#[derive(Clone, Debug, PartialEq)]
pub struct TaskRecord {
    pub job: u32,
    pub reduce: bool,
    pub index: u32,
    pub node: u32,
    pub allocated_ms: u64,
    pub jvm_up_ms: u64,
    pub done_ms: u64,
    pub first_progress_ms: Option<u64>,
    pub locality: Locality,
    /// When the AM launched the container (the JVM start-up begins).
    pub launched_ms: u64,
    /// Progress reports `(time, progress)` of a map: linear in the work
    /// done after start-up, as a map's record reader reports. Reduces
    /// report none here (their three-phase progress is not modelled).
    pub progress: Vec<(u64, f64)>,
}

/// Everything a run produces.
#[derive(Debug)]
pub struct SimOutput {
    pub result: SimResult,
    /// Per task (with `record_tasks`).
    pub tasks: Vec<TaskRecord>,
    /// Time the last map of each job finished.
    pub maps_done_ms: Vec<u64>,
    /// Session events in order, each with the grants it returned (with `record_events`).
    pub events: Vec<(SessionEvent, Vec<Grant>)>,
    /// Why idle heartbeats passed over the job `explain` names.
    pub activities: Option<ActivitiesReport>,
}

/// The Session's record of idle heartbeats under `explain`: big enough for
/// hours of a busy cluster (repeats of a reason extend one entry).
const EXPLAIN_ACTIVITIES: usize = 1 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    Submit(u32),
    NodeHeartbeat(u32),
    AmHeartbeat(u32),
    JvmUp(u32),
    ReadDone(u32),
    TaskDone(u32),
    Progress(u32),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Work {
    /// `u32::MAX` until the AM assigns a task.
    Map(u32),
    Reduce(u32),
}

struct Container {
    node: u32,
    job: u32,
    work: Work,
    allocated_ms: u64,
    jvm_up_ms: u64,
    done_ms: u64,
    finished: bool,
    first_progress_ms: Option<u64>,
    locality: Locality,
    launched_ms: u64,
    /// Progress reports (with `record_tasks` only).
    reports: Vec<(u64, f64)>,
    /// Racks whose uplink an off-rack read occupies, or the BAR remote flag.
    flow: Option<(u32, u32)>,
}

/// The AM's per-location list of maps, consumed in order ("first pending").
#[derive(Default)]
struct MapList {
    maps: Vec<u32>,
    cursor: usize,
}

impl MapList {
    fn first_pending(&mut self, state: &[MapState]) -> Option<u32> {
        while let Some(&m) = self.maps.get(self.cursor) {
            if state[m as usize] == MapState::Pending {
                return Some(m);
            }
            self.cursor += 1;
        }
        None
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum MapState {
    Pending,
    Running,
    Done,
}

struct Job {
    app: AppId,
    blocks: Vec<u32>,
    state: Vec<MapState>,
    by_host: HashMap<u32, MapList>,
    by_rack: HashMap<u32, MapList>,
    all: MapList,
    host_asks: HashMap<u32, i32>,
    rack_asks: HashMap<u32, i32>,
    dirty_hosts: Vec<u32>,
    dirty_racks: Vec<u32>,
    any_maps: i32,
    any_dirty: bool,
    reduces: u32,
    reduces_asked: bool,
    reduces_assigned: u32,
    reduces_done: u32,
    /// The progress its AM last reported to the Session.
    reported: f32,
    reduces_ramped_down: bool,
    /// Last time a map got a container (for the AM's reducer preemption).
    last_map_assigned_ms: u64,
    reduce_dirty: bool,
    maps_done: u32,
    maps_done_ms: Option<u64>,
    waiting_reducers: Vec<u32>,
    delivered: Vec<u32>,
    submitted: bool,
    finished_ms: Option<u64>,
    locality: [u32; 3],
    /// Map containers by the scheduler's own label at the grant (its books).
    booked: [u32; 3],
}

struct Node {
    free: Resources,
}

struct Sim<'a> {
    cfg: &'a SimConfig,
    specs: &'a [JobSpec],
    rng: ChaCha8Rng,
    session: Session,
    queue: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    seq: u64,
    now: u64,
    events: u64,
    hosts: Vec<String>,
    racks: Vec<String>,
    node_rack: Vec<u32>,
    nodes: Vec<Node>,
    block_size: Vec<u64>,
    block_replicas: Vec<Vec<u32>>,
    jobs: Vec<Job>,
    job_of_app: Vec<u32>,
    containers: Vec<Container>,
    rack_flows: Vec<u32>,
    remote_reads: u32,
    grants: Vec<Grant>,
    log: Option<Vec<(SessionEvent, Vec<Grant>)>>,
    unfinished: usize,
    last_activity: u64,
    /// Tasks whose end is scheduled: while one runs, the cluster is busy,
    /// however long it takes (a slow node is not a stall).
    running: u32,
}

/// Runs `jobs` on the cluster of `cfg` with `cfg.policy`. `progress` is
/// called now and then (every 65,536 events) with how far the run got.
pub fn simulate(
    cfg: &SimConfig,
    jobs: &[JobSpec],
    mut progress: impl FnMut(&Progress),
) -> Result<SimOutput, SimError> {
    validate(cfg)?;
    validate_jobs(cfg, jobs)?;
    let wall = Instant::now();
    let mut sim = Sim::new(cfg, jobs)?;
    sim.run(&mut progress)?;
    let wall_ms = wall.elapsed().as_secs_f64() * 1e3;
    Ok(sim.finish(wall_ms))
}

/// The jobs fit the simulator: distinct ids, submit times within the
/// horizon, and at most `cfg.max_tasks` maps and reduces in all (counted
/// before any is allocated: `"input_mb": 1e12` once meant 8e9 blocks).
fn validate_jobs(cfg: &SimConfig, jobs: &[JobSpec]) -> Result<(), SimError> {
    let bad = |m: String| Err(SimError::Config(m));
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let mut inputs: HashMap<&str, ()> = HashMap::new();
    let mut tasks: u128 = 0;
    for (i, j) in jobs.iter().enumerate() {
        if let Some(first) = ids.insert(&j.id, i) {
            return bad(format!(
                "jobs {first} and {i} have the same id {:?}; job ids must be unique",
                j.id
            ));
        }
        if j.submit_ms > HORIZON_MS {
            return bad(format!(
                "job {:?} is submitted at {} s, past the simulator's horizon of 100 years",
                j.id,
                j.submit_ms / 1000
            ));
        }
        if j.block_size == Some(0) {
            return bad(format!("job {:?} has a block size of 0 bytes", j.id));
        }
        // Jobs naming the same input path share its blocks.
        let new_input = match &j.input_path {
            Some(p) => inputs.insert(p, ()).is_none(),
            None => true,
        };
        let maps = if new_input || j.tasks.is_some() {
            j.maps(cfg.block_size)
        } else {
            0
        };
        tasks += u128::from(maps) + u128::from(j.reduce_count());
        // Asks count in i32, as YARN's do, whatever --max-tasks says.
        if tasks > cfg.max_tasks.min(i32::MAX as usize) as u128 {
            return bad(format!(
                "job {:?} ({} bytes of input: {maps} maps, {} reduces) brings the workload past {} maps and reduces in all, the limit (--max-tasks)",
                j.id,
                j.input_bytes,
                j.reduce_count(),
                cfg.max_tasks.min(i32::MAX as usize)
            ));
        }
    }
    Ok(())
}

fn validate(cfg: &SimConfig) -> Result<(), SimError> {
    let bad = |m: String| Err(SimError::Config(m));
    if cfg.max_wait_ms > 86_400_000 {
        return bad(format!(
            "locality wait cap must be at most 86400000 ms (a day; negative: none), got {}",
            cfg.max_wait_ms
        ));
    }
    for (what, v) in [
        ("planning base time", cfg.planning_base_ms),
        (
            "planning time per million tasks",
            cfg.planning_ms_per_million_tasks,
        ),
    ] {
        // An hour of planning is no model of a scheduler.
        if !(0.0..=3.6e6).contains(&v) {
            return bad(format!("{what} must be in [0, 3600000] ms, got {v}"));
        }
    }
    if cfg.nodes > cfg.max_nodes {
        return bad(format!(
            "{} nodes is more than the limit of {} (--max-nodes)",
            cfg.nodes, cfg.max_nodes
        ));
    }
    if let Some(t) = &cfg.topology {
        let racks: std::collections::HashSet<&str> = t.iter().map(|n| n.rack.as_str()).collect();
        if t.len() != cfg.nodes || racks.len() != cfg.racks {
            return bad(format!(
                "the named cluster has {} nodes on {} racks, the configuration says {} on {}",
                t.len(),
                racks.len(),
                cfg.nodes,
                cfg.racks
            ));
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(n) = t.iter().find(|n| !seen.insert(n.host.as_str())) {
            return bad(format!("host {:?} appears twice in the cluster", n.host));
        }
    }
    if cfg.nodes == 0 || cfg.racks == 0 || cfg.racks > cfg.nodes {
        return bad(format!(
            "need nodes >= racks >= 1, got {} nodes and {} racks",
            cfg.nodes, cfg.racks
        ));
    }
    if cfg.replication == 0 || cfg.replication > cfg.nodes {
        return bad(format!(
            "replication must be between 1 and the node count, got {}",
            cfg.replication
        ));
    }
    if cfg.container_memory_mb <= 0
        || cfg.container_memory_mb > cfg.node_memory_mb
        || cfg.container_vcores > cfg.node_vcores
    {
        return bad(format!(
            "a container ({} MB, {} vcores) must fit a node ({} MB, {} vcores)",
            cfg.container_memory_mb, cfg.container_vcores, cfg.node_memory_mb, cfg.node_vcores
        ));
    }
    if cfg.heartbeat_ms == 0
        || cfg.am_heartbeat_ms == 0
        || cfg.progress_ms == 0
        || cfg.block_size == 0
    {
        return bad("heartbeat, progress intervals and block size must be positive".into());
    }
    if cfg.jvm_min_ms > cfg.jvm_max_ms {
        return bad(format!(
            "jvm start-up range {}..{} ms is empty",
            cfg.jvm_min_ms, cfg.jvm_max_ms
        ));
    }
    for (name, v) in [
        ("disk_mb_s", cfg.disk_mb_s),
        ("nic_mb_s", cfg.nic_mb_s),
        ("rack_uplink_mb_s", cfg.rack_uplink_mb_s),
        ("write_mb_s", cfg.write_mb_s),
    ] {
        if !(v.is_finite() && v > 0.0) {
            return bad(format!("{name} must be a positive rate, got {v}"));
        }
    }
    let slow_ok = (0.0..=1.0).contains(&cfg.slow_fraction)
        && cfg.slow_speed.is_finite()
        && cfg.slow_speed >= MIN_SLOW_SPEED;
    if !slow_ok {
        return bad(format!(
            "slow nodes: fraction must be in [0, 1] and speed at least {MIN_SLOW_SPEED} \
             (a node 1000 times slower than the others), got {:?} and {:?}",
            cfg.slow_fraction, cfg.slow_speed
        ));
    }
    if !(0.0..=1.0).contains(&cfg.slowstart) {
        return bad(format!(
            "slowstart must be in [0, 1], got {}",
            cfg.slowstart
        ));
    }
    Ok(())
}

/// A run's random streams, drawn from the seed in a fixed order: the
/// simulation's own (JVM start-ups), each node's heartbeat phase, then the
/// block placement. `trace --to sls` draws the same, so that a converted
/// trace holds the replicas `simulate` places with that seed.
pub struct Streams {
    pub sim: ChaCha8Rng,
    pub phases: Vec<u64>,
    pub placement: ChaCha8Rng,
}

impl Streams {
    pub fn draw(cfg: &SimConfig) -> Streams {
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        let sim = ChaCha8Rng::seed_from_u64(rng.gen());
        let phases = (0..cfg.nodes)
            .map(|_| {
                if cfg.random_phase {
                    rng.gen_range(0..cfg.heartbeat_ms)
                } else {
                    0
                }
            })
            .collect();
        Streams {
            sim,
            phases,
            placement: rng,
        }
    }
}

/// Where every job's input lives: blocks with their sizes and replica
/// nodes, and each job's blocks (one per map).
pub struct Blocks {
    pub size: Vec<u64>,
    pub replicas: Vec<Vec<u32>>,
    pub per_job: Vec<Vec<u32>>,
}

/// Cuts each distinct input into blocks placed as HDFS does (jobs naming
/// the same `input_path` share its blocks); a trace job's maps each get a
/// block on the hosts the trace names (one `block_size` block unless the
/// trace gives the bytes read). An unknown host is an error naming the job.
pub fn place_blocks(
    cfg: &SimConfig,
    specs: &[JobSpec],
    layout: &Layout,
    rng: &mut ChaCha8Rng,
) -> Result<Blocks, SimError> {
    let placement = Placement::new(layout.node_rack.iter().map(|&r| r as usize).collect());
    let node_of: HashMap<&str, u32> = layout
        .hosts
        .iter()
        .enumerate()
        .map(|(i, h)| (h.as_str(), i as u32))
        .collect();
    let mut out = Blocks {
        size: Vec::new(),
        replicas: Vec::new(),
        per_job: Vec::with_capacity(specs.len()),
    };
    let mut files: HashMap<String, Vec<u32>> = HashMap::new();
    let mut chosen = Vec::new();
    for (j, spec) in specs.iter().enumerate() {
        let bs = spec.block_bytes(cfg.block_size);
        if let Some(trace) = &spec.tasks {
            let mut blocks = Vec::with_capacity(trace.maps.len());
            for (m, task) in trace.maps.iter().enumerate() {
                let mut replicas = Vec::with_capacity(task.hosts.len());
                for h in &task.hosts {
                    let Some(&n) = node_of.get(h.as_str()) else {
                        return Err(SimError::Config(format!(
                            "job {:?}: map {m} reads from host {h:?}, which is not in the cluster (give the cluster with --node-file)",
                            spec.id
                        )));
                    };
                    if !replicas.contains(&n) {
                        replicas.push(n);
                    }
                }
                out.size.push(task.input_bytes.unwrap_or(bs).max(1));
                out.replicas.push(replicas);
                blocks.push((out.size.len() - 1) as u32);
            }
            out.per_job.push(blocks);
            continue;
        }
        let key = spec
            .input_path
            .clone()
            .unwrap_or_else(|| format!("/job/{j}"));
        let blocks = files.entry(key).or_insert_with(|| {
            let n = spec.input_bytes.div_ceil(bs).max(1);
            (0..n)
                .map(|b| {
                    let size = if b + 1 == n {
                        spec.input_bytes - b * bs
                    } else {
                        bs
                    };
                    placement.place(rng, cfg.replication, &mut chosen);
                    out.size.push(size.max(1));
                    out.replicas
                        .push(chosen.iter().map(|&n| n as u32).collect());
                    (out.size.len() - 1) as u32
                })
                .collect()
        });
        out.per_job.push(blocks.clone());
    }
    Ok(out)
}

impl<'a> Sim<'a> {
    fn new(cfg: &'a SimConfig, specs: &'a [JobSpec]) -> Result<Sim<'a>, SimError> {
        let Streams {
            sim: sim_rng,
            phases,
            mut placement,
        } = Streams::draw(cfg);
        let layout = cfg.layout();
        let blocks = place_blocks(cfg, specs, &layout, &mut placement)?;
        let mut session = Session::new(SessionConfig {
            policy: cfg.policy,
            cost: cfg.cost,
            seed: cfg.seed,
            delay: cfg.delay,
            max_wait_ms: cfg.max_wait_ms,
            job_order: cfg.job_order,
            task_choice: cfg.task_choice,
            ..SessionConfig::default()
        });
        session.set_planning(Planning::Modelled {
            base_ms: cfg.planning_base_ms,
            per_million_tasks_ms: cfg.planning_ms_per_million_tasks,
        });
        session.set_incremental(cfg.incremental);
        if cfg.explain.is_some() {
            session.set_activities_capacity(EXPLAIN_ACTIVITIES);
        }
        let Layout {
            hosts,
            racks,
            node_rack,
        } = layout;
        let mut sim = Sim {
            cfg,
            specs,
            rng: sim_rng,
            session,
            queue: BinaryHeap::new(),
            seq: 0,
            now: 0,
            events: 0,
            hosts,
            racks: racks.clone(),
            node_rack,
            nodes: Vec::with_capacity(cfg.nodes),
            block_size: blocks.size,
            block_replicas: blocks.replicas,
            jobs: Vec::with_capacity(specs.len()),
            job_of_app: Vec::new(),
            containers: Vec::new(),
            rack_flows: vec![0; racks.len()],
            remote_reads: 0,
            grants: Vec::with_capacity(16),
            log: cfg.record_events.then(Vec::new),
            unfinished: specs.len(),
            last_activity: 0,
            running: 0,
        };
        for (i, &phase) in phases.iter().enumerate() {
            let (host, rack) = (
                sim.hosts[i].clone(),
                sim.racks[sim.node_rack[i] as usize].clone(),
            );
            sim.record(SessionEvent::AddNode {
                host: host.clone(),
                rack: rack.clone(),
                capacity: cfg.node_capacity(),
                speed: cfg.speed(i),
            });
            sim.session
                .add_node(&host, &rack, cfg.node_capacity(), cfg.speed(i))?;
            sim.nodes.push(Node {
                free: cfg.node_capacity(),
            });
            sim.push(phase, Ev::NodeHeartbeat(i as u32));
        }
        sim.make_jobs(blocks.per_job);
        for (j, spec) in specs.iter().enumerate() {
            sim.push(spec.submit_ms, Ev::Submit(j as u32));
        }
        Ok(sim)
    }

    /// The AM's view of each job: its blocks (from [`place_blocks`]), map
    /// lists per host and rack, and its first asks.
    fn make_jobs(&mut self, per_job: Vec<Vec<u32>>) {
        for (spec, blocks) in self.specs.iter().zip(per_job) {
            let mut job = Job {
                app: 0,
                state: vec![MapState::Pending; blocks.len()],
                by_host: HashMap::new(),
                by_rack: HashMap::new(),
                all: MapList {
                    maps: (0..blocks.len() as u32).collect(),
                    cursor: 0,
                },
                host_asks: HashMap::new(),
                rack_asks: HashMap::new(),
                dirty_hosts: Vec::new(),
                dirty_racks: Vec::new(),
                any_maps: blocks.len() as i32,
                any_dirty: true,
                reduces: spec.reduce_count(),
                reduces_asked: false,
                reduces_assigned: 0,
                reduces_done: 0,
                reported: 0.0,
                last_map_assigned_ms: 0,
                reduces_ramped_down: false,
                reduce_dirty: false,
                maps_done: 0,
                maps_done_ms: None,
                waiting_reducers: Vec::new(),
                delivered: Vec::new(),
                submitted: false,
                finished_ms: None,
                locality: [0; 3],
                booked: [0; 3],
                blocks,
            };
            for (m, &b) in job.blocks.iter().enumerate() {
                let mut racks_seen: Vec<u32> = Vec::new();
                for &n in &self.block_replicas[b as usize] {
                    job.by_host.entry(n).or_default().maps.push(m as u32);
                    *job.host_asks.entry(n).or_default() += 1;
                    let r = self.node_rack[n as usize];
                    if !racks_seen.contains(&r) {
                        racks_seen.push(r);
                        job.by_rack.entry(r).or_default().maps.push(m as u32);
                        *job.rack_asks.entry(r).or_default() += 1;
                    }
                }
            }
            let mut hosts: Vec<u32> = job.host_asks.keys().copied().collect();
            hosts.sort_unstable();
            job.dirty_hosts = hosts;
            let mut racks: Vec<u32> = job.rack_asks.keys().copied().collect();
            racks.sort_unstable();
            job.dirty_racks = racks;
            self.jobs.push(job);
        }
    }

    fn push(&mut self, at: u64, ev: Ev) {
        self.seq += 1;
        self.queue.push(Reverse((at, self.seq, ev)));
    }

    fn record(&mut self, ev: SessionEvent) {
        if let Some(log) = &mut self.log {
            log.push((ev, Vec::new()));
        }
    }

    fn jvm_delay(&mut self) -> u64 {
        self.rng
            .gen_range(self.cfg.jvm_min_ms..=self.cfg.jvm_max_ms)
    }

    fn progress_now(&self) -> Progress {
        Progress {
            jobs_done: self.specs.len() - self.unfinished,
            jobs: self.specs.len(),
            sim_ms: self.now,
            events: self.events,
        }
    }

    fn run(&mut self, progress: &mut dyn FnMut(&Progress)) -> Result<(), SimError> {
        progress(&self.progress_now());
        while self.unfinished > 0 {
            let Some(Reverse((at, _, ev))) = self.queue.pop() else {
                break;
            };
            self.now = at;
            self.events += 1;
            if self.events.is_multiple_of(65_536) {
                progress(&self.progress_now());
            }
            match ev {
                Ev::Submit(j) => self.submit(j)?,
                Ev::NodeHeartbeat(n) => self.node_heartbeat(n)?,
                Ev::AmHeartbeat(j) => self.am_heartbeat(j)?,
                Ev::JvmUp(c) => self.jvm_up(c)?,
                Ev::ReadDone(c) => self.read_done(c),
                Ev::TaskDone(c) => self.task_done(c)?,
                Ev::Progress(c) => self.progress(c),
            }
        }
        progress(&self.progress_now());
        Ok(())
    }

    /// `now + ms` as a clock time; an error naming `what` past the horizon
    /// (or when `ms` is not a number at all).
    fn after(&self, ms: f64, what: impl FnOnce() -> String) -> Result<u64, SimError> {
        let left = (HORIZON_MS - self.now.min(HORIZON_MS)) as f64;
        if ms.is_finite() && ms <= left {
            Ok(self.now + ms.max(0.0).round() as u64)
        } else {
            Err(SimError::Horizon { what: what() })
        }
    }

    fn submit(&mut self, j: u32) -> Result<(), SimError> {
        let spec = &self.specs[j as usize];
        self.record(SessionEvent::AddApp {
            app: spec.id.clone(),
            weight: spec.weight,
            submit_ms: spec.submit_ms as i64,
        });
        let app = self
            .session
            .add_app(&spec.id, spec.weight, spec.submit_ms as i64)?;
        if self.job_of_app.len() <= app as usize {
            self.job_of_app.resize(app as usize + 1, u32::MAX);
        }
        self.job_of_app[app as usize] = j;
        let job = &mut self.jobs[j as usize];
        job.app = app;
        job.submitted = true;
        if self.cfg.exact_blocks {
            let tasks: Vec<Vec<String>> = job
                .blocks
                .iter()
                .map(|&b| {
                    self.block_replicas[b as usize]
                        .iter()
                        .map(|&n| self.hosts[n as usize].clone())
                        .collect()
                })
                .collect();
            self.session.set_input_blocks(app, PRIORITY_MAP, &tasks)?;
            self.record(SessionEvent::InputBlocks {
                app,
                priority: PRIORITY_MAP,
                tasks,
            });
        }
        // The AM container starts (outside the node slots: a simplification),
        // then the AM heartbeats at its own interval.
        let start = self.now + self.jvm_delay();
        let phase = if self.cfg.random_phase {
            self.rng.gen_range(0..self.cfg.am_heartbeat_ms)
        } else {
            0
        };
        self.push(start + phase, Ev::AmHeartbeat(j));
        self.last_activity = self.now;
        Ok(())
    }

    fn node_heartbeat(&mut self, n: u32) -> Result<(), SimError> {
        let free = self.nodes[n as usize].free;
        let container = self.cfg.container();
        if free.fits(&container) {
            let mut grants = std::mem::take(&mut self.grants);
            self.session
                .node_heartbeat(n, free, self.now as i64, &mut grants)?;
            if let Some(log) = &mut self.log {
                log.push((
                    SessionEvent::Heartbeat {
                        node: n,
                        free,
                        now_ms: self.now as i64,
                    },
                    grants.clone(),
                ));
            }
            for g in &grants {
                let j = self.job_of_app[g.app as usize];
                if g.priority != PRIORITY_REDUCE {
                    self.jobs[j as usize].booked[g.locality as usize] += g.count;
                }
                for _ in 0..g.count {
                    let node = &mut self.nodes[n as usize];
                    node.free.memory_mb -= container.memory_mb;
                    node.free.vcores -= container.vcores;
                    debug_assert!(node.free.memory_mb >= 0 && node.free.vcores >= 0);
                    let cid = self.containers.len() as u32;
                    self.containers.push(Container {
                        node: n,
                        job: j,
                        work: if g.priority == PRIORITY_REDUCE {
                            Work::Reduce(u32::MAX)
                        } else {
                            Work::Map(u32::MAX)
                        },
                        allocated_ms: self.now,
                        jvm_up_ms: u64::MAX,
                        done_ms: u64::MAX,
                        finished: false,
                        first_progress_ms: None,
                        locality: g.locality,
                        launched_ms: u64::MAX,
                        reports: Vec::new(),
                        flow: None,
                    });
                    self.jobs[j as usize].delivered.push(cid);
                    self.last_activity = self.now;
                }
            }
            self.grants = grants;
        }
        if self.running == 0 && self.now.saturating_sub(self.last_activity) > STALL_MS {
            return Err(self.stalled());
        }
        self.push(self.now + self.cfg.heartbeat_ms, Ev::NodeHeartbeat(n));
        Ok(())
    }

    fn stalled(&self) -> SimError {
        let jobs: Vec<&str> = self
            .jobs
            .iter()
            .zip(self.specs)
            .filter(|(j, _)| j.submitted && j.finished_ms.is_none())
            .map(|(_, s)| s.id.as_str())
            .take(5)
            .collect();
        SimError::Stalled {
            at_s: self.now as f64 / 1000.0,
            jobs: jobs.join(", "),
            policy: self.cfg.policy.to_string(),
        }
    }

    /// The AM's allocate round: take delivered containers, assign tasks to
    /// them (host, then rack, then any), release the unusable ones, ramp up
    /// reduces, and send the asks that changed.
    fn am_heartbeat(&mut self, j: u32) -> Result<(), SimError> {
        let delivered = std::mem::take(&mut self.jobs[j as usize].delivered);
        for &cid in &delivered {
            let c = &self.containers[cid as usize];
            let node = c.node;
            let assigned = match c.work {
                Work::Map(_) => self.assign_map(j, cid, node),
                _ => self.assign_reduce(j, cid),
            };
            if assigned {
                self.containers[cid as usize].launched_ms = self.now;
                // A trace task's duration includes its JVM start-up.
                let up = if self.specs[j as usize].tasks.is_some() {
                    self.now
                } else {
                    self.now + self.jvm_delay()
                };
                self.push(up, Ev::JvmUp(cid));
            } else {
                self.release(cid)?;
            }
        }
        let mut delivered = delivered;
        delivered.clear();
        let job = &mut self.jobs[j as usize];
        if job.finished_ms.is_some() {
            return Ok(());
        }
        job.delivered = delivered;
        if job.any_maps > 0
            && !job.waiting_reducers.is_empty()
            && self.now.saturating_sub(job.last_map_assigned_ms) > REDUCER_PREEMPT_DELAY_MS
        {
            self.preempt_reducers(j)?;
        }
        let job = &mut self.jobs[j as usize];
        let maps = job.state.len() as u32;
        if !job.reduces_asked
            && job.reduces > job.reduces_assigned
            && job.maps_done as f64 >= (self.cfg.slowstart * maps as f64).ceil()
            && !(job.reduces_ramped_down && job.any_maps > 0)
        {
            job.reduces_asked = true;
            job.reduce_dirty = true;
        }
        self.report_progress(j)?;
        self.send_asks(j)?;
        self.push(self.now + self.cfg.am_heartbeat_ms, Ev::AmHeartbeat(j));
        Ok(())
    }

    fn assign_map(&mut self, j: u32, cid: u32, node: u32) -> bool {
        let rack = self.node_rack[node as usize];
        let job = &mut self.jobs[j as usize];
        let state = &job.state;
        let pick = job
            .by_host
            .get_mut(&node)
            .and_then(|l| l.first_pending(state))
            .or_else(|| {
                job.by_rack
                    .get_mut(&rack)
                    .and_then(|l| l.first_pending(state))
            })
            .or_else(|| job.all.first_pending(state));
        let Some(m) = pick else {
            return false;
        };
        job.state[m as usize] = MapState::Running;
        job.last_map_assigned_ms = self.now;
        job.any_maps -= 1;
        job.any_dirty = true;
        let block = job.blocks[m as usize];
        let mut racks_seen: [u32; 8] = [u32::MAX; 8];
        for (i, &h) in self.block_replicas[block as usize].iter().enumerate() {
            if let Some(c) = job.host_asks.get_mut(&h) {
                *c -= 1;
                job.dirty_hosts.push(h);
            }
            let r = self.node_rack[h as usize];
            if !racks_seen[..i.min(8)].contains(&r) {
                if i < 8 {
                    racks_seen[i] = r;
                }
                if let Some(c) = job.rack_asks.get_mut(&r) {
                    *c -= 1;
                    job.dirty_racks.push(r);
                }
            }
        }
        self.containers[cid as usize].work = Work::Map(m);
        true
    }

    /// The MR AM's unconditional reducer preemption: maps have waited too
    /// long while reducers sit on containers waiting for them, so give back
    /// as many waiting reducers as there are hanging maps; they are asked for
    /// again.
    fn preempt_reducers(&mut self, j: u32) -> Result<(), SimError> {
        let job = &mut self.jobs[j as usize];
        let n = (job.any_maps.max(0) as usize).min(job.waiting_reducers.len());
        let victims: Vec<u32> = job.waiting_reducers.drain(..n).collect();
        job.reduces_assigned -= n as u32;
        // Ramp down: reduces are asked again only once no map is left waiting.
        job.reduces_asked = false;
        job.reduces_ramped_down = true;
        job.reduce_dirty = true;
        job.last_map_assigned_ms = self.now;
        for cid in victims {
            self.containers[cid as usize].work = Work::Reduce(u32::MAX);
            self.release(cid)?;
        }
        Ok(())
    }

    fn assign_reduce(&mut self, j: u32, cid: u32) -> bool {
        let job = &mut self.jobs[j as usize];
        if !job.reduces_asked || job.reduces_assigned >= job.reduces {
            return false;
        }
        let r = job.reduces_assigned;
        job.reduces_assigned += 1;
        job.reduce_dirty = true;
        self.containers[cid as usize].work = Work::Reduce(r);
        true
    }

    /// The AM's progress at allocate, as MapReduce's JobImpl weighs it
    /// (maps and reduces half each when there are reduces), over finished
    /// tasks; sent when it changed.
    fn report_progress(&mut self, j: u32) -> Result<(), SimError> {
        let job = &self.jobs[j as usize];
        let maps = job.state.len().max(1) as f64;
        let map = f64::from(job.maps_done) / maps;
        let progress = if job.reduces > 0 {
            0.5 * map + 0.5 * f64::from(job.reduces_done) / f64::from(job.reduces)
        } else {
            map
        } as f32;
        if progress == job.reported {
            return Ok(());
        }
        let (app, now_ms) = (job.app, self.now as i64);
        self.jobs[j as usize].reported = progress;
        self.session.app_progress(app, progress, now_ms)?;
        self.record(SessionEvent::AppProgress {
            app,
            progress,
            now_ms,
        });
        Ok(())
    }

    fn send_asks(&mut self, j: u32) -> Result<(), SimError> {
        let cap = self.cfg.container();
        let job = &mut self.jobs[j as usize];
        let app = job.app;
        let mut hosts = std::mem::take(&mut job.dirty_hosts);
        hosts.sort_unstable();
        hosts.dedup();
        let mut racks = std::mem::take(&mut job.dirty_racks);
        racks.sort_unstable();
        racks.dedup();
        let any = job.any_dirty.then_some(job.any_maps);
        job.any_dirty = false;
        let asked = if job.reduces_asked {
            (job.reduces - job.reduces_assigned) as i32
        } else {
            0
        };
        let reduce = job.reduce_dirty.then_some(asked);
        job.reduce_dirty = false;
        for &h in &hosts {
            let count = self.jobs[j as usize].host_asks[&h];
            self.ask(app, PRIORITY_MAP, NameRef::Host(h), count, cap)?;
        }
        for &r in &racks {
            let count = self.jobs[j as usize].rack_asks[&r];
            self.ask(app, PRIORITY_MAP, NameRef::Rack(r), count, cap)?;
        }
        if let Some(count) = any {
            self.ask(app, PRIORITY_MAP, NameRef::Any, count, cap)?;
        }
        if let Some(count) = reduce {
            self.ask(app, PRIORITY_REDUCE, NameRef::Any, count, cap)?;
        }
        hosts.clear();
        racks.clear();
        let job = &mut self.jobs[j as usize];
        job.dirty_hosts = hosts;
        job.dirty_racks = racks;
        Ok(())
    }

    fn ask(
        &mut self,
        app: AppId,
        priority: i32,
        name: NameRef,
        count: i32,
        cap: Resources,
    ) -> Result<(), SimError> {
        let resource = match name {
            NameRef::Host(h) => self.hosts[h as usize].as_str(),
            NameRef::Rack(r) => self.racks[r as usize].as_str(),
            NameRef::Any => ANY,
        };
        self.session
            .update_ask(app, priority, resource, count, cap, true)?;
        if let Some(log) = &mut self.log {
            log.push((
                SessionEvent::UpdateAsk {
                    app,
                    priority,
                    resource: resource.to_string(),
                    count,
                    capability: cap,
                    relax_locality: true,
                },
                Vec::new(),
            ));
        }
        Ok(())
    }

    fn jvm_up(&mut self, cid: u32) -> Result<(), SimError> {
        let now = self.now;
        let c = &self.containers[cid as usize];
        let (node, j, work) = (c.node, c.job, c.work);
        self.containers[cid as usize].jvm_up_ms = now;
        self.last_activity = now;
        let spec = &self.specs[j as usize];
        match work {
            Work::Map(m) => {
                let block = self.jobs[j as usize].blocks[m as usize];
                let mb = self.block_size[block as usize] as f64 / MB;
                let (read_ms, locality) = self.read(cid, node, block, mb)?;
                let speed = self.cfg.speed(node as usize);
                let (read_ms, compute_ms) = match &spec.tasks {
                    // The trace's duration is a node-local run: add what a
                    // non-local read costs beyond a local one.
                    Some(t) => (
                        (read_ms - mb / self.cfg.disk_mb_s * 1000.0).max(0.0),
                        t.maps[m as usize].duration_ms as f64,
                    ),
                    None => (read_ms, mb * spec.profile.map_cpu_ms_per_mb() / speed),
                };
                let done = self.after(read_ms.round() + compute_ms.round(), || {
                    format!(
                        "map {m} of job {:?} on {} would take {:e} ms (reading {:e} ms, computing {:e} ms at speed {speed:e})",
                        spec.id,
                        self.hosts[node as usize],
                        read_ms + compute_ms,
                        read_ms,
                        compute_ms
                    )
                })?;
                let c = &mut self.containers[cid as usize];
                c.locality = locality;
                c.done_ms = done.max(now + 1);
                let job = &mut self.jobs[j as usize];
                job.locality[locality as usize] += 1;
                let done = self.containers[cid as usize].done_ms;
                self.running += 1;
                self.push(done, Ev::TaskDone(cid));
            }
            Work::Reduce(_) => {
                if self.jobs[j as usize].maps_done_ms.is_some() {
                    self.schedule_reduce(cid)?;
                } else {
                    self.jobs[j as usize].waiting_reducers.push(cid);
                }
            }
        }
        if now + self.cfg.progress_ms < self.containers[cid as usize].done_ms {
            self.push(now + self.cfg.progress_ms, Ev::Progress(cid));
        }
        Ok(())
    }

    /// Read time (ms) of a map's block and where it was read from.
    fn read(
        &mut self,
        cid: u32,
        node: u32,
        block: u32,
        mb: f64,
    ) -> Result<(f64, Locality), SimError> {
        let cfg = self.cfg;
        let replicas = &self.block_replicas[block as usize];
        let local_ms = mb / cfg.disk_mb_s * 1000.0;
        if replicas.contains(&node) {
            return Ok((local_ms, Locality::Node));
        }
        if replicas.is_empty() {
            // A trace task with no input: YARN books its ANY container off-switch.
            return Ok((local_ms, Locality::OffSwitch));
        }
        let my_rack = self.node_rack[node as usize];
        let rack_local = replicas
            .iter()
            .any(|&r| self.node_rack[r as usize] == my_rack);
        let locality = if rack_local {
            Locality::Rack
        } else {
            Locality::OffSwitch
        };
        let ms = match cfg.network {
            NetworkModel::Flat => local_ms,
            NetworkModel::Bar { q_ms } => {
                self.remote_reads += 1;
                self.containers[cid as usize].flow = Some((u32::MAX, u32::MAX));
                local_ms + q_ms * self.remote_reads as f64
            }
            NetworkModel::RackUplink if rack_local => mb / cfg.disk_mb_s.min(cfg.nic_mb_s) * 1000.0,
            NetworkModel::RackUplink => {
                let src = self.node_rack[replicas[0] as usize];
                self.rack_flows[src as usize] += 1;
                self.rack_flows[my_rack as usize] += 1;
                let share = |flows: u32| cfg.rack_uplink_mb_s / flows as f64;
                let rate = cfg
                    .disk_mb_s
                    .min(cfg.nic_mb_s)
                    .min(share(self.rack_flows[src as usize]))
                    .min(share(self.rack_flows[my_rack as usize]));
                self.containers[cid as usize].flow = Some((src, my_rack));
                mb / rate * 1000.0
            }
        };
        if self.containers[cid as usize].flow.is_some() {
            let done = self.after(ms, || {
                format!(
                    "a remote read of {mb} MB on {} would take {ms:e} ms (network model {:?})",
                    self.hosts[node as usize], cfg.network
                )
            })?;
            self.push(done, Ev::ReadDone(cid));
        }
        Ok((ms, locality))
    }

    fn read_done(&mut self, cid: u32) {
        match self.containers[cid as usize].flow.take() {
            Some((u32::MAX, _)) => self.remote_reads -= 1,
            Some((src, dst)) => {
                self.rack_flows[src as usize] -= 1;
                self.rack_flows[dst as usize] -= 1;
            }
            None => {}
        }
    }

    /// A reducer whose maps are all done: the rest of the shuffle (at least
    /// the last map's share), then sort/reduce, then the output write.
    fn schedule_reduce(&mut self, cid: u32) -> Result<(), SimError> {
        let c = &self.containers[cid as usize];
        let j = c.job as usize;
        let spec = &self.specs[j];
        let job = &self.jobs[j];
        if let (Some(t), Work::Reduce(r)) = (&spec.tasks, c.work) {
            // The trace's duration from launch, its shuffle wait included;
            // never before the job's last map.
            let ms = t.reduces[r as usize].duration_ms;
            let done = (c.jvm_up_ms.saturating_add(ms)).max(self.now + 1);
            if done > HORIZON_MS {
                return Err(SimError::Horizon {
                    what: format!("a reduce of job {:?} would end at {done} ms", spec.id),
                });
            }
            self.containers[cid as usize].done_ms = done;
            self.containers[cid as usize].locality = Locality::OffSwitch;
            self.running += 1;
            self.push(done, Ev::TaskDone(cid));
            return Ok(());
        }
        let reduces = spec.reduces.max(1) as f64;
        let share_mb = spec.shuffle_bytes as f64 / reduces / MB;
        let shuffle_ms = share_mb / self.cfg.nic_mb_s * 1000.0;
        let maps = job.state.len().max(1) as f64;
        let maps_done = job.maps_done_ms.unwrap_or(self.now);
        let shuffled = (c.jvm_up_ms as f64 + shuffle_ms).max(maps_done as f64 + shuffle_ms / maps);
        let reduce_ms =
            share_mb * spec.profile.reduce_cpu_ms_per_mb() / self.cfg.speed(c.node as usize);
        let write_ms = spec.output_bytes as f64 / reduces / MB / self.cfg.write_mb_s * 1000.0;
        let end = (shuffled + reduce_ms + write_ms).round();
        let done = self
            .after(end - self.now as f64, || {
                format!(
                    "a reduce of job {:?} on {} would end at {end:e} ms (shuffle, reduce {reduce_ms:e} ms, write {write_ms:e} ms)",
                    spec.id, self.hosts[c.node as usize]
                )
            })?
            .max(self.now + 1);
        self.containers[cid as usize].done_ms = done;
        self.containers[cid as usize].locality = Locality::OffSwitch;
        self.running += 1;
        self.push(done, Ev::TaskDone(cid));
        Ok(())
    }

    fn progress(&mut self, cid: u32) {
        let c = &mut self.containers[cid as usize];
        if c.finished {
            return;
        }
        c.first_progress_ms.get_or_insert(self.now);
        if self.cfg.record_tasks {
            if let Work::Map(_) = c.work {
                let work = c.done_ms.saturating_sub(c.jvm_up_ms).max(1);
                let done = self.now.saturating_sub(c.jvm_up_ms).min(work);
                c.reports.push((self.now, done as f64 / work as f64));
            }
        }
        let next = self.now + self.cfg.progress_ms;
        if next < c.done_ms {
            self.push(next, Ev::Progress(cid));
        }
    }

    fn release(&mut self, cid: u32) -> Result<(), SimError> {
        let cap = self.cfg.container();
        let c = &mut self.containers[cid as usize];
        c.finished = true;
        if c.done_ms == u64::MAX {
            c.done_ms = self.now;
        }
        let n = c.node;
        let app = self.jobs[c.job as usize].app;
        let node = &mut self.nodes[n as usize];
        node.free.memory_mb += cap.memory_mb;
        node.free.vcores += cap.vcores;
        self.last_activity = self.now;
        self.session.app_container_finished(n, app)?;
        self.record(SessionEvent::ContainerFinished {
            node: n,
            app: Some(app),
        });
        Ok(())
    }

    fn task_done(&mut self, cid: u32) -> Result<(), SimError> {
        self.running -= 1;
        self.release(cid)?;
        let c = &self.containers[cid as usize];
        let j = c.job;
        let work = c.work;
        let now = self.now;
        let job = &mut self.jobs[j as usize];
        match work {
            Work::Map(m) => {
                job.state[m as usize] = MapState::Done;
                job.maps_done += 1;
                if job.maps_done as usize == job.state.len() {
                    job.maps_done_ms = Some(now);
                    for cid in std::mem::take(&mut job.waiting_reducers) {
                        self.schedule_reduce(cid)?;
                    }
                }
            }
            Work::Reduce(_) => job.reduces_done += 1,
        }
        let job = &self.jobs[j as usize];
        if job.maps_done as usize == job.state.len() && job.reduces_done == job.reduces {
            self.finish_job(j)?;
        }
        Ok(())
    }

    fn finish_job(&mut self, j: u32) -> Result<(), SimError> {
        let job = &mut self.jobs[j as usize];
        job.finished_ms = Some(self.now);
        let app = job.app;
        self.unfinished -= 1;
        self.session.finish_app(app)?;
        self.record(SessionEvent::FinishApp { app });
        Ok(())
    }

    fn finish(self, wall_ms: f64) -> SimOutput {
        let first_submit = self.specs.iter().map(|s| s.submit_ms).min().unwrap_or(0);
        let mut jobs = Vec::with_capacity(self.jobs.len());
        let (mut twct, mut jct_sum, mut last) = (0.0, 0.0, first_submit);
        let (mut loc, mut booked) = ([0u64; 3], [0u64; 3]);
        for (job, spec) in self.jobs.iter().zip(self.specs) {
            let finish = job.finished_ms.unwrap_or(self.now);
            last = last.max(finish);
            let jct = (finish - spec.submit_ms) as f64 / 1000.0;
            twct += spec.weight * jct;
            jct_sum += jct;
            for (total, &n) in loc.iter_mut().zip(&job.locality) {
                *total += n as u64;
            }
            for (total, &n) in booked.iter_mut().zip(&job.booked) {
                *total += n as u64;
            }
            jobs.push(JobResult {
                id: spec.id.clone(),
                submit_s: spec.submit_ms as f64 / 1000.0,
                finish_s: finish as f64 / 1000.0,
                maps: job.state.len() as u32,
                reduces: job.reduces,
                node_local: job.locality[0],
                rack_local: job.locality[1],
                off_switch: job.locality[2],
            });
        }
        let makespan_ms = last - first_submit;
        let held: u64 = self
            .containers
            .iter()
            .map(|c| c.done_ms.min(self.now) - c.allocated_ms)
            .sum();
        let capacity = self.cfg.slots() as f64 * self.cfg.nodes as f64 * makespan_ms as f64;
        let metrics = SimMetrics {
            makespan_s: makespan_ms as f64 / 1000.0,
            node_local: loc[0],
            rack_local: loc[1],
            off_switch: loc[2],
            booked_node_local: booked[0],
            booked_rack_local: booked[1],
            booked_off_switch: booked[2],
            twct,
            mean_jct_s: if jobs.is_empty() {
                0.0
            } else {
                jct_sum / jobs.len() as f64
            },
            utilization: if capacity > 0.0 {
                held as f64 / capacity
            } else {
                0.0
            },
            events: self.events,
            wall_ms: Some(wall_ms),
        };
        let tasks = if self.cfg.record_tasks {
            self.containers
                .iter()
                .filter_map(|c| {
                    let (reduce, index) = match c.work {
                        Work::Map(m) if m != u32::MAX => (false, m),
                        Work::Reduce(r) if r != u32::MAX => (true, r),
                        _ => return None,
                    };
                    Some(TaskRecord {
                        job: c.job,
                        reduce,
                        index,
                        node: c.node,
                        allocated_ms: c.allocated_ms,
                        jvm_up_ms: c.jvm_up_ms,
                        done_ms: c.done_ms,
                        first_progress_ms: c.first_progress_ms,
                        locality: c.locality,
                        launched_ms: c.launched_ms,
                        progress: c.reports.clone(),
                    })
                })
                .collect()
        } else {
            Vec::new()
        };
        SimOutput {
            result: SimResult {
                policy: self.cfg.policy.to_string(),
                metrics,
                jobs,
            },
            tasks,
            maps_done_ms: self
                .jobs
                .iter()
                .map(|j| j.maps_done_ms.unwrap_or(u64::MAX))
                .collect(),
            activities: self
                .cfg
                .explain
                .as_deref()
                .and_then(|job| self.session.activities_named(Some(job), None).ok()),
            events: self.log.unwrap_or_default(),
        }
    }
}

#[derive(Clone, Copy)]
enum NameRef {
    Host(u32),
    Rack(u32),
    Any,
}

/// A task of a static plan: map or reduce index of the job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StaticTask {
    Map(u32),
    Reduce(u32),
}

/// What [`run_static`] measured.
#[derive(Clone, Debug, PartialEq)]
pub struct StaticRun {
    pub makespan_s: f64,
    /// End of the last map.
    pub maps_done_s: f64,
    pub node_local: u32,
    /// Slot-seconds from each task's launch to its end, over all tasks.
    pub busy_slot_s: f64,
}

/// Runs one job from a static plan, as the daemons of the FISCH paper's Sect. 5.2
/// do: slot `node * slots + k` runs its tasks in the plan's order, each as
/// soon as the slot is free, with no ResourceManager, heartbeats or AM. The
/// costs are this simulator's, on the same block placement as [`simulate`]
/// with the same seed: JVM start, the block read from a replica on the node,
/// else in its rack, else off-rack sharing the rack uplinks as the
/// `RackUplink` network model does (BAR's model is not replayed), compute; a reduce
/// prefetches its shuffle while the maps run and ends as a simulated one.
/// Every map must come before every reduce on its slot.
pub fn run_static(
    cfg: &SimConfig,
    spec: &JobSpec,
    plan: &[Vec<StaticTask>],
) -> Result<StaticRun, SimError> {
    validate(cfg)?;
    validate_jobs(cfg, std::slice::from_ref(spec))?;
    let bad = |m: String| SimError::Config(format!("static plan of job {:?}: {m}", spec.id));
    if spec.tasks.is_some() {
        return Err(bad(
            "static plans run jobs shaped from their input bytes, not trace jobs".into(),
        ));
    }
    let slots = cfg.slots() as usize;
    if plan.len() != cfg.nodes * slots {
        return Err(bad(format!(
            "{} slot lists for {} nodes of {slots} slots",
            plan.len(),
            cfg.nodes
        )));
    }
    let mut sim = Sim::new(cfg, std::slice::from_ref(spec))?;
    let blocks = sim.jobs[0].blocks.clone();
    let reduces = spec.reduces as usize;
    let mut seen_map = vec![false; blocks.len()];
    let mut seen_reduce = vec![false; reduces];
    for list in plan {
        let mut in_reduces = false;
        for &t in list {
            let (seen, i, what) = match t {
                StaticTask::Map(m) => (&mut seen_map, m as usize, "map"),
                StaticTask::Reduce(r) => (&mut seen_reduce, r as usize, "reduce"),
            };
            match seen.get_mut(i) {
                None => return Err(bad(format!("{what} {i} is not in the job"))),
                Some(true) => return Err(bad(format!("{what} {i} appears twice"))),
                Some(s) => *s = true,
            }
            match t {
                StaticTask::Reduce(_) => in_reduces = true,
                StaticTask::Map(m) if in_reduces => {
                    return Err(bad(format!("map {m} comes after a reduce on its slot")))
                }
                StaticTask::Map(_) => {}
            }
        }
    }
    if let Some(m) = seen_map.iter().position(|s| !s) {
        return Err(bad(format!("map {m} is not planned")));
    }
    if let Some(r) = seen_reduce.iter().position(|s| !s) {
        return Err(bad(format!("reduce {r} is not planned")));
    }
    let mut free = vec![0.0f64; plan.len()];
    let (mut maps_done, mut busy, mut node_local) = (0.0f64, 0.0, 0u32);
    // Slots take their next map in time order, so that an off-rack read
    // shares the rack uplinks with the reads running when it starts (the
    // RackUplink model; rate fixed at start). Non-negative f64 bits sort as
    // the numbers do.
    let mut next = vec![0usize; plan.len()];
    let mut heap: BinaryHeap<Reverse<(u64, usize)>> = (0..plan.len())
        .filter(|&k| matches!(plan[k].first(), Some(StaticTask::Map(_))))
        .map(|k| Reverse((0.0f64.to_bits(), k)))
        .collect();
    // End times of the off-rack reads through each rack's uplink.
    let mut flows: Vec<Vec<f64>> = vec![Vec::new(); cfg.racks];
    while let Some(Reverse((t, slot))) = heap.pop() {
        let Some(&StaticTask::Map(m)) = plan[slot].get(next[slot]) else {
            continue;
        };
        next[slot] += 1;
        let node = slot / slots;
        let start = f64::from_bits(t);
        let up = start + sim.jvm_delay() as f64;
        let block = blocks[m as usize] as usize;
        let mb = sim.block_size[block] as f64 / MB;
        let replicas = &sim.block_replicas[block];
        let my_rack = sim.node_rack[node] as usize;
        let read_ms = if replicas.contains(&(node as u32)) {
            node_local += 1;
            mb / cfg.disk_mb_s * 1000.0
        } else if replicas
            .iter()
            .any(|&r| sim.node_rack[r as usize] as usize == my_rack)
        {
            mb / cfg.disk_mb_s.min(cfg.nic_mb_s) * 1000.0
        } else {
            let src = sim.node_rack[replicas[0] as usize] as usize;
            for r in [src, my_rack] {
                flows[r].retain(|&e| e > up);
            }
            let share = |r: usize| cfg.rack_uplink_mb_s / (flows[r].len() + 1) as f64;
            let rate = cfg
                .disk_mb_s
                .min(cfg.nic_mb_s)
                .min(share(src))
                .min(share(my_rack));
            let ms = mb / rate * 1000.0;
            flows[src].push(up + ms);
            flows[my_rack].push(up + ms);
            ms
        };
        let done = up + read_ms + mb * spec.profile.map_cpu_ms_per_mb() / cfg.speed(node);
        busy += (done - start) / 1e3;
        free[slot] = done;
        maps_done = maps_done.max(done);
        heap.push(Reverse((done.to_bits(), slot)));
    }
    let share_mb = spec.shuffle_bytes as f64 / reduces.max(1) as f64 / MB;
    let shuffle_ms = share_mb / cfg.nic_mb_s * 1000.0;
    let maps = blocks.len().max(1) as f64;
    let mut end = maps_done;
    for (slot, list) in plan.iter().enumerate() {
        let node = slot / slots;
        for &t in list {
            if let StaticTask::Reduce(_) = t {
                let start = free[slot];
                let up = start + sim.jvm_delay() as f64;
                let shuffled = (up + shuffle_ms).max(maps_done + shuffle_ms / maps);
                let done = shuffled
                    + share_mb * spec.profile.reduce_cpu_ms_per_mb() / cfg.speed(node)
                    + spec.output_bytes as f64 / reduces.max(1) as f64 / MB / cfg.write_mb_s
                        * 1000.0;
                busy += (done - start) / 1e3;
                free[slot] = done;
                end = end.max(done);
            }
        }
    }
    Ok(StaticRun {
        makespan_s: end / 1e3,
        maps_done_s: maps_done / 1e3,
        node_local,
        busy_slot_s: busy,
    })
}

#[cfg(test)]
mod static_tests {
    use super::*;
    use crate::workload::Profile;

    fn setup() -> (SimConfig, JobSpec) {
        let mut cfg = SimConfig {
            nodes: 2,
            racks: 1,
            jvm_min_ms: 1000,
            jvm_max_ms: 1000,
            replication: 1,
            ..SimConfig::default()
        };
        cfg.set_slots(1).unwrap();
        let mut spec = JobSpec::shaped("j".into(), 0, 2 * cfg.block_size, Profile::Generic);
        spec.reduces = 1;
        (cfg, spec)
    }

    #[test]
    fn static_run_by_hand() {
        let (cfg, spec) = setup();
        let plan = vec![
            vec![StaticTask::Map(0), StaticTask::Reduce(0)],
            vec![StaticTask::Map(1)],
        ];
        let r = run_static(&cfg, &spec, &plan).unwrap();
        // Two nodes in one rack: each map reads at the disk (local) or NIC rate.
        let compute = 128.0 * 40.0;
        let local = 1000.0 + 128.0 / 150.0 * 1000.0 + compute;
        let remote = 1000.0 + 128.0 / 117.0 * 1000.0 + compute;
        let done = r.maps_done_s * 1e3;
        assert!(done >= local - 1e-6 && done <= remote + 1e-6, "{r:?}");
        // The reduce: JVM up at the slot's map end, shuffle prefetched (25.6 MB).
        let share = 25.6;
        let tail = share * 40.0 + share / 60.0 * 1000.0;
        assert!(r.makespan_s * 1e3 > done + tail - 1e-6, "{r:?}");
        assert!(r.busy_slot_s > 0.0 && r.node_local <= 2);
    }

    #[test]
    fn static_plan_errors_name_the_task() {
        let (cfg, spec) = setup();
        let e =
            |plan: Vec<Vec<StaticTask>>| run_static(&cfg, &spec, &plan).unwrap_err().to_string();
        assert_eq!(
            e(vec![vec![StaticTask::Map(0)], vec![StaticTask::Map(0)]]),
            "configuration: static plan of job \"j\": map 0 appears twice"
        );
        assert_eq!(
            e(vec![vec![StaticTask::Map(0), StaticTask::Map(1)], vec![]]),
            "configuration: static plan of job \"j\": reduce 0 is not planned"
        );
        assert_eq!(
            e(vec![
                vec![StaticTask::Reduce(0), StaticTask::Map(0)],
                vec![StaticTask::Map(1)]
            ]),
            "configuration: static plan of job \"j\": map 0 comes after a reduce on its slot"
        );
        assert_eq!(
            e(vec![vec![StaticTask::Map(7)], vec![]]),
            "configuration: static plan of job \"j\": map 7 is not in the job"
        );
        assert_eq!(
            e(vec![vec![]]),
            "configuration: static plan of job \"j\": 1 slot lists for 2 nodes of 1 slots"
        );
    }
}
