//! A small deterministic discrete-event executor for the dispatch policies of
//! Beaumont et al. (Sect. 6 and 7.1): every node slot frees at the node's initial
//! load; whenever a slot is free, the policy's [`Rule`] picks the task it
//! starts (from a planned queue, by stealing, or by a greedy rule), or leaves
//! the slot idle for good. A task's duration, `size * cost / speed` with the
//! local cost on a replica holder and `remote_cost(r)` elsewhere (r counting
//! the remote tasks started so far), is revealed only when it starts: rules
//! of non-clairvoyant policies never read `task_size`.
//!
//! Ties between slots freeing at the same instant: slots of nodes that still
//! have planned work go first (the paper's hybrids steal only when a node is
//! idle with nothing planned), then a seeded random order, so a run is a pure
//! function of (problem, rule, seed).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::model::{Csr, NodeId, OrdF64, Problem, TaskId, NONE};
use crate::plan::Assignment;
use crate::policy::asm1_priced::{remote_factor, start_delay_waves, take_remote, Price};
use crate::policy::free_slot::{ClusterView, FreeSlot};

/// The state a rule sees when a slot is free.
pub struct ExecState<'p> {
    pub problem: &'p Problem,
    /// Current time.
    pub now: f64,
    node_of: Vec<NodeId>,
    /// Unclaimed tasks with a replica on each node (HCN_j / n_j of the paper).
    local_left: Vec<u32>,
    pending: Vec<TaskId>,
    pos: Vec<u32>,
    busy_until: Vec<f64>,
    /// Tasks running on each node.
    running: Vec<u32>,
    /// Sum and count of the durations of the tasks finished so far.
    done_sum: f64,
    done: u64,
}

