//! The key table: every link key declared once.
//!
//! Why one table? A key used to be spelled in the parser, the formatter, the error strings, the
//! page's controls and the docs, and those lists drifted (the attempts limit read 1000 in one
//! place and 100 in two others). Now each key is one [`Key`] row: its name, default, accepted
//! values ([`Domain`]), unit, the scenarios it applies to ([`Applies`]), a one-line meaning and
//! its page control. Parsing checks every range through the row's domain, error messages word
//! the accepted values from it, the page builds its controls from it, `retrylab keys` prints it
//! and `docs/link.md` holds its Markdown rendering (a test compares them).
//!
//! ```
//! use retry_model::link_keys::{key, Applies};
//! let k = key("breaker").unwrap();
//! assert!(k.applies.contains(Applies::OUTAGE));
//! assert!(!k.applies.contains(Applies::LOST));
//! assert_eq!(k.domain.accepted(), "on or off");
//! ```

use crate::retry::backoff::MAX_MULTIPLIER;
use crate::retry::error::ConfigError;
use crate::retry::policy::MAX_ATTEMPTS;
use crate::retry::text::{decimal, parse_scaled};
use crate::retry::time::Micros;
use crate::sim::kinds::{caps, ScenarioKind};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// The link version this build writes. It reads every version up to this one.
pub const LINK_VERSION: u32 = 2;
/// The most simulated clients a schedule may draw for.
pub const MAX_CLIENTS: u32 = 10_000;

/// The most clients a storm or `occ` link may name (a burst of a million clients reconnecting
/// runs on the population engine; a policy link's schedule draws at most [`MAX_CLIENTS`]).
pub const MAX_LINK_CLIENTS: u32 = 1_000_000;
pub use super::limits::MAX_LINK_LEN;
/// The most scripted outcomes or forced waits a link may list.
pub const MAX_SCRIPT: usize = 100;

/// The values a key accepts. Every range a link can hold is checked here and nowhere else in
/// the link layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Domain {
    /// The link version: `1` to [`LINK_VERSION`].
    Version,
    /// A preset name (see [`crate::Preset::ALL`]).
    Preset,
    /// A duration in `[lo, hi]`, a whole multiple of `step`; `none` too when `none` is set.
    Dur {
        /// Shortest accepted.
        lo: Micros,
        /// Longest accepted.
        hi: Micros,
        /// Accepted values are whole multiples of this.
        step: Micros,
        /// `none` is accepted too.
        none: bool,
    },
    /// A whole number in `[lo, hi]`.
    Int {
        /// Smallest accepted.
        lo: u64,
        /// Largest accepted.
        hi: u64,
    },
    /// A plain decimal, held exactly as an integer number of `1/scale`, in `[lo, hi]` of those.
    Dec {
        /// A power of ten: the number of decimals accepted.
        scale: u64,
        /// Smallest accepted, in `1/scale`.
        lo: u64,
        /// Largest accepted, in `1/scale`.
        hi: u64,
    },
    /// One of a fixed list: `(link value, what the page's menu says)`.
    Choice(&'static [(&'static str, &'static str)]),
    /// `true` or `false` (`yes`/`no`, `1`/`0` are read too).
    Flag,
    /// `on` or `off`.
    Switch,
    /// A comma-separated list, parsed by the key's own code; the text says what it holds.
    List(&'static str),
}

/// A parsed value, as the domain reads it.
fn err(key: &'static str, v: &str, accepted: &str) -> ConfigError {
    ConfigError::new(key, format!("'{}' is not {accepted}", shorten(v)))
}

pub(crate) use crate::retry::text::shorten;

pub use super::named::Named;

impl Domain {
    /// The accepted values, in words (`a duration in [1ms, 1h]`, `one of none, bucket`).
    pub fn accepted(&self) -> String {
        match *self {
            Domain::Version => format!("a link version in [1, {}]", LINK_VERSION),
            Domain::Preset => {
                let names: Vec<&str> = super::preset::Preset::ALL
                    .iter()
                    .map(|p| p.name())
                    .collect();
                format!("one of {}", names.join(", "))
            }
            Domain::Dur { lo, hi, step, none } => {
                let whole = if step == Micros::from_secs(1) {
                    " in whole seconds"
                } else {
                    ""
                };
                let none = if none { ", or none" } else { "" };
                format!(
                    "a duration in [{}, {}]{whole} (a number and a unit: us, ms, s, m, h){none}",
                    dur_text(lo),
                    dur_text(hi)
                )
            }
            Domain::Int { lo, hi } => format!("a whole number in [{lo}, {hi}]"),
            Domain::Dec { scale, lo, hi } => {
                let places = decimals(scale);
                let places = match places {
                    0 => String::from("a whole number"),
                    1 => String::from("a number with at most 1 decimal"),
                    n => format!("a number with at most {n} decimals"),
                };
                format!(
                    "{places} in [{}, {}]",
                    decimal(lo, scale),
                    decimal(hi, scale)
                )
            }
            Domain::Choice(values) => {
                let names: Vec<&str> = values.iter().map(|(v, _)| *v).collect();
                format!("one of {}", names.join(", "))
            }
            Domain::Flag => String::from("true or false"),
            Domain::Switch => String::from("on or off"),
            Domain::List(what) => String::from(what),
        }
    }

    /// The accepted values as the docs' table writes them (code-formatted names).
    fn accepted_md(&self) -> String {
        match *self {
            Domain::Choice(values) => values
                .iter()
                .map(|(v, _)| format!("`{v}`"))
                .collect::<Vec<_>>()
                .join(", "),
            Domain::Flag => String::from("`true`, `false`"),
            Domain::Switch => String::from("`on`, `off`"),
            Domain::Preset => String::from("see [presets.md](presets.md)"),
            Domain::Dur { .. } => self
                .accepted()
                .replace(" (a number and a unit: us, ms, s, m, h)", ""),
            Domain::Version | Domain::Int { .. } | Domain::Dec { .. } | Domain::List(_) => {
                self.accepted()
            }
        }
    }
}

/// A range end as a person writes it: `24h`, `10m`, `250ms`.
fn dur_text(d: Micros) -> String {
    const HOUR: u64 = 3_600_000_000;
    const MINUTE: u64 = 60_000_000;
    match d.0 {
        0 => String::from("0"),
        us if us % HOUR == 0 => format!("{}h", us / HOUR),
        us if us % MINUTE == 0 && us >= 10 * MINUTE => format!("{}m", us / MINUTE),
        _ => d.to_string(),
    }
}

fn decimals(scale: u64) -> u32 {
    let mut n = 0;
    let mut s = scale;
    while s > 1 {
        s /= 10;
        n += 1;
    }
    n
}

/// Where a key has an effect: the one-request view (no scenario) and each scenario, as bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Applies(u8);

impl Applies {
    /// The one-request view: the schedule and the step trace (`scenario=none`).
    pub const REQUEST: Applies = Applies(1);
    /// `scenario=outage`.
    pub const OUTAGE: Applies = Applies(2);
    /// `scenario=burst`.
    pub const BURST: Applies = Applies(4);
    /// `scenario=occ`.
    pub const OCC: Applies = Applies(8);
    /// `scenario=layers`.
    pub const LAYERS: Applies = Applies(16);
    /// `scenario=lost`.
    pub const LOST: Applies = Applies(32);
    /// Every scenario, and no scenario.
    pub const ALL: Applies = Applies(63);
    /// Every scenario, not the one-request view.
    pub const SIMS: Applies = Applies(62);

    /// Both sets.
    pub const fn or(self, other: Applies) -> Applies {
        Applies(self.0 | other.0)
    }

    /// Whether every place in `other` is in `self`.
    pub const fn contains(self, other: Applies) -> bool {
        self.0 & other.0 == other.0
    }

    /// The place a link's scenario stands for.
    pub const fn of(scenario: Option<ScenarioKind>) -> Applies {
        match scenario {
            None => Applies::REQUEST,
            Some(ScenarioKind::Outage) => Applies::OUTAGE,
            Some(ScenarioKind::Burst) => Applies::BURST,
            Some(ScenarioKind::Occ) => Applies::OCC,
            Some(ScenarioKind::Layers) => Applies::LAYERS,
            Some(ScenarioKind::Lost) => Applies::LOST,
        }
    }

    /// The places, in words: `scenario=none, outage, burst`.
    pub fn describe(self) -> String {
        if self == Applies::ALL {
            return String::from("every scenario");
        }
        let mut names: Vec<&str> = Vec::new();
        if self.contains(Applies::REQUEST) {
            names.push("none");
        }
        for s in ScenarioKind::ALL {
            if self.contains(Applies::of(Some(s))) {
                names.push(s.name());
            }
        }
        format!("scenario={}", names.join(", "))
    }
}

/// Which group of the page's form a control sits in. The first four are always open; the
/// rest are folded until opened (rarely used, or used by one scenario).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// The retry policy.
    Policy,
    /// The backoff's finer shape (a floor, a throttled base, how the ceiling grows).
    Backoff,
    /// How a Retry-After answer is read.
    RetryAfter,
    /// The retry budget's sizes and who shares it.
    Budget,
    /// The schedule view and the seed.
    Schedule,
    /// One request's deadline and outcomes.
    Request,
    /// The simulated system.
    System,
    /// A slow-down of the server.
    Triggers,
    /// The circuit breaker.
    Breaker,
    /// How recovery is judged and the run's time series is binned.
    Recovery,
    /// The tuner's settings (`tune`, its limits).
    Tune,
    /// A teacher's question on the link.
    Exercise,
}

