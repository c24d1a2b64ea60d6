//! The AWS SDKs' adaptive retry mode: a client-side rate limiter whose rate follows CUBIC.
//!
//! Why limit the client? Retries with backoff still send every first attempt at full speed; when
//! the service throttles, the caller keeps pushing. Adaptive mode measures the client's own send
//! rate and, on each throttling response, cuts the rate it allows to 70% of what it was sending,
//! then grows it back along a cubic curve (slow near the old maximum, faster past it). Sends wait
//! for a token from a bucket filled at that rate.
//!
//! This follows botocore 1.44.8 (`retries/adaptive.py`, `bucket.py`, `throttling.py`) as coded:
//! CUBIC with C = 0.4 and beta = 0.7; the measured rate smoothed with 0.8 over 0.5 s buckets; a
//! fill rate of at least 0.5 per second; a new rate at most twice the measured one; the limiter
//! off until the first throttling response. One difference, for an event-driven simulation: a
//! send that finds the bucket empty takes its token at once and waits for it (the bucket goes
//! below zero, so later sends queue behind it), where botocore's thread waits and takes the
//! token when it is there; the waits are the same unless the rate changes while one waits.
//! Float arithmetic (`libm`, so native and wasm agree bit for bit).
//!
//! ```
//! use retry_model::{AdaptiveLimiter, Micros};
//! let mut l = AdaptiveLimiter::new(Micros::ZERO);
//! assert_eq!(l.acquire(Micros::ZERO), Micros::ZERO); // off until the first throttle
//! for ms in (0..2000).step_by(100) {
//!     l.on_response(Micros::from_millis(ms), false);
//! }
//! l.on_response(Micros::from_millis(2000), true); // throttled: the limiter turns on
//! assert!(l.enabled() && l.fill_rate() < l.measured_rate() * 2.0);
//! ```

use crate::retry::time::Micros;

/// CUBIC's scale constant.
const C: f64 = 0.4;
/// CUBIC's multiplicative decrease.
const BETA: f64 = 0.7;
/// The slowest fill rate, per second.
const MIN_RATE: f64 = 0.5;
/// The measured rate's smoothing.
const SMOOTH: f64 = 0.8;
/// The measured rate's bucket, in seconds.
const BUCKET_S: f64 = 0.5;

/// One client's (or one process's) adaptive rate limiter.
#[derive(Clone, Debug, PartialEq)]
pub struct AdaptiveLimiter {
    enabled: bool,
    // CUBIC
    w_max: f64,
    k: f64,
    last_fail: f64,
    // the token bucket (capacity below 0: sends queued for tokens not yet there)
    fill_rate: f64,
    max_capacity: f64,
    capacity: f64,
    last_refill: f64,
    // the rate clocker
    measured: f64,
    last_bucket: f64,
    count: u64,
}

fn secs(t: Micros) -> f64 {
    t.0 as f64 / 1e6
}

impl AdaptiveLimiter {
    /// A limiter created at `now`: botocore's `register_retry_handler` (CUBIC from 0, a bucket
    /// of rate 1 and no tokens, the clocker's bucket at the whole second).
    pub fn new(now: Micros) -> Self {
        let t = secs(now);
        AdaptiveLimiter {
            enabled: false,
            w_max: 0.0,
            k: 0.0,
            last_fail: t,
            fill_rate: 1.0,
            max_capacity: 1.0,
            capacity: 0.0,
            last_refill: t,
            measured: 0.0,
            last_bucket: libm::floor(t),
            count: 0,
        }
    }

    /// Whether a throttling response has turned the limiter on.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// The bucket's fill rate, per second: the send rate the limiter allows.
    pub fn fill_rate(&self) -> f64 {
        self.fill_rate
    }

    /// The client's measured send rate, per second.
    pub fn measured_rate(&self) -> f64 {
        self.measured
    }

    /// The tokens in the bucket (below 0 while sends wait for theirs).
    pub fn capacity(&self) -> f64 {
        self.capacity
    }

    fn refill(&mut self, t: f64) {
        let filled = self.capacity + (t - self.last_refill) * self.fill_rate;
        self.capacity = filled.min(self.max_capacity);
        self.last_refill = t;
    }

    /// A send at `now` takes a token; the result is how long it waits for it (zero while the
    /// limiter is off or a token is there).
    pub fn acquire(&mut self, now: Micros) -> Micros {
        if !self.enabled {
            return Micros::ZERO;
        }
        let t = secs(now);
        self.refill(t);
        self.capacity -= 1.0;
        if self.capacity >= 0.0 {
            return Micros::ZERO;
        }
        let wait = -self.capacity / self.fill_rate;
        Micros(libm::ceil(wait * 1e6) as u64)
    }

    /// A send at `now` takes a token if one is there (or the limiter is off); `false` when it
    /// must wait (see [`AdaptiveLimiter::due_in`]). The simulator queues such sends and hands out
    /// tokens as they come, as botocore's waiting threads take them.
    pub fn try_take(&mut self, now: Micros) -> bool {
        if !self.enabled {
            return true;
        }
        self.refill(secs(now));
        if self.capacity >= 1.0 {
            self.capacity -= 1.0;
            return true;
        }
        false
    }

    /// How long until the next token is there, at the current rate (whole microseconds,
    /// rounded up).
    pub fn due_in(&self) -> Micros {
        let wait = (1.0 - self.capacity).max(0.0) / self.fill_rate;
        Micros(libm::ceil(wait * 1e6) as u64)
    }

    /// Gives back a token taken by [`AdaptiveLimiter::acquire`] whose send will not happen (its
    /// request gave up before the token came due).
    pub fn give_back(&mut self) {
        self.capacity += 1.0;
    }

