//! Backoff: how long to wait before each retry.
//!
//! Why jitter? Exponential backoff alone keeps clients that failed together in lock step: they
//! all wait the same 200 ms and return as one wave. Jitter draws each client's wait from a range
//! so the wave spreads out. The kinds here are the ones the 2015 AWS study compared, with the
//! exact formulas:
//!
//! | kind | wait before retry `k` (k counts from `first_exp`) |
//! |---|---|
//! | `none` | 0 |
//! | `constant` | `base` |
//! | `exponential` | `ceiling_k = min(cap, base * multiplier^k)` |
//! | `full` | uniform in `[0, ceiling_k]` |
//! | `equal` | uniform in `[ceiling_k / 2, ceiling_k]` |
//! | `decorrelated` | `min(cap, uniform in [base, 3 * previous])`, previous starting at `base` |
//! | `decorrelated-v2` | Polly v8: `min(cap, (f(t) - f(t_prev)) / 1.4 * base)`, `f(t) = 2^t tanh(sqrt(4t))`, `t = k + U(0, 1)` |
//!
//! Beside the kind, a fixed wait (`exponential`, `constant`) can carry a [`Jitter`] (a
//! multiplicative or additive spread, before or after the cap); the first retry can skip its
//! wait (urllib3, azure-core); a client's draws can be drawn up front and used in ascending
//! order (node-retry); and the multiplier can be the base's length in milliseconds
//! (tokio-retry's `from_millis(10)`: 10, 100, 1000 ms).
//!
//! "Decorrelated" means different things in different libraries (Finagle draws from
//! `[previous, 3 * previous]`, Polly's is a tanh curve); this is the 2015 simulator's formula.
//! Every draw is a whole number of microseconds; the range ends are included.
//!
//! ```
//! use retry_model::{BackoffConfig, BackoffKind, Micros, Rng};
//! let cfg = BackoffConfig::new(BackoffKind::Full)
//!     .with_base(Micros::from_millis(10))
//!     .with_cap(Micros::from_millis(2000));
//! let ceilings: Vec<u64> = (0..10).map(|k| cfg.ceiling(k).as_micros() / 1000).collect();
//! assert_eq!(ceilings, [10, 20, 40, 80, 160, 320, 640, 1280, 2000, 2000]);
//! let mut rng = Rng::from_seed(1);
//! for draw in cfg.validate().unwrap().delays(&mut rng).take(10) {
//!     assert!(draw.wait <= draw.ceiling);
//! }
//! ```

use crate::retry::error::ConfigError;
use crate::retry::jitter::{decorrelated_v2, decorrelated_v2_ceiling, Jitter, MAX_JITTER_MILLI};
use crate::retry::rng::{Rng, Words};
use crate::retry::time::Micros;
use alloc::format;
use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;
pub use range::WaitRange;

mod range;

/// The shape of the wait between attempts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum BackoffKind {
    /// Retry at once.
    None,
    /// Always `base`.
    Constant,
    /// `min(cap, base * multiplier^k)`, no randomness.
    Exponential,
    /// Uniform in `[0, ceiling]` (AWS "full jitter").
    Full,
    /// Uniform in `[ceiling / 2, ceiling]`.
    Equal,
    /// `min(cap, uniform in [base, 3 * previous])`.
    Decorrelated,
    /// Polly v8's decorrelated jitter V2 (a tanh curve; see the module's table).
    DecorrelatedV2,
}

impl BackoffKind {
    /// Every kind, in the order the page lists them.
    pub const ALL: [BackoffKind; 7] = [
        BackoffKind::None,
        BackoffKind::Constant,
        BackoffKind::Exponential,
        BackoffKind::Full,
        BackoffKind::Equal,
        BackoffKind::Decorrelated,
        BackoffKind::DecorrelatedV2,
    ];

    /// The link name.
    pub const fn name(self) -> &'static str {
        match self {
            BackoffKind::None => "none",
            BackoffKind::Constant => "constant",
            BackoffKind::Exponential => "exponential",
            BackoffKind::Full => "full",
            BackoffKind::Equal => "equal",
            BackoffKind::Decorrelated => "decorrelated",
            BackoffKind::DecorrelatedV2 => "decorrelated-v2",
        }
    }

    /// Whether the wait is random.
    pub const fn is_jittered(self) -> bool {
        matches!(
            self,
            BackoffKind::Full
                | BackoffKind::Equal
                | BackoffKind::Decorrelated
                | BackoffKind::DecorrelatedV2
        )
    }
}

