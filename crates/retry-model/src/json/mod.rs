//! The lab's documents: what `retrylab ... --format json` prints and what the page's JavaScript
//! API (`window.retrylab`) returns, as serde-derived types, one struct per document. One
//! definition for both is what makes their field names and values the same. Durations are
//! milliseconds (floats), budget amounts tokens.
//!
//! ```
//! use retry_model::json::{inputs, Explain};
//! let (p, t) = inputs::explain_of("preset=chapter").unwrap();
//! let doc = Explain::new(&p, &t);
//! # let _ = doc;
//! ```

use crate::link::keys::{self as link_keys, Applies};
use crate::link::preset::Preset;
use crate::request::amplify::Amplification;
use crate::request::schedule::Schedule;
use crate::request::trace::Trace;
use crate::retry::policy::StopReason;
use crate::retry::time::Micros;
use crate::sim::{Bin, ServerSummary, SimReport, Summary};
use crate::Params;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

pub mod inputs;

/// Names and their values, written as one object in the order given: a `BTreeMap` without a
/// map's code, nor a sort's (about 10 KB of the page's gzipped wasm together).
struct NamedList<K, V>(Vec<(K, V)>);

impl<K: Serialize, V: Serialize> Serialize for NamedList<K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

fn ms(m: Micros) -> f64 {
    m.as_millis_f64()
}

/// `retrylab explain --format json`.
#[derive(Serialize)]
pub struct Explain {
    link: String,
    steps: Vec<ExplainStep>,
    stop_reason: &'static str,
    end_ms: f64,
    fingerprint: String,
}

#[derive(Serialize)]
struct ExplainStep {
    attempt: u32,
    t_ms: f64,
    remaining_ms: Option<f64>,
    timeout_ms: f64,
    timeout_why: crate::TimeoutWhy,
    outcome: String,
    took_ms: f64,
    cut_off: bool,
    verdict: &'static str,
    retryable: bool,
    reason: &'static str,
    explanation: &'static str,
    attempts_left: u32,
    remaining_after_ms: Option<f64>,
    budget: Option<BudgetStepJson>,
    budget_after: Option<f64>,
    ceiling_ms: Option<f64>,
    drawn_ms: Option<f64>,
    wait_ms: Option<f64>,
    wait_source: Option<crate::WaitSource>,
    need_ms: Option<f64>,
    fits: Option<bool>,
    decision: &'static str,
}

#[derive(Serialize)]
struct BudgetStepJson {
    allowed: bool,
    level: f64,
    cost: f64,
}

impl Explain {
    /// The document for a link and its trace.
    pub fn new(p: &Params, t: &Trace) -> Self {
        let steps = t
            .steps
            .iter()
            .map(|s| {
                let af = &s.after;
                let c = &af.classification;
                ExplainStep {
                    attempt: s.plan.attempt,
                    t_ms: ms(s.plan.start),
                    remaining_ms: s.plan.remaining.map(ms),
                    timeout_ms: ms(s.plan.timeout),
                    timeout_why: s.plan.why,
                    outcome: s.outcome.to_string(),
                    took_ms: ms(s.took),
                    cut_off: s.cut_off,
                    verdict: c.verdict.name(),
                    retryable: c.retryable,
                    reason: c.reason.name(),
                    explanation: c.reason.explain(),
                    attempts_left: af.attempts_left,
                    remaining_after_ms: af.remaining.map(ms),
                    budget: af.budget.map(|b| BudgetStepJson {
                        allowed: b.allowed,
                        level: b.level.milli as f64 / 1000.0,
                        cost: b.cost_milli as f64 / 1000.0,
                    }),
                    budget_after: s.budget_after.map(|l| l.milli as f64 / 1000.0),
                    ceiling_ms: af.draw.map(|d| ms(d.ceiling)),
                    drawn_ms: af.draw.map(|d| ms(d.wait)),
                    wait_ms: af.wait.map(ms),
                    wait_source: af.wait_source,
                    need_ms: af.fit.map(|f| ms(f.need)),
                    fits: af.fit.map(|f| f.fits),
                    decision: af.stop.map_or("retry", |r| r.name()),
                }
            })
            .collect();
        Explain {
            link: p.to_string(),
            steps,
            stop_reason: t.stop_reason.name(),
            end_ms: ms(t.end),
            fingerprint: format!("{:016x}", t.fingerprint()),
        }
    }
}

