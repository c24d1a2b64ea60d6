//! A chart's legend as a band of its own under the plot, its entries flowing left to right and
//! wrapping, so that it never covers a line: a timeline's series often fill every corner.
//!
//! Drawing only. The band keeps the plot's full width, so charts that share a time axis keep
//! their plot columns lined up.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// How an entry's series looks.
#[derive(Clone, Copy, Debug)]
pub enum Swatch {
    /// A solid line.
    Line(ShapeStyle),
    /// A dashed line (side B of a comparison).
    Dashed(ShapeStyle),
    /// A filled block (a stacked area, a shaded window).
    Block(RGBAColor),
}

/// One legend entry: its swatches (side A's and B's, for a series both sides draw) and text.
#[derive(Clone, Debug)]
pub struct Key {
    /// The swatches, drawn side by side.
    pub swatches: Vec<Swatch>,
    /// The text.
    pub label: String,
}

impl Key {
    /// An entry with one swatch.
    pub fn new(swatch: Swatch, label: impl Into<String>) -> Key {
        Key {
            swatches: vec![swatch],
            label: label.into(),
        }
    }
}

const SWATCH: f64 = 18.0;
const GAP: f64 = 6.0;
const SPACE: f64 = 18.0;

/// Splits `area` into the plot (returned) and a band under it holding `keys` in rows, drawn
/// at `font_px` from `left` pixels in (the plot's left edge, device pixels); `scale` is the
/// devicePixelRatio. With no keys the whole area is the plot.
pub fn split_with_keys<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    keys: &[Key],
    left: f64,
    font_px: f64,
    scale: f64,
) -> Result<DrawingArea<DB, Shift>, String> {
    if keys.is_empty() {
        return Ok(area.clone());
    }
    let (w, h) = area.dim_in_pixel();
    let font = ("sans-serif", font_px * scale).into_font();
    let text = font.color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center));
    let row_h = (font_px * 1.6 * scale).round();
    // Lay the entries out in rows within the plot's width.
    let right = f64::from(w) - 12.0 * scale;
    let mut at: Vec<(f64, f64)> = Vec::with_capacity(keys.len());
    let (mut x, mut row) = (left, 0.0);
    for k in keys {
        let text_w = area.estimate_text_size(&k.label, &text).map_or(
            k.label.chars().count() as f64 * font_px * 0.55 * scale,
            |(tw, _)| f64::from(tw),
        );
        let width = k.swatches.len() as f64 * (SWATCH + GAP) * scale + text_w;
        if x > left && x + width > right {
            x = left;
            row += 1.0;
        }
        at.push((x, row));
        x += width + SPACE * scale;
    }
    let band = ((row + 1.0) * row_h + 6.0 * scale).min(f64::from(h) / 2.0) as u32;
    let (plot, strip) = area.split_vertically(h.saturating_sub(band));
    let px = |v: f64| v.round() as i32;
    for (k, (x, row)) in keys.iter().zip(at) {
        let mid = px(row * row_h + row_h / 2.0);
        let mut sx = x;
        for s in &k.swatches {
            let (a, b) = (px(sx), px(sx + SWATCH * scale));
            match *s {
                Swatch::Line(style) => strip
                    .draw(&PathElement::new(vec![(a, mid), (b, mid)], style))
                    .map_err(|e| e.to_string())?,
                Swatch::Dashed(style) => {
                    for (s0, s1) in [(0.0, 5.0), (7.0, 12.0), (14.0, 18.0)] {
                        strip
                            .draw(&PathElement::new(
                                vec![(px(sx + s0 * scale), mid), (px(sx + s1 * scale), mid)],
                                style,
                            ))
                            .map_err(|e| e.to_string())?;
                    }
                }
                Swatch::Block(color) => strip
                    .draw(&Rectangle::new(
                        [(a, mid - px(5.0 * scale)), (b, mid + px(5.0 * scale))],
                        color.filled(),
                    ))
                    .map_err(|e| e.to_string())?,
            }
            sx += (SWATCH + GAP) * scale;
        }
        strip
            .draw(&Text::new(k.label.clone(), (px(sx), mid), text.clone()))
            .map_err(|e| e.to_string())?;
    }
    Ok(plot)
}
