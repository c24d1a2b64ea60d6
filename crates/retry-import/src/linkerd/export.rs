//! A link's policy as Linkerd's retry and timeout annotations on an HTTPRoute.

use crate::write::{get, http_statuses, yaml_header, yaml_notes, Notes};
use crate::ImportError;
use retry_model::link_key;
use retry_model::Params;

/// The annotated HTTPRoute; or, for a policy whose retries only a ratio budget bounds, the
/// ServiceProfile that says so (the annotations have a limit and no budget).
pub(crate) fn export(p: &Params, notes: &mut Notes) -> Result<String, ImportError> {
    let pol = &p.policy;
    if get(p, link_key!("budget")) == "ratio" && pol.max_attempts >= 1000 {
        return Ok(profile(p, notes));
    }
    if get(p, link_key!("backoff")) != "none" {
        notes.add(
            link_key!("backoff"),
            "Linkerd has no backoff setting: each retry goes at once",
        );
    }
    if get(p, link_key!("budget")) != "none" {
        notes.add(
            link_key!("budget"),
            "the annotations have no retry budget (a legacy ServiceProfile has one): not written",
        );
    }
    if get(p, link_key!("ra_mode")) != "ignore" {
        notes.add(
            link_key!("ra_mode"),
            "Linkerd does not read Retry-After: not written",
        );
    }
    let codes = http_statuses(p, notes, (100, 599));
    let mut t = yaml_header(p, notes);
    t.push_str("kind: HTTPRoute\napiVersion: gateway.networking.k8s.io/v1\nmetadata:\n  name: service\n  annotations:\n");
    t.push_str(&format!(
        "    retry.linkerd.io/http: \"{}\"\n",
        ranges(&codes)
    ));
    t.push_str(&format!(
        "    retry.linkerd.io/limit: \"{}\"\n",
        pol.max_attempts - 1
    ));
    t.push_str(&format!(
        "    retry.linkerd.io/timeout: {}\n",
        crate::write::go_duration(pol.attempt_timeout)
    ));
    if let Some(d) = pol.deadline {
        t.push_str(&format!(
            "    timeout.linkerd.io/request: {}\n",
            crate::write::go_duration(d)
        ));
        if get(p, link_key!("fit")) == "full" {
            notes.add(link_key!("fit"), "Linkerd retries while the request timeout has not passed, cutting the last attempt short (fit=cut)");
        }
    }
    if get(p, link_key!("idempotent")) != "true" {
        notes.add(link_key!("idempotent"), "with retry.linkerd.io/timeout set, Linkerd retries a timed-out attempt whatever the method");
    }
    t.push_str("spec:\n  parentRefs:\n  - name: service\n    kind: Service\n    group: core\n    port: 80\n  rules:\n  - matches:\n    - path:\n        type: PathPrefix\n        value: /\n");
    yaml_notes(&mut t, notes);
    Ok(t)
}

/// Codes with their runs of three or more written as ranges (`500-599`), as Linkerd reads them.
fn ranges(codes: &[String]) -> String {
    let nums: Vec<u16> = codes.iter().filter_map(|c| c.parse().ok()).collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < nums.len() {
        let mut j = i;
        while j + 1 < nums.len() && nums[j + 1] == nums[j] + 1 {
            j += 1;
        }
        if j - i >= 2 {
            out.push(format!("{}-{}", nums[i], nums[j]));
        } else {
            out.extend(nums[i..=j].iter().map(u16::to_string));
        }
        i = j + 1;
    }
    out.join(",")
}

/// A ServiceProfile with one retryable route under the link's ratio budget and deadline.
fn profile(p: &Params, notes: &mut Notes) -> String {
    let pol = &p.policy;
    if get(p, link_key!("backoff")) != "none" {
        notes.add(
            link_key!("backoff"),
            "Linkerd has no backoff setting: each retry goes at once",
        );
    }
    let codes = http_statuses(p, notes, (100, 599));
    if ranges(&codes) != "500-599" {
        notes.add(
            link_key!("retry_on"),
            "a ServiceProfile retries 5xx answers only: the statuses are not written",
        );
    }
    let ratio: f64 = get(p, link_key!("ratio_percent")).parse().unwrap_or(20.0) / 100.0;
    let mut t = yaml_header(p, notes);
    t.push_str("apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata:\n  name: service.default.svc.cluster.local\nspec:\n  routes:\n  - name: all\n    condition:\n      pathRegex: \".*\"\n    isRetryable: true\n");
    if let Some(d) = pol.deadline {
        t.push_str(&format!("    timeout: {}\n", crate::write::go_duration(d)));
    }
    t.push_str(&format!(
        "  retryBudget:\n    retryRatio: {ratio}\n    minRetriesPerSecond: {}\n    ttl: {}\n",
        get(p, link_key!("ratio_min_per_s")),
        get(p, link_key!("ratio_window"))
    ));
    yaml_notes(&mut t, notes);
    t
}
