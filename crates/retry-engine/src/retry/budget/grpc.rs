//! gRPC retry throttling (gRFC A6).
//!
//! A token count that starts full. Each qualifying failure takes one token away, each success
//! adds `token_ratio`; retries are allowed only while the count is above half the maximum. Kept
//! in thousandths, as grpc-java does.

/// Maximum and ratio, in thousandths of a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct GrpcThrottleConfig {
    /// `maxTokens` x 1000 (10 tokens = 10000). In [1, 1000] tokens.
    pub max_milli: u64,
    /// `tokenRatio` x 1000 (0.1 = 100). Up to 3 decimals, as the spec allows.
    pub ratio_milli: u64,
}

impl GrpcThrottleConfig {
    /// The gRFC's example: maxTokens 10, tokenRatio 0.1.
    pub const EXAMPLE: GrpcThrottleConfig = GrpcThrottleConfig {
        max_milli: 10_000,
        ratio_milli: 100,
    };
}

/// The live throttle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct GrpcThrottle {
    cfg: GrpcThrottleConfig,
    tokens: super::Tokens,
}

impl GrpcThrottle {
    pub(super) fn new(cfg: GrpcThrottleConfig, start: Option<u64>) -> Self {
        GrpcThrottle {
            cfg,
            tokens: super::Tokens::new(cfg.max_milli, start),
        }
    }
}

impl GrpcThrottle {
    /// `n` successes at once: `n` ratios, the count kept at most the maximum.
    pub(super) fn on_successes(&mut self, n: u64) {
        self.tokens.add(n.saturating_mul(self.cfg.ratio_milli));
    }

    /// `n` failures at once, each taking its token (when `qualified`) and then asking: how many
    /// retries the throttle lets go, the first ones, as `n` failures one at a time would.
    pub(super) fn fail_many(&mut self, qualified: bool, n: u64) -> u64 {
        let (level, threshold) = (self.tokens.milli, self.cfg.max_milli / 2);
        if !qualified {
            return if level > threshold { n } else { 0 };
        }
        self.tokens.take(n.saturating_mul(1000));
        // The i-th asks at `level - 1000 i`: above the threshold while `1000 i < level - threshold`.
        match level.checked_sub(threshold + 1) {
            Some(room) => n.min(room / 1000),
            None => 0,
        }
    }
}

impl super::Behaviour for GrpcThrottle {
    fn level(&self, _now: crate::Micros) -> super::Level {
        self.tokens.level()
    }
    fn cost(&self, _kind: super::RetryCost) -> u64 {
        0 // it gates; failures, not retries, take its tokens
    }
    /// Retries only while the count is above half the maximum.
    fn allows(&self, level: super::Level, _cost: u64) -> (bool, Option<u64>) {
        let threshold = self.cfg.max_milli / 2;
        (level.milli > threshold, Some(threshold))
    }
    fn withdraw(&mut self, _now: crate::Micros, _cost: u64) -> u64 {
        0
    }
    fn on_success(&mut self, _last_taken: Option<u64>) {
        self.tokens.add(self.cfg.ratio_milli);
    }
    fn on_failure(&mut self, qualified: bool) {
        if qualified {
            self.tokens.take(1000);
        }
    }
}
