//! The event queue: a binary heap ordered by `(time, sequence)`.
//!
//! Two events at the same microsecond pop in the order they were pushed, so a run is a pure
//! function of its seed and parameters, with no dependence on heap internals.
//!
//! Beside the heap the queue keeps up to [`HEADS`] *head* events, one per lane of a model that
//! keeps its own time-ordered lanes (the storm's network, service and timeout lanes): the event
//! for a lane's front. A head is stamped with the same `(time, sequence)` key a push would give
//! it and is handed out in the same order as if it were in the heap, but arming and taking it
//! costs no sift. A queue server moves most of its events through lanes, so its heap holds
//! little more than the next arrival. An [`ExactLane`] keeps a key per event, so each of its
//! events, not only its front, comes out exactly where the heap would have handed it out.

use crate::retry::time::Micros;
use alloc::collections::{BinaryHeap, VecDeque};
use core::cmp::Ordering;

struct Entry<E> {
    key: u128, // time << 64 | sequence: one comparison orders by time, then by push order
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: the heap is a max-heap and we want the earliest first.
        other.key.cmp(&self.key)
    }
}

/// How many head events a queue keeps beside its heap.
pub const HEADS: usize = 4;

/// Pending events, earliest first; ties in push order.
///
/// [`EventQueue::take`] hands out the earliest event but leaves its slot in the heap; the next
/// push then overwrites that slot and sifts once, instead of a pop and a push sifting twice.
/// Most events schedule exactly one follow-up, so this halves the heap work; the order of events
/// is exactly the same as with pop and push.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    taken: bool, // the top entry has been handed out and is free to overwrite
    heads: [Option<Entry<E>>; HEADS],
    armed: u8, // bit k set while head k holds an event: most models never arm one
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            seq: 0,
            taken: false,
            heads: [const { None }; HEADS],
            armed: 0,
        }
    }
}

impl<E: Copy> EventQueue<E> {
    /// Hands out the earliest event; its slot is reused by the next push or freed by
    /// [`EventQueue::settle`].
    pub fn take(&mut self) -> Option<(Micros, E)> {
        self.settle();
        if let Some(due) = self.take_head() {
            return Some(due);
        }
        let top = self.heap.peek()?;
        let out = (Micros((top.key >> 64) as u64), top.event);
        self.taken = true;
        Some(out)
    }
}

impl<E> EventQueue<E> {
    /// The next push's key for `time`.
    fn key(&mut self, time: Micros) -> u128 {
        let key = (u128::from(time.0) << 64) | u128::from(self.seq);
        self.seq += 1;
        key
    }

    fn entry(&mut self, time: Micros, event: E) -> Entry<E> {
        Entry {
            key: self.key(time),
            event,
        }
    }

    /// Takes the head that is due before the heap's top, if one is.
    fn take_head(&mut self) -> Option<(Micros, E)> {
        let k = self.earliest_head()?;
        self.armed &= !(1 << k);
        self.heads[k]
            .take()
            .map(|e| (Micros((e.key >> 64) as u64), e.event))
    }

    /// The head, if any, that is due before the heap's top (keys are unique, so no tie).
    fn earliest_head(&self) -> Option<usize> {
        if self.armed == 0 {
            return None;
        }
        let mut best = self.heap.peek().map_or(u128::MAX, |e| e.key);
        let mut at = None;
        for (k, h) in self.heads.iter().enumerate() {
            if let Some(h) = h {
                if h.key < best {
                    best = h.key;
                    at = Some(k);
                }
            }
        }
        at
    }

    /// Schedules `event` at `time` as head `k` (below `HEADS`), in the same order a push
    /// would give it. A lane has at most one head: arming it again replaces it.
    pub fn push_head(&mut self, k: usize, time: Micros, event: E) {
        let entry = self.entry(time, event);
        self.arm(k, entry);
    }

    fn arm(&mut self, k: usize, entry: Entry<E>) {
        self.heads[k] = Some(entry);
        self.armed |= 1 << k;
    }

