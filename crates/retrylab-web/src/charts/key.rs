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
    /// A line drawn in pieces: `(from, to)` in CSS pixels across the swatch ([`SOLID`],
    /// [`DASHED`], [`LONG_DASHED`], [`DOTTED`]).
    Line(ShapeStyle, &'static [(f64, f64)]),
    /// A filled block (a stacked area, a shaded window).
    Block(RGBAColor),
    /// A hollow marker (reference figures).
    Ring(ShapeStyle),
    /// A filled dot of this radius in CSS pixels (a scatter's points).
    Dot(RGBAColor, f64),
}

/// A solid line's swatch.
pub const SOLID: &[(f64, f64)] = &[(0.0, SWATCH)];
/// A dashed line's (side B of a comparison).
pub const DASHED: &[(f64, f64)] = &[(0.0, 5.0), (7.0, 12.0), (14.0, 18.0)];
/// A line of long dashes.
pub const LONG_DASHED: &[(f64, f64)] = &[(0.0, 7.0), (10.0, 17.0)];
/// A dotted line's.
pub const DOTTED: &[(f64, f64)] = &[(0.0, 3.0), (6.0, 9.0), (12.0, 15.0)];

/// One legend entry: its swatches (side A's and B's, for a series both sides draw) and text.
#[derive(Clone, Debug)]
pub struct LegendEntry {
    /// The swatches, drawn side by side.
    pub swatches: Vec<Swatch>,
    /// The text.
    pub label: String,
}

impl LegendEntry {
    /// An entry with one swatch.
    pub fn new(swatch: Swatch, label: impl Into<String>) -> LegendEntry {
        LegendEntry {
            swatches: vec![swatch],
            label: label.into(),
        }
    }
}

/// A swatch's width, the gap after it and the space between entries, in CSS pixels.
const SWATCH: f64 = 18.0;
const GAP: f64 = 6.0;
const SPACE: f64 = 18.0;

/// Entries of these `widths` laid out left to right from `left`, wrapping before `right`:
/// each entry's x and row.
pub fn flow(widths: &[f64], left: f64, right: f64, space: f64) -> Vec<(f64, u32)> {
    let (mut x, mut row) = (left, 0);
    widths
        .iter()
        .map(|w| {
            if x > left && x + w > right {
                x = left;
                row += 1;
            }
            let at = (x, row);
            x += w + space;
            at
        })
        .collect()
}

/// The legend's text style at `font_px` (device pixels: times `scale`).
pub fn text_style(font_px: f64, scale: f64) -> TextStyle<'static> {
    (FontFamily::SansSerif, font_px * scale)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center))
}

/// Draws entry `k` on `area` from `x`, centred on row `mid` (device pixels).
pub fn draw_entry<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    k: &LegendEntry,
    x: f64,
    mid: i32,
    text: &TextStyle<'_>,
    scale: f64,
) -> Result<(), String> {
    let px = |v: f64| v.round() as i32;
    let mut sx = x;
    for s in &k.swatches {
        match *s {
            Swatch::Line(style, pieces) => {
                for (a, b) in pieces {
                    area.draw(&PathElement::new(
                        vec![(px(sx + a * scale), mid), (px(sx + b * scale), mid)],
                        style,
                    ))
                    .map_err(|e| e.to_string())?;
                }
            }
            Swatch::Block(color) => area
                .draw(&Rectangle::new(
                    [
                        (px(sx), mid - px(5.0 * scale)),
                        (px(sx + SWATCH * scale), mid + px(5.0 * scale)),
                    ],
                    color.filled(),
                ))
                .map_err(|e| e.to_string())?,
            Swatch::Ring(style) => area
                .draw(&Circle::new(
                    (px(sx + SWATCH * scale / 2.0), mid),
                    px(5.0 * scale),
                    style,
                ))
                .map_err(|e| e.to_string())?,
            Swatch::Dot(color, r) => area
                .draw(&Circle::new(
                    (px(sx + SWATCH * scale / 2.0), mid),
                    px(r * scale),
                    color.filled(),
                ))
                .map_err(|e| e.to_string())?,
        }
        sx += (SWATCH + GAP) * scale;
    }
    area.draw(&Text::new(k.label.clone(), (px(sx), mid), text.clone()))
        .map_err(|e| e.to_string())
}

