//! A grouped bar chart: one group per category, one bar per series, each bar labelled with its
//! value in the CLI's words. The layers view draws calls per user request at each layer with
//! it, the lost-responses view the duplicate charges with and without an idempotency key.
//!
//! Drawing only: values and their texts come from [`crate::extras`]. The y axis is the
//! timeline's [`YAxis`] (log when the values span more than two decades, 3^8 = 6561 calls).

use crate::charts::key::{split_with_keys, LegendEntry, Swatch};
use crate::charts::plot::{axis_names, AxisNames};
use crate::charts::sweepchart::PALETTE;
use crate::charts::timeline::YAxis;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One series: its legend, and per category a value and its label (`None`: no bar).
#[derive(Clone, Debug, PartialEq)]
pub struct BarSeries {
    /// The legend.
    pub name: String,
    /// Per category.
    pub bars: Vec<Option<(f64, String)>>,
}

/// What the chart draws.
#[derive(Clone, Debug, PartialEq)]
pub struct Bars {
    /// The caption.
    pub title: String,
    /// The y axis label, with its unit.
    pub y_label: String,
    /// The groups, left to right.
    pub categories: Vec<String>,
    /// The series, drawn side by side in each group.
    pub series: Vec<BarSeries>,
}

/// Draws the chart on `area` (device pixels; `scale` is the devicePixelRatio).
pub fn draw_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    b: &Bars,
    scale: f64,
) -> Result<(), String> {
    let px = |v: f64| (v * scale).round() as i32;
    area.fill(&WHITE).map_err(|e| e.to_string())?;
    let n = b.categories.len().max(1);
    let values = b
        .series
        .iter()
        .flat_map(|s| s.bars.iter().flatten().map(|(v, _)| *v));
    let mut y = YAxis::for_values(values);
    // Room above the tallest bar for its label.
    if y.log {
        y.hi += 0.3;
    } else {
        y.hi *= 1.08;
    }
    let keys: Vec<LegendEntry> = b
        .series
        .iter()
        .enumerate()
        .map(|(si, s)| {
            LegendEntry::new(
                Swatch::Block(PALETTE[si % PALETTE.len()].to_rgba()),
                s.name.clone(),
            )
        })
        .collect();
    let (margin, y_labels) = (12.0, 64.0);
    let plot = split_with_keys(area, &keys, (margin + y_labels) * scale, 12.0, scale)?;
    let plot = crate::charts::plot::caption(&plot, &b.title, 15.0 * scale)?;
    let mut chart = ChartBuilder::on(&plot)
        .margin(px(margin))
        .x_label_area_size(px(X_LABELS))
        .y_label_area_size(px(y_labels))
        .build_cartesian_2d(-0.5f64..n as f64 - 0.5, y.lo..y.hi)
        .map_err(|e| e.to_string())?;
    bars_mesh(&mut chart, &plot, b, &y, scale)?;
    draw_categories(&mut chart, b, &y, scale)?;
    draw_series_bars(&mut chart, b, &y, scale)?;
    area.present().map_err(|e| e.to_string())
}

/// The height of the band under the plot for the categories' names (up to three lines).
const X_LABELS: f64 = 50.0;

/// Each category's name under its group, centred and wrapped to the group's width, so that
/// neighbours never run into each other on a narrow screen.
fn draw_categories<DB: DrawingBackend>(
    chart: &mut crate::charts::plot::Chart<'_, DB>,
    b: &Bars,
    y: &YAxis,
    scale: f64,
) -> Result<(), String> {
    let n = b.categories.len().max(1);
    let (x0, _) = chart.backend_coord(&(-0.5, y.lo));
    let (x1, _) = chart.backend_coord(&(n as f64 - 0.5, y.lo));
    // About 6.6 px a character at 12 px, with a little room between neighbours.
    let slot = f64::from(x1 - x0) / n as f64 / scale;
    let chars = ((slot - 8.0) / 6.6).max(4.0) as usize;
    let line = (14.0 * scale).round() as i32;
    let style = (FontFamily::SansSerif, 12.0 * scale)
        .into_font()
        .color(&RGBColor(40, 40, 50))
        .pos(Pos::new(HPos::Center, VPos::Top));
    let texts = b.categories.iter().enumerate().flat_map(|(i, name)| {
        let style = style.clone();
        crate::charts::key::wrap_words(name, chars)
            .into_iter()
            .take(3)
            .enumerate()
            .map(move |(k, l)| {
                EmptyElement::at((i as f64, y.lo))
                    + Text::new(
                        l,
                        (0, (6.0 * scale) as i32 + k as i32 * line),
                        style.clone(),
                    )
            })
    });
    chart.draw_series(texts).map_err(|e| e.to_string())?;
    Ok(())
}

/// The axes: the value up (the categories' names are [`draw_categories`]').
fn bars_mesh<DB: DrawingBackend>(
    chart: &mut crate::charts::plot::Chart<'_, DB>,
    plot: &DrawingArea<DB, Shift>,
    b: &Bars,
    y: &YAxis,
    scale: f64,
) -> Result<(), String> {
    let font = |v: f64| (FontFamily::SansSerif, v * scale);
    let y_labels = 64.0;
    let y_desc = if y.log {
        format!("{} (log scale)", b.y_label)
    } else {
        b.y_label.clone()
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_labels(if y.log { (y.hi - y.lo) as usize + 1 } else { 8 })
        .y_label_formatter(&|v| y.label(*v))
        .label_style(font(12.0))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(|e| e.to_string())?;
    let names = AxisNames {
        x: None,
        y: Some(&y_desc),
        size: 13.0 * scale,
        bands: (X_LABELS * scale, y_labels * scale),
    };
    axis_names(chart, plot, &names)
}

/// Each series' bars, grouped by category, each labelled with its value in words.
fn draw_series_bars<DB: DrawingBackend>(
    chart: &mut crate::charts::plot::Chart<'_, DB>,
    b: &Bars,
    y: &YAxis,
    scale: f64,
) -> Result<(), String> {
    let k = b.series.len().max(1) as f64;
    let width = 0.7 / k;
    for (si, s) in b.series.iter().enumerate() {
        let color = PALETTE[si % PALETTE.len()];
        let left = |ci: usize| ci as f64 - 0.35 + si as f64 * width;
        let rects = s.bars.iter().enumerate().filter_map(|(ci, bar)| {
            let (v, _) = bar.as_ref()?;
            Some(Rectangle::new(
                [
                    (left(ci) + width * 0.08, y.lo),
                    (left(ci) + width * 0.92, y.place(*v)),
                ],
                color.filled(),
            ))
        });
        chart.draw_series(rects).map_err(|e| e.to_string())?;
        let labels = s.bars.iter().enumerate().filter_map(|(ci, bar)| {
            let (v, text) = bar.as_ref()?;
            let top = y.place(*v);
            // Centred over its bar, so the last group's label stays inside the plot.
            Some(Text::new(
                text.clone(),
                (left(ci) + width * 0.5, top),
                (FontFamily::SansSerif, 12.0 * scale)
                    .into_font()
                    .color(&RGBColor(40, 40, 50))
                    .pos(Pos::new(HPos::Center, VPos::Bottom)),
            ))
        });
        chart.draw_series(labels).map_err(|e| e.to_string())?;
    }
    Ok(())
}