impl<'p> ExecState<'p> {
    /// The state before time starts (for testing rules by hand).
    pub fn new_for(problem: &'p Problem) -> ExecState<'p> {
        ExecState::new(problem)
    }

    pub(crate) fn new(problem: &'p Problem) -> ExecState<'p> {
        let n_tasks = problem.num_tasks();
        ExecState {
            problem,
            now: 0.0,
            node_of: vec![NONE; n_tasks],
            local_left: (0..problem.num_nodes())
                .map(|n| problem.graph.node_tasks.degree(n) as u32)
                .collect(),
            pending: (0..n_tasks as TaskId).collect(),
            pos: (0..n_tasks as u32).collect(),
            busy_until: problem.node_load.clone(),
            running: vec![0; problem.num_nodes()],
            done_sum: 0.0,
            done: 0,
        }
    }

    /// Tasks running on `node` now.
    #[inline]
    pub fn running(&self, node: NodeId) -> u32 {
        self.running[node as usize]
    }

    /// Mean duration of the tasks finished so far (a non-clairvoyant rule's
    /// estimate), `None` before the first finish.
    pub fn mean_duration(&self) -> Option<f64> {
        (self.done > 0).then(|| self.done_sum / self.done as f64)
    }

    /// Whether task `t` is still unclaimed (not started, not reserved).
    #[inline]
    pub fn is_free(&self, t: TaskId) -> bool {
        self.node_of[t as usize] == NONE
    }

    /// The node that started or reserved `t`, or `NONE`.
    #[inline]
    pub fn node_of(&self, t: TaskId) -> NodeId {
        self.node_of[t as usize]
    }

    /// Unclaimed tasks with a replica on `node`.
    #[inline]
    pub fn local_left(&self, node: NodeId) -> u32 {
        self.local_left[node as usize]
    }

    /// All unclaimed tasks, in no particular order.
    #[inline]
    pub fn pending(&self) -> &[TaskId] {
        &self.pending
    }

    /// When `node` finishes the tasks it has started (its initial load at first).
    #[inline]
    pub fn busy_until(&self, node: NodeId) -> f64 {
        self.busy_until[node as usize]
    }

    /// Reserves `t` for `node` ahead of time (MAESTRO's first wave): it no
    /// longer counts as unclaimed; the rule must return it from `pick` later.
    pub fn reserve(&mut self, t: TaskId, node: NodeId) {
        debug_assert!(self.is_free(t), "task {t} reserved twice");
        self.node_of[t as usize] = node;
        for &q in self.problem.replicas(t) {
            self.local_left[q as usize] -= 1;
        }
        let i = self.pos[t as usize] as usize;
        let last = self.pending.len() - 1;
        self.pending.swap(i, last);
        self.pos[self.pending[i] as usize] = i as u32;
        self.pending.pop();
    }
}

/// The extra slots of each node for list scheduling, materialised one at a
/// time so that memory grows with the tasks started, not with the slot
/// count (`"slots": 1e9` once meant 1e9 heap entries per node). A node never
/// runs more tasks at once than the problem has, so `min(slots, tasks)`
/// slots are as good as all of them.
pub(crate) struct SpareSlots {
    spare: Vec<u32>,
}

impl SpareSlots {
    /// Every node's slots but the first (which the caller schedules itself).
    pub(crate) fn new(problem: &Problem) -> SpareSlots {
        let cap = problem.num_tasks().min(u32::MAX as usize) as u32;
        SpareSlots {
            spare: problem
                .node_slots
                .iter()
                .map(|&s| s.min(cap).max(1) - 1)
                .collect(),
        }
    }

    /// A slot of `node` was taken at time `t`: whether another one is free at
    /// the same time (a spare slot, free since the node's initial load),
    /// which the caller then schedules at `t`.
    #[inline]
    pub(crate) fn another(&mut self, problem: &Problem, node: NodeId, t: f64) -> bool {
        let s = &mut self.spare[node as usize];
        if *s > 0 && t <= problem.node_load[node as usize] {
            *s -= 1;
            true
        } else {
            false
        }
    }

    /// Nodes with spare slots never taken (free since their initial load).
    pub(crate) fn left(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.spare
            .iter()
            .enumerate()
            .filter(|(_, &s)| s > 0)
            .map(|(p, _)| p as NodeId)
    }
}

/// A policy's runtime decision.
pub trait Rule {
    /// Called once before time starts (MAESTRO computes its first wave here).
    fn init(&mut self, _st: &mut ExecState, _rng: &mut ChaCha8Rng) {}
    /// Whether `node` still has planned work (its slots go first at ties).
    fn has_planned(&self, _node: NodeId) -> bool {
        false
    }
    /// A slot of `node` is free at `st.now`: the task to start there (unclaimed,
    /// or reserved for this node), or `None` to leave the slot idle for good
    /// (so a rule must not refuse work it could take later).
    fn pick(&mut self, st: &ExecState, node: NodeId, rng: &mut ChaCha8Rng) -> Option<TaskId>;
    /// Right after `pick` returned `None` for `node`: whether the slot waits
    /// and asks again at the next change (a task starts or finishes)
    /// instead of idling for good (a priced locality wait).
    fn waits(&self, _node: NodeId) -> bool {
        false
    }
}

/// What happened in one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Execution {
    /// Node that ran each task.
    pub node_of: Vec<NodeId>,
    /// Tasks in the order they started.
    pub order: Vec<TaskId>,
    /// Start time of each task.
    pub start: Vec<f64>,
    /// Time the last task finishes (0 with no tasks).
    pub makespan: f64,
    /// Tasks run on a node without a replica.
    pub non_local: usize,
}

impl Execution {
    /// The run as an assignment: each node's queue in start order.
    pub fn assignment(&self, num_nodes: usize) -> Assignment {
        Assignment::from_order(num_nodes, self.node_of.clone(), &self.order)
    }

