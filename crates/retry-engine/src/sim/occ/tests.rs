//! The unit tests of `sim/occ.rs`, beside it so that the module itself stays short.

use super::*;
use crate::sim::Sim;
use crate::{BackoffConfig, BackoffKind};

fn run(kind: BackoffKind, clients: u32, runs: u32) -> (f64, f64) {
    let b = BackoffConfig::new(kind)
        .with_base(Micros::from_millis(5))
        .with_cap(Micros::from_secs(2))
        .with_first_exp(1)
        .validate()
        .unwrap();
    let (mut calls, mut time) = (0.0, 0.0);
    let table = Rc::new(NormalTable::new());
    for r in 0..runs {
        let m = ran(&b, clients, 1, r, &table);
        assert_eq!(m.done(), clients, "every client writes once");
        calls += m.writes as f64;
        time += m.last.as_millis_f64();
    }
    (calls / f64::from(runs), time / f64::from(runs))
}

/// `kind` with a 5 ms base and the other settings at their defaults.
fn base_5ms(kind: BackoffKind) -> Backoff {
    BackoffConfig::new(kind)
        .with_base(Micros::from_millis(5))
        .validate()
        .unwrap()
}

/// Run `run` of `clients` clients (10 ms hops, sd 2 ms), run to its end.
fn ran(b: &Backoff, clients: u32, seed: u64, run: u32, table: &Rc<NormalTable>) -> Occ {
    let (m, first) = Occ::new(
        clients,
        b,
        Micros::from_millis(10),
        Micros::from_millis(2),
        seed,
        run,
        &OccShared::new(b, table.clone()),
    );
    let mut s = Sim::new(m, first);
    s.run();
    s.model
}

/// A run that takes over an earlier run's bins (as a sweep's runs do) reports exactly
/// what a run with bins of its own reports: the earlier counts are cleared, and the room
/// is taken over.
#[test]
fn a_run_on_an_earlier_runs_bins_counts_as_a_fresh_one() {
    let b = base_5ms(BackoffKind::Exponential);
    let table = Rc::new(NormalTable::new());
    let (_, spare) = ran(&b, 190, 7, 0, &table).finish_summary(None);
    let mut spare = spare.busy;
    assert!(!spare.is_empty());
    // Room past the first run's own (a sweep's longest runs grow theirs so).
    spare.reserve(4096);
    let fresh = ran(&b, 190, 7, 1, &table).finish_summary(None);
    let (net, sd) = (Micros::from_millis(10), Micros::from_millis(2));
    let (m, first) = Occ::new(190, &b, net, sd, 7, 1, &OccShared::new(&b, table.clone()));
    let m = m.with_series(spare);
    assert!(m.series.capacity() > 1024 && m.series.is_empty());
    let mut reused = Box::new(OccRun::new(m, first));
    while !reused.step(u64::MAX).0 {}
    assert_eq!(reused.finish_summary(None), fresh);
}

/// A repetition whose bins are not kept reports the same summary and the same per-bin
/// counts as one whose bins are built.
#[test]
fn the_summary_alone_matches_the_full_report() {
    let b = base_5ms(BackoffKind::Exponential);
    let table = Rc::new(NormalTable::new());
    let full = ran(&b, 60, 7, 3, &table).finish(None);
    let (summary, counts) = ran(&b, 60, 7, 3, &table).finish_summary(None);
    assert_eq!(summary, full.summary);
    assert!(full.bins.len() > 10, "{} bins", full.bins.len());
    let from_bins: Vec<(u32, u32)> = full
        .bins
        .iter()
        .map(|b| (b.attempts, b.successes))
        .collect();
    assert_eq!(counts.dense(), from_bins);
    assert!(summary.peak_attempts_per_s > 0.0);
    let (busy, len) = (counts.busy.len(), counts.len);
    assert!(busy < len / 2 && len == from_bins.len(), "{busy} of {len}");
}

