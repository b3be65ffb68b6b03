//! LP-Schedule (the S-PC paper, eq. 1-4) by cutting planes.
//!
//! minimise `sum w_j C_j` subject to
//! (2) `sum_{j in S} p_j C_j >= f(S)` for every set S of jobs,
//!     `f(S) = sum_S p_j^2 / (2 mu_j) + (sum_S p_j)^2 / (2 mu)`;
//! (3) `C_j >= p_j / mu_j + r_j`; (4) `C_j >= p_j / mu_j + C_j'` for `(j', j)`.
//!
//! (3) are variable bounds and (4) rows from the start; (2) enters as cuts
//! found by the separation oracle of Definition 1 / Lemma 1: sort jobs by
//! `C_j - p_j / (2 mu_j)`, the most violated set is a prefix; it enters
//! alone ([`CUTS_PER_ROUND`] says why). Solver: `microlp`, a maintained pure-Rust simplex (CI needs no
//! native library) whose `Solution::add_constraint` re-solves warm from the
//! previous basis by dual simplex, which is what cutting planes need.
//!
//! Internally sizes are in units of the largest job, speeds in units of `mu`
//! and time in units of `max p / mu`, and each cut row is divided by `P(S)`,
//! so that coefficients lie in (0, 1] (microlp asks for six orders at most).

use std::collections::HashSet;

use microlp::{ComparisonOp, OptimizationDirection, Problem as Lp, Solution, Variable};

use super::{SpcError, MAX_LP_JOBS, MAX_LP_ROUNDS};
use crate::model::Csr;

/// Violated prefixes added per round (the most violated first). Measured
/// with `spindle bench --spc` (LP jobs: ms for 1 / 2 / 4 / 16 a round): 60:
/// 3.8 / 6.9 / 24 / 148; 100: 29 / 100 / 136 / -; 200: 353 / - / - / 12,084.
/// Each extra cut is a dual-simplex re-solve on a larger LP, and the most
/// violated set alone moves the point furthest.
pub const CUTS_PER_ROUND: usize = 1;

/// One job as the LP sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LpJob {
    /// `p_j`, the job's total size.
    pub p: f64,
    /// `mu_j`, the summed speed of the `min(t_j, m)` fastest machines.
    pub mu_j: f64,
    pub release: f64,
    pub weight: f64,
}

impl LpJob {
    /// `p_j / mu_j`, 0 for a job without work.
    pub fn min_time(&self) -> f64 {
        if self.p > 0.0 && self.mu_j > 0.0 {
            self.p / self.mu_j
        } else {
            0.0
        }
    }
}

/// The LP optimum.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LpSolution {
    /// `C_j^LP`.
    pub completion: Vec<f64>,
    /// `sum w_j C_j^LP`: a lower bound on any schedule's total weighted completion time.
    pub objective: f64,
    /// The sets S of the constraints (2) in the final LP (job indices), for warm starts.
    pub cuts: Vec<Vec<u32>>,
    /// Cutting-plane rounds (LP solves after the first).
    pub rounds: usize,
}

/// `f(S)` of eq. 2.
pub fn f_of(jobs: &[LpJob], mu: f64, set: &[u32]) -> f64 {
    let mut total = 0.0;
    let mut own = 0.0;
    for &j in set {
        let job = &jobs[j as usize];
        total += job.p;
        if job.p > 0.0 {
            own += job.p * job.p / job.mu_j;
        }
    }
    0.5 * (own + total * total / mu)
}

