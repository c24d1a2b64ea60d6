//! The portable random number generator.
//!
//! Why not `rand`'s `SmallRng` or `StdRng`? Their algorithm is allowed to change between releases
//! and `SmallRng` is a different generator on 32-bit targets such as wasm32 than on x86_64, so a
//! shared link would draw different jitter in the browser and in the CLI. This module pins one
//! named algorithm, xoshiro256** (Blackman and Vigna, 2018) from the `rand_xoshiro` crate,
//! seeded through SplitMix64 (`seed_from_u64`), and a reference-vector test below fails if a
//! single bit of it changes.
//!
//! Every stream is derived from the link's one master seed and a stream number, so client 7's
//! jitter does not change when client 8 is added.
//!
//! ```
//! use retry_model::{Rng, Words};
//! let mut a = Rng::stream(42, 7);
//! let mut b = Rng::stream(42, 7);
//! assert_eq!(a.next_u64(), b.next_u64());
//! let w = a.uniform_inclusive(0, 100);
//! assert!(w <= 100);
//! ```

use core::convert::Infallible;
use rand_core::{Rng as _, SeedableRng, TryRng};
use rand_xoshiro::{SplitMix64, Xoshiro256StarStar};

/// xoshiro256** with SplitMix64 seeding: `rand_xoshiro`'s generator behind the `rand_core`
/// traits, with the lab's own samplers on top.
///
/// The samplers (`below`, `uniform_inclusive`, `next_f64`, `normal`) are the project's own
/// rather than `rand`'s distributions on purpose: their results depend only on the 64-bit words
/// drawn and on plain integer or IEEE arithmetic, so they are bit-identical natively and in
/// wasm and cannot change with a `rand` release; they are pinned by the tests below and by every
/// golden fingerprint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    inner: Xoshiro256StarStar,
}

/// SplitMix64 output for `state`, advancing it: the standard way to expand a 64-bit seed, here
/// `rand_xoshiro`'s `SplitMix64`.
pub fn splitmix64(state: &mut u64) -> u64 {
    let mut g = SplitMix64::seed_from_u64(*state);
    let out = g.next_u64();
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    out
}

impl Rng {
    /// A generator with the raw xoshiro256** state `s` (not all zero).
    pub fn from_state(s: [u64; 4]) -> Self {
        let mut bytes = [0u8; 32];
        for (chunk, word) in bytes.chunks_exact_mut(8).zip(s) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        Rng {
            inner: Xoshiro256StarStar::from_seed(bytes),
        }
    }

    /// A generator seeded from a 64-bit seed through SplitMix64 (`seed_from_u64`).
    pub fn from_seed(seed: u64) -> Self {
        Rng {
            inner: Xoshiro256StarStar::seed_from_u64(seed),
        }
    }

    /// Stream number `stream` of master seed `seed`. Streams are independent for practical
    /// purposes: the pair is mixed through SplitMix64 before seeding.
    pub fn stream(seed: u64, stream: u64) -> Self {
        let mut sm = seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03);
        let mixed = splitmix64(&mut sm) ^ stream;
        Rng::from_seed(mixed)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// A normal draw with the given mean and standard deviation, from one 53-bit uniform
    /// through the inverse normal CDF (Acklam's rational approximation, relative error below
    /// 1.2e-9). One uniform per draw and plain arithmetic in the central 95%, so it is fast and
    /// the same on every target (`libm` for the tails).
    pub fn normal(&mut self, mean: f64, sd: f64) -> f64 {
        // u in (0, 1): never exactly 0 or 1.
        let u = ((self.next_u64() >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64);
        mean + sd * inverse_normal_cdf(u)
    }
}

/// A source of 64-bit random words with the lab's samplers on top: the generator itself
/// ([`Rng`]), or words a model drew from it ahead of use (`occ`'s hops). Every sampler depends
/// only on the words it takes, in order, so a source that hands out the generator's words in
/// their order gives the same draws as the generator.
pub trait Words {
    /// The next 64 random bits.
    fn next_u64(&mut self) -> u64;

    /// A float uniform in `[0, 1)` with 53 random bits.
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    crate::arch::hot! {
    /// An integer uniform in `[0, n)`; `n` must be positive. Lemire's multiply-and-reject, so
    /// there is no modulo bias and the result depends only on the bits drawn.
    fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        let m = u128::from(self.next_u64()) * u128::from(n);
        // The rejection threshold (2^64 mod n) is below n, so it only needs computing (a
        // division) when the low half is below n, which is rare.
        if (m as u64) < n {
            return rejecting(self, m, n);
        }
        (m >> 64) as u64
    }

    }

    crate::arch::hot! {
    /// An integer uniform in `[lo, hi]`, both ends included. Returns `lo` when `hi <= lo`.
    fn uniform_inclusive(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        let span = hi - lo;
        if span == u64::MAX {
            return self.next_u64();
        }
        lo + self.below(span + 1)
    }
    }
}

