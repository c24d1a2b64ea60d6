//! A circuit breaker beside the retry policy.
//!
//! Closed: attempts flow and their results are counted over a sliding window (the same ten-slot
//! window the ratio budget uses, so breaker and budget look at the same failure metric). When
//! failures reach `failure_percent` of at least `min_calls` calls, it opens: no attempt is sent
//! for `open_for`. Then it lets `probes` attempts through (half-open); if all succeed it closes,
//! if one fails it opens again.

use super::params::BreakerConfig;
use crate::retry::budget::SlotWindow;
use crate::retry::time::Micros;

/// The breaker's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BreakerState {
    /// Attempts flow.
    Closed,
    /// No attempts until the given time.
    Open(Micros),
    /// Probes in flight and successes so far.
    HalfOpen {
        /// Probes sent.
        sent: u32,
        /// Probes that succeeded.
        ok: u32,
    },
}

/// A circuit breaker.
#[derive(Clone, Debug)]
pub struct Breaker {
    cfg: BreakerConfig,
    state: BreakerState,
    calls: SlotWindow,
    failures: SlotWindow,
    opened: u32,
}

impl Breaker {
    /// A closed breaker.
    pub fn new(cfg: BreakerConfig) -> Self {
        Breaker {
            cfg,
            state: BreakerState::Closed,
            calls: SlotWindow::new(cfg.window),
            failures: SlotWindow::new(cfg.window),
            opened: 0,
        }
    }

    /// The state at `now` (an elapsed open period turns half-open).
    pub fn state(&mut self, now: Micros) -> BreakerState {
        if let BreakerState::Open(until) = self.state {
            if now >= until {
                self.state = BreakerState::HalfOpen { sent: 0, ok: 0 };
            }
        }
        self.state
    }

    /// How many times it opened.
    pub fn times_opened(&self) -> u32 {
        self.opened
    }

    /// May an attempt go at `now`? Counts a half-open probe when it may.
    pub fn allow(&mut self, now: Micros) -> bool {
        match self.state(now) {
            BreakerState::Closed => true,
            BreakerState::Open(_) => false,
            BreakerState::HalfOpen { sent, ok } => {
                if sent < self.cfg.probes {
                    self.state = BreakerState::HalfOpen { sent: sent + 1, ok };
                    true
                } else {
                    false
                }
            }
        }
    }

    fn open(&mut self, now: Micros) {
        self.state = BreakerState::Open(now.saturating_add(self.cfg.open_for));
        self.opened += 1;
        self.calls = SlotWindow::new(self.cfg.window);
        self.failures = SlotWindow::new(self.cfg.window);
    }

    /// Records an attempt's result at `now`.
    pub fn record(&mut self, now: Micros, success: bool) {
        match self.state(now) {
            BreakerState::Closed => {
                self.calls.add(now, 1);
                if !success {
                    self.failures.add(now, 1);
                }
                let calls = self.calls.sum(now);
                let failures = self.failures.sum(now);
                if calls >= i64::from(self.cfg.min_calls)
                    && failures * 100 >= calls * i64::from(self.cfg.failure_percent)
                {
                    self.open(now);
                }
            }
            BreakerState::Open(_) => {}
            BreakerState::HalfOpen { sent, ok } => {
                if !success {
                    self.open(now);
                } else if ok + 1 >= self.cfg.probes {
                    self.state = BreakerState::Closed;
                } else {
                    self.state = BreakerState::HalfOpen { sent, ok: ok + 1 };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> BreakerConfig {
        BreakerConfig {
            window: Micros::from_secs(10),
            failure_percent: 50,
            min_calls: 4,
            open_for: Micros::from_secs(1),
            probes: 2,
        }
    }

    #[test]
    fn opens_probes_and_closes() {
        let mut b = Breaker::new(cfg());
        let t = Micros::from_millis(100);
        b.record(t, true);
        b.record(t, false);
        b.record(t, false);
        assert!(b.allow(t), "3 calls < min_calls");
        b.record(t, true);
        assert_eq!(
            b.state(t),
            BreakerState::Open(Micros::from_millis(1100)),
            "2 of 4 failed = 50%"
        );
        assert!(!b.allow(Micros::from_millis(1099)));
        let t2 = Micros::from_millis(1100);
        assert!(b.allow(t2));
        assert!(b.allow(t2));
        assert!(!b.allow(t2), "only 2 probes");
        b.record(t2, true);
        b.record(t2, true);
        assert_eq!(b.state(t2), BreakerState::Closed);
        assert_eq!(b.times_opened(), 1);
    }

    #[test]
    fn a_failed_probe_reopens() {
        let mut b = Breaker::new(cfg());
        for _ in 0..4 {
            b.record(Micros::ZERO, false);
        }
        let t = Micros::from_secs(1);
        assert!(b.allow(t));
        b.record(t, false);
        assert!(!b.allow(t));
        assert_eq!(b.times_opened(), 2);
    }
}
