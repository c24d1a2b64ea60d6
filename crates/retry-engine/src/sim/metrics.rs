//! What a simulation measures: fixed time bins and a summary.
//!
//! Memory is the bins (their count is fixed when the run starts) plus one fixed-size latency
//! histogram, whatever the number of requests.

use super::hist::Histogram;
use super::interval;
use crate::retry::policy::StopReason;
use crate::retry::time::Micros;
use alloc::vec;
use alloc::vec::Vec;

/// The most bins a run keeps; longer runs get wider bins.
pub const MAX_BINS: usize = 20_000;

/// One time bin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Bin {
    /// New requests (first attempts of originals).
    pub originals: u32,
    /// Attempts sent, first ones included.
    pub attempts: u32,
    /// Attempts after the first.
    pub retries: u32,
    /// Requests that ended in success.
    pub successes: u32,
    /// Requests that ended in failure, by [`StopReason::index`] (the success slot stays 0).
    pub failures: [u32; 7],
    /// Attempts the server did the work for.
    pub served: u32,
    /// Server capacity in the bin, in thousandths of an attempt (0 when unbounded).
    pub capacity_milli: u64,
    /// The budget's level at the end of the bin, in thousandths (of budget 0 when scoped).
    pub budget_milli: u64,
    /// Requests in flight at the end of the bin.
    pub in_flight: u32,
    /// The circuit breaker's state at the last attempt sent in the bin: 0 no breaker (or no
    /// attempt in the bin), 1 closed, 2 half-open, 3 open.
    pub breaker: u8,
    /// The most requests waiting in the server's queue during the bin (`server=queue`).
    pub queue: u32,
    /// Work the server finished in the bin whose answer came too late for its caller.
    pub wasted: u32,
    /// The send rate the adaptive limiters allowed at the end of the bin, per second, in
    /// thousandths (0 without a limiter, or before a throttling answer turned one on).
    pub limiter_milli: u64,
    /// Attempts at the server at the bin's end, waiting and in service (`server=queue` or
    /// `flaky`; 0 otherwise).
    pub at_server: u32,
    /// Requests in flight at the bin's end that have sent more than one attempt: the run's
    /// counterpart of the analytic twin's orbit (requests waiting to retry).
    pub retrying: u32,
}

impl Bin {
    /// Served attempts over capacity, 0 to 1 (0 when unbounded).
    pub fn utilisation(&self) -> f64 {
        if self.capacity_milli == 0 {
            0.0
        } else {
            (self.served as f64 * 1000.0 / self.capacity_milli as f64).min(1.0)
        }
    }
}

/// A repetition's attempts and successes per bin, all that a run's fingerprint reads of its
/// bins, given for the busy bins alone: a long run whose bins are mostly empty (an `occ` run
/// with backoff) costs its busy bins, not all of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinCounts {
    /// `(bin, attempts, successes)` for the bins with a count, in order.
    pub busy: Vec<(u32, u32, u32)>,
    /// How many bins there are in all.
    pub len: usize,
}

impl BinCounts {
    /// The busy ones of every bin's `(attempts, successes)`, in order.
    pub fn from_dense(bins: impl ExactSizeIterator<Item = (u32, u32)>) -> Self {
        let len = bins.len();
        let busy = (bins.enumerate())
            .filter(|(_, b)| *b != (0, 0))
            .map(|(i, (a, s))| (i as u32, a, s))
            .collect();
        BinCounts { busy, len }
    }

    /// Every bin's counts, in order.
    pub fn dense(&self) -> Vec<(u32, u32)> {
        let mut bins = vec![(0, 0); self.len];
        for &(i, a, s) in &self.busy {
            bins[i as usize] = (a, s);
        }
        bins
    }
}

