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

/// A band being built: every run's attempts in each of the first run's bins.
#[derive(Debug, Default)]
pub(crate) struct Bands {
    len: usize,
    // Run-major: `cells[run * len + bin]`.
    cells: Vec<u32>,
    runs: u32,
    // Over [`MAX_CELLS`]: no band.
    over: bool,
}

impl Bands {
    /// Adds one run's bins (the first run's number of bins sets the band's).
    pub(crate) fn add(&mut self, bins: &BinCounts) {
        if self.runs == 0 {
            self.len = bins.len;
        }
        self.runs += 1;
        if self.over || self.cells.len() + self.len > MAX_CELLS {
            self.over = true;
            self.cells = Vec::new();
            return;
        }
        let from = self.cells.len();
        self.cells.resize(from + self.len, 0);
        for &(i, attempts, _) in bins.busy.iter().filter(|b| (b.0 as usize) < self.len) {
            self.cells[from + i as usize] = attempts;
        }
    }

    /// Adds `other`'s runs after these (the same bins, or no band).
    pub(crate) fn append(&mut self, other: Bands) {
        if other.runs == 0 {
            return;
        }
        if self.runs == 0 {
            *self = other;
            return;
        }
        self.runs += other.runs;
        if self.over || other.over || self.cells.len() + other.cells.len() > MAX_CELLS {
            self.over = true;
            self.cells = Vec::new();
            return;
        }
        // Each run on the first run's bins, as `add` lays it: cut to them, or padded with 0.
        for r in 0..other.runs as usize {
            let row = other
                .cells
                .get(r * other.len..(r + 1) * other.len)
                .unwrap_or(&[]);
            let keep = row.len().min(self.len);
            self.cells.extend_from_slice(&row[..keep]);
            self.cells.resize(self.cells.len() + (self.len - keep), 0);
        }
    }

    /// Keeps the first `k` runs.
    pub(crate) fn truncate(&mut self, k: usize) {
        if k < self.runs as usize {
            self.runs = k as u32;
            self.cells.truncate(k * self.len);
        }
    }

    /// The band, with two runs or more that fit under [`MAX_CELLS`].
    pub(crate) fn finish(self) -> Option<Band> {
        if self.runs < 2 || self.over {
            return None;
        }
        let n = self.runs as usize;
        let drop = n / 40;
        let mut column = Vec::with_capacity(n);
        let (mut low, mut high) = (Vec::with_capacity(self.len), Vec::with_capacity(self.len));
        for bin in 0..self.len {
            column.clear();
            column.extend((0..n).map(|r| self.cells[r * self.len + bin]));
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
