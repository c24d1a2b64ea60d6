//! Retry Lab in the browser: a thin layer over `retry-model`.
//!
//! [`state`] holds the page's state and its pure update function, [`controls`] maps controls to
//! link keys, [`charts`] draws the schedule and every other chart with plotters; [`charts::plot`]
//! adds what plotters lacks. [`api`] is the JavaScript API. The DOM glue (`web`) exists only on wasm32.
//! Nothing here computes a retry: every number comes from `retry-model`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// No function over 80 lines (the threshold is in clippy.toml): each does one thing.
#![warn(clippy::too_many_lines)]

pub mod api;
#[cfg(target_arch = "wasm32")]
mod api_runs;
pub mod charts;
pub mod controls;
pub mod extras;
pub mod lessons;
#[cfg(target_arch = "wasm32")]
mod panel;
#[cfg(target_arch = "wasm32")]
mod panels;
pub mod state;
pub mod sweepplan;
pub mod tuneplan;
pub mod twin;
pub mod views;
#[cfg(target_arch = "wasm32")]
mod web;

use wasm_bindgen::prelude::*;

/// The page's entry point.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(start)]
pub fn start() -> Result<(), JsValue> {
    web::start()
}

/// A fresh seed from the platform's random source (`crypto.getRandomValues` in the browser).
/// Only the page's "New seed" button uses it; every run then derives from the seed in the link.
pub fn fresh_seed() -> Result<u64, String> {
    getrandom::u64().map_err(|e| format!("seed: no random source: {e}"))
}

/// The trace fingerprint of a link, as 16 hex digits (the same as `retrylab fingerprint`).
pub fn fingerprint_of(query: &str) -> Result<String, String> {
    let p: retry_model::Params = query
        .parse()
        .map_err(|e: retry_model::ConfigError| e.to_string())?;
    let t = retry_model::trace(&p).map_err(|e| e.to_string())?;
    Ok(format!("{:016x}", t.fingerprint()))
}

/// [`fingerprint_of`] for JavaScript.
#[wasm_bindgen]
pub fn trace_fingerprint(query: &str) -> Result<String, JsValue> {
    fingerprint_of(query).map_err(|e| JsValue::from_str(&e))
}

/// The canonical form of a link, or the one-line error naming the bad key.
pub fn canonical_of(query: &str) -> Result<String, String> {
    query
        .parse::<retry_model::Params>()
        .map(|p| p.to_string())
        .map_err(|e| e.to_string())
}

/// [`canonical_of`] for JavaScript.
#[wasm_bindgen]
pub fn canonical_link(query: &str) -> Result<String, JsValue> {
    canonical_of(query).map_err(|e| JsValue::from_str(&e))
}

/// Runs a simulation link to the end; returns `"<fingerprint hex> <attempts> <successes>"`
/// or the one-line error naming the bad key.
pub fn simulate_of(query: &str) -> Result<String, String> {
    let p: retry_model::Params = query
        .parse()
        .map_err(|e: retry_model::ConfigError| e.to_string())?;
    let r = retry_model::sim::simulate(&p).map_err(|e| e.to_string())?;
    Ok(format!(
        "{:016x} {} {}",
        r.fingerprint, r.summary.attempts, r.summary.successes
    ))
}

/// The whole 2015 sweep (clients 10 to 190 step 10, five kinds, 100 runs each); returns the total
/// write calls. Used to time the simulator in wasm against the native benchmark.
#[wasm_bindgen]
pub fn occ_sweep_calls() -> f64 {
    retry_model::occ_study_sweep() as f64
}

#[cfg(test)]
mod tests {
    /// A worker's report crosses to the page as postcard bytes (`exec::to_js`): every
    /// scenario's report, series and server figures included, comes back bit for bit.
    #[test]
    fn a_report_survives_the_workers_message_format() {
        for q in [
            "preset=payments-none&duration=10s",
            "preset=burst-lab",
            "preset=occ-2015&runs=3",
            "preset=layers-333&p=0.5",
            "preset=lost-nokey&duration=5s",
            "preset=queue-spike-none&duration=15s",
            "preset=flaky-breaker&duration=5s",
        ] {
            let p: retry_model::Params = q.parse().unwrap();
            let r = retry_model::sim::simulate(&p).unwrap();
            let bytes = postcard::to_allocvec(&r).unwrap();
            let back: retry_model::sim::SimReport = postcard::from_bytes(&bytes).unwrap();
            assert_eq!(back, r, "{q}");
            assert_eq!(
                back.summary.amplification.to_bits(),
                r.summary.amplification.to_bits()
            );
        }
    }

    #[test]
    fn fresh_seeds_differ_and_go_into_the_link() {
        let (a, b) = (super::fresh_seed().unwrap(), super::fresh_seed().unwrap());
        assert_ne!(a, b, "two draws of 64 random bits");
        let link = format!("seed={a}");
        let p: retry_model::Params = link.parse().unwrap();
        assert_eq!(p.seed, a);
        assert_eq!(p.to_string(), format!("v=2&{link}"));
    }
}
