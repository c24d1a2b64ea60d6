//! The sweep view's data: a link's sweep as the rows to run (each row a link the workers run)
//! and, once their summaries are in, the charts and the readout. Pure, so it is tested natively;
//! every number is a core `Metric` of a row's `Summary`.

use crate::charts::sweepchart::{Line, SweepChart};
use retry_model::link_sweep::Axis;
use retry_model::sim::{sweep_csv, sweep_markdown, Metric, Summary};
use retry_model::{Micros, Params};

/// A sweep ready to run.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The link without its sweep, as the table's header writes it.
    pub base: String,
    /// The swept keys: the x axis, then the one with a line per value.
    pub axes: Vec<Axis>,
    /// Each row's link, in `retrylab sweep` order (the last key varies fastest).
    pub links: Vec<String>,
    /// Each row's values, one per axis.
    pub values: Vec<Vec<String>>,
    /// The metrics charted, one chart each.
    pub metrics: Vec<Metric>,
    /// The 2015 simulator's (write calls, completion ms) per row, where the row is the study's.
    pub reference: Vec<Option<(u64, u64)>>,
    /// Drawn as heatmaps (a phase plot) rather than lines.
    pub heatmap: bool,
}

/// A sweep's plan in the making: its rows are checked a few at a time (see
/// [`retry_model::SweepRows`]), so the page's thread is never blocked for long.
pub struct Planning {
    link: Params,
    rows: retry_model::SweepRows,
}

impl Planning {
    /// The plan of a link's sweep, begun; `None` without one; the error is a sweep too large.
    pub fn of(p: &Params) -> Option<Result<Planning, String>> {
        let sweep = p.sweep()?;
        Some(
            retry_model::SweepRows::new(p, &sweep.axes).map(|rows| Planning {
                link: p.clone(),
                rows,
            }),
        )
    }

    /// Checks up to `n` more rows; true once all are checked. The error names the bad row.
    pub fn step(&mut self, n: usize) -> Result<bool, String> {
        self.rows.step(n)
    }

    /// Rows checked so far, and in all.
    pub fn progress(&self) -> (usize, usize) {
        (self.rows.made(), self.rows.total())
    }

    /// The plan, once every row is checked.
    pub fn finish(self) -> Result<Plan, String> {
        let p = self.link;
        let sweep = p.sweep().ok_or("the link has no sweep")?;
        let rows = self.rows.finish()?;
        let base = p.plain_run();
        Ok(Plan {
            base: base.to_string(),
            axes: sweep.axes.clone(),
            links: rows.iter().map(|(_, r)| r.to_string()).collect(),
            reference: rows
                .iter()
                .map(|(_, r)| retry_model::occ_2015_reference(r))
                .collect(),
            values: rows.into_iter().map(|(v, _)| v).collect(),
            metrics: sweep.metrics(&p),
            heatmap: sweep.is_heatmap(),
        })
    }
}

impl Plan {
    /// The plan of a link's sweep, all at once; `None` without one; the error names the bad
    /// row.
    pub fn of(p: &Params) -> Option<Result<Plan, String>> {
        Some(Planning::of(p)?.and_then(|mut planning| {
            while !planning.step(usize::MAX)? {}
            planning.finish()
        }))
    }

    fn keys(&self) -> Vec<&str> {
        self.axes.iter().map(|a| a.key).collect()
    }

    /// The rows with their summaries, as the table writers take them.
    fn rows(&self, summaries: &[Summary]) -> Vec<(Vec<String>, Summary)> {
        self.values
            .iter()
            .cloned()
            .zip(summaries.iter().cloned())
            .collect()
    }

    /// The sweep as CSV, byte for byte `retrylab sweep --format csv`.
    pub fn csv(&self, summaries: &[Summary]) -> String {
        sweep_csv(&self.keys(), &self.rows(summaries))
    }

    /// The sweep as Markdown, byte for byte `retrylab sweep` (a phase plot's grids included).
    pub fn markdown(&self, summaries: &[Summary]) -> String {
        let rows = self.rows(summaries);
        let mut out = sweep_markdown(&self.base, &self.keys(), &rows);
        if self.heatmap {
            out.push_str(&retry_model::sim::sweep_grids(
                &self.keys(),
                &rows,
                &self.metrics,
            ));
        }
        out
    }

