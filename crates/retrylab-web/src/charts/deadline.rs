//! One request's deadline as a timeline: each attempt a bar from its start for as long as it
//! took (green answered, vermillion failed), the wait after it, the time already spent before
//! the first attempt, the reserve at the end, the deadline, and a retry the fit check refused
//! drawn dashed where it would have gone (the guide's 700 ms case: 250 ms wait + 400 ms attempt
//! + 100 ms reserve = 750 ms > 700 ms).
//!
//! Drawing and layout only: every number is the trace's (`retry_model::trace`). The returned
//! [`DeadlineMap`] turns a pointer back into the attempt under it, so the bar and its text step
//! highlight each other.

use crate::charts::key::{split_with_keys, LegendEntry, Swatch, DASHED, SOLID};
use crate::charts::plot::{axis_names, x_ticks, AxisNames, XFit};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use retry_model::{Micros, Trace};

/// Where each attempt's row landed, in canvas pixels.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeadlineMap {
    rows: Vec<(f64, f64)>,
}

impl DeadlineMap {
    /// The attempt (0-based) whose row holds pixel row `y`.
    pub fn attempt_at(&self, y: f64) -> Option<usize> {
        self.rows.iter().position(|(a, b)| y >= *a && y < *b)
    }
}

/// A bar: the attempt index, start and end in ms, and what it is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DeadlinePiece {
    /// An attempt, and whether it was answered with a success.
    Attempt(usize, f64, f64, bool),
    /// The wait after an attempt.
    Wait(usize, f64, f64),
    /// A retry the fit check refused: its wait, its attempt's timeout, the reserve.
    Refused(usize, f64, f64, f64, f64),
}

fn ms(m: Micros) -> f64 {
    m.as_millis_f64()
}

/// The pieces of a trace, in order, and the axis end in ms (the deadline, or the request's end).
pub fn pieces(t: &Trace, deadline: Option<Micros>, reserve: Micros) -> (Vec<DeadlinePiece>, f64) {
    let mut out = Vec::new();
    for (i, s) in t.steps.iter().enumerate() {
        let start = ms(s.plan.start);
        let end = start + ms(s.took);
        let ok = s.after.stop == Some(retry_model::StopReason::Success);
        out.push(DeadlinePiece::Attempt(i, start, end, ok));
        match (s.after.stop, s.after.wait, s.after.fit) {
            (None, Some(w), _) => out.push(DeadlinePiece::Wait(i, end, end + ms(w))),
            (Some(_), Some(w), Some(f)) if !f.fits => {
                let wait_end = end + ms(w);
                let attempt_end = wait_end + ms(f.next_timeout);
                out.push(DeadlinePiece::Refused(
                    i,
                    end,
                    wait_end,
                    attempt_end,
                    attempt_end + ms(reserve),
                ))
            }
            _ => {}
        }
    }
    let last = out
        .iter()
        .map(|p| match p {
            DeadlinePiece::Attempt(_, _, e, _)
            | DeadlinePiece::Wait(_, _, e)
            | DeadlinePiece::Refused(_, _, _, _, e) => *e,
        })
        .fold(0.0, f64::max);
    let end = deadline.map_or(last, ms).max(last).max(1.0);
    (out, end)
}

const OK: RGBColor = RGBColor(0, 158, 115);
const FAIL: RGBColor = RGBColor(213, 94, 0);
const WAIT: RGBColor = RGBColor(86, 180, 233);
const SPENT: RGBColor = RGBColor(200, 200, 206);
const RESERVE: RGBColor = RGBColor(240, 228, 66);

/// The piece's attempt (0-based).
fn attempt_of(p: &DeadlinePiece) -> usize {
    match *p {
        DeadlinePiece::Attempt(i, ..)
        | DeadlinePiece::Wait(i, ..)
        | DeadlinePiece::Refused(i, ..) => i,
    }
}

/// The pieces on screen: all of them, or with `upto` those of the attempts up to that one.
fn shown(pieces: &[DeadlinePiece], upto: Option<usize>) -> Vec<&DeadlinePiece> {
    pieces
        .iter()
        .filter(|p| upto.is_none_or(|u| attempt_of(p) <= u))
        .collect()
}

