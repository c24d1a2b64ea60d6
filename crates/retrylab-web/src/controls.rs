//! Which control edits which link key, and how its text converts. No DOM here.

use retry_model::link_keys::{self, Control, Key};
use retry_model::{Micros, Params};

/// How a control's value maps to link text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A number of milliseconds (`250` means `250ms`); empty means `none` where allowed.
    Millis,
    /// Text passed through unchanged (selects, whole numbers).
    Plain,
    /// Free text whose default is `none` (a question, layer names): `none` shows as an empty
    /// field, and an empty field is `none`, so a field that starts unset starts empty.
    Text,
    /// A checkbox: `true` or `false`.
    Check,
}

/// How a key's page control converts, from its row in the key table.
pub fn kind_of(control: Control) -> Option<Kind> {
    match control {
        Control::None => None,
        Control::Millis => Some(Kind::Millis),
        Control::Check => Some(Kind::Check),
        Control::Select | Control::Number | Control::Text => Some(Kind::Plain),
    }
}

/// Every key with a page control, in table order: its row and how its text converts. The
/// element id is the key's name.
pub fn controls() -> impl Iterator<Item = (&'static Key, Kind)> {
    link_keys::TABLE.iter().filter_map(|k| {
        let kind = match (k.control, k.default) {
            (Control::Text, "none") => Some(Kind::Text),
            _ => kind_of(k.control),
        };
        kind.map(|kind| (k, kind))
    })
}

/// The link key for an element id, as a `'static` string.
pub fn key_of(id: &str) -> Option<(&'static str, Kind)> {
    controls()
        .find(|(k, _)| k.name == id)
        .map(|(k, kind)| (k.name, kind))
}

/// Whether a key's control acts in this link (its scenario, and the settings it needs); a
/// control that does not is disabled on the page, with [`why_disabled`] beside it.
pub fn applies(key: &Key, params: &Params) -> bool {
    params.no_effect(key.name).is_none()
}

/// The note beside a disabled control.
pub fn why_disabled(key: &Key, params: &Params) -> String {
    params
        .no_effect(key.name)
        .map(|e| e.to_string())
        .unwrap_or_default()
}

/// A control's standing in this link: whether its key is used, whether its field takes a value
/// (not when unused, nor when the sweep sets the key row by row), and the note beside it.
pub fn standing(key: &Key, params: &Params) -> (bool, bool, String) {
    let swept = params
        .sweep()
        .and_then(|sw| sw.axes.iter().find(|a| a.key == key.name))
        .map(|a| {
            format!(
                "{}: swept over {} (the sweep sets it row by row)",
                key.name, a.spec
            )
        });
    let used = applies(key, params);
    let on = used && swept.is_none();
    let why = match (swept, used) {
        (Some(text), _) => text,
        (None, true) => String::new(),
        (None, false) => why_disabled(key, params),
    };
    (used, on, why)
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
        Kind::Text if link_text == "none" => String::new(),
        Kind::Plain | Kind::Check | Kind::Text => link_text.to_string(),
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
        Kind::Text if value.trim().is_empty() => "none".to_string(),
        Kind::Text => value.trim().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retry_model::Params;

    /// The exercise's Question and Ask fields start empty, not with the word `none`, and an
    /// emptied field takes the key back to `none`.
    #[test]
    fn an_unset_text_field_is_empty() {
        for name in ["q", "ask", "layer_names"] {
            let (_, kind) = controls().find(|(k, _)| k.name == name).unwrap();
            assert_eq!(kind, Kind::Text, "{name}");
            assert_eq!(to_control(kind, "none"), "", "{name}");
            assert_eq!(to_link(kind, "  ", false), "none", "{name}");
            assert_eq!(to_control(kind, "least:attempts"), "least:attempts");
        }
        let (_, retry_on) = controls().find(|(k, _)| k.name == "retry_on").unwrap();
        assert_eq!(retry_on, Kind::Plain);
    }

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
        for (k, kind) in controls() {
            let key = k.name;
            // A scenario's control is read with a scenario that has it.
            let mut p = Params::default();
            if let Some(owner) = retry_model::sim::ScenarioKind::ALL.into_iter().find(|s| {
                link_keys::is_sim(k)
                    && key != "scenario"
                    && k.applies.contains(link_keys::Applies::of(Some(*s)))
            }) {
                p.set("scenario", owner.name()).unwrap();
            }
            // A budget's or the breaker's own settings are read with that budget or breaker.
            if let Some((k, v)) = link_keys::detail_of(key) {
                p.set(k, v).unwrap();
            }
            // An unset starting level (a full budget) shows as an empty field.
            let got = p.get(key);
            assert!(
                got.is_some() || key == "budget_start",
                "{key} is not a link key"
            );
            let text = got.unwrap_or_default();
            let back = to_link(kind, &to_control(kind, &text), text == "true");
            let mut q = p.clone();
            q.set(key, &back).unwrap();
            assert_eq!(q, p, "{key}");
        }
        assert!(
            controls().count() >= 100,
            "the page's controls come from the key table"
        );
    }

    #[test]
    fn a_swept_key_takes_no_value_and_says_what_the_sweep_sets() {
        let p: Params = "preset=burst-lab&sweep.backoff=none,full".parse().unwrap();
        let backoff = link_keys::key("backoff").unwrap();
        assert_eq!(
            standing(backoff, &p),
            (
                true,
                false,
                "backoff: swept over none,full (the sweep sets it row by row)".to_string()
            )
        );
        let attempts = link_keys::key("attempts").unwrap();
        assert_eq!(standing(attempts, &p), (true, true, String::new()));
    }

    #[test]
    fn controls_that_do_not_apply_are_named() {
        let p: Params = "preset=payments-none".parse().unwrap();
        let outcomes = link_keys::key("outcomes").unwrap();
        let attempts = link_keys::key("attempts").unwrap();
        assert!(!applies(outcomes, &p));
        assert!(applies(attempts, &p));
        assert_eq!(
            why_disabled(outcomes, &p),
            "outcomes: has no effect with scenario=outage: it applies to scenario=none"
        );
        let occ: Params = "preset=occ-2015".parse().unwrap();
        assert!(!applies(attempts, &occ));
        let base = link_keys::key("base").unwrap();
        assert!(!applies(base, &p), "payments-none has no backoff");
        assert!(why_disabled(base, &p).starts_with("base: has no effect with backoff=none"));
    }
}