impl Group {
    /// Every group, in page order.
    pub const ALL: [Group; 12] = [
        Group::Policy,
        Group::Backoff,
        Group::RetryAfter,
        Group::Budget,
        Group::Schedule,
        Group::Request,
        Group::System,
        Group::Triggers,
        Group::Breaker,
        Group::Recovery,
        Group::Tune,
        Group::Exercise,
    ];

    /// The group's id on the page.
    pub const fn id(self) -> &'static str {
        match self {
            Group::Policy => "policy",
            Group::Backoff => "backoff-shape",
            Group::RetryAfter => "retry-after",
            Group::Budget => "budget-sizes",
            Group::Schedule => "schedule-view",
            Group::Request => "request",
            Group::System => "system",
            Group::Triggers => "triggers",
            Group::Breaker => "breaker-group",
            Group::Recovery => "recovery",
            Group::Tune => "tune-group",
            Group::Exercise => "exercise",
        }
    }
}

/// What edits a key on the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// No control (the key is set by a preset or the link only).
    None,
    /// A menu of the domain's choices.
    Select,
    /// A number field holding the link text as is.
    Number,
    /// A number field in milliseconds (`250` is `250ms`); empty means `none` where allowed.
    Millis,
    /// A text field holding the link text as is.
    Text,
    /// A checkbox (`true`/`false`).
    Check,
}

/// One link key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    /// The key as the link writes it.
    pub name: &'static str,
    /// Its value when neither the link nor a preset sets it (for budget and breaker details,
    /// the value when that budget or the breaker is chosen).
    pub default: &'static str,
    /// What it accepts.
    pub domain: Domain,
    /// The unit of its value, if any.
    pub unit: &'static str,
    /// Where it has an effect; anywhere else it is refused.
    pub applies: Applies,
    /// What it means, in one line.
    pub meaning: &'static str,
    /// Its page control.
    pub control: Control,
    /// The control's label.
    pub label: &'static str,
    /// The form group of its control.
    pub group: Group,
}

const fn dur(lo: Micros, hi: Micros) -> Domain {
    Domain::Dur {
        lo,
        hi,
        step: Micros(1),
        none: false,
    }
}

const fn dur_or_none(lo: Micros, hi: Micros) -> Domain {
    Domain::Dur {
        lo,
        hi,
        step: Micros(1),
        none: true,
    }
}

const fn int(lo: u64, hi: u64) -> Domain {
    Domain::Int { lo, hi }
}

const fn dec(scale: u64, lo: u64, hi: u64) -> Domain {
    Domain::Dec { scale, lo, hi }
}

const DAY: Micros = Micros::MAX_LINK;
const ZERO: Micros = Micros::ZERO;
const fn ms(n: u64) -> Micros {
    Micros::from_millis(n)
}
const fn s(n: u64) -> Micros {
    Micros::from_secs(n)
}

/// Where the retry policy acts: the one-request view and every scenario whose clients run it.
const POLICY: Applies = Applies::REQUEST
    .or(Applies::OUTAGE)
    .or(Applies::BURST)
    .or(Applies::LAYERS)
    .or(Applies::LOST);
/// The backoff shape, which the 2015 study uses too.
const BACKOFF: Applies = POLICY.or(Applies::OCC);
/// The retry budget (`layers` runs every layer without one); also the attempt limit, which
/// `layers` takes per layer from its own key.
const BUDGET: Applies = Applies::REQUEST
    .or(Applies::OUTAGE)
    .or(Applies::BURST)
    .or(Applies::LOST);
/// Settings only the scripted one-request view reads.
const REQUEST: Applies = Applies::REQUEST;
/// The tick server of the storms.
const STORM: Applies = Applies::OUTAGE.or(Applies::BURST);
/// Scenarios that keep a time series.
const SERIES: Applies = STORM.or(Applies::LAYERS).or(Applies::LOST);

