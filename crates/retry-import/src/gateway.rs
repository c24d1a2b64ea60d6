//! A Gateway API HTTPRoute's `rules[].retry` (GEP-1731): `attempts` counts retries, `codes`
//! lists the statuses (400 to 599) retried, and `backoff` is the least wait before a retry,
//! which the spec lets an implementation grow; `timeouts.request` bounds the whole request and
//! `timeouts.backendRequest` each attempt. Durations follow GEP-2257 (`1h`, `30s`, `500ms`).

use crate::common::{count, go_duration, http_codes, object, Out};
use crate::{short, yaml, ImportError, Imported, Options};
use retry_model::Micros;
use serde_json::{Map, Value};

mod export;
pub(crate) use export::export;

/// Reads the first (or `--route`, by the rule's `name`) rule with a `retry`.
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
            let rule = object(r, &at)?;
            if rule.contains_key("retry") {
                rules.push((at, rule));
            }
        }
    }
    let named = |r: &(String, &Map<String, Value>)| {
        r.1.get("name").and_then(Value::as_str).map(str::to_string)
    };
    let (at, rule) = match opts.route.as_deref() {
        Some(want) => rules
            .iter()
            .find(|r| named(r).as_deref() == Some(want))
            .ok_or_else(|| {
                ImportError::new(
                    "--route",
                    format!("no rule named '{}' with a retry", short(want)),
                )
            })?,
        None => rules
            .first()
            .ok_or_else(|| ImportError::new("spec.rules", "no HTTPRoute rule with a retry"))?,
    };
    let mut out = Out::default();
    if rules.len() > 1 && opts.route.is_none() {
        out.warn(at.as_str(), format!("{} rules with a retry: took the first; pick another with --route NAME (the rule's name)", rules.len()));
    }
    timeouts(rule.get("timeouts"), at, &mut out)?;
    retry(
        object(&rule["retry"], &format!("{at}.retry"))?,
        &format!("{at}.retry"),
        &mut out,
    )?;
    out.set("ra_mode", "ignore");
    out.set("budget", "none");
    out.finish("gateway-api", at)
}

/// `timeouts.request` (the deadline) and `timeouts.backendRequest` (each attempt).
fn timeouts(t: Option<&Value>, at: &str, out: &mut Out) -> Result<(), ImportError> {
    let field = |k: &str| format!("{at}.timeouts.{k}");
    let get = |k: &str| -> Result<Option<Micros>, ImportError> {
        t.and_then(|t| t.get(k))
            .map(|v| go_duration(v, &field(k)))
            .transpose()
            .map(|d| d.filter(|d| *d > Micros::ZERO))
    };
    let (request, backend) = (get("request")?, get("backendRequest")?);
    if request.is_none() {
        out.warn(field("request"), "absent: how long a request may take in all is up to the implementation; the link sets no deadline");
    }
    out.set(
        "deadline",
        request.map_or_else(|| String::from("none"), |d| d.to_string()),
    );
    out.set("fit", "cut");
    out.set(
        "attempt_timeout",
        backend
            .or(request)
            .unwrap_or(Micros::from_secs(86_400))
            .to_string(),
    );
    Ok(())
}

/// `retry`: `attempts`, `codes` and `backoff`.
fn retry(r: &Map<String, Value>, at: &str, out: &mut Out) -> Result<(), ImportError> {
    let field = |k: &str| format!("{at}.{k}");
    let n = match r.get("attempts") {
        Some(v) => count(v, &field("attempts"), "a whole number of retries")?,
        None => {
            out.warn(
                field("attempts"),
                "absent: how many retries is up to the implementation; the link takes 1",
            );
            1
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
    out.set("attempts", (n + 1).to_string());
    let codes: Vec<String> = match r.get("codes") {
        Some(Value::Array(list)) => list
            .iter()
            .map(|c| c.as_u64().map_or_else(|| c.to_string(), |n| n.to_string()))
            .collect(),
        Some(other) => {
            return Err(ImportError::new(
                field("codes"),
                format!(
                    "expected a list of statuses, found '{}'",
                    short(&other.to_string())
                ),
            ))
        }
        None => Vec::new(),
    };
    let codes = http_codes(&codes, &field("codes"))?;
    if codes
        .split(',')
        .any(|c| c.starts_with('1') || c.starts_with('2') || c.starts_with('3'))
    {
        return Err(ImportError::new(
            field("codes"),
            "Gateway API retries statuses in [400, 599]",
        ));
    }
    out.set("classify", "table");
    if codes.is_empty() {
        out.warn(field("codes"), "absent: which statuses are retried is up to the implementation; the link keeps the lab's table (408, 429, 503, and 500, 502, 504 when idempotent)");
    } else {
        out.set("retry_on", codes);
    }
    out.set("idempotent", "false");
    let base = r
        .get("backoff")
        .map(|b| go_duration(b, &field("backoff")))
        .transpose()?;
    match base.filter(|b| *b > Micros::ZERO) {
        None => out.set("backoff", "none"),
        Some(b) => {
            out.set("backoff", "constant");
            out.set("base", b.to_string());
            out.set("cap", b.to_string());
            out.warn(field("backoff"), "the least wait before a retry: an implementation may grow it and add jitter (Envoy Gateway and Istio use it as the base of Envoy's full jitter, 0 to 10 x backoff); the link waits exactly this");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
