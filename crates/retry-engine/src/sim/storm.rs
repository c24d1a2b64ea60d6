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
use super::params::{BreakerConfig, Hedge, OutageKind, ScenarioKind, ServerKind};
use super::queue::{EventQueue, ExactLane};
use super::settings::{QueueServer, Scenario, Server, Window};
use super::slab::Slab;
use super::{LimiterScope, LimiterSummary};
use crate::retry::budget::{Budget, Scope};
use crate::retry::limiter::AdaptiveLimiter;
use crate::retry::outcome::{Outcome, ScriptedOutcome};
use crate::retry::policy::{RequestRetry, StopReason, ValidPolicy};
use crate::retry::rng::{Rng, Words};
use crate::retry::time::Micros;
use alloc::collections::VecDeque;
use alloc::vec::Vec;

mod config;
mod flaky;
mod hedge;
mod lanes;
mod limiter;
pub(super) mod population;
mod queueing;
mod server;
mod servers;
mod service;
mod tick;
use config::StormCfg;
use lanes::{Awaits, Lanes};
use limiter::limiters_of;
use server::{Cx, ServerModel as _, ServerReply};
pub use service::ServerStats;

/// Random streams of a storm run (offset by the run number).
const STREAM_ARRIVALS: u64 = 1 << 40;
const STREAM_BACKOFF: u64 = 2 << 40;
const STREAM_SERVICE: u64 = 3 << 40;

/// The lane of events one network hop after what schedules them.
const LANE_NET: usize = 0;
/// The lane of service completions.
const LANE_SERVICE: usize = 1;
/// The lane of read timeouts.
const LANE_TIMEOUT: usize = 2;
/// The replies of the outage window, one fixed delay after the attempt whenever attempts have
/// the same timeout (an exact lane: see [`ExactLane`]).
const LANE_OUTAGE: usize = 3;
// Each lane's front is one of the event queue's heads.
const _: () = assert!(LANE_OUTAGE < super::queue::HEADS);

/// A request in flight. A storm keeps one per request in flight, up to two million at the
/// cap (a limiter's queue can hold them all), so it is kept to 80 bytes: its start is
/// `retry.origin()`, and its yes/no states share one byte.
struct Req {
    client: u32,
    retry: RequestRetry,
    gen: u32,
    // The closed-loop user that sent it (`NO_USER` for open-loop arrivals).
    user: u32,
    // LIVE, AWAITING and TOKEN.
    flags: u8,
    // When it began to wait for a token.
    queued_at: Micros,
    // Hedging: the attempts out (bit i: attempt `gen + i`) and how many were sent.
    out: u8,
    sent: u8,
}

/// `Req::flags`: it has not finished.
const LIVE: u8 = 1;
/// `Req::flags`: its attempt `gen` is out and unanswered (a timeout for it still counts).
const AWAITING: u8 = 2;
/// `Req::flags`: the adaptive limiter has handed it its token: its next send goes at once.
const TOKEN: u8 = 4;

impl Req {
    fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
    fn set(&mut self, flag: u8, on: bool) {
        if on {
            self.flags |= flag;
        } else {
            self.flags &= !flag;
        }
    }
    /// Clears `flag` and says whether it was set.
    fn take(&mut self, flag: u8) -> bool {
        let was = self.has(flag);
        self.set(flag, false);
        was
    }
}

// Memory at the request cap follows this size.
const _: () = assert!(core::mem::size_of::<Req>() <= 80);

const NO_USER: u32 = u32::MAX;

/// An attempt at the queue or flaky server: who sent it, when it arrived, and when its caller
/// stops waiting for the answer.
#[derive(Clone, Copy, Debug)]
pub struct StormJob {
    req: u32,
    gen: u32,
    at: Micros,
    give_up: Micros,
}

