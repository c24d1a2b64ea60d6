//! An Envoy route configuration (YAML or JSON, a route, a virtual host, a route configuration
//! or a whole bootstrap): the `retry_policy` of a route or virtual host, the route `timeout`
//! around it, and a cluster's `circuit_breakers`. Envoy's backoff is taken as its code draws
//! it: retry n waits U[0, min(base x 2^(n-1), max)), full jitter with the cap on the window.
//! Istio's VirtualService (`istio.rs`) maps onto the same conditions.

use crate::common::{count, duration, object, Out};
use crate::formats::Format;
use crate::{short, yaml, ImportError, Imported, Options};
use retry_model::Micros;
use serde_json::{Map, Value};

mod export;
pub(crate) use export::export;
pub(crate) use export::{conditions_for, envoy_backoff, proxy_notes};

/// Envoy's route timeout when none is set; it covers every attempt and every wait.
const ROUTE_TIMEOUT: Micros = Micros::from_secs(15);
/// Envoy's base interval when `retry_back_off` is absent.
const BASE: Micros = Micros::from_millis(25);

/// A place in the file that sets a retry policy.
struct Found<'v> {
    /// Its path, as written.
    at: String,
    /// The object holding `retry_policy` (a route action or a virtual host).
    holder: &'v Map<String, Value>,
    /// The nearest enclosing `name`.
    name: Option<&'v str>,
    /// Whether the route matches gRPC requests only (`match.grpc`).
    grpc: bool,
}

/// Reads an Envoy configuration.
pub(crate) fn import(text: &str, opts: &Options) -> Result<Imported, ImportError> {
    let mut docs = yaml::documents(text)?;
    // Every document is renamed (no short cut), then whether any was.
    let camel = docs.iter_mut().map(snake_case).filter(|r| *r).count() > 0;
    let mut found = Vec::new();
    let mut breakers = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let at = yaml::document_name(i, docs.len());
        walk(d, &at, None, false, &mut found, &mut breakers);
    }
    for f in &mut found {
        f.at = from_virtual_host(&f.at);
    }
    let mut out = Out::default();
    // A filter's own retry policy (a JWKS fetch, an ext_authz or ext_proc call, a Wasm module's
    // download) is Envoy's core RetryPolicy for that side call, not a route's.
    found.retain(|f| {
        let side = [
            "http_filters",
            "grpc_service",
            "http_service",
            "remote_jwks",
            "vm_config",
            "access_log",
            "listener_filters",
            "typed_per_filter_config",
        ];
        let route = !side.iter().any(|k| f.at.contains(k));
        if !route {
            out.unsupported(
                join(&f.at, "retry_policy"),
                "a filter's own retry policy for its side call (JWKS, ext_authz, ext_proc, a Wasm download), not a route's: it does not retry the request",
            );
        }
        route
    });
    if camel {
        out.warn("file", "written in protobuf JSON's lowerCamelCase (numRetries, perTryTimeout), which Envoy reads as the snake_case names: fields are named here in snake_case");
    }
    let Some(f) = pick(&found, opts.route.as_deref(), &mut out)? else {
        return no_policy(&docs, out);
    };
    let field = |k: &str| join(&f.at, k);
    let vhost = f.holder.contains_key("routes") || f.holder.contains_key("domains");
    let deadline =
        match vhost.then(|| vhost_route(f.holder, opts.route.as_deref(), &f.at, &mut out)) {
            Some(Some((at, timeout))) => route_timeout(timeout, &at, false, &mut out)?,
            Some(None) => route_timeout(None, &field("timeout"), true, &mut out)?,
            None => route_timeout(f.holder.get("timeout"), &field("timeout"), false, &mut out)?,
        };
    let rp_at = field("retry_policy");
    let rp = object(&f.holder["retry_policy"], &rp_at)?;
    retry_policy(rp, &rp_at, deadline, f.grpc, &mut out)?;
    if f.holder.contains_key("hedge_policy") {
        out.unsupported(
            field("hedge_policy"),
            "Envoy hedges only on a per-try timeout, sending the retry without cancelling the first; the lab hedges after a fixed delay, so this is not modelled",
        );
    }
    circuit_breakers(&breakers, &mut out)?;
    out.finish(Format::Envoy, &rp_at)
}

