//! Planning, off the heartbeat. Three steps, each a function of its own so
//! that every host runs the same code:
//!
//! 1. [`Session::plan_request`] copies what planning reads (nodes, asks,
//!    shared exact replica lists) under the host's lock: O(nodes + asks),
//!    not O(tasks).
//! 2. [`PlanRequest::plan`] synthesises tasks from the asks, builds the
//!    problem, runs the policy's planner and orders each node's queue. It
//!    touches no Session: a host runs it on its planner thread.
//! 3. [`Session::install_plan`] swaps the queues and synthesised pools in:
//!    O(nodes + groups). What it replaces comes back as [`PlanGarbage`], to
//!    be dropped outside the lock.
//!
//! Between plans the Session stays current by itself: a changed ask changes
//! the counts that `valid` and the fallback read at once, a finished app's
//! or started task's queue entries are dropped lazily at the queue head.
//! [`Planning`] says who runs step 2 and when step 3 happens.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use crate::model::{Bipartite, CostModel, Csr, NodeId, Problem, NONE};
use crate::policy::{PolicyKind, ReduceStage};

use super::spc_order::{spc_order, AppWork, SpcOrder};
use super::{
    stage_times, AppId, Covered, Group, JobOrder, Limits, NodeState, Replicas, Resources, Session,
    Slot, STEAL_CANDIDATES,
};

/// Who plans, and when the plan is installed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Planning {
    /// Step 2 runs at once, on the heartbeat that finds the inputs changed,
    /// and its result is installed `base_ms + per_million_tasks_ms * tasks
    /// / 1e6` later in the host's time (the heartbeats' `now`). The
    /// simulator's model of a planner thread: deterministic. With both 0
    /// the plan is installed at once (tests, tools).
    Modelled {
        base_ms: f64,
        per_million_tasks_ms: f64,
    },
    /// A host thread plans ([`super::BackgroundPlanner`]); heartbeats never do.
    Background,
}

impl Default for Planning {
    fn default() -> Self {
        Planning::Modelled {
            base_ms: 0.0,
            per_million_tasks_ms: 0.0,
        }
    }
}

#[derive(Clone, Copy)]
struct NodeSnap {
    alive: bool,
    rack: u32,
    capacity: Resources,
    speed: f64,
    running: u32,
}

/// One ask group as planning sees it.
struct GroupSnap {
    app: AppId,
    app_name: Arc<str>,
    group: u32,
    priority: i32,
    any: i32,
    counts: Vec<(u32, i32)>,
    /// Exact replicas and the started marks at the snapshot.
    exact: Option<(Arc<Replicas>, Vec<bool>)>,
    /// A reduce stage the policy plans ([`ReduceStage::Earliest`]): the
    /// location-less asks of an application that asked for maps.
    reduce: bool,
    /// Size of each of its tasks in the plan: 1 (a container), or a
    /// planned reducer's size in its job's map containers.
    size: f64,
}

/// What planning reads, copied from the Session (step 1).
pub struct PlanRequest {
    policy: PolicyKind,
    cost: CostModel,
    seed: u64,
    limits: Limits,
    planned: bool,
    container: Resources,
    nodes: Vec<NodeSnap>,
    node_by_name: Vec<NodeId>,
    /// Live applications in FIFO order, their groups in priority order.
    groups: Vec<GroupSnap>,
    job_order: JobOrder,
    /// Under [`JobOrder::Spc`]: the live applications' work, the previous
    /// LP's cuts and whether the previous plan fell back.
    spc_apps: Vec<AppWork>,
    spc_cuts: Arc<crate::spc::online::KeyedCuts>,
    spc_fallback: bool,
    spc_max_jobs: usize,
}

/// Where a request copied in parts stands ([`Session::plan_request_more`]).
pub struct CopyCursor {
    /// The live applications at the beginning, in order.
    apps: Vec<AppId>,
    app: usize,
    node: usize,
}

