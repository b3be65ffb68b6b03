//! [`JobOrder::Spc`](super::JobOrder::Spc) in planning step 2: every live
//! application is a job of S-PC's LP-Schedule (seed 002, eq. 1-4), a map
//! stage (its located asks) and a reduce stage (its location-less asks)
//! after it, both released now (they are already here); the reduce stage
//! carries the app's weight, the map stage a thousandth of it (all of it
//! when no reducer is asked for yet). The LP is solved by
//! the cutting-plane solver of [`crate::spc::lp`], warm-started from the
//! previous solve's cuts ([`KeyedCuts`], keyed by app and stage).

use std::sync::Arc;

use super::AppId;
use crate::model::Csr;
use crate::spc::lp::LpJob;
use crate::spc::online::KeyedCuts;
use crate::spc::Speeds;

/// Container duration assumed (ms) while no application has completed one.
const DEFAULT_CONTAINER_MS: f64 = 1_000.0;

/// A map stage's share of its application's weight when a reduce stage
/// follows: the objective is the jobs' completion, the reduce stage's; the
/// map only needs to be early enough for it (as `spindle repro spc` weighs
/// the stages, `spindle_repro::spc::MAP_WEIGHT`).
pub(super) const MAP_STAGE_WEIGHT: f64 = 1e-3;

/// One live application as the S-PC order reads it.
#[derive(Clone, Copy, Debug)]
pub(super) struct AppWork {
    pub app: AppId,
    pub weight: f64,
    /// Mean container duration it has shown (ms), once one completed.
    pub mean_ms: Option<f64>,
    /// Remaining container time (ms) by the JVM-start-up corrected
    /// estimator over its AM's progress reports, once it has two.
    pub remaining_ms: Option<f64>,
    /// Containers running.
    pub running: u64,
    /// Pending containers with a location (maps) and without (reducers).
    pub located: u64,
    pub anywhere: u64,
}

/// What the order computation hands to the install.
#[derive(Debug)]
pub(super) struct SpcOrder {
    /// Rank key of every application given (lower first).
    pub keys: Vec<(AppId, f64)>,
    /// The cuts for the next solve (`None`: keep the previous ones).
    pub cuts: Option<Arc<KeyedCuts>>,
    /// This plan ranked by weighted remaining work instead of the LP.
    pub fallback: bool,
    /// LP jobs (open stages) of this plan.
    pub lp_jobs: usize,
}

