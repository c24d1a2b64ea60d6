//! A Gateway API HTTPRoute's `rules[].retry` (GEP-1731): `attempts` counts retries, `codes`
//! lists the statuses (400 to 599) retried, and `backoff` is the least wait before a retry,
//! which the spec lets an implementation grow; `timeouts.request` bounds the whole request and
//! `timeouts.backendRequest` each attempt. Durations follow GEP-2257 (`1h`, `30s`, `500ms`).
//! What the spec leaves to the implementation is read as the release names it: Istio
//! (`pilot/pkg/config/kube/gateway/conversion.go:186-208`, 2026-08-22: 2 retries when
//! `attempts` is absent, connection failures plus `codes`, `backoff` as Envoy's base interval;
//! a rule without `retry` gets Istio's default policy) or Envoy Gateway
//! (`internal/gatewayapi/route.go:1109-1150` and `internal/xds/translator/route.go:30-33,825`,
//! 2026-08-21: 2 retries, connection failures and 503 unless `codes` replace it, the same base
//! interval; no policy without `retry`).

use crate::common::{count, go_duration, object, Out};
use crate::formats::Format;
use crate::{short, yaml, ImportError, Imported, Options};
use retry_model::Micros;
use serde_json::{Map, Value};

mod export;
pub(crate) use export::export;

/// Envoy's route timeout, which Envoy Gateway leaves in place when `timeouts.request` is absent.
const ENVOY_ROUTE_TIMEOUT: Micros = Micros::from_secs(15);

/// Reads the rule `--route` names (its `name`, or `rules[i]` of the first HTTPRoute, or `i`),
/// else the first rule with a `retry`, else the first rule: each as the implementation the
/// release names (Istio unless `--version envoy-gateway`) turns it into Envoy's retry policy.
pub(crate) fn import(text: &str, opts: &Options) -> Result<Imported, ImportError> {
    let docs = yaml::documents(text)?;
    let mut rules: Vec<(String, &Map<String, Value>)> = Vec::new();
    for doc in docs
        .iter()
        .filter(|d| d.get("kind").and_then(Value::as_str) == Some("HTTPRoute"))
    {
        let name = doc
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("?");
        for (i, r) in doc
            .pointer("/spec/rules")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let at = format!("HTTPRoute {name}: spec.rules[{i}]");
            rules.push((
                at,
                object(r, &format!("HTTPRoute {name}: spec.rules[{i}]"))?,
            ));
        }
    }
    let mut out = Out::default();
    let release = crate::release::choose(Format::GatewayApi.name(), opts.release.as_deref(), None)?;
    out.use_release(release);
    let (at, rule) = pick(&rules, opts.route.as_deref(), &mut out)?;
    let istio = release.name == "istio";
    timeouts(rule.get("timeouts"), at, istio, &mut out)?;
    match rule.get("retry") {
        Some(r) => retry(
            object(r, &format!("{at}.retry"))?,
            &format!("{at}.retry"),
            istio,
            &mut out,
        )?,
        None => no_retry(at, istio, &mut out)?,
    }
    out.set("ra_mode", "ignore");
    out.set("budget", "none");
    out.finish(Format::GatewayApi, at)
}

/// The rule `want` names (`name`, `rules[i]` or `i`), else the first with a `retry`, else the
/// first; a warning when others were passed over.
fn pick<'r, 'v>(
    rules: &'r [(String, &'v Map<String, Value>)],
    want: Option<&str>,
    out: &mut Out,
) -> Result<&'r (String, &'v Map<String, Value>), ImportError> {
    let named = |r: &(String, &Map<String, Value>)| {
        r.1.get("name").and_then(Value::as_str).map(str::to_string)
    };
    if let Some(want) = want {
        let index = want
            .trim_start_matches("rules[")
            .trim_end_matches(']')
            .parse::<usize>()
            .ok();
        return rules
            .iter()
            .find(|r| named(r).as_deref() == Some(want))
            .or_else(|| index.and_then(|i| rules.get(i)))
            .ok_or_else(|| {
                let names: Vec<String> = rules
                    .iter()
                    .enumerate()
                    .map(|(i, r)| named(r).unwrap_or_else(|| format!("rules[{i}]")))
                    .collect();
                ImportError::new(
                    "--route",
                    format!(
                        "no rule named '{}' (rules: {}; a rule without a name is picked by its place, rules[0])",
                        short(want),
                        names.join(", ")
                    ),
                )
            });
    }
    let with_retry: Vec<_> = rules.iter().filter(|r| r.1.contains_key("retry")).collect();
    let chosen = with_retry
        .first()
        .copied()
        .or_else(|| rules.first())
        .ok_or_else(|| ImportError::new("spec.rules", "no HTTPRoute rule in the file"))?;
    if rules.len() > 1 {
        out.warn(chosen.0.as_str(), format!("{} rules ({} with a retry): took this one; pick another with --route NAME, or rules[i] for a rule without a name", rules.len(), with_retry.len()));
    }
    Ok(chosen)
}

