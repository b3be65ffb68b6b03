//! Decisions for a host that places containers itself: the RM plugin's
//! CapacityScheduler mode. There the CapacityScheduler decides how much
//! each queue and user gets and places every container; the Session only
//! says where each application's work may go and in what order jobs rank.
//!
//! - [`Session::node_offers`] is a node's decision at its heartbeat: the
//!   (application, priority) pairs the plan puts on it now, each with the
//!   containers planned there and its planned locality. It books nothing:
//!   the host grants from it (or not, when a queue or user limit says no)
//!   and reports each container it placed through [`Session::book_placed`].
//!   A pair is offered on every node whose queue holds its work within the
//!   first [`OFFER_SCAN`] entries, so the acceptable nodes of an
//!   application are all its planned holders, not one queue's head.
//! - [`Session::app_ranks`] is the job order (one rank per application),
//!   with [`Session::order_signature`] to tell when it changed.
//!
//! The serves are the heartbeat's own ([`Session::node_heartbeat`]):
//! overdue groups (the locality-wait cap), node-local work of jobs ranked
//! ahead of the queue head, the planned queue, and, with nothing valid
//! queued, the policy's free-slot answer; a policy name means the same in
//! both. Reducers (asks with no location) are not offered: where they run is
//! the host's choice.

use crate::model::{Locality, NodeId, NONE};

use super::heartbeat::MAX_GRANTS_PER_HEARTBEAT;
use super::{AppId, Resources, Session, SessionError, Slot};

/// Most queue entries of a node one decision looks at.
pub const OFFER_SCAN: usize = 256;

/// Most (application, priority) pairs one decision names.
pub const MAX_OFFERS: usize = 32;

/// One entry of a node's decision: `count` containers of `app` at
/// `priority` may run on the node now, planned at `locality`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeOffer {
    pub app: AppId,
    pub priority: i32,
    pub count: u32,
    pub locality: Locality,
}

impl Session {
    /// The decision for `node` at its heartbeat at `now_ms`, with `free`
    /// resources and `running` containers (the host's count, every
    /// container; it replaces the Session's, which only hears of the
    /// containers it books), written to `out` (cleared first) in the order
    /// the heartbeat would serve them. Books nothing, except that a task
    /// the policy steals for this node moves into its queue (it stays
    /// planned, here). Allocates nothing unless a re-plan is due.
    pub fn node_offers(
        &mut self,
        node: NodeId,
        free: Resources,
        running: u32,
        now_ms: i64,
        out: &mut Vec<NodeOffer>,
    ) -> Result<(), SessionError> {
        out.clear();
        self.node(node)?;
        // The count first: a plan due now sees the node's load.
        self.clock.now_ms = self.clock.now_ms.max(now_ms);
        self.sync_running(node, running);
        self.begin_heartbeat(node, now_ms);
        let head = self.head_rank(node);
        self.overdue_slots(node, &free, u32::MAX, |s| {
            let n = self.fitting(&s, &free);
            !offer(out, s, Count::Fits(n))
        });
        self.ranked_local(node, &free, head, |s| {
            let n = self.fitting(&s, &free);
            !offer(out, s, Count::Fits(n))
        });
        let queued = out.len();
        let n = &self.nodes[node as usize];
        for s in n.queue.iter().take(OFFER_SCAN) {
            let Some(s) = self.resolve(s).filter(|s| self.valid(n, s)) else {
                continue;
            };
            if !offer(out, s, Count::Entry) {
                break;
            }
        }
        if out.len() == queued && n.queue.is_empty() {
            self.offer_fallback(node, free, out);
        }
        Ok(())
    }

    /// The policy's free-slot answer for a node with nothing queued. A
    /// stolen task (taken off another node's queue) joins this node's queue,
    /// and stealing goes on while the node has room; any other answer is
    /// one offer of as many containers as fit.
    fn offer_fallback(&mut self, node: NodeId, free: Resources, out: &mut Vec<NodeOffer>) {
        let mut room = free;
        for _ in 0..MAX_GRANTS_PER_HEARTBEAT {
            if !room.fits(&self.asks.min_ask) {
                break;
            }
            let queued = self.queued_total;
            let Some(s) = self.fallback(node, &room) else {
                break;
            };
            if self.queued_total < queued {
                self.nodes[node as usize].queue.push_back(s);
                self.queued_total += 1;
                let cap = self.capability(&s);
                room.memory_mb -= cap.memory_mb;
                room.vcores -= cap.vcores;
                if !offer(out, s, Count::Entry) {
                    break;
                }
            } else {
                let n = self.fitting(&s, &room);
                offer(out, s, Count::Fits(n));
                break;
            }
        }
    }

