//! The unit tests of `link/keys.rs`, beside it so that the module itself stays short.

use super::*;
use crate::link::Params;

#[test]
fn names_are_unique_and_cover_the_link() {
    for (i, k) in TABLE.iter().enumerate() {
        assert!(
            TABLE[i + 1..].iter().all(|o| o.name != k.name),
            "{} twice",
            k.name
        );
    }
    assert_eq!(crate::all_keys().count(), TABLE.len());
    for k in crate::all_keys() {
        assert!(key(k).is_some(), "{k} missing from the table");
    }
}

/// A link where `k` applies: a scenario that owns it chosen for a scenario's key, and the budget
/// or breaker kind chosen for a budget's or the breaker's own key.
fn where_it_applies(k: &Key) -> Params {
    let mut p = Params::default();
    if is_sim(k) && k.name != "scenario" {
        let owner = ScenarioKind::ALL
            .into_iter()
            .find(|s| k.applies.contains(Applies::of(Some(*s))))
            .unwrap();
        p.set("scenario", owner.name()).unwrap();
    }
    if let Some((key, value)) = detail_of(k.name) {
        p.set(key, value).unwrap();
    }
    p
}

#[test]
fn defaults_are_what_params_hold() {
    for k in TABLE {
        let p = where_it_applies(k);
        let got = p.get(k.name);
        let want = match (k.name, k.default) {
            // `sheet_at` is written only beside a sheet.
            ("preset", _) | ("budget_start", _) | ("sheet_at", _) => None,
            (_, d) => Some(d.to_string()),
        };
        assert_eq!(got, want, "{}", k.name);
    }
}

/// Every key of the table is read by a setter and written by a getter: set to its default
/// where it applies, it reads back as written. A row whose name no setter matches (a misspelt
/// arm, a forgotten one) fails here, as does a setter that does not store what it reads.
#[test]
fn every_key_is_read_and_written_by_its_row_name() {
    for k in TABLE {
        if matches!(
            k.name,
            "preset" | "v" | "lesson" | "sheet" | "sheet_at" | "guess" | "ask" | "q"
        ) {
            continue;
        }
        let mut p = where_it_applies(k);
        let value = if k.name == "budget_start" {
            "5"
        } else {
            k.default
        };
        p.set(k.name, value)
            .unwrap_or_else(|e| panic!("{}={value}: {e}", k.name));
        let back = p.get(k.name).unwrap_or_default();
        let want = if k.name == "budget_start" {
            "5"
        } else {
            k.default
        };
        assert_eq!(back, want, "{}", k.name);
    }
}

/// The table's "applies to" for a simulation key is exactly the scenarios whose settings
/// own it (`sim::settings`): the docs and the page say what the types enforce.
#[test]
fn applies_matches_the_scenarios_settings() {
    for k in TABLE.iter().filter(|k| is_sim(k) && k.name != "scenario") {
        for kind in ScenarioKind::ALL {
            let mut p = Params::default();
            p.set("scenario", kind.name()).unwrap();
            let _ = p.set("breaker", "on");
            let owns = p.get(k.name).is_some();
            assert_eq!(
                owns,
                k.applies.contains(Applies::of(Some(kind))),
                "{} in {}",
                k.name,
                kind.name()
            );
        }
        assert!(!k.applies.contains(Applies::REQUEST), "{}", k.name);
    }
}

#[test]
fn accepted_values_are_generated() {
    assert_eq!(
        row("attempts").domain.accepted(),
        format!("a whole number in [1, {MAX_ATTEMPTS}]")
    );
    assert_eq!(
        row("budget").domain.accepted(),
        "one of none, aws, aws2026, bucket, ratio, chapter, grpc, rate, envoy, envoy_budget"
    );
    assert!(row("ratio_window")
        .domain
        .accepted()
        .contains("in whole seconds"));
    let e = row("multiplier").dec("1e1").unwrap_err();
    assert_eq!(
        e.to_string(),
        "multiplier: '1e1' is not a number with at most 6 decimals in [1, 10]"
    );
}

/// Each choice key lists its enum's values by name, in the enum's order: a value added to the
/// enum (a new backoff kind, a new server) and not to the key, or the other way round, fails here.
#[test]
fn every_choice_key_lists_its_enums_values() {
    fn names<E: Named>() -> Vec<&'static str> {
        E::ALL.iter().map(|e| e.name()).collect()
    }
    let pairs: [(&str, Vec<&str>); 11] = [
        ("backoff", names::<crate::retry::backoff::BackoffKind>()),
        ("jitter", names::<super::super::JitterKind>()),
        ("fit", names::<crate::retry::policy::FitRule>()),
        ("ra_mode", names::<crate::retry::policy::RetryAfterMode>()),
        ("budget_scope", names::<crate::retry::budget::Scope>()),
        ("classify", names::<crate::retry::classify::Classifier>()),
        ("server", names::<crate::sim::ServerKind>()),
        ("discipline", names::<crate::sim::Discipline>()),
        ("service_dist", names::<crate::sim::ServiceDist>()),
        ("outage_kind", names::<crate::sim::OutageKind>()),
        ("limiter_scope", names::<crate::sim::LimiterScope>()),
    ];
    for (key, want) in pairs {
        let k = TABLE.iter().find(|k| k.name == key).unwrap();
        let Domain::Choice(values) = k.domain else {
            panic!("{key}: not a choice");
        };
        let listed: Vec<&str> = values.iter().map(|(n, _)| *n).collect();
        assert_eq!(listed, want, "{key}");
        // And each value reads back as itself.
        for v in &listed {
            let mut p = crate::Params::default();
            if p.set(key, v).is_ok() {
                assert_eq!(p.get(key).as_deref(), Some(*v), "{key}={v}");
            }
        }
    }
}

#[test]
fn meanings_are_plain_words_a_page_can_show() {
    // The page shows a key's meaning with its backticks removed; an escape written for
    // Markdown would show as a stray backslash.
    for k in TABLE {
        assert!(!k.meaning.contains('\\'), "{}: {}", k.name, k.meaning);
    }
}
