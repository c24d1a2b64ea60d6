//! The `outage` and `burst` scenarios: clients running the retry policy against a server with a
//! capacity, accounted in ticks.
//!
//! Server model: attempts arriving within one tick compete for that tick's capacity. The server
//! must look at every attempt, and rejecting one still costs `reject_cost` of a slot, so with `n`
//! arrivals and `c` slots it can serve `a = floor((c - reject_cost * n) / (1 - reject_cost))`
//! of them (never fewer than 0, never more than `n`), first come first served; the rest get 503.
//! That is what makes a storm self-sustaining: once retries alone exceed `c / reject_cost` per
//! tick, the server spends everything on refusals and serves nobody. Answers leave at the end of
//! the tick and take `net` to arrive; an answer later than the attempt's timeout is a read
//! timeout for the client (the server still did the work). During the outage window every
//! attempt fails, as an immediate 503 from the load balancer or as a connect timeout.
//!
//! Each client runs [`RequestRetry`], the same state machine the step trace explains: the
//! classification, the backoff, the deadline and fit check, Retry-After and the budget.

use super::breaker::Breaker;
use super::engine::Model;
use super::input::RunInput;
use super::metrics::{Recorder, Report};
use super::params::{BreakerConfig, OutageKind, ScenarioKind};
use super::queue::EventQueue;
use super::settings::{Scenario, Server};
use super::slab::Slab;
use crate::retry::budget::{Budget, Scope};
use crate::retry::outcome::{Outcome, ScriptedOutcome};
use crate::retry::policy::{RequestRetry, StopReason, ValidPolicy};
use crate::retry::rng::Rng;
use crate::retry::time::Micros;
use alloc::collections::VecDeque;
use alloc::vec::Vec;

/// One slot (a whole attempt of capacity) in the bank's units: thousandths times microseconds.
const SLOT: u128 = 1_000 * 1_000_000;

/// Random streams of a storm run (offset by the run number).
const STREAM_ARRIVALS: u64 = 1 << 40;
const STREAM_BACKOFF: u64 = 2 << 40;

struct Req {
    client: u32,
    start: Micros,
    retry: RequestRetry,
    gen: u32,
    live: bool,
}

#[derive(Clone, Copy)]
struct Pending {
    req: u32,
    gen: u32,
    orphan: bool,
}

/// Answers of one settled tick, delivered together.
#[derive(Clone, Copy)]
struct Answer {
    req: u32,
    gen: u32,
    ok: bool,
}

/// A storm event.
#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// The next original request(s) arrive.
    Arrive,
    /// A request sends its next attempt.
    Send(u32),
    /// The server settles tick `k`.
    Tick(u64),
    /// The answers of the oldest settled tick reach their clients.
    Deliver,
    /// An attempt's answer reaches its client.
    Reply {
        /// The request.
        req: u32,
        /// Which attempt of it.
        gen: u32,
        /// What the client sees.
        outcome: Outcome,
    },
}

/// What a storm reads: the server, and for `outage` its arrivals and outage window (a burst
/// has no arrivals after t = 0 and no outage).
#[derive(Clone)]
struct StormCfg {
    rate_milli: u64,
    poisson: bool,
    duration: Micros,
    capacity_milli: u64,
    tick: Micros,
    reject_cost_milli: u64,
    outage_start: Micros,
    outage: Micros,
    outage_kind: OutageKind,
    net: Micros,
    tenants: u32,
    breaker: Option<BreakerConfig>,
    bin: Micros,
}

