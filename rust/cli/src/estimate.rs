//! `spindle estimate`: the progress estimators on a progress file or on
//! simulated tasks (argument parsing and printing only).

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use spindle_core::estimate::{ErrorRow, ProgressLog, TaskEstimate, ERROR_POINTS};
use spindle_sim::{estimator_errors, EstimateSetup};

use crate::{Format, Limits};

#[derive(Args)]
pub struct EstimateArgs {
    /// Progress file (CSV: task, launch time, report time, progress; times in
    /// seconds; header line optional; a task's progress-1.0 row is its finish).
    #[arg(
        long,
        short,
        required_unless_present = "simulate",
        conflicts_with = "simulate"
    )]
    input: Option<PathBuf>,
    /// Score both estimators on simulated WordCount maps instead.
    #[arg(long)]
    simulate: bool,
    /// With --simulate: maps to simulate.
    #[arg(long, default_value_t = 400)]
    tasks: usize,
    /// With --simulate: JVM start-up range in seconds, uniform (MIN-MAX).
    #[arg(long, default_value = "1-5", value_name = "MIN-MAX")]
    startup: String,
    /// With --simulate: progress report interval in seconds (the MR task reporter's 3).
    #[arg(long, default_value_t = 3.0, value_name = "S")]
    interval: f64,
    /// With --simulate: each map's rate between reports varies uniformly in
    /// [1 - J, 1 + J] times its mean (0: progress linear after start-up).
    #[arg(long, default_value_t = 0.0, value_name = "J")]
    jitter: f64,
    /// With --simulate: random seed (placement, heartbeats, start-up times).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

/// Seconds as whole milliseconds, for a flag in [0, 3600] s.
fn ms(flag: &str, s: f64) -> Result<u64> {
    if !(0.0..=3600.0).contains(&s) {
        bail!("{flag}: {s} s is not in [0, 3600]");
    }
    Ok((s * 1000.0).round() as u64)
}

fn parse_startup(text: &str) -> Result<(u64, u64)> {
    let (lo, hi) = text.split_once('-').unwrap_or((text, text));
    let num = |t: &str| {
        t.trim()
            .parse::<f64>()
            .with_context(|| format!("--startup {text:?}: {t:?} is not a number of seconds"))
    };
    let (lo, hi) = (ms("--startup", num(lo)?)?, ms("--startup", num(hi)?)?);
    if lo > hi {
        bail!("--startup {text:?}: the minimum is above the maximum");
    }
    Ok((lo, hi))
}

pub fn run(a: &EstimateArgs, limits: &Limits) -> Result<String> {
    match &a.input {
        Some(path) => from_file(a, path, limits),
        None => simulated(a),
    }
}

fn simulated(a: &EstimateArgs) -> Result<String> {
    let (startup_min_ms, startup_max_ms) = parse_startup(&a.startup)?;
    let progress_ms = ms("--interval", a.interval)?;
    if progress_ms == 0 {
        bail!("--interval: must be at least 0.001 s");
    }
    let run = estimator_errors(&EstimateSetup {
        tasks: a.tasks,
        startup_min_ms,
        startup_max_ms,
        progress_ms,
        rate_jitter: a.jitter,
        seed: a.seed,
    })?;
    Ok(match a.format {
        Format::Json => format!("{}\n", serde_json::to_string_pretty(&run)?),
        Format::Table => {
            let mut out = format!(
                "{} simulated WordCount maps (mean {:.1} s from launch to finish), JVM start-up uniform in {}-{} s, progress every {} s, rate jitter {}, seed {}\n",
                run.tasks,
                run.mean_task_s,
                run.startup_min_s,
                run.startup_max_s,
                run.progress_interval_s,
                run.rate_jitter,
                run.seed
            );
            out.push_str(&error_table(&run.rows));
            out
        }
    })
}

fn from_file(a: &EstimateArgs, path: &std::path::Path, limits: &Limits) -> Result<String> {
    let text = spindle_hadoop::input::read_text_bounded(
        path,
        limits.max_input_bytes,
        "progress file",
        "--max-input-bytes",
    )?;
    let log = ProgressLog::parse(&path.display().to_string(), &text, limits.max_tasks)?;
    let estimates = log.estimates();
    let errors = log.errors(&ERROR_POINTS)?;
    Ok(match a.format {
        Format::Json => {
            let v = serde_json::json!({ "tasks": estimates, "errors": errors });
            format!("{}\n", serde_json::to_string_pretty(&v)?)
        }
        Format::Table => {
            let mut out = task_table(&estimates);
            if let Some(rows) = errors {
                out.push('\n');
                out.push_str(&error_table(&rows));
            }
            out
        }
    })
}

fn opt(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{x:.2}"))
}

fn task_table(est: &[TaskEstimate]) -> String {
    let mut out = format!(
        "{:<24} {:>10} {:>7} {:>11} {:>8} {:>15} {:>14} {:>10}\n",
        "task",
        "launch",
        "reports",
        "last report",
        "progress",
        "hadoop-default",
        "jvm-corrected",
        "finish"
    );
    for e in est {
        let _ = writeln!(
            out,
            "{:<24} {:>10.2} {:>7} {:>11} {:>8} {:>15} {:>14}{} {:>10}",
            e.task,
            e.launch,
            e.reports,
            opt(e.last_report.map(|r| r.at)),
            e.last_report
                .map_or("-".into(), |r| format!("{:.3}", r.progress)),
            opt(e.hadoop_default),
            opt(e.jvm_corrected),
            if e.fallback { "*" } else { " " },
            opt(e.finish)
        );
    }
    if est.iter().any(|e| e.fallback) {
        out.push_str("* one report only: the corrected estimator answers as Hadoop's default\n");
    }
    out
}

fn error_table(rows: &[ErrorRow]) -> String {
    let mut out = String::from(
        "Mean absolute error of the predicted completion time (s), taken at the first report at or past each progress point\n",
    );
    let _ = writeln!(
        out,
        "{:>8} {:>6} {:>15} {:>14} {:>13} {:>15} {:>9}",
        "progress",
        "tasks",
        "hadoop-default",
        "jvm-corrected",
        "default bias",
        "corrected bias",
        "fallback"
    );
    let f = |x: f64| {
        if x.is_finite() {
            // No "-0.00" for an exact estimate a rounding error early.
            format!("{:.2}", if x.abs() < 0.005 { 0.0 } else { x })
        } else {
            "-".into()
        }
    };
    for r in rows {
        let _ = writeln!(
            out,
            "{:>7.0}% {:>6} {:>15} {:>14} {:>13} {:>15} {:>9}",
            r.progress * 100.0,
            r.tasks,
            f(r.hadoop_default_mae),
            f(r.jvm_corrected_mae),
            f(r.hadoop_default_bias),
            f(r.jvm_corrected_bias),
            r.fallback
        );
    }
    out.push_str("fallback: tasks whose corrected estimate had one report only (it then answers as Hadoop's default)\n");
    out
}
