//! A ratio budget: retries at most a percentage of calls over a sliding window, plus a floor.
//!
//! Each original call deposits `percent / 100` of a retry into the current tenth of the window;
//! each retry withdraws one whole retry. Deposits and withdrawals fall out of the window after
//! `window`. On top, a reserve of `min_per_sec * window` retries is always available, so a quiet
//! service can still retry. This is Finagle's and tower's design, counted exactly: tower turns
//! 30% into "1 retry per 3 calls" (33%); here 30% is 30%.

use crate::retry::time::Micros;

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

/// The live ratio budget: net deposits over the window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct RatioBudget {
    cfg: RatioConfig,
    window: super::SlotWindow,
}

impl RatioBudget {
    /// `start` credits that many thousandths of a retry at time 0.
    pub(super) fn new(cfg: RatioConfig, start: Option<u64>) -> Self {
        let mut window = super::SlotWindow::new(cfg.window);
        if let Some(s) = start {
            window.add(Micros::ZERO, s.min(i64::MAX as u64) as i64);
        }
        RatioBudget { cfg, window }
    }
}

impl RatioBudget {
    /// `n` originals' deposits at `now`.
    pub(super) fn on_originals(&mut self, now: Micros, n: u64) {
        let amount = i128::from(n) * i128::from(self.cfg.per_mille);
        self.window
            .add(now, amount.min(i128::from(i64::MAX)) as i64);
    }

    /// `n` whole retries taken at `now`.
    pub(super) fn withdraw_many(&mut self, now: Micros, n: u64) {
        let amount = i128::from(n) * 1000;
        self.window
            .add(now, -(amount.min(i128::from(i64::MAX)) as i64));
    }
}

impl super::Behaviour for RatioBudget {
    fn level(&self, now: Micros) -> super::Level {
        let sum = (self.window.sum(now) + self.cfg.reserve_milli()).max(0) as u64;
        super::Level {
            milli: sum,
            max_milli: sum,
        }
    }
    fn cost(&self, _kind: super::RetryCost) -> u64 {
        1000
    }
    fn withdraw(&mut self, now: Micros, cost: u64) -> u64 {
        self.window.add(now, -(cost as i64));
        cost
    }
    fn on_original(&mut self, now: Micros) {
        self.window.add(now, i64::from(self.cfg.per_mille));
    }
}
