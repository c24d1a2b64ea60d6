//! The unit tests of `link/mod.rs`, beside it so that the module itself stays short.

use super::*;

#[test]
fn defaults_format_to_just_the_version() {
    assert_eq!(Params::default().to_string(), "v=2");
    assert_eq!("".parse::<Params>().unwrap(), Params::default());
}

#[test]
fn order_does_not_matter() {
    let a: Params = "budget=bucket&bucket_max=5".parse().unwrap();
    let b: Params = "bucket_max=5&budget=bucket".parse().unwrap();
    assert_eq!(a, b);
    assert_eq!(a.to_string(), "v=2&budget=bucket&bucket_max=5");
}

#[test]
fn full_urls_and_escapes() {
    let p: Params = "http://127.0.0.1:8080/?v=2&outcomes=503%3Ara%3D2s,ok#x"
        .parse()
        .unwrap();
    assert_eq!(p.outcomes[0].retry_after, Some(Micros::from_secs(2)));
}

#[test]
fn errors_name_the_key() {
    let cases = [
        // Found by hostile input: the key is named, never `link`, and exponents are refused
        // as they are for durations.
        ("seed=%zz", "seed"),
        ("outcomes=503:ra=1s:ra=2s", "outcomes"),
        ("multiplier=1e1", "multiplier"),
        ("cap=1d", "cap"),
        ("attempts=0", "attempts"),
        ("attempts=1001", "attempts"),
        ("attempts=x", "attempts"),
        ("base=5s&cap=2s", "base"),
        ("multiplier=NaN", "multiplier"),
        ("multiplier=-2", "multiplier"),
        ("base=-1s", "base"),
        ("deadline=soon", "deadline"),
        ("backoff=jittery", "backoff"),
        ("budget=magic", "budget"),
        ("bucket_max=5", "bucket_max"),
        ("budget=ratio&ratio_window=90s", "ratio_window"),
        ("outcomes=418", "outcomes"),
        ("clients=0", "clients"),
        ("clients=10001", "clients"),
        ("seed=-3", "seed"),
        ("v=3", "v"),
        ("scenario=outage&runs=5&sequential=maybe", "sequential"),
        ("preset=nope", "preset"),
        ("wat=1", "link"),
        ("seed=1&seed=2", "seed"),
        ("reserve=10s", "reserve"),
        ("attempt_timeout=0ms", "attempt_timeout"),
    ];
    for (q, field) in cases {
        let e = q.parse::<Params>().unwrap_err();
        assert_eq!(e.field, field, "{q}: {e}");
    }
}

#[test]
fn messages_are_one_line_whatever_the_input() {
    for q in ["seed=%0A", "base=%071s", "outcomes=%1B[31m", "preset=%0Ax"] {
        let e = q.parse::<Params>().unwrap_err();
        let text = e.to_string();
        assert!(!text.chars().any(char::is_control), "{q}: {text:?}");
    }
    let e = "seed=%0A".parse::<Params>().unwrap_err();
    assert_eq!(
        e.to_string(),
        "seed: '\\n' is not a whole number in [0, 18446744073709551615]"
    );
    let e = "cap=1d".parse::<Params>().unwrap_err();
    assert!(
        e.rule.contains("a number and a unit: us, ms, s, m, h"),
        "{e}"
    );
}

#[test]
fn lenient_keeps_the_good_keys() {
    let (p, errs) = Params::parse_lenient("attempts=5&base=oops&seed=9");
    assert_eq!(p.policy.max_attempts, 5);
    assert_eq!(p.seed, 9);
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].field, "base");
}

#[test]
fn switches_and_their_details_round_trip() {
    for q in [
        "v=2&scenario=outage&breaker=on",
        "v=2&scenario=outage&breaker=on&breaker_open=2s",
        "v=2&preset=metastable-breaker&breaker=off",
        "v=2&preset=metastable-breaker&breaker_probes=5",
        "v=2&budget=bucket",
        "v=2&budget=bucket&bucket_max=5",
        "v=2&preset=payments-none&scenario=lost",
        "v=2&scenario=layers&runs=3",
    ] {
        let p: Params = q.parse().unwrap();
        assert_eq!(p.to_string(), q);
        assert_eq!(p.to_string().parse::<Params>().unwrap(), p, "{q}");
    }
}

#[test]
fn presets_round_trip() {
    for preset in Preset::ALL {
        let q = format!("preset={}", preset.name());
        let p: Params = q.parse().unwrap();
        assert_eq!(p.to_string(), format!("v=2&{q}"));
        let again: Params = p.to_string().parse().unwrap();
        assert_eq!(again, p);
    }
}

