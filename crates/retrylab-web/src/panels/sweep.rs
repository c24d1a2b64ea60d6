//! A sweep's charts: one canvas per metric against the swept key, a line per other axis value.

use crate::dom::{by_id, document};
use crate::panel::{Ctx, Panel};
use crate::plot::Canvas as CanvasBackend;
use crate::sweepchart::{draw_sweep, SweepMap};
use plotters::prelude::IntoDrawingArea;
use web_sys::Element;

/// The charts and where each one's rows landed, for the pointer.
#[derive(Default)]
pub(crate) struct SweepPanel {
    maps: Vec<SweepMap>,
}

impl Panel for SweepPanel {
    fn name(&self) -> &'static str {
        "sweep"
    }

    fn render(&mut self, cx: &Ctx<'_>) {
        let (Some(d), Some(host)) = (cx.done, by_id("sweep-charts")) else {
            return;
        };
        let Some(plan) = &d.plan else {
            return;
        };
        let charts = plan.charts(&d.summaries());
        self.maps.clear();
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
            let Some((canvas, dpr)) = crate::canvas::fit(&id, 0.42, 240.0, 400.0) else {
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

    fn at(&self, x: f64, _y: f64, _radius: f64) -> Option<usize> {
        self.maps.first().and_then(|m| m.index_at(x))
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
