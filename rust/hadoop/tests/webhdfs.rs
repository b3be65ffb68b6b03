//! The WebHDFS client against a real HTTP server on 127.0.0.1.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use spindle_hadoop::fake_namenode::{
    sample_namespace, FakeFile, FakeNameNode, Handler, Namespace, Response,
};
use spindle_hadoop::webhdfs::{InputFile, WebHdfs, WebHdfsOptions};

const TOKEN: &str = "SECRET-TOKEN-d2VicXR";
const DIR: &str = "/user/alice/input";

fn opts(urls: Vec<String>) -> WebHdfsOptions {
    WebHdfsOptions {
        namenodes: urls,
        user: Some("alice".into()),
        delegation: Some(TOKEN.into()),
        connect_timeout: Duration::from_millis(500),
        read_timeout: Duration::from_millis(500),
        retries: 2,
        backoff: Duration::from_millis(5),
        concurrency: 4,
        ..WebHdfsOptions::default()
    }
}

fn client(nn: &FakeNameNode) -> WebHdfs {
    WebHdfs::new(opts(vec![nn.url()])).unwrap()
}

fn front(
    f: impl Fn(&spindle_hadoop::fake_namenode::Request) -> Option<Response> + Send + Sync + 'static,
) -> Option<Handler> {
    Some(Arc::new(f))
}

/// An error message, checked never to carry the token.
fn msg<T: std::fmt::Debug>(r: Result<T, spindle_hadoop::WebHdfsError>) -> String {
    let m = r.unwrap_err().to_string();
    assert!(!m.contains(TOKEN), "token leaked: {m}");
    m
}

#[tokio::test]
async fn lists_recursively_and_reads_block_locations() {
    let mut ns = sample_namespace(DIR, 3, 2, 5);
    ns.files.push(FakeFile {
        path: format!("{DIR}/sub dir/nested"),
        blocks: vec![(
            42,
            vec![("dn09".into(), "/rack9".into(), "10.0.0.9".into())],
        )],
    });
    ns.files.push(FakeFile {
        path: format!("{DIR}/sub dir/50%off;v=1"),
        blocks: vec![(7, vec![("dn09".into(), "/rack9".into(), "10.0.0.9".into())])],
    });
    ns.files.push(FakeFile {
        path: format!("{DIR}/_logs/history"),
        blocks: vec![(
            42,
            vec![("dn09".into(), "/rack9".into(), "10.0.0.9".into())],
        )],
    });
    let nn = FakeNameNode::start(ns, None).unwrap();
    let c = client(&nn);
    let files = c.input_files(&format!("{DIR}/")).await.unwrap();
    let paths: Vec<_> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        vec![
            "/user/alice/input/part-00000",
            "/user/alice/input/part-00001",
            "/user/alice/input/part-00002",
            "/user/alice/input/sub dir/50%off;v=1",
            "/user/alice/input/sub dir/nested"
        ]
    );
    assert_eq!(files[0].length, 134_217_728 + 1000);
    let blocks = c.input_blocks(DIR).await.unwrap();
    let tasks: Vec<_> = blocks.iter().map(|b| b.task.as_str()).collect();
    assert_eq!(
        tasks[..2],
        [
            "/user/alice/input/part-00000@0",
            "/user/alice/input/part-00000@134217728"
        ]
    );
    assert_eq!(tasks.len(), 8);
    assert_eq!(tasks[6], "/user/alice/input/sub dir/50%off;v=1@0");
    assert_eq!(tasks[7], "/user/alice/input/sub dir/nested@0");
    let r = &blocks[0].replicas;
    assert_eq!(r.len(), 3);
    assert_eq!(
        (r[0].host.as_str(), r[0].rack.as_deref()),
        ("dn01", Some("/rack0"))
    );
    assert_eq!(
        (r[1].host.as_str(), r[1].rack.as_deref()),
        ("dn02", Some("/rack1"))
    );
    let log = nn.request_log();
    assert!(log
        .iter()
        .all(|t| t.contains("user.name=alice") && t.contains(&format!("delegation={TOKEN}"))));
    assert!(
        log.iter().any(|t| t
            .starts_with("/webhdfs/v1/user/alice/input/sub%20dir/nested?op=GETFILEBLOCKLOCATIONS")),
        "{log:?}"
    );
    // '%' and ';' are encoded, so the NameNode (and Jetty) see the name as written.
    assert!(
        log.iter().any(|t| t.starts_with(
            "/webhdfs/v1/user/alice/input/sub%20dir/50%25off%3Bv%3D1?op=GETFILEBLOCKLOCATIONS"
        )),
        "{log:?}"
    );
    // A single file is its own input.
    let one = c.input_files("/user/alice/input/part-00001").await.unwrap();
    assert_eq!(
        one,
        vec![InputFile {
            path: "/user/alice/input/part-00001".into(),
            length: 134_217_728 + 1000
        }]
    );
}

