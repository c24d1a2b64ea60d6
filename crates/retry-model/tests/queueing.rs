//! The queue and flaky servers against queueing theory's closed forms: M/M/1's mean time in
//! the system, Erlang C's probability of waiting for M/M/4, Little's law for every queue and
//! flaky configuration, and a flaky dependency's success and attempts per request.
//! Failures print the link that reproduces them: `retrylab run '<link>'`.

use retry_model::sim::{simulate, ServerSummary, SimReport};
use retry_model::Params;

fn run(q: &str) -> SimReport {
    let p: Params = q.parse().unwrap_or_else(|e| panic!("{q}: {e}"));
    simulate(&p).unwrap_or_else(|e| panic!("{q}: {e}"))
}

fn server(r: &SimReport, q: &str) -> ServerSummary {
    r.summary
        .server
        .unwrap_or_else(|| panic!("{q}: no server summary"))
}

/// A queue with Poisson arrivals, exponential service of mean 10 ms (mu = 100/s), no limit
/// worth the name, one attempt and no timeout: an M/M/c queue.
fn mmc(workers: u32, rate: u32) -> String {
    format!(
        "scenario=outage&outage=0ms&server=queue&workers={workers}&service=10ms&service_dist=exp\
         &queue_limit=1000000&arrivals=poisson&rate={rate}&duration=3600s&attempts=1\
         &deadline=none&attempt_timeout=1h&runs=2"
    )
}

fn within(got: f64, want: f64, share: f64) -> bool {
    (got - want).abs() <= want.abs() * share
}

#[test]
fn mm1_mean_time_in_system_is_one_over_mu_minus_lambda() {
    for (rate, rho) in [(50, 0.5), (80, 0.8)] {
        let q = mmc(1, rate);
        let s = server(&run(&q), &q);
        let want_ms = 1000.0 / (100.0 - f64::from(rate));
        assert!(
            within(s.mean_time_ms, want_ms, 0.03),
            "rho {rho}: W {} ms, 1/(mu - lambda) = {want_ms} ms: retrylab run '{q}'",
            s.mean_time_ms
        );
        assert!(
            within(s.wait_share, rho, 0.03),
            "rho {rho}: P(wait) {}",
            s.wait_share
        );
    }
}

/// Erlang C: the probability that an arrival waits in M/M/c with offered load `a` = lambda/mu.
fn erlang_c(c: u32, a: f64) -> f64 {
    let mut term = 1.0; // a^k / k!
    let mut sum = 0.0;
    for k in 0..c {
        if k > 0 {
            term *= a / f64::from(k);
        }
        sum += term;
    }
    let top = term * a / f64::from(c) * f64::from(c) / (f64::from(c) - a);
    top / (sum + top)
}

#[test]
fn mm4_probability_of_waiting_is_erlang_c() {
    assert!(
        (erlang_c(1, 0.8) - 0.8).abs() < 1e-12,
        "M/M/1: P(wait) = rho"
    );
    for rate in [200, 320] {
        let q = mmc(4, rate);
        let s = server(&run(&q), &q);
        let want = erlang_c(4, f64::from(rate) / 100.0);
        assert!(
            within(s.wait_share, want, 0.03),
            "lambda {rate}: P(wait) {}, Erlang C {want}: retrylab run '{q}'",
            s.wait_share
        );
    }
}

#[test]
fn littles_law_holds_for_every_queue_and_flaky_server() {
    for q in [
        mmc(1, 80),
        "scenario=outage&server=queue&workers=2&service=20ms&service_dist=lognormal&service_cv=2&rate=90&duration=60s&queue_limit=50&attempt_timeout=300ms&attempts=3&backoff=none".into(),
        "scenario=outage&server=queue&discipline=lifo&workers=4&service=40ms&rate=95&duration=60s&spike_rate=100&spike_start=10s&spike_for=5s&attempt_timeout=1s&attempts=3&backoff=none".into(),
        "scenario=outage&server=queue&server_deadline=on&workers=4&service=40ms&latency_per_inflight=1ms&rate=95&duration=60s&slow=2&slow_start=10s&slow_for=5s&attempt_timeout=1s".into(),
        "scenario=outage&server=flaky&fail=0.3&service=5ms&service_dist=exp&rate=500&duration=60s&arrivals=poisson".into(),
        "scenario=burst&server=queue&workers=8&service=10ms&clients=500&queue_limit=100".into(),
    ] {
        let s = server(&run(&q), &q);
        let l = s.mean_in_system;
        let lambda_w = s.arrivals_per_s * s.mean_time_ms / 1000.0;
        assert!(s.arrived > 0, "{q}");
        assert!(
            within(l, lambda_w, 0.02),
            "L = {l}, lambda W = {lambda_w}: retrylab run '{q}'"
        );
    }
}

