//! Golden snapshots: what every policy name does in every engine, on a few
//! small seeded instances, pinned before refactors that must keep behaviour
//! (issue 11). One file per policy in `tests/golden/`:
//!
//! - `spindle plan` JSON on two generated instances (or its error, for
//!   heartbeat-only policies), without the wall-clock `plan_ms`;
//! - the offline executor (`PolicyKind::execute`);
//! - the compile-time dispatch (BAR Sect. V.B) of the policies that
//!   have one (hds, ds0.15, ds0.25, gcc);
//! - `spindle simulate --no-wall-clock` JSON on a three-job file, with and
//!   without `--exact-blocks`, and the Session's event and grant log of each
//!   run (`--record-events`).
//!
//! `UPDATE_SNAPSHOTS=1 cargo test -p spindle-cli --test golden` rewrites the
//! files; a mismatch prints a line diff. A changed snapshot must be a
//! deliberate change of behaviour, committed on its own.

mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use common::{scratch_dir, spindle, stderr, stdout};
use serde_json::Value;
use spindle_core::{Instance, PolicyKind};

/// The generated instances: (label, `spindle generate` arguments).
const INSTANCES: [(&str, &[&str]); 2] = [
    (
        "n8-t40-r2",
        &[
            "--nodes", "8", "--tasks", "40", "--racks", "2", "--seed", "4",
        ],
    ),
    (
        "n6-t30-r3-loaded",
        &[
            "--nodes",
            "6",
            "--tasks",
            "30",
            "--racks",
            "3",
            "--seed",
            "7",
            "--initial-load",
            "2",
            "--remote-growth",
            "0.1",
        ],
    ),
];

/// Seeds of the plans and offline runs.
const PLAN_SEED: &str = "3";

/// The simulated runs: (label, extra `spindle simulate` arguments).
const SIMS: [(&str, &[&str]); 2] = [
    ("asks", &["--seed", "1"]),
    ("exact-blocks", &["--seed", "2", "--exact-blocks"]),
];

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Removes wall-clock figures (they differ from run to run).
fn strip_wall_clock(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|k, _| !matches!(k.as_str(), "plan_ms" | "wall_ms" | "decision_ms"));
            m.values_mut().for_each(strip_wall_clock);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_wall_clock),
        _ => {}
    }
}

fn pretty(text: &str) -> String {
    let mut v: Value = serde_json::from_str(text).expect("JSON output");
    strip_wall_clock(&mut v);
    round_floats(&mut v);
    serde_json::to_string_pretty(&v).unwrap()
}

