//! A gRPC service config (gRFC A6, the 2024 revision): `methodConfig[]` with `retryPolicy` or
//! `hedgingPolicy` and `timeout`, and `retryThrottling`. The facts, with the files they were
//! read in, are in the lab's reference notes on configuration formats.

use crate::common::{duration, kind, object, Out};
use crate::formats::Format;
use crate::{short, ImportError, Imported, Options};
use retry_model::Micros;
use serde_json::{Map, Value};

mod export;
pub(crate) use export::export;

/// The fields of a `retryPolicy`.
const RETRY_FIELDS: &[&str] = &[
    "maxAttempts",
    "initialBackoff",
    "maxBackoff",
    "backoffMultiplier",
    "retryableStatusCodes",
    "perAttemptRecvTimeout",
];

/// The fields of a `hedgingPolicy`.
const HEDGE_FIELDS: &[&str] = &["maxAttempts", "hedgingDelay", "nonFatalStatusCodes"];

/// gRPC clamps `maxAttempts` (retries and hedges) to this, without an error.
const MAX_ATTEMPTS: u64 = 5;

/// The status the lab's servers answer for each retryable gRPC code it models: UNAVAILABLE is
/// the overloaded or failing server's 503 (gRPC's own HTTP mapping), RESOURCE_EXHAUSTED its 429.
const MODELLED: &[(&str, u32, u16)] = &[("UNAVAILABLE", 14, 503), ("RESOURCE_EXHAUSTED", 8, 429)];

/// The gRPC status codes by number (0 to 16).
const CODES: [&str; 17] = [
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
];

/// Reads a service config.
pub(crate) fn import(text: &str, opts: &Options) -> Result<Imported, ImportError> {
    let not_json = |e: serde_json::Error| {
        ImportError::new(
            format!("line {}", e.line()),
            format!("not a JSON service config: {e}"),
        )
    };
    let root: Value = serde_json::from_str(text).map_err(not_json)?;
    serde_json::from_str::<crate::common::NoDuplicates>(text).map_err(not_json)?;
    let root = object(&root, "file")?;
    let mut out = Out::default();
    let (at, entry) = pick(root, opts.method.as_deref(), &mut out)?;
    let entry = canon(
        object(entry, &at)?,
        &[
            "name",
            "timeout",
            "retryPolicy",
            "hedgingPolicy",
            "waitForReady",
        ],
        &at,
        &mut out,
    );
    let entry = &entry;
    policy(entry, &at, &mut out)?;
    throttling(root, &mut out)?;
    for key in entry.keys() {
        if key == "waitForReady" && entry[key] == Value::Bool(true) {
            out.unsupported(
                format!("{at}.waitForReady"),
                "the lab's connections are always ready: waiting for one is not modelled",
            );
        } else if ![
            "name",
            "timeout",
            "retryPolicy",
            "hedgingPolicy",
            "waitForReady",
        ]
        .contains(&key.as_str())
        {
            out.unsupported(
                format!("{at}.{}", short(key)),
                "read but not modelled: the lab runs the retry policy, the deadline and hedging",
            );
        }
    }
    out.finish(Format::Grpc, &at)
}

