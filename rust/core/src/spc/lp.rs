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
//! [`solve`] takes the exact greedy [`solve_independent`] without
//! precedence and [`chain_ipm`] (whole chains of prefix sets, each LP solved
//! by Clarabel's interior point method, pure Rust too, from the Lagrangian
//! start order [`lag_order`]) with it;
//! [`chain_cuts`] (cutting planes from one sparse chain) finishes if the
//! chains do not settle, and [`cutting_planes`] is the cold reference.
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
/// [`solve_independent`]'s greedy, else by [`chain_ipm`].
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
    chain_ipm(jobs, preds, mu, warm)
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
    let order = by_ratio(jobs, |j| jobs[j].weight / jobs[j].p);
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

/// The cutting-plane solve of [`solve`] from no start but `warm` (public as
/// the reference the faster [`chain_cuts`] is tested and timed against).
pub fn cutting_planes(
    jobs: &[LpJob],
    preds: &Csr,
    mu: f64,
    warm: &[Vec<u32>],
) -> Result<LpSolution, SpcError> {
    solve_by_cuts(jobs, preds, mu, warm, None)
}

/// The cutting planes of [`cutting_planes`] started from one chain: the
/// constraints (2) of every prefix of [`start_order`] (jobs with work), held
/// sparse by one running-mean variable a prefix, `u_k = (P_{k-1} u_{k-1} +
/// p_k C_k) / P_k >= f(S_k) / P_k`. A cut `S` is then written against the
/// prefix `S_k` nearest to it, `P_k u_k + sum_{S \ S_k} p C - sum_{S_k \ S}
/// p C >= f(S)`, whose nonzeros are the sets' difference, not `|S|`.
/// Exact for the same reason as the cutting planes: every row is a
/// constraint of the LP, and the loop stops only when the separation oracle
/// (Lemma 1) finds no violated set. Why a chain: the LP's tight sets are
/// prefixes of the optimum's `D`-order (`D_j = C_j - p_j / (2 mu_j)`), and
/// Sidney's merged ratios put much of that order in place, so the first
/// solve starts near the optimum. Measured (`spindle bench --spc`,
/// docs/benchmarks.md): 60 cuts against 218 at 200 jobs, 498 against 837
/// at 500, but 1,905 against 2,478 at 1,000: the optimum's own prefixes
/// still enter one by one, so this is a constant factor, not the cure
/// ([`chain_ipm`] is; this finishes for it if its chains do not settle).
pub fn chain_cuts(
    jobs: &[LpJob],
    preds: &Csr,
    mu: f64,
    warm: &[Vec<u32>],
) -> Result<LpSolution, SpcError> {
    let order = start_order(jobs, preds);
    solve_by_cuts(jobs, preds, mu, warm, Some(&order))
}

/// The base chain of [`chain_cuts`]: Smith's order (`w_j / p_j` highest
/// first, ties by index) over the jobs with work, where a job's only
/// successor has only it as predecessor and the higher ratio, both take
/// their joint ratio `(w_i + w_j) / (p_i + p_j)` (Sidney's rule for a
/// 2-chain, the map and reduce stages of a MapReduce job).
pub fn start_order(jobs: &[LpJob], preds: &Csr) -> Vec<u32> {
    let ratio_of = |j: &LpJob| j.weight / j.p;
    let mut ratio: Vec<f64> = jobs
        .iter()
        .map(|j| if j.p > 0.0 { ratio_of(j) } else { 0.0 })
        .collect();
    for (i, j) in two_chains(jobs, preds) {
        let (a, b) = (&jobs[i], &jobs[j]);
        if ratio_of(b) > ratio_of(a) {
            let joint = (a.weight + b.weight) / (a.p + b.p);
            ratio[i] = joint;
            ratio[j] = joint;
        }
    }
    by_ratio(jobs, |j| ratio[j])
}

/// The 2-chains `(i, j)` of `preds`: `j` is `i`'s only successor, `i` is
/// `j`'s only predecessor, both with work (a map stage and its reduce).
fn two_chains(jobs: &[LpJob], preds: &Csr) -> Vec<(usize, usize)> {
    let n = jobs.len();
    // Successor counts, and one successor of each job.
    let mut succs = vec![0u32; n];
    let mut succ = vec![u32::MAX; n];
    for j in 0..preds.rows().min(n) {
        for &i in preds.row(j) {
            if (i as usize) < n {
                succs[i as usize] += 1;
                succ[i as usize] = j as u32;
            }
        }
    }
    (0..n)
        .filter(|&i| succs[i] == 1)
        .map(|i| (i, succ[i] as usize))
        .filter(|&(i, j)| preds.row(j).len() == 1 && jobs[i].p > 0.0 && jobs[j].p > 0.0)
        .collect()
}

/// Gauss-Seidel sweeps of [`lag_order`].
const LAG_SWEEPS: usize = 10;

