//! Layer amplification: retries at several layers multiply.
//!
//! Why it matters: a browser, a load balancer and a service that each make 3 attempts send
//! `3 x 3 x 3 = 27` calls to the bottom dependency for one click when it is down; "3 retries"
//! (4 attempts) at three layers is `4^3 = 64`. The fix is to retry at one layer only (the one
//! just above the failing dependency), which brings the worst case back to that layer's count.
//!
//! With a bottom failure probability `p`, a layer making up to `k` attempts over a callee that
//! fails with probability `q` makes `1 + q + ... + q^(k-1)` calls to it on average and fails with
//! probability `q^k`. Chaining that from the bottom up gives the expected bottom calls.
//!
//! ```
//! use retry_model::amplify;
//! let a = amplify(&[3, 3, 3], 1.0).unwrap();
//! assert_eq!(a.worst_case, 27);
//! assert_eq!(a.fix_worst_case, 3);
//! assert_eq!(amplify(&[4, 4, 4], 1.0).unwrap().worst_case, 64);
//! assert_eq!(amplify(&[3; 5], 1.0).unwrap().worst_case, 243);
//! ```

use crate::retry::error::ConfigError;
use alloc::format;
use alloc::vec::Vec;

/// The most layers a stack may have: the `layers` key's limit too. With at most 100 attempts
/// per layer, the worst case is at most 100^8 = 10^16, so it is always exact in a `u64`.
pub const MAX_LAYERS: usize = crate::sim::caps::LAYERS;

/// One layer's row of the table, top layer first.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LayerRow {
    /// 1 for the top layer.
    pub layer: u32,
    /// Attempts this layer makes per call it receives.
    pub attempts: u32,
    /// Worst-case calls this layer receives per user request.
    pub worst_calls_in: u64,
    /// Worst-case calls this layer sends down per user request.
    pub worst_calls_out: u64,
    /// Expected calls this layer sends down per user request.
    pub expected_calls_out: f64,
    /// Probability that a call into this layer fails after all its attempts.
    pub failure_probability: f64,
}

/// The whole analysis.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Amplification {
    /// Attempts per layer, top first.
    pub layers: Vec<u32>,
    /// The bottom call's failure probability.
    pub p: f64,
    /// Product of the attempts: bottom calls per user request when everything fails.
    pub worst_case: u64,
    /// Expected bottom calls per user request at failure probability `p`.
    pub expected: f64,
    /// Probability the user request fails.
    pub failure_probability: f64,
    /// Per-layer rows, top first.
    pub rows: Vec<LayerRow>,
    /// The fix: every layer makes 1 attempt except the bottom one.
    pub fix_layers: Vec<u32>,
    /// The fix's worst case.
    pub fix_worst_case: u64,
    /// The fix's expected bottom calls.
    pub fix_expected: f64,
}

/// Analyses a stack of `layers` (attempts per layer, top first) over a bottom dependency that
/// fails with probability `p`.
pub fn amplify(layers: &[u32], p: f64) -> Result<Amplification, ConfigError> {
    if layers.is_empty() || layers.len() > MAX_LAYERS {
        return Err(ConfigError::new(
            "layers",
            format!("give 1 to {MAX_LAYERS} layers, got {}", layers.len()),
        ));
    }
    if let Some(bad) = layers.iter().find(|k| **k == 0 || **k > 100) {
        return Err(ConfigError::new(
            "layers",
            format!("attempts per layer must be in [1, 100], got {bad}"),
        ));
    }
    if !p.is_finite() || !(0.0..=1.0).contains(&p) {
        return Err(ConfigError::new(
            "p",
            format!("must be a probability in [0, 1], got {p}"),
        ));
    }
    let (expected, failure, rows) = chain(layers, p);
    let worst_case = layers
        .iter()
        .try_fold(1u64, |acc, k| acc.checked_mul(u64::from(*k)))
        .ok_or_else(|| ConfigError::new("layers", "the product of the attempts overflows"))?;
    let mut fix_layers = alloc::vec![1u32; layers.len()];
    if let (Some(last), Some(k)) = (fix_layers.last_mut(), layers.last()) {
        *last = *k;
    }
    let (fix_expected, _, _) = chain(&fix_layers, p);
    let fix_worst_case = u64::from(*layers.last().unwrap_or(&1));
    Ok(Amplification {
        layers: layers.to_vec(),
        p,
        worst_case,
        expected,
        failure_probability: failure,
        rows,
        fix_layers,
        fix_worst_case,
        fix_expected,
    })
}

