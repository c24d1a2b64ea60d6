//! A fixed process rate: at most `per_window` retries in any sliding `window` (the SRE book's
//! example is 60 retries per minute per process).

use crate::time::Micros;

/// The rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RateConfig {
    /// Retries allowed per window. In [1, 1000000].
    pub per_window: u32,
    /// The window (1 minute in the SRE example). In [1 s, 1 h].
    pub window: Micros,
}

impl RateConfig {
    /// The SRE book's 60 per minute.
    pub const SRE: RateConfig = RateConfig {
        per_window: 60,
        window: Micros::from_secs(60),
    };
}
