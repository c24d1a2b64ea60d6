//! A link's text: its `key=value` pairs split, %-decoded and sorted by whom they are for (this
//! side, side B, the sweep), the bare lesson or sheet link a person writes by hand, and the
//! %-encoding the canonical link is written with.

use super::*;

pub(super) fn percent_encode(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~,:=/".contains(&b) {
            write!(f, "{}", b as char)?;
        } else {
            write!(f, "%{b:02X}")?;
        }
    }
    Ok(())
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = s.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// A link's `key=value` pairs, %-decoded and sorted by whom they are for.
pub(super) struct Pairs {
    /// This side's known keys, each with its place in [`all_keys`].
    pub(super) own: Vec<(usize, String, String)>,
    /// Side B's keys, `b.` removed.
    pub(super) b: Vec<(String, String)>,
    /// The sweep's keys, `sweep.` removed.
    pub(super) sweep: Vec<(String, String)>,
    /// The layers' own keys: layer, key with `lN.` removed, value.
    pub(super) layer: Vec<(u32, String, String)>,
}

/// The lesson a hand-written link names when it sets nothing else (`lesson=layers-three`, perhaps
/// with `guess`): such a link opens with the lesson's own settings. A link with `v` is one the
/// lab wrote, whose every setting is written, so `v=2&lesson=layers-three` keeps the defaults.
pub(super) fn bare_lesson(pairs: &Pairs) -> Option<lesson::Lesson> {
    let bare = pairs.b.is_empty()
        && pairs.sweep.is_empty()
        && pairs
            .own
            .iter()
            .all(|(_, k, _)| matches!(k.as_str(), "lesson" | "guess"));
    let (_, _, id) = pairs.own.iter().find(|(_, k, _)| k == "lesson")?;
    lesson::Lesson::from_id(id).filter(|_| bare)
}

/// The exercise a hand-written link that holds only a sheet (with `sheet_at`, `guess`, and no
/// `v`, as for a bare lesson) opens, if the sheet reads.
pub(super) fn bare_sheet(pairs: &Pairs) -> Option<String> {
    let bare = pairs.b.is_empty()
        && pairs.sweep.is_empty()
        && pairs
            .own
            .iter()
            .all(|(_, k, _)| matches!(k.as_str(), "sheet" | "sheet_at" | "guess"));
    let value = |key: &str| {
        pairs
            .own
            .iter()
            .find(|(_, k, _)| k == key)
            .map(|(_, _, v)| v.as_str())
    };
    let sheet = sheet::Sheet::from_value(value("sheet")?).ok()?;
    let at = value("sheet_at").map_or(Some(1), |v| v.parse::<u32>().ok())?;
    sheet.link(at).filter(|_| bare).map(String::from)
}

/// A value encoded for a link, as the canonical link writes it.
pub fn encode(s: &str) -> String {
    struct Enc<'a>(&'a str);
    impl fmt::Display for Enc<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            percent_encode(f, self.0)
        }
    }
    Enc(s).to_string()
}

/// The query's pairs (see [`Pairs`]). A broken escape, an unknown key or a repeat goes into
/// `errors` and is left out.
pub(super) fn split_pairs(q: &str, errors: &mut Vec<ConfigError>) -> Pairs {
    let mut pairs: Vec<(usize, String, String)> = Vec::new();
    let mut b_pairs: Vec<(String, String)> = Vec::new();
    let mut sweep_pairs: Vec<(String, String)> = Vec::new();
    let mut layer_pairs: Vec<(u32, String, String)> = Vec::new();
    for part in q.split('&').filter(|s| !s.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        let (k, v) = match (percent_decode(k), percent_decode(v)) {
            (Some(k), Some(v)) => (k, v),
            (Some(k), None) if keys::key(&k).is_some() => {
                errors.push(ConfigError::new(
                    static_key(&k),
                    format!("'{}' has a broken %-escape", keys::shorten(v)),
                ));
                continue;
            }
            _ => {
                errors.push(ConfigError::new(
                    "link",
                    format!("'{part}' has a broken %-escape"),
                ));
                continue;
            }
        };
        if let Some(bk) = k.strip_prefix(compare::PREFIX) {
            b_pairs.push((String::from(bk), v));
            continue;
        }
        if let Some(sk) = k.strip_prefix(sweep::PREFIX) {
            sweep_pairs.push((String::from(sk), v));
            continue;
        }
        if let Some((n, lk)) = layer_keys::split_prefix(&k) {
            layer_pairs.push((n, String::from(lk), v));
            continue;
        }
        match all_keys().position(|known| known == k) {
            Some(i) => {
                if pairs.iter().any(|(j, _, _)| *j == i) {
                    errors.push(ConfigError::new(static_key(&k), "appears more than once"));
                } else {
                    pairs.push((i, k, v));
                }
            }
            None => errors.push(ConfigError::new(
                "link",
                format!(
                    "unknown key '{}': see docs/link.md for the accepted keys",
                    keys::shorten(&k)
                ),
            )),
        }
    }
    Pairs {
        own: pairs,
        b: b_pairs,
        sweep: sweep_pairs,
        layer: layer_pairs,
    }
}
