//! The simulation's link keys (see `docs/link.md`, "Simulation keys").

use crate::error::ConfigError;
use crate::link::keys::Key;
use crate::text::decimal as fmt_scaled;
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

/// Attempts per layer: 1 to [`caps::LAYERS`] numbers in [1, 100] whose product is at most
/// [`caps::LAYER_PRODUCT`].
fn parse_layers(k: &Key, v: &str) -> Result<Vec<u32>, ConfigError> {
    let list: Vec<u32> = v
        .split(',')
        .map(|n| {
            n.trim()
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=100).contains(n))
        })
        .collect::<Option<_>>()
        .ok_or_else(|| k.error(format!("'{v}' is not {}", k.domain.accepted())))?;
    if list.is_empty() || list.len() > caps::LAYERS {
        return Err(k.error(format!(
            "give 1 to {} layers, got {}",
            caps::LAYERS,
            list.len()
        )));
    }
    // At most 8 factors of at most 100: the product fits a u64 (1e16).
    let product: u64 = list.iter().map(|n| u64::from(*n)).product();
    if product > caps::LAYER_PRODUCT {
        return Err(k.error(format!(
            "the product of the attempts ({product}) exceeds {}",
            caps::LAYER_PRODUCT
        )));
    }
    Ok(list)
}

impl SimParams {
    /// Sets one simulation key; its row in the key table checks the value.
    pub fn set(&mut self, k: &'static Key, v: &str) -> Result<(), ConfigError> {
        match k.name {
            "scenario" => {
                let i = k.choice(v)?;
                self.scenario = i.checked_sub(1).map(|i| ScenarioKind::ALL[i]);
            }
            "rate" => self.rate_milli = k.dec(v)?,
            "arrivals" => self.poisson = k.choice(v)? == 1,
            "duration" => self.duration = k.dur(v)?,
            "capacity" => self.capacity_milli = k.dec(v)?,
            "tick" => self.tick = k.dur(v)?,
            "reject_cost" => self.reject_cost_milli = k.dec(v)?,
            "outage_start" => self.outage_start = k.dur(v)?,
            "outage" => self.outage = k.dur(v)?,
            "outage_kind" => {
                self.outage_kind =
                    [OutageKind::Status503, OutageKind::ConnectTimeout][k.choice(v)?]
            }
            "net" => self.net = k.dur(v)?,
            "net_sd" => self.net_sd = k.dur(v)?,
            "runs" => self.runs = k.int32(v)?,
            "bin" => self.bin = k.dur(v)?,
            "at" => self.at = k.opt_dur(v)?,
            "tenants" => self.tenants = k.int32(v)?,
            "breaker" => {
                self.breaker = if k.flag(v)? {
                    Some(self.breaker.unwrap_or_default())
                } else {
                    None
                }
            }
            "breaker_window" | "breaker_failures" | "breaker_min_calls" | "breaker_open"
            | "breaker_probes" => {
                let Some(b) = self.breaker.as_mut() else {
                    return Err(k.error("applies only with breaker=on"));
                };
                match k.name {
                    "breaker_window" => b.window = k.dur(v)?,
                    "breaker_failures" => b.failure_percent = k.int32(v)?,
                    "breaker_min_calls" => b.min_calls = k.int32(v)?,
                    "breaker_open" => b.open_for = k.dur(v)?,
                    _ => b.probes = k.int32(v)?,
                }
            }
            "layers" => self.layers = parse_layers(k, v)?,
            "p" => self.p_ppm = k.dec(v)? as u32,
            "requests" => self.requests = k.int32(v)?,
            "lose" => self.lose_ppm = k.dec(v)? as u32,
            "service" => self.service = k.dur(v)?,
            other => {
                return Err(ConfigError::new(
                    "link",
                    format!("'{other}' is not a simulation key"),
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
    use crate::link::keys::{is_sim, row, TABLE};

    #[test]
    fn every_key_round_trips() {
        let mut p = SimParams::default();
        p.set(row("breaker"), "on").unwrap();
        for k in TABLE.iter().filter(|k| is_sim(k)) {
            let text = p.get(k.name).unwrap();
            let mut q = p.clone();
            q.set(k, &text)
                .unwrap_or_else(|e| panic!("{}={text}: {e}", k.name));
            assert_eq!(q, p, "{}", k.name);
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
            assert_eq!(p.set(row(k), v).unwrap_err().field, k, "{k}={v}");
        }
    }
}
