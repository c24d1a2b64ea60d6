//! The population engine: a storm (`outage`, `burst`) run as counts of requests, a tick of the
//! server at a time, for sizes no per-request engine reaches in seconds (a million clients, a
//! 100,000 requests/s outage).
//!
//! It holds the requests by cohort: their attempt number, their start, and how many. Each tick
//! of the tick server it takes the cohorts whose attempts arrive in it, with the steady
//! arrivals' originals, and settles them by the same capacity rule as the per-request engine
//! (`Tick::serve`, one function for both). Then, per cohort:
//!
//! - which of its attempts the server served: first come, first served, by the attempts'
//!   arrival in the tick (a jittered one placed in its eighth of the tick), and among attempts
//!   arriving together in the order they were scheduled, as the per-request engine takes its
//!   events;
//! - what the failures do: the policy's own rules, on counts: not retryable, out of attempts,
//!   out of deadline; then each retry's wait, uniform over the range the backoff knows in
//!   advance (`Backoff::wait_range`) or, under decorrelated jitter, over the range the
//!   cohort's previous wait gives (`Backoff::decorrelated_range`: each eighth of a tick the
//!   retries land in carries its middle as their previous wait, the cap's draws the cap
//!   exactly), or the range a server's Retry-After makes of it under
//!   the client's rule (`RetryAfterMode::range_after`), with the fit rule cutting at the longest wait that fits,
//!   spread over the ticks its retries land in (a multinomial, or one draw each where there are
//!   fewer requests than ticks). Under `fit=cut` a retry's attempt is cut short at the deadline
//!   less the reserve (`Clock::give_up`): a cohort answered after it times out there.
//!
//! Closed-loop users start spread over one think time, as the per-request engine starts them;
//! each cohort of their requests that ends sends its users' next requests a think time later.
//!
//! The queue server is stepped in bins of its own (at most a sixteenth of its mean service) in
//! `queue.rs`: the attempts at it waiting in order, or in service by the bin their work ends in.
//!
//! The AWS SDKs' adaptive limiter (one for the process) stands before every send: a cohort
//! takes the tokens its bucket holds and the rest wait in line for the tokens to come
//! (`limiter.rs`); the limiter hears the answers in time order.
//!
//! Hedging is stepped where every answer comes before the hedging delay: each failure sends
//! the next attempt at once, as a retry with no wait under gRPC A6's budget rules.
//!
//! A circuit breaker is asked at each cohort's send and hears each cohort's answers, in time
//! order (`Breaker::allow_many`, `Breaker::record_many`: the same state as one call at a
//! time): in the outage and on the flaky server the tick's cohorts and their quick retries go
//! as events, send and answer each at its time; on the tick server the next tick's attempts
//! sent before this tick's answers arrive are sent first. A tick's successes are heard before
//! its failures (first come, first served puts them first).
//!
//! What it approximates, each measured against the per-request engine in
//! `crates/retry-model/tests/population.rs`: a request's start is the mean start of its
//! eighth of its arrival tick's originals (its deadline and latency to within an eighth of a
//! tick); an attempt after a jittered wait arrives at the middle of its eighth of a tick (its
//! failure time and its place in the serving order to within a sixteenth of a tick); and a
//! count whose split has an expected size over [`crate::sim::split::EXACT_UP_TO`] on both sides is drawn
//! from the normal with the binomial's mean and variance. What it cannot step is refused by
//! name ([`refusal()`]). The flaky server's attempts are each served as they arrive, so it has
//! no order to approximate.

mod answers;
mod arrivals;
mod budgets;
mod limiter;
mod queue;
mod refusal;
mod spread;

pub(in crate::sim) use refusal::refusal;
use refusal::{ranges_503, spike_of};

use super::config::StormCfg;
use super::service::Service;
use super::tick::Tick;
use crate::retry::backoff::WaitRange;
use crate::retry::budget::{Budget, RetryCost};
use crate::retry::classify::classify_listed;
use crate::retry::outcome::{Outcome, ScriptedOutcome};
use crate::retry::policy::{FitRule, StopReason, ValidPolicy};
use crate::retry::rng::Rng;
use crate::retry::time::Micros;
use crate::sim::breaker::Breaker;
use crate::sim::engine::Model;
use crate::sim::input::RunInput;
use crate::sim::metrics::{Recorder, Report};
use crate::sim::params::{ScenarioKind, ServerKind};
use crate::sim::queue::EventQueue;
use alloc::collections::VecDeque;
use alloc::vec::Vec;
use arrivals::Even;
pub(in crate::sim) use queue::bin_width;
use queue::QueueCounts;

/// The random stream of a population run (offset by the run number).
const STREAM_POPULATION: u64 = 5 << 40;

/// The parts of a tick a jittered arrival is placed in: attempts are served in the order they
/// arrive, so where in its tick an attempt arrives decides whether it is served.
const SLOTS: u64 = 8;

