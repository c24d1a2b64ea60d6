//! Polly v8 and Microsoft.Extensions.Http.Resilience options as `appsettings.json` binds them:
//! a standard resilience handler's section (`Retry`, `AttemptTimeout`, `TotalRequestTimeout`,
//! `CircuitBreaker`) or a retry strategy's options alone. `MaxRetryAttempts` counts retries.
//! The HTTP package's defaults apply (exponential, jitter on, a 2 s delay, Retry-After
//! honoured, 10 s per attempt, 30 s in all); exponential with jitter is Polly's decorrelated
//! jitter V2, and a Retry-After is honoured in full, `MaxDelay` or not.

use crate::common::{object, Out};
use crate::formats::Format;
use crate::{short, yaml, ImportError, Imported, Options};
use retry_model::Micros;
use serde_json::{Map, Value};

mod export;
pub(crate) use export::export;

/// The standard handler's attempt and total timeouts.
const ATTEMPT: Micros = Micros::from_secs(10);
const TOTAL: Micros = Micros::from_secs(30);
/// `HttpClient.Timeout`, which bounds an attempt when no strategy does.
const CLIENT: Micros = Micros::from_secs(100);

/// The strategies of a standard resilience handler's options
/// (`HttpStandardResilienceOptions`).
const STANDARD: [&str; 5] = [
    "Retry",
    "AttemptTimeout",
    "TotalRequestTimeout",
    "CircuitBreaker",
    "RateLimiter",
];
/// The sections a pipeline of strategies is commonly bound from.
const PIPELINE: [&str; 6] = [
    "Retry",
    "Timeout",
    "CircuitBreaker",
    "RateLimiter",
    "AttemptTimeout",
    "TotalRequestTimeout",
];
/// The options of `HttpRetryStrategyOptions` a file can bind (the rest are code).
const RETRY_OPTIONS: [&str; 7] = [
    "MaxRetryAttempts",
    "BackoffType",
    "UseJitter",
    "Delay",
    "MaxDelay",
    "ShouldRetryAfterHeader",
    "Name",
];

/// Reads the first (or `--instance`) section with retry options.
pub(crate) fn import(text: &str, opts: &Options) -> Result<Imported, ImportError> {
    let docs = yaml::documents(&strip_comments(text))?;
    let doc = docs
        .first()
        .ok_or_else(|| ImportError::new("file", "empty"))?;
    let mut found = Vec::new();
    sections(doc, "", &mut found, 0);
    let names: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    let choice = crate::common::Choice {
        want: opts.instance.as_deref(),
        what: "section with retry options",
        none: (
            "file",
            "no Retry section and no MaxRetryAttempts, BackoffType or Delay: not Polly options",
        ),
    };
    // A section is named by its whole path or its last part.
    let named =
        |i: usize, want: &str| names[i] == want || names[i].rsplit(':').next() == Some(want);
    let (at, section) = &found[choice.pick(&names, named)?];
    let mut out = Out::default();
    if found.len() > 1 && opts.instance.is_none() {
        out.warn(
            at.as_str(),
            format!(
                "{} sections with retry options: took the first by name; pick another with --instance NAME",
                found.len()
            ),
        );
    }
    // A standard handler's section holds its five strategies only; a section with its own
    // `Timeout` (a pipeline built from configuration) is not one, and gets no standard default.
    let standard =
        section.contains_key("Retry") && section.keys().all(|k| STANDARD.contains(&k.as_str()));
    if section.contains_key("Retry") && !standard {
        crate::common::unknown_keys(section, &PIPELINE, &|k| field(at, k), &mut out);
    }
    let retry = match section.get("Retry") {
        Some(r) => object(r, &field(at, "Retry"))?,
        None => section,
    };
    let retry_at = if section.contains_key("Retry") {
        field(at, "Retry")
    } else {
        at.clone()
    };
    timeouts(section, at, standard, &mut out)?;
    policy(retry, &retry_at, &mut out)?;
    if let Some(cb) = section.get("CircuitBreaker") {
        breaker(
            object(cb, &field(at, "CircuitBreaker"))?,
            &field(at, "CircuitBreaker"),
            &mut out,
        )?;
    } else if standard {
        out.unsupported(field(at, "CircuitBreaker"), "absent: the standard handler still breaks at a 10% failure ratio over 30 s (100 calls at least) for 5 s; add the section to watch it in the outage");
    }
    out.set("budget", "none");
    out.finish(Format::Polly, at)
}

/// `at:key`, as .NET configuration names a nested key.
fn field(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_string()
    } else {
        format!("{at}:{key}")
    }
}