#[tokio::test]
async fn falls_back_to_get_block_locations_once() {
    let mut ns = sample_namespace(DIR, 4, 2, 4);
    ns.old_namenode = true;
    let nn = FakeNameNode::start(ns.clone(), None).unwrap();
    let mut o = opts(vec![nn.url()]);
    o.concurrency = 1;
    let blocks = WebHdfs::new(o).unwrap().input_blocks(DIR).await.unwrap();
    ns.old_namenode = false;
    let good = FakeNameNode::start(ns, None).unwrap();
    let expected = client(&good).input_blocks(DIR).await.unwrap();
    assert_eq!(blocks, expected);
    let log = nn.request_log();
    let new_op = log
        .iter()
        .filter(|t| t.contains("op=GETFILEBLOCKLOCATIONS"))
        .count();
    let old_op = log
        .iter()
        .filter(|t| t.contains("op=GET_BLOCK_LOCATIONS"))
        .count();
    assert_eq!((new_op, old_op), (1, 4));
}

#[tokio::test]
async fn follows_redirects_and_reports_loops() {
    let nn = FakeNameNode::start(
        sample_namespace(DIR, 1, 1, 3),
        front(|r| match r.path.as_str() {
            "/moved" => Some(Response::redirect(&format!(
                "/webhdfs/v1{DIR}/part-00000?op={}",
                r.op
            ))),
            "/loop" => Some(Response::redirect(&format!("/webhdfs/v1/loop?op={}", r.op))),
            _ => None,
        }),
    )
    .unwrap();
    let c = client(&nn);
    let st = c.file_status("/moved").await.unwrap();
    assert_eq!((st.kind.as_str(), st.length), ("FILE", 1000));
    let m = msg(c.file_status("/loop").await);
    assert!(
        m.starts_with(&format!("{}: GETFILESTATUS /loop: ", nn.url())),
        "{m}"
    );
    assert!(m.contains("too many redirects"), "{m}");
}

#[tokio::test]
async fn remote_exceptions_name_class_path_and_namenode() {
    let nn = FakeNameNode::start(
        sample_namespace(DIR, 1, 1, 3),
        front(|r| {
            (r.path == "/secret" && r.op == "LISTSTATUS").then(|| {
                Response::remote(
                    403,
                    "AccessControlException",
                    "org.apache.hadoop.security.AccessControlException",
                    "Permission denied: user=alice, access=READ_EXECUTE, inode=\"/secret\":hdfs:supergroup:drwx------",
                )
            })
        }),
    )
    .unwrap();
    let c = client(&nn);
    assert_eq!(
        msg(c.input_blocks("/user/alice/missing").await),
        format!("{}: GETFILESTATUS /user/alice/missing: FileNotFoundException: File does not exist: /user/alice/missing", nn.url())
    );
    assert_eq!(
        msg(c.list_status("/secret").await),
        format!("{}: LISTSTATUS /secret: AccessControlException: Permission denied: user=alice, access=READ_EXECUTE, inode=\"/secret\":hdfs:supergroup:drwx------", nn.url())
    );
    assert_eq!(
        msg(c.list_status("relative").await),
        "relative: not an absolute HDFS path"
    );
}

