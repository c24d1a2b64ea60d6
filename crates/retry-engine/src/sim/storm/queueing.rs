//! The queue server: `workers` serve at once, the rest wait in a queue of up to `queue_limit`
//! (FIFO or LIFO), and an attempt that finds the queue full is refused with a 503 at once.

use super::config::StormCfg;
use super::server::{Cx, ServerModel};
use super::service::Service;
use super::{Ev, StormJob};
use crate::retry::outcome::Outcome;
use crate::retry::time::Micros;
use crate::sim::metrics::ServerSummary;
use crate::sim::params::Discipline;
use alloc::collections::VecDeque;

pub(super) struct Queueing {
    work: Service,
    // Workers busy.
    busy: u32,
    // Slots of the attempts waiting, in arrival order.
    waiting: VecDeque<u32>,
}

impl Queueing {
    pub(super) fn new(sp: &StormCfg, seed: u64, run: u32) -> Queueing {
        Queueing {
            work: Service::new(sp, seed, run),
            busy: 0,
            waiting: VecDeque::new(),
        }
    }

    /// The requests at the server now: waiting and in service.
    fn at_server_now(&self) -> u32 {
        self.waiting.len() as u32 + self.busy
    }

    fn start(&mut self, now: Micros, slot: u32, cx: &mut Cx<'_>) {
        self.busy += 1;
        self.work.start(now, slot, cx);
    }

    fn arrive(&mut self, now: Micros, slot: u32, cx: &mut Cx<'_>) {
        let w = &mut self.work;
        w.stats.arrive(now);
        if self.busy < w.cfg.workers {
            self.start(now, slot, cx);
            cx.rec.at_server(now, self.at_server_now());
        } else if self.waiting.len() < w.cfg.queue_limit as usize {
            w.stats.queued += 1;
            self.waiting.push_back(slot);
            w.stats.max_queue = w.stats.max_queue.max(self.waiting.len() as u64);
            cx.rec.queue(now, self.waiting.len() as u32);
            cx.rec.at_server(now, self.at_server_now());
        } else {
            let job = w.jobs[slot];
            w.jobs.release(slot);
            w.stats.refused += 1;
            w.stats.leave(now, job.at);
            w.answer(now, job, Outcome::Status(503), false, cx);
        }
    }

    fn served(&mut self, now: Micros, slot: u32, cx: &mut Cx<'_>) {
        let w = &mut self.work;
        let job = w.jobs[slot];
        w.jobs.release(slot);
        w.stats.leave(now, job.at);
        w.stats.completed += 1;
        cx.rec.served(now, 1);
        self.busy = self.busy.saturating_sub(1);
        w.answer(now, job, Outcome::Ok, true, cx);
        if let Some(next) = self.next_waiting(now, cx) {
            self.start(now, next, cx);
        }
        cx.rec.queue(now, self.waiting.len() as u32);
        cx.rec.at_server(now, self.at_server_now());
    }

    /// The next waiting attempt to start, by the discipline; those whose client no longer
    /// waits (cancelled by hedging, or past their deadline with `server_deadline=on`) leave
    /// unstarted.
    fn next_waiting(&mut self, now: Micros, cx: &mut Cx<'_>) -> Option<u32> {
        let w = &mut self.work;
        loop {
            let next = match w.cfg.discipline {
                Discipline::Fifo => self.waiting.pop_front(),
                Discipline::Lifo => self.waiting.pop_back(),
            }?;
            let waiting = w.jobs[next];
            if w.abandoned(&waiting, cx) {
                w.jobs.release(next);
                cx.hedged.cancelled += 1;
                w.stats.leave(now, waiting.at);
                continue;
            }
            if w.cfg.deadline && now >= waiting.give_up {
                w.jobs.release(next);
                w.stats.dropped += 1;
                w.stats.leave(now, waiting.at);
                continue;
            }
            return Some(next);
        }
    }
}

impl ServerModel for Queueing {
    fn send(&mut self, _now: Micros, job: StormJob, cx: &mut Cx<'_>) {
        self.work.send(job, cx);
    }

    fn handle(&mut self, now: Micros, ev: Ev, cx: &mut Cx<'_>) {
        match ev {
            Ev::AtServer(slot) => self.arrive(now, slot, cx),
            Ev::Served(slot) => self.served(now, slot, cx),
            Ev::Arrive
            | Ev::Send(_)
            | Ev::Tick(_)
            | Ev::Deliver
            | Ev::Lane(_)
            | Ev::Spike
            | Ev::Token(_)
            | Ev::User(_)
            | Ev::Hedge { .. }
            | Ev::Reply { .. } => {}
        }
    }

    fn summary(&self, successes: u64, _max_attempts: u32) -> Option<ServerSummary> {
        Some(self.work.summary(true, successes, None))
    }
}
