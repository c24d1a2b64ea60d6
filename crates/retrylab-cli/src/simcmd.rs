//! The simulation commands: `run`, `compare`, `sweep`.

use crate::json;
use retry_model::json::inputs;
use retry_model::sim::chain::SolveStage;
use retry_model::sim::{sweep_csv, sweep_grids, sweep_markdown, Run, SimReport, Summary};
use retry_model::Params;
use std::fmt::Write;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
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

/// Runs a link, printing progress on stderr from half a second in, then about every second.
/// A link with several runs spreads them over the cores ([`simulate_replicates`]).
pub fn simulate_with_progress(p: &Params, label: &str) -> Result<SimReport, String> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if p.sim.runs.0 > 1 && threads > 1 {
        return simulate_replicates(p, label, threads.min(p.sim.runs.0 as usize));
    }
    let mut run = Run::new(p).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let mut last = started;
    let mut shown = false;
    drive(&mut run, |fraction| {
        // The first line within half a second, then one a second.
        let every = if shown { 1000 } else { 500 };
        if last.elapsed() >= Duration::from_millis(every) {
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

/// A link's runs on `threads` cores: each thread runs a contiguous part of the runs (each run
/// its own streams of the seed, as on one core), and the parts are joined in order
/// (`RunParts::join`), so the report is the one a single core gives, to the bit. With
/// `sequential` the runs go in rounds of two a thread until the share that recovered is clear
/// of one half. Progress on stderr as [`simulate_with_progress`] prints it.
pub fn simulate_replicates(p: &Params, label: &str, threads: usize) -> Result<SimReport, String> {
    use retry_model::sim::{RunInput, RunParts};
    use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed};
    let input = RunInput::try_from(p).map_err(|e| e.to_string())?;
    Run::check(p).map_err(|e| e.to_string())?;
    let total = p.sim.runs.0;
    let round = if p.sim.stops_early() {
        2 * threads as u32
    } else {
        total
    };
    let started = Instant::now();
    let mut parts: Vec<RunParts> = Vec::new();
    let mut made = 0u32;
    while made < total {
        let n = round.min(total - made);
        let chunks: Vec<(u32, u32)> = (0..threads as u32)
            .map(|t| {
                (
                    made + n * t / threads as u32,
                    made + n * (t + 1) / threads as u32,
                )
            })
            .filter(|(a, b)| b > a)
            .collect();
        let partial: Vec<AtomicU32> = chunks.iter().map(|_| AtomicU32::new(0)).collect();
        let done = AtomicUsize::new(0);
        let results: Vec<Result<RunParts, String>> = std::thread::scope(|scope| {
            let workers: Vec<_> = chunks
                .iter()
                .enumerate()
                .map(|(i, &(a, b))| {
                    let (input, partial, done) = (input.clone(), &partial, &done);
                    scope.spawn(move || {
                        let mut run =
                            Run::replicates(input, a, b - a).map_err(|e| e.to_string())?;
                        drive(&mut run, |f| partial[i].store((f * 1000.0) as u32, Relaxed));
                        done.fetch_add(1, Relaxed);
                        Ok(run.finish_parts())
                    })
                })
                .collect();
            watch_replicates(label, started, (made, n, total), &chunks, &partial, &done);
            workers
                .into_iter()
                .map(|w| w.join().unwrap_or_else(|_| Err("a run panicked".into())))
                .collect()
        });
        for r in results {
            parts.push(r?);
        }
        made += n;
        if p.sim.stops_early() && RunParts::settled(&parts) {
            break;
        }
    }
    if started.elapsed() >= Duration::from_millis(500) {
        eprintln!(
            "\r[{label}] done in {:.1} s on {threads} threads",
            started.elapsed().as_secs_f64()
        );
    }
    Ok(RunParts::join(&input, parts))
}

/// Prints the replicates' progress about every second from half a second in, until every
/// chunk of the round is done.
fn watch_replicates(
    label: &str,
    started: Instant,
    (made, n, total): (u32, u32, u32),
    chunks: &[(u32, u32)],
    partial: &[std::sync::atomic::AtomicU32],
    done: &std::sync::atomic::AtomicUsize,
) {
    use std::sync::atomic::Ordering::Relaxed;
    let mut next = Duration::from_millis(500);
    while done.load(Relaxed) < chunks.len() {
        std::thread::sleep(Duration::from_millis(20));
        if started.elapsed() < next {
            continue;
        }
        next += Duration::from_secs(1);
        let within: f64 = chunks
            .iter()
            .zip(partial)
            .map(|(&(a, b), f)| f64::from(b - a) * f64::from(f.load(Relaxed)) / 1000.0)
            .sum();
        let fraction = (f64::from(made) + within.min(f64::from(n))) / f64::from(total);
        eprint!("\r[{label}] {:5.1}% ", fraction * 100.0);
        let _ = std::io::stderr().flush();
    }
}

/// Solves a link's analytic twin, printing the part of the solve under way on stderr from half
/// a second in, then every second (a solve may take about 5 s). The solve cannot stop to
/// print, so a second thread watches the part it last said it began.
pub fn analyze_with_progress(p: &Params) -> Result<retry_model::Analysis, String> {
    let under_way = Mutex::new((SolveStage::Build, 0usize));
    let done = AtomicBool::new(false);
    let started = Instant::now();
    std::thread::scope(|s| {
        s.spawn(|| watch_solve(&under_way, &done, started));
        let a = retry_model::analyze_reporting(p, usize::MAX, &mut |stage, states| {
            if let Ok(mut u) = under_way.lock() {
                *u = (stage, states);
            }
        });
        done.store(true, Ordering::Relaxed);
        a.map_err(|e| e.to_string())
    })
}

/// Prints the solve's part under way until `done`, then how long it took, if anything was
/// printed.
fn watch_solve(under_way: &Mutex<(SolveStage, usize)>, done: &AtomicBool, started: Instant) {
    let mut next = Duration::from_millis(500);
    let mut shown = false;
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(20));
        if started.elapsed() < next {
            continue;
        }
        next += Duration::from_secs(1);
        shown = true;
        let (stage, states) = under_way
            .lock()
            .map(|u| *u)
            .unwrap_or((SolveStage::Build, 0));
        let line = format!("{} ({states} states)", stage.words());
        eprint!(
            "\r[analyze] {line:<56} {:.1} s ",
            started.elapsed().as_secs_f64()
        );
        let _ = std::io::stderr().flush();
    }
    if shown {
        eprintln!(
            "\r[analyze] solved in {:.1} s{:<56}",
            started.elapsed().as_secs_f64(),
            ""
        );
    }
}

