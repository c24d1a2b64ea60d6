//! The storm's lanes: events that come a fixed delay after what schedules them (a network hop,
//! a service, a read timeout), kept in order in queues of their own, with timeouts whose
//! attempt was already answered skipped or compacted away.

use super::*;

impl Storm {
    /// Whether a timeout for attempt `gen` of request `req` still matters.
    pub(super) fn awaits(&self, req: u32, gen: u32) -> bool {
        let r = &self.reqs[req];
        if self.sp.hedge.is_some() {
            return hedge::out_has(r, gen);
        }
        r.has(LIVE) && r.gen == gen && r.has(AWAITING)
    }

    /// Schedules the read timeout of attempt `gen` at `t`.
    ///
    /// Pending timeouts are the large set (one per attempt out) and most never fire: the answer
    /// comes first. They wait in their lane, and an answered attempt's timeout is dropped when
    /// it reaches the front, with no event of its own (`skip_answered`).
    pub(super) fn arm_timeout(&mut self, t: Micros, req: u32, gen: u32, q: &mut EventQueue<Ev>) {
        let ev = Ev::Reply {
            req,
            gen,
            outcome: Outcome::ReadTimeout,
        };
        self.push_lane(LANE_TIMEOUT, t, || ev, q);
    }

    /// Drops the timeouts at the front of their lane whose attempt has been answered, so the
    /// lane holds about as many as are out and schedules only one that matters.
    pub(super) fn skip_answered(&mut self, k: usize) {
        if k != LANE_TIMEOUT {
            return;
        }
        while let Some(&(_, Ev::Reply { req, gen, .. })) = self.lanes[k].front() {
            if self.awaits(req, gen) {
                break;
            }
            self.lanes[k].pop_front();
        }
    }

    /// Keeps the timeout lane's memory in proportion to the requests in flight: an answered
    /// attempt's timeout waits in the lane until its time (a day, with `attempt_timeout=24h`),
    /// so a storm of fast answers would pile up one entry per attempt. Past twice the requests
    /// in flight (and a floor), the answered ones behind the front go at once. The front stays
    /// (it is the event queue's head); what goes would have been skipped or ignored when due,
    /// so the run is the same event for event.
    pub(super) fn compact_timeouts(&mut self, k: usize) {
        let len = self.lanes[k].len();
        if k != LANE_TIMEOUT || len <= self.compact_at || len <= 2 * self.reqs.capacity() {
            return;
        }
        let mut lane = core::mem::take(&mut self.lanes[k]);
        let mut first = true;
        lane.retain(|&(_, ev)| {
            let keep = first
                || match ev {
                    Ev::Reply { req, gen, .. } => self.awaits(req, gen),
                    Ev::AtServer(_)
                    | Ev::Served(_)
                    | Ev::Arrive
                    | Ev::Send(_)
                    | Ev::Tick(_)
                    | Ev::Deliver
                    | Ev::Lane(_)
                    | Ev::Spike
                    | Ev::Token(_)
                    | Ev::User(_)
                    | Ev::Hedge { .. } => true,
                };
            first = false;
            keep
        });
        // The next compaction waits until the lane has doubled again: amortised O(1) a push.
        self.compact_at = 2 * lane.len() + 4096;
        self.lanes[k] = lane;
    }

    /// Schedules `ev` at `t` in lane `k`: behind the lane's last event when it is not earlier
    /// (the usual case: a fixed delay after events handled in time order), else in the event
    /// queue. A lane's front is one of the event queue's heads (beside its heap, no sift), so
    /// the heap stays small however many requests are in flight.
    ///
    /// `ev` makes the event where it is stored: an event built first and then moved into the
    /// lane was read back in one wide load before its narrower stores had landed (a
    /// store-forwarding stall on every push, about 14% of a queue run).
    #[inline(always)]
    pub(super) fn push_lane(
        &mut self,
        k: usize,
        t: Micros,
        ev: impl FnOnce() -> Ev,
        q: &mut EventQueue<Ev>,
    ) {
        if self.lanes[k].back().is_some_and(|(b, _)| *b > t) {
            q.push(t, ev());
            return;
        }
        self.skip_answered(k);
        self.lanes[k].push_back((t, ev()));
        self.compact_timeouts(k);
        if !self.lanes_armed[k] {
            self.lanes_armed[k] = true;
            q.push_head(k, t, Ev::Lane(k as u8));
        }
    }

    /// Handles lane `K`'s events due at `now`, in order, and schedules its next front.
    ///
    /// One copy per lane: each copy's dispatch below is its own branch, which the processor
    /// predicts from that lane's events alone (the service and timeout lanes carry one kind).
    pub(super) fn fire_lane<const K: usize>(&mut self, now: Micros, q: &mut EventQueue<Ev>) {
        let k = K;
        // Armed while it runs: what it schedules in the lane joins the back.
        self.lanes_armed[k] = true;
        while let Some(&(t, ev)) = self.lanes[k].front() {
            if t > now {
                break;
            }
            self.lanes[k].pop_front();
            // A lane carries these three: calling their handlers here spares every lane
            // event a second dispatch through `handle`.
            match ev {
                Ev::AtServer(slot) => self.at_server(now, slot, q),
                Ev::Served(slot) => self.served(now, slot, q),
                Ev::Reply { req, gen, outcome } => self.reply(now, req, gen, outcome, q),
                Ev::Arrive
                | Ev::Send(_)
                | Ev::Tick(_)
                | Ev::Deliver
                | Ev::Lane(_)
                | Ev::Spike
                | Ev::Token(_)
                | Ev::User(_)
                | Ev::Hedge { .. } => self.handle(now, ev, q),
            }
        }
        self.skip_answered(k);
        self.lanes_armed[k] = match self.lanes[k].front() {
            Some(&(t, _)) => {
                q.push_head(k, t, Ev::Lane(k as u8));
                true
            }
            None => false,
        };
    }
}