/// Every object holding retry options (a `Retry` object, or `MaxRetryAttempts`, `BackoffType`
/// or `Delay` beside each other), with its configuration path.
fn sections<'v>(
    v: &'v Value,
    at: &str,
    found: &mut Vec<(String, &'v Map<String, Value>)>,
    depth: usize,
) {
    let Some(map) = v.as_object() else { return };
    let retry_object = map.get("Retry").is_some_and(Value::is_object);
    let options = ["MaxRetryAttempts", "BackoffType"]
        .iter()
        .any(|k| map.contains_key(*k));
    if retry_object || options {
        found.push((at.to_string(), map));
        return;
    }
    if depth < 16 {
        for (k, child) in map {
            sections(child, &field(at, k), found, depth + 1);
        }
    }
}

/// JSON with `//` and `/* */` comments, as .NET's configuration reads it, without them.
fn strip_comments(text: &str) -> String {
    let (mut out, mut chars) = (String::with_capacity(text.len()), text.chars().peekable());
    let mut in_string = false;
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                in_string = !in_string;
                out.push(c);
            }
            '\\' if in_string => {
                out.push(c);
                out.extend(chars.next());
            }
            '/' if !in_string && chars.peek() == Some(&'/') => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if !in_string && chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = ' ';
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                    }
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// A .NET `TimeSpan` as configuration binds it: `[d.]hh:mm:ss[.fffffff]`.
pub(crate) fn timespan(v: &Value, field: &str) -> Result<Micros, ImportError> {
    let bad = || {
        ImportError::new(field, format!("'{}' is not a TimeSpan: expected hh:mm:ss such as \"00:00:02\" or \"00:00:00.500\"", short(&v.to_string())))
    };
    let s = v.as_str().ok_or_else(bad)?.trim();
    let (days, clock) = match s.split_once(':') {
        Some((head, _)) if head.contains('.') => {
            let (d, _) = head.split_once('.').ok_or_else(bad)?;
            (d.parse::<u64>().map_err(|_| bad())?, &s[d.len() + 1..])
        }
        _ => (0, s),
    };
    let parts: Vec<&str> = clock.split(':').collect();
    let [h, m, sec] = parts.as_slice() else {
        return Err(bad());
    };
    let (whole, frac) = sec.split_once('.').unwrap_or((sec, ""));
    let num = |t: &str, max: u64| t.parse::<u64>().ok().filter(|n| *n <= max && !t.is_empty());
    let (h, m, whole) = (
        num(h, 23).ok_or_else(bad)?,
        num(m, 59).ok_or_else(bad)?,
        num(whole, 59).ok_or_else(bad)?,
    );
    if frac.len() > 7 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let us_frac: u64 = frac
        .bytes()
        .take(6)
        .enumerate()
        .map(|(i, b)| u64::from(b - b'0') * 10u64.pow(5 - i as u32))
        .sum();
    let secs = ((days * 24 + h) * 60 + m) * 60 + whole;
    secs.checked_mul(1_000_000)
        .map(|us| Micros(us + us_frac))
        .ok_or_else(bad)
}

/// `AttemptTimeout` and `TotalRequestTimeout` (the standard handler's, defaults included).
fn timeouts(
    section: &Map<String, Value>,
    at: &str,
    standard: bool,
    out: &mut Out,
) -> Result<(), ImportError> {
    let read = |key: &str, default: Micros| -> Result<Micros, ImportError> {
        match section
            .get(key)
            .map(|t| object(t, &field(at, key)))
            .transpose()?
            .and_then(|t| t.get("Timeout"))
        {
            Some(v) => timespan(v, &field(at, &format!("{key}:Timeout"))),
            None => Ok(default),
        }
    };
    if !standard {
        if let Some(t) = section.get("Timeout") {
            return pipeline_timeout(t, &field(at, "Timeout"), out);
        }
    }
    let attempt = read("AttemptTimeout", if standard { ATTEMPT } else { CLIENT })?;
    if !standard && !section.contains_key("AttemptTimeout") {
        out.unsupported(field(at, "AttemptTimeout"), "absent: a retry strategy alone has no attempt timeout, so HttpClient's own 100 s (HttpClient.Timeout, outside the resilience handler) bounds the whole request, every attempt and wait included");
    }
    if section.contains_key("RateLimiter") {
        out.unsupported(
            field(at, "RateLimiter"),
            "a concurrency limit on the client's requests: not modelled",
        );
    }
    // HttpClient.Timeout (100 s) sits outside the handler: without a total timeout of the
    // handler's own, it is the deadline.
    let total = if standard || section.contains_key("TotalRequestTimeout") {
        Some(read("TotalRequestTimeout", TOTAL)?)
    } else {
        Some(CLIENT)
    };
    if attempt == Micros::ZERO || total == Some(Micros::ZERO) {
        return Err(ImportError::new(
            field(at, "AttemptTimeout:Timeout"),
            "a timeout of 0: Polly's timeouts are above 0",
        ));
    }
    if total.is_some_and(|t| attempt > t) {
        out.warn(field(at, "AttemptTimeout:Timeout"), "longer than TotalRequestTimeout: the standard handler's validation refuses it at startup");
    }
    out.set("attempt_timeout", attempt.to_string());
    out.set(
        "deadline",
        total.map_or_else(|| String::from("none"), |t| t.to_string()),
    );
    out.set("fit", "cut");
    Ok(())
}

