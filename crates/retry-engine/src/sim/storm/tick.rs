//! The tick server: attempts arriving within one tick compete for that tick's capacity, and
//! their answers leave together at the tick's end (the model is described at the top of
//! `storm.rs`).

use super::config::StormCfg;
use super::server::{Cx, ServerModel, ServerReply};
use super::{Ev, StormJob};
use crate::retry::outcome::Outcome;
use crate::retry::time::Micros;
use crate::sim::metrics::ServerSummary;
use crate::sim::settings::Window;
use alloc::collections::VecDeque;
use alloc::vec::Vec;

/// One slot (a whole attempt of capacity) in the bank's units: thousandths times microseconds.
const SLOT: u128 = 1_000 * 1_000_000;

#[derive(Clone, Copy)]
struct Pending {
    req: u32,
    gen: u32,
    orphan: bool,
}

pub(super) struct Tick {
    tick: Micros,
    net: Micros,
    reject_cost_milli: u64,
    slow: Window,
    slow_milli: u64,
    // Attempts waiting for their tick, oldest tick first. Sends happen in time order and take the
    // same `net` to arrive, so ticks only ever join at the back.
    buckets: VecDeque<(u64, Vec<Pending>)>,
    // Settled ticks whose answers are on their way, oldest first (one `Deliver` event each),
    // kept as the replies they become, so a delivery hands its list over whole.
    answers: VecDeque<Vec<ServerReply>>,
    spare_pending: Vec<Vec<Pending>>,
    spare_answers: Vec<Vec<ServerReply>>,
    per_tick_milli: u64,
    carry: u64, // in [0, 999]: thousandths of a slot left by the last settled tick
    // The bank, in thousandths of a slot times microseconds (a slot is `SLOT`): capacity left
    // unused by quiet ticks, at most one slot, so a server with less than a slot per tick still
    // serves a request every few ticks. In [0, SLOT].
    bank: u128,
    per_tick_exact: u128, // capacity per tick in the bank's units, exactly
    last_settled: Option<u64>,
}

impl Tick {
    pub(super) fn new(sp: &StormCfg) -> Tick {
        Tick {
            tick: sp.tick,
            net: sp.net,
            reject_cost_milli: sp.reject_cost_milli,
            slow: sp.slow,
            slow_milli: sp.slow_milli,
            buckets: VecDeque::new(),
            answers: VecDeque::new(),
            spare_pending: Vec::new(),
            spare_answers: Vec::new(),
            per_tick_milli: (u128::from(sp.capacity_milli) * u128::from(sp.tick.0) / 1_000_000)
                as u64,
            carry: 0,
            // An idle server starts ready to take one request.
            bank: SLOT,
            per_tick_exact: u128::from(sp.capacity_milli) * u128::from(sp.tick.0),
            last_settled: None,
        }
    }

    /// How many of the `n` attempts of tick `k` the server serves.
    ///
    /// The bank first takes in the capacity of the quiet ticks since the last settled one (up to
    /// one slot). When this tick's capacity and the bank cover every attempt, all are served.
    /// Otherwise the tick is overloaded: rejecting costs `reject_cost` of a slot each, and the
    /// tick's own capacity plus the last busy tick's carry serve
    /// `floor((c - reject_cost * n) / (1 - reject_cost))` of them; a bank built while idle does
    /// not survive an overload, which is what keeps a synchronised wave of retries (the burst
    /// lab) exactly as futile whatever the gaps between the waves.
    pub(super) fn serve(&mut self, k: u64, n: u64) -> u64 {
        let idle = self
            .last_settled
            .map_or(0, |last| k.saturating_sub(last + 1));
        self.last_settled = Some(k);
        // A capacity drop (`slow`) divides the tick's capacity while it lasts.
        let slow = self.slow_milli;
        let (per_tick_exact, per_tick_milli) =
            if slow > 1000 && self.slow.holds(Micros(k.saturating_mul(self.tick.0))) {
                (
                    self.per_tick_exact * 1000 / u128::from(slow),
                    self.per_tick_milli * 1000 / slow,
                )
            } else {
                (self.per_tick_exact, self.per_tick_milli)
            };
        self.bank = (self.bank + per_tick_exact.saturating_mul(u128::from(idle))).min(SLOT);
        let avail = self.bank + per_tick_exact;
        let need = u128::from(n) * SLOT;
        if need <= avail {
            let left = avail - need;
            self.bank = left.min(SLOT);
            self.carry = ((left / 1_000_000) as u64).min(999);
            return n;
        }
        let credit = per_tick_milli + self.carry;
        let rc = self.reject_cost_milli;
        let served = if rc >= 1000 {
            n.min(credit / 1000)
        } else {
            let triage = rc * n;
            if credit <= triage {
                0
            } else {
                n.min((credit - triage) / (1000 - rc))
            }
        };
        let used = served * 1000 + (n - served) * rc;
        self.carry = credit.saturating_sub(used).min(999);
        self.bank = u128::from(self.carry) * 1_000_000;
        served
    }

    fn settle(&mut self, now: Micros, k: u64, cx: &mut Cx<'_>) {
        if self.buckets.front().map(|(f, _)| *f) != Some(k) {
            return;
        }
        let Some((_, mut list)) = self.buckets.pop_front() else {
            return;
        };
        let n = list.len() as u64;
        let served = self.serve(k, n);
        cx.rec.served(now, served as u32);
        let mut out = self.spare_answers.pop().unwrap_or_default();
        out.extend(
            list.drain(..)
                .enumerate()
                .filter(|(_, p)| !p.orphan)
                .map(|(i, p)| {
                    let outcome = if (i as u64) < served {
                        Outcome::Ok
                    } else {
                        Outcome::Status(503)
                    };
                    (p.req, p.gen, outcome)
                }),
        );
        self.spare_pending.push(list);
        if out.is_empty() {
            self.spare_answers.push(out);
        } else {
            self.answers.push_back(out);
            cx.q.push(now.saturating_add(self.net), Ev::Deliver);
        }
    }

