use crate::testing::{corpus, ranges, read_with, unmodelled, warned};
use crate::{import, Options};
use proptest::prelude::*;
use retry_model::{Micros, Params};

#[test]
fn the_standard_handler_reads_with_its_breaker_and_timeouts() {
    let i = read_with(&corpus("polly/standard-handler.json"), &Options::default());
    assert_eq!(i.format, "polly");
    for key in [
        "attempts=4",
        "backoff=decorrelated-v2",
        "base=2s",
        "cap=30s",
        "deadline=30s",
        "attempt_timeout=10s",
        "ra_mode=server",
        "breaker_failures=10",
        "breaker_min_calls=100",
        "breaker_window=30s",
        "breaker_open=5s",
        "breaker_probes=1",
    ] {
        assert!(i.link.contains(key), "{key}: {}", i.link);
    }
    assert!(warned(
        &i,
        "Resilience:Retry:MaxRetryAttempts",
        "4 attempts"
    ));
    assert!(warned(
        &i,
        "Resilience:Retry:ShouldRetryAfterHeader",
        "MaxDelay does not cap it"
    ));
    assert!(unmodelled(&i, "Resilience:RateLimiter", "concurrency"));
}

#[test]
fn sections_of_an_appsettings_file_are_found_and_picked() {
    let file = corpus("polly/appsettings.json");
    let catalog = read_with(&file, &Options::default());
    assert!(
        warned(&catalog, "HttpClients:Catalog", "2 sections"),
        "{:?}",
        catalog.warnings
    );
    // A constant 500 ms with +-25%: [375, 625] ms, four times.
    assert_eq!(ranges(&catalog.link), [(375, 625); 4]);
    assert!(
        catalog.link.contains("ra_mode=ignore") && catalog.link.contains("attempt_timeout=100s"),
        "{}",
        catalog.link
    );
    let opts = Options {
        instance: Some("Payments".into()),
        ..Options::default()
    };
    let pay = read_with(&file, &opts);
    let p: Params = pay.link.parse().unwrap();
    assert_eq!(
        (
            p.policy.max_attempts,
            p.policy.deadline,
            p.policy.attempt_timeout
        ),
        (3, Some(Micros::from_secs(5)), Micros::from_secs(2))
    );
    assert!(
        unmodelled(&pay, "HttpClients:Payments:CircuitBreaker", "still breaks"),
        "{:?}",
        pay.unsupported
    );
}

#[test]
fn bad_options_are_one_line_naming_the_field() {
    for (text, field, words) in [
        (
            r#"{"Retry": {"MaxRetryAttempts": 0}}"#,
            "Retry:MaxRetryAttempts",
            "[1, 999]",
        ),
        (
            r#"{"Retry": {"BackoffType": "Fibonacci"}}"#,
            "Retry:BackoffType",
            "accepted Constant",
        ),
        (
            r#"{"Retry": {"Delay": "2s"}}"#,
            "Retry:Delay",
            "not a TimeSpan",
        ),
        (
            r#"{"Retry": {"Delay": "00:61:00"}}"#,
            "Retry:Delay",
            "not a TimeSpan",
        ),
        (
            r#"{"Retry": {"UseJitter": "yes"}}"#,
            "Retry:UseJitter",
            "true or false",
        ),
        (
            r#"{"Retry": {}, "AttemptTimeout": {"Timeout": "00:00:00"}}"#,
            "AttemptTimeout:Timeout",
            "above 0",
        ),
        (
            r#"{"Retry": {}, "CircuitBreaker": {"FailureRatio": 2}}"#,
            "CircuitBreaker:FailureRatio",
            "[0.01, 1]",
        ),
        (
            r#"{"Retry": {"MaxRetryAttempts": 1, "MaxRetryAttempts": 2}}"#,
            "line 1",
            "duplicate",
        ),
    ] {
        let opts = Options {
            from: Some("polly".into()),
            ..Options::default()
        };
        let err = import(text.as_bytes(), &opts).unwrap_err();
        assert!(
            err.field == field && err.rule.contains(words),
            "{text}: {err}"
        );
    }
}

