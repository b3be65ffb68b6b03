//! Algorithms 1 and 2 of the S-PC paper, and the placement rules of its baselines.
//!
//! Jobs are taken in a given order (Algorithm 1: non-decreasing `C_j^LP`);
//! each job's tasks, largest first, go to the machine chosen by a [`Pick`]
//! rule. A task starts at `max(machine free, job ready)`, the job being ready
//! at its release time and once its predecessors are done: the idle time the
//! paper inserts. Machines are tracked per node (a min-heap of its busy
//! slots) and, for the earliest-completion rule, in one heap per distinct
//! speed: the best machine of a speed class is the one free first, so a task
//! costs a look at each class (fastest first, stopping once even a free
//! machine of the class could not beat the best found), not at each machine.
//! Ties (Algorithm 2's argmin leaves them open): the faster machine, then the
//! one free first, then the lower node index.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{JobSet, SpcError, MAX_PLACEMENT_STEPS};
use crate::model::{NodeId, OrdF64, Problem, TaskId};
use crate::plan::Assignment;

/// How a task chooses its machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// Algorithm 2: the machine that completes the task earliest.
    EarliestCompletion,
    /// Algorithm 2 with data locality (`spc-local`): on a machine holding
    /// none of the task's replicas the task also reads its input remotely,
    /// which takes `(remote_cost(r) - local) * size / speed` more (the
    /// [`crate::model::CostModel`], `r` the remote tasks placed so far); a
    /// task without replicas costs the same everywhere.
    EarliestCompletionLocal,
    /// The machine free first, speed ignored (FIFO's first available container).
    FirstFree,
    /// A node drawn uniformly (Map-only's reduce tasks).
    Random,
}

/// What a scheduler decides: the job order and each job's rule.
pub struct Rules<'a> {
    /// Jobs in scheduling order; every job after its predecessors.
    pub order: &'a [u32],
    /// Rule of each job (indexed by job).
    pub pick: &'a [Pick],
    /// The node speeds the decisions believe (Identical-machine: all 1);
    /// `None`: the real ones. Times reported are always the real ones.
    pub believed_speed: Option<&'a [f64]>,
    /// A task takes its machine once the machine is free and the job is
    /// released, before its predecessors finish, and waits on it (Hadoop's
    /// reduce slow-start, as FIFO runs in S-PC Sect. VI.A).
    pub hold_early: bool,
    pub seed: u64,
}

impl<'a> Rules<'a> {
    /// `order` and `pick` on the real speeds, no early holds: what most
    /// job schedulers use (the others change one field).
    pub fn new(order: &'a [u32], pick: &'a [Pick], seed: u64) -> Rules<'a> {
        Rules {
            order,
            pick,
            believed_speed: None,
            hold_early: false,
            seed,
        }
    }
}

/// A schedule: where and when every task runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    pub job_order: Vec<u32>,
    /// Node of each task, and each node's queue in the order it runs it.
    pub assignment: Assignment,
    /// When each task starts processing (after any wait on its machine).
    pub start: Vec<f64>,
    pub end: Vec<f64>,
    /// `C_j`: when the last task of job `j` ends (its ready time if it has none).
    pub completion: Vec<f64>,
}

impl Schedule {
    /// `sum w_j C_j` over all jobs.
    pub fn twct(&self, jobs: &JobSet) -> f64 {
        self.completion
            .iter()
            .zip(&jobs.weight)
            .map(|(c, w)| c * w)
            .sum()
    }

    pub fn makespan(&self) -> f64 {
        self.completion.iter().fold(0.0, |m, &c| m.max(c))
    }
}

/// One node's slots: unused ones free since the initial load, a min-heap of
/// the busy ones' end times. Grows with the tasks placed, never with `slots`.
#[derive(Clone, Debug)]
struct Slots {
    load: f64,
    unused: u32,
    busy: BinaryHeap<Reverse<OrdF64>>,
}

impl Slots {
    fn new(load: f64, slots: u32) -> Slots {
        Slots {
            load,
            unused: slots.max(1),
            busy: BinaryHeap::new(),
        }
    }

    fn earliest(&self) -> f64 {
        match self.busy.peek() {
            Some(Reverse(OrdF64(t))) if self.unused == 0 => *t,
            _ => self.load,
        }
    }

    /// Takes the earliest slot and keeps it busy until `end`.
    fn occupy(&mut self, end: f64) {
        if self.unused > 0 {
            self.unused -= 1;
        } else {
            self.busy.pop();
        }
        self.busy.push(Reverse(OrdF64(end)));
    }
}

/// Lazy min-heap of nodes by earliest free slot: stale entries (the node's
/// slot time has moved on) are dropped when they surface.
#[derive(Default)]
struct NodeHeap {
    heap: BinaryHeap<Reverse<(OrdF64, NodeId)>>,
}