/// `retrylab schedule --format json`.
#[derive(Serialize)]
pub struct ScheduleDoc {
    link: String,
    /// The policy in one line (attempts, the wait's formula, the jitter, the Retry-After rule).
    formula: String,
    clients: u32,
    retries: Vec<Retry>,
    /// Side B of a link with `b.` keys, drawn for the same clients.
    #[serde(skip_serializing_if = "Option::is_none")]
    b: Option<alloc::boxed::Box<ScheduleDoc>>,
}

#[derive(Serialize)]
struct Retry {
    retry: u32,
    low_ms: f64,
    ceiling_ms: f64,
    waits_ms: Vec<f64>,
}

impl ScheduleDoc {
    /// The document for a link and its schedule.
    pub fn new(p: &Params, s: &Schedule) -> Self {
        ScheduleDoc {
            link: p.to_string(),
            formula: crate::describe_policy(p),
            b: schedule_b(p).map(|(b, sb)| alloc::boxed::Box::new(ScheduleDoc::new(&b, &sb))),
            clients: s.clients,
            retries: s
                .retries
                .iter()
                .map(|r| Retry {
                    retry: r.retry,
                    low_ms: ms(r.low),
                    ceiling_ms: ms(r.ceiling),
                    waits_ms: r.waits.iter().map(|w| ms(*w)).collect(),
                })
                .collect(),
        }
    }
}

/// `retrylab amplify --format json`: the analysis as the core derives it, with the fix grouped.
#[derive(Serialize)]
pub struct AmplifyDoc<'a> {
    layers: &'a [u32],
    p: f64,
    worst_case: u64,
    expected: f64,
    failure_probability: f64,
    rows: &'a [crate::LayerRow],
    fix: Fix<'a>,
}

#[derive(Serialize)]
struct Fix<'a> {
    layers: &'a [u32],
    worst_case: u64,
    expected: f64,
}

impl<'a> AmplifyDoc<'a> {
    /// The document for an analysis.
    pub fn new(r: &'a Amplification) -> Self {
        AmplifyDoc {
            layers: &r.layers,
            p: r.p,
            worst_case: r.worst_case,
            expected: r.expected,
            failure_probability: r.failure_probability,
            rows: &r.rows,
            fix: Fix {
                layers: &r.fix_layers,
                worst_case: r.fix_worst_case,
                expected: r.fix_expected,
            },
        }
    }
}

/// `retrylab analyze --format json`: the analytic twin's figures, with the chain it solved.
#[derive(Serialize)]
pub struct AnalyzeDoc {
    link: String,
    states: usize,
    mean_queue: f64,
    mean_waiting: f64,
    mean_orbit: f64,
    p_high_mode: f64,
    relaxation_per_s: Option<f64>,
    mixing_s: Option<f64>,
    drain_s: Option<f64>,
    collapse_s: Option<f64>,
    converged: bool,
    chain: ChainDoc,
}

/// The chain's parameters as read from the link.
#[derive(Serialize)]
struct ChainDoc {
    arrivals_per_s: f64,
    service_per_s: f64,
    workers: u32,
    queue_limit: u32,
    retry_per_s: f64,
    retry_share: f64,
    congested_at: u32,
    orbit_max: u32,
}

impl AnalyzeDoc {
    /// The document for a link's analysis.
    pub fn new(p: &crate::Params, a: &crate::Analysis) -> Self {
        let (r, s) = (&a.result, &a.spec);
        AnalyzeDoc {
            link: p.to_string(),
            states: r.states,
            mean_queue: r.mean_queue,
            mean_waiting: r.mean_waiting,
            mean_orbit: r.mean_orbit,
            p_high_mode: r.p_high_mode,
            relaxation_per_s: r.relaxation_per_s,
            mixing_s: r.mixing_s,
            drain_s: r.drain_s,
            collapse_s: r.collapse_s,
            converged: r.converged,
            chain: ChainDoc {
                arrivals_per_s: s.lambda,
                service_per_s: s.mu,
                workers: s.workers,
                queue_limit: s.queue_limit,
                retry_per_s: s.nu,
                retry_share: s.retry_p,
                congested_at: s.congested_at,
                orbit_max: s.orbit_max,
            },
        }
    }
}