/// [`peak_per_s_of`] for bins given as `(bin, attempts, ...)` for the bins with a count, in
/// order: the same figure (the busiest window ends at a busy bin, and one that would start
/// before the first bin holds no more than the first whole window), in time proportional to
/// the busy bins.
pub fn peak_per_s_sparse(counts: &[(u32, u32, u32)], width: Micros) -> f64 {
    let width = width.0.max(1);
    let window = (1_000_000 / width).max(1);
    let (mut sum, mut peak, mut first) = (0u64, 0u64, 0usize);
    for &(end, attempts, _) in counts {
        sum += u64::from(attempts);
        // Out of the window ending at `end`: bins `window` or more before it.
        while let Some(&(i, a, _)) = counts.get(first) {
            if u64::from(i) + window > u64::from(end) {
                break;
            }
            sum -= u64::from(a);
            first += 1;
        }
        peak = peak.max(sum);
    }
    peak as f64 / ((window as f64 * width as f64) / 1_000_000.0)
}

/// The most attempts in any one-second window of `bins` (sliding by bins), per second.
pub fn peak_per_s(bins: &[Bin], width: Micros) -> f64 {
    peak_per_s_of(bins.iter().map(|b| b.attempts), width)
}

/// [`peak_per_s`] of bins given by their attempts alone.
pub fn peak_per_s_of<I>(attempts: I, width: Micros) -> f64
where
    I: Iterator<Item = u32> + Clone,
{
    let width = width.0.max(1);
    let window = ((1_000_000 / width).max(1)) as usize;
    // The first window (its sum is the largest of the sums up to it, the counts being
    // positive), then one bin in and one out per step: the one leaving trails the one
    // entering by `window` bins.
    let mut sum: u64 = attempts.clone().take(window).map(u64::from).sum();
    let mut peak = sum;
    for (entering, leaving) in attempts.clone().skip(window).zip(attempts) {
        sum = sum + u64::from(entering) - u64::from(leaving);
        peak = peak.max(sum);
    }
    peak as f64 / ((window as f64 * width as f64) / 1_000_000.0)
}

/// A run's counts in all, wide enough for a population run's billions of attempts.
#[derive(Clone, Copy, Debug, Default)]
struct Totals {
    originals: u64,
    attempts: u64,
    retries: u64,
    successes: u64,
    failures: [u64; 7],
    served: u64,
    wasted: u64,
}

/// A count added to a bin's, saturating at the bin's width.
fn add(to: &mut u32, n: u64) {
    *to = to.saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
}

/// Records a run.
#[derive(Clone, Debug)]
pub struct Recorder {
    width: Micros,
    // The bin last written and the time span it covers: time mostly moves forward in small
    // steps, so most lookups skip the division.
    cur: usize,
    cur_span: (u64, u64),
    bins: Vec<Bin>,
    latency: Histogram,
    in_flight: u32,
    last_end: Micros,
    totals: Totals,
    duplicates: u64,
    capacity_per_bin: u64,
    // Attempts at the server and requests on a retry, now, and the bin they were last set in:
    // the bins between keep the values they had at their end.
    gauge: (u32, u32),
    gauge_bin: usize,
}

impl Recorder {
    /// Bins of `width` covering `horizon` (widened if that would exceed [`MAX_BINS`]).
    pub fn new(width: Micros, horizon: Micros) -> Self {
        let mut width = width.max(Micros(1));
        while horizon.0 / width.0 + 1 > MAX_BINS as u64 {
            width = Micros(width.0 * 2);
        }
        let n = (horizon.0 / width.0 + 1) as usize;
        Recorder {
            width,
            bins: vec![Bin::default(); n],
            cur: 0,
            cur_span: (0, width.0),
            latency: Histogram::default(),
            in_flight: 0,
            last_end: Micros::ZERO,
            totals: Totals::default(),
            duplicates: 0,
            capacity_per_bin: 0,
            gauge: (0, 0),
            gauge_bin: 0,
        }
    }

    /// The bin width actually used.
    pub fn width(&self) -> Micros {
        self.width
    }

