//! Reading and writing the numbers of a link: exact decimals and checked ranges, shared by the
//! policy keys and the simulation keys so every key words its errors the same way.

use crate::error::ConfigError;
use crate::time::Micros;
use alloc::format;
use alloc::string::{String, ToString};

/// `value / scale` written exactly, without trailing zeros.
pub(crate) fn decimal(value: u64, scale: u64) -> String {
    let whole = value / scale;
    let frac = value % scale;
    if frac == 0 {
        return whole.to_string();
    }
    let mut digits = 0;
    let mut s = scale;
    while s > 1 {
        s /= 10;
        digits += 1;
    }
    let mut text = format!("{:0width$}", frac, width = digits);
    while text.ends_with('0') {
        text.pop();
    }
    format!("{}.{}", whole, text)
}

/// Parses a non-negative decimal `num` and multiplies it by `scale` exactly, in integers.
/// Returns `None` when the text is not a plain decimal, overflows, or does not land on an integer.
pub(crate) fn parse_scaled(num: &str, scale: u64) -> Option<u64> {
    let num = num.trim();
    if num.is_empty() {
        return None;
    }
    let (whole, frac) = match num.split_once('.') {
        Some((w, f)) => (w, f),
        None => (num, ""),
    };
    if whole.is_empty() && frac.is_empty() {
        return None;
    }
    if !whole.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let w: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let mut total = w.checked_mul(scale)?;
    let mut unit = scale;
    for b in frac.bytes() {
        let d = u64::from(b - b'0');
        if unit % 10 != 0 {
            if d != 0 {
                return None;
            }
            continue;
        }
        unit /= 10;
        total = total.checked_add(d * unit)?;
    }
    Some(total)
}

/// A whole number in `[lo, hi]`.
pub(crate) fn int(field: &'static str, v: &str, lo: u64, hi: u64) -> Result<u64, ConfigError> {
    match v.parse::<u64>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(ConfigError::new(
            field,
            format!("'{v}' is not a whole number in [{lo}, {hi}]"),
        )),
    }
}

/// A decimal times `scale`, in `[lo, hi]` (scaled units); `what` words the accepted values.
pub(crate) fn scaled(
    field: &'static str,
    v: &str,
    scale: u64,
    lo: u64,
    hi: u64,
    what: &str,
) -> Result<u64, ConfigError> {
    match parse_scaled(v, scale) {
        Some(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(ConfigError::new(field, format!("'{v}' is not {what}"))),
    }
}

/// A duration (`250ms`, `2s`).
pub(crate) fn dur(field: &'static str, v: &str) -> Result<Micros, ConfigError> {
    v.parse::<Micros>()
        .map_err(|e| ConfigError::new(field, e.0))
}

/// A duration in `[lo, hi]`.
pub(crate) fn dur_in(
    field: &'static str,
    v: &str,
    lo: Micros,
    hi: Micros,
) -> Result<Micros, ConfigError> {
    let d = dur(field, v)?;
    if d < lo || d > hi {
        return Err(ConfigError::new(
            field,
            format!("'{v}' must be in [{lo}, {hi}]"),
        ));
    }
    Ok(d)
}

/// Thousandths written as a decimal (`100` -> `0.1`).
pub(crate) fn milli_text(m: u64) -> String {
    decimal(m, 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_round_trip() {
        for (v, scale, text) in [
            (100, 1000, "0.1"),
            (40_500, 1000, "40.5"),
            (5, 1_000_000, "0.000005"),
            (7, 1, "7"),
            (1_500_000, 1_000_000, "1.5"),
        ] {
            assert_eq!(decimal(v, scale), text);
            assert_eq!(parse_scaled(text, scale), Some(v));
        }
        assert_eq!(parse_scaled("0.0001", 1000), None);
        assert_eq!(milli_text(2000), "2".to_string());
    }
}
