//! `retrylab export`: a link's policy written as a format's configuration, the reverse of
//! `import`. What the format cannot say comes back as a note on the key (and, in YAML, as a
//! comment); a key with nothing close in the format is refused by name. For each format,
//! importing what is exported gives the link's schedule back (the same retries, ranges and
//! timeouts) whenever no note was needed.

use crate::{short, ImportError, Note};
use retry_model::{Micros, Params};
use serde_json::{json, Value};

/// The formats written, by the name `--to` takes: every format read.
pub const EXPORT_FORMATS: &[&str] = crate::FORMATS;

/// A configuration written from a link.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Exported {
    /// The format written.
    pub format: &'static str,
    /// The configuration, as a file holds it.
    pub text: String,
    /// What the format cannot express of the link, each on its key.
    pub notes: Vec<Note>,
}

/// The notes an export gathers.
#[derive(Default)]
pub(crate) struct Notes(pub(crate) Vec<Note>);

impl Notes {
    /// Adds a note on `key`; a key already noted keeps its first note.
    pub(crate) fn add(&mut self, key: &str, text: impl Into<String>) {
        // An export's note is on a link key already.
        let key = retry_model::link_keys::key(key).map_or("", |row| row.name);
        if !key.is_empty() && self.0.iter().any(|n| n.key == key) {
            return;
        }
        self.0.push(Note {
            field: key.to_string(),
            text: text.into(),
            key,
        });
    }
}

/// Writes the policy of `link` as format `to` (one of [`EXPORT_FORMATS`]).
pub fn export(link: &str, to: &str) -> Result<Exported, ImportError> {
    let p: Params = link
        .parse()
        .map_err(|e: retry_model::ConfigError| ImportError::new("link", e.to_string()))?;
    // A file holds one policy: a comparison's two sides, or a stack's layers, are not one.
    if p.compare.is_some() {
        return Err(ImportError::new("b.", "this link compares two sides: a configuration holds one policy, so export each side's own link (side B's keys without their b.)"));
    }
    if p.sim.kind() == Some(retry_model::sim::ScenarioKind::Layers) {
        return Err(ImportError::new("layers", "this link stacks layers, each with its own attempts and lN. keys: a configuration holds one layer's policy, so export a link without scenario=layers for each"));
    }
    let mut notes = Notes::default();
    if p.policy.backoff.whole_ms && !matches!(to, "envoy" | "istio" | "gateway-api") {
        notes.add(
            "whole_ms",
            "the format draws finer than whole milliseconds: whole_ms is not written",
        );
    }
    // Polly and tenacity write a linear wait (equal steps summed) and note any other sum.
    if p.policy.backoff.ceiling_sum && !matches!(to, "polly" | "tenacity") {
        notes.add(
            "ceiling_sum",
            "the format's waits grow by the multiplier, not as a sum of the steps so far: ceiling_sum is not written, so each wait is the last step alone",
        );
    }
    shaping_notes(&p, to, &mut notes);
    let (format, text) = match to {
        "grpc" => ("grpc", grpc(&p, &mut notes)?),
        "envoy" => ("envoy", envoy(&p, &mut notes)?),
        "istio" => ("istio", istio(&p, &mut notes)?),
        "linkerd" => ("linkerd", crate::linkerd::export(&p, &mut notes)?),
        "gateway-api" => ("gateway-api", crate::gateway::export(&p, &mut notes)?),
        "spring-gateway" => (
            "spring-gateway",
            crate::spring_gateway::export(&p, &mut notes)?,
        ),
        "resilience4j" => ("resilience4j", crate::resilience4j::export(&p, &mut notes)?),
        "polly" => ("polly", crate::polly::export(&p, &mut notes)?),
        "aws" => ("aws", crate::aws::export(&p, &mut notes)?),
        "tenacity" => ("tenacity", crate::tenacity::export(&p, &mut notes)?),
        _ => {
            return Err(ImportError::new(
                "--to",
                format!(
                    "'{}' is not a format written here: accepted {}",
                    short(to),
                    EXPORT_FORMATS.join(", ")
                ),
            ))
        }
    };
    Ok(Exported {
        format,
        text,
        notes: notes.0,
    })
}

