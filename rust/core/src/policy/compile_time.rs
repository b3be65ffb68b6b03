//! The compile-time form of run-time dispatchers, as BAR Sect. V.B
//! builds its baselines HDS, DS and GCC: "place all servers into a min-heap;
//! pop a minimum load server, invoke a real-time scheduling algorithm to
//! allocate a task, then update load of servers. The remote cost is renewed
//! when a remote task is allocated", until every task is allocated.
//!
//! What the paper leaves open, and what we do:
//! - A server that a rule *skips* (DS, GCC) is offered again one heartbeat
//!   later (`heartbeat`, in the cost model's time unit; Hadoop 1's minimum
//!   TaskTracker heartbeat is 3 s, and the paper's C_loc = 20 stands for a
//!   19 s map task). It stays idle meanwhile, so the waiting counts in the
//!   makespan (see [`Dispatch::makespan`]).
//! - A local task is a random unallocated task with a replica on the server;
//!   a remote one is a random unallocated task.
//! - A server's load grows by `size * cost / (speed * slots)` per task (the
//!   paper's servers run one task at a time).
//!
//! The cost of a remote task is `C_rem(r)` with r the remote tasks allocated
//! so far when it is allocated, and [`Dispatch::makespan`] is the simulated
//! finish (plan-wide `C_rem(r)` of eq. 2 would charge early remote tasks for
//! later ones; `plan::evaluate` on the assignment gives that view).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::model::{Locality, NodeId, OrdF64, Problem, TaskId, NONE};
use crate::plan::Assignment;
use crate::policy::heartbeat_rule::{HeartbeatRule, Pick, SlotView};

/// What a server with no local task left does when it is offered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rule {
    /// Hadoop's default: take any task.
    Any,
    /// Delay scheduling: skip the server and count the skip; once the count
    /// exceeds `threshold`, take a remote task and reset the count.
    Delay { threshold: u32 },
    /// Good-Cache-Compute: skip while at least `utilization` of the servers
    /// are busy; take a remote task once enough servers are idle.
    Gcc { utilization: f64 },
}

impl Rule {
    /// Whether a server with no local task takes a remote one now, the
    /// same offline and at heartbeats. Delay counts this offer in `skips`
    /// (the caller resets it at every launch); GCC asks `idle` for the idle
    /// servers (or slots) and their total, only when it needs them.
    pub fn go(self, skips: &mut u32, idle: impl FnOnce() -> (u64, u64)) -> bool {
        match self {
            Rule::Any => true,
            Rule::Delay { threshold } => {
                *skips = skips.saturating_add(1);
                *skips > threshold
            }
            Rule::Gcc { utilization } => {
                let (idle, servers) = idle();
                // 10% of 10 servers is one server, not 1.0000000000000002.
                let needed = ((1.0 - utilization.clamp(0.0, 1.0)) * servers as f64 - 1e-9).ceil();
                idle as f64 >= needed
            }
        }
    }
}

/// A dispatcher's rule before the cluster is known ([`super::FreeSlot::Dispatch`]):
/// DS's threshold is a fraction of the servers, so the Session derives the
/// [`Rule`] from its live nodes at each heartbeat.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Dispatcher {
    /// [`Rule::Any`] (HDS, GREEDY-COMM).
    Any,
    /// [`Rule::Delay`] with threshold `floor(fraction * servers)` (DS).
    Delay { fraction: f64 },
    /// [`Rule::Gcc`] (GCC).
    Gcc { utilization: f64 },
}

impl Dispatcher {
    /// The rule on a cluster of `nodes` servers.
    pub fn rule(self, nodes: usize) -> Rule {
        match self {
            Dispatcher::Any => Rule::Any,
            Dispatcher::Delay { fraction } => {
                let threshold = (fraction.max(0.0) * nodes as f64).floor();
                Rule::Delay {
                    threshold: threshold.min(u32::MAX as f64) as u32,
                }
            }
            Dispatcher::Gcc { utilization } => Rule::Gcc { utilization },
        }
    }
}

/// A dispatcher at heartbeats (BAR's baselines in the Session): a task
/// local to this node from any application, else [`Rule::go`] decides
/// whether the node takes a remote task (rack-local first) or waits for the
/// next heartbeat. The delay counter is the dispatcher's, reset by every
/// launch. Reducers (asks with no location) are never delayed.
#[derive(Clone, Copy, Debug)]
pub struct DispatchRule {
    pub dispatcher: Dispatcher,
    skips: u32,
}

