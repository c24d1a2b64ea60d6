//! `retrylab analyze`: a link's queue server as the analytic twin's Markov chain
//! (`sim::chain`), with every assumption the chain makes checked first. A link outside them is
//! refused with the key that breaks it and why, never analysed approximately in silence.
//!
//! ```
//! use retry_model::{analyze, Params};
//! let p: Params = "preset=queue-spike-none&service_dist=exp&arrivals=poisson&queue_limit=100".parse().unwrap();
//! let a = analyze(&p).unwrap();
//! assert!(a.result.p_high_mode > 0.0 && a.result.converged);
//! let e = analyze(&"preset=payments-none".parse().unwrap()).unwrap_err();
//! assert_eq!(e.field, "server");
//! ```

use super::Params;
use crate::retry::backoff::BackoffKind;
use crate::retry::budget::BudgetConfig;
use crate::retry::error::ConfigError;
use crate::sim::chain::{solve_reporting, ChainResult, ChainSpec, SolveStage};
use crate::sim::{Discipline, Scenario, ServerKind, ServiceDist};

/// The most states the chain is built with.
pub const MAX_STATES: usize = 200_000;

/// The most block entries (levels x block^2) the exact solve holds: about 40 bytes each across
/// its systems, so under 300 MB (measured: 1,002 levels of 160 took 1.04 GB).
pub const MAX_ENTRIES: u64 = 7_000_000;

/// The most block work (levels x block^3) a solve does: about 5 ns each natively, so about
/// 5 s (measured: 302 levels of 160 took 5.3 s, 1,002 levels 22 s).
pub const MAX_WORK: u64 = 1_000_000_000;

/// A link's chain and what it gives.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// The chain's parameters, as read from the link.
    pub spec: ChainSpec,
    /// Its stationary figures, relaxation and drain time.
    pub result: ChainResult,
}

fn refuse(field: &'static str, rule: &str) -> ConfigError {
    ConfigError::new(field, alloc::format!("analyze: {rule}"))
}

/// The chain of `p`'s queue server, solved; the error names the key outside its assumptions.
pub fn analyze(p: &Params) -> Result<Analysis, ConfigError> {
    analyze_within(p, MAX_STATES)
}

/// [`analyze`], refusing a chain of more than `max` states (at most `MAX_STATES`), or one
/// whose solve would pass `MAX_ENTRIES` or `MAX_WORK`, before solving it: the page solves
/// smaller chains than the CLI.
pub fn analyze_within(p: &Params, max: usize) -> Result<Analysis, ConfigError> {
    analyze_reporting(p, max, &mut |_, _| {})
}

/// [`analyze_within`], telling `stage` the chain's states as each part of the solve begins
/// (the CLI shows the part under way when a solve takes over half a second).
pub fn analyze_reporting(
    p: &Params,
    max: usize,
    stage: &mut dyn FnMut(SolveStage, usize),
) -> Result<Analysis, ConfigError> {
    let spec = chain_spec(p)?;
    check_size(&spec, max)?;
    let states =
        (spec.workers as usize + spec.queue_limit as usize + 1) * (spec.orbit_max as usize + 1);
    let result = solve_reporting(&spec, &mut |s| stage(s, states))
        .ok_or_else(|| refuse("service", "a service time of 0 makes no chain"))?;
    if !result.converged {
        return Err(refuse(
            "rate",
            &alloc::format!(
                "the chain does not solve: its stationary system is singular or overflows at {} arrivals/s against {} workers serving {}/s each; lower rate or queue_limit",
                crate::retry::text::sig3(spec.lambda),
                spec.workers,
                crate::retry::text::sig3(spec.mu)
            ),
        ));
    }
    Ok(Analysis { spec, result })
}

/// Refuses a chain too large to solve here, with the states, memory and time it would need.
fn check_size(spec: &ChainSpec, max: usize) -> Result<(), ConfigError> {
    let levels = u64::from(spec.workers) + u64::from(spec.queue_limit) + 1;
    let block = u64::from(spec.orbit_max) + 1;
    let n = levels.saturating_mul(block);
    let entries = levels.saturating_mul(block * block);
    let work = entries.saturating_mul(block);
    let max = max.min(MAX_STATES) as u64;
    let heavy = entries > MAX_ENTRIES || work > MAX_WORK;
    if n <= max && !heavy {
        return Ok(());
    }
    let over = if heavy {
        alloc::string::String::from("over the 300 MB and about 5 s a solve may take")
    } else if max < MAX_STATES as u64 {
        alloc::format!("more than the {max} states solved here (retrylab analyze solves more)")
    } else {
        alloc::format!("more than the {max} states solved")
    };
    Err(refuse(
        "queue_limit",
        &alloc::format!(
            "the chain would have {n} states ({levels} levels of {block}), about {} MB and {} s to solve: {over}; lower queue_limit, workers or attempts",
            entries.saturating_mul(40) / 1_000_000,
            crate::retry::text::sig3(work as f64 * 5e-9),
        ),
    ))
}

