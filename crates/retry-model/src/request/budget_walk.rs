//! A retry budget, step by step: the chosen budget's level as originals succeed, retries draw
//! on it and it refuses one, in the integer thousandths the budget keeps (so with +0.1 per
//! success, ten successes give exactly one token, never 0.9999...).
//!
//! The walk is a fixed script, 100 ms apart: ten requests that succeed first time; then
//! requests that fail with a transient error and retry, each retry checked against the budget,
//! until it refuses one (at most 20); then ten more first-time successes and one more retry,
//! which succeeds. A ratio budget then waits out its window, in two steps: when the first tenth
//! of the window (the slot its deposits are counted in) has left it, and when every deposit
//! has, which leaves the floor (`min_per_sec` x window).
//!
//! ```
//! use retry_model::{budget_walk, Params};
//! let p: Params = "budget=bucket&bucket_max=2&bucket_refill=0.1&budget_start=0".parse().unwrap();
//! let w = budget_walk(&p).unwrap();
//! assert_eq!(w[9].level_milli, 1000, "ten successes at +0.1: exactly one token");
//! assert!(w.iter().any(|s| !s.allowed));
//! ```

use crate::link::Params;
use crate::retry::budget::{Budget, BudgetConfig, RetryCost};
use crate::retry::time::Micros;
use alloc::vec::Vec;

/// What happened at one step of the walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BudgetEvent {
    /// An original request that succeeded first time.
    Success,
    /// A retry after a transient error, checked against the budget.
    Retry,
    /// That retry succeeded (the AWS quota refunds what it took).
    RetrySucceeded,
    /// A ratio budget's window moved on: what was deposited and withdrawn before this time no
    /// longer counts.
    WindowPassed(Micros),
}

/// One step: the event, whether the budget let a retry go, and the level after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BudgetStep {
    /// When, on the walk's clock.
    pub t: Micros,
    /// What.
    pub event: BudgetEvent,
    /// For a retry: whether the budget allowed it.
    pub allowed: bool,
    /// For a retry: what it cost (thousandths).
    pub cost_milli: u64,
    /// The level after the step (thousandths).
    pub level_milli: u64,
    /// The budget's maximum then (thousandths).
    pub max_milli: u64,
}

/// The walk of the link's budget; `None` without a budget.
pub fn budget_walk(p: &Params) -> Option<Vec<BudgetStep>> {
    let cfg = p.policy.budget;
    if cfg == BudgetConfig::None {
        return None;
    }
    let mut b = Budget::new(cfg, p.budget_start);
    let mut steps = Vec::new();
    let mut t = Micros::ZERO;
    let tick = Micros::from_millis(100);
    let push = |b: &Budget, t: Micros, event, allowed, cost_milli| {
        let l = b.level(t);
        BudgetStep {
            t,
            event,
            allowed,
            cost_milli,
            level_milli: l.milli,
            max_milli: l.max_milli,
        }
    };
    let success = |b: &mut Budget, t: Micros| {
        b.on_original(t);
        b.on_success(t, None);
    };
    for _ in 0..10 {
        success(&mut b, t);
        steps.push(push(&b, t, BudgetEvent::Success, true, 0));
        t = t.saturating_add(tick);
    }
    let retry = |b: &mut Budget, t: Micros| {
        b.on_original(t);
        b.on_failure(t, true);
        let check = b.check(t, RetryCost::Normal);
        let taken = if check.allowed {
            b.withdraw(t, RetryCost::Normal)
        } else {
            0
        };
        (check.allowed, check.cost_milli, taken)
    };
    for _ in 0..20 {
        let (allowed, cost, _) = retry(&mut b, t);
        steps.push(push(&b, t, BudgetEvent::Retry, allowed, cost));
        t = t.saturating_add(tick);
        if !allowed {
            break;
        }
    }
    for _ in 0..10 {
        success(&mut b, t);
        steps.push(push(&b, t, BudgetEvent::Success, true, 0));
        t = t.saturating_add(tick);
    }
    let (allowed, cost, taken) = retry(&mut b, t);
    steps.push(push(&b, t, BudgetEvent::Retry, allowed, cost));
    if allowed {
        t = t.saturating_add(tick);
        b.on_success(t, Some(taken));
        steps.push(push(&b, t, BudgetEvent::RetrySucceeded, true, 0));
    }
    if let BudgetConfig::Ratio(r) = cfg {
        // The window counts in tenths: a deposit leaves when its tenth does.
        let slot = (r.window.0 / 10).max(1);
        let first = Micros(slot);
        steps.push(push(
            &b,
            r.window,
            BudgetEvent::WindowPassed(first),
            true,
            0,
        ));
        let last = Micros((t.0 / slot + 1) * slot);
        let gone = last.saturating_add(r.window);
        steps.push(push(&b, gone, BudgetEvent::WindowPassed(last), true, 0));
    }
    Some(steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_budget_walks_within_its_maximum_and_aws_charges_its_cost() {
        for q in [
            "preset=aws-standard",
            "preset=grpc",
            "budget=ratio",
            "budget=bucket",
            "budget=rate",
        ] {
            let p: Params = q.parse().unwrap();
            let w = budget_walk(&p).unwrap();
            assert!(w.iter().all(|s| s.level_milli <= s.max_milli), "{q}");
            assert_eq!(w.first().map(|s| s.event), Some(BudgetEvent::Success));
        }
        let p: Params = "preset=aws-standard".parse().unwrap();
        let w = budget_walk(&p).unwrap();
        let first = w
            .iter()
            .position(|s| s.event == BudgetEvent::Retry)
            .unwrap();
        assert_eq!(w[first].cost_milli, 5000, "the AWS quota's retry cost: 5");
        assert_eq!(w[first - 1].level_milli - w[first].level_milli, 5000);
        assert!(budget_walk(&"attempts=3".parse().unwrap()).is_none());
        // The last retry succeeds: the AWS quota refunds the 5 it took.
        let n = w.len();
        assert_eq!(w[n - 1].event, BudgetEvent::RetrySucceeded);
        assert_eq!(w[n - 1].level_milli, w[n - 2].level_milli + 5000);
        assert!(!w
            .iter()
            .any(|s| matches!(s.event, BudgetEvent::WindowPassed(_))));
    }

    #[test]
    fn a_ratio_budget_walks_out_of_its_window_down_to_its_floor() {
        // The chapter's budget: 10% of calls over 10 s, no floor.
        let p: Params = "budget=chapter".parse().unwrap();
        let w = budget_walk(&p).unwrap();
        let n = w.len();
        assert_eq!(
            w[n - 2].event,
            BudgetEvent::WindowPassed(Micros::from_secs(1))
        );
        assert_eq!(w[n - 2].t, Micros::from_secs(10));
        // The first second's ten successes (+0.1 each) have left: one token less, and the level
        // never goes below zero (here 0.3 - 1.0 leaves nothing, though the service is quiet).
        assert_eq!(w[n - 3].level_milli, 300);
        assert_eq!(w[n - 2].level_milli, 0);
        assert_eq!(w[n - 1].level_milli, 0, "everything has left: no floor");
        // Finagle's default keeps its floor: 10/s over 10 s = 100 retries.
        let w = budget_walk(&"budget=ratio".parse().unwrap()).unwrap();
        assert_eq!(w.last().unwrap().level_milli, 100_000);
    }
}
