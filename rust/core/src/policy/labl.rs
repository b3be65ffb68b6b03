//! LABL, Locality Aware Bounded Latency task assignment (the LABL paper,
//! Agosta, Pelosi, Speziale; Fig. 1 and Sect. 3.3-3.4).
//!
//! The loop raises a latency limit `l` from the lower bound `l**` by one unit
//! of work (`w_loc`) per iteration. Each iteration splits the servers by their
//! current load `phi(s)` into `S_busy` (`phi >= l`), `S_sup` (room for a remote
//! task: `phi <= l - w_rem`) and `S_inf` (the rest), and the pending tasks into
//! `T_rem` (every replica on a busy server) and `T_loc` (the rest), then:
//! - Phase I: the `S_inf` servers, most loaded first, take their own pending
//!   tasks, fewest replicas first, while the load stays within `l`;
//! - Phase II, only while `CONSIDERREMOTEASSIGNMENTS(l)` holds: the `T_rem`
//!   tasks go remote, round robin over the `S_sup` servers (least loaded
//!   first), a server staying in the round while it has room for one more
//!   remote task;
//! - Phase III: every pending task goes to its least loaded replica server if
//!   that keeps the load within `l`; the others wait for the next iteration.
//!
//! Reading of the printed Fig. 1: line 6 (`rho(t) ∩ (S \ (S_inf ∪ S_sup)) =
//! ∅`) contradicts the text and Problem 2, which define `T_rem` as the tasks
//! whose replicas are all busy; we follow the text. Phase I's loop test
//! "while phi(s) <= l" is kept as printed, although the text says "without
//! exceeding the limit l": a server takes tasks until its load passes `l`, so
//! it may end one local task above `l`. Only this reading fits Sect. 3.5 (at
//! the second iteration tasks whose servers were not busy at the first one
//! become remote, which needs a load above the first limit) and makes the
//! thresholds `l**` and `l** + 1` differ at all: with the strict test, every
//! load after the first iteration is at most `max(phi_s, l**)`, so `T_rem` is
//! empty from the second iteration on.
//!
//! What the tests find about Sect. 3.6: Theorem 1 (`max phi <= min phi +
//! w_rem` when Phase II always runs) does not hold for Fig. 1: Phase II only
//! moves tasks whose replicas are all busy, so local work piled on a loaded
//! but not busy server stays there (a counterexample in the tests holds under
//! either reading of Phase I's loop test), and Phase I's overshoot adds to it
//! (a second counterexample, with full replication, needs the overshoot
//! reading).
//! Theorem 2's bound holds once the busy servers (`phi_s >= l**`, counted
//! negatively in `l** |S| - sum phi_s`) are left out of the sum. `l*` and
//! `l**` are lower bounds of the optimal latency, as claimed.
//!
//! Outside the paper's model (unit tasks, one slot, speed 1) a task on node n
//! takes `size * w / (speed * slots)` of n's load. Tasks without any replica
//! can only ever run remote, so Phase II always places them, whatever the
//! threshold (otherwise the loop would never end). Loads are normalised so
//! that the least loaded node starts at 0 (Sect. 3.1).

use std::collections::VecDeque;

use crate::model::{Csr, NodeId, Problem, TaskId, NONE};
use crate::plan::{place_unmatched, Assignment};
use crate::policy::Planner;

/// Float slack for the load comparisons (the paper's loads are integers).
const EPS: f64 = 1e-9;

/// `CONSIDERREMOTEASSIGNMENTS(l)` of Fig. 1, line 16: whether Phase II runs
/// at limit `l`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemoteThreshold {
    /// True at every iteration: the hypothesis of Theorem 1.
    Always,
    /// True while `l <= l** + k` units of work. `UpTo(0)` is Theorem 2's
    /// setting and the paper's `l̄ = l**`; `UpTo(1)` is `l̄ = l** + 1`.
    UpTo(u32),
}

/// The LABL planner with its threshold function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Labl {
    pub threshold: RemoteThreshold,
}

