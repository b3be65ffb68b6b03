//! The *heartbeat rule* extension point: a policy that decides at node
//! heartbeats with its own counters (the CapacityScheduler's delay
//! scheduling, the FairScheduler, BAR's dispatchers) owns that logic and
//! its state in a [`HeartbeatRule`], made by
//! [`Policy::heartbeat_rule`](super::Policy::heartbeat_rule) in its own
//! file. The Session asks it, through a [`SlotView`] of its asks at one
//! free slot, what the node takes once its planned queue is empty; the
//! generic heartbeat tests no policy flag.
//!
//! A leaf module (it imports only the model), so that the policy files and
//! the Session both import it and not each other.

use crate::model::Locality;

/// A container the rule chose: one of `app`'s ask group `group` (at
/// `priority`) at `locality` on the heartbeating node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pick {
    pub app: u32,
    pub group: u32,
    pub priority: i32,
    pub locality: Locality,
}

/// A rule's state per ask group, kept by the Session beside the group's
/// asks (groups come and go with the AM's asks) and read only by the rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroupScratch {
    /// Scheduling opportunities missed since the rule last reset the count.
    pub missed: u32,
    /// The FairScheduler's allowed locality level (`None` before its first offer).
    pub level: Option<Locality>,
}

/// One ask group offered the heartbeating node: what it asks for there.
/// Only groups with containers left that fit the node's free room are
/// offered.
pub struct Offered<'a> {
    /// It asks for this host.
    pub host: bool,
    /// It asks for this host's rack.
    pub rack: bool,
    /// It accepts a less local container (`relaxLocality`).
    pub relax: bool,
    /// It has host or rack asks (false: a reducer, any node will do).
    pub located: bool,
    /// Containers still asked at ANY.
    pub any: i32,
    /// Distinct resource names asked (hosts, racks and ANY).
    pub locations: u32,
    /// The rule's own state for this group.
    pub scratch: &'a mut GroupScratch,
}

/// The Session's asks as one node with free room sees them at a heartbeat
/// (the node and its free resources are the view's). Object-safe: a rule
/// is a trait object made once per Session.
pub trait SlotView {
    /// Live nodes in the cluster.
    fn alive_nodes(&self) -> u32;
    /// Applications with containers asked for, in FIFO order.
    fn busy(&self) -> &[u32];
    /// Containers `app` runs over its weight (the FairScheduler's usage).
    fn usage(&self, app: u32) -> f64;
    /// `app`'s position in FIFO order.
    fn rank(&self, app: u32) -> u32;
    /// Offers the node to `app`'s groups in priority order; the first for
    /// which `level` names a locality is picked.
    fn offer_app(
        &mut self,
        app: u32,
        level: &mut dyn FnMut(Offered<'_>) -> Option<Locality>,
    ) -> Option<Pick>;
    /// Offers the node to every busy application's groups, in FIFO then
    /// priority order, as Hadoop's FifoScheduler visits them.
    fn offer_fifo(
        &mut self,
        level: &mut dyn FnMut(Offered<'_>) -> Option<Locality>,
    ) -> Option<Pick>;
    /// The first group in FIFO then priority order asking for this host.
    fn node_local(&mut self) -> Option<Pick>;
    /// Whether any busy group has no host or rack asks (a reducer).
    fn has_location_less(&self) -> bool;
    /// Containers of the smallest ask the live nodes hold.
    fn cluster_slots(&mut self) -> u64;
    /// Containers granted and not finished, over live nodes.
    fn running(&self) -> u64;
}

/// A policy's decision at a heartbeat of a node with room and nothing
/// planned for it, with its own per-heartbeat state (counters, buffers).
pub trait HeartbeatRule: Send {
    /// What the node takes, if anything.
    fn free_slot(&mut self, view: &mut dyn SlotView) -> Option<Pick>;

    /// Whether a heartbeat may take more than one container
    /// (`yarn.scheduler.fair.assignmultiple` is false by default).
    fn assign_multiple(&self) -> bool {
        true
    }

    /// A container at `locality` went to a group with this scratch state
    /// (by this rule or by any other path of the heartbeat).
    fn granted(&self, _scratch: &mut GroupScratch, _locality: Locality) {}

    /// Room for `apps` applications in the rule's buffers (at registration,
    /// so the heartbeat does not allocate).
    fn reserve(&mut self, _apps: usize) {}
}
