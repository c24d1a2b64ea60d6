//! The adaptive rate limiter in the storms: it turns on at the first throttling answer, holds
//! a retry storm down, changes nothing where nothing is throttled, and is refused where it
//! cannot act. (Its arithmetic is checked against botocore in retry-engine's tests.)

use retry_model::sim::simulate;
use retry_model::Params;

fn run(q: &str) -> retry_model::sim::SimReport {
    simulate(&q.parse::<Params>().unwrap()).unwrap()
}

#[test]
fn the_limiter_holds_the_payments_storm_down() {
    let storm = run("preset=payments-none");
    let limited = run("preset=payments-none&limiter=aws-adaptive");
    assert!(
        storm.summary.success_rate < 0.1,
        "{}",
        storm.summary.success_rate
    );
    assert!(storm.summary.amplification > 100.0);
    let s = &limited.summary;
    assert!(s.success_rate > 0.9, "{}", s.success_rate);
    assert!(s.amplification < 1.2, "{}", s.amplification);
    let l = s.limiter.unwrap();
    assert!(l.throttles > 0 && l.waited > 1000, "{l:?}");
    assert!(l.mean_wait_ms > 0.0 && l.allowed_per_s > 0.5, "{l:?}");
    // The allowed rate is drawn over time: zero before the first throttle, then at least 0.5/s.
    let rates = limited.series.rates();
    assert_eq!(rates[0].limiter, 0.0);
    assert!(rates
        .iter()
        .skip_while(|r| r.limiter == 0.0)
        .all(|r| r.limiter >= 0.5));
    // Same link, same numbers; per-client limiters give other ones.
    assert_eq!(
        run("preset=payments-none&limiter=aws-adaptive").fingerprint,
        limited.fingerprint
    );
    let per_client = run("preset=payments-none&limiter=aws-adaptive&limiter_scope=client");
    assert_ne!(per_client.fingerprint, limited.fingerprint);
}

#[test]
fn without_a_throttling_answer_the_limiter_changes_nothing() {
    let q = "scenario=outage&rate=20&duration=20s&outage=0ms&capacity=100";
    let plain = run(q);
    let with = run(&format!("{q}&limiter=aws-adaptive"));
    assert_eq!(plain.summary.attempts, with.summary.attempts);
    assert_eq!(plain.summary.successes, with.summary.successes);
    assert_eq!(plain.summary.p99_ms, with.summary.p99_ms);
    let l = with.summary.limiter.unwrap();
    assert_eq!((l.throttles, l.waited, l.allowed_per_s), (0, 0, 0.0));
    // Zero, not -0 (an empty float sum), which the JSON would print as -0.0.
    assert!(l.allowed_per_s.is_sign_positive());
    assert!(plain.summary.limiter.is_none());
}

#[test]
fn the_limiter_is_refused_where_it_cannot_act() {
    for (q, field) in [
        ("preset=payments-none&limiter_scope=client", "limiter_scope"),
        ("scenario=lost&limiter=aws-adaptive", "limiter"),
        ("limiter=aws-adaptive", "limiter"),
    ] {
        let (_, errors) = Params::parse_lenient(q);
        assert!(errors.iter().any(|e| e.field == field), "{q}: {errors:?}");
    }
}