/// The start chain of [`chain_ipm`]: a Lagrangian order. Relax each
/// 2-chain's precedence row (4) (`i` a map stage, `j` its reduce) with a
/// multiplier `l >= 0`: the rest, (2) and (3), is [`solve_independent`]'s
/// LP with weights `w_i + l` and `w_j - l`, and the dual function is
/// concave in `l`. Each sweep sets every pair's `l`, the others fixed,
/// where the dual's slope `g - (C_j - C_i)` (`g = p_j / mu_j`) turns
/// negative, modelling the greedy's `D` (`D = C - p / (2 mu_j)`) as
/// `max(r + p / (2 mu_j), P_before + p / 2)` (`P_before`: the size of the
/// jobs ahead in Smith's order for these weights; one machine of speed 1,
/// the scaled units). So a reduce stage sits behind its map by the lag
/// `p_i / (2 mu_i) + p_j / (2 mu_j)` its precedence row asks for, not next
/// to it as in [`start_order`]'s Sidney merge. The chain is then the
/// `D`-order of the greedy's exact solution for the final weights.
/// Measured on the bench (docs/benchmarks.md, seventh attempt): at 1,000
/// LP jobs its order is 1,434 places (sum over jobs) from the optimum's
/// `D`-order against 7,188 for [`start_order`], and [`chain_ipm`] needs 7
/// rounds instead of 15. Any order keeps the LP exact (the rounds only
/// stop on the oracle); this one only saves rounds. `O(n^2)` a sweep
/// (a sorted removal and insertion per pair). Scaled jobs (speeds in
/// units of `mu`).
pub fn lag_order(jobs: &[LpJob], preds: &Csr) -> Vec<u32> {
    let n = jobs.len();
    let pairs = two_chains(jobs, preds);
    let mut ratio: Vec<f64> = jobs
        .iter()
        .map(|j| if j.p > 0.0 { j.weight / j.p } else { 0.0 })
        .collect();
    let mut lam = vec![0.0f64; n];
    // The jobs with work by ratio, lowest first: (ratio, job).
    let mut sorted: Vec<(f64, u32)> = (0..n as u32)
        .filter(|&j| jobs[j as usize].p > 0.0)
        .map(|j| (ratio[j as usize], j))
        .collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut prefix: Vec<f64> = Vec::with_capacity(n + 1);
    for _ in 0..LAG_SWEEPS {
        for &(m, r) in &pairs {
            let (jm, jr) = (&jobs[m], &jobs[r]);
            sorted.retain(|&(_, j)| j as usize != m && j as usize != r);
            prefix.clear();
            prefix.push(0.0);
            let mut acc = 0.0;
            for &(_, j) in &sorted {
                acc += jobs[j as usize].p;
                prefix.push(acc);
            }
            // The size of the others ahead of ratio x (higher ratios).
            let ahead = |x: f64| acc - prefix[sorted.partition_point(|&(y, _)| y <= x)];
            let rm = |l: f64| (jm.weight + l) / jm.p;
            let rr = |l: f64| (jr.weight - l) / jr.p;
            let (am, ar) = (0.5 * jm.min_time(), 0.5 * jr.min_time());
            // From the joint ratio on, the map is ahead of its reduce.
            let lagged = |l: f64| {
                let dm = (jm.release + am).max(ahead(rm(l)) + 0.5 * jm.p);
                let dr = (jr.release + ar).max(ahead(rr(l)) + jm.p + 0.5 * jr.p);
                dr - dm >= am + ar
            };
            let joint = ((jm.p * jr.weight - jr.p * jm.weight) / (jm.p + jr.p)).max(0.0);
            let (mut lo, mut hi) = (joint, jr.weight.max(joint));
            let l = if lagged(lo) || !lagged(hi) {
                if lagged(lo) {
                    lo
                } else {
                    hi
                }
            } else {
                // `lagged` is monotone in l: the map moves ahead, the reduce back.
                for _ in 0..60 {
                    let mid = 0.5 * (lo + hi);
                    if lagged(mid) {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                hi
            };
            lam[m] = l;
            ratio[m] = rm(l);
            ratio[r] = rr(l);
            for j in [m, r] {
                let key = (ratio[j], j as u32);
                let at = sorted
                    .partition_point(|&(x, k)| x.total_cmp(&key.0).then(k.cmp(&key.1)).is_lt());
                sorted.insert(at, key);
            }
        }
    }
    let mut relaxed: Vec<LpJob> = jobs.to_vec();
    for &(m, r) in &pairs {
        relaxed[m].weight = jobs[m].weight + lam[m];
        relaxed[r].weight = (jobs[r].weight - lam[m]).max(0.0);
    }
    let greedy = solve_independent(&relaxed, 1.0);
    d_order(jobs, &greedy.completion)
}

/// The jobs with work, `ratio` highest first (Smith's order for `w_j /
/// p_j`); ties by index, so the answer is deterministic.
fn by_ratio(jobs: &[LpJob], ratio: impl Fn(usize) -> f64) -> Vec<u32> {
    let mut order: Vec<u32> = (0..jobs.len() as u32)
        .filter(|&j| jobs[j as usize].p > 0.0)
        .collect();
    order.sort_by(|&a, &b| {
        ratio(b as usize)
            .total_cmp(&ratio(a as usize))
            .then(a.cmp(&b))
    });
    order
}

/// Jobs scaled as the module doc says: sizes in units of the largest job,
/// speeds in units of `mu`, time in units of `max p / mu`, weights in units
/// of the largest. Returns the jobs and the time unit.
fn scale(jobs: &[LpJob], mu: f64) -> (Vec<LpJob>, f64) {
    let pmax = jobs.iter().map(|j| j.p).fold(0.0, f64::max);
    let unit_p = if pmax > 0.0 { pmax } else { 1.0 };
    let unit_t = unit_p / mu;
    let wmax = jobs
        .iter()
        .map(|j| j.weight)
        .fold(0.0, f64::max)
        .max(1e-300);
    let scaled = jobs
        .iter()
        .map(|j| LpJob {
            p: j.p / unit_p,
            mu_j: j.mu_j / mu,
            release: j.release / unit_t,
            weight: j.weight / wmax,
        })
        .collect();
    (scaled, unit_t)
}

/// The prefixes of a base chain as LP variables (see [`chain_cuts`]).
struct Chain {
    /// The chain's jobs in order.
    order: Vec<u32>,
    /// `u_k` of the prefix of length `k + 1`.
    mean: Vec<Variable>,
    /// `P_k`, the prefix's total size.
    total: Vec<f64>,
    /// Job -> position in `order` (`u32::MAX` off the chain).
    pos: Vec<u32>,
}

impl Chain {
    /// Adds the chain's variables and rows to `lp`.
    fn add(lp: &mut Lp, jobs: &[LpJob], vars: &[Variable], order: &[u32]) -> Chain {
        let mut pos = vec![u32::MAX; jobs.len()];
        let (mut mean, mut total) = (
            Vec::with_capacity(order.len()),
            Vec::with_capacity(order.len()),
        );
        let (mut p_sum, mut own) = (0.0, 0.0);
        for (k, &j) in order.iter().enumerate() {
            let job = &jobs[j as usize];
            pos[j as usize] = k as u32;
            let prev = p_sum;
            p_sum += job.p;
            own += job.p * job.p / job.mu_j;
            let f = 0.5 * (own + p_sum * p_sum);
            let u = lp.add_var(0.0, (f / p_sum, f64::INFINITY));
            let mut row = vec![(u, 1.0), (vars[j as usize], -job.p / p_sum)];
            if let Some(&before) = mean.last() {
                row.push((before, -prev / p_sum));
            }
            lp.add_constraint(row, ComparisonOp::Eq, 0.0);
            mean.push(u);
            total.push(p_sum);
        }
        Chain {
            order: order.to_vec(),
            mean,
            total,
            pos,
        }
    }

    /// Constraint (2) for `set` (sorted, jobs with work) written against
    /// the chain's prefix with the fewest differences, divided by `P(S)`.
    /// `mark` is a scratch buffer of the jobs' count, all false on entry
    /// and on return.
    fn row(
        &self,
        jobs: &[LpJob],
        vars: &[Variable],
        set: &[u32],
        mark: &mut [bool],
    ) -> (Vec<(Variable, f64)>, f64) {
        for &j in set {
            mark[j as usize] = true;
        }
        // |S xor S_k| = |S| + k - 2 |S cap S_k| over k; k = 0 is the dense row.
        let (mut best, mut best_k, mut common) = (set.len() as i64, 0usize, 0i64);
        for (k, &j) in self.order.iter().enumerate() {
            if mark[j as usize] {
                common += 1;
            }
            let d = set.len() as i64 + (k as i64 + 1) - 2 * common;
            if d < best {
                best = d;
                best_k = k + 1;
            }
        }
        let total: f64 = set.iter().map(|&j| jobs[j as usize].p).sum();
        let mut row: Vec<(Variable, f64)> = Vec::with_capacity(best as usize + 1);
        if best_k > 0 {
            row.push((self.mean[best_k - 1], self.total[best_k - 1] / total));
            for &j in &self.order[..best_k] {
                if !mark[j as usize] {
                    row.push((vars[j as usize], -jobs[j as usize].p / total));
                }
            }
        }
        for &j in set {
            if (self.pos[j as usize] as usize) >= best_k {
                row.push((vars[j as usize], jobs[j as usize].p / total));
            }
            mark[j as usize] = false;
        }
        (row, f_of(jobs, 1.0, set) / total)
    }
}

/// The cutting-plane loop of [`cutting_planes`] and [`chain_cuts`]
/// (`chain`: the base chain's order, if any).
fn solve_by_cuts(
    jobs: &[LpJob],
    preds: &Csr,
    mu: f64,
    warm: &[Vec<u32>],
    chain: Option<&[u32]>,
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
    let unsolved = |e: microlp::InterruptedSolve| SpcError::Solver {
        jobs: n,
        message: format!("{:?}", e.termination_reason()),
    };
    let (scaled, unit_t) = scale(jobs, mu);
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
    let chain = chain.map(|order| Chain::add(&mut lp, &scaled, &vars, order));
    let mut mark = vec![false; n];
    let mut row_of = |set: &[u32]| match &chain {
        Some(c) => c.row(&scaled, &vars, set, &mut mark),
        None => cut_row(&scaled, &vars, set),
    };
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
            let (row, rhs) = row_of(&s);
            lp.add_constraint(row, ComparisonOp::Ge, rhs);
            cuts.push(s);
        }
    }
    let mut sol: Solution = lp
        .solve()
        .map_err(solver_err)?
        .into_solution()
        .map_err(unsolved)?;
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
            let (row, rhs) = row_of(&s);
            sol = sol
                .add_constraint(row, ComparisonOp::Ge, rhs)
                .map_err(solver_err)?
                .into_solution()
                .map_err(unsolved)?;
            seen.insert(s.clone());
            cuts.push(s);
        }
    }
    tracing::debug!(
        jobs = n,
        chain = chain.is_some(),
        cuts = cuts.len(),
        rounds,
        ms = started.elapsed().as_secs_f64() * 1e3,
        "S-PC LP solved"
    );
    Ok(unscaled(jobs, &c, unit_t, cuts, rounds))
}

