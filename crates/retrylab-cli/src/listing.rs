//! `retrylab presets` and `retrylab keys`: the presets and the key table, from the core.

use retry_model::link_keys::{self, Applies};
use retry_model::Preset;
use std::fmt::Write;

/// Every preset: its link name and title.
pub fn presets(fmt: &str) -> String {
    let mut out = String::new();
    if fmt == "markdown" {
        out.push_str("| preset | what it is |\n|---|---|\n");
        for p in Preset::ALL {
            let _ = writeln!(out, "| `{}` | {} |", p.name(), p.title());
        }
        return out;
    }
    let width = Preset::ALL
        .iter()
        .map(|p| p.name().len())
        .max()
        .unwrap_or(0);
    for p in Preset::ALL {
        let _ = writeln!(out, "{:width$}  {}", p.name(), p.title());
    }
    out
}

/// Every link key: name, default, accepted values, where it applies, meaning.
pub fn keys(fmt: &str) -> String {
    if fmt == "markdown" {
        return link_keys::markdown();
    }
    let mut out = String::new();
    for k in link_keys::TABLE {
        let applies = if k.applies == Applies::ALL {
            "all".to_string()
        } else {
            k.applies.describe()
        };
        let default = if k.default.is_empty() {
            "(empty)"
        } else {
            k.default
        };
        let _ = writeln!(out, "{}  default {default}  ({applies})", k.name);
        let _ = writeln!(out, "    accepts {}", k.domain.accepted());
        let _ = writeln!(out, "    {}", k.meaning.replace('`', ""));
    }
    out
}
