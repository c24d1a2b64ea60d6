use crate::testing::{corpus, link, read_with, unmodelled, warned};
use crate::{import, Imported, Options};
use proptest::prelude::*;
use retry_model::{schedule, Micros};

fn read(text: &str) -> Imported {
    read_with(text.as_bytes(), &Options::default())
}

fn refused(text: &str) -> crate::ImportError {
    let opts = Options {
        from: Some(String::from("envoy")),
        ..Options::default()
    };
    import(text.as_bytes(), &opts).expect_err("refused")
}

/// The windows of the retries, in milliseconds.
fn windows_ms(query: &str) -> Vec<(u64, u64)> {
    let s = schedule(&query.parse().unwrap()).unwrap();
    s.retries
        .iter()
        .map(|r| (r.low.0 / 1000, r.ceiling.0 / 1000))
        .collect()
}

#[test]
fn the_proto_example_gives_its_policy_and_names_what_is_not_modelled() {
    let i = read_with(&corpus("envoy/proto-example.yaml"), &Options::default());
    assert_eq!(i.format, "envoy");
    assert_eq!(
        link(&i.link),
        link("fit=cut&deadline=3s&attempt_timeout=500ms&attempts=4&backoff=full&base=50ms&cap=1s&whole_ms=true&classify=table&retry_on=429,500-599&idempotent=true&ra_mode=envoy&ra_max=300s&budget=envoy_budget&envoy_budget_percent=20&envoy_min_retry_concurrency=3")
    );
    // Envoy's code: retry n draws from [0, min(50 ms x 2^(n-1), 1 s)).
    assert_eq!(windows_ms(&i.link), [(0, 50), (0, 100), (0, 200)]);
    let rp = "virtual_hosts[0].routes[0].route.retry_policy";
    assert!(warned(
        &i,
        &format!("{rp}.num_retries"),
        "4 attempts in all"
    ));
    assert!(warned(
        &i,
        "static_resources.clusters[0].circuit_breakers.thresholds[0].retry_budget",
        "at most 20% of all attempts in flight, and always 3"
    ));
    assert!(unmodelled(&i, "route.hedge_policy", "per-try timeout"));
    // Envoy's spread on Retry-After is the link's ra_mode=envoy; a UNIX-time header is not.
    assert!(!i.unsupported.iter().any(|u| u.text.contains("U[1, 1.5)")));
    assert!(unmodelled(
        &i,
        "rate_limited_retry_back_off.reset_headers",
        "UNIX time"
    ));
    assert!(unmodelled(&i, "retry_host_predicate", "one upstream host"));
}

#[test]
fn a_retry_budget_replaces_the_limit_and_its_fields_are_checked() {
    let cluster = |b: &str| {
        format!("route:\n  retry_policy:\n    retry_on: 5xx\ncircuit_breakers:\n  thresholds:\n  - max_retries: 5\n    retry_budget: {b}\n")
    };
    let i = read(&cluster(
        "{budget_percent: {value: 12.34}, min_retry_concurrency: 0, budget_interval: 10s}",
    ));
    assert!(
        i.link.contains(
            "budget=envoy_budget&envoy_budget_percent=12.3&envoy_min_retry_concurrency=0"
        ),
        "{}",
        i.link
    );
    assert!(
        !i.link.contains("envoy_max_retries"),
        "the budget replaces max_retries"
    );
    let at = "circuit_breakers.thresholds[0].retry_budget";
    assert!(warned(
        &i,
        &format!("{at}.budget_percent.value"),
        "rounded to 12.3%"
    ));
    assert!(unmodelled(
        &i,
        &format!("{at}.budget_interval"),
        "window of recent requests"
    ));
    // An empty budget takes Envoy's defaults.
    assert!(read(&cluster("{}"))
        .link
        .contains("envoy_budget_percent=20&envoy_min_retry_concurrency=3"));
    let e = refused(&cluster("{budget_percent: {value: 120}}"));
    assert_eq!(e.field, format!("{at}.budget_percent.value"));
    assert!(e.rule.contains("[0, 100]"), "{}", e.rule);
    let e = refused(&cluster("{min_retry_concurrency: -1}"));
    assert_eq!(e.field, format!("{at}.min_retry_concurrency"));
}

