//! The retry policy of one request: when to stop, how long each attempt may take, and whether
//! the next retry fits the deadline.
//!
//! Why a deadline and not only an attempt count? The caller's patience is fixed: an answer that
//! arrives after the caller gave up is work nobody reads. So every attempt's timeout is taken from
//! what remains, `min(attempt ceiling, remaining - reserve)`, and a retry is refused before
//! sleeping when `wait + next attempt's timeout + reserve` exceeds what remains. The request
//! stops for exactly one of the reasons in [`StopReason`].
//!
//! The same [`RequestRetry`] state machine drives the step-by-step trace and every simulated
//! client, so what the page explains is what the simulation runs.
//!
//! ```
//! use retry_model::{Micros, Outcome, RetryPolicy, Rng, ScriptedOutcome};
//! use retry_model::budget::Budget;
//! let policy = RetryPolicy::default()
//!     .with_deadline(Some(Micros::from_millis(1100)))
//!     .with_attempt_timeout(Micros::from_millis(400))
//!     .with_reserve(Micros::from_millis(100));
//! let mut budget = Budget::new(policy.budget, None);
//! let mut rng = Rng::from_seed(1);
//! let valid = policy.validate().unwrap();
//! let mut req = valid.start(Micros::ZERO, &mut budget);
//! let plan = req.plan_attempt(&valid).unwrap();
//! assert_eq!(plan.timeout, Micros::from_millis(400));
//! // The attempt times out at 400 ms: 700 ms remain. A forced 250 ms wait does not fit.
//! let after = req.after_attempt(&valid, Micros::from_millis(400), &ScriptedOutcome::new(Outcome::ConnectTimeout),
//!     &mut budget, &mut rng, Some(Micros::from_millis(250)));
//! assert_eq!(after.stop, Some(retry_model::StopReason::WontFit));
//! ```

use crate::retry::backoff::{Backoff, BackoffConfig, BackoffState, Draw, WaitRange};
use crate::retry::budget::{Budget, BudgetCheck, BudgetConfig, RetryCost, Scope};
use crate::retry::classify::{classify_listed, Classification, Classifier, Operation};
use crate::retry::error::ConfigError;
use crate::retry::outcome::ScriptedOutcome;
use crate::retry::rng::Rng;
use crate::retry::time::Micros;
use alloc::format;

/// The most attempts a policy may allow.
pub const MAX_ATTEMPTS: u32 = 1000;

/// How strictly a retry must fit the deadline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum FitRule {
    /// The next attempt must get its whole per-attempt timeout:
    /// `wait + attempt_timeout + reserve <= remaining`.
    #[default]
    Full,
    /// The next attempt may be cut short to fit: `wait + reserve < remaining`.
    Cut,
}

impl FitRule {
    /// Every rule, in the `fit` key's order.
    pub const ALL: [FitRule; 2] = [FitRule::Full, FitRule::Cut];

    /// The link name.
    pub const fn name(self) -> &'static str {
        match self {
            FitRule::Full => "full",
            FitRule::Cut => "cut",
        }
    }
}

/// How a server's Retry-After turns into the wait.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum RetryAfterMode {
    /// Wait exactly what the server said.
    #[default]
    Server,
    /// AWS 2026 (`x-amz-retry-after`): `max(t, min(retry_after, t + 5 s))` with `t` the backoff.
    Aws2026,
    /// stripe-python: when `Retry-After <= 60 s`, `max(retry_after, backoff)`; otherwise the backoff.
    Stripe,
    /// The server's value, at most `ra_cap` (urllib3: 6 h; httpx-retries: 120 s).
    Cap,
    /// The server's value, but no retry at all when it is over `ra_max` (openai-python: 120 s;
    /// got: `maxRetryAfter`).
    RefuseAbove,
    /// The AWS SDKs' clamp: `max(t, min(retry_after, t + 5 s))`, `t` the backoff (the same rule
    /// as `aws2026`, under the name the SDKs' own docs use).
    Clamp,
    /// The backoff; the header is not read (google-api-core, reqwest-retry, p-retry).
    Ignore,
    /// Envoy's `rate_limited_retry_back_off`: the server's value `I` spread to U[I, 1.5 I) in
    /// whole milliseconds (`random() % (I/2) + I`); a value over `ra_max` (its
    /// `max_interval`, 300 s) is dropped and the backoff used instead.
    Envoy,
}

