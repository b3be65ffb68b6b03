//! [`JobOrder::Spc`] in the Session: the LP is solved in planning step 2
//! and the heartbeats use the order the last plan installed.

use crate::model::NodeId;
use crate::policy::PolicyKind;
use crate::session::{
    AppId, JobOrder, Planning, Resources, Session, SessionConfig, ANY, SPC_MAX_LP_JOBS,
};

fn cap() -> Resources {
    Resources::new(1024, 1)
}

fn ask(s: &mut Session, app: AppId, n: i32) {
    for res in ["h1", "/r1", ANY] {
        s.update_ask(app, 20, res, n, cap(), true).unwrap();
    }
}

/// Apps `long` (containers of 100 s) and `short` (1 s), each having run
/// one container, then asking for 2 and 4 more on h1.
fn shown_durations(order: JobOrder) -> (Session, NodeId, AppId, AppId) {
    let mut s = Session::new(SessionConfig {
        policy: PolicyKind::Asm1,
        job_order: order,
        ..SessionConfig::default()
    });
    let h1 = s
        .add_node("h1", "/r1", Resources::new(4096, 4), 1.0)
        .unwrap();
    let long = s.add_app("long", 1.0, 0).unwrap();
    let short = s.add_app("short", 1.0, 1).unwrap();
    ask(&mut s, long, 1);
    ask(&mut s, short, 1);
    let mut out = Vec::new();
    s.node_heartbeat(h1, Resources::new(4096, 4), 0, &mut out)
        .unwrap();
    assert_eq!(out.iter().map(|g| g.count).sum::<u32>(), 2);
    ask(&mut s, long, 0);
    ask(&mut s, short, 0);
    s.node_heartbeat(h1, Resources::new(2048, 2), 1_000, &mut out)
        .unwrap();
    s.app_container_finished(h1, short).unwrap();
    s.node_heartbeat(h1, Resources::new(3072, 3), 100_000, &mut out)
        .unwrap();
    s.app_container_finished(h1, long).unwrap();
    ask(&mut s, long, 2);
    ask(&mut s, short, 4);
    (s, h1, long, short)
}

#[test]
fn the_lp_order_is_computed_in_plan_step_2_and_heartbeats_use_the_last_one() {
    let (mut s, h1, long, short) = shown_durations(JobOrder::Spc);
    s.set_planning(Planning::Background);
    // No plan since the asks changed: apps not ranked by the LP yet go by
    // weighted remaining work (2 < 4 containers).
    assert_eq!(s.ranking.app_order, vec![long, short]);
    let mut out = Vec::new();
    for t in 0..5 {
        s.node_heartbeat(h1, Resources::new(0, 0), 100_001 + t, &mut out)
            .unwrap();
    }
    assert!(s.wants_plan(), "a heartbeat does not plan");
    assert_eq!(s.ranking.app_order, vec![long, short], "nor re-rank");
    let request = s.plan_request();
    assert_eq!(
        s.ranking.app_order,
        vec![long, short],
        "nor does the request"
    );
    let result = request.plan();
    assert_eq!(result.spc_lp(), Some((2, true)), "the LP ran in step 2");
    drop(s.install_plan(result));
    // 4 x 1 s of work before 2 x 100 s.
    assert_eq!(s.ranking.app_order, vec![short, long]);
    assert!(s.apps[short as usize].order_key < s.apps[long as usize].order_key);
    s.node_heartbeat(h1, cap(), 100_010, &mut out).unwrap();
    assert_eq!(out[0].app, short);
    // Weighted remaining work, on the same history, serves `long` first.
    let (mut w, h1, long, _) = shown_durations(JobOrder::WeightedRemaining);
    w.plan_if_dirty();
    w.node_heartbeat(h1, cap(), 100_010, &mut out).unwrap();
    assert_eq!(out[0].app, long);
}

