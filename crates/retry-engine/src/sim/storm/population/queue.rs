//! The queue server on counts: `workers` serve at once, the rest wait (FIFO or LIFO) in a queue
//! of up to `queue_limit`, one more is refused with a 503 at once; a client whose attempt is
//! not answered within its timeout gives up on it (a read timeout) while the server still does
//! the work, wasted, unless `server_deadline=on` drops it unstarted.
//!
//! Attempts at the server are held as counts of *flights* (a cohort's attempts that arrived
//! together), waiting in arrival order, or in service by the bin their work ends in: a group
//! that starts is spread over the bins of its service time's distribution (a multinomial over
//! the distribution's mass in each bin, the exponential's, the lognormal's or the two values
//! of `mix`; a constant service ends exactly). Each bin of the server:
//!
//! 1. the attempts arriving in its first half take a free worker, wait, or are refused;
//! 2. at its middle, the work ending in it is done (answered a hop later, or wasted when the
//!    client gave up first), and the freed workers take the waiting attempts;
//! 3. the attempts arriving in its second half take a worker, wait, or are refused;
//! 4. the clients whose attempts' timeouts fall in it give up on what is still unanswered.
//!
//! What it approximates: work ends at its bin's middle (an exponential's or lognormal's), and
//! never in the bin it started in (it ends in the next); a freed worker starts the next
//! waiting attempt at that middle. The bin is at most a sixteenth of the mean service time
//! ([`bin_width`]), so each of these moves a time by at most that.

use super::{Cohort, Population};
use crate::retry::outcome::Outcome;
use crate::retry::policy::StopReason;
use crate::retry::rng::Words;
use crate::retry::time::Micros;
use crate::sim::params::{Discipline, ServiceDist};
use crate::sim::settings::QueueServer;
use crate::sim::split;
use crate::sim::storm::config::StormCfg;
use alloc::collections::{BinaryHeap, VecDeque};
use alloc::vec::Vec;
use core::cmp::Reverse;

/// The eighths of a bin a start is placed in, for its service time's spread.
const STARTS: u64 = 8;

/// The longest service spread, in means: the mass beyond it ends in the last bin (an
/// exponential's share there is e^-30).
pub(super) const TAIL_MEANS: f64 = 30.0;

/// The population engine's bin for the queue server: the largest of a few round widths at most
/// a sixteenth of the mean service time (at least 50 µs).
pub(in crate::sim) fn bin_width(q: &QueueServer) -> u64 {
    const WIDTHS: [u64; 13] = [
        100_000, 50_000, 20_000, 10_000, 5_000, 2_500, 2_000, 1_000, 500, 250, 200, 100, 50,
    ];
    let most = q.service.0 / 16;
    WIDTHS.into_iter().find(|&w| w <= most).unwrap_or(50)
}

/// A cohort's attempts at the server.
#[derive(Clone, Copy, Debug)]
struct Flight {
    c: Cohort,
    /// When the client gives up on them (µs).
    give_up: u64,
    /// Still awaited by the client (neither answered nor given up on).
    awaited: u64,
    /// Still at the server (waiting or in service).
    present: u64,
    /// Its use of its slot: a timeout naming an earlier use is stale.
    gen: u32,
}

/// Work that ends: `n` attempts of flight `id` at `at`.
#[derive(Clone, Copy, Debug)]
struct End {
    id: u32,
    n: u64,
    at: u64,
}

/// The queue server's counts.
pub(super) struct QueueCounts {
    cfg: QueueServer,
    busy: u64,
    /// Waiting: (flight, how many), in arrival order.
    waiting: VecDeque<(u32, u64)>,
    waiting_n: u64,
    /// Work ending in bin `ends_base + i`, at `ends[i]`.
    ends: VecDeque<Vec<End>>,
    ends_base: u64,
    flights: Vec<Flight>,
    free: Vec<u32>,
    /// (give up, flight, its use of the slot): the clients' timeouts, earliest first; those of
    /// flights answered in full are stale, and dropped when they outnumber the live ones.
    timeouts: BinaryHeap<Reverse<(u64, u32, u32)>>,
    /// The service's mass in each bin after a start in each eighth of a bin: `[plain, slowed]`.
    spread: [Vec<Vec<f64>>; 2],
}