/// Rounds every float to 9 significant digits. `cargo test -p spindle-cli`
/// and `cargo test --workspace` build the binary with different features of
/// shared crates (the LP's float paths), which moves the last bits of a sum.
fn round_floats(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            if let Some(x) = n.as_f64().filter(|x| x.is_finite() && *x != 0.0) {
                let r: f64 = format!("{x:.8e}").parse().unwrap();
                if let Some(m) = serde_json::Number::from_f64(r) {
                    *n = m;
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(round_floats),
        Value::Object(o) => o.values_mut().for_each(round_floats),
        _ => {}
    }
}

fn snapshot(kind: PolicyKind, instances: &[(String, PathBuf)], jobs: &Path, dir: &Path) -> String {
    let name = kind.name();
    let seed: u64 = PLAN_SEED.parse().unwrap();
    let mut s = format!("# policy {name}\n");
    for (label, path) in instances {
        let file = path.to_str().unwrap();
        writeln!(
            s,
            "\n## instance {label}\n\n### spindle plan --seed {PLAN_SEED}"
        )
        .unwrap();
        let o = spindle(&[
            "plan", "-i", file, "-p", name, "--seed", PLAN_SEED, "--format", "json",
        ]);
        if o.status.success() {
            s += &pretty(&stdout(&o));
        } else {
            s += &format!("error: {}", stderr(&o).trim_end().replace(file, "FILE"));
        }
        let inst = Instance::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
        writeln!(s, "\n\n### offline execution, seed {seed}").unwrap();
        match kind.execute(&inst.problem, seed) {
            Some(e) => writeln!(
                s,
                "makespan {:.6}\nnon_local {}\nnode_of {:?}\norder {:?}\nstart {:?}",
                e.makespan,
                e.non_local,
                e.node_of,
                e.order,
                e.start
                    .iter()
                    .map(|t| format!("{t:.4}"))
                    .collect::<Vec<_>>()
            )
            .unwrap(),
            None => s += "none\n",
        }
        writeln!(s, "\n### compile-time dispatch, seed {seed}").unwrap();
        match kind.compile_time(&inst.problem, seed) {
            Some(d) => writeln!(
                s,
                "makespan {:.6}\nskips {}\nnode_of {:?}\norder {:?}\nstart {:?}",
                d.makespan(),
                d.skips,
                d.node_of,
                d.order,
                d.start
                    .iter()
                    .map(|t| format!("{t:.4}"))
                    .collect::<Vec<_>>()
            )
            .unwrap(),
            None => s += "none\n",
        }
    }
    for (label, extra) in SIMS {
        let events = dir.join(format!("{name}-{label}.tsv"));
        let mut args = vec![
            "simulate",
            "--jobs",
            jobs.to_str().unwrap(),
            "--nodes",
            "6",
            "--racks",
            "2",
            "--slots",
            "2",
            "--no-wall-clock",
            "--format",
            "json",
            "-p",
            name,
            "--record-events",
            events.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        writeln!(
            s,
            "\n## simulate {label} ({})\n",
            extra.join(" ").replace("--", "")
        )
        .unwrap();
        let o = spindle(&args);
        if o.status.success() {
            s += &pretty(&stdout(&o));
            writeln!(s, "\n\n### Session events and grants").unwrap();
            s += &std::fs::read_to_string(&events).unwrap();
        } else {
            s += &format!("error: {}\n", stderr(&o).trim_end());
        }
    }
    s
}

/// A line diff (longest common subsequence), changed lines with their line
/// numbers in the expected and actual text, at most `limit` lines.
fn diff(expected: &str, actual: &str, limit: usize) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    // Trim the common prefix and suffix so the table stays small.
    let pre = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a2, b2) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    let mut out = Vec::new();
    if a2.len() * b2.len() > 25_000_000 {
        out.extend(
            a2.iter()
                .enumerate()
                .map(|(i, l)| format!("-{:>5} {l}", pre + i + 1)),
        );
        out.extend(
            b2.iter()
                .enumerate()
                .map(|(i, l)| format!("+{:>5} {l}", pre + i + 1)),
        );
    } else {
        let (n, m) = (a2.len(), b2.len());
        let mut lcs = vec![vec![0u32; m + 1]; n + 1];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                lcs[i][j] = if a2[i] == b2[j] {
                    lcs[i + 1][j + 1] + 1
                } else {
                    lcs[i + 1][j].max(lcs[i][j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < n || j < m {
            if i < n && j < m && a2[i] == b2[j] {
                i += 1;
                j += 1;
            } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
                out.push(format!("-{:>5} {}", pre + i + 1, a2[i]));
                i += 1;
            } else {
                out.push(format!("+{:>5} {}", pre + j + 1, b2[j]));
                j += 1;
            }
        }
    }
    let more = out.len().saturating_sub(limit);
    out.truncate(limit);
    let mut s = out.join("\n");
    if more > 0 {
        write!(s, "\n... {more} more changed lines").unwrap();
    }
    s
}

#[test]
fn every_policy_in_every_engine_matches_its_snapshot() {
    let dir = scratch_dir("golden");
    let instances: Vec<(String, PathBuf)> = INSTANCES
        .iter()
        .map(|(label, args)| {
            let mut all = vec!["generate"];
            all.extend_from_slice(args);
            let o = spindle(&all);
            assert!(o.status.success(), "{}", stderr(&o));
            let path = dir.join(format!("{label}.json"));
            std::fs::write(&path, &o.stdout).unwrap();
            (label.to_string(), path)
        })
        .collect();
    let jobs = golden_dir().join("jobs.json");
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v != "0");
    let mut failures = Vec::new();
    for kind in PolicyKind::ALL {
        let actual = snapshot(kind, &instances, &jobs, &dir);
        let file = golden_dir().join(format!("{}.txt", kind.name()));
        if update {
            std::fs::write(&file, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&file).unwrap_or_default();
        if expected != actual {
            failures.push(format!(
                "{} differs from the run (- snapshot, + now):\n{}",
                file.display(),
                diff(&expected, &actual, 60)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n\n{} of {} policies changed; if on purpose, rerun with UPDATE_SNAPSHOTS=1 and commit the change on its own",
        failures.join("\n\n"),
        failures.len(),
        PolicyKind::ALL.len()
    );
}

#[test]
fn diff_names_changed_lines() {
    let d = diff("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n", 10);
    assert_eq!(d, "-    2 b\n+    2 B\n+    5 e");
    let d = diff(&"x\n".repeat(5), &"y\n".repeat(5), 3);
    assert!(d.ends_with("... 7 more changed lines"), "{d}");
}
