//! Task completion-time estimators fed by progress reports (S-PC paper,
//! Sect. V).
//!
//! Hadoop's default ([`HadoopDefault`], the MR AM's
//! `LegacyTaskRuntimeEstimator`) divides the time since launch by the
//! progress, so it counts the JVM start-up as work and overestimates by
//! `s * (1 - p) / p` on a task of start-up `s` at progress `p`.
//! [`JvmCorrected`] measures the rate from the first progress report on
//! (eq. (23) as read in DESIGN.md): remaining = `(1 - CP) * (t_now - t_FP) /
//! (CP - FP)`, completion = `t_now + remaining`, where `t_now` is the time of
//! the latest report (whose progress is `CP`).
//!
//! Times are plain `f64` in one unit of the caller's choice (the CLI uses
//! seconds, the simulator milliseconds); estimates come back in that unit.

use std::collections::HashMap;
use std::fmt;

use serde::Serialize;
use thiserror::Error;

/// Hadoop's floor on the progress it divides by (`Math.max(0.0001, progress)`).
pub const MIN_PROGRESS: f64 = 1e-4;
/// Most tasks a [`ProgressTracker`] or a progress file may hold.
pub const DEFAULT_MAX_TASKS: usize = 1_000_000;
/// Most rows a progress file may have.
pub const MAX_ROWS: usize = 10_000_000;
/// Progress points of the error table (issue 12: 10 %, 25 %, 50 %).
pub const ERROR_POINTS: [f64; 3] = [0.10, 0.25, 0.50];

/// What is wrong with one input (a launch or a report).
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    BadProgress(f64),
    NotFinite { what: &'static str, value: f64 },
    Backwards { at: f64, previous: f64 },
    BeforeLaunch { at: f64, launch: f64 },
    NotLaunched,
    TooManyTasks { limit: usize },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::BadProgress(p) => write!(f, "progress {p} is not in [0, 1]"),
            Problem::NotFinite { what, value } => {
                write!(f, "{what} {value} is not a finite number")
            }
            Problem::Backwards { at, previous } => write!(
                f,
                "report time {at} goes back before the previous report at {previous}"
            ),
            Problem::BeforeLaunch { at, launch } => {
                write!(f, "report time {at} is before the launch at {launch}")
            }
            Problem::NotLaunched => write!(f, "progress report before the task was launched"),
            Problem::TooManyTasks { limit } => {
                write!(f, "more than the limit of {limit} tasks")
            }
        }
    }
}

#[derive(Debug, Error, PartialEq)]
pub enum EstimateError {
    /// A tracker input; `task` is the dense id.
    #[error("task {task}: {problem}")]
    Task { task: usize, problem: Problem },
    /// A progress-file row with a bad value.
    #[error("{file}:{line}: task {task:?}: {problem}")]
    Row {
        file: String,
        line: usize,
        task: String,
        problem: Problem,
    },
    /// A progress-file row that does not parse.
    #[error("{file}:{line}: {message}")]
    Syntax {
        file: String,
        line: usize,
        message: String,
    },
}

/// One progress report: at time `at` the task had done `progress` of its work.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Report {
    pub at: f64,
    pub progress: f64,
}

/// What the estimators know of one task attempt: its launch, its first and
/// its latest report. Constant size, whatever the number of reports.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TaskState {
    pub launch: f64,
    pub first: Option<Report>,
    pub last: Option<Report>,
}

impl TaskState {
    pub fn launched(at: f64) -> Result<TaskState, Problem> {
        finite("launch time", at)?;
        Ok(TaskState {
            launch: at,
            first: None,
            last: None,
        })
    }

    /// Takes a report; time must not go back (before the launch or the
    /// previous report), progress must be in [0, 1].
    pub fn report(&mut self, at: f64, progress: f64) -> Result<(), Problem> {
        finite("report time", at)?;
        finite("progress", progress)?;
        if !(0.0..=1.0).contains(&progress) {
            return Err(Problem::BadProgress(progress));
        }
        if at < self.launch {
            return Err(Problem::BeforeLaunch {
                at,
                launch: self.launch,
            });
        }
        if let Some(last) = self.last {
            if at < last.at {
                return Err(Problem::Backwards {
                    at,
                    previous: last.at,
                });
            }
        }
        let r = Report { at, progress };
        self.first.get_or_insert(r);
        self.last = Some(r);
        Ok(())
    }
}

