//! The JavaScript API's runs (wasm32 only): `run`, `compare` and `sweep` return Promises and
//! run their links in a pool of Web Workers of their own (`exec::Exec`, apart from the page's,
//! so a script never cancels what the page shows), or on the event loop in slices where no
//! worker can start (Node). Each takes an optional last argument `{onProgress, signal}`:
//! `onProgress(fraction)` is called as the links advance, and an `AbortSignal` rejects the
//! Promise with an `AbortError` and stops the links.

use crate::api::{error, link_text, to_js};
use crate::web::exec::{Event, Exec};
use retry_model::json::{self, inputs};
use retry_model::sim::SimReport;
use retry_model::Params;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Turns a call's reports, in the order of its links, into its document.
type Finish = Box<dyn FnOnce(Vec<SimReport>) -> Result<JsValue, JsValue>>;

/// One call in flight.
struct ApiRun {
    ids: Vec<u32>,
    reports: Vec<Option<SimReport>>,
    fractions: Vec<f64>,
    finish: Option<Finish>,
    resolve: js_sys::Function,
    reject: js_sys::Function,
    on_progress: Option<js_sys::Function>,
}

#[derive(Default)]
struct Pool {
    exec: Option<Exec>,
    jobs: Vec<ApiRun>,
    poll_queued: bool,
}

thread_local! {
    static POOL: RefCell<Pool> = RefCell::default();
}

/// `setTimeout(f, 0)` on whatever global there is (a page, a worker, Node).
fn defer(f: &js_sys::Function) {
    let global = js_sys::global();
    if let Ok(set) = js_sys::Reflect::get(&global, &"setTimeout".into()) {
        if let Some(set) = set.dyn_ref::<js_sys::Function>() {
            let _ = set.call2(&global, f, &JsValue::from_f64(0.0));
        }
    }
}

thread_local! {
    static POLL: js_sys::Function = Closure::<dyn Fn()>::new(poll).into_js_value().unchecked_into();
}

fn queue_poll() {
    let queue = POOL.with(|p| {
        let mut p = p.borrow_mut();
        !std::mem::replace(&mut p.poll_queued, true)
    });
    if queue {
        POLL.with(defer);
    }
}

/// Reads what the workers posted (or runs a slice here) and settles the calls that finished.
fn poll() {
    let (events, again) = POOL.with(|p| {
        let mut p = p.borrow_mut();
        p.poll_queued = false;
        let Some(exec) = p.exec.as_mut() else {
            return (Vec::new(), false);
        };
        let events = exec.poll();
        (events, exec.local_pending())
    });
    for e in events {
        handle(e);
    }
    if again {
        queue_poll();
    }
}

/// What an event did to its call.
enum RunOutcome {
    /// Nothing to tell (an aborted call's link, a row of many still running).
    Quiet,
    /// Tell `onProgress` the call's share done.
    Progress(js_sys::Function, f64),
    /// The call is over: resolve it, or reject it with the message.
    Settled(Box<ApiRun>, Option<String>),
}

/// Hands one event to the call that owns its link; JavaScript is called only after the pool
/// is let go, so a callback may start another call.
fn handle(e: Event) {
    let id = match &e {
        Event::Progress(id, _) | Event::Done(id, _) | Event::Part(id, _) | Event::Failed(id, _) => {
            *id
        }
    };
    let outcome = POOL.with(|p| {
        let mut p = p.borrow_mut();
        let Some(j) = p.jobs.iter().position(|j| j.ids.contains(&id)) else {
            return RunOutcome::Quiet;
        };
        let i = p.jobs[j].ids.iter().position(|x| *x == id).unwrap_or(0);
        let job = &mut p.jobs[j];
        match e {
            Event::Progress(_, f) => {
                job.fractions[i] = f;
                let done = job.fractions.iter().sum::<f64>() / job.fractions.len() as f64;
                job.on_progress
                    .clone()
                    .map_or(RunOutcome::Quiet, |cb| RunOutcome::Progress(cb, done))
            }
            Event::Done(_, r) => {
                job.reports[i] = Some(r.report);
                job.fractions[i] = 1.0;
                if job.reports.iter().all(Option::is_some) {
                    RunOutcome::Settled(Box::new(p.jobs.remove(j)), None)
                } else {
                    RunOutcome::Quiet
                }
            }
            Event::Failed(_, msg) => RunOutcome::Settled(Box::new(p.jobs.remove(j)), Some(msg)),
            // The API submits whole links only: a part is none of its calls'.
            Event::Part(..) => RunOutcome::Quiet,
        }
    });
    match outcome {
        RunOutcome::Quiet => {}
        RunOutcome::Progress(cb, f) => drop(cb.call1(&JsValue::NULL, &JsValue::from_f64(f))),
        RunOutcome::Settled(job, failed) => settle(*job, failed),
    }
}

