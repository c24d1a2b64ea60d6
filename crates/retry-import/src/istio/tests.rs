use crate::testing::{corpus, link, read_with, unmodelled, warned};
use crate::{import, Imported, Options};
use retry_model::schedule;

fn read(text: &str) -> Imported {
    read_with(text.as_bytes(), &Options::default())
}

const HEAD: &str = "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: r}\nspec:\n  hosts: [r]\n  http:\n";

#[test]
fn the_proto_example_retries_three_times_with_envoys_defaults() {
    let i = read_with(&corpus("istio/ratings.yaml"), &Options::default());
    assert_eq!(i.format, "istio");
    assert_eq!(
        link(&i.link),
        link("fit=cut&deadline=none&attempt_timeout=2s&attempts=4&backoff=full&base=25ms&cap=250ms&whole_ms=true&classify=table&retry_on=502,503,504&idempotent=true&ra_mode=ignore&budget=none")
    );
    let s = schedule(&i.link.parse().unwrap()).unwrap();
    let ceilings: Vec<u64> = s.retries.iter().map(|r| r.ceiling.0 / 1000).collect();
    assert_eq!(ceilings, [25, 50, 100]);
    assert!(warned(
        &i,
        "spec.http[0].timeout",
        "disables the route timeout"
    ));
    assert!(warned(
        &i,
        "spec.http[0].retries.attempts",
        "4 attempts in all"
    ));
}

#[test]
fn a_route_without_retries_still_retries_twice() {
    let text = format!("{HEAD}  - route: [{{destination: {{host: r}}}}]\n    timeout: 4s\n");
    let i = read(&text);
    assert_eq!(i.release, "Istio 1.24+");
    assert!(i.link.contains("attempts=3"), "{}", i.link);
    // 1.24 and later retry connection failures only: no HTTP status.
    assert!(
        i.link.contains("retry_on=501&idempotent=false"),
        "{}",
        i.link
    );
    assert!(warned(&i, "spec.http[0].retries", "not 503"));
    // Up to 1.23 the default policy retried 503 too.
    let opts = Options {
        release: Some(String::from("1.23")),
        ..Options::default()
    };
    let old = crate::testing::read_with(text.as_bytes(), &opts);
    assert_eq!(old.release, "Istio 1.23 and earlier");
    assert!(
        old.link.contains("retry_on=503&idempotent=false"),
        "{}",
        old.link
    );
    // `retries` without `retryOn` keeps the default conditions, 503 by release.
    let set =
        format!("{HEAD}  - route: [{{destination: {{host: r}}}}]\n    retries: {{attempts: 4}}\n");
    assert!(
        read(&set).link.contains("retry_on=501&"),
        "{}",
        read(&set).link
    );
    let set_old = crate::testing::read_with(set.as_bytes(), &opts);
    assert!(set_old.link.contains("retry_on=503&"), "{}", set_old.link);
    // `retries` without `attempts` turns retries off.
    let off = format!("{HEAD}  - route: [{{destination: {{host: r}}}}]\n    retries: {{perTryTimeout: 2s, retryOn: 5xx}}\n");
    let off = read(&off);
    assert!(off.link.contains("attempts=1&"), "{}", off.link);
    assert!(warned(
        &off,
        "spec.http[0].retries.attempts",
        "turns retries off"
    ));
    assert!(
        i.link.contains("deadline=4s&") && i.link.contains("attempt_timeout=4s"),
        "{}",
        i.link
    );
    assert!(warned(&i, "spec.http[0].retries", "still retries twice"));
    assert!(unmodelled(&i, "retries: cancelled", "gRPC status"));
}

#[test]
fn codes_backoff_routes_and_a_budget_beside_it() {
    let text = format!(
        "{HEAD}  - name: slow\n    retries: {{attempts: 1, retryOn: \"429,connect-failure\", backoff: 1m30s, perTryTimeout: 250ms, retryRemoteLocalities: true}}\n  - name: fast\n    retries: {{attempts: 0}}\n---\napiVersion: networking.istio.io/v1\nkind: DestinationRule\nspec:\n  host: r\n  trafficPolicy:\n    retryBudget: {{percent: 25, minRetryConcurrency: 3}}\n"
    );
    let i = read(&text);
    assert!(i.link.contains("retry_on=429&"), "{}", i.link);
    assert!(
        i.link.contains("base=90s&cap=900s") && i.link.contains("attempt_timeout=250ms"),
        "{}",
        i.link
    );
    assert!(warned(&i, "document 1: spec.http[0]", "2 http routes"));
    assert!(unmodelled(&i, "retryRemoteLocalities", "one upstream host"));
    assert!(warned(
        &i,
        "document 2: spec.trafficPolicy.retryBudget",
        "at most 25% of all attempts in flight, and always 3"
    ));
    assert!(
        i.link
            .contains("budget=envoy_budget&envoy_budget_percent=25&envoy_min_retry_concurrency=3"),
        "{}",
        i.link
    );
    // Without a budget, a DestinationRule's maxRetries is Envoy's limit; with neither, none.
    let rule = "---\napiVersion: networking.istio.io/v1\nkind: DestinationRule\nspec:\n  trafficPolicy:\n    connectionPool: {http: {maxRetries: 10}}\n";
    let limited = read(&format!("{HEAD}  - retries: {{attempts: 2}}\n{rule}"));
    assert!(
        limited.link.contains("budget=envoy&envoy_max_retries=10"),
        "{}",
        limited.link
    );
    assert!(read(&format!("{HEAD}  - retries: {{attempts: 2}}\n"))
        .link
        .contains("budget=none"));
    let fast = read_with(
        text.as_bytes(),
        &Options {
            route: Some(String::from("fast")),
            ..Options::default()
        },
    );
    assert!(fast.link.contains("attempts=1"), "{}", fast.link);
    let e = import(
        text.as_bytes(),
        &Options {
            route: Some(String::from("x")),
            ..Options::default()
        },
    )
    .unwrap_err();
    assert_eq!(e.field, "--route");
    let e = import(
        format!("{HEAD}  - retries: {{perTryTimeout: 2 seconds}}\n").as_bytes(),
        &Options::default(),
    )
    .unwrap_err();
    assert!(
        e.field.ends_with("perTryTimeout") && e.rule.contains("not a duration"),
        "{e}"
    );
    let e = import(
        b"apiVersion: networking.istio.io/v1\nkind: Gateway\n",
        &Options::default(),
    )
    .unwrap_err();
    assert!(e.rule.contains("no VirtualService"), "{e}");
}