    fn bin(&mut self, t: Micros) -> &mut Bin {
        if t.0 < self.cur_span.0 || t.0 >= self.cur_span.1 {
            let q = t.0 / self.width.0;
            self.cur = (q as usize).min(self.bins.len() - 1);
            self.cur_span = (q * self.width.0, (q + 1).saturating_mul(self.width.0));
        }
        &mut self.bins[self.cur]
    }

    /// A new request.
    pub fn original(&mut self, t: Micros) {
        self.in_flight += 1;
        self.totals.originals += 1;
        self.bin(t).originals += 1;
    }

    /// An attempt sent.
    pub fn attempt(&mut self, t: Micros, retry: bool) {
        self.totals.attempts += 1;
        let b = self.bin(t);
        b.attempts += 1;
        if retry {
            b.retries += 1;
            self.totals.retries += 1;
        }
    }

    /// `n` attempts served at `t`.
    pub fn served(&mut self, t: Micros, n: u32) {
        self.totals.served += u64::from(n);
        self.bin(t).served += n;
    }

    /// `n` new requests at `t` (a population run's count).
    pub fn originals_n(&mut self, t: Micros, n: u64) {
        self.in_flight = self
            .in_flight
            .saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
        self.totals.originals += n;
        add(&mut self.bin(t).originals, n);
    }

    /// `n` attempts sent at `t`, `retries` of them after a request's first.
    pub fn attempts_n(&mut self, t: Micros, n: u64, retries: u64) {
        self.totals.attempts += n;
        self.totals.retries += retries;
        let b = self.bin(t);
        add(&mut b.attempts, n);
        add(&mut b.retries, retries);
    }

    /// `n` attempts served at `t` (a population run's count).
    pub fn served_n(&mut self, t: Micros, n: u64) {
        self.totals.served += n;
        add(&mut self.bin(t).served, n);
    }

    /// `n` requests ended at `t`, each after `latency`.
    pub fn ends_n(&mut self, t: Micros, reason: StopReason, latency: Micros, n: u64) {
        if n == 0 {
            return;
        }
        self.in_flight = self
            .in_flight
            .saturating_sub(u32::try_from(n).unwrap_or(u32::MAX));
        self.last_end = self.last_end.max(t);
        let b = self.bin(t);
        if reason == StopReason::Success {
            add(&mut b.successes, n);
            self.totals.successes += n;
            self.latency.record_n(latency, n);
        } else {
            add(&mut b.failures[reason.index()], n);
            self.totals.failures[reason.index()] += n;
        }
    }

    /// `n` requests sent their second attempt at `t` (a population run's count).
    pub fn retries_began(&mut self, t: Micros, n: u64) {
        let r = self
            .gauge
            .1
            .saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
        self.gauge_to(t, (self.gauge.0, r));
    }

    /// `n` requests that had sent more than one attempt ended at `t`.
    pub fn retries_ended(&mut self, t: Micros, n: u64) {
        let r = self
            .gauge
            .1
            .saturating_sub(u32::try_from(n).unwrap_or(u32::MAX));
        self.gauge_to(t, (self.gauge.0, r));
    }

    /// The server's capacity per bin, in thousandths of an attempt (0: unbounded).
    pub fn set_capacity_per_bin(&mut self, milli: u64) {
        self.capacity_per_bin = milli;
    }

    /// The budget level seen at `t`.
    pub fn budget(&mut self, t: Micros, milli: u64) {
        self.bin(t).budget_milli = milli;
    }

    /// The send rate the adaptive limiters allowed at `t`, per second, in thousandths.
    pub fn limiter(&mut self, t: Micros, milli: u64) {
        self.bin(t).limiter_milli = milli;
    }

    /// The breaker's state at `t` (1 closed, 2 half-open, 3 open).
    pub fn breaker(&mut self, t: Micros, state: u8) {
        self.bin(t).breaker = state;
    }

    /// The server's queue holds `len` requests at `t`.
    pub fn queue(&mut self, t: Micros, len: u32) {
        let b = self.bin(t);
        b.queue = b.queue.max(len);
    }

