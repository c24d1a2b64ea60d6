//! The answers of the outage and the flaky server, each heard at its own time: an answer that
//! comes after the tick being settled (a connect timeout at the attempt's timeout, the flaky
//! server's work that ends later) waits for the tick it comes in, so a retry budget and a
//! circuit breaker hear it after the successes that came before it, as the per-request engine
//! has them.

use super::{Cohort, Population};
use crate::retry::outcome::Outcome;
use crate::retry::policy::StopReason;
use crate::retry::time::Micros;
use crate::sim::params::OutageKind;
use crate::sim::split;
use alloc::collections::VecDeque;
use alloc::vec::Vec;

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

/// The answers kept for later ticks, by the tick that hears them (from `base`), and the tick
/// being settled's, latest first (`due`). Most are heard a tick or two after they are kept, so
/// each tick's few are sorted once rather than kept in a heap.
#[derive(Debug, Default)]
pub(super) struct LateAnswers {
    base: u64,
    ticks: VecDeque<Vec<Late>>,
    due: Vec<Late>,
}

impl LateAnswers {
    fn keep(&mut self, tick: u64, l: Late) {
        let i = usize::try_from(tick.saturating_sub(self.base)).unwrap_or(usize::MAX);
        if self.ticks.len() <= i {
            self.ticks.resize_with(i + 1, Vec::new);
        }
        self.ticks[i].push(l);
    }

    /// Makes the answers of tick `k` (and of any before it) due, earliest last.
    pub(super) fn open(&mut self, k: u64) {
        while self.base <= k {
            let Some(mut list) = self.ticks.pop_front() else {
                self.base = k + 1;
                break;
            };
            self.due.append(&mut list);
            self.base += 1;
        }
        self.due
            .sort_unstable_by_key(|l| core::cmp::Reverse((l.t, l.seq)));
    }

    /// The first tick with an answer to hear, if any.
    fn first_tick(&self) -> Option<u64> {
        if !self.due.is_empty() {
            return Some(self.base.saturating_sub(1));
        }
        let i = self.ticks.iter().position(|l| !l.is_empty())?;
        Some(self.base + i as u64)
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
    /// and fails with probability `fail` on its own (a binomial split of each cohort), answered
    /// a hop after.
    pub(super) fn flaky(&mut self, k: u64, list: Vec<Cohort>) {
        let Some(service) = self.service.as_ref().map(|w| w.cfg.service.0) else {
            return;
        };
        let net = self.sp.net.0;
        let clock = self.clock();
        self.in_time_order(
            list,
            move |c| clock.answer(c, c.at + service + net, Outcome::Ok).0,
            move |m, c| {
                let done = c.at + service;
                m.rec.served_n(Micros(done), c.n);
                if let Some(w) = m.service.as_mut() {
                    let st = &mut w.stats;
                    st.completed += c.n;
                    st.sojourn_us += u128::from(c.n) * u128::from(service);
                    st.area += u128::from(c.n) * u128::from(service);
                    st.last = st.last.max(Micros(done));
                }
                let (t, outcome) = clock.answer(&c, done + net, Outcome::Ok);
                if outcome == Outcome::ReadTimeout {
                    // Its client gave up before the answer: the work is wasted.
                    m.rec.wasted_n(Micros(done), c.n);
                    return m.hear(k, t, c, Heard::Failed(outcome));
                }
                m.hear(k, t, c, Heard::Served);
            },
        );
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
