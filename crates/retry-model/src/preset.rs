//! Presets: real clients and worked examples, reproduced exactly.
//!
//! A preset sets a group of link keys; any key written after it in a link overrides it. The
//! library presets follow each library's own meaning of its words (AWS "full jitter" is
//! `U(0, min(cap, base * 2^k))`; Stripe's jitter is what the lab calls equal jitter), and
//! `docs/presets.md` gives the source of every constant.

use crate::backoff::{BackoffConfig, BackoffKind};
use crate::budget::{AwsQuotaConfig, BudgetConfig, GrpcThrottleConfig};
use crate::classify::Classifier;
use crate::link::Params;
use crate::outcome::{Outcome, ScriptedOutcome};
use crate::policy::RetryAfterMode;
use crate::time::Micros;
use alloc::vec;

/// A named group of settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    /// AWS SDK standard mode before 2026: 3 attempts, full jitter `U(0, min(1 s * 2^k, 20 s))`,
    /// the 500-token quota (5 per retry, 10 after a timeout, 1 back per clean success).
    AwsStandard,
    /// AWS SDK standard mode after the 2026 update: 50 ms base (1 s for throttling), quota cost
    /// 14 (5 for throttling), `x-amz-retry-after` honoured as `max(t, min(ra, t + 5 s))`.
    Aws2026,
    /// gRPC A6's example policy: 4 attempts, 100 ms initial, 1 s max, multiplier 2, full
    /// jitter, retry throttling with maxTokens 10 and tokenRatio 0.1, UNAVAILABLE only.
    Grpc,
    /// tenacity `wait_random_exponential(multiplier=0.1, max=2)` with `stop_after_attempt(3)`,
    /// as in the book chapter's wrapper.
    Tenacity,
    /// stripe-python: 3 attempts, wait `min(0.5 s * 2^k, 5 s)` jittered in `[s/2, s]`, at least
    /// 500 ms, Retry-After up to 60 s honoured as a minimum, idempotency key sent.
    Stripe,
    /// The 2015 AWS simulator's backoff: base 5 ms, cap 2 s, first exponent 1.
    Brooker2015,
    /// The book chapter's walk: a 10 s deadline with 0.1 s already spent, 3 s per attempt, three
    /// connect timeouts, waits of 100 and 200 ms.
    Chapter,
    /// The guide's example: 700 ms left, 100 ms reserve, 400 ms per attempt, a 250 ms wait that
    /// does not fit (change `waits` to `150ms` and it does).
    Guide700ms,
}

impl Preset {
    /// Every preset, in the order the page lists them.
    pub const ALL: [Preset; 8] = [
        Preset::AwsStandard,
        Preset::Aws2026,
        Preset::Grpc,
        Preset::Tenacity,
        Preset::Stripe,
        Preset::Brooker2015,
        Preset::Chapter,
        Preset::Guide700ms,
    ];