    /// Fraction of tasks run non-locally.
    pub fn non_local_fraction(&self) -> f64 {
        if self.node_of.is_empty() {
            0.0
        } else {
            self.non_local as f64 / self.node_of.len() as f64
        }
    }
}

/// Plays `rule` out on `problem`. Tasks no slot picked (a MAKESPAN rule that
/// leaves work nobody can run locally) run afterwards, remote, each on the
/// slot that frees first.
pub fn execute(problem: &Problem, rule: &mut dyn Rule, seed: u64) -> Execution {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n_tasks = problem.num_tasks();
    let mut st = ExecState::new(problem);
    rule.init(&mut st, &mut rng);
    let mut events: SlotEvents = BinaryHeap::new();
    let mut spare = SpareSlots::new(problem);
    for p in 0..problem.num_nodes() as NodeId {
        let key = (
            OrdF64(problem.node_load[p as usize]),
            !rule.has_planned(p),
            rng.gen(),
            p,
            NO_TASK,
        );
        events.push(Reverse(key));
    }
    let mut order = Vec::with_capacity(n_tasks);
    let mut start = vec![0.0; n_tasks];
    let mut started = vec![false; n_tasks];
    let mut remote = 0usize;
    let mut makespan: f64 = 0.0;
    let mut idle: Vec<(f64, NodeId)> = Vec::new();
    // Slots whose rule waits for a change, with the time they began to.
    let mut waiting: Vec<(f64, NodeId)> = Vec::new();
    while order.len() < n_tasks {
        let Some(Reverse((OrdF64(now), _, _, p, OrdF64(ended)))) = events.pop() else {
            break;
        };
        st.now = now;
        let finished = ended >= 0.0;
        if finished {
            st.running[p as usize] -= 1;
            st.done_sum += ended;
            st.done += 1;
        }
        if spare.another(problem, p, now) {
            events.push(Reverse((
                OrdF64(now),
                !rule.has_planned(p),
                rng.gen(),
                p,
                NO_TASK,
            )));
        }
        let Some(t) = rule.pick(&st, p, &mut rng) else {
            if rule.waits(p) {
                waiting.push((now, p));
            } else {
                idle.push((now, p));
            }
            if finished {
                wake(&mut waiting, &mut events, now, &*rule, &mut rng);
            }
            continue;
        };
        debug_assert!(
            !started[t as usize] && (st.is_free(t) || st.node_of(t) == p),
            "rule picked task {t} that is taken"
        );
        if st.is_free(t) {
            st.reserve(t, p);
        }
        let dur = run_time(problem, t, p, &mut remote);
        started[t as usize] = true;
        start[t as usize] = now;
        order.push(t);
        let end = now + dur;
        makespan = makespan.max(end);
        let b = &mut st.busy_until[p as usize];
        *b = b.max(end);
        st.running[p as usize] += 1;
        events.push(Reverse((
            OrdF64(end),
            !rule.has_planned(p),
            rng.gen(),
            p,
            OrdF64(dur),
        )));
        wake(&mut waiting, &mut events, now, &*rule, &mut rng);
    }
    if order.len() < n_tasks {
        // Leftovers go remote on the slots that free first (idle and
        // waiting ones included).
        let mut slots: BinaryHeap<Reverse<(OrdF64, NodeId)>> = events
            .into_iter()
            .map(|Reverse((t, _, _, p, _))| Reverse((t, p)))
            .chain(
                idle.into_iter()
                    .chain(waiting)
                    .map(|(t, p)| Reverse((OrdF64(t), p))),
            )
            .collect();
        // A node's spare slots not yet taken wait behind one entry at its load.
        for p in spare.left() {
            slots.push(Reverse((OrdF64(problem.node_load[p as usize]), p)));
        }
        for t in 0..n_tasks as TaskId {
            if started[t as usize] {
                continue;
            }
            let Some(Reverse((OrdF64(now), p))) = slots.pop() else {
                break;
            };
            if spare.another(problem, p, now) {
                slots.push(Reverse((OrdF64(now), p)));
            }
            st.node_of[t as usize] = p;
            let dur = run_time(problem, t, p, &mut remote);
            start[t as usize] = now;
            order.push(t);
            makespan = makespan.max(now + dur);
            slots.push(Reverse((OrdF64(now + dur), p)));
        }
    }
    let non_local = st
        .node_of
        .iter()
        .enumerate()
        .filter(|&(t, &p)| p != NONE && !problem.replicas(t as TaskId).contains(&p))
        .count();
    Execution {
        node_of: st.node_of,
        order,
        start,
        makespan,
        non_local,
    }
}

/// Free slots by (time, no planned work, random tie-break, node, duration
/// of the task that ended there or [`NO_TASK`]).
type SlotEvents = BinaryHeap<Reverse<(OrdF64, bool, u64, NodeId, OrdF64)>>;

/// Marks a slot event in which no task ended.
const NO_TASK: OrdF64 = OrdF64(-1.0);

/// The state changed at `now`: waiting slots ask their rule again.
fn wake(
    waiting: &mut Vec<(f64, NodeId)>,
    events: &mut SlotEvents,
    now: f64,
    rule: &dyn Rule,
    rng: &mut ChaCha8Rng,
) {
    for (_, w) in waiting.drain(..) {
        events.push(Reverse((
            OrdF64(now),
            !rule.has_planned(w),
            rng.gen(),
            w,
            NO_TASK,
        )));
    }
}

fn run_time(problem: &Problem, t: TaskId, p: NodeId, remote: &mut usize) -> f64 {
    let cost = if problem.replicas(t).contains(&p) {
        problem.cost.local
    } else {
        *remote += 1;
        problem.cost.remote_cost(*remote)
    };
    problem.task_size[t as usize] * cost / problem.node_speed[p as usize]
}

/// Per-node lists of local tasks that drop claimed ones lazily.
#[derive(Clone, Debug, Default)]
pub struct LocalLists {
    lists: Vec<Vec<TaskId>>,
}

impl LocalLists {
    pub fn new(problem: &Problem) -> LocalLists {
        LocalLists {
            lists: (0..problem.num_nodes())
                .map(|n| problem.local_tasks(n as NodeId).to_vec())
                .collect(),
        }
    }

