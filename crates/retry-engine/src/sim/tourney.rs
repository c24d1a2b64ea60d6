//! A tournament (loser) tree: the event queue of a model with exactly one pending event per
//! actor, as the `occ` scenario has (each client waits on one read or one write).
//!
//! Why not the [`super::EventQueue`] heap? Handling an event and scheduling its follow-up costs
//! the heap a sift from the root, and each step of that sift loads the child its last comparison
//! chose: a chain of dependent loads. In a tournament tree each actor owns a leaf, and replacing
//! a leaf's event replays only the matches on the fixed path from that leaf to the root, whose
//! loads do not wait on the comparisons. The keys are the heap's, `(time, sequence)` with the
//! sequence counted the same way (one per scheduled event, the first events in order), and keys
//! are unique, so events come out in exactly the heap's order and every run's numbers are the
//! same; `occ`'s tests check it event for event.
//!
//! ```
//! use retry_model::sim::Tourney;
//! use retry_model::Micros;
//! let mut t = Tourney::new(vec![(Micros(30), 'a'), (Micros(10), 'b'), (Micros(10), 'c')]);
//! assert_eq!(t.peek(), Some((Micros(10), 'b', 1)));
//! t.replace(1, Some((Micros(40), 'd'))); // leaf 1 schedules its next event
//! assert_eq!(t.peek(), Some((Micros(10), 'c', 2)));
//! t.replace(2, None); // leaf 2 is done
//! assert_eq!(t.peek(), Some((Micros(30), 'a', 0)));
//! ```

use crate::retry::time::Micros;
use alloc::vec::Vec;

/// A leaf's key when it holds no event.
const IDLE: u128 = u128::MAX;

/// One pending event per leaf, earliest first; ties in the order they were scheduled.
pub struct Tourney<E> {
    // keys[leaf] = time << 64 | sequence, or IDLE; the leaves padded to a power of two.
    keys: Vec<u128>,
    // events[leaf]: its pending event while its key is not IDLE (a leftover otherwise).
    events: Vec<E>,
    // losers[node] for the internal nodes 1..leaves: the leaf that lost the match there.
    losers: Vec<u32>,
    winner: u32,
    // keys[winner], kept beside it: the next event's time is known without a load.
    top: u128,
    seq: u64,
}

impl<E: Copy> Tourney<E> {
    /// A tree with one leaf per first event, leaf `i` holding `first[i]`, scheduled in that
    /// order.
    pub fn new(first: Vec<(Micros, E)>) -> Self {
        let n = first.len().next_power_of_two();
        let events = match first.first() {
            Some(&(_, e)) => alloc::vec![e; n],
            None => Vec::new(),
        };
        let mut t = Tourney {
            keys: alloc::vec![IDLE; n],
            events,
            losers: alloc::vec![0; n],
            winner: 0,
            top: IDLE,
            seq: 0,
        };
        for (leaf, (time, event)) in first.into_iter().enumerate() {
            t.keys[leaf] = t.key(time);
            t.events[leaf] = event;
        }
        t.build();
        t
    }

    /// The next key for `time`, as [`super::EventQueue`] numbers its pushes.
    fn key(&mut self, time: Micros) -> u128 {
        let key = (u128::from(time.0) << 64) | u128::from(self.seq);
        self.seq += 1;
        key
    }

    /// Plays every match from the leaves up.
    fn build(&mut self) {
        let n = self.keys.len();
        let mut won: Vec<u32> = alloc::vec![0; n];
        let at = |won: &[u32], node: usize| -> u32 {
            if node >= n {
                (node - n) as u32
            } else {
                won[node]
            }
        };
        for node in (1..n).rev() {
            let (a, b) = (at(&won, 2 * node), at(&won, 2 * node + 1));
            let (w, l) = if self.keys[b as usize] < self.keys[a as usize] {
                (b, a)
            } else {
                (a, b)
            };
            won[node] = w;
            self.losers[node] = l;
        }
        self.winner = if n > 1 { won[1] } else { 0 };
        self.top = self.keys[self.winner as usize];
    }

    /// The earliest event, its time and its leaf; `None` once no leaf holds one.
    #[inline(always)]
    pub fn peek(&self) -> Option<(Micros, E, usize)> {
        let (w, key) = (self.winner as usize, self.top);
        if key == IDLE {
            return None;
        }
        Some((Micros((key >> 64) as u64), *self.events.get(w)?, w))
    }

    /// Gives `leaf` its next event (`None`: it is done), and replays its path to the root.
    #[inline(always)]
    pub fn replace(&mut self, leaf: usize, next: Option<(Micros, E)>) {
        let key = match next {
            Some((time, event)) => {
                self.events[leaf] = event;
                self.key(time)
            }
            None => IDLE,
        };
        self.keys[leaf] = key;
        let (mut w, mut wk) = (leaf as u32, key);
        let mut node = (leaf + self.keys.len()) >> 1;
        while node >= 1 {
            let l = self.losers[node];
            let lk = self.keys[l as usize];
            // Written as selects, so the match compiles to conditional moves.
            let swap = lk < wk;
            self.losers[node] = if swap { w } else { l };
            w = if swap { l } else { w };
            wk = if swap { lk } else { wk };
            node >>= 1;
        }
        self.winner = w;
        self.top = wk;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retry::rng::Words;
    use crate::sim::EventQueue;

    /// Random follow-ups (some leaves finishing) come out of the tree exactly as out of the
    /// event heap, ties included.
    #[test]
    fn the_tree_hands_out_events_in_the_heaps_order() {
        for leaves in [1usize, 2, 3, 7, 64, 100] {
            let mut rng = crate::retry::rng::Rng::stream(5, leaves as u64);
            // Coarse times, so many events share a microsecond.
            let first: Vec<(Micros, usize)> =
                (0..leaves).map(|c| (Micros(rng.below(5)), c)).collect();
            let mut heap = EventQueue::default();
            for (t, e) in &first {
                heap.push(*t, *e);
            }
            let mut tree = Tourney::new(first);
            let mut handled = 0;
            while let Some((t, e, leaf)) = tree.peek() {
                assert_eq!(heap.pop(), Some((t, e)), "{leaves} leaves, event {handled}");
                assert_eq!(leaf, e);
                let next = (rng.below(10) > 0).then(|| (Micros(t.0 + rng.below(4)), e));
                if let Some((nt, ne)) = next {
                    heap.push(nt, ne);
                }
                tree.replace(leaf, next);
                handled += 1;
            }
            assert!(heap.is_empty(), "{leaves} leaves");
            assert!(handled >= leaves * 3, "{leaves} leaves: {handled} events");
        }
    }

    #[test]
    fn an_empty_tree_has_nothing_to_hand_out() {
        let t: Tourney<u8> = Tourney::new(Vec::new());
        assert_eq!(t.peek(), None);
    }
}