    /// The oldest settled tick's answers reach their clients: its list becomes the replies
    /// (the storm's list, empty, is kept for a later tick).
    fn deliver(&mut self, cx: &mut Cx<'_>) {
        let Some(mut batch) = self.answers.pop_front() else {
            return;
        };
        core::mem::swap(cx.replies, &mut batch);
        debug_assert!(batch.is_empty());
        self.spare_answers.push(batch);
    }
}

impl ServerModel for Tick {
    /// Joins the attempt to its tick's list (a read timeout at once when the tick's answer
    /// would come after its client gives up).
    #[inline]
    fn send(&mut self, _now: Micros, job: StormJob, cx: &mut Cx<'_>) {
        let tick = self.tick.0;
        let arrive = job.at;
        // Arrivals come in time order: reuse the last tick's number while it still holds.
        let k = match self.buckets.back() {
            Some((bk, _)) if arrive.0 >= bk * tick && arrive.0 < (bk + 1) * tick => *bk,
            _ => arrive.0 / tick,
        };
        let answer = Micros((k + 1) * tick).saturating_add(self.net);
        let orphan = answer > job.give_up;
        if orphan {
            let reply = Ev::Reply {
                req: job.req,
                gen: job.gen,
                outcome: Outcome::ReadTimeout,
            };
            cx.q.push(job.give_up, reply);
        }
        let p = Pending {
            req: job.req,
            gen: job.gen,
            orphan,
        };
        match self.buckets.back_mut() {
            Some((bk, list)) if *bk == k => list.push(p),
            _ => {
                let mut list = self.spare_pending.pop().unwrap_or_default();
                list.push(p);
                self.buckets.push_back((k, list));
                cx.q.push(Micros((k + 1) * tick), Ev::Tick(k));
            }
        }
    }

    fn handle(&mut self, now: Micros, ev: Ev, cx: &mut Cx<'_>) {
        match ev {
            Ev::Tick(k) => self.settle(now, k, cx),
            Ev::Deliver => self.deliver(cx),
            Ev::Arrive
            | Ev::Send(_)
            | Ev::AtServer(_)
            | Ev::Served(_)
            | Ev::Lane(_)
            | Ev::Spike
            | Ev::Token(_)
            | Ev::User(_)
            | Ev::Hedge { .. }
            | Ev::Reply { .. } => {}
        }
    }

    fn summary(&self, _successes: u64, _max_attempts: u32) -> Option<ServerSummary> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::kinds::ScenarioKind;
    use crate::sim::settings::Scenario;
    use alloc::vec::Vec;

    /// A tick server of 50 attempts/s with this tick and refusal cost.
    fn server(tick_ms: u64, reject_cost_milli: u64) -> Tick {
        let mut s = Scenario::new(ScenarioKind::Outage);
        if let Scenario::Outage(o) = &mut s {
            o.server.capacity_milli = 50_000;
            o.server.tick = Micros::from_millis(tick_ms);
            o.server.reject_cost_milli = reject_cost_milli;
        }
        Tick::new(&StormCfg::of(&s))
    }

    #[test]
    fn a_tick_serves_what_its_capacity_and_the_bank_cover() {
        let mut t = server(50, 100);
        assert_eq!(t.per_tick_milli, 2_500, "2.5 slots a tick");
        // An idle server holds one slot: 3 attempts fit in 1 + 2.5 slots.
        assert_eq!(t.serve(0, 3), 3);
    }

    #[test]
    fn an_overloaded_tick_pays_for_its_refusals_and_carries_the_rest() {
        let mut t = server(50, 100);
        // 10 attempts: 2.5 slots less 10 x 0.1 for refusals serve floor(1.5 / 0.9) = 1;
        // 1 + 9 x 0.1 = 1.9 used, 0.6 carried.
        assert_eq!(t.serve(0, 10), 1);
        assert_eq!(t.carry, 600);
        // The next tick has 2.5 + 0.6: floor(2.1 / 0.9) = 2, and 0.3 carried.
        assert_eq!(t.serve(1, 10), 2);
        assert_eq!(t.carry, 300);
        // Eight quiet ticks bank at most one slot, and an overload spends it: 4 attempts
        // against 2.5 + 0.3 serve floor(2.4 / 0.9) = 2, not all 4.
        assert_eq!(t.serve(10, 4), 2);
    }

    #[test]
    fn refusals_that_cost_a_whole_slot_leave_only_whole_slots() {
        let mut t = server(50, 1_000);
        assert_eq!(t.serve(0, 10), 2);
    }

    #[test]
    fn less_than_a_slot_a_tick_still_serves_one_every_few_ticks() {
        // 10 ms ticks: half a slot each, one attempt every tick. The idle server's slot and
        // two halves serve the first two; then each refusal costs 0.1 of the carried credit:
        // 0.5 - 0.1 = 0.4, 0.9 - 0.1 = 0.8, 1.3 serves (0.3 left), 0.8 - 0.1 = 0.7, 1.2 serves.
        let mut t = server(10, 100);
        let served: Vec<u64> = (0..8).map(|k| t.serve(k, 1)).collect();
        assert_eq!(served, [1, 1, 0, 0, 1, 0, 1, 0]);
    }
}
