#![allow(unsafe_code)] // a counting global allocator is the measurement
//! Peak heap memory of a storm run as its duration grows: it should stay flat, because memory is
//! the requests in flight plus fixed bins. `cargo run --release -p retry-model --example memory`

use retry_model::sim::simulate;
use retry_model::Params;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = NOW.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        NOW.fetch_sub(l.size(), Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

fn main() {
    println!(
        "{:<48} {:>10} {:>12} {:>14}",
        "link", "originals", "attempts", "peak heap KiB"
    );
    let mut links = Vec::new();
    for scenario in [
        "preset=payments-jitter&bin=10s",
        "preset=payments-none&bin=10s",
    ] {
        for duration in ["60s", "600s", "1h"] {
            links.push(format!("{scenario}&duration={duration}"));
        }
    }
    // Repetitions keep one series (the first run's), so memory does not grow with `runs`.
    for runs in [1, 10, 100] {
        links.push(format!(
            "scenario=outage&rate=5&duration=1h&bin=181ms&runs={runs}"
        ));
    }
    {
        for q in links {
            let p: Params = q.parse().unwrap();
            NOW.store(0, Ordering::Relaxed);
            PEAK.store(0, Ordering::Relaxed);
            let base = NOW.load(Ordering::Relaxed);
            let r = simulate(&p).unwrap();
            let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
            println!(
                "{:<48} {:>10} {:>12} {:>14}",
                q,
                r.summary.originals,
                r.summary.attempts,
                peak / 1024
            );
        }
    }
}
