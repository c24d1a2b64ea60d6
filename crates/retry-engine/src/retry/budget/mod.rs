//! Retry budgets: how much retrying the whole client may do.
//!
//! Why budgets and not only a maximum number of attempts? "3 attempts per request" bounds what
//! one request can do, not what a service does: at 100 requests a second it still allows 300
//! calls a second against a dependency that is already failing. A budget is the population view.
//! When failures stop being rare the budget runs dry and the next failure goes straight back to
//! the caller, so the retries stop adding load exactly when the load hurts.
//!
//! Every budget counts in integers (thousandths of a token or of a retry), so a level shown to a
//! reader is exact and never drifts below zero.
//!
//! ```
//! use retry_model::budget::{Budget, BudgetConfig, RetryCost, TokenBucketConfig};
//! use retry_model::Micros;
//! let mut b = Budget::new(BudgetConfig::Bucket(TokenBucketConfig::CHEAT_SHEET), Some(0));
//! for _ in 0..9 { b.on_success(Micros::ZERO, None); }
//! assert!(!b.check(Micros::ZERO, RetryCost::Normal).allowed); // 0.9 of a token
//! b.on_success(Micros::ZERO, None);
//! assert_eq!(b.level(Micros::ZERO).milli, 1000); // exactly one token
//! assert!(b.check(Micros::ZERO, RetryCost::Normal).allowed);
//! ```

mod aws;
mod bucket;
mod concurrent;
mod grpc;
mod rate;
mod ratio;
mod window;

pub use aws::AwsQuotaConfig;
pub use bucket::TokenBucketConfig;
pub use concurrent::{ConcurrentConfig, EnvoyBudgetConfig};
pub use grpc::GrpcThrottleConfig;
pub use rate::RateConfig;
pub use ratio::RatioConfig;

use crate::retry::time::Micros;
pub use window::SlotWindow;

/// Which budget, with its constants.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
pub enum BudgetConfig {
    /// No budget: only the attempt limit and the deadline stop retries.
    #[default]
    None,
    /// The AWS SDK retry quota.
    Aws(AwsQuotaConfig),
    /// A whole-token bucket refilled per success.
    Bucket(TokenBucketConfig),
    /// Retries as a percentage of calls over a window, plus a floor.
    Ratio(RatioConfig),
    /// gRPC retry throttling.
    Grpc(GrpcThrottleConfig),
    /// A fixed number of retries per window.
    Rate(RateConfig),
    /// Envoy's limit on retries in flight across requests.
    Envoy(ConcurrentConfig),
    /// Envoy's retry budget: retries in flight as a share of the attempts in flight.
    EnvoyBudget(EnvoyBudgetConfig),
}

impl BudgetConfig {
    /// The link name of the kind.
    pub const fn name(&self) -> &'static str {
        match self {
            BudgetConfig::None => "none",
            BudgetConfig::Aws(c) if c.retry_cost == 14 && c.throttle_cost == 5 => "aws2026",
            BudgetConfig::Aws(_) => "aws",
            BudgetConfig::Bucket(_) => "bucket",
            BudgetConfig::Ratio(_) => "ratio",
            BudgetConfig::Grpc(_) => "grpc",
            BudgetConfig::Rate(_) => "rate",
            BudgetConfig::Envoy(_) => "envoy",
            BudgetConfig::EnvoyBudget(_) => "envoy_budget",
        }
    }
}

/// Who shares one budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Scope {
    /// Each client has its own.
    Client,
    /// All clients in a process share one (the AWS SDK's and the SRE book's choice).
    #[default]
    Process,
    /// One per tenant, so one tenant cannot spend everybody's retries.
    Tenant,
}

impl Scope {
    /// Every scope, in the `budget_scope` key's order.
    pub const ALL: [Scope; 3] = [Scope::Client, Scope::Process, Scope::Tenant];

    /// The link name.
    pub const fn name(self) -> &'static str {
        match self {
            Scope::Client => "client",
            Scope::Process => "process",
            Scope::Tenant => "tenant",
        }
    }
}

/// What a retry costs, for budgets that price retries differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum RetryCost {
    /// After a transient error.
    Normal,
    /// After a connect or read timeout.
    Timeout,
    /// After throttling (429).
    Throttle,
}

/// A budget's level: what is available now and the most it can hold, in thousandths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Level {
    /// Available now, in thousandths. Never negative.
    pub milli: u64,
    /// The maximum (for a ratio budget: the reserve plus the deposits in the window).
    pub max_milli: u64,
}

