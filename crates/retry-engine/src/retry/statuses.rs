//! A client's own list of retryable HTTP statuses (`retry_on=408,429,500-504`).
//!
//! Why a list and not a rule? The clients disagree: azure-core retries every status from 506 to
//! 998, google-api-core leaves out 502 and 504, got retries Cloudflare's 521, 522 and 524, and
//! most Python clients retry no status at all unless told. A preset states its client's list;
//! the list then decides every status, whatever the operation (timeouts and refused
//! connections still follow the classifier).
//!
//! ```
//! use retry_model::StatusSet;
//! let s: StatusSet = "408,429,500-504".parse().unwrap();
//! assert!(s.contains(501) && !s.contains(505) && !s.contains(430));
//! assert_eq!(s.to_string(), "408,429,500-504");
//! ```

use crate::retry::error::ConfigError;
use alloc::format;
use core::fmt;
use core::str::FromStr;

/// The lowest status a set holds.
pub const STATUS_LO: u16 = 100;
/// The highest status a set holds.
pub const STATUS_HI: u16 = 999;

/// A set of HTTP statuses in `[100, 999]`, as bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct StatusSet([u64; 15]);

impl StatusSet {
    /// The empty set: the classifier's own rules decide.
    pub const EMPTY: StatusSet = StatusSet([0; 15]);

    /// Whether `code` is in the set.
    pub const fn contains(&self, code: u16) -> bool {
        if code < STATUS_LO || code > STATUS_HI {
            return false;
        }
        let i = (code - STATUS_LO) as usize;
        self.0[i / 64] & (1 << (i % 64)) != 0
    }

    /// Adds `code` (in `[100, 999]`).
    pub fn insert(&mut self, code: u16) {
        if (STATUS_LO..=STATUS_HI).contains(&code) {
            let i = (code - STATUS_LO) as usize;
            self.0[i / 64] |= 1 << (i % 64);
        }
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    /// The statuses in ascending order, read a word of bits at a time (a link's every write
    /// formats the set, so an empty or short one costs little).
    pub fn codes(&self) -> impl Iterator<Item = u16> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &word)| {
            let mut bits = word;
            core::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let b = bits.trailing_zeros() as u16;
                bits &= bits - 1;
                Some(STATUS_LO + w as u16 * 64 + b)
            })
        })
    }
}

impl fmt::Display for StatusSet {
    /// Ascending, runs of three or more written as ranges (`408,429,500-504`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut codes = self.codes().peekable();
        let mut first = true;
        while let Some(start) = codes.next() {
            let mut end = start;
            while codes.next_if_eq(&(end + 1)).is_some() {
                end += 1;
            }
            let sep = if first { "" } else { "," };
            first = false;
            match end - start {
                0 => write!(f, "{sep}{start}")?,
                1 => write!(f, "{sep}{start},{end}")?,
                _ => write!(f, "{sep}{start}-{end}")?,
            }
        }
        Ok(())
    }
}

/// gRPC's failure codes by name and number, with the HTTP status a gateway answers for each
/// (grpc-gateway's mapping, `runtime/errors.go` `HTTPStatusFromCode`): the lab's servers
/// answer HTTP statuses, so `retry_on=UNAVAILABLE` retries what they answer for it, 503.
pub const GRPC_CODES: [(&str, u16, u16); 16] = [
    ("CANCELLED", 1, 499),
    ("UNKNOWN", 2, 500),
    ("INVALID_ARGUMENT", 3, 400),
    ("DEADLINE_EXCEEDED", 4, 504),
    ("NOT_FOUND", 5, 404),
    ("ALREADY_EXISTS", 6, 409),
    ("PERMISSION_DENIED", 7, 403),
    ("RESOURCE_EXHAUSTED", 8, 429),
    ("FAILED_PRECONDITION", 9, 400),
    ("ABORTED", 10, 409),
    ("OUT_OF_RANGE", 11, 400),
    ("UNIMPLEMENTED", 12, 501),
    ("INTERNAL", 13, 500),
    ("UNAVAILABLE", 14, 503),
    ("DATA_LOSS", 15, 500),
    ("UNAUTHENTICATED", 16, 401),
];

/// The gRPC code a server answers for each HTTP status the lab's servers answer: the inverse of
/// [`GRPC_CODES`], where several codes share a status taking the one a gRPC server sends for it
/// (INTERNAL for 500, ABORTED for 409, INVALID_ARGUMENT for 400). Statuses no gateway answers
/// for a gRPC code (408, 422, 502) have none.
const GRPC_OF_HTTP: [(u16, &str, u16); 11] = [
    (400, "INVALID_ARGUMENT", 3),
    (401, "UNAUTHENTICATED", 16),
    (403, "PERMISSION_DENIED", 7),
    (404, "NOT_FOUND", 5),
    (409, "ABORTED", 10),
    (429, "RESOURCE_EXHAUSTED", 8),
    (499, "CANCELLED", 1),
    (500, "INTERNAL", 13),
    (501, "UNIMPLEMENTED", 12),
    (503, "UNAVAILABLE", 14),
    (504, "DEADLINE_EXCEEDED", 4),
];

