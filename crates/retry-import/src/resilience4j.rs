//! resilience4j's Spring Boot configuration (`application.yml`): a `resilience4j.retry`
//! instance, its `baseConfig` (or `configs.default`), and the `resilience4j.circuitbreaker`
//! instance of the same name. `maxAttempts` counts every attempt. The wait follows
//! resilience4j's own rule for which flags it reads: they count only when `waitDuration` is set
//! on the instance, the cap only when both the multiplier and the random factor are set, and the
//! random factor only with the multiplier; otherwise 1.5 and 0.5 apply and nothing caps the
//! wait. Spring's relaxed binding is read: `max-attempts` is `maxAttempts`.

use crate::common::{object, Out};
use crate::formats::Format;
use crate::{short, yaml, ImportError, Imported, Options};
use retry_model::Micros;
use serde_json::Value;

mod breaker;
mod export;
mod wait;
pub(crate) use export::export;

/// Reads one retry instance.
/// The properties of a retry instance (resilience4j-framework-common
/// `CommonRetryConfigurationProperties.InstanceProperties`, 2.x, with 1.x's `maxRetryAttempts`).
const INSTANCE_KEYS: &[&str] = &[
    "maxAttempts",
    "maxRetryAttempts",
    "waitDuration",
    "baseConfig",
    "retryExceptionPredicate",
    "resultPredicate",
    "retryExceptions",
    "ignoreExceptions",
    "enableExponentialBackoff",
    "exponentialBackoffMultiplier",
    "exponentialMaxWaitDuration",
    "enableRandomizedWait",
    "randomizedWaitFactor",
    "failAfterMaxAttempts",
    "intervalBiFunction",
    "eventConsumerBufferSize",
    "consumeResultBeforeRetryAttempt",
    "writableStackTraceEnabled",
    "enableIntervalBiFunction",
];

pub(crate) fn import(text: &str, opts: &Options) -> Result<Imported, ImportError> {
    let docs: Vec<Value> = yaml::documents(text)?.into_iter().map(expand).collect();
    let root = docs
        .iter()
        .find_map(|d| read(d, "resilience4j"))
        .ok_or_else(|| {
            ImportError::new(
                "resilience4j",
                "absent: no resilience4j section in the file",
            )
        })?;
    let retry = read(root, "retry")
        .ok_or_else(|| ImportError::new("resilience4j.retry", "absent: no retry configuration"))?;
    let mut out = Out::default();
    let release = crate::release::choose(
        Format::Resilience4j.name(),
        opts.release.as_deref(),
        shape(retry),
    )?;
    out.use_release(release);
    let v1 = release.name == "1";
    let (name, inst, count) = instance(retry, opts, v1)?;
    let group = if v1 && read(retry, "instances").is_none() {
        "backends"
    } else {
        "instances"
    };
    let at = format!("resilience4j.retry.{group}.{name}");
    let base = base_config(retry, inst, &at)?;
    if shape(retry).is_some() {
        let how = if v1 {
            "so the import applies resilience4j 1.x's rules"
        } else {
            "which resilience4j 2.x no longer reads: it is ignored, as 2.x ignores it"
        };
        out.warn(&at, format!("the file is written for resilience4j 1.x (maxRetryAttempts or backends, both removed in 2.0), {how}"));
    }
    if count > 1 && opts.instance.is_none() {
        out.warn(
            &at,
            format!("{count} retry instances: took the first by name; pick another with --instance NAME"),
        );
    }
    let field = |k: &str| format!("{at}.{k}");
    // CommonRetryConfigurationProperties.InstanceProperties: Spring's binder ignores another key.
    if let Some(m) = inst.as_object() {
        crate::common::unknown_keys(m, INSTANCE_KEYS, &field, &mut out);
    }
    let key = |k: &str| read(inst, k).or_else(|| base.and_then(|b| read(b, k)));
    max_attempts(key, v1, release.label, &field, &mut out)?;
    out.set("deadline", "none");
    out.set_default(
        "attempt_timeout",
        crate::common::NO_TIMEOUT.to_string(),
        "resilience4j's (a retry has no attempt timeout: an attempt runs until the call's own timeout or a TimeLimiter ends it; the link waits 24 h)",
    );
    out.unsupported(&at, "resilience4j's retry has no timeout of its own (a TimeLimiter is separate): an attempt that hangs is never cut, and there is no deadline");
    wait::wait(inst, base, &at, &mut out)?;
    exceptions(inst, &at, &mut out);
    out.set("ra_mode", "ignore");
    out.set("budget", "none");
    if let Some(breakers) = read(root, "circuitbreaker") {
        if let Some(cb) = read(breakers, "instances").and_then(|i| read(i, &name)) {
            let cb_at = format!("resilience4j.circuitbreaker.instances.{name}");
            let cb_base = base_config(breakers, cb, &cb_at)?;
            breaker::breaker(cb, cb_base, &cb_at, &mut out)?;
        }
    }
    out.finish(Format::Resilience4j, &at)
}

