//! Planning a sequence of jobs with one of the DAG schedulers, the quality
//! conditions that drive refinement (Sect. 2.2), and the shared bookkeeping.

use std::time::Instant;

use super::blind::Blind;
use super::check::{metrics, utilisation_of, Metrics};
use super::fisch::Fisch;
use super::greedy::Greedy;
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

/// The quality condition Phi: a soft bound checked after each job.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Quality {
    /// Data-centre utilisation of the schedule so far at least this.
    Utilisation(f64),
    /// The job's makespan (last end - release) at most this many times its
    /// lower bound max(critical path at the top speed, work / total power).
    Makespan(f64),
}

impl Quality {
    /// `utilisation:F` or `makespan:F`.
    pub fn parse(s: &str) -> Result<Quality, DagError> {
        let bad = || DagError::BadQuality(s.to_string());
        let (kind, v) = s.split_once(':').ok_or_else(bad)?;
        let v: f64 = v.parse().map_err(|_| bad())?;
        match kind {
            "utilisation" | "utilization" if v > 0.0 && v <= 1.0 => Ok(Quality::Utilisation(v)),
            "makespan" if v.is_finite() && v >= 1.0 => Ok(Quality::Makespan(v)),
            _ => Err(bad()),
        }
    }
}

#[derive(Clone, Debug)]
pub struct PlanOptions {
    pub quality: Quality,
    /// Refinement steps per job at most (the best schedule found is kept).
    /// FISCH needs 6 to reach the concrete job ([`super::fisch::ALPHAS`]).
    pub max_refinements: u32,
    /// Job releases spaced so that the offered load is this share of the
    /// total power (Sect. 5.1 uses 0.95); `None`: every job released at 0.
    pub load: Option<f64>,
    /// FISCH's fixed data-centre abstraction: groups are subtrees this many
    /// levels above the nodes' switches.
    pub fisch_group_height: u32,
    /// BLIND's fixed job abstraction (alpha-similar durations).
    pub blind_alpha: f64,
    /// FISCH and BLIND as the paper prints them: a task keeps its whole
    /// abstract slot (no unused end given back, no start before the slot),
    /// and a BLIND bulk asks for as many nodes as its abstract node has.
    /// Off (ours): unused ends go back to the free time, a task starts as
    /// soon as its own inputs are there and its node is free, and a bulk is
    /// what its abstract node has free first.
    pub as_printed: bool,
}

impl Default for PlanOptions {
    fn default() -> PlanOptions {
        PlanOptions {
            quality: Quality::Utilisation(0.85),
            max_refinements: 6,
            load: None,
            fisch_group_height: 0,
            blind_alpha: 1.5,
            as_printed: false,
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

/// Per-node busy time, first start and last end of the schedule so far, for the quality
/// condition; saved and restored around refinement trials.
#[derive(Clone, Debug)]
pub(crate) struct Tracker {
    pub busy: Vec<f64>,
    pub first: Vec<f64>,
    pub last: Vec<f64>,
}

impl Tracker {
    pub fn new(nodes: usize) -> Tracker {
        Tracker {
            busy: vec![0.0; nodes],
            first: vec![f64::INFINITY; nodes],
            last: vec![f64::NEG_INFINITY; nodes],
        }
    }

    /// Counts the slot held (under `as_printed` the paper's utilisation
    /// drives its refinement: held slots are busy).
    pub fn add(&mut self, p: &Placement) {
        self.busy[p.node as usize] += p.slot_end.max(p.end) - p.start;
        let l = &mut self.last[p.node as usize];
        *l = l.max(p.slot_end.max(p.end));
        let f = &mut self.first[p.node as usize];
        *f = f.min(p.start);
    }

    /// (condition met, score: higher is better) after `job` got `placed`.
    pub fn judge(
        &self,
        q: Quality,
        dc: &DataCentre,
        job: &Job,
        release: f64,
        placed: &[Placement],
    ) -> (bool, f64) {
        match q {
            Quality::Utilisation(min) => {
                let u = utilisation_of(&self.busy, &self.first, &self.last).unwrap_or(0.0);
                (u >= min, u)
            }
            Quality::Makespan(factor) => {
                let end = placed.iter().map(|p| p.end).fold(release, f64::max);
                let ms = end - release;
                let top = dc.speed.iter().copied().fold(0.0, f64::max);
                let mut cp = vec![0.0f64; job.len()];
                for &t in &job.topo {
                    let t = t as usize;
                    let before = job.preds[t]
                        .iter()
                        .map(|&(q, _)| cp[q as usize])
                        .fold(0.0, f64::max);
                    cp[t] = before + job.duration[t];
                }
                let lb =
                    (cp.iter().copied().fold(0.0, f64::max) / top).max(job.work() / dc.power());
                (ms <= factor * lb, -ms)
            }
        }
    }
}

/// Copy-on-first-write snapshots of a vector of per-item states, to undo a
/// refinement trial in time proportional to what it touched.
#[derive(Clone, Debug, Default)]
pub(crate) struct Undo<T> {
    saved: Vec<Option<T>>,
    list: Vec<u32>,
}

impl<T: Clone> Undo<T> {
    pub fn new(n: usize) -> Undo<T> {
        Undo {
            saved: vec![None; n],
            list: Vec::new(),
        }
    }
    /// Call before changing `items[i]`.
    pub fn touch(&mut self, i: usize, items: &[T]) {
        if self.saved[i].is_none() {
            self.saved[i] = Some(items[i].clone());
            self.list.push(i as u32);
        }
    }
    pub fn restore(&mut self, items: &mut [T]) {
        for &i in &self.list {
            if let Some(v) = self.saved[i as usize].take() {
                items[i as usize] = v;
            }
        }
        self.list.clear();
    }
    pub fn commit(&mut self) {
        for &i in &self.list {
            self.saved[i as usize] = None;
        }
        self.list.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quality_parses_and_rejects() {
        assert_eq!(
            Quality::parse("utilisation:0.9").unwrap(),
            Quality::Utilisation(0.9)
        );
        assert_eq!(
            Quality::parse("makespan:1.5").unwrap(),
            Quality::Makespan(1.5)
        );
        let e = Quality::parse("utilisation:2").unwrap_err();
        assert!(e.to_string().contains("\"utilisation:2\""), "{e}");
        assert!(Quality::parse("speed:1").is_err());
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
        for policy in DagPolicy::ALL {
            for quality in [Quality::Utilisation(0.99), Quality::Makespan(1.0)] {
                let opts = PlanOptions {
                    quality,
                    load: Some(0.95),
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
