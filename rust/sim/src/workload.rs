//! Jobs to simulate: WordCount- and TeraSort-shaped profiles, a JSON job
//! file, embedded mixes, the SWIM Facebook traces (`../shared/data/swim`),
//! and six hours of SWIM's FB-2009 day shipped with the crate
//! (`data/fb2009-6h.tsv`, `spindle simulate`'s default).

use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use thiserror::Error;

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// Per-MB costs of a job's tasks on a node of speed 1. Assumptions, chosen so
/// that a WordCount map of one 128 MiB block computes for about 19 s (the
/// median Facebook map of BAR's Sect. VI) and TeraSort maps are I/O-bound.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Profile {
    /// CPU-heavy map, small shuffle (combiner), one reducer.
    Wordcount,
    /// Map output equal to input, heavy shuffle and reduce.
    Terasort,
    /// Trace jobs (SWIM): moderate map and reduce costs.
    Generic,
    /// Hadoop's Sort example: identity map and reduce, map output equal to
    /// input, I/O-bound (the lightest per MB).
    Sort,
}

impl Profile {
    pub fn map_cpu_ms_per_mb(self) -> f64 {
        match self {
            Profile::Wordcount => 150.0,
            Profile::Terasort => 20.0,
            Profile::Generic => 40.0,
            Profile::Sort => 10.0,
        }
    }

    pub fn reduce_cpu_ms_per_mb(self) -> f64 {
        match self {
            Profile::Wordcount => 100.0,
            Profile::Terasort => 30.0,
            Profile::Generic => 40.0,
            Profile::Sort => 15.0,
        }
    }

    /// Shuffle and output bytes of a job reading `input` bytes, and its reducers.
    fn shape(self, input: u64) -> (u64, u64, u32) {
        match self {
            Profile::Wordcount => (input / 50, input / 100, 1),
            Profile::Terasort | Profile::Sort => (input, input, input.div_ceil(GIB).max(1) as u32),
            Profile::Generic => (input / 10, input / 10, 1),
        }
    }
}

/// One task of a job read from a trace (SLS, Rumen): where its input lives
/// and how long it ran.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceTask {
    /// Hosts holding its input (SLS: `container.host`; Rumen: the
    /// preferred locations); empty: no input, asked at ANY only.
    pub hosts: Vec<String>,
    /// Run time of the container from launch, JVM included, when its input
    /// is read locally (the simulator adds the network's extra for a
    /// non-local read; a reduce does not end before the job's last map).
    pub duration_ms: u64,
    /// Bytes it reads (Rumen's `hdfsBytesRead`); `None`: one block.
    pub input_bytes: Option<u64>,
}

/// A job's tasks as a trace gives them, instead of a profile's shape.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TraceTasks {
    pub maps: Vec<TraceTask>,
    pub reduces: Vec<TraceTask>,
}

/// One MapReduce job.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobSpec {
    pub id: String,
    pub submit_ms: u64,
    pub input_bytes: u64,
    /// Jobs naming the same path read the same blocks (SWIM's input paths).
    pub input_path: Option<String>,
    pub shuffle_bytes: u64,
    pub output_bytes: u64,
    pub reduces: u32,
    pub profile: Profile,
    pub weight: f64,
    /// Block size its input was written with (`dfs.blocksize` per file);
    /// `None`: the cluster's ([`crate::SimConfig::block_size`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_size: Option<u64>,
    /// Tasks read from a trace; `None`: cut from `input_bytes` and shaped
    /// by `profile`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tasks: Option<Box<TraceTasks>>,
}

impl JobSpec {
    /// A job of `profile` shape reading `input_bytes`.
    pub fn shaped(id: String, submit_ms: u64, input_bytes: u64, profile: Profile) -> JobSpec {
        let (shuffle_bytes, output_bytes, reduces) = profile.shape(input_bytes);
        JobSpec {
            id,
            submit_ms,
            input_bytes,
            input_path: None,
            shuffle_bytes,
            output_bytes,
            reduces,
            profile,
            weight: 1.0,
            block_size: None,
            tasks: None,
        }
    }

    /// Its input's block size on a cluster whose default is `cluster`.
    pub fn block_bytes(&self, cluster: u64) -> u64 {
        self.block_size.unwrap_or(cluster)
    }

    /// Reduces of the job: the trace's, else `reduces`.
    pub fn reduce_count(&self) -> u32 {
        match &self.tasks {
            Some(t) => t.reduces.len() as u32,
            None => self.reduces,
        }
    }

