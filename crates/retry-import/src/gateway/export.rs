//! A link's policy as a Gateway API HTTPRoute rule's `retry` and `timeouts`.

use crate::export::{get, go_duration, http_statuses, yaml_header, yaml_notes, Notes};
use crate::ImportError;
use retry_model::{Jitter, Micros, Params};

/// The HTTPRoute.
pub(crate) fn export(p: &Params, notes: &mut Notes) -> Result<String, ImportError> {
    let pol = &p.policy;
    let b = &pol.backoff;
    let kind = get(p, "backoff");
    let backoff = match kind.as_str() {
        "none" => None,
        "constant" if b.jitter == Jitter::None => Some(b.base.min(b.cap)),
        _ => {
            notes.add("backoff", format!("Gateway API sets only the least wait before a retry: backoff={kind} is written as its base, which the implementation may grow"));
            Some(b.base.max(Micros(1_000)))
        }
    };
    if get(p, "budget") != "none" {
        notes.add(
            "budget",
            "Gateway API's retry budget is an XBackendTrafficPolicy, per backend: not written",
        );
    }
    if get(p, "ra_mode") != "ignore" {
        notes.add(
            "ra_mode",
            "Gateway API does not say how Retry-After is read: not written",
        );
    }
    let codes = http_statuses(p, notes, (400, 599));
    let mut t = yaml_header(p, "gateway-api");
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
    if get(p, "fit") == "full" && pol.deadline.is_some() {
        notes.add("fit", "a gateway retries while the request timeout has not passed, cutting the last attempt short (fit=cut)");
    }
    yaml_notes(&mut t, notes);
    Ok(t)
}
