//! [`JobOrder::Spc`](super::JobOrder::Spc) in planning step 2: every live
//! application is a job of S-PC's LP-Schedule (eq. 1-4), a map
//! stage (its located asks) and a reduce stage (its location-less asks)
//! after it, both released now (they are already here); the reduce stage
//! carries the app's weight, the map stage a thousandth of it (all of it
//! when no reducer is asked for yet). The LP is solved by
//! the cutting-plane solver of [`crate::spc::lp`], warm-started from the
//! previous solve's cuts ([`KeyedCuts`], keyed by app and stage).

use std::sync::Arc;

use super::{AppId, JobOrder};
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
    /// `remaining_ms` is of the map stage alone (`located` and the running
    /// containers), not of the reducers.
    pub map_stage_only: bool,
    /// Containers running.
    pub running: u64,
    /// Pending containers with a location (maps) and without (reducers).
    pub located: u64,
    pub anywhere: u64,
    /// Work of one of its reducers (ms x speed), sized apart from its maps
    /// (S-PC's reduce stage: `stage_times::reducer_work`, else its map
    /// mean); `None`: as a container of the job's.
    pub reduce_work_ms: Option<f64>,
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

/// Ranks `apps` by `order` ([`JobOrder::Spc`] and S-PC's baselines):
/// under the LP orders by the LP's `C_j` of their first open stage (maps,
/// else reducers). Above `max_jobs` LP jobs, or if the LP fails, ranks by
/// pending containers over weight and says so in the log once (until the
/// LP is back). HUWF and Tetris rank by their closed-form keys.
pub(super) fn spc_order(
    order: JobOrder,
    apps: &[AppWork],
    speeds: &Speeds,
    cuts: &KeyedCuts,
    was_fallback: bool,
    max_jobs: usize,
) -> SpcOrder {
    // Map-only's LP holds no reduce stage.
    let reduces = order != JobOrder::SpcMapOnly;
    let lp_jobs: usize = apps
        .iter()
        .map(|a| usize::from(a.located > 0) + usize::from(reduces && a.anywhere > 0))
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
    let closed_form = matches!(order, JobOrder::Huwf | JobOrder::Tetris);
    // Map-only's LP has no precedence: the exact greedy solves it in
    // O(n^2) (`lp::solve_independent`; 10,000 stages in well under a
    // second), so only the LP's own limit bounds it.
    let max_jobs = if reduces {
        max_jobs
    } else {
        crate::spc::MAX_LP_JOBS
    };
    if lp_jobs > max_jobs && !closed_form {
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
    // Identical-machine: the same work on machines all of speed 1.
    let ones;
    let lp_speeds = if order == JobOrder::SpcIdentical {
        ones = speeds.as_identical();
        &ones
    } else {
        speeds
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
    // Per app: HUWF's or Tetris's key.
    let mut closed: Vec<(AppId, f64)> = Vec::new();
    for a in apps {
        // Per container: the AM's progress, corrected for start-up (S-PC
        // Sect. V), spread over what is left to run; else the mean duration.
        let per_ms = match a.remaining_ms {
            Some(r) if a.map_stage_only => r / (a.located + a.running).max(1) as f64,
            Some(r) => r / (a.located + a.anywhere + a.running).max(1) as f64,
            None => a.mean_ms.unwrap_or(default_ms),
        };
        let work = per_ms / 1e3 * slot_speed;
        // Per container of each stage: a reducer sized apart when known.
        let stage_work = [work, a.reduce_work_ms.map_or(work, |w| w / 1e3)];
        if closed_form {
            // The paper's job is all its rounds: its stages' times add up.
            let (mut time, mut score) = (0.0, 0.0);
            for (count, work) in [a.located, a.anywhere].into_iter().zip(stage_work) {
                let t = LpJob {
                    p: count as f64 * work,
                    mu_j: speeds.mu_q(count),
                    release: 0.0,
                    weight: a.weight,
                }
                .min_time();
                time += t;
                score += count.min(speeds.machines()) as f64 * t;
            }
            let key = if order == JobOrder::Huwf {
                // Descending unit weight; an app without work comes first.
                -(a.weight / f64::max(time, f64::MIN_POSITIVE))
            } else {
                score
            };
            closed.push((a.app, key));
            continue;
        }
        let mut s = [None, None];
        for (k, count) in [a.located, a.anywhere].into_iter().enumerate() {
            if count == 0 || (k == 1 && !reduces) {
                continue;
            }
            s[k] = Some(jobs.len() as u32);
            keys.push(u64::from(a.app) * 2 + k as u64);
            // Map-only: the map stage is the whole job, with its weight.
            let share = if k == 0 && a.anywhere > 0 && reduces {
                MAP_STAGE_WEIGHT
            } else {
                1.0
            };
            jobs.push(LpJob {
                p: count as f64 * stage_work[k],
                mu_j: lp_speeds.mu_q(count),
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
    if closed_form {
        // No LP solved.
        return SpcOrder {
            keys: closed,
            cuts: None,
            fallback: false,
            lp_jobs: 0,
        };
    }
    let preds = Csr::from_rows(preds);
    match cuts.solve(&keys, &jobs, &preds, lp_speeds.mu(), 0.0, true) {
        Ok((sol, next)) => {
            if was_fallback {
                tracing::info!(lp_jobs, "S-PC job order: back to the LP");
            }
            let keys = apps
                .iter()
                .zip(&stage)
                .map(|(a, s)| {
                    let first = s[0].or(s[1]);
                    let key = match first {
                        Some(j) => sol.completion[j as usize],
                        // Map-only: reducers left alone, its maps done.
                        None if !reduces && a.anywhere > 0 => 0.0,
                        None => f64::INFINITY,
                    };
                    (a.app, key)
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
    use super::{spc_order, AppWork, SpcOrder};
    use crate::session::{AppId, JobOrder};
    use crate::spc::online::KeyedCuts;
    use crate::spc::Speeds;

    fn app(app: AppId, weight: f64, located: u64, anywhere: u64) -> AppWork {
        AppWork {
            app,
            weight,
            mean_ms: Some(1_000.0),
            remaining_ms: None,
            map_stage_only: false,
            running: 0,
            located,
            anywhere,
            reduce_work_ms: None,
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

    /// `order` on two 2-slot nodes with no previous cuts, bound 200.
    fn solve(order: JobOrder, apps: &[AppWork]) -> SpcOrder {
        spc_order(order, apps, &speeds(), &KeyedCuts::default(), false, 200)
    }

    #[test]
    fn the_order_follows_the_lp_completion_times() {
        // Equal weights: the short job completes first in the LP (Smith).
        let apps = [app(0, 1.0, 40, 4), app(1, 1.0, 4, 1), app(2, 1.0, 12, 0)];
        let o = solve(JobOrder::Spc, &apps);
        assert!(!o.fallback);
        assert_eq!(o.lp_jobs, 5);
        assert_eq!(order(&o), vec![1, 2, 0]);
        // The LP ran (the chain start needs no cut here: none to keep).
        assert!(o.cuts.is_some());
        // Each key is the map stage's C_j, at least its own processing time.
        for &(a, c) in &o.keys {
            let w = &apps[a as usize];
            assert!(c >= w.located as f64 / 4.0 - 1e-9, "{a}: {c}");
        }
    }

    /// A job whose maps are done and whose one reducer is light: sized as
    /// one of its containers by the AM's progress (which weighs the reduce
    /// as half the job: 40 s of it) it ranks behind a job with maps to
    /// run; sized apart (0.5 s) it goes first, as its reduce finishes it.
    #[test]
    fn a_light_reduce_stage_sized_apart_ranks_its_job_first() {
        let mut done = app(0, 1.0, 0, 1);
        done.remaining_ms = Some(40_000.0);
        let apps = [done, app(1, 1.0, 8, 1)];
        assert_eq!(order(&solve(JobOrder::Spc, &apps)), vec![1, 0]);
        let sized = [
            AppWork {
                reduce_work_ms: Some(500.0),
                ..done
            },
            apps[1],
        ];
        assert_eq!(order(&solve(JobOrder::Spc, &sized)), vec![0, 1]);
    }

    #[test]
    fn weights_change_the_order() {
        let light = [app(0, 1.0, 8, 0), app(1, 1.0, 16, 0)];
        let o = solve(JobOrder::Spc, &light);
        assert_eq!(order(&o), vec![0, 1]);
        // Weight 4 on the longer job: w/p = 4/16 > 1/8, it goes first.
        let heavy = [app(0, 1.0, 8, 0), app(1, 4.0, 16, 0)];
        let o = solve(JobOrder::Spc, &heavy);
        assert_eq!(order(&o), vec![1, 0]);
    }

    #[test]
    fn warm_cuts_give_the_same_order() {
        let apps = [app(0, 2.0, 30, 3), app(1, 1.0, 6, 2), app(2, 3.0, 12, 1)];
        let cold = solve(JobOrder::Spc, &apps);
        let cuts = cold.cuts.clone().expect("the LP ran");
        // One app gone, another shrunk: the kept cuts still start the solve.
        let next = [app(0, 2.0, 20, 3), app(2, 3.0, 12, 1)];
        let warm = spc_order(JobOrder::Spc, &next, &speeds(), &cuts, false, 200);
        let fresh = solve(JobOrder::Spc, &next);
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
        let o = spc_order(
            JobOrder::Spc,
            &apps,
            &speeds(),
            &KeyedCuts::default(),
            false,
            2,
        );
        assert!(o.fallback);
        assert!(o.cuts.is_none());
        assert_eq!(o.lp_jobs, 3);
        assert_eq!(o.keys, vec![(0, 10.0), (1, 2.0)]);
        assert_eq!(order(&o), vec![1, 0]);
        let o = spc_order(
            JobOrder::Spc,
            &apps,
            &speeds(),
            &KeyedCuts::default(),
            true,
            3,
        );
        assert!(!o.fallback);
    }

    #[test]
    fn mean_durations_size_the_jobs() {
        // Same containers, but app 0's run 10 times longer: it goes last.
        let mut a = [app(0, 1.0, 8, 0), app(1, 1.0, 12, 0)];
        a[0].mean_ms = Some(10_000.0);
        let o = solve(JobOrder::Spc, &a);
        assert_eq!(order(&o), vec![1, 0]);
        // Unknown durations take the mean of the known ones.
        a[1].mean_ms = None;
        let o = solve(JobOrder::Spc, &a);
        assert_eq!(order(&o), vec![0, 1]);
    }

    #[test]
    fn the_ams_progress_sizes_the_jobs_over_mean_durations() {
        // Same asks and mean duration; the AM of app 0 says much is left.
        for (long, want) in [(0, vec![1, 0]), (1, vec![0, 1])] {
            let mut a = [app(0, 1.0, 4, 1), app(1, 1.0, 4, 1)];
            a[long].remaining_ms = Some(50.0 * 1_000.0);
            a[long].running = 5;
            let o = solve(JobOrder::Spc, &a);
            assert_eq!(order(&o), want);
        }
    }

    fn run(order: JobOrder, apps: &[AppWork], speeds: &Speeds) -> SpcOrder {
        spc_order(order, apps, speeds, &KeyedCuts::default(), false, 200)
    }

    #[test]
    fn identical_machines_ignore_the_speeds() {
        // One fast slot (8) and one slow (1). App 0: 2 maps; app 1: one map
        // weighing 1.6. On the real speeds app 0 runs both on the fast slot
        // (0.25 s) or spreads them; app 1 takes 1/8 s: Smith's ratios decide.
        let fast = Speeds::from_nodes(&[8.0, 1.0], &[1, 1]);
        let ones = fast.as_identical();
        assert_eq!(ones.mu(), 2.0);
        assert_eq!(ones.machines(), 2);
        let apps = [app(0, 1.0, 2, 0), app(1, 1.0, 1, 0)];
        // Identical: both in one wave (1 s each); the LP's C_j ties; the
        // keys equal those of S-PC over speeds all 1 with the same work.
        let a = run(JobOrder::SpcIdentical, &apps, &fast);
        assert!(!a.fallback);
        let work = fast.mu() / 2.0;
        for &(x, c) in &a.keys {
            // p / mu_j with mu_j the count's slots at speed 1.
            let w = &apps[x as usize];
            let own = w.located as f64 * work / ones.mu_q(w.located);
            assert!(c >= own - 1e-9, "{x}: {c} < {own}");
        }
        // The real speeds give other keys (the fast slot shortens app 1).
        let r = run(JobOrder::Spc, &apps, &fast);
        assert_ne!(a.keys, r.keys);
    }

    #[test]
    fn map_only_drops_the_reduce_stages() {
        // App 0: few maps, many reducers; app 1: more maps, no reducer.
        let apps = [app(0, 1.0, 2, 40), app(1, 1.0, 6, 0), app(2, 1.0, 0, 3)];
        let m = run(JobOrder::SpcMapOnly, &apps, &speeds());
        assert_eq!(m.lp_jobs, 2, "the map stages only");
        // App 2's maps are done: first; then the short map stage.
        assert_eq!(order(&m), vec![2, 0, 1]);
        assert_eq!(m.keys[2].1, 0.0);
        // With its reducers in the LP, app 0 (42 containers) goes last.
        let full = run(JobOrder::Spc, &apps, &speeds());
        assert_eq!(full.lp_jobs, 4);
        assert_eq!(order(&full), vec![2, 1, 0]);
    }

    #[test]
    fn huwf_ranks_by_weight_over_execution_time() {
        // Four slots of speed 1, 1 s containers: app 0 has 8 maps (2 s on
        // four slots) and weight 3, app 1 one reducer (1 s) and weight 1,
        // app 2 4 maps + 4 reducers (1 s + 1 s) and weight 1.
        let sp = speeds();
        let apps = [app(0, 3.0, 8, 0), app(1, 1.0, 0, 1), app(2, 1.0, 4, 4)];
        let o = run(JobOrder::Huwf, &apps, &sp);
        assert!(o.cuts.is_none());
        assert_eq!(o.keys, vec![(0, -1.5), (1, -1.0), (2, -0.5)]);
        assert_eq!(order(&o), vec![0, 1, 2]);
    }

    #[test]
    fn tetris_ranks_by_resource_usage_not_weight() {
        // Score: min(count, 4 slots) times p / mu_j, summed over stages.
        let sp = speeds();
        let apps = [app(0, 9.0, 8, 0), app(1, 1.0, 0, 1), app(2, 1.0, 2, 2)];
        let o = run(JobOrder::Tetris, &apps, &sp);
        // 4 * 2 = 8; 1 * 1 = 1; 2 * 1 + 2 * 1 = 4.
        assert_eq!(o.keys, vec![(0, 8.0), (1, 1.0), (2, 4.0)]);
        assert_eq!(order(&o), vec![1, 2, 0]);
        // Closed forms: no LP bound applies.
        let many: Vec<AppWork> = (0..10).map(|a| app(a, 1.0, 3, 3)).collect();
        let o = spc_order(
            JobOrder::Tetris,
            &many,
            &sp,
            &KeyedCuts::default(),
            false,
            2,
        );
        assert!(!o.fallback);
    }
}
