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
    // The 40-job mix: its first jobs read gigabytes, so extreme speeds and
    // network costs reach the simulator's horizon.
    let small = [
        "--workload",
        "mixed",
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
        e.ends_with("between 1 and 512 (the instance limit, HDFS's dfs.replication.max), got 513"),
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
                "--workload",
                "mixed",
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
                "--workload",
                "mixed",
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
                "--workload",
                "mixed",
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

/// A raw HTTP server on 127.0.0.1 that answers every request with `status`
/// and a body of `len` spaces, `chunk` bytes a write with `pause` between
/// writes, without a Content-Length; it stops writing when the client hangs up.
fn raw_server(status: u16, len: u64, chunk: usize, pause: Duration) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut conn = conn;
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match conn.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let start = format!(
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
                );
                if conn.write_all(start.as_bytes()).is_err() {
                    return;
                }
                let block = vec![b' '; chunk];
                let mut left = len;
                while left > 0 {
                    let n = left.min(chunk as u64) as usize;
                    if conn.write_all(&block[..n]).is_err() {
                        return;
                    }
                    left -= n as u64;
                    if !pause.is_zero() {
                        let _ = conn.flush();
                        std::thread::sleep(pause);
                    }
                }
            });
        }
    });
    url
}

/// A configuration directory with `spindle-site.xml` (and `core-site.xml`
/// when given) holding these properties.
fn conf_dir(name: &str, spindle: &[(&str, &str)], core: &[(&str, &str)]) -> String {
    let d = scratch_dir(&format!("hostile-conf-{name}"));
    let xml = |props: &[(&str, &str)]| {
        let body: String = props
            .iter()
            .map(|(k, v)| format!("<property><name>{k}</name><value>{v}</value></property>\n"))
            .collect();
        format!("<?xml version=\"1.0\"?>\n<configuration>\n{body}</configuration>\n")
    };
    std::fs::write(d.join("spindle-site.xml"), xml(spindle)).unwrap();
    if !core.is_empty() {
        std::fs::write(d.join("core-site.xml"), xml(core)).unwrap();
    }
    d.to_str().unwrap().to_string()
}

const FSCK: &str = "/in/f 134217728 bytes, replicated: replication=1, 1 block(s):  OK\n0. BP-1:blk_1_1 len=134217728 Live_repl=1  [DatanodeInfoWithStorage[10.0.0.1:9866,DS-a,DISK]]\n";

// Item 11 through `spindle plan --conf-dir`: a topology script that sleeps.
#[test]
fn a_sleeping_topology_script_is_killed() {
    let fsck = write("one.fsck", FSCK);
    let script = write("sleep.sh", "#!/bin/sh\nsleep 600\n");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let d = conf_dir(
        "script",
        &[("spindle.topology.script.timeout", "1s")],
        &[("net.topology.script.file.name", &script)],
    );
    let e = error(&["plan", "--fsck", &fsck, "--conf-dir", &d], 64);
    assert!(e.contains(": still running after "), "{e}");
    assert!(
        e.contains(
            "past the 1000 ms limit (spindle.topology.script.timeout), for hosts 10.0.0.1; killed"
        ),
        "{e}"
    );
}

// Item 15: each file includes the next three times, 16 deep.
#[test]
fn an_xinclude_fan_out_is_refused() {
    let fsck = write("fan.fsck", FSCK);
    let fan = scratch_dir("hostile-fanout");
    for i in 0..16 {
        let inc = format!("<xi:include href=\"f{}.xml\"/>", i + 1);
        std::fs::write(
            fan.join(format!("f{i}.xml")),
            format!("<configuration xmlns:xi=\"http://www.w3.org/2001/XInclude\">{inc}{inc}{inc}</configuration>"),
        )
        .unwrap();
    }
    std::fs::write(fan.join("f16.xml"), "<configuration/>").unwrap();
    std::fs::copy(fan.join("f0.xml"), fan.join("core-site.xml")).unwrap();
    let e = error(
        &["plan", "--fsck", &fsck, "--conf-dir", fan.to_str().unwrap()],
        64,
    );
    assert!(
        e.ends_with("more than 256 includes for one resource (an include fan-out?)"),
        "{e}"
    );
}

