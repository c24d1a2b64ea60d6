//! The scenario view (wasm32 only): runs the link's simulation in slices on the page's event
//! loop, shows progress and Cancel once a run takes more than 150 ms, keeps the last complete
//! result on screen (marked stale) until the new one arrives, and draws the timeline and the
//! summary tiles. A change of link while a run is in flight replaces it: the latest wins.
//!
//! Each slice stops after about 8 ms of work, so no task on the page's thread is long; the
//! numbers are the core's (`Run`), the words the CLI's (`Summary::rows`).

use crate::timeline::{draw_timeline, TimeMap, Timeline};
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use retry_model::sim::{Run, Scenario, SimReport};
use retry_model::Params;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlCanvasElement};

/// A run in flight.
pub(crate) struct Job {
    run: Run,
    link: String,
    started: f64,
    fraction: f64,
}

/// The last complete run.
pub(crate) struct Done {
    link: String,
    report: SimReport,
    outage: Option<(f64, f64)>,
}

/// The scenario view's state.
#[derive(Default)]
pub(crate) struct View {
    job: Option<Job>,
    done: Option<Done>,
    error: Option<String>,
    cancelled: bool,
    map: TimeMap,
    hover: Option<usize>,
    // The timeline needs drawing again (a new result); hover and progress do not redraw it.
    redraw: bool,
}

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

fn by_id(id: &str) -> Option<Element> {
    web_sys::window()?.document()?.get_element_by_id(id)
}

fn outage_window(p: &Params) -> Option<(f64, f64)> {
    match &p.sim.scenario {
        Some(Scenario::Outage(o)) if o.outage.as_micros() > 0 => {
            let a = o.outage_start.as_micros() as f64 / 1e6;
            Some((a, a + o.outage.as_micros() as f64 / 1e6))
        }
        _ => None,
    }
}

impl View {
    /// Brings the view in line with the link: starts a run for a new scenario link (replacing
    /// one in flight), or clears the view for a policy-only link. Returns true when a slice
    /// should be scheduled.
    pub(crate) fn sync(&mut self, p: &Params) -> bool {
        if p.sim.scenario.is_none() {
            self.job = None;
            self.done = None;
            self.error = None;
            return false;
        }
        let link = p.to_string();
        if self.job.as_ref().is_some_and(|j| j.link == link)
            || (self.job.is_none() && self.done.as_ref().is_some_and(|d| d.link == link))
        {
            return self.job.is_some();
        }
        self.cancelled = false;
        match Run::new(p) {
            Ok(run) => {
                self.error = None;
                self.job = Some(Job {
                    run,
                    link,
                    started: now(),
                    fraction: 0.0,
                });
                true
            }
            Err(e) => {
                self.job = None;
                self.error = Some(e.to_string());
                false
            }
        }
    }

    /// Runs one slice of about 8 ms; returns true while more remain.
    pub(crate) fn slice(&mut self, p: &Params) -> bool {
        let Some(job) = self.job.as_mut() else {
            return false;
        };
        let t0 = now();
        loop {
            let prog = job.run.step(2_000);
            if prog.done {
                break;
            }
            job.fraction = prog.fraction;
            if now() - t0 > 8.0 {
                return true;
            }
        }
        if let Some(job) = self.job.take() {
            self.done = Some(Done {
                link: job.link,
                report: job.run.finish(),
                outage: outage_window(p),
            });
            self.redraw = true;
        }
        false
    }

    /// Stops the run in flight; the last complete result stays, marked stale.
    pub(crate) fn cancel(&mut self) {
        if self.job.take().is_some() {
            self.cancelled = true;
        }
    }

    /// The bin under the pointer, for the readout; true when it changed.
    pub(crate) fn hover(&mut self, x: Option<f64>) -> bool {
        let bin = x.and_then(|x| self.map.bin_at(x));
        let changed = bin != self.hover;
        self.hover = bin;
        changed
    }

