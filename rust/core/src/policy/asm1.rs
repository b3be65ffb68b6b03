//! ASM1 (Harvey, Ladner, Lovász, Tamir), as described in Beaumont et al.,
//! Algorithm 1 and Sect. 5.2: a local-only semi-matching of minimum
//! maximal load (MAKESPAN-ORIENTED), which by Theorem 10 also minimises the
//! total load imbalance (and any convex function of the loads).
//!
//! Algorithm 1 visits the processors in rounds; each visit looks for the
//! shortest alternating path from the processor to an unassigned task and
//! applies it, and a processor with no such path is removed. We visit in order
//! of the finish time the processor would have with one more task
//! (`Problem::unit_finish`), which is exactly the round order of Algorithm 1
//! when nodes are identical, and lets integer initial loads (a node busy for k
//! units joins at round k + 1), speeds and slots take part: processing
//! increments in increasing order of their finish time keeps the result a
//! minimum-maximum one (it computes, threshold by threshold, the max flow of
//! the capped problem).
//!
//! Implementation notes (why it is fast):
//! - `free_cnt[p]` counts p's unassigned local tasks, so "p can take a free
//!   task" is O(1); `cursor[p]` finds one in amortised O(1) since tasks are never
//!   unassigned again.
//! - The path search follows distance labels (shortest augmenting paths,
//!   as in max flow) instead of a BFS per augmentation; see `augment`.
//!   Which nodes can gain a task depends only on the counts, not on which
//!   tasks each holds, so every node ends with the counts the BFS gives.
//! - A processor that cannot reach a free task is stuck for good (its
//!   reachable set is closed and holds no free task, and later augmentations
//!   cannot enter it); a gap in the labels finds such sets, and they are
//!   never searched again.
//! - Tasks without any replica are placed afterwards on the least loaded nodes
//!   as remote tasks (MAKESPAN-ORIENTED has no local choice for them).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::model::{NodeId, OrdF64, Problem, TaskId, NONE};
use crate::plan::{place_unmatched, Assignment};
use crate::policy::Planner;

/// Reusable buffers for ASM1; keep one per planning thread.
#[derive(Default, Debug)]
pub struct Asm1Workspace {
    owner: Vec<NodeId>,
    free_cnt: Vec<u32>,
    cursor: Vec<u32>,
    count: Vec<u32>,
    dead: Vec<bool>,
    /// Distance labels, their current-arc cursors, and how many live nodes
    /// hold each label (see `augment`).
    label: Vec<u32>,
    arc: Vec<u32>,
    label_count: Vec<u32>,
    via: Vec<TaskId>,
    /// The path being searched.
    queue: Vec<NodeId>,
    heap: BinaryHeap<Reverse<(OrdF64, NodeId)>>,
}

/// The ASM1 planner (local-only, makespan oriented).
#[derive(Clone, Copy, Debug, Default)]
pub struct Asm1;

impl Planner for Asm1 {
    fn name(&self) -> &'static str {
        "asm1"
    }

    fn plan(&self, problem: &Problem, _seed: u64) -> Assignment {
        let mut ws = Asm1Workspace::default();
        let node_of = semi_matching(problem, &mut ws).to_vec();
        Assignment::with_static_order(problem, node_of)
    }
}

/// Follow the plan, then steal local work (Beaumont et al., Sect. 7.1); never remote.
impl crate::policy::Policy for Asm1 {
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

/// Runs ASM1 and returns `node_of` for every task (a slice into the workspace).
/// Tasks with replicas are all local; tasks without are placed as remote.
pub fn semi_matching<'w>(problem: &Problem, ws: &'w mut Asm1Workspace) -> &'w [NodeId] {
    let n_nodes = problem.num_nodes();
    let n_tasks = problem.num_tasks();
    let g = &problem.graph;
    ws.reset(n_nodes, n_tasks);
    for p in 0..n_nodes {
        ws.free_cnt[p] = g.node_tasks.degree(p) as u32;
    }
    let matchable = (0..n_tasks).filter(|&t| g.task_nodes.degree(t) > 0).count();

    for p in 0..n_nodes as NodeId {
        ws.heap
            .push(Reverse((OrdF64(problem.unit_finish(p, 1)), p)));
    }
    let mut assigned = 0usize;
    while assigned < matchable {
        let Some(Reverse((_, p))) = ws.heap.pop() else {
            break;
        };
        if ws.dead[p as usize] {
            continue;
        }
        // p goes on while it stays first in the heap's order (a node's
        // finish rises once per wave of its slots): the same visits as
        // popping it again, without the heap.
        while ws.augment(problem, p) {
            assigned += 1;
            let c = &mut ws.count[p as usize];
            *c += 1;
            let key = Reverse((OrdF64(problem.unit_finish(p, *c + 1)), p));
            let first = assigned < matchable && ws.heap.peek().is_none_or(|top| key > *top);
            if !first {
                ws.heap.push(key);
                break;
            }
        }
    }
    place_unmatched(problem, &mut ws.owner, &mut ws.count);
    &ws.owner
}