/// Writes and reads counted into the current bin and the busy bins before it, past
/// [`MAX_BINS`] bins three times and more (so the bins widen), give the counts a bin
/// for every width step gives: each write in the bin its time falls in at the final
/// width, reads in none, up to the last write's bin.
#[test]
fn busy_bins_count_what_every_bin_counts() {
    let b = base_5ms(BackoffKind::None);
    let (net, sd) = (Micros::from_millis(10), Micros::from_millis(2));
    let shared = OccShared::new(&b, Rc::new(NormalTable::new()));
    let (mut m, _) = Occ::new(3, &b, net, sd, 7, 1, &shared);
    let mut rng = Rng::stream(9, 9);
    let (mut t, mut events) = (0u64, Vec::new());
    // About 1,600 s in steps of up to 2 s: eight times MAX_BINS bins of 10 ms.
    while t < 1_600_000_000 {
        t += rng.below(2_000_000);
        let (write, ok) = (rng.below(3) > 0, rng.below(4) == 0);
        events.push((t, write, write && ok));
        if write && rng.below(2) == 0 {
            m.count(Micros(t), ok);
        } else {
            m.count_flat(Micros(t), write, write && ok);
        }
    }
    // The last event is a write, as a run's is.
    t += 1;
    events.push((t, true, true));
    m.count(Micros(t), true);
    let mut width = OCC_BIN.0;
    while (t / width) as usize >= MAX_BINS {
        width *= 2;
    }
    assert!(
        width >= 8 * OCC_BIN.0,
        "widened {} times",
        width / OCC_BIN.0
    );
    let len = (t / width) as usize + 1;
    let mut every = alloc::vec![(0, 0); len];
    for (t, write, ok) in events {
        let bin = &mut every[(t / width) as usize];
        bin.0 += u32::from(write);
        bin.1 += u32::from(ok);
    }
    let (summary, counts) = m.finish_summary(None);
    assert_eq!(counts.dense(), every);
    assert_eq!(
        summary.peak_attempts_per_s,
        super::super::metrics::peak_per_s_of(every.iter().map(|b| b.0), Micros(width))
    );
}

/// The tournament tree runs the same events in the same order as the event heap: the
/// same report, bins included, for every kind of backoff and a spread of client counts.
#[test]
fn the_tree_run_is_the_heap_run() {
    let table = Rc::new(NormalTable::new());
    for kind in [
        BackoffKind::None,
        BackoffKind::Constant,
        BackoffKind::Exponential,
        BackoffKind::Full,
        BackoffKind::Equal,
        BackoffKind::Decorrelated,
    ] {
        for (clients, run) in [(1, 0), (2, 1), (37, 2), (128, 3), (190, 4)] {
            let b = base_5ms(kind);
            let heap = ran(&b, clients, 11, run, &table).finish(None);
            let (m, first) = Occ::new(
                clients,
                &b,
                Micros::from_millis(10),
                Micros::from_millis(2),
                11,
                run,
                &OccShared::new(&b, table.clone()),
            );
            let mut tree = Box::new(OccRun::new(m, first));
            let mut events = 0;
            loop {
                let (done, n) = tree.step(1000);
                events += n;
                if done {
                    break;
                }
            }
            assert_eq!(events, tree.events, "{kind:?} {clients}");
            assert!(events >= 2 * u64::from(clients), "{kind:?} {clients}");
            assert_eq!(tree.finish(None), heap, "{kind:?}, {clients} clients");
        }
    }
}

/// The page's loop (one loop that reads the tree's depth, through [`Occ::next`] only) runs
/// natively here, and reports exactly what the native tier reports, bins and events
/// included, for every kind of backoff, in slices of odd sizes.
#[test]
fn the_pages_loop_is_the_native_tiers_loop() {
    let table = Rc::new(NormalTable::new());
    let (net, sd) = (Micros::from_millis(10), Micros::from_millis(2));
    for kind in [
        BackoffKind::None,
        BackoffKind::Constant,
        BackoffKind::Full,
        BackoffKind::Decorrelated,
    ] {
        for (clients, run, slice) in [(1, 0, 1), (37, 2, 7), (190, 4, 1000)] {
            let b = base_5ms(kind);
            let tree = || {
                let shared = OccShared::new(&b, table.clone());
                let (m, first) = Occ::new(clients, &b, net, sd, 11, run, &shared);
                Box::new(OccRun::new(m, first))
            };
            let (mut native, mut page) = (tree(), tree());
            while !native.step(slice).0 {}
            let mut events = 0;
            loop {
                let (done, n) = page.step_portable(slice);
                assert!(n <= slice, "{n} events in a slice of {slice}");
                events += n;
                if done {
                    break;
                }
            }
            assert_eq!((page.events, events), (native.events, native.events));
            assert_eq!(page.finish(None), native.finish(None), "{kind:?} {clients}");
        }
    }
}

