//! The backoff schedule: each retry's ceiling and the waits many clients draw for it.
//!
//! This is the picture that makes jitter click: with `exponential` every client waits the same,
//! with `full` the waits spread over `[0, ceiling]`, with `equal` over its top half, and with
//! `decorrelated` each client wanders on its own path. Client `i` draws from stream
//! `SCHEDULE_BASE + i` of the link's seed, so adding clients never changes the earlier ones.
//!
//! ```
//! use retry_model::{schedule, Params};
//! let p: Params = "backoff=full&base=10ms&cap=2s&attempts=5&clients=50".parse().unwrap();
//! let s = schedule(&p).unwrap();
//! assert_eq!(s.retries.len(), 4);
//! assert_eq!(s.retries[0].waits.len(), 50);
//! assert!(s.retries.iter().all(|r| r.waits.iter().all(|w| *w <= r.ceiling)));
//! ```

use crate::link::Params;
use crate::request::trace::streams;
use crate::retry::error::ConfigError;
use crate::retry::rng::Rng;
use crate::retry::time::Micros;
use alloc::vec::Vec;

/// One retry across all clients.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RetryColumn {
    /// 1 for the first retry (the second attempt).
    pub retry: u32,
    /// The largest wait this retry can draw (for decorrelated: over every possible path).
    pub ceiling: Micros,
    /// The smallest wait this retry can draw.
    pub low: Micros,
    /// One wait per client.
    pub waits: Vec<Micros>,
}

/// The whole schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Schedule {
    /// One column per retry (`attempts - 1` of them).
    pub retries: Vec<RetryColumn>,
    /// Number of clients.
    pub clients: u32,
}

impl Schedule {
    /// Each client's cumulative waits: when its retry `r` would start if every attempt took no
    /// time. Row = client, column = retry.
    pub fn cumulative(&self, client: usize) -> Vec<Micros> {
        let mut total = Micros::ZERO;
        self.retries
            .iter()
            .map(|r| {
                total = total.saturating_add(r.waits.get(client).copied().unwrap_or(Micros::ZERO));
                total
            })
            .collect()
    }

    /// The mean wait of each retry, in microseconds (exact integer division of the sum).
    pub fn means(&self) -> Vec<Micros> {
        self.retries
            .iter()
            .map(|r| {
                let sum: u128 = r.waits.iter().map(|w| u128::from(w.0)).sum();
                Micros((sum / r.waits.len().max(1) as u128) as u64)
            })
            .collect()
    }
}

/// The most waits one schedule draws (clients x retries): enough for a dense picture, small
/// enough that a page draws it without stalling.
pub const MAX_SCHEDULE_DRAWS: u64 = 50_000;

/// Draws the schedule of the link's policy for `p.clients` clients.
pub fn schedule(p: &Params) -> Result<Schedule, ConfigError> {
    let policy = p.validate()?;
    let backoff = policy.backoff();
    let retries = policy.policy().max_attempts.saturating_sub(1);
    let clients = p.clients.clamp(1, crate::link::MAX_CLIENTS);
    let draws = u64::from(clients) * u64::from(retries);
    if draws > MAX_SCHEDULE_DRAWS {
        return Err(ConfigError::new(
            "clients",
            alloc::format!(
                "the schedule would draw {clients} clients x {retries} retries = {draws} waits, over the limit of {MAX_SCHEDULE_DRAWS}: lower clients or attempts"
            ),
        ));
    }
    let mut columns: Vec<RetryColumn> = (0..retries)
        .map(|r| {
            let (low, ceiling) = backoff.config().range(r);
            RetryColumn {
                retry: r + 1,
                ceiling,
                low,
                waits: Vec::with_capacity(clients as usize),
            }
        })
        .collect();
    for c in 0..clients {
        let mut rng = Rng::stream(p.seed, streams::SCHEDULE_BASE + u64::from(c));
        let mut state = backoff.state();
        for col in columns.iter_mut() {
            let d = backoff.next_draw(&mut state, &mut rng, false);
            col.waits.push(d.wait);
        }
    }
    Ok(Schedule {
        retries: columns,
        clients,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_kinds_differ_at_a_glance() {
        let q = |k: &str| {
            schedule(
                &format!("backoff={k}&base=100ms&cap=20s&attempts=6&clients=200")
                    .parse()
                    .unwrap(),
            )
            .unwrap()
        };
        let exp = q("exponential");
        assert!(exp
            .retries
            .iter()
            .all(|r| r.waits.iter().all(|w| *w == r.ceiling)));
        let full = q("full");
        let equal = q("equal");
        // Full jitter's mean sits near half the ceiling, equal jitter's near three quarters.
        for (f, e) in full.means().iter().zip(equal.means()) {
            assert!(*f < e);
        }
        let last = full.retries.last().unwrap();
        assert!(
            last.waits.iter().any(|w| w.0 * 4 < last.ceiling.0),
            "some full-jitter waits land in the bottom quarter"
        );
        assert!(equal
            .retries
            .iter()
            .all(|r| r.waits.iter().all(|w| w.0 * 2 >= r.ceiling.0)));
    }

    #[test]
    fn adding_clients_keeps_the_first_ones() {
        let a = schedule(&"clients=5&attempts=4".parse().unwrap()).unwrap();
        let b = schedule(&"clients=9&attempts=4".parse().unwrap()).unwrap();
        for (ra, rb) in a.retries.iter().zip(&b.retries) {
            assert_eq!(ra.waits[..], rb.waits[..5]);
        }
    }

    #[test]
    fn large_schedules_are_refused_with_the_limit() {
        let e = schedule(&"clients=10000&attempts=10".parse().unwrap()).unwrap_err();
        assert_eq!(e.field, "clients");
        assert!(e.rule.contains("90000 waits"), "{e}");
        assert!(schedule(&"clients=5000&attempts=11".parse().unwrap()).is_ok());
    }

    #[test]
    fn one_attempt_has_no_retries() {
        assert!(schedule(&"attempts=1".parse().unwrap())
            .unwrap()
            .retries
            .is_empty());
    }
}
