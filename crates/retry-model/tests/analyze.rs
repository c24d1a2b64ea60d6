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
