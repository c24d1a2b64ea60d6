//! The `lost` scenario: a charge endpoint that commits, then loses the response.
//!
//! Checkouts arrive at `rate` for `duration`. The endpoint works for `service`, commits the
//! charge, and answers; with probability `lose` the answer is lost and the client sees a read
//! timeout. Without an idempotency key every attempt that reaches the endpoint is a new durable
//! charge, so a client that retries read timeouts charges twice. With a key (`key=true`) the
//! endpoint records the first attempt: a retry that arrives while it is still working gets
//! `409_in_flight`, a retry after it committed gets the first answer replayed, and no second
//! charge is made. The scenario counts durable charges per checkout, not responses.

use super::engine::Model;
use super::input::RunInput;
use super::metrics::{Recorder, Report};
use super::queue::EventQueue;
use super::slab::Slab;
use crate::retry::budget::Budget;
use crate::retry::outcome::{Outcome, ScriptedOutcome};
use crate::retry::policy::{RequestRetry, StopReason, ValidPolicy};
use crate::retry::rng::{Rng, Words};
use crate::retry::time::Micros;

const STREAM_LOST: u64 = 5 << 40;

#[derive(Clone, Copy, PartialEq, Eq)]
enum KeyState {
    Unseen,
    InFlight,
    Committed,
}

struct Checkout {
    start: Micros,
    retry: RequestRetry,
    gen: u32,
    live: bool,
    key: KeyState,
    charges: u32,
    // Attempts sent that have not reached the endpoint yet. The slot is kept until they arrive,
    // even when the client gave up first (a timeout no longer than the network delay).
    on_wire: u32,
    server_work: u32, // attempts the endpoint is working on
    succeeded: bool,
}

/// A `lost` event.
#[derive(Clone, Copy, Debug)]
pub enum LostEv {
    /// The next checkout arrives.
    Arrive,
    /// A checkout sends its next attempt.
    Send(u32),
    /// An attempt reaches the endpoint.
    Reach(u32, u32),
    /// The endpoint commits a charge for the checkout; the bool says whether its answer is lost.
    Commit(u32, u32, bool),
    /// An answer (or the client's timeout) reaches the checkout.
    Reply(u32, u32, Outcome),
}

/// What happened to the one checkout of [`Lost::one_checkout`], at time `t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LostStep {
    /// When.
    pub t: Micros,
    /// Which attempt, from 1.
    pub attempt: u32,
    /// What.
    pub what: LostWhat,
}

/// One thing that happened to a checkout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LostWhat {
    /// The client sent the attempt.
    Sent,
    /// The endpoint started the work and will commit a charge.
    Working,
    /// The endpoint answered `409_in_flight`: the key's first attempt is still working.
    InFlight,
    /// The endpoint replayed the first answer: the key's charge is already made.
    Replayed,
    /// The endpoint committed durable charge number `charge`; its answer was lost if `lost`.
    Committed {
        /// The charge's number on the ledger.
        charge: u32,
        /// Whether the answer never reached the client.
        lost: bool,
    },
    /// The client got an answer.
    Answered(Outcome),
    /// The client timed out waiting (the answer was lost or late).
    TimedOut,
    /// The checkout ended.
    Ended(StopReason),
}

/// The model.
pub struct Lost {
    policy: ValidPolicy,
    keyed: bool,
    rate_milli: u64,
    duration: Micros,
    net: Micros,
    service: Micros,
    lose_ppm: u32,
    checkouts: Slab<Checkout>,
    budget: Budget,
    rng: Rng,
    made: u64,
    planned: u64,
    rec: Recorder,
    /// Durable charges made.
    pub charges: u64,
    /// Checkouts that ended with more than one charge.
    pub double_charged: u64,
    /// Successful checkouts whose charge count was not exactly one.
    pub success_not_one: u64,
    /// Checkouts with at least one charge.
    pub charged_checkouts: u64,
    next_gen: u32,
    /// Every step of each checkout, when logging ([`Lost::one_checkout`]).
    pub log: Option<alloc::vec::Vec<LostStep>>,
    // The attempt number of each generation sent, when logging.
    gens: alloc::vec::Vec<(u32, u32)>,
}

