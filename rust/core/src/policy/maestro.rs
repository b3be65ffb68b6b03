//! MAESTRO (Ibrahim et al.) as described in Beaumont et al., Sect. 6.1.1, without
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

use crate::execute::{execute, ExecState, ReplicaGroups, Rule};
use crate::model::{NodeId, Problem, TaskId, NONE};
use crate::plan::Assignment;
use crate::policy::Planner;

/// `maestro`.
pub const MAESTRO: Maestro = Maestro { comm: false };
/// `maestro-comm`.
pub const MAESTRO_COMM: Maestro = Maestro { comm: true };

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

/// Its own rule offline. The heartbeat cannot evaluate chunk weights: the
/// Session follows the played-out plan, then steals (and the COMM variant
/// spills), the closest rule it has.
impl crate::policy::Policy for Maestro {
    fn name(&self) -> &'static str {
        Planner::name(self)
    }
    fn planner(&self) -> Option<&dyn Planner> {
        Some(self)
    }
    fn on_free_slot(&self) -> crate::policy::FreeSlot {
        use crate::policy::FreeSlot;
        if self.comm {
            FreeSlot::Spill { steal: true }
        } else {
            FreeSlot::Local { steal: true }
        }
    }
    fn execute(&self, problem: &Problem, seed: u64) -> Option<crate::execute::Execution> {
        Some(execute(problem, &mut self.rule(problem), seed))
    }
}

impl Maestro {
    pub fn rule(self, problem: &Problem) -> MaestroRule {
        MaestroRule {
            comm: self.comm,
            groups: ReplicaGroups::new(problem),
            first: vec![NONE; problem.num_nodes()],
        }
    }
}

pub struct MaestroRule {
    comm: bool,
    groups: ReplicaGroups,
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

/// sum over a chunk's holders `r` of 1/HCN (Cw = 1 - this, so the largest Cw
/// is the smallest sum).
fn inverse_hcn(st: &ExecState, r: &[NodeId]) -> f64 {
    r.iter()
        .map(|&k| 1.0 / f64::from(st.local_left(k).max(1)))
        .sum()
}

/// Sc: chunks (of unprocessed tasks) shared by each pair of distinct nodes,
/// kept sparse: row k lists the nodes sharing a chunk with k, in increasing
/// order, with the count. A dense |P| x |P| matrix took 40 GB at 1e5 nodes;
/// this takes one entry per pair that shares a chunk.
struct Shared {
    offsets: Vec<usize>,
    node: Vec<NodeId>,
    count: Vec<u32>,
}

impl Shared {
    fn new(problem: &Problem) -> Shared {
        let n = problem.num_nodes();
        let mut tally = vec![0u32; n];
        let mut touched: Vec<NodeId> = Vec::new();
        let mut s = Shared {
            offsets: Vec::with_capacity(n + 1),
            node: Vec::new(),
            count: Vec::new(),
        };
        s.offsets.push(0);
        for a in 0..n as NodeId {
            for &t in problem.local_tasks(a) {
                for &b in problem.replicas(t) {
                    if b != a {
                        if tally[b as usize] == 0 {
                            touched.push(b);
                        }
                        tally[b as usize] += 1;
                    }
                }
            }
            touched.sort_unstable();
            for &b in &touched {
                s.node.push(b);
                s.count.push(std::mem::take(&mut tally[b as usize]));
            }
            touched.clear();
            s.offsets.push(s.node.len());
        }
        s
    }

    /// Row k: the nodes sharing a chunk with k, and the counts.
    fn row(&self, k: NodeId) -> (&[NodeId], &[u32]) {
        let r = self.offsets[k as usize]..self.offsets[k as usize + 1];
        (&self.node[r.clone()], &self.count[r])
    }