impl RetryAfterMode {
    /// Every mode, in the `ra_mode` key's order.
    pub const ALL: [RetryAfterMode; 8] = [
        RetryAfterMode::Server,
        RetryAfterMode::Aws2026,
        RetryAfterMode::Stripe,
        RetryAfterMode::Cap,
        RetryAfterMode::RefuseAbove,
        RetryAfterMode::Clamp,
        RetryAfterMode::Ignore,
        RetryAfterMode::Envoy,
    ];

    /// The link name.
    pub const fn name(self) -> &'static str {
        match self {
            RetryAfterMode::Server => "server",
            RetryAfterMode::Aws2026 => "aws2026",
            RetryAfterMode::Stripe => "stripe",
            RetryAfterMode::Cap => "cap",
            RetryAfterMode::RefuseAbove => "refuse_above",
            RetryAfterMode::Clamp => "clamp",
            RetryAfterMode::Envoy => "envoy",
            RetryAfterMode::Ignore => "ignore",
        }
    }

    /// Whether the client drops a server value over `limit` and waits its backoff instead
    /// (Envoy's `max_interval`).
    pub const fn drops(self, server: Micros, limit: Micros) -> bool {
        matches!(self, RetryAfterMode::Envoy) && server.0 > limit.0
    }

    /// The wait given the server's value and the computed backoff, with `limit` the mode's
    /// own limit (`ra_cap` for `cap`, `ra_max` for `refuse_above`); `None` when the client
    /// refuses to retry at all.
    pub fn resolve_with(self, server: Micros, backoff: Micros, limit: Micros) -> Option<Micros> {
        match self {
            RetryAfterMode::Cap => Some(server.min(limit)),
            RetryAfterMode::RefuseAbove if server > limit => None,
            RetryAfterMode::RefuseAbove => Some(server),
            RetryAfterMode::Envoy if self.drops(server, limit) => Some(backoff),
            RetryAfterMode::Ignore => Some(backoff),
            RetryAfterMode::Envoy => Some(server),
            RetryAfterMode::Server
            | RetryAfterMode::Aws2026
            | RetryAfterMode::Clamp
            | RetryAfterMode::Stripe => Some(self.resolve(server, backoff)),
        }
    }

    /// The waits after a Retry-After of `server` when the backoff draws from `backoff`, for a
    /// model that spreads retries over their waits as counts: `Ok(Some(range))` where every
    /// wait is a draw from one range, `Ok(None)` where the client gives up, and `Err(())` where
    /// the waits are no single range (the AWS clamp where the server's value falls inside the
    /// backoff's range plus 5 s). Each case follows [`RetryAfterMode::resolve_with`] draw for
    /// draw, and Envoy's spread follows its draw (`envoy_spread`) word for word.
    #[allow(clippy::result_unit_err)]
    pub fn range_after(
        self,
        server: Micros,
        backoff: WaitRange,
        p: &RetryPolicy,
    ) -> Result<Option<WaitRange>, ()> {
        let five = Micros::from_secs(5);
        let (low, high, floor) = backoff.parts();
        let (least, most) = (Micros(low.max(floor)), Micros(high.max(floor)));
        Ok(Some(match self {
            RetryAfterMode::Ignore => backoff,
            RetryAfterMode::Envoy if self.drops(server, p.ra_max) => backoff,
            // Under 2 ms Envoy's spread is empty: the whole milliseconds of the value.
            RetryAfterMode::Envoy if server.as_micros() < 2000 => {
                WaitRange::at(Micros::from_millis(server.as_micros() / 1000))
            }
            // `random() % (I/2) + I` whole milliseconds, as `envoy_spread` draws it.
            RetryAfterMode::Envoy => {
                let i = server.as_micros() / 1000;
                WaitRange::stepped(i * 1000, i / 2, 1000, 0)
            }
            RetryAfterMode::Server => WaitRange::at(server),
            RetryAfterMode::Cap => WaitRange::at(server.min(p.ra_cap)),
            RetryAfterMode::RefuseAbove if server > p.ra_max => return Ok(None),
            RetryAfterMode::RefuseAbove => WaitRange::at(server),
            RetryAfterMode::Stripe if server <= Micros::from_secs(60) => backoff.raised(server),
            RetryAfterMode::Stripe => backoff,
            // max(t, min(s, t + 5 s)): max(t, s) while s <= t + 5 s for every t, t + 5 s
            // while s >= t + 5 s for every t.
            RetryAfterMode::Aws2026 | RetryAfterMode::Clamp
                if server <= least.saturating_add(five) =>
            {
                backoff.raised(server)
            }
            RetryAfterMode::Aws2026 | RetryAfterMode::Clamp
                if server >= most.saturating_add(five) =>
            {
                backoff.shifted(five)
            }
            RetryAfterMode::Aws2026 | RetryAfterMode::Clamp => return Err(()),
        }))
    }

    /// The wait given the server's value and the computed backoff (`cap` and `refuse_above`
    /// read as `server` here: [`RetryAfterMode::resolve_with`] applies their limits).
    pub fn resolve(self, server: Micros, backoff: Micros) -> Micros {
        match self {
            RetryAfterMode::Server
            | RetryAfterMode::Cap
            | RetryAfterMode::RefuseAbove
            | RetryAfterMode::Envoy => server,
            RetryAfterMode::Ignore => backoff,
            RetryAfterMode::Aws2026 | RetryAfterMode::Clamp => {
                backoff.max(server.min(backoff.saturating_add(Micros::from_secs(5))))
            }
            RetryAfterMode::Stripe => {
                if server <= Micros::from_secs(60) {
                    server.max(backoff)
                } else {
                    backoff
                }
            }
        }
    }
}