#[test]
fn a_bare_policy_gets_envoys_defaults_and_their_warnings() {
    let i = read_with(&corpus("envoy/blog-basic.yaml"), &Options::default());
    assert_eq!(
        link(&i.link),
        link("fit=cut&deadline=15s&attempt_timeout=15s&attempts=4&backoff=full&base=25ms&cap=250ms&whole_ms=true&classify=table&retry_on=500-599&idempotent=true&ra_mode=ignore&budget=envoy&envoy_max_retries=3")
    );
    assert_eq!(windows_ms(&i.link), [(0, 25), (0, 50), (0, 100)]);
    assert!(warned(&i, "routes[0].route.timeout", "default of 15 s"));
    assert!(warned(
        &i,
        "routes[0].route.retry_policy.per_try_timeout",
        "never retried"
    ));
    assert!(warned(&i, "circuit_breakers", "3 retries in flight"));
    // A cluster's own limit is the link's, shared by every request in a storm.
    let limited = read("route:\n  retry_policy:\n    retry_on: 5xx\n    num_retries: 2\ncircuit_breakers:\n  thresholds:\n  - max_retries: 5\n");
    assert!(
        limited.link.contains("budget=envoy&envoy_max_retries=5"),
        "{}",
        limited.link
    );
    assert!(warned(
        &limited,
        "circuit_breakers.thresholds[0].max_retries",
        "5 retries in flight"
    ));
}

#[test]
fn conditions_become_statuses_timeouts_and_connections() {
    let policy = |retry_on: &str| {
        read(&format!(
            "route:\n  timeout: 2s\n  retry_policy:\n    retry_on: \"{retry_on}\"\n    retriable_status_codes: [418]\n"
        ))
    };
    let i = policy("connect-failure");
    assert!(
        i.link.contains("retry_on=501&idempotent=false"),
        "{}",
        i.link
    );
    assert!(warned(
        &i,
        "route.retry_policy.retry_on",
        "does nothing unless"
    ));
    // On an HTTP route the gRPC conditions never meet a 503 or a 429: Envoy reads them from
    // the grpc-status header only.
    let i = policy("retriable-4xx,unavailable,resource-exhausted,retriable-status-codes");
    assert!(
        i.link.contains("retry_on=409,418&idempotent=false"),
        "{}",
        i.link
    );
    assert!(unmodelled(
        &i,
        "retry_on: unavailable",
        "grpc-status header"
    ));
    // On a gRPC route (match.grpc) the lab's 503 and 429 stand for UNAVAILABLE and
    // RESOURCE_EXHAUSTED.
    let grpc = read("routes:\n- match: {prefix: /, grpc: {}}\n  route:\n    retry_policy:\n      retry_on: \"unavailable,resource-exhausted\"\n");
    assert!(
        grpc.link.contains("retry_on=429,503&idempotent=false"),
        "{}",
        grpc.link
    );
    assert!(unmodelled(&i, "retry_on", "refused connection"));
    let i = policy("internal");
    assert!(i.link.contains("attempts=1"), "{}", i.link);
    assert!(unmodelled(&i, "retry_on: internal", "gRPC status"));
    let e = refused("route:\n  retry_policy:\n    retry_on: \"5xx,sometimes\"\n");
    assert_eq!(e.field, "route.retry_policy.retry_on");
    assert!(
        e.rule.contains("'sometimes' is not a retry condition"),
        "{e}"
    );
}

#[test]
fn timeouts_routes_and_json_read_as_envoy_reads_them() {
    let i = read("route:\n  timeout: 0s\n  retry_policy:\n    retry_on: 5xx\n    num_retries: 2\n    per_try_timeout: {seconds: 1, nanos: 500000000}\n");
    assert!(
        i.link.contains("deadline=none") && i.link.contains("attempt_timeout=1500ms"),
        "{}",
        i.link
    );
    assert!(i.link.contains("attempts=3"), "{}", i.link);
    let json = r#"{"virtual_hosts": [{"name": "vh", "domains": ["*"], "routes": [
        {"name": "a", "route": {"timeout": "1s", "retry_policy": {"retry_on": "5xx", "num_retries": 1}}},
        {"name": "b", "route": {"timeout": "9s", "retry_policy": {"retry_on": "5xx", "num_retries": 7}}}]}]}"#;
    let i = read(json);
    assert!(i.link.contains("attempts=2"), "{}", i.link);
    assert!(warned(
        &i,
        "virtual_hosts[0].routes[0].route",
        "2 retry policies"
    ));
    let b = read_with(
        json.as_bytes(),
        &Options {
            route: Some(String::from("b")),
            ..Options::default()
        },
    );
    assert!(
        b.link.contains("deadline=9s") && b.link.contains("attempts=8"),
        "{}",
        b.link
    );
    let e = import(
        json.as_bytes(),
        &Options {
            route: Some(String::from("c")),
            ..Options::default()
        },
    )
    .unwrap_err();
    assert!(
        e.field == "--route" && e.rule.contains("named: a, b"),
        "{e}"
    );
    let i = read("route_config:\n  name: none\n  virtual_hosts: []\n");
    assert!(
        i.link.contains("attempts=1") && warned(&i, "retry_policy", "retries nothing"),
        "{:?}",
        i
    );
    let e = refused("route:\n  retry_policy:\n    retry_on: 5xx\n    num_retries: 5000\n");
    assert!(
        e.field.ends_with("num_retries") && e.rule.contains("at most 999"),
        "{e}"
    );
    let e = refused("route:\n  retry_policy:\n    retry_on: 5xx\n    retry_back_off: {base_interval: 1s, max_interval: 0.5s}\n");
    assert!(
        e.field.ends_with("max_interval") && e.rule.contains("below base_interval"),
        "{e}"
    );
}