fn finite(what: &'static str, value: f64) -> Result<(), Problem> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(Problem::NotFinite { what, value })
    }
}

/// A completion-time estimator.
pub trait Estimator {
    /// Short name for tables (`hadoop-default`, `jvm-corrected`).
    fn name(&self) -> &'static str;
    /// Predicted completion time of the task, or `None` while it has none
    /// (no report yet, or no time elapsed since launch).
    fn completion(&self, task: &TaskState) -> Option<f64>;
}

/// Hadoop's `LegacyTaskRuntimeEstimator`: runtime = (t_report - t_launch) /
/// max(1e-4, progress), estimated only when t_report > t_launch; completion
/// = launch + runtime.
#[derive(Clone, Copy, Debug, Default)]
pub struct HadoopDefault;

impl Estimator for HadoopDefault {
    fn name(&self) -> &'static str {
        "hadoop-default"
    }

    fn completion(&self, task: &TaskState) -> Option<f64> {
        let last = task.last?;
        (last.at > task.launch)
            .then(|| task.launch + (last.at - task.launch) / last.progress.max(MIN_PROGRESS))
    }
}

/// The JVM-start-up corrected estimator of Sect. V (eq. (23) as in
/// DESIGN.md). Until a second report has made progress since the first it
/// cannot measure a rate and answers as [`HadoopDefault`] (the speculator
/// needs an estimate); [`JvmCorrected::corrected`] tells which case applies.
#[derive(Clone, Copy, Debug, Default)]
pub struct JvmCorrected;

impl JvmCorrected {
    /// The corrected completion, `None` before a second report with more
    /// progress than the first and later in time.
    pub fn corrected(task: &TaskState) -> Option<f64> {
        let (first, cur) = (task.first?, task.last?);
        if cur.progress > first.progress && cur.at > first.at {
            let per_unit = (cur.at - first.at) / (cur.progress - first.progress);
            Some(cur.at + (1.0 - cur.progress) * per_unit)
        } else {
            None
        }
    }
}

impl Estimator for JvmCorrected {
    fn name(&self) -> &'static str {
        "jvm-corrected"
    }

    fn completion(&self, task: &TaskState) -> Option<f64> {
        JvmCorrected::corrected(task).or_else(|| HadoopDefault.completion(task))
    }
}

/// Per-task state under dense ids `0..limit` (the Session's task ids).
#[derive(Clone, Debug)]
pub struct ProgressTracker {
    tasks: Vec<Option<TaskState>>,
    limit: usize,
}

impl Default for ProgressTracker {
    fn default() -> Self {
        ProgressTracker::new(DEFAULT_MAX_TASKS)
    }
}

impl ProgressTracker {
    pub fn new(limit: usize) -> ProgressTracker {
        ProgressTracker {
            tasks: Vec::new(),
            limit,
        }
    }

    /// A task (attempt) launched at `at`; a new launch of the same id starts afresh.
    pub fn launch(&mut self, task: usize, at: f64) -> Result<(), EstimateError> {
        let err = |problem| EstimateError::Task { task, problem };
        if task >= self.limit {
            return Err(err(Problem::TooManyTasks { limit: self.limit }));
        }
        let state = TaskState::launched(at).map_err(err)?;
        if self.tasks.len() <= task {
            self.tasks.resize(task + 1, None);
        }
        self.tasks[task] = Some(state);
        Ok(())
    }

    pub fn report(&mut self, task: usize, at: f64, progress: f64) -> Result<(), EstimateError> {
        let err = |problem| EstimateError::Task { task, problem };
        match self.tasks.get_mut(task) {
            Some(Some(state)) => state.report(at, progress).map_err(err),
            _ => Err(err(Problem::NotLaunched)),
        }
    }

    /// Forgets a finished task.
    pub fn finish(&mut self, task: usize) {
        if let Some(slot) = self.tasks.get_mut(task) {
            *slot = None;
        }
    }