/// A synthesised pool to install: (app, group, priority, replicas, started
/// marks).
type NewPool = (AppId, u32, i32, Arc<Replicas>, Vec<bool>);

/// A computed plan (step 2), ready to install.
pub struct PlanResult {
    /// New synthesised pools: (app, group, priority, replicas, started
    /// marks), the marks made here rather than under the host's lock.
    pools: Vec<NewPool>,
    /// Per node id, the ordered queue (nodes added since: none).
    pub(super) queues: Vec<VecDeque<Slot>>,
    steal_candidates: Vec<NodeId>,
    tasks: usize,
    /// The application order computed by this plan ([`JobOrder::Spc`]).
    order: Option<SpcOrder>,
    /// Each group's pool and how much of it the queues hold (ASM1's
    /// incremental insertions go on from there).
    covered: Vec<Covered>,
}

impl PlanResult {
    /// Tasks placed.
    pub fn tasks(&self) -> usize {
        self.tasks
    }

    /// Under [`JobOrder::Spc`]: the LP jobs (open stages) of this plan and
    /// whether it solved the LP over them (false: it fell back); 0 LP jobs
    /// under HUWF's and Tetris's orders, which solve none.
    pub fn spc_lp(&self) -> Option<(usize, bool)> {
        self.order.as_ref().map(|o| (o.lp_jobs, !o.fallback))
    }
}

/// What an install replaced; drop it outside the host's lock (freeing a
/// million-task plan takes milliseconds).
#[derive(Default)]
pub struct PlanGarbage {
    pub(super) _pools: Vec<Arc<Replicas>>,
    pub(super) _started: Vec<Vec<bool>>,
    _queues: Vec<VecDeque<Slot>>,
    pub(super) _covered: Vec<Vec<Covered>>,
}

impl PlanGarbage {
    /// Room for what installing `r` replaces, so that the install
    /// allocates nothing under the host's lock.
    pub fn for_plan(r: &PlanResult) -> PlanGarbage {
        PlanGarbage {
            _pools: Vec::with_capacity(r.pools.len()),
            _started: Vec::with_capacity(r.pools.len()),
            _queues: Vec::with_capacity(r.queues.len()),
            _covered: Vec::new(),
        }
    }
}

/// Where an install in parts stands ([`Session::install_more`]).
#[derive(Default)]
pub struct InstallCursor {
    begun: bool,
    /// The application order at the first part.
    apps: Option<Vec<AppId>>,
    app: usize,
    node: usize,
    /// Incremental planning's ceiling over the queues installed so far
    /// (each node is read as its queue goes in, not all again at the end:
    /// at 50,000 nodes that last read held the lock for milliseconds),
    /// in the container size taken once at the first part.
    ceiling: f64,
    ceiling_cap: Option<Resources>,
}

impl Session {
    /// Chooses how planning runs (default: at once, on the heartbeat).
    pub fn set_planning(&mut self, planning: Planning) {
        self.plan.planning = planning;
    }

    /// Whether an event changed what planning reads since the last request.
    pub fn wants_plan(&self) -> bool {
        self.plan.dirty
    }

    /// Plans and installs now if an event changed the inputs (tests and
    /// tools; hosts plan through [`Planning`]).
    pub fn plan_if_dirty(&mut self) {
        if self.plan.dirty {
            self.plan.in_flight = None;
            let r = self.plan_request().plan();
            drop(self.install_plan(r));
        }
    }

    /// [`Planning::Modelled`] at a heartbeat at `now_ms`: install a plan
    /// whose time has come, start one if the inputs changed.
    pub(super) fn drive_planning(&mut self, now_ms: i64) {
        let Planning::Modelled {
            base_ms,
            per_million_tasks_ms,
        } = self.plan.planning
        else {
            return;
        };
        if self
            .plan
            .in_flight
            .as_ref()
            .is_some_and(|(at, _)| now_ms >= *at)
        {
            if let Some((_, r)) = self.plan.in_flight.take() {
                drop(self.install_plan(r));
            }
        }
        if self.plan.dirty && self.plan.in_flight.is_none() {
            let r = self.plan_request().plan();
            let delay = base_ms + per_million_tasks_ms * r.tasks as f64 / 1e6;
            if delay > 0.0 {
                let at = now_ms.saturating_add(delay.ceil().min(i64::MAX as f64) as i64);
                self.plan.in_flight = Some((at, r));
            } else {
                drop(self.install_plan(r));
            }
        }
    }

