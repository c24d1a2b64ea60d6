//! The servers a storm can run, registered in one place: each server's type in `Servers`, its
//! line in `each!`, its arm in `server_of`.

use super::config::StormCfg;
use super::server::{Cx, ServerModel};
use super::{Ev, StormJob};
use crate::retry::time::Micros;
use crate::sim::metrics::ServerSummary;
use crate::sim::params::ServerKind;

/// The servers a storm can run. A `match` rather than a `Box<dyn ServerModel>`: each server's calls
/// stay direct and inline into the storm's event loop, where a virtual call on every event cost
/// a queue run an eighth of its speed.
pub(super) enum Servers {
    Tick(super::tick::Tick),
    Queueing(super::queueing::Queueing),
    Flaky(super::flaky::Flaky),
}

/// `$body` with `$s` bound to whichever server `$servers` holds.
macro_rules! each {
    ($servers:expr, $s:ident => $body:expr) => {
        match $servers {
            Servers::Tick($s) => $body,
            Servers::Queueing($s) => $body,
            Servers::Flaky($s) => $body,
        }
    };
}

impl ServerModel for Servers {
    #[inline(always)]
    fn send(&mut self, now: Micros, job: StormJob, cx: &mut Cx<'_>) {
        each!(self, s => s.send(now, job, cx))
    }
    #[inline(always)]
    fn handle(&mut self, now: Micros, ev: Ev, cx: &mut Cx<'_>) {
        each!(self, s => s.handle(now, ev, cx))
    }
    fn summary(&self, successes: u64, max_attempts: u32) -> Option<ServerSummary> {
        each!(self, s => s.summary(successes, max_attempts))
    }
}

/// The server the link names: the one place that maps a server kind to its model.
pub(super) fn server_of(sp: &StormCfg, seed: u64, run: u32) -> Servers {
    match sp.server {
        ServerKind::Tick => Servers::Tick(super::tick::Tick::new(sp)),
        ServerKind::Queue => Servers::Queueing(super::queueing::Queueing::new(sp, seed, run)),
        ServerKind::Flaky => Servers::Flaky(super::flaky::Flaky::new(sp, seed, run)),
    }
}
