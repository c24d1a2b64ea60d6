//! Systems that several presets run in: the course project's payments service, shared by its
//! own presets and by a client preset that shows its limiter there.

/// The course project's payments system under the no-control policy: 40 checkouts/s against a
/// 50/s service with a 5 s outage, retried at once until the 10 s deadline.
pub(super) const PAYMENTS: &[(&str, &str)] = &[
    ("scenario", "outage"),
    ("rate", "40"),
    ("duration", "60s"),
    ("capacity", "50"),
    ("tick", "50ms"),
    ("reject_cost", "0.1"),
    ("outage_start", "2s"),
    ("outage", "5s"),
    ("at", "30s"),
    ("attempts", "1000"),
    ("deadline", "10s"),
    ("attempt_timeout", "3s"),
    ("backoff", "none"),
];
