//! What the queue and flaky servers share: the attempts at the server, the service time (by
//! the link's distribution, or slowed by the load), the answer sent back a network hop later,
//! and the server's own accounting.

use super::config::StormCfg;
use super::server::Cx;
use super::{Ev, StormJob, LANE_NET, LANE_SERVICE, LANE_TIMEOUT, STREAM_SERVICE};
use crate::retry::outcome::Outcome;
use crate::retry::rng::{Rng, Words};
use crate::retry::time::Micros;
use crate::sim::metrics::{ClosedForm, ServerSummary};
use crate::sim::params::ServiceDist;
use crate::sim::settings::{QueueServer, Window};
use crate::sim::slab::Slab;

/// What a queue or flaky server saw: arrivals, time in the system, queueing and wasted work.
/// The area under the number in the system is kept apart from the sum of the times spent in
/// it, so Little's law (L = lambda W) checks one against the other.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServerStats {
    /// Attempts that reached the server.
    pub arrived: u64,
    /// Of them, those that found every worker busy and waited in the queue.
    pub queued: u64,
    /// Refused at once: the queue was full.
    pub refused: u64,
    /// Dropped unstarted because the caller had given up (`server_deadline=on`).
    pub dropped: u64,
    /// Work done.
    pub completed: u64,
    /// Work done whose answer came too late for its caller.
    pub wasted: u64,
    /// The most requests waiting at once.
    pub max_queue: u64,
    /// Sum over attempts of the time from arrival to leaving (µs).
    pub sojourn_us: u128,
    /// Integral of the number in the system over time (µs x attempts).
    pub area: u128,
    /// Attempts in the system now.
    pub in_system: u64,
    /// When `area` was last brought up to date.
    pub last: Micros,
}

impl ServerStats {
    pub(super) fn advance(&mut self, now: Micros) {
        let dt = now.0.saturating_sub(self.last.0);
        self.area += u128::from(self.in_system) * u128::from(dt);
        self.last = self.last.max(now);
    }

    pub(super) fn arrive(&mut self, now: Micros) {
        self.advance(now);
        self.in_system += 1;
        self.arrived += 1;
    }

    pub(super) fn leave(&mut self, now: Micros, at: Micros) {
        self.advance(now);
        self.in_system = self.in_system.saturating_sub(1);
        self.sojourn_us += u128::from(now.0.saturating_sub(at.0));
    }
}

/// The work of a queue or flaky server.
pub(super) struct Service {
    pub(super) cfg: QueueServer,
    slow: Window,
    slow_milli: u64,
    net: Micros,
    hedge: bool,
    // The attempts at the server (waiting or in service), by slot; events name the slot, which
    // keeps events small.
    pub(super) jobs: Slab<StormJob>,
    rng: Rng,
    pub(super) stats: ServerStats,
}

impl Service {
    pub(super) fn new(sp: &StormCfg, seed: u64, run: u32) -> Service {
        Service {
            cfg: sp.queue,
            slow: sp.slow,
            slow_milli: sp.slow_milli,
            net: sp.net,
            hedge: sp.hedge.is_some(),
            jobs: Slab::default(),
            rng: Rng::stream(seed, STREAM_SERVICE + u64::from(run)),
            stats: ServerStats::default(),
        }
    }

    /// Attempt `job` leaves its client: it reaches the server a network hop later, and its
    /// read timeout is armed.
    pub(super) fn send(&mut self, job: StormJob, cx: &mut Cx<'_>) {
        let (at, give_up, req, gen) = (job.at, job.give_up, job.req, job.gen);
        let slot = self.jobs.insert(job);
        cx.lanes
            .push(LANE_NET, at, || Ev::AtServer(slot), cx.q, cx.aw);
        let timeout = || Ev::Reply {
            req,
            gen,
            outcome: Outcome::ReadTimeout,
        };
        cx.lanes.push(LANE_TIMEOUT, give_up, timeout, cx.q, cx.aw);
    }

