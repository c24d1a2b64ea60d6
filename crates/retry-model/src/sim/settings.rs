//! Each scenario's own settings.
//!
//! Why a type per scenario? With one flat struct holding every scenario's fields, a link could set
//! the breaker in the idempotency lab and nothing would happen. Here a scenario's settings hold
//! only the keys it reads, so such a key has nowhere to go: `set` returns `None` and the link
//! refuses it, naming where it applies. The key table (`link::keys`) declares the same ownership
//! for the docs and the page; a test checks the two agree.
//!
//! ```
//! use retry_model::sim::Scenario;
//! use retry_model::Params;
//! let p: Params = "scenario=lost&lose=0.2".parse().unwrap();
//! let Some(Scenario::Lost(lost)) = &p.sim.scenario else { panic!() };
//! assert_eq!(lost.lose_ppm, 200_000);
//! ```

use super::kinds::{caps, BreakerConfig, OutageKind, ScenarioKind};
use crate::link::keys::Key;
use crate::retry::error::ConfigError;
use crate::retry::text::decimal;
use crate::retry::time::Micros;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

/// The result of setting a key on settings that may not own it: `None` when they do not.
type Owned = Option<Result<(), ConfigError>>;

/// A scenario with its settings.
#[derive(Clone, Debug, PartialEq)]
pub enum Scenario {
    /// Open-loop arrivals against a tick server with an outage window.
    Outage(Outage),
    /// `clients` requests all at t = 0 against a tick server.
    Burst(Burst),
    /// The 2015 study.
    Occ(Occ),
    /// Layers that each retry over a failing bottom dependency.
    Layers(Layers),
    /// A charge endpoint that loses answers.
    Lost(Lost),
}

impl Scenario {
    /// The scenario of this kind with its default settings.
    pub fn new(kind: ScenarioKind) -> Scenario {
        match kind {
            ScenarioKind::Outage => Scenario::Outage(Outage::default()),
            ScenarioKind::Burst => Scenario::Burst(Burst::default()),
            ScenarioKind::Occ => Scenario::Occ(Occ::default()),
            ScenarioKind::Layers => Scenario::Layers(Layers::default()),
            ScenarioKind::Lost => Scenario::Lost(Lost::default()),
        }
    }

    /// Its kind.
    pub fn kind(&self) -> ScenarioKind {
        match self {
            Scenario::Outage(_) => ScenarioKind::Outage,
            Scenario::Burst(_) => ScenarioKind::Burst,
            Scenario::Occ(_) => ScenarioKind::Occ,
            Scenario::Layers(_) => ScenarioKind::Layers,
            Scenario::Lost(_) => ScenarioKind::Lost,
        }
    }

    /// Sets a key it owns; `None` when it does not own the key.
    pub fn set(&mut self, k: &'static Key, v: &str) -> Owned {
        match self {
            Scenario::Outage(s) => s.set(k, v),
            Scenario::Burst(s) => s.server.set(k, v),
            Scenario::Occ(s) => s.set(k, v),
            Scenario::Layers(s) => s.set(k, v),
            Scenario::Lost(s) => s.set(k, v),
        }
    }

    /// A key's link text; `None` when it does not own the key.
    pub fn get(&self, key: &str) -> Option<String> {
        match self {
            Scenario::Outage(s) => s.get(key),
            Scenario::Burst(s) => s.server.get(key),
            Scenario::Occ(s) => s.get(key),
            Scenario::Layers(s) => s.get(key),
            Scenario::Lost(s) => s.get(key),
        }
    }

    /// The time-series settings, for the scenarios that keep one.
    pub fn series(&self) -> Option<&Series> {
        match self {
            Scenario::Outage(s) => Some(&s.server.series),
            Scenario::Burst(s) => Some(&s.server.series),
            Scenario::Occ(_) => None,
            Scenario::Layers(s) => Some(&s.series),
            Scenario::Lost(s) => Some(&s.series),
        }
    }
}

