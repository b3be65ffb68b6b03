//! ASM1's plan, updated between full plans (issue 11 B): located work that
//! an ask adds (an exact input list, a host ask that grew) enters the node
//! queues at once, one task at a time, by a bounded shortest augmenting
//! path from the task's replica holders (Beaumont et al., Algorithm 1 and Sect.
//! 5.2, run task-first as Harvey et al.'s ASM2): a breadth-first search over
//! nodes, where node u reaches node v if a live task queued on u has a
//! replica on v; the new task goes to a root and every node on the path to
//! the least loaded node reached passes one task on, so only that node's
//! load grows.
//!
//! The search stops at the first node better than every root (in a plan
//! with no cost-reducing path, as ASM1's, nothing reached is better than
//! that: one task below the least loaded root), or at once when a root
//! finishes, with the task, within the makespan so far (the last plan's,
//! raised by insertions since) or within the whole work over all slots (no
//! assignment does better). Either way the makespan grows only where no
//! assignment avoids it. Past its bound the task goes to the least loaded
//! node seen, at worst its least loaded replica holder.
//!
//! Costs follow what changed: an ask update only lists its group; a
//! heartbeat inserts at most [`PER_HEARTBEAT`] tasks and looks at
//! [`WORK_PER_HEARTBEAT`] queue entries (the rest waits for the next
//! ones), each search visiting at most [`MAX_VISIT`] nodes and [`SCAN`]
//! entries per node. Queued entries that left stay where they are and
//! count as load until the heartbeat drops them (lazy, as between plans
//! anyway). A full plan still replaces everything when it lands; what was
//! listed after its snapshot is listed again then.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::model::{Locality, NodeId, NONE};
use crate::policy::PolicyKind;

use super::{planning, AppId, Covered, Group, PlanGarbage, Resources, Session, Slot};

/// Tasks one heartbeat inserts at most (the rest waits for the next ones).
const PER_HEARTBEAT: usize = 2;
/// Queue entries one heartbeat's searches look at in all, at most (after
/// the insertion that crosses it, the heartbeat stops inserting).
const WORK_PER_HEARTBEAT: usize = 64;
/// Nodes one insertion's search visits at most.
const MAX_VISIT: usize = 16;
/// Queue entries the search looks at on each node, spread over its queue
/// (the back alone would often be the newest job's own tasks, whose
/// holders are as loaded as the node).
const SCAN: usize = 8;

/// Synthesised tasks one step appends at most (a job of a million maps
/// is dealt a part at a time, as it is inserted).
const SYNTH_CHUNK: usize = 64;

/// A dealing of host counts over new synthesised tasks, in progress: it
/// began at pool index `base`, deals over `n` tasks and keeps `size`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Dealing {
    base: usize,
    n: usize,
    size: usize,
}

/// The search's buffers, indexed by node id (reused).
#[derive(Default)]
struct Search {
    stamp: Vec<u32>,
    parent: Vec<NodeId>,
    /// Queue position, on the parent, of the entry that leads here.
    via: Vec<u32>,
    order: Vec<NodeId>,
    roots: Vec<NodeId>,
    /// Queue entries looked at since the counter was reset.
    work: usize,
    path: Vec<(NodeId, NodeId, u32)>,
    moved: Vec<Slot>,
    epoch: u32,
}

/// Counters, for tests and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IncrementalStats {
    /// Tasks inserted between plans.
    pub inserted: u64,
    /// Queued tasks moved along augmenting paths.
    pub moved: u64,
    /// Insertions whose search stopped at its bound.
    pub bounded: u64,
}