#[test]
fn a_flaky_dependency_meets_its_closed_forms() {
    for (f, n) in [(0.05, 1), (0.3, 4), (0.5, 3)] {
        let q = format!(
            "scenario=outage&outage=0ms&server=flaky&fail={f}&attempts={n}&backoff=full&base=10ms&cap=100ms&service=1ms&rate=1000&duration=100s"
        );
        let r = run(&q);
        let success = 1.0 - f64::powi(f, n);
        let per_request: f64 = (0..n).map(|k| f64::powi(f, k)).sum();
        let originals = r.summary.originals as f64;
        // Three standard errors of a binomial share over the run's requests.
        let se = (success * (1.0 - success) / originals).sqrt();
        assert!(
            (r.summary.success_rate - success).abs() <= 3.0 * se + 1e-9,
            "f {f}, N {n}: success {}, 1 - f^N = {success}: retrylab run '{q}'",
            r.summary.success_rate
        );
        assert!(
            within(r.summary.amplification, per_request, 0.01),
            "f {f}, N {n}: attempts per request {}, 1 + f + ... + f^(N-1) = {per_request}: retrylab run '{q}'",
            r.summary.amplification
        );
        // The report prints the same closed forms beside what it measured.
        let cf = r
            .summary
            .server
            .and_then(|s| s.closed_form)
            .expect("a closed form");
        assert!(
            (cf.success - success).abs() < 1e-12,
            "{cf:?} against {success}"
        );
        assert!(
            (cf.amplification - per_request).abs() < 1e-12,
            "{cf:?} against {per_request}"
        );
        let rows = r.summary.rows();
        let row = |k: &str| rows.iter().find(|(l, _)| l == k).map(|(_, v)| v.clone());
        assert_eq!(
            row("closed form 1-f^N"),
            Some(retry_model::percent_people(success))
        );
        assert_eq!(
            row("closed form 1+f+..+f^N-1"),
            Some(format!("{}x", retry_model::sig3(per_request)))
        );
    }
    // The queue server has no such closed form, and prints none.
    let r = run("preset=queue-spike-none");
    assert_eq!(r.summary.server.and_then(|s| s.closed_form), None);
    assert!(!r
        .summary
        .rows()
        .iter()
        .any(|(l, _)| l.starts_with("closed form")));
}

#[test]
fn keys_that_do_not_fit_the_server_are_refused_by_name() {
    for (q, field, words) in [
        (
            "scenario=outage&server=queue&capacity=100",
            "capacity",
            "server=tick",
        ),
        ("scenario=outage&workers=8", "workers", "server=queue"),
        (
            "scenario=outage&server=queue&fail=0.2",
            "fail",
            "server=flaky",
        ),
        ("scenario=outage&service=20ms", "service", "server=tick"),
        (
            "scenario=outage&server=queue&service_cv=2",
            "service_cv",
            "lognormal",
        ),
        (
            "scenario=burst&spike_rate=10",
            "spike_rate",
            "scenario=outage",
        ),
        (
            "scenario=outage&server=queue&workers=0",
            "workers",
            "[1, 100000]",
        ),
        (
            "scenario=outage&server=queue&queue_limit=2000000",
            "queue_limit",
            "1000000",
        ),
        ("scenario=outage&think=2s", "think", "users > 0"),
        (
            "scenario=outage&users=10&arrivals=poisson",
            "arrivals",
            "users > 0",
        ),
        ("scenario=outage&users=200000", "users", "[0, 100000]"),
    ] {
        let e = q.parse::<Params>().unwrap_err();
        assert_eq!(e.field, field, "{q}: {e}");
        assert!(e.to_string().contains(words), "{q}: {e}");
    }
}

#[test]
fn a_closed_loop_obeys_the_response_time_law() {
    // N users, think time Z, response time R: throughput X = N / (R + Z).
    for (users, workers) in [(50, 4), (200, 4), (200, 40)] {
        let q = format!(
            "scenario=outage&outage=0ms&users={users}&think=1s&server=queue&workers={workers}&service=50ms&service_dist=exp&queue_limit=100000&duration=600s&attempts=1&deadline=none&attempt_timeout=1h"
        );
        let r = run(&q);
        let s = server(&r, &q);
        let secs = 600.0;
        let x = r.summary.originals as f64 / secs;
        let resp_s = (s.mean_time_ms + 2.0) / 1000.0; // the server's time plus two 1 ms hops
        let law = f64::from(users) / (resp_s + 1.0);
        assert!(
            within(x, law, 0.03),
            "{users} users: X = {x}/s, N / (R + Z) = {law}/s: retrylab run '{q}'"
        );
        // A closed loop cannot offer more than its users: at most one request out per user.
        assert!(s.mean_in_system <= f64::from(users), "{q}");
    }
    // A spike is capped like the arrivals: refused by name before anything runs.
    let p: Params = "scenario=outage&spike_rate=100000&spike_for=1h&duration=1h"
        .parse()
        .unwrap();
    let e = simulate(&p).unwrap_err();
    assert_eq!(e.field, "spike_rate", "{e}");
    assert!(e.to_string().contains("360000000"), "{e}");
    let e = "scenario=outage&users=10&rate=5"
        .parse::<Params>()
        .unwrap_err();
    assert_eq!(e.field, "rate", "{e}");
    let e = "scenario=outage&users=100000&think=0ms&duration=1h"
        .parse::<Params>()
        .map(|p| retry_model::sim::simulate(&p).unwrap_err())
        .unwrap();
    assert_eq!(e.field, "users", "{e}");
}

#[test]
fn a_capacity_drop_halves_what_every_server_serves_in_its_window() {
    for q in [
        "scenario=outage&outage=0ms&capacity=100&reject_cost=0&rate=200&slow=2&slow_start=3s&slow_for=4s&attempts=1&duration=10s",
        "scenario=outage&outage=0ms&server=queue&workers=1&service=10ms&queue_limit=100000&rate=200&slow=2&slow_start=3s&slow_for=4s&attempts=1&duration=10s&deadline=none&attempt_timeout=1h",
    ] {
        let r = run(q);
        let served = |i: usize| r.series.bins[i].served;
        assert!((98..=102).contains(&served(1)), "before: {}: {q}", served(1));
        for i in 4..=5 {
            assert!((48..=52).contains(&served(i)), "during, bin {i}: {}: {q}", served(i));
        }
        assert!((98..=102).contains(&served(8)), "after: {}: {q}", served(8));
    }
}
