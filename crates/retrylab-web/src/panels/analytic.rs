//! The Analytic panel beside a queue-server run: the analytic twin's figures in the words of
//! `retrylab analyze`, and its chart (the chain's probability mass with the run's path over it).
//! The twin was solved in the worker after the run (`exec::Finished`); a link the chain does
//! not model shows why, by key.

use crate::charts::plot::Canvas as CanvasBackend;
use crate::panel::{Panel, PanelCtx, PanelOutcome};
use crate::twin::{Point, Solved, Twin, TwinMap};
use crate::web::dom::{append_row, by_id, document, set_hidden};
use plotters::prelude::IntoDrawingArea;

/// The Analytic panel: what it last drew, for the readout under the pointer.
#[derive(Default)]
pub(crate) struct AnalyticPanel {
    shown: Option<TwinShown>,
}

/// The chain, the run's path (and its seconds per point), where the cells landed and the
/// cell under the pointer.
struct TwinShown {
    solved: Solved,
    path: Vec<Point>,
    bin_s: f64,
    map: TwinMap,
    marked: Option<(u32, u32)>,
}

impl Panel for AnalyticPanel {
    fn render(&mut self, cx: &PanelCtx<'_>) {
        let Some(section) = by_id("analytic-section") else {
            return;
        };
        let twin = cx.done.filter(|d| d.plan.is_none()).and_then(|d| {
            let t = d.analytic.as_ref()?;
            Some((d, t))
        });
        self.shown = None;
        readout("");
        let Some((d, (twin, ms))) = twin else {
            set_hidden(&section, true);
            return;
        };
        set_hidden(&section, false);
        let (chart, table) = (by_id("analytic-chart"), by_id("analytic-table"));
        let solved = match twin {
            Twin::Solved(s) => s,
            Twin::Refused(why) => {
                note(&format!(
                    "The analytic twin does not model this link: {why}."
                ));
                for el in [chart, table].into_iter().flatten() {
                    set_hidden(&el, true);
                }
                let _ = section.set_attribute("data-twin", "refused");
                return;
            }
        };
        for el in [&chart, &table].into_iter().flatten() {
            set_hidden(el, false);
        }
        let _ = section.set_attribute("data-twin", "solved");
        let _ = section.set_attribute("data-solve-ms", &format!("{ms:.1}"));
        note(&intro(d));
        if let Some(t) = table {
            rows(&t, solved);
        }
        self.shown = draw(d, solved);
    }

    fn point(&mut self, at: Option<(f64, f64)>) {
        let Some(s) = self.shown.as_mut() else {
            return;
        };
        let state = at.and_then(|(x, y)| s.map.state_at(x, y));
        if state != s.marked {
            // The cell under the pointer is outlined: the chart is drawn again with it.
            s.marked = state;
            paint(s);
        }
        let text = state.map_or_else(String::new, |st| {
            crate::twin::readout(&s.solved, &s.path, s.bin_s, st)
        });
        readout(&text);
    }
}

fn readout(text: &str) {
    if let Some(r) = by_id("analytic-readout") {
        r.set_text_content(Some(text));
    }
}

fn note(text: &str) {
    if let Some(n) = by_id("analytic-note") {
        n.set_text_content(Some(text));
    }
}

/// What the chart and the table are, with the command that prints the same figures.
fn intro(d: &PanelOutcome) -> String {
    let side = if d.sides.len() > 1 { " (side A)" } else { "" };
    format!(
        "The same queue{side} as a continuous-time Markov chain over (attempts at the server, requests waiting to retry), at the base load without the trigger: the shade is how much of the time the chain spends in each state, the line is this run's path, second by second. In the chain a request waiting to retry comes back after a random time, some of them early; the simulator's come back one timeout later, together, so a run can stay congested well past the chain's mixing time. retrylab analyze '{}' prints these figures.",
        d.sides.first().map_or(d.link.as_str(), String::as_str)
    )
}

/// The twin's rows, as `retrylab analyze` prints them.
fn rows(table: &web_sys::Element, s: &Solved) {
    let Some(doc) = document() else {
        return;
    };
    table.set_inner_html("");
    append_row(&doc, table, &["figure".into(), "value".into()], true);
    for (k, v) in &s.rows {
        append_row(&doc, table, &[k.clone(), v.clone()], false);
    }
}

fn draw(d: &PanelOutcome, s: &Solved) -> Option<TwinShown> {
    let first = d.reports.first()?;
    let rates = first.series.rates();
    let mut shown = TwinShown {
        solved: s.clone(),
        path: crate::twin::path(&rates, d.outage.map(|(a, b, _)| (a, b))),
        bin_s: first.series.bin_ms / 1000.0,
        map: TwinMap::default(),
        marked: None,
    };
    paint(&mut shown).then_some(shown)
}

/// Draws the chart of `shown` (its marked cell outlined) and keeps where its cells landed;
/// false if it could not be drawn.
fn paint(shown: &mut TwinShown) -> bool {
    let Some((canvas, dpr)) = crate::web::canvas::fit("analytic-chart", 0.62, 320.0, 560.0) else {
        return false;
    };
    let Some(backend) = CanvasBackend::with_canvas_object(canvas.clone()) else {
        return false;
    };
    let _ = canvas.set_attribute("data-states", &shown.solved.mass.len().to_string());
    let _ = canvas.set_attribute("data-path", &shown.path.len().to_string());
    let area = backend.into_drawing_area();
    match crate::twin::draw_twin(&area, &shown.solved, &shown.path, dpr, shown.marked) {
        Ok(map) => {
            // The plot's edges in CSS pixels, for a test to point at a cell.
            let e = map.edges().map(|v| format!("{:.1}", v / dpr));
            let _ = canvas.set_attribute("data-plot", &e.join(" "));
            let marked = shown
                .marked
                .map_or_else(String::new, |(n, m)| format!("{n},{m}"));
            let _ = canvas.set_attribute("data-marked", &marked);
            shown.map = map;
            true
        }
        Err(e) => {
            web_sys::console::error_1(&format!("analytic chart: {e}").into());
            false
        }
    }
}
