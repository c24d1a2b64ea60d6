//! The server a storm's clients send to, behind one trait. A server takes each attempt as it
//! leaves its client and answers it in its own way: the tick server settles a tick's attempts
//! together against its capacity, the queue server serves them with workers and a queue, the
//! flaky server serves each at once and fails a share. A server never calls back into the
//! storm: it schedules events, writes lanes and the recorder, and hands the answers that reach
//! their clients now to `Cx::replies`, which the storm then delivers.
//!
//! To add a server: a file with a type that implements [`ServerModel`], its kind in
//! `params::ServerKind`, and its registration in `servers.rs`: a variant of `Servers`, its line
//! in `each!` and its arm in `server_of`.

use super::lanes::{Awaits, Lanes};
use super::{Ev, StormJob};
use crate::retry::outcome::Outcome;
use crate::retry::time::Micros;
use crate::sim::metrics::{Recorder, ServerSummary};
use crate::sim::queue::EventQueue;
use crate::sim::HedgeSummary;
use alloc::vec::Vec;

/// An answer that reaches its client now: request, attempt, what the client sees.
pub(super) type ServerReply = (u32, u32, Outcome);

/// What a server may touch of the storm around it.
pub(super) struct Cx<'a> {
    pub(super) q: &'a mut EventQueue<Ev>,
    pub(super) lanes: &'a mut Lanes,
    pub(super) rec: &'a mut Recorder,
    /// Which attempts their clients still wait for (a hedged request's client stops waiting
    /// for its other attempts once one wins).
    pub(super) aw: Awaits<'a>,
    pub(super) hedged: &'a mut HedgeSummary,
    pub(super) replies: &'a mut Vec<ServerReply>,
}

/// A server in a storm.
pub(super) trait ServerModel {
    /// Attempt `job` left its client at `now`: it reaches the server at `job.at`, and its
    /// client waits for the answer until `job.give_up` (then it is a read timeout).
    fn send(&mut self, now: Micros, job: StormJob, cx: &mut Cx<'_>);
    /// One of the server's own events is due (`AtServer`, `Served`, `Tick` or `Deliver`).
    fn handle(&mut self, now: Micros, ev: Ev, cx: &mut Cx<'_>);
    /// The server's own accounting for the report, if it keeps one. `successes`: the
    /// requests that succeeded; `max_attempts`: the policy's.
    fn summary(&self, successes: u64, max_attempts: u32) -> Option<ServerSummary>;
}
