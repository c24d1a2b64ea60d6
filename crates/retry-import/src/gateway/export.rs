//! A link's policy as a Gateway API HTTPRoute rule's `retry` and `timeouts`.

use crate::write::{get, go_duration, http_statuses, yaml_header, yaml_notes, Notes};
use crate::ImportError;
use retry_model::link_key;
use retry_model::{Micros, Params};

/// The HTTPRoute.
pub(crate) fn export(p: &Params, notes: &mut Notes) -> Result<String, ImportError> {
    let pol = &p.policy;
    let b = &pol.backoff;
    let kind = get(p, link_key!("backoff"));
    // Istio and Envoy Gateway hand `backoff` to Envoy as its base interval: full jitter in
    // whole ms, capped at 10 x base.
    let envoy = kind == "full" && b.whole_ms && b.cap == Micros(b.base.0.saturating_mul(10));
    let backoff = match kind.as_str() {
        _ if envoy => Some(b.base),
        "none" => {
            notes.add(link_key!("backoff"), "Istio and Envoy Gateway wait U[0, 25 ms x 2^(n-1)) with no backoff set: the policy's immediate retries are not what they run");
            None
        }
        _ => {
            notes.add(link_key!("backoff"), format!("Istio and Envoy Gateway use backoff as the base of Envoy's full jitter (cap 10 x base): backoff={kind} is written as its base"));
            Some(b.base.max(Micros(1_000)))
        }
    };
    if get(p, link_key!("budget")) != "none" {
        notes.add(
            link_key!("budget"),
            "Gateway API's retry budget is an XBackendTrafficPolicy, per backend: not written",
        );
    }
    if get(p, link_key!("ra_mode")) != "ignore" {
        notes.add(
            link_key!("ra_mode"),
            "Gateway API does not say how Retry-After is read: not written",
        );
    }
    let codes = http_statuses(p, notes, (400, 599));
    let mut t = yaml_header(p, notes);
    t.push_str("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: service\nspec:\n  parentRefs:\n  - name: gateway\n  rules:\n  - backendRefs:\n    - name: service\n      port: 80\n    retry:\n");
    t.push_str(&format!("      attempts: {}\n", pol.max_attempts - 1));
    if !codes.is_empty() {
        t.push_str(&format!("      codes: [{}]\n", codes.join(", ")));
    }
    if let Some(w) = backoff {
        t.push_str(&format!(
            "      backoff: {}\n",
            go_duration(w.max(Micros(1_000)))
        ));
    }
    t.push_str(&format!(
        "    timeouts:\n      backendRequest: {}\n",
        go_duration(pol.attempt_timeout)
    ));
    if let Some(d) = pol.deadline {
        t.push_str(&format!("      request: {}\n", go_duration(d)));
    }
    if get(p, link_key!("fit")) == "full" && pol.deadline.is_some() {
        notes.add(link_key!("fit"), "a gateway retries while the request timeout has not passed, cutting the last attempt short (fit=cut)");
    }
    yaml_notes(&mut t, notes);
    Ok(t)
}
