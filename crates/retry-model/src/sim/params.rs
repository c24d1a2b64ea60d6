//! The simulation's link keys (see `docs/link.md`, "Simulation keys").

use crate::error::ConfigError;
use crate::text::{decimal as fmt_scaled, dur_in as dur, int, scaled};
use crate::time::Micros;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

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
    /// Most layers.
    pub const LAYERS: usize = 8;
    /// Most bottom calls one layered request may make (the product of the attempts).
    pub const LAYER_PRODUCT: u64 = 1_000_000;
}

/// Every simulation setting.
#[derive(Clone, Debug, PartialEq)]
pub struct SimParams {
    /// The scenario; `None` for no simulation.
    pub scenario: Option<ScenarioKind>,
    /// Arrivals per second, in thousandths.
    pub rate_milli: u64,
    /// Poisson (true) or evenly spaced (false) arrivals.
    pub poisson: bool,
    /// How long arrivals keep coming.
    pub duration: Micros,
    /// Server capacity per second, in thousandths of an attempt.
    pub capacity_milli: u64,
    /// The server's accounting tick.
    pub tick: Micros,
    /// Capacity one rejected attempt uses, in thousandths of a slot (0 to 1000).
    pub reject_cost_milli: u64,
    /// When the outage starts.
    pub outage_start: Micros,
    /// How long it lasts (0: no outage).
    pub outage: Micros,
    /// How the outage fails attempts.
    pub outage_kind: OutageKind,
    /// One-way network delay (the mean, for `occ`).
    pub net: Micros,
    /// Standard deviation of the network delay (`occ` only).
    pub net_sd: Micros,
    /// Repetitions, each from its own stream of the seed; summaries are averaged.
    pub runs: u32,
    /// Bin width of the series.
    pub bin: Micros,
    /// A time at which to report attempts per second.
    pub at: Option<Micros>,
    /// Tenants (for `budget_scope=tenant`).
    pub tenants: u32,
    /// The circuit breaker, if any.
    pub breaker: Option<BreakerConfig>,
    /// Attempts per layer, top first (`layers`).
    pub layers: Vec<u32>,
    /// Probability that a bottom call fails, in millionths (`layers`).
    pub p_ppm: u32,
    /// User requests (`layers`).
    pub requests: u32,
    /// Probability that a committed charge's response is lost, in millionths (`lost`).
    pub lose_ppm: u32,
    /// How long the charge endpoint works before committing (`lost`).
    pub service: Micros,
}

impl Default for SimParams {
    fn default() -> Self {
        SimParams {
            scenario: None,
            rate_milli: 40_000,
            poisson: false,
            duration: Micros::from_secs(60),
            capacity_milli: 50_000,
            tick: Micros::from_millis(10),
            reject_cost_milli: 100,
            outage_start: Micros::from_secs(2),
            outage: Micros::from_secs(5),
            outage_kind: OutageKind::Status503,
            net: Micros::from_millis(1),
            net_sd: Micros::ZERO,
            runs: 1,
            bin: Micros::from_secs(1),
            at: None,
            tenants: 1,
            breaker: None,
            layers: vec![3, 3, 3],
            p_ppm: 1_000_000,
            requests: 1000,
            lose_ppm: 100_000,
            service: Micros::from_millis(50),
        }
    }
}

/// The simulation keys, in the order a link writes them.
pub const SIM_KEYS: [&str; 27] = [
    "scenario",
    "rate",
    "arrivals",
    "duration",
    "capacity",
    "tick",
    "reject_cost",
    "outage_start",
    "outage",
    "outage_kind",
    "net",
    "net_sd",
    "runs",
    "bin",
    "at",
    "tenants",
    "breaker",
    "breaker_window",
    "breaker_failures",
    "breaker_min_calls",
    "breaker_open",
    "breaker_probes",
    "layers",
    "p",
    "requests",
    "lose",
    "service",
];

