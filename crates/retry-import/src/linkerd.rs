//! Linkerd: the retry and timeout annotations of Linkerd 2.16 and later on a Service, an
//! HTTPRoute or a GRPCRoute, and the legacy ServiceProfile's retryable routes and retry
//! budget. `retry.linkerd.io/limit` counts retries (1 by default); retries go only where
//! `retry.linkerd.io/http` or `retry.linkerd.io/grpc` names what to retry. Linkerd documents no
//! backoff, so a retry goes at once.

use crate::common::{count, go_duration, http_codes, Out};
use crate::formats::Format;
use crate::{short, yaml, ImportError, Imported, Options};
use retry_model::Micros;
use serde_json::{Map, Value};

mod export;
pub(crate) use export::export;

/// A resource with Linkerd's retry settings: where it is, its name, and the resource.
type RouteFound<'v> = (String, String, &'v Value);

/// Reads the first (or `--instance`, by `metadata.name`) resource with retry settings.
pub(crate) fn import(text: &str, opts: &Options) -> Result<Imported, ImportError> {
    let docs = yaml::documents(text)?;
    let mut found: Vec<RouteFound<'_>> = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        let kind = doc.get("kind").and_then(Value::as_str).unwrap_or_default();
        let name = doc
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let annotated = doc
            .pointer("/metadata/annotations")
            .and_then(Value::as_object)
            .is_some_and(|a| {
                a.keys().any(|k| {
                    k.starts_with("retry.linkerd.io/") || k.starts_with("timeout.linkerd.io/")
                })
            });
        if annotated || kind == "ServiceProfile" {
            let at = format!("{}{kind} {name}", doc_prefix(i, docs.len()));
            found.push((at, name.to_string(), doc));
        }
    }
    let names: Vec<&str> = found.iter().map(|f| f.1.as_str()).collect();
    let choice = crate::common::Choice {
        want: opts.instance.as_deref(),
        what: "resource with Linkerd retries named",
        none: (
            "file",
            "no retry.linkerd.io or timeout.linkerd.io annotation and no ServiceProfile",
        ),
    };
    let (at, _, doc) = &found[choice.pick(&names, |i, want| names[i] == want)?];
    let mut out = Out::default();
    if found.len() > 1 && opts.instance.is_none() {
        out.warn(at.as_str(), format!("{} resources with Linkerd retries: took this one; pick another with --instance NAME", found.len()));
    }
    if doc.get("kind").and_then(Value::as_str) == Some("ServiceProfile") {
        profile(doc, at, opts, &mut out)?;
    } else {
        annotations(doc, at, &mut out)?;
    }
    out.set("backoff", "none");
    out.unsupported(at.as_str(), "Linkerd documents no backoff: each retry goes at once; requests with bodies over 64 KiB are never retried");
    out.set("ra_mode", "ignore");
    out.finish(Format::Linkerd, at)
}

/// `document 2: ` when the file holds several, else nothing.
fn doc_prefix(i: usize, count: usize) -> String {
    let name = yaml::document_name(i, count);
    if name.is_empty() {
        name
    } else {
        format!("{name}: ")
    }
}

