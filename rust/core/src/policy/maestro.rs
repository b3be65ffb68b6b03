//! MAESTRO (Ibrahim et al.) as described in seed 000 Sect. 6.1.1, without
//! speculative tasks (as the paper simulates it). Non-clairvoyant.
//!
//! - HCN_j: unprocessed chunks held by node j.
//! - Chunk weight of task i: Cw_i = 1 - sum over its holders k of 1/HCN_k
//!   (high = likely to end up non-local).
//! - Sc_j^k: chunks (of unprocessed tasks) held by both j and k.
//! - Node weight: NodeW_j = sum over j's unprocessed chunks i of
//!   (1 - sum over i's holders k of 1/(HCN_k + Sc_k^j)) (low = j is likely to
//!   run non-local tasks). The sum runs over all r holders as printed; Sc is
//!   defined for distinct nodes only, so j's own term uses Sc_j^j = 0.
//!
//! First wave: one task per node. Repeatedly the node with the smallest
//! NodeW (among those without a first-wave task and with a local chunk left)
//! gets its local task with the largest Cw; weights are recomputed after each
//! choice (the paper's O(n_max |P|^2); regrouping the sum by holder makes
//! each round O(|P|^2)). Second wave, at run time: an idle
//! node takes its local task with the largest Cw; with none, the MAKESPAN
//! variant stays idle and the COMM variant takes an arbitrary (random)
//! unprocessed task.
//!
//! As a planner it plays both waves out with the problem's task sizes.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::execute::{execute, ExecState, LocalLists, Rule};
use crate::model::{NodeId, Problem, TaskId, NONE};
use crate::plan::Assignment;
use crate::policy::locaware::argmax;
use crate::policy::Planner;

/// MAESTRO; `comm` allows non-local tasks in the second wave.
#[derive(Clone, Copy, Debug, Default)]
pub struct Maestro {
    pub comm: bool,
}

impl Planner for Maestro {
    fn name(&self) -> &'static str {
        if self.comm {
            "maestro-comm"
        } else {
            "maestro"
        }
    }

    fn plan(&self, problem: &Problem, seed: u64) -> Assignment {
        execute(problem, &mut self.rule(problem), seed).assignment(problem.num_nodes())
    }
}

impl Maestro {
    pub fn rule(self, problem: &Problem) -> MaestroRule {
        MaestroRule {
            comm: self.comm,
            local: LocalLists::new(problem),
            first: vec![NONE; problem.num_nodes()],
        }
    }
}

pub struct MaestroRule {
    comm: bool,
    local: LocalLists,
    /// First-wave task of each node, until it starts.
    first: Vec<TaskId>,
}

impl MaestroRule {
    /// The first-wave task of each node (`NONE` where it got none), as
    /// computed by `init`.
    pub fn first_wave(&self) -> &[TaskId] {
        &self.first
    }
}

/// sum over t's holders of 1/HCN (Cw = 1 - this, so the largest Cw is the smallest sum).
fn inverse_hcn(st: &ExecState, t: TaskId) -> f64 {
    st.problem
        .replicas(t)
        .iter()
        .map(|&k| 1.0 / f64::from(st.local_left(k).max(1)))
        .sum()
}

/// NodeW_j from scratch. Summing the terms chunk by chunk, holder k != j
/// appears once per chunk it shares with j (Sc_k^j times) and j itself once
/// per chunk (HCN_j times, each 1/HCN_j), so NodeW_j is
/// HCN_j - 1 - sum_k Sc_k^j / (HCN_k + Sc_k^j).
fn node_weight(sc: &[u32], n: usize, st: &ExecState, j: NodeId) -> f64 {
    let mut w = f64::from(st.local_left(j)) - 1.0;
    for k in 0..n {
        let shared = sc[k * n + j as usize];
        if shared > 0 && k != j as usize {
            let s = f64::from(shared);
            w -= s / (f64::from(st.local_left(k as NodeId)) + s);
        }
    }
    w
}

/// Adds `sign` times the Sc terms of the rows of `rows` to every NodeW:
/// +1 takes their current values out, -1 puts them back in.
fn shift_rows(w: &mut [f64], sc: &[u32], n: usize, st: &ExecState, rows: &[NodeId], sign: f64) {
    for &k in rows {
        let hcn = f64::from(st.local_left(k));
        let row = &sc[k as usize * n..(k as usize + 1) * n];
        for (j, &shared) in row.iter().enumerate() {
            if shared > 0 && j != k as usize {
                let s = f64::from(shared);
                w[j] += sign * s / (hcn + s);
            }
        }
    }
}

/// The unclaimed local task of `node` with the largest chunk weight.
fn heaviest_chunk(local: &mut LocalLists, st: &ExecState, node: NodeId) -> TaskId {
    argmax(local.live(st, node), |t| -inverse_hcn(st, t))
}

