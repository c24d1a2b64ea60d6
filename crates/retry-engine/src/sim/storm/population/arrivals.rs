//! Originals sent evenly spaced: a storm's steady arrivals (or a burst's clients, all at once)
//! and a load spike's, each spaced as the per-request engine spaces them; Poisson arrivals
//! drawn as counts; and each tick's originals made into cohorts, split over the clients where
//! each keeps a limiter or a budget of its own.

use super::{Cohort, Population, ORIGIN_GROUPS};
use crate::retry::time::Micros;
use crate::sim::split;
use alloc::vec::Vec;

/// One stream of originals: the `i`-th is sent at `start + i / rate`, in whole µs (or, spread
/// over a span, at `start + span x i / count`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Even {
    start: u64,
    /// Requests a second, in thousandths; 0 sends every one at `start` (a burst).
    rate_milli: u64,
    /// Closed-loop users' first requests: spread over this span (one think time) instead.
    span: Option<u64>,
    count: u64,
    /// Sent so far (landed at the server in a tick already settled).
    pub(super) made: u64,
    /// Sent so far whose deposits the budget has.
    pub(super) deposited: u64,
}

impl Even {
    /// `count` originals from `start`, `rate_milli` a thousand seconds (0: all at `start`).
    pub(super) const fn new(start: u64, rate_milli: u64, count: u64) -> Even {
        Even {
            start,
            rate_milli,
            span: None,
            count,
            made: 0,
            deposited: 0,
        }
    }

    /// `count` originals spread over `span` from `start`, as closed-loop users start: the
    /// `i`-th at `start + span x i / count`.
    pub(super) const fn spread(start: u64, span: u64, count: u64) -> Even {
        Even {
            span: Some(span),
            ..Even::new(start, 0, count)
        }
    }

    /// How many the stream sends.
    pub(super) const fn count(&self) -> u64 {
        self.count
    }

    /// When the `i`-th is sent.
    pub(super) fn send_time(&self, i: u64) -> u64 {
        if let Some(span) = self.span {
            let at = u128::from(span) * u128::from(i) / u128::from(self.count.max(1));
            return self.start.saturating_add(at as u64);
        }
        if self.rate_milli == 0 {
            return self.start;
        }
        let gap = u128::from(i) * 1_000_000_000 / u128::from(self.rate_milli);
        self.start.saturating_add(gap as u64)
    }

    /// How many are sent before `t`.
    pub(super) fn sent_before(&self, t: u64) -> u64 {
        if t <= self.start {
            return 0;
        }
        if let Some(span) = self.span {
            // span x i / count < t - start exactly when span x i < (t - start) x count.
            if span == 0 {
                return self.count;
            }
            let d = u128::from(t - self.start) * u128::from(self.count);
            return d.div_ceil(u128::from(span)).min(u128::from(self.count)) as u64;
        }
        if self.rate_milli == 0 {
            return self.count;
        }
        // The i-th is sent before t when i x 1e9 / rate < t - start.
        let n = (u128::from(t - self.start) * u128::from(self.rate_milli)).div_ceil(1_000_000_000);
        n.min(u128::from(self.count)) as u64
    }

    /// When the next one not yet made is sent, if any is left.
    pub(super) fn next_send(&self) -> Option<u64> {
        (self.made < self.count).then(|| self.send_time(self.made))
    }

    /// When the next one whose deposit the budget lacks is sent, if it is sent before `t`.
    pub(super) fn next_deposit(&self, t: u64) -> Option<u64> {
        (self.deposited < self.sent_before(t)).then(|| self.send_time(self.deposited))
    }
}

impl Population {
    /// The first tick at or after `from` that any original arrives in (`u64::MAX` when all
    /// have arrived).
    pub(super) fn originals_tick(&self, from: u64) -> u64 {
        let mut next = [self.steady.next_send(), self.spike.next_send()]
            .into_iter()
            .flatten()
            .min();
        // Poisson arrivals may come in any tick until the arrivals end.
        if self.sp.poisson && self.poisson_to < self.sp.duration.0 {
            next = Some(next.map_or(self.poisson_to, |n| n.min(self.poisson_to)));
        }
        next.map_or(u64::MAX, |t| {
            from.max(t.saturating_add(self.sp.net.0) / self.width)
        })
    }

    /// The originals that arrive in tick `k`, recorded as sent: the Poisson arrivals, then
    /// each evenly spaced stream's.
    pub(super) fn originals_in(&mut self, k: u64, list: &mut Vec<Cohort>) {
        if self.sp.poisson {
            self.poisson_in(k, list);
        }
        // Sent in [k x tick - net, (k + 1) x tick - net): those sent before the end.
        let end = ((k + 1).saturating_mul(self.width)).saturating_sub(self.sp.net.0);
        let users = self.sp.users > 0;
        let steady = self.even_in(self.steady, end, list, users);
        self.steady = steady;
        let spike = self.even_in(self.spike, end, list, false);
        self.spike = spike;
    }

