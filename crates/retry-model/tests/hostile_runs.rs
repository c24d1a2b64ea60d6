//! Hostile runs: links that used to exhaust memory, freeze progress or do nothing
//! silently, each pinned here.

use retry_model::sim::Run;
use retry_model::Params;

/// Progress after each of up to `slices` slices of `events` events, until the run is done.
fn progress(link: &str, slices: usize, events: u64) -> Vec<f64> {
    let p: Params = link.parse().unwrap();
    let mut run = Run::new(&p).unwrap();
    let mut seen = Vec::new();
    for _ in 0..slices {
        let s = run.step(events);
        if s.done {
            break;
        }
        seen.push(s.fraction);
    }
    assert!(seen.len() >= 3, "{link}: too few slices to judge: {seen:?}");
    seen
}

fn strictly_growing(name: &str, v: &[f64]) {
    for w in v.windows(2) {
        assert!(w[1] > w[0], "{name}: progress stood still: {v:?}");
    }
}

#[test]
fn a_day_long_timeout_on_a_slow_queue_still_shows_progress() {
    // The longest request is 100 x 24 h, so the clock alone said 0.0 % for minutes; and every
    // answered attempt's timeout used to wait in memory for its day (6 GB before the abort).
    let link = "scenario=outage&rate=1000&duration=2000s&server=queue&workers=1&service=60s&deadline=none&attempt_timeout=24h&attempts=100&backoff=none&engine=request";
    strictly_growing("queue", &progress(link, 4, 300_000));
}

#[test]
fn a_dependency_that_always_fails_shows_progress() {
    let link = "scenario=outage&rate=1000&duration=2000s&server=flaky&fail=1&attempts=100&backoff=none&deadline=none&outage=0ms&engine=request";
    strictly_growing("flaky", &progress(link, 4, 300_000));
}

#[test]
fn compacting_timeouts_changes_no_number() {
    // Fast answers (50 ms) with timeouts that never fire: the answered timeouts pile up and
    // the lane is compacted, at other moments for a day's timeout than for a minute's. Neither
    // timeout fires, so both runs must be the same, number for number.
    let link = "scenario=outage&rate=2000&duration=20s&server=flaky&fail=0.9&attempts=20&backoff=none&deadline=none&outage=0ms&attempt_timeout=";
    let run = |t: &str| {
        let p: Params = format!("{link}{t}").parse().unwrap();
        retry_model::sim::simulate(&p).unwrap()
    };
    let (a, b) = (run("24h"), run("1m"));
    assert_eq!(a.fingerprint, b.fingerprint);
    assert_eq!(a.summary, b.summary);
    let s = &a.summary;
    let failed: u64 = s.failures.iter().sum();
    assert_eq!(s.successes + failed, s.originals, "{s:?}");
    assert!(
        s.attempts > 5 * s.originals,
        "a storm of fast answers: {s:?}"
    );
}

#[test]
fn a_trigger_after_the_run_is_refused() {
    for (link, key) in [
        (
            "scenario=outage&duration=20s&spike_rate=100&spike_for=1s&spike_start=20s",
            "spike_start",
        ),
        (
            "scenario=outage&duration=20s&slow=2&slow_for=1s&slow_start=25s",
            "slow_start",
        ),
    ] {
        let p: Params = link.parse().unwrap();
        let e = Run::new(&p).err().unwrap_or_else(|| panic!("{link} ran"));
        assert_eq!(e.field, key);
        assert!(e.rule.contains("[0, 20s)"), "{e}");
    }
    // Just inside still runs.
    let p: Params = "scenario=outage&duration=20s&spike_rate=100&spike_for=1s&spike_start=19s"
        .parse()
        .unwrap();
    assert!(Run::new(&p).is_ok());
}

#[test]
fn the_deadline_key_says_it_refuses_zero() {
    let row = retry_model::link_keys::TABLE
        .iter()
        .find(|k| k.name == "deadline")
        .unwrap();
    let text = row.domain.accepted();
    assert!(!text.contains("[0,"), "{text}");
    let e = "deadline=0ms".parse::<Params>().unwrap_err();
    assert_eq!(e.field, "deadline");
}