    /// Maps of the job: the trace's, else one per block (its own block
    /// size, else the cluster's `block_size`).
    pub fn maps(&self, block_size: u64) -> u64 {
        match &self.tasks {
            Some(t) => t.maps.len() as u64,
            None => self
                .input_bytes
                .div_ceil(self.block_bytes(block_size).max(1))
                .max(1),
        }
    }
}

#[derive(Debug, Error, PartialEq)]
pub enum WorkloadError {
    #[error("reading {file}: {message}")]
    Read { file: String, message: String },
    #[error("{file}: {message}")]
    JobFile { file: String, message: String },
    #[error("{file}, line {line}: {message}")]
    Line {
        file: String,
        line: usize,
        message: String,
    },
    #[error("unknown workload {0:?}; use fb2009-6h, wordcount, terasort, mixed, swim:FILE, sls:FILE or rumen:FILE")]
    Unknown(String),
    #[error("{file}: {size}over the {limit}-byte limit (--max-input-bytes)", size = .size.map(|n| format!("{n} bytes, ")).unwrap_or_default())]
    TooLarge {
        file: String,
        size: Option<u64>,
        limit: u64,
    },
}

/// Largest submit time and byte count a job may have: 100 years of
/// simulated time, and an exabyte (the simulator counts in u64 bytes and
/// milliseconds; beyond these, conversions from the file's floats saturate).
pub const MAX_SUBMIT_S: f64 = 100.0 * 365.25 * 86_400.0;
pub const MAX_BYTES: f64 = 1e18;
/// A job file's `input_mb` limit (2^20 bytes each: about an exabyte).
pub const MAX_INPUT_MB: f64 = 1e12;

/// Reads `file` as text, at most `limit` bytes: the length is checked first,
/// and a device or pipe (`/dev/zero`) is read only one byte past the limit.
pub(crate) fn read_text(file: &str, limit: u64) -> Result<String, WorkloadError> {
    use std::io::Read;
    let io = |e: std::io::Error| WorkloadError::Read {
        file: file.to_string(),
        message: e.to_string(),
    };
    let too_large = |size| WorkloadError::TooLarge {
        file: file.to_string(),
        size,
        limit,
    };
    let f = std::fs::File::open(file).map_err(io)?;
    let meta = f.metadata().map_err(io)?;
    if meta.is_file() && meta.len() > limit {
        return Err(too_large(Some(meta.len())));
    }
    let mut text = String::new();
    f.take(limit.saturating_add(1))
        .read_to_string(&mut text)
        .map_err(io)?;
    if text.len() as u64 > limit {
        return Err(too_large(None));
    }
    Ok(text)
}

/// Six hours of SWIM's FB-2009 day (1,598 jobs, most of one map, a few of
/// hundreds), shipped with the crate so that a clean checkout can run a
/// busy, heavy-tailed cluster: `data/README.md` says which lines of which
/// file, what changed, and under which licence.
pub const FB2009_6H: &str = include_str!("../data/fb2009-6h.tsv");

/// The name [`FB2009_6H`]'s jobs and errors go by; it names FB-2009, so
/// its bytes scale from the trace's 600 machines ([`parse_swim`]).
pub const FB2009_6H_FILE: &str = "rust/sim/data/fb2009-6h.tsv";

/// Offered load [`Workload::Fb2009Hourss`] runs at unless asked otherwise:
/// high enough that the cluster stays busy and jobs queue (the hours as
/// recorded keep 100 nodes 1.5 % busy).
pub const FB2009_6H_LOAD: f64 = 0.85;

/// Where the jobs come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Workload {
    /// [`FB2009_6H`], at [`FB2009_6H_LOAD`].
    Fb2009Hours,
    Wordcount,
    Terasort,
    Mixed,
    Swim {
        file: String,
    },
    /// A Scheduler Load Simulator trace (`crate::trace`).
    Sls {
        file: String,
    },
    /// A Rumen job trace (`crate::trace`).
    Rumen {
        file: String,
    },
}

impl Workload {
    pub fn parse(s: &str) -> Result<Workload, WorkloadError> {
        match s {
            "fb2009-6h" => Ok(Workload::Fb2009Hours),
            "wordcount" => Ok(Workload::Wordcount),
            "terasort" => Ok(Workload::Terasort),
            "mixed" => Ok(Workload::Mixed),
            _ => {
                let (kind, file) = s.split_once(':').unwrap_or((s, ""));
                let file = file.to_string();
                match kind {
                    _ if file.is_empty() => Err(WorkloadError::Unknown(s.to_string())),
                    "swim" => Ok(Workload::Swim { file }),
                    "sls" => Ok(Workload::Sls { file }),
                    "rumen" => Ok(Workload::Rumen { file }),
                    _ => Err(WorkloadError::Unknown(s.to_string())),
                }
            }
        }
    }

