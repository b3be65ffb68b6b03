//! Traces in and out: Hadoop's Scheduler Load Simulator (SLS) trace and
//! node file, and Rumen job traces, read into jobs the simulator replays;
//! and any workload written out as an SLS trace and node file.
//!
//! Formats, checked against hadoop-sls 3.4.2 (`AMRunner`,
//! `AMDefinitionSLS`, `TaskContainerDefinition`, `SLSUtils`):
//! - SLS trace: a stream of concatenated JSON objects. A job has
//!   `job.start.ms`, `job.id`, `job.count`, `am.type` and `job.tasks`, each
//!   task `count`, `container.host` (`/rack/host`), a duration
//!   (`container.duration.ms`, else `duration.ms`, else `container.end.ms -
//!   container.start.ms`, > 0) and `container.type` (`map` | `reduce`). SLS
//!   reads every value as a string and parses it as an integer, so numbers
//!   are written as integers. An object `{"num.nodes": N, "num.racks": R}`
//!   adds nodes `/rack{i % R}/node{i}`.
//! - SLS node file: a stream of `{"rack": "r", "nodes": [{"node": "h"}]}`,
//!   host path `/r/h`.
//! - Rumen: a stream of `LoggedJob` objects (`jobID`, `submitTime`,
//!   `mapTasks`, `reduceTasks`; a task's `attempts` with `hostName`,
//!   `startTime`, `finishTime`, `hdfsBytesRead`, and its
//!   `preferredLocations`). As SLS does, a task's duration is its last
//!   attempt's; its input lives on its preferred locations.

use std::collections::HashMap;
use std::io::Write;

use serde::{Deserialize, Serialize};

use crate::config::{NamedNode, SimConfig};
use crate::engine::{place_blocks, SimError, Streams, HORIZON_MS};
use crate::load::{map_ms, reduce_ms};
use crate::workload::{
    read_text, JobSpec, Profile, TraceTask, TraceTasks, Workload, WorkloadError,
};

/// Bounds on what a trace may hold.
#[derive(Clone, Copy, Debug)]
pub struct TraceLimits {
    /// Largest file read.
    pub max_bytes: u64,
    /// Most nodes the trace may name or generate.
    pub max_nodes: usize,
    /// Most maps and reduces in all (counts multiplied out).
    pub max_tasks: usize,
}

/// Longest host or rack name read (a DNS name is at most 253 characters;
/// a rack path a few levels of them).
const MAX_NAME: usize = 1024;

/// Jobs read from a trace, and the nodes it names.
#[derive(Debug, Default)]
pub struct Trace {
    pub jobs: Vec<JobSpec>,
    /// Every host the trace names (or generates), with its rack, in order
    /// of first appearance.
    pub nodes: Vec<NamedNode>,
}

/// A workload's jobs, and the cluster its trace names (SLS, Rumen).
#[derive(Debug)]
pub struct Loaded {
    pub jobs: Vec<JobSpec>,
    pub nodes: Option<Vec<NamedNode>>,
}

/// The jobs of `w` and, for a trace, the nodes it names. `limits` bound
/// the file and, for a trace, its nodes and tasks.
pub fn load(
    w: &Workload,
    nodes: usize,
    seed: u64,
    max_jobs: Option<usize>,
    limits: &TraceLimits,
) -> Result<Loaded, WorkloadError> {
    let trace = match w {
        Workload::Sls { file } => read_sls(file, limits)?,
        Workload::Rumen { file } => read_rumen(file, limits)?,
        _ => {
            return Ok(Loaded {
                jobs: w.jobs(nodes, seed, max_jobs, limits.max_bytes)?,
                nodes: None,
            })
        }
    };
    let mut jobs = trace.jobs;
    if let Some(n) = max_jobs {
        jobs.truncate(n);
    }
    Ok(Loaded {
        jobs,
        nodes: Some(trace.nodes),
    })
}

/// Splits a host path `/rack/host` (or `/dc/rack/host`) as Hadoop's
/// `NodeBase` does: the last component is the host, the rest its network
/// location; a bare host name is on `/default-rack`.
pub fn split_host_path(path: &str) -> (String, String) {
    match path.rfind('/') {
        Some(i) if i > 0 => (path[i + 1..].to_string(), path[..i].to_string()),
        Some(_) => (path[1..].to_string(), "/default-rack".to_string()),
        None => (path.to_string(), "/default-rack".to_string()),
    }
}

/// Nodes met while reading, each host once, on one rack.
struct Nodes {
    list: Vec<NamedNode>,
    index: HashMap<String, usize>,
    max: usize,
}

impl Nodes {
    fn new(max: usize) -> Nodes {
        Nodes {
            list: Vec::new(),
            index: HashMap::new(),
            max,
        }
    }

    /// Adds `host` on `rack`, or checks that it is where it was.
    fn add(&mut self, host: &str, rack: &str) -> Result<(), String> {
        if host.is_empty() || host.len() > MAX_NAME || rack.len() > MAX_NAME {
            return Err(format!(
                "host {:?} on rack {:?}: names must be 1 to {MAX_NAME} characters",
                shorten(host),
                shorten(rack)
            ));
        }
        match self.index.get(host) {
            Some(&i) if self.list[i].rack != rack => Err(format!(
                "host {host:?} is on rack {:?} here and on rack {:?} before",
                rack, self.list[i].rack
            )),
            Some(_) => Ok(()),
            None if self.list.len() >= self.max => {
                Err(format!("more than {} nodes (--max-nodes)", self.max))
            }
            None => {
                self.index.insert(host.to_string(), self.list.len());
                self.list.push(NamedNode {
                    host: host.to_string(),
                    rack: rack.to_string(),
                });
                Ok(())
            }
        }
    }
}