/// The answer to "may this retry happen?".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct BudgetCheck {
    /// Whether the retry may go.
    pub allowed: bool,
    /// The level before the retry.
    pub level: Level,
    /// What the retry costs, in thousandths (0 for budgets that only gate).
    pub cost_milli: u64,
    /// For gRPC throttling: the count must be above this, in thousandths.
    pub threshold_milli: Option<u64>,
}

/// What every budget does with the events of the requests it covers. Each kind implements it
/// in its own file, beside its config; [`Budget`] only dispatches.
trait Behaviour {
    /// The level at `now`.
    fn level(&self, now: Micros) -> Level;
    /// What a retry of this kind costs, in thousandths (0 for budgets that only gate).
    fn cost(&self, kind: RetryCost) -> u64;
    /// Whether a retry costing `cost` may go at this level, and the threshold it is held to.
    fn allows(&self, level: Level, cost: u64) -> (bool, Option<u64>) {
        (level.milli >= cost, None)
    }
    /// Takes `cost` for a retry at `now`; returns what was taken.
    fn withdraw(&mut self, now: Micros, cost: u64) -> u64;
    /// An original call (not a retry) at `now`.
    fn on_original(&mut self, _now: Micros) {}
    /// A success; `last_taken` is what the request's last retry withdrew, if it retried.
    fn on_success(&mut self, _last_taken: Option<u64>) {}
    /// A failed attempt; `qualified` when it counts for gRPC throttling.
    fn on_failure(&mut self, _qualified: bool) {}
    /// The retry just withdrawn for is sent at `at` (after its backoff).
    fn retry_at(&mut self, _at: Micros) {}
    /// A retry's attempt ended at `now`.
    fn retry_ended(&mut self, _now: Micros) {}
    /// An original's attempt ended at `now` (or it was never sent).
    fn original_ended(&mut self, _now: Micros) {}
}

/// The most like events a budget without a counted form of them takes one at a time (a guard:
/// every kind whose level such an event moves has its counted form).
const COUNT_LOOP: u64 = 1 << 20;

/// A pool of tokens in thousandths, in `[0, max]`: the AWS quota, the bucket and gRPC
/// throttling keep one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tokens {
    milli: u64, // in [0, max]
    max: u64,
}

impl Tokens {
    /// Full, or at `start` (clamped to the maximum) when given.
    fn new(max: u64, start: Option<u64>) -> Tokens {
        Tokens {
            milli: start.map_or(max, |s| s.min(max)),
            max,
        }
    }

    fn level(&self) -> Level {
        Level {
            milli: self.milli,
            max_milli: self.max,
        }
    }

    /// Takes up to `n`; returns what it took.
    fn take(&mut self, n: u64) -> u64 {
        let taken = n.min(self.milli);
        self.milli -= taken;
        taken
    }

    fn add(&mut self, n: u64) {
        self.milli = self.milli.saturating_add(n).min(self.max);
    }
}

/// No budget: every retry may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Unlimited;

impl Behaviour for Unlimited {
    fn level(&self, _now: Micros) -> Level {
        Level {
            milli: 0,
            max_milli: 0,
        }
    }
    fn cost(&self, _kind: RetryCost) -> u64 {
        0
    }
    fn allows(&self, _level: Level, _cost: u64) -> (bool, Option<u64>) {
        (true, None)
    }
    fn withdraw(&mut self, _now: Micros, _cost: u64) -> u64 {
        0
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Live {
    None(Unlimited),
    Aws(aws::AwsQuota),
    Bucket(bucket::TokenBucket),
    Ratio(ratio::RatioBudget),
    Grpc(grpc::GrpcThrottle),
    Rate(rate::RateBudget),
    Envoy(concurrent::Concurrent),
}

impl Live {
    /// Envoy's limits, the only budgets that follow attempts in flight.
    #[inline(always)]
    fn in_flight(&mut self) -> Option<&mut concurrent::Concurrent> {
        match self {
            Live::Envoy(b) => Some(b),
            Live::None(_)
            | Live::Aws(_)
            | Live::Bucket(_)
            | Live::Ratio(_)
            | Live::Grpc(_)
            | Live::Rate(_) => None,
        }
    }
}

/// Calls the same [`Behaviour`] method on whichever budget is live.
macro_rules! each {
    ($live:expr, $b:ident => $call:expr) => {
        match $live {
            Live::None($b) => $call,
            Live::Aws($b) => $call,
            Live::Bucket($b) => $call,
            Live::Ratio($b) => $call,
            Live::Grpc($b) => $call,
            Live::Rate($b) => $call,
            Live::Envoy($b) => $call,
        }
    };
}

/// A live budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    config: BudgetConfig,
    live: Live,
}

impl Budget {
    /// A budget at its initial level, or at `start_milli` (clamped to the maximum) when given.
    /// For a ratio budget `start_milli` credits that many thousandths of a retry at time 0.
    pub fn new(config: BudgetConfig, start_milli: Option<u64>) -> Self {
        let live = match config {
            BudgetConfig::None => Live::None(Unlimited),
            BudgetConfig::Aws(c) => Live::Aws(aws::AwsQuota::new(c, start_milli)),
            BudgetConfig::Bucket(c) => Live::Bucket(bucket::TokenBucket::new(c, start_milli)),
            BudgetConfig::Ratio(c) => Live::Ratio(ratio::RatioBudget::new(c, start_milli)),
            BudgetConfig::Grpc(c) => Live::Grpc(grpc::GrpcThrottle::new(c, start_milli)),
            BudgetConfig::Rate(c) => Live::Rate(rate::RateBudget::new(c, start_milli)),
            BudgetConfig::Envoy(c) => {
                Live::Envoy(concurrent::Concurrent::new(concurrent::Limit::Fixed(c)))
            }
            BudgetConfig::EnvoyBudget(c) => {
                Live::Envoy(concurrent::Concurrent::new(concurrent::Limit::Share(c)))
            }
        };
        Budget { config, live }
    }

