//! Property tests: ASM1 and ASM1-COMM reach the optimum computed by
//! independent solvers (brute force on tiny instances, max flow with a binary
//! search on the per-node cap on larger ones); every policy assigns every task
//! exactly once.

use proptest::prelude::*;
use spindle_core::model::{CostModel, NodeId, Problem};
use spindle_core::plan::{check_assignment, evaluate};
use spindle_core::PolicyKind;

/// Random replica lists: each task has 1..=max_r distinct replicas.
fn instance(
    max_nodes: usize,
    max_tasks: usize,
    max_r: usize,
) -> impl Strategy<Value = (usize, Vec<Vec<NodeId>>, Vec<u32>)> {
    (1..=max_nodes).prop_flat_map(move |nodes| {
        let r = max_r.min(nodes);
        let task = proptest::sample::subsequence((0..nodes as NodeId).collect::<Vec<_>>(), 1..=r)
            .prop_shuffle();
        (
            Just(nodes),
            proptest::collection::vec(task, 0..=max_tasks),
            proptest::collection::vec(0u32..3, nodes),
        )
    })
}

fn problem(nodes: usize, replicas: &[Vec<NodeId>], loads: &[u32]) -> Problem {
    let mut p = Problem::uniform(nodes, replicas, CostModel::default());
    p.node_load = loads.iter().map(|&l| l as f64).collect();
    p
}

/// Minimum over all local assignments of (max finish, sum of convex costs).
fn brute_force(replicas: &[Vec<NodeId>], loads: &[u32]) -> (u32, u64) {
    fn go(t: usize, replicas: &[Vec<NodeId>], load: &mut Vec<u32>, best: &mut (u32, u64)) {
        if t == replicas.len() {
            let max = load.iter().copied().max().unwrap_or(0);
            let sum: u64 = load.iter().map(|&l| (l as u64) * (l as u64)).sum();
            best.0 = best.0.min(max);
            best.1 = best.1.min(sum);
            return;
        }
        for &n in &replicas[t] {
            load[n as usize] += 1;
            go(t + 1, replicas, load, best);
            load[n as usize] -= 1;
        }
    }
    let mut load = loads.to_vec();
    let mut best = (u32::MAX, u64::MAX);
    go(0, replicas, &mut load, &mut best);
    best
}

/// Max number of tasks placed locally when node n takes at most cap[n] (augmenting paths, Kuhn).
fn max_local(nodes: usize, replicas: &[Vec<NodeId>], cap: &[u32]) -> usize {
    let mut holder: Vec<Vec<usize>> = vec![Vec::new(); nodes];
    fn try_place(
        t: usize,
        replicas: &[Vec<NodeId>],
        cap: &[u32],
        holder: &mut Vec<Vec<usize>>,
        seen: &mut Vec<bool>,
    ) -> bool {
        for &n in &replicas[t] {
            let n = n as usize;
            if seen[n] {
                continue;
            }
            seen[n] = true;
            if (holder[n].len() as u32) < cap[n] {
                holder[n].push(t);
                return true;
            }
            for i in 0..holder[n].len() {
                let other = holder[n][i];
                if try_place(other, replicas, cap, holder, seen) {
                    holder[n][i] = t;
                    return true;
                }
            }
        }
        false
    }
    let mut placed = 0;
    for t in 0..replicas.len() {
        let mut seen = vec![false; nodes];
        if try_place(t, replicas, cap, &mut holder, &mut seen) {
            placed += 1;
        }
    }
    placed
}

