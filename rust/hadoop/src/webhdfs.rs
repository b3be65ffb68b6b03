//! An async WebHDFS client (reqwest on tokio) for what Spindle needs: the
//! input files under a path and their block locations. Several NameNodes are
//! tried in order (HA); connection errors and 5xx answers are retried a
//! bounded number of times with exponential backoff; `RemoteException`
//! bodies become errors naming the exception class, the path and the
//! NameNode. Delegation tokens never appear in errors or logs.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use crate::blocks::{rack_of_topology_path, Block, Replica};

/// The JSON bodies of the facts file (WebHDFS.md and `JsonUtil`); fields
/// Spindle does not use are ignored.
pub mod wire {
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    pub struct RemoteExceptionBody {
        #[serde(rename = "RemoteException")]
        pub remote_exception: RemoteException,
    }

    #[derive(Clone, Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct RemoteException {
        pub exception: String,
        #[serde(default)]
        pub java_class_name: Option<String>,
        /// Java sends `null` for an exception without a message.
        #[serde(default)]
        pub message: Option<String>,
    }

    #[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
    #[serde(rename_all = "camelCase")]
    pub struct FileStatus {
        #[serde(default)]
        pub path_suffix: String,
        #[serde(rename = "type")]
        pub kind: String,
        #[serde(default)]
        pub length: u64,
        #[serde(default)]
        pub block_size: u64,
        #[serde(default)]
        pub replication: u32,
        /// The inode id; a directory met twice in one walk is a loop.
        #[serde(default)]
        pub file_id: Option<u64>,
    }

    #[derive(Debug, Deserialize)]
    pub struct FileStatusBody {
        #[serde(rename = "FileStatus")]
        pub file_status: FileStatus,
    }

    #[derive(Debug, Deserialize)]
    pub struct FileStatusesBody {
        #[serde(rename = "FileStatuses")]
        pub file_statuses: FileStatuses,
    }

    #[derive(Debug, Deserialize)]
    pub struct FileStatuses {
        #[serde(rename = "FileStatus", default)]
        pub file_status: Vec<FileStatus>,
    }

    #[derive(Debug, Deserialize)]
    pub struct BlockLocationsBody {
        #[serde(rename = "BlockLocations")]
        pub block_locations: BlockLocations,
    }

    #[derive(Debug, Deserialize)]
    pub struct BlockLocations {
        #[serde(rename = "BlockLocation", default)]
        pub block_location: Vec<BlockLocation>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct BlockLocation {
        pub offset: u64,
        pub length: u64,
        #[serde(default)]
        pub hosts: Vec<String>,
        #[serde(default)]
        pub names: Vec<String>,
        #[serde(default)]
        pub topology_paths: Vec<String>,
        #[serde(default)]
        pub corrupt: bool,
    }

    #[derive(Debug, Deserialize)]
    pub struct LocatedBlocksBody {
        #[serde(rename = "LocatedBlocks")]
        pub located_blocks: LocatedBlocks,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct LocatedBlocks {
        #[serde(default)]
        pub located_blocks: Vec<LocatedBlock>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct LocatedBlock {
        pub start_offset: u64,
        pub block: ExtendedBlock,
        #[serde(default)]
        pub locations: Vec<DatanodeInfo>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct ExtendedBlock {
        pub num_bytes: u64,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct DatanodeInfo {
        #[serde(default)]
        pub host_name: Option<String>,
        #[serde(default)]
        pub ip_addr: Option<String>,
        #[serde(default)]
        pub network_location: Option<String>,
    }
}

/// The blocks of `file` from a GETFILEBLOCKLOCATIONS body.
pub fn parse_block_locations(file: &str, body: &[u8]) -> Result<Vec<Block>, serde_json::Error> {
    let b: wire::BlockLocationsBody = serde_json::from_slice(body)?;
    Ok(b.block_locations
        .block_location
        .into_iter()
        .map(|l| {
            let replicas = l
                .hosts
                .iter()
                .enumerate()
                .map(|(i, h)| Replica {
                    host: h.clone(),
                    // names are "ip:port", in the order of hosts.
                    address: l
                        .names
                        .get(i)
                        .map(|n| {
                            n.rsplit_once(':')
                                .map_or(n.as_str(), |(ip, _)| ip)
                                .to_string()
                        })
                        .filter(|ip| !ip.is_empty() && ip != h),
                    rack: l
                        .topology_paths
                        .get(i)
                        .and_then(|p| rack_of_topology_path(p)),
                })
                .collect();
            Block::new(file, l.offset, l.length, replicas)
        })
        .collect())
}

/// The blocks of `file` from a GET_BLOCK_LOCATIONS body.
pub fn parse_located_blocks(file: &str, body: &[u8]) -> Result<Vec<Block>, serde_json::Error> {
    let b: wire::LocatedBlocksBody = serde_json::from_slice(body)?;
    Ok(b.located_blocks
        .located_blocks
        .into_iter()
        .map(|lb| {
            let replicas = lb
                .locations
                .into_iter()
                .filter_map(|d| {
                    let address = d.ip_addr.clone();
                    let host = d.host_name.or(d.ip_addr)?;
                    Some(Replica {
                        address: address.filter(|ip| *ip != host),
                        host,
                        rack: d.network_location,
                    })
                })
                .collect();
            Block::new(file, lb.start_offset, lb.block.num_bytes, replicas)
        })
        .collect())
}

/// A `RemoteException` body, if `body` is one.
pub fn parse_remote_exception(body: &[u8]) -> Option<wire::RemoteException> {
    serde_json::from_slice::<wire::RemoteExceptionBody>(body)
        .ok()
        .map(|b| b.remote_exception)
}

/// Runs every body parser on `body` (for the fuzzers).
pub fn fuzz_parse(body: &[u8]) {
    let _ = parse_block_locations("/f", body);
    let _ = parse_located_blocks("/f", body);
    let _ = parse_remote_exception(body);
    let _ = serde_json::from_slice::<wire::FileStatusesBody>(body);
    let _ = serde_json::from_slice::<wire::FileStatusBody>(body);
}

#[derive(Debug, thiserror::Error)]
pub enum WebHdfsError {
    #[error("{namenode}: {op} {path}: {class}: {message}")]
    Remote {
        namenode: String,
        op: String,
        path: String,
        status: u16,
        /// Short class name (`exception`).
        class: String,
        message: String,
    },
    #[error("{namenode}: {op} {path}: HTTP {status}: {body}")]
    Status {
        namenode: String,
        op: String,
        path: String,
        status: u16,
        body: String,
    },
    #[error("{namenode}: {op} {path}: timed out after {} ({})", seconds(*.after_ms), .limits)]
    Timeout {
        namenode: String,
        op: String,
        path: String,
        /// Time from sending the request to giving up.
        after_ms: u128,
        /// The timeouts in force, as a reader needs them.
        limits: String,
    },
    #[error("{namenode}: {op} {path}: response larger than {limit} bytes ({MAX_RESPONSE_KEY}){}", .length.map(|n| format!("; it announced {n} bytes")).unwrap_or_default())]
    TooLarge {
        namenode: String,
        op: String,
        path: String,
        limit: u64,
        /// `Content-Length`, when the NameNode sent one.
        length: Option<u64>,
    },
    #[error("LISTSTATUS {dir}: entry name {name:?} is not a single path component (HDFS names hold no '/' and are never '.' or '..')")]
    BadEntry { dir: String, name: String },
    #[error(
        "LISTSTATUS {path}: deeper than {limit} directory levels under {root} ({MAX_DEPTH_KEY})"
    )]
    TooDeep {
        root: String,
        path: String,
        limit: usize,
    },
    #[error("LISTSTATUS {path}: directory {dir} (inode {file_id}) was already walked; the listing loops")]
    Loop {
        path: String,
        dir: String,
        file_id: u64,
    },
    #[error("{root}: more than {limit} files and directories under it ({MAX_FILES_KEY})")]
    TooManyFiles { root: String, limit: usize },
    #[error(
        "{root}: more than {limit} blocks under it (the block limit: `spindle plan --max-tasks`)"
    )]
    TooManyBlocks { root: String, limit: usize },
    #[error("bad WebHDFS option {name}: {detail}")]
    BadOption { name: &'static str, detail: String },
    #[error("{namenode}: {op} {path}: cannot connect after {attempts} attempts: {detail}")]
    Connect {
        namenode: String,
        op: String,
        path: String,
        attempts: u32,
        detail: String,
    },
    #[error("{namenode}: {op} {path}: {detail}")]
    Transport {
        namenode: String,
        op: String,
        path: String,
        detail: String,
    },
    #[error("{namenode}: {op} {path}: malformed response: {detail}")]
    Malformed {
        namenode: String,
        op: String,
        path: String,
        detail: String,
    },
    #[error("{op} {path}: no NameNode answered: {}", .errors.join("; "))]
    AllNameNodes {
        op: String,
        path: String,
        errors: Vec<String>,
    },
    #[error("bad NameNode address {address:?}: {detail}")]
    BadAddress { address: String, detail: String },
    #[error("{path}: not an absolute HDFS path")]
    BadPath { path: String },
}

/// The settings that bound what the client reads.
pub const MAX_RESPONSE_KEY: &str = crate::conf::keys::WEBHDFS_MAX_RESPONSE;
pub const MAX_DEPTH_KEY: &str = crate::conf::keys::WEBHDFS_MAX_DEPTH;
pub const MAX_FILES_KEY: &str = crate::conf::keys::WEBHDFS_MAX_FILES;
/// Of an error body only this much is read: it is shown as a snippet.
const ERROR_BODY_CAP: usize = 64 << 10;

fn seconds(ms: u128) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

impl WebHdfsError {
    /// Whether another NameNode might answer (HA failover).
    fn try_next(&self) -> bool {
        match self {
            WebHdfsError::Remote { class, .. } => class == "StandbyException",
            WebHdfsError::Status { status, .. } => *status >= 500,
            WebHdfsError::Timeout { .. } | WebHdfsError::Connect { .. } => true,
            WebHdfsError::Transport { .. } => true,
            _ => false,
        }
    }
}

/// Client settings. `Debug` hides the delegation token.
#[derive(Clone)]
pub struct WebHdfsOptions {
    /// Base URLs (`http://nn:9870`), tried in order.
    pub namenodes: Vec<String>,
    /// `user.name` for simple authentication.
    pub user: Option<String>,
    /// A delegation token (sent as `delegation=`; never logged).
    pub delegation: Option<String>,
    pub connect_timeout: Duration,
    pub read_timeout: Duration,
    /// Retries per NameNode after a connection error or a 5xx answer.
    pub retries: u32,
    /// First backoff; doubled at each retry.
    pub backoff: Duration,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Largest response body read, in bytes.
    pub max_response: u64,
    /// Deepest directory level the input walk enters.
    pub max_depth: usize,
    /// Most files and directories the input walk visits.
    pub max_files: usize,
    /// Most blocks read in all (`spindle plan` passes its `--max-tasks`).
    pub max_blocks: usize,
}

impl std::fmt::Debug for WebHdfsOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebHdfsOptions")
            .field("namenodes", &self.namenodes)
            .field("user", &self.user)
            .field("delegation", &self.delegation.as_ref().map(|_| "<hidden>"))
            .field("connect_timeout", &self.connect_timeout)
            .field("read_timeout", &self.read_timeout)
            .field("retries", &self.retries)
            .field("backoff", &self.backoff)
            .field("concurrency", &self.concurrency)
            .field("max_response", &self.max_response)
            .field("max_depth", &self.max_depth)
            .field("max_files", &self.max_files)
            .field("max_blocks", &self.max_blocks)
            .finish()
    }
}

