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
