//! The `layers` scenario: a stack of services that each retry, over a bottom dependency.
//!
//! Each user request enters the top layer; every layer runs the link's retry policy with its own
//! attempt limit (`layers=3,3,3`, top first) and calls the layer below; the bottom dependency
//! fails each call with probability `p` (503) and answers after `net`. A failed layer answers 503
//! to its caller, which may retry it in turn, so under total failure (`p=1`, no deadline) one
//! request makes exactly the product of the attempts in bottom calls: 27, 64, 243. The fix,
//! retrying at one layer only, is the preset `layers-fix` (`layers=1,1,3`).
//!
//! A layer may run a policy of its own (`l2.backoff=full`, from
//! [`LayersSettings::policies`](super::LayersSettings)): its waits, timeouts, deadline and
//! statuses, still with its own attempts from `layers`.

use super::engine::Model;
use super::input::RunInput;
use super::metrics::{Recorder, Report};
use super::queue::EventQueue;
use crate::retry::budget::{Budget, BudgetConfig};
use crate::retry::outcome::{Outcome, ScriptedOutcome};
use crate::retry::policy::{StopReason, ValidPolicy};
use crate::retry::rng::{Rng, Words};
use crate::retry::time::Micros;

const STREAM_LAYERS: u64 = 4 << 40;

struct Ctx<'a> {
    /// Each layer's policy with its attempts, top first; `None` for one the checks refuse.
    policies: &'a [Option<ValidPolicy>],
    p_ppm: u32,
    net: Micros,
    rng: Rng,
    bottom: u64,
}

/// Calls `layer` at `now`; returns what its caller sees and when.
fn call(ctx: &mut Ctx<'_>, layer: usize, now: Micros) -> (Outcome, Micros) {
    if layer == ctx.policies.len() {
        ctx.bottom += 1;
        let fail = ctx.rng.below(1_000_000) < u64::from(ctx.p_ppm);
        return (
            if fail {
                Outcome::Status(503)
            } else {
                Outcome::Ok
            },
            now.saturating_add(ctx.net),
        );
    }
    let Some(valid) = ctx.policies[layer].as_ref() else {
        return (Outcome::Status(503), now);
    };
    let mut budget = Budget::new(BudgetConfig::None, None);
    let mut req = valid.start(now, &mut budget);
    loop {
        let plan = match req.plan_attempt(valid) {
            Ok(plan) => plan,
            Err(_) => return (Outcome::Status(503), req.now()),
        };
        let (seen, end) = call(ctx, layer + 1, plan.start);
        let give_up = plan.start.saturating_add(plan.timeout);
        let (seen, end) = if end > give_up {
            (Outcome::ReadTimeout, give_up)
        } else {
            (seen, end)
        };
        let mut rng = core::mem::replace(&mut ctx.rng, Rng::from_seed(0));
        let after = req.after_attempt(
            valid,
            end,
            &ScriptedOutcome::new(seen),
            &mut budget,
            &mut rng,
            None,
        );
        ctx.rng = rng;
        if let Some(reason) = after.stop {
            return (
                if reason == StopReason::Success {
                    Outcome::Ok
                } else {
                    Outcome::Status(503)
                },
                end,
            );
        }
    }
}

/// The layered stack as a model: one event per user request, which runs that request's whole
/// call tree (at most [`super::caps::LAYER_PRODUCT`] bottom calls), so a run goes in slices of
/// requests like every other scenario.
pub struct Layers {
    policies: alloc::vec::Vec<Option<ValidPolicy>>,
    p_ppm: u32,
    net: Micros,
    rng: Rng,
    gap: Micros,
    requests: u32,
    done: u32,
    rec: Recorder,
}

/// A `layers` event: user request `i` starts.
#[derive(Clone, Copy, Debug)]
pub struct LayerRequest(pub u32);

impl Layers {
    /// Repetition `run` of the link's layered stack, with its first event.
    pub fn new(
        p: &RunInput,
        sp: &super::LayersSettings,
        policy: ValidPolicy,
        run: u32,
    ) -> (Layers, (Micros, LayerRequest)) {
        let gap = Micros((1_000_000_000u128 / u128::from(sp.rate_milli.max(1))) as u64);
        let horizon = Micros(gap.0.saturating_mul(u64::from(sp.requests)))
            .saturating_add(Micros::from_secs(60));
        let m = Layers {
            policies: layer_policies(sp, &policy),
            p_ppm: sp.p_ppm,
            net: sp.net,
            rng: Rng::stream(p.seed, STREAM_LAYERS + u64::from(run)),
            gap,
            requests: sp.requests,
            done: 0,
            rec: Recorder::new(sp.series.bin, horizon),
        };
        (m, (Micros::ZERO, LayerRequest(0)))
    }
}

/// Each layer's policy, top first: its own where the settings give one, else the link's, with
/// the layer's attempts and no budget; `None` where that policy fails its checks (the link's
/// parser refuses such a link first), so the layer answers 503 at once.
fn layer_policies(
    sp: &super::LayersSettings,
    link: &ValidPolicy,
) -> alloc::vec::Vec<Option<ValidPolicy>> {
    sp.layers
        .iter()
        .enumerate()
        .map(|(i, &attempts)| {
            let mut pol = sp
                .policies
                .get(i)
                .copied()
                .flatten()
                .unwrap_or(*link.policy());
            pol.max_attempts = attempts;
            pol.budget = BudgetConfig::None;
            pol.validate().ok()
        })
        .collect()
}

impl Model for Layers {
    type Event = LayerRequest;

    fn handle(&mut self, start: Micros, ev: LayerRequest, q: &mut EventQueue<LayerRequest>) {
        let mut ctx = Ctx {
            policies: &self.policies,
            p_ppm: self.p_ppm,
            net: self.net,
            rng: core::mem::replace(&mut self.rng, Rng::from_seed(0)),
            bottom: 0,
        };
        self.rec.original(start);
        let (outcome, end) = call(&mut ctx, 0, start);
        for _ in 0..ctx.bottom {
            self.rec.attempt(start, false);
        }
        self.rng = ctx.rng;
        let reason = if outcome.is_ok() {
            StopReason::Success
        } else {
            StopReason::AttemptsUsedUp
        };
        self.rec.end(end, reason, end.saturating_sub(start));
        self.done += 1;
        let next = ev.0 + 1;
        if next < self.requests {
            q.push(
                Micros(self.gap.0.saturating_mul(u64::from(next))),
                LayerRequest(next),
            );
        }
    }

    fn progress(&self, _now: Micros) -> f64 {
        f64::from(self.done) / f64::from(self.requests.max(1))
    }

    fn finish(self, at: Option<Micros>) -> Report {
        self.rec.finish(at)
    }
}
