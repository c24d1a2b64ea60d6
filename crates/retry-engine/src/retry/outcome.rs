//! What one attempt returned, and how the link writes it.
//!
//! A link scripts outcomes as a comma-separated list, one per attempt: `connect_timeout,503,ok`.
//! A token may carry modifiers after colons:
//!
//! | modifier | meaning |
//! |---|---|
//! | `ra=2s` | a `Retry-After` header (408, 429, 503, 409_in_flight) |
//! | `ssr=yes` / `ssr=no` | a `Stripe-Should-Retry` header |
//! | `pushback=250` / `pushback=-1` | a gRPC `grpc-retry-pushback-ms` trailer, in ms |
//! | `took=40ms` | how long the attempt took (timeouts always take their whole timeout) |
//!
//! ```
//! use retry_model::{Outcome, ScriptedOutcome};
//! let o: ScriptedOutcome = "503:ra=2s".parse().unwrap();
//! assert_eq!(o.outcome, Outcome::Status(503));
//! assert_eq!(o.to_string(), "503:ra=2s");
//! ```

use crate::retry::error::ConfigError;
use crate::retry::time::Micros;
use alloc::format;
use alloc::string::String;
use core::fmt;
use core::str::FromStr;

/// The result of one attempt as the client sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// A 2xx answer.
    Ok,
    /// The connection was refused: the request never arrived.
    Refused,
    /// The connection was not set up in time: the request never arrived.
    ConnectTimeout,
    /// The request was sent but no answer came in time: the work may have happened.
    ReadTimeout,
    /// An HTTP error status (one of [`Outcome::STATUSES`]).
    Status(u16),
    /// 409 meaning "a request with this idempotency key is still in flight".
    KeyInFlight,
}

impl Outcome {
    /// The HTTP error statuses the model classifies.
    pub const STATUSES: [u16; 12] = [400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503, 504];

    /// Whether the attempt succeeded.
    pub const fn is_ok(self) -> bool {
        matches!(self, Outcome::Ok)
    }

    /// Whether the client gave up waiting (the attempt used its whole timeout).
    pub const fn is_timeout(self) -> bool {
        matches!(self, Outcome::ConnectTimeout | Outcome::ReadTimeout)
    }

    /// Whether the server asked the client to slow down (429), which some budgets and
    /// backoffs treat apart.
    pub const fn is_throttling(self) -> bool {
        matches!(self, Outcome::Status(429))
    }

    /// The link token.
    pub fn token(self) -> String {
        match self {
            Outcome::Ok => "ok".into(),
            Outcome::Refused => "refused".into(),
            Outcome::ConnectTimeout => "connect_timeout".into(),
            Outcome::ReadTimeout => "read_timeout".into(),
            Outcome::Status(c) => format!("{c}"),
            Outcome::KeyInFlight => "409_in_flight".into(),
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.token())
    }
}

const ACCEPTED: &str = "accepted ok, refused, connect_timeout, read_timeout, 400, 401, 403, 404, 408, 409, 409_in_flight, 422, 429, 500, 502, 503, 504, or a gRPC code whose status is one of them (UNAVAILABLE, 14, RESOURCE_EXHAUSTED, ...)";

impl FromStr for Outcome {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "ok" | "200" => Outcome::Ok,
            "refused" => Outcome::Refused,
            "connect_timeout" => Outcome::ConnectTimeout,
            "read_timeout" => Outcome::ReadTimeout,
            "409_in_flight" => Outcome::KeyInFlight,
            _ => match (s.parse::<u16>(), crate::retry::statuses::grpc_status(s)) {
                (Ok(c), _) if Outcome::STATUSES.contains(&c) => Outcome::Status(c),
                // A gRPC code, as the status a gateway answers for it (UNAVAILABLE: 503).
                (_, Some(c)) if Outcome::STATUSES.contains(&c) => Outcome::Status(c),
                (_, Some(c)) => {
                    return Err(ConfigError::new(
                        "outcomes",
                        format!("gRPC code '{s}' is answered as {c} by a gateway, which the lab's servers do not answer: {ACCEPTED}"),
                    ))
                }
                _ => {
                    return Err(ConfigError::new(
                        "outcomes",
                        format!("unknown outcome '{s}': {ACCEPTED}"),
                    ))
                }
            },
        })
    }
}

/// An outcome with the headers and timing a script gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScriptedOutcome {
    /// What happened.
    pub outcome: Outcome,
    /// `Retry-After`, if the server sent one.
    pub retry_after: Option<Micros>,
    /// `Stripe-Should-Retry`, if the server sent one.
    pub should_retry: Option<bool>,
    /// gRPC pushback in milliseconds; negative means "do not retry".
    pub pushback_ms: Option<i32>,
    /// How long the attempt took, if not the link's default `latency`.
    pub took: Option<Micros>,
}

