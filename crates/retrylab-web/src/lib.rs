//! Retry Lab in the browser: a thin layer over `retry-model`.
//!
//! [`state`] holds the page's state and its pure update function, [`controls`] maps controls to
//! link keys, [`chart`] draws the schedule with plotters. The DOM glue (`web`) exists only on
//! wasm32. Nothing here computes a retry: every number comes from `retry-model`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod chart;
pub mod controls;
pub mod state;
#[cfg(target_arch = "wasm32")]
mod web;

use wasm_bindgen::prelude::*;

/// The page's entry point.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(start)]
pub fn start() -> Result<(), JsValue> {
    web::start()
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