/// The legend's entries: one for each kind of piece the view shows, in a fixed order.
fn keys(
    t: &Trace,
    deadline: Option<Micros>,
    reserve: Micros,
    shown: &[&DeadlinePiece],
    scale: f64,
) -> Vec<LegendEntry> {
    let line = |c: &RGBColor, w: f64| ShapeStyle::from(c).stroke_width((w * scale).round() as u32);
    let has = |f: fn(&DeadlinePiece) -> bool| shown.iter().any(|p| f(p));
    let mut keys = Vec::new();
    if ms(t.elapsed) > 0.0 {
        keys.push(LegendEntry::new(
            Swatch::Block(SPENT.to_rgba()),
            "already spent",
        ));
    }
    if deadline.is_some() && ms(reserve) > 0.0 {
        keys.push(LegendEntry::new(Swatch::Block(RESERVE.mix(0.6)), "reserve"));
    }
    if deadline.is_some() {
        keys.push(LegendEntry::new(
            Swatch::Line(line(&BLACK, 2.0), SOLID),
            "deadline",
        ));
    }
    if has(|p| matches!(p, DeadlinePiece::Attempt(.., true))) {
        keys.push(LegendEntry::new(
            Swatch::Block(OK.to_rgba()),
            "attempt answered",
        ));
    }
    if has(|p| matches!(p, DeadlinePiece::Attempt(.., false))) {
        keys.push(LegendEntry::new(
            Swatch::Block(FAIL.to_rgba()),
            "attempt failed",
        ));
    }
    if has(|p| matches!(p, DeadlinePiece::Wait(..))) {
        keys.push(LegendEntry::new(
            Swatch::Line(line(&WAIT, 4.0), SOLID),
            "wait before the next attempt",
        ));
    }
    if has(|p| matches!(p, DeadlinePiece::Refused(..))) {
        keys.push(LegendEntry::new(
            Swatch::Line(line(&FAIL, 2.0), DASHED),
            "a retry that did not fit (dashed)",
        ));
    }
    keys
}

/// Draws the timeline on `area`; `highlight` rings that attempt's row, and with `upto` only
/// the attempts up to that one (0-based) are drawn (stepping through the request).
#[allow(clippy::too_many_arguments)]
pub fn draw_deadline<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    t: &Trace,
    deadline: Option<Micros>,
    reserve: Micros,
    highlight: Option<usize>,
    upto: Option<usize>,
    scale: f64,
) -> Result<DeadlineMap, String> {
    let px = |v: f64| (v * scale).round() as i32;
    area.fill(&WHITE).map_err(|e| e.to_string())?;
    let (pieces, end) = pieces(t, deadline, reserve);
    let rows = t.steps.len().max(1);
    // Row i is centred on the whole number rows - 1 - i, so each tick labels one attempt.
    let top = rows as f64 - 0.5;
    let shown = shown(&pieces, upto);
    let (margin, y_labels) = (12.0, 80.0);
    let plot = split_with_keys(
        area,
        &keys(t, deadline, reserve, &shown, scale),
        (margin + y_labels) * scale,
        11.0,
        scale,
    )?;
    let plot = crate::charts::plot::caption(&plot, &title_of(deadline), 15.0 * scale)?;
    let mut chart = ChartBuilder::on(&plot)
        .margin(px(margin))
        .x_label_area_size(px(36.0))
        .y_label_area_size(px(y_labels))
        .build_cartesian_2d(0.0f64..end * 1.02, -0.6..top)
        .map_err(|e| e.to_string())?;
    deadline_mesh(&mut chart, &plot, rows, y_labels, scale)?;
    let y = |i: usize| rows as f64 - i as f64 - 1.5;
    draw_clock(&mut chart, t, deadline, reserve, top, scale)?;
    let bar = |i: usize, a: f64, b: f64| [(a, y(i) + 0.2), (b, y(i) + 0.8)];
    for p in shown {
        match *p {
            DeadlinePiece::Attempt(i, a, b, ok) => {
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        bar(i, a, b.max(a + end * 0.002)),
                        if ok { OK } else { FAIL }.filled(),
                    )))
                    .map_err(|e| e.to_string())?;
            }
            DeadlinePiece::Wait(i, a, b) => {
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(a, y(i) + 0.4), (b, y(i) + 0.6)],
                        WAIT.filled(),
                    )))
                    .map_err(|e| e.to_string())?;
            }
            DeadlinePiece::Refused(i, a, w, at, r) => {
                draw_refused(
                    &mut chart,
                    area,
                    y(i),
                    bar(i, 0.0, 0.0),
                    (a, w, at, r),
                    end,
                    scale,
                )?;
            }
        }
    }
    if let Some(h) = highlight.filter(|h| *h < t.steps.len()) {
        ring_row(&mut chart, y(h), end, scale)?;
    }
    let map = DeadlineMap {
        rows: (0..t.steps.len())
            .map(|i| row_pixels(&chart, y(i)))
            .collect(),
    };
    area.present().map_err(|e| e.to_string())?;
    Ok(map)
}

