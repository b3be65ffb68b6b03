//! Issue 11 D on the simulated cluster: on a lightly loaded cluster the
//! priced locality wait keeps maps local where `asm1-comm` spills them at
//! the first free heartbeat, and it costs no job completion time.

use spindle_core::PolicyKind;
use spindle_sim::workload::{JobSpec, Profile};
use spindle_sim::{simulate, SimConfig};

const BLOCK: u64 = 128 << 20;

fn run(policy: PolicyKind) -> (f64, f64) {
    let mut cfg = SimConfig {
        nodes: 20,
        racks: 2,
        seed: 5,
        policy,
        ..SimConfig::default()
    };
    cfg.set_slots(4).unwrap();
    // Jobs of 12 blocks, one every 30 s: the cluster is mostly idle.
    let jobs: Vec<JobSpec> = (0..10)
        .map(|i| JobSpec::shaped(format!("wc{i}"), i * 30_000, 12 * BLOCK, Profile::Wordcount))
        .collect();
    let out = simulate(&cfg, &jobs, |_| {}).unwrap();
    let m = &out.result.metrics;
    let maps = (m.node_local + m.rack_local + m.off_switch) as f64;
    (m.node_local as f64 / maps, m.mean_jct_s)
}

#[test]
fn an_idle_cluster_waits_for_local_slots_at_no_cost() {
    let (comm_local, comm_jct) = run(PolicyKind::Asm1Comm);
    let (priced_local, priced_jct) = run(PolicyKind::Asm1Priced);
    // Measured: 33.3 % against 65.0 % node-local maps, 32.0 s each.
    assert!(
        priced_local >= comm_local + 0.2,
        "{priced_local} vs {comm_local}"
    );
    assert!(priced_jct <= comm_jct * 1.05, "{priced_jct} vs {comm_jct}");
}
