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
use crate::sim::{
    Arrivals, BreakerConfig, Burst, LayersSettings, LostSettings, OccSettings, Outage, Runs,
    Scenario, Series, Server,
};
use crate::time::Micros;
use alloc::vec;

/// The course project's payments system under the no-control policy.
/// `outage` is the outage's length (5 s in the course, 1 s for the metastable presets);
/// `breaker` the circuit breaker, if any.
fn payments(p: &mut Params, outage: Micros, breaker: Option<BreakerConfig>) {
    p.sim.scenario = Some(Scenario::Outage(Outage {
        server: Server {
            capacity_milli: 50_000,
            tick: Micros::from_millis(50),
            reject_cost_milli: 100,
            breaker,
            series: Series {
                at: Some(Micros::from_secs(30)),
                ..Series::default()
            },
            ..Server::default()
        },
        arrivals: Arrivals {
            rate_milli: 40_000,
            duration: Micros::from_secs(60),
        },
        outage_start: Micros::from_secs(2),
        outage,
        ..Outage::default()
    }));
    let pol = &mut p.policy;
    pol.max_attempts = crate::policy::MAX_ATTEMPTS;
    pol.deadline = Some(Micros::from_secs(10));
    pol.attempt_timeout = Micros::from_secs(3);
    pol.backoff = BackoffConfig::new(BackoffKind::None);
}

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
    /// The course project's "before": 40 checkouts/s against a 50/s payments service with a 5 s
    /// outage, retried at once until the 10 s deadline.
    PaymentsNone,
    /// The course project's "after": the same system with 2 attempts, full jitter from 300 ms,
    /// capped at 5 s.
    PaymentsJitter,
    /// The cheat sheet's burst lab: 500 clients at once, 50 per 10 ms tick, each 503 costs 0.1
    /// of a slot, 10 attempts, full jitter from 10 ms capped at 2 s.
    BurstLab,
    /// The 2015 study at 100 clients, 100 runs (full jitter; change `backoff` for the others).
    Occ2015,
    /// Three layers of 3 attempts over a dependency that always fails: 27 bottom calls.
    Layers333,
    /// The fix: retry at one layer only (1, 1, 3): 3 bottom calls.
    LayersFix,
    /// A charge endpoint losing 10% of its answers; the client retries read timeouts without an
    /// idempotency key (it wrongly treats the charge as idempotent): duplicate charges.
    LostNoKey,
    /// The same with an idempotency key: one durable charge per checkout.
    LostKey,
    /// A 1 s outage that leaves the server collapsed long after it ends, under immediate retries.
    MetastableNone,
    /// The same storm, stopped by a token-bucket retry budget.
    MetastableBudget,
    /// The same storm, stopped by a circuit breaker.
    MetastableBreaker,
}

impl Preset {
    /// Every preset, in the order the page lists them.
    pub const ALL: [Preset; 19] = [
        Preset::AwsStandard,
        Preset::Aws2026,
        Preset::Grpc,
        Preset::Tenacity,
        Preset::Stripe,
        Preset::Brooker2015,
        Preset::Chapter,
        Preset::Guide700ms,
        Preset::PaymentsNone,
        Preset::PaymentsJitter,
        Preset::BurstLab,
        Preset::Occ2015,
        Preset::Layers333,
        Preset::LayersFix,
        Preset::LostNoKey,
        Preset::LostKey,
        Preset::MetastableNone,
        Preset::MetastableBudget,
        Preset::MetastableBreaker,
    ];

