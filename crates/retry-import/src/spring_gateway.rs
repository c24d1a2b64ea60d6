//! A Spring Cloud Gateway `Retry` filter, in its long form (`name: Retry` with `args`) or its
//! shortcut (`Retry=3,INTERNAL_SERVER_ERROR,GET,10ms,50ms,2,false`), on a route or among the
//! default filters. `retries` counts retries (3 by default); `series` (5xx by default) and
//! `statuses` name what is retried, and only the `methods` listed (GET by default) are ever
//! retried. Without `backoff` a retry goes at once; with it, the wait is
//! `firstBackoff x factor^n`, capped by `maxBackoff`.

use crate::common::{http_codes, Out};
use crate::formats::Format;
use crate::resilience4j::{duration, read};
use crate::{short, yaml, ImportError, Imported, Options};
use retry_model::Micros;
use serde_json::{Map, Value};

mod export;
pub(crate) use export::export;

/// The filter's arguments, with where it was found.
struct Filter {
    at: String,
    route: Option<String>,
    /// The route's `metadata.response-timeout` (milliseconds), if set.
    route_timeout: Option<Value>,
    args: Map<String, Value>,
}

/// Reads the first (or `--route`, by route `id`) Retry filter.
pub(crate) fn import(text: &str, opts: &Options) -> Result<Imported, ImportError> {
    let docs = yaml::documents(text)?;
    let mut found = Vec::new();
    for doc in &docs {
        filters(doc, "", (None, None), &mut found, 0)?;
    }
    let release = crate::release::choose(
        Format::SpringGateway.name(),
        opts.release.as_deref(),
        shape(&found),
    )?;
    let mvc = release.name == "webmvc";
    for f in &mut found {
        f.args = match f.args.remove(SHORTCUT) {
            Some(Value::String(s)) => shortcut(&s, &f.at, mvc)?,
            _ => std::mem::take(&mut f.args),
        };
    }
    let f = chosen(&found, opts.route.as_deref())?;
    let mut out = Out::default();
    out.use_release(release);
    if found.len() > 1 && opts.route.is_none() {
        out.warn(
            &f.at,
            format!(
                "{} Retry filters: took the first; pick another with --route ID",
                found.len()
            ),
        );
    }
    let a = &f.args;
    let field = |k: &str| format!("{}.args.{k}", f.at);
    // RetryGatewayFilterFactory.RetryConfig's properties (WebMVC's are a subset).
    crate::common::unknown_keys(
        a,
        &[
            "retries",
            "statuses",
            "series",
            "methods",
            "exceptions",
            "backoff",
            "timeout",
            "jitter",
            "cacheBody",
        ],
        &field,
        &mut out,
    );
    attempts(a, &field, mvc, release.label, &mut out)?;
    if mvc && read_arg(a, "statuses").is_some() {
        out.warn(
            field("statuses"),
            "Spring Cloud Gateway Server MVC has no statuses argument, only series: it is ignored",
        );
    }
    let a = &if mvc {
        a.iter()
            .filter(|(k, _)| k.as_str() != "statuses")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    } else {
        a.clone()
    };
    statuses(a, &field, &mut out)?;
    methods(a, &field("methods"), &mut out);
    backoff(read_arg(a, "backoff"), &field("backoff"), &mut out)?;
    attempt_timeout(a, f, &docs, &field("timeout"), &mut out)?;
    out.set("deadline", "none");
    out.set("ra_mode", "ignore");
    out.set("budget", "none");
    out.finish(Format::SpringGateway, &f.at)
}

/// The Retry filter of route `want`, else the first.
fn chosen<'f>(found: &'f [Filter], want: Option<&str>) -> Result<&'f Filter, ImportError> {
    match want {
        Some(want) => found
            .iter()
            .find(|f| f.route.as_deref() == Some(want))
            .ok_or_else(|| {
                ImportError::new(
                    "--route",
                    format!("no route '{}' with a Retry filter", short(want)),
                )
            }),
        None => found.first().ok_or_else(|| {
            ImportError::new(
                "file",
                "no Retry filter (name: Retry, or Retry=...) under the gateway's routes",
            )
        }),
    }
}

