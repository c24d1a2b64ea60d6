//! Presets: real clients and worked examples, reproduced exactly.
//!
//! A preset sets a group of link keys; any key written after it in a link overrides it. The
//! library presets follow each library's own meaning of its words (AWS "full jitter" is
//! `U(0, min(cap, base * 2^k))`; Stripe's jitter is what the lab calls equal jitter), and
//! `docs/presets.md` gives the source of every constant.

use super::systems::PAYMENTS;

/// Three layers over a dependency that always fails, 100 user requests at 10/s.
const LAYERS: &[(&str, &str)] = &[
    ("scenario", "layers"),
    ("p", "1"),
    ("requests", "100"),
    ("rate", "10"),
    ("deadline", "none"),
    ("attempt_timeout", "60s"),
    ("idempotent", "true"),
    ("backoff", "full"),
    ("base", "10ms"),
    ("cap", "100ms"),
];

/// A charge endpoint losing 10% of its answers, 20 checkouts/s for 60 s.
/// A queue near saturation (4 workers x 40 ms = 100/s against 94 requests/s) hit by a 5 s
/// spike of 60 extra requests/s, with 1 s attempt timeouts and immediate retries of timeouts.
const QUEUE: &[(&str, &str)] = &[
    ("scenario", "outage"),
    ("rate", "94"),
    ("outage", "0ms"),
    ("server", "queue"),
    ("workers", "4"),
    ("service", "40ms"),
    ("queue_limit", "1000"),
    ("duration", "60s"),
    ("spike_rate", "60"),
    ("spike_start", "10s"),
    ("spike_for", "5s"),
    ("attempt_timeout", "1s"),
    ("attempts", "3"),
    ("idempotent", "true"),
    ("backoff", "none"),
    ("at", "40s"),
];

/// [`QUEUE`] without its arrival rate, for closed-loop users.
const QUEUE_SYSTEM: [(&str, &str); 15] = {
    let mut out = [("", ""); 15];
    let mut i = 0;
    while i < 15 {
        // QUEUE's rows after `scenario` and `rate`, with `scenario` first.
        out[i] = if i == 0 { QUEUE[0] } else { QUEUE[i + 1] };
        i += 1;
    }
    out
};

/// A server whose latency is 1 s plus 10 ms per request in flight (no queue: every request
/// is served at once), 50 requests/s, 3 s timeouts, 3 attempts, a 4 s spike of 40 extra/s.
const LATENCY: &[(&str, &str)] = &[
    ("scenario", "outage"),
    ("outage", "0ms"),
    ("server", "queue"),
    ("workers", "10000"),
    ("queue_limit", "0"),
    ("service", "1s"),
    ("latency_per_inflight", "10ms"),
    ("rate", "50"),
    ("duration", "120s"),
    ("spike_rate", "40"),
    ("spike_start", "10s"),
    ("spike_for", "4s"),
    ("attempt_timeout", "3s"),
    ("attempts", "3"),
    ("idempotent", "true"),
    ("backoff", "none"),
    ("at", "100s"),
];

/// A dependency failing 20% of attempts at random (5 ms each, 500 requests/s for 60 s), called
/// with 3 retries and full jitter.
const FLAKY: &[(&str, &str)] = &[
    ("scenario", "outage"),
    ("outage", "0ms"),
    ("server", "flaky"),
    ("fail", "0.2"),
    ("service", "5ms"),
    ("rate", "500"),
    ("duration", "60s"),
    ("attempts", "4"),
    ("backoff", "full"),
    ("base", "10ms"),
    ("cap", "100ms"),
];

const LOST: &[(&str, &str)] = &[
    ("scenario", "lost"),
    ("rate", "20"),
    ("duration", "60s"),
    ("lose", "0.1"),
    ("service", "50ms"),
    ("net", "5ms"),
    ("attempts", "3"),
    ("attempt_timeout", "1s"),
    ("backoff", "full"),
    ("base", "100ms"),
    ("cap", "2s"),
];

