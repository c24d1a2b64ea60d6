//! The link: every setting as a URL query, read and written by the page and the CLI alike.
//!
//! The query is the lab's public interface. It carries a version (`v=2`), it names a preset or
//! not, and it lists only the keys that differ from the preset (or from the defaults), in a fixed
//! order, so `parse(format(p)) == p` for every valid `p`. `docs/link.md` documents every key.
//! Keys are applied in that fixed order whatever order a link writes them in, so
//! `budget=bucket&bucket_max=5` and `bucket_max=5&budget=bucket` mean the same.
//!
//! ```
//! use retry_model::Params;
//! let p: Params = "v=2&preset=chapter&attempts=4".parse().unwrap();
//! assert_eq!(p.policy.max_attempts, 4);
//! assert_eq!(p.to_string(), "v=2&preset=chapter&attempts=4");
//! let err = "base=5s&cap=2s".parse::<Params>().unwrap_err();
//! assert_eq!(err.field, "base");
//! ```

pub mod analyze;
mod applies;
mod budget_keys;
use budget_keys::{budget_of, set_budget_detail};
pub mod client_table;
pub mod clients;
pub mod compare;
pub mod guess;
pub mod keys;
pub mod layer_keys;
pub mod lesson;
mod limits;
mod named;
pub mod preset;
pub(crate) mod rows;
pub(crate) mod run;
mod sim_keys;
mod systems;
use sim_keys::SimKeys;
mod query;
mod shape_keys;
pub(crate) use shape_keys::BACKOFF_SHAPE_KEYS;
pub mod sheet;
pub mod steps;
pub mod sweep;
pub mod tune_keys;
pub use query::encode;
use query::{bare_lesson, bare_sheet, percent_encode, split_pairs, Pairs};

use crate::retry::budget::BudgetConfig;
use crate::retry::error::ConfigError;
use crate::retry::outcome::ScriptedOutcome;
use crate::retry::policy::{RetryPolicy, ValidPolicy};
use crate::retry::text::{decimal, milli_text};
use crate::retry::time::Micros;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;
use keys::Key;
use preset::Preset;

pub use keys::{LINK_VERSION, MAX_CLIENTS, MAX_LINK_LEN, MAX_SCRIPT};

/// Every setting a link can carry.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// The preset the link starts from, if any.
    pub preset: Option<Preset>,
    /// The retry policy.
    pub policy: RetryPolicy,
    /// The budget's starting level in thousandths (`None`: full).
    pub budget_start: Option<u64>,
    /// Time already spent before the first attempt.
    pub elapsed: Micros,
    /// How long an attempt takes when the script does not say (timeouts take their timeout).
    pub latency: Micros,
    /// The master seed every random stream derives from.
    pub seed: u64,
    /// One outcome per attempt; attempts past the end of the list succeed.
    pub outcomes: Vec<ScriptedOutcome>,
    /// Forced waits, one per retry; `None` draws from the backoff.
    pub waits: Vec<Option<Micros>>,
    /// A Retry-After applied to every "wait" failure that carries none of its own.
    pub retry_after: Option<Micros>,
    /// How many clients the schedule view draws waits for, and the simulated clients of the
    /// `burst` and `occ` scenarios.
    pub clients: u32,
    /// The simulation's settings.
    pub sim: crate::sim::SimParams,
    /// The second side of a comparison (the link's `b.` keys), if the link compares two.
    pub compare: Option<alloc::boxed::Box<compare::Compare>>,
    /// The link's sweep (its `sweep.` keys), if it has one.
    pub sweep: Option<alloc::boxed::Box<sweep::Sweep>>,
    /// The lesson shown, if any.
    pub lesson: Option<lesson::Lesson>,
    /// The reader's answer to the lesson's (or the link's own) question, once given.
    pub guess: Option<String>,
    /// The link's own question's answer (`ask`), which makes any link an exercise.
    pub ask: Option<lesson::Answer>,
    /// The link's own question in words (`q`), at most [`lesson::MAX_QUESTION`] characters.
    pub question: Option<String>,
    /// The exercise sheet the link belongs to (`sheet`), if any.
    pub sheet: Option<alloc::boxed::Box<sheet::Sheet>>,
    /// Whether the link asks for a better policy (`tune`), and the search's settings.
    pub tune: tune_keys::TuneAsk,
    /// The sheet's exercise on screen, from 1 (`sheet_at`; 0 without a sheet).
    pub sheet_at: u32,
    /// The jitter keys as written; the policy's jitter is made from them.
    pub jitter_keys: JitterKeys,
    /// The layers' own keys (`l2.base=25ms`), whose policies sit in the layers settings.
    pub(crate) layer_keys: Vec<layer_keys::LayerKey>,
}