/// `obj` with each field named as gRPC documents it: grpc-go reads JSON field names in any case
/// (Go's `encoding/json`), the other clients only as written in the proto, so a name in another
/// case gets a warning. Unknown fields stay as they are.
fn canon(
    obj: &Map<String, Value>,
    known: &[&'static str],
    at: &str,
    out: &mut Out,
) -> Map<String, Value> {
    let mut m = Map::new();
    for (k, v) in obj {
        let name = match known.iter().find(|n| n.eq_ignore_ascii_case(k)) {
            Some(n) if *n != k.as_str() => {
                out.warn(
                    format!("{at}.{}", short(k)),
                    format!("only grpc-go reads a field name in another case; grpc-java, C-core and the others read only '{n}' and ignore this one"),
                );
                String::from(*n)
            }
            Some(n) => String::from(*n),
            None => k.clone(),
        };
        m.insert(name, v.clone());
    }
    m
}

/// The method config that applies: to `method` (`service/method` or `service`), most specific
/// first as gRPC matches (the exact method, then the whole service, then the default entry with
/// no service); without `method`, the default entry, else the first. Its path, and the entry.
fn pick<'v>(
    root: &'v Map<String, Value>,
    method: Option<&str>,
    out: &mut Out,
) -> Result<(String, &'v Value), ImportError> {
    let list = match root.get("methodConfig") {
        Some(Value::Array(list)) if !list.is_empty() => list,
        Some(v) => {
            return Err(ImportError::new(
                "methodConfig",
                format!(
                    "expected a non-empty list of method configs, found {}",
                    kind(v)
                ),
            ))
        }
        None => {
            return Err(ImportError::new(
                "methodConfig",
                "absent: no retry policy to read",
            ))
        }
    };
    let (service, name) = match method {
        Some(m) => m.split_once('/').unwrap_or((m, "")),
        None => ("", ""),
    };
    // 3: the exact method; 2: the service; 1: the default entry.
    let rank = |entry: &Value| -> u8 {
        let names = entry.get("name").and_then(Value::as_array);
        let mut best = 0;
        for n in names.into_iter().flatten() {
            let s = n.get("service").and_then(Value::as_str).unwrap_or("");
            let m = n.get("method").and_then(Value::as_str).unwrap_or("");
            let r = match (s, m) {
                ("", _) => 1,
                (s, "") if s == service => 2,
                (s, m) if s == service && m == name => 3,
                _ => 0,
            };
            best = best.max(r);
        }
        best
    };
    let best = (0..list.len()).max_by_key(|&i| (rank(&list[i]), core::cmp::Reverse(i)));
    let i = match (best, method) {
        (Some(i), _) if rank(&list[i]) > 0 => i,
        (_, Some(m)) => {
            return Err(ImportError::new(
                "--method",
                format!(
                    "no method config names '{}', and there is no default entry",
                    short(m)
                ),
            ))
        }
        (_, None) => 0,
    };
    if method.is_none() && list.len() > 1 {
        out.warn(
            "methodConfig",
            format!(
                "{} method configs: took methodConfig[{i}]; pick another with --method service/method",
                list.len()
            ),
        );
    }
    Ok((format!("methodConfig[{i}]"), &list[i]))
}

/// The entry's retry or hedging policy and its timeout.
fn policy(entry: &Map<String, Value>, at: &str, out: &mut Out) -> Result<(), ImportError> {
    let timeout = match entry.get("timeout") {
        Some(v) => Some(duration(v, &format!("{at}.timeout"), out)?),
        None => None,
    };
    match timeout {
        Some(t) => {
            out.set("deadline", t.to_string());
            // No per-attempt timeout in A6: each attempt may use what is left of the deadline.
            out.set("attempt_timeout", t.to_string());
        }
        None => {
            out.set_default("deadline", "none", "gRPC's");
            out.warn(
                format!("{at}.timeout"),
                "absent: no deadline, so retries stop only at maxAttempts or the throttle (the call's own deadline, if the application sets one, is not in this file)",
            );
            // A6 has no per-attempt timeout: a hung attempt waits for the call's deadline, and
            // with none it waits as long as the lab allows.
            out.set_default(
                "attempt_timeout",
                Micros::from_secs(86_400).to_string(),
                "gRPC's (no per-attempt timeout: an attempt runs until the call's deadline)",
            );
        }
    }
    match (entry.get("retryPolicy"), entry.get("hedgingPolicy")) {
        (Some(_), Some(_)) => Err(ImportError::new(
            at,
            "has both retryPolicy and hedgingPolicy, which gRPC refuses: keep one",
        )),
        (Some(r), None) => {
            let field = format!("{at}.retryPolicy");
            let r = canon(object(r, &field)?, RETRY_FIELDS, &field, out);
            retry_policy(&r, at, out)
        }
        (None, Some(h)) => {
            let field = format!("{at}.hedgingPolicy");
            let h = canon(object(h, &field)?, HEDGE_FIELDS, &field, out);
            hedging_policy(&h, at, out)
        }
        (None, None) => {
            out.set("attempts", "1");
            out.warn(
                at,
                "no retryPolicy or hedgingPolicy: gRPC makes one attempt",
            );
            Ok(())
        }
    }
}

