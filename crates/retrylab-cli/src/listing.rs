//! `retrylab presets` and `retrylab keys`: the presets and the key table, from the core.

use retry_model::link_keys::{self, Applies};
use retry_model::Preset;
use std::fmt::Write;

/// A preset's settings as one link: `attempts=3&backoff=full&...`.
fn settings(p: Preset) -> String {
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for &(k, v) in p.settings().iter().flat_map(|group| group.iter()) {
        // A later group overrides an earlier one's key.
        match pairs.iter_mut().find(|(seen, _)| *seen == k) {
            Some(pair) => pair.1 = v,
            None => pairs.push((k, v)),
        }
    }
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// Every preset: its link name, title and the keys it sets.
pub fn presets(fmt: &str) -> String {
    let mut out = String::new();
    if fmt == "markdown" {
        out.push_str("| preset | what it is | sets |\n|---|---|---|\n");
        for p in Preset::ALL {
            let _ = writeln!(
                out,
                "| `{}` | {} | `{}` |",
                p.name(),
                p.title(),
                settings(p)
            );
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
        let _ = writeln!(out, "{:width$}  sets {}", "", settings(p));
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
