//! Helpers shared by the CLI's end-to-end tests (each test file is its own
//! crate and uses a subset, hence the allow).
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the real `spindle` binary.
pub fn spindle(args: &[&str]) -> Output {
    spindle_with_env(args, &[])
}

/// Runs the real `spindle` binary with extra environment variables.
pub fn spindle_with_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("running the spindle binary")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh scratch directory for one test, unique per process.
pub fn scratch_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("spindle-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `spindle repro PAPER --quick --format json --plot FILE.svg`; returns
/// the reports, the names of their experiments and the SVG path.
pub fn repro_quick(paper: &str) -> (Vec<serde_json::Value>, Vec<String>, PathBuf) {
    let svg = scratch_dir(&format!("repro-{paper}")).join(format!("{paper}.svg"));
    let svg_arg = svg.to_str().expect("a UTF-8 temp path");
    let o = spindle(&[
        "repro",
        paper,
        "--quick",
        "--format",
        "json",
        "--no-progress",
        "--plot",
        svg_arg,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let reports: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let reports = reports.as_array().unwrap().clone();
    let names = reports
        .iter()
        .map(|r| r["experiment"].as_str().unwrap().to_string())
        .collect();
    (reports, names, svg)
}