/// A storm event.
#[derive(Clone, Copy, Debug)]
// A 4-byte tag: the event is copied in whole words, where a 2-byte tag had its 14-byte payload
// copied in overlapping loads that stalled store forwarding on every event (18% of a queue run).
#[repr(u32)]
pub enum Ev {
    /// The next original request(s) arrive.
    Arrive,
    /// A request sends its next attempt.
    Send(u32),
    /// The server settles tick `k`.
    Tick(u64),
    /// The answers of the oldest settled tick reach their clients.
    Deliver,
    /// An attempt (its slot in the server's jobs) reaches the queue or flaky server.
    AtServer(u32),
    /// The queue or flaky server has done an attempt's work.
    Served(u32),
    /// The front of a lane is due (see `Storm::push_lane`).
    Lane(u8),
    /// The next request of a load spike arrives.
    Spike,
    /// Adaptive limiter `n` may have a token for the first send waiting for one.
    Token(u32),
    /// A closed-loop user sends its next request.
    User(u32),
    /// A hedged request's next attempt is due (`gen`: its first attempt's, which tells a
    /// request apart from a later one in the same slot; `sent`: its attempts sent when this
    /// one was planned, which tells a plan apart from a later one after an early send).
    Hedge {
        /// The request.
        req: u32,
        /// Its first attempt.
        gen: u32,
        /// Its attempts sent when planned.
        sent: u8,
    },
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
    // The adaptive rate limiters (one, or one per client), and what they did.
    limiters: Vec<AdaptiveLimiter>,
    limited: LimiterSummary,
    limit_wait: Micros,
    // What hedging did.
    hedged: super::HedgeSummary,
    // Each limiter's sends waiting for a token, first come first served, and when it next
    // looks for one.
    token_queues: Vec<VecDeque<u32>>,
    token_wake: Vec<Option<Micros>>,
    arrivals: Rng,
    backoff: Rng,
    made: u64,
    // `made % clients`, kept as a counter: a 64-bit division per request cost 3% of a run.
    next_client: u32,
    // Originals of the steady arrivals (not the spike's), for their spacing.
    steady: u64,
    spiked: u64,
    spike_planned: u64,
    planned: u64,
    // Requests finished (for progress: a run whose clock barely moves still finishes requests).
    done: u64,
    next_gen: u32,
    // The server, and the lanes it and the clients' timeouts share.
    server: servers::Servers,
    lanes: Lanes,
    // The server's answers that reach their clients now, for `reply`.
    replies: Vec<ServerReply>,
    outage_replies: ExactLane<Ev>,
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
        let spike_planned = sp.spike_requests;
        let (planned, horizon) = sp.planned(kind, clients, &policy);
        let scope = policy.policy().scope;
        let n_budgets = budget_count(scope, clients, sp.tenants);
        let budgets = (0..n_budgets)
            .map(|_| Budget::new(policy.policy().budget, p.budget_start))
            .collect();
        let mut rec = Recorder::new(sp.bin, horizon);
        rec.set_capacity_per_bin(sp.capacity_per(rec.width()));
        let stream = u64::from(run);
        let limiters = limiters_of(sp.limiter, clients);
        let server = servers::server_of(&sp, p.seed, run);
        let storm = Storm {
            kind,
            breaker: sp.breaker.map(Breaker::new),
            token_queues: alloc::vec![VecDeque::new(); limiters.len()],
            token_wake: alloc::vec![None; limiters.len()],
            limiters,
            limited: LimiterSummary::default(),
            hedged: super::HedgeSummary::default(),
            limit_wait: Micros::ZERO,
            sp,
            policy,
            retry_after: p.retry_after,
            clients,
            reqs: Slab::default(),
            budgets,
            scope,
            arrivals: Rng::stream(p.seed, STREAM_ARRIVALS + stream),
            backoff: Rng::stream(p.seed, STREAM_BACKOFF + stream),
            made: 0,
            next_client: 0,
            steady: 0,
            spiked: 0,
            spike_planned,
            done: 0,
            planned,
            next_gen: 0,
            server,
            lanes: Lanes::new(),
            replies: Vec::new(),
            outage_replies: ExactLane::new(LANE_OUTAGE, Ev::Lane(LANE_OUTAGE as u8)),
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
        }
        .max(self.sp.spike.start.saturating_add(self.sp.spike.length));
        arrivals
            .saturating_add(self.policy.longest_request(self.retry_after))
            .saturating_add(self.sp.tick)
            .saturating_add(self.sp.net.saturating_add(self.sp.net))
    }

    fn budget_index(&self, client: u32) -> usize {
        budget_slot(self.scope, client, self.sp.tenants)
    }

    fn in_outage(&self, t: Micros) -> bool {
        self.kind == ScenarioKind::Outage
            && t >= self.sp.outage_start
            && t < self.sp.outage_start.saturating_add(self.sp.outage)
    }

    fn new_request(&mut self, now: Micros, q: &mut EventQueue<Ev>) {
        self.new_request_of(now, NO_USER, q);
    }

    fn new_request_of(&mut self, now: Micros, user: u32, q: &mut EventQueue<Ev>) {
        let turn = self.next_client;
        self.next_client = if turn + 1 >= self.clients {
            0
        } else {
            turn + 1
        };
        let client = if user == NO_USER {
            turn
        } else {
            user % self.clients
        };
        self.made += 1;
        let bi = self.budget_index(client);
        let retry = self.policy.start(now, &mut self.budgets[bi]);
        let req = Req {
            client,
            retry,
            gen: 0,
            user,
            flags: LIVE,
            queued_at: Micros::ZERO,
            out: 0,
            sent: 0,
        };
        let id = self.reqs.insert(req);
        self.rec.original(now);
        if self.sp.hedge.is_some() {
            self.start_hedged(now, id, q);
        } else {
            self.send(now, id, q);
        }
    }

    fn next_arrival(&mut self, now: Micros) -> Option<Micros> {
        let cap = if self.sp.poisson {
            super::params::caps::ORIGINALS
        } else {
            self.planned
        };
        if self.steady >= cap {
            return None;
        }
        let t = if self.sp.poisson {
            let u = 1.0 - self.arrivals.next_f64();
            let gap = -libm::log(u) * 1e9 / self.sp.rate_milli as f64;
            now.saturating_add(Micros(libm::round(gap) as u64))
        } else {
            // In u64 whenever the product fits (always within the caps): a u128 division
            // is a library call, once per arrival.
            let rate = self.sp.rate_milli.max(1);
            Micros(match self.steady.checked_mul(1_000_000_000) {
                Some(n) => n / rate,
                None => (u128::from(self.steady) * 1_000_000_000 / u128::from(rate)) as u64,
            })
        };
        (t < self.sp.duration).then_some(t)
    }

    fn send(&mut self, now: Micros, id: u32, q: &mut EventQueue<Ev>) {
        if !self.limiters.is_empty() && self.waits_for_token(now, id, q) {
            return;
        }
        if let Some(b) = self.breaker.as_mut() {
            let allowed = b.allow(now);
            let code = b.state(now).code();
            self.rec.breaker(now, code);
            if !allowed {
                self.unsent(now, id);
                self.reqs[id].retry.stop(StopReason::BreakerOpen);
                self.finish(now, id, StopReason::BreakerOpen, q);
                return;
            }
        }
        let r = &mut self.reqs[id];
        let plan = match r.retry.plan_attempt(&self.policy) {
            Ok(plan) => plan,
            Err(reason) => {
                self.unsent(now, id);
                self.finish(now, id, reason, q);
                return;
            }
        };
        self.next_gen = self.next_gen.wrapping_add(1).max(1);
        r.gen = self.next_gen;
        r.set(AWAITING, true);
        let gen = r.gen;
        self.rec.attempt(now, plan.attempt > 1);
        if plan.attempt == 2 {
            self.rec.retry_began(now);
        }
        self.dispatch(now, id, gen, plan.timeout, q);
    }

    /// Attempt `gen` of request `id` leaves at `now` and waits up to `timeout`: it fails at
    /// once in the outage window, or goes to the server.
    #[inline(always)]
    fn dispatch(
        &mut self,
        now: Micros,
        id: u32,
        gen: u32,
        timeout: Micros,
        q: &mut EventQueue<Ev>,
    ) {
        let net = self.sp.net;
        let arrive = now.saturating_add(net);
        let give_up = now.saturating_add(timeout);
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
            let reply = || Ev::Reply {
                req: id,
                gen,
                outcome,
            };
            self.outage_replies.push(q, at, reply);
            return;
        }
        let job = StormJob {
            req: id,
            gen,
            at: arrive,
            give_up,
        };
        let (server, mut cx) = self.server_cx(q);
        server.send(now, job, &mut cx);
    }

    /// The server and what it may touch of the storm.
    fn server_cx<'a>(
        &'a mut self,
        q: &'a mut EventQueue<Ev>,
    ) -> (&'a mut servers::Servers, Cx<'a>) {
        let cx = Cx {
            q,
            lanes: &mut self.lanes,
            rec: &mut self.rec,
            aw: Awaits {
                reqs: &self.reqs,
                hedge: self.sp.hedge.is_some(),
            },
            hedged: &mut self.hedged,
            replies: &mut self.replies,
        };
        (&mut self.server, cx)
    }

    /// One of the server's events is due; the answers it gives that reach their clients now
    /// are then delivered, in order.
    fn server_event(&mut self, now: Micros, ev: Ev, q: &mut EventQueue<Ev>) {
        let (server, mut cx) = self.server_cx(q);
        server.handle(now, ev, &mut cx);
        if self.replies.is_empty() {
            return;
        }
        let mut replies = core::mem::take(&mut self.replies);
        for (req, gen, outcome) in replies.drain(..) {
            self.reply(now, req, gen, outcome, q);
        }
        // A reply only sends, and a send never answers at once: nothing joined meanwhile.
        debug_assert!(self.replies.is_empty());
        self.replies = replies;
    }

    /// Lane `K`'s events due at `now`, in order; then its next front is scheduled.
    ///
    /// One copy per lane: each copy's dispatch below is its own branch, which the processor
    /// predicts from that lane's events alone (the service and timeout lanes carry one kind).
    fn fire_lane<const K: usize>(&mut self, now: Micros, q: &mut EventQueue<Ev>) {
        // Armed while it runs: what it schedules in the lane joins the back.
        self.lanes.firing(K);
        while let Some(ev) = self.lanes.pop_due(K, now) {
            match ev {
                Ev::Reply { req, gen, outcome } => self.reply(now, req, gen, outcome, q),
                Ev::AtServer(_) | Ev::Served(_) => self.server_event(now, ev, q),
                Ev::Arrive
                | Ev::Send(_)
                | Ev::Tick(_)
                | Ev::Deliver
                | Ev::Lane(_)
                | Ev::Spike
                | Ev::Token(_)
                | Ev::User(_)
                | Ev::Hedge { .. } => self.handle(now, ev, q),
            }
        }
        let aw = Awaits {
            reqs: &self.reqs,
            hedge: self.sp.hedge.is_some(),
        };
        self.lanes.rearm(K, q, aw);
    }

    /// An attempt the budget counted was not sent after all (the breaker refused it, or the
    /// deadline passed): it ends now for a budget that counts attempts in flight.
    pub(super) fn unsent(&mut self, now: Micros, id: u32) {
        let r = &self.reqs[id];
        let bi = self.budget_index(r.client);
        let attempt = r.retry.attempts_made().saturating_add(1);
        self.budgets[bi].attempt_ended(attempt, now);
    }

    fn reply(&mut self, now: Micros, id: u32, gen: u32, outcome: Outcome, q: &mut EventQueue<Ev>) {
        if self.sp.hedge.is_some() {
            self.hedge_reply(now, id, gen, outcome, q);
            return;
        }
        let bi = {
            let r = &mut self.reqs[id];
            if !r.has(LIVE) || r.gen != gen || !r.take(AWAITING) {
                return;
            }
            let client = r.client;
            self.budget_index(client)
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
        let client = r.client;
        if let Some(b) = self.breaker.as_mut() {
            b.record(now, outcome.is_ok());
        }
        self.tell_limiter(now, client, outcome, q);
        if bi == 0 && self.policy.policy().budget != crate::retry::budget::BudgetConfig::None {
            let level = self.budgets[0].level(now).milli;
            self.rec.budget(now, level);
        }
        match after.stop {
            Some(reason) => self.finish(now, id, reason, q),
            None if next == now => self.send(now, id, q),
            None => q.push(next, Ev::Send(id)),
        }
    }

    fn next_spike(&self) -> Option<Micros> {
        if self.spiked >= self.spike_planned || self.sp.spike_rate_milli == 0 {
            return None;
        }
        let gap = u128::from(self.spiked) * 1_000_000_000 / u128::from(self.sp.spike_rate_milli);
        Some(self.sp.spike.start.saturating_add(Micros(gap as u64)))
    }

    fn finish(&mut self, now: Micros, id: u32, reason: StopReason, q: &mut EventQueue<Ev>) {
        let r = &mut self.reqs[id];
        if !r.take(LIVE) {
            return;
        }
        self.done += 1;
        let latency = now.saturating_sub(r.retry.origin());
        let user = r.user;
        if r.retry.attempts_made() > 1 {
            self.rec.retry_ended(now);
        }
        self.rec.end(now, reason, latency);
        self.reqs.release(id);
        // A closed-loop user thinks, then sends its next request while the run lasts.
        if user != NO_USER {
            let next = now.saturating_add(self.sp.think);
            if next < self.sp.duration {
                q.push(next, Ev::User(user));
            }
        }
    }
}

