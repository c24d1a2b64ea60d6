//! The engine's target-specific code, all of it: every `target_arch` of the core is in this
//! file or under `arch/` (the layout check refuses one elsewhere). Each choice gives the same
//! numbers on every target; only the speed or the size differs.
//!
//! - The page (wasm32) keeps its size down: hot functions are inlined where the compiler
//!   judges ([`hot!`]) and the native-only tiers ([`PAGE`]) are left out.
//! - x86-64 draws two normal delays at once in SSE2's lanes ([`fill_pairs`], `arch/x86_64.rs`)
//!   and plays a tournament's match without a branch ([`lower_key`]).

/// Whether this is the page's build (wasm32), where code size counts: the native-only tiers
/// (`sim/occ/native.rs`) are left out of it.
pub(crate) const PAGE: bool = cfg!(target_arch = "wasm32");

/// A hot function: always inlined natively; on the page, where size counts, inlined where the
/// compiler judges it pays.
macro_rules! hot {
    ($item:item) => {
        #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
        #[cfg_attr(target_arch = "wasm32", inline)]
        $item
    };
}
pub(crate) use hot;

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod x86_64;

/// Fills `words` with words from `draw`, two at a time, and `delays` with each pair's normal
/// delays from the table `q` (a word's top `BITS` bits index it), both words of a pair at once,
/// where the target has lanes for it (x86-64's SSE2); `exact` is a pair's delays one word at a
/// time, for the words the lanes cannot take. Returns `false`, having drawn nothing, where the
/// target has no such lanes (the caller then draws one word at a time).
#[inline(always)]
pub(crate) fn fill_pairs<const BITS: u32, const N: usize>(
    q: &[f64; N],
    words: &mut [[u64; 2]],
    delays: &mut [[u64; 2]],
    spread: (f64, f64),
    draw: impl FnMut() -> u64,
    exact: impl Fn([u64; 2]) -> [u64; 2],
) -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        x86_64::fill_narrow::<BITS, N>(q, words, delays, spread, draw, exact);
        true
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        let _ = (q, words, delays, spread, draw, exact);
        false
    }
}

/// One match of a tournament: the lower key wins, with no branch (its outcome is a coin toss,
/// so a branch would mispredict about every other match). On x86-64 a `min` is a compare and a
/// conditional move, which LLVM's `x86-cmov-converter` pass turns into a branch here (2.4 times
/// the sweep's time), so the mask comes from a 128-bit subtraction's borrow instead, which
/// stays arithmetic whatever the build's flags (1.15 times the conditional move's time).
/// Elsewhere (the page's wasm) a `min` is a branch-free `select`, and the subtraction would cost
/// it a fifth more.
#[inline(always)]
pub(crate) fn lower_key(sibling: u64, key: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let lower = (u128::from(sibling).wrapping_sub(u128::from(key)) >> 64) as u64;
        key ^ ((sibling ^ key) & lower)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        sibling.min(key)
    }
}
