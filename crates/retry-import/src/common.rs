//! What every format's reader shares: the link and notes it builds, JSON values read with
//! errors naming the field, and the duration syntaxes the formats write.

use crate::formats::Format;
use crate::{short, ImportError, Imported, Note};
use retry_model::{Micros, Params};
use serde_json::{Map, Value};

/// The attempt timeout of a format that has none: an attempt that hangs runs as long as the
/// lab allows (24 h).
pub(crate) const NO_TIMEOUT: Micros = Micros::from_secs(86_400);

/// What the import builds: the link's keys in order, and the notes.
#[derive(Default)]
pub(crate) struct Out {
    keys: Vec<(&'static str, String)>,
    warnings: Vec<Note>,
    unsupported: Vec<Note>,
    defaults: Vec<Note>,
    release: Option<&'static crate::release::Release>,
}

impl Out {
    /// Sets `key`; a key set again keeps its place and takes the new value.
    pub(crate) fn set(&mut self, key: &'static str, value: impl Into<String>) {
        let value = value.into();
        match self.keys.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = value,
            None => self.keys.push((key, value)),
        }
    }
    pub(crate) fn warn(&mut self, field: impl Into<String>, text: impl Into<String>) {
        self.warnings.push(Note::new(field, text));
    }
    pub(crate) fn unsupported(&mut self, field: impl Into<String>, why: impl Into<String>) {
        self.unsupported.push(Note::new(field, why));
    }
    /// Sets `key` to a value the file does not write, naming whose default it is (`Envoy's`,
    /// `Istio 1.24+'s`), so the output lists it among the defaults applied.
    pub(crate) fn set_default(&mut self, key: &'static str, value: impl Into<String>, whose: &str) {
        let value = value.into();
        self.defaults.push(Note {
            key,
            field: key.to_string(),
            text: format!("{value}: {whose} default, not written in the file"),
        });
        self.set(key, value);
    }
    /// The release whose rules the reader applies.
    pub(crate) fn use_release(&mut self, r: &'static crate::release::Release) {
        self.release = Some(r);
    }
    /// The release set by [`Out::use_release`], if any.
    pub(crate) fn release(&self) -> Option<&'static crate::release::Release> {
        self.release
    }
    /// Whether the reader has set `key`.
    pub(crate) fn has(&self, key: &str) -> bool {
        self.keys.iter().any(|(k, _)| *k == key)
    }

    /// The link, every key written out (a lab default included, so the link states the whole
    /// behaviour), checked by the lab's own parser; `at` names what it came from.
    pub(crate) fn finish(mut self, format: Format, at: &str) -> Result<Imported, ImportError> {
        self.lab_defaults();
        let query: Vec<String> = self.keys.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let link = format!("v={}&{}", retry_model::LINK_VERSION, query.join("&"));
        link.parse::<Params>()
            .map_err(|e: retry_model::ConfigError| {
                ImportError::new(at, format!("gives a link the lab refuses: {e}"))
            })?;
        Ok(Imported {
            format: format.name(),
            release: self.release.map_or("", |r| r.label).to_string(),
            link,
            warnings: self.warnings,
            unsupported: self.unsupported,
            defaults: self.defaults,
        })
    }

    /// Names each policy key the reader left to the lab's own default: a run uses it, and the
    /// file does not say it, so it must not pass in silence.
    fn lab_defaults(&mut self) {
        if self.value("hedge") == Some("on") {
            // A hedging policy's sends are its own keys; the retry keys do not run.
            return;
        }
        // One attempt never waits and never asks whether to retry.
        let retries = !matches!(self.value("attempts"), Some("1"));
        let waits = retries && !matches!(self.value("backoff"), Some("none"));
        let statuses = retries && !self.has("retry_on") && !self.has("classify");
        for key in LAB_DEFAULTED {
            let needed = match *key {
                "base" | "cap" => waits,
                "backoff" => retries,
                "classify" => statuses,
                _ => true,
            };
            if !needed || self.has(key) {
                continue;
            }
            let Some(k) = retry_model::link_keys::key(key) else {
                continue;
            };
            self.defaults.push(Note {
                key,
                field: key.to_string(),
                text: format!(
                    "{}: the lab's default; the file does not set it and the format has none the import knows",
                    k.default
                ),
            });
        }
    }

    /// The value the reader set `key` to last, if any.
    fn value(&self, key: &str) -> Option<&str> {
        self.keys
            .iter()
            .rev()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// The policy keys every run reads: one the reader does not set takes the lab's default, which
/// the import then names.
const LAB_DEFAULTED: &[&str] = &[
    "attempts",
    "backoff",
    "base",
    "cap",
    "deadline",
    "attempt_timeout",
    "classify",
];

/// The object at `field`, or an error naming it.
pub(crate) fn object<'v>(v: &'v Value, field: &str) -> Result<&'v Map<String, Value>, ImportError> {
    v.as_object()
        .ok_or_else(|| ImportError::new(field, format!("expected an object, found {}", kind(v))))
}