    fn gauge_to(&mut self, t: Micros, g: (u32, u32)) {
        self.bin(t);
        let i = self.cur;
        if i > self.gauge_bin {
            let (a, r) = self.gauge;
            for b in &mut self.bins[self.gauge_bin..i] {
                (b.at_server, b.retrying) = (a, r);
            }
            self.gauge_bin = i;
        }
        self.gauge = g;
    }

    /// The server holds `n` attempts at `t`, waiting and in service.
    pub fn at_server(&mut self, t: Micros, n: u32) {
        self.gauge_to(t, (n, self.gauge.1));
    }

    /// A request sent its second attempt at `t`.
    pub fn retry_began(&mut self, t: Micros) {
        self.gauge_to(t, (self.gauge.0, self.gauge.1 + 1));
    }

    /// A request that had sent more than one attempt ended at `t`.
    pub fn retry_ended(&mut self, t: Micros) {
        self.gauge_to(t, (self.gauge.0, self.gauge.1.saturating_sub(1)));
    }

    /// Work finished at `t` for a caller who had given up.
    pub fn wasted(&mut self, t: Micros) {
        self.wasted_n(t, 1);
    }

    /// `n` attempts' work done at `t` whose answer came too late (a population run's count).
    pub fn wasted_n(&mut self, t: Micros, n: u64) {
        if n == 0 {
            return;
        }
        self.totals.wasted += n;
        add(&mut self.bin(t).wasted, n);
    }

    /// A request ended at `t` after `latency`.
    pub fn end(&mut self, t: Micros, reason: StopReason, latency: Micros) {
        self.in_flight = self.in_flight.saturating_sub(1);
        self.last_end = self.last_end.max(t);
        let b = self.bin(t);
        if reason == StopReason::Success {
            b.successes += 1;
        } else {
            b.failures[reason.index()] += 1;
        }
        if reason == StopReason::Success {
            self.totals.successes += 1;
            self.latency.record(latency);
        } else {
            self.totals.failures[reason.index()] += 1;
        }
    }

    /// Durable effects beyond one per original.
    pub fn duplicates(&mut self, n: u64) {
        self.duplicates += n;
    }

    /// Requests in flight now.
    pub fn in_flight(&self) -> u32 {
        self.in_flight
    }

    /// Closes the run: fills the in-flight series and computes the summary.
    pub fn finish(mut self, at: Option<Micros>) -> Report {
        let (a, r) = self.gauge;
        for b in &mut self.bins[self.gauge_bin..] {
            (b.at_server, b.retrying) = (a, r);
        }
        let mut live: i64 = 0;
        for b in self.bins.iter_mut() {
            let ended =
                i64::from(b.successes) + b.failures.iter().map(|f| i64::from(*f)).sum::<i64>();
            live += i64::from(b.originals) - ended;
            b.in_flight = live.max(0) as u32;
            b.capacity_milli = self.capacity_per_bin;
        }
        // Trailing empty bins carry nothing.
        let cap = self.capacity_per_bin;
        while self.bins.len() > 1
            && self.bins.last().is_some_and(|b| {
                *b == Bin {
                    capacity_milli: cap,
                    budget_milli: b.budget_milli,
                    breaker: b.breaker,
                    ..Bin::default()
                }
            })
        {
            self.bins.pop();
        }
        let t = &self.totals;
        let originals = t.originals;
        let attempts = t.attempts;
        let per_s = 1_000_000.0 / self.width.0 as f64;
        let summary = Summary {
            originals,
            attempts,
            amplification: if originals == 0 {
                0.0
            } else {
                attempts as f64 / originals as f64
            },
            successes: t.successes,
            success_rate: if originals == 0 {
                0.0
            } else {
                t.successes as f64 / originals as f64
            },
            peak_attempts_per_s: peak_per_s(&self.bins, self.width),
            attempts_per_s_at: at.map(|a| {
                let i = (a.0 / self.width.0) as usize;
                self.bins
                    .get(i)
                    .map_or(0.0, |b| f64::from(b.attempts) * per_s)
            }),
            completion_ms: self.last_end.as_millis_f64(),
            p50_ms: self.latency.quantile(0.5).map(|m| m.as_millis_f64()),
            p99_ms: self.latency.quantile(0.99).map(|m| m.as_millis_f64()),
            p999_ms: self.latency.quantile(0.999).map(|m| m.as_millis_f64()),
            duplicates: self.duplicates,
            failures: StopReason::ALL.map(|r| t.failures[r.index()]),
            served: t.served,
            server: None,
            limiter: None,
            hedge: None,
            recovery: None,
            population: None,
            intervals: None,
        };
        Report {
            summary,
            bin_ms: self.width.as_millis_f64(),
            bins: self.bins,
        }
    }
}

