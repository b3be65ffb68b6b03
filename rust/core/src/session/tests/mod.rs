//! The Session's tests, one file per module they test, and their shared
//! helpers.

use std::collections::HashMap;

use crate::model::NodeId;
use crate::policy::PolicyKind;
use crate::session::{AppId, JobOrder, Resources, Session, SessionConfig, ANY};

mod events;
mod heartbeat;
mod incremental;
mod job_order;
mod planning;
mod rule_view;
mod spc_order;

impl Session {
    /// `askers` agrees with the groups' counts.
    pub(super) fn askers_consistent(&self) -> bool {
        let mut want = vec![0u32; self.asks.askers.len()];
        for a in self.apps.iter().filter(|a| a.alive) {
            for g in a.groups.iter().filter(|g| g.any > 0) {
                for (&name, &c) in &g.counts {
                    if c > 0 {
                        want[name as usize] += 1;
                    }
                }
            }
        }
        want == self.asks.askers
    }
}

pub(super) fn cap() -> Resources {
    Resources::new(1024, 1)
}

pub(super) fn session(policy: PolicyKind) -> Session {
    Session::new(SessionConfig {
        policy,
        ..SessionConfig::default()
    })
}

/// Feeds exact blocks and the asks the MR AM derives from them.
pub(super) fn feed(s: &mut Session, app: AppId, blocks: &[&[&str]]) {
    let hosts: Vec<Vec<&str>> = blocks.iter().map(|b| b.to_vec()).collect();
    s.set_input_blocks(app, 20, &hosts).unwrap();
    let mut counts: HashMap<String, i32> = HashMap::new();
    for b in blocks {
        let mut racks: Vec<u32> = Vec::new();
        for h in b.iter() {
            *counts.entry(h.to_string()).or_default() += 1;
            let rack = s.nodes[s.node_id(h).unwrap() as usize].rack;
            if !racks.contains(&rack) {
                racks.push(rack);
            }
        }
        for r in racks {
            let name = s
                .names
                .ids
                .iter()
                .find(|(_, &id)| id == r)
                .unwrap()
                .0
                .clone();
            *counts.entry(name).or_default() += 1;
        }
    }
    for (res, c) in counts {
        s.update_ask(app, 20, &res, c, cap(), true).unwrap();
    }
    s.update_ask(app, 20, ANY, blocks.len() as i32, cap(), true)
        .unwrap();
}

/// S-PC's reduce stage: a fast node (speed 1) and a slow one (1/8), one
/// slot each, and a job whose one map ran 8 s on the fast node (granted at
/// 0, finished at 8,000 ms, the asks withdrawn); its reducers not yet
/// asked. Returns (session, fast, slow, app).
pub(super) fn map_done(policy: PolicyKind) -> (Session, NodeId, NodeId, AppId) {
    let mut s = session(policy);
    let fast = s.add_node("fast", "/r1", cap(), 1.0).unwrap();
    let slow = s.add_node("slow", "/r1", cap(), 0.125).unwrap();
    let app = s.add_app("wordcount", 1.0, 0).unwrap();
    let map_asks = |s: &mut Session, n: i32| {
        for res in ["fast", "/r1", ANY] {
            s.update_ask(app, 20, res, n, cap(), true).unwrap();
        }
    };
    map_asks(&mut s, 1);
    let mut out = Vec::new();
    s.node_heartbeat(fast, cap(), 0, &mut out).unwrap();
    assert_eq!(out.len(), 1, "the map runs on the fast node");
    map_asks(&mut s, 0);
    s.node_heartbeat(slow, cap(), 8_000, &mut out).unwrap();
    s.app_container_finished(fast, app).unwrap();
    (s, fast, slow, app)
}

pub(super) fn ordered(order: JobOrder) -> Session {
    Session::new(SessionConfig {
        policy: PolicyKind::Asm1,
        job_order: order,
        ..SessionConfig::default()
    })
}
