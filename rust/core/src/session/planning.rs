//! Planning: pending tasks (exact or synthesised from the asks) become
//! ordered per-node queues through the policy's planner.

use super::*;

impl Session {
    /// Re-plans now if an event changed the inputs; heartbeats do this lazily.
    pub fn plan_if_dirty(&mut self) {
        if self.dirty {
            self.replan();
        }
    }

    /// Rebuilds every node's queue from the policy's plan over all pending tasks.
    pub(super) fn replan(&mut self) {
        self.dirty = false;
        for n in &mut self.nodes {
            n.queue.clear();
        }
        self.queued_total = 0;
        self.steal_candidates.clear();
        // Synthesised pools follow the asks: n = ANY tasks, each host's count
        // dealt round-robin over them so that every marginal matches.
        let mut budget = self.limits.max_planned_tasks;
        for &app in &self.app_order {
            let a = &mut self.apps[app as usize];
            for g in &mut a.groups {
                g.first_free = 0;
                if !g.exact {
                    let cut = synthesize_pool(
                        g,
                        &self.node_by_name,
                        &self.nodes,
                        budget,
                        self.limits.max_host_ask,
                    );
                    budget -= g.pool.len();
                    if let Some(wanted) = cut {
                        tracing::warn!(
                            app = %a.name,
                            priority = g.priority,
                            wanted,
                            planned = g.pool.len(),
                            limit = self.limits.max_planned_tasks,
                            "max-planned-tasks reached: the rest of the ask is served at heartbeats"
                        );
                    }
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

/// Most host asks dealt to one synthesised task (HDFS keeps 3 replicas).
const MAX_HOSTS_PER_TASK: usize = 16;

/// Rebuilds a synthesised pool from the asks: the host counts dealt
/// round-robin over the ANY count, so that every marginal matches. Only tasks
/// that some host asks for are kept (min(ANY, sum of host counts), at most
/// `budget`); the rest can run anywhere and stay a count (`g.any`). Returns
/// the wanted size when `budget` (or memory) cut the pool short.
fn synthesize_pool(
    g: &mut Group,
    node_by_name: &[NodeId],
    nodes: &[NodeState],
    budget: usize,
    max_host_ask: u32,
) -> Option<usize> {
    let n = g.any.max(0) as usize;
    g.pool.clear();
    let mut hosts: Vec<(NodeId, usize)> = g
        .counts
        .iter()
        .filter_map(|(&name, &c)| {
            let id = *node_by_name.get(name as usize)?;
            let c = c.clamp(0, max_host_ask.min(i32::MAX as u32) as i32) as usize;
            (id != NONE && nodes[id as usize].alive).then_some((id, c))
        })
        .collect();
    hosts.sort_unstable();
    let asked: usize = hosts.iter().map(|&(_, c)| c.min(n)).sum();
    let wanted = n.min(asked);
    let mut size = wanted.min(budget);
    if g.pool.try_reserve_exact(size).is_err() {
        size = 0;
    }
    g.pool.extend((0..size).map(|_| PoolTask {
        replicas: Vec::new(),
        started: false,
    }));
    let cut = (size < wanted).then_some(wanted);
    if n == 0 || size == 0 {
        return cut;
    }
    // Host h takes tasks k..k+c (mod n); c <= n, so that is at most two
    // ranges, and only indices below `size` exist. Replica entries are
    // capped too: a host count far above ANY is an AM's mistake.
    let mut entries = size.saturating_mul(MAX_HOSTS_PER_TASK);
    let mut k = 0;
    for (id, c) in hosts {
        let c = c.min(n);
        let first = k..(k + c).min(n).min(size);
        let wrapped = 0..(k + c).saturating_sub(n).min(size);
        for i in first.chain(wrapped) {
            if entries == 0 {
                return cut;
            }
            entries -= 1;
            g.pool[i].replicas.push(id);
        }
        k = (k + c) % n;
    }
    cut
}