/// Definition 1 / Lemma 1: the violated sets among the prefixes of the jobs
/// sorted by `C_j - p_j / (2 mu_j)`, most violated first, at most `max`.
/// A set counts when `(f(S) - sum_S p_j C_j) / P(S) > tol`.
pub fn separate(jobs: &[LpJob], mu: f64, c: &[f64], tol: f64, max: usize) -> Vec<Vec<u32>> {
    let mut order: Vec<u32> = (0..jobs.len() as u32)
        .filter(|&j| jobs[j as usize].p > 0.0)
        .collect();
    let key = |j: u32| c[j as usize] - 0.5 * jobs[j as usize].min_time();
    order.sort_by(|&a, &b| key(a).total_cmp(&key(b)).then(a.cmp(&b)));
    let (mut total, mut own, mut lhs) = (0.0, 0.0, 0.0);
    let mut violated: Vec<(f64, usize)> = Vec::new();
    for (k, &j) in order.iter().enumerate() {
        let job = &jobs[j as usize];
        total += job.p;
        own += job.p * job.p / job.mu_j;
        lhs += job.p * c[j as usize];
        let v = (0.5 * (own + total * total / mu) - lhs) / total;
        if v > tol {
            violated.push((v, k + 1));
        }
    }
    violated.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    violated
        .into_iter()
        .take(max)
        .map(|(_, len)| {
            let mut s = order[..len].to_vec();
            s.sort_unstable();
            s
        })
        .collect()
}

/// Solves LP-Schedule. `preds` row `j` lists job `j`'s predecessors; `mu` is
/// the summed speed of all machines; `warm` are sets S to start with (the cuts
/// of an earlier solve; indices past the jobs are dropped). Without
/// predecessors (and with weights >= 0) the LP is solved exactly by
/// [`solve_independent`]'s greedy, else by cutting planes.
pub fn solve(
    jobs: &[LpJob],
    preds: &Csr,
    mu: f64,
    warm: &[Vec<u32>],
) -> Result<LpSolution, SpcError> {
    let n = jobs.len();
    if n > MAX_LP_JOBS {
        return Err(SpcError::TooManyJobs {
            count: n,
            limit: MAX_LP_JOBS,
        });
    }
    let independent = (0..preds.rows().min(n)).all(|j| preds.row(j).is_empty());
    if independent && jobs.iter().all(|j| j.weight >= 0.0 && j.weight.is_finite()) {
        return Ok(solve_independent(jobs, mu));
    }
    cutting_planes(jobs, preds, mu, warm)
}

/// LP-Schedule without precedence, exactly and without an LP solver.
///
/// With `D_j = C_j - a_j`, `a_j = p_j / (2 mu_j)` and `y_j = p_j D_j`, (2)
/// reads `y(S) >= h(S) = P(S)^2 / (2 mu)` (supermodular) and (3) reads
/// `y_j >= p_j L_j`, `L_j = r_j + a_j`. Together they are the
/// contra-polymatroid `y(S) >= h'(S) = max_T (h(T) + sum_{S \ T} p_j L_j)`,
/// whose maximising `T` is a threshold set of `S` sorted by `L` (write
/// `P(T)^2 / (2 mu)` as `max_l (l P(T) - mu l^2 / 2)`). Minimising
/// `sum (w_j / p_j) y_j` over it is Edmonds' greedy: Smith's order (`w_j /
/// p_j` highest first), each job's `y` the increase of `h'` over the prefix
/// it ends. `O(n^2)`: one sorted insertion and one threshold scan a prefix.
/// Checked against the LP over all `2^N - 1` sets (Clarabel) and against
/// the cutting planes in the tests below. Jobs without work sit at their
/// release. Weights must be >= 0 ([`solve`] checks).
pub fn solve_independent(jobs: &[LpJob], mu: f64) -> LpSolution {
    let started = std::time::Instant::now();
    let n = jobs.len();
    let mut completion: Vec<f64> = jobs.iter().map(|j| j.release + j.min_time()).collect();
    let mut order: Vec<u32> = (0..n as u32)
        .filter(|&j| jobs[j as usize].p > 0.0)
        .collect();
    // Smith's order; ties by index, so the answer is deterministic.
    order.sort_by(|&a, &b| {
        let (ja, jb) = (&jobs[a as usize], &jobs[b as usize]);
        (jb.weight / jb.p)
            .total_cmp(&(ja.weight / ja.p))
            .then(a.cmp(&b))
    });
    // The prefix's jobs as (L_j, p_j), sorted by L.
    let mut sorted: Vec<(f64, f64)> = Vec::with_capacity(order.len());
    let mut pl_total = 0.0;
    let mut h_prev = 0.0;
    for &j in &order {
        let job = &jobs[j as usize];
        let a = 0.5 * job.min_time();
        let l = job.release + a;
        let at = sorted.partition_point(|&(x, _)| x <= l);
        sorted.insert(at, (l, job.p));
        pl_total += job.p * l;
        // h'(S) over the thresholds T = the t smallest L's, t = 0..=|S|.
        let (mut p_t, mut pl_t) = (0.0, 0.0);
        let mut h = pl_total;
        for &(x, p) in &sorted {
            p_t += p;
            pl_t += p * x;
            h = h.max(p_t * p_t / (2.0 * mu) + (pl_total - pl_t));
        }
        let y = h - h_prev;
        h_prev = h;
        completion[j as usize] = y / job.p + a;
    }
    let objective = weighted_sum(jobs, &completion);
    tracing::debug!(
        jobs = n,
        ms = started.elapsed().as_secs_f64() * 1e3,
        "S-PC LP solved by the greedy (no precedence)"
    );
    LpSolution {
        completion,
        objective,
        cuts: Vec::new(),
        rounds: 0,
    }
}

