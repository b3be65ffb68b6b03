//! Why a heartbeat granted nothing: the answer to an admin's "why does my
//! job not get containers?", as the CapacityScheduler's activities REST
//! API answers it for its own skips.
//!
//! A node heartbeat with room (its free resources fit the smallest ask)
//! that grants nothing records one entry for the node and one for each of
//! the first [`EXPLAIN_APPS`] applications in job order it passed over,
//! each with a [`Reason`]. Entries go into a ring of fixed capacity,
//! reserved at start, so recording never allocates: a counter bump and a
//! fixed-size write. The same subject (node or application) idling for the
//! same reason again extends its last entry (`repeats`, `last_ms`) instead
//! of taking a new one, so a steady idle cluster does not flush the ring.

use serde::Serialize;

use crate::model::{NodeId, NONE};

use super::AppId;

/// Applications classified at an idle heartbeat, in job order: the ones the
/// order serves next. Those further back wait behind these.
pub const EXPLAIN_APPS: usize = 8;

/// Default ring capacity (entries of 48 bytes).
pub const DEFAULT_ACTIVITIES: usize = 4096;

/// Why a node with room got nothing, or an application was passed over.
/// There is no queue or user limit in the whole-scheduler mode (one queue);
/// in the CapacityScheduler mode the CapacityScheduler's own activities
/// name those.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// No application asks for containers.
    NoAsk,
    /// The plan put none of the work this node could run on it (its
    /// local tasks are planned on other replica holders).
    NoPlannedWork,
    /// The application's data is on other nodes; it waits for one of them
    /// (until `until_ms` under the locality-wait cap, else until the
    /// policy's delay lets it go remote).
    LocalityWait,
    /// The job order put another application first.
    JobOrder,
    /// No ask fits the node's free resources.
    NoRoom,
}

impl Reason {
    pub const ALL: [Reason; 5] = [
        Reason::NoAsk,
        Reason::NoPlannedWork,
        Reason::LocalityWait,
        Reason::JobOrder,
        Reason::NoRoom,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Reason::NoAsk => "no-ask",
            Reason::NoPlannedWork => "no-planned-work",
            Reason::LocalityWait => "locality-wait",
            Reason::JobOrder => "job-order",
            Reason::NoRoom => "no-room",
        }
    }

    /// One line for an admin.
    pub fn describe(self) -> &'static str {
        match self {
            Reason::NoAsk => "no application asks for containers",
            Reason::NoPlannedWork => "no planned work for this node",
            Reason::LocalityWait => "waiting for locality",
            Reason::JobOrder => "the job order put another application first",
            Reason::NoRoom => "no ask fits the node's free resources",
        }
    }
}

/// One recorded skip. `app` is [`NONE`] for a node's own entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Activity {
    /// Position in the record (0 first); a ring slot holds `seq % capacity`.
    pub seq: u64,
    pub first_ms: i64,
    pub last_ms: i64,
    /// Idle heartbeats this entry stands for.
    pub repeats: u32,
    pub node: NodeId,
    pub app: AppId,
    pub reason: Reason,
    /// Under [`Reason::LocalityWait`]: when the locality-wait cap lets the
    /// application go remote; -1 when no cap applies.
    pub until_ms: i64,
}

/// The bounded record and its counts by reason.
#[derive(Debug)]
pub struct Activities {
    ring: Vec<Activity>,
    capacity: usize,
    next: u64,
    counts: [u64; Reason::ALL.len()],
}

impl Activities {
    /// A record of `capacity` entries (at least 1), reserved now.
    pub fn new(capacity: usize) -> Activities {
        let capacity = capacity.max(1);
        Activities {
            ring: Vec::with_capacity(capacity),
            capacity,
            next: 0,
            counts: [0; Reason::ALL.len()],
        }
    }

    /// Records a skip of `node` (and `app`, or [`NONE`]) at `now` for
    /// `reason`; extends the entry `last` (the subject's previous seq, or
    /// `u64::MAX`) if it is still in the ring with the same subject (the
    /// node, or the app on any node) and reason. Returns the entry's seq, the subject's next `last`.
    pub fn record(
        &mut self,
        last: u64,
        now: i64,
        node: NodeId,
        app: AppId,
        reason: Reason,
        until_ms: i64,
    ) -> u64 {
        self.counts[reason as usize] += 1;
        if last < self.next && self.next - last <= self.capacity as u64 {
            let e = &mut self.ring[(last % self.capacity as u64) as usize];
            // An application's entry follows it from node to node.
            let same = e.app == app && (app != NO_APP || e.node == node);
            if e.seq == last && same && e.reason == reason {
                e.node = node;
                e.last_ms = now;
                e.repeats = e.repeats.saturating_add(1);
                e.until_ms = until_ms;
                return last;
            }
        }
        let e = Activity {
            seq: self.next,
            first_ms: now,
            last_ms: now,
            repeats: 1,
            node,
            app,
            reason,
            until_ms,
        };
        let slot = (self.next % self.capacity as u64) as usize;
        if slot < self.ring.len() {
            self.ring[slot] = e;
        } else {
            self.ring.push(e);
        }
        self.next += 1;
        e.seq
    }

