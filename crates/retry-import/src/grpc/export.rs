//! A link written as a gRPC service config (gRFC A6).

use crate::write::{get, proto_secs, retried, shape_notes, Notes};
use crate::ImportError;
use retry_model::link_keys::Key;
use retry_model::{link_key, Micros, Params};
use serde_json::{json, Value};

/// A gRPC service config: one default method config with `retryPolicy` (or `hedgingPolicy`),
/// `timeout`, and `retryThrottling` for `budget=grpc`.
pub(crate) fn export(p: &Params, notes: &mut Notes) -> Result<String, ImportError> {
    let pol = &p.policy;
    let mut entry = serde_json::Map::new();
    entry.insert("name".into(), json!([{}]));
    match pol.deadline {
        Some(d) => {
            entry.insert("timeout".into(), json!(proto_secs(d)));
            if pol.attempt_timeout < d {
                notes.add(link_key!("attempt_timeout"), "gRFC A6 has no per-attempt timeout (only grpc-java reads perAttemptRecvTimeout): each attempt may use the rest of the timeout");
            }
        }
        None => {
            notes.add(
                link_key!("deadline"),
                "no timeout written: the call's deadline is the application's",
            );
            if pol.attempt_timeout < Micros::from_secs(86_400) {
                notes.add(link_key!("attempt_timeout"), "gRFC A6 has no per-attempt timeout (only grpc-java reads perAttemptRecvTimeout), and no timeout is written: an attempt waits as long as the application's deadline");
            }
        }
    }
    if get(p, link_key!("fit")) == "full" {
        notes.add(link_key!("fit"), "gRPC retries whenever the deadline has not passed, cutting the last attempt short (fit=cut)");
    }
    let hedge = p.sim.server().map(|s| s.hedge).filter(|h| h.on);
    let codes = grpc_codes(p, notes);
    if let Some(h) = hedge {
        entry.insert(
            "hedgingPolicy".into(),
            json!({"maxAttempts": h.max, "hedgingDelay": proto_secs(h.delay), "nonFatalStatusCodes": codes}),
        );
    } else if pol.max_attempts > 1 {
        entry.insert("retryPolicy".into(), grpc_retry(p, codes, notes)?);
    } else {
        notes.add(
            link_key!("attempts"),
            "one attempt: no retryPolicy is written",
        );
    }
    let mut root = serde_json::Map::new();
    root.insert("methodConfig".into(), json!([Value::Object(entry)]));
    match get(p, link_key!("budget")).as_str() {
        "grpc" => {
            root.insert("retryThrottling".into(), grpc_throttle(p, notes));
        }
        "none" => {}
        other => notes.add(link_key!("budget"), format!("gRPC's only budget is its retry throttle (budget=grpc): budget={other} is not written")),
    }
    serde_json::to_string_pretty(&Value::Object(root))
        .map(|t| t + "\n")
        .map_err(|e| ImportError::new("link", e.to_string()))
}

/// `retryThrottling`: C-core reads `maxTokens` as a whole number, so a fraction is rounded.
fn grpc_throttle(p: &Params, notes: &mut Notes) -> Value {
    let max = get(p, link_key!("grpc_max_tokens"))
        .parse::<f64>()
        .unwrap_or(10.0);
    let whole = libm_round(max);
    if whole != max {
        notes.add(
            link_key!("grpc_max_tokens"),
            format!("gRPC clients read maxTokens as a whole number: {max} is written as {whole}"),
        );
    }
    let ratio = get(p, link_key!("grpc_token_ratio"))
        .parse::<f64>()
        .unwrap_or(0.1);
    json!({"maxTokens": whole as u64, "tokenRatio": ratio})
}

/// `v` to the nearest whole number, at least 1 (gRPC refuses 0 tokens).
fn libm_round(v: f64) -> f64 {
    (v + 0.5).floor().max(1.0)
}

/// A backoff duration as gRPC writes it: C-core reads whole milliseconds and refuses 0, so a
/// wait under a millisecond is written as one and a fraction of one is noted.
fn grpc_wait(key: &'static Key, m: Micros, notes: &mut Notes) -> String {
    if !m.0.is_multiple_of(1_000) {
        let ms = (m.0 / 1_000).max(1);
        notes.add(
            key,
            format!("gRPC C-core reads whole milliseconds: {m} is written as {ms}ms"),
        );
        return proto_secs(Micros(ms * 1_000));
    }
    proto_secs(m)
}

/// The gRPC codes the policy retries, from the statuses the lab's servers answer.
fn grpc_codes(p: &Params, notes: &mut Notes) -> Vec<&'static str> {
    let (unavailable, exhausted) = retried(p);
    let mut codes = Vec::new();
    if unavailable {
        codes.push("UNAVAILABLE");
    }
    if exhausted {
        codes.push("RESOURCE_EXHAUSTED");
    }
    let others = p
        .policy
        .statuses
        .codes()
        .filter(|c| *c != 503 && *c != 429)
        .count();
    if others > 0 {
        notes.add(link_key!("retry_on"), "gRPC retries status codes, not HTTP statuses: only 503 (UNAVAILABLE) and 429 (RESOURCE_EXHAUSTED) are written");
    }
    if codes.is_empty() {
        codes.push("UNAVAILABLE");
        notes.add(link_key!("retry_on"), "the policy retries neither 503 nor 429: UNAVAILABLE is written, as gRPC needs one code");
    }
    codes
}

/// `retryPolicy`: exponential backoff (A6 draws its own +-20% jitter after the cap).
fn grpc_retry(p: &Params, codes: Vec<&str>, notes: &mut Notes) -> Result<Value, ImportError> {
    let b = &p.policy.backoff;
    let kind = get(p, link_key!("backoff"));
    let multiplier = match kind.as_str() {
        "exponential" => b.multiplier,
        "constant" => 1.0,
        "full" => {
            notes.add(link_key!("backoff"), "gRPC clients since 2024 draw min(base x m^n, cap) x U(0.8, 1.2), not full jitter (clients before the 2024 revision drew full jitter)");
            b.multiplier
        }
        other => {
            return Err(ImportError::new(
                "backoff",
                format!("gRPC's backoff is exponential with +-20% jitter: backoff={other} has nothing close (use exponential, constant or full)"),
            ))
        }
    };
    if b.base == Micros::ZERO {
        return Err(ImportError::new(
            "base",
            "gRPC needs an initialBackoff above 0",
        ));
    }
    let a6 = kind != "full"
        && get(p, link_key!("jitter")) == "mult"
        && get(p, link_key!("jitter_lo")) == "0.8"
        && get(p, link_key!("jitter_hi")) == "1.2"
        && b.jitter_after_cap;
    if kind != "full" && !a6 {
        notes.add(link_key!("jitter"), "gRPC draws its own jitter, U(0.8, 1.2) after the cap: the link's jitter is not written");
    }
    shape_notes(p, notes);
    let n = p.policy.max_attempts;
    if n > 5 {
        notes.add(
            link_key!("attempts"),
            format!("gRPC clamps maxAttempts to 5 without an error: {n} is written as it is"),
        );
    }
    Ok(json!({
        "maxAttempts": n,
        "initialBackoff": grpc_wait(link_key!("base"), b.base, notes),
        "maxBackoff": grpc_wait(link_key!("cap"), b.cap, notes),
        "backoffMultiplier": multiplier,
        "retryableStatusCodes": codes,
    }))
}
