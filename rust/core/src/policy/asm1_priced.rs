//! `asm1-priced`: ASM1's plan, stealing, then a locality wait priced from
//! the plan (issue 11 D). A node with room, an empty queue and nothing local
//! to steal chooses between a non-local task now and keeping the slot for a
//! local one. The candidate is the task whose local start the plan puts
//! last: the back of the longest queue (what `asm1-comm` would spill). On
//! its planned holder it starts once the holder's running containers and the
//! queue ahead of it have gone through the holder's slots; another replica
//! holder could take it once its own queue is through (stealing); the
//! earliest of these is the wait. A remote run costs the cost model's
//! remote factor times its duration. The node takes
//! it only if waiting is costlier, else leaves the slot idle until the
//! state changes (the next heartbeat in the Session, the next task start or
//! finish in the offline executor).
//!
//! Durations are never read before a task runs: both engines estimate them
//! by the mean duration of the containers (tasks) finished so far. Delay
//! scheduling counts missed heartbeats blindly; this rule asks the plan.
//!
//! The pricing rule is [`take_remote`], a pure function of [`Price`]; the
//! offline executor ([`Planned`](crate::execute::Planned) with
//! [`FreeSlot::Priced`]: the node's own
//! queue, stealing, then the priced spill; a slot whose price says wait asks
//! again at the next change) and the Session (`heartbeat.rs`)
//! both call it, so the name means the same in every engine. The Session
//! also serves a group that has waited `spindle.locality.max-wait-ms` (the
//! hard cap), and its stall detector names any group that waits longer
//! than its limit.

use crate::model::{CostModel, NodeId, Problem};
use crate::plan::Assignment;
use crate::policy::asm1::Asm1;
#[cfg(doc)]
use crate::policy::FreeSlot;
use crate::policy::Planner;

/// What the plan and the observed durations say about one remote candidate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Price {
    /// Mean container durations before a replica holder starts the
    /// candidate: the least [`start_delay_waves`] over its holders.
    pub waves: f64,
    /// Mean duration of a container on the holders (what frees their slots).
    pub holder_ms: f64,
    /// Expected duration of the candidate run locally.
    pub task_ms: f64,
    /// Remote over local cost ([`remote_factor`]).
    pub remote_factor: f64,
}

/// How many mean container durations pass before a holder with `slots`
/// slots, `running` busy, starts the task with `ahead` queued before it: 0
/// while a slot is free for it, else one duration per wave of `slots`
/// containers that must end first (the first of `slots` running ones ends
/// after about `1 / slots` of a duration).
pub fn start_delay_waves(ahead: u32, running: u32, slots: u32) -> f64 {
    let slots = slots.max(1) as u64;
    let before = running as u64 + ahead as u64;
    if before < slots {
        0.0
    } else {
        (before - slots + 1) as f64 / slots as f64
    }
}

/// The pricing rule: take the remote task now only if waiting for the
/// holder is costlier, i.e. the task would finish later by waiting
/// (`delay + task`) than by running remote now (`factor * task`).
pub fn take_remote(p: &Price) -> bool {
    let delay = p.waves.max(0.0) * p.holder_ms.max(0.0);
    let extra = (p.remote_factor - 1.0).max(0.0) * p.task_ms.max(0.0);
    delay > extra
}

/// Remote over local cost of a unit task (BAR's growth term left out: the
/// rule prices one task). Infinite when local work is free: never remote.
pub fn remote_factor(cost: &CostModel) -> f64 {
    if cost.local > 0.0 {
        cost.remote_cost(0) / cost.local
    } else {
        f64::INFINITY
    }
}

/// The planner: ASM1's semi-matching (the pricing happens at run time).
#[derive(Clone, Copy, Debug, Default)]
pub struct Asm1Priced;

impl Planner for Asm1Priced {
    fn name(&self) -> &'static str {
        "asm1-priced"
    }

    fn plan(&self, problem: &Problem, seed: u64) -> Assignment {
        Asm1.plan(problem, seed)
    }
}

/// The plan, stealing, then a locality wait priced from the plan; offline,
/// the default [`crate::policy::execute_planned`] runs it
/// ([`Planned`](crate::execute::Planned)).
impl crate::policy::Policy for Asm1Priced {
    fn name(&self) -> &'static str {
        Planner::name(self)
    }
    fn planner(&self) -> Option<&dyn Planner> {
        Some(self)
    }
    fn on_free_slot(&self) -> crate::policy::FreeSlot {
        crate::policy::FreeSlot::Priced
    }
}

