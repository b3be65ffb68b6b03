//! `spindle churn-bench`: the core (a `Session`, as the JNI plugin holds
//! it) under MapReduce-shaped asks and churn, timed phase by phase: full
//! plans of an empty cluster, plans while the cluster fills, then heartbeats,
//! AM ask updates and plans while apps come and go.
//!
//! The asks are what MapReduce's AM (`RMContainerAllocator`) sends: one
//! map per input block, each block on `hosts_per_map` replica hosts as HDFS
//! places them (the first anywhere, the others on one other rack), and per
//! map one container asked on each replica host, on each replica's rack and
//! at ANY. So a 1,200-map app asks on about 3,100 distinct hosts of a
//! 10,000-node cluster. Containers are granted by heartbeats; the AM picks
//! the map a container runs (node-local, else rack-local, else any) and
//! sends its changed asks at its next heartbeat.
//!
//! Planning runs between heartbeats on the same thread, as the planner
//! thread's three steps (copy, plan, install), each timed on its own: a
//! heartbeat never waits for it here, and the heartbeat figures are the
//! decision alone.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use spindle_core::session::{BackgroundPlanner, PlanStats, ANY};
use spindle_core::{Grant, Locality, PolicyKind, Resources, Session, SessionConfig};

use crate::{ReproError, Result};

/// What `churn-bench` runs.
#[derive(Clone, Debug)]
pub struct ChurnSpec {
    pub policy: PolicyKind,
    pub nodes: usize,
    /// Nodes per rack (racks: nodes / this, at least 2).
    pub nodes_per_rack: usize,
    pub apps: usize,
    pub maps: usize,
    /// Replica hosts per map (MapReduce-shaped); 0: the old JNI bench's
    /// shape, 30 hosts per app with maps / 10 containers each.
    pub hosts_per_map: usize,
    /// Containers per node (8 GB, 8 vcores; 1 GB, 1 vcore containers).
    pub slots: u32,
    /// Full plans of the empty cluster, timed.
    pub full_plans: usize,
    /// Heartbeats of the churn phase (after the fill).
    pub heartbeats: usize,
    /// Heartbeats between plans (a plan starts only if an ask changed).
    pub plan_every: usize,
    /// A container runs this long (ms; heartbeats are 1 per node per s).
    pub container_ms: i64,
    pub seed: u64,
    /// Plans on a planner thread ([`BackgroundPlanner`], as the JNI core
    /// runs them) with the Session behind a mutex; heartbeats are timed
    /// with the wait for the lock, and the planner's lock holds reported.
    pub planner_thread: bool,
}

impl Default for ChurnSpec {
    fn default() -> Self {
        ChurnSpec {
            policy: PolicyKind::Asm1,
            nodes: 10_000,
            nodes_per_rack: 100,
            apps: 1_000,
            maps: 1_200,
            hosts_per_map: 3,
            slots: 8,
            full_plans: 3,
            heartbeats: 200_000,
            plan_every: 1_000,
            container_ms: 20_000,
            seed: 1,
            planner_thread: false,
        }
    }
}

/// Percentiles of a set of timings, in microseconds.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Spread {
    pub n: usize,
    pub p50: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
    pub mean: f64,
}

impl Spread {
    fn of(mut v: Vec<f64>) -> Spread {
        if v.is_empty() {
            return Spread::default();
        }
        v.sort_by(f64::total_cmp);
        let at = |q: f64| v[((v.len() as f64 * q) as usize).min(v.len() - 1)];
        Spread {
            n: v.len(),
            p50: at(0.5),
            p99: at(0.99),
            p999: at(0.999),
            max: v[v.len() - 1],
            mean: v.iter().sum::<f64>() / v.len() as f64,
        }
    }
}

/// One plan's three steps, in milliseconds, and the tasks it placed.
#[derive(Clone, Debug, Serialize)]
pub struct PlanTime {
    pub copy_ms: f64,
    pub plan_ms: f64,
    /// CPU time of the plan step on its thread (what other processes on a
    /// loaded machine do not inflate).
    pub plan_cpu_ms: f64,
    pub install_ms: f64,
    pub tasks: usize,
}

