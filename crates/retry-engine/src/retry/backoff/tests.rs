//! The unit tests of `retry/backoff.rs`, beside it so that the module itself stays short.

use super::*;
#[allow(unused_imports)]
use crate::retry::rng::Rng;
use proptest::prelude::*;

fn ms(v: u64) -> Micros {
    Micros::from_millis(v)
}

fn waits(cfg: BackoffConfig, seed: u64, n: usize) -> alloc::vec::Vec<u64> {
    let b = cfg.validate().unwrap();
    let mut rng = Rng::stream(seed, 0);
    let mut st = b.state();
    (0..n)
        .map(|_| b.next_draw(&mut st, &mut rng, false).wait.0)
        .collect()
}

/// A wait drawn from `wait_range` is the wait `next_draw` gives, retry by retry and word
/// by word, for every configuration whose range is known in advance; the others have no
/// range.
/// The configurations whose waits are known in advance, one of each shape.
fn in_advance() -> Vec<BackoffConfig> {
    let whole = |base: u64, cap: u64, floor: u64, zero: bool| {
        let mut c = BackoffConfig::new(BackoffKind::Full)
            .with_base(Micros(base))
            .with_cap(Micros(cap))
            .with_floor(Micros(floor))
            .with_first_wait_zero(zero);
        c.whole_ms = true;
        c
    };
    [
        // Jitter on a fixed wait: gRPC's ±20% after the cap, before it (the draw then capped),
        // an added jitter, and a first retry at once.
        BackoffConfig::new(BackoffKind::Exponential)
            .with_base(ms(100))
            .with_cap(ms(1000))
            .with_jitter(
                Jitter::Mult {
                    lo_milli: 800,
                    hi_milli: 1200,
                },
                true,
            ),
        BackoffConfig::new(BackoffKind::Exponential)
            .with_base(ms(100))
            .with_cap(ms(1000))
            .with_floor(ms(90))
            .with_jitter(
                Jitter::Mult {
                    lo_milli: 500,
                    hi_milli: 1500,
                },
                false,
            ),
        BackoffConfig::new(BackoffKind::Constant)
            .with_base(ms(40))
            .with_jitter(Jitter::Add(ms(10)), true),
        BackoffConfig::new(BackoffKind::Exponential)
            .with_base(ms(7))
            .with_first_wait_zero(true)
            .with_jitter(
                Jitter::Mult {
                    lo_milli: 0,
                    hi_milli: 1000,
                },
                true,
            ),
        // Envoy's whole milliseconds: windows of none, one, and 25 to 250 values.
        whole(600, 1500, 0, false),
        whole(25_000, 250_000, 0, false),
        whole(25_000, 250_000, 7_500, true),
        BackoffConfig::new(BackoffKind::None),
        BackoffConfig::new(BackoffKind::None).with_floor(ms(3)),
        BackoffConfig::new(BackoffKind::Constant).with_base(ms(40)),
        BackoffConfig::new(BackoffKind::Exponential)
            .with_base(ms(5))
            .with_cap(ms(2000))
            .with_first_exp(1),
        BackoffConfig::new(BackoffKind::Exponential)
            .with_base(ms(7))
            .with_multiplier(1.5)
            .with_cap(ms(60_000))
            .with_first_wait_zero(true),
        BackoffConfig::new(BackoffKind::Full)
            .with_base(ms(5))
            .with_cap(ms(2000))
            .with_first_exp(1),
        BackoffConfig::new(BackoffKind::Full)
            .with_base(ms(20))
            .with_floor(ms(15)),
        BackoffConfig::new(BackoffKind::Equal)
            .with_base(ms(5))
            .with_cap(ms(2000))
            .with_first_exp(1),
        BackoffConfig::new(BackoffKind::Equal)
            .with_base(ms(3))
            .with_multiplier(3.0)
            .with_first_wait_zero(true),
    ]
    .to_vec()
}

