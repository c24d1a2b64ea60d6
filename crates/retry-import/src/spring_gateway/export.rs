//! A link's policy as a Spring Cloud Gateway route's `Retry` filter.

use crate::write::{get, Notes};
use crate::ImportError;
use retry_model::link_key;
use retry_model::{Jitter, Micros, Params};

/// Spring's `HttpStatus` names for the statuses the filter may list.
const NAMES: [(u16, &str); 12] = [
    (400, "BAD_REQUEST"),
    (401, "UNAUTHORIZED"),
    (403, "FORBIDDEN"),
    (404, "NOT_FOUND"),
    (408, "REQUEST_TIMEOUT"),
    (409, "CONFLICT"),
    (429, "TOO_MANY_REQUESTS"),
    (500, "INTERNAL_SERVER_ERROR"),
    (501, "NOT_IMPLEMENTED"),
    (502, "BAD_GATEWAY"),
    (503, "SERVICE_UNAVAILABLE"),
    (504, "GATEWAY_TIMEOUT"),
];

/// `statuses` and `series` for the link's statuses.
fn statuses(p: &Params, notes: &mut Notes) -> (Vec<&'static str>, Vec<&'static str>) {
    let mut codes: Vec<u16> = p.policy.statuses.codes().collect();
    if codes.is_empty() {
        codes = vec![408, 429, 503];
        notes.add(link_key!("classify"), "the filter retries statuses, not a library's rules: the lab's table for a non-idempotent call (408, 429, 503) is written");
    }
    let mut series = Vec::new();
    for (lo, name) in [(500u16, "SERVER_ERROR"), (400, "CLIENT_ERROR")] {
        if (lo..lo + 100).all(|c| codes.contains(&c)) {
            series.push(name);
            codes.retain(|c| !(lo..lo + 100).contains(c));
        }
    }
    let mut named = Vec::new();
    for c in codes {
        match NAMES.iter().find(|(n, _)| *n == c) {
            Some((_, name)) => named.push(*name),
            None => notes.add(
                link_key!("retry_on"),
                format!("{c} has no name among the filter's statuses here: not written"),
            ),
        }
    }
    (named, series)
}

/// The route with its filter.
pub(crate) fn export(p: &Params, notes: &mut Notes) -> Result<String, ImportError> {
    let pol = &p.policy;
    let b = &pol.backoff;
    let (named, series) = statuses(p, notes);
    let methods = if get(p, link_key!("idempotent")) == "true" {
        "GET"
    } else {
        "GET,POST"
    };
    let mut t = format!("# Written by `retrylab export --to spring-gateway` from the link\n#   ?{p}\nspring:\n  cloud:\n    gateway:\n      routes:\n      - id: service\n        uri: http://service\n        filters:\n        - name: Retry\n          args:\n            retries: {}\n", pol.max_attempts - 1);
    t.push_str(&format!(
        "            statuses: {}\n            series: {}\n            methods: {methods}\n",
        if named.is_empty() {
            String::from("\"\"")
        } else {
            named.join(",")
        },
        if series.is_empty() {
            String::from("\"\"")
        } else {
            series.join(",")
        }
    ));
    match get(p, link_key!("backoff")).as_str() {
        "none" => {}
        "exponential" | "constant" => {
            if b.jitter != Jitter::None {
                notes.add(
                    link_key!("jitter"),
                    "the filter's waits have no jitter here: not written",
                );
            }
            let factor = if get(p, link_key!("backoff")) == "constant" {
                1.0
            } else {
                b.multiplier
            };
            if factor.fract() != 0.0 {
                notes.add(
                    link_key!("multiplier"),
                    format!(
                        "the filter's factor is a whole number: {factor} is written as {}",
                        factor.round()
                    ),
                );
            }
            t.push_str(&format!("            backoff:\n              firstBackoff: {}\n              maxBackoff: {}\n              factor: {}\n              basedOnPreviousValue: false\n", ms(b.base), ms(b.cap), factor.round() as u64));
        }
        other => notes.add(
            link_key!("backoff"),
            format!("the filter draws no jitter: backoff={other} is written as no backoff"),
        ),
    }
    if pol.attempt_timeout < Micros::from_secs(86_400) {
        t.push_str(&format!(
            "            timeout: {}\n",
            ms(pol.attempt_timeout)
        ));
    }
    for (key, on) in [
        (link_key!("deadline"), pol.deadline.is_some()),
        (link_key!("budget"), get(p, link_key!("budget")) != "none"),
        (
            link_key!("ra_mode"),
            get(p, link_key!("ra_mode")) != "ignore",
        ),
    ] {
        if on {
            notes.add(key, "the Retry filter cannot say it: not written");
        }
    }
    for n in notes.notes() {
        t.push_str(&format!("# not expressed: {}: {}\n", n.field, n.text));
    }
    Ok(t)
}

/// A duration as Spring reads it: `10ms`, `250us`.
fn ms(m: Micros) -> String {
    if m.0.is_multiple_of(1_000) {
        format!("{}ms", m.0 / 1_000)
    } else {
        format!("{}us", m.0)
    }
}
