//! Exact input for running MapReduce jobs: each job's `job.splitmetainfo`
//! (the split locations its AM will ask for), read over WebHDFS on one
//! background thread, so that the ResourceManager plugin can hand the
//! Session exact replica lists (`set_input_blocks`) without a heartbeat ever
//! waiting for HDFS.
//!
//! - [`SplitReader::submit`] never blocks: jobs wait in a bounded queue
//!   (a full queue refuses the job, and the app is planned from its asks).
//! - Every read is bounded: the file size (`mapreduce.job.split.metainfo.maxsize`,
//!   10 MB), the WebHDFS connect and read timeouts, a bounded number of retries.
//! - Each job ends in exactly one call of the delivery function, with the
//!   split hosts or an error naming the file and the NameNode.

use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::splits::{parse_split_meta_info, SplitError, MAX_SIZE};
use crate::webhdfs::{WebHdfs, WebHdfsError, WebHdfsOptions};

/// Jobs waiting at most; more are refused rather than queued.
pub const QUEUE: usize = 256;

/// One split file to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitJob {
    /// The caller's application id (opaque here).
    pub app: u32,
    /// The application's name, for messages.
    pub app_name: String,
    /// The ask priority the splits belong to (MapReduce maps: 20).
    pub priority: i32,
    /// NameNode HTTP addresses, tried in order.
    pub namenodes: Vec<String>,
    /// HDFS path of `job.splitmetainfo`.
    pub path: String,
    /// `user.name` for simple authentication.
    pub user: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum SplitReadError {
    #[error("{path}: {source}")]
    WebHdfs {
        path: String,
        #[source]
        source: Box<WebHdfsError>,
    },
    #[error("{path}: {source}")]
    Parse {
        path: String,
        #[source]
        source: SplitError,
    },
    #[error("{path}: more than {MAX_SIZE} bytes (mapreduce.job.split.metainfo.maxsize)")]
    TooLarge { path: String },
    #[error(
        "the split reader's queue is full ({QUEUE} jobs waiting); {app} is planned from its asks"
    )]
    QueueFull { app: String },
    #[error("the split reader has stopped")]
    Stopped,
}

/// What a read produced: one replica-host list per split, in split order.
pub type SplitHosts = Vec<Vec<String>>;

/// Settings of the reader's WebHDFS clients.
#[derive(Clone, Debug)]
pub struct ReaderOptions {
    pub connect_timeout: Duration,
    pub read_timeout: Duration,
    pub retries: u32,
}

impl Default for ReaderOptions {
    fn default() -> Self {
        ReaderOptions {
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(20),
            retries: 2,
        }
    }
}

/// The background reader; dropping it stops the thread after the job in hand.
pub struct SplitReader {
    tx: Option<SyncSender<SplitJob>>,
    thread: Option<JoinHandle<()>>,
}

impl SplitReader {
    /// Starts the thread. `deliver` is called on it once per job.
    pub fn start<F>(opts: ReaderOptions, deliver: F) -> std::io::Result<SplitReader>
    where
        F: FnMut(&SplitJob, Result<SplitHosts, SplitReadError>) + Send + 'static,
    {
        let (tx, rx) = mpsc::sync_channel(QUEUE);
        let thread = std::thread::Builder::new()
            .name("spindle-split-reader".into())
            .spawn(move || run(rx, opts, deliver))?;
        Ok(SplitReader {
            tx: Some(tx),
            thread: Some(thread),
        })
    }

    /// Queues a job; never blocks.
    pub fn submit(&self, job: SplitJob) -> Result<(), SplitReadError> {
        let tx = self.tx.as_ref().ok_or(SplitReadError::Stopped)?;
        tx.try_send(job).map_err(|e| match e {
            TrySendError::Full(j) => SplitReadError::QueueFull { app: j.app_name },
            TrySendError::Disconnected(_) => SplitReadError::Stopped,
        })
    }

