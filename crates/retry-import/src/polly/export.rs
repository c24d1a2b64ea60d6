//! A link's policy as a standard resilience handler's section of `appsettings.json`.

use crate::write::{get, Notes};
use crate::ImportError;
use retry_model::link_key;
use retry_model::{Jitter, Micros, Params};
use serde_json::{json, Map, Value};

/// A duration as .NET's `TimeSpan` "c" format: `00:00:02`, `00:00:00.1`, `1.00:00:00`.
pub(crate) fn timespan(m: Micros) -> String {
    let (secs, us) = (m.0 / 1_000_000, m.0 % 1_000_000);
    let (d, h, min, s) = (secs / 86_400, secs / 3_600 % 24, secs / 60 % 60, secs % 60);
    let mut t = if d > 0 {
        format!("{d}.{h:02}:{min:02}:{s:02}")
    } else {
        format!("{h:02}:{min:02}:{s:02}")
    };
    if us > 0 {
        t.push_str(format!(".{us:06}").trim_end_matches('0'));
    }
    t
}

/// `BackoffType`, `UseJitter`, `Delay` and `MaxDelay`.
fn backoff(p: &Params, retry: &mut Map<String, Value>, notes: &mut Notes) {
    let b = &p.policy.backoff;
    let kind = get(p, link_key!("backoff"));
    let polly_jitter = matches!(
        b.jitter,
        Jitter::Mult {
            lo_milli: 750,
            hi_milli: 1250
        }
    );
    // Linear, (n + 1) x Delay, is the exponential kind summing equal steps.
    let linear =
        kind == "exponential" && b.ceiling_sum && (b.multiplier - 1.0).abs() < f64::EPSILON;
    let (ty, jitter) = match kind.as_str() {
        "none" => ("Constant", false),
        "constant" => ("Constant", polly_jitter),
        "exponential" if linear => ("Linear", polly_jitter),
        "exponential" => ("Exponential", false),
        "decorrelated-v2" => ("Exponential", true),
        other => {
            notes.add(link_key!("backoff"), format!("Polly draws constant, linear, exponential or its decorrelated jitter V2: backoff={other} is written as Exponential with UseJitter, whose medians follow base x 2^n"));
            ("Exponential", true)
        }
    };
    if kind == "exponential" && !linear && (b.multiplier - 2.0).abs() > f64::EPSILON {
        notes.add(
            link_key!("multiplier"),
            "Polly's exponential backoff doubles: the multiplier is not written",
        );
    }
    if !linear && b.ceiling_sum {
        notes.add(link_key!("ceiling_sum"), "Polly's waits are constant, linear in Delay, or base x 2^n, not a sum of the steps so far: ceiling_sum is not written");
    }
    let jitter_written = polly_jitter && (kind == "constant" || linear);
    if matches!(kind.as_str(), "constant" | "exponential")
        && b.jitter != Jitter::None
        && !jitter_written
    {
        notes.add(link_key!("jitter"), "Polly's jitter is +-25% (a constant wait) or its decorrelated jitter V2 (an exponential one): the link's jitter is not written");
    }
    let delay = if kind == "none" { Micros::ZERO } else { b.base };
    retry.insert("BackoffType".into(), json!(ty));
    retry.insert("UseJitter".into(), json!(jitter));
    retry.insert("Delay".into(), json!(timespan(delay)));
    let uncapped = match kind.as_str() {
        "constant" => Micros(b.base.0 + if polly_jitter { b.base.0 / 4 } else { 0 }),
        _ => Micros::from_secs(86_400),
    };
    if b.cap < uncapped {
        retry.insert("MaxDelay".into(), json!(timespan(b.cap)));
    }
    if b.first_exp != 0 || b.floor != Micros::ZERO || b.throttle_base.is_some() {
        notes.add(link_key!("first_exp"), "Polly's first retry waits Delay, with no floor and no base after a throttling answer: not written");
    }
}

/// Notes for what the handler cannot say.
fn notes_for(p: &Params, notes: &mut Notes) {
    if get(p, link_key!("retry_on")) != "408,429,500-599"
        || get(p, link_key!("idempotent")) != "true"
    {
        notes.add(link_key!("retry_on"), "the HTTP handler retries 408, 429, 5xx and timeouts (ShouldHandle, set in code): the link's statuses are not written");
    }
    if !matches!(get(p, link_key!("ra_mode")).as_str(), "server" | "ignore") {
        notes.add(
            link_key!("ra_mode"),
            "Polly either waits a Retry-After in full or ignores it: not written",
        );
    }
    if get(p, link_key!("budget")) != "none" {
        notes.add(
            link_key!("budget"),
            "Polly has no retry budget: not written",
        );
    }
    if get(p, link_key!("fit")) == "full" && p.policy.deadline.is_some() {
        notes.add(link_key!("fit"), "Polly retries until the total timeout cancels the request, cutting the last attempt short (fit=cut)");
    }
}

/// The `Resilience` section, bound by `AddStandardResilienceHandler(section)`.
pub(crate) fn export(p: &Params, notes: &mut Notes) -> Result<String, ImportError> {
    let pol = &p.policy;
    if pol.max_attempts < 2 {
        return Err(ImportError::new("attempts", "Polly's MaxRetryAttempts is at least 1: a single attempt has nothing close (drop the retry strategy)"));
    }
    let mut retry = Map::new();
    retry.insert("MaxRetryAttempts".into(), json!(pol.max_attempts - 1));
    backoff(p, &mut retry, notes);
    retry.insert(
        "ShouldRetryAfterHeader".into(),
        json!(get(p, link_key!("ra_mode")) != "ignore"),
    );
    notes_for(p, notes);
    let mut section = Map::new();
    section.insert("Retry".into(), Value::Object(retry));
    section.insert(
        "AttemptTimeout".into(),
        json!({"Timeout": timespan(pol.attempt_timeout)}),
    );
    let total = pol.deadline.unwrap_or_else(|| {
        notes.add(
            link_key!("deadline"),
            "the standard handler always has a total timeout: a day is written",
        );
        Micros::from_secs(86_400)
    });
    section.insert(
        "TotalRequestTimeout".into(),
        json!({"Timeout": timespan(total)}),
    );
    if get(p, link_key!("breaker")) == "on" {
        let pct: f64 = get(p, link_key!("breaker_failures"))
            .parse()
            .unwrap_or(50.0);
        section.insert("CircuitBreaker".into(), json!({
            "FailureRatio": pct / 100.0,
            "MinimumThroughput": get(p, link_key!("breaker_min_calls")).parse::<u64>().unwrap_or(20).max(2),
            "SamplingDuration": timespan(get(p, link_key!("breaker_window")).parse().unwrap_or(Micros::from_secs(10))),
            "BreakDuration": timespan(get(p, link_key!("breaker_open")).parse().unwrap_or(Micros::from_secs(5))),
        }));
        if get(p, link_key!("breaker_probes")) != "1" {
            notes.add(
                link_key!("breaker_probes"),
                "Polly's half-open state lets one call through: breaker_probes is not written",
            );
        }
    }
    let text = serde_json::to_string_pretty(&json!({"Resilience": Value::Object(section)}))
        .map_err(|e| ImportError::new("link", e.to_string()))?;
    let mut t = text + "\n";
    if !notes.notes().is_empty() {
        t.push_str("// Not expressed (JSON has no comments; .NET's configuration reads these lines as comments):\n");
        for n in notes.notes() {
            t.push_str(&format!("// {}: {}\n", n.field, n.text));
        }
    }
    Ok(t)
}
