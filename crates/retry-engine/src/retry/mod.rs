//! The retry policy, the bottom layer: the integer clock and exact decimals, the generator,
//! backoff, classification of outcomes, budgets and the per-request state machine. Nothing here
//! knows about links, simulations or front ends.

pub mod backoff;
pub mod budget;
pub mod classify;
pub mod error;
pub mod fnv;
pub mod jitter;
pub mod limiter;
pub mod outcome;
pub mod policy;
pub mod rng;
pub mod statuses;
pub mod text;
pub mod time;
