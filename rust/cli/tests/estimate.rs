//! `spindle estimate` end to end: a progress file, simulated tasks, bad input.

mod common;

use common::{scratch_dir, spindle, stderr, stdout};

fn write(name: &str, body: &str) -> String {
    let p = scratch_dir(&format!("estimate-{name}")).join("progress.csv");
    std::fs::write(&p, body).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn a_progress_file_gives_estimates_and_errors() {
    // m1: launched at 0, 4 s of start-up, then 0.05 progress a second:
    // reports at 5 (0.05), 8 (0.2), 14 (0.5); finish at 24.
    let f = write(
        "file",
        "task,launch,report,progress\nm1,0,5,0.05\nm2,1,4,0.5\nm1,0,8,0.2\nm1,0,14,0.5\nm1,0,24,1.0\n",
    );
    let o = spindle(&["estimate", "--input", &f, "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let tasks = v["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 2);
    assert_eq!(tasks[0]["task"], "m1");
    // At 14 s: default 14 / 0.5 = 28; corrected 14 + 0.5 * (14 - 5) / 0.45 = 24.
    assert_eq!(tasks[0]["hadoop_default"], 28.0);
    let c = tasks[0]["jvm_corrected"].as_f64().unwrap();
    assert!((c - 24.0).abs() < 1e-9, "{c}");
    assert_eq!(tasks[0]["finish"], 24.0);
    assert_eq!(tasks[1]["fallback"], true);
    assert_eq!(tasks[1]["finish"], serde_json::Value::Null);
    let errors = v["errors"].as_array().unwrap();
    // 10 %: the report at 8 (0.2): default 40, corrected 8 + 0.8 * 20 = 24.
    assert_eq!(errors[0]["progress"], 0.1);
    assert_eq!(errors[0]["hadoop_default_mae"], 16.0);
    assert!(errors[0]["jvm_corrected_mae"].as_f64().unwrap() < 1e-9);
    // 25 % and 50 %: the report at 14: default 28.
    assert_eq!(errors[1]["hadoop_default_mae"], 4.0);
    assert_eq!(errors[2]["hadoop_default_mae"], 4.0);
    assert_eq!(errors[2]["tasks"], 1);

    let o = spindle(&["estimate", "--input", &f]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    assert!(t.contains("hadoop-default"), "{t}");
    assert!(
        t.lines()
            .any(|l| l.trim_start().starts_with("10%") && l.contains("16.00")),
        "{t}"
    );
}

#[test]
fn a_file_without_finishes_has_no_error_table() {
    let f = write("nofinish", "m1,0,5,0.1\nm1,0,8,0.4\n");
    let o = spindle(&["estimate", "-i", &f]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    assert!(t.contains("m1"), "{t}");
    assert!(!t.contains("Mean absolute error"), "{t}");
}

#[test]
fn bad_progress_files_name_file_line_and_task() {
    let cases = [
        (
            "m1,0,5,0.1\nm1,0,6,1.5\n",
            ":2: task \"m1\": progress 1.5 is not in [0, 1]",
        ),
        (
            "m1,0,5,0.1\nm1,0,4,0.2\n",
            ":2: task \"m1\": report time 4 goes back before the previous report at 5",
        ),
        (
            "m1,0,5,nan\n",
            ":1: task \"m1\": progress NaN is not a finite number",
        ),
        (
            "task,launch,report,progress\nm1,0,five,0.1\n",
            ":2: report time \"five\" is not a number",
        ),
        ("m1,0,5\n", ":1: expected 4 columns"),
    ];
    for (i, (body, want)) in cases.iter().enumerate() {
        let f = write(&format!("bad{i}"), body);
        let o = spindle(&["estimate", "--input", &f]);
        assert!(!o.status.success());
        let e = stderr(&o);
        assert!(
            e.starts_with(&format!("spindle: error: {f}{want}")),
            "case {i}: {e}"
        );
    }
    let o = spindle(&["estimate", "--input", "/nonexistent/progress.csv"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("/nonexistent/progress.csv"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn simulated_tasks_score_both_estimators() {
    let o = spindle(&[
        "estimate",
        "--simulate",
        "--tasks",
        "40",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["tasks"], 40);
    assert_eq!(v["startup_min_s"], 1.0);
    assert_eq!(v["startup_max_s"], 5.0);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    for r in rows {
        let d = r["hadoop_default_mae"].as_f64().unwrap();
        let c = r["jvm_corrected_mae"].as_f64().unwrap();
        assert!(d > 0.0 && c <= d, "{r}");
    }
    // From 25 % on, two reports exist: the corrected estimate is exact on
    // linear progress (up to the millisecond clock).
    assert!(rows[1]["jvm_corrected_mae"].as_f64().unwrap() < 0.01);

    // Rates that vary between reports: neither is exact, the corrected one is closer.
    let o = spindle(&[
        "estimate",
        "--simulate",
        "--tasks",
        "40",
        "--jitter",
        "0.5",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["rate_jitter"], 0.5);
    let half = &v["rows"][2];
    let c = half["jvm_corrected_mae"].as_f64().unwrap();
    assert!(
        c > 0.01 && c < half["hadoop_default_mae"].as_f64().unwrap(),
        "{half}"
    );

    let o = spindle(&["estimate", "--simulate", "--tasks", "40"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("JVM start-up uniform in 1-5 s"),
        "{}",
        stdout(&o)
    );

    for (args, want) in [
        (
            vec!["--startup", "5-1"],
            "--startup \"5-1\": the minimum is above the maximum",
        ),
        (
            vec!["--startup", "1-x"],
            "--startup \"1-x\": \"x\" is not a number of seconds",
        ),
        (
            vec!["--interval", "0"],
            "--interval: must be at least 0.001 s",
        ),
        (
            vec!["--jitter", "1"],
            "estimate: rate jitter 1 must be in [0, 1)",
        ),
        (
            vec!["--tasks", "1000000"],
            "estimate: 1000000 tasks; must be from 1 to 100000",
        ),
    ] {
        let mut a = vec!["estimate", "--simulate"];
        a.extend(args);
        let o = spindle(&a);
        assert!(!o.status.success());
        assert!(stderr(&o).contains(want), "{}", stderr(&o));
    }
}

#[test]
fn progress_files_are_bounded() {
    let f = write("bounded", "a,0,1,0.1\nb,0,1,0.1\n");
    let o = spindle(&["estimate", "-i", &f, "--max-tasks", "1"]);
    assert!(!o.status.success());
    assert_eq!(
        stderr(&o).trim_end(),
        format!("spindle: error: {f}:2: task \"b\": more than the limit of 1 tasks")
    );
    let o = spindle(&["estimate", "-i", &f, "--max-input-bytes", "10"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("over the 10-byte limit (--max-input-bytes)"),
        "{}",
        stderr(&o)
    );
    for bad in ["--interval=nan", "--interval=1e308", "--interval=-1"] {
        let o = spindle(&["estimate", "--simulate", bad]);
        assert!(!o.status.success());
        assert!(stderr(&o).contains("--interval"), "{}", stderr(&o));
    }
    let o = spindle(&["estimate", "--help"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("Usage: spindle estimate"));
}

/// Progress reports of the 8 WordCount maps of one loopback-cluster run
/// (Hadoop 3.4.2, `scripts/hadoop-bench --quick --schedulers capacity
/// --estimator jvm-corrected`), taken from the MR AM's syslog: real JVM
/// start-up of about 13 s on a loaded 2-core machine.
#[test]
fn real_loopback_cluster_reports() {
    let f = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/loopback-wordcount-progress.csv"
    );
    let o = spindle(&["estimate", "--input", f, "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["tasks"].as_array().unwrap().len(), 8);
    let want = [(34.84, 23.32), (27.63, 12.72), (5.80, 3.47)];
    for (row, (d, c)) in v["errors"].as_array().unwrap().iter().zip(want) {
        assert_eq!(row["tasks"], 8);
        let (got_d, got_c) = (
            row["hadoop_default_mae"].as_f64().unwrap(),
            row["jvm_corrected_mae"].as_f64().unwrap(),
        );
        assert!(
            (got_d - d).abs() < 0.005 && (got_c - c).abs() < 0.005,
            "{row}"
        );
    }
}
