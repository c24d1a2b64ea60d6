//! Envoy's limits on retries in flight, shared by all the requests an Envoy sends to a cluster.
//!
//! - A cluster's `circuit_breakers` `max_retries` (3 unless set) caps the retries outstanding at
//!   once ([`ConcurrentConfig`], `budget=envoy`).
//! - A `retry_budget` replaces that cap with a share of the active requests: at most
//!   `budget_percent` of the attempts in flight (originals and retries together) may be
//!   retries, and never fewer than `min_retry_concurrency` ([`EnvoyBudgetConfig`],
//!   `budget=envoy_budget`). The share is truncated to a whole number of retries, as Envoy's
//!   `uint64_t` conversion does.
//!
//! A retry over the limit is not sent and the request fails with the error it had (Envoy's
//! `upstream_rq_retry_overflow`). A retry counts from the moment it is sent to the end of its
//! attempt; one still waiting out its backoff does not count (envoy#30205).

use crate::retry::time::Micros;

/// The fixed limit on retries in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ConcurrentConfig {
    /// Retries outstanding at most.
    pub max: u32,
}

impl ConcurrentConfig {
    /// Envoy's default: 3 retries in flight per cluster.
    pub const ENVOY: ConcurrentConfig = ConcurrentConfig { max: 3 };
}

/// Envoy's retry budget: retries in flight as a share of the attempts in flight, with a floor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct EnvoyBudgetConfig {
    /// Retries allowed per 1000 attempts in flight (tenths of a percent: 20 % = 200). In
    /// [0, 1000].
    pub per_mille: u32,
    /// Retries in flight always allowed (`min_retry_concurrency`).
    pub min: u32,
}

impl EnvoyBudgetConfig {
    /// Envoy's defaults when a `retry_budget` is given with no fields: 20 %, at least 3.
    pub const ENVOY: EnvoyBudgetConfig = EnvoyBudgetConfig {
        per_mille: 200,
        min: 3,
    };
}

/// Which limit a live [`Concurrent`] applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Limit {
    Fixed(ConcurrentConfig),
    Share(EnvoyBudgetConfig),
}

/// The live limit: retries sent and not yet ended, the send times of retries still in their
/// backoff, and (for the share) the originals in flight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Concurrent {
    limit: Limit,
    in_flight: u64,
    originals: u64,
    /// Attempts that ended at `ended_at`, still active at that instant (for the share).
    ended: u64,
    ended_at: Micros,
    /// When the retries waiting out their backoff are sent, and how many at each, in no order
    /// (one at a time, or a population run's cohorts).
    pending: alloc::vec::Vec<(Micros, u64)>,
}

impl Concurrent {
    pub(super) fn new(limit: Limit) -> Self {
        Concurrent {
            limit,
            in_flight: 0,
            originals: 0,
            ended: 0,
            ended_at: Micros::ZERO,
            pending: alloc::vec::Vec::new(),
        }
    }

    /// Moves the retries sent by `now` from pending to in flight.
    fn settle(&mut self, now: Micros) {
        let mut sent = 0;
        self.pending.retain(|&(at, n)| {
            sent += if at <= now { n } else { 0 };
            at > now
        });
        self.in_flight += sent;
    }

    /// `n` retries let go at once, sent at `at`.
    pub(super) fn retries_at(&mut self, at: Micros, n: u64) {
        if n > 0 {
            self.pending.push((at, n));
        }
    }

    /// `n` attempts ended at `now` (retries' when `retries`), without asking.
    pub(super) fn ended_many(&mut self, now: Micros, retries: bool, n: u64) {
        if n == 0 {
            return;
        }
        self.settle(now);
        if retries {
            self.in_flight = self.in_flight.saturating_sub(n);
        } else {
            self.originals = self.originals.saturating_sub(n);
        }
        if now == self.ended_at {
            self.ended += n;
        } else {
            (self.ended_at, self.ended) = (now, n);
        }
    }

    /// `n` failed attempts at `now` (retries' when `retries`), each ending and then asking, as
    /// one at a time would: how many the fixed limit lets retry. `zero`: each one let go is
    /// sent at once (a wait of nothing), and so in flight for the next to ask; else none is.
    /// The caller records those sent ([`Concurrent::retries_at`]). `None` for the share, whose
    /// limit moves with every end.
    pub(super) fn fail_many(
        &mut self,
        now: Micros,
        retries: bool,
        n: u64,
        zero: bool,
    ) -> Option<u64> {
        let Limit::Fixed(c) = self.limit else {
            return None;
        };
        let max = u64::from(c.max);
        self.settle(now);
        let busy = self.in_flight;
        self.ended_many(now, retries, n);
        // A retry's own end frees its place before it asks: the i-th asks at `busy - i`, and
        // once one goes at once, it holds the place the next frees. An original frees none.
        let allowed = match (retries, zero) {
            (true, _) => n - busy.saturating_sub(max).min(n),
            (false, true) => max.saturating_sub(busy).min(n),
            (false, false) => {
                if busy < max {
                    n
                } else {
                    0
                }
            }
        };
        Some(allowed)
    }

    /// The most retries in flight allowed at `now` while `retries` retries are in flight.
    fn max(&self, now: Micros, retries: u64) -> u64 {
        match self.limit {
            Limit::Fixed(c) => u64::from(c.max),
            Limit::Share(b) => {
                let ending = if now == self.ended_at { self.ended } else { 0 };
                let active = self.originals + retries + ending;
                (active * u64::from(b.per_mille) / 1000).max(u64::from(b.min))
            }
        }
    }

    /// An attempt ended at `now`: it stays active for the rest of that instant.
    fn ended_now(&mut self, now: Micros) {
        if now == self.ended_at {
            self.ended += 1;
        } else {
            self.ended_at = now;
            self.ended = 1;
        }
    }
}

impl super::Behaviour for Concurrent {
    fn level(&self, now: Micros) -> super::Level {
        let sent: u64 = self
            .pending
            .iter()
            .filter(|(at, _)| *at <= now)
            .map(|(_, n)| n)
            .sum();
        let busy = self.in_flight + sent;
        let max = self.max(now, busy);
        super::Level {
            milli: max.saturating_sub(busy) * 1000,
            max_milli: max * 1000,
        }
    }
    fn cost(&self, _kind: super::RetryCost) -> u64 {
        1000 // one retry in flight
    }
    fn withdraw(&mut self, now: Micros, _cost: u64) -> u64 {
        self.settle(now);
        0
    }
    fn on_original(&mut self, _now: Micros) {
        self.originals += 1;
    }
    fn retry_at(&mut self, at: Micros) {
        self.pending.push((at, 1));
    }
    fn retry_ended(&mut self, now: Micros) {
        self.settle(now);
        self.in_flight = self.in_flight.saturating_sub(1);
        self.ended_now(now);
    }
    fn original_ended(&mut self, now: Micros) {
        self.originals = self.originals.saturating_sub(1);
        self.ended_now(now);
    }
}