impl QueueCounts {
    pub(super) fn new(sp: &StormCfg, width: u64) -> QueueCounts {
        let cfg = sp.queue;
        let slowed = |mean: f64| {
            (0..STARTS)
                .map(|e| spread_of(&cfg, mean, width, e))
                .collect::<Vec<_>>()
        };
        let mean = cfg.service.0 as f64;
        QueueCounts {
            cfg,
            busy: 0,
            waiting: VecDeque::new(),
            waiting_n: 0,
            ends: VecDeque::new(),
            ends_base: 0,
            flights: Vec::new(),
            free: Vec::new(),
            timeouts: BinaryHeap::new(),
            spread: [slowed(mean), slowed(mean * sp.slow_milli as f64 / 1000.0)],
        }
    }

    /// The attempts at the server now: waiting and in service.
    fn in_system(&self) -> u64 {
        self.busy + self.waiting_n
    }

    /// The first bin at or after `from` in which work ends or a client gives up.
    pub(super) fn next_bin(&self, from: u64, width: u64) -> Option<u64> {
        let ends = self
            .ends
            .iter()
            .position(|l| !l.is_empty())
            .map(|i| self.ends_base + i as u64);
        let timeout = self.timeouts.peek().map(|Reverse((t, _, _))| t / width);
        [ends, timeout]
            .into_iter()
            .flatten()
            .min()
            .map(|b| b.max(from))
    }

    fn add_flight(&mut self, mut f: Flight) -> u32 {
        match self.free.pop() {
            Some(i) => {
                f.gen = self.flights[i as usize].gen.wrapping_add(1);
                self.flights[i as usize] = f;
                i
            }
            None => {
                f.gen = 0;
                self.flights.push(f);
                self.flights.len() as u32 - 1
            }
        }
    }

    /// Frees flight `id` once nothing is left of it at the server or at its client (its
    /// timeout, if still to come, goes stale).
    fn settle_flight(&mut self, id: u32) {
        let f = self.flights[id as usize];
        if f.present == 0 && f.awaited == 0 {
            self.free.push(id);
            let live = self.flights.len() - self.free.len();
            if self.timeouts.len() > 2 * live + 1024 {
                let flights = &self.flights;
                self.timeouts.retain(|Reverse((_, i, g))| {
                    flights[*i as usize].gen == *g && flights[*i as usize].awaited > 0
                });
            }
        }
    }

    fn push_end(&mut self, bin: u64, e: End) {
        if e.n == 0 {
            return;
        }
        let i = (bin.max(self.ends_base) - self.ends_base) as usize;
        if self.ends.len() <= i {
            self.ends.resize_with(i + 1, Vec::new);
        }
        self.ends[i].push(e);
    }
}

/// The service's mass in each bin after a start at the middle of eighth `e` of bin 0, for a
/// service of `mean` µs (the bin it starts in given to the next).
fn spread_of(cfg: &QueueServer, mean: f64, width: u64, e: u64) -> Vec<f64> {
    let w = width as f64;
    let start = (e as f64 + 0.5) * w / STARTS as f64;
    let cdf = |x: f64| service_cdf(cfg, mean, x);
    let bins = (libm::ceil(TAIL_MEANS * mean / w) as usize).max(2);
    let mut out = Vec::with_capacity(bins);
    let mut before = 0.0;
    for j in 1..=bins {
        let upto = if j == bins {
            1.0
        } else {
            cdf(j as f64 * w + w - start)
        };
        out.push((upto - before).max(0.0));
        before = upto.max(before);
    }
    out
}

/// The extra work of `n` attempts starting together, `per` µs for every attempt at the server:
/// `(extra, how many)`. `load` is those at the server when the first starts, and whether each
/// that starts adds itself (an arrival) or all count already (started from the queue). Up to
/// [`EACH_UP_TO`] attempts each have their own; a larger group all the mean.
fn extras(per: u64, (at_server, grows): (u64, bool), n: u64) -> Vec<(u64, u64)> {
    if !grows {
        return alloc::vec![(per.saturating_mul(at_server), n)];
    }
    if n <= EACH_UP_TO {
        return (1..=n)
            .map(|k| (per.saturating_mul(at_server + k), 1))
            .collect();
    }
    let mean = per.saturating_mul(at_server) + per.saturating_mul(n + 1) / 2;
    alloc::vec![(mean, n)]
}