/// The cutting-plane solve of [`solve`], for any precedence (public so that
/// `spindle bench --spc --map-only` can time it beside the greedy).
pub fn cutting_planes(
    jobs: &[LpJob],
    preds: &Csr,
    mu: f64,
    warm: &[Vec<u32>],
) -> Result<LpSolution, SpcError> {
    let started = std::time::Instant::now();
    let n = jobs.len();
    if n == 0 {
        return Ok(LpSolution::default());
    }
    let solver_err = |e: microlp::Error| SpcError::Solver {
        jobs: n,
        message: e.to_string(),
    };
    let pmax = jobs.iter().map(|j| j.p).fold(0.0, f64::max);
    let unit_p = if pmax > 0.0 { pmax } else { 1.0 };
    let unit_t = unit_p / mu;
    let wmax = jobs
        .iter()
        .map(|j| j.weight)
        .fold(0.0, f64::max)
        .max(1e-300);
    let scaled: Vec<LpJob> = jobs
        .iter()
        .map(|j| LpJob {
            p: j.p / unit_p,
            mu_j: j.mu_j / mu,
            release: j.release / unit_t,
            weight: j.weight / wmax,
        })
        .collect();
    let mut lp = Lp::new(OptimizationDirection::Minimize);
    let vars: Vec<Variable> = scaled
        .iter()
        .map(|j| lp.add_var(j.weight, (j.release + j.min_time(), f64::INFINITY)))
        .collect();
    for (j, job) in scaled.iter().enumerate() {
        for &a in preds.row(j) {
            lp.add_constraint(
                [(vars[j], 1.0), (vars[a as usize], -1.0)],
                ComparisonOp::Ge,
                job.min_time(),
            );
        }
    }
    let mut seen: HashSet<Vec<u32>> = HashSet::new();
    let mut cuts: Vec<Vec<u32>> = Vec::new();
    for set in warm {
        let mut s: Vec<u32> = set
            .iter()
            .copied()
            .filter(|&j| (j as usize) < n && scaled[j as usize].p > 0.0)
            .collect();
        s.sort_unstable();
        s.dedup();
        if !s.is_empty() && seen.insert(s.clone()) {
            let (row, rhs) = cut_row(&scaled, &vars, &s);
            lp.add_constraint(row, ComparisonOp::Ge, rhs);
            cuts.push(s);
        }
    }
    let mut sol: Solution = lp
        .solve()
        .map_err(solver_err)?
        .into_solution()
        .map_err(|e| SpcError::Solver {
            jobs: n,
            message: format!("{:?}", e.termination_reason()),
        })?;
    let mut rounds = 0;
    let mut c = vec![0.0; n];
    loop {
        for (j, &v) in vars.iter().enumerate() {
            c[j] = sol.var_value(v);
        }
        let cmax = c.iter().fold(1.0f64, |m, &x| m.max(x.abs()));
        let fresh: Vec<Vec<u32>> = separate(&scaled, 1.0, &c, 1e-7 * cmax, CUTS_PER_ROUND)
            .into_iter()
            .filter(|s| !seen.contains(s))
            .collect();
        if fresh.is_empty() {
            break;
        }
        rounds += 1;
        if rounds > MAX_LP_ROUNDS {
            return Err(SpcError::NoConvergence {
                rounds: MAX_LP_ROUNDS,
                cuts: cuts.len(),
                jobs: n,
            });
        }
        for s in fresh {
            let (row, rhs) = cut_row(&scaled, &vars, &s);
            sol = sol
                .add_constraint(row, ComparisonOp::Ge, rhs)
                .map_err(solver_err)?
                .into_solution()
                .map_err(|e| SpcError::Solver {
                    jobs: n,
                    message: format!("{:?}", e.termination_reason()),
                })?;
            seen.insert(s.clone());
            cuts.push(s);
        }
    }
    let completion: Vec<f64> = c.iter().map(|&x| x * unit_t).collect();
    let objective = weighted_sum(jobs, &completion);
    tracing::debug!(
        jobs = n,
        cuts = cuts.len(),
        rounds,
        ms = started.elapsed().as_secs_f64() * 1e3,
        "S-PC LP solved"
    );
    Ok(LpSolution {
        completion,
        objective,
        cuts,
        rounds,
    })
}

