//! Two delays at once in SSE2's two lanes, for `NormalTable::fill` on x86-64 where
//! `NormalTable::narrow` holds (elsewhere, the page's wasm included, `fill` takes one word at
//! a time, with the same numbers). The table's layout comes in as parameters: `BITS`, the bits
//! of a word that index the table `q` of `N` quantiles, and `exact`, a pair's delays drawn one
//! word at a time, so that this file knows nothing of the generator's types.

/// [`NormalTable::fill_narrow`]'s lane for a word in one of the two outermost intervals: NaN
/// truncated to `i32` (its "integer indefinite", `i32::MIN`) and widened.
const MARK: u64 = 1 << 31;

/// Fills `words` with words from `draw`, two at a time, and `delays` with the
/// [`NormalTable::delays`] of each pair, where [`NormalTable::narrow`] holds for `mean` and
/// `sd`: both words of a pair at once in SSE2's lanes (`safe_arch`; x86-64 only, and
/// elsewhere, the page's wasm included, one word at a time). Drawing and turning words into delays in one loop
/// lets the generator's chain of dependent steps overlap the delays' arithmetic: apart,
/// the two loops took as long for 3% fewer instructions.
///
/// Each lane runs the same IEEE operations in the same order as
/// [`NormalTable::sample_from`]: the fraction's 41 bits go straight into a float's
/// mantissa (the same value as converting and scaling them), and the delay is truncated
/// through `i32`, which the narrow range allows. A word in one of the two outermost
/// intervals, which [`NormalTable::sample_from`] draws exactly rather than from the table,
/// meets the table's NaN ends there and truncates to `i32::MIN`, a lane of 2^31 once
/// widened, where every other delay is below 2^31; the batch is checked once at its end,
/// and its marked pairs drawn one word at a time, so no pair needs a branch of its own.
#[inline(always)]
pub(super) fn fill_narrow<const BITS: u32, const N: usize>(
    q: &[f64; N],
    words: &mut [[u64; 2]],
    delays: &mut [[u64; 2]],
    (mean, sd): (f64, f64),
    mut draw: impl FnMut() -> u64,
    exact: impl Fn([u64; 2]) -> [u64; 2],
) {
    use safe_arch::{bitor_m128i, zeroed_m128i};
    let mut marks = zeroed_m128i();
    for (w, d) in words.iter_mut().zip(delays.iter_mut()) {
        *w = [draw(), draw()];
        let lanes = narrow_lanes::<BITS, N>(q, *w, mean, sd);
        marks = bitor_m128i(marks, lanes);
        let wide: [i64; 2] = lanes.into();
        *d = wide.map(|x| x as u64);
    }
    let marks: [i64; 2] = marks.into();
    if (marks[0] | marks[1]) & MARK as i64 != 0 {
        outermost(words, delays, exact);
    }
}

/// The pairs [`fill_narrow`] marked, drawn again one word at a time.
#[cold]
#[inline(never)]
fn outermost(words: &[[u64; 2]], delays: &mut [[u64; 2]], exact: impl Fn([u64; 2]) -> [u64; 2]) {
    for (w, d) in words.iter().zip(delays.iter_mut()) {
        if d.contains(&MARK) {
            *d = exact(*w);
        }
    }
}

