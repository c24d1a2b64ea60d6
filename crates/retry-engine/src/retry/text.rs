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

/// A number to three significant figures, without trailing zeros (`194.8` is `195`, `0.03812`
/// is `0.0381`, `27` is `27`): how the page and the CLI show a measured figure to people.
/// The exports (JSON, CSV) keep every digit.
pub fn sig3(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    if v == 0.0 {
        return String::from("0");
    }
    let mag = libm::floor(libm::log10(libm::fabs(v))) as i32;
    let decimals = (2 - mag).max(0) as usize;
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        let keep = libm::pow(10.0, f64::from(mag - 2));
        format!("{}", libm::round(v / keep) * keep)
    }
}

/// A count for people: as written below a million, else to three significant figures in
/// millions or billions (`501`, `2.4 million`, `1 billion`).
pub fn count_people(n: u64) -> String {
    match n {
        0..=999_999 => format!("{n}"),
        1_000_000..=999_999_999 => format!("{} million", sig3(n as f64 / 1e6)),
        _ => format!("{} billion", sig3(n as f64 / 1e9)),
    }
}

/// A share (0 to 1) as a percentage for people (`3.79%`, `91.8%`, `100%`). A share below one
/// never reads 100% (`99.97%` is `>99.9%`), and one above zero never reads 0%.
pub fn percent_people(share: f64) -> String {
    let pct = share * 100.0;
    let text = sig3(pct);
    if text == "100" && share < 1.0 {
        return String::from(">99.9%");
    }
    format!("{text}%")
}

/// At most the first 80 characters of what was written, so a pasted essay (or a 100 kB link)
/// gives a one-line message. Every message of the link that quotes a key or value quotes it
/// through this.
pub fn shorten(v: &str) -> String {
    if v.chars().count() <= 80 {
        v.to_string()
    } else {
        let mut s: String = v.chars().take(80).collect();
        s.push_str("...");
        s
    }
}

