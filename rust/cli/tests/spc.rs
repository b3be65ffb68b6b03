//! S-PC and its baselines through `spindle plan` (seed 002).

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
    assert!(m["lp_cuts"].as_u64().unwrap() >= 1);
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
fn schedule_policies_are_refused_by_the_simulator_by_name() {
    let o = spindle(&["simulate", "-p", "spc", "--nodes", "4"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("policy spc schedules whole jobs on machines of different speeds (seed 002) and runs only in `spindle plan` and `spindle repro spc`"),
        "{}",
        stderr(&o)
    );
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
