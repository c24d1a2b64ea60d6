//! An exercise's answer, read from what the lab computed for the link: a run's metric (side A),
//! the swept value with the least or most of a metric, the traced request's numbers, or a run's
//! recovery beside its analytic twin's mixing time.
//!
//! Why here and not in each front end? The page reads the answer from what it has drawn, the CLI
//! (`retrylab answer`, `retrylab sheet`) from what it runs; both hand the same figures to
//! [`answer`], so a student and the answer key read the same words.
//!
//! ```
//! use retry_model::{answer, trace, Figures, Params};
//! let p: Params = "preset=chapter&ask=remaining_at:3".parse().unwrap();
//! let t = trace(&p).unwrap();
//! let ex = p.exercise().unwrap();
//! let said = answer(ex.answer, ex.unit, &Figures { trace: Some(&t), ..Figures::default() });
//! assert_eq!(said.unwrap().shown, "3600 ms");
//! ```

use crate::link::lesson::Answer;
use crate::link::sweep::Axis;
use crate::request::trace::Trace;
use crate::retry::text::sig3;
use crate::sim::{Metric, Summary};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::cmp::Ordering;

/// What the lab computed for a link, as far as it has: each answer reads what it needs.
#[derive(Clone, Copy, Default)]
pub struct Figures<'a> {
    /// Side A's run summary.
    pub run: Option<&'a Summary>,
    /// The sweep's rows.
    pub sweep: Option<SweepFigures<'a>>,
    /// The traced request.
    pub trace: Option<&'a Trace>,
    /// The analytic twin's mixing time, in seconds.
    pub mixing_s: Option<f64>,
}

/// A sweep's rows: the swept keys, each row's values (one per axis) and its summary.
#[derive(Clone, Copy)]
pub struct SweepFigures<'a> {
    /// The swept keys, the x axis first.
    pub axes: &'a [Axis],
    /// Each row's values, one per axis.
    pub values: &'a [Vec<String>],
    /// Each row's summary, in the same order.
    pub rows: &'a [Summary],
}

/// An answer as the page shows it and as a guess is compared with it.
#[derive(Clone, Debug, PartialEq)]
pub struct Said {
    /// In words, rounded for people, in the question's unit (`27 calls`, `3600 ms`, `yes`).
    pub shown: String,
    /// What a guess is compared with: the exact number (in the question's unit) or a word.
    pub compared: String,
}

/// The answer, once the figures it needs are there; a number is shown in `unit` (the
/// exercise's: a lesson may say "calls" where the metric says attempts per original).
pub fn answer(ask: Answer, unit: &str, f: &Figures) -> Option<Said> {
    match ask {
        Answer::OutlastsMixing => outlasts(f.run?, f.mixing_s?),
        Answer::Run(m) => run_figure(unit, m, f.run?),
        Answer::Least(m) => extreme(m, f.sweep?, Ordering::Less),
        Answer::Most(m) => extreme(m, f.sweep?, Ordering::Greater),
        Answer::Helps(m) => helps(m, f.sweep?),
        Answer::Same(m) => same(m, f.sweep?),
        Answer::RemainingAt(n) => {
            let r = f.trace?.steps.get(n as usize - 1)?.plan.remaining?;
            let ms = r.as_millis_f64();
            // In the question's unit, so the answer stands beside the guess as written.
            Some(Said {
                shown: format!("{} ms", sig3(ms)),
                compared: format!("{ms}"),
            })
        }
        Answer::Made(n) => {
            let made = if f.trace?.steps.len() >= n as usize {
                "yes"
            } else {
                "no"
            };
            Some(word(made))
        }
    }
}

fn word(w: &str) -> Said {
    Said {
        shown: w.to_string(),
        compared: w.to_string(),
    }
}

