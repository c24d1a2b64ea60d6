//! A link's policy as a tenacity `@retry(...)` decorator, in Python.

use super::ATTEMPT_TIMEOUT;
use crate::write::{get, Notes};
use crate::ImportError;
use retry_model::link_key;
use retry_model::{Jitter, Micros, Params};

/// Seconds as Python writes them: `0.1`, `20`, `0.0005`.
fn py_secs(m: Micros) -> String {
    let (s, us) = (m.0 / 1_000_000, m.0 % 1_000_000);
    if us == 0 {
        return s.to_string();
    }
    let frac = format!("{us:06}");
    format!("{s}.{}", frac.trim_end_matches('0'))
}

/// The decorator's `wait`, and the names it imports.
fn wait(p: &Params, notes: &mut Notes) -> Result<(String, Vec<&'static str>), ImportError> {
    let b = &p.policy.backoff;
    let (base, cap, m) = (py_secs(b.base), py_secs(b.cap), b.multiplier);
    let jitter = get(p, link_key!("jitter"));
    let spread = match b.jitter {
        Jitter::Add(a) => a,
        Jitter::None | Jitter::Mult { .. } => Micros::ZERO,
    };
    let add = py_secs(spread);
    let floor = if b.floor == Micros::ZERO {
        String::new()
    } else {
        format!(", min={}", py_secs(b.floor))
    };
    let exp = format!("multiplier={base}, exp_base={m}, max={cap}{floor}");
    let kind = get(p, link_key!("backoff"));
    if jitter == "mult" && matches!(kind.as_str(), "constant" | "exponential") {
        notes.add(
            link_key!("jitter"),
            "tenacity has no proportional jitter: the wait is written without it",
        );
    }
    if b.ceiling_sum && !(kind == "exponential" && jitter == "none" && linear(p)) {
        notes.add(link_key!("ceiling_sum"), "tenacity's waits grow as multiplier x exp_base^n or by wait_incrementing's equal steps, not as a sum of other steps: ceiling_sum is not written");
    }
    let w = match (kind.as_str(), jitter.as_str()) {
        ("none", _) => (String::from("wait_none()"), vec!["wait_none"]),
        ("constant", "add") => {
            let hi = b.base.saturating_add(spread).min(b.cap);
            if hi < b.base.saturating_add(spread) {
                notes.add(link_key!("cap"), "tenacity's wait_random has no cap: its max is written as the cap");
            }
            (format!("wait_random(min={base}, max={})", py_secs(hi)), vec!["wait_random"])
        }
        ("constant", _) => (format!("wait_fixed({})", py_secs(b.base.min(b.cap))), vec!["wait_fixed"]),
        ("exponential", "add") if b.jitter_after_cap => (
            format!("wait_exponential({exp}) + wait_random(0, {add})"),
            vec!["wait_exponential", "wait_random"],
        ),
        ("exponential", "add") => (
            format!("wait_exponential_jitter({exp}, jitter={add})"),
            vec!["wait_exponential_jitter"],
        ),
        // Equal steps summed: wait_incrementing's start + increment x (n - 1).
        ("exponential", "none") if linear(p) => (
            format!(
                "wait_incrementing(start={}, increment={base}, max={cap})",
                py_secs(Micros(b.base.0.saturating_mul(u64::from(b.first_exp) + 1)))
            ),
            vec!["wait_incrementing"],
        ),
        ("exponential", _) => (format!("wait_exponential({exp})"), vec!["wait_exponential"]),
        ("full", _) => {
            if b.floor != Micros::ZERO {
                notes.add(link_key!("floor"), "tenacity's min raises the low end of the draw, U(min, ceiling), where the lab raises a shorter wait to the floor: the range is the same, the spread is not");
            }
            (format!("wait_random_exponential({exp})"), vec!["wait_random_exponential"])
        }
        (other, _) => {
            return Err(ImportError::new(
                "backoff",
                format!("tenacity has no {other} jitter: nothing close (use none, constant, exponential or full)"),
            ))
        }
    };
    Ok(w)
}

/// Whether the link's wait is linear (`multiplier=1&ceiling_sum=true`), which
/// `wait_incrementing` writes with its `first_exp` in `start`.
fn linear(p: &Params) -> bool {
    let b = &p.policy.backoff;
    b.ceiling_sum && (b.multiplier - 1.0).abs() < f64::EPSILON && b.floor == Micros::ZERO
}

/// Notes for the keys tenacity cannot say.
fn notes_for(p: &Params, notes: &mut Notes) {
    let pol = &p.policy;
    if pol.backoff.first_exp != 0 && !(linear(p) && get(p, link_key!("jitter")) == "none") {
        notes.add(
            link_key!("first_exp"),
            "tenacity's first retry waits the multiplier: first_exp is not written",
        );
    }
    if pol.backoff.throttle_base.is_some() {
        notes.add(
            link_key!("throttle_base"),
            "tenacity has no separate base after a throttling answer: not written",
        );
    }
    if pol.attempt_timeout != ATTEMPT_TIMEOUT {
        notes.add(
            link_key!("attempt_timeout"),
            "tenacity has no attempt timeout: give the wrapped call its own",
        );
    }
    if pol.deadline.is_some() && get(p, link_key!("fit")) == "full" {
        notes.add(link_key!("fit"), "stop_before_delay lets a retry go while its wait ends before the delay, cutting the attempt short (fit=cut)");
    }
    if get(p, link_key!("retry_on")) != "400-599" || get(p, link_key!("idempotent")) != "true" {
        notes.add(link_key!("retry_on"), "tenacity retries by exception: retry_if_exception_type() repeats every error; narrow it to your client's retryable exceptions");
    }
    if get(p, link_key!("ra_mode")) != "ignore" {
        notes.add(
            link_key!("ra_mode"),
            "tenacity has no Retry-After support: the header is ignored",
        );
    }
    if get(p, link_key!("budget")) != "none" {
        notes.add(
            link_key!("budget"),
            "tenacity has no retry budget: not written",
        );
    }
}

/// The decorator, with its imports and a function it decorates.
pub(crate) fn export(p: &Params, notes: &mut Notes) -> Result<String, ImportError> {
    let pol = &p.policy;
    let (wait, mut names) = wait(p, notes)?;
    notes_for(p, notes);
    let mut stop = format!("stop_after_attempt({})", pol.max_attempts);
    names.extend(["retry", "retry_if_exception_type", "stop_after_attempt"]);
    if let Some(d) = pol.deadline {
        stop.push_str(&format!(" | stop_before_delay({})", py_secs(d)));
        names.push("stop_before_delay");
    }
    names.sort_unstable();
    let mut t = format!("# Written by `retrylab export --to tenacity` from the link\n#   ?{p}\nfrom tenacity import {}\n\n\n", names.join(", "));
    t.push_str(&format!("@retry(\n    stop={stop},\n    wait={wait},\n    retry=retry_if_exception_type(),\n)\ndef call():\n    ...\n"));
    for n in notes.notes() {
        t.push_str(&format!("# not expressed: {}: {}\n", n.field, n.text));
    }
    Ok(t)
}
