//! Events from the host: nodes, applications, asks, input blocks and
//! finished containers.

use super::*;

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
            .filter(|n| !self.names.contains_key(**n))
            .count();
        if self.names.len() + new_names > self.limits.max_names {
            return Err(bad(format!(
                "the Session already holds max-names ({}) distinct host and rack names",
                self.limits.max_names
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
        if self.dynamic.priced {
            let slots = capacity.slots_of(&Resources::new(1, 1));
            self.durations.node_added(id, slots);
        }
        self.index_asking(name);
        self.alive_nodes += 1;
        self.cluster_slots = None;
        self.dirty = true;
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
        self.durations.node_removed(node);
        self.cluster_slots = None;
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
            self.cluster_slots = None;
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

    /// An application is submitted. Its weight orders it under
    /// [`JobOrder::WeightedRemaining`].
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
        self.apps.push(AppState {
            name: app.to_string(),
            submit: submit_time,
            weight,
            running: 0,
            alive: true,
            groups: Vec::new(),
        });
        self.app_by_name.insert(app.to_string(), id);
        if self.dynamic.priced {
            self.durations.app_added(id);
        }
        // Room for every app in the busy list, so heartbeats never grow it.
        self.busy
            .reserve(self.apps.len().saturating_sub(self.busy.len()));
        self.fair_order
            .reserve(self.apps.len().saturating_sub(self.fair_order.len()));
        self.rebuild_app_order();
        self.dirty = true;
        Ok(id)
    }

    /// Ranks live applications: by submission, or for planned policies under
    /// [`JobOrder::WeightedRemaining`] by pending containers over weight.
    /// Called when apps come and go and before each plan.
    pub(super) fn rebuild_app_order(&mut self) {
        self.busy_stale = true;
        self.app_order.clear();
        self.app_order
            .extend((0..self.apps.len() as AppId).filter(|&a| self.apps[a as usize].alive));
        let apps = &self.apps;
        if self.dynamic.planned && self.cfg.job_order == JobOrder::WeightedRemaining {
            // Keys computed once (a plan re-ranks a thousand apps under the
            // host's lock); ties by submission, then registration.
            let mut keyed: Vec<(f64, i64, AppId)> = self
                .app_order
                .iter()
                .map(|&x| {
                    let a = &apps[x as usize];
                    let pending: f64 = a.groups.iter().map(|g| g.any.max(0) as f64).sum();
                    (pending / a.weight, a.submit, x)
                })
                .collect();
            keyed.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then((a.1, a.2).cmp(&(b.1, b.2))));
            self.app_order.clear();
            self.app_order.extend(keyed.iter().map(|k| k.2));
        } else {
            self.app_order
                .sort_by_key(|&a| (apps[a as usize].submit, a));
        }
        self.rank.clear();
        self.rank.resize(self.apps.len(), u32::MAX);
        for (i, &a) in self.app_order.iter().enumerate() {
            self.rank[a as usize] = i as u32;
        }
    }

    /// Records that group (`app`, `priority`) asks for host `name`. Stale
    /// entries are pruned whenever the list doubles, so it stays bounded by
    /// the groups that still ask.
    pub(super) fn note_asking(&mut self, name: u32, app: AppId, priority: i32) {
        if self.node_by_name[name as usize] == NONE {
            return;
        }
        let n = self.asking[name as usize].len();
        if self.asking[name as usize].contains(&(app, priority)) {
            return;
        }
        if n >= 16 && n.is_power_of_two() {
            let mut list = std::mem::take(&mut self.asking[name as usize]);
            list.retain(|&(a, p)| self.group_asks(a, p, name).is_some());
            self.asking[name as usize] = list;
        }
        self.asking[name as usize].push((app, priority));
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
        self.asking[name as usize] = list;
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
        let now = self.now_ms;
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
                        counts: Counts::default(),
                        pool: Pool::default(),
                        exact: false,
                        first_free: 0,
                        wait_from: now,
                        stall_logged: false,
                        fair_level: None,
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
        if resource != ANY && !self.names.contains_key(resource) && self.names.len() >= limit {
            return Err(bad(
                self,
                format!(
                    "the Session already holds max-names ({limit}) distinct host and rack names"
                ),
            ));
        }
        let name = (resource != ANY).then(|| self.intern(resource));
        let gi = self.group_index(app, priority, capability)?;
        let g = &mut self.apps[app as usize].groups[gi];
        let crossed = name.is_none() && (g.any > 0) != (count > 0);
        let mut resized = false;
        let changed = match name {
            None => {
                resized = g.capability != capability;
                let changed =
                    g.any != count || g.capability != capability || g.relax != relax_locality;
                g.any = count;
                g.capability = capability;
                g.relax = relax_locality;
                if crossed {
                    adjust_askers(&mut self.askers, g, if count > 0 { 1 } else { -1 });
                    if count > 0 {
                        // A wait starts when the group begins asking.
                        g.wait_from = self.now_ms;
                        g.stall_logged = false;
                        self.wait_floor = self.wait_floor.min(self.now_ms);
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
        if let Some(id) = name.filter(|_| count > 0) {
            self.note_asking(id, app, priority);
        }
        self.dirty |= changed;
        // The busy list and the smallest ask change only when a count
        // crosses zero or a capability changes: an AM's routine update
        // costs the next heartbeat nothing.
        self.busy_stale |= crossed || resized;
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
        };
        let gi = self.group_index(app, priority, Resources::default())?;
        let g = &mut self.apps[app as usize].groups[gi];
        g.pool = pool;
        g.first_free = 0;
        g.exact = true;
        self.dirty = true;
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
        let a = &mut self.apps[app as usize];
        a.running = a.running.saturating_sub(1);
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
        if self.dynamic.priced {
            self.durations.finished(node, app, self.now_ms);
        }
        Ok(())
    }
}

/// Adds `delta` to the asker count of every host and rack `g` asks for.
pub(super) fn adjust_askers(askers: &mut [u32], g: &Group, delta: i32) {
    for (&name, _) in g.counts.iter().filter(|(_, &c)| c > 0) {
        let a = &mut askers[name as usize];
        *a = a.wrapping_add_signed(delta);
    }
}