impl NodeHeap {
    fn top(&mut self, state: &[Slots]) -> Option<(f64, NodeId)> {
        while let Some(&Reverse((OrdF64(t), n))) = self.heap.peek() {
            if state[n as usize].earliest() == t {
                return Some((t, n));
            }
            self.heap.pop();
        }
        None
    }

    fn push(&mut self, state: &[Slots], n: NodeId) {
        self.heap
            .push(Reverse((OrdF64(state[n as usize].earliest()), n)));
    }
}

/// Runs the jobs in `rules.order` on the nodes of `problem`.
pub fn place(jobs: &JobSet, problem: &Problem, rules: &Rules) -> Result<Schedule, SpcError> {
    let nodes = problem.num_nodes();
    let tasks = jobs.task_size.len();
    let believed = rules.believed_speed.unwrap_or(&problem.node_speed);
    // Speed classes of the decisions, fastest first.
    let mut speeds: Vec<f64> = believed.to_vec();
    speeds.sort_by(|a, b| b.total_cmp(a));
    speeds.dedup();
    if (tasks as u64).saturating_mul(speeds.len() as u64) > MAX_PLACEMENT_STEPS {
        return Err(SpcError::TooMuchWork {
            tasks,
            speeds: speeds.len(),
            limit: MAX_PLACEMENT_STEPS,
        });
    }
    let class_of: Vec<usize> = believed
        .iter()
        .map(|s| speeds.partition_point(|x| x > s))
        .collect();
    let fresh = || -> Vec<Slots> {
        (0..nodes)
            .map(|n| Slots::new(problem.node_load[n], problem.node_slots[n]))
            .collect()
    };
    let mut real = fresh();
    // The decisions' own view, when it differs from the real one.
    let mut thought = rules.believed_speed.map(|_| fresh());
    let mut classes: Vec<NodeHeap> = speeds.iter().map(|_| NodeHeap::default()).collect();
    let mut first_free = NodeHeap::default();
    let uses_first_free = rules.pick.contains(&Pick::FirstFree);
    for n in 0..nodes as NodeId {
        let state = thought.as_deref().unwrap_or(&real);
        classes[class_of[n as usize]].push(state, n);
        if uses_first_free {
            first_free.push(state, n);
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(rules.seed);
    let mut node_of = vec![NodeId::MAX; tasks];
    let mut start = vec![0.0; tasks];
    let mut end = vec![0.0; tasks];
    let mut completion = vec![0.0; jobs.len()];
    let mut thought_completion = vec![0.0; jobs.len()];
    let mut placed: Vec<TaskId> = Vec::with_capacity(tasks);
    let mut remote_placed = 0usize;
    for &j in rules.order {
        let j = j as usize;
        let release = jobs.release[j];
        let mut ready = release;
        let mut thought_ready = release;
        for &a in jobs.after.row(j) {
            ready = ready.max(completion[a as usize]);
            thought_ready = thought_ready.max(thought_completion[a as usize]);
        }
        let mut done = ready;
        let mut thought_done = thought_ready;
        for &t in jobs.tasks.row(j) {
            let size = jobs.task_size[t as usize];
            let state = thought.as_deref().unwrap_or(&real);
            // Remote read time per unit of run time, for the locality-aware rule.
            let replicas: &[NodeId] = if rules.pick[j] == Pick::EarliestCompletionLocal {
                problem.graph.task_nodes.row(t as usize)
            } else {
                &[]
            };
            let extra = if replicas.is_empty() {
                0.0
            } else {
                (problem.cost.remote_cost(remote_placed) - problem.cost.local).max(0.0)
            };
            let factor = |n: NodeId| {
                if extra > 0.0 && !replicas.contains(&n) {
                    1.0 + extra
                } else {
                    1.0
                }
            };
            let from = if rules.hold_early {
                release
            } else {
                thought_ready
            };
            let n = match rules.pick[j] {
                Pick::EarliestCompletion => {
                    let mut best: Option<(f64, NodeId)> = None;
                    for (c, heap) in classes.iter_mut().enumerate() {
                        let run = size / speeds[c];
                        if best.is_some_and(|(b, _)| from + run >= b) {
                            break;
                        }
                        if let Some((free, n)) = heap.top(state) {
                            let fin = free.max(from) + run;
                            if best.is_none_or(|(b, _)| fin < b) {
                                best = Some((fin, n));
                            }
                        }
                    }
                    best.map_or(0, |(_, n)| n)
                }
                Pick::EarliestCompletionLocal => {
                    // The best machine of a speed class is its first free
                    // one, at its own cost (a replica holder costs less, so
                    // a later-free machine of the class cannot beat it);
                    // replica holders are looked at one by one. Ties: local.
                    let mut best: Option<(f64, bool, NodeId)> = None;
                    let better = |fin: f64, remote: bool, b: Option<(f64, bool, NodeId)>| {
                        b.is_none_or(|(bf, br, _)| fin < bf || (fin == bf && br && !remote))
                    };
                    for &n in replicas {
                        let ni = n as usize;
                        let fin = state[ni].earliest().max(from) + size / believed[ni];
                        if better(fin, false, best) {
                            best = Some((fin, false, n));
                        }
                    }
                    for (c, heap) in classes.iter_mut().enumerate() {
                        let run = size / speeds[c];
                        if best.is_some_and(|(b, _, _)| from + run >= b) {
                            break;
                        }
                        if let Some((free, n)) = heap.top(state) {
                            let f = factor(n);
                            let fin = free.max(from) + run * f;
                            if better(fin, f > 1.0, best) {
                                best = Some((fin, f > 1.0, n));
                            }
                        }
                    }
                    best.map_or(0, |(_, _, n)| n)
                }
                Pick::FirstFree => first_free.top(state).map_or(0, |(_, n)| n),
                Pick::Random => rng.gen_range(0..nodes) as NodeId,
            };
            let ni = n as usize;
            let f = factor(n);
            if f > 1.0 {
                remote_placed += 1;
            }
            // The decisions' view first, then the real machines.
            if let Some(th) = thought.as_mut() {
                let s = th[ni].earliest().max(from).max(thought_ready);
                let e = s + size * f / believed[ni];
                th[ni].occupy(e);
                thought_done = thought_done.max(e);
            }
            let occupy_from = if rules.hold_early { release } else { ready };
            let s = real[ni].earliest().max(occupy_from).max(ready);
            let e = s + size * f / problem.node_speed[ni];
            real[ni].occupy(e);
            done = done.max(e);
            node_of[t as usize] = n;
            start[t as usize] = s;
            end[t as usize] = e;
            placed.push(t);
            let state = thought.as_deref().unwrap_or(&real);
            classes[class_of[ni]].push(state, n);
            if uses_first_free {
                first_free.push(state, n);
            }
        }
        completion[j] = done;
        thought_completion[j] = if thought.is_some() {
            thought_done
        } else {
            done
        };
    }
    Ok(Schedule {
        job_order: rules.order.to_vec(),
        assignment: Assignment::from_order(nodes, node_of, &placed),
        start,
        end,
        completion,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::Instance;
    use proptest::prelude::*;

    fn inst(text: &str) -> (JobSet, Problem) {
        let i = Instance::from_json(text).unwrap();
        (JobSet::from_instance(&i), i.problem)
    }

    fn ec(jobs: &JobSet) -> Vec<Pick> {
        vec![Pick::EarliestCompletion; jobs.len()]
    }

    #[test]
    fn largest_task_goes_to_the_fast_machine_and_release_inserts_idle_time() {
        // Speeds 4 and 1; job a (sizes 8, 1) released at 2.
        let (jobs, p) = inst(
            r#"{"nodes":[{"host":"slow","speed":1},{"host":"fast","speed":4}],
                "jobs":[{"id":"a","release":2,"tasks":[{"id":"t1","replicas":[],"size":1},{"id":"t8","replicas":[],"size":8}]}]}"#,
        );
        let s = place(
            &jobs,
            &p,
            &Rules {
                order: &[0],
                pick: &ec(&jobs),
                believed_speed: None,
                hold_early: false,
                seed: 0,
            },
        )
        .unwrap();
        // t8 first (largest): fast ends at 2 + 2 = 4; t1: slow 2 + 1 = 3 < fast 4 + 0.25.
        assert_eq!(s.assignment.node_of, vec![0, 1]);
        assert_eq!(s.start, vec![2.0, 2.0]);
        assert_eq!(s.end, vec![3.0, 4.0]);
        assert_eq!(s.completion, vec![4.0]);
    }

    #[test]
    fn a_successor_waits_for_its_predecessor_unless_it_holds_early() {
        let (jobs, p) = inst(
            r#"{"nodes":[{"host":"a"},{"host":"b"}],
                "jobs":[{"id":"m","tasks":[{"id":"m1","replicas":[],"size":3}]},
                        {"id":"r","after":["m"],"tasks":[{"id":"r1","replicas":[],"size":1}]}]}"#,
        );
        let rules = |hold| Rules {
            order: &[0, 1],
            pick: &[Pick::FirstFree, Pick::FirstFree],
            believed_speed: None,
            hold_early: hold,
            seed: 0,
        };
        let s = place(&jobs, &p, &rules(false)).unwrap();
        assert_eq!(s.start, vec![0.0, 3.0]);
        assert_eq!(s.completion, vec![3.0, 4.0]);
        let h = place(&jobs, &p, &rules(true)).unwrap();
        // Same times: the reducer holds node b from 0 and computes from 3.
        assert_eq!(h.completion, vec![3.0, 4.0]);
        assert_eq!(h.assignment.node_of, vec![0, 1]);
    }

    #[test]
    fn believed_speeds_decide_real_speeds_time() {
        // Identical belief spreads 2 equal tasks over a fast and a slow node.
        let (jobs, p) = inst(
            r#"{"nodes":[{"host":"f","speed":8},{"host":"s","speed":1}],
                "jobs":[{"id":"a","tasks":[{"id":"x","replicas":[],"size":8},{"id":"y","replicas":[],"size":8}]}]}"#,
        );
        let ones = [1.0, 1.0];
        let mk = |b: Option<&'static [f64]>| Rules {
            order: &[0],
            pick: &[Pick::EarliestCompletion],
            believed_speed: b,
            hold_early: false,
            seed: 0,
        };
        let real = place(&jobs, &p, &mk(None)).unwrap();
        assert_eq!(real.completion, vec![2.0]); // both on the fast node
        let ident = place(
            &jobs,
            &p,
            &Rules {
                believed_speed: Some(&ones),
                ..mk(None)
            },
        )
        .unwrap();
        assert_eq!(ident.completion, vec![8.0]); // one lands on the slow node
    }

    /// The brute-force Algorithm 2: every machine (slot) scanned per task.
    fn scan(jobs: &JobSet, p: &Problem, order: &[u32]) -> Vec<f64> {
        let mut free: Vec<(f64, f64, usize)> = Vec::new(); // (free at, speed, node) per slot
        for n in 0..p.num_nodes() {
            for _ in 0..p.node_slots[n] {
                free.push((p.node_load[n], p.node_speed[n], n));
            }
        }
        let mut completion = vec![0.0; jobs.len()];
        for &j in order {
            let j = j as usize;
            let mut ready = jobs.release[j];
            for &a in jobs.after.row(j) {
                ready = ready.max(completion[a as usize]);
            }
            let mut done = ready;
            for &t in jobs.tasks.row(j) {
                let size = jobs.task_size[t as usize];
                // Ties: the faster machine, then the one free first, then the node index.
                let (best, fin) = free
                    .iter()
                    .enumerate()
                    .map(|(i, &(f, v, n))| (i, f.max(ready) + size / v, v, f, n))
                    .min_by(|a, b| {
                        a.1.total_cmp(&b.1)
                            .then(b.2.total_cmp(&a.2))
                            .then(a.3.total_cmp(&b.3))
                            .then(a.4.cmp(&b.4))
                    })
                    .map(|(i, fin, ..)| (i, fin))
                    .unwrap();
                free[best].0 = fin;
                done = done.max(fin);
            }
            completion[j] = done;
        }
        completion
    }

    proptest! {
        #[test]
        fn heaps_per_speed_match_the_full_scan(
            nodes in proptest::collection::vec((0usize..3, 1u32..3, 0.0f64..3.0), 1..6),
            sizes in proptest::collection::vec((0usize..4, 0.5f64..9.0), 1..20),
            releases in proptest::collection::vec(0.0f64..10.0, 4),
        ) {
            let speeds = [1.0, 2.0, 8.0];
            let mut text = String::from(r#"{"nodes":["#);
            for (i, (s, k, l)) in nodes.iter().enumerate() {
                if i > 0 { text.push(','); }
                text.push_str(&format!(r#"{{"host":"n{i}","speed":{},"slots":{k},"initial_load":{l}}}"#, speeds[*s]));
            }
            text.push_str(r#"],"jobs":["#);
            for (j, release) in releases.iter().enumerate() {
                if j > 0 { text.push(','); }
                let after = if j == 3 { r#"["j0","j1"]"# } else { "[]" };
                let ts: Vec<String> = sizes.iter().enumerate().filter(|(_, (jj, _))| *jj == j)
                    .map(|(i, (_, sz))| format!(r#"{{"id":"t{i}","replicas":[],"size":{sz}}}"#)).collect();
                text.push_str(&format!(r#"{{"id":"j{j}","release":{release},"after":{after},"tasks":[{}]}}"#, ts.join(",")));
            }
            text.push_str("]}");
            let (jobs, p) = inst(&text);
            let order = [2u32, 0, 1, 3];
            let s = place(&jobs, &p, &Rules { order: &order, pick: &ec(&jobs), believed_speed: None, hold_early: false, seed: 0 }).unwrap();
            let want = scan(&jobs, &p, &order);
            for (a, b) in s.completion.iter().zip(&want) {
                prop_assert!((a - b).abs() < 1e-9, "{:?} vs {:?}", s.completion, want);
            }
            crate::plan::check_assignment(&p, &s.assignment).map_err(TestCaseError::fail)?;
        }
    }
}
