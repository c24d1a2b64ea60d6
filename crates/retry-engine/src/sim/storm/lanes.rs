//! The storm's lanes: events that come a fixed delay after what schedules them (a network hop,
//! a service, a read timeout), kept in order in queues of their own, with timeouts whose
//! attempt was already answered skipped or compacted away.

use super::hedge;
use super::{Ev, Req, AWAITING, LANE_TIMEOUT, LIVE};
use crate::retry::time::Micros;
use crate::sim::queue::EventQueue;
use crate::sim::slab::Slab;
use alloc::collections::VecDeque;

/// Which attempts their clients still wait for: what a lane reads to drop answered timeouts.
#[derive(Clone, Copy)]
pub(super) struct Awaits<'a> {
    pub(super) reqs: &'a Slab<Req>,
    pub(super) hedge: bool,
}

impl Awaits<'_> {
    /// Whether attempt `gen` of request `req` still matters: its client waits for its answer.
    pub(super) fn awaits(&self, req: u32, gen: u32) -> bool {
        let r = &self.reqs[req];
        if self.hedge {
            return hedge::out_has(r, gen);
        }
        r.has(LIVE) && r.gen == gen && r.has(AWAITING)
    }
}

/// Events of the queue and flaky servers that come a fixed delay after what schedules them,
/// in time order: arrivals at the server and answers (`LANE_NET`), service completions
/// (`LANE_SERVICE`, in order whenever service times are constant) and read timeouts
/// (`LANE_TIMEOUT`, in order whenever attempts have the same timeout).
pub(super) struct Lanes {
    lanes: [VecDeque<(Micros, Ev)>; 3],
    armed: [bool; 3],
    // The timeout lane's length that triggers its next compaction (`compact_timeouts`).
    compact_at: usize,
}

impl Lanes {
    pub(super) fn new() -> Lanes {
        Lanes {
            lanes: [VecDeque::new(), VecDeque::new(), VecDeque::new()],
            armed: [false; 3],
            compact_at: 4096,
        }
    }

    /// Drops the timeouts at the front of their lane whose attempt has been answered, so the
    /// lane holds about as many as are out and schedules only one that matters.
    fn skip_answered(&mut self, k: usize, aw: Awaits<'_>) {
        if k != LANE_TIMEOUT {
            return;
        }
        while let Some(&(_, Ev::Reply { req, gen, .. })) = self.lanes[k].front() {
            if aw.awaits(req, gen) {
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
    fn compact_timeouts(&mut self, k: usize, aw: Awaits<'_>) {
        let len = self.lanes[k].len();
        if k != LANE_TIMEOUT || len <= self.compact_at || len <= 2 * aw.reqs.capacity() {
            return;
        }
        let mut first = true;
        self.lanes[k].retain(|&(_, ev)| {
            let keep = first
                || match ev {
                    Ev::Reply { req, gen, .. } => aw.awaits(req, gen),
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
        self.compact_at = 2 * self.lanes[k].len() + 4096;
    }

    /// Schedules `ev` at `t` in lane `k`: behind the lane's last event when it is not earlier
    /// (the usual case: a fixed delay after events handled in time order), else in the event
    /// queue. A lane's front is one of the event queue's heads (beside its heap, no sift), so
    /// the heap stays small however many requests are in flight.
    ///
    /// `ev` makes the event where it is stored: an event built first and then moved into the
    /// lane was read back in one wide load before its narrower stores had landed (a
    /// store-forwarding stall on every push).
    #[inline(always)]
    pub(super) fn push(
        &mut self,
        k: usize,
        t: Micros,
        ev: impl FnOnce() -> Ev,
        q: &mut EventQueue<Ev>,
        aw: Awaits<'_>,
    ) {
        if self.lanes[k].back().is_some_and(|(b, _)| *b > t) {
            q.push(t, ev());
            return;
        }
        self.skip_answered(k, aw);
        self.lanes[k].push_back((t, ev()));
        self.compact_timeouts(k, aw);
        if !self.armed[k] {
            self.armed[k] = true;
            q.push_head(k, t, Ev::Lane(k as u8));
        }
    }

    /// Lane `k` begins to fire: what is scheduled in it while it does joins its back.
    pub(super) fn firing(&mut self, k: usize) {
        self.armed[k] = true;
    }

    /// The front of lane `k` when it is due at `now`, taken off the lane.
    pub(super) fn pop_due(&mut self, k: usize, now: Micros) -> Option<Ev> {
        match self.lanes[k].front() {
            Some(&(t, ev)) if t <= now => {
                self.lanes[k].pop_front();
                Some(ev)
            }
            _ => None,
        }
    }

    /// Lane `k` has fired: its next front that matters, if any, becomes an event queue head.
    pub(super) fn rearm(&mut self, k: usize, q: &mut EventQueue<Ev>, aw: Awaits<'_>) {
        self.skip_answered(k, aw);
        self.armed[k] = match self.lanes[k].front() {
            Some(&(t, _)) => {
                q.push_head(k, t, Ev::Lane(k as u8));
                true
            }
            None => false,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::storm::LANE_NET;

    #[test]
    fn a_lane_keeps_its_events_in_time_order_and_only_its_front_in_the_queue() {
        let reqs = Slab::default();
        let aw = Awaits {
            reqs: &reqs,
            hedge: false,
        };
        let mut q = EventQueue::default();
        let mut lanes = Lanes::new();
        lanes.push(LANE_NET, Micros(10), || Ev::AtServer(1), &mut q, aw);
        lanes.push(LANE_NET, Micros(20), || Ev::AtServer(2), &mut q, aw);
        // An event due before the lane's back cannot join it: it goes to the event queue.
        lanes.push(LANE_NET, Micros(15), || Ev::AtServer(3), &mut q, aw);
        assert_eq!(q.len(), 2, "the lane's front and the out-of-order event");
        assert!(matches!(q.pop(), Some((Micros(10), Ev::Lane(_)))));
        assert!(lanes.pop_due(LANE_NET, Micros(9)).is_none());
        assert!(matches!(
            lanes.pop_due(LANE_NET, Micros(10)),
            Some(Ev::AtServer(1))
        ));
        assert!(
            lanes.pop_due(LANE_NET, Micros(10)).is_none(),
            "20 is not due at 10"
        );
        lanes.rearm(LANE_NET, &mut q, aw);
        assert!(matches!(q.pop(), Some((Micros(15), Ev::AtServer(3)))));
        assert!(matches!(q.pop(), Some((Micros(20), Ev::Lane(_)))));
        assert!(matches!(
            lanes.pop_due(LANE_NET, Micros(20)),
            Some(Ev::AtServer(2))
        ));
        lanes.rearm(LANE_NET, &mut q, aw);
        assert!(q.pop().is_none(), "an empty lane is not armed");
    }
}
