//! What the readers' tests share: the corpus, reading with options, and looking for a note.

use crate::{import, Imported, Options};
use retry_model::Params;

/// A file of the corpus, `tests/configs/PATH`.
pub(crate) fn corpus(path: &str) -> Vec<u8> {
    let path = format!("{}/../../tests/configs/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `bytes` read by `opts`, which must succeed.
pub(crate) fn read_with(bytes: &[u8], opts: &Options) -> Imported {
    import(bytes, opts).unwrap_or_else(|e| panic!("{e}"))
}

/// Whether a warning on `field` says `words`.
pub(crate) fn warned(i: &Imported, field: &str, words: &str) -> bool {
    i.warnings
        .iter()
        .any(|w| w.field == field && w.text.contains(words))
}

/// Whether a field not modelled, named with `field` in it, says `words`.
pub(crate) fn unmodelled(i: &Imported, field: &str, words: &str) -> bool {
    i.unsupported
        .iter()
        .any(|u| u.field.contains(field) && u.text.contains(words))
}

/// Each retry's (lowest, highest) wait of `link`'s schedule, in milliseconds.
pub(crate) fn ranges(link: &str) -> Vec<(u64, u64)> {
    let p: Params = link.parse().unwrap_or_else(|e| panic!("{link}: {e}"));
    let s = retry_model::schedule(&p).unwrap();
    s.retries
        .iter()
        .map(|r| (r.low.0 / 1_000, r.ceiling.0 / 1_000))
        .collect()
}

/// The canonical link of `query`, as `retrylab link` prints it.
pub(crate) fn link(query: &str) -> String {
    query.parse::<Params>().unwrap().to_string()
}

/// Every retry policy of the corpus retries when its link runs in the lab's default outage: a
/// policy whose first attempt could use the whole deadline must still send its retries, as
/// gRPC, Envoy and Istio do until the deadline passes. (The A6 example's throttle stops its
/// retries after a few failures, as it should, so it is not among them.)
#[test]
fn every_corpus_policy_retries_in_an_outage() {
    for path in [
        "grpc/grpc-go-example.json",
        "envoy/blog-basic.yaml",
        "envoy/proto-example.yaml",
        "istio/ratings.yaml",
    ] {
        let i = read_with(&corpus(path), &Options::default());
        let q = format!("{}&scenario=outage", i.link);
        let p: Params = q.parse().unwrap_or_else(|e| panic!("{q}: {e}"));
        let r = retry_model::sim::simulate(&p).unwrap_or_else(|e| panic!("{q}: {e}"));
        assert!(
            r.summary.attempts > r.summary.originals * 11 / 10,
            "{path}: {} attempts for {} requests",
            r.summary.attempts,
            r.summary.originals
        );
    }
}

/// Each format's fields land on the link key the page shows them beside.
#[test]
fn fields_of_every_format_name_their_link_key() {
    for (field, key) in [
        (
            "virtual_hosts[0].routes[0].route.retry_policy.num_retries",
            "attempts",
        ),
        (
            "virtual_hosts[0].routes[0].route.retry_policy.per_try_timeout",
            "attempt_timeout",
        ),
        ("route.timeout", "deadline"),
        ("methodConfig[0].retryPolicy.maxBackoff", "backoff"),
        (
            "methodConfig[0].retryPolicy.retryableStatusCodes",
            "retry_on",
        ),
        ("retryThrottling.maxTokens", "budget"),
        ("Resilience:Retry:MaxRetryAttempts", "attempts"),
        ("Resilience:Retry:ShouldRetryAfterHeader", "ra_mode"),
        ("Resilience:CircuitBreaker", "breaker"),
        ("HTTPRoute s: retry.linkerd.io/timeout", "attempt_timeout"),
        ("HTTPRoute s: retry.linkerd.io/http", "retry_on"),
        ("Config.retries['max_attempts']", "attempts"),
        (
            "resilience4j.retry.instances.a.exponentialMaxWaitDuration",
            "backoff",
        ),
        ("spec.http[0].retries.perTryTimeout", "attempt_timeout"),
        ("methodConfig[0].waitForReady", ""),
    ] {
        assert_eq!(crate::key_of(field), key, "{field}");
    }
}

/// A key the format does not have is a warning naming the key and the nearest real one, in
/// every format that ignores such a key (Envoy refuses it instead, as its parser does).
#[test]
fn a_misspelt_key_is_named_with_the_nearest_real_one() {
    let cases: [(&str, &str, &str); 8] = [
        ("apiVersion: networking.istio.io/v1\nkind: VirtualService\nspec:\n  http:\n  - route: [{destination: {host: a}}]\n    retries: {attempts: 2, perTryTimout: 1s}\n", "perTryTimout", "perTryTimeout"),
        ("resilience4j:\n  retry:\n    instances:\n      a: {maxAttempts: 3, waitDurtion: 1s}\n", "waitDurtion", "waitDuration"),
        ("spring:\n  cloud:\n    gateway:\n      routes:\n      - id: a\n        filters:\n        - name: Retry\n          args: {retries: 2, seriess: SERVER_ERROR}\n", "seriess", "series"),
        ("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: a}\nspec:\n  rules:\n  - retry: {attempts: 2, backof: 1s}\n", "backof", "backoff"),
        ("apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  annotations:\n    retry.linkerd.io/http: 5xx\n    retry.linkerd.io/limt: \"3\"\n", "retry.linkerd.io/limt", "retry.linkerd.io/limit"),
        ("[default]\nretry_mode = standard\nmax_atempts = 5\n", "max_atempts", "max_attempts"),
        (r#"{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"], "perAttemptRecvTimout": "1s"}}]}"#, "perAttemptRecvTimout", "perAttemptRecvTimeout"),
        (r#"{"Resilience": {"Retry": {"MaxRetryAttempts": 2, "Backoff": "Linear"}}}"#, "Backoff", "BackoffType"),
    ];
    for (text, bad, nearest) in cases {
        let i = crate::import(text.as_bytes(), &crate::Options::default())
            .unwrap_or_else(|e| panic!("{bad}: {e}"));
        let w = i
            .warnings
            .iter()
            .find(|w| w.field.ends_with(bad))
            .unwrap_or_else(|| panic!("{bad}: no warning in {:?}", i.warnings));
        assert!(
            w.text
                .ends_with(&format!("the nearest real key is {nearest}")),
            "{}",
            w.text
        );
    }
}