/// A run's totals.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Summary {
    /// Original requests.
    pub originals: u64,
    /// Attempts, first ones included.
    pub attempts: u64,
    /// `attempts / originals`.
    pub amplification: f64,
    /// Requests that succeeded.
    pub successes: u64,
    /// `successes / originals`.
    pub success_rate: f64,
    /// The most attempts in any one-second window (sliding by bins), per second.
    pub peak_attempts_per_s: f64,
    /// Attempts per second in the bin holding the link's `at` time.
    pub attempts_per_s_at: Option<f64>,
    /// When the last request ended, in ms.
    pub completion_ms: f64,
    /// Median latency of successful requests, in ms.
    pub p50_ms: Option<f64>,
    /// 99th percentile latency of successful requests, in ms.
    pub p99_ms: Option<f64>,
    /// 99.9th percentile latency of successful requests, in ms.
    pub p999_ms: Option<f64>,
    /// Durable effects beyond one per original.
    pub duplicates: u64,
    /// Failed requests by stop reason, in [`StopReason::ALL`] order.
    pub failures: [u64; 7],
    /// Attempts the server did the work for.
    pub served: u64,
    /// What a queue or flaky server measured (`None` for the tick server and the other
    /// scenarios).
    pub server: Option<ServerSummary>,
    /// The adaptive rate limiter's figures; absent without one.
    pub limiter: Option<LimiterSummary>,
    /// Hedging's figures; absent without `hedge=on`.
    pub hedge: Option<HedgeSummary>,
    /// Whether and when the run recovered after its trigger; absent without a trigger (or
    /// when the run cannot tell: see `sim::recovery`).
    pub recovery: Option<super::Recovery>,
    /// The population engine's step, when it ran the storm (`None`: every request its own
    /// events).
    pub population: Option<PopulationSummary>,
    /// The 95% intervals of the means, over `runs` (`None` for a single run).
    #[cfg_attr(feature = "serde", serde(default))]
    pub intervals: Option<interval::Intervals>,
}

/// How the population engine ran a storm.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PopulationSummary {
    /// Its step, the server's tick, in ms.
    pub tick_ms: f64,
}

/// What hedging did over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HedgeSummary {
    /// Attempts beyond each request's first.
    pub sent: u64,
    /// `sent / originals`: the extra load hedging put on the server, as a share.
    pub extra_load: f64,
    /// Requests whose winning answer came from a hedge rather than the first attempt.
    pub won: u64,
    /// Attempts cancelled while still waiting at a queue server (another had won, or their
    /// caller had stopped waiting), so no worker spent time on them.
    pub cancelled: u64,
    /// Work a server finished for an attempt its client no longer waited for (another attempt
    /// had won, or this one had timed out).
    pub wasted: u64,
}

/// What the adaptive rate limiter did over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LimiterSummary {
    /// Sends that waited for a token.
    pub waited: u64,
    /// Their mean wait, in ms (0 when none waited).
    pub mean_wait_ms: f64,
    /// Throttling answers (429 or 503) the limiters saw.
    pub throttles: u64,
    /// The send rate the limiters allowed at the end, per second (0 if none turned on).
    pub allowed_per_s: f64,
}

