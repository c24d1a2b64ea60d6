//! What the simulation's settings are made of: the scenario kinds, the outage and breaker
//! settings, and the caps that bound a run. Plain data, below both the key table and the
//! scenarios' settings, so neither imports the other's file.

use crate::retry::time::Micros;

/// Which system a run simulates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum ScenarioKind {
    /// Open-loop arrivals against a server with a capacity and an outage window.
    Outage,
    /// `clients` requests all at t = 0 against a server with a capacity per tick.
    Burst,
    /// The 2015 study: clients updating one row with optimistic concurrency.
    Occ,
    /// A stack of layers that each retry, over a failing bottom dependency.
    Layers,
    /// A charge endpoint that commits and then loses the response.
    Lost,
}

impl ScenarioKind {
    /// Every scenario.
    pub const ALL: [ScenarioKind; 5] = [
        ScenarioKind::Outage,
        ScenarioKind::Burst,
        ScenarioKind::Occ,
        ScenarioKind::Layers,
        ScenarioKind::Lost,
    ];

    /// The link name.
    pub const fn name(self) -> &'static str {
        match self {
            ScenarioKind::Outage => "outage",
            ScenarioKind::Burst => "burst",
            ScenarioKind::Occ => "occ",
            ScenarioKind::Layers => "layers",
            ScenarioKind::Lost => "lost",
        }
    }
}

/// How an outage fails attempts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum OutageKind {
    /// The load balancer answers 503 at once (no server work).
    Status503,
    /// Connections time out: the client waits its whole attempt timeout.
    ConnectTimeout,
}

impl OutageKind {
    /// Every kind, in the `outage_kind` key's order.
    pub const ALL: [OutageKind; 2] = [OutageKind::Status503, OutageKind::ConnectTimeout];

    /// The link name.
    pub const fn name(self) -> &'static str {
        match self {
            OutageKind::Status503 => "503",
            OutageKind::ConnectTimeout => "connect_timeout",
        }
    }
}

/// How the server of `outage` and `burst` serves attempts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ServerKind {
    /// Capacity per tick, with refusals that cost a share of a slot.
    #[default]
    Tick,
    /// `workers` serving a bounded queue; answers later than the caller's timeout are wasted.
    Queue,
    /// Every attempt fails on its own with probability `fail`, whatever the load.
    Flaky,
}

impl ServerKind {
    /// Every server, in the `server` key's order.
    pub const ALL: [ServerKind; 3] = [ServerKind::Tick, ServerKind::Queue, ServerKind::Flaky];

    /// The link name.
    pub const fn name(self) -> &'static str {
        match self {
            ServerKind::Tick => "tick",
            ServerKind::Queue => "queue",
            ServerKind::Flaky => "flaky",
        }
    }
}

/// Which engine runs a storm (`outage`, `burst`): every request as its own events, or counts of
/// requests stepped a tick at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Engine {
    /// The per-request engine where it finishes in about a second, the population engine
    /// above (where it runs the link).
    #[default]
    Auto,
    /// Every request its own events (`sim/storm.rs`).
    Request,
    /// Counts of requests by attempt and start, stepped a tick at a time
    /// (`sim/storm/population.rs`).
    Population,
}

impl Engine {
    /// Every engine, in the `engine` key's order.
    pub const ALL: [Engine; 3] = [Engine::Auto, Engine::Request, Engine::Population];

    /// The link name.
    pub const fn name(self) -> &'static str {
        match self {
            Engine::Auto => "auto",
            Engine::Request => "request",
            Engine::Population => "population",
        }
    }
}

/// The order a queue serves its waiting requests in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Discipline {
    /// Oldest first.
    #[default]
    Fifo,
    /// Newest first.
    Lifo,
}

impl Discipline {
    /// Every discipline, in the `discipline` key's order.
    pub const ALL: [Discipline; 2] = [Discipline::Fifo, Discipline::Lifo];

    /// The link name.
    pub const fn name(self) -> &'static str {
        match self {
            Discipline::Fifo => "fifo",
            Discipline::Lifo => "lifo",
        }
    }
}

/// The distribution of a service time around its mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ServiceDist {
    /// Always the mean.
    #[default]
    Const,
    /// Exponential (a memoryless server, as in M/M/c).
    Exp,
    /// Lognormal with coefficient of variation `service_cv`.
    Lognormal,
    /// Two values: `service` most of the time, `service_tail` with probability
    /// `service_tail_p` (a bimodal service: a hiccup, a cold cache, a pause).
    Mix,
}

