//! S-PC and its baselines: every schedule is feasible (releases, precedence,
//! one task per slot at a time) and S-PC's LP bound lies below every policy's
//! total weighted completion time.

use proptest::prelude::*;
use spindle_core::spc::{JobSet, Outcome};
use spindle_core::{Instance, PolicyKind};

fn instance_text(
    speeds: &[(f64, u32)],
    jobs: &[(f64, f64, Vec<f64>)],
    edges: &[(usize, usize)],
) -> String {
    let nodes: Vec<String> = speeds
        .iter()
        .enumerate()
        .map(|(i, (s, k))| format!(r#"{{"host":"n{i}","speed":{s},"slots":{k}}}"#))
        .collect();
    let js: Vec<String> = jobs
        .iter()
        .enumerate()
        .map(|(j, (w, r, sizes))| {
            let after: Vec<String> = edges
                .iter()
                .filter(|e| e.1 == j)
                .map(|e| format!("\"j{}\"", e.0))
                .collect();
            let tasks: Vec<String> = sizes
                .iter()
                .enumerate()
                .map(|(i, s)| format!(r#"{{"id":"j{j}t{i}","replicas":[],"size":{s}}}"#))
                .collect();
            format!(
                r#"{{"id":"j{j}","weight":{w},"release":{r},"after":[{}],"tasks":[{}]}}"#,
                after.join(","),
                tasks.join(",")
            )
        })
        .collect();
    format!(
        r#"{{"nodes":[{}],"jobs":[{}]}}"#,
        nodes.join(","),
        js.join(",")
    )
}

fn check(inst: &Instance, jobs: &JobSet, o: &Outcome) -> Result<(), String> {
    let s = &o.schedule;
    let p = &inst.problem;
    spindle_core::plan::check_assignment(p, &s.assignment)?;
    let eps = 1e-9;
    for (t, &j) in inst.task_job.iter().enumerate() {
        let j = j as usize;
        let n = s.assignment.node_of[t] as usize;
        let dur = jobs.task_size[t] / p.node_speed[n];
        if (s.end[t] - s.start[t] - dur).abs() > eps * (1.0 + s.end[t]) {
            return Err(format!(
                "task {t}: {}..{} is not {dur} long",
                s.start[t], s.end[t]
            ));
        }
        if s.start[t] < jobs.release[j] - eps {
            return Err(format!("task {t} starts before its release"));
        }
        for &a in jobs.after.row(j) {
            if s.start[t] < s.completion[a as usize] - eps {
                return Err(format!("task {t} starts before predecessor job {a} ends"));
            }
        }
        if s.end[t] > s.completion[j] + eps {
            return Err(format!("task {t} ends after its job"));
        }
    }
    // At most `slots` tasks at once on a node (processing intervals).
    for n in 0..p.num_nodes() {
        let mut ev: Vec<(f64, i64)> = Vec::new();
        for &t in s.assignment.queues.row(n) {
            ev.push((s.start[t as usize], 1));
            ev.push((s.end[t as usize] - eps, -1));
        }
        ev.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut busy = 0;
        for (_, d) in ev {
            busy += d;
            if busy > i64::from(p.node_slots[n]) {
                return Err(format!("node {n} runs more than its slots"));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn every_schedule_is_feasible_and_above_the_lp_bound(
        speeds in proptest::collection::vec((prop::sample::select(vec![1.0, 2.0, 8.0]), 1u32..3), 1..5),
        jobs in proptest::collection::vec(
            (1.0f64..5.0, prop::sample::select(vec![0.0, 0.0, 3.0, 60.0]),
             proptest::collection::vec(0.5f64..4.0, 0..6)), 1..7),
        raw_edges in proptest::collection::vec((0usize..7, 0usize..7), 0..6),
    ) {
        let n = jobs.len();
        let edges: Vec<(usize, usize)> = raw_edges.into_iter()
            .map(|(a, b)| (a % n, b % n)).filter(|(a, b)| a < b).collect();
        let mut edges = edges;
        edges.sort();
        edges.dedup();
        let inst = Instance::from_json(&instance_text(&speeds, &jobs, &edges)).unwrap();
        let js = JobSet::from_instance(&inst);
        let bound = PolicyKind::Spc.job_scheduler().unwrap().schedule(&js, &inst.problem, 1).unwrap()
            .lp.unwrap().objective;
        for k in PolicyKind::job_schedulers() {
            let o = k.job_scheduler().unwrap().schedule(&js, &inst.problem, 7).unwrap();
            check(&inst, &js, &o).map_err(|e| TestCaseError::fail(format!("{}: {e}", k.name())))?;
            let twct = o.schedule.twct(&js);
            prop_assert!(twct >= bound * (1.0 - 1e-6) - 1e-9,
                "{}: twct {twct} below the LP bound {bound}", k.name());
        }
    }
}

#[test]
fn a_cycle_of_predecessors_is_named() {
    let inst = Instance::from_json(&instance_text(
        &[(1.0, 1)],
        &[(1.0, 0.0, vec![1.0]), (1.0, 0.0, vec![1.0])],
        &[],
    ))
    .unwrap();
    let mut js = JobSet::from_instance(&inst);
    js.after = spindle_core::model::Csr::from_rows(vec![vec![1u32], vec![0u32]]);
    for k in PolicyKind::job_schedulers() {
        let e = k
            .job_scheduler()
            .unwrap()
            .schedule(&js, &inst.problem, 0)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "job \"j0\": field \"after\" closes a cycle of predecessors; S-PC needs an acyclic job graph",
            "{}",
            k.name()
        );
    }
}

#[test]
fn huge_slot_counts_cost_nothing() {
    // 4e9 slots a node: nothing is allocated per slot.
    let inst = Instance::from_json(&instance_text(
        &[(1.0, u32::MAX), (8.0, u32::MAX)],
        &[(2.0, 0.0, vec![1.0; 50]), (1.0, 5.0, vec![2.0; 50])],
        &[(0, 1)],
    ))
    .unwrap();
    let js = JobSet::from_instance(&inst);
    for k in PolicyKind::job_schedulers() {
        let o = k
            .job_scheduler()
            .unwrap()
            .schedule(&js, &inst.problem, 0)
            .unwrap();
        check(&inst, &js, &o).unwrap();
    }
}

#[test]
fn spc_beats_fifo_when_a_heavy_job_arrives_first() {
    // A long light job released first, then a short heavy one.
    let inst = Instance::from_json(&instance_text(
        &[(1.0, 1), (8.0, 1)],
        &[(1.0, 0.0, vec![64.0; 4]), (5.0, 0.5, vec![8.0; 2])],
        &[],
    ))
    .unwrap();
    let js = JobSet::from_instance(&inst);
    let twct = |k: PolicyKind| {
        k.job_scheduler()
            .unwrap()
            .schedule(&js, &inst.problem, 0)
            .unwrap()
            .schedule
            .twct(&js)
    };
    assert!(twct(PolicyKind::Spc) < twct(PolicyKind::Fifo));
}

#[test]
fn placement_work_past_the_limit_is_refused_before_it_starts() {
    use spindle_core::model::{Csr, Problem};
    use spindle_core::spc::schedule::{place, Pick, Rules};
    // 70,000 distinct speeds x 60,000 tasks = 4.2e9 steps > 4e9.
    let nodes = 70_000;
    let problem = Problem {
        node_speed: (0..nodes).map(|i| 1.0 + i as f64 * 1e-3).collect(),
        node_slots: vec![1; nodes],
        node_load: vec![0.0; nodes],
        node_rack: vec![0; nodes],
        ..Problem::default()
    };
    let jobs = JobSet {
        ids: vec!["j".into()],
        weight: vec![1.0],
        release: vec![0.0],
        after: Csr::from_rows(vec![Vec::<u32>::new()]),
        tasks: Csr::from_rows(vec![(0..60_000u32).collect::<Vec<_>>()]),
        task_size: vec![1.0; 60_000],
    };
    let e = place(
        &jobs,
        &problem,
        &Rules {
            order: &[0],
            pick: &[Pick::EarliestCompletion],
            believed_speed: None,
            hold_early: false,
            seed: 0,
        },
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "S-PC placement: 60000 tasks x 70000 distinct node speeds is more than the limit of 4000000000 steps"
    );
}