/// A run's summary with its failures by reason name.
#[derive(Serialize)]
pub struct SummaryDoc {
    originals: u64,
    attempts: u64,
    amplification: f64,
    successes: u64,
    success_rate: f64,
    peak_attempts_per_s: f64,
    attempts_per_s_at: Option<f64>,
    completion_ms: f64,
    p50_ms: Option<f64>,
    p99_ms: Option<f64>,
    p999_ms: Option<f64>,
    duplicates: u64,
    failures: NamedList<&'static str, u64>,
    served: u64,
    /// The queue or flaky server's own figures (goodput, throughput, wasted work, time and
    /// number at the server, queueing), as the table prints them; absent for the tick server.
    #[serde(skip_serializing_if = "Option::is_none")]
    server: Option<ServerSummary>,
    /// The adaptive rate limiter's figures; absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    limiter: Option<crate::sim::LimiterSummary>,
    /// Hedging's figures (hedges sent, the extra load, requests won by a hedge, attempts
    /// cancelled unstarted, work for finished requests); absent without `hedge=on`.
    #[serde(skip_serializing_if = "Option::is_none")]
    hedge: Option<crate::sim::HedgeSummary>,
    /// Whether the run recovered after its trigger; absent without one (or when the run
    /// cannot tell).
    #[serde(skip_serializing_if = "Option::is_none")]
    recovered: Option<bool>,
    /// Seconds from the trigger's end to the recovery; null when it did not recover, absent
    /// without a trigger.
    #[serde(skip_serializing_if = "Option::is_none")]
    recovery_s: Option<Option<f64>>,
    /// The trigger's end, the baseline goodput, when it recovered and how long it was watched.
    #[serde(skip_serializing_if = "Option::is_none")]
    recovery: Option<crate::sim::Recovery>,
    /// The population engine's step when it ran the storm; absent when every request ran as
    /// its own events.
    #[serde(skip_serializing_if = "Option::is_none")]
    population: Option<crate::sim::PopulationSummary>,
    /// With `runs` over 1: each mean's 95% interval (`{"low", "high"}`, a percentile bootstrap
    /// over the runs) and how many runs recovered (`k` of `n`, Clopper-Pearson); absent for
    /// one run.
    #[serde(skip_serializing_if = "Option::is_none")]
    intervals: Option<crate::sim::interval::Intervals>,
}

impl SummaryDoc {
    /// The document for a summary.
    pub fn new(s: &Summary) -> Self {
        SummaryDoc {
            originals: s.originals,
            attempts: s.attempts,
            amplification: s.amplification,
            successes: s.successes,
            success_rate: s.success_rate,
            peak_attempts_per_s: s.peak_attempts_per_s,
            attempts_per_s_at: s.attempts_per_s_at,
            completion_ms: s.completion_ms,
            p50_ms: s.p50_ms,
            p99_ms: s.p99_ms,
            p999_ms: s.p999_ms,
            duplicates: s.duplicates,
            failures: NamedList(
                failure_reasons()
                    .map(|r| (r.name(), s.failures[r.index()]))
                    .collect(),
            ),
            served: s.served,
            server: s.server,
            limiter: s.limiter,
            hedge: s.hedge,
            recovered: s.recovery.map(|r| r.recovered()),
            recovery_s: s.recovery.map(|r| r.recovery_s()),
            recovery: s.recovery,
            population: s.population,
            intervals: s.intervals,
        }
    }
}

/// Every way a request fails, in their names' alphabetical order (the documents' order).
const FAILURES: [StopReason; 6] = [
    StopReason::AttemptsUsedUp,
    StopReason::BreakerOpen,
    StopReason::BudgetEmpty,
    StopReason::DeadlinePassed,
    StopReason::NotRetryable,
    StopReason::WontFit,
];