impl Rule for MaestroRule {
    fn init(&mut self, st: &mut ExecState, _rng: &mut ChaCha8Rng) {
        let problem = st.problem;
        let n = problem.num_nodes();
        // Shared chunks between node pairs, over unprocessed tasks.
        let mut sc = vec![0u32; n * n];
        let pairs = |sc: &mut [u32], t: TaskId, delta: i32| {
            let r = problem.replicas(t);
            for &a in r {
                for &b in r {
                    if a != b {
                        let c = &mut sc[a as usize * n + b as usize];
                        *c = c.wrapping_add_signed(delta);
                    }
                }
            }
        };
        for t in 0..problem.num_tasks() as TaskId {
            pairs(&mut sc, t, 1);
        }
        // NodeW of every node, kept up to date as first-wave tasks are
        // chosen: a choice changes HCN of the task's holders and Sc among
        // them, so only the terms in those holders' rows of Sc move
        // (O(r |P|) per choice instead of O(|P|^2)).
        let mut w: Vec<f64> = (0..n as NodeId)
            .map(|j| node_weight(&sc, n, st, j))
            .collect();
        let mut done = vec![false; n];
        let mut holders: Vec<NodeId> = Vec::new();
        for _ in 0..n {
            let mut best = NONE;
            let mut lowest = f64::INFINITY;
            for j in 0..n as NodeId {
                if done[j as usize] || st.local_left(j) == 0 {
                    continue;
                }
                if w[j as usize] < lowest {
                    lowest = w[j as usize];
                    best = j;
                }
            }
            if best == NONE {
                break;
            }
            let t = heaviest_chunk(&mut self.local, st, best);
            holders.clear();
            holders.extend_from_slice(problem.replicas(t));
            holders.sort_unstable();
            holders.dedup();
            shift_rows(&mut w, &sc, n, st, &holders, 1.0);
            st.reserve(t, best);
            pairs(&mut sc, t, -1);
            for &h in &holders {
                w[h as usize] -= 1.0; // HCN_h - 1
            }
            shift_rows(&mut w, &sc, n, st, &holders, -1.0);
            #[cfg(test)]
            for j in 0..n as NodeId {
                let fresh = node_weight(&sc, n, st, j);
                assert!(
                    (w[j as usize] - fresh).abs() < 1e-9,
                    "node {j}: {} vs {fresh}",
                    w[j as usize]
                );
            }
            self.first[best as usize] = t;
            done[best as usize] = true;
        }
    }

    fn has_planned(&self, node: NodeId) -> bool {
        self.first[node as usize] != NONE
    }

