//! ASM1 on the sizes of the foundation issue: 100,000 tasks on 2,000 nodes and
//! 1,000,000 tasks on 10,000 nodes, 3 replicas placed as HDFS does (3 racks).
//! The outside reference (OR-Tools min-cost flow) runs in `scripts/bench-asm1`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use spindle_core::generate::{generate, GenSpec};
use spindle_core::policy::asm1::{semi_matching, Asm1Workspace};
use spindle_core::Instance;

fn bench_asm1(c: &mut Criterion) {
    let mut group = c.benchmark_group("asm1");
    group.sample_size(10);
    for (tasks, nodes) in [(100_000usize, 2_000usize), (1_000_000, 10_000)] {
        let spec = GenSpec {
            nodes,
            tasks,
            replicas: 3,
            racks: 3,
            seed: 1,
            ..GenSpec::default()
        };
        let inst = match generate(&spec).map(Instance::from_file) {
            Ok(Ok(i)) => i,
            other => panic!("generating the benchmark instance failed: {other:?}"),
        };
        let mut ws = Asm1Workspace::default();
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("{tasks}x{nodes}x3")),
            &inst.problem,
            |b, p| b.iter(|| semi_matching(p, &mut ws).len()),
        );
    }
    group.finish();
}

criterion_group!(benches, bench_asm1);
criterion_main!(benches);
