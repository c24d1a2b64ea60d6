//! How sure a figure over several runs is: a 95% interval beside each mean, and an exact one
//! for a share of runs (how many recovered, how many collapsed).
//!
//! - A mean over runs (amplification, success rate, peak attempts/s, completion, the latency
//!   percentiles) gets a percentile bootstrap: [`RESAMPLES`] resamples of the runs drawn with a
//!   pinned generator from the link's seed, the 2.5th and 97.5th percentiles of their means.
//!   The runs of a storm are independent (each its own random stream) but the requests within
//!   one run are not, so the run, not the request, is the unit resampled. With few runs the
//!   bootstrap is too narrow, and the text says so under [`FEW_RUNS`].
//! - A share of runs (`k` of `n` recovered) gets the Clopper-Pearson interval: exact, never
//!   narrower than the truth, and defined at `k = 0` and `k = n`, where the normal
//!   approximation gives a width of zero.
//!
//! Hand-written, not from a statistics crate: the core is `no_std`, and `statrs` (which has
//! the beta quantile) needs `std`. Clopper-Pearson's bounds are found by bisection on the
//! binomial tail, summed in logs with `libm`, so native and wasm give the same bits.

use crate::retry::rng::{Rng, Words};
use alloc::vec::Vec;

/// Bootstrap resamples: odd, so the percentile ranks fall on whole resamples.
pub const RESAMPLES: usize = 1999;

/// Under this many runs a bootstrap interval is rough, and the text says so.
pub const FEW_RUNS: u32 = 10;

/// The random stream of the bootstrap (offset from the runs' streams).
const STREAM_BOOTSTRAP: u64 = 6 << 40;

/// A 95% interval.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Interval {
    /// The lower bound.
    pub low: f64,
    /// The upper bound.
    pub high: f64,
}

/// `k` of `n` runs, with the Clopper-Pearson 95% interval of the share.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Share {
    /// Runs counted.
    pub k: u32,
    /// Runs in all.
    pub n: u32,
    /// The share's 95% interval.
    pub interval: Interval,
}

impl Share {
    /// `k` of `n`, with its exact interval.
    pub fn of(k: u32, n: u32) -> Share {
        Share {
            k,
            n,
            interval: clopper_pearson(k, n),
        }
    }

    /// `k / n` (0 when `n` is 0).
    pub fn share(&self) -> f64 {
        f64::from(self.k) / f64::from(self.n.max(1))
    }
}

/// The percentile bootstrap's 95% interval of the mean of `values`, resampled with `rng`.
/// `None` for fewer than two values.
pub fn bootstrap_mean(values: &[f64], rng: &mut Rng) -> Option<Interval> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let mut means: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            let sum: f64 = (0..n).map(|_| values[rng.below(n as u64) as usize]).sum();
            sum / n as f64
        })
        .collect();
    means.sort_unstable_by(f64::total_cmp);
    // The 50th and the 1950th of 1999: 2.5% of them lie at or below the first, at or above
    // the second.
    let lo = (RESAMPLES + 1) / 40 - 1;
    let hi = RESAMPLES - 1 - lo;
    Some(Interval {
        low: means[lo],
        high: means[hi],
    })
}

/// The bootstrap's generator for a run of `seed`.
pub fn bootstrap_rng(seed: u64) -> Rng {
    Rng::stream(seed, STREAM_BOOTSTRAP)
}

/// `ln C(n, k)`.
fn ln_choose(n: u32, k: u32) -> f64 {
    let (n, k) = (f64::from(n), f64::from(k));
    libm::lgamma(n + 1.0) - libm::lgamma(k + 1.0) - libm::lgamma(n - k + 1.0)
}

/// `P(X >= k)` for `X ~ Binomial(n, p)`, `0 < p < 1`: the first term in logs, each next one
/// from the last by the ratio `(n - i) / (i + 1) x p / (1 - p)` (one `lgamma` a call, not one
/// a term: `sequential` asks after every run).
fn upper_tail(k: u32, n: u32, p: f64) -> f64 {
    let (lp, lq) = (libm::log(p), libm::log1p(-p));
    let mut term = libm::exp(ln_choose(n, k) + f64::from(k) * lp + f64::from(n - k) * lq);
    let odds = p / (1.0 - p);
    let mut sum = 0.0;
    for i in k..=n {
        sum += term;
        term *= f64::from(n - i) / f64::from(i + 1) * odds;
    }
    sum.min(1.0)
}

