//! A sweep's rows, made a few at a time: every combination of the axes' values, each row the
//! link without its sweep with those values set and checked (its keys, the cross-key rules and
//! the simulator's caps, without running anything).
//!
//! Why in steps? Checking a row writes its link out, about a tenth of a millisecond natively
//! and several times that in the page's wasm; a phase plot has 400 rows. The page makes them a
//! few milliseconds at a time, between other work, so no task blocks it; `Params::sweep_rows`
//! makes them all at once. Both give the same rows and the same errors.
//!
//! ```
//! use retry_model::{Params, SweepRows};
//! let p: Params = "preset=payments-jitter&sweep.base=100ms..2000ms/100ms".parse().unwrap();
//! let axes = &p.sweep().unwrap().axes;
//! let mut rows = SweepRows::new(&p, axes).unwrap();
//! assert!(!rows.step(5).unwrap()); // 5 of 20 made
//! assert_eq!((rows.made(), rows.total()), (5, 20));
//! while !rows.step(5).unwrap() {}
//! assert_eq!(rows.finish().unwrap(), p.sweep_rows(axes).unwrap());
//! ```

use super::sweep::{combination, Axis, MAX_ROWS};
use super::Params;
use crate::retry::error::ConfigError;
use crate::sim::Run;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

impl Params {
    /// Every combination of the axes' values as a row: the values, and this link without its
    /// sweep with those values set. Each row is checked (its keys, the cross-key rules and the
    /// simulator's caps, without running anything); the error names the key and the value.
    /// [`SweepRows`] makes the same rows a few at a time.
    pub fn sweep_rows(&self, axes: &[Axis]) -> Result<Vec<(Vec<String>, Params)>, String> {
        let mut rows = SweepRows::new(self, axes)?;
        while !rows.step(usize::MAX)? {}
        rows.finish()
    }
}

/// A sweep's rows in the making.
pub struct SweepRows {
    base: Params,
    axes: Vec<Axis>,
    total: usize,
    rows: Vec<(Vec<String>, Params)>,
    // Per key, the rows where it has no effect: it is refused only if that is every row.
    inert: Vec<(ConfigError, usize)>,
}

impl Params {
    /// This link as one plain run: no sweep, and no exercise keys, since the question is the
    /// sweep's (a row's link, which sweeps nothing, could not ask for a row). A phase plot's
    /// cells stop once clear of 50% unless the link says `sequential=false`: the row says so.
    pub fn plain_run(&self) -> Params {
        let mut row = self.settings_only();
        // A comparison's rows keep their side B.
        row.compare = self.compare.clone();
        row.sim.sequential = self.rows_sequential();
        row
    }

    /// This link without its sweep, as the base its rows are made from (`retrylab sweep`, its
    /// shards): each row stops as the sweep's link says.
    pub fn sweep_base(&self) -> Params {
        let mut base = self.clone();
        base.sweep = None;
        base.sim.sequential = self.rows_sequential();
        base
    }

    /// `sequential` as each row of this link's sweep takes it: a phase plot's `auto` is `true`.
    pub fn rows_sequential(&self) -> Option<bool> {
        match self.sim.sequential {
            None if self.phase_plot_of_runs() => Some(true),
            said => said,
        }
    }

    /// Whether this link is a sweep of several runs a row that plots only whether and when
    /// the runs recovered (`sweep.plot=recovered`): the question `sequential=auto` answers
    /// by stopping each row's runs once the share that recovered is clear of 50%.
    pub fn phase_plot_of_runs(&self) -> bool {
        self.sim.runs.0 > 1 && self.sweep.as_ref().is_some_and(|s| s.plots_only_recovery())
    }
}

impl SweepRows {
    /// The rows of `p` swept over `axes`; an error when there would be more than [`MAX_ROWS`].
    pub fn new(p: &Params, axes: &[Axis]) -> Result<SweepRows, String> {
        let total = axes.iter().try_fold(1usize, |acc, a| {
            acc.checked_mul(a.values.len()).filter(|n| *n <= MAX_ROWS)
        });
        let Some(total) = total else {
            let sizes: Vec<String> = axes.iter().map(|a| a.values.len().to_string()).collect();
            return Err(format!(
                "{} combinations is more than the {MAX_ROWS} rows a sweep runs",
                sizes.join(" x ")
            ));
        };
        Ok(SweepRows {
            base: p.plain_run(),
            axes: axes.to_vec(),
            total,
            rows: Vec::with_capacity(total),
            inert: Vec::new(),
        })
    }

    /// Rows made so far.
    pub fn made(&self) -> usize {
        self.rows.len()
    }

    /// Rows in all.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Makes up to `n` more rows; true once every row is made. The error names the row's key
    /// and value.
    pub fn step(&mut self, n: usize) -> Result<bool, String> {
        for _ in 0..n {
            if self.rows.len() >= self.total {
                break;
            }
            let row = self.row(self.rows.len())?;
            self.rows.push(row);
        }
        Ok(self.rows.len() >= self.total)
    }

    /// Every row, once [`SweepRows::step`] has made them; the error names a key that has no
    /// effect on any row.
    pub fn finish(self) -> Result<Vec<(Vec<String>, Params)>, String> {
        if let Some((e, _)) = self.inert.into_iter().find(|(_, n)| *n == self.total) {
            return Err(format!(
                "{}: {} (on every row of the sweep)",
                e.field, e.rule
            ));
        }
        Ok(self.rows)
    }