    /// The offered load the workload runs at when no other is asked for
    /// (`None`: its submission times as they are).
    pub fn default_load(&self) -> Option<f64> {
        match self {
            Workload::Fb2009Hours => Some(FB2009_6H_LOAD),
            _ => None,
        }
    }

    /// The jobs, for a cluster of `nodes` nodes (SWIM bytes scale with it).
    /// `max_jobs` keeps the first jobs only; a trace file is read up to
    /// `max_bytes`.
    pub fn jobs(
        &self,
        nodes: usize,
        seed: u64,
        max_jobs: Option<usize>,
        max_bytes: u64,
    ) -> Result<Vec<JobSpec>, WorkloadError> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5157_4f52_4b4c_4f41);
        let mut jobs = match self {
            Workload::Fb2009Hours => parse_swim(FB2009_6H_FILE, FB2009_6H, nodes)?,
            Workload::Wordcount => synthetic(&mut rng, 20, |_| Profile::Wordcount, 4, 64),
            Workload::Terasort => synthetic(&mut rng, 10, |_| Profile::Terasort, 8, 64),
            Workload::Mixed => synthetic(
                &mut rng,
                40,
                |i| {
                    if i % 2 == 0 {
                        Profile::Wordcount
                    } else {
                        Profile::Terasort
                    }
                },
                4,
                64,
            ),
            Workload::Swim { file } => parse_swim(file, &read_text(file, max_bytes)?, nodes)?,
            // A trace names its own cluster: `crate::trace::load` reads both.
            Workload::Sls { file } | Workload::Rumen { file } => {
                return Err(WorkloadError::JobFile {
                    file: file.clone(),
                    message:
                        "a trace workload: read it with trace::load, which gives its nodes too"
                            .into(),
                })
            }
        };
        if let Some(n) = max_jobs {
            jobs.truncate(n);
        }
        Ok(jobs)
    }
}

/// `n` jobs arriving with exponential gaps of mean 10 s, inputs uniform in
/// `[min_gib, max_gib]` GiB.
fn synthetic(
    rng: &mut ChaCha8Rng,
    n: usize,
    profile: impl Fn(usize) -> Profile,
    min_gib: u64,
    max_gib: u64,
) -> Vec<JobSpec> {
    let mut t = 0.0f64;
    (0..n)
        .map(|i| {
            if i > 0 {
                let u: f64 = rng.gen_range(f64::EPSILON..1.0);
                t += -10_000.0 * u.ln();
            }
            let input = rng.gen_range(min_gib * GIB..=max_gib * GIB);
            JobSpec::shaped(format!("job_{:04}", i + 1), t as u64, input, profile(i))
        })
        .collect()
}