impl SimParams {
    /// Sets one simulation key.
    pub fn set(&mut self, key: &str, v: &str) -> Result<(), ConfigError> {
        let day = Micros::MAX_LINK;
        match key {
            "scenario" => {
                self.scenario = if v == "none" {
                    None
                } else {
                    Some(ScenarioKind::ALL.into_iter().find(|s| s.name() == v).ok_or_else(|| {
                        ConfigError::new("scenario", format!("unknown scenario '{v}': accepted none, outage, burst, occ, layers, lost"))
                    })?)
                }
            }
            "rate" => {
                self.rate_milli = scaled(
                    "rate",
                    v,
                    1000,
                    1,
                    100_000_000,
                    "a rate per second in [0.001, 100000] with at most 3 decimals",
                )?
            }
            "arrivals" => {
                self.poisson = match v {
                    "constant" => false,
                    "poisson" => true,
                    _ => {
                        return Err(ConfigError::new(
                            "arrivals",
                            format!("unknown arrivals '{v}': accepted constant, poisson"),
                        ))
                    }
                }
            }
            "duration" => {
                self.duration = dur(
                    "duration",
                    v,
                    Micros::from_millis(1),
                    Micros::from_secs(caps::DURATION_S),
                )?
            }
            "capacity" => {
                self.capacity_milli = scaled(
                    "capacity",
                    v,
                    1000,
                    1,
                    100_000_000,
                    "attempts per second in [0.001, 100000] with at most 3 decimals",
                )?
            }
            "tick" => self.tick = dur("tick", v, Micros(100), Micros::from_secs(10))?,
            "reject_cost" => {
                self.reject_cost_milli = scaled(
                    "reject_cost",
                    v,
                    1000,
                    0,
                    1000,
                    "a fraction of a slot in [0, 1] with at most 3 decimals",
                )?
            }
            "outage_start" => self.outage_start = dur("outage_start", v, Micros::ZERO, day)?,
            "outage" => self.outage = dur("outage", v, Micros::ZERO, day)?,
            "outage_kind" => {
                self.outage_kind = match v {
                    "503" => OutageKind::Status503,
                    "connect_timeout" => OutageKind::ConnectTimeout,
                    _ => {
                        return Err(ConfigError::new(
                            "outage_kind",
                            format!("unknown kind '{v}': accepted 503, connect_timeout"),
                        ))
                    }
                }
            }
            "net" => self.net = dur("net", v, Micros::ZERO, Micros::from_secs(10))?,
            "net_sd" => self.net_sd = dur("net_sd", v, Micros::ZERO, Micros::from_secs(10))?,
            "runs" => self.runs = int("runs", v, 1, u64::from(caps::RUNS))? as u32,
            "bin" => self.bin = dur("bin", v, Micros::from_millis(1), Micros::from_secs(3600))?,
            "at" => {
                self.at = if v == "none" {
                    None
                } else {
                    Some(dur("at", v, Micros::ZERO, day)?)
                }
            }
            "tenants" => self.tenants = int("tenants", v, 1, 10_000)? as u32,
            "breaker" => {
                self.breaker = match v {
                    "off" => None,
                    "on" => Some(self.breaker.unwrap_or_default()),
                    _ => {
                        return Err(ConfigError::new(
                            "breaker",
                            format!("'{v}' is not on or off"),
                        ))
                    }
                }
            }
            "breaker_window" | "breaker_failures" | "breaker_min_calls" | "breaker_open"
            | "breaker_probes" => {
                let field = SIM_KEYS
                    .iter()
                    .copied()
                    .find(|k| *k == key)
                    .unwrap_or("breaker");
                let Some(b) = self.breaker.as_mut() else {
                    return Err(ConfigError::new(field, "applies only with breaker=on"));
                };
                match key {
                    "breaker_window" => {
                        b.window = dur(field, v, Micros::from_secs(1), Micros::from_secs(600))?
                    }
                    "breaker_failures" => b.failure_percent = int(field, v, 1, 100)? as u32,
                    "breaker_min_calls" => b.min_calls = int(field, v, 1, 1_000_000)? as u32,
                    "breaker_open" => {
                        b.open_for = dur(field, v, Micros::from_millis(1), Micros::from_secs(3600))?
                    }
                    _ => b.probes = int(field, v, 1, 1000)? as u32,
                }
            }
            "layers" => {
                let list: Vec<u32> = v
                    .split(',')
                    .map(|k| k.trim().parse::<u32>().ok().filter(|k| (1..=100).contains(k)))
                    .collect::<Option<_>>()
                    .ok_or_else(|| ConfigError::new("layers", format!("'{v}' is not a comma-separated list of attempts per layer in [1, 100]")))?;
                if list.is_empty() || list.len() > caps::LAYERS {
                    return Err(ConfigError::new(
                        "layers",
                        format!("give 1 to {} layers", caps::LAYERS),
                    ));
                }
                let product = list
                    .iter()
                    .fold(1u64, |a, k| a.saturating_mul(u64::from(*k)));
                if product > caps::LAYER_PRODUCT {
                    return Err(ConfigError::new(
                        "layers",
                        format!(
                            "the product of the attempts ({product}) exceeds {}",
                            caps::LAYER_PRODUCT
                        ),
                    ));
                }
                self.layers = list;
            }
            "p" => {
                self.p_ppm = scaled(
                    "p",
                    v,
                    1_000_000,
                    0,
                    1_000_000,
                    "a probability in [0, 1] with at most 6 decimals",
                )? as u32
            }
            "requests" => self.requests = int("requests", v, 1, 1_000_000)? as u32,
            "lose" => {
                self.lose_ppm = scaled(
                    "lose",
                    v,
                    1_000_000,
                    0,
                    1_000_000,
                    "a probability in [0, 1] with at most 6 decimals",
                )? as u32
            }
            "service" => self.service = dur("service", v, Micros::ZERO, Micros::from_secs(60))?,
            _ => {
                return Err(ConfigError::new(
                    "link",
                    format!("unknown key '{key}': see docs/link.md for the accepted keys"),
                ))
            }
        }
        Ok(())
    }

