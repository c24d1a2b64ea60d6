//! Envoy's limit on retries in flight: a cluster's `circuit_breakers` `max_retries` (3 unless
//! set) caps the retries outstanding at once across all the requests an Envoy sends to it. A
//! retry over the limit is not sent and the request fails with the error it had (Envoy's
//! `upstream_rq_retry_overflow`). A retry counts from the moment it is sent to the end of its
//! attempt; one still waiting out its backoff does not count (envoy#30205).

use crate::retry::time::Micros;

/// The limit on retries in flight.
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

/// The live limit: retries sent and not yet ended, and the send times of retries still in
/// their backoff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Concurrent {
    cfg: ConcurrentConfig,
    in_flight: u64,
    /// When each retry waiting out its backoff is sent, in no order (a few at a time).
    pending: alloc::vec::Vec<Micros>,
}

impl Concurrent {
    pub(super) fn new(cfg: ConcurrentConfig) -> Self {
        Concurrent {
            cfg,
            in_flight: 0,
            pending: alloc::vec::Vec::new(),
        }
    }

    /// Moves the retries sent by `now` from pending to in flight.
    fn settle(&mut self, now: Micros) {
        let before = self.pending.len();
        self.pending.retain(|at| *at > now);
        self.in_flight += (before - self.pending.len()) as u64;
    }
}

impl super::Behaviour for Concurrent {
    fn level(&self, now: Micros) -> super::Level {
        let sent = self.pending.iter().filter(|at| **at <= now).count() as u64;
        let busy = self.in_flight + sent;
        let max = u64::from(self.cfg.max);
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
    fn retry_at(&mut self, at: Micros) {
        self.pending.push(at);
    }
    fn retry_ended(&mut self, now: Micros) {
        self.settle(now);
        self.in_flight = self.in_flight.saturating_sub(1);
    }
}
