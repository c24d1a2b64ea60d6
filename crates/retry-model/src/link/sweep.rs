//! A sweep on one link: keys written `sweep.key=values` run the link once per value, so any
//! numeric (or menu) key can be swept with any summary metric plotted against it. The first
//! `sweep.` key is the x axis; a second one gives one line per value (for example one per
//! backoff kind). `sweep.plot` names the metrics the page plots (default: write calls and
//! completion time for `occ`, amplification and success rate otherwise).
//!
//! Values are `a..b/step` (whole numbers, with an optional unit shared by the three:
//! `100ms..2000ms/100ms`) or a list `x,y,z`; each value is checked as the key's own value would
//! be, in every combination, before anything runs. At most [`MAX_ROWS`] rows, [`MAX_VALUES`]
//! values per key and two keys in a link, three when they draw heatmaps (`sweep.chart=heatmap`; `retrylab
//! sweep --param` takes more).
//!
//! ```
//! use retry_model::Params;
//! let p: Params = "preset=payments-jitter&sweep.base=100ms..2000ms/100ms".parse().unwrap();
//! let s = p.sweep().unwrap();
//! assert_eq!(s.axes[0].values.len(), 20);
//! assert_eq!(p.sweep_rows(&s.axes).unwrap()[3].1.policy.backoff.base.as_micros(), 400_000);
//! assert_eq!(p.to_string(), "v=2&preset=payments-jitter&sweep.base=100ms..2000ms/100ms");
//! ```

use super::{all_keys, keys, Params};
use crate::retry::error::ConfigError;
use crate::sim::Metric;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// What marks a key as a sweep's.
pub const PREFIX: &str = "sweep.";

/// The most rows (combinations of values) one sweep runs.
pub const MAX_ROWS: usize = 2000;

/// The most values one swept key takes.
pub const MAX_VALUES: usize = 1000;

/// One swept key.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// The key.
    pub key: &'static str,
    /// Its values as the link writes them (`10..190/10`).
    pub spec: String,
    /// Every value, in order.
    pub values: Vec<String>,
}

/// A link's sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    /// The x axis, then (if any) the key with one line per value.
    pub axes: Vec<Axis>,
    /// The metrics the link asks for (`sweep.plot`); empty for the scenario's default.
    pub plot: Vec<Metric>,
    /// `sweep.chart`: `Some(true)` for heatmaps (the first two keys as a grid of cells, one
    /// grid per value of a third), `Some(false)` for lines, `None` to choose by the metrics.
    pub heatmap: Option<bool>,
}

impl Sweep {
    /// Whether the sweep draws heatmaps: as `sweep.chart` says, or without it when two keys
    /// plot only whether and when runs recovered (`sweep.plot=recovered`).
    pub fn is_heatmap(&self) -> bool {
        self.heatmap
            .unwrap_or(self.axes.len() >= 2 && self.plots_only_recovery())
    }

    /// Whether the link plots only whether and when runs recovered (`sweep.plot=recovered`).
    pub fn plots_only_recovery(&self) -> bool {
        !self.plot.is_empty()
            && self
                .plot
                .iter()
                .all(|m| matches!(m, Metric::Recovered | Metric::RecoveryS))
    }

    /// The metrics to plot: the link's, or the scenario's default.
    pub fn metrics(&self, p: &Params) -> Vec<Metric> {
        if !self.plot.is_empty() {
            return self.plot.clone();
        }
        match p.sim.kind() {
            Some(crate::sim::ScenarioKind::Occ) => {
                alloc::vec![Metric::Attempts, Metric::CompletionMs]
            }
            _ => alloc::vec![Metric::Amplification, Metric::SuccessRate],
        }
    }
}

/// Splits `100ms` into (100, "ms").
fn number_and_unit(s: &str) -> Option<(u64, &str)> {
    let s = s.trim();
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    Some((s[..end].parse().ok()?, &s[end..]))
}

/// The values of `a..b/step` (units allowed, shared) or `x,y,z`; the error is the rule.
pub fn values(text: &str) -> Result<Vec<String>, String> {
    if let Some((range, step)) = text
        .split_once('/')
        .or_else(|| text.contains("..").then_some((text, "1")))
    {
        let (lo, hi) = range
            .split_once("..")
            .ok_or_else(|| format!("'{text}' should be a..b/step"))?;
        fn whole<'a>(s: &'a str, text: &str) -> Result<(u64, &'a str), String> {
            number_and_unit(s).ok_or_else(|| {
                format!(
                    "'{}' in '{}' is not a whole number (with an optional unit)",
                    super::keys::shorten(s),
                    super::keys::shorten(text)
                )
            })
        }
        let ((lo, unit), (hi, hi_unit), (step, step_unit)) =
            (whole(lo, text)?, whole(hi, text)?, whole(step, text)?);
        if hi_unit != unit || !(step_unit.is_empty() || step_unit == unit) {
            return Err(format!(
                "'{text}': the bounds and the step need the same unit"
            ));
        }
        if step == 0 || hi < lo || (hi - lo) / step >= MAX_VALUES as u64 {
            return Err(format!(
                "'{text}' needs lo <= hi, a step > 0 and at most {MAX_VALUES} values"
            ));
        }
        return Ok((lo..=hi)
            .step_by(step as usize)
            .map(|v| format!("{v}{unit}"))
            .collect());
    }
    let list: Vec<String> = text
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    if list.is_empty() {
        return Err(format!("'{text}' lists no values"));
    }
    if list.len() > MAX_VALUES {
        return Err(format!("'{text}' lists more than {MAX_VALUES} values"));
    }
    Ok(list)
}