/// Which jitter the `jitter` key names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum JitterKind {
    /// No spread.
    #[default]
    None,
    /// `d x U(jitter_lo, jitter_hi)`.
    Mult,
    /// `d + U(0, jitter_add)`.
    Add,
}

impl JitterKind {
    /// Every kind, in the `jitter` key's order.
    pub const ALL: [JitterKind; 3] = [JitterKind::None, JitterKind::Mult, JitterKind::Add];

    /// The link name.
    pub const fn name(self) -> &'static str {
        match self {
            JitterKind::None => "none",
            JitterKind::Mult => "mult",
            JitterKind::Add => "add",
        }
    }
}

/// The jitter keys as written (`jitter`, `jitter_lo`, `jitter_hi`, `jitter_add`): each keeps its
/// value whichever jitter is chosen, and the policy's [`crate::Jitter`] is made from them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JitterKeys {
    /// The `jitter` key's value.
    pub kind: JitterKind,
    /// `jitter_lo` in thousandths.
    pub lo_milli: u64,
    /// `jitter_hi` in thousandths.
    pub hi_milli: u64,
    /// `jitter_add`.
    pub add: Micros,
}

impl Default for JitterKeys {
    fn default() -> Self {
        JitterKeys {
            kind: JitterKind::None,
            lo_milli: 800,
            hi_milli: 1200,
            add: Micros::from_millis(100),
        }
    }
}

impl JitterKeys {
    /// The jitter these keys describe.
    pub fn jitter(self) -> crate::Jitter {
        match self.kind {
            JitterKind::Mult => crate::Jitter::Mult {
                lo_milli: self.lo_milli,
                hi_milli: self.hi_milli,
            },
            JitterKind::Add => crate::Jitter::Add(self.add),
            JitterKind::None => crate::Jitter::None,
        }
    }
}

impl Default for Params {
    fn default() -> Self {
        Params {
            preset: None,
            policy: RetryPolicy::default(),
            budget_start: None,
            elapsed: Micros::ZERO,
            latency: Micros::from_millis(20),
            seed: 1,
            outcomes: alloc::vec![
                ScriptedOutcome::new(crate::Outcome::ConnectTimeout),
                ScriptedOutcome::new(crate::Outcome::Status(503)),
                ScriptedOutcome::new(crate::Outcome::Ok),
            ],
            waits: Vec::new(),
            retry_after: None,
            clients: 20,
            sim: crate::sim::SimParams::default(),
            compare: None,
            sweep: None,
            lesson: None,
            guess: None,
            ask: None,
            question: None,
            sheet: None,
            sheet_at: 0,
            tune: tune_keys::TuneAsk::OFF,
            jitter_keys: JitterKeys::default(),
            layer_keys: Vec::new(),
        }
    }
}

fn parse_outcomes(k: &Key, v: &str) -> Result<Vec<ScriptedOutcome>, ConfigError> {
    let list: Vec<ScriptedOutcome> = if v.is_empty() {
        Vec::new()
    } else {
        v.split(',')
            .map(ScriptedOutcome::from_str)
            .collect::<Result<_, _>>()?
    };
    if list.len() > MAX_SCRIPT {
        return Err(k.error(format!("at most {MAX_SCRIPT} outcomes, got {}", list.len())));
    }
    Ok(list)
}

fn parse_waits(k: &Key, v: &str) -> Result<Vec<Option<Micros>>, ConfigError> {
    let list: Vec<Option<Micros>> = if v.is_empty() {
        Vec::new()
    } else {
        v.split(',')
            .map(|w| {
                if w == "-" {
                    Ok(None)
                } else {
                    keys::row("base").dur(w).map(Some)
                }
            })
            .collect::<Result<_, _>>()
            .map_err(|_| {
                k.error(format!(
                    "'{}' is not {}",
                    keys::shorten(v),
                    k.domain.accepted()
                ))
            })?
    };
    if list.len() > MAX_SCRIPT {
        return Err(k.error(format!("at most {MAX_SCRIPT} waits, got {}", list.len())));
    }
    Ok(list)
}