mod choices;
mod table_md;
pub use choices::{
    BACKOFF_KINDS, BUDGETS, BUDGET_ROWS, ENGINES, JITTERS, RA_MODES, SCENARIOS, SERVERS,
};
pub use table_md::markdown;

macro_rules! key {
    ($name:literal, $default:literal, $domain:expr, $unit:literal, $applies:expr, $meaning:literal) => {
        key!(
            $name,
            $default,
            $domain,
            $unit,
            $applies,
            $meaning,
            Control::None,
            "",
            Group::System
        )
    };
    ($name:literal, $default:literal, $domain:expr, $unit:literal, $applies:expr, $meaning:literal, $control:expr, $label:literal, $group:expr) => {
        Key {
            name: $name,
            default: $default,
            domain: $domain,
            unit: $unit,
            applies: $applies,
            meaning: $meaning,
            control: $control,
            label: $label,
            group: $group,
        }
    };
}

/// Every key, in the order a link writes and applies them (`v` is read first).
pub static TABLE: &[Key] = &[
    key!("preset", "none", Domain::Preset, "", Applies::ALL,
        "start from a real client's settings or a worked example"),
    key!("deadline", "10s", dur_or_none(Micros(1), DAY), "duration", POLICY,
        "the request's whole budget, measured from its start (must be > 0)",
        Control::Millis, "Deadline (ms, empty for none)", Group::Request),
    key!("elapsed", "0ms", dur(ZERO, DAY), "duration", REQUEST,
        "time already spent before the first attempt",
        Control::Millis, "Already spent (ms)", Group::Request),
    key!("attempt_timeout", "3s", dur(Micros(1), DAY), "duration", POLICY,
        "the per-attempt ceiling",
        Control::Millis, "Per-attempt timeout (ms)", Group::Request),
    key!("reserve", "0ms", dur(ZERO, DAY), "duration", POLICY,
        "time kept back for the caller to answer (shorter than the deadline)",
        Control::Millis, "Reserve (ms)", Group::Request),
    key!("fit", "full", Domain::Choice(&[("full", "whole attempt must fit"), ("cut", "cut the last attempt to fit")]), "", POLICY,
        "`full`: a retry must leave room for a whole attempt (`wait + attempt_timeout + reserve <= remaining`); `cut`: the next attempt may be cut short (`wait + reserve < remaining`)",
        Control::Select, "Does a retry fit? (deadline rule)", Group::Policy),
    key!("latency", "20ms", dur(ZERO, DAY), "duration", REQUEST,
        "how long a non-timeout attempt takes unless its outcome says `took=`",
        Control::Millis, "Attempt latency (ms)", Group::Request),
    key!("attempts", "3", int(1, MAX_ATTEMPTS as u64), "attempts", BUDGET,
        "attempts including the first call: N attempts = 1 call + N-1 retries",
        Control::Number, "Attempts (1 call + retries)", Group::Policy),
    key!("backoff", "full", Domain::Choice(BACKOFF_KINDS), "", BACKOFF,
        "the wait's shape (formulas below)",
        Control::Select, "Backoff kind", Group::Policy),
    key!("base", "100ms", dur(ZERO, DAY), "duration", BACKOFF,
        "first ceiling; decorrelated's lower bound (at most cap; > 0 for decorrelated)",
        Control::Millis, "Base (ms)", Group::Policy),
    key!("cap", "20s", dur(Micros(1), DAY), "duration", BACKOFF,
        "no wait exceeds it",
        Control::Millis, "Cap (ms)", Group::Policy),
    key!("multiplier", "2", dec(1_000_000, 1_000_000, (MAX_MULTIPLIER * 1e6) as u64), "", BACKOFF,
        "growth per retry",
        Control::Number, "Multiplier", Group::Policy),
    key!("first_exp", "0", int(0, 64), "", BACKOFF,
        "exponent before the first retry (the 2015 simulator uses 1)",
        Control::Number, "First exponent", Group::Policy),
    key!("floor", "0ms", dur(ZERO, DAY), "duration", BACKOFF,
        "no computed wait is shorter (Stripe: 500 ms; at most cap)",
        Control::Millis, "Shortest wait (ms)", Group::Backoff),
    key!("jitter", "none", Domain::Choice(JITTERS), "", BACKOFF,
        "a spread on the fixed wait `d` of backoff=exponential or constant: `mult` draws from `[d x jitter_lo, d x jitter_hi]`, `add` from `[d, d + jitter_add]`",
        Control::Select, "Jitter on the wait", Group::Policy),
    key!("jitter_lo", "0.8", dec(1000, 0, 10_000), "", BACKOFF,
        "with `jitter=mult`: the low factor (openai: 0.75; at most jitter_hi)",
        Control::Number, "Jitter low factor", Group::Policy),
    key!("jitter_hi", "1.2", dec(1000, 0, 10_000), "", BACKOFF,
        "with `jitter=mult`: the high factor (gRPC since 2024: 1.2; backon: 2; at most 10)",
        Control::Number, "Jitter high factor", Group::Policy),
    key!("jitter_add", "100ms", dur(ZERO, DAY), "duration", BACKOFF,
        "with `jitter=add`: the most added (got: 100 ms; stamina: 1 s)",
        Control::Millis, "Jitter added, at most (ms)", Group::Policy),
    key!("jitter_after_cap", "false", Domain::Flag, "", BACKOFF,
        "jitter the capped wait, so a wait may exceed the cap (backon, gRPC); otherwise the cap bounds the jittered wait (stamina, urllib3)",
        Control::Check, "jitter after the cap", Group::Policy),
    key!("first_wait", "backoff", Domain::Choice(&[("backoff", "the backoff's"), ("0", "none: retry at once")]), "", BACKOFF,
        "`0`: the first retry goes at once and later retries keep their exponents (urllib3, azure-core: 0, 2 x base, 4 x base)",
        Control::Select, "First retry's wait", Group::Policy),
    key!("sorted", "false", Domain::Flag, "", BACKOFF,
        "draw a client's waits up front and use them smallest first (node-retry, async-retry; at most 100 retries)",
        Control::Check, "sorted draws", Group::Policy),
    key!("multiplier_from_base", "false", Domain::Flag, "", BACKOFF,
        "the multiplier is the base in milliseconds, as tokio-retry's `from_millis(10)` gives 10, 100, 1000 ms (base in [1ms, 10s])",
        Control::Check, "the base sets the growth (multiplier = base)", Group::Backoff),
    key!("ceiling_sum", "false", Domain::Flag, "", BACKOFF,
        "the ceiling is the sum of the steps so far, `base x (1 + m + ... + m^k)`: Envoy's docs' `(2^N - 1) x base`",
        Control::Check, "ceiling as a sum of the waits so far", Group::Backoff),
    key!("whole_ms", "false", Domain::Flag, "", BACKOFF,
        "with `backoff=full`: draws the wait in whole milliseconds below the ceiling, U{0, ..., c - 1} ms, as Envoy's `random() % window`",
        Control::Check, "full jitter in whole milliseconds (Envoy)", Group::Backoff),
    key!("throttle_base", "none", dur_or_none(ZERO, DAY), "duration", REQUEST,
        "base used after a 429 (AWS 2026: 1 s; at most cap); no simulated server answers 429",
        Control::Millis, "Base after a throttling answer (ms, empty: none)", Group::Backoff),
    key!("classify", "table", Domain::Choice(&[("table", "the lab's table"), ("aws", "AWS SDKs"), ("grpc", "gRPC"), ("stripe", "Stripe")]), "", POLICY,
        "whose rules decide what is retryable (below)",
        Control::Select, "Which failures are retried (rules)", Group::Policy),
    key!("retry_on", "", Domain::List("a comma list of statuses or ranges a-b in [100, 999], or gRPC codes by name or number (UNAVAILABLE, 14)"), "", POLICY,
        "the client's own retryable statuses: a listed status is retried whatever the operation, any other never (timeouts and refused connections follow `classify`); a gRPC code stands for the HTTP status a gateway answers for it (UNAVAILABLE 503, RESOURCE_EXHAUSTED 429, DEADLINE_EXCEEDED 504); empty: `classify` decides",
        Control::Text, "Retryable statuses (empty: the rules)", Group::Request),
    key!("idempotent", "false", Domain::Flag, "", POLICY,
        "repeating the operation is harmless (GET, PUT)",
        Control::Check, "idempotent", Group::Request),
    key!("key", "false", Domain::Flag, "", POLICY,
        "the request carries an idempotency key",
        Control::Check, "idempotency key", Group::Request),
    key!("outcomes", "connect_timeout,503,ok", Domain::List("a comma list of at most 100 outcome tokens (see docs/link.md)"), "", REQUEST,
        "one per attempt; attempts past the end succeed",
        Control::Text, "Outcomes, one per attempt", Group::Request),
    key!("waits", "", Domain::List("a comma list of at most 100 durations or - (draw that wait)"), "", REQUEST,
        "forced waits, one per retry; `-` draws it",
        Control::Text, "Forced waits (- draws)", Group::Request),
    key!("retry_after", "none", dur_or_none(ZERO, DAY), "duration", REQUEST.or(STORM),
        "a Retry-After for every \"wait\" failure without its own (the storms' 503s too)",
        Control::Millis, "Retry-After on every \"wait\" failure (ms, empty: none)", Group::RetryAfter),
    key!("ra_mode", "server", Domain::Choice(RA_MODES), "", REQUEST.or(STORM),
        "how Retry-After becomes the wait (below)",
        Control::Select, "Retry-After rule", Group::RetryAfter),
    key!("ra_cap", "21600s", dur(ZERO, DAY), "duration", REQUEST.or(STORM),
        "with `ra_mode=cap`: the longest Retry-After honoured (urllib3: 6 h; httpx-retries: 120 s)",
        Control::Millis, "Retry-After cap (ms)", Group::RetryAfter),
    key!("ra_max", "120s", dur(ZERO, DAY), "duration", REQUEST.or(STORM),
        "with `ra_mode=refuse_above`: a longer Retry-After ends the request unretried (openai: 120 s); with `ra_mode=envoy`: a longer one is dropped and the backoff used (Envoy's `max_interval`, 300 s)",
        Control::Millis, "Longest Retry-After obeyed (ms)", Group::RetryAfter),
    key!("budget", "none", Domain::Choice(BUDGETS), "", BUDGET,
        "the retry budget (below)",
        Control::Select, "Retry budget", Group::Policy),
    key!("budget_start", "full", dec(1000, 0, 1_000_000_000), "tokens", BUDGET,
        "the budget's starting level (ratio: retries credited at t = 0; rate: retries left); needs a budget",
        Control::Number, "Budget at the start (tokens)", Group::Budget),
    key!("budget_scope", "process", Domain::Choice(&[("client", "per client"), ("process", "per process"), ("tenant", "per tenant")]), "", STORM,
        "who shares one budget; needs a budget",
        Control::Select, "Who shares the budget", Group::Budget),
    key!("bucket_max", "10", dec(1000, 1000, 1_000_000_000), "tokens", BUDGET,
        "with `budget=bucket`: tokens held at most",
        Control::Number, "Bucket size (tokens)", Group::Budget),
    key!("bucket_refill", "0.1", dec(1000, 1, 1_000_000), "tokens", BUDGET,
        "with `budget=bucket`: tokens added per success",
        Control::Number, "Tokens per success", Group::Budget),
    key!("ratio_percent", "20", dec(10, 1, 10_000), "%", BUDGET,
        "with `budget=ratio`/`chapter`: retries per 100 calls",
        Control::Number, "Retries per 100 calls (%)", Group::Budget),
    key!("ratio_window", "10s", Domain::Dur { lo: s(1), hi: s(60), step: s(1), none: false }, "duration", BUDGET,
        "with `budget=ratio`/`chapter`: how long a call counts",
        Control::Millis, "Ratio window (ms)", Group::Budget),
    key!("ratio_min_per_s", "10", int(0, 10_000), "retries/s", BUDGET,
        "with `budget=ratio`/`chapter`: retries per second always allowed",
        Control::Number, "Retries always allowed (per s)", Group::Budget),
    key!("grpc_max_tokens", "10", int(1, 1000), "tokens", BUDGET,
        "with `budget=grpc`: maxTokens",
        Control::Number, "gRPC maxTokens", Group::Budget),
    key!("grpc_token_ratio", "0.1", dec(1000, 1, 1_000_000), "tokens", BUDGET,
        "with `budget=grpc`: tokenRatio",
        Control::Number, "gRPC tokenRatio", Group::Budget),
    key!("envoy_max_retries", "3", int(1, 100_000), "retries", BUDGET,
        "with `budget=envoy`: retries in flight at once across all requests (an Envoy cluster's `circuit_breakers` `max_retries`)",
        Control::Number, "Retries in flight at most", Group::Budget),
    key!("envoy_budget_percent", "20", dec(10, 0, 1000), "%", BUDGET,
        "with `budget=envoy_budget`: retries in flight as a share of all attempts in flight (an Envoy cluster's `retry_budget` `budget_percent`)",
        Control::Number, "Retries in flight (% of active)", Group::Budget),
    key!("envoy_min_retry_concurrency", "3", int(0, 100_000), "retries", BUDGET,
        "with `budget=envoy_budget`: retries in flight always allowed (`retry_budget` `min_retry_concurrency`)",
        Control::Number, "Retries in flight always allowed", Group::Budget),
    key!("rate_per_window", "60", int(1, 1_000_000), "retries", BUDGET,
        "with `budget=rate`: retries per window",
        Control::Number, "Retries per window", Group::Budget),
    key!("rate_window", "60s", dur(s(1), s(3600)), "duration", BUDGET,
        "with `budget=rate`: the window",
        Control::Millis, "Rate window (ms)", Group::Budget),
    key!("scenario", "none", Domain::Choice(SCENARIOS), "", Applies::ALL,
        "the system to simulate (`none`: one request, step by step)",
        Control::Select, "Scenario", Group::System),
    key!("rate", "40", dec(1000, 1, 100_000_000), "requests/s", Applies::OUTAGE.or(Applies::LOST).or(Applies::LAYERS),
        "original requests per second (`layers`: their spacing)",
        Control::Number, "Requests per second", Group::System),
    key!("arrivals", "constant", Domain::Choice(&[("constant", "evenly spaced"), ("poisson", "Poisson")]), "", Applies::OUTAGE,
        "evenly spaced or Poisson arrivals",
        Control::Select, "Arrivals", Group::System),
    key!("duration", "60s", dur(ms(1), s(caps::DURATION_S)), "duration", Applies::OUTAGE.or(Applies::LOST),
        "how long requests keep arriving",
        Control::Millis, "Duration (ms)", Group::System),
    key!("capacity", "50", dec(1000, 1, 100_000_000), "attempts/s", STORM,
        "attempts per second the server can serve",
        Control::Number, "Capacity (attempts/s)", Group::System),
    key!("tick", "10ms", dur(Micros(100), s(10)), "duration", STORM,
        "the server's accounting tick: attempts in one tick compete for its capacity",
        Control::Millis, "Server tick (ms)", Group::System),
    key!("reject_cost", "0.1", dec(1000, 0, 1000), "slots", STORM,
        "share of a slot one rejected attempt uses",
        Control::Number, "Cost of a refusal (slots)", Group::System),
    key!("server", "tick", Domain::Choice(SERVERS), "", STORM,
        "how the server serves attempts (below)",
        Control::Select, "Server", Group::System),
    key!("engine", "auto", Domain::Choice(ENGINES), "", STORM,
        "`request`: every request its own events; `population`: counts of requests stepped a tick at a time, for production sizes (the tick, queue or flaky server, a backoff known in advance, decorrelated jitter or Polly's decorrelated-v2 (without a budget), a bucket, ratio or rate budget, the AWS quota, gRPC throttling or Envoy's `max_retries` or `retry_budget` for the process (the bucket, the AWS quota, gRPC throttling and the rate also for each of up to 100 clients or their tenants), a Retry-After under every `ra_mode` but the AWS clamp where the server's value falls inside the backoff plus 5 s (Envoy's spread too); both fit rules; a load spike, a circuit breaker, closed-loop users, the AWS adaptive limiter for the process or for each of up to 100 clients; no hedging; refused by name otherwise); `auto`: the per-request engine up to about a second's work or 100,000 requests at once, the population engine above where it can run the link",
        Control::Select, "Engine", Group::System),
    key!("workers", "4", int(1, caps::WORKERS as u64), "workers", STORM,
        "with `server=queue`: requests served at once",
        Control::Number, "Workers", Group::System),
    key!("queue_limit", "1000", int(0, caps::QUEUE_LIMIT as u64), "requests", STORM,
        "with `server=queue`: requests waiting at most; one more is refused with a 503 at once",
        Control::Number, "Queue limit (requests)", Group::System),
    key!("discipline", "fifo", Domain::Choice(&[("fifo", "oldest first"), ("lifo", "newest first")]), "", STORM,
        "with `server=queue`: which waiting request a free worker takes",
        Control::Select, "Queue order", Group::System),
    key!("service_dist", "const", Domain::Choice(&[("const", "always the mean"), ("exp", "exponential"), ("lognormal", "lognormal"), ("mix", "two values")]), "", STORM,
        "with `server=queue` or `flaky`: the service time's distribution around `service` (`mix`: `service`, or `service_tail` with probability `service_tail_p`)",
        Control::Select, "Service time distribution", Group::System),
    key!("service_cv", "1", dec(1000, 1, 10_000), "", STORM,
        "with `service_dist=lognormal`: the service time's coefficient of variation (sd / mean)",
        Control::Number, "Service time variation (sd / mean)", Group::System),
    key!("service_tail", "1s", dur(ZERO, s(60)), "duration", STORM,
        "with `service_dist=mix`: the slow service time",
        Control::Millis, "Slow service time (ms)", Group::System),
    key!("service_tail_p", "0.01", dec(1_000_000, 0, 1_000_000), "probability", STORM,
        "with `service_dist=mix`: the probability that a service takes `service_tail`",
        Control::Number, "Share of slow services", Group::System),
    key!("latency_per_inflight", "0ms", dur(ZERO, s(10)), "duration", STORM,
        "with `server=queue`: extra service time per request at the server when one starts",
        Control::Millis, "Extra service per request in flight (ms)", Group::System),
    key!("server_deadline", "off", Domain::Switch, "", STORM,
        "with `server=queue`: a worker drops a waiting request whose caller has already given up (deadline propagation)",
        Control::Select, "Server drops requests whose caller gave up", Group::System),
    key!("fail", "0.1", dec(1_000_000, 0, 1_000_000), "probability", STORM,
        "with `server=flaky`: the probability that an attempt fails (a 503), whatever the load",
        Control::Number, "Failure probability", Group::System),
    key!("slow", "1", dec(1000, 1000, 1_000_000), "x", STORM,
        "a capacity drop: service times multiplied by this (the tick server's capacity divided by it) from `slow_start` for `slow_for`",
        Control::Number, "Slow-down factor (x)", Group::Triggers),
    key!("slow_start", "0ms", dur(ZERO, DAY), "duration", STORM,
        "when the capacity drop starts",
        Control::Millis, "Slow-down starts at (ms)", Group::Triggers),
    key!("slow_for", "0ms", dur(ZERO, DAY), "duration", STORM,
        "how long the capacity drop lasts (0: none)",
        Control::Millis, "Slow-down length (ms)", Group::Triggers),
    key!("spike_rate", "0", dec(1000, 0, 100_000_000), "requests/s", Applies::OUTAGE,
        "a load spike: extra requests per second from `spike_start` for `spike_for`",
        Control::Number, "Spike (extra requests/s)", Group::System),
    key!("spike_start", "0ms", dur(ZERO, DAY), "duration", Applies::OUTAGE,
        "when the load spike starts",
        Control::Millis, "Spike starts at (ms)", Group::System),
    key!("spike_for", "0ms", dur(ZERO, DAY), "duration", Applies::OUTAGE,
        "how long the load spike lasts (0: none)",
        Control::Millis, "Spike length (ms)", Group::System),
    key!("users", "0", int(0, caps::USERS as u64), "users", Applies::OUTAGE,
        "a closed loop: this many users, each sending its next request `think` after the last one ended (0: open-loop arrivals at `rate`)",
        Control::Number, "Closed-loop users (0: open loop)", Group::System),
    key!("think", "1s", dur(ZERO, s(3600)), "duration", Applies::OUTAGE,
        "with `users`: each user's pause between a request's end and its next",
        Control::Millis, "Think time (ms)", Group::System),
    key!("recovery_window", "1s", dur(ms(1), s(3600)), "duration", Applies::OUTAGE,
        "recovery after a trigger: goodput is counted per window of this length (whole bins, rounded up)",
        Control::Millis, "Recovery window (ms)", Group::Recovery),
    key!("recovery_tolerance", "0.1", dec(1000, 0, 1000), "share", Applies::OUTAGE,
        "recovery: a window holds when its goodput is at least 1 minus this share of the goodput before the trigger",
        Control::Number, "Recovery tolerance (share)", Group::Recovery),
    key!("recovery_hold", "3", int(1, 1000), "windows", Applies::OUTAGE,
        "recovery: windows in a row that must hold; the run recovered at the first of them",
        Control::Number, "Windows that must hold", Group::Recovery),
    key!("outage_start", "2s", dur(ZERO, DAY), "duration", Applies::OUTAGE,
        "when the outage starts",
        Control::Millis, "Outage starts at (ms)", Group::System),
    key!("outage", "5s", dur(ZERO, DAY), "duration", Applies::OUTAGE,
        "how long every attempt fails (0 for none)",
        Control::Millis, "Outage length (ms)", Group::System),
    key!("outage_kind", "503", Domain::Choice(&[("503", "an immediate 503"), ("connect_timeout", "connections time out")]), "", Applies::OUTAGE,
        "an immediate 503, or connections that time out",
        Control::Select, "Outage kind", Group::System),
    key!("net", "1ms", dur(ZERO, s(10)), "duration", Applies::SIMS,
        "one-way network delay (its mean for `occ`)",
        Control::Millis, "Network delay (ms)", Group::System),
    key!("net_sd", "0ms", dur(ZERO, s(10)), "duration", Applies::OCC,
        "standard deviation of the network delay, drawn as the absolute value of `Normal(net, net_sd)`",
        Control::Millis, "Network delay spread (ms, sd)", Group::System),
    key!("runs", "1", int(1, caps::RUNS as u64), "", Applies::SIMS,
        "repetitions, each on its own streams of the seed; summaries are means with their 95% intervals, and the timeline shades each bin's range of attempts over the runs (all but the highest and lowest fortieth) around the first run's line (the CSV's `attempts_low`, `attempts_high`)",
        Control::Number, "Runs (repetitions)", Group::System),
    key!("sequential", "auto", Domain::Choice(&[("auto", "in a phase plot only"), ("true", "stop once clear"), ("false", "every run")]), "", Applies::SIMS,
        "with `runs`: stop once the 95% interval of the share of runs that recovered lies wholly above or below 50% (at least 6 runs; a phase plot's cells each take what they need); `auto` stops the cells of a sweep that plots only recovery (`sweep.plot=recovered`, a phase plot) and makes every run of anything else; a version 1 link's phase plot makes every run",
        Control::Select, "Stop runs once recovery is clear", Group::System),
    key!("replicate", "1", int(1, caps::REPLICATE as u64), "", Applies::SIMS,
        "the number of the first run: run `r` of a seed draws from its own streams, so `replicate=7` alone reproduces the 7th run of `runs=20` (and `runs=10&replicate=11` the next ten)",
        Control::Number, "First run (replicate)", Group::System),
    key!("bin", "1s", dur(ms(1), s(3600)), "duration", SERIES,
        "width of the time series bins (widened to keep at most 20000)",
        Control::Millis, "Chart bin width (ms)", Group::Recovery),
    key!("at", "none", dur_or_none(ZERO, DAY), "duration", SERIES,
        "report attempts per second in the bin holding this time",
        Control::Millis, "Read attempts/s at (ms, empty: none)", Group::Recovery),
    key!("tenants", "1", int(1, 10_000), "", STORM,
        "tenants requests are spread over; needs `budget_scope=tenant`",
        Control::Number, "Tenants", Group::Budget),
    key!("breaker", "off", Domain::Switch, "", STORM,
        "a circuit breaker beside the policy",
        Control::Select, "Circuit breaker", Group::Breaker),
    key!("breaker_window", "10s", dur(s(1), s(600)), "duration", STORM,
        "with `breaker=on`: the window calls and failures are counted over",
        Control::Millis, "Breaker window (ms)", Group::Breaker),
    key!("breaker_failures", "50", int(1, 100), "%", STORM,
        "with `breaker=on`: opens at this percentage of failed calls...",
        Control::Number, "Opens at failed calls (%)", Group::Breaker),
    key!("breaker_min_calls", "20", int(1, 1_000_000), "calls", STORM,
        "...once the window holds this many calls",
        Control::Number, "Calls before it may open", Group::Breaker),
    key!("breaker_open", "5s", dur(ms(1), s(3600)), "duration", STORM,
        "with `breaker=on`: how long it stays open",
        Control::Millis, "Stays open for (ms)", Group::Breaker),
    key!("breaker_probes", "3", int(1, 1000), "probes", STORM,
        "with `breaker=on`: half-open probes; all must succeed to close",
        Control::Number, "Half-open probes", Group::Breaker),
    key!("limiter", "none", Domain::Choice(&[("none", "none"), ("aws-adaptive", "AWS adaptive mode")]), "", STORM,
        "`aws-adaptive`: botocore's client-side rate limiter (CUBIC over a token bucket; each send waits for a token once a throttling answer, a 429 or 503, has turned it on)",
        Control::Select, "Client-side rate limiter", Group::System),
    key!("limiter_scope", "process", Domain::Choice(&[("process", "per process"), ("client", "per client")]), "", STORM,
        "with `limiter=aws-adaptive`: one limiter for all clients, or one each",
        Control::Select, "Who shares the limiter", Group::System),
    key!("hedge", "off", Domain::Choice(&[("off", "off"), ("on", "gRPC A6 hedging")]), "", STORM,
        "`on`: hedged requests by gRPC's A6 rules instead of retries: a further attempt every `hedge_delay` while none has answered, up to `hedge_max` in all; a non-fatal failure sends the next at once; the first success wins and the others are cancelled; each further attempt asks the budget",
        Control::Select, "Hedging", Group::System),
    key!("hedge_delay", "10ms", dur(ZERO, s(60)), "duration", STORM,
        "with `hedge=on`: the wait before each further attempt while none has answered",
        Control::Millis, "Hedging delay (ms)", Group::System),
    key!("hedge_max", "2", int(2, caps::HEDGE_ATTEMPTS as u64), "attempts", STORM,
        "with `hedge=on`: attempts in all, the first included (gRPC allows at most 5)",
        Control::Number, "Hedged attempts in all", Group::System),
    key!("layers", "3,3,3", Domain::List("a comma list of 1 to 8 attempts per layer, each in [1, 100], product at most 1000000"), "", Applies::LAYERS,
        "attempts per layer, top first",
        Control::Text, "Attempts per layer, top first", Group::System),
    key!("layer_names", "none", Domain::List("a comma list of one name per layer, each 1 to 40 letters, digits, '.', '_' or '-', or none"), "", Applies::LAYERS,
        "each layer's name, top first, as the tree labels it (`retrylab import` names each layer after its file)",
        Control::Text, "Layer names, top first", Group::System),
    key!("p", "1", dec(1_000_000, 0, 1_000_000), "probability", Applies::LAYERS,
        "probability that a bottom call fails",
        Control::Number, "Bottom failure probability", Group::System),
    key!("requests", "1000", int(1, 1_000_000), "requests", Applies::LAYERS,
        "user requests",
        Control::Number, "User requests", Group::System),
    key!("lose", "0.1", dec(1_000_000, 0, 1_000_000), "probability", Applies::LOST,
        "probability that a committed charge's answer is lost",
        Control::Number, "Share of answers lost", Group::System),
    key!("service", "50ms", dur(ZERO, s(60)), "duration", Applies::LOST.or(STORM),
        "how long the charge endpoint works before committing (`lost`); the mean service time of `server=queue` and `flaky`",
        Control::Millis, "Service time (ms)", Group::System),
    key!("seed", "1", int(0, u64::MAX), "", Applies::ALL,
        "the master seed of every random draw",
        Control::Number, "Seed", Group::Schedule),
    key!("clients", "20", int(1, MAX_LINK_CLIENTS as u64), "clients", Applies::REQUEST.or(Applies::OUTAGE).or(Applies::BURST).or(Applies::OCC),
        "clients drawn in the schedule view (clients x retries at most 50000 there); the clients of `burst` and `occ` (at most 1000 for `occ`); the callers of `outage` (for `budget_scope=client`)",
        Control::Number, "Clients", Group::Schedule),
    key!("tune", "off", Domain::Switch, "", Applies::OUTAGE,
        "find a better policy: search the retry policies (attempts, backoff and jitter, base, cap, attempt timeout, a breaker, a budget) for those on the frontier of success, attempts per original and p99 over a 5 s outage, a 60 s outage, a load spike and a halved capacity (or `tune_weather`'s), by successive halving (as `retrylab tune`); the page draws the frontier with the link's own policy",
        Control::Select, "Find a better policy", Group::Tune),
    key!("tune_candidates", "32", int(4, super::tune_keys::DISTINCT as u64), "policies", Applies::OUTAGE,
        "with `tune`: the policies drawn to start the search (8484: every one)",
        Control::Number, "Policies to start from", Group::Tune),
    key!("tune_runs", "8", int(1, 100), "runs", Applies::OUTAGE,
        "with `tune`: the most runs a policy gets under each weather (the last round's; rounds start at 2 and double)",
        Control::Number, "Most runs a policy gets", Group::Tune),
    key!("tune_max_amp", "none", dec(1000, 1000, 1_000_000), "attempts per original", Applies::OUTAGE,
        "with `tune`: a policy over this many attempts per original in any weather does not count (`none`: no limit)",
        Control::Number, "Most attempts per original (empty: no limit)", Group::Tune),
    key!("tune_p99", "none", dur_or_none(ms(1), DAY), "duration", Applies::OUTAGE,
        "with `tune`: a policy whose p99 latency passes this in any weather does not count",
        Control::Millis, "Longest p99 (ms, empty: no limit)", Group::Tune),
    key!("tune_max_peak", "none", int(1, 1_000_000_000), "attempts/s", Applies::OUTAGE,
        "with `tune`: a policy whose peak attempts a second pass this in any weather does not count (`none`: no limit)",
        Control::Number, "Most peak attempts/s (empty: no limit)", Group::Tune),
    key!("tune_recover", "off", Domain::Switch, "", Applies::OUTAGE,
        "with `tune`: a policy counts only if every run of every weather recovers (its goodput back within 10% of its level before the trigger for 3 s in a row)",
        Control::Select, "Must recover in every run", Group::Tune),
    key!("tune_format", "none", Domain::Choice(&super::tune_keys::FORMATS), "", Applies::OUTAGE,
        "with `tune`: search only the policies this configuration format writes back with no note the link's own does not need (as `retrylab tune --format-of`); the page sets it for a link the Import box read",
        Control::Select, "Keep to what this format writes", Group::Tune),
    key!("tune_weather", "default", Domain::List("default, or 1 to 8 weathers separated by '/', each NAME:KEYS with its link keys separated by ',' (blip:outage=5s/long:outage=60s,duration=120s)"), "", Applies::OUTAGE,
        "with `tune`: the conditions a policy must survive (as `retrylab tune --weather`); `default`: a 5 s outage, a 60 s outage, a load spike and a halved capacity",
        Control::Text, "Weathers", Group::Tune),
    key!("lesson", "none", Domain::Choice(&super::lesson::MENU), "", Applies::ALL,
        "show this lesson: what to look for, and its question before the run"),
    key!("guess", "none", Domain::List("the reader's answer: a number with or without its unit (3.6 s, 3600ms, 91.7 %, 0.917), or one of the question's choices (up to 40 letters, digits, spaces, '.', '-', '+', '%')"), "", Applies::ALL,
        "the reader's answer to the lesson's question; the run is shown once it is given"),
    key!("ask", "none", Domain::List("what the link asks before it shows its answer: a run's metric (amplification, success_rate, p99_ms, recovered, ...), least:, most:, same: or helps: and a metric over a sweep's rows, remaining_at:<n> or made:<n> for the traced request, or outlasts_mixing"), "", Applies::ALL,
        "turns the link into an exercise: the page hides this figure until the reader has guessed, and `retrylab answer` prints it",
        Control::Text, "Ask (a figure: amplification, success_rate, least:attempts, made:2, ...)", Group::Exercise),
    key!("q", "none", Domain::List("plain text, at most 300 characters"), "", Applies::ALL,
        "the exercise's question in words (with `ask`)",
        Control::Text, "Question in words (up to 300 characters)", Group::Exercise),
    key!("sheet", "none", Domain::List("an exercise sheet: its title, then one exercise link a line (percent-encoded; `retrylab sheet FILE` writes it)"), "", Applies::ALL,
        "the exercise sheet this link belongs to; a link with only a sheet opens its first exercise"),
    key!("sheet_at", "1", int(1, super::sheet::MAX_EXERCISES as u64), "", Applies::ALL,
        "the sheet's exercise on screen, from 1"),
    key!("v", "2", Domain::Version, "", Applies::ALL, "link version"),
];

