//! The search's parts: domination, fronts, the space and its hedging, the limits and the
//! cells' words.

use super::*;

fn point(o: [f64; 3], feasible: bool) -> Scored {
    Scored {
        keys: String::new(),
        by_weather: Vec::new(),
        runs: 1,
        objectives: o,
        feasible,
    }
}

/// A weather counts as clear when the success intervals, or the load intervals, do not
/// meet; without intervals (one run, or alike in every run) the means decide.
#[test]
fn a_domination_is_clear_where_the_intervals_part() {
    use crate::sim::interval::{Interval, Intervals};
    let weather = |success: f64, s: (f64, f64), amp: f64, a: (f64, f64)| Summary {
        success_rate: success,
        amplification: amp,
        intervals: Some(Intervals {
            success_rate: Some(Interval {
                low: s.0,
                high: s.1,
            }),
            amplification: Some(Interval {
                low: a.0,
                high: a.1,
            }),
            ..Intervals::default()
        }),
        ..Summary::default()
    };
    let mut a = point([0.1, 1.0, 50.0], true);
    let mut b = point([0.2, 2.0, 50.0], true);
    a.by_weather = alloc::vec![
        weather(0.9, (0.88, 0.92), 1.0, (0.9, 1.1)), // success clear
        weather(0.9, (0.85, 0.95), 1.0, (0.9, 1.1)), // both overlap
        weather(0.8, (0.79, 0.81), 1.0, (0.9, 1.1)), // load clear
    ];
    b.by_weather = alloc::vec![
        weather(0.8, (0.78, 0.82), 1.05, (1.0, 1.1)),
        weather(0.88, (0.8, 0.9), 1.05, (1.0, 1.2)),
        weather(0.8, (0.79, 0.81), 2.0, (1.9, 2.1)),
    ];
    assert_eq!(clear_in(&a, &b), (2, 3));
    // Alike in every run: the means decide.
    let alike = |success: f64| Summary {
        success_rate: success,
        amplification: 1.0,
        ..Summary::default()
    };
    a.by_weather = alloc::vec![alike(0.9)];
    b.by_weather = alloc::vec![alike(0.8)];
    assert_eq!(clear_in(&a, &b), (1, 1));
    assert_eq!(clear_in(&b, &a), (0, 1));
}

#[test]
fn fronts_rank_by_domination() {
    let p = [
        point([0.1, 1.0, 50.0], true),
        point([0.2, 1.0, 50.0], true),  // dominated by 0
        point([0.0, 2.0, 50.0], true),  // a trade-off with 0
        point([0.0, 0.5, 10.0], false), // infeasible: behind every feasible one
    ];
    assert_eq!(fronts(&p), alloc::vec![0, 1, 0, 2]);
    assert!(dominates(&p[0], &p[1]) && !dominates(&p[0], &p[2]));
    let half = better_half(p.to_vec(), 1);
    assert_eq!(half.len(), 2);
    assert!(half.iter().all(|s| s.feasible && s.objectives[0] != 0.2));
}

#[test]
fn a_key_the_link_has_is_replaced_not_repeated() {
    assert_eq!(
        link_with(
            "v=2&outage=5s&attempts=4",
            &["outage=60s&duration=120s", "attempts=2", ""]
        ),
        "v=2&outage=60s&duration=120s&attempts=2"
    );
    assert_eq!(
        link_with("?preset=chapter", &["runs=3"]),
        "preset=chapter&runs=3"
    );
    let (l, _) = policy_link(
        "scenario=outage&backoff=full&base=300ms&cap=5s&budget=ratio&budget_scope=client",
        &["attempts=3&backoff=none&budget=none"],
    )
    .unwrap();
    assert_eq!(l, "scenario=outage&attempts=3&backoff=none&budget=none");
    assert!(
        policy_link("scenario=outage", &["attempts=0"]).is_err(),
        "its own keys are not dropped"
    );
    // A gRPC config's 10 ms cap gives way to a policy's longer base.
    let (l, _) = policy_link(
        "scenario=outage&backoff=exponential&base=10ms&cap=10ms",
        &["backoff=full&base=50ms"],
    )
    .unwrap();
    assert_eq!(l, "scenario=outage&backoff=full&base=50ms");
}

