//! Configuration files as an administrator writes them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use proptest::prelude::*;
use spindle_hadoop::conf::{keys, Configuration, Settings};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("spindle-conf-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(d: &Path, file: &str, body: &str) -> PathBuf {
    let p = d.join(file);
    std::fs::write(&p, body).unwrap();
    p
}

fn site(props: &str) -> String {
    format!("<?xml version=\"1.0\"?>\n<?xml-stylesheet type=\"text/xsl\" href=\"configuration.xsl\"?>\n<configuration>\n{props}</configuration>\n")
}

#[test]
fn override_order_final_and_typed_values() {
    let d = dir("order");
    write(
        &d,
        "core-site.xml",
        &site(
            "  <property>\n    <name>net.topology.script.number.args</name>\n    <value>7</value>\n    <final>true</final>\n  </property>\n  <property><name>hadoop.tmp.dir</name><value>/tmp/hadoop-${user.name}</value></property>\n",
        ),
    );
    write(
        &d,
        "hdfs-site.xml",
        &site(
            "  <property>\n    <name> dfs.blocksize </name>\n    <value>256m</value>\n    <description>bigger blocks</description>\n  </property>\n  <property name=\"dfs.replication\" value=\"2\"/>\n  <property><name>dfs.namenode.http-address</name><value>nn1.example.com:9870</value></property>\n",
        ),
    );
    write(
        &d,
        "yarn-site.xml",
        &site("  <property><name>net.topology.script.number.args</name><value>9</value></property>\n  <property><name>yarn.resourcemanager.nodemanagers.heartbeat-interval-ms</name><value>2s</value></property>\n"),
    );
    write(
        &d,
        "spindle-site.xml",
        &site(
            "  <property><name>spindle.policy</name><value>asm1-comm</value></property>\n  <property><name>spindle.cost.remote</name><value> 4.5 </value></property>\n  <property><name>spindle.webhdfs.address</name><value>http://nn1:9870, http://nn2:9870,</value></property>\n  <property><name>spindle.webhdfs.read-timeout</name><value>1500</value></property>\n  <property><name>spindle.webhdfs.connect-timeout</name><value>3s</value></property>\n",
        ),
    );
    let c = Configuration::load_dir(&d).unwrap();
    // Final in core-site beats the later yarn-site.
    assert_eq!(c.get_i64(keys::TOPOLOGY_SCRIPT_ARGS).unwrap(), 7);
    assert!(c.is_final(keys::TOPOLOGY_SCRIPT_ARGS));
    assert_eq!(c.warnings().len(), 1);
    let w = &c.warnings()[0];
    assert!(w.contains("yarn-site.xml:4: an attempt to override final parameter: net.topology.script.number.args"), "{w}");
    assert!(w.contains("core-site.xml:4"), "{w}");
    assert_eq!(c.get_bytes(keys::BLOCK_SIZE).unwrap(), 256 << 20);
    let s = Settings::from_conf(&c).unwrap();
    assert_eq!(s.replication, 2);
    assert_eq!(s.block_size, 256 << 20);
    assert_eq!(s.nm_heartbeat, Duration::from_secs(2));
    assert_eq!(s.policy, "asm1-comm");
    assert_eq!(s.cost.remote, 4.5);
    assert_eq!(s.cost.local, 1.0);
    assert_eq!(s.webhdfs, vec!["http://nn1:9870", "http://nn2:9870"]);
    assert_eq!(s.webhdfs_read_timeout, Duration::from_millis(1500));
    assert_eq!(s.webhdfs_connect_timeout, Duration::from_secs(3));
    assert_eq!(s.node_delay, 40);
    assert_eq!(s.rack_additional_delay, -1);
    assert_eq!(s.fallback, "fifo");
    let sc = s.session_config(7).unwrap();
    assert_eq!(sc.policy.name(), "asm1-comm");
    assert_eq!(sc.delay.node_locality_delay, 40);
    assert_eq!(sc.cost.remote, 4.5);
    assert_eq!(s.topology_table, None);
    assert_eq!(
        c.origin(keys::BLOCK_SIZE).unwrap().to_string(),
        format!("{}:4", d.join("hdfs-site.xml").display())
    );
}

