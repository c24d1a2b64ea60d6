//! The system under the timeline, on the same time axis: failed requests per second stacked by
//! the reason they stopped; the share of the server's capacity used, with the circuit breaker's
//! open (and half-open) spells shaded when the link has a breaker; requests in flight, and the
//! retry budget's level when the link has a budget.
//!
//! Drawing only: every value is a core `Rates` field. Its plot area starts and ends at the same
//! pixel columns as the timeline's, so one [`crate::charts::timeline::TimeMap`] reads both.

use crate::charts::key::{split_with_keys, LegendEntry, Swatch, DASHED, SOLID};
use crate::charts::plot::{axis_names, x_ticks, AxisNames, XFit};
use crate::charts::sweepchart::PALETTE;
use plotters::coord::Shift;
use plotters::prelude::*;
use retry_model::sim::Rates;
use retry_model::StopReason;

/// What the chart draws.
pub struct SystemChart<'a> {
    /// One entry per bin, per side: side A drawn solid, side B dashed.
    pub sides: &'a [Vec<Rates>],
    /// The bin width in seconds.
    pub bin_s: f64,
    /// The trigger's window in seconds and its name, if any.
    pub outage: Option<(f64, f64, &'static str)>,
    /// Whether a queue server's queue length is drawn.
    pub queue: bool,
    /// Whether the server has a capacity to chart the share of (the flaky dependency has
    /// none: its panel draws the work done per second instead).
    pub capacity: bool,
    /// Whether the link has a retry budget (its level is drawn).
    pub budget: bool,
    /// Whether the link has a circuit breaker (its open spells are shaded).
    pub breaker: bool,
}

const OUTAGE: RGBColor = RGBColor(255, 200, 120);
const OPEN: RGBColor = RGBColor(213, 94, 0);
const HALF: RGBColor = RGBColor(240, 228, 66);

/// The stop reasons a failure can have (every one but success), in the legend's order.
pub fn failure_reasons() -> Vec<StopReason> {
    StopReason::ALL
        .into_iter()
        .filter(|r| *r != StopReason::Success)
        .collect()
}

/// The breaker's state per bin, each bin without an attempt taking the state before it.
pub fn breaker_states(rates: &[Rates]) -> Vec<u8> {
    let mut last = 0;
    rates
        .iter()
        .map(|r| {
            if r.breaker != 0 {
                last = r.breaker;
            }
            last
        })
        .collect()
}

/// An axis tick: whole numbers without decimals (`10`, not `10.0`).
fn tick(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round())
    } else {
        format!("{}", (v * 10.0).round() / 10.0)
    }
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Draws the three panels on `area` (device pixels; `scale` is the devicePixelRatio).
pub fn draw_system<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    s: &SystemChart<'_>,
    scale: f64,
) -> Result<(), String> {
    area.fill(&WHITE).map_err(err)?;
    let n = s.sides.iter().map(Vec::len).max().unwrap_or(0);
    let t1 = (n as f64 * s.bin_s).max(s.bin_s).max(1e-3);
    let panels = area.split_evenly((3, 1));
    failures_panel(&panels[0], s, t1, scale)?;
    capacity_panel(&panels[1], s, t1, scale)?;
    flight_panel(&panels[2], s, t1, scale)?;
    area.present().map_err(err)
}