#[test]
fn above_the_bound_the_plan_falls_back_to_weighted_remaining() {
    let (mut s, _, long, short) = shown_durations(JobOrder::Spc);
    s.set_spc_max_jobs(1);
    let result = s.plan_request().plan();
    assert_eq!(result.spc_lp(), Some((2, false)));
    drop(s.install_plan(result));
    assert!(s.plan.spc_fallback);
    assert_eq!(s.ranking.app_order, vec![long, short]);
    s.set_spc_max_jobs(SPC_MAX_LP_JOBS);
    s.update_ask(long, 20, ANY, 2, cap(), true).unwrap();
    let result = s.plan_request().plan();
    assert_eq!(result.spc_lp(), Some((2, true)));
    drop(s.install_plan(result));
    assert!(!s.plan.spc_fallback);
    assert_eq!(s.ranking.app_order, vec![short, long]);
}

#[test]
fn weights_change_the_session_order() {
    let (mut s, _, long, short) = shown_durations(JobOrder::Spc);
    s.plan_if_dirty();
    assert_eq!(s.ranking.app_order, vec![short, long]);
    // Weight 1000 on `long`: 200 s of work at weight 1000 beats 4 s at 1.
    let (mut s, _, _, _) = {
        let mut s = Session::new(SessionConfig {
            policy: PolicyKind::Asm1,
            job_order: JobOrder::Spc,
            ..SessionConfig::default()
        });
        let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
        let heavy = s.add_app("heavy", 1000.0, 0).unwrap();
        let light = s.add_app("light", 1.0, 1).unwrap();
        ask(&mut s, heavy, 20);
        ask(&mut s, light, 4);
        (s, h1, heavy, light)
    };
    s.plan_if_dirty();
    let names: Vec<&str> = s
        .ranking
        .app_order
        .iter()
        .map(|&a| s.apps[a as usize].name.as_str())
        .collect();
    assert_eq!(names, vec!["heavy", "light"]);
}

#[test]
fn job_order_names_round_trip() {
    for o in JobOrder::ALL {
        assert_eq!(JobOrder::from_name(o.name()), Some(o));
    }
    assert_eq!(
        JobOrder::names(),
        "fifo, weighted-remaining, spc, spc-identical, spc-map-only, huwf, tetris"
    );
    assert_eq!(JobOrder::from_name("lifo"), None);
}

#[test]
fn spc_local_queues_a_task_on_its_replica_holder() {
    let mut s = Session::new(SessionConfig {
        policy: PolicyKind::SpcLocal,
        ..SessionConfig::default()
    });
    for i in 0..4 {
        s.add_node(&format!("h{i}"), "/r1", Resources::new(4096, 4), 1.0)
            .unwrap();
    }
    let a = s.add_app("a", 1.0, 0).unwrap();
    for (res, n) in [("h2", 1), ("/r1", 1), (ANY, 1)] {
        s.update_ask(a, 20, res, n, cap(), true).unwrap();
    }
    s.plan_if_dirty();
    assert_eq!(s.queued(), vec![0, 0, 1, 0]);
}

#[test]
fn huwf_reads_the_weights_and_tetris_does_not() {
    for (policy, want) in [
        (PolicyKind::Huwf, ["heavy", "light"]),
        (PolicyKind::Tetris, ["light", "heavy"]),
        (PolicyKind::SpcIdentical, ["heavy", "light"]),
        (PolicyKind::Fifo, ["heavy", "light"]),
    ] {
        let mut s = Session::new(SessionConfig {
            policy,
            ..SessionConfig::default()
        });
        s.add_node("h1", "/r1", cap(), 1.0).unwrap();
        let heavy = s.add_app("heavy", 1000.0, 0).unwrap();
        let light = s.add_app("light", 1.0, 1).unwrap();
        ask(&mut s, heavy, 20);
        ask(&mut s, light, 4);
        s.plan_if_dirty();
        let names: Vec<&str> = s
            .ranking
            .app_order
            .iter()
            .map(|&a| s.apps[a as usize].name.as_str())
            .collect();
        assert_eq!(names, want, "{policy}");
        // The planned queue follows the order: the first app's tasks first.
        let first = if want[0] == "heavy" { heavy } else { light };
        assert_eq!(
            s.nodes[0].queue.front().map(|q| q.app),
            Some(first),
            "{policy}"
        );
    }
}
