//! resilience4j's interval function, by its rule for which flags it reads.

use super::{duration, read};
use crate::common::Out;
use crate::ImportError;
use retry_model::Micros;
use serde_json::Value;

/// The backoff flags, which count only beside a `waitDuration` on the same instance.
const FLAGS: [&str; 5] = [
    "enableExponentialBackoff",
    "exponentialBackoffMultiplier",
    "exponentialMaxWaitDuration",
    "enableRandomizedWait",
    "randomizedWaitFactor",
];
/// `IntervalFunction.DEFAULT_INITIAL_INTERVAL`, `DEFAULT_MULTIPLIER` and
/// `DEFAULT_RANDOMIZATION_FACTOR`.
const WAIT: Micros = Micros::from_millis(500);
const MULTIPLIER: f64 = 1.5;
const FACTOR: f64 = 0.5;

/// The interval an instance draws: its own when it sets `waitDuration`, else its base
/// config's, else a fixed 500 ms.
pub(crate) fn wait(
    inst: &Value,
    base: Option<&Value>,
    at: &str,
    out: &mut Out,
) -> Result<(), ImportError> {
    let own = read(inst, "waitDuration").is_some();
    let from_base = base.filter(|b| read(b, "waitDuration").is_some());
    if !own {
        for flag in FLAGS.iter().filter(|f| read(inst, f).is_some()) {
            out.warn(format!("{at}.{flag}"), "does nothing: resilience4j reads the backoff flags only when waitDuration is set on the same instance, so the wait stays the base config's (or a fixed 500 ms)");
        }
    }
    match (own, from_base) {
        (true, _) => interval(inst, at, out),
        (false, Some(b)) => interval(b, &format!("{at} (its base config)"), out),
        (false, None) => {
            out.set("backoff", "constant");
            out.set("base", WAIT.to_string());
            out.set("cap", WAIT.to_string());
            Ok(())
        }
    }
}

/// A flag's value: `true` or `false`.
fn flag(v: &Value, key: &str, at: &str) -> Result<bool, ImportError> {
    match read(v, key) {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(Value::String(s)) if s == "true" || s == "false" => Ok(s == "true"),
        Some(other) => Err(ImportError::new(
            format!("{at}.{key}"),
            format!("'{other}' is not true or false"),
        )),
    }
}

/// A number field, if set, within `range`.
fn number(v: &Value, key: &str, at: &str, range: (f64, f64)) -> Result<Option<f64>, ImportError> {
    let Some(x) = read(v, key) else {
        return Ok(None);
    };
    let n = x
        .as_f64()
        .or_else(|| x.as_str().and_then(|s| s.trim().parse().ok()));
    match n {
        Some(n) if n >= range.0 && n <= range.1 => Ok(Some(n)),
        _ => Err(ImportError::new(
            format!("{at}.{key}"),
            format!("'{x}' is not a number in [{}, {}]", range.0, range.1),
        )),
    }
}

/// The interval of the properties `v`: `waitDuration` and the flags, by resilience4j's rule.
fn interval(v: &Value, at: &str, out: &mut Out) -> Result<(), ImportError> {
    let field = |k: &str| format!("{at}.{k}");
    let b = read(v, "waitDuration")
        .map(|w| duration(w, &field("waitDuration")))
        .transpose()?
        .unwrap_or(WAIT);
    let (exp, rnd) = (
        flag(v, "enableExponentialBackoff", at)?,
        flag(v, "enableRandomizedWait", at)?,
    );
    let m_set = number(v, "exponentialBackoffMultiplier", at, (1.0, 10.0))?;
    let f_set = number(v, "randomizedWaitFactor", at, (0.0, 0.999))?;
    let cap = read(v, "exponentialMaxWaitDuration")
        .map(|c| duration(c, &field("exponentialMaxWaitDuration")))
        .transpose()?;
    // Which values the builder takes.
    let cap_read = exp && m_set.is_some() && (!rnd || f_set.is_some());
    let factor_read = rnd && (!exp || m_set.is_some());
    if cap.is_some() && !cap_read {
        out.warn(field("exponentialMaxWaitDuration"), "ignored: resilience4j uses the cap only with enableExponentialBackoff and exponentialBackoffMultiplier set, and randomizedWaitFactor too when the wait is randomized; nothing caps the wait");
    }
    if f_set.is_some() && !factor_read {
        out.warn(field("randomizedWaitFactor"), "ignored: with exponential backoff resilience4j reads the factor only when exponentialBackoffMultiplier is set too; it uses 0.5");
    }
    let cap_given = cap.is_some();
    let cap = cap.filter(|_| cap_read);
    if b == Micros::ZERO {
        out.set("backoff", "none");
        return Ok(());
    }
    let top = if exp {
        let m = m_set.unwrap_or(MULTIPLIER);
        if m.fract() != 0.0 {
            out.unsupported(field("exponentialBackoffMultiplier"), "resilience4j truncates each step to a whole millisecond; the lab keeps the fraction");
        }
        out.set("backoff", "exponential");
        out.set("multiplier", format!("{m}"));
        match cap {
            Some(c) => c.max(b),
            None => {
                if !cap_given {
                    out.warn(
                        field("exponentialMaxWaitDuration"),
                        "absent: nothing caps the exponential wait; the lab caps it at 24 h",
                    );
                }
                Micros::from_secs(86_400)
            }
        }
    } else {
        out.set("backoff", "constant");
        // The cap must not cut the spread: no cap applies to a fixed wait.
        let f = if rnd {
            f_set.filter(|_| factor_read).unwrap_or(FACTOR)
        } else {
            0.0
        };
        Micros((b.0 as f64 * (1.0 + f)).ceil() as u64)
    };
    out.set("base", b.min(top).to_string());
    out.set("cap", top.to_string());
    if rnd {
        let f = (f_set.filter(|_| factor_read).unwrap_or(FACTOR) * 1000.0).round() / 1000.0;
        out.set("jitter", "mult");
        out.set(
            "jitter_lo",
            format!("{}", (1000.0 - f * 1000.0).round() / 1000.0),
        );
        out.set(
            "jitter_hi",
            format!("{}", (1000.0 + f * 1000.0).round() / 1000.0),
        );
        out.set("jitter_after_cap", "false");
        out.unsupported(field("enableRandomizedWait"), "resilience4j draws from [d(1-f), d(1+f) + 1 ms) in whole milliseconds; the lab draws [d(1-f), d(1+f)]");
    }
    Ok(())
}