/// `labl`: remote assignments while `l <= l**`.
pub const LABL: Labl = Labl {
    threshold: RemoteThreshold::UpTo(0),
};
/// `labl+1`: remote assignments while `l <= l** + 1`.
pub const LABL_PLUS_1: Labl = Labl {
    threshold: RemoteThreshold::UpTo(1),
};
/// `labl-always`: remote assignments at every iteration (Theorem 1's setting).
pub const LABL_ALWAYS: Labl = Labl {
    threshold: RemoteThreshold::Always,
};

/// The lower bounds of Sect. 3.3 on normalised loads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// Problem 1: `ceil(w_loc |T| / |S| + sum phi_s / |S|)`.
    pub l_star: f64,
    /// Problem 2: the least `l` (a multiple of `w_loc`) meeting both conditions.
    pub l_star_star: f64,
}

/// A LABL run: the plan and how the loop got there.
#[derive(Clone, Debug, PartialEq)]
pub struct LablOutcome {
    pub assignment: Assignment,
    pub bounds: Bounds,
    /// The limit `l` of the iteration that placed the last task.
    pub final_limit: f64,
    /// Iterations of the main loop.
    pub iterations: u32,
}

impl Planner for Labl {
    fn name(&self) -> &'static str {
        match self.threshold {
            RemoteThreshold::Always => "labl-always",
            RemoteThreshold::UpTo(0) => "labl",
            RemoteThreshold::UpTo(1) => "labl+1",
            RemoteThreshold::UpTo(_) => "labl+k",
        }
    }

    fn plan(&self, problem: &Problem, _seed: u64) -> Assignment {
        self.run(problem).assignment
    }
}

/// LABL's plan already holds its remote choices; an idle node may still
/// take a local task (no extra resources), never a remote one.
impl crate::policy::Policy for Labl {
    fn name(&self) -> &'static str {
        Planner::name(self)
    }
    fn planner(&self) -> Option<&dyn Planner> {
        Some(self)
    }
    fn on_free_slot(&self) -> crate::policy::FreeSlot {
        crate::policy::FreeSlot::Local { steal: true }
    }
}

/// One unit of work: the step of `l` (1 when `w_loc` is 0, so the loop moves).
fn unit(problem: &Problem) -> f64 {
    if problem.cost.local > 0.0 {
        problem.cost.local
    } else {
        1.0
    }
}

/// Initial loads shifted so that the least loaded node is at 0.
fn normalised_loads(problem: &Problem) -> Vec<f64> {
    let base = problem
        .node_load
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min);
    let base = if base.is_finite() { base } else { 0.0 };
    problem.node_load.iter().map(|&x| x - base).collect()
}

/// `l*` and `l**` of Sect. 3.3 for `problem` (unit tasks, as in the paper).
pub fn lower_bounds(problem: &Problem) -> Bounds {
    let phi = normalised_loads(problem);
    bounds_with(problem, &phi)
}

