use crate::testing::{corpus, link, ranges, read_with, unmodelled, warned};
use crate::{import, Options};
use proptest::prelude::*;
use retry_model::Params;

fn profile(name: &str) -> Options {
    Options {
        instance: Some(name.to_string()),
        ..Options::default()
    }
}

/// botocore 1.44's standard mode: U(0, min(50 ms x 2^(n-1), 20 s)).
fn standard(retries: usize) -> Vec<(u64, u64)> {
    (0..retries)
        .map(|i| (0, (50u64 << i).min(20_000)))
        .collect()
}

#[test]
fn the_boto3_guide_reads_as_botocore_reads_it() {
    let file = read_with(&corpus("aws/boto3-guide.ini"), &Options::default());
    assert_eq!(file.format, "aws");
    assert_eq!(
        link(&file.link),
        link("attempts=10&deadline=none&attempt_timeout=60s&backoff=full&base=50ms&cap=20s&throttle_base=1s&classify=aws&ra_mode=clamp&budget=aws2026")
    );
    assert_eq!(ranges(&file.link), standard(9));
    assert!(
        warned(&file, "[myConfigProfile]", "[profile myConfigProfile]"),
        "{:?}",
        file.warnings
    );
    assert!(warned(
        &file,
        "[myConfigProfile] max_attempts",
        "counts every attempt"
    ));
    assert!(unmodelled(&file, "retry_mode", "per client object"));
    // The guide's Config counts retries: 10 retries are 11 attempts.
    let config = read_with(&corpus("aws/boto3-guide.py"), &Options::default());
    assert!(
        config.link.starts_with("v=2&attempts=11&"),
        "{}",
        config.link
    );
    assert!(
        warned(
            &config,
            "Config.retries['max_attempts']",
            "makes 11 attempts"
        ),
        "{:?}",
        config.warnings
    );
    let env = read_with(&corpus("aws/environment.env"), &Options::default());
    assert_eq!(ranges(&env.link), standard(4));
}

#[test]
fn each_profile_gives_its_mode_and_a_missing_mode_is_warned() {
    let bytes = corpus("aws/profiles.ini");
    let first = read_with(&bytes, &Options::default());
    assert!(
        warned(&first, "[profile batch]", "2 profiles set retries"),
        "{:?}",
        first.warnings
    );
    assert!(
        first.link.contains("scenario=outage") && first.link.contains("limiter=aws-adaptive"),
        "{}",
        first.link
    );
    let legacy = read_with(&bytes, &profile("old-cli"));
    // U(0, 1) x 2^(n-1) s, uncapped.
    let want: Vec<(u64, u64)> = (0..7).map(|i| (0, 1000u64 << i)).collect();
    assert_eq!(ranges(&legacy.link), want);
    assert!(
        warned(&legacy, "[profile old-cli] retry_mode", "no cap"),
        "{:?}",
        legacy.warnings
    );
    let default = read_with(&bytes, &profile("default"));
    assert!(
        warned(&default, "[default] retry_mode", "legacy: 5 attempts"),
        "{:?}",
        default.warnings
    );
    assert_eq!(ranges(&default.link), standard(2));
    let err = import(&bytes, &profile("prod")).unwrap_err();
    assert!(
        err.field == "--instance" && err.rule.contains("old-cli"),
        "{err}"
    );
}

#[test]
fn bad_settings_are_one_line_naming_the_field() {
    for (text, field, words) in [
        (
            "[default]\nretry_mode = standard\nretry_mode = legacy\n",
            "[default] retry_mode",
            "written twice",
        ),
        (
            "[default]\nretry_mode = fast\n",
            "[default] retry_mode",
            "legacy, standard, adaptive",
        ),
        (
            "[default]\nretry_mode = standard\nmax_attempts = 0\n",
            "[default] max_attempts",
            "[1, 1000]",
        ),
        (
            "[default]\nretry_mode = standard\nmax_attempts = three\n",
            "[default] max_attempts",
            "whole number",
        ),
        (
            "AWS_RETRY_MODE=standard\nAWS_MAX_ATTEMPTS=5000\n",
            "AWS_MAX_ATTEMPTS",
            "[1, 1000]",
        ),
        (
            "import boto3\nc = Config(retries=5)\n",
            "Config.retries",
            "not a dict",
        ),
        (
            "import boto3\nc = Config(retries={'mode': 'standard', 'tries': 2})\n",
            "Config.retries['tries']",
            "accepted mode",
        ),
        (
            "import boto3\nc = Config(retries={'max_attempts': 1000})\n",
            "Config.retries['max_attempts']",
            "1001 attempts",
        ),
        (
            "[default\nretry_mode = standard\n",
            "line 3",
            "not an AWS config file",
        ),
    ] {
        let opts = Options {
            from: Some("aws".into()),
            ..Options::default()
        };
        let err = import(text.as_bytes(), &opts).unwrap_err();
        assert!(
            err.field == field && err.rule.contains(words),
            "{text}: {err}"
        );
    }
}

proptest! {
    /// Any text read as AWS settings gives a link or a one-line error, never a panic.
    #[test]
    fn any_text_is_read_or_refused_on_one_line(text in "[\\[\\]a-z_ =\\n0-9#;A-Z'{}():,]{0,120}") {
        let opts = Options { from: Some("aws".into()), ..Options::default() };
        match import(text.as_bytes(), &opts) {
            Ok(i) => prop_assert!(i.link.parse::<Params>().is_ok()),
            Err(e) => prop_assert!(!e.to_string().contains('\n') && !e.field.is_empty(), "{}", e),
        }
    }
}

/// A profile with `max_attempts` and no `retry_mode` is found, and read by the release's rules:
/// standard with a 50 ms base from botocore 1.44, legacy before, standard with a 1 s base in the
/// Go SDK v2.
#[test]
fn a_profile_without_a_mode_is_read_by_its_release() {
    let text = b"[default]\nregion = eu-west-1\nmax_attempts = 6\n";
    let on = |v: Option<&str>| {
        let opts = Options {
            release: v.map(str::to_string),
            ..Options::default()
        };
        crate::import(text, &opts).unwrap()
    };
    let now = on(None);
    assert_eq!(
        (now.format, now.release.as_str()),
        ("aws", "botocore 1.44+")
    );
    assert!(
        now.link.contains("attempts=6&") && now.link.contains("base=50ms"),
        "{}",
        now.link
    );
    let old = on(Some("1.43"));
    assert!(
        old.link.contains("attempts=6&") && old.link.contains("cap=24h"),
        "{}",
        old.link
    );
    let go = on(Some("go-v2"));
    assert!(
        go.link.contains("base=1s&cap=20s")
            && go.link.contains("budget=aws")
            && !go.link.contains("aws2026"),
        "{}",
        go.link
    );
    let waits = crate::testing::ranges(&go.link);
    assert_eq!(waits[0], (0, 1000));
    assert_eq!(crate::testing::ranges(&now.link)[0], (0, 50));
    let e = crate::import(
        text,
        &Options {
            release: Some("2.0".into()),
            ..Options::default()
        },
    )
    .unwrap_err();
    assert!(
        e.field == "--version" && e.rule.contains("1.44, 1.43, go-v2"),
        "{e}"
    );
}
