//! The Session's side of [`activities`](super::activities): at a heartbeat
//! with room that granted nothing, why the node idled and why each of the
//! first applications in job order was passed over; and the record as a
//! report that names hosts and applications.

use serde::Serialize;

use crate::model::NodeId;

use super::activities::{Activities, Activity, Reason, EXPLAIN_APPS, NO_APP};
use super::{AppId, Grant, Resources, Session, SessionError};

/// [`Session::activities_report`]: entries with names, and counts by reason.
#[derive(Clone, Debug, Serialize)]
pub struct ActivitiesReport {
    pub counts: Vec<ReasonCount>,
    pub activities: Vec<NamedActivity>,
}

impl ActivitiesReport {
    /// As JSON (the plugin's REST answer).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()))
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct ReasonCount {
    pub reason: Reason,
    pub count: u64,
}

/// An [`Activity`] with its host and application names (`app` empty for a
/// node's own entry).
#[derive(Clone, Debug, Serialize)]
pub struct NamedActivity {
    pub host: String,
    pub app: String,
    pub reason: Reason,
    pub description: &'static str,
    pub first_ms: i64,
    pub last_ms: i64,
    pub repeats: u32,
    #[serde(skip_serializing_if = "is_none_ms")]
    pub until_ms: i64,
}

fn is_none_ms(t: &i64) -> bool {
    *t < 0
}

impl Session {
    /// Records why the heartbeat of `node` (with `room` before it granted,
    /// `free` after) passed over the first [`EXPLAIN_APPS`] busy
    /// applications it granted nothing, and, if it granted nothing at all
    /// with room, why the node idled. Bounded; no allocation.
    pub(super) fn explain_heartbeat(
        &mut self,
        node: NodeId,
        room: &Resources,
        free: &Resources,
        granted: &[Grant],
        blocked: bool,
    ) {
        let now = self.clock.now_ms;
        let idle = granted.is_empty();
        let mut node_reason = None;
        if self.asks.busy.is_empty() {
            if !idle || room.memory_mb <= 0 || room.vcores <= 0 {
                return;
            }
            node_reason = Some((Reason::NoAsk, -1));
        } else if idle && blocked {
            node_reason = Some((Reason::NoRoom, -1));
        }
        // Applications after the first one served here were behind it.
        let mut behind = false;
        for i in 0..self.asks.busy.len().min(EXPLAIN_APPS) {
            let app = self.asks.busy[i];
            if granted.iter().any(|g| g.app == app) {
                behind = true;
                continue;
            }
            let (reason, until) = if behind {
                (Reason::JobOrder, -1)
            } else {
                self.why(app, node, free)
            };
            if reason != Reason::NoRoom {
                node_reason.get_or_insert((reason, until));
            }
            let last = self.apps[app as usize].explained;
            self.apps[app as usize].explained =
                self.activities.record(last, now, node, app, reason, until);
        }
        if !idle || !room.fits(&self.asks.min_ask) && node_reason != Some((Reason::NoAsk, -1)) {
            return;
        }
        let (reason, until) = node_reason.unwrap_or((Reason::NoRoom, -1));
        let last = self.nodes[node as usize].explained;
        self.nodes[node as usize].explained = self
            .activities
            .record(last, now, node, NO_APP, reason, until);
    }

    /// Why `app` got nothing on `node` with `free`: its first ask group
    /// (by priority) that fits says.
    fn why(&self, app: AppId, node: NodeId, free: &Resources) -> (Reason, i64) {
        let n = &self.nodes[node as usize];
        let cap = self.wait_cap();
        let capped = self.dynamic.planned && cap >= 0;
        for g in &self.apps[app as usize].groups {
            if g.any <= 0 || !free.fits(&g.capability) {
                continue;
            }
            if !g.counts.is_empty() && !g.asked(n.name) {
                if !capped {
                    return (Reason::LocalityWait, -1);
                }
                // An idle slot serves it once its asks have waited the cap.
                let asked = g.asked.oldest().unwrap_or(self.clock.now_ms);
                let until = asked.saturating_add(cap);
                // Past the cap it goes remote when its turn in the order comes.
                if self.clock.now_ms < until {
                    return (Reason::LocalityWait, until);
                }
                return (Reason::JobOrder, -1);
            }
            // A reducer left for the faster node its plan chose.
            if self.dynamic.planned && (!g.counts.is_empty() || self.reducer_waits(app, g, node)) {
                return (Reason::NoPlannedWork, -1);
            }
            return (Reason::JobOrder, -1);
        }
        (Reason::NoRoom, -1)
    }

    /// The recorded skips about `app` (if given) on `node` (if given),
    /// oldest first, with the counts by reason since start.
    pub fn activities_report(&self, app: Option<AppId>, node: Option<NodeId>) -> ActivitiesReport {
        let named = |e: &Activity| NamedActivity {
            host: self
                .nodes
                .get(e.node as usize)
                .map_or_else(String::new, |n| n.host.clone()),
            app: if e.app == NO_APP {
                String::new()
            } else {
                self.apps
                    .get(e.app as usize)
                    .map_or_else(String::new, |a| a.name.clone())
            },
            reason: e.reason,
            description: e.reason.describe(),
            first_ms: e.first_ms,
            last_ms: e.last_ms,
            repeats: e.repeats,
            until_ms: e.until_ms,
        };
        ActivitiesReport {
            counts: self
                .activities
                .counts()
                .iter()
                .map(|&(reason, count)| ReasonCount { reason, count })
                .collect(),
            activities: self.activities.matching(app, node).map(named).collect(),
        }
    }