    /// Writes the view: which sections show, progress, status, tiles, timeline and readout.
    pub(crate) fn render(&mut self, doc: &Document, p: &Params) {
        let scenario = p.sim.scenario.is_some();
        for (id, show) in [
            ("scenario-view", scenario),
            ("schedule-view-section", !scenario),
            ("trace-view", !scenario),
        ] {
            if let Some(el) = by_id(id) {
                if show {
                    let _ = el.remove_attribute("hidden");
                } else {
                    let _ = el.set_attribute("hidden", "");
                }
            }
        }
        if !scenario {
            return;
        }
        let running = self.job.as_ref();
        let slow = running.is_some_and(|j| now() - j.started > 150.0);
        if let Some(bar) = by_id("sim-progress") {
            let value = running.map_or(0.0, |j| j.fraction);
            let _ = bar.set_attribute("value", &format!("{value:.3}"));
            set_hidden(&bar, !slow);
        }
        if let Some(b) = by_id("sim-cancel") {
            set_hidden(&b, !slow);
        }
        let stale = running.is_some() || self.cancelled;
        let status = match (&self.error, running, self.cancelled, &self.done) {
            (Some(e), _, _, _) => e.clone(),
            (None, Some(j), _, Some(_)) => format!(
                "running {:.0}%; the result below is the previous run's (stale)",
                j.fraction * 100.0
            ),
            (None, Some(j), _, None) => format!("running {:.0}%", j.fraction * 100.0),
            (None, None, true, _) => {
                "cancelled; the result below is the previous run's (stale)".to_string()
            }
            (None, None, false, Some(d)) => format!(
                "{} run{} of ?{}",
                d.report.runs,
                if d.report.runs == 1 { "" } else { "s" },
                d.link
            ),
            (None, None, false, None) => String::new(),
        };
        if let Some(s) = by_id("sim-status") {
            s.set_text_content(Some(&status));
        }
        if let Some(view) = by_id("scenario-view") {
            let _ = view.set_attribute("data-stale", if stale { "true" } else { "false" });
            let _ = view.set_attribute(
                "data-done",
                if self.done.is_some() && running.is_none() {
                    "true"
                } else {
                    "false"
                },
            );
        }
        if self.redraw {
            self.render_tiles(doc);
            self.draw();
            self.redraw = false;
        }
        self.render_readout();
    }

    fn render_tiles(&self, doc: &Document) {
        let Some(tiles) = by_id("tiles") else {
            return;
        };
        tiles.set_inner_html("");
        let Some(d) = &self.done else {
            return;
        };
        for (label, value) in d.report.summary.rows() {
            let (Ok(div), Ok(dt), Ok(dd)) = (
                doc.create_element("div"),
                doc.create_element("dt"),
                doc.create_element("dd"),
            ) else {
                continue;
            };
            div.set_class_name("tile");
            dt.set_text_content(Some(&label));
            dd.set_text_content(Some(&value));
            let _ = div.append_child(&dt);
            let _ = div.append_child(&dd);
            let _ = tiles.append_child(&div);
        }
    }

    /// Draws the timeline of the last complete run.
    pub(crate) fn draw(&mut self) {
        let Some(canvas) = by_id("timeline").and_then(|e| e.dyn_into::<HtmlCanvasElement>().ok())
        else {
            return;
        };
        let Some(d) = &self.done else {
            return;
        };
        let dpr = web_sys::window()
            .map(|w| w.device_pixel_ratio())
            .unwrap_or(1.0)
            .max(1.0);
        let css_w = f64::from(canvas.client_width().max(320));
        let css_h = (css_w * 0.45).clamp(260.0, 420.0);
        let (w, h) = ((css_w * dpr).round() as u32, (css_h * dpr).round() as u32);
        if canvas.width() != w || canvas.height() != h {
            canvas.set_width(w);
            canvas.set_height(h);
            let _ = canvas.style().set_property("height", &format!("{css_h}px"));
        }
        let Some(backend) = CanvasBackend::with_canvas_object(canvas.clone()) else {
            return;
        };
        let rates = d.report.series.rates();
        let t = Timeline {
            rates: &rates,
            bin_s: d.report.series.bin_ms / 1000.0,
            outage: d.outage,
            title: format!(
                "{}: requests and attempts per second (first run)",
                d.report.scenario.name()
            ),
        };
        match draw_timeline(&backend.into_drawing_area(), &t, dpr) {
            Ok(map) => self.map = map,
            Err(e) => web_sys::console::error_1(&format!("timeline: {e}").into()),
        }
        let _ = canvas.set_attribute("data-bins", &rates.len().to_string());
    }

    fn render_readout(&self) {
        let Some(out) = by_id("timeline-readout") else {
            return;
        };
        let text = match (&self.done, self.hover) {
            (Some(d), Some(i)) => {
                let r = d.report.series.rates();
                match r.get(i) {
                    Some(b) => format!(
                        "t = {} s: {:.0} original requests/s, {:.0} attempts/s, {:.0} successes/s, {:.0} failures/s, {:.0}% of capacity used, {} in flight",
                        b.t_s, b.originals, b.attempts, b.successes, b.failures,
                        b.utilisation * 100.0, b.in_flight
                    ),
                    None => String::new(),
                }
            }
            (Some(_), None) => {
                "Point at the chart to read one time bin's exact values.".to_string()
            }
            (None, _) => String::new(),
        };
        out.set_text_content(Some(&text));
    }
}

fn set_hidden(el: &Element, hidden: bool) {
    if hidden {
        let _ = el.set_attribute("hidden", "");
    } else {
        let _ = el.remove_attribute("hidden");
    }
}
