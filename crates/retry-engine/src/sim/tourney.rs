//! A tournament (winner) tree: the event queue of a model with exactly one pending event per
//! actor, as the `occ` scenario has (each client waits on one read or one write).
//!
//! Why not the [`super::EventQueue`] heap? Handling an event and scheduling its follow-up costs
//! the heap a sift from the root, and each step of that sift loads the child its last comparison
//! chose: a chain of dependent loads. In a tournament tree each actor owns a leaf, and replacing
//! a leaf's event replays only the matches on the fixed path from that leaf to the root, whose
//! loads do not wait on the comparisons. The keys order events as the heap's `(time, sequence)`
//! does, with the sequence counted the same way (one per scheduled event, the first events in
//! order), and keys are unique, so events come out in exactly the heap's order and every run's
//! numbers are the same; `occ`'s tests check it event for event. A loop that knows the tree's
//! depth at compile time calls [`Tourney::peek_at`] and [`Tourney::replace_at`] with it.
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
//! assert_eq!(t.depth(), 2); // four leaves, three of them used
//! t.replace_at::<2>(0, None);
//! assert_eq!(t.peek_at::<2>(), Some((Micros(40), 'd', 1)));
//! ```

use crate::retry::time::Micros;
use alloc::vec::Vec;

/// Bits of a key that number the pushes (above the leaf's bits, below the time's).
#[cfg(not(test))]
const SEQ_BITS: u32 = 24;
/// Smaller in the unit tests, so that renumbering happens within a short run (yet enough for
/// 2^15 leaves, one past the deepest tree `OccRun` is compiled for).
#[cfg(test)]
const SEQ_BITS: u32 = 15;
const SEQ_MASK: u64 = (1 << SEQ_BITS) - 1;
/// The most leaves a tree holds: 2^20, which leaves a key at least 20 bits of time, and fewer
/// first events than sequence numbers (so the first keys need no renumbering).
const MAX_LEAF_BITS: u32 = 20;
/// A leaf's key when it holds no event: above every event's key.
const IDLE: u64 = u64::MAX;

/// The time field of an event at least this far past `base` ("far": its place among other
/// far events is not kept until the tree is rebased): the time field's top value but one.
#[cfg(not(test))]
fn far(leaf_bits: u32) -> u64 {
    (1 << (64 - SEQ_BITS - leaf_bits)) - 2
}

/// About a second in the unit tests, so that far events and rebasing happen within a short run.
#[cfg(test)]
fn far(_leaf_bits: u32) -> u64 {
    1 << 20
}

/// One pending event per leaf, earliest first; ties in the order they were scheduled.
///
/// A key is one `u64`, `(time - base) << (24 + L) | sequence << L | leaf`, with `L` bits for
/// the leaf (the leaf count rounded up to a power of 2). A match is one compare, and a node
/// keeps the winner's key: the key names its leaf, so the root names the next event's. Measured
/// on the 2015 sweep, the key with the leaf inside took a third fewer instructions per level
/// than a leaf number per node and a key per leaf.
///
/// Why winners and not losers: replaying a path in a loser tree plays the new key against each
/// node's loser and keeps both the lower key (going on up) and the higher (staying), two
/// conditional moves a level, one of them two micro-operations on Intel cores; a winner tree
/// plays the new key against the sibling's winner and keeps the lower only, one move and one
/// micro-operation, for a store of the leaf's key. The 2015 sweep took 5% less time this way
/// (2% fewer instructions). Each match is branch-free whatever the build's flags: see `play`.
///
/// Order is what counts, so the fields are kept small without changing it: when the sequence
/// runs out, the pending keys are renumbered in their order; an event 2^(40 - L) µs (an hour
/// with 256 leaves, 67 s with 16,384) or more past `base` is "far", and when the earliest
/// event is far, `base` moves up to it and the tree is rebuilt from the exact times
/// (`times`). Both rebuild the tree, in time proportional to the leaves.
pub struct Tourney<E> {
    // times[leaf]: its pending event's exact time while its key is far (a leftover otherwise:
    // a key that is not far holds its time exactly).
    times: Vec<u64>,
    // events[leaf]: its pending event while its key is not IDLE (a leftover otherwise).
    events: Vec<E>,
    // nodes[leaves + leaf]: the leaf's key; nodes[node] for the internal nodes 1..leaves:
    // the key that won the match there, the lower of its two children's.
    nodes: Vec<u64>,
    // The key that won every match: the next event's.
    top: u64,
    leaf_bits: u32,
    // The bits of a key below its time field (SEQ_BITS + leaf_bits), and the leaf's mask.
    low: u32,
    leaf_mask: u64,
    far: u64,
    // The lowest far key: `far << low`.
    far_top: u64,
    base: u64,
    seq: u64,
}

