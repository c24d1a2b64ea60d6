//! The analytic twin of a queue server with timeouts and retries: a continuous-time Markov
//! chain over (attempts at the server, requests waiting to retry), the two dimensions of the
//! metastability models (Metafor's "orbit" of retrying requests beside the queue).
//!
//! The chain, for `c` workers with exponential service at rate `mu` each, a queue of `k` more,
//! Poisson arrivals at `lambda` and an orbit of at most `orbit_max`:
//! - an arrival (new at `lambda`, or a retry at `nu` per request in the orbit) joins the server
//!   when there is room; when the queue is full it is refused, and a refused attempt retries;
//! - an attempt that joins a *congested* server (already `congested_at` or more attempts there:
//!   its expected time there, `(n - c + 1) / (c mu) + 1 / mu`, is over the timeout) will time out:
//!   it stays at the server as work nobody waits for, and its request enters the orbit at once
//!   with probability `retry_p` (the share of attempts that have a retry left), coming back after
//!   the timeout (`nu = 1 / timeout`) plus the mean backoff;
//! - a worker finishes at `mu` per busy worker.
//!
//! The attempts at the server change by one at a time, so the generator is block tridiagonal
//! (a block per level, the orbit within it), and every figure is an exact block elimination
//! (`super::blocks`): the stationary distribution (`pi Q = 0`), the drain time (the expected
//! time from a full queue and an empty orbit until nobody waits) and the collapse time (from
//! empty until the server is congested) as hitting-time equations, and the slowest relaxation
//! rate by inverse iteration on `Q` factored once. Why no linear-algebra crate: see `blocks`.

use alloc::vec;
use alloc::vec::Vec;

/// The most inverse-iteration steps for the relaxation rate.
const RELAX_STEPS: usize = 500;

/// The chain's parameters, in seconds and per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChainSpec {
    /// New requests per second.
    pub lambda: f64,
    /// Services per second per worker.
    pub mu: f64,
    /// Workers.
    pub workers: u32,
    /// Requests that may wait beyond the workers.
    pub queue_limit: u32,
    /// Rate at which a request in the orbit retries (per second each).
    pub nu: f64,
    /// The share of timed-out or refused attempts that retry.
    pub retry_p: f64,
    /// Attempts at the server from which a newcomer's expected time there passes the timeout
    /// (the high-queue mode's threshold).
    pub congested_at: u32,
    /// The attempt timeout, in seconds.
    pub timeout: f64,
    /// The orbit's cap.
    pub orbit_max: u32,
}

/// What the chain gives.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainResult {
    /// States in the chain.
    pub states: usize,
    /// Mean attempts at the server (waiting and in service).
    pub mean_queue: f64,
    /// Mean attempts waiting.
    pub mean_waiting: f64,
    /// Mean requests in the orbit.
    pub mean_orbit: f64,
    /// Probability of the high-queue mode (the server congested: newcomers time out).
    pub p_high_mode: f64,
    /// The slowest relaxation rate (per second): how fast the chain forgets where it started;
    /// from inverse iteration, or for a complex pair (which it does not settle on) the two-mode
    /// rate `1 / drain + 1 / collapse`; `None` when neither exists.
    pub relaxation_per_s: Option<f64>,
    /// The mixing time it implies: `ln 4 / relaxation_per_s` seconds.
    pub mixing_s: Option<f64>,
    /// Expected seconds from a full queue and an empty orbit until nobody waits; `None` when
    /// the hitting-time sweeps did not settle (the queue may never drain: a retry storm).
    pub drain_s: Option<f64>,
    /// Expected seconds from an empty server until it is congested (newcomers time out).
    pub collapse_s: Option<f64>,
    /// The stationary probability of each state, attempts-major (`n * (orbit_max + 1) + m`).
    pub mass: Vec<f64>,
    /// Whether the stationary solve succeeded (a singular system gives none).
    pub converged: bool,
}

/// For each number of attempts already at the server, the share of newcomers whose time there
/// passes the timeout: their wait for `n - c + 1` services at `c mu` and their own at `mu`,
/// taken as an Erlang of `n - c + 2` phases at `c mu` (exact for one worker), or their own
/// service alone when a worker is free.
fn late_shares(s: &ChainSpec) -> Vec<f64> {
    let c = s.workers as usize;
    let n_max = c + s.queue_limit as usize;
    // P(Erlang(k, r) > t) = sum over i < k of e^-x x^i / i!, x = r t.
    let tail = |k: usize, x: f64| {
        let (mut term, mut sum) = (libm::exp(-x), 0.0);
        for i in 0..k {
            sum += term;
            term *= x / (i + 1) as f64;
        }
        sum.min(1.0)
    };
    (0..=n_max)
        .map(|n| {
            if n < c {
                libm::exp(-s.mu * s.timeout)
            } else {
                tail(n - c + 2, f64::from(s.workers) * s.mu * s.timeout)
            }
        })
        .collect()
}

