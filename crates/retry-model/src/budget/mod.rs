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
mod grpc;
mod rate;
mod ratio;
mod window;

pub use aws::AwsQuotaConfig;
pub use bucket::TokenBucketConfig;
pub use grpc::GrpcThrottleConfig;
pub use rate::RateConfig;
pub use ratio::RatioConfig;

use crate::time::Micros;
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

/// A live budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    config: BudgetConfig,
    tokens: u64,                // AWS, bucket, gRPC: thousandths in [0, max]
    window: Option<SlotWindow>, // ratio: net deposits; rate: retries taken
}

impl Budget {
    /// A budget at its initial level, or at `start_milli` (clamped to the maximum) when given.
    /// For a ratio budget `start_milli` credits that many thousandths of a retry at time 0.
    pub fn new(config: BudgetConfig, start_milli: Option<u64>) -> Self {
        let max = Self::max_tokens(&config);
        let tokens = start_milli.map_or(max, |s| s.min(max));
        let window = match config {
            BudgetConfig::Ratio(r) => {
                let mut w = SlotWindow::new(r.window);
                if let Some(s) = start_milli {
                    w.add(Micros::ZERO, s.min(i64::MAX as u64) as i64);
                }
                Some(w)
            }
            BudgetConfig::Rate(r) => {
                let mut w = SlotWindow::new(r.window);
                if let Some(s) = start_milli {
                    // Start with only `s` retries left in the first window.
                    let used = (u64::from(r.per_window) * 1000).saturating_sub(s);
                    w.add(Micros::ZERO, (used / 1000) as i64);
                }
                Some(w)
            }
            _ => None,
        };
        Budget {
            config,
            tokens,
            window,
        }
    }

    /// The configuration.
    pub const fn config(&self) -> &BudgetConfig {
        &self.config
    }

    fn max_tokens(config: &BudgetConfig) -> u64 {
        match config {
            BudgetConfig::Aws(a) => u64::from(a.capacity) * 1000,
            BudgetConfig::Bucket(b) => b.max_milli,
            BudgetConfig::Grpc(g) => g.max_milli,
            _ => 0,
        }
    }

    /// The level at `now`.
    pub fn level(&self, now: Micros) -> Level {
        match &self.config {
            BudgetConfig::None => Level {
                milli: 0,
                max_milli: 0,
            },
            BudgetConfig::Aws(_) | BudgetConfig::Bucket(_) | BudgetConfig::Grpc(_) => Level {
                milli: self.tokens,
                max_milli: Self::max_tokens(&self.config),
            },
            BudgetConfig::Ratio(r) => {
                let sum = self.window.as_ref().map_or(0, |w| w.sum(now)) + r.reserve_milli();
                Level {
                    milli: sum.max(0) as u64,
                    max_milli: sum.max(0) as u64,
                }
            }
            BudgetConfig::Rate(r) => {
                let used = self.window.as_ref().map_or(0, |w| w.sum(now)).max(0) as u64;
                let max = u64::from(r.per_window);
                Level {
                    milli: max.saturating_sub(used) * 1000,
                    max_milli: max * 1000,
                }
            }
        }
    }

    fn cost(&self, kind: RetryCost) -> u64 {
        match &self.config {
            BudgetConfig::None | BudgetConfig::Grpc(_) => 0,
            BudgetConfig::Aws(a) => {
                1000 * u64::from(match kind {
                    RetryCost::Normal => a.retry_cost,
                    RetryCost::Timeout => a.timeout_cost,
                    RetryCost::Throttle => a.throttle_cost,
                })
            }
            BudgetConfig::Bucket(_) | BudgetConfig::Ratio(_) | BudgetConfig::Rate(_) => 1000,
        }
    }

