//! A small WebHDFS server on 127.0.0.1 for tests (this crate's and the
//! CLI's): plain `std::net`, one thread per connection, `Connection: close`.
//! It serves a fixed tree of files with block locations and lets a test put
//! its own answers (errors, delays, redirects) in front.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// A parsed request.
#[derive(Clone, Debug)]
pub struct Request {
    /// HDFS path (after `/webhdfs/v1`, percent-decoded).
    pub path: String,
    pub op: String,
    /// The raw request target (path and query).
    pub target: String,
    pub query: BTreeMap<String, String>,
}

/// An answer.
#[derive(Clone, Debug)]
pub struct Response {
    pub status: u16,
    pub body: String,
    pub headers: Vec<(String, String)>,
    /// Wait this long before answering.
    pub delay: Duration,
    /// Send this body instead of `body`, generated as it goes (huge or slow
    /// answers without holding them in memory).
    pub stream: Option<Stream>,
}

/// A generated body: `bytes` bytes of `fill`, written `chunk` bytes at a
/// time with `pause` between writes; `Content-Length` is sent only with
/// `declare_length`.
#[derive(Clone, Debug)]
pub struct Stream {
    pub bytes: u64,
    pub fill: u8,
    pub chunk: usize,
    pub pause: Duration,
    pub declare_length: bool,
}

impl Response {
    /// A status with a generated body of `bytes` bytes, sent as fast as the
    /// client reads it.
    pub fn huge(status: u16, bytes: u64, declare_length: bool) -> Response {
        Response {
            stream: Some(Stream {
                bytes,
                fill: b' ',
                chunk: 1 << 16,
                pause: Duration::ZERO,
                declare_length,
            }),
            ..Response::json(status, "")
        }
    }

    /// A 200 whose body trickles in one byte every `pause`.
    pub fn trickle(bytes: u64, pause: Duration) -> Response {
        Response {
            stream: Some(Stream {
                bytes,
                fill: b' ',
                chunk: 1,
                pause,
                declare_length: true,
            }),
            ..Response::json(200, "")
        }
    }
}

impl Response {
    pub fn json(status: u16, body: impl Into<String>) -> Response {
        Response {
            status,
            body: body.into(),
            headers: Vec::new(),
            delay: Duration::ZERO,
            stream: None,
        }
    }

    /// A `RemoteException` body as the NameNode sends it.
    pub fn remote(status: u16, exception: &str, java_class: &str, message: &str) -> Response {
        let body = serde_json::json!({"RemoteException": {
            "exception": exception, "javaClassName": java_class, "message": message}});
        Response::json(status, body.to_string())
    }

    pub fn redirect(location: &str) -> Response {
        Response {
            status: 307,
            body: String::new(),
            headers: vec![("Location".into(), location.into())],
            delay: Duration::ZERO,
            stream: None,
        }
    }
}

/// Answers a request, or `None` to pass it on.
pub type Handler = Arc<dyn Fn(&Request) -> Option<Response> + Send + Sync>;

/// A datanode as (host name, rack, ip).
pub type FakeDatanode = (String, String, String);

/// One file of the fake namespace: its blocks as (length, replicas).
#[derive(Clone, Debug)]
pub struct FakeFile {
    pub path: String,
    pub blocks: Vec<(u64, Vec<FakeDatanode>)>,
}

/// The namespace the server serves.
#[derive(Clone, Debug, Default)]
pub struct Namespace {
    pub files: Vec<FakeFile>,
    /// Answer GETFILEBLOCKLOCATIONS with 400 like a NameNode older than 3.3.
    pub old_namenode: bool,
}

impl Namespace {
    fn file(&self, path: &str) -> Option<&FakeFile> {
        self.files.iter().find(|f| f.path == path)
    }

    fn is_dir(&self, path: &str) -> bool {
        let prefix = if path == "/" {
            "/".to_string()
        } else {
            format!("{path}/")
        };
        self.files.iter().any(|f| f.path.starts_with(&prefix))
    }

    fn status_json(&self, path: &str, suffix: &str) -> Option<serde_json::Value> {
        if let Some(f) = self.file(path) {
            let len: u64 = f.blocks.iter().map(|b| b.0).sum();
            return Some(
                serde_json::json!({"pathSuffix": suffix, "type": "FILE", "length": len,
                "owner": "alice", "group": "hadoop", "permission": "644", "accessTime": 0,
                "modificationTime": 0, "blockSize": 134217728, "replication": 3, "fileId": 16386,
                "childrenNum": 0, "storagePolicy": 0}),
            );
        }
        if self.is_dir(path) {
            return Some(
                serde_json::json!({"pathSuffix": suffix, "type": "DIRECTORY", "length": 0,
                "owner": "alice", "group": "hadoop", "permission": "755", "blockSize": 0,
                "replication": 0, "childrenNum": 1}),
            );
        }
        None
    }

