//! The values of the link's choice keys, each with what the page's menu says for it.

use crate::retry::budget::{
    AwsQuotaConfig, BudgetConfig, ConcurrentConfig, EnvoyBudgetConfig, GrpcThrottleConfig,
    RateConfig, RatioConfig, TokenBucketConfig,
};

/// The servers of `outage` and `burst`, as the link names them.
pub const SERVERS: &[(&str, &str)] = &[
    ("tick", "capacity per tick"),
    ("queue", "workers and a queue"),
    ("flaky", "fails at random"),
];

/// The engines of a storm, as the link names them.
pub const ENGINES: &[(&str, &str)] = &[
    (
        "auto",
        "the per-request engine up to about a second's work, the population engine above",
    ),
    ("request", "every request its own events"),
    ("population", "counts of requests, a tick at a time"),
];

/// The backoff kinds, as the link names them.
pub const BACKOFF_KINDS: &[(&str, &str)] = &[
    ("none", "none (retry at once)"),
    ("constant", "constant"),
    ("exponential", "exponential, no jitter"),
    ("full", "full jitter"),
    ("equal", "equal jitter"),
    ("decorrelated", "decorrelated jitter"),
    ("decorrelated-v2", "decorrelated V2 (Polly)"),
];

/// The jitters on a fixed wait, as the link names them.
pub const JITTERS: &[(&str, &str)] = &[
    ("none", "none"),
    ("mult", "multiply: d x U(lo, hi)"),
    ("add", "add: d + U(0, add)"),
];

/// The Retry-After rules, as the link names them.
pub const RA_MODES: &[(&str, &str)] = &[
    ("server", "server's value"),
    ("aws2026", "AWS 2026"),
    ("stripe", "Stripe"),
    ("cap", "capped at ra_cap"),
    ("refuse_above", "no retry above ra_max"),
    ("clamp", "AWS clamp"),
    ("ignore", "ignored"),
    ("envoy", "Envoy: x U(1, 1.5), over ra_max the backoff"),
];

/// The budgets: the link's name, the menu's words and the budget it gives, one row each, so
/// that a name cannot mean a budget it does not list.
pub const BUDGET_ROWS: &[(&str, &str, BudgetConfig)] = &[
    ("none", "none", BudgetConfig::None),
    (
        "aws",
        "AWS quota (500 / 5 / 10 / 1)",
        BudgetConfig::Aws(AwsQuotaConfig::STANDARD),
    ),
    (
        "aws2026",
        "AWS quota, 2026 (500 / 14 / 5)",
        BudgetConfig::Aws(AwsQuotaConfig::Y2026),
    ),
    (
        "bucket",
        "token bucket (10, +0.1 per success)",
        BudgetConfig::Bucket(TokenBucketConfig::CHEAT_SHEET),
    ),
    (
        "ratio",
        "ratio: 20% + 10/s over 10 s",
        BudgetConfig::Ratio(RatioConfig::FINAGLE),
    ),
    (
        "chapter",
        "ratio: 10% over 10 s",
        BudgetConfig::Ratio(RatioConfig::CHAPTER),
    ),
    (
        "grpc",
        "gRPC throttling (10, 0.1)",
        BudgetConfig::Grpc(GrpcThrottleConfig::EXAMPLE),
    ),
    (
        "rate",
        "60 retries per minute",
        BudgetConfig::Rate(RateConfig::SRE),
    ),
    (
        "envoy",
        "Envoy: 3 retries in flight",
        BudgetConfig::Envoy(ConcurrentConfig::ENVOY),
    ),
    (
        "envoy_budget",
        "Envoy retry budget: 20% of active, at least 3",
        BudgetConfig::EnvoyBudget(EnvoyBudgetConfig::ENVOY),
    ),
];

/// The budgets, as the link names them (the names and words of [`BUDGET_ROWS`]).
pub const BUDGETS: &[(&str, &str)] = &names::<{ BUDGET_ROWS.len() }>(BUDGET_ROWS);

/// The first two columns of `rows`.
const fn names<const N: usize>(
    rows: &[(&'static str, &'static str, BudgetConfig)],
) -> [(&'static str, &'static str); N] {
    let mut out = [("", ""); N];
    let mut i = 0;
    while i < N {
        out[i] = (rows[i].0, rows[i].1);
        i += 1;
    }
    out
}

/// The scenarios, as the link names them.
pub const SCENARIOS: &[(&str, &str)] = &[
    ("none", "none: one request"),
    ("outage", "outage"),
    ("burst", "burst"),
    ("occ", "the 2015 study"),
    ("layers", "layers"),
    ("lost", "lost responses"),
];