/// A queue at 38% (8 workers, 300 requests/s) whose answers take 10 ms, but 500 ms for one in
/// 200 (a pause, a cold cache: the long tail of "The Tail at Scale"), with 1 s attempt timeouts
/// in a 2 s deadline; hedged after 15 ms (past the p99.5 of a fast answer), 2 attempts in all.
const HEDGED: &[(&str, &str)] = &[
    ("scenario", "outage"),
    ("deadline", "2s"),
    ("attempt_timeout", "1s"),
    ("idempotent", "true"),
    ("rate", "300"),
    ("duration", "30s"),
    ("outage", "0ms"),
    ("server", "queue"),
    ("workers", "8"),
    ("service_dist", "mix"),
    ("service_tail", "500ms"),
    ("service_tail_p", "0.005"),
    ("service", "10ms"),
    ("hedge", "on"),
    ("hedge_delay", "15ms"),
    ("hedge_max", "2"),
];

/// One worker whose service takes 0.1 ms, but 10 ms once in 1000 (Brooker's "Open and Closed,
/// Omission and Collapse"), no network delay, no deadline, one attempt that waits as long as it
/// takes, for 120 s.
const OMISSION: &[(&str, &str)] = &[
    ("scenario", "outage"),
    ("deadline", "none"),
    ("attempt_timeout", "60s"),
    ("attempts", "1"),
    ("idempotent", "true"),
    ("duration", "120s"),
    ("outage", "0ms"),
    ("server", "queue"),
    ("workers", "1"),
    ("queue_limit", "1000000"),
    ("service_dist", "mix"),
    ("service_tail", "10ms"),
    ("service_tail_p", "0.001"),
    ("net", "0ms"),
    ("service", "100us"),
];

/// [`OMISSION`] under Poisson arrivals at 8000/s: 80% of what the fast services alone allow.
const OMISSION_OPEN: &[(&str, &str)] = &[("rate", "8000"), ("arrivals", "poisson")];

/// A queue at 70% (4 workers x 40 ms against 70 requests/s for 60 s), 1 s attempt timeouts and
/// two immediate retries of them: the system the phase plots probe with triggers at t = 10 s.
const PHASE: &[(&str, &str)] = &[
    ("scenario", "outage"),
    ("attempt_timeout", "1s"),
    ("attempts", "3"),
    ("backoff", "none"),
    ("idempotent", "true"),
    ("rate", "70"),
    ("duration", "60s"),
    ("outage", "0ms"),
    ("server", "queue"),
    ("workers", "4"),
    ("queue_limit", "1000"),
    ("service", "40ms"),
];

/// The analytic twin's queue (`retrylab analyze` models it as it is): exponential service and
/// Poisson arrivals at about 45% load, FIFO, timeouts retried at once, and a load spike.
const TWIN: &[(&str, &str)] = &[
    ("scenario", "outage"),
    ("deadline", "none"),
    ("attempt_timeout", "100ms"),
    ("attempts", "3"),
    ("backoff", "none"),
    ("idempotent", "true"),
    ("rate", "45"),
    ("arrivals", "poisson"),
    ("duration", "90s"),
    ("outage", "0ms"),
    ("server", "queue"),
    ("workers", "1"),
    ("queue_limit", "40"),
    ("service", "10ms"),
    ("service_dist", "exp"),
    ("spike_rate", "60"),
    ("spike_start", "10s"),
    ("spike_for", "3s"),
];

/// The settings of `preset=aws-standard` (see [`Preset::settings`]).
const AWS_STANDARD: &[(&str, &str)] = &[
    ("attempts", "3"),
    ("backoff", "full"),
    ("base", "1s"),
    ("cap", "20s"),
    ("budget", "aws"),
    ("classify", "aws"),
];

/// The settings of `preset=aws-2026` (see [`Preset::settings`]).
const AWS_2026: &[(&str, &str)] = &[
    ("attempts", "3"),
    ("backoff", "full"),
    ("base", "50ms"),
    ("cap", "20s"),
    ("throttle_base", "1s"),
    ("budget", "aws2026"),
    ("classify", "aws"),
    ("ra_mode", "aws2026"),
];

/// The settings of `preset=grpc` (see [`Preset::settings`]).
const GRPC: &[(&str, &str)] = &[
    ("attempts", "4"),
    ("backoff", "full"),
    ("base", "100ms"),
    ("cap", "1s"),
    ("budget", "grpc"),
    ("classify", "grpc"),
];

