//! Container times per stage (issue 26): S-PC's reduce stage needs a
//! reducer's size apart from its job's maps'. A finish report names the
//! node and the application, not the container or its priority, but the
//! Session granted the container to an ask group itself: it remembers
//! (app, priority, grant time) per node at the grant and gives the finish
//! to the app's oldest such container there (as
//! [`crate::policy::asm1_priced::Durations`] times containers). Memory: one
//! entry per running container, up to a per-node capacity reserved when the
//! node registers, so a grant or a finish never allocates.

use super::AppId;
use crate::model::NodeId;

/// Most containers remembered at once on one node.
const MAX_PER_NODE: usize = 256;

/// A granted container still running.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Run {
    app: AppId,
    priority: i32,
    at: i64,
}

/// The running containers of each node, by the group they were granted to.
#[derive(Debug, Default)]
pub(super) struct StageClock {
    running: Vec<Vec<Run>>,
}

impl StageClock {
    /// `node` registered (again, or its capacity changed) and runs up to
    /// `containers` at once; a new registration forgets what ran there.
    pub(super) fn node_added(&mut self, node: NodeId, containers: u32, fresh: bool) {
        let n = node as usize;
        if self.running.len() <= n {
            self.running.resize_with(n + 1, Vec::new);
        }
        let list = &mut self.running[n];
        if fresh {
            list.clear();
        }
        let want = (containers as usize).clamp(1, MAX_PER_NODE);
        list.reserve_exact(want.saturating_sub(list.len()));
    }

    /// `node` left: its containers are gone.
    pub(super) fn node_removed(&mut self, node: NodeId) {
        if let Some(list) = self.running.get_mut(node as usize) {
            list.clear();
        }
    }

    /// A container of `app`'s group at `priority` was granted on `node` at
    /// `at` (ms). Not remembered on a node that did not register or has its
    /// capacity's worth running.
    pub(super) fn started(&mut self, node: NodeId, app: AppId, priority: i32, at: i64) {
        if let Some(list) = self.running.get_mut(node as usize) {
            if list.len() < list.capacity() {
                list.push(Run { app, priority, at });
            }
        }
    }

    /// A container on `node` finished at `now`: with `app`, its oldest one
    /// there, returned as (priority, run time in ms); without, the node's
    /// oldest is forgotten and nothing returned (whose it was is a guess).
    /// A container never granted here (recovered, or not remembered) finds
    /// nothing and is ignored.
    pub(super) fn finished(
        &mut self,
        node: NodeId,
        app: Option<AppId>,
        now: i64,
    ) -> Option<(i32, f64)> {
        let list = self.running.get_mut(node as usize)?;
        let i = list
            .iter()
            .enumerate()
            .filter(|(_, r)| app.is_none_or(|a| a == r.app))
            .min_by_key(|(_, r)| r.at)
            .map(|(i, _)| i)?;
        let r = list.swap_remove(i);
        app?;
        Some((r.priority, now.saturating_sub(r.at).max(0) as f64))
    }
}

/// The finished containers of one stage (an ask group): their count and
/// their summed work, each its run time times its node's speed (the time
/// it would have taken at speed 1, as if it were all compute).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct StageTime {
    pub(super) n: u32,
    pub(super) work_ms: f64,
}

impl StageTime {
    pub(super) fn add(&mut self, work_ms: f64) {
        self.n = self.n.saturating_add(1);
        self.work_ms += work_ms;
    }

    pub(super) fn merge(self, o: StageTime) -> StageTime {
        StageTime {
            n: self.n.saturating_add(o.n),
            work_ms: self.work_ms + o.work_ms,
        }
    }

    /// Mean work of a container, once one finished.
    pub(super) fn mean(self) -> Option<f64> {
        (self.n > 0).then(|| self.work_ms / f64::from(self.n))
    }
}

/// Reducers' work over their jobs' map work, summed over every reducer that
/// finished after its job's maps had a finished container: what a job's
/// reducer is estimated at, as a share of its own maps, before one of its
/// reducers finished.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct ReduceRatio {
    reduce_ms: f64,
    map_ms: f64,
}

impl ReduceRatio {
    /// A reducer of `work_ms` finished; its job's map mean is `map_ms`.
    pub(super) fn add(&mut self, work_ms: f64, map_ms: f64) {
        if map_ms > 0.0 && work_ms.is_finite() && map_ms.is_finite() {
            self.reduce_ms += work_ms;
            self.map_ms += map_ms;
        }
    }

    pub(super) fn get(self) -> Option<f64> {
        (self.map_ms > 0.0).then(|| self.reduce_ms / self.map_ms)
    }
}

/// Bounds of a reducer's size in map containers, in the plan.
const MIN_SIZE: f64 = 1e-2;
const MAX_SIZE: f64 = 1e2;

