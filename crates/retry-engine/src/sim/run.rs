//! Running a link's scenario: in slices (for the page and progress bars) or to the end.
//!
//! ```
//! use retry_model::{sim::simulate, Params};
//! let p: Params = "scenario=burst&clients=50&capacity=5000&tick=10ms&backoff=full&base=10ms&cap=2s&attempts=10".parse().unwrap();
//! let r = simulate(&p).unwrap();
//! assert_eq!(r.summary.originals, 50);
//! assert_eq!(r.summary.successes, 50);
//! ```

use super::engine::{Repetition, Sim};
use super::input::RunInput;
use super::layers::Layers;
use super::lost::Lost;
use super::metrics::{BinCounts, Report, Summary};
use super::occ::{Occ, OccRun, OccShared};
use super::params::{caps, Engine, ScenarioKind};
use super::settings::{Arrivals, LostSettings, Outage, Scenario};
use super::storm::population::Population;
use super::storm::Storm;
use super::work;
use crate::retry::error::ConfigError;
use crate::retry::policy::ValidPolicy;
use crate::retry::time::Micros;
use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;

/// What a whole run (all its repetitions) produced.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SimReport {
    /// The scenario.
    pub scenario: ScenarioKind,
    /// Repetitions made (fewer than the link asked for when `sequential` stopped early).
    pub runs: u32,
    /// The summary; with several runs, the mean of each field.
    pub summary: Summary,
    /// The first run's time series.
    pub series: Report,
    /// Where every run's attempts fell in each bin of the series, with two runs or more.
    pub band: Option<super::band::Band>,
    /// A fingerprint of every run's numbers (for determinism checks): one run's own, or over
    /// several the hash of each run's in order.
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
    p: RunInput,
    policy: ValidPolicy,
    kind: ScenarioKind,
    // Whether the population engine runs the storm.
    population: bool,
    run: u32,
    current: Option<Box<dyn Repetition>>,
    // The first repetition's report (its series is the one shown) and every repetition's
    // summary: memory stays one series whatever `runs` is.
    first: Option<Report>,
    summaries: Vec<Summary>,
    // Each repetition's fingerprint, in order.
    fingerprints: Vec<u64>,
    // What the runs of an `occ` link share, built by the first.
    occ_shared: Option<OccShared>,
    // The last repetitions' bins once counted, for the next ones to reuse (`Occ::with_series`).
    spare_bins: Vec<Vec<(u32, u32, u32)>>,
    // Every run's attempts by bin, for the band around the first run's series.
    bands: super::band::Bands,
    // `sequential`: the share that recovered is known to lie above or below one half.
    settled: bool,
}

/// A spike or a slow-down that starts at or after an `outage` run's end would do nothing: it is
/// refused, naming its start key and the run's length.
fn triggers_inside(o: &Outage) -> Result<(), ConfigError> {
    let end = o.arrivals.duration;
    let late = |key: &'static str, w: &crate::sim::settings::Window| {
        (w.length > Micros::ZERO && w.start >= end).then(|| {
            ConfigError::new(
                key,
                format!(
                    "'{}' is at or after the run's end: accepted [0, {end}) (duration={end})",
                    w.start
                ),
            )
        })
    };
    let spike = late("spike_start", &o.spike).filter(|_| o.spike_rate_milli > 0);
    let slow = late("slow_start", &o.server.slow).filter(|_| o.server.slow_milli != 1000);
    spike.or(slow).map_or(Ok(()), Err)
}

