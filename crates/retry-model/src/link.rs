//! The link: every setting as a URL query, read and written by the page and the CLI alike.
//!
//! The query is the lab's public interface. It carries a version (`v=1`), it names a preset or
//! not, and it lists only the keys that differ from the preset (or from the defaults), in a fixed
//! order, so `parse(format(p)) == p` for every valid `p`. `docs/link.md` documents every key.
//! Keys are applied in that fixed order whatever order a link writes them in, so
//! `budget=bucket&bucket_max=5` and `bucket_max=5&budget=bucket` mean the same.
//!
//! ```
//! use retry_model::Params;
//! let p: Params = "v=1&preset=chapter&attempts=4".parse().unwrap();
//! assert_eq!(p.policy.max_attempts, 4);
//! assert_eq!(p.to_string(), "v=1&preset=chapter&attempts=4");
//! let err = "base=5s&cap=2s".parse::<Params>().unwrap_err();
//! assert_eq!(err.field, "base");
//! ```

use crate::backoff::BackoffKind;
use crate::budget::{
    AwsQuotaConfig, BudgetConfig, GrpcThrottleConfig, RateConfig, RatioConfig, Scope,
    TokenBucketConfig,
};
use crate::classify::Classifier;
use crate::error::ConfigError;
use crate::outcome::ScriptedOutcome;
use crate::policy::{FitRule, RetryAfterMode, RetryPolicy, ValidPolicy, MAX_ATTEMPTS};
use crate::preset::Preset;
use crate::text::{decimal, dur, int, milli_text, parse_scaled, scaled};
use crate::time::Micros;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;

/// The link version this build writes. It reads every version up to this one.
pub const LINK_VERSION: u32 = 1;
/// The most simulated clients a schedule may draw for.
pub const MAX_CLIENTS: u32 = 10_000;
/// The longest a link may be, in bytes.
pub const MAX_LINK_LEN: usize = 8_192;
/// The most scripted outcomes or forced waits a link may list.
pub const MAX_SCRIPT: usize = 100;

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
        }
    }
}

/// The policy keys, then `seed`, `clients` and `v`; [`all_keys`] puts the simulation keys
/// before the last three. A link writes and applies keys in that order.
pub const KEYS: [&str; 37] = [
    "preset",
    "deadline",
    "elapsed",
    "attempt_timeout",
    "reserve",
    "fit",
    "latency",
    "attempts",
    "backoff",
    "base",
    "cap",
    "multiplier",
    "first_exp",
    "floor",
    "throttle_base",
    "classify",
    "idempotent",
    "key",
    "outcomes",
    "waits",
    "retry_after",
    "ra_mode",
    "budget",
    "budget_start",
    "budget_scope",
    "bucket_max",
    "bucket_refill",
    "ratio_percent",
    "ratio_window",
    "ratio_min_per_s",
    "grpc_max_tokens",
    "grpc_token_ratio",
    "rate_per_window",
    "rate_window",
    "seed",
    "clients",
    "v",
];

fn opt_dur(field: &'static str, v: &str) -> Result<Option<Micros>, ConfigError> {
    if v == "none" {
        Ok(None)
    } else {
        dur(field, v)
            .map(Some)
            .map_err(|e| ConfigError::new(field, format!("{} (or none)", e.rule)))
    }
}

fn boolean(field: &'static str, v: &str) -> Result<bool, ConfigError> {
    match v {
        "true" | "yes" | "1" => Ok(true),
        "false" | "no" | "0" => Ok(false),
        _ => Err(ConfigError::new(
            field,
            format!("'{v}' is not true or false"),
        )),
    }
}

/// A decimal with up to 3 places, as thousandths, in `[lo, hi]` thousandths.
fn milli(field: &'static str, v: &str, lo: u64, hi: u64) -> Result<u64, ConfigError> {
    let what = format!(
        "a number with at most 3 decimals in [{}, {}]",
        fmt_milli(lo),
        fmt_milli(hi)
    );
    scaled(field, v, 1000, lo, hi, &what)
}

fn fmt_milli(m: u64) -> String {
    milli_text(m)
}

fn wrong_budget(field: &'static str, kind: &str) -> ConfigError {
    ConfigError::new(field, format!("applies only with budget={kind}"))
}

