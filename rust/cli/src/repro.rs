//! `spindle repro`: arguments, the progress bar and the output format; the
//! experiments themselves are in `spindle-repro`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use spindle_core::dag::generate::Shapes;
use spindle_core::dag::Quality;
use spindle_repro::{Opts, Paper};

/// Which paper's experiments to rerun.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PaperArg {
    /// Beaumont et al.: Sect. 7.2 (homogeneous) and 7.3 (heterogeneous).
    Beaumont,
    /// BAR (Jin et al.): Table IV and the computation-time figure.
    Bar,
    /// LABL (Agosta et al.): Sect. 4.
    Labl,
    /// FISCH (Henzinger et al.; FISCH, BLIND): Sect. 5.1, Tables 1 and 2.
    Fisch,
    /// FISCH paper, Sect. 5.2: a large MapReduce job, FISCH's static plan against hadoop-default in the simulator.
    FischStatic,
    /// S-PC (Aggarwal et al.): Sect. VI.A (Fig. 4(a)-(c)) and VI.B (Fig. 7, 8).
    Spc,
}

impl PaperArg {
    fn paper(self) -> Paper {
        match self {
            PaperArg::Beaumont => Paper::Beaumont,
            PaperArg::Bar => Paper::Bar,
            PaperArg::Labl => Paper::Labl,
            PaperArg::Fisch => Paper::Fisch,
            PaperArg::FischStatic => Paper::FischStatic,
            PaperArg::Spc => Paper::Spc,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ShapesArg {
    Deep,
    Sized,
    Unfolded,
}

impl ShapesArg {
    fn shapes(self) -> Shapes {
        match self {
            ShapesArg::Deep => Shapes::Deep,
            ShapesArg::Sized => Shapes::Sized,
            ShapesArg::Unfolded => Shapes::Unfolded,
        }
    }
}

/// `repro spc --model`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ModelArg {
    /// S-PC's own schedule model (a task runs size / speed): Fig. 4, 7, 8.
    Schedule,
    /// The YARN simulator of `spindle simulate`: Fig. 4 only.
    Simulate,
    /// Both, and Fig. 4 of the two side by side.
    Both,
}

impl ModelArg {
    fn model(self) -> spindle_repro::spc::Model {
        use spindle_repro::spc::Model;
        match self {
            ModelArg::Schedule => Model::Schedule,
            ModelArg::Simulate => Model::Simulate,
            ModelArg::Both => Model::Both,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReproFormat {
    Table,
    Json,
}

#[derive(Args)]
pub struct ReproArgs {
    /// The paper whose experiments to rerun.
    #[arg(value_enum)]
    pub paper: PaperArg,
    /// Runs per configuration (default: the paper's own count).
    #[arg(long)]
    pub runs: Option<usize>,
    /// Tiny sizes and few runs: checks that every experiment runs, in seconds.
    #[arg(long)]
    pub quick: bool,
    /// Seed of the random instances.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// `fisch` only: how the generated jobs are shaped. unfolded: sizes
    /// 200-4,000 tasks (mean 1,000, Sect. 5.1), wavefront, Laplace, matrix
    /// and fork-join a 25-node drawing of the schema unfolded over the data
    /// (9 levels at most); sized: the same sizes, square schemas (tens of
    /// levels); deep: every job 1,000 tasks, square schemas (the old jobs).
    #[arg(long, value_enum, default_value_t = ShapesArg::Unfolded)]
    pub shapes: ShapesArg,
    /// `fisch` only: the quality condition that drives FISCH's and BLIND's
    /// refinement, `utilisation:F` or `makespan:F` (default makespan:2; the
    /// planners' own default elsewhere is utilisation:0.85).
    #[arg(long)]
    pub quality: Option<String>,
    /// `fisch` only: BLIND with the paper's delayed allocation (Sect. 4.3):
    /// bulks booked on the counters, their nodes picked at dispatch.
    #[arg(long)]
    pub blind_delayed: bool,
    /// `spc` only: run Fig. 4 in S-PC's schedule model, in the YARN
    /// simulator (`spindle simulate`'s engine), or both side by side
    /// (default both; Fig. 7 and 8 run in the schedule model only).
    #[arg(long, value_enum)]
    pub model: Option<ModelArg>,
    #[arg(long, value_enum, default_value_t = ReproFormat::Table)]
    pub format: ReproFormat,
    /// Also draw the results as an SVG chart.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// No progress bar (it is also hidden when stderr is not a terminal).
    #[arg(long)]
    pub no_progress: bool,
}

pub fn run(args: &ReproArgs) -> Result<String> {
    if args.model.is_some() && args.paper != PaperArg::Spc {
        anyhow::bail!("--model applies to `spindle repro spc` only");
    }
    let progress = if args.no_progress {
        ProgressBar::hidden()
    } else {
        let pb = ProgressBar::new(0);
        pb.set_style(
            ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        pb
    };
    let opts = Opts {
        runs: args.runs,
        quick: args.quick,
        seed: args.seed,
        shapes: args.shapes.shapes(),
        quality: args
            .quality
            .as_deref()
            .map(Quality::parse)
            .transpose()
            .with_context(|| format!("--quality {:?}", args.quality.as_deref().unwrap_or("")))?,
        blind_delayed: args.blind_delayed,
        spc_model: args.model.map_or(Default::default(), ModelArg::model),
        progress,
    };
    let paper = args.paper.paper();
    let reports = spindle_repro::run(paper, &opts)?;
    if let Some(path) = &args.plot {
        spindle_repro::plot(paper, path, &reports)?;
    }
    Ok(match args.format {
        ReproFormat::Json => serde_json::to_string_pretty(&reports)? + "\n",
        ReproFormat::Table => reports.iter().map(spindle_repro::table).collect(),
    })
}
