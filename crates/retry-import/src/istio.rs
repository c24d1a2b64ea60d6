//! An Istio VirtualService (YAML or JSON, with a DestinationRule beside it or not): the
//! `retries` and `timeout` of one `http` route, handed to Envoy as Istio hands them: `attempts`
//! counts retries, `retryOn` takes Envoy's conditions and HTTP codes, `backoff` is Envoy's base
//! interval (its cap always 10 x base), and Istio lifts Envoy's limit on retries in flight.

use crate::common::{count, go_duration, object, Out};
use crate::envoy::{conditions, full_jitter};
use crate::formats::Format;
use crate::{short, yaml, ImportError, Imported, Options};
use retry_model::Micros;
use serde_json::{Map, Value};

mod export;
pub(crate) use export::export;

/// Istio's conditions when a route has no `retries`, or `retries` without `retryOn`
/// (istio/istio `pilot/pkg/networking/core/route/retry/retry.go:37`, 2026-08-22).
const DEFAULT_RETRY_ON: &str =
    "connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes";

/// The statuses Istio's default policy retries: 503 up to 1.23 (`retry.go:48` at 1.23.0); none
/// from 1.24, where `EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY` (on by default,
/// `pilot/pkg/features/pilot.go:240` at 1.24.0) drops it, and the flag was later removed.
fn default_codes(release: &crate::release::Release) -> &'static [u64] {
    if release.name == "1.23" {
        &[503]
    } else {
        &[]
    }
}
/// Envoy's base interval, which Istio keeps unless `backoff` is set.
const BASE: Micros = Micros::from_millis(25);

/// Reads a VirtualService.
pub(crate) fn import(text: &str, opts: &Options) -> Result<Imported, ImportError> {
    let docs = yaml::documents(text)?;
    let mut out = Out::default();
    out.use_release(crate::release::choose(
        "istio",
        opts.release.as_deref(),
        None,
    )?);
    let mut routes = Vec::new();
    let mut rules = Vec::new();
    for (d, doc) in docs.iter().enumerate() {
        let mut at = yaml::document_name(d, docs.len());
        if !at.is_empty() {
            at.push_str(": ");
        }
        match doc.get("kind").and_then(Value::as_str) {
            Some("VirtualService") => {
                let http = doc.pointer("/spec/http").and_then(Value::as_array);
                for (i, r) in http.into_iter().flatten().enumerate() {
                    routes.push((
                        format!("{at}spec.http[{i}]"),
                        object(r, &format!("{at}spec.http[{i}]"))?,
                    ));
                }
            }
            Some("DestinationRule") => rules.push((doc, at)),
            _ => {}
        }
    }
    let (at, route) = pick(&routes, opts.route.as_deref(), &mut out)?;
    let field = |k: &str| format!("{at}.{k}");
    let deadline = match route.get("timeout") {
        Some(v) => Some(go_duration(v, &field("timeout"))?).filter(|t| *t > Micros::ZERO),
        None => {
            out.warn(field("timeout"), "absent: Istio disables the route timeout (Envoy's 15 s does not apply), so only the attempts end a request");
            None
        }
    };
    // As in Envoy: a retry goes while the route timeout has not passed, cut short by it.
    out.set("fit", "cut");
    out.set(
        "deadline",
        deadline.map_or_else(|| String::from("none"), |t| t.to_string()),
    );
    match route.get("retries") {
        Some(r) => retries(
            object(r, &field("retries"))?,
            &field("retries"),
            deadline,
            &mut out,
        )?,
        None => default_retries(&field("retries"), deadline, &mut out)?,
    }
    out.set("ra_mode", "ignore");
    let mut limited = false;
    for (doc, at) in rules {
        if !limited {
            limited = destination_rule(doc, &at, &mut out)?;
        } else if doc.pointer("/spec/trafficPolicy").is_some() {
            out.unsupported(
                format!("{at}spec.trafficPolicy"),
                "a second DestinationRule: only the first that limits retries is read",
            );
        }
    }
    if !limited {
        // Istio sets Envoy's max_retries to 2^32 - 1: no limit on retries in flight.
        out.set("budget", "none");
    }
    out.finish(Format::Istio, at)
}