fn standby() -> Option<Handler> {
    front(|_| {
        Some(Response::remote(
            403,
            "StandbyException",
            "org.apache.hadoop.ipc.StandbyException",
            "Operation category READ is not supported in state standby",
        ))
    })
}

#[tokio::test]
async fn standby_namenode_fails_over_to_the_next() {
    let nn1 = FakeNameNode::start(Namespace::default(), standby()).unwrap();
    let nn2 = FakeNameNode::start(sample_namespace(DIR, 2, 1, 3), None).unwrap();
    let c = WebHdfs::new(opts(vec![nn1.url(), nn2.url()])).unwrap();
    let blocks = c.input_blocks(DIR).await.unwrap();
    assert_eq!(blocks.len(), 2);
    // The standby was asked once; later requests went to the active one.
    assert_eq!(nn1.request_log().len(), 1);
    assert_eq!(nn2.request_log().len(), 4);

    let nn3 = FakeNameNode::start(Namespace::default(), standby()).unwrap();
    let c = WebHdfs::new(opts(vec![nn1.url(), nn3.url()])).unwrap();
    assert_eq!(
        msg(c.file_status(DIR).await),
        format!(
            "GETFILESTATUS {DIR}: no NameNode answered: {}: GETFILESTATUS {DIR}: StandbyException: Operation category READ is not supported in state standby; {}: GETFILESTATUS {DIR}: StandbyException: Operation category READ is not supported in state standby",
            nn1.url(),
            nn3.url()
        )
    );
}

#[tokio::test]
async fn slow_namenode_trips_the_read_timeout() {
    let nn = FakeNameNode::start(
        sample_namespace(DIR, 1, 1, 3),
        front(|_| {
            let mut r = Response::json(200, "{}");
            r.delay = Duration::from_millis(1500);
            Some(r)
        }),
    )
    .unwrap();
    let mut o = opts(vec![nn.url()]);
    o.read_timeout = Duration::from_millis(200);
    o.connect_timeout = Duration::from_millis(200);
    let start = Instant::now();
    let m = msg(WebHdfs::new(o).unwrap().file_status(DIR).await);
    let prefix = format!("{}: GETFILESTATUS {DIR}: timed out after 0.", nn.url());
    assert!(m.starts_with(&prefix), "{m}");
    assert!(
        m.ends_with(" s (connect timeout 0.2 s, read timeout 0.2 s per read, 1.2 s per request)"),
        "{m}"
    );
    assert!(
        start.elapsed() < Duration::from_millis(1200),
        "{:?}",
        start.elapsed()
    );
}

#[tokio::test]
async fn retries_5xx_then_succeeds_or_gives_up() {
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    let nn = FakeNameNode::start(
        sample_namespace(DIR, 1, 1, 3),
        front(move |r| {
            if r.path == "/always" {
                return Some(Response::json(503, "<html>Service Unavailable</html>"));
            }
            // WebHDFS maps an IOException such as RetriableException to 403.
            (seen.fetch_add(1, Ordering::SeqCst) == 0).then(|| {
                Response::remote(
                    403,
                    "RetriableException",
                    "org.apache.hadoop.ipc.RetriableException",
                    "NameNode still not started",
                )
            })
        }),
    )
    .unwrap();
    let c = client(&nn);
    let st = c.file_status(DIR).await.unwrap();
    assert_eq!(st.kind, "DIRECTORY");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(
        msg(c.file_status("/always").await),
        format!(
            "{}: GETFILESTATUS /always: HTTP 503: <html>Service Unavailable</html>",
            nn.url()
        )
    );
    assert_eq!(
        nn.request_log()
            .iter()
            .filter(|t| t.starts_with("/webhdfs/v1/always"))
            .count(),
        3
    );
}

