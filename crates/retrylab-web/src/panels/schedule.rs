//! The schedule of a policy link: the waits many clients draw before each retry, with each
//! retry's ceiling, the readout of the client under the pointer, and the table alternative.

use crate::charts::plot::Canvas as CanvasBackend;
use crate::charts::schedule::{draw_schedules, CoordMap};
use crate::panel::{Panel, PanelCtx};
use crate::state::State;
use crate::web::dom::by_id;
use plotters::prelude::IntoDrawingArea;

/// The schedule chart and where its dots landed, for the pointer.
#[derive(Default)]
pub(crate) struct SchedulePanel {
    map: CoordMap,
}

impl Panel for SchedulePanel {
    fn table(&mut self, cx: &PanelCtx<'_>) {
        if let Some(s) = cx.state {
            fill_schedule_table(s);
        }
    }

    fn render(&mut self, cx: &PanelCtx<'_>) {
        let Some(s) = cx.state else {
            return;
        };
        self.draw(s);
        readout(s);
        formulas(s);
    }

    fn at(&self, x: f64, y: f64, radius: f64) -> Option<usize> {
        self.map.nearest(x, y, radius).map(|d| d.client as usize)
    }
}

impl SchedulePanel {
    /// The chart and its data attributes.
    fn draw(&mut self, s: &State) {
        let Some((canvas, dpr)) = crate::web::canvas::fit("schedule", 0.5, 260.0, 460.0) else {
            return;
        };
        let Some(backend) = CanvasBackend::with_canvas_object(canvas.clone()) else {
            return;
        };
        let area = backend.into_drawing_area();
        let kind = s.params.policy.backoff.kind;
        let b = s.schedule_b.as_ref();
        match draw_schedules(&area, &s.schedule, b, kind, s.hover, dpr) {
            Ok(map) => self.map = map,
            Err(e) => web_sys::console::error_1(&format!("chart: {e}").into()),
        }
        let ms = |d: &[retry_model::Micros]| -> String {
            let v: Vec<String> = d.iter().map(|x| format!("{}", x.as_millis_f64())).collect();
            v.join(",")
        };
        let ceilings: Vec<_> = s.schedule.retries.iter().map(|r| r.ceiling).collect();
        let _ = canvas.set_attribute("data-kind", kind.name());
        let _ = canvas.set_attribute("data-ceilings", &ms(&ceilings));
        let _ = canvas.set_attribute("data-means", &ms(&s.schedule.means()));
        let _ = canvas.set_attribute("data-clients", &s.schedule.clients.to_string());
        let _ = canvas.set_attribute("data-dots", &self.map.len().to_string());
    }
}

/// Each side's policy in one line under the chart (the CLI's `schedule` writes the same).
fn formulas(s: &State) {
    let Some(el) = by_id("schedule-formulas") else {
        return;
    };
    let a = retry_model::describe_policy(&s.params.side_a());
    let text = match s.params.side_b().filter(|_| s.schedule_b.is_some()) {
        Some(b) => format!("A: {a}\nB: {}", retry_model::describe_policy(b)),
        None => a,
    };
    el.set_text_content(Some(&text));
    let _ = el.set_attribute("data-sides", if s.schedule_b.is_some() { "2" } else { "1" });
}

/// The waits of the client under the pointer, retry by retry.
fn readout(s: &State) {
    let Some(readout) = by_id("readout") else {
        return;
    };
    let text = match s.hover {
        Some(c) => {
            let waits: Vec<String> = s
                .schedule
                .retries
                .iter()
                .filter_map(|r| r.waits.get(c as usize).map(|w| w.human()))
                .collect();
            format!("client {c}: waits {}", waits.join(" -> "))
        }
        None => "Point at a dot to follow one client's waits across its retries.".to_string(),
    };
    readout.set_text_content(Some(&text));
}

/// The schedule's table alternative: each client's wait before each retry (the first 50 clients
/// and 20 retries; `retrylab schedule --format csv` has them all).
fn fill_schedule_table(s: &State) {
    let sc = &s.schedule;
    let (clients, retries) = ((sc.clients as usize).min(50), sc.retries.len().min(20));
    let mut head = vec![String::from("client")];
    head.extend(
        sc.retries
            .iter()
            .take(retries)
            .map(|r| format!("retry {} (ms)", r.retry)),
    );
    let mut rows: Vec<Vec<String>> = (0..clients)
        .map(|c| {
            let mut row = vec![(c + 1).to_string()];
            row.extend(sc.retries.iter().take(retries).map(|r| {
                r.waits
                    .get(c)
                    .map_or(String::new(), |w| w.as_millis_f64().to_string())
            }));
            row
        })
        .collect();
    let mut ceiling = vec![String::from("ceiling")];
    ceiling.extend(
        sc.retries
            .iter()
            .take(retries)
            .map(|r| r.ceiling.as_millis_f64().to_string()),
    );
    rows.push(ceiling);
    crate::web::canvas::fill_table("schedule-table", &head, &rows);
    if let Some(note) = by_id("schedule-note") {
        note.set_text_content(Some(&format!(
            "{} of {} clients, {} of {} retries; `retrylab schedule --format csv` lists every one.",
            clients,
            sc.clients,
            retries,
            sc.retries.len()
        )));
    }
}