/// How many cohorts a tick's originals are split into by start: a request's start, its
/// deadline and its latency are then known to within an eighth of a tick.
const ORIGIN_GROUPS: u64 = 8;

/// Requests that share their attempt number and their start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cohort {
    /// The attempt they are on (1: the first).
    attempt: u32,
    /// Their start, in µs: the mean start of the originals of one tick.
    origin: u64,
    /// When their attempt reaches the server, in µs: exact after a wait known to the
    /// microsecond, the tick's middle after a jittered one.
    at: u64,
    /// How many.
    n: u64,
    /// When their send was scheduled, in µs (an original's at the send before it, a retry's at
    /// the failure it follows), then in order (`seq`): attempts sent or arriving at the same
    /// moment are taken in this order, as the per-request engine takes its events.
    sched: u64,
    seq: u64,
    /// Whether their attempt has been sent (a breaker asked, the attempt recorded).
    sent: bool,
    /// Decorrelated jitter's previous wait, µs (the base before the first retry; 0 for every
    /// other backoff).
    prev: u64,
    /// Closed-loop users' requests: each user sends its next when one ends (a load spike's do
    /// not).
    user: bool,
    /// What the retry that made this attempt withdrew from the budget, in thousandths (the
    /// AWS quota refunds it on a success; 0 for an original).
    taken: u32,
    /// Whether their send has its limiter's token (handed out after a wait in line).
    limited: bool,
    /// The client they belong to, where each client has its own limiter or budget (else 0).
    client: u32,
}

// A cohort fits a cache line: the schedule holds millions of them at production sizes.
const _: () = assert!(core::mem::size_of::<Cohort>() <= 64);

/// When a cohort's attempt leaves and when its clients give up on it: the policy's timing,
/// copied so that the answer times of `Population::in_time_order` can read it.
#[derive(Clone, Copy, Debug)]
struct Clock {
    net: u64,
    timeout: u64,
    // The deadline less the reserve, after the request's start.
    deadline: Option<u64>,
}

impl Clock {
    /// When `c`'s attempt is sent: a hop before it arrives (an original at its start, unless
    /// it waited for a limiter's token).
    fn sent(&self, c: &Cohort) -> u64 {
        c.at.saturating_sub(self.net)
    }

    /// When `c`'s clients give up on its attempt: its timeout after its send, or, sooner, the
    /// deadline less the reserve (an attempt cut short to fit, as `plan_attempt` cuts it).
    fn give_up(&self, c: &Cohort) -> u64 {
        let timeout = self.sent(c).saturating_add(self.timeout);
        match self.deadline {
            Some(d) => timeout.min(c.origin.saturating_add(d)),
            None => timeout,
        }
    }

    /// An answer at `t` with `outcome`, or a read timeout at the give-up when that comes first.
    fn answer(&self, c: &Cohort, t: u64, outcome: Outcome) -> (u64, Outcome) {
        let g = self.give_up(c);
        if t > g {
            (g, Outcome::ReadTimeout)
        } else {
            (t, outcome)
        }
    }
}

/// An event of `Population::in_time_order`: its time, 0 for a send or 1 for an answer, the
/// cohort's (scheduled, seq) order and its index.
type TimeOrder = (u64, u8, (u64, u64), usize);

/// How many of a cohort's failures the budget lets retry.
#[derive(Clone, Copy, Debug)]
struct Gate {
    allow: u64,
    /// `allow` of them, set by their place in line, go whatever their fit (gRPC throttling:
    /// the first, each asking once its own token is taken; Envoy's limit: the last, once the
    /// ends before them have freed places); else `allow` of those that fit (a level a retry
    /// that will not fit leaves as it was).
    first: bool,
}

