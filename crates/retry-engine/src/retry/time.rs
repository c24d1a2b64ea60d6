//! Integer time.
//!
//! Every clock and every duration in the model is a whole number of microseconds. Floats never
//! touch time, so the same link gives the same numbers on every platform, and a deadline
//! subtraction shown to a reader is exact: `9.9 s - 3 s - 100 ms = 6.8 s`, never `6.799999`.
//!
//! ```
//! use retry_model::Micros;
//! let d: Micros = "1.5s".parse().unwrap();
//! assert_eq!(d, Micros::from_millis(1500));
//! assert_eq!(d.to_string(), "1500ms");
//! assert_eq!(Micros::from_secs(2).to_string(), "2s");
//! assert_eq!(Micros::from_millis(9900).human(), "9.9 s");
//! ```

use crate::retry::text::{decimal, parse_scaled};
use alloc::format;
use alloc::string::{String, ToString};
use core::fmt;
use core::str::FromStr;

/// A duration or an instant on the simulated clock, in whole microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Micros(pub u64);

impl Micros {
    /// Zero time.
    pub const ZERO: Micros = Micros(0);
    /// The longest duration a link may carry: one day.
    pub const MAX_LINK: Micros = Micros(86_400_000_000);

    /// From microseconds.
    pub const fn from_micros(us: u64) -> Self {
        Micros(us)
    }
    /// From milliseconds.
    pub const fn from_millis(ms: u64) -> Self {
        Micros(ms.saturating_mul(1_000))
    }
    /// From seconds.
    pub const fn from_secs(s: u64) -> Self {
        Micros(s.saturating_mul(1_000_000))
    }
    /// Whole microseconds.
    pub const fn as_micros(self) -> u64 {
        self.0
    }
    /// Milliseconds as a float, for charts and JSON only (never fed back into the model).
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 / 1_000.0
    }
    /// `self - rhs`, or zero when `rhs` is larger.
    pub const fn saturating_sub(self, rhs: Micros) -> Micros {
        Micros(self.0.saturating_sub(rhs.0))
    }
    /// `self + rhs`, saturating at `u64::MAX`.
    pub const fn saturating_add(self, rhs: Micros) -> Micros {
        Micros(self.0.saturating_add(rhs.0))
    }

    /// A reader-friendly form with a space before the unit: `9.9 s`, `250 ms`, `40 µs`.
    /// Exact: it prints every significant digit and never rounds.
    pub fn human(self) -> String {
        let us = self.0;
        if us == 0 {
            "0 s".to_string()
        } else if us >= 1_000_000 {
            format!("{} s", decimal(us, 1_000_000))
        } else if us >= 1_000 {
            format!("{} ms", decimal(us, 1_000))
        } else {
            format!("{} µs", us)
        }
    }
}

impl Micros {
    /// The same value to three significant figures, for people: `6.91 s` for 6.907003 s,
    /// `93 ms` for 92.997 ms, `1 s` for 999.6 ms. Rounded half up, in integers.
    pub fn rounded(self) -> String {
        let us = self.0;
        let mut scale = 1u64;
        while us / scale >= 1000 {
            scale *= 10;
        }
        let kept = (us / scale).saturating_add(u64::from(us % scale >= scale / 2 && scale > 1));
        Micros(kept.saturating_mul(scale)).human()
    }
}

/// Milliseconds for people: three significant figures in the unit that suits the size
/// (`50.9 ms`, `7.05 s`, `830 µs`), as [`Micros::rounded`]
/// writes a duration; a negative or non-finite value is written as it is, in ms.
pub fn millis_people(ms: f64) -> String {
    if !ms.is_finite() || ms < 0.0 {
        return format!("{} ms", crate::retry::text::sig3(ms));
    }
    // At most a day's worth of microseconds is shown in a unit; beyond that, seconds.
    let us = libm::round(ms * 1000.0);
    if us >= 1e15 {
        return format!("{} s", crate::retry::text::sig3(ms / 1000.0));
    }
    Micros::from_micros(us as u64).rounded()
}

impl fmt::Display for Micros {
    /// The link form: the largest unit that writes the value as a whole number (`2s`, `250ms`,
    /// `1500ms`, `40us`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let us = self.0;
        if us != 0 && us.is_multiple_of(1_000_000) {
            write!(f, "{}s", us / 1_000_000)
        } else if us.is_multiple_of(1_000) {
            write!(f, "{}ms", us / 1_000)
        } else {
            write!(f, "{}us", us)
        }
    }
}