impl<E: Copy> Tourney<E> {
    /// A tree with one leaf per first event, leaf `i` holding `first[i]`, scheduled in that
    /// order; at most 2^20 of them.
    pub fn new(first: Vec<(Micros, E)>) -> Self {
        let n = first.len().next_power_of_two();
        let leaf_bits = n.trailing_zeros();
        assert!(
            leaf_bits <= MAX_LEAF_BITS,
            "a tourney holds at most 2^20 leaves"
        );
        let events = match first.first() {
            Some(&(_, e)) => alloc::vec![e; n],
            None => Vec::new(),
        };
        let mut t = Tourney {
            times: alloc::vec![0; n],
            events,
            nodes: alloc::vec![IDLE; 2 * n],
            top: IDLE,
            leaf_bits,
            low: SEQ_BITS + leaf_bits,
            leaf_mask: (1 << leaf_bits) - 1,
            far: far(leaf_bits),
            far_top: far(leaf_bits) << (SEQ_BITS + leaf_bits),
            base: 0,
            seq: 0,
        };
        for (leaf, (time, event)) in first.into_iter().enumerate() {
            t.nodes[n + leaf] = t.key::<0, true>(time, leaf);
            t.events[leaf] = event;
        }
        t.play_all();
        t.settle();
        t
    }

    /// The next key for `time` at `leaf`, with the sequence [`super::EventQueue`] would give
    /// it; the exact time is kept aside when the key is far. `D` is the tree's depth when it
    /// is known at compile time, or 0 (see [`Tourney::replace_at`]).
    /// `CHECK` false: the caller has made room (see [`Tourney::room`]).
    #[inline(always)]
    fn key<const D: u32, const CHECK: bool>(&mut self, time: Micros, leaf: usize) -> u64 {
        if CHECK && self.seq == SEQ_MASK {
            self.renumber();
        }
        debug_assert!(self.seq < SEQ_MASK, "no room: Tourney::room was not asked");
        // No event is earlier than `base` (the earliest pending one's time or before, and an
        // event is no earlier than the one it follows); were one, it would wrap to far and
        // keep its exact time aside.
        let mut since = time.0.wrapping_sub(self.base);
        if since >= self.far {
            self.times[leaf] = time.0;
            since = self.far;
        }
        let leaf_bits = if D == 0 { self.leaf_bits } else { D };
        let key = (((since << SEQ_BITS) | self.seq) << leaf_bits) | leaf as u64;
        self.seq += 1;
        key
    }

    /// Numbers the pending keys' sequences 0, 1, ... in their order, which keeps every
    /// match's outcome, and plays the matches again. Each key's number is the count of pending
    /// keys numbered below it: a quadratic count rather than a sort, since it runs once in
    /// millions of pushes and a sort would add about 8 KB to the page's wasm.
    #[cold]
    fn renumber(&mut self) {
        let lb = self.leaf_bits;
        let mut keys = self.leaf_keys();
        let pending: Vec<Option<u64>> = (keys.iter())
            .map(|k| (*k != IDLE).then_some((k >> lb) & SEQ_MASK))
            .collect();
        let rank = |s: u64| pending.iter().flatten().filter(|&&o| o < s).count() as u64;
        for (k, p) in keys.iter_mut().zip(&pending) {
            if let Some(s) = p {
                *k = (*k & !(SEQ_MASK << lb)) | (rank(*s) << lb);
            }
        }
        self.seq = pending.iter().flatten().count() as u64;
        self.build(&keys);
    }

