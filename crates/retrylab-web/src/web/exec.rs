//! Where simulations run (wasm32 only): in Web Workers that load the page's own wasm module.
//!
//! The page posts a link to a worker; the worker runs it with [`Runner`] in slices of about
//! 25 ms, posts its progress after each slice and its [`SimReport`] at the end (as postcard
//! bytes). Between slices
//! it reads its messages, so a cancel drops the run in flight and the page's newer links
//! follow it (latest wins). A worker holds at most [`DEPTH`] links: while a sweep's rows run,
//! the next one is already there, so no worker waits for the page between rows.
//! `www/worker.js` only imports the glue, starts the wasm with the module the page sends and
//! calls [`worker_start`]; every message is read and written here.
//!
//! [`Exec`] is the page's side: a pool of one worker fewer than `navigator.hardwareConcurrency`
//! (so a core is left for the page; at least one, at most [`MAX_WORKERS`]), created as the
//! queue needs them, that take one link each. Where a worker
//! cannot start, the same [`Runner`] runs the links on the page's own event loop in slices of
//! about 8 ms, so the page still answers between them.

use retry_model::sim::{Run, SimReport};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The most workers the page starts, whatever the machine's core count.
pub const MAX_WORKERS: usize = 16;

/// The most links one worker holds (the one it runs and those waiting behind it).
pub const DEPTH: usize = 2;

/// A link to run: all its runs, or `part`, `(from, n)`, the runs from its `from`-th (from 0)
/// to join with the other parts on the page.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Job {
    pub link: String,
    pub part: Option<(u32, u32)>,
}

/// A message to a worker.
#[derive(Serialize, Deserialize)]
enum ToWorker {
    /// Run this job after the ones the worker holds. Without `series` only the summary
    /// comes back (a sweep's rows).
    Run { id: u32, job: Job, series: bool },
    /// Drop the run in flight and every link waiting behind it.
    Cancel,
}

/// A message from a worker.
#[derive(Serialize, Deserialize)]
enum FromWorker {
    /// The wasm is loaded; links can come.
    Ready,
    /// Share of run `id` done, 0 to 1.
    Progress { id: u32, fraction: f64 },
    /// Run `id` finished.
    Done { id: u32, report: Box<Finished> },
    /// Part `id` of a link's runs finished.
    Part { id: u32, part: Box<PartDone> },
    /// Run `id` could not start (the link's one-line error).
    Failed { id: u32, error: String },
}

/// What the page hears about a run it submitted.
pub(crate) enum Event {
    /// Share done, 0 to 1.
    Progress(u32, f64),
    /// The report.
    Done(u32, Box<Finished>),
    /// A part of a link's runs.
    Part(u32, Box<PartDone>),
    /// The one-line error.
    Failed(u32, String),
}

fn clock() -> f64 {
    js_sys::Date::now()
}

/// A message as it crosses between page and worker: postcard's compact bytes in a
/// `Uint8Array`. Not serde-wasm-bindgen's JavaScript objects: its (de)serializers for the
/// report's types cost the page about 19 KB of its gzip size; postcard's are a fraction of that,
/// and carry u64 and f64 exactly.
fn to_js<T: Serialize>(v: &T) -> Result<JsValue, JsValue> {
    let bytes = postcard::to_allocvec(v).map_err(|e| JsValue::from_str(&e.to_string()))?;
    Ok(js_sys::Uint8Array::from(bytes.as_slice()).into())
}

/// A message read back from [`to_js`]'s bytes.
fn from_js<T: serde::de::DeserializeOwned>(v: &JsValue) -> Result<T, String> {
    let bytes = v
        .dyn_ref::<js_sys::Uint8Array>()
        .ok_or("not a message of bytes")?
        .to_vec();
    postcard::from_bytes(&bytes).map_err(|e| e.to_string())
}

/// A finished run: its report and, for a run the page shows (not a sweep's row) on a queue
/// server, its analytic twin, solved in the same worker after the run.
#[derive(Serialize, Deserialize)]
pub(crate) struct Finished {
    /// The run's report.
    pub report: SimReport,
    /// The Analytic panel's content; `None` without a queue server or for a sweep's row.
    pub twin: Option<crate::twin::Twin>,
    /// How long solving the twin took in the worker (ms), for the browser measurement.
    pub twin_ms: f64,
}

/// A finished part of a link's runs, and for its first part the link's analytic twin.
#[derive(Serialize, Deserialize)]
pub(crate) struct PartDone {
    /// The part's runs, to join in order.
    pub parts: retry_model::sim::RunParts,
    /// As in [`Finished`].
    pub twin: Option<crate::twin::Twin>,
    /// As in [`Finished`].
    pub twin_ms: f64,
}