    /// The configuration.
    pub const fn config(&self) -> &BudgetConfig {
        &self.config
    }

    /// The level at `now`.
    pub fn level(&self, now: Micros) -> Level {
        each!(&self.live, b => b.level(now))
    }

    /// May a retry of this kind happen at `now`? Changes nothing.
    pub fn check(&self, now: Micros, kind: RetryCost) -> BudgetCheck {
        let (level, cost_milli) = each!(&self.live, b => (b.level(now), b.cost(kind)));
        let (allowed, threshold_milli) = each!(&self.live, b => b.allows(level, cost_milli));
        BudgetCheck {
            allowed,
            level,
            cost_milli,
            threshold_milli,
        }
    }

    /// Takes what a retry of this kind costs and returns the amount taken (thousandths). Call
    /// only after [`Budget::check`] allowed it; never takes the level below zero.
    pub fn withdraw(&mut self, now: Micros, kind: RetryCost) -> u64 {
        each!(&mut self.live, b => {
            let cost = b.cost(kind);
            b.withdraw(now, cost)
        })
    }

    /// Records an original call (not a retry). Ratio budgets earn their deposit here.
    pub fn on_original(&mut self, now: Micros) {
        each!(&mut self.live, b => b.on_original(now))
    }

    /// Records a success. `last_taken` is what this request's last retry withdrew, if it retried
    /// (the AWS quota refunds exactly that; a first-try success adds the no-retry increment).
    pub fn on_success(&mut self, _now: Micros, last_taken: Option<u64>) {
        each!(&mut self.live, b => b.on_success(last_taken))
    }

    /// Records that the retry just withdrawn for is sent at `at`, after its backoff (Envoy's
    /// limit counts it in flight from then).
    #[inline(always)]
    pub fn retry_at(&mut self, at: Micros) {
        // Only Envoy's limits follow attempts in flight: the rest skip the dispatch.
        if let Some(b) = self.live.in_flight() {
            b.retry_at(at);
        }
    }

    /// Records that attempt `attempt` (1 for the first) of a request ended at `now`, or was
    /// counted and never sent: an original's for the first, a retry's after it.
    #[inline(always)]
    pub fn attempt_ended(&mut self, attempt: u32, now: Micros) {
        if let Some(b) = self.live.in_flight() {
            if attempt > 1 {
                b.retry_ended(now);
            } else {
                b.original_ended(now);
            }
        }
    }

    /// Records that a retry's attempt ended at `now`.
    #[inline(always)]
    pub fn retry_ended(&mut self, now: Micros) {
        self.attempt_ended(2, now);
    }