// Item 16: a bad spindle.policy names the file, the line and the key.
#[test]
fn a_bad_configured_policy_names_file_and_key() {
    let fsck = write("policy.fsck", FSCK);
    let d = conf_dir("policy", &[("spindle.policy", "lifo")], &[]);
    let e = error(&["plan", "--fsck", &fsck, "--conf-dir", &d], 64);
    assert!(
        e.starts_with(&format!("spindle: error: Hadoop configuration: {d}/spindle-site.xml:3: property spindle.policy: \"lifo\" is not a policy; known policies: asm1,")),
        "{e}"
    );
}

// Item 12 through `spindle plan --webhdfs`: a listing without end.
#[test]
fn an_endless_webhdfs_listing_stops_at_the_depth_limit() {
    use spindle_hadoop::fake_namenode::{sample_namespace, FakeNameNode, Handler, Response};
    // A listing that always holds a directory `x`.
    let h: Handler = std::sync::Arc::new(|r| {
        let dir = serde_json::json!({"pathSuffix": "x", "type": "DIRECTORY", "length": 0});
        match r.op.as_str() {
            "LISTSTATUS" => Some(Response::json(
                200,
                serde_json::json!({"FileStatuses": {"FileStatus": [dir]}}).to_string(),
            )),
            _ => None,
        }
    });
    let nn = FakeNameNode::start(sample_namespace("/in", 1, 1, 3), Some(h)).unwrap();
    let d = conf_dir("depth", &[("spindle.webhdfs.max-depth", "30")], &[]);
    let e = error(
        &[
            "plan",
            "--webhdfs",
            &nn.url(),
            "--path",
            "/in",
            "--conf-dir",
            &d,
        ],
        64,
    );
    assert!(
        e.ends_with("deeper than 30 directory levels under /in (spindle.webhdfs.max-depth)"),
        "{e}"
    );
}

// Item 13: a 2 GB body took 6.3 GB.
#[test]
fn a_huge_webhdfs_body_is_cut_at_the_limit() {
    let url = raw_server(200, 2 << 30, 1 << 16, Duration::ZERO);
    let d = conf_dir("body", &[("spindle.webhdfs.max-response", "4m")], &[]);
    let e = error(
        &["plan", "--webhdfs", &url, "--path", "/in", "--conf-dir", &d],
        64,
    );
    assert!(
        e.ends_with(
            "GETFILESTATUS /in: response larger than 4194304 bytes (spindle.webhdfs.max-response)"
        ),
        "{e}"
    );
}

// Item 13: a server trickling one byte every 100 ms is timed out after the
// request's bound (connect + 5 reads), and the message says how long it
// took; a zero timeout is refused up front.
#[test]
fn webhdfs_timeouts_say_how_long_it_took() {
    let url = raw_server(200, 1000, 1, Duration::from_millis(100));
    let d = conf_dir(
        "trickle",
        &[
            ("spindle.webhdfs.connect-timeout", "300ms"),
            ("spindle.webhdfs.read-timeout", "300ms"),
        ],
        &[],
    );
    let e = error(
        &["plan", "--webhdfs", &url, "--path", "/in", "--conf-dir", &d],
        64,
    );
    let after =
        spindle_testkit::number_after(&e, "timed out after ").unwrap_or_else(|| panic!("{e}"));
    assert!(after >= 1.7, "the time it took, not the read timeout: {e}");
    // A zero timeout is a configuration error, before any request.
    let d = conf_dir("zero", &[("spindle.webhdfs.read-timeout", "0")], &[]);
    let e = error(
        &["plan", "--webhdfs", &url, "--path", "/in", "--conf-dir", &d],
        64,
    );
    assert!(
        e.ends_with("spindle-site.xml:3: property spindle.webhdfs.read-timeout: \"0\" must be longer than 0"),
        "{e}"
    );
}
