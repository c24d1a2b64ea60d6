//! A ratio budget: retries at most a percentage of calls over a sliding window, plus a floor.
//!
//! Each original call deposits `percent / 100` of a retry into the current tenth of the window;
//! each retry withdraws one whole retry. Deposits and withdrawals fall out of the window after
//! `window`. On top, a reserve of `min_per_sec * window` retries is always available, so a quiet
//! service can still retry. This is Finagle's and tower's design, counted exactly: tower turns
//! 30% into "1 retry per 3 calls" (33%); here 30% is 30%.

use crate::time::Micros;

/// Ratio, window and floor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RatioConfig {
    /// Retries allowed per 1000 calls (tenths of a percent: 20% = 200). In [1, 10000].
    pub per_mille: u32,
    /// How long a deposit counts. In [1 s, 60 s].
    pub window: Micros,
    /// Retries per second always allowed. At most 10000.
    pub min_per_sec: u32,
}

impl RatioConfig {
    /// Finagle's and tower's default: 20% + 10/s over 10 s.
    pub const FINAGLE: RatioConfig = RatioConfig {
        per_mille: 200,
        window: Micros::from_secs(10),
        min_per_sec: 10,
    };
    /// The book chapter's budget: 10% over 10 s, no floor.
    pub const CHAPTER: RatioConfig = RatioConfig {
        per_mille: 100,
        window: Micros::from_secs(10),
        min_per_sec: 0,
    };

    /// The always-available reserve, in thousandths of a retry.
    pub fn reserve_milli(&self) -> i64 {
        i64::from(self.min_per_sec) * (self.window.0 / 1_000_000) as i64 * 1000
    }
}
