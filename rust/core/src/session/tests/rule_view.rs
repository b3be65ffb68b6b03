//! The policies' own heartbeat rules as the Session plays them through its
//! [`SlotView`](crate::policy::heartbeat_rule::SlotView) (`session/rule_view.rs`):
//! BAR's dispatchers, delay scheduling, the FairScheduler.

use crate::model::{Locality, NodeId};
use crate::policy::PolicyKind;
use crate::session::{Resources, Session, ANY};

use super::{cap, session};

#[test]
fn greedy_comm_spills_rack_then_off_switch() {
    let mut s = session(PolicyKind::GreedyComm);
    let _a = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let b = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let c = s.add_node("h3", "/r2", cap(), 1.0).unwrap();
    let app = s.add_app("app", 1.0, 0).unwrap();
    for (res, n) in [("h1", 2), ("/r1", 2), (ANY, 2)] {
        s.update_ask(app, 20, res, n, cap(), true).unwrap();
    }
    let mut out = Vec::new();
    s.node_heartbeat(b, cap(), 0, &mut out).unwrap();
    assert_eq!(out[0].locality, Locality::Rack);
    s.node_heartbeat(c, cap(), 0, &mut out).unwrap();
    assert_eq!(out[0].locality, Locality::OffSwitch);
    // Greedy (makespan) would leave both idle.
    let mut g = session(PolicyKind::Greedy);
    g.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let b = g.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let app = g.add_app("app", 1.0, 0).unwrap();
    g.update_ask(app, 20, "h1", 2, cap(), true).unwrap();
    g.update_ask(app, 20, ANY, 2, cap(), true).unwrap();
    g.node_heartbeat(b, cap(), 0, &mut out).unwrap();
    assert!(out.is_empty());
}

#[test]
fn hadoop_default_delays_non_local_containers() {
    let mut s = session(PolicyKind::HadoopDefault);
    s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let h3 = s.add_node("h3", "/r2", cap(), 1.0).unwrap();
    let app = s.add_app("app", 1.0, 0).unwrap();
    for (res, n) in [("h1", 10), ("/r1", 10), (ANY, 10)] {
        s.update_ask(app, 20, res, n, cap(), true).unwrap();
    }
    // Three nodes cap both delays at 3 missed opportunities.
    let mut out = Vec::new();
    let mut offers = |s: &mut Session, node| {
        let mut n = 0;
        loop {
            n += 1;
            s.node_heartbeat(node, cap(), 0, &mut out).unwrap();
            if let Some(g) = out.first() {
                return (n, g.locality);
            }
        }
    };
    assert_eq!(offers(&mut s, h2), (4, Locality::Rack));
    assert_eq!(
        offers(&mut s, h3),
        (4, Locality::OffSwitch),
        "rack grant reset the count"
    );
    assert_eq!(
        offers(&mut s, h3),
        (1, Locality::OffSwitch),
        "off-switch does not reset it"
    );
}

#[test]
fn hadoop_fair_serves_the_app_with_least_usage_one_container_per_heartbeat() {
    let mut s = session(PolicyKind::HadoopFair);
    let h1 = s
        .add_node("h1", "/r1", Resources::new(4096, 4), 1.0)
        .unwrap();
    let h2 = s
        .add_node("h2", "/r2", Resources::new(4096, 4), 1.0)
        .unwrap();
    let a = s.add_app("a", 1.0, 0).unwrap();
    let b = s.add_app("b", 1.0, 1).unwrap();
    for app in [a, b] {
        for res in ["h1", "/r1", ANY] {
            s.update_ask(app, 20, res, 4, cap(), true).unwrap();
        }
    }
    let mut out = Vec::new();
    s.node_heartbeat(h1, Resources::new(4096, 4), 0, &mut out)
        .unwrap();
    assert_eq!(out.len(), 1, "assignmultiple is off: one container");
    assert_eq!((out[0].app, out[0].count), (a, 1));
    s.node_heartbeat(h1, Resources::new(3072, 3), 1, &mut out)
        .unwrap();
    assert_eq!(out[0].app, b, "a holds one container, b none");
    // Default thresholds (-1): no delay scheduling, off-switch at once.
    s.node_heartbeat(h2, Resources::new(4096, 4), 2, &mut out)
        .unwrap();
    assert_eq!((out[0].app, out[0].locality), (a, Locality::OffSwitch));
    s.node_heartbeat(h1, Resources::new(2048, 2), 3, &mut out)
        .unwrap();
    assert_eq!(out[0].app, b, "a holds two, b one");
    // A finished container of a lowers its usage below b's.
    s.app_container_finished(h1, a).unwrap();
    s.node_heartbeat(h1, Resources::new(2048, 2), 4, &mut out)
        .unwrap();
    assert_eq!(out[0].app, a);
}

#[test]
fn hadoop_fair_half_waits_half_the_cluster_in_opportunities() {
    let mut s = session(PolicyKind::HadoopFairHalf);
    let nodes: Vec<NodeId> = (0..4)
        .map(|i| s.add_node(&format!("h{i}"), "/r1", cap(), 1.0).unwrap())
        .collect();
    let a = s.add_app("a", 1.0, 0).unwrap();
    for res in ["h0", "/r1", ANY] {
        s.update_ask(a, 20, res, 1, cap(), true).unwrap();
    }
    let mut out = Vec::new();
    // Offers 1 (sets node-local), 2 (2 <= 0.5 * 4): refused; 3 relaxes to rack.
    s.node_heartbeat(nodes[1], cap(), 0, &mut out).unwrap();
    assert!(out.is_empty());
    s.node_heartbeat(nodes[2], cap(), 1, &mut out).unwrap();
    assert!(out.is_empty());
    s.node_heartbeat(nodes[3], cap(), 2, &mut out).unwrap();
    assert_eq!(out[0].locality, Locality::Rack);
}
