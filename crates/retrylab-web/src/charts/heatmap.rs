//! A phase plot: a sweep of two keys as a grid of cells, the first key across and the second
//! up, one grid per value of a third key side by side. A cell's colour is whether that run
//! recovered after its trigger (green) or stayed down (red), or for any other metric a shade
//! from its least to its most value; a thick line runs between every two neighbouring cells
//! whose verdicts differ: the boundary between triggers a system survives and triggers that
//! tip it over.
//!
//! Drawing only: every value and verdict comes from the core (`Metric::value`,
//! `Recovery::recovered` of each row's summary). The returned [`CellMap`] turns a pointer back
//! into the row under it, for the readout.

use crate::charts::key::{self, LegendEntry, Swatch, SOLID};
use plotters::coord::Shift;
use plotters::prelude::*;

/// One grid: its name (the third key's value) and, per cell, the row it shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    /// `budget=bucket`, or empty for the only grid.
    pub name: String,
    /// Per cell (x-major: cell `xi * ny + yi`), the metric's value.
    pub values: Vec<Option<f64>>,
    /// Per cell, whether the run recovered, or more than half of its runs did (`None`
    /// without a verdict).
    pub verdicts: Vec<Option<bool>>,
    /// Per cell over several runs, the share that did not recover (`None` for one run).
    pub collapse: Vec<Option<f64>>,
    /// Per cell, the sweep row's index.
    pub rows: Vec<usize>,
}

/// What the chart draws.
#[derive(Clone, Debug, PartialEq)]
pub struct Heatmap {
    /// The caption.
    pub title: String,
    /// The keys across and up.
    pub keys: (String, String),
    /// Their values, as the link writes them.
    pub x_text: Vec<String>,
    /// The second key's values, bottom to top.
    pub y_text: Vec<String>,
    /// The grids, left to right.
    pub grids: Vec<Grid>,
    /// True: colour by the verdict; false: by the value, least to most.
    pub by_verdict: bool,
    /// The metric's name, for a shaded legend.
    pub metric: String,
}

/// Where each grid's cells landed, in canvas pixels.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CellMap {
    // Per grid: left, top, cell width, cell height.
    grids: Vec<(f64, f64, f64, f64)>,
    nx: usize,
    ny: usize,
    rows: Vec<Vec<usize>>,
}

impl CellMap {
    /// The sweep row of the cell under pixel (`x`, `y`), if any.
    pub fn row_at(&self, x: f64, y: f64) -> Option<usize> {
        self.grids.iter().zip(&self.rows).find_map(|(g, rows)| {
            let (xi, yi) = ((x - g.0) / g.2, (g.1 + g.3 * self.ny as f64 - y) / g.3);
            let inside = xi >= 0.0 && yi >= 0.0 && xi < self.nx as f64 && yi < self.ny as f64;
            inside.then(|| rows.get(xi as usize * self.ny + yi as usize).copied())?
        })
    }
}

const RECOVERED: RGBColor = RGBColor(120, 190, 130);
const METASTABLE: RGBColor = RGBColor(215, 95, 85);
const NONE: RGBColor = RGBColor(220, 220, 220);
const LOW: (f64, f64, f64) = (253.0, 231.0, 37.0);
const HIGH: (f64, f64, f64) = (59.0, 82.0, 139.0);

/// A value's shade between the least (`t` = 0, pale yellow) and the most (1, deep blue).
pub(crate) fn shade(t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    RGBColor(mix(LOW.0, HIGH.0), mix(LOW.1, HIGH.1), mix(LOW.2, HIGH.2))
}

/// `a` at `t` = 0 to `b` at 1.
fn mix(a: RGBColor, b: RGBColor, t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let m = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * t).round() as u8;
    RGBColor(m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
}

/// The legend: the verdicts and the boundary, or the shade's two ends with their values.
fn legend(h: &Heatmap, range: (f64, f64), scale: f64) -> Vec<LegendEntry> {
    let line = ShapeStyle::from(&BLACK).stroke_width((3.0 * scale).round() as u32);
    let shares = h
        .grids
        .iter()
        .any(|g| g.collapse.iter().any(Option::is_some));
    if h.by_verdict && shares {
        return vec![
            LegendEntry::new(
                Swatch::Block(RECOVERED.to_rgba()),
                "collapsed in 0% of runs",
            ),
            LegendEntry::new(
                Swatch::Block(mix(RECOVERED, METASTABLE, 0.5).to_rgba()),
                "in 50%",
            ),
            LegendEntry::new(Swatch::Block(METASTABLE.to_rgba()), "in 100%"),
            LegendEntry::new(Swatch::Block(NONE.to_rgba()), "no verdict"),
            LegendEntry::new(Swatch::Line(line, SOLID), "boundary: 50%"),
        ];
    }
    if h.by_verdict {
        return vec![
            LegendEntry::new(Swatch::Block(RECOVERED.to_rgba()), "recovered"),
            LegendEntry::new(
                Swatch::Block(METASTABLE.to_rgba()),
                "did not recover (metastable)",
            ),
            LegendEntry::new(Swatch::Block(NONE.to_rgba()), "no verdict"),
            LegendEntry::new(Swatch::Line(line, SOLID), "boundary"),
        ];
    }
    vec![
        LegendEntry::new(
            Swatch::Block(shade(0.0).to_rgba()),
            format!("{} {}", h.metric, range.0),
        ),
        LegendEntry::new(
            Swatch::Block(shade(1.0).to_rgba()),
            format!("{} {}", h.metric, range.1),
        ),
        LegendEntry::new(Swatch::Block(NONE.to_rgba()), "none"),
    ]
}