/// A row's top and bottom pixel rows, for the pointer's hit test.
fn row_pixels<DB: DrawingBackend>(
    chart: &crate::charts::plot::Chart<'_, DB>,
    row_y: f64,
) -> (f64, f64) {
    let (_, top) = chart.backend_coord(&(0.0, row_y + 1.0));
    let (_, bottom) = chart.backend_coord(&(0.0, row_y));
    (f64::from(top), f64::from(bottom))
}

/// The chart's title: the deadline it is drawn inside.
fn title_of(deadline: Option<Micros>) -> String {
    match deadline {
        Some(d) => format!("One request inside its {} deadline", d.rounded()),
        None => String::from("One request (no deadline)"),
    }
}

/// The ring around the row pointed at.
fn ring_row<DB: DrawingBackend>(
    chart: &mut crate::charts::plot::Chart<'_, DB>,
    row_y: f64,
    end: f64,
    scale: f64,
) -> Result<(), String> {
    let ring = ShapeStyle::from(&BLACK).stroke_width((2.0 * scale).round() as u32);
    chart
        .draw_series(std::iter::once(Rectangle::new(
            [(0.0, row_y + 0.05), (end * 1.02, row_y + 0.95)],
            ring,
        )))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The axes: a label on each attempt's row, the request's clock in ms under the plot.
fn deadline_mesh<DB: DrawingBackend>(
    chart: &mut crate::charts::plot::Chart<'_, DB>,
    plot: &DrawingArea<DB, Shift>,
    rows: usize,
    y_labels: f64,
    scale: f64,
) -> Result<(), String> {
    let font = |v: f64| (FontFamily::SansSerif, v * scale);
    let plot_w = f64::from(chart.plotting_area().dim_in_pixel().0);
    let fit = XFit::of(chart, plot, 12.0 * scale);
    chart
        .configure_mesh()
        .disable_y_mesh()
        // A tick on every whole number, so every attempt's row is labelled.
        .y_labels(rows * 2 + 2)
        .y_label_formatter(&|v| {
            let i = rows as f64 - 1.0 - v;
            if (i - i.round()).abs() < 0.01 && i >= 0.0 && i < rows as f64 {
                format!("attempt {}", i.round() as usize + 1)
            } else {
                String::new()
            }
        })
        .x_labels(x_ticks(plot_w, 12.0 * scale, 10))
        .x_label_formatter(&|v| fit.label(*v, format!("{v:.0}")))
        .label_style(font(12.0))
        .light_line_style(RGBColor(240, 240, 240))
        .draw()
        .map_err(|e| e.to_string())?;
    let names = AxisNames {
        x: Some("time on the request's clock (ms)"),
        y: None,
        size: 13.0 * scale,
        bands: (36.0 * scale, y_labels * scale),
    };
    axis_names(chart, plot, &names)
}

/// The time already spent, the reserve before the deadline and the deadline itself.
fn draw_clock<DB: DrawingBackend>(
    chart: &mut crate::charts::plot::Chart<'_, DB>,
    t: &Trace,
    deadline: Option<Micros>,
    reserve: Micros,
    top: f64,
    scale: f64,
) -> Result<(), String> {
    let px = |v: f64| (v * scale).round() as i32;
    let spent = ms(t.elapsed);
    if spent > 0.0 {
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(0.0, -0.5), (spent, top)],
                SPENT.mix(0.5).filled(),
            )))
            .map_err(|e| e.to_string())?;
    }
    if let Some(d) = deadline {
        let (d, r) = (ms(d), ms(reserve));
        if r > 0.0 {
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(d - r, -0.5), (d, top)],
                    RESERVE.mix(0.35).filled(),
                )))
                .map_err(|e| e.to_string())?;
        }
        let line = ShapeStyle::from(&BLACK).stroke_width(px(2.0) as u32);
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(d, -0.5), (d, top)],
                line,
            )))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// A retry that did not fit: its wait, attempt and reserve dashed where they would have gone,