/// A storm's server, its originals a run and their rate (thousandths a second; 0: all at
/// once), and the key that sets their number: what decides whether the population engine runs
/// it. `None` for the scenarios that are no storm.
fn storm_of(
    scenario: &Scenario,
    clients: u32,
) -> Option<(&crate::sim::settings::Server, (u64, u64), &'static str)> {
    match scenario {
        Scenario::Outage(o) if o.users == 0 => Some((
            &o.server,
            (o.arrivals.planned(), o.arrivals.rate_milli.max(1)),
            "rate",
        )),
        // Closed-loop users: at most one request a user each think time.
        Scenario::Outage(o) => {
            let per_user = o.arrivals.duration.0 / o.think.0.max(1) + 1;
            let n = u64::from(o.users).saturating_mul(per_user) + o.spike_requests();
            let secs = (o.arrivals.duration.0 / 1_000_000).max(1);
            Some((&o.server, (n, n.saturating_mul(1000) / secs), "users"))
        }
        Scenario::Burst(b) => Some((&b.server, (u64::from(clients), 0), "clients")),
        Scenario::Occ(_) | Scenario::Layers(_) | Scenario::Lost(_) => None,
    }
}

/// The caps of closed-loop users: the requests they can make, in one run and in all, and
/// their attempts.
fn closed_caps(o: &Outage, runs: u64, policy: &ValidPolicy) -> Result<(), ConfigError> {
    // Each user makes at most one request per think time (plus its first).
    let per_user = o.arrivals.duration.0 / o.think.0.max(1) + 1;
    let spike = o.spike_requests();
    let n = u64::from(o.users)
        .saturating_mul(per_user)
        .saturating_add(spike);
    if n > caps::ORIGINALS {
        return Err(ConfigError::new(
            "users",
            format!("users x (duration / think + 1) = up to {n} requests exceeds the cap of {}: fewer users, a longer think or a shorter duration", caps::ORIGINALS),
        ));
    }
    if n.saturating_mul(runs) > caps::ALL_RUNS_ORIGINALS {
        return Err(ConfigError::new(
            "runs",
            format!(
                "runs x requests = up to {} exceeds the cap of {}",
                n.saturating_mul(runs),
                caps::ALL_RUNS_ORIGINALS
            ),
        ));
    }
    work::check_attempts(
        n,
        runs,
        policy,
        &o.server,
        ("users", "users, duration, runs"),
    )
}

/// Whether the population engine runs a storm of `requests` originals a run arriving at
/// `rate_milli` (0: all at once), `kind` on `server`: asked for by name (refused by name where
/// it cannot run the link), or, with `engine=auto`, where the per-request engine's estimate
/// passes about a second of work ([`work::AUTO_ATTEMPTS`]) or holds a heap of timers
/// ([`work::AUTO_IN_FLIGHT`]), and the population engine can run the link.
fn population_runs(
    p: &RunInput,
    kind: ScenarioKind,
    server: &crate::sim::settings::Server,
    (requests, rate_milli): (u64, u64),
    runs: u64,
) -> Result<bool, ConfigError> {
    let refusal = || super::storm::population::refusal(p, &p.policy, kind);
    match server.engine {
        Engine::Request => Ok(false),
        Engine::Population => refusal().map_or(Ok(true), Err),
        Engine::Auto => {
            let (each, _) = work::attempts_each(&p.policy, server);
            let all = requests.saturating_mul(runs).saturating_mul(each);
            let held = work::in_flight(requests, rate_milli, &p.policy, server, p.retry_after);
            let big = all > work::AUTO_ATTEMPTS || held > work::AUTO_IN_FLIGHT;
            Ok(big && refusal().is_none())
        }
    }
}

/// The population engine's caps: the requests of one run and of all runs.
fn population_caps(requests: u64, runs: u64, key: &'static str) -> Result<(), ConfigError> {
    let all = requests.saturating_mul(runs);
    if requests > caps::POPULATION_ORIGINALS || all > caps::POPULATION_ALL_RUNS {
        return Err(ConfigError::new(
            key,
            format!(
                "{} requests ({} over all runs) exceed the population engine's caps of {} a run and {} in all",
                requests,
                all,
                caps::POPULATION_ORIGINALS,
                caps::POPULATION_ALL_RUNS
            ),
        ));
    }
    Ok(())
}

/// Refuses open-loop arrivals (and a spike) that give no request at all: nothing would run.
fn some_requests(n: u64) -> Result<(), ConfigError> {
    if n == 0 {
        return Err(ConfigError::new(
            "duration",
            "rate x duration gives no requests: raise rate or duration",
        ));
    }
    Ok(())
}