/// The fields of Envoy's `config.route.v3.RetryPolicy` (route_components.proto).
const RETRY_POLICY_FIELDS: &[&str] = &[
    "retry_on",
    "num_retries",
    "per_try_timeout",
    "per_try_idle_timeout",
    "retry_priority",
    "retry_host_predicate",
    "retry_options_predicates",
    "host_selection_retry_max_attempts",
    "retriable_status_codes",
    "retry_back_off",
    "rate_limited_retry_back_off",
    "retriable_headers",
    "retriable_request_headers",
];

/// Refuses a field the message does not have, as Envoy's own parser refuses it (an unknown
/// field fails the whole configuration), naming the nearest real field.
fn only_fields(m: &Map<String, Value>, fields: &[&str], at: &str) -> Result<(), ImportError> {
    let Some(bad) = m.keys().find(|k| !fields.contains(&k.as_str())) else {
        return Ok(());
    };
    let nearest = fields
        .iter()
        .max_by(|a, b| strsim::jaro_winkler(bad, a).total_cmp(&strsim::jaro_winkler(bad, b)))
        .unwrap_or(&"");
    Err(ImportError::new(
        join(at, bad),
        format!("not a field of Envoy's {}: Envoy refuses the whole configuration (did you mean {nearest}?)", if fields.len() == 2 { "RetryBackOff" } else { "RetryPolicy" }),
    ))
}

/// Renames every lowerCamelCase key under `v` to its snake_case field name, as protobuf's JSON
/// mapping reads both (`numRetries` is `num_retries`); returns whether any was renamed. Keys
/// that are not field names (`@type`, extension names with dots, header names with dashes) are
/// kept as written.
fn snake_case(v: &mut Value) -> bool {
    match v {
        Value::Object(m) => {
            let mut renamed = false;
            let old = std::mem::take(m);
            for (k, mut child) in old {
                renamed |= snake_case(&mut child);
                let field = k.bytes().all(|b| b.is_ascii_alphanumeric())
                    && k.bytes().next().is_some_and(|b| b.is_ascii_lowercase());
                let key = if field && k.bytes().any(|b| b.is_ascii_uppercase()) {
                    renamed = true;
                    k.chars().fold(String::new(), |mut s, c| {
                        if c.is_ascii_uppercase() {
                            s.push('_');
                        }
                        s.push(c.to_ascii_lowercase());
                        s
                    })
                } else {
                    k
                };
                m.insert(key, child);
            }
            renamed
        }
        Value::Array(list) => list.iter_mut().map(snake_case).filter(|r| *r).count() > 0,
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => false,
    }
}

/// A path from its virtual host on (`virtual_hosts[0].routes[1].route`), short enough to read,
/// with the document's number when the file holds several.
fn from_virtual_host(at: &str) -> String {
    let Some(i) = at.rfind("virtual_hosts[") else {
        return at.to_string();
    };
    match at.split_once(' ') {
        Some((doc, rest)) if at.starts_with("document ") => {
            let num = rest
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap_or("");
            format!("{doc} {num}: {}", &at[i..])
        }
        _ => at[i..].to_string(),
    }
}

/// `a.b`, or `b` at the root.
fn join(at: &str, k: &str) -> String {
    if at.is_empty() {
        k.to_string()
    } else {
        format!("{at}.{k}")
    }
}