fn shorten(v: &str) -> String {
    match v.char_indices().nth(60) {
        Some((cut, _)) => format!("{}... ({} bytes)", &v[..cut], v.len()),
        None => v.to_string(),
    }
}

/// Line numbers of byte offsets in a text read front to back.
struct Lines<'t> {
    text: &'t str,
    offset: usize,
    line: usize,
}

impl<'t> Lines<'t> {
    fn new(text: &'t str) -> Lines<'t> {
        Lines {
            text,
            offset: 0,
            line: 1,
        }
    }

    /// Line of the first non-blank character at or after `offset` (which
    /// must not go backwards).
    fn at(&mut self, offset: usize) -> usize {
        let rest = &self.text[offset..];
        let start = offset + (rest.len() - rest.trim_start().len());
        self.line += self.text.as_bytes()[self.offset..start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.offset = start;
        self.line
    }
}

/// A value SLS reads as a string and parses as an integer: a JSON integer
/// or a string holding one.
#[derive(Deserialize)]
#[serde(untagged)]
enum Scalar {
    Int(i64),
    Str(String),
    Other(serde_json::Value),
}

impl Scalar {
    fn int(&self, key: &str) -> Result<i64, String> {
        match self {
            Scalar::Int(v) => Ok(*v),
            Scalar::Str(s) => s
                .parse()
                .map_err(|_| format!("\"{key}\" must be an integer, got {:?}", shorten(s))),
            Scalar::Other(v) => Err(format!(
                "\"{key}\" must be an integer, got {}",
                shorten(&v.to_string())
            )),
        }
    }

    fn text(&self) -> String {
        match self {
            Scalar::Int(v) => v.to_string(),
            Scalar::Str(s) => s.clone(),
            Scalar::Other(v) => v.to_string(),
        }
    }
}

fn int_in(v: Option<&Scalar>, key: &str, lo: i64, hi: i64) -> Result<Option<i64>, String> {
    match v {
        None => Ok(None),
        Some(v) => {
            let n = v.int(key)?;
            if n < lo || n > hi {
                Err(format!("\"{key}\" must be from {lo} to {hi}, got {n}"))
            } else {
                Ok(Some(n))
            }
        }
    }
}

/// Longest duration or start time read: the simulator's horizon.
const MAX_MS: i64 = HORIZON_MS as i64;

#[derive(Deserialize)]
struct SlsObject {
    #[serde(rename = "num.nodes")]
    num_nodes: Option<Scalar>,
    #[serde(rename = "num.racks")]
    num_racks: Option<Scalar>,
    #[serde(rename = "am.type")]
    am_type: Option<String>,
    #[serde(rename = "job.start.ms")]
    start: Option<Scalar>,
    #[serde(rename = "job.id")]
    id: Option<Scalar>,
    #[serde(rename = "job.count")]
    count: Option<Scalar>,
    #[serde(rename = "job.tasks")]
    tasks: Option<Vec<SlsTask>>,
}

#[derive(Deserialize)]
struct SlsTask {
    count: Option<Scalar>,
    #[serde(rename = "container.host")]
    host: Option<String>,
    #[serde(rename = "container.duration.ms")]
    duration: Option<Scalar>,
    #[serde(rename = "duration.ms")]
    duration_legacy: Option<Scalar>,
    #[serde(rename = "container.start.ms")]
    start: Option<Scalar>,
    #[serde(rename = "container.end.ms")]
    end: Option<Scalar>,
    #[serde(rename = "container.type")]
    kind: Option<String>,
}

impl SlsTask {
    /// SLS's `validateAndGetDuration`: the duration, else the legacy key,
    /// else end - start; it must be positive.
    fn duration(&self) -> Result<u64, String> {
        let d = if let Some(d) = &self.duration {
            d.int("container.duration.ms")?
        } else if let Some(d) = &self.duration_legacy {
            d.int("duration.ms")?
        } else if let (Some(s), Some(e)) = (&self.start, &self.end) {
            e.int("container.end.ms")?
                .saturating_sub(s.int("container.start.ms")?)
        } else {
            return Err("has no duration (container.duration.ms, duration.ms, or container.start.ms and container.end.ms)".into());
        };
        if d <= 0 || d > MAX_MS {
            return Err(format!(
                "duration must be from 1 to {MAX_MS} ms (the simulator's horizon), got {d}"
            ));
        }
        Ok(d as u64)
    }
}

/// Reads an SLS trace.
pub fn read_sls(file: &str, limits: &TraceLimits) -> Result<Trace, WorkloadError> {
    let text = read_text(file, limits.max_bytes)?;
    parse_sls(file, &text, limits)
}

pub fn parse_sls(file: &str, text: &str, limits: &TraceLimits) -> Result<Trace, WorkloadError> {
    let mut lines = Lines::new(text);
    let mut nodes = Nodes::new(limits.max_nodes);
    let mut jobs: Vec<JobSpec> = Vec::new();
    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut tasks_total: u64 = 0;
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<SlsObject>();
    let mut object = 0usize;
    loop {
        let offset = stream.byte_offset();
        let line = lines.at(offset);
        let next = match stream.next() {
            None => break,
            Some(Err(e)) => {
                return Err(WorkloadError::Line {
                    file: file.into(),
                    line: e.line(),
                    message: format!("not an SLS trace object: {e}"),
                })
            }
            Some(Ok(o)) => o,
        };
        object += 1;
        let err = |message: String| WorkloadError::Line {
            file: file.into(),
            line,
            message: format!("object {object}: {message}"),
        };
        if let Some(n) = &next.num_nodes {
            let n = int_in(Some(n), "num.nodes", 1, limits.max_nodes as i64).map_err(err)?;
            let racks = int_in(next.num_racks.as_ref(), "num.racks", 1, i64::MAX)
                .map_err(err)?
                .unwrap_or(1);
            let n = n.unwrap_or(0) as usize;
            // SLSUtils.generateNodes: at most one rack per node.
            let racks = (racks as usize).min(n);
            for i in 0..n {
                nodes
                    .add(&format!("node{i}"), &format!("/rack{}", i % racks))
                    .map_err(err)?;
            }
            if next.tasks.is_none() {
                continue;
            }
        }
        let Some(tasks) = &next.tasks else {
            return Err(err(
                "has no \"job.tasks\" (SLS skips such a job: \"No task for the job!\")".into(),
            ));
        };
        let id = next
            .id
            .as_ref()
            .map(Scalar::text)
            .unwrap_or_else(|| format!("job_{object}"));
        let err = |message: String| WorkloadError::Line {
            file: file.into(),
            line,
            message: format!("job {:?}: {message}", shorten(&id)),
        };
        if let Some(t) = &next.am_type {
            if t != "mapreduce" {
                return Err(err(format!(
                    "\"am.type\" is {:?}; only MapReduce jobs (mapreduce) are simulated",
                    shorten(t)
                )));
            }
        }
        if tasks.is_empty() {
            return Err(err("\"job.tasks\" is empty".into()));
        }
        let start = int_in(next.start.as_ref(), "job.start.ms", 0, MAX_MS)
            .map_err(err)?
            .unwrap_or(0) as u64;
        let copies = int_in(next.count.as_ref(), "job.count", i64::MIN, i64::MAX)
            .map_err(err)?
            .unwrap_or(1)
            .max(1) as u64;
        let mut spec_tasks = TraceTasks::default();
        let mut job_tasks: u64 = 0;
        for (k, t) in tasks.iter().enumerate() {
            let terr = |m: String| err(format!("task {k}: {m}"));
            let count = int_in(t.count.as_ref(), "count", i64::MIN, i64::MAX)
                .map_err(terr)?
                .unwrap_or(1)
                .max(1) as u64;
            job_tasks = job_tasks.saturating_add(count);
            let total = tasks_total.saturating_add(job_tasks.saturating_mul(copies));
            if total > limits.max_tasks as u64 {
                return Err(terr(format!(
                    "brings the trace past {} maps and reduces (--max-tasks)",
                    limits.max_tasks
                )));
            }
            let duration_ms = t.duration().map_err(terr)?;
            let hosts = match &t.host {
                Some(path) => {
                    let (host, rack) = split_host_path(path);
                    nodes.add(&host, &rack).map_err(terr)?;
                    vec![host]
                }
                None => Vec::new(),
            };
            let task = TraceTask {
                hosts,
                duration_ms,
                input_bytes: None,
            };
            let list = match t.kind.as_deref() {
                None | Some("map") => &mut spec_tasks.maps,
                Some("reduce") => &mut spec_tasks.reduces,
                Some(other) => {
                    return Err(terr(format!(
                        "\"container.type\" must be map or reduce, got {:?}",
                        shorten(other)
                    )))
                }
            };
            list.extend(std::iter::repeat_n(task, count as usize));
        }
        tasks_total += job_tasks * copies;
        for c in 0..copies {
            let id = if copies > 1 {
                format!("{id}_{c}")
            } else {
                id.clone()
            };
            if let Some(first) = ids.insert(id.clone(), line) {
                return Err(err(format!(
                    "job id {id:?} appears again (first on line {first})"
                )));
            }
            jobs.push(trace_job(id, start, spec_tasks.clone()));
        }
    }
    jobs.sort_by_key(|j| j.submit_ms);
    Ok(Trace {
        jobs,
        nodes: nodes.list,
    })
}

fn trace_job(id: String, submit_ms: u64, tasks: TraceTasks) -> JobSpec {
    let mut spec = JobSpec::shaped(id, submit_ms, 0, Profile::Generic);
    spec.shuffle_bytes = 0;
    spec.output_bytes = 0;
    spec.reduces = tasks.reduces.len() as u32;
    spec.input_bytes = tasks.maps.iter().filter_map(|t| t.input_bytes).sum();
    spec.tasks = Some(Box::new(tasks));
    spec
}

#[derive(Deserialize)]
struct SlsRack {
    rack: Option<String>,
    nodes: Option<Vec<SlsNode>>,
}

#[derive(Deserialize)]
struct SlsNode {
    node: Option<String>,
}

/// Reads an SLS node file (`--nodes` of SLS).
pub fn read_sls_nodes(file: &str, limits: &TraceLimits) -> Result<Vec<NamedNode>, WorkloadError> {
    let text = read_text(file, limits.max_bytes)?;
    parse_sls_nodes(file, &text, limits)
}

pub fn parse_sls_nodes(
    file: &str,
    text: &str,
    limits: &TraceLimits,
) -> Result<Vec<NamedNode>, WorkloadError> {
    let mut lines = Lines::new(text);
    let mut nodes = Nodes::new(limits.max_nodes);
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<SlsRack>();
    loop {
        let line = lines.at(stream.byte_offset());
        let rack = match stream.next() {
            None => break,
            Some(Err(e)) => {
                return Err(WorkloadError::Line {
                    file: file.into(),
                    line: e.line(),
                    message: format!("not an SLS node file object: {e}"),
                })
            }
            Some(Ok(r)) => r,
        };
        let err = |message: String| WorkloadError::Line {
            file: file.into(),
            line,
            message,
        };
        let (Some(name), Some(list)) = (rack.rack, rack.nodes) else {
            return Err(err("an object needs \"rack\" and \"nodes\"".into()));
        };
        let rack = format!("/{}", name.trim_start_matches('/'));
        for (k, n) in list.iter().enumerate() {
            let Some(host) = &n.node else {
                return Err(err(format!("rack {name:?}: nodes[{k}] has no \"node\"")));
            };
            nodes
                .add(host, &rack)
                .map_err(|m| err(format!("rack {name:?}: {m}")))?;
        }
    }
    if nodes.list.is_empty() {
        return Err(WorkloadError::JobFile {
            file: file.into(),
            message: "names no node".into(),
        });
    }
    Ok(nodes.list)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RumenJob {
    #[serde(rename = "jobID")]
    job_id: Option<String>,
    submit_time: Option<i64>,
    #[serde(default)]
    map_tasks: Vec<RumenTask>,
    #[serde(default)]
    reduce_tasks: Vec<RumenTask>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RumenTask {
    #[serde(rename = "taskID")]
    task_id: Option<String>,
    #[serde(default)]
    attempts: Vec<RumenAttempt>,
    #[serde(default)]
    preferred_locations: Option<Vec<RumenLocation>>,
    input_bytes: Option<i64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RumenAttempt {
    host_name: Option<String>,
    start_time: Option<i64>,
    finish_time: Option<i64>,
    hdfs_bytes_read: Option<i64>,
}

#[derive(Deserialize)]
struct RumenLocation {
    layers: Vec<String>,
}

/// Reads a Rumen job trace.
pub fn read_rumen(file: &str, limits: &TraceLimits) -> Result<Trace, WorkloadError> {
    let text = read_text(file, limits.max_bytes)?;
    parse_rumen(file, &text, limits)
}

pub fn parse_rumen(file: &str, text: &str, limits: &TraceLimits) -> Result<Trace, WorkloadError> {
    let mut lines = Lines::new(text);
    let mut nodes = Nodes::new(limits.max_nodes);
    let mut jobs: Vec<(i64, JobSpec)> = Vec::new();
    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut tasks_total = 0usize;
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<RumenJob>();
    loop {
        let line = lines.at(stream.byte_offset());
        let job = match stream.next() {
            None => break,
            Some(Err(e)) => {
                return Err(WorkloadError::Line {
                    file: file.into(),
                    line: e.line(),
                    message: format!("not a Rumen job: {e}"),
                })
            }
            Some(Ok(j)) => j,
        };
        let id = job
            .job_id
            .clone()
            .unwrap_or_else(|| format!("job_{}", jobs.len() + 1));
        let err = |message: String| WorkloadError::Line {
            file: file.into(),
            line,
            message: format!("job {:?}: {message}", shorten(&id)),
        };
        let Some(submit) = job.submit_time.filter(|&t| t >= 0) else {
            return Err(err("needs a \"submitTime\" >= 0 (ms)".into()));
        };
        tasks_total += job.map_tasks.len() + job.reduce_tasks.len();
        if tasks_total > limits.max_tasks {
            return Err(err(format!(
                "brings the trace past {} maps and reduces (--max-tasks)",
                limits.max_tasks
            )));
        }
        let mut tasks = TraceTasks::default();
        for (kind, list, out) in [
            ("map", &job.map_tasks, &mut tasks.maps),
            ("reduce", &job.reduce_tasks, &mut tasks.reduces),
        ] {
            for (k, t) in list.iter().enumerate() {
                let name = t.task_id.clone().unwrap_or_else(|| format!("{kind} {k}"));
                let terr = |m: String| err(format!("task {:?}: {m}", shorten(&name)));
                // SLS replays the last attempt.
                let Some(a) = t.attempts.last() else {
                    return Err(terr("has no attempt".into()));
                };
                let (Some(s), Some(f)) = (a.start_time, a.finish_time) else {
                    return Err(terr(
                        "its last attempt has no \"startTime\" and \"finishTime\"".into(),
                    ));
                };
                let d = f.saturating_sub(s);
                if d <= 0 || d > MAX_MS {
                    return Err(terr(format!(
                        "its last attempt runs {d} ms; it must be from 1 to {MAX_MS} ms"
                    )));
                }
                if let Some(path) = &a.host_name {
                    let (host, rack) = split_host_path(path);
                    nodes.add(&host, &rack).map_err(terr)?;
                }
                let mut hosts = Vec::new();
                if kind == "map" {
                    for loc in t.preferred_locations.iter().flatten() {
                        let Some((host, rack)) = loc.layers.split_last() else {
                            continue;
                        };
                        let rack = if rack.is_empty() {
                            "/default-rack".to_string()
                        } else {
                            format!("/{}", rack.join("/"))
                        };
                        nodes.add(host, &rack).map_err(terr)?;
                        hosts.push(host.clone());
                    }
                }
                let bytes = a
                    .hdfs_bytes_read
                    .filter(|&b| b > 0)
                    .or(t.input_bytes.filter(|&b| b > 0))
                    .map(|b| b as u64)
                    .filter(|_| kind == "map");
                out.push(TraceTask {
                    hosts,
                    duration_ms: d as u64,
                    input_bytes: bytes,
                });
            }
        }
        if tasks.maps.is_empty() && tasks.reduces.is_empty() {
            return Err(err("has no map or reduce task".into()));
        }
        if let Some(first) = ids.insert(id.clone(), line) {
            return Err(err(format!("appears again (first on line {first})")));
        }
        jobs.push((submit, trace_job(id, 0, tasks)));
    }
    // Submit times relative to the first job's.
    let first = jobs.iter().map(|(s, _)| *s).min().unwrap_or(0);
    let mut out = Vec::with_capacity(jobs.len());
    for (s, mut j) in jobs {
        let rel = (s - first) as u64;
        if rel > HORIZON_MS {
            return Err(WorkloadError::JobFile {
                file: file.into(),
                message: format!(
                    "job {:?} is submitted {} s after the first, past the simulator's horizon",
                    j.id,
                    rel / 1000
                ),
            });
        }
        j.submit_ms = rel;
        out.push(j);
    }
    out.sort_by_key(|j| j.submit_ms);
    Ok(Trace {
        jobs: out,
        nodes: nodes.list,
    })
}

/// One SLS job object as `trace --to sls` writes it.
#[derive(Serialize)]
struct SlsJobOut<'a> {
    #[serde(rename = "am.type")]
    am_type: &'static str,
    #[serde(rename = "job.start.ms")]
    start: u64,
    #[serde(rename = "job.queue.name")]
    queue: &'a str,
    #[serde(rename = "job.id")]
    id: &'a str,
    #[serde(rename = "job.tasks")]
    tasks: Vec<SlsTaskOut>,
}

#[derive(Serialize)]
struct SlsTaskOut {
    count: u32,
    #[serde(rename = "container.host", skip_serializing_if = "Option::is_none")]
    host: Option<String>,
    #[serde(rename = "container.duration.ms")]
    duration: u64,
    #[serde(rename = "container.priority")]
    priority: i32,
    #[serde(rename = "container.type")]
    kind: &'static str,
    #[serde(rename = "container.memory-mb")]
    memory_mb: i64,
    #[serde(rename = "container.vcores")]
    vcores: i32,
}

#[derive(Serialize)]
struct SlsRackOut<'a> {
    rack: &'a str,
    nodes: Vec<SlsNodeOut<'a>>,
}

#[derive(Serialize)]
struct SlsNodeOut<'a> {
    node: &'a str,
    #[serde(rename = "memory-mb")]
    memory_mb: i64,
    vcores: i32,
}

/// What [`write_sls`] wrote.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SlsSummary {
    pub jobs: usize,
    pub maps: u64,
    pub reduces: u64,
    pub nodes: usize,
    pub racks: usize,
}

/// A job's tasks as the writers put them out: per map its block's replica
/// nodes, bytes and node-local duration; per reduce its duration.
struct OutTasks {
    maps: Vec<(Vec<u32>, u64, u64)>,
    reduces: Vec<u64>,
}

/// The cluster of `cfg` and each job's tasks: maps on the blocks `simulate`
/// places with `cfg.seed`, durations the simulator's node-local run (JVM
/// start-up, local read, compute at the first replica's speed), reduces the
/// simulator's reduce once the maps are done. A trace job keeps its tasks.
fn out_tasks(
    cfg: &SimConfig,
    jobs: &[JobSpec],
) -> Result<(crate::config::Layout, Vec<OutTasks>), SimError> {
    let layout = cfg.layout();
    let mut streams = Streams::draw(cfg);
    let blocks = place_blocks(cfg, jobs, &layout, &mut streams.placement)?;
    let ms = |v: f64, what: &dyn Fn() -> String| -> Result<u64, SimError> {
        // SLS parses a duration with Integer.parseInt.
        let v = v.round().max(1.0);
        if v.is_finite() && v <= i32::MAX as f64 {
            Ok(v as u64)
        } else {
            Err(SimError::Config(format!(
                "{} lasts {v:e} ms, more than SLS reads (2^31 - 1 ms)",
                what()
            )))
        }
    };
    let mut out = Vec::with_capacity(jobs.len());
    for (spec, job_blocks) in jobs.iter().zip(&blocks.per_job) {
        let mut maps = Vec::with_capacity(job_blocks.len());
        for (m, &b) in job_blocks.iter().enumerate() {
            let replicas = blocks.replicas[b as usize].clone();
            let bytes = blocks.size[b as usize];
            let duration = match &spec.tasks {
                Some(t) => t.maps[m].duration_ms,
                None => {
                    let speed = cfg.speed(replicas.first().copied().unwrap_or(0) as usize);
                    ms(map_ms(spec, cfg, bytes, speed), &|| {
                        format!("map {m} of job {:?}", spec.id)
                    })?
                }
            };
            maps.push((replicas, bytes, duration));
        }
        let reduces = match &spec.tasks {
            Some(t) => t.reduces.iter().map(|r| r.duration_ms).collect(),
            None => {
                let d = ms(reduce_ms(spec, cfg), &|| {
                    format!("a reduce of job {:?}", spec.id)
                })?;
                vec![d; spec.reduces as usize]
            }
        };
        out.push(OutTasks { maps, reduces });
    }
    Ok((layout, out))
}

fn write_err(what: &'static str) -> impl Fn(std::io::Error) -> SimError {
    move |e| SimError::Config(format!("writing the {what}: {e}"))
}

/// Writes `jobs` on the cluster of `cfg` as an SLS trace and node file:
/// each map's `container.host` is the first replica of its block as
/// `simulate` places it with `cfg.seed` (HDFS's writer-local replica; SLS
/// names one host per container), durations as [`out_tasks`] gives them.
/// The queue is `default`, the container size `cfg`'s.
pub fn write_sls(
    cfg: &SimConfig,
    jobs: &[JobSpec],
    trace: &mut dyn Write,
    node_file: &mut dyn Write,
) -> Result<SlsSummary, SimError> {
    let io = write_err("SLS files");
    let (layout, all) = out_tasks(cfg, jobs)?;
    let cap = cfg.container();
    let path = |n: u32| {
        format!(
            "{}/{}",
            layout.racks[layout.node_rack[n as usize] as usize], layout.hosts[n as usize]
        )
    };
    let mut summary = SlsSummary {
        jobs: jobs.len(),
        maps: 0,
        reduces: 0,
        nodes: layout.hosts.len(),
        racks: layout.racks.len(),
    };
    for (spec, job) in jobs.iter().zip(&all) {
        let mut tasks: Vec<SlsTaskOut> = Vec::new();
        // Consecutive equal tasks (a job's reduces) as one entry with a count.
        let mut push = |t: SlsTaskOut| match tasks.last_mut() {
            Some(last)
                if (&last.host, last.duration, last.kind) == (&t.host, t.duration, t.kind) =>
            {
                last.count += 1
            }
            _ => tasks.push(t),
        };
        let task = |host: Option<String>, duration, reduce: bool| SlsTaskOut {
            count: 1,
            host,
            duration,
            priority: if reduce {
                crate::engine::PRIORITY_REDUCE
            } else {
                crate::engine::PRIORITY_MAP
            },
            kind: if reduce { "reduce" } else { "map" },
            memory_mb: cap.memory_mb,
            vcores: cap.vcores,
        };
        for (replicas, _, duration) in &job.maps {
            push(task(replicas.first().copied().map(path), *duration, false));
        }
        for &d in &job.reduces {
            push(task(None, d, true));
        }
        summary.maps += job.maps.len() as u64;
        summary.reduces += job.reduces.len() as u64;
        let out = SlsJobOut {
            am_type: "mapreduce",
            start: spec.submit_ms,
            queue: "default",
            id: &spec.id,
            tasks,
        };
        serde_json::to_writer(&mut *trace, &out).map_err(|e| io(e.into()))?;
        trace.write_all(b"\n").map_err(&io)?;
    }
    let capacity = cfg.node_capacity();
    for (r, rack) in layout.racks.iter().enumerate() {
        let nodes = layout
            .hosts
            .iter()
            .zip(&layout.node_rack)
            .filter(|(_, &nr)| nr as usize == r)
            .map(|(h, _)| SlsNodeOut {
                node: h,
                memory_mb: capacity.memory_mb,
                vcores: capacity.vcores,
            })
            .collect();
        let out = SlsRackOut {
            rack: rack.trim_start_matches('/'),
            nodes,
        };
        serde_json::to_writer(&mut *node_file, &out).map_err(|e| io(e.into()))?;
        node_file.write_all(b"\n").map_err(&io)?;
    }
    Ok(summary)
}

/// Writes `jobs` as a Rumen job trace (one `LoggedJob` object per line):
/// each map names all its block's replicas as `preferredLocations` and
/// runs one attempt on the first from the job's submission, each reduce
/// one attempt off any host. Times are milliseconds from 0.
pub fn write_rumen(
    cfg: &SimConfig,
    jobs: &[JobSpec],
    out: &mut dyn Write,
) -> Result<usize, SimError> {
    use serde_json::json;
    let io = write_err("Rumen trace");
    let (layout, all) = out_tasks(cfg, jobs)?;
    let rack_of =
        |n: u32| layout.racks[layout.node_rack[n as usize] as usize].trim_start_matches('/');
    for (j, (spec, job)) in jobs.iter().zip(&all).enumerate() {
        let start = spec.submit_ms;
        let maps: Vec<_> = job
            .maps
            .iter()
            .enumerate()
            .map(|(m, (replicas, bytes, d))| {
                let locs: Vec<_> = replicas
                    .iter()
                    .map(|&n| json!({"layers": [rack_of(n), layout.hosts[n as usize]]}))
                    .collect();
                let host = replicas
                    .first()
                    .map(|&n| format!("/{}/{}", rack_of(n), layout.hosts[n as usize]));
                json!({
                    "taskID": format!("task_{j}_m_{m:06}"),
                    "taskType": "MAP",
                    "preferredLocations": locs,
                    "attempts": [{"hostName": host, "startTime": start, "finishTime": start + d, "hdfsBytesRead": bytes, "result": "SUCCESS"}],
                })
            })
            .collect();
        let reduces: Vec<_> = job
            .reduces
            .iter()
            .enumerate()
            .map(|(r, d)| {
                json!({
                    "taskID": format!("task_{j}_r_{r:06}"),
                    "taskType": "REDUCE",
                    "attempts": [{"startTime": start, "finishTime": start + d, "result": "SUCCESS"}],
                })
            })
            .collect();
        let o = json!({
            "jobID": spec.id,
            "submitTime": start,
            "queue": "default",
            "totalMaps": maps.len(),
            "totalReduces": reduces.len(),
            "mapTasks": maps,
            "reduceTasks": reduces,
        });
        serde_json::to_writer(&mut *out, &o).map_err(|e| io(e.into()))?;
        out.write_all(b"\n").map_err(&io)?;
    }
    Ok(jobs.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: TraceLimits = TraceLimits {
        max_bytes: 1 << 20,
        max_nodes: 100,
        max_tasks: 1000,
    };

    fn err_of(r: Result<Trace, WorkloadError>) -> String {
        match r {
            Ok(_) => panic!("expected an error"),
            Err(e) => e.to_string(),
        }
    }

    const SLS: &str = r#"{"am.type": "mapreduce", "job.start.ms": 0, "job.id": "job_1",
 "job.tasks": [
  {"count": 2, "container.host": "/r1/h1", "container.duration.ms": 1000, "container.type": "map"},
  {"container.host": "/r2/h2", "duration.ms": "500", "container.type": "map"},
  {"container.start.ms": 10, "container.end.ms": 110, "container.type": "reduce"}]}
{"job.start.ms": 5000, "job.id": "job_2", "job.count": 2,
 "job.tasks": [{"container.host": "/r1/h3", "container.duration.ms": 7}]}
"#;

    #[test]
    fn reads_an_sls_trace() {
        let t = parse_sls("t.json", SLS, &LIMITS).unwrap();
        let ids: Vec<&str> = t.jobs.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(ids, ["job_1", "job_2_0", "job_2_1"]);
        let j = &t.jobs[0];
        let tasks = j.tasks.as_ref().unwrap();
        assert_eq!(tasks.maps.len(), 3);
        assert_eq!(tasks.maps[0].hosts, ["h1"]);
        assert_eq!(tasks.maps[2].duration_ms, 500);
        assert_eq!(tasks.reduces.len(), 1);
        assert_eq!(tasks.reduces[0].duration_ms, 100);
        assert_eq!(t.jobs[1].submit_ms, 5000);
        let hosts: Vec<(&str, &str)> = t
            .nodes
            .iter()
            .map(|n| (n.host.as_str(), n.rack.as_str()))
            .collect();
        assert_eq!(hosts, [("h1", "/r1"), ("h2", "/r2"), ("h3", "/r1")]);
    }

    #[test]
    fn sls_errors_name_file_line_job_and_task() {
        let bad = "{\"job.id\": \"j1\", \"job.tasks\": [{\"container.host\": \"/r/h\"}]}";
        let e = err_of(parse_sls("bad.json", bad, &LIMITS));
        assert!(
            e.starts_with("bad.json, line 1: job \"j1\": task 0: has no duration"),
            "{e}"
        );
        let bad = "\n\n{\"job.id\": \"j2\", \"job.tasks\": [{\"container.duration.ms\": \"ten\"}]}";
        let e = err_of(parse_sls("bad.json", bad, &LIMITS));
        assert!(e.contains("line 3: job \"j2\": task 0: \"container.duration.ms\" must be an integer, got \"ten\""), "{e}");
        let bad = "{\"job.id\": \"j3\", \"job.tasks\": [{\"container.duration.ms\": 5, \"container.type\": \"shuffle\"}]}";
        let e = err_of(parse_sls("bad.json", bad, &LIMITS));
        assert!(
            e.contains("\"container.type\" must be map or reduce, got \"shuffle\""),
            "{e}"
        );
        let e = err_of(parse_sls("bad.json", "{\"job.id\": 1,", &LIMITS));
        assert!(
            e.starts_with("bad.json, line 1: not an SLS trace object"),
            "{e}"
        );
        let bad = "{\"job.id\": \"j4\", \"job.count\": 600, \"job.tasks\": [{\"count\": 2, \"container.duration.ms\": 5}]}";
        let e = err_of(parse_sls("big.json", bad, &LIMITS));
        assert!(
            e.contains("past 1000 maps and reduces (--max-tasks)"),
            "{e}"
        );
        let bad = "{\"job.id\": \"j5\", \"job.tasks\": [{\"container.host\": \"/a/h\", \"container.duration.ms\": 5}, {\"container.host\": \"/b/h\", \"container.duration.ms\": 5}]}";
        let e = err_of(parse_sls("racks.json", bad, &LIMITS));
        assert!(
            e.contains("host \"h\" is on rack \"/b\" here and on rack \"/a\" before"),
            "{e}"
        );
        let twice = "{\"job.id\": \"j\", \"job.tasks\": [{\"container.duration.ms\": 5}]}\n{\"job.id\": \"j\", \"job.tasks\": [{\"container.duration.ms\": 5}]}";
        let e = err_of(parse_sls("twice.json", twice, &LIMITS));
        assert!(
            e.contains("line 2: job \"j\": job id \"j\" appears again (first on line 1)"),
            "{e}"
        );
    }

    #[test]
    fn reads_a_rumen_trace_and_names_bad_tasks() {
        let rumen = r#"{"jobID": "job_a", "submitTime": 1000,
  "mapTasks": [{"taskID": "m0", "preferredLocations": [{"layers": ["r1", "h1"]}],
                "attempts": [{"hostName": "/r1/h1", "startTime": 1100, "finishTime": 1600, "hdfsBytesRead": 1048576}]}],
  "reduceTasks": [{"taskID": "r0", "attempts": [{"hostName": "/r2/h2", "startTime": 1700, "finishTime": 2700}]}]}
{"jobID": "job_b", "submitTime": 3000, "mapTasks": [{"taskID": "m1",
  "attempts": [{"startTime": 5, "finishTime": 9}]}]}"#;
        let t = parse_rumen("r.json", rumen, &LIMITS).unwrap();
        assert_eq!(t.jobs.len(), 2);
        assert_eq!(t.jobs[1].submit_ms, 2000);
        let m = &t.jobs[0].tasks.as_ref().unwrap().maps[0];
        assert_eq!(
            (m.hosts.clone(), m.duration_ms, m.input_bytes),
            (vec!["h1".to_string()], 500, Some(1048576))
        );
        let bad = r#"{"jobID": "job_c", "submitTime": 0, "mapTasks": [{"taskID": "m9", "attempts": []}]}"#;
        let e = err_of(parse_rumen("r.json", bad, &LIMITS));
        assert_eq!(
            e,
            "r.json, line 1: job \"job_c\": task \"m9\": has no attempt"
        );
        let bad = r#"{"jobID": "job_d", "mapTasks": []}"#;
        let e = err_of(parse_rumen("r.json", bad, &LIMITS));
        assert!(e.contains("job \"job_d\": needs a \"submitTime\""), "{e}");
    }

