//! The retry clients people use, one preset each, with the version and source file each one
//! follows.
//!
//! Why so many? "Exponential backoff with jitter" hides real differences: the jitter's shape
//! (full, shortening only, both ways, lengthening only, added), whether the first retry waits,
//! whether the cap applies before or after the jitter, and what a long Retry-After does (honoured,
//! capped, clamped, or a reason to stop). A reader picks their own client and sees what it does
//! in an outage. Each row is a link; its columns in `retrylab presets --format markdown` (the
//! formula, the jitter, the Retry-After rule, the statuses) are written from the link itself, so
//! the table cannot disagree with what the lab runs.
//!
//! Where a library has no attempt limit (it stops on elapsed time), the preset sets the library's
//! time limit as the deadline and an attempt count that stands in for "until then"; the meaning
//! says so. The tests in `tests/clients/` draw each installable library's own waits and compare
//! them with the preset's schedule.

/// The ecosystem a client belongs to, as the page's preset menu groups them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ecosystem {
    /// PyPI.
    Python,
    /// npm.
    JavaScript,
    /// crates.io.
    Rust,
    /// Go modules.
    Go,
    /// Maven.
    Java,
    /// NuGet.
    DotNet,
    /// Proxies and specifications.
    Specs,
}

impl Ecosystem {
    /// Every ecosystem, in the menu's order.
    pub const ALL: [Ecosystem; 7] = [
        Ecosystem::Python,
        Ecosystem::JavaScript,
        Ecosystem::Rust,
        Ecosystem::Go,
        Ecosystem::Java,
        Ecosystem::DotNet,
        Ecosystem::Specs,
    ];

    /// The group's label.
    pub const fn label(self) -> &'static str {
        match self {
            Ecosystem::Python => "Python clients",
            Ecosystem::JavaScript => "JavaScript clients",
            Ecosystem::Rust => "Rust clients",
            Ecosystem::Go => "Go clients",
            Ecosystem::Java => "Java clients",
            Ecosystem::DotNet => ".NET clients",
            Ecosystem::Specs => "Proxies and specifications",
        }
    }
}

/// One client library, as a preset.
#[derive(Clone, Copy, Debug)]
pub struct Client {
    /// The preset's link name.
    pub name: &'static str,
    /// The library and what of it the preset follows.
    pub title: &'static str,
    /// The ecosystem.
    pub ecosystem: Ecosystem,
    /// The version read.
    pub version: &'static str,
    /// The file (and lines) the preset follows.
    pub source: &'static str,
    /// One line: what it does by default, and whether its default ever waits.
    pub meaning: &'static str,
    /// The link keys it sets, in groups applied in order (a later group's key overrides).
    pub settings: &'static [&'static [(&'static str, &'static str)]],
}

/// openai-python's and anthropic's shared wait: `min(0.5 s x 2^k, 8 s)` shortened by up to
/// 25% after the cap, 2 retries, and their retried statuses.
const STAINLESS: &[(&str, &str)] = &[
    ("attempts", "3"),
    ("backoff", "exponential"),
    ("base", "500ms"),
    ("cap", "8s"),
    ("jitter", "mult"),
    ("jitter_lo", "0.75"),
    ("jitter_hi", "1"),
    ("jitter_after_cap", "true"),
    ("retry_on", "408,409,429,500-999"),
];

/// backoff-rs's and cenkalti/backoff's shared defaults: 0.5 s growing x1.5 to 60 s, each wait
/// x U(0.5, 1.5), until 15 minutes have passed (20 attempts stand in).
const HALF_JITTER_1_5: &[(&str, &str)] = &[
    ("attempts", "20"),
    ("deadline", "900s"),
    ("backoff", "exponential"),
    ("base", "500ms"),
    ("multiplier", "1.5"),
    ("cap", "60s"),
    ("jitter", "mult"),
    ("jitter_lo", "0.5"),
    ("jitter_hi", "1.5"),
    ("jitter_after_cap", "true"),
];