pub fn cmd_run(text: &str, fmt: &str) -> Result<String, String> {
    let p = inputs::run_params(text)?;
    let r = simulate_with_progress(&p, "run")?;
    let mut out = String::new();
    match fmt {
        "json" => out.push_str(&json::pretty(&json::RunDoc::new(&p, &r))?),
        "csv" => out.push_str(&retry_model::sim::series_csv(&r.series, r.band.as_ref())),
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
            out.push_str(&layer_table(&p));
            if let Some((text, link)) = retry_model::engine_check_note(&p) {
                let _ = writeln!(out, "\n{text} retrylab compare '{link}'");
            }
            if let Some(note) = p.preset.and_then(|x| x.reference_note()) {
                let _ = writeln!(out, "\n{note}");
            }
        }
    }
    Ok(out)
}

/// A `layers` link's stack, one layer a line (the page's table of the stack); empty otherwise.
fn layer_table(p: &retry_model::Params) -> String {
    let rows = p.layer_rows();
    if rows.is_empty() {
        return String::new();
    }
    let mut out = String::from("\nLayers, top first:\n");
    for row in rows {
        let cells = retry_model::layer_keys::LAYER_COLUMNS
            .iter()
            .zip(&row)
            .skip(1);
        let text: Vec<String> = cells.map(|(c, v)| format!("{c}: {v}")).collect();
        let _ = writeln!(out, "  {}\n    {}", row[0], text.join("; "));
    }
    out
}

/// `retrylab compare '<A>' '<B>'`, or one link whose `b.` keys give side B.
pub fn cmd_compare(qa: &str, qb: Option<&str>, fmt: &str) -> Result<String, String> {
    let (pa, pb) = inputs::compare_sides(qa, qb)?;
    // A side the simulator refuses is named, as a side's refused key is.
    let ra = simulate_with_progress(&pa, "A").map_err(|e| format!("A: {e}"))?;
    let rb = simulate_with_progress(&pb, "B").map_err(|e| format!("B: {e}"))?;
    if fmt == "json" {
        return json::pretty(&json::CompareDoc::new(&pa, &ra.summary, &pb, &rb.summary));
    }
    let mut out = retry_model::sim::compare_markdown(
        &pa.to_string(),
        &ra.summary,
        &pb.to_string(),
        &rb.summary,
    );
    if let Some(note) = retry_model::course_note(&pa, &pb) {
        out.push_str(&format!("\n{note}\n"));
    }
    Ok(out)
}

