//! What every format's writer shares: the notes an export gathers, reading the link by key,
//! durations as the formats write them, the statuses a proxy lists and a YAML file's header
//! and notes.

use crate::formats::Format;
use crate::Note;
use retry_model::link_key;
use retry_model::link_keys::Key;
use retry_model::{Micros, Params};

/// The notes an export gathers, and the format it writes.
pub(crate) struct Notes {
    notes: Vec<Note>,
    format: Format,
}

impl Notes {
    /// No notes yet, for an export to `format`.
    pub(crate) fn new(format: Format) -> Notes {
        Notes {
            notes: Vec::new(),
            format,
        }
    }

    /// Adds a note on `key` (a row from [`retry_model::link_key!`]); a key already noted keeps
    /// its first note.
    pub(crate) fn add(&mut self, key: &'static Key, text: impl Into<String>) {
        if self.notes.iter().any(|n| n.key == key.name) {
            return;
        }
        self.notes.push(Note {
            field: key.name.to_string(),
            text: text.into(),
            key: key.name,
        });
    }

    /// The notes, in the order they were added.
    pub(crate) fn notes(&self) -> &[Note] {
        &self.notes
    }

    /// The notes, for the export's answer.
    pub(crate) fn into_notes(self) -> Vec<Note> {
        self.notes
    }
}

/// The link's text for `key`, a row from [`retry_model::link_key!`] (so a misspelt key does
/// not build); empty where the key does not apply to the link.
pub(crate) fn get(p: &Params, key: &'static Key) -> String {
    p.get(key.name).unwrap_or_default()
}

/// A duration as proto3 JSON writes it: decimal seconds, `"0.1s"`.
pub(crate) fn proto_secs(m: Micros) -> String {
    let (s, us) = (m.0 / 1_000_000, m.0 % 1_000_000);
    if us == 0 {
        return format!("{s}s");
    }
    let frac = format!("{us:06}");
    format!("{s}.{}s", frac.trim_end_matches('0'))
}

/// A duration as Go writes it (Istio): `"100ms"`, `"2s"`, `"250us"`.
pub(crate) fn go_duration(m: Micros) -> String {
    match m.0 {
        us if us % 1_000_000 == 0 => format!("{}s", us / 1_000_000),
        us if us % 1_000 == 0 => format!("{}ms", us / 1_000),
        us => format!("{us}us"),
    }
}

/// Notes for the parts of the backoff every format here leaves out.
pub(crate) fn shape_notes(p: &Params, notes: &mut Notes) {
    let b = &p.policy.backoff;
    if b.first_exp != 0 {
        notes.add(
            link_key!("first_exp"),
            "the format's first retry waits the base: first_exp is not written",
        );
    }
    if b.floor != Micros::ZERO {
        notes.add(
            link_key!("floor"),
            "the format has no floor under the wait: it is not written",
        );
    }
    if b.throttle_base.is_some() {
        notes.add(
            link_key!("throttle_base"),
            "the format has no separate base after a throttling answer: it is not written",
        );
    }
}

/// The statuses the policy retries that the lab's servers answer: 503 and 429, each `Some`
/// when retried.
pub(crate) fn retried(p: &Params) -> (bool, bool) {
    let s = &p.policy.statuses;
    if s.is_empty() {
        // The classifier decides: every one of them retries 503; the table and aws retry 429.
        let c = get(p, link_key!("classify"));
        return (true, c == "table" || c == "aws" || c == "stripe");
    }
    (s.contains(503), s.contains(429))
}

/// The status the importers write as `retry_on` for a policy that retries no HTTP status (only
/// connection failures): no simulated server answers 501.
pub(crate) const NO_STATUS: u16 = 501;

/// The link's statuses as a proxy lists them (codes and ranges within `range`), the lab's
/// table when the link leaves it to its classifier, none for [`NO_STATUS`].
pub(crate) fn http_statuses(p: &Params, notes: &mut Notes, range: (u16, u16)) -> Vec<String> {
    let mut codes: Vec<u16> = p.policy.statuses.codes().collect();
    if codes == [NO_STATUS] {
        // The importers' mark for "connection failures only": no status is written.
        return Vec::new();
    }
    if codes.is_empty() {
        codes = if p.policy.operation.idempotent {
            vec![408, 429, 500, 502, 503, 504]
        } else {
            vec![408, 429, 503]
        };
        if get(p, link_key!("classify")) != "table" {
            notes.add(
                link_key!("classify"),
                "the proxy retries statuses, not a library's rules: the lab's table is written",
            );
        }
    }
    let outside = codes
        .iter()
        .filter(|c| **c < range.0 || **c > range.1)
        .count();
    if outside > 0 {
        notes.add(
            link_key!("retry_on"),
            format!(
                "only statuses in [{}, {}] can be listed: {outside} left out",
                range.0, range.1
            ),
        );
    }
    codes.retain(|c| (range.0..=range.1).contains(c));
    codes.iter().map(u16::to_string).collect()
}

/// The header of a YAML export: where it came from.
pub(crate) fn yaml_header(p: &Params, notes: &Notes) -> String {
    let to = notes.format.name();
    format!("# Written by `retrylab export --to {to}` from the link\n#   ?{p}\n")
}

/// The notes, as YAML comments at the end of the file.
pub(crate) fn yaml_notes(text: &mut String, notes: &Notes) {
    for n in notes.notes() {
        text.push_str(&format!("# not expressed: {}: {}\n", n.field, n.text));
    }
}