impl fmt::Display for BackoffKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for BackoffKind {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        BackoffKind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
            ConfigError::new(
                "backoff",
                format!("unknown kind '{s}': accepted none, constant, exponential, full, equal, decorrelated, decorrelated-v2"),
            )
        })
    }
}

/// The largest accepted multiplier.
pub const MAX_MULTIPLIER: f64 = 10.0;

/// Backoff parameters. Defaults: full jitter, base 100 ms, cap 20 s, multiplier 2, first
/// exponent 0, no floor, no separate throttling base.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct BackoffConfig {
    /// The shape.
    pub kind: BackoffKind,
    /// The first ceiling (`k = 0`), and decorrelated jitter's lower bound. `<= cap`.
    pub base: Micros,
    /// No wait exceeds this. `> 0`.
    pub cap: Micros,
    /// Growth per retry, in `[1, 10]`.
    pub multiplier: f64,
    /// The exponent used before the first retry (0 in AWS, gRPC, tenacity; 1 in the 2015
    /// simulator). At most 64.
    pub first_exp: u32,
    /// No computed wait is shorter than this (Stripe waits at least 500 ms). `<= cap`.
    pub floor: Micros,
    /// When set, throttling errors (429) grow from this base instead (AWS 2026: 1 s).
    pub throttle_base: Option<Micros>,
    /// A spread on the fixed wait of `exponential` or `constant`.
    pub jitter: Jitter,
    /// Whether the jitter applies to the capped wait (so a wait may exceed the cap, as in
    /// backon and gRPC) instead of the cap bounding the jittered one.
    pub jitter_after_cap: bool,
    /// Whether the first retry goes at once (urllib3, azure-core); later retries keep their
    /// exponents (the second retry waits `base * multiplier^(first_exp + 1)`).
    pub first_wait_zero: bool,
    /// Whether a client draws its `sort_n` waits up front and uses them in ascending order
    /// (node-retry, async-retry).
    pub sorted: bool,
    /// How many waits a sorted client draws up front: the retries its attempts allow.
    pub sort_n: u32,
    /// Whether the multiplier is the base's length in milliseconds (tokio-retry).
    pub multiplier_from_base: bool,
    /// Whether the ceiling is the sum of the steps so far, `base * (1 + m + ... + m^k)`
    /// (Envoy's documented `(2^N - 1) * base`).
    pub ceiling_sum: bool,
    /// Whether a full-jitter wait is drawn in whole milliseconds below the ceiling, as
    /// Envoy's `random() % window` does: U{0, ..., c - 1} ms for a ceiling of `c` ms.
    pub whole_ms: bool,
}

impl Default for BackoffConfig {
    fn default() -> Self {
        BackoffConfig::new(BackoffKind::Full)
    }
}

impl BackoffConfig {
    /// A config of `kind` with the documented defaults.
    pub const fn new(kind: BackoffKind) -> Self {
        BackoffConfig {
            kind,
            base: Micros::from_millis(100),
            cap: Micros::from_secs(20),
            multiplier: 2.0,
            first_exp: 0,
            floor: Micros::ZERO,
            throttle_base: None,
            jitter: Jitter::None,
            jitter_after_cap: false,
            first_wait_zero: false,
            sorted: false,
            sort_n: 0,
            multiplier_from_base: false,
            ceiling_sum: false,
            whole_ms: false,
        }
    }
    /// Sets the jitter on a fixed wait, and whether it applies after the cap.
    pub const fn with_jitter(mut self, jitter: Jitter, after_cap: bool) -> Self {
        self.jitter = jitter;
        self.jitter_after_cap = after_cap;
        self
    }
    /// Makes the first retry go at once.
    pub const fn with_first_wait_zero(mut self, on: bool) -> Self {
        self.first_wait_zero = on;
        self
    }
    /// Draws `n` waits up front and uses them in ascending order (`n = 0`: off).
    pub const fn with_sorted(mut self, n: u32) -> Self {
        self.sorted = n > 0;
        self.sort_n = n;
        self
    }
    /// Makes the multiplier the base's length in milliseconds.
    pub const fn with_multiplier_from_base(mut self, on: bool) -> Self {
        self.multiplier_from_base = on;
        self
    }