/// The SWIM workload format: `job<N> submit_s gap_s map_input_bytes
/// shuffle_bytes reduce_output_bytes [inputPath]`, tab separated. Bytes are
/// scaled by (cluster nodes / trace nodes) as SWIM's own replay does (600
/// machines for FB-2009, 3000 for FB-2010), map input floored to 64 MB and
/// shuffle/output to 1 KB. A job with no shuffle is map-only; otherwise it
/// gets one reducer per GiB of shuffle (at least one).
pub fn parse_swim(file: &str, text: &str, nodes: usize) -> Result<Vec<JobSpec>, WorkloadError> {
    let trace_nodes = if file.contains("2010") { 3000.0 } else { 600.0 };
    let scale = nodes as f64 / trace_nodes;
    let mut jobs = Vec::new();
    let mut ids: std::collections::HashMap<String, usize> = Default::default();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let err = |message: String| WorkloadError::Line {
            file: file.to_string(),
            line: line_no,
            message,
        };
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 6 {
            return Err(err(format!(
                "expected at least 6 tab-separated fields, found {}",
                f.len()
            )));
        }
        let num = |k: usize, name: &str| -> Result<f64, WorkloadError> {
            f[k].trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| {
                    err(format!(
                        "field {} ({name}) is not a number >= 0: {:?}",
                        k + 1,
                        shorten(f[k])
                    ))
                })
                .and_then(|v| {
                    let max = if k == 1 { MAX_SUBMIT_S } else { MAX_BYTES };
                    if v > max {
                        Err(err(format!(
                            "field {} ({name}) is {v:e}, more than the simulator's limit of {max:e}",
                            k + 1
                        )))
                    } else {
                        Ok(v)
                    }
                })
        };
        let id = f[0].trim();
        if let Some(first) = ids.insert(id.to_string(), line_no) {
            return Err(err(format!(
                "job id {:?} appears again (first on line {first})",
                shorten(id)
            )));
        }
        let submit = num(1, "submit_time_s")?;
        let input = ((num(3, "map_input_bytes")? * scale) as u64).max(64 * MIB);
        let shuffle_raw = num(4, "shuffle_bytes")?;
        let shuffle = if shuffle_raw > 0.0 {
            ((shuffle_raw * scale) as u64).max(1024)
        } else {
            0
        };
        let output = ((num(5, "reduce_output_bytes")? * scale) as u64).max(1024);
        let reduces = if shuffle == 0 {
            0
        } else {
            shuffle.div_ceil(GIB).max(1) as u32
        };
        let path = f.get(6).map(|p| p.trim()).filter(|p| !p.is_empty());
        jobs.push(JobSpec {
            id: f[0].trim().to_string(),
            submit_ms: (submit * 1000.0) as u64,
            input_bytes: input,
            input_path: path.map(str::to_string),
            shuffle_bytes: shuffle,
            output_bytes: if reduces == 0 { 0 } else { output },
            reduces,
            profile: Profile::Generic,
            weight: 1.0,
            block_size: None,
            tasks: None,
        });
    }
    Ok(jobs)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JobFileEntry {
    id: String,
    #[serde(default)]
    submit_s: f64,
    input_mb: f64,
    profile: Profile,
    #[serde(default = "one")]
    weight: f64,
    reduces: Option<u32>,
    input_path: Option<String>,
}