/// [`Words::below`] once the first product's low half is below `n`: draws again while it
/// is below the rejection threshold, 2^64 mod `n`. Kept out of line, as it is rare.
#[cold]
#[inline(never)]
fn rejecting<W: Words + ?Sized>(words: &mut W, mut m: u128, n: u64) -> u64 {
    let threshold = n.wrapping_neg() % n;
    while (m as u64) < threshold {
        m = u128::from(words.next_u64()) * u128::from(n);
    }
    (m >> 64) as u64
}

impl Words for Rng {
    #[inline]
    fn next_u64(&mut self) -> u64 {
        Rng::next_u64(self)
    }
}

/// A fast normal sampler: the inverse CDF tabulated at 4096 points and interpolated linearly,
/// with the exact quantile in the outermost two intervals. Built once (about 4096 quantile
/// evaluations) and shared; each draw is one uniform, one lookup and one multiply-add.
#[derive(Clone, Debug)]
pub struct NormalTable {
    // q[i] = quantile(i / 4096) for i in 1..4096; q[0] and q[4096] NaN, which only
    // `x86_64::fill_narrow` meets (for a word in the outermost intervals, which it then marks). An
    // array, so that the index (12 bits of the word) needs no bounds check.
    q: alloc::boxed::Box<Quantiles>,
}

/// [`NormalTable`]'s quantiles.
pub type Quantiles = [f64; NormalTable::N + 1];

impl Default for NormalTable {
    fn default() -> Self {
        NormalTable::new()
    }
}

impl NormalTable {
    pub(crate) const BITS: u32 = 12;
    const N: usize = 1 << Self::BITS;

    /// Tabulates the standard normal quantile.
    pub fn new() -> Self {
        let n = Self::N;
        let mut q = alloc::boxed::Box::new([f64::NAN; Self::N + 1]);
        for (i, v) in q.iter_mut().enumerate().take(n).skip(1) {
            *v = inverse_normal_cdf(i as f64 / n as f64);
        }
        NormalTable { q }
    }

    /// The draw from `Normal(mean, sd)` that the random word `word` gives.
    #[inline(always)]
    pub fn sample(&self, word: u64, mean: f64, sd: f64) -> f64 {
        Self::sample_from(&self.q, word, mean, sd)
    }

    /// The table itself, for a loop that draws many: held in a local, its address is not
    /// loaded again after every store the loop makes.
    pub fn quantiles(&self) -> &Quantiles {
        &self.q
    }

    /// The delays `|sample_from(q, w, mean, sd)|` rounded half up (through `i64`) of two
    /// words. Where [`NormalTable::narrow`] holds for `mean` and `sd`, the same numbers come
    /// from `NormalTable::fill_narrow`.
    #[inline(always)]
    pub fn delays(q: &Quantiles, w: [u64; 2], mean: f64, sd: f64) -> [u64; 2] {
        w.map(|w| (Self::sample_from(q, w, mean, sd).abs() + 0.5) as i64 as u64)
    }

    /// Fills `words` with words from `draw`, two at a time, and `delays` with the
    /// [`NormalTable::delays`] of each pair: where `narrow` ([`NormalTable::narrow`] holds for
    /// `mean` and `sd`) on x86-64, both words of a pair at once in SSE2's lanes
    /// (`rng/x86_64.rs`), elsewhere (the page's wasm included) one word at a time. Either way
    /// the same numbers.
    #[inline(always)]
    pub fn fill(
        q: &Quantiles,
        words: &mut [[u64; 2]],
        delays: &mut [[u64; 2]],
        (mean, sd): (f64, f64),
        narrow: bool,
        mut draw: impl FnMut() -> u64,
    ) {
        let exact = |w| Self::delays(q, w, mean, sd);
        if narrow
            && crate::arch::fill_pairs::<{ NormalTable::BITS }, { NormalTable::N + 1 }>(
                q,
                words,
                delays,
                (mean, sd),
                &mut draw,
                exact,
            )
        {
            return;
        }
        for (w, d) in words.iter_mut().zip(delays) {
            *w = [draw(), draw()];
            *d = Self::delays(q, *w, mean, sd);
        }
    }

    /// Whether every `|Normal(mean, sd)|` delay stays below 2^31 µs, the range
    /// `NormalTable::fill_narrow` needs: a draw from a 53-bit uniform is within 8.3
    /// standard deviations of the mean.
    pub fn narrow(mean: f64, sd: f64) -> bool {
        mean.abs() + 9.0 * sd.abs() < (1u64 << 30) as f64
    }

    /// [`NormalTable::sample`] from the table `q` (see [`NormalTable::quantiles`]).
    #[inline(always)]
    pub fn sample_from(q: &Quantiles, word: u64, mean: f64, sd: f64) -> f64 {
        let bits = word >> 11; // 53 bits
        let idx = (bits >> (53 - Self::BITS)) as usize;
        let z = if idx == 0 || idx == Self::N - 1 {
            inverse_normal_cdf((bits as f64 + 0.5) * (1.0 / (1u64 << 53) as f64))
        } else {
            let frac = (bits & ((1 << (53 - Self::BITS)) - 1)) as f64
                * (1.0 / (1u64 << (53 - Self::BITS)) as f64);
            q[idx] + frac * (q[idx + 1] - q[idx])
        };
        mean + sd * z
    }
}