/// Notes for the backoff's shaping keys no format here writes (or, for `floor`, only some):
/// named, never dropped, so the file's waits are known to differ.
fn shaping_notes(p: &Params, to: &str, notes: &mut Notes) {
    let b = &p.policy.backoff;
    if b.sorted {
        notes.add("sorted", "the format draws each wait when it is due, not up front smallest first: sorted is not written");
    }
    if b.first_wait_zero {
        notes.add("first_wait", "the format's first retry waits its backoff: first_wait=0 (a first retry at once) is not written");
    }
    if b.multiplier_from_base {
        notes.add("multiplier_from_base", "the format's growth is its own multiplier, not the base in milliseconds: multiplier_from_base is not written, so the waits grow by the link's multiplier");
    }
    let writes_floor = matches!(to, "tenacity" | "grpc" | "envoy" | "istio");
    if b.floor != Micros::ZERO && !writes_floor {
        notes.add(
            "floor",
            "the format has no least wait: floor is not written, so a wait may be shorter",
        );
    }
}

/// The link's text for `key` (every policy key has one).
pub(crate) fn get(p: &Params, key: &str) -> String {
    p.get(key).unwrap_or_default()
}

/// A duration as proto3 JSON writes it: decimal seconds, `"0.1s"`.
fn proto_secs(m: Micros) -> String {
    let (s, us) = (m.0 / 1_000_000, m.0 % 1_000_000);
    if us == 0 {
        return format!("{s}s");
    }
    let frac = format!("{us:06}");
    format!("{s}.{}s", frac.trim_end_matches('0'))
}

/// A duration as Go writes it (Istio): `"100ms"`, `"2s"`, `"250us"`.
pub(crate) fn go_duration(m: Micros) -> String {
    match m.0 {
        us if us % 1_000_000 == 0 => format!("{}s", us / 1_000_000),
        us if us % 1_000 == 0 => format!("{}ms", us / 1_000),
        us => format!("{us}us"),
    }
}

/// Notes for the parts of the backoff every format here leaves out.
fn shape_notes(p: &Params, notes: &mut Notes) {
    let b = &p.policy.backoff;
    if b.first_exp != 0 {
        notes.add(
            "first_exp",
            "the format's first retry waits the base: first_exp is not written",
        );
    }
    if b.floor != Micros::ZERO {
        notes.add(
            "floor",
            "the format has no floor under the wait: it is not written",
        );
    }
    if b.throttle_base.is_some() {
        notes.add(
            "throttle_base",
            "the format has no separate base after a throttling answer: it is not written",
        );
    }
}

/// The statuses the policy retries that the lab's servers answer: 503 and 429, each `Some`
/// when retried.
fn retried(p: &Params) -> (bool, bool) {
    let s = &p.policy.statuses;
    if s.is_empty() {
        // The classifier decides: every one of them retries 503; the table and aws retry 429.
        let c = get(p, "classify");
        return (true, c == "table" || c == "aws" || c == "stripe");
    }
    (s.contains(503), s.contains(429))
}

/// The status the importers write as `retry_on` for a policy that retries no HTTP status (only
/// connection failures): no simulated server answers 501.
pub(crate) const NO_STATUS: u16 = 501;

/// The link's statuses as a proxy lists them (codes and ranges within `range`), the lab's
/// table when the link leaves it to its classifier, none for [`NO_STATUS`].
pub(crate) fn http_statuses(p: &Params, notes: &mut Notes, range: (u16, u16)) -> Vec<String> {
    let mut codes: Vec<u16> = p.policy.statuses.codes().collect();
    if codes == [NO_STATUS] {
        // The importers' mark for "connection failures only": no status is written.
        return Vec::new();
    }
    if codes.is_empty() {
        codes = if p.policy.operation.idempotent {
            vec![408, 429, 500, 502, 503, 504]
        } else {
            vec![408, 429, 503]
        };
        if get(p, "classify") != "table" {
            notes.add(
                "classify",
                "the proxy retries statuses, not a library's rules: the lab's table is written",
            );
        }
    }
    let outside = codes
        .iter()
        .filter(|c| **c < range.0 || **c > range.1)
        .count();
    if outside > 0 {
        notes.add(
            "retry_on",
            format!(
                "only statuses in [{}, {}] can be listed: {outside} left out",
                range.0, range.1
            ),
        );
    }
    codes.retain(|c| (range.0..=range.1).contains(c));
    codes.iter().map(u16::to_string).collect()
}

