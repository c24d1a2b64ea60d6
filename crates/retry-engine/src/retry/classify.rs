//! Which failures to retry.
//!
//! Why classify at all? A retry only helps when a later identical request could succeed, and is
//! only safe when repeating it cannot do the work twice. The question is "what state is the far
//! side in, and would the same bytes fail again?":
//!
//! - the request never arrived (connection refused, connect timeout): retry;
//! - the server said "not now" (408, 429, 503, 409 for a key still in flight): retry after the
//!   server's wait when it gave one;
//! - the outcome is unknown (read timeout, 500, 502, 504): the work may have happened, so retry
//!   only an idempotent operation or one carrying an idempotency key;
//! - the request is wrong (400, 401, 403, 404, 409 conflict, 422): never, the same bytes fail the
//!   same way.
//!
//! Server hints win over the table: `Stripe-Should-Retry` says yes or no outright, and a negative
//! gRPC pushback means no.
//!
//! ```
//! use retry_model::{classify, Operation, Outcome, ScriptedOutcome, Verdict};
//! let post = Operation { idempotent: false, key: false };
//! let c = classify(&ScriptedOutcome::new(Outcome::ReadTimeout), post);
//! assert_eq!(c.verdict, Verdict::OnlyIfIdempotent);
//! assert!(!c.retryable);
//! let c = classify(&ScriptedOutcome::new(Outcome::ReadTimeout), Operation { idempotent: false, key: true });
//! assert!(c.retryable);
//! ```

use crate::retry::outcome::{Outcome, ScriptedOutcome};
use crate::retry::time::Micros;

/// What kind of operation the request is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Operation {
    /// Repeating it leaves the far side as one call would (GET, PUT, DELETE).
    pub idempotent: bool,
    /// It carries an idempotency key the server deduplicates on.
    pub key: bool,
}

impl Operation {
    /// Whether repeating an attempt whose outcome is unknown is safe.
    pub const fn safe_to_repeat(self) -> bool {
        self.idempotent || self.key
    }
}

/// The four answers the classification table gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Verdict {
    /// The attempt succeeded; nothing to retry.
    Done,
    /// Retry after the computed backoff.
    Retry,
    /// Retry after the server's wait (or the backoff when it gave none).
    RetryAfterWait,
    /// Do not retry.
    Never,
    /// Retry only when the operation is idempotent or keyed.
    OnlyIfIdempotent,
}

impl Verdict {
    /// The machine-readable name.
    pub const fn name(self) -> &'static str {
        match self {
            Verdict::Done => "done",
            Verdict::Retry => "retry",
            Verdict::RetryAfterWait => "retry_after_wait",
            Verdict::Never => "never",
            Verdict::OnlyIfIdempotent => "only_if_idempotent",
        }
    }
}

/// Why the table gave its answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Reason {
    /// 2xx.
    Success,
    /// Connection refused or connect timeout.
    NeverArrived,
    /// Read timeout, 500, 502 or 504.
    OutcomeUnknown,
    /// 408, 429 or 503.
    ServerSaysWait,
    /// 409 for a key whose first request is still running.
    KeyInFlight,
    /// 400 or 422.
    RequestWrong,
    /// 401 or 403.
    NotAllowed,
    /// 404.
    NotFound,
    /// 409 conflict with the resource's state.
    Conflict,
    /// `Stripe-Should-Retry: true`.
    ServerSaysRetry,
    /// `Stripe-Should-Retry: false`.
    ServerSaysNo,
    /// gRPC pushback >= 0.
    Pushback,
    /// gRPC pushback < 0.
    PushbackNegative,
    /// The chosen client library lists this error as retryable.
    ClientListsRetryable,
    /// The chosen client library does not retry this error.
    ClientListsFatal,
}

