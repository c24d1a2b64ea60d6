use crate::testing::{corpus, link, ranges, read_with, unmodelled, warned};
use crate::{import, Options};
use proptest::prelude::*;
use retry_model::{Micros, Params};

/// `bytes` read as tenacity code, the policy on `instance`.
fn on(bytes: &[u8], instance: &str) -> crate::Imported {
    let opts = Options {
        instance: Some(instance.to_string()),
        ..Options::default()
    };
    read_with(bytes, &opts)
}

#[test]
fn the_documentation_policies_import_with_tenacitys_waits() {
    let docs = corpus("tenacity/docs-examples.py");
    // The first policy of the file is the bare `@retry`: every default, each warned about.
    let bare = read_with(&docs, &Options::default());
    assert_eq!(bare.format, "tenacity");
    assert!(
        warned(&bare, "never_gonna_give_you_up: stop", "stop_never"),
        "{:?}",
        bare.warnings
    );
    assert!(warned(&bare, "never_gonna_give_you_up: wait", "at once"));
    assert!(warned(
        &bare,
        "never_gonna_give_you_up: retry",
        "every exception"
    ));
    assert!(warned(
        &bare,
        "never_gonna_give_you_up: retry",
        "took the first"
    ));
    assert!(
        bare.link.contains("attempts=1000&deadline=none") && bare.link.contains("backoff=none"),
        "{}",
        bare.link
    );

    let both = on(&docs, "stop_after_10_s_or_5_retries");
    assert!(
        both.link.contains("attempts=5&deadline=10s&fit=cut"),
        "{}",
        both.link
    );
    assert!(warned(
        &both,
        "stop_after_10_s_or_5_retries: stop",
        "checked after an attempt"
    ));

    // 1, 2, 4, 8 s, then 10 s afterwards.
    let exp = on(&docs, "wait_exponential_1");
    assert_eq!(
        ranges(&exp.link)[..6],
        [
            (1000, 1000),
            (2000, 2000),
            (4000, 4000),
            (8000, 8000),
            (10_000, 10_000),
            (10_000, 10_000)
        ]
    );
    // "Wait at least 3 seconds, and add up to 2 seconds of random delay".
    let fixed = on(&docs, "wait_fixed_jitter");
    assert!(
        ranges(&fixed.link).iter().all(|r| *r == (3000, 5000)),
        "{}",
        fixed.link
    );
    // "Randomly wait up to 2^x * 1 seconds ... until the range reaches 60 seconds".
    let full = on(&docs, "wait_exponential_jitter");
    let r = ranges(&full.link);
    assert_eq!(
        r[..7],
        [
            (0, 1000),
            (0, 2000),
            (0, 4000),
            (0, 8000),
            (0, 16_000),
            (0, 32_000),
            (0, 60_000)
        ]
    );
}

#[test]
fn a_predicate_is_noted_and_what_cannot_be_read_is_refused_by_name() {
    let docs = corpus("tenacity/docs-examples.py");
    let io = on(&docs, "might_io_error");
    assert!(
        unmodelled(&io, "retry = retry_if_exception_type(...)", "type"),
        "{:?}",
        io.unsupported
    );
    let retryer = import(
        &docs,
        &Options {
            instance: Some("retryer".into()),
            ..Options::default()
        },
    )
    .unwrap_err();
    assert!(
        retryer.field.ends_with("stop.stop_after_attempt") && retryer.rule.contains("max_attempts"),
        "{retryer}"
    );
    let chained = import(
        &docs,
        &Options {
            instance: Some("wait_fixed_chained".into()),
            ..Options::default()
        },
    )
    .unwrap_err();
    assert!(
        chained.field.starts_with("wait_fixed_chained: line "),
        "{chained}"
    );
    let missing = import(
        &docs,
        &Options {
            instance: Some("nope".into()),
            ..Options::default()
        },
    )
    .unwrap_err();
    assert!(
        missing.field == "--instance" && missing.rule.contains("wait_fixed_jitter"),
        "{missing}"
    );
}

#[test]
fn the_cookbook_policy_draws_full_jitter_over_a_floor() {
    let i = read_with(&corpus("tenacity/openai-cookbook.py"), &Options::default());
    assert_eq!(
        link(&i.link),
        link("attempts=6&deadline=none&fit=cut&attempt_timeout=24h&backoff=full&base=1s&cap=60s&multiplier=2&floor=1s&classify=table&retry_on=400-599&idempotent=true&ra_mode=ignore&budget=none")
    );
    assert!(
        unmodelled(
            &i,
            "completion_with_backoff: wait.wait_random_exponential.min",
            "U(min, ceiling)"
        ),
        "{:?}",
        i.unsupported
    );
    assert_eq!(
        ranges(&i.link),
        [
            (1000, 1000),
            (1000, 2000),
            (1000, 4000),
            (1000, 8000),
            (1000, 16_000)
        ]
    );
}

