//! Two sides on one link: the course project's before/after. Keys written `b.key=value` form
//! side B, applied on top of side A (the rest of the link), so both run against the same system
//! and seed unless a `b.` key says otherwise.
//!
//! The rules (docs/link.md, "Comparing two policies"):
//! - Side B starts as a copy of side A's settings.
//! - `b.preset=X` replaces them with preset X's, as `preset=` does in a link, but keeps A's
//!   `seed` (so the comparison stays paired) unless `b.seed` is given too.
//! - Every other `b.` key then applies to B in the key table's order, checked as in any link;
//!   a `b.` key with no effect for B is refused like any other.
//! - The canonical link writes A's keys, then B's `b.` keys in table order.
//!
//! ```
//! use retry_model::Params;
//! let p: Params = "preset=burst-lab&b.backoff=none".parse().unwrap();
//! let b = p.side_b().unwrap();
//! assert_eq!(b.policy.backoff.kind.name(), "none");
//! assert_eq!(b.sim, p.sim);
//! assert_eq!(p.to_string(), "v=2&preset=burst-lab&b.backoff=none");
//! ```

use super::{all_keys, Params};
use crate::retry::error::ConfigError;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// What marks a key as side B's.
pub const PREFIX: &str = "b.";

/// Side B of a comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Compare {
    /// Side B's keys as the link writes them (without the prefix), in table order.
    pub keys: Vec<(&'static str, String)>,
    /// Side B's settings.
    pub side: Params,
}

impl Params {
    /// Side B, when the link compares two sides.
    pub fn side_b(&self) -> Option<&Params> {
        self.compare.as_ref().map(|c| &c.side)
    }

    /// Side A: the link without its `b.` keys (the whole link when it compares nothing), and
    /// without a key of A's that only side B uses.
    pub fn side_a(&self) -> Params {
        Params {
            compare: None,
            ..self.clone()
        }
        .without_inert_except(&[])
        .0
    }

    /// Replaces side B with `text`, its keys as link text without the prefix
    /// (`preset=payments-jitter&backoff=none`); empty text ends the comparison. On a bad key
    /// nothing changes and the error names `b` and the key.
    pub fn set_side_b(&mut self, text: &str) -> Result<(), ConfigError> {
        let pairs = split_pairs(text);
        if pairs.is_empty() {
            self.compare = None;
            return Ok(());
        }
        if self.sweep.is_some() {
            return Err(ConfigError::new(
                "b",
                "a link either compares two sides (b. keys) or sweeps, not both",
            ));
        }
        let mut next = self.clone();
        if let Some(e) = next.set_compare(&pairs).into_iter().next() {
            return Err(e);
        }
        *self = next;
        Ok(())
    }

    /// Side B's keys as [`Params::set_side_b`] reads them ("" without a comparison).
    pub fn side_b_text(&self) -> String {
        self.compare.as_ref().map_or_else(String::new, |c| {
            c.keys
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join("&")
        })
    }