impl Lost {
    /// Repetition `run` of the link's scenario, with its first event.
    pub fn new(
        p: &RunInput,
        sp: &super::LostSettings,
        policy: ValidPolicy,
        run: u32,
    ) -> (Lost, (Micros, LostEv)) {
        let planned = sp.arrivals.planned();
        let horizon = sp
            .arrivals
            .duration
            .saturating_add(policy.policy().deadline.unwrap_or(Micros::from_secs(60)))
            .saturating_add(Micros::from_secs(1));
        let lost = Lost {
            policy,
            keyed: policy.policy().operation.key,
            rate_milli: sp.arrivals.rate_milli,
            duration: sp.arrivals.duration,
            net: sp.net,
            service: sp.service,
            lose_ppm: sp.lose_ppm,
            checkouts: Slab::default(),
            budget: Budget::new(policy.policy().budget, p.budget_start),
            rng: Rng::stream(p.seed, STREAM_LOST + u64::from(run)),
            made: 0,
            planned,
            rec: Recorder::new(sp.series.bin, horizon),
            charges: 0,
            double_charged: 0,
            success_not_one: 0,
            charged_checkouts: 0,
            next_gen: 0,
            log: None,
            gens: alloc::vec::Vec::new(),
        };
        (lost, (Micros::ZERO, LostEv::Arrive))
    }

    /// One checkout alone, logging every step (the idempotency walk on the page): the link's
    /// settings, repetition `run`'s random stream, one arrival at 0.
    pub fn one_checkout(
        p: &RunInput,
        sp: &super::LostSettings,
        policy: ValidPolicy,
        run: u32,
    ) -> (Lost, (Micros, LostEv)) {
        let (mut lost, first) = Lost::new(p, sp, policy, run);
        lost.planned = 1;
        lost.log = Some(alloc::vec::Vec::new());
        (lost, first)
    }

    fn note(&mut self, t: Micros, gen: u32, what: LostWhat) {
        if let Some(log) = self.log.as_mut() {
            let attempt = self
                .gens
                .iter()
                .find(|(g, _)| *g == gen)
                .map_or(0, |(_, a)| *a);
            log.push(LostStep { t, attempt, what });
        }
    }

    /// The latest time anything can happen, for progress.
    pub fn horizon(&self) -> Micros {
        self.duration
            .saturating_add(self.policy.longest_request(None))
            .saturating_add(self.service)
            .saturating_add(self.net.saturating_add(self.net))
    }

    fn send(&mut self, now: Micros, id: u32, q: &mut EventQueue<LostEv>) {
        let c = &mut self.checkouts[id];
        let plan = match c.retry.plan_attempt(&self.policy) {
            Ok(plan) => plan,
            Err(reason) => {
                // The attempt a budget counted (Envoy's in flight) was never sent.
                let next = c.retry.attempts_made().saturating_add(1);
                self.budget.attempt_ended(next, now);
                self.end(now, id, reason);
                return;
            }
        };
        self.next_gen = self.next_gen.wrapping_add(1).max(1);
        c.gen = self.next_gen;
        let gen = c.gen;
        self.rec.attempt(now, plan.attempt > 1);
        c.on_wire += 1;
        if self.log.is_some() {
            self.gens.push((gen, plan.attempt));
            self.note(now, gen, LostWhat::Sent);
        }
        // The client gives up at the timeout unless an answer comes first.
        q.push(
            now.saturating_add(plan.timeout),
            LostEv::Reply(id, gen, Outcome::ReadTimeout),
        );
        q.push(now.saturating_add(self.net), LostEv::Reach(id, gen));
    }

    fn reach(&mut self, now: Micros, id: u32, gen: u32, q: &mut EventQueue<LostEv>) {
        let keyed = self.keyed;
        let net = self.net;
        let c = &mut self.checkouts[id];
        c.on_wire -= 1;
        if keyed {
            match c.key {
                KeyState::InFlight => {
                    self.note(now, gen, LostWhat::InFlight);
                    q.push(
                        now.saturating_add(net),
                        LostEv::Reply(id, gen, Outcome::KeyInFlight),
                    );
                    self.release(id);
                    return;
                }
                KeyState::Committed => {
                    // The endpoint replays the first answer; no new charge.
                    self.note(now, gen, LostWhat::Replayed);
                    q.push(now.saturating_add(net), LostEv::Reply(id, gen, Outcome::Ok));
                    self.release(id);
                    return;
                }
                KeyState::Unseen => c.key = KeyState::InFlight,
            }
        }
        c.server_work += 1;
        let lose = self.rng.below(1_000_000) < u64::from(self.lose_ppm);
        self.note(now, gen, LostWhat::Working);
        q.push(
            now.saturating_add(self.service),
            LostEv::Commit(id, gen, lose),
        );
    }

