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
    let s = schedule(&p).unwrap();
    assert!(s
        .retries
        .iter()
        .all(|r| (r.low, r.ceiling) == (Micros::from_millis(100), Micros::from_millis(100))));
    let at = "HTTPRoute retry-example: spec.rules[0].retry";
    assert!(warned(
        &i,
        &format!("{at}.attempts"),
        "2 retries are 3 attempts"
    ));
    assert!(warned(&i, &format!("{at}.backoff"), "least wait"));
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