/// The most attempts starting together that each have their own extra work (see [`extras`]).
const EACH_UP_TO: u64 = 32;

/// The chance that a service of `mean` µs ends within `x` µs: the exponential's or the
/// lognormal's (the per-request engine's draws); 1 for a constant one (ended at once, not
/// spread).
pub(super) fn service_cdf(cfg: &QueueServer, mean: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    match cfg.dist {
        ServiceDist::Exp => 1.0 - libm::exp(-x / mean),
        ServiceDist::Lognormal => {
            let cv = cfg.cv_milli as f64 / 1000.0;
            let var = libm::log(1.0 + cv * cv);
            let mu = libm::log(mean.max(1e-9)) - var / 2.0;
            0.5 * libm::erfc(-(libm::log(x) - mu) / libm::sqrt(2.0 * var))
        }
        ServiceDist::Const | ServiceDist::Mix => 1.0,
    }
}

impl Population {
    /// Bin `k` of the queue server (see the module's steps), with `list` arriving in it.
    pub(super) fn queued(&mut self, k: u64, mut list: Vec<Cohort>) {
        let w = self.width;
        if self.in_outage(k * w) {
            self.outage(k, core::mem::take(&mut list));
        } else {
            self.send_through(&mut list);
        }
        // Each eighth of the bin: its ends in time order, then its arrivals.
        let mut ends = self.ends_in(k).into_iter().peekable();
        let mut arrivals = list.as_slice();
        for e in 1..=STARTS {
            let upto = k * w + e * w / STARTS;
            while let Some(end) = ends.next_if(|x| x.at < upto || e == STARTS) {
                self.complete(end);
            }
            let n = arrivals
                .iter()
                .position(|c| c.at >= upto)
                .unwrap_or(arrivals.len());
            let n = if e == STARTS { arrivals.len() } else { n };
            self.admit(&arrivals[..n]);
            arrivals = &arrivals[n..];
        }
        self.time_out(k);
        // Retries that arrive again in this bin (after a refusal or a timeout).
        while !self.now.is_empty() {
            let mut again = core::mem::take(&mut self.now);
            again.sort_unstable_by_key(|c| (c.at, c.sched, c.seq));
            self.send_through(&mut again);
            self.admit(&again);
            self.time_out(k);
        }
        self.queue_gauges(k);
    }

    /// Records the bin's queue and attempts at the server, and the time they were there.
    fn queue_gauges(&mut self, k: u64) {
        let Some(q) = self.queue.as_ref() else { return };
        let (waiting, in_system) = (q.waiting_n, q.in_system());
        let clip = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        self.rec.queue(Micros(k * self.width), clip(waiting));
        self.rec.at_server(Micros(k * self.width), clip(in_system));
    }

    /// The arrivals in one eighth of a bin, `batch` (in time order): where more arrive than
    /// the free workers and the queue's room take, those let in are shared evenly over the
    /// cohorts (which of them arrived first within the eighth is not known), the rest refused.
    fn admit(&mut self, batch: &[Cohort]) {
        let Some(q) = self.queue.as_ref() else { return };
        let free = u64::from(q.cfg.workers).saturating_sub(q.busy);
        let room = u64::from(q.cfg.queue_limit).saturating_sub(q.waiting_n);
        let (mut cap, mut left) = (free + room, batch.iter().map(|c| c.n).sum::<u64>());
        for c in batch {
            let admitted = if left <= cap {
                c.n
            } else {
                // A share of what is let in, so that the rest can take what is left.
                let p = cap as f64 / left as f64;
                let most = c.n.min(cap);
                let least = cap.saturating_sub(left - c.n);
                split::binomial(&mut self.rng, c.n, p).clamp(least, most)
            };
            cap -= admitted;
            left -= c.n;
            self.arrive(*c, admitted);
        }
    }

