//! The portable random number generator.
//!
//! Why not `rand`'s `SmallRng` or `StdRng`? Their algorithm is allowed to change between releases
//! and `SmallRng` is a different generator on 32-bit targets such as wasm32 than on x86_64, so a
//! shared link would draw different jitter in the browser and in the CLI. This module pins one
//! named algorithm, xoshiro256** (Blackman and Vigna, 2018), seeded through SplitMix64, and a
//! reference-vector test below fails if a single bit of it changes.
//!
//! Every stream is derived from the link's one master seed and a stream number, so client 7's
//! jitter does not change when client 8 is added.
//!
//! ```
//! use retry_model::Rng;
//! let mut a = Rng::stream(42, 7);
//! let mut b = Rng::stream(42, 7);
//! assert_eq!(a.next_u64(), b.next_u64());
//! let w = a.uniform_inclusive(0, 100);
//! assert!(w <= 100);
//! ```

/// xoshiro256** with SplitMix64 seeding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
}

/// One step of SplitMix64: the standard way to expand a 64-bit seed into generator state.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// A generator with the raw xoshiro256** state `s` (not all zero).
    pub const fn from_state(s: [u64; 4]) -> Self {
        Rng { s }
    }

    /// A generator seeded from a 64-bit seed through SplitMix64.
    pub fn from_seed(seed: u64) -> Self {
        let mut sm = seed;
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Rng { s }
    }

    /// Stream number `stream` of master seed `seed`. Streams are independent for practical
    /// purposes: the pair is mixed through SplitMix64 before seeding.
    pub fn stream(seed: u64, stream: u64) -> Self {
        let mut sm = seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03);
        let mixed = splitmix64(&mut sm) ^ stream;
        Rng::from_seed(mixed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A float uniform in `[0, 1)` with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// An integer uniform in `[0, n)`; `n` must be positive. Lemire's multiply-and-reject, so
    /// there is no modulo bias and the result depends only on the bits drawn.
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        let threshold = n.wrapping_neg() % n;
        loop {
            let m = u128::from(self.next_u64()) * u128::from(n);
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }

    /// An integer uniform in `[lo, hi]`, both ends included. Returns `lo` when `hi <= lo`.
    pub fn uniform_inclusive(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        let span = hi - lo;
        if span == u64::MAX {
            return self.next_u64();
        }
        lo + self.below(span + 1)
    }

    /// A standard normal draw (Box-Muller; uses `libm` so it is the same on every target).
    pub fn normal(&mut self, mean: f64, sd: f64) -> f64 {
        let u1 = 1.0 - self.next_f64(); // in (0, 1], so ln is finite
        let u2 = self.next_f64();
        let r = libm::sqrt(-2.0 * libm::log(u1));
        mean + sd * r * libm::cos(2.0 * core::f64::consts::PI * u2)
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
    fn streams_differ() {
        let a = Rng::stream(1, 0).next_u64();
        let b = Rng::stream(1, 1).next_u64();
        let c = Rng::stream(2, 0).next_u64();
        assert_ne!(a, b);
        assert_ne!(a, c);
    }
}
