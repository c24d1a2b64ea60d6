//! Every chart drawn on a recording surface, at the narrowest canvas the page makes (320 CSS px)
//! and at a high-density one: it names its axes and its legend, and nothing lands off the canvas,
//! also for degenerate data (all zeros, one value, nothing at all).

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea};
use retry_model::sim::{simulate, Rates};
use retry_model::Params;
use retrylab_web::charts::bars::{draw_bars, BarSeries, Bars};
use retrylab_web::charts::plot::CanvasRecorder;
use retrylab_web::charts::sweepchart::{draw_sweep, Line, SweepChart};
use retrylab_web::charts::system::{draw_system, SystemChart};
use retrylab_web::charts::timeline::{draw_timeline, Timeline};
use retrylab_web::charts::writes::{draw_writes, WritesSide};

/// The canvas sizes the page makes: the narrowest at 1x, a wide one at 2x.
const SIZES: [(u32, u32, f64); 2] = [(320, 260, 1.0), (1800, 760, 2.0)];

fn rates(link: &str) -> (Vec<Rates>, f64) {
    let p: Params = link.parse().unwrap();
    let r = simulate(&p).unwrap();
    (r.series.rates(), r.series.bin_ms / 1000.0)
}

/// Draws with `draw` on each size; checks nothing is off the canvas and `texts` are drawn.
fn check(name: &str, texts: &[&str], draw: impl Fn(&DrawingArea<CanvasRecorder, Shift>, f64)) {
    for (w, h, scale) in SIZES {
        let rec = CanvasRecorder::new(w, h);
        let area = rec.clone().into_drawing_area();
        draw(&area, scale);
        let d = rec.drawn();
        assert!(
            d.outside.is_empty(),
            "{name} at {w}x{h}: off the canvas {:?} (texts {:?})",
            d.outside,
            d.texts
        );
        for t in texts {
            assert!(
                rec.has_text(t),
                "{name} at {w}x{h}: `{t}` missing from {:?}",
                d.texts
            );
        }
    }
}

#[test]
fn the_system_panels_name_their_units_and_legends() {
    let (a, bin_s) = rates("preset=metastable-budget&duration=20s");
    let (b, _) = rates("preset=metastable-none&duration=20s");
    let sides = vec![a, b];
    let s = SystemChart {
        sides: &sides,
        bin_s,
        outage: Some((5.0, 10.0, "outage")),
        queue: false,
        capacity: true,
        budget: true,
        breaker: false,
    };
    check(
        "system",
        &[
            "failed/s",
            "% used",
            "count",
            "time (s)",
            "budget tokens",
            "B: all failures",
            "in flight",
        ],
        |area, scale| draw_system(area, &s, scale).unwrap(),
    );
    let rec = CanvasRecorder::new(900, 700);
    draw_system(&rec.clone().into_drawing_area(), &s, 1.0).unwrap();
    assert!(rec.drawn().dashed >= 3, "side B is dashed in every panel");
    // No run at all: empty panels with their axes, no failure bands.
    let empty: Vec<Vec<Rates>> = vec![Vec::new()];
    let none = SystemChart {
        sides: &empty,
        outage: None,
        ..s
    };
    check(
        "empty system",
        &["no request failed", "count"],
        |area, scale| draw_system(area, &none, scale).unwrap(),
    );
}

#[test]
fn the_timeline_stays_readable_when_nothing_happens() {
    let (mut r, bin_s) = rates("preset=payments-jitter&duration=5s");
    for b in &mut r {
        (b.originals, b.attempts, b.successes, b.failures) = (0.0, 0.0, 0.0, 0.0);
    }
    let sides = vec![r];
    let t = Timeline {
        sides: &sides,
        bin_s,
        outage: None,
        title: "nothing".into(),
        hedged: false,
        recovery: None,
        bands: Vec::new(),
        band_label: None,
    };
    check(
        "zeros",
        &["nothing", "per second", "time (s)", "0", "1"],
        |area, scale| {
            let map = draw_timeline(area, &t, scale).unwrap();
            assert!(map.bin_at(f64::from(area.dim_in_pixel().0) / 2.0).is_some());
        },
    );
}