/// Two words' delays in SSE2's two lanes, widened to `u64` (see
/// [`fill_narrow`]).
#[inline(always)]
fn narrow_lanes<const BITS: u32, const N: usize>(
    q: &[f64; N],
    w: [u64; 2],
    mean: f64,
    sd: f64,
) -> safe_arch::m128i {
    use safe_arch::{
        add_m128d, bitand_m128d, bitand_m128i, bitor_m128i, cast_to_m128d_from_m128i, m128d,
        mul_m128d, set_i64_m128i, set_m128d, sub_m128d, truncate_m128d_to_m128i,
        unpack_low_i32_m128i, zeroed_m128i,
    };
    // The bits `sample_from` takes as the fraction (the uniform's low 53 - BITS), and 1.0.
    let fraction: i64 = ((1 << (53 - BITS)) - 1) << 11;
    const ONE: i64 = 0x3FF0_0000_0000_0000;
    let idx = [
        (w[0] >> (64 - BITS)) as usize,
        (w[1] >> (64 - BITS)) as usize,
    ];
    let bits = set_i64_m128i(w[1] as i64, w[0] as i64);
    let bits = bitand_m128i(bits, set_i64_m128i(fraction, fraction));
    let one = set_i64_m128i(ONE, ONE);
    let frac = sub_m128d(
        cast_to_m128d_from_m128i(bitor_m128i(bits, one)),
        cast_to_m128d_from_m128i(one),
    );
    let a = set_m128d(q[idx[1]], q[idx[0]]);
    let b = set_m128d(q[idx[1] + 1], q[idx[0] + 1]);
    let z = add_m128d(a, mul_m128d(frac, sub_m128d(b, a)));
    let x = add_m128d(
        m128d::from_array([mean; 2]),
        mul_m128d(m128d::from_array([sd; 2]), z),
    );
    let abs = cast_to_m128d_from_m128i(set_i64_m128i(i64::MAX, i64::MAX));
    let y = add_m128d(bitand_m128d(x, abs), m128d::from_array([0.5; 2]));
    // Two i32 widened to two u64 lanes: one 16-byte store for the caller.
    unpack_low_i32_m128i(truncate_m128d_to_m128i(y), zeroed_m128i())
}

#[cfg(test)]
mod tests {
    use crate::retry::rng::{NormalTable, Rng};
    use alloc::vec::Vec;

    /// Two delays at once (SSE2's lanes on x86_64) are the two delays drawn one at a time,
    /// bit for bit: random words, and words at the table's edges (the outermost intervals,
    /// their neighbours, a fraction of all zeros or all ones), alone or beside an inner word.
    #[test]
    fn two_delays_at_once_are_the_delays_one_at_a_time() {
        let table = NormalTable::new();
        let q = table.quantiles();
        let top = |idx: u64, low: u64| (idx << (64 - NormalTable::BITS)) | low;
        let low_ones = (1u64 << (64 - NormalTable::BITS)) - 1;
        let mut edges = Vec::new();
        for idx in [0, 1, 2, 2047, 2048, 4093, 4094, 4095] {
            edges.extend([top(idx, 0), top(idx, low_ones), top(idx, 0x0123_4567_89ab)]);
        }
        let mut rng = Rng::stream(5, 17);
        let mut pairs: Vec<[u64; 2]> = (0..20_000)
            .map(|_| [rng.next_u64(), rng.next_u64()])
            .collect();
        for &e in &edges {
            pairs.extend([[e, rng.next_u64()], [rng.next_u64(), e], [e, e]]);
        }
        let (mut outer, mut checked) = (0, 0);
        for (mean, sd) in [(10_000.0, 2_000.0), (10.0, 30.0), (0.0, 1.0), (5e8, 5e7)] {
            assert!(NormalTable::narrow(mean, sd), "{mean} {sd}");
            // In batches of 32 pairs, as `occ` draws them.
            for batch in pairs.chunks(32) {
                let mut at_once = alloc::vec![[0; 2]; batch.len()];
                let mut drawn = alloc::vec![[0; 2]; batch.len()];
                let mut given = batch.iter().flatten();
                let draw = || *given.next().unwrap();
                NormalTable::fill(q, &mut drawn, &mut at_once, (mean, sd), true, draw);
                assert_eq!(drawn, batch);
                for (w, d) in batch.iter().zip(at_once) {
                    let one_at_a_time = NormalTable::delays(q, *w, mean, sd);
                    assert_eq!(d, one_at_a_time, "words {w:x?}, mean {mean}, sd {sd}");
                    outer += usize::from(w.iter().any(|x| x >> 52 == 0 || x >> 52 == 4095));
                    checked += 1;
                }
            }
        }
        assert!(
            outer > 50 && checked > 80_000,
            "{outer} outer pairs of {checked}"
        );
        assert!(!NormalTable::narrow(1e9, 1e8), "past 2^30 is not narrow");
    }
}