    /// Whether the client of `job` no longer waits for it (hedging: another attempt won, or
    /// it gave up on this one).
    pub(super) fn abandoned(&self, job: &StormJob, cx: &Cx<'_>) -> bool {
        self.hedge && !cx.aw.awaits(job.req, job.gen)
    }

    /// `us` of work starting at `now`, times `slow` in its window, as `service_time` scales it.
    pub(super) fn scaled_at(&self, now: Micros, us: u64) -> f64 {
        let v = us as f64;
        if self.slow.holds(now) {
            v * self.slow_milli as f64 / 1000.0
        } else {
            v
        }
    }

    /// A draw below `ppm` millionths.
    pub(super) fn chance(&mut self, ppm: u32) -> bool {
        self.rng.below(1_000_000) < u64::from(ppm)
    }

    /// Schedules the end of the work on `slot`, started at `now`.
    pub(super) fn start(&mut self, now: Micros, slot: u32, cx: &mut Cx<'_>) {
        let s = self.service_time(now);
        cx.lanes.push(
            LANE_SERVICE,
            now.saturating_add(s),
            || Ev::Served(slot),
            cx.q,
            cx.aw,
        );
    }

    /// A service time drawn for work starting at `now`: the mean (times `slow` in its window),
    /// shaped by the distribution, plus `latency_per_inflight` per request at the server.
    pub(super) fn service_time(&mut self, now: Micros) -> Micros {
        let qs = self.cfg;
        let slow = self.slow.holds(now);
        if qs.dist == ServiceDist::Const && qs.per_inflight == Micros::ZERO && !slow {
            return qs.service;
        }
        // Times `slow` inside its window, in the order the float operations have always run.
        let slow_milli = self.slow_milli as f64;
        let scaled = |us: u64| {
            let v = us as f64;
            if slow {
                v * slow_milli / 1000.0
            } else {
                v
            }
        };
        let mean = scaled(qs.service.0);
        let t = match qs.dist {
            ServiceDist::Const => mean,
            ServiceDist::Exp => -libm::log(1.0 - self.rng.next_f64()) * mean,
            ServiceDist::Mix => {
                if self.chance(qs.tail_ppm) {
                    scaled(qs.tail.0)
                } else {
                    mean
                }
            }
            ServiceDist::Lognormal => {
                let cv = qs.cv_milli as f64 / 1000.0;
                let var = libm::log(1.0 + cv * cv);
                let mu = libm::log(mean.max(1e-9)) - var / 2.0;
                libm::exp(self.rng.normal(mu, libm::sqrt(var)))
            }
        };
        let extra = qs.per_inflight.0.saturating_mul(self.stats.in_system);
        Micros((libm::round(t) as u64).saturating_add(extra))
    }

    /// Sends the answer to `job` at `now` plus the network, if its caller still waits for it
    /// then; otherwise the work (if any was done) was wasted.
    pub(super) fn answer(
        &mut self,
        now: Micros,
        job: StormJob,
        outcome: Outcome,
        work: bool,
        cx: &mut Cx<'_>,
    ) {
        let at = now.saturating_add(self.net);
        if work && self.abandoned(&job, cx) {
            cx.hedged.wasted += 1;
            self.stats.wasted += 1;
            cx.rec.wasted(now);
            return;
        }
        if at <= job.give_up {
            let reply = || Ev::Reply {
                req: job.req,
                gen: job.gen,
                outcome,
            };
            cx.lanes.push(LANE_NET, at, reply, cx.q, cx.aw);
        } else if work {
            self.stats.wasted += 1;
            cx.rec.wasted(now);
        }
    }