    pub fn state(&self, task: usize) -> Option<&TaskState> {
        self.tasks.get(task).and_then(Option::as_ref)
    }

    /// Predicted completion of `task` by `estimator`.
    pub fn completion(&self, task: usize, estimator: &dyn Estimator) -> Option<f64> {
        self.state(task).and_then(|s| estimator.completion(s))
    }

    /// Predicted remaining time of `task` at `now` (never negative).
    pub fn remaining(&self, task: usize, now: f64, estimator: &dyn Estimator) -> Option<f64> {
        self.completion(task, estimator)
            .map(|end| (end - now).max(0.0))
    }
}

/// Mean absolute error of both estimators at one progress point.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ErrorRow {
    /// The point: the first report with at least this progress is where the
    /// prediction is taken.
    pub progress: f64,
    /// Tasks that had such a report before finishing.
    pub tasks: usize,
    pub hadoop_default_mae: f64,
    pub jvm_corrected_mae: f64,
    /// Mean signed error (prediction - truth): the bias.
    pub hadoop_default_bias: f64,
    pub jvm_corrected_bias: f64,
    /// Of `tasks`, those where the corrected estimator had one report only
    /// and answered as Hadoop's default.
    pub fallback: usize,
}

/// Accumulates prediction errors of finished tasks at fixed progress points.
#[derive(Clone, Debug)]
pub struct ErrorMeter {
    points: Vec<f64>,
    sums: Vec<[f64; 4]>,
    counts: Vec<(usize, usize)>,
}

impl ErrorMeter {
    pub fn new(points: &[f64]) -> ErrorMeter {
        ErrorMeter {
            points: points.to_vec(),
            sums: vec![[0.0; 4]; points.len()],
            counts: vec![(0, 0); points.len()],
        }
    }

    /// One finished task: launched at `launch`, reports in time order
    /// (before the finish), finished at `finish`.
    pub fn task(
        &mut self,
        launch: f64,
        reports: impl IntoIterator<Item = Report>,
        finish: f64,
    ) -> Result<(), Problem> {
        finite("finish time", finish)?;
        let mut state = TaskState::launched(launch)?;
        let mut next = 0;
        // Samples are kept aside until the whole task checks out.
        let mut samples: Vec<(usize, f64, f64, bool)> = Vec::with_capacity(self.points.len());
        for r in reports {
            state.report(r.at, r.progress)?;
            while next < self.points.len() && r.progress >= self.points[next] {
                let def = HadoopDefault.completion(&state);
                let cor = JvmCorrected.completion(&state);
                if let (Some(d), Some(c)) = (def, cor) {
                    samples.push((next, d, c, JvmCorrected::corrected(&state).is_none()));
                }
                next += 1;
            }
        }
        if let Some(last) = state.last {
            if finish < last.at {
                return Err(Problem::Backwards {
                    at: finish,
                    previous: last.at,
                });
            }
        }
        for (i, d, c, fallback) in samples {
            let s = &mut self.sums[i];
            s[0] += (d - finish).abs();
            s[1] += (c - finish).abs();
            s[2] += d - finish;
            s[3] += c - finish;
            let n = &mut self.counts[i];
            n.0 += 1;
            n.1 += usize::from(fallback);
        }
        Ok(())
    }

    pub fn rows(&self) -> Vec<ErrorRow> {
        self.points
            .iter()
            .zip(&self.sums)
            .zip(&self.counts)
            .map(|((&progress, s), &(n, fallback))| {
                let mean = |x: f64| if n == 0 { f64::NAN } else { x / n as f64 };
                ErrorRow {
                    progress,
                    tasks: n,
                    hadoop_default_mae: mean(s[0]),
                    jvm_corrected_mae: mean(s[1]),
                    hadoop_default_bias: mean(s[2]),
                    jvm_corrected_bias: mean(s[3]),
                    fallback,
                }
            })
            .collect()
    }
}

/// One task of a progress file.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskLog {
    pub name: String,
    pub launch: f64,
    /// Reports before the finish, in time order.
    pub reports: Vec<Report>,
    /// Time of the progress-1.0 row, if any.
    pub finish: Option<f64>,
}

