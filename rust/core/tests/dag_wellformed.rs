//! The FISCH paper: every DAG policy gives well-formed schedules (checked by the
//! independent validator) on random jobs of every schema and random trees,
//! in our reading and as printed.

use proptest::prelude::*;
use spindle_core::dag::generate::{self, Schema};
use spindle_core::dag::{check, plan, DagPolicy, DataCentre, Job, PlanOptions, Quality};

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn schedules_are_well_formed_under_every_policy(
        schema in 0usize..6,
        tasks in 2usize..80,
        uniform in any::<bool>(),
        seed in any::<u64>(),
        aggs in 0usize..3,
        leaves in 1usize..4,
        per_leaf in 1usize..5,
        njobs in 1usize..4,
        load in prop_oneof![Just(None), Just(Some(0.95)), Just(Some(3.0))],
        util in 0.3f64..1.0,
        group_height in 0u32..3,
        as_printed in any::<bool>(),
        delayed in any::<bool>(),
    ) {
        let dc = DataCentre::from_file("dc", &generate::tree(aggs, leaves, per_leaf, |l| l % 2 == 0)).unwrap();
        let jobs: Vec<Job> = (0..njobs)
            .map(|k| {
                let s = Schema::ALL[(schema + k) % 6];
                Job::from_file("g", &generate::job(s, tasks, uniform, seed.wrapping_add(k as u64)).unwrap()).unwrap()
            })
            .collect();
        for policy in DagPolicy::ALL {
            let opts = PlanOptions {
                quality: Quality::Utilisation(util),
                load,
                fisch_group_height: group_height,
                as_printed,
                blind_delayed: delayed,
                ..PlanOptions::default()
            };
            let out = plan(&jobs, &dc, policy, &opts);
            let n: usize = jobs.iter().map(Job::len).sum();
            prop_assert_eq!(out.schedule.len(), n);
            if let Err(e) = check(&jobs, &dc, &out.schedule) {
                prop_assert!(false, "{:?}: {}", policy, e);
            }
        }
    }
}
