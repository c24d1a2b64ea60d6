//! The backoff-schedule chart: each retry's ceiling and one dot per client's drawn wait.
//!
//! Drawing only: the numbers come from `retry_model::schedule`. The returned [`CoordMap`] turns
//! a pointer position back into the nearest dot, for the hover readout.

use crate::charts::plot::{axis_names, x_ticks, AxisNames, XFit};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::charts::key::{split_with_keys, LegendEntry, Swatch, DASHED, SOLID};
use retry_model::{BackoffKind, Schedule};

/// Where each dot landed, in canvas pixels.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CoordMap {
    dots: Vec<Dot>,
}

/// One drawn dot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dot {
    /// Pixel position.
    pub x: f64,
    /// Pixel position.
    pub y: f64,
    /// Which client.
    pub client: u32,
    /// Which retry (1-based).
    pub retry: u32,
}

impl CoordMap {
    /// The dot nearest to `(x, y)` within `radius` pixels.
    pub fn nearest(&self, x: f64, y: f64, radius: f64) -> Option<Dot> {
        self.dots
            .iter()
            .map(|d| (d, (d.x - x).powi(2) + (d.y - y).powi(2)))
            .filter(|(_, d2)| *d2 <= radius * radius)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(d, _)| *d)
    }

    /// How many dots were drawn.
    pub fn len(&self) -> usize {
        self.dots.len()
    }

    /// True when nothing was drawn.
    pub fn is_empty(&self) -> bool {
        self.dots.is_empty()
    }
}

/// Every dot in data coordinates (retry number plus the client's offset, wait in ms), retry by
/// retry.
fn dot_positions(s: &Schedule, side: ScheduleSide) -> Vec<Dot> {
    let (shift, squeeze) = match side {
        ScheduleSide::Only => (0.0, 1.0),
        ScheduleSide::A => (-0.2, 0.5),
        ScheduleSide::B => (0.2, 0.5),
    };
    s.retries
        .iter()
        .flat_map(move |col| {
            col.waits.iter().enumerate().map(move |(c, w)| Dot {
                x: f64::from(col.retry) + shift + spread(c as u32, s.clients) * squeeze,
                y: w.as_millis_f64(),
                client: c as u32,
                retry: col.retry,
            })
        })
        .collect()
}

/// The horizontal offset of client `c` of `n` inside its retry's column, in `[-0.36, 0.36]`.
pub fn spread(c: u32, n: u32) -> f64 {
    if n <= 1 {
        0.0
    } else {
        (f64::from(c) / f64::from(n - 1) - 0.5) * 0.72
    }
}

/// Where a schedule's dots go in their retry's column: the whole column for one schedule, the
/// left half for side A and the right half for side B of two.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ScheduleSide {
    Only,
    A,
    B,
}

// The Okabe-Ito palette (colour-blind safe).
const CEILING: RGBColor = RGBColor(213, 94, 0);
const DOT: RGBColor = RGBColor(0, 114, 178);
const MEAN: RGBColor = RGBColor(20, 20, 20);
const HIGHLIGHT: RGBColor = RGBColor(230, 159, 0);
const DOT_B: RGBColor = RGBColor(0, 158, 115);

/// Draws the schedule on `area` (sized in device pixels; `scale` is the devicePixelRatio).
pub fn draw_schedule<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    s: &Schedule,
    kind: BackoffKind,
    highlight: Option<u32>,
    scale: f64,
) -> Result<CoordMap, String> {
    draw_schedules(area, s, None, kind, highlight, scale)
}

