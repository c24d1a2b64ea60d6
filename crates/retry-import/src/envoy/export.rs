//! A link written as an Envoy route's `timeout` and `retry_policy`, and the rules Envoy and Istio share.

use crate::write::{get, proto_secs, shape_notes, yaml_header, yaml_notes, Notes};
use crate::ImportError;
use retry_model::{link_key, Micros, Params};

/// Envoy's `retry_on` conditions for the policy's statuses, and the codes that need
/// `retriable-status-codes`. Connection failures are always among them: the lab retries them
/// whatever the policy.
pub(crate) fn conditions_for(p: &Params, notes: &mut Notes) -> (Vec<&'static str>, Vec<u16>) {
    let idempotent = p.policy.operation.idempotent;
    let mut codes: Vec<u16> = p.policy.statuses.codes().collect();
    if codes.is_empty() {
        // The classifier decides; the table's rule: 408, 429 and 503 always, 500, 502 and 504
        // when the operation is idempotent.
        codes = if idempotent {
            vec![408, 429, 500, 502, 503, 504]
        } else {
            vec![408, 429, 503]
        };
        if get(p, link_key!("classify")) != "table" {
            notes.add(link_key!("classify"), "Envoy retries statuses, not a library's rules: the lab's table (408, 429, 503, and 500, 502, 504 when idempotent) is written");
        }
    }
    let mut tokens = Vec::new();
    if (500..=599).all(|c| codes.contains(&c)) {
        tokens.push("5xx");
        codes.retain(|c| !(500..=599).contains(c));
    } else if [502, 503, 504].iter().all(|c| codes.contains(c)) {
        tokens.push("gateway-error");
        codes.retain(|c| ![502, 503, 504].contains(c));
    }
    if idempotent && tokens.is_empty() {
        // A timed-out attempt is retried under `reset` (and `5xx`, `gateway-error`).
        tokens.push("reset");
    } else if !idempotent && !tokens.is_empty() {
        notes.add(link_key!("idempotent"), "Envoy's 5xx and gateway-error retry a timed-out attempt whatever the method, as if the operation were idempotent");
    }
    tokens.extend(["connect-failure", "refused-stream"]);
    (tokens, codes)
}

/// Envoy's backoff window for the policy: its base and cap, with notes where the policy's
/// shape differs from Envoy's full jitter. Refused when there is no wait to write.
pub(crate) fn envoy_backoff(
    p: &Params,
    notes: &mut Notes,
) -> Result<(Micros, Micros), ImportError> {
    let b = &p.policy.backoff;
    let kind = get(p, link_key!("backoff"));
    if kind == "none" || b.base == Micros::ZERO {
        return Err(ImportError::new("backoff", "Envoy always waits a jittered backoff from a base above 0: a policy with no wait has nothing close"));
    }
    if kind != "full" {
        notes.add(link_key!("backoff"), format!("Envoy draws full jitter, U[0, min(base x 2^(n-1), max)): backoff={kind} is written as full jitter with the same base and cap"));
    } else if (b.multiplier - 2.0).abs() > f64::EPSILON {
        notes.add(
            link_key!("multiplier"),
            "Envoy doubles its window each retry: the multiplier is not written",
        );
    } else if !b.whole_ms {
        notes.add(link_key!("whole_ms"),
            "Envoy draws the wait in whole milliseconds (whole_ms=true), under 1 ms from the link's",
        );
    }
    shape_notes(p, notes);
    // Envoy's intervals are whole milliseconds, at least 1, and max_interval is at least the base.
    let base = b.base.max(Micros::from_millis(1));
    let cap = b.cap.max(base);
    if base != b.base || cap != b.cap {
        notes.add(link_key!("cap"), format!("Envoy's base_interval is at least 1 ms and max_interval at least the base: written as {base} and {cap}"));
    }
    Ok((base, cap))
}