/// The settings of `preset=tenacity` (see [`Preset::settings`]).
const TENACITY: &[(&str, &str)] = &[
    ("attempts", "3"),
    ("backoff", "full"),
    ("base", "100ms"),
    ("cap", "2s"),
];

/// The settings of `preset=stripe` (see [`Preset::settings`]).
const STRIPE: &[(&str, &str)] = &[
    ("attempts", "3"),
    ("backoff", "equal"),
    ("base", "500ms"),
    ("cap", "5s"),
    ("floor", "500ms"),
    ("classify", "stripe"),
    ("ra_mode", "stripe"),
    ("key", "true"),
];

/// The settings of `preset=brooker-2015` (see [`Preset::settings`]).
const BROOKER_2015: &[(&str, &str)] = &[
    ("attempts", "10"),
    ("backoff", "full"),
    ("base", "5ms"),
    ("cap", "2s"),
    ("first_exp", "1"),
];

/// The settings of `preset=chapter` (see [`Preset::settings`]).
const CHAPTER: &[(&str, &str)] = &[
    ("attempts", "3"),
    ("deadline", "10s"),
    ("elapsed", "100ms"),
    ("attempt_timeout", "3s"),
    ("backoff", "full"),
    ("base", "100ms"),
    ("cap", "2s"),
    (
        "outcomes",
        "connect_timeout,connect_timeout,connect_timeout",
    ),
    ("waits", "100ms,200ms"),
];

/// The settings of `preset=guide-700ms` (see [`Preset::settings`]).
const GUIDE_700MS: &[(&str, &str)] = &[
    ("attempts", "3"),
    ("deadline", "1100ms"),
    ("reserve", "100ms"),
    ("attempt_timeout", "400ms"),
    ("backoff", "full"),
    ("base", "100ms"),
    ("cap", "800ms"),
    ("outcomes", "connect_timeout,ok"),
    ("waits", "250ms"),
];

/// The settings of `preset=burst-lab` (see [`Preset::settings`]).
const BURST_LAB: &[(&str, &str)] = &[
    ("scenario", "burst"),
    ("capacity", "5000"), // 50 per 10 ms tick
    ("tick", "10ms"),
    ("reject_cost", "0.1"),
    ("bin", "100ms"),
    ("clients", "500"),
    ("attempts", "10"),
    ("deadline", "none"),
    ("backoff", "full"),
    ("base", "10ms"),
    ("cap", "2s"),
];

/// The settings of `preset=occ-2015` (see [`Preset::settings`]).
const OCC_2015: &[(&str, &str)] = &[
    ("scenario", "occ"),
    ("net", "10ms"),
    ("net_sd", "2ms"),
    ("runs", "100"),
    ("clients", "100"),
    ("backoff", "full"),
    ("base", "5ms"),
    ("cap", "2s"),
    ("first_exp", "1"),
];

/// What `preset=payments-jitter` sets over the group it builds on (see [`Preset::settings`]).
const PAYMENTS_JITTER: &[(&str, &str)] = &[
    ("attempts", "2"),
    ("backoff", "full"),
    ("base", "300ms"),
    ("cap", "5s"),
];

/// What `preset=phase-spike` sets over the group it builds on (see [`Preset::settings`]).
const PHASE_SPIKE: &[(&str, &str)] = &[
    ("spike_start", "10s"),
    ("sweep.spike_rate", "10..200/10"),
    ("sweep.spike_for", "1s..20s/1s"),
    ("sweep.plot", "recovered"),
];

/// What `preset=phase-capacity` sets over the group it builds on (see [`Preset::settings`]).
const PHASE_CAPACITY: &[(&str, &str)] = &[
    ("slow_start", "10s"),
    ("sweep.slow", "1.1,1.2,1.3,1.4,1.5,1.6,1.8,2,2.5,3,4,5"),
    ("sweep.slow_for", "1s..20s/1s"),
    ("sweep.plot", "recovered"),
];

