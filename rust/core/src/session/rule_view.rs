//! The Session's [`SlotView`]: its asks as the heartbeating node sees
//! them, for a policy's [`HeartbeatRule`](crate::policy::HeartbeatRule).
//! The rule's logic and state live in the policy's file; this is the
//! Session's side of the interface only.

use crate::model::NodeId;
use crate::policy::heartbeat_rule::{Offered, Pick, SlotView};

use super::{Group, NodeState, Resources, Session, Slot};

/// A heartbeat of `node` with `free` room, as a rule sees it.
pub(super) struct RuleView<'a> {
    s: &'a mut Session,
    node: NodeId,
    free: &'a Resources,
}

impl<'a> RuleView<'a> {
    pub(super) fn new(s: &'a mut Session, node: NodeId, free: &'a Resources) -> RuleView<'a> {
        RuleView { s, node, free }
    }
}

/// What `g` asks for on `n`, with the rule's state of `g`.
fn offered<'g>(g: &'g mut Group, n: &NodeState) -> Offered<'g> {
    Offered {
        host: g.asked(n.name),
        rack: g.asked(n.rack),
        relax: g.relax,
        located: !g.counts.is_empty(),
        any: g.any,
        locations: g.counts.len() as u32 + 1,
        scratch: &mut g.scratch,
    }
}

fn pick(s: Slot) -> Pick {
    Pick {
        app: s.app,
        group: s.group,
        priority: s.priority,
        locality: s.locality,
    }
}

impl SlotView for RuleView<'_> {
    fn alive_nodes(&self) -> u32 {
        self.s.alive_nodes
    }

    fn busy(&self) -> &[u32] {
        &self.s.asks.busy
    }

    fn usage(&self, app: u32) -> f64 {
        let a = &self.s.apps[app as usize];
        a.running as f64 / a.weight
    }

    fn rank(&self, app: u32) -> u32 {
        self.s.ranking.rank[app as usize]
    }

    fn offer_app(
        &mut self,
        app: u32,
        level: &mut dyn FnMut(Offered<'_>) -> Option<crate::model::Locality>,
    ) -> Option<Pick> {
        let n = &self.s.nodes[self.node as usize];
        for (gi, g) in self.s.apps[app as usize].groups.iter_mut().enumerate() {
            if g.any <= 0 || !self.free.fits(&g.capability) {
                continue;
            }
            if let Some(locality) = level(offered(g, n)) {
                return Some(Pick {
                    app,
                    group: gi as u32,
                    priority: g.priority,
                    locality,
                });
            }
        }
        None
    }

    fn offer_fifo(
        &mut self,
        level: &mut dyn FnMut(Offered<'_>) -> Option<crate::model::Locality>,
    ) -> Option<Pick> {
        self.s
            .serve_fifo(self.node, self.free, |g, n| level(offered(g, n)))
            .map(pick)
    }

    fn node_local(&mut self) -> Option<Pick> {
        let name = self.s.nodes[self.node as usize].name;
        if self.s.asks.askers[name as usize] == 0 {
            return None;
        }
        self.s.serve_asking(self.node, self.free).map(pick)
    }

    fn has_location_less(&self) -> bool {
        self.s.asks.location_less > 0
    }

    fn cluster_slots(&mut self) -> u64 {
        self.s.cluster_slots()
    }

    fn running(&self) -> u64 {
        self.s.running_total
    }
}
