//! The retry policy, the bottom layer: the integer clock and exact decimals, the generator,
//! backoff, classification of outcomes, budgets and the per-request state machine. Nothing here
//! knows about links, simulations or front ends.

pub(crate) mod backoff;
pub mod budget;
pub(crate) mod classify;
pub(crate) mod error;
pub(crate) mod fnv;
pub(crate) mod outcome;
pub(crate) mod policy;
pub(crate) mod rng;
pub(crate) mod text;
pub(crate) mod time;