impl Model for Storm {
    type Event = Ev;

    /// The larger of two estimates, each only ever growing: the clock against the longest a
    /// run can last, and the requests made and finished so far. The first alone stands still
    /// when the longest request is days (a 24 h timeout, a thousand attempts) while the clock
    /// moves in milliseconds; the second moves with every request that ends.
    fn progress(&self, now: Micros) -> f64 {
        let clock = now.0 as f64 / self.horizon().0.max(1) as f64;
        let all = self.planned.max(self.made).max(1) as f64;
        let finished = self.done as f64 / all;
        let work = if self.kind == ScenarioKind::Burst {
            finished
        } else {
            let arrivals = self
                .sp
                .duration
                .max(self.sp.spike.start.saturating_add(self.sp.spike.length));
            let arrived = (now.0 as f64 / arrivals.0.max(1) as f64).min(1.0);
            (arrived + finished) / 2.0
        };
        clock.max(work).min(0.999)
    }

    fn finish(self, at: Option<Micros>) -> Report {
        let limiter = (!self.limiters.is_empty()).then(|| LimiterSummary {
            mean_wait_ms: if self.limited.waited == 0 {
                0.0
            } else {
                self.limit_wait.0 as f64 / self.limited.waited as f64 / 1000.0
            },
            // Folded from +0: an empty `sum` of floats is -0.0, which JSON would print.
            allowed_per_s: self
                .limiters
                .iter()
                .filter(|l| l.enabled())
                .map(AdaptiveLimiter::fill_rate)
                .fold(0.0, |a, b| a + b),
            ..self.limited
        });
        let hedged = self.sp.hedge.is_some().then_some(self.hedged);
        let mut rep = self.sp.report(self.kind, self.rec, at);
        rep.summary.limiter = limiter;
        rep.summary.hedge = hedged.map(|h| super::HedgeSummary {
            extra_load: if rep.summary.originals == 0 {
                0.0
            } else {
                h.sent as f64 / rep.summary.originals as f64
            },
            ..h
        });
        let max_attempts = self.policy.policy().max_attempts;
        rep.summary.server = self.server.summary(rep.summary.successes, max_attempts);
        rep
    }

