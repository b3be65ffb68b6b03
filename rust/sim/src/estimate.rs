//! The progress estimators of `spindle_core::estimate` on simulated tasks:
//! maps of WordCount-shaped jobs whose containers start a JVM (uniform in a
//! range, 1-5 s for issue 12) and then report progress every few seconds,
//! linear in the work done. Each finished map is scored at 10 %, 25 % and
//! 50 % progress against its real finish.
//!
//! With `rate_jitter` J > 0 the rate of each map varies between reports
//! (each interval's rate uniform in [1 - J, 1 + J] times the mean, the
//! finish unchanged), as interference would make it: progress is then not
//! linear and neither estimator is exact.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use spindle_core::estimate::{ErrorMeter, ErrorRow, Report, ERROR_POINTS};

use crate::config::SimConfig;
use crate::engine::{simulate, SimError, TaskRecord};
use crate::workload::{JobSpec, Profile};

/// Most maps an estimator run may simulate.
pub const MAX_ESTIMATE_TASKS: usize = 100_000;

/// Setup of an estimator run.
#[derive(Clone, Debug, PartialEq)]
pub struct EstimateSetup {
    /// Maps to simulate (one WordCount job of this many 128 MiB blocks).
    pub tasks: usize,
    /// JVM start-up, uniform in this range (ms).
    pub startup_min_ms: u64,
    pub startup_max_ms: u64,
    /// Progress report interval (ms; the MR task reporter's 3 s).
    pub progress_ms: u64,
    /// Rate variation between reports, in [0, 1) (0: linear progress).
    pub rate_jitter: f64,
    pub seed: u64,
}

impl Default for EstimateSetup {
    fn default() -> Self {
        EstimateSetup {
            tasks: 400,
            startup_min_ms: 1000,
            startup_max_ms: 5000,
            progress_ms: 3000,
            rate_jitter: 0.0,
            seed: 1,
        }
    }
}

/// What an estimator run measured (errors in seconds).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EstimateRun {
    pub tasks: usize,
    pub startup_min_s: f64,
    pub startup_max_s: f64,
    pub progress_interval_s: f64,
    pub rate_jitter: f64,
    pub seed: u64,
    /// Mean map duration from launch to finish, seconds.
    pub mean_task_s: f64,
    pub rows: Vec<ErrorRow>,
}

/// Runs `setup` on a 10-node cluster (2 racks, 8 containers a node) under
/// Hadoop's default scheduling and scores both estimators.
pub fn estimator_errors(setup: &EstimateSetup) -> Result<EstimateRun, SimError> {
    if setup.tasks == 0 || setup.tasks > MAX_ESTIMATE_TASKS {
        return Err(SimError::Config(format!(
            "estimate: {} tasks; must be from 1 to {MAX_ESTIMATE_TASKS}",
            setup.tasks
        )));
    }
    // An hour of start-up or between reports is no JVM and no reporter.
    if setup.startup_max_ms > 3_600_000 || setup.progress_ms > 3_600_000 {
        return Err(SimError::Config(format!(
            "estimate: start-up up to {} ms and report interval {} ms; both must be at most 3600000 ms",
            setup.startup_max_ms, setup.progress_ms
        )));
    }
    if !(0.0..1.0).contains(&setup.rate_jitter) {
        return Err(SimError::Config(format!(
            "estimate: rate jitter {} must be in [0, 1)",
            setup.rate_jitter
        )));
    }
    let cfg = SimConfig {
        nodes: 10,
        racks: 2,
        jvm_min_ms: setup.startup_min_ms,
        jvm_max_ms: setup.startup_max_ms,
        progress_ms: setup.progress_ms,
        record_tasks: true,
        seed: setup.seed,
        ..SimConfig::default()
    };
    let bytes = setup.tasks as u64 * cfg.block_size;
    let jobs = [JobSpec::shaped(
        "estimate".into(),
        0,
        bytes,
        Profile::Wordcount,
    )];
    let out = simulate(&cfg, &jobs, |_| {})?;
    let mut meter = ErrorMeter::new(&ERROR_POINTS);
    let (mut maps, mut total_ms) = (0usize, 0u64);
    // Its own stream: the simulation's draws stay as they are.
    let mut rng = ChaCha8Rng::seed_from_u64(setup.seed ^ 0x6a09_e667_f3bc_c908);
    let mut curve = Vec::new();
    for t in out.tasks.iter().filter(|t| !t.reduce) {
        maps += 1;
        total_ms += t.done_ms - t.launched_ms;
        let s = |ms: u64| ms as f64 / 1000.0;
        jittered(t, setup.rate_jitter, &mut rng, &mut curve);
        let reports = t.progress.iter().zip(&curve).map(|(&(at, _), &p)| Report {
            at: s(at),
            progress: p,
        });
        meter
            .task(s(t.launched_ms), reports, s(t.done_ms))
            .map_err(|p| SimError::Config(format!("estimate: map {}: {p}", t.index)))?;
    }
    Ok(EstimateRun {
        tasks: maps,
        startup_min_s: setup.startup_min_ms as f64 / 1000.0,
        startup_max_s: setup.startup_max_ms as f64 / 1000.0,
        progress_interval_s: setup.progress_ms as f64 / 1000.0,
        rate_jitter: setup.rate_jitter,
        seed: setup.seed,
        mean_task_s: total_ms as f64 / 1000.0 / maps.max(1) as f64,
        rows: meter.rows(),
    })
}