pub(super) struct Incremental {
    /// The policy plans incrementally (ASM1).
    on: bool,
    /// Groups whose asks grew, oldest first.
    list: VecDeque<(AppId, i32)>,
    /// Plan generation: bumped at each plan request.
    pub(super) gen: u64,
    /// A plan is being installed: queues are half old, half new.
    installing: bool,
    /// What the plan being installed covered.
    covered: Vec<Covered>,
    max_visit: usize,
    scan: usize,
    search: Search,
    /// The front group's synthesised size, while it is being inserted.
    wanted: Option<(AppId, i32, usize)>,
    /// Scratch: a group's hosts and counts.
    hosts: Vec<(NodeId, usize)>,
    /// Containers of one size the live nodes hold, for that size; `None`
    /// once a node changed.
    pub(super) slots: Option<(Resources, u64)>,
    /// The makespan (finish time of the busiest node) at the last install,
    /// raised by insertions since: a node that stays within it with one
    /// more task makes nothing worse.
    ceiling: f64,
    stats: IncrementalStats,
}

impl Incremental {
    /// Off until switched on ([`Session::set_incremental`]): measured
    /// under churn it costs more heartbeat time than it buys locality.
    pub(super) fn new() -> Incremental {
        Incremental {
            on: false,
            list: VecDeque::new(),
            gen: 0,
            installing: false,
            covered: Vec::new(),
            max_visit: MAX_VISIT,
            scan: SCAN,
            search: Search::default(),
            slots: None,
            ceiling: 0.0,
            hosts: Vec::new(),
            wanted: None,
            stats: IncrementalStats::default(),
        }
    }
}

impl Session {
    /// Incremental planning's counters.
    pub fn incremental_stats(&self) -> IncrementalStats {
        self.plan.incr.stats
    }

    /// Switches ASM1's incremental insertions on (only under
    /// [`PolicyKind::Asm1`]; other policies have none) or off, the default
    /// (new work waits for the next full plan, as before issue 11 B).
    pub fn set_incremental(&mut self, on: bool) {
        self.plan.incr.on = on && self.cfg.policy == PolicyKind::Asm1;
        if !self.plan.incr.on {
            for (app, priority) in std::mem::take(&mut self.plan.incr.list) {
                if let Some(g) = self.group_mut(app, priority) {
                    g.listed = false;
                }
            }
        }
    }

    /// Replaces the search bounds ([`MAX_VISIT`] nodes, [`SCAN`] entries
    /// per node); tests lift them to get the unbounded search.
    pub fn set_incremental_bounds(&mut self, max_visit: usize, scan: usize) {
        self.plan.incr.max_visit = max_visit.max(1);
        self.plan.incr.scan = scan;
    }

    /// Inserts up to `budget` listed tasks now (the heartbeat does
    /// [`PER_HEARTBEAT`]); returns how many. Nothing while a plan is being
    /// installed or under policies other than ASM1.
    pub fn insert_listed(&mut self, budget: usize) -> usize {
        self.insert_bounded(budget, usize::MAX)
    }

    /// The heartbeat's share: [`PER_HEARTBEAT`] tasks, [`WORK_PER_HEARTBEAT`]
    /// queue entries looked at.
    pub(super) fn insert_at_heartbeat(&mut self) {
        if !self.plan.incr.list.is_empty() {
            self.insert_bounded(PER_HEARTBEAT, WORK_PER_HEARTBEAT);
        }
    }

    fn insert_bounded(&mut self, budget: usize, max_work: usize) -> usize {
        if !self.plan.incr.on || self.plan.incr.installing || self.plan.incr.list.is_empty() {
            return 0;
        }
        let mut done = 0;
        self.plan.incr.search.work = 0;
        // Checking a listed group costs too (most grown asks need nothing):
        // it counts as work, so a heartbeat after a plan lists hundreds of
        // groups checks a few.
        while done < budget && self.plan.incr.search.work < max_work {
            let Some(&(app, priority)) = self.plan.incr.list.front() else {
                break;
            };
            if !self.insert_group(app, priority, budget, max_work, &mut done) {
                break;
            }
            self.plan.incr.list.pop_front();
            self.plan.incr.wanted = None;
            if let Some(g) = self.group_mut(app, priority) {
                g.listed = false;
            }
        }
        done
    }

