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

use thiserror::Error;

use serde::{Deserialize, Serialize};

use crate::model::{Bipartite, CostModel, Csr, Locality, NodeId, Problem, NONE};
use crate::policy::delay::{LocalityDelay, Offer};
use crate::policy::{Dynamic, PolicyKind};

/// Dense application index, given by [`Session::add_app`].
pub type AppId = u32;

/// How many of the longest queues a stealing node looks at (bounds the
/// heartbeat's cost on large clusters; queues only shrink between plans).
const STEAL_CANDIDATES: usize = 64;

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
    #[error("application {app:?}, priority {priority}, resource {resource:?}: {problem}")]
    BadAsk {
        app: String,
        priority: i32,
        resource: String,
        problem: String,
    },
}

/// How the Session decides.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SessionConfig {
    pub policy: PolicyKind,
    pub cost: CostModel,
    pub seed: u64,
    /// Locality delay of the `hadoop-default` policy.
    pub delay: LocalityDelay,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            policy: PolicyKind::Asm1,
            cost: CostModel::default(),
            seed: 1,
            delay: LocalityDelay::default(),
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
    },
    Heartbeat {
        node: NodeId,
        free: Resources,
        now_ms: i64,
    },
}

/// A queued decision: run task `task` of ask group `group` of `app` here.
#[derive(Clone, Copy, Debug)]
struct Slot {
    app: AppId,
    group: u32,
    task: u32,
    locality: Locality,
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
}

/// A task the planner places: exact (from input blocks) or synthesised from asks.
struct PoolTask {
    replicas: Vec<NodeId>,
    started: bool,
}

/// The asks of one application at one priority.
struct Group {
    priority: i32,
    capability: Resources,
    relax: bool,
    any: i32,
    /// Scheduling opportunities missed since the last local grant (delay scheduling).
    missed: u32,
    /// Host and rack ask counts by interned name.
    counts: HashMap<u32, i32>,
    pool: Vec<PoolTask>,
    /// Pool from `set_input_blocks` (kept across ask updates) rather than synthesised.
    exact: bool,
    /// Pool tasks before this index are all started.
    first_free: usize,
}

impl Group {
    /// Whether the host or rack `name` still has containers asked for.
    fn asked(&self, name: u32) -> bool {
        self.counts.get(&name).copied().unwrap_or(0) > 0
    }
}

struct AppState {
    name: String,
    submit: i64,
    alive: bool,
    groups: Vec<Group>,
}

/// The scheduler state machine. See the module documentation.
pub struct Session {
    cfg: SessionConfig,
    dynamic: Dynamic,
    names: HashMap<String, u32>,
    /// Interned name -> node id (or NONE).
    node_by_name: Vec<NodeId>,
    nodes: Vec<NodeState>,
    apps: Vec<AppState>,
    app_by_name: HashMap<String, AppId>,
    /// Live applications in FIFO order (submit time, then registration).
    app_order: Vec<AppId>,
    dirty: bool,
    /// Sum of the queue lengths (lets a stealing heartbeat skip the scan).
    queued_total: usize,
    alive_nodes: u32,
    /// Tasks booked by the last heartbeat (app, priority, task index).
    booked: Vec<(AppId, i32, u32)>,
    /// Live applications with containers asked for, in FIFO order; rebuilt
    /// when an ask count crosses zero, so heartbeats skip drained apps.
    busy: Vec<AppId>,
    busy_stale: bool,
    /// The smallest container any busy app asks for: a node with less free
    /// stops looking at once.
    min_ask: Resources,
    /// Busy ask groups with no host or rack asks (reducers).
    location_less: u32,
    /// Per interned host or rack name: how many ask groups with containers
    /// left at ANY ask for it, so a local-only policy skips the FIFO visit at
    /// a node nobody asks for.
    askers: Vec<u32>,
    /// The nodes with the longest queues at the last plan: where stealing
    /// looks for a victim (queues only shrink between plans).
    steal_candidates: Vec<NodeId>,
}

/// What the queue offers at a heartbeat.
enum QueueHead {
    Take(Slot),
    Empty,
    /// The next planned container does not fit the node's free resources.
    Blocked,
}