/// A pipeline's own `Timeout` section (`TimeoutStrategyOptions`, 30 s when its `Timeout` is
/// absent): the order of the strategies is set in code, so it is read as the outer timeout
/// over every attempt, with a warning that an inner one bounds each attempt instead.
fn pipeline_timeout(t: &Value, at: &str, out: &mut Out) -> Result<(), ImportError> {
    let t = object(t, at)?;
    let d = match t.get("Timeout") {
        Some(v) => timespan(v, &format!("{at}:Timeout"))?,
        None => {
            out.set_default("deadline", TOTAL.to_string(), "TimeoutStrategyOptions'");
            TOTAL
        }
    };
    if d == Micros::ZERO {
        return Err(ImportError::new(
            format!("{at}:Timeout"),
            "a timeout of 0: Polly's timeouts are above 0",
        ));
    }
    out.warn(at, "a pipeline's own Timeout: read as the timeout over every attempt (added before the Retry in code); added after it, it bounds each attempt instead");
    out.set("attempt_timeout", d.to_string());
    out.set("deadline", d.to_string());
    out.set("fit", "cut");
    Ok(())
}

/// The retry strategy's options.
fn policy(r: &Map<String, Value>, at: &str, out: &mut Out) -> Result<(), ImportError> {
    let f = |k: &str| field(at, k);
    crate::common::unknown_keys(r, &RETRY_OPTIONS, &|k| field(at, k), out);
    let n = match r.get("MaxRetryAttempts") {
        Some(v) => v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok())).filter(|n| (1..=999).contains(n)).ok_or_else(|| ImportError::new(f("MaxRetryAttempts"), format!("'{}' is not a whole number in [1, 999] (Polly needs at least 1; the lab runs at most 1000 attempts)", short(&v.to_string()))))?,
        None => 3,
    };
    out.warn(
        f("MaxRetryAttempts"),
        format!("counts retries: {n} retries are {} attempts", n + 1),
    );
    out.set("attempts", (n + 1).to_string());
    let kind = r
        .get("BackoffType")
        .map_or(Some("Exponential"), Value::as_str)
        .unwrap_or("?");
    let jitter = match r.get("UseJitter") {
        None => true,
        Some(Value::Bool(b)) => *b,
        Some(v) => {
            return Err(ImportError::new(
                f("UseJitter"),
                format!("'{v}' is not true or false"),
            ))
        }
    };
    let delay = r
        .get("Delay")
        .map(|d| timespan(d, &f("Delay")))
        .transpose()?
        .unwrap_or(Micros::from_secs(2));
    let cap = r
        .get("MaxDelay")
        .map(|d| timespan(d, &f("MaxDelay")))
        .transpose()?;
    backoff(kind, jitter, delay, cap, at, out)?;
    let honour = !matches!(r.get("ShouldRetryAfterHeader"), Some(Value::Bool(false)));
    if honour {
        out.set("ra_mode", "server");
        out.warn(f("ShouldRetryAfterHeader"), "a Retry-After is waited in full: MaxDelay does not cap it, so only the total timeout ends a long one (and the caller then sees a timeout, not the 429)");
    } else {
        out.set("ra_mode", "ignore");
    }
    out.set("classify", "table");
    out.set("retry_on", "408,429,500-599");
    out.set("idempotent", "true");
    out.warn(at, "the HTTP handler retries 408, 429, every 5xx, connection failures and timed-out attempts whatever the method: a POST is repeated");
    Ok(())
}