    /// An ask of (`app`, `priority`) grew: list the group.
    pub(super) fn note_growth(&mut self, app: AppId, priority: i32) {
        if !self.plan.incr.on {
            return;
        }
        let gen = self.plan.incr.gen;
        if self
            .plan
            .incr
            .wanted
            .is_some_and(|(a, p, _)| (a, p) == (app, priority))
        {
            self.plan.incr.wanted = None;
        }
        let Some(g) = self.group_mut(app, priority) else {
            return;
        };
        g.grew_gen = gen;
        if !g.listed {
            g.listed = true;
            self.plan.incr.list.push_back((app, priority));
        }
    }

    fn group_mut(&mut self, app: AppId, priority: i32) -> Option<&mut Group> {
        let a = self.apps.get_mut(app as usize).filter(|a| a.alive)?;
        a.groups.iter_mut().find(|g| g.priority == priority)
    }

    /// Step 3 began: remember what the plan covers; insert nothing until done.
    pub(super) fn incr_install_started(&mut self, covered: Vec<Covered>) {
        if self.plan.incr.on {
            self.plan.incr.installing = true;
            self.plan.incr.covered = covered;
        }
    }

    /// The container size incremental planning's ceiling counts in (none
    /// when it is off).
    pub(super) fn incr_ceiling_cap(&self) -> Option<Resources> {
        self.plan.incr.on.then(|| self.typical_container())
    }

    /// A live node's finish with its queue, for the ceiling.
    pub(super) fn incr_finish(&self, node: NodeId, cap: &Resources) -> f64 {
        self.finish_time(node, cap, 0)
    }

    /// Step 3 is done: every queue is the plan's. Groups it covered count
    /// its tasks as queued; groups it did not (new since its snapshot) and
    /// groups that grew since are listed again. `ceiling`: the latest
    /// finish over the live nodes' new queues.
    pub(super) fn incr_install_done(&mut self, ceiling: f64, garbage: &mut PlanGarbage) {
        if !self.plan.incr.on {
            return;
        }
        self.plan.incr.installing = false;
        self.plan.incr.wanted = None;
        self.plan.incr.ceiling = ceiling;
        let mut covered = std::mem::take(&mut self.plan.incr.covered);
        covered.sort_unstable_by_key(|c| (c.app, c.priority));
        for (app, priority) in std::mem::take(&mut self.plan.incr.list) {
            if let Some(g) = self.group_mut(app, priority) {
                g.listed = false;
            }
        }
        let gen = self.plan.incr.gen;
        for &app in &self.ranking.app_order {
            for g in &mut self.apps[app as usize].groups {
                let hit = covered
                    .binary_search_by_key(&(app, g.priority), |c| (c.app, c.priority))
                    .ok()
                    .map(|i| &covered[i])
                    .filter(|c| Arc::ptr_eq(&c.pool, &g.pool.replicas));
                match hit {
                    Some(c) => g.queued_upto = c.upto,
                    None => {
                        g.queued_upto = 0;
                        if !g.exact && g.pool.len() > 0 {
                            // Its inserted tasks left with the old queues.
                            g.dealing = Dealing::default();
                            let old = std::mem::take(&mut g.pool);
                            garbage._pools.push(old.replicas);
                            garbage._started.push(old.started);
                        }
                    }
                }
                let located = g.exact || !g.counts.is_empty();
                if g.any > 0 && located && (hit.is_none() || g.grew_gen == gen) {
                    g.listed = true;
                    self.plan.incr.list.push_back((app, g.priority));
                }
            }
        }
        garbage._covered.push(covered);
    }