    /// May a retry of this kind happen at `now`? Changes nothing.
    pub fn check(&self, now: Micros, kind: RetryCost) -> BudgetCheck {
        if self.config == BudgetConfig::None {
            let level = Level {
                milli: 0,
                max_milli: 0,
            };
            return BudgetCheck {
                allowed: true,
                level,
                cost_milli: 0,
                threshold_milli: None,
            };
        }
        let level = self.level(now);
        let cost_milli = self.cost(kind);
        match &self.config {
            BudgetConfig::None => BudgetCheck {
                allowed: true,
                level,
                cost_milli,
                threshold_milli: None,
            },
            BudgetConfig::Grpc(g) => {
                let threshold = g.max_milli / 2;
                BudgetCheck {
                    allowed: self.tokens > threshold,
                    level,
                    cost_milli,
                    threshold_milli: Some(threshold),
                }
            }
            _ => BudgetCheck {
                allowed: level.milli >= cost_milli,
                level,
                cost_milli,
                threshold_milli: None,
            },
        }
    }

    /// Takes what a retry of this kind costs and returns the amount taken (thousandths). Call
    /// only after [`Budget::check`] allowed it; never takes the level below zero.
    pub fn withdraw(&mut self, now: Micros, kind: RetryCost) -> u64 {
        let cost = self.cost(kind);
        match &self.config {
            BudgetConfig::None | BudgetConfig::Grpc(_) => 0,
            BudgetConfig::Aws(_) | BudgetConfig::Bucket(_) => {
                let taken = cost.min(self.tokens);
                self.tokens -= taken;
                taken
            }
            BudgetConfig::Ratio(_) => {
                if let Some(w) = self.window.as_mut() {
                    w.add(now, -(cost as i64));
                }
                cost
            }
            BudgetConfig::Rate(_) => {
                if let Some(w) = self.window.as_mut() {
                    w.add(now, 1);
                }
                cost
            }
        }
    }

    /// Records an original call (not a retry). Ratio budgets earn their deposit here.
    pub fn on_original(&mut self, now: Micros) {
        if let BudgetConfig::Ratio(r) = &self.config {
            let deposit = i64::from(r.per_mille);
            if let Some(w) = self.window.as_mut() {
                w.add(now, deposit);
            }
        }
    }

    /// Records a success. `last_taken` is what this request's last retry withdrew, if it retried
    /// (the AWS quota refunds exactly that; a first-try success adds the no-retry increment).
    pub fn on_success(&mut self, _now: Micros, last_taken: Option<u64>) {
        let max = Self::max_tokens(&self.config);
        let add = match &self.config {
            BudgetConfig::Aws(a) => match last_taken {
                Some(t) => t,
                None => u64::from(a.no_retry_increment) * 1000,
            },
            BudgetConfig::Bucket(b) => b.refill_milli,
            BudgetConfig::Grpc(g) => g.ratio_milli,
            _ => 0,
        };
        self.tokens = self.tokens.saturating_add(add).min(max);
    }

    /// Records a failed attempt. gRPC throttling takes one token for a failure that counts
    /// (`qualified`: a retryable status or a "do not retry" pushback); the others ignore it.
    pub fn on_failure(&mut self, _now: Micros, qualified: bool) {
        if let BudgetConfig::Grpc(_) = self.config {
            if qualified {
                self.tokens = self.tokens.saturating_sub(1000);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use crate::rng::Rng;
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
        ]
    }

    proptest! {
        /// Whatever happens, the level stays in [0, max] and an allowed retry never overdraws.
        #[test]
        fn never_negative(cfg in any_config(), events in proptest::collection::vec((0u8..4, 0u64..2_000_000), 0..300)) {
            let mut b = Budget::new(cfg, None);
            let mut now = Micros::ZERO;
            for (e, dt) in events {
                now = now.saturating_add(Micros(dt));
                match e {
                    0 => b.on_original(now),
                    1 => b.on_success(now, None),
                    2 => b.on_failure(now, true),
                    _ => {
                        let c = b.check(now, RetryCost::Normal);
                        if c.allowed {
                            let before = b.level(now).milli;
                            let taken = b.withdraw(now, RetryCost::Normal);
                            prop_assert!(taken <= before || matches!(cfg, BudgetConfig::Ratio(_) | BudgetConfig::Rate(_) | BudgetConfig::None | BudgetConfig::Grpc(_)));
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
}