/// What ends an attempt: the filter's own `timeout`, else the route's
/// `metadata.response-timeout` (milliseconds), else the gateway's
/// `spring.cloud.gateway.httpclient.response-timeout` (none by default: the link waits 24 h).
fn attempt_timeout(
    a: &Map<String, Value>,
    f: &Filter,
    docs: &[Value],
    field: &str,
    out: &mut Out,
) -> Result<(), ImportError> {
    let own = read_arg(a, "timeout").map(|t| (t.clone(), field.to_string()));
    let route = f.route_timeout.clone().map(|t| {
        let id = f.route.as_deref().unwrap_or("");
        (t, format!("routes[id={id}].metadata.response-timeout"))
    });
    let global = docs.iter().find_map(|d| {
        let mut v = d;
        for k in ["spring", "cloud", "gateway", "httpclient"] {
            v = read_arg(v.as_object()?, k)?;
        }
        read_arg(v.as_object()?, "responseTimeout").cloned()
    });
    let global = global.map(|t| {
        (
            t,
            String::from("spring.cloud.gateway.httpclient.response-timeout"),
        )
    });
    let Some((t, at)) = own.or(route).or(global) else {
        out.set("attempt_timeout", crate::common::NO_TIMEOUT.to_string());
        out.warn(field, "absent, and no httpclient response-timeout: nothing ends an attempt (the link waits 24 h)");
        return Ok(());
    };
    // A number is milliseconds (the route's metadata, or a bare httpclient value); -1 or 0
    // disables it.
    let t = match t.as_i64() {
        Some(ms) if ms <= 0 => crate::common::NO_TIMEOUT,
        Some(ms) => Micros::from_millis(ms.unsigned_abs()),
        None => duration(&t, &at)?,
    };
    out.set("attempt_timeout", t.to_string());
    Ok(())
}

/// `retries` as the link's attempts: WebMVC hands it to Spring Retry's SimpleRetryPolicy as
/// maxAttempts (GatewayRetryFilterFunctions.java:75), WebFlux counts retries
/// (RetryGatewayFilterFactory); 3 when absent.
fn attempts(
    a: &Map<String, Value>,
    field: &dyn Fn(&str) -> String,
    mvc: bool,
    label: &str,
    out: &mut Out,
) -> Result<(), ImportError> {
    let n = match read_arg(a, "retries") {
        Some(v) => v
            .as_u64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
            .filter(|n| *n <= 999)
            .ok_or_else(|| {
                ImportError::new(
                    field("retries"),
                    format!(
                        "'{}' is not a whole number of retries in [0, 999]",
                        short(&v.to_string())
                    ),
                )
            })?,
        None => 3,
    };
    let attempts = if mvc { n.max(1) } else { n + 1 };
    let how = if mvc {
        format!(
            "counts every attempt in {} (3 when absent): {n} is {attempts} attempts in all",
            label
        )
    } else {
        format!("counts retries (3 when absent): {n} retries are {attempts} attempts")
    };
    out.warn(field("retries"), how);
    out.set("attempts", attempts.to_string());
    Ok(())
}

/// An argument by Spring's relaxed binding (`first-backoff` is `firstBackoff`).
fn read_arg<'a>(a: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    let want = key.to_ascii_lowercase();
    a.iter()
        .find(|(k, _)| k.replace(['-', '_'], "").to_ascii_lowercase() == want)
        .map(|(_, v)| v)
}