    /// The span within which originals' deposits may be taken together, for a budget that
    /// earns from original calls (the ratio budget: a tenth of its window) or counts them in
    /// flight (Envoy's share: all those sent by then, at once); `None` when an original moves
    /// nothing.
    pub const fn deposit_slot(&self) -> Option<Micros> {
        match self.config {
            BudgetConfig::Ratio(c) => Some(Micros(c.window.0 / 10)),
            // Envoy's share counts the originals in flight from their sends, whenever they were.
            BudgetConfig::EnvoyBudget(_) => Some(Micros(u64::MAX)),
            BudgetConfig::None
            | BudgetConfig::Aws(_)
            | BudgetConfig::Bucket(_)
            | BudgetConfig::Grpc(_)
            | BudgetConfig::Rate(_)
            | BudgetConfig::Envoy(_) => None,
        }
    }

    /// Records `n` original calls at `now`, as [`Budget::on_original`] `n` times.
    pub fn on_originals(&mut self, now: Micros, n: u64) {
        match &mut self.live {
            Live::Ratio(b) => return b.on_originals(now, n),
            Live::Envoy(b) => return b.originals_sent(n),
            Live::None(_) | Live::Aws(_) | Live::Bucket(_) | Live::Grpc(_) | Live::Rate(_) => {}
        }
        (0..n.min(COUNT_LOOP)).for_each(|_| self.on_original(now));
    }

    /// Records `n` successes at `now`, as [`Budget::on_success`] `n` times, each with the same
    /// `last_taken` (what each request's last retry withdrew, `None` for a first-try success).
    ///
    pub fn on_successes(&mut self, now: Micros, n: u64, last_taken: Option<u64>) {
        match &mut self.live {
            Live::Bucket(b) => return b.on_successes(n),
            Live::Grpc(g) => return g.on_successes(n),
            Live::Aws(b) => return b.on_successes(n, last_taken),
            Live::None(_) | Live::Ratio(_) | Live::Rate(_) | Live::Envoy(_) => {}
        }
        (0..n.min(COUNT_LOOP)).for_each(|_| self.on_success(now, last_taken));
    }

    /// How many of `n` retries of this kind the level allows at `now`, each taking what one
    /// costs.
    pub fn allows_many(&self, now: Micros, kind: RetryCost, n: u64) -> u64 {
        let check = self.check(now, kind);
        match check.cost_milli {
            _ if !check.allowed => 0,
            0 => n,
            cost => n.min(check.level.milli / cost),
        }
    }

    /// Takes what `n` retries of this kind cost at `now`, as [`Budget::withdraw`] `n` times.
    /// Call only for as many as [`Budget::allows_many`] allowed.
    pub fn withdraw_many(&mut self, now: Micros, kind: RetryCost, n: u64) {
        match &mut self.live {
            Live::None(_) => return,
            Live::Ratio(b) => return b.withdraw_many(now, n),
            Live::Rate(b) => return b.withdraw_many(now, n),
            Live::Bucket(b) => return b.withdraw_many(n),
            Live::Aws(b) => {
                let cost = b.cost(kind);
                return b.withdraw_many(cost, n);
            }
            Live::Grpc(_) | Live::Envoy(_) => {}
        }
        for _ in 0..n.min(COUNT_LOOP) {
            self.withdraw(now, kind);
        }
    }

    /// Records `n` failed attempts at `now`, as [`Budget::on_failure`] `n` times. gRPC
    /// throttling, whose gate failures move, also says how many of them, each asking once its
    /// own token is taken, it lets retry (the first ones); every other budget gates on a level
    /// failures do not move: `None`, and [`Budget::allows_many`] asks it.
    pub fn on_failures(&mut self, _now: Micros, qualified: bool, n: u64) -> Option<u64> {
        match &mut self.live {
            Live::Grpc(g) => Some(g.fail_many(qualified, n)),
            Live::None(_)
            | Live::Aws(_)
            | Live::Bucket(_)
            | Live::Ratio(_)
            | Live::Rate(_)
            | Live::Envoy(_) => None,
        }
    }

    /// `n` attempts number `attempt` failed at `now`, each ending and then asking (when
    /// `asks`), as one at a time: how many Envoy's fixed limit lets retry, `zero` when each one
    /// let go is sent at once. `None` for every other budget (nothing ends or is asked).
    pub fn in_flight_fail(
        &mut self,
        now: Micros,
        attempt: u32,
        n: u64,
        asks: bool,
        zero: bool,
    ) -> Option<u64> {
        let b = self.live.in_flight()?;
        if !asks {
            b.ended_many(now, attempt > 1, n);
            return Some(0);
        }
        Some(b.fail_many(now, attempt > 1, n, zero))
    }

    /// `n` attempts number `attempt` ended at `now` without asking (successes), as
    /// [`Budget::attempt_ended`] `n` times.
    pub fn attempts_ended(&mut self, now: Micros, attempt: u32, n: u64) {
        if let Some(b) = self.live.in_flight() {
            b.ended_many(now, attempt > 1, n);
        }
    }