/// A storm run as counts.
pub struct Population {
    kind: ScenarioKind,
    sp: StormCfg,
    policy: ValidPolicy,
    server: Tick,
    // The queue or flaky server's accounting, when the storm's server is one of them.
    service: Option<Service>,
    // The queue server's counts, when the storm's server is the queue.
    queue: Option<QueueCounts>,
    width: u64,
    rng: Rng,
    planned: u64,
    // Originals landed so far, of every stream.
    made: u64,
    // The steady arrivals (a burst's clients, all at 0) and the load spike's: evenly spaced.
    steady: Even,
    spike: Even,
    done: u64,
    // Cohorts arriving at the server in tick `base + i`, at `arriving[i]`.
    base: u64,
    arriving: VecDeque<Vec<Cohort>>,
    ranges: Vec<WaitRange>,
    // Each retry's waits after a 503, with the server's Retry-After (`None`: the client gives
    // up on the server's wait).
    ranges_503: Vec<Option<WaitRange>>,
    // Whether a 503, a connect timeout, a read timeout is retried.
    retry_503: bool,
    retry_connect: bool,
    retry_read: bool,
    rec: Recorder,
    // The retry budgets: one for the process, or one per client or per tenant (`budget_of`).
    budgets: Vec<Budget>,
    // How many clients the cohorts of originals are split over, in turn (1: not split), where
    // each client has a limiter or a budget of its own.
    split: u64,
    // The circuit breaker beside the policy, if the link has one.
    breaker: Option<Breaker>,
    // Retries that arrive again in the tick being settled (the outage's quick ones).
    now: Vec<Cohort>,
    // Cohorts scheduled so far (each cohort's `seq`).
    seq: u64,
    // The time of the failure (or the end) whose next attempt is being scheduled.
    deciding: u64,
    // Poisson arrivals: drawn for the send times before this one.
    poisson_to: u64,
    // Decorrelated jitter: each cohort's waits follow from its previous one, which starts at
    // the base (`first_prev`).
    decorrelated: bool,
    first_prev: u64,
    // Closed-loop users' next originals, made when their last request ends: how many are sent
    // at each time by each client, for a budget that earns from originals as they are sent.
    user_sends: alloc::collections::BTreeMap<(u64, u32), u64>,
    // Polly's decorrelated-v2: each cohort carries the curve's last value (`f64` bits) in `prev`.
    v2: bool,
    // The server's Retry-After on a 503, as the client reads it (decorrelated-v2 draws its
    // wait, then takes the server's under its rule).
    server_wait: Option<Micros>,
    // Answers that come after the tick they were sent in, by (time, order scheduled).
    late: answers::LateAnswers,
    // The client-side limiters (none, one for the process, or one per client), each with the
    // sends waiting for its tokens.
    lines: Vec<limiter::TokenLine>,
    // Hedging (`hedge=on`) where no request has two attempts out at once (`refusal`): its
    // attempts in all, the hedges sent, and the requests a hedge won.
    hedge_max: Option<u32>,
    hedges: u64,
    hedge_won: u64,
    // The next non-user request's client, in turn: as the cohorts are made, and as the budgets
    // hear the originals sent (`deposit_turn`).
    turn: u64,
    deposit_turn: u64,
    // The last send time whose attempt arrives in the tick being settled.
    tick_end: u64,
}

impl Population {
    /// A population run of the link, run number `run`; its first event is the tick its first
    /// originals arrive in.
    pub fn new(
        p: &RunInput,
        policy: ValidPolicy,
        kind: ScenarioKind,
        run: u32,
    ) -> (Population, (Micros, u64)) {
        let mut sp = p.sim.scenario.as_ref().map_or_else(
            || StormCfg::of(&crate::sim::settings::Scenario::new(kind)),
            StormCfg::of,
        );
        // Closed-loop users send when they have thought, whatever the arrivals key says.
        sp.poisson &= sp.users == 0;
        let clients = p.clients.max(1);
        let (mut planned, horizon) = sp.planned(kind, clients, &policy);
        if sp.users > 0 {
            planned = sp.users_planned();
        }
        let mut rec = Recorder::new(sp.bin, horizon);
        rec.set_capacity_per_bin(sp.capacity_per(rec.width()));
        let pol = policy.policy();
        let (retry_connect, retry_read) = timeouts_retried(&policy);
        let hedge_max = sp.hedge.map(|h| h.max);
        let (ranges, (retry_503, ranges_503)) = wait_ranges(p, &policy, hedge_max);
        let server_wait = refusal::server_wait_503(p, &policy);
        let width = match sp.server {
            ServerKind::Queue => bin_width(&sp.queue),
            ServerKind::Tick | ServerKind::Flaky => sp.tick.0.max(1),
        };
        let (steady, spike) = streams(kind, &sp, planned);
        let decorrelated = policy.backoff().decorrelated_range(0, 0).is_some();
        let m = Population {
            kind,
            server: Tick::new(&sp),
            service: (sp.server != ServerKind::Tick).then(|| Service::new(&sp, p.seed, run)),
            queue: (sp.server == ServerKind::Queue).then(|| QueueCounts::new(&sp, width)),
            width,
            rng: Rng::stream(p.seed, STREAM_POPULATION + u64::from(run)),
            planned,
            made: 0,
            steady,
            spike,
            done: 0,
            base: 0,
            arriving: VecDeque::new(),
            ranges,
            ranges_503,
            retry_503,
            retry_connect,
            retry_read,
            rec,
            budgets: budgets::budgets_of(&sp, pol, p.budget_start, clients),
            split: budgets::split_of(&sp, pol, clients),
            now: Vec::new(),
            breaker: sp.breaker.map(Breaker::new),
            seq: 0,
            deciding: 0,
            late: answers::LateAnswers::default(),
            lines: limiter::lines_of(sp.limiter, clients),
            hedge_max,
            hedges: 0,
            hedge_won: 0,
            turn: 0,
            deposit_turn: 0,
            tick_end: 0,
            user_sends: alloc::collections::BTreeMap::new(),
            v2: policy.backoff().decorrelated_v2_pieces(0, 0, 1).is_some(),
            server_wait,
            poisson_to: 0,
            decorrelated,
            first_prev: if decorrelated { pol.backoff.base.0 } else { 0 },
            policy,
            sp,
        };
        let first = m.originals_tick(0);
        (
            m,
            (Micros(first.saturating_add(1).saturating_mul(width)), first),
        )
    }