/// Collects the objects holding `retry_policy` and the `circuit_breakers` under `v`.
fn walk<'v>(
    v: &'v Value,
    at: &str,
    name: Option<&'v str>,
    grpc: bool,
    found: &mut Vec<Found<'v>>,
    breakers: &mut Vec<(String, &'v Value)>,
) {
    match v {
        Value::Object(m) => {
            let name = m.get("name").and_then(Value::as_str).or(name);
            let grpc = grpc || m.get("match").is_some_and(|x| x.get("grpc").is_some());
            if m.contains_key("retry_policy") {
                found.push(Found {
                    at: at.to_string(),
                    holder: m,
                    name,
                    grpc,
                });
            }
            for (k, child) in m {
                let path = join(at, k);
                if k == "circuit_breakers" {
                    breakers.push((path.clone(), child));
                }
                walk(child, &path, name, grpc, found, breakers);
            }
        }
        Value::Array(list) => {
            for (i, child) in list.iter().enumerate() {
                walk(child, &format!("{at}[{i}]"), name, grpc, found, breakers);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}

/// The policy to read: the one whose route is named `route`, else the first (with a warning
/// when there are several).
fn pick<'f, 'v>(
    found: &'f [Found<'v>],
    route: Option<&str>,
    out: &mut Out,
) -> Result<Option<&'f Found<'v>>, ImportError> {
    if let Some(r) = route {
        // A virtual host's policy belongs to each of its routes too.
        let holds = |f: &Found<'_>| {
            f.holder
                .get("routes")
                .and_then(Value::as_array)
                .is_some_and(|rs| {
                    rs.iter()
                        .any(|x| x.get("name").and_then(Value::as_str) == Some(r))
                })
        };
        return found
            .iter()
            .find(|f| f.name == Some(r))
            .or_else(|| found.iter().find(|f| holds(f)))
            .map(Some)
            .ok_or_else(|| {
                let names: Vec<&str> = found.iter().filter_map(|f| f.name).collect();
                ImportError::new(
                    "--route",
                    format!(
                        "no retry_policy belongs to a route named '{}' (named: {})",
                        short(r),
                        if names.is_empty() {
                            String::from("none")
                        } else {
                            names.join(", ")
                        }
                    ),
                )
            });
    }
    if found.len() > 1 {
        out.warn(
            found[0].at.clone(),
            format!(
                "{} retry policies in the file: took the first; pick another with --route NAME",
                found.len()
            ),
        );
    }
    Ok(found.first())
}

/// A file with no `retry_policy`: Envoy makes one attempt, under the first route's timeout.
fn no_policy(docs: &[Value], mut out: Out) -> Result<Imported, ImportError> {
    out.set("attempts", "1");
    out.warn(
        "retry_policy",
        "absent: Envoy retries nothing without a retry_policy on the route or its virtual host",
    );
    let action = docs.iter().find_map(route_action);
    let deadline = route_timeout(
        action.and_then(|a| a.get("timeout")),
        "route.timeout",
        false,
        &mut out,
    )?;
    out.set(
        "attempt_timeout",
        deadline.unwrap_or(crate::common::NO_TIMEOUT).to_string(),
    );
    out.finish(Format::Envoy, "file")
}

/// The first route action (`route:` with a cluster) under `v`.
fn route_action(v: &Value) -> Option<&Map<String, Value>> {
    match v {
        Value::Object(m) => m
            .get("route")
            .and_then(Value::as_object)
            .filter(|r| {
                [
                    "cluster",
                    "weighted_clusters",
                    "cluster_header",
                    "cluster_specifier_plugin",
                ]
                .iter()
                .any(|k| r.contains_key(*k))
            })
            .or_else(|| m.values().find_map(route_action)),
        Value::Array(list) => list.iter().find_map(route_action),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => None,
    }
}

/// A virtual host's policy applies to each of its routes, each under its own timeout: the
/// route named `route`, else the first, with a warning when the routes' timeouts differ.
/// Returns the timeout's path and value, or `None` when the host lists no route.
fn vhost_route<'v>(
    vhost: &'v Map<String, Value>,
    route: Option<&str>,
    at: &str,
    out: &mut Out,
) -> Option<(String, Option<&'v Value>)> {
    let routes = vhost.get("routes")?.as_array()?;
    let timeout = |r: &'v Value| r.get("route").and_then(|a| a.get("timeout"));
    let named = route.and_then(|n| {
        routes
            .iter()
            .position(|r| r.get("name").and_then(Value::as_str) == Some(n))
    });
    let i = named.unwrap_or(0);
    let chosen = routes.get(i)?;
    let path = join(at, &format!("routes[{i}].route.timeout"));
    if named.is_none() && routes.iter().any(|r| timeout(r) != timeout(chosen)) {
        out.warn(
            &path,
            format!("the virtual host's policy runs under each route's own timeout, and its {} routes' differ: took the first's; pick another with --route NAME", routes.len()),
        );
    }
    Some((path, timeout(chosen)))
}