impl Default for WebHdfsOptions {
    fn default() -> Self {
        WebHdfsOptions {
            namenodes: Vec::new(),
            user: None,
            delegation: None,
            connect_timeout: Duration::from_secs(60),
            read_timeout: Duration::from_secs(60),
            retries: 3,
            backoff: Duration::from_millis(200),
            concurrency: 16,
            max_response: 256 << 20,
            max_depth: 1000,
            max_files: 1_000_000,
            max_blocks: 10_000_000,
        }
    }
}

/// The bound on one whole request (connection, answer and body).
fn request_timeout(opts: &WebHdfsOptions) -> Duration {
    opts.connect_timeout
        .saturating_add(opts.read_timeout.saturating_mul(5))
}

/// One input file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputFile {
    pub path: String,
    pub length: u64,
}

struct Inner {
    http: reqwest::Client,
    namenodes: Vec<reqwest::Url>,
    opts: WebHdfsOptions,
    /// The NameNode that answered last (tried first).
    active: AtomicUsize,
    /// Set once a NameNode has rejected GETFILEBLOCKLOCATIONS.
    old_ops: AtomicBool,
    limit: Semaphore,
}

/// A WebHDFS client; cheap to clone.
#[derive(Clone)]
pub struct WebHdfs {
    inner: Arc<Inner>,
}

fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(c) = src {
        let t = c.to_string();
        if !s.contains(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        src = c.source();
    }
    s
}

/// Percent-encodes an HDFS path for a URL, keeping '/' and RFC 3986's
/// unreserved characters.
fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Drops delegation tokens a gateway may echo back from the request URL.
fn redact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("delegation=") {
        out.push_str(&rest[..i + "delegation=".len()]);
        out.push_str("<redacted>");
        rest = &rest[i + "delegation=".len()..];
        let end = rest
            .find(|c: char| c == '&' || c == '"' || c == '\'' || c == '<' || c.is_whitespace())
            .unwrap_or(rest.len());
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn snippet(body: &[u8]) -> String {
    let s = redact(&String::from_utf8_lossy(body));
    let s = s.trim();
    if s.is_empty() {
        "(blank body)".into()
    } else if s.chars().count() > 200 {
        format!("{}...", s.chars().take(200).collect::<String>())
    } else {
        s.to_string()
    }
}

impl WebHdfs {
    pub fn new(opts: WebHdfsOptions) -> Result<WebHdfs, WebHdfsError> {
        if opts.namenodes.is_empty() {
            return Err(WebHdfsError::BadAddress {
                address: String::new(),
                detail: "no NameNode address given".into(),
            });
        }
        let bad = |name: &'static str, detail: &str| WebHdfsError::BadOption {
            name,
            detail: detail.into(),
        };
        // A zero timeout would fail every request at once.
        if opts.connect_timeout.is_zero() {
            return Err(bad("connect timeout", "must be longer than 0"));
        }
        if opts.read_timeout.is_zero() {
            return Err(bad("read timeout", "must be longer than 0"));
        }
        if opts.max_response == 0 || opts.max_depth == 0 || opts.max_files == 0 {
            return Err(bad(
                "limits",
                "response size, depth and file count must be positive",
            ));
        }
        let mut namenodes = Vec::new();
        for a in &opts.namenodes {
            let with_scheme = if a.contains("://") {
                a.clone()
            } else {
                format!("http://{a}")
            };
            let url = reqwest::Url::parse(&with_scheme).map_err(|e| WebHdfsError::BadAddress {
                address: a.clone(),
                detail: e.to_string(),
            })?;
            if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
                return Err(WebHdfsError::BadAddress {
                    address: a.clone(),
                    detail: "want http://host:port or https://host:port".into(),
                });
            }
            namenodes.push(url);
        }
        let http = reqwest::Client::builder()
            .connect_timeout(opts.connect_timeout)
            .read_timeout(opts.read_timeout)
            // read_timeout bounds each read; a NameNode trickling bytes must
            // not stall a plan forever, so each request also has a total bound.
            .timeout(request_timeout(&opts))
            .build()
            .map_err(|e| WebHdfsError::BadAddress {
                address: opts.namenodes.join(","),
                detail: chain(&e),
            })?;
        let limit = Semaphore::new(opts.concurrency.max(1));
        Ok(WebHdfs {
            inner: Arc::new(Inner {
                http,
                namenodes,
                opts,
                active: AtomicUsize::new(0),
                old_ops: AtomicBool::new(false),
                limit,
            }),
        })
    }

    fn nn_name(url: &reqwest::Url) -> String {
        let mut s = format!("{}://{}", url.scheme(), url.host_str().unwrap_or("?"));
        if let Some(p) = url.port() {
            s.push_str(&format!(":{p}"));
        }
        s
    }

    /// GET `op` on `path`, failing over between NameNodes.
    async fn get(
        &self,
        path: &str,
        op: &str,
        extra: &[(&str, String)],
    ) -> Result<Vec<u8>, WebHdfsError> {
        if !path.starts_with('/') {
            return Err(WebHdfsError::BadPath { path: path.into() });
        }
        let _permit = self
            .inner
            .limit
            .acquire()
            .await
            .map_err(|e| WebHdfsError::Transport {
                namenode: String::new(),
                op: op.into(),
                path: path.into(),
                detail: e.to_string(),
            })?;
        let n = self.inner.namenodes.len();
        let start = self.inner.active.load(Ordering::Relaxed) % n;
        let mut errors = Vec::new();
        for k in 0..n {
            let idx = (start + k) % n;
            match self.get_from(idx, path, op, extra).await {
                Ok(body) => {
                    self.inner.active.store(idx, Ordering::Relaxed);
                    return Ok(body);
                }
                Err(e) if e.try_next() && n > 1 => {
                    tracing::warn!("{e}; trying the next NameNode");
                    errors.push(e);
                }
                Err(e) => return Err(e),
            }
        }
        Err(WebHdfsError::AllNameNodes {
            op: op.into(),
            path: path.into(),
            errors: errors.iter().map(|e| e.to_string()).collect(),
        })
    }

    async fn get_from(
        &self,
        idx: usize,
        path: &str,
        op: &str,
        extra: &[(&str, String)],
    ) -> Result<Vec<u8>, WebHdfsError> {
        let base = &self.inner.namenodes[idx];
        let namenode = Self::nn_name(base);
        let mut url = base.clone();
        // Keep a gateway's base path (Knox: /gateway/<cluster>); encode the
        // HDFS path so that '%', ';' (a path parameter to Jetty) and spaces
        // reach the NameNode as written.
        let prefix = base.path().trim_end_matches('/').to_string();
        url.set_path(&format!("{prefix}/webhdfs/v1{}", encode_path(path)));
        {
            let mut q = url.query_pairs_mut();
            q.clear().append_pair("op", op);
            if let Some(u) = &self.inner.opts.user {
                q.append_pair("user.name", u);
            }
            if let Some(t) = &self.inner.opts.delegation {
                q.append_pair("delegation", t);
            }
            for (k, v) in extra {
                q.append_pair(k, v);
            }
        }
        let opts = &self.inner.opts;
        let limits = format!(
            "connect timeout {}, read timeout {} per read, {} per request",
            seconds(opts.connect_timeout.as_millis()),
            seconds(opts.read_timeout.as_millis()),
            seconds(request_timeout(opts).as_millis())
        );
        // A request that cannot be retried here: a timeout, or a transport error.
        let fail = |e: reqwest::Error, started: Instant| {
            if e.is_timeout() {
                WebHdfsError::Timeout {
                    namenode: namenode.clone(),
                    op: op.into(),
                    path: path.into(),
                    after_ms: started.elapsed().as_millis(),
                    limits: limits.clone(),
                }
            } else {
                WebHdfsError::Transport {
                    namenode: namenode.clone(),
                    op: op.into(),
                    path: path.into(),
                    detail: chain(&e),
                }
            }
        };
        let mut attempt = 0u32;
        loop {
            let started = Instant::now();
            let result = self.inner.http.get(url.clone()).send().await;
            let retry_detail = match result {
                Err(e) => {
                    let e = e.without_url();
                    if !e.is_connect() || e.is_timeout() {
                        return Err(fail(e, started));
                    }
                    chain(&e)
                }
                Ok(mut resp) => {
                    let status = resp.status().as_u16();
                    let ok = (200..300).contains(&status);
                    // Bodies are read up to a cap: the configured one for an
                    // answer (past it, an error), a small one for an error
                    // body, of which only a snippet is shown anyway.
                    let cap = if ok {
                        opts.max_response
                    } else {
                        ERROR_BODY_CAP as u64
                    };
                    let length = resp.content_length();
                    let too_large = || WebHdfsError::TooLarge {
                        namenode: namenode.clone(),
                        op: op.into(),
                        path: path.into(),
                        limit: cap,
                        length,
                    };
                    if ok && length.is_some_and(|n| n > cap) {
                        return Err(too_large());
                    }
                    let mut body: Vec<u8> = Vec::new();
                    loop {
                        match resp.chunk().await {
                            Ok(Some(c)) => {
                                let room = cap.saturating_sub(body.len() as u64) as usize;
                                if c.len() > room {
                                    if ok {
                                        return Err(too_large());
                                    }
                                    body.extend_from_slice(&c[..room]);
                                    break;
                                }
                                body.extend_from_slice(&c);
                            }
                            Ok(None) => break,
                            Err(e) => return Err(fail(e.without_url(), started)),
                        }
                    }
                    if ok {
                        return Ok(body);
                    }
                    let err = match parse_remote_exception(&body) {
                        Some(re) => WebHdfsError::Remote {
                            namenode: namenode.clone(),
                            op: op.into(),
                            path: path.into(),
                            status,
                            class: re.exception,
                            message: redact(re.message.as_deref().unwrap_or("(no message)")),
                        },
                        None => WebHdfsError::Status {
                            namenode: namenode.clone(),
                            op: op.into(),
                            path: path.into(),
                            status,
                            body: snippet(&body),
                        },
                    };
                    let standby = matches!(&err, WebHdfsError::Remote { class, .. } if class == "StandbyException");
                    // RetriableException (a NameNode in safe mode at start-up):
                    // retried here like a 5xx, as Hadoop's client does.
                    let retriable = matches!(&err, WebHdfsError::Remote { class, .. } if class == "RetriableException");
                    if (status < 500 && !retriable) || standby || attempt >= opts.retries {
                        return Err(err);
                    }
                    err.to_string()
                }
            };
            if attempt >= opts.retries {
                return Err(WebHdfsError::Connect {
                    namenode,
                    op: op.into(),
                    path: path.into(),
                    attempts: attempt + 1,
                    detail: retry_detail,
                });
            }
            let wait = opts.backoff.saturating_mul(1u32 << attempt.min(16));
            tracing::debug!("{retry_detail}; retry {} in {:?}", attempt + 1, wait);
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }

    fn malformed(&self, op: &str, path: &str, e: impl std::fmt::Display) -> WebHdfsError {
        let idx = self.inner.active.load(Ordering::Relaxed) % self.inner.namenodes.len();
        WebHdfsError::Malformed {
            namenode: Self::nn_name(&self.inner.namenodes[idx]),
            op: op.into(),
            path: path.into(),
            detail: e.to_string(),
        }
    }

    /// GETFILESTATUS.
    pub async fn file_status(&self, path: &str) -> Result<wire::FileStatus, WebHdfsError> {
        let body = self.get(path, "GETFILESTATUS", &[]).await?;
        serde_json::from_slice::<wire::FileStatusBody>(&body)
            .map(|b| b.file_status)
            .map_err(|e| self.malformed("GETFILESTATUS", path, e))
    }

    /// LISTSTATUS of a directory.
    pub async fn list_status(&self, path: &str) -> Result<Vec<wire::FileStatus>, WebHdfsError> {
        let body = self.get(path, "LISTSTATUS", &[]).await?;
        serde_json::from_slice::<wire::FileStatusesBody>(&body)
            .map(|b| b.file_statuses.file_status)
            .map_err(|e| self.malformed("LISTSTATUS", path, e))
    }

    /// OPEN: the first `max_len` bytes of a file (the NameNode redirects to a
    /// DataNode, whose host name must resolve here). A file longer than that
    /// comes back cut at `max_len`: ask for one byte more than you accept.
    pub async fn open(&self, path: &str, max_len: u64) -> Result<Vec<u8>, WebHdfsError> {
        let mut body = self
            .get(
                path,
                "OPEN",
                &[("offset", "0".to_string()), ("length", max_len.to_string())],
            )
            .await?;
        // A server that ignores `length` must not make us keep more.
        body.truncate(usize::try_from(max_len).unwrap_or(usize::MAX));
        Ok(body)
    }

    /// The files under `root` (itself if it is a file), recursively, skipping
    /// names that start with `_` or `.` as MapReduce's input formats do;
    /// sorted by path.
    pub async fn input_files(&self, root: &str) -> Result<Vec<InputFile>, WebHdfsError> {
        let root = if root.len() > 1 {
            root.trim_end_matches('/')
        } else {
            root
        };
        let st = self.file_status(root).await?;
        if st.kind != "DIRECTORY" {
            return Ok(vec![InputFile {
                path: root.to_string(),
                length: st.length,
            }]);
        }
        // Bounded as HDFS itself is: names are single path components,
        // paths at most max_depth deep, and no directory is walked twice
        // (a listing that always holds a directory `x` walked /x/x/x...).
        let opts = &self.inner.opts;
        let mut visited: std::collections::HashSet<u64> = st.file_id.into_iter().collect();
        let mut out = Vec::new();
        let mut entries = 0usize;
        let mut dirs = vec![(root.to_string(), 0usize)];
        while let Some((dir, depth)) = dirs.pop() {
            for c in self.list_status(&dir).await? {
                let name = c.path_suffix.as_str();
                if name.contains('/') || name == "." || name == ".." {
                    return Err(WebHdfsError::BadEntry {
                        dir,
                        name: crate::conf::shorten(name),
                    });
                }
                if name.is_empty() || name.starts_with('_') || name.starts_with('.') {
                    continue;
                }
                entries += 1;
                if entries > opts.max_files {
                    return Err(WebHdfsError::TooManyFiles {
                        root: root.to_string(),
                        limit: opts.max_files,
                    });
                }
                let child = if dir == "/" {
                    format!("/{name}")
                } else {
                    format!("{dir}/{name}")
                };
                match c.kind.as_str() {
                    "DIRECTORY" => {
                        if depth + 1 > opts.max_depth {
                            return Err(WebHdfsError::TooDeep {
                                root: root.to_string(),
                                path: crate::conf::shorten(&child),
                                limit: opts.max_depth,
                            });
                        }
                        if let Some(id) = c.file_id {
                            if !visited.insert(id) {
                                return Err(WebHdfsError::Loop {
                                    path: crate::conf::shorten(&dir),
                                    dir: name.to_string(),
                                    file_id: id,
                                });
                            }
                        }
                        dirs.push((child, depth + 1));
                    }
                    "FILE" => out.push(InputFile {
                        path: child,
                        length: c.length,
                    }),
                    _ => {}
                }
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// The blocks of one file: GETFILEBLOCKLOCATIONS, or GET_BLOCK_LOCATIONS
    /// on a NameNode that rejects the newer op.
    pub async fn block_locations(&self, file: &InputFile) -> Result<Vec<Block>, WebHdfsError> {
        if file.length == 0 {
            return Ok(Vec::new());
        }
        let range = [
            ("offset", "0".to_string()),
            ("length", file.length.to_string()),
        ];
        if !self.inner.old_ops.load(Ordering::Relaxed) {
            let e = match self.get(&file.path, "GETFILEBLOCKLOCATIONS", &range).await {
                Ok(body) => {
                    return parse_block_locations(&file.path, &body)
                        .map_err(|e| self.malformed("GETFILEBLOCKLOCATIONS", &file.path, e))
                }
                Err(e) => e,
            };
            // Only a 400 that rejects the op itself means an older NameNode
            // ("Invalid value for webhdfs parameter \"op\": No enum constant
            // GETFILEBLOCKLOCATIONS"); any other 400 is an error of its own.
            let older = match &e {
                WebHdfsError::Remote {
                    status: 400,
                    message,
                    ..
                } => message.contains("GETFILEBLOCKLOCATIONS") || message.contains("\"op\""),
                WebHdfsError::Status { status: 400, .. } => true,
                _ => false,
            };
            if !older {
                return Err(e);
            }
            tracing::info!("NameNode lacks GETFILEBLOCKLOCATIONS; using GET_BLOCK_LOCATIONS");
            self.inner.old_ops.store(true, Ordering::Relaxed);
        }
        let body = self.get(&file.path, "GET_BLOCK_LOCATIONS", &range).await?;
        parse_located_blocks(&file.path, &body)
            .map_err(|e| self.malformed("GET_BLOCK_LOCATIONS", &file.path, e))
    }

    /// Every block under `root`, in file then offset order; at most
    /// `concurrency` requests in flight.
    pub async fn input_blocks(&self, root: &str) -> Result<Vec<Block>, WebHdfsError> {
        let files = self.input_files(root).await?;
        let mut per_file = Vec::new();
        let mut rest = files.into_iter().enumerate();
        let limit = self.inner.opts.max_blocks;
        let mut total = 0usize;
        let mut count = |n: usize| {
            total += n;
            if total > limit {
                Err(WebHdfsError::TooManyBlocks {
                    root: root.to_string(),
                    limit,
                })
            } else {
                Ok(())
            }
        };
        // The first file alone, so that a NameNode without
        // GETFILEBLOCKLOCATIONS is found out once, not once per file.
        if let Some((i, f)) = rest.next() {
            let b = self.block_locations(&f).await?;
            count(b.len())?;
            per_file.push((i, b));
        }
        let mut set = tokio::task::JoinSet::new();
        for (i, f) in rest {
            let me = self.clone();
            set.spawn(async move { (i, me.block_locations(&f).await) });
        }
        while let Some(done) = set.join_next().await {
            let (i, r) = done.map_err(|e| WebHdfsError::Transport {
                namenode: String::new(),
                op: "GETFILEBLOCKLOCATIONS".into(),
                path: root.into(),
                detail: e.to_string(),
            })?;
            let b = r?;
            count(b.len())?;
            per_file.push((i, b));
        }
        per_file.sort_by_key(|(i, _)| *i);
        Ok(per_file.into_iter().flat_map(|(_, b)| b).collect())
    }
}

/// Blocking wrapper: runs [`WebHdfs::input_blocks`] on a small runtime.
pub fn fetch_input_blocks(opts: WebHdfsOptions, root: &str) -> Result<Vec<Block>, WebHdfsError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| WebHdfsError::Transport {
            namenode: String::new(),
            op: "start".into(),
            path: root.into(),
            detail: e.to_string(),
        })?;
    let client = WebHdfs::new(opts)?;
    rt.block_on(client.input_blocks(root))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_null_message_keeps_the_exception_class() {
        let re = super::parse_remote_exception(
            br#"{"RemoteException":{"exception":"NullPointerException","javaClassName":"java.lang.NullPointerException","message":null}}"#,
        )
        .unwrap();
        assert_eq!(re.exception, "NullPointerException");
        assert_eq!(re.message, None);
    }

    #[test]
    fn echoed_delegation_tokens_are_redacted() {
        let body = b"<html>bad gateway for /webhdfs/v1/x?op=LISTSTATUS&delegation=SECRETTOKEN123&user.name=a</html>";
        let s = super::snippet(body);
        assert!(!s.contains("SECRETTOKEN123"), "{s}");
        assert!(s.contains("delegation=<redacted>&user.name=a"), "{s}");
    }

    use super::*;

    #[test]
    fn parses_block_locations() {
        let body = br#"{"BlockLocations":{"BlockLocation":[
            {"cachedHosts":[],"corrupt":false,"hosts":["dn1","dn2"],"length":134217728,
             "names":["10.0.0.1:9866","10.0.0.2:9866"],"offset":0,"storageTypes":["DISK","DISK"],
             "topologyPaths":["/r1/10.0.0.1:9866","/r2/10.0.0.2:9866"]},
            {"hosts":["dn3"],"length":5,"offset":134217728,"topologyPaths":[]}]}}"#;
        let b = parse_block_locations("/in/a", body).unwrap();
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].task, "/in/a@0");
        assert_eq!(b[0].replicas[1].rack.as_deref(), Some("/r2"));
        assert_eq!(b[1].task, "/in/a@134217728");
        assert_eq!(b[1].replicas[0].rack, None);
    }

    #[test]
    fn parses_located_blocks() {
        let body = br#"{"LocatedBlocks":{"fileLength":15,"isUnderConstruction":false,
            "locatedBlocks":[{"blockToken":{"urlString":"x"},"isCorrupt":false,"startOffset":0,
              "block":{"blockPoolId":"bp","blockId":1,"numBytes":10,"generationStamp":1},
              "locations":[{"ipAddr":"10.0.0.1","hostName":"dn1","networkLocation":"/r1","xferPort":9866},
                           {"ipAddr":"10.0.0.2","networkLocation":"/r2"}]}]}}"#;
        let b = parse_located_blocks("/f", body).unwrap();
        assert_eq!(b[0].length, 10);
        let hosts: Vec<_> = b[0]
            .replicas
            .iter()
            .map(|r| (r.host.as_str(), r.rack.as_deref()))
            .collect();
        assert_eq!(hosts, vec![("dn1", Some("/r1")), ("10.0.0.2", Some("/r2"))]);
        // The address beside each name, for rack lookups by IP.
        assert_eq!(b[0].replicas[0].address.as_deref(), Some("10.0.0.1"));
    }

    proptest::proptest! {
        #[test]
        fn body_parsers_never_panic(b in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..256)) {
            fuzz_parse(&b);
        }

        #[test]
        fn jsonish_bodies_never_panic(parts in proptest::collection::vec(proptest::prop_oneof![
            proptest::strategy::Just("{"), proptest::strategy::Just("}"), proptest::strategy::Just("["),
            proptest::strategy::Just("]"), proptest::strategy::Just(","), proptest::strategy::Just(":"),
            proptest::strategy::Just("\"BlockLocations\""), proptest::strategy::Just("\"BlockLocation\""),
            proptest::strategy::Just("\"hosts\""), proptest::strategy::Just("\"topologyPaths\""),
            proptest::strategy::Just("\"offset\""), proptest::strategy::Just("\"length\""),
            proptest::strategy::Just("\"/r/1:2\""), proptest::strategy::Just("\"/\""), proptest::strategy::Just("0"),
            proptest::strategy::Just("-1"), proptest::strategy::Just("18446744073709551616"),
        ], 0..40)) {
            fuzz_parse(parts.concat().as_bytes());
        }
    }

    #[test]
    fn options_debug_hides_token() {
        let o = WebHdfsOptions {
            delegation: Some("SECRET-TOKEN".into()),
            ..WebHdfsOptions::default()
        };
        assert!(!format!("{o:?}").contains("SECRET"));
    }

    #[test]
    fn bad_addresses_are_named() {
        let e = WebHdfs::new(WebHdfsOptions {
            namenodes: vec!["ftp://nn:1".into()],
            ..WebHdfsOptions::default()
        })
        .err()
        .unwrap();
        assert_eq!(
            e.to_string(),
            "bad NameNode address \"ftp://nn:1\": want http://host:port or https://host:port"
        );
    }
}