/// Draws side A's schedule and, when given, side B's beside it in each retry's column (A's dots
/// on the left, B's on the right in another colour, B's ceilings dashed): two clients compared
/// on one chart. The map holds A's dots.
pub fn draw_schedules<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    s: &Schedule,
    b: Option<&Schedule>,
    kind: BackoffKind,
    highlight: Option<u32>,
    scale: f64,
) -> Result<CoordMap, String> {
    let px = |v: f64| (v * scale).round() as i32;
    let font = |v: f64| (FontFamily::SansSerif, v * scale);
    area.fill(&WHITE).map_err(|e| e.to_string())?;
    let n = s.retries.len().max(b.map_or(0, |b| b.retries.len())) as u32;
    if n == 0 {
        area.draw(&Text::new(
            "One attempt: no retries, so no waits to draw. Raise attempts to see the schedule.",
            (px(20.0), px(40.0)),
            font(15.0),
        ))
        .map_err(|e| e.to_string())?;
        return Ok(CoordMap::default());
    }
    let max_ms = max_wait_ms(s, b) * 1.08;
    let highlight = highlight.filter(|h| *h < s.clients);
    let random = s.retries.iter().any(|c| c.low != c.ceiling);
    let keys = schedule_keys(random, b.is_some(), highlight, scale);
    let (margin, y_labels) = (12.0, 70.0);
    let plot = split_with_keys(area, &keys, (margin + y_labels) * scale, 12.0, scale)?;
    let title = match b {
        Some(_) => format!(
            "Waits before each retry: A left, B right ({} clients)",
            s.clients
        ),
        None => format!("Waits before each retry: {} ({} clients)", kind, s.clients),
    };
    let plot = crate::charts::plot::caption(&plot, &title, 16.0 * scale)?;
    let mut chart = ChartBuilder::on(&plot)
        .margin(px(margin))
        .x_label_area_size(px(46.0))
        .y_label_area_size(px(y_labels))
        .build_cartesian_2d(0.5f64..(f64::from(n) + 0.5), 0.0f64..max_ms)
        .map_err(|e| e.to_string())?;
    schedule_mesh(&mut chart, &plot, n, y_labels, scale)?;

    let clients = s.clients;
    let r = (if clients > 400 {
        1.5
    } else if clients > 100 {
        2.0
    } else {
        3.0
    }) * scale;
    // Each dot's position in data space, computed once: drawn, then mapped to pixels.
    let side = if b.is_some() {
        ScheduleSide::A
    } else {
        ScheduleSide::Only
    };
    let dots = dot_positions(s, side);
    chart
        .draw_series(
            dots.iter()
                .map(|d| Circle::new((d.x, d.y), r as i32, DOT.mix(0.55).filled())),
        )
        .map_err(|e| e.to_string())?;
    let map = pixel_map(&chart, &dots);
    draw_bounds(&mut chart, s, random, b.is_some(), scale)?;
    if let Some(b) = b {
        draw_side_b(&mut chart, b, r, scale)?;
    }
    if let Some(h) = highlight {
        draw_highlight(&mut chart, &dots, h, r, scale)?;
    }
    area.present().map_err(|e| e.to_string())?;
    Ok(map)
}

/// Where the dots landed, in the canvas's pixels, for the pointer.
fn pixel_map<DB: DrawingBackend>(chart: &Chart<'_, DB>, dots: &[Dot]) -> CoordMap {
    CoordMap {
        dots: dots
            .iter()
            .map(|d| {
                let (x, y) = chart.backend_coord(&(d.x, d.y));
                Dot {
                    x: f64::from(x),
                    y: f64::from(y),
                    ..*d
                }
            })
            .collect(),
    }
}

/// The largest wait or ceiling either side can show, in ms (at least 1).
fn max_wait_ms(s: &Schedule, b: Option<&Schedule>) -> f64 {
    s.retries
        .iter()
        .chain(b.iter().flat_map(|b| b.retries.iter()))
        .map(|r| {
            r.ceiling
                .max(r.waits.iter().copied().max().unwrap_or_default())
                .as_millis_f64()
        })
        .fold(1.0f64, f64::max)
}