/// Every Retry filter under `v`, with the route it is on.
fn filters<'v>(
    v: &'v Value,
    at: &str,
    route: (Option<&'v str>, Option<&'v Value>),
    found: &mut Vec<Filter>,
    depth: usize,
) -> Result<(), ImportError> {
    if depth > 32 {
        return Ok(());
    }
    match v {
        Value::Object(map) => {
            let id = match map.get("id").and_then(Value::as_str) {
                Some(id) => (
                    Some(id),
                    map.get("metadata")
                        .and_then(Value::as_object)
                        .and_then(|m| read_arg(m, "responseTimeout")),
                ),
                None => route,
            };
            for (k, child) in map {
                let path = if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.{k}")
                };
                filters(child, &path, id, found, depth + 1)?;
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let path = format!("{at}[{i}]");
                if let Some(args) = retry_filter(item, &path)? {
                    found.push(Filter {
                        at: path,
                        route: route.0.map(str::to_string),
                        route_timeout: route.1.cloned(),
                        args,
                    });
                } else {
                    filters(item, &path, route, found, depth + 1)?;
                }
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
    Ok(())
}

/// Where a shortcut's text waits until the release (which orders its values) is known.
const SHORTCUT: &str = "\0shortcut";

/// The arguments of a Retry filter written at `item`, if it is one: a shortcut (`Retry=...`, or
/// a bare `Retry` with every default) is kept as its text, read by [`shortcut`].
fn retry_filter(item: &Value, _at: &str) -> Result<Option<Map<String, Value>>, ImportError> {
    if let Some(s) = item.as_str() {
        let s = s.trim();
        let rest = match s.strip_prefix("Retry") {
            Some("") => "",
            Some(r) => match r.strip_prefix('=') {
                Some(r) => r,
                None => return Ok(None),
            },
            None => return Ok(None),
        };
        let mut args = Map::new();
        args.insert(SHORTCUT.into(), Value::String(rest.to_string()));
        return Ok(Some(args));
    }
    let is_retry = item.get("name").and_then(Value::as_str) == Some("Retry");
    Ok(is_retry.then(|| {
        item.get("args")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    }))
}

/// The series names of Spring's `HttpStatus.Series`.
const SERIES: [&str; 5] = [
    "INFORMATIONAL",
    "SUCCESSFUL",
    "REDIRECTION",
    "CLIENT_ERROR",
    "SERVER_ERROR",
];

/// `Retry=...`'s values by the release's field order: WebFlux's `retries, statuses, methods,
/// firstBackoff, maxBackoff, factor, basedOnPreviousValue` (RetryGatewayFilterFactory.java:74),
/// WebMVC's `retries, series, methods` (RetryFilterFunctions.java:70).
fn shortcut(rest: &str, at: &str, mvc: bool) -> Result<Map<String, Value>, ImportError> {
    let names: &[&str] = if mvc {
        &["retries", "series", "methods"]
    } else {
        &[
            "retries",
            "statuses",
            "methods",
            "firstBackoff",
            "maxBackoff",
            "factor",
            "basedOnPreviousValue",
        ]
    };
    let parts: Vec<&str> = rest
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    if parts.len() > names.len() {
        return Err(ImportError::new(
            at,
            format!(
                "{} shortcut values: Retry= takes at most {} ({})",
                parts.len(),
                names.len(),
                names.join(", ")
            ),
        ));
    }
    let mut args = Map::new();
    let mut backoff = Map::new();
    for (name, v) in names.iter().zip(parts) {
        let v = Value::String(v.to_string());
        if name.ends_with("Backoff") || *name == "factor" || *name == "basedOnPreviousValue" {
            backoff.insert(name.to_string(), v);
        } else {
            args.insert(name.to_string(), v);
        }
    }
    if !backoff.is_empty() {
        args.insert("backoff".into(), Value::Object(backoff));
    }
    Ok(args)
}

/// `Some("webmvc")` when a filter sits under a Server MVC route prefix
/// (`spring.cloud.gateway.mvc.routes`, `spring.cloud.gateway.server.webmvc.routes`) or its
/// shortcut's second value is a series, which only WebMVC's shortcut takes there;
/// `Some("webflux")` under a WebFlux prefix.
fn shape(found: &[Filter]) -> Option<&'static str> {
    let mvc = found.iter().any(|f| {
        f.at.contains(".mvc.")
            || f.at.contains("webmvc")
            || f.args
                .get(SHORTCUT)
                .and_then(Value::as_str)
                .is_some_and(|s| {
                    s.split(',')
                        .nth(1)
                        .is_some_and(|v| SERIES.contains(&v.trim().to_ascii_uppercase().as_str()))
                })
    });
    if mvc {
        Some("webmvc")
    } else if found.iter().any(|f| f.at.contains("webflux")) {
        Some("webflux")
    } else {
        None
    }
}

/// A list argument: a YAML list or a comma string.
fn list(v: Option<&Value>) -> Option<Vec<String>> {
    match v? {
        Value::Array(items) => Some(
            items
                .iter()
                .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                .collect(),
        ),
        Value::String(s) => Some(
            s.split(',')
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect(),
        ),
        // `series:` with nothing after it binds as an empty list.
        Value::Null => Some(Vec::new()),
        other @ (Value::Bool(_) | Value::Number(_) | Value::Object(_)) => {
            Some(vec![other.to_string()])
        }
    }
}

/// `statuses` and `series` as the statuses retried.
fn statuses(
    a: &Map<String, Value>,
    field: &dyn Fn(&str) -> String,
    out: &mut Out,
) -> Result<(), ImportError> {
    const NAMES: [(&str, &str); 12] = [
        ("BAD_REQUEST", "400"),
        ("REQUEST_TIMEOUT", "408"),
        ("CONFLICT", "409"),
        ("TOO_MANY_REQUESTS", "429"),
        ("INTERNAL_SERVER_ERROR", "500"),
        ("NOT_IMPLEMENTED", "501"),
        ("BAD_GATEWAY", "502"),
        ("SERVICE_UNAVAILABLE", "503"),
        ("GATEWAY_TIMEOUT", "504"),
        ("NOT_FOUND", "404"),
        ("FORBIDDEN", "403"),
        ("UNAUTHORIZED", "401"),
    ];
    let mut codes = Vec::new();
    for s in list(read_arg(a, "statuses")).unwrap_or_default() {
        let code = NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(&s))
            .map_or(s.clone(), |(_, c)| c.to_string());
        codes.push(code);
    }
    let series = list(read_arg(a, "series")).unwrap_or_else(|| {
        if !codes.is_empty() {
            out.warn(field("series"), "absent: the default series SERVER_ERROR applies beside statuses, so every 5xx is retried too");
        }
        vec![String::from("SERVER_ERROR")]
    });
    for s in series {
        codes.push(match s.to_ascii_uppercase().as_str() {
            "SERVER_ERROR" | "5XX" => String::from("5xx"),
            "CLIENT_ERROR" | "4XX" => String::from("4xx"),
            other => return Err(ImportError::new(field("series"), format!("'{}' is not a series the lab's servers answer: accepted SERVER_ERROR, CLIENT_ERROR", short(other)))),
        });
    }
    let retry_on = http_codes(&codes, &field("statuses"))?;
    out.set("classify", "table");
    if retry_on.is_empty() {
        out.warn(
            field("series"),
            "no status and no series: no answer is retried, only exceptions",
        );
    } else {
        out.set("retry_on", retry_on);
    }
    Ok(())
}