/// A gRPC service config: one default method config with `retryPolicy` (or `hedgingPolicy`),
/// `timeout`, and `retryThrottling` for `budget=grpc`.
fn grpc(p: &Params, notes: &mut Notes) -> Result<String, ImportError> {
    let pol = &p.policy;
    let mut entry = serde_json::Map::new();
    entry.insert("name".into(), json!([{}]));
    match pol.deadline {
        Some(d) => {
            entry.insert("timeout".into(), json!(proto_secs(d)));
            if pol.attempt_timeout < d {
                notes.add("attempt_timeout", "gRFC A6 has no per-attempt timeout (only grpc-java reads perAttemptRecvTimeout): each attempt may use the rest of the timeout");
            }
        }
        None => notes.add(
            "deadline",
            "no timeout written: the call's deadline is the application's",
        ),
    }
    if get(p, "fit") == "full" {
        notes.add("fit", "gRPC retries whenever the deadline has not passed, cutting the last attempt short (fit=cut)");
    }
    let hedge = p.sim.server().map(|s| s.hedge).filter(|h| h.on);
    let codes = grpc_codes(p, notes);
    if let Some(h) = hedge {
        entry.insert(
            "hedgingPolicy".into(),
            json!({"maxAttempts": h.max, "hedgingDelay": proto_secs(h.delay), "nonFatalStatusCodes": codes}),
        );
    } else if pol.max_attempts > 1 {
        entry.insert("retryPolicy".into(), grpc_retry(p, codes, notes)?);
    } else {
        notes.add("attempts", "one attempt: no retryPolicy is written");
    }
    let mut root = serde_json::Map::new();
    root.insert("methodConfig".into(), json!([Value::Object(entry)]));
    match get(p, "budget").as_str() {
        "grpc" => {
            root.insert("retryThrottling".into(), grpc_throttle(p, notes));
        }
        "none" => {}
        other => notes.add("budget", format!("gRPC's only budget is its retry throttle (budget=grpc): budget={other} is not written")),
    }
    serde_json::to_string_pretty(&Value::Object(root))
        .map(|t| t + "\n")
        .map_err(|e| ImportError::new("link", e.to_string()))
}

/// `retryThrottling`: C-core reads `maxTokens` as a whole number, so a fraction is rounded.
fn grpc_throttle(p: &Params, notes: &mut Notes) -> Value {
    let max = get(p, "grpc_max_tokens").parse::<f64>().unwrap_or(10.0);
    let whole = libm_round(max);
    if whole != max {
        notes.add(
            "grpc_max_tokens",
            format!("gRPC clients read maxTokens as a whole number: {max} is written as {whole}"),
        );
    }
    let ratio = get(p, "grpc_token_ratio").parse::<f64>().unwrap_or(0.1);
    json!({"maxTokens": whole as u64, "tokenRatio": ratio})
}

/// `v` to the nearest whole number, at least 1 (gRPC refuses 0 tokens).
fn libm_round(v: f64) -> f64 {
    (v + 0.5).floor().max(1.0)
}

/// A backoff duration as gRPC writes it: C-core reads whole milliseconds and refuses 0, so a
/// wait under a millisecond is written as one and a fraction of one is noted.
fn grpc_wait(key: &str, m: Micros, notes: &mut Notes) -> String {
    if !m.0.is_multiple_of(1_000) {
        let ms = (m.0 / 1_000).max(1);
        notes.add(
            key,
            format!("gRPC C-core reads whole milliseconds: {m} is written as {ms}ms"),
        );
        return proto_secs(Micros(ms * 1_000));
    }
    proto_secs(m)
}

/// The gRPC codes the policy retries, from the statuses the lab's servers answer.
fn grpc_codes(p: &Params, notes: &mut Notes) -> Vec<&'static str> {
    let (unavailable, exhausted) = retried(p);
    let mut codes = Vec::new();
    if unavailable {
        codes.push("UNAVAILABLE");
    }
    if exhausted {
        codes.push("RESOURCE_EXHAUSTED");
    }
    let others = p
        .policy
        .statuses
        .codes()
        .filter(|c| *c != 503 && *c != 429)
        .count();
    if others > 0 {
        notes.add("retry_on", "gRPC retries status codes, not HTTP statuses: only 503 (UNAVAILABLE) and 429 (RESOURCE_EXHAUSTED) are written");
    }
    if codes.is_empty() {
        codes.push("UNAVAILABLE");
        notes.add("retry_on", "the policy retries neither 503 nor 429: UNAVAILABLE is written, as gRPC needs one code");
    }
    codes
}