#[test]
fn candidates_are_distinct_and_drawn_from_the_seed() {
    let a = candidates(1, 32);
    assert_eq!(a.len(), 32);
    assert_eq!(a, candidates(1, 32));
    assert_ne!(a, candidates(2, 32));
    let mut b = a.clone();
    b.sort_unstable();
    b.dedup();
    assert_eq!(b.len(), 32);
    assert_eq!(
        candidates(1, 10_000).len(),
        DISTINCT,
        "the whole space at most"
    );
    assert!(candidates(1, DISTINCT)
        .iter()
        .all(|k| !k.contains("none&base")));
    assert_eq!(rounds(8), alloc::vec![2, 4, 8]);
    assert_eq!(rounds(1), alloc::vec![1]);
}

/// A limit on the peak, or that every run recover, rules a policy out; the cell says how
/// its runs recovered.
#[test]
fn peak_and_recovery_limits_rule_out_and_the_cell_says_so() {
    use crate::sim::interval::{Intervals, Share};
    use crate::sim::Recovery;
    let weather = |peak: f64, recovered_at: Option<f64>, share: Option<(u32, u32)>| Summary {
        success_rate: 0.9,
        amplification: 1.2,
        peak_attempts_per_s: peak,
        p99_ms: Some(50.0),
        recovery: Some(Recovery {
            trigger_end_s: 10.0,
            baseline_per_s: 40.0,
            recovered_at_s: recovered_at,
            watched_s: 50.0,
        }),
        intervals: share.map(|(k, n)| Intervals {
            runs: n,
            planned: n,
            recovered: Some(Share::of(k, n)),
            ..Intervals::default()
        }),
        ..Summary::default()
    };
    let calm = weather(80.0, Some(12.0), None);
    let some = weather(120.0, Some(14.0), Some((7, 20)));
    let never = weather(80.0, None, None);
    let limits = |max_peak: Option<f64>, must_recover: bool| Limits {
        max_peak,
        must_recover,
        ..Limits::default()
    };
    let feasible = |w: &[Summary], l: Limits| score(String::new(), w.to_vec(), 1, &l).feasible;
    assert!(feasible(&[calm.clone(), some.clone()], limits(None, false)));
    assert!(!feasible(
        &[calm.clone(), some.clone()],
        limits(Some(100.0), false)
    ));
    assert!(feasible(
        core::slice::from_ref(&calm),
        limits(Some(100.0), true)
    ));
    assert!(
        !feasible(&[calm.clone(), some.clone()], limits(None, true)),
        "7 of 20"
    );
    assert!(!feasible(core::slice::from_ref(&never), limits(None, true)));
    assert!(
        cell(&calm).ends_with("peak 80 attempts/s, p99 50 ms, recovered 2 s after"),
        "{}",
        cell(&calm)
    );
    assert!(
        cell(&some).ends_with("recovered in 7 of 20 runs"),
        "{}",
        cell(&some)
    );
    assert!(
        cell(&never).ends_with("never recovered"),
        "{}",
        cell(&never)
    );
    let no_trigger = Summary {
        recovery: None,
        ..calm
    };
    assert!(cell(&no_trigger).ends_with("p99 50 ms"));
}

/// Limits nothing keeps to are said to be so, not shown as an empty frontier.
#[test]
fn limits_no_policy_keeps_to_are_named() {
    let mut t = Tuned {
        frontier: Vec::new(),
        yours: point([0.1, 1.0, 50.0], false),
        better: None,
        tried: 32,
        runs_made: 256,
    };
    assert!(t.verdict().starts_with(
        "None of the 32 policies tried keeps to the limits you set, and yours does not either"
    ));
    t.frontier.push(point([0.1, 1.0, 40.0], true));
    assert!(t
        .verdict()
        .starts_with("Your policy breaks a limit you set; every point"));
}

