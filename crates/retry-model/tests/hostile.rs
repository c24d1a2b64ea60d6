//! Hostile input, as a careful user would try it: random links of every key with random,
//! extreme and garbage values, parsed and then run for a while, in the test profile where
//! overflow checks are on. Nothing may panic, and every error names a key (or `link`).

use proptest::prelude::*;
use retry_model::link_keys::{Domain, TABLE};
use retry_model::sim::Run;
use retry_model::{explain, schedule, trace, Params};

/// Words that mean something somewhere: every choice of the table, outcome tokens, presets.
fn words() -> Vec<String> {
    let mut w: Vec<String> = Vec::new();
    for k in TABLE {
        if let Domain::Choice(values) = k.domain {
            w.extend(values.iter().map(|(v, _)| v.to_string()));
        }
        w.push(k.default.to_string());
    }
    w.extend(
        retry_model::Preset::ALL
            .iter()
            .map(|p| p.name().to_string()),
    );
    w.extend(
        [
            "on",
            "off",
            "true",
            "false",
            "none",
            "-",
            "503:ra=2s",
            "429:pushback=-1",
            "ok:took=5s",
            "409_in_flight",
        ]
        .map(String::from),
    );
    w
}

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<u64>().prop_map(|n| n.to_string()),
        (0u64..100_000).prop_map(|n| n.to_string()),
        (0u64..1000, 0u64..1_000_000).prop_map(|(a, b)| format!("{a}.{b}")),
        Just("1e5".to_string()),
        Just("-1".to_string()),
        Just("NaN".to_string()),
        Just("inf".to_string()),
        Just("".to_string()),
        Just("0.0000001".to_string()),
        Just("99999999999999999999999".to_string()),
    ]
}

fn duration() -> impl Strategy<Value = String> {
    (
        number(),
        prop_oneof![
            Just("us"),
            Just("ms"),
            Just("s"),
            Just("m"),
            Just("h"),
            Just("d"),
            Just("")
        ],
    )
        .prop_map(|(n, u)| format!("{n}{u}"))
}

fn garbage() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ -~]{0,30}",
        "[a-z0-9_,:=.-]{0,40}",
        Just("%0A".to_string()),
        Just("%zz".to_string()),
        Just("é☃\u{7}".to_string()),
    ]
}

fn value(words: Vec<String>) -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(words),
        3 => number(),
        3 => duration(),
        1 => garbage(),
        1 => proptest::collection::vec(prop_oneof![number(), duration()], 1..6).prop_map(|v| v.join(",")),
    ]
}

fn link() -> impl Strategy<Value = String> {
    let names: Vec<String> = TABLE.iter().map(|k| k.name.to_string()).collect();
    proptest::collection::vec(
        (prop_oneof![9 => proptest::sample::select(names), 1 => "[a-z_]{1,8}".prop_map(String::from)], value(words())),
        0..12,
    )
    .prop_map(|pairs| {
        pairs
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    })
}

/// Explains the link's request and runs its scenario for a while (not to the end: enough to
/// reach the arithmetic); returns the run's refusal, if any.
fn exercise(p: &Params) -> Option<retry_model::ConfigError> {
    if let Ok(t) = trace(p) {
        let _ = explain(p, &t);
    }
    p.sim.scenario.as_ref()?;
    match Run::new(p) {
        Err(e) => Some(e),
        Ok(mut run) => {
            for _ in 0..10 {
                if run.step(1_000).done {
                    break;
                }
            }
            None
        }
    }
}

fn is_key(field: &str) -> bool {
    field == "link" || TABLE.iter().any(|k| k.name == field)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_links_never_panic_and_errors_name_a_key(q in link()) {
        let (lenient, errors) = Params::parse_lenient(&q);
        for e in &errors {
            prop_assert!(is_key(e.field), "{}: {}", q, e);
            prop_assert!(!e.to_string().chars().any(char::is_control), "{}: {:?}", q, e.to_string());
        }
        // The lenient result is a link the page could show: it formats and reads back.
        let again = Params::parse_lenient(&lenient.to_string());
        prop_assert_eq!(&again.0, &lenient, "{}", q);
        match q.parse::<Params>() {
            Err(e) => prop_assert!(is_key(e.field), "{}: {}", q, e),
            Ok(p) => {
                let _ = schedule(&p);
                if let Some(e) = exercise(&p) {
                    prop_assert!(is_key(e.field), "{}: {}", q, e);
                }
            }
        }
    }
}