/// The annotations of Linkerd 2.16 and later.
fn annotations(doc: &Value, at: &str, out: &mut Out) -> Result<(), ImportError> {
    let a = doc
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let get = |k: &str| a.get(k).and_then(Value::as_str).map(str::to_string);
    let field = |k: &str| format!("{at}: {k}");
    // Linkerd reads these annotations and ignores another under its prefixes.
    let ours: serde_json::Map<String, Value> = a
        .iter()
        .filter(|(k, _)| k.starts_with("retry.linkerd.io/") || k.starts_with("timeout.linkerd.io/"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    crate::common::unknown_keys(
        &ours,
        &[
            "retry.linkerd.io/http",
            "retry.linkerd.io/grpc",
            "retry.linkerd.io/limit",
            "retry.linkerd.io/timeout",
            "timeout.linkerd.io/request",
            "timeout.linkerd.io/response",
            "timeout.linkerd.io/idle",
        ],
        &field,
        out,
    );
    let limit = limit_of(
        a.get("retry.linkerd.io/limit"),
        &field("retry.linkerd.io/limit"),
    )?;
    out.warn(
        field("retry.linkerd.io/limit"),
        format!(
            "counts retries (1 when absent): {limit} retries are {} attempts",
            limit + 1
        ),
    );
    let http: Vec<String> = get("retry.linkerd.io/http")
        .map(|s| s.split(',').map(str::to_string).collect())
        .unwrap_or_default();
    let mut codes = http_codes(&http, &field("retry.linkerd.io/http"))?;
    let grpc_list = get("retry.linkerd.io/grpc");
    if let Some(g) = &grpc_list {
        codes = grpc(g, &codes, &field("retry.linkerd.io/grpc"), out);
    }
    // A try cut by retry.linkerd.io/timeout is retried too, whatever the statuses.
    let per_try = a.contains_key("retry.linkerd.io/timeout");
    let retries = (!codes.is_empty() || per_try) && limit > 0;
    if limit == 0 {
        out.warn(
            field("retry.linkerd.io/limit"),
            "0: Linkerd drops a limit of 0, so nothing is retried",
        );
    } else if codes.is_empty() {
        let why = nothing_listed(grpc_list.as_deref(), per_try);
        out.warn(field("retry.linkerd.io/http"), why);
    }
    out.set("attempts", if retries { limit + 1 } else { 1 }.to_string());
    out.set("classify", "table");
    if retries {
        let codes = if codes.is_empty() {
            crate::write::NO_STATUS.to_string()
        } else {
            codes
        };
        out.set("retry_on", codes);
    }
    timeouts(&a, at, out)?;
    out.set("budget", "none");
    Ok(())
}

/// `retry.linkerd.io/limit`: retries, 1 when absent, at most 999.
fn limit_of(v: Option<&Value>, field: &str) -> Result<u64, ImportError> {
    let Some(v) = v else {
        return Ok(1);
    };
    let n = v
        .as_str()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .map_or_else(|| count(v, field, "a whole number of retries"), Ok)?;
    if n > 999 {
        return Err(ImportError::new(
            field,
            format!("{n} retries: the lab runs at most 999"),
        ));
    }
    Ok(n)
}

/// Why nothing the lab's servers answer is retried, with `grpc` the gRPC statuses listed and
/// `per_try` whether a per-try timeout is set.
fn nothing_listed(grpc: Option<&str>, per_try: bool) -> String {
    match (grpc, per_try) {
        (Some(g), true) => format!("Linkerd retries {g}, which no simulated server answers, and a try that times out: the link retries timed-out tries only"),
        (Some(g), false) => format!("Linkerd retries {g}, which no simulated server answers: in the lab nothing is retried"),
        (None, true) => String::from("no status listed: Linkerd retries only a try that times out"),
        (None, false) => String::from("no status listed and no per-try timeout: Linkerd retries nothing"),
    }
}

/// The per-try (`retry.linkerd.io/timeout`) and request (`timeout.linkerd.io/request`)
/// timeouts: each attempt's timeout and the deadline. A timed-out try is retried.
fn timeouts(a: &Map<String, Value>, at: &str, out: &mut Out) -> Result<(), ImportError> {
    let get = |k: &str| a.get(k).and_then(Value::as_str).map(str::to_string);
    let field = |k: &str| format!("{at}: {k}");
    let duration = |k: &str| -> Result<Option<Micros>, ImportError> {
        get(k)
            .map(|v| go_duration(&Value::String(v), &field(k)))
            .transpose()
            .map(|d| d.filter(|d| *d > Micros::ZERO))
    };
    let per_try = duration("retry.linkerd.io/timeout")?;
    let total = duration("timeout.linkerd.io/request")?;
    out.set(
        "deadline",
        total.map_or_else(|| String::from("none"), |t| t.to_string()),
    );
    out.set("fit", "cut");
    out.set(
        "attempt_timeout",
        per_try
            .or(total)
            .unwrap_or(Micros::from_secs(86_400))
            .to_string(),
    );
    out.set(
        "idempotent",
        if per_try.is_some() { "true" } else { "false" },
    );
    if per_try.is_none() && total.is_none() {
        out.warn(field("timeout.linkerd.io/request"), "absent, with no retry.linkerd.io/timeout: nothing ends a request that hangs (the link waits 24 h)");
    }
    if get("timeout.linkerd.io/response").is_some() || get("timeout.linkerd.io/idle").is_some() {
        out.unsupported(
            field("timeout.linkerd.io/response"),
            "the response and idle timeouts are not modelled; the request timeout is the deadline",
        );
    }
    Ok(())
}

/// `retry.linkerd.io/grpc`: the gRPC codes the lab's servers answer (UNAVAILABLE as 503,
/// RESOURCE_EXHAUSTED as 429) added to `codes`; the others noted.
fn grpc(list: &str, codes: &str, field: &str, out: &mut Out) -> String {
    let mut all: Vec<String> = codes
        .split(',')
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect();
    for c in list.split(',').map(|c| c.trim().to_ascii_lowercase()) {
        match c.as_str() {
            // As a gateway maps the codes to the statuses the lab's servers answer.
            "unavailable" => all.push(String::from("503")),
            "resource-exhausted" => all.push(String::from("429")),
            "deadline-exceeded" => all.push(String::from("504")),
            "internal" => all.push(String::from("500")),
            "" => {}
            other => out.unsupported(field, format!("{other}: the lab's servers answer UNAVAILABLE (as 503) and RESOURCE_EXHAUSTED (as 429), so it is never met")),
        }
    }
    all.join(",")
}

/// A ServiceProfile: its retryable route (on `--route`, else the first) and its budget.
fn profile(doc: &Value, at: &str, opts: &Options, out: &mut Out) -> Result<(), ImportError> {
    let routes = doc
        .pointer("/spec/routes")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let route = match opts.route.as_deref() {
        Some(want) => routes
            .iter()
            .find(|r| r.get("name").and_then(Value::as_str) == Some(want))
            .ok_or_else(|| {
                ImportError::new("--route", format!("no route named '{}'", short(want)))
            })?,
        None => routes
            .iter()
            .find(|r| r.get("isRetryable") == Some(&Value::Bool(true)))
            .or(routes.first())
            .ok_or_else(|| {
                ImportError::new(
                    format!("{at}: spec.routes"),
                    "absent: a ServiceProfile needs a route",
                )
            })?,
    };
    let name = route.get("name").and_then(Value::as_str).unwrap_or("?");
    let field = format!("{at}: spec.routes[{name}]");
    let mut retryable = route.get("isRetryable") == Some(&Value::Bool(true));
    if retryable {
        if let Some(why) = never_applies(doc, route) {
            out.warn(
                &field,
                format!("isRetryable, but {why}: Linkerd makes one attempt, and so does the link"),
            );
            retryable = false;
        }
    }
    let timeout = match route.get("timeout") {
        Some(v) => go_duration(v, &format!("{field}.timeout"))?,
        None => Micros::from_secs(10),
    };
    out.set("deadline", timeout.to_string());
    out.set("attempt_timeout", timeout.to_string());
    out.set("fit", "cut");
    out.set("classify", "table");
    if retryable {
        out.warn(&field, "isRetryable: Linkerd retries a failed request as often as the retry budget allows, within the route timeout (10 s by default); the lab runs at most 1000 attempts");
        out.set("attempts", "1000");
        out.set("retry_on", "500-599");
    } else {
        out.warn(
            &field,
            "not isRetryable: Linkerd retries nothing on this route",
        );
        out.set("attempts", "1");
    }
    out.set("idempotent", "false");
    budget(doc.pointer("/spec/retryBudget"), at, retryable, out)
}

/// Why a ServiceProfile's route can never apply, if it cannot: the profile's name is not the
/// fully qualified name Linkerd looks it up by (`books.default.svc.cluster.local`, or an
/// external host), or the route's condition asks one request for two methods at once.
fn never_applies(doc: &Value, route: &Value) -> Option<String> {
    let name = doc.pointer("/metadata/name").and_then(Value::as_str)?;
    if !name.contains('.') {
        return Some(format!(
            "the profile's name '{}' is not a fully qualified service name (service.namespace.svc.cluster.local), which is how Linkerd finds a profile, so it never applies",
            short(name)
        ));
    }
    fn methods(c: &Value) -> Vec<String> {
        let own = c
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_ascii_uppercase);
        let all = c.get("all").and_then(Value::as_array);
        own.into_iter()
            .chain(all.into_iter().flatten().flat_map(methods))
            .collect()
    }
    let mut m = methods(route.get("condition")?);
    m.sort();
    m.dedup();
    (m.len() > 1).then(|| {
        format!(
            "its condition asks for methods {} at once, which no request has",
            m.join(" and ")
        )
    })
}

/// `retryBudget`: retries at most `retryRatio` of requests plus `minRetriesPerSecond`, over
/// `ttl`: the lab's ratio budget. Linkerd's defaults are 0.2, 10 and 10 s.
fn budget(b: Option<&Value>, at: &str, retryable: bool, out: &mut Out) -> Result<(), ImportError> {
    if !retryable {
        out.set("budget", "none");
        return Ok(());
    }
    let field = |k: &str| format!("{at}: spec.retryBudget.{k}");
    let ratio = b
        .and_then(|b| b.get("retryRatio"))
        .map_or(Some(0.2), Value::as_f64)
        .filter(|r| (0.001..=10.0).contains(r))
        .ok_or_else(|| ImportError::new(field("retryRatio"), "not a ratio in [0.001, 10]"))?;
    let min = b
        .and_then(|b| b.get("minRetriesPerSecond"))
        .map_or(Some(10), Value::as_u64)
        .filter(|n| *n <= 10_000)
        .ok_or_else(|| {
            ImportError::new(
                field("minRetriesPerSecond"),
                "not a whole number in [0, 10000]",
            )
        })?;
    let ttl = match b.and_then(|b| b.get("ttl")) {
        Some(v) => go_duration(v, &field("ttl"))?,
        None => Micros::from_secs(10),
    };
    if ttl.0 % 1_000_000 != 0 || !(1..=60).contains(&(ttl.0 / 1_000_000)) {
        return Err(ImportError::new(
            field("ttl"),
            format!("{ttl}: the lab's window is whole seconds in [1, 60]"),
        ));
    }
    out.set("budget", "ratio");
    out.set(
        "ratio_percent",
        format!("{}", (ratio * 1000.0).round() / 10.0),
    );
    out.set("ratio_window", ttl.to_string());
    out.set("ratio_min_per_s", min.to_string());
    Ok(())
}

#[cfg(test)]
mod tests;
