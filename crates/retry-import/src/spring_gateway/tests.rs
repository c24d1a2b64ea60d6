use crate::testing::{corpus, ranges, read_with, warned};
use crate::{import, Options};
use retry_model::{Micros, Params};

#[test]
fn the_reference_filters_read_in_both_forms() {
    let file = corpus("spring-gateway/retry-factory.yml");
    let long = read_with(&file, &Options::default());
    assert_eq!(long.format, "spring-gateway");
    // 10 ms doubling, capped at 50 ms; BAD_GATEWAY and the default 5xx series.
    assert_eq!(ranges(&long.link), [(10, 10), (20, 20), (40, 40)]);
    let p: Params = long.link.parse().unwrap();
    assert_eq!(p.policy.statuses.to_string(), "500-599");
    let at = "spring.cloud.gateway.routes[0].filters[0].args";
    assert!(
        warned(&long, &format!("{at}.methods"), "POST or PATCH"),
        "{:?}",
        long.warnings
    );
    let opts = Options {
        route: Some("retryshortcut_route".into()),
        ..Options::default()
    };
    let short = read_with(&file, &opts);
    assert_eq!(ranges(&short.link), [(10, 10), (20, 20), (40, 40)]);
    assert!(warned(
        &short,
        "spring.cloud.gateway.routes[1].filters[0].args.methods",
        "only GET"
    ));
    let p: Params = short.link.parse().unwrap();
    assert_eq!(p.policy.attempt_timeout, Micros::from_secs(86_400));
}

#[test]
fn bad_filters_are_one_line_naming_the_field() {
    let route = |f: &str| format!("spring.cloud.gateway.routes:\n- id: r\n  filters:\n  - {f}\n");
    for (f, field, words) in [
        (
            "Retry=3,BAD_GATEWAY,GET,10ms,50ms,2,false,9",
            "spring.cloud.gateway.routes[0].filters[0]",
            "at most 7",
        ),
        (
            "Retry=many",
            "spring.cloud.gateway.routes[0].filters[0].args.retries",
            "whole number",
        ),
        (
            "{name: Retry, args: {series: INFORMATIONAL}}",
            "spring.cloud.gateway.routes[0].filters[0].args.series",
            "SERVER_ERROR",
        ),
        (
            "{name: Retry, args: {backoff: {factor: 0}}}",
            "spring.cloud.gateway.routes[0].filters[0].args.backoff.factor",
            "[1, 10]",
        ),
    ] {
        let opts = Options {
            from: Some("spring-gateway".into()),
            ..Options::default()
        };
        let err = import(route(f).as_bytes(), &opts).unwrap_err();
        assert!(err.field == field && err.rule.contains(words), "{f}: {err}");
    }
}

/// Server MVC's `retries` counts attempts and its shortcut takes a series second; a bare
/// `Retry` takes every default; a file with resilience4j beside its Retry filter is read as the
/// gateway's.
#[test]
fn webmvc_counts_attempts_and_a_bare_retry_takes_the_defaults() {
    let mvc = "spring:\n  cloud:\n    gateway:\n      mvc:\n        routes:\n        - id: o\n          uri: http://o\n          filters:\n          - Retry=3,SERVER_ERROR\n";
    let i = crate::testing::read_with(mvc.as_bytes(), &Options::default());
    assert_eq!(i.release, "Spring Cloud Gateway Server MVC");
    assert!(
        i.link.contains("attempts=3&") && i.link.contains("retry_on=500-599"),
        "{}",
        i.link
    );
    let bare = "spring:\n  cloud:\n    gateway:\n      routes:\n      - id: o\n        uri: lb://o\n        filters:\n        - Retry\nresilience4j:\n  circuitbreaker:\n    instances:\n      o: {slidingWindowSize: 10}\n";
    let i = crate::testing::read_with(bare.as_bytes(), &Options::default());
    assert_eq!(
        (i.format, i.release.as_str()),
        ("spring-gateway", "Spring Cloud Gateway (WebFlux)")
    );
    assert!(
        i.link.contains("attempts=4&") && i.link.contains("backoff=none"),
        "{}",
        i.link
    );
    // The same bare filter under MVC's rules: 3 attempts.
    let opts = Options {
        release: Some("webmvc".into()),
        ..Options::default()
    };
    let i = crate::testing::read_with(bare.as_bytes(), &opts);
    assert!(i.link.contains("attempts=3&"), "{}", i.link);
}
