//! The `occ` scenario: the 2015 AWS backoff study, modelled as its simulator does.
//!
//! `clients` clients start at once and each wants to update one shared row once, with optimistic
//! concurrency: read the row's version, then write conditioned on it. One write per round
//! succeeds; the others fail, back off, and read again. Every message hop takes
//! `|Normal(net, net_sd)|` (10 ms and 2 ms in the study). Work is the number of write calls (reads
//! are not counted) and time is when the last write answer arrives. The backoff is the link's
//! (the study: base 5 ms, cap 2 s, first exponent 1, so the first wait's ceiling is 10 ms), drawn
//! per client by the same [`BackoffState`] the retry policy uses; attempts are not limited.

use super::engine::{Model, Repetition};
use super::metrics::{peak_per_s_sparse, Bin, BinCounts, Report, Summary, MAX_BINS};
use super::queue::EventQueue;
use super::tourney::Tourney;
use crate::retry::backoff::{Backoff, BackoffState, WaitRange};
use crate::retry::rng::{NormalTable, Rng, Words};
use crate::retry::time::Micros;
use alloc::boxed::Box;
use alloc::rc::Rc;
use alloc::vec::Vec;

const STREAM_OCC: u64 = 3 << 40;

/// Whether the native tier runs (`occ/native.rs`: a branch-free path where every retry waits
/// the same, and a loop per tree depth): everywhere but the page, whose size counts
/// ([`crate::arch::PAGE`]). On wasm its code is never reached and is left out of the build.
const NATIVE_TIER: bool = !crate::arch::PAGE;

mod native;

/// An OCC event: client `c`'s read reaching the server, or its conditional write, for the
/// version it read, reaching the server. The client's side of each hop needs no event of its
/// own: a read's answer goes straight into the conditional write, and a failed write's answer
/// straight into the backoff and the next read, so each write costs two events.
///
/// One word, so the event queue moves 8 bytes an event: the client in the low 32 bits, and
/// above them 0 for a read or the version read plus one for a write (a version counts
/// successful writes, so it stays below the client count).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct OccEv(u64);

impl OccEv {
    /// Client `c`'s read.
    pub const fn read(c: u32) -> Self {
        OccEv(c as u64)
    }

    /// Client `c`'s write for `version`.
    pub const fn write(c: u32, version: u32) -> Self {
        OccEv(c as u64 | ((version as u64 + 1) << 32))
    }

    /// The client.
    pub const fn client(self) -> u32 {
        self.0 as u32
    }

    /// The version a write is for; `None` for a read.
    pub const fn version(self) -> Option<u32> {
        ((self.0 >> 32) as u32).checked_sub(1)
    }
}

impl core::fmt::Debug for OccEv {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.version() {
            None => write!(f, "Read({})", self.client()),
            Some(v) => write!(f, "Write({}, {v})", self.client()),
        }
    }
}

/// What an event does, by the 2015 model's rule: a read, or a write that succeeds when it is for
/// the current version (nobody wrote since its read) and fails otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct WriteVerdict {
    write: bool,
    ok: bool,
}

/// The 2015 model's rule, decided here only: every path ([`Occ::next`] and the native tier's
/// `Occ::next_flat`) calls it. Branch-free, so either path can use it without a branch.
#[inline(always)]
fn verdict(ev: OccEv, version: u32) -> WriteVerdict {
    let raw = ev.0 >> 32;
    // A write is tagged with the version it read plus one (a read with 0), and a version
    // counts successful writes: a write can never be for a version not yet reached.
    debug_assert!(
        raw <= u64::from(version) + 1,
        "a write for a future version"
    );
    WriteVerdict {
        write: raw != 0,
        ok: raw == u64::from(version) + 1,
    }
}