/// The setting a budget's or the breaker's own key is read under (`bucket_max` under
/// `budget=bucket`, `breaker_open` under `breaker=on`), as `(key, value)`; `None` for others.
pub fn detail_of(name: &str) -> Option<(&'static str, &'static str)> {
    match name {
        n if n.starts_with("bucket_") => Some(("budget", "bucket")),
        n if n.starts_with("ratio_") => Some(("budget", "ratio")),
        n if n.starts_with("grpc_") => Some(("budget", "grpc")),
        n if n.starts_with("rate_") => Some(("budget", "rate")),
        "envoy_max_retries" => Some(("budget", "envoy")),
        n if n.starts_with("envoy_") => Some(("budget", "envoy_budget")),
        n if n.starts_with("breaker_") => Some(("breaker", "on")),
        _ => None,
    }
}

/// The position in [`TABLE`] of the key `name`, found while the program compiles: an unknown
/// name is a compile error where it is used through [`crate::link_key!`].
pub const fn position(name: &str) -> usize {
    let mut i = 0;
    while i < TABLE.len() {
        if same(TABLE[i].name.as_bytes(), name.as_bytes()) {
            return i;
        }
        i += 1;
    }
    panic!("not a link key")
}

/// Whether two byte strings are equal, in a `const fn`.
const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The row for a key name.
pub fn key(name: &str) -> Option<&'static Key> {
    TABLE.iter().find(|k| k.name == name)
}

