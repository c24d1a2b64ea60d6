use crate::testing::{link, read_with, unmodelled, warned};
use crate::{import, Imported, Options};
use retry_model::{schedule, Micros, Params};

fn corpus(name: &str) -> Vec<u8> {
    crate::testing::corpus(&format!("grpc/{name}"))
}

fn options(method: Option<&str>) -> Options {
    Options {
        method: method.map(String::from),
        ..Options::default()
    }
}

fn read(bytes: &[u8], method: Option<&str>) -> Imported {
    read_with(bytes, &options(method))
}

#[test]
fn the_a6_example_gives_its_policy_with_every_default_written_out() {
    let i = read(&corpus("a6-example.json"), Some("pkg.Echo/Get"));
    assert_eq!(i.format, "grpc");
    assert_eq!(
        link(&i.link),
        link("fit=cut&deadline=2.5s&attempt_timeout=2.5s&attempts=4&backoff=exponential&base=100ms&cap=1s&multiplier=2&jitter=mult&jitter_lo=0.8&jitter_hi=1.2&jitter_after_cap=true&classify=grpc&retry_on=429,503&budget=grpc&grpc_max_tokens=10&grpc_token_ratio=0.1")
    );
    // Its schedule: three retries around 100, 200 and 400 ms, each +-20%.
    let s = schedule(&i.link.parse().unwrap()).unwrap();
    let ceilings: Vec<Micros> = s.retries.iter().map(|r| r.ceiling).collect();
    assert_eq!(
        ceilings,
        [Micros(120_000), Micros(240_000), Micros(480_000)]
    );
    let lows: Vec<Micros> = s.retries.iter().map(|r| r.low).collect();
    assert_eq!(lows, [Micros(80_000), Micros(160_000), Micros(320_000)]);
    assert!(warned(
        &i,
        "methodConfig[0].retryPolicy.maxAttempts",
        "attempts in all"
    ));
    // Only gRPC's rules around any policy (transparent retries, the commit rule) stay out.
    let why: Vec<&str> = i.unsupported.iter().map(|u| u.field.as_str()).collect();
    assert_eq!(why, ["methodConfig[0].retryPolicy"]);
    assert!(unmodelled(&i, "retryPolicy", "transparent retry"));
    assert!(unmodelled(&i, "retryPolicy", "committed and never retried"));
}

#[test]
fn grpc_gos_own_example_warns_of_its_field_names_and_durations() {
    let i = read(&corpus("grpc-go-example.json"), None);
    for f in ["MaxAttempts", "InitialBackoff", "RetryableStatusCodes"] {
        let field = format!("methodConfig[0].retryPolicy.{f}");
        assert!(
            warned(&i, &field, "only grpc-go reads"),
            "{field}: {:?}",
            i.warnings
        );
    }
    assert!(warned(
        &i,
        "methodConfig[0].retryPolicy.initialBackoff",
        "no whole part"
    ));
    assert!(warned(&i, "methodConfig[0].timeout", "no deadline"));
    assert!(
        i.link.contains("base=10ms") && i.link.contains("cap=10ms"),
        "{}",
        i.link
    );
    assert!(
        i.link.contains("deadline=none") && i.link.contains("budget=none"),
        "{}",
        i.link
    );
    let why: Vec<&str> = i.unsupported.iter().map(|u| u.field.as_str()).collect();
    assert_eq!(
        why,
        [
            "methodConfig[0].retryPolicy",
            "methodConfig[0].waitForReady"
        ]
    );
}

#[test]
fn a_method_takes_its_most_specific_entry_and_hedging_is_clamped_and_flagged() {
    let bytes = corpus("hedging.json");
    // The exact method's entry wins over the default one.
    let pay = read(&bytes, Some("pkg.Pay/Charge"));
    assert!(
        pay.link.contains("attempts=3") && pay.link.contains("multiplier=1.5"),
        "{}",
        pay.link
    );
    assert!(pay.link.contains("deadline=30s"), "{}", pay.link);
    // Any other method takes the default entry: 7 hedges clamped to 5.
    let other = read(&bytes, Some("pkg.Pay/Refund"));
    assert!(
        other.link.contains("hedge=on") && other.link.contains("hedge_max=5"),
        "{}",
        other.link
    );
    assert!(other.link.contains("hedge_delay=500ms"), "{}", other.link);
    assert!(warned(
        &other,
        "methodConfig[0].hedgingPolicy.maxAttempts",
        "clamped to 5"
    ));
    assert!(warned(
        &other,
        "methodConfig[0].hedgingPolicy",
        "grpc-go and C-core ignore"
    ));
    // Without --method the default entry is taken, and the others are named.
    let plain = read(&bytes, None);
    assert_eq!(plain.link, other.link);
    assert!(warned(&plain, "methodConfig", "2 method configs"));
}

#[test]
fn codes_the_lab_never_answers_are_unsupported_and_retry_nothing_here() {
    let cfg = br#"{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3,
        "initialBackoff": "1s", "maxBackoff": "2s", "backoffMultiplier": 2,
        "retryableStatusCodes": ["aborted", 4]}}]}"#;
    let i = read(cfg, None);
    let fields: Vec<&str> = i.unsupported.iter().map(|u| u.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "methodConfig[0].retryPolicy",
            "methodConfig[0].retryPolicy.retryableStatusCodes: ABORTED",
            "methodConfig[0].retryPolicy.retryableStatusCodes: DEADLINE_EXCEEDED"
        ]
    );
    assert!(i.link.contains("retry_on=501"), "{}", i.link);
}