fn failure_reasons() -> impl Iterator<Item = StopReason> {
    FAILURES.into_iter()
}

/// The first run's time series, one array per measure.
#[derive(Serialize)]
struct SeriesJson {
    bin_ms: f64,
    t_ms: Vec<f64>,
    originals: Vec<u32>,
    attempts: Vec<u32>,
    retries: Vec<u32>,
    successes: Vec<u32>,
    failures: NamedList<&'static str, Vec<u32>>,
    utilisation: Vec<f64>,
    budget: Vec<f64>,
    in_flight: Vec<u32>,
    /// With `runs` > 1, each bin's range of attempts over the runs (`band_runs` of `runs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    attempts_low: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    attempts_high: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    band_runs: Option<u32>,
}

impl SeriesJson {
    fn new(r: &SimReport) -> Self {
        let b = &r.series.bins;
        let col = |f: fn(&Bin) -> u32| b.iter().map(f).collect::<Vec<u32>>();
        SeriesJson {
            bin_ms: r.series.bin_ms,
            t_ms: (0..b.len()).map(|i| i as f64 * r.series.bin_ms).collect(),
            originals: col(|x| x.originals),
            attempts: col(|x| x.attempts),
            retries: col(|x| x.retries),
            successes: col(|x| x.successes),
            failures: NamedList(
                failure_reasons()
                    .map(|reason| {
                        let i = reason.index();
                        (reason.name(), b.iter().map(|x| x.failures[i]).collect())
                    })
                    .collect(),
            ),
            utilisation: b.iter().map(Bin::utilisation).collect(),
            budget: b.iter().map(|x| x.budget_milli as f64 / 1000.0).collect(),
            in_flight: col(|x| x.in_flight),
            attempts_low: r.band.as_ref().map(|band| band.low.clone()),
            attempts_high: r.band.as_ref().map(|band| band.high.clone()),
            band_runs: r.band.as_ref().map(|band| band.kept),
        }
    }
}

/// `retrylab run --format json`.
#[derive(Serialize)]
pub struct RunDoc {
    link: String,
    scenario: &'static str,
    runs: u32,
    summary: SummaryDoc,
    series: SeriesJson,
    /// A `layers` link's stack, one row per layer in `LAYER_COLUMNS` order (absent otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    layers: Vec<[String; 9]>,
    /// The names of a layer row's cells (with `layers` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    layer_columns: Option<[&'static str; 9]>,
}

impl RunDoc {
    /// The document for a run.
    pub fn new(p: &Params, r: &SimReport) -> Self {
        RunDoc {
            link: p.to_string(),
            scenario: r.scenario.name(),
            runs: r.runs,
            summary: SummaryDoc::new(&r.summary),
            series: SeriesJson::new(r),
            layers: p.layer_rows(),
            layer_columns: (!p.layer_attempts().is_empty())
                .then_some(crate::layer_keys::LAYER_COLUMNS),
        }
    }
}

/// One side of `retrylab compare --format json`.
#[derive(Serialize)]
pub struct Side {
    link: String,
    summary: SummaryDoc,
}

/// `retrylab compare --format json`.
#[derive(Serialize)]
pub struct CompareDoc {
    a: Side,
    b: Side,
}

impl CompareDoc {
    /// Both sides.
    pub fn new(pa: &Params, ra: &Summary, pb: &Params, rb: &Summary) -> Self {
        let side = |p: &Params, s: &Summary| Side {
            link: p.to_string(),
            summary: SummaryDoc::new(s),
        };
        CompareDoc {
            a: side(pa, ra),
            b: side(pb, rb),
        }
    }
}

/// `retrylab sweep --format json`: each row's swept values by key, and its summary.
#[derive(Serialize)]
pub struct SweepDoc {
    link: String,
    rows: Vec<SweepRow>,
}

#[derive(Serialize)]
struct SweepRow {
    #[serde(flatten)]
    values: NamedList<String, String>,
    summary: SummaryDoc,
}