fn index(name: &str) -> usize {
    TABLE.iter().position(|k| k.name == name).unwrap_or(0)
}

/// Whether a key is one of the simulation's (from `scenario` to `service` in the table).
pub fn is_sim(k: &Key) -> bool {
    let i = index(k.name);
    i >= index("scenario") && i <= index("service")
}

/// The row for a key the caller knows exists (a programming error otherwise, caught by the
/// table's own tests).
pub(crate) fn row(name: &str) -> &'static Key {
    key(name).unwrap_or(&TABLE[TABLE.len() - 1])
}

impl Key {
    pub(super) fn bad(&self, v: &str) -> ConfigError {
        err(self.name, v, &self.domain.accepted())
    }

    /// A duration (or `None` for `none`, where accepted).
    pub fn opt_dur(&self, v: &str) -> Result<Option<Micros>, ConfigError> {
        let Domain::Dur { lo, hi, step, none } = self.domain else {
            return Err(self.bad(v));
        };
        if none && v == "none" {
            return Ok(None);
        }
        match v.parse::<Micros>() {
            Ok(d) if d >= lo && d <= hi && d.0 % step.0.max(1) == 0 => Ok(Some(d)),
            _ => Err(self.bad(v)),
        }
    }

    /// A duration.
    pub fn dur(&self, v: &str) -> Result<Micros, ConfigError> {
        self.opt_dur(v)?.ok_or_else(|| self.bad(v))
    }

