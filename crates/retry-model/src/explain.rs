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

use crate::backoff::BackoffKind;
use crate::budget::{BudgetConfig, Level};
use crate::link::Params;
use crate::policy::{FitRule, TimeoutWhy, WaitSource};
use crate::time::Micros;
use crate::trace::Trace;
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

fn h(m: Micros) -> String {
    m.human()
}

fn tokens(milli: u64) -> String {
    crate::text::milli_text(milli)
}

fn level(l: Level) -> String {
    format!("{} of {}", tokens(l.milli), tokens(l.max_milli))
}

/// Writes the trace of `p` as lines of arithmetic.
pub fn explain(p: &Params, t: &Trace) -> Explanation {
    let pol = &p.policy;
    let mut intro = Vec::new();
    intro.push(format!(
        "{} attempts = 1 call + {} retries; backoff {}; {}",
        pol.max_attempts,
        pol.max_attempts - 1,
        pol.backoff.kind,
        match pol.deadline {
            Some(d) => format!(
                "deadline {} with {} already spent, {} per attempt, {} reserve",
                h(d),
                h(p.elapsed),
                h(pol.attempt_timeout),
                h(pol.reserve)
            ),
            None => format!("no deadline, {} per attempt", h(pol.attempt_timeout)),
        }
    ));
    intro.push(format!(
        "operation: {}{}",
        if pol.operation.idempotent {
            "idempotent"
        } else {
            "not idempotent"
        },
        if pol.operation.key {
            ", with an idempotency key"
        } else {
            ", no idempotency key"
        }
    ));
    let mut steps = Vec::new();
    for s in &t.steps {
        let mut lines = Vec::new();
        let plan = &s.plan;
        lines.push(format!(
            "attempt {} of {} at t = {}",
            plan.attempt,
            pol.max_attempts,
            h(plan.start)
        ));
        lines.push(match (plan.remaining, plan.why) {
            (None, _) | (_, TimeoutWhy::NoDeadline) => format!(
                "no deadline -> timeout = {} (the per-attempt ceiling)",
                h(plan.timeout)
            ),
            (Some(rem), why) => {
                let inner = if pol.reserve == Micros::ZERO {
                    h(rem)
                } else {
                    format!("{} - {} reserve", h(rem), h(pol.reserve))
                };
                format!(
                    "remaining {} -> timeout = min({}, {}) = {} ({})",
                    h(rem),
                    h(pol.attempt_timeout),
                    inner,
                    h(plan.timeout),
                    if why == TimeoutWhy::Ceiling {
                        "the per-attempt ceiling"
                    } else {
                        "cut to what remains"
                    }
                )
            }
        });
        let c = &s.after.classification;
        lines.push(format!(
            "outcome {} after {}{} -> {} ({}): {}",
            s.outcome,
            h(s.took),
            if s.cut_off {
                " (the answer was slower than the timeout, so the client gave up)"
            } else {
                ""
            },
            c.verdict.name(),
            c.reason.name(),
            c.reason.explain()
        ));
        let a = &s.after;
        if a.stop == Some(crate::StopReason::Success) {
            if let Some(l) = s.budget_after {
                lines.push(format!("budget after the success: {}", level(l)));
            }
            steps.push(StepText {
                attempt: plan.attempt,
                lines,
            });
            continue;
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
                h(before),
                h(s.took),
                h(rem)
            ));
        }
        if let (Some(b), false) = (a.budget, matches!(pol.budget, BudgetConfig::None)) {
            let rule = match (pol.budget, b.threshold_milli) {
                (_, Some(th)) => format!(
                    "tokens {} > {} (half the maximum)?",
                    tokens(b.level.milli),
                    tokens(th)
                ),
                _ => format!(
                    "{} available, a retry costs {}",
                    level(b.level),
                    tokens(b.cost_milli)
                ),
            };
            lines.push(format!(
                "budget ({}): {} -> {}",
                pol.budget.name(),
                rule,
                if b.allowed { "allowed" } else { "refused" }
            ));
        }
        if let Some(d) = a.draw {
            let ceiling = match pol.backoff.kind {
                BackoffKind::None => "no backoff: wait 0".to_string(),
                BackoffKind::Constant => format!("constant wait {}", h(d.ceiling)),
                BackoffKind::Exponential | BackoffKind::Full | BackoffKind::Equal => format!(
                    "ceiling = min({}, {} x {}^{}) = {}",
                    h(pol.backoff.cap),
                    h(d.base),
                    pol.backoff.multiplier,
                    d.k,
                    h(d.ceiling)
                ),
                // After throttling the base is the throttling base, which may exceed three
                // times the previous wait; the range then starts and ends at it.
                BackoffKind::Decorrelated if d.base != pol.backoff.base => format!(
                    "range [{}, min({}, max({}, 3 x previous))] = [{}, {}]",
                    h(d.low),
                    h(pol.backoff.cap),
                    h(d.base),
                    h(d.low),
                    h(d.ceiling)
                ),
                BackoffKind::Decorrelated => format!(
                    "range [{}, min({}, 3 x previous)] = [{}, {}]",
                    h(d.low),
                    h(pol.backoff.cap),
                    h(d.low),
                    h(d.ceiling)
                ),
            };
            let drawn = match pol.backoff.kind {
                BackoffKind::Full | BackoffKind::Equal | BackoffKind::Decorrelated => {
                    format!(
                        "; drawn uniformly in [{}, {}]: {}",
                        h(d.low),
                        h(d.ceiling),
                        h(d.wait)
                    )
                }
                BackoffKind::None | BackoffKind::Constant | BackoffKind::Exponential => {
                    String::new()
                }
            };
            lines.push(format!(
                "backoff {}: {}{}",
                pol.backoff.kind, ceiling, drawn
            ));
        }
        if let (Some(w), Some(src)) = (a.wait, a.wait_source) {
            lines.push(match src {
                WaitSource::Backoff => format!("wait {} (the backoff's)", h(w)),
                WaitSource::Forced => format!(
                    "wait {} (forced by the link, instead of the drawn one)",
                    h(w)
                ),
                WaitSource::RetryAfter => format!(
                    "wait {} (the server's Retry-After, {} mode, replaces the backoff)",
                    h(w),
                    pol.retry_after_mode.name()
                ),
                WaitSource::Pushback => format!(
                    "wait {} (the server's gRPC pushback; the backoff restarts from its base)",
                    h(w)
                ),
            });
        }
        if let Some(f) = a.fit {
            lines.push(match pol.fit {
                FitRule::Full => format!(
                    "fits? {} wait + {} next attempt + {} reserve = {} {} {} remaining -> {}",
                    h(a.wait.unwrap_or(Micros::ZERO)),
                    h(f.next_timeout),
                    h(pol.reserve),
                    h(f.need),
                    if f.fits { "<=" } else { ">" },
                    h(f.remaining),
                    if f.fits {
                        "fits"
                    } else {
                        "refused before sleeping"
                    }
                ),
                FitRule::Cut => format!(
                    "fits? {} wait + {} reserve = {} {} {} remaining -> {}",
                    h(a.wait.unwrap_or(Micros::ZERO)),
                    h(pol.reserve),
                    h(f.need),
                    if f.fits { "<" } else { ">=" },
                    h(f.remaining),
                    if f.fits {
                        "fits (the next attempt may be cut short)"
                    } else {
                        "refused before sleeping"
                    }
                ),
            });
        }
        if let Some(l) = s.budget_after {
            if a.withdrawn.is_some() {
                lines.push(format!("budget after the retry: {}", level(l)));
            }
        }
        match a.stop {
            None => lines.push(format!(
                "decision: retry after {}, at t = {}",
                h(a.wait.unwrap_or(Micros::ZERO)),
                h(s.plan
                    .start
                    .saturating_add(s.took)
                    .saturating_add(a.wait.unwrap_or(Micros::ZERO)))
            )),
            Some(r) => lines.push(format!("decision: stop ({})", r.name())),
        }
        steps.push(StepText {
            attempt: plan.attempt,
            lines,
        });
    }
    let outcome = format!(
        "stopped at t = {} after {} attempt{}: {} ({})",
        h(t.end),
        t.steps.len(),
        if t.steps.len() == 1 { "" } else { "s" },
        t.stop_reason.name(),
        t.stop_reason.explain()
    );
    Explanation {
        intro,
        steps,
        outcome,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::trace;

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
    fn guide_text() {
        let e = lines("preset=guide-700ms");
        assert!(e.steps[0].lines.iter().any(|l| l == "fits? 250 ms wait + 400 ms next attempt + 100 ms reserve = 750 ms > 700 ms remaining -> refused before sleeping"), "{:?}", e.steps[0].lines);
        assert!(e.outcome.contains("wont_fit"));
    }
}