impl Params {
    /// Sets one key from its link text.
    pub fn set(&mut self, key: &str, v: &str) -> Result<(), ConfigError> {
        let pol = &mut self.policy;
        match key {
            "v" => {
                let n = int("v", v, 1, u64::from(u32::MAX))
                    .map_err(|_| ConfigError::new("v", format!("'{v}' is not a link version: this build reads 1 to {LINK_VERSION}")))?;
                if n > u64::from(LINK_VERSION) {
                    return Err(ConfigError::new("v", format!("link version {n} is newer than this build, which reads 1 to {LINK_VERSION}")));
                }
            }
            "preset" => {
                let p = Preset::from_name(v).ok_or_else(|| {
                    let names: Vec<&str> = Preset::ALL.iter().map(|p| p.name()).collect();
                    ConfigError::new("preset", format!("unknown preset '{v}': accepted {}", names.join(", ")))
                })?;
                *self = Params::default();
                self.preset = Some(p);
                p.apply(self);
            }
            "deadline" => pol.deadline = opt_dur("deadline", v)?,
            "elapsed" => self.elapsed = dur("elapsed", v)?,
            "attempt_timeout" => pol.attempt_timeout = dur("attempt_timeout", v)?,
            "reserve" => pol.reserve = dur("reserve", v)?,
            "fit" => {
                pol.fit = match v {
                    "full" => FitRule::Full,
                    "cut" => FitRule::Cut,
                    _ => return Err(ConfigError::new("fit", format!("unknown rule '{v}': accepted full, cut"))),
                }
            }
            "latency" => self.latency = dur("latency", v)?,
            "attempts" => {
                pol.max_attempts = int("attempts", v, 1, u64::from(MAX_ATTEMPTS)).map_err(|e| {
                    ConfigError::new("attempts", format!("{} (attempts include the first call)", e.rule))
                })? as u32
            }
            "backoff" => pol.backoff.kind = BackoffKind::from_str(v)?,
            "base" => pol.backoff.base = dur("base", v)?,
            "cap" => pol.backoff.cap = dur("cap", v)?,
            "multiplier" => {
                pol.backoff.multiplier = match v.parse::<f64>() {
                    Ok(m) if m.is_finite() && (1.0..=crate::backoff::MAX_MULTIPLIER).contains(&m) => m,
                    _ => return Err(ConfigError::new("multiplier", format!("'{v}' is not a number in [1, 10]"))),
                }
            }
            "first_exp" => pol.backoff.first_exp = int("first_exp", v, 0, 64)? as u32,
            "floor" => pol.backoff.floor = dur("floor", v)?,
            "throttle_base" => pol.backoff.throttle_base = opt_dur("throttle_base", v)?,
            "classify" => {
                pol.classifier = Classifier::ALL.into_iter().find(|c| c.name() == v).ok_or_else(|| {
                    ConfigError::new("classify", format!("unknown classifier '{v}': accepted table, aws, grpc, stripe"))
                })?
            }
            "idempotent" => pol.operation.idempotent = boolean("idempotent", v)?,
            "key" => pol.operation.key = boolean("key", v)?,
            "outcomes" => {
                let list: Vec<ScriptedOutcome> = if v.is_empty() {
                    Vec::new()
                } else {
                    v.split(',').map(ScriptedOutcome::from_str).collect::<Result<_, _>>()?
                };
                if list.len() > MAX_SCRIPT {
                    return Err(ConfigError::new("outcomes", format!("at most {MAX_SCRIPT} outcomes, got {}", list.len())));
                }
                self.outcomes = list;
            }
            "waits" => {
                let list: Vec<Option<Micros>> = if v.is_empty() {
                    Vec::new()
                } else {
                    v.split(',')
                        .map(|w| if w == "-" { Ok(None) } else { dur("waits", w).map(Some) })
                        .collect::<Result<_, _>>()
                        .map_err(|e| ConfigError::new("waits", format!("{} (use - to draw that wait)", e.rule)))?
                };
                if list.len() > MAX_SCRIPT {
                    return Err(ConfigError::new("waits", format!("at most {MAX_SCRIPT} waits, got {}", list.len())));
                }
                self.waits = list;
            }
            "retry_after" => self.retry_after = opt_dur("retry_after", v)?,
            "ra_mode" => {
                pol.retry_after_mode = match v {
                    "server" => RetryAfterMode::Server,
                    "aws2026" => RetryAfterMode::Aws2026,
                    "stripe" => RetryAfterMode::Stripe,
                    _ => return Err(ConfigError::new("ra_mode", format!("unknown mode '{v}': accepted server, aws2026, stripe"))),
                }
            }
            "budget" => {
                pol.budget = match v {
                    "none" => BudgetConfig::None,
                    "aws" => BudgetConfig::Aws(AwsQuotaConfig::STANDARD),
                    "aws2026" => BudgetConfig::Aws(AwsQuotaConfig::Y2026),
                    "bucket" => BudgetConfig::Bucket(TokenBucketConfig::CHEAT_SHEET),
                    "ratio" => BudgetConfig::Ratio(RatioConfig::FINAGLE),
                    "chapter" => BudgetConfig::Ratio(RatioConfig::CHAPTER),
                    "grpc" => BudgetConfig::Grpc(GrpcThrottleConfig::EXAMPLE),
                    "rate" => BudgetConfig::Rate(RateConfig::SRE),
                    _ => {
                        return Err(ConfigError::new(
                            "budget",
                            format!("unknown budget '{v}': accepted none, aws, aws2026, bucket, ratio, chapter, grpc, rate"),
                        ))
                    }
                }
            }
            "budget_start" => self.budget_start = Some(milli("budget_start", v, 0, 1_000_000_000)?),
            "budget_scope" => {
                pol.scope = match v {
                    "client" => Scope::Client,
                    "process" => Scope::Process,
                    "tenant" => Scope::Tenant,
                    _ => return Err(ConfigError::new("budget_scope", format!("unknown scope '{v}': accepted client, process, tenant"))),
                }
            }
            "bucket_max" | "bucket_refill" => {
                let BudgetConfig::Bucket(b) = &mut pol.budget else { return Err(wrong_budget(static_key(key), "bucket")) };
                if key == "bucket_max" {
                    b.max_milli = milli("bucket_max", v, 1000, 1_000_000_000)?;
                } else {
                    b.refill_milli = milli("bucket_refill", v, 1, 1_000_000)?;
                }
            }
            "ratio_percent" | "ratio_window" | "ratio_min_per_s" => {
                let BudgetConfig::Ratio(r) = &mut pol.budget else { return Err(wrong_budget(static_key(key), "ratio")) };
                match key {
                    "ratio_percent" => {
                        r.per_mille = match parse_scaled(v, 10) {
                            Some(n) if (1..=10_000).contains(&n) => n as u32,
                            _ => return Err(ConfigError::new("ratio_percent", format!("'{v}' is not a percentage with at most 1 decimal in [0.1, 1000]"))),
                        }
                    }
                    "ratio_window" => {
                        let w = dur("ratio_window", v)?;
                        if w < Micros::from_secs(1) || w > Micros::from_secs(60) || w.0 % 1_000_000 != 0 {
                            return Err(ConfigError::new("ratio_window", format!("'{v}' must be whole seconds in [1s, 60s]")));
                        }
                        r.window = w;
                    }
                    _ => r.min_per_sec = int("ratio_min_per_s", v, 0, 10_000)? as u32,
                }
            }
            "grpc_max_tokens" | "grpc_token_ratio" => {
                let BudgetConfig::Grpc(g) = &mut pol.budget else { return Err(wrong_budget(static_key(key), "grpc")) };
                if key == "grpc_max_tokens" {
                    g.max_milli = int("grpc_max_tokens", v, 1, 1000)? * 1000;
                } else {
                    g.ratio_milli = milli("grpc_token_ratio", v, 1, 1_000_000)?;
                }
            }
            "rate_per_window" | "rate_window" => {
                let BudgetConfig::Rate(r) = &mut pol.budget else { return Err(wrong_budget(static_key(key), "rate")) };
                if key == "rate_per_window" {
                    r.per_window = int("rate_per_window", v, 1, 1_000_000)? as u32;
                } else {
                    let w = dur("rate_window", v)?;
                    if w < Micros::from_secs(1) || w > Micros::from_secs(3600) {
                        return Err(ConfigError::new("rate_window", format!("'{v}' must be in [1s, 1h]")));
                    }
                    r.window = w;
                }
            }
            "seed" => {
                self.seed = v.parse::<u64>().map_err(|_| ConfigError::new("seed", format!("'{v}' is not a whole number in [0, 18446744073709551615]")))?
            }
            "clients" => self.clients = int("clients", v, 1, u64::from(MAX_CLIENTS))? as u32,
            _ => return self.sim.set(key, v),
        }
        Ok(())
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
            "throttle_base" => return od(pol.backoff.throttle_base),
            "classify" => pol.classifier.name().to_string(),
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
            "budget" => match pol.budget {
                BudgetConfig::Ratio(r) if r == RatioConfig::CHAPTER => "chapter".to_string(),
                b => b.name().to_string(),
            },
            "budget_start" => fmt_milli(self.budget_start?),
            "budget_scope" => pol.scope.name().to_string(),
            "bucket_max" | "bucket_refill" => {
                let BudgetConfig::Bucket(b) = pol.budget else {
                    return None;
                };
                fmt_milli(if key == "bucket_max" {
                    b.max_milli
                } else {
                    b.refill_milli
                })
            }
            "ratio_percent" | "ratio_window" | "ratio_min_per_s" => {
                let BudgetConfig::Ratio(r) = pol.budget else {
                    return None;
                };
                match key {
                    "ratio_percent" => decimal(u64::from(r.per_mille), 10),
                    "ratio_window" => r.window.to_string(),
                    _ => r.min_per_sec.to_string(),
                }
            }
            "grpc_max_tokens" | "grpc_token_ratio" => {
                let BudgetConfig::Grpc(g) = pol.budget else {
                    return None;
                };
                if key == "grpc_max_tokens" {
                    (g.max_milli / 1000).to_string()
                } else {
                    fmt_milli(g.ratio_milli)
                }
            }
            "rate_per_window" | "rate_window" => {
                let BudgetConfig::Rate(r) = pol.budget else {
                    return None;
                };
                if key == "rate_per_window" {
                    r.per_window.to_string()
                } else {
                    r.window.to_string()
                }
            }
            "seed" => self.seed.to_string(),
            "clients" => self.clients.to_string(),
            _ => return self.sim.get(key),
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
        let mut pairs: Vec<(usize, String, String)> = Vec::new();
        for part in q.split('&').filter(|s| !s.is_empty()) {
            let (k, v) = part.split_once('=').unwrap_or((part, ""));
            let (k, v) = match (percent_decode(k), percent_decode(v)) {
                (Some(k), Some(v)) => (k, v),
                _ => {
                    errors.push(ConfigError::new(
                        "link",
                        format!("'{part}' has a broken %-escape"),
                    ));
                    continue;
                }
            };
            match all_keys().position(|known| known == k) {
                Some(i) => {
                    if pairs.iter().any(|(j, _, _)| *j == i) {
                        errors.push(ConfigError::new(static_key(&k), "appears more than once"));
                    } else {
                        pairs.push((i, k, v));
                    }
                }
                None => errors.push(ConfigError::new(
                    "link",
                    format!("unknown key '{k}': see docs/link.md for the accepted keys"),
                )),
            }
        }
        pairs.sort_by_key(|(i, _, _)| *i);
        // The version goes first: a newer link is refused before its keys are read.
        if let Some((_, _, v)) = pairs.iter().find(|(_, k, _)| k == "v") {
            if let Err(e) = p.set("v", v) {
                errors.push(e);
                return (p, errors);
            }
        }
        for (_, k, v) in &pairs {
            if k == "v" {
                continue;
            }
            if let Err(e) = p.set(k, v) {
                errors.push(e);
            }
        }
        (p, errors)
    }