/// What a queue or flaky server measured over a run, from its first event to its last (`T`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ServerSummary {
    /// Whether the server queues (`server=queue`; the flaky dependency does not, and has no
    /// queue figures).
    pub queueing: bool,
    /// Attempts that reached the server.
    pub arrived: u64,
    /// `arrived / T`, per second.
    pub arrivals_per_s: f64,
    /// Mean number of attempts in the system (waiting or in service), over `T`.
    pub mean_in_system: f64,
    /// Mean time an attempt spends in the system, ms.
    pub mean_time_ms: f64,
    /// Share of arrivals that found every worker busy and waited.
    pub wait_share: f64,
    /// Work done per second.
    pub throughput_per_s: f64,
    /// Requests that succeeded (within their deadline) per second.
    pub goodput_per_s: f64,
    /// Share of the work done for callers who had given up.
    pub wasted_share: f64,
    /// Refused at once because the queue was full.
    pub refused: u64,
    /// Dropped unstarted because their caller had given up.
    pub dropped: u64,
    /// The most requests waiting at once.
    pub max_queue: u64,
    /// The flaky dependency's closed forms for the link's `fail` and `attempts` (`None` for
    /// the queue server).
    pub closed_form: Option<ClosedForm>,
}

/// What independent failures alone give: each attempt fails with probability `f`, every
/// failure is retried, up to `N` attempts, and nothing else stops a request. A run with a
/// budget, a breaker, a deadline or a trigger differs from it, and the difference is what they
/// cost (or, for the breaker on a flaky dependency, what they lose).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClosedForm {
    /// `1 - f^N`.
    pub success: f64,
    /// Attempts per request, `1 + f + ... + f^(N-1)`.
    pub amplification: f64,
}

impl ClosedForm {
    /// The closed forms for failure probability `f` and `n` attempts, by repeated
    /// multiplication (the same bits on every target).
    pub fn flaky(f: f64, n: u32) -> ClosedForm {
        let (mut power, mut sum) = (1.0, 0.0);
        for _ in 0..n {
            sum += power;
            power *= f;
        }
        ClosedForm {
            success: 1.0 - power,
            amplification: sum,
        }
    }
}

/// The mean of a field over several runs.
fn avg<T>(all: &[&T], f: impl Fn(&T) -> f64) -> f64 {
    all.iter().map(|s| f(s)).sum::<f64>() / all.len().max(1) as f64
}

/// The mean of a count over several runs, rounded to the nearest whole number.
fn count<T>(all: &[&T], f: impl Fn(&T) -> u64) -> u64 {
    libm::round(avg(all, |s| f(s) as f64)) as u64
}

impl ServerSummary {
    fn mean(all: &[&ServerSummary]) -> ServerSummary {
        let avg = |f: &dyn Fn(&ServerSummary) -> f64| avg(all, f);
        let count = |f: &dyn Fn(&ServerSummary) -> u64| count(all, f);
        ServerSummary {
            queueing: all.first().is_some_and(|s| s.queueing),
            arrived: count(&|s| s.arrived),
            arrivals_per_s: avg(&|s| s.arrivals_per_s),
            mean_in_system: avg(&|s| s.mean_in_system),
            mean_time_ms: avg(&|s| s.mean_time_ms),
            wait_share: avg(&|s| s.wait_share),
            throughput_per_s: avg(&|s| s.throughput_per_s),
            goodput_per_s: avg(&|s| s.goodput_per_s),
            wasted_share: avg(&|s| s.wasted_share),
            refused: count(&|s| s.refused),
            dropped: count(&|s| s.dropped),
            max_queue: count(&|s| s.max_queue),
            closed_form: all.first().and_then(|s| s.closed_form),
        }
    }
}