/// The solution in the jobs' own time unit from scaled completions `c`.
fn unscaled(
    jobs: &[LpJob],
    c: &[f64],
    unit_t: f64,
    cuts: Vec<Vec<u32>>,
    rounds: usize,
) -> LpSolution {
    let completion: Vec<f64> = c.iter().map(|&x| x * unit_t).collect();
    LpSolution {
        objective: weighted_sum(jobs, &completion),
        completion,
        cuts,
        rounds,
    }
}

/// The jobs with work sorted by `D_j = C_j - p_j / (2 mu_j)` (ties by
/// index): the order whose prefixes the separation oracle checks.
fn d_order(jobs: &[LpJob], c: &[f64]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..jobs.len() as u32)
        .filter(|&j| jobs[j as usize].p > 0.0)
        .collect();
    let key = |j: u32| c[j as usize] - 0.5 * jobs[j as usize].min_time();
    order.sort_by(|&a, &b| key(a).total_cmp(&key(b)).then(a.cmp(&b)));
    order
}

/// The prefixes of `order` tight at `c` (within `tol` a unit of `P(S)`),
/// each sorted: the sets a later solve starts from.
fn tight_prefixes(jobs: &[LpJob], c: &[f64], order: &[u32], tol: f64) -> Vec<Vec<u32>> {
    let (mut total, mut own, mut lhs) = (0.0, 0.0, 0.0);
    let mut sets = Vec::new();
    for (k, &j) in order.iter().enumerate() {
        let job = &jobs[j as usize];
        total += job.p;
        own += job.p * job.p / job.mu_j;
        lhs += job.p * c[j as usize];
        if (lhs - 0.5 * (own + total * total)) / total <= tol {
            let mut s = order[..=k].to_vec();
            s.sort_unstable();
            sets.push(s);
        }
    }
    sets
}

/// A chain from the sets of an earlier solve (the tight prefixes of its
/// optimum's order, restricted to the jobs still present, so still nested):
/// jobs in more sets first; jobs in none (new ones) by `start`'s order.
fn warm_order(jobs: &[LpJob], warm: &[Vec<u32>], start: &[u32]) -> Option<Vec<u32>> {
    if warm.is_empty() {
        return None;
    }
    let n = jobs.len();
    let mut count = vec![0u32; n];
    for set in warm {
        for &j in set {
            if (j as usize) < n {
                count[j as usize] += 1;
            }
        }
    }
    let mut rank = vec![0u32; n];
    for (k, &j) in start.iter().enumerate() {
        rank[j as usize] = k as u32;
    }
    let mut order = start.to_vec();
    order.sort_by(|&a, &b| {
        count[b as usize]
            .cmp(&count[a as usize])
            .then(rank[a as usize].cmp(&rank[b as usize]))
    });
    Some(order)
}

/// Which prefixes of `order` are violated at `c` (scaled jobs, `mu` = 1),
/// as in [`separate`]: entry `k` for the prefix of length `k` (entry 0 false).
fn violated_prefixes(jobs: &[LpJob], c: &[f64], order: &[u32], tol: f64) -> Vec<bool> {
    let (mut total, mut own, mut lhs) = (0.0, 0.0, 0.0);
    let mut violated = Vec::with_capacity(order.len() + 1);
    violated.push(false);
    for &j in order {
        let job = &jobs[j as usize];
        total += job.p;
        own += job.p * job.p / job.mu_j;
        lhs += job.p * c[j as usize];
        violated.push((0.5 * (own + total * total) - lhs) / total > tol);
    }
    violated
}