/// Panel 1: failed requests per second, stacked by reason (side A), side B's total dashed.
fn failures_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    s: &SystemChart<'_>,
    t1: f64,
    scale: f64,
) -> Result<(), String> {
    let px = move |v: f64| (v * scale).round() as i32;
    let font = |v: f64| (FontFamily::SansSerif, v * scale);
    let reasons = failure_reasons();
    let a = s.sides.first().map(Vec::as_slice).unwrap_or(&[]);
    let two = s.sides.len() > 1;
    let mid = |r: &Rates| r.t_s + s.bin_s / 2.0;
    // 1. Failures per second, stacked by reason (side A); side B's total dashed.
    let present: Vec<usize> = reasons
        .iter()
        .map(|r| r.index())
        .filter(|i| a.iter().any(|r| r.failures_by[*i] > 0.0))
        .collect();
    let stacked_max = a
        .iter()
        .map(|r| r.failures_by.iter().sum::<f64>())
        .chain(s.sides.iter().skip(1).flatten().map(|r| r.failures))
        .fold(0.0f64, f64::max);
    let hi = if stacked_max > 0.0 {
        stacked_max * 1.15
    } else {
        1.0
    };
    let title = if two {
        "failed requests per second, by reason (A stacked, B's total dashed)"
    } else {
        "failed requests per second, by reason"
    };
    let dashed = ShapeStyle::from(&BLACK).stroke_width(px(1.5) as u32);
    let keys: Vec<LegendEntry> = present
        .iter()
        .map(|i| {
            let color = PALETTE[i % PALETTE.len()];
            LegendEntry::new(Swatch::Block(color.mix(0.75)), StopReason::ALL[*i].name())
        })
        .chain(two.then(|| LegendEntry::new(Swatch::Line(dashed, DASHED), "B: all failures")))
        .collect();
    let plot = split_with_keys(area, &keys, KEY_LEFT * scale, 11.0, scale)?;
    let plot = crate::charts::plot::caption(&plot, title, 13.0 * scale)?;
    let mut c = chart_on(&plot, t1, 0.0, hi, scale, false)?;
    mesh(&mut c, &plot, "failed/s", scale, false)?;
    shade_outage(&mut c, s.outage, t1, 0.0, hi)?;
    // Draw the tallest stack first, so each reason's band shows above the ones below it.
    for k in (0..present.len()).rev() {
        let idx = &present[..=k];
        let color = PALETTE[present[k] % PALETTE.len()];
        let top = a
            .iter()
            .map(|r| (mid(r), idx.iter().map(|i| r.failures_by[*i]).sum::<f64>()));
        c.draw_series(AreaSeries::new(top, 0.0, color.mix(0.75)))
            .map_err(err)?;
    }
    for b in s.sides.iter().skip(1) {
        c.draw_series(DashedLineSeries::new(
            b.iter().map(|r| (mid(r), r.failures)),
            px(6.0),
            px(4.0),
            dashed,
        ))
        .map_err(err)?;
    }
    if present.is_empty() {
        c.draw_series(std::iter::once(Text::new(
            "no request failed",
            (t1 * 0.02, hi * 0.6),
            font(12.0).into_font().color(&RGBColor(90, 90, 100)),
        )))
        .map_err(err)?;
    }
    Ok(())
}

/// Panel 2: the share of capacity used (or the work done), with the breaker's spells.
fn capacity_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    s: &SystemChart<'_>,
    t1: f64,
    scale: f64,
) -> Result<(), String> {
    let mid = |r: &Rates| r.t_s + s.bin_s / 2.0;
    // 2. Share of capacity used (or, without a capacity, the work done), with the breaker's
    // spells.
    let top = if s.capacity {
        105.0
    } else {
        let most = s
            .sides
            .iter()
            .flatten()
            .map(|r| r.served)
            .fold(0.0f64, f64::max);
        if most > 0.0 {
            most * 1.15
        } else {
            1.0
        }
    };
    let (title, unit) = if s.capacity {
        (
            "share of the server's capacity spent serving attempts (%; refusals not counted)",
            "% used",
        )
    } else {
        (
            "work done per second (the flaky dependency has no capacity limit)",
            "per second",
        )
    };
    let spells = [
        (3u8, OPEN, "breaker open"),
        (2u8, HALF, "breaker half-open"),
    ];
    let used = if s.capacity {
        "capacity used"
    } else {
        "work done/s"
    };
    let keys: Vec<LegendEntry> = spells
        .iter()
        .filter(|_| s.breaker)
        .map(|(_, color, name)| LegendEntry::new(Swatch::Block(color.mix(0.4)), *name))
        .chain(std::iter::once(line_key(
            s.sides.len(),
            BLUE_LINE,
            used,
            scale,
        )))
        .collect();
    let plot = split_with_keys(area, &keys, KEY_LEFT * scale, 11.0, scale)?;
    let plot = crate::charts::plot::caption(&plot, title, 13.0 * scale)?;
    let mut c = chart_on(&plot, t1, 0.0, top, scale, false)?;
    mesh(&mut c, &plot, unit, scale, false)?;
    shade_outage(&mut c, s.outage, t1, 0.0, top)?;
    draw_spells(&mut c, s, &spells, top)?;
    if s.capacity {
        lines(
            &mut c,
            s.sides,
            |r| r.utilisation * 100.0,
            BLUE_LINE,
            scale,
            mid,
        )?;
    } else {
        lines(&mut c, s.sides, |r| r.served, BLUE_LINE, scale, mid)?;
    }
    Ok(())
}

