//! Hostile inputs for the readers (issue 14, items 11 to 16): a topology
//! script that hangs, floods or leaves a child behind; a WebHDFS server whose
//! listing never ends, loops or holds impossible names, whose bodies are
//! huge or trickle in; an XInclude fan-out; a bad `spindle.policy`; and
//! property tests that send magnitudes and counts through the configuration
//! keys, the fsck text and the split file. Each case ends in a clear error
//! or a valid result within generous time and memory bounds.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use proptest::prelude::*;
use spindle_hadoop::conf::{keys, Configuration, Settings};
use spindle_hadoop::fake_namenode::{sample_namespace, FakeNameNode, Handler, Request, Response};
use spindle_hadoop::topology::ScriptLimits;
use spindle_hadoop::webhdfs::{WebHdfs, WebHdfsOptions};
use spindle_hadoop::{parse_fsck, parse_split_meta_info, Topology};
use spindle_testkit::{bounded, bounded_all_threads, CountingAlloc};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const MB: usize = 1 << 20;
const DIR: &str = "/in";

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("spindle-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn script(d: &Path, body: &str) -> PathBuf {
    let p = d.join("topo.sh");
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

fn resolve_bounded(script: PathBuf, limits: ScriptLimits) -> String {
    bounded_all_threads(
        "topology script",
        Duration::from_secs(30),
        32 * MB,
        move || {
            let t = Topology::Script {
                script,
                max_args: 100,
                limits,
            };
            t.resolve(&["a".to_string(), "b".to_string()])
                .unwrap_err()
                .to_string()
        },
    )
}

const SHORT: ScriptLimits = ScriptLimits {
    timeout: Duration::from_millis(700),
    max_output: 1 << 20,
};

// Item 11: a script that sleeps hung `spindle plan`; one that exits while a
// child keeps its output open hung it too; 2 GB of output took 5.2 GB.
#[test]
fn topology_scripts_are_bounded() {
    let d = dir("script");
    let e = resolve_bounded(script(&d, "sleep 60"), SHORT);
    assert!(e.contains(": still running after "), "{e}");
    assert!(
        e.contains(
            "ms, past the 700 ms limit (spindle.topology.script.timeout), for hosts a b; killed"
        ),
        "{e}"
    );
    let e = resolve_bounded(script(&d, "sleep 60 &\necho /r1 /r2"), SHORT);
    assert!(
        e.contains("exited, but its output stayed open (a background child holding it?)"),
        "{e}"
    );
    let e = resolve_bounded(script(&d, "exec yes /rack-with-a-long-name"), SHORT);
    assert!(
        e.ends_with("printed more than 1048576 bytes (spindle.topology.script.max-output) for hosts a b; killed"),
        "{e}"
    );
    // A well-behaved script is unaffected.
    let ok = Topology::Script {
        script: script(&d, "for h in \"$@\"; do echo /r-$h; done"),
        max_args: 100,
        limits: SHORT,
    };
    assert_eq!(
        ok.resolve(&["a".into(), "b".into()]).unwrap(),
        vec!["/r-a", "/r-b"]
    );
}

fn client(url: String, tune: impl FnOnce(&mut WebHdfsOptions)) -> WebHdfs {
    let mut o = WebHdfsOptions {
        namenodes: vec![url],
        connect_timeout: Duration::from_secs(2),
        read_timeout: Duration::from_secs(2),
        retries: 3,
        backoff: Duration::from_millis(5),
        ..WebHdfsOptions::default()
    };
    tune(&mut o);
    WebHdfs::new(o).unwrap()
}

fn nn(f: impl Fn(&Request) -> Option<Response> + Send + Sync + 'static) -> FakeNameNode {
    let h: Handler = std::sync::Arc::new(f);
    FakeNameNode::start(sample_namespace(DIR, 1, 1, 3), Some(h)).unwrap()
}

/// Runs `f` on a current-thread runtime within the bounds.
fn block_on<R: Send + 'static>(
    what: &str,
    mem: usize,
    f: impl std::future::Future<Output = R> + Send + 'static,
) -> R {
    bounded_all_threads(what, Duration::from_secs(60), mem, move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(f)
    })
}

