//! Where the runs went: each time bin's attempts over the runs of a link with `runs` > 1, the
//! band the timeline draws around the first run's line. In each bin the highest and the lowest
//! fortieth of the runs are left out (none under 40 runs), so the band holds about the middle
//! 95% of them; it says how many it holds.

use super::metrics::BinCounts;
use alloc::vec::Vec;

/// The most bins x runs a band keeps (16 MB of counts); above it a run has no band.
pub const MAX_CELLS: usize = 4_000_000;

/// Each bin's range of attempts over the runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Band {
    /// The runs made.
    pub runs: u32,
    /// The runs each bin's range holds: all but its highest and lowest `runs / 40`.
    pub kept: u32,
    /// Each bin's least attempts among the runs it holds (the first run's bins).
    pub low: Vec<u32>,
    /// Each bin's most attempts among the runs it holds.
    pub high: Vec<u32>,
}

/// A band being built: every run's attempts in each of its bins, a row a run (the first run's
/// number of bins sets the band's when it is made).
#[derive(Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Bands {
    cells: Vec<u32>,
    // Each run's row: where it starts in `cells`, and its bins.
    rows: Vec<(usize, usize)>,
    runs: u32,
    // Over [`MAX_CELLS`]: no band.
    over: bool,
}

impl Bands {
    /// Adds one run's bins.
    pub(crate) fn add(&mut self, bins: &BinCounts) {
        self.runs += 1;
        if self.over || self.cells.len() + bins.len > MAX_CELLS {
            self.give_up();
            return;
        }
        let from = self.cells.len();
        self.cells.resize(from + bins.len, 0);
        for &(i, attempts, _) in bins.busy.iter().filter(|b| (b.0 as usize) < bins.len) {
            self.cells[from + i as usize] = attempts;
        }
        self.rows.push((from, bins.len));
    }

    fn give_up(&mut self) {
        self.over = true;
        self.cells = Vec::new();
        self.rows = Vec::new();
    }

    /// Adds `other`'s runs after these.
    pub(crate) fn append(&mut self, other: Bands) {
        self.runs += other.runs;
        if self.over || other.over || self.cells.len() + other.cells.len() > MAX_CELLS {
            self.give_up();
            return;
        }
        let shift = self.cells.len();
        self.cells.extend(other.cells);
        self.rows
            .extend(other.rows.into_iter().map(|(s, l)| (s + shift, l)));
    }

    /// Keeps the first `k` runs.
    pub(crate) fn truncate(&mut self, k: usize) {
        if k < self.runs as usize {
            self.runs = k as u32;
            self.rows.truncate(k);
            let end = self.rows.last().map_or(0, |(s, l)| s + l);
            self.cells.truncate(end);
        }
    }

    /// The band on the first run's bins (a longer run cut to them, a shorter one counting 0
    /// after its end), with two runs or more that fit under [`MAX_CELLS`].
    pub(crate) fn finish(self) -> Option<Band> {
        if self.runs < 2 || self.over {
            return None;
        }
        let len = self.rows.first().map_or(0, |r| r.1);
        let n = self.rows.len();
        let drop = n / 40;
        let mut column = Vec::with_capacity(n);
        let (mut low, mut high) = (Vec::with_capacity(len), Vec::with_capacity(len));
        for bin in 0..len {
            column.clear();
            column.extend(
                self.rows
                    .iter()
                    .map(|&(s, l)| if bin < l { self.cells[s + bin] } else { 0 }),
            );
            column.sort_unstable();
            low.push(column[drop]);
            high.push(column[n - 1 - drop]);
        }
        Some(Band {
            runs: self.runs,
            kept: (n - 2 * drop) as u32,
            low,
            high,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(v: &[u32]) -> BinCounts {
        BinCounts::from_dense(v.iter().map(|&a| (a, 0)))
    }

    /// Under 40 runs the band is each bin's least and most; from 40 on, the extremes are left
    /// out, a fortieth at each end.
    #[test]
    fn the_band_holds_the_middle_of_the_runs() {
        let mut b = Bands::default();
        for r in 0..10u32 {
            b.add(&counts(&[r, 100 - r, 7]));
        }
        let band = b.finish().unwrap();
        assert_eq!((band.runs, band.kept), (10, 10));
        assert_eq!((band.low, band.high), (vec![0, 91, 7], vec![9, 100, 7]));
        let mut b = Bands::default();
        for r in 0..80u32 {
            b.add(&counts(&[r]));
        }
        let band = b.finish().unwrap();
        assert_eq!((band.kept, band.low[0], band.high[0]), (76, 2, 77));
        let mut one = Bands::default();
        one.add(&counts(&[3]));
        assert_eq!(one.finish(), None);
    }
}
