//! A link becomes a simulation's input: `RunInput::try_from(&params)` checks the link (values,
//! keys with no effect, cross-key rules) and hands the simulator what it reads. `sim::Run::new`
//! and `sim::simulate` take a `&Params` through it.

use super::Params;
use crate::retry::error::ConfigError;
use crate::sim::{simulate, RunInput};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

impl TryFrom<&Params> for RunInput {
    type Error = ConfigError;

    fn try_from(p: &Params) -> Result<RunInput, ConfigError> {
        RunInput::try_from(Checked(p, p.validate()?))
    }
}

/// A link already checked, with its checked policy: a sweep's row, made without its inert keys
/// and its policy validated, runs without checking its keys a second time (the check writes
/// the link out, most of a row's cost).
pub(crate) struct Checked<'a>(pub &'a Params, pub crate::ValidPolicy);

impl TryFrom<Checked<'_>> for RunInput {
    type Error = ConfigError;

    fn try_from(Checked(p, policy): Checked<'_>) -> Result<RunInput, ConfigError> {
        Ok(RunInput {
            policy,
            sim: p.sim.clone(),
            seed: p.seed,
            clients: p.clients,
            budget_start: p.budget_start,
            retry_after: p.retry_after,
        })
    }
}

impl TryFrom<&mut Params> for RunInput {
    type Error = ConfigError;

    fn try_from(p: &mut Params) -> Result<RunInput, ConfigError> {
        RunInput::try_from(&*p)
    }
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

/// The 2015 simulator's figures (`tests/golden/occ_2015_reference.csv`): for each client count
/// and backoff kind, its mean write calls and completion time in ms over 100 runs.
pub const OCC_2015_REFERENCE: &str =
    include_str!("../../../../tests/golden/occ_2015_reference.csv");

/// The 2015 simulator's (write calls, completion ms) for a link, when the link is the study's
/// setting (`preset=occ-2015` with only `clients`, `backoff` and `seed` changed, at most 190
/// clients in steps of 10) and the figure exists.
///
/// ```
/// use retry_model::{occ_2015_reference, Params};
/// let p: Params = "preset=occ-2015&backoff=full&clients=100".parse().unwrap();
/// assert_eq!(occ_2015_reference(&p), Some((797, 4879)));
/// let q: Params = "preset=occ-2015&backoff=full&clients=100&runs=5".parse().unwrap();
/// assert_eq!(occ_2015_reference(&q), None, "5 runs is not the study's setting");
/// ```
pub fn occ_2015_reference(p: &Params) -> Option<(u64, u64)> {
    // Only the study's own scenario can be its row (and parsing the study's link per row of
    // another sweep cost a phase plot 13 ms natively).
    if p.sim.kind() != Some(crate::sim::ScenarioKind::Occ) {
        return None;
    }
    let kind = p.get("backoff")?;
    let mut study: Params = format!("preset=occ-2015&backoff={kind}&clients={}", p.clients)
        .parse()
        .ok()?;
    study.seed = p.seed;
    let plain = Params {
        sweep: None,
        compare: None,
        ..p.clone()
    };
    if study != plain {
        return None;
    }
    let clients = format!("{}", p.clients);
    OCC_2015_REFERENCE
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split(',').collect::<alloc::vec::Vec<_>>())
        .find(|f| f.len() == 4 && f[0] == clients && f[1] == kind)
        .and_then(|f| Some((f[2].parse().ok()?, f[3].parse().ok()?)))
}

/// One side of the idempotency walk: one checkout, every step, and the durable charges it made.
#[derive(Clone, Debug, PartialEq)]
pub struct LedgerSide {
    /// Whether the checkout carried an idempotency key.
    pub key: bool,
    /// The link the side ran.
    pub link: alloc::string::String,
    /// What happened, in order.
    pub steps: alloc::vec::Vec<crate::sim::LostStep>,
    /// Durable charges on the endpoint's ledger.
    pub charges: u32,
}