    /// Whether the preset sets up a simulation (the others set a policy or a worked example).
    pub fn is_scenario(self) -> bool {
        let mut p = Params::default();
        self.apply(&mut p);
        p.sim.scenario.is_some()
    }

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
            Preset::PaymentsNone => "payments-none",
            Preset::PaymentsJitter => "payments-jitter",
            Preset::BurstLab => "burst-lab",
            Preset::Occ2015 => "occ-2015",
            Preset::Layers333 => "layers-333",
            Preset::LayersFix => "layers-fix",
            Preset::LostNoKey => "lost-nokey",
            Preset::LostKey => "lost-key",
            Preset::MetastableNone => "metastable-none",
            Preset::MetastableBudget => "metastable-budget",
            Preset::MetastableBreaker => "metastable-breaker",
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
            Preset::PaymentsNone => "Course project: payments outage, no control",
            Preset::PaymentsJitter => "Course project: payments outage, backoff + full jitter",
            Preset::BurstLab => "Cheat sheet: burst lab (500 clients)",
            Preset::Occ2015 => "2015 study: 100 clients updating one row",
            Preset::Layers333 => "Three layers of 3 attempts",
            Preset::LayersFix => "Retry at one layer only",
            Preset::LostNoKey => "Lost responses, no idempotency key",
            Preset::LostKey => "Lost responses, idempotency key",
            Preset::MetastableNone => "Metastable collapse after a 1 s outage",
            Preset::MetastableBudget => "Metastable storm stopped by a retry budget",
            Preset::MetastableBreaker => "Metastable storm stopped by a circuit breaker",
        }
    }

    /// Looks a preset up by link name.
    pub fn from_name(s: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.name() == s)
    }

    /// Applies the preset on top of `p` (which is normally the defaults): one function per
    /// preset below, grouped as the library clients, the worked examples and the scenarios.
    pub fn apply(self, p: &mut Params) {
        match self {
            Preset::AwsStandard => aws_standard(p),
            Preset::Aws2026 => aws_2026(p),
            Preset::Grpc => grpc(p),
            Preset::Tenacity => tenacity(p),
            Preset::Stripe => stripe(p),
            Preset::Brooker2015 => brooker_2015(p),
            Preset::Chapter => chapter(p),
            Preset::Guide700ms => guide_700ms(p),
            Preset::PaymentsNone | Preset::PaymentsJitter => payments_course(p, self),
            Preset::BurstLab => burst_lab(p),
            Preset::Occ2015 => occ_2015(p),
            Preset::Layers333 | Preset::LayersFix => layers(p, self),
            Preset::LostNoKey | Preset::LostKey => lost(p, self),
            Preset::MetastableNone | Preset::MetastableBudget | Preset::MetastableBreaker => {
                metastable(p, self)
            }
        }
    }
}

fn aws_standard(p: &mut Params) {
    let pol = &mut p.policy;
    pol.max_attempts = 3;
    pol.backoff = BackoffConfig::new(BackoffKind::Full)
        .with_base(Micros::from_secs(1))
        .with_cap(Micros::from_secs(20));
    pol.budget = BudgetConfig::Aws(AwsQuotaConfig::STANDARD);
    pol.classifier = Classifier::Aws;
}

fn aws_2026(p: &mut Params) {
    let pol = &mut p.policy;
    pol.max_attempts = 3;
    pol.backoff = BackoffConfig::new(BackoffKind::Full)
        .with_base(Micros::from_millis(50))
        .with_cap(Micros::from_secs(20))
        .with_throttle_base(Some(Micros::from_secs(1)));
    pol.budget = BudgetConfig::Aws(AwsQuotaConfig::Y2026);
    pol.classifier = Classifier::Aws;
    pol.retry_after_mode = RetryAfterMode::Aws2026;
}

fn grpc(p: &mut Params) {
    let pol = &mut p.policy;
    pol.max_attempts = 4;
    pol.backoff = BackoffConfig::new(BackoffKind::Full)
        .with_base(Micros::from_millis(100))
        .with_cap(Micros::from_secs(1));
    pol.budget = BudgetConfig::Grpc(GrpcThrottleConfig::EXAMPLE);
    pol.classifier = Classifier::Grpc;
}

fn tenacity(p: &mut Params) {
    let pol = &mut p.policy;
    pol.max_attempts = 3;
    pol.backoff = BackoffConfig::new(BackoffKind::Full)
        .with_base(Micros::from_millis(100))
        .with_cap(Micros::from_secs(2));
}

fn stripe(p: &mut Params) {
    let pol = &mut p.policy;
    pol.max_attempts = 3;
    pol.backoff = BackoffConfig::new(BackoffKind::Equal)
        .with_base(Micros::from_millis(500))
        .with_cap(Micros::from_secs(5))
        .with_floor(Micros::from_millis(500));
    pol.classifier = Classifier::Stripe;
    pol.retry_after_mode = RetryAfterMode::Stripe;
    pol.operation.key = true;
}