/// What `churn-bench` measured.
#[derive(Clone, Debug, Serialize)]
pub struct ChurnReport {
    pub policy: String,
    pub nodes: usize,
    pub apps: usize,
    pub maps: usize,
    pub hosts_per_map: usize,
    /// Distinct hosts one app asks on (mean over the first apps).
    pub hosts_per_app: f64,
    pub setup_ms: f64,
    /// Full plans of every pending map on the empty cluster.
    pub full: Vec<PlanTime>,
    /// Plans while the cluster fills (until every slot is taken).
    pub filling: Vec<PlanTime>,
    /// Plans under churn, once full.
    pub churn: Vec<PlanTime>,
    /// Heartbeat decisions under churn (us).
    pub heartbeat_us: Spread,
    /// AM ask updates (one `update_ask` call each) under churn (us).
    pub update_ask_us: Spread,
    pub containers: u64,
    pub node_local: f64,
    pub rack_local: f64,
    pub off_switch: f64,
    /// With `planner_thread`: the planner thread's figures, with its
    /// longest lock holds (copy and install).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub planner: Option<PlanStats>,
}

/// One AM: its maps' replica hosts, which maps are pending, and its asks.
struct Am {
    app: u32,
    name: String,
    /// Per map, its replica nodes.
    maps: Vec<Vec<u32>>,
    pending: Vec<bool>,
    left: usize,
    /// Pending maps per node and per rack (what the AM asks).
    host_ask: HashMap<u32, i32>,
    rack_ask: HashMap<u32, i32>,
    /// Pending maps by node and by rack, to pick a container's map.
    on_host: HashMap<u32, Vec<u32>>,
    on_rack: HashMap<u32, Vec<u32>>,
    /// Asks changed since the AM's last update.
    dirty_hosts: Vec<u32>,
    dirty_racks: Vec<u32>,
    alive: bool,
}

struct Bench<'s> {
    spec: &'s ChurnSpec,
    session: Arc<Mutex<Session>>,
    hosts: Vec<String>,
    racks: Vec<String>,
    rng: ChaCha8Rng,
    ams: Vec<Am>,
    by_app: HashMap<u32, usize>,
    /// Containers running: (end ms, node, app).
    running: std::collections::BinaryHeap<std::cmp::Reverse<(i64, u32, u32)>>,
    submitted: usize,
    local: [u64; 3],
    /// Containers running per node.
    busy: Vec<u32>,
}

const PRIORITY: i32 = 20;

/// CPU time of the calling thread, in milliseconds.
pub(crate) fn thread_cpu_ms() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return f64::NAN;
    }
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
}

fn container() -> Resources {
    Resources::new(1024, 1)
}