/// Smallest max finish with integer loads, by binary search on the level.
fn flow_optimum(nodes: usize, replicas: &[Vec<NodeId>], loads: &[u32]) -> u32 {
    let (mut lo, mut hi) = (0u32, replicas.len() as u32 + 3);
    while lo < hi {
        let mid = (lo + hi) / 2;
        let cap: Vec<u32> = loads.iter().map(|&l| mid.saturating_sub(l)).collect();
        if max_local(nodes, replicas, &cap) == replicas.len() {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let lmax = loads.iter().copied().max().unwrap_or(0);
    lo.max(lmax)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    #[test]
    fn asm1_matches_brute_force((nodes, replicas, loads) in instance(4, 7, 3)) {
        let p = problem(nodes, &replicas, &loads);
        let a = PolicyKind::Asm1.planner().unwrap().plan(&p, 0);
        check_assignment(&p, &a).map_err(TestCaseError::fail)?;
        let m = evaluate(&p, &a);
        prop_assert_eq!(m.non_local, 0);
        let (best_max, best_sum) = brute_force(&replicas, &loads);
        prop_assert_eq!(m.makespan, best_max as f64);
        // Theorem 10: also optimal for the sum of a convex function of the loads.
        let mut load = loads.clone();
        for &n in &a.node_of { load[n as usize] += 1; }
        let sum: u64 = load.iter().map(|&l| (l as u64) * (l as u64)).sum();
        prop_assert_eq!(sum, best_sum);
    }

    #[test]
    fn asm1_matches_max_flow((nodes, replicas, loads) in instance(12, 80, 3)) {
        let p = problem(nodes, &replicas, &loads);
        let a = PolicyKind::Asm1.planner().unwrap().plan(&p, 0);
        check_assignment(&p, &a).map_err(TestCaseError::fail)?;
        let m = evaluate(&p, &a);
        prop_assert_eq!(m.non_local, 0);
        prop_assert_eq!(m.makespan, flow_optimum(nodes, &replicas, &loads) as f64);
    }

    #[test]
    fn asm1_comm_is_balanced_with_fewest_non_local((nodes, replicas, _l) in instance(12, 80, 3)) {
        let p = problem(nodes, &replicas, &vec![0; nodes]);
        let a = PolicyKind::Asm1Comm.planner().unwrap().plan(&p, 0);
        check_assignment(&p, &a).map_err(TestCaseError::fail)?;
        let m = evaluate(&p, &a);
        let cap = replicas.len().div_ceil(nodes) as u32;
        prop_assert!(m.max_tasks_per_node <= cap);
        let best_local = max_local(nodes, &replicas, &vec![cap; nodes]);
        prop_assert_eq!(m.non_local, replicas.len() - best_local);
    }

    #[test]
    fn every_policy_assigns_every_task_once((nodes, replicas, loads) in instance(10, 60, 3), seed in 0u64..1000) {
        let p = problem(nodes, &replicas, &loads);
        for policy in PolicyKind::ALL {
            let Some(planner) = policy.planner() else { continue };
            let a = planner.plan(&p, seed);
            check_assignment(&p, &a).map_err(|e| TestCaseError::fail(format!("{policy}: {e}")))?;
        }
    }
}

/// Heterogeneous nodes: ASM1's visiting order by next finish time keeps the
/// maximum finish minimal when speeds, slots and real initial loads differ.
fn brute_force_finish(p: &Problem, replicas: &[Vec<NodeId>]) -> f64 {
    fn go(t: usize, p: &Problem, replicas: &[Vec<NodeId>], count: &mut Vec<u32>, best: &mut f64) {
        if t == replicas.len() {
            let m = (0..count.len())
                .map(|n| p.unit_finish(n as NodeId, count[n]))
                .fold(0.0, f64::max);
            *best = best.min(m);
            return;
        }
        for &n in &replicas[t] {
            count[n as usize] += 1;
            go(t + 1, p, replicas, count, best);
            count[n as usize] -= 1;
        }
    }
    let mut best = f64::INFINITY;
    go(0, p, replicas, &mut vec![0; p.num_nodes()], &mut best);
    best
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    #[test]
    fn asm1_is_optimal_on_heterogeneous_nodes(
        (nodes, replicas, _l) in instance(4, 7, 3),
        speeds in proptest::collection::vec(prop_oneof![Just(1.0), Just(2.0), Just(0.5)], 4),
        slots in proptest::collection::vec(1u32..=2, 4),
        loads in proptest::collection::vec(0.0f64..2.5, 4),
    ) {
        let mut p = problem(nodes, &replicas, &vec![0; nodes]);
        p.node_speed = speeds[..nodes].to_vec();
        p.node_slots = slots[..nodes].to_vec();
        p.node_load = loads[..nodes].to_vec();
        let a = PolicyKind::Asm1.planner().unwrap().plan(&p, 0);
        let mut count = vec![0u32; nodes];
        for &n in &a.node_of { count[n as usize] += 1; }
        let got = (0..nodes).map(|n| p.unit_finish(n as NodeId, count[n])).fold(0.0, f64::max);
        let want = brute_force_finish(&p, &replicas);
        prop_assert!((got - want).abs() < 1e-9, "asm1 {} vs optimum {}", got, want);
    }
}