impl ScriptedOutcome {
    /// A bare outcome with no headers.
    pub const fn new(outcome: Outcome) -> Self {
        ScriptedOutcome {
            outcome,
            retry_after: None,
            should_retry: None,
            pushback_ms: None,
            took: None,
        }
    }
}

impl From<Outcome> for ScriptedOutcome {
    fn from(o: Outcome) -> Self {
        ScriptedOutcome::new(o)
    }
}

impl fmt::Display for ScriptedOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.outcome)?;
        if let Some(ra) = self.retry_after {
            write!(f, ":ra={ra}")?;
        }
        if let Some(ssr) = self.should_retry {
            write!(f, ":ssr={}", if ssr { "yes" } else { "no" })?;
        }
        if let Some(p) = self.pushback_ms {
            write!(f, ":pushback={p}")?;
        }
        if let Some(t) = self.took {
            write!(f, ":took={t}")?;
        }
        Ok(())
    }
}

impl FromStr for ScriptedOutcome {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut parts = s.trim().split(':');
        let head = parts.next().unwrap_or("");
        let mut out = ScriptedOutcome::new(head.parse()?);
        let mut seen: [&str; 4] = [""; 4];
        for (i, m) in parts.enumerate() {
            let (name, value) = m.split_once('=').ok_or_else(|| {
                ConfigError::new("outcomes", format!("modifier '{m}' in '{s}' needs a value: ra=DUR, ssr=yes|no, pushback=MS, took=DUR"))
            })?;
            if seen.contains(&name) {
                return Err(ConfigError::new(
                    "outcomes",
                    format!("modifier '{name}' appears twice in '{s}'"),
                ));
            }
            if let Some(slot) = seen.get_mut(i) {
                *slot = name;
            }
            let dur = |v: &str| {
                v.parse::<Micros>()
                    .map_err(|e| ConfigError::new("outcomes", format!("{name} in '{s}': {e}")))
            };
            match name {
                "ra" => out.retry_after = Some(dur(value)?),
                "took" => out.took = Some(dur(value)?),
                "ssr" => {
                    out.should_retry = Some(match value {
                        "yes" | "true" => true,
                        "no" | "false" => false,
                        _ => return Err(ConfigError::new("outcomes", format!("ssr in '{s}' must be yes or no"))),
                    })
                }
                "pushback" => {
                    out.pushback_ms = Some(value.parse::<i32>().map_err(|_| {
                        ConfigError::new("outcomes", format!("pushback in '{s}' must be a whole number of ms (a signed 32-bit integer)"))
                    })?)
                }
                _ => {
                    return Err(ConfigError::new(
                        "outcomes",
                        format!("unknown modifier '{name}' in '{s}': accepted ra, ssr, pushback, took"),
                    ))
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grpc_codes_are_the_statuses_a_gateway_answers() {
        for (t, status) in [
            ("UNAVAILABLE", 503),
            ("14", 503),
            ("resource_exhausted", 429),
            ("DEADLINE_EXCEEDED:ra=1s", 504),
            ("ABORTED", 409),
        ] {
            let o: ScriptedOutcome = t.parse().unwrap();
            assert_eq!(o.outcome, Outcome::Status(status), "{t}");
        }
        // CANCELLED is 499 at a gateway, which no lab server answers.
        let e = "CANCELLED".parse::<ScriptedOutcome>().unwrap_err();
        assert!(e.rule.contains("499"), "{e}");
        assert!("BOGUS".parse::<ScriptedOutcome>().is_err());
    }

    #[test]
    fn tokens_round_trip() {
        for t in [
            "ok",
            "refused",
            "connect_timeout",
            "read_timeout",
            "409_in_flight",
            "503:ra=2s",
            "429:ra=1500ms:took=40ms",
            "500:ssr=no",
            "503:pushback=-1",
            "504:ssr=yes:pushback=250",
        ] {
            let o: ScriptedOutcome = t.parse().unwrap();
            assert_eq!(o.to_string(), t);
        }
    }

    #[test]
    fn unknown_tokens_are_named() {
        let e = "418".parse::<ScriptedOutcome>().unwrap_err();
        assert_eq!(e.field, "outcomes");
        assert!(e.rule.contains("'418'"), "{e}");
        assert!("503:ra=soon".parse::<ScriptedOutcome>().is_err());
        assert!("503:zz=1".parse::<ScriptedOutcome>().is_err());
        assert!("503:ssr=maybe".parse::<ScriptedOutcome>().is_err());
    }
}