/// Every retry waiting the same (`none`, with or without a floor, and `constant`) sends
/// every event through [`Occ::next_flat`], and its runs report exactly what the heap's
/// reference (through [`Occ::next`]) reports, bins included; a growing backoff, a first
/// retry at once, or hops without a spread keep the branches.
#[test]
fn uniform_waits_take_the_flat_path_with_the_same_numbers() {
    let table = Rc::new(NormalTable::new());
    let (net, sd) = (Micros::from_millis(10), Micros::from_millis(2));
    let config = |kind| BackoffConfig::new(kind).with_base(Micros::from_millis(3));
    let uniform = [
        (config(BackoffKind::None), 0),
        (config(BackoffKind::None).with_floor(Micros(700)), 700),
        (config(BackoffKind::Constant), 3000),
    ];
    for (cfg, wait) in uniform {
        let b = cfg.validate().unwrap();
        let (m, first) = Occ::new(60, &b, net, sd, 4, 2, &OccShared::new(&b, table.clone()));
        assert_eq!(m.uniform, Some(wait), "{cfg:?}");
        let mut flat = Box::new(OccRun::new(m, first));
        while !flat.step(777).0 {}
        let heap = ran(&b, 60, 4, 2, &table).finish(None);
        assert!(heap.summary.attempts > 200, "{}", heap.summary.attempts);
        assert_eq!(flat.finish(None), heap, "{cfg:?}");
    }
    let branchy = [
        config(BackoffKind::Exponential),
        config(BackoffKind::Full),
        config(BackoffKind::None).with_first_wait_zero(true),
    ];
    for cfg in branchy {
        let b = cfg.validate().unwrap();
        let (m, _) = Occ::new(60, &b, net, sd, 4, 2, &OccShared::new(&b, table.clone()));
        assert_eq!(m.uniform, None, "{cfg:?}");
    }
    let none = config(BackoffKind::None).validate().unwrap();
    let (m, _) = Occ::new(
        60,
        &none,
        net,
        Micros::ZERO,
        4,
        2,
        &OccShared::new(&none, table),
    );
    assert_eq!(m.uniform, None, "hops without a spread");
}

/// Hops and backoff words taken from [`Hops`], in any interleaving and across its batches,
/// are the words and delays the generator gives drawn one at a time.
#[test]
fn words_drawn_ahead_are_the_generators_words_in_order() {
    let table = Rc::new(NormalTable::new());
    let (net, sd) = (Micros::from_millis(10), Micros::from_millis(2));
    let mut ahead = Hops::new(Rng::stream(3, 9), table.clone(), net, sd);
    let mut plain = Rng::stream(3, 9);
    let mut pattern = Rng::from_seed(1);
    let (mut hops, mut words) = (0, 0);
    for _ in 0..5 * AHEAD {
        if pattern.below(3) == 0 {
            assert_eq!(
                ahead.uniform_inclusive(0, 999),
                plain.uniform_inclusive(0, 999)
            );
            words += 1;
        } else {
            let x = table.sample(plain.next_u64(), 10_000.0, 2_000.0).abs();
            assert_eq!(ahead.delay(), (x + 0.5) as u64);
            hops += 1;
        }
    }
    assert!(
        hops > 2 * AHEAD && words > AHEAD,
        "{hops} hops, {words} words"
    );
    // With no spread a hop is the mean and takes no word.
    let mut fixed = Hops::new(Rng::stream(3, 9), table, net, Micros::ZERO);
    assert_eq!(fixed.delay(), 10_000);
    assert_eq!(fixed.next_u64(), Rng::stream(3, 9).next_u64());
}

/// Waits drawn from the kept ranges (for the first retries) give the report that waits
/// drawn through `next_draw` give, past the ranges' end too (190 clients retry well over
/// 64 times without backoff), for fixed waits and drawn ones.
#[test]
fn waits_from_kept_ranges_are_the_drawn_waits() {
    let table = Rc::new(NormalTable::new());
    for kind in [
        BackoffKind::None,
        BackoffKind::Exponential,
        BackoffKind::Full,
        BackoffKind::Equal,
    ] {
        let b = base_5ms(kind);
        let new = || {
            let (net, sd) = (Micros::from_millis(10), Micros::from_millis(2));
            Occ::new(190, &b, net, sd, 5, 1, &OccShared::new(&b, table.clone()))
        };
        let (kept, first) = new();
        assert_eq!(kept.ranges.len(), RANGES as usize);
        let mut a = Sim::new(kept, first);
        a.run();
        let (mut drawn, first) = new();
        drawn.ranges.clear();
        let mut d = Sim::new(drawn, first);
        d.run();
        let most = d.model.backoff.iter().map(|s| s.retry()).max();
        if kind == BackoffKind::None {
            assert!(most > Some(RANGES), "{most:?}");
        }
        assert_eq!(a.model.finish(None), d.model.finish(None), "{kind:?}");
    }
}

#[test]
fn work_grows_with_the_square_of_the_clients() {
    // Doubling the clients triples or quadruples the writes (the study's N^2 work).
    let (c20, _) = run(BackoffKind::None, 20, 40);
    let (c40, _) = run(BackoffKind::None, 40, 40);
    let ratio = c40 / c20;
    assert!((2.5..4.5).contains(&ratio), "{c20} -> {c40}: {ratio}");
}

#[test]
fn writes_are_one_success_per_client_plus_failures() {
    let b = base_5ms(BackoffKind::Full);
    let (m, first) = Occ::new(
        25,
        &b,
        Micros::from_millis(10),
        Micros::from_millis(2),
        9,
        0,
        &OccShared::new(&b, Rc::new(NormalTable::new())),
    );
    let mut s = Sim::new(m, first);
    s.run();
    assert_eq!(s.model.writes, 25 + s.model.failures());
    assert_eq!(s.model.version, 25);
}