    fn commit(&mut self, now: Micros, id: u32, gen: u32, lose: bool, q: &mut EventQueue<LostEv>) {
        let net = self.net;
        let c = &mut self.checkouts[id];
        c.charges += 1;
        c.server_work -= 1;
        c.key = KeyState::Committed;
        self.charges += 1;
        if c.charges == 1 {
            self.charged_checkouts += 1;
        }
        self.rec.served(now, 1);
        let charge = c.charges;
        self.note(now, gen, LostWhat::Committed { charge, lost: lose });
        if !lose {
            q.push(now.saturating_add(net), LostEv::Reply(id, gen, Outcome::Ok));
        }
        self.release(id);
    }

    fn reply(
        &mut self,
        now: Micros,
        id: u32,
        gen: u32,
        outcome: Outcome,
        q: &mut EventQueue<LostEv>,
    ) {
        let c = &mut self.checkouts[id];
        if !c.live || c.gen != gen {
            return;
        }
        // Invalidate the other pending answer of this attempt (timeout or reply).
        c.gen = 0;
        let what = if outcome == Outcome::ReadTimeout {
            LostWhat::TimedOut
        } else {
            LostWhat::Answered(outcome)
        };
        self.note(now, gen, what);
        let c = &mut self.checkouts[id];
        let after = c.retry.after_attempt(
            &self.policy,
            now,
            &ScriptedOutcome::new(outcome),
            &mut self.budget,
            &mut self.rng,
            None,
        );
        let next = c.retry.now();
        match after.stop {
            Some(reason) => self.end(now, id, reason),
            None => q.push(next, LostEv::Send(id)),
        }
    }

    fn end(&mut self, now: Micros, id: u32, reason: StopReason) {
        let c = &mut self.checkouts[id];
        if !c.live {
            return;
        }
        c.live = false;
        c.succeeded = reason == StopReason::Success;
        if let Some(log) = self.log.as_mut() {
            log.push(LostStep {
                t: now,
                attempt: 0,
                what: LostWhat::Ended(reason),
            });
        }
        let latency = now.saturating_sub(c.start);
        self.rec.end(now, reason, latency);
        self.release(id);
    }

    /// Frees a checkout once the client is done and the endpoint holds no work for it.
    fn release(&mut self, id: u32) {
        let c = &self.checkouts[id];
        if c.live || c.server_work > 0 || c.on_wire > 0 {
            return;
        }
        if c.charges > 1 {
            self.double_charged += 1;
        }
        if c.succeeded && c.charges != 1 {
            self.success_not_one += 1;
        }
        self.checkouts.release(id);
    }
}

impl Model for Lost {
    type Event = LostEv;

    fn progress(&self, now: Micros) -> f64 {
        now.0 as f64 / self.horizon().0.max(1) as f64
    }

    /// Closes the run; duplicates are the charges beyond one per charged checkout.
    fn finish(mut self, at: Option<Micros>) -> Report {
        self.rec
            .duplicates(self.charges.saturating_sub(self.charged_checkouts));
        self.rec.finish(at)
    }

    fn handle(&mut self, now: Micros, ev: LostEv, q: &mut EventQueue<LostEv>) {
        match ev {
            LostEv::Arrive => {
                self.made += 1;
                let retry = self.policy.start(now, &mut self.budget);
                let c = Checkout {
                    start: now,
                    retry,
                    gen: 0,
                    live: true,
                    key: KeyState::Unseen,
                    charges: 0,
                    on_wire: 0,
                    server_work: 0,
                    succeeded: false,
                };
                let id = self.checkouts.insert(c);
                self.rec.original(now);
                self.send(now, id, q);
                if self.made < self.planned {
                    let t = Micros(
                        (u128::from(self.made) * 1_000_000_000 / u128::from(self.rate_milli))
                            as u64,
                    );
                    if t < self.duration {
                        q.push(t, LostEv::Arrive);
                    }
                }
            }
            LostEv::Send(id) => self.send(now, id, q),
            LostEv::Reach(id, gen) => self.reach(now, id, gen, q),
            LostEv::Commit(id, gen, lose) => self.commit(now, id, gen, lose, q),
            LostEv::Reply(id, gen, outcome) => self.reply(now, id, gen, outcome, q),
        }
    }
}