    /// Cohort `c` reaches the server at `c.at`, `admitted` of it let in: a free worker takes
    /// what it can, the queue the rest; the others are refused with a 503.
    fn arrive(&mut self, c: Cohort, admitted: u64) {
        let timeout = self.attempt_timeout(&c);
        let Some(q) = self.queue.as_mut() else { return };
        let send = c.at.saturating_sub(self.sp.net.0);
        let free = u64::from(q.cfg.workers).saturating_sub(q.busy);
        let go = free.min(admitted);
        let wait = admitted - go;
        let refused = c.n - admitted;
        if admitted > 0 {
            let id = q.add_flight(Flight {
                c,
                give_up: send + timeout,
                awaited: admitted,
                present: admitted,
                gen: 0,
            });
            let gen = q.flights[id as usize].gen;
            q.timeouts.push(Reverse((send + timeout, id, gen)));
            if wait > 0 {
                q.waiting.push_back((id, wait));
                q.waiting_n += wait;
            }
            // Each attempt that starts counts those ahead of it and itself.
            let ahead = q.in_system() - wait;
            self.start(id, go, c.at, (ahead, true));
        }
        let waiting_n = self.queue.as_ref().map_or(0, |q| q.waiting_n);
        if let Some(s) = self.service.as_mut() {
            let st = &mut s.stats;
            st.advance(Micros(c.at));
            st.in_system += admitted;
            st.arrived += c.n;
            st.queued += wait;
            st.refused += refused;
            st.max_queue = st.max_queue.max(waiting_n);
        }
        if refused > 0 {
            let t = c.at + self.sp.net.0;
            self.fail(t, c, refused, Outcome::Status(503));
            self.breaker_record(t, 0, refused);
        }
    }

    /// The timeout of cohort `c`'s attempt: the policy's, or what is left of the deadline.
    fn attempt_timeout(&self, c: &Cohort) -> u64 {
        let p = self.policy.policy();
        let send = c.at.saturating_sub(self.sp.net.0);
        match p.deadline {
            Some(d) => {
                let left = (c.origin + d.0).saturating_sub(send + p.reserve.0);
                p.attempt_timeout.0.min(left)
            }
            None => p.attempt_timeout.0,
        }
    }

    /// `n` attempts of flight `id` start their work at `t`, each `latency_per_inflight` longer
    /// for every attempt at the server (`load`: those there, and whether each that starts adds
    /// itself, as an arrival does; see [`extras`]).
    fn start(&mut self, id: u32, n: u64, t: u64, load: (u64, bool)) {
        if n == 0 {
            return;
        }
        let per = self.sp.queue.per_inflight.0;
        if per > 0 {
            for (extra, m) in extras(per, load, n) {
                self.start_plus(id, m, t, extra);
            }
        } else {
            self.start_plus(id, n, t, 0);
        }
    }

    /// [`Population::start`] with `extra` µs added to every service.
    fn start_plus(&mut self, id: u32, n: u64, t: u64, extra: u64) {
        let w = self.width;
        let slow = self.sp.slow.holds(Micros(t)) && self.sp.slow_milli != 1000;
        let Some(q) = self.queue.as_mut() else { return };
        q.busy += n;
        let scale = |us: u64| {
            if slow {
                us * self.sp.slow_milli / 1000
            } else {
                us
            }
        };
        // The deliberately wrong step the checks must catch (a test build's feature).
        let late = if cfg!(feature = "mutation-late-waits") {
            w
        } else {
            0
        };
        let exact = |q: &mut QueueCounts, s: u64, n: u64| {
            let at = t + (s + extra).max(1) + late;
            q.push_end((at / w).max(t / w + 1), End { id, n, at });
        };
        match q.cfg.dist {
            ServiceDist::Const => exact(q, scale(q.cfg.service.0), n),
            ServiceDist::Mix => {
                let tail = split::binomial(&mut self.rng, n, f64::from(q.cfg.tail_ppm) / 1e6);
                exact(q, scale(q.cfg.service.0), n - tail);
                exact(q, scale(q.cfg.tail.0), tail);
            }
            ServiceDist::Exp | ServiceDist::Lognormal => {
                let e = (t % w) * STARTS / w;
                let table = &q.spread[usize::from(slow)][e as usize];
                let first = (t + late) / w + 1;
                let mut put = Vec::new();
                split::multinomial(&mut self.rng, n, table, |j, m| put.push((j, m)));
                // Within its bin, an end falls in one of its eighths, each as likely (moved
                // later by the extra work).
                let eighth = |i: u64, bin: u64| bin * w + (2 * i + 1) * w / (2 * STARTS) + extra;
                for (j, m) in put {
                    let bin = first + j as u64;
                    if m <= STARTS {
                        for _ in 0..m {
                            let at = eighth(self.rng.below(STARTS), bin);
                            q.push_end(at / w, End { id, n: 1, at });
                        }
                    } else {
                        let even = [1.0 / STARTS as f64; STARTS as usize];
                        split::multinomial(&mut self.rng, m, &even, |i, n| {
                            let at = eighth(i as u64, bin);
                            q.push_end(at / w, End { id, n, at });
                        });
                    }
                }
            }
        }
    }