impl Bench<'_> {
    fn s(&self) -> MutexGuard<'_, Session> {
        self.session.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn rack_of(&self, node: u32) -> u32 {
        node % self.racks.len() as u32
    }

    /// A new AM with its maps' replicas (HDFS's default placement).
    fn new_am(&mut self) -> Am {
        let nodes = self.hosts.len() as u32;
        let racks = self.racks.len() as u32;
        let s = self.spec;
        let mut maps = Vec::with_capacity(s.maps);
        // The old JNI bench's shape: 30 hosts, maps/10 containers each.
        let thirty: Vec<u32> = (0..30).map(|_| self.rng.gen_range(0..nodes)).collect();
        for m in 0..s.maps {
            let mut r: Vec<u32> = Vec::with_capacity(s.hosts_per_map.max(3));
            if s.hosts_per_map == 0 {
                for k in 0..3 {
                    r.push(thirty[(m * 3 + k) % 30]);
                }
                r.dedup();
            } else {
                r.push(self.rng.gen_range(0..nodes));
                let first_rack = r[0] % racks;
                let other = (first_rack + self.rng.gen_range(1..racks)) % racks;
                let per_rack = nodes / racks;
                while r.len() < s.hosts_per_map {
                    let n = other + racks * self.rng.gen_range(0..per_rack);
                    if !r.contains(&n) {
                        r.push(n);
                    }
                }
            }
            maps.push(r);
        }
        let name = format!("application_1_{}", self.submitted);
        self.submitted += 1;
        let mut am = Am {
            app: 0,
            name,
            pending: vec![true; maps.len()],
            left: maps.len(),
            host_ask: HashMap::new(),
            rack_ask: HashMap::new(),
            on_host: HashMap::new(),
            on_rack: HashMap::new(),
            dirty_hosts: Vec::new(),
            dirty_racks: Vec::new(),
            alive: true,
            maps,
        };
        for (m, r) in am.maps.iter().enumerate() {
            let mut seen_racks: Vec<u32> = Vec::with_capacity(3);
            for &n in r {
                *am.host_ask.entry(n).or_default() += 1;
                am.on_host.entry(n).or_default().push(m as u32);
                let rk = n % racks;
                if !seen_racks.contains(&rk) {
                    seen_racks.push(rk);
                }
                *am.rack_ask.entry(rk).or_default() += 1;
            }
            for rk in seen_racks {
                am.on_rack.entry(rk).or_default().push(m as u32);
            }
        }
        am
    }

    /// Registers `am` and sends its first asks.
    fn submit(&mut self, mut am: Am, now: i64) -> Result<()> {
        let err = |e: spindle_core::SessionError| ReproError::Invalid(e.to_string());
        am.app = self.s().add_app(&am.name, 1.0, now).map_err(err)?;
        for (&n, &c) in &am.host_ask {
            self.s()
                .update_ask(
                    am.app,
                    PRIORITY,
                    &self.hosts[n as usize],
                    c,
                    container(),
                    true,
                )
                .map_err(err)?;
        }
        for (&r, &c) in &am.rack_ask {
            self.s()
                .update_ask(
                    am.app,
                    PRIORITY,
                    &self.racks[r as usize],
                    c,
                    container(),
                    true,
                )
                .map_err(err)?;
        }
        self.s()
            .update_ask(am.app, PRIORITY, ANY, am.left as i32, container(), true)
            .map_err(err)?;
        self.by_app.insert(am.app, self.ams.len());
        self.ams.push(am);
        Ok(())
    }

    /// The AM runs a map in a container granted on `node`: node-local if
    /// it can, else rack-local, else any pending map.
    fn take_map(&mut self, a: usize, node: u32) -> Option<Locality> {
        let rack = self.rack_of(node);
        let racks = self.racks.len() as u32;
        let am = &mut self.ams[a];
        if am.left == 0 {
            return None;
        }
        let pick = |list: Option<&mut Vec<u32>>, pending: &[bool]| -> Option<u32> {
            let list = list?;
            while let Some(&m) = list.last() {
                if pending[m as usize] {
                    return Some(m);
                }
                list.pop();
            }
            None
        };
        let (m, loc) = if let Some(m) = pick(am.on_host.get_mut(&node), &am.pending) {
            (m, Locality::Node)
        } else if let Some(m) = pick(am.on_rack.get_mut(&rack), &am.pending) {
            (m, Locality::Rack)
        } else {
            let m = am.pending.iter().position(|&p| p)? as u32;
            (m, Locality::OffSwitch)
        };
        am.pending[m as usize] = false;
        am.left -= 1;
        let mut seen_racks: Vec<u32> = Vec::with_capacity(3);
        for &n in &am.maps[m as usize] {
            if let Some(c) = am.host_ask.get_mut(&n) {
                *c -= 1;
            }
            am.dirty_hosts.push(n);
            let rk = n % racks;
            if !seen_racks.contains(&rk) {
                seen_racks.push(rk);
                if let Some(c) = am.rack_ask.get_mut(&rk) {
                    *c -= 1;
                }
                am.dirty_racks.push(rk);
            }
        }
        Some(loc)
    }

    /// The AM's heartbeat: its changed asks, each one `update_ask` call.
    fn am_update(&mut self, a: usize, times: &mut Vec<f64>) -> Result<()> {
        let err = |e: spindle_core::SessionError| ReproError::Invalid(e.to_string());
        let am = &mut self.ams[a];
        if !am.alive {
            return Ok(());
        }
        let mut hosts = std::mem::take(&mut am.dirty_hosts);
        let mut racks = std::mem::take(&mut am.dirty_racks);
        hosts.sort_unstable();
        hosts.dedup();
        racks.sort_unstable();
        racks.dedup();
        let app = am.app;
        let mut calls: Vec<(String, i32)> = Vec::with_capacity(hosts.len() + racks.len() + 1);
        for n in hosts {
            let c = am.host_ask.get(&n).copied().unwrap_or(0);
            calls.push((self.hosts[n as usize].clone(), c));
        }
        for r in racks {
            let c = am.rack_ask.get(&r).copied().unwrap_or(0);
            calls.push((self.racks[r as usize].clone(), c));
        }
        calls.push((ANY.to_string(), am.left as i32));
        for (name, c) in calls {
            let t = Instant::now();
            self.s()
                .update_ask(app, PRIORITY, &name, c.max(0), container(), true)
                .map_err(err)?;
            times.push(t.elapsed().as_secs_f64() * 1e6);
        }
        Ok(())
    }

    /// One plan, its three steps timed.
    fn plan(&mut self) -> PlanTime {
        let mut session = self.s();
        let t0 = Instant::now();
        let req = session.plan_request();
        let t1 = Instant::now();
        let c1 = thread_cpu_ms();
        let result = req.plan();
        let plan_cpu_ms = thread_cpu_ms() - c1;
        let t2 = Instant::now();
        let tasks = result.tasks();
        let garbage = session.install_plan(result);
        let t3 = Instant::now();
        drop(garbage);
        drop(req);
        let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
        PlanTime {
            copy_ms: ms(t0, t1),
            plan_ms: ms(t1, t2),
            plan_cpu_ms,
            install_ms: ms(t2, t3),
            tasks,
        }
    }

    /// One node heartbeat at `now`: grants go to their AMs, which start maps.
    fn heartbeat(&mut self, node: u32, now: i64, out: &mut Vec<Grant>) -> Result<f64> {
        while let Some(std::cmp::Reverse((end, n, app))) = self.running.peek().copied() {
            if end > now {
                break;
            }
            self.running.pop();
            self.busy[n as usize] -= 1;
            let live = self.by_app.get(&app).is_some_and(|&a| self.ams[a].alive);
            let r = if live {
                self.s().app_container_finished(n, app)
            } else {
                self.s().container_finished(n)
            };
            r.map_err(|e| ReproError::Invalid(e.to_string()))?;
        }
        let left = self.spec.slots.saturating_sub(self.busy[node as usize]) as i64;
        let free = Resources::new(1024 * left, left as i32);
        // Timed with the wait for the lock: what a host's heartbeat pays.
        let t = Instant::now();
        self.s()
            .node_heartbeat(node, free, now, out)
            .map_err(|e| ReproError::Invalid(e.to_string()))?;
        let us = t.elapsed().as_secs_f64() * 1e6;
        for g in out.iter() {
            for _ in 0..g.count {
                let Some(&a) = self.by_app.get(&g.app) else {
                    continue;
                };
                if let Some(loc) = self.take_map(a, node) {
                    self.local[match loc {
                        Locality::Node => 0,
                        Locality::Rack => 1,
                        Locality::OffSwitch => 2,
                    }] += 1;
                }
                self.busy[node as usize] += 1;
                self.running.push(std::cmp::Reverse((
                    now + self.spec.container_ms,
                    node,
                    g.app,
                )));
            }
        }
        Ok(us)
    }
}