    /// Inserts tasks of one group until it is covered (true) or `done`
    /// reaches `budget` (false).
    fn insert_group(
        &mut self,
        app: AppId,
        priority: i32,
        budget: usize,
        max_work: usize,
        done: &mut usize,
    ) -> bool {
        let Some(a) = self.apps.get(app as usize).filter(|a| a.alive) else {
            return true;
        };
        let Some(gi) = a.groups.iter().position(|g| g.priority == priority) else {
            return true;
        };
        let g = &a.groups[gi];
        self.plan.incr.search.work += 1;
        if g.any <= 0 || (!g.exact && g.counts.is_empty()) {
            return true;
        }
        let any = g.any as usize;
        let wanted = if g.exact {
            any.min(g.pool.len() - g.pool.started_n)
        } else {
            // A group inserted over several heartbeats sums its host asks
            // once; grants only lower it, and growth lists it afresh.
            match self.plan.incr.wanted {
                Some((a, p, w)) if (a, p) == (app, priority) => w.min(any),
                _ => {
                    let w = self.synthesised_wanted(g);
                    self.plan.incr.search.work += 1 + g.counts.len() / 8;
                    self.plan.incr.wanted = Some((app, priority, w));
                    w
                }
            }
        };
        loop {
            let g = &self.apps[app as usize].groups[gi];
            let queued = g.queued_upto.saturating_sub(g.pool.started_n);
            if queued >= wanted {
                return true;
            }
            if *done >= budget || self.plan.incr.search.work >= max_work {
                return false;
            }
            let next = (g.queued_upto..g.pool.len()).find(|&t| !g.pool.started[t]);
            match next {
                Some(t) => {
                    self.apps[app as usize].groups[gi].queued_upto = t + 1;
                    self.insert_task(app, gi, t);
                    *done += 1;
                }
                None if g.exact => return true,
                None => {
                    if !self.synthesise_more(app, gi, wanted - queued) {
                        return true;
                    }
                }
            }
        }
    }

    /// What a full plan would synthesise for `g` (see `synthesize_pool`):
    /// min(ANY, the host counts on live nodes, each capped at ANY).
    fn synthesised_wanted(&self, g: &Group) -> usize {
        let n = g.any.max(0) as usize;
        let cap = self.limits.max_host_ask.min(i32::MAX as u32) as i32;
        let asked: usize = g
            .counts
            .iter()
            .filter(|(&name, _)| self.live_node_of(name).is_some())
            .map(|(_, &c)| (c.clamp(0, cap) as usize).min(n))
            .sum();
        n.min(asked)
    }

    fn live_node_of(&self, name: u32) -> Option<NodeId> {
        let id = *self.names.node_by_name.get(name as usize)?;
        (id != NONE && self.nodes[id as usize].alive).then_some(id)
    }

    /// Appends up to [`SYNTH_CHUNK`] synthesised tasks to a group's pool,
    /// the next part of a dealing of the host counts over `deficit` tasks
    /// (over ANY when the pool was empty, so that the parts make up the
    /// tasks a full plan synthesises). False when nothing can be added (no
    /// host on a live node, or `max-planned-tasks`).
    fn synthesise_more(&mut self, app: AppId, gi: usize, deficit: usize) -> bool {
        let g = &self.apps[app as usize].groups[gi];
        let cap = self.limits.max_host_ask.min(i32::MAX as u32) as i32;
        let mut hosts = std::mem::take(&mut self.plan.incr.hosts);
        hosts.clear();
        hosts.extend(
            g.counts.iter().filter_map(|(&name, &c)| {
                Some((self.live_node_of(name)?, c.clamp(0, cap) as usize))
            }),
        );
        hosts.sort_unstable();
        let mut d = g.dealing;
        let dealt = g.pool.len().saturating_sub(d.base);
        if dealt >= d.size {
            // A new dealing: the last one is done.
            d = Dealing {
                base: g.pool.len(),
                n: if g.pool.len() == 0 {
                    g.any.max(0) as usize
                } else {
                    deficit
                },
                size: deficit,
            };
        }
        let lo = g.pool.len() - d.base;
        let room = self.limits.max_planned_tasks.saturating_sub(g.pool.len());
        let hi = d.size.min(lo + SYNTH_CHUNK.min(room));
        let more = planning::deal(&hosts, d.n, lo, hi);
        self.plan.incr.hosts = hosts;
        if more.len() == 0 {
            return false;
        }
        let g = &mut self.apps[app as usize].groups[gi];
        g.dealing = d;
        Arc::make_mut(&mut g.pool.replicas).extend(&more);
        let len = g.pool.replicas.len();
        g.pool.started.resize(len, false);
        true
    }