/// The chain's transitions: for each state, the (target, rate) pairs out of it.
struct Chain {
    out: Vec<Vec<(usize, f64)>>,
    n_max: usize,
    m_max: usize,
}

impl Chain {
    fn build(s: &ChainSpec) -> Chain {
        let late = late_shares(s);
        let (c, n_max, m_max) = (
            s.workers as usize,
            (s.workers + s.queue_limit) as usize,
            s.orbit_max as usize,
        );
        let id = |n: usize, m: usize| n * (m_max + 1) + m;
        let mut out = vec![Vec::new(); (n_max + 1) * (m_max + 1)];
        for n in 0..=n_max {
            for m in 0..=m_max {
                let from = id(n, m);
                let mut add = |to: usize, rate: f64| {
                    if rate > 0.0 && to != from {
                        out[from].push((to, rate));
                    }
                };
                // Where an attempt that arrives goes, with what rate, from (n, m'): it joins
                // (and enters the orbit too when the server is congested), or is refused.
                let late = late[n];
                let land = |m2: usize| -> (usize, Option<usize>) {
                    if n == n_max {
                        (id(n, (m2 + 1).min(m_max)), None)
                    } else if late > 0.0 {
                        (id(n + 1, m2), Some(id(n + 1, (m2 + 1).min(m_max))))
                    } else {
                        (id(n + 1, m2), None)
                    }
                };
                let split = |rate: f64, m2: usize, add: &mut dyn FnMut(usize, f64)| match land(m2) {
                    // Retried at once (backoff=none), a refused attempt is refused again in
                    // the same instant until its attempts are spent: it leaves. A retry from
                    // the orbit that is refused leaves the orbit.
                    (_, None) if n == n_max => {
                        if m2 < m {
                            add(id(n, m2), rate);
                        }
                    }
                    (join, None) => add(join, rate),
                    (join, Some(retrying)) => {
                        add(retrying, rate * late * s.retry_p);
                        add(join, rate * (1.0 - late * s.retry_p));
                    }
                };
                split(s.lambda, m, &mut add);
                if m > 0 {
                    split(s.nu * m as f64, m - 1, &mut add);
                }
                if n > 0 {
                    add(id(n - 1, m), s.mu * n.min(c) as f64);
                }
            }
        }
        Chain { out, n_max, m_max }
    }

    fn out_rate(&self, s: usize) -> f64 {
        self.out[s].iter().map(|(_, r)| r).sum()
    }
}

/// The parts of a solve, in order: a caller that shows progress names the one under way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolveStage {
    /// The chain's states and rates.
    Build,
    /// The stationary distribution.
    Stationary,
    /// The drain and collapse times.
    Hitting,
    /// The slowest relaxation rate.
    Relaxation,
}

impl SolveStage {
    /// What the stage does, in words.
    pub const fn words(self) -> &'static str {
        match self {
            SolveStage::Build => "building the chain",
            SolveStage::Stationary => "solving the stationary distribution",
            SolveStage::Hitting => "solving the drain and collapse times",
            SolveStage::Relaxation => "finding the slowest relaxation rate",
        }
    }
}

/// Solves the chain; `None` when its parameters cannot make one (no service, no states).
pub fn solve(spec: &ChainSpec) -> Option<ChainResult> {
    solve_reporting(spec, &mut |_| {})
}