#[test]
fn sums_jitter_and_refusals_follow_tenacitys_formulas() {
    let read = |code: &str| {
        import(
            format!("from tenacity import *\n{code}").as_bytes(),
            &Options::default(),
        )
    };
    // wait_exponential_jitter adds U(0, jitter) before the cap.
    let j = read("r = Retrying(wait=wait_exponential_jitter(initial=0.5, max=3, jitter=0.25), stop=stop_after_attempt(5) | stop_before_delay(timedelta(seconds=30)))").unwrap();
    assert_eq!(
        ranges(&j.link),
        [(500, 750), (1000, 1250), (2000, 2250), (3000, 3000)]
    );
    assert!(
        j.link.contains("deadline=30s") && !warned(&j, "r: stop", "checked after"),
        "{j:?}"
    );
    // An exponential wait plus a wait_random goes past the cap by the spread.
    let e = read("@retry(wait=wait_exponential(multiplier=0.1, max=1) + wait_random(0, 0.05), stop=stop_after_attempt(6))\ndef f(): pass").unwrap();
    assert_eq!(
        ranges(&e.link),
        [(100, 150), (200, 250), (400, 450), (800, 850), (1000, 1050)]
    );
    for (code, field, words) in [
        (
            "@retry(stop=stop_after_attempt(3) & stop_after_delay(5))\ndef f(): pass",
            "f: stop",
            "nothing close",
        ),
        (
            "@retry(wait=wait_incrementing(1, 2))\ndef f(): pass",
            "f: wait.wait_incrementing",
            "whole multiple of increment",
        ),
        (
            "@retry(wait=wait_fixed(1) + wait_exponential())\ndef f(): pass",
            "f: wait",
            "wait_fixed added",
        ),
        (
            "@retry(stop=stop_after_attempt(0))\ndef f(): pass",
            "f: stop.stop_after_attempt",
            "[1, 1000]",
        ),
        (
            "@retry(wait=wait_fixed(-1))\ndef f(): pass",
            "f: wait",
            "[0, 86400]",
        ),
        (
            "@retry(wait=wait_exponential(exp_base=20))\ndef f(): pass",
            "f: wait.wait_exponential.exp_base",
            "[1, 10]",
        ),
        (
            "@retry(stopp=stop_after_attempt(3))\ndef f(): pass",
            "f: stopp",
            "accepted stop",
        ),
        ("x = 1", "file", "no tenacity policy"),
    ] {
        let err = read(code).unwrap_err();
        assert!(
            err.field == field && err.rule.contains(words),
            "{code}: {err}"
        );
    }
}

proptest! {
    /// Any text after a decorator gives a link or a one-line error, never a panic.
    #[test]
    fn any_text_is_read_or_refused_on_one_line(tail in "[a-z_(),=|&+.0-9 \\n\\[\\]{}:'*-]{0,80}") {
        let code = format!("from tenacity import *\n@retry(stop=stop_after_attempt(3), {tail}");
        match import(code.as_bytes(), &Options::default()) {
            Ok(i) => prop_assert!(i.link.parse::<Params>().is_ok()),
            Err(e) => prop_assert!(!e.to_string().contains('\n') && !e.field.is_empty()),
        }
    }

    /// A wait_exponential's schedule is tenacity's formula: clamp(m x b^(a-1), min, max).
    #[test]
    fn wait_exponential_is_the_formula(m_ms in 1u64..2000, b in 1u32..5, max_ms in 1u64..60_000, n in 2u32..9) {
        let code = format!("import tenacity\n@tenacity.retry(wait=tenacity.wait_exponential(multiplier={}, exp_base={b}, max={}), stop=tenacity.stop_after_attempt({n}))\ndef f(): pass", m_ms as f64 / 1000.0, max_ms as f64 / 1000.0);
        let i = import(code.as_bytes(), &Options::default()).unwrap();
        let got = ranges(&i.link);
        prop_assert_eq!(got.len(), n as usize - 1);
        for (a, (lo, hi)) in got.iter().enumerate() {
            let want = (m_ms as f64 * f64::from(b).powi(a as i32)).min(max_ms as f64) as u64;
            prop_assert_eq!((*lo, *hi), (want, want), "retry {}", a + 1);
        }
        let _ = Micros::ZERO;
    }
}