    /// One simulation key's link text, or `None` when it does not apply.
    pub fn get(&self, key: &str) -> Option<String> {
        let b = self.breaker;
        Some(match key {
            "scenario" => self.scenario.map_or("none", |s| s.name()).to_string(),
            "rate" => fmt_scaled(self.rate_milli, 1000),
            "arrivals" => (if self.poisson { "poisson" } else { "constant" }).to_string(),
            "duration" => self.duration.to_string(),
            "capacity" => fmt_scaled(self.capacity_milli, 1000),
            "tick" => self.tick.to_string(),
            "reject_cost" => fmt_scaled(self.reject_cost_milli, 1000),
            "outage_start" => self.outage_start.to_string(),
            "outage" => self.outage.to_string(),
            "outage_kind" => (match self.outage_kind {
                OutageKind::Status503 => "503",
                OutageKind::ConnectTimeout => "connect_timeout",
            })
            .to_string(),
            "net" => self.net.to_string(),
            "net_sd" => self.net_sd.to_string(),
            "runs" => self.runs.to_string(),
            "bin" => self.bin.to_string(),
            "at" => self
                .at
                .map_or_else(|| "none".to_string(), |a| a.to_string()),
            "tenants" => self.tenants.to_string(),
            "breaker" => (if b.is_some() { "on" } else { "off" }).to_string(),
            "breaker_window" => b?.window.to_string(),
            "breaker_failures" => b?.failure_percent.to_string(),
            "breaker_min_calls" => b?.min_calls.to_string(),
            "breaker_open" => b?.open_for.to_string(),
            "breaker_probes" => b?.probes.to_string(),
            "layers" => self
                .layers
                .iter()
                .map(|k| k.to_string())
                .collect::<Vec<_>>()
                .join(","),
            "p" => fmt_scaled(u64::from(self.p_ppm), 1_000_000),
            "requests" => self.requests.to_string(),
            "lose" => fmt_scaled(u64::from(self.lose_ppm), 1_000_000),
            "service" => self.service.to_string(),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_round_trips() {
        let mut p = SimParams::default();
        p.set("breaker", "on").unwrap();
        for key in SIM_KEYS {
            let text = p.get(key).unwrap();
            let mut q = p.clone();
            q.set(key, &text)
                .unwrap_or_else(|e| panic!("{key}={text}: {e}"));
            assert_eq!(q, p, "{key}");
        }
    }

    #[test]
    fn errors_name_the_key() {
        let mut p = SimParams::default();
        for (k, v) in [
            ("scenario", "storm"),
            ("rate", "-1"),
            ("rate", "0"),
            ("duration", "2h"),
            ("tick", "0ms"),
            ("reject_cost", "1.5"),
            ("runs", "0"),
            ("runs", "1001"),
            ("layers", "3,0"),
            ("layers", "100,100,100,100"),
            ("p", "1.2"),
            ("breaker_open", "5s"),
            ("outage_kind", "500"),
        ] {
            assert_eq!(p.set(k, v).unwrap_err().field, k, "{k}={v}");
        }
    }
}
