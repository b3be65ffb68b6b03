//! The Session's heartbeat sequence realises the plan: fed exact input blocks
//! and the MapReduce AM's asks, nodes heartbeating in lockstep receive exactly
//! the node-local containers the ASM1 plan queued for them.

use proptest::prelude::*;
use spindle_core::model::NodeId;
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

/// Registers the nodes and one app whose asks are what the MR AM sends for these splits.
fn session(policy: PolicyKind, nodes: usize, blocks: &[Vec<NodeId>]) -> (Session, u32) {
    let mut s = Session::new(SessionConfig {
        policy,
        ..SessionConfig::default()
    });
    for n in 0..nodes {
        s.add_node(&format!("h{n}"), &format!("/r{}", n % 2), CONTAINER, 1.0)
            .unwrap();
    }
    let app = s.add_app("application_1_0001", 1.0, 0).unwrap();
    let hosts: Vec<Vec<String>> = blocks
        .iter()
        .map(|b| b.iter().map(|n| format!("h{n}")).collect())
        .collect();
    s.set_input_blocks(app, 20, &hosts).unwrap();
    let mut per_host = vec![0; nodes];
    let mut per_rack = [0; 2];
    for b in blocks {
        let mut racks = [false; 2];
        for &n in b {
            per_host[n as usize] += 1;
            racks[n as usize % 2] = true;
        }
        for r in 0..2 {
            per_rack[r] += racks[r] as i32;
        }
    }
    for (n, &c) in per_host.iter().enumerate() {
        if c > 0 {
            s.update_ask(app, 20, &format!("h{n}"), c, CONTAINER, true)
                .unwrap();
        }
    }
    for (r, &c) in per_rack.iter().enumerate() {
        if c > 0 {
            s.update_ask(app, 20, &format!("/r{r}"), c, CONTAINER, true)
                .unwrap();
        }
    }
    s.update_ask(app, 20, ANY, blocks.len() as i32, CONTAINER, true)
        .unwrap();
    (s, app)
}

/// Runs unit tasks in lockstep: each step every node heartbeats once with one
/// free container, then every container finishes. Returns grants per node.
fn run(s: &mut Session, nodes: usize) -> (Vec<u32>, Vec<Locality>) {
    let mut got = vec![0u32; nodes];
    let mut localities = Vec::new();
    let mut out = Vec::new();
    loop {
        let mut any = false;
        for n in 0..nodes as NodeId {
            s.node_heartbeat(n, CONTAINER, 0, &mut out).unwrap();
            for g in &out {
                assert_eq!(g.count, 1, "one free container per node");
                got[n as usize] += g.count;
                localities.push(g.locality);
                any = true;
            }
        }
        for n in 0..nodes as NodeId {
            s.container_finished(n).unwrap();
        }
        if !any {
            return (got, localities);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn heartbeats_realise_the_asm1_plan((nodes, blocks) in instance()) {
        let (mut s, _app) = session(PolicyKind::Asm1, nodes, &blocks);
        s.plan_if_dirty();
        let planned: Vec<u32> = s.queued().iter().map(|&q| q as u32).collect();
        prop_assert_eq!(planned.iter().sum::<u32>() as usize, blocks.len());
        let (got, localities) = run(&mut s, nodes);
        prop_assert_eq!(got, planned);
        prop_assert!(localities.iter().all(|&l| l == Locality::Node));
        prop_assert_eq!(s.plans_computed(), 1, "no event, no re-plan");
    }

    #[test]
    fn asm1_comm_runs_every_task_with_no_idle_node_beyond_the_cap((nodes, blocks) in instance()) {
        let (mut s, _app) = session(PolicyKind::Asm1Comm, nodes, &blocks);
        let (got, _) = run(&mut s, nodes);
        prop_assert_eq!(got.iter().sum::<u32>() as usize, blocks.len());
    }
}