impl ServiceDist {
    /// Every distribution, in the `service_dist` key's order.
    pub const ALL: [ServiceDist; 4] = [
        ServiceDist::Const,
        ServiceDist::Exp,
        ServiceDist::Lognormal,
        ServiceDist::Mix,
    ];

    /// The link name.
    pub const fn name(self) -> &'static str {
        match self {
            ServiceDist::Const => "const",
            ServiceDist::Exp => "exp",
            ServiceDist::Lognormal => "lognormal",
            ServiceDist::Mix => "mix",
        }
    }
}

/// Hedging (`hedge=on`), as gRPC's A6 proposal defines it: the first attempt goes at once and
/// each later one `delay` after the one before while no answer has come, up to `max` attempts
/// in all; a non-fatal failure sends the next one at once; the first success wins and the
/// others are cancelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hedge {
    /// Whether requests hedge (`hedge=on`); the details below are kept while it is off.
    pub on: bool,
    /// The wait before each further attempt while none has answered.
    pub delay: Micros,
    /// Attempts in all, the first included, in [2, `caps::HEDGE_ATTEMPTS`].
    pub max: u32,
}

impl Default for Hedge {
    fn default() -> Self {
        Hedge {
            on: false,
            delay: Micros::from_millis(10),
            max: 2,
        }
    }
}

/// Circuit breaker settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct BreakerConfig {
    /// The sliding window over which calls and failures are counted.
    pub window: Micros,
    /// Opens when failures reach this share of calls, in percent.
    pub failure_percent: u32,
    /// ... and at least this many calls were seen in the window.
    pub min_calls: u32,
    /// How long it stays open before letting probes through.
    pub open_for: Micros,
    /// Probes allowed while half-open; all must succeed to close.
    pub probes: u32,
}

impl Default for BreakerConfig {
    fn default() -> Self {
        BreakerConfig {
            window: Micros::from_secs(10),
            failure_percent: 50,
            min_calls: 20,
            open_for: Micros::from_secs(5),
            probes: 3,
        }
    }
}

/// Caps that keep a run bounded (checked before it starts).
pub mod caps {
    /// Most original requests in one run (the attempts and the requests in flight are what
    /// bound a run's time and memory: [`ATTEMPTS`], [`IN_FLIGHT`]).
    pub const ORIGINALS: u64 = 10_000_000;
    /// Most attempts a run (all its repetitions) can make, by the estimate before it starts
    /// (requests x the most attempts one request can make): about 17 s natively.
    pub const ATTEMPTS: u64 = 250_000_000;
    /// Most requests in flight at once, by the estimate before it starts: about 170 MB.
    pub const IN_FLIGHT: u64 = 2_000_000;
    /// Longest `duration`.
    pub const DURATION_S: u64 = 3600;
    /// Most `runs`.
    pub const RUNS: u32 = 1000;
    /// The highest `replicate`: the number of the first run a link runs.
    pub const REPLICATE: u32 = 1_000_000;
    /// Most OCC clients.
    pub const OCC_CLIENTS: u32 = 1000;
    /// Most layers (the same limit as `retrylab amplify`).
    pub const LAYERS: usize = 8;
    /// Most bottom calls one layered request may make (the product of the attempts).
    pub const LAYER_PRODUCT: u64 = 1_000_000;
    /// Most original requests over all runs (`runs` x requests, or x `clients` for `burst`).
    pub const ALL_RUNS_ORIGINALS: u64 = 20_000_000;
    /// Most closed-loop `users`.
    pub const USERS: u32 = 100_000;
    /// Most queue `workers`.
    pub const WORKERS: u32 = 100_000;
    /// Longest queue (`queue_limit`).
    pub const QUEUE_LIMIT: u32 = 1_000_000;
    /// Most `occ` work over all runs: `clients`^2 x `runs`.
    pub const OCC_WORK: u64 = 400_000_000;
    /// Most bottom calls over all runs of `layers`: `requests` x `runs` x the layer product.
    pub const LAYER_CALLS: u64 = 50_000_000;
    /// Most original requests of one run the population engine takes (its memory follows its
    /// cohorts, not its requests: a billion fits in a few MB).
    pub const POPULATION_ORIGINALS: u64 = 1_000_000_000;
    /// Most original requests over all runs of the population engine.
    pub const POPULATION_ALL_RUNS: u64 = 10_000_000_000;
    /// Most attempts of one hedged request (gRPC A6 caps `maxAttempts` at 5).
    pub const HEDGE_ATTEMPTS: u32 = 5;
}
