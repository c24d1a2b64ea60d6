//! The answers of the outage and the flaky server, each heard at its own time: an answer that
//! comes after the tick being settled (a connect timeout at the attempt's timeout, the flaky
//! server's work that ends later) waits for the tick it comes in, so a retry budget and a
//! circuit breaker hear it after the successes that came before it, as the per-request engine
//! has them.

use super::queue::{service_cdf, TAIL_MEANS};
use super::{Cohort, Population, SLOTS};
use crate::retry::outcome::Outcome;
use crate::retry::policy::StopReason;
use crate::retry::time::Micros;
use crate::sim::params::OutageKind;
use crate::sim::params::ServiceDist;
use crate::sim::split;
use alloc::collections::{BTreeMap, VecDeque};
use alloc::vec::Vec;

/// The fewest attempts of a cohort the flaky server's exponential or lognormal service is
/// spread over as counts; fewer each draw their own, as the per-request engine does.
const SERVICE_PARTS_FROM: u64 = 32;

/// What an answer tells a cohort.
#[derive(Clone, Copy, Debug)]
pub(super) enum Heard {
    /// Every attempt failed with this outcome.
    Failed(Outcome),
    /// The flaky server did the work: each attempt failed on its own.
    Served,
}

/// An answer kept for the tick it comes in: at `t`, in the order it was kept (`seq`).
#[derive(Clone, Copy, Debug)]
struct Late {
    t: u64,
    seq: u64,
    c: Cohort,
    what: Heard,
}

/// How many ticks ahead an answer is kept in a list of its tick (`near`); one later still (a
/// connect timeout of a day) is kept in `far`, one entry per tick.
const NEAR: u64 = 1024;

/// The answers kept for later ticks, by the tick that hears them, and the tick being settled's,
/// latest first (`due`). Most are heard a tick or two after they are kept: they go in a list
/// per tick from `base`, each tick's few sorted once rather than kept in a heap.
#[derive(Debug, Default)]
pub(super) struct LateAnswers {
    base: u64,
    near: VecDeque<Vec<Late>>,
    far: BTreeMap<u64, Vec<Late>>,
    due: Vec<Late>,
}

impl LateAnswers {
    fn keep(&mut self, tick: u64, l: Late) {
        let i = tick.saturating_sub(self.base);
        if i >= NEAR {
            return self.far.entry(tick).or_default().push(l);
        }
        let i = i as usize;
        if self.near.len() <= i {
            self.near.resize_with(i + 1, Vec::new);
        }
        self.near[i].push(l);
    }

    /// Makes the answers of tick `k` (and of any before it) due, earliest last.
    pub(super) fn open(&mut self, k: u64) {
        while self.base <= k {
            let Some(mut list) = self.near.pop_front() else {
                self.base = k + 1;
                break;
            };
            self.due.append(&mut list);
            self.base += 1;
        }
        while let Some(entry) = self.far.first_entry() {
            if *entry.key() > k {
                break;
            }
            self.due.append(&mut entry.remove());
        }
        self.due
            .sort_unstable_by_key(|l| core::cmp::Reverse((l.t, l.seq)));
    }

