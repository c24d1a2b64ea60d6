//! Each scenario's own settings.
//!
//! Why a type per scenario? With one flat struct holding every scenario's fields, a link could set
//! the breaker in the idempotency lab and nothing would happen. Here a scenario's settings hold
//! only the keys it reads, so such a key has nowhere to go: `set` returns `None` and the link
//! refuses it, naming where it applies. The key table (`link::keys`) declares the same ownership
//! for the docs and the page; a test checks the two agree.
//!
//! ```
//! use retry_model::sim::Scenario;
//! use retry_model::Params;
//! let p: Params = "scenario=lost&lose=0.2".parse().unwrap();
//! let Some(Scenario::Lost(lost)) = &p.sim.scenario else { panic!() };
//! assert_eq!(lost.lose_ppm, 200_000);
//! ```

use super::kinds::{
    BreakerConfig, Discipline, Engine, Hedge, OutageKind, ScenarioKind, ServerKind, ServiceDist,
};
use crate::retry::time::Micros;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// A scenario with its settings.
#[derive(Clone, Debug, PartialEq)]
pub enum Scenario {
    /// Open-loop arrivals against a tick server with an outage window.
    Outage(Outage),
    /// `clients` requests all at t = 0 against a tick server.
    Burst(Burst),
    /// The 2015 study.
    Occ(OccSettings),
    /// LayersSettings that each retry over a failing bottom dependency.
    Layers(LayersSettings),
    /// A charge endpoint that loses answers.
    Lost(LostSettings),
}

impl Scenario {
    /// The scenario of this kind with its default settings.
    pub fn new(kind: ScenarioKind) -> Scenario {
        match kind {
            ScenarioKind::Outage => Scenario::Outage(Outage::default()),
            ScenarioKind::Burst => Scenario::Burst(Burst::default()),
            ScenarioKind::Occ => Scenario::Occ(OccSettings::default()),
            ScenarioKind::Layers => Scenario::Layers(LayersSettings::default()),
            ScenarioKind::Lost => Scenario::Lost(LostSettings::default()),
        }
    }

    /// Its kind.
    pub fn kind(&self) -> ScenarioKind {
        match self {
            Scenario::Outage(_) => ScenarioKind::Outage,
            Scenario::Burst(_) => ScenarioKind::Burst,
            Scenario::Occ(_) => ScenarioKind::Occ,
            Scenario::Layers(_) => ScenarioKind::Layers,
            Scenario::Lost(_) => ScenarioKind::Lost,
        }
    }

    /// The time-series settings, for the scenarios that keep one.
    pub fn series(&self) -> Option<&Series> {
        match self {
            Scenario::Outage(s) => Some(&s.server.series),
            Scenario::Burst(s) => Some(&s.server.series),
            Scenario::Occ(_) => None,
            Scenario::Layers(s) => Some(&s.series),
            Scenario::Lost(s) => Some(&s.series),
        }
    }
}

/// The time series: bin width and the time to report attempts per second at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Series {
    /// Bin width of the series.
    pub bin: Micros,
    /// A time at which to report attempts per second.
    pub at: Option<Micros>,
}

impl Default for Series {
    fn default() -> Self {
        Series {
            bin: Micros::from_secs(1),
            at: None,
        }
    }
}

/// Who shares one adaptive rate limiter (`limiter_scope`): the whole process, as botocore's
/// client object does when a process shares one client, or each client its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LimiterScope {
    /// One limiter for every client.
    #[default]
    Process,
    /// One limiter per client.
    Client,
}

impl LimiterScope {
    /// Every scope, in the `limiter_scope` key's order.
    pub const ALL: [LimiterScope; 2] = [LimiterScope::Process, LimiterScope::Client];

    /// The link name.
    pub const fn name(self) -> &'static str {
        match self {
            LimiterScope::Process => "process",
            LimiterScope::Client => "client",
        }
    }
}