/// Why a duration did not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseDurationError(pub String);

impl fmt::Display for ParseDurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for Micros {
    type Err = ParseDurationError;

    /// Accepts a decimal number followed by `us`, `ms`, `s`, `m` or `h`: `250ms`, `2s`, `1.5s`,
    /// `0.1s`, `40us`, `1m`, `1h`. The number may have as many decimals as the unit allows to land on a
    /// whole microsecond. The result is at most one day.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        let (num, scale) = if let Some(n) = s.strip_suffix("us") {
            (n, 1)
        } else if let Some(n) = s.strip_suffix("µs") {
            (n, 1)
        } else if let Some(n) = s.strip_suffix("ms") {
            (n, 1_000)
        } else if let Some(n) = s.strip_suffix('s') {
            (n, 1_000_000)
        } else if let Some(n) = s.strip_suffix('m') {
            (n, 60_000_000)
        } else if let Some(n) = s.strip_suffix('h') {
            (n, 3_600_000_000)
        } else {
            return Err(ParseDurationError(format!(
                "'{s}' needs a unit: a number followed by us, ms, s, m or h (e.g. 250ms, 2s)"
            )));
        };
        let value = parse_scaled(num, scale).ok_or_else(|| {
            ParseDurationError(format!(
                "'{s}' is not a duration: a non-negative number followed by us, ms, s, m or h, at most 1 day, in whole microseconds"
            ))
        })?;
        if value > Micros::MAX_LINK.0 {
            return Err(ParseDurationError(format!(
                "'{s}' is longer than the 1 day limit"
            )));
        }
        Ok(Micros(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!("250ms".parse::<Micros>().unwrap(), Micros::from_millis(250));
        assert_eq!("2s".parse::<Micros>().unwrap(), Micros::from_secs(2));
        assert_eq!("0.1s".parse::<Micros>().unwrap(), Micros::from_millis(100));
        assert_eq!("40us".parse::<Micros>().unwrap(), Micros(40));
        assert_eq!("1m".parse::<Micros>().unwrap(), Micros::from_secs(60));
        assert_eq!("1.25ms".parse::<Micros>().unwrap(), Micros(1250));
    }

    #[test]
    fn rejects_bad_text() {
        for bad in [
            "", "5", "-1s", "1.0001us", "abc", "s", "1e3ms", "2 days", "1.5.2s", "25h",
        ] {
            assert!(bad.parse::<Micros>().is_err(), "{bad} should not parse");
        }
        assert!("86401s".parse::<Micros>().is_err());
    }

    #[test]
    fn display_round_trips() {
        for us in [
            0, 1, 999, 1_000, 1_500, 250_000, 1_000_000, 1_500_000, 20_000_000,
        ] {
            let m = Micros(us);
            assert_eq!(m.to_string().parse::<Micros>().unwrap(), m);
        }
    }

    #[test]
    fn rounded_keeps_three_figures_in_the_unit_that_suits() {
        for (us, want) in [
            (6_907_003, "6.91 s"),
            (92_997, "93 ms"),
            (999_600, "1 s"),
            (9_900_000, "9.9 s"),
            (3_000_000, "3 s"),
            (40, "40 µs"),
            (0, "0 s"),
            (1_234_567_890, "1230 s"),
            (u64::MAX, "18400000000000 s"),
        ] {
            assert_eq!(Micros(us).rounded(), want, "{us}");
        }
    }

    #[test]
    fn milliseconds_for_people() {
        for (ms, want) in [
            (7045.1, "7.05 s"),
            (50.94, "50.9 ms"),
            (0.83, "830 µs"),
            (66_851.0, "66.9 s"),
        ] {
            assert_eq!(millis_people(ms), want, "{ms}");
        }
    }

    #[test]
    fn human_is_exact() {
        assert_eq!(Micros::from_millis(6800).human(), "6.8 s");
        assert_eq!(Micros::from_millis(100).human(), "100 ms");
        assert_eq!(Micros(1_234_567).human(), "1.234567 s");
        assert_eq!(Micros(1_500).human(), "1.5 ms");
        assert_eq!(Micros(7).human(), "7 µs");
        assert_eq!(Micros::ZERO.human(), "0 s");
    }
}