    /// Every leaf's key, IDLE for a leaf without an event.
    fn leaf_keys(&self) -> Vec<u64> {
        self.nodes[self.times.len()..].to_vec()
    }

    /// Moves `base` up to the earliest event once it is far, and rebuilds (after a
    /// `Cursor` has stopped for it).
    #[inline(always)]
    pub fn settle(&mut self) {
        // One compare on the hot path: IDLE is above every far key too.
        if self.top >= self.far_top && self.top != IDLE {
            self.rebase();
        }
    }

    /// Every pending event is far: `base` becomes the earliest one's time, every key is
    /// written again from its exact time, and every match is played again.
    #[cold]
    fn rebase(&mut self) {
        let (low, far) = (self.low, self.far);
        let mut keys = self.leaf_keys();
        for (k, t) in keys.iter().zip(self.times.iter_mut()) {
            if *k != IDLE && *k >> low < far {
                *t = self.base + (*k >> low);
            }
        }
        let pending = |k: &u64| *k != IDLE;
        let times = keys.iter().zip(&self.times);
        let Some(base) = times.filter(|(k, _)| pending(k)).map(|(_, t)| *t).min() else {
            return;
        };
        self.base = base;
        for (k, t) in keys.iter_mut().zip(&self.times) {
            if pending(k) {
                *k = ((t - base).min(far) << low) | (*k & ((1 << low) - 1));
            }
        }
        self.build(&keys);
    }

    /// Plays every match from the leaves up, leaf `i` holding `keys[i]`.
    fn build(&mut self, keys: &[u64]) {
        let n = keys.len();
        self.nodes[n..].copy_from_slice(keys);
        self.play_all();
    }

    /// Plays every match from the leaves up, over the leaves' keys in the tree.
    fn play_all(&mut self) {
        let n = self.times.len();
        for node in (1..n).rev() {
            self.nodes[node] = self.nodes[2 * node].min(self.nodes[2 * node + 1]);
        }
        self.top = match n {
            0 => IDLE,
            _ => self.nodes[1],
        };
    }

    /// The earliest event, its time and its leaf; `None` once no leaf holds one.
    #[inline(always)]
    pub fn peek(&self) -> Option<(Micros, E, usize)> {
        self.peek_at::<0>()
    }

    /// [`Tourney::peek`] for a tree of depth `D` (see [`Tourney::replace_at`]).
    #[inline(always)]
    pub fn peek_at<const D: u32>(&self) -> Option<(Micros, E, usize)> {
        let key = self.top;
        if key == IDLE {
            return None;
        }
        let (low, mask) = match D {
            0 => (self.low, self.leaf_mask),
            _ => (SEQ_BITS + D, (1 << D) - 1),
        };
        let w = (key & mask) as usize;
        let time = self.base + (key >> low);
        Some((Micros(time), *self.events.get(w)?, w))
    }

    /// The tree's depth: it has 2^depth leaves.
    pub fn depth(&self) -> u32 {
        self.leaf_bits
    }

    /// Gives `leaf`, the one [`Tourney::peek`] gave, its next event (`None`: it is done), no
    /// earlier than the one it had, and replays its path to the root.
    #[inline(always)]
    pub fn replace(&mut self, leaf: usize, next: Option<(Micros, E)>) {
        self.replace_at::<0>(leaf, next);
    }

    /// [`Tourney::replace`] for a tree of depth `D`, known at compile time (`D` 0: any depth,
    /// read at run time; any other `D` must be [`Tourney::depth`], checked in debug builds).
    /// With the depth a constant, the path's levels are a loop the compiler writes out, every
    /// node's index is known to be in the tree (no bounds checks), and the key's shifts are
    /// constants: a loop over the events monomorphised per depth (as
    /// [`super::occ::OccRun`] is on native targets) takes about 10 instructions less an event
    /// than one that reads the depth.
    #[inline(always)]
    pub fn replace_at<const D: u32>(&mut self, leaf: usize, next: Option<(Micros, E)>) {
        self.replace_in::<D, true>(leaf, next);
    }

