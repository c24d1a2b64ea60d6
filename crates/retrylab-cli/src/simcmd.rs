//! The simulation commands: `run`, `compare`, `sweep`.

use crate::json;
use retry_model::link_sweep::Axis;
use retry_model::sim::{sweep_csv, sweep_markdown, Run, SimReport, Summary};
use retry_model::Params;
use std::fmt::Write;
use std::io::Write as _;
use std::time::{Duration, Instant};

/// Events per slice: small enough that a slice takes well under a second even when one event
/// settles a tick of thousands of attempts (a burst at its caps).
const SLICE: u64 = 2_000;

/// Runs `run` to the end in slices, calling `report(fraction)` after each.
fn drive(run: &mut Run, mut report: impl FnMut(f64)) {
    loop {
        let prog = run.step(SLICE);
        if prog.done {
            return;
        }
        report(prog.fraction);
    }
}

/// Runs a link, printing progress on stderr about every second once it takes more than one.
pub fn simulate_with_progress(p: &Params, label: &str) -> Result<SimReport, String> {
    let mut run = Run::new(p).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let mut last = started;
    let mut shown = false;
    drive(&mut run, |fraction| {
        if last.elapsed() >= Duration::from_secs(1) {
            last = Instant::now();
            shown = true;
            eprint!("\r[{label}] {:5.1}% ", fraction * 100.0);
            let _ = std::io::stderr().flush();
        }
    });
    if shown {
        eprintln!(
            "\r[{label}] done in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    Ok(run.finish())
}

fn params(text: &str) -> Result<Params, String> {
    text.parse::<Params>().map_err(|e| e.to_string())
}

/// Refuses a link with `sweep.` keys where one run is wanted.
fn no_sweep(p: &Params, cmd: &str) -> Result<(), String> {
    match p.sweep() {
        Some(_) => Err(format!(
            "sweep: this link sweeps {}; run it with `retrylab sweep`, not `{cmd}`",
            p.sweep().map_or(String::new(), |s| s
                .axes
                .iter()
                .map(|a| a.key)
                .collect::<Vec<_>>()
                .join(" and "))
        )),
        None => Ok(()),
    }
}

/// Refuses a link with `b.` keys where one side is wanted, naming the first `b.` key.
fn no_side_b(p: &Params, cmd: &str) -> Result<(), String> {
    match p.side_b_text().split('&').find(|s| !s.is_empty()) {
        Some(first) => {
            let key = first.split('=').next().unwrap_or(first);
            Err(format!(
                "b.{key}: this link compares two sides; run it with `retrylab compare`, not `{cmd}`"
            ))
        }
        None => Ok(()),
    }
}

pub fn cmd_run(text: &str, fmt: &str) -> Result<String, String> {
    let p = params(text)?;
    no_sweep(&p, "run")?;
    no_side_b(&p, "run")?;
    let r = simulate_with_progress(&p, "run")?;
    let mut out = String::new();
    match fmt {
        "json" => out.push_str(&json::pretty(&json::RunDoc::new(&p, &r))?),
        "csv" => out.push_str(&retry_model::sim::series_csv(&r.series)),
        "markdown" => out.push_str(&retry_model::sim::summary_markdown(&r.summary)),
        _ => {
            let _ = writeln!(
                out,
                "{} ({} scenario{})",
                p,
                r.scenario.name(),
                if r.runs > 1 {
                    format!(", mean of {} runs", r.runs)
                } else {
                    String::new()
                }
            );
            for (k, v) in r.summary.rows() {
                let _ = writeln!(out, "  {k:<26} {v}");
            }
        }
    }
    Ok(out)
}

/// `retrylab compare '<A>' '<B>'`, or one link whose `b.` keys give side B.
pub fn cmd_compare(qa: &str, qb: Option<&str>, fmt: &str) -> Result<String, String> {
    // An error in a `b.` key is side B's, and says so with the key as written (`B: b.base: ...`).
    let side = |e: retry_model::ConfigError| match e.field {
        "b" => format!("B: {}", e.rule),
        _ => format!("A: {e}"),
    };
    let first = qa.parse::<Params>().map_err(side)?;
    no_sweep(&first, "compare")?;
    let (pa, pb) = match (qb, first.side_b()) {
        (Some(_), Some(_)) => {
            return Err("b: give one link with b. keys, or two links, not both".into())
        }
        (Some(qb), None) => (first.clone(), params(qb).map_err(|e| format!("B: {e}"))?),
        (None, Some(b)) => (first.side_a(), b.clone()),
        (None, None) => {
            return Err("b: nothing to compare: give two links, or b. keys for the second side (b.preset=payments-jitter)".into())
        }
    };
    let ra = simulate_with_progress(&pa, "A")?;
    let rb = simulate_with_progress(&pb, "B")?;
    if fmt == "json" {
        return json::pretty(&json::CompareDoc::new(&pa, &ra.summary, &pb, &rb.summary));
    }
    Ok(retry_model::sim::compare_markdown(
        &pa.to_string(),
        &ra.summary,
        &pb.to_string(),
        &rb.summary,
    ))
}

/// `key=a..b/step` or `key=x,y,z`, the key checked against the link's vocabulary.
fn param_axis(spec: &str) -> Result<Axis, String> {
    let (key, values) = spec
        .split_once('=')
        .ok_or_else(|| format!("--param: '{spec}' should be key=a..b/step or key=x,y,z"))?;
    let key = retry_model::all_keys()
        .find(|k| *k == key)
        .ok_or_else(|| format!("--param: unknown key '{key}': `retrylab keys` lists them"))?;
    let values = retry_model::link_sweep::values(values).map_err(|e| format!("--param: {e}"))?;
    Ok(Axis {
        key,
        spec: spec.to_string(),
        values,
    })
}

/// Runs every row on all cores (rows are independent, so the output is the same whatever the
/// number of threads) with `std::thread::scope`: workers take the next row from a shared index
/// and publish their row's progress; this thread prints the whole sweep's progress about every
/// second once it has taken more than one.
///
/// Rows are taken last first: a sweep's later values are most often its heavier runs (more
/// clients, longer outages), so the last row to finish is a light one and no core waits long
/// for the others. A finished row wakes this thread at once (a channel), so the sweep ends
/// when its last row does. Not rayon: a scope, an index and a channel are the whole pool, and
/// each worker needs its own progress slot.
fn run_rows(jobs: &[(Vec<String>, Params)]) -> Vec<Option<Summary>> {
    use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed};
    use std::sync::Mutex;
    let total = jobs.len();
    let started = Instant::now();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(total.max(1));
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    // Per worker: thousandths of its current row.
    let partial: Vec<AtomicU32> = (0..threads).map(|_| AtomicU32::new(0)).collect();
    let results: Mutex<Vec<Option<Summary>>> = Mutex::new(vec![None; total]);
    let (finished, wake) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| {
        for w in 0..threads {
            let (next, done, partial, results) = (&next, &done, &partial, &results);
            let finished = finished.clone();
            scope.spawn(move || loop {
                let taken = next.fetch_add(1, Relaxed);
                if taken >= total {
                    break;
                }
                let i = total - 1 - taken;
                let summary = Run::new(&jobs[i].1).ok().map(|mut run| {
                    drive(&mut run, |f| partial[w].store((f * 1000.0) as u32, Relaxed));
                    run.finish().summary
                });
                partial[w].store(0, Relaxed);
                if let Ok(mut r) = results.lock() {
                    r[i] = summary;
                }
                done.fetch_add(1, Relaxed);
                let _ = finished.send(());
            });
        }
        drop(finished);
        let mut shown = false;
        let mut last = started;
        while done.load(Relaxed) < total {
            if let Err(std::sync::mpsc::RecvTimeoutError::Disconnected) =
                wake.recv_timeout(Duration::from_millis(100))
            {
                break;
            }
            if started.elapsed() >= Duration::from_secs(1)
                && last.elapsed() >= Duration::from_millis(500)
            {
                last = Instant::now();
                let d = done.load(Relaxed);
                let within: f64 = partial
                    .iter()
                    .map(|p| f64::from(p.load(Relaxed)) / 1000.0)
                    .sum();
                let pct = (d as f64 + within) / total as f64 * 100.0;
                eprint!("\r[sweep] {d}/{total} rows, {pct:5.1}% ");
                let _ = std::io::stderr().flush();
                shown = true;
            }
        }
        if shown {
            eprintln!(
                "\r[sweep] {total} rows in {:.1} s on {threads} threads",
                started.elapsed().as_secs_f64()
            );
        }
    });
    results.into_inner().unwrap_or_default()
}

