//! The scenario's own chart beside the timeline: the call counts of `layers`, the charges of
//! `lost` without and with a key, or, for the 2015 study, each side's write calls on its own
//! time axis.

use crate::charts::plot::Canvas as CanvasBackend;
use crate::panel::{Panel, PanelCtx, PanelOutcome};
use crate::web::dom::{by_id, set_hidden};
use plotters::prelude::IntoDrawingArea;
use web_sys::Element;

/// The scenario's own chart.
#[derive(Default)]
pub(crate) struct ExtraPanel;

impl Panel for ExtraPanel {
    fn render(&mut self, cx: &PanelCtx<'_>) {
        let Some(el) = by_id("extra-chart") else {
            return;
        };
        let Some(d) = cx.done.filter(|d| d.plan.is_none()) else {
            return;
        };
        if draw_writes(d, &el) {
            return;
        }
        let _ = el.remove_attribute("data-panels");
        let Some(bars) = bars_of(d) else {
            set_hidden(&el, true);
            return;
        };
        set_hidden(&el, false);
        let _ = el.set_attribute("aria-label", &said(&bars));
        let Some((canvas, dpr)) = crate::web::canvas::fit("extra-chart", 0.4, 240.0, 380.0) else {
            return;
        };
        let Some(backend) = CanvasBackend::with_canvas_object(canvas.clone()) else {
            return;
        };
        if let Err(e) = crate::charts::bars::draw_bars(&backend.into_drawing_area(), &bars, dpr) {
            web_sys::console::error_1(&format!("chart: {e}").into());
        }
        let _ = canvas.set_attribute("data-groups", &bars.categories.len().to_string());
    }
}

/// The bars of `layers` or `lost`, if the result has them.
fn bars_of(d: &PanelOutcome) -> Option<crate::charts::bars::Bars> {
    let first = d.reports.first()?;
    match (&d.twin, d.sides.len()) {
        (Some(t), _) => Some(crate::extras::lost_bars(
            &d.params,
            &first.summary,
            &t.summary,
        )),
        (None, 1) => crate::extras::layers_bars(&d.params, &first.summary),
        _ => None,
    }
}

/// The chart's numbers, in words, for a screen reader.
fn said(bars: &crate::charts::bars::Bars) -> String {
    let said: Vec<String> = bars
        .series
        .iter()
        .map(|sr| {
            let cells: Vec<String> = bars
                .categories
                .iter()
                .zip(&sr.bars)
                .filter_map(|(c, b)| b.as_ref().map(|(_, t)| format!("{c}: {t}")))
                .collect();
            format!("{}: {}", sr.name, cells.join(", "))
        })
        .collect();
    format!("{}. {}", bars.title, said.join("; "))
}

/// For the 2015 study, each side's write calls on its own time axis; false for other links.
fn draw_writes(d: &PanelOutcome, el: &Element) -> bool {
    let Some(panels) = crate::charts::writes::panels(&d.params, &d.reports) else {
        return false;
    };
    set_hidden(el, false);
    let said: Vec<&str> = panels.iter().map(|p| p.title.as_str()).collect();
    let _ = el.set_attribute(
        "aria-label",
        &format!(
            "Write calls over the first run, each side on its own time axis. {}",
            said.join("; ")
        ),
    );
    let n = panels.len() as f64;
    let Some((canvas, dpr)) =
        crate::web::canvas::fit("extra-chart", 0.28 * n, 220.0 * n, 340.0 * n)
    else {
        return true;
    };
    let Some(backend) = CanvasBackend::with_canvas_object(canvas.clone()) else {
        return true;
    };
    if let Err(e) = crate::charts::writes::draw_writes(&backend.into_drawing_area(), &panels, dpr) {
        web_sys::console::error_1(&format!("chart: {e}").into());
    }
    let _ = canvas.remove_attribute("data-groups");
    let _ = canvas.set_attribute("data-panels", &panels.len().to_string());
    true
}