/// The `t`-rows [`solve_chains_ipm`] adds around the base chain's prefixes.
///
/// (2) for every set is `sum_j p_j (t - D_j)^+ <= t^2 / 2` for every `t`
/// (`D_j = C_j - p_j / (2 mu_j)`, scaled jobs, `mu` = 1), tight at `t =
/// P(S)` for a tight set `S`. So, for any sets `B` and `U`, `sum_B p_j (t -
/// D_j) + sum_U p_j e_j <= t^2 / 2` with `e_j >= t - D_j`, `e_j >= 0` is
/// implied by (2): a valid row, never a change of the LP's optimum. With
/// `t` the base prefix's size, `B` the prefix but its last `band` jobs and
/// `U` the `2 band` jobs around its end, one row holds every set that
/// reorders the prefix's end, where the prefix row holds one. A chain alone
/// lets the next solution reshuffle every prefix's end, and the next
/// `D`-order's prefixes are violated again (lp5-lp7: 32 rounds at 5,000 LP
/// jobs).
#[derive(Clone, Debug, Default)]
struct Fuzzy {
    /// Jobs of `U` either side of the prefix's end; 0: no `t`-rows.
    band: usize,
    /// A `t`-row at every `stride`-th prefix of the base.
    stride: usize,
    /// `hot[k]`: the base's prefix of length `k` was violated by the last
    /// solution; rows only near such prefixes (all rows when empty).
    hot: Vec<bool>,
    /// Jobs that moved far between two rounds (job, its bound `r + p / (2
    /// mu_j)`, its highest `D` so far): in `U` of every row with `t` between
    /// the two, wherever they stand in the base. On the bench they are
    /// one-task map stages (tiny `p`, long own time) that the chain rows let
    /// the solution park late and count early.
    movers: Vec<(u32, f64, f64)>,
}

/// [`Fuzzy`]'s `band` and `stride` in [`chain_ipm`], and how many places a
/// job must move between two rounds' `D`-orders to be a mover. Measured at
/// 5,000 LP jobs (experiment build, 2026-11-28, docs/benchmarks.md eighth
/// attempt): 7 rounds and 19.3 s of CPU against 32 and 30.0 s without;
/// stride 10: 9 rounds, 23.3 s.
const FUZZY_BAND: usize = 5;
const FUZZY_STRIDE: usize = 5;
const MOVER_PLACES: usize = 10;