/// and the sum that refused it. `row_y` is its row's bottom, `bar` the row's bar at zero width.
fn draw_refused<DB: DrawingBackend>(
    chart: &mut crate::charts::plot::Chart<'_, DB>,
    area: &DrawingArea<DB, Shift>,
    row_y: f64,
    bar: [(f64, f64); 2],
    (a, w, at, r): (f64, f64, f64, f64),
    end: f64,
    scale: f64,
) -> Result<(), String> {
    let px = |v: f64| (v * scale).round() as i32;
    let font = |v: f64| (FontFamily::SansSerif, v * scale);
    let bar = |x0: f64, x1: f64| [(x0, bar[0].1), (x1, bar[1].1)];
    let dash = ShapeStyle::from(&FAIL).stroke_width(px(2.0) as u32);
    for (x0, x1) in [(a, w), (w, at), (at, r)] {
        let [(l, b0), (rr, t0)] = bar(x0, x1);
        let outline = vec![(l, b0), (rr, b0), (rr, t0), (l, t0), (l, b0)];
        chart
            .draw_series(DashedLineSeries::new(outline, px(5.0), px(3.0), dash))
            .map_err(|e| e.to_string())?;
    }
    // The sum in full where the plot has room for it, else its total alone; moved
    // left to end at the plot's edge rather than run past it.
    let style = font(12.0).into_font().color(&FAIL);
    let x_px = |x: f64| f64::from(chart.backend_coord(&(x, 0.0)).0);
    let (left, from, edge) = (x_px(0.0), x_px(a), x_px(end * 1.02));
    let width = |s: &str| {
        area.estimate_text_size(s, &style)
            .map_or(0.0, |(w, _)| f64::from(w))
    };
    let long = format!("refused: wait + attempt + reserve = {:.0} ms", r - a);
    let label = if width(&long) <= edge - left {
        long
    } else {
        format!("refused: needs {:.0} ms", r - a)
    };
    let (at, style) = if from + width(&label) > edge {
        (end * 1.02, style.pos(Pos::new(HPos::Right, VPos::Top)))
    } else {
        (a, style)
    };
    chart
        .draw_series(std::iter::once(Text::new(label, (at, row_y + 0.95), style)))
        .map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_title_gives_the_deadline_as_people_read_it() {
        assert_eq!(
            title_of(Some(Micros::from_secs(10))),
            "One request inside its 10 s deadline"
        );
        assert_eq!(
            title_of(Some(Micros::from_millis(700))),
            "One request inside its 700 ms deadline"
        );
    }

    #[test]
    fn the_700_ms_guide_case_draws_the_refused_retry() {
        let p: retry_model::Params = "preset=guide-700ms".parse().unwrap();
        let t = retry_model::trace(&p).unwrap();
        let (pieces, end) = pieces(&t, p.policy.deadline, p.policy.reserve);
        let refused = pieces.iter().find_map(|x| match x {
            DeadlinePiece::Refused(_, a, _, _, r) => Some(r - a),
            DeadlinePiece::Attempt(..) | DeadlinePiece::Wait(..) => None,
        });
        assert_eq!(
            refused,
            Some(750.0),
            "250 ms wait + 400 ms attempt + 100 ms reserve"
        );
        assert!(end >= 700.0);
        let m = DeadlineMap {
            rows: vec![(10.0, 50.0), (50.0, 90.0)],
        };
        assert_eq!(m.attempt_at(60.0), Some(1));
        assert_eq!(m.attempt_at(5.0), None);
    }

    fn labels(link: &str, upto: Option<usize>) -> Vec<String> {
        let p: retry_model::Params = link.parse().unwrap();
        let t = retry_model::trace(&p).unwrap();
        let (pieces, _) = pieces(&t, p.policy.deadline, p.policy.reserve);
        keys(
            &t,
            p.policy.deadline,
            p.policy.reserve,
            &shown(&pieces, upto),
            1.0,
        )
        .into_iter()
        .map(|k| k.label)
        .collect()
    }

    #[test]
    fn the_legend_names_what_the_view_shows_and_nothing_else() {
        // The guide's one attempt fails and its retry is refused, inside a deadline with a reserve.
        assert_eq!(
            labels("preset=guide-700ms", None),
            [
                "reserve",
                "deadline",
                "attempt failed",
                "a retry that did not fit (dashed)"
            ]
        );
        // Time already spent, no deadline, a failure, a wait, then a success.
        let link = "elapsed=200ms&deadline=none&outcomes=503,ok&waits=10ms";
        assert_eq!(
            labels(link, None),
            [
                "already spent",
                "attempt answered",
                "attempt failed",
                "wait before the next attempt"
            ]
        );
        // Stepping through: only the first attempt and its wait are on screen yet.
        assert_eq!(
            labels(link, Some(0)),
            [
                "already spent",
                "attempt failed",
                "wait before the next attempt"
            ]
        );
    }
}