    /// [`Self::activities_report`] by names: the application registered as
    /// `app` and the node `host`, each if given; an unknown one is an error
    /// that names it.
    pub fn activities_named(
        &self,
        app: Option<&str>,
        host: Option<&str>,
    ) -> Result<ActivitiesReport, SessionError> {
        let app = match app {
            Some(a) => Some(self.app_id(a).ok_or_else(|| SessionError::BadApp {
                app: a.to_string(),
                problem: "is not registered with Spindle".into(),
            })?),
            None => None,
        };
        let node = match host {
            Some(h) => Some(self.node_id(h).ok_or_else(|| SessionError::BadNode {
                host: h.to_string(),
                problem: "is not registered with Spindle".into(),
            })?),
            None => None,
        };
        Ok(self.activities_report(app, node))
    }

    /// Replaces the record of idle heartbeats by an empty one of `capacity`
    /// entries (48 bytes each; default [`DEFAULT_ACTIVITIES`](super::activities::DEFAULT_ACTIVITIES)).
    pub fn set_activities_capacity(&mut self, capacity: usize) {
        self.activities = Activities::new(capacity);
    }

    /// Idle heartbeats and passed-over applications by reason, since start
    /// (the JMX bean's counters), in [`Reason::ALL`] order.
    pub fn reason_counts(&self) -> [(Reason, u64); Reason::ALL.len()] {
        self.activities.counts()
    }

    /// The application registered as `name`, if any (live or finished).
    pub fn app_id(&self, name: &str) -> Option<AppId> {
        self.names.app_by_name.get(name).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{SessionConfig, ANY};
    use crate::model::NodeId;
    use crate::policy::PolicyKind;
    use crate::session::{AppId, Reason, Resources, Session};

    fn cap() -> Resources {
        Resources::new(1024, 1)
    }

    /// Two nodes of one rack; `app` asks for one container on h1.
    fn waiting(policy: PolicyKind) -> (Session, NodeId, AppId) {
        let mut s = Session::new(SessionConfig {
            policy,
            ..SessionConfig::default()
        });
        s.add_node("h1", "/r1", cap(), 1.0).unwrap();
        let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
        let app = s.add_app("application_1_0001", 1.0, 0).unwrap();
        for res in ["h1", "/r1", ANY] {
            s.update_ask(app, 20, res, 1, cap(), true).unwrap();
        }
        (s, h2, app)
    }

    #[test]
    fn a_map_waiting_for_its_host_is_named_with_the_caps_deadline() {
        let (mut s, h2, app) = waiting(PolicyKind::Asm1);
        let mut out = Vec::new();
        s.node_heartbeat(h2, cap(), 1_000, &mut out).unwrap();
        s.node_heartbeat(h2, cap(), 2_000, &mut out).unwrap();
        assert!(out.is_empty());
        let r = s.activities_report(Some(app), None);
        assert_eq!(r.activities.len(), 1, "{r:?}");
        let e = &r.activities[0];
        assert_eq!(
            (e.host.as_str(), e.app.as_str(), e.reason, e.repeats),
            ("h2", "application_1_0001", Reason::LocalityWait, 2)
        );
        // The cap (3 s) counts from the first heartbeat, the clock's start.
        assert_eq!(e.until_ms, 1_000 + s.cfg.max_wait_ms);
        let node = s.activities_report(None, Some(h2));
        assert!(node
            .activities
            .iter()
            .any(|e| e.app.is_empty() && e.reason == Reason::LocalityWait));
        let counts = s.reason_counts();
        assert_eq!(counts[Reason::LocalityWait as usize].1, 4);
    }

    #[test]
    fn delay_scheduling_waits_without_a_deadline_and_an_idle_cluster_has_no_ask() {
        let (mut s, h2, app) = waiting(PolicyKind::HadoopDefault);
        let mut out = Vec::new();
        s.node_heartbeat(h2, cap(), 0, &mut out).unwrap();
        assert!(out.is_empty(), "delay scheduling skips the first offers");
        let r = s.activities_report(Some(app), None);
        assert_eq!(r.activities[0].reason, Reason::LocalityWait);
        assert_eq!(r.activities[0].until_ms, -1);
        s.finish_app(app).unwrap();
        s.node_heartbeat(h2, cap(), 10, &mut out).unwrap();
        let r = s.activities_report(None, Some(h2));
        assert_eq!(r.activities.last().unwrap().reason, Reason::NoAsk);
    }

    #[test]
    fn a_job_behind_the_one_served_waits_for_the_job_order() {
        let (mut s, _, app) = waiting(PolicyKind::Asm1);
        let later = s.add_app("application_1_0002", 1.0, 5).unwrap();
        for res in ["h1", "/r1", ANY] {
            s.update_ask(later, 20, res, 1, cap(), true).unwrap();
        }
        let h1 = s.node_id("h1").unwrap();
        let mut out = Vec::new();
        s.node_heartbeat(h1, cap(), 0, &mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].app, app);
        assert!(s.activities_report(Some(app), None).activities.is_empty());
        let r = s.activities_report(Some(later), None);
        assert_eq!(r.activities.len(), 1, "{r:?}");
        assert_eq!(r.activities[0].reason, Reason::JobOrder);
        // A heartbeat that granted records no entry of its node.
        assert!(s
            .activities_report(None, Some(h1))
            .activities
            .iter()
            .all(|e| !e.app.is_empty()));
    }

    #[test]
    fn an_unknown_app_or_host_is_named() {
        let (s, _, _) = waiting(PolicyKind::Asm1);
        let e = s
            .activities_named(Some("application_9_9"), None)
            .unwrap_err();
        assert!(e.to_string().contains("\"application_9_9\""), "{e}");
        let e = s.activities_named(None, Some("h9")).unwrap_err();
        assert!(e.to_string().contains("\"h9\""), "{e}");
        assert!(s
            .activities_named(Some("application_1_0001"), Some("h1"))
            .is_ok());
    }
}
