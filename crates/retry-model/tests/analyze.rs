//! The analytic twin (`retrylab analyze`): the chain over (attempts at the server, requests
//! waiting to retry) against closed forms and against the simulator, and its refusals.

use retry_model::{analyze, sim::simulate, Params};

const QUEUE: &str = "scenario=outage&outage=0ms&server=queue&service_dist=exp&arrivals=poisson&backoff=none&idempotent=true&deadline=none";

fn link(rest: &str) -> Params {
    format!("{QUEUE}&{rest}").parse().unwrap()
}

#[test]
fn without_retries_it_is_the_m_m_c_k_queue() {
    // 4 workers x 40 ms (25/s each), 70/s, 20 more may wait; one attempt that waits long.
    let p = link("workers=4&service=40ms&rate=70&queue_limit=20&attempts=1&attempt_timeout=60s&duration=600s");
    let a = analyze(&p).unwrap();
    let (lambda, mu, c, k) = (70.0f64, 25.0f64, 4usize, 24usize);
    // p_n proportional to (lambda/mu)^n / n! below c, then times (lambda / (c mu))^(n - c).
    let weight = |n: usize| -> f64 {
        let a = lambda / mu;
        if n <= c {
            a.powi(n as i32) / (1..=n).map(|i| i as f64).product::<f64>()
        } else {
            weight_c(a, c) * (lambda / (c as f64 * mu)).powi((n - c) as i32)
        }
    };
    fn weight_c(a: f64, c: usize) -> f64 {
        a.powi(c as i32) / (1..=c).map(|i| i as f64).product::<f64>()
    }
    let norm: f64 = (0..=k).map(weight).sum();
    let mean: f64 = (0..=k).map(|n| n as f64 * weight(n) / norm).sum();
    assert!(
        (a.result.mean_queue - mean).abs() < 1e-6,
        "{} against {mean}",
        a.result.mean_queue
    );
    assert_eq!(a.result.mean_orbit, 0.0);
    // And the simulator's long run agrees.
    let des = simulate(&p).unwrap().summary.server.unwrap().mean_in_system;
    assert!((des / mean - 1.0).abs() < 0.05, "{des} against {mean}");
}

#[test]
fn with_retries_the_chain_agrees_with_a_long_run_away_from_the_boundary() {
    // One worker at 10 ms, 100 ms timeouts retried at once, up to 3 attempts, a queue of 50.
    for rate in [40, 60, 80] {
        let p = link(&format!("workers=1&service=10ms&rate={rate}&queue_limit=50&attempts=3&attempt_timeout=100ms&duration=600s"));
        let chain = analyze(&p).unwrap().result.mean_queue;
        let des = simulate(&p).unwrap().summary.server.unwrap().mean_in_system;
        assert!(
            (des / chain - 1.0).abs() < 0.05,
            "rate {rate}: the run {des}, the chain {chain}"
        );
    }
}

#[test]
fn a_metastable_queue_has_two_modes_and_slow_relaxation() {
    let p = link("workers=1&service=10ms&rate=60&queue_limit=50&attempts=3&attempt_timeout=100ms");
    let r = analyze(&p).unwrap().result;
    assert!(r.p_high_mode > 0.9, "{}", r.p_high_mode);
    // It collapses from empty within seconds and takes far longer to drain.
    let (drain, collapse) = (r.drain_s.unwrap(), r.collapse_s.unwrap());
    assert!(
        collapse < 60.0 && drain > 50.0 * collapse,
        "{drain} {collapse}"
    );
    assert!(r.relaxation_per_s.unwrap() > 0.0 && r.mixing_s.unwrap() > 1.0);
    // Without retries the same load drains at once and never collapses for long.
    let calm = analyze(&link(
        "workers=1&service=10ms&rate=60&queue_limit=50&attempts=1&attempt_timeout=100ms",
    ))
    .unwrap()
    .result;
    assert!(calm.p_high_mode < 0.05, "{}", calm.p_high_mode);
    assert!(calm.drain_s.unwrap() < 5.0);
    let mass: f64 = r.mass.iter().sum();
    assert!((mass - 1.0).abs() < 1e-9);
}