/// Draws the heatmaps on `area` (device pixels; `scale` is the devicePixelRatio).
pub fn draw_heatmap<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    h: &Heatmap,
    scale: f64,
) -> Result<CellMap, String> {
    area.fill(&WHITE).map_err(|e| e.to_string())?;
    let values = h
        .grids
        .iter()
        .flat_map(|g| g.values.iter().flatten().copied());
    let range = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    let keys = legend(h, range, scale);
    let plot = key::split_with_keys(area, &keys, 76.0 * scale, 12.0, scale)?;
    let plot = crate::charts::plot::caption(&plot, &h.title, 15.0 * scale)?;
    let (nx, ny) = (h.x_text.len(), h.y_text.len());
    let mut map = CellMap {
        nx,
        ny,
        ..CellMap::default()
    };
    let panels = plot.split_evenly((1, h.grids.len().max(1)));
    for (grid, panel) in h.grids.iter().zip(&panels) {
        let cells = draw_grid(panel, h, grid, range, scale)?;
        map.grids.push(cells);
        map.rows.push(grid.rows.clone());
    }
    area.present().map_err(|e| e.to_string())?;
    Ok(map)
}

/// One grid with its axes and boundary; returns where its cells landed.
fn draw_grid<DB: DrawingBackend>(
    panel: &DrawingArea<DB, Shift>,
    h: &Heatmap,
    g: &Grid,
    range: (f64, f64),
    scale: f64,
) -> Result<(f64, f64, f64, f64), String> {
    let px = |v: f64| (v * scale).round() as i32;
    let (nx, ny) = (h.x_text.len(), h.y_text.len());
    let mut chart = ChartBuilder::on(panel)
        .margin(px(10.0))
        .caption(&g.name, (FontFamily::SansSerif, 13.0 * scale))
        .x_label_area_size(px(40.0))
        .y_label_area_size(px(56.0))
        .build_cartesian_2d(0.0..nx as f64, 0.0..ny as f64)
        .map_err(|e| e.to_string())?;
    let font = (FontFamily::SansSerif, 11.0 * scale);
    let label = |texts: &[String], v: f64| {
        let i = v.floor() as usize;
        // Only the cells' middles carry a label, thinned to what fits.
        let step = texts.len().div_ceil(12).max(1);
        if (v - i as f64 - 0.5).abs() < 1e-6 && i.is_multiple_of(step) {
            texts.get(i).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(nx * 2 + 1)
        .y_labels(ny * 2 + 1)
        .x_label_formatter(&|v| label(&h.x_text, *v))
        .y_label_formatter(&|v| label(&h.y_text, *v))
        .x_desc(h.keys.0.as_str())
        .y_desc(h.keys.1.as_str())
        .label_style(font)
        .axis_desc_style((FontFamily::SansSerif, 12.0 * scale))
        .draw()
        .map_err(|e| e.to_string())?;
    let colour = |i: usize| -> RGBColor {
        if let (true, Some(p)) = (h.by_verdict, g.collapse.get(i).copied().flatten()) {
            return mix(RECOVERED, METASTABLE, p);
        }
        match (
            h.by_verdict,
            g.verdicts.get(i).copied().flatten(),
            g.values.get(i).copied().flatten(),
        ) {
            (true, Some(true), _) => RECOVERED,
            (true, Some(false), _) => METASTABLE,
            (false, _, Some(v)) if range.1 > range.0 => shade((v - range.0) / (range.1 - range.0)),
            (false, _, Some(_)) => shade(0.0),
            _ => NONE,
        }
    };
    let cells = (0..nx).flat_map(|xi| (0..ny).map(move |yi| (xi, yi)));
    chart
        .draw_series(cells.map(|(xi, yi)| {
            let (x, y) = (xi as f64, yi as f64);
            Rectangle::new([(x, y), (x + 1.0, y + 1.0)], colour(xi * ny + yi).filled())
        }))
        .map_err(|e| e.to_string())?;
    let edge = ShapeStyle::from(&BLACK).stroke_width(px(3.0).max(1) as u32);
    chart
        .draw_series(
            boundary(g, nx, ny)
                .into_iter()
                .map(|seg| PathElement::new(seg, edge)),
        )
        .map_err(|e| e.to_string())?;
    let (x0, y0) = chart.backend_coord(&(0.0, ny as f64));
    let (x1, y1) = chart.backend_coord(&(nx as f64, 0.0));
    Ok((
        f64::from(x0),
        f64::from(y0),
        f64::from(x1 - x0) / nx.max(1) as f64,
        f64::from(y1 - y0) / ny.max(1) as f64,
    ))
}

/// The edges between neighbouring cells whose verdicts differ (both known), in cell units.
pub fn boundary(g: &Grid, nx: usize, ny: usize) -> Vec<Vec<(f64, f64)>> {
    let v = |xi: usize, yi: usize| g.verdicts.get(xi * ny + yi).copied().flatten();
    let differs = |a: Option<bool>, b: Option<bool>| matches!((a, b), (Some(a), Some(b)) if a != b);
    let mut out = Vec::new();
    for xi in 0..nx {
        for yi in 0..ny {
            let (x, y) = (xi as f64, yi as f64);
            if xi + 1 < nx && differs(v(xi, yi), v(xi + 1, yi)) {
                out.push(vec![(x + 1.0, y), (x + 1.0, y + 1.0)]);
            }
            if yi + 1 < ny && differs(v(xi, yi), v(xi, yi + 1)) {
                out.push(vec![(x, y + 1.0), (x + 1.0, y + 1.0)]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(verdicts: &[Option<bool>]) -> Grid {
        Grid {
            name: String::new(),
            values: verdicts
                .iter()
                .map(|v| v.map(|b| f64::from(u8::from(b))))
                .collect(),
            verdicts: verdicts.to_vec(),
            collapse: vec![None; verdicts.len()],
            rows: (0..verdicts.len()).collect(),
        }
    }

    #[test]
    fn the_boundary_runs_between_differing_verdicts_only() {
        // 2 x 2, x-major: (0,0) yes, (0,1) no, (1,0) yes, (1,1) unknown.
        let g = grid(&[Some(true), Some(false), Some(true), None]);
        let b = boundary(&g, 2, 2);
        assert_eq!(b, vec![vec![(0.0, 1.0), (1.0, 1.0)]]);
    }

    #[test]
    fn the_map_finds_the_cell_under_the_pointer() {
        let map = CellMap {
            grids: vec![(100.0, 50.0, 10.0, 20.0), (300.0, 50.0, 10.0, 20.0)],
            nx: 3,
            ny: 2,
            rows: vec![(0..6).collect(), (6..12).collect()],
        };
        // Left grid, x cell 1, the top row (y cell 1): row 1 * 2 + 1.
        assert_eq!(map.row_at(115.0, 55.0), Some(3));
        // Bottom row of the right grid's last column.
        assert_eq!(map.row_at(325.0, 85.0), Some(6 + 4));
        assert_eq!(map.row_at(99.0, 55.0), None);
        assert_eq!(map.row_at(115.0, 95.0), None);
    }

    #[test]
    fn a_phase_plot_draws_its_cells_boundary_and_legend_inside_the_canvas() {
        let link = "preset=queue-spike-none&rate=70&spike_start=10s&sweep.spike_rate=20,100&sweep.spike_for=1s,10s&sweep.budget=none,bucket&sweep.plot=recovered";
        let p: retry_model::Params = link.parse().unwrap();
        let plan = crate::sweepplan::Plan::of(&p).unwrap().unwrap();
        assert!(plan.heatmap);
        let summaries: Vec<_> = plan
            .links
            .iter()
            .map(|l| {
                retry_model::sim::simulate(&l.parse().unwrap())
                    .unwrap()
                    .summary
            })
            .collect();
        let charts = plan.heatmaps(&summaries);
        assert_eq!(charts.len(), 1);
        let h = &charts[0];
        assert_eq!(h.grids.len(), 2, "one grid per budget");
        assert_eq!(h.grids[0].name, "budget=none");
        // A small spike recovers, a large long one does not: the boundary is drawn.
        let g = &h.grids[0];
        assert_eq!(g.verdicts[0], Some(true), "spike 20/s for 1 s");
        assert_eq!(g.verdicts[3], Some(false), "spike 100/s for 10 s");
        assert!(!boundary(g, 2, 2).is_empty());
        let rec = crate::charts::plot::CanvasRecorder::new(900, 420);
        let map = draw_heatmap(&rec.clone().into_drawing_area(), h, 1.0).unwrap();
        let d = rec.drawn();
        assert!(d.outside.is_empty(), "{:?}", d.outside);
        for text in [
            "budget=none",
            "budget=bucket",
            "spike_rate",
            "spike_for",
            "recovered",
            "boundary",
            "100",
            "10s",
        ] {
            assert!(rec.has_text(text), "{text} missing from {:?}", d.texts);
        }
        // The pointer over the first grid's top-left cell reads row 1 x 2: spike 20/s for 10 s.
        let (x, y) = (map.grids[0].0 + 1.0, map.grids[0].1 + 1.0);
        let row = map.row_at(x, y).unwrap();
        assert_eq!(plan.values[row], ["20", "10s", "none"]);
        let (text, link) = plan.readout_row(&summaries, row);
        assert!(
            text.starts_with("spike_rate=20, spike_for=10s, budget=none: recovered: "),
            "{text}"
        );
        assert!(link.starts_with("?v=2&preset=queue-spike-none"), "{link}");
        assert!(
            link.contains("spike_rate=20&") && link.contains("spike_for=10s"),
            "{link}"
        );
    }
}
