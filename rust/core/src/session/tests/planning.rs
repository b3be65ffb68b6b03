//! Planning (`session/planning.rs`).

use crate::policy::PolicyKind;
use crate::session::{AppId, InstallCursor, PlanGarbage, Session, ANY};

use super::{cap, map_done, session};

/// Installing a plan in spells (as the planner thread does) gives the same
/// queues as installing it at once; so does a request copied in parts.
#[test]
fn a_plan_installed_in_parts_equals_one_installed_at_once() {
    let build = || {
        let mut s = session(PolicyKind::Asm1Comm);
        for i in 0..7 {
            s.add_node(&format!("h{i}"), &format!("/r{}", i % 2), cap(), 1.0)
                .unwrap();
        }
        for a in 0..5 {
            let app = s.add_app(&format!("app{a}"), 1.0, a).unwrap();
            for i in 0..7 {
                if (i + a) % 3 != 0 {
                    s.update_ask(app, 20, &format!("h{i}"), 2 + (a as i32), cap(), true)
                        .unwrap();
                }
            }
            s.update_ask(app, 20, ANY, 9, cap(), true).unwrap();
        }
        s
    };
    let mut whole = build();
    let r = whole.plan_request().plan();
    drop(whole.install_plan(r));
    let mut parts = build();
    let (mut req, mut copy) = parts.plan_request_begin();
    let mut spells = 0;
    while !parts.plan_request_more(&mut req, &mut copy, 3) {
        spells += 1;
    }
    assert!(spells >= 4, "7 nodes and 5 apps take several spells of 3");
    let mut r = req.plan();
    let mut garbage = PlanGarbage::for_plan(&r);
    let mut install = InstallCursor::default();
    spells = 0;
    while !parts.install_more(&mut r, &mut install, 3, &mut garbage) {
        spells += 1;
    }
    assert!(
        spells > 3,
        "5 pools, 5 apps and 7 queues take several spells"
    );
    assert!(whole.queued().iter().sum::<usize>() > 0);
    assert_eq!(parts.queued(), whole.queued());
    assert_eq!(parts.queued_total, whole.queued_total);
    let slots = |s: &Session| -> Vec<Vec<(AppId, u32, u32)>> {
        s.nodes
            .iter()
            .map(|n| n.queue.iter().map(|x| (x.app, x.group, x.task)).collect())
            .collect()
    };
    assert_eq!(slots(&parts), slots(&whole));
}

/// A copy in spells reads nodes and asks at different times: a node and
/// its ask that arrive in between are planned next time, and the request
/// names no node it did not copy.
#[test]
fn a_node_added_while_a_request_is_copied_waits_for_the_next_plan() {
    let mut s = session(PolicyKind::Asm1);
    for i in 0..4 {
        s.add_node(&format!("h{i}"), "/r0", cap(), 1.0).unwrap();
    }
    let app = s.add_app("app", 1.0, 0).unwrap();
    for i in 0..4 {
        s.update_ask(app, 20, &format!("h{i}"), 2, cap(), true)
            .unwrap();
    }
    s.update_ask(app, 20, ANY, 10, cap(), true).unwrap();
    let (mut req, mut copy) = s.plan_request_begin();
    assert!(!s.plan_request_more(&mut req, &mut copy, 2));
    s.add_node("h4", "/r0", cap(), 1.0).unwrap();
    s.update_ask(app, 20, "h4", 2, cap(), true).unwrap();
    while !s.plan_request_more(&mut req, &mut copy, 2) {}
    drop(s.install_plan(req.plan()));
    let q = s.queued();
    assert_eq!(q.len(), 5);
    assert_eq!(
        q[..4].iter().sum::<usize>(),
        8,
        "the four copied hosts' asks"
    );
    assert_eq!(q[4], 0, "h4's name was not in the copy");
    assert!(s.wants_plan(), "h4 is planned next time");
}

/// S-PC plans a job's reducers (location-less asks of a job that asked for
/// maps) by Algorithm 2: both on the fast node (done at 1 and 2 there,
/// at 8 on the slow one). Identical-machine believes both nodes at speed 1
/// (one each); Map-only leaves reducers unplanned, as does every policy
/// for an application that never asked for a location.
#[test]
fn the_reduce_stage_is_planned_by_algorithm_2() {
    for (policy, want) in [
        (PolicyKind::Spc, vec![2, 0]),
        (PolicyKind::SpcIdentical, vec![1, 1]),
        (PolicyKind::SpcMapOnly, vec![0, 0]),
        (PolicyKind::SpcLocal, vec![0, 0]),
    ] {
        let (mut s, _, _, app) = map_done(policy);
        s.update_ask(app, 10, ANY, 2, cap(), true).unwrap();
        s.plan_if_dirty();
        assert_eq!(s.queued(), want, "{policy}");
        // A job with no map stage: its asks stay unplanned.
        let other = s.add_app("shell", 1.0, 1).unwrap();
        s.update_ask(other, 10, ANY, 3, cap(), true).unwrap();
        s.plan_if_dirty();
        assert_eq!(s.queued(), want, "{policy}: the job with no maps");
    }
}
