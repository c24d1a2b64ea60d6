use crate::testing::{corpus, ranges, read_with, unmodelled, warned};
use crate::{import, Options};
use proptest::prelude::*;
use retry_model::Params;

fn instance(name: &str) -> Options {
    Options {
        instance: Some(name.to_string()),
        ..Options::default()
    }
}

const AT: &str = "resilience4j.retry.instances";

#[test]
fn the_demo_instances_retry_and_break_as_configured() {
    let demo = corpus("resilience4j/spring-boot-demo.yml");
    let a = read_with(&demo, &Options::default());
    assert_eq!(a.format, "resilience4j");
    assert!(
        warned(&a, &format!("{AT}.backendA"), "2 retry instances"),
        "{:?}",
        a.warnings
    );
    // 10 s, then 20 s: exponential, multiplier 2, no cap.
    assert_eq!(ranges(&a.link), [(10_000, 10_000), (20_000, 20_000)]);
    assert!(warned(
        &a,
        &format!("{AT}.backendA.exponentialMaxWaitDuration"),
        "nothing caps"
    ));
    assert!(unmodelled(
        &a,
        "backendA.retryExceptions",
        "exception classes"
    ));
    // backendA's breaker inherits the default config: 10 calls, 5 at least, 5 s open, 3 probes.
    for key in [
        "breaker=on",
        "breaker_min_calls=5",
        "breaker_open=5s",
        "breaker_probes=3",
        "scenario=outage",
    ] {
        assert!(a.link.contains(key), "{key}: {}", a.link);
    }
    assert!(unmodelled(
        &a,
        "backendA.slidingWindowType",
        "last 10 calls"
    ));
    let b = read_with(&demo, &instance("backendB"));
    assert_eq!(ranges(&b.link), [(10_000, 10_000), (10_000, 10_000)]);
    assert!(b.link.contains("breaker_min_calls=10"), "{}", b.link);
}

#[test]
fn flags_resilience4j_ignores_are_warned_and_left_out() {
    let file = corpus("resilience4j/inherited-flags.yml");
    // No wait-duration of its own: the base config's 200 ms stays, flags and all ignored.
    let pay = read_with(&file, &instance("payments"));
    assert_eq!(ranges(&pay.link), [(200, 200); 3]);
    for flag in [
        "enableExponentialBackoff",
        "exponentialBackoffMultiplier",
        "exponentialMaxWaitDuration",
    ] {
        assert!(
            warned(&pay, &format!("{AT}.payments.{flag}"), "does nothing"),
            "{flag}: {:?}",
            pay.warnings
        );
    }
    // Exponential and random without a multiplier: 1.5 and 0.5 apply and nothing caps it.
    let search = read_with(&file, &instance("search"));
    assert_eq!(ranges(&search.link), [(50, 150), (75, 225), (112, 337)]);
    assert!(warned(
        &search,
        &format!("{AT}.search.exponentialMaxWaitDuration"),
        "ignored"
    ));
    assert!(warned(
        &search,
        &format!("{AT}.search.randomizedWaitFactor"),
        "uses 0.5"
    ));
    // Everything set: d x [0.75, 1.25], then the 2 s cap.
    let inv = read_with(&file, &instance("inventory"));
    assert_eq!(
        ranges(&inv.link),
        [(75, 125), (225, 375), (675, 1125), (2000, 2000)]
    );
}

#[test]
fn bad_values_are_one_line_naming_the_field() {
    for (text, field, words) in [
        ("resilience4j.retry.instances.a.maxAttempts: 0\n", "resilience4j.retry.instances.a.maxAttempts", "[1, 1000]"),
        ("resilience4j.retry.instances.a.waitDuration: soon\n", "resilience4j.retry.instances.a.waitDuration", "not a duration"),
        ("resilience4j.retry.instances.a: {waitDuration: 1s, randomizedWaitFactor: 1.5, enableRandomizedWait: true}\n", "resilience4j.retry.instances.a.randomizedWaitFactor", "[0, 0.999]"),
        ("resilience4j.retry.instances.a: {waitDuration: 1s, enableExponentialBackoff: maybe}\n", "resilience4j.retry.instances.a.enableExponentialBackoff", "true or false"),
        ("resilience4j.retry.instances.a.baseConfig: shared\n", "resilience4j.retry.instances.a.baseConfig", "not among the configs"),
        ("resilience4j.retry.configs.default.maxAttempts: 2\n", "resilience4j.retry.instances", "no retry instance"),
        ("resilience4j.retry.instances.a.maxAttempts: 3\nresilience4j.retry.instances.a.maxAttempts: 4\n", "line 1", "duplicate"),
    ] {
        let err = import(text.as_bytes(), &Options::default()).unwrap_err();
        assert!(err.field == field && err.rule.contains(words), "{text}: {err}");
    }
    let err = import(
        &corpus("resilience4j/spring-boot-demo.yml"),
        &instance("backendC"),
    )
    .unwrap_err();
    assert!(
        err.field == "--instance" && err.rule.contains("backendA, backendB"),
        "{err}"
    );
}

proptest! {
    /// Any instance of small values gives a link or a one-line error, never a panic.
    #[test]
    fn any_instance_is_read_or_refused_on_one_line(
        wait in prop::option::of(0u64..5000), exp in any::<bool>(), rnd in any::<bool>(),
        m in prop::option::of(0.5f64..12.0), f in prop::option::of(0.0f64..1.2), cap in prop::option::of(0u64..10_000),
    ) {
        let mut t = String::from("resilience4j.retry.instances.a:\n  maxAttempts: 4\n");
        if let Some(w) = wait { t.push_str(&format!("  waitDuration: {w}ms\n")); }
        t.push_str(&format!("  enableExponentialBackoff: {exp}\n  enableRandomizedWait: {rnd}\n"));
        if let Some(m) = m { t.push_str(&format!("  exponentialBackoffMultiplier: {m}\n")); }
        if let Some(f) = f { t.push_str(&format!("  randomizedWaitFactor: {f}\n")); }
        if let Some(c) = cap { t.push_str(&format!("  exponentialMaxWaitDuration: {c}ms\n")); }
        match import(t.as_bytes(), &Options::default()) {
            Ok(i) => prop_assert!(i.link.parse::<Params>().is_ok()),
            Err(e) => prop_assert!(!e.to_string().contains('\n') && !e.field.is_empty(), "{}", e),
        }
    }
}
