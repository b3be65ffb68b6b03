//! End-to-end tests of the real `spindle` binary: generate, plan, demo, bench,
//! and every error path of the instance input (the message names the file and
//! the field).

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

mod common;
use common::{spindle, stderr, stdout};

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spindle-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs `plan` on an instance text and returns the error line.
fn plan_error(name: &str, text: &str) -> String {
    let path = temp_file(name, text);
    let o = spindle(&[
        "plan",
        "--input",
        path.to_str().unwrap(),
        "--policy",
        "asm1",
    ]);
    assert!(!o.status.success(), "plan of {name} should fail");
    assert!(o.stdout.is_empty());
    stderr(&o)
        .trim_end()
        .replace(path.to_str().unwrap(), "FILE")
}

#[test]
fn generate_then_plan_every_policy() {
    let g = spindle(&[
        "generate", "--nodes", "20", "--tasks", "200", "--racks", "2", "--seed", "4",
    ]);
    assert!(g.status.success(), "{}", stderr(&g));
    let path = temp_file("gen.json", &stdout(&g));
    let inst: Value = serde_json::from_str(&stdout(&g)).unwrap();
    assert_eq!(inst["nodes"].as_array().unwrap().len(), 20);
    assert_eq!(inst["tasks"].as_array().unwrap().len(), 200);
    for policy in [
        "asm1",
        "asm1-comm",
        "greedy",
        "greedy-comm",
        "mb",
        "bar",
        "hds",
        "ds0.15",
        "ds0.25",
        "gcc",
    ] {
        let o = spindle(&[
            "plan",
            "-i",
            path.to_str().unwrap(),
            "-p",
            policy,
            "--format",
            "json",
        ]);
        assert!(o.status.success(), "{policy}: {}", stderr(&o));
        let plan: Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(plan["policy"], policy);
        let rows = plan["assignment"].as_array().unwrap();
        assert_eq!(rows.len(), 200);
        let mut tasks: Vec<&str> = rows.iter().map(|r| r["task"].as_str().unwrap()).collect();
        tasks.sort();
        tasks.dedup();
        assert_eq!(tasks.len(), 200, "{policy}: each task exactly once");
        let queued: usize = plan["queues"]
            .as_object()
            .unwrap()
            .values()
            .map(|q| q.as_array().unwrap().len())
            .sum();
        assert_eq!(queued, 200);
        let m = &plan["metrics"];
        for key in [
            "makespan",
            "max_tasks_per_node",
            "non_local",
            "non_local_fraction",
            "rack_local",
            "off_switch",
            "plan_ms",
        ] {
            assert!(m.get(key).is_some(), "{policy}: metrics.{key}");
        }
        let localities: Vec<&str> = rows
            .iter()
            .map(|r| r["locality"].as_str().unwrap())
            .collect();
        assert!(localities
            .iter()
            .all(|l| ["node", "rack", "off-switch"].contains(l)));
        if policy == "asm1" || policy == "greedy" {
            assert_eq!(m["non_local"], 0, "{policy} runs local tasks only");
        }
        if policy == "asm1-comm" {
            assert!(
                m["max_tasks_per_node"].as_u64().unwrap() <= 10,
                "ceil(200/20)"
            );
        }
    }
}

#[test]
fn plan_table_and_seeded_greedy() {
    let path = temp_file(
        "small.json",
        r#"{"nodes":[{"host":"a","rack":"/r1"},{"host":"b","rack":"/r2"}],
            "tasks":[{"id":"t1","replicas":["a"]},{"id":"t2","replicas":["a"]},{"id":"t3","replicas":["a","b"]}],
            "cost":{"local":1,"remote":3}}"#,
    );
    let o = spindle(&[
        "plan",
        "-i",
        path.to_str().unwrap(),
        "-p",
        "asm1",
        "--format",
        "table",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with(
            "policy asm1: 3 tasks on 2 nodes; makespan 2.000, max 2 tasks/node, non-local 0"
        ),
        "{text}"
    );
    assert!(text.contains("\nb "));
    let run = |seed: &str| {
        stdout(&spindle(&[
            "plan",
            "-i",
            path.to_str().unwrap(),
            "-p",
            "greedy-comm",
            "--seed",
            seed,
        ]))
    };
    let strip = |s: String| s.split("\"plan_ms\"").next().unwrap().to_string();
    assert_eq!(strip(run("5")), strip(run("5")), "same seed, same plan");
}