/// One OCC run.
pub struct Occ {
    version: u32,
    policy: Backoff,
    backoff: Vec<BackoffState>,
    // The first retries' wait ranges when the backoff knows them in advance
    // (`Backoff::wait_range`), else empty: [`OccShared`]'s.
    ranges: Vec<WaitRange>,
    // The highest index into `ranges` a retry needs: the last when every later retry draws
    // from it (`Backoff::range_settled`), else none.
    settled: u32,
    // The wait of every retry, when one value and the native tier runs ([`Occ::uniform`]):
    // then every event goes through `Occ::next_flat`.
    uniform: Option<u64>,
    hops: Hops,
    /// Write calls.
    pub writes: u64,
    /// When the last answer arrived.
    pub last: Micros,
    // Write calls and successful writes per bin of `width`, as they reach the server, for
    // the bins before the current one that have a count: `(bin, writes, successes)`. A run
    // with backoff lasts minutes, and most of its bins are empty.
    series: Vec<(u32, u32, u32)>,
    width: Micros,
    // The current bin, the last event's: its index and start (it spans `width`), and its
    // counts. Events come in time order, so most land in it and need no division.
    bin: (usize, u64),
    counts: (u32, u32),
}

/// The series' first bin width; it doubles (merging pairs of bins) whenever a run would need
/// more than [`MAX_BINS`] bins.
const OCC_BIN: Micros = Micros(10_000);

/// What the runs of one `occ` link share, built once: the normal table (see [`NormalTable`])
/// and the backoff's kept wait ranges, so that a sweep's thousands of runs do not each work
/// out 64 ranges again (0.7% of the 2015 sweep's instructions). Each run copies the ranges:
/// in a vector of its own they are one load nearer than behind a shared pointer, and the
/// copy costs less than a tenth of working them out.
#[derive(Clone)]
pub struct OccShared {
    normal: Rc<NormalTable>,
    // The first [`RANGES`] retries' wait ranges when the backoff knows them in advance
    // (`Backoff::wait_range`), else none.
    ranges: Vec<WaitRange>,
}

impl OccShared {
    /// The table and `backoff`'s ranges.
    pub fn new(backoff: &Backoff, normal: Rc<NormalTable>) -> Self {
        let ranges = (0..RANGES).map_while(|r| backoff.wait_range(r)).collect();
        OccShared { normal, ranges }
    }
}

impl Occ {
    /// Run number `run` with `clients` clients; returns the model and its first events.
    /// `shared` is what the runs of one link share, built for `backoff`.
    pub fn new(
        clients: u32,
        backoff: &Backoff,
        net: Micros,
        net_sd: Micros,
        seed: u64,
        run: u32,
        shared: &OccShared,
    ) -> (Occ, Vec<(Micros, OccEv)>) {
        let ranges = shared.ranges.clone();
        let mut occ = Occ {
            version: 0,
            policy: *backoff,
            backoff: (0..clients).map(|_| backoff.state()).collect(),
            settled: if backoff.range_settled(RANGES - 1) {
                RANGES - 1
            } else {
                u32::MAX
            },
            uniform: if NATIVE_TIER {
                native::uniform_wait(backoff, &ranges, net_sd)
            } else {
                None
            },
            ranges,
            hops: Hops::new(
                Rng::stream(seed, STREAM_OCC + u64::from(run)),
                shared.normal.clone(),
                net,
                net_sd,
            ),
            writes: 0,
            last: Micros::ZERO,
            // Grown as needed, or an earlier run's (see [`Occ::with_series`]).
            series: Vec::new(),
            width: OCC_BIN,
            bin: (0, 0),
            counts: (0, 0),
        };
        let first = (0..clients)
            .map(|c| (Micros(occ.delay()), OccEv::read(c)))
            .collect();
        (occ, first)
    }

    /// Clients that have written: one per successful write, which is what the row's version
    /// counts.
    pub fn done(&self) -> u32 {
        self.version
    }

    /// Writes that failed: every write call but the successful ones.
    pub fn failures(&self) -> u64 {
        self.writes - u64::from(self.version)
    }

    /// Counts a write reaching the server at `t`.
    #[inline(always)]
    fn count(&mut self, t: Micros, ok: bool) {
        // In [start, start + width): one compare, the difference wrapping when below.
        if t.0.wrapping_sub(self.bin.1) < self.width.0 {
            self.counts.0 += 1;
            self.counts.1 += u32::from(ok);
            return;
        }
        self.count_in_new_bin(t, true, ok);
    }

