//! S-PC and its baselines through `spindle plan`.

mod common;
use common::{scratch_dir, spindle, stderr, stdout};

const INSTANCE: &str = r#"{"nodes":[{"host":"fast","speed":8},{"host":"slow1"},{"host":"slow2"}],
 "jobs":[{"id":"wc_map","weight":1,"tasks":[{"id":"m1","replicas":[],"size":64},{"id":"m2","replicas":[],"size":64}]},
         {"id":"wc_red","weight":1,"after":["wc_map"],"tasks":[{"id":"r1","replicas":[],"size":16}]},
         {"id":"hot","weight":5,"release":1,"tasks":[{"id":"h1","replicas":[],"size":32}]}]}"#;

#[test]
fn plan_spc_reports_metrics_and_task_times() {
    let dir = scratch_dir("spc-plan");
    let path = dir.join("i.json");
    std::fs::write(&path, INSTANCE).unwrap();
    let p = path.to_str().unwrap();
    let o = spindle(&["plan", "--policy", "spc", "--input", p]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let m = &v["metrics"];
    let twct = m["twct"].as_f64().unwrap();
    let lb = m["lp_lower_bound"].as_f64().unwrap();
    assert!(lb > 0.0 && lb <= twct + 1e-9, "{m}");
    // Reported; it may be 0: the LP's chain start can hold every tight set.
    assert!(m["lp_cuts"].as_u64().is_some(), "{m}");
    assert!(m["plan_ms"].as_f64().unwrap() >= 0.0);
    // The heavy short job goes first; the reduce after its map.
    assert_eq!(
        v["job_order"],
        serde_json::json!(["hot", "wc_map", "wc_red"])
    );
    let rows = v["assignment"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    let mut sum = 0.0;
    for j in v["jobs"].as_array().unwrap() {
        sum += j["weight"].as_f64().unwrap() * j["completion"].as_f64().unwrap();
    }
    assert!((sum - twct).abs() < 1e-9);
    for r in rows {
        let (s, e) = (r["start"].as_f64().unwrap(), r["end"].as_f64().unwrap());
        assert!(e > s, "{r}");
    }
    // Every baseline plans the same file; FIFO and Identical-machine do worse here.
    let twct_of = |policy: &str| {
        let o = spindle(&["plan", "--policy", policy, "--input", p]);
        assert!(o.status.success(), "{policy}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(v["metrics"]["lp_lower_bound"].is_null() || policy == "spc");
        v["metrics"]["twct"].as_f64().unwrap()
    };
    for policy in ["fifo", "spc-identical", "spc-map-only", "huwf", "tetris"] {
        assert!(twct_of(policy) >= lb, "{policy}");
    }
    assert!(twct_of("fifo") > twct);
    assert!(twct_of("spc-identical") > twct);
    let t = spindle(&["plan", "--policy", "spc", "--input", p, "--format", "table"]);
    assert!(stdout(&t)
        .starts_with("policy spc: 3 jobs, 4 tasks on 3 nodes; total weighted completion time"));
}

#[test]
fn spc_and_its_baselines_run_in_the_simulator() {
    let names = [
        "spc",
        "spc-local",
        "spc-identical",
        "spc-map-only",
        "fifo",
        "huwf",
        "tetris",
    ];
    let mut args = vec!["simulate"];
    for n in names {
        args.extend(["-p", n]);
    }
    args.extend(["--nodes", "8", "--max-jobs", "4", "--no-wall-clock"]);
    let o = spindle(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for name in names {
        let prefix = format!("{name} ");
        assert!(out.lines().any(|l| l.starts_with(&prefix)), "{out}");
    }
}

#[test]
fn a_cycle_of_jobs_is_an_error_naming_the_job() {
    let dir = scratch_dir("spc-cycle");
    let path = dir.join("c.json");
    std::fs::write(
        &path,
        r#"{"nodes":[{"host":"a"}],"jobs":[{"id":"x","after":["y"]},{"id":"y","after":["x"]}]}"#,
    )
    .unwrap();
    let o = spindle(&["plan", "--policy", "spc", "--input", path.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("job \"x\": field \"after\" closes a cycle of predecessors"),
        "{}",
        stderr(&o)
    );
}

/// `spindle repro spc --quick ARGS --format json`: the reports, after
/// checking that their experiments are `names`.
fn repro_spc_json(args: &[&str], names: &[&str]) -> Vec<serde_json::Value> {
    let mut all = vec![
        "repro",
        "spc",
        "--quick",
        "--format",
        "json",
        "--no-progress",
    ];
    all.extend_from_slice(args);
    let o = spindle(&all);
    assert!(o.status.success(), "{}", stderr(&o));
    let reports: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let reports = reports.as_array().unwrap().clone();
    let got: Vec<&str> = reports
        .iter()
        .map(|r| r["experiment"].as_str().unwrap())
        .collect();
    assert_eq!(got, names);
    reports
}

#[test]
fn repro_spc_quick_prints_ours_beside_the_papers() {
    let reports = repro_spc_json(
        &["--model", "schedule"],
        &[
            "spc-fig4a",
            "spc-fig4b",
            "spc-fig4c",
            "spc-fig7",
            "spc-fig8",
        ],
    );
    for r in &reports[..3] {
        let rows = r["rows"].as_array().unwrap();
        // 3 benchmarks x 4 policies, then the best improvement per baseline.
        assert_eq!(rows.len(), 3 * 4 + 3, "{}", r["experiment"]);
        for row in &rows[..12] {
            assert!(row["ours"]["twct_s"].as_f64().unwrap() > 0.0);
        }
        // The paper's Sect. VI.A claim that holds in our model: S-PC is best in
        // every benchmark, so every improvement is non-negative.
        for row in &rows[12..] {
            assert!(
                row["ours"]["spc_improvement_up_to"].as_f64().unwrap() >= 0.0,
                "{row}"
            );
        }
        let notes = r["notes"].as_array().unwrap();
        assert!(notes[0]
            .as_str()
            .unwrap()
            .ends_with("in every benchmark: holds"));
    }
    // The paper's numbers sit beside ours for Fig. 4(a) (Sect. VI.A text).
    let a = reports[0]["rows"].as_array().unwrap();
    let paper: Vec<f64> = a[12..]
        .iter()
        .map(|r| r["paper"]["spc_improvement_up_to"].as_f64().unwrap())
        .collect();
    assert_eq!(paper, [0.62, 0.68, 0.45]);
    for r in &reports[3..] {
        let rows = r["rows"].as_array().unwrap();
        let sweep: Vec<&serde_json::Value> =
            rows.iter().filter(|r| r["paper"].is_object()).collect();
        assert_eq!(sweep.len(), 4, "S-PC, HUWF, Tetris, FIFO");
        assert!(sweep
            .iter()
            .all(|r| r["paper"]["twct_increase_s"].as_f64().unwrap() > 0.0));
    }
    let t = spindle(&[
        "repro",
        "spc",
        "--quick",
        "--model",
        "schedule",
        "--no-progress",
    ]);
    assert!(stdout(&t).contains("spc_improvement_up_to=") && stdout(&t).contains("(paper 0.620)"));
}

#[test]
fn repro_spc_runs_fig4_in_both_models_side_by_side() {
    let reports = repro_spc_json(
        &["--runs", "1"],
        &[
            "spc-fig4a",
            "spc-fig4b",
            "spc-fig4c",
            "spc-fig4a-simulated",
            "spc-fig4b-simulated",
            "spc-fig4c-simulated",
            "spc-fig4-models",
            "spc-fig7",
            "spc-fig8",
        ],
    );
    for r in &reports[3..6] {
        let rows = r["rows"].as_array().unwrap();
        // 3 benchmarks x 6 contenders (S-PC, the paper's three baselines, FIFO
        // and S-PC under the other slow start), then S-PC's best over the five.
        assert_eq!(rows.len(), 3 * 6 + 5, "{}", r["experiment"]);
        let policies: Vec<&str> = rows[..6]
            .iter()
            .map(|r| r["policy"].as_str().unwrap())
            .collect();
        assert_eq!(
            policies,
            [
                "spc",
                "fifo",
                "spc-identical",
                "spc-map-only",
                "fifo slowstart=1",
                "spc slowstart=0.05"
            ]
        );
        for row in &rows[..18] {
            assert!(row["ours"]["twct_s"].as_f64().unwrap() > 0.0, "{row}");
        }
        let notes = r["notes"].as_array().unwrap();
        assert!(notes[0]
            .as_str()
            .unwrap()
            .contains("S-PC has the lowest TWCT of the four in every benchmark: "));
    }
    // Side by side: per figure and baseline, the schedule model's best
    // improvement, then the simulator's, each beside the paper's.
    let models = reports[6]["rows"].as_array().unwrap();
    assert_eq!(models.len(), 3 * 3 * 2);
    let first: Vec<(&str, &str, f64)> = models[..2]
        .iter()
        .map(|r| {
            (
                r["setup"]["model"].as_str().unwrap(),
                r["policy"].as_str().unwrap(),
                r["paper"]["spc_improvement_up_to"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        first,
        [("schedule", "fifo", 0.62), ("simulate", "fifo", 0.62)]
    );
    // The schedule rows repeat the schedule model's own report.
    let best_fifo_a = &reports[0]["rows"].as_array().unwrap()[12];
    assert_eq!(
        models[0]["ours"]["spc_improvement_up_to"],
        best_fifo_a["ours"]["spc_improvement_up_to"]
    );
}

#[test]
fn repro_spc_model_values_are_checked() {
    let o = spindle(&["repro", "spc", "--model", "yarn", "--no-progress"]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("invalid value 'yarn' for '--model <MODEL>'")
            && e.contains("[possible values: schedule, simulate, both]"),
        "{e}"
    );
    let o = spindle(&[
        "repro",
        "bar",
        "--model",
        "simulate",
        "--quick",
        "--no-progress",
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("--model applies to `spindle repro spc` only"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn plan_spc_local_keeps_tasks_on_their_replicas_where_that_finishes_first() {
    let dir = scratch_dir("spc-local-plan");
    let path = dir.join("i.json");
    std::fs::write(
        &path,
        r#"{"nodes":[{"host":"a","rack":"/r1"},{"host":"b","rack":"/r2"}],
            "jobs":[{"id":"j","weight":2,"tasks":[{"id":"t1","replicas":["a"]},{"id":"t2","replicas":["a"]}]}]}"#,
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let locality = |policy: &str| {
        let o = spindle(&["plan", "--policy", policy, "--input", p]);
        assert!(o.status.success(), "{policy}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let m = &v["metrics"];
        assert!(m["lp_lower_bound"].as_f64().unwrap() <= m["twct"].as_f64().unwrap() + 1e-9);
        v["assignment"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["locality"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    // t2 on a ends at 2, on b at 0 + 3 (remote read 3x): it stays local.
    assert_eq!(locality("spc-local"), ["node", "node"]);
    // Plain S-PC sends it to the free node.
    assert_eq!(locality("spc"), ["node", "off-switch"]);
}

#[test]
fn simulate_takes_the_spc_job_order_and_names_a_bad_one() {
    let o = spindle(&[
        "simulate",
        "-p",
        "asm1",
        "--job-order",
        "spc",
        "--nodes",
        "8",
        "--max-jobs",
        "4",
        "--no-wall-clock",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = spindle(&["simulate", "--job-order", "lifo"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("unknown job order \"lifo\": fifo, weighted-remaining, spc"),
        "{}",
        stderr(&o)
    );
}