/// The route `timeout` as the deadline: 15 s when absent, none when 0.
fn route_timeout(
    v: Option<&Value>,
    field: &str,
    vhost: bool,
    out: &mut Out,
) -> Result<Option<Micros>, ImportError> {
    let t = match v {
        Some(v) => envoy_duration(v, field, out)?,
        None => {
            let whose = if vhost {
                "each route's timeout is not in this virtual host"
            } else {
                "absent"
            };
            out.warn(
                field,
                format!("{whose}: Envoy's default of 15 s covers every attempt and every wait, so it ends retries after 15 s"),
            );
            ROUTE_TIMEOUT
        }
    };
    // Envoy retries while the route timeout has not passed, and that timeout cuts the last
    // attempt short.
    out.set("fit", "cut");
    if t == Micros::ZERO {
        out.set("deadline", "none");
        out.warn(
            field,
            "0s disables the route timeout: retries stop only at num_retries",
        );
        return Ok(None);
    }
    out.set("deadline", t.to_string());
    Ok(Some(t))
}

/// An Envoy duration: a proto3 JSON string (`"0.25s"`) or `{seconds, nanos}`.
fn envoy_duration(v: &Value, field: &str, out: &mut Out) -> Result<Micros, ImportError> {
    let Some(m) = v.as_object() else {
        return duration(v, field, out);
    };
    let secs = m.get("seconds").map_or(Ok(0), |s| {
        count(s, &format!("{field}.seconds"), "whole seconds")
    })?;
    let nanos = m.get("nanos").map_or(Ok(0), |n| {
        count(n, &format!("{field}.nanos"), "whole nanoseconds")
    })?;
    secs.checked_mul(1_000_000)
        .and_then(|us| us.checked_add(nanos / 1_000))
        .map(Micros)
        .ok_or_else(|| ImportError::new(field, "a duration too long to hold"))
}

/// The fields of a `retry_policy` the import reads, and those it reads only to say they are
/// not modelled.
const POLICY_FIELDS: &[&str] = &[
    "retry_on",
    "num_retries",
    "per_try_timeout",
    "retry_back_off",
    "rate_limited_retry_back_off",
    "retriable_status_codes",
];