/// The AWS SDKs' standard mode since 2026 (botocore, the JavaScript SDK): 3 attempts, full
/// jitter from 50 ms capped at 20 s, the 500-token quota (14, 5 when throttled), the
/// Retry-After clamp. (The 1 s throttling base is added where a link can throttle with 429.)
const AWS_STANDARD_2026: &[(&str, &str)] = &[
    ("attempts", "3"),
    ("backoff", "full"),
    ("base", "50ms"),
    ("cap", "20s"),
    ("budget", "aws2026"),
    ("classify", "aws"),
    ("ra_mode", "clamp"),
];

/// Every client preset, in the menu's order within its ecosystem.
pub static CLIENTS: &[Client] = &[
    Client {
        name: "urllib3",
        title: "urllib3 Retry.DEFAULT (requests' adapters retry nothing)",
        ecosystem: Ecosystem::Python,
        version: "urllib3 2.8.0",
        source: "urllib3/util/retry.py:213-242, 321-401",
        meaning: "3 retries; backoff_factor 0, so it never waits unless the server sends Retry-After (honoured up to 6 h); with a factor f: 0, 2f, 4f ... capped at 120 s",
        settings: &[&[
            ("attempts", "4"),
            ("backoff", "exponential"),
            ("base", "0ms"),
            ("cap", "120s"),
            ("first_wait", "0"),
            ("retry_on", "413,429,503"),
            ("ra_mode", "cap"),
            ("ra_cap", "21600s"),
        ]],
    },
    Client {
        name: "google-api-core",
        title: "google-api-core retry.Retry",
        ecosystem: Ecosystem::Python,
        version: "google-api-core 2.44.0",
        source: "google/api_core/retry/retry_base.py:42-121, 224-230",
        meaning: "full jitter from 1 s doubling to 60 s; no attempt limit, only the 120 s timeout (10 attempts stand in), and a wait that would pass it ends the request; Retry-After is not read",
        settings: &[&[
            ("attempts", "10"),
            ("deadline", "120s"),
            ("fit", "cut"),
            ("backoff", "full"),
            ("base", "1s"),
            ("cap", "60s"),
            ("retry_on", "429,500,503"),
            ("ra_mode", "ignore"),
        ]],
    },
    Client {
        name: "azure-core",
        title: "azure-core RetryPolicy",
        ecosystem: Ecosystem::Python,
        version: "azure-core 1.41.0",
        source: "azure/core/pipeline/policies/_retry.py:77-143; _utils.py:62-96",
        meaning: "3 status retries: the first at once, then 1.6, 3.2 s (0.8 x 2^k, cap 120 s), no jitter at all; Retry-After honoured uncapped",
        settings: &[&[
            ("attempts", "4"),
            ("deadline", "none"),
            ("backoff", "exponential"),
            ("base", "800ms"),
            ("cap", "120s"),
            ("first_wait", "0"),
            ("retry_on", "408,429,500,502-504,506-998"),
        ]],
    },
    Client {
        name: "openai",
        title: "openai-python",
        ecosystem: Ecosystem::Python,
        version: "openai 3.57.0",
        source: "openai/_base_client.py:849-963; openai/_constants.py:7-15",
        meaning: "2 retries, min(0.5 s x 2^k, 8 s) shortened by up to 25%; a Retry-After up to 120 s is used exactly, a longer one means no retry",
        settings: &[STAINLESS, &[("ra_mode", "refuse_above"), ("ra_max", "120s")]],
    },
    Client {
        name: "anthropic",
        title: "anthropic-sdk-python",
        ecosystem: Ecosystem::Python,
        version: "anthropic 2.16.0",
        source: "anthropic/_base_client.py:882-1000; anthropic/_constants.py:10-15",
        meaning: "openai's formula (2 retries, min(0.5 s x 2^k, 8 s) shortened by up to 25%), but any Retry-After is honoured, however long",
        settings: &[STAINLESS],
    },
    Client {
        name: "httpx-retries",
        title: "httpx-retries Retry",
        ecosystem: Ecosystem::Python,
        version: "httpx-retries 0.6.0",
        source: "httpx_retries/retry.py:78-262; transport.py:27-28",
        meaning: "10 retries; backoff_factor 0, so it never waits unless the server sends Retry-After (capped at 120 s); with a factor f: U(0, f x 2^(k+1)) capped at 120 s",
        settings: &[&[
            ("attempts", "11"),
            ("backoff", "exponential"),
            ("base", "0ms"),
            ("cap", "120s"),
            ("first_exp", "1"),
            ("jitter", "mult"),
            ("jitter_lo", "0"),
            ("jitter_hi", "1"),
            ("retry_on", "429,502-504"),
            ("ra_mode", "cap"),
            ("ra_cap", "120s"),
        ]],
    },
    Client {
        name: "backoff-py",
        title: "backoff (litl) on_exception(expo)",
        ecosystem: Ecosystem::Python,
        version: "backoff 2.2.1",
        source: "backoff/_wait_gen.py:7-31; backoff/_jitter.py:18-28",
        meaning: "full jitter over 1, 2, 4 ... s with no cap and no limit of its own (10 attempts stand in); Retry-After is not read",
        settings: &[&[
            ("attempts", "10"),
            ("deadline", "none"),
            ("backoff", "full"),
            ("base", "1s"),
            ("cap", "86400s"),
            ("ra_mode", "ignore"),
        ]],
    },
    Client {
        name: "stamina",
        title: "stamina retry",
        ecosystem: Ecosystem::Python,
        version: "stamina 26.1.0",
        source: "stamina/_core.py:121-126, 619-665, 730-738",
        meaning: "10 attempts within 45 s, min(5 s, 0.1 s x 2^k + U(0, 1 s)): the added second dominates the early waits",
        settings: &[&[
            ("attempts", "10"),
            ("deadline", "45s"),
            ("backoff", "exponential"),
            ("base", "100ms"),
            ("cap", "5s"),
            ("jitter", "add"),
            ("jitter_add", "1s"),
        ]],
    },
    Client {
        name: "botocore-standard",
        title: "botocore standard mode",
        ecosystem: Ecosystem::Python,
        version: "botocore 1.44.8",
        source: "botocore/retries/standard.py:36-437, 703-776; retries/quota.py:7",
        meaning: "3 attempts, full jitter from 50 ms (1 s for throttling) capped at 20 s, the 500-token quota (14 per retry, 5 when throttled), x-amz-retry-after clamped to [t, t + 5 s]",
        settings: &[AWS_STANDARD_2026, &[("throttle_base", "1s")]],
    },
    Client {
        name: "botocore-adaptive",
        title: "botocore adaptive mode, in the payments outage",
        ecosystem: Ecosystem::Python,
        version: "botocore 1.44.8",
        source: "botocore/retries/adaptive.py, bucket.py, throttling.py; standard.py as botocore-standard",
        meaning: "standard mode plus a client-side rate limiter (CUBIC over a token bucket, on from the first throttling answer), run in the course project's payments outage (40/s against 50/s, 5 s of 503s; no simulated server answers 429, so the 1 s throttling base never applies): the limiter holds the retry storm down, at the cost of sends that wait",
        settings: &[
            super::systems::PAYMENTS,
            AWS_STANDARD_2026,
            &[("limiter", "aws-adaptive")],
        ],
    },
    Client {
        name: "p-retry",
        title: "p-retry",
        ecosystem: Ecosystem::JavaScript,
        version: "p-retry 7.1.1",
        source: "index.js:52-60, 164-172",
        meaning: "10 retries of 1, 2, 4 ... s with no jitter and no cap (randomize is off); no HTTP awareness",
        settings: &[&[
            ("attempts", "11"),
            ("deadline", "none"),
            ("backoff", "exponential"),
            ("base", "1s"),
            ("cap", "86400s"),
            ("ra_mode", "ignore"),
        ]],
    },
    Client {
        name: "async-retry",
        title: "async-retry (over node-retry)",
        ecosystem: Ecosystem::JavaScript,
        version: "async-retry 1.3.3, retry 0.13.1",
        source: "async-retry/lib/index.js:9-12; retry/lib/retry.js:17-58",
        meaning: "10 retries of 1 s x 2^k x U(1, 2), drawn up front and sorted, so each client's waits only grow; no HTTP awareness",
        settings: &[&[
            ("attempts", "11"),
            ("deadline", "none"),
            ("backoff", "exponential"),
            ("base", "1s"),
            ("cap", "86400s"),
            ("jitter", "mult"),
            ("jitter_lo", "1"),
            ("jitter_hi", "2"),
            ("sorted", "true"),
            ("ra_mode", "ignore"),
        ]],
    },
    Client {
        name: "axios-retry",
        title: "axios-retry default (noDelay)",
        ecosystem: Ecosystem::JavaScript,
        version: "axios-retry 4.5.0",
        source: "dist/esm/index.js:3-84",
        meaning: "3 retries that never wait (retryDelay is noDelay) unless the server sends Retry-After, used exactly: 429 and 5xx for idempotent methods, network errors for any",
        settings: &[&[
            ("attempts", "4"),
            ("deadline", "none"),
            ("backoff", "none"),
            ("retry_on", "429,500-599"),
        ]],
    },
    Client {
        name: "axios-retry-exp",
        title: "axios-retry with exponentialDelay",
        ecosystem: Ecosystem::JavaScript,
        version: "axios-retry 4.5.0",
        source: "dist/esm/index.js:43-64",
        meaning: "3 retries of 2^(k+1) x 100 ms plus up to 20%, no cap; axios-retry also takes a Retry-After as a floor before the 20% (the lab uses it exactly)",
        settings: &[&[
            ("attempts", "4"),
            ("deadline", "none"),
            ("backoff", "exponential"),
            ("base", "200ms"),
            ("cap", "86400s"),
            ("jitter", "mult"),
            ("jitter_lo", "1"),
            ("jitter_hi", "1.2"),
            ("retry_on", "429,500-599"),
        ]],
    },
    Client {
        name: "got",
        title: "got",
        ecosystem: Ecosystem::JavaScript,
        version: "got 14.6.6",
        source: "dist/source/core/calculate-retry-delay.js:1-28; core/options.js:149-186; core/index.js:219-239",
        meaning: "2 retries of 1 s x 2^k plus up to 100 ms; Retry-After used exactly (over maxRetryAfter, unset by default, it would mean no retry)",
        settings: &[&[
            ("attempts", "3"),
            ("deadline", "none"),
            ("backoff", "exponential"),
            ("base", "1s"),
            ("cap", "86400s"),
            ("jitter", "add"),
            ("jitter_add", "100ms"),
            ("jitter_after_cap", "true"),
            ("retry_on", "408,413,429,500,502-504,521,522,524"),
        ]],
    },
    Client {
        name: "ky",
        title: "ky",
        ecosystem: Ecosystem::JavaScript,
        version: "ky 1.14.3",
        source: "distribution/utils/normalize.js:3-16; core/Ky.js:213-283",
        meaning: "2 retries of 300 ms x 2^k with no jitter and no cap; Retry-After (and four rate-limit headers) honoured for 413, 429 and 503",
        settings: &[&[
            ("attempts", "3"),
            ("deadline", "none"),
            ("backoff", "exponential"),
            ("base", "300ms"),
            ("cap", "86400s"),
            ("retry_on", "408,413,429,500,502-504"),
        ]],
    },
    Client {
        name: "smithy-js",
        title: "AWS SDK for JavaScript v3 (@smithy/util-retry standard)",
        ecosystem: Ecosystem::JavaScript,
        version: "@smithy/util-retry 4.6.2, @smithy/core 3.41.1",
        source: "retries-2026-config.js:1-18; DefaultRetryBackoffStrategy.js:5-9; StandardRetryStrategy.js:11-96",
        meaning: "3 attempts, full jitter from 50 ms (1 s for throttling) capped at 20 s, whole milliseconds, the 500-token quota (14, 5 when throttled), a retry-after hint clamped to [t, t + 5 s]",
        settings: &[AWS_STANDARD_2026, &[("throttle_base", "1s")]],
    },
    Client {
        name: "backon",
        title: "backon ExponentialBuilder",
        ecosystem: Ecosystem::Rust,
        version: "backon 1.6.0",
        source: "src/backoff/exponential.rs:9-13, 56-66, 201-251",
        meaning: "3 retries of 1, 2, 4 s (x2, cap 60 s), no jitter by default; with_jitter() multiplies the capped wait by U(1, 2)",
        settings: &[&[
            ("attempts", "4"),
            ("backoff", "exponential"),
            ("base", "1s"),
            ("cap", "60s"),
        ]],
    },
    Client {
        name: "backoff-rs",
        title: "backoff ExponentialBackoff (Rust)",
        ecosystem: Ecosystem::Rust,
        version: "backoff 0.4.0",
        source: "src/default.rs; src/exponential.rs:61-131",
        meaning: "0.5 s growing x1.5 to 60 s, each wait x U(0.5, 1.5), until 15 minutes have passed (20 attempts stand in)",
        settings: &[HALF_JITTER_1_5],
    },
    Client {
        name: "tokio-retry",
        title: "tokio-retry ExponentialBackoff::from_millis(10).take(3)",
        ecosystem: Ecosystem::Rust,
        version: "tokio-retry 0.3.2",
        source: "src/strategy.rs:15-63, 172-175",
        meaning: "the base is also the multiplier: from_millis(10) waits 10, 100, 1000 ms; an endless iterator (take(3) here), no jitter unless mapped through jitter()",
        settings: &[&[
            ("attempts", "4"),
            ("deadline", "none"),
            ("backoff", "exponential"),
            ("base", "10ms"),
            ("multiplier_from_base", "true"),
            ("cap", "86400s"),
        ]],
    },
    Client {
        name: "reqwest-retry",
        title: "reqwest-retry with retry-policies ExponentialBackoff",
        ecosystem: Ecosystem::Rust,
        version: "reqwest-retry 0.9.1, retry-policies 0.5.2",
        source: "retry-policies/src/policies/exponential_backoff.rs:80-139; reqwest-retry/src/retryable_strategy.rs:113-177",
        meaning: "full jitter from 1 s doubling to 30 min (3 retries here: it has no default); POST retried too, and Retry-After ignored",
        settings: &[&[
            ("attempts", "4"),
            ("deadline", "none"),
            ("backoff", "full"),
            ("base", "1s"),
            ("cap", "1800s"),
            ("retry_on", "408,429,500-599"),
            ("ra_mode", "ignore"),
        ]],
    },
    Client {
        name: "tower-budget",
        title: "tower retry: TpsBudget with ExponentialBackoffMaker",
        ecosystem: Ecosystem::Rust,
        version: "tower 0.5.3",
        source: "src/retry/budget/tps_budget.rs:69-186; src/retry/backoff.rs:135-196",
        meaning: "50 ms x 2^k stretched by up to 99%, no cap; a budget of 20% of calls over 10 s plus 10 retries a second (3 retries here: the policy sets the count)",
        settings: &[&[
            ("attempts", "4"),
            ("deadline", "none"),
            ("backoff", "exponential"),
            ("base", "50ms"),
            ("cap", "86400s"),
            ("jitter", "mult"),
            ("jitter_lo", "1"),
            ("jitter_hi", "1.99"),
            ("budget", "ratio"),
        ]],
    },
    Client {
        name: "aws-smithy-rust",
        title: "AWS SDK for Rust (aws-smithy-runtime RetryConfig::standard)",
        ecosystem: Ecosystem::Rust,
        version: "aws-smithy-runtime 1.16.2, aws-smithy-types 1.9.3",
        source: "aws-smithy-types/src/retry.rs:425-435; client/retries/strategy/standard.rs:123-181, 369-392",
        meaning: "3 attempts, full jitter from 1 s capped at 20 s, the legacy token costs (5, 10 after a timeout), x-amz-retry-after capped at the 20 s max backoff",
        settings: &[&[
            ("attempts", "3"),
            ("backoff", "full"),
            ("base", "1s"),
            ("cap", "20s"),
            ("budget", "aws"),
            ("classify", "aws"),
            ("ra_mode", "cap"),
            ("ra_cap", "20s"),
        ]],
    },
    Client {
        name: "cenkalti-backoff",
        title: "cenkalti/backoff ExponentialBackOff",
        ecosystem: Ecosystem::Go,
        version: "v4.3.0",
        source: "exponential.go:79-83, 171-215",
        meaning: "0.5 s growing x1.5 to 60 s, each wait x U(0.5, 1.5), until 15 minutes have passed (20 attempts stand in)",
        settings: &[HALF_JITTER_1_5, &[("ra_mode", "ignore")]],
    },
    Client {
        name: "failsafe-go",
        title: "failsafe-go RetryPolicy",
        ecosystem: Ecosystem::Go,
        version: "HEAD 5759a5e (2026-08-16)",
        source: "retrypolicy/retry.go:14, 64-68, 204-209",
        meaning: "2 retries that never wait (no delay by default), on any error",
        settings: &[&[("attempts", "3"), ("backoff", "none"), ("ra_mode", "ignore")]],
    },
    Client {
        name: "resilience4j",
        title: "resilience4j Retry",
        ecosystem: Ecosystem::Java,
        version: "HEAD af9e7c9 (2026-05-05)",
        source: "resilience4j-retry/.../RetryConfig.java:39-43",
        meaning: "3 attempts, a fixed 500 ms wait, every throwable retried",
        settings: &[&[
            ("attempts", "3"),
            ("backoff", "constant"),
            ("base", "500ms"),
            ("ra_mode", "ignore"),
        ]],
    },
    Client {
        name: "spring-retry",
        title: "Spring Retry RetryTemplate",
        ecosystem: Ecosystem::Java,
        version: "HEAD c8977dd (2025-05-16)",
        source: "SimpleRetryPolicy.java (DEFAULT_MAX_ATTEMPTS); RetryTemplate.java:93-95",
        meaning: "3 attempts that never wait (NoBackOffPolicy); the @Retryable annotation's default waits a fixed 1 s instead",
        settings: &[&[("attempts", "3"), ("backoff", "none"), ("ra_mode", "ignore")]],
    },
    Client {
        name: "polly-v8",
        title: "Polly v8 RetryStrategyOptions",
        ecosystem: Ecosystem::DotNet,
        version: "HEAD 173d6d1 (2026-08-21)",
        source: "src/Polly.Core/Retry/RetryStrategyOptions.TResult.cs:29-99; RetryHelper.cs",
        meaning: "3 retries of a constant 2 s, no jitter; BackoffType=Exponential with UseJitter is the lab's backoff=decorrelated-v2",
        settings: &[&[
            ("attempts", "4"),
            ("backoff", "constant"),
            ("base", "2s"),
            ("ra_mode", "ignore"),
        ]],
    },
    Client {
        name: "grpc-2017",
        title: "gRFC A6 as written in 2017 (full jitter)",
        ecosystem: Ecosystem::Specs,
        version: "grpc/proposal 0070717f (2017-09-13)",
        source: "A6-client-retries.md",
        meaning: "the A6 example policy: 4 attempts, random(0, min(100 ms x 2^k, 1 s)), retry throttling (10 tokens, 0.1 per success), UNAVAILABLE only",
        settings: &[&[
            ("attempts", "4"),
            ("backoff", "full"),
            ("base", "100ms"),
            ("cap", "1s"),
            ("budget", "grpc"),
            ("classify", "grpc"),
        ]],
    },
    Client {
        name: "grpc-2024",
        title: "gRFC A6 since 2024 (grpc-go, grpc-java): +-20% jitter",
        ecosystem: Ecosystem::Specs,
        version: "grpc/proposal dc9fd4f (2024-08-29); grpc-go 4793ad0",
        source: "A6-client-retries.md:113; grpc-go stream.go:861-871",
        meaning: "the A6 example policy with the 2024 backoff: min(100 ms x 2^k, 1 s) x U(0.8, 1.2), so a wait may pass the 1 s max",
        settings: &[&[
            ("attempts", "4"),
            ("backoff", "exponential"),
            ("base", "100ms"),
            ("cap", "1s"),
            ("jitter", "mult"),
            ("jitter_lo", "0.8"),
            ("jitter_hi", "1.2"),
            ("jitter_after_cap", "true"),
            ("budget", "grpc"),
            ("classify", "grpc"),
        ]],
    },
    Client {
        name: "envoy",
        title: "Envoy router retries, as coded",
        ecosystem: Ecosystem::Specs,
        version: "envoyproxy/envoy (code index)",
        source: "source/common/common/backoff_strategy.cc; source/common/router/retry_state_impl.cc",
        meaning: "num_retries 1; a retry draws from [0, 25 ms x 2^k) capped at 250 ms: 0-24, 0-49, 0-99 ms ... (what the docs say differs: envoy-docs)",
        settings: &[&[
            ("attempts", "2"),
            ("backoff", "full"),
            ("base", "25ms"),
            ("cap", "250ms"),
        ]],
    },
    Client {
        name: "envoy-docs",
        title: "Envoy router retries, as documented",
        ecosystem: Ecosystem::Specs,
        version: "envoyproxy/envoy docs (router filter)",
        source: "docs: x-envoy-max-retries, \"fully jittered exponential back-off\"",
        meaning: "the docs' formula: [0, (2^(k+1) - 1) x 25 ms) capped at 250 ms, 0-24, 0-74, 0-174 ms; the code draws less (envoy)",
        settings: &[&[
            ("attempts", "2"),
            ("backoff", "full"),
            ("base", "25ms"),
            ("cap", "250ms"),
            ("ceiling_sum", "true"),
        ]],
    },
];

/// The client named `name`, if any.
pub fn client(name: &str) -> Option<&'static Client> {
    CLIENTS.iter().find(|c| c.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preset_list_holds_every_client() {
        assert_eq!(CLIENTS.len(), crate::link::preset::CLIENT_COUNT);
        for c in CLIENTS {
            assert_eq!(
                crate::Preset::from_name(c.name).map(|p| p.name()),
                Some(c.name)
            );
        }
    }

    #[test]
    fn every_client_is_a_valid_link_and_names_its_source() {
        for (i, c) in CLIENTS.iter().enumerate() {
            assert!(
                CLIENTS[..i].iter().all(|o| o.name != c.name),
                "{} twice",
                c.name
            );
            assert!(!c.version.is_empty() && !c.source.is_empty(), "{}", c.name);
            let p: crate::Params = alloc::format!("preset={}", c.name).parse().unwrap();
            p.validate().unwrap_or_else(|e| panic!("{}: {e}", c.name));
            // Nothing the preset sets is refused as having no effect.
            let (_, inert) = p.without_inert_except(&[]);
            assert!(inert.is_empty(), "{}: {inert:?}", c.name);
        }
    }
}