/// An unknown preset, in one line: the nearest names and where the list is (the whole list
/// would be a paragraph).
/// `guess`: the reader's answer, up to 40 letters, digits, '.' and '-', or `none`.
fn parse_guess(k: &Key, v: &str) -> Result<Option<String>, ConfigError> {
    if v == "none" {
        return Ok(None);
    }
    let ok = !v.is_empty()
        && v.len() <= 40
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '%' | ' '));
    if !ok {
        return Err(k.error(format!(
            "'{}' is not a guess: up to 40 letters, digits, spaces, '.', '-', '+' and '%' (a number with its unit, such as 3.6 s or 91.7 %, or a word)",
            keys::shorten(v)
        )));
    }
    Ok(Some(String::from(v)))
}

fn unknown_preset(k: &Key, v: &str) -> ConfigError {
    let near = Preset::ALL
        .iter()
        .map(|p| p.name())
        .filter(|n| n.starts_with(v.get(..3).unwrap_or(v)))
        .take(3)
        .collect::<Vec<_>>();
    let hint = if near.is_empty() {
        String::new()
    } else {
        format!("did you mean {}? ", near.join(", "))
    };
    k.error(format!(
        "unknown preset '{}': {hint}{} presets are accepted; the Preset menu and the command retrylab presets list them",
        keys::shorten(v),
        Preset::ALL.len()
    ))
}

/// `v`: a link version this build reads.
fn check_version(k: &Key, v: &str) -> Result<(), ConfigError> {
    let n = v.parse::<u64>().map_err(|_| {
        k.error(format!(
            "'{}' is not {}",
            keys::shorten(v),
            k.domain.accepted()
        ))
    })?;
    if n > u64::from(LINK_VERSION) {
        return Err(k.error(format!(
            "link version {n} is newer than this build, which reads 1 to {LINK_VERSION}"
        )));
    }
    if n == 0 {
        return Err(k.error(format!(
            "'{}' is not {}",
            keys::shorten(v),
            k.domain.accepted()
        )));
    }
    Ok(())
}

impl Params {
    /// Sets one key from its link text. Every value is checked by the key's row in
    /// [`keys::TABLE`]; cross-key rules are [`Params::validate`]'s.
    pub fn set(&mut self, key: &str, v: &str) -> Result<(), ConfigError> {
        let Some(k) = keys::key(key) else {
            return Err(ConfigError::new(
                "link",
                format!(
                    "unknown key '{}': `retrylab keys` lists the accepted keys",
                    keys::shorten(key)
                ),
            ));
        };
        let compare = self.compare.take();
        let mut done = if keys::is_sim(k) {
            self.sim.set(k, v)
        } else {
            self.set_policy_key(k, v)
        };
        if done.is_ok() && !self.layer_keys.is_empty() {
            // The layers follow the link's policy: an edit that breaks one is refused.
            if let Some(e) = self.refresh_layers().into_iter().next() {
                done = Err(k.error(format!("leaves a layer's policy refused: {}", e.rule)));
            }
        }
        // Side B is side A with its `b.` keys on top: it follows an edit of A. A preset starts
        // a new link, without a second side, and without a sweep unless it is a phase plot's.
        if k.name == "preset" && !self.preset.is_some_and(Preset::has_sweep) {
            self.sweep = None;
        }
        if let (Some(c), false) = (compare, k.name == "preset") {
            let pairs: Vec<(String, String)> = c
                .keys
                .iter()
                .map(|(k, v)| (String::from(*k), v.clone()))
                .collect();
            let _ = self.set_compare(&pairs);
        }
        done
    }

    /// Sets one of the tuner's keys (`tune`, `tune_*`).
    fn set_tune_key(&mut self, k: &keys::Key, v: &str) -> Result<(), ConfigError> {
        match k.name {
            "tune" => self.tune.on = k.flag(v)?,
            "tune_candidates" => self.tune.candidates = k.int32(v)?,
            "tune_runs" => self.tune.runs = k.int32(v)?,
            "tune_max_amp" => {
                self.tune.max_amp_milli = match v {
                    "" | "none" => None,
                    _ => Some(k.dec(v)?),
                }
            }
            "tune_p99" => self.tune.p99 = k.opt_dur(v)?,
            "tune_max_peak" => {
                self.tune.max_peak = match v {
                    "" | "none" => None,
                    _ => Some(k.int(v)?),
                }
            }
            "tune_recover" => self.tune.recover = k.flag(v)?,
            "tune_format" => self.tune.format = k.choice(v)? as u8,
            "tune_weather" => {
                self.tune.weathers = tune_keys::parse_weathers(v, &|k| keys::key(k).is_some())
                    .map_err(|e| ConfigError::new("tune_weather", e))?
            }
            other => {
                return Err(ConfigError::new(
                    "link",
                    format!("unknown key '{}'", keys::shorten(other)),
                ))
            }
        }
        Ok(())
    }