impl Session {
    pub fn new(cfg: SessionConfig) -> Session {
        Session {
            dynamic: cfg.policy.dynamic(),
            cfg,
            names: HashMap::new(),
            node_by_name: Vec::new(),
            nodes: Vec::new(),
            apps: Vec::new(),
            app_by_name: HashMap::new(),
            app_order: Vec::new(),
            dirty: false,
            queued_total: 0,
            alive_nodes: 0,
            booked: Vec::with_capacity(64),
            busy: Vec::new(),
            busy_stale: false,
            min_ask: Resources::new(i64::MAX, i32::MAX),
            location_less: 0,
            askers: Vec::new(),
            steal_candidates: Vec::new(),
        }
    }

    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.names.get(name) {
            return id;
        }
        let id = self.node_by_name.len() as u32;
        self.names.insert(name.to_string(), id);
        self.node_by_name.push(NONE);
        self.askers.push(0);
        id
    }

    /// A node manager registers. A host that was removed comes back with its old id.
    pub fn add_node(
        &mut self,
        host: &str,
        rack: &str,
        capacity: Resources,
        speed: f64,
    ) -> Result<NodeId, SessionError> {
        let bad = |problem: String| SessionError::BadNode {
            host: host.to_string(),
            problem,
        };
        if host.is_empty() {
            return Err(bad("host name is empty".into()));
        }
        if capacity.memory_mb < 0 || capacity.vcores < 0 {
            return Err(bad(format!(
                "capacity must not be negative, got {} MB and {} vcores",
                capacity.memory_mb, capacity.vcores
            )));
        }
        if !(speed.is_finite() && speed > 0.0) {
            return Err(bad(format!(
                "speed must be a positive finite number, got {speed}"
            )));
        }
        let name = self.intern(host);
        let rack = self.intern(rack);
        let existing = self.node_by_name[name as usize];
        let id = if existing != NONE {
            let n = &mut self.nodes[existing as usize];
            if n.alive {
                return Err(SessionError::DuplicateNode {
                    node: existing,
                    host: host.to_string(),
                });
            }
            n.alive = true;
            n.rack = rack;
            n.capacity = capacity;
            n.speed = speed;
            n.running = 0;
            existing
        } else {
            let id = self.nodes.len() as NodeId;
            self.nodes.push(NodeState {
                host: host.to_string(),
                name,
                rack,
                capacity,
                speed,
                alive: true,
                running: 0,
                queue: VecDeque::new(),
            });
            self.node_by_name[name as usize] = id;
            id
        };
        self.alive_nodes += 1;
        self.dirty = true;
        Ok(id)
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

    /// A node manager leaves (lost, decommissioned). Its queue is re-planned.
    pub fn remove_node(&mut self, node: NodeId) -> Result<(), SessionError> {
        self.node(node)?;
        let n = &mut self.nodes[node as usize];
        n.alive = false;
        self.alive_nodes -= 1;
        self.queued_total -= n.queue.len();
        n.queue.clear();
        n.running = 0;
        self.dirty = true;
        Ok(())
    }

    /// A node's total resource changed (an admin's update, or its node
    /// manager re-registered with another size): planning uses the new one.
    pub fn update_node(&mut self, node: NodeId, capacity: Resources) -> Result<(), SessionError> {
        self.node(node)?;
        if capacity.memory_mb < 0 || capacity.vcores < 0 {
            return Err(SessionError::BadNode {
                host: self.nodes[node as usize].host.clone(),
                problem: format!(
                    "capacity must not be negative, got {} MB and {} vcores",
                    capacity.memory_mb, capacity.vcores
                ),
            });
        }
        let n = &mut self.nodes[node as usize];
        if n.capacity != capacity {
            n.capacity = capacity;
            self.dirty = true;
        }
        Ok(())
    }

    /// Node id of a registered host.
    pub fn node_id(&self, host: &str) -> Option<NodeId> {
        let &name = self.names.get(host)?;
        let id = self.node_by_name[name as usize];
        (id != NONE).then_some(id)
    }

    /// An application is submitted. The weight is checked here; no policy of
    /// this issue uses it yet (weighted completion time is S-PC's).
    pub fn add_app(
        &mut self,
        app: &str,
        weight: f64,
        submit_time: i64,
    ) -> Result<AppId, SessionError> {
        if let Some(&id) = self.app_by_name.get(app) {
            return Err(SessionError::DuplicateApp {
                app: app.to_string(),
                id,
            });
        }
        if !(weight.is_finite() && weight > 0.0) {
            return Err(SessionError::BadWeight {
                app: app.to_string(),
                weight,
            });
        }
        let id = self.apps.len() as AppId;
        self.apps.push(AppState {
            name: app.to_string(),
            submit: submit_time,
            alive: true,
            groups: Vec::new(),
        });
        self.app_by_name.insert(app.to_string(), id);
        // Room for every app in the busy list, so heartbeats never grow it.
        self.busy
            .reserve(self.apps.len().saturating_sub(self.busy.len()));
        self.rebuild_app_order();
        self.dirty = true;
        Ok(id)
    }

    fn rebuild_app_order(&mut self) {
        self.busy_stale = true;
        self.app_order.clear();
        self.app_order
            .extend((0..self.apps.len() as AppId).filter(|&a| self.apps[a as usize].alive));
        let apps = &self.apps;
        self.app_order
            .sort_by_key(|&a| (apps[a as usize].submit, a));
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

    /// An application finished or was killed: its asks and queued work go.
    pub fn finish_app(&mut self, app: AppId) -> Result<(), SessionError> {
        let a = self.app_mut(app)?;
        a.alive = false;
        let groups = std::mem::take(&mut a.groups);
        for g in groups.iter().filter(|g| g.any > 0) {
            adjust_askers(&mut self.askers, g, -1);
        }
        self.rebuild_app_order();
        self.dirty = true;
        Ok(())
    }

    /// Index of the app's ask group at `priority`, created if new.
    fn group_index(
        &mut self,
        app: AppId,
        priority: i32,
        capability: Resources,
    ) -> Result<usize, SessionError> {
        let a = self.app_mut(app)?;
        let i = match a.groups.binary_search_by_key(&priority, |g| g.priority) {
            Ok(i) => i,
            Err(i) => {
                a.groups.insert(
                    i,
                    Group {
                        priority,
                        capability,
                        relax: true,
                        any: 0,
                        missed: 0,
                        counts: HashMap::new(),
                        pool: Vec::new(),
                        exact: false,
                        first_free: 0,
                    },
                );
                i
            }
        };
        Ok(i)
    }

    /// One `ResourceRequest` of an application: `count` containers of
    /// `capability` at `priority` on `resource` (a host, a rack or [`ANY`]).
    /// As in YARN, the count is absolute and replaces the previous one.
    pub fn update_ask(
        &mut self,
        app: AppId,
        priority: i32,
        resource: &str,
        count: i32,
        capability: Resources,
        relax_locality: bool,
    ) -> Result<(), SessionError> {
        let bad = |s: &Session, problem: String| SessionError::BadAsk {
            app: s
                .apps
                .get(app as usize)
                .map_or_else(|| app.to_string(), |a| a.name.clone()),
            priority,
            resource: resource.to_string(),
            problem,
        };
        if count < 0 {
            return Err(bad(
                self,
                format!("container count must not be negative, got {count}"),
            ));
        }
        if capability.memory_mb < 0 || capability.vcores < 0 {
            return Err(bad(
                self,
                format!(
                    "capability must not be negative, got {} MB and {} vcores",
                    capability.memory_mb, capability.vcores
                ),
            ));
        }
        let name = (resource != ANY).then(|| self.intern(resource));
        let gi = self.group_index(app, priority, capability)?;
        let g = &mut self.apps[app as usize].groups[gi];
        let crossed = name.is_none() && (g.any > 0) != (count > 0);
        let changed = match name {
            None => {
                let changed =
                    g.any != count || g.capability != capability || g.relax != relax_locality;
                g.any = count;
                g.capability = capability;
                g.relax = relax_locality;
                if crossed {
                    adjust_askers(&mut self.askers, g, if count > 0 { 1 } else { -1 });
                }
                changed
            }
            Some(id) => {
                let old = g.counts.get(&id).copied().unwrap_or(0);
                let was_empty = g.counts.is_empty();
                if count == 0 {
                    g.counts.remove(&id);
                } else {
                    g.counts.insert(id, count);
                }
                // A group gaining its first or losing its last location
                // changes the location-less count.
                self.busy_stale |= was_empty != g.counts.is_empty();
                if g.any > 0 {
                    match (old > 0, count > 0) {
                        (false, true) => self.askers[id as usize] += 1,
                        (true, false) => self.askers[id as usize] -= 1,
                        _ => {}
                    }
                }
                old != count
            }
        };
        self.dirty |= changed;
        self.busy_stale |= crossed || (name.is_none() && changed);
        Ok(())
    }

    /// Exact input of an application's tasks at `priority` (from WebHDFS, a
    /// split file): one replica-host list per task. Hosts that are not node
    /// managers (yet) are ignored for locality.
    pub fn set_input_blocks<S: AsRef<str>>(
        &mut self,
        app: AppId,
        priority: i32,
        tasks: &[Vec<S>],
    ) -> Result<(), SessionError> {
        self.app_mut(app)?;
        let pool: Vec<PoolTask> = tasks
            .iter()
            .map(|hosts| {
                let mut replicas: Vec<NodeId> = hosts
                    .iter()
                    .filter_map(|h| self.node_id(h.as_ref()))
                    .collect();
                replicas.sort_unstable();
                replicas.dedup();
                PoolTask {
                    replicas,
                    started: false,
                }
            })
            .collect();
        let gi = self.group_index(app, priority, Resources::default())?;
        let g = &mut self.apps[app as usize].groups[gi];
        g.pool = pool;
        g.exact = true;
        self.dirty = true;
        Ok(())
    }

    /// A container on `node` finished (its slot is free for planning again).
    pub fn container_finished(&mut self, node: NodeId) -> Result<(), SessionError> {
        self.node(node)?;
        let n = &mut self.nodes[node as usize];
        n.running = n.running.saturating_sub(1);
        Ok(())
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
            SessionEvent::ContainerFinished { node } => self.container_finished(*node),
            SessionEvent::Heartbeat { node, free, now_ms } => {
                self.node_heartbeat(*node, *free, *now_ms, out)
            }
        }
    }

    /// The tasks the last heartbeat's grants were planned for, as (app,
    /// priority, index in the app's input blocks or synthesised pool). An AM
    /// that can be told which task to run (a custom AM, or one request per
    /// task) realises the plan exactly; the stock MR AM picks its own.
    pub fn booked_tasks(&self) -> &[(AppId, i32, u32)] {
        &self.booked
    }

    fn refresh_busy(&mut self) {
        self.busy_stale = false;
        self.busy.clear();
        let apps = &self.apps;
        self.busy.extend(
            self.app_order
                .iter()
                .copied()
                .filter(|&a| apps[a as usize].groups.iter().any(|g| g.any > 0)),
        );
        let mut min = Resources::new(i64::MAX, i32::MAX);
        let mut location_less = 0;
        for &a in &self.busy {
            for g in self.apps[a as usize].groups.iter().filter(|g| g.any > 0) {
                min.memory_mb = min.memory_mb.min(g.capability.memory_mb);
                min.vcores = min.vcores.min(g.capability.vcores);
                location_less += g.counts.is_empty() as u32;
            }
        }
        self.min_ask = min;
        self.location_less = location_less;
    }

    /// Re-plans now if an event changed the inputs; heartbeats do this lazily.
    pub fn plan_if_dirty(&mut self) {
        if self.dirty {
            self.replan();
        }
    }

    /// Number of decisions queued on each node (index = node id).
    pub fn queued(&self) -> Vec<usize> {
        self.nodes.iter().map(|n| n.queue.len()).collect()
    }

    /// A heartbeat of `node` with `free` resources: writes this node's grants
    /// into `out` (cleared first). Allocates nothing unless a re-plan is due.
    pub fn node_heartbeat(
        &mut self,
        node: NodeId,
        free: Resources,
        _now_ms: i64,
        out: &mut Vec<Grant>,
    ) -> Result<(), SessionError> {
        out.clear();
        self.booked.clear();
        self.node(node)?;
        if self.dirty {
            self.replan();
        }
        if self.busy_stale {
            self.refresh_busy();
        }
        let mut free = free;
        loop {
            if !free.fits(&self.min_ask) {
                break;
            }
            let pick = match self.queue_head(node, &free) {
                QueueHead::Take(slot) => slot,
                QueueHead::Blocked => break,
                QueueHead::Empty => match self.fallback(node, &free) {
                    Some(slot) => slot,
                    None => break,
                },
            };
            self.commit(node, pick, &mut free, out);
        }
        Ok(())
    }

    /// Whether a queued slot can still be granted on `node` as planned.
    fn valid(&self, node: &NodeState, s: &Slot) -> bool {
        let a = &self.apps[s.app as usize];
        if !a.alive {
            return false;
        }
        let Some(g) = a.groups.get(s.group as usize) else {
            return false;
        };
        if g.any <= 0 || g.pool.get(s.task as usize).is_none_or(|t| t.started) {
            return false;
        }
        match s.locality {
            Locality::Node => g.asked(node.name),
            Locality::Rack => g.asked(node.rack) && g.relax,
            Locality::OffSwitch => g.relax,
        }
    }

    fn capability(&self, s: &Slot) -> Resources {
        self.apps[s.app as usize].groups[s.group as usize].capability
    }

    fn queue_head(&mut self, node: NodeId, free: &Resources) -> QueueHead {
        loop {
            let n = &self.nodes[node as usize];
            let Some(&s) = n.queue.front() else {
                return QueueHead::Empty;
            };
            let valid = self.valid(n, &s);
            if valid && !free.fits(&self.capability(&s)) {
                return QueueHead::Blocked;
            }
            self.nodes[node as usize].queue.pop_front();
            self.queued_total -= 1;
            if valid {
                return QueueHead::Take(s);
            }
        }
    }

    /// The policy's decision once the node's queue is empty. ASM1 hybrids
    /// (seed 000 Sect. 7.1) first steal a task local to this node from the
    /// longest queue; then applications are served in FIFO order, each at its
    /// most local level, as Hadoop's FifoScheduler visits them: node-local,
    /// then (COMM variants) rack-local and off-switch. Asks with no location
    /// at all (reducers) have no local choice and are served by every policy.
    fn fallback(&mut self, node: NodeId, free: &Resources) -> Option<Slot> {
        let Dynamic {
            steal,
            spill,
            delay,
            ..
        } = self.dynamic;
        if delay {
            return self.delayed(node, free);
        }
        if steal {
            if let Some(s) = self.steal(node, free) {
                return Some(s);
            }
        }
        if !spill && self.askers[self.nodes[node as usize].name as usize] == 0 {
            // Nobody asks for this host: only location-less asks can run here.
            if self.location_less == 0 {
                return None;
            }
            return self.serve_fifo(node, free, |g, _| {
                g.counts.is_empty().then_some(Locality::OffSwitch)
            });
        }
        self.serve_fifo(node, free, |g, n| {
            if g.asked(n.name) {
                Some(Locality::Node)
            } else if spill && g.relax && g.asked(n.rack) {
                Some(Locality::Rack)
            } else if (spill && g.relax) || g.counts.is_empty() {
                Some(Locality::OffSwitch)
            } else {
                None
            }
        })
    }

    /// CapacityScheduler delay scheduling (see `policy::delay`): each app in
    /// FIFO order, each priority, counts a missed opportunity and takes the
    /// most local level the delay allows.
    fn delayed(&mut self, node: NodeId, free: &Resources) -> Option<Slot> {
        let rule = self.cfg.delay;
        let num_nodes = self.alive_nodes;
        self.serve_fifo(node, free, |g, n| {
            g.missed += 1;
            let offer = Offer {
                missed: g.missed,
                num_nodes,
                outstanding_any: g.any as u32,
                unique_location_asks: g.counts.len() as u32 + 1,
            };
            let level = if g.asked(n.name) {
                Locality::Node
            } else if g.relax && g.asked(n.rack) && rule.allows(Locality::Rack, &offer) {
                Locality::Rack
            } else if g.relax && rule.allows(Locality::OffSwitch, &offer) {
                Locality::OffSwitch
            } else {
                return None;
            };
            if level != Locality::OffSwitch {
                g.missed = 0;
            }
            Some(level)
        })
    }

    /// Visits applications in FIFO order and their priorities in order, as
    /// Hadoop's FifoScheduler does, and serves the first ask that fits and
    /// for which `level_for` names a locality.
    fn serve_fifo(
        &mut self,
        node: NodeId,
        free: &Resources,
        mut level_for: impl FnMut(&mut Group, &NodeState) -> Option<Locality>,
    ) -> Option<Slot> {
        let n = &self.nodes[node as usize];
        for &app in &self.busy {
            for (gi, g) in self.apps[app as usize].groups.iter_mut().enumerate() {
                if g.any <= 0 || !free.fits(&g.capability) {
                    continue;
                }
                if let Some(locality) = level_for(g, n) {
                    return Some(Slot {
                        app,
                        group: gi as u32,
                        task: NONE,
                        locality,
                    });
                }
            }
        }
        None
    }

    /// Stealing (seed 000 Sect. 7.1): take a task local to `node` from the
    /// node with the longest queue. Only from a queue of at least two, so the
    /// victim keeps work for itself and two nodes never trade a single task
    /// back and forth.
    fn steal(&mut self, node: NodeId, free: &Resources) -> Option<Slot> {
        if self.queued_total == 0 {
            return None;
        }
        let mut victim = NONE;
        let mut longest = 1;
        for &i in &self.steal_candidates {
            let n = &self.nodes[i as usize];
            if n.alive && i != node && n.queue.len() > longest {
                longest = n.queue.len();
                victim = i;
            }
        }
        if victim == NONE {
            return None;
        }
        let me = &self.nodes[node as usize];
        let queue = &self.nodes[victim as usize].queue;
        // Widely replicated tasks sit at the back of a queue: look there first.
        let pos = (0..queue.len()).rev().find(|&i| {
            let s = Slot {
                locality: Locality::Node,
                ..queue[i]
            };
            let local = self.apps[s.app as usize]
                .groups
                .get(s.group as usize)
                .and_then(|g| g.pool.get(s.task as usize))
                .is_some_and(|t| t.replicas.contains(&node));
            local && self.valid(me, &s) && free.fits(&self.capability(&s))
        })?;
        let s = self.nodes[victim as usize].queue.remove(pos)?;
        self.queued_total -= 1;
        Some(Slot {
            locality: Locality::Node,
            ..s
        })
    }

    /// Books a decision and appends it to `out`, merging with the previous
    /// grant when it matches. The planned task is marked started: a guess,
    /// since the AM picks its own task (see `revive_exact`).
    fn commit(&mut self, node: NodeId, s: Slot, free: &mut Resources, out: &mut Vec<Grant>) {
        let n = &mut self.nodes[node as usize];
        n.running += 1;
        let (host, rack) = (n.name, n.rack);
        let g = &mut self.apps[s.app as usize].groups[s.group as usize];
        let askers = &mut self.askers;
        let mut became_empty = false;
        let emptied = &mut became_empty;
        let mut dec = |counts: &mut HashMap<u32, i32>, name: u32| {
            if let Some(c) = counts.get_mut(&name) {
                *c -= 1;
                if *c <= 0 {
                    counts.remove(&name);
                    askers[name as usize] -= 1;
                    *emptied |= counts.is_empty();
                }
            }
        };
        // Which task the AM will run is its choice; book the planned one, or
        // any pending task that fits the locality given.
        let task = if s.task != NONE {
            Some(s.task as usize)
        } else if self.dynamic.planned {
            // Skip the started prefix; pools are dispatch-irrelevant otherwise.
            while g.pool.get(g.first_free).is_some_and(|t| t.started) {
                g.first_free += 1;
            }
            g.pool[g.first_free..]
                .iter()
                .position(|t| {
                    !t.started && (s.locality != Locality::Node || t.replicas.contains(&node))
                })
                .map(|i| i + g.first_free)
        } else {
            None
        };
        if let Some(t) = task {
            g.pool[t].started = true;
            self.booked.push((s.app, g.priority, t as u32));
        }
        // As YARN's AppSchedulingInfo.allocate: the AM's next update corrects
        // the hosts of the task it really chose.
        match s.locality {
            Locality::Node => {
                dec(&mut g.counts, host);
                dec(&mut g.counts, rack);
            }
            Locality::Rack => dec(&mut g.counts, rack),
            Locality::OffSwitch => {}
        }
        self.busy_stale |= became_empty;
        g.any -= 1;
        if g.any == 0 {
            self.busy_stale = true;
            // Host and rack asks stay (the AM's update settles them) but no
            // longer make this group serve anything.
            adjust_askers(&mut self.askers, g, -1);
        }
        free.memory_mb -= g.capability.memory_mb;
        free.vcores -= g.capability.vcores;
        let priority = g.priority;
        if let Some(last) = out.last_mut() {
            if last.app == s.app && last.priority == priority && last.locality == s.locality {
                last.count += 1;
                return;
            }
        }
        out.push(Grant {
            app: s.app,
            priority,
            count: 1,
            locality: s.locality,
        });
    }

    /// Rebuilds every node's queue from the policy's plan over all pending tasks.
    fn replan(&mut self) {
        self.dirty = false;
        for n in &mut self.nodes {
            n.queue.clear();
        }
        self.queued_total = 0;
        self.steal_candidates.clear();
        // Synthesised pools follow the asks: n = ANY tasks, each host's count
        // dealt round-robin over them so that every marginal matches.
        for &app in &self.app_order {
            for g in &mut self.apps[app as usize].groups {
                g.first_free = 0;
                if !g.exact {
                    synthesize_pool(g, &self.node_by_name, &self.nodes);
                }
            }
        }
        if !self.dynamic.planned {
            return;
        }
        // Dense problem over live nodes.
        let mut dense_of = vec![NONE; self.nodes.len()];
        let mut live: Vec<NodeId> = Vec::new();
        let mut rack_ids: HashMap<u32, u32> = HashMap::new();
        let mut problem = Problem {
            cost: self.cfg.cost,
            ..Problem::default()
        };
        let container = self.typical_container();
        for (i, n) in self.nodes.iter().enumerate() {
            if !n.alive {
                continue;
            }
            dense_of[i] = live.len() as NodeId;
            live.push(i as NodeId);
            let slots = n.capacity.slots_of(&container);
            let next = rack_ids.len() as u32;
            problem
                .node_rack
                .push(*rack_ids.entry(n.rack).or_insert(next));
            problem.node_speed.push(n.speed);
            problem.node_slots.push(slots);
            // Running containers count as one wave of work still to do.
            problem
                .node_load
                .push(n.running as f64 / slots as f64 * self.cfg.cost.local / n.speed);
        }
        if live.is_empty() {
            return;
        }
        let mut refs: Vec<(AppId, u32, u32)> = Vec::new();
        let mut rows: Vec<Vec<NodeId>> = Vec::new();
        for &app in &self.app_order {
            for g in &mut self.apps[app as usize].groups {
                if g.exact {
                    revive_exact(g, &self.nodes);
                }
            }
            for (gi, g) in self.apps[app as usize].groups.iter().enumerate() {
                // Asks with no location (reducers) have nothing to place: the
                // fallback serves them once a node's planned work is done.
                if !g.exact && g.counts.is_empty() {
                    continue;
                }
                let pending = g.pool.iter().enumerate().filter(|(_, t)| !t.started);
                for (ti, t) in pending.take(g.any.max(0) as usize) {
                    refs.push((app, gi as u32, ti as u32));
                    rows.push(
                        t.replicas
                            .iter()
                            .map(|&r| dense_of[r as usize])
                            .filter(|&d| d != NONE)
                            .collect(),
                    );
                }
            }
        }
        if refs.is_empty() {
            return;
        }
        problem.task_size = vec![1.0; refs.len()];
        problem.graph = Bipartite::new(live.len(), Csr::from_rows(rows));
        let Some(planner) = self.cfg.policy.planner() else {
            return;
        };
        let assignment = planner.plan(&problem, self.cfg.seed);
        // FIFO across applications, then the planner's own order on the node.
        let rank: HashMap<AppId, usize> = self
            .app_order
            .iter()
            .enumerate()
            .map(|(i, &a)| (a, i))
            .collect();
        for (d, &node) in live.iter().enumerate() {
            let mut slots: Vec<(usize, usize, Slot)> = assignment
                .queues
                .row(d)
                .iter()
                .enumerate()
                .map(|(pos, &t)| {
                    let (app, group, task) = refs[t as usize];
                    let slot = Slot {
                        app,
                        group,
                        task,
                        locality: problem.locality(t, d as NodeId),
                    };
                    (rank[&app], pos, slot)
                })
                .collect();
            slots.sort_by_key(|&(r, pos, _)| (r, pos));
            self.queued_total += slots.len();
            self.steal_candidates.push(node);
            self.nodes[node as usize]
                .queue
                .extend(slots.into_iter().map(|(_, _, s)| s));
        }
        let nodes = &self.nodes;
        self.steal_candidates
            .sort_by_key(|&n| (std::cmp::Reverse(nodes[n as usize].queue.len()), n));
        self.steal_candidates.truncate(STEAL_CANDIDATES);
        tracing::debug!(
            policy = %self.cfg.policy,
            tasks = refs.len(),
            nodes = live.len(),
            "re-planned"
        );
    }

    /// The container size most asks use, to turn node capacity into slots.
    fn typical_container(&self) -> Resources {
        self.app_order
            .iter()
            .flat_map(|&a| self.apps[a as usize].groups.iter())
            .find(|g| g.any > 0)
            .map_or(Resources::new(1, 1), |g| g.capability)
    }
}