/// The legend: a client's dot, the ceiling, the mean (random waits), side B's dots and ceiling,
/// the client pointed at.
fn schedule_keys(random: bool, two: bool, highlight: Option<u32>, scale: f64) -> Vec<LegendEntry> {
    let mut keys = vec![
        LegendEntry::new(
            Swatch::Dot(DOT.to_rgba(), 3.0),
            if two {
                "A: drawn wait (one dot per client)"
            } else {
                "drawn wait (one dot per client)"
            },
        ),
        LegendEntry::new(
            Swatch::Line(line(&CEILING, scale), SOLID),
            if two {
                "A: largest possible wait"
            } else {
                "ceiling (largest possible wait)"
            },
        ),
    ];
    if two {
        keys.push(LegendEntry::new(
            Swatch::Dot(DOT_B.to_rgba(), 3.0),
            "B: drawn wait",
        ));
        keys.push(LegendEntry::new(
            Swatch::Line(line(&DOT_B, scale), DASHED),
            "B: largest possible wait",
        ));
    }
    if random && !two {
        keys.push(LegendEntry::new(
            Swatch::Line(line(&MEAN, scale), SOLID),
            "mean of the drawn waits",
        ));
    }
    if let Some(h) = highlight {
        keys.push(LegendEntry::new(
            Swatch::Dot(HIGHLIGHT.to_rgba(), 4.0),
            format!("client {h}'s waits"),
        ));
    }
    keys
}