/// `retryPolicy`: exponential backoff (A6 draws its own +-20% jitter after the cap).
fn grpc_retry(p: &Params, codes: Vec<&str>, notes: &mut Notes) -> Result<Value, ImportError> {
    let b = &p.policy.backoff;
    let kind = get(p, "backoff");
    let multiplier = match kind.as_str() {
        "exponential" => b.multiplier,
        "constant" => 1.0,
        "full" => {
            notes.add("backoff", "gRPC clients since 2024 draw min(base x m^n, cap) x U(0.8, 1.2), not full jitter (clients before the 2024 revision drew full jitter)");
            b.multiplier
        }
        other => {
            return Err(ImportError::new(
                "backoff",
                format!("gRPC's backoff is exponential with +-20% jitter: backoff={other} has nothing close (use exponential, constant or full)"),
            ))
        }
    };
    if b.base == Micros::ZERO {
        return Err(ImportError::new(
            "base",
            "gRPC needs an initialBackoff above 0",
        ));
    }
    let a6 = kind != "full"
        && get(p, "jitter") == "mult"
        && get(p, "jitter_lo") == "0.8"
        && get(p, "jitter_hi") == "1.2"
        && b.jitter_after_cap;
    if kind != "full" && !a6 {
        notes.add("jitter", "gRPC draws its own jitter, U(0.8, 1.2) after the cap: the link's jitter is not written");
    }
    shape_notes(p, notes);
    let n = p.policy.max_attempts;
    if n > 5 {
        notes.add(
            "attempts",
            format!("gRPC clamps maxAttempts to 5 without an error: {n} is written as it is"),
        );
    }
    Ok(json!({
        "maxAttempts": n,
        "initialBackoff": grpc_wait("base", b.base, notes),
        "maxBackoff": grpc_wait("cap", b.cap, notes),
        "backoffMultiplier": multiplier,
        "retryableStatusCodes": codes,
    }))
}

/// Envoy's `retry_on` conditions for the policy's statuses, and the codes that need
/// `retriable-status-codes`. Connection failures are always among them: the lab retries them
/// whatever the policy.
fn conditions_for(p: &Params, notes: &mut Notes) -> (Vec<&'static str>, Vec<u16>) {
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
        if get(p, "classify") != "table" {
            notes.add("classify", "Envoy retries statuses, not a library's rules: the lab's table (408, 429, 503, and 500, 502, 504 when idempotent) is written");
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
        notes.add("idempotent", "Envoy's 5xx and gateway-error retry a timed-out attempt whatever the method, as if the operation were idempotent");
    }
    tokens.extend(["connect-failure", "refused-stream"]);
    (tokens, codes)
}

/// Envoy's backoff window for the policy: its base and cap, with notes where the policy's
/// shape differs from Envoy's full jitter. Refused when there is no wait to write.
fn envoy_backoff(p: &Params, notes: &mut Notes) -> Result<(Micros, Micros), ImportError> {
    let b = &p.policy.backoff;
    let kind = get(p, "backoff");
    if kind == "none" || b.base == Micros::ZERO {
        return Err(ImportError::new("backoff", "Envoy always waits a jittered backoff from a base above 0: a policy with no wait has nothing close"));
    }
    if kind != "full" {
        notes.add("backoff", format!("Envoy draws full jitter, U[0, min(base x 2^(n-1), max)): backoff={kind} is written as full jitter with the same base and cap"));
    } else if (b.multiplier - 2.0).abs() > f64::EPSILON {
        notes.add(
            "multiplier",
            "Envoy doubles its window each retry: the multiplier is not written",
        );
    } else if !b.whole_ms {
        notes.add(
            "whole_ms",
            "Envoy draws the wait in whole milliseconds (whole_ms=true), under 1 ms from the link's",
        );
    }
    shape_notes(p, notes);
    // Envoy's intervals are whole milliseconds, at least 1, and max_interval is at least the base.
    let base = b.base.max(Micros::from_millis(1));
    let cap = b.cap.max(base);
    if base != b.base || cap != b.cap {
        notes.add("cap", format!("Envoy's base_interval is at least 1 ms and max_interval at least the base: written as {base} and {cap}"));
    }
    Ok((base, cap))
}