/// Why a request stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum StopReason {
    /// An attempt succeeded.
    Success,
    /// The last allowed attempt failed.
    AttemptsUsedUp,
    /// Nothing (beyond the reserve) remains of the deadline.
    DeadlinePassed,
    /// The wait plus the next attempt plus the reserve exceed what remains.
    WontFit,
    /// The failure is not one to retry for this operation.
    NotRetryable,
    /// The retry budget cannot pay for a retry.
    BudgetEmpty,
    /// A circuit breaker beside the policy refused to send the attempt (simulations only).
    BreakerOpen,
}

impl StopReason {
    /// Every reason.
    pub const ALL: [StopReason; 7] = [
        StopReason::Success,
        StopReason::AttemptsUsedUp,
        StopReason::DeadlinePassed,
        StopReason::WontFit,
        StopReason::NotRetryable,
        StopReason::BudgetEmpty,
        StopReason::BreakerOpen,
    ];

    /// The position in [`StopReason::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The machine-readable name.
    pub const fn name(self) -> &'static str {
        match self {
            StopReason::Success => "success",
            StopReason::AttemptsUsedUp => "attempts_used_up",
            StopReason::DeadlinePassed => "deadline_passed",
            StopReason::WontFit => "wont_fit",
            StopReason::NotRetryable => "not_retryable",
            StopReason::BudgetEmpty => "budget_empty",
            StopReason::BreakerOpen => "breaker_open",
        }
    }

    /// One line for people.
    pub const fn explain(self) -> &'static str {
        match self {
            StopReason::Success => "an attempt succeeded",
            StopReason::AttemptsUsedUp => "every allowed attempt was made",
            StopReason::DeadlinePassed => "the deadline has passed (nothing beyond the reserve remains)",
            StopReason::WontFit => "the wait and the next attempt would not finish before the deadline, so the retry was refused before sleeping",
            StopReason::NotRetryable => "this failure is not one to retry for this operation",
            StopReason::BudgetEmpty => "the retry budget is empty, so the failure goes straight back to the caller",
            StopReason::BreakerOpen => "the circuit breaker is open, so no attempt was sent",
        }
    }
}

/// A complete retry policy. Defaults: 3 attempts, full jitter from 100 ms capped at 20 s,
/// a 10 s deadline, 3 s per attempt, no reserve, no budget, the lab's classification table.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RetryPolicy {
    /// Attempts including the first call: `N attempts = 1 call + N-1 retries`. In [1, 100].
    pub max_attempts: u32,
    /// The backoff.
    pub backoff: BackoffConfig,
    /// The request's deadline, measured from the request's start; `None` for no deadline.
    pub deadline: Option<Micros>,
    /// The most one attempt may take. `> 0`.
    pub attempt_timeout: Micros,
    /// Time kept back for the caller to answer after the last attempt.
    pub reserve: Micros,
    /// How strictly a retry must fit.
    pub fit: FitRule,
    /// The budget.
    pub budget: BudgetConfig,
    /// Who shares the budget.
    pub scope: Scope,
    /// Whose rules classify failures.
    pub classifier: Classifier,
    /// The operation.
    pub operation: Operation,
    /// How Retry-After becomes the wait.
    pub retry_after_mode: RetryAfterMode,
    /// With `ra_mode=cap`: the longest Retry-After honoured.
    pub ra_cap: Micros,
    /// The client's own retryable statuses; empty: the classifier's rules.
    pub statuses: crate::retry::statuses::StatusSet,
    /// With `ra_mode=refuse_above`: a longer Retry-After stops the request.
    pub ra_max: Micros,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 3,
            backoff: BackoffConfig::default(),
            deadline: Some(Micros::from_secs(10)),
            attempt_timeout: Micros::from_secs(3),
            reserve: Micros::ZERO,
            fit: FitRule::Full,
            budget: BudgetConfig::None,
            scope: Scope::Process,
            classifier: Classifier::Table,
            operation: Operation {
                idempotent: false,
                key: false,
            },
            retry_after_mode: RetryAfterMode::Server,
            ra_cap: Micros::from_secs(6 * 3600),
            statuses: crate::retry::statuses::StatusSet::EMPTY,
            ra_max: Micros::from_secs(120),
        }
    }
}