/// The AM, not the RM, picks which task runs in a container, so an exact
/// pool's `started` marks are guesses. The asks are the truth: while fewer
/// tasks look pending than the AM asks for, un-mark started tasks that the
/// asks still cover (every live replica host still asked for), oldest first.
fn revive_exact(g: &mut Group, nodes: &[NodeState]) {
    let want = g.any.max(0) as usize;
    let mut pending = g.pool.iter().filter(|t| !t.started).count();
    if pending >= want {
        return;
    }
    for t in g.pool.iter_mut().filter(|t| t.started) {
        let covered = t.replicas.iter().all(|&r| {
            let n = &nodes[r as usize];
            !n.alive || g.counts.get(&n.name).copied().unwrap_or(0) > 0
        });
        if covered {
            t.started = false;
            pending += 1;
            if pending == want {
                return;
            }
        }
    }
}

/// Adds `delta` to the asker count of every host and rack `g` asks for.
fn adjust_askers(askers: &mut [u32], g: &Group, delta: i32) {
    for (&name, _) in g.counts.iter().filter(|(_, &c)| c > 0) {
        let a = &mut askers[name as usize];
        *a = a.wrapping_add_signed(delta);
    }
}

fn synthesize_pool(g: &mut Group, node_by_name: &[NodeId], nodes: &[NodeState]) {
    let n = g.any.max(0) as usize;
    g.pool.clear();
    g.pool.extend((0..n).map(|_| PoolTask {
        replicas: Vec::new(),
        started: false,
    }));
    if n == 0 {
        return;
    }
    let mut hosts: Vec<(NodeId, usize)> = g
        .counts
        .iter()
        .filter_map(|(&name, &c)| {
            let id = *node_by_name.get(name as usize)?;
            (id != NONE && nodes[id as usize].alive).then_some((id, c.max(0) as usize))
        })
        .collect();
    hosts.sort_unstable();
    let mut k = 0;
    for (id, c) in hosts {
        let c = c.min(n);
        for j in 0..c {
            g.pool[(k + j) % n].replicas.push(id);
        }
        k = (k + c) % n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Session {
        /// `askers` agrees with the groups' counts.
        fn askers_consistent(&self) -> bool {
            let mut want = vec![0u32; self.askers.len()];
            for a in self.apps.iter().filter(|a| a.alive) {
                for g in a.groups.iter().filter(|g| g.any > 0) {
                    for (&name, &c) in &g.counts {
                        if c > 0 {
                            want[name as usize] += 1;
                        }
                    }
                }
            }
            want == self.askers
        }
    }

    #[test]
    fn askers_index_follows_asks_grants_and_finished_apps() {
        let mut s = session(PolicyKind::Asm1);
        let h1 = s
            .add_node("h1", "/r1", Resources::new(4096, 4), 1.0)
            .unwrap();
        let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
        let a = s.add_app("a", 1.0, 0).unwrap();
        let b = s.add_app("b", 1.0, 1).unwrap();
        for app in [a, b] {
            for (res, n) in [("h1", 2), ("/r1", 2), (ANY, 2)] {
                s.update_ask(app, 20, res, n, cap(), true).unwrap();
            }
        }
        assert!(s.askers_consistent());
        let mut out = Vec::new();
        s.node_heartbeat(h1, Resources::new(4096, 4), 0, &mut out)
            .unwrap();
        assert_eq!(out.iter().map(|g| g.count).sum::<u32>(), 4);
        assert!(s.askers_consistent());
        s.update_ask(b, 20, "h2", 1, cap(), true).unwrap();
        s.finish_app(a).unwrap();
        assert!(s.askers_consistent());
        // Nobody asks for h1 any more; b still asks for h2 but has no ANY left.
        s.node_heartbeat(h2, cap(), 0, &mut out).unwrap();
        assert!(out.is_empty());
        assert!(s.askers_consistent());
    }

    fn cap() -> Resources {
        Resources::new(1024, 1)
    }

    fn session(policy: PolicyKind) -> Session {
        Session::new(SessionConfig {
            policy,
            ..SessionConfig::default()
        })
    }

    #[test]
    fn asks_only_plan_grants_node_local_then_stops() {
        let mut s = session(PolicyKind::Asm1);
        let a = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
        let b = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
        let app = s.add_app("application_1_0001", 1.0, 0).unwrap();
        for (res, n) in [("h1", 2), ("/r1", 2), (ANY, 2)] {
            s.update_ask(app, 20, res, n, cap(), true).unwrap();
        }
        let mut out = Vec::new();
        s.node_heartbeat(b, cap(), 0, &mut out).unwrap();
        assert!(
            out.is_empty(),
            "h2 holds nothing and asm1 runs local tasks only"
        );
        s.node_heartbeat(a, cap(), 0, &mut out).unwrap();
        assert_eq!(
            out,
            vec![Grant {
                app,
                priority: 20,
                count: 1,
                locality: Locality::Node
            }]
        );
        s.container_finished(a).unwrap();
        s.node_heartbeat(a, Resources::new(2048, 2), 0, &mut out)
            .unwrap();
        assert_eq!(out[0].count, 1, "only one task left");
        s.node_heartbeat(a, cap(), 0, &mut out).unwrap();
        assert!(out.is_empty());
    }

    #[test]
    fn greedy_comm_spills_rack_then_off_switch() {
        let mut s = session(PolicyKind::GreedyComm);
        let _a = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
        let b = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
        let c = s.add_node("h3", "/r2", cap(), 1.0).unwrap();
        let app = s.add_app("app", 1.0, 0).unwrap();
        for (res, n) in [("h1", 2), ("/r1", 2), (ANY, 2)] {
            s.update_ask(app, 20, res, n, cap(), true).unwrap();
        }
        let mut out = Vec::new();
        s.node_heartbeat(b, cap(), 0, &mut out).unwrap();
        assert_eq!(out[0].locality, Locality::Rack);
        s.node_heartbeat(c, cap(), 0, &mut out).unwrap();
        assert_eq!(out[0].locality, Locality::OffSwitch);
        // Greedy (makespan) would leave both idle.
        let mut g = session(PolicyKind::Greedy);
        g.add_node("h1", "/r1", cap(), 1.0).unwrap();
        let b = g.add_node("h2", "/r1", cap(), 1.0).unwrap();
        let app = g.add_app("app", 1.0, 0).unwrap();
        g.update_ask(app, 20, "h1", 2, cap(), true).unwrap();
        g.update_ask(app, 20, ANY, 2, cap(), true).unwrap();
        g.node_heartbeat(b, cap(), 0, &mut out).unwrap();
        assert!(out.is_empty());
    }

    #[test]
    fn hadoop_default_delays_non_local_containers() {
        let mut s = session(PolicyKind::HadoopDefault);
        s.add_node("h1", "/r1", cap(), 1.0).unwrap();
        let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
        let h3 = s.add_node("h3", "/r2", cap(), 1.0).unwrap();
        let app = s.add_app("app", 1.0, 0).unwrap();
        for (res, n) in [("h1", 10), ("/r1", 10), (ANY, 10)] {
            s.update_ask(app, 20, res, n, cap(), true).unwrap();
        }
        // Three nodes cap both delays at 3 missed opportunities.
        let mut out = Vec::new();
        let mut offers = |s: &mut Session, node| {
            let mut n = 0;
            loop {
                n += 1;
                s.node_heartbeat(node, cap(), 0, &mut out).unwrap();
                if let Some(g) = out.first() {
                    return (n, g.locality);
                }
            }
        };
        assert_eq!(offers(&mut s, h2), (4, Locality::Rack));
        assert_eq!(
            offers(&mut s, h3),
            (4, Locality::OffSwitch),
            "rack grant reset the count"
        );
        assert_eq!(
            offers(&mut s, h3),
            (1, Locality::OffSwitch),
            "off-switch does not reset it"
        );
    }

    #[test]
    fn grants_respect_free_resources_and_merge() {
        let mut s = session(PolicyKind::Asm1);
        let a = s
            .add_node("h1", "/r1", Resources::new(4096, 4), 1.0)
            .unwrap();
        let app = s.add_app("app", 1.0, 0).unwrap();
        s.update_ask(app, 20, "h1", 5, cap(), true).unwrap();
        s.update_ask(app, 20, ANY, 5, cap(), true).unwrap();
        let mut out = Vec::new();
        s.node_heartbeat(a, Resources::new(3000, 4), 0, &mut out)
            .unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].count, 2, "3000 MB hold two 1024 MB containers");
    }

    #[test]
    fn node_updates_change_the_plan_and_name_bad_input() {
        let mut s = session(PolicyKind::Asm1);
        let big = s
            .add_node("h1", "/r1", Resources::new(4096, 4), 1.0)
            .unwrap();
        let small = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
        let app = s.add_app("app", 1.0, 0).unwrap();
        for (res, n) in [("h1", 8), ("h2", 8), ("/r1", 8), (ANY, 8)] {
            s.update_ask(app, 20, res, n, cap(), true).unwrap();
        }
        s.plan_if_dirty();
        let before = s.queued();
        assert!(
            before[big as usize] > before[small as usize],
            "four slots take more than one: {before:?}"
        );
        s.update_node(small, Resources::new(4096, 4)).unwrap();
        s.plan_if_dirty();
        let after = s.queued();
        assert_eq!(after[big as usize], after[small as usize], "{after:?}");
        assert_eq!(
            s.update_node(small, Resources::new(-1, 1))
                .unwrap_err()
                .to_string(),
            "node \"h2\": capacity must not be negative, got -1 MB and 1 vcores"
        );
        assert_eq!(
            s.update_node(7, cap()).unwrap_err().to_string(),
            "node id 7 is not registered"
        );
        s.remove_node(small).unwrap();
        assert_eq!(
            s.update_node(small, cap()).unwrap_err().to_string(),
            "node \"h2\" (id 1) was removed"
        );
    }

    #[test]
    fn finished_app_work_is_dropped() {
        let mut s = session(PolicyKind::Asm1);
        let a = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
        let app = s.add_app("app", 1.0, 0).unwrap();
        s.update_ask(app, 20, "h1", 1, cap(), true).unwrap();
        s.update_ask(app, 20, ANY, 1, cap(), true).unwrap();
        s.plan_if_dirty();
        assert_eq!(s.queued()[a as usize], 1);
        s.finish_app(app).unwrap();
        let mut out = Vec::new();
        s.node_heartbeat(a, cap(), 0, &mut out).unwrap();
        assert!(out.is_empty());
        assert_eq!(
            s.update_ask(app, 20, ANY, 1, cap(), true)
                .unwrap_err()
                .to_string(),
            "application \"app\" has finished"
        );
    }

    #[test]
    fn bad_events_name_what_is_wrong() {
        let mut s = session(PolicyKind::Asm1);
        let a = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
        assert_eq!(
            s.add_node("h1", "/r1", cap(), 1.0).unwrap_err().to_string(),
            "node \"h1\" is already registered (id 0)"
        );
        assert_eq!(
            s.add_node("h2", "/r1", cap(), 0.0).unwrap_err().to_string(),
            "node \"h2\": speed must be a positive finite number, got 0"
        );
        assert_eq!(
            s.add_node("h3", "/r1", Resources::new(-1, 1), 1.0)
                .unwrap_err()
                .to_string(),
            "node \"h3\": capacity must not be negative, got -1 MB and 1 vcores"
        );
        let app = s.add_app("application_7_0001", 1.0, 0).unwrap();
        assert_eq!(
            s.update_ask(app, 20, "h1", -3, cap(), true).unwrap_err().to_string(),
            "application \"application_7_0001\", priority 20, resource \"h1\": container count must not be negative, got -3"
        );
        assert_eq!(
            s.add_app("application_7_0001", 1.0, 0)
                .unwrap_err()
                .to_string(),
            "application \"application_7_0001\" is already registered (id 0)"
        );
        assert_eq!(
            s.add_app("x", f64::NAN, 0).unwrap_err().to_string(),
            "application \"x\": weight must be a positive finite number, got NaN"
        );
        assert_eq!(
            s.update_ask(9, 20, ANY, 1, cap(), true).unwrap_err(),
            SessionError::UnknownApp(9)
        );
        let mut out = Vec::new();
        assert_eq!(
            s.node_heartbeat(7, cap(), 0, &mut out)
                .unwrap_err()
                .to_string(),
            "node id 7 is not registered"
        );
        s.remove_node(a).unwrap();
        assert_eq!(
            s.node_heartbeat(a, cap(), 0, &mut out)
                .unwrap_err()
                .to_string(),
            "node \"h1\" (id 0) was removed"
        );
        assert_eq!(
            s.add_node("h1", "/r2", cap(), 1.0).unwrap(),
            a,
            "a returning host keeps its id"
        );
    }

    /// Feeds exact blocks and the asks the MR AM derives from them.
    fn feed(s: &mut Session, app: AppId, blocks: &[&[&str]]) {
        let hosts: Vec<Vec<&str>> = blocks.iter().map(|b| b.to_vec()).collect();
        s.set_input_blocks(app, 20, &hosts).unwrap();
        let mut counts: HashMap<String, i32> = HashMap::new();
        for b in blocks {
            let mut racks: Vec<u32> = Vec::new();
            for h in b.iter() {
                *counts.entry(h.to_string()).or_default() += 1;
                let rack = s.nodes[s.node_id(h).unwrap() as usize].rack;
                if !racks.contains(&rack) {
                    racks.push(rack);
                }
            }
            for r in racks {
                let name = s.names.iter().find(|(_, &id)| id == r).unwrap().0.clone();
                *counts.entry(name).or_default() += 1;
            }
        }
        for (res, c) in counts {
            s.update_ask(app, 20, &res, c, cap(), true).unwrap();
        }
        s.update_ask(app, 20, ANY, blocks.len() as i32, cap(), true)
            .unwrap();
    }

    #[test]
    fn asm1_comm_steals_from_the_longest_queue() {
        let mut s = session(PolicyKind::Asm1Comm);
        let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
        let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
        let app = s.add_app("app", 1.0, 0).unwrap();
        let only_h1: &[&str] = &["h1"];
        let both: &[&str] = &["h1", "h2"];
        feed(
            &mut s,
            app,
            &[only_h1, only_h1, only_h1, only_h1, both, both],
        );
        s.plan_if_dirty();
        // Cap ceil(6/2) = 3: h1 keeps three of its own, one moves to h2.
        assert_eq!(s.queued(), vec![3, 3]);
        // h1 never heartbeats (busy): h2 runs its queue, then steals.
        let mut got = Vec::new();
        let mut out = Vec::new();
        for _ in 0..10 {
            s.node_heartbeat(h2, cap(), 0, &mut out).unwrap();
            got.extend(out.iter().map(|g| g.locality));
            s.container_finished(h2).unwrap();
        }
        let node = got.iter().filter(|&&l| l == Locality::Node).count();
        let rack = got.iter().filter(|&&l| l == Locality::Rack).count();
        assert_eq!((node, rack, got.len()), (2, 4, 6));
        s.node_heartbeat(h1, cap(), 0, &mut out).unwrap();
        assert!(out.is_empty(), "nothing left for h1");
    }

    #[test]
    fn asm1_steals_only_local_tasks() {
        let mut s = session(PolicyKind::Asm1);
        let _h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
        let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
        let app = s.add_app("app", 1.0, 0).unwrap();
        let only_h1: &[&str] = &["h1"];
        let both: &[&str] = &["h1", "h2"];
        feed(&mut s, app, &[only_h1, only_h1, only_h1, both]);
        s.plan_if_dirty();
        assert_eq!(s.queued(), vec![3, 1]);
        let mut out = Vec::new();
        let mut n = 0;
        for _ in 0..5 {
            s.node_heartbeat(h2, cap(), 0, &mut out).unwrap();
            n += out.iter().map(|g| g.count).sum::<u32>();
            assert!(out.iter().all(|g| g.locality == Locality::Node));
            s.container_finished(h2).unwrap();
        }
        assert_eq!(n, 1, "h2 runs its one local task and stays idle");
    }

    #[test]
    fn a_recorded_event_log_replays_to_the_same_grants() {
        let events = vec![
            SessionEvent::AddNode {
                host: "h1".into(),
                rack: "/r1".into(),
                capacity: cap(),
                speed: 1.0,
            },
            SessionEvent::AddApp {
                app: "application_1_0001".into(),
                weight: 1.0,
                submit_ms: 0,
            },
            SessionEvent::UpdateAsk {
                app: 0,
                priority: 20,
                resource: ANY.into(),
                count: 2,
                capability: cap(),
                relax_locality: true,
            },
            SessionEvent::Heartbeat {
                node: 0,
                free: cap(),
                now_ms: 1000,
            },
        ];
        let text = serde_json::to_string(&events).unwrap();
        assert!(text.contains(r#"{"event":"heartbeat","node":0"#), "{text}");
        let back: Vec<SessionEvent> = serde_json::from_str(&text).unwrap();
        assert_eq!(back, events);
        let mut s = session(PolicyKind::Asm1Comm);
        let mut out = Vec::new();
        for e in &back {
            s.apply(e, &mut out).unwrap();
        }
        assert_eq!(
            out,
            vec![Grant {
                app: 0,
                priority: 20,
                count: 1,
                locality: Locality::OffSwitch
            }]
        );
    }

    #[test]
    fn synthesised_pool_matches_the_marginals() {
        let mut s = session(PolicyKind::Asm1);
        for h in ["h1", "h2", "h3"] {
            s.add_node(h, "/r", cap(), 1.0).unwrap();
        }
        let app = s.add_app("app", 1.0, 0).unwrap();
        for (res, n) in [("h1", 3), ("h2", 2), ("h3", 1), ("unknown-dn", 4), (ANY, 3)] {
            s.update_ask(app, 20, res, n, cap(), true).unwrap();
        }
        s.plan_if_dirty();
        let g = &s.apps[app as usize].groups[0];
        assert_eq!(g.pool.len(), 3);
        let mut per_host = [0; 3];
        for t in &g.pool {
            for &r in &t.replicas {
                per_host[r as usize] += 1;
            }
        }
        assert_eq!(per_host, [3, 2, 1]);
        assert_eq!(s.queued().iter().sum::<usize>(), 3);
    }
}