/// A JSON value's kind, in words.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A proto3 JSON duration: decimal seconds with an `s` suffix, up to 9 fractional digits
/// (`"0.1s"`, `"30s"`), kept to the microsecond.
pub(crate) fn duration(v: &Value, field: &str, out: &mut Out) -> Result<Micros, ImportError> {
    let bad = || {
        ImportError::new(
            field,
            format!(
                "'{}' is not a duration: expected a string of seconds such as \"0.1s\" or \"30s\"",
                short(&v.to_string())
            ),
        )
    };
    let s = v.as_str().ok_or_else(bad)?;
    let secs = s.strip_suffix('s').ok_or_else(bad)?;
    let (whole, frac) = secs.split_once('.').unwrap_or((secs, ""));
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && frac.is_empty()) || !digits(whole) || !digits(frac) || frac.len() > 9 {
        return Err(bad());
    }
    if whole.is_empty() {
        out.warn(
            field,
            format!("'{s}' has no whole part: gRFC A6 asks for a JSON number (\"0{s}\"); grpc-go reads it, other clients may refuse the config"),
        );
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| bad())?
    };
    let mut us_frac = 0u64;
    for (i, b) in frac.bytes().take(6).enumerate() {
        us_frac += u64::from(b - b'0') * 10u64.pow(5 - i as u32);
    }
    let us = whole
        .checked_mul(1_000_000)
        .and_then(|w| w.checked_add(us_frac))
        .ok_or_else(bad)?;
    Ok(Micros(us))
}

/// A Go duration as Istio writes it (`time.ParseDuration`): one or more decimal numbers, each
/// with a unit `h`, `m`, `s`, `ms`, `us` (or `µs`) or `ns` (`"10s"`, `"1.5s"`, `"1m30s"`),
/// kept to the microsecond.
pub(crate) fn go_duration(v: &Value, field: &str) -> Result<Micros, ImportError> {
    let bad = || {
        ImportError::new(
            field,
            format!(
                "'{}' is not a duration: expected a number and a unit (h, m, s, ms, us), such as \"100ms\" or \"1m30s\"",
                short(&v.to_string())
            ),
        )
    };
    let s = v.as_str().ok_or_else(bad)?;
    let mut rest = s;
    let mut total: u128 = 0;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        let (num, tail) = rest.split_at(num_len);
        let unit_len = tail
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(tail.len());
        let (unit, tail) = tail.split_at(unit_len);
        // Nanoseconds per unit.
        let per: u128 = match unit {
            "h" => 3_600_000_000_000,
            "m" => 60_000_000_000,
            "s" => 1_000_000_000,
            "ms" => 1_000_000,
            "us" | "µs" => 1_000,
            "ns" => 1,
            _ => return Err(bad()),
        };
        let (whole, frac) = num.split_once('.').unwrap_or((num, ""));
        if (whole.is_empty() && frac.is_empty()) || whole.len() > 12 || frac.len() > 12 {
            return Err(bad());
        }
        let whole: u128 = if whole.is_empty() {
            0
        } else {
            whole.parse().map_err(|_| bad())?
        };
        let scale = 10u128.pow(frac.len() as u32);
        let frac: u128 = if frac.is_empty() {
            0
        } else {
            frac.parse().map_err(|_| bad())?
        };
        total += whole * per + frac * per / scale;
        rest = tail;
    }
    if s.is_empty() {
        return Err(bad());
    }
    u64::try_from(total / 1_000).map(Micros).map_err(|_| bad())
}

/// Warns on each key of `map` that is not among `known` (a format's fields), naming the nearest
/// real one: a key a format does not have is ignored by it, so the setting silently does
/// nothing there (`Backoff` for `BackoffType`). Keys compare as Spring's relaxed binding and
/// .NET's and Go's JSON do: case, `-` and `_` aside. `field` names a key where it was found.
pub(crate) fn unknown_keys(
    map: &Map<String, Value>,
    known: &[&str],
    field: &dyn Fn(&str) -> String,
    out: &mut Out,
) {
    let norm = |k: &str| k.replace(['-', '_'], "").to_ascii_lowercase();
    for k in map.keys() {
        if known.iter().any(|n| norm(n) == norm(k)) {
            continue;
        }
        let nearest = known
            .iter()
            .map(|n| (strsim::jaro_winkler(&norm(k), &norm(n)), n))
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, n)| *n)
            .unwrap_or("");
        out.warn(
            field(k),
            format!("not a key of this format: it is ignored, so it does nothing; the nearest real key is {nearest}"),
        );
    }
}