/// The tick server of `outage` and `burst`, with its network, tenants and breaker.
#[derive(Clone, Debug, PartialEq)]
pub struct Server {
    /// Capacity per second, in thousandths of an attempt.
    pub capacity_milli: u64,
    /// The accounting tick.
    pub tick: Micros,
    /// Capacity one rejected attempt uses, in thousandths of a slot, in [0, 1000].
    pub reject_cost_milli: u64,
    /// One-way network delay.
    pub net: Micros,
    /// Tenants requests are spread over (for `budget_scope=tenant`).
    pub tenants: u32,
    /// The circuit breaker, if any.
    pub breaker: Option<BreakerConfig>,
    /// Whether the AWS SDKs' adaptive client-side rate limiter runs.
    pub limiter: bool,
    /// Who shares one limiter.
    pub limiter_scope: LimiterScope,
    /// Hedging: further attempts while the first is out.
    pub hedge: Hedge,
    /// The time series.
    pub series: Series,
    /// How it serves: the tick server (the fields above), a queue or a flaky dependency.
    pub kind: ServerKind,
    /// The queue's and the flaky dependency's service.
    pub queue: QueueServer,
    /// A capacity drop: service times multiplied by `slow` (thousandths) in a window.
    pub slow: Window,
    /// `slow` x 1000 (2 = twice as slow = 2000).
    pub slow_milli: u64,
    /// Which engine runs the storm.
    pub engine: Engine,
}

impl Default for Server {
    fn default() -> Self {
        Server {
            capacity_milli: 50_000,
            tick: Micros::from_millis(10),
            reject_cost_milli: 100,
            net: Micros::from_millis(1),
            tenants: 1,
            breaker: None,
            limiter: false,
            limiter_scope: LimiterScope::Process,
            hedge: Hedge::default(),
            series: Series::default(),
            kind: ServerKind::Tick,
            queue: QueueServer::default(),
            slow: Window::default(),
            slow_milli: 1000,
            engine: Engine::Auto,
        }
    }
}

/// A trigger's window: from `start` for `length` (0: none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Window {
    /// When it starts.
    pub start: Micros,
    /// How long it lasts.
    pub length: Micros,
}

impl Window {
    /// Whether `t` falls inside it.
    pub fn holds(&self, t: Micros) -> bool {
        t >= self.start && t < self.start.saturating_add(self.length)
    }
}

/// `server=queue` and `server=flaky`: workers, the queue, the service time and the failures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueServer {
    /// Workers serving at once.
    pub workers: u32,
    /// Requests waiting at most (beyond it a 503 at once).
    pub queue_limit: u32,
    /// FIFO or LIFO.
    pub discipline: Discipline,
    /// Mean service time.
    pub service: Micros,
    /// Its distribution.
    pub dist: ServiceDist,
    /// Coefficient of variation of a lognormal service, thousandths.
    pub cv_milli: u64,
    /// `service_dist=mix`: the slow service time...
    pub tail: Micros,
    /// ...and its probability, in millionths.
    pub tail_ppm: u32,
    /// Extra service time per request at the server when one starts.
    pub per_inflight: Micros,
    /// Drop a waiting request whose caller has given up before starting it.
    pub deadline: bool,
    /// `server=flaky`: probability that an attempt fails, millionths.
    pub fail_ppm: u32,
}

impl Default for QueueServer {
    fn default() -> Self {
        QueueServer {
            workers: 4,
            queue_limit: 1000,
            discipline: Discipline::Fifo,
            service: Micros::from_millis(50),
            dist: ServiceDist::Const,
            cv_milli: 1000,
            tail: Micros::from_secs(1),
            tail_ppm: 10_000,
            per_inflight: Micros::ZERO,
            deadline: false,
            fail_ppm: 100_000,
        }
    }
}

impl QueueServer {
    /// The mean service time: `service`, or with `service_dist=mix` the two values weighed by
    /// their probabilities (rounded down to the microsecond).
    pub fn mean_service(&self) -> Micros {
        if self.dist != ServiceDist::Mix {
            return self.service;
        }
        let p = u128::from(self.tail_ppm);
        let sum = u128::from(self.service.0) * (1_000_000 - p) + u128::from(self.tail.0) * p;
        Micros((sum / 1_000_000) as u64)
    }
}

/// Arrivals at a rate for a duration: `outage` and `lost`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrivals {
    /// Arrivals per second, in thousandths.
    pub rate_milli: u64,
    /// How long arrivals keep coming.
    pub duration: Micros,
}

impl Default for Arrivals {
    fn default() -> Self {
        Arrivals {
            rate_milli: 40_000,
            duration: Micros::from_secs(60),
        }
    }
}

impl Arrivals {
    /// Originals a run will make (constant arrivals; Poisson makes about as many).
    pub fn planned(&self) -> u64 {
        (u128::from(self.rate_milli) * u128::from(self.duration.0) / 1_000_000_000) as u64
    }
}

