//! HDS, the Hadoop default scheduler as BAR Sect. V describes and
//! runs it: "when a server is idle, the scheduler chooses a data-local task,
//! then allocates the task to the server. If there is no feasible task, then
//! the scheduler will select a random task." Played out in the compile-time
//! form of Sect. V.B ([`compile_time`](super::compile_time)).

use crate::model::Problem;
use crate::plan::Assignment;
use crate::policy::compile_time::{dispatch, Dispatch, Dispatcher, Rule};
use crate::policy::{FreeSlot, Planner};

/// The HDS planner (compile-time form).
#[derive(Clone, Copy, Debug, Default)]
pub struct Hds;

impl Planner for Hds {
    fn name(&self) -> &'static str {
        "hds"
    }

    fn plan(&self, problem: &Problem, seed: u64) -> Assignment {
        self.dispatch(problem, seed).assignment(problem)
    }
}

impl Hds {
    /// The played-out dispatch. HDS never skips, so the heartbeat plays no
    /// part.
    pub fn dispatch(&self, problem: &Problem, seed: u64) -> Dispatch {
        dispatch(problem, Rule::Any, 1.0, seed)
    }
}

/// Not planned in the Session: at heartbeats, local first, then any task.
impl crate::policy::Policy for Hds {
    fn name(&self) -> &'static str {
        "hds"
    }
    fn planner(&self) -> Option<&dyn Planner> {
        Some(self)
    }
    fn planned(&self) -> bool {
        false
    }
    fn on_free_slot(&self) -> FreeSlot {
        FreeSlot::Dispatch(Dispatcher::Any)
    }
    fn heartbeat_rule(
        &self,
        _: crate::policy::delay::LocalityDelay,
    ) -> Option<Box<dyn crate::policy::heartbeat_rule::HeartbeatRule>> {
        Some(Box::new(crate::policy::compile_time::DispatchRule::new(
            Dispatcher::Any,
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
    use crate::plan::{check_assignment, evaluate};

    #[test]
    fn least_loaded_server_goes_first_and_never_waits() {
        // Three idle-ish servers, three tasks all held by the busiest one: the
        // two others take a task each at once (remote), the holder one local.
        let mut p = Problem::uniform(3, &vec![vec![2]; 3], CostModel::default());
        p.node_load = vec![0.0, 1.0, 2.0];
        let a = Hds.plan(&p, 5);
        check_assignment(&p, &a).unwrap();
        assert_eq!(a.counts(), vec![1, 1, 1]);
        assert_eq!(evaluate(&p, &a).non_local, 2);
    }
}
