//! `spindle plan` on cluster inputs: the real binary against a WebHDFS server
//! on 127.0.0.1, and on fsck and split files written here.

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;
use spindle_hadoop::fake_namenode::{sample_namespace, FakeNameNode};
use spindle_hadoop::splits::{write_split_meta_info, SplitMetaInfo};

const DIR: &str = "/user/alice/input";

mod common;
use common::{stderr, stdout};

/// The binary as an admin would run it: a delegation token in the
/// environment (which must never show up in output) and a user name.
fn spindle(args: &[&str]) -> Output {
    common::spindle_with_env(
        args,
        &[
            ("SPINDLE_DELEGATION_TOKEN", "SECRET-CLI-TOKEN"),
            ("USER", "alice"),
        ],
    )
}

fn temp_dir(name: &str) -> PathBuf {
    common::scratch_dir(&format!("hdfs-{name}"))
}

#[test]
fn plan_webhdfs_end_to_end() {
    let nn = FakeNameNode::start(sample_namespace(DIR, 3, 2, 5), None).unwrap();
    let url = nn.url();
    let o = spindle(&["plan", "--webhdfs", &url, "--path", DIR, "--policy", "asm1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["policy"], "asm1");
    assert_eq!(v["source"], format!("{DIR} on {url}"));
    let rows = v["assignment"].as_array().unwrap();
    let tasks: Vec<&str> = rows.iter().map(|r| r["task"].as_str().unwrap()).collect();
    assert_eq!(
        tasks,
        vec![
            "/user/alice/input/part-00000@0",
            "/user/alice/input/part-00000@134217728",
            "/user/alice/input/part-00001@0",
            "/user/alice/input/part-00001@134217728",
            "/user/alice/input/part-00002@0",
            "/user/alice/input/part-00002@134217728"
        ]
    );
    assert!(rows
        .iter()
        .all(|r| r["node"].as_str().unwrap().starts_with("dn")));
    // Six blocks with three replicas each on five nodes: ASM1 places all locally.
    assert_eq!(v["metrics"]["non_local"], 0);
    assert!(v["hadoop_default"]["non_local"].as_u64().is_some());
    let log = nn.request_log();
    assert!(log
        .iter()
        .all(|t| t.contains("user.name=alice") && t.contains("delegation=SECRET-CLI-TOKEN")));

    // Table form, racks from a table file rather than the NameNode's paths.
    let d = temp_dir("table");
    let topo = d.join("topology.txt");
    std::fs::write(&topo, "dn01 /rackA\ndn02 /rackA\ndn03 /rackB\n").unwrap();
    let o = spindle(&[
        "plan",
        "--webhdfs",
        &url,
        "--path",
        DIR,
        "--topology",
        topo.to_str().unwrap(),
        "--format",
        "table",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with(&format!(
            "input: 6 blocks from {DIR} on {url}\nhadoop-default (greedy): makespan "
        )),
        "{out}"
    );
    assert!(out.contains("\npolicy asm1: 6 tasks on 5 nodes;"), "{out}");
    let rack_of = |host: &str| {
        out.lines()
            .find(|l| l.starts_with(host))
            .and_then(|l| l.split_whitespace().nth(1))
            .unwrap_or("?")
            .to_string()
    };
    assert_eq!(rack_of("dn01"), "/rackA");
    assert_eq!(rack_of("dn03"), "/rackB");
    assert_eq!(rack_of("dn04"), "/default-rack");
}

#[test]
fn plan_webhdfs_from_conf_dir() {
    let nn = FakeNameNode::start(sample_namespace(DIR, 2, 1, 3), None).unwrap();
    let d = temp_dir("conf");
    std::fs::write(
        d.join("spindle-site.xml"),
        format!(
            "<configuration>\n<property><name>spindle.webhdfs.address</name><value>{}</value></property>\n<property><name>spindle.policy</name><value>greedy</value></property>\n</configuration>\n",
            nn.url()
        ),
    )
    .unwrap();
    let o = spindle(&["plan", "--path", DIR, "--conf-dir", d.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["policy"], "greedy");
    assert_eq!(v["assignment"].as_array().unwrap().len(), 2);
    // Racks from the NameNode's topology paths.
    let o = spindle(&[
        "plan",
        "--path",
        DIR,
        "--conf-dir",
        d.to_str().unwrap(),
        "--format",
        "table",
    ]);
    assert!(stdout(&o).contains("/rack1"), "{}", stdout(&o));
}

#[test]
fn plan_webhdfs_errors() {
    let nn = FakeNameNode::start(sample_namespace(DIR, 1, 1, 3), None).unwrap();
    let o = spindle(&[
        "plan",
        "--webhdfs",
        &nn.url(),
        "--path",
        "/user/alice/nothing",
    ]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert_eq!(
        e.trim_end(),
        format!("spindle: error: reading block locations over WebHDFS: {}: GETFILESTATUS /user/alice/nothing: FileNotFoundException: File does not exist: /user/alice/nothing", nn.url())
    );
    assert!(!e.contains("SECRET"));
    let o = spindle(&["plan", "--webhdfs", &nn.url()]);
    assert_eq!(
        stderr(&o).trim_end(),
        "spindle: error: --webhdfs needs --path (the HDFS input file or directory)"
    );
    let o = spindle(&["plan", "--webhdfs", "ftp://x", "--path", DIR]);
    assert_eq!(
        stderr(&o).trim_end(),
        "spindle: error: reading block locations over WebHDFS: bad NameNode address \"ftp://x\": want http://host:port or https://host:port"
    );
    let d = temp_dir("badconf");
    std::fs::write(d.join("hdfs-site.xml"), "<configuration><property><name>dfs.replication</name><value>x</value></property></configuration>").unwrap();
    let o = spindle(&["plan", "--path", DIR, "--conf-dir", d.to_str().unwrap()]);
    assert_eq!(
        stderr(&o).trim_end(),
        format!("spindle: error: Hadoop configuration: {}:1: property dfs.replication: \"x\" is not an integer", d.join("hdfs-site.xml").display())
    );
}

#[test]
fn plan_fsck_and_splits_offline() {
    let d = temp_dir("offline");
    let fsck = d.join("fsck.txt");
    std::fs::write(
        &fsck,
        "FSCK started by alice (auth:SIMPLE) from /10.0.0.9 for path /in at Sun Nov 22 14:00:00 UTC 2026\n\
/in/a 268435456 bytes, replicated: replication=2, 2 block(s):  OK\n\
0. BP-1:blk_1_1 len=134217728 Live_repl=2  [DatanodeInfoWithStorage[10.0.0.1:9866,DS-a,DISK], DatanodeInfoWithStorage[10.0.0.2:9866,DS-b,DISK]]\n\
1. BP-1:blk_2_2 len=134217728 Live_repl=2  [DatanodeInfoWithStorage[10.0.0.2:9866,DS-b,DISK], DatanodeInfoWithStorage[10.0.0.3:9866,DS-c,DISK]]\n\
\nStatus: HEALTHY\n",
    )
    .unwrap();
    let o = spindle(&["plan", "--fsck", fsck.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let tasks: Vec<&str> = v["assignment"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["task"].as_str().unwrap())
        .collect();
    assert_eq!(tasks, vec!["/in/a@0", "/in/a@134217728"]);
    assert_eq!(v["source"], format!("fsck {}", fsck.display()));

    let trunc = d.join("fsck-trunc.txt");
    std::fs::write(
        &trunc,
        "/in/a 10 bytes, 2 block(s):  OK\n0. BP-1:blk_1_1 len=5 repl=1 [10.0.0.1:50010]\n",
    )
    .unwrap();
    let o = spindle(&["plan", "--fsck", trunc.to_str().unwrap()]);
    assert_eq!(
        stderr(&o).trim_end(),
        format!("spindle: error: fsck output {}: fsck: file /in/a (line 1) has 2 block(s) but 1 block line(s) follow it (truncated output, or fsck run without -blocks?)", trunc.display())
    );

    let splits = d.join("job.splitmetainfo");
    let meta = vec![
        SplitMetaInfo {
            locations: vec!["dn1".into(), "dn2".into()],
            start_offset: 7,
            input_data_length: 100,
        },
        SplitMetaInfo {
            locations: vec!["dn2".into(), "dn3".into()],
            start_offset: 90,
            input_data_length: 100,
        },
    ];
    let bytes = write_split_meta_info(&meta);
    std::fs::write(&splits, &bytes).unwrap();
    let o = spindle(&[
        "plan",
        "--splits",
        splits.to_str().unwrap(),
        "--format",
        "table",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("policy asm1: 2 tasks on 3 nodes;"),
        "{}",
        stdout(&o)
    );
    std::fs::write(&splits, &bytes[..bytes.len() - 3]).unwrap();
    let o = spindle(&["plan", "--splits", splits.to_str().unwrap()]);
    let e = stderr(&o);
    assert!(
        e.starts_with(&format!(
            "spindle: error: split file {}: split meta-info: at byte ",
            splits.display()
        )),
        "{e}"
    );
    assert!(e.contains("(truncated?)"), "{e}");
}