#[test]
fn waits_drawn_from_ranges_are_the_drawn_waits() {
    for cfg in in_advance() {
        let b = cfg.validate().unwrap();
        let (mut drawn_rng, mut range_rng) = (Rng::stream(1, 2), Rng::stream(1, 2));
        let mut st = b.state();
        for retry in 0..200 {
            let drawn = b.next_draw(&mut st, &mut drawn_rng, false).wait;
            let range = b.wait_range(retry).expect("a range known in advance");
            assert_eq!(range.draw(&mut range_rng), drawn, "{cfg:?}, retry {retry}");
            assert_eq!(range_rng, drawn_rng, "{cfg:?}, retry {retry}: words taken");
        }
        let draws = cfg.kind == BackoffKind::Full
            || cfg.kind == BackoffKind::Equal
            || cfg.jitter != Jitter::None;
        assert_eq!(range_rng != Rng::stream(1, 2), draws, "{cfg:?}");
    }
    for kind in [BackoffKind::Decorrelated, BackoffKind::DecorrelatedV2] {
        let b = BackoffConfig::new(kind).validate().unwrap();
        assert_eq!(b.wait_range(0), None, "{kind:?}");
    }
}

/// `decorrelated_range` after each previous wait draws, word for word, the wait `next_draw`
/// gives (capped at the cap, raised to a floor at or under the base), and that wait is the
/// next previous one; with a floor above the base, and for every other kind, there is none.
#[test]
fn decorrelated_ranges_draw_the_drawn_waits() {
    let decorrelated = BackoffConfig::new(BackoffKind::Decorrelated);
    for cfg in [
        decorrelated.with_base(ms(5)).with_cap(ms(2000)),
        decorrelated
            .with_base(ms(40))
            .with_cap(ms(300))
            .with_floor(ms(20)),
        decorrelated.with_base(ms(3)).with_first_wait_zero(true),
    ] {
        let b = cfg.validate().unwrap();
        let (mut drawn_rng, mut rng) = (Rng::stream(9, 1), Rng::stream(9, 1));
        let mut state = b.state();
        let mut prev = cfg.base.0;
        for retry in 0..200 {
            let drawn = b.next_draw(&mut state, &mut drawn_rng, false).wait;
            let range = b.decorrelated_range(retry, prev).unwrap();
            assert_eq!(range.draw(&mut rng), drawn, "{cfg:?}, retry {retry}");
            assert!(drawn.0 <= range.cap().max(cfg.floor.0));
            if !(cfg.first_wait_zero && retry == 0) {
                prev = drawn.0;
            }
        }
    }
    let floored = decorrelated.with_base(ms(5)).with_floor(ms(20));
    assert_eq!(
        floored.validate().unwrap().decorrelated_range(1, 5_000),
        None
    );
    let full = BackoffConfig::new(BackoffKind::Full).validate().unwrap();
    assert_eq!(full.decorrelated_range(0, 0), None);
    assert_eq!(full.wait_range(0).map(|r| r.cap()), Some(u64::MAX));
}

/// `decorrelated_wait` is the wait `next_draw` gives, retry by retry and word by word,
/// with the same state after each; every other configuration gets `None` and keeps its
/// state.
#[test]
fn decorrelated_waits_are_the_drawn_waits() {
    let decorrelated = BackoffConfig::new(BackoffKind::Decorrelated);
    for cfg in [
        decorrelated.with_base(ms(5)).with_cap(ms(2000)),
        decorrelated
            .with_base(ms(10))
            .with_cap(ms(300))
            .with_floor(ms(20)),
        decorrelated.with_base(ms(3)).with_first_wait_zero(true),
    ] {
        let b = cfg.validate().unwrap();
        let (mut drawn_rng, mut rng) = (Rng::stream(4, 1), Rng::stream(4, 1));
        let (mut drawn_state, mut state) = (b.state(), b.state());
        for retry in 0..200 {
            let drawn = b.next_draw(&mut drawn_state, &mut drawn_rng, false).wait;
            let wait = b.decorrelated_wait(&mut state, &mut rng);
            assert_eq!(wait, Some(drawn), "{cfg:?}, retry {retry}");
            assert_eq!((state, &rng), (drawn_state, &drawn_rng), "{cfg:?}, {retry}");
        }
    }
    for kind in [BackoffKind::Full, BackoffKind::DecorrelatedV2] {
        let b = BackoffConfig::new(kind).validate().unwrap();
        let mut state = b.state();
        assert_eq!(
            b.decorrelated_wait(&mut state, &mut Rng::stream(4, 1)),
            None
        );
        assert_eq!(state, b.state(), "{kind:?}");
    }
}

