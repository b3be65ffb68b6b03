//! Hostile inputs through the real `spindle` binary (issue 14): every run
//! must end by itself with a clear error (exit 1) or a result (exit 0),
//! never a panic (101) or a signal, within generous time and peak-RSS
//! bounds measured by `wait4`.

mod common;

use std::process::Command;
use std::time::Duration;

use common::scratch_dir;
use spindle_testkit::{run_bounded, ProcessRun, HOSTILE_U64};

/// Runs `spindle args`, bounded; fails on a panic, a signal or a bound.
/// Exit 2 is a usage error from the argument parser (a value out of the
/// flag's type), 1 an error of the command.
fn spindle(args: &[&str], max_rss_mb: u64) -> ProcessRun {
    let r = run_bounded(
        Command::new(env!("CARGO_BIN_EXE_spindle")).args(args),
        Duration::from_secs(120),
    );
    r.assert_bounded(&format!("spindle {}", args.join(" ")), max_rss_mb);
    assert!(
        matches!(r.code, Some(0) | Some(1))
            || (r.code == Some(2) && r.stderr.starts_with("error: invalid value")),
        "spindle {}: exit {:?}; stderr: {}",
        args.join(" "),
        r.code,
        r.stderr
    );
    r
}

/// The error line of a run that must fail.
fn error(args: &[&str], max_rss_mb: u64) -> String {
    let r = spindle(args, max_rss_mb);
    assert_eq!(r.code, Some(1), "spindle {}: {}", args.join(" "), r.stdout);
    r.stderr.trim_end().to_string()
}

fn write(name: &str, body: &str) -> String {
    let p = scratch_dir(&format!("hostile-{name}")).join(name);
    std::fs::write(&p, body).unwrap();
    p.to_str().unwrap().to_string()
}

/// A sparse file of `len` bytes (no disk blocks: only its length is large).
fn sparse(name: &str, len: u64) -> String {
    let p = scratch_dir(&format!("hostile-sparse-{name}")).join(name);
    std::fs::File::create(&p).unwrap().set_len(len).unwrap();
    p.to_str().unwrap().to_string()
}

