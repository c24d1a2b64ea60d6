//! The trace as sentences: every subtraction and comparison written out with its numbers.
//!
//! Front ends (the CLI's `explain`, the page's step view) print these lines as they are, so the
//! arithmetic is written once, here, next to the model.
//!
//! ```
//! use retry_model::{explain, trace, Params};
//! let p: Params = "preset=chapter".parse().unwrap();
//! let text = explain(&p, &trace(&p).unwrap());
//! assert_eq!(text.steps[0].lines[1], "remaining 9.9 s -> timeout = min(3 s, 9.9 s) = 3 s (the per-attempt ceiling)");
//! ```

use crate::link::Params;
use crate::request::trace::{Step, Trace};
use crate::retry::backoff::{BackoffKind, Draw};
use crate::retry::budget::{BudgetConfig, Level};
use crate::retry::policy::{
    AfterAttempt, AttemptPlan, FitCheck, FitRule, RetryPolicy, TimeoutWhy, WaitSource,
};
use crate::retry::time::Micros;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// The lines for one attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct StepText {
    /// The attempt number (1 for the first call).
    pub attempt: u32,
    /// The lines, in the order the policy works.
    pub lines: Vec<String>,
}

/// A whole explanation.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Explanation {
    /// What the request starts with.
    pub intro: Vec<String>,
    /// One group per attempt.
    pub steps: Vec<StepText>,
    /// The stop line.
    pub outcome: String,
}

/// How a trace's durations are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Digits {
    /// Three significant figures in the unit that suits (`6.91 s`): what people read first.
    People,
    /// Every microsecond (`6.907003 s`), for checking the arithmetic to the last digit.
    Exact,
}

impl Digits {
    fn h(self, m: Micros) -> String {
        match self {
            Digits::People => m.rounded(),
            Digits::Exact => m.human(),
        }
    }
}

fn tokens(milli: u64) -> String {
    crate::retry::text::milli_text(milli)
}

fn level(l: Level) -> String {
    format!("{} of {}", tokens(l.milli), tokens(l.max_milli))
}

/// Writes the trace of `p` as lines of arithmetic, every duration exact (the JSON export and
/// the pinned golden text).
pub fn explain(p: &Params, t: &Trace) -> Explanation {
    explain_in(Digits::Exact, p, t)
}

/// Writes the trace of `p` as lines of arithmetic, its durations written as `d` says: the page's
/// step view and `retrylab explain` round for people unless asked for every digit.
pub fn explain_in(dg: Digits, p: &Params, t: &Trace) -> Explanation {
    let steps = t
        .steps
        .iter()
        .map(|s| StepText {
            attempt: s.plan.attempt,
            lines: step_lines(dg, p, s),
        })
        .collect();
    let outcome = format!(
        "stopped at t = {} after {} attempt{}: {} ({})",
        dg.h(t.end),
        t.steps.len(),
        if t.steps.len() == 1 { "" } else { "s" },
        t.stop_reason.name(),
        t.stop_reason.explain()
    );
    Explanation {
        intro: intro(dg, p),
        steps,
        outcome,
    }
}

/// The policy in two lines: attempts, backoff and deadline; the operation.
fn intro(dg: Digits, p: &Params) -> Vec<String> {
    let pol = &p.policy;
    let deadline = match pol.deadline {
        Some(d) => format!(
            "deadline {} with {} already spent, {} per attempt, {} reserve",
            dg.h(d),
            dg.h(p.elapsed),
            dg.h(pol.attempt_timeout),
            dg.h(pol.reserve)
        ),
        None => format!("no deadline, {} per attempt", dg.h(pol.attempt_timeout)),
    };
    let idempotent = if pol.operation.idempotent {
        "idempotent"
    } else {
        "not idempotent"
    };
    let key = if pol.operation.key {
        ", with an idempotency key"
    } else {
        ", no idempotency key"
    };
    alloc::vec![
        format!(
            "{} attempts = 1 call + {} retries; backoff {}; {deadline}",
            pol.max_attempts,
            pol.max_attempts - 1,
            pol.backoff.kind,
        ),
        format!("operation: {idempotent}{key}"),
    ]
}

