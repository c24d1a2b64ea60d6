//! Hedging in the storms (`hedge=on`), by gRPC's A6 rules: a request sends its first attempt at
//! once and, while no answer has come, one more every `hedge_delay`, up to `hedge_max`
//! attempts in all (at most 5). A success wins and cancels the others; a fatal status (one the
//! policy would not retry) ends the request; a non-fatal failure (a status it would retry, or a
//! timeout) sends the next attempt at once instead of at its delay. Every attempt after the
//! first asks the retry budget first (gRPC's retry throttling, `budget=grpc`, is the one A6
//! names; the others act the same way), and every failure counts against it.
//!
//! A hedged request's attempts take consecutive numbers from its first (`Req::gen`), and the
//! bits of `Req::out` say which are still out. An attempt its client no longer waits for is
//! cancelled: a queue server drops it unstarted (the cancel is taken to reach the server at
//! once), and work already started runs to its end and is counted as wasted.

use super::{Ev, Req, Storm, LIVE};
use crate::retry::budget::RetryCost;
use crate::retry::classify::classify_listed;
use crate::retry::outcome::{Outcome, ScriptedOutcome};
use crate::retry::policy::StopReason;
use crate::retry::time::Micros;
use crate::sim::queue::EventQueue;

/// Whether attempt `gen` of hedged request `r` is still out.
pub(super) fn out_has(r: &Req, gen: u32) -> bool {
    let i = gen.wrapping_sub(r.gen);
    r.has(LIVE) && i < 8 && r.out & (1 << i) != 0
}

impl Storm {
    /// Starts hedged request `id`: numbers its attempts and sends the first.
    pub(super) fn start_hedged(&mut self, now: Micros, id: u32, q: &mut EventQueue<Ev>) {
        let max = self.sp.hedge.unwrap_or_default().max;
        if self.next_gen > u32::MAX - 2 * max {
            self.next_gen = 0;
        }
        self.reqs[id].gen = self.next_gen + 1;
        self.next_gen += max;
        if let Err(reason) = self.try_hedge(now, id, q) {
            self.finish(now, id, reason, q);
        }
    }

    /// The hedging delay of request `req` (whose first attempt is `gen`) has passed with no
    /// answer: the next attempt goes, unless a failure already sent it early.
    pub(super) fn hedge_due(
        &mut self,
        now: Micros,
        req: u32,
        gen: u32,
        sent: u8,
        q: &mut EventQueue<Ev>,
    ) {
        let r = &self.reqs[req];
        if !r.has(LIVE) || r.gen != gen || r.sent != sent {
            return;
        }
        if let Err(reason) = self.try_hedge(now, req, q) {
            if self.reqs[req].out == 0 {
                self.finish(now, req, reason, q);
            }
        }
    }

    /// Sends request `id`'s next attempt now, if it has one left, the budget allows it and its
    /// deadline has room; otherwise why not.
    fn try_hedge(
        &mut self,
        now: Micros,
        id: u32,
        q: &mut EventQueue<Ev>,
    ) -> Result<(), StopReason> {
        let h = self.sp.hedge.unwrap_or_default();
        let (sent, client) = (self.reqs[id].sent, self.reqs[id].client);
        if u32::from(sent) >= h.max {
            return Err(StopReason::AttemptsUsedUp);
        }
        let bi = self.budget_index(client);
        if sent > 0 && !self.budgets[bi].check(now, RetryCost::Normal).allowed {
            return Err(StopReason::BudgetEmpty);
        }
        let r = &mut self.reqs[id];
        r.retry.wait_until(now);
        let plan = r.retry.plan_attempt(&self.policy)?;
        let gen = r.gen.wrapping_add(u32::from(sent));
        r.out |= 1 << sent;
        r.sent += 1;
        if u32::from(r.sent) < h.max {
            let (first, sent) = (r.gen, r.sent);
            q.push(
                now.saturating_add(h.delay),
                Ev::Hedge {
                    req: id,
                    gen: first,
                    sent,
                },
            );
        }
        if sent > 0 {
            self.budgets[bi].withdraw(now, RetryCost::Normal);
            self.hedged.sent += 1;
        }
        self.rec.attempt(now, sent > 0);
        if plan.attempt == 2 {
            self.rec.retry_began(now);
        }
        self.dispatch(now, id, gen, plan.timeout, q);
        Ok(())
    }

    /// Attempt `gen` of hedged request `id` is answered with `outcome`.
    pub(super) fn hedge_reply(
        &mut self,
        now: Micros,
        id: u32,
        gen: u32,
        outcome: Outcome,
        q: &mut EventQueue<Ev>,
    ) {
        let r = &mut self.reqs[id];
        if !out_has(r, gen) {
            return;
        }
        let i = gen.wrapping_sub(r.gen);
        r.out &= !(1 << i);
        let client = r.client;
        let bi = self.budget_index(client);
        let p = self.policy.policy();
        let verdict = classify_listed(
            p.classifier,
            &p.statuses,
            &ScriptedOutcome::new(outcome),
            p.operation,
        );
        let budget = &mut self.budgets[bi];
        if outcome.is_ok() {
            budget.on_success(now, None);
        } else {
            budget.on_failure(now, verdict.retryable);
        }
        if bi == 0 && p.budget != crate::retry::budget::BudgetConfig::None {
            let level = self.budgets[0].level(now).milli;
            self.rec.budget(now, level);
        }
        if outcome.is_ok() {
            self.hedged.won += u64::from(i > 0);
            self.finish(now, id, StopReason::Success, q);
        } else if !verdict.retryable {
            self.finish(now, id, StopReason::NotRetryable, q);
        } else if let Err(reason) = self.try_hedge(now, id, q) {
            if self.reqs[id].out == 0 {
                self.finish(now, id, reason, q);
            }
        }
    }
}
