//! The tuner's link keys (`tune`, `tune_candidates`, `tune_runs`, `tune_max_amp`,
//! `tune_p99`, `tune_max_peak`, `tune_recover`, `tune_format`, `tune_weather`) and the space it searches, which the key table's
//! ranges read; the search itself is `crate::tune`.

use crate::retry::text::shorten;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

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
    /// The most peak attempts a second, over every weather.
    pub max_peak: Option<f64>,
    /// Whether every run of every weather must recover (a weather with no trigger to recover
    /// from counts as recovered).
    pub must_recover: bool,
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

/// A condition a policy must survive: a name and the link keys that make it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weather {
    /// `blip`.
    pub name: String,
    /// `outage=5s`.
    pub keys: String,
}

/// The most weathers a search names (`tune_weather`): each multiplies its runs.
pub const MAX_WEATHERS: usize = 8;

/// Keys a weather may not set: the link's kind and version, and the search's own keys.
const NOT_WEATHER: [&str; 6] = ["v", "preset", "scenario", "runs", "seed", "engine"];

/// Reads `tune_weather`: weathers separated by `/`, each `NAME:KEYS` with the keys separated by
/// `,` (`blip:outage=5s/long:outage=60s,duration=120s`); a part with no `=` continues the
/// previous key's comma list (`retry_on=503,504`). `default` is the four default weathers.
/// The separators are ones a link writes as they are, so the value stays readable. `known`
/// says whether a name is a link key.
pub fn parse_weathers(v: &str, known: &dyn Fn(&str) -> bool) -> Result<Vec<Weather>, String> {
    if v.is_empty() || v == "default" {
        return Ok(Vec::new());
    }
    let list: Vec<&str> = v.split('/').collect();
    if list.len() > MAX_WEATHERS {
        return Err(format!(
            "{} weathers; accepted 1 to {MAX_WEATHERS}",
            list.len()
        ));
    }
    let mut out: Vec<Weather> = Vec::new();
    for w in list {
        let (name, keys) = w
            .split_once(':')
            .ok_or_else(|| format!("'{}' is not NAME:KEYS (blip:outage=5s)", shorten(w)))?;
        let named = (1..=20).contains(&name.len())
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_".contains(&b));
        if !named {
            return Err(format!(
                "'{}': a weather's name is 1 to 20 letters, digits, '-' or '_'",
                shorten(name)
            ));
        }
        if out.iter().any(|o| o.name == name) {
            return Err(format!("'{name}' is named twice"));
        }
        out.push(Weather {
            name: name.to_string(),
            keys: weather_keys(name, keys, known)?,
        });
    }
    Ok(out)
}

/// A weather's keys as link text (`outage=60s&duration=120s`), each a key of the link.
fn weather_keys(name: &str, keys: &str, known: &dyn Fn(&str) -> bool) -> Result<String, String> {
    let mut parts: Vec<String> = Vec::new();
    for part in keys.split(',') {
        match (part.split_once('='), parts.last_mut()) {
            (Some((k, _)), _) => {
                if !known(k) || NOT_WEATHER.contains(&k) || k.starts_with("tune") {
                    return Err(format!(
                        "{name}: '{}' is not a key a weather may set",
                        shorten(k)
                    ));
                }
                parts.push(part.to_string());
            }
            (None, Some(last)) if !part.is_empty() => {
                last.push(',');
                last.push_str(part);
            }
            _ => {
                return Err(format!(
                    "{name}: '{}' is not KEY=VALUE,KEY=VALUE",
                    shorten(keys)
                ))
            }
        }
    }
    Ok(parts.join("&"))
}

/// `tune_weather`'s text for `ws` (`default` when empty): [`parse_weathers`] reads it back.
pub fn weathers_text(ws: &[Weather]) -> String {
    if ws.is_empty() {
        return String::from("default");
    }
    let each: Vec<String> = ws
        .iter()
        .map(|w| format!("{}:{}", w.name, w.keys.replace('&', ",")))
        .collect();
    each.join("/")
}

/// What a link asks of the search (`tune` and its keys).
#[derive(Clone, Debug, PartialEq, Eq)]
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
    /// `tune_max_peak`: the most peak attempts a second.
    pub max_peak: Option<u64>,
    /// `tune_recover`: every run of every weather must recover.
    pub recover: bool,
    /// `tune_weather`: the weathers (empty: the defaults, `crate::tune::default_weathers`).
    pub weathers: Vec<Weather>,
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
        max_peak: None,
        recover: false,
        weathers: Vec::new(),
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
            max_peak: self.max_peak.map(|m| m as f64),
            must_recover: self.recover,
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
            "tune_weather" => weathers_text(&self.weathers),
            "tune_max_peak" => self
                .max_peak
                .map_or_else(|| String::from("none"), |m| m.to_string()),
            "tune_recover" => String::from(if self.recover { "on" } else { "off" }),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_weathers(v: &str) -> Result<Vec<Weather>, String> {
        super::parse_weathers(v, &|k| crate::link::keys::key(k).is_some())
    }

    #[test]
    fn weathers_read_back_as_written_and_bad_ones_are_named() {
        let ws = parse_weathers("blip:outage=5s/long:outage=60s,duration=120s").unwrap();
        assert_eq!(ws.len(), 2);
        assert_eq!(ws[1].keys, "outage=60s&duration=120s");
        assert_eq!(
            weathers_text(&ws),
            "blip:outage=5s/long:outage=60s,duration=120s"
        );
        // A comma list stays one key's value.
        let ws = parse_weathers("codes:retry_on=503,504,outage=3s").unwrap();
        assert_eq!(ws[0].keys, "retry_on=503,504&outage=3s");
        assert!(parse_weathers("default").unwrap().is_empty());
        for (bad, says) in [
            ("blip", "NAME:KEYS"),
            ("a:outage=1s/a:outage=2s", "named twice"),
            ("a b:outage=1s", "name is 1 to 20"),
            ("a:nokey=1", "not a key a weather may set"),
            ("a:tune_runs=2", "not a key a weather may set"),
            ("a:preset=chapter", "not a key a weather may set"),
            ("a:", "not KEY=VALUE"),
            ("a:1/b:2/c:3/d:4/e:5/f:6/g:7/h:8/i:9", "accepted 1 to 8"),
        ] {
            let e = parse_weathers(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
        let link = "preset=payments-jitter&tune=on&tune_weather=blip:outage=5s/long:outage=30s,duration=60s";
        let p: crate::Params = link.parse().unwrap();
        assert_eq!(p.tune.weathers.len(), 2);
        assert!(p
            .to_string()
            .ends_with("tune_weather=blip:outage=5s/long:outage=30s,duration=60s"));
        assert_eq!(p.to_string().parse::<crate::Params>().unwrap(), p);
    }
}