    /// `node`'s unclaimed local tasks.
    pub fn live(&mut self, st: &ExecState, node: NodeId) -> &[TaskId] {
        let list = &mut self.lists[node as usize];
        list.retain(|&t| st.is_free(t));
        list
    }

    /// A uniformly random unclaimed local task of `node`.
    pub fn random(&mut self, st: &ExecState, node: NodeId, rng: &mut ChaCha8Rng) -> Option<TaskId> {
        let list = &mut self.lists[node as usize];
        while !list.is_empty() {
            let i = rng.gen_range(0..list.len());
            let t = list[i];
            if st.is_free(t) {
                return Some(t);
            }
            list.swap_remove(i);
        }
        None
    }
}

/// A multiply-rotate hasher for the replica-list keys of [`ReplicaGroups`]
/// (SipHash's resistance to chosen keys buys nothing for a local index).
#[derive(Clone, Copy, Default)]
struct FastHash;

impl std::hash::BuildHasher for FastHash {
    type Hasher = FastHasher;
    fn build_hasher(&self) -> FastHasher {
        FastHasher(0)
    }
}

struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

/// Tasks grouped by their replica list (holders in the listed order). The
/// locality-aware rules (LocAware, its clairvoyant form, MAESTRO's chunk
/// weight) score a task by its holders alone, so a node's best task is the
/// first unclaimed task of its best group: a pick costs the node's groups,
/// not its tasks (with every task on one host, each pick scanned them all:
/// quadratic). Each list holds one task per group, its representative; a
/// claimed representative is replaced by its group's next unclaimed task,
/// and a group without one drops out, so that with one task per group
/// (random placement) the lists are plain task lists. The first task in id
/// order wins ties, as a scan in id order would pick.
#[derive(Clone, Debug, Default)]
pub struct ReplicaGroups {
    /// Group of each task; `NONE` for a task alone in its group, which
    /// has no next task to look up once claimed.
    group_of: Vec<u32>,
    /// Tasks of each group, in id order.
    tasks: Csr,
    /// Tasks of each group before this position are claimed.
    cursor: Vec<u32>,
    /// Per node, a representative of each of its groups still live.
    node_lists: Vec<Vec<TaskId>>,
    /// A representative of every live group.
    live: Vec<TaskId>,
}

impl ReplicaGroups {
    pub fn new(problem: &Problem) -> ReplicaGroups {
        let mut index: std::collections::HashMap<&[NodeId], u32, FastHash> = Default::default();
        let mut group_of = Vec::with_capacity(problem.num_tasks());
        let mut first: Vec<TaskId> = Vec::new();
        for t in 0..problem.num_tasks() as TaskId {
            let next = first.len() as u32;
            let g = *index.entry(problem.replicas(t)).or_insert(next);
            if g == next {
                first.push(t);
            }
            group_of.push(g);
        }
        // Tasks by group, in id order, without a vector per group.
        let tasks = Csr::from_rows(group_of.iter().map(|&g| [g])).transpose(first.len());
        for g in &mut group_of {
            if tasks.degree(*g as usize) == 1 {
                *g = NONE;
            }
        }
        let by_node = Csr::from_rows(first.iter().map(|&t| problem.replicas(t).iter().copied()))
            .transpose(problem.num_nodes());
        let node_lists = (0..problem.num_nodes())
            .map(|n| by_node.row(n).iter().map(|&g| first[g as usize]).collect())
            .collect();
        ReplicaGroups {
            group_of,
            tasks,
            cursor: vec![0; first.len()],
            node_lists,
            live: first,
        }
    }

