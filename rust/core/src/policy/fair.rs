//! The FairScheduler (`hadoop-fair`, `hadoop-fair-0.5`), the stock
//! alternative to the CapacityScheduler. Rules from `FairScheduler`,
//! `FSLeafQueue` and `FSAppAttempt` (Hadoop 3.x, continuous scheduling off):
//!
//! - a node heartbeat offers the node to the running applications ordered
//!   by `FairSharePolicy`: least resource usage over weight first (apps have
//!   no min share), then start time; the first that takes a container
//!   ends the offer, and with `yarn.scheduler.fair.assignmultiple` false
//!   (the default) the node gets at most one container per heartbeat;
//! - an application counts a scheduling opportunity at each priority it
//!   could use the node at, then takes a node-local container if it asks
//!   for the node, rack-local if its allowed level is rack or off-switch,
//!   off-switch if the allowed level is off-switch or it asks for no place;
//! - the allowed level starts at node-local and relaxes one step once the
//!   opportunities pass `threshold * cluster nodes`
//!   (`yarn.scheduler.fair.locality.threshold.node`, then `.rack`), which
//!   resets the count; a more local container raises it back;
//! - a negative threshold (the default, -1) turns delay scheduling off.

use crate::model::Locality;
use crate::policy::delay::LocalityDelay;
use crate::policy::heartbeat_rule::{GroupScratch, HeartbeatRule, Pick, SlotView};

/// `yarn.scheduler.fair.locality.threshold.node` and `.rack`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FairLocality {
    pub node_threshold: f64,
    pub rack_threshold: f64,
}

impl FairLocality {
    /// The defaults: no delay scheduling.
    pub const DEFAULT: FairLocality = FairLocality {
        node_threshold: -1.0,
        rack_threshold: -1.0,
    };

    /// `FSAppAttempt.getAllowedLocalityLevel`: the level a priority may take
    /// now, given its current level (`None` before its first offer) and the
    /// opportunities counted (reset when the level relaxes).
    pub fn allowed(&self, level: &mut Option<Locality>, missed: &mut u32, nodes: u32) -> Locality {
        let node_t = self.node_threshold.min(1.0);
        let rack_t = self.rack_threshold.min(1.0);
        if node_t < 0.0 || rack_t < 0.0 {
            return Locality::OffSwitch;
        }
        let Some(current) = *level else {
            *level = Some(Locality::Node);
            return Locality::Node;
        };
        let (threshold, next) = match current {
            Locality::OffSwitch => return Locality::OffSwitch,
            Locality::Node => (node_t, Locality::Rack),
            Locality::Rack => (rack_t, Locality::OffSwitch),
        };
        if *missed as f64 > threshold * nodes as f64 {
            *level = Some(next);
            *missed = 0;
            return next;
        }
        current
    }

    /// `FSAppAttempt.allocate`: a container more local than the allowed
    /// level raises the level to it.
    pub fn granted(level: &mut Option<Locality>, given: Locality) {
        let rank = |l: Locality| match l {
            Locality::Node => 0,
            Locality::Rack => 1,
            Locality::OffSwitch => 2,
        };
        if let Some(current) = *level {
            if rank(given) < rank(current) {
                *level = Some(given);
            }
        }
    }
}

/// `hadoop-fair` and `hadoop-fair-0.5`: a heartbeat-time policy with no
/// offline plan.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HadoopFair {
    pub name: &'static str,
    pub locality: FairLocality,
}

/// `hadoop-fair`: the FairScheduler at its default locality thresholds (no delay).
pub const HADOOP_FAIR: HadoopFair = HadoopFair {
    name: "hadoop-fair",
    locality: FairLocality::DEFAULT,
};

/// `hadoop-fair-0.5`: both locality thresholds at 0.5.
pub const HADOOP_FAIR_HALF: HadoopFair = HadoopFair {
    name: "hadoop-fair-0.5",
    locality: FairLocality {
        node_threshold: 0.5,
        rack_threshold: 0.5,
    },
};