    /// One chunk shared by a and b is processed.
    fn remove_one(&mut self, a: NodeId, b: NodeId) {
        let lo = self.offsets[a as usize];
        let (row, _) = self.row(a);
        if let Ok(i) = row.binary_search(&b) {
            self.count[lo + i] -= 1;
        }
    }
}

/// NodeW_j from scratch. Summing the terms chunk by chunk, holder k != j
/// appears once per chunk it shares with j (Sc_k^j times) and j itself once
/// per chunk (HCN_j times, each 1/HCN_j), so NodeW_j is
/// HCN_j - 1 - sum_k Sc_k^j / (HCN_k + Sc_k^j).
fn node_weight(sc: &Shared, st: &ExecState, j: NodeId) -> f64 {
    let mut w = f64::from(st.local_left(j)) - 1.0;
    let (nodes, counts) = sc.row(j);
    for (&k, &shared) in nodes.iter().zip(counts) {
        if shared > 0 {
            let s = f64::from(shared);
            w -= s / (f64::from(st.local_left(k)) + s);
        }
    }
    w
}

/// Adds `sign` times the Sc terms of the rows of `rows` to every NodeW:
/// +1 takes their current values out, -1 puts them back in. Each node whose
/// weight moved is pushed to `moved`.
fn shift_rows(
    w: &mut [f64],
    sc: &Shared,
    st: &ExecState,
    rows: &[NodeId],
    sign: f64,
    moved: &mut Vec<NodeId>,
) {
    for &k in rows {
        let hcn = f64::from(st.local_left(k));
        let (nodes, counts) = sc.row(k);
        for (&j, &shared) in nodes.iter().zip(counts) {
            if shared > 0 {
                let s = f64::from(shared);
                w[j as usize] += sign * s / (hcn + s);
                moved.push(j);
            }
        }
    }
}

/// The smallest (key, node) among the nodes set, in O(1), with O(log n)
/// updates. Ties go to the lower node, as a scan in node order would pick;
/// -0.0 counts as 0.0.
struct MinTree {
    size: usize,
    /// Leaves at `size..2 * size`; `NONE` marks an empty slot.
    slot: Vec<(f64, NodeId)>,
}

impl MinTree {
    fn new(n: usize) -> MinTree {
        let size = n.next_power_of_two().max(1);
        MinTree {
            size,
            slot: vec![(f64::INFINITY, NONE); 2 * size],
        }
    }

    fn better(a: (f64, NodeId), b: (f64, NodeId)) -> (f64, NodeId) {
        if b.1 == NONE {
            return a;
        }
        if a.1 == NONE {
            return b;
        }
        match a.0.total_cmp(&b.0) {
            std::cmp::Ordering::Less => a,
            std::cmp::Ordering::Greater => b,
            std::cmp::Ordering::Equal if a.1 <= b.1 => a,
            std::cmp::Ordering::Equal => b,
        }
    }

    fn put(&mut self, j: NodeId, v: (f64, NodeId)) {
        let mut i = self.size + j as usize;
        self.slot[i] = v;
        while i > 1 {
            i /= 2;
            self.slot[i] = MinTree::better(self.slot[2 * i], self.slot[2 * i + 1]);
        }
    }

    fn set(&mut self, j: NodeId, key: f64) {
        self.put(j, (key + 0.0, j));
    }

    fn clear(&mut self, j: NodeId) {
        self.put(j, (f64::INFINITY, NONE));
    }

