//! One user click through a stack of retrying layers, call by call: the tree the page steps
//! through to show 3 attempts becoming 9 and then 27.
//!
//! The click is one call into layer 1. A call into layer `j` makes up to `layers[j-1]` attempts
//! into the level below, stopping at the first that succeeds; a call into the bottom dependency
//! fails with probability `p` (drawn from the link's seed, stream [`STREAM_TREE`], so stepping
//! back replays the same tree). Calls are kept in the order they are made (depth first: a first
//! attempt goes all the way down before the second starts).
//!
//! A tree is built call by call only up to [`MAX_TREE_CALLS`] worst-case calls; a larger one
//! (five layers of 10, say) keeps only its per-level counts, from [`amplify`].
//!
//! ```
//! use retry_model::call_tree;
//! let t = call_tree(&[3, 3, 3], 1.0, 1).unwrap();
//! assert_eq!(t.worst, [1, 3, 9, 27]);
//! assert_eq!(t.counts(t.calls.len()), [1, 3, 9, 27], "every bottom call fails: the worst case");
//! assert_eq!(t.counts(2), [1, 1, 0, 0], "two calls in: the click and layer 1's first attempt");
//! assert_eq!(call_tree(&[4, 4, 4], 1.0, 1).unwrap().worst[3], 64);
//! assert_eq!(call_tree(&[3; 5], 1.0, 1).unwrap().worst[5], 243);
//! ```

use super::amplify::amplify;
use crate::retry::error::ConfigError;
use crate::retry::rng::{Rng, Words};
use alloc::vec::Vec;

/// The most worst-case calls a tree is built call by call for; past it, counts per level only.
pub const MAX_TREE_CALLS: u64 = 20_000;

/// The random stream of the bottom calls' outcomes.
pub const STREAM_TREE: u64 = 6 << 40;

/// One call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Call {
    /// 0 for the click into layer 1, `j - 1` for a call into layer `j`, `layers.len()` for a
    /// call into the bottom dependency.
    pub level: u8,
    /// The call that made it (its index), `None` for the click.
    pub parent: Option<u32>,
    /// Which attempt of its parent it is, from 1.
    pub attempt: u32,
    /// Whether it succeeded.
    pub ok: bool,
}

/// The tree of one click.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CallTree {
    /// Attempts per layer, top first.
    pub layers: Vec<u32>,
    /// The bottom call's failure probability.
    pub p: f64,
    /// Every call in the order made; empty when the worst case passes [`MAX_TREE_CALLS`].
    pub calls: Vec<Call>,
    /// Worst-case calls per level (every bottom call fails): 1, k1, k1 k2, ...
    pub worst: Vec<u64>,
    /// Expected calls per level at `p`.
    pub expected: Vec<f64>,
    /// The fix (retry at the bottom layer only): worst-case calls per level.
    pub fix_worst: Vec<u64>,
}

/// Builds the tree of one click through `layers` over a bottom failing with probability `p`.
pub fn call_tree(layers: &[u32], p: f64, seed: u64) -> Result<CallTree, ConfigError> {
    let a = amplify(layers, p)?;
    let n = layers.len();
    let mut worst = alloc::vec![1u64];
    let mut expected = alloc::vec![1.0f64];
    for r in &a.rows {
        worst.push(r.worst_calls_out);
        expected.push(r.expected_calls_out);
    }
    let mut fix_worst = alloc::vec![1u64; n];
    fix_worst.push(a.fix_worst_case);
    let total: u64 = worst.iter().fold(0u64, |s, w| s.saturating_add(*w));
    let mut calls = Vec::new();
    if total <= MAX_TREE_CALLS {
        let mut rng = Rng::stream(seed, STREAM_TREE);
        visit(layers, p, 0, None, 1, &mut rng, &mut calls);
    }
    Ok(CallTree {
        layers: layers.to_vec(),
        p,
        calls,
        worst,
        expected,
        fix_worst,
    })
}

