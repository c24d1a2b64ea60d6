//! Simulation behaviour: determinism, conservation, the reference figures, the labs' claims.
//! Failures print the link that reproduces them: `retrylab run '<link>'`.

mod common;

use proptest::prelude::*;
use retry_model::sim::{simulate, Lost, Run, Sim, SimReport};
use retry_model::{Params, StopReason};

fn run(q: &str) -> SimReport {
    let p: Params = q.parse().unwrap_or_else(|e| panic!("{q}: {e}"));
    simulate(&p).unwrap_or_else(|e| panic!("{q}: {e}"))
}

fn ended(r: &SimReport) -> u64 {
    r.summary.successes + r.summary.failures.iter().sum::<u64>()
}

#[test]
fn same_link_same_numbers_other_seed_other_numbers() {
    for q in [
        "preset=burst-lab",
        "preset=metastable-none&duration=20s&arrivals=poisson",
        "preset=occ-2015&runs=3",
        "preset=lost-nokey&duration=10s",
        "preset=layers-333&p=0.5",
    ] {
        let a = run(q);
        let b = run(q);
        assert_eq!(a.fingerprint, b.fingerprint, "retrylab run '{q}'");
        assert_eq!(a.summary, b.summary, "retrylab run '{q}'");
        let c = run(&format!("{q}&seed=99"));
        assert_ne!(
            a.fingerprint, c.fingerprint,
            "seed must matter: retrylab run '{q}&seed=99'"
        );
    }
}

#[test]
fn slices_give_the_same_run_as_one_go() {
    let p: Params = "preset=payments-jitter&duration=20s".parse().unwrap();
    let whole = simulate(&p).unwrap();
    let mut r = Run::new(&p).unwrap();
    let mut last = 0.0;
    let mut slices = 0;
    loop {
        let prog = r.step(97);
        assert!(prog.fraction >= last - 1e-9, "progress never goes back");
        last = prog.fraction;
        slices += 1;
        if prog.done {
            break;
        }
    }
    assert!(slices > 10);
    assert_eq!(r.finish().fingerprint, whole.fingerprint);
}

/// The 2015 simulator at 100 clients, 100 runs (mean write calls, mean completion in ms).
const BROOKER_100: [(&str, f64, f64); 5] = [
    ("none", 2422.0, 2027.0),
    ("exponential", 1854.0, 62862.0),
    ("full", 797.0, 4879.0),
    ("equal", 812.0, 6658.0),
    ("decorrelated", 1003.0, 4531.0),
];

#[test]
fn occ_matches_the_2015_study_within_ten_percent() {
    for (kind, calls, time) in BROOKER_100 {
        let q = format!("preset=occ-2015&backoff={kind}");
        let r = run(&q);
        let (c, t) = (r.summary.attempts as f64, r.summary.completion_ms);
        assert!(
            (c / calls - 1.0).abs() < 0.10,
            "{kind}: {c} calls vs {calls}: retrylab run '{q}'"
        );
        assert!(
            (t / time - 1.0).abs() < 0.10,
            "{kind}: {t} ms vs {time}: retrylab run '{q}'"
        );
        assert_eq!(r.summary.successes, 100);
    }
}

/// Every client count from 10 to 190, every kind: within 10% of the original simulator's mean
/// calls and completion time (100 runs each, like the original).
#[test]
fn occ_matches_the_original_at_every_client_count() {
    const REFERENCE: &str = include_str!("../../../tests/golden/occ_2015_reference.csv");
    let mut cells = 0;
    for line in REFERENCE
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("clients"))
    {
        let f: Vec<&str> = line.split(',').collect();
        let (clients, kind, calls, time): (u32, &str, f64, f64) = (
            f[0].parse().unwrap(),
            f[1],
            f[2].parse().unwrap(),
            f[3].parse().unwrap(),
        );
        let q = format!("preset=occ-2015&backoff={kind}&clients={clients}");
        let r = run(&q);
        let (c, t) = (r.summary.attempts as f64, r.summary.completion_ms);
        assert!(
            (c / calls - 1.0).abs() < 0.10,
            "{clients} {kind}: {c} calls vs {calls}: retrylab run '{q}'"
        );
        assert!(
            (t / time - 1.0).abs() < 0.10,
            "{clients} {kind}: {t} ms vs {time}: retrylab run '{q}'"
        );
        cells += 1;
    }
    assert_eq!(cells, 95);
}

