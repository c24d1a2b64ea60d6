//! # retry-model
//!
//! Retry policies and their exact arithmetic: which failures to retry, backoff and the kinds of
//! jitter, deadlines and the "will the next attempt fit" check, Retry-After and gRPC pushback,
//! retry budgets, and how retries at several layers multiply.
//!
//! Why a separate crate? The browser lab, the CLI and the tests must give the same numbers bit
//! for bit, so everything that computes lives here, without `std`, without floats in time, and
//! with one named random generator derived from one seed. The front ends only draw and print.
//!
//! ```
//! use retry_model::{explain, trace, Params};
//! // The guide's example: 700 ms left, 100 ms reserve, 400 ms per attempt, a 250 ms wait.
//! let p: Params = "preset=guide-700ms".parse().unwrap();
//! let t = trace(&p).unwrap();
//! assert_eq!(t.stop_reason.name(), "wont_fit");
//! let e = explain(&p, &t);
//! assert!(e.outcome.contains("wont_fit"));
//! ```
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

// The layers, bottom up: the policy (`retry`), the simulator (`sim`), the link over both
// (`link`), and one request step by step (`request`). No file imports one above its layer's
// users in a cycle (`scripts/check-layers.py` checks it).
#[cfg(feature = "serde")]
pub mod json;
mod link;
mod request;
pub mod tune;
// The policy and the simulator live in `retry-engine`, which the page's build optimises for
// speed; they are this crate's `retry` and `sim` as before.
use retry_engine::retry;
pub use retry_engine::sim;

pub use retry::budget;

pub use link::analyze::{analysis_rows, analyze, analyze_reporting, analyze_within, Analysis};
pub use link::client_table::{client_row, client_table_markdown, describe_policy, CLIENT_COLUMNS};
pub use link::clients::{client, Client, Ecosystem, CLIENTS};
pub use link::guess::{judge, link_value as guess_link_value, verdict};
pub use link::keys as link_keys;
pub use link::layer_keys;
pub use link::lesson::{Answer, Exercise, Lesson, LESSONS, MAX_QUESTION};
pub use link::preset::Preset;
pub use link::rows::SweepRows;
pub use link::run::{
    engine_check, engine_check_note, ledger, occ_2015_reference, occ_study_sweep, LedgerSide,
    OCC_2015_REFERENCE,
};
pub use link::sheet::{Sheet, MAX_EXERCISES};
pub use link::steps::{course_note, steps_markdown, LadderStep, Piece, COURSE_NOTE, PIECES};
pub use link::sweep as link_sweep;
pub use link::{all_keys, encode, Params, LINK_VERSION, MAX_CLIENTS, MAX_LINK_LEN, MAX_SCRIPT};
pub use request::amplify::{amplify, Amplification, LayerRow, MAX_LAYERS};
pub use request::answer::{answer, Figures, Said, SweepFigures};
pub use request::budget_walk::{budget_walk, BudgetEvent, BudgetStep};
pub use request::explain::{explain, explain_in, Digits, Explanation, StepText};
pub use request::schedule::{schedule, RetryColumn, Schedule, MAX_SCHEDULE_DRAWS};
pub use request::trace::{streams, trace, Step, Trace};
pub use request::tree::{call_tree, Call, CallTree, MAX_TREE_CALLS};
pub use retry::backoff::{
    Backoff, BackoffConfig, BackoffKind, BackoffState, Delays, Draw, MAX_MULTIPLIER,
};
pub use retry::classify::{
    classify, classify_listed, classify_with, Classification, Classifier, Operation, Reason,
    Verdict,
};
pub use retry::error::ConfigError;
pub use retry::jitter::Jitter;
pub use retry::limiter::AdaptiveLimiter;
pub use retry::outcome::{Outcome, ScriptedOutcome};
pub use retry::policy::{
    AfterAttempt, AttemptPlan, FitCheck, FitRule, RequestRetry, RetryAfterMode, RetryPolicy,
    StopReason, TimeoutWhy, ValidPolicy, WaitSource, MAX_ATTEMPTS,
};
pub use retry::rng::{inverse_normal_cdf, splitmix64, NormalTable, Rng, Words};
pub use retry::statuses::StatusSet;
pub use retry::text::decimal_f64;
pub use retry::text::{percent_people, shorten, sig3};
pub use retry::time::millis_people;
pub use retry::time::{Micros, ParseDurationError};

/// The [`link_keys::Key`] row of a link key named by a literal, checked when the program
/// compiles: `link_key!("attempts")`. A misspelt name does not build, so code that reads the
/// link by key cannot silently read nothing.
#[macro_export]
macro_rules! link_key {
    ($name:literal) => {
        const { &$crate::link_keys::TABLE[$crate::link_keys::position($name)] }
    };
}