    /// A phase plot's charts: one per metric, a grid per value of the third key.
    pub fn heatmaps(&self, summaries: &[Summary]) -> Vec<crate::charts::heatmap::Heatmap> {
        let n = |i: usize| self.axes.get(i).map_or(1, |a| a.values.len());
        let (nx, ny, nz) = (n(0), n(1), n(2));
        let runs_note = runs_note(summaries);
        self.metrics
            .iter()
            .map(|m| {
                let grids = (0..nz)
                    .map(|zi| {
                        let rows: Vec<usize> = (0..nx * ny).map(|c| c * nz + zi).collect();
                        let at = |i: &usize| summaries.get(*i);
                        crate::charts::heatmap::Grid {
                            name: self.axes.get(2).map_or_else(String::new, |a| {
                                format!("{}={}", a.key, a.values[zi])
                            }),
                            values: rows
                                .iter()
                                .map(|i| at(i).and_then(|s| m.value(s)))
                                .collect(),
                            verdicts: rows
                                .iter()
                                .map(|i| at(i).and_then(Summary::verdict))
                                .collect(),
                            collapse: rows
                                .iter()
                                .map(|i| at(i).and_then(Summary::collapse))
                                .collect(),
                            rows,
                        }
                    })
                    .collect();
                crate::charts::heatmap::Heatmap {
                    title: format!(
                        "{} by {} and {} ({} rows{})",
                        if *m == Metric::Recovered && runs_note.is_some() {
                            "probability of collapse (share of runs that did not recover)"
                        } else {
                            m.label()
                        },
                        self.axes[0].key,
                        self.axes[1].key,
                        self.links.len(),
                        runs_note.as_deref().unwrap_or("")
                    ),
                    keys: (self.axes[0].key.into(), self.axes[1].key.into()),
                    x_text: self.axes[0].values.clone(),
                    y_text: self.axes[1].values.clone(),
                    grids,
                    by_verdict: *m == Metric::Recovered,
                    metric: m.head().into(),
                }
            })
            .collect()
    }

    /// A phase plot's readout for sweep row `i`: its values, each metric in the table's words,
    /// and its link.
    pub fn readout_row(&self, summaries: &[Summary], i: usize) -> (String, String) {
        let (Some(vals), Some(s), Some(link)) =
            (self.values.get(i), summaries.get(i), self.links.get(i))
        else {
            return (String::new(), String::new());
        };
        let named: Vec<String> = self
            .axes
            .iter()
            .zip(vals)
            .map(|(a, v)| format!("{}={v}", a.key))
            .collect();
        let mut text: Vec<String> = self
            .metrics
            .iter()
            .filter(|m| **m != Metric::Recovered)
            .map(|m| format!("{} {}", m.head(), m.text(s)))
            .collect();
        // Over several runs, how many recovered with its interval; for one, the sentence.
        let share = s.intervals.and_then(|iv| iv.recovered);
        let several = share.is_some();
        if let Some(r) = share {
            let pc = retry_model::percent_people;
            text.push(format!(
                "recovered in {} of {} runs (95%: {} to {})",
                r.k,
                r.n,
                pc(r.interval.low),
                pc(r.interval.high)
            ));
        } else if let Some(r) = s.recovery {
            text.push(format!("recovered: {}", r.text()));
        }
        let this = if several { "These runs" } else { "This run" };
        (
            format!("{}: {}. {this}: ", named.join(", "), text.join("; ")),
            format!("?{link}"),
        )
    }

    /// The x positions: the values as numbers (durations in ms), or `None` for a menu key.
    fn x_numbers(&self) -> (Option<Vec<f64>>, String) {
        let x = &self.axes[0];
        let numbers: Option<Vec<f64>> = x
            .values
            .iter()
            .map(|s| retry_model::decimal_f64(s))
            .collect();
        if let Some(v) = numbers {
            return (Some(v), x.key.to_string());
        }
        if let Ok(v) = x
            .values
            .iter()
            .map(|s| s.parse::<Micros>().map(|m| m.as_micros() as f64 / 1000.0))
            .collect()
        {
            return (Some(v), format!("{} (ms)", x.key));
        }
        (None, x.key.to_string())
    }

    /// Row index of (x position, line).
    fn row(&self, xi: usize, li: usize) -> usize {
        let lines = self.axes.get(1).map_or(1, |a| a.values.len());
        xi * lines + li
    }

