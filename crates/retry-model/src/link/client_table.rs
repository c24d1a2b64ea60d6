//! The client table: one row per client preset, each column written from the preset's link
//! (so the table says what the lab runs, not what someone typed beside it).
//!
//! ```
//! let md = retry_model::client_table_markdown();
//! assert!(md.lines().any(|l| l.starts_with("| `openai` |") && l.contains("x U(0.75, 1)")));
//! ```

use super::clients::{Client, Ecosystem, CLIENTS};
use crate::retry::backoff::{BackoffConfig, BackoffKind};
use crate::retry::policy::{RetryAfterMode, RetryPolicy};
use crate::retry::text::milli_text;
use crate::Jitter;
use crate::Params;
use alloc::format;
use alloc::string::{String, ToString};

/// The wait before retry `k + 1` (`k = 0` for the first retry), without its jitter.
pub fn wait_formula(b: &BackoffConfig) -> String {
    let grow = |base: String| {
        let exp = if b.first_exp == 0 {
            "k".to_string()
        } else {
            format!("(k+{})", b.first_exp)
        };
        let step = format!("{base} x {}^{exp}", b.growth());
        let step = if b.ceiling_sum {
            format!("{base} x (1 + ... + {}^{exp})", b.growth())
        } else {
            step
        };
        format!("min({}, {step})", b.cap)
    };
    let core = match b.kind {
        BackoffKind::None if b.floor.as_micros() > 0 => return format!("{} (the floor)", b.floor),
        BackoffKind::None => return "no wait".to_string(),
        BackoffKind::Constant => b.base.to_string(),
        BackoffKind::Exponential => grow(b.base.to_string()),
        BackoffKind::Full => format!("U(0, {})", grow(b.base.to_string())),
        BackoffKind::Equal => format!("U(c/2, c), c = {}", grow(b.base.to_string())),
        BackoffKind::Decorrelated => format!("min({}, U({}, 3 x previous))", b.cap, b.base),
        BackoffKind::DecorrelatedV2 => format!("Polly V2 tanh curve x {}, cap {}", b.base, b.cap),
    };
    let mut out = if b.first_wait_zero {
        format!("0, then {core}")
    } else {
        core
    };
    if b.kind == BackoffKind::Exponential && b.base.as_micros() == 0 && b.floor.as_micros() == 0 {
        out.push_str(" (never waits)");
    }
    if b.floor.as_micros() > 0 {
        out = format!("max({}, {out})", b.floor);
    }
    if b.throttle_base.is_some() {
        out.push_str(&format!(
            "; {} base after throttling",
            b.throttle_base.unwrap_or_default()
        ));
    }
    out
}

/// The jitter: none, the kind's own, or a spread on the fixed wait.
pub fn jitter_text(b: &BackoffConfig) -> String {
    let own = match b.kind {
        BackoffKind::Full => "full",
        BackoffKind::Equal => "equal",
        BackoffKind::Decorrelated | BackoffKind::DecorrelatedV2 => "decorrelated",
        BackoffKind::None | BackoffKind::Constant | BackoffKind::Exponential => "",
    };
    let spread = match b.jitter {
        Jitter::None => String::new(),
        Jitter::Mult { lo_milli, hi_milli } => {
            format!("x U({}, {})", milli_text(lo_milli), milli_text(hi_milli))
        }
        Jitter::Add(a) => format!("+ U(0, {a})"),
    };
    let mut out = match (own, spread.is_empty()) {
        ("", true) => "none".to_string(),
        ("", false) if b.jitter_after_cap => format!("{spread} after the cap"),
        ("", false) => format!("{spread}, then the cap"),
        ("full", _) if b.whole_ms => "full, in whole ms".to_string(),
        (own, _) => own.to_string(),
    };
    if b.sorted {
        out.push_str("; sorted");
    }
    out
}

/// What a Retry-After does.
pub fn retry_after_text(p: &RetryPolicy) -> String {
    match p.retry_after_mode {
        RetryAfterMode::Server => "exact, uncapped".to_string(),
        RetryAfterMode::Cap => format!("exact, capped at {}", p.ra_cap),
        RetryAfterMode::RefuseAbove => format!("exact; over {}: no retry", p.ra_max),
        RetryAfterMode::Aws2026 | RetryAfterMode::Clamp => "clamped to [t, t + 5s]".to_string(),
        RetryAfterMode::Stripe => "max(it, t) up to 60s".to_string(),
        RetryAfterMode::Ignore => "ignored".to_string(),
        RetryAfterMode::Envoy => format!("x U(1, 1.5) in ms; over {}: the backoff", p.ra_max),
    }
}