/// `retry_policy`: the attempts, the conditions, the per-try timeout and the backoff.
fn retry_policy(
    rp: &Map<String, Value>,
    at: &str,
    deadline: Option<Micros>,
    grpc: bool,
    out: &mut Out,
) -> Result<(), ImportError> {
    let field = |k: &str| join(at, k);
    only_fields(rp, RETRY_POLICY_FIELDS, at)?;
    if let Some(b) = rp.get("retry_back_off").and_then(Value::as_object) {
        only_fields(
            b,
            &["base_interval", "max_interval"],
            &field("retry_back_off"),
        )?;
    }
    let retries = rp.get("num_retries").map_or(Ok(1), |v| {
        count(v, &field("num_retries"), "a whole number of retries")
    })?;
    if retries > 999 {
        return Err(ImportError::new(
            field("num_retries"),
            format!("{retries} retries: the lab runs at most 999 (1000 attempts)"),
        ));
    }
    let codes: Vec<u64> = match rp.get("retriable_status_codes") {
        Some(Value::Array(l)) => l
            .iter()
            .map(|c| count(c, &field("retriable_status_codes"), "HTTP status codes"))
            .collect::<Result<_, _>>()?,
        Some(v) => {
            return Err(ImportError::new(
                field("retriable_status_codes"),
                format!(
                    "expected a list of HTTP status codes, found '{}'",
                    short(&v.to_string())
                ),
            ))
        }
        None => Vec::new(),
    };
    let retry_on = match rp.get("retry_on") {
        Some(Value::String(s)) => s.as_str(),
        Some(v) => {
            return Err(ImportError::new(
                field("retry_on"),
                format!(
                    "expected a comma list of conditions such as \"5xx,reset\", found '{}'",
                    short(&v.to_string())
                ),
            ))
        }
        None => "",
    };
    let any = conditions(retry_on, &codes, &field("retry_on"), grpc, out)?;
    let attempts = if any { retries + 1 } else { 1 };
    out.set("attempts", attempts.to_string());
    out.warn(
        field("num_retries"),
        format!("counts retries, not attempts: {retries} retries is {} attempts in all (gRPC and resilience4j count attempts)", retries + 1),
    );
    per_try(
        rp.get("per_try_timeout"),
        &field("per_try_timeout"),
        deadline,
        out,
    )?;
    back_off(rp.get("retry_back_off"), &field("retry_back_off"), out)?;
    retry_after(
        rp.get("rate_limited_retry_back_off"),
        &field("rate_limited_retry_back_off"),
        out,
    )?;
    for k in rp.keys().filter(|k| !POLICY_FIELDS.contains(&k.as_str())) {
        out.unsupported(
            field(&short(k)),
            "read but not modelled: the lab has one upstream host and no request headers, so host selection, priorities and header matching do not apply",
        );
    }
    Ok(())
}

/// `per_try_timeout` as the attempt timeout; without it an attempt may take the whole route
/// timeout, and one that times out is not retried.
fn per_try(
    v: Option<&Value>,
    field: &str,
    deadline: Option<Micros>,
    out: &mut Out,
) -> Result<(), ImportError> {
    let day = Micros::from_secs(86_400);
    let t = match v {
        Some(v) => envoy_duration(v, field, out)?,
        None => {
            out.warn(field, "absent: an attempt may use the whole route timeout, so a timed-out request is never retried");
            deadline.unwrap_or(day)
        }
    };
    if t == Micros::ZERO || t > day {
        return Err(ImportError::new(
            field,
            format!("{t}: the lab's attempt timeout is in [1us, 24h]"),
        ));
    }
    out.set("attempt_timeout", t.to_string());
    Ok(())
}

/// `retry_back_off`: full jitter over [0, min(base x 2^(n-1), max)), base 25 ms and max
/// 10 x base by default.
fn back_off(v: Option<&Value>, field: &str, out: &mut Out) -> Result<(), ImportError> {
    let m = match v {
        Some(v) => Some(object(v, field)?),
        None => None,
    };
    let base = match m.and_then(|m| m.get("base_interval")) {
        Some(b) => envoy_duration(b, &format!("{field}.base_interval"), out)?,
        None if m.is_some() => {
            return Err(ImportError::new(
                format!("{field}.base_interval"),
                "required when retry_back_off is set, absent",
            ))
        }
        None => BASE,
    };
    if base == Micros::ZERO {
        return Err(ImportError::new(
            format!("{field}.base_interval"),
            "must be above 0",
        ));
    }
    // Envoy rounds a base under a millisecond up to one.
    let base = base.max(Micros::from_millis(1));
    let cap = match m.and_then(|m| m.get("max_interval")) {
        Some(c) => envoy_duration(c, &format!("{field}.max_interval"), out)?,
        None => Micros(base.0.saturating_mul(10)),
    };
    if cap < base {
        return Err(ImportError::new(
            format!("{field}.max_interval"),
            format!("{cap} is below base_interval {base}, which Envoy refuses"),
        ));
    }
    full_jitter(base, cap, field, out);
    Ok(())
}