impl RetryPolicy {
    /// Whether this policy retries a failed attempt that ended with `outcome` (its statuses,
    /// classifier and operation; attempts, deadline and budget aside).
    pub fn retries(&self, outcome: &ScriptedOutcome) -> bool {
        classify_listed(self.classifier, &self.statuses, outcome, self.operation).retryable
    }

    /// Sets the attempt limit.
    pub const fn with_max_attempts(mut self, n: u32) -> Self {
        self.max_attempts = n;
        self
    }
    /// Sets the deadline.
    pub const fn with_deadline(mut self, d: Option<Micros>) -> Self {
        self.deadline = d;
        self
    }
    /// Sets the per-attempt timeout.
    pub const fn with_attempt_timeout(mut self, t: Micros) -> Self {
        self.attempt_timeout = t;
        self
    }
    /// Sets the reserve.
    pub const fn with_reserve(mut self, r: Micros) -> Self {
        self.reserve = r;
        self
    }
    /// Sets the backoff.
    pub const fn with_backoff(mut self, b: BackoffConfig) -> Self {
        self.backoff = b;
        self
    }
    /// Sets the budget.
    pub const fn with_budget(mut self, b: BudgetConfig) -> Self {
        self.budget = b;
        self
    }
    /// Sets the operation.
    pub const fn with_operation(mut self, op: Operation) -> Self {
        self.operation = op;
        self
    }

    /// Checks every rule; the error names the link key at fault.
    pub fn validate(&self) -> Result<ValidPolicy, ConfigError> {
        if self.max_attempts == 0 || self.max_attempts > MAX_ATTEMPTS {
            return Err(ConfigError::new(
                "attempts",
                format!(
                    "must be in [1, {MAX_ATTEMPTS}] (attempts include the first call), got {}",
                    self.max_attempts
                ),
            ));
        }
        if self.attempt_timeout == Micros::ZERO {
            return Err(ConfigError::new(
                "attempt_timeout",
                "must be greater than 0",
            ));
        }
        if let Some(d) = self.deadline {
            if d == Micros::ZERO {
                return Err(ConfigError::new(
                    "deadline",
                    "must be greater than 0, or none",
                ));
            }
            if self.reserve >= d {
                return Err(ConfigError::new(
                    "reserve",
                    format!(
                        "must be shorter than the deadline (reserve {} >= deadline {})",
                        self.reserve, d
                    ),
                ));
            }
        }
        let mut policy = *self;
        // Sorted draws are drawn for every retry the attempts allow.
        policy.backoff.sort_n = if policy.backoff.sorted {
            policy.max_attempts.saturating_sub(1)
        } else {
            0
        };
        let backoff = policy.backoff.validate()?;
        Ok(ValidPolicy { policy, backoff })
    }
}

/// A policy whose every rule holds; the only way to start a request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValidPolicy {
    policy: RetryPolicy,
    backoff: Backoff,
}

impl ValidPolicy {
    /// The checked configuration.
    pub const fn policy(&self) -> &RetryPolicy {
        &self.policy
    }

    /// The checked backoff.
    pub const fn backoff(&self) -> &Backoff {
        &self.backoff
    }

    /// The longest one request can last: its deadline, or without one every attempt's timeout
    /// plus the longest wait before each retry (the cap, the floor, the throttling base or a
    /// server's `retry_after`, whichever is longest). Progress bars measure against it.
    pub fn longest_request(&self, retry_after: Option<Micros>) -> Micros {
        let p = &self.policy;
        if let Some(d) = p.deadline {
            return d;
        }
        let b = &p.backoff;
        let wait = b
            .cap
            .max(b.floor)
            .max(b.throttle_base.unwrap_or(Micros::ZERO))
            .max(retry_after.unwrap_or(Micros::ZERO));
        let n = u64::from(p.max_attempts);
        Micros(
            p.attempt_timeout
                .0
                .saturating_mul(n)
                .saturating_add(wait.0.saturating_mul(n.saturating_sub(1))),
        )
    }