#[test]
fn defaults_alone() {
    let s = Settings::from_conf(&Configuration::with_defaults()).unwrap();
    assert_eq!(s.webhdfs, vec!["http://0.0.0.0:9870"]);
    assert_eq!(s.replication, 3);
    assert_eq!(s.block_size, 134_217_728);
    assert_eq!(s.topology_script_args, 100);
    assert_eq!(s.nm_heartbeat, Duration::from_millis(1000));
    assert_eq!(s.webhdfs_read_timeout, Duration::from_secs(60));
}

fn conf_with(props: &str, env: &[(&str, &str)]) -> Configuration {
    let mut c = Configuration::with_defaults();
    c.set_env(
        env.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<HashMap<_, _>>(),
    );
    c.add_str(&site(props), "test-site.xml", None).unwrap();
    c
}

fn p(name: &str, value: &str) -> String {
    format!("<property><name>{name}</name><value>{value}</value></property>\n")
}

#[test]
fn expansion_follows_hadoop() {
    let props = [
        p("a", "x-${b}-${c}"),
        p("b", "B"),
        p("c", "${b}${b}"),
        p("home", "${env.HOME_DIR}/data"),
        p("def1", "${env.UNSET:-fallback}"),
        p("def2", "${env.EMPTY:-fallback}"),
        p("def3", "${env.EMPTY-fallback}|${env.UNSET-other}"),
        p("unbound", "${nope}/${b}"),
        p("self", "pre ${self} post"),
        p("spaced", "${not a var} ${b}"),
        p("user", "/tmp/hadoop-${user.name}"),
    ]
    .concat();
    let c = conf_with(
        &props,
        &[("HOME_DIR", "/home/al"), ("EMPTY", ""), ("USER", "alice")],
    );
    let g = |k: &str| c.get(k).unwrap().unwrap();
    assert_eq!(g("a"), "x-B-BB");
    assert_eq!(g("home"), "/home/al/data");
    assert_eq!(g("def1"), "fallback");
    assert_eq!(g("def2"), "fallback");
    assert_eq!(g("def3"), "|other");
    // Hadoop stops at the first unbound variable and leaves it literally.
    assert_eq!(g("unbound"), "${nope}/${b}");
    assert_eq!(g("self"), "pre ${self} post");
    assert_eq!(g("spaced"), "${not a var} B");
    assert_eq!(g("user"), "/tmp/hadoop-alice");
}

#[test]
fn expansion_loop_hits_the_depth_limit() {
    let props = [p("x", "${y}"), p("y", "${x}")].concat();
    let c = conf_with(&props, &[]);
    let e = c.get("x").unwrap_err().to_string();
    assert_eq!(
        e,
        "test-site.xml:4: property x: variable substitution depth too large (20 substitutions) in \"${y}\""
    );
    // Nineteen chained references still resolve (Hadoop's MAX_SUBST is 20).
    let mut chain: Vec<String> = (0..19)
        .map(|i| p(&format!("k{i}"), &format!("${{k{}}}", i + 1)))
        .collect();
    chain.push(p("k19", "end"));
    let c = conf_with(&chain.concat(), &[]);
    assert_eq!(c.get("k0").unwrap().unwrap(), "end");
    let mut chain: Vec<String> = (0..20)
        .map(|i| p(&format!("k{i}"), &format!("${{k{}}}", i + 1)))
        .collect();
    chain.push(p("k20", "end"));
    let c = conf_with(&chain.concat(), &[]);
    assert!(c.get("k0").is_err());
}