    fn pick(&mut self, st: &ExecState, node: NodeId, rng: &mut ChaCha8Rng) -> Option<TaskId> {
        let f = std::mem::replace(&mut self.first[node as usize], NONE);
        if f != NONE {
            return Some(f);
        }
        let t = heaviest_chunk(&mut self.local, st, node);
        if t != NONE {
            return Some(t);
        }
        let pending = st.pending();
        (self.comm && !pending.is_empty()).then(|| pending[rng.gen_range(0..pending.len())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CostModel;
    use crate::plan::check_assignment;

    #[test]
    fn incremental_node_weights_match_a_fresh_sum() {
        // init asserts after every first-wave choice (cfg(test)) that the
        // incremental NodeW of every node equals node_weight from scratch.
        for seed in 0..20u64 {
            let mut rng: ChaCha8Rng = rand::SeedableRng::seed_from_u64(seed);
            let nodes = rng.gen_range(2..12u32);
            let replicas: Vec<Vec<NodeId>> = (0..rng.gen_range(1..40))
                .map(|_| {
                    let mut r: Vec<NodeId> = (0..rng.gen_range(1..4))
                        .map(|_| rng.gen_range(0..nodes))
                        .collect();
                    r.sort_unstable();
                    r.dedup();
                    r
                })
                .collect();
            let p = Problem::uniform(nodes as usize, &replicas, CostModel::default());
            let mut rule = Maestro { comm: true }.rule(&p);
            let mut st = ExecState::new(&p);
            rule.init(&mut st, &mut rng);
            let given = rule.first_wave().iter().filter(|&&t| t != NONE).count();
            assert!(given >= 1, "seed {seed}");
        }
    }

    #[test]
    fn first_wave_gives_one_task_to_each_node_with_a_local_chunk() {
        let replicas: Vec<Vec<NodeId>> = (0..30u32)
            .map(|i| vec![i % 6, (i * 5 + 1) % 6])
            .filter(|r| r[0] != r[1])
            .collect();
        let p = Problem::uniform(7, &replicas, CostModel::default());
        let mut rule = Maestro { comm: false }.rule(&p);
        let mut st = ExecState::new(&p);
        let mut rng = rand::SeedableRng::seed_from_u64(0);
        rule.init(&mut st, &mut rng);
        let first = rule.first_wave();
        // Node 6 holds nothing; the six others get exactly one local task each.
        assert_eq!(first[6], NONE);
        let mut seen = std::collections::HashSet::new();
        for (j, &t) in first.iter().enumerate().take(6) {
            assert_ne!(t, NONE, "node {j}");
            assert!(p.replicas(t).contains(&(j as NodeId)));
            assert!(seen.insert(t), "task {t} given twice");
        }
        assert_eq!(st.pending().len(), replicas.len() - 6);
    }

    #[test]
    fn first_wave_serves_the_node_with_fewest_chunks_first() {
        // n1 holds only t0, which n0 also holds: n1 has the smallest node
        // weight, picks first and gets t0; n0 runs t1 and t2.
        let p = Problem::uniform(2, &[vec![0, 1], vec![0], vec![0]], CostModel::default());
        let mut rule = Maestro { comm: false }.rule(&p);
        let mut st = ExecState::new(&p);
        let mut rng = rand::SeedableRng::seed_from_u64(0);
        rule.init(&mut st, &mut rng);
        assert_eq!(rule.first_wave()[1], 0);
        let a = Maestro { comm: false }.plan(&p, 0);
        check_assignment(&p, &a).unwrap();
        assert_eq!(a.node_of, vec![1, 0, 0]);
    }

    #[test]
    fn node_weight_closed_form_matches_the_chunk_by_chunk_sum() {
        // The definition, summed chunk by chunk, against the ordering the
        // first wave used: the node with the smallest weight is served first.
        let replicas: Vec<Vec<NodeId>> = (0..40u32)
            .map(|i| {
                let a = (i * 7) % 9;
                let b = (i * 4 + 1) % 9;
                let c = (i * 5 + 3) % 9;
                let mut v = vec![a];
                for x in [b, c] {
                    if !v.contains(&x) {
                        v.push(x);
                    }
                }
                v
            })
            .collect();
        let p = Problem::uniform(9, &replicas, CostModel::default());
        let n = 9usize;
        let hcn: Vec<f64> = (0..n)
            .map(|j| p.local_tasks(j as NodeId).len() as f64)
            .collect();
        let mut sc = vec![0.0; n * n];
        for r in &replicas {
            for &a in r {
                for &b in r {
                    if a != b {
                        sc[a as usize * n + b as usize] += 1.0;
                    }
                }
            }
        }
        let by_chunks = |j: usize| -> f64 {
            p.local_tasks(j as NodeId)
                .iter()
                .map(|&t| {
                    1.0 - p
                        .replicas(t)
                        .iter()
                        .map(|&k| {
                            let k = k as usize;
                            let shared = if k == j { 0.0 } else { sc[k * n + j] };
                            1.0 / (hcn[k] + shared)
                        })
                        .sum::<f64>()
                })
                .sum()
        };
        let first = (0..n)
            .min_by(|&a, &b| by_chunks(a).total_cmp(&by_chunks(b)))
            .unwrap();
        let mut rule = Maestro { comm: false }.rule(&p);
        let mut st = ExecState::new(&p);
        let mut rng = rand::SeedableRng::seed_from_u64(0);
        rule.init(&mut st, &mut rng);
        // The first node served got the heaviest chunk among its own at the
        // start, and nobody else's choice could have taken it before.
        let t = rule.first_wave()[first];
        assert!(p.replicas(t).contains(&(first as NodeId)));
        let expect = {
            let mut local = LocalLists::new(&p);
            heaviest_chunk(&mut local, &ExecState::new(&p), first as NodeId)
        };
        assert_eq!(t, expect);
    }

    #[test]
    fn second_wave_takes_the_largest_chunk_weight() {
        // n0 after its first task: t1 on {0, 2} (n2 holds 4 chunks) has a
        // larger chunk weight than t2 on {0, 3} (n3 holds 1).
        let replicas = vec![vec![0], vec![0, 2], vec![0, 3], vec![2], vec![2], vec![2]];
        let p = Problem::uniform(4, &replicas, CostModel::default());
        let mut st = ExecState::new(&p);
        st.reserve(0, 0);
        let mut local = LocalLists::new(&p);
        assert_eq!(heaviest_chunk(&mut local, &st, 0), 1);
    }

    #[test]
    fn comm_variant_keeps_every_node_busy() {
        let p = Problem::uniform(4, &vec![vec![0, 1]; 8], CostModel::default());
        let a = Maestro { comm: true }.plan(&p, 3);
        check_assignment(&p, &a).unwrap();
        assert_eq!(a.counts(), vec![3, 3, 1, 1]);
        let m = Maestro { comm: false }.plan(&p, 3);
        assert_eq!(m.counts(), vec![4, 4, 0, 0]);
    }
}