    /// Checks the cross-key rules and returns the policy ready to run.
    pub fn validate(&self) -> Result<ValidPolicy, ConfigError> {
        self.policy.validate()
    }

    /// The query written relative to `baseline` (the preset's settings, or the defaults).
    fn baseline(&self) -> Params {
        let mut b = Params::default();
        if let Some(p) = self.preset {
            b.preset = Some(p);
            p.apply(&mut b);
        }
        b
    }
}

fn static_key(key: &str) -> &'static str {
    all_keys().find(|k| *k == key).unwrap_or("link")
}

/// Every key a link may hold: the policy keys, then the simulation keys, then `seed`,
/// `clients` and `v`, in the order a link writes and applies them.
pub fn all_keys() -> impl Iterator<Item = &'static str> {
    let (head, tail) = KEYS.split_at(KEYS.len() - 3);
    head.iter()
        .chain(crate::sim::SIM_KEYS.iter())
        .chain(tail.iter())
        .copied()
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
        let base = self.baseline();
        // Budget sub-keys are compared with the chosen budget kind's own defaults.
        let mut kind_base = base.clone();
        if let Some(kind) = self.get("budget") {
            if base.get("budget").as_deref() != Some(kind.as_str()) {
                let _ = kind_base.set("budget", &kind);
            }
        }
        write!(f, "v={LINK_VERSION}")?;
        for key in all_keys() {
            if key == "v" {
                continue;
            }
            let mine = self.get(key);
            let reference = if key == "budget" {
                base.get(key)
            } else {
                kind_base.get(key)
            };
            if key != "preset" && mine == reference {
                continue;
            }
            if let Some(v) = mine {
                write!(f, "&{key}=")?;
                percent_encode(f, &v)?;
            }
        }
        Ok(())
    }
}