/// Most completed containers a running mean averages before it turns into
/// an exponential one (recent durations count more on a long-lived RM).
const MEAN_WINDOW: u32 = 256;

/// A running mean that forgets slowly once it has seen [`MEAN_WINDOW`] values.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Mean {
    value: f64,
    n: u32,
}

impl Mean {
    fn add(&mut self, x: f64) {
        self.n = (self.n + 1).min(MEAN_WINDOW);
        self.value += (x - self.value) / self.n as f64;
    }

    fn get(&self) -> Option<f64> {
        (self.n > 0).then_some(self.value)
    }
}

/// Container durations as the Session observes them: a grant starts a
/// container on a node, a finish report names the node (and usually the
/// app), the heartbeats give the time. Which of a node's containers of one
/// app finished is not said: the oldest is assumed. Memory: one entry per
/// running container, up to a per-node capacity set when the node registers
/// (containers beyond it are not timed), so a heartbeat never allocates.
#[derive(Debug, Default)]
pub struct Durations {
    /// Per node: (app, grant time) of its running containers.
    running: Vec<Vec<(u32, i64)>>,
    /// Per app: mean duration of its finished containers.
    by_app: Vec<Mean>,
    all: Mean,
}

/// Most containers timed at once on one node.
const MAX_TIMED_PER_NODE: usize = 256;

impl Durations {
    /// `node` registered (again) and runs up to `containers` at once.
    pub fn node_added(&mut self, node: NodeId, containers: u32) {
        let n = node as usize;
        if self.running.len() <= n {
            self.running.resize_with(n + 1, Vec::new);
        }
        let list = &mut self.running[n];
        list.clear();
        list.reserve_exact((containers as usize).clamp(1, MAX_TIMED_PER_NODE));
    }

    /// `app` registered: its mean starts empty.
    pub fn app_added(&mut self, app: u32) {
        let a = app as usize;
        if self.by_app.len() <= a {
            self.by_app.resize(a + 1, Mean::default());
        }
        self.by_app[a] = Mean::default();
    }

    /// A container of `app` was granted on `node` at `now_ms`. Not timed
    /// on a node that did not register or has its capacity's worth running.
    pub fn started(&mut self, node: NodeId, app: u32, now_ms: i64) {
        if let Some(list) = self.running.get_mut(node as usize) {
            if list.len() < list.capacity() {
                list.push((app, now_ms));
            }
        }
    }

    /// A container on `node` (of `app`, if known) finished by `now_ms`.
    pub fn finished(&mut self, node: NodeId, app: Option<u32>, now_ms: i64) {
        let Some(list) = self.running.get_mut(node as usize) else {
            return;
        };
        let oldest = list
            .iter()
            .enumerate()
            .filter(|(_, &(a, _))| app.is_none_or(|x| x == a))
            .min_by_key(|(_, &(_, at))| at)
            .map(|(i, _)| i);
        let Some(i) = oldest else {
            return;
        };
        let (a, at) = list.swap_remove(i);
        let d = now_ms.saturating_sub(at).max(0) as f64;
        self.all.add(d);
        if let Some(m) = self.by_app.get_mut(a as usize) {
            m.add(d);
        }
    }

    /// `node` left the cluster: its containers are gone.
    pub fn node_removed(&mut self, node: NodeId) {
        if let Some(list) = self.running.get_mut(node as usize) {
            list.clear();
        }
    }

    /// Mean duration of every finished container (ms), if any finished.
    pub fn mean_ms(&self) -> Option<f64> {
        self.all.get()
    }