#[test]
fn includes_and_missing_includes() {
    let d = dir("include");
    write(&d, "extra.xml", &site(&p("from.include", "yes")));
    let main = write(
        &d,
        "core-site.xml",
        &site("<xi:include href=\"extra.xml\" xmlns:xi=\"http://www.w3.org/2001/XInclude\"/>\n<xi:include href=\"absent.xml\" xmlns:xi=\"http://www.w3.org/2001/XInclude\"><xi:fallback/></xi:include>\n"),
    );
    let mut c = Configuration::new();
    c.add_file(&main).unwrap();
    assert_eq!(c.get("from.include").unwrap().as_deref(), Some("yes"));

    let bad = write(
        &d,
        "hdfs-site.xml",
        &site("<xi:include href=\"missing.xml\" xmlns:xi=\"http://www.w3.org/2001/XInclude\"/>\n"),
    );
    let e = Configuration::new().add_file(&bad).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "{}:4: fetch fail on include for missing.xml: {} does not exist and the include has no <fallback>",
            bad.display(),
            d.join("missing.xml").display()
        )
    );

    let looped = write(&d, "loop.xml", &site("<include href=\"loop.xml\"/>\n"));
    let e = Configuration::new()
        .add_file(&looped)
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with("include of loop.xml nested more than 16 deep (an include loop?)"),
        "{e}"
    );
}

#[test]
fn bad_files_and_values_are_named() {
    let mut c = Configuration::new();
    let e = c
        .add_str("<configuration>\n<property><name>a</name><value>1</vaule></property>\n</configuration>", "bad.xml", None)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("bad.xml:2: malformed XML:"), "{e}");
    let e = c
        .add_str(
            "<configuration>\n\n<property><value>1</value></property></configuration>",
            "noname.xml",
            None,
        )
        .unwrap_err()
        .to_string();
    assert_eq!(e, "noname.xml:3: <property> without a <name>");
    let e = Configuration::new()
        .add_file(Path::new("/nonexistent/core-site.xml"))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("/nonexistent/core-site.xml: cannot read:"),
        "{e}"
    );

    let c = conf_with(
        &[
            p("dfs.blocksize", "128x"),
            p("dfs.replication", "three"),
            p("spindle.webhdfs.read-timeout", "5 fortnights"),
            p("flag", "yes"),
            p("huge", "9e"),
            p("spindle.cost.remote", "-1"),
        ]
        .concat(),
        &[],
    );
    let msg = |r: Result<i64, _>| {
        r.map_err(|e: spindle_hadoop::ConfError| e.to_string())
            .unwrap_err()
    };
    assert_eq!(
        msg(c.get_bytes("dfs.blocksize")),
        "test-site.xml:4: property dfs.blocksize: \"128x\" is not a byte count (an integer with an optional suffix k, m, g, t, p or e)"
    );
    assert_eq!(
        msg(c.get_i64("dfs.replication")),
        "test-site.xml:5: property dfs.replication: \"three\" is not an integer"
    );
    assert_eq!(
        msg(c.get_bytes("huge")),
        "test-site.xml:8: property huge: \"9e\" does not fit in a 64-bit byte count"
    );
    assert!(c
        .get_duration("spindle.webhdfs.read-timeout", Duration::from_millis(1))
        .unwrap_err()
        .to_string()
        .contains("\"5 fortnights\" is not a duration"));
    assert_eq!(
        c.get_bool("flag").unwrap_err().to_string(),
        "test-site.xml:7: property flag: \"yes\" is not a boolean (true or false)"
    );
    assert_eq!(
        Settings::from_conf(&c).unwrap_err().to_string(),
        "test-site.xml:9: property spindle.cost.remote: \"-1\" must be >= 0"
    );
    assert_eq!(
        c.get_i64("absent").unwrap_err().to_string(),
        "property absent is not set (no value in any configuration file and no default)"
    );
}

