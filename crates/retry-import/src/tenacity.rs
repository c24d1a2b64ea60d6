//! tenacity (Python): a `@retry(...)` decorator or a `Retrying(...)` call, parsed and never run.
//! `stop_after_attempt(k)` counts every attempt, the first included; the waits are tenacity's
//! formulas in seconds, where attempt `a` is the one that just failed: `wait_exponential` is
//! `clamp(multiplier x exp_base^(a-1), min, max)` with no jitter, `wait_random_exponential` draws
//! full jitter under it, `wait_exponential_jitter` adds `U(0, jitter)` before the cap, and `+`
//! adds waits. The defaults bite: no `stop` retries forever, no `wait` retries at once, and the
//! default `retry` repeats every exception whatever the operation.

use crate::common::Out;
use crate::formats::Format;
use crate::python::{call_at, Expr, PyCall};
use crate::{ImportError, Imported, Options};
use retry_model::Micros;

mod export;
mod wait;
pub(crate) use export::export;

/// Where a tenacity policy is written: decorators and the classes that take the same arguments.
const NEEDLES: &[&str] = &[
    "@tenacity.retry",
    "@retry",
    "tenacity.Retrying(",
    "tenacity.AsyncRetrying(",
    "Retrying(",
    "AsyncRetrying(",
    // `policy = retry(...)`, applied later as `@policy`: only where it is assigned.
    "tenacity.retry(",
    "retry(",
];

/// The attempt timeout written: tenacity never times an attempt out.
pub(crate) const ATTEMPT_TIMEOUT: Micros = crate::common::NO_TIMEOUT;

/// Reads the first `@retry(...)` or `Retrying(...)` in `text` (or the one on `--instance`).
pub(crate) fn import(text: &str, opts: &Options) -> Result<Imported, ImportError> {
    let (call, at, count) = pick(text, opts)?;
    let mut out = Out::default();
    if count > 1 && opts.instance.is_none() {
        out.warn(
            format!("{at}retry"),
            format!("{count} tenacity policies: took the first; pick another with --instance NAME (the function or variable it is on)"),
        );
    }
    for (key, v) in &call.kwargs {
        match key.as_str() {
            "stop" | "wait" | "retry" => {}
            "reraise" | "before" | "after" | "before_sleep" | "retry_error_callback"
            | "retry_error_cls" | "sleep" => out.unsupported(
                format!("{at}{key}"),
                "a callback or how the last error is raised: it does not change when retries are made",
            ),
            _ => {
                return Err(ImportError::new(
                    format!("{at}{key}"),
                    format!(
                        "'{}' is not an argument of tenacity's retry: accepted stop, wait, retry, reraise, before, after, before_sleep, retry_error_callback, retry_error_cls, sleep",
                        v.text()
                    ),
                ))
            }
        }
    }
    stop(call.arg(usize::MAX, "stop"), &format!("{at}stop"), &mut out)?;
    wait::wait(call.arg(usize::MAX, "wait"), &format!("{at}wait"), &mut out)?;
    retry(
        call.arg(usize::MAX, "retry"),
        &format!("{at}retry"),
        &mut out,
    );
    out.set("ra_mode", "ignore");
    out.set("budget", "none");
    let name = at.trim_end_matches(": ");
    out.finish(
        Format::Tenacity,
        if name.is_empty() { "file" } else { name },
    )
}

