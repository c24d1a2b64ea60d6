//! A `resilience4j.circuitbreaker` instance beside the retry, as the lab's breaker keys.

use super::{duration, read};
use crate::common::Out;
use crate::ImportError;
use serde_json::Value;

/// A breaker's fields: its own, else its base config's.
#[derive(Clone, Copy)]
struct Fields<'v> {
    own: &'v Value,
    base: Option<&'v Value>,
}

impl<'v> Fields<'v> {
    fn get(self, key: &str) -> Option<&'v Value> {
        read(self.own, key).or_else(|| self.base.and_then(|b| read(b, key)))
    }
}

/// A whole-number field, with its default, in `range`.
fn whole(
    v: Fields<'_>,
    key: &str,
    at: &str,
    default: u64,
    range: (u64, u64),
) -> Result<u64, ImportError> {
    let Some(x) = v.get(key) else {
        return Ok(default);
    };
    let n = x
        .as_f64()
        .or_else(|| x.as_str().and_then(|s| s.trim().parse().ok()));
    match n {
        Some(n) if n >= range.0 as f64 && n <= range.1 as f64 => Ok(n.round() as u64),
        _ => Err(ImportError::new(
            format!("{at}.{key}"),
            format!(
                "'{x}' is not a number in [{}, {}] the lab runs",
                range.0, range.1
            ),
        )),
    }
}

/// The breaker keys, resilience4j's defaults written out (`CircuitBreakerConfig`).
pub(crate) fn breaker(
    own: &Value,
    base: Option<&Value>,
    at: &str,
    out: &mut Out,
) -> Result<(), ImportError> {
    let cb = Fields { own, base };
    let field = |k: &str| format!("{at}.{k}");
    out.warn(
        at,
        "a circuit breaker acts across requests: the link opens the outage scenario to show it",
    );
    out.set("scenario", "outage");
    out.set("breaker", "on");
    let size = whole(cb, "slidingWindowSize", at, 100, (1, 1_000_000))?;
    let time_based = cb
        .get("slidingWindowType")
        .and_then(Value::as_str)
        .is_some_and(|t| t.eq_ignore_ascii_case("TIME_BASED"));
    if time_based {
        if !(1..=600).contains(&size) {
            return Err(ImportError::new(
                field("slidingWindowSize"),
                format!("{size} s: the lab's window is in [1, 600] seconds"),
            ));
        }
        out.set("breaker_window", format!("{size}s"));
    } else {
        out.set("breaker_window", "10s");
        out.unsupported(field("slidingWindowType"), format!("COUNT_BASED (the default) counts the last {size} calls; the lab counts the calls of a time window: 10 s is written"));
    }
    out.set(
        "breaker_failures",
        whole(cb, "failureRateThreshold", at, 50, (1, 100))?.to_string(),
    );
    out.set(
        "breaker_min_calls",
        whole(cb, "minimumNumberOfCalls", at, 100, (1, 1_000_000))?.to_string(),
    );
    let open = match cb.get("waitDurationInOpenState") {
        Some(v) => duration(v, &field("waitDurationInOpenState"))?,
        None => retry_model::Micros::from_secs(60),
    };
    if open.0 < 1_000 || open.0 > 3_600_000_000 {
        return Err(ImportError::new(
            field("waitDurationInOpenState"),
            format!("{open}: the lab keeps a breaker open for [1ms, 1h]"),
        ));
    }
    out.set("breaker_open", open.to_string());
    out.set(
        "breaker_probes",
        whole(
            cb,
            "permittedNumberOfCallsInHalfOpenState",
            at,
            10,
            (1, 1000),
        )?
        .to_string(),
    );
    out.unsupported(field("permittedNumberOfCallsInHalfOpenState"), "resilience4j closes when the half-open calls fail below the threshold; the lab closes only when every probe succeeds");
    for k in [
        "slowCallRateThreshold",
        "slowCallDurationThreshold",
        "automaticTransitionFromOpenToHalfOpenEnabled",
    ] {
        if cb.get(k).is_some() {
            out.unsupported(field(k), "not modelled by the lab's breaker");
        }
    }
    Ok(())
}
