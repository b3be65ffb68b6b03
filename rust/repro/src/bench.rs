//! `spindle bench --all`: plan time of every policy's offline planner on the
//! same generated instances, in one run.

use std::fmt::Write as _;
use std::time::Instant;

use spindle_core::generate::{generate, GenSpec};
use spindle_core::{CostModel, Instance, PolicyKind};

use crate::Result;

/// The instances and repetitions of `bench --all`.
pub struct BenchAllSpec {
    /// Nodes of every generated instance.
    pub nodes: usize,
    /// Task counts, one column each.
    pub tasks: Vec<usize>,
    /// Each node's initial load is uniform in [0, initial_load].
    pub initial_load: f64,
    pub cost: CostModel,
    /// Timed repetitions per cell (best reported).
    pub repeat: usize,
    /// Skip a policy at a size when its time at the previous size, scaled by
    /// the squared size ratio, exceeds this many seconds.
    pub budget_s: f64,
}

/// `spindle bench --all`: plan time of every offline planner at each size, in
/// one run on the same generated instances. Repetitions stop early once a
/// cell has used 10 s; a policy whose previous time, scaled by the squared
/// size ratio, would exceed the budget is skipped at that size.
pub fn all(a: &BenchAllSpec) -> Result<String> {
    let policies: Vec<PolicyKind> = PolicyKind::ALL
        .into_iter()
        .filter(|p| p.planner().is_some())
        .collect();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "plan time, best of up to {} runs, ms ({} nodes, 3 replicas, initial load U[0, {}], cost local {} remote {} growth {})",
        a.repeat, a.nodes, a.initial_load, a.cost.local, a.cost.remote, a.cost.remote_growth
    );
    let width = policies.iter().map(|p| p.name().len()).max().unwrap_or(6);
    let _ = write!(s, "{:<width$}", "policy");
    for t in &a.tasks {
        let _ = write!(s, " {:>14}", format!("{t} tasks"));
    }
    let _ = writeln!(s);
    let mut instances = Vec::with_capacity(a.tasks.len());
    for (i, &tasks) in a.tasks.iter().enumerate() {
        let spec = GenSpec {
            nodes: a.nodes,
            tasks,
            replicas: 3,
            racks: 1,
            seed: 1 + i as u64,
            initial_load: a.initial_load,
            cost: a.cost,
        };
        instances.push(Instance::from_file(generate(&spec)?)?);
    }
    for policy in policies {
        let planner = policy.offline_planner()?;
        let _ = write!(s, "{:<width$}", policy.name());
        let mut last: Option<(usize, f64)> = None;
        for (inst, &tasks) in instances.iter().zip(&a.tasks) {
            if let Some((prev_tasks, prev_ms)) = last {
                let ratio = tasks as f64 / prev_tasks.max(1) as f64;
                if prev_ms * ratio * ratio > a.budget_s * 1e3 {
                    let _ = write!(s, " {:>14}", "skipped");
                    last = Some((tasks, prev_ms * ratio * ratio));
                    continue;
                }
            }
            let mut best = f64::INFINITY;
            let mut spent = 0.0;
            for run in 0..a.repeat {
                let start = Instant::now();
                let plan = planner.plan(&inst.problem, 1 + run as u64);
                let ms = start.elapsed().as_secs_f64() * 1e3;
                std::hint::black_box(plan);
                best = best.min(ms);
                spent += ms;
                if spent > 10_000.0 {
                    break;
                }
            }
            let _ = write!(s, " {:>14.3}", best);
            last = Some((tasks, best));
        }
        let _ = writeln!(s);
    }
    let _ = writeln!(
        s,
        "skipped: the time at the previous size times the squared size ratio exceeds {} s",
        a.budget_s
    );
    Ok(s)
}