// Item 7: input files were read whole and unbounded (/dev/zero grew until
// memory ran out, 200 MB took 1.9 GB), and text after the JSON was accepted.
#[test]
fn instance_files_are_read_within_the_limit() {
    let e = error(
        &["plan", "-i", "/dev/zero", "--max-input-bytes", "1000000"],
        64,
    );
    assert_eq!(
        e,
        "spindle: error: instance /dev/zero: over the 1000000-byte limit (--max-input-bytes)"
    );
    // The default limit: read until 512 MiB, not without end.
    let e = error(&["plan", "-i", "/dev/zero"], 1300);
    assert!(
        e.ends_with("over the 536870912-byte limit (--max-input-bytes)"),
        "{e}"
    );
    let big = sparse("big.json", 2 << 30);
    let e = error(&["plan", "-i", &big], 64);
    assert_eq!(
        e,
        format!("spindle: error: instance {big}: 2147483648 bytes, over the 536870912-byte limit (--max-input-bytes)")
    );
    let f = write("trailing.json", r#"{"nodes":[{"host":"a"}]} garbage"#);
    let e = error(&["plan", "-i", &f], 64);
    assert_eq!(
        e,
        format!("spindle: error: instance {f}: after the instance object: trailing characters at line 1 column 26")
    );
}

// Item 14: --splits and --fsck read a 2 GB file whole before the 10 MB check.
#[test]
fn fsck_and_split_files_are_size_checked_first() {
    let big = sparse("big.fsck", 2 << 30);
    let e = error(&["plan", "--fsck", &big], 64);
    assert_eq!(
        e,
        format!("spindle: error: fsck output {big}: 2147483648 bytes, over the 536870912-byte limit (--max-input-bytes)")
    );
    let big = sparse("job.splitmetainfo", 2 << 30);
    let e = error(&["plan", "--splits", &big], 64);
    assert_eq!(
        e,
        format!("spindle: error: split file {big}: 2147483648 bytes, over the 10000000-byte limit (mapreduce.job.split.metainfo.maxsize)")
    );
}

// Items 2, 5, 6 through the binary (a debug build: the bounds are loose).
#[test]
fn planners_stay_fast_on_a_hot_host() {
    let tasks: Vec<String> = (0..30_000)
        .map(|i| format!(r#"{{"id":"t{i}","replicas":["h0"]}}"#))
        .collect();
    let f = write(
        "hot.json",
        &format!(
            r#"{{"nodes":[{{"host":"h0"}},{{"host":"h1"}},{{"host":"h2"}}],"tasks":[{}]}}"#,
            tasks.join(",")
        ),
    );
    for p in ["asm1-comm", "mb", "maestro", "locaware-min"] {
        let r = spindle(&["plan", "-i", &f, "-p", p, "--format", "table"], 512);
        assert_eq!(r.code, Some(0), "{p}: {}", r.stderr);
    }
    let f = write(
        "big-task.json",
        r#"{"nodes":[{"host":"a"},{"host":"b"}],"tasks":[{"id":"t","replicas":["a"],"size":1e9},{"id":"u","replicas":["a"]}]}"#,
    );
    assert_eq!(spindle(&["plan", "-i", &f, "-p", "labl"], 64).code, Some(0));
    let f = write(
        "slots.json",
        r#"{"nodes":[{"host":"a","slots":4294967295}],"tasks":[{"id":"t","replicas":["a"]}]}"#,
    );
    for p in ["asm1", "greedy", "etf", "maestro-comm"] {
        assert_eq!(
            spindle(&["plan", "-i", &f, "-p", p], 64).code,
            Some(0),
            "{p}"
        );
    }
}

// Items 8 to 10 through the binary.
#[test]
fn simulate_refuses_or_finishes() {
    let e = error(&["simulate", "--nodes", "4294967295"], 64);
    assert_eq!(
        e,
        "spindle: error: --nodes 4294967295: more than the limit of 1000000 (--max-nodes)"
    );
    let e = error(&["simulate", "--slots", "4294967295"], 64);
    assert_eq!(
        e,
        "spindle: error: --slots 4294967295: 4294967295 containers per node: must be from 1 to 100000 (the simulator's limit)"
    );
    let f = write(
        "dup.json",
        r#"{"jobs":[{"id":"a","input_mb":100,"profile":"wordcount"},{"id":"a","input_mb":100,"profile":"wordcount"}]}"#,
    );
    let e = error(&["simulate", "--jobs", &f], 64);
    assert_eq!(
        e,
        format!("spindle: error: {f}: jobs[1] (\"a\"): field \"id\" repeats jobs[0]'s id")
    );
    let f = write(
        "huge.json",
        r#"{"jobs":[{"id":"big","input_mb":1e12,"profile":"wordcount"}]}"#,
    );
    let e = error(&["simulate", "--jobs", &f], 64);
    assert!(e.ends_with("the limit (--max-tasks)"), "{e}");
    let f = write("swim-2009.tsv", "job0\t0\t0\t1e18\t0\t0\n");
    let e = error(&["simulate", "--workload", &format!("swim:{f}")], 64);
    assert!(e.ends_with("the limit (--max-tasks)"), "{e}");
    let small = [
        "--nodes",
        "8",
        "--racks",
        "2",
        "--max-jobs",
        "2",
        "-p",
        "asm1",
    ];
    let e = error(
        &[&["simulate", "--network", "bar:1e300"], &small[..]].concat(),
        64,
    );
    assert!(
        e.contains("would pass the simulator's horizon of 100 years: a remote read"),
        "{e}"
    );
    let e = error(
        &[
            &["simulate", "--slow-speed", "1e-300", "--slow-fraction", "1"],
            &small[..],
        ]
        .concat(),
        64,
    );
    assert!(e.contains("at speed 1e-300"), "{e}");
    let r = spindle(
        &[
            &[
                "simulate",
                "--slow-speed",
                "0.001",
                "--slow-fraction",
                "0.5",
            ],
            &small[..],
        ]
        .concat(),
        256,
    );
    assert_eq!(r.code, Some(0), "a slow node is not a stall: {}", r.stderr);
}

// Counts that multiply: repetitions, runs, replicas per task.
#[test]
fn repetition_counts_are_bounded() {
    let f = write(
        "tiny.json",
        r#"{"nodes":[{"host":"a"}],"tasks":[{"id":"t","replicas":["a"]}]}"#,
    );
    // Repetitions stop after 10 s (--repeat 4e9 ran for ever, and its
    // buffer asked for 32 GB).
    let r = spindle(&["bench", "-i", &f, "--repeat", "4294967295"], 128);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.elapsed < Duration::from_secs(60), "{:?}", r.elapsed);
    let e = error(&["demo", "--runs", "4294967295"], 64);
    assert_eq!(
        e,
        "spindle: error: --runs must be from 1 to 1000, got 4294967295"
    );
    let e = error(
        &[
            "generate",
            "--nodes",
            "1000",
            "--tasks",
            "10",
            "--replicas",
            "513",
        ],
        64,
    );
    assert!(
        e.contains("or 512 (the instance limit, HDFS's dfs.replication.max), got 513"),
        "{e}"
    );
    let e = error(
        &[
            "generate",
            "--nodes",
            "1000",
            "--tasks",
            "9000000",
            "--replicas",
            "512",
        ],
        64,
    );
    assert!(e.ends_with("replica entries (the instance limit)"), "{e}");
}

/// Each flag with each integer magnitude: never a panic, an abort or an
/// unbounded run.
#[test]
fn integer_flags_take_any_magnitude() {
    let flags: [(&[&str], &str); 9] = [
        (&["generate", "--tasks", "10"], "--nodes"),
        (&["generate", "--nodes", "5"], "--tasks"),
        (&["generate", "--nodes", "5", "--tasks", "10"], "--replicas"),
        (&["generate", "--nodes", "5", "--tasks", "10"], "--racks"),
        (&["simulate", "--max-jobs", "1", "--racks", "1"], "--nodes"),
        (&["simulate", "--max-jobs", "1", "--nodes", "4"], "--racks"),
        (
            &[
                "simulate",
                "--max-jobs",
                "1",
                "--nodes",
                "4",
                "--racks",
                "1",
            ],
            "--slots",
        ),
        (&["demo", "--runs", "1", "--tasks", "10"], "--nodes"),
        (
            &[
                "bench",
                "--all",
                "--nodes",
                "10",
                "--repeat",
                "1",
                "--budget-s",
                "1",
            ],
            "--tasks",
        ),
    ];
    for (base, flag) in flags {
        for v in HOSTILE_U64 {
            let v = v.to_string();
            let mut args = base.to_vec();
            args.extend([flag, v.as_str()]);
            if args[0] == "simulate" {
                args.extend(["--format", "json", "--no-wall-clock"]);
            }
            let r = spindle(&args, 600);
            if r.code == Some(1) {
                let name = flag.trim_start_matches('-');
                assert!(
                    r.stderr.contains(name)
                        || r.stderr.contains("must be")
                        || r.stderr.contains("limit"),
                    "spindle {}: {}",
                    args.join(" "),
                    r.stderr
                );
            }
        }
    }
}

/// Float flags with each hostile magnitude.
#[test]
fn float_flags_take_any_magnitude() {
    let flags: [(&[&str], &str); 6] = [
        (
            &["generate", "--nodes", "5", "--tasks", "10"],
            "--initial-load",
        ),
        (
            &["generate", "--nodes", "5", "--tasks", "10"],
            "--cost-remote",
        ),
        (
            &[
                "simulate",
                "--max-jobs",
                "1",
                "--nodes",
                "6",
                "--racks",
                "2",
                "--slow-fraction",
                "0.5",
            ],
            "--slow-speed",
        ),
        (
            &[
                "simulate",
                "--max-jobs",
                "1",
                "--nodes",
                "6",
                "--racks",
                "2",
            ],
            "--slow-fraction",
        ),
        (
            &[
                "simulate",
                "--max-jobs",
                "1",
                "--nodes",
                "6",
                "--racks",
                "2",
                "-p",
                "asm1",
                "--network",
            ],
            "",
        ),
        (
            &[
                "bench", "--all", "--nodes", "10", "--tasks", "20", "--repeat", "1",
            ],
            "--initial-load",
        ),
    ];
    for (base, flag) in flags {
        for v in spindle_testkit::HOSTILE_F64 {
            // `--flag=-0e0`: a leading minus must not read as a flag.
            let v = if flag.is_empty() {
                format!("bar:{v:e}")
            } else {
                format!("{flag}={v:e}")
            };
            let mut args = base.to_vec();
            args.push(&v);
            let r = spindle(&args, 600);
            if r.code == Some(1) {
                assert!(!r.stderr.trim().is_empty(), "spindle {}", args.join(" "));
            }
        }
    }
}
