//! Splitting counts at random, for the population engine: how many of `n` requests fail
//! (binomial), and over which future parts of ticks a count's jittered waits land
//! (multinomial, as a chain of binomials).
//!
//! Each draw is exact where its expected count is small (a search over the distribution's
//! probabilities); where both a count and its complement exceed
//! [`EXACT_UP_TO`] it is drawn from the normal with the same mean and variance, rounded and
//! clamped, whose skewness there is under 5%. Written here, not taken from `rand_distr`, so
//! that every float operation is `libm`'s and a link's numbers are the same natively and in
//! the page.

use crate::retry::rng::{Rng, Words};

/// The largest expected count (of the smaller side) drawn exactly.
pub const EXACT_UP_TO: f64 = 500.0;

/// How many of `n` succeed, each with probability `p`.
pub fn binomial(rng: &mut Rng, n: u64, p: f64) -> u64 {
    if n == 0 || p <= 0.0 {
        return 0;
    }
    if p >= 1.0 {
        return n;
    }
    if p > 0.5 {
        return n - binomial(rng, n, 1.0 - p);
    }
    let mean = n as f64 * p;
    if mean > EXACT_UP_TO {
        let sd = libm::sqrt(mean * (1.0 - p));
        return rounded(rng.normal(mean, sd), n);
    }
    inversion(rng, n, p)
}

/// A binomial draw by inversion: one uniform, then the distribution's probabilities summed
/// from 0 until they pass it (Kachitvichyanukul and Schmeiser's BINV; about `n p` steps).
fn inversion(rng: &mut Rng, n: u64, p: f64) -> u64 {
    let q = 1.0 - p;
    let s = p / q;
    let a = (n as f64 + 1.0) * s;
    loop {
        let mut r = libm::pow(q, n as f64);
        let mut u = rng.next_f64();
        let mut x = 0u64;
        while u > r {
            u -= r;
            x += 1;
            if x > n {
                break; // rounding left a sliver above 1: draw again
            }
            r *= a / x as f64 - s;
        }
        if x <= n {
            return x;
        }
    }
}

/// A normal draw rounded to the nearest count in `[0, n]`.
fn rounded(v: f64, n: u64) -> u64 {
    let v = libm::round(v);
    if v <= 0.0 {
        0
    } else if v >= n as f64 {
        n
    } else {
        v as u64
    }
}

/// How many events a Poisson process with mean `mean` brings.
pub fn poisson(rng: &mut Rng, mean: f64) -> u64 {
    if mean <= 0.0 {
        return 0;
    }
    if mean > EXACT_UP_TO {
        let v = libm::round(rng.normal(mean, libm::sqrt(mean)));
        return if v <= 0.0 { 0 } else { v as u64 };
    }
    // Inversion: one uniform, then the probabilities summed from 0 until they pass it.
    let mut p = libm::exp(-mean);
    let mut sum = p;
    let u = rng.next_f64();
    let mut x = 0u64;
    while u > sum && p > 0.0 {
        x += 1;
        p *= mean / x as f64;
        sum += p;
    }
    x
}

/// Spreads `n` over bins whose weights are `weights` (each in `[0, 1]`, summing to 1): the
/// multinomial, drawn as a chain of binomials (each bin takes its share of what the bins
/// before it left). Calls `put(i, count)` for each bin with a count, in order.
pub fn multinomial(rng: &mut Rng, n: u64, weights: &[f64], mut put: impl FnMut(usize, u64)) {
    let mut left = n;
    let mut mass = 1.0;
    for (i, &w) in weights.iter().enumerate() {
        if left == 0 {
            return;
        }
        let last = i + 1 == weights.len();
        let k = if last || mass <= w {
            left
        } else {
            binomial(rng, left, (w / mass).clamp(0.0, 1.0))
        };
        if k > 0 {
            put(i, k);
        }
        left -= k;
        mass -= w;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moments(draws: &[u64]) -> (f64, f64) {
        let n = draws.len() as f64;
        let mean = draws.iter().sum::<u64>() as f64 / n;
        let var = draws
            .iter()
            .map(|&d| (d as f64 - mean).powi(2))
            .sum::<f64>()
            / (n - 1.0);
        (mean, var)
    }

    #[test]
    fn binomial_draws_have_the_mean_and_variance_both_exactly_and_by_the_normal() {
        let mut rng = Rng::stream(3, 1);
        // Exact (mean 12), and the normal (mean 5,000): within 4 standard errors.
        for (n, p) in [(40u64, 0.3), (10_000, 0.5), (1_000_000, 0.005)] {
            let d: alloc::vec::Vec<u64> = (0..20_000).map(|_| binomial(&mut rng, n, p)).collect();
            let (mean, var) = moments(&d);
            let (m, v) = (n as f64 * p, n as f64 * p * (1.0 - p));
            assert!(
                (mean - m).abs() < 4.0 * libm::sqrt(v / 20_000.0),
                "{n} {p}: {mean}"
            );
            assert!((var / v - 1.0).abs() < 0.05, "{n} {p}: {var} against {v}");
            assert!(d.iter().all(|&x| x <= n));
        }
        assert_eq!(binomial(&mut rng, 10, 0.0), 0);
        assert_eq!(binomial(&mut rng, 10, 1.0), 10);
        // An exact draw's distribution: P(X = 0) = 0.7^3 for n = 3, p = 0.3.
        let zeros = (0..100_000)
            .filter(|_| binomial(&mut rng, 3, 0.3) == 0)
            .count();
        assert!((zeros as f64 / 100_000.0 - 0.343).abs() < 0.006, "{zeros}");
    }

    #[test]
    fn poisson_draws_have_their_mean_as_mean_and_variance() {
        let mut rng = Rng::stream(6, 1);
        for mean in [0.5, 12.0, 2_000.0] {
            let d: alloc::vec::Vec<u64> = (0..20_000).map(|_| poisson(&mut rng, mean)).collect();
            let (m, v) = moments(&d);
            assert!(
                (m - mean).abs() < 4.0 * libm::sqrt(mean / 20_000.0),
                "{mean}: {m}"
            );
            assert!((v / mean - 1.0).abs() < 0.05, "{mean}: {v}");
        }
        assert_eq!(poisson(&mut rng, 0.0), 0);
    }

    #[test]
    fn a_multinomial_keeps_every_count_and_spreads_it_by_the_weights() {
        let mut rng = Rng::stream(5, 1);
        let w = [0.5, 0.25, 0.0, 0.25];
        let mut sums = [0u64; 4];
        for _ in 0..2_000 {
            let mut total = 0;
            multinomial(&mut rng, 1_000, &w, |i, k| {
                sums[i] += k;
                total += k;
            });
            assert_eq!(total, 1_000);
        }
        assert_eq!(sums[2], 0);
        for (s, w) in sums.iter().zip(w) {
            assert!((*s as f64 / 2_000_000.0 - w).abs() < 0.002, "{sums:?}");
        }
    }
}
