//! The scheduler's state and decisions, driven by events. The Java plugin (via
//! JNI) and the simulator both call this API the way a YARN ResourceManager
//! would: nodes, applications and asks come in as events; a plan is computed
//! when they change; each node heartbeat pops that node's ordered queue and
//! returns grants of (application, priority, count, locality).
//!
//! What the RM controls is only which application gets a container on which
//! node at which locality level; the stock MapReduce AM then picks the task
//! itself (first pending one local to the host, then rack, then any). So the
//! Session plans over tasks it either knows exactly (`set_input_blocks`) or
//! synthesises from the asks' per-host counts, and re-plans when the asks
//! change, which is how it learns what actually ran.
//!
//! Hot path: a heartbeat in the steady state (no event since the last plan)
//! allocates nothing: it writes grants into a caller-owned buffer and reads
//! asks through interned integer ids.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use thiserror::Error;

use serde::{Deserialize, Serialize};

use crate::model::{CostModel, Locality, NodeId, NONE};
use crate::policy::asm1_priced::Durations;
use crate::policy::delay::LocalityDelay;
use crate::policy::heartbeat_rule::{GroupScratch, HeartbeatRule, Pick};
use crate::policy::{Dynamic, PolicyKind};

/// Dense application index, given by [`Session::add_app`].
pub type AppId = u32;

/// How many of the longest queues a stealing node looks at (bounds the
/// heartbeat's cost on large clusters; queues only shrink between plans).
const STEAL_CANDIDATES: usize = 64;

/// How many entries at the back of the victim's queue a stealing node looks
/// at (bounds the heartbeat; widely replicated tasks sit at the back).
const STEAL_SCAN: usize = 64;

/// How many pending tasks of a pool a grant that was not planned looks at
/// to book one that fits its locality.
const BOOK_SCAN: usize = 1024;

/// The resource name of an ask at any location (`ResourceRequest.ANY`).
pub const ANY: &str = "*";

/// Memory and virtual cores, as YARN counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resources {
    pub memory_mb: i64,
    pub vcores: i32,
}

impl Resources {
    pub fn new(memory_mb: i64, vcores: i32) -> Resources {
        Resources { memory_mb, vcores }
    }

    /// Whether `need` fits into `self`.
    pub fn fits(&self, need: &Resources) -> bool {
        need.memory_mb <= self.memory_mb && need.vcores <= self.vcores
    }

    /// How many containers of size `each` fit into `self` (at least 1 when `each` is empty).
    pub fn slots_of(&self, each: &Resources) -> u32 {
        let by_mem = if each.memory_mb > 0 {
            self.memory_mb / each.memory_mb
        } else {
            i64::MAX
        };
        let by_cpu = if each.vcores > 0 {
            (self.vcores / each.vcores) as i64
        } else {
            i64::MAX
        };
        by_mem.min(by_cpu).clamp(1, u32::MAX as i64) as u32
    }
}

/// One decision of a heartbeat: give `count` containers of `app` at `priority`
/// on the heartbeating node, at `locality`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    pub app: AppId,
    pub priority: i32,
    pub count: u32,
    pub locality: Locality,
}

/// Bad events. Messages name the node, application or ask that is wrong.
#[derive(Debug, Error, PartialEq)]
pub enum SessionError {
    #[error("node id {0} is not registered")]
    UnknownNode(NodeId),
    #[error("node {host:?} (id {node}) was removed")]
    NodeRemoved { node: NodeId, host: String },
    #[error("node {host:?} is already registered (id {node})")]
    DuplicateNode { node: NodeId, host: String },
    #[error("node {host:?}: {problem}")]
    BadNode { host: String, problem: String },
    #[error("application id {0} is not registered")]
    UnknownApp(AppId),
    #[error("application {app:?} has finished")]
    AppFinished { app: String },
    #[error("application {app:?} is already registered (id {id})")]
    DuplicateApp { app: String, id: AppId },
    #[error("application {app:?}: weight must be a positive finite number, got {weight}")]
    BadWeight { app: String, weight: f64 },
    #[error("application {app:?}: {problem}")]
    BadApp { app: String, problem: String },
    #[error("application {app:?}, priority {priority}, resource {resource:?}: {problem}")]
    BadAsk {
        app: String,
        priority: i32,
        resource: String,
        problem: String,
    },
}

/// What one ask may make the Session hold in memory. No ask costs memory in
/// proportion to its count: tasks that can run anywhere (the ANY count beyond
/// what hosts ask for) stay a number, rack asks stay a number, and only
/// host asks become tasks for the planner, within these bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest count of one host ask (`max-host-ask`). No node runs a million
    /// tasks of one job; a bigger count is an AM bug and gets an error.
    pub max_host_ask: u32,
    /// Most tasks synthesised from host asks for the planner, over all
    /// applications (`max-planned-tasks`, about 50 bytes each). Beyond it the
    /// asks stay counts, served at heartbeats by the policy's fallback.
    pub max_planned_tasks: usize,
    /// Most distinct host, rack and resource names the Session keeps
    /// (`max-names`): every name an AM asks for is remembered, so a stream
    /// of made-up names is refused past it, naming the app and the name.
    pub max_names: usize,
}

/// Default of [`Limits::max_names`] (about 110 bytes each; above the
/// simulator's million nodes and their racks).
pub const DEFAULT_MAX_NAMES: usize = 4_000_000;

