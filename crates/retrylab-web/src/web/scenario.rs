//! The scenario view (wasm32 only): hands the link's simulation to a worker ([`Exec`]), shows
//! progress and Cancel once a run takes more than 150 ms, keeps the last complete result on
//! screen (marked stale) until the new one arrives, and draws the timeline and the summary
//! tiles. A change of link while a run is in flight replaces it: the latest wins.
//!
//! The numbers are the core's (`Run`, in the worker), the words the CLI's (`Summary::rows`).

use crate::panel::{Panel, PanelCtx, PanelOutcome};
use crate::sweepplan::{Plan, Planning};
use crate::tuneplan::{TuneStep, Tuning};
use crate::views::{find, panels, Host};
use crate::web::dom::{by_id, now, set_hidden};
use crate::web::exec::{Event, Exec};
use retry_model::sim::{Scenario, ScenarioKind, SimReport};
use retry_model::Params;

/// A run in flight: one side, or the two sides of a comparison (each in its own worker where
/// there are two).
pub(crate) struct RunJob {
    plan: Option<Plan>,
    // The lost view's twin (the link with the key switched) runs after the sides.
    twin: bool,
    ids: Vec<u32>,
    sides: Vec<String>,
    reports: Vec<Option<SimReport>>,
    // Side A's analytic twin, once its run is back, and how long it took to solve (ms).
    analytic: Option<(crate::twin::Twin, f64)>,
    // A comparison's steps from A to B (which piece solves which part); the steps between
    // the two sides run after them.
    ladder: Vec<retry_model::LadderStep>,
    fractions: Vec<f64>,
    link: String,
    started: f64,
    // A search's round (from 1) and how far the search was when it began.
    round: Option<(u32, f64)>,
    // A link's runs spread over the workers: the link, and each part's runs once back (the
    // job's ids are the parts'); joined into side A's report when all are in.
    split: Option<(Params, Vec<Option<retry_model::sim::RunParts>>)>,
}

impl RunJob {
    /// A job of rows that need only their summaries (a sweep's, a search's round).
    fn rows(ids: Vec<u32>, link: String, started: f64, plan: Option<Plan>) -> RunJob {
        RunJob {
            reports: ids.iter().map(|_| None).collect(),
            fractions: ids.iter().map(|_| 0.0).collect(),
            ids,
            sides: Vec::new(),
            link,
            started,
            plan,
            twin: false,
            analytic: None,
            ladder: Vec::new(),
            round: None,
            split: None,
        }
    }

