//! Planning (`session/planning.rs`).

use crate::policy::PolicyKind;
use crate::session::{AppId, PlanGarbage, Session, ANY};

use super::{cap, session};

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
    let (mut req, apps) = parts.plan_request_start();
    for chunk in apps.chunks(2) {
        parts.plan_request_add(&mut req, chunk);
    }
    let mut r = req.plan();
    let mut garbage = PlanGarbage::default();
    parts.install_pools(&mut r, &mut garbage);
    let mut from = Some(0);
    while let Some(f) = from {
        from = parts.install_queues(&mut r, f, 3, &mut garbage);
    }
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
