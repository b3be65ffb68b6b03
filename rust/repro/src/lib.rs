//! `spindle repro`: reruns the seed papers' experiments with their published
//! setups and prints our figures beside the paper's. One file per paper; this
//! file holds the shared row format, the options and the printers.

//! Spindle's experiments as library code: the seed papers' setups, runs and
//! tables (`spindle repro`), the static demo, `bench --all`, and the charts.
//! One file per paper; this file holds the shared row format, the options,
//! the text table and the error type. The CLI parses arguments and prints.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use indicatif::ProgressBar;
use serde::Serialize;
use spindle_core::CoreError;
use thiserror::Error;

pub mod bar;
pub mod beaumont;
pub mod bench;
pub mod churn;
pub mod demo;
pub mod fisch;
pub mod fisch_static;
pub mod labl;
pub mod plot;
pub mod spc;

/// What goes wrong in an experiment. Messages name the policy or file.
#[derive(Debug, Error)]
pub enum ReproError {
    #[error(transparent)]
    Core(#[from] CoreError),
    #[error(transparent)]
    Dag(#[from] spindle_core::dag::DagError),
    #[error("simulator: {0}")]
    Sim(#[from] spindle_sim::SimError),
    #[error("policy {policy}: {source}")]
    Policy {
        policy: String,
        #[source]
        source: CoreError,
    },
    #[error("policy {policy} returned a bad plan: {problem}")]
    BadPlan { policy: String, problem: String },
    #[error("{0}")]
    Invalid(String),
    #[error("nothing to plot: {0}")]
    NothingToPlot(&'static str),
    /// A drawing call failed; [`ReproError::PlotFile`] adds the file.
    #[error("drawing: {0}")]
    Draw(String),
    #[error("writing plot {}: {message}", path.display())]
    PlotFile { path: PathBuf, message: String },
}

impl<E: std::error::Error + Send + Sync> From<plotters::drawing::DrawingAreaErrorKind<E>>
    for ReproError
{
    fn from(e: plotters::drawing::DrawingAreaErrorKind<E>) -> Self {
        ReproError::Draw(e.to_string())
    }
}

pub type Result<T, E = ReproError> = std::result::Result<T, E>;

/// Names `path` in a drawing error.
pub(crate) fn in_file(path: &Path) -> impl FnOnce(ReproError) -> ReproError + '_ {
    move |e| match e {
        ReproError::Draw(message) => ReproError::PlotFile {
            path: path.to_path_buf(),
            message,
        },
        other => other,
    }
}

/// Which paper's experiments to rerun.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paper {
    /// Beaumont et al.: Sect. 7.2 (homogeneous) and 7.3 (heterogeneous).
    Beaumont,
    /// BAR (Jin et al.): Table IV and the computation-time figure.
    Bar,
    /// LABL (Agosta et al.): Sect. 4.
    Labl,
    /// FISCH (Henzinger et al.; FISCH, BLIND): Sect. 5.1.
    Fisch,
    /// FISCH paper, Sect. 5.2: FISCH's static schedule against hadoop-default.
    FischStatic,
    /// S-PC (Aggarwal et al.): Sect. VI.A (Fig. 4) and VI.B (Fig. 7, 8).
    Spc,
}

/// What every experiment module receives.
pub struct Opts {
    /// Runs per configuration (`None`: the paper's own count).
    pub runs: Option<usize>,
    /// Tiny sizes and few runs: checks that every experiment runs, in seconds.
    pub quick: bool,
    /// Seed of the random instances.
    pub seed: u64,
    /// `repro fisch`: how the generated jobs are shaped.
    pub shapes: spindle_core::dag::generate::Shapes,
    /// `repro fisch`: the quality condition that drives FISCH's and BLIND's
    /// refinement (`None`: makespan within 2x its lower bound).
    pub quality: Option<spindle_core::dag::Quality>,
    /// `repro fisch`: BLIND with delayed allocation (Sect. 4.3).
    pub blind_delayed: bool,
    /// `repro spc`: the models Fig. 4 runs in.
    pub spc_model: spc::Model,
    pub progress: ProgressBar,
}

impl Opts {
    /// The run count: `--runs`, else 2 in quick mode, else the paper's.
    pub fn runs_or(&self, paper_runs: usize) -> usize {
        match (self.runs, self.quick) {
            (Some(n), _) => n.max(1),
            (None, true) => paper_runs.min(2),
            (None, false) => paper_runs,
        }
    }
}

/// One experiment (a table or figure of a paper).
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// e.g. "bar-table-iv".
    pub experiment: String,
    /// Free text printed under the table: deviations from the paper's setup.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub rows: Vec<Row>,
}

/// One (setup, policy) pair: our measured figures and the paper's, where it gives them.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub setup: BTreeMap<String, serde_json::Value>,
    pub policy: String,
    pub ours: BTreeMap<String, f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paper: Option<BTreeMap<String, f64>>,
}