#[test]
fn occ_reproduces_the_posts_verdicts() {
    let get = |k: &str| run(&format!("preset=occ-2015&backoff={k}&runs=30")).summary;
    let (none, exp, full, equal, dec) = (
        get("none"),
        get("exponential"),
        get("full"),
        get("equal"),
        get("decorrelated"),
    );
    assert!(
        full.attempts * 2 < exp.attempts,
        "full jitter more than halves the calls of plain exponential"
    );
    assert!(
        exp.completion_ms > 5.0 * full.completion_ms,
        "no-jitter exponential is the clear loser on time"
    );
    assert!(
        equal.completion_ms > full.completion_ms && equal.completion_ms > dec.completion_ms,
        "equal jitter takes longest of the jittered"
    );
    assert!(
        dec.attempts > full.attempts,
        "decorrelated does more work than full"
    );
    assert!(
        none.completion_ms < full.completion_ms && none.attempts > exp.attempts,
        "no backoff: fastest, most work"
    );
}

#[test]
fn burst_lab_statements_hold() {
    let lab = |extra: &str| run(&format!("preset=burst-lab{extra}")).summary;
    // Immediate and no-jitter exponential tie exactly: identical waves meet an identical server.
    let (imm, exp) = (lab("&backoff=none"), lab("&backoff=exponential"));
    assert_eq!((imm.attempts, imm.successes), (exp.attempts, exp.successes));
    assert_eq!(
        imm.successes, 0,
        "500 attempts in one tick: the rejections eat all 50 slots"
    );
    // Jitter finishes everyone.
    let full = lab("");
    assert_eq!(full.successes, 500);
    // Without rejection cost, or with double capacity, immediate finishes faster, jitter calls less.
    for extra in ["&reject_cost=0", "&capacity=10000"] {
        let (i, j) = (
            lab(&format!("&backoff=none{extra}")),
            lab(&format!("&backoff=full{extra}")),
        );
        assert_eq!(i.successes, 500, "{extra}");
        assert!(
            i.completion_ms < j.completion_ms,
            "{extra}: immediate finishes first"
        );
        assert!(j.attempts < i.attempts, "{extra}: jitter makes fewer calls");
    }
}

#[test]
fn course_project_contrast() {
    let none = run("preset=payments-none").summary;
    let jitter = run("preset=payments-jitter").summary;
    assert_eq!(none.originals, 2400);
    assert!(none.success_rate < 0.10, "the storm: {}", none.success_rate);
    assert!(none.amplification > 50.0, "{}", none.amplification);
    assert!(
        jitter.success_rate > 0.85,
        "the control: {}",
        jitter.success_rate
    );
    assert!(jitter.amplification < 2.0, "{}", jitter.amplification);
    assert!(none.peak_attempts_per_s > 50.0 * jitter.peak_attempts_per_s);
    // The storm outlives the outage: at 30 s the storm still sends far more than the offered 40/s.
    assert!(none.attempts_per_s_at.unwrap() > 1000.0);
    assert!(jitter.attempts_per_s_at.unwrap() < 60.0);
}

#[test]
fn metastable_collapse_and_the_ways_out() {
    let none = run("preset=metastable-none").summary;
    assert!(
        none.success_rate < 0.10,
        "a 1 s outage collapses the rest of the minute: {}",
        none.success_rate
    );
    for q in ["preset=metastable-budget", "preset=metastable-breaker"] {
        let s = run(q).summary;
        assert!(s.success_rate > 0.85, "{q}: {}", s.success_rate);
        assert!(s.amplification < 1.5, "{q}: {}", s.amplification);
    }
    let b = run("preset=metastable-budget").summary;
    assert!(
        b.failures[StopReason::BudgetEmpty.index()] > 0,
        "the budget refused retries"
    );
    let k = run("preset=metastable-breaker").summary;
    assert!(
        k.failures[StopReason::BreakerOpen.index()] > 0,
        "the breaker refused attempts"
    );
}