/// The breaker's open and half-open spells, shaded behind the line.
fn draw_spells<DB: DrawingBackend>(
    c: &mut Chart<'_, DB>,
    s: &SystemChart<'_>,
    spells: &[(u8, RGBColor, &str)],
    top: f64,
) -> Result<(), String> {
    let a = s.sides.first().map(Vec::as_slice).unwrap_or(&[]);
    if s.breaker {
        let states = breaker_states(a);
        for &(code, color, _) in spells {
            let spans = a
                .iter()
                .zip(&states)
                .filter(|(_, st)| **st == code)
                .map(|(r, _)| {
                    Rectangle::new(
                        [(r.t_s, 0.0), (r.t_s + s.bin_s, top)],
                        color.mix(0.18).filled(),
                    )
                });
            c.draw_series(spans).map_err(err)?;
        }
    }
    Ok(())
}

/// Panel 3: requests in flight, the queue and the budget's level.
fn flight_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    s: &SystemChart<'_>,
    t1: f64,
    scale: f64,
) -> Result<(), String> {
    let mid = |r: &Rates| r.t_s + s.bin_s / 2.0;
    // 3. Requests in flight, and the budget's level.
    let top = s
        .sides
        .iter()
        .flatten()
        .flat_map(|r| {
            [
                f64::from(r.in_flight),
                if s.budget { r.budget } else { 0.0 },
                if s.queue { f64::from(r.queue) } else { 0.0 },
            ]
        })
        .fold(0.0f64, f64::max);
    let hi = if top > 0.0 { top * 1.15 } else { 1.0 };
    let title = match (s.budget, s.queue) {
        (true, true) => {
            "requests in flight, the server's queue, and the retry budget's level (tokens)"
        }
        (true, false) => "requests in flight, and the retry budget's level (tokens)",
        (false, true) => "requests in flight, and the most waiting in the server's queue",
        (false, false) => "requests in flight",
    };
    let counts: [CountLine; 3] = [
        (true, RGBColor(204, 121, 167), "in flight", |r| {
            f64::from(r.in_flight)
        }),
        (
            s.queue,
            RGBColor(86, 180, 233),
            "waiting in the queue",
            |r| f64::from(r.queue),
        ),
        (s.budget, RGBColor(0, 158, 115), "budget tokens", |r| {
            r.budget
        }),
    ];
    let keys: Vec<LegendEntry> = counts
        .iter()
        .filter(|(on, ..)| *on)
        .map(|(_, color, name, _)| line_key(s.sides.len(), *color, name, scale))
        .collect();
    let plot = split_with_keys(area, &keys, KEY_LEFT * scale, 11.0, scale)?;
    let plot = crate::charts::plot::caption(&plot, title, 13.0 * scale)?;
    let mut c = chart_on(&plot, t1, 0.0, hi, scale, true)?;
    mesh(&mut c, &plot, "count", scale, true)?;
    shade_outage(&mut c, s.outage, t1, 0.0, hi)?;
    for (on, color, _, value) in counts {
        if on {
            lines(&mut c, s.sides, value, color, scale, mid)?;
        }
    }
    Ok(())
}

use crate::charts::plot::Chart;

fn chart_on<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    t1: f64,
    lo: f64,
    hi: f64,
    scale: f64,
    last: bool,
) -> Result<Chart<'a, DB>, String> {
    let px = move |v: f64| (v * scale).round() as i32;
    // The same left margin and label width as the timeline, so the time axes line up.
    ChartBuilder::on(area)
        .margin_left(px(12.0))
        .margin_right(px(12.0))
        .margin_top(px(4.0))
        .x_label_area_size(px(if last { 40.0 } else { 22.0 }))
        .y_label_area_size(px(64.0))
        .build_cartesian_2d(0.0f64..t1, lo..hi)
        .map_err(err)
}

