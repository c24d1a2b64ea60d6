//! The scenario timeline: original requests, attempts, successes and failures per second over
//! the run, with the trigger's window (outage, load spike or capacity drop) shaded.
//!
//! Drawing only: the rates come from `retry_model::sim::Report::rates`. Original requests are
//! drawn apart from attempts, so a reader sees the retries as the gap between the two lines. When
//! a series spans more than two decades (a storm), the y axis is logarithmic. The returned
//! [`TimeMap`] turns a pointer's x back into a bin, for the readout.

use crate::charts::key::{split_with_keys, LegendEntry, Swatch, DASHED, SOLID};
use crate::charts::plot::{axis_names, x_ticks, AxisNames, XFit};
use plotters::coord::Shift;
use plotters::prelude::*;
use retry_model::sim::Rates;

/// What the timeline draws.
pub struct Timeline<'a> {
    /// One entry per bin, per side: side A drawn solid, side B (a comparison's) dashed.
    pub sides: &'a [Vec<Rates>],
    /// The bin width in seconds.
    pub bin_s: f64,
    /// The trigger's window in seconds and its name (the outage, a load spike or a capacity
    /// drop), if the scenario has one.
    pub outage: Option<(f64, f64, &'static str)>,
    /// The chart's caption.
    pub title: String,
    /// Whether the requests hedge (the attempts line then counts hedges, not retries).
    pub hedged: bool,
    /// Side A's recovery after its trigger: when it recovered (a line there) and the report's
    /// sentence for the legend; `None` without a verdict.
    pub recovery: Option<(Option<f64>, String)>,
    /// With several runs, each side's range of attempts/s per bin over the runs, shaded
    /// around its line, and the legend's words for it (`48 of 50 runs`).
    pub bands: Vec<Option<Vec<(f64, f64)>>>,
    /// The band's legend entry, when there is a band.
    pub band_label: Option<String>,
}

/// Where the time axis landed, in canvas pixels.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimeMap {
    x0: f64,
    x1: f64,
    t1: f64,
    bin_s: f64,
    bins: usize,
}

impl TimeMap {
    /// The bin under pixel column `x`, if any.
    pub fn bin_at(&self, x: f64) -> Option<usize> {
        if self.bins == 0 || x < self.x0 || x > self.x1 || self.x1 <= self.x0 {
            return None;
        }
        let t = (x - self.x0) / (self.x1 - self.x0) * self.t1;
        Some(((t / self.bin_s) as usize).min(self.bins - 1))
    }
}

/// A line: its legend, colour, width (CSS pixels; the widths differ too, so the lines stay
/// apart without colour) and value per bin.
type SeriesLine = (&'static str, RGBColor, f64, fn(&Rates) -> f64);

// The Okabe-Ito palette (colour-blind safe); the series also differ in width and dash.
const ORIGINALS: RGBColor = RGBColor(0, 114, 178);
const ATTEMPTS: RGBColor = RGBColor(213, 94, 0);
const SUCCESSES: RGBColor = RGBColor(0, 158, 115);
const FAILURES: RGBColor = RGBColor(0, 0, 0);
const OUTAGE: RGBColor = RGBColor(255, 200, 120);
const LIMITER: RGBColor = RGBColor(204, 121, 167);
const RECOVERED: RGBColor = RGBColor(0, 120, 60);
const METASTABLE: RGBColor = RGBColor(200, 30, 30);

/// The y axis: linear from 0, or log10 when the largest value is more than 100 times the
/// smallest positive one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct YAxis {
    /// Whether values are drawn as log10.
    pub log: bool,
    /// The lowest drawn value (the axis floor).
    pub lo: f64,
    /// The highest drawn value.
    pub hi: f64,
}

impl YAxis {
    /// The axis for these values; all zeros or a single value still give a readable range.
    pub fn for_values(values: impl Iterator<Item = f64> + Clone) -> YAxis {
        let max = values.clone().fold(0.0f64, f64::max);
        let min_pos = values.filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min);
        if max <= 0.0 {
            return YAxis {
                log: false,
                lo: 0.0,
                hi: 1.0,
            };
        }
        if max / min_pos > 100.0 {
            let lo = libm_floor_log10(min_pos);
            let hi = libm_floor_log10(max) + 1.0;
            return YAxis { log: true, lo, hi };
        }
        YAxis {
            log: false,
            lo: 0.0,
            hi: max * 1.1,
        }
    }

    /// Where value `v` is drawn.
    pub fn place(&self, v: f64) -> f64 {
        if self.log {
            if v <= 0.0 {
                self.lo
            } else {
                libm::log10(v).max(self.lo)
            }
        } else {
            v
        }
    }

    /// A tick's label: the value itself (`10`, `1k`, `1M`, `0.1`).
    pub fn label(&self, y: f64) -> String {
        if self.log && (y - y.round()).abs() > 1e-9 {
            return String::new();
        }
        let v = if self.log {
            libm::pow(10.0, libm::round(y))
        } else {
            y
        };
        if v >= 1e6 {
            format!("{}M", round_sig(v / 1e6))
        } else if v >= 1000.0 {
            format!("{}k", round_sig(v / 1000.0))
        } else {
            round_sig(v)
        }
    }
}