/// `retrylab compare A B --steps`: the before/after table, then the steps from A to B, one
/// piece of the policy at a time, each run on the same seed (on every core, as a sweep's rows).
pub fn cmd_steps(qa: &str, qb: Option<&str>, fmt: &str) -> Result<String, String> {
    let (pa, pb) = inputs::compare_sides(qa, qb)?;
    let steps = pa.steps_to(&pb);
    let jobs: Vec<(Vec<String>, Params)> = steps
        .iter()
        .map(|s| (vec![s.piece.name.to_string()], s.params.clone()))
        .collect();
    let summaries = run_rows(&jobs)
        .into_iter()
        .zip(&steps)
        .map(|(s, st)| s.map_err(|e| format!("step {}: {e}", st.piece.name)))
        .collect::<Result<Vec<Summary>, String>>()?;
    if fmt == "json" {
        return json::pretty(&json::StepsDoc::new(&pa, &pb, &steps, &summaries));
    }
    let (first, last) = (&summaries[0], &summaries[summaries.len() - 1]);
    let mut out = retry_model::sim::compare_markdown(&pa.to_string(), first, &pb.to_string(), last);
    if let Some(note) = retry_model::course_note(&pa, &pb) {
        out.push_str(&format!("\n{note}\n"));
    }
    out.push_str(
        "\nWhich piece solves which part (from A, one piece of B at a time, same seed):\n\n",
    );
    out.push_str(&retry_model::steps_markdown(&steps, &summaries));
    Ok(out)
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
pub fn run_rows(jobs: &[(Vec<String>, Params)]) -> Vec<Result<Summary, String>> {
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
    let results: Mutex<Vec<Result<Summary, String>>> =
        Mutex::new(vec![Err("the run did not finish".to_string()); total]);
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
                let summary = Run::new(&jobs[i].1)
                    .map(|mut run| {
                        drive(&mut run, |f| partial[w].store((f * 1000.0) as u32, Relaxed));
                        run.finish().summary
                    })
                    .map_err(|e| e.to_string());
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
            if started.elapsed() >= Duration::from_millis(500)
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

/// A sweep's row by its keys, as the refusal names it: `sweep row users=15, seed=1`.
pub fn row_name(keys: &[&str], values: &[String]) -> String {
    let pairs: Vec<String> = keys
        .iter()
        .zip(values)
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    format!("sweep row {}", pairs.join(", "))
}

/// `retrylab sweep '<link>' --param k=values ...`, or a link with `sweep.` keys.
pub fn cmd_sweep(query: &str, specs: &[String], fmt: &str) -> Result<String, String> {
    let (base, keys, jobs) = inputs::sweep_plan(query, specs)?;
    let results = run_rows(&jobs);
    let mut rows: Vec<(Vec<String>, Summary)> = Vec::with_capacity(jobs.len());
    for ((values, _), r) in jobs.into_iter().zip(results) {
        let s = r.map_err(|e| format!("{}: {e}", row_name(&keys, &values)))?;
        rows.push((values, s));
    }
    sweep_output(query, &base, &keys, &rows, fmt)
}

/// A sweep's rows in `fmt`, as `retrylab sweep` prints them (and `retrylab merge` from parts).
pub fn sweep_output(
    query: &str,
    base: &retry_model::Params,
    keys: &[&str],
    rows: &[(Vec<String>, Summary)],
    fmt: &str,
) -> Result<String, String> {
    let (keys, rows) = (keys.to_vec(), rows);
    match fmt {
        "json" => json::pretty(&json::SweepDoc::new(base, &keys, rows)),
        "csv" => Ok(sweep_csv(&keys, rows)),
        _ => {
            let mut out = sweep_markdown(&base.to_string(), &keys, rows);
            // A heatmap sweep's grids, as the page draws them.
            let link: Option<retry_model::Params> = query.parse().ok();
            if let Some((p, sw)) = link.as_ref().and_then(|p| Some((p, p.sweep()?))) {
                if sw.is_heatmap() && keys.len() >= 2 {
                    out.push_str(&sweep_grids(&keys, rows, &sw.metrics(p)));
                }
            }
            Ok(out)
        }
    }
}
