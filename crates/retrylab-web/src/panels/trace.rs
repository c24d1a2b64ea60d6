//! One request, step by step: the policy's arithmetic as the core writes it (`explain_in`),
//! rounded for people unless "Exact" is ticked, and the deadline timeline beside it. The
//! timeline steps attempt by attempt (Start / Step / Back / Show all); the pointer on a bar or on
//! a text step rings both.

use crate::charts::deadline::DeadlineMap;
use crate::charts::plot::Canvas as CanvasBackend;
use crate::panel::{Panel, PanelCtx};
use crate::state::State;
use crate::web::dom::{by_id, document};
use plotters::prelude::*;
use retry_model::{explain_in, Digits, Params};
use wasm_bindgen::JsCast;
use web_sys::Element;

/// Where the request's stepping stands and what is on screen.
pub(crate) struct TracePanel {
    /// The link the stepping belongs to; a new link starts it again.
    link: String,
    /// The attempts the trace has (for stepping).
    attempts: usize,
    /// The last attempt shown (0-based), `None` for all.
    upto: Option<usize>,
    /// The attempt under the pointer (on the chart or its text step).
    hl: Option<usize>,
    /// Where the timeline's attempts landed.
    map: DeadlineMap,
    /// Every duration to the microsecond, or rounded for people.
    digits: Digits,
    /// The link and digits the text steps were written for (they are rewritten only when
    /// either changes, never under the pointer).
    written: Option<(String, Digits)>,
    /// What the timeline was last drawn for (the link, the ringed and last shown attempts, the
    /// canvas width): the pointer redraws it only when the ring moves.
    drawn: Option<(String, Option<usize>, Option<usize>, u32)>,
}

impl Default for TracePanel {
    fn default() -> Self {
        TracePanel {
            link: String::new(),
            attempts: 0,
            upto: None,
            hl: None,
            map: DeadlineMap::default(),
            digits: Digits::People,
            written: None,
            drawn: None,
        }
    }
}

impl Panel for TracePanel {
    fn sync(&mut self, p: &Params) {
        let link = p.to_string();
        if self.link != link {
            self.upto = None; // a new request: its timeline starts whole
            self.link = link;
        }
    }

    /// Stepping (`start`, `step`, `back`, `reset`), the digits (`exact`, `people`) and the text
    /// step under the pointer (`at:<attempt index>`, `at:none`).
    fn act(&mut self, what: &str) {
        let n = self.attempts;
        if let Some(at) = what.strip_prefix("at:") {
            self.hl = at.parse().ok();
            return;
        }
        self.upto = match (what, self.upto) {
            ("exact", now) => {
                self.digits = Digits::Exact;
                now
            }
            ("people", now) => {
                self.digits = Digits::People;
                now
            }
            ("start", _) => Some(0),
            ("step", Some(u)) if u + 1 < n => Some(u + 1),
            ("step", Some(_)) | ("reset", _) => None,
            ("back", Some(u)) => Some(u.saturating_sub(1)),
            ("back", None) => Some(n.saturating_sub(1)),
            (_, now) => now,
        };
    }

    fn render(&mut self, cx: &PanelCtx<'_>) {
        let Some(s) = cx.state else { return };
        // A scenario link shows the scenario view: the trace is hidden, so it is not written
        // (a 1000-attempt trace is thousands of lines).
        if s.params.sim.scenario.is_some() {
            return;
        }
        self.attempts = s.trace.steps.len();
        let key = (self.link.clone(), self.digits);
        if self.written.as_ref() != Some(&key) {
            write_steps(s, self.digits);
            self.written = Some(key);
        }
        self.draw(s);
    }

    fn point(&mut self, at: Option<(f64, f64)>) {
        self.hl = at.and_then(|(_, y)| self.map.attempt_at(y));
    }
}

impl TracePanel {
    /// The deadline timeline, its highlighted attempt ringed, and that attempt's text step
    /// marked (the later ones dimmed while stepping).
    fn draw(&mut self, s: &State) {
        let Some((canvas, dpr)) = crate::web::canvas::fit("deadline-chart", 0.34, 250.0, 380.0)
        else {
            return;
        };
        let ring = self.hl.or(self.upto);
        let what = (self.link.clone(), ring, self.upto, canvas.width());
        if self.drawn.as_ref() == Some(&what) {
            return;
        }
        self.drawn = Some(what);
        let Some(backend) = CanvasBackend::with_canvas_object(canvas.clone()) else {
            return;
        };
        match crate::charts::deadline::draw_deadline(
            &backend.into_drawing_area(),
            &s.trace,
            s.params.policy.deadline,
            s.params.policy.reserve,
            ring,
            self.upto,
            dpr,
        ) {
            Ok(map) => self.map = map,
            Err(e) => web_sys::console::error_1(&format!("deadline: {e}").into()),
        }
        let refused = s
            .trace
            .steps
            .iter()
            .any(|x| x.after.fit.is_some_and(|f| !f.fits) && x.after.stop.is_some());
        let _ = canvas.set_attribute("data-attempts", &s.trace.steps.len().to_string());
        let _ = canvas.set_attribute("data-refused", if refused { "true" } else { "false" });
        let Some(doc) = document() else { return };
        let Ok(items) = doc.query_selector_all("#trace-steps li") else {
            return;
        };
        for i in 0..items.length() {
            if let Some(li) = items.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                let i = i as usize;
                let on = ring == Some(i);
                let _ = li.set_attribute("data-highlight", if on { "true" } else { "false" });
                let later = self.upto.is_some_and(|u| i > u);
                let _ = li.set_attribute("data-later", if later { "true" } else { "false" });
            }
        }
    }
}

/// The request's text: what it starts with, one list item per attempt (its first line a
/// heading), and how it stopped.
fn write_steps(s: &State, digits: Digits) {
    let Some(doc) = document() else { return };
    let e = explain_in(digits, &s.params, &s.trace);
    if let Some(intro) = by_id("trace-intro") {
        intro.set_text_content(Some(&e.intro.join("\n")));
    }
    if let Some(list) = by_id("trace-steps") {
        list.set_inner_html("");
        for step in &e.steps {
            let Ok(li) = doc.create_element("li") else {
                continue;
            };
            let _ = li.set_attribute("data-attempt", &step.attempt.to_string());
            for (i, line) in step.lines.iter().enumerate() {
                if let Ok(p) = doc.create_element(if i == 0 { "h3" } else { "p" }) {
                    p.set_text_content(Some(line));
                    let _ = li.append_child(&p);
                }
            }
            let _ = list.append_child(&li);
        }
    }
    if let Some(out) = by_id("trace-outcome") {
        out.set_text_content(Some(&e.outcome));
        let _ = out.set_attribute("data-stop", s.trace.stop_reason.name());
    }
}