    /// The cohorts arriving in tick `k` (taken off the schedule), in arrival order.
    fn take(&mut self, k: u64) -> Vec<Cohort> {
        let mut list = if k == self.base {
            self.base += 1;
            self.arriving.pop_front().unwrap_or_default()
        } else {
            Vec::new()
        };
        self.originals_in(k, &mut list);
        // In the order the server takes them (by arrival, then as scheduled), neighbours alike
        // merged.
        list.sort_unstable_by_key(|c| (c.at, c.sched, c.seq));
        list.dedup_by(|b, a| {
            let same = a.attempt == b.attempt
                && a.origin == b.origin
                && a.at == b.at
                && a.sent == b.sent
                && a.prev == b.prev
                && a.user == b.user
                && a.taken == b.taken
                && a.limited == b.limited
                && a.client == b.client;
            if same {
                a.n += b.n;
                (a.sched, a.seq) = (a.sched, a.seq).min((b.sched, b.seq));
            }
            same
        });
        list
    }

    /// Schedules `n` requests of `c` to arrive at the server at `at` on their next attempt
    /// (in tick `at / tick`).
    fn schedule(&mut self, at: u64, c: Cohort, n: u64, prev: u64) {
        // The deliberately wrong step the checks must catch (a test build's feature).
        let at = at
            + if cfg!(feature = "mutation-late-waits") {
                self.width
            } else {
                0
            };
        self.seq += 1;
        if c.attempt >= 1 && self.hedge_max.is_some() {
            self.hedges += n;
        }
        if c.attempt >= 1 {
            // A retry: in flight for Envoy's limit from its send.
            let send = at.saturating_sub(self.sp.net.0);
            let b = self.budget_of(c.client);
            self.budgets[b].retries_at(Micros(send), n);
        }
        let next = Cohort {
            attempt: c.attempt + 1,
            origin: c.origin,
            at,
            n,
            // A retry sent at once goes within the event that answered its attempt, which was
            // scheduled no sooner than that attempt's send (a closed-loop user's next request,
            // scheduled when its last one ended, goes before it).
            sched: if at.saturating_sub(self.sp.net.0) > self.deciding {
                self.deciding
            } else {
                c.at.saturating_sub(self.sp.net.0)
            },
            seq: self.seq,
            sent: false,
            prev,
            user: c.user,
            taken: c.taken,
            limited: false,
            client: c.client,
        };
        let k = at / self.width;
        if k < self.base {
            // The tick being settled (an outage's quick retry): it is taken again at once.
            self.now.push(next);
            return;
        }
        let i = (k - self.base) as usize;
        if self.arriving.len() <= i {
            self.arriving.resize_with(i + 1, Vec::new);
        }
        self.arriving[i].push(next);
    }

    /// `n` failed requests of `c` stop at `t` for `reason` before asking the budget; their
    /// attempts end for Envoy's limit.
    fn stop(&mut self, t: u64, c: Cohort, reason: StopReason, n: u64) {
        self.deposit_to(t);
        let b = self.budget_of(c.client);
        self.budgets[b].in_flight_fail(Micros(t), c.attempt, n, false, false);
        self.end(t, c, reason, n);
    }

    /// `n` requests of `c` end at `t` for `reason`.
    fn end(&mut self, t: u64, c: Cohort, reason: StopReason, n: u64) {
        if n == 0 {
            return;
        }
        self.done += n;
        if reason == StopReason::Success {
            self.limiter_hears(t, c.client, n, 0);
            self.deposit_to(t);
            let b = self.budget_of(c.client);
            self.budgets[b].attempts_ended(Micros(t), c.attempt, n);
            // A hedge's success refunds nothing (gRPC's A6 has no refund).
            let refund = (c.attempt > 1 && self.hedge_max.is_none()).then_some(u64::from(c.taken));
            if c.attempt > 1 && self.hedge_max.is_some() {
                self.hedge_won += n;
            }
            self.budgets[b].on_successes(Micros(t), n, refund);
            self.record_budget(t, b);
        }
        if c.attempt > 1 {
            self.rec.retries_ended(Micros(t), n);
        }
        self.rec
            .ends_n(Micros(t), reason, Micros(t.saturating_sub(c.origin)), n);
        // A closed-loop user thinks, then sends its next request while the run lasts.
        let next = t.saturating_add(self.sp.think.0);
        self.deciding = t;
        if c.user && next < self.sp.duration.0 {
            self.user_cohort(next, n, c.client);
        }
    }

