//! The native tier of the 2015 model's event loop (see `NATIVE_TIER`): where every retry
//! waits the same, a path with no branch on the event's kind; and a copy of the loop per depth
//! of tree. Each gives exactly the numbers of the page's loop ([`OccRun::step_portable`]),
//! which the tests check; what changes is the speed.

use super::{verdict, Occ, OccEv, OccRun, WriteVerdict, RANGES};
use crate::retry::backoff::{Backoff, WaitRange};
use crate::retry::time::Micros;
use core::hint::select_unpredictable;

/// The wait every retry of `backoff` takes when it is one value known in advance (`none`,
/// `constant`) and hops have a spread, so that [`Occ::next_flat`] can handle every event;
/// else `None`. Hops without a spread draw no words, and take the branches.
pub(super) fn uniform_wait(backoff: &Backoff, ranges: &[WaitRange], net_sd: Micros) -> Option<u64> {
    let first = ranges.first()?.fixed()?;
    let all = ranges.len() == RANGES as usize && backoff.range_settled(0);
    (all && net_sd != Micros::ZERO).then_some(first.0)
}

impl Occ {
    /// [`Occ::next`] with no branch on the event's kind, where every retry waits `wait`
    /// (a backoff of `none` or `constant`; see [`uniform_wait`]): a read and a failed write
    /// both take two hops, and the failed write adds the wait, so one sum with the wait
    /// selected serves both. No wait depends on how many retries a client has made, so they
    /// are not counted here (at a batch's end [`Occ::next`] still counts its own).
    ///
    /// Why: whether an event is a read or a write is known only once the tree's matches have
    /// picked it, and with every client retrying at once no predictor learns it: [`Occ::next`]
    /// started about every other event with a mispredicted branch, whose cost the two runs in
    /// turn cannot hide (both runs' work after it is thrown away). Without backoff the 2015
    /// sweep's runs take 18% less time this way, for 15% more instructions. For a growing
    /// backoff the same path, with each retry's wait looked up for every event, took as long
    /// as the branches (its extra work cost what the mispredictions did; docs/benchmarks.md),
    /// so those keep [`Occ::next`].
    /// The words are taken exactly as [`Occ::next`] takes them (a read and a failed write two
    /// hops, a successful write one), so the numbers do not change; at a batch's end the event
    /// goes through [`Occ::next`].
    #[inline(always)]
    pub(super) fn next_flat(
        &mut self,
        now: Micros,
        ev: OccEv,
        wait: u64,
    ) -> Option<(Micros, OccEv)> {
        let (c, k) = (ev.client(), self.hops.next);
        let Some(&[d0, d1]) = self.hops.delays.get(k..k + 2) else {
            return self.next(now, ev);
        };
        let WriteVerdict { write, ok } = verdict(ev, self.version);
        // A write for the current version is tagged with this.
        let current = u64::from(self.version) + 1;
        let fail = write & !ok;
        self.hops.next = k + 2 - usize::from(ok);
        self.writes += u64::from(write);
        self.version += u32::from(ok);
        self.count_flat(now, write, ok);
        if ok {
            self.answered(now.0 + d0);
            return None;
        }
        let at = now.0 + d0 + d1 + select_unpredictable(fail, wait, 0);
        // A read is followed by a write for the version it read (the current one: no write
        // succeeded here), a write by a read.
        let tag = select_unpredictable(write, 0, current << 32);
        Some((Micros(at), OccEv(u64::from(c) | tag)))
    }

    /// [`Occ::count`] for an event that may be a read (`write` false), which counts nothing.
    #[inline(always)]
    pub(super) fn count_flat(&mut self, t: Micros, write: bool, ok: bool) {
        if t.0.wrapping_sub(self.bin.1) < self.width.0 {
            self.counts.0 += u32::from(write);
            self.counts.1 += u32::from(ok);
            return;
        }
        self.count_in_new_bin(t, write, ok);
    }
}

impl OccRun {
    /// [`OccRun::events_at`], one copy per depth.
    #[inline(never)]
    fn alone_at<const D: u32, const FLAT: bool>(&mut self, n: u64) -> (bool, u64) {
        self.events_at::<D, FLAT>(n)
    }

    /// [`OccRun::alone_at`] at the tree's depth.
    fn step_at<const FLAT: bool>(&mut self, n: u64) -> (bool, u64) {
        match self.tree.depth() {
            1 => self.alone_at::<1, FLAT>(n),
            2 => self.alone_at::<2, FLAT>(n),
            3 => self.alone_at::<3, FLAT>(n),
            4 => self.alone_at::<4, FLAT>(n),
            5 => self.alone_at::<5, FLAT>(n),
            6 => self.alone_at::<6, FLAT>(n),
            7 => self.alone_at::<7, FLAT>(n),
            8 => self.alone_at::<8, FLAT>(n),
            9 => self.alone_at::<9, FLAT>(n),
            10 => self.alone_at::<10, FLAT>(n),
            _ => self.alone_at::<0, FLAT>(n),
        }
    }

    /// The event loop compiled once per depth of tree up to 2^10 leaves (`caps::OCC_CLIENTS`
    /// is 1,000), about 4% fewer instructions on the 2015 sweep, and once more for runs whose
    /// every event goes through [`Occ::next_flat`], which then need no check per event.
    pub(super) fn step_native(&mut self, n: u64) -> (bool, u64) {
        match self.model.uniform() {
            Some(_) => self.step_at::<true>(n),
            None => self.step_at::<false>(n),
        }
    }
}