/// Default of [`Limits::max_host_ask`].
pub const DEFAULT_MAX_HOST_ASK: u32 = 1_000_000;
/// Default of [`Limits::max_planned_tasks`].
pub const DEFAULT_MAX_PLANNED_TASKS: usize = 4_000_000;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_host_ask: DEFAULT_MAX_HOST_ASK,
            max_planned_tasks: DEFAULT_MAX_PLANNED_TASKS,
            max_names: DEFAULT_MAX_NAMES,
        }
    }
}

/// Why a host, rack, application or resource name is refused, if it is.
pub(crate) fn bad_name(what: &str, name: &str) -> Option<String> {
    if name.is_empty() {
        return Some(format!("{what} is empty"));
    }
    name.chars()
        .find(|c| c.is_control())
        .map(|c| format!("{what} contains the control character U+{:04X}", c as u32))
}

/// How the Session decides.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SessionConfig {
    pub policy: PolicyKind,
    pub cost: CostModel,
    pub seed: u64,
    /// Locality delay of the `hadoop-default` policy.
    pub delay: LocalityDelay,
    /// Hard cap on a locality wait (`spindle.locality.max-wait-ms`): under a
    /// local-only policy or `asm1-priced`, an ask group with host or rack
    /// asks pending this long takes a rack-local, then off-switch, free slot
    /// before any location-less ask (reducers) does; one that has had no
    /// container for this long also goes before a later job's planned
    /// queue. Negative: wait for ever (the policies as their papers state
    /// them). Stated at YARN's default 1 s node heartbeat: when the core
    /// hears each node less often, the wait stretches by as much (at most
    /// [`MAX_WAIT_STRETCH`] times), so a replica holder gets as many turns.
    pub max_wait_ms: i64,
    /// An ask group with no container for this long is named in the log as
    /// stalled (once, until it gets one).
    pub stall_ms: i64,
    /// Order of applications in planned queues and in the fallback.
    pub job_order: JobOrder,
    /// Most off-switch containers one node heartbeat grants; then the
    /// heartbeat ends (the CapacityScheduler's
    /// `per-node-heartbeat.maximum-offswitch-assignments`). Like Hadoop's,
    /// a value below 1 counts as 1.
    pub offswitch_per_heartbeat: u32,
    /// Which task of an exact pool (a job's split file) a grant books.
    pub task_choice: TaskChoice,
}

/// Which task a grant of an exact pool books: the AM, not the RM, picks the
/// task that runs in a container, and the Session's pending tasks must stay
/// the AM's, or its next grants are planned for tasks already running.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TaskChoice {
    /// The stock MapReduce AM's: the first pending map in split order with a
    /// replica on the container's host, else in its rack, else any
    /// (`RMContainerAllocator.assignMapsWithLocality`).
    #[default]
    MapReduceAm,
    /// The planned task: an AM that is told which task to run.
    Planned,
}

impl TaskChoice {
    pub fn from_name(name: &str) -> Option<TaskChoice> {
        match name {
            "mapreduce" => Some(TaskChoice::MapReduceAm),
            "planned" => Some(TaskChoice::Planned),
            _ => None,
        }
    }

    pub fn names() -> &'static str {
        "mapreduce, planned"
    }
}

/// Most LP jobs (open stages of live applications) [`JobOrder::Spc`]
/// solves; above it the plan uses [`JobOrder::WeightedRemaining`] (the LP,
/// by interior point chains, takes about 0.34 s of CPU cold and 0.14 s warm
/// at 1,000 jobs, 0.1 s cold at 500, 1.1 s at 2,000, 3.3 s at 3,000 and
/// 18.5 s at 5,000: docs/benchmarks.md).
pub const SPC_MAX_LP_JOBS: usize = 1000;

/// Bounded overtaking under [`JobOrder::WeightedRemaining`]. Smith's rule
/// (least weighted remaining work first) lets every smaller job that
/// arrives overtake a bigger one, so under a stream of them the big job
/// waits without bound where FIFO would have run it: a 649-map job of
/// SWIM's FB-2010 at load 0.3 got one container in 53 s while later jobs
/// took 1,200, and ended at 4.3 times its FIFO time. Overtaking is the
/// only delay Smith's rule adds to FIFO's, and FIFO's time for a job is
/// about its own containers plus those pending or running at its
/// registration, over the cluster's rate. So a job with maps pending that
/// later jobs overtook by this many times those two together (and by a
/// wave of the cluster at least) goes before every job that is not,
/// oldest first, for one wave of the cluster's containers; then the count
/// starts again. Overtaking counts the containers granted to later jobs
/// less the job's own (a trickle of grants does not hide it). Its extra
/// delay stays within about this many times its FIFO time, and a job in a
/// burst, whose FIFO time is long, is seldom promoted, so Smith's rule
/// keeps its mean.
pub const OVERTAKE_BOUND: u64 = 1;

