//! Events (`session/events.rs`): nodes, applications, asks, input blocks,
//! finished and recovered containers, the event log, and bad input named.

use crate::model::Locality;
use crate::policy::PolicyKind;
use crate::session::{Grant, Resources, SessionError, SessionEvent, ANY};

use super::{cap, feed, session};

#[test]
fn askers_index_follows_asks_grants_and_finished_apps() {
    let mut s = session(PolicyKind::Asm1);
    let h1 = s
        .add_node("h1", "/r1", Resources::new(4096, 4), 1.0)
        .unwrap();
    let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let a = s.add_app("a", 1.0, 0).unwrap();
    let b = s.add_app("b", 1.0, 1).unwrap();
    for app in [a, b] {
        for (res, n) in [("h1", 2), ("/r1", 2), (ANY, 2)] {
            s.update_ask(app, 20, res, n, cap(), true).unwrap();
        }
    }
    assert!(s.askers_consistent());
    let mut out = Vec::new();
    s.node_heartbeat(h1, Resources::new(4096, 4), 0, &mut out)
        .unwrap();
    assert_eq!(out.iter().map(|g| g.count).sum::<u32>(), 4);
    assert!(s.askers_consistent());
    s.update_ask(b, 20, "h2", 1, cap(), true).unwrap();
    s.finish_app(a).unwrap();
    assert!(s.askers_consistent());
    // Nobody asks for h1 any more; b still asks for h2 but has no ANY left.
    s.node_heartbeat(h2, cap(), 0, &mut out).unwrap();
    assert!(out.is_empty());
    assert!(s.askers_consistent());
}

#[test]
fn node_updates_change_the_plan_and_name_bad_input() {
    let mut s = session(PolicyKind::Asm1);
    let big = s
        .add_node("h1", "/r1", Resources::new(4096, 4), 1.0)
        .unwrap();
    let small = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let app = s.add_app("app", 1.0, 0).unwrap();
    for (res, n) in [("h1", 8), ("h2", 8), ("/r1", 8), (ANY, 8)] {
        s.update_ask(app, 20, res, n, cap(), true).unwrap();
    }
    s.plan_if_dirty();
    let before = s.queued();
    assert!(
        before[big as usize] > before[small as usize],
        "four slots take more than one: {before:?}"
    );
    s.update_node(small, Resources::new(4096, 4)).unwrap();
    s.plan_if_dirty();
    let after = s.queued();
    assert_eq!(after[big as usize], after[small as usize], "{after:?}");
    assert_eq!(
        s.update_node(small, Resources::new(-1, 1))
            .unwrap_err()
            .to_string(),
        "node \"h2\": capacity must not be negative, got -1 MB and 1 vcores"
    );
    assert_eq!(
        s.update_node(7, cap()).unwrap_err().to_string(),
        "node id 7 is not registered"
    );
    s.remove_node(small).unwrap();
    assert_eq!(
        s.update_node(small, cap()).unwrap_err().to_string(),
        "node \"h2\" (id 1) was removed"
    );
}

#[test]
fn finished_app_work_is_dropped() {
    let mut s = session(PolicyKind::Asm1);
    let a = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let app = s.add_app("app", 1.0, 0).unwrap();
    s.update_ask(app, 20, "h1", 1, cap(), true).unwrap();
    s.update_ask(app, 20, ANY, 1, cap(), true).unwrap();
    s.plan_if_dirty();
    assert_eq!(s.queued()[a as usize], 1);
    s.finish_app(app).unwrap();
    let mut out = Vec::new();
    s.node_heartbeat(a, cap(), 0, &mut out).unwrap();
    assert!(out.is_empty());
    assert_eq!(
        s.update_ask(app, 20, ANY, 1, cap(), true)
            .unwrap_err()
            .to_string(),
        "application \"app\" has finished"
    );
}

