//! The simulator's input.

use super::params::SimParams;
use crate::retry::policy::ValidPolicy;
use crate::retry::time::Micros;

/// What a run reads from a link: the checked policy, the scenario with its settings, and the
/// few other settings the models use. The link layer builds it from `Params`
/// (`RunInput::try_from(&params)`, which checks the link), so the simulator does not depend on
/// the link's text.
#[derive(Clone, Debug, PartialEq)]
pub struct RunInput {
    /// The retry policy every simulated client runs, checked.
    pub policy: ValidPolicy,
    /// The scenario and the repetitions.
    pub sim: SimParams,
    /// The master seed.
    pub seed: u64,
    /// Clients (`burst`, `occ`; callers of `outage` for a client-scoped budget).
    pub clients: u32,
    /// The budget's starting level in thousandths (`None`: full).
    pub budget_start: Option<u64>,
    /// A Retry-After for every 503 without its own.
    pub retry_after: Option<Micros>,
}