/// One attempt's lines, in the order the policy works: its timeout, its outcome, then (when it
/// may retry) attempts left, time left, the budget, the backoff, the wait, the fit check and the
/// decision.
fn step_lines(dg: Digits, p: &Params, s: &Step) -> Vec<String> {
    let pol = &p.policy;
    let (plan, a) = (&s.plan, &s.after);
    let c = &a.classification;
    let mut lines = alloc::vec![
        format!(
            "attempt {} of {} at t = {}",
            plan.attempt,
            pol.max_attempts,
            dg.h(plan.start)
        ),
        timeout_line(dg, pol, plan),
        outcome_line(dg, pol, s),
    ];
    if a.stop == Some(crate::StopReason::Success) {
        if let Some(l) = s.budget_after {
            lines.push(format!("budget after the success: {}", level(l)));
        }
        return lines;
    }
    if c.retryable {
        lines.push(format!(
            "attempts: {} of {} used, {} left",
            plan.attempt, pol.max_attempts, a.attempts_left
        ));
    }
    if let (Some(rem), true) = (a.remaining, c.retryable) {
        let before = plan.remaining.unwrap_or(rem);
        lines.push(format!(
            "remaining {} - {} = {}",
            dg.h(before),
            dg.h(s.took),
            dg.h(rem)
        ));
    }
    lines.extend(budget_line(pol, a));
    lines.extend(a.draw.map(|d| backoff_line(dg, pol, &d)));
    lines.extend(wait_line(dg, pol, a));
    lines.extend(refused_retry_after(dg, pol, s));
    lines.extend(a.fit.map(|f| fit_line(dg, pol, a, &f)));
    if let (Some(l), Some(_)) = (s.budget_after, a.withdrawn) {
        lines.push(format!("budget after the retry: {}", level(l)));
    }
    lines.push(match a.stop {
        None => format!(
            "decision: retry after {}, at t = {}",
            dg.h(a.wait.unwrap_or(Micros::ZERO)),
            dg.h(plan
                .start
                .saturating_add(s.took)
                .saturating_add(a.wait.unwrap_or(Micros::ZERO)))
        ),
        Some(r) => format!("decision: stop ({})", r.name()),
    });
    lines
}

/// `remaining 9.9 s -> timeout = min(3 s, 9.9 s) = 3 s (the per-attempt ceiling)`.
fn timeout_line(dg: Digits, pol: &RetryPolicy, plan: &AttemptPlan) -> String {
    match (plan.remaining, plan.why) {
        (None, _) | (_, TimeoutWhy::NoDeadline) => format!(
            "no deadline -> timeout = {} (the per-attempt ceiling)",
            dg.h(plan.timeout)
        ),
        (Some(rem), why) => {
            let inner = if pol.reserve == Micros::ZERO {
                dg.h(rem)
            } else {
                format!("{} - {} reserve", dg.h(rem), dg.h(pol.reserve))
            };
            let why = if why == TimeoutWhy::Ceiling {
                "the per-attempt ceiling"
            } else {
                "cut to what remains"
            };
            format!(
                "remaining {} -> timeout = min({}, {}) = {} ({why})",
                dg.h(rem),
                dg.h(pol.attempt_timeout),
                inner,
                dg.h(plan.timeout),
            )
        }
    }
}

/// The outcome as the server answers it: under gRPC's classification a status is the gRPC code
/// a gRPC server sends (`UNAVAILABLE` for 503), the modifiers after it unchanged, so the text
/// is an outcome token the link reads back.
pub fn outcome_text(pol: &RetryPolicy, o: &crate::ScriptedOutcome) -> String {
    let text = o.to_string();
    let grpc = pol.classifier == crate::retry::classify::Classifier::Grpc;
    let status = if let crate::Outcome::Status(c) = o.outcome {
        Some(c)
    } else {
        None
    };
    match status
        .filter(|_| grpc)
        .and_then(|c| Some((c, crate::retry::statuses::grpc_code_of(c)?)))
    {
        Some((c, (name, _))) => text.replacen(&c.to_string(), name, 1),
        None => text,
    }
}

