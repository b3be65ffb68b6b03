//! Delay scheduling as Hadoop's CapacityScheduler does it (the stock
//! scheduler of YARN, so Spindle's `hadoop-default`): an application passes
//! up non-local containers until it has missed enough scheduling
//! opportunities. Rules from `RegularContainerAllocator.canAssign`:
//!
//! - NODE_LOCAL is always allowed;
//! - RACK_LOCAL once `missed > min(numNodes, node-locality-delay)`;
//! - OFF_SWITCH, with `rack-locality-additional-delay > -1`, once
//!   `missed > min(numNodes, node-locality-delay + additional)`; otherwise once
//!   `missed > min(numNodes, outstandingANY * localityWaitFactor)`, with
//!   `localityWaitFactor = min((uniqueLocationAsks - 1) / numNodes, 1)`;
//! - a request with only an ANY entry is never delayed;
//! - `node-locality-delay = -1` turns delay off.
//!
//! An opportunity is counted each time the application is offered a node;
//! node- and rack-local allocations reset the count (`rack-locality-full-reset`
//! default true), off-switch ones do not. This is a heartbeat-time policy; it
//! has no offline plan.

use crate::model::Locality;
use crate::policy::heartbeat_rule::{HeartbeatRule, Pick, SlotView};

/// `hadoop-default`: the CapacityScheduler's delay scheduling, YARN's stock
/// behaviour, with the Session's [`LocalityDelay`]. No offline plan.
#[derive(Clone, Copy, Debug, Default)]
pub struct HadoopDefault;

impl crate::policy::Policy for HadoopDefault {
    fn name(&self) -> &'static str {
        "hadoop-default"
    }
    fn planner(&self) -> Option<&dyn crate::policy::Planner> {
        None
    }
    fn on_free_slot(&self) -> crate::policy::FreeSlot {
        crate::policy::FreeSlot::Delay
    }
    fn heartbeat_rule(&self, delay: LocalityDelay) -> Option<Box<dyn HeartbeatRule>> {
        Some(Box::new(DelayRule { delay }))
    }
}

/// Delay scheduling at a heartbeat: each app in FIFO order, each priority,
/// counts a missed opportunity and takes the most local level the delay
/// allows; a node- or rack-local container resets the count.
#[derive(Clone, Copy, Debug)]
pub struct DelayRule {
    pub delay: LocalityDelay,
}

impl HeartbeatRule for DelayRule {
    fn free_slot(&mut self, view: &mut dyn SlotView) -> Option<Pick> {
        let rule = self.delay;
        let num_nodes = view.alive_nodes();
        view.offer_fifo(&mut |g| {
            g.scratch.missed += 1;
            let offer = Offer {
                missed: g.scratch.missed,
                num_nodes,
                outstanding_any: g.any as u32,
                unique_location_asks: g.locations,
            };
            let level = if g.host {
                Locality::Node
            } else if g.relax && g.rack && rule.allows(Locality::Rack, &offer) {
                Locality::Rack
            } else if g.relax && rule.allows(Locality::OffSwitch, &offer) {
                Locality::OffSwitch
            } else {
                return None;
            };
            if level != Locality::OffSwitch {
                g.scratch.missed = 0;
            }
            Some(level)
        })
    }
}

/// `yarn.scheduler.capacity.node-locality-delay` and
/// `yarn.scheduler.capacity.rack-locality-additional-delay`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalityDelay {
    pub node_locality_delay: i32,
    pub rack_locality_additional_delay: i32,
}

impl Default for LocalityDelay {
    fn default() -> Self {
        LocalityDelay {
            node_locality_delay: 40,
            rack_locality_additional_delay: -1,
        }
    }
}

/// What the delay rule needs to know about one request at one node offer.
#[derive(Clone, Copy, Debug)]
pub struct Offer {
    /// Missed opportunities, this offer included.
    pub missed: u32,
    /// Live nodes in the cluster.
    pub num_nodes: u32,
    /// Containers still asked at ANY.
    pub outstanding_any: u32,
    /// Distinct resource names asked (hosts, racks and ANY).
    pub unique_location_asks: u32,
}

impl LocalityDelay {
    /// Whether a container at `level` may be given after `offer.missed` misses.
    pub fn allows(&self, level: Locality, offer: &Offer) -> bool {
        if self.node_locality_delay < 0 || offer.unique_location_asks <= 1 {
            return true;
        }
        let nodes = offer.num_nodes as f64;
        let missed = offer.missed as f64;
        let nld = self.node_locality_delay as f64;
        match level {
            Locality::Node => true,
            Locality::Rack => missed > nodes.min(nld),
            Locality::OffSwitch => {
                if self.rack_locality_additional_delay > -1 {
                    missed > nodes.min(nld + self.rack_locality_additional_delay as f64)
                } else {
                    let wait = ((offer.unique_location_asks as f64 - 1.0) / nodes).min(1.0);
                    missed > nodes.min(offer.outstanding_any as f64 * wait)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer(missed: u32) -> Offer {
        Offer {
            missed,
            num_nodes: 100,
            outstanding_any: 10,
            unique_location_asks: 31,
        }
    }

    #[test]
    fn rack_after_node_locality_delay() {
        let d = LocalityDelay::default();
        assert!(d.allows(Locality::Node, &offer(1)));
        assert!(!d.allows(Locality::Rack, &offer(40)));
        assert!(d.allows(Locality::Rack, &offer(41)));
    }

    #[test]
    fn off_switch_waits_for_locations_times_containers_over_nodes() {
        let d = LocalityDelay::default();
        // wait factor 30/100, 10 containers: threshold 3.
        assert!(!d.allows(Locality::OffSwitch, &offer(3)));
        assert!(d.allows(Locality::OffSwitch, &offer(4)));
        let extra = LocalityDelay {
            rack_locality_additional_delay: 5,
            ..d
        };
        assert!(!extra.allows(Locality::OffSwitch, &offer(45)));
        assert!(extra.allows(Locality::OffSwitch, &offer(46)));
    }

    #[test]
    fn small_clusters_cap_the_delay_and_any_only_is_never_delayed() {
        let d = LocalityDelay::default();
        let small = Offer {
            num_nodes: 3,
            ..offer(4)
        };
        assert!(d.allows(Locality::Rack, &small));
        let any_only = Offer {
            unique_location_asks: 1,
            ..offer(0)
        };
        assert!(d.allows(Locality::OffSwitch, &any_only));
        let off = LocalityDelay {
            node_locality_delay: -1,
            ..d
        };
        assert!(off.allows(Locality::OffSwitch, &offer(0)));
    }
}
