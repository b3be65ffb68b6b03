//! The FISCH paper: planning latency of FISCH, BLIND and greedy. One 1,000-task job
//! of each schema on C4 (8,000 nodes; the paper's claim is at most 2 s per
//! job) and 20 non-uniform 1,000-task jobs on C0 (greedy included).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use spindle_core::dag::generate::{self, Schema};
use spindle_core::dag::{plan, DagPolicy, DataCentre, Job, PlanOptions};

fn jobs(n: usize, seed: u64) -> Vec<Job> {
    (0..n)
        .map(|i| {
            let s = Schema::ALL[i % Schema::ALL.len()];
            match generate::job(s, 1000, false, seed + i as u64)
                .map(|f| Job::from_file("bench", &f))
            {
                Ok(Ok(j)) => j,
                other => panic!("generating a benchmark job failed: {other:?}"),
            }
        })
        .collect()
}

fn dc(name: &str) -> DataCentre {
    match generate::datacentre(name).map(|f| DataCentre::from_file(name, &f)) {
        Ok(Ok(d)) => d,
        other => panic!("generating {name} failed: {other:?}"),
    }
}

fn bench_dag(c: &mut Criterion) {
    let opts = PlanOptions {
        load: Some(0.95),
        ..PlanOptions::default()
    };
    let mut group = c.benchmark_group("dag");
    group.sample_size(10);
    let c4 = dc("C4");
    for (i, schema) in Schema::ALL.iter().enumerate() {
        let job = match generate::job(*schema, 1000, false, 100 + i as u64)
            .map(|f| Job::from_file("bench", &f))
        {
            Ok(Ok(j)) => vec![j],
            other => panic!("generating a benchmark job failed: {other:?}"),
        };
        for policy in [DagPolicy::Fisch, DagPolicy::Blind] {
            group.bench_with_input(
                BenchmarkId::new(format!("C4-1job-{}", schema.name()), policy.name()),
                &job,
                |b, j| b.iter(|| plan(j, &c4, policy, &opts).schedule.len()),
            );
        }
    }
    let c0 = dc("C0");
    let stream = jobs(20, 1);
    for policy in DagPolicy::ALL {
        group.bench_with_input(
            BenchmarkId::new("C0-20jobs", policy.name()),
            &stream,
            |b, j| b.iter(|| plan(j, &c0, policy, &opts).schedule.len()),
        );
    }
    group.finish();
}

criterion_group!(benches, bench_dag);
criterion_main!(benches);