    /// Idle heartbeats and passed-over applications counted by reason, since start.
    pub fn counts(&self) -> [(Reason, u64); Reason::ALL.len()] {
        Reason::ALL.map(|r| (r, self.counts[r as usize]))
    }

    /// The entries still held, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &Activity> {
        let start = if self.ring.len() < self.capacity {
            0
        } else {
            (self.next % self.capacity as u64) as usize
        };
        self.ring[start..].iter().chain(self.ring[..start].iter())
    }

    /// The entries about `app` (if given) on `node` (if given), oldest first.
    pub fn matching(
        &self,
        app: Option<AppId>,
        node: Option<NodeId>,
    ) -> impl Iterator<Item = &Activity> {
        self.iter()
            .filter(move |e| app.is_none_or(|a| e.app == a) && node.is_none_or(|n| e.node == n))
    }
}

impl Default for Activities {
    fn default() -> Activities {
        Activities::new(DEFAULT_ACTIVITIES)
    }
}

/// Node-level entries carry no application.
pub const NO_APP: AppId = NONE;

#[cfg(test)]
mod tests {
    use super::{Activities, Reason, NO_APP};

    #[test]
    fn the_ring_keeps_the_newest_and_never_grows() {
        let mut a = Activities::new(3);
        let mut last = u64::MAX;
        for (t, node) in [(0, 0), (1, 1), (2, 2), (3, 3)] {
            last = a.record(last, t, node, NO_APP, Reason::NoAsk, -1);
        }
        assert_eq!(last, 3);
        let nodes: Vec<_> = a.iter().map(|e| e.node).collect();
        assert_eq!(nodes, [1, 2, 3]);
        assert_eq!(a.ring.capacity(), 3);
        assert_eq!(a.counts()[0], (Reason::NoAsk, 4));
    }

    #[test]
    fn a_repeat_extends_the_subjects_last_entry() {
        let mut a = Activities::new(8);
        let s = a.record(u64::MAX, 10, 4, 7, Reason::LocalityWait, 3_000);
        let s2 = a.record(s, 20, 4, 7, Reason::LocalityWait, 3_010);
        assert_eq!(s, s2);
        let e = a.iter().next().unwrap();
        assert_eq!(
            (e.first_ms, e.last_ms, e.repeats, e.until_ms),
            (10, 20, 2, 3_010)
        );
        // On another node the app's entry follows it.
        assert_eq!(a.record(s2, 25, 5, 7, Reason::LocalityWait, 3_020), s);
        assert_eq!(a.iter().next().unwrap().node, 5);
        // Another reason is a new entry; all counted.
        let s3 = a.record(s2, 30, 4, 7, Reason::JobOrder, -1);
        assert_ne!(s3, s2);
        assert_eq!(a.matching(Some(7), Some(4)).count(), 1);
        assert_eq!(a.matching(Some(7), None).count(), 2);
        assert_eq!(a.matching(Some(8), None).count(), 0);
        let c = a.counts();
        assert_eq!(c[Reason::LocalityWait as usize].1, 3);
        assert_eq!(c[Reason::JobOrder as usize].1, 1);
    }

    #[test]
    fn a_stale_last_is_not_extended() {
        let mut a = Activities::new(2);
        let s = a.record(u64::MAX, 0, 0, NO_APP, Reason::NoAsk, -1);
        a.record(u64::MAX, 1, 1, NO_APP, Reason::NoAsk, -1);
        a.record(u64::MAX, 2, 2, NO_APP, Reason::NoAsk, -1);
        // Entry s was overwritten: node 0 gets a new one.
        let s2 = a.record(s, 3, 0, NO_APP, Reason::NoAsk, -1);
        assert_ne!(s, s2);
        assert_eq!(a.iter().map(|e| e.node).collect::<Vec<_>>(), [2, 0]);
    }
}