    fn set_policy_key(&mut self, k: &'static Key, v: &str) -> Result<(), ConfigError> {
        let pol = &mut self.policy;
        match k.name {
            "v" => check_version(k, v)?,
            "preset" => {
                let p = Preset::from_name(v).ok_or_else(|| unknown_preset(k, v))?;
                *self = Params::default();
                self.preset = Some(p);
                self.apply_preset(p);
            }
            "deadline" => pol.deadline = k.opt_dur(v)?,
            "elapsed" => self.elapsed = k.dur(v)?,
            "attempt_timeout" => pol.attempt_timeout = k.dur(v)?,
            "reserve" => pol.reserve = k.dur(v)?,
            "fit" => pol.fit = k.pick(v)?,
            "latency" => self.latency = k.dur(v)?,
            "attempts" => pol.max_attempts = k.int32(v)?,
            "backoff" => pol.backoff.kind = k.pick(v)?,
            "base" => pol.backoff.base = k.dur(v)?,
            "cap" => pol.backoff.cap = k.dur(v)?,
            "multiplier" => pol.backoff.multiplier = k.dec(v)? as f64 / 1_000_000.0,
            "first_exp" => pol.backoff.first_exp = k.int32(v)?,
            "floor" => pol.backoff.floor = k.dur(v)?,
            name if BACKOFF_SHAPE_KEYS.contains(&name) => self.set_backoff_shape(k, v)?,
            "throttle_base" => pol.backoff.throttle_base = k.opt_dur(v)?,
            "classify" => pol.classifier = k.pick(v)?,
            "retry_on" => pol.statuses = v.parse()?,
            "idempotent" => pol.operation.idempotent = k.flag(v)?,
            "key" => pol.operation.key = k.flag(v)?,
            "outcomes" => self.outcomes = parse_outcomes(k, v)?,
            "waits" => self.waits = parse_waits(k, v)?,
            "retry_after" => self.retry_after = k.opt_dur(v)?,
            "ra_mode" | "ra_cap" | "ra_max" => self.set_retry_after_rule(k, v)?,
            "budget" => pol.budget = budget_of(k.choice(v)?),
            "budget_start" => {
                self.budget_start = match v {
                    "" | "full" => None,
                    _ => Some(k.dec(v)?),
                }
            }
            "budget_scope" => pol.scope = k.pick(v)?,
            // A budget's own sizes (`bucket_max`, `envoy_max_retries`, ...).
            name if keys::detail_of(name).is_some_and(|(key, _)| key == "budget") => {
                set_budget_detail(&mut pol.budget, k, v)?
            }
            "seed" => self.seed = k.int(v)?,
            "clients" => self.clients = k.int32(v)?,
            "lesson" => {
                self.lesson = match v {
                    "none" => None,
                    _ => Some(lesson::LESSONS[k.choice(lesson::canonical_id(v))?]),
                }
            }
            "guess" | "ask" | "q" | "sheet" | "sheet_at" => self.set_exercise_key(k, v)?,
            name if name.starts_with("tune") => self.set_tune_key(k, v)?,
            other => {
                return Err(ConfigError::new(
                    "link",
                    format!("unknown key '{}'", keys::shorten(other)),
                ))
            }
        }
        Ok(())
    }