    /// Schedules `event` at `time` (never earlier than the event being handled).
    ///
    /// Inlined at every call, so the caller's event is stored as it is built: called, an
    /// event just built was read back in one wide load before its narrower stores had landed
    /// (a store-forwarding stall per push; the 2015 sweep runs about 5% faster without it).
    #[inline(always)]
    pub fn push(&mut self, time: Micros, event: E) {
        let entry = self.entry(time, event);
        if self.taken {
            self.taken = false;
            if let Some(mut top) = self.heap.peek_mut() {
                *top = entry; // sifts down when `top` drops
                return;
            }
        }
        self.heap.push(entry);
    }

    /// Frees the slot of a taken event that scheduled nothing.
    pub fn settle(&mut self) {
        if self.taken {
            self.taken = false;
            self.heap.pop();
        }
    }

    /// Takes the earliest event.
    pub fn pop(&mut self) -> Option<(Micros, E)> {
        self.settle();
        if let Some(due) = self.take_head() {
            return Some(due);
        }
        self.heap
            .pop()
            .map(|e| (Micros((e.key >> 64) as u64), e.event))
    }

    /// How many events are pending.
    pub fn len(&self) -> usize {
        self.heap.len() - usize::from(self.taken) + self.armed.count_ones() as usize
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every pending event.
    pub fn clear(&mut self) {
        self.heap.clear();
        self.taken = false;
        self.heads = [const { None }; HEADS];
        self.armed = 0;
    }
}

/// Events a model schedules in time order (each no earlier than the one before), kept beside
/// the event queue's heap: only the front is armed, as head `k`. Each event keeps the key a
/// push would have given it, so events come out exactly where the heap would have handed them
/// out, ties included; an event earlier than the lane's last goes to the heap instead.
///
/// When head `k` is taken (its event is the lane's `marker`), the model calls
/// [`ExactLane::take`] for the front event and handles it.
pub struct ExactLane<E> {
    k: usize,
    marker: E,
    events: VecDeque<(u128, E)>,
}

impl<E: Copy> ExactLane<E> {
    /// An empty lane on head `k` (below [`HEADS`]), armed with `marker`.
    pub fn new(k: usize, marker: E) -> Self {
        ExactLane {
            k,
            marker,
            events: VecDeque::new(),
        }
    }

    /// Schedules the event `event` makes at `time` (built where it is stored; see
    /// [`EventQueue::push`]).
    #[inline(always)]
    pub fn push(&mut self, q: &mut EventQueue<E>, time: Micros, event: impl FnOnce() -> E) {
        if self
            .events
            .back()
            .is_some_and(|(key, _)| (key >> 64) as u64 > time.0)
        {
            q.push(time, event());
            return;
        }
        let key = q.key(time);
        self.events.push_back((key, event()));
        if self.events.len() == 1 {
            q.arm(
                self.k,
                Entry {
                    key,
                    event: self.marker,
                },
            );
        }
    }

