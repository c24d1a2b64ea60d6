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
use alloc::collections::BTreeMap;

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
    // Signed: a population run may end a cohort of originals a moment before the last of them
    // is counted as sent; the balance is right once it is, and the share reads it from 0 up.
    originals: i64,
    /// Attempts that ended at `ended_at`, still active at that instant (for the share).
    ended: u64,
    ended_at: Micros,
    /// When the retries waiting out their backoff are sent, and how many at each (one at a
    /// time, or a population run's cohorts), earliest first.
    pending: BTreeMap<Micros, u64>,
}

impl Concurrent {
    pub(super) fn new(limit: Limit) -> Self {
        Concurrent {
            limit,
            in_flight: 0,
            originals: 0,
            ended: 0,
            ended_at: Micros::ZERO,
            pending: BTreeMap::new(),
        }
    }

    /// Moves the retries sent by `now` from pending to in flight.
    fn settle(&mut self, now: Micros) {
        while let Some(first) = self.pending.first_entry() {
            if *first.key() > now {
                break;
            }
            self.in_flight += first.remove();
        }
    }

    /// `n` originals sent at once.
    pub(super) fn originals_sent(&mut self, n: u64) {
        self.originals = self
            .originals
            .saturating_add(i64::try_from(n).unwrap_or(i64::MAX));
    }

    /// The originals in flight, as the share counts them.
    fn originals(&self) -> u64 {
        u64::try_from(self.originals).unwrap_or(0)
    }

    /// `n` retries let go at once, sent at `at`.
    pub(super) fn retries_at(&mut self, at: Micros, n: u64) {
        if n > 0 {
            *self.pending.entry(at).or_insert(0) += n;
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
            let n = i64::try_from(n).unwrap_or(i64::MAX);
            self.originals = self.originals.saturating_sub(n);
        }
        if now == self.ended_at {
            self.ended += n;
        } else {
            (self.ended_at, self.ended) = (now, n);
        }
    }

    /// `n` failed attempts at `now` (retries' when `retries`), each ending and then asking, as
    /// one at a time would: how many the limit lets retry. `zero`: each one let go is sent at
    /// once (a wait of nothing), and so in flight for the next to ask; else none is. The caller
    /// records those sent ([`Concurrent::retries_at`]).
    pub(super) fn fail_many(&mut self, now: Micros, retries: bool, n: u64, zero: bool) -> u64 {
        self.settle(now);
        let busy = self.in_flight;
        // An attempt that ends stays active for the rest of the instant: ending moves it from
        // in flight to ended, and the share's count of active attempts stays as it was.
        let max = self.max(now, busy);
        self.ended_many(now, retries, n);
        if let (true, Limit::Share(b)) = (zero, self.limit) {
            return self.fail_at_once(b, busy, retries, n);
        }
        // A retry's own end frees its place before it asks: the i-th asks at `busy - i`, and
        // once one goes at once, it holds the place the next frees. An original frees none.
        match (retries, zero) {
            (true, _) => n - busy.saturating_sub(max).min(n),
            (false, true) => max.saturating_sub(busy).min(n),
            (false, false) if busy < max => n,
            (false, false) => 0,
        }
    }

    /// [`Concurrent::fail_many`] under the share with waits of nothing: each retry let go is at
    /// once in flight and active, raising the share, so the failures are taken one at a time.
    /// Called once the `n` have ended; `busy` is the retries in flight before.
    fn fail_at_once(&self, b: EnvoyBudgetConfig, mut busy: u64, retries: bool, n: u64) -> u64 {
        // Ending leaves the active count as it was; only a retry let go raises it.
        let before = if retries { n } else { 0 };
        let active = (self.originals() + self.ended + busy).saturating_sub(before);
        let mut allowed = 0;
        for _ in 0..n {
            busy = busy.saturating_sub(u64::from(retries));
            let share = (active + allowed) * u64::from(b.per_mille) / 1000;
            if busy < share.max(u64::from(b.min)) {
                busy += 1;
                allowed += 1;
            }
        }
        allowed
    }

    /// The most retries in flight allowed at `now` while `retries` retries are in flight.
    fn max(&self, now: Micros, retries: u64) -> u64 {
        match self.limit {
            Limit::Fixed(c) => u64::from(c.max),
            Limit::Share(b) => {
                let ending = if now == self.ended_at { self.ended } else { 0 };
                let active = self.originals() + retries + ending;
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
        let sent: u64 = self.pending.range(..=now).map(|(_, n)| n).sum();
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
        *self.pending.entry(at).or_insert(0) += 1;
    }
    fn retry_ended(&mut self, now: Micros) {
        self.settle(now);
        self.in_flight = self.in_flight.saturating_sub(1);
        self.ended_now(now);
    }
    fn original_ended(&mut self, now: Micros) {
        // One at a time an original always ends after it was counted.
        self.originals = (self.originals - 1).max(0);
        self.ended_now(now);
    }
}
