use crate::testing::{corpus, read_with, warned};
use crate::{import, Options};
use retry_model::{schedule, Micros, Params};

#[test]
fn the_rule_retries_its_codes_after_its_backoff() {
    let i = read_with(
        &corpus("gateway-api/retry-example.yaml"),
        &Options::default(),
    );
    assert_eq!(i.format, "gateway-api");
    let p: Params = i.link.parse().unwrap();
    assert_eq!(
        (
            p.policy.max_attempts,
            p.policy.attempt_timeout,
            p.policy.deadline
        ),
        (3, Micros::from_secs(2), Some(Micros::from_secs(10)))
    );
    assert_eq!(p.policy.statuses.to_string(), "500,502-504");
    // `backoff` is the base of Envoy's full jitter, as Istio and Envoy Gateway hand it on.
    let s = schedule(&p).unwrap();
    let windows: Vec<(Micros, Micros)> = s.retries.iter().map(|r| (r.low, r.ceiling)).collect();
    assert_eq!(
        windows,
        [
            (Micros::ZERO, Micros::from_millis(100)),
            (Micros::ZERO, Micros::from_millis(200))
        ]
    );
    let at = "HTTPRoute retry-example: spec.rules[0].retry";
    assert!(warned(
        &i,
        &format!("{at}.attempts"),
        "2 retries are 3 attempts"
    ));
    assert!(warned(&i, &format!("{at}.backoff"), "base interval"));
    assert_eq!(i.release, "Gateway API on Istio");
}

const ROUTE: &str = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r}\nspec:\n  rules:\n";

fn on(text: &str, release: Option<&str>, route: Option<&str>) -> crate::Imported {
    let opts = Options {
        release: release.map(str::to_string),
        route: route.map(str::to_string),
        ..Options::default()
    };
    read_with(text.as_bytes(), &opts)
}

#[test]
fn what_the_spec_leaves_open_is_read_as_the_implementation_does() {
    // `retry: {}`: 2 retries on both; Istio retries connection failures only, Envoy Gateway
    // 503 too.
    let empty = format!("{ROUTE}  - retry: {{}}\n");
    let istio = on(&empty, None, None);
    assert!(
        istio.link.contains("retry_on=501&") && istio.link.contains("attempts=3&"),
        "{}",
        istio.link
    );
    let eg = on(&empty, Some("envoy-gateway"), None);
    assert_eq!(eg.release, "Gateway API on Envoy Gateway");
    assert!(
        eg.link.contains("retry_on=503&") && eg.link.contains("attempts=3&"),
        "{}",
        eg.link
    );
    assert!(
        eg.link.contains("deadline=15s"),
        "Envoy's route timeout stays: {}",
        eg.link
    );
    // No `retry`: Istio's default policy, Envoy Gateway none.
    let bare = format!("{ROUTE}  - backendRefs: [{{name: a}}]\n");
    assert!(on(&bare, None, None).link.contains("attempts=3&"));
    assert!(on(&bare, Some("envoy-gateway"), None)
        .link
        .contains("attempts=1&"));
    // `attempts: 0` turns retries off.
    let off = format!("{ROUTE}  - retry: {{attempts: 0, codes: [503]}}\n");
    assert!(on(&off, None, None).link.contains("attempts=1&"));
}

#[test]
fn a_rule_without_a_name_is_picked_by_its_place() {
    let two = format!("{ROUTE}  - retry: {{attempts: 1}}\n  - retry: {{attempts: 4}}\n");
    assert!(on(&two, None, None).link.contains("attempts=2&"));
    assert!(on(&two, None, Some("rules[1]"))
        .link
        .contains("attempts=5&"));
    assert!(on(&two, None, Some("1")).link.contains("attempts=5&"));
    let e = import(
        two.as_bytes(),
        &Options {
            route: Some("x".into()),
            ..Options::default()
        },
    )
    .unwrap_err();
    assert!(e.rule.contains("rules[0], rules[1]"), "{e}");
}

#[test]
fn bad_rules_are_one_line_naming_the_field() {
    let rule = |r: &str| {
        format!("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {{name: r}}\nspec:\n  rules:\n  - retry: {r}\n")
    };
    for (r, field, words) in [
        (
            "{codes: [200]}",
            "HTTPRoute r: spec.rules[0].retry.codes",
            "[400, 599]",
        ),
        (
            "{codes: 503}",
            "HTTPRoute r: spec.rules[0].retry.codes",
            "a list",
        ),
        (
            "{attempts: -1}",
            "HTTPRoute r: spec.rules[0].retry.attempts",
            "whole number",
        ),
        (
            "{backoff: 1d}",
            "HTTPRoute r: spec.rules[0].retry.backoff",
            "not a duration",
        ),
    ] {
        let err = import(rule(r).as_bytes(), &Options::default()).unwrap_err();
        assert!(err.field == field && err.rule.contains(words), "{r}: {err}");
    }
}