/// Runs every experiment of `paper`.
pub fn run(paper: Paper, opts: &Opts) -> Result<Vec<Report>> {
    let reports = match paper {
        Paper::Bar => bar::run(opts)?,
        Paper::Beaumont => beaumont::run(opts)?,
        Paper::Labl => labl::run(opts)?,
        Paper::Fisch => fisch::run(opts)?,
        Paper::FischStatic => fisch_static::run(opts)?,
        Paper::Spc => spc::run(opts)?,
    };
    opts.progress.finish_and_clear();
    Ok(reports)
}

/// Draws `paper`'s reports as an SVG chart.
pub fn plot(paper: Paper, path: &Path, reports: &[Report]) -> Result<()> {
    match paper {
        Paper::Bar => bar::plot(path, reports),
        Paper::Beaumont => beaumont::plot(path, reports),
        Paper::Labl => labl::plot(path, reports),
        Paper::Fisch => fisch::plot(path, reports),
        Paper::Spc => return Err(ReproError::NothingToPlot("repro spc draws no chart yet")),
        Paper::FischStatic => {
            return Err(ReproError::NothingToPlot(
                "repro fisch-static draws no chart yet",
            ))
        }
    }
    .map_err(in_file(path))
}

/// A report as text: one line per row, setup, policy, then each metric as
/// `ours` or `ours (paper P)`.
pub fn table(report: &Report) -> String {
    let mut out = format!("== {} ==\n", report.experiment);
    for row in &report.rows {
        let setup: Vec<String> = row
            .setup
            .iter()
            .map(|(k, v)| match v {
                serde_json::Value::String(s) => format!("{k}={s}"),
                other => format!("{k}={other}"),
            })
            .collect();
        let _ = write!(out, "{:<32} {:<20}", setup.join(" "), row.policy);
        for (metric, ours) in &row.ours {
            let _ = write!(out, " {metric}={}", fmt_num(*ours));
            if let Some(p) = row.paper.as_ref().and_then(|p| p.get(metric)) {
                let _ = write!(out, " (paper {})", fmt_num(*p));
            }
        }
        out.push('\n');
    }
    for note in &report.notes {
        let _ = writeln!(out, "note: {note}");
    }
    out.push('\n');
    out
}

fn fmt_num(x: f64) -> String {
    if x == x.trunc() && x.abs() < 1e9 {
        format!("{x:.0}")
    } else if x.abs() >= 100.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.3}")
    }
}

/// Shorthand for building a setup map.
pub fn setup<const N: usize>(
    pairs: [(&str, serde_json::Value); N],
) -> BTreeMap<String, serde_json::Value> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// Shorthand for building a metric map.
pub fn metrics<const N: usize>(pairs: [(&str, f64); N]) -> BTreeMap<String, f64> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_puts_the_paper_value_beside_ours() {
        let r = Report {
            experiment: "x".into(),
            notes: vec!["synthetic".into()],
            rows: vec![Row {
                setup: setup([("system", "E1".into()), ("q", 10.into())]),
                policy: "mb".into(),
                ours: metrics([("locality", 0.5)]),
                paper: Some(metrics([("locality", 0.487)])),
            }],
        };
        let t = table(&r);
        assert!(t.contains("q=10 system=E1"), "{t}");
        assert!(t.contains("locality=0.500 (paper 0.487)"), "{t}");
        assert!(t.contains("note: synthetic"), "{t}");
    }
}