/// Which statuses are retried.
pub fn statuses_text(p: &RetryPolicy) -> String {
    if !p.statuses.is_empty() {
        return p.statuses.to_string();
    }
    match p.classifier.name() {
        "aws" => "408,429,500,502-504 (AWS)".to_string(),
        "grpc" => "UNAVAILABLE (503)".to_string(),
        "stripe" => "409,5xx, Stripe-Should-Retry".to_string(),
        _ => "the lab's table".to_string(),
    }
}

/// A link's policy in one line: attempts, the wait's formula, the jitter, the Retry-After rule
/// (what the schedule view and `retrylab schedule` write above each side's waits).
pub fn describe_policy(p: &Params) -> String {
    let pol = &p.policy;
    format!(
        "{} attempts; wait {}; jitter {}; Retry-After {}",
        pol.max_attempts,
        wait_formula(&pol.backoff),
        jitter_text(&pol.backoff),
        retry_after_text(pol)
    )
}

/// The table's column names.
pub const CLIENT_COLUMNS: [&str; 9] = [
    "preset",
    "library",
    "attempts",
    "wait (k = 0 at the first retry)",
    "jitter",
    "Retry-After",
    "statuses retried",
    "version",
    "source",
];

/// One client's cells, in [`CLIENT_COLUMNS`] order, written from its preset's link.
pub fn client_row(c: &Client) -> [String; 9] {
    let p: Params = format!("preset={}", c.name).parse().unwrap_or_default();
    let pol = &p.policy;
    [
        c.name.to_string(),
        c.title.to_string(),
        pol.max_attempts.to_string(),
        wait_formula(&pol.backoff),
        jitter_text(&pol.backoff),
        retry_after_text(pol),
        statuses_text(pol),
        c.version.to_string(),
        c.source.to_string(),
    ]
}

/// One client's Markdown row.
fn row(c: &Client) -> String {
    let cells = client_row(c);
    let mut out = format!("| `{}` |", cells[0]);
    for cell in &cells[1..] {
        out.push_str(&format!(" {} |", cell.replace('|', "/")));
    }
    out
}

/// The client table as Markdown, one section per ecosystem (what `retrylab presets --format
/// markdown` prints after the other presets, and what docs/presets.md includes).
pub fn client_table_markdown() -> String {
    let mut out = String::new();
    for eco in Ecosystem::ALL {
        let rows: alloc::vec::Vec<String> = CLIENTS
            .iter()
            .filter(|c| c.ecosystem == eco)
            .map(row)
            .collect();
        if rows.is_empty() {
            continue;
        }
        out.push_str(&format!("\n### {}\n\n", eco.label()));
        out.push_str(&format!("| {} |\n", CLIENT_COLUMNS.join(" | ")));
        out.push_str("|---|---|---|---|---|---|---|---|---|\n");
        for r in rows {
            out.push_str(&r);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_say_what_the_links_run() {
        let md = client_table_markdown();
        let line = |name: &str| {
            md.lines()
                .find(|l| l.starts_with(&format!("| `{name}` |")))
                .unwrap_or_else(|| panic!("{name}"))
                .to_string()
        };
        assert!(line("urllib3").contains("0, then min(120s, 0ms x 2^k) (never waits)"));
        assert!(line("openai").contains("x U(0.75, 1) after the cap"));
        assert!(line("openai").contains("over 120s: no retry"));
        assert!(line("stamina").contains("+ U(0, 1s), then the cap"));
        assert!(line("async-retry").contains("x U(1, 2), then the cap; sorted"));
        assert!(line("envoy-docs").contains("25ms x (1 + ... + 2^k)"));
        assert!(line("azure-core").contains("408,429,500,502-504,506-998"));
        assert_eq!(md.matches("\n| `").count(), CLIENTS.len());
    }

    #[test]
    fn the_formula_shows_the_floor() {
        let formula = |link: &str| wait_formula(&link.parse::<Params>().unwrap().policy.backoff);
        assert_eq!(formula("floor=2s"), "max(2s, U(0, min(20s, 100ms x 2^k)))");
        assert_eq!(formula("backoff=none&floor=2s"), "2s (the floor)");
        assert_eq!(
            formula("backoff=exponential&base=0ms&floor=1s"),
            "max(1s, min(20s, 0ms x 2^k))"
        );
        assert_eq!(formula("backoff=none"), "no wait");
    }
}