/// Shapes real modules write: a policy assigned with `retry(...)` and applied later, module
/// constants as arguments, and callbacks with attributes, subscripts and lambdas.
#[test]
fn assigned_policies_constants_and_callbacks_are_read() {
    let read = |t: &str| crate::testing::read_with(t.as_bytes(), &Options::default());
    let assigned = read("import tenacity\nfrom tenacity import retry, stop_after_attempt\npolicy = retry(stop=stop_after_attempt(4), reraise=True)\n@policy\ndef f(): pass\n");
    assert!(assigned.link.contains("attempts=4&"), "{}", assigned.link);
    assert!(assigned
        .warnings
        .iter()
        .any(|w| w.field.starts_with("policy: ")));
    let consts = read("from tenacity import *\nBASE = 0.25\nTRIES = 5\nDELAY = BASE * 2\n@retry(stop=stop_after_attempt(TRIES), wait=wait_fixed(DELAY))\ndef f(): pass\n");
    assert!(
        consts.link.contains("attempts=5&") && consts.link.contains("base=500ms"),
        "{}",
        consts.link
    );
    let callbacks = read("from tenacity import *\n@retry(stop=stop_after_attempt(2), before_sleep=before_sleep_log(LOG.child('x'), logging.INFO).__call__, after=lambda rs: log(rs.attempt_number), retry_error_callback=HANDLERS[0])\ndef f(): pass\n");
    assert!(callbacks.link.contains("attempts=2&"), "{}", callbacks.link);
    // A name assigned twice is not a constant: which value applies depends on when it runs.
    let e = crate::import(b"from tenacity import *\nN = 3\nN = 4\n@retry(stop=stop_after_attempt(N))\ndef f(): pass\n", &Options::default()).unwrap_err();
    assert!(e.rule.contains("'N' is not a number"), "{e}");
    // A bare call of retry() that is not assigned is not a policy.
    assert!(crate::import(
        b"from tenacity import retry\nx(retry(f))\n",
        &Options::default()
    )
    .is_err());
}

/// `wait_incrementing(start, increment, max)` waits `start + increment x (n - 1)`, at most
/// `max` (tenacity/wait.py): read exactly where `start` is a whole multiple of `increment`,
/// refused by name where it is not, and written back as `wait_incrementing`.
#[test]
fn wait_incrementing_is_read_where_the_lab_draws_it_exactly() {
    let policy = |w: &str| {
        format!("from tenacity import *\n\n@retry(stop=stop_after_attempt(5), wait={w})\ndef f():\n    ...\n")
    };
    let i = import(
        policy("wait_incrementing(start=2, increment=1, max=4)").as_bytes(),
        &Options::default(),
    )
    .unwrap();
    assert_eq!(
        ranges(&i.link),
        [(2000, 2000), (3000, 3000), (4000, 4000), (4000, 4000)]
    );
    let i = import(
        policy("wait_incrementing(0.5, 0.5)").as_bytes(),
        &Options::default(),
    )
    .unwrap();
    assert_eq!(
        ranges(&i.link),
        [(500, 500), (1000, 1000), (1500, 1500), (2000, 2000)]
    );
    let out = crate::export(&i.link, "tenacity").unwrap();
    assert!(
        out.text
            .contains("wait_incrementing(start=0.5, increment=0.5, max=86400)"),
        "{}",
        out.text
    );
    assert!(
        out.notes.is_empty()
            || out
                .notes
                .iter()
                .all(|n| n.key != "first_exp" && n.key != "ceiling_sum")
    );
    let again = import(out.text.as_bytes(), &Options::default()).unwrap();
    assert_eq!(ranges(&again.link), ranges(&i.link));
    for w in [
        "wait_incrementing(start=1, increment=2)",
        "wait_incrementing(increment=2)",
        "wait_incrementing(2, 1) + wait_fixed(1)",
        "wait_chain(wait_fixed(1))",
    ] {
        let e = import(policy(w).as_bytes(), &Options::default()).unwrap_err();
        assert!(e.field.contains("wait"), "{w}: {e}");
        assert!(e.to_string().contains("nothing close"), "{w}: {e}");
    }
}

/// Hostile modules are bounded: a 60,000-term operator chain is refused on one line (it once
/// overflowed the stack), constants built from constants stay one value each (`B = A + A`
/// sixty times over once meant 2^60 nodes), and 149,000 stacked bare decorators are read in
/// one pass (they once took 45 s).
#[test]
fn hostile_modules_are_bounded() {
    let chain = format!(
        "from tenacity import *\n@retry(wait={})\ndef f(): pass\n",
        vec!["wait_fixed(1)"; 60_000].join(" + ")
    );
    let e = import(chain.as_bytes(), &Options::default()).unwrap_err();
    assert!(e.rule.contains("more than 1000 operators"), "{e}");
    assert!(!e.to_string().contains('\n'));
    let mut doubling = String::from("from tenacity import *\nC0 = 0.001\n");
    for i in 1..=60 {
        doubling.push_str(&format!("C{i} = C{} + C{}\n", i - 1, i - 1));
    }
    doubling.push_str("@retry(stop=stop_after_attempt(3), wait=wait_fixed(C10))\ndef f(): pass\n");
    let i = import(doubling.as_bytes(), &Options::default()).unwrap();
    assert_eq!(ranges(&i.link), [(1024, 1024), (1024, 1024)]);
    let many = format!(
        "from tenacity import *\n{}def f(): pass\n",
        "@retry\n".repeat(149_000)
    );
    let i = import(many.as_bytes(), &Options::default()).unwrap();
    assert!(
        i.warnings
            .iter()
            .any(|w| w.text.starts_with("149000 tenacity policies")),
        "{:?}",
        i.warnings.first()
    );
}