    /// The growth per retry: the multiplier, or the base in milliseconds (tokio-retry).
    pub fn growth(&self) -> f64 {
        if self.multiplier_from_base {
            self.base.0 as f64 / 1000.0
        } else {
            self.multiplier
        }
    }
    /// Sets the kind.
    pub const fn with_kind(mut self, kind: BackoffKind) -> Self {
        self.kind = kind;
        self
    }
    /// Sets the base.
    pub const fn with_base(mut self, base: Micros) -> Self {
        self.base = base;
        self
    }
    /// Sets the cap.
    pub const fn with_cap(mut self, cap: Micros) -> Self {
        self.cap = cap;
        self
    }
    /// Sets the multiplier.
    pub const fn with_multiplier(mut self, m: f64) -> Self {
        self.multiplier = m;
        self
    }
    /// Sets the exponent of the first retry.
    pub const fn with_first_exp(mut self, e: u32) -> Self {
        self.first_exp = e;
        self
    }
    /// Sets the floor.
    pub const fn with_floor(mut self, floor: Micros) -> Self {
        self.floor = floor;
        self
    }
    /// Sets the throttling base.
    pub const fn with_throttle_base(mut self, b: Option<Micros>) -> Self {
        self.throttle_base = b;
        self
    }

    /// Checks every rule and returns a [`Backoff`] that can draw waits.
    pub fn validate(self) -> Result<Backoff, ConfigError> {
        self.validate_extras()?;
        if !self.multiplier.is_finite() || self.multiplier < 1.0 || self.multiplier > MAX_MULTIPLIER
        {
            return Err(ConfigError::new(
                "multiplier",
                format!(
                    "must be a number in [1, {MAX_MULTIPLIER}], got {}",
                    self.multiplier
                ),
            ));
        }
        if self.cap == Micros::ZERO {
            return Err(ConfigError::new("cap", "must be greater than 0"));
        }
        if self.base > self.cap {
            return Err(ConfigError::new(
                "base",
                format!(
                    "must not exceed cap (base {} > cap {})",
                    self.base, self.cap
                ),
            ));
        }
        if self.kind == BackoffKind::Decorrelated && self.base == Micros::ZERO {
            return Err(ConfigError::new(
                "base",
                "must be greater than 0 for decorrelated jitter",
            ));
        }
        if self.first_exp > 64 {
            return Err(ConfigError::new(
                "first_exp",
                format!("must be in [0, 64], got {}", self.first_exp),
            ));
        }
        if self.floor > self.cap {
            return Err(ConfigError::new(
                "floor",
                format!(
                    "must not exceed cap (floor {} > cap {})",
                    self.floor, self.cap
                ),
            ));
        }
        if let Some(tb) = self.throttle_base {
            if tb > self.cap {
                return Err(ConfigError::new(
                    "throttle_base",
                    format!("must not exceed cap ({} > cap {})", tb, self.cap),
                ));
            }
        }
        Ok(Backoff { cfg: self })
    }

    /// The rules of the jitter, the sorted draws and the base-as-multiplier.
    fn validate_extras(&self) -> Result<(), ConfigError> {
        let fixed = matches!(self.kind, BackoffKind::Exponential | BackoffKind::Constant);
        if self.jitter != Jitter::None && !fixed {
            return Err(ConfigError::new(
                "jitter",
                format!(
                    "spreads a fixed wait: it needs backoff=exponential or constant, not {}",
                    self.kind
                ),
            ));
        }
        if let Jitter::Mult { lo_milli, hi_milli } = self.jitter {
            if lo_milli > hi_milli || hi_milli > MAX_JITTER_MILLI {
                return Err(ConfigError::new(
                    "jitter_lo",
                    format!(
                        "must be at most jitter_hi, and jitter_hi at most 10 (got [{}, {}])",
                        crate::retry::text::milli_text(lo_milli),
                        crate::retry::text::milli_text(hi_milli)
                    ),
                ));
            }
        }
        if self.sorted && !self.kind.is_jittered() && self.jitter == Jitter::None {
            return Err(ConfigError::new(
                "sorted",
                "sorts random waits: it needs a jittered backoff or a jitter",
            ));
        }
        if self.sorted && self.sort_n > 100 {
            return Err(ConfigError::new(
                "sorted",
                format!(
                    "draws every wait up front: at most 100 retries (attempts <= 101), got {}",
                    self.sort_n
                ),
            ));
        }
        if self.whole_ms && self.kind != BackoffKind::Full {
            return Err(ConfigError::new(
                "whole_ms",
                format!(
                    "draws a full-jitter wait in whole ms: it needs backoff=full, not {}",
                    self.kind
                ),
            ));
        }
        if self.multiplier_from_base && (self.base.0 < 1000 || self.base.0 > 10_000_000) {
            return Err(ConfigError::new(
                "multiplier_from_base",
                format!(
                    "needs a base in [1ms, 10s] (the multiplier is its milliseconds), got {}",
                    self.base
                ),
            ));
        }
        Ok(())
    }