/// The LP with constraints (2) for every prefix of each of `chains` (and
/// (3), (4), and `fuzzy`'s `t`-rows) solved by Clarabel's interior point
/// method. Scaled jobs. Writes `C` into `c` and returns the dual of each
/// chain's prefixes, chain after chain (0 for a prefix equal to the base's,
/// whose row carries it), and each job's share of the `t`-rows' duals (its
/// level beyond the chains'). A release row (3) implied by a predecessor's
/// (3) and (4) is left out.
fn solve_chains_ipm(
    jobs: &[LpJob],
    preds: &Csr,
    chains: &[Vec<u32>],
    c: &mut [f64],
    fuzzy: &Fuzzy,
) -> Result<(Vec<f64>, Vec<f64>), SpcError> {
    use clarabel::algebra::CscMatrix;
    use clarabel::solver::{
        DefaultSettingsBuilder, DefaultSolver, IPSolver, NonnegativeConeT, SolverStatus, ZeroConeT,
    };
    let n = jobs.len();
    // Only the last chain (the base) gets running means; each other chain's
    // prefix is a row against the base's prefix of the same length, whose
    // nonzeros are the two sets' difference. Two crossing chains of means
    // made the LDL factor's fill (a dense separator) the cost of a round;
    // rows of differences keep it near the base's band as the orders meet.
    let last = chains.len().saturating_sub(1);
    let meaned = |i: usize| i == last || chains[i].len() != chains[last].len();
    let nu: usize = (0..chains.len())
        .filter(|&i| meaned(i))
        .map(|i| chains[i].len())
        .sum();
    let mut vars = n + nu;
    let (mut ri, mut ci, mut v) = (Vec::new(), Vec::new(), Vec::new());
    let mut b = Vec::new();
    let mut row = 0usize;
    // Zero cone: u_k - (P_{k-1} / P_k) u_{k-1} - (p_k / P_k) C_k = 0.
    let mut base = n;
    let mut lower = Vec::with_capacity(nu);
    // Per chain: its first mean variable (meaned chains).
    let mut first_var = vec![usize::MAX; chains.len()];
    for (i, order) in chains.iter().enumerate() {
        if !meaned(i) {
            continue;
        }
        first_var[i] = base;
        let (mut p_sum, mut own) = (0.0, 0.0);
        for (k, &j) in order.iter().enumerate() {
            let job = &jobs[j as usize];
            let prev = p_sum;
            p_sum += job.p;
            own += job.p * job.p / job.mu_j;
            lower.push(0.5 * (own + p_sum * p_sum) / p_sum);
            ri.push(row);
            ci.push(base + k);
            v.push(1.0);
            ri.push(row);
            ci.push(j as usize);
            v.push(-job.p / p_sum);
            if k > 0 {
                ri.push(row);
                ci.push(base + k - 1);
                v.push(-prev / p_sum);
            }
            b.push(0.0);
            row += 1;
        }
        base += order.len();
    }
    let zero_rows = row;
    // Nonnegative cone (Ax <= b): u_k >= f_k / P_k, (3), (4).
    for (k, &l) in lower.iter().enumerate() {
        ri.push(row);
        ci.push(n + k);
        v.push(-1.0);
        b.push(-l);
        row += 1;
    }
    // Each prefix's dual: its row, if it has one of its own.
    let mut dual_row: Vec<Option<usize>> = Vec::with_capacity(chains.iter().map(Vec::len).sum());
    for (i, order) in chains.iter().enumerate() {
        if meaned(i) {
            let r0 = zero_rows + (first_var[i] - n);
            dual_row.extend((0..order.len()).map(|k| Some(r0 + k)));
            continue;
        }
        // T_k against the base's S_k: P(S_k) u_k + p(T_k \ S_k) C - p(S_k \ T_k) C
        // >= f(T_k), over P(T_k); the symmetric difference kept as a list.
        let base_order = &chains[last];
        let mut in_t = vec![false; n];
        let mut at = vec![usize::MAX; n];
        let mut delta: Vec<u32> = Vec::new();
        let toggle = |j: u32, delta: &mut Vec<u32>, at: &mut Vec<usize>| {
            let ju = j as usize;
            if at[ju] == usize::MAX {
                at[ju] = delta.len();
                delta.push(j);
            } else {
                let k = at[ju];
                delta.swap_remove(k);
                if k < delta.len() {
                    at[delta[k] as usize] = k;
                }
                at[ju] = usize::MAX;
            }
        };
        let (mut pt, mut own, mut ps) = (0.0, 0.0, 0.0);
        for (k, (&t, &s_j)) in order.iter().zip(base_order).enumerate() {
            let job = &jobs[t as usize];
            pt += job.p;
            own += job.p * job.p / job.mu_j;
            ps += jobs[s_j as usize].p;
            in_t[t as usize] = true;
            toggle(t, &mut delta, &mut at);
            toggle(s_j, &mut delta, &mut at);
            if delta.is_empty() {
                // The same set as the base's prefix: its row carries the dual.
                dual_row.push(None);
                continue;
            }
            ri.push(row);
            ci.push(first_var[last] + k);
            v.push(-ps / pt);
            for &j in &delta {
                let sign = if in_t[j as usize] { -1.0 } else { 1.0 };
                ri.push(row);
                ci.push(j as usize);
                v.push(sign * jobs[j as usize].p / pt);
            }
            b.push(-0.5 * (own + pt * pt) / pt);
            dual_row.push(Some(row));
            row += 1;
        }
    }
    // The t-rows (see `Fuzzy`): (row, t, jobs of B counted, jobs of U).
    let mut t_rows: Vec<(usize, f64, Vec<u32>, Vec<u32>)> = Vec::new();
    if fuzzy.band > 0 && fuzzy.stride > 0 && !chains.is_empty() {
        let base_order = &chains[last];
        let m = base_order.len();
        let (band, stride) = (fuzzy.band, fuzzy.stride);
        // Prefix sums of p and of p a (a = p / (2 mu_j)) along the base.
        let (mut psum, mut asum) = (vec![0.0; m + 1], vec![0.0; m + 1]);
        let mut at = vec![usize::MAX; n];
        for (k, &j) in base_order.iter().enumerate() {
            let job = &jobs[j as usize];
            psum[k + 1] = psum[k] + job.p;
            asum[k + 1] = asum[k] + job.p * 0.5 * job.min_time();
            at[j as usize] = k;
        }
        let reach = band + stride;
        let mut len = stride;
        while len <= m {
            let hot = &fuzzy.hot;
            if !hot.is_empty()
                && !hot[len.saturating_sub(reach)..(len + reach).min(hot.len())]
                    .iter()
                    .any(|&h| h)
            {
                len += stride;
                continue;
            }
            let t = psum[len];
            let b_len = len.saturating_sub(band);
            let u_end = (len + band).min(m);
            let main = row;
            row += 1;
            // sum_B p (t - C + a) + sum_U p e <= t^2 / 2, over t; sum_B p C
            // is the base's mean u times P(B).
            if b_len > 0 {
                ri.push(main);
                ci.push(first_var[last] + b_len - 1);
                v.push(-psum[b_len] / t);
            }
            let mut rhs = 0.5 * t * t - t * psum[b_len] - asum[b_len];
            let mut u_jobs: Vec<u32> = base_order[b_len..u_end].to_vec();
            let mut out_of_b: Vec<u32> = Vec::new();
            for &(j, lo, hi) in &fuzzy.movers {
                let k = at[j as usize];
                if lo < t && t <= hi && (k < b_len || k >= u_end) {
                    if k < b_len {
                        // Out of B: undo its share of the prefix's mean.
                        let job = &jobs[j as usize];
                        ri.push(main);
                        ci.push(j as usize);
                        v.push(job.p / t);
                        rhs += t * job.p + job.p * 0.5 * job.min_time();
                        out_of_b.push(j);
                    }
                    u_jobs.push(j);
                }
            }
            b.push(rhs / t);
            for &j in &u_jobs {
                let job = &jobs[j as usize];
                let e = vars;
                vars += 1;
                ri.push(main);
                ci.push(e);
                v.push(job.p / t);
                // e >= t - D_j = t - C_j + a_j, and e >= 0.
                ri.push(row);
                ci.push(e);
                v.push(-1.0);
                ri.push(row);
                ci.push(j as usize);
                v.push(-1.0);
                b.push(-(t + 0.5 * job.min_time()));
                row += 1;
                ri.push(row);
                ci.push(e);
                v.push(-1.0);
                b.push(0.0);
                row += 1;
            }
            out_of_b.sort_unstable();
            let counted: Vec<u32> = base_order[..b_len]
                .iter()
                .copied()
                .filter(|j| out_of_b.binary_search(j).is_err())
                .collect();
            t_rows.push((main, t, counted, u_jobs));
            len += stride;
        }
    }
    for (j, job) in jobs.iter().enumerate() {
        // (3) is implied when a predecessor's own (3) and (4) give it.
        let implied = preds.row(j).iter().any(|&a| {
            let pa = &jobs[a as usize];
            pa.release + pa.min_time() >= job.release
        });
        if !implied {
            ri.push(row);
            ci.push(j);
            v.push(-1.0);
            b.push(-(job.release + job.min_time()));
            row += 1;
        }
        for &a in preds.row(j) {
            ri.push(row);
            ci.push(j);
            v.push(-1.0);
            ri.push(row);
            ci.push(a as usize);
            v.push(1.0);
            b.push(-job.min_time());
            row += 1;
        }
    }
    let a = CscMatrix::new_from_triplets(row, vars, ri, ci, v);
    let p = CscMatrix::<f64>::zeros((vars, vars));
    let mut q = vec![0.0; vars];
    for (j, job) in jobs.iter().enumerate() {
        q[j] = job.weight;
    }
    let cones = [ZeroConeT(zero_rows), NonnegativeConeT(row - zero_rows)];
    // No iterative refinement: it was half of a solve's time (up to 10
    // extra triangular solves a step) and the stopping test still checks
    // the true residuals (docs/benchmarks.md, sixth attempt).
    let settings = DefaultSettingsBuilder::default()
        .verbose(false)
        .tol_gap_abs(1e-10)
        .tol_gap_rel(1e-10)
        .iterative_refinement_enable(false)
        .build()
        .map_err(|e| SpcError::Solver {
            jobs: n,
            message: e.to_string(),
        })?;
    let mut solver =
        DefaultSolver::new(&p, &q, &a, &b, &cones, settings).map_err(|e| SpcError::Solver {
            jobs: n,
            message: format!("{e:?}"),
        })?;
    solver.solve();
    tracing::debug!(
        rows = row,
        t_rows = t_rows.len(),
        nnz = a.nnz(),
        nnz_l = solver.info.linsolver.nnzL,
        iterations = solver.info.iterations,
        "S-PC LP interior point solve"
    );
    match solver.solution.status {
        SolverStatus::Solved | SolverStatus::AlmostSolved => {}
        other => {
            return Err(SpcError::Solver {
                jobs: n,
                message: format!("{other:?}"),
            })
        }
    }
    c.copy_from_slice(&solver.solution.x[..n]);
    let z = &solver.solution.z;
    // A t-row's dual, over t, counts for the jobs of B and those of U below t.
    let mut level = vec![0.0; n];
    for (r, t, counted, u_jobs) in &t_rows {
        let share = z[*r] / t;
        for &j in counted {
            level[j as usize] += share;
        }
        for &j in u_jobs {
            if c[j as usize] - 0.5 * jobs[j as usize].min_time() < *t {
                level[j as usize] += share;
            }
        }
    }
    let duals = dual_row.iter().map(|r| r.map_or(0.0, |r| z[r])).collect();
    Ok((duals, level))
}