    /// Step 1: copies what planning reads and marks the inputs clean.
    pub fn plan_request(&mut self) -> PlanRequest {
        let (mut r, mut c) = self.plan_request_begin();
        self.plan_request_more(&mut r, &mut c, usize::MAX);
        r
    }

    /// Step 1 in parts, so that a host holds its lock for short spells:
    /// the settings, names and application order now (marks the inputs
    /// clean), then nodes and applications through
    /// [`Session::plan_request_more`], a bounded amount each time.
    /// Changes between parts are planned next time.
    pub fn plan_request_begin(&mut self) -> (PlanRequest, CopyCursor) {
        self.plan.dirty = false;
        self.plan.incr.gen += 1;
        let planned = self.dynamic.planned;
        if planned && self.cfg.job_order.job_aware() {
            // Remaining work changed with the asks: re-rank before planning.
            self.rebuild_app_order();
        }
        let r = PlanRequest {
            policy: self.cfg.policy,
            cost: self.cfg.cost,
            seed: self.cfg.seed,
            limits: self.limits,
            planned,
            container: self.typical_container(),
            nodes: Vec::new(),
            // Ids in it are below `nodes.len()` now, and nodes only grow:
            // every node it names is copied by the parts that follow.
            node_by_name: if planned {
                self.names.node_by_name.clone()
            } else {
                Vec::new()
            },
            groups: Vec::new(),
            job_order: self.cfg.job_order,
            spc_apps: Vec::new(),
            spc_cuts: self.plan.spc_cuts.clone(),
            spc_fallback: self.plan.spc_fallback,
            spc_max_jobs: self.plan.spc_max_jobs,
        };
        let apps = if planned {
            self.ranking.app_order.clone()
        } else {
            Vec::new()
        };
        (
            r,
            CopyCursor {
                apps,
                app: 0,
                node: 0,
            },
        )
    }

    /// Copies the next part of a request begun by
    /// [`Session::plan_request_begin`]: nodes, then applications (those
    /// still live, in the order at the beginning), until about `work`
    /// entries (a node, an ask count) are copied. True once all is.
    pub fn plan_request_more(
        &mut self,
        r: &mut PlanRequest,
        c: &mut CopyCursor,
        work: usize,
    ) -> bool {
        let mut left = work.max(1);
        let to = c.node.saturating_add(left).min(self.nodes.len());
        r.nodes
            .extend(self.nodes[c.node.min(to)..to].iter().map(|n| NodeSnap {
                alive: n.alive,
                rack: n.rack,
                capacity: n.capacity,
                speed: n.speed,
                running: n.running,
            }));
        left -= to.saturating_sub(c.node);
        c.node = c.node.max(to);
        if c.node < self.nodes.len() {
            return false;
        }
        while let Some(&app) = c.apps.get(c.app) {
            if left == 0 {
                return false;
            }
            c.app += 1;
            left = left.saturating_sub(self.copy_app(r, app));
        }
        true
    }