/// Per-task estimates at a task's latest report before its finish.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskEstimate {
    pub task: String,
    pub launch: f64,
    pub reports: usize,
    pub last_report: Option<Report>,
    pub hadoop_default: Option<f64>,
    pub jvm_corrected: Option<f64>,
    /// The corrected estimator had one report only and answered as Hadoop's default.
    pub fallback: bool,
    pub finish: Option<f64>,
}

/// A parsed progress file (CSV: task, launch time, report time, progress).
#[derive(Clone, Debug, PartialEq)]
pub struct ProgressLog {
    pub tasks: Vec<TaskLog>,
}

impl ProgressLog {
    /// Parses `text` (named `file` in errors). A first line whose numeric
    /// columns do not parse is a header. Rows of one task must keep its
    /// launch time and go forward in time; nothing may follow its 1.0 row.
    pub fn parse(file: &str, text: &str, max_tasks: usize) -> Result<ProgressLog, EstimateError> {
        let syntax = |line: usize, message: String| EstimateError::Syntax {
            file: file.to_string(),
            line,
            message,
        };
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut tasks: Vec<TaskLog> = Vec::new();
        let mut states: Vec<TaskState> = Vec::new();
        let mut rows = 0usize;
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let row = raw.trim();
            if row.is_empty() || row.starts_with('#') {
                continue;
            }
            rows += 1;
            if rows > MAX_ROWS {
                return Err(syntax(
                    line,
                    format!("more than the limit of {MAX_ROWS} rows"),
                ));
            }
            let cols: Vec<&str> = row.split(',').map(str::trim).collect();
            if cols.len() != 4 {
                return Err(syntax(
                    line,
                    format!(
                        "expected 4 columns (task, launch time, report time, progress), found {}",
                        cols.len()
                    ),
                ));
            }
            let nums: Vec<Result<f64, _>> = cols[1..].iter().map(|c| c.parse::<f64>()).collect();
            if rows == 1 && nums.iter().all(Result::is_err) {
                continue; // header
            }
            let mut vals = [0.0; 3];
            for (k, (n, name)) in nums
                .into_iter()
                .zip(["launch time", "report time", "progress"])
                .enumerate()
            {
                vals[k] = n.map_err(|_| {
                    syntax(line, format!("{name} {:?} is not a number", cols[k + 1]))
                })?;
            }
            let [launch, at, progress] = vals;
            let name = cols[0];
            if name.is_empty() {
                return Err(syntax(line, "empty task name".into()));
            }
            let bad = |problem| EstimateError::Row {
                file: file.to_string(),
                line,
                task: name.to_string(),
                problem,
            };
            let t = match index.get(name) {
                Some(&t) => t,
                None => {
                    if tasks.len() >= max_tasks {
                        return Err(bad(Problem::TooManyTasks { limit: max_tasks }));
                    }
                    states.push(TaskState::launched(launch).map_err(bad)?);
                    tasks.push(TaskLog {
                        name: name.to_string(),
                        launch,
                        reports: Vec::new(),
                        finish: None,
                    });
                    index.insert(name, tasks.len() - 1);
                    tasks.len() - 1
                }
            };
            let task = &mut tasks[t];
            if launch != task.launch {
                return Err(syntax(
                    line,
                    format!(
                        "task {name:?}: launch time {launch} differs from {} on its earlier rows",
                        task.launch
                    ),
                ));
            }
            if task.finish.is_some() {
                return Err(syntax(
                    line,
                    format!("task {name:?}: report after its progress-1.0 row (the finish)"),
                ));
            }
            states[t].report(at, progress).map_err(bad)?;
            if progress >= 1.0 {
                task.finish = Some(at);
            } else {
                task.reports.push(Report { at, progress });
            }
        }
        Ok(ProgressLog { tasks })
    }

    /// Both estimators at each task's latest report before its finish.
    pub fn estimates(&self) -> Vec<TaskEstimate> {
        self.tasks
            .iter()
            .map(|t| {
                let state = TaskState {
                    launch: t.launch,
                    first: t.reports.first().copied(),
                    last: t.reports.last().copied(),
                };
                TaskEstimate {
                    task: t.name.clone(),
                    launch: t.launch,
                    reports: t.reports.len(),
                    last_report: state.last,
                    hadoop_default: HadoopDefault.completion(&state),
                    jvm_corrected: JvmCorrected.completion(&state),
                    fallback: state.last.is_some() && JvmCorrected::corrected(&state).is_none(),
                    finish: t.finish,
                }
            })
            .collect()
    }

    /// Errors at `points` over the finished tasks; `None` if none finished.
    pub fn errors(&self, points: &[f64]) -> Result<Option<Vec<ErrorRow>>, EstimateError> {
        let mut meter = ErrorMeter::new(points);
        let mut any = false;
        for (i, t) in self.tasks.iter().enumerate() {
            if let Some(finish) = t.finish {
                any = true;
                meter
                    .task(t.launch, t.reports.iter().copied(), finish)
                    .map_err(|problem| EstimateError::Task { task: i, problem })?;
            }
        }
        Ok(any.then(|| meter.rows()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A linear task: launched at `launch`, start-up `s`, then `work` time
    /// units of work at a constant rate; reports every `every` after start-up.
    fn linear(launch: f64, s: f64, work: f64, every: f64) -> (Vec<Report>, f64) {
        let mut reports = Vec::new();
        let mut k = 1.0;
        while every * k < work {
            reports.push(Report {
                at: launch + s + every * k,
                progress: every * k / work,
            });
            k += 1.0;
        }
        (reports, launch + s + work)
    }

    fn state(launch: f64, reports: &[Report]) -> TaskState {
        let mut st = TaskState::launched(launch).unwrap();
        for r in reports {
            st.report(r.at, r.progress).unwrap();
        }
        st
    }

    #[test]
    fn hadoop_default_is_elapsed_over_progress() {
        let st = state(
            10.0,
            &[Report {
                at: 14.0,
                progress: 0.25,
            }],
        );
        assert_eq!(HadoopDefault.completion(&st), Some(10.0 + 4.0 / 0.25));
        // Progress 0 is floored at 1e-4, as Hadoop does.
        let st = state(
            0.0,
            &[Report {
                at: 1.0,
                progress: 0.0,
            }],
        );
        assert_eq!(HadoopDefault.completion(&st), Some(1.0 / MIN_PROGRESS));
        // No time since launch: no estimate (Hadoop keeps -1).
        let st = state(
            5.0,
            &[Report {
                at: 5.0,
                progress: 0.5,
            }],
        );
        assert_eq!(HadoopDefault.completion(&st), None);
        assert_eq!(HadoopDefault.completion(&state(0.0, &[])), None);
    }

    #[test]
    fn corrected_uses_the_rate_since_the_first_report() {
        // Launched at 0, first report at 5 (progress 0.1), then 9 (0.3):
        // 20 per unit, 0.7 left -> 14 more.
        let r = [
            Report {
                at: 5.0,
                progress: 0.1,
            },
            Report {
                at: 9.0,
                progress: 0.3,
            },
        ];
        let st = state(0.0, &r);
        assert_eq!(JvmCorrected::corrected(&st), Some(9.0 + 0.7 * 20.0));
        assert_eq!(JvmCorrected.completion(&st), Some(23.0));
        // One report only: Hadoop's answer.
        let st = state(0.0, &r[..1]);
        assert_eq!(JvmCorrected::corrected(&st), None);
        assert_eq!(JvmCorrected.completion(&st), Some(50.0));
        // No progress since the first report: no rate, fallback.
        let st = state(
            0.0,
            &[
                Report {
                    at: 5.0,
                    progress: 0.2,
                },
                Report {
                    at: 8.0,
                    progress: 0.2,
                },
            ],
        );
        assert_eq!(JvmCorrected::corrected(&st), None);
        assert_eq!(JvmCorrected.completion(&st), Some(40.0));
    }

    #[test]
    fn bad_inputs_name_the_task() {
        let mut t = ProgressTracker::new(4);
        assert_eq!(
            t.report(2, 1.0, 0.5).unwrap_err().to_string(),
            "task 2: progress report before the task was launched"
        );
        t.launch(2, 10.0).unwrap();
        assert_eq!(
            t.report(2, 11.0, 1.5).unwrap_err().to_string(),
            "task 2: progress 1.5 is not in [0, 1]"
        );
        assert_eq!(
            t.report(2, 11.0, -0.1).unwrap_err().to_string(),
            "task 2: progress -0.1 is not in [0, 1]"
        );
        assert_eq!(
            t.report(2, f64::NAN, 0.5).unwrap_err().to_string(),
            "task 2: report time NaN is not a finite number"
        );
        assert_eq!(
            t.report(2, 11.0, f64::NAN).unwrap_err().to_string(),
            "task 2: progress NaN is not a finite number"
        );
        assert_eq!(
            t.report(2, 9.0, 0.1).unwrap_err().to_string(),
            "task 2: report time 9 is before the launch at 10"
        );
        t.report(2, 12.0, 0.1).unwrap();
        assert_eq!(
            t.report(2, 11.5, 0.2).unwrap_err().to_string(),
            "task 2: report time 11.5 goes back before the previous report at 12"
        );
        assert_eq!(
            t.launch(4, 0.0).unwrap_err().to_string(),
            "task 4: more than the limit of 4 tasks"
        );
        assert_eq!(
            t.launch(1, f64::INFINITY).unwrap_err().to_string(),
            "task 1: launch time inf is not a finite number"
        );
        // The rejected reports changed nothing.
        let st = t.state(2).unwrap();
        assert_eq!(
            st.last,
            Some(Report {
                at: 12.0,
                progress: 0.1
            })
        );
    }

    #[test]
    fn tracker_relaunch_and_finish() {
        let mut t = ProgressTracker::new(10);
        t.launch(3, 0.0).unwrap();
        t.report(3, 4.0, 0.1).unwrap();
        t.report(3, 6.0, 0.2).unwrap();
        assert_eq!(t.completion(3, &JvmCorrected), Some(6.0 + 0.8 * 20.0));
        assert_eq!(t.remaining(3, 10.0, &JvmCorrected), Some(12.0));
        assert_eq!(t.remaining(3, 30.0, &JvmCorrected), Some(0.0));
        t.launch(3, 7.0).unwrap();
        assert_eq!(t.completion(3, &JvmCorrected), None);
        t.finish(3);
        assert!(t.state(3).is_none());
        assert_eq!(t.completion(9, &HadoopDefault), None);
    }

    #[test]
    fn csv_parses_with_and_without_header() {
        let text = "task,launch,report,progress\n\
                    a,0,5,0.1\n\
                    b,1,4,0.5\n\
                    a,0,9,0.3\n\
                    a,0,23,1.0\n";
        let log = ProgressLog::parse("p.csv", text, 10).unwrap();
        assert_eq!(log.tasks.len(), 2);
        assert_eq!(log.tasks[0].finish, Some(23.0));
        assert_eq!(log.tasks[0].reports.len(), 2);
        let est = log.estimates();
        assert_eq!(est[0].jvm_corrected, Some(23.0));
        assert_eq!(est[0].hadoop_default, Some(30.0));
        assert!(!est[0].fallback);
        assert!(est[1].fallback);
        assert_eq!(est[1].finish, None);
        let rows = log.errors(&ERROR_POINTS).unwrap().unwrap();
        // 10 %: the report at 5 (one report: fallback 50, truth 23).
        assert_eq!(rows[0].tasks, 1);
        assert_eq!(rows[0].hadoop_default_mae, 27.0);
        assert_eq!(rows[0].fallback, 1);
        // 25 %: the report at 9: default 30, corrected 23 (exact).
        assert_eq!(rows[1].hadoop_default_mae, 7.0);
        assert_eq!(rows[1].jvm_corrected_mae, 0.0);
        // 50 %: never reached before the finish.
        assert_eq!(rows[2].tasks, 0);
        let bare = ProgressLog::parse("p.csv", "a,0,5,0.1\n", 10).unwrap();
        assert_eq!(bare.tasks.len(), 1);
        assert_eq!(bare.errors(&ERROR_POINTS).unwrap(), None);
    }

    #[test]
    fn csv_errors_name_file_line_and_task() {
        let err = |text: &str| {
            ProgressLog::parse("p.csv", text, 2)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err("a,0,5,0.1\na,0,6,1.2\n"),
            "p.csv:2: task \"a\": progress 1.2 is not in [0, 1]"
        );
        assert_eq!(
            err("a,0,5,0.1\na,0,4,0.2\n"),
            "p.csv:2: task \"a\": report time 4 goes back before the previous report at 5"
        );
        assert_eq!(
            err("a,0,5,0.1\na,0,x,0.2\n"),
            "p.csv:2: report time \"x\" is not a number"
        );
        assert_eq!(
            err("a,0,5,NaN\n"),
            "p.csv:1: task \"a\": progress NaN is not a finite number"
        );
        assert_eq!(
            err("a,0,5\n"),
            "p.csv:1: expected 4 columns (task, launch time, report time, progress), found 3"
        );
        assert_eq!(
            err("a,0,5,0.1\na,1,6,0.2\n"),
            "p.csv:2: task \"a\": launch time 1 differs from 0 on its earlier rows"
        );
        assert_eq!(
            err("a,0,5,1\na,0,6,1\n"),
            "p.csv:2: task \"a\": report after its progress-1.0 row (the finish)"
        );
        assert_eq!(
            err("a,0,1,0\nb,0,1,0\nc,0,1,0\n"),
            "p.csv:3: task \"c\": more than the limit of 2 tasks"
        );
    }

    proptest::proptest! {
        /// On a linear task the corrected estimator is exact from the second
        /// report on, and Hadoop's overestimates by s * (1 - p) / p.
        #[test]
        fn linear_task(
            launch in 0.0f64..1e6,
            s in 0.0f64..10.0,
            work in 1.0f64..500.0,
            every in 0.1f64..5.0,
        ) {
            let (reports, finish) = linear(launch, s, work, every);
            let mut st = TaskState::launched(launch).unwrap();
            for (k, r) in reports.iter().enumerate() {
                st.report(r.at, r.progress).unwrap();
                let tol = 1e-9 * (1.0 + finish.abs());
                if k >= 1 {
                    let c = JvmCorrected::corrected(&st).unwrap();
                    proptest::prop_assert!((c - finish).abs() <= tol, "corrected {c} vs {finish}");
                }
                let d = HadoopDefault.completion(&st).unwrap();
                let over = s * (1.0 - r.progress) / r.progress;
                proptest::prop_assert!(
                    (d - finish - over).abs() <= 1e-6 * (1.0 + finish.abs() + over),
                    "default {d} vs {finish} + {over}"
                );
            }
        }

        /// The meter's mean errors equal a direct computation on linear tasks.
        #[test]
        fn meter_matches_direct(
            tasks in proptest::collection::vec((0.0f64..100.0, 1.0f64..5.0, 10.0f64..60.0), 1..20),
        ) {
            let every = 3.0;
            let mut meter = ErrorMeter::new(&ERROR_POINTS);
            let mut want = [(0.0, 0.0, 0usize); 3];
            for &(launch, s, work) in &tasks {
                let (reports, finish) = linear(launch, s, work, every);
                meter.task(launch, reports.iter().copied(), finish).unwrap();
                for (i, &p) in ERROR_POINTS.iter().enumerate() {
                    if let Some(k) = reports.iter().position(|r| r.progress >= p) {
                        let r = reports[k];
                        let d = launch + (r.at - launch) / r.progress;
                        // Exact once two reports exist; the first alone falls back.
                        let c = if k >= 1 { finish } else { d };
                        want[i].0 += (d - finish).abs();
                        want[i].1 += (c - finish).abs();
                        want[i].2 += 1;
                    }
                }
            }
            for (row, w) in meter.rows().iter().zip(want) {
                proptest::prop_assert_eq!(row.tasks, w.2);
                if w.2 > 0 {
                    let n = w.2 as f64;
                    proptest::prop_assert!((row.hadoop_default_mae - w.0 / n).abs() < 1e-6);
                    proptest::prop_assert!((row.jvm_corrected_mae - w.1 / n).abs() < 1e-6);
                }
            }
        }
    }
}