impl StormCfg {
    fn of(s: &Scenario) -> StormCfg {
        let from_server = |sv: &Server| StormCfg {
            rate_milli: 1,
            poisson: false,
            duration: Micros::ZERO,
            capacity_milli: sv.capacity_milli,
            tick: sv.tick,
            reject_cost_milli: sv.reject_cost_milli,
            outage_start: Micros::ZERO,
            outage: Micros::ZERO,
            outage_kind: OutageKind::Status503,
            net: sv.net,
            tenants: sv.tenants,
            breaker: sv.breaker,
            bin: sv.series.bin,
        };
        match s {
            Scenario::Outage(o) => StormCfg {
                rate_milli: o.arrivals.rate_milli,
                poisson: o.poisson,
                duration: o.arrivals.duration,
                outage_start: o.outage_start,
                outage: o.outage,
                outage_kind: o.outage_kind,
                ..from_server(&o.server)
            },
            Scenario::Burst(b) => from_server(&b.server),
            // Only `outage` and `burst` run as storms (see `Run::start_repetition`).
            Scenario::Occ(_) | Scenario::Layers(_) | Scenario::Lost(_) => {
                from_server(&Server::default())
            }
        }
    }
}

/// The storm model.
pub struct Storm {
    kind: ScenarioKind,
    sp: StormCfg,
    policy: ValidPolicy,
    retry_after: Option<Micros>,
    clients: u32,
    reqs: Slab<Req>,
    budgets: Vec<Budget>,
    scope: Scope,
    breaker: Option<Breaker>,
    arrivals: Rng,
    backoff: Rng,
    // Attempts waiting for their tick, oldest tick first. Sends happen in time order and take the
    // same `net` to arrive, so ticks only ever join at the back.
    buckets: VecDeque<(u64, Vec<Pending>)>,
    // Settled ticks whose answers are on their way, oldest first (one `Deliver` event each).
    answers: VecDeque<Vec<Answer>>,
    spare_pending: Vec<Vec<Pending>>,
    spare_answers: Vec<Vec<Answer>>,
    per_tick_milli: u64,
    carry: u64, // in [0, 999]: thousandths of a slot left by the last settled tick
    // The bank, in thousandths of a slot times microseconds (a slot is `SLOT`): capacity left
    // unused by quiet ticks, at most one slot, so a server with less than a slot per tick still
    // serves a request every few ticks. In [0, SLOT].
    bank: u128,
    per_tick_exact: u128, // capacity per tick in the bank's units, exactly
    last_settled: Option<u64>,
    made: u64,
    planned: u64,
    next_gen: u32,
    /// What was measured.
    pub rec: Recorder,
}

impl Storm {
    /// A storm for the link, run number `run`. Returns the model and its first event.
    pub fn new(
        p: &RunInput,
        policy: ValidPolicy,
        kind: ScenarioKind,
        run: u32,
    ) -> (Storm, (Micros, Ev)) {
        let sp = p
            .sim
            .scenario
            .as_ref()
            .map_or_else(|| StormCfg::of(&Scenario::new(kind)), StormCfg::of);
        let clients = p.clients.max(1);
        let planned = match kind {
            ScenarioKind::Burst => u64::from(clients),
            ScenarioKind::Outage
            | ScenarioKind::Occ
            | ScenarioKind::Layers
            | ScenarioKind::Lost => {
                (u128::from(sp.rate_milli) * u128::from(sp.duration.0) / 1_000_000_000) as u64
            }
        };
        let horizon = match kind {
            ScenarioKind::Burst => Micros::ZERO,
            ScenarioKind::Outage
            | ScenarioKind::Occ
            | ScenarioKind::Layers
            | ScenarioKind::Lost => sp.duration,
        }
        .saturating_add(policy.policy().deadline.unwrap_or(Micros::from_secs(60)))
        .saturating_add(Micros::from_secs(1));
        let scope = policy.policy().scope;
        let n_budgets = match scope {
            Scope::Process => 1,
            Scope::Client => clients as usize,
            Scope::Tenant => sp.tenants.max(1) as usize,
        };
        let budgets = (0..n_budgets)
            .map(|_| Budget::new(policy.policy().budget, p.budget_start))
            .collect();
        let per_tick_milli =
            (u128::from(sp.capacity_milli) * u128::from(sp.tick.0) / 1_000_000) as u64;
        let per_tick_exact = u128::from(sp.capacity_milli) * u128::from(sp.tick.0);
        let mut rec = Recorder::new(sp.bin, horizon);
        let per_bin =
            (u128::from(sp.capacity_milli) * u128::from(rec.width().0) / 1_000_000) as u64;
        rec.set_capacity_per_bin(per_bin);
        let stream = u64::from(run);
        let storm = Storm {
            kind,
            breaker: sp.breaker.map(Breaker::new),
            sp,
            policy,
            retry_after: p.retry_after,
            clients,
            reqs: Slab::default(),
            budgets,
            scope,
            arrivals: Rng::stream(p.seed, STREAM_ARRIVALS + stream),
            backoff: Rng::stream(p.seed, STREAM_BACKOFF + stream),
            buckets: VecDeque::new(),
            answers: VecDeque::new(),
            spare_pending: Vec::new(),
            spare_answers: Vec::new(),
            per_tick_milli,
            carry: 0,
            // An idle server starts ready to take one request.
            bank: SLOT,
            per_tick_exact,
            last_settled: None,
            made: 0,
            planned,
            next_gen: 0,
            rec,
        };
        (storm, (Micros::ZERO, Ev::Arrive))
    }

