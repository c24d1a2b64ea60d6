//! A sweep's charts: one canvas per metric against the swept key, a line per other axis value.

use crate::charts::heatmap::{draw_heatmap, CellMap};
use crate::charts::plot::Canvas as CanvasBackend;
use crate::charts::sweepchart::{draw_sweep, SweepMap};
use crate::panel::{Panel, PanelCtx};
use crate::web::dom::{by_id, document};
use plotters::prelude::IntoDrawingArea;
use web_sys::Element;

/// The charts and where each one's rows landed, for the pointer.
#[derive(Default)]
pub(crate) struct SweepPanel {
    maps: Vec<SweepMap>,
    // A phase plot's cells (every chart of one has the same layout).
    cells: Option<CellMap>,
}

impl Panel for SweepPanel {
    fn render(&mut self, cx: &PanelCtx<'_>) {
        let (Some(d), Some(host)) = (cx.done, by_id("sweep-charts")) else {
            return;
        };
        let Some(plan) = &d.plan else {
            return;
        };
        self.maps.clear();
        self.cells = None;
        if plan.heatmap {
            self.render_heatmaps(&host, &plan.heatmaps(&d.summaries()));
            return;
        }
        let charts = plan.charts(&d.summaries());
        while host.child_element_count() as usize > charts.len() {
            if let Some(last) = host.last_element_child() {
                last.remove();
            }
        }
        for (i, chart) in charts.iter().enumerate() {
            let id = format!("sweep-chart-{i}");
            let Some(c) = canvas_in(&host, &id) else {
                return;
            };
            let _ = c.set_attribute("role", "img");
            let _ = c.set_attribute("aria-label", &chart.title);
            let Some((canvas, dpr)) = crate::web::canvas::fit(&id, 0.42, 240.0, 400.0) else {
                return;
            };
            let Some(backend) = CanvasBackend::with_canvas_object(canvas.clone()) else {
                return;
            };
            match draw_sweep(&backend.into_drawing_area(), chart, dpr) {
                Ok(map) => self.maps.push(map),
                Err(e) => web_sys::console::error_1(&format!("sweep chart: {e}").into()),
            }
            let _ = canvas.set_attribute("data-lines", &chart.lines.len().to_string());
        }
    }

    fn at(&self, x: f64, y: f64, _radius: f64) -> Option<usize> {
        if let Some(cells) = &self.cells {
            return cells.row_at(x, y);
        }
        self.maps.first().and_then(|m| m.index_at(x))
    }
}

impl SweepPanel {
    /// A phase plot: one canvas per metric, the grids side by side in each.
    fn render_heatmaps(&mut self, host: &Element, charts: &[crate::charts::heatmap::Heatmap]) {
        while host.child_element_count() as usize > charts.len() {
            if let Some(last) = host.last_element_child() {
                last.remove();
            }
        }
        for (i, chart) in charts.iter().enumerate() {
            let id = format!("sweep-chart-{i}");
            let Some(c) = canvas_in(host, &id) else {
                return;
            };
            let _ = c.set_attribute("role", "img");
            let _ = c.set_attribute("aria-label", &chart.title);
            let Some((canvas, dpr)) = crate::web::canvas::fit(&id, 0.5, 300.0, 520.0) else {
                return;
            };
            let Some(backend) = CanvasBackend::with_canvas_object(canvas.clone()) else {
                return;
            };
            match draw_heatmap(&backend.into_drawing_area(), chart, dpr) {
                Ok(map) if i == 0 => self.cells = Some(map),
                Ok(_) => {}
                Err(e) => web_sys::console::error_1(&format!("heatmap: {e}").into()),
            }
            let cells: usize = chart.grids.iter().map(|g| g.rows.len()).sum();
            let _ = canvas.set_attribute("data-cells", &cells.to_string());
            let _ = canvas.set_attribute("data-chart", "heatmap");
        }
    }
}

/// The canvas `id` under `host`, made if it is not there yet.
fn canvas_in(host: &Element, id: &str) -> Option<Element> {
    if let Some(c) = by_id(id) {
        return Some(c);
    }
    let c = document()?.create_element("canvas").ok()?;
    c.set_id(id);
    let _ = c.set_attribute("class", "chart");
    let _ = host.append_child(&c);
    Some(c)
}
