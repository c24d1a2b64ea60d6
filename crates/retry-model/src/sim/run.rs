//! Running a link's scenario: in slices (for the page and progress bars) or to the end.
//!
//! ```
//! use retry_model::{sim::simulate, Params};
//! let p: Params = "scenario=burst&clients=50&capacity=5000&tick=10ms&backoff=full&base=10ms&cap=2s&attempts=10".parse().unwrap();
//! let r = simulate(&p).unwrap();
//! assert_eq!(r.summary.originals, 50);
//! assert_eq!(r.summary.successes, 50);
//! ```

use super::engine::Sim;
use super::layers;
use super::lost::Lost;
use super::metrics::{Report, Summary};
use super::occ::Occ;
use super::params::{caps, ScenarioKind};
use super::storm::{planned_originals, Storm};
use crate::error::ConfigError;
use crate::link::Params;
use crate::policy::ValidPolicy;
use alloc::format;
use alloc::vec::Vec;

#[allow(clippy::large_enum_variant)] // one lives at a time
enum Current {
    Storm(Sim<Storm>),
    Occ(Sim<Occ>),
    Lost(Sim<Lost>),
}

/// What a whole run (all its repetitions) produced.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SimReport {
    /// The scenario.
    pub scenario: ScenarioKind,
    /// Repetitions.
    pub runs: u32,
    /// The summary; with several runs, the mean of each field.
    pub summary: Summary,
    /// The first run's time series.
    pub series: Report,
    /// A fingerprint of every run's numbers (for determinism checks).
    pub fingerprint: u64,
}

/// Progress of a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Nothing left to do.
    pub done: bool,
    /// Roughly how far, 0 to 1.
    pub fraction: f64,
    /// Events handled so far in the current repetition.
    pub events: u64,
}

/// A run in progress.
pub struct Run {
    p: Params,
    policy: ValidPolicy,
    kind: ScenarioKind,
    run: u32,
    current: Option<Current>,
    reports: Vec<Report>,
    fingerprint: crate::trace::Fnv,
    normal: Option<alloc::rc::Rc<crate::rng::NormalTable>>,
}

impl Run {
    /// Checks the link (values and caps) and prepares the first repetition.
    pub fn new(p: &Params) -> Result<Run, ConfigError> {
        let policy = p.validate()?;
        let kind = p.sim.scenario.ok_or_else(|| {
            ConfigError::new("scenario", "no scenario to run: set scenario=outage, burst, occ, layers or lost (or a scenario preset)")
        })?;
        let runs = u64::from(p.sim.runs);
        match kind {
            ScenarioKind::Outage | ScenarioKind::Lost => {
                let n = planned_originals(&p.sim);
                if n == 0 {
                    return Err(ConfigError::new(
                        "duration",
                        "rate x duration gives no requests: raise rate or duration",
                    ));
                }
                if n > caps::ORIGINALS {
                    return Err(ConfigError::new(
                        "rate",
                        format!("rate x duration = {n} requests exceeds the cap of {}: lower rate or duration", caps::ORIGINALS),
                    ));
                }
                if n * runs > 10 * caps::ORIGINALS {
                    return Err(ConfigError::new(
                        "runs",
                        format!(
                            "runs x requests = {} exceeds the cap of {}",
                            n * runs,
                            10 * caps::ORIGINALS
                        ),
                    ));
                }
            }
            ScenarioKind::Burst => {
                if u64::from(p.clients) * runs > 10 * caps::ORIGINALS {
                    return Err(ConfigError::new(
                        "runs",
                        "runs x clients exceeds the cap of 20000000",
                    ));
                }
            }
            ScenarioKind::Occ => {
                if p.clients > caps::OCC_CLIENTS {
                    return Err(ConfigError::new(
                        "clients",
                        format!(
                            "at most {} clients for occ (the work grows with the square)",
                            caps::OCC_CLIENTS
                        ),
                    ));
                }
                let work = u64::from(p.clients).pow(2) * runs;
                if work > 400_000_000 {
                    return Err(ConfigError::new(
                        "runs",
                        format!("clients^2 x runs = {work} exceeds the cap of 400000000"),
                    ));
                }
            }
            ScenarioKind::Layers => {
                let product: u64 = p.sim.layers.iter().map(|k| u64::from(*k)).product();
                if product * u64::from(p.sim.requests) * runs > 50_000_000 {
                    return Err(ConfigError::new("requests", "requests x runs x the product of the layer attempts exceeds the cap of 50000000"));
                }
            }
        }
        let mut run = Run {
            p: p.clone(),
            policy,
            kind,
            run: 0,
            current: None,
            reports: Vec::new(),
            fingerprint: crate::trace::Fnv::new(),
            normal: None,
        };
        run.start_repetition();
        Ok(run)
    }