    /// The bin `t` falls in. The width is [`OCC_BIN`] doubled `k` times, and `t / (w * 2^k)` is
    /// `(t >> k) / w`: a division by a constant, which compiles to a multiplication, where a
    /// division by the width read at run time took tens of cycles, once per busy bin.
    #[inline(always)]
    fn bin_of(&self, t: Micros) -> usize {
        let doublings = (self.width.0 / OCC_BIN.0).trailing_zeros();
        ((t.0 >> doublings) / OCC_BIN.0) as usize
    }

    /// Counts a write (`write`; a read counts nothing) outside the current bin, which it
    /// makes the current one, widening the bins as needed. A read's bin is one a later
    /// write's would reach too: a run's last event is a write, so every read is in or before
    /// its bin, and widening depends only on the latest time.
    #[inline(never)]
    fn count_in_new_bin(&mut self, t: Micros, write: bool, ok: bool) {
        self.flush();
        let mut i = self.bin_of(t);
        while i >= MAX_BINS {
            self.widen();
            i = self.bin_of(t);
        }
        self.bin = (i, i as u64 * self.width.0);
        self.counts = (u32::from(write), u32::from(ok));
    }

    /// The current bin's counts into `series`, if it has any. Its index is above the last
    /// busy bin's: events come in time order, and the bins widen only for an event at bin
    /// `MAX_BINS` or later, whose widened bin is past every earlier one's.
    fn flush(&mut self) {
        let (writes, ok) = core::mem::take(&mut self.counts);
        if (writes, ok) != (0, 0) {
            let i = self.bin.0 as u32;
            debug_assert!(self.series.last().is_none_or(|b| b.0 < i));
            self.series.push((i, writes, ok));
        }
    }

    /// Bins twice as wide: each pair of bins becomes one (the current bin is flushed first).
    fn widen(&mut self) {
        let mut kept: usize = 0;
        for k in 0..self.series.len() {
            let (i, writes, ok) = self.series[k];
            match kept.checked_sub(1).map(|last| &mut self.series[last]) {
                Some(last) if last.0 == i / 2 => {
                    last.1 += writes;
                    last.2 += ok;
                }
                _ => {
                    self.series[kept] = (i / 2, writes, ok);
                    kept += 1;
                }
            }
        }
        self.series.truncate(kept);
        self.width = Micros(self.width.0 * 2);
    }

    /// How many bins the run has: up to its last write's (its last event's).
    fn bins(&self) -> usize {
        self.series.last().map_or(0, |b| b.0 as usize + 1)
    }

    /// The study's figures: write calls, clients done, the peak rate and the completion time.
    fn summary(&self) -> Summary {
        let c = self.backoff.len() as u64;
        let ratio = |n: f64| if c == 0 { 0.0 } else { n / c as f64 };
        Summary {
            originals: c,
            attempts: self.writes,
            amplification: ratio(self.writes as f64),
            successes: u64::from(self.done()),
            success_rate: ratio(f64::from(self.done())),
            peak_attempts_per_s: peak_per_s_sparse(&self.series, self.width),
            attempts_per_s_at: None,
            completion_ms: self.last.as_millis_f64(),
            p50_ms: None,
            p99_ms: None,
            p999_ms: None,
            duplicates: 0,
            failures: [0; 7],
            served: self.writes,
            server: None,
            limiter: None,
            hedge: None,
            recovery: None,
            population: None,
            intervals: None,
        }
    }

    /// The model with `series`, an earlier run's bins, cleared, as its bins: a run of a few
    /// minutes grows its bins to thousands, and a sweep's next run then starts with room for
    /// them, with no allocation or copy as they grow.
    pub fn with_series(mut self, mut series: Vec<(u32, u32, u32)>) -> Self {
        if series.capacity() > self.series.capacity() {
            series.clear();
            self.series = series;
        }
        self
    }

    /// One network hop (see [`Hops::delay`]).
    #[inline(always)]
    fn delay(&mut self) -> u64 {
        self.hops.delay()
    }
}

