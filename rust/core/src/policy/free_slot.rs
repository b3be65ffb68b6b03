//! The *free slot* extension point: what a node with room and an empty
//! planned queue does ([`FreeSlot`], a policy's answer), and the verbs it is
//! made of ([`ClusterView`]), which each engine carries out in its own terms.
//! [`FreeSlot::decide`] strings the verbs together, once for every engine:
//! the offline executor ([`crate::execute::Planned`]) and the Session
//! (`session::heartbeat`).

use crate::model::NodeId;
use crate::policy::compile_time::Dispatcher;
use crate::policy::fair::FairLocality;

/// What a node does once it has room and its planned queue is empty: the
/// answer of [`super::Policy::on_free_slot`]. The Session reads it at each
/// heartbeat (`session::heartbeat`), the offline executor through
/// [`Planned`](crate::execute::Planned). Asks with no location at all (reducers) have no local
/// choice and are served under every answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FreeSlot {
    /// MAKESPAN-ORIENTED (Beaumont et al., Sect. 2): with `steal`, first take a task
    /// local to this node from the longest queue (of at least two; Beaumont et al.
    /// Sect. 7.1); then local work, groups whose locality wait reached the
    /// cap, location-less asks; else stay idle.
    Local { steal: bool },
    /// COMM-ORIENTED: with `steal`, steal as in `Local`; then never idle
    /// while work remains: node-local, then rack-local, then off-switch
    /// (FIFO over the applications, as Hadoop's FifoScheduler visits them).
    Spill { steal: bool },
    /// Steal, then the locality wait priced from the plan
    /// ([`super::asm1_priced`]): a remote task only if waiting for its holder is
    /// costlier; else the slot waits. Not COMM: it may idle while work remains.
    Priced,
    /// The CapacityScheduler's delay scheduling ([`super::delay`]): missed
    /// opportunities per application before rack-local and off-switch.
    Delay,
    /// The FairScheduler ([`super::fair`]): applications by usage over weight, its
    /// locality thresholds, one container per heartbeat.
    Fair(FairLocality),
    /// One of BAR's baseline dispatchers: local first, then its rule
    /// ([`Dispatcher`]), the same in the compile-time dispatch
    /// (`spindle plan`) and the Session.
    Dispatch(Dispatcher),
}

impl FreeSlot {
    /// Whether a node first steals a task local to it from the longest queue.
    pub fn steals(self) -> bool {
        matches!(
            self,
            FreeSlot::Local { steal: true } | FreeSlot::Spill { steal: true } | FreeSlot::Priced
        )
    }

    /// COMM-ORIENTED policies take non-local work rather than stay idle;
    /// MAKESPAN-ORIENTED ones run local tasks only (Beaumont et al., Sect. 2).
    pub fn is_comm(self) -> bool {
        !matches!(self, FreeSlot::Local { .. } | FreeSlot::Priced)
    }
}

/// The verbs of a [`FreeSlot`] answer as one engine carries them out at a
/// free slot of `node`; each returns what to start there (a task offline, a
/// container in the Session) or `None`. Engines implement it on a view of
/// their state; [`FreeSlot::decide`] is generic over it, so the heartbeat
/// pays no dynamic dispatch.
///
/// The heartbeat-time answers (delay, fair, dispatch) are not verbs: the
/// Session asks the policy's own
/// [`HeartbeatRule`](super::HeartbeatRule) instead, and an engine without
/// heartbeats plays them as [`ClusterView::spill`].
///
/// Where the engines differ today (behaviour pinned by the golden
/// snapshots): the Session's local-only verb also serves local asks no
/// queue holds and groups at the locality-wait cap, where the executor,
/// whose queues hold every task, has none; the executor runs no delay or
/// FairScheduler (those policies have no plan) and plays a dispatcher's
/// plan out with [`ClusterView::spill`] once its queue is done.
pub trait ClusterView {
    type Pick;
    /// A task local to `node` from another node's queue, the longest
    /// queues (of at least two) first (Beaumont et al., Sect. 7.1).
    fn steal(&mut self, node: NodeId) -> Option<Self::Pick>;
    /// MAKESPAN-ORIENTED: what `node` may run without a remote read, else
    /// nothing (the slot idles).
    fn local_only(&mut self, node: NodeId) -> Option<Self::Pick>;
    /// COMM-ORIENTED: node-local, then rack-local, then off-switch work,
    /// rather than idle.
    fn spill(&mut self, node: NodeId) -> Option<Self::Pick>;
    /// The remote task the plan starts last if waiting for its holder
    /// costs more ([`super::asm1_priced`]); else wait.
    fn priced(&mut self, node: NodeId) -> Option<Self::Pick>;
}