#[test]
fn multiplicative_jitter_stays_in_its_range_before_and_after_the_cap() {
    let mult = Jitter::Mult {
        lo_milli: 800,
        hi_milli: 1200,
    };
    let cfg = BackoffConfig::new(BackoffKind::Exponential)
        .with_base(ms(100))
        .with_cap(ms(1000));
    let (mut over_cap, mut spread) = (0, 0);
    for seed in 0..300 {
        let after = waits(cfg.with_jitter(mult, true), seed, 6);
        let before = waits(cfg.with_jitter(mult, false), seed, 6);
        for (k, (a, b)) in after.iter().zip(&before).enumerate() {
            let d = (100_000u64 << k).min(1_000_000);
            assert!(
                *a >= d * 8 / 10 && *a <= d * 12 / 10,
                "after the cap, retry {k}: {a}"
            );
            assert!(
                *b <= 1_000_000,
                "before the cap a wait never passes it: {b}"
            );
            over_cap += usize::from(*a > 1_000_000);
            spread += usize::from(*a != d);
        }
    }
    assert!(
        over_cap > 100,
        "jittering the capped wait passes the cap: {over_cap}"
    );
    assert!(spread > 1700, "{spread}");
}

#[test]
fn additive_jitter_and_a_first_retry_at_once() {
    let cfg = BackoffConfig::new(BackoffKind::Exponential)
        .with_base(ms(500))
        .with_cap(ms(120_000))
        .with_first_wait_zero(true)
        .with_jitter(Jitter::Add(ms(1000)), false);
    for seed in 0..100 {
        let w = waits(cfg, seed, 4);
        assert_eq!(
            w[0], 0,
            "urllib3: the first retry goes at once, with no jitter"
        );
        for (k, x) in w.iter().enumerate().skip(1) {
            let d = 500_000u64 << k;
            assert!(*x >= d && *x <= d + 1_000_000, "retry {k}: {x}");
        }
    }
    let plain = cfg.with_jitter(Jitter::None, false);
    assert_eq!(waits(plain, 1, 4), [0, 1_000_000, 2_000_000, 4_000_000]);
}

#[test]
fn sorted_draws_only_grow_and_are_the_same_draws() {
    // x U(1, 2) over a growth of 1.5: neighbouring ranges overlap, so order matters.
    let cfg = BackoffConfig::new(BackoffKind::Exponential)
        .with_base(ms(1000))
        .with_multiplier(1.5)
        .with_cap(ms(86_400_000))
        .with_jitter(
            Jitter::Mult {
                lo_milli: 1000,
                hi_milli: 2000,
            },
            false,
        );
    let mut swapped = 0;
    for seed in 0..200 {
        let sorted = waits(cfg.with_sorted(10), seed, 10);
        assert!(sorted.windows(2).all(|w| w[0] <= w[1]), "{sorted:?}");
        // The same draws, unsorted: a fresh generator seeded as the sorted client's was.
        let b = cfg.validate().unwrap();
        let mut rng = Rng::stream(seed, 0);
        let mut up_front = Rng::from_seed(rng.next_u64());
        let mut st = b.state();
        let mut raw: alloc::vec::Vec<u64> = (0..10)
            .map(|_| b.next_draw(&mut st, &mut up_front, false).wait.0)
            .collect();
        swapped += usize::from(raw.windows(2).any(|w| w[0] > w[1]));
        raw.sort_unstable();
        assert_eq!(raw, sorted);
    }
    assert!(
        swapped > 50,
        "node-retry's sorting changes some orders: {swapped}"
    );
}

