//! One request seen step by step, the top layer: the trace of a scripted request, its
//! sentences, the schedule of many clients' waits and the layer arithmetic. Each reads a link
//! ([`crate::Params`]) and the policy below it.

pub(crate) mod amplify;
pub(crate) mod answer;
pub(crate) mod budget_walk;
pub(crate) mod explain;
pub(crate) mod schedule;
pub(crate) mod trace;
pub(crate) mod tree;