/// One link's run (or a part of its runs), advanced in slices.
pub(crate) struct Runner {
    run: Box<Run>,
    part: bool,
    // The link, kept for its twin when `twin` is set.
    p: Box<retry_model::Params>,
    twin: bool,
    // Events per step, adapted so one step stays well under a slice: a `layers` event can be a
    // whole call tree of up to a million bottom calls, a storm event a few microseconds.
    batch: u64,
}

/// Where a slice left a run.
pub(crate) enum ExecStep {
    /// Not finished; the share done.
    More(Runner, f64),
    /// Finished.
    Done(Box<Finished>),
    /// A part finished.
    Part(Box<PartDone>),
}

impl Runner {
    /// Checks the link and builds its first repetition; the error names the bad key. With
    /// `twin`, the link's analytic twin is solved when the run ends.
    pub(crate) fn new(job: &Job, twin: bool) -> Result<Runner, String> {
        let p: retry_model::Params = job
            .link
            .parse()
            .map_err(|e: retry_model::ConfigError| e.to_string())?;
        let run = match job.part {
            None => Run::new(&p),
            Some((from, n)) => Run::check(&p)
                .and_then(|()| Run::replicates(retry_model::sim::RunInput::try_from(&p)?, from, n)),
        }
        .map_err(|e| e.to_string())?;
        Ok(Runner {
            run: Box::new(run),
            part: job.part.is_some(),
            p: Box::new(p),
            // A split link's twin is solved once, with its first part.
            twin: twin && job.part.is_none_or(|(from, _)| from == 0),
            batch: 64,
        })
    }

    /// Works for about `budget_ms`.
    pub(crate) fn work(mut self, budget_ms: f64) -> ExecStep {
        let t0 = clock();
        loop {
            let t = clock();
            let prog = self.run.step(self.batch);
            // Grow the batch while steps are quick, shrink it when one takes over 4 ms.
            let took = clock() - t;
            self.batch = if took < 1.0 {
                (self.batch * 2).min(100_000)
            } else if took > 4.0 {
                (self.batch / 4).max(1)
            } else {
                self.batch
            };
            if prog.done {
                let t = clock();
                let twin = if self.twin {
                    crate::twin::twin_of(&self.p)
                } else {
                    None
                };
                let twin_ms = clock() - t;
                if self.part {
                    return ExecStep::Part(Box::new(PartDone {
                        parts: (*self.run).finish_parts(),
                        twin,
                        twin_ms,
                    }));
                }
                let report = (*self.run).finish();
                return ExecStep::Done(Box::new(Finished {
                    report,
                    twin,
                    twin_ms,
                }));
            }
            if clock() - t0 > budget_ms {
                return ExecStep::More(self, prog.fraction);
            }
        }
    }
}

// ---- the worker's side -------------------------------------------------------------------

struct WorkerState {
    job: Option<(u32, Runner, bool)>,
    // Links waiting behind the job, in order.
    waiting: VecDeque<(u32, Job, bool)>,
    scheduled: bool,
    // Posting to this port schedules the next slice: a message task, which, unlike a nested
    // `setTimeout(0)`, is not held back 4 ms, and lets the page's messages in between.
    port: Option<web_sys::MessagePort>,
    // When progress was last posted (ms): at most about ten posts a second.
    posted: f64,
}

thread_local! {
    static WORKER: RefCell<WorkerState> = const { RefCell::new(WorkerState { job: None, waiting: VecDeque::new(), scheduled: false, port: None, posted: 0.0 }) };
}

fn scope() -> web_sys::DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(msg: &FromWorker) {
    match to_js(msg) {
        Ok(v) => {
            let _ = scope().post_message(&v);
        }
        Err(e) => web_sys::console::error_1(&e),
    }
}

fn schedule_slice() {
    WORKER.with_borrow_mut(|w| {
        if w.scheduled || (w.job.is_none() && w.waiting.is_empty()) {
            return;
        }
        if let Some(port) = &w.port {
            w.scheduled = port.post_message(&JsValue::NULL).is_ok();
        }
    });
}