impl DispatchRule {
    pub fn new(dispatcher: Dispatcher) -> DispatchRule {
        DispatchRule {
            dispatcher,
            skips: 0,
        }
    }
}

impl HeartbeatRule for DispatchRule {
    fn free_slot(&mut self, view: &mut dyn SlotView) -> Option<Pick> {
        if let Some(p) = view.node_local() {
            self.skips = 0;
            return Some(p);
        }
        let rule = self.dispatcher.rule(view.alive_nodes() as usize);
        // GCC counts idle container slots of the smallest ask.
        let go = rule.go(&mut self.skips, || {
            let slots = view.cluster_slots();
            (slots.saturating_sub(view.running()), slots)
        });
        if !go {
            if !view.has_location_less() {
                return None;
            }
            return view.offer_fifo(&mut |g| (!g.located).then_some(Locality::OffSwitch));
        }
        let p = view.offer_fifo(&mut |g| {
            if g.relax && g.rack {
                Some(Locality::Rack)
            } else if g.relax || !g.located {
                Some(Locality::OffSwitch)
            } else {
                None
            }
        })?;
        self.skips = 0;
        Some(p)
    }
}

/// A played-out dispatch: the assignment plus when each task was handed out.
#[derive(Clone, Debug)]
pub struct Dispatch {
    pub node_of: Vec<NodeId>,
    /// Tasks in the order they were handed out.
    pub order: Vec<TaskId>,
    /// Time at which each task was handed to its server.
    pub start: Vec<f64>,
    /// Offers that were skipped.
    pub skips: u64,
    /// When each server finishes its last task; 0 for servers with none.
    pub finish: Vec<f64>,
}

impl Dispatch {
    pub fn assignment(&self, problem: &Problem) -> Assignment {
        Assignment::from_order(problem.num_nodes(), self.node_of.clone(), &self.order)
    }

    /// Eq. 8 makespan with the waits, as the compile-time run measures it:
    /// the latest finish among servers that were handed tasks, each task
    /// costing what it cost when it was handed out (the remote cost "is
    /// renewed when a remote task is allocated", Sect. V.B).
    pub fn makespan(&self) -> f64 {
        self.finish.iter().copied().fold(0.0, f64::max)
    }
}

