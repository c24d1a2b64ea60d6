//! The simulation's part of a link: the scenario with its settings, and the repetitions.

pub use super::kinds::{caps, BreakerConfig, OutageKind, ScenarioKind};
use super::settings::{Scenario, Series};
use crate::link::keys::Key;
use crate::retry::error::ConfigError;
use alloc::string::{String, ToString};

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