#[tokio::test]
async fn malformed_bodies_are_reported() {
    let nn = FakeNameNode::start(
        sample_namespace(DIR, 1, 1, 3),
        front(|r| match (r.path.as_str(), r.op.as_str()) {
            ("/trunc", _) => Some(Response::json(200, "{\"FileStatus\": {\"type\": \"FI")),
            ("/wrong", _) => Some(Response::json(
                200,
                "{\"FileStatuses\": {\"FileStatus\": 42}}",
            )),
            (_, "GETFILEBLOCKLOCATIONS") => Some(Response::json(
                200,
                "{\"BlockLocations\": {\"BlockLocation\": [{\"offset\": -1}]}}",
            )),
            _ => None,
        }),
    )
    .unwrap();
    let c = client(&nn);
    let m = msg(c.file_status("/trunc").await);
    assert!(
        m.starts_with(&format!(
            "{}: GETFILESTATUS /trunc: malformed response: EOF while parsing",
            nn.url()
        )),
        "{m}"
    );
    let m = msg(c.list_status("/wrong").await);
    assert!(
        m.starts_with(&format!(
            "{}: LISTSTATUS /wrong: malformed response: invalid type: integer `42`",
            nn.url()
        )),
        "{m}"
    );
    let m = msg(c.input_blocks(DIR).await);
    assert!(
        m.starts_with(&format!("{}: GETFILEBLOCKLOCATIONS {DIR}/part-00000: malformed response: invalid value: integer `-1`", nn.url())),
        "{m}"
    );
}

#[tokio::test]
async fn refused_connections_are_retried_then_reported() {
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let c = WebHdfs::new(opts(vec![format!("127.0.0.1:{port}")])).unwrap();
    let m = msg(c.file_status(DIR).await);
    assert!(
        m.starts_with(&format!(
            "http://127.0.0.1:{port}: GETFILESTATUS {DIR}: cannot connect after 3 attempts: "
        )),
        "{m}"
    );
}

#[tokio::test]
async fn concurrency_is_bounded() {
    let now = Arc::new(AtomicUsize::new(0));
    let max = Arc::new(AtomicUsize::new(0));
    let (n, m) = (now.clone(), max.clone());
    let nn = FakeNameNode::start(
        sample_namespace(DIR, 12, 1, 4),
        front(move |_| {
            let k = n.fetch_add(1, Ordering::SeqCst) + 1;
            m.fetch_max(k, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(15));
            n.fetch_sub(1, Ordering::SeqCst);
            None
        }),
    )
    .unwrap();
    let mut o = opts(vec![nn.url()]);
    o.concurrency = 3;
    let blocks = WebHdfs::new(o).unwrap().input_blocks(DIR).await.unwrap();
    assert_eq!(blocks.len(), 12);
    let peak = max.load(Ordering::SeqCst);
    assert!((2..=3).contains(&peak), "peak in flight {peak}");
}

/// A 400 about something else than the op is an error, not a sign of an
/// older NameNode: the client keeps GETFILEBLOCKLOCATIONS and says why.
#[tokio::test]
async fn an_unrelated_400_does_not_switch_to_the_old_op() {
    let nn = FakeNameNode::start(
        sample_namespace(DIR, 1, 1, 3),
        front(|r| {
            (r.op == "GETFILEBLOCKLOCATIONS").then(|| {
                Response::remote(
                    400,
                    "IllegalArgumentException",
                    "java.lang.IllegalArgumentException",
                    "Invalid value for webhdfs parameter \"length\": -1",
                )
            })
        }),
    )
    .unwrap();
    let m = msg(client(&nn).input_blocks(DIR).await);
    assert!(
        m.contains("IllegalArgumentException") && m.contains("\"length\""),
        "{m}"
    );
    assert!(
        !nn.request_log()
            .iter()
            .any(|t| t.contains("op=GET_BLOCK_LOCATIONS")),
        "switched to the old op"
    );
}