fn dir_status(suffix: &str, file_id: Option<u64>) -> serde_json::Value {
    let mut v = serde_json::json!({"pathSuffix": suffix, "type": "DIRECTORY", "length": 0});
    if let Some(id) = file_id {
        v["fileId"] = id.into();
    }
    v
}

fn listing(entries: Vec<serde_json::Value>) -> Response {
    Response::json(
        200,
        serde_json::json!({"FileStatuses": {"FileStatus": entries}}).to_string(),
    )
}

// Item 12: a listing that always holds a directory `x` was walked for ever
// (/x/x/x...), and names such as "/" or "a/../.." reached 2.4 GB.
#[test]
fn the_webhdfs_walk_is_bounded() {
    let endless = |id: Option<u64>| {
        nn(move |r| match r.op.as_str() {
            "GETFILESTATUS" => Some(Response::json(
                200,
                serde_json::json!({"FileStatus": dir_status("", Some(1))}).to_string(),
            )),
            "LISTSTATUS" => Some(listing(vec![dir_status("x", id)])),
            _ => None,
        })
    };
    let server = endless(None);
    let c = client(server.url(), |o| o.max_depth = 40);
    let e = block_on("endless", 64 * MB, async move {
        c.input_files(DIR).await.unwrap_err()
    });
    assert!(e.to_string().starts_with("LISTSTATUS /in/x/x/x/x"), "{e}");
    assert!(
        e.to_string()
            .ends_with(": deeper than 40 directory levels under /in (spindle.webhdfs.max-depth)"),
        "{e}"
    );
    // GETFILESTATUS, then one LISTSTATUS per level 0 to 40.
    assert_eq!(server.request_log().len(), 42);
    let server = endless(Some(7));
    let c = client(server.url(), |_| {});
    let e = block_on("loop", 64 * MB, async move {
        c.input_files(DIR).await.unwrap_err()
    });
    assert_eq!(
        e.to_string(),
        "LISTSTATUS /in/x: directory x (inode 7) was already walked; the listing loops"
    );
    for name in ["/", "a/../..", "..", "."] {
        let server = nn(move |r| match r.op.as_str() {
            "LISTSTATUS" => Some(listing(vec![dir_status(name, None)])),
            _ => None,
        });
        let c = client(server.url(), |_| {});
        let e = block_on("names", 64 * MB, async move {
            c.input_files(DIR).await.unwrap_err()
        });
        assert_eq!(
            e.to_string(),
            format!("LISTSTATUS /in: entry name {name:?} is not a single path component (HDFS names hold no '/' and are never '.' or '..')")
        );
    }
    let server = nn(|r| {
        match r.op.as_str() {
        "LISTSTATUS" => Some(listing(
            (0..10)
                .map(|i| serde_json::json!({"pathSuffix": format!("f{i}"), "type": "FILE", "length": 1}))
                .collect(),
        )),
        _ => None,
    }
    });
    let c = client(server.url(), |o| o.max_files = 5);
    let e = block_on("files", 64 * MB, async move {
        c.input_files(DIR).await.unwrap_err()
    });
    assert_eq!(
        e.to_string(),
        "/in: more than 5 files and directories under it (spindle.webhdfs.max-files)"
    );
    let server = FakeNameNode::start(sample_namespace(DIR, 3, 2, 3), None).unwrap();
    let c = client(server.url(), |o| o.max_blocks = 4);
    let e = block_on("blocks", 64 * MB, async move {
        c.input_blocks(DIR).await.unwrap_err()
    });
    assert_eq!(
        e.to_string(),
        "/in: more than 4 blocks under it (the block limit: `spindle plan --max-tasks`)"
    );
}