    /// The report's summary of what the server saw. `flaky_attempts`: the policy's attempts
    /// when the server is the flaky one, for the closed form.
    pub(super) fn summary(
        &self,
        queueing: bool,
        successes: u64,
        flaky_attempts: Option<u32>,
    ) -> ServerSummary {
        let st = self.stats;
        let secs = (st.last.0 as f64 / 1e6).max(1e-6);
        let per = |n: u64| {
            if st.arrived == 0 {
                0.0
            } else {
                n as f64 / st.arrived as f64
            }
        };
        ServerSummary {
            queueing,
            arrived: st.arrived,
            arrivals_per_s: st.arrived as f64 / secs,
            mean_in_system: st.area as f64 / st.last.0.max(1) as f64,
            mean_time_ms: if st.arrived == 0 {
                0.0
            } else {
                st.sojourn_us as f64 / st.arrived as f64 / 1000.0
            },
            wait_share: per(st.queued),
            throughput_per_s: st.completed as f64 / secs,
            goodput_per_s: successes as f64 / secs,
            wasted_share: if st.completed == 0 {
                0.0
            } else {
                st.wasted as f64 / st.completed as f64
            },
            refused: st.refused,
            dropped: st.dropped,
            max_queue: st.max_queue,
            closed_form: flaky_attempts
                .map(|n| ClosedForm::flaky(f64::from(self.cfg.fail_ppm) / 1e6, n)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::kinds::ScenarioKind;
    use crate::sim::settings::Scenario;

    /// A queue server's work with this queue's settings (the outage's other defaults).
    fn service(set: impl FnOnce(&mut QueueServer)) -> Service {
        let mut s = Scenario::new(ScenarioKind::Outage);
        if let Scenario::Outage(o) = &mut s {
            set(&mut o.server.queue);
        }
        Service::new(&StormCfg::of(&s), 7, 0)
    }

    #[test]
    fn the_area_under_the_number_in_the_system_is_the_sum_of_the_times_in_it() {
        // Two attempts: one in from 0 to 30, one from 10 to 50. The number in the system is 1,
        // then 2, then 1: an area of 10 + 40 + 20 = 70, the two sojourns 30 + 40.
        let mut s = ServerStats::default();
        s.arrive(Micros(0));
        s.arrive(Micros(10));
        s.leave(Micros(30), Micros(0));
        s.leave(Micros(50), Micros(10));
        assert_eq!(
            (s.area, s.sojourn_us, s.in_system, s.arrived),
            (70, 70, 0, 2)
        );
    }

    #[test]
    fn a_chance_comes_up_its_share_of_draws() {
        let mut w = service(|_| {});
        let n = 200_000;
        let hits = (0..n).filter(|_| w.chance(250_000)).count() as f64;
        // A quarter of 200,000, within four standard deviations (194 each).
        assert!((hits - 50_000.0).abs() < 800.0, "{hits}");
        assert!(!(0..1000).any(|_| w.chance(0)));
        assert!((0..1000).all(|_| w.chance(1_000_000)));
    }

    #[test]
    fn service_times_have_the_distribution_and_mean_set() {
        let mut c = service(|q| q.per_inflight = Micros(5));
        c.stats.in_system = 3;
        // Constant, plus 5 µs for each of the 3 attempts in the system.
        assert_eq!(c.service_time(Micros::ZERO), Micros(50_015));
        let mut e = service(|q| q.dist = ServiceDist::Exp);
        let n = 100_000;
        let draws: alloc::vec::Vec<u64> = (0..n).map(|_| e.service_time(Micros::ZERO).0).collect();
        let mean = draws.iter().sum::<u64>() as f64 / n as f64;
        // The mean of 100,000 exponential draws of mean 50 ms is within 4 x 0.32 %.
        assert!((mean / 50_000.0 - 1.0).abs() < 0.013, "{mean}");
        // An exponential's median is ln 2 of its mean.
        let below = draws.iter().filter(|&&d| d < 34_657).count() as f64 / n as f64;
        assert!((below - 0.5).abs() < 0.007, "{below}");
        let mut m = service(|q| {
            q.dist = ServiceDist::Mix;
            q.tail_ppm = 100_000;
        });
        let tails = (0..n)
            .filter(|_| m.service_time(Micros::ZERO) == Micros::from_secs(1))
            .count();
        assert!((tails as f64 - 10_000.0).abs() < 400.0, "{tails}");
    }
}