/// [`solve`], telling `stage` as each part begins.
pub fn solve_reporting(spec: &ChainSpec, stage: &mut dyn FnMut(SolveStage)) -> Option<ChainResult> {
    if spec.mu <= 0.0 || spec.workers == 0 {
        return None;
    }
    stage(SolveStage::Build);
    let chain = Chain::build(spec);
    stage(SolveStage::Stationary);
    let (pi, converged) = stationary(&chain);
    let m1 = chain.m_max + 1;
    let (mut mean_queue, mut mean_waiting, mut mean_orbit, mut high) = (0.0, 0.0, 0.0, 0.0);
    for (i, p) in pi.iter().enumerate() {
        let (n, m) = (i / m1, i % m1);
        mean_queue += p * n as f64;
        mean_waiting += p * n.saturating_sub(spec.workers as usize) as f64;
        mean_orbit += p * m as f64;
        if n as u32 >= spec.congested_at {
            high += p;
        }
    }
    stage(SolveStage::Hitting);
    // From the top state (every worker busy, the queue full, nobody waiting to retry) until
    // the server is empty, as the M/M/1/K hitting time and Metafor's time_to_drain count it.
    let drain = hitting(&chain, chain.n_max * (chain.m_max + 1), |s| {
        s / (chain.m_max + 1) == 0
    });
    let collapse = hitting(&chain, 0, |s| {
        s / (chain.m_max + 1) >= spec.congested_at as usize
    });
    // Where inverse iteration does not settle (a complex pair), the rate of leaving each of
    // the two modes, summed.
    stage(SolveStage::Relaxation);
    let relaxation = relaxation(&chain, &pi)
        .or_else(|| Some(1.0 / drain? + 1.0 / collapse?))
        .filter(|r| r.is_finite() && *r > 0.0);
    Some(ChainResult {
        states: pi.len(),
        mean_queue,
        mean_waiting,
        mean_orbit,
        // A sum of probabilities can round a hair past 1.
        p_high_mode: high.clamp(0.0, 1.0),
        relaxation_per_s: relaxation,
        mixing_s: relaxation.map(|r| libm::log(4.0) / r),
        drain_s: drain,
        collapse_s: collapse,
        mass: pi,
        converged,
    })
}

/// The state's level (attempts at the server) and place in its level (the orbit).
fn at(chain: &Chain, s: usize) -> (usize, usize) {
    (s / (chain.m_max + 1), s % (chain.m_max + 1))
}

/// Adds `v` at (row state `r`, column state `c`) of a block-tridiagonal system.
fn put(sys: &mut super::blocks::System, chain: &Chain, r: usize, c: usize, v: f64) {
    let ((lr, mr), (lc, mc)) = (at(chain, r), at(chain, c));
    let i = mr * sys.b + mc;
    if lc == lr {
        sys.diag[lr][i] += v;
    } else if lc + 1 == lr {
        sys.lower[lr][i] += v;
    } else if lc == lr + 1 {
        sys.upper[lr][i] += v;
    }
}

/// The stationary distribution: `pi Q = 0` (as `Q^T pi = 0`, its first equation replaced by
/// `pi_0 = 1`), solved exactly level by level, then normalised.
fn stationary(chain: &Chain) -> (Vec<f64>, bool) {
    let b = chain.m_max + 1;
    let mut sys = super::blocks::System::zeros(chain.n_max + 1, b);
    for (from, list) in chain.out.iter().enumerate() {
        for &(to, r) in list {
            put(&mut sys, chain, to, from, r);
            put(&mut sys, chain, from, from, -r);
        }
    }
    sys.diag[0][..b].iter_mut().for_each(|v| *v = 0.0);
    sys.upper[0][..b].iter_mut().for_each(|v| *v = 0.0);
    sys.diag[0][0] = 1.0;
    sys.rhs[0][0] = 1.0;
    let Some(x) = sys.solve() else {
        return (vec![0.0; chain.out.len()], false);
    };
    let mut pi: Vec<f64> = x.into_iter().flatten().map(|v| v.max(0.0)).collect();
    let total: f64 = pi.iter().sum();
    let ok = total.is_finite() && total > 0.0;
    if ok {
        pi.iter_mut().for_each(|p| *p /= total);
    }
    (pi, ok)
}

