use crate::testing::{corpus, read_with, unmodelled, warned};
use crate::{import, Options};
use retry_model::{Micros, Params};

#[test]
fn the_reference_route_retries_5xx_twice_at_once() {
    let i = read_with(&corpus("linkerd/schlep-route.yaml"), &Options::default());
    assert_eq!(i.format, "linkerd");
    let p: Params = i.link.parse().unwrap();
    assert_eq!(
        (
            p.policy.max_attempts,
            p.policy.attempt_timeout,
            p.policy.deadline
        ),
        (3, Micros::from_millis(300), None)
    );
    assert_eq!(p.policy.statuses.to_string(), "500-599");
    assert!(i.link.contains("backoff=none"), "{}", i.link);
    assert!(warned(
        &i,
        "HTTPRoute schlep-default: retry.linkerd.io/limit",
        "3 attempts"
    ));
    assert!(unmodelled(&i, "HTTPRoute schlep-default", "no backoff"));
}

#[test]
fn a_service_profile_retries_within_its_budget() {
    let i = read_with(&corpus("linkerd/books-profile.yaml"), &Options::default());
    for key in [
        "budget=ratio",
        "ratio_percent=20",
        "ratio_window=10s",
        "ratio_min_per_s=10",
        "deadline=10s",
    ] {
        assert!(i.link.contains(key), "{key}: {}", i.link);
    }
    assert!(warned(&i, "ServiceProfile authors.booksapp.svc.cluster.local: spec.routes[HEAD /authors/{id}.json]", "retry budget allows"), "{:?}", i.warnings);
    let opts = Options {
        route: Some("DELETE /authors/{id}.json".into()),
        ..Options::default()
    };
    let del = read_with(&corpus("linkerd/books-profile.yaml"), &opts);
    assert!(
        del.link.contains("attempts=1&") && del.link.contains("budget=none"),
        "{}",
        del.link
    );
}

#[test]
fn bad_annotations_are_one_line_naming_the_field() {
    let doc = |a: &str| format!("kind: Service\nmetadata:\n  name: s\n  annotations:\n    {a}\n");
    for (a, field, words) in [
        (
            "retry.linkerd.io/http: 5xx,600",
            "Service s: retry.linkerd.io/http",
            "[100, 599]",
        ),
        (
            "retry.linkerd.io/limit: \"many\"",
            "Service s: retry.linkerd.io/limit",
            "whole number",
        ),
        (
            "retry.linkerd.io/timeout: 3 seconds",
            "Service s: retry.linkerd.io/timeout",
            "not a duration",
        ),
    ] {
        let err = import(doc(a).as_bytes(), &Options::default()).unwrap_err();
        assert!(err.field == field && err.rule.contains(words), "{a}: {err}");
    }
    let grpc = read_with(
        doc("retry.linkerd.io/grpc: unavailable,internal,cancelled").as_bytes(),
        &Options::default(),
    );
    assert!(grpc.link.contains("retry_on=503,500"), "{}", grpc.link);
    assert!(unmodelled(&grpc, "retry.linkerd.io/grpc", "cancelled"));
    // Codes no simulated server answers: the warning says Linkerd retries them, and a try cut
    // by its timeout is still retried.
    let unmet = read_with(
        doc("retry.linkerd.io/grpc: cancelled\n    retry.linkerd.io/timeout: 300ms").as_bytes(),
        &Options::default(),
    );
    assert!(unmet.link.contains("attempts=2&"), "{}", unmet.link);
    assert!(warned(
        &unmet,
        "Service s: retry.linkerd.io/http",
        "Linkerd retries cancelled"
    ));
}

/// A ServiceProfile route that can never apply is no retries, with why.
#[test]
fn a_profile_that_never_applies_retries_nothing() {
    let profile = |name: &str, cond: &str| {
        format!("apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata: {{name: {name}}}\nspec:\n  routes:\n  - name: r\n    condition: {cond}\n    isRetryable: true\n")
    };
    let live = read_with(
        profile("books.default.svc.cluster.local", "{method: GET}").as_bytes(),
        &Options::default(),
    );
    assert!(live.link.contains("attempts=1000"), "{}", live.link);
    let both = read_with(
        profile(
            "books.default.svc.cluster.local",
            "{all: [{method: POST}, {method: GET}]}",
        )
        .as_bytes(),
        &Options::default(),
    );
    assert!(both.link.contains("attempts=1&"), "{}", both.link);
    assert!(both
        .warnings
        .iter()
        .any(|w| w.text.contains("POST and GET") || w.text.contains("GET and POST")));
    let short = read_with(
        profile("books", "{method: GET}").as_bytes(),
        &Options::default(),
    );
    assert!(short.link.contains("attempts=1&"), "{}", short.link);
    assert!(short
        .warnings
        .iter()
        .any(|w| w.text.contains("fully qualified")));
}

/// A ServiceProfile's budgeted retries go out as a ServiceProfile, never as an invented limit,
/// and come back the same link.
#[test]
fn a_budgeted_profile_exports_as_a_profile() {
    let i = read_with(&corpus("linkerd/books-profile.yaml"), &Options::default());
    let e = crate::export(&i.link, "linkerd").unwrap();
    assert!(!e.text.contains("retry.linkerd.io/limit"), "{}", e.text);
    assert!(
        e.text.contains("kind: ServiceProfile") && e.text.contains("retryRatio: 0.2"),
        "{}",
        e.text
    );
    let back = read_with(e.text.as_bytes(), &Options::default());
    assert_eq!(back.link, i.link);
}