    /// The latest time anything can happen, for progress.
    pub fn horizon(&self) -> Micros {
        let arrivals = if self.kind == ScenarioKind::Burst {
            Micros::ZERO
        } else {
            self.sp.duration
        };
        arrivals
            .saturating_add(self.policy.longest_request(self.retry_after))
            .saturating_add(self.sp.tick)
            .saturating_add(self.sp.net.saturating_add(self.sp.net))
    }

    fn budget_index(&self, client: u32) -> usize {
        match self.scope {
            Scope::Process => 0,
            Scope::Client => client as usize,
            Scope::Tenant => (client % self.sp.tenants.max(1)) as usize,
        }
    }

    fn in_outage(&self, t: Micros) -> bool {
        self.kind == ScenarioKind::Outage
            && t >= self.sp.outage_start
            && t < self.sp.outage_start.saturating_add(self.sp.outage)
    }

    fn new_request(&mut self, now: Micros, q: &mut EventQueue<Ev>) {
        let client = (self.made % u64::from(self.clients)) as u32;
        self.made += 1;
        let bi = self.budget_index(client);
        let retry = self.policy.start(now, &mut self.budgets[bi]);
        let req = Req {
            client,
            start: now,
            retry,
            gen: 0,
            live: true,
        };
        let id = self.reqs.insert(req);
        self.rec.original(now);
        self.send(now, id, q);
    }

    fn next_arrival(&mut self, now: Micros) -> Option<Micros> {
        let cap = if self.sp.poisson {
            super::params::caps::ORIGINALS
        } else {
            self.planned
        };
        if self.made >= cap {
            return None;
        }
        let t = if self.sp.poisson {
            let u = 1.0 - self.arrivals.next_f64();
            let gap = -libm::log(u) * 1e9 / self.sp.rate_milli as f64;
            now.saturating_add(Micros(libm::round(gap) as u64))
        } else {
            Micros((u128::from(self.made) * 1_000_000_000 / u128::from(self.sp.rate_milli)) as u64)
        };
        (t < self.sp.duration).then_some(t)
    }