    /// Containers of `s`'s group that `free` holds, at most its asks.
    fn fitting(&self, s: &Slot, free: &Resources) -> u32 {
        let g = &self.apps[s.app as usize].groups[s.group as usize];
        free.slots_of(&g.capability).min(g.any.max(0) as u32)
    }

    /// The host's count of containers on `node`. A drop stands for that
    /// many finished containers (the oldest timed ones, for `asm1-priced`).
    fn sync_running(&mut self, node: NodeId, running: u32) {
        let had = self.nodes[node as usize].running;
        if let Some(d) = &mut self.durations {
            for _ in running..had {
                d.finished(node, None, self.clock.now_ms);
            }
        }
        self.running_total = self.running_total - u64::from(had) + u64::from(running);
        self.nodes[node as usize].running = running;
    }

    /// A container the host placed on `node` for `app`'s asks at `priority`,
    /// at `locality`: booked as a heartbeat's grant is, with the plan's
    /// entry for it on this node if there is one. False (nothing booked)
    /// when the Session holds no asks of the app at that priority (they
    /// reach it with the app's next update).
    pub fn book_placed(
        &mut self,
        node: NodeId,
        app: AppId,
        priority: i32,
        locality: Locality,
        now_ms: i64,
    ) -> Result<bool, SessionError> {
        self.node(node)?;
        let a = self.app_mut(app)?;
        let Some(gi) = a
            .groups
            .iter()
            .position(|g| g.priority == priority && g.any > 0)
        else {
            return Ok(false);
        };
        self.clock.now_ms = self.clock.now_ms.max(now_ms);
        let n = &self.nodes[node as usize];
        let planned = n.queue.iter().take(OFFER_SCAN).position(|s| {
            s.app == app
                && s.priority == priority
                && self.resolve(s).is_some_and(|r| self.valid(n, &r))
        });
        let task = match planned {
            Some(i) => {
                let s = self.nodes[node as usize].queue.remove(i);
                self.queued_total -= 1;
                s.map_or(NONE, |s| s.task)
            }
            None => NONE,
        };
        self.booked.clear();
        // The planned task, not the MR AM's: in the CapacityScheduler mode
        // booking the AM's task lowered the node-local map grants (6 of 8 in
        // one `hadoop-bench --quick` WordCount, against 8 of 8 in four runs
        // before; not understood yet), while the whole-scheduler mode gained.
        self.book(
            node,
            Slot {
                app,
                group: gi as u32,
                priority,
                task,
                locality,
            },
            false,
        );
        Ok(true)
    }

    /// A container the host placed for `app` ended at `now_ms`: the app's
    /// running count (its usage, S-PC's work estimate) drops. Node counts
    /// come with [`Self::node_offers`]. An app that finished is no error.
    pub fn placed_released(&mut self, app: AppId, now_ms: i64) -> Result<(), SessionError> {
        let a = self
            .apps
            .get_mut(app as usize)
            .ok_or(SessionError::UnknownApp(app))?;
        a.advance(now_ms);
        if a.running > 0 {
            a.running -= 1;
            a.done = a.done.saturating_add(1);
        }
        Ok(())
    }

    /// The job order: the rank of each application id (0 first),
    /// `u32::MAX` for finished ones.
    pub fn app_ranks(&self) -> &[u32] {
        &self.ranking.rank
    }

    /// Changes whenever [`Self::app_ranks`] does (a hash of the order).
    pub fn order_signature(&self) -> u64 {
        self.ranking.order_sig
    }
}

/// How many containers one serve adds to a decision.
#[derive(Clone, Copy)]
enum Count {
    /// One planned queue entry: added to the pair's count.
    Entry,
    /// What fits of a serve outside the queue: the pair's count is at
    /// least this (the same group served twice is not twice the room).
    Fits(u32),
}

/// Adds `s` to the decision, keeping the pair's most local level; false
/// once the decision is full.
fn offer(out: &mut Vec<NodeOffer>, s: Slot, count: Count) -> bool {
    if matches!(count, Count::Fits(0)) {
        return true;
    }
    if let Some(o) = out
        .iter_mut()
        .find(|o| o.app == s.app && o.priority == s.priority)
    {
        o.count = match count {
            Count::Entry => o.count.saturating_add(1),
            Count::Fits(n) => o.count.max(n),
        };
        o.locality = o.locality.min(s.locality);
        return true;
    }
    if out.len() >= MAX_OFFERS {
        return false;
    }
    out.push(NodeOffer {
        app: s.app,
        priority: s.priority,
        count: match count {
            Count::Entry => 1,
            Count::Fits(n) => n,
        },
        locality: s.locality,
    });
    true
}

#[cfg(test)]
mod tests {
    use super::super::{SessionConfig, ANY, DEFAULT_MAX_WAIT_MS};
    use super::NodeOffer;
    use crate::model::{Locality, NodeId};
    use crate::session::{AppId, Resources, Session};