#[test]
fn bad_events_name_what_is_wrong() {
    let mut s = session(PolicyKind::Asm1);
    let a = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    assert_eq!(
        s.add_node("h1", "/r1", cap(), 1.0).unwrap_err().to_string(),
        "node \"h1\" is already registered (id 0)"
    );
    assert_eq!(
        s.add_node("h2", "/r1", cap(), 0.0).unwrap_err().to_string(),
        "node \"h2\": speed must be a positive finite number, got 0"
    );
    assert_eq!(
        s.add_node("h3", "/r1", Resources::new(-1, 1), 1.0)
            .unwrap_err()
            .to_string(),
        "node \"h3\": capacity must not be negative, got -1 MB and 1 vcores"
    );
    let app = s.add_app("application_7_0001", 1.0, 0).unwrap();
    assert_eq!(
        s.update_ask(app, 20, "h1", -3, cap(), true).unwrap_err().to_string(),
        "application \"application_7_0001\", priority 20, resource \"h1\": container count must not be negative, got -3"
    );
    assert_eq!(
        s.add_app("application_7_0001", 1.0, 0)
            .unwrap_err()
            .to_string(),
        "application \"application_7_0001\" is already registered (id 0)"
    );
    assert_eq!(
        s.add_app("x", f64::NAN, 0).unwrap_err().to_string(),
        "application \"x\": weight must be a positive finite number, got NaN"
    );
    assert_eq!(
        s.update_ask(9, 20, ANY, 1, cap(), true).unwrap_err(),
        SessionError::UnknownApp(9)
    );
    let mut out = Vec::new();
    assert_eq!(
        s.node_heartbeat(7, cap(), 0, &mut out)
            .unwrap_err()
            .to_string(),
        "node id 7 is not registered"
    );
    s.remove_node(a).unwrap();
    assert_eq!(
        s.node_heartbeat(a, cap(), 0, &mut out)
            .unwrap_err()
            .to_string(),
        "node \"h1\" (id 0) was removed"
    );
    assert_eq!(
        s.add_node("h1", "/r2", cap(), 1.0).unwrap(),
        a,
        "a returning host keeps its id"
    );
}