    /// Adds the asks of `app` (if still live) to a request; returns the
    /// entries copied.
    fn copy_app(&mut self, r: &mut PlanRequest, app: AppId) -> usize {
        let now = self.clock.now_ms;
        let Some(a) = self.apps.get_mut(app as usize).filter(|a| a.alive) else {
            return 1;
        };
        let mut work = 1;
        if r.job_order.computed() {
            let (mut located, mut anywhere) = (0u64, 0u64);
            for g in &a.groups {
                let n = g.any.max(0) as u64;
                if g.exact || !g.counts.is_empty() {
                    located += n;
                } else {
                    anywhere += n;
                }
            }
            // A MapReduce job with reducers: the AM's progress below 0.5 is
            // its map stage's (see `remaining_ms`).
            a.reduces |= a.mapped && anywhere > 0;
            let reduce_stage = a.reduces;
            // S-PC's reduce stage sizes a job's reducers apart from its
            // maps: their own work, else its map mean (not the AM's
            // progress, which weighs a light reduce as half the job).
            let reduce_work_ms = if self.stage_clock.is_some() && a.mapped {
                let map_ms = a.map_work_ms();
                a.groups
                    .iter()
                    .find(|g| g.any > 0 && !g.located)
                    .and_then(|g| stage_times::reducer_work(g.size, map_ms, self.reduce_ratio))
                    .map(|(w, _)| w)
                    .or(map_ms)
            } else {
                None
            };
            r.spc_apps.push(AppWork {
                app,
                weight: a.weight,
                mean_ms: a.mean_container_ms(now),
                remaining_ms: a.remaining_ms(now, reduce_stage),
                map_stage_only: reduce_stage,
                running: u64::from(a.running),
                located,
                anywhere,
                reduce_work_ms,
            });
        }
        let app_name: Arc<str> = Arc::from(a.name.as_str());
        let reduces = a.mapped && self.dynamic.reduce_stage != ReduceStage::Unplanned;
        let map_ms = a.map_work_ms();
        for (gi, g) in a.groups.iter_mut().enumerate() {
            work += 1 + g.counts.len();
            if g.exact {
                revive_exact(g, &self.nodes);
                work += g.pool.len() / 8;
            }
            r.groups.push(GroupSnap {
                app,
                app_name: app_name.clone(),
                group: gi as u32,
                priority: g.priority,
                any: g.any,
                counts: g.counts.iter().map(|(&k, &v)| (k, v)).collect(),
                exact: g
                    .exact
                    .then(|| (g.pool.replicas.clone(), g.pool.started.clone())),
                reduce: reduces && !g.exact && g.counts.is_empty(),
                size: if reduces && !g.located {
                    stage_times::reducer_work(g.size, map_ms, self.reduce_ratio)
                        .map_or(1.0, |(_, size)| size)
                } else {
                    1.0
                },
            });
        }
        work
    }

    /// Step 3: swaps the plan in. Groups that changed their pool kind or
    /// left since the request keep theirs; slots name their group's
    /// priority, so groups that moved still resolve.
    pub fn install_plan(&mut self, mut r: PlanResult) -> PlanGarbage {
        let mut garbage = PlanGarbage::default();
        let mut c = InstallCursor::default();
        while !self.install_more(&mut r, &mut c, usize::MAX, &mut garbage) {}
        garbage
    }

    /// The application order the plan computed (under [`JobOrder::Spc`]),
    /// for the heartbeats until the next plan.
    fn install_order(&mut self, r: &mut PlanResult) {
        let Some(o) = r.order.take() else {
            return;
        };
        for (app, key) in o.keys {
            if let Some(a) = self.apps.get_mut(app as usize) {
                a.order_key = key;
            }
        }
        if let Some(cuts) = o.cuts {
            self.plan.spc_cuts = cuts;
        }
        self.plan.spc_fallback = o.fallback;
        self.rebuild_app_order();
    }