/// How many of the first retries' wait ranges [`Occ`] keeps when the backoff knows them in
/// advance: a wait drawn from a kept range costs a few instructions (none for a fixed wait),
/// a draw through [`Backoff::next_draw`] about 190 for `full` and `equal`.
const RANGES: u32 = 64;

/// How many words [`Hops`] draws at a time.
const AHEAD: usize = 64;

/// The run's generator, drawn a batch of words ahead, each word also turned into the hop delay
/// it gives.
///
/// Why: a hop's delay is on the path from one event to the next (draw, quantile, round, then
/// the tree's matches), and computed one at a time its float latency was most of an event's
/// cost. Drawn in a batch, the delays are computed back to back, and an event only loads one.
/// The words are handed out in the generator's order, to hops and backoff draws alike (through
/// [`Words`]), so every draw is the one the generator would give: the numbers do not change.
struct Hops {
    rng: Rng,
    normal: Rc<NormalTable>,
    mean: f64,
    sd: f64,
    // `sd` is 0: every hop is `mean` and draws no word.
    fixed: bool,
    // Every delay is below 2^31 µs (`NormalTable::narrow`): two at once on x86-64.
    narrow: bool,
    words: [u64; AHEAD],
    delays: [u64; AHEAD],
    next: usize,
}

impl Hops {
    fn new(rng: Rng, normal: Rc<NormalTable>, net: Micros, net_sd: Micros) -> Self {
        Hops {
            rng,
            normal,
            mean: net.0 as f64,
            sd: net_sd.0 as f64,
            fixed: net_sd == Micros::ZERO,
            narrow: NormalTable::narrow(net.0 as f64, net_sd.0 as f64),
            words: [0; AHEAD],
            delays: [0; AHEAD],
            next: AHEAD,
        }
    }

    /// One network hop: `|Normal(mean, sd)|` rounded to a microsecond, from the next word (no
    /// word when `sd` is 0: the hop is `mean`).
    #[inline(always)]
    fn delay(&mut self) -> u64 {
        if self.fixed {
            return self.mean as u64;
        }
        // One compare: in the batch, or past its end.
        if let Some(&d) = self.delays.get(self.next) {
            self.next += 1;
            return d;
        }
        self.refill();
        self.next = 1;
        self.delays[0]
    }

    /// Two hops in a row: [`Hops::delay`] twice, with one check of the batch's end.
    #[inline(always)]
    fn two_delays(&mut self) -> [u64; 2] {
        if !self.fixed {
            if let Some(&[a, b]) = self.delays.get(self.next..self.next + 2) {
                self.next += 2;
                return [a, b];
            }
        }
        [self.delay(), self.delay()]
    }

    /// Draws the next batch of words and their delays.
    #[inline(never)]
    fn refill(&mut self) {
        // The table and the generator's state held in locals, so that the table's address is
        // loaded once, not per word, and the state stays in registers through the loop.
        let (q, mean, sd) = (self.normal.quantiles(), self.mean, self.sd);
        let mut rng = self.rng.clone();
        let words = self.words.as_chunks_mut::<2>().0;
        let delays = self.delays.as_chunks_mut::<2>().0;
        NormalTable::fill(q, words, delays, (mean, sd), self.narrow, || rng.next_u64());
        self.rng = rng;
        self.next = 0;
    }
}

impl Words for Hops {
    #[inline(always)]
    fn next_u64(&mut self) -> u64 {
        if let Some(&w) = self.words.get(self.next) {
            self.next += 1;
            return w;
        }
        self.refill();
        self.next = 1;
        self.words[0]
    }
}

impl Model for Occ {
    type Event = OccEv;

    fn progress(&self, _now: Micros) -> f64 {
        f64::from(self.done()) / self.backoff.len().max(1) as f64
    }