fn one() -> f64 {
    1.0
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JobFile {
    jobs: Vec<JobFileEntry>,
}

/// A job file: `{"jobs": [{"id": "wc1", "submit_s": 0, "input_mb": 4096,
/// "profile": "wordcount", "weight": 1, "reduces": 1, "input_path": "/in"}]}`
/// (`submit_s`, `weight`, `reduces`, `input_path` optional), read up to
/// `max_bytes`.
pub fn read_job_file(path: &Path, max_bytes: u64) -> Result<Vec<JobSpec>, WorkloadError> {
    let file = path.display().to_string();
    let text = read_text(&file, max_bytes)?;
    parse_job_file(&file, &text)
}

/// A value for an error message: at most 60 characters.
fn shorten(v: &str) -> String {
    match v.char_indices().nth(60) {
        Some((cut, _)) => format!("{}... ({} bytes)", &v[..cut], v.len()),
        None => v.to_string(),
    }
}

pub fn parse_job_file(file: &str, text: &str) -> Result<Vec<JobSpec>, WorkloadError> {
    let bad = |message: String| WorkloadError::JobFile {
        file: file.to_string(),
        message,
    };
    let de = &mut serde_json::Deserializer::from_str(text);
    let parsed: JobFile = serde_path_to_error::deserialize(&mut *de)
        .map_err(|e| bad(format!("field {}: {}", e.path(), e.inner())))?;
    de.end()
        .map_err(|e| bad(format!("after the job list: {e}")))?;
    let mut jobs = Vec::with_capacity(parsed.jobs.len());
    let mut ids: std::collections::HashMap<&str, usize> = Default::default();
    for (i, j) in parsed.jobs.iter().enumerate() {
        let field = |name: &str, problem: &str| {
            bad(format!(
                "jobs[{i}] ({:?}): field \"{name}\" {problem}",
                shorten(&j.id)
            ))
        };
        if let Some(first) = ids.insert(&j.id, i) {
            return Err(field("id", &format!("repeats jobs[{first}]'s id")));
        }
        if !(j.input_mb.is_finite() && j.input_mb > 0.0 && j.input_mb <= MAX_INPUT_MB) {
            return Err(field(
                "input_mb",
                &format!(
                    "must be a positive number up to {MAX_INPUT_MB:e} (an exabyte), got {}",
                    j.input_mb
                ),
            ));
        }
        if !(j.submit_s.is_finite() && j.submit_s >= 0.0 && j.submit_s <= MAX_SUBMIT_S) {
            return Err(field(
                "submit_s",
                &format!(
                    "must be a number from 0 to {MAX_SUBMIT_S:e} (100 years), got {}",
                    j.submit_s
                ),
            ));
        }
        if !(j.weight.is_finite() && j.weight > 0.0) {
            return Err(field("weight", "must be a positive number"));
        }
        let mut spec = JobSpec::shaped(
            j.id.clone(),
            (j.submit_s * 1000.0) as u64,
            (j.input_mb * MIB as f64) as u64,
            j.profile,
        );
        spec.weight = j.weight;
        spec.input_path = j.input_path.clone();
        if let Some(r) = j.reduces {
            spec.reduces = r;
            if r == 0 {
                spec.shuffle_bytes = 0;
                spec.output_bytes = 0;
            }
        }
        jobs.push(spec);
    }
    jobs.sort_by_key(|j| j.submit_ms);
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swim_lines_scale_and_floor() {
        let text = "job0\t0\t0\t600000000\t0\t6000\njob1\t12\t12\t6000000000000\t600000000000\t60000\tinputPath7\t\t\n";
        let jobs = parse_swim("FB-2009_x.tsv", text, 60).unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!(jobs[0].input_bytes, 64 * MIB, "floored to 64 MB");
        assert_eq!(jobs[0].reduces, 0, "no shuffle: map-only");
        assert_eq!(jobs[1].submit_ms, 12_000);
        assert_eq!(jobs[1].input_bytes, 600_000_000_000);
        assert_eq!(jobs[1].shuffle_bytes, 60_000_000_000);
        assert_eq!(jobs[1].reduces, 56);
        assert_eq!(jobs[1].input_path.as_deref(), Some("inputPath7"));
    }

    #[test]
    fn swim_errors_name_file_and_line() {
        let e =
            parse_swim("t.tsv", "job0\t0\t0\t1\t2\t3\njob1\tsoon\t0\t1\t2\t3\n", 10).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.tsv, line 2: field 2 (submit_time_s) is not a number >= 0: \"soon\""
        );
        let e = parse_swim("t.tsv", "job0\t0\n", 10).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.tsv, line 1: expected at least 6 tab-separated fields, found 2"
        );
    }

    #[test]
    fn job_file_and_its_errors() {
        let jobs = parse_job_file(
            "j.json",
            r#"{"jobs":[{"id":"b","submit_s":5,"input_mb":256,"profile":"terasort"},
                        {"id":"a","input_mb":128,"profile":"wordcount","weight":2,"reduces":0}]}"#,
        )
        .unwrap();
        assert_eq!(jobs[0].id, "a", "sorted by submit time");
        assert_eq!(jobs[0].reduces, 0);
        assert_eq!(jobs[0].weight, 2.0);
        assert_eq!(jobs[1].submit_ms, 5000);
        assert_eq!(jobs[1].reduces, 1);
        let e = parse_job_file(
            "j.json",
            r#"{"jobs":[{"id":"x","input_mb":-1,"profile":"wordcount"}]}"#,
        );
        assert_eq!(
            e.unwrap_err().to_string(),
            "j.json: jobs[0] (\"x\"): field \"input_mb\" must be a positive number up to 1e12 (an exabyte), got -1"
        );
        let e = parse_job_file(
            "j.json",
            r#"{"jobs":[{"id":"x","input_mb":1,"profile":"grep"}]}"#,
        );
        assert!(e
            .unwrap_err()
            .to_string()
            .starts_with("j.json: field jobs[0].profile: unknown variant `grep`"));
    }

    #[test]
    fn workload_names() {
        assert_eq!(Workload::parse("mixed").unwrap(), Workload::Mixed);
        assert_eq!(
            Workload::parse("swim:/x.tsv").unwrap(),
            Workload::Swim {
                file: "/x.tsv".into()
            }
        );
        assert_eq!(
            Workload::parse("pi").unwrap_err().to_string(),
            "unknown workload \"pi\"; use fb2009-6h, wordcount, terasort, mixed, swim:FILE, sls:FILE or rumen:FILE"
        );
        assert_eq!(Workload::parse("fb2009-6h").unwrap(), Workload::Fb2009Hours);
        let jobs = Workload::Mixed.jobs(100, 1, None, u64::MAX).unwrap();
        assert_eq!(jobs.len(), 40);
        assert_eq!(jobs[1].profile, Profile::Terasort);
        assert!(jobs.windows(2).all(|w| w[0].submit_ms <= w[1].submit_ms));
    }
}
