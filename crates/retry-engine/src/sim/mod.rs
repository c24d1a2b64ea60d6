//! Simulation: many clients running the retry policy against a system, measured.
//!
//! Why simulate? A policy that is right for one request can be wrong for a population: immediate
//! retries after a 5 s outage can keep a server collapsed long after it recovered, while backoff
//! with jitter and a budget let it recover. The engine is a discrete-event loop on an integer
//! microsecond clock with an event queue ordered by `(time, sequence)`; every random stream is
//! derived from the link's seed, so the same link gives the same numbers on every platform. Runs
//! go in slices ([`Run::step`]) so a page can show progress and cancel, or to the end
//! ([`simulate`]). Memory is bounded by the requests in flight plus fixed time bins.
//!
//! ```
//! use retry_model::{sim::simulate, Params};
//! let p: Params = "preset=layers-333".parse().unwrap();
//! let r = simulate(&p).unwrap();
//! assert_eq!(r.summary.amplification, 27.0);
//! ```

pub mod band;
pub mod blocks;
mod breaker;
pub mod chain;
mod engine;
mod hist;
mod input;
pub mod interval;
pub mod kinds;
mod layers;
mod lost;
mod metrics;
mod occ;
mod params;
mod queue;
mod recovery;
mod report_text;
mod run;
mod settings;
mod slab;
mod split;
mod storm;
mod sweep_text;
mod tourney;
mod work;

pub use breaker::{Breaker, BreakerState};
pub use engine::{Model, Repetition, Sim};
pub use hist::Histogram;
pub use input::RunInput;
pub use layers::{LayerRequest, Layers};
pub use lost::{Lost, LostEv, LostStep, LostWhat};
pub use metrics::{
    Bin, BinCounts, ClosedForm, HedgeSummary, LimiterSummary, PopulationSummary, Recorder, Report,
    ServerSummary, Summary, MAX_BINS,
};
pub use occ::{Occ, OccEv, OccRun, OccShared};
pub use params::{
    caps, BreakerConfig, Discipline, Engine, Hedge, OutageKind, Runs, ScenarioKind, ServerKind,
    ServiceDist, SimParams,
};
pub use queue::EventQueue;
pub use recovery::{Recovery, RecoveryRule};
pub use report_text::{compare_markdown, row_meaning, series_csv, summary_markdown, Rates};
pub use run::{simulate, Progress, Run, RunParts, SimReport};
pub use settings::{
    Arrivals, Burst, LayersSettings, LimiterScope, LostSettings, OccSettings, Outage, QueueServer,
    Scenario, Series, Server, Window,
};
pub use slab::Slab;
pub use storm::{Ev, ServerStats, Storm, StormJob};
pub use sweep_text::{sweep_csv, sweep_grids, sweep_markdown, Metric};
pub use tourney::Tourney;
