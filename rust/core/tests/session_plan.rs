//! The Session's heartbeat sequence realises the plan. A small MapReduce-like
//! AM sits beside it: it runs the task the Session booked for each container
//! (as an AM told which task to run would) and sends its lowered asks after
//! every heartbeat, as YARN AMs do. Unit tasks, one container per node, nodes
//! heartbeating in lockstep: the run must be all node-local, run every task
//! once, and take exactly the optimal number of rounds.

use proptest::prelude::*;
use spindle_core::model::{CostModel, NodeId, Problem};
use spindle_core::plan::evaluate;
use spindle_core::session::TaskChoice;
use spindle_core::session::ANY;
use spindle_core::{Locality, PolicyKind, Resources, Session, SessionConfig};

const CONTAINER: Resources = Resources {
    memory_mb: 1024,
    vcores: 1,
};

fn instance() -> impl Strategy<Value = (usize, Vec<Vec<NodeId>>)> {
    (2usize..=10).prop_flat_map(|nodes| {
        let task = proptest::sample::subsequence(
            (0..nodes as NodeId).collect::<Vec<_>>(),
            1..=3.min(nodes),
        );
        (Just(nodes), proptest::collection::vec(task, 1..=60))
    })
}

fn rack(n: NodeId) -> String {
    format!("/r{}", n % 2)
}

/// The AM's side: which tasks are pending, and its asks.
struct Am {
    app: u32,
    blocks: Vec<Vec<NodeId>>,
    pending: Vec<bool>,
}

impl Am {
    fn send_asks(&self, s: &mut Session, nodes: usize) {
        let mut host = vec![0; nodes];
        let mut racks = [0; 2];
        for (t, b) in self
            .blocks
            .iter()
            .enumerate()
            .filter(|(t, _)| self.pending[*t])
        {
            let _ = t;
            let mut seen = [false; 2];
            for &n in b {
                host[n as usize] += 1;
                seen[n as usize % 2] = true;
            }
            for r in 0..2 {
                racks[r] += seen[r] as i32;
            }
        }
        for (n, &c) in host.iter().enumerate() {
            s.update_ask(self.app, 20, &format!("h{n}"), c, CONTAINER, true)
                .unwrap();
        }
        for (r, &c) in racks.iter().enumerate() {
            s.update_ask(self.app, 20, &format!("/r{r}"), c, CONTAINER, true)
                .unwrap();
        }
        let any = self.pending.iter().filter(|p| **p).count() as i32;
        s.update_ask(self.app, 20, ANY, any, CONTAINER, true)
            .unwrap();
    }

    /// Runs a task in a container on `node`: the booked one if it is still
    /// pending, else the first pending task local to the node, else any.
    fn take(&mut self, node: NodeId, booked: Option<u32>) -> usize {
        let t = booked
            .map(|t| t as usize)
            .filter(|&t| self.pending[t])
            .or_else(|| {
                (0..self.blocks.len()).find(|&t| self.pending[t] && self.blocks[t].contains(&node))
            })
            .or_else(|| self.pending.iter().position(|p| *p))
            .expect("a container was granted with no task pending");
        self.pending[t] = false;
        t
    }
}

fn run(policy: PolicyKind, nodes: usize, blocks: &[Vec<NodeId>]) -> (u32, Vec<Locality>, Vec<u32>) {
    let mut s = Session::new(SessionConfig {
        policy,
        // This AM runs the booked task: it is told which.
        task_choice: TaskChoice::Planned,
        ..SessionConfig::default()
    });
    for n in 0..nodes as NodeId {
        s.add_node(&format!("h{n}"), &rack(n), CONTAINER, 1.0)
            .unwrap();
    }
    let app = s.add_app("application_1_0001", 1.0, 0).unwrap();
    let hosts: Vec<Vec<String>> = blocks
        .iter()
        .map(|b| b.iter().map(|n| format!("h{n}")).collect())
        .collect();
    s.set_input_blocks(app, 20, &hosts).unwrap();
    let mut am = Am {
        app,
        blocks: blocks.to_vec(),
        pending: vec![true; blocks.len()],
    };
    am.send_asks(&mut s, nodes);
    let mut runs = vec![0u32; blocks.len()];
    let mut localities = Vec::new();
    let mut rounds = 0;
    let mut out = Vec::new();
    while am.pending.iter().any(|p| *p) {
        let mut any = false;
        let mut busy = Vec::new();
        for n in 0..nodes as NodeId {
            s.node_heartbeat(n, CONTAINER, 0, &mut out).unwrap();
            busy.extend(out.iter().map(|_| n));
            let booked: Vec<u32> = s.booked_tasks().iter().map(|b| b.2).collect();
            for (k, g) in out.iter().enumerate() {
                assert_eq!(g.count, 1, "one free container per node");
                let t = am.take(n, booked.get(k).copied());
                runs[t] += 1;
                localities.push(if blocks[t].contains(&n) {
                    Locality::Node
                } else {
                    g.locality
                });
                any = true;
            }
            if !out.is_empty() {
                am.send_asks(&mut s, nodes);
            }
        }
        for n in busy {
            s.container_finished(n).unwrap();
        }
        assert!(any, "the Session stopped granting with tasks pending");
        rounds += 1;
    }
    (rounds, localities, runs)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn heartbeats_realise_an_optimal_asm1_plan((nodes, blocks) in instance()) {
        let (rounds, localities, runs) = run(PolicyKind::Asm1, nodes, &blocks);
        prop_assert!(runs.iter().all(|&r| r == 1), "every task runs exactly once");
        prop_assert!(localities.iter().all(|&l| l == Locality::Node));
        let p = Problem::uniform(nodes, &blocks, CostModel::default());
        let plan = PolicyKind::Asm1.planner().unwrap().plan(&p, 0);
        prop_assert_eq!(rounds as f64, evaluate(&p, &plan).makespan, "realised makespan is the optimum");
    }

    #[test]
    fn asm1_comm_runs_every_task_in_balanced_rounds((nodes, blocks) in instance()) {
        let (rounds, _, runs) = run(PolicyKind::Asm1Comm, nodes, &blocks);
        prop_assert!(runs.iter().all(|&r| r == 1));
        prop_assert_eq!(rounds as usize, blocks.len().div_ceil(nodes), "no node idles while work remains");
    }
}
