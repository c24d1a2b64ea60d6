//! The tuner's link keys (`tune`, `tune_candidates`, `tune_runs`, `tune_max_amp`,
//! `tune_p99`) and the space it searches, which the key table's ranges read; the search itself
//! is `crate::tune`.

use alloc::string::{String, ToString};

/// The keys searched and the values each may take. `kept`: the link's own (no key set), so
/// what the space cannot name (a proxy's or a client's own limit on retries, an imported cap
/// or timeout, a breaker's thresholds) is searched too. `hedge`: `off` (retries), or hedging
/// by gRPC's rules with this delay (`hedge=on&hedge_delay=...`), `attempts` then its
/// `hedge_max` (2 to 5), with no backoff, cap or breaker.
pub const SPACE: [(&str, &[&str]); 8] = [
    ("attempts", &["1", "2", "3", "4", "5", "6"]),
    (
        "backoff",
        &["none", "exponential", "full", "equal", "decorrelated"],
    ),
    (
        "base",
        &[
            "10ms", "25ms", "50ms", "100ms", "200ms", "500ms", "1s", "2s",
        ],
    ),
    ("cap", &["kept", "1s", "10s"]),
    ("attempt_timeout", &["kept", "500ms", "2s"]),
    ("breaker", &["kept", "on"]),
    ("budget", &["none", "ratio", "kept"]),
    ("hedge", &["off", "20ms", "100ms", "500ms"]),
];

/// Limits a policy must keep to count.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Limits {
    /// The most attempts per original, over every weather.
    pub max_amplification: Option<f64>,
    /// The most p99 latency, ms, over every weather.
    pub max_p99_ms: Option<f64>,
}

/// Distinct policies in the space. A single attempt has no backoff, cap or budget to act on:
/// its timeout and breaker alone (3 x 2). With 2 to 6 attempts: no backoff (no base or cap),
/// or one of four with a base and a cap (4 x 23: each of the 8 bases with the link's cap or
/// 10 s, and the 7 up to 1 s with 1 s); each with a timeout, a breaker and a budget
/// (3 x 2 x 3). Hedged: 3 delays, 4 attempts (2 to 5), each with a timeout and a budget
/// (3 x 3).
pub const DISTINCT: usize = 3 * 2 + 5 * (1 + 4 * (8 + 7 + 8)) * (3 * 2 * 3) + 3 * 4 * (3 * 3);

/// The configuration formats a search may be kept to (`tune_format`): `none`, or each format
/// `retrylab export` writes (the importer's list, which a test in `retry-import` holds this to).
pub const FORMATS: [(&str, &str); 11] = [
    ("none", "any policy"),
    ("grpc", "a gRPC service config"),
    ("envoy", "an Envoy route"),
    ("istio", "an Istio VirtualService"),
    ("linkerd", "a Linkerd HTTPRoute"),
    ("gateway-api", "a Gateway API HTTPRoute"),
    ("resilience4j", "a resilience4j config"),
    ("polly", "a Polly pipeline"),
    ("aws", "an AWS profile"),
    ("tenacity", "tenacity code"),
    ("spring-gateway", "a Spring Cloud Gateway route"),
];

/// What a link asks of the search (`tune` and its keys).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TuneAsk {
    /// `tune=on`: the page searches and draws the frontier.
    pub on: bool,
    /// `tune_candidates`: the policies drawn to start from.
    pub candidates: u32,
    /// `tune_runs`: the most runs a policy gets under each weather.
    pub runs: u32,
    /// `tune_max_amp`, in thousandths of an attempt per original.
    pub max_amp_milli: Option<u64>,
    /// `tune_p99`.
    pub p99: Option<crate::Micros>,
    /// `tune_format`: an index into [`FORMATS`] (0: any policy).
    pub format: u8,
}

impl TuneAsk {
    /// No search, with the search's defaults.
    pub const OFF: TuneAsk = TuneAsk {
        on: false,
        candidates: 32,
        runs: 8,
        max_amp_milli: None,
        p99: None,
        format: 0,
    };

    /// The format the search is kept to, if any (`tune_format`).
    pub fn format_name(&self) -> Option<&'static str> {
        (self.format > 0).then(|| FORMATS[usize::from(self.format)].0)
    }

    /// The limits a policy must keep.
    pub fn limits(&self) -> Limits {
        Limits {
            max_amplification: self.max_amp_milli.map(|m| m as f64 / 1000.0),
            max_p99_ms: self.p99.map(|d| d.as_millis_f64()),
        }
    }

    /// A key's value as the link writes it.
    pub fn get(&self, key: &str) -> Option<String> {
        Some(match key {
            "tune" => String::from(if self.on { "on" } else { "off" }),
            "tune_candidates" => self.candidates.to_string(),
            "tune_runs" => self.runs.to_string(),
            "tune_max_amp" => self
                .max_amp_milli
                .map_or_else(|| String::from("none"), crate::retry::text::milli_text),
            "tune_p99" => self
                .p99
                .map_or_else(|| String::from("none"), |d| d.to_string()),
            "tune_format" => String::from(FORMATS[usize::from(self.format)].0),
            _ => return None,
        })
    }
}