/// The route named `route`, else the first (with a warning when there are several).
fn pick<'r, 'v>(
    routes: &'r [(String, &'v Map<String, Value>)],
    route: Option<&str>,
    out: &mut Out,
) -> Result<&'r (String, &'v Map<String, Value>), ImportError> {
    fn named<'a>(r: &(String, &'a Map<String, Value>)) -> Option<&'a str> {
        r.1.get("name").and_then(Value::as_str)
    }
    if let Some(name) = route {
        return routes
            .iter()
            .find(|r| named(r) == Some(name))
            .ok_or_else(|| {
                ImportError::new(
                    "--route",
                    format!("no http route is named '{}'", short(name)),
                )
            });
    }
    let first = routes.first().ok_or_else(|| {
        ImportError::new(
            "spec.http",
            "no VirtualService with an http route in the file",
        )
    })?;
    if routes.len() > 1 {
        out.warn(
            first.0.clone(),
            format!(
                "{} http routes: took the first; pick another with --route NAME",
                routes.len()
            ),
        );
    }
    Ok(first)
}

/// Istio's policy for a route without `retries`: 2 retries on connection failures, refused
/// streams, UNAVAILABLE and CANCELLED, and on 503 up to Istio 1.23.
fn default_retries(at: &str, deadline: Option<Micros>, out: &mut Out) -> Result<(), ImportError> {
    let release = out
        .release()
        .ok_or_else(|| ImportError::new("file", "no release chosen for the format"))?;
    let codes = default_codes(release);
    let what = if codes.is_empty() {
        "connection failures, refused streams, gRPC UNAVAILABLE and CANCELLED, not 503"
    } else {
        "connection failures, refused streams, gRPC UNAVAILABLE and CANCELLED, and 503"
    };
    out.warn(at, format!("absent: {} still retries twice (3 attempts) on {what}, unless the mesh's defaultHttpRetryPolicy says otherwise", release.label));
    let any = conditions(DEFAULT_RETRY_ON, codes, at, false, out)?;
    out.set_default(
        "attempts",
        if any { "3" } else { "1" },
        &format!("{}'s", release.label),
    );
    attempt_timeout(None, at, deadline, out)?;
    full_jitter(BASE, Micros(BASE.0 * 10), at, out);
    Ok(())
}

/// `retries`: `attempts` (retries), `retryOn`, `perTryTimeout` and `backoff`.
fn retries(
    r: &Map<String, Value>,
    at: &str,
    deadline: Option<Micros>,
    out: &mut Out,
) -> Result<(), ImportError> {
    let field = |k: &str| format!("{at}.{k}");
    // HTTPRetry's fields (virtual_service.proto); the CRD's schema prunes or refuses another.
    crate::common::unknown_keys(
        r,
        &[
            "attempts",
            "perTryTimeout",
            "retryOn",
            "retryRemoteLocalities",
            "retryIgnorePreviousHosts",
            "backoff",
        ],
        &field,
        out,
    );
    let n = retry_count(r.get("attempts"), &field("attempts"), out)?;
    let release = out
        .release()
        .ok_or_else(|| ImportError::new("file", "no release chosen for the format"))?;
    let (named, codes) = retry_on(r.get("retryOn"), &field("retryOn"), release)?;
    if r.get("retryOn").is_none() && n > 0 {
        out.warn(field("retryOn"), format!("absent: {} retries on connect-failure, refused-stream, unavailable and cancelled{}", release.label, if codes.is_empty() { " (not 503)" } else { ", and 503" }));
    }
    let any = n > 0 && conditions(&named, &codes, &field("retryOn"), false, out)?;
    out.set(
        "attempts",
        if any {
            (n + 1).to_string()
        } else {
            String::from("1")
        },
    );
    out.warn(
        field("attempts"),
        format!(
            "counts retries, not attempts: {n} retries is {} attempts in all",
            n + 1
        ),
    );
    attempt_timeout(
        r.get("perTryTimeout"),
        &field("perTryTimeout"),
        deadline,
        out,
    )?;
    let base = match r.get("backoff") {
        Some(v) => go_duration(v, &field("backoff"))?.max(Micros::from_millis(1)),
        None => BASE,
    };
    full_jitter(
        base,
        Micros(base.0.saturating_mul(10)),
        &field("backoff"),
        out,
    );
    for k in ["retryRemoteLocalities", "retryIgnorePreviousHosts"] {
        if r.contains_key(k) {
            out.unsupported(
                field(k),
                "the lab has one upstream host: which host a retry goes to is not modelled",
            );
        }
    }
    Ok(())
}