#[test]
fn a_sweep_with_reference_markers_and_a_single_value() {
    let c = SweepChart {
        title: "write calls".into(),
        x_label: "clients".into(),
        x: Some(vec![5.0, 10.0, 50.0]),
        x_text: vec!["5".into(), "10".into(), "50".into()],
        y_label: "write calls per client".into(),
        lines: vec![
            Line {
                name: "backoff=none".into(),
                values: vec![Some(10.0), Some(60.0), Some(9000.0)],
                reference: vec![Some(11.0), None, Some(8800.0)],
                bars: vec![],
            },
            Line {
                name: "backoff=full".into(),
                values: vec![Some(8.0), None, Some(40.0)],
                reference: vec![],
                bars: vec![],
            },
        ],
        reference_name: Some("the 2015 post (hollow)".into()),
    };
    check(
        "sweep",
        &[
            "write calls",
            "clients",
            "write calls per client (log scale)",
            "backoff=full",
            "the 2015 post (hollow)",
            "1k",
        ],
        |area, scale| {
            let map = draw_sweep(area, &c, scale).unwrap();
            let w = f64::from(area.dim_in_pixel().0);
            assert!(map.index_at(w * 0.4).is_some(), "the middle reads a value");
            assert_eq!(map.index_at(w * 2.0), None, "past the frame");
        },
    );
    let one = SweepChart {
        x: None,
        x_text: vec!["full".into()],
        lines: vec![Line {
            name: "attempts".into(),
            values: vec![Some(3.0)],
            reference: vec![],
            bars: vec![],
        }],
        reference_name: None,
        ..c
    };
    check("one value", &["full", "attempts"], |area, scale| {
        draw_sweep(area, &one, scale).unwrap();
    });
    // A menu key's values (backoff kinds) are markers, not joined by a line; numbers are.
    let paths = |chart: &SweepChart| {
        let rec = CanvasRecorder::new(900, 500);
        draw_sweep(&rec.clone().into_drawing_area(), chart, 1.0).unwrap();
        rec.drawn().paths
    };
    let kinds = SweepChart {
        x: None,
        x_text: vec!["none".into(), "exponential".into(), "full".into()],
        lines: vec![Line {
            name: "attempts".into(),
            values: vec![Some(3.0), Some(5.0), Some(4.0)],
            reference: vec![],
            bars: vec![],
        }],
        ..one
    };
    // A second line with the same values adds its legend swatch, and on a numeric axis its join.
    let twice = |c: &SweepChart| SweepChart {
        lines: vec![
            c.lines[0].clone(),
            Line {
                name: "again".into(),
                ..c.lines[0].clone()
            },
        ],
        ..c.clone()
    };
    let numbers = SweepChart {
        x: Some(vec![1.0, 2.0, 3.0]),
        ..kinds.clone()
    };
    // The two legends are the same; only the numbers' second line adds its (dashed) join.
    let (kind_line, number_line) = (
        paths(&twice(&kinds)) - paths(&kinds),
        paths(&twice(&numbers)) - paths(&numbers),
    );
    assert!(
        number_line > kind_line,
        "numbers are joined, kinds are not: {number_line} against {kind_line}"
    );
    // Over several runs each value has its error bar: a stem and two caps a value.
    let mut ranged = numbers.clone();
    ranged.lines[0].bars = vec![Some((2.5, 3.5)), None, Some((3.0, 5.0))];
    assert_eq!(
        paths(&ranged) - paths(&numbers),
        6,
        "two bars of three strokes"
    );
}

#[test]
fn bars_label_each_bar_and_go_logarithmic_over_decades() {
    let b = Bars {
        title: "calls per user request".into(),
        y_label: "calls".into(),
        categories: vec!["layer 1".into(), "bottom".into()],
        series: vec![
            BarSeries {
                name: "worst case".into(),
                bars: vec![Some((3.0, "3".into())), Some((6561.0, "6561".into()))],
            },
            BarSeries {
                name: "simulated".into(),
                bars: vec![Some((1.2, "1.2".into())), None],
            },
        ],
    };
    check(
        "bars",
        &[
            "calls (log scale)",
            "6561",
            "1.2",
            "layer 1",
            "bottom",
            "worst case",
        ],
        |area, scale| {
            draw_bars(area, &b, scale).unwrap();
        },
    );
    let zeros = Bars {
        series: vec![BarSeries {
            name: "duplicates".into(),
            bars: vec![Some((0.0, "0".into())), Some((0.0, "0".into()))],
        }],
        ..b
    };
    check("zero bars", &["calls", "0", "duplicates"], |area, scale| {
        draw_bars(area, &zeros, scale).unwrap()
    });
}