/// The gRPC code (name and number) a gRPC server answers where an HTTP one answers `http`.
pub fn grpc_code_of(http: u16) -> Option<(&'static str, u16)> {
    GRPC_OF_HTTP
        .iter()
        .find(|(h, _, _)| *h == http)
        .map(|(_, name, code)| (*name, *code))
}

/// The HTTP status of gRPC code `part`, given by name (any case) or number (1 to 16).
pub fn grpc_status(part: &str) -> Option<u16> {
    let n = part.parse::<u16>().ok();
    GRPC_CODES
        .iter()
        .find(|(name, code, _)| n == Some(*code) || name.eq_ignore_ascii_case(part))
        .map(|(_, _, http)| *http)
}

impl FromStr for StatusSet {
    type Err = ConfigError;
    /// A comma list of statuses or ranges `a-b`, each in `[100, 999]`, or gRPC codes by name
    /// or number (as the HTTP status a gateway answers for each); empty for none.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut set = StatusSet::EMPTY;
        let bad = |part: &str| {
            ConfigError::new(
                "retry_on",
                format!("'{part}' is not a status or a range a-b of statuses in [100, 999], or a gRPC code (UNAVAILABLE, or 1 to 16)"),
            )
        };
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if let Some(http) = grpc_status(part) {
                set.insert(http);
                continue;
            }
            let (a, b) = part.split_once('-').unwrap_or((part, part));
            let (a, b) = match (a.trim().parse::<u16>(), b.trim().parse::<u16>()) {
                (Ok(a), Ok(b)) if a <= b && a >= STATUS_LO && b <= STATUS_HI => (a, b),
                _ => return Err(bad(part)),
            };
            for c in a..=b {
                set.insert(c);
            }
        }
        Ok(set)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retry::rng::Words;

    #[test]
    fn round_trips_and_refuses_by_name() {
        for text in ["", "503", "408,429,500-504", "408,429,500,502-504,506-998"] {
            let s: StatusSet = text.parse().unwrap();
            assert_eq!(s.to_string(), text);
        }
        assert_eq!(
            "500,501".parse::<StatusSet>().unwrap().to_string(),
            "500,501"
        );
        for bad in ["99", "1000", "504-500", "abc", "5x0"] {
            let e = bad.parse::<StatusSet>().unwrap_err();
            assert_eq!(e.field, "retry_on", "{bad}");
        }
        // gRPC codes by name or number: the statuses a gateway answers for them.
        let g: StatusSet = "UNAVAILABLE,resource_exhausted,4".parse().unwrap();
        assert_eq!(g.to_string(), "429,503,504");
        for bad in ["0", "17", "OK", "UNAVAILABLE-503"] {
            assert!(bad.parse::<StatusSet>().is_err(), "{bad}");
        }
        let s: StatusSet = "506-998".parse().unwrap();
        assert_eq!(s.codes().count(), 493);
        assert!(s.contains(998) && !s.contains(999) && !s.contains(505));
    }

    /// Random sets, sparse and dense, across every word boundary: the codes are the members in
    /// order, and the text is what a code-by-code walk writes.
    #[test]
    fn codes_and_text_match_a_walk_over_every_status() {
        use alloc::string::{String, ToString};
        use alloc::vec::Vec;
        let mut rng = crate::retry::rng::Rng::stream(3, 4);
        for density in [1, 5, 50, 95, 100] {
            for _ in 0..40 {
                let mut s = StatusSet::EMPTY;
                for c in STATUS_LO..=STATUS_HI {
                    if rng.below(100) < density {
                        s.insert(c);
                    }
                }
                let walk: Vec<u16> = (STATUS_LO..=STATUS_HI).filter(|c| s.contains(*c)).collect();
                assert_eq!(s.codes().collect::<Vec<_>>(), walk);
                let mut parts: Vec<String> = Vec::new();
                let mut i = 0;
                while i < walk.len() {
                    let mut j = i;
                    while j + 1 < walk.len() && walk[j + 1] == walk[j] + 1 {
                        j += 1;
                    }
                    if j >= i + 2 {
                        parts.push(format!("{}-{}", walk[i], walk[j]));
                    } else {
                        parts.extend(walk[i..=j].iter().map(ToString::to_string));
                    }
                    i = j + 1;
                }
                let text = s.to_string();
                assert_eq!(text, parts.join(","));
                assert_eq!(text.parse::<StatusSet>().unwrap(), s);
            }
        }
    }
}