    /// Stops taking jobs and waits for the thread to finish the one in hand
    /// (bounded by the WebHDFS timeouts).
    pub fn stop(mut self) {
        self.tx.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for SplitReader {
    fn drop(&mut self) {
        // Closing the queue ends the thread; it is not joined here, so that
        // dropping never waits on HDFS.
        self.tx.take();
    }
}

fn run<F>(rx: Receiver<SplitJob>, opts: ReaderOptions, mut deliver: F)
where
    F: FnMut(&SplitJob, Result<SplitHosts, SplitReadError>),
{
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!("split reader: cannot start its runtime: {e}");
            for job in rx.iter() {
                deliver(&job, Err(SplitReadError::Stopped));
            }
            return;
        }
    };
    for job in rx.iter() {
        // A client per job: jobs come minutes apart, and a pooled connection
        // the NameNode or DataNode closed meanwhile fails the next request
        // ("connection closed before message completed").
        let client = WebHdfs::new(WebHdfsOptions {
            namenodes: job.namenodes.clone(),
            user: job.user.clone(),
            connect_timeout: opts.connect_timeout,
            read_timeout: opts.read_timeout,
            retries: opts.retries,
            concurrency: 1,
            ..WebHdfsOptions::default()
        });
        let result = match client {
            Ok(c) => rt.block_on(read(&c, &job.path)),
            Err(e) => Err(SplitReadError::WebHdfs {
                path: job.path.clone(),
                source: Box::new(e),
            }),
        };
        deliver(&job, result);
    }
}

