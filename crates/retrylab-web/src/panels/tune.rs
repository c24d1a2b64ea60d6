//! "Find a better policy": the frontier a `tune=on` link's search found, as a chart (success
//! against attempts per original, p99 as colour, the user's own ringed), its readout under the
//! pointer, the verdict, and the table with each point's links (open it; compare it with yours,
//! the ladder between them included). The numbers and words are the core's
//! (`retry_model::tune`, through `tuneplan`).

use crate::charts::frontier::{draw_frontier, FrontierMap};
use crate::charts::plot::Canvas as CanvasBackend;
use crate::panel::{Panel, PanelCtx};
use crate::tuneplan::TuneOutcome;
use crate::web::dom::{by_id, document};
use plotters::prelude::IntoDrawingArea;

/// What the panel last drew, for the pointer.
#[derive(Default)]
pub(crate) struct TunePanel {
    map: FrontierMap,
    shown: Option<TuneOutcome>,
}

impl Panel for TunePanel {
    fn render(&mut self, cx: &PanelCtx<'_>) {
        let Some(t) = cx.done.and_then(|d| d.tune.as_ref()) else {
            self.shown = None;
            return;
        };
        if let Some(v) = by_id("tune-verdict") {
            v.set_text_content(Some(&t.verdict()));
        }
        self.map = draw(t).unwrap_or_default();
        fill_table(t);
        self.shown = Some(t.clone());
    }

    fn point(&mut self, at: Option<(f64, f64)>) {
        let Some(t) = self.shown.as_ref() else {
            return;
        };
        let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
        let hit = at.and_then(|(x, y)| self.map.point_at(x, y, 14.0 * dpr));
        let text = hit.map_or_else(
            || "Point at a policy for its figures under each weather.".to_string(),
            |i| t.readout(i),
        );
        if let Some(r) = by_id("tune-readout") {
            r.set_text_content(Some(&text));
        }
    }
}

/// Draws the chart; where its points landed.
fn draw(t: &TuneOutcome) -> Option<FrontierMap> {
    let (canvas, dpr) = crate::web::canvas::fit("tune-chart", 0.5, 280.0, 460.0)?;
    let backend = CanvasBackend::with_canvas_object(canvas.clone())?;
    let f = t.frontier();
    let _ = canvas.set_attribute("data-points", &f.points.len().to_string());
    match draw_frontier(&backend.into_drawing_area(), &f, dpr) {
        Ok(map) => Some(map),
        Err(e) => {
            web_sys::console::error_1(&format!("frontier: {e}").into());
            None
        }
    }
}

/// The table: the core's rows, with a last cell of links to open each policy and to compare
/// it with the user's.
fn fill_table(t: &TuneOutcome) {
    let mut head = t.head();
    head.push("open".to_string());
    crate::web::canvas::fill_table("tune-table", &head, &t.rows());
    let (Some(doc), Some(table)) = (document(), by_id("tune-table")) else {
        return;
    };
    let Ok(rows) = table.query_selector_all("tbody tr") else {
        return;
    };
    for i in 0..rows.length() {
        let Some(tr) = rows.item(i) else {
            continue;
        };
        let Ok(td) = doc.create_element("td") else {
            continue;
        };
        let i = i as usize;
        let mut links = vec![(format!("?{}", t.open_link(i)), "open".to_string())];
        if let Some(c) = t.compare_link(i) {
            links.push((format!("?{c}"), "compare with yours".to_string()));
        }
        for (href, text) in links {
            if let Ok(a) = doc.create_element("a") {
                let _ = a.set_attribute("href", &href);
                a.set_text_content(Some(&text));
                let _ = td.append_child(&a);
            }
        }
        let _ = tr.append_child(&td);
    }
}