/// The standard normal quantile for `p` in (0, 1) (Acklam's algorithm).
pub fn inverse_normal_cdf(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969683028665376e+01,
        2.209460984245205e+02,
        -2.759285104469687e+02,
        1.38357751867269e+02,
        -3.066479806614716e+01,
        2.506628277459239e+00,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e+01,
        1.615858368580409e+02,
        -1.556989798598866e+02,
        6.680131188771972e+01,
        -1.328068155288572e+01,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-03,
        -3.223964580411365e-01,
        -2.400758277161838e+00,
        -2.549732539343734e+00,
        4.374664141464968e+00,
        2.938163982698783e+00,
    ];
    const D: [f64; 4] = [
        7.784695709041462e-03,
        3.224671290700398e-01,
        2.445134137142996e+00,
        3.754408661907416e+00,
    ];
    const LOW: f64 = 0.02425;
    if p < LOW {
        let q = libm::sqrt(-2.0 * libm::log(p));
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    } else if p <= 1.0 - LOW {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        let q = libm::sqrt(-2.0 * libm::log(1.0 - p));
        -(((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    }
}

impl TryRng for Rng {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        self.inner.try_next_u32()
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        self.inner.try_next_u64()
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Infallible> {
        self.inner.try_fill_bytes(dest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published xoshiro256** reference: state [1, 2, 3, 4].
    #[test]
    fn reference() {
        let mut rng = Rng::from_state([1, 2, 3, 4]);
        let expected: [u64; 10] = [
            11520,
            0,
            1509978240,
            1215971899390074240,
            1216172134540287360,
            607988272756665600,
            16172922978634559625,
            8476171486693032832,
            10595114339597558777,
            2904607092377533576,
        ];
        for e in expected {
            assert_eq!(rng.next_u64(), e);
        }
    }

    /// SplitMix64 reference values for seed 1234567 (from the algorithm's published test).
    #[test]
    fn splitmix_reference() {
        let mut s = 1234567u64;
        let expected: [u64; 5] = [
            6457827717110365317,
            3203168211198807973,
            9817491932198370423,
            4593380528125082431,
            16408922859458223821,
        ];
        for e in expected {
            assert_eq!(splitmix64(&mut s), e);
        }
    }

    #[test]
    fn uniform_inclusive_hits_both_ends() {
        let mut rng = Rng::from_seed(9);
        let (mut lo, mut hi) = (false, false);
        for _ in 0..2000 {
            let v = rng.uniform_inclusive(3, 6);
            assert!((3..=6).contains(&v));
            lo |= v == 3;
            hi |= v == 6;
        }
        assert!(lo && hi);
        assert_eq!(rng.uniform_inclusive(5, 5), 5);
    }

    #[test]
    fn normal_quantiles() {
        assert!(inverse_normal_cdf(0.5).abs() < 1e-12);
        assert!((inverse_normal_cdf(0.975) - 1.959963984540054).abs() < 1e-8);
        assert!((inverse_normal_cdf(0.001) + 3.090232306167813).abs() < 1e-8);
        let mut rng = Rng::from_seed(4);
        let n = 200_000;
        let (mut sum, mut sq) = (0.0, 0.0);
        for _ in 0..n {
            let x = rng.normal(10.0, 2.0);
            sum += x;
            sq += x * x;
        }
        let mean = sum / n as f64;
        let var = sq / n as f64 - mean * mean;
        assert!((mean - 10.0).abs() < 0.02, "{mean}");
        assert!((var - 4.0).abs() < 0.05, "{var}");
    }

    #[test]
    fn normal_table_matches_the_distribution() {
        let t = NormalTable::new();
        let mut rng = Rng::from_seed(11);
        let n = 400_000;
        let (mut sum, mut sq, mut below) = (0.0, 0.0, 0);
        for _ in 0..n {
            let x = t.sample(rng.next_u64(), 0.0, 1.0);
            sum += x;
            sq += x * x;
            if x < -1.959963984540054 {
                below += 1;
            }
        }
        let mean = sum / n as f64;
        assert!(mean.abs() < 0.01, "{mean}");
        assert!((sq / n as f64 - 1.0).abs() < 0.01);
        let tail = below as f64 / n as f64;
        assert!((tail - 0.025).abs() < 0.001, "{tail}");
    }

    #[test]
    fn streams_differ() {
        let a = Rng::stream(1, 0).next_u64();
        let b = Rng::stream(1, 1).next_u64();
        let c = Rng::stream(2, 0).next_u64();
        assert_ne!(a, b);
        assert_ne!(a, c);
    }
}