/// `Lambda_j`: the sum of the prefix duals over the sets that hold job `j`
/// (each row's dual divided by its `P_k`, the row having been divided by it).
fn levels(jobs: &[LpJob], chains: &[Vec<u32>], z: &[f64]) -> Vec<f64> {
    let mut lambda = vec![0.0; jobs.len()];
    let mut at = 0;
    for order in chains {
        let mut p_sum = 0.0;
        let mut per = Vec::with_capacity(order.len());
        for &j in order {
            p_sum += jobs[j as usize].p;
            per.push(z[at] / p_sum);
            at += 1;
        }
        // Job k is in the prefixes k.. of its chain.
        let mut tail = 0.0;
        for (&j, &d) in order.iter().zip(&per).rev() {
            tail += d;
            lambda[j as usize] += tail;
        }
    }
    lambda
}

/// Rounds of [`chain_ipm`] before it hands over to [`chain_cuts`] (it
/// needs 3 at 1,000 LP jobs and 6 at 5,000 on the bench).
pub const MAX_CHAIN_ROUNDS: usize = 100;

/// LP-Schedule with precedence from whole chains of prefix sets, each LP
/// solved by Clarabel's interior point method.
///
/// Round 0 holds every prefix of [`lag_order`] (and of the order of
/// `warm`, the sets of an earlier solve). Each later round holds two chains:
/// the order of the last solution's `D_j` (whose prefixes are the sets the
/// separation oracle checks, Lemma 1) and the order of its dual levels
/// `Lambda_j = sum_{S ∋ j} z_S`. The level sets of `Lambda` carry a dual as
/// good as the last LP's (uncrossing: `h` is supermodular), so the bound
/// never falls, yet the LP keeps two chains, not one a round. Exact as the
/// cutting planes: the loop ends only when no prefix of the solution's own
/// `D`-order is violated; after [`MAX_CHAIN_ROUNDS`] or if the solver fails,
/// [`chain_cuts`] finishes. Why: the one-cut-a-round simplex needs about two
/// cuts a job (1,905 at 1,000 jobs, 16 s); a chain is sparse (three
/// nonzeros a prefix, the second chain's prefixes as differences from the
/// first's), so an interior point solve of two chains takes 30-90 ms of CPU
/// at 1,000 jobs. Beside the chains, each LP holds [`Fuzzy`]'s `t`-rows
/// around the newest chain's prefixes (round 0: all of them; later: near
/// the prefixes the last solution violated), valid rows that also hold the
/// reorderings of each prefix's end and the far moves of the jobs that
/// moved far before: 3 rounds at 1,000 LP jobs and 6 at 5,000 instead of 7
/// and 32 (docs/benchmarks.md, eighth attempt). `cuts` of the answer are
/// the tight prefixes of the optimum's `D`-order (the next solve's `warm`).
pub fn chain_ipm(
    jobs: &[LpJob],
    preds: &Csr,
    mu: f64,
    warm: &[Vec<u32>],
) -> Result<LpSolution, SpcError> {
    chain_ipm_with(jobs, preds, mu, warm, FUZZY_BAND, FUZZY_STRIDE)
}

