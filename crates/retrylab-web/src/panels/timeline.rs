//! The timeline of one run, or of both sides of a comparison: original requests, attempts,
//! successes and failures per second, with the trigger shaded; and its table alternative.

use crate::charts::plot::Canvas as CanvasBackend;
use crate::charts::timeline::{draw_timeline, TimeMap, Timeline};
use crate::panel::{Panel, PanelCtx, PanelOutcome};
use plotters::prelude::IntoDrawingArea;

/// The timeline's height: this share of its width, within these CSS pixels (also what a run
/// in flight keeps for it).
const SIZE: (f64, f64, f64) = (0.5, 280.0, 460.0);

/// The timeline and where its bins landed, for the pointer.
#[derive(Default)]
pub(crate) struct TimelinePanel {
    map: TimeMap,
}

impl Panel for TimelinePanel {
    fn table(&mut self, cx: &PanelCtx<'_>) {
        if let Some(d) = cx.done.filter(|d| d.plan.is_none()) {
            fill_rates_table(d);
        }
    }

    fn reserve(&self, _p: &retry_model::Params) {
        let _ = crate::web::canvas::fit("timeline", SIZE.0, SIZE.1, SIZE.2);
    }

    fn render(&mut self, cx: &PanelCtx<'_>) {
        let Some(d) = cx.done.filter(|d| d.plan.is_none()) else {
            return;
        };
        let Some(first) = d.reports.first() else {
            return;
        };
        let Some((canvas, dpr)) = crate::web::canvas::fit("timeline", SIZE.0, SIZE.1, SIZE.2)
        else {
            return;
        };
        let Some(backend) = CanvasBackend::with_canvas_object(canvas.clone()) else {
            return;
        };
        let sides: Vec<_> = d.reports.iter().map(|r| r.series.rates()).collect();
        let bin_s = first.series.bin_ms / 1000.0;
        let bands: Vec<_> = d.reports.iter().map(|r| band_rates(r, bin_s)).collect();
        let band_label = first
            .band
            .as_ref()
            .map(|b| format!("attempts/s: the range of {} of {} runs", b.kept, b.runs));
        let t = Timeline {
            sides: &sides,
            bin_s,
            outage: d.outage,
            title: format!(
                "{}: requests and attempts per second (first run{})",
                crate::charts::timeline::system_name(
                    &d.params,
                    first.scenario.name(),
                    d.outage.map(|o| o.2)
                ),
                if sides.len() > 1 {
                    "; A solid, B dashed"
                } else {
                    ""
                }
            ),
            hedged: first.summary.hedge.is_some(),
            recovery: first.summary.recovery.map(|r| (r.recovered_at_s, r.text())),
            bands,
            band_label,
        };
        match draw_timeline(&backend.into_drawing_area(), &t, dpr) {
            Ok(map) => self.map = map,
            Err(e) => web_sys::console::error_1(&format!("timeline: {e}").into()),
        }
        let _ = canvas.set_attribute("data-bins", &sides[0].len().to_string());
        let _ = canvas.set_attribute("data-sides", &sides.len().to_string());
    }

    fn at(&self, x: f64, _y: f64, _radius: f64) -> Option<usize> {
        self.map.bin_at(x)
    }
}

/// A run's band (with several runs) in attempts per second.
fn band_rates(r: &retry_model::sim::SimReport, bin_s: f64) -> Option<Vec<(f64, f64)>> {
    let b = r.band.as_ref()?;
    let per_s = |n: u32| f64::from(n) / bin_s.max(1e-9);
    Some(
        b.low
            .iter()
            .zip(&b.high)
            .map(|(&lo, &hi)| (per_s(lo), per_s(hi)))
            .collect(),
    )
}

/// The most time bins the rates table lists (the series CSV export has them all).
const MAX_TABLE_ROWS: usize = 2000;

/// Fills the table alternative of the timeline and the system chart: side A's first run, one
/// row per bin.
fn fill_rates_table(d: &PanelOutcome) {
    let Some(r) = d.reports.first() else {
        return;
    };
    let rates = r.series.rates();
    // A queue or flaky server's own series, as its panels draw them.
    let server = r.summary.server.is_some();
    let mut head: Vec<String> = [
        "t (s)",
        "originals/s",
        "attempts/s",
        "successes/s",
        "failures/s",
        "capacity serving (%)",
        "in flight",
        "budget (tokens)",
    ]
    .map(String::from)
    .to_vec();
    if server {
        head.extend(["work done/s", "waiting in the queue (most)"].map(String::from));
    }
    let band = band_rates(r, r.series.bin_ms / 1000.0);
    if let Some(b) = r.band.as_ref() {
        head.push(format!(
            "attempts/s, range of {} of {} runs",
            b.kept, b.runs
        ));
    }
    let rows: Vec<Vec<String>> = rates
        .iter()
        .enumerate()
        .take(MAX_TABLE_ROWS)
        .map(|(i, b)| {
            let mut row = vec![
                format!("{}", b.t_s),
                format!("{:.0}", b.originals),
                format!("{:.0}", b.attempts),
                format!("{:.0}", b.successes),
                format!("{:.0}", b.failures),
                format!("{:.0}", b.utilisation * 100.0),
                b.in_flight.to_string(),
                format!("{}", b.budget),
            ];
            if server {
                row.extend([format!("{:.0}", b.served), b.queue.to_string()]);
            }
            if let Some((lo, hi)) = band.as_ref().and_then(|v| v.get(i)) {
                row.push(format!("{lo:.0} to {hi:.0}"));
            }
            row
        })
        .collect();
    crate::web::canvas::fill_table("rates-table", &head, &rows);
    if let Some(note) = crate::web::dom::by_id("rates-note") {
        let text = if rates.len() > MAX_TABLE_ROWS {
            format!(
                "The first {} of {} bins; \"series as CSV\" exports them all.",
                MAX_TABLE_ROWS,
                rates.len()
            )
        } else {
            format!("{} bins of {} ms.", rates.len(), r.series.bin_ms)
        };
        note.set_text_content(Some(&text));
    }
}