/// `outage`: arrivals against the tick server, which fails every attempt in a window.
#[derive(Clone, Debug, PartialEq)]
pub struct Outage {
    /// The server.
    pub server: Server,
    /// The arrivals.
    pub arrivals: Arrivals,
    /// Poisson (true) or evenly spaced (false) arrivals.
    pub poisson: bool,
    /// When the outage starts.
    pub outage_start: Micros,
    /// How long it lasts (0: no outage).
    pub outage: Micros,
    /// How the outage fails attempts.
    pub outage_kind: OutageKind,
    /// A load spike: extra requests at `spike_rate_milli` per 1000 s in its window.
    pub spike: Window,
    /// The spike's extra requests per second, thousandths.
    pub spike_rate_milli: u64,
    /// Closed-loop users (0: open-loop arrivals).
    pub users: u32,
    /// A user's pause between a request's end and its next.
    pub think: Micros,
    /// How recovery after the trigger is judged.
    pub recovery: super::recovery::RecoveryRule,
}

impl Outage {
    /// Requests the load spike adds: `spike_rate x spike_for`, the spike cut at the run's end
    /// (arrivals stop there, the spike's with them).
    pub fn spike_requests(&self) -> u64 {
        let left = self.arrivals.duration.saturating_sub(self.spike.start);
        let length = self.spike.length.min(left);
        (u128::from(self.spike_rate_milli) * u128::from(length.0) / 1_000_000_000) as u64
    }
}

impl Default for Outage {
    fn default() -> Self {
        Outage {
            server: Server::default(),
            arrivals: Arrivals::default(),
            poisson: false,
            outage_start: Micros::from_secs(2),
            outage: Micros::from_secs(5),
            outage_kind: OutageKind::Status503,
            spike: Window::default(),
            spike_rate_milli: 0,
            users: 0,
            think: Micros::from_secs(1),
            recovery: super::recovery::RecoveryRule::default(),
        }
    }
}

/// `burst`: `clients` requests at t = 0 against the tick server.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Burst {
    /// The server.
    pub server: Server,
}

/// `occ`: the 2015 study's network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OccSettings {
    /// Mean one-way network delay.
    pub net: Micros,
    /// Its standard deviation (`|Normal(net, net_sd)|`).
    pub net_sd: Micros,
}

impl Default for OccSettings {
    fn default() -> Self {
        OccSettings {
            net: Micros::from_millis(1),
            net_sd: Micros::ZERO,
        }
    }
}

/// `layers`: the stack and its bottom dependency.
#[derive(Clone, Debug, PartialEq)]
pub struct LayersSettings {
    /// Attempts per layer, top first.
    pub layers: Vec<u32>,
    /// Each layer's name, top first (empty: the layers are numbered).
    pub names: Vec<String>,
    /// Each layer's own policy, top first (`None`, or past the end: the link's); its attempts
    /// are the layer's entry in `layers` whatever the policy says.
    pub policies: Vec<Option<crate::retry::policy::RetryPolicy>>,
    /// Probability that a bottom call fails, in millionths.
    pub p_ppm: u32,
    /// User requests.
    pub requests: u32,
    /// Their rate (their spacing), in thousandths per second.
    pub rate_milli: u64,
    /// One-way network delay to the bottom dependency.
    pub net: Micros,
    /// The time series.
    pub series: Series,
}

impl Default for LayersSettings {
    fn default() -> Self {
        LayersSettings {
            layers: vec![3, 3, 3],
            names: Vec::new(),
            policies: Vec::new(),
            p_ppm: 1_000_000,
            requests: 1000,
            rate_milli: 40_000,
            net: Micros::from_millis(1),
            series: Series::default(),
        }
    }
}

impl LayersSettings {
    /// Bottom calls one request makes when everything fails: the product of the attempts.
    pub fn product(&self) -> u64 {
        self.layers.iter().map(|k| u64::from(*k)).product()
    }
}

/// `lost`: checkouts against a charge endpoint that loses answers.
#[derive(Clone, Debug, PartialEq)]
pub struct LostSettings {
    /// The checkouts' arrivals.
    pub arrivals: Arrivals,
    /// One-way network delay.
    pub net: Micros,
    /// Probability that a committed charge's answer is lost, in millionths.
    pub lose_ppm: u32,
    /// How long the endpoint works before committing.
    pub service: Micros,
    /// The time series.
    pub series: Series,
}

impl Default for LostSettings {
    fn default() -> Self {
        LostSettings {
            arrivals: Arrivals::default(),
            net: Micros::from_millis(1),
            lose_ppm: 100_000,
            service: Micros::from_millis(50),
            series: Series::default(),
        }
    }
}