/// Runs the benchmark: set-up, full plans, the fill, then churn.
pub fn run(spec: &ChurnSpec) -> Result<ChurnReport> {
    if spec.nodes < 2 || spec.apps == 0 || spec.maps == 0 || spec.slots == 0 {
        return Err(ReproError::Invalid(
            "need at least 2 nodes, 1 app, 1 map and 1 slot".into(),
        ));
    }
    if spec.hosts_per_map > 16 {
        return Err(ReproError::Invalid(format!(
            "--hosts-per-map {}: at most 16",
            spec.hosts_per_map
        )));
    }
    let racks = (spec.nodes / spec.nodes_per_rack.max(1)).max(2);
    if spec.hosts_per_map > spec.nodes / racks + 1 {
        return Err(ReproError::Invalid(format!(
            "--hosts-per-map {}: more than a rack's {} nodes",
            spec.hosts_per_map,
            spec.nodes / racks
        )));
    }
    let t_setup = Instant::now();
    let mut session = Session::new(SessionConfig {
        policy: spec.policy,
        seed: spec.seed,
        ..SessionConfig::default()
    });
    // Plans run where the bench says, never on a heartbeat (as with the
    // plugin's planner thread).
    session.set_planning(spindle_core::session::Planning::Background);
    let hosts: Vec<String> = (0..spec.nodes).map(|n| format!("node{n:05}")).collect();
    let rack_names: Vec<String> = (0..racks).map(|r| format!("/rack{r}")).collect();
    let cap = Resources::new(1024 * i64::from(spec.slots), spec.slots as i32);
    for (n, h) in hosts.iter().enumerate() {
        session
            .add_node(h, &rack_names[n % racks], cap, 1.0)
            .map_err(|e| ReproError::Invalid(e.to_string()))?;
    }
    let mut b = Bench {
        spec,
        session: Arc::new(Mutex::new(session)),
        hosts,
        racks: rack_names,
        rng: ChaCha8Rng::seed_from_u64(spec.seed),
        ams: Vec::with_capacity(spec.apps * 2),
        by_app: HashMap::new(),
        running: Default::default(),
        submitted: 0,
        local: [0; 3],
        busy: vec![0; spec.nodes],
    };
    for _ in 0..spec.apps {
        let am = b.new_am();
        b.submit(am, 0)?;
    }
    let sample = b.ams.len().min(20);
    let hosts_per_app = b.ams[..sample]
        .iter()
        .map(|a| a.host_ask.len() as f64)
        .sum::<f64>()
        / sample as f64;
    let setup_ms = t_setup.elapsed().as_secs_f64() * 1e3;
    let mut full = Vec::new();
    let planner = if spec.planner_thread {
        let p = BackgroundPlanner::spawn(b.session.clone(), |s| s, Duration::from_millis(1), None)
            .map_err(|e| ReproError::Invalid(format!("starting the planner thread: {e}")))?;
        // The first plan, of every pending map.
        let t = Instant::now();
        while p.stats().plans == 0 && t.elapsed() < Duration::from_secs(600) {
            std::thread::sleep(Duration::from_millis(5));
        }
        Some(p)
    } else {
        for _ in 0..spec.full_plans {
            full.push(b.plan());
        }
        None
    };
    let manual = planner.is_none();
    let nodes = spec.nodes as u32;
    let mut out: Vec<Grant> = Vec::with_capacity(64);
    let mut hb_times = Vec::with_capacity(spec.heartbeats);
    let mut ask_times = Vec::new();
    let mut scratch = Vec::new();
    let capacity = u64::from(spec.slots) * spec.nodes as u64;
    // The fill: heartbeats and AM updates until every slot is taken (or
    // three rounds of the cluster), a plan every `plan_every` heartbeats.
    let mut filling = Vec::new();
    let mut i: usize = 0;
    let mut cursor = 0usize;
    let now_of = |i: usize| (i as i64 * 1000) / spec.nodes as i64;
    let step = |b: &mut Bench,
                i: usize,
                cursor: &mut usize,
                out: &mut Vec<Grant>,
                asks: &mut Vec<f64>|
     -> Result<f64> {
        let node = ((i as u64 * 7919) % u64::from(nodes)) as u32;
        let us = b.heartbeat(node, now_of(i), out)?;
        if i % 10 == 9 && !b.ams.is_empty() {
            // One AM heartbeat per 10 node heartbeats.
            let a = *cursor % b.ams.len();
            *cursor += 1;
            b.am_update(a, asks)?;
        }
        Ok(us)
    };
    while (b.running.len() as u64) < capacity && i < 3 * spec.nodes {
        step(&mut b, i, &mut cursor, &mut out, &mut scratch)?;
        i += 1;
        // The planner thread re-plans as soon as it is done: often, while the
        // cluster fills fast.
        if manual && i.is_multiple_of((spec.plan_every / 10).max(1)) && b.s().wants_plan() {
            filling.push(b.plan());
        }
    }
    // Churn: apps finish and arrive, one every 500 heartbeats.
    let mut churn = Vec::new();
    let first_live = &mut 0usize;
    for k in 0..spec.heartbeats {
        let us = step(&mut b, i, &mut cursor, &mut out, &mut ask_times)?;
        hb_times.push(us);
        i += 1;
        if k % 500 == 499 {
            while *first_live < b.ams.len() && !b.ams[*first_live].alive {
                *first_live += 1;
            }
            if let Some(am) = b.ams.get_mut(*first_live) {
                am.alive = false;
                let app = am.app;
                b.s()
                    .finish_app(app)
                    .map_err(|e| ReproError::Invalid(e.to_string()))?;
            }
            let am = b.new_am();
            b.submit(am, now_of(i))?;
        }
        if manual && i.is_multiple_of(spec.plan_every.max(1)) && b.s().wants_plan() {
            churn.push(b.plan());
        }
    }
    let total = b.local.iter().sum::<u64>().max(1) as f64;
    Ok(ChurnReport {
        policy: spec.policy.name().to_string(),
        nodes: spec.nodes,
        apps: spec.apps,
        maps: spec.maps,
        hosts_per_map: spec.hosts_per_map,
        hosts_per_app,
        setup_ms,
        full,
        filling,
        churn,
        heartbeat_us: Spread::of(hb_times),
        update_ask_us: Spread::of(ask_times),
        containers: b.local.iter().sum(),
        node_local: b.local[0] as f64 / total,
        rack_local: b.local[1] as f64 / total,
        off_switch: b.local[2] as f64 / total,
        planner: planner.map(|p| p.stats()),
    })
}

