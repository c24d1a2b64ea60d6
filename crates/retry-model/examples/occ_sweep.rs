//! Times the whole 2015 sweep natively (clients 10..190 step 10, five kinds, 100 runs) and prints
//! the total write calls, to compare with the same sweep in wasm (`scripts/bench-wasm.sh`).

use retry_model::sim::simulate;
use retry_model::Params;
use std::time::Instant;

fn main() {
    let start = Instant::now();
    let mut calls = 0u64;
    for kind in ["none", "exponential", "full", "equal", "decorrelated"] {
        for clients in (10..=190).step_by(10) {
            let p: Params = format!("preset=occ-2015&backoff={kind}&clients={clients}")
                .parse()
                .unwrap();
            calls += simulate(&p).unwrap().summary.attempts;
        }
    }
    println!(
        "native: {calls} write calls in {:.3} s",
        start.elapsed().as_secs_f64()
    );
}