    fn handle(&mut self, now: Micros, ev: Ev, q: &mut EventQueue<Ev>) {
        match ev {
            Ev::Arrive => {
                if self.kind == ScenarioKind::Burst {
                    while self.made < self.planned {
                        self.new_request(now, q);
                    }
                } else {
                    if now == Micros::ZERO {
                        if let Some(t) = self.next_spike() {
                            q.push(t, Ev::Spike);
                        }
                    }
                    if self.sp.users > 0 {
                        // The users start spread over one think time, then each waits for
                        // its answer before thinking again.
                        let n = u64::from(self.sp.users);
                        for u in 0..self.sp.users {
                            let t = self.sp.think.0.saturating_mul(u64::from(u)) / n;
                            q.push(Micros(t), Ev::User(u));
                        }
                        return;
                    }
                    self.steady += 1;
                    self.new_request(now, q);
                    if let Some(t) = self.next_arrival(now) {
                        q.push(t, Ev::Arrive);
                    }
                }
            }
            Ev::Spike => {
                self.spiked += 1;
                self.new_request(now, q);
                if let Some(t) = self.next_spike() {
                    q.push(t, Ev::Spike);
                }
            }
            Ev::User(u) => self.new_request_of(now, u, q),
            Ev::AtServer(_) | Ev::Served(_) | Ev::Tick(_) | Ev::Deliver => {
                self.server_event(now, ev, q)
            }
            Ev::Lane(k) if usize::from(k) == LANE_OUTAGE => {
                if let Some(Ev::Reply { req, gen, outcome }) = self.outage_replies.take(q) {
                    self.reply(now, req, gen, outcome, q);
                }
            }
            Ev::Lane(k) => match usize::from(k) {
                LANE_NET => self.fire_lane::<LANE_NET>(now, q),
                LANE_SERVICE => self.fire_lane::<LANE_SERVICE>(now, q),
                _ => self.fire_lane::<LANE_TIMEOUT>(now, q),
            },
            Ev::Send(id) => self.send(now, id, q),
            Ev::Token(li) => self.hand_out_tokens(now, li as usize, q),
            Ev::Hedge { req, gen, sent } => self.hedge_due(now, req, gen, sent, q),
            Ev::Reply { req, gen, outcome } => self.reply(now, req, gen, outcome, q),
        }
    }
}

/// How many retry budgets a storm keeps under `scope`: one for the process, one per client, or
/// one per tenant.
fn budget_count(scope: Scope, clients: u32, tenants: u32) -> usize {
    match scope {
        Scope::Process => 1,
        Scope::Client => clients.max(1) as usize,
        Scope::Tenant => tenants.max(1) as usize,
    }
}

/// The budget `client`'s requests use under `scope` (a client's tenant is its number's).
fn budget_slot(scope: Scope, client: u32, tenants: u32) -> usize {
    match scope {
        Scope::Process => 0,
        Scope::Client => client as usize,
        Scope::Tenant => (client % tenants.max(1)) as usize,
    }
}
