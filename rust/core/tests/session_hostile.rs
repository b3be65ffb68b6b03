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
                ..Limits::default()
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

mod events {
    use super::*;
    use proptest::prelude::*;

    const COUNTS: [i32; 7] = [i32::MIN, -1, 0, 1, 1_000_000, 1_000_001, i32::MAX];
    const MEMORY: [i64; 5] = [i64::MIN, -1, 0, 1024, i64::MAX];
    const VCORES: [i32; 4] = [i32::MIN, 0, 1, i32::MAX];
    const TIMES: [i64; 4] = [i64::MIN, -1, 0, i64::MAX];
    const NAMES: [&str; 6] = ["h0", "h1", "/r0", "*", "", "h\0"];

    #[derive(Clone, Debug)]
    enum Ev {
        AddNode(usize, usize, usize),
        RemoveNode(u32),
        AddApp(usize, usize),
        FinishApp(u32),
        Ask(u32, i32, usize, usize, usize, usize),
        Finished(u32),
        Heartbeat(u32, usize, usize, usize),
    }

    fn ev() -> impl Strategy<Value = Ev> {
        prop_oneof![
            (0..6usize, 0..6usize, 0..5usize).prop_map(|(h, r, m)| Ev::AddNode(h, r, m)),
            (0..4u32).prop_map(Ev::RemoveNode),
            (0..6usize, 0..4usize).prop_map(|(n, t)| Ev::AddApp(n, t)),
            (0..4u32).prop_map(Ev::FinishApp),
            (
                0..4u32,
                prop::sample::select(vec![i32::MIN, -1, 0, 20, i32::MAX]),
                0..6usize,
                0..7usize,
                0..5usize,
                0..4usize
            )
                .prop_map(|(a, p, r, c, m, v)| Ev::Ask(a, p, r, c, m, v)),
            (0..4u32).prop_map(Ev::Finished),
            (0..4u32, 0..5usize, 0..4usize, 0..4usize)
                .prop_map(|(n, m, v, t)| Ev::Heartbeat(n, m, v, t)),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

        /// Any sequence of hostile events: each is applied or refused with a
        /// message, nothing panics, and memory and time stay bounded
        /// whatever the magnitudes (every policy kind of fallback).
        #[test]
        fn hostile_event_sequences_are_bounded(
            evs in prop::collection::vec(ev(), 1..60),
            policy in prop::sample::select(vec![PolicyKind::Asm1, PolicyKind::Asm1Comm, PolicyKind::HadoopDefault, PolicyKind::Bar]),
        ) {
            let what = format!("{policy}: {} events", evs.len());
            bounded(&what, Duration::from_secs(20), 32 * MB, move || {
                let mut s = session(policy);
                let mut out = Vec::new();
                for e in &evs {
                    let r: Result<(), spindle_core::SessionError> = match *e {
                        Ev::AddNode(h, r, m) => s
                            .add_node(NAMES[h], NAMES[r], Resources::new(MEMORY[m], 8), 1.0)
                            .map(drop),
                        Ev::RemoveNode(n) => s.remove_node(n),
                        Ev::AddApp(n, t) => s.add_app(NAMES[n], 1.0, TIMES[t]).map(drop),
                        Ev::FinishApp(a) => s.finish_app(a),
                        Ev::Ask(a, p, r, c, m, v) => s.update_ask(
                            a,
                            p,
                            NAMES[r],
                            COUNTS[c],
                            Resources::new(MEMORY[m], VCORES[v]),
                            true,
                        ),
                        Ev::Finished(n) => s.container_finished(n),
                        Ev::Heartbeat(n, m, v, t) => s.node_heartbeat(
                            n,
                            Resources::new(MEMORY[m], VCORES[v]),
                            TIMES[t],
                            &mut out,
                        ),
                    };
                    if let Err(e) = r {
                        assert!(!e.to_string().is_empty());
                    }
                }
            });
        }
    }
}

/// Every name an AM asks for is remembered: a stream of made-up host names
/// stops at max-names with an error naming the app and the name.
#[test]
fn made_up_names_stop_at_max_names() {
    let mut s = session(PolicyKind::Asm1);
    s.set_limits(Limits {
        max_names: 5,
        ..Limits::default()
    });
    s.add_node("h0", "/r", cap(), 1.0).unwrap();
    s.add_node("h1", "/r", cap(), 1.0).unwrap();
    let app = s.add_app("app", 1.0, 0).unwrap();
    s.update_ask(app, 20, "x1", 1, cap(), true).unwrap();
    s.update_ask(app, 20, "x2", 1, cap(), true).unwrap();
    assert_eq!(
        err(s.update_ask(app, 20, "x3", 1, cap(), true)),
        "application \"app\", priority 20, resource \"x3\": the Session already holds max-names (5) distinct host and rack names"
    );
    // Known names and ANY still work; a new node's names are refused too.
    s.update_ask(app, 20, "x1", 2, cap(), true).unwrap();
    s.update_ask(app, 20, ANY, 2, cap(), true).unwrap();
    assert_eq!(
        err(s.add_node("h2", "/r", cap(), 1.0)),
        "node \"h2\": the Session already holds max-names (5) distinct host and rack names"
    );
}
