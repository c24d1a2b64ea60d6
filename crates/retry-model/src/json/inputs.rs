//! What the two front ends are asked for, read and checked in one place: the CLI's arguments
//! (`retrylab compare A B`, `--param`, `--clients`, `--p`) and the page's JavaScript API calls
//! (`retrylab.compare(a, b)`, ...) go through these functions, so a bad input gets the same
//! one-line message in both.
//!
//! ```
//! use retry_model::json::inputs;
//! let e = inputs::amplify_of("3,3", Some("-1")).unwrap_err();
//! assert_eq!(e, "--p: '-1' is not a probability in [0, 1]");
//! let (a, b) = inputs::compare_sides("preset=payments-none&b.preset=payments-jitter", None).unwrap();
//! assert_ne!(a, b);
//! ```

use crate::link::sweep::{values, Axis};
use crate::request::amplify::{amplify, Amplification};
use crate::request::schedule::{schedule, Schedule};
use crate::request::trace::{trace, Trace};
use crate::retry::error::ConfigError;
use crate::{all_keys, Params, MAX_CLIENTS};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// Reads a link, strictly: the first bad key's one-line message.
pub fn params(query: &str) -> Result<Params, String> {
    query.parse::<Params>().map_err(|e| e.to_string())
}

/// A link and its request's trace (`explain`).
pub fn explain_of(query: &str) -> Result<(Params, Trace), String> {
    let p = params(query)?;
    let t = trace(&p).map_err(|e| e.to_string())?;
    Ok((p, t))
}

/// A link and its schedule (`schedule`), `clients` overriding the link's when given.
pub fn schedule_of(query: &str, clients: Option<&str>) -> Result<(Params, Schedule), String> {
    let mut p = params(query)?;
    if let Some(c) = clients {
        p.clients = match c.parse::<u32>() {
            Ok(n) if (1..=MAX_CLIENTS).contains(&n) => n,
            _ => {
                return Err(format!(
                    "--clients: '{c}' is not a whole number in [1, {MAX_CLIENTS}]"
                ))
            }
        };
    }
    let s = schedule(&p).map_err(|e| match clients {
        // The flag set the value, so the message names the flag.
        Some(_) if e.field == "clients" => format!("--clients: {}", e.rule),
        _ => e.to_string(),
    })?;
    if let Some(b) = p.side_b() {
        let mut b = b.clone();
        b.clients = p.clients;
        schedule(&b).map_err(|e| format!("B: {e}"))?;
    }
    Ok((p, s))
}

/// The layer arithmetic (`amplify 3,3,3 --p 0.5`).
pub fn amplify_of(layers_text: &str, p: Option<&str>) -> Result<Amplification, String> {
    let layers: Vec<u32> = layers_text
        .split(',')
        .map(|k| k.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("layers: '{layers_text}' is not a comma-separated list of attempts per layer in [1, 100]"))?;
    let p = match p {
        None => 1.0,
        Some(v) => match crate::decimal_f64(v) {
            Some(x) if x.is_finite() && (0.0..=1.0).contains(&x) => x,
            _ => return Err(format!("--p: '{v}' is not a probability in [0, 1]")),
        },
    };
    amplify(&layers, p).map_err(|e| e.to_string())
}

/// Refuses a link with `sweep.` keys where one run is wanted.
fn no_sweep(p: &Params, cmd: &str) -> Result<(), String> {
    match p.sweep() {
        Some(s) => Err(format!(
            "sweep: this link sweeps {}; run it with `retrylab sweep`, not `{cmd}`",
            s.axes
                .iter()
                .map(|a| a.key)
                .collect::<Vec<_>>()
                .join(" and ")
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

/// The link of `run`: one side, no sweep.
pub fn run_params(query: &str) -> Result<Params, String> {
    let p = params(query)?;
    no_sweep(&p, "run")?;
    no_side_b(&p, "run")?;
    Ok(p)
}

/// The two sides of `compare A [B]`: two links, or one whose `b.` keys give side B. An error
/// in a `b.` key is side B's and says so with the key as written (`B: b.base: ...`).
pub fn compare_sides(qa: &str, qb: Option<&str>) -> Result<(Params, Params), String> {
    let side = |e: ConfigError| match e.field {
        "b" => format!("B: {}", e.rule),
        _ => format!("A: {e}"),
    };
    let first = qa.parse::<Params>().map_err(side)?;
    no_sweep(&first, "compare")?;
    match (qb, first.side_b()) {
        (Some(_), Some(_)) => Err("b: give one link with b. keys, or two links, not both".into()),
        (Some(qb), None) => Ok((first.clone(), params(qb).map_err(|e| format!("B: {e}"))?)),
        (None, Some(b)) => Ok((first.side_a(), b.clone())),
        (None, None) => Err("b: nothing to compare: give two links, or b. keys for the second side (b.preset=payments-jitter)".into()),
    }
}

/// `key=a..b/step` or `key=x,y,z`, the key checked against the link's vocabulary.
fn param_axis(spec: &str) -> Result<Axis, String> {
    let (key, list) = spec
        .split_once('=')
        .ok_or_else(|| format!("--param: '{spec}' should be key=a..b/step or key=x,y,z"))?;
    let key = all_keys()
        .find(|k| *k == key)
        .ok_or_else(|| format!("--param: unknown key '{key}': `retrylab keys` lists them"))?;
    let values = values(list).map_err(|e| format!("--param: {e}"))?;
    Ok(Axis {
        key,
        spec: spec.to_string(),
        values,
    })
}

/// A sweep's plan: the link without its sweep, the swept keys, and every row (its values and
/// its link), all checked before anything runs. The axes come from `--param` specs or from
/// the link's `sweep.` keys, not both.
pub type SweepPlan = (Params, Vec<&'static str>, Vec<(Vec<String>, Params)>);

/// Reads `sweep '<link>' --param k=values ...`, or a link with `sweep.` keys.
pub fn sweep_plan(query: &str, specs: &[String]) -> Result<SweepPlan, String> {
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
    let base = link.sweep_base();
    let rows = base
        .sweep_rows(&axes)
        .map_err(|e| format!("--param: {e}"))?;
    Ok((base, axes.iter().map(|a| a.key).collect(), rows))
}