#[test]
fn a_link_outside_the_chains_assumptions_is_refused_by_name() {
    for (rest, field) in [
        ("workers=1&service_dist=const", "service_dist"),
        ("workers=1&arrivals=constant", "arrivals"),
        ("workers=1&users=10", "users"),
        ("workers=1&discipline=lifo", "discipline"),
        ("workers=1&server_deadline=on", "server_deadline"),
        ("workers=1&budget=bucket", "budget"),
        ("workers=1&backoff=full", "backoff"),
        ("workers=1&idempotent=false", "idempotent"),
        ("workers=1&queue_limit=1000000", "queue_limit"),
    ] {
        let mut p = link("workers=1");
        for pair in rest.split('&').skip(1) {
            let (k, v) = pair.split_once('=').unwrap();
            p.set(k, v).unwrap();
        }
        let e = analyze(&p).unwrap_err();
        assert_eq!(e.field, field, "{rest}: {e}");
        assert!(e.rule.starts_with("analyze: "), "{e}");
    }
    assert_eq!(
        analyze(&"preset=payments-none".parse().unwrap())
            .unwrap_err()
            .field,
        "server"
    );
    assert_eq!(
        analyze(&"preset=layers-333".parse().unwrap())
            .unwrap_err()
            .field,
        "scenario"
    );
}

#[test]
fn the_twin_spike_preset_leaves_the_low_mode_in_its_spike_and_comes_back_slower_than_the_chain_drains(
) {
    let p: Params = "preset=twin-spike".parse().unwrap();
    let a = analyze(&p).unwrap();
    // At its base load the chain sits in its low mode and drains a full queue in seconds.
    assert!(a.result.p_high_mode < 0.05, "{}", a.result.p_high_mode);
    let drain = a.result.drain_s.unwrap();
    assert!(drain > 5.0 && drain < 30.0, "{drain}");
    // The run: calm before the spike, congested past the chain's line right after it, with
    // requests on their retries; then it comes back.
    let rep = simulate(&p).unwrap();
    let bins = &rep.series.bins;
    let per_s = (1000.0 / rep.series.bin_ms) as usize;
    assert!(bins[..9 * per_s]
        .iter()
        .all(|b| b.at_server < a.spec.congested_at));
    let after = &bins[13 * per_s];
    assert!(
        after.at_server >= a.spec.congested_at && after.retrying > 0,
        "{after:?}"
    );
    // Over seeds, how long the runs stay in the high mode varies widely, and on average it is
    // longer than the chain's drain time: its exponential retries let it leave sooner.
    let mut times = Vec::new();
    for seed in 1..=6 {
        let mut q = p.clone();
        q.set("seed", &seed.to_string()).unwrap();
        q.set("duration", "300s").unwrap();
        let rec = simulate(&q).unwrap().summary.recovery.unwrap();
        times.push(rec.recovered_at_s.unwrap() - rec.trigger_end_s);
    }
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    let spread =
        times.iter().fold(0.0f64, |m, t| m.max(*t)) - times.iter().fold(f64::MAX, |m, t| m.min(*t));
    assert!(mean > drain && spread > drain, "{times:?} against {drain}");
}

/// The M/M/1/K chain's closed forms: its mean, and its spectral gap (a birth-death chain on
/// 0..=K+1: lambda + mu - 2 sqrt(lambda mu) cos(pi / (K + 2))).
fn mm1k_figures(lambda: f64, mu: f64, k: u32) -> (f64, f64) {
    let rho = lambda / mu;
    let n = k as i32 + 1;
    let norm: f64 = (0..=n).map(|i| rho.powi(i)).sum();
    let mean: f64 = (0..=n).map(|i| f64::from(i) * rho.powi(i) / norm).sum();
    let gap =
        lambda + mu - 2.0 * (lambda * mu).sqrt() * (std::f64::consts::PI / f64::from(k + 2)).cos();
    (mean, gap)
}

#[test]
fn without_retries_the_m_m_1_k_figures_hold_at_any_timeout() {
    let (mean, gap) = mm1k_figures(8.0, 10.0, 19);
    for timeout in ["1s", "1h"] {
        // No backoff key either: a link with one attempt has no retries for it to shape.
        for backoff in ["&backoff=none", ""] {
            let p: Params = format!(
                "scenario=outage&outage=0s&server=queue&service_dist=exp&arrivals=poisson&deadline=none&duration=1h&workers=1&service=100ms&rate=8&queue_limit=19&attempts=1&attempt_timeout={timeout}{backoff}"
            )
            .parse()
            .unwrap();
            let a = analyze(&p).unwrap_or_else(|e| panic!("{timeout}{backoff}: {e}"));
            let r = &a.result;
            assert_eq!(r.states, 21, "{timeout}: no orbit without retries");
            assert!(
                (r.mean_queue - mean).abs() < 1e-9,
                "{timeout}: {}",
                r.mean_queue
            );
            let rate = r.relaxation_per_s.unwrap();
            assert!(
                (rate / gap - 1.0).abs() < 1e-6,
                "{timeout}: {rate} against {gap}"
            );
        }
    }
}