    /// `n` retries let go at once are sent at `at`, as [`Budget::retry_at`] `n` times.
    pub fn retries_at(&mut self, at: Micros, n: u64) {
        if let Some(b) = self.live.in_flight() {
            b.retries_at(at, n);
        }
    }

    /// Records a failed attempt. gRPC throttling takes one token for a failure that counts
    /// (`qualified`: a retryable status or a "do not retry" pushback); the others ignore it.
    pub fn on_failure(&mut self, _now: Micros, qualified: bool) {
        each!(&mut self.live, b => b.on_failure(qualified))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use crate::retry::rng::Rng;
    use proptest::prelude::*;

    const T0: Micros = Micros::ZERO;

    #[test]
    fn aws_quota_costs_and_refunds() {
        let mut b = Budget::new(BudgetConfig::Aws(AwsQuotaConfig::STANDARD), None);
        assert_eq!(b.level(T0).milli, 500_000);
        assert_eq!(b.withdraw(T0, RetryCost::Normal), 5_000);
        assert_eq!(b.withdraw(T0, RetryCost::Timeout), 10_000);
        assert_eq!(b.level(T0).milli, 485_000);
        b.on_success(T0, Some(10_000)); // success after a timeout retry refunds 10
        assert_eq!(b.level(T0).milli, 495_000);
        b.on_success(T0, None); // first-try success adds 1
        assert_eq!(b.level(T0).milli, 496_000);
        for _ in 0..10 {
            b.on_success(T0, None);
        }
        assert_eq!(b.level(T0).milli, 500_000, "capped at capacity");
    }

    #[test]
    fn aws_quota_runs_dry_after_100_retries() {
        let mut b = Budget::new(BudgetConfig::Aws(AwsQuotaConfig::STANDARD), None);
        let mut n = 0;
        while b.check(T0, RetryCost::Normal).allowed {
            b.withdraw(T0, RetryCost::Normal);
            n += 1;
        }
        assert_eq!(n, 100);
        let mut y = Budget::new(BudgetConfig::Aws(AwsQuotaConfig::Y2026), None);
        let mut m = 0;
        while y.check(T0, RetryCost::Timeout).allowed {
            y.withdraw(T0, RetryCost::Timeout);
            m += 1;
        }
        assert_eq!(m, 35, "500 / 14 whole retries");
        assert_eq!(y.check(T0, RetryCost::Throttle).cost_milli, 5_000);
    }

    #[test]
    fn bucket_tenths_are_exact() {
        let mut b = Budget::new(
            BudgetConfig::Bucket(TokenBucketConfig::CHEAT_SHEET),
            Some(0),
        );
        for i in 1..=10 {
            b.on_success(T0, None);
            assert_eq!(b.level(T0).milli, 100 * i);
        }
        assert!(b.check(T0, RetryCost::Normal).allowed);
        b.withdraw(T0, RetryCost::Normal);
        assert_eq!(b.level(T0).milli, 0);
        assert!(!b.check(T0, RetryCost::Normal).allowed);
    }

    #[test]
    fn ratio_budget_allows_the_percentage() {
        // 10% with no floor: 100 originals allow exactly 10 retries.
        let mut b = Budget::new(BudgetConfig::Ratio(RatioConfig::CHAPTER), None);
        for _ in 0..100 {
            b.on_original(T0);
        }
        let mut n = 0;
        while b.check(T0, RetryCost::Normal).allowed {
            b.withdraw(T0, RetryCost::Normal);
            n += 1;
        }
        assert_eq!(n, 10);
        // After the window the spent retries and the deposits are gone alike.
        assert_eq!(b.level(Micros::from_secs(10)).milli, 0);
    }

    #[test]
    fn ratio_floor_is_min_per_sec_times_window() {
        let mut b = Budget::new(BudgetConfig::Ratio(RatioConfig::FINAGLE), None);
        let mut n = 0;
        while b.check(T0, RetryCost::Normal).allowed {
            b.withdraw(T0, RetryCost::Normal);
            n += 1;
        }
        assert_eq!(n, 100, "10/s over 10 s with no calls");
        assert!(
            b.check(Micros::from_secs(10), RetryCost::Normal).allowed,
            "withdrawals expire"
        );
    }

    #[test]
    fn grpc_throttle_trips_at_half() {
        let mut b = Budget::new(BudgetConfig::Grpc(GrpcThrottleConfig::EXAMPLE), None);
        for _ in 0..4 {
            b.on_failure(T0, true);
        }
        assert!(b.check(T0, RetryCost::Normal).allowed, "6 > 5");
        b.on_failure(T0, true);
        assert!(!b.check(T0, RetryCost::Normal).allowed, "5 is not > 5");
        b.on_success(T0, None);
        assert_eq!(b.level(T0).milli, 5_100);
        assert!(b.check(T0, RetryCost::Normal).allowed);
        b.on_failure(T0, false);
        assert_eq!(
            b.level(T0).milli,
            5_100,
            "unqualified failures do not count"
        );
    }

    #[test]
    fn envoy_limit_counts_retries_sent_and_not_ended() {
        let ms = Micros::from_millis;
        let mut b = Budget::new(BudgetConfig::Envoy(ConcurrentConfig { max: 2 }), None);
        let allowed = |b: &Budget, at| b.check(at, RetryCost::Normal).allowed;
        // Two retries scheduled: they count once their backoff is over, not before.
        for wait in [10, 20] {
            assert!(allowed(&b, ms(0)));
            b.withdraw(ms(0), RetryCost::Normal);
            b.retry_at(ms(wait));
        }
        assert_eq!(b.level(ms(5)).milli, 2000);
        assert_eq!(b.level(ms(15)).milli, 1000);
        assert!(!allowed(&b, ms(25)), "two in flight: a third is refused");
        b.retry_ended(ms(30));
        assert!(allowed(&b, ms(30)));
        b.retry_ended(ms(40));
        b.retry_ended(ms(50)); // never below zero
        assert_eq!(b.level(ms(50)).milli, 2000);
    }

    #[test]
    fn envoy_budget_is_a_share_of_attempts_in_flight_with_a_floor() {
        let ms = Micros::from_millis;
        let cfg = EnvoyBudgetConfig {
            per_mille: 200,
            min: 2,
        };
        let mut b = Budget::new(BudgetConfig::EnvoyBudget(cfg), None);
        assert_eq!(
            b.level(ms(0)).max_milli,
            2000,
            "the floor with nothing in flight"
        );
        for _ in 0..20 {
            b.on_original(ms(0));
        }
        // 20 originals in flight: 20 % of 20 is 4.
        assert_eq!(b.level(ms(0)).max_milli, 4000);
        for _ in 0..4 {
            assert!(b.check(ms(0), RetryCost::Normal).allowed);
            b.withdraw(ms(0), RetryCost::Normal);
            b.retry_at(ms(0));
        }
        // 24 in flight, 4 of them retries: 20 % of 24 truncates to 4, so a fifth waits.
        assert_eq!(b.level(ms(0)).max_milli, 4000);
        assert!(!b.check(ms(0), RetryCost::Normal).allowed);
        // Originals ending shrink the share down to the floor, once the instant they end is
        // over (a retry decided on their answer still counts them).
        for _ in 0..20 {
            b.attempt_ended(1, ms(1));
        }
        assert_eq!(b.level(ms(1)).max_milli, 4000);
        assert_eq!(b.level(Micros(1_001)).max_milli, 2000);
        for _ in 0..4 {
            b.attempt_ended(2, ms(2));
        }
        assert_eq!(b.level(ms(3)).milli, 2000);
        b.attempt_ended(1, ms(3)); // never below zero
        assert_eq!(b.level(ms(3)).max_milli, 2000);
    }

    #[test]
    fn rate_budget_sixty_per_minute() {
        let mut b = Budget::new(BudgetConfig::Rate(RateConfig::SRE), None);
        let mut n = 0;
        while b.check(Micros::from_secs(1), RetryCost::Normal).allowed {
            b.withdraw(Micros::from_secs(1), RetryCost::Normal);
            n += 1;
        }
        assert_eq!(n, 60);
        assert!(b.check(Micros::from_secs(61), RetryCost::Normal).allowed);
    }

    fn any_config() -> impl Strategy<Value = BudgetConfig> {
        prop_oneof![
            Just(BudgetConfig::None),
            Just(BudgetConfig::Aws(AwsQuotaConfig::STANDARD)),
            Just(BudgetConfig::Aws(AwsQuotaConfig::Y2026)),
            (1u64..50_000, 1u64..2_000).prop_map(|(m, r)| BudgetConfig::Bucket(
                TokenBucketConfig {
                    max_milli: m,
                    refill_milli: r
                }
            )),
            (1u32..1000, 1u64..60, 0u32..20).prop_map(|(p, w, f)| BudgetConfig::Ratio(
                RatioConfig {
                    per_mille: p,
                    window: Micros::from_secs(w),
                    min_per_sec: f
                }
            )),
            (1u64..100, 1u64..2_000).prop_map(|(m, r)| BudgetConfig::Grpc(GrpcThrottleConfig {
                max_milli: m * 1000,
                ratio_milli: r
            })),
            (1u32..200, 1u64..120).prop_map(|(n, w)| BudgetConfig::Rate(RateConfig {
                per_window: n,
                window: Micros::from_secs(w)
            })),
            (1u32..20).prop_map(|max| BudgetConfig::Envoy(ConcurrentConfig { max })),
            (0u32..=1000, 0u32..20).prop_map(|(per_mille, min)| BudgetConfig::EnvoyBudget(
                EnvoyBudgetConfig { per_mille, min }
            )),
        ]
    }

    proptest! {
        /// Whatever happens, the level stays in [0, max] and an allowed retry never overdraws.
        #[test]
        fn never_negative(cfg in any_config(), events in proptest::collection::vec((0u8..6, 0u64..2_000_000), 0..300)) {
            let mut b = Budget::new(cfg, None);
            let mut now = Micros::ZERO;
            for (e, dt) in events {
                now = now.saturating_add(Micros(dt));
                match e {
                    0 => b.on_original(now),
                    1 => b.on_success(now, None),
                    2 => b.on_failure(now, true),
                    3 => b.retry_ended(now),
                    4 => b.attempt_ended(1, now),
                    _ => {
                        let c = b.check(now, RetryCost::Normal);
                        if c.allowed {
                            let before = b.level(now).milli;
                            let taken = b.withdraw(now, RetryCost::Normal);
                            prop_assert!(taken <= before || matches!(cfg, BudgetConfig::Ratio(_) | BudgetConfig::Rate(_) | BudgetConfig::None | BudgetConfig::Grpc(_)));
                            // An allowed retry under Envoy's limits has a free slot.
                            prop_assert!(!matches!(cfg, BudgetConfig::Envoy(_) | BudgetConfig::EnvoyBudget(_)) || before >= 1000);
                            b.retry_at(now.saturating_add(Micros(dt / 2)));
                        }
                    }
                }
                let l = b.level(now);
                if !matches!(cfg, BudgetConfig::Ratio(_)) {
                    prop_assert!(l.milli <= l.max_milli);
                }
            }
        }

        /// n refills of r thousandths give exactly n*r (capped), never a drifted float.
        #[test]
        fn refills_are_exact(r in 1u64..1000, n in 0u64..200) {
            let mut b = Budget::new(BudgetConfig::Bucket(TokenBucketConfig { max_milli: 1_000_000, refill_milli: r }), Some(0));
            for _ in 0..n { b.on_success(Micros::ZERO, None); }
            prop_assert_eq!(b.level(Micros::ZERO).milli, (n * r).min(1_000_000));
        }
    }

    /// A cohort's events as counts move a budget exactly as the same events one at a time:
    /// successes with and without a refund of what their last retry took, then retries after
    /// transient errors and after timeouts (which the AWS quota prices higher).
    #[test]
    fn counts_equal_one_at_a_time() {
        let kinds = [
            BudgetConfig::Ratio(RatioConfig::FINAGLE),
            BudgetConfig::Rate(RateConfig::SRE),
            BudgetConfig::Bucket(TokenBucketConfig::CHEAT_SHEET),
            BudgetConfig::Aws(AwsQuotaConfig::STANDARD),
            BudgetConfig::Aws(AwsQuotaConfig::Y2026),
            BudgetConfig::None,
        ];
        let (normal, timeout) = (RetryCost::Normal, RetryCost::Timeout);
        for cfg in kinds {
            let (mut bulk, mut single) = (Budget::new(cfg, None), Budget::new(cfg, None));
            for (step, (originals, successes, refund, retries, kind)) in [
                (40u64, 7u64, None, 500u64, normal),
                (3, 90, Some(5000), 25, timeout),
                (0, 0, None, 300, normal),
                (1000, 0, None, 2, timeout),
                (0, 30, Some(10_000), 1, normal),
                (0, 60, None, 80, timeout),
                (0, 400, Some(14_000), 0, normal),
            ]
            .into_iter()
            .enumerate()
            {
                let t = Micros::from_millis(700 * step as u64);
                bulk.on_originals(t, originals);
                bulk.on_successes(t, successes, refund);
                (0..originals).for_each(|_| single.on_original(t));
                (0..successes).for_each(|_| single.on_success(t, refund));
                let allowed = bulk.allows_many(t, kind, retries);
                bulk.withdraw_many(t, kind, allowed);
                let mut one = 0;
                while one < retries && single.check(t, kind).allowed {
                    single.withdraw(t, kind);
                    one += 1;
                }
                assert_eq!(allowed, one, "{} step {step}", cfg.name());
                assert_eq!(bulk.level(t), single.level(t), "{} step {step}", cfg.name());
            }
        }
    }

    /// Envoy's limits with attempts as counts: a cohort's failures, each ending and then
    /// asking, let as many retries go as one at a time, under the fixed limit and the share,
    /// with waits and with none, and the level after is the same.
    #[test]
    fn envoy_failures_as_counts_equal_one_at_a_time() {
        let share =
            |per_mille, min| BudgetConfig::EnvoyBudget(EnvoyBudgetConfig { per_mille, min });
        let configs = [
            BudgetConfig::Envoy(ConcurrentConfig { max: 3 }),
            BudgetConfig::Envoy(ConcurrentConfig { max: 40 }),
            share(200, 3),
            share(500, 1),
            share(1000, 0),
        ];
        // (originals sent, retries sent, failures, of retries, at once), a millisecond apart;
        // the retries that fail were in flight.
        let steps = [
            (30u64, 0u64, 10u64, false, false),
            (5, 12, 8, true, false),
            (0, 0, 25, false, true),
            (60, 4, 7, true, true),
            (0, 50, 45, true, false),
            (2, 0, 6, false, false),
        ];
        for cfg in configs {
            let (mut bulk, mut single) = (Budget::new(cfg, None), Budget::new(cfg, None));
            for (i, &(originals, sent, failures, retries, zero)) in steps.iter().enumerate() {
                let t = Micros::from_millis(i as u64);
                bulk.on_originals(t, originals);
                (0..originals).for_each(|_| single.on_original(t));
                bulk.retries_at(t, sent);
                (0..sent).for_each(|_| single.retry_at(t));
                let attempt = if retries { 2 } else { 1 };
                let allowed = bulk.in_flight_fail(t, attempt, failures, true, zero);
                let mut one = 0;
                for _ in 0..failures {
                    single.attempt_ended(attempt, t);
                    if single.check(t, RetryCost::Normal).allowed {
                        single.withdraw(t, RetryCost::Normal);
                        if zero {
                            single.retry_at(t);
                        }
                        one += 1;
                    }
                }
                if zero {
                    bulk.retries_at(t, one);
                }
                assert_eq!(allowed, Some(one), "{} step {i}", cfg.name());
                assert_eq!(bulk.level(t), single.level(t), "{} step {i}", cfg.name());
            }
        }
    }

    /// gRPC throttling's failures as counts: the tokens and the retries let go are those of the
    /// same failures one at a time, each taking its token and then asking.
    #[test]
    fn grpc_failures_as_counts_equal_one_at_a_time() {
        for (max_milli, ratio_milli) in [(10_000, 100), (3_000, 1_000), (1_000, 500), (7_500, 1)] {
            let cfg = BudgetConfig::Grpc(GrpcThrottleConfig {
                max_milli,
                ratio_milli,
            });
            let (mut bulk, mut single) = (Budget::new(cfg, None), Budget::new(cfg, None));
            for (step, (successes, failures, qualified)) in [
                (0u64, 3u64, true),
                (0, 1, false),
                (4, 2, true),
                (0, 40, true),
                (1000, 0, true),
                (7, 9, true),
                (0, 5, false),
            ]
            .into_iter()
            .enumerate()
            {
                let t = Micros::from_millis(10 * step as u64);
                bulk.on_successes(t, successes, None);
                (0..successes).for_each(|_| single.on_success(t, None));
                let allowed = bulk.on_failures(t, qualified, failures);
                let mut one = 0;
                for _ in 0..failures {
                    single.on_failure(t, qualified);
                    one += u64::from(single.check(t, RetryCost::Normal).allowed);
                }
                assert_eq!(allowed, Some(one), "{max_milli}/{ratio_milli} step {step}");
                assert_eq!(bulk.level(t), single.level(t), "step {step}");
            }
        }
        let mut ratio = Budget::new(BudgetConfig::Ratio(RatioConfig::FINAGLE), None);
        assert_eq!(ratio.on_failures(Micros::ZERO, true, 5), None);
    }
}