/// The field as a whole number, if it is one.
pub(crate) fn count(v: &Value, field: &str, what: &str) -> Result<u64, ImportError> {
    v.as_u64().ok_or_else(|| {
        ImportError::new(
            field,
            format!("expected {what}, found '{}'", short(&v.to_string())),
        )
    })
}

/// Seconds as Python writes them (tenacity, botocore) as a duration, to the microsecond.
pub(crate) fn seconds(v: f64, field: &str) -> Result<Micros, ImportError> {
    if !(0.0..=86_400.0).contains(&v) {
        return Err(ImportError::new(
            field,
            format!("{v} s: the lab takes a duration in [0, 86400] seconds"),
        ));
    }
    Ok(Micros((v * 1e6).round() as u64))
}

/// An HTTP status list as proxies write it (`5xx`, `gateway-error`, `429`, `500-504`), as the
/// link's `retry_on` (codes and ranges in [100, 599]).
pub(crate) fn http_codes(items: &[String], field: &str) -> Result<String, ImportError> {
    let mut out: Vec<String> = Vec::new();
    for item in items.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let code = |t: &str| t.parse::<u16>().ok().filter(|c| (100..=599).contains(c));
        let bad = || {
            ImportError::new(
                field,
                format!(
                    "'{}' is not a status: expected a code in [100, 599], a range 500-504, 5xx or gateway-error",
                    short(item)
                ),
            )
        };
        match item.to_ascii_lowercase().as_str() {
            "5xx" => out.push(String::from("500-599")),
            "4xx" => out.push(String::from("400-499")),
            "gateway-error" => out.push(String::from("502-504")),
            t => match t.split_once('-') {
                Some((a, b)) => {
                    let (a, b) = (code(a).ok_or_else(bad)?, code(b).ok_or_else(bad)?);
                    if a > b {
                        return Err(bad());
                    }
                    out.push(format!("{a}-{b}"));
                }
                None => out.push(code(t).ok_or_else(bad)?.to_string()),
            },
        }
    }
    Ok(out.join(","))
}

/// A JSON document walked once to refuse a key written twice in one object, which serde_json's
/// `Value` would keep the last of in silence (a YAML file is refused by its parser instead).
pub(crate) struct NoDuplicates;

impl<'de> serde::Deserialize<'de> for NoDuplicates {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NoDuplicates)
    }
}

impl<'de> serde::de::Visitor<'de> for NoDuplicates {
    type Value = NoDuplicates;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("JSON")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Self, A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(k) = m.next_key::<String>()? {
            if !seen.insert(k.clone()) {
                return Err(serde::de::Error::custom(format!(
                    "the key \"{}\" is written twice in one object",
                    short(&k)
                )));
            }
            m.next_value::<NoDuplicates>()?;
        }
        Ok(NoDuplicates)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut s: A) -> Result<Self, A::Error> {
        while s.next_element::<NoDuplicates>()?.is_some() {}
        Ok(NoDuplicates)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self, E> {
        Ok(NoDuplicates)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self, E> {
        Ok(NoDuplicates)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self, E> {
        Ok(NoDuplicates)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self, E> {
        Ok(NoDuplicates)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self, E> {
        Ok(NoDuplicates)
    }
    fn visit_unit<E>(self) -> Result<Self, E> {
        Ok(NoDuplicates)
    }
}

/// What a reader that holds several policies (tenacity functions, resilience4j instances,
/// Linkerd resources, Polly sections) picks from: the names it found and what it is looking for.
pub(crate) struct Choice<'a> {
    /// `--instance NAME`, if given.
    pub(crate) want: Option<&'a str>,
    /// What a policy is, for the error: "no {what} '{want}'".
    pub(crate) what: &'a str,
    /// The field and the rule when nothing at all was found.
    pub(crate) none: (&'a str, &'a str),
}

impl Choice<'_> {
    /// The index of the policy `--instance` names (where `named(i, want)`), else of the first;
    /// one line listing the names found when `--instance` names none.
    pub(crate) fn pick(
        &self,
        names: &[&str],
        named: impl Fn(usize, &str) -> bool,
    ) -> Result<usize, ImportError> {
        match self.want {
            Some(want) => (0..names.len()).find(|&i| named(i, want)).ok_or_else(|| {
                let found: Vec<&str> = names.iter().copied().filter(|n| !n.is_empty()).collect();
                let found = if found.is_empty() {
                    String::from("none named")
                } else {
                    found.join(", ")
                };
                let rule = format!("no {} '{}': found {found}", self.what, short(want));
                ImportError::new("--instance", rule)
            }),
            None if names.is_empty() => Err(ImportError::new(self.none.0, self.none.1)),
            None => Ok(0),
        }
    }
}
