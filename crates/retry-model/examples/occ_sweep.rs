//! Times the whole 2015 sweep natively (clients 10..190 step 10, five kinds, 100 runs) and prints
//! the total write calls, to compare with the same sweep in wasm (`scripts/bench-wasm.sh`).

use std::time::Instant;

fn main() {
    let start = Instant::now();
    let calls = retry_model::occ_study_sweep();
    println!(
        "native: {calls} write calls in {:.3} s",
        start.elapsed().as_secs_f64()
    );
}
