//! A sweep's words and numbers: the summary metrics a sweep can plot ([`Metric`]) and its table
//! as CSV and Markdown, as `retrylab sweep` prints them and the page exports them.
//!
//! ```
//! use retry_model::sim::{Metric, Summary};
//! let s = Summary { amplification: 1.084, success_rate: 0.918, ..Summary::default() };
//! assert_eq!(Metric::Amplification.text(&s), "1.08x");
//! assert_eq!(Metric::SuccessRate.value(&s), Some(91.8));
//! assert_eq!(Metric::from_name("p99_ms"), Some(Metric::P99Ms));
//! ```

use super::interval::Interval;
use super::metrics::Summary;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// A summary number a sweep plots against the swept key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Original requests.
    Originals,
    /// Attempts (the 2015 study's write calls).
    Attempts,
    /// Attempts per original.
    Amplification,
    /// Requests that succeeded.
    Successes,
    /// Share of originals that succeeded, in percent.
    SuccessRate,
    /// The busiest second's attempts.
    PeakAttemptsPerS,
    /// When the last request ended.
    CompletionMs,
    /// Median latency of successes.
    P50Ms,
    /// 99th percentile latency of successes.
    P99Ms,
    /// 99.9th percentile latency of successes.
    P999Ms,
    /// Durable effects beyond one per original.
    Duplicates,
    /// Whether the run recovered after its trigger (1 or 0; none without a trigger).
    Recovered,
    /// Seconds from the trigger's end to the recovery (none if it did not recover).
    RecoveryS,
}

impl Metric {
    /// Every metric, in the sweep table's column order.
    pub const ALL: [Metric; 13] = [
        Metric::Originals,
        Metric::Attempts,
        Metric::Amplification,
        Metric::Successes,
        Metric::SuccessRate,
        Metric::PeakAttemptsPerS,
        Metric::CompletionMs,
        Metric::P50Ms,
        Metric::P99Ms,
        Metric::P999Ms,
        Metric::Duplicates,
        Metric::Recovered,
        Metric::RecoveryS,
    ];