impl Asm1Workspace {
    fn reset(&mut self, n_nodes: usize, n_tasks: usize) {
        fn fill<T: Copy>(v: &mut Vec<T>, n: usize, x: T) {
            v.clear();
            v.resize(n, x);
        }
        fill(&mut self.owner, n_tasks, NONE);
        fill(&mut self.free_cnt, n_nodes, 0);
        fill(&mut self.cursor, n_nodes, 0);
        fill(&mut self.count, n_nodes, 0);
        fill(&mut self.dead, n_nodes, false);
        // Every path has at least one step: 1 is a valid lower bound.
        fill(&mut self.label, n_nodes, 1);
        fill(&mut self.arc, n_nodes, 0);
        fill(&mut self.label_count, n_nodes + 2, 0);
        if n_nodes > 0 {
            self.label_count[1] = n_nodes as u32;
        }
        fill(&mut self.via, n_nodes, NONE);
        self.queue.clear();
        self.heap.clear();
    }

    /// Number of tasks each node holds after the last run.
    pub fn counts(&self) -> &[u32] {
        &self.count
    }

    fn take_free_task(&mut self, problem: &Problem, p: NodeId) -> TaskId {
        let row = problem.local_tasks(p);
        let mut c = self.cursor[p as usize] as usize;
        while self.owner[row[c] as usize] != NONE {
            c += 1;
        }
        self.cursor[p as usize] = c as u32 + 1;
        row[c]
    }

    fn assign(&mut self, problem: &Problem, t: TaskId, p: NodeId) {
        self.owner[t as usize] = p;
        for &q in problem.replicas(t) {
            self.free_cnt[q as usize] -= 1;
        }
    }

    /// Applies a shortest alternating path from `p` to an unassigned task, if
    /// any: p gains one task, every other node on the path keeps its count.
    ///
    /// The search follows distance labels (the shortest-augmenting-path
    /// method of max flow): `label[u]` is a lower bound on the length of
    /// u's shortest alternating path, 1 for a node with a free task. From p
    /// it steps to an owner labelled one less (each node keeps a current-arc
    /// cursor into its task row), raising a node's label when it has no such
    /// step; a path of `label[p]` steps is then a shortest one. A label
    /// value no node holds any more (a gap) cuts off every node above it
    /// from the free tasks: they are removed for good, as in Algorithm 1.
    /// A BFS per augmentation (the direct reading) rescans whole rows on
    /// every call; with three replicas spread over the cluster that was
    /// seconds per million tasks.
    fn augment(&mut self, problem: &Problem, p: NodeId) -> bool {
        if self.free_cnt[p as usize] > 0 {
            let t = self.take_free_task(problem, p);
            self.assign(problem, t, p);
            return true;
        }
        self.queue.clear();
        self.queue.push(p);
        loop {
            if self.dead[p as usize] {
                return false;
            }
            let Some(&u) = self.queue.last() else {
                return false;
            };
            let ui = u as usize;
            if self.dead[ui] {
                self.queue.pop();
                continue;
            }
            if self.free_cnt[ui] > 0 {
                break;
            }
            let row = problem.local_tasks(u);
            let want = self.label[ui].wrapping_sub(1);
            let mut c = self.arc[ui] as usize;
            let mut next = NONE;
            while c < row.len() {
                // u has no free task, so every neighbour task has an owner.
                let o = self.owner[row[c] as usize];
                if o != u && !self.dead[o as usize] && self.label[o as usize] == want {
                    next = o;
                    break;
                }
                c += 1;
            }
            self.arc[ui] = c as u32;
            if next != NONE {
                self.via[next as usize] = row[c];
                self.queue.push(next);
                continue;
            }
            self.relabel(problem, u);
            if u != p {
                // The step into u is no longer admissible: back up.
                self.queue.pop();
            }
        }
        let path = std::mem::take(&mut self.queue);
        let Some(&found) = path.last() else {
            return false;
        };
        let f = self.take_free_task(problem, found);
        self.assign(problem, f, found);
        for w in path.windows(2) {
            self.owner[self.via[w[1] as usize] as usize] = w[0];
        }
        self.queue = path;
        true
    }