/// Re-solves at time `now` with the remaining work (Sect. VI.B, online
/// re-optimisation): machines are free from `now` on, so (2) holds for
/// `C_j - now`; releases before `now` become `now`. `jobs` hold the remaining
/// sizes; `warm` the sets of an earlier solve, in these jobs' indices.
pub fn solve_at(
    jobs: &[LpJob],
    preds: &Csr,
    mu: f64,
    now: f64,
    warm: &[Vec<u32>],
) -> Result<LpSolution, SpcError> {
    let shifted: Vec<LpJob> = jobs
        .iter()
        .map(|j| LpJob {
            release: (j.release - now).max(0.0),
            ..*j
        })
        .collect();
    let mut s = solve(&shifted, preds, mu, warm)?;
    for c in &mut s.completion {
        *c += now;
    }
    s.objective = jobs
        .iter()
        .zip(&s.completion)
        .map(|(j, &c)| j.weight * c)
        .sum();
    Ok(s)
}

/// `sum w_j C_j`.
fn weighted_sum(jobs: &[LpJob], completion: &[f64]) -> f64 {
    jobs.iter()
        .zip(completion)
        .map(|(j, &c)| j.weight * c)
        .sum()
}

/// Constraint (2) for `set`, divided by `P(S)`.
fn cut_row(jobs: &[LpJob], vars: &[Variable], set: &[u32]) -> (Vec<(Variable, f64)>, f64) {
    let total: f64 = set.iter().map(|&j| jobs[j as usize].p).sum();
    let row = set
        .iter()
        .map(|&j| (vars[j as usize], jobs[j as usize].p / total))
        .collect();
    (row, f_of(jobs, 1.0, set) / total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The same LP with all `2^N - 1` sets of (2) written out, solved by
    /// Clarabel (an interior-point solver, independent of microlp's simplex
    /// and of the separation oracle).
    fn brute_force(jobs: &[LpJob], preds: &[Vec<u32>], mu: f64) -> (f64, Vec<f64>) {
        use clarabel::algebra::CscMatrix;
        use clarabel::solver::{
            DefaultSettingsBuilder, DefaultSolver, IPSolver, NonnegativeConeT, SolverStatus,
        };
        let n = jobs.len();
        let mut rows: Vec<Vec<f64>> = Vec::new();
        let mut b: Vec<f64> = Vec::new();
        // Ax + s = b, s >= 0 means Ax <= b: each `>=` row is negated.
        for mask in 1u32..(1 << n) {
            let set: Vec<u32> = (0..n as u32).filter(|&j| mask & (1 << j) != 0).collect();
            let mut row = vec![0.0; n];
            for &j in &set {
                row[j as usize] = -jobs[j as usize].p;
            }
            rows.push(row);
            b.push(-f_of(jobs, mu, &set));
        }
        for (j, job) in jobs.iter().enumerate() {
            let mut row = vec![0.0; n];
            row[j] = -1.0;
            rows.push(row);
            b.push(-(job.min_time() + job.release));
            for &a in &preds[j] {
                let mut row = vec![0.0; n];
                row[j] = -1.0;
                row[a as usize] = 1.0;
                rows.push(row);
                b.push(-job.min_time());
            }
        }
        let a = CscMatrix::from(&rows);
        let p = CscMatrix::<f64>::zeros((n, n));
        let q: Vec<f64> = jobs.iter().map(|j| j.weight).collect();
        let cones = [NonnegativeConeT(rows.len())];
        let settings = DefaultSettingsBuilder::default()
            .verbose(false)
            .build()
            .unwrap();
        let mut s = DefaultSolver::new(&p, &q, &a, &b, &cones, settings).unwrap();
        s.solve();
        assert_eq!(s.solution.status, SolverStatus::Solved);
        (s.solution.obj_val, s.solution.x.clone())
    }

    fn csr(preds: &[Vec<u32>]) -> Csr {
        Csr::from_rows(preds.iter().map(|r| r.iter().copied()))
    }

    #[test]
    fn single_job_sits_at_its_bound() {
        // p = 8 on 2 machines of speed 2 (mu_j = mu = 4): C >= 2 + r and
        // (2) for {j}: 8 C >= 64/8 + 64/8 = 16, so C = 2 + 1.
        let jobs = [LpJob {
            p: 8.0,
            mu_j: 4.0,
            release: 1.0,
            weight: 3.0,
        }];
        let s = solve(&jobs, &csr(&[vec![]]), 4.0, &[]).unwrap();
        assert!((s.completion[0] - 3.0).abs() < 1e-9, "{:?}", s);
        assert!((s.objective - 9.0).abs() < 1e-9);
    }

    #[test]
    fn two_jobs_match_the_brute_force() {
        let jobs = [
            LpJob {
                p: 4.0,
                mu_j: 2.0,
                release: 0.0,
                weight: 1.0,
            },
            LpJob {
                p: 2.0,
                mu_j: 2.0,
                release: 0.0,
                weight: 5.0,
            },
        ];
        let preds = vec![vec![], vec![]];
        let (opt, _) = brute_force(&jobs, &preds, 3.0);
        let greedy = solve(&jobs, &csr(&preds), 3.0, &[]).unwrap();
        let cuts = cutting_planes(&jobs, &csr(&preds), 3.0, &[]).unwrap();
        for s in [&greedy, &cuts] {
            assert!(
                (s.objective - opt).abs() < 1e-6 * opt,
                "{} vs {opt}",
                s.objective
            );
        }
        assert!(greedy.cuts.is_empty() && greedy.rounds == 0);
        assert!(!cuts.cuts.is_empty());
    }

    #[test]
    fn the_greedy_waits_for_a_release_and_orders_by_smith() {
        // One machine of speed 1 (mu_j = mu = 1). b (w/p = 2) goes first,
        // from its release 1: C_b = 1 + 1 = 2; a (w/p = 1/2) after it: the
        // tight set {a, b} gives 2 C_a + C_b >= (4 + 1) / 2 + 9 / 2 = 7,
        // C_a = 2.5 (the LP's relaxation; on the machine, a would end at 4).
        let jobs = [
            LpJob {
                p: 2.0,
                mu_j: 1.0,
                release: 0.0,
                weight: 1.0,
            },
            LpJob {
                p: 1.0,
                mu_j: 1.0,
                release: 1.0,
                weight: 2.0,
            },
        ];
        let s = solve_independent(&jobs, 1.0);
        let (opt, _) = brute_force(&jobs, &[vec![], vec![]], 1.0);
        assert!((s.completion[1] - 2.0).abs() < 1e-12, "{s:?}");
        assert!((s.completion[0] - 2.5).abs() < 1e-12, "{s:?}");
        assert!((s.objective - opt).abs() < 1e-6 * opt, "{s:?} vs {opt}");
    }

    #[test]
    fn too_many_jobs_is_refused() {
        let jobs = vec![
            LpJob {
                p: 1.0,
                mu_j: 1.0,
                release: 0.0,
                weight: 1.0
            };
            MAX_LP_JOBS + 1
        ];
        let preds = Csr::from_rows(jobs.iter().map(|_| std::iter::empty()));
        assert_eq!(
            solve(&jobs, &preds, 1.0, &[]).unwrap_err().to_string(),
            "S-PC's LP has 10001 jobs, more than the limit of 10000"
        );
    }

    #[test]
    fn solve_at_shifts_time_and_keeps_a_warm_start_valid() {
        let jobs: Vec<LpJob> = (0..5)
            .map(|i| LpJob {
                p: 1.0 + i as f64,
                mu_j: 2.0,
                release: 0.0,
                weight: 1.0 + (i % 3) as f64,
            })
            .collect();
        // Job 4 after job 0: the cutting planes, whose warm start is tested.
        let preds = Csr::from_rows((0..5u32).map(|j| (j == 4).then_some(0)));
        let cold = solve(&jobs, &preds, 3.0, &[]).unwrap();
        let warm = solve(&jobs, &preds, 3.0, &cold.cuts).unwrap();
        assert!((cold.objective - warm.objective).abs() < 1e-6 * cold.objective);
        // Another optimal vertex may show one more violated set, no more.
        assert!(
            warm.rounds < cold.rounds,
            "{} vs {}",
            warm.rounds,
            cold.rounds
        );
        let later = solve_at(&jobs, &preds, 3.0, 10.0, &cold.cuts).unwrap();
        // C is not unique (other optimal vertices), the optimum is.
        let w: f64 = jobs.iter().map(|j| j.weight).sum();
        let shifted = cold.objective + 10.0 * w;
        assert!(
            (later.objective - shifted).abs() < 1e-6 * shifted,
            "{} vs {shifted}",
            later.objective
        );
        assert!(later.completion.iter().all(|&c| c >= 10.0));
    }

    fn instance() -> impl Strategy<Value = (Vec<LpJob>, Vec<Vec<u32>>, f64)> {
        (1usize..=6, 1usize..=4).prop_flat_map(|(n, m)| {
            (
                proptest::collection::vec(0.25f64..8.0, m),
                proptest::collection::vec((1u64..=5, 0.5f64..16.0, 0.0f64..10.0, 1.0f64..5.0), n),
                proptest::collection::vec(any::<bool>(), n * n),
            )
                .prop_map(move |(mut speeds, spec, edges)| {
                    speeds.sort_by(|a, b| b.total_cmp(a));
                    let mu: f64 = speeds.iter().sum();
                    let jobs: Vec<LpJob> = spec
                        .iter()
                        .map(|&(tasks, p, r, w)| LpJob {
                            p,
                            mu_j: speeds[..(tasks as usize).min(speeds.len())].iter().sum(),
                            release: r,
                            weight: w,
                        })
                        .collect();
                    // Edges only from lower to higher index: acyclic.
                    let preds: Vec<Vec<u32>> = (0..n)
                        .map(|j| {
                            (0..j as u32)
                                .filter(|&a| edges[j * n + a as usize])
                                .collect()
                        })
                        .collect();
                    (jobs, preds, mu)
                })
        })
    }

    /// Every set of (2) and every bound (3) holds at `c`.
    fn feasible(jobs: &[LpJob], mu: f64, c: &[f64]) -> Result<(), String> {
        let n = jobs.len();
        for mask in 1u32..(1 << n) {
            let set: Vec<u32> = (0..n as u32).filter(|&j| mask & (1 << j) != 0).collect();
            let lhs: f64 = set
                .iter()
                .map(|&j| jobs[j as usize].p * c[j as usize])
                .sum();
            let f = f_of(jobs, mu, &set);
            if lhs < f - 1e-5 * f.max(1.0) {
                return Err(format!("set {set:?}: {lhs} < {f}"));
            }
        }
        for (j, job) in jobs.iter().enumerate() {
            let bound = job.release + job.min_time();
            if c[j] < bound - 1e-9 * bound.max(1.0) {
                return Err(format!("job {j}: C {} below its bound {bound}", c[j]));
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn the_greedy_reaches_the_all_subsets_optimum((jobs, _, mu) in instance()) {
            let none = vec![Vec::new(); jobs.len()];
            let s = solve(&jobs, &csr(&none), mu, &[]).unwrap();
            prop_assert_eq!(s.rounds, 0, "the greedy, not the cutting planes");
            let (opt, _) = brute_force(&jobs, &none, mu);
            prop_assert!((s.objective - opt).abs() <= 1e-6 * opt.abs().max(1.0),
                "greedy {} vs all subsets {opt}", s.objective);
            prop_assert!(feasible(&jobs, mu, &s.completion).is_ok(), "{:?}",
                feasible(&jobs, mu, &s.completion));
        }

        #[test]
        fn the_greedy_matches_the_cutting_planes_on_larger_instances(
            spec in proptest::collection::vec((0.5f64..16.0, 0.0f64..20.0, 0.0f64..5.0, 1u32..=4), 1..40),
        ) {
            // 4 machines of speeds 4, 2, 1, 1; zero weights allowed.
            let speeds = [4.0, 2.0, 1.0, 1.0];
            let jobs: Vec<LpJob> = spec.iter().map(|&(p, r, w, t)| LpJob {
                p, mu_j: speeds[..t as usize].iter().sum(), release: r, weight: w,
            }).collect();
            let none = csr(&vec![Vec::new(); jobs.len()]);
            let g = solve(&jobs, &none, 8.0, &[]).unwrap();
            let c = cutting_planes(&jobs, &none, 8.0, &[]).unwrap();
            prop_assert!((g.objective - c.objective).abs() <= 1e-6 * c.objective.abs().max(1.0),
                "greedy {} vs cutting planes {}", g.objective, c.objective);
        }

        #[test]
        fn cutting_planes_reach_the_all_subsets_optimum((jobs, preds, mu) in instance()) {
            let s = solve(&jobs, &csr(&preds), mu, &[]).unwrap();
            let (opt, _) = brute_force(&jobs, &preds, mu);
            prop_assert!((s.objective - opt).abs() <= 1e-5 * opt.abs().max(1.0),
                "cutting planes {} vs all subsets {opt}", s.objective);
            // And the cutting-plane point is feasible for every set.
            let n = jobs.len();
            for mask in 1u32..(1 << n) {
                let set: Vec<u32> = (0..n as u32).filter(|&j| mask & (1 << j) != 0).collect();
                let lhs: f64 = set.iter().map(|&j| jobs[j as usize].p * s.completion[j as usize]).sum();
                let f = f_of(&jobs, mu, &set);
                prop_assert!(lhs >= f - 1e-5 * f.max(1.0), "set {set:?}: {lhs} < {f}");
            }
        }
    }
}
