//! The system under the timeline: failures by reason, capacity used (with the breaker's
//! spells), in flight and the budget, on the timeline's time axis; for the scenarios with a
//! server of limited capacity.

use crate::charts::plot::Canvas as CanvasBackend;
use crate::panel::{Panel, PanelCtx};
use crate::web::dom::{by_id, set_hidden};
use plotters::prelude::IntoDrawingArea;
use retry_model::sim::ScenarioKind;

/// The system chart's height: this share of its width, within these CSS pixels (also what
/// a run in flight keeps for it).
const SIZE: (f64, f64, f64) = (0.6, 340.0, 600.0);

/// The system's charts.
#[derive(Default)]
pub(crate) struct SystemPanel;

/// Whether a run of these settings has a system chart: `lost` has no capacity to chart (its
/// failures and in-flight count are in the tiles).
fn shows(p: &retry_model::Params) -> bool {
    matches!(
        p.sim.kind(),
        Some(ScenarioKind::Outage | ScenarioKind::Burst)
    )
}

impl Panel for SystemPanel {
    fn reserve(&self, p: &retry_model::Params) {
        if let Some(el) = by_id("system-chart") {
            set_hidden(&el, !shows(p));
            let _ = crate::web::canvas::fit("system-chart", SIZE.0, SIZE.1, SIZE.2);
        }
    }

    fn render(&mut self, cx: &PanelCtx<'_>) {
        let (Some(d), Some(el)) = (cx.done.filter(|d| d.plan.is_none()), by_id("system-chart"))
        else {
            return;
        };
        let Some(first) = d.reports.first() else {
            return;
        };
        let shown = shows(&d.params);
        set_hidden(&el, !shown);
        if !shown {
            return;
        }
        let Some((canvas, dpr)) = crate::web::canvas::fit("system-chart", SIZE.0, SIZE.1, SIZE.2)
        else {
            return;
        };
        let Some(backend) = CanvasBackend::with_canvas_object(canvas.clone()) else {
            return;
        };
        let sides: Vec<_> = d.reports.iter().map(|r| r.series.rates()).collect();
        let s = crate::charts::system::SystemChart {
            sides: &sides,
            bin_s: first.series.bin_ms / 1000.0,
            outage: d.outage,
            budget: d.params.get("budget").is_some_and(|b| b != "none"),
            breaker: d.params.get("breaker").as_deref() == Some("on"),
            queue: d.params.get("server").as_deref() == Some("queue"),
            capacity: d.params.get("server").as_deref() != Some("flaky"),
        };
        if let Err(e) = crate::charts::system::draw_system(&backend.into_drawing_area(), &s, dpr) {
            web_sys::console::error_1(&format!("system chart: {e}").into());
        }
        let yes = |b: bool| if b { "true" } else { "false" };
        let _ = canvas.set_attribute("data-breaker", yes(s.breaker));
        let _ = canvas.set_attribute("data-budget", yes(s.budget));
        let _ = canvas.set_attribute("data-queue", yes(s.queue));
        let _ = canvas.set_attribute("data-capacity", yes(s.capacity));
        let trigger = s.outage.map_or("none", |(_, _, name)| name);
        let _ = canvas.set_attribute("data-trigger", trigger);
    }
}