/// The caps of open-loop arrivals (and a spike): the requests, in one run and in all, their
/// attempts and the requests in flight at once.
fn open_caps(p: &RunInput, arrivals: &Arrivals, runs: u64) -> Result<(), ConfigError> {
    let scenario = p.sim.scenario.as_ref();
    let spike = match scenario {
        Some(Scenario::Outage(o)) => o.spike_requests(),
        _ => 0,
    };
    if spike > caps::ORIGINALS {
        return Err(ConfigError::new(
            "spike_rate",
            format!("spike_rate x spike_for = {spike} requests exceeds the cap of {}: lower spike_rate or spike_for", caps::ORIGINALS),
        ));
    }
    let n = arrivals.planned() + spike;
    some_requests(n)?;
    if n > caps::ORIGINALS {
        return Err(ConfigError::new(
            "rate",
            format!(
                "rate x duration = {n} requests exceeds the cap of {}: lower rate or duration",
                caps::ORIGINALS
            ),
        ));
    }
    if n * runs > caps::ALL_RUNS_ORIGINALS {
        return Err(ConfigError::new(
            "runs",
            format!(
                "runs x requests = {} exceeds the cap of {}",
                n * runs,
                caps::ALL_RUNS_ORIGINALS
            ),
        ));
    }
    if let Some(Scenario::Outage(o)) = scenario {
        work::check_attempts(
            n,
            runs,
            &p.policy,
            &o.server,
            ("rate", "rate, duration, runs"),
        )?;
        let rate = arrivals.rate_milli.saturating_add(o.spike_rate_milli);
        work::check_in_flight(n, rate, &p.policy, &o.server, p.retry_after)?;
    }
    Ok(())
}

impl Run {
    /// Checks the link (values and caps) and prepares the first repetition.
    pub fn new<I>(input: I) -> Result<Run, ConfigError>
    where
        I: TryInto<RunInput, Error = ConfigError>,
    {
        Run::of(&input.try_into()?)
    }

    /// [`Run::new`] of a link's input.
    fn of(p: &RunInput) -> Result<Run, ConfigError> {
        let (kind, population) = Run::check_caps(p)?;
        Ok(Run::on(p, kind, population))
    }

    /// A run of `p` on the engine given (`population`), its caps checked.
    fn on(p: &RunInput, kind: ScenarioKind, population: bool) -> Run {
        let policy = p.policy;
        let mut run = Run {
            p: p.clone(),
            policy,
            kind,
            population,
            run: 0,
            current: None,
            first: None,
            summaries: Vec::new(),
            fingerprints: Vec::new(),
            occ_shared: None,
            spare_bins: Vec::new(),
            settled: false,
            bands: super::band::Bands::default(),
        };
        run.start_repetition();
        run
    }

    /// Checks the link (values and caps) as [`Run::new`] does, without preparing a repetition
    /// (a sweep's rows are checked this way before anything runs).
    pub fn check<I>(input: I) -> Result<(), ConfigError>
    where
        I: TryInto<RunInput, Error = ConfigError>,
    {
        Run::check_caps(&input.try_into()?).map(|_| ())
    }

    /// Whether the population engine runs the link (by its `engine`, and for `auto` by its
    /// size), once its caps hold.
    pub fn on_population<I>(input: I) -> Result<bool, ConfigError>
    where
        I: TryInto<RunInput, Error = ConfigError>,
    {
        Run::check_caps(&input.try_into()?).map(|(_, population)| population)
    }