    /// `guess` (the reader's answer), `ask` (what the link asks, as [`lesson::Answer::text`]),
    /// `q` (the question in words), `sheet` (the exercise sheet) and `sheet_at` (its exercise on
    /// screen).
    fn set_exercise_key(&mut self, k: &'static Key, v: &str) -> Result<(), ConfigError> {
        if k.name == "guess" {
            self.guess = parse_guess(k, v)?;
            return Ok(());
        }
        if k.name == "sheet_at" {
            self.sheet_at = k.int32(v)?;
            return Ok(());
        }
        if k.name == "sheet" {
            self.sheet = match v {
                "none" | "" => None,
                _ => Some(alloc::boxed::Box::new(
                    sheet::Sheet::from_value(v).map_err(|e| k.error(e))?,
                )),
            };
            self.sheet_at = u32::from(self.sheet.is_some()).max(self.sheet_at);
            return Ok(());
        }
        if k.name == "ask" {
            self.ask = match v {
                "none" | "" => None,
                _ => Some(lesson::Answer::parse(v).map_err(|e| k.error(e))?),
            };
            return Ok(());
        }
        let n = v.chars().count();
        if n > lesson::MAX_QUESTION {
            return Err(k.error(format!(
                "at most {} characters, got {n}",
                lesson::MAX_QUESTION
            )));
        }
        if v.chars().any(char::is_control) {
            return Err(k.error("plain text: no control characters or line breaks"));
        }
        self.question = match v.trim() {
            "" | "none" => None,
            t => Some(String::from(t)),
        };
        Ok(())
    }

    /// Why the link's `ask` cannot be answered here (a run's figure on a link that runs
    /// nothing, a row's on a link that sweeps nothing), if it cannot.
    fn exercise_error(&self) -> Option<ConfigError> {
        if let Some(sheet) = &self.sheet {
            let n = sheet.links.len();
            if self.sheet_at as usize > n || self.sheet_at == 0 {
                return Some(keys::row("sheet_at").error(format!(
                    "the sheet has {n} exercises, so 1 to {n}, got {}",
                    self.sheet_at
                )));
            }
        }
        let ask = self.ask?;
        // Whether a run recovers needs something to recover from.
        let recovery = matches!(
            ask,
            lesson::Answer::Run(crate::sim::Metric::Recovered | crate::sim::Metric::RecoveryS)
                | lesson::Answer::OutlastsMixing
        );
        if let Some(crate::sim::Scenario::Outage(o)) = &self.sim.scenario {
            if recovery && !applies::has_trigger(o) {
                return Some(keys::row("ask").error("asks whether the run recovers, and this link has nothing to recover from: set an outage, a load spike or a slow-down"));
            }
        }
        let swept = self.sweep.as_ref().map_or(0, |s| s.axes.len());
        let rule = ask.needs(self.sim.kind().is_some(), swept)?;
        Some(keys::row("ask").error(rule))
    }

    /// The question this link asks before it shows its answer: its own `ask` (with `q`, or a
    /// question in plain words) or else its lesson's. `None` when it asks nothing.
    pub fn exercise(&self) -> Option<lesson::Exercise> {
        if let Some(answer) = self.ask {
            return Some(lesson::Exercise {
                question: self
                    .question
                    .clone()
                    .unwrap_or_else(|| answer.default_question()),
                answer,
                unit: answer.unit(),
            });
        }
        let l = self.lesson?;
        Some(lesson::Exercise {
            question: String::from(l.question?),
            answer: l.answer?,
            unit: l.unit,
        })
    }