/// Envoy's backoff as its code draws it, in whole milliseconds, with the note on what its docs
/// say.
pub(crate) fn full_jitter(base: Micros, cap: Micros, field: &str, out: &mut Out) {
    // The lab waits at most a day; a longer interval (Istio's 10 x a 3 h backoff) is capped.
    let day = crate::common::NO_TIMEOUT;
    if cap > day {
        out.warn(
            field,
            format!(
                "a window of up to {cap}: the lab waits at most 24 h, so the wait is capped there"
            ),
        );
    }
    let (base, cap) = (base.min(day), cap.min(day));
    out.set("backoff", "full");
    out.set("base", base.to_string());
    out.set("cap", cap.to_string());
    out.warn(
        field,
        "Envoy's docs give retry n a window of (2^n - 1) x base; its code, which the link follows, draws from [0, min(base x 2^(n-1), max_interval))",
    );
    // Envoy draws whole milliseconds (random() % window), and so does the link.
    out.set("whole_ms", "true");
}

/// `rate_limited_retry_back_off`: a Retry-After spread to U[I, 1.5 I) in whole ms, and dropped
/// over `max_interval` (300 s unless set), as the link's `ra_mode=envoy` and `ra_max`; without
/// it Envoy ignores the header.
fn retry_after(v: Option<&Value>, field: &str, out: &mut Out) -> Result<(), ImportError> {
    let Some(v) = v else {
        out.set("ra_mode", "ignore");
        return Ok(());
    };
    let max = match v.get("max_interval") {
        Some(m) => envoy_duration(m, &format!("{field}.max_interval"), out)?,
        None => Micros::from_secs(300),
    };
    if max > Micros::from_secs(86_400) {
        return Err(ImportError::new(
            format!("{field}.max_interval"),
            "over 24 h: the lab takes a Retry-After limit up to 24 h",
        ));
    }
    out.set("ra_mode", "envoy");
    out.set("ra_max", max.to_string());
    let headers = v.get("reset_headers").and_then(Value::as_array);
    let stamps = headers
        .into_iter()
        .flatten()
        .any(|h| h.get("format").and_then(Value::as_str) == Some("UNIX_TIMESTAMP"));
    if stamps {
        out.unsupported(
            format!("{field}.reset_headers"),
            "a header holding a UNIX time: the lab's servers answer Retry-After in seconds, which is what the link reads",
        );
    }
    Ok(())
}

/// The `retry_on` conditions the import knows, for its error.
const CONDITIONS: &str = "5xx, gateway-error, reset, connect-failure, refused-stream, retriable-4xx, retriable-status-codes, envoy-ratelimited, retriable-headers, http3-post-connect-failure, cancelled, deadline-exceeded, internal, resource-exhausted, unavailable";

/// What a list of conditions retries: statuses (as the link's `retry_on`), timed-out
/// attempts, refused connections.
#[derive(Default)]
struct Retried {
    statuses: Vec<String>,
    timeouts: bool,
    connects: bool,
}

/// Reads `retry_on` (Envoy's, or Istio's as it hands it to Envoy) with the codes
/// `retriable-status-codes` names, and writes `retry_on`, `idempotent` and `classify`.
/// Whether anything is retried.
pub(crate) fn conditions(
    retry_on: &str,
    codes: &[u64],
    field: &str,
    grpc: bool,
    out: &mut Out,
) -> Result<bool, ImportError> {
    let mut r = Retried::default();
    let tokens: Vec<&str> = retry_on
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    for t in &tokens {
        condition(t, codes, field, grpc, &mut r, out)?;
    }
    if !codes.is_empty() && !tokens.contains(&"retriable-status-codes") {
        out.warn(
            field,
            "retriable_status_codes does nothing unless retry_on names retriable-status-codes",
        );
    }
    if r.statuses.is_empty() && !r.timeouts && !r.connects {
        out.warn(
            field,
            "no condition the lab's servers meet: nothing is retried",
        );
        return Ok(false);
    }
    r.statuses.sort();
    r.statuses.dedup();
    if r.statuses.is_empty() {
        // 501 is a status no simulated server answers: no status is retried.
        r.statuses.push(String::from("501"));
    }
    out.set("classify", "table");
    out.set("retry_on", r.statuses.join(","));
    out.set("idempotent", if r.timeouts { "true" } else { "false" });
    if r.timeouts {
        out.warn(field, "retries an attempt that timed out whatever the method (a POST too): the link marks the operation idempotent so the lab does the same");
    }
    if !r.connects {
        out.unsupported(field, "the lab retries a refused connection or a connect timeout whatever the list; this policy would not");
    }
    Ok(true)
}