    /// Reads side B from the link's `b.` keys (without their prefix), on top of this side.
    /// Returns the problems, each naming `b` and the key; the good keys still apply.
    pub(crate) fn set_compare(&mut self, pairs: &[(String, String)]) -> Vec<ConfigError> {
        let mut errors = Vec::new();
        let bad = |k: &str, rule: &str| ConfigError::new("b", format!("b.{k}: {rule}"));
        let mut known: Vec<(usize, &'static str, &str)> = Vec::new();
        for (k, v) in pairs {
            match all_keys().position(|n| n == k) {
                Some(_) if k == "v" => {
                    errors.push(bad(k, "the version is the link's, not a side's"))
                }
                Some(i) if known.iter().any(|(j, _, _)| *j == i) => {
                    errors.push(bad(k, "appears more than once"))
                }
                Some(i) => known.push((i, all_keys().nth(i).unwrap_or("v"), v.as_str())),
                None => errors.push(bad(k, "unknown key: see docs/link.md")),
            }
        }
        // Each key once (a repeat is refused above), so an unstable sort orders them exactly.
        known.sort_unstable_by_key(|(i, _, _)| *i);
        let mut side = Params {
            compare: None,
            ..self.clone()
        };
        let mut applied: Vec<&'static str> = Vec::new();
        for (_, k, v) in &known {
            if *k == "preset" {
                let seed = side.seed;
                if let Err(e) = side.set("preset", v) {
                    errors.push(bad(k, &e.rule));
                    continue;
                }
                side.seed = seed;
            } else if let Err(e) = side.set(k, v) {
                errors.push(bad(k, &e.rule));
                continue;
            }
            applied.push(k);
        }
        for e in side.inapplicable(&applied) {
            // Only B's own keys are refused here: a key B takes from A that B does not use
            // acts on A (else A refused it), so B leaves it out.
            if applied.contains(&e.field) {
                errors.push(bad(e.field, &e.rule));
            }
        }
        side = side.without_inert_except(&[]).0;
        if let Err(e) = side.validate() {
            errors.push(bad(e.field, &e.rule));
        }
        let keys = applied
            .iter()
            .filter(|k| {
                !errors
                    .iter()
                    .any(|e| e.rule.starts_with(&format!("b.{k}:")))
            })
            .map(|k| {
                let text = if *k == "preset" {
                    side.preset.map(|p| String::from(p.name()))
                } else {
                    side.get(k)
                };
                (*k, text.unwrap_or_default())
            })
            .collect();
        self.compare = Some(alloc::boxed::Box::new(Compare { keys, side }));
        errors
    }
}

/// `k=v&k=v` as pairs (spaces around them ignored; a key without `=` gets an empty value).
pub(crate) fn split_pairs(text: &str) -> Vec<(String, String)> {
    text.split('&')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|part| {
            let (k, v) = part.split_once('=').unwrap_or((part, ""));
            (String::from(k.trim()), String::from(v.trim()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_b_is_edited_as_text() {
        let mut p: Params = "preset=payments-none".parse().unwrap();
        p.set_side_b("preset=payments-jitter&attempts=3").unwrap();
        assert_eq!(p.side_b_text(), "preset=payments-jitter&attempts=3");
        assert_eq!(
            p.to_string(),
            "v=2&preset=payments-none&b.preset=payments-jitter&b.attempts=3"
        );
        let e = p.set_side_b("attempts=0").unwrap_err();
        assert_eq!(e.field, "b");
        assert!(e.rule.starts_with("b.attempts:"), "{e}");
        assert_eq!(
            p.side_b_text(),
            "preset=payments-jitter&attempts=3",
            "unchanged"
        );
        p.set_side_b(" ").unwrap();
        assert!(p.side_b().is_none());
    }

    #[test]
    fn side_a_is_the_link_without_its_b_keys() {
        let p: Params = "preset=payments-none&seed=7&b.preset=payments-jitter&b.attempts=3"
            .parse()
            .unwrap();
        let a = p.side_a();
        assert!(a.side_b().is_none());
        assert_eq!(a.to_string(), "v=2&preset=payments-none&seed=7");
        let alone: Params = "preset=payments-none&seed=7".parse().unwrap();
        assert_eq!(a, alone);
        assert_eq!(
            alone.side_a(),
            alone,
            "a link that compares nothing is its own side A"
        );
    }

    #[test]
    fn b_preset_replaces_the_settings_and_keeps_the_seed() {
        let p: Params = "preset=payments-none&seed=7&b.preset=payments-jitter"
            .parse()
            .unwrap();
        let b = p.side_b().unwrap();
        assert_eq!(b.preset.map(|p| p.name()), Some("payments-jitter"));
        assert_eq!(b.seed, 7, "the comparison stays paired");
        assert_eq!(b.policy.max_attempts, 2);
        assert_eq!(
            p.to_string(),
            "v=2&preset=payments-none&seed=7&b.preset=payments-jitter"
        );
        let again: Params = p.to_string().parse().unwrap();
        assert_eq!(again, p);
        let q: Params = "preset=payments-none&b.preset=payments-jitter&b.seed=9"
            .parse()
            .unwrap();
        assert_eq!(q.side_b().unwrap().seed, 9);
    }

    #[test]
    fn b_keys_apply_on_top_of_a() {
        let p: Params = "preset=burst-lab&b.backoff=none&b.attempts=4"
            .parse()
            .unwrap();
        let b = p.side_b().unwrap();
        assert_eq!(b.policy.max_attempts, 4);
        assert_eq!(b.sim, p.sim, "same system");
        assert_eq!(p.policy.backoff.kind.name(), "full", "A is untouched");
        assert_eq!(
            p.to_string(),
            "v=2&preset=burst-lab&b.attempts=4&b.backoff=none"
        );
    }

    #[test]
    fn side_b_follows_an_edit_of_side_a() {
        let mut p: Params = "preset=burst-lab&b.backoff=none".parse().unwrap();
        p.set("capacity", "100").unwrap();
        let b = p.side_b().unwrap();
        assert_eq!(b.sim, p.sim, "B is still A's system");
        assert_eq!(b.policy.backoff.kind.name(), "none");
        assert_eq!(
            p.to_string(),
            "v=2&preset=burst-lab&capacity=100&b.backoff=none"
        );
    }

    #[test]
    fn bad_b_keys_name_b_and_the_key() {
        for (q, rule) in [
            (
                "b.attempts=0",
                "b.attempts: '0' is not a whole number in [1, 1000]",
            ),
            ("b.wat=1", "b.wat: unknown key"),
            (
                "b.attempts=3&b.attempts=4",
                "b.attempts: appears more than once",
            ),
            (
                "scenario=lost&b.breaker=on",
                "b.breaker: has no effect with scenario=lost",
            ),
            ("b.base=5s&b.cap=1s", "b.base: must not exceed cap"),
        ] {
            let e = q.parse::<Params>().unwrap_err();
            assert_eq!(e.field, "b", "{q}: {e}");
            assert!(e.rule.starts_with(rule), "{q}: {e}");
        }
    }
}