/// Splits `area` into the plot (returned) and a band under it holding `keys` in rows, drawn
/// at `font_px` from `left` pixels in (the plot's left edge, device pixels); `scale` is the
/// devicePixelRatio. With no keys the whole area is the plot.
pub fn split_with_keys<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    keys: &[LegendEntry],
    left: f64,
    font_px: f64,
    scale: f64,
) -> Result<DrawingArea<DB, Shift>, String> {
    if keys.is_empty() {
        return Ok(area.clone());
    }
    let (w, h) = area.dim_in_pixel();
    let text = text_style(font_px, scale);
    let row_h = (font_px * 1.6 * scale).round();
    let text_w = |label: &str| {
        area.estimate_text_size(label, &text).map_or(
            label.chars().count() as f64 * font_px * 0.55 * scale,
            |(tw, _)| f64::from(tw),
        )
    };
    let swatches_w = |k: &LegendEntry| k.swatches.len() as f64 * (SWATCH + GAP) * scale;
    let widths: Vec<f64> = keys
        .iter()
        .map(|k| swatches_w(k) + text_w(&k.label))
        .collect();
    // On a narrow canvas an entry may be wider than the band right of the y axis: then every
    // entry starts at the canvas's left edge instead, and one wider than the canvas is broken
    // into lines.
    let right = f64::from(w) - 12.0 * scale;
    let left = if widths.iter().any(|x| left + x > right) {
        8.0 * scale
    } else {
        left
    };
    let mut pieces: Vec<(LegendEntry, f64, f64)> = Vec::new();
    for (k, width) in keys.iter().zip(&widths) {
        if left + width <= right {
            pieces.push((k.clone(), 0.0, *width));
            continue;
        }
        // Each line on a row of its own (the full band's width), under the first's text.
        let per_char = text_w(&k.label) / k.label.chars().count().max(1) as f64;
        let chars = ((right - left - swatches_w(k)) / per_char).max(8.0) as usize;
        for (i, line) in wrap_words(&k.label, chars).into_iter().enumerate() {
            let piece = LegendEntry {
                swatches: if i == 0 {
                    k.swatches.clone()
                } else {
                    Vec::new()
                },
                label: line,
            };
            let indent = if i == 0 { 0.0 } else { swatches_w(k) };
            pieces.push((piece, indent, right - left));
        }
    }
    let piece_widths: Vec<f64> = pieces.iter().map(|p| p.2).collect();
    let at = flow(&piece_widths, left, right, SPACE * scale);
    let rows = at.iter().map(|(_, r)| r + 1).max().unwrap_or(1);
    let band = (f64::from(rows) * row_h + 6.0 * scale).min(f64::from(h) / 2.0) as u32;
    let (plot, strip) = area.split_vertically(h.saturating_sub(band));
    for ((k, indent, _), (x, row)) in pieces.iter().zip(at) {
        let mid = (f64::from(row) * row_h + row_h / 2.0).round() as i32;
        draw_entry(&strip, k, x + indent, mid, &text, scale)?;
    }
    Ok(plot)
}

/// `text` broken at spaces into lines of at most `chars` characters (a longer word stays whole).
pub fn wrap_words(text: &str, chars: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 1 + word.chars().count() <= chars => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_wrap_before_the_right_edge() {
        let at = flow(&[100.0, 100.0, 100.0, 250.0], 10.0, 300.0, 20.0);
        assert_eq!(at, [(10.0, 0), (130.0, 0), (10.0, 1), (10.0, 2)]);
        // An entry wider than the band still gets a row of its own, never an empty one.
        assert_eq!(flow(&[500.0, 10.0], 0.0, 100.0, 5.0), [(0.0, 0), (0.0, 1)]);
        assert!(flow(&[], 0.0, 100.0, 5.0).is_empty());
    }

    #[test]
    fn words_wrap_at_spaces() {
        assert_eq!(wrap_words("bottom dependency", 8), ["bottom", "dependency"]);
        assert_eq!(wrap_words("layer 1 (top)", 20), ["layer 1 (top)"]);
        assert_eq!(wrap_words("layer 1 (top)", 7), ["layer 1", "(top)"]);
    }
}
