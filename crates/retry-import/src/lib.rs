//! Reads a retry configuration as people write it and gives the Retry Lab link that behaves the
//! same, with every default the format applies written out, so the link is the whole behaviour.
//! What surprises (a value clamped, a field some clients ignore, attempts counted differently)
//! comes back as a warning on the field as written; what was read but cannot be modelled comes
//! back as unsupported, with why, never dropped silently.
//!
//! Formats: a gRPC service config (JSON, gRFC A6); an Envoy route configuration
//! and an Istio VirtualService (YAML or JSON). The importer is a crate of its own so that
//! the no_std core stays free of the formats' parsers; the CLI uses it.

#![forbid(unsafe_code)]

mod aws;
mod common;
mod envoy;
mod export;
mod formats;
mod gateway;
mod grpc;
mod istio;
mod linkerd;
mod polly;
mod python;
pub mod release;
mod resilience4j;
mod spring_gateway;
mod stack;
mod tenacity;
#[cfg(test)]
mod testing;
mod wording;
#[cfg(test)]
mod world;
mod write;
mod writeback;
mod yaml;

pub use export::{export, Exported, EXPORT_FORMATS};
use formats::Format;
pub use formats::FORMATS;
use serde::Serialize;
pub use stack::{stack, Layer, Stack, MAX_STACK};
pub use wording::{field_for_page, for_page};
pub use writeback::{pool_for, pool_of, writes_back};

/// The largest file read: a service config is a few kilobytes.
pub const MAX_BYTES: usize = 1 << 20;

/// What to read and how.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The format's name (one of [`FORMATS`]); detected when `None`.
    pub from: Option<String>,
    /// gRPC: the method whose config to take, `service/method` (or `service`), matched as gRPC
    /// matches it, most specific first.
    pub method: Option<String>,
    /// Envoy and Istio: the route whose retry policy to take, by its `name`.
    pub route: Option<String>,
    /// resilience4j: the retry instance; tenacity: the function (or variable) whose policy to
    /// take; AWS: the profile.
    pub instance: Option<String>,
    /// The release whose rules to apply (`1.23` for Istio, `1` for resilience4j; see
    /// [`release::RELEASES`]); the file's own shape, else the current release, when `None`.
    pub release: Option<String>,
}

/// A field as written and one sentence about it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Note {
    /// The field, as written in the file (a JSON path such as `retryPolicy.maxAttempts`).
    pub field: String,
    /// One sentence.
    pub text: String,
    /// The link key the field becomes (`attempts`, `deadline`...), where the page shows the
    /// note beside that key's control; empty when it has none.
    pub key: &'static str,
}

impl Note {
    /// A note on `field`, with the link key it concerns.
    pub(crate) fn new(field: impl Into<String>, text: impl Into<String>) -> Note {
        let field = field.into();
        Note {
            key: key_of(&field),
            field,
            text: text.into(),
        }
    }
}

/// Which names of a field's part make which link key, the more specific first (see [`key_of`]).
const KEY_RULES: [(&[&str], &str); 10] = [
    (
        &[
            "host_selection",
            "host_predicate",
            "ratelimiter",
            "waitforready",
            "priority",
        ],
        "",
    ),
    (
        &[
            "pertrytimeout",
            "per_try_timeout",
            "attempttimeout",
            "backendrequest",
            "io/timeout",
            "read_timeout",
        ],
        "attempt_timeout",
    ),
    (
        &["ratelimited", "rate_limited", "retryafter", "retry-after"],
        "ra_mode",
    ),
    (
        &[
            "retrythrottling",
            "retrybudget",
            "retry_budget",
            "max_retries",
            "maxretries",
            "retry_mode",
            "mode",
        ],
        "budget",
    ),
    (
        &["circuitbreaker", "circuit_breakers", "breaker"],
        "breaker",
    ),
    (&["hedg"], "hedge"),
    (
        &[
            "backoff",
            "back_off",
            "wait",
            "delay",
            "jitter",
            "interval",
            "multiplier",
        ],
        "backoff",
    ),
    (
        &["attempts", "num_retries", "retries", "limit", "stop"],
        "attempts",
    ),
    (
        &[
            "retry_on",
            "retryon",
            "codes",
            "statuses",
            "series",
            "retryable",
            "exceptions",
            "methods",
            "io/http",
            "io/grpc",
            "retry",
        ],
        "retry_on",
    ),
    (&["timeout", "io/request"], "deadline"),
];

