//! A link written as an Istio VirtualService's `timeout` and `retries`.

use crate::envoy::{conditions_for, envoy_backoff, proxy_notes};
use crate::write::{get, go_duration, yaml_header, yaml_notes, Notes};
use crate::ImportError;
use retry_model::{link_key, Micros, Params};

/// An Istio VirtualService with one `http` route's `timeout` and `retries`.
pub(crate) fn export(p: &Params, notes: &mut Notes) -> Result<String, ImportError> {
    let pol = &p.policy;
    let (base, cap) = envoy_backoff(p, notes)?;
    if cap != Micros(base.0.saturating_mul(10)) {
        notes.add(link_key!("cap"), "Istio sets only the base; Envoy's cap is then 10 x base, so the link's cap is not written");
    }
    let (tokens, codes) = conditions_for(p, notes);
    proxy_notes(p, notes, true);
    if get(p, link_key!("ra_mode")) != "ignore" {
        notes.add(
            link_key!("ra_mode"),
            "Istio does not expose Envoy's Retry-After backoff: the header is ignored",
        );
    }
    if pol.attempt_timeout < Micros(1_000) {
        return Err(ImportError::new(
            "attempt_timeout",
            "Istio's perTryTimeout is at least 1 ms",
        ));
    }
    let mut retry_on: Vec<String> = tokens.iter().map(|t| t.to_string()).collect();
    retry_on.extend(codes.iter().map(u16::to_string));
    let mut t = yaml_header(p, notes);
    t.push_str("apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: service\nspec:\n  hosts:\n  - service\n  http:\n  - route:\n    - destination:\n        host: service\n");
    if let Some(d) = pol.deadline {
        t.push_str(&format!("    timeout: {}\n", go_duration(d)));
    }
    t.push_str(&format!(
        "    retries:\n      attempts: {}\n",
        pol.max_attempts.saturating_sub(1)
    ));
    t.push_str(&format!(
        "      perTryTimeout: {}\n",
        go_duration(pol.attempt_timeout)
    ));
    t.push_str(&format!(
        "      retryOn: \"{}\"\n      backoff: {}\n",
        retry_on.join(","),
        go_duration(base)
    ));
    yaml_notes(&mut t, notes);
    Ok(t)
}