    /// `min(cap, base * multiplier^(first_exp + retry))` for the `retry`-th retry (0-based).
    /// For decorrelated jitter this is the largest wait the retry could possibly draw.
    pub fn ceiling(&self, retry: u32) -> Micros {
        self.ceiling_from(self.base, retry)
    }

    fn ceiling_from(&self, base: Micros, retry: u32) -> Micros {
        match self.kind {
            BackoffKind::None => Micros::ZERO,
            BackoffKind::Constant => base.min(self.cap),
            BackoffKind::Exponential | BackoffKind::Full | BackoffKind::Equal => {
                let k = u64::from(self.first_exp) + u64::from(retry);
                if self.ceiling_sum {
                    return summed_ceiling(base, self.growth(), k, self.cap);
                }
                scaled_ceiling(base, self.growth(), k, self.cap)
            }
            BackoffKind::Decorrelated => {
                // Each draw is at most 3x the previous one, and the first "previous" is base.
                scaled_ceiling(base, 3.0, u64::from(retry) + 1, self.cap)
            }
            BackoffKind::DecorrelatedV2 => decorrelated_v2_ceiling(retry, base).min(self.cap),
        }
    }

    /// The range `[low, high]` of retry `retry`'s wait for the kinds whose range depends on
    /// nothing but the retry: `full` draws in `[0, ceiling]`, `equal` in `[ceiling / 2,
    /// ceiling]`, and `constant` and `exponential` without jitter wait the ceiling itself
    /// (`[ceiling, ceiling]`, which draws no word). The other kinds never ask; they get their
    /// ceiling.
    fn range_in_advance(&self, base: Micros, retry: u32) -> (Micros, Micros) {
        let c = self.ceiling_from(base, retry);
        match self.kind {
            BackoffKind::Full => (Micros::ZERO, c),
            BackoffKind::Equal => (Micros(c.0 / 2), c),
            BackoffKind::None
            | BackoffKind::Constant
            | BackoffKind::Exponential
            | BackoffKind::Decorrelated
            | BackoffKind::DecorrelatedV2 => (c, c),
        }
    }

    crate::arch::hot! {
    /// A `decorrelated` draw from `base`: `(low, ceiling, wait)`, the wait kept as the next
    /// draw's "previous". Generic over the word source, so that [`Backoff::decorrelated_wait`]
    /// calls a model's own source directly. Inlined on native targets, into `occ`'s event
    /// loop among others (on wasm the page's size counts).
    fn decorrelated<W: Words + ?Sized>(
        &self,
        state: &mut BackoffState,
        base: Micros,
        rng: &mut W,
    ) -> (Micros, Micros, Micros) {
        // The range is [base, 3 * previous], but never inverted: after a throttled failure the
        // throttling base may exceed three times the previous wait.
        let hi = state.last.saturating_mul(3).max(base.0);
        let drawn = rng.uniform_inclusive(base.0, hi);
        let w = Micros(drawn.min(self.cap.0));
        state.last = w.0;
        (base.min(self.cap), Micros(hi.min(self.cap.0)), w)
    }
    }

    /// The fixed wait of `exponential` or `constant` before the cap: `base * growth^k`
    /// (saturating), or `base`.
    fn uncapped(&self, base: Micros, retry: u32) -> Micros {
        if self.kind == BackoffKind::Constant {
            return base;
        }
        let k = u64::from(self.first_exp) + u64::from(retry);
        if self.ceiling_sum {
            return summed_ceiling(base, self.growth(), k, Micros(u64::MAX));
        }
        scaled_ceiling(base, self.growth(), k, Micros(u64::MAX))
    }

