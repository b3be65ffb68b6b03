//! LOCAWAREGREEDYMIN / LOCAWAREGREEDYAVG of Beaumont et al., Sect. 6.1.2
//! (non-clairvoyant). Each node j keeps n_j, the number of unprocessed tasks
//! it holds a replica of. An idle node takes, among its local unprocessed
//! tasks, the one maximising f(t) = min (or mean) of n_j over the replica
//! holders of t: the task whose holders still have the most work, i.e. the
//! one most at risk of running non-locally later. COMM variant: with no local
//! task left, the same criterion picks among all unprocessed tasks; MAKESPAN
//! variant: the node stays idle.
//!
//! As a planner it plays the rule out with the problem's task sizes.

use rand_chacha::ChaCha8Rng;

use crate::execute::{execute, ExecState, ReplicaGroups, Rule};
use crate::model::{NodeId, Problem, TaskId, NONE};
use crate::plan::Assignment;
use crate::policy::Planner;

/// `locaware-min`.
pub const LOCAWARE_MIN: LocAware = LocAware {
    avg: false,
    comm: false,
};
/// `locaware-min-comm`.
pub const LOCAWARE_MIN_COMM: LocAware = LocAware {
    avg: false,
    comm: true,
};
/// `locaware-avg`.
pub const LOCAWARE_AVG: LocAware = LocAware {
    avg: true,
    comm: false,
};
/// `locaware-avg-comm`.
pub const LOCAWARE_AVG_COMM: LocAware = LocAware {
    avg: true,
    comm: true,
};

/// Locality-aware greedy; `avg` picks the mean variant, `comm` allows non-local tasks.
#[derive(Clone, Copy, Debug, Default)]
pub struct LocAware {
    pub avg: bool,
    pub comm: bool,
}

impl Planner for LocAware {
    fn name(&self) -> &'static str {
        match (self.avg, self.comm) {
            (false, false) => "locaware-min",
            (false, true) => "locaware-min-comm",
            (true, false) => "locaware-avg",
            (true, true) => "locaware-avg-comm",
        }
    }

    fn plan(&self, problem: &Problem, seed: u64) -> Assignment {
        execute(problem, &mut self.rule(problem), seed).assignment(problem.num_nodes())
    }
}

/// Its own rule offline. The heartbeat cannot evaluate holder counts: the
/// Session follows the played-out plan, then steals (and the COMM variant
/// spills), the closest rule it has.
impl crate::policy::Policy for LocAware {
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
    fn execute(&self, problem: &Problem, seed: u64) -> Option<crate::execute::Execution> {
        Some(execute(problem, &mut self.rule(problem), seed))
    }
}

impl LocAware {
    pub fn rule(self, problem: &Problem) -> LocAwareRule {
        LocAwareRule {
            policy: self,
            groups: ReplicaGroups::new(problem),
        }
    }

    /// f(t) from the holders' unprocessed-task counts.
    #[cfg(test)]
    fn score(self, st: &ExecState, t: TaskId) -> f64 {
        self.score_of(st, st.problem.replicas(t))
    }

    /// f of a task held by `r`.
    fn score_of(self, st: &ExecState, r: &[NodeId]) -> f64 {
        if r.is_empty() {
            return 0.0;
        }
        let n = r.iter().map(|&j| st.local_left(j));
        if self.avg {
            n.map(f64::from).sum::<f64>() / r.len() as f64
        } else {
            n.min().map_or(0.0, f64::from)
        }
    }
}

pub struct LocAwareRule {
    policy: LocAware,
    groups: ReplicaGroups,
}

impl Rule for LocAwareRule {
    fn pick(&mut self, st: &ExecState, node: NodeId, _rng: &mut ChaCha8Rng) -> Option<TaskId> {
        let p = self.policy;
        let t = self.groups.best_local(st, node, |r| p.score_of(st, r));
        if t != NONE {
            return Some(t);
        }
        if !p.comm {
            return None;
        }
        let t = self.groups.best_any(st, |r| p.score_of(st, r));
        (t != NONE).then_some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CostModel;
    use crate::plan::check_assignment;

    fn unit() -> CostModel {
        CostModel {
            local: 1.0,
            remote: 1.0,
            remote_growth: 0.0,
        }
    }

    #[test]
    fn picks_the_task_whose_holders_are_busiest() {
        // n0 holds t0 (also on n1, which holds 3 tasks) and t1 (also on n2,
        // which holds only t1): n0 runs t0 and leaves t1 to n2.
        let replicas = vec![vec![0, 1], vec![0, 2], vec![1], vec![1]];
        let p = Problem::uniform(3, &replicas, unit());
        for avg in [false, true] {
            for seed in 0..5 {
                let e = execute(&p, &mut LocAware { avg, comm: false }.rule(&p), seed);
                assert_eq!(e.node_of, vec![0, 2, 1, 1], "avg={avg} seed={seed}");
            }
        }
    }

    #[test]
    fn min_and_avg_differ() {
        // Holders' counts: n0 = 2, n1 = 4, n2 = 1, n3 = 2. For n0's tasks,
        // t0 on {0,1,2}: min 1, mean 7/3; t1 on {0,3}: min 2, mean 2.
        let replicas = vec![
            vec![0, 1, 2],
            vec![0, 3],
            vec![1],
            vec![1],
            vec![3],
            vec![1],
        ];
        let p = Problem::uniform(4, &replicas, unit());
        let st = ExecState::new(&p);
        let min = LocAware {
            avg: false,
            comm: false,
        };
        let avg = LocAware {
            avg: true,
            comm: false,
        };
        assert_eq!(min.score(&st, 0), 1.0);
        assert_eq!(min.score(&st, 1), 2.0);
        assert!((avg.score(&st, 0) - 7.0 / 3.0).abs() < 1e-12);
        assert_eq!(avg.score(&st, 1), 2.0);
        let mut r = min.rule(&p);
        let mut rng = rand::SeedableRng::seed_from_u64(0);
        assert_eq!(r.pick(&st, 0, &mut rng), Some(1));
        let mut r = avg.rule(&p);
        assert_eq!(r.pick(&st, 0, &mut rng), Some(0));
    }

    #[test]
    fn comm_variant_takes_non_local_work() {
        let p = Problem::uniform(3, &vec![vec![0]; 6], unit());
        for avg in [false, true] {
            let a = LocAware { avg, comm: true }.plan(&p, 5);
            check_assignment(&p, &a).unwrap();
            assert_eq!(a.counts(), vec![2, 2, 2]);
            let m = LocAware { avg, comm: false }.plan(&p, 5);
            assert_eq!(m.counts(), vec![6, 0, 0]);
        }
    }
}