/// Every combination of the axes' values, the last axis fastest, in the order a sweep's rows
/// are numbered.
pub(crate) fn combinations(axes: &[Axis]) -> impl Iterator<Item = Vec<&String>> + '_ {
    let total: usize = axes.iter().map(|a| a.values.len()).product();
    (0..total).map(move |n| combination(axes, n))
}

/// Combination number `n` of the axes' values (below the product of their lengths).
pub(crate) fn combination(axes: &[Axis], n: usize) -> Vec<&String> {
    let mut idx = n;
    let mut vals: Vec<&String> = axes
        .iter()
        .rev()
        .map(|a| {
            let v = &a.values[idx % a.values.len()];
            idx /= a.values.len();
            v
        })
        .collect();
    vals.reverse();
    vals
}

impl Params {
    /// The link's sweep, if it has `sweep.` keys.
    pub fn sweep(&self) -> Option<&Sweep> {
        self.sweep.as_deref()
    }

    /// Replaces the sweep with `text`, its keys as link text without the prefix
    /// (`clients=10..190/10&backoff=none,full&plot=attempts`); empty text ends the sweep. On a
    /// bad key nothing changes and the error names `sweep` and the key.
    pub fn set_sweep_text(&mut self, text: &str) -> Result<(), ConfigError> {
        let pairs = super::compare::split_pairs(text);
        if pairs.is_empty() {
            self.sweep = None;
            return Ok(());
        }
        let mut next = Params {
            sweep: None,
            ..self.clone()
        };
        if let Some(e) = next.set_sweep(&pairs).into_iter().next() {
            return Err(e);
        }
        *self = next;
        Ok(())
    }

    /// The sweep's keys as [`Params::set_sweep_text`] reads them ("" without a sweep).
    pub fn sweep_text(&self) -> String {
        self.sweep.as_ref().map_or_else(String::new, |s| {
            let mut parts: Vec<String> = s
                .axes
                .iter()
                .map(|a| format!("{}={}", a.key, a.spec))
                .collect();
            if !s.plot.is_empty() {
                let names: Vec<&str> = s.plot.iter().map(|m| m.name()).collect();
                parts.push(format!("plot={}", names.join(",")));
            }
            if let Some(h) = s.heatmap {
                parts.push(format!("chart={}", if h { "heatmap" } else { "lines" }));
            }
            parts.join("&")
        })
    }

    /// Reads the link's `sweep.` keys (without their prefix). Returns the problems, each naming
    /// `sweep` and the key; a link with a bad sweep opens without it.
    pub(crate) fn set_sweep(&mut self, pairs: &[(String, String)]) -> Vec<ConfigError> {
        self.read_sweep(pairs, true)
    }

    /// [`Params::set_sweep`], its rows checked when `check` (a preset's sweep is checked by
    /// the presets' tests, not each time a link names the preset).
    pub(crate) fn read_sweep(
        &mut self,
        pairs: &[(String, String)],
        check: bool,
    ) -> Vec<ConfigError> {
        let bad = |(k, rule): (String, String)| {
            alloc::vec![ConfigError::new("sweep", format!("sweep.{k}: {rule}"))]
        };
        let sweep = match read_pairs(pairs) {
            Ok(s) => s,
            Err(e) => return bad(e),
        };
        if let Err(e) = self.may_sweep(&sweep) {
            return bad(e);
        }
        if check {
            if let Err(rule) = self.sweep_rows(&sweep.axes) {
                return bad((sweep.axes[0].key.into(), rule));
            }
        }
        self.sweep = Some(alloc::boxed::Box::new(sweep));
        Vec::new()
    }

