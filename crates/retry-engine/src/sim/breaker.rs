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

impl BreakerState {
    /// The state as a time bin records it: 1 closed, 2 half-open, 3 open.
    pub const fn code(self) -> u8 {
        match self {
            BreakerState::Closed => 1,
            BreakerState::HalfOpen { .. } => 2,
            BreakerState::Open(_) => 3,
        }
    }
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

    /// How many of `n` attempts, asked one after another at `now`, may go: all while closed,
    /// none while open, the probes left while half-open (counted), as `n` calls of
    /// [`Breaker::allow`] answer.
    pub fn allow_many(&mut self, now: Micros, n: u64) -> u64 {
        match self.state(now) {
            BreakerState::Closed => n,
            BreakerState::Open(_) => 0,
            BreakerState::HalfOpen { sent, ok } => {
                let go = n.min(u64::from(self.cfg.probes.saturating_sub(sent)));
                self.state = BreakerState::HalfOpen {
                    sent: sent + go as u32,
                    ok,
                };
                go
            }
        }
    }

    /// Records `n` results at `now`, all successes or all failures, as `n` calls of
    /// [`Breaker::record`] would, without the loop: while closed, the first call after which
    /// the window's failures reach the threshold opens it (and the rest are ignored, as an
    /// open breaker ignores them); while half-open, a failure opens it and the successes
    /// close it once the probes have.
    pub fn record_many(&mut self, now: Micros, success: bool, mut n: u64) {
        while n > 0 {
            match self.state(now) {
                BreakerState::Open(_) => return,
                BreakerState::HalfOpen { .. } if !success => return self.open(now),
                BreakerState::HalfOpen { sent, ok } => {
                    // Successes until the one that closes it.
                    let before = u64::from(self.cfg.probes.saturating_sub(ok + 1));
                    if n <= before {
                        self.state = BreakerState::HalfOpen {
                            sent,
                            ok: ok + n as u32,
                        };
                        return;
                    }
                    self.state = BreakerState::Closed;
                    n -= before + 1;
                }
                BreakerState::Closed => return self.record_closed(now, success, n),
            }
        }
    }

    /// [`Breaker::record_many`] while closed: the calls until the threshold, then open.
    fn record_closed(&mut self, now: Micros, success: bool, n: u64) {
        let (c, f) = (self.calls.sum(now), self.failures.sum(now));
        let (min, pct) = (
            i64::from(self.cfg.min_calls),
            i64::from(self.cfg.failure_percent),
        );
        let n_i = i64::try_from(n).unwrap_or(i64::MAX);
        // The first k in 1..=n after which c + k >= min and (f + k') x 100 >= (c + k) x pct,
        // with k' = k for failures and 0 for successes.
        let k = if success {
            let k = (min - c).max(1);
            (f * 100 >= (c + k) * pct).then_some(k)
        } else {
            let need = c * pct - f * 100;
            let by_ratio = if need <= 0 {
                Some(1)
            } else if pct < 100 {
                Some((need + (100 - pct) - 1) / (100 - pct))
            } else {
                None
            };
            by_ratio.map(|r| r.max(min - c).max(1))
        }
        .filter(|&k| k <= n_i);
        let added = k.unwrap_or(n_i);
        self.calls.add(now, added);
        if !success {
            self.failures.add(now, added);
        }
        if k.is_some() {
            self.open(now);
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

    /// `allow_many` and `record_many` leave the breaker as the same calls one at a time do,
    /// over random batches of results at random moments, for thresholds of every shape.
    #[test]
    fn batches_move_the_breaker_as_single_calls_do() {
        use crate::retry::rng::{Rng, Words};
        let mut rng = Rng::stream(11, 1);
        for (pct, min, probes) in [(50, 4, 2), (0, 3, 1), (100, 1, 3), (30, 1, 0), (75, 20, 5)] {
            let cfg = BreakerConfig {
                failure_percent: pct,
                min_calls: min,
                probes,
                ..cfg()
            };
            let (mut bulk, mut one) = (Breaker::new(cfg), Breaker::new(cfg));
            let mut now = Micros::ZERO;
            for _ in 0..3000 {
                now = now.saturating_add(Micros::from_millis(rng.below(4000)));
                let n = rng.below(12);
                if rng.below(3) == 0 {
                    let go = bulk.allow_many(now, n);
                    let single = (0..n).filter(|_| one.allow(now)).count() as u64;
                    assert_eq!(go, single);
                } else {
                    let success = rng.below(4) == 0;
                    bulk.record_many(now, success, n);
                    (0..n).for_each(|_| one.record(now, success));
                }
                assert_eq!(
                    bulk.state(now),
                    one.state(now),
                    "{pct}% of {min}, {probes} probes"
                );
                assert_eq!(bulk.times_opened(), one.times_opened());
            }
            assert!(
                one.times_opened() > 3,
                "{pct}% of {min}: {}",
                one.times_opened()
            );
        }
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