proptest! {
    /// A TimeSpan as .NET writes it reads back to the same duration.
    #[test]
    fn a_timespan_round_trips(us in 0u64..3_000_000_000_000) {
        let m = Micros(us);
        let text = crate::polly::export::timespan(m);
        prop_assert_eq!(crate::polly::timespan(&serde_json::json!(text), "f").unwrap(), m, "{}", text);
    }

    /// Any options of small values give a link or a one-line error, never a panic.
    #[test]
    fn any_options_are_read_or_refused_on_one_line(
        n in 0u64..1200, kind in prop::sample::select(vec!["Constant", "Linear", "Exponential", "x"]),
        jitter in any::<bool>(), delay_ms in 0u64..100_000, max_ms in prop::option::of(0u64..100_000),
    ) {
        let max = max_ms.map_or(String::new(), |m| format!(r#", "MaxDelay": "{}""#, crate::polly::export::timespan(Micros(m * 1000))));
        let text = format!(r#"{{"Retry": {{"MaxRetryAttempts": {n}, "BackoffType": "{kind}", "UseJitter": {jitter}, "Delay": "{}"{max}}}}}"#, crate::polly::export::timespan(Micros(delay_ms * 1000)));
        match import(text.as_bytes(), &Options::default()) {
            Ok(i) => prop_assert!(i.link.parse::<Params>().is_ok()),
            Err(e) => prop_assert!(!e.to_string().contains('\n') && !e.field.is_empty(), "{}", e),
        }
    }
}

/// A pipeline's `Retry` and `Timeout` sections are not the standard handler: its own timeout
/// applies, not the handler's 10 s and 30 s; a key Polly does not have is named with the real one.
#[test]
fn a_pipelines_own_timeout_is_read_and_unknown_keys_are_named() {
    let text = r#"{"Resilience": {"Orders": {
        "Retry": {"MaxRetryAttempts": 5, "Backoff": "Constant", "Delay": "00:00:01"},
        "Timeout": {"Timeout": "00:00:05"}}}}"#;
    let i = crate::testing::read_with(text.as_bytes(), &Options::default());
    assert!(
        i.link.contains("attempt_timeout=5s&deadline=5s") && i.link.contains("attempts=6"),
        "{}",
        i.link
    );
    assert!(crate::testing::warned(
        &i,
        "Resilience:Orders:Retry:Backoff",
        "nearest real key is BackoffType"
    ));
    // The standard handler's section keeps its defaults.
    let std = r#"{"Http": {"Retry": {"MaxRetryAttempts": 2}, "CircuitBreaker": {}}}"#;
    let i = crate::testing::read_with(std.as_bytes(), &Options::default());
    assert!(
        i.link.contains("attempt_timeout=10s&deadline=30s"),
        "{}",
        i.link
    );
}

/// Polly's Linear waits (n + 1) x Delay (RetryHelper.GetRetryDelayCore), spread by +-25% with
/// jitter and capped by MaxDelay afterwards; it exports as Linear again.
#[test]
fn linear_waits_grow_by_delay_and_round_trip() {
    let text = r#"{"Retry": {"MaxRetryAttempts": 3, "BackoffType": "Linear", "UseJitter": true, "Delay": "00:00:00.200", "MaxDelay": "00:00:00.500"}}"#;
    let i = crate::import(text.as_bytes(), &crate::Options::default()).unwrap();
    let p: retry_model::Params = i.link.parse().unwrap();
    let mut one = p.clone();
    one.clients = 1;
    let s = retry_model::schedule(&one).unwrap();
    let ranges: Vec<(u64, u64)> = s
        .retries
        .iter()
        .map(|r| (r.low.0 / 1000, r.ceiling.0 / 1000))
        .collect();
    assert_eq!(ranges, [(150, 250), (300, 500), (450, 500)]);
    let out = crate::export(&i.link, "polly").unwrap();
    assert!(
        out.text.contains("\"BackoffType\": \"Linear\""),
        "{}",
        out.text
    );
    assert!(
        out.notes
            .iter()
            .all(|n| n.key != "jitter" && n.key != "multiplier"),
        "{:?}",
        out.notes.iter().map(|n| n.key).collect::<Vec<_>>()
    );
    let again = crate::import(out.text.as_bytes(), &crate::Options::default()).unwrap();
    assert_eq!(
        again
            .link
            .parse::<retry_model::Params>()
            .unwrap()
            .policy
            .backoff,
        p.policy.backoff
    );
}