    /// The first unclaimed task of claimed task `t`'s group, or `NONE`.
    #[cold]
    #[inline(never)]
    fn next_in_group(&mut self, st: &ExecState, t: TaskId) -> TaskId {
        let g = self.group_of[t as usize];
        if g == NONE {
            return NONE;
        }
        let g = g as usize;
        let row = self.tasks.row(g);
        let c = &mut self.cursor[g];
        while let Some(&u) = row.get(*c as usize) {
            if st.is_free(u) {
                return u;
            }
            *c += 1;
        }
        NONE
    }

    /// Best of `list` by `score` of a task's replica list, ties to the
    /// lowest task id; representatives are brought up to date and exhausted
    /// groups dropped (for good: tasks are never unclaimed).
    fn best_of(
        &mut self,
        st: &ExecState,
        list: &mut Vec<TaskId>,
        score: &mut dyn FnMut(&[NodeId]) -> f64,
    ) -> TaskId {
        let (mut best, mut top) = (NONE, f64::NEG_INFINITY);
        list.retain_mut(|t| {
            if !st.is_free(*t) {
                *t = self.next_in_group(st, *t);
                if *t == NONE {
                    return false;
                }
            }
            let s = score(st.problem.replicas(*t));
            if s > top || (s == top && *t < best) {
                (best, top) = (*t, s);
            }
            true
        });
        best
    }

    /// `node`'s unclaimed local task with the largest score, or `NONE`.
    pub fn best_local(
        &mut self,
        st: &ExecState,
        node: NodeId,
        mut score: impl FnMut(&[NodeId]) -> f64,
    ) -> TaskId {
        let mut list = std::mem::take(&mut self.node_lists[node as usize]);
        let t = self.best_of(st, &mut list, &mut score);
        self.node_lists[node as usize] = list;
        t
    }

    /// The unclaimed task with the largest score anywhere, or `NONE`.
    pub fn best_any(&mut self, st: &ExecState, mut score: impl FnMut(&[NodeId]) -> f64) -> TaskId {
        // With about one task a group (random placement) the pending list,
        // kept exact by the executor, is the cheaper scan.
        if self.live.len() > st.pending().len() / 2 {
            let (mut best, mut top) = (NONE, f64::NEG_INFINITY);
            for &t in st.pending() {
                let s = score(st.problem.replicas(t));
                if s > top || (s == top && t < best) {
                    (best, top) = (t, s);
                }
            }
            return best;
        }
        let mut live = std::mem::take(&mut self.live);
        let t = self.best_of(st, &mut live, &mut score);
        self.live = live;
        t
    }
}

/// A static plan run as planned; once a node's queue is done, its policy's
/// [`FreeSlot`] decides ([`FreeSlot::decide`] over this engine's
/// [`ClusterView`]): `steal` takes a task local to the idle node from the
/// longest queue (of at least two), `spill` then takes any task from the
/// longest queue, the priced wait takes the back of the longest queue if
/// its price says so and else waits for the next change. Otherwise the node
/// idles once its queue is done.
pub struct Planned {
    queues: Vec<Vec<TaskId>>,
    head: Vec<usize>,
    /// Unclaimed tasks in each queue.
    left: Vec<u32>,
    owner: Vec<NodeId>,
    free_slot: FreeSlot,
    /// The last `pick` found nothing and the priced wait chose to wait.
    waiting: bool,
}

impl Planned {
    /// The plan with ASM1's fallbacks by hand: `steal` and `spill` as
    /// [`FreeSlot::Local`] and [`FreeSlot::Spill`] have them.
    pub fn new(assignment: &Assignment, steal: bool, spill: bool) -> Planned {
        let f = if spill {
            FreeSlot::Spill { steal }
        } else {
            FreeSlot::Local { steal }
        };
        Planned::with_free_slot(assignment, f)
    }