/// `maxAttempts` (or 1.x's deprecated `maxRetryAttempts`), total attempts, 3 when absent;
/// `key` reads a key of the instance or its base config.
fn max_attempts<'v>(
    key: impl Fn(&str) -> Option<&'v Value>,
    v1: bool,
    release: &str,
    field: &dyn Fn(&str) -> String,
    out: &mut Out,
) -> Result<(), ImportError> {
    let legacy = key("maxRetryAttempts").filter(|_| v1 && key("maxAttempts").is_none());
    let attempts = match (key("maxAttempts"), legacy) {
        (Some(v), _) => attempts(v, &field("maxAttempts"))?,
        (None, Some(v)) => attempts(v, &field("maxRetryAttempts"))?,
        (None, None) => {
            out.set_default("attempts", "3", &format!("{release}'s"));
            3
        }
    };
    out.warn(
        field("maxAttempts"),
        format!(
            "counts every attempt, the first included: {attempts} attempts are {} retries",
            attempts - 1
        ),
    );
    out.set("attempts", attempts.to_string());
    Ok(())
}

/// Key `key` of a mapping, by Spring's relaxed binding (`max-attempts`, `max_attempts` and
/// `maxAttempts` are one key).
pub(crate) fn read<'v>(v: &'v Value, key: &str) -> Option<&'v Value> {
    let want = relaxed(key);
    v.as_object()?
        .iter()
        .find(|(k, _)| relaxed(k) == want)
        .map(|(_, v)| v)
}

/// A document with Spring's dotted keys nested: `resilience4j.retry: {...}` is
/// `resilience4j: {retry: {...}}`.
fn expand(v: Value) -> Value {
    let Value::Object(map) = v else { return v };
    let mut out = serde_json::Map::new();
    for (k, v) in map {
        let v = expand(v);
        let mut parts = k.rsplit('.');
        let last = parts.next().unwrap_or_default().to_string();
        let nested = parts.fold((last, v), |(key, v), outer| {
            let mut m = serde_json::Map::new();
            m.insert(key, v);
            (outer.to_string(), Value::Object(m))
        });
        merge(&mut out, nested.0, nested.1);
    }
    Value::Object(out)
}

/// Puts `v` at `key`, merging mappings that meet.
fn merge(into: &mut serde_json::Map<String, Value>, key: String, v: Value) {
    match (into.get_mut(&key), v) {
        (Some(Value::Object(old)), Value::Object(new)) => {
            for (k, v) in new {
                merge(old, k, v);
            }
        }
        (_, v) => {
            into.insert(key, v);
        }
    }
}

/// A key as Spring compares it: lower case, without `-` and `_`.
fn relaxed(key: &str) -> String {
    key.chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// `Some("1")` when the retry section is written for resilience4j 1.x: a `backends` group or a
/// `maxRetryAttempts` anywhere in it, both removed in 2.0.
fn shape(retry: &Value) -> Option<&'static str> {
    fn has_key(v: &Value, key: &str) -> bool {
        match v {
            Value::Object(m) => m
                .iter()
                .any(|(k, v)| relaxed(k) == relaxed(key) || has_key(v, key)),
            Value::Null
            | Value::Bool(_)
            | Value::Number(_)
            | Value::String(_)
            | Value::Array(_) => false,
        }
    }
    (read(retry, "backends").is_some() || has_key(retry, "maxRetryAttempts")).then_some("1")
}

