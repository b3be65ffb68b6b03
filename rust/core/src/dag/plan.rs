//! Planning a sequence of jobs with one of the DAG schedulers. What the
//! schedulers share (options, quality condition, trial bookkeeping) lives in
//! the leaf `refine.rs`, so they do not import this file back.

use std::time::Instant;

use super::blind::Blind;
use super::check::{metrics, Metrics};
use super::fisch::Fisch;
use super::greedy::Greedy;
pub use super::refine::{PlanOptions, Quality};
use super::{DagError, DataCentre, Job, Placement};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DagPolicy {
    Fisch,
    Blind,
    Greedy,
}

impl DagPolicy {
    pub const ALL: [DagPolicy; 3] = [DagPolicy::Fisch, DagPolicy::Blind, DagPolicy::Greedy];

    pub fn parse(s: &str) -> Result<DagPolicy, DagError> {
        match s {
            "fisch" => Ok(DagPolicy::Fisch),
            "blind" => Ok(DagPolicy::Blind),
            "greedy" => Ok(DagPolicy::Greedy),
            other => Err(DagError::UnknownPolicy(other.to_string())),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DagPolicy::Fisch => "fisch",
            DagPolicy::Blind => "blind",
            DagPolicy::Greedy => "greedy",
        }
    }
}

#[derive(Clone, Debug)]
pub struct PlanOutput {
    pub schedule: Vec<Placement>,
    pub metrics: Metrics,
    /// Wall time of planning (ms).
    pub plan_ms: f64,
    pub per_task_ms: f64,
    /// Refinement steps taken over all jobs.
    pub refinements: u32,
}

/// Release times: job j comes when the work of the jobs before it, at
/// `load` times the total power, is done.
pub fn releases(jobs: &[Job], dc: &DataCentre, load: Option<f64>) -> Vec<f64> {
    let mut t = 0.0;
    jobs.iter()
        .map(|j| {
            let r = t;
            if let Some(l) = load {
                t += j.work() / (l * dc.power());
            }
            r
        })
        .collect()
}

/// Schedules `jobs` one after another with `policy`.
pub fn plan(jobs: &[Job], dc: &DataCentre, policy: DagPolicy, opts: &PlanOptions) -> PlanOutput {
    let rel = releases(jobs, dc, opts.load);
    let mut schedule = Vec::with_capacity(jobs.iter().map(Job::len).sum());
    let started = Instant::now();
    let mut refinements = 0;
    match policy {
        DagPolicy::Greedy => {
            let mut g = Greedy::new(dc);
            for (j, job) in jobs.iter().enumerate() {
                g.schedule_job(j as u32, job, rel[j], &mut schedule);
            }
        }
        DagPolicy::Fisch => {
            let mut f = Fisch::new(dc, opts);
            for (j, job) in jobs.iter().enumerate() {
                refinements += f.schedule_job(j as u32, job, rel[j], &mut schedule);
            }
        }
        DagPolicy::Blind => {
            let mut b = Blind::new(dc, opts);
            for (j, job) in jobs.iter().enumerate() {
                refinements += b.schedule_job(j as u32, job, rel[j], &mut schedule);
            }
            b.finish(&mut schedule);
        }
    }
    let plan_ms = started.elapsed().as_secs_f64() * 1e3;
    let tasks = schedule.len().max(1) as f64;
    tracing::debug!(policy = policy.name(), plan_ms, refinements, "dag plan");
    PlanOutput {
        metrics: metrics(dc, &schedule),
        schedule,
        plan_ms,
        per_task_ms: plan_ms / tasks,
        refinements,
    }
}

#[cfg(test)]
mod plan_tests {
    use super::super::generate::{self, Schema};
    use super::super::{check, DataCentre, Job};
    use super::*;

    fn small_dc() -> DataCentre {
        DataCentre::from_file("dc", &generate::tree(2, 3, 4, |l| l % 2 == 1)).unwrap()
    }

    #[test]
    fn every_policy_gives_a_well_formed_schedule_on_every_schema() {
        let dc = small_dc();
        let jobs: Vec<Job> = Schema::ALL
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                Job::from_file("g", &generate::job(s, 60, i % 2 == 0, i as u64).unwrap()).unwrap()
            })
            .collect();
        let runs = DagPolicy::ALL
            .into_iter()
            .map(|p| (p, false))
            .chain([(DagPolicy::Blind, true)]);
        for (policy, blind_delayed) in runs {
            for quality in [Quality::Utilisation(0.99), Quality::Makespan(1.0)] {
                let opts = PlanOptions {
                    quality,
                    load: Some(0.95),
                    blind_delayed,
                    ..PlanOptions::default()
                };
                let out = plan(&jobs, &dc, policy, &opts);
                check(&jobs, &dc, &out.schedule).unwrap_or_else(|e| panic!("{policy:?}: {e}"));
                assert!(out.metrics.utilisation > 0.0 && out.metrics.utilisation <= 1.0 + 1e-9);
                if policy != DagPolicy::Greedy {
                    // An unreachable condition makes the schedulers refine.
                    assert!(out.refinements > 0, "{policy:?}");
                }
            }
        }
    }

    #[test]
    fn on_one_node_refined_schedules_have_no_gaps() {
        // One node: every schedule is sequential and fully utilised.
        let dc = DataCentre::from_json(
            "dc",
            r#"{"switches":[{"id":"s"}],"nodes":[{"host":"h","switch":"s","speed":2}]}"#,
        )
        .unwrap();
        let job =
            Job::from_file("g", &generate::job(Schema::ForkJoin, 30, false, 1).unwrap()).unwrap();
        for policy in DagPolicy::ALL {
            let opts = PlanOptions {
                quality: Quality::Utilisation(1.0),
                max_refinements: 5,
                ..PlanOptions::default()
            };
            let out = plan(std::slice::from_ref(&job), &dc, policy, &opts);
            check(std::slice::from_ref(&job), &dc, &out.schedule).unwrap();
            assert!(
                (out.metrics.makespan - job.work() / 2.0).abs() < 1e-6,
                "{policy:?}"
            );
        }
    }
}

/// The output of `spindle dag-plan --format json`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PlanReport {
    pub schedule: Vec<super::check::ScheduleEntry>,
    pub metrics: ReportMetrics,
}

#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct ReportMetrics {
    pub makespan: f64,
    pub utilisation: f64,
    pub plan_ms: f64,
    pub per_task_ms: f64,
    pub refinements: u32,
}

impl PlanOutput {
    pub fn report(&self, jobs: &[Job], dc: &DataCentre) -> PlanReport {
        PlanReport {
            schedule: super::check::to_entries(jobs, dc, &self.schedule),
            metrics: ReportMetrics {
                makespan: self.metrics.makespan,
                utilisation: self.metrics.utilisation,
                plan_ms: self.plan_ms,
                per_task_ms: self.per_task_ms,
                refinements: self.refinements,
            },
        }
    }
}