/// `maxAttempts`, checked (more than 1) and clamped to 5 as gRPC clamps it.
fn attempts(p: &Map<String, Value>, field: &str, out: &mut Out) -> Result<u64, ImportError> {
    let n = p
        .get("maxAttempts")
        .ok_or_else(|| ImportError::new(format!("{field}.maxAttempts"), "required, absent"))?;
    let n = n.as_u64().filter(|&n| n >= 2).ok_or_else(|| {
        ImportError::new(
            format!("{field}.maxAttempts"),
            format!("expected a whole number of 2 or more (attempts in all, the first included), found {}", short(&n.to_string())),
        )
    })?;
    if n > MAX_ATTEMPTS {
        out.warn(
            format!("{field}.maxAttempts"),
            format!("{n} is clamped to {MAX_ATTEMPTS} by every gRPC client without an error (raise it with the channel's max retry attempts option)"),
        );
    }
    out.warn(
        format!("{field}.maxAttempts"),
        "counts attempts in all, the first included (Envoy, Istio and Polly count retries)",
    );
    Ok(n.min(MAX_ATTEMPTS))
}

/// `retryPolicy`: exponential backoff with A6's 2024 jitter, and the codes retried.
fn retry_policy(r: &Map<String, Value>, at: &str, out: &mut Out) -> Result<(), ImportError> {
    let field = format!("{at}.retryPolicy");
    // grpc-go's JSON ignores a field it does not have (any case).
    crate::common::unknown_keys(r, RETRY_FIELDS, &|k| format!("{field}.{k}"), out);
    let n = attempts(r, &field, out)?;
    let need = |k: &str| {
        r.get(k)
            .ok_or_else(|| ImportError::new(format!("{field}.{k}"), "required, absent"))
    };
    let base = duration(
        need("initialBackoff")?,
        &format!("{field}.initialBackoff"),
        out,
    )?;
    let cap = duration(need("maxBackoff")?, &format!("{field}.maxBackoff"), out)?;
    let m = need("backoffMultiplier")?
        .as_f64()
        .filter(|m| *m > 0.0 && m.is_finite())
        .ok_or_else(|| {
            ImportError::new(
                format!("{field}.backoffMultiplier"),
                "expected a number above 0",
            )
        })?;
    out.set("attempts", n.to_string());
    // gRPC sends a retry whenever the deadline has not passed; the deadline cuts it short.
    out.set("fit", "cut");
    out.set("backoff", "exponential");
    out.set("base", base.to_string());
    out.set("cap", cap.to_string());
    out.set("multiplier", format!("{m}"));
    // A6 since 2024 (grpc-go, grpc-java, C-core): min(B m^(n-1), M) x U(0.8, 1.2).
    out.set("jitter", "mult");
    out.set("jitter_lo", "0.8");
    out.set("jitter_hi", "1.2");
    out.set("jitter_after_cap", "true");
    out.warn(
        format!("{field}.maxBackoff"),
        "gRPC's +-20% jitter comes after the cap, so a wait can reach 1.2 x maxBackoff (clients before the 2024 revision drew full jitter instead)",
    );
    if r.contains_key("perAttemptRecvTimeout") {
        out.unsupported(
            format!("{field}.perAttemptRecvTimeout"),
            "not in gRFC A6: only grpc-java reads it (C-core behind an experimental flag, grpc-go not at all), so the import keeps A6's rule that an attempt may use the rest of the deadline",
        );
    }
    out.unsupported(
        field.as_str(),
        "gRPC's own rules around the policy are not modelled: a transparent retry (an RPC that never left the client, or never reached the server's application) goes whatever the policy and is not counted in maxAttempts, and once response headers arrive the RPC is committed and never retried; every lab attempt reaches the server and fails whole",
    );
    out.set("classify", "grpc");
    codes(
        need("retryableStatusCodes")?,
        &format!("{field}.retryableStatusCodes"),
        out,
    )
}

