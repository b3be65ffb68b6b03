//! `spindle demo`: the static comparison of Beaumont et al.'s model, Hadoop's greedy
//! against ASM1 on unit tasks (makespan, non-local fraction, planning time).

use std::fmt::Write as _;

use spindle_core::generate::{generate, GenSpec};
use spindle_core::plan::timed_plan;
use spindle_core::{CostModel, Instance, PolicyKind};

use crate::{ReproError, Result};

/// The demo's cluster and sizes.
pub struct DemoSpec {
    pub nodes: usize,
    pub racks: usize,
    pub replicas: usize,
    /// Task counts, one row each.
    pub tasks: Vec<usize>,
    /// Instances per task count; figures are means.
    pub runs: u64,
    pub seed: u64,
}

#[derive(Default)]
struct Mean {
    makespan: f64,
    non_local: f64,
    ms: f64,
}

/// Runs the demo and returns its text.
pub fn run(a: &DemoSpec) -> Result<String> {
    if a.runs == 0 || a.runs > 1000 {
        return Err(ReproError::Invalid(format!(
            "--runs must be from 1 to 1000, got {}",
            a.runs
        )));
    }
    // The paper's homogeneous model: unit tasks, communication overlapped
    // (a remote task also takes one unit), so both criteria are counts.
    let mut s = String::new();
    let cost = CostModel {
        local: 1.0,
        remote: 1.0,
        remote_growth: 0.0,
    };
    let _ = writeln!(s, "Spindle demo: {} nodes, {} racks, {} replicas per block placed as HDFS does; unit tasks; mean of {} instances per row.",
        a.nodes, a.racks, a.replicas, a.runs
    );
    let _ = writeln!(s, "Hadoop's default (Beaumont et al., Sect. 4: an idle node takes a random local task) against ASM1 (optimal semi-matching).");
    let _ = writeln!(s);
    let _ = writeln!(s, "MAKESPAN-ORIENTED: local tasks only (greedy stays idle when it has no local task; ASM1 plans all at once)");
    let _ = writeln!(
        s,
        "{:>7} {:>9} | {:>15} {:>10} | {:>14} {:>10}",
        "tasks", "ceil(T/P)", "greedy makespan", "greedy ms", "ASM1 makespan", "ASM1 ms"
    );
    let policies = [
        PolicyKind::Greedy,
        PolicyKind::Asm1,
        PolicyKind::GreedyComm,
        PolicyKind::Asm1Comm,
    ];
    let mut comm_rows = Vec::new();
    for &tasks in &a.tasks {
        let mut means: Vec<Mean> = policies.iter().map(|_| Mean::default()).collect();
        for run in 0..a.runs {
            let spec = GenSpec {
                nodes: a.nodes,
                tasks,
                replicas: a.replicas,
                racks: a.racks,
                seed: a.seed + run,
                initial_load: 0.0,
                cost,
            };
            let inst = Instance::from_file(generate(&spec)?)?;
            for (i, &policy) in policies.iter().enumerate() {
                let (_, m) = timed_plan(policy.offline_planner()?, &inst.problem, a.seed + run);
                means[i].makespan += m.makespan / a.runs as f64;
                means[i].non_local += m.non_local_fraction / a.runs as f64;
                means[i].ms += m.plan_ms / a.runs as f64;
            }
        }
        let _ = writeln!(
            s,
            "{:>7} {:>9} | {:>15.2} {:>10.3} | {:>14.2} {:>10.3}",
            tasks,
            tasks.div_ceil(a.nodes),
            means[0].makespan,
            means[0].ms,
            means[1].makespan,
            means[1].ms
        );
        comm_rows.push((tasks, means));
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "COMM-ORIENTED: no node idles while work remains; fewer non-local tasks is better"
    );
    let _ = writeln!(
        s,
        "{:>7} | {:>18} {:>10} {:>10} | {:>18} {:>10} {:>10}",
        "tasks", "greedy-comm nonloc", "makespan", "ms", "ASM1-comm nonloc", "makespan", "ms"
    );
    for (tasks, means) in comm_rows {
        let _ = writeln!(
            s,
            "{:>7} | {:>17.1}% {:>10.2} {:>10.3} | {:>17.1}% {:>10.2} {:>10.3}",
            tasks,
            100.0 * means[2].non_local,
            means[2].makespan,
            means[2].ms,
            100.0 * means[3].non_local,
            means[3].makespan,
            means[3].ms
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "Makespan in task units; ms = planning time (greedy: time to play the dispatcher out)."
    );
    let _ = writeln!(s, "Try: spindle generate --nodes 50 --tasks 500 --racks 3 > i.json && spindle plan -i i.json -p asm1 --format table");
    Ok(s)
}