/// The outcome and its classification.
fn outcome_line(dg: Digits, pol: &RetryPolicy, s: &Step) -> String {
    let c = &s.after.classification;
    let cut = if s.cut_off {
        " (the answer was slower than the timeout, so the client gave up)"
    } else {
        ""
    };
    format!(
        "outcome {} after {}{cut} -> {} ({}): {}",
        outcome_text(pol, &s.outcome),
        dg.h(s.took),
        c.verdict.name(),
        c.reason.name(),
        c.reason.explain()
    )
}

/// The budget's check, when there is a budget.
fn budget_line(pol: &RetryPolicy, a: &AfterAttempt) -> Option<String> {
    let b = a.budget.filter(|_| pol.budget != BudgetConfig::None)?;
    let rule = match b.threshold_milli {
        Some(th) => format!(
            "tokens {} > {} (half the maximum)?",
            tokens(b.level.milli),
            tokens(th)
        ),
        None => format!(
            "{} available, a retry costs {}",
            level(b.level),
            tokens(b.cost_milli)
        ),
    };
    let verdict = if b.allowed { "allowed" } else { "refused" };
    Some(format!(
        "budget ({}): {rule} -> {verdict}",
        pol.budget.name()
    ))
}

/// The backoff's ceiling or range and, for the jittered kinds, the draw.
fn backoff_line(dg: Digits, pol: &RetryPolicy, d: &Draw) -> String {
    let b = &pol.backoff;
    if b.kind != BackoffKind::None && b.first_wait_zero && d.ceiling == Micros::ZERO {
        return format!(
            "backoff {}: the first retry goes at once (first_wait=0): wait {}",
            b.kind,
            dg.h(d.wait)
        );
    }
    let fixed = matches!(b.kind, BackoffKind::Constant | BackoffKind::Exponential);
    let mut line = if fixed && b.jitter != crate::Jitter::None {
        jitter_line(dg, b, d)
    } else {
        plain_backoff_line(dg, b, d)
    };
    if b.sorted && b.sort_n > 0 {
        line.push_str(&format!(
            "; the client draws its {} waits up front and uses them smallest first: this is number {}",
            b.sort_n,
            d.k + 1
        ));
    }
    line
}

/// A fixed wait with a multiplicative or additive jitter, the cap before or after it.
fn jitter_line(dg: Digits, b: &crate::BackoffConfig, d: &Draw) -> String {
    let fixed = if b.kind == BackoffKind::Constant {
        dg.h(d.base)
    } else {
        format!("{} x {}^{}", dg.h(d.base), b.growth(), d.k)
    };
    let spread = match b.jitter {
        crate::Jitter::Mult { lo_milli, hi_milli } => format!(
            " x U({}, {})",
            crate::retry::text::milli_text(lo_milli),
            crate::retry::text::milli_text(hi_milli)
        ),
        crate::Jitter::Add(a) => format!(" + U(0, {})", dg.h(a)),
        crate::Jitter::None => String::new(),
    };
    let formula = if b.jitter_after_cap {
        format!("min({}, {fixed}){spread}", dg.h(b.cap))
    } else {
        format!("min({}, {fixed}{spread})", dg.h(b.cap))
    };
    format!(
        "backoff {} with jitter={}: wait = {formula}, drawn uniformly in [{}, {}]: {}",
        b.kind,
        b.jitter.name(),
        dg.h(d.low),
        dg.h(d.ceiling),
        dg.h(d.wait)
    )
}