/// On a phone's canvas the layers chart's names and values do not run into each other: no two
/// texts on one line overlap (as the recorder measures them).
#[test]
fn the_layers_bars_keep_their_words_apart_on_a_phone() {
    let bar = |v: f64, t: &str| Some((v, t.to_string()));
    let b = Bars {
        title: "Calls per user request reaching each layer".into(),
        y_label: "calls per user request".into(),
        categories: ["layer 1 (top)", "layer 2", "layer 3", "bottom dependency"]
            .map(String::from)
            .to_vec(),
        series: vec![
            BarSeries {
                name: "worst case".into(),
                bars: vec![bar(1.0, "1"), bar(3.0, "3"), bar(9.0, "9"), bar(27.0, "27")],
            },
            BarSeries {
                name: "simulated".into(),
                bars: vec![None, None, None, bar(27.0, "27x")],
            },
        ],
    };
    for (w, h) in [(340, 385), (300, 385)] {
        let rec = CanvasRecorder::new(w, h);
        draw_bars(&rec.clone().into_drawing_area(), &b, 1.0).unwrap();
        let d = rec.drawn();
        assert!(d.outside.is_empty(), "{w}: off the canvas {:?}", d.outside);
        let flat: Vec<_> = d.texts.iter().filter(|t| !t.2).collect();
        let span = |t: &str, x: i32| {
            let len = (t.chars().count() as f64 * 12.0 * 0.55).round() as i32;
            (x - len / 2, x + len / 2)
        };
        for (i, a) in flat.iter().enumerate() {
            for b in &flat[i + 1..] {
                if a.1 .1 != b.1 .1 || a.0.is_empty() || b.0.is_empty() {
                    continue;
                }
                let (a0, a1) = span(&a.0, a.1 .0);
                let (b0, b1) = span(&b.0, b.1 .0);
                assert!(a1 <= b0 || b1 <= a0, "{w}: `{}` runs into `{}`", a.0, b.0);
            }
        }
        assert!(rec.has_text("dependency"), "{:?}", d.texts);
    }
}

#[test]
fn write_panels_share_one_height() {
    let panels = vec![
        WritesSide {
            title: "A: backoff=exponential".into(),
            bin_ms: 10.0,
            counts: vec![0, 40, 0, 0, 12],
        },
        WritesSide {
            title: "B: backoff=full".into(),
            bin_ms: 10.0,
            counts: vec![3, 4, 5],
        },
    ];
    check(
        "writes",
        &[
            "A: backoff=exponential",
            "B: backoff=full",
            "write calls per 10 ms",
            "time (s)",
        ],
        |area, scale| {
            draw_writes(area, &panels, scale).unwrap();
        },
    );
}

#[test]
fn the_request_views_fit_a_narrow_canvas() {
    let p: Params = "preset=guide-700ms".parse().unwrap();
    let t = retry_model::trace(&p).unwrap();
    check(
        "deadline",
        &[
            "time on the request's clock (ms)",
            "attempt 1",
            "deadline",
            "a retry that did not fit (dashed)",
        ],
        |area, scale| {
            let map = retrylab_web::charts::deadline::draw_deadline(
                area,
                &t,
                p.policy.deadline,
                p.policy.reserve,
                Some(0),
                None,
                scale,
            )
            .unwrap();
            assert!(map
                .attempt_at(f64::from(area.dim_in_pixel().1) / 2.0)
                .is_some());
        },
    );
    let p: Params = "backoff=equal&attempts=6&clients=40".parse().unwrap();
    let s = retry_model::schedule(&p).unwrap();
    check(
        "schedule",
        &[
            "wait (ms)",
            "retry number (retry k is attempt k+1)",
            "client 3's waits",
        ],
        |area, scale| {
            let map = retrylab_web::charts::schedule::draw_schedule(
                area,
                &s,
                retry_model::BackoffKind::Equal,
                Some(3),
                scale,
            )
            .unwrap();
            assert_eq!(map.len(), 5 * 40);
        },
    );
}

