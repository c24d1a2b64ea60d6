//! A run's report as the words and numbers people read: the summary rows the CLI prints and the
//! page shows as tiles, rounded for people (`195x`, `3.79%`, `7.05 s`), and the series per second the timeline
//! draws. Written once, here, so the page and the CLI cannot disagree.
//!
//! ```
//! use retry_model::{sim::simulate, Params};
//! let p: Params = "preset=layers-333".parse().unwrap();
//! let rows = simulate(&p).unwrap().summary.rows();
//! assert_eq!(rows[2], ("amplification".to_string(), "27x".to_string()));
//! ```

use super::interval::{Interval, Intervals, FEW_RUNS};
use super::metrics::{Report, Summary};
use crate::retry::policy::StopReason;
use crate::retry::text::{percent_people, sig3};
use crate::retry::time::millis_people;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

fn ms(v: Option<f64>) -> String {
    v.map_or("-".to_string(), millis_people)
}

impl Summary {
    /// The summary as (label, value) rows, in the order `retrylab run` prints them.
    pub fn rows(&self) -> Vec<(String, String)> {
        let s = self;
        let iv = s.intervals.unwrap_or_default();
        let times = |v: f64| format!("{}x", sig3(v));
        let ms_iv =
            |v: Option<f64>, i: Option<Interval>| format!("{}{}", ms(v), within(i, millis_people));
        let mut out: Vec<(String, String)> = [
            ("originals", s.originals.to_string()),
            ("attempts", s.attempts.to_string()),
            (
                "amplification",
                ranged(s.amplification, iv.amplification, times),
            ),
            ("successes", s.successes.to_string()),
            (
                "success rate",
                ranged(s.success_rate, iv.success_rate, percent_people),
            ),
            (
                "peak attempts/s",
                ranged(s.peak_attempts_per_s, iv.peak_attempts_per_s, sig3),
            ),
            (
                "attempts/s at read time",
                s.attempts_per_s_at.map_or("-".to_string(), sig3),
            ),
            (
                "completion",
                ranged(s.completion_ms, iv.completion_ms, millis_people),
            ),
            ("p50 latency (successes)", ms_iv(s.p50_ms, iv.p50_ms)),
            ("p99 latency (successes)", ms_iv(s.p99_ms, iv.p99_ms)),
            ("p99.9 latency (successes)", ms_iv(s.p999_ms, iv.p999_ms)),
            ("duplicate effects", s.duplicates.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        for r in StopReason::ALL
            .iter()
            .filter(|r| **r != StopReason::Success)
        {
            out.push((
                format!("failed: {}", r.name()),
                s.failures[r.index()].to_string(),
            ));
        }
        if let Some(sv) = &s.server {
            out.extend(server_rows(sv));
        }
        if let Some(l) = &s.limiter {
            out.extend(limiter_rows(l));
        }
        if let Some(h) = &s.hedge {
            out.extend(hedge_rows(h));
        }
        if let Some(r) = &s.recovery {
            // Over runs that disagree, the mean run's sentence would say "no" for a system
            // that recovered in some of them: the count says it.
            let text = match s.intervals.and_then(|i| i.recovered) {
                Some(sh) if sh.k > 0 && sh.k < sh.n => {
                    format!("in {} of {} runs, not in every one", sh.k, sh.n)
                }
                _ => r.text(),
            };
            out.push(("recovered".to_string(), text));
        }
        if let Some(pop) = &s.population {
            let step = millis_people(pop.tick_ms);
            out.push(("engine".to_string(), format!("population, {step} steps")));
        }
        out.extend(interval_rows(s.intervals.as_ref()));
        out
    }
}

impl Summary {
    /// Whether the run recovered after its trigger; over several runs, whether more than half
    /// of them did (the side of a phase plot's boundary). `None` without a verdict.
    pub fn verdict(&self) -> Option<bool> {
        match self.intervals.and_then(|i| i.recovered) {
            Some(r) => Some(2 * r.k > r.n),
            None => Some(self.recovery?.recovered()),
        }
    }

    /// Over several runs, the share that did not recover: the probability of collapse a
    /// phase plot's cell shows. `None` for one run or without a verdict.
    pub fn collapse(&self) -> Option<f64> {
        self.intervals
            .and_then(|i| i.recovered)
            .map(|r| 1.0 - r.share())
    }
}

/// `v` in `f`'s words, then its interval over runs, if any.
fn ranged(v: f64, i: Option<Interval>, f: impl Fn(f64) -> String) -> String {
    format!("{}{}", f(v), within(i, f))
}

/// ` (95%: a to b)` in `f`'s words, or nothing for a single run.
fn within(i: Option<Interval>, f: impl Fn(f64) -> String) -> String {
    match i {
        None => String::new(),
        Some(i) if i.low == i.high => " (alike in every run)".to_string(),
        Some(i) => format!(" (95%: {} to {})", f(i.low), f(i.high)),
    }
}

/// The runs the intervals are over, and the share of them that recovered.
fn interval_rows(iv: Option<&Intervals>) -> Vec<(String, String)> {
    let Some(iv) = iv else {
        return Vec::new();
    };
    let rough = if iv.runs < FEW_RUNS {
        ", rough under 10 runs"
    } else {
        ""
    };
    let ran = if iv.runs < iv.planned {
        format!(
            "{} of {} (stopped once the share that recovered was clear of 50%)",
            iv.runs, iv.planned
        )
    } else {
        iv.runs.to_string()
    };
    let mut out = alloc::vec![(
        "runs".to_string(),
        format!("{ran}: 95% intervals by bootstrap over the runs{rough}"),
    )];
    if let Some(r) = iv.recovered {
        let i = r.interval;
        out.push((
            "recovered in runs".to_string(),
            format!(
                "{} of {} (95%: {} to {})",
                r.k,
                r.n,
                percent_people(i.low),
                percent_people(i.high)
            ),
        ));
    }
    out
}

/// A summary row's meaning in one line, for people who have not met the term: the page shows it
/// under each tile. Every row [`Summary::rows`] writes has one (a test holds it).
pub fn row_meaning(label: &str) -> Option<&'static str> {
    if let Some(name) = label.strip_prefix("failed: ") {
        // Why such a request stopped, in the words the step trace uses.
        return StopReason::ALL
            .iter()
            .find(|r| r.name() == name)
            .map(|r| r.explain());
    }
    Some(match label {
        "originals" => "requests the users sent, each counted once however often it was tried",
        "attempts" => "calls that reached for the server: the first try and every retry",
        "amplification" => {
            "attempts per original request: 1x means no retries, 3x triples the load"
        }
        "successes" => "requests that got an answer in the end",
        "success rate" => "successes out of the original requests",
        "peak attempts/s" => "the busiest second's attempts: what the server had to face at worst",
        "attempts/s at read time" => "attempts per second at the time the at= key names",
        "completion" => "when the last request finished, from the start of the run",
        "p50 latency (successes)" => {
            "half of the successful requests took less than this, retries included"
        }
        "p99 latency (successes)" => {
            "99 in 100 successful requests took less than this: the slow tail"
        }
        "p99.9 latency (successes)" => "999 in 1000 successful requests took less than this",
        "runs" => "independent runs of the link, each from its own seed: the figures are their means",
        "recovered in runs" => {
            "how many of the runs recovered after the trigger, with the exact (Clopper-Pearson) interval of the share"
        }
        "duplicate effects" => {
            "operations applied twice because a retry repeated one that had worked"
        }
        "goodput (successes/s)" => "useful work: successful answers per second",
        "throughput (work done/s)" => {
            "all the work the server did per second, wasted work included"
        }
        "wasted work (caller gone)" => "work finished after its caller had given up on it",
        "arrivals at the server/s" => "attempts reaching the server per second",
        "mean time at the server" => "the average time an attempt spent queued and in service",
        "mean number at the server" => "the average number of attempts queued or in service",
        "waited in the queue" => "attempts that had to wait for a worker",
        "refused, queue full" => "attempts turned away because the queue was full",
        "dropped, caller gone" => "queued attempts thrown away because their caller had timed out",
        "longest queue" => "the most attempts waiting at once",
        "closed form 1-f^N" => "the success rate the formula predicts for N independent tries",
        "closed form 1+f+..+f^N-1" => "the attempts per request the formula predicts",
        "hedges sent" => "extra copies of slow requests sent before the first answered",
        "extra load" => "how much the hedges added to the attempts",
        "won by a hedge" => "requests whose answer came from a hedge",
        "cancelled unstarted" => "hedges cancelled before the server started them",
        "work after the winner" => "work the server did on copies after one had already answered",
        "throttling answers" => "answers asking the client to slow down",
        "sends that waited" => "attempts the client-side limiter held back",
        "mean wait for a token" => "the average time an attempt waited for the limiter",
        "allowed rate at the end" => "the send rate the limiter allowed when the run ended",
        "recovered" => {
            "whether the system returned to normal after the trigger ended, and how fast"
        }
        "engine" => {
            "counts of requests stepped a server tick at a time, not every request on its own: see its approximations in the docs"
        }
        _ => return None,
    })
}

/// A queue or flaky server's rows of a summary.
fn server_rows(sv: &super::ServerSummary) -> Vec<(String, String)> {
    let pct = percent_people;
    let mut rows = alloc::vec![
        ("goodput (successes/s)", sig3(sv.goodput_per_s)),
        ("throughput (work done/s)", sig3(sv.throughput_per_s)),
        ("wasted work (caller gone)", pct(sv.wasted_share)),
        ("arrivals at the server/s", sig3(sv.arrivals_per_s)),
        ("mean time at the server", millis_people(sv.mean_time_ms)),
        ("mean number at the server", sig3(sv.mean_in_system)),
    ];
    // The flaky dependency has no queue: its queue figures would all read 0.
    if sv.queueing {
        rows.extend([
            ("waited in the queue", pct(sv.wait_share)),
            ("refused, queue full", sv.refused.to_string()),
            ("dropped, caller gone", sv.dropped.to_string()),
            ("longest queue", sv.max_queue.to_string()),
        ]);
    }
    // The flaky dependency's closed forms, beside what the run measured.
    if let Some(c) = sv.closed_form {
        rows.extend([
            ("closed form 1-f^N", percent_people(c.success)),
            (
                "closed form 1+f+..+f^N-1",
                format!("{}x", sig3(c.amplification)),
            ),
        ]);
    }
    rows.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// Hedging's rows of a summary.
fn hedge_rows(h: &super::HedgeSummary) -> [(String, String); 5] {
    [
        ("hedges sent".to_string(), h.sent.to_string()),
        (
            "extra load".to_string(),
            format!("+{}", percent_people(h.extra_load)),
        ),
        ("won by a hedge".to_string(), h.won.to_string()),
        ("cancelled unstarted".to_string(), h.cancelled.to_string()),
        ("work after the winner".to_string(), h.wasted.to_string()),
    ]
}

/// The adaptive limiter's rows of a summary.
fn limiter_rows(l: &super::LimiterSummary) -> [(String, String); 4] {
    [
        ("throttling answers".to_string(), l.throttles.to_string()),
        ("sends that waited".to_string(), l.waited.to_string()),
        (
            "mean wait for a token".to_string(),
            millis_people(l.mean_wait_ms),
        ),
        (
            "allowed rate at the end".to_string(),
            format!("{}/s", sig3(l.allowed_per_s)),
        ),
    ]
}

/// The first run's series as CSV, one row per bin, as `retrylab run --format csv` writes it
/// and the page exports it; with a band (`runs` > 1), each bin's range of attempts over the
/// runs in `attempts_low` and `attempts_high`.
pub fn series_csv(r: &Report, band: Option<&super::band::Band>) -> String {
    let reasons: Vec<StopReason> = StopReason::ALL
        .into_iter()
        .filter(|r| *r != StopReason::Success)
        .collect();
    let names: Vec<&str> = reasons.iter().map(|r| r.name()).collect();
    // A queue or flaky server adds its queue and its wasted work (other runs' CSV is unchanged).
    let queue = r.summary.server.is_some();
    // So does the adaptive limiter, with its allowed send rate.
    let limiter = r.summary.limiter.is_some();
    let allowed = limiter_rates(&r.bins);
    let mut out = format!(
        "t_ms,originals,attempts,retries,successes,{},utilisation,budget,in_flight{}{}\n",
        names.join(","),
        if queue {
            ",queue,wasted,at_server,retrying"
        } else {
            ""
        },
        if limiter { ",limiter_rate" } else { "" }
    );
    if band.is_some() {
        out.pop();
        out.push_str(",attempts_low,attempts_high\n");
    }
    for (i, b) in r.bins.iter().enumerate() {
        let fails: Vec<String> = reasons
            .iter()
            .map(|x| b.failures[x.index()].to_string())
            .collect();
        out.push_str(&format!(
            "{},{},{},{},{},{},{:.4},{},{}\n",
            i as f64 * r.bin_ms,
            b.originals,
            b.attempts,
            b.retries,
            b.successes,
            fails.join(","),
            b.utilisation(),
            b.budget_milli as f64 / 1000.0,
            b.in_flight
        ));
        if queue {
            out.pop();
            out.push_str(&format!(
                ",{},{},{},{}\n",
                b.queue, b.wasted, b.at_server, b.retrying
            ));
        }
        if limiter {
            out.pop();
            out.push_str(&format!(",{:.3}\n", allowed[i]));
        }
        if let Some(band) = band {
            let (lo, hi) = (band.low.get(i), band.high.get(i));
            out.pop();
            out.push_str(&format!(",{},{}\n", lo.unwrap_or(&0), hi.unwrap_or(&0)));
        }
    }
    out
}

/// The summary as a Markdown table, as `retrylab run --format markdown` writes it.
pub fn summary_markdown(s: &Summary) -> String {
    let mut out = String::from("| metric | value |\n|---|---|\n");
    for (k, v) in s.rows() {
        out.push_str(&format!("| {k} | {v} |\n"));
    }
    out
}

/// The before/after table, as `retrylab compare` prints it and the page copies it: both links,
/// then one Markdown row per summary row.
pub fn compare_markdown(a_link: &str, a: &Summary, b_link: &str, b: &Summary) -> String {
    let mut out =
        format!("A: `?{a_link}`  \nB: `?{b_link}`\n\n| metric | A | B |\n|---|---:|---:|\n");
    // Rows by label: a side without a queue server has no server rows ("-").
    let (ra, rb) = (a.rows(), b.rows());
    let value = |rows: &[(String, String)], k: &str| {
        rows.iter()
            .find(|(l, _)| l == k)
            .map_or_else(|| "-".to_string(), |(_, v)| v.clone())
    };
    let mut labels: Vec<&String> = ra.iter().map(|(k, _)| k).collect();
    labels.extend(
        rb.iter()
            .map(|(k, _)| k)
            .filter(|k| !ra.iter().any(|(l, _)| l == *k)),
    );
    for k in labels {
        out.push_str(&format!(
            "| {k} | {} | {} |\n",
            value(&ra, k),
            value(&rb, k)
        ));
    }
    out
}

/// One time bin per second: what the timeline draws.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Rates {
    /// The bin's start, in seconds.
    pub t_s: f64,
    /// Original requests per second (the offered load, apart from retries).
    pub originals: f64,
    /// Attempts per second, first ones included.
    pub attempts: f64,
    /// Successful requests per second.
    pub successes: f64,
    /// Failed requests per second.
    pub failures: f64,
    /// Share of the server's capacity used, 0 to 1.
    pub utilisation: f64,
    /// Requests in flight at the bin's end.
    pub in_flight: u32,
    /// Failed requests per second by stop reason, in [`StopReason::ALL`] order.
    pub failures_by: [f64; 7],
    /// The budget's level at the bin's end, in tokens (0 without a budget).
    pub budget: f64,
    /// The breaker's state: 0 none seen, 1 closed, 2 half-open, 3 open.
    pub breaker: u8,
    /// The most requests waiting in the server's queue during the bin.
    pub queue: u32,
    /// Work finished for callers who had given up, per second.
    pub wasted: f64,
    /// Work the server did, per second.
    pub served: f64,
    /// The send rate the adaptive limiters allowed at the bin's end, per second (0 without one,
    /// or before one turned on).
    pub limiter: f64,
    /// Attempts at the server at the bin's end, waiting and in service (a queue server).
    pub at_server: u32,
    /// Requests in flight at the bin's end that have sent more than one attempt.
    pub retrying: u32,
}

impl Report {
    /// The series per second, bin by bin.
    pub fn rates(&self) -> Vec<Rates> {
        let per_s = if self.bin_ms > 0.0 {
            1000.0 / self.bin_ms
        } else {
            0.0
        };
        let allowed = limiter_rates(&self.bins);
        self.bins
            .iter()
            .zip(allowed)
            .enumerate()
            .map(|(i, (b, limiter))| Rates {
                t_s: i as f64 * self.bin_ms / 1000.0,
                originals: f64::from(b.originals) * per_s,
                attempts: f64::from(b.attempts) * per_s,
                successes: f64::from(b.successes) * per_s,
                failures: b.failures.iter().map(|f| f64::from(*f)).sum::<f64>() * per_s,
                utilisation: b.utilisation(),
                in_flight: b.in_flight,
                failures_by: b.failures.map(|f| f64::from(f) * per_s),
                budget: b.budget_milli as f64 / 1000.0,
                breaker: b.breaker,
                queue: b.queue,
                wasted: f64::from(b.wasted) * per_s,
                served: f64::from(b.served) * per_s,
                limiter,
                at_server: b.at_server,
                retrying: b.retrying,
            })
            .collect()
    }
}

/// The limiters' allowed send rate per bin, per second: a bin without an answer keeps the
/// rate of the bin before (once on, a limiter always allows at least 0.5/s).
pub fn limiter_rates(bins: &[super::Bin]) -> Vec<f64> {
    let mut last = 0u64;
    bins.iter()
        .map(|b| {
            if b.limiter_milli > 0 {
                last = b.limiter_milli;
            }
            last as f64 / 1000.0
        })
        .collect()
}