/// Reads and parses one split file.
pub async fn read(client: &WebHdfs, path: &str) -> Result<SplitHosts, SplitReadError> {
    let bytes = client
        .open(path, MAX_SIZE as u64 + 1)
        .await
        .map_err(|source| SplitReadError::WebHdfs {
            path: path.to_string(),
            source: Box::new(source),
        })?;
    if bytes.len() > MAX_SIZE {
        return Err(SplitReadError::TooLarge {
            path: path.to_string(),
        });
    }
    let splits = parse_split_meta_info(&bytes).map_err(|source| SplitReadError::Parse {
        path: path.to_string(),
        source,
    })?;
    Ok(splits
        .into_iter()
        .map(|s| {
            let mut hosts: Vec<String> = Vec::with_capacity(s.locations.len());
            for h in s.locations {
                let h = h.trim().to_string();
                if !h.is_empty() && !hosts.contains(&h) {
                    hosts.push(h);
                }
            }
            hosts
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake_namenode::{FakeNameNode, Handler, Namespace, Response};
    use crate::splits::{write_split_meta_info, SplitMetaInfo};
    use std::sync::{Arc, Mutex};

    /// A split file whose bytes are all ASCII (small offsets and lengths),
    /// so the fake server can carry it as text.
    fn split_file() -> Vec<u8> {
        write_split_meta_info(&[
            SplitMetaInfo {
                locations: vec!["h1".into(), "h2".into(), "h1".into()],
                start_offset: 7,
                input_data_length: 100,
            },
            SplitMetaInfo {
                locations: vec!["h3".into()],
                start_offset: 50,
                input_data_length: 90,
            },
        ])
    }

    /// A NameNode that redirects OPEN to a "DataNode" (a second fake) which
    /// serves `body`.
    fn cluster(body: Vec<u8>) -> (FakeNameNode, FakeNameNode) {
        let text = String::from_utf8(body).expect("ascii split file");
        let dn_front: Handler =
            Arc::new(move |r| (r.op == "OPEN").then(|| Response::json(200, text.clone())));
        let dn = FakeNameNode::start(Namespace::default(), Some(dn_front)).unwrap();
        let dn_url = dn.url();
        let nn_front: Handler = Arc::new(move |r| {
            (r.op == "OPEN").then(|| {
                Response::redirect(&format!(
                    "{dn_url}/webhdfs/v1{}?op=OPEN&offset=0&namenoderpcaddress=nn:8020",
                    r.path
                ))
            })
        });
        let nn = FakeNameNode::start(Namespace::default(), Some(nn_front)).unwrap();
        (nn, dn)
    }

    fn job(nn: &str, path: &str) -> SplitJob {
        SplitJob {
            app: 3,
            app_name: "appattempt_1_0001_000001".into(),
            priority: 20,
            namenodes: vec![nn.to_string()],
            path: path.into(),
            user: Some("alice".into()),
        }
    }

    fn read_one(j: SplitJob) -> Result<SplitHosts, SplitReadError> {
        let got = Arc::new(Mutex::new(Vec::new()));
        let g = got.clone();
        let reader = SplitReader::start(
            ReaderOptions {
                connect_timeout: Duration::from_secs(2),
                read_timeout: Duration::from_secs(2),
                retries: 0,
            },
            move |j, r| g.lock().unwrap().push((j.app, r)),
        )
        .unwrap();
        reader.submit(j).unwrap();
        reader.stop();
        let mut v = got.lock().unwrap();
        assert_eq!(v.len(), 1, "one delivery per job");
        let (app, r) = v.pop().unwrap();
        assert_eq!(app, 3);
        r
    }

    #[test]
    fn reads_split_hosts_through_the_datanode_redirect() {
        let (nn, dn) = cluster(split_file());
        let hosts = read_one(job(&nn.url(), "/staging/job_1/job.splitmetainfo")).unwrap();
        assert_eq!(hosts, vec![vec!["h1", "h2"], vec!["h3"]]);
        let asked = nn.request_log();
        assert!(
            asked[0].contains("op=OPEN") && asked[0].contains("user.name=alice"),
            "{asked:?}"
        );
        assert!(
            asked[0].contains(&format!("length={}", MAX_SIZE + 1)),
            "{asked:?}"
        );
        assert_eq!(dn.request_log().len(), 1);
    }

    #[test]
    fn errors_name_the_file_and_the_namenode() {
        let nn = FakeNameNode::start(Namespace::default(), None).unwrap();
        let e = read_one(job(&nn.url(), "/staging/job_2/job.splitmetainfo")).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.starts_with("/staging/job_2/job.splitmetainfo: ")
                && msg.contains(&nn.url())
                && msg.contains("OPEN"),
            "{msg}"
        );
        let (nn, _dn) = cluster(b"NOT-SPL\x01\x00".to_vec());
        let e = read_one(job(&nn.url(), "/s/job.splitmetainfo")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/s/job.splitmetainfo: split meta-info: not a job.splitmetainfo file (header \"NOT-SPL\\u{1}\", want \"META-SPL\")"
        );
    }

    #[test]
    fn an_unreachable_namenode_is_bounded_and_reported() {
        // Nothing listens on this port (bound, then closed).
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let start = std::time::Instant::now();
        let e = read_one(job(
            &format!("http://127.0.0.1:{port}"),
            "/s/job.splitmetainfo",
        ))
        .unwrap_err();
        assert!(matches!(e, SplitReadError::WebHdfs { .. }), "{e}");
        assert!(start.elapsed() < Duration::from_secs(60));
    }

    #[test]
    fn a_full_queue_refuses_without_blocking() {
        // A reader whose delivery blocks until released: the queue fills.
        let gate = Arc::new(Mutex::new(()));
        let hold = gate.lock().unwrap();
        let g = gate.clone();
        let reader = SplitReader::start(ReaderOptions::default(), move |_, _| {
            drop(g.lock());
        })
        .unwrap();
        let bad = |i: u32| SplitJob {
            app: i,
            app_name: format!("app{i}"),
            priority: 20,
            namenodes: vec!["ftp://nowhere".into()], // fails at once: bad address
            path: "/x".into(),
            user: None,
        };
        let mut refused = None;
        for i in 0..(QUEUE as u32 + 10) {
            if let Err(e) = reader.submit(bad(i)) {
                refused = Some(e);
                break;
            }
        }
        let e = refused.expect("the queue is bounded");
        assert!(
            e.to_string()
                .starts_with("the split reader's queue is full"),
            "{e}"
        );
        drop(hold);
        reader.stop();
    }
}