    /// A whole number.
    pub fn int(&self, v: &str) -> Result<u64, ConfigError> {
        let Domain::Int { lo, hi } = self.domain else {
            return Err(self.bad(v));
        };
        match v.parse::<u64>() {
            Ok(n) if (lo..=hi).contains(&n) && !v.starts_with('+') => Ok(n),
            _ => Err(self.bad(v)),
        }
    }

    /// A whole number that fits a `u32` (every `u32` key's range does).
    pub fn int32(&self, v: &str) -> Result<u32, ConfigError> {
        u32::try_from(self.int(v)?).map_err(|_| self.bad(v))
    }

    /// A decimal, as an integer number of `1/scale`.
    pub fn dec(&self, v: &str) -> Result<u64, ConfigError> {
        let Domain::Dec { scale, lo, hi } = self.domain else {
            return Err(self.bad(v));
        };
        match parse_scaled(v, scale) {
            Some(n) if (lo..=hi).contains(&n) => Ok(n),
            _ => Err(self.bad(v)),
        }
    }

    /// The enum value a choice key names: `v` checked against the key's domain, then found in
    /// `E::ALL` by its own `name()`, never by its place in a list.
    pub fn pick<E: Named>(&self, v: &str) -> Result<E, ConfigError> {
        self.choice(v)?;
        E::ALL
            .iter()
            .copied()
            .find(|e| e.name() == v)
            .ok_or_else(|| self.bad(v))
    }