/// `timeouts.request` (the deadline) and `timeouts.backendRequest` (each attempt). Without a
/// request timeout, Istio sets no route timeout and Envoy Gateway leaves Envoy's 15 s.
fn timeouts(t: Option<&Value>, at: &str, istio: bool, out: &mut Out) -> Result<(), ImportError> {
    let field = |k: &str| format!("{at}.timeouts.{k}");
    let get = |k: &str| -> Result<Option<Micros>, ImportError> {
        t.and_then(|t| t.get(k))
            .map(|v| go_duration(v, &field(k)))
            .transpose()
            .map(|d| d.filter(|d| *d > Micros::ZERO))
    };
    let (request, backend) = (get("request")?, get("backendRequest")?);
    out.set("fit", "cut");
    let deadline = match (request, istio) {
        (Some(d), _) => Some(d),
        (None, true) => {
            out.set_default("deadline", "none", "Istio's (no route timeout)");
            None
        }
        (None, false) => {
            out.set_default(
                "deadline",
                ENVOY_ROUTE_TIMEOUT.to_string(),
                "Envoy's route timeout, which Envoy Gateway leaves in place,",
            );
            Some(ENVOY_ROUTE_TIMEOUT)
        }
    };
    if let Some(d) = request {
        out.set("deadline", d.to_string());
    }
    let attempt = backend.or(deadline);
    match attempt {
        Some(a) => out.set("attempt_timeout", a.to_string()),
        None => out.set_default(
            "attempt_timeout",
            Micros::from_secs(86_400).to_string(),
            "Envoy's (no per-try or route timeout: an attempt that hangs is never cut),",
        ),
    }
    Ok(())
}

/// A rule without `retry`: Istio applies its default policy (2 retries on connection
/// failures, no status since 1.24; `pilot/pkg/networking/core/route/retry/retry.go`), and
/// Envoy Gateway sets no retry policy at all (`internal/gatewayapi/route.go`, processRouteRetry).
fn no_retry(at: &str, istio: bool, out: &mut Out) -> Result<(), ImportError> {
    let field = format!("{at}.retry");
    if istio {
        out.warn(&field, "absent: Istio still retries twice (3 attempts) on connection failures, refused streams, UNAVAILABLE and CANCELLED, not on an HTTP status");
        crate::envoy::conditions(
            "connect-failure,refused-stream,unavailable,cancelled",
            &[],
            &field,
            false,
            out,
        )?;
        out.set_default("attempts", "3", "Istio's");
        crate::envoy::full_jitter(
            Micros::from_millis(25),
            Micros::from_millis(250),
            &field,
            out,
        );
    } else {
        out.warn(&field, "absent: Envoy Gateway sends one attempt");
        out.set("attempts", "1");
        out.set("backoff", "none");
        out.set("classify", "table");
        out.set("retry_on", "501");
    }
    Ok(())
}

/// `retry`: `attempts` (retries; 2 when absent, as both Istio and Envoy Gateway default it),
/// `codes` and `backoff`, the base of Envoy's full jitter (cap 10 x base).
fn retry(r: &Map<String, Value>, at: &str, istio: bool, out: &mut Out) -> Result<(), ImportError> {
    let field = |k: &str| format!("{at}.{k}");
    // HTTPRouteRetry's fields (apis/v1/httproute_types.go).
    crate::common::unknown_keys(r, &["codes", "attempts", "backoff"], &field, out);
    let who = if istio { "Istio" } else { "Envoy Gateway" };
    let n = match r.get("attempts") {
        Some(v) => count(v, &field("attempts"), "a whole number of retries")?,
        None => {
            out.warn(
                field("attempts"),
                format!("absent: {who} retries twice (3 attempts)"),
            );
            2
        }
    };
    if n > 999 {
        return Err(ImportError::new(
            field("attempts"),
            format!("{n} retries: the lab runs at most 999"),
        ));
    }
    out.warn(
        field("attempts"),
        format!("counts retries: {n} retries are {} attempts", n + 1),
    );
    let codes = codes(r.get("codes"), &field("codes"))?;
    // Istio: connection failures plus the codes; Envoy Gateway: its defaults, with the codes
    // in place of 503 when given.
    let statuses: Vec<u64> = if codes.is_empty() && !istio {
        vec![503]
    } else {
        codes
    };
    if statuses.is_empty() {
        out.warn(
            field("codes"),
            format!("absent: {who} retries connection failures only, no HTTP status"),
        );
    }
    let any = n > 0
        && crate::envoy::conditions(
            "connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes",
            &statuses,
            &field("codes"),
            false,
            out,
        )?;
    out.set(
        "attempts",
        if any {
            (n + 1).to_string()
        } else {
            String::from("1")
        },
    );
    let base = r
        .get("backoff")
        .map(|b| go_duration(b, &field("backoff")))
        .transpose()?
        .filter(|b| *b > Micros::ZERO);
    let base = match base {
        Some(b) => b.max(Micros::from_millis(1)),
        None => Micros::from_millis(25),
    };
    crate::envoy::full_jitter(
        base,
        Micros(base.0.saturating_mul(10)),
        &field("backoff"),
        out,
    );
    out.warn(field("backoff"), format!("{who} hands it to Envoy as the base interval: retry n waits U[0, min(backoff x 2^(n-1), 10 x backoff)) in whole ms"));
    Ok(())
}

/// `codes`: statuses in [400, 599].
fn codes(v: Option<&Value>, field: &str) -> Result<Vec<u64>, ImportError> {
    let list = match v {
        Some(Value::Array(list)) => list,
        Some(other) => {
            return Err(ImportError::new(
                field,
                format!(
                    "expected a list of statuses, found '{}'",
                    short(&other.to_string())
                ),
            ))
        }
        None => return Ok(Vec::new()),
    };
    list.iter()
        .map(|c| {
            c.as_u64()
                .filter(|c| (400..=599).contains(c))
                .ok_or_else(|| {
                    ImportError::new(
                        field,
                        format!(
                            "'{}': Gateway API retries statuses in [400, 599]",
                            short(&c.to_string())
                        ),
                    )
                })
        })
        .collect()
}

#[cfg(test)]
mod tests;