/// What `preset=omission-retry` sets over the group it builds on (see [`Preset::settings`]).
const OMISSION_RETRY: &[(&str, &str)] = &[
    ("duration", "60s"),
    ("attempt_timeout", "15ms"),
    ("attempts", "3"),
    ("backoff", "none"),
];

/// How many client presets there are: [`super::clients::CLIENTS`]'s length (checked by a test).
pub const CLIENT_COUNT: usize = 32;

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
    /// A queue at 94% utilisation (4 workers, 40 ms each, 94 requests/s) after a 5 s load spike, with 1 s timeouts and immediate retries: it stays collapsed.
    QueueSpikeNone,
    /// The same spike with exponential backoff and full jitter: still collapsed.
    QueueSpikeJitter,
    /// The same spike with a token-bucket retry budget: retries stop, the queue drains slowly.
    QueueSpikeBudget,
    /// The same spike with server-side deadline checks: a worker skips requests whose caller gave up.
    QueueSpikeDeadline,
    /// The same spike served newest first: it recovers.
    QueueSpikeLifo,
    /// The same server and spike with 100 closed-loop users (1 s think time) in place of the
    /// open-loop arrivals.
    QueueSpikeClosed,
    /// A server whose latency is 1 s plus 10 ms per request in flight, 3 s timeouts, 3 attempts, after a 4 s spike of 40 extra requests/s, with immediate retries.
    LatencySpikeNone,
    /// The same spike with backoff and full jitter.
    LatencySpikeJitter,
    /// The same spike with a token-bucket retry budget.
    LatencySpikeBudget,
    /// A dependency that fails 20% of attempts whatever the load, no retries.
    FlakyNone,
    /// The same with 3 retries (4 attempts) and full jitter: the case where retries plainly help.
    FlakyRetries,
    /// The same with a token-bucket retry budget.
    FlakyBudget,
    /// The same with a circuit breaker.
    FlakyBreaker,
    /// A long-tailed service (10 ms, or 500 ms for one answer in 200), hedged after 15 ms.
    HedgeTail,
    /// The same queue slowed to twice its service time for 10 s: every request hedges, which
    /// doubles the load on a queue that would have coped.
    HedgeOverload,
    /// A bimodal service (0.1 ms, 10 ms once in 1000) under two closed-loop users, each
    /// sending its next request 130 us after its last answer: about 8000 requests a second.
    OmissionClosed,
    /// The same server under open-loop Poisson arrivals at 8000 a second.
    OmissionOpen,
    /// The open loop with a 15 ms attempt timeout retried at once, twice: the queue grows
    /// without bound.
    OmissionRetry,
    /// A phase plot: `PHASE` hit at 10 s by load spikes of 10 to 200 extra requests/s for 1
    /// to 20 s, each cell one run, coloured by whether it recovered.
    PhaseSpike,
    /// A phase plot: `PHASE` slowed at 10 s by a capacity cut (service times x 1.1 to 5)
    /// lasting 1 to 20 s.
    PhaseCapacity,
    /// The analytic twin's queue: one worker at 10 ms (exponential), 45 Poisson requests/s,
    /// a queue of 40, 100 ms timeouts retried at once up to 3 attempts, and a 3 s spike of 60
    /// extra requests/s at 10 s that tips it into its high mode for about half a minute.
    TwinSpike,
    /// A retry client library: the row of [`super::clients::CLIENTS`] at this index.
    Client(u8),
}

/// How many presets are not client rows.
const OWN: usize = 40;

impl Preset {
    /// Every preset, in the order the page lists them.
    pub const ALL: [Preset; OWN + CLIENT_COUNT] = {
        let mut all = [Preset::AwsStandard; OWN + CLIENT_COUNT];
        let mut i = 0;
        while i < OWN {
            all[i] = Preset::OWN_ALL[i];
            i += 1;
        }
        while i < OWN + CLIENT_COUNT {
            all[i] = Preset::Client((i - OWN) as u8);
            i += 1;
        }
        all
    };

