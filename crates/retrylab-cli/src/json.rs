//! The CLI's JSON output, as serde-derived types: one struct per document, field names as
//! `docs` and the tests name them. Durations are milliseconds (floats), budget amounts tokens.

use retry_model::sim::{Bin, ServerSummary, SimReport, Summary};
use retry_model::{Amplification, Micros, Params, Schedule, StopReason, Trace};
use serde::Serialize;
use std::collections::BTreeMap;

fn ms(m: Micros) -> f64 {
    m.as_millis_f64()
}

/// Pretty JSON and a newline.
pub fn pretty<T: Serialize>(v: &T) -> Result<String, String> {
    serde_json::to_string_pretty(v)
        .map(|s| s + "\n")
        .map_err(|e| e.to_string())
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
    timeout_why: retry_model::TimeoutWhy,
    outcome: String,
    took_ms: f64,
    cut_off: bool,
    verdict: &'static str,
    retryable: bool,
    reason: &'static str,
    explanation: &'static str,
    attempts_left: u32,
    remaining_after_ms: Option<f64>,
    budget: Option<BudgetStep>,
    budget_after: Option<f64>,
    ceiling_ms: Option<f64>,
    drawn_ms: Option<f64>,
    wait_ms: Option<f64>,
    wait_source: Option<retry_model::WaitSource>,
    need_ms: Option<f64>,
    fits: Option<bool>,
    decision: &'static str,
}

#[derive(Serialize)]
struct BudgetStep {
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
                    budget: af.budget.map(|b| BudgetStep {
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
    clients: u32,
    retries: Vec<Retry>,
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
    rows: &'a [retry_model::LayerRow],
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
    duplicates: u64,
    failures: BTreeMap<&'static str, u64>,
    served: u64,
    /// The queue or flaky server's own figures (goodput, throughput, wasted work, time and
    /// number at the server, queueing), as the table prints them; absent for the tick server.
    #[serde(skip_serializing_if = "Option::is_none")]
    server: Option<ServerSummary>,
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
            duplicates: s.duplicates,
            failures: failure_reasons()
                .map(|r| (r.name(), s.failures[r.index()]))
                .collect(),
            served: s.served,
            server: s.server,
        }
    }
}

fn failure_reasons() -> impl Iterator<Item = StopReason> {
    StopReason::ALL
        .into_iter()
        .filter(|r| *r != StopReason::Success)
}

/// The first run's time series, one array per measure.
#[derive(Serialize)]
struct Series {
    bin_ms: f64,
    t_ms: Vec<f64>,
    originals: Vec<u32>,
    attempts: Vec<u32>,
    retries: Vec<u32>,
    successes: Vec<u32>,
    failures: BTreeMap<&'static str, Vec<u32>>,
    utilisation: Vec<f64>,
    budget: Vec<f64>,
    in_flight: Vec<u32>,
}

impl Series {
    fn new(r: &SimReport) -> Self {
        let b = &r.series.bins;
        let col = |f: fn(&Bin) -> u32| b.iter().map(f).collect::<Vec<u32>>();
        Series {
            bin_ms: r.series.bin_ms,
            t_ms: (0..b.len()).map(|i| i as f64 * r.series.bin_ms).collect(),
            originals: col(|x| x.originals),
            attempts: col(|x| x.attempts),
            retries: col(|x| x.retries),
            successes: col(|x| x.successes),
            failures: failure_reasons()
                .map(|reason| {
                    let i = reason.index();
                    (reason.name(), b.iter().map(|x| x.failures[i]).collect())
                })
                .collect(),
            utilisation: b.iter().map(Bin::utilisation).collect(),
            budget: b.iter().map(|x| x.budget_milli as f64 / 1000.0).collect(),
            in_flight: col(|x| x.in_flight),
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
    series: Series,
}

impl RunDoc {
    /// The document for a run.
    pub fn new(p: &Params, r: &SimReport) -> Self {
        RunDoc {
            link: p.to_string(),
            scenario: r.scenario.name(),
            runs: r.runs,
            summary: SummaryDoc::new(&r.summary),
            series: Series::new(r),
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
    values: BTreeMap<String, String>,
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
                    values: keys
                        .iter()
                        .zip(vals)
                        .map(|(k, v)| ((*k).to_string(), v.clone()))
                        .collect(),
                    summary: SummaryDoc::new(s),
                })
                .collect(),
        }
    }
}
