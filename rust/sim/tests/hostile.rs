//! Hostile inputs for the simulator (issue 14, items 8 to 10): each
//! reproduction of the issue, then a property test that sends magnitudes and
//! counts through the configuration, the job file and the SWIM reader. Every
//! case must end in a clear error or a finished run, within generous time
//! and memory bounds (a counting allocator measures each run's thread).

use std::time::Duration;

use proptest::prelude::*;
use spindle_core::PolicyKind;
use spindle_sim::workload::{parse_job_file, parse_swim, JobSpec, Profile};
use spindle_sim::{simulate, NetworkModel, Progress, SimConfig, SimError};
use spindle_testkit::{bounded, CountingAlloc, HOSTILE_F64};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const MB: usize = 1 << 20;

/// A small cluster and two WordCount jobs of 8 blocks.
fn small(policy: PolicyKind) -> (SimConfig, Vec<JobSpec>) {
    let cfg = SimConfig {
        nodes: 8,
        racks: 2,
        policy,
        seed: 5,
        ..SimConfig::default()
    };
    let jobs = (0..2)
        .map(|i| {
            JobSpec::shaped(
                format!("j{i}"),
                i * 1000,
                8 * (128 << 20),
                Profile::Wordcount,
            )
        })
        .collect();
    (cfg, jobs)
}

fn run_bounded(cfg: SimConfig, jobs: Vec<JobSpec>) -> Result<(), String> {
    let what = format!("simulate {} nodes, {} jobs", cfg.nodes, jobs.len());
    bounded(&what, Duration::from_secs(60), 256 * MB, move || {
        simulate(&cfg, &jobs, |_| {})
            .map(|_| ())
            .map_err(|e| e.to_string())
    })
}

// Item 8: `--network bar:1e300` ran with a saturated clock (the debug build
// panicked at an overflowing addition); `--slow-speed 1e-300` panicked the
// same way. The first now stops at the simulator's horizon, naming the
// task; the second is refused as a configuration.
#[test]
fn times_past_the_horizon_are_errors() {
    // ASM1-COMM balances by running some maps remote (ASM1 now waits for
    // a replica holder: with the MR AM's task booked, none runs remote here).
    let (mut cfg, jobs) = small(PolicyKind::Asm1Comm);
    cfg.network = NetworkModel::Bar { q_ms: 1e300 };
    cfg.racks = 1;
    cfg.exact_blocks = true;
    // Some map runs remote with a 1-slot cluster of 8 nodes and 16 blocks.
    let e = run_bounded(cfg, jobs.clone()).unwrap_err();
    assert!(
        e.starts_with(
            "simulated time would pass the simulator's horizon of 100 years: a remote read of"
        ),
        "{e}"
    );
    assert!(e.contains("Bar { q_ms: 1e300 }"), "{e}");
    // A speed that slow is refused up front: below 1e-3 a run spent years of
    // simulated heartbeats (CI timed out on 1e-9) before meeting the horizon.
    for speed in [1e-300, 1e-9, 0.000_999] {
        let (mut cfg, jobs) = small(PolicyKind::Asm1);
        cfg.slow_fraction = 1.0;
        cfg.slow_speed = speed;
        let e = run_bounded(cfg, jobs).unwrap_err();
        assert_eq!(
            e,
            format!(
                "configuration: slow nodes: fraction must be in [0, 1] and speed at least 0.001 \
                 (a node 1000 times slower than the others), got 1.0 and {speed:?}"
            )
        );
    }
}

// Item 10: a node 1000 times slower than the others ran tasks for hours of
// simulated time, which the stall check took for "found nothing to run".
#[test]
fn a_slow_node_is_not_a_stall() {
    let (mut cfg, jobs) = small(PolicyKind::HadoopDefault);
    cfg.slow_fraction = 0.5;
    cfg.slow_speed = 0.001;
    run_bounded(cfg, jobs).unwrap();
}