    /// The caps of the link's scenario; its kind, and whether the population engine runs it,
    /// when they hold.
    fn check_caps(p: &RunInput) -> Result<(ScenarioKind, bool), ConfigError> {
        let scenario = p.sim.scenario.as_ref().ok_or_else(|| {
            ConfigError::new("scenario", "no scenario to run: set scenario=outage, burst, occ, layers or lost (or a scenario preset)")
        })?;
        let kind = scenario.kind();
        let runs = u64::from(p.sim.runs.0);
        if let Scenario::Outage(o) = scenario {
            triggers_inside(o)?;
        }
        let storm = storm_of(scenario, p.clients);
        if let Some((server, requests, key)) = storm {
            if population_runs(p, kind, server, requests, runs)? {
                population_caps(requests.0, runs, key)?;
                if let Scenario::Outage(o) = scenario {
                    some_requests(requests.0 + o.spike_requests())?;
                }
                return Ok((kind, true));
            }
        }
        match scenario {
            Scenario::Outage(o) if o.users > 0 => closed_caps(o, runs, &p.policy)?,
            Scenario::Outage(Outage { arrivals, .. })
            | Scenario::Lost(LostSettings { arrivals, .. }) => open_caps(p, arrivals, runs)?,
            Scenario::Burst(b) => {
                let n = u64::from(p.clients) * runs;
                if n > caps::ALL_RUNS_ORIGINALS {
                    return Err(ConfigError::new(
                        "runs",
                        format!(
                            "runs x clients = {n} exceeds the cap of {}",
                            caps::ALL_RUNS_ORIGINALS
                        ),
                    ));
                }
                let clients = u64::from(p.clients);
                let keys = ("clients", "clients, runs");
                work::check_attempts(clients, runs, &p.policy, &b.server, keys)?;
            }
            Scenario::Occ(_) => {
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
                if work > caps::OCC_WORK {
                    return Err(ConfigError::new(
                        "runs",
                        format!(
                            "clients^2 x runs = {work} exceeds the cap of {}",
                            caps::OCC_WORK
                        ),
                    ));
                }
            }
            Scenario::Layers(l) => {
                let calls = l.product() * u64::from(l.requests) * runs;
                if calls > caps::LAYER_CALLS {
                    return Err(ConfigError::new(
                        "requests",
                        format!(
                            "requests x runs x the product of the layer attempts = {calls} exceeds the cap of {}",
                            caps::LAYER_CALLS
                        ),
                    ));
                }
            }
        }
        Ok((kind, false))
    }

    /// The next repetition of the scenario: the one place that maps a scenario to its model.
    fn start_repetition(&mut self) {
        let (p, policy) = (&self.p, self.policy);
        let run = self.run.saturating_add(p.sim.first_run);
        let Some(scenario) = p.sim.scenario.as_ref() else {
            return; // `Run::new` refused a link without one
        };
        let rep: Box<dyn Repetition> = match scenario {
            Scenario::Outage(_) | Scenario::Burst(_) if self.population => {
                let (m, first) = Population::new(p, policy, self.kind, run);
                Box::new(Sim::new(m, [first]))
            }
            Scenario::Outage(_) | Scenario::Burst(_) => {
                let (m, first) = Storm::new(p, policy, self.kind, run);
                Box::new(Sim::new(m, [first]))
            }
            Scenario::Occ(o) => {
                let (net, sd) = (o.net, o.net_sd);
                Box::new(self.occ_run(net, sd, run))
            }
            Scenario::Lost(l) => {
                let (m, first) = Lost::new(p, l, policy, run);
                Box::new(Sim::new(m, [first]))
            }
            Scenario::Layers(l) => {
                let (m, first) = Layers::new(p, l, policy, run);
                Box::new(Sim::new(m, [first]))
            }
        };
        self.current = Some(rep);
    }

    /// Repetition `run` of an `occ` link with hops of `net` and `net_sd`, on an earlier one's
    /// bins when one left them.
    fn occ_run(&mut self, net: Micros, net_sd: Micros, run: u32) -> OccRun {
        let backoff = self.policy.backoff();
        let shared = self.occ_shared.get_or_insert_with(|| {
            let table = crate::retry::rng::NormalTable::new();
            OccShared::new(backoff, alloc::rc::Rc::new(table))
        });
        let p = &self.p;
        let (m, first) = Occ::new(
            p.clients,
            self.policy.backoff(),
            net,
            net_sd,
            p.seed,
            run,
            shared,
        );
        let m = m.with_series(self.spare_bins.pop().unwrap_or_default());
        OccRun::new(m, first)
    }