/// Ranks `apps` by the LP's `C_j` of their first open stage (maps, else
/// reducers). Above `max_jobs` LP jobs, or if the LP fails, ranks by
/// pending containers over weight and says so in the log once (until the
/// LP is back).
pub(super) fn spc_order(
    apps: &[AppWork],
    speeds: &Speeds,
    cuts: &KeyedCuts,
    was_fallback: bool,
    max_jobs: usize,
) -> SpcOrder {
    let lp_jobs: usize = apps
        .iter()
        .map(|a| usize::from(a.located > 0) + usize::from(a.anywhere > 0))
        .sum();
    let weighted_remaining = |fallback: bool| SpcOrder {
        keys: apps
            .iter()
            .map(|a| (a.app, (a.located + a.anywhere) as f64 / a.weight))
            .collect(),
        cuts: None,
        fallback,
        lp_jobs,
    };
    if lp_jobs > max_jobs {
        if !was_fallback {
            tracing::warn!(
                lp_jobs,
                limit = max_jobs,
                "S-PC job order: more open stages than the LP limit; ranking applications by weighted remaining work until they are fewer"
            );
        }
        return weighted_remaining(true);
    }
    // Work of a container: its duration times the mean slot speed, so that
    // on an average slot it takes its duration.
    let slot_speed = if speeds.machines() > 0 {
        speeds.mu() / speeds.machines() as f64
    } else {
        1.0
    };
    let known: Vec<f64> = apps.iter().filter_map(|a| a.mean_ms).collect();
    let default_ms = if known.is_empty() {
        DEFAULT_CONTAINER_MS
    } else {
        known.iter().sum::<f64>() / known.len() as f64
    };
    let mut keys: Vec<u64> = Vec::with_capacity(lp_jobs);
    let mut jobs: Vec<LpJob> = Vec::with_capacity(lp_jobs);
    let mut preds: Vec<Vec<u32>> = Vec::with_capacity(lp_jobs);
    // Per app: its map and reduce stage's LP index.
    let mut stage: Vec<[Option<u32>; 2]> = Vec::with_capacity(apps.len());
    for a in apps {
        // Per container: the AM's progress, corrected for start-up (seed 002
        // Sect. V), spread over what is left to run; else the mean duration.
        let per_ms = match a.remaining_ms {
            Some(r) => r / (a.located + a.anywhere + a.running).max(1) as f64,
            None => a.mean_ms.unwrap_or(default_ms),
        };
        let work = per_ms / 1e3 * slot_speed;
        let mut s = [None, None];
        for (k, count) in [a.located, a.anywhere].into_iter().enumerate() {
            if count == 0 {
                continue;
            }
            s[k] = Some(jobs.len() as u32);
            keys.push(u64::from(a.app) * 2 + k as u64);
            let share = if k == 0 && a.anywhere > 0 {
                MAP_STAGE_WEIGHT
            } else {
                1.0
            };
            jobs.push(LpJob {
                p: count as f64 * work,
                mu_j: speeds.mu_q(count),
                release: 0.0,
                weight: a.weight * share,
            });
            preds.push(if k == 1 {
                s[0].into_iter().collect()
            } else {
                Vec::new()
            });
        }
        stage.push(s);
    }
    let preds = Csr::from_rows(preds);
    match cuts.solve(&keys, &jobs, &preds, speeds.mu(), 0.0, true) {
        Ok((sol, next)) => {
            if was_fallback {
                tracing::info!(lp_jobs, "S-PC job order: back to the LP");
            }
            let keys = apps
                .iter()
                .zip(&stage)
                .map(|(a, s)| {
                    let first = s[0].or(s[1]);
                    (
                        a.app,
                        first.map_or(f64::INFINITY, |j| sol.completion[j as usize]),
                    )
                })
                .collect();
            SpcOrder {
                keys,
                cuts: Some(Arc::new(next)),
                fallback: false,
                lp_jobs,
            }
        }
        Err(e) => {
            if !was_fallback {
                tracing::warn!(error = %e, "S-PC job order: the LP failed; ranking applications by weighted remaining work");
            }
            weighted_remaining(true)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(app: AppId, weight: f64, located: u64, anywhere: u64) -> AppWork {
        AppWork {
            app,
            weight,
            mean_ms: Some(1_000.0),
            remaining_ms: None,
            running: 0,
            located,
            anywhere,
        }
    }

    fn order(o: &SpcOrder) -> Vec<AppId> {
        let mut k = o.keys.clone();
        k.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        k.into_iter().map(|(a, _)| a).collect()
    }

    fn speeds() -> Speeds {
        Speeds::from_nodes(&[1.0, 1.0], &[2, 2])
    }

    #[test]
    fn the_order_follows_the_lp_completion_times() {
        // Equal weights: the short job completes first in the LP (Smith).
        let apps = [app(0, 1.0, 40, 4), app(1, 1.0, 4, 1), app(2, 1.0, 12, 0)];
        let o = spc_order(&apps, &speeds(), &KeyedCuts::default(), false, 200);
        assert!(!o.fallback);
        assert_eq!(o.lp_jobs, 5);
        assert_eq!(order(&o), vec![1, 2, 0]);
        let cuts = o.cuts.expect("the LP ran");
        assert!(!cuts.is_empty());
        // Each key is the map stage's C_j, at least its own processing time.
        for &(a, c) in &o.keys {
            let w = &apps[a as usize];
            assert!(c >= w.located as f64 / 4.0 - 1e-9, "{a}: {c}");
        }
    }

    #[test]
    fn weights_change_the_order() {
        let light = [app(0, 1.0, 8, 0), app(1, 1.0, 16, 0)];
        let o = spc_order(&light, &speeds(), &KeyedCuts::default(), false, 200);
        assert_eq!(order(&o), vec![0, 1]);
        // Weight 4 on the longer job: w/p = 4/16 > 1/8, it goes first.
        let heavy = [app(0, 1.0, 8, 0), app(1, 4.0, 16, 0)];
        let o = spc_order(&heavy, &speeds(), &KeyedCuts::default(), false, 200);
        assert_eq!(order(&o), vec![1, 0]);
    }

    #[test]
    fn warm_cuts_give_the_same_order() {
        let apps = [app(0, 2.0, 30, 3), app(1, 1.0, 6, 2), app(2, 3.0, 12, 1)];
        let cold = spc_order(&apps, &speeds(), &KeyedCuts::default(), false, 200);
        let cuts = cold.cuts.clone().expect("the LP ran");
        // One app gone, another shrunk: the kept cuts still start the solve.
        let next = [app(0, 2.0, 20, 3), app(2, 3.0, 12, 1)];
        let warm = spc_order(&next, &speeds(), &cuts, false, 200);
        let fresh = spc_order(&next, &speeds(), &KeyedCuts::default(), false, 200);
        assert_eq!(order(&warm), order(&fresh));
        for (a, b) in warm.keys.iter().zip(&fresh.keys) {
            assert!(
                (a.1 - b.1).abs() < 1e-6 * b.1.max(1.0),
                "{warm:?} {fresh:?}"
            );
        }
    }

    #[test]
    fn above_the_bound_it_ranks_by_weighted_remaining() {
        // Three open stages over a bound of 2.
        let apps = [app(0, 1.0, 9, 1), app(1, 3.0, 6, 0)];
        let o = spc_order(&apps, &speeds(), &KeyedCuts::default(), false, 2);
        assert!(o.fallback);
        assert!(o.cuts.is_none());
        assert_eq!(o.lp_jobs, 3);
        assert_eq!(o.keys, vec![(0, 10.0), (1, 2.0)]);
        assert_eq!(order(&o), vec![1, 0]);
        let o = spc_order(&apps, &speeds(), &KeyedCuts::default(), true, 3);
        assert!(!o.fallback);
    }

    #[test]
    fn mean_durations_size_the_jobs() {
        // Same containers, but app 0's run 10 times longer: it goes last.
        let mut a = [app(0, 1.0, 8, 0), app(1, 1.0, 12, 0)];
        a[0].mean_ms = Some(10_000.0);
        let o = spc_order(&a, &speeds(), &KeyedCuts::default(), false, 200);
        assert_eq!(order(&o), vec![1, 0]);
        // Unknown durations take the mean of the known ones.
        a[1].mean_ms = None;
        let o = spc_order(&a, &speeds(), &KeyedCuts::default(), false, 200);
        assert_eq!(order(&o), vec![0, 1]);
    }

    #[test]
    fn the_ams_progress_sizes_the_jobs_over_mean_durations() {
        // Same asks and mean duration; the AM of app 0 says much is left.
        for (long, want) in [(0, vec![1, 0]), (1, vec![0, 1])] {
            let mut a = [app(0, 1.0, 4, 1), app(1, 1.0, 4, 1)];
            a[long].remaining_ms = Some(50.0 * 1_000.0);
            a[long].running = 5;
            let o = spc_order(&a, &speeds(), &KeyedCuts::default(), false, 200);
            assert_eq!(order(&o), want);
        }
    }
}
