//! `spindle repro beaumont`: the quick mode runs every experiment of Beaumont et al.
//! Sect. 7 with tiny sizes, prints JSON rows for every policy and draws the plot.

mod common;

#[test]
fn quick_json_has_rows_for_every_experiment_and_policy() {
    let (reports, names, svg) = common::repro_quick("beaumont");
    assert_eq!(
        names,
        [
            "beaumont-7.2-makespan",
            "beaumont-7.2-comm",
            "beaumont-7.3-makespan",
            "beaumont-7.3-comm",
            "beaumont-claims"
        ]
    );
    for r in &reports {
        let rows = r["rows"].as_array().unwrap();
        assert!(!rows.is_empty(), "{} has no rows", r["experiment"]);
        for row in rows {
            assert!(row["policy"].is_string());
            assert!(!row["ours"].as_object().unwrap().is_empty());
        }
    }
    // The COMM experiments cover maestro-comm and the stealing ASM1 hybrid;
    // the |T| = |P| heterogeneous rows carry the paper's figures.
    let het = &reports[3]["rows"];
    let row = het
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["policy"] == "maestro-comm" && r["setup"]["T/P"] == 1)
        .unwrap();
    assert_eq!(row["paper"]["non_local_pct"], 11.4);
    assert!(row["ours"]["non_local_pct"].as_f64().unwrap() >= 0.0);
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.contains("<svg") && svg.contains("maestro"));
}