impl Reason {
    /// The machine-readable name.
    pub const fn name(self) -> &'static str {
        match self {
            Reason::Success => "success",
            Reason::NeverArrived => "never_arrived",
            Reason::OutcomeUnknown => "outcome_unknown",
            Reason::ServerSaysWait => "server_says_wait",
            Reason::KeyInFlight => "key_in_flight",
            Reason::RequestWrong => "request_wrong",
            Reason::NotAllowed => "not_allowed",
            Reason::NotFound => "not_found",
            Reason::Conflict => "conflict",
            Reason::ServerSaysRetry => "server_says_retry",
            Reason::ServerSaysNo => "server_says_no",
            Reason::Pushback => "pushback",
            Reason::PushbackNegative => "pushback_negative",
            Reason::ClientListsRetryable => "client_lists_retryable",
            Reason::ClientListsFatal => "client_lists_fatal",
        }
    }

    /// One line for people.
    pub const fn explain(self) -> &'static str {
        match self {
            Reason::Success => "the attempt succeeded",
            Reason::NeverArrived => "the request never reached the server, so its state is unchanged and a retry is safe",
            Reason::OutcomeUnknown => "the work may have happened; repeating it is safe only for an idempotent or keyed operation",
            Reason::ServerSaysWait => "the server said \"not now\"; try again after its wait",
            Reason::KeyInFlight => "the first request with this idempotency key is still running; try again after a wait",
            Reason::RequestWrong => "the request itself is wrong; the same bytes fail the same way every time",
            Reason::NotAllowed => "the credentials need a decision, not a repeat",
            Reason::NotFound => "the resource is not there; asking again will not create it",
            Reason::Conflict => "the request conflicts with the resource's state and will fail again",
            Reason::ServerSaysRetry => "the server's Stripe-Should-Retry header says to retry",
            Reason::ServerSaysNo => "the server's Stripe-Should-Retry header says not to retry",
            Reason::Pushback => "the server's gRPC pushback says when to retry",
            Reason::PushbackNegative => "a negative gRPC pushback means do not retry",
            Reason::ClientListsRetryable => "the client library's rules list this error as retryable, whatever the operation",
            Reason::ClientListsFatal => "the client library's rules do not retry this error",
        }
    }
}

/// The classification of one outcome for one operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Classification {
    /// The table's answer.
    pub verdict: Verdict,
    /// Why.
    pub reason: Reason,
    /// The verdict applied to the operation: may a retry happen at all?
    pub retryable: bool,
    /// The wait the server asked for (Retry-After or pushback), if it applies.
    pub server_wait: Option<Micros>,
    /// True when the server wait is a gRPC pushback (which resets the backoff).
    pub pushback: bool,
}

/// Whose rules decide what is retryable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Classifier {
    /// The table above (the lab's default, and the cheat sheet's).
    #[default]
    Table,
    /// botocore standard mode: 500, 502, 503, 504, 429 (throttling), 408 (RequestTimeout) and
    /// every connection error or timeout, whatever the operation.
    Aws,
    /// gRPC with `retryableStatusCodes: [UNAVAILABLE]`: 503 and connection failures.
    Grpc,
    /// stripe-python: `Stripe-Should-Retry` first, else 409, any 5xx and connection errors.
    Stripe,
}

impl Classifier {
    /// Every classifier.
    pub const ALL: [Classifier; 4] = [
        Classifier::Table,
        Classifier::Aws,
        Classifier::Grpc,
        Classifier::Stripe,
    ];

    /// The link name.
    pub const fn name(self) -> &'static str {
        match self {
            Classifier::Table => "table",
            Classifier::Aws => "aws",
            Classifier::Grpc => "grpc",
            Classifier::Stripe => "stripe",
        }
    }
}

/// Classifies one attempt's outcome for `op` with the lab's table.
pub fn classify(o: &ScriptedOutcome, op: Operation) -> Classification {
    classify_with(Classifier::Table, o, op)
}

/// Classifies one attempt's outcome for `op` with the given client's rules.
pub fn classify_with(classifier: Classifier, o: &ScriptedOutcome, op: Operation) -> Classification {
    match classifier {
        Classifier::Table => classify_table(o, op),
        Classifier::Aws | Classifier::Grpc | Classifier::Stripe => classify_client(classifier, o),
    }
}

/// [`classify_with`], with a client's own list of retryable statuses deciding every status
/// when the list is not empty (timeouts and refused connections follow the classifier).
pub fn classify_listed(
    classifier: Classifier,
    statuses: &crate::retry::statuses::StatusSet,
    o: &ScriptedOutcome,
    op: Operation,
) -> Classification {
    let Outcome::Status(code) = o.outcome else {
        return classify_with(classifier, o, op);
    };
    if statuses.is_empty() {
        return classify_with(classifier, o, op);
    }
    listed_as(classifier, statuses.contains(code), o.retry_after, o)
}