fn mesh<DB: DrawingBackend>(
    c: &mut Chart<'_, DB>,
    area: &DrawingArea<DB, Shift>,
    y: &str,
    scale: f64,
    time: bool,
) -> Result<(), String> {
    let font = |v: f64| (FontFamily::SansSerif, v * scale);
    let plot_w = f64::from(c.plotting_area().dim_in_pixel().0);
    let fit = XFit::of(c, area, 11.0 * scale);
    c.configure_mesh()
        .y_labels(4)
        .x_labels(x_ticks(plot_w, 11.0 * scale, 10))
        .x_label_formatter(&|v| fit.label(*v, tick(*v)))
        .y_label_formatter(&|v| tick(*v))
        .label_style(font(11.0))
        .light_line_style(RGBColor(240, 240, 240))
        .draw()
        .map_err(err)?;
    let names = AxisNames {
        x: time.then_some("time (s)"),
        y: Some(y),
        size: 12.0 * scale,
        bands: ((if time { 40.0 } else { 22.0 }) * scale, 64.0 * scale),
    };
    axis_names(c, area, &names)
}

fn shade_outage<'a, DB: DrawingBackend + 'a>(
    c: &mut Chart<'a, DB>,
    outage: Option<(f64, f64, &'static str)>,
    t1: f64,
    lo: f64,
    hi: f64,
) -> Result<(), String> {
    if let Some((a, b, _)) = outage {
        c.draw_series(std::iter::once(Rectangle::new(
            [(a, lo), (b.min(t1), hi)],
            OUTAGE.mix(0.3).filled(),
        )))
        .map_err(err)?;
    }
    Ok(())
}

/// A count the third panel may draw: whether it does, its colour, its name and its value.
type CountLine = (bool, RGBColor, &'static str, fn(&Rates) -> f64);

/// The line colour of the capacity (or work done) panel.
const BLUE_LINE: RGBColor = RGBColor(0, 114, 178);

/// Where the panels' legends start: the plot's left edge (margin and label area), in CSS px.
const KEY_LEFT: f64 = 76.0;

fn line_style(color: RGBColor, scale: f64) -> ShapeStyle {
    ShapeStyle::from(&color).stroke_width((2.0 * scale).round() as u32)
}

/// The legend entry of a series every side draws: side A solid, side B dashed beside it.
fn line_key(sides: usize, color: RGBColor, name: &str, scale: f64) -> LegendEntry {
    let style = line_style(color, scale);
    let mut k = LegendEntry::new(Swatch::Line(style, SOLID), name);
    if sides > 1 {
        k.swatches.push(Swatch::Line(style, DASHED));
    }
    k
}

fn lines<'a, DB: DrawingBackend + 'a>(
    c: &mut Chart<'a, DB>,
    sides: &[Vec<Rates>],
    value: impl Fn(&Rates) -> f64,
    color: RGBColor,
    scale: f64,
    mid: impl Fn(&Rates) -> f64,
) -> Result<(), String> {
    let px = move |v: f64| (v * scale).round() as i32;
    let style = line_style(color, scale);
    for (i, side) in sides.iter().enumerate() {
        let points = side.iter().map(|r| (mid(r), value(r)));
        if i == 0 {
            c.draw_series(LineSeries::new(points, style)).map_err(err)?;
        } else {
            c.draw_series(DashedLineSeries::new(points, px(6.0), px(4.0), style))
                .map_err(err)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(breaker: u8) -> Rates {
        Rates {
            t_s: 0.0,
            originals: 0.0,
            attempts: 0.0,
            successes: 0.0,
            failures: 0.0,
            utilisation: 0.0,
            in_flight: 0,
            failures_by: [0.0; 7],
            budget: 0.0,
            breaker,
            queue: 0,
            wasted: 0.0,
            served: 0.0,
            limiter: 0.0,
            at_server: 0,
            retrying: 0,
        }
    }

    #[test]
    fn a_bin_without_attempts_keeps_the_breaker_state_before_it() {
        let r: Vec<Rates> = [0, 1, 0, 3, 0, 0, 2, 1].into_iter().map(rate).collect();
        assert_eq!(breaker_states(&r), [0, 1, 1, 3, 3, 3, 2, 1]);
    }

    #[test]
    fn failures_have_every_reason_but_success() {
        let r = failure_reasons();
        assert_eq!(r.len(), StopReason::ALL.len() - 1);
        assert!(!r.contains(&StopReason::Success));
    }
}
