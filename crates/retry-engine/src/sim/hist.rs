//! A fixed-size latency histogram: about 1.5% relative precision from 1 µs to centuries, in
//! 3776 counters, so memory does not grow with the number of requests.

use crate::retry::time::Micros;
use alloc::vec;
use alloc::vec::Vec;

const SUB: u64 = 64;
const BUCKETS: usize = 3776;

/// Counts of values by bucket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Histogram {
    counts: Vec<u64>,
    total: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: vec![0; BUCKETS],
            total: 0,
        }
    }
}

fn index(v: u64) -> usize {
    if v < 2 * SUB {
        return v as usize;
    }
    let e = 63 - u64::from(v.leading_zeros());
    let shift = e - 6;
    (shift * SUB + (v >> shift)) as usize
}

/// The lowest value of a bucket and its width.
fn bounds(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < 2 * SUB {
        return (i, 1);
    }
    let shift = i / SUB - 1;
    let sub = i - shift * SUB;
    (sub << shift, 1 << shift)
}

impl Histogram {
    /// Records one value.
    pub fn record(&mut self, v: Micros) {
        self.counts[index(v.0).min(BUCKETS - 1)] += 1;
        self.total += 1;
    }

    /// Records the value `v` `n` times.
    pub fn record_n(&mut self, v: Micros, n: u64) {
        self.counts[index(v.0).min(BUCKETS - 1)] += n;
        self.total += n;
    }

    /// How many values were recorded.
    pub fn len(&self) -> u64 {
        self.total
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The `q`-quantile (0 to 1): the middle of the bucket holding the value of rank
    /// `ceil(q * n)`. `None` when empty.
    pub fn quantile(&self, q: f64) -> Option<Micros> {
        if self.total == 0 {
            return None;
        }
        let rank = libm::ceil(q.clamp(0.0, 1.0) * self.total as f64).max(1.0) as u64;
        let mut seen = 0;
        for (i, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, w) = bounds(i);
                return Some(Micros(lo + w / 2));
            }
        }
        None
    }

    /// Adds another histogram's counts.
    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.total += other.total;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous() {
        let mut last = 0;
        for v in [
            0u64,
            1,
            127,
            128,
            129,
            255,
            256,
            1000,
            1_000_000,
            u64::MAX / 2,
        ] {
            let i = index(v);
            assert!(i >= last);
            let (lo, w) = bounds(i);
            assert!(lo <= v && v < lo.saturating_add(w), "{v}: [{lo}, {lo}+{w})");
            last = i;
        }
        assert!(index(u64::MAX) < BUCKETS);
    }

    #[test]
    fn quantiles_within_two_percent() {
        let mut h = Histogram::default();
        for v in 1..=10_000u64 {
            h.record(Micros(v * 1000));
        }
        let p50 = h.quantile(0.5).unwrap().0 as f64;
        let p99 = h.quantile(0.99).unwrap().0 as f64;
        assert!((p50 / 5_000_000.0 - 1.0).abs() < 0.02, "{p50}");
        assert!((p99 / 9_900_000.0 - 1.0).abs() < 0.02, "{p99}");
    }
}