    /// The default answers.
    pub fn answer(&self, r: &Request) -> Response {
        let not_found = || {
            Response::remote(
                404,
                "FileNotFoundException",
                "java.io.FileNotFoundException",
                &format!("File does not exist: {}", r.path),
            )
        };
        match r.op.as_str() {
            "GETFILESTATUS" => match self.status_json(&r.path, "") {
                Some(s) => Response::json(200, serde_json::json!({"FileStatus": s}).to_string()),
                None => not_found(),
            },
            "LISTSTATUS" => {
                if let Some(s) = self.status_json(&r.path, "").filter(|_| self.file(&r.path).is_some()) {
                    return Response::json(200, serde_json::json!({"FileStatuses": {"FileStatus": [s]}}).to_string());
                }
                if !self.is_dir(&r.path) {
                    return not_found();
                }
                let prefix = if r.path == "/" { "/".to_string() } else { format!("{}/", r.path) };
                let mut children: Vec<String> = self
                    .files
                    .iter()
                    .filter_map(|f| f.path.strip_prefix(&prefix))
                    .map(|rest| rest.split('/').next().unwrap_or("").to_string())
                    .collect();
                children.sort();
                children.dedup();
                let list: Vec<serde_json::Value> = children
                    .iter()
                    .filter_map(|c| self.status_json(&format!("{prefix}{c}"), c))
                    .collect();
                Response::json(200, serde_json::json!({"FileStatuses": {"FileStatus": list}}).to_string())
            }
            "GETFILEBLOCKLOCATIONS" if self.old_namenode => Response::remote(
                400,
                "IllegalArgumentException",
                "java.lang.IllegalArgumentException",
                "Invalid value for webhdfs parameter \"op\": No enum constant GETFILEBLOCKLOCATIONS",
            ),
            "GETFILEBLOCKLOCATIONS" => {
                let Some(f) = self.file(&r.path) else { return not_found() };
                let mut off = 0;
                let mut locs = Vec::new();
                for (len, reps) in &f.blocks {
                    locs.push(serde_json::json!({"cachedHosts": [], "corrupt": false,
                        "hosts": reps.iter().map(|x| &x.0).collect::<Vec<_>>(),
                        "length": len, "offset": off,
                        "names": reps.iter().map(|x| format!("{}:9866", x.2)).collect::<Vec<_>>(),
                        "storageTypes": reps.iter().map(|_| "DISK").collect::<Vec<_>>(),
                        "topologyPaths": reps.iter().map(|x| format!("{}/{}:9866", x.1, x.2)).collect::<Vec<_>>()}));
                    off += len;
                }
                Response::json(200, serde_json::json!({"BlockLocations": {"BlockLocation": locs}}).to_string())
            }
            "GET_BLOCK_LOCATIONS" => {
                let Some(f) = self.file(&r.path) else { return not_found() };
                let mut off = 0;
                let mut lbs = Vec::new();
                for (i, (len, reps)) in f.blocks.iter().enumerate() {
                    let dns: Vec<serde_json::Value> = reps.iter().map(|x| serde_json::json!({
                        "ipAddr": x.2, "name": format!("{}:9866", x.2), "hostName": x.0,
                        "storageID": "DS-1", "xferPort": 9866, "infoPort": 9864, "ipcPort": 9867,
                        "networkLocation": x.1, "adminState": "NORMAL"})).collect();
                    lbs.push(serde_json::json!({"blockToken": {"urlString": "AAAA"}, "isCorrupt": false,
                        "startOffset": off, "block": {"blockPoolId": "BP-1", "blockId": 1073741825 + i,
                        "numBytes": len, "generationStamp": 1001}, "storageTypes": ["DISK"],
                        "locations": dns, "cachedLocations": []}));
                    off += len;
                }
                Response::json(200, serde_json::json!({"LocatedBlocks": {"fileLength": off,
                    "isUnderConstruction": false, "isLastBlockComplete": true,
                    "locatedBlocks": lbs}}).to_string())
            }
            _ => Response::remote(
                400,
                "IllegalArgumentException",
                "java.lang.IllegalArgumentException",
                &format!("Invalid value for webhdfs parameter \"op\": {}", r.op),
            ),
        }
    }
}