#[test]
fn a_key_is_refused_only_where_nothing_uses_it() {
    // The base link does not use `base` (backoff=none), but the sweep's `full` rows do.
    let p: Params = "scenario=burst&clients=50&backoff=none&base=20ms&sweep.backoff=none,full"
        .parse()
        .unwrap();
    let rows = p.sweep_rows(&p.sweep().unwrap().axes).unwrap();
    assert_eq!(
        rows[0].1.get("base").as_deref(),
        Some("100ms"),
        "left out where unused"
    );
    assert_eq!(rows[1].1.get("base").as_deref(), Some("20ms"));
    assert!(
        p.to_string().contains("base=20ms"),
        "the link keeps it: {p}"
    );
    // No row uses it: refused, naming the key.
    let e = "scenario=burst&clients=50&base=20ms&sweep.backoff=none"
        .parse::<Params>()
        .unwrap_err();
    assert!(
        e.rule.contains("base:") && e.rule.contains("every row"),
        "{e}"
    );
    // Side B uses A's `base`; A (backoff=none) does not.
    let c: Params = "scenario=burst&clients=50&backoff=none&base=20ms&b.backoff=full"
        .parse()
        .unwrap();
    assert_eq!(c.side_b().unwrap().get("base").as_deref(), Some("20ms"));
    assert!(c.side_a().validate().is_ok());
    // B does not use A's `base`: B leaves it out, A keeps it.
    let c: Params = "scenario=burst&clients=50&base=20ms&b.backoff=none"
        .parse()
        .unwrap();
    assert_eq!(c.side_a().get("base").as_deref(), Some("20ms"));
    assert!(c.side_b().unwrap().validate().is_ok());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Extreme links on the queue and flaky servers, long timeouts and slow service included:
    /// each is refused by name or runs, and while it runs its progress never stands still nor
    /// goes back (slices of 20,000 events, a few of them).
    #[test]
    fn queue_and_flaky_extremes_run_with_moving_progress(
        server in proptest::sample::select(vec!["queue", "flaky"]),
        timeout_s in proptest::sample::select(vec![1u64, 60, 3600, 86_400]),
        service_ms in proptest::sample::select(vec![1u64, 50, 5_000, 60_000]),
        attempts in proptest::sample::select(vec![1u32, 10, 1000]),
        rate in proptest::sample::select(vec![10u32, 1000]),
        duration_s in proptest::sample::select(vec![10u64, 2000]),
        backoff in proptest::sample::select(vec!["none", "full"]),
    ) {
        let link = format!(
            "scenario=outage&server={server}&rate={rate}&duration={duration_s}s&attempt_timeout={timeout_s}s&attempts={attempts}&backoff={backoff}&deadline=none{}",
            if server == "queue" { format!("&workers=1&service={service_ms}ms") } else { "&fail=0.9&outage=0ms".to_string() }
        );
        let p: Params = match link.parse() {
            Ok(p) => p,
            Err(e) => {
                proptest::prop_assert!(!e.field.is_empty(), "{link}: {e}");
                return Ok(());
            }
        };
        let mut run = match Run::new(&p) {
            Ok(r) => r,
            Err(e) => {
                proptest::prop_assert!(!e.field.is_empty(), "{link}: {e}");
                return Ok(());
            }
        };
        let mut last = -1.0;
        for _ in 0..4 {
            let s = run.step(20_000);
            if s.done {
                break;
            }
            proptest::prop_assert!(s.fraction > last, "{link}: progress {} after {last}", s.fraction);
            last = s.fraction;
        }
    }
}

#[test]
fn a_spike_past_the_runs_end_counts_only_its_part_inside_the_run() {
    // 30,000/s for 120 s from 10 s of a 60 s run: 1.5 M requests inside the run, not 3.6 M.
    let p: Params =
        "preset=queue-spike-none&duration=60s&spike_start=10s&spike_rate=30000&spike_for=120s"
            .parse()
            .unwrap();
    let Some(retry_model::sim::Scenario::Outage(o)) = &p.sim.scenario else {
        panic!("an outage link");
    };
    assert_eq!(o.spike_requests(), 1_500_000);
    assert!(Run::check(&p).is_ok());
    // A spike of 10.8 M requests inside a longer run is over the cap, and refused by name.
    let long: Params =
        "preset=queue-spike-none&duration=130s&spike_start=10s&spike_rate=90000&spike_for=120s"
            .parse()
            .unwrap();
    assert_eq!(Run::check(&long).unwrap_err().field, "spike_rate");
}