/// `attempts`: retries, 0 (retries off) when absent, at most 999.
fn retry_count(v: Option<&Value>, field: &str, out: &mut Out) -> Result<u64, ImportError> {
    let n = match v {
        Some(v) => count(v, field, "a whole number of retries")?,
        None => {
            // retry.go:116: `attempts` 0 (or unset) is "explicitly disabling the retry policy".
            out.warn(field, "absent: Istio reads it as 0 and turns retries off for this route, whatever else `retries` says (one attempt)");
            0
        }
    };
    if n > 999 {
        return Err(ImportError::new(
            field,
            format!("{n} retries: the lab runs at most 999 (1000 attempts)"),
        ));
    }
    Ok(n)
}

/// `retryOn` as Envoy's conditions and the HTTP codes Istio turns each number into (with
/// `retriable-status-codes` added, as Istio adds it); Istio's default when absent.
fn retry_on(
    v: Option<&Value>,
    field: &str,
    release: &crate::release::Release,
) -> Result<(String, Vec<u64>), ImportError> {
    let retry_on = match v {
        Some(Value::String(s)) => s.clone(),
        Some(v) => {
            return Err(ImportError::new(
                field,
                format!(
                    "expected a comma list such as \"5xx,connect-failure,503\", found '{}'",
                    short(&v.to_string())
                ),
            ))
        }
        None => {
            return Ok((
                DEFAULT_RETRY_ON.to_string(),
                default_codes(release).to_vec(),
            ))
        }
    };
    // Istio turns each number into a retriable status code.
    let (codes, named): (Vec<&str>, Vec<&str>) = retry_on
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .partition(|t| t.bytes().all(|b| b.is_ascii_digit()));
    let codes: Vec<u64> = codes.iter().filter_map(|c| c.parse().ok()).collect();
    let mut named = named.join(",");
    if !codes.is_empty() {
        named.push_str(",retriable-status-codes");
    }
    Ok((named, codes))
}

/// `perTryTimeout` as the attempt timeout: the route timeout when absent, and with neither an
/// attempt waits as long as the lab allows (24 h).
fn attempt_timeout(
    v: Option<&Value>,
    field: &str,
    deadline: Option<Micros>,
    out: &mut Out,
) -> Result<(), ImportError> {
    let day = Micros::from_secs(86_400);
    let t = match v {
        Some(v) => go_duration(v, field)?,
        None => deadline.unwrap_or(day),
    };
    if t < Micros::from_millis(1) || t > day {
        return Err(ImportError::new(
            field,
            format!(
                "{t}: Istio asks for at least 1 ms, and the lab's attempt timeout is at most 24h"
            ),
        ));
    }
    if v.is_none() && deadline.is_none() {
        out.warn(field, "absent, and no route timeout: an attempt that hangs is never given up on (the link waits 24 h)");
    }
    out.set("attempt_timeout", t.to_string());
    Ok(())
}

/// A DestinationRule's retry budget (Envoy's `retry_budget`: `budget=envoy_budget`) or its
/// limit on retries in flight (`connectionPool.http.maxRetries`, Envoy's `max_retries`, which
/// Istio leaves unlimited: `budget=envoy`). The budget wins when both are given, as in Envoy.
/// Returns whether it set a budget.
fn destination_rule(doc: &Value, at: &str, out: &mut Out) -> Result<bool, ImportError> {
    let tp = "spec.trafficPolicy";
    if let Some(b) = doc.pointer("/spec/trafficPolicy/retryBudget") {
        let field = |k: &str| b.get(k);
        let v = [
            field("percent"),
            field("minRetryConcurrency"),
            field("budgetInterval"),
        ];
        let names = ["percent", "minRetryConcurrency", "budgetInterval"];
        crate::envoy::retry_budget(v, &format!("{at}{tp}.retryBudget"), names, out)?;
        return Ok(true);
    }
    if let Some(n) = doc.pointer("/spec/trafficPolicy/connectionPool/http/maxRetries") {
        let field = format!("{at}{tp}.connectionPool.http.maxRetries");
        let n = crate::common::count(n, &field, "a whole number of retries")?.clamp(1, 100_000);
        out.warn(field, format!("{n} retries in flight at once across all requests to the host (the link's budget=envoy): under load a retry over it is not sent and the request fails"));
        out.set("budget", "envoy");
        out.set("envoy_max_retries", n.to_string());
        return Ok(true);
    }
    Ok(false)
}

#[cfg(test)]
mod tests;
