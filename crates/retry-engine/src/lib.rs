//! # retry-engine
//!
//! The two bottom layers of Retry Lab's model: the retry policy (`retry`: the integer clock,
//! the generator, backoff, classification, budgets and the per-request state machine) and the
//! simulator (`sim`). `retry-model` builds the link and the step-by-step request views on top
//! and re-exports both, so front ends use `retry_model` alone.
//!
//! Why a crate of its own? This is the code that runs hot: a storm is millions of attempts and
//! the 2015 study thousands of runs. The page's build optimises this crate for speed and every
//! other crate for size (`[profile.page]` in the workspace's `Cargo.toml`); a profile can only
//! set that per crate.
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

mod arch;
pub mod retry;
pub mod sim;

pub use retry::backoff::{BackoffConfig, BackoffKind};
pub use retry::jitter::Jitter;
pub use retry::limiter::AdaptiveLimiter;
pub use retry::rng::{Rng, Words};
pub use retry::time::Micros;