impl FreeSlot {
    /// The answer carried out on `view`: steal first if the answer
    /// steals, then the priced wait, local-only work or the spill. The
    /// heartbeat-time rules (delay, fair, dispatch) need heartbeats: the
    /// Session runs the policy's [`HeartbeatRule`](super::HeartbeatRule)
    /// instead; an engine without them (the offline executor, once a
    /// dispatcher's played-out plan is done) spills.
    #[inline]
    pub fn decide<V: ClusterView>(self, view: &mut V, node: NodeId) -> Option<V::Pick> {
        match self {
            FreeSlot::Delay | FreeSlot::Fair(_) | FreeSlot::Dispatch(_) => return view.spill(node),
            FreeSlot::Local { .. } | FreeSlot::Spill { .. } | FreeSlot::Priced => {}
        }
        if self.steals() {
            if let Some(p) = view.steal(node) {
                return Some(p);
            }
        }
        match self {
            FreeSlot::Priced => view.priced(node),
            FreeSlot::Spill { .. } => view.spill(node),
            _ => view.local_only(node),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records the verbs called; answers `Some` at the verb named `yes`.
    struct Recorder {
        calls: Vec<&'static str>,
        yes: &'static str,
    }

    impl Recorder {
        fn verb(&mut self, name: &'static str) -> Option<&'static str> {
            self.calls.push(name);
            (self.yes == name).then_some(name)
        }
    }

    impl ClusterView for Recorder {
        type Pick = &'static str;
        fn steal(&mut self, _: NodeId) -> Option<&'static str> {
            self.verb("steal")
        }
        fn local_only(&mut self, _: NodeId) -> Option<&'static str> {
            self.verb("local_only")
        }
        fn spill(&mut self, _: NodeId) -> Option<&'static str> {
            self.verb("spill")
        }
        fn priced(&mut self, _: NodeId) -> Option<&'static str> {
            self.verb("priced")
        }
    }

    fn calls(f: FreeSlot, yes: &'static str) -> (Option<&'static str>, Vec<&'static str>) {
        let mut r = Recorder {
            calls: Vec::new(),
            yes,
        };
        let pick = f.decide(&mut r, 0);
        (pick, r.calls)
    }

    #[test]
    fn each_answer_runs_its_verbs_in_order() {
        use FreeSlot as F;
        let cases: [(F, &[&str]); 8] = [
            (F::Local { steal: false }, &["local_only"]),
            (F::Local { steal: true }, &["steal", "local_only"]),
            (F::Spill { steal: false }, &["spill"]),
            (F::Spill { steal: true }, &["steal", "spill"]),
            (F::Priced, &["steal", "priced"]),
            (F::Delay, &["spill"]),
            (F::Fair(FairLocality::DEFAULT), &["spill"]),
            (F::Dispatch(Dispatcher::Any), &["spill"]),
        ];
        for (f, want) in cases {
            assert_eq!(calls(f, "none"), (None, want.to_vec()), "{f:?}");
        }
    }

    #[test]
    fn a_successful_steal_ends_the_decision() {
        for f in [
            FreeSlot::Local { steal: true },
            FreeSlot::Spill { steal: true },
            FreeSlot::Priced,
        ] {
            assert_eq!(calls(f, "steal"), (Some("steal"), vec!["steal"]), "{f:?}");
        }
        // Heartbeat-time rules never steal.
        assert_eq!(calls(FreeSlot::Delay, "steal"), (None, vec!["spill"]));
    }
}
