//! The simulation keys as link text: reading and writing each scenario's settings
//! (`sim::settings`) through the key table. The settings are plain data one layer down; the
//! link layer owns their text, as it owns the policy keys'.
//!
//! A scenario's settings hold only the keys it reads, so `set` on settings that do not own a key
//! returns `None` and [`SimKeys::set`] refuses the key, naming the scenarios it applies to.

use super::keys::Key;
use crate::retry::error::ConfigError;
use crate::retry::text::decimal;
use crate::sim::caps;
use crate::sim::{
    Arrivals, LayersSettings as Layers, LostSettings as Lost, OccSettings as Occ, Outage, Runs,
    Scenario, ScenarioKind, Series, Server, SimParams,
};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// The result of setting a key on settings that may not own it: `None` when they do not.
type Owned = Option<Result<(), ConfigError>>;

/// The simulation keys of a link, read and written as text. A trait because the settings are
/// plain data in `retry-engine`, and only their own crate can give them methods.
pub(crate) trait SimKeys {
    /// Sets one simulation key; its row in the key table checks the value. A key that the
    /// link's scenario does not own is refused, naming where it applies.
    fn set(&mut self, k: &'static Key, v: &str) -> Result<(), ConfigError>;
    /// One simulation key's link text, or `None` when the link's scenario does not own it.
    fn get(&self, key: &str) -> Option<String>;
}

/// One scenario's settings, or a part of them, as link text.
trait KeyText {
    /// Sets a key it owns; `None` when it does not own the key.
    fn set(&mut self, k: &'static Key, v: &str) -> Owned;
    /// A key's link text; `None` when it does not own the key.
    fn get(&self, key: &str) -> Option<String>;
}

impl SimKeys for SimParams {
    fn set(&mut self, k: &'static Key, v: &str) -> Result<(), ConfigError> {
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
            "sequential" if self.scenario.is_some() => {
                // A flag before `auto` was added: its spellings stay accepted.
                self.sequential = match v {
                    "auto" => None,
                    "true" | "yes" | "1" => Some(true),
                    "false" | "no" | "0" => Some(false),
                    _ => return Err(k.bad(v)),
                };
                Ok(())
            }
            "replicate" if self.scenario.is_some() => {
                self.first_run = k.int32(v)? - 1;
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

    fn get(&self, key: &str) -> Option<String> {
        match key {
            "scenario" => Some(self.kind().map_or("none", |s| s.name()).to_string()),
            "runs" => self.scenario.as_ref().map(|_| self.runs.0.to_string()),
            "sequential" => self.scenario.as_ref().map(|_| {
                self.sequential
                    .map_or_else(|| "auto".to_string(), |on| on.to_string())
            }),
            "replicate" => self
                .scenario
                .as_ref()
                .map(|_| (self.first_run + 1).to_string()),
            _ => self.scenario.as_ref()?.get(key),
        }
    }
}

impl KeyText for Scenario {
    fn set(&mut self, k: &'static Key, v: &str) -> Owned {
        match self {
            Scenario::Outage(s) => s.set(k, v),
            Scenario::Burst(s) => s.server.set(k, v),
            Scenario::Occ(s) => s.set(k, v),
            Scenario::Layers(s) => s.set(k, v),
            Scenario::Lost(s) => s.set(k, v),
        }
    }

    fn get(&self, key: &str) -> Option<String> {
        match self {
            Scenario::Outage(s) => s.get(key),
            Scenario::Burst(s) => s.server.get(key),
            Scenario::Occ(s) => s.get(key),
            Scenario::Layers(s) => s.get(key),
            Scenario::Lost(s) => s.get(key),
        }
    }
}

impl KeyText for Series {
    fn set(&mut self, k: &'static Key, v: &str) -> Owned {
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

impl KeyText for Server {
    fn set(&mut self, k: &'static Key, v: &str) -> Owned {
        if let Some(r) = self.series.set(k, v) {
            return Some(r);
        }
        Some(match k.name {
            "capacity" => k.dec(v).map(|n| self.capacity_milli = n),
            "tick" => k.dur(v).map(|d| self.tick = d),
            "reject_cost" => k.dec(v).map(|n| self.reject_cost_milli = n),
            "net" => k.dur(v).map(|d| self.net = d),
            "tenants" => k.int32(v).map(|n| self.tenants = n),
            "server" => k.pick(v).map(|x| self.kind = x),
            "engine" => k.pick(v).map(|x| self.engine = x),
            "workers" => k.int32(v).map(|n| self.queue.workers = n),
            "queue_limit" => k.int32(v).map(|n| self.queue.queue_limit = n),
            "discipline" => k.pick(v).map(|x| self.queue.discipline = x),
            "service" => k.dur(v).map(|d| self.queue.service = d),
            "service_dist" => k.pick(v).map(|x| self.queue.dist = x),
            "service_cv" => k.dec(v).map(|n| self.queue.cv_milli = n),
            "service_tail" => k.dur(v).map(|d| self.queue.tail = d),
            "service_tail_p" => k.dec(v).map(|n| self.queue.tail_ppm = n as u32),
            "hedge" => k.choice(v).map(|i| self.hedge.on = i == 1),
            "hedge_delay" => k.dur(v).map(|d| self.hedge.delay = d),
            "hedge_max" => k.int32(v).map(|n| self.hedge.max = n),
            "latency_per_inflight" => k.dur(v).map(|d| self.queue.per_inflight = d),
            "server_deadline" => k.flag(v).map(|on| self.queue.deadline = on),
            "fail" => k.dec(v).map(|n| self.queue.fail_ppm = n as u32),
            "slow" => k.dec(v).map(|n| self.slow_milli = n),
            "slow_start" => k.dur(v).map(|d| self.slow.start = d),
            "slow_for" => k.dur(v).map(|d| self.slow.length = d),
            "breaker" => k
                .flag(v)
                .map(|on| self.breaker = on.then(|| self.breaker.unwrap_or_default())),
            "limiter" => k.choice(v).map(|i| self.limiter = i == 1),
            "limiter_scope" => k.pick(v).map(|x| self.limiter_scope = x),
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
            "server" => self.kind.name().to_string(),
            "engine" => self.engine.name().to_string(),
            "workers" => self.queue.workers.to_string(),
            "queue_limit" => self.queue.queue_limit.to_string(),
            "discipline" => self.queue.discipline.name().to_string(),
            "service" => self.queue.service.to_string(),
            "service_dist" => self.queue.dist.name().to_string(),
            "service_cv" => decimal(self.queue.cv_milli, 1000),
            "service_tail" => self.queue.tail.to_string(),
            "service_tail_p" => decimal(u64::from(self.queue.tail_ppm), 1_000_000),
            "hedge" => (if self.hedge.on { "on" } else { "off" }).to_string(),
            "hedge_delay" => self.hedge.delay.to_string(),
            "hedge_max" => self.hedge.max.to_string(),
            "latency_per_inflight" => self.queue.per_inflight.to_string(),
            "server_deadline" => (if self.queue.deadline { "on" } else { "off" }).to_string(),
            "fail" => decimal(u64::from(self.queue.fail_ppm), 1_000_000),
            "slow" => decimal(self.slow_milli, 1000),
            "slow_start" => self.slow.start.to_string(),
            "slow_for" => self.slow.length.to_string(),
            "breaker" => (if b.is_some() { "on" } else { "off" }).to_string(),
            "limiter" => (if self.limiter { "aws-adaptive" } else { "none" }).to_string(),
            "limiter_scope" => self.limiter_scope.name().to_string(),
            "breaker_window" => b?.window.to_string(),
            "breaker_failures" => b?.failure_percent.to_string(),
            "breaker_min_calls" => b?.min_calls.to_string(),
            "breaker_open" => b?.open_for.to_string(),
            "breaker_probes" => b?.probes.to_string(),
            _ => return None,
        })
    }
}

impl KeyText for Arrivals {
    fn set(&mut self, k: &'static Key, v: &str) -> Owned {
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

impl KeyText for Outage {
    fn set(&mut self, k: &'static Key, v: &str) -> Owned {
        if let Some(r) = self.server.set(k, v).or_else(|| self.arrivals.set(k, v)) {
            return Some(r);
        }
        Some(match k.name {
            "arrivals" => k.choice(v).map(|i| self.poisson = i == 1),
            "outage_start" => k.dur(v).map(|d| self.outage_start = d),
            "outage" => k.dur(v).map(|d| self.outage = d),
            "outage_kind" => k.pick(v).map(|x| self.outage_kind = x),
            "spike_rate" => k.dec(v).map(|n| self.spike_rate_milli = n),
            "spike_start" => k.dur(v).map(|d| self.spike.start = d),
            "spike_for" => k.dur(v).map(|d| self.spike.length = d),
            "users" => k.int32(v).map(|n| self.users = n),
            "think" => k.dur(v).map(|d| self.think = d),
            "recovery_window" => k.dur(v).map(|d| self.recovery.window = d),
            "recovery_tolerance" => k.dec(v).map(|n| self.recovery.tolerance_milli = n),
            "recovery_hold" => k.int32(v).map(|n| self.recovery.hold = n),
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
            "outage_kind" => self.outage_kind.name().to_string(),
            "spike_rate" => decimal(self.spike_rate_milli, 1000),
            "spike_start" => self.spike.start.to_string(),
            "spike_for" => self.spike.length.to_string(),
            "users" => self.users.to_string(),
            "think" => self.think.to_string(),
            "recovery_window" => self.recovery.window.to_string(),
            "recovery_tolerance" => decimal(self.recovery.tolerance_milli, 1000),
            "recovery_hold" => self.recovery.hold.to_string(),
            _ => return None,
        })
    }
}

impl KeyText for Occ {
    fn set(&mut self, k: &'static Key, v: &str) -> Owned {
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

impl KeyText for Layers {
    fn set(&mut self, k: &'static Key, v: &str) -> Owned {
        if let Some(r) = self.series.set(k, v) {
            return Some(r);
        }
        Some(match k.name {
            "layers" => parse_layers(k, v).map(|l| self.layers = l),
            "layer_names" => parse_names(k, v).map(|n| self.names = n),
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
            "layer_names" if self.names.is_empty() => String::from("none"),
            "layer_names" => self.names.join(","),
            "p" => decimal(u64::from(self.p_ppm), 1_000_000),
            "requests" => self.requests.to_string(),
            "rate" => decimal(self.rate_milli, 1000),
            "net" => self.net.to_string(),
            _ => return None,
        })
    }
}

impl KeyText for Lost {
    fn set(&mut self, k: &'static Key, v: &str) -> Owned {
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

/// Attempts per layer: 1 to [`caps::LAYERS`] numbers in [1, 100] whose product is at most
/// [`caps::LAYER_PRODUCT`].
/// `layer_names`: 1 to 8 names, each 1 to 40 letters, digits, '.', '_' or '-' (a file's name).
fn parse_names(k: &Key, v: &str) -> Result<Vec<String>, ConfigError> {
    if v == "none" {
        return Ok(Vec::new());
    }
    let ok = |n: &str| {
        (1..=40).contains(&n.chars().count())
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    };
    let names: Vec<String> = v.split(',').map(|n| n.trim().to_string()).collect();
    if names.len() > caps::LAYERS || !names.iter().all(|n| ok(n)) {
        return Err(k.error(format!(
            "'{}' is not {}",
            super::keys::shorten(v),
            k.domain.accepted()
        )));
    }
    Ok(names)
}

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
        .ok_or_else(|| {
            k.error(format!(
                "'{}' is not {}",
                super::keys::shorten(v),
                k.domain.accepted()
            ))
        })?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::keys::{is_sim, row, TABLE};
    use crate::sim::ScenarioKind;

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