    /// The study's figures, write calls and when the last answer arrived, and the write calls
    /// over time (each client one original at 0; a client is in flight until its write lands).
    fn finish(mut self, _at: Option<Micros>) -> Report {
        self.flush();
        let summary = self.summary();
        let c = self.backoff.len() as u32;
        let mut left = c;
        let len = self.bins();
        let busy = core::mem::take(&mut self.series);
        let counts = BinCounts { busy, len }.dense();
        let bins: Vec<Bin> = (counts.iter().enumerate())
            .map(|(i, (writes, ok))| {
                left = left.saturating_sub(*ok);
                Bin {
                    originals: if i == 0 { c } else { 0 },
                    attempts: *writes,
                    retries: writes.saturating_sub(if i == 0 { c } else { 0 }),
                    successes: *ok,
                    served: *writes,
                    in_flight: left,
                    ..Bin::default()
                }
            })
            .collect();
        Report {
            summary,
            bin_ms: self.width.as_millis_f64(),
            bins,
        }
    }

    /// The busy bins' write calls and successes, as they are counted.
    fn finish_summary(mut self, _at: Option<Micros>) -> (Summary, BinCounts) {
        self.flush();
        let len = self.bins();
        (
            self.summary(),
            BinCounts {
                busy: self.series,
                len,
            },
        )
    }

    /// Handles `ev` through the event heap (the tests' reference; [`OccRun`] is what runs).
    fn handle(&mut self, now: Micros, ev: OccEv, q: &mut EventQueue<OccEv>) {
        if let Some((t, next)) = self.next(now, ev) {
            q.push(t, next);
        }
    }
}

impl Occ {
    /// Handles `ev` at `now`; returns the client's next event (a client has exactly one
    /// pending), or `None` once it has written.
    ///
    /// Inlined into the event loop, with `delay` and `NormalTable::sample`: left as calls, wasm
    /// ran the 2015 sweep about 8% slower (native counts 6% more instructions).
    #[inline(always)]
    fn next(&mut self, now: Micros, ev: OccEv) -> Option<(Micros, OccEv)> {
        // Plain additions: a client's clock is the sum of its own hops (each under 10 days, as
        // a link's `net` and `net_sd` are at most a day) and waits (at most the cap, at most a
        // day), so reaching 2^64 µs would take ten million retries of one client; a client
        // retries at most once per other client (each failed write needs another client's
        // success between its read and its write), and there are at most 1,000. Debug builds
        // check.
        let c = ev.client();
        let WriteVerdict { write, ok } = verdict(ev, self.version);
        if !write {
            // The answer travels back, then the write travels out.
            let [back, out] = self.hops.two_delays();
            return Some((Micros(now.0 + back + out), OccEv::write(c, self.version)));
        }
        self.writes += 1;
        self.count(now, ok);
        let answered = now.0 + self.delay();
        if ok {
            // A version counts successful writes, one per client at most.
            debug_assert!((self.version as usize) < self.backoff.len());
            self.version += 1;
            self.answered(answered);
            return None;
        }
        let wait = self.wait(c);
        let out = self.delay();
        Some((Micros(answered + out + wait.0), OccEv::read(c)))
    }

    /// A successful write's answer arrives at `at`. Only these count toward the last
    /// answer: a failed write's answer is followed by the client's wait and its next read
    /// and write, each no earlier, and its last write succeeds, so its answer comes later.
    #[inline(always)]
    fn answered(&mut self, at: u64) {
        self.last = self.last.max(Micros(at));
    }

    /// [`Occ::next_flat`] with `wait` when `FLAT` (every retry waits `wait`; see
    /// [`Occ::uniform`]), else [`Occ::next`]. Native only: on wasm the page's size counts,
    /// and `FLAT` is false.
    #[inline(always)]
    fn next_by<const FLAT: bool>(
        &mut self,
        now: Micros,
        ev: OccEv,
        wait: u64,
    ) -> Option<(Micros, OccEv)> {
        if FLAT {
            return self.next_flat(now, ev, wait);
        }
        let _ = wait;
        self.next(now, ev)
    }

    /// The wait of every retry, when one value: then every event can go through
    /// `Occ::next_flat`.
    pub fn uniform(&self) -> Option<u64> {
        self.uniform
    }