    #[test]
    fn sls_node_file_and_its_errors() {
        let nodes = parse_sls_nodes(
            "n.json",
            "{\"rack\": \"r1\", \"nodes\": [{\"node\": \"a\"}, {\"node\": \"b\"}]}\n{\"rack\": \"/r2\", \"nodes\": [{\"node\": \"c\"}]}",
            &LIMITS,
        )
        .unwrap();
        assert_eq!(nodes.len(), 3);
        assert_eq!(nodes[2].rack, "/r2");
        let e = parse_sls_nodes("n.json", "{\"rack\": \"r1\", \"nodes\": [{}]}", &LIMITS)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "n.json, line 1: rack \"r1\": nodes[0] has no \"node\"");
    }

    /// A generated workload written as SLS and read back keeps its jobs,
    /// task counts and hosts; the node file gives the same cluster.
    #[test]
    fn sls_round_trip() {
        let mut cfg = SimConfig {
            nodes: 12,
            racks: 3,
            seed: 7,
            ..SimConfig::default()
        };
        cfg.set_slots(2).unwrap();
        let jobs = crate::Workload::Mixed
            .jobs(cfg.nodes, 7, Some(5), 1 << 20)
            .unwrap();
        let (mut trace, mut node_file) = (Vec::new(), Vec::new());
        let sum = write_sls(&cfg, &jobs, &mut trace, &mut node_file).unwrap();
        assert_eq!((sum.jobs, sum.nodes, sum.racks), (5, 12, 3));
        let back = parse_sls(
            "out.json",
            std::str::from_utf8(&trace).unwrap(),
            &TraceLimits {
                max_bytes: 1 << 30,
                max_nodes: 100,
                max_tasks: 1 << 20,
            },
        )
        .unwrap();
        assert_eq!(back.jobs.len(), 5);
        let maps: u64 = back.jobs.iter().map(|j| j.maps(cfg.block_size)).sum();
        let reduces: u64 = back.jobs.iter().map(|j| u64::from(j.reduce_count())).sum();
        assert_eq!((maps, reduces), (sum.maps, sum.reduces));
        let nodes = parse_sls_nodes(
            "nodes.json",
            std::str::from_utf8(&node_file).unwrap(),
            &LIMITS,
        )
        .unwrap();
        assert_eq!(nodes.len(), 12);
        // Every host a task names is in the node file, on the same rack.
        for n in &back.nodes {
            assert!(nodes.contains(n), "{n:?}");
        }
        // Written again from what was read: the same trace.
        let mut cfg2 = cfg.clone();
        cfg2.set_topology(nodes);
        let (mut again, mut _nf) = (Vec::new(), Vec::new());
        write_sls(&cfg2, &back.jobs, &mut again, &mut _nf).unwrap();
        assert_eq!(
            String::from_utf8(again).unwrap(),
            String::from_utf8(trace).unwrap()
        );
    }
}