    fn send(&mut self, now: Micros, id: u32, q: &mut EventQueue<Ev>) {
        if let Some(b) = self.breaker.as_mut() {
            let allowed = b.allow(now);
            let code = match b.state(now) {
                super::breaker::BreakerState::Closed => 1,
                super::breaker::BreakerState::HalfOpen { .. } => 2,
                super::breaker::BreakerState::Open(_) => 3,
            };
            self.rec.breaker(now, code);
            if !allowed {
                self.reqs[id].retry.stop(StopReason::BreakerOpen);
                self.finish(now, id, StopReason::BreakerOpen);
                return;
            }
        }
        let r = &mut self.reqs[id];
        let plan = match r.retry.plan_attempt(&self.policy) {
            Ok(plan) => plan,
            Err(reason) => {
                self.finish(now, id, reason);
                return;
            }
        };
        self.next_gen = self.next_gen.wrapping_add(1).max(1);
        r.gen = self.next_gen;
        let gen = r.gen;
        self.rec.attempt(now, plan.attempt > 1);
        let net = self.sp.net;
        let arrive = now.saturating_add(net);
        let give_up = now.saturating_add(plan.timeout);
        if self.in_outage(arrive) {
            let (at, outcome) = match self.sp.outage_kind {
                OutageKind::Status503 => (arrive.saturating_add(net), Outcome::Status(503)),
                OutageKind::ConnectTimeout => (give_up, Outcome::ConnectTimeout),
            };
            let (at, outcome) = if at > give_up {
                (give_up, Outcome::ReadTimeout)
            } else {
                (at, outcome)
            };
            q.push(
                at,
                Ev::Reply {
                    req: id,
                    gen,
                    outcome,
                },
            );
            return;
        }
        let tick = self.sp.tick.0;
        // Arrivals come in time order: reuse the last tick's number while it still holds.
        let k = match self.buckets.back() {
            Some((bk, _)) if arrive.0 >= bk * tick && arrive.0 < (bk + 1) * tick => *bk,
            _ => arrive.0 / tick,
        };
        let answer = Micros((k + 1) * tick).saturating_add(net);
        let orphan = answer > give_up;
        if orphan {
            q.push(
                give_up,
                Ev::Reply {
                    req: id,
                    gen,
                    outcome: Outcome::ReadTimeout,
                },
            );
        }
        let p = Pending {
            req: id,
            gen,
            orphan,
        };
        match self.buckets.back_mut() {
            Some((bk, list)) if *bk == k => list.push(p),
            _ => {
                let mut list = self.spare_pending.pop().unwrap_or_default();
                list.push(p);
                self.buckets.push_back((k, list));
                q.push(Micros((k + 1) * tick), Ev::Tick(k));
            }
        }
    }

    /// How many of the `n` attempts of tick `k` the server serves.
    ///
    /// The bank first takes in the capacity of the quiet ticks since the last settled one (up to
    /// one slot). When this tick's capacity and the bank cover every attempt, all are served.
    /// Otherwise the tick is overloaded: rejecting costs `reject_cost` of a slot each, and the
    /// tick's own capacity plus the last busy tick's carry serve
    /// `floor((c - reject_cost * n) / (1 - reject_cost))` of them; a bank built while idle does
    /// not survive an overload, which is what keeps a synchronised wave of retries (the burst
    /// lab) exactly as futile whatever the gaps between the waves.
    fn serve(&mut self, k: u64, n: u64) -> u64 {
        let idle = self
            .last_settled
            .map_or(0, |last| k.saturating_sub(last + 1));
        self.last_settled = Some(k);
        self.bank = (self.bank + self.per_tick_exact.saturating_mul(u128::from(idle))).min(SLOT);
        let avail = self.bank + self.per_tick_exact;
        let need = u128::from(n) * SLOT;
        if need <= avail {
            let left = avail - need;
            self.bank = left.min(SLOT);
            self.carry = ((left / 1_000_000) as u64).min(999);
            return n;
        }
        let credit = self.per_tick_milli + self.carry;
        let rc = self.sp.reject_cost_milli;
        let served = if rc >= 1000 {
            n.min(credit / 1000)
        } else {
            let triage = rc * n;
            if credit <= triage {
                0
            } else {
                n.min((credit - triage) / (1000 - rc))
            }
        };
        let used = served * 1000 + (n - served) * rc;
        self.carry = credit.saturating_sub(used).min(999);
        self.bank = u128::from(self.carry) * 1_000_000;
        served
    }