    /// One key's link text, or `None` when the key does not apply (a bucket key without a
    /// bucket budget, an unset preset).
    pub fn get(&self, key: &str) -> Option<String> {
        let pol = &self.policy;
        let d = |m: Micros| Some(m.to_string());
        let od = |m: Option<Micros>| Some(m.map_or_else(|| "none".to_string(), |m| m.to_string()));
        Some(match key {
            "v" => LINK_VERSION.to_string(),
            "preset" => self.preset?.name().to_string(),
            "deadline" => return od(pol.deadline),
            "elapsed" => return d(self.elapsed),
            "attempt_timeout" => return d(pol.attempt_timeout),
            "reserve" => return d(pol.reserve),
            "fit" => pol.fit.name().to_string(),
            "latency" => return d(self.latency),
            "attempts" => pol.max_attempts.to_string(),
            "backoff" => pol.backoff.kind.name().to_string(),
            "base" => return d(pol.backoff.base),
            "cap" => return d(pol.backoff.cap),
            "multiplier" => format!("{}", pol.backoff.multiplier),
            "first_exp" => pol.backoff.first_exp.to_string(),
            "floor" => return d(pol.backoff.floor),
            name if BACKOFF_SHAPE_KEYS.contains(&name) => return self.backoff_shape(key),
            "throttle_base" => return od(pol.backoff.throttle_base),
            "classify" => pol.classifier.name().to_string(),
            "retry_on" => pol.statuses.to_string(),
            "idempotent" => pol.operation.idempotent.to_string(),
            "key" => pol.operation.key.to_string(),
            "outcomes" => self
                .outcomes
                .iter()
                .map(|o| o.to_string())
                .collect::<Vec<_>>()
                .join(","),
            "waits" => self
                .waits
                .iter()
                .map(|w| w.map_or_else(|| "-".to_string(), |w| w.to_string()))
                .collect::<Vec<_>>()
                .join(","),
            "retry_after" => return od(self.retry_after),
            "ra_mode" => pol.retry_after_mode.name().to_string(),
            "ra_cap" | "ra_max" => {
                return d(if key == "ra_cap" {
                    pol.ra_cap
                } else {
                    pol.ra_max
                })
            }
            "seed" => self.seed.to_string(),
            "clients" => self.clients.to_string(),
            "lesson" => self.lesson.map_or("none", |l| l.id).to_string(),
            "guess" => self.guess.clone().unwrap_or_else(|| "none".to_string()),
            "ask" => self
                .ask
                .map_or_else(|| "none".to_string(), lesson::Answer::text),
            "q" => self.question.clone().unwrap_or_else(|| "none".to_string()),
            "sheet" => self
                .sheet
                .as_ref()
                .map_or_else(|| "none".to_string(), |s| s.value()),
            "sheet_at" => return self.sheet.as_ref().map(|_| self.sheet_at.to_string()),
            "tune" | "tune_candidates" | "tune_runs" | "tune_max_amp" | "tune_p99"
            | "tune_format" | "tune_weather" | "tune_max_peak" | "tune_recover" => {
                return self.tune.get(key)
            }
            _ => return self.budget_key(key).unwrap_or_else(|| self.sim.get(key)),
        })
    }

    /// Parses a link, collecting every error instead of stopping at the first: the page applies
    /// the good keys and lists the bad ones. Cross-key rules (base <= cap, ...) are checked by
    /// [`Params::validate`].
    pub fn parse_lenient(query: &str) -> (Params, Vec<ConfigError>) {
        let mut errors = Vec::new();
        let mut p = Params::default();
        if query.len() > MAX_LINK_LEN {
            errors.push(ConfigError::new(
                "link",
                format!("longer than {MAX_LINK_LEN} bytes ({} bytes)", query.len()),
            ));
            return (p, errors);
        }
        let q = match query.split_once('?') {
            Some((_, rest)) => rest,
            None => query,
        };
        let q = q.split('#').next().unwrap_or("");
        let mut pairs = split_pairs(q, &mut errors);
        if let Some(l) = bare_lesson(&pairs) {
            // A bare lesson link opens the lesson's own set-up, as its menu entry does.
            return Params::parse_lenient(&format!("{}&{q}", l.link));
        }
        if let Some(link) = bare_sheet(&pairs) {
            // A bare sheet link opens its exercise (the first unless `sheet_at` says).
            let at = if pairs.own.iter().any(|(_, k, _)| k == "sheet_at") {
                ""
            } else {
                "&sheet_at=1"
            };
            return Params::parse_lenient(&format!("{link}&{q}{at}"));
        }
        // Each key once (a repeat is refused there), so an unstable sort orders them exactly.
        pairs.own.sort_unstable_by_key(|(i, _, _)| *i);
        // The version goes first: a newer link is refused before its keys are read.
        let mut version = LINK_VERSION;
        if let Some((_, _, v)) = pairs.own.iter().find(|(_, k, _)| k == "v") {
            if let Err(e) = p.set("v", v) {
                errors.push(e);
                return (p, errors);
            }
            version = v.parse().unwrap_or(LINK_VERSION);
        }
        let (mut p, errors) = p.settle(&pairs, errors);
        p.migrate_from(version);
        (p, errors)
    }

    /// What a link of an older `version` meant, written out in this version's keys: before
    /// version 2, a phase plot made every run of every cell (`sequential=false`).
    fn migrate_from(&mut self, version: u32) {
        if version < 2 && self.sim.sequential.is_none() && self.phase_plot_of_runs() {
            self.sim.sequential = Some(false);
        }
    }