/// Envoy's limit on retries in flight binds in a storm whose attempts hang (a connect-timeout
/// outage keeps many retries outstanding), and a limit no storm reaches changes nothing.
#[test]
fn envoys_retry_limit_binds_only_when_retries_pile_up() {
    let attempts = |q: &str| {
        let p: Params = q.parse().unwrap_or_else(|e| panic!("{q}: {e}"));
        crate::sim::simulate(&p).unwrap().summary.attempts
    };
    let storm = "preset=envoy&scenario=outage&outage_kind=connect_timeout";
    let free = attempts(storm);
    let limited = attempts(&format!("{storm}&budget=envoy"));
    assert!(
        limited < free,
        "{limited} attempts with 3 retries in flight, {free} without"
    );
    assert_eq!(
        attempts(&format!("{storm}&budget=envoy&envoy_max_retries=100000")),
        free
    );
    // Refusing a retry over the limit ends the request: fewer retries, never more originals.
    let p: Params = format!("{storm}&budget=envoy").parse().unwrap();
    let r = crate::sim::simulate(&p).unwrap();
    assert_eq!(
        r.summary.originals,
        crate::sim::simulate(&storm.parse().unwrap())
            .unwrap()
            .summary
            .originals
    );
}

/// Envoy's retry budget: with no share it is the fixed limit of its floor, with a share of
/// 100 % it never binds (retries are part of the attempts in flight), and its defaults bind in
/// a storm whose attempts hang.
#[test]
fn envoys_retry_budget_is_a_share_of_active_attempts() {
    let attempts = |q: &str| {
        let p: Params = q.parse().unwrap_or_else(|e| panic!("{q}: {e}"));
        crate::sim::simulate(&p).unwrap().summary.attempts
    };
    let storm = "preset=envoy&scenario=outage&outage_kind=connect_timeout";
    let free = attempts(storm);
    let budget = |pct: &str, min: u32| {
        attempts(&format!(
            "{storm}&budget=envoy_budget&envoy_budget_percent={pct}&envoy_min_retry_concurrency={min}"
        ))
    };
    assert_eq!(budget("0", 3), attempts(&format!("{storm}&budget=envoy")));
    assert_eq!(budget("100", 0), free);
    let share = attempts(&format!("{storm}&budget=envoy_budget"));
    assert!(share < free, "{share} attempts under 20 %, {free} without");
    assert!(budget("50", 3) >= share, "a larger share allows more");
}

/// A retry the breaker refuses was counted by Envoy's limit and never sent: it must leave the
/// limit, or after a few refusals no retry is ever sent again.
#[test]
fn a_retry_the_breaker_refuses_leaves_envoys_limit() {
    let run = |max: u32| {
        let q = format!("scenario=outage&server=flaky&fail=0.2&service=5ms&rate=200&duration=60s&attempts=4&backoff=full&base=10ms&cap=100ms&breaker=on&outage=5s&outage_start=10s&breaker_min_calls=20&breaker_open=1s&budget=envoy&envoy_max_retries={max}");
        let p: Params = q.parse().unwrap();
        crate::sim::simulate(&p).unwrap().summary
    };
    let (tight, free) = (run(2), run(100_000));
    assert!(
        tight.attempts * 100 > tight.originals * 110,
        "{} attempts for {} requests",
        tight.attempts,
        tight.originals
    );
    assert!(tight.attempts <= free.attempts);
}

/// Each budget name gives the budget of its own row and is written back as itself: the name,
/// the menu's words and the budget are one row, so no name can mean "no budget" by accident.
#[test]
fn budget_names_are_their_rows() {
    use crate::link_keys::BUDGET_ROWS;
    for (i, (name, _, config)) in BUDGET_ROWS.iter().enumerate() {
        let p: Params = format!("budget={name}").parse().unwrap();
        assert_eq!(p.policy.budget, *config, "{name}");
        assert_eq!(p.get("budget").as_deref(), Some(*name), "{name}");
        let same = BUDGET_ROWS.iter().skip(i + 1);
        assert!(
            same.clone().all(|r| r.0 != *name && r.2 != *config),
            "{name} twice"
        );
    }
    assert_eq!(BUDGET_ROWS[0].2, crate::retry::budget::BudgetConfig::None);
    let e = "budget=bucketz".parse::<Params>().unwrap_err().to_string();
    assert!(e.contains("budget") && e.contains("envoy_budget"), "{e}");
}