#[test]
fn layers_multiply() {
    assert_eq!(run("preset=layers-333").summary.amplification, 27.0);
    assert_eq!(
        run("preset=layers-333&layers=4,4,4").summary.amplification,
        64.0
    );
    assert_eq!(
        run("preset=layers-333&layers=3,3,3,3,3&requests=10")
            .summary
            .amplification,
        243.0
    );
    assert_eq!(run("preset=layers-fix").summary.amplification, 3.0);
    let half = run("preset=layers-333&p=0.5&requests=20000").summary;
    // amplify(3,3,3; p=0.5) expects 1.99951... bottom calls per request.
    let expected = retry_model::amplify(&[3, 3, 3], 0.5).unwrap().expected;
    assert!(
        (half.amplification / expected - 1.0).abs() < 0.03,
        "{} vs {expected}",
        half.amplification
    );
}

fn lost_model(q: &str) -> Lost {
    let p: Params = q.parse().unwrap();
    let policy = p.validate().unwrap();
    let Some(retry_model::sim::Scenario::Lost(settings)) = &p.sim.scenario else {
        panic!("{q} is not a lost link");
    };
    let input = retry_model::sim::RunInput::try_from(&p).unwrap();
    let (m, first) = Lost::new(&input, settings, policy, 0);
    let mut s = Sim::new(m, [first]);
    s.run();
    s.model
}

#[test]
fn one_durable_charge_per_checkout_with_a_key() {
    for q in [
        "preset=lost-key",
        "preset=lost-key&service=1500ms",
        "preset=lost-key&lose=0.5&attempts=6",
    ] {
        let m = lost_model(q);
        assert_eq!(m.double_charged, 0, "{q}");
        assert_eq!(
            m.success_not_one, 0,
            "every successful checkout has exactly one charge: {q}"
        );
        assert_eq!(run(q).summary.duplicates, 0, "{q}");
    }
    let m = lost_model("preset=lost-nokey");
    assert!(
        m.double_charged > 50,
        "without a key, retried lost answers charge twice: {}",
        m.double_charged
    );
    // And the honest client (not idempotent, no key) does not retry the read timeouts at all.
    let honest = run("preset=lost-nokey&idempotent=false");
    assert_eq!(honest.summary.duplicates, 0);
    assert!(honest.summary.failures[StopReason::NotRetryable.index()] > 50);
}