/// Makes a call at `level` and, below the bottom, its attempts; returns whether it succeeded.
fn visit(
    layers: &[u32],
    p: f64,
    level: usize,
    parent: Option<u32>,
    attempt: u32,
    rng: &mut Rng,
    calls: &mut Vec<Call>,
) -> bool {
    let me = calls.len();
    calls.push(Call {
        level: level as u8,
        parent,
        attempt,
        ok: false,
    });
    let ok = if level == layers.len() {
        // p = 1 and p = 0 draw nothing, so they are exact whatever the seed.
        p < 1.0 && (p <= 0.0 || rng.next_f64() >= p)
    } else {
        (1..=layers[level]).any(|a| visit(layers, p, level + 1, Some(me as u32), a, rng, calls))
    };
    calls[me].ok = ok;
    ok
}

impl CallTree {
    /// Calls per level among the first `made` calls (all of them: `calls.len()`).
    pub fn counts(&self, made: usize) -> Vec<u64> {
        let mut c = alloc::vec![0u64; self.worst.len()];
        for call in self.calls.iter().take(made) {
            c[usize::from(call.level)] += 1;
        }
        c
    }

    /// Calls per level down to level `level` ("one level at a time"): every call at that
    /// level or above, the levels below empty.
    pub fn counts_to_level(&self, level: usize) -> Vec<u64> {
        let mut c = self.counts(self.calls.len());
        for (i, v) in c.iter_mut().enumerate() {
            if i > level {
                *v = 0;
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counts_are_amplify_s() {
        for layers in [[3u32, 3, 3], [4, 4, 4], [2, 3, 4]] {
            let t = call_tree(&layers, 1.0, 1).unwrap();
            let a = amplify(&layers, 1.0).unwrap();
            assert_eq!(t.counts(t.calls.len()), t.worst);
            assert_eq!(*t.worst.last().unwrap(), a.worst_case);
            assert!(t.calls.iter().all(|c| !c.ok), "p = 1: every call fails");
        }
        let t = call_tree(&[2, 3, 4], 1.0, 1).unwrap();
        assert_eq!(t.worst, [1, 2, 6, 24]);
        assert_eq!(t.fix_worst, [1, 1, 1, 4]);
    }

    #[test]
    fn at_p_half_the_mean_bottom_calls_approach_the_expected() {
        let runs = 4000;
        let mut sum = 0u64;
        for seed in 0..runs {
            let t = call_tree(&[3, 3, 3], 0.5, seed).unwrap();
            sum += t.counts(t.calls.len())[3];
        }
        let mean = sum as f64 / runs as f64;
        let expected = amplify(&[3, 3, 3], 0.5).unwrap().expected;
        assert!(
            (mean - expected).abs() < 0.1,
            "mean {mean}, expected {expected}"
        );
        let t = call_tree(&[3, 3, 3], 0.0, 9).unwrap();
        assert_eq!(
            t.counts(t.calls.len()),
            [1, 1, 1, 1],
            "p = 0: one call per level"
        );
    }

    #[test]
    fn the_order_is_depth_first_and_replays() {
        let t = call_tree(&[3, 3, 3], 1.0, 1).unwrap();
        let levels: Vec<u8> = t.calls.iter().take(6).map(|c| c.level).collect();
        assert_eq!(
            levels,
            [0, 1, 2, 3, 3, 3],
            "the first attempt goes all the way down"
        );
        assert_eq!(t.calls[5].attempt, 3);
        assert_eq!(
            t.counts_to_level(1),
            [1, 3, 0, 0],
            "the click and layer 1's three attempts"
        );
        assert_eq!(
            call_tree(&[3, 3, 3], 0.3, 5).unwrap(),
            call_tree(&[3, 3, 3], 0.3, 5).unwrap()
        );
    }

    #[test]
    fn a_large_tree_keeps_only_its_counts() {
        let t = call_tree(&[10; 5], 1.0, 1).unwrap();
        assert!(t.calls.is_empty());
        assert_eq!(t.worst[5], 100_000);
    }
}