    /// One chart per metric: one line per value of the second key (or one line).
    pub fn charts(&self, summaries: &[Summary]) -> Vec<SweepChart> {
        let (x, x_label) = self.x_numbers();
        let nx = self.axes[0].values.len();
        let line_names: Vec<String> = match self.axes.get(1) {
            Some(a) => a.values.iter().map(|v| format!("{}={v}", a.key)).collect(),
            None => vec![String::from("this link")],
        };
        let has_ref = self.reference.iter().any(Option::is_some);
        self.metrics
            .iter()
            .map(|m| {
                // The 2015 simulator reported write calls and completion time only.
                let reference_of = |r: Option<(u64, u64)>| {
                    if *m == Metric::Attempts {
                        r.map(|(calls, _)| calls as f64)
                    } else if *m == Metric::CompletionMs {
                        r.map(|(_, ms)| ms as f64)
                    } else {
                        None
                    }
                };
                let lines = line_names
                    .iter()
                    .enumerate()
                    .map(|(li, name)| Line {
                        name: name.clone(),
                        values: (0..nx)
                            .map(|xi| summaries.get(self.row(xi, li)).and_then(|s| m.value(s)))
                            .collect(),
                        bars: (0..nx)
                            .map(|xi| {
                                let s = summaries.get(self.row(xi, li))?;
                                m.interval(s).map(|i| (i.low, i.high))
                            })
                            .collect(),
                        reference: (0..nx)
                            .map(|xi| {
                                reference_of(
                                    self.reference.get(self.row(xi, li)).copied().flatten(),
                                )
                            })
                            .collect(),
                    })
                    .collect();
                let first = self.links.first().and_then(|l| l.parse::<Params>().ok());
                let runs = first.as_ref().map_or(1, |p| p.sim.runs.0);
                let label = m.label_in(first.as_ref().and_then(|p| p.sim.kind()));
                SweepChart {
                    title: format!(
                        "{} against {} ({} rows, mean of {runs} run{} each{})",
                        label,
                        self.axes[0].key,
                        self.links.len(),
                        if runs == 1 { "" } else { "s" },
                        if runs == 1 {
                            ""
                        } else {
                            ", bars: 95% intervals"
                        }
                    ),
                    x_label: x_label.clone(),
                    x: x.clone(),
                    x_text: self.axes[0].values.clone(),
                    y_label: label.to_string(),
                    lines,
                    reference_name: (has_ref
                        && matches!(m, Metric::Attempts | Metric::CompletionMs))
                    .then(|| String::from("hollow: the 2015 simulator (100 runs)")),
                }
            })
            .collect()
    }

    /// The readout for x position `xi`: each line's value of each metric, in the table's words.
    pub fn readout(&self, summaries: &[Summary], xi: usize) -> String {
        let Some(xv) = self.axes[0].values.get(xi) else {
            return String::new();
        };
        let lines = self.axes.get(1).map_or(1, |a| a.values.len());
        let parts: Vec<String> = (0..lines)
            .filter_map(|li| {
                let i = self.row(xi, li);
                let s = summaries.get(i)?;
                let name = self.axes.get(1).map(|a| format!("{}: ", a.values[li]));
                let mut text: Vec<String> = self
                    .metrics
                    .iter()
                    .map(|m| format!("{} {}", m.text(s), m.head()))
                    .collect();
                if let Some((calls, ms)) = self.reference.get(i).copied().flatten() {
                    // The post's figures in the same words as the lab's beside them.
                    let ms = retry_model::millis_people(ms as f64);
                    text.push(format!("2015: {calls} calls, {ms}"));
                }
                Some(format!("{}{}", name.unwrap_or_default(), text.join(", ")))
            })
            .collect();
        format!("{}={xv}: {}", self.axes[0].key, parts.join("; "))
    }
}

