//! A whole-token bucket refilled by a fraction per success.
//!
//! A retry needs one whole token. Each success (a first try included) adds `refill`, a fraction
//! such as 0.1, so the steady state is one retry per ten successes. The level is kept in
//! thousandths of a token, so ten refills of 0.1 make exactly one token, never 0.9999999999999999.

/// Bucket size and refill, in thousandths of a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TokenBucketConfig {
    /// Maximum level, in thousandths (10 tokens = 10000).
    pub max_milli: u64,
    /// Added per success, in thousandths (0.1 = 100).
    pub refill_milli: u64,
}

impl TokenBucketConfig {
    /// The cheat sheet's bucket: at most 10 tokens, 0.1 per success.
    pub const CHEAT_SHEET: TokenBucketConfig = TokenBucketConfig {
        max_milli: 10_000,
        refill_milli: 100,
    };
}

/// The live bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TokenBucket {
    cfg: TokenBucketConfig,
    tokens: super::Tokens,
}

impl TokenBucket {
    pub(super) fn new(cfg: TokenBucketConfig, start: Option<u64>) -> Self {
        TokenBucket {
            cfg,
            tokens: super::Tokens::new(cfg.max_milli, start),
        }
    }
}

impl TokenBucket {
    /// `n` successes' refills (each capped at the maximum, as one sum is).
    pub(super) fn on_successes(&mut self, n: u64) {
        self.tokens.add(n.saturating_mul(self.cfg.refill_milli));
    }

    /// `n` whole tokens taken.
    pub(super) fn withdraw_many(&mut self, n: u64) {
        self.tokens.take(n.saturating_mul(1000));
    }
}

impl super::Behaviour for TokenBucket {
    fn level(&self, _now: crate::Micros) -> super::Level {
        self.tokens.level()
    }
    fn cost(&self, _kind: super::RetryCost) -> u64 {
        1000 // one whole token
    }
    fn withdraw(&mut self, _now: crate::Micros, cost: u64) -> u64 {
        self.tokens.take(cost)
    }
    fn on_success(&mut self, _last_taken: Option<u64>) {
        self.tokens.add(self.cfg.refill_milli);
    }
}