    /// Row number `i`, checked.
    fn row(&mut self, i: usize) -> Result<(Vec<String>, Params), String> {
        let picked = combination(&self.axes, i);
        let mut p = self.base.clone();
        let mut vals = Vec::with_capacity(self.axes.len());
        for (a, v) in self.axes.iter().zip(picked) {
            p.set(a.key, v)
                .map_err(|e| format!("{}={}: {}", a.key, super::keys::shorten(v), e.rule))?;
            vals.push(v.clone());
        }
        // A key this row does not use is left out of the row (another row uses it).
        let (row, dropped) = p.without_inert_except(&[]);
        for e in dropped {
            match self.inert.iter_mut().find(|(f, _)| f.field == e.field) {
                Some((_, n)) => *n += 1,
                None => self.inert.push((e, 1)),
            }
        }
        let mut p = row;
        p.sweep = None;
        // A row of a preset's own sweep is written out key by key: named by its preset, its
        // link would open the whole sweep again.
        if p.preset.is_some_and(crate::Preset::has_sweep) {
            p.preset = None;
            // The preset's own keys are now written out, and one the row's keys make inert
            // (its `rate` beside `users`) is left out too: the preset set it, not the reader.
            p = p.without_inert_except(&[]).0;
        }
        let named = || {
            self.axes
                .iter()
                .zip(&vals)
                .map(|(a, v)| format!("{}={}", a.key, super::keys::shorten(v)))
                .collect::<Vec<_>>()
                .join("&")
        };
        // The row has no inert key left (`without_inert_except` took them out), so of
        // `Params::validate` only the policy's own rules remain to check.
        debug_assert!(p.inapplicable(&[]).is_empty(), "{p}");
        let policy = p
            .policy
            .validate()
            .map_err(|e| format!("{}: {e}", named()))?;
        if p.sim.scenario.is_some() {
            // Checks the row against the simulator's caps, as a run of it would, and builds
            // nothing. The row's keys are checked already: they are not checked again.
            Run::check(super::run::Checked(&p, policy)).map_err(|e| format!("{}: {e}", named()))?;
        }
        Ok((vals, p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Made one row at a time, or three, the rows and the errors are `sweep_rows`'s.
    /// A teacher's exercise over a sweep (`ask=least:attempts`): each row is a plain run whose
    /// link reads back, so the page's workers can run it.
    #[test]
    fn an_exercise_over_a_sweep_makes_rows_that_read() {
        let p: Params = "preset=burst-lab&sweep.backoff=none,full&ask=least:attempts&guess=full"
            .parse()
            .unwrap();
        let mut rows = SweepRows::new(&p, &p.sweep().unwrap().axes).unwrap();
        rows.step(10).unwrap();
        for (_, row) in rows.finish().unwrap() {
            let again: Params = row.to_string().parse().unwrap();
            assert!(
                again.exercise().is_none() && again.guess.is_none(),
                "{again}"
            );
        }
    }

    #[test]
    fn a_preset_sweeps_row_drops_the_preset_keys_its_own_keys_make_inert() {
        // phase-capacity sets rate=70; with users=15 the rate has no effect.
        let p: Params = "preset=phase-capacity&users=15&sweep.seed=1,2"
            .parse()
            .unwrap();
        let rows = p.sweep_rows(&p.sweep().unwrap().axes).unwrap();
        assert_eq!(rows.len(), 2);
        for (_, row) in &rows {
            assert!(row.inapplicable(&[]).is_empty(), "{row}");
            assert!(!row.to_string().contains("rate="), "{row}");
        }
    }

    #[test]
    fn rows_made_in_steps_are_the_rows_made_at_once() {
        for link in [
            "preset=phase-spike",
            "preset=occ-2015&sweep.clients=10..190/10&sweep.backoff=none,full",
            "preset=payments-jitter&sweep.base=100ms..2000ms/100ms&sweep.budget=none,aws",
        ] {
            let p: Params = link.parse().unwrap();
            let axes = &p.sweep().unwrap().axes;
            for n in [1, 3] {
                let mut rows = SweepRows::new(&p, axes).unwrap();
                let mut steps = 0;
                while !rows.step(n).unwrap() {
                    steps += 1;
                    assert_eq!(rows.made(), steps * n, "{link}");
                }
                assert_eq!(rows.made(), rows.total());
                assert_eq!(
                    rows.finish().unwrap(),
                    p.sweep_rows(axes).unwrap(),
                    "{link}"
                );
            }
        }
        // A row over a cap fails at its own step, naming its key and value: 1,000 clients of
        // the OCC study, 1,000 runs, is more work than a run may do.
        let p: Params = "preset=occ-2015&runs=1000".parse().unwrap();
        let axes = [Axis {
            key: "clients",
            spec: "100,1000".into(),
            values: alloc::vec!["100".into(), "1000".into()],
        }];
        let mut rows = SweepRows::new(&p, &axes).unwrap();
        assert!(!rows.step(1).unwrap());
        let e = rows.step(1).unwrap_err();
        assert_eq!(Err(e.clone()), p.sweep_rows(&axes).map(|_| ()));
        assert!(e.starts_with("clients=1000: "), "{e}");
        assert!(e.contains("400000000"), "{e}");
    }
}