    /// Sets `pairs` on a copy of `self` (which holds the version), refusing each key that has
    /// no effect there and setting the rest again without it. Leaving a key out can make
    /// another key refusable (`budget=none` after `budget_scope`), so this settles in a few
    /// rounds. Then side B's and the sweep's keys. Gives the parameters and every error.
    fn settle(self, all: &Pairs, mut errors: Vec<ConfigError>) -> (Params, Vec<ConfigError>) {
        let (pairs, b_pairs, sweep_pairs) = (&all.own, &all.b, &all.sweep);
        let mut refused: Vec<ConfigError> = Vec::new();
        loop {
            let mut round = Vec::new();
            let mut p = self.clone();
            for (_, k, v) in pairs {
                if k == "v" || refused.iter().any(|e| e.field == k) {
                    continue;
                }
                if let Err(e) = p.set(k, v) {
                    round.push(e);
                }
            }
            let explicit: Vec<&str> = pairs
                .iter()
                .map(|(_, k, _)| k.as_str())
                .filter(|k| !refused.iter().any(|e| e.field == *k))
                .collect();
            let mut more = p.inapplicable(&explicit);
            if !more.is_empty() {
                // A key this side does not use stays when side B or a row of the sweep does.
                let probe = p.with_others(b_pairs, sweep_pairs);
                more.retain(|e| !probe.used_elsewhere(e.field));
            }
            if more.is_empty() {
                errors.extend(round);
                errors.extend(refused);
                if !all.layer.is_empty() {
                    errors.extend(p.set_layer_keys(&all.layer));
                }
                if !b_pairs.is_empty() {
                    errors.extend(p.set_compare(b_pairs));
                }
                if !sweep_pairs.is_empty() {
                    errors.extend(p.set_sweep(sweep_pairs));
                }
                errors.extend(p.exercise_error());
                return (p, errors);
            }
            refused.extend(more);
        }
    }

    /// This side with the link's side B or sweep read on top (errors aside), to ask which of
    /// its unused keys another side or a row uses.
    fn with_others(
        &self,
        b_pairs: &[(String, String)],
        sweep_pairs: &[(String, String)],
    ) -> Params {
        let mut probe = self.clone();
        if !b_pairs.is_empty() {
            let _ = probe.set_compare(b_pairs);
        }
        if !sweep_pairs.is_empty() {
            probe.compare = None;
            let _ = probe.set_sweep(sweep_pairs);
        }
        probe
    }

    /// Sets a preset's keys (link text, see [`Preset::settings`]) in table order; a later group
    /// overrides an earlier one. Every preset's keys are valid (`presets_round_trip`).
    fn apply_preset(&mut self, preset: Preset) {
        let pairs = self.apply_preset_keys(preset);
        // A phase preset is a sweep too (its rows are checked by the presets' tests).
        let swept: Vec<(String, String)> = pairs
            .iter()
            .filter_map(|(k, v)| Some((k.strip_prefix(sweep::PREFIX)?.into(), (*v).into())))
            .collect();
        if !swept.is_empty() {
            let _ = self.read_sweep(&swept, false);
        }
    }

    /// A preset's keys, without its sweep; returns the preset's pairs.
    fn apply_preset_keys(&mut self, preset: Preset) -> Vec<(&'static str, &'static str)> {
        let pairs: Vec<(&str, &str)> = preset
            .settings()
            .iter()
            .flat_map(|group| group.iter().copied())
            .collect();
        // Key by key in table order; within one key, the later group's value is applied last.
        for name in all_keys() {
            for (k, v) in pairs.iter().filter(|(k, _)| *k == name) {
                let _ = self.set(k, v);
            }
        }
        pairs
    }

    /// Checks the cross-key rules and returns the policy ready to run.
    pub fn validate(&self) -> Result<ValidPolicy, ConfigError> {
        let mut unused = self.inapplicable(&[]).into_iter();
        if let Some(e) = unused.find(|e| !self.used_elsewhere(e.field)) {
            return Err(e);
        }
        if let Some(crate::sim::Scenario::Layers(l)) = &self.sim.scenario {
            for (n, pol) in l.policies.iter().enumerate() {
                if let Some(Err(e)) = pol.map(|p| p.validate()) {
                    let rule = format!("l{}.{}: {}", n + 1, e.field, e.rule);
                    return Err(ConfigError::new(layer_keys::FIELD, rule));
                }
            }
        }
        if self.sim.scenario.is_none() && self.clients > MAX_CLIENTS {
            return Err(ConfigError::new(
                "clients",
                format!(
                    "a policy link's schedule draws at most {MAX_CLIENTS} clients (a burst takes up to {})",
                    keys::MAX_LINK_CLIENTS
                ),
            ));
        }
        self.policy.validate()
    }