/// Notes for what neither Envoy nor Istio can say of the policy. The proxies' limits on
/// retries in flight differ by default: Envoy's cluster allows 3 (`max_retries`), Istio sets
/// it to 2^32 - 1 (none).
pub(crate) fn proxy_notes(p: &Params, notes: &mut Notes, istio: bool) {
    if get(p, link_key!("fit")) == "full" {
        notes.add(link_key!("fit"), "the proxy retries whenever the route timeout has not passed, cutting the last attempt short (fit=cut)");
    }
    match get(p, link_key!("budget")).as_str() {
        "none" if istio => {}
        "none" => notes.add(link_key!("budget"), "Envoy always limits the retries in flight to a cluster, 3 by default: no limit is not written; set circuit_breakers.thresholds[].max_retries very high on the cluster (Istio sets 4294967295) to come close"),
        // Envoy's default limit is the budget a route gets; another limit lives on the cluster.
        "envoy" if !istio && get(p, link_key!("envoy_max_retries")) == "3" => {}
        "envoy" if istio => notes.add(link_key!("envoy_max_retries"), format!("Istio sets no limit on retries in flight by default: set a DestinationRule's trafficPolicy.connectionPool.http.maxRetries: {} for this one", get(p, link_key!("envoy_max_retries")))),
        "envoy" => notes.add(link_key!("envoy_max_retries"), format!("the limit on retries in flight is the cluster's: set circuit_breakers.thresholds[].max_retries: {} on it", get(p, link_key!("envoy_max_retries")))),
        "envoy_budget" => notes.add(link_key!("budget"), format!("the retry budget is the cluster's: set circuit_breakers.thresholds[].retry_budget: {{budget_percent: {{value: {}}}, min_retry_concurrency: {}}} on it (Istio: a DestinationRule's trafficPolicy.retryBudget)", get(p, link_key!("envoy_budget_percent")), get(p, link_key!("envoy_min_retry_concurrency")))),
        _ => notes.add(link_key!("budget"), "the proxy's retry budgets limit retries in flight per cluster (circuit_breakers, a DestinationRule), not per client: not written"),
    }
}

/// An Envoy route's action with its `timeout` and `retry_policy`.
pub(crate) fn export(p: &Params, notes: &mut Notes) -> Result<String, ImportError> {
    let pol = &p.policy;
    let (base, cap) = envoy_backoff(p, notes)?;
    let (mut tokens, codes) = conditions_for(p, notes);
    if !codes.is_empty() {
        tokens.push("retriable-status-codes");
    }
    proxy_notes(p, notes, false);
    let mut t = yaml_header(p, notes);
    t.push_str("# A route: put `timeout` and `retry_policy` in your route's action.\nroute:\n  cluster: service\n");
    let timeout = pol.deadline.map_or_else(|| String::from("0s"), proto_secs);
    t.push_str(&format!("  timeout: {timeout}\n  retry_policy:\n"));
    t.push_str(&format!("    retry_on: \"{}\"\n", tokens.join(",")));
    t.push_str(&format!(
        "    num_retries: {}\n",
        pol.max_attempts.saturating_sub(1)
    ));
    t.push_str(&format!(
        "    per_try_timeout: {}\n",
        proto_secs(pol.attempt_timeout)
    ));
    if !codes.is_empty() {
        let list: Vec<String> = codes.iter().map(u16::to_string).collect();
        t.push_str(&format!(
            "    retriable_status_codes: [{}]\n",
            list.join(", ")
        ));
    }
    t.push_str(&format!(
        "    retry_back_off:\n      base_interval: {}\n      max_interval: {}\n",
        proto_secs(base),
        proto_secs(cap)
    ));
    let mode = get(p, link_key!("ra_mode"));
    let max = match mode.as_str() {
        "envoy" => p.policy.ra_max,
        "ignore" => Micros::ZERO,
        other => {
            notes.add(link_key!("ra_mode"), format!("Envoy waits a Retry-After times U[1, 1.5) in whole ms, dropping one over max_interval (ra_mode=envoy): ra_mode={other} is written as Envoy's, with its 300 s"));
            Micros::from_secs(300)
        }
    };
    if max > Micros::ZERO {
        t.push_str(&format!("    rate_limited_retry_back_off:\n      reset_headers:\n      - name: Retry-After\n        format: SECONDS\n      max_interval: {}\n", proto_secs(max)));
    }
    yaml_notes(&mut t, notes);
    Ok(t)
}