    /// The first later tick with an answer to hear, if any (a tick hears all of its own while
    /// it settles).
    fn first_tick(&self) -> Option<u64> {
        let near = self.near.iter().position(|l| !l.is_empty());
        let near = near.map(|i| self.base + i as u64);
        let far = self.far.first_key_value().map(|(&k, _)| k);
        match (near, far) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

impl Population {
    /// The latest answer the tick being settled hears: its own answers, a hop after its end.
    fn horizon(&self, k: u64) -> u64 {
        (k + 1)
            .saturating_mul(self.width)
            .saturating_add(self.sp.net.0)
    }

    /// The tick whose settling hears an answer at `t`: the first whose horizon reaches it.
    fn hearing_tick(&self, t: u64) -> u64 {
        t.saturating_sub(self.sp.net.0)
            .div_ceil(self.width)
            .saturating_sub(1)
    }

    /// The tick the earliest answer still to come is heard in, if any.
    pub(super) fn late_tick(&self) -> Option<u64> {
        self.late.first_tick()
    }

    /// `c`'s answer at `t`: heard now when it comes by the end of the tick being settled
    /// (`k`), else kept for the tick it comes in.
    fn hear(&mut self, k: u64, t: u64, c: Cohort, what: Heard) {
        if t <= self.horizon(k) {
            return self.heard(t, c, what);
        }
        self.seq += 1;
        let seq = self.seq;
        let tick = self.hearing_tick(t);
        self.late.keep(tick, Late { t, seq, c, what });
    }

    /// The time of the earliest answer kept for the tick being settled, if any is.
    pub(super) fn late_due(&self) -> Option<u64> {
        self.late.due.last().map(|l| l.t)
    }

    /// Hears the earliest answer kept.
    pub(super) fn hear_first_late(&mut self) {
        if let Some(Late { t, c, what, .. }) = self.late.due.pop() {
            self.heard(t, c, what);
        }
    }

    /// Hears the answers kept for the tick being settled, earliest first, before its arrivals
    /// are taken (a retry sent again at once may arrive in it).
    pub(super) fn hear_late(&mut self) {
        while self.late_due().is_some() {
            self.hear_first_late();
        }
    }

    fn heard(&mut self, t: u64, c: Cohort, what: Heard) {
        match what {
            Heard::Failed(outcome) => {
                self.fail(t, c, c.n, outcome);
                self.breaker_record(t, 0, c.n);
            }
            Heard::Served => {
                let fail_ppm = self.service.as_ref().map_or(0, |w| w.cfg.fail_ppm);
                let failed = split::binomial(&mut self.rng, c.n, f64::from(fail_ppm) / 1e6);
                self.end(t, c, StopReason::Success, c.n - failed);
                self.fail(t, c, failed, Outcome::Status(503));
                self.breaker_record(t, c.n - failed, failed);
            }
        }
    }

    /// The flaky server, tick `k`: each attempt is served for its service time as it arrives
    /// (its cohort split over the service's distribution, [`Population::services`]) and fails
    /// with probability `fail` on its own (a binomial split), answered a hop after.
    pub(super) fn flaky(&mut self, k: u64, list: Vec<Cohort>) {
        let Some(w) = self.service.as_ref() else {
            return;
        };
        // A breaker hears a cohort at its first answer (all of them, for a constant service).
        let first = match w.cfg.dist {
            ServiceDist::Const => w.cfg.service.0,
            ServiceDist::Exp | ServiceDist::Lognormal | ServiceDist::Mix => 0,
        };
        let (net, clock) = (self.sp.net.0, self.clock());
        self.in_time_order(
            list,
            move |c| clock.answer(c, c.at + first + net, Outcome::Ok).0,
            move |m, c| {
                for (service, n) in m.services(&c) {
                    m.flaky_done(k, Cohort { n, ..c }, service);
                }
            },
        );
    }

    /// `c`'s attempts done at the flaky server `service` µs after they arrive.
    fn flaky_done(&mut self, k: u64, c: Cohort, service: u64) {
        let done = c.at + service;
        self.rec.served_n(Micros(done), c.n);
        let (t, outcome) = self.clock().answer(&c, done + self.sp.net.0, Outcome::Ok);
        let late = outcome == Outcome::ReadTimeout;
        if let Some(w) = self.service.as_mut() {
            let st = &mut w.stats;
            st.arrived += c.n;
            st.completed += c.n;
            st.wasted += if late { c.n } else { 0 };
            st.sojourn_us += u128::from(c.n) * u128::from(service);
            st.area += u128::from(c.n) * u128::from(service);
            st.last = st.last.max(Micros(done));
        }
        if late {
            // Its client gave up before the answer: the work is wasted.
            self.rec.wasted_n(Micros(done), c.n);
            return self.hear(k, t, c, Heard::Failed(outcome));
        }
        self.hear(k, t, c, Heard::Served);
    }

    /// How long `c`'s attempts work at the flaky server, as (µs, how many): the per-request
    /// engine's own draw for each where the cohort is small; else spread (a multinomial) over
    /// the service's distribution, each part at its middle: eighths of a tick up to the service
    /// past which the answer comes after the client's give-up, then 16 parts to 30 means, the
    /// tail past them in the last. A constant service is one part, the mix's tail a binomial.
    fn services(&mut self, c: &Cohort) -> Vec<(u64, u64)> {
        let give_up = self.clock().give_up(c);
        let (width, net) = (self.width, self.sp.net.0);
        let Some(w) = self.service.as_mut() else {
            return Vec::new();
        };
        let (cfg, now) = (w.cfg, Micros(c.at));
        let mean = w.scaled_at(now, cfg.service.0);
        match cfg.dist {
            ServiceDist::Const => return alloc::vec![(libm::round(mean) as u64, c.n)],
            ServiceDist::Mix => {
                let tail = split::binomial(&mut self.rng, c.n, f64::from(cfg.tail_ppm) / 1e6);
                let long = libm::round(w.scaled_at(now, cfg.tail.0)) as u64;
                return alloc::vec![(libm::round(mean) as u64, c.n - tail), (long, tail)];
            }
            ServiceDist::Exp | ServiceDist::Lognormal if c.n < SERVICE_PARTS_FROM => {
                return (0..c.n).map(|_| (w.service_time(now).0, 1)).collect();
            }
            ServiceDist::Exp | ServiceDist::Lognormal => {}
        }
        // Eighths of a tick (at most 1,024 parts) up to the give-up's edge or 30 means; past
        // the edge, whose attempts all time out, 16 parts to 30 means.
        let top = TAIL_MEANS * mean;
        let limit = (give_up.saturating_sub(c.at + net) as f64).min(top);
        let fine = limit.max(top / 16.0);
        let parts = libm::ceil(fine * SLOTS as f64 / width as f64).clamp(2.0, 1024.0);
        let mut edges: Vec<f64> = (0..=parts as usize)
            .map(|i| i as f64 * fine / parts)
            .collect();
        if fine < top {
            let coarse = (top - fine) / 16.0;
            edges.extend((1..=16).map(|i| fine + f64::from(i) * coarse));
        }
        if limit > 0.0 && limit < fine {
            // A give-up sooner than a sixteenth of the spread: its own edge.
            let i = edges.partition_point(|&e| e < limit);
            edges.insert(i, limit);
        }
        let cdf = |x: f64| service_cdf(&cfg, mean, x);
        let mut weights: Vec<f64> = edges.windows(2).map(|p| cdf(p[1]) - cdf(p[0])).collect();
        if let Some(last) = weights.last_mut() {
            *last += 1.0 - cdf(top);
        }
        let mut out = Vec::new();
        split::multinomial(&mut self.rng, c.n, &weights, |i, n| {
            out.push((libm::round((edges[i] + edges[i + 1]) / 2.0) as u64, n));
        });
        out
    }

    /// Tick `k` in the outage window: every attempt fails, a hop after it arrives (a 503) or at
    /// its timeout (a connect timeout); a retry that arrives again within the tick fails too.
    pub(super) fn outage(&mut self, k: u64, list: Vec<Cohort>) {
        let clock = self.clock();
        let kind = self.sp.outage_kind;
        // A connect timeout comes at the give-up (the attempt's timeout, or the deadline's
        // cut); a 503 a hop after the attempt arrives, unless its client gave up before.
        let answered = move |c: &Cohort| match kind {
            OutageKind::Status503 => clock.answer(c, c.at + clock.net, Outcome::Status(503)),
            OutageKind::ConnectTimeout => (clock.give_up(c), Outcome::ConnectTimeout),
        };
        self.in_time_order(
            list,
            move |c| answered(c).0,
            move |m, c| {
                let (t, outcome) = answered(&c);
                m.hear(k, t, c, Heard::Failed(outcome));
            },
        );
    }
}
