//! What the population engine cannot step, refused by name ([`refusal()`]), and the ranges a
//! server's Retry-After makes of the backoff's.

use super::arrivals::Even;
use crate::retry::backoff::WaitRange;
use crate::retry::budget::{BudgetConfig, Scope};
use crate::retry::classify::classify_listed;
use crate::retry::error::ConfigError;
use crate::retry::outcome::{Outcome, ScriptedOutcome};
use crate::retry::policy::{RetryAfterMode, RetryPolicy, ValidPolicy};
use crate::retry::time::Micros;
use crate::sim::input::RunInput;
use crate::sim::params::{OutageKind, ScenarioKind, ServerKind, ServiceDist};
use crate::sim::settings::LimiterScope;
use crate::sim::storm::config::StormCfg;
use alloc::vec::Vec;

/// Why the population engine cannot run this link, naming the key, or `None` when it can.
pub(in crate::sim) fn refusal(
    p: &RunInput,
    policy: &ValidPolicy,
    kind: ScenarioKind,
) -> Option<ConfigError> {
    let sp = p.sim.scenario.as_ref().map_or_else(
        || StormCfg::of(&crate::sim::settings::Scenario::new(kind)),
        StormCfg::of,
    );
    let no = |key: &'static str, why: &str| {
        Some(ConfigError::new(
            key,
            alloc::format!("the population engine {why}: engine=request runs it"),
        ))
    };
    match sp.server {
        ServerKind::Tick => {}
        ServerKind::Flaky if sp.queue.per_inflight == Micros::ZERO => {}
        ServerKind::Flaky => {
            return no("latency_per_inflight", "steps a flaky server whose service does not grow with the requests at it (latency_per_inflight=0ms)");
        }
        ServerKind::Queue if sp.queue.service < Micros(800) => {
            return no("service", "steps a queue server whose mean service is at least 800 µs (its bin, at least 50 µs, is a sixteenth of it)");
        }
        ServerKind::Queue => {}
    }
    if let Some(scope) = sp.limiter {
        if scope == LimiterScope::Client && p.clients > super::limiter::CLIENT_LINES {
            return no(
                "limiter_scope",
                "keeps a client-side limiter for each of at most 100 clients (limiter_scope=client with clients up to 100, or limiter_scope=process)",
            );
        }
    }
    let pol = policy.policy();
    if let Some(h) = sp.hedge {
        if let Some(why) = hedge_refusal(&sp, pol, h.delay) {
            return no("hedge", why);
        }
    }
    let shared = match pol.scope {
        Scope::Process => true,
        Scope::Client => p.clients <= 1,
        Scope::Tenant => sp.tenants <= 1,
    };
    let apart = p.clients <= 1 || super::budgets::kept_apart(p.clients);
    if pol.budget != BudgetConfig::None && !shared && !apart {
        return no(
            "budget_scope",
            "keeps a budget for each client or tenant for at most 100 clients (else budget_scope=process)",
        );
    }
    if ranges_503(p, policy).is_err() {
        return no("ra_mode", "takes a Retry-After whose waits are one range for each retry only (not the AWS clamp with the server's value inside the backoff's range plus 5 s)");
    }
    // A separate throttling base (`throttle_base`) waits after a 429 only, which no storm's
    // server answers: every failure here waits the backoff's own base, as one at a time.
    let retries = pol.max_attempts.saturating_sub(1);
    let b = policy.backoff();
    let decorrelated = b.decorrelated_range(0, 0).is_some();
    let v2 = b.decorrelated_v2_pieces(0, 0, 1).is_some();
    if !decorrelated && !v2 && (0..retries).any(|r| b.wait_range(r).is_none()) {
        return no("backoff", "draws a wait known in advance, or decorrelated jitter's or Polly's decorrelated-v2's from the one before, only (none, constant or exponential with or without their jitter, full jitter in µs or whole milliseconds, equal, decorrelated or decorrelated-v2 jitter; not sorted draws, or a floor above decorrelated jitter's base)");
    }
    if decorrelated && p.retry_after.is_some() {
        return no(
            "retry_after",
            "takes no Retry-After with decorrelated jitter",
        );
    }
    let clamp = matches!(
        pol.retry_after_mode,
        RetryAfterMode::Aws2026 | RetryAfterMode::Clamp
    );
    if v2 && clamp && server_wait_503(p, policy).is_some() {
        return no(
            "ra_mode",
            "takes a Retry-After with decorrelated-v2 under every ra_mode but the AWS clamp",
        );
    }
    if v2 && pol.budget != BudgetConfig::None {
        return no(
            "budget",
            "counts no retry budget beside Polly's decorrelated-v2 (Polly keeps none)",
        );
    }
    shape_refusal(&sp, policy)
}