    /// Starts one request at `now`: its deadline runs from `now`. Counts the original call
    /// against the budget.
    pub fn start(&self, now: Micros, budget: &mut Budget) -> RequestRetry {
        self.start_at(now, now, budget)
    }

    /// Starts one request that began at `origin` and makes its first attempt at `now`
    /// (`now - origin` was already spent, as the trace's `elapsed`).
    pub fn start_at(&self, origin: Micros, now: Micros, budget: &mut Budget) -> RequestRetry {
        budget.on_original(now);
        RequestRetry {
            backoff: self.backoff.state(),
            origin,
            now: now.max(origin),
            attempt: 0,
            last_taken: NOTHING_TAKEN,
            done: None,
        }
    }
}

/// Why an attempt got the timeout it got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum TimeoutWhy {
    /// The per-attempt ceiling was the smaller.
    Ceiling,
    /// What remains of the deadline (minus the reserve) was the smaller.
    Remaining,
    /// There is no deadline.
    NoDeadline,
}

/// The plan for one attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct AttemptPlan {
    /// 1 for the first call.
    pub attempt: u32,
    /// When it starts on the request's clock.
    pub start: Micros,
    /// Deadline minus start, if there is a deadline.
    pub remaining: Option<Micros>,
    /// `min(attempt ceiling, remaining - reserve)`.
    pub timeout: Micros,
    /// Which side of the min won.
    pub why: TimeoutWhy,
}

/// Where a wait came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum WaitSource {
    /// Drawn from the backoff.
    Backoff,
    /// Forced by the script.
    Forced,
    /// The server's Retry-After (through the Retry-After mode).
    RetryAfter,
    /// The server's gRPC pushback.
    Pushback,
}

/// The fit check of one retry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FitCheck {
    /// What remains of the deadline after the failed attempt.
    pub remaining: Micros,
    /// The next attempt's timeout counted in the check (the ceiling under `fit=full`, 0 under `cut`).
    pub next_timeout: Micros,
    /// `wait + next_timeout + reserve`.
    pub need: Micros,
    /// Whether the retry fits.
    pub fits: bool,
}

impl FitCheck {
    /// Whether a retry after `wait` fits in `remaining` under `p`'s fit rule: the wait, the
    /// next attempt's timeout (under `fit=full`) and the reserve, within what remains (`full`)
    /// or strictly within it (`cut`, which lets the attempt be cut short).
    #[inline(always)]
    fn of(p: &RetryPolicy, remaining: Micros, wait: Micros) -> Self {
        let next_timeout = match p.fit {
            FitRule::Full => p.attempt_timeout,
            FitRule::Cut => Micros::ZERO,
        };
        let need = wait.saturating_add(next_timeout).saturating_add(p.reserve);
        let fits = match p.fit {
            FitRule::Full => need <= remaining,
            FitRule::Cut => need < remaining,
        };
        FitCheck {
            remaining,
            next_timeout,
            need,
            fits,
        }
    }
}

/// Everything decided after one failed or successful attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct AfterAttempt {
    /// The classification.
    pub classification: Classification,
    /// `max_attempts - attempts made`.
    pub attempts_left: u32,
    /// Remaining deadline after the attempt.
    pub remaining: Option<Micros>,
    /// The budget check, when the request got that far.
    pub budget: Option<BudgetCheck>,
    /// The backoff draw, when one was made.
    pub draw: Option<Draw>,
    /// The wait that will be slept, when a retry was considered.
    pub wait: Option<Micros>,
    /// Where the wait came from.
    pub wait_source: Option<WaitSource>,
    /// The fit check, when there is a deadline and a wait.
    pub fit: Option<FitCheck>,
    /// `None`: retry after `wait`. `Some`: the request stopped.
    pub stop: Option<StopReason>,
    /// Budget thousandths the retry withdrew (for the AWS refund).
    pub withdrawn: Option<u64>,
}

impl AfterAttempt {
    /// The record of an attempt before anything past its classification is decided.
    #[inline(always)]
    fn first(
        classification: Classification,
        attempts_left: u32,
        remaining: Option<Micros>,
    ) -> Self {
        AfterAttempt {
            classification,
            attempts_left,
            remaining,
            budget: None,
            draw: None,
            wait: None,
            wait_source: None,
            fit: None,
            stop: None,
            withdrawn: None,
        }
    }
}

