//! `cargo bench -p retry-model`: simulation speed.
//!
//! - `storm/outage`, `storm/burst`, `storm/envoy_budget` (Envoy's retry budget in a
//!   connect-timeout outage) and `storm/layers` (a 6 x 4 x 4 stack, layers with their own
//!   policies): throughput in simulated attempts per second (criterion prints it as "elem/s").
//! - `occ/sweep`: the whole 2015 sweep, clients 10 to 190 step 10, five backoff kinds, 100 runs
//!   each (the target is under 1 s native), on one thread and (`sweep_2_threads`) on two, as
//!   `retrylab sweep` runs it.
//!
//! - `queue/in_flight_1000` and `queue/in_flight_100000`: the queue server with about 1,000
//!   and 100,000 requests in flight (no queue: every request is served at once for 1 s), in
//!   simulated attempts per second; `queue_events` the same runs in events per second.
//!
//! - `population/outage_100k_10min` (a 100,000 requests/s outage of ten minutes, 60 million
//!   requests, with no backoff), `population/reconnect_1m_none` and `population/reconnect_1m_full`
//!   (a million clients reconnecting at once, with exponential backoff and with full jitter):
//!   the population engine at production sizes (targets: 1 s each natively), in simulated
//!   attempts per second.
//!
//! - `tune/payments_4x20` and `tune/payments_4x20_2_threads`: `retrylab tune` on
//!   `preset=payments-none` over its four default weathers, 32 policies, up to 20 runs each
//!   (rounds of 2, 4, 8, 16 and 20 runs), on one thread and on two (target: 30 s).
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
        // Envoy's retry budget in a storm whose attempts hang: every attempt moves its count.
        (
            "envoy_budget",
            "preset=envoy&scenario=outage&outage_kind=connect_timeout&budget=envoy_budget",
        ),
        // A 6 x 4 x 4 stack, each layer its own policy: every call of every request's tree.
        (
            "layers",
            "scenario=layers&layers=6,4,4&p=0.5&requests=20000&l2.base=25ms&l3.backoff=none",
        ),
    ] {
        let p: Params = q.parse().unwrap();
        g.throughput(Throughput::Elements(attempts(q)));
        g.bench_function(name, |b| {
            b.iter(|| black_box(simulate(&p).unwrap().summary.attempts))
        });
    }
    g.finish();
}

/// The queue server's links: about `n` requests in flight (n per second, each served 1 s).
fn queue_link(n: u32) -> String {
    let secs = (2_000_000 / n).clamp(5, 60);
    format!(
        "scenario=outage&outage=0ms&server=queue&workers=100000&queue_limit=0&service=1s\
         &rate={n}&duration={secs}s&attempt_timeout=3s&attempts=3&bin=1s"
    )
}

/// Events one run of `q` handles.
fn events(q: &str) -> u64 {
    let p: Params = q.parse().unwrap();
    let mut run = retry_model::sim::Run::new(&p).unwrap();
    // `events` is what one step handled; the step that finishes the run reports 0, so the
    // total is exact to within one step of 1024.
    let mut n = 0;
    loop {
        let pr = run.step(1024);
        n += pr.events;
        if pr.done {
            return n;
        }
    }
}

fn queue(c: &mut Criterion) {
    for (group, per_event) in [("queue", false), ("queue_events", true)] {
        let mut g = c.benchmark_group(group);
        g.measurement_time(Duration::from_secs(8));
        g.sample_size(10);
        for n in [1_000, 100_000] {
            let q = queue_link(n);
            let p: Params = q.parse().unwrap();
            let count = if per_event { events(&q) } else { attempts(&q) };
            g.throughput(Throughput::Elements(count));
            g.bench_function(format!("in_flight_{n}"), |b| {
                b.iter(|| black_box(simulate(&p).unwrap().summary.attempts))
            });
        }
        g.finish();
    }
}

/// The same 95 cells spread over `threads` threads (cells are independent runs), taken last
/// first as `retrylab sweep` takes its rows.
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
                    while let Some(p) = cells
                        .len()
                        .checked_sub(1 + next.fetch_add(1, Ordering::Relaxed))
                        .and_then(|i| cells.get(i))
                    {
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

/// The population engine's production runs.
fn population(c: &mut Criterion) {
    let mut g = c.benchmark_group("population");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(15));
    let burst = "scenario=burst&clients=1000000&capacity=100000&tick=10ms&reject_cost=0.1&attempts=10&deadline=none&base=100ms&cap=30s&engine=population";
    for (name, q) in [
        (
            "outage_100k_10min",
            "preset=payments-none&rate=100000&capacity=100000&duration=600s&engine=population"
                .to_string(),
        ),
        ("reconnect_1m_none", format!("{burst}&backoff=exponential")),
        ("reconnect_1m_full", format!("{burst}&backoff=full")),
    ] {
        let p: Params = q.parse().unwrap();
        g.throughput(Throughput::Elements(attempts(&q)));
        g.bench_function(name, |b| {
            b.iter(|| black_box(simulate(&p).unwrap().summary.attempts))
        });
    }
    g.finish();
}

/// `retrylab tune` on the payments outage, 4 weathers, up to 20 runs a policy, its batches on
/// `threads` threads; the frontier's size.
fn tune_payments(threads: usize) -> usize {
    use retry_model::tune;
    let p: Params = "preset=payments-none".parse().unwrap();
    let (base, _) = tune::start_of(&p).unwrap();
    let ws = tune::default_weathers();
    let mut eval =
        |batch: &[String], runs: u32| -> Result<Vec<Vec<retry_model::sim::Summary>>, String> {
            let jobs = tune::batch_links(&base, &ws, batch, runs)?;
            let next = AtomicUsize::new(0);
            let mut out: Vec<Option<retry_model::sim::Summary>> = vec![None; jobs.len()];
            let parts: Vec<Vec<(usize, retry_model::sim::Summary)>> = std::thread::scope(|s| {
                let workers: Vec<_> = (0..threads)
                    .map(|_| {
                        s.spawn(|| {
                            let mut mine = Vec::new();
                            loop {
                                let i = next.fetch_add(1, Ordering::Relaxed);
                                let Some((_, q)) = jobs.get(i) else {
                                    break mine;
                                };
                                mine.push((i, simulate(q).unwrap().summary));
                            }
                        })
                    })
                    .collect();
                workers.into_iter().map(|w| w.join().unwrap()).collect()
            });
            for (i, s) in parts.into_iter().flatten() {
                out[i] = Some(s);
            }
            let mut it = out.into_iter().flatten();
            Ok(batch
                .iter()
                .map(|_| it.by_ref().take(ws.len()).collect())
                .collect())
        };
    tune::search(p.seed, 32, 20, &tune::Limits::default(), &mut eval)
        .unwrap()
        .frontier
        .len()
}

fn tuner(c: &mut Criterion) {
    let mut g = c.benchmark_group("tune");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(60));
    g.bench_function("payments_4x20", |b| b.iter(|| black_box(tune_payments(1))));
    g.bench_function("payments_4x20_2_threads", |b| {
        b.iter(|| black_box(tune_payments(2)))
    });
    g.finish();
}

criterion_group!(benches, storms, occ, queue, population, tuner);
criterion_main!(benches);