#[test]
fn hostile_yaml_gets_one_line_naming_where() {
    let laughs = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nretry_policy: [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n";
    let e = refused(laughs);
    assert!(e.rule.contains("repetition limit"), "{e}");
    let e = refused("route:\n  retry_policy:\n    retry_on: 5xx\n    retry_on: reset\n");
    assert!(
        e.field == "line 3" && e.rule.contains("duplicate entry with key \"retry_on\""),
        "{e}"
    );
    let deep = format!("{}1{}", "[".repeat(500), "]".repeat(500));
    let e = refused(&deep);
    assert!(e.rule.contains("nested deeper than 128"), "{e}");
    // A mapping referenced a hundred thousand times (300 KB of text, gigabytes expanded) is
    // refused by its expanded size before any tree is built.
    let keys: Vec<String> = (0..200)
        .map(|i| format!("k{i}: {}", "v".repeat(50)))
        .collect();
    let refs = format!(
        "base: &b {{{}}}\nroute: {{retry_policy: {{num_retries: 2}}}}\nlist: [{}]\n",
        keys.join(", "),
        vec!["*b"; 100_000].join(",")
    );
    let e = refused(&refs);
    assert!(e.rule.contains("aliases expand past 32 MiB"), "{e}");
    // Sixty thousand levels of flow nesting are refused by the linear scan, at once.
    let e = refused(&format!(
        "route: {}{}",
        "[".repeat(60_000),
        "]".repeat(60_000)
    ));
    assert!(e.rule.contains("nested deeper than 128"), "{e}");
    let e = refused("route: !custom {retry_policy: {}}\n");
    assert!(e.rule.contains("tag"), "{e}");
    let e = refused("route:\n  retry_policy:\n    num_retries: 99999999999999999999999\n");
    assert!(e.field == "line 3" && e.rule.contains("num_retries"), "{e}");
    for e in [refused(laughs), refused(&deep)] {
        assert!(!e.to_string().contains('\n'), "{e}");
    }
}

proptest! {
    /// Any text read as Envoy gives a link the lab opens, or one line naming where.
    #[test]
    fn any_text_gives_a_link_or_one_line(text in "[a-z_:{}\\[\\], \\n0-9.s\"&*-]{0,200}") {
        let opts = Options { from: Some(String::from("envoy")), ..Options::default() };
        match import(text.as_bytes(), &opts) {
            Ok(i) => prop_assert!(i.link.parse::<retry_model::Params>().is_ok(), "{}", i.link),
            Err(e) => prop_assert!(!e.to_string().contains('\n') && !e.field.is_empty(), "{}", e),
        }
    }

    /// Any policy of Envoy's fields gives its retries: num_retries + 1 attempts and the
    /// windows of Envoy's code.
    #[test]
    fn any_policy_draws_envoys_windows(retries in 1u64..8, base_ms in 1u64..500, times in 1u64..20) {
        let cap_ms = base_ms * times;
        let text = format!("route:\n  retry_policy:\n    retry_on: 5xx\n    num_retries: {retries}\n    retry_back_off: {{base_interval: {}s, max_interval: {}s}}\n", base_ms as f64 / 1000.0, cap_ms as f64 / 1000.0);
        let i = read(&text);
        let s = schedule(&i.link.parse().unwrap()).unwrap();
        prop_assert_eq!(s.retries.len() as u64, retries);
        for (n, r) in s.retries.iter().enumerate() {
            let window = (base_ms << n.min(20)).min(cap_ms);
            prop_assert_eq!(r.low, Micros::ZERO);
            prop_assert_eq!(r.ceiling, Micros(window * 1000), "retry {}", n + 1);
        }
    }
}

/// A filter's own retry policy (an OAuth2 token call, ext_authz, a JWKS or Wasm fetch) is not
/// the route's: a route config whose only retry_policy is one makes one attempt.
#[test]
fn a_filters_side_call_policy_is_not_the_routes() {
    let text = "virtualHosts:\n- name: v\n  domains: ['*']\n  routes:\n  - match: {prefix: /}\n    route: {cluster: c}\n    typedPerFilterConfig:\n      envoy.filters.http.oauth2:\n        config:\n          retryPolicy: {numRetries: 3, retryBackOff: {baseInterval: 1s, maxInterval: 10s}}\n";
    let i = read(text);
    assert!(i.link.contains("attempts=1"), "{}", i.link);
    assert!(unmodelled(&i, "typed_per_filter_config", "side call"));
}
