//! Errors of the core. Every message names the input that is wrong.

use thiserror::Error;

/// Bad instance or policy input.
#[derive(Debug, Error, PartialEq)]
pub enum CoreError {
    #[error("unknown policy {name:?}; known policies: {known}")]
    UnknownPolicy { name: String, known: String },
    #[error("policy {policy} decides at heartbeats and has no offline plan; run it in `spindle simulate`")]
    NoOfflinePlan { policy: &'static str },
    #[error("instance has no nodes (field \"nodes\" is empty)")]
    NoNodes,
    #[error("nodes[{index}]: host {host:?} appears twice")]
    DuplicateNode { index: usize, host: String },
    #[error("nodes[{index}] (host {host:?}): field \"{field}\" {problem}")]
    BadNodeField {
        index: usize,
        host: String,
        field: &'static str,
        problem: String,
    },
    #[error("task {task:?}: field \"size\" {problem}")]
    BadTaskSize { task: String, problem: String },
    #[error("task {task:?} lists {count} replica hosts, more than the limit of {limit} (HDFS's dfs.replication.max)")]
    TooManyReplicas {
        task: String,
        count: usize,
        limit: usize,
    },
    #[error("instance has {count} {what}, more than the limit of {limit}")]
    TooMany {
        what: &'static str,
        count: usize,
        limit: usize,
    },
    #[error("task {task:?} appears twice")]
    DuplicateTask { task: String },
    #[error("task {task:?} names replica host {host:?}, which is not in \"nodes\"")]
    UnknownReplicaHost { task: String, host: String },
    #[error("task {task:?} lists replica host {host:?} twice")]
    DuplicateReplica { task: String, host: String },
    #[error("job {job:?} appears twice")]
    DuplicateJob { job: String },
    #[error("job {job:?}: field \"after\" names {after:?}, which is not a job id")]
    UnknownPredecessor { job: String, after: String },
    #[error("job {job:?}: field \"{field}\" {problem}")]
    BadJobField {
        job: String,
        field: &'static str,
        problem: String,
    },
    #[error("cost: field \"{field}\" {problem}")]
    BadCost {
        field: &'static str,
        problem: String,
    },
    #[error("{}{message}", json_where(path))]
    Json {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("generate: {0}")]
    BadGenerator(String),
}

impl CoreError {
    /// A JSON syntax or type error at `path` (e.g. `nodes[3].speed`).
    pub fn json(err: serde_path_to_error::Error<serde_json::Error>) -> CoreError {
        let path = err.path().to_string();
        let inner = err.into_inner();
        CoreError::Json {
            path,
            line: inner.line(),
            column: inner.column(),
            message: inner.to_string(),
        }
    }
}

impl CoreError {
    /// Text after the instance object (`Deserializer::end`).
    pub fn json_end(err: serde_json::Error) -> CoreError {
        CoreError::Json {
            path: "after the instance object".into(),
            line: err.line(),
            column: err.column(),
            message: err.to_string(),
        }
    }
}

fn json_where(path: &str) -> String {
    if path == "." || path == "?" {
        String::new()
    } else if path.starts_with("after ") {
        format!("{path}: ")
    } else {
        format!("field {path}: ")
    }
}
