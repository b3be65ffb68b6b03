//! LOCAWARECLAIRGREEDYMIN / AVG of Beaumont et al., Sect. 6.2: the locality-aware
//! greedy rule with known durations. Each node j keeps RT_j, its ready time
//! given the tasks already started on it, and REM_j, the total duration of
//! the unprocessed tasks it holds a replica of. An idle node takes the local
//! task maximising f(t) = min (or mean) over t's holders of RT + REM: the
//! task whose holders are expected to finish last. COMM variant: with no
//! local task, the same criterion over all unprocessed tasks.
//!
//! As a planner it plays the rule out with the problem's task sizes.

use rand_chacha::ChaCha8Rng;

use crate::execute::{execute, ExecState, ReplicaGroups, Rule};
use crate::model::{NodeId, Problem, TaskId, NONE};
use crate::plan::Assignment;
use crate::policy::Planner;

/// `locaware-clair-min`.
pub const CLAIR_MIN: LocAwareClair = LocAwareClair {
    avg: false,
    comm: false,
};
/// `locaware-clair-min-comm`.
pub const CLAIR_MIN_COMM: LocAwareClair = LocAwareClair {
    avg: false,
    comm: true,
};
/// `locaware-clair-avg`.
pub const CLAIR_AVG: LocAwareClair = LocAwareClair {
    avg: true,
    comm: false,
};
/// `locaware-clair-avg-comm`.
pub const CLAIR_AVG_COMM: LocAwareClair = LocAwareClair {
    avg: true,
    comm: true,
};

/// Clairvoyant locality-aware greedy; `avg` for the mean variant.
#[derive(Clone, Copy, Debug, Default)]
pub struct LocAwareClair {
    pub avg: bool,
    pub comm: bool,
}

impl Planner for LocAwareClair {
    fn name(&self) -> &'static str {
        match (self.avg, self.comm) {
            (false, false) => "locaware-clair-min",
            (false, true) => "locaware-clair-min-comm",
            (true, false) => "locaware-clair-avg",
            (true, true) => "locaware-clair-avg-comm",
        }
    }

    fn plan(&self, problem: &Problem, seed: u64) -> Assignment {
        execute(problem, &mut self.rule(problem), seed).assignment(problem.num_nodes())
    }
}

/// Its own rule offline. The heartbeat cannot evaluate ready times: the
/// Session follows the played-out plan, then steals (and the COMM variant
/// spills), the closest rule it has.
impl crate::policy::Policy for LocAwareClair {
    fn name(&self) -> &'static str {
        Planner::name(self)
    }
    fn planner(&self) -> Option<&dyn Planner> {
        Some(self)
    }
    fn on_free_slot(&self) -> crate::policy::FreeSlot {
        use crate::policy::FreeSlot;
        if self.comm {
            FreeSlot::Spill { steal: true }
        } else {
            FreeSlot::Local { steal: true }
        }
    }
    fn clairvoyant(&self) -> bool {
        true
    }
    fn execute(&self, problem: &Problem, seed: u64) -> Option<crate::execute::Execution> {
        Some(execute(problem, &mut self.rule(problem), seed))
    }
}

impl LocAwareClair {
    pub fn rule(self, problem: &Problem) -> LocAwareClairRule {
        let mut rem = vec![0.0; problem.num_nodes()];
        for t in 0..problem.num_tasks() as TaskId {
            for &j in problem.replicas(t) {
                rem[j as usize] += local_time(problem, t, j);
            }
        }
        LocAwareClairRule {
            policy: self,
            groups: ReplicaGroups::new(problem),
            rem,
        }
    }
}

fn local_time(problem: &Problem, t: TaskId, j: NodeId) -> f64 {
    problem.task_size[t as usize] * problem.cost.local / problem.node_speed[j as usize]
}

pub struct LocAwareClairRule {
    policy: LocAwareClair,
    groups: ReplicaGroups,
    /// REM_j.
    rem: Vec<f64>,
}

impl LocAwareClairRule {
    #[cfg(test)]
    fn score(&self, st: &ExecState, t: TaskId) -> f64 {
        score_of(self.policy, &self.rem, st, st.problem.replicas(t))
    }

    fn take(&mut self, st: &ExecState, t: TaskId) -> TaskId {
        for &j in st.problem.replicas(t) {
            self.rem[j as usize] -= local_time(st.problem, t, j);
        }
        t
    }
}

/// f of a task held by `r`.
fn score_of(policy: LocAwareClair, rem: &[f64], st: &ExecState, r: &[NodeId]) -> f64 {
    if r.is_empty() {
        return 0.0;
    }
    let finish = r
        .iter()
        .map(|&j| st.busy_until(j).max(st.now) + rem[j as usize]);
    if policy.avg {
        finish.sum::<f64>() / r.len() as f64
    } else {
        finish.fold(f64::INFINITY, f64::min)
    }
}

impl Rule for LocAwareClairRule {
    fn pick(&mut self, st: &ExecState, node: NodeId, _rng: &mut ChaCha8Rng) -> Option<TaskId> {
        let (policy, rem) = (self.policy, &self.rem);
        let t = self
            .groups
            .best_local(st, node, |r| score_of(policy, rem, st, r));
        if t != NONE {
            return Some(self.take(st, t));
        }
        if !policy.comm {
            return None;
        }
        let t = self.groups.best_any(st, |r| score_of(policy, rem, st, r));
        (t != NONE).then(|| self.take(st, t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CostModel;
    use crate::plan::check_assignment;

    #[test]
    fn prefers_the_task_whose_holders_finish_last() {
        // n0 (busy until 20) holds t0 (with n1, REM_1 = 1 + 10) and t1 (with
        // n2, REM_2 = 1 + 1): t0's holders finish last under both variants.
        let replicas = vec![vec![0, 1], vec![0, 2], vec![1], vec![2]];
        let mut p = Problem::uniform(3, &replicas, CostModel::default());
        p.task_size = vec![1.0, 1.0, 10.0, 1.0];
        p.node_load = vec![20.0, 0.0, 0.0];
        let st = ExecState::new(&p);
        for avg in [false, true] {
            let mut r = LocAwareClair { avg, comm: false }.rule(&p);
            assert!(r.score(&st, 0) > r.score(&st, 1), "avg={avg}");
            let mut rng = rand::SeedableRng::seed_from_u64(0);
            assert_eq!(r.pick(&st, 0, &mut rng), Some(0));
            // REM of t0's holders dropped by its duration.
            assert_eq!(r.rem[1], 10.0);
        }
    }

    #[test]
    fn variants_cover_every_task() {
        let replicas: Vec<Vec<NodeId>> = (0..20u32).map(|i| vec![i % 3, (i + 1) % 3]).collect();
        let mut p = Problem::uniform(5, &replicas, CostModel::default());
        p.task_size = (0..20).map(|i| 1.0 + (i % 4) as f64).collect();
        for avg in [false, true] {
            for comm in [false, true] {
                let a = LocAwareClair { avg, comm }.plan(&p, 1);
                check_assignment(&p, &a).unwrap();
                let used = a.counts().iter().filter(|&&c| c > 0).count();
                assert_eq!(used, if comm { 5 } else { 3 });
            }
        }
    }
}