    /// The front event, due now (head `k` was just taken), and the next front armed.
    pub fn take(&mut self, q: &mut EventQueue<E>) -> Option<E> {
        let (_, event) = self.events.pop_front()?;
        if let Some(&(key, _)) = self.events.front() {
            q.arm(
                self.k,
                Entry {
                    key,
                    event: self.marker,
                },
            );
        }
        Some(event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retry::rng::Words;

    #[test]
    fn time_then_push_order() {
        let mut q = EventQueue::default();
        q.push(Micros(5), 'a');
        q.push(Micros(1), 'b');
        q.push(Micros(5), 'c');
        q.push(Micros(1), 'd');
        let order: alloc::vec::Vec<char> =
            core::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, ['b', 'd', 'a', 'c']);
    }

    /// Events armed as heads come out exactly where they would have come out of the heap.
    #[test]
    fn heads_keep_the_heap_order() {
        let mut a = EventQueue::default();
        let mut b = EventQueue::default();
        let mut rng = crate::Rng::from_seed(9);
        let (mut ta, mut tb) = (alloc::vec::Vec::new(), alloc::vec::Vec::new());
        let mut head_of = [None::<u64>; HEADS];
        let mut now = 0;
        for i in 0..2000u64 {
            let t = Micros(now + rng.below(20));
            let k = rng.below(HEADS as u64 + 2) as usize;
            if k < HEADS && head_of[k].is_none() {
                a.push_head(k, t, i);
                head_of[k] = Some(i);
            } else {
                a.push(t, i);
            }
            b.push(t, i);
            if i % 3 == 0 {
                let (Some(x), Some(y)) = (a.take(), b.take()) else {
                    panic!("both queues hold events");
                };
                now = x.0 .0;
                for h in head_of.iter_mut() {
                    if *h == Some(x.1) {
                        *h = None;
                    }
                }
                ta.push(x);
                tb.push(y);
            }
        }
        assert_eq!(a.len(), b.len());
        while let (Some(x), Some(y)) = (a.pop(), b.pop()) {
            ta.push(x);
            tb.push(y);
        }
        assert_eq!(ta, tb);
        assert!(a.is_empty() && b.is_empty());
    }

    /// Events pushed through an exact lane come out exactly where the heap would hand them
    /// out, ties in push order included, also when some are earlier than the lane's last.
    #[test]
    fn an_exact_lane_keeps_the_heap_order() {
        const MARK: u64 = u64::MAX;
        let mut a = EventQueue::default();
        let mut lane = ExactLane::new(1, MARK);
        let mut b = EventQueue::default();
        let mut rng = crate::Rng::from_seed(5);
        let (mut ta, mut tb) = (alloc::vec::Vec::new(), alloc::vec::Vec::new());
        let mut now = 0;
        let mut lane_pushes = 0;
        for i in 0..3000u64 {
            // Mostly a fixed delay (in order, many ties), sometimes a random one.
            let fixed = rng.below(4) != 0;
            let t = Micros(now + if fixed { 7 } else { rng.below(12) });
            if fixed || rng.below(2) == 0 {
                lane.push(&mut a, t, || i);
                lane_pushes += 1;
            } else {
                a.push(t, i);
            }
            b.push(t, i);
            if i % 2 == 0 {
                let x = match a.take() {
                    Some((t, MARK)) => (t, lane.take(&mut a).unwrap()),
                    other => other.unwrap(),
                };
                let y = b.take().unwrap();
                now = x.0 .0;
                ta.push(x);
                tb.push(y);
            }
        }
        while let Some(x) = a.pop() {
            let x = match x {
                (t, MARK) => (t, lane.take(&mut a).unwrap()),
                other => other,
            };
            ta.push(x);
            tb.push(b.pop().unwrap());
        }
        assert!(b.is_empty() && lane.take(&mut a).is_none());
        assert!(lane_pushes > 2000);
        assert_eq!(ta.len(), 3000);
        assert_eq!(ta, tb);
    }

    /// take + push gives exactly the order pop + push gives.
    #[test]
    fn take_reuses_the_slot_without_changing_the_order() {
        let mut a = EventQueue::default();
        let mut b = EventQueue::default();
        let mut rng = crate::Rng::from_seed(3);
        for i in 0..50u64 {
            let t = Micros(rng.below(100));
            a.push(t, i);
            b.push(t, i);
        }
        let (mut ta, mut tb) = (alloc::vec::Vec::new(), alloc::vec::Vec::new());
        for step in 0..400u64 {
            let (Some(x), Some(y)) = (a.take(), b.pop()) else {
                break;
            };
            ta.push(x);
            tb.push(y);
            let n = step % 3; // schedule 0, 1 or 2 follow-ups
            for k in 0..n {
                let t = Micros(x.0 .0 + rng.below(50));
                a.push(t, 1000 + step * 3 + k);
                b.push(t, 1000 + step * 3 + k);
            }
        }
        assert_eq!(ta, tb);
        assert_eq!(a.len(), b.len());
    }
}