    /// When the next token is there at the current rate, in whole µs (rounded up): for a model
    /// that hands out tokens as counts.
    pub fn next_token_at(&self) -> Micros {
        let wait = (1.0 - self.capacity).max(0.0) / self.fill_rate;
        Micros(libm::ceil((self.last_refill + wait) * 1e6) as u64)
    }

    /// Takes up to `n` tokens at `now`, those the bucket holds (all `n` while the limiter is
    /// off): how many it took. `n` calls of [`AdaptiveLimiter::try_take`] at `now`, at once.
    pub fn take_up_to(&mut self, now: Micros, n: u64) -> u64 {
        if !self.enabled {
            return n;
        }
        self.refill(secs(now));
        let k = (libm::floor(self.capacity.max(0.0)) as u64).min(n);
        self.capacity -= k as f64;
        k
    }

    /// Gives back `n` tokens taken by [`AdaptiveLimiter::take_up_to`] that no send used.
    pub fn give_back_n(&mut self, n: u64) {
        self.capacity += n as f64;
    }

    /// `n` responses at `now`, all throttling or none: the state `n` calls of
    /// [`AdaptiveLimiter::on_response`] leave. Once a call at `now` leaves everything but the
    /// count of responses as it was, every later one does too (each reads only that state and
    /// `now`): the rest are counted at once.
    pub fn on_responses(&mut self, now: Micros, throttled: bool, n: u64) {
        for i in 0..n {
            let before = AdaptiveLimiter {
                count: 0,
                ..self.clone()
            };
            self.on_response(now, throttled);
            let count = self.count;
            if (AdaptiveLimiter {
                count: 0,
                ..self.clone()
            }) == before
            {
                self.count = count + (n - i - 1);
                return;
            }
        }
    }

    /// A response at `now`, throttling or not: the measured rate, CUBIC and the fill rate move.
    pub fn on_response(&mut self, now: Micros, throttled: bool) {
        let t = secs(now);
        let measured = self.record(t);
        let new_rate = if throttled {
            let rate = if self.enabled {
                measured.min(self.fill_rate)
            } else {
                measured
            };
            self.w_max = rate;
            self.k = libm::pow(self.w_max * (1.0 - BETA) / C, 1.0 / 3.0);
            self.last_fail = t;
            self.enabled = true;
            rate * BETA
        } else {
            C * libm::pow(t - self.last_fail - self.k, 3.0) + self.w_max
        };
        self.set_rate(t, new_rate.min(2.0 * measured));
    }

    /// The rate clocker: one more response; the smoothed rate of the buckets passed.
    fn record(&mut self, t: f64) -> f64 {
        let bucket = libm::floor(t / BUCKET_S) * BUCKET_S;
        self.count += 1;
        if bucket > self.last_bucket {
            let rate = self.count as f64 / (bucket - self.last_bucket);
            self.measured = rate * SMOOTH + self.measured * (1.0 - SMOOTH);
            self.count = 0;
            self.last_bucket = bucket;
        }
        self.measured
    }

    /// The bucket's `max_rate` setter: refill, then the new rate (at least 0.5) and capacity.
    fn set_rate(&mut self, t: f64, rate: f64) {
        self.refill(t);
        self.fill_rate = rate.max(MIN_RATE);
        self.max_capacity = if rate >= 1.0 { rate } else { 1.0 };
        self.capacity = self.capacity.min(self.max_capacity);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A limiter that has heard a second of answers, then a throttle.
    fn warmed() -> AdaptiveLimiter {
        let mut l = AdaptiveLimiter::new(Micros::ZERO);
        for ms in (0..1500).step_by(10) {
            l.on_response(Micros::from_millis(ms), false);
        }
        l.on_response(Micros::from_millis(1500), true);
        l
    }

    #[test]
    fn responses_at_once_leave_what_one_at_a_time_leaves() {
        for (at_ms, throttled, n) in [
            (1600, false, 1),
            (1600, false, 5_000),
            (1600, true, 3),
            (2100, true, 200),
            (4000, false, 70),
            (4000, true, 100_000),
        ] {
            let (mut one, mut all) = (warmed(), warmed());
            let now = Micros::from_millis(at_ms);
            for _ in 0..n {
                one.on_response(now, throttled);
            }
            all.on_responses(now, throttled, n);
            assert_eq!(one, all, "{at_ms} ms, throttled {throttled}, {n}");
            // And the next bucket's measured rate counts every one of them.
            let next = now.saturating_add(Micros::from_secs(1));
            one.on_response(next, false);
            all.on_response(next, false);
            assert_eq!(one, all);
        }
    }

    #[test]
    fn tokens_taken_at_once_are_those_taken_one_at_a_time() {
        let mut one = warmed();
        let mut all = warmed();
        let now = Micros::from_millis(1900);
        let mut took = 0;
        while took < 50 && one.try_take(now) {
            took += 1;
        }
        assert!(took > 0, "the bucket holds tokens after 0.4 s");
        assert_eq!(all.take_up_to(now, 50), took);
        assert_eq!(one, all);
        // The next token comes when `due_in` says, after the last refill.
        assert_eq!(all.next_token_at(), now.saturating_add(all.due_in()));
        let later = all.next_token_at();
        assert_eq!(all.take_up_to(Micros(later.0 - 1), 1), 0);
        assert_eq!(all.take_up_to(later, 1), 1);
        // Off, every send goes.
        assert_eq!(AdaptiveLimiter::new(Micros::ZERO).take_up_to(now, 9), 9);
    }
}
