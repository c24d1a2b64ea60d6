//! `cargo bench -p retry-model`: simulation speed.
//!
//! - `storm/outage` and `storm/burst`: throughput in simulated attempts per second (criterion
//!   prints it as "elem/s").
//! - `occ/sweep`: the whole 2015 sweep, clients 10 to 190 step 10, five backoff kinds, 100 runs
//!   each (the target is under 1 s native).
//!
//! Memory against duration: `cargo run --release -p retry-model --example memory`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use retry_model::sim::{occ_study_sweep, simulate};
use retry_model::Params;
use std::hint::black_box;
use std::time::Duration;

fn attempts(q: &str) -> u64 {
    simulate(&q.parse().unwrap()).unwrap().summary.attempts
}

fn storms(c: &mut Criterion) {
    let mut g = c.benchmark_group("storm");
    g.measurement_time(Duration::from_secs(8));
    for (name, q) in [
        ("outage", "preset=payments-none"),
        ("burst", "preset=burst-lab&clients=10000&capacity=100000"),
    ] {
        let p: Params = q.parse().unwrap();
        g.throughput(Throughput::Elements(attempts(q)));
        g.bench_function(name, |b| {
            b.iter(|| black_box(simulate(&p).unwrap().summary.attempts))
        });
    }
    g.finish();
}

fn occ(c: &mut Criterion) {
    let mut g = c.benchmark_group("occ");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(30));
    g.bench_function("sweep", |b| b.iter(|| black_box(occ_study_sweep())));
    g.finish();
}

criterion_group!(benches, storms, occ);
criterion_main!(benches);
