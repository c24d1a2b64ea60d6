//! tenacity's `wait`: its strategies and their sums, as the lab's backoff keys.

use crate::common::{seconds as secs, Out};
use crate::python::{Expr, PyCall};
use crate::ImportError;
use retry_model::Micros;

/// The longest wait the lab draws; tenacity's `max` defaults to `sys.maxsize / 2` seconds.
const LONGEST: Micros = Micros::from_secs(86_400);

/// An exponential strategy's arguments, in seconds.
#[derive(Clone, Copy)]
struct Exp {
    /// `wait_exponential`, `wait_random_exponential` or `wait_exponential_jitter`.
    kind: &'static str,
    multiplier: f64,
    max: Option<f64>,
    exp_base: f64,
    min: f64,
    /// `wait_exponential_jitter`'s `jitter`.
    jitter: f64,
}

/// What the terms of a `wait` add up to.
#[derive(Default)]
struct Sum {
    fixed: f64,
    /// `wait_random(min, max)`s, added.
    random: Option<(f64, f64)>,
    exp: Option<Exp>,
    /// `wait_incrementing(start, increment, max)`, in seconds.
    incrementing: Option<(f64, f64, Option<f64>)>,
}

/// The argument `key` (or at `pos`) as a number of seconds, or `default`.
fn num(c: &PyCall, pos: usize, key: &str, default: f64, at: &str) -> Result<f64, ImportError> {
    match c.arg(pos, key) {
        None => Ok(default),
        Some(e) => e.number().ok_or_else(|| {
            ImportError::new(
                format!("{at}.{}.{key}", c.base()),
                format!("'{}' is not a number of seconds", e.text()),
            )
        }),
    }
}

impl Sum {
    fn add(&mut self, e: &Expr, at: &str) -> Result<(), ImportError> {
        if let Expr::Bin('+', a, b) = e {
            return self.add(a, at).and_then(|()| self.add(b, at));
        }
        let Expr::Call(c) = e else {
            return Err(refused(at, &e.text()));
        };
        if c.base() == "wait_combine" {
            return c.args.iter().try_for_each(|a| self.add(a, at));
        }
        match c.base() {
            "wait_none" => {}
            "wait_fixed" => self.fixed += num(c, 0, "wait", 0.0, at)?,
            "wait_random" => {
                let (lo, hi) = (num(c, 0, "min", 0.0, at)?, num(c, 1, "max", 1.0, at)?);
                let (a, b) = self.random.unwrap_or((0.0, 0.0));
                self.random = Some((a + lo, b + hi.max(lo)));
            }
            kind @ ("wait_exponential" | "wait_random_exponential" | "wait_exponential_jitter") => {
                let kind = [
                    "wait_exponential",
                    "wait_random_exponential",
                    "wait_exponential_jitter",
                ]
                .into_iter()
                .find(|k| *k == kind)
                .unwrap_or("wait_exponential");
                if self.exp.is_some() {
                    return Err(ImportError::new(
                        at,
                        "two exponential waits added: nothing close in the lab",
                    ));
                }
                self.exp = Some(exponential(c, kind, at)?);
            }
            "wait_incrementing" => {
                let max = match c.arg(2, "max") {
                    None => None,
                    Some(_) => Some(num(c, 2, "max", 0.0, at)?),
                };
                let (start, step) = (
                    num(c, 0, "start", 0.0, at)?,
                    num(c, 1, "increment", 100.0, at)?,
                );
                self.incrementing = Some((start, step, max));
            }
            other => return Err(refused(at, other)),
        }
        Ok(())
    }
}

/// An exponential strategy's arguments, with tenacity's defaults.
fn exponential(c: &PyCall, kind: &'static str, at: &str) -> Result<Exp, ImportError> {
    let jitter_kind = kind == "wait_exponential_jitter";
    let mut multiplier = num(c, 0, "multiplier", 1.0, at)?;
    if jitter_kind {
        // `initial` (deprecated) is the first positional argument and stands for `multiplier`.
        let initial = num(c, 0, "initial", 1.0, at)?;
        multiplier = num(c, usize::MAX, "multiplier", initial, at)?;
    }
    let (max_pos, base_pos, min_pos) = if jitter_kind { (1, 2, 4) } else { (1, 2, 3) };
    let max = match c.arg(max_pos, "max") {
        None => None,
        Some(_) => Some(num(c, max_pos, "max", 0.0, at)?),
    };
    Ok(Exp {
        kind,
        multiplier,
        max,
        exp_base: num(c, base_pos, "exp_base", 2.0, at)?,
        min: num(c, min_pos, "min", 0.0, at)?,
        jitter: if jitter_kind {
            num(c, 3, "jitter", 1.0, at)?
        } else {
            0.0
        },
    })
}

/// The error for a wait with nothing close.
fn refused(at: &str, what: &str) -> ImportError {
    ImportError::new(
        at,
        format!("'{what}' has nothing close in the lab: accepted wait_none, wait_fixed, wait_random, wait_exponential, wait_random_exponential, wait_exponential_jitter, wait_incrementing, and sums of a wait_fixed or an exponential wait with a wait_random"),
    )
}

/// Reads `wait` into the backoff keys.
pub(crate) fn wait(e: Option<&Expr>, at: &str, out: &mut Out) -> Result<(), ImportError> {
    let mut sum = Sum::default();
    match e {
        Some(e) => sum.add(e, at)?,
        None => out.warn(
            at,
            "absent: tenacity's default is wait_none(), so every retry goes at once",
        ),
    }
    if let Some(inc) = sum.incrementing {
        if sum.exp.is_some() || sum.fixed != 0.0 || sum.random.is_some() {
            return Err(ImportError::new(
                at,
                "wait_incrementing added to another wait: nothing close in the lab",
            ));
        }
        return incrementing(inc, &format!("{at}.wait_incrementing"), out);
    }
    match sum.exp {
        None => constant(&sum, at, out),
        Some(x) => {
            if sum.fixed != 0.0 {
                return Err(ImportError::new(
                    at,
                    "a wait_fixed added to an exponential wait: nothing close in the lab",
                ));
            }
            exp_keys(x, sum.random, at, out)
        }
    }
}