/// [`chain_ipm`] with [`Fuzzy`]'s `band` and `stride` (the tests use small ones).
fn chain_ipm_with(
    jobs: &[LpJob],
    preds: &Csr,
    mu: f64,
    warm: &[Vec<u32>],
    band: usize,
    stride: usize,
) -> Result<LpSolution, SpcError> {
    let started = std::time::Instant::now();
    let n = jobs.len();
    if n == 0 {
        return Ok(LpSolution::default());
    }
    let (scaled, unit_t) = scale(jobs, mu);
    let mut chains = vec![lag_order(&scaled, preds)];
    let mut fuzzy = Fuzzy {
        band,
        stride,
        ..Fuzzy::default()
    };
    if let Some(order) = warm_order(&scaled, warm, &chains[0]) {
        // A warm chain is near the optimum already: no t-rows in round 0
        // (with them a warm re-solve at 1,000 LP jobs took 313 ms, not 202).
        fuzzy.hot = vec![false; order.len() + 1];
        chains.push(order);
    }
    let mut c = vec![0.0; n];
    let mut rounds = 0;
    let mut last_bound = f64::NEG_INFINITY;
    // Movers (see `Fuzzy`): the last D-order's places, who moved far, and
    // each job's highest D so far.
    let mut place = vec![usize::MAX; n];
    let mut mover = vec![false; n];
    let mut d_max = vec![f64::NEG_INFINITY; n];
    loop {
        let t = std::time::Instant::now();
        let (z, extra) = match solve_chains_ipm(&scaled, preds, &chains, &mut c, &fuzzy) {
            Ok(z) => z,
            Err(e) => {
                tracing::debug!(error = %e, "S-PC LP: the chain LP failed; cutting planes finish");
                return chain_cuts(jobs, preds, mu, warm);
            }
        };
        let order = d_order(&scaled, &c);
        let cmax = c.iter().fold(1.0f64, |m, &x| m.max(x.abs()));
        fuzzy.hot = violated_prefixes(&scaled, &c, &order, 1e-7 * cmax);
        let violated = fuzzy.hot.iter().filter(|&&v| v).count();
        let mut moved = 0;
        for (k, &j) in order.iter().enumerate() {
            let ju = j as usize;
            let job = &scaled[ju];
            d_max[ju] = d_max[ju].max(c[ju] - 0.5 * job.min_time());
            if place[ju] != usize::MAX && place[ju].abs_diff(k) > MOVER_PLACES {
                mover[ju] = true;
                moved += 1;
            }
            place[ju] = k;
        }
        fuzzy.movers = (0..n)
            .filter(|&j| mover[j])
            .map(|j| {
                let job = &scaled[j];
                (j as u32, job.release + 0.5 * job.min_time(), d_max[j])
            })
            .collect();
        tracing::debug!(
            round = rounds,
            chains = chains.len(),
            violated,
            moved,
            movers = fuzzy.movers.len(),
            ms = t.elapsed().as_secs_f64() * 1e3,
            "S-PC LP chain round"
        );
        if violated == 0 {
            break;
        }
        rounds += 1;
        if rounds > MAX_CHAIN_ROUNDS {
            tracing::debug!(
                rounds,
                "S-PC LP: chains did not settle; cutting planes finish"
            );
            return chain_cuts(jobs, preds, mu, warm);
        }
        let bound = weighted_sum(&scaled, &c);
        if bound > last_bound + 1e-9 * bound.abs() {
            let mut lambda = levels(&scaled, &chains, &z);
            for (l, e) in lambda.iter_mut().zip(&extra) {
                *l += e;
            }
            let mut by_level = order.clone();
            by_level.sort_by(|&a, &b| {
                lambda[b as usize]
                    .total_cmp(&lambda[a as usize])
                    .then(a.cmp(&b))
            });
            chains = vec![by_level, order];
        } else {
            // At the optimum's value already, an optimal face wider than the
            // LP's: replacing could cycle (it did), so the chains accumulate.
            chains.push(order);
        }
        last_bound = bound;
    }
    let cmax = c.iter().fold(1.0f64, |m, &x| m.max(x.abs()));
    let cuts = tight_prefixes(&scaled, &c, &d_order(&scaled, &c), 1e-7 * cmax);
    tracing::debug!(
        jobs = n,
        rounds,
        tight = cuts.len(),
        ms = started.elapsed().as_secs_f64() * 1e3,
        "S-PC LP solved"
    );
    Ok(unscaled(jobs, &c, unit_t, cuts, rounds))
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
    s.objective = weighted_sum(jobs, &s.completion);
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
        let cold = cutting_planes(&jobs, &preds, 3.0, &[]).unwrap();
        let warm = cutting_planes(&jobs, &preds, 3.0, &cold.cuts).unwrap();
        assert!((cold.objective - warm.objective).abs() < 1e-6 * cold.objective);
        // The chain start takes the same sets as extra rows.
        let chain = solve(&jobs, &preds, 3.0, &cold.cuts).unwrap();
        assert!((cold.objective - chain.objective).abs() < 1e-6 * cold.objective);
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

    #[test]
    fn the_start_order_merges_a_map_stage_with_its_reduce() {
        // Map 0 (w/p 0.01) before reduce 1 (w/p 2): joint ratio 2.01 / 2
        // puts both before job 2 (w/p 0.5); job 3 (w/p 4) stays first.
        let job = |p: f64, weight: f64| LpJob {
            p,
            mu_j: 1.0,
            release: 0.0,
            weight,
        };
        let jobs = [job(1.0, 0.01), job(1.0, 2.0), job(1.0, 0.5), job(1.0, 4.0)];
        let preds = csr(&[vec![], vec![0], vec![], vec![]]);
        assert_eq!(start_order(&jobs, &preds), vec![3, 0, 1, 2]);
        // A reduce with two maps is not merged: Smith's order.
        let preds = csr(&[vec![], vec![0, 2], vec![], vec![]]);
        assert_eq!(start_order(&jobs, &preds), vec![3, 1, 2, 0]);
    }

    #[test]
    fn the_lag_order_puts_a_reduce_its_lag_behind_its_map() {
        // Scaled units (one machine of speed 1). Map 0 and reduce 1 each on
        // a quarter of the machine (p / (2 mu_j) = 2): the reduce must end
        // 4 after the map's D; Sidney's merge (joint ratio 5) puts them
        // first and side by side, ahead of four unit jobs of ratio 1. Four
        // units of work cannot fill the lag, so the multiplier goes to the
        // reduce's weight and the reduce to the end.
        let job = |p: f64, mu_j: f64, weight: f64| LpJob {
            p,
            mu_j,
            release: 0.0,
            weight,
        };
        let mut jobs = vec![job(1.0, 0.25, 0.001), job(1.0, 0.25, 10.0)];
        jobs.extend((0..4).map(|_| job(1.0, 1.0, 1.0)));
        let preds = csr(&[vec![], vec![0], vec![], vec![], vec![], vec![]]);
        assert_eq!(start_order(&jobs, &preds), vec![0, 1, 2, 3, 4, 5]);
        // The greedy's D for the relaxed weights: a unit job at 0.5, the
        // map at its bound 2 (tied with the next unit job, ties by index),
        // unit jobs at 2, 3.5 and 4.5, the reduce last at 5.5.
        assert_eq!(lag_order(&jobs, &preds), vec![2, 0, 3, 4, 5, 1]);
    }

    #[test]
    fn the_lag_order_is_nearer_the_optimum_than_the_sidney_merge() {
        // 64 machines: stages of at most 13 tasks are narrow, as on the
        // bench, so their lags matter (with 8 machines the two orders are
        // about as near: 44 and 40 places off).
        let mu = 64.0;
        let (jobs, preds) = mapreduce(100, true);
        let opt = chain_ipm(&jobs, &preds, mu, &[]).unwrap();
        let target = d_order(&jobs, &opt.completion);
        let mut at = vec![0i64; jobs.len()];
        for (k, &j) in target.iter().enumerate() {
            at[j as usize] = k as i64;
        }
        let off = |order: &[u32]| -> i64 {
            assert_eq!(order.len(), target.len());
            order
                .iter()
                .enumerate()
                .map(|(k, &j)| (k as i64 - at[j as usize]).abs())
                .sum()
        };
        let (scaled, _) = scale(&jobs, mu);
        let (lag, sidney) = (
            off(&lag_order(&scaled, &preds)),
            off(&start_order(&scaled, &preds)),
        );
        // 410 against 1,342 when written.
        assert!(
            2 * lag < sidney,
            "lag order {lag} places off, Sidney's merge {sidney}"
        );
    }

    #[test]
    fn the_chain_start_needs_fewer_rounds_than_the_cold_cutting_planes() {
        let (jobs, preds) = mapreduce(30, false);
        let chain = solve(&jobs, &preds, 8.0, &[]).unwrap();
        let cold = cutting_planes(&jobs, &preds, 8.0, &[]).unwrap();
        assert!(
            (chain.objective - cold.objective).abs() <= 1e-6 * cold.objective,
            "{} vs {}",
            chain.objective,
            cold.objective
        );
        assert!(
            chain.rounds < cold.rounds,
            "{} vs {}",
            chain.rounds,
            cold.rounds
        );
    }

    /// `k` MapReduce jobs shaped like the Sect. VI.B bench (maps of a
    /// thousandth of their reduce's weight), on 8 machines of speed 1; with
    /// `releases`, every fourth reduce is released at 5.
    fn mapreduce(k: u32, releases: bool) -> (Vec<LpJob>, Csr) {
        let mut jobs = Vec::new();
        let mut preds: Vec<Vec<u32>> = Vec::new();
        for i in 0..k {
            let (tm, tr) = (1 + (i * 7) % 13, 1 + (i * 11) % 9);
            let w = 1.0 + (i % 5) as f64;
            preds.push(Vec::new());
            preds.push(vec![2 * i]);
            jobs.push(LpJob {
                p: 10.0 * tm as f64,
                mu_j: tm.min(8) as f64,
                release: 0.0,
                weight: w * 1e-3,
            });
            jobs.push(LpJob {
                p: 10.0 * tr as f64,
                mu_j: tr.min(8) as f64,
                release: if releases && i % 4 == 3 { 5.0 } else { 0.0 },
                weight: w,
            });
        }
        (jobs, csr(&preds))
    }

    #[test]
    fn the_interior_point_chains_match_both_cutting_planes_and_restart_warm() {
        let (jobs, preds) = mapreduce(40, true);
        let ipm = chain_ipm(&jobs, &preds, 8.0, &[]).unwrap();
        let chain = chain_cuts(&jobs, &preds, 8.0, &[]).unwrap();
        let cold = cutting_planes(&jobs, &preds, 8.0, &[]).unwrap();
        for (name, s) in [("chain", &chain), ("cold", &cold)] {
            assert!(
                (ipm.objective - s.objective).abs() <= 1e-8 * s.objective,
                "interior point {} vs {name} {}",
                ipm.objective,
                s.objective
            );
        }
        // No prefix of the answer's own order is violated (the oracle's check).
        let cmax = ipm.completion.iter().fold(1.0f64, |m, &x| m.max(x));
        assert!(separate(&jobs, 8.0, &ipm.completion, 1e-6 * cmax, 1).is_empty());
        // The cuts are the optimum's tight prefixes: nested, so they give
        // the optimum's order back, and a re-solve from them is no slower.
        assert!(!ipm.cuts.is_empty());
        assert!(
            ipm.cuts
                .windows(2)
                .all(|w| w[0].len() < w[1].len()
                    && w[0].iter().all(|j| w[1].binary_search(j).is_ok()))
        );
        let warm = chain_ipm(&jobs, &preds, 8.0, &ipm.cuts).unwrap();
        assert!((warm.objective - ipm.objective).abs() <= 1e-8 * ipm.objective);
        assert!(
            warm.rounds <= ipm.rounds,
            "{} vs {}",
            warm.rounds,
            ipm.rounds
        );
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

    /// `s` reaches the all-subsets optimum `opt` (relative `tol`) at a point
    /// feasible for every set and bound.
    fn optimal(jobs: &[LpJob], mu: f64, s: &LpSolution, opt: f64, tol: f64) -> Result<(), String> {
        if (s.objective - opt).abs() > tol * opt.abs().max(1.0) {
            return Err(format!("objective {} vs all subsets {opt}", s.objective));
        }
        feasible(jobs, mu, &s.completion)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn the_greedy_reaches_the_all_subsets_optimum((jobs, _, mu) in instance()) {
            let none = vec![Vec::new(); jobs.len()];
            let s = solve(&jobs, &csr(&none), mu, &[]).unwrap();
            prop_assert_eq!(s.rounds, 0, "the greedy, not the cutting planes");
            let (opt, _) = brute_force(&jobs, &none, mu);
            let check = optimal(&jobs, mu, &s, opt, 1e-6);
            prop_assert!(check.is_ok(), "greedy: {:?}", check);
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
        fn both_cutting_planes_reach_the_all_subsets_optimum((jobs, preds, mu) in instance()) {
            let (opt, _) = brute_force(&jobs, &preds, mu);
            // `solve`: the chain start where there are predecessors.
            let chain = solve(&jobs, &csr(&preds), mu, &[]).unwrap();
            let cold = cutting_planes(&jobs, &csr(&preds), mu, &[]).unwrap();
            // t-rows at every prefix: valid rows, so the same optimum.
            let dense = chain_ipm_with(&jobs, &csr(&preds), mu, &[], 2, 1).unwrap();
            for (name, s) in [("chain", &chain), ("cold", &cold), ("t-rows", &dense)] {
                let check = optimal(&jobs, mu, s, opt, 1e-5);
                prop_assert!(check.is_ok(), "{name} cutting planes: {:?}", check);
            }
        }

        #[test]
        fn the_chain_start_matches_the_cold_cutting_planes_on_mapreduce_instances(
            spec in proptest::collection::vec(
                (0.0f64..16.0, 0.5f64..16.0, 0.0f64..5.0, 0.01f64..1.0, 1u32..=4, 1u32..=4, any::<bool>()),
                1..20),
            extra in proptest::collection::vec((any::<u16>(), any::<u16>()), 0..6),
        ) {
            // MapReduce jobs on 4 machines of speeds 4, 2, 1, 1: a map stage
            // (size 0 below 0.5: a stage without work) of weight `share` x the
            // reduce's, then its reduce; some released later; plus a few
            // edges from a lower to a higher index.
            let speeds = [4.0, 2.0, 1.0, 1.0];
            let mut jobs = Vec::new();
            let mut preds: Vec<Vec<u32>> = Vec::new();
            for &(pm, pr, w, share, tm, tr, late) in &spec {
                let release = if late { 3.0 * w } else { 0.0 };
                let map = jobs.len() as u32;
                jobs.push(LpJob { p: if pm < 0.5 { 0.0 } else { pm },
                    mu_j: speeds[..tm as usize].iter().sum(), release, weight: w * share });
                jobs.push(LpJob { p: pr, mu_j: speeds[..tr as usize].iter().sum(), release, weight: w });
                preds.push(Vec::new());
                preds.push(vec![map]);
            }
            let n = jobs.len();
            for &(a, b) in &extra {
                let (a, b) = (a as usize % n, b as usize % n);
                if a < b && !preds[b].contains(&(a as u32)) {
                    preds[b].push(a as u32);
                }
            }
            let preds = csr(&preds);
            // Any start order keeps the LP exact; the lag order is one of the jobs with work.
            let mut lag = lag_order(&scale(&jobs, 8.0).0, &preds);
            lag.sort_unstable();
            let with_work: Vec<u32> = (0..n as u32).filter(|&j| jobs[j as usize].p > 0.0).collect();
            prop_assert_eq!(lag, with_work);
            let chain = solve(&jobs, &preds, 8.0, &[]).unwrap();
            let cold = cutting_planes(&jobs, &preds, 8.0, &[]).unwrap();
            prop_assert!((chain.objective - cold.objective).abs() <= 1e-6 * cold.objective.abs().max(1.0),
                "chain {} vs cold cutting planes {}", chain.objective, cold.objective);
            let dense = chain_ipm_with(&jobs, &preds, 8.0, &[], 2, 1).unwrap();
            prop_assert!((dense.objective - cold.objective).abs() <= 1e-6 * cold.objective.abs().max(1.0),
                "t-rows at every prefix {} vs cold cutting planes {}", dense.objective, cold.objective);
            for (j, job) in jobs.iter().enumerate() {
                let bound = job.release + job.min_time();
                prop_assert!(chain.completion[j] >= bound - 1e-7 * bound.max(1.0));
                for &a in preds.row(j) {
                    let gap = chain.completion[j] - chain.completion[a as usize] - job.min_time();
                    prop_assert!(gap >= -1e-7 * chain.completion[j].max(1.0), "edge {a} -> {j}: {gap}");
                }
            }
        }
    }
}