// Item 9: sizes were not bounded before anything was allocated.
#[test]
fn sizes_are_bounded_before_allocation() {
    let (mut cfg, jobs) = small(PolicyKind::Asm1);
    cfg.nodes = u32::MAX as usize;
    let e = run_bounded(cfg, jobs).unwrap_err();
    assert_eq!(
        e,
        "configuration: 4294967295 nodes is more than the limit of 1000000 (--max-nodes)"
    );
    let jobs = parse_job_file(
        "big.json",
        r#"{"jobs":[{"id":"huge","input_mb":1e12,"profile":"terasort"}]}"#,
    )
    .unwrap();
    let (cfg, _) = small(PolicyKind::Asm1);
    let e = run_bounded(cfg, jobs).unwrap_err();
    assert!(
        e.starts_with("configuration: job \"huge\" (1048576000000000000 bytes of input: 7812500000 maps, 976562500 reduces) brings the workload past 10000000 maps and reduces in all, the limit (--max-tasks)"),
        "{e}"
    );
    let e = parse_swim("t.tsv", "job0\t0\t0\t1e19\t0\t0\n", 100).unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.tsv, line 1: field 4 (map_input_bytes) is 1e19, more than the simulator's limit of 1e18"
    );
    let jobs = parse_swim("t.tsv", "job0\t0\t0\t1e18\t0\t0\n", 600).unwrap();
    let (cfg, _) = small(PolicyKind::Asm1);
    assert!(run_bounded(cfg, jobs)
        .unwrap_err()
        .contains("(--max-tasks)"));
}

// Item 10: `--slots 4294967295` was reported as "-1 vcores".
#[test]
fn slot_counts_are_checked() {
    let mut cfg = SimConfig::default();
    assert_eq!(
        cfg.set_slots(u32::MAX).unwrap_err(),
        "4294967295 containers per node: must be from 1 to 100000 (the simulator's limit)"
    );
    assert!(cfg.set_slots(0).is_err());
    cfg.set_slots(100_000).unwrap();
    assert_eq!(cfg.slots(), 100_000);
}

// Item 10: a duplicate job id surfaced as the Session's error, printed twice
// and without the file.
#[test]
fn duplicate_job_ids_name_the_file() {
    let e = parse_job_file(
        "j.json",
        r#"{"jobs":[{"id":"a","input_mb":1,"profile":"wordcount"},{"id":"a","input_mb":2,"profile":"terasort"}]}"#,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "j.json: jobs[1] (\"a\"): field \"id\" repeats jobs[0]'s id"
    );
    let e = parse_swim("t.tsv", "a\t0\t0\t1\t0\t0\na\t1\t0\t1\t0\t0\n", 10).unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.tsv, line 2: job id \"a\" appears again (first on line 1)"
    );
    let (cfg, mut jobs) = small(PolicyKind::Asm1);
    jobs[1].id = "j0".into();
    assert_eq!(
        run_bounded(cfg, jobs).unwrap_err(),
        "configuration: jobs 0 and 1 have the same id \"j0\"; job ids must be unique"
    );
}

// Item 10: a long run reported only the fraction of jobs done, which stays
// at 0 for a long time on a big cluster; progress now carries the simulated
// clock and the event count.
#[test]
fn progress_shows_the_clock_moving() {
    let (mut cfg, jobs) = small(PolicyKind::Asm1);
    cfg.nodes = 5000;
    cfg.racks = 20;
    let seen = bounded("progress", Duration::from_secs(60), 512 * MB, move || {
        let mut seen: Vec<Progress> = Vec::new();
        simulate(&cfg, &jobs, |p| seen.push(*p)).unwrap();
        seen
    });
    let mid: Vec<&Progress> = seen.iter().filter(|p| p.jobs_done == 0).collect();
    assert!(mid.len() >= 3, "{seen:?}");
    assert!(mid
        .windows(2)
        .all(|w| w[1].sim_ms >= w[0].sim_ms && w[1].events > w[0].events));
    assert_eq!(seen.last().map(|p| p.jobs_done), Some(2));
}