fn libm_floor_log10(v: f64) -> f64 {
    libm::floor(libm::log10(v))
}

pub(crate) fn round_sig(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round())
    } else if v >= 10.0 {
        format!("{v:.0}")
    } else {
        format!("{}", (v * 100.0).round() / 100.0)
    }
}

/// Draws the timeline on `area` (device pixels; `scale` is the devicePixelRatio).
pub fn draw_timeline<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    t: &Timeline<'_>,
    scale: f64,
) -> Result<TimeMap, String> {
    let px = |v: f64| (v * scale).round() as i32;
    area.fill(&WHITE).map_err(|e| e.to_string())?;
    let n = t.sides.iter().map(Vec::len).max().unwrap_or(0);
    let t1 = (n as f64 * t.bin_s).max(t.bin_s).max(1e-3);
    let limited = t.sides.iter().flatten().any(|r| r.limiter > 0.0);
    let values = t
        .sides
        .iter()
        .flatten()
        .flat_map(|r| [r.originals, r.attempts, r.successes, r.failures, r.limiter]);
    let highs = t.bands.iter().flatten().flatten().map(|b| b.1);
    let y = YAxis::for_values(values.chain(highs));
    let series = timeline_series(limited, t.hedged);
    let style_of = |color: RGBColor, width: f64| {
        ShapeStyle::from(&color).stroke_width(px(width).max(1) as u32)
    };
    let keys = timeline_keys(t, &series, scale);
    let plot = split_with_keys(area, &keys, 76.0 * scale, 12.0, scale)?;
    let plot = crate::charts::plot::caption(&plot, &t.title, 16.0 * scale)?;
    let mut chart = ChartBuilder::on(&plot)
        .margin(px(12.0))
        .x_label_area_size(px(40.0))
        .y_label_area_size(px(64.0))
        .build_cartesian_2d(0.0f64..t1, y.lo..y.hi)
        .map_err(|e| e.to_string())?;
    timeline_mesh(&mut chart, &plot, &y, scale)?;
    if let Some((a, b, _)) = t.outage {
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(a, y.lo), (b.min(t1), y.hi)],
                OUTAGE.mix(0.35).filled(),
            )))
            .map_err(|e| e.to_string())?;
    }
    for band in t.bands.iter().flatten() {
        draw_band(&mut chart, band, t.bin_s, &y)?;
    }
    for (side, rates) in t.sides.iter().enumerate() {
        for &(_, color, width, value) in &series {
            let style = style_of(color, width);
            let points = rates
                .iter()
                .map(|r| (r.t_s + t.bin_s / 2.0, y.place(value(r))));
            if side == 0 {
                chart
                    .draw_series(LineSeries::new(points, style))
                    .map_err(|e| e.to_string())?;
            } else {
                chart
                    .draw_series(DashedLineSeries::new(points, px(6.0), px(4.0), style))
                    .map_err(|e| e.to_string())?;
            }
        }
    }
    if let Some(at) = t.recovery.as_ref().and_then(|r| r.0).filter(|a| *a <= t1) {
        let style = style_of(RECOVERED, 2.0);
        chart
            .draw_series(DashedLineSeries::new(
                [(at, y.lo), (at, y.hi)],
                px(6.0),
                px(4.0),
                style,
            ))
            .map_err(|e| e.to_string())?;
    }
    let (x0, _) = chart.backend_coord(&(0.0, y.lo));
    let (x1, _) = chart.backend_coord(&(t1, y.lo));
    area.present().map_err(|e| e.to_string())?;
    Ok(TimeMap {
        x0: f64::from(x0),
        x1: f64::from(x1),
        t1,
        bin_s: t.bin_s,
        bins: n,
    })
}