    /// "40%", for a sweep "40% (38 of 95 rows)", for a search its round.
    fn progress_text(&self) -> String {
        let pct = format!("{:.0}%", self.fraction() * 100.0);
        if let Some((round, before)) = self.round {
            return format!(
                "the search for a better policy: round {round}, {pct} of its {} runs ({:.0}% of the search before it)",
                self.ids.len(),
                before * 100.0
            );
        }
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

    /// Part `id` of a split link's runs is back; with every part in, they are joined (in
    /// order, as the CLI joins its threads' parts: the one-worker report to the bit) into side
    /// A's report.
    fn take_part(&mut self, id: u32, part: crate::web::exec::PartDone) {
        let Some(i) = self.ids.iter().position(|x| *x == id) else {
            return;
        };
        let Some((p, parts)) = self.split.as_mut() else {
            return;
        };
        if i == 0 {
            self.analytic = part.twin.map(|t| (t, part.twin_ms));
        }
        parts[i] = Some(part.parts);
        self.fractions[i] = 1.0;
        if parts.iter().any(Option::is_none) {
            return;
        }
        let all: Vec<retry_model::sim::RunParts> = parts.drain(..).flatten().collect();
        // The link was checked by the workers that ran it: it reads.
        if let Ok(input) = retry_model::sim::RunInput::try_from(&*p) {
            self.reports = vec![Some(retry_model::sim::RunParts::join(&input, all))];
        }
    }
}

/// A link of several runs (not `sequential`, whose stop depends on the runs before) spread
/// over the pool's workers, each a contiguous part of its runs; `None` where one worker runs
/// it (one worker, one run).
fn split_job(exec: &mut Exec, side: &Params, link: &str) -> Option<RunJob> {
    let runs = side.sim.runs.0;
    let workers = exec.workers().min(runs as usize) as u32;
    if workers < 2 || side.sim.stops_early() {
        return None;
    }
    let text = side.to_string();
    let jobs: Vec<crate::web::exec::Job> = (0..workers)
        .map(|w| {
            let (a, b) = (runs * w / workers, runs * (w + 1) / workers);
            crate::web::exec::Job {
                link: text.clone(),
                part: Some((a, b - a)),
            }
        })
        .collect();
    let ids = exec.submit_jobs(jobs, true);
    Some(RunJob {
        sides: vec![text],
        split: Some((side.clone(), ids.iter().map(|_| None).collect())),
        ..RunJob::rows(ids, link.to_string(), now(), None)
    })
}

/// The scenario view's state: the run in flight, the last complete result, and the panels
/// that show it (registered in `views.rs`).
pub(crate) struct ScenarioView {
    exec: Option<Exec>,
    // A sweep's rows being checked, a few per task, before its job starts; and its link.
    planning: Option<(Planning, String)>,
    // A search for a better policy between its rounds (each round a job of its own), and the
    // rounds started.
    tuning: Option<(Tuning, u32)>,
    // A search kept to a format waits for its pool from the importer's worker: its link and
    // when it started.
    pool_wait: Option<(String, f64)>,
    /// The policy the Import box last read and its format: while the view runs that policy,
    /// "Find a better policy" keeps the search to what the format writes back.
    pub(crate) imported: Option<(retry_model::RetryPolicy, String)>,
    job: Option<RunJob>,
    done: Option<PanelOutcome>,
    error: Option<String>,
    cancelled: bool,
    hover: Option<usize>,
    // How far showing the last result has got: the next stage to draw, an index into the
    // scenario's panels (the tiles, the timeline or a sweep's charts, the system's charts,
    // the scenario's own chart); `panels.len()` once all are drawn. Hover and progress do
    // not draw them again.
    stage: usize,
    panels: Vec<Box<dyn Panel>>,
}

impl Default for ScenarioView {
    fn default() -> ScenarioView {
        let panels = panels(&[Host::Scenario]);
        ScenarioView {
            exec: None,
            planning: None,
            tuning: None,
            pool_wait: None,
            imported: None,
            job: None,
            done: None,
            error: None,
            cancelled: false,
            hover: None,
            stage: panels.len(),
            panels,
        }
    }
}

/// The scenario's panels drawn in stages when a result arrives, in order; the others (the
/// tree, the ledger, the readout) are cheap and written on every render.
const STAGED: [&str; 7] = [
    "tiles", "timeline", "sweep", "system", "extra", "analytic", "tune",
];

/// Sets `#scenario-view[data-parts]` to the workers the last run's runs were spread over (1:
/// one ran them all), for the browser test that a split link gives the one-worker numbers.
fn mark_parts(n: usize) {
    if let Some(view) = by_id("scenario-view") {
        let _ = view.set_attribute("data-parts", &n.to_string());
    }
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

/// A scenario comparison's steps from side A to side B, one piece at a time (none for one
/// side, or when the two sides run the same settings).
fn ladder_of(p: &Params) -> Vec<retry_model::LadderStep> {
    match p.side_b() {
        Some(b) if p.sim.scenario.is_some() => {
            let steps = p.side_a().steps_to(b);
            if steps.len() >= 2 {
                steps
            } else {
                Vec::new()
            }
        }
        _ => Vec::new(),
    }
}

/// The steps between the first (side A) and the last (side B), which run as links of their own.
fn middle_steps(
    ladder: &[retry_model::LadderStep],
) -> impl Iterator<Item = &retry_model::LadderStep> {
    let n = ladder.len().saturating_sub(2);
    ladder.iter().skip(1).take(n)
}

/// The ladder's steps with a summary each: side A's, the steps between, side B's.
fn ladder_rows(
    ladder: Vec<retry_model::LadderStep>,
    sides: &[SimReport],
    middles: Vec<SimReport>,
) -> Option<(Vec<retry_model::LadderStep>, Vec<retry_model::sim::Summary>)> {
    let [a, b] = sides else {
        return None;
    };
    if ladder.is_empty() {
        return None;
    }
    let summaries = core::iter::once(a)
        .chain(middles.iter())
        .chain(core::iter::once(b))
        .map(|r| r.summary.clone())
        .collect();
    Some((ladder, summaries))
}

/// True while the link asks a question (its lesson's, or its own `ask`) the reader has not
/// answered.
pub(crate) fn awaiting_guess(p: &Params) -> bool {
    p.exercise().is_some() && p.guess.is_none()
}

impl ScenarioView {
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
        for panel in self.panels.iter_mut() {
            panel.sync(p);
        }
        if p.sim.scenario.is_none() || awaiting_guess(p) {
            // Predict, then run: a lesson's question is answered before its run is shown.
            self.stop();
            self.done = None;
            self.error = None;
            return false;
        }
        let link = p.to_string();
        if self.planning.as_ref().is_some_and(|(_, l)| *l == link) {
            return true;
        }
        if self.job.as_ref().is_some_and(|j| j.link == link)
            || (!self.in_flight() && self.done.as_ref().is_some_and(|d| d.link == link))
        {
            return self.local_pending();
        }
        self.stop();
        self.cancelled = false;
        if crate::views::View::of(p) == crate::views::View::Tune {
            return self.start_tune(p, link);
        }
        // A sweep's rows are checked a few per task (`plan_some`), then its job starts.
        match Planning::of(p) {
            Some(Ok(planning)) => {
                self.error = None;
                self.planning = Some((planning, link));
                return true;
            }
            Some(Err(e)) => return self.start_sweep(Err(e), link),
            None => {}
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
        let twin = crate::extras::lost_twin(p).map(|t| t.to_string());
        let ladder = ladder_of(p);
        if sides.len() == 1 && twin.is_none() && ladder.is_empty() {
            if let Some(job) = split_job(exec, &sides[0], &link) {
                self.job = Some(job);
                return self.local_pending();
            }
        }
        let sides: Vec<String> = sides.iter().map(|s| s.to_string()).collect();
        let mut links = sides.clone();
        links.extend(twin.iter().cloned());
        links.extend(middle_steps(&ladder).map(|s| s.params.to_string()));
        let ids = exec.submit(links, true);
        self.job = Some(RunJob {
            plan: None,
            twin: twin.is_some(),
            analytic: None,
            ladder,
            reports: ids.iter().map(|_| None).collect(),
            fractions: ids.iter().map(|_| 0.0).collect(),
            ids,
            sides,
            link,
            started: now(),
            round: None,
            split: None,
        });
        self.local_pending()
    }

    /// Starts a search for a better policy: its first round.
    fn start_tune(&mut self, p: &Params, link: String) -> bool {
        match Tuning::of(p) {
            Ok(t) if t.format().is_some() => {
                self.error = None;
                self.tuning = Some((t, 0));
                self.pool_wait = Some((link.clone(), now()));
                crate::web::importer::ensure_worker();
                let req = js_sys::Object::new();
                for (k, v) in [("tune_pool", "on"), ("link", link.as_str())] {
                    let _ = js_sys::Reflect::set(&req, &k.into(), &v.into());
                }
                if !crate::web::importer::post(&req) {
                    self.pool_wait = None;
                    self.tuning = None;
                    self.refuse(String::from("tune_format: the importer, which writes the formats, could not start here; run `retrylab tune LINK --format-of FORMAT`"));
                }
                false
            }
            Ok(t) => {
                self.error = None;
                self.tuning = Some((t, 0));
                self.next_round(p, link, now())
            }
            Err(e) => {
                self.refuse(e);
                false
            }
        }
    }

    /// The search's next round on the workers, or its outcome once none is left.
    fn next_round(&mut self, p: &Params, link: String, started: f64) -> bool {
        let Some((t, round)) = self.tuning.as_mut() else {
            return false;
        };
        let before = t.fraction();
        match t.next_step() {
            Err(e) => {
                self.tuning = None;
                self.refuse(e);
                false
            }
            Ok(TuneStep::Done(outcome)) => {
                self.tuning = None;
                mark_flight(started, now());
                self.done = Some(PanelOutcome {
                    plan: None,
                    link,
                    sides: Vec::new(),
                    reports: Vec::new(),
                    twin: None,
                    analytic: None,
                    ladder: None,
                    params: p.clone(),
                    outage: None,
                    tune: Some(outcome),
                });
                self.stage = 0;
                false
            }
            Ok(TuneStep::Run(links)) => {
                *round += 1;
                let round = Some((*round, before));
                let Some(exec) = self.exec.as_mut() else {
                    return false;
                };
                let ids = exec.submit(links, false);
                self.job = Some(RunJob {
                    round,
                    ..RunJob::rows(ids, link, started, None)
                });
                self.local_pending()
            }
        }
    }

    fn start_sweep(&mut self, plan: Result<Plan, String>, link: String) -> bool {
        let plan = match plan {
            Ok(plan) => plan,
            Err(e) => {
                self.refuse(format!("sweep: {e}"));
                return false;
            }
        };
        let Some(exec) = self.exec.as_mut() else {
            return false;
        };
        self.error = None;
        // Rows need only their summaries: the workers send no series back.
        let ids = exec.submit(plan.links.clone(), false);
        self.job = Some(RunJob::rows(ids, link, now(), Some(plan)));
        self.local_pending()
    }

    /// A run the link asks for is refused (over a cap, a sweep's bad row): the message goes to
    /// the top of the page and the last result, which no longer matches the link, is cleared.
    fn refuse(&mut self, why: String) {
        self.error = Some(why);
        self.done = None;
    }

    /// Whether a run is in flight (its rows being checked included).
    pub(crate) fn in_flight(&self) -> bool {
        self.job.is_some() || self.planning.is_some() || self.tuning.is_some()
    }

    /// The importer's pool for a search kept to a format: the search's first round starts,
    /// or its error is shown. A pool for a link no longer asked for is dropped. Whether the
    /// page should run a slice itself.
    pub(crate) fn give_pool(&mut self, p: &Params, r: &crate::web::importer::ImportReply) -> bool {
        let Some((link, started)) = self.pool_wait.take_if(|(l, _)| *l == r.link) else {
            return false;
        };
        if !r.ok {
            self.tuning = None;
            self.refuse(r.error.clone());
            return false;
        }
        if let Some((t, _)) = self.tuning.as_mut() {
            t.set_pool(&r.text);
        }
        self.next_round(p, link, started)
    }

    /// Checks a sweep's next rows for up to `STAGE_MS`, then starts its job once all are
    /// checked; returns true while rows are left (or the page runs the job itself).
    fn plan_some(&mut self) -> bool {
        let Some((planning, _)) = self.planning.as_mut() else {
            return false;
        };
        let start = now();
        loop {
            match planning.step(1) {
                Ok(true) => break,
                Ok(false) if now() - start > STAGE_MS => return true,
                Ok(false) => {}
                Err(e) => {
                    self.planning = None;
                    self.refuse(format!("sweep: {e}"));
                    return false;
                }
            }
        }
        match self.planning.take() {
            Some((planning, link)) => self.start_sweep(planning.finish(), link),
            None => false,
        }
    }

    fn local_pending(&self) -> bool {
        self.exec.as_ref().is_some_and(|e| e.local_pending())
    }

    fn stop(&mut self) {
        if let Some(exec) = self.exec.as_mut() {
            exec.cancel_all();
        }
        self.job = None;
        self.planning = None;
        self.tuning = None;
        self.pool_wait = None;
    }

    /// Takes in what the workers posted (or runs one slice on the page where there are no
    /// workers); returns true when the page should run another slice itself.
    pub(crate) fn pump(&mut self, p: &Params) -> bool {
        if self.planning.is_some() {
            return self.plan_some();
        }
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
                Event::Part(id, part) => {
                    job.take_part(id, *part);
                    continue;
                }
                Event::Failed(id, e) => (id, Err(e)),
            };
            let Some(i) = job.ids.iter().position(|x| *x == id) else {
                continue; // an earlier run's message
            };
            match what {
                Ok(Err(f)) => job.fractions[i] = f,
                Ok(Ok(r)) => {
                    if i == 0 {
                        job.analytic = r.twin.map(|t| (t, r.twin_ms));
                    }
                    job.reports[i] = Some(r.report);
                }
                Err(e) => {
                    self.refuse(e);
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
                if let Some((t, _)) = self.tuning.as_mut() {
                    let summaries = job.reports.into_iter().flatten().map(|r| r.summary);
                    if let Err(e) = t.give(summaries.collect()) {
                        self.tuning = None;
                        self.refuse(e);
                        return false;
                    }
                    return self.next_round(p, job.link, job.started) || self.local_pending();
                }
                mark_flight(job.started, now());
                mark_parts(if job.split.is_some() {
                    job.ids.len()
                } else {
                    1
                });
                let mut reports: Vec<SimReport> = job.reports.into_iter().flatten().collect();
                let middles = reports.split_off(reports.len() - middle_steps(&job.ladder).count());
                let twin = if job.twin { reports.pop() } else { None };
                let ladder = ladder_rows(job.ladder, &reports, middles);
                self.done = Some(PanelOutcome {
                    plan: job.plan,
                    link: job.link,
                    sides: job.sides,
                    reports,
                    twin,
                    analytic: job.analytic,
                    ladder,
                    params: p.clone(),
                    outage: outage_window(p),
                    tune: None,
                });
                self.stage = 0;
            }
        }
        self.local_pending()
    }

    /// What a lesson's answer is read from: side A's summary, a sweep with its rows, and the
    /// analytic twin's mixing time, of the last complete run (none while one is in flight).
    /// The last complete result, unless a run is in flight (the lesson's answer waits for it).
    pub(crate) fn finished(&self) -> Option<&PanelOutcome> {
        self.done.as_ref().filter(|_| !self.in_flight())
    }

    /// Stops the run in flight; the last complete result stays, marked stale.
    pub(crate) fn cancel(&mut self) {
        if self.in_flight() {
            self.stop();
            self.cancelled = true;
        }
    }

    /// The bin (or sweep row) under the pointer, for the readout; true when it changed.
    pub(crate) fn hover(&mut self, at: Option<(f64, f64)>) -> bool {
        let sweep = self.done.as_ref().is_some_and(|d| d.plan.is_some());
        let name = if sweep { "sweep" } else { "timeline" };
        let bin = at.and_then(|(x, y)| {
            self.panels
                .iter()
                .find(|p| p.name() == name)
                .and_then(|p| p.at(x, y, 0.0))
        });
        let changed = bin != self.hover;
        self.hover = bin;
        changed
    }

    /// The pointer over one panel's own chart (the analytic twin's): the panel writes its
    /// readout.
    pub(crate) fn point(&mut self, panel: &str, at: Option<(f64, f64)>) {
        if let Some(x) = find(&mut self.panels, panel) {
            x.point(at);
        }
    }

    /// A stepping control of one panel (the tree's or the ledger's); draws it again.
    pub(crate) fn act(&mut self, panel: &str, what: &str) {
        if let Some(x) = find(&mut self.panels, panel) {
            x.act(what);
        }
        self.render_panel(panel);
    }

    /// Draws one panel from the last complete result.
    fn render_panel(&mut self, name: &str) {
        let ScenarioView {
            panels,
            done,
            hover,
            ..
        } = self;
        let cx = PanelCtx {
            state: None,
            done: done.as_ref(),
            hover: *hover,
        };
        if let Some(x) = find(panels, name) {
            x.render(&cx);
        }
    }

    /// Draws the charts again (at a new size), from the timeline or a sweep's charts on.
    pub(crate) fn redraw_charts(&mut self) {
        if self.done.is_some() && self.stage >= STAGED.len() {
            self.stage = 1;
        }
    }

    /// Writes the view: which sections show, progress, status, tiles, timeline and readout.
    /// Returns true when it wants to be called again in a new task (to draw the charts under
    /// the timeline).
    pub(crate) fn render(&mut self, p: &Params) -> bool {
        // The view on screen: the link's, except that a scenario link keeps showing the last
        // complete result's (marked stale) until its own arrives.
        let view = match (crate::views::View::of(p), &self.done) {
            (crate::views::View::Schedule, _) => crate::views::View::Schedule,
            (_, Some(d)) if d.tune.is_some() => crate::views::View::Tune,
            (_, Some(d)) if d.plan.is_some() => crate::views::View::Sweep,
            (_, Some(_)) => crate::views::View::Run,
            (v, None) => v,
        };
        let shown = view.sections();
        // Predict, then run: the traced request's decisions answer a policy question, and a
        // scenario's empty charts, tables and exports wait for the run the guess starts.
        let asking = awaiting_guess(p) || self.error.is_some();
        for v in crate::views::View::ALL {
            for id in v.sections() {
                if let Some(el) = by_id(id) {
                    let waiting =
                        asking && !matches!(*id, "scenario-view" | "schedule-view-section");
                    set_hidden(&el, !shown.contains(id) || waiting);
                }
            }
        }
        // While the first result is on its way, its place is kept: the view holds a screen's
        // height and the exports line its own, so nothing under them moves when it arrives.
        let first = self.done.is_none() && !asking && view != crate::views::View::Schedule;
        if let Some(v) = by_id("scenario-view") {
            let _ = v.set_attribute("data-running", if first { "true" } else { "false" });
        }
        if first && view == crate::views::View::Run {
            for x in self.panels.iter() {
                x.reserve(p);
            }
        }
        if let Some(exports) = by_id("exports") {
            set_hidden(&exports, self.done.is_none() && !first);
            let _ = exports.set_attribute("data-waiting", if first { "true" } else { "false" });
        }
        if view == crate::views::View::Schedule {
            return false;
        }
        self.render_panel("tree");
        self.render_panel("ledger");
        if let Some(el) = by_id("occ-links") {
            set_hidden(
                &el,
                p.sim.kind() != Some(ScenarioKind::Occ) || p.sweep().is_some(),
            );
        }

        self.render_status(p);
        let again = self.render_stages();
        self.render_panel("readout");
        // Done once the result is drawn in full, every chart included.
        let drawn = self.done.is_some() && !self.in_flight() && self.stage >= STAGED.len();
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
        let stale = self.in_flight() || self.cancelled;
        let mut status = self.status_text(p);
        if let Some(why) = self.exec.as_ref().and_then(|e| e.fallback.as_ref()) {
            status.push_str(&format!(" (on the page's own thread: {why})"));
        }
        if let Some(s) = by_id("sim-status") {
            s.set_text_content(Some(&status));
        }
        // A comparison's two links, from the link itself: written with the view, so the line
        // is in place before the run ends and nothing under it moves then.
        if let Some(line) = by_id("run-sides") {
            let text = p.side_b().map(|b| {
                format!("A: ?{}; B: ?{b}. The controls edit A; B is A with its own keys on top (Side B, under Compare or sweep).", p.side_a())
            });
            line.set_text_content(text.as_deref());
            set_hidden(&line, text.is_none() || p.sweep().is_some());
        }
        // "Find a better policy": the same link with `tune=on`, for one run of an outage (kept
        // to the format the Import box read, while the view runs the policy it read).
        if let Some(a) = by_id("tune-link") {
            let mut t = p.clone();
            t.tune.on = true;
            if let Some((_, format)) = self.imported.as_ref().filter(|(pol, _)| *pol == p.policy) {
                let _ = t.set("tune_format", format);
            }
            let offered = p.sim.kind() == Some(ScenarioKind::Outage)
                && !p.tune.on
                && p.sweep().is_none()
                && p.compare.is_none();
            let _ = a.set_attribute("href", &format!("?{t}"));
            set_hidden(&a, !offered);
        }
        if let Some(banner) = by_id("run-error") {
            banner.set_text_content(self.error.as_deref());
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
        if let (None, Some((planning, _))) = (&self.error, &self.planning) {
            let (made, total) = planning.progress();
            let stale = if self.done.is_some() {
                "; the result below is the previous run's (stale)"
            } else {
                ""
            };
            return format!("checking the sweep's rows: {made} of {total}{stale}");
        }
        if let (None, Some(f)) = (
            &self.error,
            self.pool_wait.as_ref().and(self.tuning.as_ref()),
        ) {
            let format = f.0.format().unwrap_or_default();
            return format!("finding the policies {format} writes back, for the search");
        }
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
                    _ if d.tune.is_some() => d.tune.as_ref().map_or_else(String::new, |t| {
                        format!(
                            "the frontier for ?{}: {} policies tried, {} runs made",
                            t.base, t.tuned.tried, t.tuned.runs_made
                        )
                    }),
                    _ if d.plan.is_some() => {
                        let plan = d.plan.as_ref().map_or_else(String::new, |p| {
                            let keys: Vec<&str> = p.axes.iter().map(|a| a.key).collect();
                            format!(
                                "{} rows of ?{} sweeping {}",
                                p.links.len(),
                                p.base,
                                keys.join(" and ")
                            )
                        });
                        // A phase plot's cells each stop once clear of 50%: say the range.
                        let most = d.reports.iter().map(|r| r.runs).max().unwrap_or(runs);
                        let least = d.reports.iter().map(|r| r.runs).min().unwrap_or(runs);
                        if least == most {
                            format!("{plan}, mean of {runs} run{plural} each")
                        } else {
                            format!("{plan}, mean of {least} to {most} runs each")
                        }
                    }
                    [_, _] => format!("{runs} run{plural} of each side"),
                    _ => format!("{runs} run{plural} of ?{}", d.link),
                }
            }
            (None, None, false, None) if awaiting_guess(p) => {
                "Answer the question first: the run is shown once you commit your guess."
                    .to_string()
            }
            (None, None, false, None) => String::new(),
        }
    }

    /// Shows a new result in stages; returns whether a stage is left for the next task.
    fn render_stages(&mut self) -> bool {
        // A new result is shown in stages, so no one task is long: the tiles (or the tables),
        // the timeline (or a sweep's charts), the system's charts, the scenario's own chart.
        // A stage follows in the same task while the task is still short (`STAGE_MS`);
        // otherwise in the next one. Each task between stages can wait for a frame, so on a
        // quick machine four tasks would add about four frames to a redraw.
        let start = now();
        while let Some(name) = STAGED.get(self.stage) {
            self.stage += 1;
            self.render_panel(name);
            if *name == "extra" && by_id("rates-box").is_some_and(|b| b.has_attribute("open")) {
                self.fill_rates_table();
            }
            if self.stage < STAGED.len() && now() - start > STAGE_MS {
                return true;
            }
        }
        false
    }

    /// Fills the timeline's table alternative from the last complete run.
    pub(crate) fn fill_rates_table(&mut self) {
        let cx = PanelCtx {
            state: None,
            done: self.done.as_ref(),
            hover: None,
        };
        if let Some(x) = self.panels.iter_mut().find(|x| x.name() == "timeline") {
            x.table(&cx);
        }
    }

    /// The last run's exports: the file name stem, side A's series as CSV and its summary as
    /// Markdown, byte for byte what `retrylab run --format csv|markdown` writes.
    pub(crate) fn exports(&self) -> Option<(String, String, String)> {
        let d = self.done.as_ref()?;
        if let Some(plan) = &d.plan {
            let s = d.summaries();
            return Some((
                "retrylab-sweep".to_string(),
                plan.csv(&s),
                plan.markdown(&s),
            ));
        }
        let r = d.reports.first()?;
        Some((
            format!("retrylab-{}", r.scenario.name()),
            retry_model::sim::series_csv(&r.series, r.band.as_ref()),
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

    /// The canvases of the charts on screen, for the PNG exports.
    pub(crate) fn chart_ids(&self) -> Vec<String> {
        match self.done.as_ref().and_then(|d| d.plan.as_ref()) {
            Some(p) => (0..p.metrics.len())
                .map(|i| format!("sweep-chart-{i}"))
                .collect(),
            None => ["timeline", "system-chart", "extra-chart", "analytic-chart"]
                .into_iter()
                .filter(|id| by_id(id).is_some_and(|e| !e.has_attribute("hidden")))
                .filter(|id| {
                    *id != "analytic-chart"
                        || by_id("analytic-section").is_some_and(|e| !e.has_attribute("hidden"))
                })
                .map(String::from)
                .collect(),
        }
    }
}