/// The call to read, the prefix its fields are named with (`fetch: `, or empty), and how many
/// policies the file holds. Only the call taken is parsed, so another one the reader cannot
/// read does not stop it.
fn pick(text: &str, opts: &Options) -> Result<(PyCall, String, usize), ImportError> {
    let found = find(text);
    let count = found.len();
    let names: Vec<&str> = found.iter().map(|f| f.2.as_deref().unwrap_or("")).collect();
    let choice = crate::common::Choice {
        want: opts.instance.as_deref(),
        what: "@retry or Retrying on",
        none: (
            "file",
            "no tenacity policy: expected a @retry(...) decorator or a Retrying(...) call",
        ),
    };
    let (i, needle, name) = &found[choice.pick(&names, |i, want| names[i] == want)?];
    let prefix = name.as_ref().map_or_else(String::new, |n| format!("{n}: "));
    let start = i + usize::from(needle.starts_with('@'));
    let called = needle.trim_start_matches('@').trim_end_matches('(');
    let bare =
        !needle.ends_with('(') && !text[start + called.len()..].trim_start().starts_with('(');
    let mut call = if bare {
        PyCall {
            name: called.to_string(),
            args: Vec::new(),
            kwargs: Vec::new(),
        }
    } else {
        call_at(text, start)
            .map_err(|e| ImportError::new(format!("{prefix}{}", e.field), e.rule))?
            .0
    };
    // A module constant as an argument (`stop_after_attempt(MAX_TRIES)`) is its value.
    let consts = crate::python::constants(text);
    call.args.iter_mut().for_each(|a| a.resolve(&consts));
    call.kwargs.iter_mut().for_each(|(_, a)| a.resolve(&consts));
    Ok((call, prefix, count))
}