/// The slowest relaxation rate `g`: Q's nonzero eigenvalue nearest 0 is `-g`, found by inverse
/// iteration. `Q - d I` (`d` a billionth of the fastest rate out of a state, so it can be
/// factored) is factored once by block elimination; each step solves it for the last vector
/// and takes out the part along Q's null vector (the constant vector: its weight in `pi`), so
/// that the vector turns towards the slowest of the other modes at a ratio of `g / g'` per step
/// (`g'` the next slowest). It stops when the rate moves by under a part in 10^9, and gives
/// up (`None`) after [`RELAX_STEPS`] steps or on a complex pair (it does not settle).
fn relaxation(chain: &Chain, pi: &[f64]) -> Option<f64> {
    let n = pi.len();
    let top = (0..n).map(|s| chain.out_rate(s)).fold(0.0, f64::max);
    if n < 2 || top <= 0.0 {
        return None;
    }
    let shift = top * 1e-9;
    let b = chain.m_max + 1;
    let mut sys = super::blocks::System::zeros(chain.n_max + 1, b);
    for (s, list) in chain.out.iter().enumerate() {
        for &(t, r) in list {
            put(&mut sys, chain, s, t, r);
            put(&mut sys, chain, s, s, -r);
        }
        put(&mut sys, chain, s, s, -shift);
    }
    let (f, _) = sys.factor()?;
    // Start from the attempts at the server: every slow mode moves them.
    let mut x: Vec<f64> = (0..n).map(|s| at(chain, s).0 as f64).collect();
    let mut last: Option<f64> = None;
    for _ in 0..RELAX_STEPS {
        settle(&mut x, pi)?;
        let y: Vec<f64> = f.solve(x.chunks(b).map(<[f64]>::to_vec).collect()).concat();
        // y = x / (-g - shift) once x is the mode: the quotient gives g.
        let (xy, xx) = x
            .iter()
            .zip(&y)
            .fold((0.0, 0.0), |(a, c), (u, v)| (a + u * v, c + u * u));
        if xy >= 0.0 || !xy.is_finite() {
            return None;
        }
        let g = -xx / xy - shift;
        if last.is_some_and(|l| (g - l).abs() <= 1e-9 * g.abs()) {
            return Some(g.max(0.0));
        }
        last = Some(g);
        x = y;
    }
    None
}

/// Takes out of `x` its part along the constant vector (`x -= (pi . x) 1`) and scales it to
/// a largest entry of 1; `None` when nothing is left.
fn settle(x: &mut [f64], pi: &[f64]) -> Option<()> {
    let along: f64 = x.iter().zip(pi).map(|(u, p)| u * p).sum();
    x.iter_mut().for_each(|u| *u -= along);
    let big = x.iter().fold(0.0f64, |m, u| m.max(u.abs()));
    if !(big > 0.0 && big.is_finite()) {
        return None;
    }
    x.iter_mut().for_each(|u| *u /= big);
    Some(())
}

