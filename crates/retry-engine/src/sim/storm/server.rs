//! The queue and flaky servers inside a storm: an attempt's arrival, its service time (by the
//! link's distribution, or slowed by the load), its answer, and the next attempt taken from the
//! queue when a worker frees.

use super::*;

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

impl Storm {
    /// A service time drawn for work starting at `now`: the mean (times `slow` in its window),
    /// shaped by the distribution, plus `latency_per_inflight` per request at the server.
    pub(super) fn service_time(&mut self, now: Micros) -> Micros {
        let qs = self.sp.queue;
        let slow = self.sp.slow.holds(now);
        if qs.dist == ServiceDist::Const && qs.per_inflight == Micros::ZERO && !slow {
            return qs.service;
        }
        // Times `slow` inside its window, in the order the float operations have always run.
        let slow_milli = self.sp.slow_milli as f64;
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
            ServiceDist::Exp => -libm::log(1.0 - self.service.next_f64()) * mean,
            ServiceDist::Mix => {
                if self.service.below(1_000_000) < u64::from(qs.tail_ppm) {
                    scaled(qs.tail.0)
                } else {
                    mean
                }
            }
            ServiceDist::Lognormal => {
                let cv = qs.cv_milli as f64 / 1000.0;
                let var = libm::log(1.0 + cv * cv);
                let mu = libm::log(mean.max(1e-9)) - var / 2.0;
                libm::exp(self.service.normal(mu, libm::sqrt(var)))
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
        job: Job,
        outcome: Outcome,
        work: bool,
        q: &mut EventQueue<Ev>,
    ) {
        let at = now.saturating_add(self.sp.net);
        if work && self.sp.hedge.is_some() && !self.awaits(job.req, job.gen) {
            // Its request was answered by another attempt, or gave up on this one.
            self.hedged.wasted += 1;
            self.stats.wasted += 1;
            self.rec.wasted(now);
            return;
        }
        if at <= job.give_up {
            let reply = Ev::Reply {
                req: job.req,
                gen: job.gen,
                outcome,
            };
            self.push_lane(LANE_NET, at, || reply, q);
        } else if work {
            self.stats.wasted += 1;
            self.rec.wasted(now);
        }
    }

    pub(super) fn at_server(&mut self, now: Micros, slot: u32, q: &mut EventQueue<Ev>) {
        self.stats.arrive(now);
        if self.sp.server == ServerKind::Flaky {
            let s = self.service_time(now);
            self.push_lane(LANE_SERVICE, now.saturating_add(s), || Ev::Served(slot), q);
            return;
        }
        let qs = self.sp.queue;
        if self.busy < qs.workers {
            self.start(now, slot, q);
            self.rec
                .at_server(now, self.waiting.len() as u32 + self.busy);
        } else if self.waiting.len() < qs.queue_limit as usize {
            self.stats.queued += 1;
            self.waiting.push_back(slot);
            self.stats.max_queue = self.stats.max_queue.max(self.waiting.len() as u64);
            self.rec.queue(now, self.waiting.len() as u32);
            self.rec
                .at_server(now, self.waiting.len() as u32 + self.busy);
        } else {
            let job = self.jobs[slot];
            self.jobs.release(slot);
            self.stats.refused += 1;
            self.stats.leave(now, job.at);
            self.answer(now, job, Outcome::Status(503), false, q);
        }
    }

    pub(super) fn start(&mut self, now: Micros, slot: u32, q: &mut EventQueue<Ev>) {
        self.busy += 1;
        let s = self.service_time(now);
        self.push_lane(LANE_SERVICE, now.saturating_add(s), || Ev::Served(slot), q);
    }

    pub(super) fn served(&mut self, now: Micros, slot: u32, q: &mut EventQueue<Ev>) {
        let job = self.jobs[slot];
        self.jobs.release(slot);
        self.stats.leave(now, job.at);
        self.stats.completed += 1;
        self.rec.served(now, 1);
        if self.sp.server == ServerKind::Flaky {
            let fail = self.service.below(1_000_000) < u64::from(self.sp.queue.fail_ppm);
            let outcome = if fail {
                Outcome::Status(503)
            } else {
                Outcome::Ok
            };
            self.answer(now, job, outcome, true, q);
            return;
        }
        self.busy = self.busy.saturating_sub(1);
        self.answer(now, job, Outcome::Ok, true, q);
        let qs = self.sp.queue;
        loop {
            let next = match qs.discipline {
                Discipline::Fifo => self.waiting.pop_front(),
                Discipline::Lifo => self.waiting.pop_back(),
            };
            let Some(next) = next else {
                break;
            };
            let waiting = self.jobs[next];
            if self.sp.hedge.is_some() && !self.awaits(waiting.req, waiting.gen) {
                // Cancelled by its client (another attempt won, or it gave up on this one).
                self.jobs.release(next);
                self.hedged.cancelled += 1;
                self.stats.leave(now, waiting.at);
                continue;
            }
            if qs.deadline && now >= waiting.give_up {
                self.jobs.release(next);
                self.stats.dropped += 1;
                self.stats.leave(now, waiting.at);
                continue;
            }
            self.start(now, next, q);
            break;
        }
        self.rec.queue(now, self.waiting.len() as u32);
        self.rec
            .at_server(now, self.waiting.len() as u32 + self.busy);
    }
}