#[test]
fn typed_getters() {
    let c = conf_with(
        &[
            p("b1", "1k"),
            p("b2", " 2G "),
            p("b3", "-3m"),
            p("d1", "250ms"),
            p("d2", "3m"),
            p("d3", "1d"),
            p("d4", "10"),
            p("hex", "0x10"),
            p("t", "TRUE"),
            p("list", " a, b ,,c "),
        ]
        .concat(),
        &[],
    );
    assert_eq!(c.get_bytes("b1").unwrap(), 1024);
    assert_eq!(c.get_bytes("b2").unwrap(), 2 << 30);
    assert_eq!(c.get_bytes("b3").unwrap(), -3 << 20);
    let ms = Duration::from_millis(1);
    assert_eq!(
        c.get_duration("d1", ms).unwrap(),
        Duration::from_millis(250)
    );
    assert_eq!(c.get_duration("d2", ms).unwrap(), Duration::from_secs(180));
    assert_eq!(
        c.get_duration("d3", ms).unwrap(),
        Duration::from_secs(86400)
    );
    assert_eq!(
        c.get_duration("d4", Duration::from_secs(1)).unwrap(),
        Duration::from_secs(10)
    );
    assert_eq!(c.get_i64("hex").unwrap(), 16);
    assert!(c.get_bool("t").unwrap());
    assert_eq!(c.get_trimmed_strings("list").unwrap(), vec!["a", "b", "c"]);
    assert!(c.get_trimmed_strings("absent").unwrap().is_empty());
}

proptest! {
    #[test]
    fn parser_never_panics(s in "\\PC{0,200}") {
        spindle_hadoop::conf::fuzz_parse(&s);
    }

    #[test]
    fn parser_never_panics_on_xmlish(parts in proptest::collection::vec(prop_oneof![
        Just("<configuration>"), Just("</configuration>"), Just("<property>"), Just("</property>"),
        Just("<name>"), Just("</name>"), Just("<value>"), Just("</value>"), Just("<final>true</final>"),
        Just("a"), Just("${a}"), Just("${env.X:-"), Just("}"), Just("<![CDATA[x]]>"), Just("&amp;"), Just("&bogus;"),
        Just("<include href=\"x\"/>"), Just("<property name=\"a\" value=\"${a}\"/>"),
    ], 0..30)) {
        spindle_hadoop::conf::fuzz_parse(&parts.concat());
    }
}

/// The example conf/spindle-site.xml is valid here too (the RM plugin's
/// AdapterTest checks it from the Java side).
#[test]
fn the_example_spindle_site_is_valid() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conf/spindle-site.xml");
    let mut c = Configuration::with_defaults();
    c.add_file(&path).unwrap();
    let s = Settings::from_conf(&c).unwrap();
    assert_eq!(s.policy, "asm1");
    assert_eq!(s.fallback, "fifo");
    assert_eq!(s.seed, 1);
    assert_eq!(s.webhdfs_connect_timeout, Duration::from_secs(60));
    for key in [keys::POLICY, keys::FALLBACK, keys::WEBHDFS_READ_TIMEOUT] {
        assert!(
            c.origin(key)
                .is_some_and(|o| o.to_string().contains("spindle-site.xml")),
            "{key}"
        );
    }
}

#[test]
fn a_bad_fallback_names_the_key() {
    let mut c = Configuration::with_defaults();
    c.set(keys::FALLBACK, "retry");
    let e = Settings::from_conf(&c).unwrap_err().to_string();
    assert!(
        e.contains("spindle.fallback") && e.contains("expected \"fifo\" or \"none\""),
        "{e}"
    );
}

#[test]
fn a_signed_hex_value_is_an_error_not_an_overflow() {
    for v in [
        "-0x-8000000000000000",
        "0x-1",
        "0x+1",
        "-0x8000000000000000",
    ] {
        let mut c = Configuration::with_defaults();
        c.set(keys::SEED, v);
        let e = Settings::from_conf(&c).unwrap_err().to_string();
        assert!(e.contains("spindle.seed"), "{v}: {e}");
    }
    let mut c = Configuration::with_defaults();
    c.set(keys::SEED, "0x1F");
    assert_eq!(Settings::from_conf(&c).unwrap().seed, 31);
}

