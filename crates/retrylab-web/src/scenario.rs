//! The scenario view (wasm32 only): hands the link's simulation to a worker ([`Exec`]), shows
//! progress and Cancel once a run takes more than 150 ms, keeps the last complete result on
//! screen (marked stale) until the new one arrives, and draws the timeline and the summary
//! tiles. A change of link while a run is in flight replaces it: the latest wins.
//!
//! The numbers are the core's (`Run`, in the worker), the words the CLI's (`Summary::rows`).

use crate::exec::{Event, Exec};
use crate::plot::Canvas as CanvasBackend;
use crate::sweepchart::{draw_sweep, SweepMap};
use crate::sweepplan::Plan;
use crate::timeline::{draw_timeline, TimeMap, Timeline};
use crate::treechart::Shown;
use plotters::prelude::IntoDrawingArea;
use retry_model::sim::{Scenario, ScenarioKind, SimReport};
use retry_model::CallTree;
use retry_model::Params;
use web_sys::{Document, Element};

/// A run in flight: one side, or the two sides of a comparison (each in its own worker where
/// there are two).
pub(crate) struct Job {
    plan: Option<Plan>,
    // The lost view's twin (the link with the key switched) runs after the sides.
    twin: bool,
    ids: Vec<u32>,
    sides: Vec<String>,
    reports: Vec<Option<SimReport>>,
    fractions: Vec<f64>,
    link: String,
    started: f64,
}

impl Job {
    /// "40%", and for a sweep "40% (38 of 95 rows)".
    fn progress_text(&self) -> String {
        let pct = format!("{:.0}%", self.fraction() * 100.0);
        match &self.plan {
            Some(_) => format!(
                "{pct} ({} of {} rows)",
                self.reports.iter().filter(|r| r.is_some()).count(),
                self.ids.len()
            ),
            None => pct,
        }
    }

    fn fraction(&self) -> f64 {
        let done = self.reports.iter().filter(|r| r.is_some()).count() as f64;
        let within: f64 = self
            .fractions
            .iter()
            .zip(&self.reports)
            .filter(|(_, r)| r.is_none())
            .map(|(f, _)| f)
            .sum();
        (done + within) / self.ids.len().max(1) as f64
    }
}

/// The last complete run.
pub(crate) struct Done {
    // A sweep's rows; `None` for one run or a comparison.
    plan: Option<Plan>,
    link: String,
    sides: Vec<String>,
    reports: Vec<SimReport>,
    twin: Option<SimReport>,
    params: Params,
    outage: Option<(f64, f64, &'static str)>,
}

/// The scenario view's state.
#[derive(Default)]
pub(crate) struct View {
    exec: Option<Exec>,
    job: Option<Job>,
    done: Option<Done>,
    error: Option<String>,
    cancelled: bool,
    map: TimeMap,
    sweep_maps: Vec<SweepMap>,
    hover: Option<usize>,
    // The timeline needs drawing again (a new result); hover and progress do not redraw it.
    redraw: bool,
    // The stages of showing a new result still to draw, in order (see `render`): the timeline,
    // the system's charts under it, then the scenario's own chart (layers, lost, the 2015
    // comparison) with the open bins table.
    pending_draw: bool,
    secondary: bool,
    extra: bool,
    // A `layers` link's call tree, stepped on the page.
    tree: Option<TreeView>,
    // A `lost` link's one checkout without and with a key, the link it is for, and how many
    // of its steps are shown.
    ledger: Option<(String, u32, [retry_model::LedgerSide; 2], usize)>,
}

/// Appends `[start, end]` of a run's time in flight (ms since navigation, `end` when its last
/// result arrived, before it is drawn) to `#scenario-view[data-flights]`, for the browser test
/// that no long task happens while a run is in flight.
fn mark_flight(start: f64, end: f64) {
    if let Some(view) = by_id("scenario-view") {
        let mut text = view.get_attribute("data-flights").unwrap_or_default();
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(&format!("{start:.1},{end:.1}"));
        let _ = view.set_attribute("data-flights", &text);
    }
}

/// How long a task that shows a result may already have run and still take its next stage (ms):
/// a stage takes 2 to 20 ms, so a task stays well under 50 ms even in a slow spell.
const STAGE_MS: f64 = 8.0;

/// The page's clock (ms since navigation began; 0 where there is no window).
pub(crate) fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

fn by_id(id: &str) -> Option<Element> {
    web_sys::window()?.document()?.get_element_by_id(id)
}

/// The trigger's window in seconds and its name, shaded on the timeline: the outage, else the
/// load spike, else the capacity drop.
fn outage_window(p: &Params) -> Option<(f64, f64, &'static str)> {
    let secs = |w: retry_model::sim::Window| {
        let a = w.start.as_micros() as f64 / 1e6;
        (a, a + w.length.as_micros() as f64 / 1e6)
    };
    let server = p.sim.server()?;
    if let Some(Scenario::Outage(o)) = &p.sim.scenario {
        if o.outage.as_micros() > 0 {
            let (a, b) = secs(retry_model::sim::Window {
                start: o.outage_start,
                length: o.outage,
            });
            return Some((a, b, "outage"));
        }
        if o.spike.length.as_micros() > 0 && o.spike_rate_milli > 0 {
            let (a, b) = secs(o.spike);
            return Some((a, b, "load spike"));
        }
    }
    if server.slow.length.as_micros() > 0 && server.slow_milli > 1000 {
        let (a, b) = secs(server.slow);
        return Some((a, b, "capacity drop"));
    }
    None
}

/// True while the link's lesson asks a question the reader has not answered.
pub(crate) fn awaiting_guess(p: &Params) -> bool {
    p.lesson.is_some_and(|l| l.question.is_some()) && p.guess.is_none()
}

/// The amplification tree of a `layers` link and how far the stepping has got.
pub(crate) struct TreeView {
    key: (String, String, u64),
    tree: CallTree,
    shown: Shown,
}

impl TreeView {
    fn of(p: &Params) -> Option<TreeView> {
        if p.sim.kind() != Some(ScenarioKind::Layers) || p.compare.is_some() || p.sweep().is_some()
        {
            return None;
        }
        let (layers, prob) = (p.get("layers")?, p.get("p")?);
        let ks: Vec<u32> = layers
            .split(',')
            .map(|k| k.trim().parse().ok())
            .collect::<Option<_>>()?;
        let tree = retry_model::call_tree(&ks, retry_model::decimal_f64(&prob)?, p.seed).ok()?;
        let shown = if tree.calls.is_empty() {
            Shown::Levels(tree.worst.len() - 1)
        } else {
            Shown::Calls(tree.calls.len())
        };
        Some(TreeView {
            key: (layers, prob, p.seed),
            tree,
            shown,
        })
    }

