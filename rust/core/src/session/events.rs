//! Events from the host: nodes, applications, asks, input blocks and
//! finished containers.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::model::{NodeId, NONE};

use super::{
    bad_name, AppId, AppState, Counts, Group, GroupScratch, JobOrder, NodeState, Pool, Replicas,
    Resources, Session, SessionError, ANY, OVERTAKE_BOUND,
};

impl Session {
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
        if let Some(problem) = bad_name("host name", host).or_else(|| bad_name("rack name", rack)) {
            return Err(bad(problem));
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
        let new_names = [host, rack]
            .iter()
            .filter(|n| !self.names.ids.contains_key(**n))
            .count();
        if self.names.ids.len() + new_names > self.limits.max_names {
            return Err(bad(format!(
                "the Session already holds max-names ({}) distinct host and rack names",
                self.limits.max_names
            )));
        }
        let name = self.intern(host);
        let rack = self.intern(rack);
        let existing = self.names.node_by_name[name as usize];
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
            n.last_beat_ms = i64::MIN;
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
                explained: u64::MAX,
                last_beat_ms: i64::MIN,
            });
            self.names.node_by_name[name as usize] = id;
            id
        };
        let slots = capacity.slots_of(&Resources::new(1, 1));
        if let Some(d) = &mut self.durations {
            d.node_added(id, slots);
        }
        if let Some(c) = &mut self.stage_clock {
            c.node_added(id, slots, true);
        }
        self.index_asking(name);
        self.alive_nodes += 1;
        self.fastest = self.fastest.max(speed);
        self.speed_sum += speed;
        self.cluster_slots = None;
        self.cluster_capacity = None;
        self.plan.incr.slots = None;
        self.plan.dirty = true;
        Ok(id)
    }

    /// A node manager leaves (lost, decommissioned). Its queue is re-planned.
    pub fn remove_node(&mut self, node: NodeId) -> Result<(), SessionError> {
        self.node(node)?;
        let n = &mut self.nodes[node as usize];
        n.alive = false;
        self.alive_nodes -= 1;
        self.queued_total -= n.queue.len();
        n.queue.clear();
        self.running_total -= n.running as u64;
        n.running = 0;
        if let Some(d) = &mut self.durations {
            d.node_removed(node);
        }
        if let Some(c) = &mut self.stage_clock {
            c.node_removed(node);
        }
        // O(nodes), as a re-plan: nodes leave seldom.
        let live = self.nodes.iter().filter(|n| n.alive);
        self.fastest = live.clone().map(|n| n.speed).fold(0.0, f64::max);
        self.speed_sum = live.map(|n| n.speed).sum();
        self.cluster_slots = None;
        self.cluster_capacity = None;
        self.plan.incr.slots = None;
        self.plan.dirty = true;
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
            if let Some(c) = &mut self.stage_clock {
                c.node_added(node, capacity.slots_of(&Resources::new(1, 1)), false);
            }
            self.cluster_slots = None;
            self.cluster_capacity = None;
            self.plan.incr.slots = None;
            self.plan.dirty = true;
        }
        Ok(())
    }

    /// Node id of a registered host.
    pub fn node_id(&self, host: &str) -> Option<NodeId> {
        let &name = self.names.ids.get(host)?;
        let id = self.names.node_by_name[name as usize];
        (id != NONE).then_some(id)
    }

    /// An application is submitted. Its weight orders it under
    /// [`JobOrder::WeightedRemaining`].
    pub fn add_app(
        &mut self,
        app: &str,
        weight: f64,
        submit_time: i64,
    ) -> Result<AppId, SessionError> {
        if let Some(&id) = self.names.app_by_name.get(app) {
            return Err(SessionError::DuplicateApp {
                app: app.to_string(),
                id,
            });
        }
        let bad = |problem: String| SessionError::BadApp {
            app: app.to_string(),
            problem,
        };
        if let Some(problem) = bad_name("application id", app) {
            return Err(bad(problem));
        }
        if submit_time < 0 {
            return Err(bad(format!(
                "submit time must not be negative, got {submit_time} ms"
            )));
        }
        if !(weight.is_finite() && weight > 0.0) {
            return Err(SessionError::BadWeight {
                app: app.to_string(),
                weight,
            });
        }
        let id = self.apps.len() as AppId;
        // What FIFO would run before it: the live jobs' pending and running
        // containers (O(apps), as the re-rank below).
        let ahead = self.running_total.saturating_add(
            self.ranking
                .app_order
                .iter()
                .map(|&a| self.apps[a as usize].pending)
                .sum(),
        );
        self.apps.push(AppState {
            name: app.to_string(),
            submit: submit_time,
            weight,
            running: 0,
            alive: true,
            groups: Vec::new(),
            pending: 0,
            progress: None,
            first_progress: None,
            order_key: f64::INFINITY,
            run_ms: 0.0,
            run_since: submit_time,
            done: 0,
            overtaken_from: 0,
            promoted: 0,
            ahead,
            explained: u64::MAX,
            mapped: false,
            reduces: false,
        });
        self.names.app_by_name.insert(app.to_string(), id);
        if let Some(d) = &mut self.durations {
            d.app_added(id);
        }
        self.ranking.later_grants.push();
        self.ranking.live.push(id);
        // Room for every app in the busy and finishing lists, so heartbeats
        // never grow them.
        self.asks
            .busy
            .reserve(self.apps.len().saturating_sub(self.asks.busy.len()));
        self.asks
            .finishing
            .reserve(self.apps.len().saturating_sub(self.asks.finishing.len()));
        if let Some(rule) = &mut self.rule {
            rule.reserve(self.apps.len());
        }
        self.rebuild_app_order();
        self.plan.dirty = true;
        Ok(id)
    }

    /// The application's weight changed (a YARN priority update): it orders
    /// the app from the next plan on. Same rule as [`Self::add_app`].
    pub fn set_app_weight(&mut self, app: AppId, weight: f64) -> Result<(), SessionError> {
        let a = self.app_mut(app)?;
        if !(weight.is_finite() && weight > 0.0) {
            return Err(SessionError::BadWeight {
                app: a.name.clone(),
                weight,
            });
        }
        if a.weight != weight {
            a.weight = weight;
            // The ranking is rebuilt before the next plan.
            self.plan.dirty = true;
        }
        Ok(())
    }

    /// The application's AM reported `progress` (0 to 1) at `now_ms`: kept
    /// for job order planners; no plan changes now.
    pub fn app_progress(
        &mut self,
        app: AppId,
        progress: f32,
        now_ms: i64,
    ) -> Result<(), SessionError> {
        let a = self.app_mut(app)?;
        let bad = |problem: String| SessionError::BadApp {
            app: a.name.clone(),
            problem,
        };
        if !(progress.is_finite() && (0.0..=1.0).contains(&progress)) {
            return Err(bad(format!(
                "progress must be a finite number from 0 to 1, got {progress}"
            )));
        }
        if now_ms < 0 {
            return Err(bad(format!(
                "progress report time must not be negative, got {now_ms} ms"
            )));
        }
        a.advance(now_ms);
        if progress > 0.0 && a.first_progress.is_none() {
            a.first_progress = Some((progress, a.run_ms_at(now_ms)));
        }
        a.progress = Some((progress, now_ms));
        Ok(())
    }

    /// The weight of a registered application.
    pub fn app_weight(&self, app: AppId) -> Option<f64> {
        self.apps.get(app as usize).map(|a| a.weight)
    }

    /// The last progress report of a registered application: (progress, ms).
    pub fn progress_of(&self, app: AppId) -> Option<(f32, i64)> {
        self.apps.get(app as usize).and_then(|a| a.progress)
    }

    /// Ranks live applications: by submission, or for planned policies under
    /// [`JobOrder::WeightedRemaining`] by pending containers over weight.
    /// Called when apps come and go and before each plan.
    pub(super) fn rebuild_app_order(&mut self) {
        self.asks.busy_stale = true;
        self.ranking.app_order.clear();
        self.ranking.app_order.extend_from_slice(&self.ranking.live);
        debug_assert!(self
            .ranking
            .live
            .iter()
            .all(|&a| self.apps[a as usize].alive));
        let apps = &self.apps;
        if self.dynamic.planned && self.cfg.job_order.job_aware() {
            // Keys computed once (a plan re-ranks a thousand apps under the
            // host's lock); ties by submission, then registration. Under
            // S-PC the last plan's LP key comes first (apps not yet planned
            // have an infinite one, so they follow, by remaining work).
            let spc = self.cfg.job_order.computed();
            if self.cfg.job_order == JobOrder::WeightedRemaining {
                self.promote_overtaken();
            }
            let apps = &self.apps;
            let mut keyed: Vec<(bool, f64, f64, i64, AppId)> = self
                .ranking
                .app_order
                .iter()
                .map(|&x| {
                    let a = &apps[x as usize];
                    debug_assert_eq!(a.pending, a.pending_counted(), "app {}", a.name);
                    let pending = a.pending as f64;
                    let lp = if spc { a.order_key } else { 0.0 };
                    // Promoted jobs go first, oldest first. An app that
                    // asks nothing yet (just registered) ranks last, not
                    // first: its asks arrive before the next re-rank, and
                    // the heartbeat's serves read the rank.
                    let up = a.promoted > 0;
                    let rem = if up {
                        0.0
                    } else if pending > 0.0 {
                        pending / a.weight
                    } else {
                        f64::INFINITY
                    };
                    (!up, lp, rem, a.submit, x)
                })
                .collect();
            keyed.sort_unstable_by(|a, b| {
                a.0.cmp(&b.0)
                    .then(a.1.total_cmp(&b.1))
                    .then(a.2.total_cmp(&b.2))
                    .then((a.3, a.4).cmp(&(b.3, b.4)))
            });
            self.ranking.app_order.clear();
            self.ranking.app_order.extend(keyed.iter().map(|k| k.4));
        } else {
            self.ranking
                .app_order
                .sort_by_key(|&a| (apps[a as usize].submit, a));
        }
        self.ranking.rank.clear();
        self.ranking.rank.resize(self.apps.len(), u32::MAX);
        let mut sig = self.apps.len() as u64;
        for (i, &a) in self.ranking.app_order.iter().enumerate() {
            self.ranking.rank[a as usize] = i as u32;
            sig = (sig.rotate_left(7) ^ u64::from(a)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
        self.ranking.order_sig = sig;
    }

    /// Gives a turn at the front (see [`OVERTAKE_BOUND`]) to each live job
    /// with maps pending (asks with a location) that later jobs overtook
    /// (their grants less its own) by [`OVERTAKE_BOUND`] times its containers
    /// (pending, running and done) and what was ahead of it at its
    /// registration, and by at least one wave of the cluster's containers
    /// of its size (less is turnover noise: heartbeat order, locality
    /// waits). O(apps log apps), at a re-rank only (plus the nodes once
    /// when a job is promoted).
    fn promote_overtaken(&mut self) {
        for &a in &self.ranking.app_order {
            let overtaken = self.ranking.later_grants.after(a);
            let a = &mut self.apps[a as usize];
            debug_assert_eq!(a.pending, a.pending_counted(), "app {}", a.name);
            let own = u64::from(a.done) + u64::from(a.running) + a.pending;
            let by = overtaken.saturating_sub(a.overtaken_from);
            let bound = OVERTAKE_BOUND.saturating_mul(own.saturating_add(a.ahead));
            let candidate = a.promoted == 0 && by >= bound;
            if a.promoted == 0 && !candidate {
                // Nothing to change: its groups stay unread (cache misses
                // at thousands of apps).
                continue;
            }
            let map = a
                .groups
                .iter()
                .find(|g| g.any > 0 && !g.counts.is_empty())
                .map(|g| g.capability);
            let Some(map) = map else {
                a.promoted = 0;
                continue;
            };
            if candidate {
                let nodes = &self.nodes;
                // Cached across re-ranks: a candidate that is not yet a
                // wave ahead would otherwise read every node each time.
                let cluster: &Resources = self.cluster_capacity.get_or_insert_with(|| {
                    nodes
                        .iter()
                        .filter(|n| n.alive)
                        .fold(Resources::new(0, 0), |c, n| {
                            Resources::new(
                                c.memory_mb.saturating_add(n.capacity.memory_mb),
                                c.vcores.saturating_add(n.capacity.vcores),
                            )
                        })
                });
                let wave = u64::from(cluster.slots_of(&map));
                if by < wave {
                    continue;
                }
                a.promoted = wave as u32;
                a.overtaken_from = overtaken;
                tracing::debug!(
                    app = %a.name,
                    overtaken_by = by,
                    containers = own,
                    wave = a.promoted,
                    "overtaken by its size: ranks first for a wave"
                );
            }
        }
    }

    /// Records that group (`app`, `priority`) asks for host `name`. Stale
    /// entries are pruned whenever the list doubles, so it stays bounded by
    /// the groups that still ask.
    pub(super) fn note_asking(&mut self, name: u32, app: AppId, priority: i32) {
        if self.names.node_by_name[name as usize] == NONE {
            return;
        }
        let n = self.asks.asking[name as usize].len();
        if self.asks.asking[name as usize].contains(&(app, priority)) {
            return;
        }
        if n >= 16 && n.is_power_of_two() {
            let mut list = std::mem::take(&mut self.asks.asking[name as usize]);
            list.retain(|&(a, p)| self.group_asks(a, p, name).is_some());
            self.asks.asking[name as usize] = list;
        }
        self.asks.asking[name as usize].push((app, priority));
    }

    /// The index of `app`'s group at `priority` if it is live and asks for `name`.
    pub(super) fn group_asks(&self, app: AppId, priority: i32, name: u32) -> Option<usize> {
        let a = self.apps.get(app as usize).filter(|a| a.alive)?;
        let gi = a.groups.iter().position(|g| g.priority == priority)?;
        a.groups[gi].asked(name).then_some(gi)
    }

    /// A host (re-)registered: index the groups that already ask for it.
    fn index_asking(&mut self, name: u32) {
        let mut list = Vec::new();
        for (a, app) in self.apps.iter().enumerate().filter(|(_, a)| a.alive) {
            for g in app.groups.iter().filter(|g| g.asked(name)) {
                list.push((a as AppId, g.priority));
            }
        }
        self.asks.asking[name as usize] = list;
    }

    /// An application finished or was killed: its asks and queued work go.
    pub fn finish_app(&mut self, app: AppId) -> Result<(), SessionError> {
        let a = self.app_mut(app)?;
        a.alive = false;
        let groups = std::mem::take(&mut a.groups);
        a.pending = 0;
        if let Some(i) = self.ranking.live.iter().position(|&x| x == app) {
            self.ranking.live.remove(i);
        }
        for g in groups.iter().filter(|g| g.any > 0) {
            adjust_askers(&mut self.asks.askers, g, -1);
        }
        self.rebuild_app_order();
        self.plan.dirty = true;
        Ok(())
    }

    /// Index of the app's ask group at `priority`, created if new.
    fn group_index(
        &mut self,
        app: AppId,
        priority: i32,
        capability: Resources,
    ) -> Result<usize, SessionError> {
        let now = self.clock.now_ms;
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
                        counts: Counts::default(),
                        pool: Pool::default(),
                        exact: false,
                        first_free: 0,
                        wait_from: now,
                        asked: Default::default(),
                        stall_logged: false,
                        scratch: GroupScratch::default(),
                        queued_upto: 0,
                        grew_gen: 0,
                        listed: false,
                        dealing: Default::default(),
                        located: false,
                        size: Default::default(),
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
        if let Some(problem) = bad_name("resource name", resource) {
            return Err(bad(self, problem));
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
        // YARN normalises every ask up to the minimum allocation; a
        // container of nothing would fit a node without end.
        if count > 0 && capability.memory_mb == 0 && capability.vcores == 0 {
            return Err(bad(
                self,
                "capability must not be zero (0 MB and 0 vcores) when containers are asked"
                    .to_string(),
            ));
        }
        // Host asks become tasks for the planner (see `Limits`); rack and
        // ANY counts stay numbers. A name that is no node yet may become
        // one: planning clamps its count to the same limit.
        let limit = self.limits.max_host_ask;
        if count as u32 > limit && self.node_id(resource).is_some() {
            return Err(bad(
                self,
                format!(
                    "container count {count} is above the limit max-host-ask ({limit}) for one host"
                ),
            ));
        }
        let limit = self.limits.max_names;
        if resource != ANY
            && !self.names.ids.contains_key(resource)
            && self.names.ids.len() >= limit
        {
            return Err(bad(
                self,
                format!(
                    "the Session already holds max-names ({limit}) distinct host and rack names"
                ),
            ));
        }
        let name = (resource != ANY).then(|| self.intern(resource));
        let gi = self.group_index(app, priority, capability)?;
        self.apps[app as usize].mapped |= name.is_some() && count > 0;
        let g = &mut self.apps[app as usize].groups[gi];
        g.located |= name.is_some() && count > 0;
        let crossed = name.is_none() && (g.any > 0) != (count > 0);
        let mut resized = false;
        // The group begins asking for this host: index it (a group already
        // asking is indexed, and stays so while it asks).
        let mut began = false;
        // The ask asks for more: new work that incremental planning may queue.
        let grew;
        let mut any_was = None;
        let changed = match name {
            None => {
                any_was = Some(g.any);
                resized = g.capability != capability;
                let changed =
                    g.any != count || g.capability != capability || g.relax != relax_locality;
                grew = count > g.any;
                g.asked.resize(g.any, count, self.clock.now_ms);
                if grew {
                    // New asks may be the only ones an idle slot could serve.
                    self.clock.wait_floor = self.clock.wait_floor.min(self.clock.now_ms);
                }
                g.any = count;
                g.capability = capability;
                g.relax = relax_locality;
                if crossed {
                    adjust_askers(&mut self.asks.askers, g, if count > 0 { 1 } else { -1 });
                    if count > 0 {
                        // A wait starts when the group begins asking.
                        g.wait_from = self.clock.now_ms;
                        g.stall_logged = false;
                    }
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
                self.asks.busy_stale |= was_empty != g.counts.is_empty();
                if g.any > 0 {
                    match (old > 0, count > 0) {
                        (false, true) => self.asks.askers[id as usize] += 1,
                        (true, false) => self.asks.askers[id as usize] -= 1,
                        _ => {}
                    }
                }
                grew = count > old;
                began = old <= 0 && count > 0;
                old != count
            }
        };
        if let Some(was) = any_was {
            self.apps[app as usize].any_changed(was, count);
        }
        if let Some(id) = name.filter(|_| began) {
            self.note_asking(id, app, priority);
        }
        if grew {
            self.note_growth(app, priority);
        }
        self.plan.dirty |= changed;
        // The busy list and the smallest ask change only when a count
        // crosses zero or a capability changes: an AM's routine update
        // costs the next heartbeat nothing.
        self.asks.busy_stale |= crossed || resized;
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
        let replicas = Replicas::from_lists(tasks.iter().map(|hosts| {
            let mut replicas: Vec<NodeId> = hosts
                .iter()
                .filter_map(|h| self.node_id(h.as_ref()))
                .collect();
            replicas.sort_unstable();
            replicas.dedup();
            replicas
        }));
        let pool = Pool {
            started: vec![false; replicas.len()],
            replicas: Arc::new(replicas),
            started_n: 0,
        };
        let gi = self.group_index(app, priority, Resources::default())?;
        self.apps[app as usize].mapped = true;
        let g = &mut self.apps[app as usize].groups[gi];
        g.pool = pool;
        g.first_free = 0;
        g.exact = true;
        g.located = true;
        g.queued_upto = 0;
        self.plan.dirty = true;
        self.note_growth(app, priority);
        Ok(())
    }

    /// A container of `app` on `node` finished: as [`Self::container_finished`],
    /// and the app's usage (the FairScheduler's order) drops. An app that
    /// finished since is no error: its last containers end after it.
    pub fn app_container_finished(&mut self, node: NodeId, app: AppId) -> Result<(), SessionError> {
        let a = self
            .apps
            .get(app as usize)
            .ok_or(SessionError::UnknownApp(app))?;
        if a.running == 0 && a.alive {
            return Err(SessionError::BadApp {
                app: a.name.clone(),
                problem: "a container finished, but none granted to it is running".into(),
            });
        }
        self.container_finished_of(node, Some(app))?;
        let now = self.clock.now_ms;
        let a = &mut self.apps[app as usize];
        a.advance(now);
        a.running = a.running.saturating_sub(1);
        a.done = a.done.saturating_add(1);
        Ok(())
    }

    /// A container of `app` already runs on `node` without this Session
    /// having granted it: an RM that restarted with work-preserving recovery
    /// learns its running containers from the NodeManagers' reports. It
    /// counts as granted (the node's load in the next plan, the app's usage
    /// in the job order), so its [`Self::app_container_finished`] balances it.
    pub fn container_recovered(&mut self, node: NodeId, app: AppId) -> Result<(), SessionError> {
        self.node(node)?;
        let a = self
            .apps
            .get(app as usize)
            .ok_or(SessionError::UnknownApp(app))?;
        if !a.alive {
            return Err(SessionError::AppFinished {
                app: a.name.clone(),
            });
        }
        let now = self.clock.now_ms;
        self.apps[app as usize].container_started(now);
        self.nodes[node as usize].running += 1;
        self.running_total += 1;
        if let Some(d) = &mut self.durations {
            d.started(node, app, now);
        }
        Ok(())
    }

    /// A container on `node` finished (its slot is free for planning again).
    pub fn container_finished(&mut self, node: NodeId) -> Result<(), SessionError> {
        self.container_finished_of(node, None)
    }

    fn container_finished_of(
        &mut self,
        node: NodeId,
        app: Option<AppId>,
    ) -> Result<(), SessionError> {
        self.node(node)?;
        let n = &mut self.nodes[node as usize];
        if n.running == 0 {
            return Err(SessionError::BadNode {
                host: n.host.clone(),
                problem: "a container finished, but no container granted on this node is running"
                    .into(),
            });
        }
        n.running -= 1;
        self.running_total -= 1;
        if let Some(d) = &mut self.durations {
            d.finished(node, app, self.clock.now_ms);
        }
        self.stage_finished(node, app);
        Ok(())
    }

    /// S-PC's reduce stage: the finished container's work goes to the
    /// group it was granted to, and a reducer's to the reduce ratio.
    fn stage_finished(&mut self, node: NodeId, app: Option<AppId>) {
        let now = self.clock.now_ms;
        let Some(c) = &mut self.stage_clock else {
            return;
        };
        let (Some(app), Some((priority, ms))) = (app, c.finished(node, app, now)) else {
            return;
        };
        let work = ms * self.nodes[node as usize].speed;
        let a = &mut self.apps[app as usize];
        let Ok(gi) = a.groups.binary_search_by_key(&priority, |g| g.priority) else {
            return;
        };
        let reducer = a.mapped && !a.groups[gi].located;
        // The ratio takes the job's map mean before this container joins.
        if let Some(map_ms) = reducer.then(|| a.map_work_ms()).flatten() {
            self.reduce_ratio.add(work, map_ms);
        }
        a.groups[gi].size.add(work);
    }
}

/// Adds `delta` to the asker count of every host and rack `g` asks for.
pub(super) fn adjust_askers(askers: &mut [u32], g: &Group, delta: i32) {
    for (&name, _) in g.counts.iter().filter(|(_, &c)| c > 0) {
        let a = &mut askers[name as usize];
        *a = a.wrapping_add_signed(delta);
    }
}

#[cfg(test)]
mod weight_and_progress {
    use super::super::{SessionConfig, SessionEvent};
    use crate::model::NodeId;
    use crate::policy::PolicyKind;
    use crate::session::{AppId, Resources, Session, ANY};

    fn cap() -> Resources {
        Resources::new(1024, 1)
    }

    /// One node with room for one container; apps `a` (submitted first) and
    /// `b` each ask for 4 containers local to it.
    fn two_apps() -> (Session, NodeId, AppId, AppId) {
        let mut s = Session::new(SessionConfig {
            policy: PolicyKind::Asm1,
            ..SessionConfig::default()
        });
        let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
        let a = s.add_app("a", 1.0, 0).unwrap();
        let b = s.add_app("b", 1.0, 1).unwrap();
        for app in [a, b] {
            for (res, n) in [("h1", 4), ("/r1", 4), (ANY, 4)] {
                s.update_ask(app, 20, res, n, cap(), true).unwrap();
            }
        }
        (s, h1, a, b)
    }

    fn first_grant(s: &mut Session, node: NodeId) -> AppId {
        let mut out = Vec::new();
        s.node_heartbeat(node, cap(), 0, &mut out).unwrap();
        assert_eq!(out.len(), 1, "{out:?}");
        out[0].app
    }

    #[test]
    fn a_heavier_weight_moves_an_app_ahead() {
        let (mut s, h1, a, _) = two_apps();
        assert_eq!(
            first_grant(&mut s, h1),
            a,
            "equal weights: submission order"
        );
        let (mut s, h1, _, b) = two_apps();
        s.set_app_weight(b, 10.0).unwrap();
        assert_eq!(s.app_weight(b), Some(10.0));
        assert_eq!(first_grant(&mut s, h1), b, "b weighs 10: it goes first");
    }

    #[test]
    fn bad_weights_are_refused_naming_the_app_and_change_nothing() {
        let (mut s, _, a, _) = two_apps();
        for w in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = s.set_app_weight(a, w).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("application \"a\": weight must be a positive finite number, got {w}")
            );
        }
        assert_eq!(s.app_weight(a), Some(1.0));
        assert_eq!(
            s.set_app_weight(7, 2.0).unwrap_err().to_string(),
            "application id 7 is not registered"
        );
        s.finish_app(a).unwrap();
        assert_eq!(
            s.set_app_weight(a, 2.0).unwrap_err().to_string(),
            "application \"a\" has finished"
        );
    }

    #[test]
    fn progress_is_kept_per_app_and_bad_reports_are_refused() {
        let (mut s, _, a, b) = two_apps();
        assert_eq!(s.progress_of(a), None);
        s.app_progress(a, 0.25, 1_000).unwrap();
        s.app_progress(a, 0.5, 2_000).unwrap();
        s.app_progress(b, 1.0, 2_000).unwrap();
        assert_eq!(s.progress_of(a), Some((0.5, 2_000)));
        assert_eq!(s.progress_of(b), Some((1.0, 2_000)));
        for p in [-0.1f32, 1.5, f32::NAN, f32::INFINITY] {
            let e = s.app_progress(a, p, 3_000).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("application \"a\": progress must be a finite number from 0 to 1, got {p}")
            );
        }
        assert_eq!(
            s.app_progress(a, 0.6, -1).unwrap_err().to_string(),
            "application \"a\": progress report time must not be negative, got -1 ms"
        );
        assert_eq!(
            s.progress_of(a),
            Some((0.5, 2_000)),
            "bad reports change nothing"
        );
        assert_eq!(
            s.app_progress(9, 0.5, 0).unwrap_err().to_string(),
            "application id 9 is not registered"
        );
    }

    #[test]
    fn weight_and_progress_events_replay_from_a_log() {
        let log = r#"[
            {"event": "add_node", "host": "h1", "rack": "/r1",
             "capacity": {"memory_mb": 1024, "vcores": 1}, "speed": 1.0},
            {"event": "add_app", "app": "a", "weight": 1.0, "submit_ms": 0},
            {"event": "set_app_weight", "app": 0, "weight": 3.5},
            {"event": "app_progress", "app": 0, "progress": 0.75, "now_ms": 5000}
        ]"#;
        let events: Vec<SessionEvent> = serde_json::from_str(log).unwrap();
        let mut s = Session::new(SessionConfig::default());
        let mut out = Vec::new();
        for e in &events {
            s.apply(e, &mut out).unwrap();
        }
        assert_eq!(s.app_weight(0), Some(3.5));
        assert_eq!(s.progress_of(0), Some((0.75, 5000)));
        let bad = SessionEvent::AppProgress {
            app: 0,
            progress: 2.0,
            now_ms: 0,
        };
        assert!(s
            .apply(&bad, &mut out)
            .unwrap_err()
            .to_string()
            .contains("got 2"));
        // The events survive a round trip through JSON.
        let json = serde_json::to_string(&events).unwrap();
        let back: Vec<SessionEvent> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, events);
    }
}
