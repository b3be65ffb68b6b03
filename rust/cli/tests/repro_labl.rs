//! `spindle repro labl` end to end (tiny sizes) and the LABL policies
//! through `spindle plan`.

mod common;
use common::spindle;

#[test]
fn repro_labl_quick_json_has_rows_and_plots() {
    let (reports, names, svg) = common::repro_quick("labl");
    assert_eq!(
        names,
        [
            "labl-fig5-performance",
            "labl-fig6-server-availability",
            "labl-fig7-resource-grid",
            "labl-replication"
        ]
    );
    for r in &reports {
        let rows = r["rows"].as_array().unwrap();
        assert!(!rows.is_empty(), "{} has no rows", r["experiment"]);
        for row in rows {
            let ours = &row["ours"];
            let latency = ours["latency"].as_f64().unwrap();
            let resource = ours["resource"].as_f64().unwrap();
            let tasks = row["setup"]["tasks"].as_f64().unwrap();
            // Every task costs at least w_loc = 1 and at most w_rem = 3.
            assert!(resource >= tasks && resource <= 3.0 * tasks, "{row}");
            assert!(latency >= 1.0, "{row}");
            assert!((ours["throughput"].as_f64().unwrap() * resource - tasks).abs() < 0.5 * tasks);
        }
    }
    let fig5: Vec<&str> = reports[0]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["policy"].as_str().unwrap())
        .collect();
    for p in ["round-robin", "labl", "labl+1"] {
        assert!(fig5.contains(&p), "fig. 5 lacks {p}");
    }
    let svg_text = std::fs::read_to_string(&svg).unwrap();
    assert!(svg_text.contains("<svg") && svg_text.contains("labl+1"));
}

#[test]
fn plan_with_the_seed_001_policies() {
    let g = spindle(&["generate", "--nodes", "10", "--tasks", "40", "--seed", "2"]);
    assert!(g.status.success());
    let dir = std::env::temp_dir().join(format!("spindle-labl-plan-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("i.json");
    std::fs::write(&path, &g.stdout).unwrap();
    for policy in ["labl", "labl+1", "labl-always", "round-robin"] {
        let o = spindle(&["plan", "-i", path.to_str().unwrap(), "-p", policy]);
        assert!(
            o.status.success(),
            "{policy}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}