/// `RequestRetry::last_taken` when no retry has withdrawn anything (a withdrawal of u64::MAX
/// milli-tokens, were one possible, is kept one less: both refill any budget to its cap).
const NOTHING_TAKEN: u64 = u64::MAX;

/// One request's retry loop as a state machine: `plan_attempt`, run the attempt, `after_attempt`,
/// repeat until a stop reason.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestRetry {
    backoff: BackoffState,
    origin: Micros, // when the request began; the deadline runs from here
    now: Micros,    // the request's clock, >= origin
    attempt: u32,   // attempts made so far, in [0, max_attempts]
    // What the last retry withdrew from the budget, or NOTHING_TAKEN: a word rather than an
    // Option, which would take two (a storm keeps one of these per request in flight).
    last_taken: u64,
    done: Option<StopReason>,
}

impl RequestRetry {
    /// The request's clock: when its next attempt may start (or when it stopped).
    pub const fn now(&self) -> Micros {
        self.now
    }

    /// When the request began.
    pub const fn origin(&self) -> Micros {
        self.origin
    }
    /// Attempts made so far.
    pub const fn attempts_made(&self) -> u32 {
        self.attempt
    }
    /// Why it stopped, once it has.
    pub const fn stopped(&self) -> Option<StopReason> {
        self.done
    }

    /// Moves the request's clock on to `t` (never back): time spent outside the policy, such as
    /// a wait for a client-side rate limiter's token, counts against the deadline.
    pub fn wait_until(&mut self, t: Micros) {
        self.now = self.now.max(t);
    }

    /// Stops the request from outside the policy (a circuit breaker refused the attempt).
    pub fn stop(&mut self, reason: StopReason) {
        self.done = Some(reason);
    }

    fn remaining_at(&self, p: &RetryPolicy, t: Micros) -> Option<Micros> {
        p.deadline
            .map(|d| self.origin.saturating_add(d).saturating_sub(t))
    }

    /// Plans the next attempt at the current time under `policy` (the one that started the
    /// request), or stops with `DeadlinePassed` when nothing beyond the reserve remains.
    pub fn plan_attempt(&mut self, policy: &ValidPolicy) -> Result<AttemptPlan, StopReason> {
        if let Some(r) = self.done {
            return Err(r);
        }
        let p = &policy.policy;
        let remaining = self.remaining_at(p, self.now);
        let (timeout, why) = match remaining {
            None => (p.attempt_timeout, TimeoutWhy::NoDeadline),
            Some(rem) => {
                let avail = rem.saturating_sub(p.reserve);
                if avail == Micros::ZERO {
                    self.done = Some(StopReason::DeadlinePassed);
                    return Err(StopReason::DeadlinePassed);
                }
                if p.attempt_timeout <= avail {
                    (p.attempt_timeout, TimeoutWhy::Ceiling)
                } else {
                    (avail, TimeoutWhy::Remaining)
                }
            }
        };
        self.attempt += 1;
        Ok(AttemptPlan {
            attempt: self.attempt,
            start: self.now,
            remaining,
            timeout,
            why,
        })
    }