/// A client library's list: retryable or not, regardless of the operation.
fn classify_client(classifier: Classifier, o: &ScriptedOutcome) -> Classification {
    let listed = match (classifier, o.outcome) {
        (_, Outcome::Ok) => return classify_table(o, Operation::default()),
        (_, Outcome::Refused | Outcome::ConnectTimeout | Outcome::ReadTimeout) => {
            classifier != Classifier::Grpc || !matches!(o.outcome, Outcome::ReadTimeout)
        }
        (Classifier::Aws, Outcome::Status(c)) => matches!(c, 408 | 429 | 500 | 502 | 503 | 504),
        (Classifier::Aws, Outcome::KeyInFlight) => false,
        (Classifier::Grpc, Outcome::Status(c)) => c == 503,
        (Classifier::Grpc, Outcome::KeyInFlight) => false,
        (_, Outcome::Status(c)) => c == 409 || c >= 500,
        (_, Outcome::KeyInFlight) => true,
    };
    let server_wait = if listed && classifier != Classifier::Grpc {
        o.retry_after
    } else {
        None
    };
    listed_as(classifier, listed, server_wait, o)
}

/// A client's verdict on an outcome its list names (or not), with the server's hints applied
/// where the client reads them (Stripe-Should-Retry, gRPC pushback).
fn listed_as(
    classifier: Classifier,
    listed: bool,
    server_wait: Option<Micros>,
    o: &ScriptedOutcome,
) -> Classification {
    let mut c = Classification {
        verdict: if listed {
            Verdict::Retry
        } else {
            Verdict::Never
        },
        reason: if listed {
            Reason::ClientListsRetryable
        } else {
            Reason::ClientListsFatal
        },
        retryable: listed,
        server_wait: server_wait.filter(|_| listed),
        pushback: false,
    };
    if classifier == Classifier::Stripe {
        apply_should_retry(&mut c, o);
    }
    if classifier == Classifier::Grpc {
        apply_pushback(&mut c, o);
    }
    c
}

fn classify_table(o: &ScriptedOutcome, op: Operation) -> Classification {
    let (verdict, reason) = match o.outcome {
        Outcome::Ok => (Verdict::Done, Reason::Success),
        Outcome::Refused | Outcome::ConnectTimeout => (Verdict::Retry, Reason::NeverArrived),
        Outcome::ReadTimeout => (Verdict::OnlyIfIdempotent, Reason::OutcomeUnknown),
        Outcome::KeyInFlight => (Verdict::RetryAfterWait, Reason::KeyInFlight),
        Outcome::Status(c) => match c {
            408 | 429 | 503 => (Verdict::RetryAfterWait, Reason::ServerSaysWait),
            500 | 502 | 504 => (Verdict::OnlyIfIdempotent, Reason::OutcomeUnknown),
            400 | 422 => (Verdict::Never, Reason::RequestWrong),
            401 | 403 => (Verdict::Never, Reason::NotAllowed),
            404 => (Verdict::Never, Reason::NotFound),
            409 => (Verdict::Never, Reason::Conflict),
            _ => (Verdict::Never, Reason::RequestWrong),
        },
    };
    let mut c = Classification {
        verdict,
        reason,
        retryable: match verdict {
            Verdict::Done | Verdict::Never => false,
            Verdict::Retry | Verdict::RetryAfterWait => true,
            Verdict::OnlyIfIdempotent => op.safe_to_repeat(),
        },
        server_wait: None,
        pushback: false,
    };
    if o.outcome.is_ok() {
        return c;
    }
    if verdict == Verdict::RetryAfterWait {
        c.server_wait = o.retry_after;
    }
    // Server hints override the table.
    apply_should_retry(&mut c, o);
    apply_pushback(&mut c, o);
    c
}

fn apply_should_retry(c: &mut Classification, o: &ScriptedOutcome) {
    match o.should_retry {
        Some(true) => {
            c.verdict = Verdict::Retry;
            c.reason = Reason::ServerSaysRetry;
            c.retryable = true;
        }
        Some(false) => {
            c.verdict = Verdict::Never;
            c.reason = Reason::ServerSaysNo;
            c.retryable = false;
            c.server_wait = None;
        }
        None => {}
    }
}