/// The time series: bin width and the time to report attempts per second at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Series {
    /// Bin width of the series.
    pub bin: Micros,
    /// A time at which to report attempts per second.
    pub at: Option<Micros>,
}

impl Default for Series {
    fn default() -> Self {
        Series {
            bin: Micros::from_secs(1),
            at: None,
        }
    }
}

impl Series {
    fn set(&mut self, k: &Key, v: &str) -> Owned {
        Some(match k.name {
            "bin" => k.dur(v).map(|d| self.bin = d),
            "at" => k.opt_dur(v).map(|d| self.at = d),
            _ => return None,
        })
    }

    fn get(&self, key: &str) -> Option<String> {
        Some(match key {
            "bin" => self.bin.to_string(),
            "at" => self
                .at
                .map_or_else(|| "none".to_string(), |a| a.to_string()),
            _ => return None,
        })
    }
}

/// The tick server of `outage` and `burst`, with its network, tenants and breaker.
#[derive(Clone, Debug, PartialEq)]
pub struct Server {
    /// Capacity per second, in thousandths of an attempt.
    pub capacity_milli: u64,
    /// The accounting tick.
    pub tick: Micros,
    /// Capacity one rejected attempt uses, in thousandths of a slot, in [0, 1000].
    pub reject_cost_milli: u64,
    /// One-way network delay.
    pub net: Micros,
    /// Tenants requests are spread over (for `budget_scope=tenant`).
    pub tenants: u32,
    /// The circuit breaker, if any.
    pub breaker: Option<BreakerConfig>,
    /// The time series.
    pub series: Series,
}

impl Default for Server {
    fn default() -> Self {
        Server {
            capacity_milli: 50_000,
            tick: Micros::from_millis(10),
            reject_cost_milli: 100,
            net: Micros::from_millis(1),
            tenants: 1,
            breaker: None,
            series: Series::default(),
        }
    }
}

impl Server {
    fn set(&mut self, k: &Key, v: &str) -> Owned {
        if let Some(r) = self.series.set(k, v) {
            return Some(r);
        }
        Some(match k.name {
            "capacity" => k.dec(v).map(|n| self.capacity_milli = n),
            "tick" => k.dur(v).map(|d| self.tick = d),
            "reject_cost" => k.dec(v).map(|n| self.reject_cost_milli = n),
            "net" => k.dur(v).map(|d| self.net = d),
            "tenants" => k.int32(v).map(|n| self.tenants = n),
            "breaker" => k
                .flag(v)
                .map(|on| self.breaker = on.then(|| self.breaker.unwrap_or_default())),
            "breaker_window" | "breaker_failures" | "breaker_min_calls" | "breaker_open"
            | "breaker_probes" => {
                let Some(b) = self.breaker.as_mut() else {
                    return Some(Err(k.error("applies only with breaker=on")));
                };
                match k.name {
                    "breaker_window" => k.dur(v).map(|d| b.window = d),
                    "breaker_failures" => k.int32(v).map(|n| b.failure_percent = n),
                    "breaker_min_calls" => k.int32(v).map(|n| b.min_calls = n),
                    "breaker_open" => k.dur(v).map(|d| b.open_for = d),
                    _ => k.int32(v).map(|n| b.probes = n),
                }
            }
            _ => return None,
        })
    }

    fn get(&self, key: &str) -> Option<String> {
        if let Some(t) = self.series.get(key) {
            return Some(t);
        }
        let b = self.breaker;
        Some(match key {
            "capacity" => decimal(self.capacity_milli, 1000),
            "tick" => self.tick.to_string(),
            "reject_cost" => decimal(self.reject_cost_milli, 1000),
            "net" => self.net.to_string(),
            "tenants" => self.tenants.to_string(),
            "breaker" => (if b.is_some() { "on" } else { "off" }).to_string(),
            "breaker_window" => b?.window.to_string(),
            "breaker_failures" => b?.failure_percent.to_string(),
            "breaker_min_calls" => b?.min_calls.to_string(),
            "breaker_open" => b?.open_for.to_string(),
            "breaker_probes" => b?.probes.to_string(),
            _ => return None,
        })
    }
}

