//! Map-only (S-PC Sect. VI.A): S-PC over the map stages alone. The LP
//! holds the jobs without predecessors; a later stage (a reduce) follows its
//! last predecessor in the order and its tasks go to random nodes ("scheduling
//! reduce tasks to random machines", the paper's reading of this baseline).

use super::{JobScheduler, Planner};
use crate::model::{Csr, Problem};
use crate::plan::Assignment;
use crate::spc::schedule::{place, Pick, Rules};
use crate::spc::{lp, lp_jobs, JobSet, Outcome, SpcError, Speeds};

pub struct SpcMapOnly;

impl JobScheduler for SpcMapOnly {
    fn name(&self) -> &'static str {
        "spc-map-only"
    }

    fn schedule(&self, jobs: &JobSet, problem: &Problem, seed: u64) -> Result<Outcome, SpcError> {
        let n = jobs.len();
        let topo = jobs.topo_order(&vec![0.0; n])?;
        let speeds = Speeds::of(problem);
        let all = lp_jobs(jobs, &speeds);
        let roots: Vec<usize> = (0..n).filter(|&j| jobs.after.degree(j) == 0).collect();
        let sub: Vec<lp::LpJob> = roots.iter().map(|&j| all[j]).collect();
        let none = Csr::from_rows(roots.iter().map(|_| std::iter::empty()));
        let sol = lp::solve(&sub, &none, speeds.mu(), &[])?;
        let mut key = vec![0.0; n];
        for (i, &j) in roots.iter().enumerate() {
            key[j] = sol.completion[i];
        }
        for &j in &topo {
            let j = j as usize;
            if jobs.after.degree(j) > 0 {
                key[j] = jobs
                    .after
                    .row(j)
                    .iter()
                    .map(|&a| key[a as usize])
                    .fold(f64::NEG_INFINITY, f64::max);
            }
        }
        let order = jobs.topo_order(&key)?;
        let pick: Vec<Pick> = (0..n)
            .map(|j| {
                if jobs.after.degree(j) == 0 {
                    Pick::EarliestCompletion
                } else {
                    Pick::Random
                }
            })
            .collect();
        let schedule = place(jobs, problem, &Rules::new(&order, &pick, seed))?;
        Ok(Outcome { schedule, lp: None })
    }
}

/// In the Session the LP over the map stages orders the applications
/// ([`crate::session::JobOrder::SpcMapOnly`]). The planner places located
/// asks only (maps), by Algorithm 2; reducers (location-less asks) are never
/// planned and go to whichever node frees first, the Session's counterpart
/// of "reduce tasks to random machines".
impl Planner for SpcMapOnly {
    fn name(&self) -> &'static str {
        "spc-map-only"
    }

    fn plan(&self, problem: &Problem, seed: u64) -> Assignment {
        super::placed_or_asm1(
            Planner::name(self),
            problem,
            seed,
            crate::spc::place_all(problem, Pick::EarliestCompletion, seed),
        )
    }
}

super::job_scheduler_policy!(SpcMapOnly, SpcMapOnly);