/// Two clients' schedules on one chart and the amplification tree, on a narrow canvas too.
#[test]
fn two_schedules_and_the_tree_fit_a_narrow_canvas() {
    // Two clients on one chart: side B's dots and dashed largest waits beside side A's.
    let p: Params = "preset=openai&b.preset=got&clients=30".parse().unwrap();
    let a = retry_model::schedule(&p.side_a()).unwrap();
    let (_, b) = retry_model::json::schedule_b(&p).unwrap();
    check(
        "schedule of two clients",
        &[
            "A: drawn wait (one dot per client)",
            "B: drawn wait",
            "B: largest possible wait",
        ],
        |area, scale| {
            let map = retrylab_web::charts::schedule::draw_schedules(
                area,
                &a,
                Some(&b),
                retry_model::BackoffKind::Exponential,
                None,
                scale,
            )
            .unwrap();
            // The map holds side A's dots only (2 retries x 30 clients).
            assert_eq!(map.len(), 2 * 30);
        },
    );
    let tree = retry_model::call_tree(&[3, 3, 3], 1.0, 7).unwrap();
    let names: Vec<String> = ["browser.json", "envoy.yaml", "service.yml"]
        .map(String::from)
        .to_vec();
    check(
        "tree",
        &["3 of 3", "27 of 27", "envoy.yaml -> service.yml"],
        |area, scale| {
            retrylab_web::charts::treechart::draw_tree(
                area,
                &tree,
                &names,
                retrylab_web::charts::treechart::TreeShown::Levels(3),
                scale,
            )
            .unwrap();
        },
    );
}

/// A sweep over decades (a thousand to a million clients) is placed by the logarithm: its
/// points sit evenly across the plot, and the axis says so.
#[test]
fn a_sweep_over_decades_has_a_log_axis() {
    let c = SweepChart {
        title: "amplification against clients".into(),
        x_label: "clients".into(),
        x: Some(vec![1e3, 1e4, 1e5, 1e6]),
        x_text: vec![
            "1000".into(),
            "10000".into(),
            "100000".into(),
            "1000000".into(),
        ],
        y_label: "amplification".into(),
        lines: vec![Line {
            name: "backoff=full".into(),
            values: vec![Some(1.0), Some(2.0), Some(4.8), Some(8.3)],
            reference: vec![],
            bars: vec![],
        }],
        reference_name: None,
    };
    check(
        "decades",
        &["clients (log scale)", "backoff=full"],
        |area, scale| {
            let map = draw_sweep(area, &c, scale).unwrap();
            let w = f64::from(area.dim_in_pixel().0);
            // Reading across the plot meets every point in turn, each over its own share.
            let seen: Vec<usize> = (1..40)
                .filter_map(|i| map.index_at(w * f64::from(i) / 40.0))
                .collect();
            for k in 0..4 {
                let share = seen.iter().filter(|&&s| s == k).count();
                assert!(
                    share >= 4,
                    "point {k} under {share} of 39 readings: {seen:?}"
                );
            }
        },
    );
    // The last decade's label stays on a narrower span too.
    let three = SweepChart {
        x: Some(vec![1e3, 1e4, 1e5]),
        x_text: vec!["1000".into(), "10000".into(), "100000".into()],
        lines: vec![Line {
            name: "budget=ratio".into(),
            values: vec![Some(1.0), Some(1.2), Some(1.2)],
            reference: vec![],
            bars: vec![],
        }],
        ..c
    };
    check("three decades", &["1k", "10k", "100k"], |area, scale| {
        draw_sweep(area, &three, scale).unwrap();
    });
    assert!(retrylab_web::charts::sweepchart::spans_decades(Some(&[
        1e3, 1e6
    ])));
    assert!(!retrylab_web::charts::sweepchart::spans_decades(Some(&[
        10.0, 500.0, 900.0
    ])));
    assert!(!retrylab_web::charts::sweepchart::spans_decades(Some(&[
        0.0, 1e6
    ])));
}

/// A caption too long for two lines on a phone's canvas wraps word by word at its full size,
/// every word drawn, every line inside the canvas.
#[test]
fn a_long_caption_wraps_on_a_phone() {
    let title = "probability of collapse (share of runs that did not recover) by spike_rate and spike_for (400 rows; 6 to 100 runs a cell of 100, each stopped once clear of 50%)";
    let rec = CanvasRecorder::new(340, 500);
    let area = rec.clone().into_drawing_area();
    retrylab_web::charts::plot::caption(&area, title, 15.0).unwrap();
    let d = rec.drawn();
    assert!(d.outside.is_empty(), "{:?}", d.outside);
    let lines: Vec<&str> = d.texts.iter().map(|(t, _, _)| t.as_str()).collect();
    assert!(lines.len() >= 3, "{lines:?}");
    assert_eq!(lines.join(" "), title);
    for l in &lines {
        // About 7 px a character at 15 px: no line wider than the canvas.
        assert!(l.chars().count() * 7 <= 340, "{l}");
    }
}
