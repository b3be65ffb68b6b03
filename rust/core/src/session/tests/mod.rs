//! The Session's tests, one file per module they test, and their shared
//! helpers.

use std::collections::HashMap;

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

pub(super) fn ordered(order: JobOrder) -> Session {
    Session::new(SessionConfig {
        policy: PolicyKind::Asm1,
        job_order: order,
        ..SessionConfig::default()
    })
}