/// The link key a field of any format becomes, from its name: one rule for every format. The
/// field's last part decides (`num_retries` in `route.retry_policy.num_retries`), else the part
/// before it, and so on; within a part, the more specific names come first (`perTryTimeout`
/// before `timeout`).
pub fn key_of(field: &str) -> &'static str {
    let f = field.to_ascii_lowercase();
    let parts: Vec<&str> = f
        .split(['.', ':', ' ', '[', ']', '\'', '"'])
        .filter(|p| !p.is_empty() && !p.bytes().all(|b| b.is_ascii_digit()))
        .collect();
    parts
        .iter()
        .rev()
        .find_map(|part| {
            KEY_RULES
                .iter()
                .find(|(words, _)| words.iter().any(|w| part.contains(w)))
                .map(|(_, key)| *key)
        })
        .unwrap_or("")
}

/// What a file gives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Imported {
    /// The format read.
    pub format: &'static str,
    /// The release whose rules were applied (`Istio 1.24+`), see [`release::RELEASES`].
    pub release: String,
    /// The link, every key the format decides written out (a lab default included).
    pub link: String,
    /// Where the configuration surprises.
    pub warnings: Vec<Note>,
    /// Fields read but not modelled, with why.
    pub unsupported: Vec<Note>,
    /// Each link key the file does not set, with the default the link takes for it (the
    /// format's or, where the format has none, the lab's).
    pub defaults: Vec<Note>,
}

/// Why a file could not be read: the field (or line) and what was wrong, on one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportError {
    /// The field as written, or `file` for the whole file.
    pub field: String,
    /// What was wrong and what is accepted.
    pub rule: String,
}

impl ImportError {
    /// An error on one line whatever it echoes of the input: line breaks become spaces.
    fn new(field: impl Into<String>, rule: impl Into<String>) -> Self {
        let one_line = |s: String| {
            if s.contains(['\n', '\r']) {
                s.replace("\r\n", " ").replace(['\n', '\r'], " ")
            } else {
                s
            }
        };
        ImportError {
            field: one_line(field.into()),
            rule: one_line(rule.into()),
        }
    }
}

impl core::fmt::Display for ImportError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}: {}", self.field, self.rule)
    }
}

impl std::error::Error for ImportError {}

/// Reads `bytes` (a whole file) by `opts`.
pub fn import(bytes: &[u8], opts: &Options) -> Result<Imported, ImportError> {
    if bytes.len() > MAX_BYTES {
        return Err(ImportError::new(
            "file",
            format!(
                "{} bytes is over the {MAX_BYTES}-byte limit of a configuration",
                bytes.len()
            ),
        ));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        ImportError::new(
            "file",
            format!("not UTF-8 text (a bad byte at offset {})", e.valid_up_to()),
        )
    })?;
    let format = match opts.from.as_deref() {
        Some(name) => Format::named(name).ok_or_else(|| {
            ImportError::new(
                "--from",
                format!(
                    "'{}' is not a format read here: accepted {}",
                    short(name),
                    FORMATS.join(", ")
                ),
            )
        })?,
        None => detect(text)?,
    };
    let mut imported = match format {
        Format::Grpc => grpc::import(text, opts),
        Format::Envoy => envoy::import(text, opts),
        Format::Istio => istio::import(text, opts),
        Format::Linkerd => linkerd::import(text, opts),
        Format::GatewayApi => gateway::import(text, opts),
        Format::SpringGateway => spring_gateway::import(text, opts),
        Format::Resilience4j => resilience4j::import(text, opts),
        Format::Polly => polly::import(text, opts),
        Format::Aws => aws::import(text, opts),
        Format::Tenacity => tenacity::import(text, opts),
    }?;
    if imported.release.is_empty() {
        // A reader whose format has one set of rules: `--version` must still name it.
        let r = release::choose(imported.format, opts.release.as_deref(), None)?;
        imported.release = r.label.to_string();
    }
    Ok(imported)
}

