//! Hostile events for the Session (issue 14 items 1 and 3): no ask costs
//! memory in proportion to its count, and bad names, times and extra
//! finishes get an error that names what is wrong.

use std::time::Duration;

use spindle_core::session::{Limits, ANY};
use spindle_core::{PolicyKind, Resources, Session, SessionConfig};
use spindle_testkit::{bounded, CountingAlloc};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const MB: usize = 1 << 20;

fn session(policy: PolicyKind) -> Session {
    Session::new(SessionConfig {
        policy,
        ..SessionConfig::default()
    })
}

fn cap() -> Resources {
    Resources::new(1024, 1)
}

/// Issue 14 item 1: `updateAsk(app, 5, "*", Integer.MAX_VALUE, ...)` then a
/// heartbeat asked for 64 GB. Every policy now serves it in bounded memory,
/// with and without host asks beside it.
#[test]
fn a_huge_any_ask_costs_no_memory_in_proportion_to_its_count() {
    for policy in PolicyKind::ALL {
        for count in [i32::MAX, 100_000_000] {
            let what = format!("{policy}: ANY ask of {count} then heartbeats");
            let grants = bounded(&what, Duration::from_secs(20), 16 * MB, move || {
                let mut s = session(policy);
                let h1 = s
                    .add_node("h1", "/r1", Resources::new(8192, 8), 1.0)
                    .unwrap();
                s.add_node("h2", "/r1", Resources::new(8192, 8), 1.0)
                    .unwrap();
                let app = s.add_app("app", 1.0, 0).unwrap();
                s.update_ask(app, 5, ANY, count, cap(), true).unwrap();
                s.update_ask(app, 5, "h1", 1000, cap(), true).unwrap();
                s.update_ask(app, 5, "/r1", count, cap(), true).unwrap();
                let mut out = Vec::new();
                let mut granted = 0;
                for now in 0..10 {
                    s.node_heartbeat(h1, Resources::new(8192, 8), now, &mut out)
                        .unwrap();
                    granted += out.iter().map(|g| g.count).sum::<u32>();
                }
                granted
            });
            assert!(grants > 0, "{what}: h1 is asked for and gets work");
        }
    }
}

/// What remains materialised (host asks) is bounded by named limits.
#[test]
fn host_asks_are_bounded_by_named_limits() {
    let mut s = session(PolicyKind::Asm1Comm);
    s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let app = s.add_app("application_1_0001", 1.0, 0).unwrap();
    let err = s
        .update_ask(app, 20, "h1", i32::MAX, cap(), true)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "application \"application_1_0001\", priority 20, resource \"h1\": container count 2147483647 is above the limit max-host-ask (1000000) for one host"
    );
    // Under the per-ask limit, many hosts each asking for a lot: the
    // planner's pool stops at max-planned-tasks, the rest stays counts.
    let grants = bounded(
        "500 hosts asking for 1e6 each",
        Duration::from_secs(20),
        64 * MB,
        || {
            let mut s = session(PolicyKind::Asm1Comm);
            s.set_limits(Limits {
                max_host_ask: 1_000_000,
                max_planned_tasks: 100_000,
            });
            let mut nodes = Vec::new();
            for i in 0..500 {
                nodes.push(s.add_node(&format!("h{i}"), "/r1", cap(), 1.0).unwrap());
            }
            let app = s.add_app("app", 1.0, 0).unwrap();
            for i in 0..500 {
                s.update_ask(app, 20, &format!("h{i}"), 1_000_000, cap(), true)
                    .unwrap();
            }
            s.update_ask(app, 20, ANY, i32::MAX, cap(), true).unwrap();
            let mut out = Vec::new();
            let mut granted = 0;
            for &n in &nodes {
                s.node_heartbeat(n, cap(), 0, &mut out).unwrap();
                granted += out.iter().map(|g| g.count).sum::<u32>();
            }
            granted
        },
    );
    assert_eq!(grants, 500, "every node gets one container");
}

fn err<T: std::fmt::Debug>(r: Result<T, spindle_core::SessionError>) -> String {
    r.unwrap_err().to_string()
}

/// Issue 14 item 3: values accepted without error before.
#[test]
fn bad_names_times_and_finishes_are_refused_with_a_clear_message() {
    let mut s = session(PolicyKind::Asm1);
    assert_eq!(
        err(s.add_node("h1", "", cap(), 1.0)),
        "node \"h1\": rack name is empty"
    );
    assert_eq!(
        err(s.add_node("h\0st", "/r1", cap(), 1.0)),
        "node \"h\\0st\": host name contains the control character U+0000"
    );
    assert_eq!(
        err(s.add_node("h1", "/r\0x", cap(), 1.0)),
        "node \"h1\": rack name contains the control character U+0000"
    );
    assert_eq!(
        err(s.add_app("", 1.0, 0)),
        "application \"\": application id is empty"
    );
    assert_eq!(
        err(s.add_app("app\0", 1.0, 0)),
        "application \"app\\0\": application id contains the control character U+0000"
    );
    assert_eq!(
        err(s.add_app("app", 1.0, -1)),
        "application \"app\": submit time must not be negative, got -1 ms"
    );
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let app = s.add_app("app", 1.0, 0).unwrap();
    assert_eq!(
        err(s.update_ask(app, 20, "", 1, cap(), true)),
        "application \"app\", priority 20, resource \"\": resource name is empty"
    );
    assert_eq!(
        err(s.update_ask(app, 20, "h\0x", 1, cap(), true)),
        "application \"app\", priority 20, resource \"h\\0x\": resource name contains the control character U+0000"
    );
    // One container granted, one finish accepted, the extra one refused.
    s.update_ask(app, 20, ANY, 1, cap(), true).unwrap();
    s.update_ask(app, 20, "h1", 1, cap(), true).unwrap();
    let mut out = Vec::new();
    s.node_heartbeat(h1, cap(), 0, &mut out).unwrap();
    assert_eq!(out.iter().map(|g| g.count).sum::<u32>(), 1);
    s.container_finished(h1).unwrap();
    assert_eq!(
        err(s.container_finished(h1)),
        "node \"h1\": a container finished, but no container granted on this node is running"
    );
    // Nothing was registered by the refused events.
    assert_eq!(s.node_id("h\0st"), None);
}