/// Expected time from state `from` until the chain enters `target`: `Q h = -1` off the
/// target, `h = 0` on it, solved exactly level by level; `None` if it cannot be (never reached).
fn hitting(chain: &Chain, from: usize, target: impl Fn(usize) -> bool) -> Option<f64> {
    let b = chain.m_max + 1;
    let mut sys = super::blocks::System::zeros(chain.n_max + 1, b);
    for (s, list) in chain.out.iter().enumerate() {
        let (l, m) = at(chain, s);
        if target(s) {
            put(&mut sys, chain, s, s, 1.0);
            continue;
        }
        for &(t, r) in list {
            put(&mut sys, chain, s, t, r);
            put(&mut sys, chain, s, s, -r);
        }
        sys.rhs[l][m] = -1.0;
    }
    let x = sys.solve()?;
    let (l, m) = at(chain, from);
    let h = x[l][m];
    (h.is_finite() && h >= 0.0).then_some(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mm1k(lambda: f64, mu: f64, k: u32) -> ChainSpec {
        ChainSpec {
            lambda,
            mu,
            workers: 1,
            queue_limit: k,
            nu: 1.0,
            retry_p: 0.0,
            congested_at: u32::MAX,
            timeout: 1e9,
            orbit_max: 0,
        }
    }

    #[test]
    fn without_retries_it_is_the_m_m_1_k_queue() {
        let (lambda, mu, k) = (8.0, 10.0, 9);
        let r = solve(&mm1k(lambda, mu, k)).unwrap();
        assert!(r.converged);
        let rho: f64 = lambda / mu;
        let n = (k + 1) as i32;
        let norm: f64 = (0..=n).map(|i| rho.powi(i)).sum();
        for (i, p) in r.mass.iter().enumerate() {
            let want = rho.powi(i as i32) / norm;
            assert!((p - want).abs() < 1e-8, "state {i}: {p} against {want}");
        }
        let mean: f64 = (0..=n).map(|i| i as f64 * rho.powi(i) / norm).sum();
        assert!((r.mean_queue - mean).abs() < 1e-7);
    }

    #[test]
    fn the_m_m_1_relaxation_rate_is_its_spectral_gap() {
        // A birth-death chain on 0..=K+1: its eigenvalues are known in closed form,
        // lambda + mu - 2 sqrt(lambda mu) cos(j pi / (K + 2)), the slowest j = 1.
        let (lambda, mu, k) = (3.0, 5.0, 6);
        let r = solve(&mm1k(lambda, mu, k)).unwrap();
        let rate = r.relaxation_per_s.unwrap();
        let gap = lambda + mu
            - 2.0 * libm::sqrt(lambda * mu) * libm::cos(core::f64::consts::PI / f64::from(k + 2));
        assert!((rate / gap - 1.0).abs() < 0.01, "{rate} against {gap}");
        assert_eq!(r.mixing_s, Some(libm::log(4.0) / rate));
    }

    #[test]
    fn draining_an_m_m_1_queue_takes_its_backlog_over_the_spare_rate() {
        // From K + 1 attempts down to none, with lambda << mu: about (K + 1) / (mu - lambda).
        let r = solve(&mm1k(0.1, 10.0, 20)).unwrap();
        let want = 21.0 / (10.0 - 0.1);
        let drain = r.drain_s.unwrap();
        assert!((drain / want - 1.0).abs() < 0.02, "{drain} against {want}");
    }

    /// The M/M/1/K hitting time from full to empty, exactly: the sum over the states of the
    /// time to step down one, d_K = 1/mu, d_n = (1 + lambda d_(n+1)) / mu. For 8/s against 10/s
    /// with 18 waiting (K = 19), 7.5288 s; with none waiting, one service, 0.1 s.
    #[test]
    fn the_drain_is_the_m_m_1_k_hitting_time_from_full_to_empty() {
        let closed = |lambda: f64, mu: f64, k: u32| {
            let mut d = 1.0 / mu;
            let mut sum = d;
            for _ in 1..k {
                d = (1.0 + lambda * d) / mu;
                sum += d;
            }
            sum
        };
        for (k, want) in [(18, 7.528_823_037_6), (0, 0.1), (5, closed(8.0, 10.0, 6))] {
            let drain = solve(&mm1k(8.0, 10.0, k)).unwrap().drain_s.unwrap();
            assert!(
                (drain - want).abs() < 1e-6 * want.max(1.0),
                "queue_limit {k}: {drain} against {want}"
            );
            assert!(
                (closed(8.0, 10.0, k + 1) - want).abs() < 1e-6,
                "the closed form itself"
            );
        }
    }

    #[test]
    fn the_relaxation_rate_is_the_dense_solvers_spectral_gap_with_retries() {
        // A small two-dimensional chain: one worker, 4 may wait, up to 3 waiting to retry.
        let spec = ChainSpec {
            lambda: 6.0,
            mu: 10.0,
            workers: 1,
            queue_limit: 4,
            nu: 5.0,
            retry_p: 0.5,
            congested_at: 3,
            timeout: 0.2,
            orbit_max: 3,
        };
        let chain = Chain::build(&spec);
        let gap = dense_gap(&chain);
        let r = solve(&spec).unwrap();
        let rate = r.relaxation_per_s.unwrap();
        assert!((rate / gap - 1.0).abs() < 0.01, "{rate} against {gap}");
        // Inverse iteration settled on it by itself (not the two-mode rate).
        let direct = relaxation(&chain, &r.mass).unwrap();
        assert!((direct / gap - 1.0).abs() < 1e-6, "{direct} against {gap}");
    }

    /// The slowest relaxation by a dense eigen-solver: the nonzero eigenvalue of Q with the
    /// largest real part.
    fn dense_gap(chain: &Chain) -> f64 {
        let n = chain.out.len();
        let mut q = nalgebra::DMatrix::<f64>::zeros(n, n);
        for (s, list) in chain.out.iter().enumerate() {
            for &(t, r) in list {
                q[(s, t)] += r;
                q[(s, s)] -= r;
            }
        }
        q.complex_eigenvalues()
            .iter()
            .map(|z| -z.re)
            .filter(|g| *g > 1e-9)
            .fold(f64::INFINITY, f64::min)
    }

    #[test]
    fn inverse_iteration_finds_the_dense_solvers_rate_on_a_larger_chain() {
        // The twin-spike queue with a shorter queue and orbit (273 states): its slowest rate is
        // far below its services' (100/s).
        let spec = ChainSpec {
            lambda: 45.0,
            mu: 100.0,
            workers: 1,
            queue_limit: 20,
            nu: 10.0,
            retry_p: 2.0 / 3.0,
            congested_at: 11,
            timeout: 0.1,
            orbit_max: 12,
        };
        let chain = Chain::build(&spec);
        let gap = dense_gap(&chain);
        let r = solve(&spec).unwrap();
        let direct = relaxation(&chain, &r.mass).unwrap();
        assert!((direct / gap - 1.0).abs() < 1e-6, "{direct} against {gap}");
        assert!(gap < 2.0, "{gap}: not a slow rate");
    }
}
