//! Exact decimals: the numbers of a link and of durations, read and written without floats.
//! Ranges and their messages live in the key table (`link::keys`).

use alloc::format;
use alloc::string::{String, ToString};

/// `value / scale` written exactly, without trailing zeros.
pub fn decimal(value: u64, scale: u64) -> String {
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
pub fn parse_scaled(num: &str, scale: u64) -> Option<u64> {
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
        if !unit.is_multiple_of(10) {
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

/// Thousandths written as a decimal (`100` -> `0.1`).
pub fn milli_text(m: u64) -> String {
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
