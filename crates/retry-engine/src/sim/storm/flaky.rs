//! The flaky server: every attempt is served at once (no queue, no limit on workers), and a
//! share `fail` of them fails with a 503 after its service time.

use super::config::StormCfg;
use super::server::{Cx, ServerModel};
use super::service::Service;
use super::{Ev, StormJob};
use crate::retry::outcome::Outcome;
use crate::retry::time::Micros;
use crate::sim::metrics::ServerSummary;

pub(super) struct Flaky {
    work: Service,
}

impl Flaky {
    pub(super) fn new(sp: &StormCfg, seed: u64, run: u32) -> Flaky {
        Flaky {
            work: Service::new(sp, seed, run),
        }
    }
}

impl ServerModel for Flaky {
    fn send(&mut self, _now: Micros, job: StormJob, cx: &mut Cx<'_>) {
        self.work.send(job, cx);
    }

    fn handle(&mut self, now: Micros, ev: Ev, cx: &mut Cx<'_>) {
        let w = &mut self.work;
        match ev {
            Ev::AtServer(slot) => {
                w.stats.arrive(now);
                w.start(now, slot, cx);
            }
            Ev::Served(slot) => {
                let job = w.jobs[slot];
                w.jobs.release(slot);
                w.stats.leave(now, job.at);
                w.stats.completed += 1;
                cx.rec.served(now, 1);
                let outcome = if w.chance(w.cfg.fail_ppm) {
                    Outcome::Status(503)
                } else {
                    Outcome::Ok
                };
                w.answer(now, job, outcome, true, cx);
            }
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

    /// With the closed form of a server that fails each attempt alike.
    fn summary(&self, successes: u64, max_attempts: u32) -> Option<ServerSummary> {
        Some(self.work.summary(false, successes, Some(max_attempts)))
    }
}
