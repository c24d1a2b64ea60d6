//! A link becomes a simulation's input: `RunInput::try_from(&params)` checks the link (values,
//! keys with no effect, cross-key rules) and hands the simulator what it reads. `sim::Run::new`
//! and `sim::simulate` take a `&Params` through it.

use super::Params;
use crate::retry::error::ConfigError;
use crate::sim::{simulate, RunInput};
use alloc::format;

impl TryFrom<&Params> for RunInput {
    type Error = ConfigError;

    fn try_from(p: &Params) -> Result<RunInput, ConfigError> {
        Ok(RunInput {
            policy: p.validate()?,
            sim: p.sim.clone(),
            seed: p.seed,
            clients: p.clients,
            budget_start: p.budget_start,
            retry_after: p.retry_after,
        })
    }
}

impl TryFrom<&mut Params> for RunInput {
    type Error = ConfigError;

    fn try_from(p: &mut Params) -> Result<RunInput, ConfigError> {
        RunInput::try_from(&*p)
    }
}

/// The whole 2015 sweep: clients 10 to 190 step 10, the five backoff kinds, 100 runs each
/// (`preset=occ-2015`). Returns the total write calls; the benchmarks time it natively and in
/// wasm.
pub fn occ_study_sweep() -> u64 {
    let mut calls = 0;
    for kind in ["none", "exponential", "full", "equal", "decorrelated"] {
        for clients in (10..=190).step_by(10) {
            let link = format!("preset=occ-2015&backoff={kind}&clients={clients}");
            if let Ok(r) = link.parse::<Params>().and_then(|p| simulate(&p)) {
                calls += r.summary.attempts;
            }
        }
    }
    calls
}