/// The instance on `--instance`, else the first by name (YAML mappings are read sorted); with
/// how many there are. Under 1.x rules, a `backends` group stands for `instances`.
fn instance<'v>(
    retry: &'v Value,
    opts: &Options,
    v1: bool,
) -> Result<(String, &'v Value, usize), ImportError> {
    let group = read(retry, "instances").or_else(|| v1.then(|| read(retry, "backends")).flatten());
    let instances = match group {
        Some(i) => object(i, "resilience4j.retry.instances")?.iter().collect(),
        None => Vec::new(),
    };
    let count = instances.len();
    let names: Vec<&str> = instances.iter().map(|(n, _)| n.as_str()).collect();
    let choice = crate::common::Choice {
        want: opts.instance.as_deref(),
        what: "retry instance",
        none: (
            "resilience4j.retry.instances",
            "absent: no retry instance to read",
        ),
    };
    let found = instances[choice.pick(&names, |i, want| names[i] == want)?];
    Ok((found.0.to_string(), found.1, count))
}

/// The config an instance inherits: its `baseConfig`, else `configs.default` when there is one.
fn base_config<'v>(
    retry: &'v Value,
    inst: &'v Value,
    at: &str,
) -> Result<Option<&'v Value>, ImportError> {
    let configs = read(retry, "configs");
    match read(inst, "baseConfig") {
        Some(Value::String(name)) => {
            configs
                .and_then(|c| read(c, name))
                .map(Some)
                .ok_or_else(|| {
                    ImportError::new(
                        format!("{at}.baseConfig"),
                        format!(
                            "'{}' is not among the configs beside the instances",
                            short(name)
                        ),
                    )
                })
        }
        Some(other) => Err(ImportError::new(
            format!("{at}.baseConfig"),
            format!(
                "expected a config's name, found {}",
                crate::common::kind(other)
            ),
        )),
        None => Ok(configs.and_then(|c| read(c, "default"))),
    }
}

/// `maxAttempts`: a whole number in [1, 1000].
fn attempts(v: &Value, field: &str) -> Result<u64, ImportError> {
    let n = v
        .as_u64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()));
    n.filter(|n| (1..=1000).contains(n)).ok_or_else(|| {
        ImportError::new(
            field,
            format!(
                "'{}' is not a whole number of attempts in [1, 1000]",
                short(&v.to_string())
            ),
        )
    })
}

/// What is retried: every exception unless the instance lists them, which the lab cannot read.
fn exceptions(inst: &Value, at: &str, out: &mut Out) {
    out.set("classify", "table");
    out.set("retry_on", "400-599");
    out.set("idempotent", "true");
    let listed: Vec<&str> = [
        "retryExceptions",
        "ignoreExceptions",
        "retryExceptionPredicate",
        "resultPredicate",
    ]
    .into_iter()
    .filter(|k| read(inst, k).is_some())
    .collect();
    if listed.is_empty() {
        out.warn(at, "no retryExceptions: resilience4j retries every exception, whatever the operation: every error status and timeout is retried");
    } else {
        for k in listed {
            out.unsupported(format!("{at}.{k}"), "Java exception classes or predicates, which the lab cannot read: every error status and timeout is retried");
        }
    }
}

/// A Spring `Duration`: `500ms`, `2s`, `1m`, `PT2S`, or a bare number of milliseconds.
pub(crate) fn duration(v: &Value, field: &str) -> Result<Micros, ImportError> {
    let bad = || {
        ImportError::new(
            field,
            format!(
                "'{}' is not a duration: expected 500ms, 2s, 1m, PT2S or a number of milliseconds",
                short(&v.to_string())
            ),
        )
    };
    if let Some(ms) = v.as_u64() {
        return ms.checked_mul(1_000).map(Micros).ok_or_else(bad);
    }
    let s = v.as_str().ok_or_else(bad)?.trim();
    if let Some(iso) = s.strip_prefix("PT").or_else(|| s.strip_prefix("pt")) {
        let go = iso.to_ascii_lowercase();
        return crate::common::go_duration(&Value::String(go), field).map_err(|_| bad());
    }
    if s.bytes().all(|b| b.is_ascii_digit()) && !s.is_empty() {
        let ms: u64 = s.parse().map_err(|_| bad())?;
        return ms.checked_mul(1_000).map(Micros).ok_or_else(bad);
    }
    let unit_ok = ["ns", "us", "ms", "s", "m", "h", "d"]
        .iter()
        .any(|u| s.ends_with(u));
    if !unit_ok || s.ends_with('d') {
        return Err(bad());
    }
    crate::common::go_duration(&Value::String(s.to_string()), field).map_err(|_| bad())
}

#[cfg(test)]
mod tests;