/// The `p` in (0, 1) where the increasing `f` reaches `target`, by bisection.
fn solve(target: f64, f: impl Fn(f64) -> f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if f(mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// The Clopper-Pearson 95% interval for `k` successes of `n`: the `p` where seeing `k` or more
/// has probability 2.5%, and where seeing `k` or fewer has. `[0, 1]` for `n = 0`.
pub fn clopper_pearson(k: u32, n: u32) -> Interval {
    if n == 0 {
        return Interval {
            low: 0.0,
            high: 1.0,
        };
    }
    let k = k.min(n);
    let low = if k == 0 {
        0.0
    } else {
        solve(0.025, |p| upper_tail(k, n, p))
    };
    let high = if k == n {
        1.0
    } else {
        // P(X <= k) = 1 - P(X >= k + 1) falls as p grows.
        solve(0.975, |p| upper_tail(k + 1, n, p))
    };
    Interval { low, high }
}

/// The 95% intervals of a summary over several runs (`runs=N`, N > 1), beside the means the
/// summary holds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Intervals {
    /// The runs the figures are over.
    pub runs: u32,
    /// The runs the link asked for: more than `runs` when `sequential` stopped once the
    /// recovered share was clear of one half.
    pub planned: u32,
    /// Of the mean attempts per original.
    pub amplification: Option<Interval>,
    /// Of the mean success rate.
    pub success_rate: Option<Interval>,
    /// Of the mean peak attempts/s.
    pub peak_attempts_per_s: Option<Interval>,
    /// Of the mean completion, ms.
    pub completion_ms: Option<Interval>,
    /// Of the mean p50, ms (over the runs with a success).
    pub p50_ms: Option<Interval>,
    /// Of the mean p99, ms.
    pub p99_ms: Option<Interval>,
    /// Of the mean p99.9, ms.
    pub p999_ms: Option<Interval>,
    /// How many runs recovered after their trigger, when every run could tell.
    pub recovered: Option<Share>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn near(a: f64, b: f64) {
        assert!((a - b).abs() < 5e-5, "{a} against {b}");
    }

    /// Against published values (R's `binom.test`).
    #[test]
    fn clopper_pearson_meets_the_tables() {
        let i = clopper_pearson(5, 10);
        near(i.low, 0.18709);
        near(i.high, 0.81291);
        let z = clopper_pearson(0, 10);
        assert_eq!(z.low, 0.0);
        near(z.high, 1.0 - libm::pow(0.025, 0.1)); // 0.30850
        let all = clopper_pearson(20, 20);
        near(all.low, libm::pow(0.025, 1.0 / 20.0)); // 0.83157
        assert_eq!(all.high, 1.0);
        let i = clopper_pearson(3, 8);
        near(i.low, 0.08523);
        near(i.high, 0.75514);
    }

    #[test]
    fn the_bootstrap_holds_the_mean_and_narrows_with_runs() {
        let mut rng = bootstrap_rng(1);
        assert_eq!(bootstrap_mean(&[3.0], &mut rng), None);
        let same = bootstrap_mean(&[2.0; 30], &mut rng).unwrap();
        assert_eq!((same.low, same.high), (2.0, 2.0));
        let few: Vec<f64> = (0..10).map(|i| f64::from(i % 5)).collect();
        let many: Vec<f64> = (0..1000).map(|i| f64::from(i % 5)).collect();
        let (a, b) = (
            bootstrap_mean(&few, &mut rng).unwrap(),
            bootstrap_mean(&many, &mut rng).unwrap(),
        );
        assert!(a.low < 2.0 && 2.0 < a.high, "{a:?}");
        assert!(b.low < 2.0 && 2.0 < b.high, "{b:?}");
        assert!(b.high - b.low < (a.high - a.low) / 5.0, "{a:?} {b:?}");
        // The standard error of 1000 values of variance 2 is 0.0447: the 95% width is near
        // 4 of them.
        assert!((b.high - b.low - 0.175).abs() < 0.03, "{b:?}");
    }
}
