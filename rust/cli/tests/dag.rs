//! `spindle dag-generate`, `dag-plan` and `dag-check` end to end (the FISCH paper),
//! and their errors on bad input.

mod common;
use common::{scratch_dir, spindle, stderr, stdout};

fn s(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn generate_plan_and_check_under_every_policy() {
    let dir = scratch_dir("dag-plan");
    let dc = dir.join("c0.json");
    assert!(
        spindle(&["dag-generate", "--datacentre", "C0", "-o", s(&dc)])
            .status
            .success()
    );
    let mut jobs = Vec::new();
    for (i, schema) in [
        "mapreduce",
        "wavefront",
        "fft",
        "laplace",
        "matrix",
        "forkjoin",
    ]
    .iter()
    .enumerate()
    {
        let p = dir.join(format!("{schema}.json"));
        let mut args = vec![
            "dag-generate",
            "--schema",
            schema,
            "--tasks",
            "60",
            "-o",
            s(&p),
        ];
        if i % 2 == 0 {
            args.push("--uniform");
        }
        let o = spindle(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        jobs.push(p);
    }
    for policy in ["fisch", "blind", "greedy"] {
        let mut args = vec![
            "dag-plan",
            "--datacentre",
            s(&dc),
            "--policy",
            policy,
            "--format",
            "json",
            "--load",
            "0.95",
            "--job",
        ];
        args.extend(jobs.iter().map(|p| s(p)));
        let o = spindle(&args);
        assert!(o.status.success(), "{policy}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let sched = v["schedule"].as_array().unwrap();
        assert!(sched.len() > 300, "{policy}");
        for k in ["job", "task", "node", "start", "end"] {
            assert!(sched[0].get(k).is_some(), "{policy}: no {k}");
        }
        let m = &v["metrics"];
        for k in [
            "makespan",
            "utilisation",
            "plan_ms",
            "per_task_ms",
            "refinements",
        ] {
            assert!(m[k].is_number(), "{policy}: metric {k}");
        }
        let u = m["utilisation"].as_f64().unwrap();
        assert!(u > 0.0 && u <= 1.0, "{policy}: {u}");
        // The independent validator accepts the schedule.
        let sp = dir.join(format!("{policy}.json"));
        std::fs::write(&sp, &o.stdout).unwrap();
        let mut cargs = vec![
            "dag-check",
            "--datacentre",
            s(&dc),
            "--schedule",
            s(&sp),
            "--job",
        ];
        cargs.extend(jobs.iter().map(|p| s(p)));
        let c = spindle(&cargs);
        assert!(c.status.success(), "{policy}: {}", stderr(&c));
        assert!(stdout(&c).starts_with("well formed:"), "{}", stdout(&c));
    }
    // A schedule moved earlier by 1000 s is refused, naming the task.
    let text = std::fs::read_to_string(dir.join("greedy.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let sched = v["schedule"].as_array_mut().unwrap();
    let last = sched.len() - 1;
    let e = &mut sched[last];
    let task = e["task"].as_str().unwrap().to_string();
    e["start"] = (e["start"].as_f64().unwrap() - 1000.0).into();
    e["end"] = (e["end"].as_f64().unwrap() - 1000.0).into();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, v.to_string()).unwrap();
    let mut cargs = vec![
        "dag-check",
        "--datacentre",
        s(&dc),
        "--schedule",
        s(&bad),
        "--job",
    ];
    cargs.extend(jobs.iter().map(|p| s(p)));
    let c = spindle(&cargs);
    assert!(!c.status.success());
    let err = stderr(&c);
    assert!(
        err.contains("not well formed") && err.contains(&format!("{task:?}")),
        "{err}"
    );
}

#[test]
fn bad_inputs_get_clear_errors() {
    let dir = scratch_dir("dag-bad");
    let dc = dir.join("dc.json");
    std::fs::write(
        &dc,
        r#"{"switches":[{"id":"core"},{"id":"l","parent":"core","bandwidth":1e8}],"nodes":[{"host":"h1","switch":"l","speed":1}]}"#,
    )
    .unwrap();
    let cyc = dir.join("cycle.json");
    std::fs::write(
        &cyc,
        r#"{"tasks":[{"id":"a","duration":5},{"id":"b","duration":5}],"edges":[{"from":"a","to":"b","bytes":1},{"from":"b","to":"a","bytes":1}]}"#,
    )
    .unwrap();
    let ok = dir.join("ok.json");
    std::fs::write(&ok, r#"{"tasks":[{"id":"a","duration":5}]}"#).unwrap();
    let neg = dir.join("neg.json");
    std::fs::write(&neg, r#"{"tasks":[{"id":"a","duration":-5}]}"#).unwrap();
    let baddc = dir.join("baddc.json");
    std::fs::write(
        &baddc,
        r#"{"switches":[{"id":"core"}],"nodes":[{"host":"h1","switch":"rack9","speed":1}]}"#,
    )
    .unwrap();
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec![
                "dag-plan",
                "--job",
                s(&cyc),
                "--datacentre",
                s(&dc),
                "--policy",
                "fisch",
            ],
            format!("{}: the edges form a cycle through task", s(&cyc)),
        ),
        (
            vec![
                "dag-plan",
                "--job",
                s(&neg),
                "--datacentre",
                s(&dc),
                "--policy",
                "greedy",
            ],
            "task \"a\": field \"duration\" is -5".to_string(),
        ),
        (
            vec![
                "dag-plan",
                "--job",
                s(&ok),
                "--datacentre",
                s(&baddc),
                "--policy",
                "blind",
            ],
            "host \"h1\": switch \"rack9\" is not a switch".to_string(),
        ),
        (
            vec![
                "dag-plan",
                "--job",
                s(&ok),
                "--datacentre",
                s(&dc),
                "--policy",
                "heft",
            ],
            "unknown DAG policy \"heft\"".to_string(),
        ),
        (
            vec![
                "dag-plan",
                "--job",
                s(&ok),
                "--datacentre",
                s(&dc),
                "--policy",
                "fisch",
                "--quality",
                "fast:1",
            ],
            "quality condition \"fast:1\"".to_string(),
        ),
        (
            vec![
                "dag-plan",
                "--job",
                s(&ok),
                "--datacentre",
                s(&dc),
                "--policy",
                "fisch",
                "--max-input-bytes",
                "10",
            ],
            "--max-input-bytes".to_string(),
        ),
        (
            vec!["dag-generate", "--schema", "tree", "--tasks", "10"],
            "unknown schema \"tree\"".to_string(),
        ),
        (
            vec!["dag-generate", "--datacentre", "C9"],
            "unknown data centre \"C9\"".to_string(),
        ),
    ];
    for (args, want) in cases {
        let o = spindle(&args);
        assert!(!o.status.success(), "{args:?} succeeded");
        let err = stderr(&o);
        assert!(err.contains(&want), "{args:?}: want {want:?} in {err}");
    }
    // A schedule naming a host that is not there.
    let sched = dir.join("s.json");
    std::fs::write(
        &sched,
        r#"{"schedule":[{"job":0,"task":"a","node":"h7","start":0,"end":5}]}"#,
    )
    .unwrap();
    let o = spindle(&[
        "dag-check",
        "--job",
        s(&ok),
        "--datacentre",
        s(&dc),
        "--schedule",
        s(&sched),
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("entry 0: host \"h7\" is not in the data centre"),
        "{}",
        stderr(&o)
    );
}