/// The running server; stops when dropped.
pub struct FakeNameNode {
    pub addr: SocketAddr,
    /// Every request target received, in order.
    pub requests: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl FakeNameNode {
    /// Starts serving `ns`, with `front` consulted first.
    pub fn start(ns: Namespace, front: Option<Handler>) -> std::io::Result<FakeNameNode> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let ns = Arc::new(ns);
        let (s, reqs) = (stop.clone(), requests.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((conn, _)) => {
                        let (ns, front, reqs) = (ns.clone(), front.clone(), reqs.clone());
                        std::thread::spawn(move || serve(conn, &ns, front.as_ref(), &reqs));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(2)),
                }
            }
        });
        Ok(FakeNameNode {
            addr,
            requests,
            stop,
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn request_log(&self) -> Vec<String> {
        self.requests.lock().map(|v| v.clone()).unwrap_or_default()
    }
}

impl Drop for FakeNameNode {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if let Some(v) = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(if b[i] == b'+' { b' ' } else { b[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn serve(mut conn: TcpStream, ns: &Namespace, front: Option<&Handler>, log: &Mutex<Vec<String>>) {
    let _ = conn.set_nonblocking(false);
    let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 65536 {
        match conn.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head);
    let target = head
        .lines()
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or("/")
        .to_string();
    if let Ok(mut l) = log.lock() {
        l.push(target.clone());
    }
    let (p, q) = target.split_once('?').unwrap_or((&target, ""));
    let query: BTreeMap<String, String> = q
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (decode(k), decode(v)))
        .collect();
    let path = decode(p.strip_prefix("/webhdfs/v1").unwrap_or(p));
    let path = if path.is_empty() {
        "/".to_string()
    } else {
        path
    };
    let req = Request {
        op: query.get("op").cloned().unwrap_or_default(),
        path,
        target: target.clone(),
        query,
    };
    let resp = front
        .and_then(|f| f(&req))
        .unwrap_or_else(|| ns.answer(&req));
    std::thread::sleep(resp.delay);
    let length = match &resp.stream {
        Some(st) if !st.declare_length => None,
        Some(st) => Some(st.bytes),
        None => Some(resp.body.len() as u64),
    };
    let mut out = format!(
        "HTTP/1.1 {} X\r\nContent-Type: application/json\r\nConnection: close\r\n",
        resp.status
    );
    if let Some(n) = length {
        out.push_str(&format!("Content-Length: {n}\r\n"));
    }
    for (k, v) in &resp.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    out.push_str(&resp.body);
    if conn.write_all(out.as_bytes()).is_err() {
        return;
    }
    if let Some(st) = &resp.stream {
        let chunk = vec![st.fill; st.chunk.max(1)];
        let mut left = st.bytes;
        while left > 0 {
            let n = left.min(chunk.len() as u64) as usize;
            // The client hung up (it hit its limit): stop generating.
            if conn.write_all(&chunk[..n]).is_err() {
                return;
            }
            left -= n as u64;
            if !st.pause.is_zero() {
                let _ = conn.flush();
                std::thread::sleep(st.pause);
            }
        }
    }
    let _ = conn.flush();
}

/// A small cluster: `files` files of `blocks` blocks each under `dir`, three
/// replicas over `nodes` datanodes `dnNN` on two racks.
pub fn sample_namespace(dir: &str, files: usize, blocks: usize, nodes: usize) -> Namespace {
    let nodes = nodes.max(3);
    let dn = |i: usize| {
        let i = i % nodes;
        (
            format!("dn{:02}", i + 1),
            format!("/rack{}", i % 2),
            format!("10.0.0.{}", i + 1),
        )
    };
    let mut out = Vec::new();
    let mut k = 0;
    for f in 0..files {
        let mut bl = Vec::new();
        for b in 0..blocks {
            let len = if b + 1 == blocks { 1000 } else { 134_217_728 };
            bl.push((len, vec![dn(k), dn(k + 1), dn(k + 2)]));
            k += 1;
        }
        out.push(FakeFile {
            path: format!("{dir}/part-{f:05}"),
            blocks: bl,
        });
    }
    // Files MapReduce skips.
    out.push(FakeFile {
        path: format!("{dir}/_SUCCESS"),
        blocks: vec![(10, vec![dn(0)])],
    });
    out.push(FakeFile {
        path: format!("{dir}/.part-00000.crc"),
        blocks: vec![(10, vec![dn(0)])],
    });
    Namespace {
        files: out,
        old_namenode: false,
    }
}