    /// The plan, then `free_slot` once a node's queue is done.
    pub fn with_free_slot(assignment: &Assignment, free_slot: FreeSlot) -> Planned {
        let q = &assignment.queues;
        let queues: Vec<Vec<TaskId>> = (0..q.rows()).map(|n| q.row(n).to_vec()).collect();
        Planned {
            head: vec![0; queues.len()],
            left: queues.iter().map(|v| v.len() as u32).collect(),
            queues,
            owner: assignment.node_of.clone(),
            free_slot,
            waiting: false,
        }
    }

    /// Next unclaimed task of `node`'s own queue.
    pub fn own(&mut self, st: &ExecState, node: NodeId) -> Option<TaskId> {
        let n = node as usize;
        while let Some(&t) = self.queues[n].get(self.head[n]) {
            self.head[n] += 1;
            if st.is_free(t) {
                return Some(self.claimed(t));
            }
        }
        None
    }

    /// Books `t` as taken from its planned queue; returns it.
    pub fn claimed(&mut self, t: TaskId) -> TaskId {
        let o = self.owner[t as usize];
        if let Some(l) = self.left.get_mut(o as usize) {
            *l -= 1;
        }
        t
    }

    /// Unclaimed tasks still in `node`'s queue.
    pub fn left(&self, node: NodeId) -> u32 {
        self.left[node as usize]
    }

    /// The node (other than `node`) with the most unclaimed planned tasks, if
    /// it has at least `min`.
    pub fn longest(&self, node: NodeId, min: u32) -> Option<NodeId> {
        let mut best = None;
        let mut most = min.saturating_sub(1);
        for (q, &l) in self.left.iter().enumerate() {
            if q as NodeId != node && l > most {
                most = l;
                best = Some(q as NodeId);
            }
        }
        best
    }

    /// The last unclaimed task of `victim`'s queue, left unclaimed.
    pub fn peek_back(&self, st: &ExecState, victim: NodeId) -> Option<TaskId> {
        let v = victim as usize;
        self.queues[v][self.head[v]..]
            .iter()
            .rev()
            .copied()
            .find(|&t| st.is_free(t))
    }

    /// The last unclaimed task of `victim`'s queue that satisfies `ok`.
    pub fn from_back(
        &mut self,
        st: &ExecState,
        victim: NodeId,
        ok: impl Fn(TaskId) -> bool,
    ) -> Option<TaskId> {
        let v = victim as usize;
        let t = self.queues[v][self.head[v]..]
            .iter()
            .rev()
            .copied()
            .find(|&t| st.is_free(t) && ok(t))?;
        Some(self.claimed(t))
    }
}

impl Rule for Planned {
    fn has_planned(&self, node: NodeId) -> bool {
        self.left[node as usize] > 0
    }

    fn pick(&mut self, st: &ExecState, node: NodeId, _rng: &mut ChaCha8Rng) -> Option<TaskId> {
        self.waiting = false;
        if let Some(t) = self.own(st, node) {
            return Some(t);
        }
        let f = self.free_slot;
        f.decide(&mut PlannedView { planned: self, st }, node)
    }