    fn settle(&mut self, now: Micros, k: u64, q: &mut EventQueue<Ev>) {
        if self.buckets.front().map(|(f, _)| *f) != Some(k) {
            return;
        }
        let Some((_, mut list)) = self.buckets.pop_front() else {
            return;
        };
        let n = list.len() as u64;
        let served = self.serve(k, n);
        self.rec.served(now, served as u32);
        let mut out = self.spare_answers.pop().unwrap_or_default();
        out.extend(
            list.drain(..)
                .enumerate()
                .filter(|(_, p)| !p.orphan)
                .map(|(i, p)| Answer {
                    req: p.req,
                    gen: p.gen,
                    ok: (i as u64) < served,
                }),
        );
        self.spare_pending.push(list);
        if out.is_empty() {
            self.spare_answers.push(out);
        } else {
            self.answers.push_back(out);
            q.push(now.saturating_add(self.sp.net), Ev::Deliver);
        }
    }

    fn deliver(&mut self, now: Micros, q: &mut EventQueue<Ev>) {
        let Some(mut batch) = self.answers.pop_front() else {
            return;
        };
        for a in batch.drain(..) {
            let outcome = if a.ok {
                Outcome::Ok
            } else {
                Outcome::Status(503)
            };
            self.reply(now, a.req, a.gen, outcome, q);
        }
        self.spare_answers.push(batch);
    }

    fn reply(&mut self, now: Micros, id: u32, gen: u32, outcome: Outcome, q: &mut EventQueue<Ev>) {
        let bi = {
            let r = &self.reqs[id];
            if !r.live || r.gen != gen {
                return;
            }
            self.budget_index(r.client)
        };
        let mut scripted = ScriptedOutcome::new(outcome);
        if outcome == Outcome::Status(503) {
            scripted.retry_after = self.retry_after;
        }
        let r = &mut self.reqs[id];
        let after = r.retry.after_attempt(
            &self.policy,
            now,
            &scripted,
            &mut self.budgets[bi],
            &mut self.backoff,
            None,
        );
        let next = r.retry.now();
        if let Some(b) = self.breaker.as_mut() {
            b.record(now, outcome.is_ok());
        }
        if bi == 0 && self.policy.policy().budget != crate::retry::budget::BudgetConfig::None {
            let level = self.budgets[0].level(now).milli;
            self.rec.budget(now, level);
        }
        match after.stop {
            Some(reason) => self.finish(now, id, reason),
            None if next == now => self.send(now, id, q),
            None => q.push(next, Ev::Send(id)),
        }
    }

    fn finish(&mut self, now: Micros, id: u32, reason: StopReason) {
        let r = &mut self.reqs[id];
        if !r.live {
            return;
        }
        r.live = false;
        let latency = now.saturating_sub(r.start);
        self.rec.end(now, reason, latency);
        self.reqs.release(id);
    }
}

impl Model for Storm {
    type Event = Ev;

    fn progress(&self, now: Micros) -> f64 {
        now.0 as f64 / self.horizon().0.max(1) as f64
    }

    fn finish(self, at: Option<Micros>) -> Report {
        self.rec.finish(at)
    }

    fn handle(&mut self, now: Micros, ev: Ev, q: &mut EventQueue<Ev>) {
        match ev {
            Ev::Arrive => {
                if self.kind == ScenarioKind::Burst {
                    while self.made < self.planned {
                        self.new_request(now, q);
                    }
                } else {
                    self.new_request(now, q);
                    if let Some(t) = self.next_arrival(now) {
                        q.push(t, Ev::Arrive);
                    }
                }
            }
            Ev::Send(id) => self.send(now, id, q),
            Ev::Tick(k) => self.settle(now, k, q),
            Ev::Deliver => self.deliver(now, q),
            Ev::Reply { req, gen, outcome } => self.reply(now, req, gen, outcome, q),
        }
    }
}