    /// `n` closed-loop users' next requests, sent at `origin`, recorded, on the schedule (as
    /// the attempt after an attempt 0: their first).
    fn user_cohort(&mut self, origin: u64, n: u64, client: u32) {
        self.made += n;
        if self.budgets[0].deposit_slot().is_some() {
            *self.user_sends.entry((origin, client)).or_default() += n;
        }
        self.rec.originals_n(Micros(origin), n);
        let c = Cohort {
            attempt: 0,
            origin,
            at: 0,
            n,
            sched: 0,
            seq: 0,
            sent: false,
            prev: self.first_prev,
            user: true,
            taken: 0,
            limited: false,
            client,
        };
        self.schedule(origin + self.sp.net.0, c, n, self.first_prev);
    }
}

impl Population {
    /// Tick `k` settles at its end: its attempts are served or refused (or fail in the outage
    /// window), and each cohort's failures go on by the policy.
    fn settle(&mut self, k: u64) {
        let w = self.width;
        let net = self.sp.net.0;
        self.tick_end = ((k + 1) * w).saturating_sub(net + 1);
        // The outage and the flaky server hear the answers that come in the tick among its
        // own events; the rest hear them first.
        let own_order = self.queue.is_none() && (self.in_outage(k * w) || self.service.is_some());
        self.late.open(k);
        if !own_order {
            self.hear_late();
        }
        let mut list = self.take(k);
        // The outage and the flaky server answer each attempt as it arrives: each cohort is
        // sent (and a breaker asked) after the answers to the ones before it.
        if self.queue.is_some() {
            return self.queued(k, list);
        }
        if self.in_outage(k * w) {
            return self.outage(k, list);
        }
        if self.service.is_some() {
            return self.flaky(k, list);
        }
        self.send_through(&mut list);
        let n: u64 = list.iter().map(|c| c.n).sum();
        if n == 0 {
            return;
        }
        let settle = (k + 1) * w;
        let served = self.server.serve(k, n);
        self.rec.served_n(Micros(settle), served);
        let reply = settle + net;
        self.send_before(k + 1, reply);
        // First come, first served: by arrival; among attempts that arrive together, in the
        // order they were scheduled (the per-request engine's order: a tick's failures are
        // answered, and sent again, in the order they arrived).
        let mut to_serve = served;
        let clock = self.clock();
        for c in list {
            let ok = c.n.min(to_serve);
            to_serve -= ok;
            // Served or not, an attempt cut short to fit the deadline times out before the
            // tick's answer (the tick server's orphan).
            let (t, outcome) = clock.answer(&c, reply, Outcome::Ok);
            if outcome == Outcome::ReadTimeout {
                self.fail(t, c, c.n, outcome);
                self.breaker_record(t, 0, c.n);
                continue;
            }
            self.end(reply, c, StopReason::Success, ok);
            self.fail(reply, c, c.n - ok, Outcome::Status(503));
            self.breaker_record(reply, ok, c.n - ok);
        }
    }

    /// Sends and answers the cohorts of `list`, the tick's (answered at `when`), with the
    /// retries that arrive again within the tick and the answers of earlier ticks' attempts
    /// that come in it, as events in time order: a cohort's send (where a breaker is asked) and
    /// its answer (where a budget and the breaker hear) each at its own time, so that the
    /// breaker knows at each send the answers that came before it. At the same moment a send
    /// goes first; cohorts at the same moment go as scheduled.
    fn in_time_order(
        &mut self,
        list: Vec<Cohort>,
        when: impl Fn(&Cohort) -> u64,
        mut answer: impl FnMut(&mut Self, Cohort),
    ) {
        use alloc::collections::BinaryHeap;
        use core::cmp::Reverse;
        let clock = self.clock();
        let send_at = |c: &Cohort| clock.sent(c);
        // (time, 0 send or 1 answer, order scheduled, index in `slots`), earliest first.
        let mut pending: BinaryHeap<Reverse<TimeOrder>> = BinaryHeap::new();
        let mut slots: Vec<Cohort> = Vec::with_capacity(list.len());
        for c in list {
            pending.push(Reverse((send_at(&c), 0, (c.sched, c.seq), slots.len())));
            slots.push(c);
        }
        loop {
            // Retries that arrive again within the tick, and sends handed a limiter's token.
            for c in self.now.drain(..) {
                pending.push(Reverse((send_at(&c), 0, (c.sched, c.seq), slots.len())));
                slots.push(c);
            }
            let next = pending.peek().map_or(u64::MAX, |Reverse(e)| e.0);
            // The limiter's next moment in the tick: a token due, or an answer to hear.
            let tokens = if self.lines.is_empty() {
                u64::MAX
            } else {
                self.limiter_due(self.tick_end).unwrap_or(u64::MAX)
            };
            match self.late_due() {
                Some(t) if t < next && t <= tokens => self.hear_first_late(),
                _ if tokens < next && self.limiter_step(self.tick_end) => {}
                _ => {
                    let Some(Reverse((_, phase, seq, i))) = pending.pop() else {
                        return;
                    };
                    if phase == 0 {
                        let c = &mut slots[i];
                        let mut sent = *c;
                        self.send_one(&mut sent);
                        *c = sent;
                        // Without a breaker nothing between a send and its answer depends on
                        // their order: the cohort is answered at once.
                        if sent.n > 0 && self.breaker.is_some() {
                            pending.push(Reverse((when(&sent), 1, seq, i)));
                        }
                        if sent.n == 0 || self.breaker.is_some() {
                            continue;
                        }
                    }
                    answer(self, slots[i]);
                }
            }
        }
    }