fn refused(link: &str) -> retry_model::ConfigError {
    let p: Params = link.parse().unwrap();
    Run::check(&p)
        .err()
        .unwrap_or_else(|| panic!("{link} was accepted"))
}

#[test]
fn many_cheap_requests_run_while_a_storm_of_attempts_is_refused_with_its_estimate() {
    // 2.4 million requests with jitter: over the old cap of requests, a few attempts each.
    let p: Params = "scenario=outage&rate=20000&duration=120s".parse().unwrap();
    assert!(Run::check(&p).is_ok());
    // 2 million requests, each up to 201 attempts in its 10 s deadline at a 50 ms tick: over
    // the per-request engine's cap (the population engine, which `engine=auto` picks, runs it).
    let big = "preset=payments-none&rate=20000&capacity=25000&duration=100s";
    assert!(Run::check(&big.parse::<Params>().unwrap()).is_ok());
    let e = refused(&format!("{big}&engine=request"));
    assert_eq!(e.field, "rate");
    assert!(e.rule.contains("up to 402 million attempts"), "{e}");
    assert!(
        e.rule.contains("2 million requests x up to 201 each"),
        "{e}"
    );
    assert!(e.rule.contains("10 s deadline at 50 ms each"), "{e}");
    assert!(e.rule.contains("s natively"), "{e}");
    // A tenth of it runs.
    let p: Params = "preset=payments-none&rate=2000&capacity=2500&duration=100s"
        .parse()
        .unwrap();
    assert!(Run::check(&p).is_ok());
    // A burst's clients are capped by their attempts too.
    let e =
        refused("scenario=burst&clients=10000&attempts=1000&deadline=none&runs=100&engine=request");
    assert_eq!(e.field, "clients");
    assert!(e.rule.contains("lower clients, runs or attempts"), "{e}");
    assert!(
        e.rule
            .contains("up to 1 billion attempts (10000 requests x 100 runs"),
        "{e}"
    );
    // Repetitions multiply the work.
    let e = refused(
        "preset=payments-none&rate=2000&capacity=2500&duration=100s&runs=10&engine=request",
    );
    assert!(e.rule.contains("x 10 runs"), "{e}");
}

#[test]
fn requests_that_could_all_wait_at_once_are_refused_by_their_memory() {
    // With a limiter and no deadline every request may wait for a token at once: too many for
    // the per-request engine, while the population engine holds them as cohorts in line.
    let link =
        "scenario=outage&rate=10000&duration=300s&limiter=aws-adaptive&attempts=1&deadline=none";
    assert!(Run::check(&link.parse::<Params>().unwrap()).is_ok());
    let e = refused(&format!("{link}&engine=request"));
    assert_eq!(e.field, "deadline");
    assert!(e.rule.contains("all 3 million requests may wait"), "{e}");
    assert!(e.rule.contains("MB"), "{e}");
    // With a deadline they cannot outlive it by much.
    let p: Params =
        "scenario=outage&rate=10000&duration=300s&limiter=aws-adaptive&attempts=1&deadline=10s"
            .parse()
            .unwrap();
    assert!(Run::check(&p).is_ok());
}

#[test]
fn the_limiter_at_the_cap_keeps_each_request_small() {
    // Every one of 2 million requests waits for a token at once: its memory follows the
    // request's size (80 bytes, checked at compile time), and it runs.
    let p: Params = "scenario=outage&rate=555.555&duration=3600s&limiter=aws-adaptive&outage=24h&attempts=100&backoff=none&deadline=none"
        .parse()
        .unwrap();
    let s = retry_model::sim::simulate(&p).unwrap().summary;
    assert_eq!(s.originals, 1_999_998);
}

#[test]
fn an_estimate_just_over_its_cap_reads_apart_from_the_cap() {
    // 1,000.2/s for a request's longest life of 2000 s (1990 s + 10 s): just over 2 million.
    let e = refused(
        "scenario=outage&rate=1000.2&duration=3000s&deadline=1990s&attempts=1&engine=request",
    );
    assert_eq!(e.field, "rate");
    assert!(e.rule.contains("up to 2000400 requests in flight"), "{e}");
    assert!(e.rule.contains("over the cap of 2 million"), "{e}");
}