/// A band of attempts/s per bin, `(low, high)`, shaded between its edges at the bins' middles.
fn draw_band<DB: DrawingBackend>(
    chart: &mut crate::charts::plot::Chart<'_, DB>,
    band: &[(f64, f64)],
    bin_s: f64,
    y: &YAxis,
) -> Result<(), String> {
    let at = |i: usize| i as f64 * bin_s + bin_s / 2.0;
    let upper = band.iter().enumerate().map(|(i, b)| (at(i), y.place(b.1)));
    let lower = band
        .iter()
        .enumerate()
        .rev()
        .map(|(i, b)| (at(i), y.place(b.0)));
    let outline: Vec<(f64, f64)> = upper.chain(lower).collect();
    chart
        .draw_series(std::iter::once(Polygon::new(
            outline,
            ATTEMPTS.mix(0.4).filled(),
        )))
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// The lines: attempts, originals, successes, failures, and the send rate an adaptive rate
/// limiter allows when the run has one that turned on.
fn timeline_series(limited: bool, hedged: bool) -> Vec<SeriesLine> {
    let attempts = if hedged {
        "attempts/s (hedges included)"
    } else {
        "attempts/s (retries included)"
    };
    let mut series: Vec<SeriesLine> = vec![
        (attempts, ATTEMPTS, 3.5, |r| r.attempts),
        ("original requests/s", ORIGINALS, 2.0, |r| r.originals),
        ("successes/s", SUCCESSES, 1.5, |r| r.successes),
        ("failed requests/s", FAILURES, 1.0, |r| r.failures),
    ];
    if limited {
        series.push(("send rate the limiter allows/s", LIMITER, 2.0, |r| {
            r.limiter
        }));
    }
    series
}

/// The legend under the plot: the outage's shade, then each series (side B's dashed swatch
/// beside A's solid one).
fn timeline_keys(t: &Timeline<'_>, series: &[SeriesLine], scale: f64) -> Vec<LegendEntry> {
    let px = |v: f64| (v * scale).round() as i32;
    let two = t.sides.len() > 1;
    let style_of = |color: RGBColor, width: f64| {
        ShapeStyle::from(&color).stroke_width(px(width).max(1) as u32)
    };
    let recovery = t.recovery.iter().map(|(at, text)| {
        let swatch = match at {
            Some(_) => Swatch::Line(style_of(RECOVERED, 2.0), DASHED),
            None => Swatch::Block(METASTABLE.mix(0.6)),
        };
        LegendEntry::new(swatch, format!("recovered: {text}"))
    });
    t.outage
        .iter()
        .map(|(_, _, name)| LegendEntry::new(Swatch::Block(OUTAGE.mix(0.5)), *name))
        .chain(recovery)
        .chain(
            t.band_label
                .iter()
                .map(|label| LegendEntry::new(Swatch::Block(ATTEMPTS.mix(0.4)), label.clone())),
        )
        .chain(series.iter().map(|(label, color, width, _)| {
            let style = style_of(*color, *width);
            let mut k = LegendEntry::new(Swatch::Line(style, SOLID), *label);
            if two {
                k.swatches.push(Swatch::Line(style, DASHED));
            }
            k
        }))
        .collect()
}

/// The axes: time across; per second up, on a log axis a tick on each decade.
fn timeline_mesh<DB: DrawingBackend>(
    chart: &mut crate::charts::plot::Chart<'_, DB>,
    plot: &DrawingArea<DB, Shift>,
    y: &YAxis,
    scale: f64,
) -> Result<(), String> {
    let font = |v: f64| (FontFamily::SansSerif, v * scale);
    let y_desc = if y.log {
        "per second (log scale; 0 sits on the floor)"
    } else {
        "per second"
    };
    // On a log axis a tick sits on each decade (1, 10, 100, 1k), never between.
    let y_ticks = if y.log {
        (y.hi - y.lo) as usize + 1
    } else {
        10
    };
    let plot_w = f64::from(chart.plotting_area().dim_in_pixel().0);
    let fit = XFit::of(chart, plot, 12.0 * scale);
    chart
        .configure_mesh()
        .y_labels(y_ticks)
        .x_labels(x_ticks(plot_w, 12.0 * scale, 10))
        .y_label_formatter(&|v| y.label(*v))
        .x_label_formatter(&|v| fit.label(*v, round_sig(*v)))
        .label_style(font(12.0))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(|e| e.to_string())?;
    let names = AxisNames {
        x: Some("time (s)"),
        y: Some(y_desc),
        size: 13.0 * scale,
        bands: (40.0 * scale, 64.0 * scale),
    };
    axis_names(chart, plot, &names)
}

/// What the timeline's title calls the system: the server when it is not the tick server,
/// then the trigger (else, for the tick server, the scenario): "queue server, load spike",
/// "flaky dependency", "outage", "burst".
pub fn system_name(p: &retry_model::Params, scenario: &str, trigger: Option<&str>) -> String {
    let server = match p.sim.server().map(|s| s.kind) {
        Some(retry_model::sim::ServerKind::Queue) => Some("queue server"),
        Some(retry_model::sim::ServerKind::Flaky) => Some("flaky dependency"),
        Some(retry_model::sim::ServerKind::Tick) | None => None,
    };
    match (server, trigger) {
        (Some(s), Some(t)) => format!("{s}, {t}"),
        (Some(s), None) => s.to_string(),
        (None, Some(t)) => t.to_string(),
        (None, None) if scenario == "occ" => "the 2015 study".to_string(),
        (None, None) => scenario.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_title_names_the_server_and_the_trigger() {
        let name = |q: &str, trigger| system_name(&q.parse().unwrap(), "outage", trigger);
        assert_eq!(
            name("preset=queue-spike-none", Some("load spike")),
            "queue server, load spike"
        );
        assert_eq!(name("preset=flaky-retries", None), "flaky dependency");
        assert_eq!(name("preset=payments-none", Some("outage")), "outage");
        assert_eq!(name("preset=payments-none", None), "outage");
        assert_eq!(
            system_name(&"preset=occ-2015".parse().unwrap(), "occ", None),
            "the 2015 study"
        );
    }

    #[test]
    fn axes_stay_readable_in_degenerate_cases() {
        let zeros = YAxis::for_values([0.0, 0.0].into_iter());
        assert_eq!((zeros.log, zeros.lo, zeros.hi), (false, 0.0, 1.0));
        let one = YAxis::for_values([40.0].into_iter());
        assert!(!one.log && one.hi > 40.0);
        let storm = YAxis::for_values([40.0, 40_000.0, 0.0].into_iter());
        assert!(storm.log, "three decades: log scale");
        assert_eq!((storm.lo, storm.hi), (1.0, 5.0));
        assert_eq!(storm.label(3.0), "1k");
        assert_eq!(storm.label(6.0), "1M", "not 1000k");
        assert_eq!(storm.label(7.0), "10M");
        assert_eq!(
            storm.label(3.5),
            "",
            "only decades are labelled on a log axis"
        );
        assert_eq!(storm.place(0.0), 1.0, "zeros sit on the floor");
    }

    /// A recovery line: when the run recovered, and the sentence.
    type RecoveryLine = Option<(Option<f64>, String)>;

    /// The payments storm's first 20 s: its rates, bin width and recovery line.
    fn storm_run() -> (Vec<Vec<retry_model::sim::Rates>>, f64, RecoveryLine) {
        let p: retry_model::Params = "preset=payments-none&duration=20s".parse().unwrap();
        let r = retry_model::sim::simulate(&p).unwrap();
        let recovery = r.summary.recovery.map(|x| (x.recovered_at_s, x.text()));
        (vec![r.series.rates()], r.series.bin_ms / 1000.0, recovery)
    }

    /// Its timeline, the outage shaded.
    fn storm_timeline(
        sides: &[Vec<retry_model::sim::Rates>],
        bin_s: f64,
        recovery: RecoveryLine,
    ) -> Timeline<'_> {
        Timeline {
            sides,
            bin_s,
            outage: Some((5.0, 10.0, "outage")),
            title: "outage: requests and attempts per second".into(),
            hedged: false,
            recovery,
            bands: Vec::new(),
            band_label: None,
        }
    }

    /// With several runs the band is shaded inside the plot, named in the legend, and the axis
    /// reaches the band's top, above the first run's own peak.
    #[test]
    fn several_runs_shade_their_range_around_the_first() {
        let p: retry_model::Params = "preset=payments-jitter&runs=20".parse().unwrap();
        let r = retry_model::sim::simulate(&p).unwrap();
        let band = r.band.as_ref().expect("20 runs have a band");
        assert_eq!((band.runs, band.kept), (20, 20));
        let first: Vec<u32> = r.series.bins.iter().map(|b| b.attempts).collect();
        assert!(first.iter().zip(&band.low).all(|(f, lo)| lo <= f));
        assert!(first.iter().zip(&band.high).all(|(f, hi)| f <= hi));
        assert!(band.low.iter().zip(&band.high).any(|(lo, hi)| lo < hi));
        let bin_s = r.series.bin_ms / 1000.0;
        let sides = vec![r.series.rates()];
        let per_s = |n: u32| f64::from(n) / bin_s;
        let t = Timeline {
            bands: vec![Some(
                band.low
                    .iter()
                    .zip(&band.high)
                    .map(|(&a, &b)| (per_s(a), per_s(b)))
                    .collect(),
            )],
            band_label: Some("attempts/s: the range of 20 of 20 runs".into()),
            ..storm_timeline(&sides, bin_s, None)
        };
        let rec = crate::charts::plot::CanvasRecorder::new(900, 420);
        draw_timeline(&rec.clone().into_drawing_area(), &t, 1.0).unwrap();
        assert!(rec.has_text("attempts/s: the range of 20 of 20 runs"));
        assert!(rec.drawn().outside.is_empty());
    }

    #[test]
    fn a_storm_draws_on_a_log_axis_with_its_legend_inside_the_canvas() {
        let (sides, bin_s, recovery) = storm_run();
        let t = storm_timeline(&sides, bin_s, recovery);
        let rec = crate::charts::plot::CanvasRecorder::new(900, 420);
        let area = rec.clone().into_drawing_area();
        let map = draw_timeline(&area, &t, 1.0).unwrap();
        let d = rec.drawn();
        assert!(
            d.outside.is_empty(),
            "drawn off the canvas: {:?}",
            d.outside
        );
        for text in [
            "outage: requests and attempts per second",
            "time (s)",
            "per second (log scale; 0 sits on the floor)",
            "attempts/s (retries included)",
            "original requests/s",
            "successes/s",
            "failed requests/s",
            "outage",
            "1k",
            "recovered: no: metastable, still degraded 13 s after the trigger ended",
        ] {
            assert!(rec.has_text(text), "{text} missing from {:?}", d.texts);
        }
        assert_eq!(d.dashed, 0, "one side: no dashed line");
        // Four series, each one line, plus the grid, the ticks and the axes.
        assert!(d.paths > 4);
        assert_eq!(
            map.bin_at(f64::from(map_x(&map, 0.5))),
            Some(sides[0].len() / 2)
        );
    }

    #[test]
    fn a_long_legend_entry_wraps_inside_a_phone_canvas() {
        let (sides, bin_s, recovery) = storm_run();
        let t = storm_timeline(&sides, bin_s, recovery);
        let rec = crate::charts::plot::CanvasRecorder::new(340, 449);
        draw_timeline(&rec.clone().into_drawing_area(), &t, 1.0).unwrap();
        let d = rec.drawn();
        assert!(d.outside.is_empty(), "off the canvas: {:?}", d.outside);
        // The sentence is all there, in lines that follow each other.
        let words: Vec<&str> = d
            .texts
            .iter()
            .map(|t| t.0.as_str())
            .skip_while(|t| !t.starts_with("recovered:"))
            .take(3)
            .collect();
        assert!(words.len() > 1 && words[0].len() < 45, "{words:?}");
        assert!(
            words
                .join(" ")
                .contains("still degraded 13 s after the trigger"),
            "{words:?}"
        );
    }

    #[test]
    fn a_hedged_run_counts_hedges_in_its_attempts_line() {
        let p: retry_model::Params = "preset=hedge-overload&duration=20s".parse().unwrap();
        let r = retry_model::sim::simulate(&p).unwrap();
        let sides = vec![r.series.rates()];
        let t = Timeline {
            sides: &sides,
            bin_s: r.series.bin_ms / 1000.0,
            outage: Some((5.0, 15.0, "capacity drop")),
            title: "queue server, capacity drop".into(),
            hedged: r.summary.hedge.is_some(),
            recovery: r.summary.recovery.map(|x| (x.recovered_at_s, x.text())),
            bands: Vec::new(),
            band_label: None,
        };
        let rec = crate::charts::plot::CanvasRecorder::new(900, 420);
        draw_timeline(&rec.clone().into_drawing_area(), &t, 1.0).unwrap();
        assert!(rec.has_text("attempts/s (hedges included)"));
        assert!(!rec.has_text("attempts/s (retries included)"));
        assert!(rec.drawn().outside.is_empty());
    }

    /// The pixel column at `share` of the time axis.
    fn map_x(m: &TimeMap, share: f64) -> i32 {
        (m.x0 + (m.x1 - m.x0) * share).round() as i32
    }

    #[test]
    fn pixels_map_back_to_bins() {
        let m = TimeMap {
            x0: 100.0,
            x1: 700.0,
            t1: 60.0,
            bin_s: 1.0,
            bins: 60,
        };
        assert_eq!(m.bin_at(100.0), Some(0));
        assert_eq!(m.bin_at(400.0), Some(30));
        assert_eq!(m.bin_at(700.0), Some(59));
        assert_eq!(m.bin_at(50.0), None);
    }
}