/// `BackoffType`, `UseJitter`, `Delay` and `MaxDelay` as the lab's backoff keys.
fn backoff(
    kind: &str,
    jitter: bool,
    delay: Micros,
    cap: Option<Micros>,
    at: &str,
    out: &mut Out,
) -> Result<(), ImportError> {
    if delay == Micros::ZERO {
        out.set("backoff", "none");
        return Ok(());
    }
    if delay > Micros::from_secs(86_400) {
        return Err(ImportError::new(
            field(at, "Delay"),
            "over a day: Polly's Delay is in [0, 1 day]",
        ));
    }
    let top = cap
        .unwrap_or(Micros::from_secs(86_400))
        .min(Micros::from_secs(86_400))
        .max(Micros(1));
    match (kind, jitter) {
        ("Constant", false) => out.set("backoff", "constant"),
        ("Constant", true) => {
            out.set("backoff", "constant");
            out.set("jitter", "mult");
            out.set("jitter_lo", "0.75");
            out.set("jitter_hi", "1.25");
        }
        ("Exponential", false) => {
            out.set("backoff", "exponential");
            out.set("multiplier", "2");
        }
        ("Exponential", true) => out.set("backoff", "decorrelated-v2"),
        // (n + 1) x Delay: the sum of n + 1 equal steps.
        ("Linear", jitter) => {
            out.set("backoff", "exponential");
            out.set("multiplier", "1");
            out.set("ceiling_sum", "true");
            if jitter {
                out.set("jitter", "mult");
                out.set("jitter_lo", "0.75");
                out.set("jitter_hi", "1.25");
            }
        }
        (other, _) => {
            return Err(ImportError::new(
                field(at, "BackoffType"),
                format!(
                    "'{}' is not a backoff type: accepted Constant, Linear, Exponential",
                    short(other)
                ),
            ))
        }
    }
    if cap.is_none() && kind != "Constant" {
        out.warn(
            field(at, "MaxDelay"),
            format!(
                "absent: nothing caps the {} wait; the lab caps it at 24 h",
                kind.to_lowercase()
            ),
        );
    }
    // A fixed wait has no cap of its own: its top is its spread's, unless MaxDelay is lower.
    let spread_top = if jitter {
        Micros(delay.0 + delay.0 / 4)
    } else {
        delay
    };
    let top = if kind == "Constant" {
        cap.unwrap_or(spread_top).max(Micros(1))
    } else {
        top
    };
    out.set("base", delay.min(top).to_string());
    out.set("cap", top.to_string());
    Ok(())
}

/// `CircuitBreaker`: Polly's defaults written out; one probe closes it.
fn breaker(cb: &Map<String, Value>, at: &str, out: &mut Out) -> Result<(), ImportError> {
    let f = |k: &str| field(at, k);
    out.warn(
        at,
        "a circuit breaker acts across requests: the link opens the outage scenario to show it",
    );
    out.set("scenario", "outage");
    out.set("breaker", "on");
    let ratio = match cb.get("FailureRatio") {
        Some(v) => v
            .as_f64()
            .filter(|r| (0.01..=1.0).contains(r))
            .ok_or_else(|| {
                ImportError::new(
                    f("FailureRatio"),
                    format!("'{v}' is not a ratio in [0.01, 1] the lab runs"),
                )
            })?,
        None => 0.1,
    };
    out.set(
        "breaker_failures",
        format!("{}", (ratio * 100.0).round() as u64),
    );
    let calls = cb
        .get("MinimumThroughput")
        .map_or(Some(100), Value::as_u64)
        .filter(|n| (2..=1_000_000).contains(n))
        .ok_or_else(|| {
            ImportError::new(f("MinimumThroughput"), "not a whole number in [2, 1000000]")
        })?;
    out.set("breaker_min_calls", calls.to_string());
    let window = cb
        .get("SamplingDuration")
        .map(|v| timespan(v, &f("SamplingDuration")))
        .transpose()?
        .unwrap_or(Micros::from_secs(30));
    if window.0 % 1_000_000 != 0 || !(1..=600).contains(&(window.0 / 1_000_000)) {
        return Err(ImportError::new(
            f("SamplingDuration"),
            format!("{window}: the lab's window is whole seconds in [1, 600]"),
        ));
    }
    out.set("breaker_window", window.to_string());
    let open = cb
        .get("BreakDuration")
        .map(|v| timespan(v, &f("BreakDuration")))
        .transpose()?
        .unwrap_or(Micros::from_secs(5));
    out.set("breaker_open", open.to_string());
    out.set("breaker_probes", "1");
    Ok(())
}

#[cfg(test)]
mod tests;