fn settle(mut job: ApiRun, failed: Option<String>) {
    if let Some(msg) = failed {
        let _ = job.reject.call1(&JsValue::NULL, &error(&msg));
        return;
    }
    let reports: Vec<SimReport> = job.reports.drain(..).flatten().collect();
    let done = job.finish.take().map(|f| f(reports));
    match done {
        Some(Ok(v)) => drop(job.resolve.call1(&JsValue::NULL, &v)),
        Some(Err(e)) => drop(job.reject.call1(&JsValue::NULL, &e)),
        None => {}
    }
}

/// The options object's `onProgress` and `signal`, each optional.
fn options(
    opts: &JsValue,
) -> Result<(Option<js_sys::Function>, Option<web_sys::AbortSignal>), String> {
    if opts.is_undefined() || opts.is_null() {
        return Ok((None, None));
    }
    let get = |k: &str| js_sys::Reflect::get(opts, &k.into()).unwrap_or(JsValue::UNDEFINED);
    let progress = get("onProgress");
    let signal = get("signal");
    let progress = match progress.dyn_into::<js_sys::Function>() {
        Ok(f) => Some(f),
        Err(v) if v.is_undefined() => None,
        Err(_) => return Err("onProgress: expected a function".into()),
    };
    let signal = match signal.dyn_into::<web_sys::AbortSignal>() {
        Ok(s) => Some(s),
        Err(v) if v.is_undefined() => None,
        Err(_) => return Err("signal: expected an AbortSignal".into()),
    };
    Ok((progress, signal))
}

fn abort_error(what: &str) -> JsValue {
    let e = js_sys::Error::new(&format!("{what}: aborted"));
    e.set_name("AbortError");
    e.into()
}

/// Starts `links` for one call and returns its Promise.
fn start(
    what: &'static str,
    links: Vec<String>,
    opts: &JsValue,
    finish: Finish,
) -> js_sys::Promise {
    let (on_progress, signal) = match options(opts) {
        Ok(o) => o,
        Err(e) => return js_sys::Promise::reject(&error(&e)),
    };
    if signal.as_ref().is_some_and(web_sys::AbortSignal::aborted) {
        return js_sys::Promise::reject(&abort_error(what));
    }
    let mut settle_with = None;
    let promise =
        js_sys::Promise::new(&mut |resolve, reject| settle_with = Some((resolve, reject)));
    let Some((resolve, reject)) = settle_with else {
        return promise;
    };
    let n = links.len();
    let ids = POOL.with(|p| {
        let mut p = p.borrow_mut();
        let exec = p.exec.get_or_insert_with(|| {
            Exec::new(
                Closure::<dyn Fn()>::new(queue_poll)
                    .into_js_value()
                    .unchecked_into(),
            )
        });
        let ids = exec.submit(links, true);
        p.jobs.push(ApiRun {
            ids: ids.clone(),
            reports: vec![None; n],
            fractions: vec![0.0; n],
            finish: Some(finish),
            resolve,
            reject,
            on_progress,
        });
        ids
    });
    if let Some(s) = signal {
        watch(what, &s, ids);
    }
    queue_poll();
    promise
}

/// Rejects the call of `ids` when `signal` aborts, and stops its links if nothing else runs.
fn watch(what: &'static str, signal: &web_sys::AbortSignal, ids: Vec<u32>) {
    let on_abort = Closure::once_into_js(move || {
        let job = POOL.with(|p| {
            let mut p = p.borrow_mut();
            let j = p.jobs.iter().position(|j| j.ids == ids)?;
            let job = p.jobs.remove(j);
            if p.jobs.is_empty() {
                if let Some(exec) = p.exec.as_mut() {
                    exec.cancel_all();
                }
            }
            Some(job)
        });
        if let Some(job) = job {
            let _ = job.reject.call1(&JsValue::NULL, &abort_error(what));
        }
    });
    let _ = signal.add_event_listener_with_callback("abort", on_abort.unchecked_ref());
}

