//! The Rust retry crates draw their own waits, with no sleeping: backon's and tokio-retry's
//! iterators yield their delays; tower's `ExponentialBackoff` makes a `Sleep` whose deadline is
//! read and never awaited (its generator is a seeded one passed in, as tower allows).
//!
//! Usage: client-draws CLIENTS  ->  JSON on stdout: {cases: [{preset, link, clients}]}, each
//! client's waits in seconds, in retry order.

use serde_json::{json, Value};
use std::time::Duration;
use tower::retry::backoff::{Backoff, ExponentialBackoffMaker, MakeBackoff};
use tower::util::rng::Rng;

/// SplitMix64, seeded: tower's jitter draws from it, so every run draws the same waits.
#[derive(Clone)]
struct Seeded(u64);

impl Rng for Seeded {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn secs(d: &[Duration]) -> Vec<f64> {
    d.iter().map(Duration::as_secs_f64).collect()
}

fn backon(clients: u64, jitter: bool) -> Vec<Vec<f64>> {
    use backon::BackoffBuilder;
    (0..clients)
        .map(|c| {
            let mut b = backon::ExponentialBuilder::default();
            if jitter {
                b = b.with_jitter().with_jitter_seed(20_261_203 + c);
            }
            secs(&b.build().collect::<Vec<_>>())
        })
        .collect()
}

fn tokio_retry(clients: u64) -> Vec<Vec<f64>> {
    (0..clients)
        .map(|_| {
            let waits: Vec<Duration> = tokio_retry::strategy::ExponentialBackoff::from_millis(10)
                .take(3)
                .collect();
            secs(&waits)
        })
        .collect()
}

fn tower(clients: u64, retries: usize) -> Vec<Vec<f64>> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime for tower's Sleep");
    rt.block_on(async {
        (0..clients)
            .map(|c| {
                // One maker per client, each with its own seed: backoffs made from one maker
                // share a clone of its generator, so they would all draw alike.
                let mut maker = ExponentialBackoffMaker::new(
                    Duration::from_millis(50),
                    Duration::from_millis(u64::MAX),
                    0.99,
                    Seeded(20_261_203 + c),
                )
                .expect("tower's defaults");
                let mut b = maker.make_backoff();
                (0..retries)
                    .map(|_| {
                        let now = tokio::time::Instant::now();
                        let sleep = b.next_backoff();
                        sleep.deadline().duration_since(now).as_secs_f64()
                    })
                    .collect()
            })
            .collect()
    })
}

fn case(preset: &str, link: &str, clients: Vec<Vec<f64>>) -> Value {
    json!({ "preset": preset, "link": link, "clients": clients })
}

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(2000);
    let cases = vec![
        case("backon", "preset=backon", backon(n, false)),
        case(
            "backon",
            "preset=backon&jitter=mult&jitter_lo=1&jitter_hi=2&jitter_after_cap=true",
            backon(n, true),
        ),
        case("tokio-retry", "preset=tokio-retry", tokio_retry(n)),
        case("tower-budget", "preset=tower-budget", tower(n, 3)),
        // Up to a 800 ms base. From a 1 s base on, tower's jitter drops the fractional part
        // of `whole seconds x r` (`Duration::new(secs as u64, ..)`), so its waits fall short of
        // its own formula, which the lab follows (docs/presets.md).
        case(
            "tower-budget",
            "preset=tower-budget&attempts=6",
            tower(n, 5),
        ),
    ];
    println!("{}", json!({ "cases": cases }));
}