    /// The name in links (`sweep.plot`) and the CSV header.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Originals => "originals",
            Metric::Attempts => "attempts",
            Metric::Amplification => "amplification",
            Metric::Successes => "successes",
            Metric::SuccessRate => "success_rate",
            Metric::PeakAttemptsPerS => "peak_attempts_per_s",
            Metric::CompletionMs => "completion_ms",
            Metric::P50Ms => "p50_ms",
            Metric::P99Ms => "p99_ms",
            Metric::P999Ms => "p999_ms",
            Metric::Duplicates => "duplicates",
            Metric::Recovered => "recovered",
            Metric::RecoveryS => "recovery_s",
        }
    }

    /// The metric a name gives.
    pub fn from_name(name: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Every name, comma separated, for messages.
    pub fn names() -> String {
        Metric::ALL.map(Metric::name).join(", ")
    }

    /// The Markdown table's column head.
    pub fn head(self) -> &'static str {
        match self {
            Metric::Originals => "originals",
            Metric::Attempts => "attempts",
            Metric::Amplification => "amplification",
            Metric::Successes => "success",
            Metric::SuccessRate => "success",
            Metric::PeakAttemptsPerS => "peak att/s",
            Metric::CompletionMs => "completion",
            Metric::P50Ms => "p50",
            Metric::P99Ms => "p99",
            Metric::P999Ms => "p99.9",
            Metric::Duplicates => "duplicates",
            Metric::Recovered => "recovered",
            Metric::RecoveryS => "recovery",
        }
    }

    /// A chart's axis label, with its unit.
    pub fn label(self) -> &'static str {
        match self {
            Metric::Originals => "original requests",
            Metric::Attempts => "attempts",
            Metric::Amplification => "amplification (attempts per original)",
            Metric::Successes => "successful requests",
            Metric::SuccessRate => "success rate (%)",
            Metric::PeakAttemptsPerS => "peak attempts per second",
            Metric::CompletionMs => "completion time (ms)",
            Metric::P50Ms => "p50 latency of successes (ms)",
            Metric::P99Ms => "p99 latency of successes (ms)",
            Metric::P999Ms => "p99.9 latency of successes (ms)",
            Metric::Duplicates => "duplicate effects",
            Metric::Recovered => "recovered (1 yes, 0 no)",
            Metric::RecoveryS => "recovery after the trigger (s)",
        }
    }

    /// [`Metric::label`] in a scenario's own words: the 2015 study's attempts are write calls.
    pub fn label_in(self, kind: Option<super::ScenarioKind>) -> &'static str {
        match (self, kind) {
            (Metric::Attempts, Some(super::ScenarioKind::Occ)) => "attempts (write calls)",
            _ => self.label(),
        }
    }

    /// The number plotted (success rate in percent); `None` where there is none (no successes
    /// to take a percentile of).
    pub fn value(self, s: &Summary) -> Option<f64> {
        Some(match self {
            Metric::Originals => s.originals as f64,
            Metric::Attempts => s.attempts as f64,
            Metric::Amplification => s.amplification,
            Metric::Successes => s.successes as f64,
            Metric::SuccessRate => s.success_rate * 100.0,
            Metric::PeakAttemptsPerS => s.peak_attempts_per_s,
            Metric::CompletionMs => s.completion_ms,
            Metric::P50Ms => return s.p50_ms,
            Metric::P99Ms => return s.p99_ms,
            Metric::P999Ms => return s.p999_ms,
            Metric::Duplicates => s.duplicates as f64,
            // Over several runs, the share of them that recovered.
            Metric::Recovered => match s.intervals.and_then(|i| i.recovered) {
                Some(r) => r.share(),
                None => f64::from(u8::from(s.recovery?.recovered())),
            },
            Metric::RecoveryS => return s.recovery?.recovery_s(),
        })
    }

    /// The number as the sweep's Markdown table writes it, for people (`1.08x`, `91.8%`,
    /// `812 ms`, `7.05 s`); over several runs with its 95% interval (`1.08x (1.07x-1.1x)`),
    /// and recovery as how many runs recovered (`7 of 20 (15.4%-59.2%)`).
    pub fn text(self, s: &Summary) -> String {
        use crate::retry::text::percent_people;
        if let (Metric::Recovered, Some(r)) = (self, s.intervals.and_then(|i| i.recovered)) {
            let i = r.interval;
            return format!(
                "{} of {} ({}-{})",
                r.k,
                r.n,
                percent_people(i.low),
                percent_people(i.high)
            );
        }
        let point = self.point_text(s);
        match self.interval(s) {
            Some(i) if i.low != i.high => {
                format!(
                    "{point} ({}-{})",
                    self.unit_text(i.low),
                    self.unit_text(i.high)
                )
            }
            _ => point,
        }
    }

    /// The metric's 95% interval over the runs, in [`Metric::value`]'s units (`None` for one
    /// run, and for the counts).
    pub fn interval(self, s: &Summary) -> Option<Interval> {
        let iv = s.intervals?;
        match self {
            Metric::Amplification => iv.amplification,
            Metric::SuccessRate => iv.success_rate.map(|i| Interval {
                low: i.low * 100.0,
                high: i.high * 100.0,
            }),
            Metric::PeakAttemptsPerS => iv.peak_attempts_per_s,
            Metric::CompletionMs => iv.completion_ms,
            Metric::P50Ms => iv.p50_ms,
            Metric::P99Ms => iv.p99_ms,
            Metric::P999Ms => iv.p999_ms,
            Metric::Recovered => iv.recovered.map(|r| r.interval),
            Metric::Originals
            | Metric::Attempts
            | Metric::Successes
            | Metric::Duplicates
            | Metric::RecoveryS => None,
        }
    }

    /// A number in [`Metric::value`]'s units as people read it.
    fn unit_text(self, v: f64) -> String {
        use crate::retry::text::{percent_people, sig3};
        use crate::retry::time::millis_people;
        match self {
            Metric::Amplification => format!("{}x", sig3(v)),
            Metric::SuccessRate => percent_people(v / 100.0),
            Metric::Recovered => percent_people(v),
            Metric::CompletionMs | Metric::P50Ms | Metric::P99Ms | Metric::P999Ms => {
                millis_people(v)
            }
            Metric::RecoveryS => format!("{} s", sig3(v)),
            Metric::Originals
            | Metric::Attempts
            | Metric::Successes
            | Metric::PeakAttemptsPerS
            | Metric::Duplicates => sig3(v),
        }
    }

    /// The run's (or the runs' mean) figure alone, for people.
    fn point_text(self, s: &Summary) -> String {
        use crate::retry::text::{percent_people, sig3};
        use crate::retry::time::millis_people;
        let ms = |v: Option<f64>| v.map_or("-".to_string(), millis_people);
        match self {
            Metric::Originals => s.originals.to_string(),
            Metric::Attempts => s.attempts.to_string(),
            Metric::Amplification => format!("{}x", sig3(s.amplification)),
            Metric::Successes => s.successes.to_string(),
            Metric::SuccessRate => percent_people(s.success_rate),
            Metric::PeakAttemptsPerS => sig3(s.peak_attempts_per_s),
            Metric::CompletionMs => millis_people(s.completion_ms),
            Metric::P50Ms => ms(s.p50_ms),
            Metric::P99Ms => ms(s.p99_ms),
            Metric::P999Ms => ms(s.p999_ms),
            Metric::Duplicates => s.duplicates.to_string(),
            Metric::Recovered => s.recovery.map_or("-".to_string(), |r| {
                (if r.recovered() { "yes" } else { "no" }).to_string()
            }),
            Metric::RecoveryS => s
                .recovery
                .and_then(|r| r.recovery_s())
                .map_or("-".to_string(), |v| format!("{} s", sig3(v))),
        }
    }

    /// The number as the sweep's CSV writes it (full precision, empty for none).
    pub fn csv(self, s: &Summary) -> String {
        match self {
            Metric::Originals => s.originals.to_string(),
            Metric::Attempts => s.attempts.to_string(),
            Metric::Amplification => s.amplification.to_string(),
            Metric::Successes => s.successes.to_string(),
            Metric::SuccessRate => s.success_rate.to_string(),
            Metric::PeakAttemptsPerS => s.peak_attempts_per_s.to_string(),
            Metric::CompletionMs => s.completion_ms.to_string(),
            Metric::P50Ms => s.p50_ms.map_or(String::new(), |v| v.to_string()),
            Metric::P99Ms => s.p99_ms.map_or(String::new(), |v| v.to_string()),
            Metric::P999Ms => s.p999_ms.map_or(String::new(), |v| v.to_string()),
            Metric::Duplicates => s.duplicates.to_string(),
            Metric::Recovered => match s.intervals.and_then(|i| i.recovered) {
                Some(r) => r.share().to_string(),
                None => s
                    .recovery
                    .map_or(String::new(), |r| r.recovered().to_string()),
            },
            Metric::RecoveryS => s
                .recovery
                .and_then(|r| r.recovery_s())
                .map_or(String::new(), |v| v.to_string()),
        }
    }
}