// Item 13: bodies were read whole (2 GB took 6.3 GB; a 1 GB error body was
// fetched 4 times), and a timeout reported the read timeout rather than the
// time it took.
#[test]
fn webhdfs_bodies_and_timeouts_are_bounded() {
    for declare in [false, true] {
        let server = nn(move |_| Some(Response::huge(200, 2 << 30, declare)));
        let c = client(server.url(), |o| o.max_response = 4 << 20);
        let e = block_on("2 GB body", 64 * MB, async move {
            c.file_status(DIR).await.unwrap_err()
        });
        let want = format!(
            "{}: GETFILESTATUS /in: response larger than 4194304 bytes (spindle.webhdfs.max-response)",
            server.url()
        );
        if declare {
            assert_eq!(
                e.to_string(),
                format!("{want}; it announced 2147483648 bytes")
            );
        } else {
            assert_eq!(e.to_string(), want);
        }
    }
    let server = nn(|_| Some(Response::huge(503, 1 << 30, true)));
    let c = client(server.url(), |_| {});
    let e = block_on("1 GB error body", 64 * MB, async move {
        c.file_status(DIR).await.unwrap_err()
    });
    assert_eq!(
        e.to_string(),
        format!(
            "{}: GETFILESTATUS /in: HTTP 503: (blank body)",
            server.url()
        )
    );
    assert_eq!(server.request_log().len(), 4, "a first try and 3 retries");
    // One byte every 100 ms: each read is quick, the request is not.
    let server = nn(|_| Some(Response::trickle(1000, Duration::from_millis(100))));
    let c = client(server.url(), |o| {
        o.connect_timeout = Duration::from_millis(300);
        o.read_timeout = Duration::from_millis(300);
    });
    let e = block_on("trickle", 64 * MB, async move {
        c.file_status(DIR).await.unwrap_err()
    })
    .to_string();
    let after =
        spindle_testkit::number_after(&e, "timed out after ").unwrap_or_else(|| panic!("{e}"));
    assert!(after >= 1.7, "the elapsed time, not the read timeout: {e}");
    assert!(
        e.ends_with(" s (connect timeout 0.3 s, read timeout 0.3 s per read, 1.8 s per request)"),
        "{e}"
    );
    // A zero timeout is refused before any request.
    let e = WebHdfs::new(WebHdfsOptions {
        namenodes: vec!["http://nn:9870".into()],
        read_timeout: Duration::ZERO,
        ..WebHdfsOptions::default()
    })
    .err()
    .unwrap();
    assert_eq!(
        e.to_string(),
        "bad WebHDFS option read timeout: must be longer than 0"
    );
}

fn site(props: &[(&str, &str)]) -> String {
    let body: String = props
        .iter()
        .map(|(k, v)| format!("<property><name>{k}</name><value>{v}</value></property>\n"))
        .collect();
    format!("<?xml version=\"1.0\"?>\n<configuration>\n{body}</configuration>\n")
}

fn settings_error(props: &[(&str, &str)]) -> String {
    let d = dir("settings");
    std::fs::write(d.join("spindle-site.xml"), site(props)).unwrap();
    let c = Configuration::load_dir(&d).unwrap();
    Settings::from_conf(&c).unwrap_err().to_string()
}

// Item 13: a timeout of 0 is refused at configuration time.
#[test]
fn zero_timeouts_are_configuration_errors() {
    for key in [
        keys::WEBHDFS_READ_TIMEOUT,
        keys::WEBHDFS_CONNECT_TIMEOUT,
        keys::TOPOLOGY_SCRIPT_TIMEOUT,
    ] {
        let e = settings_error(&[(key, "0s")]);
        assert!(
            e.ends_with(&format!("property {key}: \"0s\" must be longer than 0")),
            "{e}"
        );
        assert!(e.contains("spindle-site.xml:3: "), "{e}");
    }
}

