//! A sweep's chart: one summary metric against the swept key, one line per value of a second
//! key (the 2015 study's five backoff kinds), with reference figures (the original 2015
//! simulator's) as hollow markers of the same colour beside the lab's filled ones. The legend
//! has a column of its own at the right of the plot, so it covers no line.
//!
//! Drawing only: every value comes from the core (`Metric::value` of each row's summary). The y
//! axis is the timeline's [`YAxis`] (log when the values span more than two decades). The
//! returned [`SweepMap`] turns a pointer's x back into the nearest swept value, for the readout.

use crate::charts::key;
use crate::charts::plot::{axis_names, x_ticks, AxisNames, XFit};
use crate::charts::timeline::YAxis;
use plotters::coord::Shift;
use plotters::prelude::*;

/// One line: its legend and a value per x position (`None` where the metric has none).
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// The legend (`backoff=full`).
    pub name: String,
    /// The lab's values, one per x position.
    pub values: Vec<Option<f64>>,
    /// Reference values at the same positions, drawn hollow (empty when there are none).
    pub reference: Vec<Option<f64>>,
    /// Over several runs, each value's 95% interval, drawn as an error bar (empty for one
    /// run).
    pub bars: Vec<Option<(f64, f64)>>,
}

/// What the chart draws.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepChart {
    /// The caption.
    pub title: String,
    /// The x axis label, with its unit (`clients`, `base (ms)`).
    pub x_label: String,
    /// The x positions: numbers, or `None` to place the labels evenly (a menu key).
    pub x: Option<Vec<f64>>,
    /// The swept values as the link writes them, one per position.
    pub x_text: Vec<String>,
    /// The y axis label, with its unit.
    pub y_label: String,
    /// The lines.
    pub lines: Vec<Line>,
    /// The reference markers' legend, if any line has them.
    pub reference_name: Option<String>,
}

/// Where the swept values landed, in canvas pixels.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SweepMap {
    xs: Vec<f64>,
}

impl SweepMap {
    /// The position nearest pixel column `x`, if the pointer is over the plot.
    pub fn index_at(&self, x: f64) -> Option<usize> {
        let (first, last) = (*self.xs.first()?, *self.xs.last()?);
        let slack = if self.xs.len() > 1 {
            (last - first).abs() / (self.xs.len() - 1) as f64
        } else {
            40.0
        };
        if x < first.min(last) - slack || x > first.max(last) + slack {
            return None;
        }
        self.xs
            .iter()
            .enumerate()
            .min_by(|a, b| (a.1 - x).abs().total_cmp(&(b.1 - x).abs()))
            .map(|(i, _)| i)
    }
}

/// Line colours, in order: the Okabe-Ito palette, which reads under the common kinds of colour
/// blindness; they repeat after eight lines. Lines also differ by dash ([`dash_of`]).
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(213, 94, 0),
    RGBColor(0, 114, 178),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(160, 150, 30),
];

/// Line `i`'s dash, in CSS pixels (dash, gap): solid, dashed, dotted, then again.
pub fn dash_of(i: usize) -> Option<(f64, f64)> {
    match i % 3 {
        0 => None,
        1 => Some((8.0, 4.0)),
        _ => Some((2.0, 3.0)),
    }
}

/// 10^`p` in a few characters: `1`, `100`, `10k`, `1M`, `1G`; below 1 as a decimal.
fn decade(p: i32) -> String {
    let (unit, rest) = match p {
        9.. => ("G", p - 9),
        6..=8 => ("M", p - 6),
        3..=5 => ("k", p - 3),
        0..=2 => ("", p),
        _ => return tick(10f64.powi(p)),
    };
    format!("{}{unit}", 10u64.pow(rest.max(0) as u32))
}

fn tick(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round())
    } else {
        format!("{}", (v * 100.0).round() / 100.0)
    }
}

