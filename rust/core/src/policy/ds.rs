//! DS, delay scheduling (Zaharia et al.) as BAR Sect. V runs it:
//! "if a server is idle and there is no task \[that\] prefers the server, the
//! scheduler skips the server and increases the delay counter by one. However,
//! if the delay counter exceeds the delay threshold, the scheduler allocates a
//! remote task to the server and sets the delay counter to be zero." The
//! threshold is a fraction of the server count (DS0.15, DS0.25 in the paper).
//! As in Zaharia et al.'s algorithm, launching a local task also resets the
//! counter. Played out in the compile-time form of Sect. V.B
//! ([`compile_time`](super::compile_time)); a skipped server is offered again
//! one heartbeat later.

use crate::model::Problem;
use crate::plan::Assignment;
use crate::policy::compile_time::{dispatch, Dispatch, Dispatcher, Rule};
use crate::policy::{FreeSlot, Planner};

/// Hadoop 1's minimum TaskTracker heartbeat, 3 s, in the paper's unit (its
/// C_loc = 20 stands for a 19 s task): how long a skipped server waits.
pub const HEARTBEAT: f64 = 3.0;

/// `ds0.15`: BAR's DS0.15.
pub const DS15: Ds = Ds {
    name: "ds0.15",
    fraction: 0.15,
    heartbeat: HEARTBEAT,
};

/// `ds0.25`: BAR's DS0.25.
pub const DS25: Ds = Ds {
    name: "ds0.25",
    fraction: 0.25,
    heartbeat: HEARTBEAT,
};

/// The DS planner: delay threshold `fraction` of the server count.
#[derive(Clone, Copy, Debug)]
pub struct Ds {
    pub name: &'static str,
    pub fraction: f64,
    pub heartbeat: f64,
}

impl Ds {
    /// The rule for `problem`: threshold = floor(fraction * servers).
    pub fn rule(&self, problem: &Problem) -> Rule {
        self.rule_for(problem.num_nodes())
    }

    /// The rule on a cluster of `nodes` servers (the Session's live nodes).
    pub fn rule_for(&self, nodes: usize) -> Rule {
        self.dispatcher().rule(nodes)
    }

    /// The rule before the server count is known.
    pub fn dispatcher(&self) -> Dispatcher {
        Dispatcher::Delay {
            fraction: self.fraction,
        }
    }

    /// The played-out dispatch, with start times for [`Dispatch::makespan`].
    pub fn dispatch(&self, problem: &Problem, seed: u64) -> Dispatch {
        dispatch(problem, self.rule(problem), self.heartbeat, seed)
    }
}

impl Planner for Ds {
    fn name(&self) -> &'static str {
        self.name
    }

    fn plan(&self, problem: &Problem, seed: u64) -> Assignment {
        self.dispatch(problem, seed).assignment(problem)
    }
}

/// Not planned in the Session: at heartbeats, local first, then the delay
/// counter over the live nodes.
impl crate::policy::Policy for Ds {
    fn name(&self) -> &'static str {
        self.name
    }
    fn planner(&self) -> Option<&dyn Planner> {
        Some(self)
    }
    fn planned(&self) -> bool {
        false
    }
    fn on_free_slot(&self) -> FreeSlot {
        FreeSlot::Dispatch(self.dispatcher())
    }
    fn heartbeat_rule(
        &self,
        _: crate::policy::delay::LocalityDelay,
    ) -> Option<Box<dyn crate::policy::heartbeat_rule::HeartbeatRule>> {
        Some(Box::new(crate::policy::compile_time::DispatchRule::new(
            self.dispatcher(),
        )))
    }
    fn compile_time(&self, problem: &Problem, seed: u64) -> Option<Dispatch> {
        Some(self.dispatch(problem, seed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CostModel;
    use crate::plan::check_assignment;

    #[test]
    fn threshold_is_a_fraction_of_the_servers() {
        let p = Problem::uniform(20, &[], CostModel::default());
        let ds = Ds {
            name: "ds0.15",
            fraction: 0.15,
            heartbeat: HEARTBEAT,
        };
        assert_eq!(ds.rule(&p), Rule::Delay { threshold: 3 });
    }

    #[test]
    fn a_longer_delay_waits_longer_for_locality() {
        // Ten servers; every task is held by server 0 only, which is busy
        // until 5 (a remote task costs 3, a heartbeat 3). With threshold
        // 0.5 * 10 = 5 idle servers skip more, so fewer tasks go remote
        // before server 0 frees up than with 0.1 * 10 = 1.
        let mut p = Problem::uniform(10, &vec![vec![0]; 10], CostModel::default());
        p.node_load[0] = 5.0;
        let remote = |fraction: f64| {
            let ds = Ds {
                name: "ds",
                fraction,
                heartbeat: HEARTBEAT,
            };
            let a = ds.plan(&p, 1);
            check_assignment(&p, &a).unwrap();
            a.node_of.iter().filter(|&&s| s != 0).count()
        };
        assert!(
            remote(0.5) < remote(0.1),
            "{} vs {}",
            remote(0.5),
            remote(0.1)
        );
    }
}