#[test]
fn the_fuzzed_twin_defects_stay_fixed() {
    // A 24 h timeout on 1 us services: never congested, not congested from 0.
    let a = analyze(
        &"preset=twin-spike&service=1us&attempt_timeout=24h"
            .parse()
            .unwrap(),
    )
    .unwrap();
    let top = a.spec.workers + a.spec.queue_limit;
    assert_eq!(a.spec.congested_at, top + 1);
    assert_eq!(a.result.p_high_mode, 0.0);
    // A queue of none and a minute's service: finite figures.
    let a = analyze(&link("queue_limit=0&service=60s&attempts=1&rate=8")).unwrap();
    let rate = a.result.relaxation_per_s.unwrap();
    assert!(rate.is_finite() && rate > 0.0, "{rate}");
    assert!(a.result.mixing_s.is_some_and(|m| m > 0.0 && m.is_finite()));
    // A 1 us timeout: a probability is never above 1.
    let a = analyze(&"preset=twin-spike&attempt_timeout=1us".parse().unwrap()).unwrap();
    assert!(a.result.p_high_mode <= 1.0);
    // 24 workers 100 times overloaded: refused with the reason, never a silent 0.
    let e = analyze(&link(
        "workers=24&service=1s&rate=2400&queue_limit=200&attempts=1",
    ))
    .unwrap_err();
    assert_eq!(e.field, "rate", "{e}");
    assert!(e.to_string().contains("does not solve"), "{e}");
    // The default queue with retries: 160,320 states would take 1 GB and 20 s; refused with the
    // count, before building anything.
    let e = analyze(&link("workers=1")).unwrap_err();
    assert_eq!(e.field, "queue_limit", "{e}");
    assert!(e.to_string().contains("160320 states"), "{e}");
}

mod finite {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Any queue link the twin accepts gives finite figures, probabilities in [0, 1].
        #[test]
        fn every_figure_is_finite_and_in_range(
            workers in 1u32..6,
            queue in 0u32..60,
            service_ms in 1u64..2000,
            rate in 1u32..400,
            attempts in 1u32..4,
            timeout_ms in 1u64..5000,
        ) {
            let p = link(&format!(
                "workers={workers}&queue_limit={queue}&service={service_ms}ms&rate={rate}&attempts={attempts}&attempt_timeout={timeout_ms}ms"
            ));
            if let Ok(a) = analyze(&p) {
                let r = &a.result;
                prop_assert!(r.converged);
                for v in [r.mean_queue, r.mean_waiting, r.mean_orbit] {
                    prop_assert!(v.is_finite() && v >= 0.0, "{v}");
                }
                prop_assert!((0.0..=1.0).contains(&r.p_high_mode));
                for v in [r.relaxation_per_s, r.mixing_s, r.drain_s, r.collapse_s].into_iter().flatten() {
                    prop_assert!(v.is_finite() && v >= 0.0, "{v}");
                }
                let total: f64 = r.mass.iter().sum();
                prop_assert!((total - 1.0).abs() < 1e-9);
            }
        }
    }
}

#[test]
fn a_solve_tells_each_part_as_it_begins_with_the_chains_states() {
    use retry_model::sim::chain::SolveStage;
    let p = link("workers=1&service=10ms&rate=60&queue_limit=50&attempts=3&attempt_timeout=100ms");
    let mut told = Vec::new();
    let a = retry_model::analyze_reporting(&p, usize::MAX, &mut |s, n| told.push((s, n))).unwrap();
    let n = a.result.states;
    assert_eq!(
        told,
        [
            (SolveStage::Build, n),
            (SolveStage::Stationary, n),
            (SolveStage::Hitting, n),
            (SolveStage::Relaxation, n),
        ]
    );
    // A refused chain tells nothing: it is refused before anything is built.
    let mut none = 0;
    assert!(
        retry_model::analyze_reporting(&link("workers=1"), usize::MAX, &mut |_, _| none += 1)
            .is_err()
    );
    assert_eq!(none, 0);
}
