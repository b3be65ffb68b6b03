//! `spindle repro fisch-static --quick` end to end (the FISCH paper, Sect. 5.2).

mod common;

#[test]
fn repro_fisch_static_quick_compares_static_plans_with_hadoop_default() {
    let o = common::spindle(&[
        "repro",
        "fisch-static",
        "--quick",
        "--format",
        "json",
        "--no-progress",
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let reports: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let reports = reports.as_array().unwrap();
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0]["experiment"], "fisch-static-vs-dynamic");
    let notes = reports[0]["notes"].to_string();
    assert!(notes.contains("(replayed)"), "{notes}");
    let rows = reports[0]["rows"].as_array().unwrap();
    let policies: Vec<&str> = rows.iter().map(|r| r["policy"].as_str().unwrap()).collect();
    let one_size = [
        "fisch groups=rack (predicted)",
        "fisch groups=cluster (predicted)",
        "fisch groups=cluster (replayed)",
        "greedy (predicted)",
        "greedy (replayed)",
        "hadoop-default (simulated)",
        "hadoop-default slowstart=1 (simulated)",
    ];
    assert_eq!(policies, [one_size, one_size].concat());
    for row in rows {
        let ours = row["ours"].as_object().unwrap();
        for key in [
            "makespan_s",
            "utilisation_pct",
            "lower_bound_s",
            "maps_done_s",
        ] {
            let v = ours[key].as_f64().unwrap();
            assert!(v.is_finite() && v > 0.0, "{key} in {row}");
        }
        if let Some(v) = ours.get("map_task_s") {
            let v = v.as_f64().unwrap();
            assert!(v.is_finite() && v > 0.0, "{row}");
        }
        let u = ours["utilisation_pct"].as_f64().unwrap();
        assert!(u <= 100.0 + 1e-6, "{row}");
        // No schedule beats total work spread over every slot.
        let m = ours["makespan_s"].as_f64().unwrap();
        assert!(m >= ours["lower_bound_s"].as_f64().unwrap() - 1e-6, "{row}");
        // The map stage ends before the job does (reduces follow it).
        assert!(ours["maps_done_s"].as_f64().unwrap() < m, "{row}");
        if row["policy"].as_str().unwrap().contains("predicted") {
            let p = ours["plan_ms"].as_f64().unwrap();
            assert!(p.is_finite() && p >= 0.0, "{row}");
        }
    }
    // Plotting is refused with a message, not a crash.
    let o = common::spindle(&[
        "repro",
        "fisch-static",
        "--quick",
        "--no-progress",
        "--plot",
        "/nonexistent/x.svg",
    ]);
    assert!(!o.status.success());
    assert!(
        common::stderr(&o).contains("draws no chart"),
        "{}",
        common::stderr(&o)
    );
}