#[test]
fn caps_and_bad_keys_are_refused_with_their_key() {
    for (q, field) in [
        (
            "scenario=outage&rate=100000&duration=1h&engine=request",
            "rate",
        ),
        (
            "scenario=outage&rate=100000&duration=1h&engine=population&runs=100",
            "rate",
        ),
        (
            "scenario=outage&limiter=aws-adaptive&limiter_scope=client&clients=101&engine=population",
            "limiter_scope",
        ),
        (
            "scenario=outage&budget=ratio&budget_scope=client&clients=101&engine=population",
            "budget_scope",
        ),
        ("scenario=outage&hedge=on&engine=population", "hedge"),
        (
            "scenario=outage&server=flaky&service_dist=exp&hedge=on&hedge_delay=1s&engine=population",
            "hedge",
        ),
        (
            "scenario=outage&outage_kind=connect_timeout&attempt_timeout=1s&hedge=on&hedge_delay=500ms&engine=population",
            "hedge",
        ),
        (
            "scenario=outage&backoff=decorrelated-v2&budget=bucket&engine=population",
            "budget",
        ),
        (
            "scenario=outage&backoff=decorrelated-v2&retry_after=1s&ra_mode=aws2026&engine=population",
            "ra_mode",
        ),
        (
            "scenario=outage&backoff=full&sorted=true&engine=population",
            "backoff",
        ),
        // No request at all, on either engine (the population engine used to wait forever).
        (
            "scenario=outage&rate=0.001&duration=1s&engine=population",
            "duration",
        ),
        (
            "scenario=outage&rate=0.001&duration=1s&engine=request",
            "duration",
        ),
        (
            "scenario=outage&budget=bucket&budget_scope=client&clients=101&engine=population",
            "budget_scope",
        ),
        ("scenario=occ&clients=5000", "clients"),
        ("scenario=occ&clients=1000&runs=1000", "runs"),
        ("scenario=storm", "scenario"),
        ("scenario=outage&tick=0ms", "tick"),
        ("scenario=outage&reject_cost=2", "reject_cost"),
        ("scenario=burst&runs=0", "runs"),
        ("scenario=outage&breaker_probes=3", "breaker_probes"),
        ("scenario=layers&layers=3,x", "layers"),
        ("attempts=1001", "attempts"),
    ] {
        let err = q
            .parse::<Params>()
            .and_then(|p| simulate(&p).map(|_| ()))
            .unwrap_err();
        assert_eq!(err.field, field, "{q}: {err}");
    }
    let err = simulate(&"attempts=3".parse().unwrap()).unwrap_err();
    assert_eq!(err.field, "scenario");
    // Every cap's message shows the computed number beside the cap (the requests cap used not to).
    for (q, shown) in [
        (
            "scenario=layers&layers=100,100,100&requests=100",
            "= 100000000 exceeds the cap of 50000000",
        ),
        (
            "scenario=occ&clients=1000&runs=1000",
            "= 1000000000 exceeds the cap of 400000000",
        ),
        (
            "scenario=outage&rate=100000&duration=1h&engine=request",
            "= 360000000 requests exceeds",
        ),
    ] {
        let err = q
            .parse::<Params>()
            .and_then(|p| simulate(&p).map(|_| ()))
            .unwrap_err();
        assert!(err.rule.contains(shown), "{q}: {err}");
        // `Run::check` (a sweep's rows) refuses what `Run::new` refuses, in the same words.
        let p: Params = q.parse().unwrap();
        assert_eq!(Run::check(&p).unwrap_err(), err, "{q}");
    }
    for q in [
        "scenario=outage&users=100000&think=1ms",
        "scenario=outage&spike_rate=100000&spike_for=1h&duration=1h",
        "scenario=lost&rate=5000&duration=1h",
    ] {
        let p: Params = q.parse().unwrap_or_else(|e| panic!("{q}: {e}"));
        let new = Run::new(&p).err();
        assert!(new.is_some(), "{q} is over a cap");
        assert_eq!(Run::check(&p).err(), new, "{q}");
    }
    for q in [
        "preset=twin-spike",
        "preset=occ-2015",
        "preset=layers-333",
        "preset=lost-nokey",
    ] {
        let p: Params = q.parse().unwrap();
        assert_eq!(Run::check(&p), Ok(()), "{q}");
    }
}

fn scenario() -> impl Strategy<Value = String> {
    (
        prop_oneof![Just("outage"), Just("burst"), Just("lost")],
        prop_oneof![Just("none"), Just("constant"), Just("exponential"), Just("full"), Just("equal"), Just("decorrelated")],
        1u32..12,
        prop_oneof![Just("none"), Just("aws"), Just("bucket"), Just("ratio"), Just("grpc"), Just("rate")],
        prop_oneof![Just("client"), Just("process"), Just("tenant")],
        (1u64..200, 1u64..8, 0u64..1000, 1u64..200),
        (any::<bool>(), any::<bool>(), any::<u64>(), prop_oneof![Just("503"), Just("connect_timeout")]),
        (1u64..3000, prop_oneof![Just("none"), Just("2s"), Just("500ms")]),
    )
        .prop_map(|(sc, kind, attempts, budget, scope, (rate, dur, rc, clients), (breaker, poisson, seed, ok), (timeout, deadline))| {
            only_applicable(&format!(
                "scenario={sc}&backoff={kind}&attempts={attempts}&budget={budget}&budget_scope={scope}&tenants=3&rate={rate}&duration={dur}s&reject_cost={}&clients={clients}&capacity=60&outage_start=1s&outage=2s&outage_kind={ok}&breaker={}&arrivals={}&seed={seed}&attempt_timeout={timeout}ms&deadline={deadline}&bin=500ms&tick=20ms&service=30ms&lose=0.2&idempotent=true",
                rc as f64 / 1000.0,
                if breaker { "on" } else { "off" },
                if poisson { "poisson" } else { "constant" }
            ))
        })
}