    /// Whether this link may run `sweep`: a scenario, no side B, and a shape its chart takes;
    /// the error is (the `sweep.` key, the rule).
    fn may_sweep(&self, sweep: &Sweep) -> Result<(), (String, String)> {
        let first = sweep.axes[0].key.to_string();
        if self.sim.scenario.is_none() {
            return Err((
                first,
                "a sweep runs simulations: the link needs a scenario".into(),
            ));
        }
        if self.compare.is_some() {
            return Err((
                first,
                "a link either compares two sides (b. keys) or sweeps, not both".into(),
            ));
        }
        if sweep.axes.len() == 3 && !sweep.is_heatmap() {
            return Err((sweep.axes[2].key.into(), "a third key needs heatmaps (sweep.chart=heatmap, or sweep.plot=recovered): lines take two keys, the x axis and one line per value".into()));
        }
        if sweep.heatmap == Some(true) && sweep.axes.len() < 2 {
            return Err((
                "chart".into(),
                "a heatmap needs two swept keys, one across and one up".into(),
            ));
        }
        Ok(())
    }
}

/// The `sweep.` pairs read into a sweep (its keys and values checked one by one, not its rows);
/// the error is (the `sweep.` key, the rule).
fn read_pairs(pairs: &[(String, String)]) -> Result<Sweep, (String, String)> {
    let bad = |k: &str, rule: String| Err((String::from(k), rule));
    let mut axes: Vec<Axis> = Vec::new();
    let mut plot = Vec::new();
    let heatmap = pairs
        .iter()
        .rev()
        .find(|(k, _)| k == "chart")
        .map(|(_, v)| v == "heatmap");
    for (k, v) in pairs {
        match k.as_str() {
            "chart" if !matches!(v.as_str(), "heatmap" | "lines") => {
                return bad(
                    k,
                    format!("'{}' is not one of heatmap, lines", super::keys::shorten(v)),
                );
            }
            "chart" => continue,
            "plot" => {
                plot = read_plot(v).map_err(|rule| (k.clone(), rule))?;
                continue;
            }
            _ => {}
        }
        let Some(key) = keys::key(k).filter(|_| all_keys().any(|n| n == k)) else {
            return bad(k, "unknown key: see docs/link.md".into());
        };
        if matches!(key.name, "v" | "preset") {
            return bad(k, "cannot be swept: it is the link's, not a row's".into());
        }
        if axes.iter().any(|a| a.key == key.name) {
            return bad(k, "appears more than once".into());
        }
        if axes.len() == 3 {
            return bad(
                k,
                "a link sweeps at most three keys; retrylab sweep --param takes more".into(),
            );
        }
        let values = values(v).map_err(|rule| (k.clone(), rule))?;
        axes.push(Axis {
            key: key.name,
            spec: v.clone(),
            values,
        });
    }
    if axes.is_empty() {
        return bad(
            "plot",
            "names metrics, but the link sweeps no key (add sweep.clients=10..190/10, say)".into(),
        );
    }
    Ok(Sweep {
        axes,
        plot,
        heatmap,
    })
}