    /// The work ending in bin `k`, in time order.
    fn ends_in(&mut self, k: u64) -> Vec<End> {
        let Some(q) = self.queue.as_mut() else {
            return Vec::new();
        };
        if q.ends.is_empty() {
            q.ends_base = q.ends_base.max(k);
        }
        while q.ends_base < k {
            debug_assert!(q.ends.front().is_none_or(Vec::is_empty));
            q.ends.pop_front();
            q.ends_base += 1;
        }
        let mut ends = if q.ends_base == k {
            q.ends_base += 1;
            q.ends.pop_front().unwrap_or_default()
        } else {
            Vec::new()
        };
        ends.sort_by_key(|e| e.at);
        ends
    }

    /// Work `e` is done at its time: answered a hop later to a client that still waits, or
    /// wasted; the freed workers take the waiting attempts.
    fn complete(&mut self, e: End) {
        let net = self.sp.net.0;
        let Some(q) = self.queue.as_mut() else { return };
        q.busy -= e.n;
        let f = &mut q.flights[e.id as usize];
        f.present -= e.n;
        let reply = e.at + net;
        let ok = if reply <= f.give_up {
            e.n.min(f.awaited)
        } else {
            0
        };
        f.awaited -= ok;
        let (c, arrived) = (f.c, f.c.at);
        q.settle_flight(e.id);
        self.rec.served_n(Micros(e.at), e.n);
        if let Some(s) = self.service.as_mut() {
            let st = &mut s.stats;
            st.advance(Micros(e.at));
            st.in_system -= e.n;
            st.completed += e.n;
            st.wasted += e.n - ok;
            st.sojourn_us += u128::from(e.n) * u128::from(e.at.saturating_sub(arrived));
        }
        self.rec.wasted_n(Micros(e.at), e.n - ok);
        self.end(reply, c, StopReason::Success, ok);
        self.breaker_record(reply, ok, 0);
        self.start_waiting(e.at);
    }

    /// The freed workers take the waiting attempts at `t`, in the queue's order; those whose
    /// client has given up leave unstarted under `server_deadline=on`.
    fn start_waiting(&mut self, t: u64) {
        loop {
            let Some(q) = self.queue.as_mut() else { return };
            let free = u64::from(q.cfg.workers).saturating_sub(q.busy);
            if free == 0 {
                return;
            }
            let next = match q.cfg.discipline {
                Discipline::Fifo => q.waiting.pop_front(),
                Discipline::Lifo => q.waiting.pop_back(),
            };
            let Some((id, n)) = next else { return };
            q.waiting_n -= n;
            let f = q.flights[id as usize];
            if q.cfg.deadline && t >= f.give_up {
                q.flights[id as usize].present -= n;
                q.settle_flight(id);
                if let Some(s) = self.service.as_mut() {
                    s.stats.advance(Micros(t));
                    s.stats.in_system -= n;
                    s.stats.dropped += n;
                    s.stats.sojourn_us += u128::from(n) * u128::from(t.saturating_sub(f.c.at));
                }
                continue;
            }
            let go = free.min(n);
            if go < n {
                match q.cfg.discipline {
                    Discipline::Fifo => q.waiting.push_front((id, n - go)),
                    Discipline::Lifo => q.waiting.push_back((id, n - go)),
                }
                q.waiting_n += n - go;
            }
            // Each counts every attempt at the server, itself and the others starting now.
            let all = q.in_system() + go;
            self.start(id, go, t, (all, false));
        }
    }