fn brooker_2015(p: &mut Params) {
    let pol = &mut p.policy;
    pol.backoff = BackoffConfig::new(BackoffKind::Full)
        .with_base(Micros::from_millis(5))
        .with_cap(Micros::from_secs(2))
        .with_first_exp(1);
    pol.max_attempts = 10;
}

fn chapter(p: &mut Params) {
    let pol = &mut p.policy;
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

fn guide_700ms(p: &mut Params) {
    let pol = &mut p.policy;
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

fn payments_course(p: &mut Params, which: Preset) {
    payments(p, Micros::from_secs(5), None);
    if which == Preset::PaymentsJitter {
        let pol = &mut p.policy;
        pol.max_attempts = 2;
        pol.backoff = BackoffConfig::new(BackoffKind::Full)
            .with_base(Micros::from_millis(300))
            .with_cap(Micros::from_secs(5));
    }
}

fn burst_lab(p: &mut Params) {
    p.sim.scenario = Some(Scenario::Burst(Burst {
        server: Server {
            capacity_milli: 5_000_000, // 50 per 10 ms tick
            tick: Micros::from_millis(10),
            reject_cost_milli: 100,
            series: Series {
                bin: Micros::from_millis(100),
                at: None,
            },
            ..Server::default()
        },
    }));
    p.clients = 500;
    let pol = &mut p.policy;
    pol.max_attempts = 10;
    pol.deadline = None;
    pol.backoff = BackoffConfig::new(BackoffKind::Full)
        .with_base(Micros::from_millis(10))
        .with_cap(Micros::from_secs(2));
}

fn occ_2015(p: &mut Params) {
    p.sim.scenario = Some(Scenario::Occ(OccSettings {
        net: Micros::from_millis(10),
        net_sd: Micros::from_millis(2),
    }));
    p.sim.runs = Runs(100);
    p.clients = 100;
    // The study's clients retry until they succeed: no deadline, no attempt limit,
    // which `scenario=occ` models whatever those keys say (it refuses them).
    let pol = &mut p.policy;
    pol.backoff = BackoffConfig::new(BackoffKind::Full)
        .with_base(Micros::from_millis(5))
        .with_cap(Micros::from_secs(2))
        .with_first_exp(1);
}

fn layers(p: &mut Params, which: Preset) {
    p.sim.scenario = Some(Scenario::Layers(LayersSettings {
        layers: if which == Preset::Layers333 {
            vec![3, 3, 3]
        } else {
            vec![1, 1, 3]
        },
        p_ppm: 1_000_000,
        requests: 100,
        rate_milli: 10_000,
        ..LayersSettings::default()
    }));
    let pol = &mut p.policy;
    pol.deadline = None;
    pol.attempt_timeout = Micros::from_secs(60);
    pol.operation.idempotent = true;
    pol.backoff = BackoffConfig::new(BackoffKind::Full)
        .with_base(Micros::from_millis(10))
        .with_cap(Micros::from_millis(100));
}

fn lost(p: &mut Params, which: Preset) {
    p.sim.scenario = Some(Scenario::Lost(LostSettings {
        arrivals: Arrivals {
            rate_milli: 20_000,
            duration: Micros::from_secs(60),
        },
        lose_ppm: 100_000,
        service: Micros::from_millis(50),
        net: Micros::from_millis(5),
        ..LostSettings::default()
    }));
    let pol = &mut p.policy;
    pol.max_attempts = 3;
    pol.attempt_timeout = Micros::from_secs(1);
    pol.backoff = BackoffConfig::new(BackoffKind::Full)
        .with_base(Micros::from_millis(100))
        .with_cap(Micros::from_secs(2));
    if which == Preset::LostKey {
        pol.operation.key = true;
    } else {
        pol.operation.idempotent = true;
    }
}

fn metastable(p: &mut Params, which: Preset) {
    let breaker = (which == Preset::MetastableBreaker).then(BreakerConfig::default);
    payments(p, Micros::from_secs(1), breaker);
    if which == Preset::MetastableBudget {
        p.policy.budget = BudgetConfig::Bucket(crate::budget::TokenBucketConfig::CHEAT_SHEET);
    }
}