/// `sweep.plot`'s metric names, each once, in order.
fn read_plot(v: &str) -> Result<Vec<Metric>, String> {
    let mut plot = Vec::new();
    for name in v.split(',').filter(|s| !s.is_empty()) {
        match Metric::from_name(name) {
            Some(m) if !plot.contains(&m) => plot.push(m),
            Some(_) => {}
            None => {
                return Err(format!(
                    "'{}' is not a metric; accepted {}",
                    super::keys::shorten(name),
                    Metric::names()
                ))
            }
        }
    }
    Ok(plot)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_2015_study_is_one_link() {
        let p: Params = "preset=occ-2015&sweep.clients=10..190/10&sweep.backoff=none,exponential,full,equal,decorrelated"
            .parse()
            .unwrap();
        let s = p.sweep().unwrap();
        let rows = p.sweep_rows(&s.axes).unwrap();
        assert_eq!(rows.len(), 95);
        // The last key varies fastest, as in `retrylab sweep --param`.
        assert_eq!(rows[1].0, ["10", "exponential"]);
        assert_eq!(rows[5].1.clients, 20);
        assert_eq!(s.metrics(&p), [Metric::Attempts, Metric::CompletionMs]);
        let again: Params = p.to_string().parse().unwrap();
        assert_eq!(again, p, "the sweep round-trips: {p}");
    }

    #[test]
    fn values_take_ranges_with_units_and_lists() {
        assert_eq!(values("1..3").unwrap(), ["1", "2", "3"]);
        assert_eq!(
            values("100ms..300ms/100ms").unwrap(),
            ["100ms", "200ms", "300ms"]
        );
        assert_eq!(values("1s..3s/1").unwrap(), ["1s", "2s", "3s"]);
        assert_eq!(values("full, none").unwrap(), ["full", "none"]);
        assert!(values("1s..3ms/1").unwrap_err().contains("same unit"));
        assert!(values("5..1/1").unwrap_err().contains("lo <= hi"));
        assert!(values("0..5000/1").unwrap_err().contains("at most 1000"));
        assert!(values(",").unwrap_err().contains("no values"));
    }

    #[test]
    fn bad_sweeps_name_sweep_and_the_key() {
        for (q, rule) in [
            (
                "preset=payments-jitter&sweep.wat=1,2",
                "sweep.wat: unknown key",
            ),
            (
                "preset=payments-jitter&sweep.preset=a,b",
                "sweep.preset: cannot be swept",
            ),
            (
                "sweep.base=100ms..300ms/100ms",
                "sweep.base: a sweep runs simulations",
            ),
            (
                "preset=payments-jitter&sweep.base=100ms..3000ms/100ms&sweep.cap=1s",
                "sweep.base: base=1100ms&cap=1s: base: must not exceed cap",
            ),
            (
                "preset=payments-jitter&sweep.attempts=0,2",
                "sweep.attempts: attempts=0: '0' is not a whole number",
            ),
            (
                "preset=payments-jitter&sweep.seed=1..1000&sweep.attempts=1..3",
                "sweep.seed: 1000 x 3 combinations",
            ),
            (
                "preset=payments-jitter&sweep.plot=speed&sweep.seed=1,2",
                "sweep.plot: 'speed' is not a metric",
            ),
            (
                "preset=payments-jitter&b.backoff=none&sweep.seed=1,2",
                "sweep.seed: a link either compares",
            ),
            (
                "preset=payments-jitter&sweep.seed=1,2&sweep.base=1s,2s&sweep.cap=5s",
                "sweep.cap: a third key needs heatmaps",
            ),
            (
                "preset=payments-jitter&sweep.seed=1,2&sweep.chart=heatmap",
                "sweep.chart: a heatmap needs two swept keys",
            ),
            (
                "preset=payments-jitter&sweep.seed=1,2&sweep.base=1s,2s&sweep.chart=pie",
                "sweep.chart: 'pie' is not one of heatmap, lines",
            ),
        ] {
            let e = q.parse::<Params>().unwrap_err();
            assert_eq!(e.field, "sweep", "{q}: {e}");
            assert!(e.rule.starts_with(rule), "{q}: {e}");
            // The rest of the link still opens, without the sweep.
            let (p, _) = Params::parse_lenient(q);
            assert!(p.sweep().is_none());
        }
    }

    #[test]
    fn the_chart_is_asked_for_or_chosen_by_the_metrics() {
        let two = "preset=queue-spike-none&sweep.spike_rate=20,100&sweep.spike_for=1s,5s";
        let heat = |q: &str| q.parse::<Params>().unwrap().sweep().unwrap().is_heatmap();
        assert!(!heat(two));
        assert!(heat(&format!("{two}&sweep.plot=recovered")));
        assert!(heat(&format!("{two}&sweep.chart=heatmap")));
        // Lines asked for stay lines, whatever the metrics, and say so in the link.
        let lines = format!("{two}&sweep.plot=recovered&sweep.chart=lines");
        assert!(!heat(&lines));
        let p: Params = lines.parse().unwrap();
        assert!(p.to_string().ends_with("&sweep.chart=lines"), "{p}");
        assert_eq!(p.to_string().parse::<Params>().unwrap(), p);
        let e = format!("{lines}&sweep.budget=none,bucket")
            .parse::<Params>()
            .unwrap_err();
        assert!(e.rule.contains("a third key needs heatmaps"), "{e}");
    }

    #[test]
    fn the_sweep_is_edited_as_text() {
        let mut p: Params = "preset=payments-jitter".parse().unwrap();
        p.set_sweep_text("base=100ms..500ms/200ms&backoff=full,equal&plot=p99_ms")
            .unwrap();
        assert_eq!(
            p.sweep_text(),
            "base=100ms..500ms/200ms&backoff=full,equal&plot=p99_ms"
        );
        let e = p.set_sweep_text("base=1s..9s/1s").unwrap_err();
        assert_eq!(e.field, "sweep");
        assert!(e.rule.contains("must not exceed cap"), "{e}");
        assert_eq!(p.sweep().unwrap().axes.len(), 2, "unchanged");
        p.set_sweep_text("").unwrap();
        assert!(p.sweep().is_none());
    }

    #[test]
    fn an_edit_keeps_the_sweep_and_a_preset_drops_it() {
        let mut p: Params = "preset=payments-jitter&sweep.base=100ms,200ms&sweep.plot=p99_ms"
            .parse()
            .unwrap();
        p.set("outage", "2s").unwrap();
        assert_eq!(
            p.to_string(),
            "v=2&preset=payments-jitter&outage=2s&sweep.base=100ms,200ms&sweep.plot=p99_ms"
        );
        p.set("preset", "burst-lab").unwrap();
        assert!(p.sweep().is_none());
    }
}