    /// How many events [`Tourney::replace_within`] can be given before the keys' sequence
    /// numbers run out, renumbering first if they have (then it is 2^24 less the pending
    /// events, over 15 million). A loop that asks once and stays within it saves
    /// [`Tourney::replace_at`]'s check on every event.
    pub fn room(&mut self) -> u64 {
        if self.seq == SEQ_MASK {
            self.renumber();
        }
        SEQ_MASK - self.seq
    }

    /// [`Tourney::replace_at`] without the check for room: one of at most [`Tourney::room`]
    /// calls since it was asked (checked in debug builds).
    #[inline(always)]
    pub fn replace_within<const D: u32>(&mut self, leaf: usize, next: Option<(Micros, E)>) {
        self.replace_in::<D, false>(leaf, next);
    }

    #[inline(always)]
    fn replace_in<const D: u32, const CHECK: bool>(
        &mut self,
        leaf: usize,
        next: Option<(Micros, E)>,
    ) {
        debug_assert!(
            D == 0 || D == self.leaf_bits,
            "depth {D} for a tree of {}",
            self.leaf_bits
        );
        let key = match next {
            Some((time, event)) => {
                self.events[leaf] = event;
                self.key::<D, CHECK>(time, leaf)
            }
            None => IDLE,
        };
        // The slice held in a local: through `self`, every store to a node made the compiler
        // load the vector's pointer and length again for the next match.
        let nodes = &mut self.nodes[..];
        self.top = match D {
            0 => replay_any(nodes, leaf, key),
            _ => replay::<D>(nodes, leaf, key),
        };
        self.settle();
    }
}

impl<E: Copy> Tourney<E> {
    /// The tree as a `Cursor` for a loop of `Cursor::replace` within the [`Tourney::room`]
    /// just asked; `None` unless `D` is the tree's depth (and not 0).
    #[inline(always)]
    pub fn cursor<const D: u32>(&mut self) -> Option<Cursor<'_, E, D>> {
        if D == 0 || D != self.leaf_bits {
            return None;
        }
        let n = 1 << D;
        let Tourney {
            times,
            events,
            nodes,
            top,
            far,
            far_top,
            base,
            seq,
            ..
        } = self;
        Some(Cursor {
            nodes: nodes.get_mut(..2 * n)?,
            events: events.get_mut(..n)?,
            times: times.get_mut(..n)?,
            key: *top,
            base: *base,
            seq: *seq << D,
            far: *far,
            far_top: *far_top,
            top,
            last_seq: seq,
        })
    }
}

/// A tree of depth `D` held for a loop over its events: its slices cut to their length, a
/// constant, and the next key, the sequence and the base in locals, so that a loop keeps them
/// in registers and indexes with no bounds checks, where the tree's own methods reload each
/// from the tree after every store to a node (the compiler cannot tell the nodes from the
/// tree's fields): about 10 instructions an event fewer, 4% of the 2015 sweep's. The key and
/// the sequence are written back when it is dropped.
pub struct Cursor<'t, E, const D: u32> {
    nodes: &'t mut [u64],
    events: &'t mut [E],
    times: &'t mut [u64],
    key: u64,
    base: u64,
    // The next sequence number, shifted up past the leaf's bits.
    seq: u64,
    far: u64,
    far_top: u64,
    top: &'t mut u64,
    last_seq: &'t mut u64,
}