fn err_names_an_input(e: &str) -> bool {
    [
        "configuration:",
        "horizon",
        "--max-",
        "field",
        "job",
        "slots",
    ]
    .iter()
    .any(|k| e.contains(k))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// Configurations with hostile magnitudes: a finished run, or an error
    /// that names the input.
    #[test]
    fn hostile_configurations_run_or_are_refused(
        nodes in proptest::sample::select(vec![0usize, 1, 3, 64, 1_000_001, u32::MAX as usize]),
        racks in proptest::sample::select(vec![0usize, 1, 2, 7]),
        slow_speed in proptest::sample::select(HOSTILE_F64.to_vec()),
        slow_fraction in proptest::sample::select(vec![0.0, 0.5, 1.0, 2.0, f64::NAN]),
        // 1e9 made a run simulate days of heartbeats on 64 nodes (10-60 s in a
        // release build, past the bound in debug): slow, not hostile. 1e300
        // and infinity still hit the horizon.
        q in proptest::sample::select(vec![0.0, 50.0, 1e6, 1e300, f64::INFINITY]),
        slots in proptest::sample::select(vec![0u32, 1, 4, 100_001, u32::MAX]),
        input_mb in proptest::sample::select(vec![5e-324, 1.0, 1e6, 1e12, 1e13]),
        submit_s in proptest::sample::select(vec![0.0, 1e9, 1e10, 1e300]),
        policy in proptest::sample::select(PolicyKind::ALL.to_vec()),
    ) {
        let mut cfg = SimConfig {
            nodes,
            racks,
            slow_speed,
            slow_fraction,
            network: NetworkModel::Bar { q_ms: q },
            policy,
            ..SimConfig::default()
        };
        if let Err(e) = cfg.set_slots(slots) {
            prop_assert!(e.contains("containers per node"), "{e}");
            return Ok(());
        }
        let text = format!(
            r#"{{"jobs":[{{"id":"a","input_mb":{input_mb:e},"submit_s":{submit_s:e},"profile":"wordcount"}}]}}"#
        );
        let jobs = match parse_job_file("hostile.json", &text) {
            Ok(j) => j,
            Err(e) => {
                prop_assert!(e.to_string().starts_with("hostile.json: jobs[0]"), "{e}");
                return Ok(());
            }
        };
        if let Err(e) = run_bounded(cfg, jobs) {
            prop_assert!(err_names_an_input(&e), "{e}");
        }
    }

    /// SWIM lines with hostile numbers and counts of jobs.
    #[test]
    fn hostile_swim_lines_parse_or_are_refused(
        fields in proptest::collection::vec(
            proptest::sample::select(vec![
                "0", "1", "-1", "1e18", "1e19", "1e300", "inf", "NaN", "4294967296",
                "18446744073709551616", "x", "",
            ]),
            6,
        ),
        copies in 1usize..50,
    ) {
        let line = format!("job\t{}", fields[1..].join("\t"));
        let text: String = (0..copies).map(|i| line.replacen("job", &format!("job{i}"), 1) + "\n").collect();
        match parse_swim("t.tsv", &text, 100) {
            Err(e) => prop_assert!(e.to_string().starts_with("t.tsv, line "), "{e}"),
            Ok(jobs) => {
                let (cfg, _) = small(PolicyKind::HadoopDefault);
                if let Err(e) = run_bounded(cfg, jobs) {
                    prop_assert!(err_names_an_input(&e), "{e}");
                }
            }
        }
    }
}

#[test]
fn the_error_type_names_the_horizon() {
    let e = SimError::Horizon { what: "x".into() };
    assert_eq!(
        e.to_string(),
        "simulated time would pass the simulator's horizon of 100 years: x"
    );
}