    /// Step 3 in parts, so that a host holds its lock for short spells:
    /// the application order (under [`JobOrder::Spc`]) and the steal
    /// candidates, then about `work` entries each time: synthesised pools,
    /// the groups' scan starts, then node queues (nodes added since the
    /// request get an empty one). True once every node has its queue.
    /// What it replaces goes to `garbage` (reserve it outside the lock:
    /// [`PlanGarbage::for_plan`]).
    pub fn install_more(
        &mut self,
        r: &mut PlanResult,
        c: &mut InstallCursor,
        work: usize,
        garbage: &mut PlanGarbage,
    ) -> bool {
        let mut left = work.max(1);
        if !c.begun {
            c.begun = true;
            self.install_order(r);
            self.incr_install_started(std::mem::take(&mut r.covered));
            self.plan.steal_candidates = std::mem::take(&mut r.steal_candidates);
            c.apps = Some(self.ranking.app_order.clone());
            c.ceiling_cap = self.incr_ceiling_cap();
            tracing::debug!(policy = %self.cfg.policy, tasks = r.tasks, "plan installing");
        }
        // Pools are of distinct groups: their order does not matter.
        while !r.pools.is_empty() {
            if left == 0 {
                return false;
            }
            left -= 1;
            if let Some((app, gi, priority, replicas, started)) = r.pools.pop() {
                self.install_pool(app, gi, priority, replicas, started, garbage);
            }
        }
        // Every group's scan starts again at its first task.
        let apps = c.apps.as_deref().unwrap_or_default();
        while let Some(&app) = apps.get(c.app) {
            if left == 0 {
                return false;
            }
            c.app += 1;
            let groups = &mut self.apps[app as usize].groups;
            left = left.saturating_sub(1 + groups.len());
            for g in groups {
                g.first_free = 0;
            }
        }
        let to = c.node.saturating_add(left).min(self.nodes.len());
        for i in c.node..to {
            let mut q = r.queues.get_mut(i).map(std::mem::take).unwrap_or_default();
            let n = &mut self.nodes[i];
            if !n.alive {
                q.clear();
            }
            self.queued_total = self.queued_total - n.queue.len() + q.len();
            garbage._queues.push(std::mem::replace(&mut n.queue, q));
            if let Some(cap) = c.ceiling_cap.filter(|_| self.nodes[i].alive) {
                c.ceiling = c.ceiling.max(self.incr_finish(i as NodeId, &cap));
            }
        }
        c.node = c.node.max(to);
        if c.node < self.nodes.len() {
            return false;
        }
        self.incr_install_done(c.ceiling, garbage);
        tracing::debug!(policy = %self.cfg.policy, tasks = r.tasks, "plan installed");
        true
    }

    /// One synthesised pool of a plan, if its group still asks that way.
    fn install_pool(
        &mut self,
        app: AppId,
        gi: u32,
        priority: i32,
        replicas: Arc<Replicas>,
        started: Vec<bool>,
        garbage: &mut PlanGarbage,
    ) {
        let Some(a) = self.apps.get_mut(app as usize).filter(|a| a.alive) else {
            return;
        };
        let g = match a.groups.get_mut(gi as usize) {
            Some(g) if g.priority == priority => g,
            _ => match a.groups.iter_mut().find(|g| g.priority == priority) {
                Some(g) => g,
                None => return,
            },
        };
        if g.exact {
            return;
        }
        garbage
            ._pools
            .push(std::mem::replace(&mut g.pool.replicas, replicas));
        garbage
            ._started
            .push(std::mem::replace(&mut g.pool.started, started));
        g.pool.started_n = 0;
        g.dealing = Default::default();
    }

    /// The container size most asks use, to turn node capacity into slots.
    pub(super) fn typical_container(&self) -> Resources {
        self.ranking
            .app_order
            .iter()
            .flat_map(|&a| self.apps[a as usize].groups.iter())
            .find(|g| g.any > 0)
            .map_or(Resources::new(1, 1), |g| g.capability)
    }
}