    /// The keys the canonical link writes, with their text: `preset` if any, then every key
    /// that differs from the preset (or the defaults), in table order.
    pub fn written(&self) -> Vec<(&'static str, String)> {
        // The keys are compared with the preset's keys; its sweep plays no part here.
        let mut base = Params::default();
        if let Some(p) = self.preset {
            base.preset = Some(p);
            base.apply_preset_keys(p);
        }
        // Budget sub-keys are compared with the chosen budget kind's own defaults.
        let mut kind_base = base.clone();
        if let Some(kind) = self.get("budget") {
            if base.get("budget").as_deref() != Some(kind.as_str()) {
                let _ = kind_base.set("budget", &kind);
            }
        }
        // A scenario's settings are compared with that scenario's defaults, and breaker details
        // with the breaker's.
        if self.sim.kind() != kind_base.sim.kind() {
            kind_base.sim.scenario = self.sim.kind().map(crate::sim::Scenario::new);
        }
        let scenario_base = kind_base.clone();
        if self.get("breaker").as_deref() == Some("on")
            && kind_base.get("breaker").as_deref() == Some("off")
        {
            let _ = kind_base.set("breaker", "on");
        }
        let mut out = Vec::new();
        for key in all_keys() {
            if key == "v" {
                continue;
            }
            let mine = self.get(key);
            // A switch is compared with the baseline before it was turned on, its details with
            // the baseline after.
            let reference = match key {
                "budget" | "scenario" => base.get(key),
                "breaker" => scenario_base.get(key),
                _ => kind_base.get(key),
            };
            if key != "preset" && mine == reference {
                continue;
            }
            if let Some(v) = mine {
                out.push((key, v));
            }
        }
        out
    }

    /// The query written relative to `baseline` (the preset's settings, or the defaults).
    fn baseline(&self) -> Params {
        let mut b = Params::default();
        if let Some(p) = self.preset {
            b.preset = Some(p);
            b.apply_preset(p);
        }
        b
    }
}

fn static_key(key: &str) -> &'static str {
    keys::key(key).map_or("link", |k| k.name)
}

/// Every key a link may hold, in the order a link writes and applies them.
pub fn all_keys() -> impl Iterator<Item = &'static str> {
    keys::TABLE.iter().map(|k| k.name)
}

impl FromStr for Params {
    type Err = ConfigError;

    /// Parses a query (`a=1&b=2`), a query with its `?`, or a whole URL. Strict: the first
    /// error, a key's or a cross-key rule's, is returned.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (p, errors) = Params::parse_lenient(s);
        if let Some(e) = errors.into_iter().next() {
            return Err(e);
        }
        p.validate()?;
        Ok(p)
    }
}

impl fmt::Display for Params {
    /// The canonical query, without the leading `?`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v={LINK_VERSION}")?;
        for (key, v) in self.written() {
            write!(f, "&{key}=")?;
            percent_encode(f, &v)?;
        }
        for k in &self.layer_keys {
            write!(f, "&l{}.{}=", k.layer, k.key)?;
            percent_encode(f, &k.value)?;
        }
        if let Some(c) = &self.compare {
            for (key, v) in &c.keys {
                write!(f, "&{}{key}=", compare::PREFIX)?;
                percent_encode(f, v)?;
            }
        }
        // A preset's own sweep is the preset's: written only when the link changed it.
        if let Some(s) = self.sweep.as_ref().filter(|s| {
            self.preset
                .is_none_or(|_| self.baseline().sweep.as_deref() != Some(*s))
        }) {
            for a in &s.axes {
                write!(f, "&{}{}=", sweep::PREFIX, a.key)?;
                percent_encode(f, &a.spec)?;
            }
            if !s.plot.is_empty() {
                let names: Vec<&str> = s.plot.iter().map(|m| m.name()).collect();
                write!(f, "&{}plot=", sweep::PREFIX)?;
                percent_encode(f, &names.join(","))?;
            }
            if let Some(h) = s.heatmap {
                let chart = if h { "heatmap" } else { "lines" };
                write!(f, "&{}chart={chart}", sweep::PREFIX)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