/// One condition of `retry_on`.
fn condition(
    t: &str,
    codes: &[u64],
    field: &str,
    grpc: bool,
    r: &mut Retried,
    out: &mut Out,
) -> Result<(), ImportError> {
    let mut statuses = |list: &[&str]| r.statuses.extend(list.iter().map(|s| s.to_string()));
    match t {
        "5xx" => statuses(&["500-599"]),
        "gateway-error" => statuses(&["502", "503", "504"]),
        "retriable-4xx" => statuses(&["409"]),
        // Envoy reads the gRPC conditions from a grpc-status header only: an HTTP service's 503
        // or 429 never meets them. On a gRPC route the lab's 503 stands for UNAVAILABLE and its
        // 429 for RESOURCE_EXHAUSTED, as a gateway maps them.
        "unavailable" if grpc => statuses(&["503"]),
        "resource-exhausted" if grpc => statuses(&["429"]),
        "unavailable" | "resource-exhausted" => out.unsupported(
            format!("{field}: {t}"),
            "a gRPC status, read from the grpc-status header: the route does not match gRPC (no `match.grpc`), so its servers answer HTTP, whose 503 and 429 this never retries; behind a gRPC service it would retry UNAVAILABLE or RESOURCE_EXHAUSTED",
        ),
        "reset" | "connect-failure" | "refused-stream" => {}
        "retriable-status-codes" => {
            for &c in codes {
                if !(100..=999).contains(&c) {
                    return Err(ImportError::new(field, format!("retriable status code {c} is not an HTTP status (100 to 999)")));
                }
                r.statuses.push(c.to_string());
            }
        }
        "cancelled" | "deadline-exceeded" | "internal" => out.unsupported(
            format!("{field}: {t}"),
            "no simulated server answers this gRPC status: the lab's servers fail with UNAVAILABLE (503) or RESOURCE_EXHAUSTED (429)",
        ),
        "envoy-ratelimited" | "retriable-headers" | "http3-post-connect-failure" => out.unsupported(
            format!("{field}: {t}"),
            "the lab's answers carry no such header or protocol: this condition never holds there",
        ),
        _ => {
            return Err(ImportError::new(field, format!("'{}' is not a retry condition: accepted {CONDITIONS}", short(t))))
        }
    }
    if matches!(t, "5xx" | "gateway-error" | "reset") {
        r.timeouts = true;
    }
    if matches!(
        t,
        "5xx" | "gateway-error" | "reset" | "connect-failure" | "refused-stream"
    ) {
        r.connects = true;
    }
    Ok(())
}

