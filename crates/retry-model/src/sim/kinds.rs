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
    /// Most original requests in one run.
    pub const ORIGINALS: u64 = 2_000_000;
    /// Longest `duration`.
    pub const DURATION_S: u64 = 3600;
    /// Most `runs`.
    pub const RUNS: u32 = 1000;
    /// Most OCC clients.
    pub const OCC_CLIENTS: u32 = 1000;
    /// Most layers (the same limit as `retrylab amplify`).
    pub const LAYERS: usize = 8;
    /// Most bottom calls one layered request may make (the product of the attempts).
    pub const LAYER_PRODUCT: u64 = 1_000_000;
    /// Most original requests over all runs (`runs` x requests, or x `clients` for `burst`).
    pub const ALL_RUNS_ORIGINALS: u64 = 10 * ORIGINALS;
    /// Most `occ` work over all runs: `clients`^2 x `runs`.
    pub const OCC_WORK: u64 = 400_000_000;
    /// Most bottom calls over all runs of `layers`: `requests` x `runs` x the layer product.
    pub const LAYER_CALLS: u64 = 50_000_000;
}
