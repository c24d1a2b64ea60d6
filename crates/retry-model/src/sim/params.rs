//! The simulation's link keys (see `docs/link.md`, "Simulation keys").

use super::settings::{Scenario, Series};
use crate::error::ConfigError;
use crate::link::keys::Key;
use crate::time::Micros;
use alloc::string::{String, ToString};

/// Which system a run simulates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
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
    pub const LAYERS: usize = crate::amplify::MAX_LAYERS;
    /// Most bottom calls one layered request may make (the product of the attempts).
    pub const LAYER_PRODUCT: u64 = 1_000_000;
    /// Most original requests over all runs (`runs` x requests, or x `clients` for `burst`).
    pub const ALL_RUNS_ORIGINALS: u64 = 10 * ORIGINALS;
    /// Most `occ` work over all runs: `clients`^2 x `runs`.
    pub const OCC_WORK: u64 = 400_000_000;
    /// Most bottom calls over all runs of `layers`: `requests` x `runs` x the layer product.
    pub const LAYER_CALLS: u64 = 50_000_000;
}

/// The simulation's part of a link: the scenario, with the settings it owns, and the
/// repetitions. A key belongs to the scenarios whose settings hold it (see
/// [`super::settings`]), so a key set for another scenario has nowhere to go and is refused.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SimParams {
    /// The scenario and its settings; `None` for no simulation.
    pub scenario: Option<Scenario>,
    /// Repetitions, each from its own stream of the seed; summaries are averaged. In
    /// [1, `caps::RUNS`].
    pub runs: Runs,
}

/// Repetitions of a run, in [1, `caps::RUNS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Runs(pub u32);

impl Default for Runs {
    fn default() -> Self {
        Runs(1)
    }
}

impl SimParams {
    /// The scenario's kind.
    pub fn kind(&self) -> Option<ScenarioKind> {
        self.scenario.as_ref().map(Scenario::kind)
    }

    /// Sets one simulation key; its row in the key table checks the value. A key that the
    /// link's scenario does not own is refused, naming where it applies.
    pub fn set(&mut self, k: &'static Key, v: &str) -> Result<(), ConfigError> {
        match k.name {
            "scenario" => {
                let i = k.choice(v)?;
                let kind = i.checked_sub(1).map(|i| ScenarioKind::ALL[i]);
                if kind != self.kind() {
                    self.scenario = kind.map(Scenario::new);
                }
                Ok(())
            }
            "runs" if self.scenario.is_some() => {
                self.runs = Runs(k.int32(v)?);
                Ok(())
            }
            _ => {
                let kind = self.kind();
                self.scenario
                    .as_mut()
                    .and_then(|s| s.set(k, v))
                    .unwrap_or_else(|| Err(k.not_here(kind)))
            }
        }
    }

    /// One simulation key's link text, or `None` when the link's scenario does not own it.
    pub fn get(&self, key: &str) -> Option<String> {
        match key {
            "scenario" => Some(self.kind().map_or("none", |s| s.name()).to_string()),
            "runs" => self.scenario.as_ref().map(|_| self.runs.0.to_string()),
            _ => self.scenario.as_ref()?.get(key),
        }
    }

    /// The bin width and `at` of a scenario that keeps a time series.
    pub fn series(&self) -> Option<&Series> {
        self.scenario.as_ref()?.series()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::keys::{is_sim, row, TABLE};

    #[test]
    fn every_key_round_trips_in_every_scenario_that_owns_it() {
        for kind in ScenarioKind::ALL {
            let mut p = SimParams::default();
            p.set(row("scenario"), kind.name()).unwrap();
            let _ = p.set(row("breaker"), "on");
            for k in TABLE.iter().filter(|k| is_sim(k)) {
                let Some(text) = p.get(k.name) else {
                    assert_eq!(
                        p.set(k, "1").unwrap_err().rule,
                        k.not_here(Some(kind)).rule,
                        "{}",
                        k.name
                    );
                    continue;
                };
                let mut q = p.clone();
                q.set(k, &text)
                    .unwrap_or_else(|e| panic!("{}={text}: {e}", k.name));
                assert_eq!(q, p, "{}", k.name);
            }
        }
    }

    #[test]
    fn errors_name_the_key() {
        let mut p = SimParams::default();
        p.set(row("scenario"), "outage").unwrap();
        for (k, v) in [
            ("scenario", "storm"),
            ("rate", "-1"),
            ("rate", "0"),
            ("duration", "2h"),
            ("tick", "0ms"),
            ("reject_cost", "1.5"),
            ("runs", "0"),
            ("runs", "1001"),
            ("breaker_open", "5s"),
            ("outage_kind", "500"),
        ] {
            assert_eq!(p.set(row(k), v).unwrap_err().field, k, "{k}={v}");
        }
        p.set(row("scenario"), "layers").unwrap();
        for (k, v) in [
            ("layers", "3,0"),
            ("layers", "100,100,100,100"),
            ("p", "1.2"),
        ] {
            assert_eq!(p.set(row(k), v).unwrap_err().field, k, "{k}={v}");
        }
    }
}