#[test]
fn demo_prints_both_sides() {
    let o = spindle(&["demo", "--tasks", "100,500", "--runs", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("MAKESPAN-ORIENTED"));
    assert!(text.contains("COMM-ORIENTED"));
    assert!(text.contains("ASM1 makespan"));
    let rows = text
        .lines()
        .filter(|l| l.trim_start().starts_with("500 "))
        .count();
    assert_eq!(rows, 2, "{text}");
}

#[test]
fn bench_reports_optimum_and_times() {
    let g = spindle(&[
        "generate", "--nodes", "30", "--tasks", "600", "--racks", "3",
    ]);
    let path = temp_file("bench.json", &stdout(&g));
    let o = spindle(&["bench", "-i", path.to_str().unwrap(), "--repeat", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["tasks"], 600);
    assert_eq!(v["edges"], 1800);
    assert!(v["max_tasks_per_node"].as_u64().unwrap() >= 20);
    assert!(v["best_ms"].as_f64().unwrap() >= 0.0);
}

#[test]
fn help_everywhere() {
    for cmd in [
        vec!["--help"],
        vec!["generate", "--help"],
        vec!["plan", "--help"],
        vec!["demo", "--help"],
        vec!["bench", "--help"],
    ] {
        let o = spindle(&cmd);
        assert!(o.status.success());
        assert!(stdout(&o).contains("Usage: spindle"), "{cmd:?}");
    }
}

#[test]
fn input_errors_name_the_file_and_the_field() {
    let o = spindle(&["plan", "--input", "/nonexistent/inst.json"]);
    assert_eq!(
        stderr(&o).trim_end(),
        "spindle: error: instance /nonexistent/inst.json: cannot read: No such file or directory (os error 2)"
    );
    assert_eq!(
        plan_error("syntax.json", "{\"nodes\": [}"),
        "spindle: error: instance FILE: field nodes[0]: expected value at line 1 column 12"
    );
    assert_eq!(
        plan_error("type.json", r#"{"nodes":[{"host":"a","slots":"two"}]}"#),
        "spindle: error: instance FILE: field nodes[0].slots: invalid type: string \"two\", expected u32 at line 1 column 35"
    );
    assert_eq!(
        plan_error(
            "missing.json",
            r#"{"nodes":[{"host":"a"}],"tasks":[{"replicas":["a"]}]}"#
        ),
        "spindle: error: instance FILE: field tasks[0]: missing field `id` at line 1 column 51"
    );
    assert_eq!(
        plan_error("host.json", r#"{"nodes":[{"host":"a"}],"tasks":[{"id":"t7","replicas":["a","dn9"]}]}"#),
        "spindle: error: instance FILE: task \"t7\" names replica host \"dn9\", which is not in \"nodes\""
    );
    assert_eq!(
        plan_error("speed.json", r#"{"nodes":[{"host":"a","speed":-1}]}"#),
        "spindle: error: instance FILE: nodes[0] (host \"a\"): field \"speed\" must be a number from 1e-6 to 1e6 (the instance limits), got -1"
    );
    assert_eq!(
        plan_error("cost.json", r#"{"nodes":[{"host":"a"}],"cost":{"local":"x"}}"#),
        "spindle: error: instance FILE: field cost.local: invalid type: string \"x\", expected f64 at line 1 column 43"
    );
    assert_eq!(
        plan_error("after.json", r#"{"nodes":[{"host":"a"}],"jobs":[{"id":"j1","after":["j0"]}]}"#),
        "spindle: error: instance FILE: job \"j1\": field \"after\" names \"j0\", which is not a job id"
    );
    assert_eq!(
        plan_error("empty.json", r#"{"nodes":[]}"#),
        "spindle: error: instance FILE: instance has no nodes (field \"nodes\" is empty)"
    );
    let path = temp_file("ok.json", r#"{"nodes":[{"host":"a"}]}"#);
    // `fifo` is a job scheduler now (S-PC's baseline); `lifo` is unknown.
    let o = spindle(&["plan", "-i", path.to_str().unwrap(), "-p", "lifo"]);
    assert_eq!(
        stderr(&o).trim_end(),
        format!(
            "spindle: error: unknown policy \"lifo\"; known policies: {}",
            spindle_core::PolicyKind::ALL.map(|p| p.name()).join(", ")
        )
    );
    let o = spindle(&[
        "generate",
        "--nodes",
        "2",
        "--tasks",
        "5",
        "--replicas",
        "3",
    ]);
    assert_eq!(
        stderr(&o).trim_end(),
        "spindle: error: generate: --replicas must be between 1 and --nodes (2), got 3"
    );
}

#[test]
fn closed_pipe_is_not_an_error() {
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{}' demo --runs 1 | head -1",
            env!("CARGO_BIN_EXE_spindle")
        ))
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(stdout(&o).starts_with("Spindle demo:"));
    assert_eq!(stderr(&o), "", "no panic on a closed pipe");
}

#[test]
fn simulate_task_choice_runs_both_ways_and_names_a_bad_value() {
    for choice in ["mapreduce", "planned"] {
        let o = spindle(&[
            "simulate",
            "--workload",
            "mixed",
            "--exact-blocks",
            "--nodes",
            "20",
            "--max-jobs",
            "3",
            "-p",
            "asm1",
            "--task-choice",
            choice,
            "--no-wall-clock",
        ]);
        assert!(o.status.success(), "{choice}: {}", stderr(&o));
    }
    let o = spindle(&["simulate", "--task-choice", "told"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("unknown task choice \"told\": mapreduce, planned"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn simulate_json_is_reproducible_and_plots() {
    let plot = std::env::temp_dir().join(format!("spindle-sim-{}.svg", std::process::id()));
    let args = [
        "simulate",
        "--nodes",
        "20",
        "--racks",
        "2",
        "--slots",
        "4",
        "--max-jobs",
        "4",
        "-p",
        "hadoop-default",
        "-p",
        "asm1",
        "--format",
        "json",
        "--no-wall-clock",
        "--seed",
        "9",
    ];
    let a = spindle(&args);
    assert!(a.status.success(), "{}", stderr(&a));
    let b = spindle(&args);
    assert_eq!(a.stdout, b.stdout, "same seed, byte-identical JSON");
    let v: Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(v["seed"], 9);
    let policies = v["policies"].as_array().unwrap();
    assert_eq!(policies.len(), 2);
    assert_eq!(policies[0]["policy"], "hadoop-default");
    assert_eq!(policies[1]["policy"], "asm1");
    for p in policies {
        let m = &p["metrics"];
        for key in [
            "makespan_s",
            "node_local",
            "rack_local",
            "off_switch",
            "twct",
            "utilization",
            "events",
        ] {
            assert!(m.get(key).is_some(), "metrics.{key}");
        }
        assert!(m.get("wall_ms").is_none());
        let jobs = p["jobs"].as_array().unwrap();
        assert_eq!(jobs.len(), 4);
        for key in ["id", "submit_s", "finish_s", "maps", "reduces"] {
            assert!(jobs[0].get(key).is_some(), "jobs[0].{key}");
        }
    }
    let o = spindle(&[
        "simulate",
        "--nodes",
        "20",
        "--racks",
        "2",
        "--max-jobs",
        "2",
        "--plot",
        plot.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("Job completion time"));
    assert!(stdout(&o).contains("hadoop-default"));
}

#[test]
fn simulate_explain_names_why_a_job_waited() {
    let args = [
        "simulate",
        "--workload",
        "mixed",
        "--nodes",
        "20",
        "--racks",
        "2",
        "--max-jobs",
        "6",
        "-p",
        "asm1",
        "--no-wall-clock",
        "--explain",
        "job_0005",
    ];
    let o = spindle(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let why = out
        .split("why job_0005 waited under asm1:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{out}"));
    // Submitted while four jobs ran: the job order served them first.
    assert!(
        why.contains("job-order        the job order put another application first"),
        "{why}"
    );
    let json = spindle(&[&args[..], &["--format", "json"]].concat());
    let v: Value = serde_json::from_slice(&json.stdout).unwrap();
    let e = &v["explain"][0];
    assert_eq!(e["policy"], "asm1");
    let acts = e["activities"]["activities"].as_array().unwrap();
    assert!(!acts.is_empty() && acts.iter().all(|a| a["app"] == "job_0005"));
    let o = spindle(&[
        "simulate",
        "--workload",
        "mixed",
        "--max-jobs",
        "2",
        "--explain",
        "job_9",
    ]);
    assert_eq!(
        stderr(&o).trim_end(),
        "spindle: error: --explain \"job_9\": no job of that id in the workload (its jobs are job_0001 to job_0002)"
    );
}

#[test]
fn simulate_errors_name_the_input() {
    let o = spindle(&["simulate", "--workload", "pi"]);
    assert_eq!(
        stderr(&o).trim_end(),
        "spindle: error: unknown workload \"pi\"; use fb2009-6h, wordcount, terasort, mixed, swim:FILE, sls:FILE or rumen:FILE"
    );
    let o = spindle(&["simulate", "--network", "bar:x"]);
    assert_eq!(
        stderr(&o).trim_end(),
        "spindle: error: --network must be `uplink`, `flat` or `bar:Q` with Q a finite number >= 0 of milliseconds, got \"bar:x\""
    );
    let jobs = temp_file(
        "jobs.json",
        r#"{"jobs":[{"id":"a","input_mb":0,"profile":"wordcount"}]}"#,
    );
    let o = spindle(&["simulate", "--jobs", jobs.to_str().unwrap()]);
    assert_eq!(
        stderr(&o)
            .trim_end()
            .replace(jobs.to_str().unwrap(), "FILE"),
        "spindle: error: FILE: jobs[0] (\"a\"): field \"input_mb\" must be a positive number up to 1e12 (an exabyte), got 0"
    );
    let swim = temp_file("bad.tsv", "job0\t0\t0\t1\t2\n");
    let o = spindle(&[
        "simulate",
        "--workload",
        &format!("swim:{}", swim.display()),
    ]);
    assert_eq!(
        stderr(&o)
            .trim_end()
            .replace(swim.to_str().unwrap(), "FILE"),
        "spindle: error: FILE, line 1: expected at least 6 tab-separated fields, found 5"
    );
    let o = spindle(&["plan", "-i", "/dev/null", "-p", "hadoop-default"]);
    assert_eq!(
        stderr(&o).trim_end(),
        "spindle: error: policy hadoop-default decides at heartbeats and has no offline plan; run it in `spindle simulate`"
    );
}

#[test]
fn repro_bar_quick_prints_table_iv_and_times() {
    let o = spindle(&[
        "repro",
        "bar",
        "--quick",
        "--no-progress",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let reports: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let table = &reports[0];
    assert_eq!(table["experiment"], "bar-table-iv");
    let rows = table["rows"].as_array().unwrap();
    // 3 conditions x 3 systems x 6 policies.
    assert_eq!(rows.len(), 54);
    for row in rows {
        let ours = &row["ours"];
        let loc = ours["locality"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&loc), "{row}");
        let ratio = ours["makespan_ratio"].as_f64().unwrap();
        if row["policy"] == "bar" {
            assert_eq!(ratio, 1.0);
        }
        assert!(ratio > 0.0, "{row}");
    }
    assert_eq!(rows[0]["setup"]["q"], 10);
    assert_eq!(rows[0]["setup"]["W"], 40);
    assert_eq!(reports[1]["experiment"], "bar-fig9-computation-time");
    assert_eq!(reports[1]["rows"].as_array().unwrap().len(), 3 * 6);
}

#[test]
fn repro_bar_plots_an_svg() {
    let dir = std::env::temp_dir().join(format!("spindle-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("bar.svg");
    let o = spindle(&[
        "repro",
        "bar",
        "--quick",
        "--runs",
        "1",
        "--no-progress",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("== bar-table-iv =="));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"), "{}", &text[..text.len().min(80)]);
    assert!(text.contains("makespan / BAR"));
}

#[test]
fn bench_all_times_every_planner() {
    let o = spindle(&[
        "bench",
        "--all",
        "--nodes",
        "20",
        "--tasks",
        "50,100",
        "--repeat",
        "1",
        "--network-factor",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for policy in ["asm1", "mb", "bar", "hds", "ds0.15", "ds0.25", "gcc"] {
        assert!(
            out.lines()
                .any(|l| l.split_whitespace().next() == Some(policy)),
            "{policy} missing:\n{out}"
        );
    }
    assert!(!out.contains("hadoop-default"), "{out}");
    assert!(out.contains("growth 1"), "{out}");
}

#[test]
fn bench_all_errors_name_the_input() {
    let o = spindle(&["bench", "--all", "--nodes", "0", "--tasks", "10"]);
    assert!(!o.status.success());
    assert_eq!(
        stderr(&o).trim_end(),
        "spindle: error: generate: --nodes must be at least 1"
    );
    let o = spindle(&["bench"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--input"), "{}", stderr(&o));
}

/// The `--jobs 20` row of `spindle bench --spc` with `extra` arguments, split.
fn bench_spc_row(extra: &[&str]) -> Vec<String> {
    let mut args = vec!["bench", "--spc", "--jobs", "20", "--repeat", "1"];
    args.extend_from_slice(extra);
    let o = spindle(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    out.lines()
        .find(|l| l.trim_start().starts_with("20 "))
        .unwrap_or_else(|| panic!("no row for 20 jobs in {out}"))
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

#[test]
fn bench_spc_times_the_cold_cutting_planes_unless_cold_up_to_is_below_the_size() {
    // jobs, mr jobs, tasks, lp ms, cuts, objective, cold lp ms, cuts, objective, ...
    let row = bench_spc_row(&[]);
    let (lp, cold): (f64, f64) = (row[5].parse().unwrap(), row[8].parse().unwrap());
    assert!((lp - cold).abs() <= 1e-8 * cold, "lp {lp} vs cold {cold}");
    let row = bench_spc_row(&["--cold-up-to", "0"]);
    assert_eq!(&row[6..9], ["-", "-", "-"], "{row:?}");
    assert_eq!(row[5].parse::<f64>().unwrap(), lp);
}

#[test]
fn bench_spc_map_only_puts_the_greedy_beside_the_cutting_planes() {
    let o = spindle(&[
        "bench",
        "--spc",
        "--map-only",
        "--jobs",
        "40",
        "--repeat",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let row: Vec<&str> = out
        .lines()
        .find(|l| l.trim_start().starts_with("40 "))
        .unwrap_or_else(|| panic!("no row for 40 jobs in {out}"))
        .split_whitespace()
        .collect();
    // jobs, mr jobs, lp jobs, greedy ms, objective, cutting planes ms, objective
    assert_eq!(row.len(), 7, "{out}");
    assert_eq!(&row[..3], ["40", "20", "20"]);
    let (greedy, planes): (f64, f64) = (row[4].parse().unwrap(), row[6].parse().unwrap());
    assert!(
        (greedy - planes).abs() <= 1e-5 * planes,
        "greedy {greedy} vs cutting planes {planes}"
    );
    let o = spindle(&["bench", "--spc", "--map-only", "--jobs", "20001"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("--jobs 20001: with --map-only each count must be from 2 to 20000"),
        "{}",
        stderr(&o)
    );
    let o = spindle(&["bench", "--map-only", "--jobs", "20"]);
    assert!(!o.status.success(), "--map-only needs --spc");
}

#[test]
fn simulate_load_scales_arrivals_and_reports_the_utilisation_reached() {
    // The shipped FB-2009 hours as a plain SWIM file: their recorded times.
    let swim = concat!(env!("CARGO_MANIFEST_DIR"), "/../sim/data/fb2009-6h.tsv");
    let workload = format!("swim:{swim}");
    let args = [
        "simulate",
        "--workload",
        &workload,
        "--max-jobs",
        "50",
        "--nodes",
        "20",
        "-p",
        "hadoop-default",
        "--no-wall-clock",
        "--format",
        "json",
    ];
    let light = spindle(&args);
    assert!(light.status.success(), "{}", stderr(&light));
    let mut loaded_args = args.to_vec();
    loaded_args.extend(["--load", "0.8"]);
    let loaded = spindle(&loaded_args);
    assert!(loaded.status.success(), "{}", stderr(&loaded));
    let util = |o: &std::process::Output| {
        let v: serde_json::Value = serde_json::from_str(&stdout(o)).unwrap();
        v["policies"][0]["metrics"]["utilization"].as_f64().unwrap()
    };
    let v: serde_json::Value = serde_json::from_str(&stdout(&loaded)).unwrap();
    assert_eq!(v["load"]["target"], 0.8);
    assert!(v["load"]["factor"].as_f64().unwrap() < 1.0, "{v}");
    assert!(
        util(&loaded) > 2.0 * util(&light),
        "compressed arrivals keep the cluster busier: {} vs {}",
        util(&loaded),
        util(&light)
    );
    let bad = spindle(&["simulate", "--load", "1.5", "--max-jobs", "2"]);
    assert_eq!(
        stderr(&bad).trim_end(),
        "spindle: error: --load must be a number in (0, 1], got 1.5"
    );
}