    fn cap() -> Resources {
        Resources::new(1024, 1)
    }

    /// Nodes h1, h2 on /r1 and h3 on /r2 (two containers each); app `a`
    /// asks for 4 containers on h1, `b` for 2 on h1 and 2 on h2.
    fn planned() -> (Session, [NodeId; 3], AppId, AppId) {
        let mut s = Session::new(SessionConfig::default());
        let two = Resources::new(2048, 2);
        let h1 = s.add_node("h1", "/r1", two, 1.0).unwrap();
        let h2 = s.add_node("h2", "/r1", two, 1.0).unwrap();
        let h3 = s.add_node("h3", "/r2", two, 1.0).unwrap();
        let a = s.add_app("a", 1.0, 0).unwrap();
        let b = s.add_app("b", 1.0, 1).unwrap();
        for (res, n) in [("h1", 4), ("/r1", 4), (ANY, 4)] {
            s.update_ask(a, 20, res, n, cap(), true).unwrap();
        }
        for (res, n) in [("h1", 2), ("h2", 2), ("/r1", 4), (ANY, 4)] {
            s.update_ask(b, 20, res, n, cap(), true).unwrap();
        }
        (s, [h1, h2, h3], a, b)
    }

    fn offers(s: &mut Session, node: NodeId, now: i64) -> Vec<NodeOffer> {
        let mut out = Vec::new();
        s.node_offers(node, Resources::new(2048, 2), 0, now, &mut out)
            .unwrap();
        out
    }

    #[test]
    fn offers_book_nothing_and_name_every_pair_planned_on_the_node() {
        let (mut s, [h1, h2, h3], a, b) = planned();
        let first = offers(&mut s, h1, 0);
        let queued = s.queued();
        assert_eq!(offers(&mut s, h1, 0), first, "a second look is the same");
        assert_eq!(s.queued(), queued, "offers pop nothing");
        let pairs: Vec<_> = first.iter().map(|o| (o.app, o.locality)).collect();
        assert!(pairs.contains(&(a, Locality::Node)), "{first:?}");
        assert!(pairs.contains(&(b, Locality::Node)), "{first:?}");
        let on_h1: u32 = first.iter().map(|o| o.count).sum();
        assert_eq!(on_h1 as usize, queued[h1 as usize], "{first:?} {queued:?}");
        // asm1 runs local tasks only: h3 (nobody's replica) is offered nothing.
        assert!(offers(&mut s, h3, 0).is_empty());
        let h2_offers = offers(&mut s, h2, 0);
        assert!(h2_offers.iter().all(|o| o.app == b), "{h2_offers:?}");
    }

    #[test]
    fn a_placed_container_is_booked_as_the_heartbeat_grants_it() {
        // The same grant through the heartbeat and through offers + booking
        // leaves the two Sessions alike: same queues, same next grants.
        let (mut hb, [h1, h2, _], _, _) = planned();
        let (mut cs, _, _, _) = planned();
        let mut grants = Vec::new();
        hb.node_heartbeat(h1, cap(), 0, &mut grants).unwrap();
        assert_eq!(grants.len(), 1);
        let g = grants[0];
        let first = offers(&mut cs, h1, 0)[0];
        assert_eq!(
            (first.app, first.priority, first.locality),
            (g.app, g.priority, g.locality)
        );
        assert!(cs
            .book_placed(h1, g.app, g.priority, g.locality, 0)
            .unwrap());
        assert_eq!(hb.queued(), cs.queued());
        for node in [h1, h2, h1] {
            let mut x = Vec::new();
            hb.node_heartbeat(node, cap(), 10, &mut grants).unwrap();
            cs.node_heartbeat(node, cap(), 10, &mut x).unwrap();
            assert_eq!(grants, x, "node {node}");
        }
    }

    #[test]
    fn booking_every_planned_container_takes_the_pair_off_the_node() {
        let (mut s, [h1, ..], a, _) = planned();
        let o = offers(&mut s, h1, 0);
        let mine = *o.iter().find(|o| o.app == a).unwrap();
        for _ in 0..mine.count {
            assert!(s.book_placed(h1, a, 20, Locality::Node, 0).unwrap());
        }
        let after = offers(&mut s, h1, 0);
        assert!(after.iter().all(|o| o.app != a), "{after:?}");
    }