    /// Queues task `t` of group `gi` of `app` by a bounded shortest
    /// augmenting path from its live replica holders. A task with none is
    /// left to the fallback (placing it remote would need the whole cluster).
    fn insert_task(&mut self, app: AppId, gi: usize, t: usize) {
        let mut s = std::mem::take(&mut self.plan.incr.search);
        let g = &self.apps[app as usize].groups[gi];
        let (cap, priority) = (g.capability, g.priority);
        s.roots.clear();
        s.roots.extend(
            g.pool
                .replicas
                .of(t)
                .iter()
                .copied()
                .filter(|&r| self.nodes.get(r as usize).is_some_and(|n| n.alive)),
        );
        if !s.roots.is_empty() && self.alive_nodes > 0 {
            // No assignment finishes before the work over all slots, in
            // whole waves (of the smallest ask: a lower bound still).
            let total = self.running_total + self.queued_total as u64 + 1;
            let floor = total.div_ceil(self.slots_for(cap)) as f64;
            let bar = floor.max(self.plan.incr.ceiling);
            let target = self.search(&mut s, cap, bar);
            let finish = self.finish_time(target, &cap, 1);
            self.plan.incr.ceiling = self.plan.incr.ceiling.max(finish);
            self.apply_path(&mut s, target);
            let root = s.path.last().map_or(target, |&(u, _, _)| u);
            let slot = Slot {
                app,
                group: gi as u32,
                priority,
                task: t as u32,
                locality: Locality::Node,
            };
            self.enqueue(root, slot);
            self.queued_total += 1;
            self.plan.incr.stats.inserted += 1;
        }
        self.plan.incr.search = s;
    }

    /// Containers of `cap` the live nodes hold (at least 1): summed over
    /// the nodes again only after a node changed or for another size.
    fn slots_for(&mut self, cap: Resources) -> u64 {
        match self.plan.incr.slots {
            Some((c, n)) if c == cap => n,
            _ => {
                let n = self
                    .nodes
                    .iter()
                    .filter(|n| n.alive)
                    .map(|n| u64::from(n.capacity.slots_of(&cap)))
                    .sum::<u64>()
                    .max(1);
                self.plan.incr.slots = Some((cap, n));
                n
            }
        }
    }

    /// Tasks on `node` (running and queued) and its finish time, in waves
    /// of `cap`, with one task more (`Problem::unit_finish`).
    fn load_with_one_more(&self, node: NodeId, cap: &Resources) -> (usize, f64) {
        let n = &self.nodes[node as usize];
        let count = n.running as usize + n.queue.len();
        (count, self.finish_time(node, cap, 1))
    }

    /// When `node` finishes its running and queued tasks and `more`.
    fn finish_time(&self, node: NodeId, cap: &Resources, more: usize) -> f64 {
        let n = &self.nodes[node as usize];
        let slots = n.capacity.slots_of(cap) as f64;
        let waves = ((n.queue.len() + more) as f64 / slots).ceil();
        (n.running as f64 / slots + waves) / n.speed
    }