    fn start_repetition(&mut self) {
        let p = &self.p;
        self.current = match self.kind {
            ScenarioKind::Outage | ScenarioKind::Burst => {
                let (m, first) = Storm::new(p, self.policy, self.kind, self.run);
                Some(Current::Storm(Sim::new(m, [first])))
            }
            ScenarioKind::Occ => {
                let table = self
                    .normal
                    .get_or_insert_with(|| alloc::rc::Rc::new(crate::rng::NormalTable::new()))
                    .clone();
                let (m, first) = Occ::new(
                    p.clients,
                    self.policy.backoff(),
                    p.sim.net,
                    p.sim.net_sd,
                    p.seed,
                    self.run,
                    table,
                );
                Some(Current::Occ(Sim::new(m, first)))
            }
            ScenarioKind::Lost => {
                let (m, first) = Lost::new(p, self.policy, self.run);
                Some(Current::Lost(Sim::new(m, [first])))
            }
            ScenarioKind::Layers => {
                let report = layers::run(p, &self.policy, self.run);
                self.finish_repetition(report);
                None
            }
        };
    }

    fn finish_repetition(&mut self, report: Report) {
        let s = &report.summary;
        for v in [s.originals, s.attempts, s.successes, s.duplicates, s.served] {
            self.fingerprint.u64(v);
        }
        self.fingerprint.u64(s.completion_ms.to_bits());
        for b in &report.bins {
            self.fingerprint.u64(u64::from(b.attempts));
            self.fingerprint.u64(u64::from(b.successes));
        }
        self.reports.push(report);
        self.run += 1;
    }

    /// Handles up to `events` events and reports progress.
    pub fn step(&mut self, events: u64) -> Progress {
        let mut budget = events;
        loop {
            if self.run >= self.p.sim.runs {
                return Progress {
                    done: true,
                    fraction: 1.0,
                    events: 0,
                };
            }
            if self.current.is_none() {
                self.start_repetition();
                continue;
            }
            let (done, now, horizon, handled) = match self.current.as_mut() {
                Some(Current::Storm(s)) => {
                    let before = s.events();
                    let d = s.step(budget);
                    (d, s.now(), s.model.horizon(), s.events() - before)
                }
                Some(Current::Occ(s)) => {
                    let before = s.events();
                    let d = s.step(budget);
                    (
                        d,
                        crate::Micros(s.model.done.into()),
                        crate::Micros(self.p.clients.into()),
                        s.events() - before,
                    )
                }
                Some(Current::Lost(s)) => {
                    let before = s.events();
                    let d = s.step(budget);
                    (d, s.now(), s.model.horizon(), s.events() - before)
                }
                None => continue,
            };
            budget = budget.saturating_sub(handled.max(1));
            if done {
                let report = match self.current.take() {
                    Some(Current::Storm(s)) => s.model.rec.finish(self.p.sim.at),
                    Some(Current::Occ(s)) => occ_report(&s.model, self.p.clients),
                    Some(Current::Lost(s)) => s.model.finish(self.p.sim.at),
                    None => continue,
                };
                self.finish_repetition(report);
                continue;
            }
            let within = if horizon.0 == 0 {
                0.0
            } else {
                (now.0 as f64 / horizon.0 as f64).min(1.0)
            };
            let fraction = (f64::from(self.run) + within) / f64::from(self.p.sim.runs);
            if budget == 0 {
                return Progress {
                    done: false,
                    fraction,
                    events: handled,
                };
            }
        }
    }

    /// Runs what is left and returns the report.
    pub fn finish(mut self) -> SimReport {
        while !self.step(1 << 22).done {}
        let summaries: Vec<&Summary> = self.reports.iter().map(|r| &r.summary).collect();
        let summary = Summary::mean(&summaries);
        let series = self.reports.swap_remove(0);
        SimReport {
            scenario: self.kind,
            runs: self.p.sim.runs,
            summary,
            series,
            fingerprint: self.fingerprint.0,
        }
    }
}

fn occ_report(o: &Occ, clients: u32) -> Report {
    let c = u64::from(clients);
    Report {
        summary: Summary {
            originals: c,
            attempts: o.writes,
            amplification: if c == 0 {
                0.0
            } else {
                o.writes as f64 / c as f64
            },
            successes: u64::from(o.done),
            success_rate: if c == 0 {
                0.0
            } else {
                f64::from(o.done) / c as f64
            },
            peak_attempts_per_s: 0.0,
            attempts_per_s_at: None,
            completion_ms: o.last.as_millis_f64(),
            p50_ms: None,
            p99_ms: None,
            duplicates: 0,
            failures: [0; 7],
            served: o.writes,
        },
        bin_ms: 0.0,
        bins: Vec::new(),
    }
}

/// Runs the link's scenario to the end.
pub fn simulate(p: &Params) -> Result<SimReport, ConfigError> {
    Ok(Run::new(p)?.finish())
}

/// The whole 2015 sweep: clients 10 to 190 step 10, the five backoff kinds, 100 runs each
/// (`preset=occ-2015`). Returns the total write calls; the benchmarks time it natively and in
/// wasm.
pub fn occ_study_sweep() -> u64 {
    let mut calls = 0;
    for kind in ["none", "exponential", "full", "equal", "decorrelated"] {
        for clients in (10..=190).step_by(10) {
            let link = format!("preset=occ-2015&backoff={kind}&clients={clients}");
            if let Ok(r) = link.parse::<Params>().and_then(|p| simulate(&p)) {
                calls += r.summary.attempts;
            }
        }
    }
    calls
}