/// Whether a 503 (with the server's Retry-After, when the link sends one) is retried, and each
/// retry's waits after it: a range, or `None` where the client gives up on the server's wait;
/// `Err` where the waits are no single range.
pub(super) fn ranges_503(
    p: &RunInput,
    policy: &ValidPolicy,
) -> Result<(bool, Vec<Option<WaitRange>>), ()> {
    let pol = policy.policy();
    let mut o = ScriptedOutcome::new(Outcome::Status(503));
    o.retry_after = p.retry_after;
    let c = classify_listed(pol.classifier, &pol.statuses, &o, pol.operation);
    let ranges = (0..pol.max_attempts.saturating_sub(1))
        .filter_map(|r| policy.backoff().wait_range(r))
        .map(|r| match c.server_wait {
            Some(sw) => pol.retry_after_mode.range_after(sw, r, pol),
            None => Ok(Some(r)),
        })
        .collect::<Result<_, ()>>()?;
    Ok((c.retryable, ranges))
}

/// The server's Retry-After on a 503 as the client reads it, when the link sends one and the
/// client's classifier takes it.
pub(super) fn server_wait_503(p: &RunInput, policy: &ValidPolicy) -> Option<Micros> {
    let pol = policy.policy();
    let mut o = ScriptedOutcome::new(Outcome::Status(503));
    o.retry_after = p.retry_after;
    classify_listed(pol.classifier, &pol.statuses, &o, pol.operation).server_wait
}

/// Why the population engine cannot hedge here, if it cannot. It steps hedging where every
/// answer comes before the hedging delay has passed: a request never has two attempts out at
/// once, and each failure sends the next attempt at once, as a retry with no wait.
fn hedge_refusal(sp: &StormCfg, pol: &RetryPolicy, delay: Micros) -> Option<&'static str> {
    // The longest an answer takes: a whole tick or the longest service, and two hops, or a
    // connect timeout's wait.
    let wait = match (sp.server, sp.queue.dist) {
        (ServerKind::Tick, _) => sp.tick,
        (ServerKind::Flaky, ServiceDist::Const) => sp.queue.service,
        (ServerKind::Flaky, ServiceDist::Mix) => sp.queue.service.max(sp.queue.tail),
        (ServerKind::Flaky, _) => {
            return Some("hedges on the flaky server only with a service of known longest time (service_dist=const or mix)");
        }
        (ServerKind::Queue, _) => {
            return Some(
                "hedges on the tick and the flaky server only (a queue's wait has no bound)",
            );
        }
    };
    let mut slowest = wait.saturating_add(sp.net.saturating_add(sp.net));
    if sp.outage_kind == OutageKind::ConnectTimeout && sp.outage > Micros::ZERO {
        slowest = slowest.max(pol.attempt_timeout);
    }
    (delay <= slowest).then_some(
        "hedges only where every answer comes before hedge_delay (longer than a tick or the flaky server's longest service and two network hops, and than attempt_timeout in a connect-timeout outage), so that no request has two attempts out at once",
    )
}

/// The load spike's originals, evenly spaced from its start (none without a rate).
pub(super) fn spike_of(sp: &StormCfg) -> Even {
    if sp.spike_rate_milli == 0 {
        return Even::new(0, 0, 0);
    }
    Even::new(sp.spike.start.0, sp.spike_rate_milli, sp.spike_requests)
}

/// The refusals that come from the server's timing: the outage in whole ticks, and every
/// attempt's answer within its timeout.
fn shape_refusal(sp: &StormCfg, policy: &ValidPolicy) -> Option<ConfigError> {
    let queue = sp.server == ServerKind::Queue;
    let tick = if queue {
        super::bin_width(&sp.queue)
    } else {
        sp.tick.0.max(1)
    };
    if !sp.outage_start.0.is_multiple_of(tick) || !sp.outage.0.is_multiple_of(tick) {
        let unit = if queue {
            "of its bin (a sixteenth of the mean service, rounded down to 100, 250 or 500 µs, 1, 2, 2.5, 5 or 10 ms...)"
        } else {
            "ticks"
        };
        return Some(ConfigError::new(
            "outage_start",
            alloc::format!("the population engine needs the outage to start and last whole {unit}: engine=request runs it"),
        ));
    }
    let pol = policy.policy();
    let timeout = match pol.deadline {
        Some(d) => pol.attempt_timeout.min(d.saturating_sub(pol.reserve)),
        None => pol.attempt_timeout,
    };
    // The queue server answers late as a timeout, as the per-request engine does.
    let wait = match sp.server {
        ServerKind::Flaky => sp.queue.service,
        ServerKind::Queue => Micros::ZERO,
        ServerKind::Tick => sp.tick,
    };
    let answer = wait.saturating_add(sp.net.saturating_add(sp.net));
    if timeout < answer {
        return Some(ConfigError::new(
            "attempt_timeout",
            alloc::format!("the population engine needs every answer inside an attempt's timeout: at least a tick (or the flaky server's service) and two network hops ({answer}); engine=request runs it"),
        ));
    }
    None
}