/// Where each policy starts, its needle, and the name it is on.
/// Linear in the file: the needles found so far are kept by where they start, and each
/// decorator's `def` is looked up among the `def`s found once.
fn find(text: &str) -> Vec<(usize, &'static str, Option<String>)> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let defs: Vec<usize> = text.match_indices("def ").map(|(i, _)| i).collect();
    let mut found: Vec<(usize, &'static str, Option<String>)> = Vec::new();
    let mut spans = std::collections::BTreeMap::new();
    for needle in NEEDLES {
        for (i, _) in text.match_indices(needle) {
            let end = i + needle.len();
            let word_ends = needle.ends_with('(') || !text[end..].starts_with(ident);
            let word_starts =
                needle.starts_with('@') || !text[..i].ends_with(|c| ident(c) || c == '.');
            let inside = spans.range(..=i).next_back().is_some_and(|(_, e)| i < *e);
            let owner = owner(text, i, &defs);
            let assigned = !needle.ends_with("retry(") || owner.is_some();
            if word_ends && word_starts && !inside && assigned {
                spans.insert(i, end);
                found.push((i, needle, owner));
            }
        }
    }
    found.sort_unstable_by_key(|f| f.0);
    found
}

/// The name a policy is on: the function a decorator decorates (the next `def`), or the
/// variable a `Retrying(...)` is assigned to.
fn owner(text: &str, start: usize, defs: &[usize]) -> Option<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    if text[start..].starts_with('@') {
        let def = *defs.get(defs.partition_point(|d| *d < start))?;
        return Some(ident(&text[def + 4..])).filter(|n| !n.is_empty());
    }
    let line = text[..start].rsplit('\n').next()?;
    let lhs = line.split_once('=')?.0.trim();
    (!lhs.is_empty() && lhs.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .then(|| lhs.to_string())
}

/// `stop`: attempts from `stop_after_attempt`, a deadline from `stop_after_delay` or
/// `stop_before_delay`, either joined with `|`.
fn stop(e: Option<&Expr>, at: &str, out: &mut Out) -> Result<(), ImportError> {
    let mut s = Stop::default();
    if let Some(e) = e {
        s.read(e, at)?;
    }
    if s.attempts.is_none() {
        out.warn(at, if e.is_none() { "absent: tenacity's default is stop_never, so it retries forever; the lab runs at most 1000 attempts" } else { "no stop_after_attempt: tenacity retries until the delay; the lab runs at most 1000 attempts" });
    }
    out.set("attempts", s.attempts.unwrap_or(1000).to_string());
    match s.delay {
        Some((d, strict)) => {
            if !strict {
                out.warn(at, "stop_after_delay is checked after an attempt fails, so tenacity may start a retry whose wait runs past the delay; the lab's deadline stops it (stop_before_delay is what the lab does)");
            }
            out.unsupported(at, "tenacity never cuts an attempt short at the delay; the lab's deadline ends the attempt in flight");
            out.set("deadline", d.to_string());
        }
        None => out.set("deadline", "none"),
    }
    out.set("fit", "cut");
    out.set_default(
        "attempt_timeout",
        ATTEMPT_TIMEOUT.to_string(),
        "tenacity's (none: the wrapped call's own timeout decides; the link waits 24 h)",
    );
    out.unsupported(at, "tenacity has no attempt timeout (the wrapped call's own does): an attempt that hangs is never cut");
    Ok(())
}

/// What a `stop` says.
#[derive(Default)]
struct Stop {
    attempts: Option<u64>,
    /// The delay and whether it is checked before the wait (`stop_before_delay`).
    delay: Option<(Micros, bool)>,
}

impl Stop {
    fn read(&mut self, e: &Expr, at: &str) -> Result<(), ImportError> {
        const ACCEPTED: &str = "accepted stop_after_attempt, stop_after_delay, stop_before_delay, stop_never, stop_any and '|'";
        if let Expr::Bin(op, a, b) = e {
            if *op == '&' {
                return Err(ImportError::new(at, "'&' stops only when both stops agree: the lab stops at the first of its attempts and deadline, so nothing close exists"));
            }
            if *op == '|' {
                return self.read(a, at).and_then(|()| self.read(b, at));
            }
        }
        if let Expr::Name(n) = e {
            if n.rsplit('.').next() == Some("stop_never") {
                return Ok(());
            }
        }
        let Expr::Call(c) = e else {
            return Err(ImportError::new(
                at,
                format!("'{}' is not read: {ACCEPTED}", e.text()),
            ));
        };
        if c.base() == "stop_any" {
            return c.args.iter().try_for_each(|a| self.read(a, at));
        }
        self.call(c, at)
    }

    fn call(&mut self, c: &PyCall, at: &str) -> Result<(), ImportError> {
        let field = format!("{at}.{}", c.base());
        let arg = c.args.first().or(c.kwargs.first().map(|(_, v)| v));
        let n = match arg {
            Some(e) => e.number().ok_or_else(|| {
                ImportError::new(
                    &field,
                    format!(
                        "'{}' is not a number: the lab reads values written out",
                        e.text()
                    ),
                )
            })?,
            None => return Err(ImportError::new(field, "expects one number")),
        };
        match c.base() {
            "stop_after_attempt" => {
                if n.fract() != 0.0 || !(1.0..=1000.0).contains(&n) {
                    return Err(ImportError::new(field, format!("{n} attempts: the lab runs a whole number in [1, 1000]")));
                }
                let n = n as u64;
                self.attempts = Some(self.attempts.map_or(n, |a| a.min(n)));
            }
            "stop_after_delay" | "stop_before_delay" => {
                let d = crate::common::seconds(n, &field)?;
                if d == Micros::ZERO {
                    return Err(ImportError::new(field, "a delay of 0 stops before the first retry: the lab's deadline is above 0"));
                }
                let strict = c.base() == "stop_before_delay";
                if self.delay.is_none_or(|(old, _)| d < old) {
                    self.delay = Some((d, strict));
                }
            }
            other => return Err(ImportError::new(field, format!("'{other}' is not read: accepted stop_after_attempt, stop_after_delay, stop_before_delay, stop_never, stop_any and '|'"))),
        }
        Ok(())
    }
}

/// `retry`: which failures are retried. tenacity decides by exception (or result), which a
/// link cannot name, so every error status and timeout is retried, as its default does.
fn retry(e: Option<&Expr>, at: &str, out: &mut Out) {
    out.set("classify", "table");
    out.set("retry_on", "400-599");
    out.set("idempotent", "true");
    match e {
        None => out.warn(at, "absent: tenacity retries every exception, whatever the operation: every error status and timeout is retried, a POST without an idempotency key included"),
        Some(Expr::Call(c)) if c.base() == "retry_if_exception_type" && c.args.is_empty() => out.warn(at, "retry_if_exception_type() retries every exception, whatever the operation: every error status and timeout is retried"),
        Some(e) => out.unsupported(format!("{at} = {}", e.text()), "tenacity decides by the exception's type or the result, which the lab cannot read: every error status and timeout is retried, as its default does"),
    }
}

#[cfg(test)]
mod tests;