    /// A fixed wait with its jitter: `(low, high, wait)`. Before the cap, the wait is drawn from
    /// the uncapped range and then capped (so a range reaching past the cap piles its top at
    /// the cap, as httpx-retries and stamina do); after it, the capped wait is spread.
    fn jittered(&self, base: Micros, retry: u32, rng: &mut dyn Words) -> (Micros, Micros, Micros) {
        let d = if self.jitter_after_cap {
            self.ceiling_from(base, retry)
        } else {
            self.uncapped(base, retry)
        };
        let (lo, hi) = self.jitter.range(d);
        let w = Micros(rng.uniform_inclusive(lo.0, hi.0));
        if self.jitter_after_cap {
            (lo, hi, w)
        } else {
            (lo.min(self.cap), hi.min(self.cap), w.min(self.cap))
        }
    }

    /// [`BackoffConfig::jittered`]'s draw as a range: uniform over the jittered wait, capped
    /// after the draw when the jitter goes before the cap.
    fn jittered_range(&self, retry: u32) -> WaitRange {
        if self.jitter_after_cap {
            let (lo, hi) = self.jitter.range(self.ceiling_from(self.base, retry));
            return WaitRange::new(lo.0, hi.0, self.floor.0);
        }
        let (lo, hi) = self.jitter.range(self.uncapped(self.base, retry));
        WaitRange {
            cap: self.cap.0,
            ..WaitRange::new(lo.0, hi.0, self.floor.0)
        }
    }

    /// The range retry `retry` (0-based) draws its wait from, as the schedule shows it: its
    /// lowest and highest possible wait, the floor included.
    pub fn range(&self, retry: u32) -> (Micros, Micros) {
        if self.first_wait_zero && retry == 0 {
            return (self.floor, self.floor);
        }
        let c = self.ceiling(retry);
        let (lo, hi) = match self.kind {
            BackoffKind::None => (Micros::ZERO, Micros::ZERO),
            BackoffKind::Full | BackoffKind::DecorrelatedV2 => (Micros::ZERO, c),
            BackoffKind::Equal => (Micros(c.0 / 2), c),
            BackoffKind::Decorrelated => (self.base.min(self.cap), c),
            BackoffKind::Constant | BackoffKind::Exponential => self.jitter_range(self.base, retry),
        };
        (lo.max(self.floor), hi.max(self.floor))
    }

    /// The range of a fixed wait with its jitter, the cap applied before or after.
    fn jitter_range(&self, base: Micros, retry: u32) -> (Micros, Micros) {
        if self.jitter_after_cap {
            self.jitter.range(self.ceiling_from(base, retry))
        } else {
            let (lo, hi) = self.jitter.range(self.uncapped(base, retry));
            (lo.min(self.cap), hi.min(self.cap))
        }
    }
}

/// `min(cap, base * m^k)`, in exact integer steps while the value stays small.
fn scaled_ceiling(base: Micros, m: f64, k: u64, cap: Micros) -> Micros {
    if base == Micros::ZERO {
        return Micros::ZERO;
    }
    if m == 1.0 {
        return base.min(cap);
    }
    // Integer multiplier: exact repeated multiplication, stopping once past the cap.
    if m == 2.0 {
        // Doubling: a shift, saturating at the cap.
        return if k >= 64 || u64::from(base.0.leading_zeros()) <= k {
            cap
        } else {
            Micros((base.0 << k).min(cap.0))
        };
    }
    if m == libm::floor(m) {
        let mi = m as u64;
        let mut v = base.0;
        for _ in 0..k {
            v = v.saturating_mul(mi);
            if v >= cap.0 {
                return cap;
            }
        }
        return Micros(v.min(cap.0));
    }
    let v = base.0 as f64 * libm::pow(m, k as f64);
    if v.partial_cmp(&(cap.0 as f64)) != Some(core::cmp::Ordering::Less) {
        cap
    } else {
        Micros(v as u64)
    }
}