/// Reads the chain's parameters, refusing what it does not model.
fn chain_spec(p: &Params) -> Result<ChainSpec, ConfigError> {
    let Some(Scenario::Outage(o)) = &p.sim.scenario else {
        return Err(refuse(
            "scenario",
            "the chain models scenario=outage's open-loop arrivals at a queue server",
        ));
    };
    let sv = &o.server;
    let q = &sv.queue;
    let pol = &p.policy;
    let checks: [(bool, &'static str, &str); 11] = [
        (sv.kind != ServerKind::Queue, "server", "the chain models server=queue"),
        (q.dist != ServiceDist::Exp, "service_dist", "the chain needs exponential service times (service_dist=exp)"),
        (!o.poisson, "arrivals", "the chain needs Poisson arrivals (arrivals=poisson)"),
        (o.users > 0, "users", "the chain models open-loop arrivals (users=0)"),
        (q.discipline != Discipline::Fifo, "discipline", "the chain's timeouts assume a FIFO queue"),
        (q.per_inflight.0 > 0, "latency_per_inflight", "the chain's service rate does not grow with the load"),
        (q.deadline, "server_deadline", "the chain keeps timed-out work at the server (server_deadline=off)"),
        (pol.budget != BudgetConfig::None, "budget", "the chain retries a fixed share of attempts: no budget"),
        (pol.max_attempts > 1 && pol.backoff.kind != BackoffKind::None, "backoff", "the chain's retries come back one timeout after their attempt (backoff=none)"),
        (sv.breaker.is_some() || sv.limiter || sv.hedge.on, "breaker", "the chain has no breaker, limiter or hedging"),
        (pol.max_attempts > 1 && !pol.operation.idempotent, "idempotent", "a timed-out attempt is retried only when idempotent=true (the lab's table), which the chain assumes"),
    ];
    if let Some((_, field, rule)) = checks.iter().find(|c| c.0) {
        return Err(refuse(field, rule));
    }
    let service_s = q.service.0 as f64 / 1e6;
    let timeout_s = pol.attempt_timeout.0 as f64 / 1e6;
    let (c, mu) = (q.workers, 1.0 / service_s.max(1e-9));
    // From this many attempts at the server, a newcomer's expected time there is over the timeout.
    // Counted in floats and capped one past the top level: a server that can never hold that
    // many is never congested (a 24 h timeout on 1 us services is 8.6e10 waits).
    let waits = ((timeout_s - service_s) * f64::from(c) * mu).max(0.0);
    let top = f64::from(c) + f64::from(q.queue_limit);
    let congested_at =
        (f64::from(c.saturating_sub(1)) + libm::ceil(waits) + 1.0).min(top + 1.0) as u32;
    let lambda = o.arrivals.rate_milli as f64 / 1000.0;
    let a = f64::from(pol.max_attempts.max(1));
    // The orbit holds the requests waiting to retry: about lambda T (A - 1) in a storm, with
    // room above it, up to the largest block the exact solve takes.
    // Without retries nobody can wait to retry: the chain is the queue alone (an orbit nobody
    // reaches would decay at one per timeout and pass for the slowest mode).
    let orbit_max = if pol.max_attempts > 1 {
        (libm::ceil(2.0 * lambda * timeout_s * (a - 1.0)) as u32)
            .saturating_add(10)
            .min(crate::sim::blocks::MAX_BLOCK as u32 - 1)
    } else {
        0
    };
    Ok(ChainSpec {
        lambda,
        mu,
        workers: c,
        queue_limit: q.queue_limit,
        nu: 1.0 / timeout_s.max(1e-9),
        retry_p: (a - 1.0) / a,
        congested_at,
        timeout: timeout_s,
        orbit_max,
    })
}

/// The analysis as the rows `retrylab analyze` prints and the page shows, rounded for people
/// (three significant figures; the JSON keeps every digit).
pub fn analysis_rows(a: &Analysis) -> alloc::vec::Vec<(&'static str, alloc::string::String)> {
    use crate::retry::text::sig3;
    use alloc::format;
    let r = &a.result;
    let s = &a.spec;
    let secs =
        |v: Option<f64>, none: &str| v.map_or_else(|| none.into(), |x| format!("{} s", sig3(x)));
    alloc::vec![
        (
            "states",
            format!(
                "{} (attempts at the server 0 to {}, orbit 0 to {})",
                r.states,
                s.workers + s.queue_limit,
                s.orbit_max
            )
        ),
        (
            "congested from",
            format!(
                "{} attempts at the server (a newcomer's expected time there passes the timeout)",
                s.congested_at
            )
        ),
        ("mean at the server", sig3(r.mean_queue)),
        ("mean waiting", sig3(r.mean_waiting)),
        ("mean waiting to retry", sig3(r.mean_orbit)),
        ("p(high-queue mode)", sig3(r.p_high_mode)),
        (
            "relaxation rate",
            r.relaxation_per_s.map_or_else(
                || "not settled within the iterations".into(),
                |x| format!("{}/s", sig3(x))
            )
        ),
        ("mixing time", secs(r.mixing_s, "-")),
        (
            "drain, full to empty",
            secs(r.drain_s, "never: the retries hold it full")
        ),
        ("collapse from empty", secs(r.collapse_s, "never")),
        (
            "stationary solution",
            (if r.converged {
                "exact (block elimination)"
            } else {
                "singular: none"
            })
            .into()
        ),
    ]
}