fn bounds_with(problem: &Problem, phi: &[f64]) -> Bounds {
    let n = phi.len();
    let step = unit(problem);
    let w_loc = problem.cost.local;
    let w_rem = problem.cost.remote;
    let tasks = problem.num_tasks();
    if n == 0 {
        return Bounds {
            l_star: 0.0,
            l_star_star: 0.0,
        };
    }
    let sum_phi: f64 = phi.iter().sum();
    let l_star = ((w_loc * tasks as f64 + sum_phi) / n as f64 / step - EPS).ceil() * step;
    // A task is in T_rem[l] iff its least loaded replica is busy (phi_s >= l).
    let min_replica_load: Vec<f64> = (0..tasks as TaskId)
        .map(|t| {
            problem
                .replicas(t)
                .iter()
                .map(|&s| phi[s as usize])
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    let feasible = |l: f64| -> bool {
        let rem = min_replica_load.iter().filter(|&&m| m >= l - EPS).count();
        let mut remote_room = 0.0;
        let mut room = 0.0;
        for &p in phi {
            let free = l - p;
            if free > EPS {
                room += free;
            }
            if free >= w_rem - EPS {
                remote_room += if w_rem > 0.0 {
                    (free / w_rem + EPS).floor()
                } else {
                    f64::INFINITY
                };
            }
        }
        let a = w_rem * rem as f64 + w_loc * (tasks - rem) as f64;
        remote_room >= rem as f64 && room >= a - EPS
    };
    // Both conditions only get easier as l grows: doubling, then bisection,
    // on whole steps counted in floats (loads far above a step need more
    // than 2^52 of them); at most ~2000 + 200 feasibility tests.
    let mut hi: f64 = 1.0;
    while !feasible(hi * step) && (hi * 2.0 * step).is_finite() {
        hi *= 2.0;
    }
    let mut lo: f64 = 0.0;
    if feasible(0.0) {
        hi = 0.0;
    }
    for _ in 0..200 {
        let mid = ((lo + hi) / 2.0).floor();
        if lo + 1.0 >= hi || mid <= lo || mid >= hi {
            break;
        }
        if feasible(mid * step) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Bounds {
        l_star,
        l_star_star: hi * step,
    }
}

impl Labl {
    /// `CONSIDERREMOTEASSIGNMENTS(l)`.
    fn consider_remote(&self, l: f64, l_star_star: f64, step: f64) -> bool {
        match self.threshold {
            RemoteThreshold::Always => true,
            RemoteThreshold::UpTo(k) => l <= l_star_star + f64::from(k) * step + EPS,
        }
    }

    /// Runs Fig. 1 from `l = l**` and returns the plan with the bounds.
    pub fn run(&self, problem: &Problem) -> LablOutcome {
        let n_nodes = problem.num_nodes();
        let n_tasks = problem.num_tasks();
        let step = unit(problem);
        let mut phi = normalised_loads(problem);
        let bounds = bounds_with(problem, &phi);
        let mut node_of = vec![NONE; n_tasks];
        if n_nodes == 0 || n_tasks == 0 {
            return LablOutcome {
                assignment: Assignment::with_static_order(problem, node_of),
                bounds,
                final_limit: bounds.l_star_star,
                iterations: 0,
            };
        }
        let w_loc = problem.cost.local;
        let w_rem = problem.cost.remote;
        // Load a task adds to node s: size * w / (speed * slots).
        let share = |t: TaskId, s: usize| {
            problem.task_size[t as usize]
                / (problem.node_speed[s] * f64::from(problem.node_slots[s].max(1)))
        };
        let node_rate =
            |s: usize| 1.0 / (problem.node_speed[s] * f64::from(problem.node_slots[s].max(1)));
        // rho^{-1}(s) sorted by |rho(t)| (EXTRACTMOSTCONSTRAINEDTASK), ties by id.
        let degree = |t: TaskId| problem.graph.task_nodes.degree(t as usize);
        let by_constraint = Csr::from_rows((0..n_nodes).map(|s| {
            let mut row = problem.local_tasks(s as NodeId).to_vec();
            row.sort_by_key(|&t| (degree(t), t));
            row
        }));

        let mut pending: Vec<TaskId> = (0..n_tasks as TaskId).collect();
        let mut still: Vec<TaskId> = Vec::with_capacity(n_tasks);
        let mut inf: Vec<NodeId> = Vec::with_capacity(n_nodes);
        let mut sup: VecDeque<NodeId> = VecDeque::with_capacity(n_nodes);
        let mut busy = vec![false; n_nodes];
        let mut l = bounds.l_star_star;
        let mut iterations = 0u32;
        let mut final_limit = l;
        while !pending.is_empty() {
            iterations += 1;
            let pending_before = pending.len();
            // Lines 3-4: classify the servers by their current load.
            inf.clear();
            sup.clear();
            for s in 0..n_nodes {
                let p = phi[s];
                busy[s] = p >= l - EPS;
                if busy[s] {
                    continue;
                }
                if p <= l - w_rem * node_rate(s) + EPS {
                    sup.push_back(s as NodeId);
                } else {
                    inf.push(s as NodeId);
                }
            }
            // Phase I: S_inf, most loaded first.
            inf.sort_by(|&a, &b| phi[b as usize].total_cmp(&phi[a as usize]).then(a.cmp(&b)));
            for &s in &inf {
                let si = s as usize;
                for &t in by_constraint.row(si) {
                    if node_of[t as usize] != NONE {
                        continue;
                    }
                    if phi[si] > l + EPS {
                        break;
                    }
                    phi[si] += w_loc * share(t, si);
                    node_of[t as usize] = s;
                }
            }
            // Phase II: T_rem (lines 5-6: every replica busy) round robin over S_sup.
            let consider = self.consider_remote(l, bounds.l_star_star, step);
            let sup_vec = sup.make_contiguous();
            sup_vec.sort_by(|&a, &b| phi[a as usize].total_cmp(&phi[b as usize]).then(a.cmp(&b)));
            for &t in &pending {
                if sup.is_empty() {
                    break;
                }
                if node_of[t as usize] != NONE {
                    continue;
                }
                let replicas = problem.replicas(t);
                let remote_only = replicas.iter().all(|&s| busy[s as usize]);
                // Replica-less tasks go remote whatever the threshold says.
                if !remote_only || !(consider || replicas.is_empty()) {
                    continue;
                }
                let Some(s) = sup.pop_front() else { break };
                let si = s as usize;
                phi[si] += w_rem * share(t, si);
                node_of[t as usize] = s;
                if phi[si] <= l - w_rem * node_rate(si) + EPS {
                    sup.push_back(s);
                }
            }
            // Phase III: each pending task to its least loaded replica, within l.
            still.clear();
            for &t in &pending {
                if node_of[t as usize] != NONE {
                    continue;
                }
                let best =
                    problem.replicas(t).iter().copied().min_by(|&a, &b| {
                        phi[a as usize].total_cmp(&phi[b as usize]).then(a.cmp(&b))
                    });
                match best {
                    Some(s) if phi[s as usize] + w_loc * share(t, s as usize) <= l + EPS => {
                        phi[s as usize] += w_loc * share(t, s as usize);
                        node_of[t as usize] = s;
                    }
                    _ => still.push(t),
                }
            }
            std::mem::swap(&mut pending, &mut still);
            final_limit = l;
            if pending.len() < pending_before {
                l += step;
                continue;
            }
            // Nothing moved: the loads are unchanged, so nothing happens
            // until l crosses a threshold (a server stops being busy or gets
            // room for a remote task, a task fits its least loaded replica).
            // Jump to the last step at or before the first one instead of
            // stepping one unit at a time: a task of size 1e9 took 1e9
            // iterations (and 1e15 never ended).
            let mut next = f64::INFINITY;
            let mut after = |x: f64| {
                if x > l && x < next {
                    next = x;
                }
            };
            for (s, &p) in phi.iter().enumerate() {
                after(p + EPS);
                after(p + w_rem * node_rate(s) - EPS);
            }
            for &t in &pending {
                let best =
                    problem.replicas(t).iter().copied().min_by(|&a, &b| {
                        phi[a as usize].total_cmp(&phi[b as usize]).then(a.cmp(&b))
                    });
                if let Some(s) = best {
                    after(phi[s as usize] + w_loc * share(t, s as usize) - EPS);
                }
            }
            if !next.is_finite() {
                break; // cannot happen with finite loads; the rest is placed below
            }
            let stepped = l + ((next - l) / step).floor().max(1.0) * step;
            // Beyond 2^53 steps of l a step no longer moves l: go to the threshold.
            l = if stepped > l { stepped } else { next };
        }
        if node_of.contains(&NONE) {
            let mut count = vec![0u32; n_nodes];
            for &s in node_of.iter().filter(|&&s| s != NONE) {
                count[s as usize] += 1;
            }
            place_unmatched(problem, &mut node_of, &mut count);
        }
        LablOutcome {
            assignment: Assignment::with_static_order(problem, node_of),
            bounds,
            final_limit,
            iterations,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CostModel;
    use crate::plan::{accounting, check_assignment};

    fn labl(k: u32) -> Labl {
        Labl {
            threshold: RemoteThreshold::UpTo(k),
        }
    }

    const ALWAYS: Labl = Labl {
        threshold: RemoteThreshold::Always,
    };

    #[test]
    fn bounds_of_an_idle_fully_replicated_cluster_are_the_trivial_one() {
        // 3 servers holding every task, 7 tasks: ceil(7 / 3) = 3.
        let p = Problem::uniform(3, &vec![vec![0, 1, 2]; 7], CostModel::default());
        let b = lower_bounds(&p);
        assert_eq!(b.l_star, 3.0);
        assert_eq!(b.l_star_star, 3.0);
    }

    #[test]
    fn l_star_star_accounts_for_tasks_stuck_on_busy_servers() {
        // Server 0 busy until 6 holds both tasks; servers 1, 2 idle.
        // l* = ceil((2 + 6) / 3) = 3. At l = 3 both tasks are remote (cost 3
        // each) and each idle server has room for one: l** = 3. At l = 2 no
        // server has room for a remote task.
        let mut p = Problem::uniform(3, &[vec![0], vec![0]], CostModel::default());
        p.node_load = vec![6.0, 0.0, 0.0];
        let b = lower_bounds(&p);
        assert_eq!(b.l_star, 3.0);
        assert_eq!(b.l_star_star, 3.0);
        let out = labl(0).run(&p);
        check_assignment(&p, &out.assignment).unwrap();
        assert_eq!(out.assignment.node_of, vec![1, 2]);
        assert_eq!(accounting(&p, &out.assignment).latency, 6.0);
        assert_eq!(out.iterations, 1);
    }

    #[test]
    fn phase_one_takes_most_constrained_tasks_first() {
        // Server 0 (load 2.5) is in S_inf at l** = 3 and takes one task (its
        // load then passes 3): t1, held only by server 0, not t0, which
        // server 1 also holds and gets in Phase III.
        let mut p = Problem::uniform(2, &[vec![0, 1], vec![0]], CostModel::default());
        p.node_load = vec![2.5, 0.0];
        let out = labl(0).run(&p);
        assert_eq!(out.bounds.l_star_star, 3.0);
        check_assignment(&p, &out.assignment).unwrap();
        assert_eq!(out.assignment.node_of, vec![1, 0]);
        let acc = accounting(&p, &out.assignment);
        assert_eq!((acc.latency, acc.resource), (3.5, 2.0));
    }

    /// Six tasks held only by server 0 (load 4), four idle servers: l** = 5
    /// (below it the tasks would all be remote and only four fit).
    fn hot_server() -> Problem {
        let mut p = Problem::uniform(5, &vec![vec![0]; 6], CostModel::default());
        p.node_load = vec![4.0, 0.0, 0.0, 0.0, 0.0];
        p
    }

    #[test]
    fn threshold_trades_latency_for_resources() {
        let p = hot_server();
        let strict = labl(0).run(&p);
        let loose = labl(1).run(&p);
        let always = ALWAYS.run(&p);
        for out in [&strict, &loose, &always] {
            check_assignment(&p, &out.assignment).unwrap();
            assert_eq!(out.bounds.l_star_star, 5.0);
        }
        // l = 5: server 0 takes two tasks (4 -> 5 -> 6) and is busy at l = 6,
        // where labl+1 sends the other four remote (load 3 each); labl keeps
        // them for server 0: two more at l = 7 and two at l = 9.
        let a0 = accounting(&p, &strict.assignment);
        assert_eq!((a0.latency, a0.resource), (10.0, 6.0));
        assert_eq!((strict.iterations, strict.final_limit), (5, 9.0));
        let a1 = accounting(&p, &loose.assignment);
        assert_eq!((a1.latency, a1.resource), (6.0, 14.0));
        assert_eq!(loose.assignment, always.assignment);
    }

    #[test]
    fn replica_less_tasks_go_remote() {
        // t0 and t2 have no replica: l** = 4 (two remote tasks need a server
        // each and 3 + 3 + 1 units of room); both go remote at l = 4.
        let p = Problem::uniform(2, &[vec![], vec![0], vec![]], CostModel::default());
        let out = labl(0).run(&p);
        check_assignment(&p, &out.assignment).unwrap();
        assert_eq!(out.bounds.l_star_star, 4.0);
        assert_eq!(out.assignment.node_of, vec![0, 0, 1]);
        let acc = accounting(&p, &out.assignment);
        assert_eq!((acc.latency, acc.resource), (4.0, 7.0));
    }
}

/// Paper properties (Sect. 3.3, 3.6) on random small instances in the paper's
/// model: unit tasks, `w_loc = 1`, `w_rem = 3`, integer initial loads.
#[cfg(test)]
mod theorem_tests {
    use super::*;
    use crate::model::CostModel;
    use crate::plan::{accounting, check_assignment};
    use crate::policy::round_robin::RoundRobin;
    use proptest::prelude::*;

    fn problem(loads: &[u32], reps: &[Vec<u32>]) -> Problem {
        let mut p = Problem::uniform(loads.len(), reps, CostModel::default());
        p.node_load = loads.iter().map(|&x| f64::from(x)).collect();
        p
    }

    /// `nodes` servers with loads in [0, 5], up to `tasks` tasks with 1 to 4
    /// distinct replicas (0 to 4 when `allow_none`).
    fn instance(nodes: usize, tasks: usize, allow_none: bool) -> impl Strategy<Value = Problem> {
        (1..=nodes).prop_flat_map(move |n| {
            let min_reps = usize::from(!allow_none);
            (
                proptest::collection::vec(0u32..6, n),
                proptest::collection::vec(
                    proptest::collection::btree_set(0..n as u32, min_reps..=4.min(n)),
                    0..=tasks,
                ),
            )
                .prop_map(|(loads, reps)| {
                    let reps: Vec<Vec<u32>> =
                        reps.into_iter().map(|r| r.into_iter().collect()).collect();
                    problem(&loads, &reps)
                })
        })
    }

    /// Final normalised loads phi(s).
    fn final_loads(p: &Problem, a: &Assignment) -> Vec<f64> {
        let mut phi = normalised_loads(p);
        for (t, &s) in a.node_of.iter().enumerate() {
            phi[s as usize] += if p.replicas(t as TaskId).contains(&s) {
                p.cost.local
            } else {
                p.cost.remote
            };
        }
        phi
    }

    /// The least latency over all |S|^|T| assignments.
    fn brute_force_latency(p: &Problem) -> f64 {
        let (n, m) = (p.num_nodes(), p.num_tasks());
        let mut choice = vec![0u32; m];
        let mut best = f64::INFINITY;
        loop {
            let a = Assignment::from_order(n, choice.clone(), &(0..m as u32).collect::<Vec<_>>());
            best = best.min(accounting(p, &a).latency);
            let Some(i) = choice.iter().position(|&c| (c as usize) + 1 < n) else {
                return best;
            };
            choice[i] += 1;
            choice[..i].fill(0);
        }
    }

    const VARIANTS: [Labl; 3] = [
        Labl {
            threshold: RemoteThreshold::UpTo(0),
        },
        Labl {
            threshold: RemoteThreshold::UpTo(1),
        },
        Labl {
            threshold: RemoteThreshold::Always,
        },
    ];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        #[test]
        fn every_plan_assigns_each_task_once(p in instance(12, 60, true)) {
            for labl in VARIANTS {
                let out = labl.run(&p);
                prop_assert_eq!(check_assignment(&p, &out.assignment), Ok(()));
                // Loads stay within the last limit, but for Phase I's one
                // task past it and initial loads above it.
                let l0 = normalised_loads(&p);
                for (s, &phi) in final_loads(&p, &out.assignment).iter().enumerate() {
                    prop_assert!(phi <= l0[s].max(out.final_limit + p.cost.local) + EPS);
                }
            }
            let rr = RoundRobin.plan(&p, 0);
            prop_assert_eq!(check_assignment(&p, &rr), Ok(()));
        }

        /// l* and l** are lower bounds of the optimal latency (Sect. 3.3).
        #[test]
        fn lower_bounds_never_exceed_the_optimum(p in instance(3, 6, true)) {
            let b = lower_bounds(&p);
            let opt = brute_force_latency(&p);
            prop_assert!(b.l_star <= opt + EPS, "l* {} > optimum {}", b.l_star, opt);
            prop_assert!(b.l_star_star <= opt + EPS, "l** {} > optimum {}", b.l_star_star, opt);
            // Every LABL plan is at least optimal, and starts no later than l**.
            for labl in VARIANTS {
                let out = labl.run(&p);
                prop_assert!(accounting(&p, &out.assignment).latency >= opt - EPS);
                prop_assert!(out.final_limit >= b.l_star_star - EPS);
            }
        }

        /// Theorem 2 with the busy servers left out of the sum (see
        /// `theorem_2_as_printed_counts_busy_servers_negatively`): with remote
        /// assignments only at l**, C <= sum over phi_s < l** of (l** - phi_s).
        #[test]
        fn resource_bound_of_theorem_2(p in instance(12, 60, true)) {
            let out = VARIANTS[0].run(&p);
            let l = out.bounds.l_star_star;
            let room: f64 = normalised_loads(&p).iter().filter(|&&x| x < l).map(|&x| l - x).sum();
            let c = accounting(&p, &out.assignment).resource;
            prop_assert!(c <= room + EPS, "C = {} > {}", c, room);
        }
    }

    #[test]
    fn theorem_1_does_not_hold_for_fig_1_as_printed() {
        // Loads 0 and 1; server 1 holds t0, t1, t2, t4, t5, server 0 holds t3.
        // l** = 4 (room 4 + 3 >= 6 units of local work). At l = 4 both servers
        // are in S_sup, T_rem is empty, Phase III fills server 1 to 4 (t0-t2)
        // and gives t3 to server 0. At l = 5 server 1 is in S_inf and Phase I
        // takes t4 and t5 (4 -> 5 -> 6). Loads end at 1 and 6 although
        // remote assignment was on: 6 > 1 + w_rem. Running t5 remote on
        // server 0 would give loads 4 and 5.
        let reps = [vec![1], vec![1], vec![1], vec![0], vec![1], vec![1]];
        let p = problem(&[0, 1], &reps);
        let out = VARIANTS[2].run(&p);
        assert_eq!(out.bounds.l_star_star, 4.0);
        assert_eq!(out.assignment.node_of, vec![1, 1, 1, 0, 1, 1]);
        assert_eq!(final_loads(&p, &out.assignment), vec![1.0, 6.0]);
        assert_eq!(brute_force_latency(&p), 5.0);
    }

    /// Depends on the overshoot reading of Phase I's loop test: with the
    /// strict reading this instance satisfies Theorem 1.
    #[test]
    fn phase_one_overshoot_breaks_theorem_1_even_with_full_replication() {
        // Loads 0, 4, 4, 0, 5 and 13 tasks held by every server: l** = 6
        // (room 6 + 2 + 2 + 6 + 1 = 17 >= 13, at 5 only 12). Phase I fills
        // the S_inf servers 4, 4, 5 until they pass 6, to 7 each (8 tasks);
        // Phase III spreads the other 5 over the two idle servers: 3 and 2.
        let p = problem(&[0, 4, 4, 0, 5], &vec![vec![0, 1, 2, 3, 4]; 13]);
        let out = VARIANTS[2].run(&p);
        assert_eq!(out.bounds.l_star_star, 6.0);
        assert_eq!(
            final_loads(&p, &out.assignment),
            vec![3.0, 7.0, 7.0, 2.0, 7.0]
        );
    }

    #[test]
    fn theorem_2_as_printed_counts_busy_servers_negatively() {
        // Loads 10 and 0, one task on server 1: l** = 1 and the printed bound
        // l** |S| - sum phi_s = 2 - 10 is negative, while C = 1.
        let p = problem(&[10, 0], &[vec![1]]);
        let out = VARIANTS[0].run(&p);
        assert_eq!(out.bounds.l_star_star, 1.0);
        assert_eq!(accounting(&p, &out.assignment).resource, 1.0);
    }
}