/// One checkout through a lost response, without and with an idempotency key: the first of
/// the link's repetitions (random streams `run` = 0, 1, ...; at most 1000 tried) whose first
/// answer is lost, run alone, once without a key (retrying read timeouts: `idempotent=true`)
/// and once with one. `None` when the link is not a `lost` one or no answer is lost.
///
/// ```
/// use retry_model::{ledger, Params};
/// let p: Params = "preset=lost-nokey".parse().unwrap();
/// let (_, sides) = ledger(&p).unwrap();
/// assert!(sides[0].charges > 1, "without a key the retry charges again");
/// assert_eq!(sides[1].charges, 1, "with one, one durable charge");
/// ```
pub fn ledger(p: &Params) -> Option<(u32, [LedgerSide; 2])> {
    use crate::sim::{LostWhat, Scenario, Sim};
    let Some(Scenario::Lost(_)) = &p.sim.scenario else {
        return None;
    };
    let variant = |key: bool| -> Option<Params> {
        let mut v = p.settings_only();
        v.set("key", if key { "true" } else { "false" }).ok()?;
        if !key {
            v.set("idempotent", "true").ok()?;
        }
        Some(v)
    };
    let (without, with) = (variant(false)?, variant(true)?);
    let side = |v: &Params, run: u32| -> Option<LedgerSide> {
        let input = RunInput::try_from(v).ok()?;
        let Some(Scenario::Lost(l)) = &input.sim.scenario else {
            return None;
        };
        let (m, first) = crate::sim::Lost::one_checkout(&input, l, input.policy, run);
        let mut sim = Sim::new(m, [first]);
        sim.run();
        let steps = sim.model.log.take()?;
        let charges = steps
            .iter()
            .filter(|s| matches!(s.what, LostWhat::Committed { .. }))
            .count() as u32;
        Some(LedgerSide {
            key: v.policy.operation.key,
            link: format!("{v}"),
            steps,
            charges,
        })
    };
    for run in 0..1000 {
        let a = side(&without, run)?;
        let lost_first = a
            .steps
            .iter()
            .find(|s| matches!(s.what, LostWhat::Committed { .. }))
            .is_some_and(|s| matches!(s.what, LostWhat::Committed { lost: true, .. }));
        if lost_first {
            return Some((run, [a, side(&with, run)?]));
        }
    }
    None
}

/// A check of the population engine on a storm it runs: the same storm made smaller (its
/// arrivals or clients and its capacity divided by `divisor`, a power of two, so the overload is
/// the same) until the per-request engine runs it in about a second, as a comparison link, side
/// A every request its own events and side B counts of requests. `None` for a link the
/// population engine does not run.
pub fn engine_check(p: &Params) -> Option<(Params, u32)> {
    if !crate::sim::Run::on_population(p).unwrap_or(false) {
        return None;
    }
    let burst = p.sim.kind() == Some(crate::sim::ScenarioKind::Burst);
    let size_key = if burst { "clients" } else { "rate" };
    // What is scaled with the arrivals: the server's capacity (the queue server's workers
    // and room), and a load spike's rate.
    let queue = p.get("server").as_deref() == Some("queue");
    let mut scaled: Vec<(&str, bool)> = if queue {
        alloc::vec![("workers", true), ("queue_limit", true)]
    } else {
        alloc::vec![("capacity", false)]
    };
    scaled.insert(0, (size_key, burst));
    if !burst {
        scaled.push(("spike_rate", false));
    }
    let values: Vec<f64> = scaled
        .iter()
        .map(|(k, _)| p.get(k).and_then(|v| v.parse().ok()))
        .collect::<Option<_>>()?;
    for k in 1..=30u32 {
        let divisor = 1u32 << k;
        let mut q = p.side_a();
        let text = |v: f64, whole: bool| {
            if whole {
                format!("{}", libm::round(v).max(1.0) as u64)
            } else {
                format!("{:.3}", v.max(0.001))
            }
        };
        for ((key, whole), v) in scaled.iter().zip(&values) {
            let v = v / f64::from(divisor);
            let t = if *key == "spike_rate" && v == 0.0 {
                String::from("0")
            } else {
                text(v, *whole)
            };
            q.set(key, &t).ok()?;
        }
        q.set("engine", "auto").ok()?;
        if crate::sim::Run::on_population(&q) == Ok(false) {
            q.set("engine", "request").ok()?;
            let link = format!("{q}&b.engine=population");
            return link.parse().ok().map(|l| (l, divisor));
        }
    }
    None
}

/// [`engine_check`] in words, as the page and the CLI write it under a population run's
/// summary: the sentence and the comparison's link.
pub fn engine_check_note(p: &Params) -> Option<(alloc::string::String, alloc::string::String)> {
    let (q, divisor) = engine_check(p)?;
    let text = format!("Check the counts against every request: the same storm at 1/{divisor} the size, side A per request, side B as counts:");
    Some((text, format!("{q}")))
}