    fn min(&self) -> Option<NodeId> {
        let (_, j) = self.slot[1];
        (j != NONE).then_some(j)
    }
}

/// The unclaimed local task of `node` with the largest chunk weight.
fn heaviest_chunk(groups: &mut ReplicaGroups, st: &ExecState, node: NodeId) -> TaskId {
    groups.best_local(st, node, |r| -inverse_hcn(st, r))
}

impl Rule for MaestroRule {
    fn init(&mut self, st: &mut ExecState, _rng: &mut ChaCha8Rng) {
        let problem = st.problem;
        let n = problem.num_nodes();
        let mut sc = Shared::new(problem);
        // NodeW of every node, kept up to date as first-wave tasks are
        // chosen: a choice changes HCN of the task's holders and Sc among
        // them, so only the terms in those holders' rows of Sc move (O(row)
        // per choice instead of O(|P|^2)). The node with the smallest NodeW
        // comes from a tournament tree updated for the nodes that moved (a
        // scan of every node per choice was O(|P|^2) over the wave).
        let mut w: Vec<f64> = (0..n as NodeId).map(|j| node_weight(&sc, st, j)).collect();
        let mut done = vec![false; n];
        // A choice moves the weights of about r x (sharing nodes per node)
        // nodes: the tree pays log |P| for each, a scan |P| in all. Dense
        // sharing on few nodes favours the scan, sparse sharing on many the
        // tree.
        let moved_per_choice = 3.0 * sc.node.len() as f64 / n.max(1) as f64;
        let use_tree = moved_per_choice * (n.max(2) as f64).log2() < n as f64;
        let mut tree = MinTree::new(if use_tree { n } else { 0 });
        for j in 0..n as NodeId {
            if use_tree && st.local_left(j) > 0 {
                tree.set(j, w[j as usize]);
            }
        }
        let scan = |w: &[f64], done: &[bool], st: &ExecState| -> Option<NodeId> {
            let mut best = None;
            let mut lowest = f64::INFINITY;
            for j in 0..n as NodeId {
                if !done[j as usize] && st.local_left(j) > 0 && w[j as usize] < lowest {
                    lowest = w[j as usize];
                    best = Some(j);
                }
            }
            best
        };
        let mut holders: Vec<NodeId> = Vec::new();
        let mut moved: Vec<NodeId> = Vec::new();
        while let Some(best) = if use_tree {
            tree.min()
        } else {
            scan(&w, &done, st)
        } {
            let b = best as usize;
            let t = heaviest_chunk(&mut self.groups, st, best);
            holders.clear();
            holders.extend_from_slice(problem.replicas(t));
            holders.sort_unstable();
            holders.dedup();
            moved.clear();
            shift_rows(&mut w, &sc, st, &holders, 1.0, &mut moved);
            st.reserve(t, best);
            for &a in &holders {
                for &c in &holders {
                    if a != c {
                        sc.remove_one(a, c);
                    }
                }
            }
            for &h in &holders {
                w[h as usize] -= 1.0; // HCN_h - 1
                moved.push(h);
            }
            shift_rows(&mut w, &sc, st, &holders, -1.0, &mut moved);
            #[cfg(test)]
            for j in 0..n as NodeId {
                let fresh = node_weight(&sc, st, j);
                assert!(
                    (w[j as usize] - fresh).abs() < 1e-9,
                    "node {j}: {} vs {fresh}",
                    w[j as usize]
                );
            }
            self.first[b] = t;
            done[b] = true;
            moved.push(best);
            moved.sort_unstable();
            moved.dedup();
            for &j in moved.iter().filter(|_| use_tree) {
                if done[j as usize] || st.local_left(j) == 0 {
                    tree.clear(j);
                } else {
                    tree.set(j, w[j as usize]);
                }
            }
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
        let t = heaviest_chunk(&mut self.groups, st, node);
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
            let mut groups = ReplicaGroups::new(&p);
            heaviest_chunk(&mut groups, &ExecState::new(&p), first as NodeId)
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
        let mut groups = ReplicaGroups::new(&p);
        assert_eq!(heaviest_chunk(&mut groups, &st, 0), 1);
    }

    #[test]
    fn min_tree_agrees_with_a_scan() {
        let mut rng: ChaCha8Rng = rand::SeedableRng::seed_from_u64(7);
        for n in [1usize, 2, 5, 16, 37] {
            let mut tree = MinTree::new(n);
            let mut keys: Vec<Option<f64>> = vec![None; n];
            for _ in 0..200 {
                let j = rng.gen_range(0..n);
                if rng.gen_bool(0.2) {
                    tree.clear(j as NodeId);
                    keys[j] = None;
                } else {
                    // Few distinct values, and both zeros, so that ties matter.
                    let k = [-0.0, 0.0, 1.0, -2.5, 3.0][rng.gen_range(0..5)];
                    tree.set(j as NodeId, k);
                    keys[j] = Some(k);
                }
                let mut want = None;
                let mut lowest = f64::INFINITY;
                for (i, k) in keys.iter().enumerate() {
                    if let Some(k) = k {
                        if *k < lowest {
                            lowest = *k;
                            want = Some(i as NodeId);
                        }
                    }
                }
                assert_eq!(tree.min(), want, "n {n}, keys {keys:?}");
            }
        }
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