/// Exact powers of ten as `f64`: every one up to 10^22 is a whole number a double holds exactly.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// A number written in decimal (`0.125`, `-3`, `5.`, `.5`, `2.5e-3`) as the nearest `f64`, bit
/// for bit what `str::parse::<f64>` gives; `None` when the text is not such a number, or when
/// this exact path cannot read it (more than 16 significant digits, or a power of ten past
/// 10^22 either way; `inf` and `nan` are not read either).
///
/// Why not `str::parse::<f64>`? Its general, correctly rounded algorithm and its tables are
/// about 14 KB of the page's gzipped wasm, and the page reads only short decimals: the link's
/// probabilities, a sweep's values, a lesson's answer and guess. For those one IEEE operation is
/// already correctly rounded: the digits make a whole number `m` below 2^53 (exact in a double),
/// the number is `m * 10^e`, and `m / 10^-e` or `m * 10^e`, with the power exact, is rounded
/// once, to the nearest double, as a correct parser rounds the decimal itself.
pub fn decimal_f64(text: &str) -> Option<f64> {
    let (negative, body) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let mut e10: i64 = match exponent {
        None => 0,
        Some(x) => {
            let digits = x.strip_prefix(['+', '-']).unwrap_or(x);
            if digits.is_empty() || digits.len() > 4 || !digits.bytes().all(|b| b.is_ascii_digit())
            {
                return None;
            }
            let n: i64 = digits.parse().ok()?;
            if x.starts_with('-') {
                -n
            } else {
                n
            }
        }
    };
    let (whole, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && frac.is_empty() {
        return None;
    }
    let mut m: u64 = 0;
    let mut trailing_zeros: i64 = 0;
    for (i, b) in whole.bytes().chain(frac.bytes()).enumerate() {
        if !b.is_ascii_digit() {
            return None;
        }
        if i >= whole.len() {
            e10 -= 1; // each digit after the point divides by ten
        }
        if b == b'0' {
            trailing_zeros += 1; // held back: zeros at the end only scale
            continue;
        }
        for _ in 0..=trailing_zeros {
            m = m.checked_mul(10)?;
        }
        m += u64::from(b - b'0');
        trailing_zeros = 0;
        if m > 1 << 53 {
            return None;
        }
    }
    e10 += trailing_zeros;
    let value = if m == 0 || e10 == 0 {
        m as f64
    } else if e10 > 0 {
        let e = usize::try_from(e10).ok()?;
        if e > 22 {
            return None;
        }
        m as f64 * POW10[e]
    } else {
        let e = usize::try_from(-e10).ok()?;
        if e > 22 {
            return None;
        }
        m as f64 / POW10[e]
    };
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_significant_figures_for_people() {
        for (v, want) in [
            (194.8, "195"),
            (27.0, "27"),
            (0.038_12, "0.0381"),
            (3.6, "3.6"),
            (91.84, "91.8"),
            (12_345.0, "12300"),
            (0.0, "0"),
            (-1.5, "-1.5"),
        ] {
            assert_eq!(sig3(v), want, "{v}");
        }
        for (share, want) in [
            (0.037_92, "3.79%"),
            (0.918, "91.8%"),
            (1.0, "100%"),
            (0.9997, ">99.9%"),
            (0.0, "0%"),
        ] {
            assert_eq!(percent_people(share), want, "{share}");
        }
    }

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

    /// Bit for bit what `str::parse::<f64>` gives, wherever the exact path reads the text.
    fn same_as_std(text: &str) {
        let want = text.parse::<f64>().ok().map(f64::to_bits);
        assert_eq!(decimal_f64(text).map(f64::to_bits), want, "{text}");
    }

    #[test]
    fn decimals_read_as_floats_exactly_as_std_does() {
        for text in [
            "0",
            "-0",
            "+0",
            "0.1",
            "0.2",
            "0.3",
            "1",
            "27",
            "194.80",
            "0.05",
            ".5",
            "5.",
            "-3",
            "+2.5E-3",
            "1e3",
            "1e-3",
            "0.000001",
            "999999",
            "1000000",
            "0.999999",
            "123.456",
            "9007199254740992",
            "4503599627370497",
            "0.1e1",
            "100e-2",
            "1e22",
            "1e-22",
            "00012.500",
            "17e21",
            "5e-22",
        ] {
            same_as_std(text);
        }
        for text in [
            "", ".", "-", "+", "e5", "1e", "1e+", "abc", "1.2.3", " 1", "1 ", "inf", "NaN", "--1",
            "1_000", "0x10", "1e99999",
        ] {
            assert_eq!(decimal_f64(text), None, "{text}");
        }
        // Past the exact path: more digits than a double holds whole, or a power past 10^22.
        assert_eq!(decimal_f64("9007199254740993"), None);
        assert_eq!(decimal_f64("0.30000000000000004"), None);
        assert_eq!(decimal_f64("1e23"), None);
        assert_eq!(decimal_f64("1e-23"), None);
    }

    proptest::proptest! {
        #[test]
        fn any_short_decimal_reads_as_std_reads_it(
            m in 0u64..(1 << 53),
            point in 0usize..20,
            e in -22i32..=22,
            negative in proptest::bool::ANY,
            exponent in proptest::bool::ANY,
        ) {
            let digits = m.to_string();
            let at = point.min(digits.len());
            let mut text = format!("{}{}.{}", if negative { "-" } else { "" }, &digits[..at], &digits[at..]);
            if exponent {
                text = format!("{text}e{e}");
            }
            let want = text.parse::<f64>().unwrap();
            // The exact path reads it whenever the power of ten it needs is at most 10^22.
            if let Some(got) = decimal_f64(&text) {
                proptest::prop_assert_eq!(got.to_bits(), want.to_bits(), "{}", text);
            } else {
                let frac = (digits.len() - at) as i32;
                let shift = if exponent { e } else { 0 } - frac;
                let zeros = digits.len() - digits.trim_end_matches('0').len();
                proptest::prop_assert!(
                    m != 0 && (shift + zeros as i32 > 22 || shift < -22),
                    "{} was not read", text
                );
            }
        }
    }
}