/// `retrylab sweep '<link>' --param k=values ...`, or a link with `sweep.` keys.
pub fn cmd_sweep(query: &str, specs: &[String], fmt: &str) -> Result<String, String> {
    let link = params(query)?;
    no_side_b(&link, "sweep")?;
    if link.sim.scenario.is_none() {
        return Err("scenario: a sweep runs simulations and this link has none; add scenario=outage, burst, occ, layers or lost (or a scenario preset)".into());
    }
    let axes: Vec<Axis> = match (link.sweep(), specs.is_empty()) {
        (Some(_), false) => {
            return Err("--param: give the sweep in the link (sweep. keys) or as --param, not both".into())
        }
        (Some(s), true) => s.axes.clone(),
        (None, true) => {
            return Err("--param: give at least one, e.g. --param clients=10..190/10 (or sweep.clients=10..190/10 in the link)".into())
        }
        (None, false) => specs.iter().map(|s| param_axis(s)).collect::<Result<_, _>>()?,
    };
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].iter().any(|b| b.key == a.key) {
            return Err(format!(
                "--param {}: given more than once; give all its values in one --param ({}=a,b,c)",
                a.key, a.key
            ));
        }
    }
    let base = Params {
        sweep: None,
        ..link.clone()
    };
    let jobs = base
        .sweep_rows(&axes)
        .map_err(|e| format!("--param: {e}"))?;
    let results = run_rows(&jobs);
    let mut rows: Vec<(Vec<String>, Summary)> = Vec::with_capacity(jobs.len());
    for ((values, _), r) in jobs.into_iter().zip(results) {
        let s = r.ok_or_else(|| format!("--param {}: the run failed", values.join(",")))?;
        rows.push((values, s));
    }
    let keys: Vec<&str> = axes.iter().map(|a| a.key).collect();
    match fmt {
        "json" => json::pretty(&json::SweepDoc::new(&base, &keys, &rows)),
        "csv" => Ok(sweep_csv(&keys, &rows)),
        _ => Ok(sweep_markdown(&base.to_string(), &keys, &rows)),
    }
}