    /// Raises `u`'s label to one more than its lowest live neighbour's (or
    /// removes it if it has none), then removes every node above a gap.
    fn relabel(&mut self, problem: &Problem, u: NodeId) {
        let ui = u as usize;
        let mut lowest = u32::MAX;
        for &t in problem.local_tasks(u) {
            let o = self.owner[t as usize];
            if o != u && !self.dead[o as usize] {
                lowest = lowest.min(self.label[o as usize]);
            }
        }
        let old = self.label[ui];
        self.label_count[old as usize] -= 1;
        let n = self.label.len() as u32;
        if lowest >= n {
            // No path can be longer than the node count.
            self.dead[ui] = true;
        } else {
            self.label[ui] = lowest + 1;
            self.label_count[lowest as usize + 1] += 1;
            self.arc[ui] = 0;
        }
        if self.label_count[old as usize] == 0 {
            // Labels fall by at most one per step of a path, so no node
            // above `old` reaches a free task.
            for v in 0..self.label.len() {
                if !self.dead[v] && self.label[v] > old {
                    self.dead[v] = true;
                    self.label_count[self.label[v] as usize] -= 1;
                }
            }
        }
    }
}

/// A lower bound on the maximum number of tasks per node of any local
/// assignment, certified from `node_of` (unit tasks, every task with a
/// replica): close the set R of nodes reachable from a most-loaded node by
/// moving one of its tasks to another replica holder, and so on; the tasks
/// assigned inside R have all their replicas in R, so some node of R must
/// take at least ceil(tasks / |R|). When `node_of` has no cost-reducing path
/// (Theorem 10) this equals its own maximum: an independent optimality check.
pub fn certified_lower_bound(problem: &Problem, node_of: &[NodeId]) -> u32 {
    let n = problem.num_nodes();
    let mut count = vec![0u32; n];
    let mut assigned: Vec<Vec<TaskId>> = vec![Vec::new(); n];
    for (t, &p) in node_of.iter().enumerate() {
        if (p as usize) < n {
            count[p as usize] += 1;
            assigned[p as usize].push(t as TaskId);
        }
    }
    let Some(top) = (0..n).max_by_key(|&p| (count[p], std::cmp::Reverse(p))) else {
        return 0;
    };
    let mut in_r = vec![false; n];
    in_r[top] = true;
    let mut stack = vec![top];
    let (mut nodes, mut tasks) = (0u64, 0u64);
    while let Some(u) = stack.pop() {
        nodes += 1;
        tasks += u64::from(count[u]);
        for &t in &assigned[u] {
            for &q in problem.replicas(t) {
                if !in_r[q as usize] {
                    in_r[q as usize] = true;
                    stack.push(q as usize);
                }
            }
        }
    }
    tasks.div_ceil(nodes) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CostModel;
    use crate::plan::{check_assignment, evaluate};

    /// The example of Beaumont et al., Fig. 4: processors 1..4, tasks a..f.
    /// a:{2}, b:{2,3}, c:{4}, d:{1,2}, e:{1}, f:{3}. ASM1 ends with every
    /// processor holding at most 2 tasks, and it needs the path 2-b-3-f.
    #[test]
    fn paper_figure_4() {
        let replicas = vec![vec![1], vec![1, 2], vec![3], vec![0, 1], vec![0], vec![2]];
        let p = Problem::uniform(4, &replicas, CostModel::default());
        let a = Asm1.plan(&p, 0);
        check_assignment(&p, &a).unwrap();
        let m = evaluate(&p, &a);
        assert_eq!(m.max_tasks_per_node, 2);
        assert_eq!(m.non_local, 0);
        assert_eq!(
            a.node_of[1], 1,
            "b moves to processor 2 through the alternating path"
        );
        assert_eq!(a.node_of[5], 2);
    }

    #[test]
    fn integer_initial_load_counts_as_tasks() {
        // Two tasks on both nodes; node 0 is busy for 2 units: both go to node 1.
        let mut p = Problem::uniform(2, &[vec![0, 1], vec![0, 1]], CostModel::default());
        p.node_load = vec![2.0, 0.0];
        let a = Asm1.plan(&p, 0);
        assert_eq!(a.node_of, vec![1, 1]);
        assert_eq!(evaluate(&p, &a).makespan, 2.0);
    }

    #[test]
    fn tasks_without_replicas_go_remote_to_the_least_loaded_node() {
        let p = Problem::uniform(2, &[vec![0], vec![0], vec![]], CostModel::default());
        let a = Asm1.plan(&p, 0);
        assert_eq!(a.node_of, vec![0, 0, 1]);
    }

    #[test]
    fn certificate_matches_asm1_and_exposes_a_bad_assignment() {
        let replicas = vec![vec![1], vec![1, 2], vec![3], vec![0, 1], vec![0], vec![2]];
        let p = Problem::uniform(4, &replicas, CostModel::default());
        let a = Asm1.plan(&p, 0);
        assert_eq!(certified_lower_bound(&p, &a.node_of), 2);
        // Everything that can go to processor 2 (index 1) goes there: max 3,
        // but the closure proves only 2 is forced.
        assert_eq!(certified_lower_bound(&p, &[1, 1, 3, 1, 0, 2]), 2);
    }

    #[test]
    fn workspace_is_reusable() {
        let p1 = Problem::uniform(2, &[vec![0], vec![0, 1], vec![1]], CostModel::default());
        let p2 = Problem::uniform(3, &[vec![2], vec![2]], CostModel::default());
        let mut ws = Asm1Workspace::default();
        assert_eq!(semi_matching(&p1, &mut ws).len(), 3);
        assert_eq!(semi_matching(&p2, &mut ws), &[2, 2]);
        assert_eq!(ws.counts(), &[0, 0, 2]);
    }

    /// Algorithm 1 read directly: a BFS per augmentation, the reached set
    /// removed when it fails. The per-node counts of the label search must
    /// be these (which nodes can gain a task depends on the counts only).
    fn reference_counts(problem: &Problem) -> Vec<u32> {
        let (n, m) = (problem.num_nodes(), problem.num_tasks());
        let mut owner = vec![NONE; m];
        let mut count = vec![0u32; n];
        let mut dead = vec![false; n];
        let mut heap: BinaryHeap<Reverse<(OrdF64, NodeId)>> = (0..n as NodeId)
            .map(|p| Reverse((OrdF64(problem.unit_finish(p, 1)), p)))
            .collect();
        while let Some(Reverse((_, p))) = heap.pop() {
            if dead[p as usize] {
                continue;
            }
            let mut parent = vec![(NONE, NONE); n];
            let mut seen = vec![false; n];
            seen[p as usize] = true;
            let mut queue = std::collections::VecDeque::from([p]);
            let mut reached = vec![p];
            let mut done = None;
            'bfs: while let Some(u) = queue.pop_front() {
                for &t in problem.local_tasks(u) {
                    match owner[t as usize] {
                        NONE => {
                            done = Some((u, t));
                            break 'bfs;
                        }
                        o if o != u && !dead[o as usize] && !seen[o as usize] => {
                            seen[o as usize] = true;
                            parent[o as usize] = (u, t);
                            reached.push(o);
                            queue.push_back(o);
                        }
                        _ => {}
                    }
                }
            }
            let Some((mut u, t)) = done else {
                for r in reached {
                    dead[r as usize] = true;
                }
                continue;
            };
            owner[t as usize] = u;
            while u != p {
                let (w, t) = parent[u as usize];
                owner[t as usize] = w;
                u = w;
            }
            count[p as usize] += 1;
            let key = problem.unit_finish(p, count[p as usize] + 1);
            heap.push(Reverse((OrdF64(key), p)));
        }
        count
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// Random replicas, loads and slots: the label search ends with the
        /// counts of the direct BFS, every task local and on a replica.
        #[test]
        fn label_search_matches_bfs(
            nodes in 1usize..12,
            tasks in proptest::collection::vec(proptest::collection::vec(0u32..12, 0..4), 0..60),
            loads in proptest::collection::vec(0u32..4, 12),
            slots in proptest::collection::vec(1u32..4, 12),
        ) {
            let replicas: Vec<Vec<NodeId>> = tasks
                .iter()
                .map(|r| {
                    let mut r: Vec<NodeId> = r.iter().map(|&x| x % nodes as u32).collect();
                    r.sort_unstable();
                    r.dedup();
                    r
                })
                .collect();
            let mut p = Problem::uniform(nodes, &replicas, CostModel::default());
            p.node_load = loads[..nodes].iter().map(|&l| f64::from(l)).collect();
            p.node_slots = slots[..nodes].to_vec();
            let mut ws = Asm1Workspace::default();
            let node_of = semi_matching(&p, &mut ws).to_vec();
            let mut local = vec![0u32; nodes];
            for (t, &n) in node_of.iter().enumerate() {
                if !replicas[t].is_empty() {
                    proptest::prop_assert!(replicas[t].contains(&n));
                    local[n as usize] += 1;
                }
            }
            proptest::prop_assert_eq!(local, reference_counts(&p));
        }
    }
}