/// A reducer's estimated work (ms x speed) and its size in its job's map
/// containers, from its stage's finished containers (`own`), else its
/// job's map mean (`map_ms`) times the reduce ratio; `None` when neither
/// is known (the caller falls back on the job's mean container).
pub(super) fn reducer_work(
    own: StageTime,
    map_ms: Option<f64>,
    ratio: ReduceRatio,
) -> Option<(f64, f64)> {
    let map_ms = map_ms.filter(|&m| m > 0.0 && m.is_finite());
    let (work, size) = match own.mean() {
        Some(w) => (w, map_ms.map_or(1.0, |m| w / m)),
        None => {
            let r = ratio.get()?;
            (map_ms? * r, r)
        }
    };
    let size = if size.is_finite() && size > 0.0 {
        size.clamp(MIN_SIZE, MAX_SIZE)
    } else {
        1.0
    };
    Some((work, size))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finish_goes_to_the_apps_oldest_container_on_the_node() {
        let mut c = StageClock::default();
        c.node_added(0, 4, true);
        c.started(0, 1, 20, 0);
        c.started(0, 2, 20, 100);
        c.started(0, 1, 10, 500);
        assert_eq!(c.finished(0, Some(1), 1_000), Some((20, 1_000.0)));
        assert_eq!(c.finished(0, Some(1), 2_000), Some((10, 1_500.0)));
        assert_eq!(c.finished(0, Some(1), 2_000), None, "none of app 1 left");
        assert_eq!(c.finished(0, Some(2), 2_100), Some((20, 2_000.0)));
    }

    #[test]
    fn unknown_containers_are_ignored() {
        let mut c = StageClock::default();
        assert_eq!(c.finished(3, Some(0), 10), None, "unregistered node");
        c.node_added(0, 1, true);
        assert_eq!(c.finished(0, Some(0), 10), None, "nothing granted");
        c.started(0, 0, 10, 0);
        c.started(0, 0, 20, 5);
        assert_eq!(c.running[0].len(), 1, "beyond the node's capacity");
        assert_eq!(c.finished(0, Some(7), 10), None, "another app's");
        assert_eq!(c.finished(0, None, 10), None, "whose is not said");
        assert!(c.running[0].is_empty(), "but the slot is forgotten");
        c.started(5, 0, 10, 0);
        c.node_added(0, 2, true);
        c.started(0, 0, 10, 0);
        c.node_removed(0);
        assert_eq!(c.finished(0, Some(0), 10), None, "the node left");
    }

    #[test]
    fn grants_and_finishes_do_not_allocate() {
        let mut c = StageClock::default();
        c.node_added(0, 3, true);
        let cap = c.running[0].capacity();
        for round in 0..10 {
            for k in 0..5 {
                c.started(0, k, 10, round);
            }
            for k in 0..5 {
                c.finished(0, Some(k), round + 1);
            }
        }
        assert_eq!(c.running[0].capacity(), cap);
        // A larger capacity reserves more, keeping what runs.
        c.started(0, 1, 10, 0);
        c.node_added(0, 8, false);
        assert!(c.running[0].capacity() >= 8);
        assert_eq!(c.finished(0, Some(1), 4), Some((10, 4.0)));
    }

    #[test]
    fn stage_means_and_the_reduce_ratio() {
        let mut s = StageTime::default();
        assert_eq!(s.mean(), None);
        s.add(2_000.0);
        s.add(4_000.0);
        assert_eq!(s.mean(), Some(3_000.0));
        let t = StageTime {
            n: 1,
            work_ms: 6_000.0,
        };
        assert_eq!(s.merge(t).mean(), Some(4_000.0));
        let mut r = ReduceRatio::default();
        assert_eq!(r.get(), None);
        r.add(1_000.0, 0.0);
        assert_eq!(r.get(), None, "no map time: no ratio");
        r.add(1_000.0, 8_000.0);
        r.add(3_000.0, 8_000.0);
        assert_eq!(r.get(), Some(0.25));
    }

    #[test]
    fn a_reducers_work_from_its_stage_else_its_maps_scaled() {
        let none = StageTime::default();
        let ratio = |reduce_ms, map_ms| {
            let mut r = ReduceRatio::default();
            r.add(reduce_ms, map_ms);
            r
        };
        let own = StageTime {
            n: 2,
            work_ms: 4_000.0,
        };
        // Its own reducers first, sized against its maps.
        assert_eq!(
            reducer_work(own, Some(8_000.0), ratio(1.0, 1.0)),
            Some((2_000.0, 0.25))
        );
        assert_eq!(
            reducer_work(own, None, ratio(1.0, 1.0)),
            Some((2_000.0, 1.0))
        );
        // Else its maps times the ratio other jobs showed.
        assert_eq!(
            reducer_work(none, Some(8_000.0), ratio(1_000.0, 4_000.0)),
            Some((2_000.0, 0.25))
        );
        assert_eq!(reducer_work(none, None, ratio(1_000.0, 4_000.0)), None);
        assert_eq!(
            reducer_work(none, Some(8_000.0), ReduceRatio::default()),
            None
        );
        // A size far off is held to the plan's bounds; a map of 0 ms is no unit.
        let tiny = StageTime { n: 1, work_ms: 1.0 };
        assert_eq!(
            reducer_work(tiny, Some(1e6), ReduceRatio::default()),
            Some((1.0, MIN_SIZE))
        );
        assert_eq!(
            reducer_work(tiny, Some(0.0), ReduceRatio::default()),
            Some((1.0, 1.0))
        );
    }
}