fn rejected(msg: &str) -> js_sys::Promise {
    js_sys::Promise::reject(&error(msg))
}

/// `retrylab run --format json`: resolves to `{link, scenario, runs, summary, series}`.
#[wasm_bindgen(js_name = run)]
pub fn api_run(link: JsValue, opts: JsValue) -> js_sys::Promise {
    let p = match link_text(&link).and_then(|q| inputs::run_params(&q)) {
        Ok(p) => p,
        Err(e) => return rejected(&e),
    };
    if let Err(e) = retry_model::sim::Run::new(&p) {
        return rejected(&e.to_string());
    }
    let links = vec![p_text(&p)];
    let finish: Finish = Box::new(move |r| to_js(&json::RunDoc::new(&p, &r[0])));
    start("run", links, &opts, finish)
}

fn p_text(p: &Params) -> String {
    p.to_string()
}

/// `retrylab compare --format json`: two links, or one with `b.` keys (then `b` is `null` or
/// left out); resolves to `{a: {link, summary}, b: {link, summary}}`.
#[wasm_bindgen(js_name = compare)]
pub fn api_compare(a: JsValue, b: JsValue, opts: JsValue) -> js_sys::Promise {
    let qb = if b.is_undefined() || b.is_null() {
        Ok(None)
    } else {
        link_text(&b).map(Some)
    };
    let sides = link_text(&a).and_then(|qa| inputs::compare_sides(&qa, qb?.as_deref()));
    let (pa, pb) = match sides {
        Ok(s) => s,
        Err(e) => return rejected(&e),
    };
    for p in [&pa, &pb] {
        if let Err(e) = retry_model::sim::Run::new(p) {
            return rejected(&e.to_string());
        }
    }
    let links = vec![p_text(&pa), p_text(&pb)];
    let finish: Finish = Box::new(move |r| {
        to_js(&json::CompareDoc::new(
            &pa,
            &r[0].summary,
            &pb,
            &r[1].summary,
        ))
    });
    start("compare", links, &opts, finish)
}

/// `retrylab sweep --format json`: the sweep in the link's `sweep.` keys, or `params` as
/// `--param` specs (`["backoff=none,full"]`, or `{backoff: "none,full"}`); resolves to
/// `{link, rows}`.
#[wasm_bindgen(js_name = sweep)]
pub fn api_sweep(link: JsValue, params: JsValue, opts: JsValue) -> js_sys::Promise {
    let plan = link_text(&link)
        .and_then(|q| Ok((q, specs(&params)?)))
        .and_then(|(q, s)| inputs::sweep_plan(&q, &s));
    let (base, keys, rows) = match plan {
        Ok(p) => p,
        Err(e) => return rejected(&e),
    };
    let links = rows.iter().map(|(_, p)| p_text(p)).collect();
    let values: Vec<Vec<String>> = rows.into_iter().map(|(v, _)| v).collect();
    let finish: Finish = Box::new(move |reports| {
        let rows: Vec<(Vec<String>, retry_model::sim::Summary)> = values
            .into_iter()
            .zip(reports.into_iter().map(|r| r.summary))
            .collect();
        to_js(&json::SweepDoc::new(&base, &keys, &rows))
    });
    start("sweep", links, &opts, finish)
}

/// `--param` specs from an array of strings or an object of key to values.
fn specs(v: &JsValue) -> Result<Vec<String>, String> {
    if v.is_undefined() || v.is_null() {
        return Ok(Vec::new());
    }
    if js_sys::Array::is_array(v) {
        let a: &js_sys::Array = v.unchecked_ref();
        return a
            .iter()
            .map(|s| {
                s.as_string().ok_or_else(|| {
                    "--param: expected strings like \"clients=10..190/10\"".to_string()
                })
            })
            .collect();
    }
    let q = link_text(v)?;
    Ok(q.split('&')
        .filter(|s| !s.is_empty())
        .map(percent_decoded)
        .collect())
}

/// A `key=values` spec back from [`crate::api::query_of`]'s encoding.
fn percent_decoded(s: &str) -> String {
    js_sys::decode_uri_component(s)
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_else(|| s.to_string())
}