/// What marks each format in a file, in the order they are tried: a file holding any of the
/// first words and any of the second (none: no second condition) is that format. A gateway's
/// Retry filter comes before resilience4j (a Spring Cloud Gateway file often configures a
/// resilience4j breaker beside it); an Envoy admin `config_dump` (whose metadata names Istio's
/// resources) before Istio; Istio's resources before Envoy's own field names.
const SIGNS: &[(Format, &[&str], &[&str])] = &[
    (
        Format::SpringGateway,
        &[
            "Retry=",
            "name: Retry",
            "- Retry\n",
            "- Retry\r",
            "\"Retry\"",
        ],
        &["gateway"],
    ),
    (Format::Resilience4j, &["resilience4j"], &[]),
    (
        Format::Linkerd,
        &[
            "retry.linkerd.io",
            "timeout.linkerd.io",
            "kind: ServiceProfile",
        ],
        &[],
    ),
    (
        Format::GatewayApi,
        &["gateway.networking.k8s.io"],
        &["HTTPRoute", "retry:", "\"retry\""],
    ),
    (
        Format::Polly,
        &[
            "\"MaxRetryAttempts\"",
            "\"BackoffType\"",
            "\"TotalRequestTimeout\"",
            "\"AttemptTimeout\"",
        ],
        &[],
    ),
    (
        Format::Aws,
        &[
            "retry_mode",
            "AWS_RETRY_MODE",
            "AWS_MAX_ATTEMPTS",
            "total_max_attempts",
        ],
        &[],
    ),
    (Format::Aws, &["botocore", "boto3"], &["retries"]),
    (Format::Aws, &["max_attempts"], &["[default]", "[profile "]),
    (Format::Tenacity, &["import tenacity", "from tenacity"], &[]),
    (
        Format::Envoy,
        &["type.googleapis.com/envoy.admin.", "ConfigDump\""],
        &[],
    ),
    (
        Format::Istio,
        &["networking.istio.io"],
        &["VirtualService", "DestinationRule"],
    ),
    (
        Format::Envoy,
        &[
            "retry_policy",
            "virtual_hosts",
            "circuit_breakers",
            "route_config",
            "retryPolicy",
            "virtualHosts",
            "circuitBreakers",
            "routeConfig",
            "numRetries",
        ],
        &[],
    ),
    (Format::Istio, &["networking.istio.io"], &[]),
];

/// The format of `text`, from what it holds ([`SIGNS`]; a gRPC service config first, a JSON
/// object with `methodConfig` or `retryThrottling`).
fn detect(text: &str) -> Result<Format, ImportError> {
    let t = text.trim_start();
    let has = |words: &[&str]| words.iter().any(|w| t.contains(w));
    if t.starts_with('{') && has(&["\"methodConfig\"", "\"retryThrottling\""]) {
        return Ok(Format::Grpc);
    }
    if let Some((format, _, _)) = SIGNS
        .iter()
        .find(|(_, any, and)| has(any) && (and.is_empty() || has(and)))
    {
        return Ok(*format);
    }
    Err(ImportError::new(
        "file",
        format!(
            "no format recognised (a gRPC service config has \"methodConfig\", an Envoy route \"retry_policy\", an Istio resource \"networking.istio.io\", Linkerd \"retry.linkerd.io\", a Gateway API HTTPRoute \"gateway.networking.k8s.io\", a Spring Cloud Gateway \"name: Retry\", resilience4j \"resilience4j:\", Polly \"MaxRetryAttempts\", an AWS profile \"retry_mode\", tenacity code \"from tenacity\"): name one with --from ({})",
            FORMATS.join(", ")
        ),
    ))
}

/// At most the first 80 characters of what was written.
fn short(v: &str) -> String {
    retry_model::shorten(v)
}
