//! The simulation's part of a link: the scenario with its settings, and the repetitions.

pub use super::kinds::{
    caps, BreakerConfig, Discipline, Engine, Hedge, OutageKind, ScenarioKind, ServerKind,
    ServiceDist,
};
use super::settings::{Scenario, Series};

/// The simulation's part of a link: the scenario, with the settings it owns, and the
/// repetitions. A key belongs to the scenarios whose settings hold it (see
/// `super::settings`), so a key set for another scenario has nowhere to go and is refused.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SimParams {
    /// The scenario and its settings; `None` for no simulation.
    pub scenario: Option<Scenario>,
    /// Repetitions, each from its own stream of the seed; summaries are averaged. In
    /// [1, `caps::RUNS`].
    pub runs: Runs,
    /// The first repetition's number, from 0 (the link's `replicate` less one): repetition
    /// `r` of a seed draws from streams `r` of it, so `replicate=7` alone reproduces the 7th
    /// of `runs=20`. At most `caps::REPLICATE - 1`.
    pub first_run: u32,
    /// Stop the repetitions once the 95% interval of the share that recovered lies wholly
    /// above or below one half (`sequential`): `Some` as the link says, `None` for the link's
    /// default (on in a phase plot's cells, which the sweep sets, off for one link).
    pub sequential: Option<bool>,
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

    /// Whether the repetitions stop once the share that recovered is clear of one half.
    pub fn stops_early(&self) -> bool {
        self.sequential == Some(true)
    }

    /// The server of `outage` and `burst`.
    pub fn server(&self) -> Option<&super::settings::Server> {
        match self.scenario.as_ref()? {
            Scenario::Outage(o) => Some(&o.server),
            Scenario::Burst(b) => Some(&b.server),
            Scenario::Occ(_) | Scenario::Layers(_) | Scenario::Lost(_) => None,
        }
    }

    /// The bin width and `at` of a scenario that keeps a time series.
    pub fn series(&self) -> Option<&Series> {
        self.scenario.as_ref()?.series()
    }
}
