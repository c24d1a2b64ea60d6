//! The fingerprint hash: FNV-1a over 64 bits, fed little-endian words.
//!
//! Hand-written rather than the `fnv` crate on purpose: every pinned fingerprint in
//! `tests/golden/` is this exact byte stream, and `core::hash::Hasher::write_u64` writes
//! native-endian bytes, so the little-endian feeding is spelled out here once.

/// FNV-1a, 64 bit.
pub(crate) struct Fnv(pub(crate) u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv::new()
    }
}

impl Fnv {
    pub(crate) fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    pub(crate) fn bytes(&mut self, b: &[u8]) {
        for x in b {
            self.0 ^= u64::from(*x);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
    pub(crate) fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
    pub(crate) fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.bytes(s.as_bytes());
    }
}
