//! Which control edits which link key, and how its text converts. No DOM here.

use retry_model::Micros;

/// How a control's value maps to link text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A number of milliseconds (`250` means `250ms`); empty means `none` where allowed.
    Millis,
    /// Text passed through unchanged (selects, whole numbers, lists).
    Plain,
    /// A checkbox: `true` or `false`.
    Check,
}

/// Element id (equal to the link key) and kind, for every control on the page.
pub const CONTROLS: [(&str, Kind); 17] = [
    ("backoff", Kind::Plain),
    ("base", Kind::Millis),
    ("cap", Kind::Millis),
    ("multiplier", Kind::Plain),
    ("first_exp", Kind::Plain),
    ("attempts", Kind::Plain),
    ("clients", Kind::Plain),
    ("seed", Kind::Plain),
    ("deadline", Kind::Millis),
    ("elapsed", Kind::Millis),
    ("attempt_timeout", Kind::Millis),
    ("reserve", Kind::Millis),
    ("outcomes", Kind::Plain),
    ("waits", Kind::Plain),
    ("idempotent", Kind::Check),
    ("key", Kind::Check),
    ("budget", Kind::Plain),
];

/// The link key for an element id, as a `'static` string.
pub fn key_of(id: &str) -> Option<(&'static str, Kind)> {
    CONTROLS.iter().copied().find(|(k, _)| *k == id)
}

/// Link text (`2s`, `none`) to what the control shows (`2000`, empty).
pub fn to_control(kind: Kind, link_text: &str) -> String {
    match kind {
        Kind::Millis => match link_text.parse::<Micros>() {
            Ok(m) => {
                let us = m.as_micros();
                if us % 1000 == 0 {
                    format!("{}", us / 1000)
                } else {
                    let mut s = format!("{}.{:03}", us / 1000, us % 1000);
                    while s.ends_with('0') {
                        s.pop();
                    }
                    s
                }
            }
            Err(_) => String::new(),
        },
        _ => link_text.to_string(),
    }
}

/// What the control holds to link text.
pub fn to_link(kind: Kind, value: &str, checked: bool) -> String {
    match kind {
        Kind::Millis => {
            let v = value.trim();
            if v.is_empty() {
                "none".to_string()
            } else {
                format!("{v}ms")
            }
        }
        Kind::Check => checked.to_string(),
        Kind::Plain => value.trim().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retry_model::Params;

    #[test]
    fn millis_round_trip() {
        assert_eq!(to_control(Kind::Millis, "2s"), "2000");
        assert_eq!(to_control(Kind::Millis, "1500us"), "1.5");
        assert_eq!(to_control(Kind::Millis, "none"), "");
        assert_eq!(to_link(Kind::Millis, "1.5", false), "1.5ms");
        assert_eq!(to_link(Kind::Millis, "", false), "none");
    }

    #[test]
    fn every_control_is_a_link_key() {
        let p = Params::default();
        for (key, kind) in CONTROLS {
            let text = p
                .get(key)
                .unwrap_or_else(|| panic!("{key} is not a link key"));
            let back = to_link(kind, &to_control(kind, &text), text == "true");
            let mut q = p.clone();
            q.set(key, &back).unwrap();
            assert_eq!(q, p, "{key}");
        }
    }
}