fn apply_pushback(c: &mut Classification, o: &ScriptedOutcome) {
    if let Some(p) = o.pushback_ms {
        if p < 0 {
            c.verdict = Verdict::Never;
            c.reason = Reason::PushbackNegative;
            c.retryable = false;
            c.server_wait = None;
        } else if c.retryable {
            c.verdict = Verdict::RetryAfterWait;
            c.reason = Reason::Pushback;
            c.server_wait = Some(Micros::from_millis(p as u64));
            c.pushback = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POST: Operation = Operation {
        idempotent: false,
        key: false,
    };
    const GET: Operation = Operation {
        idempotent: true,
        key: false,
    };
    const KEYED: Operation = Operation {
        idempotent: false,
        key: true,
    };

    fn c(token: &str, op: Operation) -> Classification {
        classify(&token.parse().unwrap(), op)
    }

    #[test]
    fn the_table() {
        for t in ["400", "401", "403", "404", "409", "422"] {
            for op in [POST, GET, KEYED] {
                let r = c(t, op);
                assert_eq!(r.verdict, Verdict::Never, "{t}");
                assert!(!r.retryable, "{t}");
            }
        }
        for t in ["408", "429", "503", "409_in_flight"] {
            let r = c(t, POST);
            assert_eq!(r.verdict, Verdict::RetryAfterWait, "{t}");
            assert!(r.retryable);
        }
        for t in ["refused", "connect_timeout"] {
            let r = c(t, POST);
            assert_eq!(
                (r.verdict, r.reason),
                (Verdict::Retry, Reason::NeverArrived)
            );
            assert!(r.retryable);
        }
        for t in ["read_timeout", "500", "502", "504"] {
            assert_eq!(c(t, POST).verdict, Verdict::OnlyIfIdempotent);
            assert!(!c(t, POST).retryable, "{t} on a keyless POST");
            assert!(c(t, GET).retryable, "{t} on a GET");
            assert!(c(t, KEYED).retryable, "{t} with a key");
        }
        assert_eq!(c("ok", POST).verdict, Verdict::Done);
    }

    #[test]
    fn retry_after_is_carried() {
        let r = c("503:ra=2s", POST);
        assert_eq!(r.server_wait, Some(Micros::from_secs(2)));
        // A Retry-After on a status that is never retried changes nothing.
        assert_eq!(c("400:ra=2s", POST).server_wait, None);
    }

    #[test]
    fn stripe_should_retry_wins() {
        assert!(c("500:ssr=yes", POST).retryable);
        assert_eq!(c("500:ssr=yes", POST).reason, Reason::ServerSaysRetry);
        assert!(!c("503:ssr=no", GET).retryable);
        assert_eq!(c("409:ssr=yes", POST).verdict, Verdict::Retry);
    }

    #[test]
    fn pushback() {
        let r = c("503:pushback=250", POST);
        assert_eq!(r.server_wait, Some(Micros::from_millis(250)));
        assert!(r.pushback);
        let r = c("503:pushback=-1", POST);
        assert!(!r.retryable);
        assert_eq!(r.reason, Reason::PushbackNegative);
        // Pushback does not make a non-retryable status retryable.
        assert!(!c("400:pushback=10", POST).retryable);
    }

    #[test]
    fn client_classifiers() {
        let aws = |t: &str| classify_with(Classifier::Aws, &t.parse().unwrap(), POST).retryable;
        assert!(aws("500") && aws("429") && aws("read_timeout") && aws("503"));
        assert!(!aws("400") && !aws("409") && !aws("404"));
        let grpc = |t: &str| classify_with(Classifier::Grpc, &t.parse().unwrap(), POST);
        assert!(grpc("503").retryable && grpc("refused").retryable);
        assert!(!grpc("500").retryable && !grpc("read_timeout").retryable);
        assert_eq!(
            grpc("503:pushback=100").server_wait,
            Some(Micros::from_millis(100))
        );
        assert!(!grpc("503:pushback=-1").retryable);
        let stripe = |t: &str| classify_with(Classifier::Stripe, &t.parse().unwrap(), POST);
        assert!(
            stripe("409").retryable && stripe("500").retryable && stripe("read_timeout").retryable
        );
        assert!(!stripe("429").retryable && !stripe("400").retryable);
        assert!(!stripe("500:ssr=no").retryable);
        assert!(stripe("400:ssr=yes").retryable);
        assert_eq!(stripe("409:ra=3s").server_wait, Some(Micros::from_secs(3)));
    }

    #[test]
    fn every_reason_explains_itself() {
        for t in [
            "ok",
            "refused",
            "read_timeout",
            "503",
            "409_in_flight",
            "400",
            "401",
            "404",
            "409",
            "500:ssr=yes",
            "500:ssr=no",
            "503:pushback=5",
            "503:pushback=-5",
        ] {
            let r = c(t, GET).reason;
            assert!(!r.explain().is_empty());
            assert!(r
                .name()
                .chars()
                .all(|ch| ch.is_ascii_lowercase() || ch == '_'));
        }
    }
}
