//! The keys that shape the backoff beyond its kind (the jitters, the first wait, sorted draws,
//! the multiplier from the base, the summed ceiling) and the Retry-After rules: read and
//! written here, beside each other.

use super::*;

/// The keys that shape the backoff beyond its kind (see [`Params::set_backoff_shape`]).
pub(crate) const BACKOFF_SHAPE_KEYS: [&str; 10] = [
    "jitter",
    "jitter_lo",
    "jitter_hi",
    "jitter_add",
    "jitter_after_cap",
    "first_wait",
    "sorted",
    "multiplier_from_base",
    "ceiling_sum",
    "whole_ms",
];

impl Params {
    /// Sets one of the keys that shape the backoff beyond its kind (the jitters, the first wait,
    /// sorted draws, the base as multiplier, the summed ceiling).
    pub(super) fn set_backoff_shape(
        &mut self,
        k: &'static Key,
        v: &str,
    ) -> Result<(), ConfigError> {
        let pol = &mut self.policy;
        match k.name {
            "jitter" | "jitter_lo" | "jitter_hi" | "jitter_add" => {
                let j = &mut self.jitter_keys;
                match k.name {
                    "jitter" => j.kind = k.pick(v)?,
                    "jitter_lo" => j.lo_milli = k.dec(v)?,
                    "jitter_hi" => j.hi_milli = k.dec(v)?,
                    _ => j.add = k.dur(v)?,
                }
                pol.backoff.jitter = j.jitter();
            }
            "jitter_after_cap" => pol.backoff.jitter_after_cap = k.flag(v)?,
            "first_wait" => pol.backoff.first_wait_zero = k.choice(v)? == 1,
            "sorted" => pol.backoff.sorted = k.flag(v)?,
            "multiplier_from_base" => pol.backoff.multiplier_from_base = k.flag(v)?,
            "ceiling_sum" => pol.backoff.ceiling_sum = k.flag(v)?,
            "whole_ms" => pol.backoff.whole_ms = k.flag(v)?,
            _ => {}
        }
        Ok(())
    }

    /// Sets the Retry-After rule (`ra_mode`) or one of its limits (`ra_cap`, `ra_max`).
    pub(super) fn set_retry_after_rule(
        &mut self,
        k: &'static Key,
        v: &str,
    ) -> Result<(), ConfigError> {
        let pol = &mut self.policy;
        match k.name {
            "ra_mode" => pol.retry_after_mode = k.pick(v)?,
            "ra_cap" => pol.ra_cap = k.dur(v)?,
            "ra_max" => pol.ra_max = k.dur(v)?,
            _ => {}
        }
        Ok(())
    }

    /// One of those keys' link text.
    pub(super) fn backoff_shape(&self, key: &str) -> Option<String> {
        let pol = &self.policy;
        let d = |m: Micros| Some(m.to_string());
        Some(match key {
            "jitter" => self.jitter_keys.kind.name().to_string(),
            "jitter_lo" => milli_text(self.jitter_keys.lo_milli),
            "jitter_hi" => milli_text(self.jitter_keys.hi_milli),
            "jitter_add" => return d(self.jitter_keys.add),
            "jitter_after_cap" => pol.backoff.jitter_after_cap.to_string(),
            "first_wait" => if pol.backoff.first_wait_zero {
                "0"
            } else {
                "backoff"
            }
            .to_string(),
            "sorted" => pol.backoff.sorted.to_string(),
            "multiplier_from_base" => pol.backoff.multiplier_from_base.to_string(),
            "ceiling_sum" => pol.backoff.ceiling_sum.to_string(),
            "whole_ms" => pol.backoff.whole_ms.to_string(),
            _ => return None,
        })
    }
}
