//! A run's work and memory, estimated before it starts: the attempts it can make (what a
//! person waits for) and the requests it can hold at once (what its memory follows). A run is
//! refused by these, not by its count of requests, so a long run of cheap requests goes ahead
//! while a short storm of a thousand attempts each is refused with its estimate.

use super::params::caps;
use super::params::ServerKind;
use super::settings::Server;
use crate::retry::error::ConfigError;
use crate::retry::policy::ValidPolicy;
use crate::retry::text::{count_people, sig3};
use crate::retry::time::Micros;
use alloc::format;
use alloc::string::String;

/// Attempts handled per second natively by a storm of immediate failures (the course
/// project's outage at 2 million requests, docs/benchmarks.md); the page is slower.
const ATTEMPTS_PER_S: u64 = 15_000_000;

/// The estimated attempts above which `engine=auto` runs a storm on the population engine
/// (where it can): about a second's work for the per-request engine.
pub(super) const AUTO_ATTEMPTS: u64 = ATTEMPTS_PER_S;

/// The requests in flight at once above which `engine=auto` runs a storm on the population
/// engine (where it can): the per-request engine's event heap then holds as many timers, and a
/// million clients reconnecting take it 12 s.
pub(super) const AUTO_IN_FLIGHT: u64 = 100_000;

/// The bytes a request in flight holds (its slot, and its place in a limiter's queue).
const BYTES_IN_FLIGHT: u64 = 84;

/// `n` for people beside `cap`, in full where the two would read alike (`2000172`, not `2
/// million`, over a cap of 2 million).
fn beside(n: u64, cap: u64) -> String {
    let text = count_people(n);
    if text == count_people(cap) {
        format!("{n}")
    } else {
        text
    }
}

/// The most attempts one request can make, and why: its `attempts` (or `hedge_max`), or,
/// with a deadline, as many as fit in it when each takes at least the two network hops (at
/// the tick server, at least a tick: an attempt is answered at the end of the tick it arrives
/// in, so the next arrives in a later one) and the backoff's floor.
pub(super) fn attempts_each(policy: &ValidPolicy, server: &Server) -> (u64, String) {
    let p = policy.policy();
    let most = if server.hedge.on {
        u64::from(server.hedge.max)
    } else {
        u64::from(p.max_attempts)
    };
    let hops = server.net.0.saturating_mul(2);
    let answer = match server.kind {
        ServerKind::Tick => hops.max(server.tick.0),
        ServerKind::Queue | ServerKind::Flaky => hops,
    };
    let cycle = answer.saturating_add(p.backoff.floor.0);
    let fit = match p.deadline {
        Some(d) if cycle > 0 => d.0 / cycle + 1,
        _ => u64::MAX,
    };
    if fit < most {
        let why = format!(
            "as many as fit in the {} deadline at {} each",
            p.deadline.unwrap_or(Micros::ZERO).rounded(),
            Micros(cycle).rounded()
        );
        (fit, why)
    } else {
        (most, format!("attempts={most}"))
    }
}

/// Refuses a run whose attempts could pass [`caps::ATTEMPTS`]: `requests` per run, `runs`
/// runs, `field` the key to name and `lower` the keys that make fewer requests.
pub(super) fn check_attempts(
    requests: u64,
    runs: u64,
    policy: &ValidPolicy,
    server: &Server,
    (field, lower): (&'static str, &str),
) -> Result<(), ConfigError> {
    let (each, why) = attempts_each(policy, server);
    let all = requests.saturating_mul(runs).saturating_mul(each);
    if all <= caps::ATTEMPTS {
        return Ok(());
    }
    let runs_text = if runs > 1 {
        format!(" x {runs} runs")
    } else {
        String::new()
    };
    let secs = all as f64 / ATTEMPTS_PER_S as f64;
    Err(ConfigError::new(
        field,
        format!(
            "up to {} attempts ({} requests{runs_text} x up to {each} each, {why}) exceeds the cap of {}, about {} s natively and longer in the page: lower {lower} or attempts, or set a shorter deadline",
            beside(all, caps::ATTEMPTS),
            count_people(requests),
            count_people(caps::ATTEMPTS),
            sig3(secs),
        ),
    ))
}

/// The most requests a run can hold at once: arrivals at `rate_milli` per 1000 s (0: all at
/// once, a burst) for `requests` in all, each lasting at most its longest life (its deadline,
/// or every attempt's timeout and wait; with a client-side limiter and no deadline, a wait for
/// a token has no end, so every request may wait at once).
pub(super) fn in_flight(
    requests: u64,
    rate_milli: u64,
    policy: &ValidPolicy,
    server: &Server,
    retry_after: Option<Micros>,
) -> u64 {
    let unbounded = server.limiter && policy.policy().deadline.is_none();
    if unbounded || rate_milli == 0 {
        return requests;
    }
    // A request can outlive its deadline a little: a wait for a token is looked at when the
    // limiter's next token is due.
    let life = policy
        .longest_request(retry_after)
        .saturating_add(Micros::from_secs(10));
    let by_rate = (u128::from(rate_milli) * u128::from(life.0) / 1_000_000_000) as u64;
    requests.min(by_rate.max(1))
}

/// Refuses a run that could hold more than [`caps::IN_FLIGHT`] requests at once: arrivals at
/// `rate_milli` per 1000 s for `requests` in all, each lasting at most its longest life (its
/// deadline, or every attempt's timeout and wait; with a client-side limiter and no deadline,
/// a wait for a token has no end, so every request may wait at once).
pub(super) fn check_in_flight(
    requests: u64,
    rate_milli: u64,
    policy: &ValidPolicy,
    server: &Server,
    retry_after: Option<Micros>,
) -> Result<(), ConfigError> {
    let unbounded = server.limiter && policy.policy().deadline.is_none();
    let at_once = in_flight(requests, rate_milli, policy, server, retry_after);
    if at_once <= caps::IN_FLIGHT {
        return Ok(());
    }
    let mb = at_once.saturating_mul(BYTES_IN_FLIGHT) / 1_000_000;
    let (field, why) = if unbounded {
        (
            "deadline",
            format!(
                "with a client-side limiter and no deadline, all {} requests may wait for a token at once",
                beside(at_once, caps::IN_FLIGHT)
            ),
        )
    } else {
        (
            "rate",
            format!(
                "rate x a request's longest life ({}) = up to {} requests in flight at once",
                policy
                    .longest_request(retry_after)
                    .saturating_add(Micros::from_secs(10))
                    .rounded(),
                beside(at_once, caps::IN_FLIGHT)
            ),
        )
    };
    Err(ConfigError::new(
        field,
        format!(
            "{why}, over the cap of {} (about {mb} MB): set a shorter deadline, or lower rate or duration",
            count_people(caps::IN_FLIGHT)
        ),
    ))
}