/// Plays `rule` out over the min-heap of servers.
pub fn dispatch(problem: &Problem, rule: Rule, heartbeat: f64, seed: u64) -> Dispatch {
    let (n, m) = (problem.num_nodes(), problem.num_tasks());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Dispatch {
        node_of: vec![NONE; m],
        order: Vec::with_capacity(m),
        start: vec![0.0; m],
        skips: 0,
        finish: vec![0.0; n],
    };
    if n == 0 {
        out.node_of.fill(0);
        out.order.extend(0..m as TaskId);
        return out;
    }
    // A skipped server must come back later, or time would stand still.
    let heartbeat = if heartbeat.is_finite() && heartbeat > 0.0 {
        heartbeat
    } else {
        1.0
    };
    let rate: Vec<f64> = (0..n)
        .map(|s| 1.0 / (problem.node_speed[s] * problem.node_slots[s].max(1) as f64))
        .collect();

    // Per-server lists of possibly unallocated local tasks (lazy deletion).
    let node_tasks = &problem.graph.node_tasks;
    let mut local: Vec<Vec<TaskId>> = (0..n).map(|s| node_tasks.row(s).to_vec()).collect();
    // All unallocated tasks with O(1) removal.
    let mut pending: Vec<TaskId> = (0..m as TaskId).collect();
    let mut pos: Vec<u32> = (0..m as u32).collect();

    let mut offers: BinaryHeap<Reverse<(OrdF64, NodeId)>> = (0..n)
        .map(|s| Reverse((OrdF64(problem.node_load[s]), s as NodeId)))
        .collect();
    // Idle servers for GCC: a server is busy until `busy_until`.
    let mut busy_until = problem.node_load.clone();
    let mut frees: BinaryHeap<Reverse<(OrdF64, NodeId)>> = offers.clone();
    let mut idle = 0usize;
    let mut skips_since = 0u32;
    let mut remote = 0usize;

    while !pending.is_empty() {
        let Some(Reverse((OrdF64(now), s))) = offers.pop() else {
            break;
        };
        let si = s as usize;
        while let Some(&Reverse((OrdF64(at), f))) = frees.peek() {
            if at > now {
                break;
            }
            frees.pop();
            if busy_until[f as usize] == at {
                idle += 1;
            }
        }
        let list = &mut local[si];
        let mut chosen = NONE;
        while !list.is_empty() {
            let t = list.swap_remove(rng.gen_range(0..list.len()));
            if out.node_of[t as usize] == NONE {
                chosen = t;
                break;
            }
        }
        let cost = if chosen != NONE {
            skips_since = 0;
            problem.cost.local
        } else {
            let go = rule.go(&mut skips_since, || (idle as u64, n as u64));
            if !go {
                out.skips += 1;
                offers.push(Reverse((OrdF64(now + heartbeat), s)));
                continue;
            }
            skips_since = 0;
            chosen = pending[rng.gen_range(0..pending.len())];
            remote += 1;
            problem.cost.remote_cost(remote)
        };
        // Allocate `chosen` to s at `now`.
        let i = pos[chosen as usize] as usize;
        let last = pending.len() - 1;
        pending.swap(i, last);
        pos[pending[i] as usize] = i as u32;
        pending.pop();
        out.node_of[chosen as usize] = s;
        out.start[chosen as usize] = now;
        out.order.push(chosen);
        let done = now + problem.task_size[chosen as usize] * cost * rate[si];
        if busy_until[si] <= now {
            idle = idle.saturating_sub(1);
        }
        busy_until[si] = done;
        out.finish[si] = done;
        frees.push(Reverse((OrdF64(done), s)));
        offers.push(Reverse((OrdF64(done), s)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CostModel;
    use crate::plan::check_assignment;

    fn bar_cost(q: f64) -> CostModel {
        CostModel {
            local: 20.0,
            remote: 20.0,
            remote_growth: q,
        }
    }

    #[test]
    fn any_takes_local_first_then_any() {
        // Server 0 (free at 0) holds t0; server 1 (free at 5) holds nothing.
        let mut p = Problem::uniform(2, &[vec![0], vec![0]], bar_cost(1.0));
        p.node_load = vec![0.0, 5.0];
        let d = dispatch(&p, Rule::Any, 3.0, 1);
        // t=0: s0 takes a local task (done 20); t=5: s1 takes the other remote.
        assert_eq!(d.skips, 0);
        assert_eq!(d.node_of.iter().filter(|&&s| s == 1).count(), 1);
        assert_eq!(d.start.iter().copied().fold(0.0, f64::max), 5.0);
        // s1: 5 + 20 + 1 = 26; s0: 20.
        assert_eq!(d.makespan(), 26.0);
        check_assignment(&p, &d.assignment(&p)).unwrap();
    }

    #[test]
    fn delay_skips_threshold_times_then_goes_remote() {
        // Both tasks on s0 (busy until 100); s1 idle holds nothing.
        let mut p = Problem::uniform(2, &[vec![0], vec![0]], bar_cost(0.0));
        p.node_load = vec![100.0, 0.0];
        let d = dispatch(&p, Rule::Delay { threshold: 2 }, 3.0, 1);
        // s1 offered at 0, 3 (skips 1, 2), at 6 the count exceeds 2: remote, done 26;
        // at 26 it skips, 29 skips, 32 remote again, done 52. s0 is offered at 100 only.
        assert_eq!(d.skips, 4);
        assert_eq!(d.node_of, vec![1, 1]);
        assert_eq!(d.makespan(), 52.0);
    }

    #[test]
    fn gcc_waits_for_enough_idle_servers() {
        // Ten servers; the task's replica is on s9 (busy until 50); s0..s8 are
        // busy until 10 * i. With utilization 0.7, three idle servers are needed:
        // s0 at 0 (1 idle) skips, ..., s2 at 20 (3 idle) takes the task remotely.
        let mut p = Problem::uniform(10, &[vec![9]], bar_cost(0.0));
        p.node_load = (0..10)
            .map(|i| if i == 9 { 50.0 } else { 10.0 * i as f64 })
            .collect();
        let d = dispatch(&p, Rule::Gcc { utilization: 0.7 }, 3.0, 1);
        assert_eq!(d.node_of, vec![2]);
        assert_eq!(d.start, vec![20.0]);
    }
}