    /// Sends the attempts of `list`: originals at their start, retries a hop before they
    /// arrive. A circuit breaker refuses those it does not let through (they end, as the
    /// per-request engine ends them, at their send); the rest are recorded as sent.
    fn send_through(&mut self, list: &mut Vec<Cohort>) {
        for c in list.iter_mut() {
            self.send_one(c);
        }
        list.retain(|c| c.n > 0);
        if !self.lines.is_empty() {
            // The sends that waited for a token due in the tick.
            for li in 0..self.lines.len() {
                self.limiter_to(li, self.tick_end);
            }
            let mut released = core::mem::take(&mut self.now);
            for c in released.iter_mut() {
                self.send_one(c);
            }
            list.append(&mut released);
            list.sort_unstable_by_key(|c| (c.at, c.sched, c.seq));
        }
    }

    /// With a breaker, sends the attempts of tick `k` (the next) sent before `t`, when the
    /// answers of the tick being settled arrive: a breaker asked at their send has not heard
    /// those answers yet.
    fn send_before(&mut self, k: u64, t: u64) {
        if self.breaker.is_none() || k != self.base {
            return;
        }
        let mut early = Vec::new();
        self.originals_in(k, &mut early);
        if self.arriving.is_empty() {
            self.arriving.push_back(Vec::new());
        }
        let mut list = core::mem::take(&mut self.arriving[0]);
        list.append(&mut early);
        let net = self.sp.net.0;
        list.sort_unstable_by_key(|c| (c.at, c.sched, c.seq));
        for c in list.iter_mut().filter(|c| c.at.saturating_sub(net) < t) {
            self.send_one(c);
        }
        self.arriving[0] = list;
    }

    /// [`Population::send_through`] for one cohort (left with the attempts that went), once.
    fn send_one(&mut self, c: &mut Cohort) {
        if c.sent {
            return;
        }
        let send = self.clock().sent(c);
        if !c.limited && !self.lines.is_empty() {
            // The rest wait in line for the limiter's tokens.
            c.n = self.take_tokens(send, c);
        }
        c.sent = true;
        if let Some(b) = self.breaker.as_mut() {
            let go = b.allow_many(Micros(send), c.n);
            let code = b.state(Micros(send)).code();
            self.rec.breaker(Micros(send), code);
            let refused = c.n - go;
            c.n = go;
            self.end(send, *c, StopReason::BreakerOpen, refused);
        }
        let retries = if c.attempt > 1 { c.n } else { 0 };
        self.rec.attempts_n(Micros(send), c.n, retries);
        if c.attempt == 2 {
            self.rec.retries_began(Micros(send), c.n);
        }
    }

    /// Gives the circuit breaker, if any, `ok` successes then `failed` failures answered at `t`.
    fn breaker_record(&mut self, t: u64, ok: u64, failed: u64) {
        if let Some(b) = self.breaker.as_mut() {
            b.record_many(Micros(t), true, ok);
            b.record_many(Micros(t), false, failed);
        }
    }

    /// The policy's timing, as [`Clock`] reads it.
    fn clock(&self) -> Clock {
        let p = self.policy.policy();
        Clock {
            net: self.sp.net.0,
            timeout: p.attempt_timeout.0,
            deadline: p.deadline.map(|d| d.0.saturating_sub(p.reserve.0)),
        }
    }

    fn in_outage(&self, t: u64) -> bool {
        let start = self.sp.outage_start.0;
        self.kind == ScenarioKind::Outage
            && t >= start
            && t < start.saturating_add(self.sp.outage.0)
    }

    /// Whether the policy retries a failure with `outcome`: the population engine's failures
    /// are a 503, a connect timeout in the outage, or a read timeout.
    fn retried(&self, outcome: Outcome) -> bool {
        match outcome {
            Outcome::ConnectTimeout => self.retry_connect,
            Outcome::ReadTimeout => self.retry_read,
            Outcome::Ok | Outcome::Refused | Outcome::Status(_) | Outcome::KeyInFlight => {
                self.retry_503
            }
        }
    }

