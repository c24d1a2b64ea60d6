//! A link's policy as a resilience4j retry instance (and circuit breaker) in `application.yml`.

use crate::write::{get, Notes};
use crate::ImportError;
use retry_model::link_key;
use retry_model::{Jitter, Micros, Params};

/// Milliseconds as Spring reads a `Duration`: `500ms`.
fn ms(m: Micros) -> String {
    if m.0.is_multiple_of(1_000) {
        format!("{}ms", m.0 / 1_000)
    } else {
        format!("{}us", m.0)
    }
}

/// The retry instance's lines.
fn retry(p: &Params, notes: &mut Notes) -> Result<String, ImportError> {
    let b = &p.policy.backoff;
    let kind = get(p, link_key!("backoff"));
    let mut t = format!("        maxAttempts: {}\n", p.policy.max_attempts);
    let exp = match kind.as_str() {
        "none" => {
            t.push_str("        waitDuration: 0ms\n");
            return Ok(t);
        }
        "constant" => false,
        "exponential" => true,
        "full" => return Ok(t + &full(p, notes)),
        other => return Err(ImportError::new("backoff", format!("resilience4j draws a fixed or exponential wait, randomized by a factor: backoff={other} has nothing close (use constant, exponential or full)"))),
    };
    t.push_str(&format!("        waitDuration: {}\n", ms(b.base)));
    let factor = match b.jitter {
        Jitter::None => None,
        Jitter::Mult { lo_milli, hi_milli } if lo_milli + hi_milli == 2_000 && lo_milli > 0 => {
            Some((1_000 - lo_milli) as f64 / 1000.0)
        }
        Jitter::Mult { .. } | Jitter::Add(_) => {
            notes.add(link_key!("jitter"), "resilience4j randomizes by a factor f over [d(1-f), d(1+f)]: the link's jitter is written as f = 0.5");
            Some(0.5)
        }
    };
    if exp {
        t.push_str(&format!(
            "        enableExponentialBackoff: true\n        exponentialBackoffMultiplier: {}\n",
            b.multiplier
        ));
        // The cap is read only with the multiplier and, when randomized, the factor.
        if b.cap < Micros::from_secs(86_400) {
            t.push_str(&format!(
                "        exponentialMaxWaitDuration: {}\n",
                ms(b.cap)
            ));
        }
    } else if b.cap < b.base {
        notes.add(
            link_key!("cap"),
            "resilience4j does not cap a fixed wait: the base is written",
        );
    }
    if let Some(f) = factor {
        t.push_str(&format!(
            "        enableRandomizedWait: true\n        randomizedWaitFactor: {f}\n"
        ));
        if b.jitter_after_cap {
            notes.add(
                link_key!("jitter_after_cap"),
                "resilience4j caps the randomized wait (jitter before the cap)",
            );
        }
    }
    Ok(t)
}

/// Full jitter, as near as resilience4j comes: half the window randomized by a factor of
/// 0.999 spreads each wait over [0, base x m^(n-1)], full jitter's window; the cap then
/// bounds the draw instead of the window.
fn full(p: &Params, notes: &mut Notes) -> String {
    let b = &p.policy.backoff;
    notes.add(link_key!("backoff"), "resilience4j has no full jitter: written as half the base randomized by a factor of 0.999, which draws over the same window; the cap then bounds the draw (piling waits at the cap), not the window");
    let mut t = format!(
        "        waitDuration: {}
        enableExponentialBackoff: true
        exponentialBackoffMultiplier: {}
",
        ms(Micros(b.base.0 / 2)),
        b.multiplier
    );
    if b.cap < Micros::from_secs(86_400) {
        t.push_str(&format!(
            "        exponentialMaxWaitDuration: {}
",
            ms(b.cap)
        ));
    }
    t.push_str(
        "        enableRandomizedWait: true
        randomizedWaitFactor: 0.999
",
    );
    t
}

/// Notes for what resilience4j's retry cannot say.
fn notes_for(p: &Params, notes: &mut Notes) {
    let pol = &p.policy;
    if pol.backoff.first_exp != 0
        || pol.backoff.floor != Micros::ZERO
        || pol.backoff.throttle_base.is_some()
    {
        notes.add(link_key!("first_exp"), "resilience4j's first retry waits waitDuration, with no floor and no base after a throttling answer: not written");
    }
    if pol.deadline.is_some() {
        notes.add(
            link_key!("deadline"),
            "resilience4j's retry has no deadline (a TimeLimiter bounds one call): not written",
        );
    }
    if pol.attempt_timeout != crate::common::NO_TIMEOUT {
        notes.add(
            link_key!("attempt_timeout"),
            "resilience4j's retry has no attempt timeout (a TimeLimiter is separate): not written",
        );
    }
    if get(p, link_key!("retry_on")) != "400-599" || get(p, link_key!("idempotent")) != "true" {
        notes.add(link_key!("retry_on"), "resilience4j retries by exception: list your client's retryable ones in retryExceptions");
    }
    if get(p, link_key!("ra_mode")) != "ignore" {
        notes.add(
            link_key!("ra_mode"),
            "resilience4j has no Retry-After support: the header is ignored",
        );
    }
    if get(p, link_key!("budget")) != "none" {
        notes.add(
            link_key!("budget"),
            "resilience4j has no retry budget: not written",
        );
    }
}

/// The breaker's lines, when the link has one.
fn breaker(p: &Params) -> String {
    if get(p, link_key!("breaker")) != "on" {
        return String::new();
    }
    let window = get(p, link_key!("breaker_window"))
        .trim_end_matches('s')
        .parse::<u64>()
        .unwrap_or(10);
    format!("  circuitbreaker:\n    instances:\n      service:\n        slidingWindowType: TIME_BASED\n        slidingWindowSize: {window}\n        failureRateThreshold: {}\n        minimumNumberOfCalls: {}\n        waitDurationInOpenState: {}\n        permittedNumberOfCallsInHalfOpenState: {}\n",
        get(p, link_key!("breaker_failures")), get(p, link_key!("breaker_min_calls")), get(p, link_key!("breaker_open")), get(p, link_key!("breaker_probes")))
}

/// `application.yml`'s `resilience4j` section.
pub(crate) fn export(p: &Params, notes: &mut Notes) -> Result<String, ImportError> {
    let lines = retry(p, notes)?;
    notes_for(p, notes);
    let mut t = format!("# Written by `retrylab export --to resilience4j` from the link\n#   ?{p}\nresilience4j:\n  retry:\n    instances:\n      service:\n{lines}");
    t.push_str(&breaker(p));
    for n in notes.notes() {
        t.push_str(&format!("# not expressed: {}: {}\n", n.field, n.text));
    }
    Ok(t)
}