#[test]
fn tokio_retry_base_is_the_multiplier_and_envoy_docs_sum_their_steps() {
    let tokio = BackoffConfig::new(BackoffKind::Exponential)
        .with_base(ms(10))
        .with_cap(ms(86_400_000))
        .with_multiplier_from_base(true);
    assert_eq!(waits(tokio, 1, 3), [10_000, 100_000, 1_000_000]);
    let envoy = BackoffConfig {
        ceiling_sum: true,
        ..BackoffConfig::new(BackoffKind::Full)
            .with_base(ms(25))
            .with_cap(ms(250))
    };
    let c: alloc::vec::Vec<u64> = (0..5).map(|k| envoy.ceiling(k).0 / 1000).collect();
    assert_eq!(c, [25, 75, 175, 250, 250]);
}

#[test]
fn polly_v2_waits_grow_on_average_and_keep_to_the_cap() {
    let cfg = BackoffConfig::new(BackoffKind::DecorrelatedV2)
        .with_base(ms(1000))
        .with_cap(ms(30_000));
    let mut sums = [0u64; 6];
    for seed in 0..400 {
        for (k, w) in waits(cfg, seed, 6).iter().enumerate() {
            assert!(*w <= 30_000_000 && *w <= cfg.ceiling(k as u32).0, "{w}");
            sums[k] += w;
        }
    }
    assert!(sums.windows(2).all(|s| s[0] < s[1]), "{sums:?}");
}

#[test]
fn the_new_settings_are_refused_where_they_do_nothing() {
    let full = BackoffConfig::new(BackoffKind::Full);
    let e = full
        .with_jitter(Jitter::Add(ms(5)), false)
        .validate()
        .unwrap_err();
    assert_eq!(e.field, "jitter");
    let e = BackoffConfig::new(BackoffKind::Exponential)
        .with_sorted(5)
        .validate()
        .unwrap_err();
    assert_eq!(e.field, "sorted");
    let e = full.with_sorted(101).validate().unwrap_err();
    assert!(e.field == "sorted" && e.rule.contains("at most 100"), "{e}");
    let bad = Jitter::Mult {
        lo_milli: 1500,
        hi_milli: 1200,
    };
    let e = BackoffConfig::new(BackoffKind::Constant)
        .with_jitter(bad, false)
        .validate();
    assert_eq!(e.unwrap_err().field, "jitter_lo");
    let e = BackoffConfig::new(BackoffKind::Exponential)
        .with_base(Micros(500))
        .with_multiplier_from_base(true)
        .validate();
    assert_eq!(e.unwrap_err().field, "multiplier_from_base");
}

#[test]
fn cheat_sheet_ceilings() {
    let cfg = BackoffConfig::new(BackoffKind::Full)
        .with_base(ms(10))
        .with_cap(ms(2000));
    let c: alloc::vec::Vec<u64> = (0..10).map(|k| cfg.ceiling(k).0 / 1000).collect();
    assert_eq!(c, [10, 20, 40, 80, 160, 320, 640, 1280, 2000, 2000]);
}

#[test]
fn first_exp_one_doubles_first_wait() {
    let cfg = BackoffConfig::new(BackoffKind::Exponential)
        .with_base(ms(5))
        .with_first_exp(1);
    assert_eq!(cfg.ceiling(0), ms(10));
    assert_eq!(cfg.ceiling(1), ms(20));
}

#[test]
fn fractional_multiplier() {
    let cfg = BackoffConfig::new(BackoffKind::Exponential)
        .with_base(ms(500))
        .with_multiplier(1.5);
    assert_eq!(cfg.ceiling(0), ms(500));
    assert_eq!(cfg.ceiling(1), ms(750));
    assert_eq!(cfg.ceiling(2), Micros(1_125_000));
}

#[test]
fn exponential_and_constant_are_fixed() {
    let mut rng = Rng::from_seed(3);
    let b = BackoffConfig::new(BackoffKind::Exponential)
        .with_base(ms(100))
        .with_cap(ms(2000))
        .validate()
        .unwrap();
    let waits: alloc::vec::Vec<u64> = b
        .delays(&mut rng)
        .take(6)
        .map(|d| d.wait.0 / 1000)
        .collect();
    assert_eq!(waits, [100, 200, 400, 800, 1600, 2000]);
    let c = BackoffConfig::new(BackoffKind::Constant)
        .with_base(ms(100))
        .validate()
        .unwrap();
    assert!(c.delays(&mut rng).take(5).all(|d| d.wait == ms(100)));
    let n = BackoffConfig::new(BackoffKind::None).validate().unwrap();
    assert!(n.delays(&mut rng).take(5).all(|d| d.wait == Micros::ZERO));
}

