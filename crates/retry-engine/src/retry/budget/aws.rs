//! The AWS SDK retry quota (standard mode).
//!
//! A process-wide pool of tokens. A retry must take `retry_cost` tokens (more for a timeout in
//! the pre-2026 constants, fewer for throttling in the 2026 ones); when the pool cannot pay, the
//! error goes back to the caller. A success that needed no retry puts back 1 token; a success
//! after retries puts back what the last retry took. The pool never exceeds its capacity.

/// Token costs, in whole tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct AwsQuotaConfig {
    /// Initial and maximum tokens (500).
    pub capacity: u32,
    /// Cost of a retry after a transient error (5; 14 in 2026).
    pub retry_cost: u32,
    /// Cost of a retry after a connect or read timeout (10; 14 in 2026).
    pub timeout_cost: u32,
    /// Cost of a retry after throttling (5 in both).
    pub throttle_cost: u32,
    /// Tokens returned by a success that needed no retry (1).
    pub no_retry_increment: u32,
}

impl AwsQuotaConfig {
    /// botocore `standard.py` and `quota.py` as shipped before 2026.
    pub const STANDARD: AwsQuotaConfig = AwsQuotaConfig {
        capacity: 500,
        retry_cost: 5,
        timeout_cost: 10,
        throttle_cost: 5,
        no_retry_increment: 1,
    };
    /// The 2026 update: 14 for a non-throttling retry, 5 for throttling, timeouts not special.
    pub const Y2026: AwsQuotaConfig = AwsQuotaConfig {
        capacity: 500,
        retry_cost: 14,
        timeout_cost: 14,
        throttle_cost: 5,
        no_retry_increment: 1,
    };
}

/// The live quota.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct AwsQuota {
    cfg: AwsQuotaConfig,
    tokens: super::Tokens,
}

impl AwsQuota {
    pub(super) fn new(cfg: AwsQuotaConfig, start: Option<u64>) -> Self {
        AwsQuota {
            cfg,
            tokens: super::Tokens::new(u64::from(cfg.capacity) * 1000, start),
        }
    }
}

impl AwsQuota {
    /// `n` successes, each putting back what its request's last retry took (`last_taken`), or
    /// the no-retry increment: as one at a time, the pool capped at its capacity.
    pub(super) fn on_successes(&mut self, n: u64, last_taken: Option<u64>) {
        let each = last_taken.unwrap_or(u64::from(self.cfg.no_retry_increment) * 1000);
        self.tokens.add(each.saturating_mul(n));
    }

    /// Takes `n` retries' costs at once (each of them allowed, so each takes it in full).
    pub(super) fn withdraw_many(&mut self, cost: u64, n: u64) {
        self.tokens.take(cost.saturating_mul(n));
    }
}

impl super::Behaviour for AwsQuota {
    fn level(&self, _now: crate::Micros) -> super::Level {
        self.tokens.level()
    }
    fn cost(&self, kind: super::RetryCost) -> u64 {
        1000 * u64::from(match kind {
            super::RetryCost::Normal => self.cfg.retry_cost,
            super::RetryCost::Timeout => self.cfg.timeout_cost,
            super::RetryCost::Throttle => self.cfg.throttle_cost,
        })
    }
    fn withdraw(&mut self, _now: crate::Micros, cost: u64) -> u64 {
        self.tokens.take(cost)
    }
    fn on_success(&mut self, last_taken: Option<u64>) {
        self.tokens
            .add(last_taken.unwrap_or(u64::from(self.cfg.no_retry_increment) * 1000));
    }
}