fn percent_encode(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~,:=".contains(&b) {
            write!(f, "{}", b as char)?;
        } else {
            write!(f, "%{b:02X}")?;
        }
    }
    Ok(())
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = s.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_format_to_just_the_version() {
        assert_eq!(Params::default().to_string(), "v=1");
        assert_eq!("".parse::<Params>().unwrap(), Params::default());
    }

    #[test]
    fn order_does_not_matter() {
        let a: Params = "budget=bucket&bucket_max=5".parse().unwrap();
        let b: Params = "bucket_max=5&budget=bucket".parse().unwrap();
        assert_eq!(a, b);
        assert_eq!(a.to_string(), "v=1&budget=bucket&bucket_max=5");
    }

    #[test]
    fn full_urls_and_escapes() {
        let p: Params = "http://127.0.0.1:8080/?v=1&outcomes=503%3Ara%3D2s,ok#x"
            .parse()
            .unwrap();
        assert_eq!(p.outcomes[0].retry_after, Some(Micros::from_secs(2)));
    }

    #[test]
    fn errors_name_the_key() {
        let cases = [
            ("attempts=0", "attempts"),
            ("attempts=1001", "attempts"),
            ("attempts=x", "attempts"),
            ("base=5s&cap=2s", "base"),
            ("multiplier=NaN", "multiplier"),
            ("multiplier=-2", "multiplier"),
            ("base=-1s", "base"),
            ("deadline=soon", "deadline"),
            ("backoff=jittery", "backoff"),
            ("budget=magic", "budget"),
            ("bucket_max=5", "bucket_max"),
            ("budget=ratio&ratio_window=90s", "ratio_window"),
            ("outcomes=418", "outcomes"),
            ("clients=0", "clients"),
            ("clients=10001", "clients"),
            ("seed=-3", "seed"),
            ("v=2", "v"),
            ("preset=nope", "preset"),
            ("wat=1", "link"),
            ("seed=1&seed=2", "seed"),
            ("reserve=10s", "reserve"),
            ("attempt_timeout=0ms", "attempt_timeout"),
        ];
        for (q, field) in cases {
            let e = q.parse::<Params>().unwrap_err();
            assert_eq!(e.field, field, "{q}: {e}");
        }
    }

    #[test]
    fn lenient_keeps_the_good_keys() {
        let (p, errs) = Params::parse_lenient("attempts=5&base=oops&seed=9");
        assert_eq!(p.policy.max_attempts, 5);
        assert_eq!(p.seed, 9);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].field, "base");
    }

    #[test]
    fn presets_round_trip() {
        for preset in Preset::ALL {
            let q = format!("preset={}", preset.name());
            let p: Params = q.parse().unwrap();
            assert_eq!(p.to_string(), format!("v=1&{q}"));
            let again: Params = p.to_string().parse().unwrap();
            assert_eq!(again, p);
        }
    }
}