    /// Client `c`'s next wait: drawn from its kept range while the backoff knows the range in
    /// advance and the retry is among the first [`RANGES`], through
    /// [`Backoff::decorrelated_wait`] for `decorrelated`, through [`Backoff::next_draw`]
    /// otherwise. The state counts the retry either way.
    #[inline(always)]
    fn wait(&mut self, c: u32) -> Micros {
        let state = &mut self.backoff[c as usize];
        if let Some(range) = self.ranges.get(state.retry().min(self.settled) as usize) {
            state.skip();
            return range.draw(&mut self.hops);
        }
        if let Some(wait) = self.policy.decorrelated_wait(state, &mut self.hops) {
            return wait;
        }
        self.policy.next_draw(state, &mut self.hops, false).wait
    }
}

/// One OCC run on a [`Tourney`], one leaf per client: the same events in the same order as
/// `Sim` over the event heap, faster (see `super::tourney`).
pub struct OccRun {
    /// The model.
    pub model: Occ,
    tree: Tourney<OccEv>,
    events: u64,
}

impl OccRun {
    /// The run of `model` from its first events (client `i`'s at index `i`, as [`Occ::new`]
    /// gives them).
    pub fn new(model: Occ, first: Vec<(Micros, OccEv)>) -> Self {
        OccRun {
            model,
            tree: Tourney::new(first),
            events: 0,
        }
    }

    /// Handles up to `n` events in a tree of depth `D` (0: any depth; see
    /// [`Tourney::replace_at`]), through [`Occ::next_flat`] when `FLAT` (see
    /// [`Occ::next_by`]).
    #[inline(always)]
    fn events_at<const D: u32, const FLAT: bool>(&mut self, n: u64) -> (bool, u64) {
        // The count kept in a local, stored once at the end.
        let n = n.min(self.tree.room());
        let wait = self.model.uniform().unwrap_or(0);
        let handled = match self.cursor_events::<D, FLAT>(n, wait) {
            Some(handled) => handled,
            None => {
                let mut handled = 0;
                while handled < n {
                    let Some((t, ev, leaf)) = self.tree.peek_at::<D>() else {
                        break;
                    };
                    let next = self.model.next_by::<FLAT>(t, ev, wait);
                    self.tree.replace_within::<D>(leaf, next);
                    handled += 1;
                }
                handled
            }
        };
        self.tree.settle();
        self.events += handled;
        (self.tree.peek().is_none(), handled)
    }

    /// [`OccRun::events_at`]'s loop through a [`super::tourney::Cursor`], where the depth is
    /// known; `None` where it is not.
    #[inline(always)]
    fn cursor_events<const D: u32, const FLAT: bool>(&mut self, n: u64, wait: u64) -> Option<u64> {
        let mut tree = self.tree.cursor::<D>()?;
        let mut handled = 0;
        let mut live = tree.live();
        while live && handled < n {
            let (t, ev, leaf) = tree.peek_live();
            let next = self.model.next_by::<FLAT>(t, ev, wait);
            handled += 1;
            live = tree.replace(leaf, next);
        }
        Some(handled)
    }

    /// The page's loop: one loop that reads the tree's depth, every event through
    /// [`Occ::next`] (natively, the tests run it against the native tier's).
    pub(super) fn step_portable(&mut self, n: u64) -> (bool, u64) {
        self.events_at::<0, false>(n)
    }
}

impl Repetition for OccRun {
    fn step(&mut self, n: u64) -> (bool, u64) {
        if NATIVE_TIER {
            self.step_native(n)
        } else {
            self.step_portable(n)
        }
    }

    fn progress(&self) -> f64 {
        // The model's progress is its clients done; it needs no clock.
        self.model.progress(Micros::ZERO).clamp(0.0, 0.999)
    }

    fn finish(self: Box<Self>, at: Option<Micros>) -> Report {
        self.model.finish(at)
    }

    fn finish_summary(self: Box<Self>, at: Option<Micros>) -> (Summary, BinCounts) {
        self.model.finish_summary(at)
    }
}

#[cfg(test)]
mod tests;
