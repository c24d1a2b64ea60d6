//! The step trace of one request: every number the policy used, in order.
//!
//! The trace runs the same [`RequestRetry`](crate::RequestRetry) state machine as the
//! simulation, with the outcomes scripted by the link and, where the link forces them, the waits.
//! A front end renders each step as text (see [`crate::request::explain`]) or as JSON.
//!
//! ```
//! use retry_model::{trace, Params, StopReason};
//! let p: Params = "preset=chapter".parse().unwrap();
//! let t = trace(&p).unwrap();
//! let remaining: Vec<u64> = t.steps.iter().map(|s| s.plan.remaining.unwrap().as_micros() / 1000).collect();
//! assert_eq!(remaining, [9900, 6800, 3600]);
//! assert_eq!(t.stop_reason, StopReason::AttemptsUsedUp);
//! ```

use crate::link::Params;
use crate::retry::budget::{Budget, Level};
use crate::retry::error::ConfigError;
use crate::retry::fnv::Fnv;
use crate::retry::outcome::{Outcome, ScriptedOutcome};
use crate::retry::policy::{AfterAttempt, AttemptPlan, StopReason};
use crate::retry::rng::Rng;
use crate::retry::time::Micros;
use alloc::string::ToString;
use alloc::vec::Vec;

/// Random stream numbers derived from the link's seed.
pub mod streams {
    /// The traced request's backoff draws.
    pub const TRACE: u64 = 0;
    /// Schedule client `i` uses `SCHEDULE_BASE + i`.
    pub const SCHEDULE_BASE: u64 = 1 << 32;
}

/// One attempt and what the policy decided after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Step {
    /// The attempt's plan: number, start, remaining, timeout and why.
    pub plan: AttemptPlan,
    /// The outcome the client saw (a slow answer past the timeout becomes a read timeout).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub outcome: ScriptedOutcome,
    /// How long the attempt took.
    pub took: Micros,
    /// True when the scripted answer came after the timeout and the client gave up.
    pub cut_off: bool,
    /// The budget's level after the decision.
    pub budget_after: Option<Level>,
    /// Everything decided after the attempt.
    pub after: AfterAttempt,
}

/// A whole request.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Trace {
    /// Time spent before the first attempt.
    pub elapsed: Micros,
    /// One entry per attempt made.
    pub steps: Vec<Step>,
    /// Why the request stopped.
    pub stop_reason: StopReason,
    /// When it stopped, on the request's clock.
    pub end: Micros,
}

impl Trace {
    /// A 64-bit FNV-1a hash of every number in the trace: equal on every platform for the same
    /// link, and different if any number changes.
    pub fn fingerprint(&self) -> u64 {
        let mut h = Fnv::new();
        h.u64(self.elapsed.0);
        for s in &self.steps {
            h.u64(u64::from(s.plan.attempt));
            h.u64(s.plan.start.0);
            h.u64(s.plan.remaining.map_or(u64::MAX, |r| r.0));
            h.u64(s.plan.timeout.0);
            h.str(&s.outcome.to_string());
            h.u64(s.took.0);
            h.u64(u64::from(s.cut_off));
            h.str(s.after.classification.reason.name());
            h.u64(s.after.draw.map_or(u64::MAX, |d| d.wait.0));
            h.u64(s.after.draw.map_or(u64::MAX, |d| d.ceiling.0));
            h.u64(s.after.wait.map_or(u64::MAX, |w| w.0));
            h.u64(s.after.budget.map_or(u64::MAX, |b| b.level.milli));
            h.u64(s.budget_after.map_or(u64::MAX, |b| b.milli));
            h.u64(s.after.fit.map_or(u64::MAX, |f| f.need.0));
            h.str(s.after.stop.map_or("retry", |r| r.name()));
        }
        h.str(self.stop_reason.name());
        h.u64(self.end.0);
        h.0
    }
}