/// Default of [`SessionConfig::max_wait_ms`].
pub const DEFAULT_MAX_WAIT_MS: i64 = 3_000;
/// The node heartbeat interval [`SessionConfig::max_wait_ms`] is stated at
/// (YARN's default `yarn.resourcemanager.nodemanagers.heartbeat-interval-ms`).
pub const REFERENCE_BEAT_MS: f64 = 1_000.0;
/// Most the locality wait stretches when the core hears nodes less often.
pub const MAX_WAIT_STRETCH: f64 = 10.0;
/// Default of [`SessionConfig::stall_ms`].
pub const DEFAULT_STALL_MS: i64 = 600_000;
/// Default of [`SessionConfig::offswitch_per_heartbeat`]: Hadoop's
/// `CapacitySchedulerConfiguration.DEFAULT_OFFSWITCH_PER_HEARTBEAT_LIMIT`.
pub const DEFAULT_OFFSWITCH_PER_HEARTBEAT: u32 = 1;

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            policy: PolicyKind::Asm1,
            cost: CostModel::default(),
            seed: 1,
            delay: LocalityDelay::default(),
            max_wait_ms: DEFAULT_MAX_WAIT_MS,
            stall_ms: DEFAULT_STALL_MS,
            job_order: JobOrder::default(),
            offswitch_per_heartbeat: DEFAULT_OFFSWITCH_PER_HEARTBEAT,
            task_choice: TaskChoice::default(),
        }
    }
}

/// Everything a host tells the Session, as one value: the Java plugin and the
/// simulator produce the same stream, so a recorded log can be replayed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum SessionEvent {
    AddNode {
        host: String,
        rack: String,
        capacity: Resources,
        speed: f64,
    },
    RemoveNode {
        node: NodeId,
    },
    UpdateNode {
        node: NodeId,
        capacity: Resources,
    },
    AddApp {
        app: String,
        weight: f64,
        submit_ms: i64,
    },
    FinishApp {
        app: AppId,
    },
    UpdateAsk {
        app: AppId,
        priority: i32,
        resource: String,
        count: i32,
        capability: Resources,
        relax_locality: bool,
    },
    InputBlocks {
        app: AppId,
        priority: i32,
        tasks: Vec<Vec<String>>,
    },
    ContainerFinished {
        node: NodeId,
        /// The container's application, when the host says.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        app: Option<AppId>,
    },
    Heartbeat {
        node: NodeId,
        free: Resources,
        now_ms: i64,
    },
    /// The application's weight changed (its YARN priority was updated).
    SetAppWeight {
        app: AppId,
        weight: f64,
    },
    /// The application's AM reported its progress at allocate.
    AppProgress {
        app: AppId,
        progress: f32,
        now_ms: i64,
    },
    /// A running container of the application, reported to an RM that
    /// restarted (work-preserving recovery).
    ContainerRecovered {
        node: NodeId,
        app: AppId,
    },
}

/// A queued decision: run task `task` of ask group `group` of `app` here.
/// The group's priority travels along: a plan made on a snapshot may meet
/// groups that moved since (a new priority inserted before them).
#[derive(Clone, Copy, Debug)]
struct Slot {
    app: AppId,
    group: u32,
    priority: i32,
    task: u32,
    locality: Locality,
}

/// A heartbeat rule's pick: no planned task.
impl From<Pick> for Slot {
    fn from(p: Pick) -> Slot {
        Slot {
            app: p.app,
            group: p.group,
            priority: p.priority,
            task: NONE,
            locality: p.locality,
        }
    }
}

struct NodeState {
    host: String,
    name: u32,
    rack: u32,
    capacity: Resources,
    speed: f64,
    alive: bool,
    running: u32,
    queue: VecDeque<Slot>,
    /// Seq of its last idle entry in [`Session::activities`].
    explained: u64,
    /// Time of its last heartbeat; `i64::MIN` before the first.
    last_beat_ms: i64,
}

/// Ask counts by interned host or rack name. The heartbeat looks one up
/// for every queue entry it checks: a multiplicative hash of the dense id,
/// not SipHash (the ids are ours, not an attacker's).
type Counts = HashMap<u32, i32, BuildHasherDefault<NameHasher>>;

#[derive(Default, Clone, Copy)]
struct NameHasher(u64);