// Item 15: 16 files each including the next 3 times ran past 60 s.
#[test]
fn an_xinclude_fan_out_is_bounded() {
    let d = dir("fanout");
    for i in 0..16 {
        let inc = format!("<xi:include href=\"f{}.xml\"/>", i + 1);
        let body = if i < 15 {
            format!(
                "<configuration xmlns:xi=\"http://www.w3.org/2001/XInclude\">{inc}{inc}{inc}</configuration>"
            )
        } else {
            "<configuration><property><name>x</name><value>1</value></property></configuration>"
                .into()
        };
        std::fs::write(d.join(format!("f{i}.xml")), body).unwrap();
    }
    let path = d.join("f0.xml");
    let e = bounded("fan-out", Duration::from_secs(30), 64 * MB, move || {
        let mut c = Configuration::new();
        c.add_file(&path).unwrap_err().to_string()
    });
    assert!(
        e.ends_with("more than 256 includes for one resource (an include fan-out?)"),
        "{e}"
    );
}

// Item 16: a bad spindle.policy named neither file nor key, and a 50 MB bad
// value was echoed in full.
#[test]
fn a_bad_policy_names_file_key_and_a_short_value() {
    let e = settings_error(&[(keys::POLICY, "lifo")]);
    assert!(
        e.contains("spindle-site.xml:3: property spindle.policy: \"lifo\" is not a policy; known policies: asm1, asm1-comm"),
        "{e}"
    );
    // S-PC's baselines are policies the Session runs.
    let d = dir("settings-baseline");
    std::fs::write(
        d.join("spindle-site.xml"),
        site(&[(keys::POLICY, "spc-identical")]),
    )
    .unwrap();
    let c = Configuration::load_dir(&d).unwrap();
    let sc = Settings::from_conf(&c).unwrap().session_config(1).unwrap();
    assert_eq!(sc.policy.name(), "spc-identical");
    let e = settings_error(&[(keys::POLICY, "${spindle.nothing}")]);
    assert!(
        e.ends_with("property spindle.policy: \"${spindle.nothing}\" holds ${spindle.nothing}, which no property or environment variable defines"),
        "{e}"
    );
    // Serialised with the other all-thread measurements, which its 50 MB
    // would disturb.
    let e = bounded_all_threads("50 MB value", Duration::from_secs(60), 1 << 30, || {
        settings_error(&[(keys::POLICY, &"x".repeat(50 << 20))])
    });
    assert!(e.len() < 2000, "{} bytes of message", e.len());
    assert!(e.contains("... (52428800 bytes in all)"), "{}", &e[..300]);
}