    /// The originals of `stream` sent before `end` and not yet made, as up to
    /// [`ORIGIN_GROUPS`] cohorts of neighbouring starts (each at its mean start), recorded as
    /// sent; the stream with them made.
    fn even_in(&mut self, mut stream: Even, end: u64, list: &mut Vec<Cohort>, user: bool) -> Even {
        let net = self.sp.net.0;
        let (from, upto) = (stream.made, stream.sent_before(end));
        if upto <= from {
            return stream;
        }
        stream.made = upto;
        self.made += upto - from;
        let n = upto - from;
        let groups = n.min(ORIGIN_GROUPS);
        for g in 0..groups {
            let (a, b) = (from + n * g / groups, from + n * (g + 1) / groups);
            let origin = (stream.send_time(a) + stream.send_time(b - 1)) / 2;
            self.rec.originals_n(Micros(origin), b - a);
            self.seq += 1;
            let c = Cohort {
                attempt: 1,
                origin,
                at: origin + net,
                n: b - a,
                sched: if a == 0 { 0 } else { stream.send_time(a - 1) },
                seq: self.seq,
                sent: false,
                prev: self.first_prev,
                user,
                taken: 0,
                limited: false,
                client: 0,
            };
            // A user's client is its number's; every other request takes the next in turn.
            let first = if user { a } else { self.turn };
            self.turn += if user { 0 } else { b - a };
            self.by_client(c, first, list);
        }
        stream
    }

    /// Poisson arrivals sent in the part of `[k x tick - net, (k + 1) x tick - net)` not yet
    /// drawn, within the arrivals' window: the per-request engine's first at 0, then a Poisson
    /// count, spread evenly (a multinomial) over [`ORIGIN_GROUPS`] parts, each at its middle.
    fn poisson_in(&mut self, k: u64, list: &mut Vec<Cohort>) {
        let net = self.sp.net.0;
        let end = ((k + 1).saturating_mul(self.width)).saturating_sub(net);
        let (from, to) = (self.poisson_to, end.min(self.sp.duration.0));
        if to <= from {
            return;
        }
        self.poisson_to = to;
        if from == 0 {
            self.original_cohort(0, 1, list);
        }
        let rate_per_us = self.sp.rate_milli as f64 / 1e9;
        let n = split::poisson(&mut self.rng, rate_per_us * (to - from) as f64);
        let part = (to - from).div_ceil(ORIGIN_GROUPS);
        let weights = [1.0 / ORIGIN_GROUPS as f64; ORIGIN_GROUPS as usize];
        let mut counts = [0u64; ORIGIN_GROUPS as usize];
        split::multinomial(&mut self.rng, n, &weights, |i, c| counts[i] = c);
        for (i, c) in counts.into_iter().enumerate().filter(|(_, c)| *c > 0) {
            let origin = (from + part * i as u64 + part / 2).min(to - 1);
            self.original_cohort(origin, c, list);
        }
    }

    /// `n` originals sent at `origin`, recorded, as one cohort of `list`.
    fn original_cohort(&mut self, origin: u64, n: u64, list: &mut Vec<Cohort>) {
        self.made += n;
        if self.sp.poisson {
            self.originals_to(origin, self.turn, n);
        }
        self.rec.originals_n(Micros(origin), n);
        self.seq += 1;
        let c = Cohort {
            attempt: 1,
            origin,
            at: origin + self.sp.net.0,
            n,
            sched: origin,
            seq: self.seq,
            sent: false,
            prev: self.first_prev,
            user: false,
            taken: 0,
            limited: false,
            client: 0,
        };
        let first = self.turn;
        self.turn += n;
        self.by_client(c, first, list);
    }

    /// `c` onto `list`, split over the clients with a limiter each by turn from client `first`
    /// (as the per-request engine hands its requests to the clients in turn); whole where there
    /// is one limiter or none.
    fn by_client(&mut self, c: Cohort, first: u64, list: &mut Vec<Cohort>) {
        let k = self.split;
        if k <= 1 {
            return list.push(c);
        }
        let client = |t: u64| ((first + t) % k) as u32;
        if c.n < k {
            return list.extend((0..c.n).map(|t| Cohort {
                n: 1,
                client: client(t),
                ..c
            }));
        }
        let (each, more) = (c.n / k, c.n % k);
        list.extend((0..k).map(|t| Cohort {
            n: each + u64::from(t < more),
            client: client(t),
            ..c
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `sent_before` counts exactly the `send_time`s before each moment, at a rate that does
    /// not divide a second and from a late start.
    #[test]
    fn sent_before_counts_the_send_times() {
        for s in [
            Even::new(0, 3_000, 50),
            Even::new(7_000_000, 1_700_333, 200),
            Even::new(5, 0, 9),
            Even::spread(0, 1_000_000, 7),
            Even::spread(3, 333_333, 1000),
            Even::spread(0, 0, 5),
        ] {
            for t in (0..8_000_000).step_by(977) {
                let want = (0..s.count).filter(|&i| s.send_time(i) < t).count() as u64;
                assert_eq!(s.sent_before(t), want, "{s:?} at {t}");
            }
        }
    }
}