/// Arrivals at a rate for a duration: `outage` and `lost`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrivals {
    /// Arrivals per second, in thousandths.
    pub rate_milli: u64,
    /// How long arrivals keep coming.
    pub duration: Micros,
}

impl Default for Arrivals {
    fn default() -> Self {
        Arrivals {
            rate_milli: 40_000,
            duration: Micros::from_secs(60),
        }
    }
}

impl Arrivals {
    /// Originals a run will make (constant arrivals; Poisson makes about as many).
    pub fn planned(&self) -> u64 {
        (u128::from(self.rate_milli) * u128::from(self.duration.0) / 1_000_000_000) as u64
    }

    fn set(&mut self, k: &Key, v: &str) -> Owned {
        Some(match k.name {
            "rate" => k.dec(v).map(|n| self.rate_milli = n),
            "duration" => k.dur(v).map(|d| self.duration = d),
            _ => return None,
        })
    }

    fn get(&self, key: &str) -> Option<String> {
        Some(match key {
            "rate" => decimal(self.rate_milli, 1000),
            "duration" => self.duration.to_string(),
            _ => return None,
        })
    }
}

/// `outage`: arrivals against the tick server, which fails every attempt in a window.
#[derive(Clone, Debug, PartialEq)]
pub struct Outage {
    /// The server.
    pub server: Server,
    /// The arrivals.
    pub arrivals: Arrivals,
    /// Poisson (true) or evenly spaced (false) arrivals.
    pub poisson: bool,
    /// When the outage starts.
    pub outage_start: Micros,
    /// How long it lasts (0: no outage).
    pub outage: Micros,
    /// How the outage fails attempts.
    pub outage_kind: OutageKind,
}

impl Default for Outage {
    fn default() -> Self {
        Outage {
            server: Server::default(),
            arrivals: Arrivals::default(),
            poisson: false,
            outage_start: Micros::from_secs(2),
            outage: Micros::from_secs(5),
            outage_kind: OutageKind::Status503,
        }
    }
}

impl Outage {
    fn set(&mut self, k: &'static Key, v: &str) -> Owned {
        if let Some(r) = self.server.set(k, v).or_else(|| self.arrivals.set(k, v)) {
            return Some(r);
        }
        Some(match k.name {
            "arrivals" => k.choice(v).map(|i| self.poisson = i == 1),
            "outage_start" => k.dur(v).map(|d| self.outage_start = d),
            "outage" => k.dur(v).map(|d| self.outage = d),
            "outage_kind" => k
                .choice(v)
                .map(|i| self.outage_kind = [OutageKind::Status503, OutageKind::ConnectTimeout][i]),
            _ => return None,
        })
    }

    fn get(&self, key: &str) -> Option<String> {
        if let Some(t) = self.server.get(key).or_else(|| self.arrivals.get(key)) {
            return Some(t);
        }
        Some(match key {
            "arrivals" => (if self.poisson { "poisson" } else { "constant" }).to_string(),
            "outage_start" => self.outage_start.to_string(),
            "outage" => self.outage.to_string(),
            "outage_kind" => (match self.outage_kind {
                OutageKind::Status503 => "503",
                OutageKind::ConnectTimeout => "connect_timeout",
            })
            .to_string(),
            _ => return None,
        })
    }
}

/// `burst`: `clients` requests at t = 0 against the tick server.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Burst {
    /// The server.
    pub server: Server,
}

/// `occ`: the 2015 study's network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occ {
    /// Mean one-way network delay.
    pub net: Micros,
    /// Its standard deviation (`|Normal(net, net_sd)|`).
    pub net_sd: Micros,
}

impl Default for Occ {
    fn default() -> Self {
        Occ {
            net: Micros::from_millis(1),
            net_sd: Micros::ZERO,
        }
    }
}

impl Occ {
    fn set(&mut self, k: &Key, v: &str) -> Owned {
        Some(match k.name {
            "net" => k.dur(v).map(|d| self.net = d),
            "net_sd" => k.dur(v).map(|d| self.net_sd = d),
            _ => return None,
        })
    }