/// Line numbers are counted incrementally: a big file parses in one pass
/// (this took minutes when every XML event rescanned the text).
#[test]
fn a_large_file_parses_and_reports_its_last_line() {
    let mut text = String::from("<?xml version=\"1.0\"?>\n<configuration>\n");
    for i in 0..20_000 {
        text.push_str(&format!(
            "<property><name>k{i}</name><value>{i}</value></property>\n"
        ));
    }
    text.push_str("<property><name>bad</name><value>x</value></property>\n</configuration>\n");
    let mut c = Configuration::new();
    c.add_str(&text, "big-site.xml", None).unwrap();
    assert_eq!(c.get("k19999").unwrap().as_deref(), Some("19999"));
    assert_eq!(c.origin("bad").unwrap().to_string(), "big-site.xml:20003");
}

/// A <final> without a value still freezes the key (Hadoop's finalParameters).
#[test]
fn a_valueless_final_still_holds() {
    let mut c = Configuration::new();
    let site =
        |v: &str| format!("<configuration><property><name>a</name>{v}</property></configuration>");
    c.add_str(&site("<value>1</value>"), "core-site.xml", None)
        .unwrap();
    c.add_str(&site("<final>true</final>"), "hdfs-site.xml", None)
        .unwrap();
    c.add_str(&site("<value>2</value>"), "yarn-site.xml", None)
        .unwrap();
    assert_eq!(c.get("a").unwrap().as_deref(), Some("1"));
    assert_eq!(c.warnings().len(), 1, "{:?}", c.warnings());
}

#[test]
fn the_job_order_reaches_the_session_and_a_bad_one_names_the_key_and_the_orders() {
    use spindle_core::session::JobOrder;
    let mut c = Configuration::with_defaults();
    let s = Settings::from_conf(&c).unwrap();
    assert_eq!(
        s.session_config(1).unwrap().job_order,
        JobOrder::WeightedRemaining
    );
    c.set(keys::JOB_ORDER, " spc ");
    let s = Settings::from_conf(&c).unwrap();
    assert_eq!(s.session_config(1).unwrap().job_order, JobOrder::Spc);
    c.set(keys::JOB_ORDER, "shortest");
    let e = Settings::from_conf(&c).unwrap_err().to_string();
    assert!(
        e.contains("spindle.job.order")
            && e.contains("\"shortest\"")
            && e.contains("known orders: fifo, weighted-remaining, spc"),
        "{e}"
    );
}

#[test]
fn the_locality_wait_cap_reaches_the_session_and_a_bad_one_names_the_key() {
    let mut c = Configuration::with_defaults();
    c.set(keys::MAX_WAIT, "1500");
    let s = Settings::from_conf(&c).unwrap();
    assert_eq!(s.session_config(1).unwrap().max_wait_ms, 1500);
    c.set(keys::MAX_WAIT, "90000000");
    let e = Settings::from_conf(&c).unwrap_err().to_string();
    assert!(
        e.contains("spindle.locality.max-wait-ms") && e.contains("at most 86400000"),
        "{e}"
    );
}

#[test]
fn the_off_switch_limit_reaches_the_session_and_zero_names_the_key() {
    let mut c = Configuration::with_defaults();
    let s = Settings::from_conf(&c).unwrap();
    assert_eq!(s.session_config(1).unwrap().offswitch_per_heartbeat, 1);
    c.set(keys::MAX_OFFSWITCH, "3");
    let s = Settings::from_conf(&c).unwrap();
    assert_eq!(s.session_config(1).unwrap().offswitch_per_heartbeat, 3);
    c.set(keys::MAX_OFFSWITCH, "0");
    let e = Settings::from_conf(&c).unwrap_err().to_string();
    assert!(
        e.contains("spindle.per-node-heartbeat.maximum-offswitch-assignments"),
        "{e}"
    );
}