/// Bottom-up: returns (expected bottom calls per top request, top failure probability, rows).
fn chain(layers: &[u32], p: f64) -> (f64, f64, Vec<LayerRow>) {
    let n = layers.len();
    // From the bottom: calls_down[i] = expected bottom calls per call into layer i; fail[i].
    let mut per_call = alloc::vec![0.0f64; n];
    let mut fail = alloc::vec![0.0f64; n];
    let mut below_calls = 1.0; // expected bottom calls per call into the level below
    let mut q = p; // failure probability of a call into the level below
    for i in (0..n).rev() {
        let k = layers[i];
        let tries = expected_tries(q, k);
        per_call[i] = tries * below_calls;
        fail[i] = libm::pow(q, f64::from(k));
        below_calls = per_call[i];
        q = fail[i];
    }
    // Top-down: calls each layer receives per user request.
    let mut rows = Vec::with_capacity(n);
    let mut worst_in = 1u64;
    let mut expected_in = 1.0f64;
    let mut q_below_each: Vec<f64> = (0..n)
        .map(|i| if i + 1 < n { fail[i + 1] } else { p })
        .collect();
    for i in 0..n {
        let k = layers[i];
        let worst_out = worst_in.saturating_mul(u64::from(k));
        let q_below = q_below_each[i];
        let expected_out = expected_in * expected_tries(q_below, k);
        rows.push(LayerRow {
            layer: (i + 1) as u32,
            attempts: k,
            worst_calls_in: worst_in,
            worst_calls_out: worst_out,
            expected_calls_out: expected_out,
            failure_probability: fail[i],
        });
        worst_in = worst_out;
        expected_in = expected_out;
    }
    q_below_each.clear();
    (per_call[0], fail[0], rows)
}

/// `1 + q + ... + q^(k-1)`: expected attempts when each fails with probability `q`.
fn expected_tries(q: f64, k: u32) -> f64 {
    let mut sum = 0.0;
    let mut term = 1.0;
    for _ in 0..k {
        sum += term;
        term *= q;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worst_case_is_exact_or_refused() {
        let big = amplify(&[100; 8], 1.0).unwrap();
        assert_eq!(big.worst_case, 10_000_000_000_000_000);
        let e = amplify(&[100, 100, 100, 100, 100, 100, 100, 100, 100, 19], 1.0).unwrap_err();
        assert_eq!(e.field, "layers");
        assert!(e.rule.contains("1 to 8 layers"), "{e}");
        assert_eq!(MAX_LAYERS, 8);
    }
    #[allow(unused_imports)]
    use crate::retry::rng::Rng;
    use proptest::prelude::*;

    #[test]
    fn textbook_numbers() {
        assert_eq!(amplify(&[3, 3, 3], 1.0).unwrap().worst_case, 27);
        assert_eq!(amplify(&[4, 4, 4], 1.0).unwrap().worst_case, 64);
        assert_eq!(amplify(&[3, 3, 3, 3, 3], 1.0).unwrap().worst_case, 243);
        let a = amplify(&[3, 3, 3], 1.0).unwrap();
        assert_eq!(
            a.expected, 27.0,
            "total failure: expected equals worst case"
        );
        assert_eq!(
            a.rows.iter().map(|r| r.worst_calls_out).collect::<Vec<_>>(),
            [3, 9, 27]
        );
        assert_eq!(a.fix_layers, [1, 1, 3]);
    }

    #[test]
    fn half_failure_by_hand() {
        // One layer of 3 over p = 0.5: 1 + 0.5 + 0.25 = 1.75 calls.
        assert_eq!(amplify(&[3], 0.5).unwrap().expected, 1.75);
        // Two layers: bottom layer fails with 0.125, makes 1.75 per call; top makes
        // 1 + 0.125 + 0.015625 = 1.140625 calls into it.
        let a = amplify(&[3, 3], 0.5).unwrap();
        assert!((a.expected - 1.75 * 1.140625).abs() < 1e-12);
        assert_eq!(amplify(&[3, 3], 0.0).unwrap().expected, 1.0);
    }

    #[test]
    fn bad_input_is_named() {
        assert_eq!(amplify(&[], 0.5).unwrap_err().field, "layers");
        assert_eq!(amplify(&[3, 0], 0.5).unwrap_err().field, "layers");
        assert_eq!(amplify(&[3], 1.5).unwrap_err().field, "p");
        assert_eq!(amplify(&[3], f64::NAN).unwrap_err().field, "p");
    }

    proptest! {
        #[test]
        fn worst_case_is_the_product_and_bounds_the_expectation(layers in proptest::collection::vec(1u32..6, 1..6), p in 0.0f64..=1.0) {
            let a = amplify(&layers, p).unwrap();
            let product: u64 = layers.iter().map(|k| u64::from(*k)).product();
            prop_assert_eq!(a.worst_case, product);
            prop_assert!(a.expected >= 1.0 - 1e-9);
            prop_assert!(a.expected <= product as f64 + 1e-9);
            prop_assert!(a.fix_expected <= a.expected + 1e-9);
            prop_assert!((a.rows.last().unwrap().expected_calls_out - a.expected).abs() < 1e-9 * a.expected.max(1.0));
        }
    }
}