    /// The breadth-first search: the node to receive one more task.
    fn search(&self, s: &mut Search, cap: Resources, bar: f64) -> NodeId {
        let n_nodes = self.nodes.len();
        if s.stamp.len() < n_nodes {
            s.stamp.resize(n_nodes, 0);
            s.parent.resize(n_nodes, NONE);
            s.via.resize(n_nodes, 0);
        }
        s.epoch = s.epoch.wrapping_add(1);
        if s.epoch == 0 {
            s.stamp.fill(0);
            s.epoch = 1;
        }
        s.order.clear();
        // (finish time, tasks): ties in waves go to the node with fewer tasks.
        let mut best = ((f64::INFINITY, usize::MAX), NONE);
        for &r in &s.roots {
            if s.stamp[r as usize] == s.epoch {
                continue;
            }
            s.stamp[r as usize] = s.epoch;
            s.parent[r as usize] = NONE;
            s.order.push(r);
            let (count, key) = self.load_with_one_more(r, &cap);
            if (key, count) < best.0 {
                best = ((key, count), r);
            }
        }
        if best.0 .0 <= bar {
            return best.1;
        }
        let mut head = 0;
        'bfs: while head < s.order.len() {
            let u = s.order[head];
            head += 1;
            let q = &self.nodes[u as usize].queue;
            let looked = q.len().min(self.plan.incr.scan);
            let stride = q.len().checked_div(looked).unwrap_or(1);
            s.work += looked;
            for i in 0..looked {
                let pos = q.len() - 1 - i * stride;
                if s.order.len() >= self.plan.incr.max_visit {
                    break 'bfs;
                }
                let Some(e) = self.resolve(&q[pos]) else {
                    continue;
                };
                if e.task == NONE
                    || e.locality != Locality::Node
                    || !self.valid(&self.nodes[u as usize], &e)
                {
                    continue;
                }
                let g = &self.apps[e.app as usize].groups[e.group as usize];
                for &v in g.pool.replicas.of(e.task as usize) {
                    let vn = &self.nodes[v as usize];
                    if s.stamp[v as usize] == s.epoch || !vn.alive || !self.valid(vn, &e) {
                        continue;
                    }
                    s.stamp[v as usize] = s.epoch;
                    s.parent[v as usize] = u;
                    s.via[v as usize] = pos as u32;
                    s.order.push(v);
                    let (count, key) = self.load_with_one_more(v, &cap);
                    // The first node better than every root ends the search:
                    // in a plan with no cost-reducing path, nothing reached
                    // is lower than one task below the least loaded root.
                    if (key, count) < best.0 {
                        best = ((key, count), v);
                        break 'bfs;
                    }
                }
            }
        }
        best.1
    }

    /// Moves one queued task along each edge of the path to `target`
    /// (removals first: a node is on the path once, so the positions found
    /// by the search still hold). `s.path` ends at the root.
    fn apply_path(&mut self, s: &mut Search, target: NodeId) {
        s.path.clear();
        let mut x = target;
        while s.parent[x as usize] != NONE {
            let u = s.parent[x as usize];
            s.path.push((u, x, s.via[x as usize]));
            x = u;
        }
        if s.path.is_empty() {
            return;
        }
        if s.order.len() >= self.plan.incr.max_visit {
            self.plan.incr.stats.bounded += 1;
        }
        s.moved.clear();
        for &(u, _, pos) in &s.path {
            if let Some(e) = self.nodes[u as usize].queue.remove(pos as usize) {
                s.moved.push(e);
            }
        }
        for (&(_, v, _), &e) in s.path.iter().zip(&s.moved) {
            self.enqueue(v, e);
        }
        self.plan.incr.stats.moved += s.moved.len() as u64;
    }

    /// Puts `slot` (node-local) into `node`'s queue after the entries of
    /// applications ranked at or before its own.
    fn enqueue(&mut self, node: NodeId, slot: Slot) {
        let rank = &self.ranking.rank;
        let r = rank.get(slot.app as usize).copied().unwrap_or(u32::MAX);
        let q = &self.nodes[node as usize].queue;
        let pos = q.partition_point(|e| rank.get(e.app as usize).copied().unwrap_or(u32::MAX) <= r);
        self.nodes[node as usize].queue.insert(
            pos,
            Slot {
                locality: Locality::Node,
                ..slot
            },
        );
    }
}