/// The axes: retry numbers across, the wait in ms up.
fn schedule_mesh<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    plot: &DrawingArea<DB, Shift>,
    n: u32,
    y_labels: f64,
    scale: f64,
) -> Result<(), String> {
    let font = |v: f64| (FontFamily::SansSerif, v * scale);
    let plot_w = f64::from(chart.plotting_area().dim_in_pixel().0);
    let fit = XFit::of(chart, plot, 12.0 * scale);
    chart
        .configure_mesh()
        .x_labels(x_ticks(plot_w, 12.0 * scale, (n as usize).min(20)))
        .x_label_formatter(&|x| {
            if (x - x.round()).abs() < 1e-6 {
                fit.label(*x, format!("{}", x.round() as i64))
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|y| format!("{y:.0}"))
        .label_style(font(12.0))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(|e| e.to_string())?;
    let names = AxisNames {
        x: Some("retry number (retry k is attempt k+1)"),
        y: Some("wait (ms)"),
        size: 13.0 * scale,
        bands: (46.0 * scale, y_labels * scale),
    };
    axis_names(chart, plot, &names)
}

/// ScheduleSide B's dots in the right half of each column and its largest waits, dashed.
fn draw_side_b<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    b: &Schedule,
    r: f64,
    scale: f64,
) -> Result<(), String> {
    let dots = dot_positions(b, ScheduleSide::B);
    chart
        .draw_series(
            dots.iter()
                .map(|d| Circle::new((d.x, d.y), r as i32, DOT_B.mix(0.55).filled())),
        )
        .map_err(|e| e.to_string())?;
    let style = line(&DOT_B, scale);
    let px = |v: f64| (v * scale).round().max(1.0) as u32;
    for col in &b.retries {
        let (x, y) = (f64::from(col.retry) + 0.2, col.ceiling.as_millis_f64());
        chart
            .draw_series(DashedLineSeries::new(
                [(x - 0.2, y), (x + 0.2, y)],
                px(5.0),
                px(3.0),
                style,
            ))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The ceilings' and the means' 2 px line, as the chart and its legend draw it.
fn line(color: &RGBColor, scale: f64) -> ShapeStyle {
    ShapeStyle::from(color).stroke_width((2.0 * scale).round() as u32)
}

/// The chart's coordinates: retry number across, wait in ms up.
use crate::charts::plot::Chart;

/// Each retry's ceiling and, for the jittered kinds, its low bound and the mean of the draws.
fn draw_bounds<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    s: &Schedule,
    random: bool,
    two: bool,
    scale: f64,
) -> Result<(), String> {
    let px = move |v: f64| (v * scale).round() as i32;
    let bar = |x: f64, y: f64, half: f64| vec![(x - half, y), (x + half, y)];
    let ceiling_style = line(&CEILING, scale);
    // With two sides, A's ceiling spans the left half of the column only.
    let (shift, half) = if two { (-0.2, 0.2) } else { (0.0, 0.42) };
    chart
        .draw_series(s.retries.iter().map(|col| {
            PathElement::new(
                bar(
                    f64::from(col.retry) + shift,
                    col.ceiling.as_millis_f64(),
                    half,
                ),
                ceiling_style,
            )
        }))
        .map_err(|e| e.to_string())?;
    if !random || two {
        return Ok(());
    }
    let low_style = ShapeStyle::from(&CEILING.mix(0.6)).stroke_width(px(1.0) as u32);
    chart
        .draw_series(
            s.retries
                .iter()
                .filter(|c| c.low.as_micros() > 0)
                .map(|col| {
                    PathElement::new(
                        bar(f64::from(col.retry), col.low.as_millis_f64(), 0.42),
                        low_style,
                    )
                }),
        )
        .map_err(|e| e.to_string())?;
    let mean_style = line(&MEAN, scale);
    chart
        .draw_series(s.means().into_iter().enumerate().map(|(i, m)| {
            PathElement::new(bar(i as f64 + 1.0, m.as_millis_f64(), 0.2), mean_style)
        }))
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// One client's waits joined across its retries, its dots enlarged.
fn draw_highlight<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    dots: &[Dot],
    client: u32,
    r: f64,
    scale: f64,
) -> Result<(), String> {
    let px = move |v: f64| (v * scale).round() as i32;
    let path: Vec<(f64, f64)> = dots
        .iter()
        .filter(|d| d.client == client)
        .map(|d| (d.x, d.y))
        .collect();
    let style = ShapeStyle::from(&HIGHLIGHT).stroke_width(px(2.0) as u32);
    chart
        .draw_series(std::iter::once(PathElement::new(path.clone(), style)))
        .map_err(|e| e.to_string())?;
    chart
        .draw_series(
            path.into_iter()
                .map(|p| Circle::new(p, (r * 1.8) as i32, HIGHLIGHT.filled())),
        )
        .map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_is_symmetric_and_bounded() {
        assert_eq!(spread(0, 1), 0.0);
        assert!((spread(0, 11) + spread(10, 11)).abs() < 1e-12);
        assert!(spread(10, 11) <= 0.36 + 1e-12);
    }

    #[test]
    fn every_dot_is_drawn_inside_the_plot_and_found_where_it_was_drawn() {
        let p: retry_model::Params = "backoff=full&attempts=4&clients=20&seed=3".parse().unwrap();
        let s = retry_model::schedule(&p).unwrap();
        let rec = crate::charts::plot::CanvasRecorder::new(800, 400);
        let area = rec.clone().into_drawing_area();
        let map = draw_schedule(&area, &s, BackoffKind::Full, Some(2), 1.0).unwrap();
        let d = rec.drawn();
        assert!(d.outside.is_empty(), "{:?}", d.outside);
        assert_eq!(map.len(), 3 * 20, "three retries of twenty clients");
        // The legend's two dots, the clients' dots, then client 2's three enlarged ones.
        assert_eq!(d.circles, 2 + 60 + 3);
        for text in [
            "wait (ms)",
            "retry number (retry k is attempt k+1)",
            "client 2's waits",
            "mean of the drawn waits",
        ] {
            assert!(rec.has_text(text), "{text} missing");
        }
        let dot = map.dots[7];
        assert_eq!(map.nearest(dot.x + 1.0, dot.y, 2.0), Some(dot));
        let none = draw_schedule(
            &crate::charts::plot::CanvasRecorder::new(800, 400).into_drawing_area(),
            &retry_model::schedule(&"attempts=1".parse().unwrap()).unwrap(),
            BackoffKind::Full,
            None,
            1.0,
        )
        .unwrap();
        assert!(none.is_empty(), "one attempt: nothing to point at");
    }

    #[test]
    fn nearest_dot() {
        let map = CoordMap {
            dots: vec![
                Dot {
                    x: 10.0,
                    y: 10.0,
                    client: 0,
                    retry: 1,
                },
                Dot {
                    x: 30.0,
                    y: 10.0,
                    client: 1,
                    retry: 1,
                },
            ],
        };
        assert_eq!(map.nearest(28.0, 11.0, 6.0).unwrap().client, 1);
        assert!(map.nearest(100.0, 100.0, 6.0).is_none());
    }
}