/// `methods`: only the methods listed are retried (GET by default).
fn methods(a: &Map<String, Value>, field: &str, out: &mut Out) {
    let methods = list(read_arg(a, "methods")).unwrap_or_else(|| vec![String::from("GET")]);
    let unsafe_listed = methods
        .iter()
        .any(|m| matches!(m.to_ascii_uppercase().as_str(), "POST" | "PATCH"));
    out.set("idempotent", "true");
    if unsafe_listed {
        out.warn(field, "POST or PATCH is retried, timeouts and IOExceptions included: a request that reached the service may be repeated");
    } else {
        out.warn(field, format!("only {} requests are retried: a POST through this route is never retried; the link shows a request that is", methods.join(", ")));
    }
}

/// `backoff`: none when absent; else `firstBackoff x factor^n` (5 ms and 2 by default),
/// capped by `maxBackoff`.
fn backoff(b: Option<&Value>, at: &str, out: &mut Out) -> Result<(), ImportError> {
    let Some(b) = b else {
        out.set("backoff", "none");
        out.warn(at, "absent: each retry goes at once");
        return Ok(());
    };
    let field = |k: &str| format!("{at}.{k}");
    let first = read(b, "firstBackoff")
        .map(|v| duration(v, &field("firstBackoff")))
        .transpose()?
        .unwrap_or(Micros::from_millis(5));
    let factor = match read(b, "factor") {
        Some(v) => v
            .as_f64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
            .filter(|f| (1.0..=10.0).contains(f))
            .ok_or_else(|| {
                ImportError::new(
                    field("factor"),
                    format!("'{}' is not a factor in [1, 10]", short(&v.to_string())),
                )
            })?,
        None => 2.0,
    };
    let cap = match read(b, "maxBackoff") {
        Some(v) => duration(v, &field("maxBackoff"))?,
        None => {
            out.warn(
                field("maxBackoff"),
                "absent: nothing caps the wait; the lab caps it at 24 h",
            );
            Micros::from_secs(86_400)
        }
    };
    if first == Micros::ZERO {
        out.set("backoff", "none");
        return Ok(());
    }
    out.set("backoff", "exponential");
    out.set("base", first.min(cap).to_string());
    out.set("cap", cap.max(Micros(1)).to_string());
    out.set("multiplier", format!("{factor}"));
    if let Some(j) = read(b, "jitter") {
        out.unsupported(
            field("jitter"),
            format!(
                "{}: the random factor of newer versions is not modelled",
                short(&j.to_string())
            ),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests;
