//! `retrylab presets` and `retrylab keys`: the presets and the key table, from the core.

use crate::json;
use retry_model::json::preset_settings as settings;
use retry_model::link_keys::{self, Applies};
use retry_model::Preset;
use std::fmt::Write;

/// Every preset: its link name, title and the keys it sets.
pub fn presets(fmt: &str) -> Result<String, String> {
    let mut out = String::new();
    if fmt == "json" {
        return json::pretty(&json::presets());
    }
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
        out.push_str("\n## Retry client libraries\n");
        out.push_str(&retry_model::client_table_markdown());
        return Ok(out);
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
    Ok(out)
}

/// Every link key: name, default, accepted values, where it applies, meaning.
pub fn keys(fmt: &str) -> Result<String, String> {
    match fmt {
        "markdown" => return Ok(link_keys::markdown()),
        "json" => return json::pretty(&json::keys()),
        _ => {}
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
    Ok(out)
}

/// Every lesson: its id, title and link, then what to look for and its question.
pub fn lessons(fmt: &str) -> Result<String, String> {
    if fmt == "json" {
        return json::pretty(&json::lessons());
    }
    let mut out = String::new();
    for l in retry_model::LESSONS.iter() {
        let _ = writeln!(out, "{}  {}", l.id, l.title);
        let _ = writeln!(out, "    ?lesson={}  ({})", l.id, l.link);
        if let Some(q) = l.question {
            let _ = writeln!(out, "    asks: {q}");
        }
    }
    Ok(out)
}