fn slice() {
    let (job, next) = WORKER.with_borrow_mut(|w| {
        w.scheduled = false;
        let job = w.job.take();
        let next = if job.is_none() {
            w.waiting.pop_front()
        } else {
            None
        };
        (job, next)
    });
    let job = match (job, next) {
        (Some(job), _) => Some(job),
        (None, Some((id, job, series))) => match Runner::new(&job, series) {
            Ok(r) => Some((id, r, series)),
            Err(error) => {
                post(&FromWorker::Failed { id, error });
                None
            }
        },
        (None, None) => None,
    };
    let Some((id, runner, series)) = job else {
        schedule_slice();
        return;
    };
    match runner.work(25.0) {
        ExecStep::More(runner, fraction) => {
            let due = WORKER.with_borrow_mut(|w| {
                let due = clock() - w.posted >= 100.0;
                if due {
                    w.posted = clock();
                }
                due
            });
            if due {
                post(&FromWorker::Progress { id, fraction });
            }
            // Messages are read between slices, never during one: a cancel finds it here.
            WORKER.with_borrow_mut(|w| w.job = Some((id, runner, series)));
        }
        ExecStep::Done(mut report) => {
            if !series {
                report.report.series.bins = Vec::new();
            }
            post(&FromWorker::Done { id, report })
        }
        ExecStep::Part(part) => post(&FromWorker::Part { id, part }),
    }
    schedule_slice();
}

fn on_message(e: web_sys::MessageEvent) {
    match from_js::<ToWorker>(&e.data()) {
        Ok(ToWorker::Run { id, job, series }) => {
            // Checked when its turn comes, so a worker's next link costs nothing until then.
            WORKER.with_borrow_mut(|w| w.waiting.push_back((id, job, series)));
            schedule_slice();
        }
        Ok(ToWorker::Cancel) => WORKER.with_borrow_mut(|w| {
            w.job = None;
            w.waiting.clear();
        }),
        Err(e) => web_sys::console::error_1(&format!("worker: unreadable message: {e}").into()),
    }
}

/// The worker's entry point, called by `www/worker.js` once the wasm is loaded: installs the
/// message handler and tells the page it is ready.
#[wasm_bindgen]
pub fn worker_start() {
    console_error_panic_hook::set_once();
    let tick = Closure::<dyn FnMut()>::new(slice);
    let handler = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(on_message);
    match web_sys::MessageChannel::new() {
        Ok(channel) => {
            channel
                .port1()
                .set_onmessage(Some(tick.as_ref().unchecked_ref()));
            WORKER.with_borrow_mut(|w| w.port = Some(channel.port2()));
        }
        Err(e) => web_sys::console::error_1(&e),
    }
    scope().set_onmessage(Some(handler.as_ref().unchecked_ref()));
    tick.forget(); // worker-lifetime handlers
    handler.forget();
    post(&FromWorker::Ready);
}

// ---- the page's side ---------------------------------------------------------------------

struct Slot {
    worker: web_sys::Worker,
    ready: bool,
    // The jobs it holds, with their ids: the one it runs first.
    busy: VecDeque<(u32, Job)>,
    // It reported an error (its script or the wasm failed to load): it takes no more links.
    dead: bool,
}

// What a worker's error handler puts in the inbox.
const DIED: &str = "retrylab-worker-error";

type Inbox = Rc<RefCell<VecDeque<(usize, JsValue)>>>;

/// The page's pool of workers, or the page's own loop where workers cannot start.
pub(crate) struct Exec {
    slots: Vec<Slot>,
    queue: VecDeque<(u32, Job)>,
    inbox: Inbox,
    // Called after every worker message, so the page reads its inbox.
    wake: js_sys::Function,
    glue: Option<String>,
    max: usize,
    next_id: u32,
    // Whether the queued links' series come back (not for a sweep's rows).
    series: bool,
    local: Option<(u32, Runner)>,
    // Why the page runs simulations itself, if it does.
    pub(crate) fallback: Option<String>,
}

/// A string the page's start-up script left on `window` (the offline file sets
/// `retrylabGlue` and `retrylabWorker` to Blob URLs of its inlined scripts).
fn page_string(name: &str) -> Option<String> {
    let w = web_sys::window()?;
    js_sys::Reflect::get(&w, &JsValue::from_str(name))
        .ok()?
        .as_string()
}

/// The URL of the page's wasm-bindgen glue (Trunk preloads it; the offline file names its
/// Blob URL), for the workers to import.
fn glue_url() -> Option<String> {
    if let Some(url) = page_string("retrylabGlue") {
        return Some(url);
    }
    let doc = web_sys::window()?.document()?;
    let el = doc
        .query_selector("link[rel=modulepreload][href$='.js']")
        .ok()??;
    let href = el.get_attribute("href")?;
    let base = doc.base_uri().ok()??;
    web_sys::Url::new_with_base(&href, &base)
        .ok()
        .map(|u| u.href())
}

