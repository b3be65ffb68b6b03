//! Online re-optimisation (S-PC Sect. V and VI.B): at a job's arrival or
//! departure, LP-Schedule is solved again over the work that remains, the
//! machines being free from `now` on. The sets S of constraint (2) found by
//! the previous solve are kept (in job ids) and start the next one: a set is
//! a valid constraint for any remaining sizes, and most of them stay tight.

use super::lp::{self, LpJob, LpSolution};
use super::{JobSet, SpcError, Speeds};
use crate::model::Csr;

/// Keeps the cuts from one solve to the next.
#[derive(Clone, Debug, Default)]
pub struct Resolver {
    /// Sets of (2), keyed by job index of the [`JobSet`].
    cuts: KeyedCuts,
}

/// The sets S of constraint (2) of a solve, in stable job keys, so that they
/// warm-start a later solve over a job set that changed in between (the
/// Session's live applications come and go): each set restricted to the
/// jobs still present is still a valid constraint.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KeyedCuts {
    sets: Vec<Vec<u64>>,
}

impl KeyedCuts {
    pub fn len(&self) -> usize {
        self.sets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }

    /// Solves LP-Schedule at `now` over `jobs` (job `i` has the stable key
    /// `keys[i]`; `preds` in these jobs' indices), starting from the kept
    /// sets where their jobs are present (none if `warm` is false). Returns
    /// the solution and the sets to keep for the next solve.
    pub fn solve(
        &self,
        keys: &[u64],
        jobs: &[LpJob],
        preds: &Csr,
        mu: f64,
        now: f64,
        warm: bool,
    ) -> Result<(LpSolution, KeyedCuts), SpcError> {
        let warm_sets: Vec<Vec<u32>> = if warm && !self.sets.is_empty() {
            let local: std::collections::HashMap<u64, u32> = keys
                .iter()
                .enumerate()
                .map(|(i, &k)| (k, i as u32))
                .collect();
            self.sets
                .iter()
                .map(|s| s.iter().filter_map(|k| local.get(k).copied()).collect())
                .filter(|s: &Vec<u32>| !s.is_empty())
                .collect()
        } else {
            Vec::new()
        };
        let sol = lp::solve_at(jobs, preds, mu, now, &warm_sets)?;
        let sets = sol
            .cuts
            .iter()
            .map(|s| s.iter().map(|&i| keys[i as usize]).collect())
            .collect();
        Ok((sol, KeyedCuts { sets }))
    }
}

/// One re-solve: `C_j^LP` of the jobs still open (`None` for jobs done or
/// not yet released), and the LP's own figures.
#[derive(Clone, Debug)]
pub struct Resolved {
    pub completion: Vec<Option<f64>>,
    pub lp: LpSolution,
}

impl Resolver {
    pub fn cuts(&self) -> usize {
        self.cuts.len()
    }

    /// Solves over the jobs released by `now` that have work left;
    /// `remaining[t]` is task `t`'s size still to process (0 when done).
    /// `warm = false` forgets the previous cuts (for comparison).
    pub fn resolve(
        &mut self,
        jobs: &JobSet,
        speeds: &Speeds,
        remaining: &[f64],
        now: f64,
        warm: bool,
    ) -> Result<Resolved, SpcError> {
        let n = jobs.len();
        let mut local = vec![u32::MAX; n];
        let mut open: Vec<u32> = Vec::new();
        let mut sub: Vec<LpJob> = Vec::new();
        for (j, slot) in local.iter_mut().enumerate() {
            let (mut p, mut t) = (0.0, 0u64);
            for &task in jobs.tasks.row(j) {
                let r = remaining[task as usize];
                if r > 0.0 {
                    p += r;
                    t += 1;
                }
            }
            if t > 0 && jobs.release[j] <= now {
                *slot = open.len() as u32;
                open.push(j as u32);
                sub.push(LpJob {
                    p,
                    mu_j: speeds.mu_q(t),
                    release: jobs.release[j],
                    weight: jobs.weight[j],
                });
            }
        }
        let preds = Csr::from_rows(open.iter().map(|&j| {
            jobs.after
                .row(j as usize)
                .iter()
                .filter(|&&a| local[a as usize] != u32::MAX)
                .map(|&a| local[a as usize])
                .collect::<Vec<u32>>()
        }));
        let keys: Vec<u64> = open.iter().map(|&j| u64::from(j)).collect();
        let (sol, cuts) = self
            .cuts
            .solve(&keys, &sub, &preds, speeds.mu(), now, warm)?;
        self.cuts = cuts;
        let mut completion = vec![None; n];
        for (i, &j) in open.iter().enumerate() {
            completion[j as usize] = Some(sol.completion[i]);
        }
        Ok(Resolved {
            completion,
            lp: sol,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::Instance;

    #[test]
    fn a_resolve_drops_done_work_and_reuses_the_cuts() {
        let i = Instance::from_json(
            r#"{"nodes":[{"host":"a","speed":2},{"host":"b"}],
                "jobs":[{"id":"x","weight":1,"tasks":[{"id":"x1","replicas":[],"size":4},{"id":"x2","replicas":[],"size":4}]},
                        {"id":"y","weight":3,"tasks":[{"id":"y1","replicas":[],"size":2}]},
                        {"id":"z","weight":2,"after":["x"],"tasks":[{"id":"z1","replicas":[],"size":3}]},
                        {"id":"late","weight":1,"release":100,"tasks":[{"id":"l1","replicas":[],"size":1}]}]}"#,
        )
        .unwrap();
        let jobs = JobSet::from_instance(&i);
        let speeds = Speeds::of(&i.problem);
        let mut r = Resolver::default();
        let first = r
            .resolve(&jobs, &speeds, &i.problem.task_size, 0.0, true)
            .unwrap();
        assert!(first.completion[..3].iter().all(Option::is_some));
        assert_eq!(first.completion[3], None, "not released yet");
        // Kept for the next solve: the sets the first one added (none
        // where the chain start alone was optimal).
        assert_eq!(r.cuts(), first.lp.cuts.len());
        // At t = 2: y is done, x half done.
        let remaining = [2.0, 2.0, 0.0, 3.0, 1.0];
        let warm = r.resolve(&jobs, &speeds, &remaining, 2.0, true).unwrap();
        let cold = Resolver::default()
            .resolve(&jobs, &speeds, &remaining, 2.0, false)
            .unwrap();
        assert_eq!(warm.completion[1], None);
        assert!((warm.lp.objective - cold.lp.objective).abs() < 1e-6 * cold.lp.objective);
        for c in warm.completion.iter().flatten() {
            assert!(*c >= 2.0);
        }
    }
}
