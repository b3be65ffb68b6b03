//! The application order in the Session (`session/job_order.rs`, the
//! ranking in `session/mod.rs`): weighted remaining work, reducers of a job
//! whose maps started, bounded overtaking.

use crate::model::NodeId;
use crate::session::{AppId, JobOrder, LaterGrants, Planning, Resources, Session, ANY};

use super::{cap, ordered};

/// A big job submitted first and a small one after, both local to h1 only.
fn big_then_small(s: &mut Session) -> (NodeId, AppId, AppId) {
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let big = s.add_app("big", 1.0, 0).unwrap();
    let small = s.add_app("small", 1.0, 1).unwrap();
    for (app, n) in [(big, 10), (small, 2)] {
        for res in ["h1", "/r1", ANY] {
            s.update_ask(app, 20, res, n, cap(), false).unwrap();
        }
    }
    (h1, big, small)
}

#[test]
fn weighted_remaining_order_serves_the_smaller_job_first_and_fifo_does_not() {
    let mut out = Vec::new();
    let mut s = ordered(JobOrder::WeightedRemaining);
    let (h1, _, small) = big_then_small(&mut s);
    s.node_heartbeat(h1, cap(), 0, &mut out).unwrap();
    assert_eq!(out[0].app, small, "2 pending containers before 10");
    let mut s = ordered(JobOrder::Fifo);
    let (h1, big, _) = big_then_small(&mut s);
    s.node_heartbeat(h1, cap(), 0, &mut out).unwrap();
    assert_eq!(out[0].app, big, "submission order");
    // The weight divides the remaining work: a big job of weight 10 ranks first.
    let mut s = ordered(JobOrder::WeightedRemaining);
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let heavy = s.add_app("heavy", 10.0, 5).unwrap();
    let light = s.add_app("light", 1.0, 0).unwrap();
    for (app, n) in [(heavy, 10), (light, 2)] {
        for res in ["h1", "/r1", ANY] {
            s.update_ask(app, 20, res, n, cap(), false).unwrap();
        }
    }
    s.node_heartbeat(h1, cap(), 0, &mut out).unwrap();
    assert_eq!(out[0].app, heavy, "10 / 10 < 2 / 1");
}

#[test]
fn a_job_whose_maps_all_started_gets_its_reducer_before_later_jobs_maps() {
    let mut out = Vec::new();
    for order in JobOrder::ALL {
        let mut s = ordered(order);
        let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
        let first = s.add_app("first", 1.0, 0).unwrap();
        let second = s.add_app("second", 1.0, 1).unwrap();
        // `first` is in its reduce phase: one location-less ask at priority 10.
        s.update_ask(first, 10, ANY, 1, cap(), true).unwrap();
        for res in ["h1", "/r1", ANY] {
            s.update_ask(second, 20, res, 5, cap(), true).unwrap();
        }
        s.node_heartbeat(h1, cap(), 0, &mut out).unwrap();
        let want = match order {
            // FIFO keeps the planned maps first (the reducer waits for the queue).
            JobOrder::Fifo => (second, 20),
            // One container against five: shorter (S-PC's LPs, HUWF),
            // smaller (Tetris), maps done (Map-only).
            _ => (first, 10),
        };
        assert_eq!((out[0].app, out[0].priority), want, "{order:?}");
    }
    // A job with maps still pending does not get its reducer ahead of them.
    let mut s = ordered(JobOrder::WeightedRemaining);
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let a = s.add_app("a", 1.0, 0).unwrap();
    s.update_ask(a, 10, ANY, 1, cap(), true).unwrap();
    for (res, n) in [("h1", 1), ("/r1", 1), (ANY, 1)] {
        s.update_ask(a, 20, res, n, cap(), true).unwrap();
    }
    s.node_heartbeat(h1, cap(), 0, &mut out).unwrap();
    assert_eq!(out[0].priority, 20, "the map local to h1 first");
}