    /// The presets that are not client rows, in the menu's order.
    const OWN_ALL: [Preset; OWN] = [
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
        Preset::QueueSpikeNone,
        Preset::QueueSpikeJitter,
        Preset::QueueSpikeBudget,
        Preset::QueueSpikeDeadline,
        Preset::QueueSpikeLifo,
        Preset::QueueSpikeClosed,
        Preset::LatencySpikeNone,
        Preset::LatencySpikeJitter,
        Preset::LatencySpikeBudget,
        Preset::FlakyNone,
        Preset::FlakyRetries,
        Preset::FlakyBudget,
        Preset::FlakyBreaker,
        Preset::HedgeTail,
        Preset::HedgeOverload,
        Preset::OmissionClosed,
        Preset::OmissionOpen,
        Preset::OmissionRetry,
        Preset::PhaseSpike,
        Preset::PhaseCapacity,
        Preset::TwinSpike,
    ];

    /// Whether the preset sets up a simulation (the others set a policy or a worked example).
    pub fn is_scenario(self) -> bool {
        self.settings()
            .iter()
            .flat_map(|group| group.iter())
            .any(|(k, v)| *k == "scenario" && *v != "none")
    }

    /// The link name.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Client(i) => super::clients::CLIENTS[usize::from(i)].name,
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
            Preset::QueueSpikeNone => "queue-spike-none",
            Preset::QueueSpikeJitter => "queue-spike-jitter",
            Preset::QueueSpikeBudget => "queue-spike-budget",
            Preset::QueueSpikeDeadline => "queue-spike-deadline",
            Preset::QueueSpikeLifo => "queue-spike-lifo",
            Preset::QueueSpikeClosed => "queue-spike-closed",
            Preset::LatencySpikeNone => "latency-spike-none",
            Preset::LatencySpikeJitter => "latency-spike-jitter",
            Preset::LatencySpikeBudget => "latency-spike-budget",
            Preset::FlakyNone => "flaky-none",
            Preset::FlakyRetries => "flaky-retries",
            Preset::FlakyBudget => "flaky-budget",
            Preset::FlakyBreaker => "flaky-breaker",
            Preset::HedgeTail => "hedge-tail",
            Preset::HedgeOverload => "hedge-overload",
            Preset::OmissionClosed => "omission-closed",
            Preset::OmissionOpen => "omission-open",
            Preset::OmissionRetry => "omission-retry",
            Preset::PhaseSpike => "phase-spike",
            Preset::PhaseCapacity => "phase-capacity",
            Preset::TwinSpike => "twin-spike",
        }
    }

    /// Where the preset reproduces a published figure and does not match it, why, in one or
    /// two sentences: shown under the run's figures on the page and by `retrylab run`.
    pub fn reference_note(self) -> Option<&'static str> {
        matches!(self, Preset::OmissionOpen).then_some(
            "Brooker's post reports a p99 over 25 ms where this run gives about 24 ms: his simulator (omission/omission.py) draws each mode's service time from an exponential distribution with that mean, so one slow service in ten takes over 23 ms, and sets the rate for 80% of the mixture's mean (about 7,280 requests/s); here each mode takes exactly its time, at 8,000 requests/s (88%). A mixture of exponentials is not a distribution the lab offers.",
        )
    }

    /// A short title for menus.
    pub fn title(self) -> &'static str {
        match self {
            Preset::Client(i) => super::clients::CLIENTS[usize::from(i)].title,
            Preset::AwsStandard => "AWS SDK standard mode",
            Preset::Aws2026 => "AWS SDK standard mode (2026 update)",
            Preset::Grpc => "gRPC A6 example policy",
            Preset::Tenacity => "tenacity wait_random_exponential",
            Preset::Stripe => "Stripe client (stripe-python)",
            Preset::Brooker2015 => "2015 backoff simulator",
            Preset::Chapter => "Book chapter: 10 s deadline walk",
            Preset::Guide700ms => "Guide: 700 ms left before a retry",
            Preset::PaymentsNone => "Course project: payments outage, no control",
            Preset::PaymentsJitter => "Course project: payments outage, backoff + full jitter",
            Preset::BurstLab => "Cheat sheet: burst lab (500 clients)",
            Preset::Occ2015 => "2015 study: 100 clients updating one row",
            Preset::Layers333 => "Three layers of 3 attempts",
            Preset::LayersFix => "Retry at one layer only",
            Preset::LostNoKey => "Lost responses, no idempotency key",
            Preset::LostKey => "Lost responses, idempotency key",
            Preset::MetastableNone => "A 1 s outage, immediate retries without limit",
            Preset::MetastableBudget => "A 1 s outage, immediate retries and a retry budget",
            Preset::MetastableBreaker => "A 1 s outage, immediate retries and a circuit breaker",
            Preset::QueueSpikeNone => "Queue at 94% after a 5 s spike, immediate retries",
            Preset::QueueSpikeJitter => "Queue after a spike, backoff + full jitter",
            Preset::QueueSpikeBudget => "Queue after a spike, retry budget",
            Preset::QueueSpikeDeadline => "Queue after a spike, server-side deadline checks",
            Preset::QueueSpikeLifo => "Queue after a spike, LIFO",
            Preset::QueueSpikeClosed => "Queue after a spike, closed-loop users",
            Preset::LatencySpikeNone => "Latency grows with load: a 4 s spike, immediate retries",
            Preset::LatencySpikeJitter => "Latency grows with load: backoff + full jitter",
            Preset::LatencySpikeBudget => "Latency grows with load: retry budget",
            Preset::FlakyNone => "Flaky dependency (20% failures), no retries",
            Preset::FlakyRetries => "Flaky dependency, 3 retries",
            Preset::FlakyBudget => "Flaky dependency, 3 retries and a budget",
            Preset::FlakyBreaker => "Flaky dependency, 3 retries and a breaker",
            Preset::HedgeTail => "Hedging a long tail (1 answer in 200 takes 500 ms)",
            Preset::HedgeOverload => "Hedging in a slow-down",
            Preset::OmissionClosed => "Bimodal service, closed loop: the tail hidden",
            Preset::OmissionOpen => "Bimodal service, open loop: the tail seen",
            Preset::OmissionRetry => "Bimodal service, open loop, 15 ms retry timeout",
            Preset::PhaseSpike => "Phase plot: load spike size x length",
            Preset::PhaseCapacity => "Phase plot: capacity cut x length",
            Preset::TwinSpike => "Analytic twin: a queue's two modes, and a spike between them",
        }
    }

    /// Whether the preset sets a sweep (`sweep.` keys): a phase plot.
    pub fn has_sweep(self) -> bool {
        self.settings()
            .iter()
            .flat_map(|g| g.iter())
            .any(|(k, _)| k.starts_with("sweep."))
    }

    /// The client library this preset is, if it is one of [`super::clients::CLIENTS`].
    pub fn client(self) -> Option<&'static super::clients::Client> {
        if let Preset::Client(i) = self {
            return super::clients::CLIENTS.get(usize::from(i));
        }
        None
    }

    /// Looks a preset up by link name.
    pub fn from_name(s: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.name() == s)
    }

    /// The preset's settings as link text, in groups applied in order (a later group's key
    /// overrides an earlier one's). Applied to the defaults in the key table's order, they give
    /// exactly the preset: a preset is a link, so the docs and `retrylab presets` can show it.
    pub fn settings(self) -> &'static [&'static [(&'static str, &'static str)]] {
        match self {
            Preset::Client(i) => super::clients::CLIENTS[usize::from(i)].settings,
            Preset::AwsStandard => &[AWS_STANDARD],
            Preset::Aws2026 => &[AWS_2026],
            Preset::Grpc => &[GRPC],
            Preset::Tenacity => &[TENACITY],
            Preset::Stripe => &[STRIPE],
            Preset::Brooker2015 => &[BROOKER_2015],
            Preset::Chapter => &[CHAPTER],
            Preset::Guide700ms => &[GUIDE_700MS],
            Preset::PaymentsNone => &[PAYMENTS],
            Preset::PaymentsJitter => &[PAYMENTS, PAYMENTS_JITTER],
            Preset::BurstLab => &[BURST_LAB],
            // The study's clients retry until they succeed: no deadline and no attempt limit,
            // which `scenario=occ` models whatever those keys say (it refuses them).
            Preset::Occ2015 => &[OCC_2015],
            Preset::Layers333 => &[LAYERS, &[("layers", "3,3,3")]],
            Preset::LayersFix => &[LAYERS, &[("layers", "1,1,3")]],
            Preset::LostNoKey => &[LOST, &[("idempotent", "true")]],
            Preset::LostKey => &[LOST, &[("key", "true")]],
            Preset::MetastableNone => &[PAYMENTS, &[("outage", "1s")]],
            Preset::MetastableBudget => &[PAYMENTS, &[("outage", "1s"), ("budget", "bucket")]],
            Preset::MetastableBreaker => &[PAYMENTS, &[("outage", "1s"), ("breaker", "on")]],
            Preset::QueueSpikeNone => &[QUEUE],
            Preset::QueueSpikeJitter => &[
                QUEUE,
                &[("backoff", "full"), ("base", "100ms"), ("cap", "2s")],
            ],
            Preset::QueueSpikeBudget => &[QUEUE, &[("budget", "bucket")]],
            Preset::QueueSpikeDeadline => &[QUEUE, &[("server_deadline", "on")]],
            Preset::QueueSpikeLifo => &[QUEUE, &[("discipline", "lifo")]],
            Preset::QueueSpikeClosed => &[&QUEUE_SYSTEM, &[("users", "100"), ("think", "1s")]],
            Preset::LatencySpikeNone => &[LATENCY],
            Preset::LatencySpikeJitter => &[
                LATENCY,
                &[("backoff", "full"), ("base", "1s"), ("cap", "10s")],
            ],
            Preset::LatencySpikeBudget => &[LATENCY, &[("budget", "bucket")]],
            Preset::FlakyNone => &[FLAKY, &[("attempts", "1")]],
            Preset::FlakyRetries => &[FLAKY],
            Preset::FlakyBudget => &[FLAKY, &[("budget", "bucket")]],
            Preset::FlakyBreaker => &[FLAKY, &[("breaker", "on")]],
            Preset::HedgeTail => &[HEDGED],
            Preset::PhaseSpike => &[PHASE, PHASE_SPIKE],
            Preset::PhaseCapacity => &[PHASE, PHASE_CAPACITY],
            Preset::TwinSpike => &[TWIN],
            Preset::OmissionClosed => &[OMISSION, &[("users", "2"), ("think", "130us")]],
            Preset::OmissionOpen => &[OMISSION, OMISSION_OPEN],
            Preset::OmissionRetry => &[OMISSION, OMISSION_OPEN, OMISSION_RETRY],
            Preset::HedgeOverload => &[
                HEDGED,
                &[("slow", "2"), ("slow_start", "5s"), ("slow_for", "10s")],
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_presets_sweep_is_the_preset_and_its_rows_are_checked() {
        for preset in [Preset::PhaseSpike, Preset::PhaseCapacity] {
            assert!(preset.has_sweep());
            let p: crate::Params = alloc::format!("preset={}", preset.name()).parse().unwrap();
            let s = p.sweep().unwrap();
            assert!(s.is_heatmap());
            let rows = p.sweep_rows(&s.axes).unwrap();
            assert!(rows.len() >= 200);
            // The link is the preset alone; a row's link is written key by key, without it.
            assert_eq!(
                p.to_string(),
                alloc::format!("v=2&preset={}", preset.name())
            );
            let row = rows[0].1.to_string();
            assert!(!row.contains("preset="), "{row}");
            let back: crate::Params = row.parse().unwrap();
            assert!(back.sweep().is_none());
            assert_eq!(back.sim, rows[0].1.sim);
        }
        assert!(!Preset::QueueSpikeNone.has_sweep());
    }

    #[test]
    fn settings_are_link_keys_each_once_per_group() {
        for preset in Preset::ALL {
            for group in preset.settings() {
                for (i, (k, _)) in group.iter().enumerate() {
                    assert!(
                        crate::all_keys().any(|n| n == *k) || k.starts_with("sweep."),
                        "{preset:?}: {k}"
                    );
                    assert!(
                        group[i + 1..].iter().all(|(o, _)| o != k),
                        "{preset:?}: {k} twice"
                    );
                }
            }
        }
    }
}