/// `retryableStatusCodes`: the codes the lab's servers answer become the link's retryable
/// statuses; the others are listed as unsupported.
fn codes(v: &Value, field: &str, out: &mut Out) -> Result<(), ImportError> {
    let list = v.as_array().filter(|l| !l.is_empty()).ok_or_else(|| {
        ImportError::new(
            field,
            format!(
                "expected a non-empty list of status codes, found {}",
                kind(v)
            ),
        )
    })?;
    let mut statuses = Vec::new();
    for c in list {
        let name = code_name(c).ok_or_else(|| {
            ImportError::new(field, format!("'{}' is not a gRPC status code: accepted names such as UNAVAILABLE, or numbers 0 to 16", short(&c.to_string())))
        })?;
        match MODELLED.iter().find(|m| m.0 == name) {
            Some(&(_, _, http)) => statuses.push(http.to_string()),
            None => out.unsupported(
                format!("{field}: {name}"),
                "no simulated server answers this code: the lab's servers fail with UNAVAILABLE (503) or RESOURCE_EXHAUSTED (429)",
            ),
        }
    }
    if statuses.is_empty() {
        // 501 is UNIMPLEMENTED's status, which no simulated server answers: nothing is retried.
        statuses.push(String::from("501"));
        out.warn(
            field,
            "none of these codes occurs in the lab (its servers fail with UNAVAILABLE, 503, or RESOURCE_EXHAUSTED, 429), so no failure is retried: the link retries only 501 (UNIMPLEMENTED), which no simulated server answers",
        );
    }
    statuses.sort();
    statuses.dedup();
    out.set("retry_on", statuses.join(","));
    Ok(())
}

/// A status code as its upper-case name, from a name (any case, as A6 allows) or a number.
fn code_name(c: &Value) -> Option<&'static str> {
    match c {
        Value::Number(n) => CODES.get(usize::try_from(n.as_u64()?).ok()?).copied(),
        Value::String(s) => CODES.iter().copied().find(|k| k.eq_ignore_ascii_case(s)),
        Value::Null | Value::Bool(_) | Value::Array(_) | Value::Object(_) => None,
    }
}

/// `hedgingPolicy`: copies every `hedgingDelay`, up to `maxAttempts` in all.
fn hedging_policy(h: &Map<String, Value>, at: &str, out: &mut Out) -> Result<(), ImportError> {
    let field = format!("{at}.hedgingPolicy");
    let n = attempts(h, &field, out)?;
    let delay = match h.get("hedgingDelay") {
        Some(v) => duration(v, &format!("{field}.hedgingDelay"), out)?,
        None => Micros::ZERO,
    };
    // Hedging exists only where many requests run: the lab's default outage.
    out.set("scenario", "outage");
    out.warn(
        field.clone(),
        "hedging runs only in a storm: the link runs it in the lab's default outage (scenario=outage); set rate, capacity and the outage to match your system",
    );
    out.set("hedge", "on");
    out.set("hedge_max", n.to_string());
    out.set("hedge_delay", delay.to_string());
    out.warn(
        field.clone(),
        "grpc-go and C-core ignore hedgingPolicy (only Java, .NET and Node hedge): with those clients this method makes one attempt",
    );
    if h.contains_key("nonFatalStatusCodes") {
        out.unsupported(
            format!("{field}.nonFatalStatusCodes"),
            "the lab's hedging sends the next copy at once after any failure the policy would retry, which for gRPC is UNAVAILABLE (503)",
        );
    }
    Ok(())
}

/// `retryThrottling`: gRPC's token bucket (`budget=grpc`); without it, no budget.
fn throttling(root: &Map<String, Value>, out: &mut Out) -> Result<(), ImportError> {
    let Some(t) = root.get("retryThrottling") else {
        out.set("budget", "none");
        return Ok(());
    };
    let t = object(t, "retryThrottling")?;
    let num = |k: &str, ok: &dyn Fn(f64) -> bool, rule: &str| {
        t.get(k)
            .and_then(Value::as_f64)
            .filter(|v| ok(*v))
            .ok_or_else(|| ImportError::new(format!("retryThrottling.{k}"), rule.to_string()))
    };
    let max = num(
        "maxTokens",
        &|v| v > 0.0 && v <= 1000.0,
        "expected a number in (0, 1000]",
    )?;
    let ratio = num(
        "tokenRatio",
        &|v| v > 0.0 && v <= 1000.0,
        "expected a number above 0",
    )?;
    // gRPC keeps thousandths of a token: 0.5466 is 0.546.
    let ratio_milli = (ratio * 1000.0).floor() / 1000.0;
    if ratio_milli != ratio {
        out.warn(
            "retryThrottling.tokenRatio",
            format!("gRPC keeps three decimals: {ratio} is {ratio_milli}"),
        );
    }
    out.set("budget", "grpc");
    out.set("grpc_max_tokens", format!("{max}"));
    out.set("grpc_token_ratio", format!("{ratio_milli}"));
    Ok(())
}

#[cfg(test)]
mod tests;
