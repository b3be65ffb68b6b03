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
