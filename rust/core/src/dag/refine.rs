//! What the DAG schedulers share and `plan.rs` drives them with: the
//! options, the quality condition that drives refinement (Sect. 2.2), and
//! the bookkeeping of refinement trials. A leaf, so that `plan.rs` can
//! import the schedulers without them importing it back.

use super::check::utilisation_of;
use super::{DagError, DataCentre, Job, Placement};

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
    /// BLIND's delayed allocation (Sect. 4.3): bulks are booked on the
    /// counters and mapped to nodes only at dispatch.
    pub blind_delayed: bool,
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
            blind_delayed: false,
        }
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
