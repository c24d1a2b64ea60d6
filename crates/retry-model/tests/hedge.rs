//! Hedging in the storms (`hedge=on`, gRPC A6's rules): the two presets show what they claim
//! (a long tail cut at little cost; a slow-down that makes every request hedge and doubles the
//! load), and each rule holds: at most `hedge_max` attempts, a non-fatal failure sends the next
//! at once, a fatal one ends the request, the budget throttles hedges, the first success wins
//! and the others are cancelled.

use retry_model::sim::{simulate, SimReport, Summary};
use retry_model::Params;

fn run(q: &str) -> SimReport {
    simulate(&q.parse::<Params>().unwrap_or_else(|e| panic!("{q}: {e}"))).unwrap()
}

fn failed(s: &Summary, name: &str) -> u64 {
    let i = retry_model::StopReason::ALL
        .iter()
        .position(|r| r.name() == name)
        .unwrap();
    s.failures[i]
}

#[test]
fn hedging_cuts_the_long_tail_tenfold_for_little_extra_load() {
    let hedged = run("preset=hedge-tail").summary;
    let plain = run("preset=hedge-tail&hedge=off").summary;
    let (with, without) = (hedged.p999_ms.unwrap(), plain.p999_ms.unwrap());
    // One answer in 200 takes 500 ms: without hedging the p99.9 is that tail.
    assert!(without > 450.0, "{without}");
    assert!(
        with * 10.0 <= without,
        "p99.9 {with} ms against {without} ms"
    );
    let h = hedged.hedge.unwrap();
    assert!(h.extra_load < 0.10, "{h:?}");
    assert!(h.sent > 0 && h.won > 0 && h.won <= h.sent, "{h:?}");
    assert_eq!(h.extra_load, h.sent as f64 / hedged.originals as f64);
    assert_eq!(hedged.attempts, hedged.originals + h.sent);
    assert_eq!(hedged.success_rate, 1.0);
    assert!(plain.hedge.is_none());
    // The median is the fast answer either way.
    assert_eq!(hedged.p50_ms, plain.p50_ms);
}

#[test]
fn a_slow_down_makes_every_request_hedge_and_doubles_the_load() {
    let hedged = run("preset=hedge-overload").summary;
    let plain = run("preset=hedge-overload&hedge=off").summary;
    // The queue copes with the slow-down alone...
    assert!(plain.success_rate > 0.99, "{}", plain.success_rate);
    // ...but every answer now takes longer than the hedging delay: two attempts a request.
    assert!(
        hedged.peak_attempts_per_s >= 1.9 * plain.peak_attempts_per_s,
        "{} against {}",
        hedged.peak_attempts_per_s,
        plain.peak_attempts_per_s
    );
    assert!(hedged.success_rate < 0.9, "{}", hedged.success_rate);
    assert!(hedged.p999_ms > plain.p999_ms);
    let h = hedged.hedge.unwrap();
    // The slow-down is a third of the run: about a third more attempts over the whole run.
    assert!(h.extra_load > 0.3, "{h:?}");
    assert!(h.cancelled > 0 && h.wasted > 0, "{h:?}");
}

#[test]
fn a_request_makes_at_most_hedge_max_attempts_and_a_retryable_failure_sends_the_next_at_once() {
    // Every attempt fails with a 503 the policy would retry: each request makes all its
    // attempts, the later ones at once after each failure (the delay of 1 s never comes).
    let q = "scenario=outage&outage=0ms&server=flaky&fail=1&service=5ms&rate=100&duration=5s&idempotent=true&hedge=on&hedge_delay=1s";
    for max in 2..=5u64 {
        let s = run(&format!("{q}&hedge_max={max}")).summary;
        assert_eq!(s.attempts, max * s.originals, "hedge_max={max}");
        assert_eq!(failed(&s, "attempts_used_up"), s.originals);
        // Each attempt takes 5 ms plus 1 ms each way, one after the other.
        let one = 7.0 * max as f64;
        assert!(s.completion_ms < 5000.0 + one + 1.0, "{}", s.completion_ms);
    }
}

#[test]
fn a_failure_the_policy_would_not_retry_ends_the_request() {
    // The client's list of retryable statuses leaves 503 out: a 503 is fatal.
    let q = "scenario=outage&outage=0ms&server=flaky&fail=1&service=5ms&rate=100&duration=5s&idempotent=true&hedge=on&hedge_delay=1s&hedge_max=3&retry_on=500";
    let s = run(q).summary;
    assert_eq!(s.attempts, s.originals);
    assert_eq!(failed(&s, "not_retryable"), s.originals);
}

#[test]
fn the_retry_budget_throttles_hedges() {
    let q = "scenario=outage&outage=0ms&server=flaky&fail=1&service=5ms&rate=100&duration=5s&idempotent=true&hedge=on&hedge_delay=1s&hedge_max=3";
    let free = run(q).summary;
    let throttled = run(&format!("{q}&budget=grpc")).summary;
    assert_eq!(free.attempts, 3 * free.originals);
    // gRPC's throttle (10 tokens, a failure takes 1, throttled at half) stops the hedges
    // within a few requests: nearly every request then makes its first attempt only.
    assert!(
        throttled.attempts < free.originals + 20,
        "{}",
        throttled.attempts
    );
    assert!(failed(&throttled, "budget_empty") > throttled.originals * 9 / 10);
}