/// An app that registered while a plan is in flight asks nothing yet: it
/// ranks last until the next re-rank, so its asks do not jump every
/// queue ahead of a planned small job.
#[test]
fn a_new_app_does_not_jump_the_queues_before_it_is_ranked() {
    let mut s = ordered(JobOrder::WeightedRemaining);
    s.set_planning(Planning::Modelled {
        base_ms: 1_000.0,
        per_million_tasks_ms: 0.0,
    });
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let small = s.add_app("small", 1.0, 0).unwrap();
    for res in ["h1", "/r1", ANY] {
        s.update_ask(small, 20, res, 4, cap(), true).unwrap();
    }
    let mut out = Vec::new();
    let none = Resources::new(0, 0);
    // The first plan starts and is installed 1 s later.
    s.node_heartbeat(h2, none, 0, &mut out).unwrap();
    s.node_heartbeat(h2, none, 1_000, &mut out).unwrap();
    assert_eq!(s.queued(), vec![4, 0], "the plan");
    // A second plan is in flight when the new app registers and asks.
    s.update_ask(small, 20, ANY, 5, cap(), true).unwrap();
    s.node_heartbeat(h2, none, 1_000, &mut out).unwrap();
    let late = s.add_app("late", 1.0, 1_000).unwrap();
    for res in ["h1", "/r1", ANY] {
        s.update_ask(late, 20, res, 100, cap(), true).unwrap();
    }
    s.node_heartbeat(h1, cap(), 1_100, &mut out).unwrap();
    assert_eq!(out[0].app, small, "{out:?}");
}

/// One slot on h1; a big job (3 maps there) and, one after another, later
/// jobs of one map each, every one granted and finished before the next
/// arrives. Returns which application each heartbeat served.
fn overtaking_stream(order: JobOrder, later: usize) -> (AppId, Vec<AppId>) {
    let mut s = ordered(order);
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let big = s.add_app("big", 1.0, 0).unwrap();
    for res in ["h1", "/r1", ANY] {
        s.update_ask(big, 20, res, 3, cap(), false).unwrap();
    }
    let mut out = Vec::new();
    let mut served = Vec::new();
    let mut big_left = 3;
    for i in 0..later {
        let t = 1_000 * (i as i64 + 1);
        let small = s.add_app(&format!("small{i}"), 1.0, t).unwrap();
        for res in ["h1", "/r1", ANY] {
            s.update_ask(small, 20, res, 1, cap(), false).unwrap();
        }
        s.node_heartbeat(h1, cap(), t, &mut out).unwrap();
        assert_eq!(out.len(), 1, "one slot, one grant");
        let app = out[0].app;
        served.push(app);
        s.app_container_finished(h1, app).unwrap();
        // The AM's update after the grant: one map fewer.
        let left = if app == big {
            big_left -= 1;
            big_left
        } else {
            0
        };
        for res in ["h1", "/r1", ANY] {
            s.update_ask(app, 20, res, left, cap(), false).unwrap();
        }
    }
    (big, served)
}

/// Bounded overtaking (`OVERTAKE_BOUND`): Smith's rule serves each later
/// one-map job before the big one, but once later jobs took as many
/// containers as the big job has (3; nothing was ahead of it), it goes
/// first for a wave of the cluster (one container), then waits again.
#[test]
fn a_job_overtaken_by_its_own_size_goes_first_for_a_wave() {
    let (big, served) = overtaking_stream(JobOrder::WeightedRemaining, 9);
    let got: Vec<bool> = served.iter().map(|&a| a == big).collect();
    let (o, x) = (false, true);
    // Last, one map left each: the tie goes to the older job.
    assert_eq!(got, [o, o, o, x, o, o, o, x, x], "{served:?}");
    // Under FIFO it goes first anyway: nothing overtakes it.
    let (big, served) = overtaking_stream(JobOrder::Fifo, 3);
    assert_eq!(served, vec![big; 3]);
}

#[test]
fn later_grants_sum_what_went_to_later_applications() {
    let mut g = LaterGrants::default();
    let mut brute = Vec::new();
    // Grants interleaved with registrations, as a session sees them.
    for (i, &app) in [0u32, 0, 1, 3, 2, 3, 5, 4, 0, 6, 6, 1].iter().enumerate() {
        while brute.len() <= app as usize + i % 3 {
            g.push();
            brute.push(0u64);
        }
        g.granted(app);
        brute[app as usize] += 1;
        for a in 0..brute.len() {
            let want: u64 = brute[a + 1..].iter().sum();
            assert_eq!(g.after(a as AppId), want, "app {a} after grant {i}");
        }
    }
}