/// Sorts at most 100 draws by their wait, smallest first (ties keep their order). An insertion
/// sort rather than `slice::sort_by_key`: for this few items it is as quick, and the standard
/// stable sort would add about 4 KB to the page's wasm for this one use.
fn sort_by_wait(draws: &mut [Draw]) {
    for i in 1..draws.len() {
        let mut j = i;
        while j > 0 && draws[j - 1].wait > draws[j].wait {
            draws.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// `min(cap, base * (1 + m + ... + m^k))`, step by step, stopping once past the cap.
fn summed_ceiling(base: Micros, m: f64, k: u64, cap: Micros) -> Micros {
    let mut sum = Micros::ZERO;
    for i in 0..=k {
        sum = sum.saturating_add(scaled_ceiling(base, m, i, cap));
        if sum >= cap {
            return cap;
        }
    }
    sum
}

/// A validated backoff configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backoff {
    cfg: BackoffConfig,
}

/// One computed wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Draw {
    /// The exponent used: `first_exp` + retries since the last reset.
    pub k: u64,
    /// The base used (the throttling base for a throttled retry when one is set).
    pub base: Micros,
    /// The upper end of the range the wait was drawn from.
    pub ceiling: Micros,
    /// The lower end of that range.
    pub low: Micros,
    /// The wait itself, in `[low, ceiling]` (raised to the floor when one is set).
    pub wait: Micros,
}

impl Backoff {
    /// The configuration.
    pub const fn config(&self) -> &BackoffConfig {
        &self.cfg
    }

    /// A fresh per-request state.
    pub fn state(&self) -> BackoffState {
        BackoffState {
            retry: 0,
            // decorrelated's first "previous" is base; decorrelated-v2's curve starts at 0.0
            last: match self.cfg.kind {
                BackoffKind::DecorrelatedV2 => 0.0f64.to_bits(),
                BackoffKind::None
                | BackoffKind::Constant
                | BackoffKind::Exponential
                | BackoffKind::Full
                | BackoffKind::Equal
                | BackoffKind::Decorrelated => self.cfg.base.0,
            },
            sort_seed: 0,
        }
    }

    /// The infinite iterator of waits for one request, drawing from `rng`.
    pub fn delays<'r>(&self, rng: &'r mut Rng) -> Delays<'r> {
        Delays {
            backoff: *self,
            state: self.state(),
            rng,
        }
    }

    /// Starts `state` again from the first retry's ceiling (gRPC does this after a pushback).
    pub fn reset(&self, state: &mut BackoffState) {
        *state = self.state();
    }

    /// The wait of retry `retry` (0-based, not throttled) as a draw over a range known in
    /// advance: `none`, `full`, `equal`, and `constant` and `exponential` without jitter, with
    /// no draws sorted up front. `None` for every other configuration (their range depends on
    /// the draws before, or is capped after the draw). [`WaitRange::draw`] gives
    /// [`Backoff::next_draw`]'s own wait from the same words, so a model may keep the first
    /// ranges and draw from them, without the configuration's arithmetic on every retry.
    pub fn wait_range(&self, retry: u32) -> Option<WaitRange> {
        let cfg = &self.cfg;
        let in_advance = match cfg.kind {
            BackoffKind::None
            | BackoffKind::Full
            | BackoffKind::Equal
            | BackoffKind::Constant
            | BackoffKind::Exponential => true,
            BackoffKind::Decorrelated | BackoffKind::DecorrelatedV2 => false,
        };
        if !in_advance || cfg.sorted {
            return None;
        }
        let jittered = matches!(cfg.kind, BackoffKind::Constant | BackoffKind::Exponential)
            && cfg.jitter != Jitter::None;
        if jittered && !(cfg.first_wait_zero && retry == 0) {
            return Some(cfg.jittered_range(retry));
        }
        let (low, high) = if cfg.kind == BackoffKind::None || (cfg.first_wait_zero && retry == 0) {
            (Micros::ZERO, Micros::ZERO)
        } else {
            cfg.range_in_advance(cfg.base, retry)
        };
        // Envoy: `random() % window` whole milliseconds under the ceiling (none under 1 ms).
        let window = high.0 / 1000;
        if cfg.whole_ms && cfg.kind == BackoffKind::Full {
            return Some(match window {
                0 => WaitRange::new(0, 0, cfg.floor.0),
                _ => WaitRange::stepped(0, window, 1000, cfg.floor.0),
            });
        }
        Some(WaitRange::new(low.0, high.0, cfg.floor.0))
    }

    /// The range of a `decorrelated` retry number `retry` after a previous wait of `prev` µs
    /// (`base` before the first): uniform over `[base, max(base, 3 prev)]`, capped, the capped
    /// draw becoming the next `prev`. `None` for every other backoff, for draws sorted up
    /// front or in whole milliseconds, and for a floor above the base (where the wait and the
    /// next `prev` differ).
    pub fn decorrelated_range(&self, retry: u32, prev: u64) -> Option<WaitRange> {
        let cfg = &self.cfg;
        if cfg.kind != BackoffKind::Decorrelated || cfg.sorted || cfg.whole_ms {
            return None;
        }
        if cfg.floor > cfg.base.min(cfg.cap) {
            return None;
        }
        if cfg.first_wait_zero && retry == 0 {
            return Some(WaitRange::at(cfg.floor));
        }
        let hi = prev.saturating_mul(3).max(cfg.base.0);
        Some(WaitRange {
            low: cfg.base.0,
            high: hi,
            floor: cfg.floor.0,
            cap: cfg.cap.0,
            step: 1,
        })
    }

    /// Whether every retry from `retry` on draws from [`Backoff::wait_range`]`(retry)`: the
    /// range is known in advance and has stopped growing (no backoff, a constant one, a
    /// ceiling of zero, or a growing one that has reached the cap, and stays there). A model
    /// that keeps the first ranges may then draw every later retry from the last one.
    pub fn range_settled(&self, retry: u32) -> bool {
        let cfg = &self.cfg;
        if self.wait_range(retry).is_none() || (cfg.first_wait_zero && retry == 0) {
            return false;
        }
        let growth = cfg.growth();
        let flat = growth == 1.0 && !cfg.ceiling_sum;
        // Jitter before the cap draws from the uncapped wait, whose range keeps growing past
        // the cap: it never settles there.
        let jitter_first = cfg.jitter != Jitter::None && !cfg.jitter_after_cap;
        let capped = !jitter_first && cfg.ceiling_from(cfg.base, retry) >= cfg.cap;
        matches!(cfg.kind, BackoffKind::None | BackoffKind::Constant)
            || cfg.base == Micros::ZERO
            || flat
            || (growth >= 1.0 && capped)
    }

    /// The next wait (not throttled) of a `decorrelated` backoff without draws sorted up
    /// front: [`Backoff::next_draw`]'s own wait, from the same words, with the state moved on
    /// as it moves it. Generic, so that a model's word source is called directly, not through
    /// `dyn Words`. `None`, with the state untouched, for every other configuration.
    #[inline(always)]
    pub fn decorrelated_wait<W: Words>(
        &self,
        state: &mut BackoffState,
        words: &mut W,
    ) -> Option<Micros> {
        let cfg = &self.cfg;
        if cfg.kind != BackoffKind::Decorrelated || cfg.sorted {
            return None;
        }
        let retry = state.retry;
        state.retry = state.retry.saturating_add(1);
        if cfg.first_wait_zero && retry == 0 {
            return Some(cfg.floor);
        }
        Some(cfg.decorrelated(state, cfg.base, words).2.max(cfg.floor))
    }

    /// Draws the next wait of the request whose state is `state`. `throttled` selects the
    /// throttling base when one is configured.
    pub fn next_draw(
        &self,
        state: &mut BackoffState,
        rng: &mut dyn Words,
        throttled: bool,
    ) -> Draw {
        if self.cfg.sorted && state.retry < self.cfg.sort_n {
            return self.sorted_draw(state, rng, throttled);
        }
        self.plain_draw(state, rng, throttled)
    }

    /// node-retry's way: the client's `sort_n` waits are drawn up front (from a generator of
    /// their own, seeded by the request's first draw) and used smallest first.
    fn sorted_draw(&self, state: &mut BackoffState, rng: &mut dyn Words, throttled: bool) -> Draw {
        if state.retry == 0 {
            state.sort_seed = rng.next_u64();
        }
        let mut up_front = Rng::from_seed(state.sort_seed);
        let mut fresh = self.state();
        let mut draws: Vec<Draw> = (0..self.cfg.sort_n)
            .map(|_| self.plain_draw(&mut fresh, &mut up_front, throttled))
            .collect();
        sort_by_wait(&mut draws);
        let low = draws.iter().map(|d| d.low).min().unwrap_or(Micros::ZERO);
        let ceiling = draws
            .iter()
            .map(|d| d.ceiling)
            .max()
            .unwrap_or(Micros::ZERO);
        let r = state.retry as usize;
        state.retry = state.retry.saturating_add(1);
        Draw {
            k: r as u64,
            low,
            ceiling,
            ..draws[r.min(draws.len() - 1)]
        }
    }

    /// One wait drawn in the order of the retries.
    fn plain_draw(&self, state: &mut BackoffState, rng: &mut dyn Words, throttled: bool) -> Draw {
        let cfg = &self.cfg;
        let base = match (throttled, cfg.throttle_base) {
            (true, Some(tb)) => tb,
            _ => cfg.base,
        };
        let retry = state.retry;
        state.retry = state.retry.saturating_add(1);
        if cfg.kind == BackoffKind::None || (cfg.first_wait_zero && retry == 0) {
            // The common case of a retry storm, and a first retry that goes at once.
            return Draw {
                k: u64::from(retry),
                base,
                ceiling: Micros::ZERO,
                low: Micros::ZERO,
                wait: cfg.floor,
            };
        }
        let (low, ceiling, wait) = match cfg.kind {
            BackoffKind::None => (Micros::ZERO, Micros::ZERO, Micros::ZERO),
            BackoffKind::Constant | BackoffKind::Exponential if cfg.jitter != Jitter::None => {
                cfg.jittered(base, retry, rng)
            }
            BackoffKind::Full if cfg.whole_ms => {
                let (low, high) = cfg.range_in_advance(base, retry);
                // Envoy: `random() % window` over whole milliseconds (none under 1 ms).
                let window = high.0 / 1000;
                let ms = if window == 0 { 0 } else { rng.below(window) };
                (low, high, Micros::from_millis(ms))
            }
            BackoffKind::Constant
            | BackoffKind::Exponential
            | BackoffKind::Full
            | BackoffKind::Equal => {
                let (low, high) = cfg.range_in_advance(base, retry);
                (low, high, Micros(rng.uniform_inclusive(low.0, high.0)))
            }
            BackoffKind::Decorrelated => cfg.decorrelated(state, base, rng),
            BackoffKind::DecorrelatedV2 => {
                let prev = f64::from_bits(state.last);
                let (w, next) = decorrelated_v2(retry, rng.next_f64(), prev, base);
                state.last = next.to_bits();
                let c = cfg.ceiling_from(base, retry);
                (Micros::ZERO, c, Micros(w.min(cfg.cap.0)))
            }
        };
        let k = match cfg.kind {
            BackoffKind::Exponential | BackoffKind::Full | BackoffKind::Equal => {
                u64::from(cfg.first_exp) + u64::from(retry)
            }
            BackoffKind::None
            | BackoffKind::Constant
            | BackoffKind::Decorrelated
            | BackoffKind::DecorrelatedV2 => u64::from(retry),
        };
        Draw {
            k,
            base,
            ceiling,
            low,
            wait: wait.max(cfg.floor),
        }
    }
}

