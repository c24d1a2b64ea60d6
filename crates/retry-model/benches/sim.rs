//! `cargo bench -p retry-model`: simulation speed.
//!
//! - `storm/outage` and `storm/burst`: throughput in simulated attempts per second (criterion
//!   prints it as "elem/s").
//! - `occ/sweep`: the whole 2015 sweep, clients 10 to 190 step 10, five backoff kinds, 100 runs
//!   each (the target is under 1 s native), on one thread and (`sweep_2_threads`) on two, as
//!   `retrylab sweep` runs it.
//!
//! Memory against duration: `cargo run --release -p retry-model --example memory`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use retry_model::occ_study_sweep;
use retry_model::sim::simulate;
use retry_model::Params;
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
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

/// The same 95 cells spread over `threads` threads (cells are independent runs).
fn occ_sweep_threads(threads: usize) -> u64 {
    let cells: Vec<Params> = ["none", "exponential", "full", "equal", "decorrelated"]
        .iter()
        .flat_map(|k| {
            (10..=190).step_by(10).map(move |c| {
                format!("preset=occ-2015&backoff={k}&clients={c}")
                    .parse()
                    .unwrap()
            })
        })
        .collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut calls = 0;
                    while let Some(p) = cells.get(next.fetch_add(1, Ordering::Relaxed)) {
                        calls += simulate(p).unwrap().summary.attempts;
                    }
                    calls
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).sum()
    })
}

fn occ(c: &mut Criterion) {
    let mut g = c.benchmark_group("occ");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(30));
    g.bench_function("sweep", |b| b.iter(|| black_box(occ_study_sweep())));
    assert_eq!(occ_sweep_threads(2), occ_study_sweep());
    g.bench_function("sweep_2_threads", |b| {
        b.iter(|| black_box(occ_sweep_threads(2)))
    });
    g.finish();
}

criterion_group!(benches, storms, occ);
criterion_main!(benches);