    /// One repetition's fingerprint: its summary's counts, then each bin's attempts and
    /// successes.
    fn fingerprint_repetition(&mut self, s: &Summary, bins: &BinCounts) {
        let mut fp = crate::retry::fnv::Fnv::new();
        for v in [s.originals, s.attempts, s.successes, s.duplicates, s.served] {
            fp.u64(v);
        }
        fp.u64(s.completion_ms.to_bits());
        // Each bin's two counts, the empty bins between busy ones fed at once
        // (`Fnv::zero_words`): the same hash as feeding every bin.
        let mut next = 0;
        for &(i, attempts, successes) in &bins.busy {
            fp.zero_words(2 * (i - next));
            fp.u64(u64::from(attempts));
            fp.u64(u64::from(successes));
            next = i + 1;
        }
        fp.zero_words(2 * (bins.len as u32 - next));
        self.fingerprints.push(fp.0);
    }

    /// Takes in a finished repetition: its summary, its fingerprint, and the first one's
    /// report (its bins are the series shown).
    fn finish_repetition(&mut self, rep: Box<dyn Repetition>) {
        let at = self.p.sim.series().and_then(|s| s.at);
        if self.first.is_none() {
            let report = rep.finish(at);
            let bins = report.bins.iter().map(|b| (b.attempts, b.successes));
            let bins = BinCounts::from_dense(bins);
            self.fingerprint_repetition(&report.summary, &bins);
            self.bands.add(&bins);
            self.summaries.push(report.summary.clone());
            self.first = Some(report);
        } else {
            // Only the first repetition's bins are kept.
            let (summary, bins) = rep.finish_summary(at);
            self.fingerprint_repetition(&summary, &bins);
            self.bands.add(&bins);
            self.summaries.push(summary);
            if self.spare_bins.len() < 2 {
                self.spare_bins.push(bins.busy);
            }
        }
        self.run += 1;
        self.settled = self.p.sim.stops_early() && self.clear_of_half();
    }

    /// Whether the 95% interval of the share of repetitions so far that recovered lies wholly
    /// above or below one half (never, while a repetition cannot tell).
    fn clear_of_half(&self) -> bool {
        clear_of_half(&self.summaries)
    }