#[test]
fn a_recorded_event_log_replays_to_the_same_grants() {
    let events = vec![
        SessionEvent::AddNode {
            host: "h1".into(),
            rack: "/r1".into(),
            capacity: cap(),
            speed: 1.0,
        },
        SessionEvent::AddApp {
            app: "application_1_0001".into(),
            weight: 1.0,
            submit_ms: 0,
        },
        SessionEvent::UpdateAsk {
            app: 0,
            priority: 20,
            resource: ANY.into(),
            count: 2,
            capability: cap(),
            relax_locality: true,
        },
        SessionEvent::Heartbeat {
            node: 0,
            free: cap(),
            now_ms: 1000,
        },
    ];
    let text = serde_json::to_string(&events).unwrap();
    assert!(text.contains(r#"{"event":"heartbeat","node":0"#), "{text}");
    let back: Vec<SessionEvent> = serde_json::from_str(&text).unwrap();
    assert_eq!(back, events);
    let mut s = session(PolicyKind::Asm1Comm);
    let mut out = Vec::new();
    for e in &back {
        s.apply(e, &mut out).unwrap();
    }
    assert_eq!(
        out,
        vec![Grant {
            app: 0,
            priority: 20,
            count: 1,
            locality: Locality::OffSwitch
        }]
    );
}

#[test]
fn synthesised_pool_matches_the_marginals() {
    let mut s = session(PolicyKind::Asm1);
    for h in ["h1", "h2", "h3"] {
        s.add_node(h, "/r", cap(), 1.0).unwrap();
    }
    let app = s.add_app("app", 1.0, 0).unwrap();
    for (res, n) in [("h1", 3), ("h2", 2), ("h3", 1), ("unknown-dn", 4), (ANY, 3)] {
        s.update_ask(app, 20, res, n, cap(), true).unwrap();
    }
    s.plan_if_dirty();
    let g = &s.apps[app as usize].groups[0];
    assert_eq!(g.pool.len(), 3);
    let mut per_host = [0; 3];
    for t in 0..g.pool.len() {
        for &r in g.pool.replicas.of(t) {
            per_host[r as usize] += 1;
        }
    }
    assert_eq!(per_host, [3, 2, 1]);
    assert_eq!(s.queued().iter().sum::<usize>(), 3);
}

#[test]
fn a_finished_container_of_an_app_with_none_running_is_refused_by_name() {
    let mut s = session(PolicyKind::HadoopFair);
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let a = s.add_app("application_7_0001", 1.0, 0).unwrap();
    let err = s.app_container_finished(h1, a).unwrap_err().to_string();
    assert_eq!(
        err,
        "application \"application_7_0001\": a container finished, but none granted to it is running"
    );
    assert_eq!(
        s.app_container_finished(h1, 9).unwrap_err(),
        SessionError::UnknownApp(9)
    );
}

/// A zero-sized ask would fit any node for ever: it is refused, naming the
/// app, and a tiny one on a huge node is granted at most
/// [`heartbeat::MAX_GRANTS_PER_HEARTBEAT`] containers a heartbeat, not
/// `i32::MAX`.
#[test]
fn zero_sized_asks_are_refused_and_tiny_ones_bounded_per_heartbeat() {
    let mut s = session(PolicyKind::Asm1Comm);
    let huge = Resources::new(i64::MAX / 2, i32::MAX);
    let h1 = s.add_node("h1", "/r1", huge, 1.0).unwrap();
    let app = s.add_app("application_1_0001", 1.0, 0).unwrap();
    let err = s
        .update_ask(app, 20, ANY, 5, Resources::new(0, 0), true)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("application_1_0001") && err.contains("capability must not be zero"),
        "{err}"
    );
    // Cancelling with a zero capability is harmless.
    s.update_ask(app, 20, ANY, 0, Resources::new(0, 0), true)
        .unwrap();
    s.update_ask(app, 20, ANY, i32::MAX, Resources::new(1, 0), true)
        .unwrap();
    // Off the off-switch limit's way (ANY-only asks are off-switch).
    s.set_offswitch_per_heartbeat(u32::MAX);
    let mut out = Vec::new();
    s.node_heartbeat(h1, huge, 0, &mut out).unwrap();
    let granted: u32 = out.iter().map(|g| g.count).sum();
    assert_eq!(granted, crate::session::heartbeat::MAX_GRANTS_PER_HEARTBEAT);
}

/// S-PC Sect. V over the AM's progress: time per unit of progress from
/// the first report above zero, in container time, so start-up before it
/// does not count (Hadoop's estimate would take it in).
#[test]
fn remaining_work_is_estimated_from_the_first_progress_report() {
    let mut s = session(PolicyKind::Asm1Comm);
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let app = s.add_app("a", 1.0, 0).unwrap();
    s.update_ask(app, 20, ANY, 1, cap(), true).unwrap();
    let mut out = Vec::new();
    s.node_heartbeat(h1, cap(), 0, &mut out).unwrap();
    assert_eq!(out.len(), 1);
    s.app_progress(app, 0.0, 5_000).unwrap();
    assert_eq!(s.apps[app as usize].remaining_ms(5_000, false), None);
    // One container: 10 s of start-up, then 0.1 -> 0.3 in 10 s.
    s.app_progress(app, 0.1, 10_000).unwrap();
    assert_eq!(
        s.apps[app as usize].remaining_ms(10_000, false),
        None,
        "one report"
    );
    s.app_progress(app, 0.3, 20_000).unwrap();
    let r = s.apps[app as usize].remaining_ms(20_000, false).unwrap();
    assert!((r - 35_000.0).abs() < 1.0, "0.7 * 10 s / 0.2, got {r}");
    // Read as a MapReduce job's map stage (JobImpl: maps half the
    // progress): 0.2 -> 0.6 of the maps in 10 s, 0.4 left; none once the
    // maps are done.
    let m = s.apps[app as usize].remaining_ms(20_000, true).unwrap();
    assert!((m - 10_000.0).abs() < 1.0, "0.4 * 10 s / 0.4, got {m}");
    s.app_progress(app, 0.5, 30_000).unwrap();
    assert_eq!(s.apps[app as usize].remaining_ms(30_000, true), None);
    assert!(s.apps[app as usize].remaining_ms(30_000, false).is_some());
}

/// After a work-preserving RM restart the NodeManagers report what runs:
/// a recovered container loads its node in the next plan like a granted
/// one, and its end balances it.
#[test]
fn recovered_containers_load_their_node_and_finish_like_granted_ones() {
    let mut s = session(PolicyKind::Asm1);
    let big = Resources::new(4096, 4);
    let h1 = s.add_node("h1", "/r1", big, 1.0).unwrap();
    let h2 = s.add_node("h2", "/r1", big, 1.0).unwrap();
    let old = s.add_app("application_1_0001", 1.0, 0).unwrap();
    // h1 is full with the running maps of an app from before the restart.
    for _ in 0..4 {
        s.container_recovered(h1, old).unwrap();
    }
    let app = s.add_app("application_1_0002", 1.0, 1).unwrap();
    feed(&mut s, app, &[&["h1", "h2"], &["h1", "h2"]]);
    s.plan_if_dirty();
    assert_eq!(
        s.queued(),
        vec![0, 2],
        "both tasks planned on h2: h1 has a wave of recovered work"
    );
    for _ in 0..4 {
        s.app_container_finished(h1, old).unwrap();
    }
    let e = s.app_container_finished(h1, old).unwrap_err().to_string();
    assert!(e.contains("none granted to it is running"), "{e}");
    // Bad ids and finished apps are refused by name.
    assert_eq!(
        s.container_recovered(h2, 9).unwrap_err(),
        SessionError::UnknownApp(9)
    );
    assert_eq!(
        s.container_recovered(7, app).unwrap_err(),
        SessionError::UnknownNode(7)
    );
    s.finish_app(old).unwrap();
    let e = s.container_recovered(h2, old).unwrap_err().to_string();
    assert!(e.contains("application_1_0001"), "{e}");
}