    /// The longest wait that fits in `remaining` µs (`FitCheck`): under fit=full the wait, the
    /// next attempt and the reserve within it; under fit=cut the wait and the reserve strictly
    /// within it (the next attempt is cut short, `Population::give_up`). A hedge is cut short
    /// at the deadline, as `fit=cut` cuts a retry.
    fn longest_wait(&self, remaining: u64) -> Option<u64> {
        let p = self.policy.policy();
        let fit = if self.hedge_max.is_some() {
            FitRule::Cut
        } else {
            p.fit
        };
        match fit {
            FitRule::Full => remaining.checked_sub(p.attempt_timeout.0 + p.reserve.0),
            FitRule::Cut => Some(remaining - p.reserve.0 - 1),
        }
    }

    /// `f` requests of `c` failed with `outcome`, answered at `t`: they stop by the policy's
    /// rules, or wait and try again.
    fn fail(&mut self, t: u64, c: Cohort, f: u64, outcome: Outcome) {
        if f == 0 {
            return;
        }
        let throttled = matches!(outcome, Outcome::Status(429 | 503));
        let (ok, throttles) = if throttled { (0, f) } else { (f, 0) };
        self.limiter_hears(t, c.client, ok, throttles);
        self.deciding = t;
        let timeout = outcome.is_timeout();
        let retryable = self.retried(outcome);
        let p = *self.policy.policy();
        // Every failure reaches the budget first; gRPC throttling's tokens move with them.
        let b = self.budget_of(c.client);
        let first = self.budgets[b].on_failures(Micros(t), retryable, f);
        if first.is_some() {
            self.record_budget(t, b);
        }
        if !retryable {
            return self.stop(t, c, StopReason::NotRetryable, f);
        }
        if c.attempt >= self.hedge_max.unwrap_or(p.max_attempts) {
            return self.stop(t, c, StopReason::AttemptsUsedUp, f);
        }
        let remaining = p.deadline.map(|d| (c.origin + d.0).saturating_sub(t));
        if remaining.is_some_and(|r| r <= p.reserve.0) {
            return self.stop(t, c, StopReason::DeadlinePassed, f);
        }
        let limit = remaining.map(|r| self.longest_wait(r));
        if self.v2 {
            let server = if timeout { None } else { self.server_wait };
            return self.spread_v2(t, c, f, limit, server);
        }
        let i = c.attempt as usize - 1;
        let range = if self.decorrelated {
            let b = self.policy.backoff();
            b.decorrelated_range(i as u32, c.prev).map(Some)
        } else if timeout {
            self.ranges.get(i).copied().map(Some)
        } else {
            self.ranges_503.get(i).copied()
        };
        let Some(range) = range else {
            return self.stop(t, c, StopReason::AttemptsUsedUp, f);
        };
        let cost = if timeout && self.hedge_max.is_none() {
            RetryCost::Timeout
        } else {
            RetryCost::Normal
        };
        // Each retry carries what it withdraws, for the AWS quota's refund on its success.
        let c = Cohort {
            // At most 14 tokens (the AWS quota's dearest retry): within 32 bits.
            taken: u32::try_from(self.budgets[b].check(Micros(t), cost).cost_milli)
                .unwrap_or(u32::MAX),
            ..c
        };
        // Envoy's limit: a retry let go with no wait is in flight for the next to ask.
        let zero = range.and_then(|r| r.fixed()) == Some(Micros::ZERO) && limit != Some(None);
        let gate = self.gate(t, (c, f), first, zero, cost);
        let Some(range) = range else {
            // The client gives up on the server's wait, once the budget has let it ask.
            let asked = gate.allow.min(f);
            self.end(t, c, StopReason::BudgetEmpty, f - asked);
            return self.end(t, c, StopReason::NotRetryable, asked);
        };
        let sent = match limit {
            Some(None) => self.none_fit(t, c, f, gate),
            Some(Some(l)) => self.spread(t, c, f, range, Some(l), (gate, None)),
            None => self.spread(t, c, f, range, None, (gate, None)),
        };
        self.budgets[b].withdraw_many(Micros(t), cost, sent);
        self.record_budget(t, b);
    }
}

/// Each retry's waits after a timeout, and whether a 503 is retried with each retry's waits
/// after it.
type Ranges = (Vec<WaitRange>, (bool, Vec<Option<WaitRange>>));

/// The [`Ranges`] of the link's backoff (`ranges_503`); a hedge goes at once after a failure
/// (`hedge_max` attempts in all), its delay never passing unanswered.
fn wait_ranges(p: &RunInput, policy: &ValidPolicy, hedge_max: Option<u32>) -> Ranges {
    match hedge_max {
        Some(max) => {
            let now = alloc::vec![WaitRange::new(0, 0, 0); max as usize - 1];
            let retried = ranges_503(p, policy).is_ok_and(|r| r.0);
            (now.clone(), (retried, now.into_iter().map(Some).collect()))
        }
        None => (
            (0..policy.policy().max_attempts.saturating_sub(1))
                .filter_map(|r| policy.backoff().wait_range(r))
                .collect(),
            ranges_503(p, policy).unwrap_or_default(),
        ),
    }
}