    /// Mean duration of `app`'s finished containers (ms), if any finished.
    pub fn app_mean_ms(&self, app: u32) -> Option<f64> {
        self.by_app.get(app as usize).and_then(Mean::get)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn price(ahead: u32, running: u32, slots: u32) -> Price {
        Price {
            waves: start_delay_waves(ahead, running, slots),
            holder_ms: 20_000.0,
            task_ms: 20_000.0,
            remote_factor: 3.0,
        }
    }

    #[test]
    fn a_holder_with_a_free_slot_is_worth_waiting_for() {
        assert_eq!(start_delay_waves(0, 3, 4), 0.0);
        assert_eq!(start_delay_waves(2, 1, 4), 0.0);
        assert!(!take_remote(&price(0, 3, 4)));
    }

    #[test]
    fn the_delay_counts_waves_of_the_holders_slots() {
        // All 4 slots busy, nothing ahead: the first of 4 ends first.
        assert_eq!(start_delay_waves(0, 4, 4), 0.25);
        assert_eq!(start_delay_waves(4, 4, 4), 1.25);
        assert_eq!(start_delay_waves(2, 1, 1), 3.0);
        // Slots 0 is read as 1.
        assert_eq!(start_delay_waves(0, 1, 0), 1.0);
    }

    #[test]
    fn remote_is_taken_only_past_the_remote_penalty() {
        // Factor 3: remote costs 2 more task durations than local.
        assert!(!take_remote(&price(1, 1, 1))); // 2 waves: a tie waits
        assert!(take_remote(&price(2, 1, 1))); // 3 waves
        assert!(!take_remote(&price(7, 4, 4))); // 2 waves
        assert!(take_remote(&price(8, 4, 4))); // 2.25 waves
                                               // A short task behind long containers goes remote sooner.
        let short = Price {
            task_ms: 2_000.0,
            ..price(0, 4, 4)
        };
        assert!(take_remote(&short)); // 5 s of waiting > 4 s of remote penalty
    }

    #[test]
    fn free_remote_reads_take_any_wait_and_free_local_work_never_goes_remote() {
        let free_remote = Price {
            remote_factor: 1.0,
            ..price(0, 4, 4)
        };
        assert!(take_remote(&free_remote));
        assert!(!take_remote(&Price {
            remote_factor: 1.0,
            ..price(0, 3, 4)
        }));
        let c = CostModel {
            local: 0.0,
            remote: 3.0,
            remote_growth: 0.0,
        };
        assert_eq!(remote_factor(&c), f64::INFINITY);
        assert!(!take_remote(&Price {
            remote_factor: f64::INFINITY,
            ..price(1_000, 4, 4)
        }));
        assert_eq!(remote_factor(&CostModel::default()), 3.0);
    }

    #[test]
    fn durations_pair_finishes_with_the_oldest_container_of_the_app() {
        let mut d = Durations::default();
        assert_eq!(d.mean_ms(), None);
        d.node_added(2, 4);
        d.node_added(5, 4);
        d.app_added(0);
        d.app_added(1);
        d.started(2, 0, 1_000);
        d.started(2, 1, 2_000);
        d.started(2, 0, 3_000);
        d.finished(2, Some(0), 11_000); // the one from 1 000: 10 s
        assert_eq!(d.app_mean_ms(0), Some(10_000.0));
        d.finished(2, None, 12_000); // oldest left: app 1's, 10 s
        assert_eq!(d.app_mean_ms(1), Some(10_000.0));
        d.finished(2, Some(0), 7_000); // from 3 000: 4 s
        assert_eq!(d.app_mean_ms(0), Some(7_000.0));
        assert_eq!(d.mean_ms(), Some(8_000.0));
        // Reports with nothing running are ignored, not a panic.
        d.finished(2, None, 20_000);
        d.finished(9, Some(3), 20_000);
        d.started(5, 0, 0);
        d.node_removed(5);
        d.finished(5, None, 1_000);
        assert_eq!(d.mean_ms(), Some(8_000.0));
        // Beyond its capacity a node's containers are not timed.
        d.node_added(7, 1);
        d.started(7, 0, 0);
        d.started(7, 0, 0);
        d.finished(7, Some(0), 1_000);
        d.finished(7, Some(0), 1_000);
        assert_eq!(d.app_mean_ms(0), Some(5_000.0));
        // An unregistered node or app is ignored.
        d.started(40, 9, 0);
        d.finished(40, Some(9), 5);
        assert_eq!(d.app_mean_ms(9), None);
    }

    #[test]
    fn the_mean_forgets_slowly_after_its_window() {
        let mut m = Mean::default();
        for _ in 0..1_000 {
            m.add(1.0);
        }
        for _ in 0..MEAN_WINDOW {
            m.add(100.0);
        }
        let v = m.get().unwrap();
        assert!(v > 60.0 && v < 100.0, "{v}");
    }
}