impl crate::policy::Policy for HadoopFair {
    fn name(&self) -> &'static str {
        self.name
    }
    fn planner(&self) -> Option<&dyn crate::policy::Planner> {
        None
    }
    fn on_free_slot(&self) -> crate::policy::FreeSlot {
        crate::policy::FreeSlot::Fair(self.locality)
    }
    fn heartbeat_rule(&self, _: LocalityDelay) -> Option<Box<dyn HeartbeatRule>> {
        Some(Box::new(FairRule {
            locality: self.locality,
            order: Vec::new(),
        }))
    }
}

/// The FairScheduler at a heartbeat: applications by usage over weight,
/// then submission; each priority that fits counts an opportunity and takes
/// the most local level its allowed level permits; one container per
/// heartbeat.
#[derive(Clone, Debug)]
pub struct FairRule {
    pub locality: FairLocality,
    /// The visiting order (reused: no allocation at a heartbeat).
    order: Vec<u32>,
}

impl HeartbeatRule for FairRule {
    fn free_slot(&mut self, view: &mut dyn SlotView) -> Option<Pick> {
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        order.extend_from_slice(view.busy());
        // Unstable sort: no allocation, and the rank makes keys distinct.
        order.sort_unstable_by(|&x, &y| {
            view.usage(x)
                .total_cmp(&view.usage(y))
                .then(view.rank(x).cmp(&view.rank(y)))
        });
        let (rule, nodes) = (self.locality, view.alive_nodes());
        let mut pick = None;
        for &app in &order {
            // hasContainerForNode: asks left, and a place this node can serve.
            pick = view.offer_app(app, &mut |g| {
                if !(g.relax || g.rack) {
                    return None;
                }
                g.scratch.missed += 1;
                let allowed = rule.allowed(&mut g.scratch.level, &mut g.scratch.missed, nodes);
                if g.host && g.rack {
                    Some(Locality::Node)
                } else if !g.relax {
                    None
                } else if g.rack && allowed != Locality::Node {
                    Some(Locality::Rack)
                } else if !g.located || allowed == Locality::OffSwitch {
                    Some(Locality::OffSwitch)
                } else {
                    None
                }
            });
            if pick.is_some() {
                break;
            }
        }
        self.order = order;
        pick
    }

    fn assign_multiple(&self) -> bool {
        false
    }

    fn granted(&self, scratch: &mut GroupScratch, locality: Locality) {
        FairLocality::granted(&mut scratch.level, locality);
    }

    fn reserve(&mut self, apps: usize) {
        self.order.reserve(apps.saturating_sub(self.order.len()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_thresholds_allow_off_switch_at_once() {
        let (mut level, mut missed) = (None, 0);
        assert_eq!(
            FairLocality::DEFAULT.allowed(&mut level, &mut missed, 100),
            Locality::OffSwitch
        );
    }

    #[test]
    fn half_thresholds_relax_one_step_per_half_cluster_of_opportunities() {
        let f = FairLocality {
            node_threshold: 0.5,
            rack_threshold: 0.5,
        };
        let (mut level, mut missed) = (None, 1);
        assert_eq!(f.allowed(&mut level, &mut missed, 10), Locality::Node);
        missed = 5;
        assert_eq!(f.allowed(&mut level, &mut missed, 10), Locality::Node);
        missed = 6;
        assert_eq!(f.allowed(&mut level, &mut missed, 10), Locality::Rack);
        assert_eq!(missed, 0, "relaxing resets the count");
        missed = 6;
        assert_eq!(f.allowed(&mut level, &mut missed, 10), Locality::OffSwitch);
        FairLocality::granted(&mut level, Locality::Rack);
        assert_eq!(level, Some(Locality::Rack));
        FairLocality::granted(&mut level, Locality::OffSwitch);
        assert_eq!(level, Some(Locality::Rack), "a less local grant leaves it");
        FairLocality::granted(&mut level, Locality::Node);
        assert_eq!(level, Some(Locality::Node));
    }

    #[test]
    fn thresholds_above_one_are_capped() {
        let f = FairLocality {
            node_threshold: 7.0,
            rack_threshold: 7.0,
        };
        let (mut level, mut missed) = (Some(Locality::Node), 11);
        assert_eq!(f.allowed(&mut level, &mut missed, 10), Locality::Rack);
    }
}