/// `wait_incrementing`: `start + increment x (n - 1)` seconds before retry n, at most `max`.
/// The lab's linear wait, equal steps summed (`multiplier=1&ceiling_sum=true`), gives
/// `increment x (first_exp + n)`: exact when `start` is a whole multiple of `increment`.
fn incrementing(
    (start, step, max): (f64, f64, Option<f64>),
    field: &str,
    out: &mut Out,
) -> Result<(), ImportError> {
    let cap = match max {
        Some(m) if m <= 86_400.0 => secs(m, &format!("{field}.max"))?,
        _ => LONGEST,
    };
    let whole =
        step > 0.0 && start >= step && (start / step).fract() == 0.0 && start / step <= 64.0;
    if !whole {
        return Err(ImportError::new(
            field,
            format!("start {start} s, increment {step} s: the lab's linear wait is increment x (k + n) for a whole k of at least 1, so start must be a whole multiple of increment (1 to 64 times); waits of 0, increment, 2 x increment... have nothing close"),
        ));
    }
    out.set("backoff", "exponential");
    out.set("multiplier", "1");
    out.set("ceiling_sum", "true");
    out.set("first_exp", format!("{}", (start / step) as u32 - 1));
    out.set(
        "base",
        secs(step, &format!("{field}.increment"))?
            .min(cap)
            .to_string(),
    );
    out.set("cap", cap.max(Micros(1)).to_string());
    out.set("floor", "0ms");
    out.set("jitter", "none");
    Ok(())
}

/// A wait with no exponential term: none, fixed, or fixed plus random.
fn constant(sum: &Sum, at: &str, out: &mut Out) -> Result<(), ImportError> {
    let (lo, hi) = sum.random.unwrap_or((0.0, 0.0));
    let base = secs(sum.fixed + lo, at)?;
    let spread = secs(hi - lo, at)?;
    if base == Micros::ZERO && spread == Micros::ZERO {
        out.set("backoff", "none");
        return Ok(());
    }
    out.set("backoff", "constant");
    out.set("base", base.to_string());
    out.set(
        "cap",
        base.saturating_add(spread).max(Micros(1)).to_string(),
    );
    out.set("floor", "0ms");
    jitter(spread, false, out);
    Ok(())
}

/// `jitter=add` with `spread`, or none.
fn jitter(spread: Micros, after_cap: bool, out: &mut Out) {
    if spread == Micros::ZERO {
        out.set("jitter", "none");
        return;
    }
    out.set("jitter", "add");
    out.set("jitter_add", spread.to_string());
    out.set("jitter_after_cap", if after_cap { "true" } else { "false" });
}

/// An exponential wait, with a `wait_random(0, j)` added or not.
fn exp_keys(
    x: Exp,
    random: Option<(f64, f64)>,
    at: &str,
    out: &mut Out,
) -> Result<(), ImportError> {
    let field = format!("{at}.{}", x.kind);
    if !(1.0..=10.0).contains(&x.exp_base) {
        return Err(ImportError::new(
            format!("{field}.exp_base"),
            format!("{}: the lab's multiplier is in [1, 10]", x.exp_base),
        ));
    }
    let cap = match x.max {
        Some(m) if m <= 86_400.0 => secs(m, &format!("{field}.max"))?,
        _ => {
            out.warn(format!("{field}.max"), "no max under a day: the wait grows without bound (tenacity's default max is sys.maxsize / 2 seconds); the lab caps it at 24 h");
            LONGEST
        }
    };
    let floor = secs(x.min, &format!("{field}.min"))?.min(cap);
    out.set("first_exp", "0");
    out.set("first_wait", "backoff");
    let base = secs(x.multiplier, &format!("{field}.multiplier"))?;
    out.set("base", base.min(cap).to_string());
    out.set("cap", cap.max(Micros(1)).to_string());
    out.set("multiplier", format!("{}", x.exp_base));
    out.set("floor", floor.to_string());
    let added = match random {
        Some((lo, _)) if lo != 0.0 => return Err(ImportError::new(at, "a wait_random with a min above 0 added to an exponential wait: nothing close in the lab")),
        Some((_, hi)) => secs(hi, at)?,
        None => Micros::ZERO,
    };
    match x.kind {
        "wait_random_exponential" => {
            if added != Micros::ZERO {
                return Err(ImportError::new(
                    at,
                    "a wait_random added to wait_random_exponential: nothing close in the lab",
                ));
            }
            if floor != Micros::ZERO {
                out.unsupported(format!("{field}.min"), "tenacity draws U(min, ceiling); the lab draws U(0, ceiling) and raises a shorter wait to the floor, so the range is the same and the spread is not");
            }
            out.set("backoff", "full");
        }
        "wait_exponential_jitter" => {
            if added != Micros::ZERO {
                return Err(ImportError::new(
                    at,
                    "a wait_random added to wait_exponential_jitter: nothing close in the lab",
                ));
            }
            out.set("backoff", "exponential");
            jitter(secs(x.jitter, &format!("{field}.jitter"))?, false, out);
        }
        _ => {
            out.set("backoff", "exponential");
            // A wait_random added after the cap: the wait may exceed max by its spread.
            jitter(added, true, out);
        }
    }
    Ok(())
}