    /// The clients whose timeouts fall before the end of bin `k` give up on what is still
    /// unanswered (a read timeout).
    fn time_out(&mut self, k: u64) {
        let end = (k + 1) * self.width;
        loop {
            let Some(q) = self.queue.as_mut() else { return };
            let Some(&Reverse((t, id, gen))) = q.timeouts.peek() else {
                return;
            };
            if t >= end {
                return;
            }
            q.timeouts.pop();
            let f = &mut q.flights[id as usize];
            if f.gen != gen || f.awaited == 0 {
                continue;
            }
            let (c, n) = (f.c, f.awaited);
            f.awaited = 0;
            q.settle_flight(id);
            if n > 0 {
                self.fail(t, c, n, Outcome::ReadTimeout);
                self.breaker_record(t, 0, n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::kinds::ScenarioKind;
    use crate::sim::settings::Scenario;

    fn cfg(dist: ServiceDist) -> QueueServer {
        QueueServer {
            dist,
            service: Micros::from_millis(40),
            ..QueueServer::default()
        }
    }

    #[test]
    fn a_bin_is_a_round_width_at_most_a_sixteenth_of_the_mean_service() {
        let at = |ms: u64| {
            bin_width(&QueueServer {
                service: Micros::from_millis(ms),
                ..QueueServer::default()
            })
        };
        assert_eq!((at(40), at(50), at(16), at(1)), (2_500, 2_500, 1_000, 50));
        assert_eq!(at(10_000), 100_000);
    }

    /// Each start's spread holds all of its mass, from the next bin on, with the service's
    /// mean (to within the bin the start's own bin is merged into).
    #[test]
    fn a_starts_spread_holds_the_whole_service_with_its_mean() {
        let w = 2_500u64;
        for dist in [ServiceDist::Exp, ServiceDist::Lognormal] {
            for e in 0..STARTS {
                let table = spread_of(&cfg(dist), 40_000.0, w, e);
                let sum: f64 = table.iter().sum();
                assert!((sum - 1.0).abs() < 1e-9, "{dist:?} {e}: {sum}");
                // An end in bin j (from 1) lands on average at its middle.
                let start = (e as f64 + 0.5) * w as f64 / STARTS as f64;
                let mean: f64 = table
                    .iter()
                    .enumerate()
                    .map(|(j, m)| m * ((j as f64 + 1.5) * w as f64 - start))
                    .sum();
                assert!((mean / 40_000.0 - 1.0).abs() < 0.03, "{dist:?} {e}: {mean}");
            }
        }
        // An exponential's mass in a later bin is e^(-w/mean) of the one before.
        let t = spread_of(&cfg(ServiceDist::Exp), 40_000.0, w, 3);
        assert!((t[5] / t[4] - libm::exp(-2_500.0 / 40_000.0)).abs() < 1e-9);
    }

    #[test]
    fn a_slowed_server_spreads_its_starts_over_the_slowed_service() {
        let mut s = Scenario::new(ScenarioKind::Outage);
        if let Scenario::Outage(o) = &mut s {
            o.server.queue = cfg(ServiceDist::Exp);
            o.server.slow_milli = 3000;
        }
        let q = QueueCounts::new(&StormCfg::of(&s), 2_500);
        let mean = |t: &[f64]| -> f64 {
            t.iter()
                .enumerate()
                .map(|(j, m)| m * (j as f64 + 1.0))
                .sum()
        };
        let ratio = mean(&q.spread[1][0]) / mean(&q.spread[0][0]);
        assert!((ratio - 3.0).abs() < 0.1, "{ratio}");
    }
}
