//! The tuner (`retry_model::tune`), checked for what it promises: its frontier is
//! non-dominated, each point's link alone gives the figures it reports, a case with a known
//! answer is found, and a dominated policy is never on the frontier.

use retry_model::sim::{simulate, Summary};
use retry_model::tune::{dominates, search, search_over, Limits, Tuned, DISTINCT};
use retry_model::Params;

fn summary(link: &str) -> Summary {
    let p: Params = link.parse().unwrap_or_else(|e| panic!("{link}: {e}"));
    simulate(&p)
        .unwrap_or_else(|e| panic!("{link}: {e}"))
        .summary
}

/// The link a policy runs under a weather: as `retrylab tune` builds it.
fn link(base: &str, weather: &str, keys: &str, runs: u32) -> String {
    retry_model::tune::policy_link(base, &[weather, keys, &format!("runs={runs}")])
        .unwrap()
        .0
}

fn tune(base: &str, weathers: &[&str], n: usize, runs: u32, limits: &Limits) -> Tuned {
    let mut eval = |batch: &[String], r: u32| -> Result<Vec<Vec<Summary>>, String> {
        Ok(batch
            .iter()
            .map(|k| {
                weathers
                    .iter()
                    .map(|w| summary(&link(base, w, k, r)))
                    .collect()
            })
            .collect())
    };
    search(1, n, runs, limits, &mut eval).unwrap()
}

const PAYMENTS: &str = "preset=payments-none";
const WEATHERS: [&str; 2] = [
    "outage=5s",
    "outage=0ms&spike_start=10s&spike_for=10s&spike_rate=40",
];

#[test]
fn the_frontier_is_non_dominated_and_each_point_reproduces_alone() {
    let t = tune(PAYMENTS, &WEATHERS, 24, 4, &Limits::default());
    assert!(!t.frontier.is_empty());
    for a in &t.frontier {
        for b in &t.frontier {
            assert!(
                !dominates(a, b),
                "{} dominates {} on the frontier",
                a.keys,
                b.keys
            );
        }
        assert!(
            !dominates(&t.yours, a),
            "the user's policy dominates {}",
            a.keys
        );
        for (w, s) in WEATHERS.iter().zip(&a.by_weather) {
            assert_eq!(
                &summary(&link(PAYMENTS, w, &a.keys, a.runs)),
                s,
                "{} under {w}",
                a.keys
            );
        }
    }
    // payments-none retries without limit: the tuner's answer must beat it.
    let by = t.better.expect("payments-none is dominated");
    assert!(dominates(&t.frontier[by], &t.yours));
    // Deterministic: the same link and seed give the same frontier.
    assert_eq!(t, tune(PAYMENTS, &WEATHERS, 24, 4, &Limits::default()));
}

/// A flaky dependency failing half its calls, no outage, no capacity limit: N attempts give
/// success 1 - 0.5^N and 1 + 0.5 + ... + 0.5^(N-1) attempts per original. Under a cap of 1.8
/// attempts per original the most success is N = 3 (1.75 attempts, 87.5%); N = 4 needs 1.875.
#[test]
fn a_known_answer_is_found_under_a_load_cap() {
    let base = "scenario=outage&server=flaky&fail=0.5&service=10ms&outage=0ms&rate=100&duration=20s&idempotent=true&deadline=none";
    let limits = Limits {
        max_amplification: Some(1.8),
        ..Limits::default()
    };
    let t = tune(base, &["outage=0ms"], DISTINCT, 2, &limits);
    let best = &t.frontier[0];
    assert!(
        // No budget: `budget=none`, or the link's own, which is none.
        best.keys.starts_with("attempts=3&") && !best.keys.contains("budget=ratio"),
        "{}",
        best.keys
    );
    let s = &best.by_weather[0];
    assert!((s.success_rate - 0.875).abs() < 0.02, "{}", s.success_rate);
    assert!((s.amplification - 1.75).abs() < 0.03, "{}", s.amplification);
    // Every point keeps to the cap in every weather.
    assert!(t
        .frontier
        .iter()
        .all(|p| p.feasible && p.by_weather.iter().all(|s| s.amplification <= 1.8)));
}

/// Policies made to lose (every attempt cut off at 1 ms, before the 50 ms service ends: no
/// success, as much load or more, no p99) are never on the frontier, whatever else is searched.
#[test]
fn a_deliberately_dominated_policy_is_never_on_the_frontier() {
    let losers = [
        "attempts=1&attempt_timeout=1ms",
        "attempts=3&backoff=none&attempt_timeout=1ms&budget=none",
    ];
    let mut pool: Vec<String> = losers.iter().map(|k| k.to_string()).collect();
    pool.extend(
        [
            "attempts=1",
            "attempts=3&backoff=full&base=100ms",
            "attempts=2&backoff=exponential&base=1s",
        ]
        .iter()
        .map(|k| k.to_string()),
    );
    let mut eval = |batch: &[String], r: u32| -> Result<Vec<Vec<Summary>>, String> {
        Ok(batch
            .iter()
            .map(|k| {
                WEATHERS
                    .iter()
                    .map(|w| summary(&link(PAYMENTS, w, k, r)))
                    .collect()
            })
            .collect())
    };
    // One round, so no halving drops them first: the frontier's own filter must.
    let t = search_over(pool, 1, &Limits::default(), &mut eval).unwrap();
    assert_eq!(t.tried, 5);
    assert!(!t.frontier.is_empty());
    for p in &t.frontier {
        assert!(
            !losers.contains(&p.keys.as_str()),
            "{} is on the frontier",
            p.keys
        );
    }
    // They lose as made: no success at all under either weather.
    let lost = summary(&link(PAYMENTS, WEATHERS[0], losers[0], 1));
    assert_eq!(lost.successes, 0);
}