/// How many runs a phase plot's cells took, for its title: `; 100 runs a cell`, or under
/// `sequential` `; 6 to 100 runs a cell, each stopped once clear of 50%`; `None` for one run.
fn runs_note(summaries: &[Summary]) -> Option<String> {
    let ivs: Vec<_> = summaries.iter().filter_map(|s| s.intervals).collect();
    let lo = ivs.iter().map(|i| i.runs).min()?;
    let hi = ivs.iter().map(|i| i.runs).max()?;
    let planned = ivs.iter().map(|i| i.planned).max()?;
    Some(if lo == hi && hi == planned {
        format!("; {hi} runs a cell")
    } else {
        format!("; {lo} to {hi} runs a cell of {planned}, each stopped once clear of 50%")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const STUDY: &str = "preset=occ-2015&sweep.clients=10..190/10&sweep.backoff=none,exponential,full,equal,decorrelated";

    #[test]
    fn attempts_are_write_calls_only_in_the_2015_study() {
        let label = |q: &str| {
            let p: Params = q.parse().unwrap();
            let plan = Plan::of(&p).unwrap().unwrap();
            let rows = vec![Summary::default(); plan.links.len()];
            plan.charts(&rows)[0].y_label.clone()
        };
        assert_eq!(
            label("preset=occ-2015&sweep.backoff=full,equal&sweep.plot=attempts"),
            "attempts (write calls)"
        );
        assert_eq!(
            label("preset=burst-lab&sweep.backoff=none,exponential&sweep.plot=attempts"),
            "attempts"
        );
    }

    #[test]
    fn the_2015_study_plans_95_rows_with_the_reference_beside_them() {
        let p: Params = STUDY.parse().unwrap();
        let plan = Plan::of(&p).unwrap().unwrap();
        assert_eq!(plan.links.len(), 95);
        assert_eq!(plan.base, "v=2&preset=occ-2015");
        assert!(
            plan.reference.iter().all(Option::is_some),
            "every row is the study's"
        );
        // Row 10*5+2: 110 clients, full jitter.
        assert_eq!(plan.values[52], ["110", "full"]);
        assert!(plan.links[52].contains("clients=110"));
        let fake: Vec<Summary> = (0..95)
            .map(|i| Summary {
                attempts: i,
                completion_ms: 2.0 * i as f64,
                ..Summary::default()
            })
            .collect();
        let charts = plan.charts(&fake);
        assert_eq!(charts.len(), 2, "write calls and completion time");
        assert_eq!(charts[0].lines.len(), 5);
        assert_eq!(charts[0].x.as_deref().unwrap()[18], 190.0);
        assert_eq!(charts[0].lines[2].name, "backoff=full");
        assert_eq!(charts[0].lines[2].values[10], Some(52.0));
        assert_eq!(charts[1].lines[2].values[10], Some(104.0));
        let reference = retry_model::occ_2015_reference(&plan.links[52].parse().unwrap());
        assert_eq!(
            charts[0].lines[2].reference[10],
            reference.map(|r| r.0 as f64)
        );
        assert!(charts[0].reference_name.is_some());
        assert!(plan
            .readout(&fake, 10)
            .starts_with("clients=110: none: 50 attempts, 100 ms completion, 2015: "));
    }

    #[test]
    fn a_duration_axis_is_in_ms_and_other_settings_have_no_reference() {
        let p: Params = "preset=payments-jitter&sweep.base=100ms..2000ms/100ms"
            .parse()
            .unwrap();
        let plan = Plan::of(&p).unwrap().unwrap();
        let (x, label) = plan.x_numbers();
        assert_eq!(label, "base (ms)");
        assert_eq!(x.unwrap()[19], 2000.0);
        assert!(plan.reference.iter().all(Option::is_none));
        assert_eq!(plan.metrics, [Metric::Amplification, Metric::SuccessRate]);
        let q: Params = "preset=occ-2015&runs=5&sweep.clients=10,20"
            .parse()
            .unwrap();
        assert!(Plan::of(&q)
            .unwrap()
            .unwrap()
            .reference
            .iter()
            .all(Option::is_none));
    }

    #[test]
    fn a_number_axis_reads_the_values_exactly() {
        // A probability swept in millionths reads as the nearest doubles, as the CLI parses them.
        let p: Params = "preset=layers-333&sweep.p=0.1,0.25,0.333333,1"
            .parse()
            .unwrap();
        let plan = Plan::of(&p).unwrap().unwrap();
        let (x, label) = plan.x_numbers();
        assert_eq!(label, "p");
        let want: Vec<f64> = ["0.1", "0.25", "0.333333", "1"]
            .iter()
            .map(|v| v.parse().unwrap())
            .collect();
        assert_eq!(x.unwrap(), want);
    }

    #[test]
    fn a_menu_key_on_x_is_placed_evenly() {
        let p: Params = "preset=burst-lab&sweep.backoff=none,exponential,full"
            .parse()
            .unwrap();
        let plan = Plan::of(&p).unwrap().unwrap();
        let charts = plan.charts(&[Summary::default(), Summary::default(), Summary::default()]);
        assert_eq!(charts[0].x, None);
        assert_eq!(charts[0].x_text, ["none", "exponential", "full"]);
        assert_eq!(charts[0].lines.len(), 1);
    }
}