/// A run's metric in its question's unit (`27 attempts per original`, `3.81 %`, `812 ms`).
fn run_figure(unit: &str, m: Metric, s: &Summary) -> Option<Said> {
    if m == Metric::Recovered {
        // Over several runs recovery is a count of runs, as a guess is typed (`46 runs`);
        // the tiles' `recovered in runs` gives it with its exact interval.
        if let Some(r) = s.intervals.and_then(|i| i.recovered) {
            return Some(Said {
                shown: format!("{} runs", r.k),
                compared: format!("{}", r.k),
            });
        }
        return Some(word(&m.text(s)));
    }
    let v = m.value(s)?;
    let shown = match unit {
        "" => sig3(v),
        "ms" => format!("{} ms", sig3(v)),
        "%" => format!("{} %", sig3(v)),
        unit => format!("{} {unit}", sig3(v)),
    };
    Some(Said {
        shown,
        compared: format!("{v}"),
    })
}

/// Whether the run took longer to recover after its trigger than `mixing_s` (a run that never
/// recovered did), with both figures.
fn outlasts(run: &Summary, mixing_s: f64) -> Option<Said> {
    let rec = run.recovery?;
    let (longer, said) = match rec.recovery_s() {
        Some(r) => (
            r > mixing_s,
            format!("the run recovered {} s after the trigger ended", sig3(r)),
        ),
        None => (true, "the run had not recovered when it ended".to_string()),
    };
    let w = if longer { "yes" } else { "no" };
    Some(Said {
        shown: format!(
            "{w} ({said}; the chain's mixing time is {} s)",
            sig3(mixing_s)
        ),
        compared: w.to_string(),
    })
}

/// The swept value whose row has the least (`Less`) or the most (`Greater`) of `m`; the first
/// such row on a tie.
fn extreme(m: Metric, sw: SweepFigures, want: Ordering) -> Option<Said> {
    let best = sw
        .values
        .iter()
        .zip(sw.rows)
        .filter_map(|(vals, s)| Some((vals.first()?, m.value(s)?, s)))
        .reduce(|a, b| if b.1.total_cmp(&a.1) == want { b } else { a })?;
    Some(Said {
        shown: format!("{} ({} {})", best.0, m.name(), m.text(best.2)),
        compared: best.0.clone(),
    })
}

/// Whether every row has the same value of `m`: `yes` or `no`, with the values.
fn same(m: Metric, sw: SweepFigures) -> Option<Said> {
    let vals: Vec<f64> = sw.rows.iter().filter_map(|s| m.value(s)).collect();
    let first = *vals.first()?;
    let w = if vals.iter().all(|v| *v == first) {
        "yes"
    } else {
        "no"
    };
    let list: Vec<String> = sw.rows.iter().map(|s| m.text(s)).collect();
    Some(Said {
        shown: format!("{w} ({}: {})", m.name(), list.join(", ")),
        compared: w.to_string(),
    })
}

/// The first swept key's value where the second key's last value lowers `m` by the largest
/// factor against its first value (`hedge` from off to on); the first such value on a tie.
fn helps(m: Metric, sw: SweepFigures) -> Option<Said> {
    let lines = &sw.axes.get(1)?.values;
    let (off, on) = (lines.first()?, lines.last()?);
    let at = |x: &String, line: &String| {
        sw.values
            .iter()
            .zip(sw.rows)
            .find(|(v, _)| v.first() == Some(x) && v.get(1) == Some(line))
            .and_then(|(_, s)| Some((m.value(s)?, s)))
    };
    let best = sw.axes[0]
        .values
        .iter()
        .filter_map(|x| Some((x, at(x, off)?, at(x, on)?)))
        .filter(|(_, before, _)| before.0 > 0.0)
        .reduce(|a, b| {
            if b.2 .0 / b.1 .0 < a.2 .0 / a.1 .0 {
                b
            } else {
                a
            }
        })?;
    let (x, before, after) = best;
    let (key, line) = (sw.axes[0].key, sw.axes[1].key);
    Some(Said {
        shown: format!(
            "{key}={x} ({}: {} with {line}={off}, {} with {line}={on})",
            m.name(),
            m.text(before.1),
            m.text(after.1)
        ),
        compared: x.clone(),
    })
}