impl Summary {
    /// The mean of several runs' summaries, field by field (counts rounded to the nearest
    /// whole number, like the 2015 simulator's CSV).
    pub fn mean(all: &[&Summary]) -> Summary {
        let avg = |f: &dyn Fn(&Summary) -> f64| avg(all, f);
        let count = |f: &dyn Fn(&Summary) -> u64| count(all, f);
        let opt = |f: &dyn Fn(&Summary) -> Option<f64>| {
            let v: Vec<f64> = all.iter().filter_map(|s| f(s)).collect();
            (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
        };
        Summary {
            originals: count(&|s| s.originals),
            attempts: count(&|s| s.attempts),
            amplification: avg(&|s| s.amplification),
            successes: count(&|s| s.successes),
            success_rate: avg(&|s| s.success_rate),
            peak_attempts_per_s: avg(&|s| s.peak_attempts_per_s),
            attempts_per_s_at: opt(&|s| s.attempts_per_s_at),
            completion_ms: avg(&|s| s.completion_ms),
            p50_ms: opt(&|s| s.p50_ms),
            p99_ms: opt(&|s| s.p99_ms),
            p999_ms: opt(&|s| s.p999_ms),
            duplicates: count(&|s| s.duplicates),
            failures: core::array::from_fn(|i| count(&|s| s.failures[i])),
            served: count(&|s| s.served),
            server: {
                let v: Vec<&ServerSummary> = all.iter().filter_map(|s| s.server.as_ref()).collect();
                (v.len() == all.len() && !v.is_empty()).then(|| ServerSummary::mean(&v))
            },
            limiter: all.first().and_then(|f| f.limiter).map(|_| {
                let lim = |s: &Summary| s.limiter.unwrap_or_default();
                LimiterSummary {
                    waited: count(&|s| lim(s).waited),
                    mean_wait_ms: avg(&|s| lim(s).mean_wait_ms),
                    throttles: count(&|s| lim(s).throttles),
                    allowed_per_s: avg(&|s| lim(s).allowed_per_s),
                }
            }),
            recovery: {
                let v: Vec<super::Recovery> = all.iter().filter_map(|s| s.recovery).collect();
                if v.len() == all.len() {
                    super::Recovery::mean(&v)
                } else {
                    None
                }
            },
            population: all.first().and_then(|f| f.population),
            intervals: None,
            hedge: all.first().and_then(|f| f.hedge).map(|_| {
                let h = |s: &Summary| s.hedge.unwrap_or_default();
                HedgeSummary {
                    sent: count(&|s| h(s).sent),
                    extra_load: avg(&|s| h(s).extra_load),
                    won: count(&|s| h(s).won),
                    cancelled: count(&|s| h(s).cancelled),
                    wasted: count(&|s| h(s).wasted),
                }
            }),
        }
    }
}

impl Summary {
    /// The 95% intervals of `all`, one summary a run, resampled from `seed`; `None` for one
    /// run.
    /// `planned` is the runs the link asked for (more than `all` when `sequential` stopped
    /// early).
    pub fn intervals(all: &[&Summary], seed: u64, planned: u32) -> Option<interval::Intervals> {
        if all.len() < 2 {
            return None;
        }
        let mut rng = interval::bootstrap_rng(seed);
        let mut boot = |f: &dyn Fn(&Summary) -> Option<f64>| {
            let v: Vec<f64> = all.iter().filter_map(|s| f(s)).collect();
            interval::bootstrap_mean(&v, &mut rng)
        };
        let recoveries: Vec<bool> = all
            .iter()
            .filter_map(|s| s.recovery.map(|r| r.recovered()))
            .collect();
        let n = all.len() as u32;
        Some(interval::Intervals {
            runs: n,
            planned,
            amplification: boot(&|s| Some(s.amplification)),
            success_rate: boot(&|s| Some(s.success_rate)),
            peak_attempts_per_s: boot(&|s| Some(s.peak_attempts_per_s)),
            completion_ms: boot(&|s| Some(s.completion_ms)),
            p50_ms: boot(&|s| s.p50_ms),
            p99_ms: boot(&|s| s.p99_ms),
            p999_ms: boot(&|s| s.p999_ms),
            recovered: (recoveries.len() == all.len())
                .then(|| interval::Share::of(recoveries.iter().filter(|r| **r).count() as u32, n)),
        })
    }
}

/// A run's summary and its time series.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Report {
    /// Totals.
    pub summary: Summary,
    /// Bin width in ms.
    pub bin_ms: f64,
    /// The series.
    pub bins: Vec<Bin>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sliding sum gives the largest sum of any `window` consecutive bins (or of all of
    /// them, when fewer), counted window by window.
    #[test]
    fn the_sliding_peak_is_the_largest_window() {
        use crate::retry::rng::{Rng, Words};
        let mut rng = Rng::stream(3, 3);
        for (len, width_ms) in [(0, 10), (1, 10), (7, 250), (100, 10), (101, 10), (2000, 10)] {
            let bins: Vec<u32> = (0..len).map(|_| rng.below(50) as u32).collect();
            let width = Micros::from_millis(width_ms);
            let window = (1000 / width_ms) as usize;
            let brute = (0..bins.len().max(1))
                .map(|i| bins[i..(i + window).min(bins.len())].iter().sum::<u32>())
                .max()
                .unwrap_or(0);
            let per_s = f64::from(brute) / (window as f64 * width_ms as f64 / 1000.0);
            assert_eq!(
                peak_per_s_of(bins.iter().copied(), width),
                per_s,
                "{len} bins"
            );
        }
    }

    /// The peak from the busy bins alone is the peak from every bin, for sparse and full
    /// series, windows longer and shorter than the series, and bins of several widths.
    #[test]
    fn the_peak_from_busy_bins_is_the_peak_from_all() {
        use crate::retry::rng::{Rng, Words};
        let mut rng = Rng::stream(3, 4);
        for (len, width_ms, busy) in [
            (0, 10, 1),
            (1, 10, 1),
            (7, 250, 2),
            (150, 10, 1),
            (150, 10, 20),
            (5000, 10, 3),
            (5000, 20, 50),
            (20_000, 10, 200),
        ] {
            let bins: Vec<(u32, u32)> = (0..len)
                .map(|_| match rng.below(busy) {
                    0 => (1 + rng.below(30) as u32, rng.below(3) as u32),
                    _ => (0, 0),
                })
                .collect();
            let counts: Vec<(u32, u32, u32)> = (bins.iter().enumerate())
                .filter(|(_, b)| b.0 > 0)
                .map(|(i, b)| (i as u32, b.0, b.1))
                .collect();
            let width = Micros::from_millis(width_ms);
            let dense = peak_per_s_of(bins.iter().map(|b| b.0), width);
            assert_eq!(peak_per_s_sparse(&counts, width), dense, "{len} bins");
            assert!(len == 0 || dense > 0.0, "{len} bins");
            let from_dense = BinCounts::from_dense(bins.iter().copied());
            assert_eq!(from_dense, BinCounts { busy: counts, len });
            assert_eq!(from_dense.dense(), bins);
        }
    }

    #[test]
    fn peak_uses_a_one_second_window() {
        let mut r = Recorder::new(Micros::from_millis(100), Micros::from_secs(5));
        for i in 0..10 {
            // 10 attempts in each of 10 consecutive 100 ms bins, then nothing.
            for _ in 0..10 {
                r.attempt(Micros::from_millis(100 * i + 50), false);
            }
        }
        r.original(Micros::ZERO);
        r.end(
            Micros::from_millis(300),
            StopReason::Success,
            Micros::from_millis(300),
        );
        let rep = r.finish(Some(Micros::from_millis(250)));
        assert_eq!(rep.summary.peak_attempts_per_s, 100.0);
        assert_eq!(rep.summary.attempts_per_s_at, Some(100.0));
        assert_eq!(rep.summary.amplification, 100.0);
    }

    #[test]
    fn bins_widen_to_stay_bounded() {
        let r = Recorder::new(Micros(1), Micros::from_secs(3600));
        assert!(r.bins.len() <= MAX_BINS);
    }
}