    fn get(&self, key: &str) -> Option<String> {
        Some(match key {
            "net" => self.net.to_string(),
            "net_sd" => self.net_sd.to_string(),
            _ => return None,
        })
    }
}

/// `layers`: the stack and its bottom dependency.
#[derive(Clone, Debug, PartialEq)]
pub struct Layers {
    /// Attempts per layer, top first.
    pub layers: Vec<u32>,
    /// Probability that a bottom call fails, in millionths.
    pub p_ppm: u32,
    /// User requests.
    pub requests: u32,
    /// Their rate (their spacing), in thousandths per second.
    pub rate_milli: u64,
    /// One-way network delay to the bottom dependency.
    pub net: Micros,
    /// The time series.
    pub series: Series,
}

impl Default for Layers {
    fn default() -> Self {
        Layers {
            layers: vec![3, 3, 3],
            p_ppm: 1_000_000,
            requests: 1000,
            rate_milli: 40_000,
            net: Micros::from_millis(1),
            series: Series::default(),
        }
    }
}

impl Layers {
    /// Bottom calls one request makes when everything fails: the product of the attempts.
    pub fn product(&self) -> u64 {
        self.layers.iter().map(|k| u64::from(*k)).product()
    }

    fn set(&mut self, k: &Key, v: &str) -> Owned {
        if let Some(r) = self.series.set(k, v) {
            return Some(r);
        }
        Some(match k.name {
            "layers" => parse_layers(k, v).map(|l| self.layers = l),
            "p" => k.dec(v).map(|n| self.p_ppm = n as u32),
            "requests" => k.int32(v).map(|n| self.requests = n),
            "rate" => k.dec(v).map(|n| self.rate_milli = n),
            "net" => k.dur(v).map(|d| self.net = d),
            _ => return None,
        })
    }

    fn get(&self, key: &str) -> Option<String> {
        if let Some(t) = self.series.get(key) {
            return Some(t);
        }
        Some(match key {
            "layers" => self
                .layers
                .iter()
                .map(|k| k.to_string())
                .collect::<Vec<_>>()
                .join(","),
            "p" => decimal(u64::from(self.p_ppm), 1_000_000),
            "requests" => self.requests.to_string(),
            "rate" => decimal(self.rate_milli, 1000),
            "net" => self.net.to_string(),
            _ => return None,
        })
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

/// `lost`: checkouts against a charge endpoint that loses answers.
#[derive(Clone, Debug, PartialEq)]
pub struct Lost {
    /// The checkouts' arrivals.
    pub arrivals: Arrivals,
    /// One-way network delay.
    pub net: Micros,
    /// Probability that a committed charge's answer is lost, in millionths.
    pub lose_ppm: u32,
    /// How long the endpoint works before committing.
    pub service: Micros,
    /// The time series.
    pub series: Series,
}

impl Default for Lost {
    fn default() -> Self {
        Lost {
            arrivals: Arrivals::default(),
            net: Micros::from_millis(1),
            lose_ppm: 100_000,
            service: Micros::from_millis(50),
            series: Series::default(),
        }
    }
}

impl Lost {
    fn set(&mut self, k: &Key, v: &str) -> Owned {
        if let Some(r) = self.series.set(k, v).or_else(|| self.arrivals.set(k, v)) {
            return Some(r);
        }
        Some(match k.name {
            "net" => k.dur(v).map(|d| self.net = d),
            "lose" => k.dec(v).map(|n| self.lose_ppm = n as u32),
            "service" => k.dur(v).map(|d| self.service = d),
            _ => return None,
        })
    }

    fn get(&self, key: &str) -> Option<String> {
        if let Some(t) = self.series.get(key).or_else(|| self.arrivals.get(key)) {
            return Some(t);
        }
        Some(match key {
            "net" => self.net.to_string(),
            "lose" => decimal(u64::from(self.lose_ppm), 1_000_000),
            "service" => self.service.to_string(),
            _ => return None,
        })
    }
}