impl PlanRequest {
    /// Step 2: the plan over every pending task. Touches no Session.
    pub fn plan(&self) -> PlanResult {
        let mut result = PlanResult {
            pools: Vec::new(),
            queues: Vec::new(),
            steal_candidates: Vec::new(),
            tasks: 0,
            order: None,
            covered: Vec::new(),
        };
        if !self.planned {
            return result;
        }
        // Synthesised pools follow the asks: n = ANY tasks, each host's count
        // dealt round-robin over them so that every marginal matches.
        let mut budget = self.limits.max_planned_tasks;
        let mut pools: Vec<Arc<Replicas>> = Vec::with_capacity(self.groups.len());
        for g in &self.groups {
            let replicas = match &g.exact {
                Some((replicas, _)) => replicas.clone(),
                None => {
                    let (replicas, cut) = if g.reduce {
                        anywhere_pool(g, budget)
                    } else {
                        synthesize_pool(g, self, budget)
                    };
                    budget -= replicas.len();
                    if let Some(wanted) = cut {
                        tracing::warn!(
                            app = %g.app_name,
                            priority = g.priority,
                            wanted,
                            planned = replicas.len(),
                            limit = self.limits.max_planned_tasks,
                            "max-planned-tasks reached: the rest of the ask is served at heartbeats"
                        );
                    }
                    let replicas = Arc::new(replicas);
                    let started = vec![false; replicas.len()];
                    result
                        .pools
                        .push((g.app, g.group, g.priority, replicas.clone(), started));
                    replicas
                }
            };
            pools.push(replicas);
        }
        // Dense problem over live nodes.
        let mut dense_of = vec![NONE; self.nodes.len()];
        let mut live: Vec<NodeId> = Vec::new();
        let mut rack_ids: HashMap<u32, u32> = HashMap::new();
        let mut problem = Problem {
            cost: self.cost,
            ..Problem::default()
        };
        for (i, n) in self.nodes.iter().enumerate() {
            if !n.alive {
                continue;
            }
            dense_of[i] = live.len() as NodeId;
            live.push(i as NodeId);
            let slots = n.capacity.slots_of(&self.container);
            let next = rack_ids.len() as u32;
            problem
                .node_rack
                .push(*rack_ids.entry(n.rack).or_insert(next));
            problem.node_speed.push(n.speed);
            problem.node_slots.push(slots);
            // Running containers count as one wave of work still to do.
            problem
                .node_load
                .push(n.running as f64 / slots as f64 * self.cost.local / n.speed);
        }
        if live.is_empty() {
            return result;
        }
        // The application order: S-PC's LP (solved here, on the planner's
        // side, never at a heartbeat), else the Session's order at the
        // request (groups come in it).
        let mut rank: HashMap<AppId, usize> = HashMap::new();
        if self.job_order.computed() {
            let speeds = crate::spc::Speeds::from_nodes(&problem.node_speed, &problem.node_slots);
            let o = spc_order(
                self.job_order,
                &self.spc_apps,
                &speeds,
                &self.spc_cuts,
                self.spc_fallback,
                self.spc_max_jobs,
            );
            let mut keyed: Vec<(f64, usize, AppId)> = o
                .keys
                .iter()
                .enumerate()
                .map(|(i, &(a, k))| (k, i, a))
                .collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            for (r, &(_, _, a)) in keyed.iter().enumerate() {
                rank.insert(a, r);
            }
            result.order = Some(o);
        }
        for g in &self.groups {
            let next = rank.len();
            rank.entry(g.app).or_insert(next);
        }
        // Each group's application rank, looked up once (not per task).
        let group_rank: Vec<usize> = self.groups.iter().map(|g| rank[&g.app]).collect();
        // Tasks in application order: S-PC's placement takes them so; an
        // application's reduce stage after its maps (YARN numbers the
        // reducers' priority before the maps').
        let mut by_rank: Vec<usize> = (0..self.groups.len()).collect();
        by_rank.sort_by_key(|&k| (group_rank[k], self.groups[k].reduce));
        let mut refs: Vec<(u32, u32)> = Vec::new();
        // The task-to-replica rows, built flat (no vector per task).
        let mut row_start: Vec<u32> = vec![0];
        let mut row_nodes: Vec<NodeId> = Vec::new();
        for k in by_rank {
            let g = &self.groups[k];
            // Asks with no location (reducers) have nothing to place unless
            // the policy plans the reduce stage: the fallback serves them
            // once a node's planned work is done.
            if g.exact.is_none() && g.counts.is_empty() && !g.reduce {
                continue;
            }
            let replicas = &pools[k];
            let started = g.exact.as_ref().map(|(_, s)| s.as_slice());
            let pending = (0..replicas.len())
                .filter(|&t| started.is_none_or(|s| !s.get(t).copied().unwrap_or(true)));
            let mut upto = 0;
            for t in pending.take(g.any.max(0) as usize) {
                upto = t + 1;
                refs.push((k as u32, t as u32));
                row_nodes.extend(
                    replicas
                        .of(t)
                        .iter()
                        .map(|&r| dense_of[r as usize])
                        .filter(|&d| d != NONE),
                );
                row_start.push(row_nodes.len() as u32);
            }
            if self.policy == PolicyKind::Asm1 {
                result.covered.push(Covered {
                    app: g.app,
                    priority: g.priority,
                    pool: replicas.clone(),
                    upto,
                });
            }
        }
        result.queues = vec![VecDeque::new(); self.nodes.len()];
        if refs.is_empty() {
            return result;
        }
        problem.task_size = refs
            .iter()
            .map(|&(k, _)| self.groups[k as usize].size)
            .collect();
        let Some(rows) = Csr::from_parts(row_start, row_nodes) else {
            return result;
        };
        problem.graph = Bipartite::new(live.len(), rows);
        let Some(planner) = self.policy.planner() else {
            return result;
        };
        let assignment = planner.plan_in_order(&problem, self.seed);
        // The application order, then the planner's own order on the node.
        for (d, &node) in live.iter().enumerate() {
            let mut slots: Vec<(usize, usize, Slot)> = assignment
                .queues
                .row(d)
                .iter()
                .enumerate()
                .map(|(pos, &t)| {
                    let (k, task) = refs[t as usize];
                    let g = &self.groups[k as usize];
                    let slot = Slot {
                        app: g.app,
                        group: g.group,
                        priority: g.priority,
                        task,
                        locality: problem.locality(t, d as NodeId),
                    };
                    (group_rank[k as usize], pos, slot)
                })
                .collect();
            slots.sort_by_key(|&(r, pos, _)| (r, pos));
            result.steal_candidates.push(node);
            result.queues[node as usize].extend(slots.into_iter().map(|(_, _, s)| s));
        }
        let queues = &result.queues;
        result
            .steal_candidates
            .sort_by_key(|&n| (std::cmp::Reverse(queues[n as usize].len()), n));
        result.steal_candidates.truncate(STEAL_CANDIDATES);
        result.tasks = refs.len();
        tracing::debug!(
            policy = %self.policy,
            tasks = refs.len(),
            nodes = live.len(),
            "planned"
        );
        result
    }
}