impl<E: Copy, const D: u32> Cursor<'_, E, D> {
    /// [`Tourney::peek_at`].
    #[inline(always)]
    pub fn peek(&self) -> Option<(Micros, E, usize)> {
        (self.key != IDLE).then(|| self.peek_live())
    }

    /// Whether the earliest event is one and not far: [`Cursor::peek_live`] may be asked.
    #[inline(always)]
    pub fn live(&self) -> bool {
        // IDLE is above every far key too.
        self.key < self.far_top
    }

    /// [`Cursor::peek`] while [`Cursor::live`], with no check: a loop that goes on while
    /// [`Cursor::replace`] says it is live asks once per event where `peek` asked twice.
    #[inline(always)]
    pub fn peek_live(&self) -> (Micros, E, usize) {
        let leaf = (self.key & ((1 << D) - 1)) as usize;
        let time = self.base + (self.key >> (SEQ_BITS + D));
        (Micros(time), self.events[leaf], leaf)
    }

    /// [`Tourney::replace_within`]; whether the cursor is still [`Cursor::live`]: `false`
    /// once no leaf has an event, or when the earliest event is now far, and the tree must be
    /// [`Tourney::settle`]d (after this cursor is dropped) before going on.
    #[inline(always)]
    pub fn replace(&mut self, leaf: usize, next: Option<(Micros, E)>) -> bool {
        let leaf = leaf & ((1 << D) - 1);
        debug_assert!(
            self.seq >> D < SEQ_MASK,
            "no room: Tourney::room was not asked"
        );
        let key = match next {
            Some((time, event)) => {
                if let Some(e) = self.events.get_mut(leaf) {
                    *e = event;
                }
                let mut since = time.0.wrapping_sub(self.base);
                if since >= self.far {
                    if let Some(t) = self.times.get_mut(leaf) {
                        *t = time.0;
                    }
                    since = self.far;
                }
                let key = (since << (SEQ_BITS + D)) | self.seq | leaf as u64;
                self.seq += 1 << D;
                key
            }
            None => IDLE,
        };
        self.key = replay::<D>(self.nodes, leaf, key);
        self.live()
    }
}

impl<E, const D: u32> Drop for Cursor<'_, E, D> {
    fn drop(&mut self) {
        *self.top = self.key;
        *self.last_seq = self.seq >> D;
    }
}

/// Plays the matches on the path from `leaf` to the root of a tree of 2^D leaves, for its new
/// `key`; gives the winning key. Over a slice of the tree's length, a constant, every node's
/// index is known to be in it: a match is a load of the sibling, a compare, a move and a
/// store of the winner.
#[inline(always)]
fn replay<const D: u32>(nodes: &mut [u64], leaf: usize, mut key: u64) -> u64 {
    let Some(nodes) = nodes.get_mut(..2 << D) else {
        return replay_any(nodes, leaf, key);
    };
    let path = (leaf & ((1 << D) - 1)) | (1 << D);
    nodes[path] = key;
    // A half-open range: over `1..=D` the compiler wrote the loop out only up to 8 levels, and
    // from 9 (257 clients and more) kept a loop with a bounds check, twice the instructions a
    // level (25% more an event at 300 and at 1,000 clients, by callgrind).
    for level in 0..D {
        key = play(nodes[(path >> level) ^ 1], key);
        nodes[path >> (level + 1)] = key;
    }
    key
}

/// One match: the lower key wins, without a branch ([`crate::arch::lower_key`]).
#[inline(always)]
fn play(sibling: u64, key: u64) -> u64 {
    crate::arch::lower_key(sibling, key)
}