#[test]
fn floor_raises_short_waits() {
    let mut rng = Rng::from_seed(5);
    let b = BackoffConfig::new(BackoffKind::Full)
        .with_base(ms(10))
        .with_cap(ms(5000))
        .with_floor(ms(500))
        .validate()
        .unwrap();
    assert!(b.delays(&mut rng).take(50).all(|d| d.wait >= ms(500)));
}

#[test]
fn decorrelated_after_throttling_never_inverts_its_range() {
    let b = BackoffConfig::new(BackoffKind::Decorrelated)
        .with_base(ms(100))
        .with_cap(ms(20_000))
        .with_throttle_base(Some(ms(1000)))
        .validate()
        .unwrap();
    for seed in 0..200 {
        let mut rng = Rng::stream(seed, 0);
        let mut st = b.state();
        let d = b.next_draw(&mut st, &mut rng, true);
        assert!(d.low <= d.wait && d.wait <= d.ceiling, "{d:?}");
        assert_eq!(d.low, ms(1000));
        assert_eq!(
            d.ceiling,
            ms(1000),
            "3 x 100 ms is below the 1 s base: the range is [1 s, 1 s]"
        );
    }
}

#[test]
fn throttle_base_is_used_for_throttling() {
    let mut rng = Rng::from_seed(5);
    let b = BackoffConfig::new(BackoffKind::Exponential)
        .with_base(ms(50))
        .with_throttle_base(Some(ms(1000)))
        .validate()
        .unwrap();
    let mut s = b.state();
    assert_eq!(b.next_draw(&mut s, &mut rng, true).wait, ms(1000));
    assert_eq!(b.next_draw(&mut s, &mut rng, false).wait, ms(100));
}

#[test]
fn errors_name_the_field() {
    let e = BackoffConfig::new(BackoffKind::Full)
        .with_base(ms(5000))
        .with_cap(ms(2000))
        .validate()
        .unwrap_err();
    assert_eq!(e.field, "base");
    assert!(e.to_string().contains("must not exceed cap"));
    assert_eq!(
        BackoffConfig::new(BackoffKind::Full)
            .with_multiplier(f64::NAN)
            .validate()
            .unwrap_err()
            .field,
        "multiplier"
    );
    assert_eq!(
        BackoffConfig::new(BackoffKind::Full)
            .with_multiplier(-2.0)
            .validate()
            .unwrap_err()
            .field,
        "multiplier"
    );
    assert_eq!(
        BackoffConfig::new(BackoffKind::Full)
            .with_cap(Micros::ZERO)
            .validate()
            .unwrap_err()
            .field,
        "cap"
    );
    assert_eq!(
        BackoffConfig::new(BackoffKind::Decorrelated)
            .with_base(Micros::ZERO)
            .validate()
            .unwrap_err()
            .field,
        "base"
    );
    assert!("jittery"
        .parse::<BackoffKind>()
        .unwrap_err()
        .rule
        .contains("accepted none"));
}

#[test]
fn reset_restarts_the_sequence() {
    let mut rng = Rng::from_seed(1);
    let b = BackoffConfig::new(BackoffKind::Exponential)
        .with_base(ms(100))
        .validate()
        .unwrap();
    let mut s = b.state();
    b.next_draw(&mut s, &mut rng, false);
    b.next_draw(&mut s, &mut rng, false);
    b.reset(&mut s);
    assert_eq!(b.next_draw(&mut s, &mut rng, false).wait, ms(100));
}

fn cfg_strategy() -> impl Strategy<Value = (u64, u64, u32, u64)> {
    (1u64..5_000_000, 1u64..60_000_000, 0u32..4, any::<u64>())
        .prop_map(|(base, cap, fe, seed)| (base.min(cap), cap.max(base), fe, seed))
}