// Item 14 (library side): the split parser no longer re-checks the size;
// the reader does, before reading (see the CLI tests). A forged split count
// allocates nothing.
#[test]
fn forged_split_counts_allocate_nothing() {
    let mut b = b"META-SPL".to_vec();
    b.push(1); // version
    b.extend([0x8c, 0x7f, 0xff, 0xff, 0xff]); // i32::MAX splits (VInt)
    let e = bounded("splits", Duration::from_secs(10), MB, move || {
        parse_split_meta_info(&b).unwrap_err().to_string()
    });
    assert!(
        e.contains("file ends inside location count of split 0"),
        "{e}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// Every Spindle key with a hostile value: the settings load, or the
    /// error names the key and the file.
    #[test]
    fn hostile_setting_values_load_or_name_the_key(
        key in proptest::sample::select(vec![
            keys::REPLICATION, keys::BLOCK_SIZE, keys::TOPOLOGY_SCRIPT_ARGS, keys::NM_HEARTBEAT,
            keys::COST_LOCAL, keys::COST_REMOTE, keys::COST_REMOTE_GROWTH, keys::WEBHDFS_CONNECT_TIMEOUT,
            keys::WEBHDFS_READ_TIMEOUT, keys::NODE_DELAY, keys::RACK_ADDITIONAL_DELAY, keys::SEED,
            keys::TOPOLOGY_SCRIPT_TIMEOUT, keys::TOPOLOGY_SCRIPT_MAX_OUTPUT, keys::WEBHDFS_MAX_RESPONSE,
            keys::WEBHDFS_MAX_DEPTH, keys::WEBHDFS_MAX_FILES, keys::SPLIT_METAINFO_MAXSIZE, keys::POLICY,
        ]),
        value in proptest::sample::select(vec![
            "0", "-1", "1", "0s", "1e300", "5e-324", "-0", "2147483647", "2147483648", "4294967295",
            "4294967296", "9223372036854775807", "9223372036854775808", "18446744073709551615",
            "8e", "1p", "999999999999d", "0x7fffffffffffffff", "-0x8000000000000000", "NaN", "inf",
            "${a}${a}${a}", "",
        ]),
    ) {
        let d = dir("prop");
        std::fs::write(d.join("spindle-site.xml"), site(&[(key, value), ("a", "${a}")])).unwrap();
        let r = bounded("settings", Duration::from_secs(10), 16 * MB, move || {
            let c = Configuration::load_dir(&d).map_err(|e| e.to_string())?;
            Settings::from_conf(&c).map(|_| ()).map_err(|e| e.to_string())
        });
        if let Err(e) = r {
            prop_assert!(e.contains(key), "{e}");
        }
    }

    /// fsck output with hostile numbers and counts.
    #[test]
    fn hostile_fsck_text_parses_or_names_the_line(
        len in proptest::sample::select(vec!["0", "1", "18446744073709551615", "18446744073709551616", "1e30", "-5"]),
        count in proptest::sample::select(vec!["0", "1", "2", "4294967296", "18446744073709551615"]),
        blocks in 0usize..200,
    ) {
        let mut text = format!("/in/f {len} bytes, replicated: replication=3, {count} block(s):  OK\n");
        for i in 0..blocks {
            text.push_str(&format!(
                "{i}. BP-1:blk_{i}_1 len={len} Live_repl=1  [DatanodeInfoWithStorage[10.0.0.{}:9866,DS-a,DISK]]\n",
                i % 250
            ));
        }
        let r = bounded("fsck", Duration::from_secs(10), 16 * MB, move || {
            parse_fsck(&text).map(|b| b.len()).map_err(|e| e.to_string())
        });
        if let Err(e) = r {
            prop_assert!(e.starts_with("fsck"), "{e}");
        }
    }

    /// Split files with forged counts and lengths.
    #[test]
    fn hostile_split_files_parse_or_name_the_offset(
        splits in proptest::sample::select(vec![0i64, 1, 3, i32::MAX as i64, -1]),
        locations in proptest::sample::select(vec![0i64, 1, 600, i32::MAX as i64, -1]),
        body in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        let mut b = b"META-SPL".to_vec();
        write_vlong(&mut b, 1);
        write_vlong(&mut b, splits);
        write_vlong(&mut b, locations);
        b.extend(body);
        let r = bounded("splits", Duration::from_secs(10), 16 * MB, move || {
            parse_split_meta_info(&b).map(|s| s.len()).map_err(|e| e.to_string())
        });
        if let Err(e) = r {
            prop_assert!(e.starts_with("split meta-info"), "{e}");
        }
    }
}

/// `WritableUtils.writeVLong`.
fn write_vlong(out: &mut Vec<u8>, i: i64) {
    if (-112..=127).contains(&i) {
        out.push(i as u8);
        return;
    }
    let (v, mut len) = if i < 0 { (!i, -120i32) } else { (i, -112i32) };
    let mut tmp = v;
    while tmp != 0 {
        tmp >>= 8;
        len -= 1;
    }
    out.push(len as u8);
    let bytes = if len < -120 {
        -(len + 120)
    } else {
        -(len + 112)
    };
    for idx in (0..bytes).rev() {
        out.push(((v >> (idx * 8)) & 0xff) as u8);
    }
}