/// Whether `policy` retries a connect timeout, and a read timeout.
fn timeouts_retried(policy: &ValidPolicy) -> (bool, bool) {
    let pol = policy.policy();
    let retryable = |o: Outcome| {
        classify_listed(
            pol.classifier,
            &pol.statuses,
            &ScriptedOutcome::new(o),
            pol.operation,
        )
        .retryable
    };
    (
        retryable(Outcome::ConnectTimeout),
        retryable(Outcome::ReadTimeout),
    )
}

/// The evenly spaced originals of a run (steady, the spike's): a burst sends every client, the
/// spike's too, at 0 (as the per-request engine does); Poisson arrivals are drawn instead.
fn streams(kind: ScenarioKind, sp: &StormCfg, planned: u64) -> (Even, Even) {
    if sp.users > 0 && kind != ScenarioKind::Burst {
        // The users' first requests, spread over one think time; each later one follows its
        // user's last (`Population::end`).
        let users = Even::spread(0, sp.think.0, u64::from(sp.users));
        return (users, spike_of(sp));
    }
    match kind {
        ScenarioKind::Burst => (Even::new(0, 0, planned), Even::new(0, 0, 0)),
        ScenarioKind::Outage | ScenarioKind::Occ | ScenarioKind::Layers | ScenarioKind::Lost
            if sp.poisson =>
        {
            (Even::new(0, 0, 0), spike_of(sp))
        }
        ScenarioKind::Outage | ScenarioKind::Occ | ScenarioKind::Layers | ScenarioKind::Lost => (
            Even::new(0, sp.rate_milli.max(1), planned - spike_of(sp).count()),
            spike_of(sp),
        ),
    }
}

impl Population {
    /// The next tick anything arrives in, if any.
    fn next_tick(&self, after: u64) -> Option<u64> {
        let scheduled = self
            .arriving
            .iter()
            .position(|l| !l.is_empty())
            .map(|i| self.base + i as u64);
        let originals = self.originals_tick(after + 1);
        let server = self
            .queue
            .as_ref()
            .and_then(|q| q.next_bin(after + 1, self.width))
            .unwrap_or(u64::MAX);
        let late = self.late_tick().map_or(u64::MAX, |l| l.max(after + 1));
        let net = self.sp.net.0;
        let tokens = self
            .lines
            .iter()
            .filter_map(limiter::TokenLine::next_move)
            .min();
        let late = tokens.map_or(late, |t| late.min(((t + net) / self.width).max(after + 1)));
        let next = scheduled
            .map_or(originals, |s| s.min(originals))
            .min(server)
            .min(late);
        (next != u64::MAX).then_some(next)
    }
}

impl Model for Population {
    type Event = u64;

    fn handle(&mut self, _now: Micros, k: u64, q: &mut EventQueue<u64>) {
        // No tick at all: nothing arrives, ever (`originals_tick`'s none).
        if k == u64::MAX {
            return;
        }
        // Ticks before `k` had nothing: the schedule starts at `k`.
        if self.base < k {
            let skip = usize::try_from(k - self.base).map_or(usize::MAX, |n| n);
            let skipped = self.arriving.drain(..skip.min(self.arriving.len()));
            debug_assert!(
                skipped.into_iter().all(|l| l.is_empty()),
                "a tick with arrivals was skipped"
            );
            self.base = k;
        }
        self.settle(k);
        if let Some(next) = self.next_tick(k) {
            q.push(Micros((next + 1).saturating_mul(self.width)), next);
        }
    }

    fn progress(&self, _now: Micros) -> f64 {
        let all = self.planned.max(1) as f64;
        ((self.made as f64 + self.done as f64) / (2.0 * all)).min(0.999)
    }

    fn finish(self, at: Option<Micros>) -> Report {
        let mut rep = self.sp.report(self.kind, self.rec, at);
        let max_attempts = self.policy.policy().max_attempts;
        let queueing = self.queue.is_some();
        let flaky = (!queueing).then_some(max_attempts);
        rep.summary.server = self
            .service
            .as_ref()
            .map(|w| w.summary(queueing, rep.summary.successes, flaky));
        rep.summary.limiter = limiter::summary(&self.lines);
        rep.summary.hedge = self.hedge_max.map(|_| crate::sim::HedgeSummary {
            sent: self.hedges,
            extra_load: self.hedges as f64 / rep.summary.originals.max(1) as f64,
            won: self.hedge_won,
            cancelled: 0,
            wasted: 0,
        });
        rep.summary.population = Some(crate::sim::PopulationSummary {
            tick_ms: Micros(self.width).as_millis_f64(),
        });
        rep
    }
}