/// Draws the chart on `area` (device pixels; `scale` is the devicePixelRatio).
pub fn draw_sweep<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    c: &SweepChart,
    scale: f64,
) -> Result<SweepMap, String> {
    let px = |v: f64| (v * scale).round() as i32;
    area.fill(&WHITE).map_err(|e| e.to_string())?;
    let n = c.x_text.len();
    let log_x = spans_decades(c.x.as_deref());
    let xs: Vec<f64> = match &c.x {
        Some(v) if log_x => v.iter().map(|x| x.log10()).collect(),
        Some(v) => v.clone(),
        None => (0..n).map(|i| i as f64).collect(),
    };
    let (x_lo, x_hi) = x_range(&xs, if log_x { 0.12 } else { 0.04 });
    let values = c
        .lines
        .iter()
        .flat_map(|l| {
            let ends = l
                .bars
                .iter()
                .flatten()
                .flat_map(|&(a, b)| [Some(a), Some(b)]);
            l.values.iter().chain(&l.reference).copied().chain(ends)
        })
        .flatten();
    let y = YAxis::for_values(values);
    let (keys, widest) = legend_keys(c, scale);
    // A column of its own at the right on a wide canvas; on a narrow one (a phone) the plot
    // keeps the whole width and the legend flows in a band under it, as the other charts' do.
    let (w, _) = area.dim_in_pixel();
    let (plot, legend) = if f64::from(w) < crate::charts::plot::NARROW_CSS_PX * scale {
        (
            key::split_with_keys(area, &keys, 76.0 * scale, 12.0, scale)?,
            None,
        )
    } else {
        let key_w = ((widest as f64 * 6.6 + 40.0) * scale).min(f64::from(w) * 0.4) as u32;
        let (plot, legend) = area.split_horizontally(w.saturating_sub(key_w));
        (plot, Some(legend))
    };
    let plot = crate::charts::plot::caption(&plot, &c.title, 15.0 * scale)?;
    let mut chart = ChartBuilder::on(&plot)
        .margin(px(12.0))
        .x_label_area_size(px(40.0))
        .y_label_area_size(px(64.0))
        .build_cartesian_2d(x_lo..x_hi, y.lo..y.hi)
        .map_err(|e| e.to_string())?;
    sweep_mesh(&mut chart, &plot, c, (&y, log_x), scale)?;
    draw_lines(&mut chart, c, &xs, &y, scale)?;
    // The legend column (on a wide canvas).
    if let Some(legend) = legend {
        let text = key::text_style(12.0, scale);
        for (k, entry) in keys.iter().enumerate() {
            let mid = ((40.0 + 18.0 * k as f64) * scale).round() as i32;
            key::draw_entry(&legend, entry, 8.0 * scale, mid, &text, scale)?;
        }
    }
    let map = SweepMap {
        xs: xs
            .iter()
            .map(|x| f64::from(chart.backend_coord(&(*x, y.lo)).0))
            .collect(),
    };
    area.present().map_err(|e| e.to_string())?;
    Ok(map)
}

/// The axes: the swept key across (its values' names when they are not numbers), the metric
/// up.
fn sweep_mesh<DB: DrawingBackend>(
    chart: &mut crate::charts::plot::Chart<'_, DB>,
    plot: &DrawingArea<DB, Shift>,
    c: &SweepChart,
    (y, log_x): (&YAxis, bool),
    scale: f64,
) -> Result<(), String> {
    let font = |v: f64| (FontFamily::SansSerif, v * scale);
    let n = c.x_text.len();
    let y_desc = if y.log {
        format!("{} (log scale)", c.y_label)
    } else {
        c.y_label.clone()
    };
    let y_ticks = if y.log { (y.hi - y.lo) as usize + 1 } else { 8 };
    let categorical = c.x.is_none();
    let x_text = c.x_text.clone();
    let x_label = move |v: &f64| {
        if log_x {
            // A decade's value at each whole power of ten, short (`1k`, `1M`).
            let i = v.round();
            if (v - i).abs() < 1e-6 {
                decade(i as i32)
            } else {
                String::new()
            }
        } else if categorical {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 {
                x_text.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        } else {
            tick(*v)
        }
    };
    let plot_w = f64::from(chart.plotting_area().dim_in_pixel().0);
    let fit = XFit::of(chart, plot, 12.0 * scale);
    let x_count = if categorical {
        n.max(2) * 4
    } else if log_x {
        let decades: Vec<f64> = c.x.iter().flatten().map(|x| x.log10()).collect();
        let (lo, hi) = x_range(&decades, 0.12);
        ((hi - lo).ceil() as usize + 1) * 4
    } else {
        x_ticks(plot_w, 12.0 * scale, 10)
    };
    chart
        .configure_mesh()
        .y_labels(y_ticks)
        .x_labels(x_count)
        .y_label_formatter(&|v| y.label(*v))
        .x_label_formatter(&|v| fit.label(*v, x_label(v)))
        .label_style(font(12.0))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(|e| e.to_string())?;
    let x_name = if log_x {
        format!("{} (log scale)", c.x_label)
    } else {
        c.x_label.clone()
    };
    let names = AxisNames {
        x: Some(x_name.as_str()),
        y: Some(&y_desc),
        size: 13.0 * scale,
        bands: (40.0 * scale, 64.0 * scale),
    };
    axis_names(chart, plot, &names)
}

/// Whether numbers swept across span two decades or more (all above zero): they are then placed
/// by their logarithm, so a sweep over 1,000 to 1,000,000 clients spreads its points evenly.
pub fn spans_decades(x: Option<&[f64]>) -> bool {
    let Some(v) = x.filter(|v| v.len() > 1) else {
        return false;
    };
    let (lo, hi) = v
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), x| (a.min(*x), b.max(*x)));
    lo > 0.0 && hi / lo >= 100.0
}

/// The x axis's range: the values' span with `room` of it either side, so end points (and a
/// log axis's labels under them) and a single value sit inside the frame.
fn x_range(xs: &[f64], room: f64) -> (f64, f64) {
    let (mut x_lo, mut x_hi) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(*v), b.max(*v))
        });
    if !x_lo.is_finite() {
        (x_lo, x_hi) = (0.0, 1.0);
    }
    // A little room either side, so end points and a single value sit inside the frame.
    let pad = if x_hi > x_lo {
        (x_hi - x_lo) * room
    } else {
        1.0
    };
    (x_lo - pad, x_hi + pad)
}