/// The link without the keys that have no effect with its scenario and settings (those are
/// refused; which keys they are is the key table's business, tested elsewhere).
fn only_applicable(q: &str) -> String {
    let mut pairs: Vec<&str> = q.split('&').collect();
    loop {
        let link = pairs.join("&");
        let (p, errors) = Params::parse_lenient(&link);
        let mut refused: Vec<&str> = errors
            .iter()
            .filter(|e| e.rule.contains("has no effect"))
            .map(|e| e.field)
            .collect();
        refused.extend(p.inapplicable(&[]).iter().map(|e| e.field));
        if refused.is_empty() {
            return link;
        }
        pairs.retain(|kv| !refused.iter().any(|k| kv.split('=').next() == Some(k)));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every original ends exactly once, the series adds up to the totals, nothing is left in
    /// flight, and attempts never fall below the requests that got to try.
    #[test]
    fn conservation(q in scenario()) {
        let r = run(&q);
        let s = &r.summary;
        prop_assert_eq!(ended(&r), s.originals, "retrylab run '{}'", q);
        let series_originals: u64 = r.series.bins.iter().map(|b| u64::from(b.originals)).sum();
        let series_attempts: u64 = r.series.bins.iter().map(|b| u64::from(b.attempts)).sum();
        let series_ended: u64 = r.series.bins.iter().map(|b| u64::from(b.successes) + b.failures.iter().map(|f| u64::from(*f)).sum::<u64>()).sum();
        prop_assert_eq!(series_originals, s.originals);
        prop_assert_eq!(series_attempts, s.attempts);
        prop_assert_eq!(series_ended, s.originals);
        prop_assert_eq!(r.series.bins.last().map_or(0, |b| b.in_flight), 0);
        prop_assert!(s.attempts + s.failures[StopReason::BreakerOpen.index()] + s.failures[StopReason::DeadlinePassed.index()] >= s.originals);
        prop_assert!(s.successes <= s.originals);
    }
}

#[test]
fn simulation_fingerprints_are_pinned() {
    const LINKS: &str = include_str!("../../../tests/golden/sim_links.txt");
    const PINNED: &str = include_str!("../../../tests/golden/sim_fingerprints.txt");
    let computed: Vec<String> = common::links(LINKS)
        .map(|q| format!("{:016x} {q}", run(q).fingerprint))
        .collect();
    common::check_pinned("sim_fingerprints.txt", PINNED, &computed, "run");
}

/// Found by hostile input: an attempt timeout no longer than the network delay used to release a
/// checkout while its attempt was still on the wire; the slot was reused and the late attempt
/// was charged to another checkout (1,600 "duplicates" with no retries at all).
#[test]
fn lost_keeps_a_checkout_until_its_attempts_arrive() {
    for q in [
        "scenario=lost&attempt_timeout=1ms",
        "scenario=lost&deadline=1us",
        "scenario=lost&net=50ms&attempt_timeout=40ms",
        "preset=lost-key&deadline=1us",
        "preset=lost-nokey&attempt_timeout=1ms",
    ] {
        let r = run(q);
        let s = &r.summary;
        assert!(
            s.served <= s.attempts,
            "served {} of {} attempts: retrylab run '{q}'",
            s.served,
            s.attempts
        );
        let retries = s.attempts - s.originals;
        assert!(
            s.duplicates <= retries,
            "{} duplicate charges from {retries} retries: retrylab run '{q}'",
            s.duplicates
        );
        assert_eq!(ended(&r), s.originals, "retrylab run '{q}'");
    }
    // Without retries every attempt reaches the endpoint once and is charged once.
    let r = run("scenario=lost&attempt_timeout=1ms");
    assert_eq!(r.summary.attempts, r.summary.originals);
    assert_eq!(r.summary.duplicates, 0);
    assert_eq!(r.summary.served, r.summary.attempts);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Found by hostile input: the tick server banked less than a slot, so a server with less
    /// than one slot per tick served almost nothing (40/s against 50/s at a 10 ms tick: 63.5%).
    /// A server of capacity c serves every attempt of constant arrivals below c, for any tick
    /// from 100 us to 1 s and any c from 0.001 to 100000 per second.
    #[test]
    fn a_server_below_capacity_serves_everything(
        c_milli in prop_oneof![1u64..1_000, 1_000u64..100_000, 100_000u64..100_000_000],
        share in 1u64..1000,
        tick_us in prop_oneof![100u64..1_000, 1_000u64..100_000, 100_000u64..=1_000_000],
    ) {
        let rate_milli = c_milli * share / 1000;
        prop_assume!(rate_milli >= 1 && rate_milli < c_milli);
        let duration_ms = (2_000_000_000 / rate_milli).clamp(1, 3_600_000);
        let q = format!(
            "scenario=outage&outage=0s&attempts=1&deadline=none&attempt_timeout=3s&rate={}&capacity={}&tick={tick_us}us&duration={duration_ms}ms",
            text(rate_milli), text(c_milli)
        );
        let s = run(&q).summary;
        prop_assert!(s.originals > 0);
        prop_assert_eq!(s.successes, s.originals, "retrylab run '{}'", q);
    }
}

/// Thousandths as the link writes them.
fn text(milli: u64) -> String {
    if milli.is_multiple_of(1000) {
        format!("{}", milli / 1000)
    } else {
        format!("{}.{:03}", milli / 1000, milli % 1000)
    }
}

#[test]
fn the_issue_examples_of_a_slow_tick_server() {
    for q in [
        "scenario=outage&rate=40&capacity=50&outage=0s&duration=60s&seed=42",
        "scenario=outage&rate=45&capacity=50&tick=1ms&outage=0s&duration=60s",
    ] {
        let s = run(q).summary;
        assert_eq!(s.successes, s.originals, "retrylab run '{q}'");
        assert_eq!(
            s.attempts, s.originals,
            "no retries needed: retrylab run '{q}'"
        );
    }
}

/// Progress is honest: `layers` runs in slices too, and a run without a deadline whose waits
/// outlast the old 60 s guess does not read 100% while it goes on.
#[test]
fn progress_is_sliced_and_never_done_early() {
    for q in [
        "preset=layers-333&requests=200",
        "scenario=outage&deadline=none&backoff=constant&base=30s&cap=30s&attempts=4&outage=10s&outage_start=0s&duration=2s&rate=5",
    ] {
        let p: Params = q.parse().unwrap();
        let mut r = Run::new(&p).unwrap();
        let (mut slices, mut last) = (0, 0.0);
        loop {
            let prog = r.step(1);
            slices += 1;
            if prog.done {
                assert_eq!(prog.fraction, 1.0);
                break;
            }
            assert!(prog.fraction < 1.0, "{q}: {} before the end", prog.fraction);
            assert!(prog.fraction >= last, "{q}: progress went back");
            last = prog.fraction;
        }
        assert!(slices > 5, "{q}: ran in {slices} slices");
        // Layers count requests done; the storm counts simulated time against the longest a
        // request can last (here 4 x 3 s + 3 x 30 s after the last arrival), an upper bound.
        assert!(last > 0.25, "{q}: the last progress before the end was {last}");
        let whole = simulate(&p).unwrap();
        assert_eq!(r.finish().fingerprint, whole.fingerprint, "{q}");
    }
}