/// The kinds' own formulas (no jitter on top).
fn plain_backoff_line(dg: Digits, b: &crate::BackoffConfig, d: &Draw) -> String {
    let ceiling = match b.kind {
        BackoffKind::None => "no backoff: wait 0".to_string(),
        BackoffKind::Constant => format!("constant wait {}", dg.h(d.ceiling)),
        // Envoy's summed ceiling: every step so far added up, `(2^N - 1) x base` for m = 2.
        BackoffKind::Exponential | BackoffKind::Full | BackoffKind::Equal if b.ceiling_sum => {
            format!(
                "ceiling = min({}, {} x ({}^0 + ... + {}^{})) = {}",
                dg.h(b.cap),
                dg.h(d.base),
                b.growth(),
                b.growth(),
                d.k,
                dg.h(d.ceiling)
            )
        }
        BackoffKind::Exponential | BackoffKind::Full | BackoffKind::Equal => format!(
            "ceiling = min({}, {} x {}^{}) = {}",
            dg.h(b.cap),
            dg.h(d.base),
            b.growth(),
            d.k,
            dg.h(d.ceiling)
        ),
        // After throttling the base is the throttling base, which may exceed three times the
        // previous wait; the range then starts and ends at it.
        BackoffKind::Decorrelated if d.base != b.base => format!(
            "range [{}, min({}, max({}, 3 x previous))] = [{}, {}]",
            dg.h(d.low),
            dg.h(b.cap),
            dg.h(d.base),
            dg.h(d.low),
            dg.h(d.ceiling)
        ),
        BackoffKind::Decorrelated => format!(
            "range [{}, min({}, 3 x previous)] = [{}, {}]",
            dg.h(d.low),
            dg.h(b.cap),
            dg.h(d.low),
            dg.h(d.ceiling)
        ),
        BackoffKind::DecorrelatedV2 => format!(
            "t = {} + U(0, 1), f(t) = 2^t x tanh(sqrt(4t)); wait = min({}, (f(t) - previous f) / 1.4 x {}), at most {}",
            d.k,
            dg.h(b.cap),
            dg.h(d.base),
            dg.h(d.ceiling)
        ),
    };
    let drawn = match b.kind {
        BackoffKind::Full if b.whole_ms => format!(
            "; drawn in whole ms below it (Envoy's random() % window): {}",
            dg.h(d.wait)
        ),
        BackoffKind::Full | BackoffKind::Equal | BackoffKind::Decorrelated => format!(
            "; drawn uniformly in [{}, {}]: {}",
            dg.h(d.low),
            dg.h(d.ceiling),
            dg.h(d.wait)
        ),
        BackoffKind::DecorrelatedV2 => format!(": {}", dg.h(d.wait)),
        BackoffKind::None | BackoffKind::Constant | BackoffKind::Exponential => String::new(),
    };
    format!("backoff {}: {ceiling}{drawn}", b.kind)
}

/// A retryable failure whose Retry-After is over the client's limit: why the request stops.
fn refused_retry_after(dg: Digits, pol: &RetryPolicy, s: &Step) -> Option<String> {
    let a = &s.after;
    let ra = a.classification.server_wait?;
    let refused = a.classification.retryable
        && a.stop == Some(crate::StopReason::NotRetryable)
        && pol.retry_after_mode == crate::RetryAfterMode::RefuseAbove
        && ra > pol.ra_max;
    refused.then(|| {
        format!(
            "Retry-After {} is over ra_max {} (ra_mode=refuse_above): the client does not retry at all",
            dg.h(ra),
            dg.h(pol.ra_max)
        )
    })
}

/// The wait and where it came from.
fn wait_line(dg: Digits, pol: &RetryPolicy, a: &AfterAttempt) -> Option<String> {
    let (w, src) = (a.wait?, a.wait_source?);
    Some(match src {
        WaitSource::Backoff => format!("wait {} (the backoff's)", dg.h(w)),
        WaitSource::Forced => format!(
            "wait {} (forced by the link, instead of the drawn one)",
            dg.h(w)
        ),
        WaitSource::RetryAfter if pol.retry_after_mode == crate::RetryAfterMode::Envoy => {
            format!(
                "wait {} (the server's Retry-After I spread to U[I, 1.5 I) in whole ms, Envoy's rate-limited backoff)",
                dg.h(w)
            )
        }
        WaitSource::RetryAfter => format!(
            "wait {} (the server's Retry-After, {} mode, replaces the backoff)",
            dg.h(w),
            pol.retry_after_mode.name()
        ),
        WaitSource::Pushback => format!(
            "wait {} (the server's gRPC pushback; the backoff restarts from its base)",
            dg.h(w)
        ),
    })
}