/// The legend's entries (each line's swatch with its dash, then the hollow reference
/// marker's) and the widest name's length. The legend has a column of its own at the right, so
/// it never covers a line: a sweep's lines often fill every corner of the plot.
fn legend_keys(c: &SweepChart, scale: f64) -> (Vec<key::LegendEntry>, usize) {
    let px = |v: f64| (v * scale).round() as i32;
    let entries: Vec<(Option<usize>, &str)> = c
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| (Some(i), l.name.as_str()))
        .chain(c.reference_name.iter().map(|n| (None, n.as_str())))
        .collect();
    let widest = entries
        .iter()
        .map(|(_, n)| n.chars().count())
        .max()
        .unwrap_or(0);
    // The legend: each line's swatch (its dash too), then the hollow reference marker's.
    let keys = entries
        .iter()
        .map(|(line, name)| {
            let swatch = match line {
                Some(i) => {
                    let style =
                        ShapeStyle::from(&PALETTE[i % PALETTE.len()]).stroke_width(px(2.0) as u32);
                    let pieces = match dash_of(*i) {
                        None => key::SOLID,
                        Some((d, _)) if d > 4.0 => key::LONG_DASHED,
                        Some(_) => key::DOTTED,
                    };
                    key::Swatch::Line(style, pieces)
                }
                None => key::Swatch::Ring(
                    ShapeStyle::from(&RGBColor(90, 90, 100)).stroke_width(px(1.5) as u32),
                ),
            };
            key::LegendEntry::new(swatch, *name)
        })
        .collect();
    (keys, widest)
}

/// Each line with its markers, and the reference's hollow markers.
fn draw_lines<DB: DrawingBackend>(
    chart: &mut crate::charts::plot::Chart<'_, DB>,
    c: &SweepChart,
    xs: &[f64],
    y: &YAxis,
    scale: f64,
) -> Result<(), String> {
    let px = |v: f64| (v * scale).round() as i32;
    let r = px(3.5);
    for (i, line) in c.lines.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let style = ShapeStyle::from(&color).stroke_width(px(2.0) as u32);
        let points: Vec<(f64, f64)> = xs
            .iter()
            .zip(&line.values)
            .filter_map(|(x, v)| v.map(|v| (*x, y.place(v))))
            .collect();
        // A menu key's values have no order between them: markers only, no line joining them.
        if c.x.is_some() {
            match dash_of(i) {
                None => chart
                    .draw_series(LineSeries::new(points.clone(), style))
                    .map_err(|e| e.to_string())?,
                Some((d, g)) => chart
                    .draw_series(DashedLineSeries::new(points.clone(), px(d), px(g), style))
                    .map_err(|e| e.to_string())?,
            };
        }
        chart
            .draw_series(points.iter().map(|p| Circle::new(*p, r, color.filled())))
            .map_err(|e| e.to_string())?;
        draw_bars(chart, line, xs, y, color, scale)?;
        let hollow = ShapeStyle::from(&color).stroke_width(px(1.5) as u32);
        let refs = xs
            .iter()
            .zip(&line.reference)
            .filter_map(|(x, v)| v.map(|v| (*x, y.place(v))));
        chart
            .draw_series(refs.map(|p| Circle::new(p, px(6.0), hollow)))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// A line's error bars: from each interval's low to its high, capped at both ends.
fn draw_bars<DB: DrawingBackend>(
    chart: &mut crate::charts::plot::Chart<'_, DB>,
    line: &Line,
    xs: &[f64],
    y: &YAxis,
    color: RGBColor,
    scale: f64,
) -> Result<(), String> {
    let style = ShapeStyle::from(&color).stroke_width((1.5 * scale).round().max(1.0) as u32);
    // The caps' half-width, in x units: a small share of the axis.
    let span = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max)
        - xs.iter().copied().fold(f64::INFINITY, f64::min);
    let cap = if span > 0.0 { span * 0.008 } else { 0.05 };
    let segments = xs.iter().zip(&line.bars).filter_map(|(x, b)| {
        let (lo, hi) = (*b)?;
        let (a, z) = (y.place(lo), y.place(hi));
        Some([
            vec![(*x, a), (*x, z)],
            vec![(x - cap, a), (x + cap, a)],
            vec![(x - cap, z), (x + cap, z)],
        ])
    });
    chart
        .draw_series(segments.flatten().map(|s| PathElement::new(s, style)))
        .map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixels_map_back_to_the_nearest_value() {
        let m = SweepMap {
            xs: vec![100.0, 200.0, 300.0],
        };
        assert_eq!(m.index_at(90.0), Some(0));
        assert_eq!(m.index_at(240.0), Some(1));
        assert_eq!(m.index_at(390.0), Some(2));
        assert_eq!(m.index_at(450.0), None, "well past the last value");
        assert_eq!(SweepMap::default().index_at(10.0), None);
    }
}
