//! What a simulation reports, in the JSON shape of `spindle simulate`.

use serde::Serialize;

/// Figures of one run (one policy).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimMetrics {
    /// Last job finish minus first job submission, seconds.
    pub makespan_s: f64,
    /// Maps by where they read their block.
    pub node_local: u64,
    pub rack_local: u64,
    pub off_switch: u64,
    /// Map containers by the locality the scheduler booked at the grant, as
    /// YARN's queue metrics count them. The CapacityScheduler books a
    /// container off-switch when its rack wait is not over, even on a node in
    /// a replica's rack, so these can differ from where the block was read.
    pub booked_node_local: u64,
    pub booked_rack_local: u64,
    pub booked_off_switch: u64,
    /// Total weighted completion time: sum of weight * (finish - submit), seconds.
    pub twct: f64,
    /// Mean job completion time (finish - submit), seconds.
    pub mean_jct_s: f64,
    /// Container-seconds held / (slots * makespan).
    pub utilization: f64,
    /// Simulation events processed.
    pub events: u64,
    /// Wall-clock time of the run (absent when asked for reproducible output).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wall_ms: Option<f64>,
}

/// One job's outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobResult {
    pub id: String,
    pub submit_s: f64,
    pub finish_s: f64,
    pub maps: u32,
    pub reduces: u32,
    pub node_local: u32,
    pub rack_local: u32,
    pub off_switch: u32,
}

/// One policy's run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimResult {
    pub policy: String,
    pub metrics: SimMetrics,
    pub jobs: Vec<JobResult>,
}

/// Job sizes the summary of a long run groups jobs by, in maps: a label and
/// the largest map count of each class (the last takes the rest).
pub const SIZE_CLASSES: [(&str, u32); 4] = [
    ("1-10", 10),
    ("11-100", 100),
    ("101-1000", 1000),
    (">1000", u32::MAX),
];

impl SimResult {
    /// The `q` quantile (0 to 1, nearest rank) of the jobs' completion
    /// times (finish - submit), seconds; 0 without jobs.
    pub fn jct_quantile(&self, q: f64) -> f64 {
        let mut t: Vec<f64> = self.jobs.iter().map(|j| j.finish_s - j.submit_s).collect();
        if t.is_empty() {
            return 0.0;
        }
        t.sort_by(f64::total_cmp);
        let rank = (q.clamp(0.0, 1.0) * t.len() as f64).ceil() as usize;
        t[rank.clamp(1, t.len()) - 1]
    }

    /// Per [`SIZE_CLASSES`] class: how many jobs and their mean completion
    /// time, seconds (0 for an empty class).
    pub fn mean_jct_by_size(&self) -> [(usize, f64); SIZE_CLASSES.len()] {
        let mut out = [(0usize, 0.0f64); SIZE_CLASSES.len()];
        for j in &self.jobs {
            let k = SIZE_CLASSES
                .iter()
                .position(|&(_, most)| j.maps <= most)
                .unwrap_or(SIZE_CLASSES.len() - 1);
            out[k].0 += 1;
            out[k].1 += j.finish_s - j.submit_s;
        }
        for c in &mut out {
            if c.0 > 0 {
                c.1 /= c.0 as f64;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(jobs: &[(u32, f64)]) -> SimResult {
        SimResult {
            policy: "p".into(),
            metrics: SimMetrics {
                makespan_s: 0.0,
                node_local: 0,
                rack_local: 0,
                off_switch: 0,
                booked_node_local: 0,
                booked_rack_local: 0,
                booked_off_switch: 0,
                twct: 0.0,
                mean_jct_s: 0.0,
                utilization: 0.0,
                events: 0,
                wall_ms: None,
            },
            jobs: jobs
                .iter()
                .enumerate()
                .map(|(i, &(maps, jct))| JobResult {
                    id: format!("j{i}"),
                    submit_s: 10.0,
                    finish_s: 10.0 + jct,
                    maps,
                    reduces: 0,
                    node_local: 0,
                    rack_local: 0,
                    off_switch: 0,
                })
                .collect(),
        }
    }

    #[test]
    fn quantiles_take_the_nearest_rank() {
        let r = run(&[(1, 4.0), (1, 1.0), (1, 3.0), (1, 2.0)]);
        assert_eq!(r.jct_quantile(0.5), 2.0);
        assert_eq!(r.jct_quantile(0.9), 4.0);
        assert_eq!(r.jct_quantile(0.0), 1.0);
        assert_eq!(r.jct_quantile(1.0), 4.0);
        assert_eq!(run(&[]).jct_quantile(0.5), 0.0);
    }

    #[test]
    fn jobs_group_by_map_count() {
        let r = run(&[(1, 2.0), (10, 4.0), (11, 30.0), (5000, 100.0)]);
        assert_eq!(
            r.mean_jct_by_size(),
            [(2, 3.0), (1, 30.0), (0, 0.0), (1, 100.0)]
        );
    }
}
