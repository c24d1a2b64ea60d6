//! Jitter on top of a fixed wait, and Polly's decorrelated V2 curve.
//!
//! Why more than full jitter? The clients people use spread their waits in at least four
//! different shapes, and the shape decides how well a synchronised crowd spreads out:
//!
//! | shape | wait | clients |
//! |---|---|---|
//! | multiply, shortening only | `d * U(0.75, 1)` | openai-python, anthropic |
//! | multiply, both ways | `d * U(0.8, 1.2)`, `d * U(0.5, 1.5)` | gRPC since 2024, cenkalti/backoff, backoff-rs |
//! | multiply, lengthening only | `d * U(1, 2)` | async-retry, backon, Spring's random policy |
//! | add | `d + U(0, 100 ms)`, `d + U(0, 1 s)` | got, stamina, urllib3's `backoff_jitter` |
//!
//! Whether the cap applies before or after the jitter matters too: backon and gRPC jitter the
//! capped wait (so a wait may exceed the cap), stamina and urllib3 cap the jittered one.
//!
//! Every range end is a whole number of microseconds, and the draw is uniform over the whole
//! microseconds in `[low, high]`.
//!
//! ```
//! use retry_model::{Jitter, Micros};
//! let d = Micros::from_millis(400);
//! let openai = Jitter::Mult { lo_milli: 750, hi_milli: 1000 };
//! assert_eq!(openai.range(d), (Micros::from_millis(300), Micros::from_millis(400)));
//! let got = Jitter::Add(Micros::from_millis(100));
//! assert_eq!(got.range(d), (Micros::from_millis(400), Micros::from_millis(500)));
//! ```

use crate::retry::time::Micros;

/// The largest multiplicative jitter factor accepted, in thousandths (10x).
pub const MAX_JITTER_MILLI: u64 = 10_000;

/// A random spread applied to a fixed wait `d` (from `backoff=exponential` or `constant`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Jitter {
    /// The wait is `d` exactly.
    #[default]
    None,
    /// Uniform in `[d * lo, d * hi]`, factors in thousandths (`lo <= hi <= 10`).
    Mult {
        /// The low factor, in thousandths.
        lo_milli: u64,
        /// The high factor, in thousandths.
        hi_milli: u64,
    },
    /// Uniform in `[d, d + add]`.
    Add(Micros),
}

impl Jitter {
    /// The link name.
    pub const fn name(self) -> &'static str {
        match self {
            Jitter::None => "none",
            Jitter::Mult { .. } => "mult",
            Jitter::Add(_) => "add",
        }
    }

    /// The range the wait is drawn from, for a fixed wait `d`.
    pub fn range(self, d: Micros) -> (Micros, Micros) {
        let scale = |m: u64| {
            let v = u128::from(d.0) * u128::from(m) / 1000;
            Micros(u64::try_from(v).unwrap_or(u64::MAX))
        };
        match self {
            Jitter::None => (d, d),
            Jitter::Mult { lo_milli, hi_milli } => (scale(lo_milli), scale(hi_milli)),
            Jitter::Add(a) => (d, d.saturating_add(a)),
        }
    }
}

/// Polly v8's decorrelated jitter V2 at retry `retry` (0-based): with `t = retry + u`, `u`
/// uniform in `[0, 1)`, the curve `f(t) = 2^t * tanh(sqrt(4 t))`; the wait is
/// `(f(t) - previous) / 1.4 * base`, and `previous` becomes `f(t)`. Returns the wait in
/// microseconds (before any cap; `u64::MAX` where it overflows) and the new `previous`.
pub fn decorrelated_v2(retry: u32, u: f64, previous: f64, base: Micros) -> (u64, f64) {
    let t = f64::from(retry) + u;
    let next = libm::pow(2.0, t) * libm::tanh(libm::sqrt(4.0 * t));
    if !next.is_finite() {
        return (u64::MAX, next);
    }
    let wait = (next - previous) * (1.0 / 1.4) * base.0 as f64;
    // `as` saturates: a negative or NaN value is 0, a huge one u64::MAX.
    (wait as u64, next)
}

/// The most decorrelated V2 can wait at retry `retry`: the supremum of
/// `(f(t) - f(t_prev)) / 1.4 * base` with `t` in `[retry, retry + 1)` and the previous
/// retry's `t_prev` in `[retry - 1, retry)`. `f` rises, so the bound is
/// `(f(retry + 1) - f(retry - 1)) / 1.4 * base` (`f(1) / 1.4 * base` for the first retry,
/// whose previous value is 0). For a base of 1 s the third retry's bound is 4.326 s.
pub fn decorrelated_v2_ceiling(retry: u32, base: Micros) -> Micros {
    let f = |t: f64| libm::pow(2.0, t) * libm::tanh(libm::sqrt(4.0 * t));
    let t = f64::from(retry) + 1.0;
    let previous = if retry == 0 { 0.0 } else { f(t - 2.0) };
    let top = (f(t) - previous) / 1.4 * base.0 as f64;
    Micros(top as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polly_v2_matches_its_formula_by_hand() {
        // t = 0.5: 2^0.5 * tanh(sqrt(2)) = 1.41421 * 0.88838 = 1.25636; / 1.4 * 1 s = 897.4 ms.
        let (w, prev) = decorrelated_v2(0, 0.5, 0.0, Micros::from_secs(1));
        assert_eq!(w / 1000, 897);
        assert!((prev - 1.256_36).abs() < 1e-4, "{prev}");
        // The next retry subtracts the previous value of the curve.
        let (w2, _) = decorrelated_v2(1, 0.5, prev, Micros::from_secs(1));
        let f15 = libm::pow(2.0, 1.5) * libm::tanh(libm::sqrt(6.0));
        assert_eq!(w2, ((f15 - prev) / 1.4 * 1e6) as u64);
        assert!(Micros(w2) <= decorrelated_v2_ceiling(1, Micros::from_secs(1)));
    }

    #[test]
    fn polly_v2_ceiling_is_the_most_a_retry_can_wait() {
        // Polly's own bound for a 1 s median first delay at the third retry.
        assert_eq!(
            (decorrelated_v2_ceiling(2, Micros::from_secs(1)).0 + 500) / 1000,
            4_326
        );
        // Draws with the current u near 1 and the previous u near 0 come within 1 % of it,
        // and none passes it.
        for retry in 1..6 {
            let top = decorrelated_v2_ceiling(retry, Micros::from_secs(1)).0;
            let mut most = 0;
            for i in 0..100 {
                for j in 0..100 {
                    let (_, prev) =
                        decorrelated_v2(retry - 1, f64::from(i) / 100.0, 0.0, Micros::from_secs(1));
                    let (w, _) =
                        decorrelated_v2(retry, f64::from(j) / 100.0, prev, Micros::from_secs(1));
                    assert!(w <= top, "retry {retry}: {w} > {top}");
                    most = most.max(w);
                }
            }
            assert!(
                most * 100 >= top * 99 - top,
                "retry {retry}: {most} of {top}"
            );
        }
    }

    #[test]
    fn ranges_saturate_instead_of_wrapping() {
        let j = Jitter::Mult {
            lo_milli: 500,
            hi_milli: 10_000,
        };
        assert_eq!(j.range(Micros(u64::MAX)).1, Micros(u64::MAX));
        assert_eq!(
            Jitter::Add(Micros(5)).range(Micros(u64::MAX)).1,
            Micros(u64::MAX)
        );
        assert_eq!(Jitter::None.range(Micros(7)), (Micros(7), Micros(7)));
    }
}