    fn waits(&self, _node: NodeId) -> bool {
        self.waiting
    }
}

/// The executor's [`ClusterView`]: the plan's queues and the unclaimed tasks.
struct PlannedView<'a, 'p> {
    planned: &'a mut Planned,
    st: &'a ExecState<'p>,
}

impl ClusterView for PlannedView<'_, '_> {
    type Pick = TaskId;

    fn steal(&mut self, node: NodeId) -> Option<TaskId> {
        let (pl, st) = (&mut *self.planned, self.st);
        let problem = st.problem;
        // Every queue with work to spare, longest first: the tasks a node
        // could steal only ever shrink, so one that finds none now never
        // will, and may go idle for good.
        let mut victims: Vec<(u32, NodeId)> = (0..pl.left.len() as NodeId)
            .filter(|&q| q != node && pl.left[q as usize] >= 2)
            .map(|q| (pl.left[q as usize], q))
            .collect();
        victims.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for &(_, v) in &victims {
            if let Some(t) = pl.from_back(st, v, |t| problem.replicas(t).contains(&node)) {
                return Some(t);
            }
        }
        None
    }

    /// Every task is in some queue, and local ones there were for `steal`.
    fn local_only(&mut self, _node: NodeId) -> Option<TaskId> {
        None
    }

    fn spill(&mut self, node: NodeId) -> Option<TaskId> {
        if let Some(v) = self.planned.longest(node, 1) {
            return self.planned.from_back(self.st, v, |_| true);
        }
        self.st.pending().first().copied()
    }

