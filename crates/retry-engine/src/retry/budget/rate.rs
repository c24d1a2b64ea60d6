//! A fixed process rate: at most `per_window` retries in any sliding `window` (the SRE book's
//! example is 60 retries per minute per process).

use crate::retry::time::Micros;

/// The rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RateConfig {
    /// Retries allowed per window. In [1, 1000000].
    pub per_window: u32,
    /// The window (1 minute in the SRE example). In [1 s, 1 h].
    pub window: Micros,
}

impl RateConfig {
    /// The SRE book's 60 per minute.
    pub const SRE: RateConfig = RateConfig {
        per_window: 60,
        window: Micros::from_secs(60),
    };
}

/// The live rate budget: retries taken over the window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct RateBudget {
    cfg: RateConfig,
    window: super::SlotWindow,
}

impl RateBudget {
    /// `start` leaves only that many thousandths of a retry in the first window.
    pub(super) fn new(cfg: RateConfig, start: Option<u64>) -> Self {
        let mut window = super::SlotWindow::new(cfg.window);
        if let Some(s) = start {
            let used = (u64::from(cfg.per_window) * 1000).saturating_sub(s);
            window.add(Micros::ZERO, (used / 1000) as i64);
        }
        RateBudget { cfg, window }
    }
}

impl RateBudget {
    /// `n` retries taken at `now`.
    pub(super) fn withdraw_many(&mut self, now: Micros, n: u64) {
        self.window.add(now, n.min(i64::MAX as u64) as i64);
    }
}

impl super::Behaviour for RateBudget {
    fn level(&self, now: Micros) -> super::Level {
        let used = self.window.sum(now).max(0) as u64;
        let max = u64::from(self.cfg.per_window);
        super::Level {
            milli: max.saturating_sub(used) * 1000,
            max_milli: max * 1000,
        }
    }
    fn cost(&self, _kind: super::RetryCost) -> u64 {
        1000
    }
    fn withdraw(&mut self, now: Micros, cost: u64) -> u64 {
        self.window.add(now, 1);
        cost
    }
}
