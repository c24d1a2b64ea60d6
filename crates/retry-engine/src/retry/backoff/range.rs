//! One retry's wait as a uniform draw over a range known in advance, the form the population
//! engine spreads and a model's fast path draws from.

use crate::retry::rng::Words;
use crate::retry::time::Micros;
use alloc::vec::Vec;

/// One retry's wait as a uniform draw over a range known in advance
/// ([`Backoff::wait_range`](super::Backoff::wait_range)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitRange {
    pub(super) low: u64,
    pub(super) high: u64,
    pub(super) floor: u64,
    /// The most a draw waits (before the floor): the cap of decorrelated jitter or of a jitter
    /// drawn before the cap, else `u64::MAX`.
    pub(super) cap: u64,
    /// The µs between two draws: 1, or 1000 for Envoy's whole milliseconds (`whole_ms`), whose
    /// `high - low` is then a multiple of it.
    pub(super) step: u64,
}

impl WaitRange {
    /// The wait the next words of `words` give: [`Words::uniform_inclusive`] over the range
    /// (or `below` over whole milliseconds), raised to the floor, as
    /// [`Backoff::next_draw`](super::Backoff::next_draw) draws it. A range of one value takes
    /// no word. Generic, so that a model's own word source is called directly, not through
    /// `dyn Words`.
    #[inline(always)]
    pub fn draw<W: Words>(&self, words: &mut W) -> Micros {
        let v = if self.step > 1 {
            // Envoy's `random() % window`: a word even for a window of one.
            self.low + words.below(self.draws()) * self.step
        } else {
            words.uniform_inclusive(self.low, self.high)
        };
        Micros(v.min(self.cap).max(self.floor))
    }

    /// How many values a draw takes (before the cap and the floor).
    pub fn draws(&self) -> u64 {
        (self.high - self.low) / self.step + 1
    }

    /// The µs between two values a draw takes: 1, or 1000 for whole milliseconds.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// The most a draw waits before the floor (`u64::MAX` where nothing caps the draw).
    pub fn cap(&self) -> u64 {
        self.cap
    }

    /// The range's lowest and highest draw, and the floor a draw is raised to.
    pub fn parts(&self) -> (u64, u64, u64) {
        (self.low, self.high, self.floor)
    }

    /// The wait [`WaitRange::draw`] gives without taking a word, for a range of one value.
    pub fn fixed(&self) -> Option<Micros> {
        (self.high <= self.low && self.step == 1)
            .then_some(Micros(self.low.min(self.cap).max(self.floor)))
    }

    /// Draws uniform over `[low, high]` µs, raised to `floor`.
    pub const fn new(low: u64, high: u64, floor: u64) -> WaitRange {
        WaitRange {
            low,
            high,
            floor,
            cap: u64::MAX,
            step: 1,
        }
    }

    /// Draws `low + k * step` µs for `k` uniform over `0..draws`, raised to `floor`.
    pub(crate) const fn stepped(low: u64, draws: u64, step: u64, floor: u64) -> WaitRange {
        WaitRange {
            low,
            high: low + (draws - 1) * step,
            floor,
            cap: u64::MAX,
            step,
        }
    }

    /// A range of the one wait `w`.
    pub const fn at(w: Micros) -> WaitRange {
        WaitRange::new(w.0, w.0, w.0)
    }

    /// The waits `max(wait, floor)`: a draw raised to the higher of its floor and `floor`.
    pub fn raised(self, floor: Micros) -> WaitRange {
        WaitRange {
            floor: self.floor.max(floor.0),
            ..self
        }
    }

    /// The waits `wait + by`: every draw, and the floor, moved later by `by`.
    pub fn shifted(self, by: Micros) -> WaitRange {
        WaitRange {
            low: self.low.saturating_add(by.0),
            high: self.high.saturating_add(by.0),
            floor: self.floor.saturating_add(by.0),
            cap: self.cap.saturating_add(by.0),
            step: self.step,
        }
    }
}

impl super::Backoff {
    /// Polly's decorrelated-v2 at retry `retry` (0 for the first), after the curve's previous
    /// value `prev` (`f64` bits; 0.0 before the first retry), as `pieces` ranges of equal
    /// chance: the draws `u` in `[j, j + 1) / pieces` wait from `w(j / pieces)` to
    /// `w((j + 1) / pieces)` (the wait rises with `u`), capped and raised to the floor, each
    /// piece with the curve's value at its middle for the retry after. Within a piece the wait
    /// is taken as uniform, the one approximation. A first retry that waits nothing is one
    /// piece that keeps `prev`. `None` unless the backoff is decorrelated-v2 (unsorted).
    pub fn decorrelated_v2_pieces(
        &self,
        retry: u32,
        prev: u64,
        pieces: u32,
    ) -> Option<Vec<(WaitRange, u64)>> {
        let cfg = &self.cfg;
        if cfg.kind != super::BackoffKind::DecorrelatedV2 || cfg.sorted || cfg.whole_ms {
            return None;
        }
        if cfg.first_wait_zero && retry == 0 {
            return Some(alloc::vec![(WaitRange::at(cfg.floor), prev)]);
        }
        let previous = f64::from_bits(prev);
        let at = |u: f64| crate::retry::jitter::decorrelated_v2(retry, u, previous, cfg.base);
        let n = pieces.max(1);
        let piece = |j: u32| {
            let (low, high) = (
                at(f64::from(j) / f64::from(n)).0,
                at(f64::from(j + 1) / f64::from(n)).0,
            );
            let range = WaitRange {
                low,
                high: high.max(low),
                floor: cfg.floor.0,
                cap: cfg.cap.0,
                step: 1,
            };
            (range, at((f64::from(j) + 0.5) / f64::from(n)).1.to_bits())
        };
        Some((0..n).map(piece).collect())
    }

    /// One draw of decorrelated-v2 at retry `retry` after the curve's value `prev` (`f64` bits)
    /// from the uniform `u`, as [`Backoff::next_draw`](super::Backoff::next_draw) draws it: the
    /// wait (capped, raised to the floor) and the curve's value it leaves.
    pub fn decorrelated_v2_draw(&self, retry: u32, prev: u64, u: f64) -> (Micros, u64) {
        let cfg = &self.cfg;
        if cfg.first_wait_zero && retry == 0 {
            return (cfg.floor, prev);
        }
        let (w, next) =
            crate::retry::jitter::decorrelated_v2(retry, u, f64::from_bits(prev), cfg.base);
        (Micros(w.min(cfg.cap.0).max(cfg.floor.0)), next.to_bits())
    }
}