/// Hedging enters a search only where the call is safe to send twice at once.
#[test]
fn hedged_policies_only_where_a_call_may_be_sent_twice() {
    let params = |link: &str| link.parse::<crate::Params>().unwrap();
    let hedged = |pool: &[String]| pool.iter().filter(|k| k.starts_with("hedge=on")).count();
    let charge = params("scenario=outage&idempotent=false");
    assert_eq!(hedged(&pool_where(&charge, 400, &|_| true)), 0);
    let read = params("scenario=outage&idempotent=true");
    let pool = pool_where(&read, 400, &|_| true);
    assert!(hedged(&pool) > 0, "an idempotent call may hedge");
    assert!(pool
        .iter()
        .all(|k| !k.contains("hedge=on") || !k.contains("breaker")));
    let keyed = params("scenario=outage&idempotent=false&key=true");
    assert!(hedged(&pool_where(&keyed, 400, &|_| true)) > 0);
    // A hedged pick opens on a retry link, and a retry pick on a hedged link.
    let h = pool.iter().find(|k| k.starts_with("hedge=on")).unwrap();
    let (_, p) = policy_link("preset=payments-jitter", &[h]).unwrap();
    assert!(p.sim.server().is_some_and(|s| s.hedge.on));
    let (l, p) = policy_link(
        "scenario=outage&idempotent=true&hedge=on&hedge_delay=500ms&hedge_max=5",
        &["attempts=3&backoff=full&base=100ms"],
    )
    .unwrap();
    assert!(!l.contains("hedge") && p.policy.max_attempts == 3);
}

/// Writing only the first pick of each policy gives the policies, in the order, that writing
/// every pick and keeping each once gives.
#[test]
fn every_policy_is_every_pick_written_once() {
    let sizes: Vec<usize> = SPACE.iter().map(|(_, v)| v.len()).collect();
    let mut pick: Pick = [0; SPACE.len()];
    let mut seen = alloc::collections::BTreeSet::new();
    let mut all = Vec::new();
    let value = |pick: &Pick, key: &str| {
        let i = SPACE.iter().position(|(k, _)| *k == key).unwrap();
        SPACE[i].1[pick[i]].parse::<crate::Micros>().ok()
    };
    loop {
        let over =
            matches!((value(&pick, "base"), value(&pick, "cap")), (Some(b), Some(c)) if b > c);
        let k = keys_of(&pick);
        if hedgeable(&pick) && !(over && k.contains("cap=")) && seen.insert(k.clone()) {
            all.push(k);
        }
        let Some(i) = (0..pick.len()).rev().find(|&i| pick[i] + 1 < sizes[i]) else {
            break;
        };
        pick[i] += 1;
        pick[i + 1..].fill(0);
    }
    assert_eq!(all.len(), DISTINCT);
    assert_eq!(every_policy(), all);
}

/// The seed's order drawn as picks, written only when taken, is the order drawn as link text:
/// the core by what the text writes, each policy once.
#[test]
fn candidates_drawn_as_picks_are_drawn_as_text() {
    for seed in [1, 2, 99] {
        let mut rng = Rng::stream(seed, STREAM_TUNE);
        let all = every_policy();
        let extra = ["cap=", "attempt_timeout=", "breaker="];
        let core: Vec<String> = all
            .iter()
            .filter(|k| !extra.iter().any(|e| k.contains(e)))
            .cloned()
            .collect();
        assert_eq!(core.len(), 532, "the core");
        let (core, all) = (shuffled(core, &mut rng), shuffled(all, &mut rng));
        let mut seen = alloc::collections::BTreeSet::new();
        let mut text = Vec::new();
        for (c, a) in core.into_iter().map(Some).chain(core_tail()).zip(all) {
            for k in [c, Some(a)].into_iter().flatten() {
                if seen.insert(k.clone()) {
                    text.push(k);
                }
            }
        }
        assert_eq!(candidates(seed, DISTINCT), text, "seed {seed}");
        assert_eq!(candidates(seed, 40), text[..40]);
    }
}

/// Nones after the core runs out, as many as the whole space.
fn core_tail() -> impl Iterator<Item = Option<String>> {
    core::iter::repeat_n(None, DISTINCT)
}