/// The progress of `t` at its reports when the rate of each interval
/// between reports (and of the last one, to the finish) is drawn uniform in
/// [1 - j, 1 + j]: the work done is the rate-weighted time, normalised so
/// that the task finishes when it did. `j = 0` gives the simulator's values.
fn jittered(t: &TaskRecord, j: f64, rng: &mut ChaCha8Rng, out: &mut Vec<f64>) {
    out.clear();
    if j == 0.0 {
        out.extend(t.progress.iter().map(|&(_, p)| p));
        return;
    }
    let mut done = 0.0;
    let mut prev = t.jvm_up_ms;
    for &(at, _) in &t.progress {
        done += (at - prev) as f64 * rng.gen_range(1.0 - j..=1.0 + j);
        out.push(done);
        prev = at;
    }
    let total = done + t.done_ms.saturating_sub(prev) as f64 * rng.gen_range(1.0 - j..=1.0 + j);
    for p in out.iter_mut() {
        *p = (*p / total).min(1.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrected_beats_default_and_is_exact_after_two_reports() {
        let run = estimator_errors(&EstimateSetup {
            tasks: 40,
            ..EstimateSetup::default()
        })
        .unwrap();
        assert_eq!(run.tasks, 40);
        for row in &run.rows {
            assert_eq!(row.tasks, 40, "{row:?}");
            // Hadoop's default counts the start-up as work: it is late.
            assert!(row.hadoop_default_bias > 0.0, "{row:?}");
            assert!(row.jvm_corrected_mae <= row.hadoop_default_mae, "{row:?}");
        }
        // A 20 s map is at about 15 % at its first report (3 s in): at the
        // 10 % point the corrected estimator has one report and falls back.
        let first = &run.rows[0];
        assert_eq!(first.fallback, 40);
        assert_eq!(first.jvm_corrected_mae, first.hadoop_default_mae);
        assert!(run.rows[1].jvm_corrected_mae < run.rows[1].hadoop_default_mae);
        // By 50 % every map has two reports: the corrected estimate is
        // exact up to the millisecond clock.
        let half = &run.rows[2];
        assert_eq!(half.fallback, 0);
        assert!(half.jvm_corrected_mae < 0.01, "{half:?}");
    }

    #[test]
    fn progress_reports_are_linear_after_startup() {
        let cfg = SimConfig {
            nodes: 4,
            racks: 1,
            jvm_min_ms: 2000,
            jvm_max_ms: 2000,
            record_tasks: true,
            ..SimConfig::default()
        };
        let jobs = [JobSpec::shaped(
            "j".into(),
            0,
            4 * cfg.block_size,
            Profile::Wordcount,
        )];
        let out = simulate(&cfg, &jobs, |_| {}).unwrap();
        let maps: Vec<_> = out.tasks.iter().filter(|t| !t.reduce).collect();
        assert_eq!(maps.len(), 4);
        for t in maps {
            assert_eq!(t.jvm_up_ms - t.launched_ms, 2000);
            assert!(!t.progress.is_empty());
            for (k, &(at, p)) in t.progress.iter().enumerate() {
                assert_eq!(at, t.jvm_up_ms + 3000 * (k as u64 + 1));
                let want = (at - t.jvm_up_ms) as f64 / (t.done_ms - t.jvm_up_ms) as f64;
                assert_eq!(p, want);
                assert!(p > 0.0 && p < 1.0);
            }
        }
        for t in out.tasks.iter().filter(|t| t.reduce) {
            assert!(t.progress.is_empty());
        }
    }

    #[test]
    fn jitter_makes_both_err_and_keeps_the_order() {
        let linear = estimator_errors(&EstimateSetup {
            tasks: 40,
            ..EstimateSetup::default()
        })
        .unwrap();
        let run = estimator_errors(&EstimateSetup {
            tasks: 40,
            rate_jitter: 0.5,
            ..EstimateSetup::default()
        })
        .unwrap();
        assert_eq!(run.tasks, 40);
        // Same tasks, same finishes: only the progress path differs.
        assert_eq!(run.mean_task_s, linear.mean_task_s);
        let half = &run.rows[2];
        assert!(half.jvm_corrected_mae > 0.01, "{half:?}");
        assert!(half.jvm_corrected_mae < half.hadoop_default_mae, "{half:?}");
    }

    #[test]
    fn bad_setup_is_an_error() {
        let err = estimator_errors(&EstimateSetup {
            tasks: 0,
            ..EstimateSetup::default()
        })
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "configuration: estimate: 0 tasks; must be from 1 to 100000"
        );
        let err = estimator_errors(&EstimateSetup {
            startup_min_ms: 5000,
            startup_max_ms: 1000,
            ..EstimateSetup::default()
        })
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("jvm start-up range 5000..1000 ms is empty"),
            "{err}"
        );
        let err = estimator_errors(&EstimateSetup {
            rate_jitter: 1.0,
            ..EstimateSetup::default()
        })
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "configuration: estimate: rate jitter 1 must be in [0, 1)"
        );
    }
}