/// The 2015 study's backoffs settle where their ceiling reaches the 2 s cap (5 ms doubled
/// from exponent 1: the 8th retry), `none` and `constant` at once, and a first retry at
/// once keeps retry 0 apart.
#[test]
fn ranges_settle_once_the_ceiling_reaches_the_cap() {
    let study = |kind| {
        BackoffConfig::new(kind)
            .with_base(ms(5))
            .with_cap(ms(2000))
            .with_first_exp(1)
    };
    for kind in [
        BackoffKind::Exponential,
        BackoffKind::Full,
        BackoffKind::Equal,
    ] {
        let b = study(kind).validate().unwrap();
        assert!(!b.range_settled(0) && !b.range_settled(7), "{kind:?}");
        assert!(b.range_settled(8) && b.range_settled(63), "{kind:?}");
        assert_ne!(b.wait_range(7), b.wait_range(8), "{kind:?}");
    }
    for kind in [BackoffKind::None, BackoffKind::Constant] {
        assert!(study(kind).validate().unwrap().range_settled(0), "{kind:?}");
        let first_at_once = study(kind).with_first_wait_zero(true).validate().unwrap();
        assert!(!first_at_once.range_settled(0) && first_at_once.range_settled(1));
    }
    let decorrelated = study(BackoffKind::Decorrelated).validate().unwrap();
    assert!(!decorrelated.range_settled(63), "no range known in advance");
}

proptest! {
    /// Wherever a range is said to have settled, every later retry's range is the same.
    #[test]
    fn a_settled_range_is_every_later_retrys(
        (base, cap, fe, _seed) in cfg_strategy(),
        kind in 0usize..5,
        m in 1.0f64..3.0,
        floor in 0u64..50_000,
        retry in 0u32..70,
        jitter in 0usize..3,
        after_cap in any::<bool>(),
    ) {
        let kinds = [
            BackoffKind::None,
            BackoffKind::Constant,
            BackoffKind::Exponential,
            BackoffKind::Full,
            BackoffKind::Equal,
        ];
        let cfg = BackoffConfig::new(kinds[kind])
            .with_base(Micros(base))
            .with_cap(Micros(cap))
            .with_first_exp(fe)
            .with_multiplier(m)
            .with_floor(Micros(floor));
        let jitters = [Jitter::None, Jitter::Mult { lo_milli: 800, hi_milli: 1200 }, Jitter::Add(Micros(10_000))];
        let cfg = if matches!(kinds[kind], BackoffKind::Constant | BackoffKind::Exponential) {
            cfg.with_jitter(jitters[jitter], after_cap)
        } else {
            cfg
        };
        let Ok(b) = cfg.validate() else {
            return Ok(());
        };
        if b.range_settled(retry) {
            for later in [1, 2, 17, 100, 1000, 100_000] {
                prop_assert_eq!(b.wait_range(retry + later), b.wait_range(retry));
            }
        }
    }

    #[test]
    fn full_jitter_in_zero_to_ceiling((base, cap, fe, seed) in cfg_strategy()) {
        let cfg = BackoffConfig::new(BackoffKind::Full).with_base(Micros(base)).with_cap(Micros(cap)).with_first_exp(fe);
        let mut rng = Rng::from_seed(seed);
        for (k, d) in cfg.validate().unwrap().delays(&mut rng).take(20).enumerate() {
            prop_assert_eq!(d.ceiling, cfg.ceiling(k as u32));
            prop_assert!(d.wait <= d.ceiling);
            prop_assert!(d.ceiling <= Micros(cap));
        }
    }

    #[test]
    fn equal_jitter_in_half_to_ceiling((base, cap, fe, seed) in cfg_strategy()) {
        let cfg = BackoffConfig::new(BackoffKind::Equal).with_base(Micros(base)).with_cap(Micros(cap)).with_first_exp(fe);
        let mut rng = Rng::from_seed(seed);
        for d in cfg.validate().unwrap().delays(&mut rng).take(20) {
            prop_assert!(d.wait.0 * 2 >= d.ceiling.0 - d.ceiling.0 % 2);
            prop_assert!(d.wait <= d.ceiling);
        }
    }

    #[test]
    fn decorrelated_in_base_to_cap((base, cap, _fe, seed) in cfg_strategy()) {
        let cfg = BackoffConfig::new(BackoffKind::Decorrelated).with_base(Micros(base)).with_cap(Micros(cap));
        let mut rng = Rng::from_seed(seed);
        let mut prev = base;
        for (k, d) in cfg.validate().unwrap().delays(&mut rng).take(30).enumerate() {
            prop_assert!(d.wait >= Micros(base));
            prop_assert!(d.wait <= Micros(cap));
            prop_assert!(d.wait.0 <= prev.saturating_mul(3));
            prop_assert!(d.wait <= cfg.ceiling(k as u32));
            prev = d.wait.0;
        }
    }

    #[test]
    fn ceilings_never_decrease((base, cap, fe, _seed) in cfg_strategy(), m in 1.0f64..10.0) {
        let cfg = BackoffConfig::new(BackoffKind::Exponential).with_base(Micros(base)).with_cap(Micros(cap)).with_first_exp(fe).with_multiplier(m);
        let mut last = Micros::ZERO;
        for k in 0..40 {
            let c = cfg.ceiling(k);
            prop_assert!(c >= last);
            prop_assert!(c <= Micros(cap));
            last = c;
        }
    }
}