    /// Handles up to `events` events and reports progress.
    pub fn step(&mut self, events: u64) -> Progress {
        let mut budget = events;
        loop {
            if self.run >= self.p.sim.runs.0 || self.settled {
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
            let Some(rep) = self.current.as_mut() else {
                continue;
            };
            let (done, handled) = rep.step(budget);
            budget = budget.saturating_sub(handled.max(1));
            if done {
                if let Some(rep) = self.current.take() {
                    self.finish_repetition(rep);
                }
                continue;
            }
            let within = rep.progress();
            let fraction = (f64::from(self.run) + within) / f64::from(self.p.sim.runs.0);
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
    pub fn finish(self) -> SimReport {
        let p = self.p.clone();
        RunParts::join(&p, alloc::vec![self.finish_parts()])
    }

    /// Runs what is left and returns each repetition's numbers, to be joined in order with
    /// other runs' ([`RunParts::join`]): runs of one link split into runs of its replicates
    /// ([`Run::replicates`]) give, joined, the report the whole link gives.
    pub fn finish_parts(mut self) -> RunParts {
        while !self.step(1 << 22).done {}
        RunParts {
            kind: self.kind,
            first: self.first.take(),
            summaries: core::mem::take(&mut self.summaries),
            fingerprints: core::mem::take(&mut self.fingerprints),
            bands: core::mem::take(&mut self.bands),
        }
    }

    /// A run of `n` of the link's repetitions from its `from`-th (0-based): a part of the
    /// link's runs, to run beside the others (on another core) and join in order.
    /// The part runs on the engine the whole link's size picks (`engine=auto` weighs all its
    /// runs), so every part is stepped as the whole is.
    pub fn replicates(mut p: RunInput, from: u32, n: u32) -> Result<Run, ConfigError> {
        let (kind, population) = Run::check_caps(&p)?;
        p.sim.first_run = p.sim.first_run.saturating_add(from);
        p.sim.runs = super::params::Runs(n.max(1));
        Ok(Run::on(&p, kind, population))
    }
}

/// Each repetition's numbers of a run (of a part of a link's runs), in order: what a worker
/// sends back for its part, to be joined on the page.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RunParts {
    kind: ScenarioKind,
    first: Option<Report>,
    summaries: Vec<Summary>,
    fingerprints: Vec<u64>,
    bands: super::band::Bands,
}

impl RunParts {
    /// Whether the runs of `parts`, in order, reach a count of recoveries clear of one half
    /// (what `sequential` stops at).
    pub fn settled(parts: &[RunParts]) -> bool {
        let all: Vec<Summary> = parts
            .iter()
            .flat_map(|x| x.summaries.iter().cloned())
            .collect();
        (1..=all.len()).any(|k| clear_of_half(&all[..k]))
    }

    /// The report of the link `p` from the parts of its runs, in order: the means and their
    /// intervals, the first run's series, the band, the fingerprint; with `sequential`, the
    /// runs up to the first whose count of recoveries is clear of one half.
    pub fn join(p: &RunInput, parts: alloc::vec::Vec<RunParts>) -> SimReport {
        let mut all = RunParts {
            kind: parts.first().map_or(ScenarioKind::Outage, |x| x.kind),
            first: None,
            summaries: Vec::new(),
            fingerprints: Vec::new(),
            bands: super::band::Bands::default(),
        };
        for part in parts {
            all.first = all.first.or(part.first);
            all.summaries.extend(part.summaries);
            all.fingerprints.extend(part.fingerprints);
            all.bands.append(part.bands);
        }
        if p.sim.stops_early() {
            let k = (1..=all.summaries.len())
                .find(|k| clear_of_half(&all.summaries[..*k]))
                .unwrap_or(all.summaries.len());
            all.summaries.truncate(k);
            all.fingerprints.truncate(k);
            all.bands.truncate(k);
        }
        let summaries: Vec<&Summary> = all.summaries.iter().collect();
        let mut summary = Summary::mean(&summaries);
        summary.intervals = Summary::intervals(&summaries, p.seed, p.sim.runs.0);
        let fingerprint = match all.fingerprints.as_slice() {
            [one] => *one,
            many => {
                let mut fp = crate::retry::fnv::Fnv::new();
                for f in many {
                    fp.u64(*f);
                }
                fp.0
            }
        };
        SimReport {
            scenario: all.kind,
            runs: all.summaries.len() as u32,
            summary,
            series: all.first.unwrap_or_default(),
            band: all.bands.finish(),
            fingerprint,
        }
    }
}

/// Whether the 95% interval of the share of `summaries` that recovered lies wholly above or
/// below one half (never, while a repetition cannot tell).
fn clear_of_half(summaries: &[Summary]) -> bool {
    let verdicts: Vec<bool> = summaries
        .iter()
        .filter_map(|s| s.recovery.map(|r| r.recovered()))
        .collect();
    // Under 6 runs no count is clear of one half (0 of 5 reaches 52%).
    if verdicts.len() < summaries.len() || verdicts.len() < 6 {
        return false;
    }
    let k = verdicts.iter().filter(|v| **v).count() as u32;
    let i = super::interval::clopper_pearson(k, verdicts.len() as u32);
    i.high < 0.5 || i.low > 0.5
}

/// Runs the link's scenario to the end.
pub fn simulate<I>(input: I) -> Result<SimReport, ConfigError>
where
    I: TryInto<RunInput, Error = ConfigError>,
{
    Ok(Run::new(input)?.finish())
}
