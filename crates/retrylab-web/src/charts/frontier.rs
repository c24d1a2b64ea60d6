//! The tuner's frontier: each policy on it as a point of success (up) against attempts per
//! original (across), its p99 latency as its colour (green short, red long), numbered as the
//! table numbers it; the link's own policy a black ring marked "yours". Drawing only: every
//! value is the core's (`retry_model::tune`'s objectives). The returned [`FrontierMap`] turns
//! a pointer back into the nearest point, for the readout.

use crate::charts::plot::{axis_names, x_ticks, AxisNames, XFit};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One point: its label (`1`, or `yours`), its success share (0 to 1), its attempts per
/// original and its p99 in ms (`None` where a weather had no success).
#[derive(Clone, Debug, PartialEq)]
pub struct FrontierPoint {
    /// The label beside it.
    pub label: String,
    /// The mean success share over the weathers.
    pub success: f64,
    /// The mean attempts per original over the weathers.
    pub load: f64,
    /// The mean p99 over the weathers, ms.
    pub p99_ms: Option<f64>,
}

/// What the chart draws.
#[derive(Clone, Debug, PartialEq)]
pub struct Frontier {
    /// The caption.
    pub title: String,
    /// The frontier's points, in the table's order.
    pub points: Vec<FrontierPoint>,
    /// The link's own policy.
    pub yours: FrontierPoint,
}

/// Where the points landed, in canvas pixels: the frontier's, then the user's last.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrontierMap {
    at: Vec<(f64, f64)>,
}

impl FrontierMap {
    /// The point nearest `(x, y)` within `radius` pixels: an index into the frontier, or its
    /// length for the user's own.
    pub fn point_at(&self, x: f64, y: f64, radius: f64) -> Option<usize> {
        self.at
            .iter()
            .enumerate()
            .map(|(i, (px, py))| (i, (px - x).hypot(py - y)))
            .filter(|(_, d)| *d <= radius)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    }
}

