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
