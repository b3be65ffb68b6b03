//! Hadoop's locality-aware round robin, the baseline of LABL (Agosta et
//! al.) Sect. 3.5: cycle through the servers in a fixed order (s_1, s_2, ...)
//! until every task is assigned; at each step the current server gets one
//! task, a local one if any is left, else a remote one. Loads are not looked
//! at, which is why its greedy choices go wrong (Sects. 3.5, 4.2).
//!
//! Which task among several: as Hadoop 1's `JobInProgress` does, the first
//! pending one in task order from the server's own list, else the first
//! pending task of the job.

use crate::model::{NodeId, Problem, TaskId, NONE};
use crate::plan::Assignment;
use crate::policy::Planner;

/// The round-robin planner.
#[derive(Clone, Copy, Debug, Default)]
pub struct RoundRobin;

impl Planner for RoundRobin {
    fn name(&self) -> &'static str {
        "round-robin"
    }

    fn plan(&self, problem: &Problem, _seed: u64) -> Assignment {
        let n_nodes = problem.num_nodes();
        let n_tasks = problem.num_tasks();
        let mut node_of = vec![NONE; n_tasks];
        let mut order: Vec<TaskId> = Vec::with_capacity(n_tasks);
        if n_nodes == 0 {
            return Assignment::from_order(n_nodes, node_of, &order);
        }
        // cursor[s] walks s's local tasks (increasing ids); `any` walks all tasks.
        let mut cursor = vec![0usize; n_nodes];
        let mut any = 0usize;
        let mut s = 0usize;
        while order.len() < n_tasks {
            let local = problem.local_tasks(s as NodeId);
            let c = &mut cursor[s];
            while *c < local.len() && node_of[local[*c] as usize] != NONE {
                *c += 1;
            }
            let t = if *c < local.len() {
                local[*c]
            } else {
                while node_of[any] != NONE {
                    any += 1;
                }
                any as TaskId
            };
            node_of[t as usize] = s as NodeId;
            order.push(t);
            s = (s + 1) % n_nodes;
        }
        Assignment::from_order(n_nodes, node_of, &order)
    }
}

/// Follow the round-robin plan; once it is done, Hadoop's own fallback:
/// any work rather than stay idle.
impl crate::policy::Policy for RoundRobin {
    fn name(&self) -> &'static str {
        Planner::name(self)
    }
    fn planner(&self) -> Option<&dyn Planner> {
        Some(self)
    }
    fn on_free_slot(&self) -> crate::policy::FreeSlot {
        crate::policy::FreeSlot::Spill { steal: false }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CostModel;
    use crate::plan::{accounting, check_assignment};

    #[test]
    fn every_server_in_turn_local_first() {
        // s0 holds t1 and t2, s1 holds nothing, s2 holds t0.
        // Round 1: s0 <- t1 (local), s1 <- t0 (remote, first pending),
        // s2 <- nothing local left <- t2 (remote). Round 2: s0 <- t3 (remote).
        let p = Problem::uniform(
            3,
            &[vec![2], vec![0], vec![0], vec![]],
            CostModel::default(),
        );
        let a = RoundRobin.plan(&p, 0);
        check_assignment(&p, &a).unwrap();
        assert_eq!(a.node_of, vec![1, 0, 2, 0]);
        let acc = accounting(&p, &a);
        assert_eq!((acc.latency, acc.resource), (4.0, 10.0));
    }

    #[test]
    fn loads_are_ignored() {
        // A busy server still gets its turn.
        let mut p = Problem::uniform(2, &[vec![0, 1], vec![0, 1]], CostModel::default());
        p.node_load = vec![5.0, 0.0];
        let a = RoundRobin.plan(&p, 0);
        assert_eq!(a.node_of, vec![0, 1]);
        assert_eq!(accounting(&p, &a).latency, 6.0);
    }

    proptest::proptest! {
        /// Server i gets ceil((|T| - i) / |S|) tasks, and a remote task only
        /// when none of its own was pending at its turn.
        #[test]
        fn turns_and_local_first(
            n in 1usize..8,
            reps in proptest::collection::vec(proptest::collection::vec(0u32..8, 0..4), 0..40),
        ) {
            let reps: Vec<Vec<u32>> = reps
                .into_iter()
                .map(|mut r| {
                    r.retain(|&s| (s as usize) < n);
                    r.sort_unstable();
                    r.dedup();
                    r
                })
                .collect();
            let p = Problem::uniform(n, &reps, CostModel::default());
            let a = RoundRobin.plan(&p, 0);
            proptest::prop_assert_eq!(check_assignment(&p, &a), Ok(()));
            let m = reps.len();
            for (s, &c) in a.counts().iter().enumerate() {
                proptest::prop_assert_eq!(c as usize, (m.saturating_sub(s)).div_ceil(n));
            }
            // Replay the turns: a remote pick means s had nothing local left.
            let mut done = vec![false; m];
            let order: Vec<u32> = (0..m).map(|k| a.queues.row(k % n)[k / n]).collect();
            for (k, &t) in order.iter().enumerate() {
                let s = (k % n) as u32;
                if !reps[t as usize].contains(&s) {
                    let left = p.local_tasks(s).iter().any(|&u| !done[u as usize]);
                    proptest::prop_assert!(!left, "server {} went remote with local work left", s);
                }
                done[t as usize] = true;
            }
        }
    }
}