/// "Will the next attempt fit?", under the link's fit rule.
fn fit_line(dg: Digits, pol: &RetryPolicy, a: &AfterAttempt, f: &FitCheck) -> String {
    let wait = dg.h(a.wait.unwrap_or(Micros::ZERO));
    match pol.fit {
        FitRule::Full => format!(
            "fits? {wait} wait + {} next attempt + {} reserve = {} {} {} remaining -> {}",
            dg.h(f.next_timeout),
            dg.h(pol.reserve),
            dg.h(f.need),
            if f.fits { "<=" } else { ">" },
            dg.h(f.remaining),
            if f.fits {
                "fits"
            } else {
                "refused before sleeping"
            }
        ),
        FitRule::Cut => format!(
            "fits? {wait} wait + {} reserve = {} {} {} remaining -> {}",
            dg.h(pol.reserve),
            dg.h(f.need),
            if f.fits { "<" } else { ">=" },
            dg.h(f.remaining),
            if f.fits {
                "fits (the next attempt may be cut short)"
            } else {
                "refused before sleeping"
            }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::trace::trace;

    fn lines(q: &str) -> Explanation {
        let p: Params = q.parse().unwrap();
        explain(&p, &trace(&p).unwrap())
    }

    #[test]
    fn chapter_text() {
        let e = lines("preset=chapter");
        assert_eq!(
            e.steps[1].lines[1],
            "remaining 6.8 s -> timeout = min(3 s, 6.8 s) = 3 s (the per-attempt ceiling)"
        );
        assert_eq!(
            e.steps[2].lines[1],
            "remaining 3.6 s -> timeout = min(3 s, 3.6 s) = 3 s (the per-attempt ceiling)"
        );
        assert!(e.steps[0]
            .lines
            .iter()
            .any(|l| l == "remaining 9.9 s - 3 s = 6.9 s"));
        assert!(e.steps[0].lines.iter().any(|l| l
            .starts_with("fits? 100 ms wait + 3 s next attempt + 0 s reserve = 3.1 s <= 6.9 s")));
        assert!(e.outcome.contains("attempts_used_up"));
    }

    #[test]
    fn people_digits_round_what_exact_digits_keep() {
        let p: Params = "preset=chapter&waits=&seed=7".parse().unwrap();
        let t = trace(&p).unwrap();
        let exact = explain_in(Digits::Exact, &p, &t);
        let people = explain_in(Digits::People, &p, &t);
        let drawn = |e: &Explanation| {
            e.steps[0]
                .lines
                .iter()
                .find(|l| l.starts_with("backoff full"))
                .cloned()
                .unwrap()
        };
        // The drawn wait has microseconds; people read three figures of it.
        let (x, r) = (drawn(&exact), drawn(&people));
        let tail = |l: &str| l.rsplit(": ").next().unwrap().to_string();
        assert!(tail(&x).len() > tail(&r).len(), "{x} / {r}");
        assert_eq!(exact.steps.len(), people.steps.len());
        assert_eq!(exact, explain(&p, &t));
    }

    #[test]
    fn a_summed_ceiling_is_written_as_a_sum_and_its_range_matches_its_waits() {
        let p: Params = "backoff=exponential&ceiling_sum=true&attempts=4"
            .parse()
            .unwrap();
        let e = lines(p.to_string().as_str());
        let line = e.steps[1]
            .lines
            .iter()
            .find(|l| l.starts_with("backoff"))
            .unwrap();
        assert!(
            line.contains("100 ms x (2^0 + ... + 2^1)) = 300 ms"),
            "{line}"
        );
        let b = p.policy.backoff;
        for retry in 0..3 {
            let (lo, hi) = b.range(retry);
            assert_eq!(
                (lo, hi),
                (b.ceiling(retry), b.ceiling(retry)),
                "retry {retry}"
            );
        }
        assert_eq!(b.range(1).1, Micros::from_millis(300));
    }

    #[test]
    fn guide_text() {
        let e = lines("preset=guide-700ms");
        assert!(e.steps[0].lines.iter().any(|l| l == "fits? 250 ms wait + 400 ms next attempt + 100 ms reserve = 750 ms > 700 ms remaining -> refused before sleeping"), "{:?}", e.steps[0].lines);
        assert!(e.outcome.contains("wont_fit"));
    }
}
