//! The fingerprint hash: FNV-1a over 64 bits, fed little-endian words.
//!
//! Hand-written rather than the `fnv` crate on purpose: every pinned fingerprint in
//! `tests/golden/` is this exact byte stream, and `core::hash::Hasher::write_u64` writes
//! native-endian bytes, so the little-endian feeding is spelled out here once.

const PRIME: u64 = 0x0000_0100_0000_01B3;

/// `PRIME` to the powers 0 to 8: feeding a zero byte only multiplies by `PRIME` (`x ^ 0 = x`),
/// so `k` zero bytes multiply by `PRIME^k` at once.
const POWERS: [u64; 9] = {
    let mut p = [1u64; 9];
    let mut i = 1;
    while i < 9 {
        p[i] = p[i - 1].wrapping_mul(PRIME);
        i += 1;
    }
    p
};

/// FNV-1a, 64 bit.
pub struct Fnv(pub u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv::new()
    }
}

impl Fnv {
    /// The hash of nothing (FNV-1a's offset basis).
    pub fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    /// Feeds bytes one at a time.
    pub fn bytes(&mut self, b: &[u8]) {
        for x in b {
            self.0 ^= u64::from(*x);
            self.0 = self.0.wrapping_mul(PRIME);
        }
    }
    /// Feeds `v`'s eight little-endian bytes. The high zero bytes (most counts are small) go
    /// in as one multiplication: the same hash as byte by byte, and a run's fingerprint over
    /// its bins costs a quarter of the multiplications.
    pub fn u64(&mut self, v: u64) {
        // One byte and seven zero bytes: `(h ^ v) * PRIME * PRIME^7`.
        if v < 0x100 {
            self.0 = (self.0 ^ v).wrapping_mul(POWERS[8]);
            return;
        }
        let low = 8 - (v.leading_zeros() / 8) as usize;
        self.bytes(&v.to_le_bytes()[..low]);
        self.0 = self.0.wrapping_mul(POWERS[8 - low]);
    }
    /// Feeds `k` zero words: `k * 8` zero bytes, each of which only multiplies by `PRIME`, so
    /// all of them multiply by `PRIME^(8k)`, raised by squaring. The same hash as `k` calls of
    /// [`Fnv::u64`] with 0; a run's empty bins (most bins of a long, quiet run) cost a few
    /// multiplications in all.
    pub fn zero_words(&mut self, k: u32) {
        // None (a run's busy bins are mostly back to back): no multiplication on the hash's
        // chain of dependent ones.
        if k != 0 {
            self.0 = self.0.wrapping_mul(POWERS[8].wrapping_pow(k));
        }
    }
    /// Feeds a string's length, then its bytes.
    pub fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.bytes(s.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeding a word with its zero bytes folded gives the byte-by-byte hash.
    #[test]
    fn a_word_hashes_as_its_bytes() {
        let words = [
            0,
            1,
            0xff,
            0x100,
            0x1234_5678,
            1 << 40,
            u64::MAX,
            0x8000_0000_0000_0000,
        ];
        for v in words {
            let mut a = Fnv::new();
            a.u64(v);
            let mut b = Fnv::new();
            b.bytes(&v.to_le_bytes());
            assert_eq!(a.0, b.0, "{v:#x}");
        }
        for k in [0, 1, 2, 3, 7, 30, 31, 32, 33, 64, 1000, 40_001] {
            let (mut a, mut b) = (Fnv::new(), Fnv::new());
            a.u64(0x1234);
            b.u64(0x1234);
            a.zero_words(k);
            (0..k).for_each(|_| b.bytes(&[0; 8]));
            assert_eq!(a.0, b.0, "{k} zero words");
        }
    }
}