    fn last(&self, by_level: bool) -> Shown {
        if by_level || self.tree.calls.is_empty() {
            Shown::Levels(self.tree.worst.len() - 1)
        } else {
            Shown::Calls(self.tree.calls.len())
        }
    }

    /// Start, Step, Back, Reset (show all), or the stepping mode.
    fn act(&mut self, what: &str) {
        let by_level = matches!(self.shown, Shown::Levels(_));
        self.shown = match (what, self.shown) {
            ("start", Shown::Calls(_)) => Shown::Calls(1),
            ("start", Shown::Levels(_)) => Shown::Levels(0),
            ("step", Shown::Calls(n)) => Shown::Calls((n + 1).min(self.tree.calls.len())),
            ("step", Shown::Levels(l)) => Shown::Levels((l + 1).min(self.tree.worst.len() - 1)),
            ("back", Shown::Calls(n)) => Shown::Calls(n.saturating_sub(1).max(1)),
            ("back", Shown::Levels(l)) => Shown::Levels(l.saturating_sub(1)),
            ("reset", _) => self.last(by_level),
            ("level", _) => Shown::Levels(0),
            ("call", _) if !self.tree.calls.is_empty() => Shown::Calls(1),
            (_, now) => now,
        };
    }

    fn readout(&self) -> String {
        let t = &self.tree;
        let names = crate::treechart::level_names(t);
        let made = match self.shown {
            Shown::Calls(n) => t.counts(n),
            Shown::Levels(l) => t.counts_to_level(l),
        };
        let per_level: Vec<String> = made.iter().map(u64::to_string).collect();
        let head = match self.shown {
            Shown::Calls(n) => match t.calls.get(n.wrapping_sub(1)) {
                Some(c) => format!(
                    "Call {n} of {}: {}, attempt {}: {}.",
                    t.calls.len(),
                    names[usize::from(c.level)],
                    c.attempt,
                    if c.ok { "succeeded" } else { "failed" }
                ),
                None => String::new(),
            },
            Shown::Levels(l) => format!("Down to {}.", names[l]),
        };
        format!(
            "{head} Calls so far, level by level: {} (worst case {}).",
            per_level.join(", "),
            t.worst
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

impl View {
    /// Starts the workers; `wake` is called whenever one has posted.
    pub(crate) fn connect(&mut self, wake: js_sys::Function) {
        self.exec = Some(Exec::new(wake));
    }

    /// Starts the workers a link will want: one per core for a sweep, two for a comparison,
    /// one for a single run, none yet for a policy-only link (its page starts one once it is
    /// drawn, ready for a scenario).
    pub(crate) fn prestart(&mut self, p: &Params, drawn: bool) {
        let n = match (
            p.sim.scenario.is_some(),
            p.sweep().is_some(),
            p.compare.is_some(),
        ) {
            (true, true, _) => usize::MAX,
            (true, false, true) => 2,
            (true, false, false) => 1,
            (false, ..) => usize::from(drawn),
        };
        if let Some(exec) = self.exec.as_mut() {
            exec.prestart(n);
        }
    }

    /// Brings the view in line with the link: starts a run for a new scenario link (replacing
    /// one in flight), or clears the view for a policy-only link. Returns true when the page
    /// runs the simulation itself and a slice should be scheduled.
    pub(crate) fn sync(&mut self, p: &Params) -> bool {
        let key = (
            p.get("layers").unwrap_or_default(),
            p.get("p").unwrap_or_default(),
            p.seed,
        );
        if self.tree.as_ref().map(|t| &t.key) != Some(&key) {
            self.tree = TreeView::of(p);
        } else if TreeView::of(p).is_none() {
            self.tree = None;
        }
        let link_now = p.to_string();
        if self.ledger.as_ref().map(|l| &l.0) != Some(&link_now) {
            self.ledger = retry_model::ledger(p).map(|(run, sides)| {
                let n = sides[0].steps.len().max(sides[1].steps.len());
                (link_now.clone(), run, sides, n)
            });
        }
        if p.sim.scenario.is_none() || awaiting_guess(p) {
            // Predict, then run: a lesson's question is answered before its run is shown.
            self.stop();
            self.done = None;
            self.error = None;
            return false;
        }
        let link = p.to_string();
        if self.job.as_ref().is_some_and(|j| j.link == link)
            || (self.job.is_none() && self.done.as_ref().is_some_and(|d| d.link == link))
        {
            return self.local_pending();
        }
        self.stop();
        self.cancelled = false;
        if let Some(plan) = Plan::of(p) {
            return self.start_sweep(plan, link);
        }
        // Side A is the link without its `b.` keys; side B, if any, is the link's second side.
        let sides: Vec<Params> = core::iter::once(p.side_a())
            .chain(p.side_b().cloned())
            .collect();
        // A link over the simulator's caps is refused by the worker (`Event::Failed`), which
        // names it; the last good view stays. Building the run here would cost the page's
        // thread as much as the worker's first slice.
        let Some(exec) = self.exec.as_mut() else {
            return false;
        };
        self.error = None;
        let sides: Vec<String> = sides.iter().map(|s| s.to_string()).collect();
        let twin = crate::extras::lost_twin(p).map(|t| t.to_string());
        let mut links = sides.clone();
        links.extend(twin.iter().cloned());
        let ids = exec.submit(links, true);
        self.job = Some(Job {
            plan: None,
            twin: twin.is_some(),
            reports: ids.iter().map(|_| None).collect(),
            fractions: ids.iter().map(|_| 0.0).collect(),
            ids,
            sides,
            link,
            started: now(),
        });
        self.local_pending()
    }

    fn start_sweep(&mut self, plan: Result<Plan, String>, link: String) -> bool {
        let plan = match plan {
            Ok(plan) => plan,
            Err(e) => {
                self.error = Some(format!("sweep: {e}"));
                return false;
            }
        };
        let Some(exec) = self.exec.as_mut() else {
            return false;
        };
        self.error = None;
        // Rows need only their summaries: the workers send no series back.
        let ids = exec.submit(plan.links.clone(), false);
        self.job = Some(Job {
            reports: ids.iter().map(|_| None).collect(),
            fractions: ids.iter().map(|_| 0.0).collect(),
            ids,
            sides: Vec::new(),
            link,
            started: now(),
            plan: Some(plan),
            twin: false,
        });
        self.local_pending()
    }

    /// Whether a run is in flight.
    pub(crate) fn in_flight(&self) -> bool {
        self.job.is_some()
    }

    fn local_pending(&self) -> bool {
        self.exec.as_ref().is_some_and(|e| e.local_pending())
    }

    fn stop(&mut self) {
        if let Some(exec) = self.exec.as_mut() {
            exec.cancel_all();
        }
        self.job = None;
    }

    /// Takes in what the workers posted (or runs one slice on the page where there are no
    /// workers); returns true when the page should run another slice itself.
    pub(crate) fn pump(&mut self, p: &Params) -> bool {
        let Some(exec) = self.exec.as_mut() else {
            return false;
        };
        for ev in exec.poll() {
            let Some(job) = self.job.as_mut() else {
                continue;
            };
            let (id, what) = match ev {
                Event::Progress(id, f) => (id, Ok(Err(f))),
                Event::Done(id, r) => (id, Ok(Ok(r))),
                Event::Failed(id, e) => (id, Err(e)),
            };
            let Some(i) = job.ids.iter().position(|x| *x == id) else {
                continue; // an earlier run's message
            };
            match what {
                Ok(Err(f)) => job.fractions[i] = f,
                Ok(Ok(r)) => job.reports[i] = Some(*r),
                Err(e) => {
                    self.error = Some(e);
                    self.stop();
                    return false;
                }
            }
        }
        if self
            .job
            .as_ref()
            .is_some_and(|j| j.reports.iter().all(|r| r.is_some()))
        {
            if let Some(job) = self.job.take() {
                mark_flight(job.started, now());
                let mut reports: Vec<SimReport> = job.reports.into_iter().flatten().collect();
                let twin = if job.twin { reports.pop() } else { None };
                self.done = Some(Done {
                    plan: job.plan,
                    link: job.link,
                    sides: job.sides,
                    reports,
                    twin,
                    params: p.clone(),
                    outage: outage_window(p),
                });
                self.redraw = true;
            }
        }
        self.local_pending()
    }

    /// What a lesson's answer is read from: side A's summary, and a sweep with its rows, of the
    /// last complete run (none while one is in flight).
    pub(crate) fn lesson_inputs(
        &self,
    ) -> (
        Option<retry_model::sim::Summary>,
        Option<(Plan, Vec<retry_model::sim::Summary>)>,
    ) {
        let Some(d) = self.done.as_ref().filter(|_| self.job.is_none()) else {
            return (None, None);
        };
        match &d.plan {
            Some(plan) => (None, Some((plan.clone(), summaries(d)))),
            None => (d.reports.first().map(|r| r.summary.clone()), None),
        }
    }

    /// A ledger control: "start", "step", "back" or "reset" (show all).
    pub(crate) fn ledger_action(&mut self, what: &str) {
        if let Some((_, _, sides, shown)) = self.ledger.as_mut() {
            let n = sides[0].steps.len().max(sides[1].steps.len());
            *shown = match what {
                "start" => 1,
                "step" => (*shown + 1).min(n),
                "back" => shown.saturating_sub(1).max(1),
                _ => n,
            };
        }
        self.render_ledger();
    }

    /// The idempotency walk: both sides' steps so far, and their ledgers.
    fn render_ledger(&self) {
        let Some(section) = by_id("ledger-section") else {
            return;
        };
        let Some((_, run, sides, shown)) = &self.ledger else {
            set_hidden(&section, true);
            return;
        };
        set_hidden(&section, false);
        let doc = web_sys::window().and_then(|w| w.document());
        for (side, id) in sides.iter().zip(["ledger-a", "ledger-b"]) {
            let (Some(list), Some(doc)) = (by_id(id), doc.as_ref()) else {
                continue;
            };
            list.set_inner_html("");
            for step in side.steps.iter().take(*shown) {
                if let Ok(li) = doc.create_element("li") {
                    li.set_text_content(Some(&crate::lessons::ledger_line(step)));
                    let _ = list.append_child(&li);
                }
            }
            let made = side
                .steps
                .iter()
                .take(*shown)
                .filter(|s| matches!(s.what, retry_model::sim::LostWhat::Committed { .. }))
                .count();
            if let Some(total) = by_id(&format!("{id}-total")) {
                total.set_text_content(Some(&format!(
                    "Durable charges on the ledger so far: {made} (in all: {})",
                    side.charges
                )));
                let _ = total.set_attribute("data-charges", &side.charges.to_string());
            }
        }
        if let Some(note) = by_id("ledger-note") {
            note.set_text_content(Some(&format!(
                "The first checkout of this seed whose first answer is lost (random stream {run}), run alone twice: once without a key (retrying read timeouts), once with one. The lesson: one durable order, not one response received."
            )));
        }
    }

    /// A tree control: "start", "step", "back", "reset", or the mode "call" or "level".
    pub(crate) fn tree_action(&mut self, what: &str) {
        if let Some(t) = self.tree.as_mut() {
            t.act(what);
        }
        self.render_tree();
        self.render_ledger();
    }

    /// Draws the tree, its readout and its table (the chart's text alternative).
    fn render_tree(&self) {
        let Some(section) = by_id("tree-section") else {
            return;
        };
        let Some(t) = &self.tree else {
            set_hidden(&section, true);
            return;
        };
        set_hidden(&section, false);
        if let Some(out) = by_id("tree-readout") {
            out.set_text_content(Some(&t.readout()));
        }
        let Some((canvas, dpr)) = crate::canvas::fit("tree", 0.32, 220.0, 360.0) else {
            return;
        };
        if let Some(backend) = CanvasBackend::with_canvas_object(canvas.clone()) {
            if let Err(e) =
                crate::treechart::draw_tree(&backend.into_drawing_area(), &t.tree, t.shown, dpr)
            {
                web_sys::console::error_1(&format!("tree: {e}").into());
            }
        }
        let made = match t.shown {
            Shown::Calls(n) => t.tree.counts(n),
            Shown::Levels(l) => t.tree.counts_to_level(l),
        };
        let text: Vec<String> = made.iter().map(u64::to_string).collect();
        let _ = canvas.set_attribute("data-counts", &text.join(","));
        let all = t.tree.counts(t.tree.calls.len());
        if let (Some(table), Some(doc)) = (
            by_id("tree-table"),
            web_sys::window().and_then(|w| w.document()),
        ) {
            table.set_inner_html(
                "<thead><tr><th>level</th><th>calls (this click)</th><th>worst case</th><th>expected</th><th>retry at one layer only</th></tr></thead>",
            );
            if let Ok(body) = doc.create_element("tbody") {
                for (l, name) in crate::treechart::level_names(&t.tree).iter().enumerate() {
                    let Ok(tr) = doc.create_element("tr") else {
                        continue;
                    };
                    let made = if t.tree.calls.is_empty() {
                        "-".to_string()
                    } else {
                        all[l].to_string()
                    };
                    for cell in [
                        name.clone(),
                        made,
                        t.tree.worst[l].to_string(),
                        format!("{:.4}", t.tree.expected[l]),
                        t.tree.fix_worst[l].to_string(),
                    ] {
                        if let Ok(td) = doc.create_element("td") {
                            td.set_text_content(Some(&cell));
                            let _ = tr.append_child(&td);
                        }
                    }
                    let _ = body.append_child(&tr);
                }
                let _ = table.append_child(&body);
            }
        }
    }

    /// Stops the run in flight; the last complete result stays, marked stale.
    pub(crate) fn cancel(&mut self) {
        if self.job.is_some() {
            self.stop();
            self.cancelled = true;
        }
    }

    /// The bin under the pointer, for the readout; true when it changed.
    pub(crate) fn hover(&mut self, x: Option<f64>) -> bool {
        let sweep = self.done.as_ref().is_some_and(|d| d.plan.is_some());
        let bin = match (sweep, x) {
            (true, Some(x)) => self.sweep_maps.first().and_then(|m| m.index_at(x)),
            (false, Some(x)) => self.map.bin_at(x),
            (_, None) => None,
        };
        let changed = bin != self.hover;
        self.hover = bin;
        changed
    }

    /// Writes the view: which sections show, progress, status, tiles, timeline and readout.
    /// Returns true when it wants to be called again in a new task (to draw the charts under
    /// the timeline).
    pub(crate) fn render(&mut self, doc: &Document, p: &Params) -> bool {
        // The view on screen: the link's, except that a scenario link keeps showing the last
        // complete result's (marked stale) until its own arrives.
        let view = match (crate::views::View::of(p), &self.done) {
            (crate::views::View::Schedule, _) => crate::views::View::Schedule,
            (_, Some(d)) if d.plan.is_some() => crate::views::View::Sweep,
            (_, Some(_)) => crate::views::View::Run,
            (v, None) => v,
        };
        let shown = view.sections();
        for v in crate::views::View::ALL {
            for id in v.sections() {
                if let Some(el) = by_id(id) {
                    set_hidden(&el, !shown.contains(id));
                }
            }
        }
        if view == crate::views::View::Schedule {
            return false;
        }
        self.render_tree();
        self.render_ledger();
        if let Some(el) = by_id("occ-links") {
            set_hidden(
                &el,
                p.sim.kind() != Some(ScenarioKind::Occ) || p.sweep().is_some(),
            );
        }

        self.render_status(p);
        let again = self.render_stages(doc);
        self.render_readout();
        // Done once the result is drawn in full, every chart included.
        let drawn = self.done.is_some()
            && self.job.is_none()
            && !self.redraw
            && !self.pending_draw
            && !self.secondary
            && !self.extra;
        if let Some(view) = by_id("scenario-view") {
            let _ = view.set_attribute("data-done", if drawn { "true" } else { "false" });
        }
        again
    }

    /// The progress bar, Cancel, and the status line (what is on screen, running or stale).
    fn render_status(&self, p: &Params) {
        let running = self.job.as_ref();
        let slow = running.is_some_and(|j| now() - j.started > 150.0);
        if let Some(bar) = by_id("sim-progress") {
            let value = running.map_or(0.0, |j| j.fraction());
            let _ = bar.set_attribute("value", &format!("{value:.3}"));
            set_hidden(&bar, !slow);
        }
        if let Some(b) = by_id("sim-cancel") {
            set_hidden(&b, !slow);
        }
        let stale = running.is_some() || self.cancelled;
        let mut status = self.status_text(p);
        if let Some(why) = self.exec.as_ref().and_then(|e| e.fallback.as_ref()) {
            status.push_str(&format!(" (on the page's own thread: {why})"));
        }
        if let Some(s) = by_id("sim-status") {
            s.set_text_content(Some(&status));
        }
        if let Some(view) = by_id("scenario-view") {
            if let Some(exec) = &self.exec {
                let _ = view.set_attribute("data-exec", exec.place());
            }
            let _ = view.set_attribute("data-stale", if stale { "true" } else { "false" });
        }
    }

    /// The status line's text: the error, the run's progress, or what the result shows.
    fn status_text(&self, p: &Params) -> String {
        let running = self.job.as_ref();
        match (&self.error, running, self.cancelled, &self.done) {
            (Some(e), _, _, _) => e.clone(),
            (None, Some(j), _, Some(_)) => format!(
                "running {}; the result below is the previous run's (stale)",
                j.progress_text()
            ),
            (None, Some(j), _, None) => format!("running {}", j.progress_text()),
            (None, None, true, Some(_)) => {
                "cancelled; the result below is the previous run's (stale)".to_string()
            }
            (None, None, true, None) => "cancelled".to_string(),
            (None, None, false, Some(d)) => {
                let runs = d.reports.first().map_or(1, |r| r.runs);
                let plural = if runs == 1 { "" } else { "s" };
                match d.sides.as_slice() {
                    _ if d.plan.is_some() => {
                        let plan = d.plan.as_ref().map_or_else(String::new, |p| {
                            let keys: Vec<&str> = p.axes.iter().map(|a| a.key).collect();
                            format!("{} rows of ?{} sweeping {}", p.links.len(), p.base, keys.join(" and "))
                        });
                        format!("{plan}, mean of {runs} run{plural} each")
                    }
                    [a, b] => format!(
                        "{runs} run{plural} of each side. A: ?{a}; B: ?{b}. The controls edit A; B is A with its own keys on top (Side B, under Compare or sweep)."
                    ),
                    _ => format!("{runs} run{plural} of ?{}", d.link),
                }
            }
            (None, None, false, None) if awaiting_guess(p) => {
                "Answer the lesson's question first (left): the run is shown once you commit your guess.".to_string()
            }
            (None, None, false, None) => String::new(),
        }
    }

    /// Shows a new result in stages; returns whether a stage is left for the next task.
    fn render_stages(&mut self, doc: &Document) -> bool {
        // A new result is shown in stages, so no one task is long: the tiles (or the tables),
        // the timeline (or a sweep's charts), the system's charts, the scenario's own chart.
        // A stage follows in the same task while the task is still short (`STAGE_MS`);
        // otherwise in the next one. Each task between stages can wait for a frame, so on a
        // quick machine four tasks would add about four frames to a redraw.
        let start = now();
        let mut again = false;
        loop {
            if self.redraw {
                self.render_tiles(doc);
                self.redraw = false;
                self.pending_draw = true;
            } else if self.pending_draw {
                self.pending_draw = false;
                self.draw();
            } else if self.secondary {
                self.draw_secondary();
            } else if self.extra {
                self.draw_extra_stage();
            }
            if !(self.redraw || self.pending_draw || self.secondary || self.extra) {
                break;
            }
            if now() - start > STAGE_MS {
                again = true;
                break;
            }
        }
        again
    }

    fn render_tiles(&self, doc: &Document) {
        let (Some(tiles), Some(table), Some(md)) =
            (by_id("tiles"), by_id("compare"), by_id("compare-md"))
        else {
            return;
        };
        tiles.set_inner_html("");
        table.set_inner_html("");
        md.set_text_content(None);
        let Some(d) = &self.done else {
            return;
        };
        if let Some(plan) = &d.plan {
            let text = plan.markdown(&summaries(d));
            if let Some(md) = by_id("sweep-md") {
                md.set_text_content(Some(&text));
            }
            if let Some(t) = by_id("sweep-table") {
                markdown_table(doc, &t, &text);
            }
            return;
        }
        let compare = by_id("compare-section");
        if let [a, b] = d.reports.as_slice() {
            // Two sides: the before/after table, and its Markdown exactly as `retrylab compare`.
            let _ = compare.as_ref().map(|c| set_hidden(c, false));
            set_hidden(&tiles, true);
            let head = "<thead><tr><th>metric</th><th>A</th><th>B</th></tr></thead>";
            table.set_inner_html(head);
            if let Ok(body) = doc.create_element("tbody") {
                for ((k, va), (_, vb)) in a.summary.rows().into_iter().zip(b.summary.rows()) {
                    let Ok(tr) = doc.create_element("tr") else {
                        continue;
                    };
                    for text in [k, va, vb] {
                        if let Ok(td) = doc.create_element("td") {
                            td.set_text_content(Some(&text));
                            let _ = tr.append_child(&td);
                        }
                    }
                    let _ = body.append_child(&tr);
                }
                let _ = table.append_child(&body);
            }
            md.set_text_content(Some(&retry_model::sim::compare_markdown(
                &d.sides[0],
                &a.summary,
                &d.sides[1],
                &b.summary,
            )));
            if let Some(t) = by_id("compare-changes") {
                changes_table(doc, &t, &d.sides[0], &d.sides[1]);
            }
            return;
        }
        let _ = compare.as_ref().map(|c| set_hidden(c, true));
        set_hidden(&tiles, false);
        let Some(report) = d.reports.first() else {
            return;
        };
        for (label, value) in report.summary.rows() {
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

    /// The last run's exports: the file name stem, side A's series as CSV and its summary as
    /// Markdown, byte for byte what `retrylab run --format csv|markdown` writes.
    pub(crate) fn exports(&self) -> Option<(String, String, String)> {
        let d = self.done.as_ref()?;
        if let Some(plan) = &d.plan {
            let s = summaries(d);
            return Some((
                "retrylab-sweep".to_string(),
                plan.csv(&s),
                plan.markdown(&s),
            ));
        }
        let r = d.reports.first()?;
        Some((
            format!("retrylab-{}", r.scenario.name()),
            retry_model::sim::series_csv(&r.series),
            retry_model::sim::summary_markdown(&r.summary),
        ))
    }

    /// The Markdown of the before/after table, for the copy button.
    pub(crate) fn compare_markdown(&self) -> Option<String> {
        let d = self.done.as_ref()?;
        let [a, b] = d.reports.as_slice() else {
            return None;
        };
        Some(retry_model::sim::compare_markdown(
            &d.sides[0],
            &a.summary,
            &d.sides[1],
            &b.summary,
        ))
    }

    /// Draws a sweep's charts, one canvas per metric.
    fn draw_sweep(&mut self) {
        let (Some(d), Some(host)) = (&self.done, by_id("sweep-charts")) else {
            return;
        };
        let Some(plan) = &d.plan else {
            return;
        };
        let charts = plan.charts(&summaries(d));
        let doc = web_sys::window().and_then(|w| w.document());
        self.sweep_maps.clear();
        while host.child_element_count() as usize > charts.len() {
            if let Some(last) = host.last_element_child() {
                last.remove();
            }
        }
        for (i, chart) in charts.iter().enumerate() {
            let id = format!("sweep-chart-{i}");
            if by_id(&id).is_none() {
                let Some(c) = doc.as_ref().and_then(|d| d.create_element("canvas").ok()) else {
                    return;
                };
                c.set_id(&id);
                let _ = c.set_attribute("class", "chart");
                let _ = host.append_child(&c);
            }
            if let Some(c) = by_id(&id) {
                let _ = c.set_attribute("role", "img");
                let _ = c.set_attribute("aria-label", &chart.title);
            }
            let Some((canvas, dpr)) = crate::canvas::fit(&id, 0.42, 240.0, 400.0) else {
                return;
            };
            let Some(backend) = CanvasBackend::with_canvas_object(canvas.clone()) else {
                return;
            };
            match draw_sweep(&backend.into_drawing_area(), chart, dpr) {
                Ok(map) => self.sweep_maps.push(map),
                Err(e) => web_sys::console::error_1(&format!("sweep chart: {e}").into()),
            }
            let _ = canvas.set_attribute("data-lines", &chart.lines.len().to_string());
        }
    }

    /// The most time bins the rates table lists (the series CSV export has them all).
    const MAX_TABLE_ROWS: usize = 2000;

    /// Fills the table alternative of the timeline and the system chart: side A's first run,
    /// one row per bin.
    pub(crate) fn fill_rates_table(&self) {
        let Some(r) = self.done.as_ref().and_then(|d| d.reports.first()) else {
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
        let rows: Vec<Vec<String>> = rates
            .iter()
            .take(Self::MAX_TABLE_ROWS)
            .map(|b| {
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
                row
            })
            .collect();
        crate::canvas::fill_table("rates-table", &head, &rows);
        if let Some(note) = by_id("rates-note") {
            let text = if rates.len() > Self::MAX_TABLE_ROWS {
                format!(
                    "The first {} of {} bins; \"series as CSV\" exports them all.",
                    Self::MAX_TABLE_ROWS,
                    rates.len()
                )
            } else {
                format!("{} bins of {} ms.", rates.len(), r.series.bin_ms)
            };
            note.set_text_content(Some(&text));
        }
    }

    /// The canvases of the charts on screen, for the PNG exports.
    pub(crate) fn chart_ids(&self) -> Vec<String> {
        match self.done.as_ref().and_then(|d| d.plan.as_ref()) {
            Some(p) => (0..p.metrics.len())
                .map(|i| format!("sweep-chart-{i}"))
                .collect(),
            None => ["timeline", "system-chart", "extra-chart"]
                .into_iter()
                .filter(|id| by_id(id).is_some_and(|e| !e.has_attribute("hidden")))
                .map(String::from)
                .collect(),
        }
    }

    /// The scenario's own chart beside the timeline (layers, lost responses), if it has one.
    fn extra(&self) -> Option<crate::bars::Bars> {
        let d = self.done.as_ref()?;
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

    /// Failures by reason, capacity used (with the breaker's spells), in flight and the budget,
    /// on the timeline's time axis; for the scenarios with a server of limited capacity.
    fn draw_system(&self, sides: &[Vec<retry_model::sim::Rates>], bin_s: f64) {
        let (Some(d), Some(el)) = (&self.done, by_id("system-chart")) else {
            return;
        };
        let shown = matches!(
            d.params.sim.kind(),
            // `lost` has no capacity to chart; its failures and in-flight count are in the tiles.
            Some(ScenarioKind::Outage | ScenarioKind::Burst)
        );
        set_hidden(&el, !shown);
        if !shown {
            return;
        }
        let Some((canvas, dpr)) = crate::canvas::fit("system-chart", 0.6, 340.0, 600.0) else {
            return;
        };
        let Some(backend) = CanvasBackend::with_canvas_object(canvas.clone()) else {
            return;
        };
        let s = crate::system::System {
            sides,
            bin_s,
            outage: d.outage,
            budget: d.params.get("budget").is_some_and(|b| b != "none"),
            breaker: d.params.get("breaker").as_deref() == Some("on"),
            queue: d.params.get("server").as_deref() == Some("queue"),
            capacity: d.params.get("server").as_deref() != Some("flaky"),
        };
        if let Err(e) = crate::system::draw_system(&backend.into_drawing_area(), &s, dpr) {
            web_sys::console::error_1(&format!("system chart: {e}").into());
        }
        let _ = canvas.set_attribute("data-breaker", if s.breaker { "true" } else { "false" });
        let _ = canvas.set_attribute("data-budget", if s.budget { "true" } else { "false" });
        let _ = canvas.set_attribute("data-queue", if s.queue { "true" } else { "false" });
        let _ = canvas.set_attribute("data-capacity", if s.capacity { "true" } else { "false" });
        let trigger = s.outage.map_or("none", |(_, _, name)| name);
        let _ = canvas.set_attribute("data-trigger", trigger);
    }

    fn draw_extra(&self) {
        let Some(el) = by_id("extra-chart") else {
            return;
        };
        if self.draw_writes(&el) {
            return;
        }
        let _ = el.remove_attribute("data-panels");
        let Some(bars) = self.extra() else {
            set_hidden(&el, true);
            return;
        };
        set_hidden(&el, false);
        // The chart's numbers, in words, for a screen reader.
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
        let _ = el.set_attribute(
            "aria-label",
            &format!("{}. {}", bars.title, said.join("; ")),
        );
        let Some((canvas, dpr)) = crate::canvas::fit("extra-chart", 0.4, 240.0, 380.0) else {
            return;
        };
        let Some(backend) = CanvasBackend::with_canvas_object(canvas.clone()) else {
            return;
        };
        if let Err(e) = crate::bars::draw_bars(&backend.into_drawing_area(), &bars, dpr) {
            web_sys::console::error_1(&format!("chart: {e}").into());
        }
        let _ = canvas.set_attribute("data-groups", &bars.categories.len().to_string());
    }

    /// For the 2015 study, each side's write calls on its own time axis; false for other links.
    fn draw_writes(&self, el: &web_sys::Element) -> bool {
        let Some(panels) = self
            .done
            .as_ref()
            .and_then(|d| crate::writes::panels(&d.params, &d.reports))
        else {
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
        let Some((canvas, dpr)) = crate::canvas::fit("extra-chart", 0.28 * n, 220.0 * n, 340.0 * n)
        else {
            return true;
        };
        let Some(backend) = CanvasBackend::with_canvas_object(canvas.clone()) else {
            return true;
        };
        if let Err(e) = crate::writes::draw_writes(&backend.into_drawing_area(), &panels, dpr) {
            web_sys::console::error_1(&format!("chart: {e}").into());
        }
        let _ = canvas.remove_attribute("data-groups");
        let _ = canvas.set_attribute("data-panels", &panels.len().to_string());
        true
    }

    /// Draws the timeline of the last complete run, or a sweep's charts.
    pub(crate) fn draw(&mut self) {
        let Some(d) = &self.done else {
            return;
        };
        if d.plan.is_some() {
            self.draw_sweep();
            return;
        }
        let Some((canvas, dpr)) = crate::canvas::fit("timeline", 0.5, 280.0, 460.0) else {
            return;
        };
        let Some(backend) = CanvasBackend::with_canvas_object(canvas.clone()) else {
            return;
        };
        let Some(first) = d.reports.first() else {
            return;
        };
        let sides: Vec<_> = d.reports.iter().map(|r| r.series.rates()).collect();
        let t = Timeline {
            sides: &sides,
            bin_s: first.series.bin_ms / 1000.0,
            outage: d.outage,
            title: format!(
                "{}: requests and attempts per second (first run{})",
                crate::timeline::system_name(
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
        };
        let rates = &sides[0];
        match draw_timeline(&backend.into_drawing_area(), &t, dpr) {
            Ok(map) => self.map = map,
            Err(e) => web_sys::console::error_1(&format!("timeline: {e}").into()),
        }
        let _ = canvas.set_attribute("data-bins", &rates.len().to_string());
        let _ = canvas.set_attribute("data-sides", &sides.len().to_string());
        self.secondary = true;
    }

    /// The system's charts under the timeline; the scenario's own chart is the next stage.
    fn draw_secondary(&mut self) {
        self.secondary = false;
        let Some(first) = self.done.as_ref().and_then(|d| d.reports.first()) else {
            return;
        };
        let bin_s = first.series.bin_ms / 1000.0;
        let sides: Vec<_> = self
            .done
            .iter()
            .flat_map(|d| d.reports.iter().map(|r| r.series.rates()))
            .collect();
        self.draw_system(&sides, bin_s);
        self.extra = true;
    }

    /// The scenario's own chart, and the bins table when it is open.
    fn draw_extra_stage(&mut self) {
        self.extra = false;
        self.draw_extra();
        if by_id("rates-box").is_some_and(|b| b.has_attribute("open")) {
            self.fill_rates_table();
        }
    }

    fn render_readout(&self) {
        if let Some((d, plan)) = self.done.as_ref().and_then(|d| Some((d, d.plan.as_ref()?))) {
            if let Some(out) = by_id("sweep-readout") {
                let text = match self.hover {
                    Some(i) => plan.readout(&summaries(d), i),
                    None => "Point at a chart to read every line's values there.".to_string(),
                };
                out.set_text_content(Some(&text));
            }
            return;
        }
        let Some(out) = by_id("timeline-readout") else {
            return;
        };
        let text = match (&self.done, self.hover) {
            (Some(d), Some(i)) => {
                let r = d
                    .reports
                    .first()
                    .map(|r| r.series.rates())
                    .unwrap_or_default();
                match r.get(i) {
                    Some(b) => {
                        let mut text = format!(
                            "t = {} s: {:.0} original requests/s, {:.0} attempts/s, {:.0} successes/s, {:.0} failures/s",
                            b.t_s, b.originals, b.attempts, b.successes, b.failures
                        );
                        let reasons: Vec<String> = crate::system::failure_reasons()
                            .into_iter()
                            .filter(|x| b.failures_by[x.index()] > 0.0)
                            .map(|x| format!("{:.0} {}", b.failures_by[x.index()], x.name()))
                            .collect();
                        if !reasons.is_empty() {
                            text.push_str(&format!(" ({})", reasons.join(", ")));
                        }
                        match d.params.get("server").as_deref() {
                            Some("flaky") => text.push_str(&format!(
                                ", {:.0} attempts/s of work done, {} in flight",
                                b.served, b.in_flight
                            )),
                            Some("queue") => text.push_str(&format!(
                                ", {:.0}% of capacity serving attempts, {} in flight, {} waiting in the queue",
                                b.utilisation * 100.0,
                                b.in_flight,
                                b.queue
                            )),
                            _ => text.push_str(&format!(
                                ", {:.0}% of capacity serving attempts, {} in flight",
                                b.utilisation * 100.0,
                                b.in_flight
                            )),
                        }
                        if d.params.get("budget").is_some_and(|x| x != "none") {
                            text.push_str(&format!(", budget {} tokens", b.budget));
                        }
                        if d.params.get("breaker").as_deref() == Some("on") {
                            let state = crate::system::breaker_states(&r)[i];
                            let name = ["no attempt yet", "closed", "half-open", "open"]
                                [usize::from(state.min(3))];
                            text.push_str(&format!(", breaker {name}"));
                        }
                        text
                    }
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

fn summaries(d: &Done) -> Vec<retry_model::sim::Summary> {
    d.reports.iter().map(|r| r.summary.clone()).collect()
}

/// Fills `table` from a Markdown pipe table (`| a | b |` lines, the second the alignment row),
/// cell for cell: the sweep's table as the core writes it for `retrylab sweep`.
fn markdown_table(doc: &Document, table: &Element, md: &str) {
    table.set_inner_html("");
    let rows: Vec<Vec<&str>> = md
        .lines()
        .filter(|l| l.starts_with('|'))
        .map(|l| {
            l.trim()
                .trim_matches('|')
                .split('|')
                .map(str::trim)
                .collect()
        })
        .collect();
    let (Ok(head), Ok(body)) = (doc.create_element("thead"), doc.create_element("tbody")) else {
        return;
    };
    for (i, cells) in rows.iter().enumerate() {
        if i == 1 {
            continue; // |---|---:|
        }
        let Ok(tr) = doc.create_element("tr") else {
            continue;
        };
        for c in cells {
            if let Ok(td) = doc.create_element(if i == 0 { "th" } else { "td" }) {
                td.set_text_content(Some(c));
                let _ = tr.append_child(&td);
            }
        }
        let _ = if i == 0 {
            head.append_child(&tr)
        } else {
            body.append_child(&tr)
        };
    }
    let _ = table.append_child(&head);
    let _ = table.append_child(&body);
}

/// Fills `table` with what side B changes from side A, key by key (each key's value on both
/// sides and its one-line meaning from the key table): which piece of B does what.
fn changes_table(doc: &Document, table: &Element, a: &str, b: &str) {
    table.set_inner_html(
        "<thead><tr><th>key</th><th>A</th><th>B</th><th>what it sets</th></tr></thead>",
    );
    let (Ok(pa), Ok(pb)) = (
        a.parse::<retry_model::Params>(),
        b.parse::<retry_model::Params>(),
    ) else {
        return;
    };
    let Ok(body) = doc.create_element("tbody") else {
        return;
    };
    for k in retry_model::all_keys().filter(|k| *k != "v") {
        let (va, vb) = (pa.get(k), pb.get(k));
        if va == vb {
            continue;
        }
        let meaning = retry_model::link_keys::key(k).map_or("", |row| row.meaning);
        let Ok(tr) = doc.create_element("tr") else {
            continue;
        };
        let show = |v: Option<String>| v.filter(|s| !s.is_empty()).unwrap_or_else(|| "-".into());
        for text in [k.to_string(), show(va), show(vb), meaning.replace('`', "")] {
            if let Ok(td) = doc.create_element("td") {
                td.set_text_content(Some(&text));
                let _ = tr.append_child(&td);
            }
        }
        let _ = body.append_child(&tr);
    }
    let _ = table.append_child(&body);
}

pub(crate) fn set_hidden(el: &Element, hidden: bool) {
    if hidden {
        let _ = el.set_attribute("hidden", "");
    } else {
        let _ = el.remove_attribute("hidden");
    }
}