    /// The link name.
    pub const fn name(self) -> &'static str {
        match self {
            Preset::AwsStandard => "aws-standard",
            Preset::Aws2026 => "aws-2026",
            Preset::Grpc => "grpc",
            Preset::Tenacity => "tenacity",
            Preset::Stripe => "stripe",
            Preset::Brooker2015 => "brooker-2015",
            Preset::Chapter => "chapter",
            Preset::Guide700ms => "guide-700ms",
        }
    }

    /// A short title for menus.
    pub const fn title(self) -> &'static str {
        match self {
            Preset::AwsStandard => "AWS SDK standard mode",
            Preset::Aws2026 => "AWS SDK standard mode (2026 update)",
            Preset::Grpc => "gRPC A6 example policy",
            Preset::Tenacity => "tenacity wait_random_exponential",
            Preset::Stripe => "Stripe client (stripe-python)",
            Preset::Brooker2015 => "2015 backoff simulator",
            Preset::Chapter => "Book chapter: 10 s deadline walk",
            Preset::Guide700ms => "Guide: 700 ms left, refused before sleeping",
        }
    }

    /// Looks a preset up by link name.
    pub fn from_name(s: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.name() == s)
    }

    /// Applies the preset on top of `p` (which is normally the defaults).
    pub fn apply(self, p: &mut Params) {
        let pol = &mut p.policy;
        match self {
            Preset::AwsStandard => {
                pol.max_attempts = 3;
                pol.backoff = BackoffConfig::new(BackoffKind::Full)
                    .with_base(Micros::from_secs(1))
                    .with_cap(Micros::from_secs(20));
                pol.budget = BudgetConfig::Aws(AwsQuotaConfig::STANDARD);
                pol.classifier = Classifier::Aws;
            }
            Preset::Aws2026 => {
                pol.max_attempts = 3;
                pol.backoff = BackoffConfig::new(BackoffKind::Full)
                    .with_base(Micros::from_millis(50))
                    .with_cap(Micros::from_secs(20))
                    .with_throttle_base(Some(Micros::from_secs(1)));
                pol.budget = BudgetConfig::Aws(AwsQuotaConfig::Y2026);
                pol.classifier = Classifier::Aws;
                pol.retry_after_mode = RetryAfterMode::Aws2026;
            }
            Preset::Grpc => {
                pol.max_attempts = 4;
                pol.backoff = BackoffConfig::new(BackoffKind::Full)
                    .with_base(Micros::from_millis(100))
                    .with_cap(Micros::from_secs(1));
                pol.budget = BudgetConfig::Grpc(GrpcThrottleConfig::EXAMPLE);
                pol.classifier = Classifier::Grpc;
            }
            Preset::Tenacity => {
                pol.max_attempts = 3;
                pol.backoff = BackoffConfig::new(BackoffKind::Full)
                    .with_base(Micros::from_millis(100))
                    .with_cap(Micros::from_secs(2));
            }
            Preset::Stripe => {
                pol.max_attempts = 3;
                pol.backoff = BackoffConfig::new(BackoffKind::Equal)
                    .with_base(Micros::from_millis(500))
                    .with_cap(Micros::from_secs(5))
                    .with_floor(Micros::from_millis(500));
                pol.classifier = Classifier::Stripe;
                pol.retry_after_mode = RetryAfterMode::Stripe;
                pol.operation.key = true;
            }
            Preset::Brooker2015 => {
                pol.backoff = BackoffConfig::new(BackoffKind::Full)
                    .with_base(Micros::from_millis(5))
                    .with_cap(Micros::from_secs(2))
                    .with_first_exp(1);
                pol.max_attempts = 10;
            }
            Preset::Chapter => {
                pol.max_attempts = 3;
                pol.deadline = Some(Micros::from_secs(10));
                pol.attempt_timeout = Micros::from_secs(3);
                pol.backoff = BackoffConfig::new(BackoffKind::Full)
                    .with_base(Micros::from_millis(100))
                    .with_cap(Micros::from_secs(2));
                p.elapsed = Micros::from_millis(100);
                p.outcomes = vec![ScriptedOutcome::new(Outcome::ConnectTimeout); 3];
                p.waits = vec![
                    Some(Micros::from_millis(100)),
                    Some(Micros::from_millis(200)),
                ];
            }
            Preset::Guide700ms => {
                pol.max_attempts = 3;
                pol.deadline = Some(Micros::from_millis(1100));
                pol.reserve = Micros::from_millis(100);
                pol.attempt_timeout = Micros::from_millis(400);
                pol.backoff = BackoffConfig::new(BackoffKind::Full)
                    .with_base(Micros::from_millis(100))
                    .with_cap(Micros::from_millis(800));
                p.outcomes = vec![
                    ScriptedOutcome::new(Outcome::ConnectTimeout),
                    ScriptedOutcome::new(Outcome::Ok),
                ];
                p.waits = vec![Some(Micros::from_millis(250))];
            }
        }
    }
}
