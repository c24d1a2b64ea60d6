//! The simulation commands: `run`, `compare`, `sweep`.

use crate::json;
use retry_model::sim::{Run, SimReport, Summary};
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

fn ms(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |x| format!("{x:.1} ms"))
}

pub fn cmd_run(text: &str, fmt: &str) -> Result<String, String> {
    let p = params(text)?;
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
    let first = params(qa).map_err(|e| format!("A: {e}"))?;
    let (pa, pb) = match (qb, first.side_b()) {
        (Some(_), Some(_)) => {
            return Err("b: give one link with b. keys, or two links, not both".into())
        }
        (Some(qb), None) => (first.clone(), params(qb).map_err(|e| format!("B: {e}"))?),
        (None, Some(b)) => (
            retry_model::Params {
                compare: None,
                ..first.clone()
            },
            b.clone(),
        ),
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

/// `key=a..b/step` or `key=x,y,z`.
fn param_values(spec: &str) -> Result<(String, Vec<String>), String> {
    let (key, values) = spec
        .split_once('=')
        .ok_or_else(|| format!("--param: '{spec}' should be key=a..b/step or key=x,y,z"))?;
    if let Some((range, step)) = values
        .split_once('/')
        .or_else(|| values.contains("..").then_some((values, "1")))
    {
        let (lo, hi) = range
            .split_once("..")
            .ok_or_else(|| format!("--param: '{values}' should be a..b/step"))?;
        let parse = |s: &str| {
            s.trim()
                .parse::<u64>()
                .map_err(|_| format!("--param: '{s}' in '{spec}' is not a whole number"))
        };
        let (lo, hi, step) = (parse(lo)?, parse(hi)?, parse(step)?);
        if step == 0 || hi < lo || (hi - lo) / step >= 1000 {
            return Err(format!(
                "--param: '{spec}' needs lo <= hi, a step > 0 and at most 1000 values"
            ));
        }
        return Ok((
            key.to_string(),
            (lo..=hi)
                .step_by(step as usize)
                .map(|v| v.to_string())
                .collect(),
        ));
    }
    let list: Vec<String> = values
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    if list.is_empty() {
        return Err(format!("--param: '{spec}' lists no values"));
    }
    Ok((key.to_string(), list))
}

/// Runs every row on all cores (rows are independent, so the output is the same whatever the
/// number of threads) with `std::thread::scope`: workers take the next row from a shared index
/// and publish their row's progress; this thread prints the whole sweep's progress about every
/// second once it has taken more than one.
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
    std::thread::scope(|scope| {
        for w in 0..threads {
            let (next, done, partial, results) = (&next, &done, &partial, &results);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Relaxed);
                if i >= total {
                    break;
                }
                let summary = Run::new(&jobs[i].1).ok().map(|mut run| {
                    drive(&mut run, |f| partial[w].store((f * 1000.0) as u32, Relaxed));
                    run.finish().summary
                });
                partial[w].store(0, Relaxed);
                if let Ok(mut r) = results.lock() {
                    r[i] = summary;
                }
                done.fetch_add(1, Relaxed);
            });
        }
        let mut shown = false;
        let mut last = started;
        while done.load(Relaxed) < total {
            std::thread::sleep(Duration::from_millis(50));
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

/// The most rows (combinations of `--param` values) one sweep runs.
pub const MAX_ROWS: usize = 2000;

pub fn cmd_sweep(query: &str, specs: &[String], fmt: &str) -> Result<String, String> {
    let base = params(query)?;
    if specs.is_empty() {
        return Err("--param: give at least one, e.g. --param clients=10..190/10".into());
    }
    let axes: Vec<(String, Vec<String>)> = specs
        .iter()
        .map(|s| param_values(s))
        .collect::<Result<_, _>>()?;
    let jobs = sweep_jobs(&base, &axes)?;
    let results = run_rows(&jobs);
    let mut rows: Vec<(Vec<String>, Summary)> = Vec::with_capacity(jobs.len());
    for ((values, _), r) in jobs.into_iter().zip(results) {
        let s = r.ok_or_else(|| format!("--param {}: the run failed", values.join(",")))?;
        rows.push((values, s));
    }
    let keys: Vec<&str> = axes.iter().map(|(k, _)| k.as_str()).collect();
    match fmt {
        "json" => json::pretty(&json::SweepDoc::new(&base, &keys, &rows)),
        "csv" => Ok(sweep_csv(&keys, &rows)),
        _ => Ok(sweep_markdown(&base, &keys, &rows)),
    }
}

/// Every combination of the axes' values as a row's link, checked (errors name the value)
/// before anything runs; at most [`MAX_ROWS`], counted without overflow.
fn sweep_jobs(
    base: &Params,
    axes: &[(String, Vec<String>)],
) -> Result<Vec<(Vec<String>, Params)>, String> {
    let total = axes.iter().try_fold(1usize, |acc, (_, v)| {
        acc.checked_mul(v.len()).filter(|n| *n <= MAX_ROWS)
    });
    let Some(total) = total else {
        let sizes: Vec<String> = axes.iter().map(|(_, v)| v.len().to_string()).collect();
        return Err(format!(
            "--param: {} combinations is more than the {MAX_ROWS} rows a sweep runs",
            sizes.join(" x ")
        ));
    };
    let mut jobs = Vec::with_capacity(total);
    for n in 0..total {
        let mut idx = n;
        let mut p = base.clone();
        let mut values = Vec::new();
        for (key, vals) in axes.iter().rev() {
            let v = &vals[idx % vals.len()];
            idx /= vals.len();
            p.set(key, v).map_err(|e| format!("--param: {e}"))?;
            values.push(v.clone());
        }
        values.reverse();
        // Checks the row's values and caps; it builds the first repetition and runs nothing.
        Run::new(&p).map_err(|e| format!("--param {}: {e}", values.join(",")))?;
        jobs.push((values, p));
    }
    Ok(jobs)
}

fn sweep_csv(keys: &[&str], rows: &[(Vec<String>, Summary)]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{},originals,attempts,amplification,successes,success_rate,peak_attempts_per_s,completion_ms,p50_ms,p99_ms,duplicates", keys.join(","));
    for (vals, s) in rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{}",
            vals.join(","),
            s.originals,
            s.attempts,
            s.amplification,
            s.successes,
            s.success_rate,
            s.peak_attempts_per_s,
            s.completion_ms,
            s.p50_ms.map_or(String::new(), |v| v.to_string()),
            s.p99_ms.map_or(String::new(), |v| v.to_string()),
            s.duplicates
        );
    }
    out
}

fn sweep_markdown(base: &Params, keys: &[&str], rows: &[(Vec<String>, Summary)]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "`?{base}`\n");
    let _ = writeln!(out, "| {} | originals | attempts | amplification | success | peak att/s | completion | p50 | p99 | duplicates |", keys.join(" | "));
    let _ = writeln!(
        out,
        "|{}---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        "---|".repeat(keys.len())
    );
    for (vals, s) in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.2}x | {:.1}% | {:.0} | {:.0} ms | {} | {} | {} |",
            vals.join(" | "),
            s.originals,
            s.attempts,
            s.amplification,
            s.success_rate * 100.0,
            s.peak_attempts_per_s,
            s.completion_ms,
            ms(s.p50_ms),
            ms(s.p99_ms),
            s.duplicates
        );
    }
    out
}