/// [`replay`] for any depth, read at run time (kept out of line: each place that replays
/// would otherwise carry a copy).
#[inline(never)]
fn replay_any(nodes: &mut [u64], leaf: usize, mut key: u64) -> u64 {
    let mut node = nodes.len() / 2 + leaf;
    nodes[node] = key;
    while node > 1 {
        key = play(nodes[node ^ 1], key);
        node >>= 1;
        nodes[node] = key;
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retry::rng::Words;
    use crate::sim::EventQueue;

    /// Random follow-ups (some leaves finishing) come out of a tree of `leaves` leaves exactly
    /// as out of the event heap, ties included, through [`Tourney::peek_at`] and
    /// [`Tourney::replace_at`] for depth `D` (0: any).
    fn heaps_order<const D: u32>(leaves: usize) {
        let mut rng = crate::retry::rng::Rng::stream(5, leaves as u64);
        // Coarse times, so many events share a microsecond.
        let first: Vec<(Micros, usize)> = (0..leaves).map(|c| (Micros(rng.below(5)), c)).collect();
        let mut heap = EventQueue::default();
        for (t, e) in &first {
            heap.push(*t, *e);
        }
        let mut tree = Tourney::new(first);
        assert!(D == 0 || D == tree.depth(), "{leaves} leaves, depth {D}");
        let mut handled = 0;
        while let Some((t, e, leaf)) = tree.peek_at::<D>() {
            assert_eq!(heap.pop(), Some((t, e)), "{leaves} leaves, event {handled}");
            assert_eq!(leaf, e);
            let next = (rng.below(10) > 0).then(|| (Micros(t.0 + rng.below(4)), e));
            if let Some((nt, ne)) = next {
                heap.push(nt, ne);
            }
            tree.replace_at::<D>(leaf, next);
            handled += 1;
        }
        assert!(heap.is_empty(), "{leaves} leaves");
        assert!(handled >= leaves * 3, "{leaves} leaves: {handled} events");
    }

    /// The heap's order at any depth read at run time, and at depths known at compile time
    /// (the ones `OccRun` is compiled for, 1 to 14, and a tree's full and part-full shapes).
    #[test]
    fn a_match_is_the_minimum_over_the_whole_range() {
        let edges = [
            0,
            1,
            2,
            u64::MAX,
            u64::MAX - 1,
            1 << 63,
            (1 << 63) - 1,
            12_345,
        ];
        for a in edges {
            for b in edges {
                assert_eq!(play(a, b), a.min(b), "{a} {b}");
            }
        }
        let mut r = crate::retry::rng::Rng::stream(9, 9);
        for _ in 0..10_000 {
            let (a, b) = (r.next_u64(), r.next_u64() >> (r.next_u64() % 64));
            assert_eq!(play(a, b), a.min(b));
            assert_eq!(play(b, a), a.min(b));
        }
    }

    #[test]
    fn the_tree_hands_out_events_in_the_heaps_order() {
        for leaves in [1usize, 2, 3, 7, 64, 100, 300, 1000, 5000, 9000, 17_000] {
            heaps_order::<0>(leaves);
        }
        heaps_order::<1>(2);
        heaps_order::<2>(3);
        heaps_order::<3>(7);
        heaps_order::<6>(64);
        heaps_order::<7>(100);
        heaps_order::<8>(190);
        heaps_order::<9>(300);
        heaps_order::<10>(1000);
        heaps_order::<13>(5000);
        heaps_order::<14>(9000);
    }

    /// Follow-ups up to ten times the far distance, ties and thousands of pushes: the tree
    /// renumbers its sequences and moves its base many times, and still hands out the heap's
    /// order.
    #[test]
    fn far_events_and_renumbering_keep_the_heaps_order() {
        let mut rng = crate::retry::rng::Rng::stream(8, 1);
        let far = far(0);
        let steps = [0, 1, 2, far / 2, far - 1, far, far + 1, 3 * far, 10 * far];
        let leaves = 50;
        let first: Vec<(Micros, usize)> = (0..leaves)
            .map(|c| (Micros(steps[rng.below(9) as usize]), c))
            .collect();
        let mut heap = EventQueue::default();
        for (t, e) in &first {
            heap.push(*t, *e);
        }
        let mut tree = Tourney::new(first);
        let (mut handled, mut rebased, mut renumbered) = (0u64, 0, 0);
        while let Some((t, e, leaf)) = tree.peek() {
            assert_eq!(heap.pop(), Some((t, e)), "event {handled}");
            let next = (handled < 300_000 || rng.below(20) > 0)
                .then(|| (Micros(t.0 + steps[rng.below(9) as usize]), e));
            if let Some((nt, ne)) = next {
                heap.push(nt, ne);
            }
            let (base, seq) = (tree.base, tree.seq);
            tree.replace(leaf, next);
            rebased += u32::from(tree.base != base);
            renumbered += u32::from(tree.seq < seq);
            handled += 1;
        }
        assert!(heap.is_empty());
        assert!(rebased > 100 && renumbered > 8, "{rebased} {renumbered}");
    }

    /// A loop that asks for room and then replaces within it (no check per event) gets the
    /// heap's order across many renumberings, and is never handed less room than it needs.
    #[test]
    fn replacing_within_the_room_asked_keeps_the_heaps_order() {
        let mut rng = crate::retry::rng::Rng::stream(8, 2);
        let first: Vec<(Micros, usize)> = (0..100).map(|c| (Micros(rng.below(50)), c)).collect();
        let mut heap = EventQueue::default();
        for (t, e) in &first {
            heap.push(*t, *e);
        }
        let mut tree = Tourney::new(first);
        let (mut room, mut asked, mut handled) = (0, 0, 0u64);
        while let Some((t, e, leaf)) = tree.peek_at::<7>() {
            assert_eq!(heap.pop(), Some((t, e)), "event {handled}");
            if room == 0 {
                room = tree.room();
                assert!(
                    room > 30_000,
                    "{room}: the sequence less the pending events"
                );
                asked += 1;
            }
            let next = (handled < 200_000).then(|| (Micros(t.0 + rng.below(40)), e));
            if let Some((nt, ne)) = next {
                heap.push(nt, ne);
            }
            tree.replace_within::<7>(leaf, next);
            room -= 1;
            handled += 1;
        }
        assert!(heap.is_empty());
        assert!(asked > 5, "renumbered {asked} times in {handled} events");
    }

    /// A loop through cursors, each within the room asked and stopped where the earliest
    /// event turns far (then the tree settles and a new cursor goes on), hands out the
    /// heap's order across far events, rebasing and renumbering; the cursor writes the next
    /// key and the sequence back.
    #[test]
    fn a_cursor_hands_out_events_in_the_heaps_order() {
        let mut rng = crate::retry::rng::Rng::stream(8, 3);
        let far = far(0);
        let steps = [0, 1, 2, far / 2, far - 1, far, far + 1, 3 * far];
        let first: Vec<(Micros, usize)> = (0..50)
            .map(|c| (Micros(steps[rng.below(8) as usize]), c))
            .collect();
        let mut heap = EventQueue::default();
        for (t, e) in &first {
            heap.push(*t, *e);
        }
        let mut tree = Tourney::new(first);
        assert!(tree.cursor::<5>().is_none() && tree.cursor::<0>().is_none());
        let (mut handled, mut stops, mut slices) = (0u64, 0, 0);
        let base = tree.base;
        loop {
            let room = tree.room().min(rng.below(5000) + 1);
            let Some(mut cursor) = tree.cursor::<6>() else {
                panic!("depth 6 for 50 leaves");
            };
            let mut done = true;
            assert_eq!(cursor.live(), cursor.peek().is_some(), "settled");
            for _ in 0..room {
                if !cursor.live() {
                    break;
                }
                let (t, e, leaf) = cursor.peek_live();
                done = false;
                assert_eq!(heap.pop(), Some((t, e)), "event {handled}");
                let next = (handled < 150_000 || rng.below(20) > 0)
                    .then(|| (Micros(t.0 + steps[rng.below(8) as usize]), e));
                if let Some((nt, ne)) = next {
                    heap.push(nt, ne);
                }
                handled += 1;
                if !cursor.replace(leaf, next) {
                    stops += 1;
                    break;
                }
            }
            drop(cursor);
            tree.settle();
            slices += 1;
            if done && tree.peek().is_none() {
                break;
            }
        }
        assert!(heap.is_empty());
        assert!(tree.base > base && stops > 100, "{stops} stops");
        assert!(
            handled > 150_000 && slices > 30,
            "{handled} events in {slices}"
        );
    }

    #[test]
    fn an_empty_tree_has_nothing_to_hand_out() {
        let t: Tourney<u8> = Tourney::new(Vec::new());
        assert_eq!(t.peek(), None);
    }
}