    /// The back of the longest queue, its holders' start priced in waves
    /// of the mean duration so far; else wait for the next change.
    fn priced(&mut self, node: NodeId) -> Option<TaskId> {
        let (pl, st) = (&mut *self.planned, self.st);
        let victim = pl.longest(node, 1)?;
        let t = pl.peek_back(st, victim)?;
        let problem = st.problem;
        let at = |h: NodeId, ahead: u32| {
            start_delay_waves(ahead, st.running(h), problem.node_slots[h as usize])
        };
        // Its planned holder, or another that steals it once its queue is done.
        let waves = problem
            .replicas(t)
            .iter()
            .filter(|&&h| h != victim && h != node)
            .map(|&h| at(h, pl.left(h)))
            .fold(at(victim, pl.left(victim) - 1), f64::min);
        // Before any task finished, a unit task's local cost at speed 1.
        let mean = st.mean_duration().unwrap_or(problem.cost.local);
        let price = Price {
            waves,
            holder_ms: mean,
            task_ms: mean,
            remote_factor: remote_factor(&problem.cost),
        };
        if take_remote(&price) {
            return pl.from_back(st, victim, |_| true);
        }
        pl.waiting = true;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CostModel;

    #[test]
    fn planned_queues_run_in_order_and_durations_follow_cost_and_speed() {
        // t0 and t1 on n0 (local), t2 on n1 remote (replica on n0 only).
        let mut p = Problem::uniform(2, &[vec![0], vec![0], vec![0]], CostModel::default());
        p.node_speed = vec![1.0, 2.0];
        p.task_size = vec![1.0, 2.0, 1.0];
        let a = Assignment::from_order(2, vec![0, 0, 1], &[0, 1, 2]);
        let e = execute(&p, &mut Planned::new(&a, false, false), 0);
        assert_eq!(e.order.len(), 3);
        assert_eq!(e.start, vec![0.0, 1.0, 0.0]);
        // n0: 1 + 2 = 3; n1: remote 1 * 3 / 2 = 1.5.
        assert_eq!(e.makespan, 3.0);
        assert_eq!(e.non_local, 1);
    }

    /// n2 holds only h, planned last on n1 behind a long task; n0's queue is
    /// as long as n1's and the lowest id, but has nothing local to n2: the
    /// steal must look past it (it went idle for good before).
    #[test]
    fn an_idle_slot_steals_once_a_queue_changes() {
        let replicas = vec![
            vec![0],
            vec![0],
            vec![0],
            vec![0],
            vec![1],
            vec![1],
            vec![1],
            vec![1, 2],
        ];
        let mut p = Problem::uniform(
            3,
            &replicas,
            CostModel {
                local: 1.0,
                remote: 1.0,
                remote_growth: 0.0,
            },
        );
        p.task_size[4] = 10.0;
        p.task_size[5] = 0.5;
        let a = Assignment::from_order(3, vec![0, 0, 0, 0, 1, 1, 1, 1], &[0, 1, 2, 3, 4, 5, 6, 7]);
        let e = execute(&p, &mut Planned::new(&a, true, false), 0);
        assert_eq!(
            e.node_of[7], 2,
            "n2 steals h once n1's queue is the longest"
        );
        assert_eq!(e.makespan, 11.5);
    }

    #[test]
    fn stealing_takes_a_local_task_from_the_longest_queue() {
        // All four tasks planned on n0; n1 holds replicas of t2 and t3.
        let p = Problem::uniform(
            2,
            &[vec![0], vec![0], vec![0, 1], vec![0, 1]],
            CostModel::default(),
        );
        let a = Assignment::from_order(2, vec![0; 4], &[0, 1, 2, 3]);
        // n1 steals t3 at t = 0; at t = 1 n0 has a single task left, which
        // it keeps (the Session steals only from queues of two or more).
        let e = execute(&p, &mut Planned::new(&a, true, false), 3);
        assert_eq!(e.makespan, 3.0);
        assert_eq!(e.node_of, vec![0, 0, 0, 1]);
        let idle = execute(&p, &mut Planned::new(&a, false, false), 3);
        assert_eq!(idle.makespan, 4.0);
    }

    #[test]
    fn leftover_tasks_run_remote_when_every_slot_gave_up() {
        struct Lazy;
        impl Rule for Lazy {
            fn pick(&mut self, _: &ExecState, _: NodeId, _: &mut ChaCha8Rng) -> Option<TaskId> {
                None
            }
        }
        let p = Problem::uniform(2, &[vec![0], vec![1]], CostModel::default());
        let e = execute(&p, &mut Lazy, 0);
        assert_eq!(e.order.len(), 2);
        assert!(e.node_of.iter().all(|&n| n != NONE));
    }

    /// `asm1-priced` offline (the price itself is tested in its file).
    /// Node 0 has 6 tasks queued; the last, t5, is also on node 2, which
    /// runs its own one task. Node 1 (no replica) prices t5: node 0 starts
    /// it in 5 durations, node 2 in 1 (then steals it): wait. With t5 on
    /// node 0 only, node 1 takes it at once.
    #[test]
    fn the_wait_is_the_earliest_over_the_replica_holders() {
        for (shared, t5_on) in [(true, 2), (false, 1)] {
            let mut replicas = vec![vec![0]; 6];
            if shared {
                replicas[5].push(2);
            }
            replicas.push(vec![2]);
            let p = Problem::uniform(3, &replicas, CostModel::default());
            let plan = Assignment::from_order(3, vec![0, 0, 0, 0, 0, 0, 2], &[0, 1, 2, 3, 4, 5, 6]);
            let e = execute(&p, &mut Planned::with_free_slot(&plan, FreeSlot::Priced), 1);
            assert_eq!(e.node_of[5], t5_on, "shared {shared}: {e:?}");
        }
    }

    /// All tasks on node 0 (one slot): node 1 waits while node 0's queue is
    /// short, and takes remote work once the back task would wait longer
    /// than two task durations (factor 3).
    #[test]
    fn the_executor_waits_for_a_holder_that_frees_soon() {
        for (tasks, remote) in [(2, false), (3, false), (4, true), (8, true)] {
            let p = Problem::uniform(2, &vec![vec![0]; tasks], CostModel::default());
            // ASM1's plan: every task on its one holder.
            let order: Vec<TaskId> = (0..tasks as TaskId).collect();
            let plan = Assignment::from_order(2, vec![0; tasks], &order);
            let e = execute(&p, &mut Planned::with_free_slot(&plan, FreeSlot::Priced), 1);
            assert_eq!(e.order.len(), tasks);
            assert_eq!(e.non_local > 0, remote, "{tasks} tasks: {e:?}");
        }
    }
}
