//! The values of the link's choice keys, each with what the page's menu says for it.

/// The servers of `outage` and `burst`, as the link names them.
pub const SERVERS: &[(&str, &str)] = &[
    ("tick", "capacity per tick"),
    ("queue", "workers and a queue"),
    ("flaky", "fails at random"),
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

/// The budgets, as the link names them.
pub const BUDGETS: &[(&str, &str)] = &[
    ("none", "none"),
    ("aws", "AWS quota (500 / 5 / 10 / 1)"),
    ("aws2026", "AWS quota, 2026 (500 / 14 / 5)"),
    ("bucket", "token bucket (10, +0.1 per success)"),
    ("ratio", "ratio: 20% + 10/s over 10 s"),
    ("chapter", "ratio: 10% over 10 s"),
    ("grpc", "gRPC throttling (10, 0.1)"),
    ("rate", "60 retries per minute"),
    ("envoy", "Envoy: 3 retries in flight"),
    (
        "envoy_budget",
        "Envoy retry budget: 20% of active, at least 3",
    ),
];

/// The scenarios, as the link names them.
pub const SCENARIOS: &[(&str, &str)] = &[
    ("none", "none: one request"),
    ("outage", "outage"),
    ("burst", "burst"),
    ("occ", "the 2015 study"),
    ("layers", "layers"),
    ("lost", "lost responses"),
];