impl Hasher for NameHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = (self.0 ^ n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A group as a plan covered it: its pool and the tasks below `upto` queued.
/// Here, not in `incremental.rs`, so that `planning.rs` (which makes it) and
/// `incremental.rs` (which keeps it) do not import each other.
pub(super) struct Covered {
    pub(super) app: AppId,
    pub(super) priority: i32,
    pub(super) pool: Arc<Replicas>,
    pub(super) upto: usize,
}

/// Replica hosts of each task of a pool, flat (task i holds
/// `hosts[start[i]..start[i + 1]]`). Immutable once built, so a plan in
/// flight shares it with the Session instead of copying it.
#[derive(Clone, Debug, Default)]
pub struct Replicas {
    start: Vec<usize>,
    hosts: Vec<NodeId>,
}

impl Replicas {
    fn from_lists<I: IntoIterator<Item = Vec<NodeId>>>(lists: I) -> Replicas {
        let mut r = Replicas {
            start: vec![0],
            hosts: Vec::new(),
        };
        for l in lists {
            r.hosts.extend_from_slice(&l);
            r.start.push(r.hosts.len());
        }
        r
    }

    fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// Appends the tasks of `more` (incremental planning).
    fn extend(&mut self, more: &Replicas) {
        if self.start.is_empty() {
            self.start.push(0);
        }
        for t in 0..more.len() {
            self.hosts.extend_from_slice(more.of(t));
            self.start.push(self.hosts.len());
        }
    }

    fn of(&self, task: usize) -> &[NodeId] {
        match (self.start.get(task), self.start.get(task + 1)) {
            (Some(&a), Some(&b)) => &self.hosts[a..b],
            _ => &[],
        }
    }
}

/// The tasks the planner places for one ask group: exact (from input
/// blocks) or synthesised from the asks; which of them the Session
/// believes started.
#[derive(Default)]
struct Pool {
    replicas: Arc<Replicas>,
    started: Vec<bool>,
    /// How many of `started` are set (incremental planning's count of
    /// pending tasks, without a scan).
    started_n: usize,
}

impl Pool {
    fn len(&self) -> usize {
        self.started.len()
    }

    /// Sets task `t`'s started mark to `on`, keeping `started_n`.
    fn mark(&mut self, t: usize, on: bool) {
        if let Some(s) = self.started.get_mut(t) {
            if *s != on {
                *s = on;
                if on {
                    self.started_n += 1;
                } else {
                    self.started_n -= 1;
                }
            }
        }
    }

    /// Whether task `i` started (or does not exist).
    fn started(&self, i: usize) -> bool {
        self.started.get(i).is_none_or(|&s| s)
    }
}

/// The asks of one application at one priority.
struct Group {
    priority: i32,
    capability: Resources,
    relax: bool,
    any: i32,
    /// Host and rack ask counts by interned name.
    counts: Counts,
    pool: Pool,
    /// Pool from `set_input_blocks` (kept across ask updates) rather than synthesised.
    exact: bool,
    /// Pool tasks before this index are all started.
    first_free: usize,
    /// When this group last got a container, or began asking: the start of
    /// its locality wait before its node's planned queue (`serve_overdue`).
    wait_from: i64,
    /// When its pending containers were asked for (kept across its
    /// grants). A slot that would otherwise idle serves a group whose
    /// oldest ask waited the cap (`serve_starving`): a job whose maps name
    /// one busy host each gets a local container somewhere every few
    /// seconds, so `wait_from` never ages while most of its maps wait.
    asked: ask_ages::AskAges,
    /// The stall detector has named this group since its last container.
    stall_logged: bool,
    /// The policy's heartbeat rule's state for this group (missed
    /// opportunities, the FairScheduler's allowed level).
    scratch: GroupScratch,
    /// Incremental planning (ASM1): pool tasks below this index were
    /// queued, by the last plan or by an insertion since.
    queued_upto: usize,
    /// Plan generation at which an ask of this group last grew.
    grew_gen: u64,
    /// Listed for an incremental insertion.
    listed: bool,
    /// Synthesised tasks being appended, a part at a time.
    dealing: incremental::Dealing,
    /// It has asked for a host or rack, or has exact input: a map stage.
    located: bool,
    /// Its finished containers' work (S-PC's reduce stage: a stage's size).
    size: stage_times::StageTime,
}

impl Group {
    /// Whether the host or rack `name` still has containers asked for.
    fn asked(&self, name: u32) -> bool {
        self.counts.get(&name).copied().unwrap_or(0) > 0
    }

    /// The most local level this group asks for on `node`.
    fn level_on(&self, node: &NodeState) -> Locality {
        if self.asked(node.name) {
            Locality::Node
        } else if self.asked(node.rack) {
            Locality::Rack
        } else {
            Locality::OffSwitch
        }
    }
}

struct AppState {
    name: String,
    submit: i64,
    /// Weight of the job (`spindle.job.weight` or YARN priority).
    weight: f64,
    /// Containers granted and not reported finished (hosts that name the
    /// app when a container finishes; the FairScheduler's usage).
    running: u32,
    alive: bool,
    groups: Vec<Group>,
    /// Containers its groups ask for (each group's `any`, at least 0),
    /// kept as `any` changes: a re-rank (at every registration and finish)
    /// then reads no group, which at thousands of apps cost milliseconds
    /// of cache misses under the host's lock.
    pending: u64,
    /// The last progress its AM reported (0 to 1) and when (ms), as the RM
    /// sees it at allocate; `None` before the first report. Kept for job
    /// order planners (S-PC's remaining work, S-PC Sect. V), beside
    /// `running`; nothing reads it on the heartbeat.
    progress: Option<(f32, i64)>,
    /// The first report above zero and the container time (ms) the app had
    /// run by then: where the JVM-start-up corrected estimate starts.
    first_progress: Option<(f32, f64)>,
    /// Rank key from the last plan under [`JobOrder::Spc`] (`C_j^LP`, or the
    /// weighted-remaining key when it fell back); infinite until planned.
    order_key: f64,
    /// Container time run so far (ms, completed and running ones), the
    /// time it was last brought up to date, and containers completed:
    /// the app's mean container duration for [`JobOrder::Spc`].
    run_ms: f64,
    run_since: i64,
    done: u32,
    /// [`LaterGrants::after`] less the overtaking counted so far: the
    /// value at its last promotion (at registration: 0) plus its own
    /// grants since, at most the current value.
    overtaken_from: u64,
    /// Grants left in its turn at the front (a wave of the cluster), once
    /// overtaken by [`OVERTAKE_BOUND`] times its containers: it ranks
    /// first under [`JobOrder::WeightedRemaining`] while this is above 0.
    promoted: u32,
    /// Containers pending or running at its registration: what FIFO
    /// would have run before it.
    ahead: u64,
    /// Seq of its last passed-over entry in [`Session::activities`].
    explained: u64,
    /// It has asked for a host or rack (or has exact input): a MapReduce
    /// job with a map stage, whose location-less asks are its reducers
    /// ([`crate::policy::ReduceStage`]).
    mapped: bool,
    /// A plan has seen it ask for containers without a location after its
    /// maps (its reducers): its AM's progress then weighs maps and reduces
    /// half each (MapReduce's JobImpl), also once the reducers run.
    reduces: bool,
}

impl AppState {
    /// Keeps `pending` after a group's `any` went from `old` to `new`.
    fn any_changed(&mut self, old: i32, new: i32) {
        self.pending = (self.pending + new.max(0) as u64).saturating_sub(old.max(0) as u64);
    }

    /// `pending` counted again from the groups (tests check the cache).
    fn pending_counted(&self) -> u64 {
        self.groups.iter().map(|g| g.any.max(0) as u64).sum()
    }

    /// Brings the container time run up to `now`.
    fn advance(&mut self, now: i64) {
        if now > self.run_since {
            self.run_ms += self.running as f64 * (now - self.run_since) as f64;
            self.run_since = now;
        }
    }

    /// A container of this app was granted at `now`.
    pub(super) fn container_started(&mut self, now: i64) {
        self.advance(now);
        self.running += 1;
    }

    /// Container time (ms) run by `now`, running containers included.
    fn run_ms_at(&self, now: i64) -> f64 {
        self.run_ms + self.running as f64 * (now - self.run_since).max(0) as f64
    }

    /// Remaining container time (ms) by S-PC Sect. V's estimator, read
    /// as in `crate::estimate` but over the job's container time instead of
    /// one task's wall time: the time per unit of progress is measured from
    /// the first report above zero, so the AM's and the JVMs' start-up,
    /// before any progress, do not count. `None` before two reports apart.
    /// With `map_stage`, of the map stage alone: a MapReduce AM weighs maps
    /// and reduces half each (JobImpl), so a job with reducers reports its
    /// map stage's progress halved, and read whole its reduce half would
    /// count as long as its maps (`None` once the maps are done).
    fn remaining_ms(&self, now: i64, map_stage: bool) -> Option<f64> {
        let (fp, w_fp) = self.first_progress?;
        let (cp, _) = self.progress?;
        let (mut fp, mut cp) = (f64::from(fp), f64::from(cp));
        if map_stage {
            if cp >= 0.5 {
                return None;
            }
            (fp, cp) = (2.0 * fp, 2.0 * cp);
        }
        let spent = self.run_ms_at(now) - w_fp;
        (cp > fp && spent > 0.0).then(|| (1.0 - cp) * spent / (cp - fp))
    }

    /// Mean work of its map stage's finished containers (run time times
    /// node speed, over its groups that asked for a host or rack).
    fn map_work_ms(&self) -> Option<f64> {
        self.groups
            .iter()
            .filter(|g| g.located)
            .fold(stage_times::StageTime::default(), |t, g| t.merge(g.size))
            .mean()
    }

    /// Mean container duration (ms) at `now`: time run by its containers
    /// (running ones count their time so far) over their number; `None`
    /// before one has completed.
    fn mean_container_ms(&self, now: i64) -> Option<f64> {
        if self.done == 0 {
            return None;
        }
        let open = self.running as f64 * (now - self.run_since).max(0) as f64;
        Some((self.run_ms + open) / f64::from(self.done + self.running))
    }
}

/// Containers granted per application, summed by a Fenwick tree over the
/// dense application ids (registration order): how many went to the
/// applications registered after one, in O(log apps) per grant and look.
#[derive(Debug, Default)]
struct LaterGrants {
    tree: Vec<u64>,
    total: u64,
}

impl LaterGrants {
    /// Room for the next application id (at registration, not on a heartbeat).
    fn push(&mut self) {
        let i = self.tree.len() + 1;
        // Node i sums (i - lowbit(i), i]; the new application has had none.
        let v = self.prefix(i - 1) - self.prefix(i - (i & i.wrapping_neg()));
        self.tree.push(v);
    }

    /// Grants to applications 0..n.
    fn prefix(&self, n: usize) -> u64 {
        let (mut i, mut sum) = (n, 0);
        while i > 0 {
            sum += self.tree[i - 1];
            i &= i - 1;
        }
        sum
    }

    fn granted(&mut self, app: AppId) {
        let mut i = app as usize + 1;
        while i <= self.tree.len() {
            self.tree[i - 1] += 1;
            i += i & i.wrapping_neg();
        }
        self.total += 1;
    }

    /// Grants to the applications registered after `app`.
    fn after(&self, app: AppId) -> u64 {
        self.total - self.prefix((app as usize + 1).min(self.tree.len()))
    }
}

/// Name interning: every host, rack and resource name an event carries
/// gets a dense id once; the heartbeat reads ids only.
struct Names {
    ids: HashMap<String, u32>,
    /// Interned name -> node id (or NONE).
    node_by_name: Vec<NodeId>,
    app_by_name: HashMap<String, AppId>,
}

/// Indexes over the asks, kept as they change so that a heartbeat looks
/// at little.
struct AskIndex {
    /// Live applications with containers asked for, in FIFO order; rebuilt
    /// when an ask count crosses zero, so heartbeats skip drained apps.
    busy: Vec<AppId>,
    busy_stale: bool,
    /// The smallest container any busy app asks for: a node with less free
    /// stops looking at once.
    min_ask: Resources,
    /// Busy ask groups with no host or rack asks (reducers).
    location_less: u32,
    /// Busy applications, in order, whose only pending asks have no
    /// location (a job in its reduce phase): served before later-ranked
    /// applications' planned maps under [`JobOrder::WeightedRemaining`].
    finishing: Vec<AppId>,
    /// Planned policies: ask groups with host or rack asks that had no
    /// container for `max_wait_ms` at the last look, in rank order
    /// (rank, app, group); see `serve_overdue`.
    overdue: Vec<(u32, AppId, u32)>,
    /// Per interned host or rack name: how many ask groups with containers
    /// left at ANY ask for it, so a local-only policy skips the FIFO visit at
    /// a node nobody asks for.
    askers: Vec<u32>,
    /// Per interned host name: the (app, priority) groups that asked for it
    /// since it registered, a superset (entries that no longer ask are
    /// dropped when met), so a local-only fallback visits these, not every
    /// application.
    asking: Vec<Vec<(AppId, i32)>>,
}

/// The application order.
struct Ranking {
    /// Live applications in FIFO order (submit time, then registration).
    app_order: Vec<AppId>,
    /// Position of each application in FIFO order (live ones).
    rank: Vec<u32>,
    /// A hash of the order `rank` holds ([`Session::order_signature`]).
    order_sig: u64,
    /// Grants by application, for [`OVERTAKE_BOUND`].
    later_grants: LaterGrants,
    /// Live applications, in registration order: a re-rank reads these,
    /// not every application ever registered.
    live: Vec<AppId>,
}

/// The clock of locality waits and of the stall detector.
struct Clock {
    /// Time of the latest heartbeat (ms).
    now_ms: i64,
    /// A heartbeat has set `now_ms`. Until then the clock is unknown (the
    /// RM's is wall time), so waits of asks made before it start at it.
    started: bool,
    /// A lower bound of the oldest ask over busy groups with host or rack
    /// asks: while `now - wait_floor` is below the cap, no group can be
    /// starving and the heartbeat skips the scan.
    wait_floor: i64,
    /// When the stall detector last looked.
    stall_checked: i64,
    /// Ask groups the stall detector has named so far.
    stalled: u64,
    /// Heartbeat time of the last look for overdue groups.
    overdue_checked: i64,
    /// How often the core hears each node: the locality wait's scale.
    beat_gap: BeatGap,
}

/// The mean gap between two heartbeats of one node, as the core hears them
/// (an exponential average over every node's gaps).
#[derive(Default)]
struct BeatGap {
    mean_ms: f64,
    samples: u32,
}

impl BeatGap {
    /// Gaps averaged over about this many heartbeats.
    const WINDOW: f64 = 64.0;
    /// A longer gap is a node coming back, not its heartbeat rate.
    const MAX_GAP_MS: i64 = 60_000;

    fn add(&mut self, gap_ms: i64) {
        if gap_ms <= 0 || gap_ms > Self::MAX_GAP_MS {
            return;
        }
        let gap = gap_ms as f64;
        self.samples = self.samples.saturating_add(1);
        let w = (f64::from(self.samples)).min(Self::WINDOW);
        self.mean_ms += (gap - self.mean_ms) / w;
    }

    /// How much longer than YARN's default 1 s the gap is (at least 1, at
    /// most [`MAX_WAIT_STRETCH`]); 1 until [`Self::WINDOW`] gaps were seen,
    /// so a handful of irregular heartbeats (a small test cluster) does not
    /// move it.
    fn stretch(&self) -> f64 {
        if f64::from(self.samples) < Self::WINDOW {
            return 1.0;
        }
        (self.mean_ms / REFERENCE_BEAT_MS).clamp(1.0, MAX_WAIT_STRETCH)
    }
}

/// Planning: who plans and when, the plan in flight, and what the
/// planners keep between plans.
struct PlanState {
    /// The asks or the cluster changed since the last plan.
    dirty: bool,
    /// Who plans, and when a plan is installed.
    planning: Planning,
    /// A plan computed under [`Planning::Modelled`], installed at this time.
    in_flight: Option<(i64, PlanResult)>,
    /// The nodes with the longest queues at the last plan: where stealing
    /// looks for a victim (queues only shrink between plans).
    steal_candidates: Vec<NodeId>,
    /// ASM1's incremental insertions between plans.
    incr: incremental::Incremental,
    /// Cuts of the last S-PC LP, by (app, stage) key: the next solve's warm start.
    spc_cuts: Arc<crate::spc::online::KeyedCuts>,
    /// The last plan under [`JobOrder::Spc`] fell back (above the bound).
    spc_fallback: bool,
    /// Most LP jobs under [`JobOrder::Spc`] ([`SPC_MAX_LP_JOBS`]).
    spc_max_jobs: usize,
}

/// The scheduler state machine. See the module documentation. Its state by
/// concern: the configuration and the policy (with the policy's own
/// heartbeat state), the cluster (nodes, applications and their asks), name
/// interning, ask indexes, the application order, the clock, planning, and
/// what the last heartbeat did (booked tasks, activities).
pub struct Session {
    cfg: SessionConfig,
    dynamic: Dynamic,
    /// The policy's own decision at a free slot, with its state
    /// ([`crate::policy::Policy::heartbeat_rule`]); `None`: its
    /// [`FreeSlot`](crate::policy::FreeSlot) answer over the plan.
    rule: Option<Box<dyn HeartbeatRule>>,
    /// Observed container durations, kept for priced locality waits
    /// (`Some` under [`FreeSlot::Priced`](crate::policy::FreeSlot::Priced)).
    durations: Option<Durations>,
    /// Which group each running container was granted to, kept for the
    /// stages' sizes (`Some` under [`crate::policy::ReduceStage::Earliest`]).
    stage_clock: Option<stage_times::StageClock>,
    /// Finished reducers' work over their jobs' map work.
    reduce_ratio: stage_times::ReduceRatio,
    limits: Limits,
    nodes: Vec<NodeState>,
    apps: Vec<AppState>,
    /// Sum of the queue lengths (lets a stealing heartbeat skip the scan).
    queued_total: usize,
    alive_nodes: u32,
    /// The live nodes' speeds: the fastest and the sum (the reduce stage's
    /// wait, [`crate::policy::ReduceStage::Earliest`]).
    fastest: f64,
    speed_sum: f64,
    /// Containers granted and not finished, over live nodes (GCC).
    running_total: u64,
    /// Containers of the smallest ask the live nodes hold; `None` once a
    /// node or the smallest ask changed (GCC recomputes it).
    cluster_slots: Option<u64>,
    /// The live nodes' summed capacity; `None` once a node changed.
    cluster_capacity: Option<Resources>,
    names: Names,
    asks: AskIndex,
    ranking: Ranking,
    clock: Clock,
    plan: PlanState,
    /// Tasks booked by the last heartbeat (app, priority, task index).
    booked: Vec<(AppId, i32, u32)>,
    /// Why idle heartbeats granted nothing (bounded ring).
    activities: activities::Activities,
}

pub mod activities;
mod ask_ages;
mod background;
mod events;
mod explain;
mod heartbeat;
mod incremental;
pub mod job_order;
mod placement;
mod planning;
mod rule_view;
mod spc_order;
mod stage_times;

pub use activities::{Activities, Activity, Reason};
pub use background::{BackgroundPlanner, PlanStats, PLANNER_NICE};
pub use explain::{ActivitiesReport, NamedActivity, ReasonCount};
pub use incremental::IncrementalStats;
pub use job_order::JobOrder;
pub use placement::{NodeOffer, MAX_OFFERS, OFFER_SCAN};
pub use planning::{CopyCursor, InstallCursor, PlanGarbage, PlanRequest, PlanResult, Planning};
#[cfg(test)]
mod tests;

#[cfg(test)]
impl Session {
    /// The re-rank's caches agree with what they cache: each app's
    /// `pending` with its groups, `live` with the apps alive.
    pub(crate) fn assert_rank_caches(&self) {
        for a in &self.apps {
            assert_eq!(a.pending, a.pending_counted(), "pending of app {}", a.name);
        }
        let alive: Vec<AppId> = (0..self.apps.len() as AppId)
            .filter(|&a| self.apps[a as usize].alive)
            .collect();
        assert_eq!(self.ranking.live, alive);
    }
}

impl Session {
    pub fn new(mut cfg: SessionConfig) -> Session {
        if let Some(order) = cfg.policy.job_order() {
            // S-PC and its baselines are a job order and a placement together.
            cfg.job_order = order;
        }
        let dynamic = cfg.policy.dynamic();
        Session {
            dynamic,
            rule: cfg.policy.policy().heartbeat_rule(cfg.delay),
            durations: dynamic.priced.then(Durations::default),
            stage_clock: (dynamic.reduce_stage != crate::policy::ReduceStage::Unplanned)
                .then(stage_times::StageClock::default),
            reduce_ratio: Default::default(),
            cfg,
            limits: Limits::default(),
            nodes: Vec::new(),
            apps: Vec::new(),
            queued_total: 0,
            alive_nodes: 0,
            fastest: 0.0,
            speed_sum: 0.0,
            running_total: 0,
            cluster_slots: None,
            cluster_capacity: None,
            names: Names {
                ids: HashMap::new(),
                node_by_name: Vec::new(),
                app_by_name: HashMap::new(),
            },
            asks: AskIndex {
                busy: Vec::new(),
                busy_stale: false,
                min_ask: Resources::new(i64::MAX, i32::MAX),
                location_less: 0,
                finishing: Vec::new(),
                overdue: Vec::new(),
                askers: Vec::new(),
                asking: Vec::new(),
            },
            ranking: Ranking {
                app_order: Vec::new(),
                rank: Vec::new(),
                order_sig: 0,
                later_grants: LaterGrants::default(),
                live: Vec::new(),
            },
            clock: Clock {
                now_ms: 0,
                started: false,
                wait_floor: i64::MAX,
                stall_checked: 0,
                stalled: 0,
                overdue_checked: i64::MIN,
                beat_gap: BeatGap::default(),
            },
            plan: PlanState {
                dirty: false,
                planning: Planning::default(),
                in_flight: None,
                steal_candidates: Vec::new(),
                incr: incremental::Incremental::new(),
                spc_cuts: Arc::default(),
                spc_fallback: false,
                spc_max_jobs: SPC_MAX_LP_JOBS,
            },
            booked: Vec::with_capacity(64),
            activities: activities::Activities::default(),
        }
    }

    /// Replaces the application order ([`SessionConfig::job_order`]); S-PC's
    /// and its baselines keep their own ([`PolicyKind::job_order`]).
    /// Applies from the next plan.
    pub fn set_job_order(&mut self, order: JobOrder) {
        if self.cfg.policy.job_order().is_none() {
            self.cfg.job_order = order;
        }
        self.rebuild_app_order();
        self.plan.dirty = true;
    }

    /// Replaces the bound on [`JobOrder::Spc`]'s LP ([`SPC_MAX_LP_JOBS`]).
    pub fn set_spc_max_jobs(&mut self, max: usize) {
        self.plan.spc_max_jobs = max;
    }

    /// The application order in force.
    pub fn job_order(&self) -> JobOrder {
        self.cfg.job_order
    }

    /// Replaces the off-switch limit ([`SessionConfig::offswitch_per_heartbeat`]).
    pub fn set_offswitch_per_heartbeat(&mut self, limit: u32) {
        self.cfg.offswitch_per_heartbeat = limit;
    }

    /// Replaces the locality-wait cap ([`SessionConfig::max_wait_ms`]).
    pub fn set_max_wait_ms(&mut self, max_wait_ms: i64) {
        self.cfg.max_wait_ms = max_wait_ms;
    }

    /// How many times the stall detector named a waiting ask group.
    pub fn stalled_groups(&self) -> u64 {
        self.clock.stalled
    }

    /// Replaces the default [`Limits`].
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
        self.plan.dirty = true;
    }

    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.names.ids.get(name) {
            return id;
        }
        let id = self.names.node_by_name.len() as u32;
        self.names.ids.insert(name.to_string(), id);
        self.names.node_by_name.push(NONE);
        self.asks.askers.push(0);
        self.asks.asking.push(Vec::new());
        id
    }

    fn node(&self, node: NodeId) -> Result<&NodeState, SessionError> {
        let n = self
            .nodes
            .get(node as usize)
            .ok_or(SessionError::UnknownNode(node))?;
        if !n.alive {
            return Err(SessionError::NodeRemoved {
                node,
                host: n.host.clone(),
            });
        }
        Ok(n)
    }

    fn app_mut(&mut self, app: AppId) -> Result<&mut AppState, SessionError> {
        let a = self
            .apps
            .get_mut(app as usize)
            .ok_or(SessionError::UnknownApp(app))?;
        if !a.alive {
            return Err(SessionError::AppFinished {
                app: a.name.clone(),
            });
        }
        Ok(a)
    }

    /// Applies one recorded event; heartbeat grants go to `out` (cleared for
    /// every event). Ids in the log are the ones this Session hands out, so
    /// a log replays exactly on a fresh Session with the same configuration.
    pub fn apply(
        &mut self,
        event: &SessionEvent,
        out: &mut Vec<Grant>,
    ) -> Result<(), SessionError> {
        out.clear();
        match event {
            SessionEvent::AddNode {
                host,
                rack,
                capacity,
                speed,
            } => self.add_node(host, rack, *capacity, *speed).map(drop),
            SessionEvent::RemoveNode { node } => self.remove_node(*node),
            SessionEvent::UpdateNode { node, capacity } => self.update_node(*node, *capacity),
            SessionEvent::AddApp {
                app,
                weight,
                submit_ms,
            } => self.add_app(app, *weight, *submit_ms).map(drop),
            SessionEvent::FinishApp { app } => self.finish_app(*app),
            SessionEvent::UpdateAsk {
                app,
                priority,
                resource,
                count,
                capability,
                relax_locality,
            } => self.update_ask(
                *app,
                *priority,
                resource,
                *count,
                *capability,
                *relax_locality,
            ),
            SessionEvent::InputBlocks {
                app,
                priority,
                tasks,
            } => self.set_input_blocks(*app, *priority, tasks),
            SessionEvent::ContainerFinished { node, app: None } => self.container_finished(*node),
            SessionEvent::ContainerFinished {
                node,
                app: Some(app),
            } => self.app_container_finished(*node, *app),
            SessionEvent::Heartbeat { node, free, now_ms } => {
                self.node_heartbeat(*node, *free, *now_ms, out)
            }
            SessionEvent::SetAppWeight { app, weight } => self.set_app_weight(*app, *weight),
            SessionEvent::AppProgress {
                app,
                progress,
                now_ms,
            } => self.app_progress(*app, *progress, *now_ms),
            SessionEvent::ContainerRecovered { node, app } => self.container_recovered(*node, *app),
        }
    }

    /// The tasks the last heartbeat's grants were planned for, as (app,
    /// priority, index in the app's input blocks or synthesised pool). An AM
    /// that can be told which task to run (a custom AM, or one request per
    /// task) realises the plan exactly; the stock MR AM picks its own.
    pub fn booked_tasks(&self) -> &[(AppId, i32, u32)] {
        &self.booked
    }

    /// Number of decisions queued on each node (index = node id).
    pub fn queued(&self) -> Vec<usize> {
        self.nodes.iter().map(|n| n.queue.len()).collect()
    }
}