/// A p99's colour: green at the shortest of the chart, red at the longest (grey without one).
fn p99_colour(p99: Option<f64>, lo: f64, hi: f64) -> RGBColor {
    let Some(p) = p99 else {
        return RGBColor(150, 150, 150);
    };
    let t = if hi > lo {
        ((p.ln() - lo.ln()) / (hi.ln() - lo.ln())).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    RGBColor(mix(26.0, 200.0), mix(150.0, 40.0), mix(65.0, 40.0))
}

/// The user's point as drawn, and whether it was moved to the edge: where it lies more than
/// twice the frontier's load past it, or 20 points of success under it, it is drawn at the
/// frontier's edge.
fn placed_yours(f: &Frontier) -> (FrontierPoint, bool) {
    let mut p = f.yours.clone();
    if f.points.is_empty() {
        return (p, false);
    }
    let hi = f.points.iter().map(|q| q.load).fold(0.0, f64::max);
    let lo = f.points.iter().map(|q| q.success).fold(1.0, f64::min);
    let far_x = p.load > hi * 2.0 + 0.5;
    let far_y = p.success < lo - 0.2;
    if far_x {
        p.load = hi + (hi * 0.1).max(0.05);
    }
    if far_y {
        p.success = (lo - 0.02).max(0.0);
    }
    (p, far_x || far_y)
}

/// The axes' ranges: every point inside, with a margin.
fn ranges(all: &[&FrontierPoint]) -> ((f64, f64), (f64, f64)) {
    let loads = all.iter().map(|p| p.load);
    let (lo, hi) = loads.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    let pad = ((hi - lo) * 0.12).max(0.05);
    let succ = all.iter().map(|p| p.success * 100.0);
    let (slo, shi) = succ.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    let spad = ((shi - slo) * 0.15).max(0.5);
    (
        ((lo - pad).max(0.0), hi + pad),
        ((slo - spad).max(0.0), (shi + spad).min(100.5)),
    )
}

/// A label's box in area pixels: its top-left corner, width and height.
type LabelBox = (i32, i32, i32, i32);

/// How much two boxes overlap, in square pixels.
fn overlap(a: LabelBox, b: LabelBox) -> i64 {
    let w = (a.0 + a.2).min(b.0 + b.2) - a.0.max(b.0);
    let h = (a.1 + a.3).min(b.1 + b.3) - a.1.max(b.1);
    if w > 0 && h > 0 {
        i64::from(w) * i64::from(h)
    } else {
        0
    }
}

/// Places each label beside its point (`anchors`, area pixels, with its box's `sizes`) where
/// it covers no label placed before it, no point (each a square of `radius`) and stays inside
/// `canvas`: of eight places around the point (above right first, above left first in the
/// right third), the one overlapping least, so a cluster of points keeps every number
/// readable. Returns each box, in the order given.
fn place_labels(
    anchors: &[(i32, i32)],
    sizes: &[(i32, i32)],
    canvas: (i32, i32),
    radius: i32,
) -> Vec<LabelBox> {
    let gap = radius + 2;
    let dots: Vec<LabelBox> = anchors
        .iter()
        .map(|(x, y)| (x - radius, y - radius, 2 * radius, 2 * radius))
        .collect();
    let mut placed: Vec<LabelBox> = Vec::with_capacity(anchors.len());
    for (&(x, y), &(w, h)) in anchors.iter().zip(sizes) {
        let right = (x + gap, [y - gap / 2 - h, y + gap / 2, y - h / 2]);
        let left = (x - gap - w, [y - gap / 2 - h, y + gap / 2, y - h / 2]);
        let (first, second) = if x > canvas.0 * 2 / 3 {
            (left, right)
        } else {
            (right, left)
        };
        let mut tries: Vec<LabelBox> = Vec::with_capacity(8);
        for (bx, ys) in [first, second] {
            tries.extend(ys.iter().map(|by| (bx, *by, w, h)));
        }
        tries.push((x - w / 2, y - gap - h, w, h));
        tries.push((x - w / 2, y + gap, w, h));
        let cost = |b: LabelBox| -> i64 {
            let outside = b.0 < 0 || b.1 < 0 || b.0 + b.2 > canvas.0 || b.1 + b.3 > canvas.1;
            let covered: i64 = placed.iter().chain(&dots).map(|o| overlap(b, *o)).sum();
            covered + if outside { 1 << 40 } else { 0 }
        };
        let best = tries
            .iter()
            .copied()
            .enumerate()
            .min_by_key(|(i, b)| (cost(*b), *i))
            .map_or((x + gap, y - h, w, h), |(_, b)| b);
        placed.push(best);
    }
    placed
}

/// A label's lines, and the box they need at `size` pixels a line (a sans-serif character is
/// taken as 0.6 of its size wide: enough to keep labels apart, no font metrics needed).
fn label_size(lines: &[String], size: f64) -> (i32, i32) {
    let widest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let line = (size * 1.2).ceil() as i32;
    (
        (widest as f64 * size * 0.6).ceil() as i32,
        line * lines.len() as i32,
    )
}

/// Writes `lines` in the box `b` (area pixels), one under another.
fn draw_label<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    lines: &[String],
    b: LabelBox,
    style: &TextStyle<'_>,
) -> Result<(), String> {
    let line = b.3 / lines.len().max(1) as i32;
    let style = style.clone().pos(Pos::new(HPos::Left, VPos::Top));
    for (i, text) in lines.iter().enumerate() {
        let at = (b.0, b.1 + line * i as i32);
        area.draw(&Text::new(text.clone(), at, style.clone()))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The user's own label: "yours", or, moved to the edge when `far`, what it is and its figures.
fn yours_lines(f: &Frontier, far: bool) -> Vec<String> {
    if far {
        vec![
            "yours, off the scale:".to_string(),
            format!(
                "{:.1}x, {:.1}% success",
                f.yours.load,
                f.yours.success * 100.0
            ),
        ]
    } else {
        vec!["yours".to_string()]
    }
}

/// Draws the user's own point (`shown`) as a black ring; where it landed.
fn draw_yours<DB: DrawingBackend>(
    chart: &mut crate::charts::plot::Chart<'_, DB>,
    shown: &FrontierPoint,
    scale: f64,
) -> Result<(i32, i32), String> {
    let px = |v: f64| (v * scale).round() as i32;
    let c = (shown.load, shown.success * 100.0);
    chart
        .draw_series(std::iter::once(Circle::new(
            c,
            px(9.0),
            ShapeStyle::from(&BLACK).stroke_width(px(2.5).max(1) as u32),
        )))
        .map_err(|e| e.to_string())?;
    Ok(chart.backend_coord(&c))
}

/// Writes every label beside its point (`at`, backend pixels: the frontier's, then the user's
/// own), the user's own placed first, clear of one another.
fn draw_labels<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    f: &Frontier,
    far: bool,
    at: &[(i32, i32)],
    scale: f64,
) -> Result<(), String> {
    let px = |v: f64| (v * scale).round() as i32;
    let font = (FontFamily::SansSerif, 12.0 * scale);
    let mut lines: Vec<Vec<String>> = f.points.iter().map(|p| vec![p.label.clone()]).collect();
    lines.push(yours_lines(f, far));
    let (bx, by) = area.get_base_pixel();
    let local: Vec<(i32, i32)> = at.iter().map(|(x, y)| (x - bx, y - by)).collect();
    let order: Vec<usize> = core::iter::once(lines.len() - 1)
        .chain(0..lines.len() - 1)
        .collect();
    let sizes: Vec<(i32, i32)> = order
        .iter()
        .map(|i| label_size(&lines[*i], 12.0 * scale))
        .collect();
    let anchors: Vec<(i32, i32)> = order.iter().map(|i| local[*i]).collect();
    let (w, h) = area.dim_in_pixel();
    let canvas = (i32::try_from(w).unwrap_or(0), i32::try_from(h).unwrap_or(0));
    let label_style = TextStyle::from(font);
    for (i, b) in order
        .iter()
        .zip(place_labels(&anchors, &sizes, canvas, px(9.0)))
    {
        draw_label(area, &lines[*i], b, &label_style)?;
    }
    Ok(())
}

/// Draws the frontier; returns where its points landed.
pub fn draw_frontier<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    f: &Frontier,
    scale: f64,
) -> Result<FrontierMap, String> {
    let px = |v: f64| (v * scale).round() as i32;
    area.fill(&WHITE).map_err(|e| e.to_string())?;
    let plot = crate::charts::plot::caption(area, &f.title, 16.0 * scale)?;
    // The user's own, where it lies far off the frontier (a storm's hundreds of attempts per
    // original), is drawn at the plot's edge and says so, so the frontier keeps its scale.
    let (shown, far) = placed_yours(f);
    let all: Vec<&FrontierPoint> = f.points.iter().chain(core::iter::once(&shown)).collect();
    let ((x0, x1), (y0, y1)) = ranges(&all);
    let p99s = all.iter().filter_map(|p| p.p99_ms);
    let (plo, phi) = p99s.fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let mut chart = ChartBuilder::on(&plot)
        .margin(px(12.0))
        .x_label_area_size(px(56.0))
        .y_label_area_size(px(64.0))
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|e| e.to_string())?;
    let font = (FontFamily::SansSerif, 12.0 * scale);
    let plot_w = f64::from(chart.plotting_area().dim_in_pixel().0);
    let fit = XFit::of(&chart, &plot, 12.0 * scale);
    chart
        .configure_mesh()
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(font)
        .x_labels(x_ticks(plot_w, 12.0 * scale, 6))
        .y_labels(6)
        .x_label_formatter(&|v| fit.label(*v, format!("{v:.2}x")))
        .y_label_formatter(&|v| format!("{v:.1}%"))
        .draw()
        .map_err(|e| e.to_string())?;
    axis_names(
        &chart,
        &plot,
        &AxisNames {
            x: Some("attempts per original (mean over the weathers)"),
            y: Some("success (mean over the weathers)"),
            size: 13.0 * scale,
            bands: (56.0 * scale, 64.0 * scale),
        },
    )?;
    let mut at: Vec<(i32, i32)> = Vec::with_capacity(all.len());
    for p in &f.points {
        let c = (p.load, p.success * 100.0);
        let colour = p99_colour(p.p99_ms, plo, phi);
        chart
            .draw_series(std::iter::once(Circle::new(c, px(7.0), colour.filled())))
            .map_err(|e| e.to_string())?;
        at.push(chart.backend_coord(&c));
    }
    at.push(draw_yours(&mut chart, &shown, scale)?);
    draw_labels(area, f, far, &at, scale)?;
    area.present().map_err(|e| e.to_string())?;
    Ok(FrontierMap {
        at: at
            .iter()
            .map(|(x, y)| (f64::from(*x), f64::from(*y)))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(label: &str, success: f64, load: f64, p99: Option<f64>) -> FrontierPoint {
        FrontierPoint {
            label: label.into(),
            success,
            load,
            p99_ms: p99,
        }
    }

    /// Labels of a cluster (three points a few pixels apart, the user's own among them, one
    /// at the canvas's edge) neither cover one another nor any point, and stay inside.
    #[test]
    fn labels_of_a_cluster_stay_apart() {
        let anchors = [(300, 200), (100, 150), (106, 154), (110, 149), (395, 10)];
        let sizes = [(30, 14), (7, 14), (7, 14), (7, 14), (14, 14)];
        let boxes = place_labels(&anchors, &sizes, (400, 300), 9);
        for (i, a) in boxes.iter().enumerate() {
            assert!(
                a.0 >= 0 && a.1 >= 0 && a.0 + a.2 <= 400 && a.1 + a.3 <= 300,
                "{a:?}"
            );
            for b in &boxes[i + 1..] {
                assert_eq!(overlap(*a, *b), 0, "{a:?} and {b:?}");
            }
            for (x, y) in anchors {
                assert_eq!(
                    overlap(*a, (x - 9, y - 9, 18, 18)),
                    0,
                    "{a:?} covers {x},{y}"
                );
            }
        }
        // A lone point's label sits above it to the right, as before.
        let lone = place_labels(&[(50, 100)], &[(7, 14)], (400, 300), 9);
        assert!(lone[0].0 > 50 && lone[0].1 + lone[0].3 <= 100);
    }

    /// Every point and the user's own are drawn inside the canvas, labelled, and the pointer
    /// finds each where it landed; short p99s are greener than long ones.
    #[test]
    fn the_frontier_draws_every_point_and_finds_it_again() {
        let f = Frontier {
            title: "payments: the frontier over a blip, an outage and a spike".into(),
            points: vec![
                point("1", 0.78, 1.9, Some(6130.0)),
                point("2", 0.76, 1.2, Some(50.9)),
                point("3", 0.75, 1.0, None),
            ],
            yours: point("yours", 0.76, 1.24, Some(55.0)),
        };
        for (w, h) in [(900, 420), (360, 300)] {
            let rec = crate::charts::plot::CanvasRecorder::new(w, h);
            let map = draw_frontier(&rec.clone().into_drawing_area(), &f, 1.0).unwrap();
            let d = rec.drawn();
            assert!(d.outside.is_empty(), "{w}x{h}: {:?}", d.outside);
            assert_eq!(d.circles, 4);
            for label in ["1", "2", "3", "yours"] {
                assert!(rec.has_text(label), "{label}");
            }
            for (i, (x, y)) in map.at.iter().enumerate() {
                assert_eq!(map.point_at(*x + 2.0, *y - 1.0, 12.0), Some(i));
            }
            assert_eq!(map.point_at(-50.0, -50.0, 12.0), None);
        }
        // A storm's own policy, far off: at the edge, its figures in its label.
        let far = Frontier {
            yours: point("yours", 0.096, 249.9, Some(7050.0)),
            ..f.clone()
        };
        let rec = crate::charts::plot::CanvasRecorder::new(900, 420);
        draw_frontier(&rec.clone().into_drawing_area(), &far, 1.0).unwrap();
        assert!(rec.has_text("yours, off the scale:") && rec.has_text("249.9x, 9.6% success"));
        assert!(rec.drawn().outside.is_empty());
        let (g, r) = (
            p99_colour(Some(50.0), 50.0, 6000.0),
            p99_colour(Some(6000.0), 50.0, 6000.0),
        );
        assert!(g.1 > r.1 && g.0 < r.0);
    }
}