/// Any valid configuration, every shape key included.
fn any_config() -> impl Strategy<Value = BackoffConfig> {
    (
        (
            0usize..BackoffKind::ALL.len(),
            cfg_strategy(),
            1.0f64..4.0,
            0u64..50_000,
        ),
        (0usize..3, 0u64..1000, 1000u64..3000, 0u64..20_000),
        (any::<bool>(), any::<bool>(), any::<bool>()),
    )
        .prop_map(
            |((kind, (base, cap, fe, _), m, floor), (j, lo, hi, add), flags)| {
                let jitter = [
                    Jitter::None,
                    Jitter::Mult {
                        lo_milli: lo,
                        hi_milli: hi,
                    },
                    Jitter::Add(Micros(add)),
                ][j];
                let mut c = BackoffConfig::new(BackoffKind::ALL[kind])
                    .with_base(Micros(base))
                    .with_cap(Micros(cap))
                    .with_multiplier(m)
                    .with_first_exp(fe)
                    .with_floor(Micros(floor));
                c.jitter = jitter;
                (c.jitter_after_cap, c.first_wait_zero, c.ceiling_sum) = flags;
                c
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    /// The fast draws (a range kept in advance, decorrelated jitter's own draw) are the
    /// reference draws (`next_draw`), wait for wait and word for word, for any valid
    /// configuration: a shape key a fast path ignores fails here.
    #[test]
    fn fast_draws_are_the_reference_draws(cfg in any_config(), seed in any::<u64>()) {
        let valid = cfg.validate();
        prop_assume!(valid.is_ok());
        let Ok(b) = valid else { return Ok(()) };
        let (mut reference, mut fast) = (Rng::stream(seed, 3), Rng::stream(seed, 3));
        let (mut ref_state, mut state) = (b.state(), b.state());
        for retry in 0..40 {
            let drawn = b.next_draw(&mut ref_state, &mut reference, false).wait;
            if let Some(range) = b.wait_range(retry) {
                prop_assert_eq!(range.draw(&mut fast), drawn, "{:?}, retry {}", cfg, retry);
                prop_assert_eq!(&fast, &reference, "{:?}, retry {}: words", cfg, retry);
            } else if let Some(w) = b.decorrelated_wait(&mut state, &mut fast) {
                prop_assert_eq!(w, drawn, "{:?}, retry {}", cfg, retry);
                prop_assert_eq!(&fast, &reference, "{:?}, retry {}: words", cfg, retry);
            } else {
                // Neither fast path: the configuration runs the reference draws alone.
                return Ok(());
            }
        }
    }
}

/// Envoy's `random() % window`: retry n waits U{0, ..., c - 1} ms for a ceiling of c ms, every
/// value of it in whole milliseconds, never c itself; and only full jitter takes it.
#[test]
fn whole_ms_draws_envoys_window_in_whole_milliseconds() {
    let mut cfg = BackoffConfig::new(BackoffKind::Full)
        .with_base(ms(25))
        .with_cap(ms(250));
    cfg.whole_ms = true;
    let b = cfg.validate().unwrap();
    assert_eq!(
        b.wait_range(0).map(|r| (r.draws(), r.step())),
        Some((25, 1000))
    );
    let mut counts = [0u32; 25];
    for seed in 0..5_000 {
        let mut rng = Rng::stream(seed, 0);
        let mut st = b.state();
        for (retry, ceiling) in [25u64, 50, 100, 200, 250, 250].into_iter().enumerate() {
            let d = b.next_draw(&mut st, &mut rng, false);
            assert_eq!(d.ceiling, ms(ceiling));
            assert_eq!(d.wait.0 % 1000, 0, "{}", d.wait);
            assert!(d.wait < ms(ceiling), "retry {retry}: {}", d.wait);
            if retry == 0 {
                counts[(d.wait.0 / 1000) as usize] += 1;
            }
        }
    }
    // 5000 draws over 25 values: each near 200, none missing.
    assert!(counts.iter().all(|c| (140..=260).contains(c)), "{counts:?}");
    let mut exp = BackoffConfig::new(BackoffKind::Exponential);
    exp.whole_ms = true;
    assert_eq!(exp.validate().unwrap_err().field, "whole_ms");
}

/// Decorrelated-v2 drawn one request at a time is the per-request draw, word for word, and its
/// pieces of equal chance hold every draw: the wait of a draw `u` lies in piece
/// `floor(u x pieces)`'s range (capped and floored), and the curve value the piece carries on
/// lies between those of its edges. A first retry that waits nothing keeps the curve at 0.
#[test]
fn polly_v2_pieces_hold_the_per_request_draws() {
    let plain = BackoffConfig::new(BackoffKind::DecorrelatedV2)
        .with_base(ms(100))
        .with_cap(ms(1_500));
    for cfg in [
        plain,
        plain.with_floor(ms(120)),
        plain.with_first_wait_zero(true),
    ] {
        let b = cfg.validate().unwrap();
        for seed in 0..50 {
            let mut rng = Rng::stream(seed, 0);
            let mut copy = rng.clone();
            let mut st = b.state();
            let mut prev = 0u64;
            for retry in 0..6u32 {
                let pieces = b.decorrelated_v2_pieces(retry, prev, 32).unwrap();
                let drawn = b.next_draw(&mut st, &mut rng, false).wait;
                let zero = cfg.first_wait_zero && retry == 0;
                let u = if zero { 0.0 } else { copy.next_f64() };
                let (wait, next) = b.decorrelated_v2_draw(retry, prev, u);
                assert_eq!(wait, drawn, "seed {seed} retry {retry}");
                let j = ((u * pieces.len() as f64) as usize).min(pieces.len() - 1);
                let (range, carried) = pieces[j];
                let (low, high, floor) = range.parts();
                let (lo, hi) = (
                    low.min(range.cap()).max(floor),
                    high.min(range.cap()).max(floor),
                );
                assert!(lo <= wait.0 && wait.0 <= hi, "{lo} <= {} <= {hi}", wait.0);
                if zero {
                    assert_eq!((pieces.len(), carried, next), (1, prev, prev));
                } else {
                    // The curve at the piece's edges bounds both the value carried and the draw's.
                    let curve = |e: usize| {
                        let x = e as f64 / pieces.len() as f64;
                        crate::retry::jitter::decorrelated_v2(retry, x, 0.0, ms(100)).1
                    };
                    let (a, z) = (curve(j), curve(j + 1));
                    for v in [f64::from_bits(carried), f64::from_bits(next)] {
                        assert!(a <= v && v <= z, "{a} <= {v} <= {z}");
                    }
                }
                prev = next;
            }
        }
    }
    let full = BackoffConfig::new(BackoffKind::Full).validate().unwrap();
    assert!(full.decorrelated_v2_pieces(0, 0, 32).is_none());
}