// The table leaves out the successes count: its success column is the rate.
const TABLE: [Metric; 10] = [
    Metric::Originals,
    Metric::Attempts,
    Metric::Amplification,
    Metric::SuccessRate,
    Metric::PeakAttemptsPerS,
    Metric::CompletionMs,
    Metric::P50Ms,
    Metric::P99Ms,
    Metric::P999Ms,
    Metric::Duplicates,
];

/// The sweep as CSV: the swept keys, then every metric, one row per combination.
///
/// Over several runs (`runs` > 1) it adds `runs` and each interval's bounds as
/// `<metric>_low,<metric>_high` after them, in the CSV's units (`recovered`: the share of runs).
pub fn sweep_csv(keys: &[&str], rows: &[(Vec<String>, Summary)]) -> String {
    let mut heads: Vec<String> = Metric::ALL.iter().map(|m| m.name().to_string()).collect();
    let ranged: Vec<Metric> = if rows.iter().any(|(_, s)| s.intervals.is_some()) {
        INTERVALS.to_vec()
    } else {
        Vec::new()
    };
    if !ranged.is_empty() {
        heads.push("runs".to_string());
        for m in &ranged {
            heads.push(format!("{0}_low,{0}_high", m.name()));
        }
    }
    let mut out = format!("{},{}\n", keys.join(","), heads.join(","));
    for (vals, s) in rows {
        let mut cells: Vec<String> = Metric::ALL.iter().map(|m| m.csv(s)).collect();
        if !ranged.is_empty() {
            cells.push(
                s.intervals
                    .map_or(String::from("1"), |i| i.runs.to_string()),
            );
            for m in &ranged {
                // In the CSV's own units: the success rate as a share, as its column.
                let unit = if *m == Metric::SuccessRate {
                    100.0
                } else {
                    1.0
                };
                cells.push(m.interval(s).map_or(String::from(","), |i| {
                    format!("{},{}", i.low / unit, i.high / unit)
                }));
            }
        }
        out.push_str(&format!("{},{}\n", vals.join(","), cells.join(",")));
    }
    out
}