    /// The index of a choice (for a choice with no enum of its own: a flag-like pair).
    pub fn choice(&self, v: &str) -> Result<usize, ConfigError> {
        let Domain::Choice(values) = self.domain else {
            return Err(self.bad(v));
        };
        values
            .iter()
            .position(|(name, _)| *name == v)
            .ok_or_else(|| self.bad(v))
    }

    /// A flag or a switch.
    pub fn flag(&self, v: &str) -> Result<bool, ConfigError> {
        match (self.domain, v) {
            (Domain::Flag, "true" | "yes" | "1") | (Domain::Switch, "on") => Ok(true),
            (Domain::Flag, "false" | "no" | "0") | (Domain::Switch, "off") => Ok(false),
            _ => Err(self.bad(v)),
        }
    }

    /// An error for this key with a rule of its own (list items, cross-key rules).
    pub fn error(&self, rule: impl Into<String>) -> ConfigError {
        ConfigError::new(self.name, rule)
    }

    /// The refusal for a key set where it has no effect.
    pub fn not_here(&self, scenario: Option<ScenarioKind>) -> ConfigError {
        let here = scenario.map_or("none", |s| s.name());
        self.error(format!(
            "has no effect with scenario={here}: it applies to {}",
            self.applies.describe()
        ))
    }
}

#[cfg(test)]
mod tests;
