//! The CLI's JSON output: the documents are the core's (`retry_model::json`), shared with the
//! page's JavaScript API; this file only writes them.

pub use retry_model::json::*;
use serde::Serialize;

/// Pretty JSON and a newline.
pub fn pretty<T: Serialize>(v: &T) -> Result<String, String> {
    serde_json::to_string_pretty(v)
        .map(|s| s + "\n")
        .map_err(|e| e.to_string())
}