impl SweepDoc {
    /// The document for a sweep over `keys`.
    pub fn new(base: &Params, keys: &[&str], rows: &[(Vec<String>, Summary)]) -> Self {
        SweepDoc {
            link: base.to_string(),
            rows: rows
                .iter()
                .map(|(vals, s)| SweepRow {
                    values: NamedList(
                        keys.iter()
                            .zip(vals)
                            .map(|(k, v)| ((*k).to_string(), v.clone()))
                            .collect(),
                    ),
                    summary: SummaryDoc::new(s),
                })
                .collect(),
        }
    }
}

/// A preset's settings as one link: `attempts=3&backoff=full&...` (a later group overrides an
/// earlier one's key).
pub fn preset_settings(p: Preset) -> String {
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for &(k, v) in p.settings().iter().flat_map(|group| group.iter()) {
        match pairs.iter_mut().find(|(seen, _)| *seen == k) {
            Some(pair) => pair.1 = v,
            None => pairs.push((k, v)),
        }
    }
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// Side B of a policy link with `b.` keys and its schedule, drawn for side A's clients; `None`
/// without a side B, or when B's schedule cannot be drawn (`json::inputs::schedule_of` refuses
/// such a link first, naming B).
pub fn schedule_b(p: &Params) -> Option<(Params, Schedule)> {
    let mut b = p.side_b()?.clone();
    b.clients = p.clients;
    let s = crate::schedule(&b).ok()?;
    Some((b, s))
}

/// One preset of `retrylab presets --format json`.
#[derive(Serialize)]
pub struct PresetDoc {
    name: &'static str,
    title: &'static str,
    sets: String,
    /// For a client library's preset: its ecosystem, version, source and what it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    client: Option<ClientDoc>,
}

/// What a client preset follows (`retrylab presets --format json`).
#[derive(Serialize)]
pub struct ClientDoc {
    ecosystem: &'static str,
    version: &'static str,
    source: &'static str,
    meaning: &'static str,
    /// The policy in one line (attempts, the wait's formula, the jitter, the Retry-After rule).
    formula: String,
}

/// `retrylab presets --format json`: every preset, in the menu's order.
pub fn presets() -> Vec<PresetDoc> {
    Preset::ALL
        .iter()
        .map(|p| PresetDoc {
            name: p.name(),
            title: p.title(),
            sets: preset_settings(*p),
            client: p.client().map(|c| ClientDoc {
                ecosystem: c.ecosystem.label(),
                version: c.version,
                source: c.source,
                meaning: c.meaning,
                formula: format!("preset={}", c.name)
                    .parse::<Params>()
                    .map(|q| crate::describe_policy(&q))
                    .unwrap_or_default(),
            }),
        })
        .collect()
}

/// One key of `retrylab keys --format json`.
#[derive(Serialize)]
pub struct KeyDoc {
    name: &'static str,
    default: &'static str,
    accepts: String,
    unit: &'static str,
    applies: String,
    meaning: &'static str,
}

/// `retrylab keys --format json`: every link key, in the table's order.
pub fn keys() -> Vec<KeyDoc> {
    link_keys::TABLE
        .iter()
        .map(|k| KeyDoc {
            name: k.name,
            default: k.default,
            accepts: k.domain.accepted(),
            unit: k.unit,
            applies: if k.applies == Applies::ALL {
                "all".to_string()
            } else {
                k.applies.describe()
            },
            meaning: k.meaning,
        })
        .collect()
}

/// One lesson of `retrylab lessons --format json`.
#[derive(Serialize)]
pub struct LessonDoc {
    id: &'static str,
    title: &'static str,
    link: &'static str,
    look_for: &'static str,
    /// What the run shows, said after the guess.
    after: &'static str,
    question: Option<&'static str>,
    unit: &'static str,
}

/// `retrylab lessons --format json`: every lesson, in the menu's order.
pub fn lessons() -> Vec<LessonDoc> {
    crate::LESSONS
        .iter()
        .map(|l| LessonDoc {
            id: l.id,
            title: l.title,
            link: l.link,
            look_for: l.look_for,
            after: l.after,
            question: l.question,
            unit: l.unit,
        })
        .collect()
}

/// `retrylab answer --format json`: what a link asks and the lab's answer.
#[derive(Serialize, Clone, Debug)]
pub struct AnswerDoc {
    /// The canonical link.
    pub link: String,
    /// The question, in words.
    pub question: String,
    /// What it asks for, as the `ask` key writes it.
    pub ask: String,
    /// The answer as the page shows it, rounded for people, with its unit.
    pub answer: String,
    /// What a guess is compared with: the exact number (in `unit`) or a word.
    pub exact: String,
    /// The unit of a number answer ("" for a word).
    pub unit: &'static str,
    /// The link's guess, if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guess: Option<String>,
    /// Whether the guess is right (`judge`), if the link has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub right: Option<bool>,
}

impl AnswerDoc {
    /// The document for a link, its exercise and the lab's answer.
    pub fn new(p: &Params, ex: &crate::Exercise, said: &crate::Said) -> AnswerDoc {
        AnswerDoc {
            link: p.to_string(),
            question: ex.question.clone(),
            ask: ex.answer.text(),
            answer: said.shown.clone(),
            exact: said.compared.clone(),
            unit: ex.unit,
            guess: p.guess.clone(),
            right: p
                .guess
                .as_deref()
                .map(|g| crate::judge(&said.compared, ex.unit, g)),
        }
    }
}

/// `retrylab sheet --format json`: a sheet's title, the one link that opens it, and its
/// answer key.
#[derive(Serialize, Clone, Debug)]
pub struct SheetDoc {
    /// The sheet's title.
    pub title: String,
    /// The link (a query) that opens the sheet at its first exercise.
    pub link: String,
    /// Each exercise with its answer, in order.
    pub exercises: Vec<AnswerDoc>,
}

/// One row of `retrylab compare --steps --format json`.
#[derive(Serialize, Clone, Debug)]
pub struct StepDoc {
    /// The piece applied (`side A` for the first row).
    pub step: &'static str,
    /// The keys it changed, as link text ("" for the first row).
    pub changes: String,
    /// The link after this step.
    pub link: String,
    /// What the piece does, in one line.
    pub meaning: &'static str,
    /// Attempts per original.
    pub amplification: f64,
    /// Share of originals that succeeded, in [0, 1].
    pub success_rate: f64,
    /// 99th percentile latency of successes, in ms.
    pub p99_ms: Option<f64>,
    /// The busiest second's attempts.
    pub peak_attempts_per_s: f64,
}

/// `retrylab compare --steps --format json`: the ladder from side A to side B, first row A,
/// last row B.
#[derive(Serialize, Clone, Debug)]
pub struct StepsDoc {
    /// Side A's link.
    pub a: String,
    /// Side B's link.
    pub b: String,
    /// One row per step.
    pub steps: Vec<StepDoc>,
}

impl StepsDoc {
    /// The document for the two sides, their steps and each step's summary.
    pub fn new(
        a: &Params,
        b: &Params,
        steps: &[crate::LadderStep],
        summaries: &[Summary],
    ) -> StepsDoc {
        StepsDoc {
            a: a.to_string(),
            b: b.to_string(),
            steps: steps
                .iter()
                .zip(summaries)
                .map(|(st, s)| StepDoc {
                    step: st.piece.name,
                    changes: st.changes.clone(),
                    link: st.params.to_string(),
                    meaning: st.piece.meaning,
                    amplification: s.amplification,
                    success_rate: s.success_rate,
                    p99_ms: s.p99_ms,
                    peak_attempts_per_s: s.peak_attempts_per_s,
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_every_stop_but_success_in_name_order() {
        let names: Vec<&str> = FAILURES.iter().map(|r| r.name()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        let all: Vec<StopReason> = StopReason::ALL
            .into_iter()
            .filter(|r| *r != StopReason::Success)
            .collect();
        assert_eq!(all.len(), FAILURES.len());
        assert!(all.iter().all(|r| FAILURES.contains(r)));
    }
}
