//! The heartbeat. Per free slot: a job-aware order's reducers of a job
//! whose maps have all started, a map group past the locality-wait cap,
//! node-local work of a job ranked ahead of the queue head (each only if
//! its job ranks ahead of the node's queue head); then the node's planned
//! queue; else the policy's free-slot answer (steal, spill, delay, ...).

use super::events::adjust_askers;
use super::rule_view::RuleView;
use super::{
    stage_times, AppId, Counts, Grant, Group, JobOrder, NodeState, Resources, Session,
    SessionError, Slot, TaskChoice, BOOK_SCAN, STEAL_SCAN,
};
use crate::model::{Locality, NodeId, NONE};
use crate::policy::asm1_priced::{remote_factor, start_delay_waves, take_remote, Price};
use crate::policy::{ClusterView, ReduceStage};

/// How often (ms of heartbeat time) the stall detector looks.
const STALL_CHECK_MS: i64 = 10_000;

/// Most containers one heartbeat grants. Free resources bound it for real
/// asks (zero-sized ones are refused), but a 1 MB ask on a node that
/// reports terabytes free would take millions.
pub const MAX_GRANTS_PER_HEARTBEAT: u32 = 1024;

/// How often (ms of heartbeat time) planned policies look for ask groups
/// whose locality wait passed the cap (a scan of the busy applications).
const OVERDUE_CHECK_MS: i64 = 500;

/// How many of the first-ranked jobs a heartbeat offers its node-local
/// work before its planned queue ([`Session::serve_ranked_local`]).
const RANKED_LOCAL_JOBS: usize = 8;
/// How far into a planned group's unstarted tasks that look searches for
/// one with a replica on the node.
const RANKED_SCAN: usize = 64;

/// What the queue offers at a heartbeat.
enum QueueHead {
    Take(Slot),
    Empty,
    /// The next planned container does not fit the node's free resources.
    Blocked,
}