    /// A grant restarts the wait before a node's queue (h2 holds b's
    /// plan), not an idle node's: a's asks are still pending past the cap.
    #[test]
    fn overdue_work_is_offered_on_every_node_and_a_grant_restarts_its_wait() {
        let (mut s, [_, h2, h3], a, _) = planned();
        assert!(offers(&mut s, h3, 0).is_empty());
        let late = offers(&mut s, h3, DEFAULT_MAX_WAIT_MS + 600);
        let o = late.iter().find(|o| o.app == a).expect("a is overdue");
        assert_eq!(o.locality, Locality::OffSwitch, "h3 is on the other rack");
        assert_eq!(o.count, 2, "as many as fit");
        let on_h2 = offers(&mut s, h2, DEFAULT_MAX_WAIT_MS + 600);
        assert!(on_h2
            .iter()
            .any(|o| o.app == a && o.locality == Locality::Rack));
        assert!(s
            .book_placed(h3, a, 20, Locality::OffSwitch, DEFAULT_MAX_WAIT_MS + 700)
            .unwrap());
        let after = offers(&mut s, h2, DEFAULT_MAX_WAIT_MS + 1300);
        assert!(after.iter().all(|o| o.app != a), "{after:?}");
        let idle = offers(&mut s, h3, DEFAULT_MAX_WAIT_MS + 1300);
        assert!(idle.iter().any(|o| o.app == a), "{idle:?}");
    }

    #[test]
    fn a_stolen_task_joins_the_offering_nodes_queue() {
        // Each of a's 6 tasks has a replica on h1 and h2; h2 runs 40
        // containers when the plan is made, so h1's queue holds them all.
        let mut s = Session::new(SessionConfig::default());
        s.add_node("h1", "/r1", cap(), 1.0).unwrap();
        let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
        let a = s.add_app("a", 1.0, 0).unwrap();
        for (res, n) in [("h1", 6), ("h2", 6), ("/r1", 6), (ANY, 6)] {
            s.update_ask(a, 20, res, n, cap(), true).unwrap();
        }
        let mut out = Vec::new();
        s.node_offers(h2, Resources::default(), 40, 0, &mut out)
            .unwrap();
        assert_eq!(s.queued(), vec![6, 0]);
        // h2 is free again: with nothing queued, it steals one of h1's.
        s.node_offers(h2, cap(), 0, 1, &mut out).unwrap();
        assert_eq!(s.queued(), vec![5, 1], "moved, not lost");
        let stolen = NodeOffer {
            app: a,
            priority: 20,
            count: 1,
            locality: Locality::Node,
        };
        assert_eq!(out, vec![stolen]);
        s.node_offers(h2, cap(), 0, 2, &mut out).unwrap();
        assert_eq!(
            s.queued(),
            vec![5, 1],
            "its queue holds it: no second steal"
        );
        assert_eq!(out, vec![stolen]);
    }

    #[test]
    fn ranks_follow_the_job_order_and_the_signature_tells_a_change() {
        let (mut s, [h1, ..], a, b) = planned();
        offers(&mut s, h1, 0);
        let ranks = s.app_ranks().to_vec();
        assert_eq!(ranks.len(), 2);
        assert_ne!(ranks[a as usize], ranks[b as usize]);
        let sig = s.order_signature();
        s.finish_app(a).unwrap();
        assert_ne!(s.order_signature(), sig);
        assert_eq!(s.app_ranks()[a as usize], u32::MAX);
        assert_eq!(s.app_ranks()[b as usize], 0);
    }

    #[test]
    fn bad_bookings_are_refused_or_ignored_with_their_reason() {
        let (mut s, [h1, ..], a, _) = planned();
        assert!(
            !s.book_placed(h1, a, 7, Locality::Node, 0).unwrap(),
            "no asks at 7"
        );
        assert_eq!(
            s.book_placed(9, a, 20, Locality::Node, 0)
                .unwrap_err()
                .to_string(),
            "node id 9 is not registered"
        );
        assert_eq!(
            s.book_placed(h1, 5, 20, Locality::Node, 0)
                .unwrap_err()
                .to_string(),
            "application id 5 is not registered"
        );
        s.finish_app(a).unwrap();
        assert_eq!(
            s.book_placed(h1, a, 20, Locality::Node, 0)
                .unwrap_err()
                .to_string(),
            "application \"a\" has finished"
        );
        s.placed_released(a, 0).unwrap();
        assert_eq!(
            s.placed_released(5, 0).unwrap_err().to_string(),
            "application id 5 is not registered"
        );
    }

    #[test]
    fn the_hosts_running_count_replaces_the_sessions() {
        let (mut s, [h1, ..], a, _) = planned();
        s.book_placed(h1, a, 20, Locality::Node, 0).unwrap();
        assert_eq!(s.nodes[h1 as usize].running, 1);
        offers(&mut s, h1, 0);
        assert_eq!(s.nodes[h1 as usize].running, 0);
        assert_eq!(s.running_total, 0);
        let mut out = Vec::new();
        s.node_offers(h1, cap(), 5, 0, &mut out).unwrap();
        assert_eq!(s.running_total, 5);
    }
}