impl Exec {
    /// A pool that calls `wake` whenever a worker has posted; it starts one worker at once so
    /// the first run does not wait for the wasm to load.
    pub(crate) fn new(wake: js_sys::Function) -> Exec {
        let cores = web_sys::window()
            .map(|w| w.navigator().hardware_concurrency() as usize)
            .unwrap_or(1);
        let mut exec = Exec {
            slots: Vec::new(),
            queue: VecDeque::new(),
            inbox: Rc::default(),
            wake,
            glue: glue_url(),
            max: cores.saturating_sub(1).clamp(1, MAX_WORKERS),
            next_id: 0,
            series: true,
            local: None,
            fallback: None,
        };
        if exec.glue.is_none() {
            exec.fallback = Some("the page's script was not found for a worker".into());
        }
        exec
    }

    /// Starts workers until `n` are running (at most the pool's size), so that they load the
    /// wasm before the links come: every worker a sweep will use starts with the page, not
    /// when the sweep is handed out.
    pub(crate) fn prestart(&mut self, n: usize) {
        while self.fallback.is_none() && self.slots.len() < n.min(self.max) {
            let before = self.slots.len();
            self.grow();
            if self.slots.len() == before {
                break;
            }
        }
    }

    /// Where runs go: "worker", or "page" when no worker could start.
    pub(crate) fn place(&self) -> &'static str {
        if self.fallback.is_some() {
            "page"
        } else {
            "worker"
        }
    }

    fn grow(&mut self) {
        if self.fallback.is_some() || self.slots.len() >= self.max {
            return;
        }
        match self.spawn() {
            Ok(slot) => self.slots.push(slot),
            Err(e) if self.slots.is_empty() => {
                let why = e.as_string().unwrap_or_else(|| format!("{e:?}"));
                self.fallback = Some(format!("a Web Worker could not start ({why})"));
            }
            Err(_) => self.max = self.slots.len(),
        }
    }

    fn spawn(&self) -> Result<Slot, JsValue> {
        let glue = self.glue.as_deref().ok_or("no script")?;
        let opts = web_sys::WorkerOptions::new();
        // The offline file's worker is a classic one: a page opened from disk may start a
        // classic worker from a Blob URL, not a module worker.
        let classic = page_string("retrylabWorkerType").as_deref() == Some("classic");
        opts.set_type(if classic {
            web_sys::WorkerType::Classic
        } else {
            web_sys::WorkerType::Module
        });
        let script = page_string("retrylabWorker").unwrap_or_else(|| "worker.js".to_string());
        let worker = web_sys::Worker::new_with_options(&script, &opts)?;
        let index = self.slots.len();
        let (inbox, wake) = (self.inbox.clone(), self.wake.clone());
        let on_msg =
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                inbox.borrow_mut().push_back((index, e.data()));
                let _ = wake.call0(&JsValue::NULL);
            });
        worker.set_onmessage(Some(on_msg.as_ref().unchecked_ref()));
        on_msg.forget(); // lives as long as the worker, which lives as long as the page
        let (inbox, wake) = (self.inbox.clone(), self.wake.clone());
        let on_err = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            inbox
                .borrow_mut()
                .push_back((index, JsValue::from_str(DIED)));
            let _ = wake.call0(&JsValue::NULL);
        });
        worker.set_onerror(Some(on_err.as_ref().unchecked_ref()));
        on_err.forget();
        let init = js_sys::Object::new();
        js_sys::Reflect::set(&init, &"glue".into(), &glue.into())?;
        js_sys::Reflect::set(&init, &"module".into(), &wasm_bindgen::module())?;
        worker.post_message(&init)?;
        Ok(Slot {
            worker,
            ready: false,
            busy: VecDeque::new(),
            dead: false,
        })
    }

    /// Queues links to run; returns their ids, in order.
    /// Links run last first: a sweep's later rows (more clients, longer runs) usually cost most,
    /// and starting them first leaves the short ones to even out the workers' ends.
    pub(crate) fn submit(&mut self, links: Vec<String>, series: bool) -> Vec<u32> {
        let jobs = links.into_iter().map(|link| Job { link, part: None });
        self.submit_jobs(jobs.collect(), series)
    }

    /// Queues jobs to run (links, or parts of a link's runs); returns their ids, in order.
    pub(crate) fn submit_jobs(&mut self, jobs: Vec<Job>, series: bool) -> Vec<u32> {
        self.series = series;
        let ids: Vec<u32> = jobs
            .into_iter()
            .map(|j| {
                self.next_id = self.next_id.wrapping_add(1);
                self.queue.push_front((self.next_id, j));
                self.next_id
            })
            .collect();
        self.dispatch();
        ids
    }

    /// How many workers the pool runs links on at once (1 on the page's own loop).
    pub(crate) fn workers(&self) -> usize {
        if self.fallback.is_some() {
            1
        } else {
            self.max
        }
    }

    /// Drops every queued and running link.
    pub(crate) fn cancel_all(&mut self) {
        self.queue.clear();
        self.local = None;
        for s in &mut self.slots {
            if !s.busy.is_empty() {
                s.busy.clear();
                if let Ok(v) = to_js(&ToWorker::Cancel) {
                    let _ = s.worker.post_message(&v);
                }
            }
        }
    }

    fn dispatch(&mut self) {
        if self.fallback.is_some() {
            return;
        }
        // First every idle worker gets a link. Only when the pool has all its workers, each
        // ready and busy, does a worker get a second one to start as soon as its first ends:
        // while workers are still loading, a link waits for the next one free.
        let full = self.slots.len() >= self.max && self.slots.iter().all(|s| s.ready || s.dead);
        for depth in 1..=DEPTH {
            if depth > 1 && !full {
                break;
            }
            for s in self
                .slots
                .iter_mut()
                .filter(|s| s.ready && !s.dead && s.busy.len() < depth)
            {
                let Some((id, job)) = self.queue.pop_front() else {
                    break;
                };
                let msg = ToWorker::Run {
                    id,
                    job: job.clone(),
                    series: self.series,
                };
                match to_js(&msg) {
                    Ok(v) if s.worker.post_message(&v).is_ok() => s.busy.push_back((id, job)),
                    _ => self.queue.push_front((id, job)),
                }
            }
        }
        let idle = self
            .slots
            .iter()
            .filter(|s| !s.dead && s.busy.is_empty())
            .count();
        if self.queue.len() > idle {
            self.grow();
        }
    }

    /// True while the page runs a link itself and wants another slice.
    pub(crate) fn local_pending(&self) -> bool {
        self.fallback.is_some() && (self.local.is_some() || !self.queue.is_empty())
    }

    /// Reads what the workers posted (or runs one local slice of about 8 ms) and hands out
    /// queued links; returns what happened to the page's runs.
    pub(crate) fn poll(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        if self.fallback.is_some() {
            if self.local.is_none() {
                if let Some((id, job)) = self.queue.pop_front() {
                    match Runner::new(&job, self.series) {
                        Ok(r) => self.local = Some((id, r)),
                        Err(e) => events.push(Event::Failed(id, e)),
                    }
                }
            }
            if let Some((id, r)) = self.local.take() {
                match r.work(8.0) {
                    ExecStep::More(r, f) => {
                        events.push(Event::Progress(id, f));
                        self.local = Some((id, r));
                    }
                    ExecStep::Done(rep) => events.push(Event::Done(id, rep)),
                    ExecStep::Part(part) => events.push(Event::Part(id, part)),
                }
            }
            return events;
        }
        let inbox: Vec<(usize, JsValue)> = self.inbox.borrow_mut().drain(..).collect();
        for (i, data) in inbox {
            let Some(slot) = self.slots.get_mut(i) else {
                continue;
            };
            if data.as_string().as_deref() == Some(DIED) {
                slot.dead = true;
                slot.worker.terminate();
                // Its links go back to the front of the queue, for another worker or the page.
                while let Some(job) = slot.busy.pop_back() {
                    self.queue.push_front(job);
                }
                if self.slots.iter().all(|s| s.dead) {
                    self.fallback = Some("the simulation worker failed to load".into());
                }
                continue;
            }
            let msg = match from_js::<FromWorker>(&data) {
                Ok(m) => m,
                Err(e) => {
                    web_sys::console::error_1(
                        &format!("page: unreadable worker message: {e}").into(),
                    );
                    continue;
                }
            };
            match msg {
                FromWorker::Ready => slot.ready = true,
                FromWorker::Progress { id, fraction } => events.push(Event::Progress(id, fraction)),
                FromWorker::Done { id, report } => {
                    slot.busy.retain(|b| b.0 != id);
                    events.push(Event::Done(id, report));
                }
                FromWorker::Part { id, part } => {
                    slot.busy.retain(|b| b.0 != id);
                    events.push(Event::Part(id, part));
                }
                FromWorker::Failed { id, error } => {
                    slot.busy.retain(|b| b.0 != id);
                    events.push(Event::Failed(id, error));
                }
            }
        }
        self.dispatch();
        events
    }
}