    /// Records the attempt's outcome at `end` and decides: retry after a wait, or stop. On a
    /// retry the clock moves to `end + wait`, ready for the next `plan_attempt`.
    /// `forced_wait` replaces the backoff's draw (the draw is still made, so the random stream
    /// stays the same whether or not a wait is forced).
    ///
    /// Inlined at each of its four callers: a simulator reads only `stop`, and inlined, the
    /// rest of the record is never written (the `outage` storm runs about 8% faster).
    #[inline(always)]
    pub fn after_attempt(
        &mut self,
        policy: &ValidPolicy,
        end: Micros,
        outcome: &ScriptedOutcome,
        budget: &mut Budget,
        rng: &mut Rng,
        forced_wait: Option<Micros>,
    ) -> AfterAttempt {
        let p = &policy.policy;
        self.now = end;
        budget.attempt_ended(self.attempt, end);
        let classification = classify_listed(p.classifier, &p.statuses, outcome, p.operation);
        let attempts_left = p.max_attempts.saturating_sub(self.attempt);
        let remaining = self.remaining_at(p, end);
        let mut out = AfterAttempt::first(classification, attempts_left, remaining);
        let stop = |out: &mut AfterAttempt, r: StopReason| {
            out.stop = Some(r);
            r
        };
        if outcome.outcome.is_ok() {
            let taken = (self.last_taken != NOTHING_TAKEN).then_some(self.last_taken);
            budget.on_success(end, taken);
            self.done = Some(stop(&mut out, StopReason::Success));
            return out;
        }
        let qualified = classification.retryable
            || classification.reason == crate::retry::classify::Reason::PushbackNegative;
        budget.on_failure(end, qualified);
        if !classification.retryable {
            self.done = Some(stop(&mut out, StopReason::NotRetryable));
            return out;
        }
        if attempts_left == 0 {
            self.done = Some(stop(&mut out, StopReason::AttemptsUsedUp));
            return out;
        }
        if remaining.is_some_and(|rem| rem <= p.reserve) {
            self.done = Some(stop(&mut out, StopReason::DeadlinePassed));
            return out;
        }
        let cost = retry_cost(outcome);
        let check = budget.check(end, cost);
        out.budget = Some(check);
        if !check.allowed {
            self.done = Some(stop(&mut out, StopReason::BudgetEmpty));
            return out;
        }
        let draw =
            policy
                .backoff
                .next_draw(&mut self.backoff, rng, outcome.outcome.is_throttling());
        out.draw = Some(draw);
        let chosen = choose_wait(p, forced_wait, &classification, draw.wait, rng);
        let Some((wait, source)) = chosen else {
            // The client gives up on a Retry-After over its limit (openai, got).
            self.done = Some(stop(&mut out, StopReason::NotRetryable));
            return out;
        };
        out.wait = Some(wait);
        out.wait_source = Some(source);
        if let Some(rem) = remaining {
            let fit = FitCheck::of(p, rem, wait);
            out.fit = Some(fit);
            if !fit.fits {
                self.done = Some(stop(&mut out, StopReason::WontFit));
                return out;
            }
        }
        let taken = budget.withdraw(end, cost);
        self.last_taken = taken.min(NOTHING_TAKEN - 1);
        out.withdrawn = Some(taken);
        if classification.pushback {
            // gRPC: after a pushback the backoff starts again from the initial value.
            policy.backoff.reset(&mut self.backoff);
        }
        self.now = end.saturating_add(wait);
        budget.retry_at(self.now);
        out
    }
}

/// Envoy's spread on a Retry-After of `server`: `random() % (I/2) + I` with `I` in whole
/// milliseconds, so U{I, ..., 1.5 I - 1} ms (`I` itself under 2 ms, where the spread is empty).
/// The only draw a Retry-After takes, and only in this mode.
fn envoy_spread(server: Micros, rng: &mut Rng) -> Micros {
    use crate::retry::rng::Words;
    let i = server.as_micros() / 1000;
    let half = i / 2;
    let extra = if half == 0 { 0 } else { rng.below(half) };
    Micros::from_millis(i + extra)
}

/// What retrying after `outcome` costs a budget that prices retries by their cause.
#[inline(always)]
fn retry_cost(outcome: &ScriptedOutcome) -> RetryCost {
    if outcome.outcome.is_throttling() {
        RetryCost::Throttle
    } else if outcome.outcome.is_timeout() {
        RetryCost::Timeout
    } else {
        RetryCost::Normal
    }
}