/// Runs the link's request through its policy and records every step.
pub fn trace(p: &Params) -> Result<Trace, ConfigError> {
    let policy = p.validate()?;
    let mut budget = Budget::new(policy.policy().budget, p.budget_start);
    let mut rng = Rng::stream(p.seed, streams::TRACE);
    let mut req = policy.start_at(Micros::ZERO, p.elapsed, &mut budget);
    let mut steps = Vec::new();
    let stop_reason = loop {
        let plan = match req.plan_attempt(&policy) {
            Ok(plan) => plan,
            Err(reason) => break reason,
        };
        let index = (plan.attempt - 1) as usize;
        let mut outcome = p
            .outcomes
            .get(index)
            .copied()
            .unwrap_or(ScriptedOutcome::new(Outcome::Ok));
        if outcome.retry_after.is_none() {
            outcome.retry_after = p.retry_after;
        }
        let wanted = if outcome.outcome.is_timeout() {
            plan.timeout
        } else {
            outcome.took.unwrap_or(p.latency)
        };
        let (took, cut_off) =
            if wanted > plan.timeout || (wanted == plan.timeout && !outcome.outcome.is_timeout()) {
                // The answer would come after the client stopped waiting.
                outcome = ScriptedOutcome {
                    outcome: Outcome::ReadTimeout,
                    ..ScriptedOutcome::new(Outcome::ReadTimeout)
                };
                (plan.timeout, true)
            } else {
                (wanted, false)
            };
        let end = plan.start.saturating_add(took);
        let forced = p.waits.get(index).copied().flatten();
        let after = req.after_attempt(&policy, end, &outcome, &mut budget, &mut rng, forced);
        let budget_after = (policy.policy().budget != crate::retry::budget::BudgetConfig::None)
            .then(|| budget.level(end));
        steps.push(Step {
            plan,
            outcome,
            took,
            cut_off,
            budget_after,
            after,
        });
        if let Some(r) = after.stop {
            break r;
        }
    };
    Ok(Trace {
        elapsed: p.elapsed,
        steps,
        stop_reason,
        end: req.now(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retry::policy::{TimeoutWhy, WaitSource};
    #[allow(unused_imports)]
    use crate::retry::rng::Rng;
    use proptest::prelude::*;

    fn t(q: &str) -> Trace {
        trace(&q.parse::<Params>().unwrap()).unwrap()
    }

    fn ms(v: u64) -> Micros {
        Micros::from_millis(v)
    }

    #[test]
    fn chapter_walk_exact() {
        let tr = t("preset=chapter");
        assert_eq!(tr.steps.len(), 3);
        let starts: Vec<Micros> = tr.steps.iter().map(|s| s.plan.start).collect();
        assert_eq!(starts, [ms(100), ms(3_200), ms(6_400)]);
        let rem: Vec<Micros> = tr.steps.iter().map(|s| s.plan.remaining.unwrap()).collect();
        assert_eq!(rem, [ms(9_900), ms(6_800), ms(3_600)]);
        assert!(tr
            .steps
            .iter()
            .all(|s| s.plan.timeout == ms(3_000) && s.plan.why == TimeoutWhy::Ceiling));
        assert_eq!(tr.steps[0].after.wait, Some(ms(100)));
        assert_eq!(tr.steps[1].after.wait, Some(ms(200)));
        assert_eq!(tr.steps[0].after.wait_source, Some(WaitSource::Forced));
        assert_eq!(tr.stop_reason, StopReason::AttemptsUsedUp);
        assert_eq!(tr.end, ms(9_400));
    }

    #[test]
    fn guide_700ms_refused_then_allowed() {
        let tr = t("preset=guide-700ms");
        assert_eq!(tr.steps.len(), 1);
        let fit = tr.steps[0].after.fit.unwrap();
        assert_eq!(fit.remaining, ms(700));
        assert_eq!(fit.need, ms(750));
        assert!(!fit.fits);
        assert_eq!(tr.stop_reason, StopReason::WontFit);
        let ok = t("preset=guide-700ms&waits=150ms");
        let fit = ok.steps[0].after.fit.unwrap();
        assert_eq!(fit.need, ms(650));
        assert!(fit.fits);
        assert_eq!(ok.steps.len(), 2);
        assert_eq!(ok.steps[1].plan.remaining, Some(ms(550)));
        assert_eq!(ok.steps[1].plan.timeout, ms(400));
        assert_eq!(ok.stop_reason, StopReason::Success);
    }

    #[test]
    fn timeout_is_cut_to_the_remaining_deadline() {
        let tr = t("deadline=5s&attempt_timeout=3s&outcomes=connect_timeout,connect_timeout,ok&waits=0ms,0ms&fit=cut");
        assert_eq!(tr.steps[1].plan.timeout, ms(2_000));
        assert_eq!(tr.steps[1].plan.why, TimeoutWhy::Remaining);
        assert_eq!(tr.stop_reason, StopReason::DeadlinePassed);
    }

    #[test]
    fn a_grpc_policy_reads_and_shows_grpc_codes() {
        let p: Params = "classify=grpc&outcomes=UNAVAILABLE,14:pushback=300,ok"
            .parse()
            .unwrap();
        assert_eq!(
            p.get("outcomes").as_deref(),
            Some("503,503:pushback=300,ok")
        );
        let e = crate::explain(&p, &trace(&p).unwrap());
        let lines: alloc::vec::Vec<&str> = e.steps.iter().map(|s| s.lines[2].as_str()).collect();
        assert!(
            lines[0].starts_with("outcome UNAVAILABLE after"),
            "{lines:?}"
        );
        assert!(
            lines[1].starts_with("outcome UNAVAILABLE:pushback=300 after"),
            "{lines:?}"
        );
        // The same link under the lab's table speaks HTTP.
        let http: Params = "outcomes=UNAVAILABLE,ok".parse().unwrap();
        let e = crate::explain(&http, &trace(&http).unwrap());
        assert!(e.steps[0].lines[2].starts_with("outcome 503 after"));
    }

    #[test]
    fn envoys_rate_limited_backoff_spreads_the_retry_after_in_whole_ms() {
        let mut seen = alloc::vec::Vec::new();
        for seed in 1..=400 {
            let tr = t(&alloc::format!(
                "outcomes=503:ra=2s,ok&idempotent=true&ra_mode=envoy&deadline=none&seed={seed}"
            ));
            let w = tr.steps[0].after.wait.unwrap();
            assert_eq!(tr.steps[0].after.wait_source, Some(WaitSource::RetryAfter));
            assert!((ms(2_000)..ms(3_000)).contains(&w), "{w}");
            assert_eq!(w.as_micros() % 1000, 0, "whole milliseconds");
            seen.push(w);
        }
        let (lo, hi) = (seen.iter().min().unwrap(), seen.iter().max().unwrap());
        assert!(*lo < ms(2_010) && *hi > ms(2_990), "{lo} .. {hi}");
        // Over max_interval (ra_max) the header is dropped: the backoff's wait, as Envoy does.
        let tr = t("outcomes=503:ra=2s,ok&idempotent=true&ra_mode=envoy&ra_max=1s&deadline=none");
        assert_eq!(tr.steps[0].after.wait_source, Some(WaitSource::Backoff));
        assert!(tr.steps[0].after.wait.unwrap() < ms(1_000));
    }

    #[test]
    fn retry_after_replaces_the_wait_and_can_refuse() {
        let tr = t("outcomes=503:ra=2s,ok&idempotent=true");
        assert_eq!(tr.steps[0].after.wait, Some(ms(2_000)));
        assert_eq!(tr.steps[0].after.wait_source, Some(WaitSource::RetryAfter));
        let tr = t("outcomes=503:ra=8s,ok");
        assert_eq!(
            tr.stop_reason,
            StopReason::WontFit,
            "8 s + 3 s does not fit in 10 s"
        );
        let tr = t("outcomes=429,ok&retry_after=1s");
        assert_eq!(tr.steps[0].after.wait, Some(ms(1_000)));
    }

    #[test]
    fn pushback_negative_stops() {
        let tr = t("classify=grpc&outcomes=503:pushback=-1,ok");
        assert_eq!(tr.stop_reason, StopReason::NotRetryable);
        let tr = t("classify=grpc&outcomes=503:pushback=300,ok");
        assert_eq!(tr.steps[0].after.wait, Some(ms(300)));
        assert_eq!(tr.steps[0].after.wait_source, Some(WaitSource::Pushback));
    }

    #[test]
    fn read_timeout_on_keyless_post_is_not_retried() {
        assert_eq!(
            t("outcomes=read_timeout,ok").stop_reason,
            StopReason::NotRetryable
        );
        assert_eq!(
            t("outcomes=read_timeout,ok&key=true").stop_reason,
            StopReason::Success
        );
        assert_eq!(
            t("outcomes=read_timeout,ok&idempotent=true").stop_reason,
            StopReason::Success
        );
    }

    #[test]
    fn slow_answers_become_read_timeouts() {
        let tr = t("attempt_timeout=1s&outcomes=503:took=2s,ok");
        assert!(tr.steps[0].cut_off);
        assert_eq!(tr.steps[0].took, ms(1_000));
        assert_eq!(tr.steps[0].outcome.outcome, Outcome::ReadTimeout);
    }

    #[test]
    fn budget_empty_stops() {
        let tr = t("budget=bucket&budget_start=0.9&outcomes=503,ok");
        assert_eq!(tr.stop_reason, StopReason::BudgetEmpty);
        let tr = t("budget=bucket&budget_start=1&outcomes=503,ok");
        assert_eq!(tr.stop_reason, StopReason::Success);
        let last = tr.steps.last().unwrap();
        assert_eq!(last.budget_after.unwrap().milli, 100, "1 - 1 + 0.1");
    }

    #[test]
    fn aws_refunds_the_last_retry() {
        let tr = t("preset=aws-standard&outcomes=connect_timeout,ok");
        assert_eq!(tr.steps[0].budget_after.unwrap().milli, 490_000);
        assert_eq!(tr.steps[1].budget_after.unwrap().milli, 500_000);
    }

    #[test]
    fn attempts_used_up() {
        let tr = t("attempts=2&outcomes=503,503,503");
        assert_eq!(tr.steps.len(), 2);
        assert_eq!(tr.stop_reason, StopReason::AttemptsUsedUp);
        let tr = t("attempts=1&outcomes=503");
        assert_eq!(tr.steps.len(), 1);
    }

    #[test]
    fn deadline_passed_before_first_attempt() {
        let tr = t("deadline=1s&elapsed=1s");
        assert!(tr.steps.is_empty());
        assert_eq!(tr.stop_reason, StopReason::DeadlinePassed);
    }

    #[test]
    fn same_seed_same_fingerprint() {
        let a = t("backoff=decorrelated&outcomes=503,503,503,503&attempts=5&seed=7");
        let b = t("backoff=decorrelated&outcomes=503,503,503,503&attempts=5&seed=7");
        let c = t("backoff=decorrelated&outcomes=503,503,503,503&attempts=5&seed=8");
        assert_eq!(a.fingerprint(), b.fingerprint());
        assert_ne!(a.fingerprint(), c.fingerprint());
    }

    fn any_link() -> impl Strategy<Value = String> {
        let outcome = prop_oneof![
            Just("ok"),
            Just("refused"),
            Just("connect_timeout"),
            Just("read_timeout"),
            Just("400"),
            Just("429"),
            Just("500"),
            Just("503"),
            Just("503:ra=1s"),
            Just("504"),
            Just("409_in_flight"),
        ];
        (
            1u32..8,
            prop_oneof![Just("none"), Just("constant"), Just("exponential"), Just("full"), Just("equal"), Just("decorrelated")],
            1u64..3000,
            1u64..20_000,
            proptest::collection::vec(outcome, 0..8),
            any::<u64>(),
            (100u64..20_000, 10u64..5_000, 0u64..100, 0u64..2_000),
            prop_oneof![Just("none"), Just("aws"), Just("bucket"), Just("ratio"), Just("grpc"), Just("rate")],
            any::<bool>(),
        )
            .prop_map(|(att, kind, base, cap, outs, seed, (dl, at, res, el), budget, idem)| {
                let base = base.min(cap);
                // `base` and `cap` have no effect (and are refused) with no backoff.
                let shape = if kind == "none" {
                    String::new()
                } else {
                    format!("&base={base}ms&cap={cap}ms")
                };
                format!(
                    "attempts={att}&backoff={kind}{shape}&outcomes={}&seed={seed}&deadline={dl}ms&attempt_timeout={at}ms&reserve={}ms&elapsed={el}ms&budget={budget}&idempotent={idem}",
                    outs.join(","),
                    res.min(dl - 1)
                )
            })
    }

    proptest! {
        /// No attempt starts or ends after the deadline, the attempt limit holds, and every step
        /// but the last is a retry.
        #[test]
        fn no_attempt_after_the_deadline(q in any_link()) {
            let p: Params = q.parse().unwrap();
            let tr = trace(&p).unwrap();
            let deadline = p.policy.deadline.unwrap();
            prop_assert!(tr.steps.len() as u32 <= p.policy.max_attempts);
            for (i, s) in tr.steps.iter().enumerate() {
                prop_assert!(s.plan.start.saturating_add(s.plan.timeout).saturating_add(p.policy.reserve) <= deadline, "{}", q);
                prop_assert!(s.took <= s.plan.timeout);
                prop_assert_eq!(s.after.stop.is_none(), i + 1 < tr.steps.len());
            }
            let again = trace(&p).unwrap();
            prop_assert_eq!(tr.fingerprint(), again.fingerprint());
        }

        /// The link round-trips: parse(format(p)) == p.
        #[test]
        fn link_round_trips(q in any_link()) {
            let p: Params = q.parse().unwrap();
            let back: Params = p.to_string().parse().unwrap();
            prop_assert_eq!(back, p);
        }
    }
}