/// A cluster's `circuit_breakers`: its limit on retries in flight (`max_retries`, 3 when
/// absent) as the lab's `budget=envoy`, shared by every request; or its `retry_budget`, which
/// replaces that limit with a share of the active requests (`budget=envoy_budget`).
fn circuit_breakers(found: &[(String, &Value)], out: &mut Out) -> Result<(), ImportError> {
    let mut limit = None;
    for (at, v) in found {
        let thresholds = object(v, at)?.get("thresholds").and_then(Value::as_array);
        for (i, t) in thresholds.into_iter().flatten().enumerate() {
            let at = format!("{at}.thresholds[{i}]");
            let t = object(t, &at)?;
            if let Some(b) = t.get("retry_budget") {
                let at = format!("{at}.retry_budget");
                let field = |k: &str| b.pointer(k);
                let (pct, min) = (
                    field("/budget_percent/value"),
                    field("/min_retry_concurrency"),
                );
                return retry_budget(
                    [pct, min, field("/budget_interval")],
                    &at,
                    ENVOY_BUDGET_FIELDS,
                    out,
                );
            }
            if limit.is_none() {
                let n = match t.get("max_retries") {
                    Some(v) => crate::common::count(
                        v,
                        &format!("{at}.max_retries"),
                        "a whole number of retries",
                    )?,
                    None => 3,
                };
                limit = Some((at.clone(), n.clamp(1, 100_000)));
            }
        }
    }
    let (at, n) = limit.unwrap_or_else(|| (String::from("circuit_breakers"), 3));
    if found.is_empty() {
        out.warn(&at, "absent from this file: Envoy's default allows 3 retries in flight per cluster across all requests, so in a storm most retries are refused at once (the link's budget=envoy)");
    } else {
        out.warn(format!("{at}.max_retries"), format!("{n} retries in flight at once across all requests of the cluster (the link's budget=envoy): under load a retry over it is not sent and the request fails"));
    }
    out.set("budget", "envoy");
    out.set("envoy_max_retries", n.to_string());
    Ok(())
}

/// The fields of a retry budget as Envoy names them: percent, floor, window.
const ENVOY_BUDGET_FIELDS: [&str; 3] = [
    "budget_percent.value",
    "min_retry_concurrency",
    "budget_interval",
];

/// A retry budget (Envoy's `retry_budget`, or Istio's `retryBudget`, which becomes one) as
/// the link's `budget=envoy_budget`. `v` holds the percent of the attempts in flight, the
/// retries always allowed and the window, each absent or not; `names` are their field names.
pub(crate) fn retry_budget(
    v: [Option<&Value>; 3],
    at: &str,
    names: [&str; 3],
    out: &mut Out,
) -> Result<(), ImportError> {
    let [pct, min, window] = v;
    let pct_field = format!("{at}.{}", names[0]);
    let pct = match pct {
        None => 20.0,
        Some(p) => p
            .as_f64()
            .filter(|p| (0.0..=100.0).contains(p))
            .ok_or_else(|| {
                let found = short(&p.to_string());
                ImportError::new(
                    &pct_field,
                    format!("expected a percentage in [0, 100], found '{found}'"),
                )
            })?,
    };
    let per_mille = (pct * 10.0).round();
    if (pct * 10.0 - per_mille).abs() > 1e-9 {
        out.warn(
            &pct_field,
            format!(
                "{pct}% is rounded to {}%: the link holds tenths of a percent",
                per_mille / 10.0
            ),
        );
    }
    let min_field = format!("{at}.{}", names[1]);
    let min = match min {
        None => 3,
        Some(m) => crate::common::count(m, &min_field, "a whole number of retries")?,
    };
    if min > 100_000 {
        out.warn(&min_field, format!("{min} retries is more than any simulated storm sends at once: the link holds 100000"));
    }
    if let Some(w) = window {
        let field = format!("{at}.{}", names[2]);
        out.unsupported(field, format!("{}: a window of recent requests (2026) is not modelled; the link counts the attempts in flight now, as Envoy does without it", short(&w.to_string())));
    }
    out.warn(at, format!("retries in flight at most {pct}% of all attempts in flight, and always {min}, across every request to the cluster (the link's budget=envoy_budget): under load a retry over it is not sent and the request fails"));
    out.set("budget", "envoy_budget");
    out.set("envoy_budget_percent", format!("{}", per_mille / 10.0));
    out.set("envoy_min_retry_concurrency", min.min(100_000).to_string());
    Ok(())
}

#[cfg(test)]
mod tests;
