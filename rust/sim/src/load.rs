//! `--load U`: scale a trace's arrival times so that the cluster's offered
//! load is about `U`. SWIM's FB-2009 day replayed on 100 nodes keeps the
//! cluster 1.5 % busy, where no scheduler matters; compressing the gaps
//! between submissions raises contention without changing any job.
//!
//! Offered load = estimated container time of all jobs / (containers x span
//! of the submissions). The estimate uses the simulator's own rates on a
//! speed-1 node with local reads (mean JVM start-up, block read, compute;
//! reducers: shuffle at the NIC, reduce, write) and leaves out waiting, so
//! the utilisation a run reaches (the `util` column) is the check.

use crate::config::SimConfig;
use crate::workload::JobSpec;

const MB: f64 = (1u64 << 20) as f64;

/// What [`scale_to_load`] did.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct LoadScaling {
    /// The load asked for.
    pub target: f64,
    /// Offered load of the trace as given.
    pub offered_before: f64,
    /// Factor applied to every gap between submissions (< 1 compresses).
    pub factor: f64,
}

/// Container time of one map of `job` reading `bytes` locally on a node of
/// `speed`, in milliseconds: mean JVM start-up, the read, the compute.
pub fn map_ms(job: &JobSpec, cfg: &SimConfig, bytes: u64, speed: f64) -> f64 {
    let jvm = (cfg.jvm_min_ms + cfg.jvm_max_ms) as f64 / 2.0;
    let mb = bytes as f64 / MB;
    jvm + mb / cfg.disk_mb_s * 1000.0 + mb * job.profile.map_cpu_ms_per_mb() / speed
}

/// Container time of one reduce of `job` once its maps are done, in
/// milliseconds: mean JVM start-up, its share of the shuffle at the NIC's
/// rate, the reduce, the output write.
pub fn reduce_ms(job: &JobSpec, cfg: &SimConfig) -> f64 {
    let jvm = (cfg.jvm_min_ms + cfg.jvm_max_ms) as f64 / 2.0;
    let r = job.reduces.max(1) as f64;
    let shuffle_mb = job.shuffle_bytes as f64 / MB / r;
    jvm + shuffle_mb / cfg.nic_mb_s * 1000.0
        + shuffle_mb * job.profile.reduce_cpu_ms_per_mb()
        + job.output_bytes as f64 / MB / r / cfg.write_mb_s * 1000.0
}

/// Estimated container time of `job`, in milliseconds (a trace job: its
/// tasks' durations).
pub fn container_ms(job: &JobSpec, cfg: &SimConfig) -> f64 {
    if let Some(t) = &job.tasks {
        return t
            .maps
            .iter()
            .chain(&t.reduces)
            .map(|k| k.duration_ms as f64)
            .sum();
    }
    let jvm = (cfg.jvm_min_ms + cfg.jvm_max_ms) as f64 / 2.0;
    let input_mb = job.input_bytes as f64 / MB;
    let maps = job.maps(cfg.block_size) as f64;
    let map_ms =
        maps * jvm + input_mb / cfg.disk_mb_s * 1000.0 + input_mb * job.profile.map_cpu_ms_per_mb();
    if job.reduces == 0 {
        return map_ms;
    }
    let shuffle_mb = job.shuffle_bytes as f64 / MB;
    let reduce_ms = job.reduces as f64 * jvm
        + shuffle_mb / cfg.nic_mb_s * 1000.0
        + shuffle_mb * job.profile.reduce_cpu_ms_per_mb()
        + job.output_bytes as f64 / MB / cfg.write_mb_s * 1000.0;
    map_ms + reduce_ms
}

/// Offered load of `jobs` on the cluster of `cfg`; `None` when every job is
/// submitted at the same instant (no span to scale).
pub fn offered_load(jobs: &[JobSpec], cfg: &SimConfig) -> Option<f64> {
    let first = jobs.iter().map(|j| j.submit_ms).min()?;
    let last = jobs.iter().map(|j| j.submit_ms).max()?;
    let span = (last - first) as f64;
    let containers = cfg.slots() as f64 * cfg.nodes as f64;
    if span <= 0.0 || containers <= 0.0 {
        return None;
    }
    let work: f64 = jobs.iter().map(|j| container_ms(j, cfg)).sum();
    Some(work / (containers * span))
}

/// Why a load cannot be reached.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum LoadError {
    #[error("--load must be a number in (0, 1], got {0}")]
    OutOfRange(f64),
    #[error(
        "--load needs jobs submitted at different times; this workload submits all {0} at once"
    )]
    NoSpan(usize),
}

/// Scales the gaps between submissions (keeping the first) so that the
/// offered load is `target`: gaps shrink when the trace is lighter, and
/// stretch when it is heavier.
pub fn scale_to_load(
    jobs: &mut [JobSpec],
    cfg: &SimConfig,
    target: f64,
) -> Result<LoadScaling, LoadError> {
    if !(target > 0.0 && target <= 1.0) {
        return Err(LoadError::OutOfRange(target));
    }
    let offered = offered_load(jobs, cfg).ok_or(LoadError::NoSpan(jobs.len()))?;
    let factor = offered / target;
    let first = jobs.iter().map(|j| j.submit_ms).min().unwrap_or(0);
    for j in jobs.iter_mut() {
        j.submit_ms = first + ((j.submit_ms - first) as f64 * factor).round() as u64;
    }
    Ok(LoadScaling {
        target,
        offered_before: offered,
        factor,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Profile;

    fn jobs() -> Vec<JobSpec> {
        (0..10)
            .map(|i| {
                JobSpec::shaped(
                    format!("j{i}"),
                    i * 600_000,
                    4 << 30,
                    if i % 2 == 0 {
                        Profile::Wordcount
                    } else {
                        Profile::Terasort
                    },
                )
            })
            .collect()
    }

    #[test]
    fn scaling_reaches_the_target_offered_load() {
        let cfg = SimConfig::default();
        let mut js = jobs();
        let before = offered_load(&js, &cfg).unwrap();
        let s = scale_to_load(&mut js, &cfg, 0.6).unwrap();
        assert_eq!(s.offered_before, before);
        let after = offered_load(&js, &cfg).unwrap();
        assert!((after - 0.6).abs() < 1e-3, "offered load {after}");
        assert_eq!(js[0].submit_ms, 0, "the first submission stays");
        assert!(js.windows(2).all(|w| w[0].submit_ms <= w[1].submit_ms));
    }

    #[test]
    fn a_map_only_job_costs_its_maps() {
        let cfg = SimConfig::default();
        let mut j = JobSpec::shaped("m".into(), 0, 128 << 20, Profile::Wordcount);
        j.reduces = 0;
        // One block: 2 s JVM, 128 MB / 150 MB/s read, 128 x 150 ms compute.
        let want = 2000.0 + 128.0 / 150.0 * 1000.0 + 128.0 * 150.0;
        assert!((container_ms(&j, &cfg) - want).abs() < 1e-6);
    }

    #[test]
    fn bad_loads_are_refused_by_name() {
        let cfg = SimConfig::default();
        let mut js = jobs();
        assert_eq!(
            scale_to_load(&mut js, &cfg, 0.0).unwrap_err().to_string(),
            "--load must be a number in (0, 1], got 0"
        );
        assert!(scale_to_load(&mut js, &cfg, f64::NAN).is_err());
        let mut one = vec![js[0].clone()];
        assert_eq!(
            scale_to_load(&mut one, &cfg, 0.5).unwrap_err().to_string(),
            "--load needs jobs submitted at different times; this workload submits all 1 at once"
        );
    }
}