/// The AM, not the RM, picks which task runs in a container, so an exact
/// pool's `started` marks are guesses. The asks are the truth: while fewer
/// tasks look pending than the AM asks for, un-mark started tasks that the
/// asks still cover (every live replica host still asked for), oldest first.
fn revive_exact(g: &mut Group, nodes: &[NodeState]) {
    let want = g.any.max(0) as usize;
    let mut pending = g.pool.started.iter().filter(|&&s| !s).count();
    if pending >= want {
        return;
    }
    for t in 0..g.pool.len() {
        if !g.pool.started[t] {
            continue;
        }
        let covered = g.pool.replicas.of(t).iter().all(|&r| {
            let n = &nodes[r as usize];
            !n.alive || g.counts.get(&n.name).copied().unwrap_or(0) > 0
        });
        if covered {
            g.pool.mark(t, false);
            pending += 1;
            if pending == want {
                return;
            }
        }
    }
}

/// Most host asks dealt to one synthesised task (HDFS keeps 3 replicas).
const MAX_HOSTS_PER_TASK: usize = 16;

/// A synthesised pool from the asks: the host counts dealt round-robin over
/// the ANY count, so that every marginal matches. Only tasks that some host
/// asks for are kept (min(ANY, sum of host counts), at most `budget`); the
/// rest can run anywhere and stay a count (`any`). Also returns the wanted
/// size when `budget` (or memory) cut the pool short.
fn synthesize_pool(g: &GroupSnap, req: &PlanRequest, budget: usize) -> (Replicas, Option<usize>) {
    let n = g.any.max(0) as usize;
    let max_host_ask = req.limits.max_host_ask.min(i32::MAX as u32) as i32;
    let mut hosts: Vec<(NodeId, usize)> = g
        .counts
        .iter()
        .filter_map(|&(name, c)| {
            let id = *req.node_by_name.get(name as usize)?;
            let c = c.clamp(0, max_host_ask) as usize;
            req.nodes.get(id as usize)?.alive.then_some((id, c))
        })
        .collect();
    hosts.sort_unstable();
    let asked: usize = hosts.iter().map(|&(_, c)| c.min(n)).sum();
    let wanted = n.min(asked);
    let replicas = deal(&hosts, n, 0, wanted.min(budget));
    let cut = (replicas.len() < wanted).then_some(wanted);
    (replicas, cut)
}