/// Notes for what neither Envoy nor Istio can say of the policy.
fn proxy_notes(p: &Params, notes: &mut Notes) {
    if get(p, "fit") == "full" {
        notes.add("fit", "the proxy retries whenever the route timeout has not passed, cutting the last attempt short (fit=cut)");
    }
    match get(p, "budget").as_str() {
        "none" => {}
        // Envoy's default limit is the budget a route gets; another limit lives on the cluster.
        "envoy" if get(p, "envoy_max_retries") == "3" => {}
        "envoy" => notes.add("envoy_max_retries", format!("the limit on retries in flight is the cluster's: set circuit_breakers.thresholds[].max_retries: {} on it", get(p, "envoy_max_retries"))),
        "envoy_budget" => notes.add("budget", format!("the retry budget is the cluster's: set circuit_breakers.thresholds[].retry_budget: {{budget_percent: {{value: {}}}, min_retry_concurrency: {}}} on it (Istio: a DestinationRule's trafficPolicy.retryBudget)", get(p, "envoy_budget_percent"), get(p, "envoy_min_retry_concurrency"))),
        _ => notes.add("budget", "the proxy's retry budgets limit retries in flight per cluster (circuit_breakers, a DestinationRule), not per client: not written"),
    }
    if p.sim.server().is_some_and(|s| s.hedge.on) {
        notes.add("hedge", "Envoy hedges only when an attempt's per-try timeout passes: the link's hedging is not written");
    }
}

/// The header of a YAML export: where it came from.
pub(crate) fn yaml_header(p: &Params, to: &str) -> String {
    format!("# Written by `retrylab export --to {to}` from the link\n#   ?{p}\n")
}

/// The notes, as YAML comments at the end of the file.
pub(crate) fn yaml_notes(text: &mut String, notes: &Notes) {
    for n in &notes.0 {
        text.push_str(&format!("# not expressed: {}: {}\n", n.field, n.text));
    }
}

/// An Envoy route's action with its `timeout` and `retry_policy`.
fn envoy(p: &Params, notes: &mut Notes) -> Result<String, ImportError> {
    let pol = &p.policy;
    let (base, cap) = envoy_backoff(p, notes)?;
    let (mut tokens, codes) = conditions_for(p, notes);
    if !codes.is_empty() {
        tokens.push("retriable-status-codes");
    }
    proxy_notes(p, notes);
    let mut t = yaml_header(p, "envoy");
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
    let mode = get(p, "ra_mode");
    let max = match mode.as_str() {
        "envoy" => p.policy.ra_max,
        "ignore" => Micros::ZERO,
        other => {
            notes.add("ra_mode", format!("Envoy waits a Retry-After times U[1, 1.5) in whole ms, dropping one over max_interval (ra_mode=envoy): ra_mode={other} is written as Envoy's, with its 300 s"));
            Micros::from_secs(300)
        }
    };
    if max > Micros::ZERO {
        t.push_str(&format!("    rate_limited_retry_back_off:\n      reset_headers:\n      - name: Retry-After\n        format: SECONDS\n      max_interval: {}\n", proto_secs(max)));
    }
    yaml_notes(&mut t, notes);
    Ok(t)
}

/// An Istio VirtualService with one `http` route's `timeout` and `retries`.
fn istio(p: &Params, notes: &mut Notes) -> Result<String, ImportError> {
    let pol = &p.policy;
    let (base, cap) = envoy_backoff(p, notes)?;
    if cap != Micros(base.0.saturating_mul(10)) {
        notes.add("cap", "Istio sets only the base; Envoy's cap is then 10 x base, so the link's cap is not written");
    }
    let (tokens, codes) = conditions_for(p, notes);
    proxy_notes(p, notes);
    if get(p, "ra_mode") != "ignore" {
        notes.add(
            "ra_mode",
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
    let mut t = yaml_header(p, "istio");
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

#[cfg(test)]
mod tests;