#[test]
fn bad_configs_are_refused_naming_the_field() {
    let refused = |bytes: &[u8], method: Option<&str>| import(bytes, &options(method)).unwrap_err();
    let policy = |body: &str| {
        format!(r#"{{"methodConfig": [{{"name": [{{}}], "retryPolicy": {{{body}}}}}]}}"#)
    };
    let ok = r#""initialBackoff": "1s", "maxBackoff": "2s", "backoffMultiplier": 2, "retryableStatusCodes": [14]"#;
    for (body, field) in [
        (format!(r#""maxAttempts": 1, {ok}"#), "methodConfig[0].retryPolicy.maxAttempts"),
        (format!(r#""maxAttempts": "3", {ok}"#), "methodConfig[0].retryPolicy.maxAttempts"),
        (
            r#""maxAttempts": 3, "initialBackoff": "1 s", "maxBackoff": "2s", "backoffMultiplier": 2, "retryableStatusCodes": [14]"#.to_string(),
            "methodConfig[0].retryPolicy.initialBackoff",
        ),
        (
            r#""maxAttempts": 3, "initialBackoff": "99999999999999999999s", "maxBackoff": "2s", "backoffMultiplier": 2, "retryableStatusCodes": [14]"#.to_string(),
            "methodConfig[0].retryPolicy.initialBackoff",
        ),
        (
            r#""maxAttempts": 3, "initialBackoff": "1s", "maxBackoff": "2s", "backoffMultiplier": 2, "retryableStatusCodes": ["NOPE"]"#.to_string(),
            "methodConfig[0].retryPolicy.retryableStatusCodes",
        ),
        (
            r#""maxAttempts": 3, "initialBackoff": "1s", "maxBackoff": "2s", "retryableStatusCodes": [14]"#.to_string(),
            "methodConfig[0].retryPolicy.backoffMultiplier",
        ),
    ] {
        let e = refused(policy(&body).as_bytes(), None);
        assert_eq!(e.field, field, "{body}: {e}");
        assert!(!e.to_string().contains('\n'), "one line: {e}");
    }
    // The file as a whole.
    assert_eq!(refused(b"{\"methodConfig\": [", None).field, "line 1");
    // A key written twice: gRPC's parsers keep one of them, so the file is refused by line.
    let twice = refused(
        b"{\"methodConfig\": [{\"name\": [{}],\n \"timeout\": \"1s\", \"timeout\": \"2s\"}]}",
        None,
    );
    assert!(
        twice.field == "line 2" && twice.rule.contains("\"timeout\" is written twice"),
        "{twice}"
    );
    assert_eq!(refused(&[0x7b, 0xff, 0xfe], None).field, "file");
    assert_eq!(
        refused(&vec![b' '; crate::MAX_BYTES + 1], None).field,
        "file"
    );
    assert_eq!(refused(b"retries: 3", None).field, "file");
    let deep = format!(
        r#"{{"methodConfig": {}{}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    assert_eq!(refused(deep.as_bytes(), None).field, "line 1");
    // A method no entry names, with no default entry.
    let e = refused(&corpus("a6-example.json"), Some("other.Svc/Do"));
    assert_eq!(e.field, "--method");
    // Both policies at once.
    let both = r#"{"methodConfig": [{"name": [{}], "retryPolicy": {}, "hedgingPolicy": {}}]}"#;
    assert_eq!(refused(both.as_bytes(), None).field, "methodConfig[0]");
}

mod hostile {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// Any bytes, and any JSON shaped like a service config, give a link or a one-line
        /// error: never a panic.
        #[test]
        fn any_input_gives_a_link_or_one_line(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            if let Err(e) = import(&bytes, &Options::default()) {
                prop_assert!(!e.to_string().contains('\n'));
            }
        }

        #[test]
        fn any_policy_values_give_a_link_or_one_line(
            n in prop_oneof![Just("3".to_string()), "-?[0-9]{1,22}(\\.[0-9]{1,3})?", Just("null".to_string()), Just("\"x\"".to_string())],
            base in "\\.?[0-9]{0,12}(\\.[0-9]{0,12})?s?",
            m in "-?[0-9]{1,8}(\\.[0-9]{1,4})?",
            codes in proptest::collection::vec(prop_oneof![(0u32..40).prop_map(|c| c.to_string()), "\"[A-Za-z_]{0,20}\""], 0..4),
        ) {
            let cfg = format!(
                r#"{{"methodConfig": [{{"name": [{{}}], "timeout": "{base}", "retryPolicy": {{"maxAttempts": {n}, "initialBackoff": "{base}", "maxBackoff": "{base}", "backoffMultiplier": {m}, "retryableStatusCodes": [{}]}}}}], "retryThrottling": {{"maxTokens": {m}, "tokenRatio": {m}}}}}"#,
                codes.join(",")
            );
            match import(cfg.as_bytes(), &Options::default()) {
                Ok(i) => prop_assert!(i.link.parse::<Params>().is_ok(), "{}", i.link),
                Err(e) => prop_assert!(!e.to_string().contains('\n')),
            }
        }
    }
}