#[test]
fn with_no_delay_every_attempt_goes_at_once_and_the_first_answer_wins() {
    let q = "scenario=outage&outage=0ms&server=queue&workers=100&service=20ms&service_dist=exp&rate=50&duration=10s&idempotent=true&hedge=on&hedge_delay=0ms&hedge_max=3";
    let s = run(q).summary;
    assert_eq!(s.attempts, 3 * s.originals);
    assert_eq!(s.success_rate, 1.0);
    // The fastest of three exponential services: a third of the mean, so the median request
    // is well under the single service's median (20 ms x ln 2 = 13.9 ms, plus 2 ms of network).
    let single = run(&q.replace("&hedge=on&hedge_delay=0ms&hedge_max=3", "&attempts=1")).summary;
    assert!(
        s.p50_ms.unwrap() < single.p50_ms.unwrap() * 0.6,
        "{:?} against {:?}",
        s.p50_ms,
        single.p50_ms
    );
    let h = s.hedge.unwrap();
    assert_eq!(h.sent, 2 * s.originals);
    // Two of three attempts lose, and with workers free each still does its work. A loser
    // that ends within the winner's 1 ms on the network is answered and ignored; the others
    // end after the request is over and count as work after the winner.
    assert!(h.wasted <= 2 * s.originals, "{h:?}");
    assert!(h.wasted * 10 >= 2 * s.originals * 9, "{h:?}");
}

#[test]
fn a_cancelled_attempt_waiting_in_the_queue_is_dropped_unstarted() {
    // One worker, and all three attempts sent at once. The worker serves the first and takes
    // the second as it finishes, before the first answer has reached its client (1 ms away),
    // so that one runs and is wasted; the third is cancelled before the worker reaches it.
    let q = "scenario=outage&outage=0ms&server=queue&workers=1&service=10ms&rate=10&duration=10s&idempotent=true&hedge=on&hedge_delay=0ms&hedge_max=3";
    let r = run(q);
    let h = r.summary.hedge.unwrap();
    assert_eq!(h.cancelled, r.summary.originals, "{h:?}");
    assert_eq!(h.wasted, r.summary.originals, "{h:?}");
    assert_eq!(h.won, 0);
    let server = r.summary.server.unwrap();
    assert!((server.throughput_per_s / server.goodput_per_s - 2.0).abs() < 0.01);
}

#[test]
fn the_same_link_gives_the_same_numbers() {
    let a = run("preset=hedge-overload");
    let b = run("preset=hedge-overload");
    assert_eq!(a.fingerprint, b.fingerprint);
    assert_eq!(a.summary, b.summary);
    assert_ne!(
        a.fingerprint,
        run("preset=hedge-overload&seed=2").fingerprint
    );
}

#[test]
fn a_bimodal_service_has_the_mean_of_its_two_values() {
    let s = run("scenario=outage&outage=0ms&server=flaky&fail=0&service_dist=mix&service=10ms&service_tail=200ms&service_tail_p=0.1&rate=200&duration=30s")
        .summary;
    // 0.9 x 10 ms + 0.1 x 200 ms = 29 ms at the server.
    let mean = s.server.unwrap().mean_time_ms;
    assert!((mean / 29.0 - 1.0).abs() < 0.05, "{mean}");
    // A tenth of the answers are slow: the p99 is the slow value plus the network.
    let p99 = s.p99_ms.unwrap();
    assert!((p99 / 202.0 - 1.0).abs() < 0.02, "{p99}");
}

#[test]
fn hedging_refuses_what_it_replaces_and_what_it_does_not_run_beside() {
    for (q, field, words) in [
        (
            "preset=hedge-tail&attempts=4",
            "attempts",
            "hedge_max counts",
        ),
        (
            "preset=hedge-tail&backoff=full",
            "backoff",
            "never after a backoff",
        ),
        (
            "preset=hedge-tail&jitter=mult",
            "jitter",
            "never after a backoff",
        ),
        ("preset=hedge-tail&ra_mode=cap", "ra_mode", "Retry-After"),
        ("preset=hedge-tail&breaker=on", "breaker", "not run beside"),
        (
            "preset=hedge-tail&limiter=aws-adaptive",
            "limiter",
            "not run beside",
        ),
        (
            "scenario=outage&hedge_delay=5ms",
            "hedge_delay",
            "unless hedge=on",
        ),
        (
            "scenario=outage&hedge_max=3",
            "hedge_max",
            "unless hedge=on",
        ),
        (
            "scenario=outage&service_tail=1s",
            "service_tail",
            "service_dist=mix",
        ),
        ("scenario=lost&hedge=on", "hedge", "outage, burst"),
        (
            "scenario=outage&hedge=on&hedge_max=6",
            "hedge_max",
            "[2, 5]",
        ),
        (
            "scenario=outage&hedge=on&hedge_max=1",
            "hedge_max",
            "[2, 5]",
        ),
        ("scenario=outage&hedge=maybe", "hedge", "one of off, on"),
    ] {
        let e = q.parse::<Params>().unwrap_err();
        assert_eq!(e.field, field, "{q}: {e}");
        assert!(e.to_string().contains(words), "{q}: {e}");
    }
    // What a hedged request does read is accepted.
    "preset=hedge-tail&deadline=5s&attempt_timeout=500ms&budget=grpc&retry_on=500-599&hedge_max=5&hedge_delay=0ms"
        .parse::<Params>()
        .unwrap();
}

#[test]
fn hedging_works_against_the_tick_server_and_in_a_burst() {
    let tick = run("scenario=outage&outage=2s&outage_start=1s&rate=50&duration=5s&hedge=on&hedge_delay=20ms&hedge_max=3&idempotent=true").summary;
    // The outage's 503s are retryable: each request in it sends its three attempts.
    assert!(tick.hedge.unwrap().sent >= 2 * 100, "{:?}", tick.hedge);
    assert!(tick.attempts <= 3 * tick.originals);
    let burst = run("scenario=burst&clients=200&hedge=on&hedge_delay=5ms&hedge_max=2").summary;
    assert!(burst.attempts <= 2 * burst.originals);
    assert!(burst.hedge.is_some());
}
