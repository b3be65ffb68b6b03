//! `spindle repro fisch --quick` end to end (the FISCH paper, Sect. 5.1).

mod common;

#[test]
fn repro_fisch_quick_prints_every_table_beside_the_paper() {
    let (reports, names, svg) = common::repro_quick("fisch");
    assert_eq!(
        names,
        [
            "fisch-c0-baseline",
            "fisch-table1",
            "fisch-table2",
            "fisch-scale"
        ]
    );
    let c0 = reports[0]["rows"].as_array().unwrap();
    let policies: Vec<&str> = c0.iter().map(|r| r["policy"].as_str().unwrap()).collect();
    assert_eq!(
        policies,
        [
            "fisch",
            "blind",
            "greedy",
            "fisch as printed",
            "blind as printed"
        ]
    );
    // Our greedy holds no slot longer than its task: both readings agree.
    let g = &c0[2]["ours"];
    let (u, h) = (
        g["utilisation_pct"].as_f64().unwrap(),
        g["held_slot_utilisation_pct"].as_f64().unwrap(),
    );
    assert!((u - h).abs() < 1e-9, "{u} vs {h}");
    assert_eq!(c0[0]["paper"]["utilisation_pct"].as_f64(), Some(92.0));
    assert_eq!(c0[2]["paper"]["latency_ms_per_task"].as_f64(), Some(293.0));
    for r in &reports {
        for row in r["rows"].as_array().unwrap() {
            let u = row["ours"]["utilisation_pct"].as_f64().unwrap();
            assert!(u > 0.0 && u <= 100.0 + 1e-9, "{row}");
        }
    }
    // Table 1: 6 schemas x (uniform, non-uniform) x (fisch, blind).
    assert_eq!(reports[1]["rows"].as_array().unwrap().len(), 24);
    assert_eq!(reports[2]["rows"].as_array().unwrap().len(), 10);
    let svg_text = std::fs::read_to_string(&svg).unwrap();
    assert!(svg_text.contains("<svg") && svg_text.contains("fisch (paper)"));
}

const QUICK_JSON: [&str; 6] = [
    "repro",
    "fisch",
    "--quick",
    "--format",
    "json",
    "--no-progress",
];

/// `--shapes`: unfolded is the default and its jobs are shallower than deep ones.
#[test]
fn repro_fisch_shapes_option_changes_the_jobs_depth() {
    let c0_setup = |shapes: Option<&str>| {
        let mut args = QUICK_JSON.to_vec();
        if let Some(s) = shapes {
            args.extend(["--shapes", s]);
        }
        let o = common::spindle(&args);
        assert!(o.status.success(), "{}", common::stderr(&o));
        let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        r[0]["rows"][0]["setup"].clone()
    };
    let unfolded = c0_setup(None);
    assert_eq!(unfolded["shapes"], "unfolded");
    let deep = c0_setup(Some("deep"));
    assert_eq!(deep["shapes"], "deep");
    let levels = |v: &serde_json::Value| v["mean_levels"].as_f64().unwrap();
    assert!(levels(&unfolded) < levels(&deep), "{unfolded} vs {deep}");
}

/// `--quality` reaches the planners; a bad one is refused with the input named.
#[test]
fn repro_fisch_quality_option_is_parsed_and_checked() {
    let base = QUICK_JSON;
    let ok = common::spindle(&[&base[..], &["--quality", "makespan:2"]].concat());
    assert!(ok.status.success(), "{}", common::stderr(&ok));
    let r: serde_json::Value = serde_json::from_slice(&ok.stdout).unwrap();
    let notes = r[0]["notes"].to_string();
    assert!(notes.contains("Makespan(2.0)"), "{notes}");
    let bad = common::spindle(&[&base[..], &["--quality", "speed:3"]].concat());
    assert!(!bad.status.success());
    let err = common::stderr(&bad);
    assert!(err.contains("--quality \"speed:3\""), "{err}");
}