impl Session {
    /// A heartbeat of `node` with `free` resources: writes this node's grants
    /// into `out` (cleared first). Allocates nothing unless a re-plan is due.
    pub fn node_heartbeat(
        &mut self,
        node: NodeId,
        free: Resources,
        now_ms: i64,
        out: &mut Vec<Grant>,
    ) -> Result<(), SessionError> {
        out.clear();
        self.booked.clear();
        self.node(node)?;
        self.begin_heartbeat(node, now_ms);
        let room = free;
        let mut free = free;
        let mut blocked = false;
        let mut off_switch = 0;
        'grants: for _ in 0..MAX_GRANTS_PER_HEARTBEAT {
            if !free.fits(&self.asks.min_ask) {
                break;
            }
            let head = self.head_rank(node);
            let (pick, from_queue) = 'pick: {
                if let Some(slot) = self.serve_finishing(node, &free, head) {
                    break 'pick (slot, false);
                }
                if let Some(slot) = self.serve_overdue(node, &free, head) {
                    break 'pick (slot, false);
                }
                if let Some(slot) = self.serve_ranked_local(node, &free, head) {
                    break 'pick (slot, false);
                }
                match self.queue_head(node, &free) {
                    QueueHead::Take(slot) => (slot, true),
                    QueueHead::Blocked => {
                        blocked = true;
                        break 'grants;
                    }
                    QueueHead::Empty => match self.fallback(node, &free) {
                        Some(slot) => (slot, true),
                        None => break 'grants,
                    },
                }
            };
            self.commit(node, pick, &mut free, out);
            // The CapacityScheduler ends a node's heartbeat after
            // per-node-heartbeat.maximum-offswitch-assignments (default 1)
            // off-switch containers, so location-less asks (reducers) spread
            // over the nodes instead of filling the first to heartbeat.
            if pick.locality == Locality::OffSwitch {
                off_switch += 1;
                if off_switch >= self.cfg.offswitch_per_heartbeat.max(1) {
                    break;
                }
            }
            if from_queue && !self.rule.as_ref().is_none_or(|r| r.assign_multiple()) {
                break;
            }
        }
        self.explain_heartbeat(node, &room, &free, out, blocked);
        Ok(())
    }

    /// What every look at a node starts with: the clock, a plan due,
    /// incremental insertions, the stall detector, the busy list and the
    /// overdue groups (shared by [`Self::node_heartbeat`] and
    /// [`Self::node_offers`]).
    pub(super) fn begin_heartbeat(&mut self, node: NodeId, now_ms: i64) {
        let last = std::mem::replace(&mut self.nodes[node as usize].last_beat_ms, now_ms);
        if last != i64::MIN {
            self.clock.beat_gap.add(now_ms.saturating_sub(last));
        }
        if !self.clock.started {
            // Asks made before the first heartbeat (an RM restart re-sends
            // every app's) have waited from now, not from time 0.
            self.clock.started = true;
            for a in &mut self.apps {
                for g in &mut a.groups {
                    g.wait_from = g.wait_from.max(now_ms);
                    g.asked.not_before(now_ms);
                }
            }
            self.clock.wait_floor = now_ms;
            self.clock.stall_checked = now_ms;
        }
        self.clock.now_ms = self.clock.now_ms.max(now_ms);
        self.drive_planning(now_ms);
        self.insert_at_heartbeat();
        if self.clock.now_ms.saturating_sub(self.clock.stall_checked) >= STALL_CHECK_MS {
            self.detect_stalls();
        }
        if self.asks.busy_stale {
            self.refresh_busy();
        }
        if self.dynamic.planned
            && self.cfg.max_wait_ms >= 0
            && self.clock.now_ms.saturating_sub(self.clock.overdue_checked) >= OVERDUE_CHECK_MS
        {
            self.find_overdue();
        }
    }

    /// The locality wait's cap now: [`SessionConfig::max_wait_ms`], stated
    /// at YARN's default 1 s node heartbeat, stretched by how much less
    /// often the core hears each node (a raised heartbeat interval on a
    /// large cluster, or an RM that hears its nodes late, as SLS's at
    /// 10,000 nodes), so the replica holders get as many turns. Zero and
    /// negative (no wait, no cap) stay.
    ///
    /// [`SessionConfig::max_wait_ms`]: super::SessionConfig::max_wait_ms
    pub(super) fn wait_cap(&self) -> i64 {
        let cap = self.cfg.max_wait_ms;
        if cap <= 0 {
            return cap;
        }
        (cap as f64 * self.clock.beat_gap.stretch()) as i64
    }

    pub(super) fn refresh_busy(&mut self) {
        self.asks.busy_stale = false;
        self.asks.busy.clear();
        let apps = &self.apps;
        self.asks.busy.extend(
            self.ranking
                .app_order
                .iter()
                .copied()
                .filter(|&a| apps[a as usize].groups.iter().any(|g| g.any > 0)),
        );
        let mut min = Resources::new(i64::MAX, i32::MAX);
        let mut location_less = 0;
        for &a in &self.asks.busy {
            for g in self.apps[a as usize].groups.iter().filter(|g| g.any > 0) {
                min.memory_mb = min.memory_mb.min(g.capability.memory_mb);
                min.vcores = min.vcores.min(g.capability.vcores);
                location_less += g.counts.is_empty() as u32;
            }
        }
        if self.asks.min_ask != min {
            self.cluster_slots = None;
        }
        self.asks.min_ask = min;
        self.asks.location_less = location_less;
        self.asks.finishing.clear();
        if self.dynamic.planned && self.cfg.job_order.job_aware() {
            let apps = &self.apps;
            self.asks
                .finishing
                .extend(self.asks.busy.iter().copied().filter(|&a| {
                    let pending = || apps[a as usize].groups.iter().filter(|g| g.any > 0);
                    pending().all(|g| g.counts.is_empty())
                }));
        }
    }

    /// Job-aware order across phases: a job whose maps have all started
    /// gets its reducers before a later-ranked job's planned maps, so it
    /// finishes instead of waiting for every queue to drain. Only such jobs:
    /// a reducer never takes a slot its own job's maps still need.
    fn serve_finishing(&self, node: NodeId, free: &Resources, head_rank: u32) -> Option<Slot> {
        for &app in &self.asks.finishing {
            if self.ranking.rank[app as usize] >= head_rank {
                break;
            }
            if let Some(slot) = self.location_less_of(app, node, free) {
                return Some(slot);
            }
        }
        None
    }

    /// The first location-less group of `app` (by priority) that fits and
    /// that its reduce stage lets run on `node` ([`Self::reducer_waits`]).
    fn location_less_of(&self, app: AppId, node: NodeId, free: &Resources) -> Option<Slot> {
        let groups = self.apps[app as usize].groups.iter().enumerate();
        groups
            .filter(|(_, g)| g.any > 0 && g.counts.is_empty() && free.fits(&g.capability))
            .find(|(_, g)| !self.reducer_waits(app, g, node))
            .map(|(gi, g)| Slot {
                app,
                group: gi as u32,
                priority: g.priority,
                task: NONE,
                locality: Locality::OffSwitch,
            })
    }

    /// S-PC's reduce stage at a heartbeat ([`ReduceStage::Earliest`]):
    /// whether `app`'s reducers (group `g`, location-less, of a job that
    /// asked for maps) stay off `node`, a node slower than the fastest. The
    /// plan puts each reducer on the node that completes it earliest; a
    /// slower node leaves it there while the group has waited less than
    /// the reducer's extra run time here, `work * (1 / speed - 1 /
    /// fastest)` (waiting longer than running slower would cost is never
    /// better, and it bounds the wait when the planned node stays busy).
    /// The work: the reducer's own ([`stage_times::reducer_work`]: its
    /// stage's finished containers, else its job's map mean times the
    /// reduce ratio other jobs showed); else the job's mean container time
    /// at the live nodes' mean speed; before one of its containers
    /// finished, the locality-wait cap.
    pub(super) fn reducer_waits(&self, app: AppId, g: &Group, node: NodeId) -> bool {
        if self.dynamic.reduce_stage != (ReduceStage::Earliest { identical: false }) {
            return false;
        }
        let a = &self.apps[app as usize];
        let speed = self.nodes[node as usize].speed;
        if !a.mapped || speed >= self.fastest {
            return false;
        }
        let now = self.clock.now_ms;
        let slower_by = 1.0 / speed - 1.0 / self.fastest;
        let own = stage_times::reducer_work(g.size, a.map_work_ms(), self.reduce_ratio);
        let bound_ms = match (own, a.mean_container_ms(now)) {
            (Some((work, _)), _) => work * slower_by,
            (None, Some(ms)) => {
                let mean_speed = self.speed_sum / f64::from(self.alive_nodes.max(1));
                ms * mean_speed * slower_by
            }
            (None, None) => self.wait_cap().max(0) as f64,
        };
        (now.saturating_sub(g.wait_from) as f64) < bound_ms
    }

    /// The job order before the plan's placement. The plan gives each task
    /// to one of its replica holders; when another holder frees a slot
    /// first, its own queue may start with a later-ranked job while the
    /// earlier job's task waits for the holder it was planned on. So a
    /// node-local ask of a job ranked ahead of this node's queue head goes
    /// first, as the CapacityScheduler serves the first application with
    /// work local to the node; the entry planned elsewhere is dropped
    /// lazily once its count is gone. A node with nothing queued is the
    /// policy's fallback's (stealing keeps the plan's balance there).
    fn serve_ranked_local(&self, node: NodeId, free: &Resources, head_rank: u32) -> Option<Slot> {
        let mut pick = None;
        self.ranked_local(node, free, head_rank, |s| {
            pick = Some(s);
            true
        });
        pick
    }

    /// Hands `each` the node-local slots [`Self::serve_ranked_local`] would
    /// serve, best first, until it returns true.
    pub(super) fn ranked_local(
        &self,
        node: NodeId,
        free: &Resources,
        head_rank: u32,
        mut each: impl FnMut(Slot) -> bool,
    ) {
        if !self.dynamic.planned || !self.cfg.job_order.job_aware() || head_rank == u32::MAX {
            return;
        }
        let n = &self.nodes[node as usize];
        if self.asks.askers[n.name as usize] == 0 {
            return;
        }
        // The first few jobs only: they are the ones the order finishes
        // next, and a bounded look keeps the heartbeat's cost flat however
        // many applications ask for this host.
        for &app in self.asks.busy.iter().take(RANKED_LOCAL_JOBS) {
            if self.ranking.rank[app as usize] >= head_rank {
                break;
            }
            for (gi, g) in self.apps[app as usize].groups.iter().enumerate() {
                if g.any <= 0 || !g.asked(n.name) || !free.fits(&g.capability) {
                    continue;
                }
                // The host's count stays stale until the AM's next update
                // (a task with a replica here may have started elsewhere);
                // a planned group names a task that is still local here.
                let task = if g.pool.len() == 0 {
                    NONE
                } else {
                    let pool = &g.pool;
                    let end = pool.len().min(g.first_free.saturating_add(RANKED_SCAN));
                    let local =
                        |&t: &usize| !pool.started[t] && pool.replicas.of(t).contains(&node);
                    match (g.first_free..end).find(local) {
                        Some(t) => t as u32,
                        None => continue,
                    }
                };
                let slot = Slot {
                    app,
                    group: gi as u32,
                    priority: g.priority,
                    task,
                    locality: Locality::Node,
                };
                if each(slot) {
                    return;
                }
            }
        }
    }

    /// Drops the entries at the front of `node`'s queue that can no longer
    /// be granted as planned (started, drained, their app gone) and returns
    /// the rank of the job at its valid head, `u32::MAX` if none: the serves
    /// that go before the queue compare with the job that would really run.
    pub(super) fn head_rank(&mut self, node: NodeId) -> u32 {
        loop {
            let n = &self.nodes[node as usize];
            let Some(&s) = n.queue.front() else {
                return u32::MAX;
            };
            if let Some(r) = self.resolve(&s).filter(|r| self.valid(n, r)) {
                return self
                    .ranking
                    .rank
                    .get(r.app as usize)
                    .copied()
                    .unwrap_or(u32::MAX);
            }
            self.nodes[node as usize].queue.pop_front();
            self.queued_total -= 1;
        }
    }

    /// Lists the busy ask groups with host or rack asks whose wait for a
    /// container reached `max_wait_ms`, in rank order.
    fn find_overdue(&mut self) {
        self.clock.overdue_checked = self.clock.now_ms;
        self.asks.overdue.clear();
        let (now, cap) = (self.clock.now_ms, self.wait_cap());
        for &app in &self.asks.busy {
            for (gi, g) in self.apps[app as usize].groups.iter().enumerate() {
                if g.any > 0 && g.relax && !g.counts.is_empty() && now - g.wait_from >= cap {
                    let rank = self
                        .ranking
                        .rank
                        .get(app as usize)
                        .copied()
                        .unwrap_or(u32::MAX);
                    self.asks.overdue.push((rank, app, gi as u32));
                }
            }
        }
        self.asks.overdue.sort_unstable();
    }

    /// The locality wait's hard cap under load. A planned queue only ever
    /// offers a task to its replica holders; when they stay busy (reducers
    /// or long tasks), its group waits while every other node serves its own
    /// queue, and the fallback that would honour the cap never runs. So a
    /// group overdue at the last look goes before this node's queue, at its
    /// most local level here, if its job ranks ahead of the queue's head:
    /// the job order decides who runs first, locality where. A job ranked
    /// behind the head waits its turn, as it would anyway.
    fn serve_overdue(&self, node: NodeId, free: &Resources, head_rank: u32) -> Option<Slot> {
        let mut pick = None;
        self.overdue_slots(node, free, head_rank, |s| {
            pick = Some(s);
            true
        });
        pick
    }

    /// Hands `each` the overdue slots [`Self::serve_overdue`] would serve,
    /// in rank order, until it returns true.
    pub(super) fn overdue_slots(
        &self,
        node: NodeId,
        free: &Resources,
        head_rank: u32,
        mut each: impl FnMut(Slot) -> bool,
    ) {
        // A cap switched off since the last look leaves nothing overdue.
        if self.asks.overdue.is_empty() || self.cfg.max_wait_ms < 0 {
            return;
        }
        let n = &self.nodes[node as usize];
        let (now, cap) = (self.clock.now_ms, self.wait_cap());
        for &(rank, app, gi) in &self.asks.overdue {
            if rank >= head_rank {
                break;
            }
            let a = &self.apps[app as usize];
            let Some(g) = a.groups.get(gi as usize) else {
                continue;
            };
            // Served since the look (wait restarted), drained or gone.
            if !a.alive || g.any <= 0 || g.counts.is_empty() || now - g.wait_from < cap {
                continue;
            }
            if !free.fits(&g.capability) {
                continue;
            }
            let slot = Slot {
                app,
                group: gi,
                priority: g.priority,
                task: NONE,
                locality: g.level_on(n),
            };
            if each(slot) {
                return;
            }
        }
    }

    /// The slot with its group index as it is now (a plan made on a
    /// snapshot may name a group that moved), if the group still exists.
    pub(super) fn resolve(&self, s: &Slot) -> Option<Slot> {
        let groups = &self.apps.get(s.app as usize)?.groups;
        if groups.get(s.group as usize)?.priority == s.priority {
            return Some(*s);
        }
        let gi = groups.iter().position(|g| g.priority == s.priority)?;
        Some(Slot {
            group: gi as u32,
            ..*s
        })
    }

    /// Whether a queued slot (resolved) can still be granted on `node` as planned.
    pub(super) fn valid(&self, node: &NodeState, s: &Slot) -> bool {
        let a = &self.apps[s.app as usize];
        if !a.alive {
            return false;
        }
        let Some(g) = a.groups.get(s.group as usize) else {
            return false;
        };
        if g.any <= 0 || g.pool.started(s.task as usize) {
            return false;
        }
        match s.locality {
            Locality::Node => g.asked(node.name),
            Locality::Rack => g.asked(node.rack) && g.relax,
            Locality::OffSwitch => g.relax,
        }
    }

    pub(super) fn capability(&self, s: &Slot) -> Resources {
        self.apps[s.app as usize].groups[s.group as usize].capability
    }

    fn queue_head(&mut self, node: NodeId, free: &Resources) -> QueueHead {
        loop {
            let n = &self.nodes[node as usize];
            let Some(&s) = n.queue.front() else {
                return QueueHead::Empty;
            };
            let (s, valid) = match self.resolve(&s) {
                Some(s) => (s, self.valid(n, &s)),
                None => (s, false),
            };
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

    /// The policy's decision once the node's queue is empty: its
    /// [`HeartbeatRule`](crate::policy::HeartbeatRule) if it has one (on a
    /// [`RuleView`]), else its [`FreeSlot`](crate::policy::FreeSlot),
    /// carried out by its `decide` on this engine's [`ClusterView`]
    /// ([`SessionView`]).
    #[inline]
    pub(super) fn fallback(&mut self, node: NodeId, free: &Resources) -> Option<Slot> {
        if let Some(mut rule) = self.rule.take() {
            let pick = rule.free_slot(&mut RuleView::new(self, node, free));
            self.rule = Some(rule);
            return pick.map(Slot::from);
        }
        let f = self.dynamic.free_slot;
        f.decide(&mut SessionView { s: self, free }, node)
    }

    /// Local-only: local work first; then groups whose locality wait
    /// reached the cap, so that maps are not kept waiting behind reducers;
    /// then location-less asks (reducers). Else the slot idles.
    fn local_only(&mut self, node: NodeId, free: &Resources) -> Option<Slot> {
        self.local_or_overdue(node, free)
            .or_else(|| self.location_less_ask(node, free))
    }

    /// A group asking for this host, else a group at the locality-wait cap.
    fn local_or_overdue(&mut self, node: NodeId, free: &Resources) -> Option<Slot> {
        if self.asks.askers[self.nodes[node as usize].name as usize] > 0 {
            if let Some(s) = self.serve_asking(node, free) {
                return Some(s);
            }
        }
        self.serve_starving(node, free)
    }

    /// An ask with no location at all (a reducer), in FIFO order (the
    /// busy applications', as [`Self::serve_fifo`] visits them).
    fn location_less_ask(&mut self, node: NodeId, free: &Resources) -> Option<Slot> {
        if self.asks.location_less == 0 {
            return None;
        }
        self.asks
            .busy
            .iter()
            .find_map(|&app| self.location_less_of(app, node, free))
    }

    /// COMM: applications in FIFO order, each at its most local level, as
    /// Hadoop's FifoScheduler visits them: node-local, then rack-local and
    /// off-switch where the group relaxes locality.
    fn spill(&mut self, node: NodeId, free: &Resources) -> Option<Slot> {
        self.serve_fifo(node, free, |g, n| {
            if g.asked(n.name) {
                Some(Locality::Node)
            } else if g.relax && g.asked(n.rack) {
                Some(Locality::Rack)
            } else if g.relax || g.counts.is_empty() {
                Some(Locality::OffSwitch)
            } else {
                None
            }
        })
    }

    /// `asm1-priced` once stealing found nothing (see `policy::asm1_priced`):
    /// local work; a group at the locality-wait cap; the task the plan
    /// starts last (the back of the longest queue) if [`take_remote`] says
    /// waiting for its holder is costlier; location-less asks (reducers).
    /// Otherwise the slot stays idle this heartbeat. Host asks that no
    /// installed plan holds yet have no price: they wait for the plan, a
    /// holder's heartbeat or the cap.
    fn priced(&mut self, node: NodeId, free: &Resources) -> Option<Slot> {
        self.local_or_overdue(node, free)
            .or_else(|| self.priced_spill(node, free))
            .or_else(|| self.location_less_ask(node, free))
    }

    /// The remote candidate of [`Self::priced`]: the last valid entry that
    /// fits (within the last `STEAL_SCAN`) of the longest queue, taken off
    /// that queue if its price says so.
    fn priced_spill(&mut self, node: NodeId, free: &Resources) -> Option<Slot> {
        if self.queued_total == 0 {
            return None;
        }
        let victim = self.longest_queue(node, 0)?;
        let me = &self.nodes[node as usize];
        let v = &self.nodes[victim as usize];
        let (pos, s) = (v.queue.len().saturating_sub(STEAL_SCAN)..v.queue.len())
            .rev()
            .find_map(|i| {
                let s = self.resolve(&v.queue[i])?;
                let g = &self.apps[s.app as usize].groups[s.group as usize];
                if !g.relax || !free.fits(&g.capability) {
                    return None;
                }
                let locality = if g.asked(me.rack) {
                    Locality::Rack
                } else {
                    Locality::OffSwitch
                };
                let s = Slot { locality, ..s };
                self.valid(me, &s).then_some((i, s))
            })?;
        let durations = self.durations.as_ref();
        let (holder_ms, task_ms) = match durations.and_then(|d| d.mean_ms()) {
            // Before any container finished, in units of one duration.
            None => (1.0, 1.0),
            Some(all) => {
                let app = durations.and_then(|d| d.app_mean_ms(s.app));
                (all, app.unwrap_or(all))
            }
        };
        // Its planned holder, or another that steals it once its queue is done.
        let at = |h: &NodeState, ahead: usize| {
            let slots = h.capacity.slots_of(&self.asks.min_ask);
            start_delay_waves(ahead.min(u32::MAX as usize) as u32, h.running, slots)
        };
        let g = &self.apps[s.app as usize].groups[s.group as usize];
        let waves = g
            .pool
            .replicas
            .of(s.task as usize)
            .iter()
            .filter(|&&h| h != victim && h != node)
            .filter_map(|&h| self.nodes.get(h as usize).filter(|n| n.alive))
            .map(|h| at(h, h.queue.len()))
            .fold(at(v, pos), f64::min);
        let price = Price {
            waves,
            holder_ms,
            task_ms,
            remote_factor: remote_factor(&self.cfg.cost),
        };
        let take = take_remote(&price);
        tracing::trace!(
            take,
            waves,
            holder_ms,
            task_ms,
            "spindle: priced locality wait"
        );
        if !take {
            return None;
        }
        self.nodes[victim as usize].queue.remove(pos)?;
        self.queued_total -= 1;
        Some(s)
    }

    /// The first group in FIFO order (then priority) with host or rack asks
    /// whose oldest was made `max_wait_ms` ago (not its last container: the
    /// slot idles otherwise), at its most local level on this node. Skips
    /// the visit while no group can have waited that long (`wait_floor`),
    /// so an idle node costs nothing in the usual case.
    fn serve_starving(&mut self, node: NodeId, free: &Resources) -> Option<Slot> {
        let cap = self.wait_cap();
        let now = self.clock.now_ms;
        if cap < 0 || now.saturating_sub(self.clock.wait_floor) < cap {
            return None;
        }
        // The floor is taken over every waiting group, also those that do
        // not fit this node, so that a later, larger node still looks.
        let n = &self.nodes[node as usize];
        let mut floor = i64::MAX;
        for &app in &self.asks.busy {
            for (gi, g) in self.apps[app as usize].groups.iter().enumerate() {
                if g.any <= 0 || g.counts.is_empty() || !g.relax {
                    continue;
                }
                let asked = g.asked.oldest().unwrap_or(now);
                floor = floor.min(asked);
                if now.saturating_sub(asked) < cap || !free.fits(&g.capability) {
                    continue;
                }
                let locality = g.level_on(n);
                return Some(Slot {
                    app,
                    group: gi as u32,
                    priority: g.priority,
                    task: NONE,
                    locality,
                });
            }
        }
        // A full visit found nobody: the floor is exact again.
        self.clock.wait_floor = floor;
        None
    }

    /// Names each ask group with host or rack asks that has had no container
    /// for `stall_ms`, once until it gets one (issue: a job whose maps wait
    /// for ever must show in the RM log, not only in its run time).
    fn detect_stalls(&mut self) {
        self.clock.stall_checked = self.clock.now_ms;
        let limit = self.cfg.stall_ms;
        if limit < 0 {
            return;
        }
        for &app in &self.asks.busy {
            let a = &mut self.apps[app as usize];
            for g in a.groups.iter_mut() {
                let waited = self.clock.now_ms.saturating_sub(g.wait_from);
                if g.any > 0 && !g.stall_logged && waited >= limit {
                    g.stall_logged = true;
                    self.clock.stalled += 1;
                    tracing::warn!(
                        app = %a.name,
                        priority = g.priority,
                        pending = g.any,
                        waited_ms = waited,
                        "spindle: an application's asks have had no container for longer than the stall limit"
                    );
                }
            }
        }
    }

    /// Containers of the smallest ask that the live nodes hold.
    pub(super) fn cluster_slots(&mut self) -> u64 {
        if let Some(s) = self.cluster_slots {
            return s;
        }
        let min = self.asks.min_ask;
        let s = self
            .nodes
            .iter()
            .filter(|n| n.alive)
            .map(|n| n.capacity.slots_of(&min) as u64)
            .sum();
        self.cluster_slots = Some(s);
        s
    }

    /// Visits applications in FIFO order and their priorities in order, as
    /// Hadoop's FifoScheduler does, and serves the first ask that fits and
    /// for which `level_for` names a locality.
    pub(super) fn serve_fifo(
        &mut self,
        node: NodeId,
        free: &Resources,
        mut level_for: impl FnMut(&mut Group, &NodeState) -> Option<Locality>,
    ) -> Option<Slot> {
        let n = &self.nodes[node as usize];
        for &app in &self.asks.busy {
            for (gi, g) in self.apps[app as usize].groups.iter_mut().enumerate() {
                if g.any <= 0 || !free.fits(&g.capability) {
                    continue;
                }
                if let Some(locality) = level_for(g, n) {
                    return Some(Slot {
                        app,
                        group: gi as u32,
                        priority: g.priority,
                        task: NONE,
                        locality,
                    });
                }
            }
        }
        None
    }

    /// What [`Self::serve_fifo`] gives a local-only policy when no ask is
    /// location-less: the first group in FIFO order, then priority, that
    /// asks for this host and fits. Visits the groups that asked for the
    /// host (dropping those that no longer do), not every application.
    pub(super) fn serve_asking(&mut self, node: NodeId, free: &Resources) -> Option<Slot> {
        let name = self.nodes[node as usize].name;
        let mut list = std::mem::take(&mut self.asks.asking[name as usize]);
        let mut best: Option<(u32, i32, AppId, usize)> = None;
        list.retain(|&(app, priority)| {
            let Some(gi) = self.group_asks(app, priority, name) else {
                return false;
            };
            let g = &self.apps[app as usize].groups[gi];
            let key = (self.ranking.rank[app as usize], priority);
            if g.any > 0 && free.fits(&g.capability) && best.is_none_or(|(r, p, _, _)| key < (r, p))
            {
                best = Some((key.0, key.1, app, gi));
            }
            true
        });
        self.asks.asking[name as usize] = list;
        let (_, priority, app, gi) = best?;
        Some(Slot {
            app,
            group: gi as u32,
            priority,
            task: NONE,
            locality: Locality::Node,
        })
    }

    /// The live node other than `node`, among the steal candidates, with
    /// the longest queue, if longer than `shorter`.
    fn longest_queue(&self, node: NodeId, shorter: usize) -> Option<NodeId> {
        let mut victim = None;
        let mut longest = shorter;
        for &i in &self.plan.steal_candidates {
            let n = &self.nodes[i as usize];
            if n.alive && i != node && n.queue.len() > longest {
                longest = n.queue.len();
                victim = Some(i);
            }
        }
        victim
    }

    /// Stealing (Beaumont et al., Sect. 7.1): take a task local to `node` from the
    /// node with the longest queue. Only from a queue of at least two, so the
    /// victim keeps work for itself and two nodes never trade a single task
    /// back and forth.
    fn steal(&mut self, node: NodeId, free: &Resources) -> Option<Slot> {
        if self.queued_total == 0 {
            return None;
        }
        let victim = self.longest_queue(node, 1)?;
        let me = &self.nodes[node as usize];
        let queue = &self.nodes[victim as usize].queue;
        // Widely replicated tasks sit at the back of a queue: look there first.
        let pos = (queue.len().saturating_sub(STEAL_SCAN)..queue.len())
            .rev()
            .find_map(|i| {
                let s = self.resolve(&Slot {
                    locality: Locality::Node,
                    ..queue[i]
                })?;
                let g = &self.apps[s.app as usize].groups[s.group as usize];
                let local = g.pool.replicas.of(s.task as usize).contains(&node);
                (local && self.valid(me, &s) && free.fits(&self.capability(&s))).then_some((i, s))
            });
        let (pos, s) = pos?;
        self.nodes[victim as usize].queue.remove(pos)?;
        self.queued_total -= 1;
        Some(s)
    }

    /// Books a decision and appends it to `out`, merging with the previous
    /// grant when it matches.
    fn commit(&mut self, node: NodeId, s: Slot, free: &mut Resources, out: &mut Vec<Grant>) {
        let (priority, capability, locality) = self.book(node, s, true);
        free.memory_mb -= capability.memory_mb;
        free.vcores -= capability.vcores;
        if let Some(last) = out.last_mut() {
            if last.app == s.app && last.priority == priority && last.locality == locality {
                last.count += 1;
                return;
            }
        }
        out.push(Grant {
            app: s.app,
            priority,
            count: 1,
            locality,
        });
    }

    /// Books one container of a decision on `node`: running counts, the
    /// job order's grant counts, the ask counts (as YARN's
    /// `AppSchedulingInfo.allocate` lowers them) and the planned task,
    /// which is marked started: a guess, since the AM picks its own task
    /// (see `revive_exact`). Returns the group's priority, container size
    /// and the grant's locality: the slot's, or node-local when the MR AM's
    /// task is local to the node and the host is still asked for.
    /// `follow_am`: book the MR AM's task (see `mr_am_choice`) where the
    /// configuration says so, and label the grant as the RM will allocate
    /// it; false when the host already placed it at `s.locality`
    /// ([`Self::book_placed`]), which is then booked as it is.
    pub(super) fn book(
        &mut self,
        node: NodeId,
        s: Slot,
        follow_am: bool,
    ) -> (i32, Resources, Locality) {
        if let Some(d) = &mut self.durations {
            d.started(node, s.app, self.clock.now_ms);
        }
        if let Some(c) = &mut self.stage_clock {
            let priority = self.apps[s.app as usize].groups[s.group as usize].priority;
            c.started(node, s.app, priority, self.clock.now_ms);
        }
        let n = &mut self.nodes[node as usize];
        n.running += 1;
        let now = self.clock.now_ms;
        self.apps[s.app as usize].container_started(now);
        if self.dynamic.planned && self.cfg.job_order == JobOrder::WeightedRemaining {
            // O(log apps) per grant.
            self.ranking.later_grants.granted(s.app);
            let a = &mut self.apps[s.app as usize];
            // Its own grant offsets one of the later jobs' (never below none).
            a.overtaken_from = (a.overtaken_from + 1).min(self.ranking.later_grants.after(s.app));
            a.promoted = a.promoted.saturating_sub(1);
        }
        self.running_total += 1;
        let (host, rack) = (n.name, n.rack);
        let g = &mut self.apps[s.app as usize].groups[s.group as usize];
        let askers = &mut self.asks.askers;
        let mut became_empty = false;
        let emptied = &mut became_empty;
        let mut dec = |counts: &mut Counts, name: u32| {
            if let Some(c) = counts.get_mut(&name) {
                *c -= 1;
                if *c <= 0 {
                    counts.remove(&name);
                    askers[name as usize] -= 1;
                    *emptied |= counts.is_empty();
                }
            }
        };
        // Which task the AM will run is its choice. An exact pool is in the
        // job's split order, the MR AM's task order: book the task it takes
        // (`mr_am_choice`), so that the core's pending tasks stay the AM's;
        // else the planned one, or any pending task that fits the locality.
        let am_choice = if follow_am
            && g.exact
            && self.dynamic.planned
            && self.cfg.task_choice == TaskChoice::MapReduceAm
        {
            mr_am_choice(g, &self.nodes, node)
        } else {
            None
        };
        let task = if am_choice.is_some() {
            am_choice
        } else if s.task != NONE {
            Some(s.task as usize)
        } else if self.dynamic.planned {
            // Pools are dispatch-irrelevant otherwise.
            first_pending(g, |r| s.locality != Locality::Node || r.contains(&node))
        } else {
            None
        };
        if let Some(t) = task.filter(|&t| t < g.pool.len()) {
            g.pool.mark(t, true);
            self.booked.push((s.app, g.priority, t as u32));
        }
        let locality = match am_choice {
            Some(t)
                if s.locality != Locality::Node
                    && g.pool.replicas.of(t).contains(&node)
                    && g.counts.get(&host).is_some_and(|&c| c > 0) =>
            {
                Locality::Node
            }
            _ => s.locality,
        };
        // YARN allocates node- or rack-local only while the node's rack is
        // still asked for (`LocalityAppPlacementAllocator.canAllocate`). A
        // rack-local grant lowers the rack but no host, so an AM that never
        // re-asks (SLS's) leaves host counts under a rack count of 0: such a
        // grant is the RM's off-switch one, on the same node.
        let rack_asked = g.counts.get(&rack).is_some_and(|&c| c > 0);
        let locality = match locality {
            Locality::Node | Locality::Rack if follow_am && !rack_asked => Locality::OffSwitch,
            l => l,
        };
        // As YARN's AppSchedulingInfo.allocate: the AM's next update corrects
        // the hosts of the task it really chose. The MR AM's task is known:
        // its update lowers every replica host and rack of that task, so do
        // that now, or a stale host count grants a container the AM has no
        // local task for.
        match (am_choice, locality) {
            (Some(t), _) => {
                let of = g.pool.replicas.of(t);
                for (i, &r) in of.iter().enumerate() {
                    let Some(rn) = self.nodes.get(r as usize) else {
                        continue;
                    };
                    dec(&mut g.counts, rn.name);
                    let seen = of[..i].iter().any(|&q| {
                        self.nodes
                            .get(q as usize)
                            .is_some_and(|qn| qn.rack == rn.rack)
                    });
                    if !seen {
                        dec(&mut g.counts, rn.rack);
                    }
                }
            }
            (None, Locality::Node) => {
                dec(&mut g.counts, host);
                dec(&mut g.counts, rack);
            }
            (None, Locality::Rack) => dec(&mut g.counts, rack),
            (None, Locality::OffSwitch) => {}
        }
        self.asks.busy_stale |= became_empty;
        if let Some(rule) = &self.rule {
            rule.granted(&mut g.scratch, locality);
        }
        g.wait_from = self.clock.now_ms;
        g.stall_logged = false;
        g.any -= 1;
        g.asked.take(1);
        if g.any == 0 {
            self.asks.busy_stale = true;
            // Host and rack asks stay (the AM's update settles them) but no
            // longer make this group serve anything.
            adjust_askers(&mut self.asks.askers, g, -1);
        }
        let (priority, capability, any) = (g.priority, g.capability, g.any);
        self.apps[s.app as usize].any_changed(any + 1, any);
        (priority, capability, locality)
    }
}

/// The task the stock MR AM runs in a container on `node`
/// (`RMContainerAllocator.assignMapsWithLocality`, Hadoop 3.3 and 3.4): the
/// first pending map, in task order, with a replica on the node's host, else
/// in its rack, else any. Its host lists are in task order, which is the
/// split file's, an exact pool's order. A planned task the AM would not pick
/// here is booked as the AM's, or the next grant elsewhere would be planned
/// for a task already running (measured: the RM granted 8 of 8 maps
/// node-local and the job counted 5-7 data-local). Bounded by `BOOK_SCAN`.
fn mr_am_choice(g: &mut Group, nodes: &[NodeState], node: NodeId) -> Option<usize> {
    let rack = nodes.get(node as usize)?.rack;
    // The AM's passes in turn; the rack's only when no map is local (rare
    // for a planned grant, whose task is local), as they cost more.
    first_pending(g, |r| r.contains(&node))
        .or_else(|| {
            first_pending(g, |r| {
                r.iter()
                    .any(|&h| nodes.get(h as usize).is_some_and(|n| n.rack == rack))
            })
        })
        .or_else(|| first_pending(g, |_| true))
}

/// The first task of `g`'s pool, not started, whose replicas pass `ok`,
/// after skipping the started prefix. Bounded by `BOOK_SCAN`: which task
/// runs is the AM's choice, and a job of a million maps must not make a
/// grant scan them all.
fn first_pending(g: &mut Group, ok: impl Fn(&[NodeId]) -> bool) -> Option<usize> {
    let pool = &g.pool;
    while pool.started.get(g.first_free).is_some_and(|&s| s) {
        g.first_free += 1;
    }
    let end = pool.len().min(g.first_free.saturating_add(BOOK_SCAN));
    (g.first_free..end).find(|&t| !pool.started[t] && ok(pool.replicas.of(t)))
}

/// The Session's [`ClusterView`]: a heartbeat of a node with `free`
/// resources. Asks with no location at all (reducers) have no local choice
/// and are served under every answer.
struct SessionView<'a> {
    s: &'a mut Session,
    free: &'a Resources,
}

impl ClusterView for SessionView<'_> {
    type Pick = Slot;

    /// ASM1 hybrids (Beaumont et al., Sect. 7.1): a local task from the longest queue.
    #[inline]
    fn steal(&mut self, node: NodeId) -> Option<Slot> {
        self.s.steal(node, self.free)
    }

    #[inline]
    fn local_only(&mut self, node: NodeId) -> Option<Slot> {
        self.s.local_only(node, self.free)
    }

    #[inline]
    fn spill(&mut self, node: NodeId) -> Option<Slot> {
        self.s.spill(node, self.free)
    }

    #[inline]
    fn priced(&mut self, node: NodeId) -> Option<Slot> {
        self.s.priced(node, self.free)
    }
}