impl ChurnReport {
    /// The report as text: one line per phase.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} on {} nodes, {} apps x {} maps, {} replica hosts per map ({:.0} distinct hosts per app); set-up {:.0} ms",
            self.policy,
            self.nodes,
            self.apps,
            self.maps,
            self.hosts_per_map,
            self.hosts_per_app,
            self.setup_ms
        );
        let _ = writeln!(
            s,
            "{:<10} {:>6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
            "plans", "count", "tasks", "copy ms", "plan p50", "plan max", "cpu p50", "install ms"
        );
        for (name, v) in [
            ("full", &self.full),
            ("filling", &self.filling),
            ("churn", &self.churn),
        ] {
            let plan = Spread::of(v.iter().map(|p| p.plan_ms).collect());
            let cpu = Spread::of(v.iter().map(|p| p.plan_cpu_ms).collect());
            let copy = v.iter().map(|p| p.copy_ms).fold(0.0, f64::max);
            let install = v.iter().map(|p| p.install_ms).fold(0.0, f64::max);
            let tasks = v.iter().map(|p| p.tasks).max().unwrap_or(0);
            let _ = writeln!(
                s,
                "{name:<10} {:>6} {tasks:>10} {copy:>10.1} {:>10.1} {:>10.1} {:>10.1} {install:>10.1}",
                v.len(),
                plan.p50,
                plan.max,
                cpu.p50
            );
        }
        for (name, sp) in [
            ("heartbeat", &self.heartbeat_us),
            ("update_ask", &self.update_ask_us),
        ] {
            let _ = writeln!(
                s,
                "{name} us: p50 {:.2}, p99 {:.2}, p999 {:.2}, max {:.0} ({} calls)",
                sp.p50, sp.p99, sp.p999, sp.max, sp.n
            );
        }
        if let Some(p) = &self.planner {
            let _ = writeln!(
                s,
                "planner thread: {} plans, last {} tasks in {:.0} ms, longest {:.0} ms; longest lock hold: copy {:.0} us, install {:.0} us",
                p.plans, p.last_tasks, p.last_ms, p.max_ms, p.max_copy_us, p.max_install_us
            );
        }
        let _ = writeln!(
            s,
            "containers {} under churn and fill: node-local {:.3}, rack-local {:.3}, off-switch {:.3}",
            self.containers, self.node_local, self.rack_local, self.off_switch
        );
        s
    }
}