/// The metrics that carry an interval over runs, in the CSV's order.
const INTERVALS: [Metric; 8] = [
    Metric::Amplification,
    Metric::SuccessRate,
    Metric::PeakAttemptsPerS,
    Metric::CompletionMs,
    Metric::P50Ms,
    Metric::P99Ms,
    Metric::P999Ms,
    Metric::Recovered,
];

/// The sweep as a Markdown table under its base link.
pub fn sweep_markdown(base_link: &str, keys: &[&str], rows: &[(Vec<String>, Summary)]) -> String {
    // Runs that judge recovery add its two columns.
    let mut table: Vec<Metric> = TABLE.to_vec();
    if rows.iter().any(|(_, s)| s.recovery.is_some()) {
        table.extend([Metric::Recovered, Metric::RecoveryS]);
    }
    let heads: Vec<&str> = table.iter().map(|m| m.head()).collect();
    let mut out = format!(
        "`?{base_link}`\n\n| {} | {} |\n",
        keys.join(" | "),
        heads.join(" | ")
    );
    out.push_str(&format!(
        "|{}---:|{}\n",
        "---|".repeat(keys.len()),
        "---:|".repeat(table.len() - 1)
    ));
    for (vals, s) in rows {
        let cells: Vec<String> = table.iter().map(|m| m.text(s)).collect();
        out.push_str(&format!(
            "| {} | {} |\n",
            vals.join(" | "),
            cells.join(" | ")
        ));
    }
    out
}

/// A heatmap sweep's grids in Markdown, as `retrylab sweep` prints them under its table and the
/// page exports them: for each value of a third key (if any) and each metric, the second key's
/// values down (the largest first, as a plot's y axis) and the first key's across, each cell
/// the metric's text.
pub fn sweep_grids(keys: &[&str], rows: &[(Vec<String>, Summary)], metrics: &[Metric]) -> String {
    let distinct = |i: usize| -> Vec<&String> {
        let mut v: Vec<&String> = Vec::new();
        for (vals, _) in rows {
            if let Some(x) = vals.get(i).filter(|x| !v.contains(x)) {
                v.push(x);
            }
        }
        v
    };
    let (xs, ys, zs) = (distinct(0), distinct(1), distinct(2));
    let panels: Vec<Option<&String>> = if zs.is_empty() {
        alloc::vec![None]
    } else {
        zs.into_iter().map(Some).collect()
    };
    let mut out = String::new();
    for z in &panels {
        for m in metrics {
            let title = z.map_or(String::new(), |z| format!(", {}={z}", keys[2]));
            out.push_str(&format!(
                "\n{} by {} and {}{title}\n\n",
                m.name(),
                keys[0],
                keys[1]
            ));
            let heads: Vec<&str> = xs.iter().map(|x| x.as_str()).collect();
            out.push_str(&format!(
                "| {} \\ {} | {} |\n",
                keys[1],
                keys[0],
                heads.join(" | ")
            ));
            out.push_str(&format!("|---|{}\n", "---:|".repeat(xs.len())));
            for y in ys.iter().rev() {
                let cells: Vec<String> = xs
                    .iter()
                    .map(|x| {
                        rows.iter()
                            .find(|(v, _)| {
                                v.first() == Some(*x) && v.get(1) == Some(*y) && v.get(2) == *z
                            })
                            .map_or(String::new(), |(_, s)| m.text(s))
                    })
                    .collect();
                out.push_str(&format!("| {y} | {} |\n", cells.join(" | ")));
            }
        }
    }
    out
}