/// The evolving part of one request's backoff: which retry comes next, and the previous
/// decorrelated draw. The configuration lives in the [`Backoff`], so this stays small: a storm
/// keeps one per request in flight, up to two million of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BackoffState {
    retry: u32, // retries drawn so far since the last reset
    // The previous draw, for the two kinds that remember one (a backoff has one kind, so one
    // word serves both): decorrelated's wait in µs, from base, in [base, cap]; decorrelated-v2's
    // curve value as f64 bits, from 0.0.
    last: u64,
    sort_seed: u64, // sorted: the seed of the request's draws up front, from its first draw
}

impl BackoffState {
    /// How many waits have been drawn since the last reset.
    pub const fn retry(&self) -> u32 {
        self.retry
    }

    /// Counts one wait taken without [`Backoff::next_draw`] (drawn from a [`WaitRange`]), as
    /// [`Backoff::next_draw`] would have counted it.
    pub fn skip(&mut self) {
        self.retry = self.retry.saturating_add(1);
    }
}

/// An endless iterator of waits (see [`Backoff::delays`]).
pub struct Delays<'r> {
    backoff: Backoff,
    state: BackoffState,
    rng: &'r mut Rng,
}

impl Iterator for Delays<'_> {
    type Item = Draw;
    fn next(&mut self) -> Option<Draw> {
        Some(self.backoff.next_draw(&mut self.state, self.rng, false))
    }
}

#[cfg(test)]
mod tests;