/// A reduce stage's pool: a task with no replica per pending container
/// (at most `budget`; the rest stays a count). Also returns the wanted size
/// when `budget` cut it short.
fn anywhere_pool(g: &GroupSnap, budget: usize) -> (Replicas, Option<usize>) {
    let n = g.any.max(0) as usize;
    let size = n.min(budget);
    let mut start: Vec<usize> = Vec::new();
    if size == 0 || start.try_reserve_exact(size + 1).is_err() {
        return (Replicas::default(), (n > 0).then_some(n));
    }
    start.resize(size + 1, 0);
    let cut = (size < n).then_some(n);
    (
        Replicas {
            start,
            hosts: Vec::new(),
        },
        cut,
    )
}

/// Tasks `lo..hi` of `n`, host h (with count c, hosts sorted) taking the
/// next c of them round-robin, so that every marginal matches (dealt in
/// parts, the parts make up the whole).
pub(super) fn deal(hosts: &[(NodeId, usize)], n: usize, lo: usize, hi: usize) -> Replicas {
    let hi = hi.min(n);
    let size = hi.saturating_sub(lo);
    let mut start: Vec<usize> = Vec::new();
    if size == 0 || start.try_reserve_exact(size + 1).is_err() {
        return Replicas::default();
    }
    // Host h takes tasks k..k+c (mod n); c <= n, so that is at most two
    // ranges, and only indices below `size` exist. Replica entries are
    // capped too: a host count far above ANY is an AM's mistake. Two
    // passes: count each task's hosts, then fill.
    let deal = |visit: &mut dyn FnMut(usize, NodeId)| {
        let mut entries = size.saturating_mul(MAX_HOSTS_PER_TASK);
        let mut k = 0;
        for &(id, c) in hosts {
            let c = c.min(n);
            let first = k.max(lo)..(k + c).min(n).min(hi);
            let wrapped = lo..(k + c).saturating_sub(n).min(hi);
            for i in first.chain(wrapped) {
                if entries == 0 {
                    return;
                }
                entries -= 1;
                visit(i - lo, id);
            }
            k = (k + c) % n;
        }
    };
    let mut degree = vec![0usize; size];
    deal(&mut |i, _| degree[i] += 1);
    start.push(0);
    for d in &degree {
        start.push(start.last().copied().unwrap_or(0) + d);
    }
    let total = start.last().copied().unwrap_or(0);
    let mut hosts_flat = vec![0 as NodeId; total];
    let mut fill: Vec<usize> = start[..size].to_vec();
    deal(&mut |i, id| {
        hosts_flat[fill[i]] = id;
        fill[i] += 1;
    });
    Replicas {
        start,
        hosts: hosts_flat,
    }
}