/// The wait before the next attempt and where it comes from: a forced wait, a gRPC pushback,
/// the server's Retry-After under the client's rule, or the backoff; `None` when the client
/// refuses to retry for a Retry-After over its limit. Envoy's mode spreads the server's value
/// with one draw from `rng`.
fn choose_wait(
    p: &RetryPolicy,
    forced: Option<Micros>,
    c: &Classification,
    backoff: Micros,
    rng: &mut Rng,
) -> Option<(Micros, WaitSource)> {
    Some(match (forced, c.server_wait) {
        (Some(w), _) => (w, WaitSource::Forced),
        (None, Some(sw)) if c.pushback => (sw, WaitSource::Pushback),
        (None, Some(_)) if p.retry_after_mode == RetryAfterMode::Ignore => {
            (backoff, WaitSource::Backoff)
        }
        // Envoy drops a header over its max_interval and falls back to the backoff.
        (None, Some(sw)) if p.retry_after_mode.drops(sw, p.ra_max) => {
            (backoff, WaitSource::Backoff)
        }
        (None, Some(sw)) if p.retry_after_mode == RetryAfterMode::Envoy => {
            (envoy_spread(sw, rng), WaitSource::RetryAfter)
        }
        (None, Some(sw)) => {
            let limit = if p.retry_after_mode == RetryAfterMode::Cap {
                p.ra_cap
            } else {
                p.ra_max
            };
            (
                p.retry_after_mode.resolve_with(sw, backoff, limit)?,
                WaitSource::RetryAfter,
            )
        }
        (None, None) => (backoff, WaitSource::Backoff),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every range `range_after` gives draws, draw for draw, the wait `resolve_with` gives on
    /// the backoff's draw: the same offset into the range, raised to its floor.
    #[test]
    fn a_retry_after_range_follows_the_rule_draw_for_draw() {
        let ms = Micros::from_millis;
        let mut p = RetryPolicy {
            ra_cap: ms(900),
            ra_max: ms(1500),
            ..RetryPolicy::default()
        };
        let mut checked = 0;
        for mode in RetryAfterMode::ALL {
            p.retry_after_mode = mode;
            let limit = if mode == RetryAfterMode::Cap {
                p.ra_cap
            } else {
                p.ra_max
            };
            for server in [ms(1), ms(400), ms(1200), ms(3000), ms(70_000)] {
                for (low, high, floor) in [(0, 2000, 0), (100, 800, 300), (500, 500, 0)] {
                    let (low, high, floor) = (low * 1000, high * 1000, floor * 1000);
                    let backoff = WaitRange::new(low, high, floor);
                    let Ok(after) = mode.range_after(server, backoff, &p) else {
                        continue;
                    };
                    // Envoy's spread: checked word for word below.
                    if after.is_some_and(|r| r.step() > 1) {
                        continue;
                    }
                    for u in (low..=high).step_by(((high - low) / 16).max(1) as usize) {
                        let want = mode.resolve_with(server, Micros(u.max(floor)), limit);
                        let got = after.map(|r| {
                            let (l, h, f) = r.parts();
                            let u = if h - l == high - low {
                                l + (u - low)
                            } else {
                                l
                            };
                            Micros(u.max(f))
                        });
                        assert_eq!(
                            got, want,
                            "{mode:?} {server} {low}..{high} floor {floor}, draw {u}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 500, "{checked}");
    }

    /// Envoy's spread as a range draws, word for word, what `envoy_spread` draws: whole
    /// milliseconds from the server's value up to half as much again.
    #[test]
    fn envoy_spread_is_a_range_of_whole_milliseconds() {
        let p = RetryPolicy {
            retry_after_mode: RetryAfterMode::Envoy,
            ra_max: Micros::from_secs(300),
            ..RetryPolicy::default()
        };
        let backoff = WaitRange::new(0, 25_000, 0);
        for server in [2_000, 3_000, 2_999, 1_200_000, 7_654_321] {
            let server = Micros(server);
            let range = RetryAfterMode::Envoy
                .range_after(server, backoff, &p)
                .unwrap()
                .unwrap();
            let i = server.as_micros() / 1000;
            assert_eq!(range.parts(), (i * 1000, (i + i / 2 - 1) * 1000, 0));
            let (mut a, mut b) = (Rng::stream(7, 1), Rng::stream(7, 1));
            for _ in 0..200 {
                assert_eq!(range.draw(&mut a), envoy_spread(server, &mut b), "{server}");
            }
        }
        // Over `ra_max` Envoy drops the header: the backoff's own range.
        let over = Micros::from_secs(301);
        assert_eq!(
            RetryAfterMode::Envoy.range_after(over, backoff, &p),
            Ok(Some(backoff))
        );
    }

    #[test]
    fn retry_after_rules() {
        let (s, t) = (Micros::from_secs, Micros::from_millis);
        let cap = RetryAfterMode::Cap;
        assert_eq!(
            cap.resolve_with(s(99_999), t(40), s(21_600)),
            Some(s(21_600))
        );
        assert_eq!(cap.resolve_with(s(30), t(40), s(21_600)), Some(s(30)));
        let refuse = RetryAfterMode::RefuseAbove;
        assert_eq!(refuse.resolve_with(s(120), t(40), s(120)), Some(s(120)));
        assert_eq!(refuse.resolve_with(s(121), t(40), s(120)), None);
        let clamp = RetryAfterMode::Clamp;
        assert_eq!(clamp.resolve_with(s(60), t(40), s(0)), Some(t(5040)));
        assert_eq!(clamp.resolve_with(t(10), t(40), s(0)), Some(t(40)));
        assert_eq!(
            RetryAfterMode::Ignore.resolve_with(s(60), t(40), s(0)),
            Some(t(40))
        );
        assert_eq!(
            RetryAfterMode::Server.resolve_with(s(60), t(40), s(0)),
            Some(s(60))
        );
    }
}