/// A value inside the key's own accepted range (extremes included), as link text.
fn in_domain(d: Domain) -> BoxedStrategy<String> {
    let edge = |lo: u64, hi: u64| prop_oneof![Just(lo), Just(hi), lo..=hi].boxed();
    match d {
        Domain::Dur { lo, hi, step, none } => {
            let s = step.as_micros().max(1);
            let v = edge(lo.as_micros() / s, hi.as_micros() / s)
                .prop_map(move |n| format!("{}us", n * s));
            if none {
                prop_oneof![1 => Just("none".to_string()), 4 => v].boxed()
            } else {
                v.boxed()
            }
        }
        Domain::Int { lo, hi } => edge(lo, hi).prop_map(|n| n.to_string()).boxed(),
        Domain::Dec { scale, lo, hi } => edge(lo, hi)
            .prop_map(move |n| {
                let places = scale.to_string().len() - 1;
                if places == 0 {
                    n.to_string()
                } else {
                    format!("{}.{:0width$}", n / scale, n % scale, width = places)
                }
            })
            .boxed(),
        Domain::Choice(values) => proptest::sample::select(
            values
                .iter()
                .map(|(v, _)| v.to_string())
                .collect::<Vec<_>>(),
        )
        .boxed(),
        Domain::Flag => prop_oneof![Just("true".to_string()), Just("false".to_string())].boxed(),
        Domain::Switch => prop_oneof![Just("on".to_string()), Just("off".to_string())].boxed(),
        Domain::Version => Just("1".to_string()).boxed(),
        Domain::Preset | Domain::List(_) => proptest::sample::select(words()).boxed(),
    }
}

fn extreme_link() -> impl Strategy<Value = String> {
    let scenario = proptest::sample::select(vec!["outage", "burst", "occ", "layers", "lost"]);
    let pairs = proptest::collection::vec(
        proptest::sample::select(TABLE.to_vec())
            .prop_flat_map(|k| in_domain(k.domain).prop_map(move |v| format!("{}={v}", k.name))),
        0..10,
    );
    (scenario, pairs).prop_map(|(s, pairs)| format!("scenario={s}&{}", pairs.join("&")))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// In-range values at their extremes (capacity 0.001, tick 100 us, 1000 attempts, a day's
    /// deadline) against every scenario: what parses runs for a while without a panic.
    #[test]
    fn extreme_values_run_without_panic(q in extreme_link()) {
        let (p, errors) = Params::parse_lenient(&q);
        for e in &errors {
            prop_assert!(is_key(e.field), "{}: {}", q, e);
        }
        // What the page would put in the address bar reads back to the same settings.
        let (again, _) = Params::parse_lenient(&p.to_string());
        prop_assert_eq!(&again, &p, "{} -> {}", q, p);
        if p.validate().is_ok() {
            if let Some(e) = exercise(&p) {
                prop_assert!(is_key(e.field), "{}: {}", q, e);
            }
        }
    }
}

#[test]
fn a_huge_link_is_quoted_in_80_characters() {
    // Past 8 KB a link is refused by its length alone.
    let e = "x"
        .repeat(100_000)
        .parse::<Params>()
        .unwrap_err()
        .to_string();
    assert!(e.len() < 100, "{e}");
    let long = "x".repeat(5_000);
    for q in [
        long.clone(),
        format!("seed={long}"),
        format!("{long}=1"),
        format!("preset={long}"),
        format!("backoff={long}"),
        format!("preset=payments-none&sweep.attempts=1,{long}"),
        format!("lesson={long}"),
        format!("ask=least:{long}"),
    ] {
        let e = q.parse::<Params>().unwrap_err().to_string();
        assert!(e.len() < 700, "{} chars: {}", e.len(), &e[..200]);
        assert!(e.contains(&"x".repeat(40)), "{e}");
        assert!(!e.contains(&"x".repeat(81)), "{e}");
    }
}
