//! The 2015 study's one run (`scenario=occ`): each side's write calls over time, each side on a
//! time axis of its own. On the timeline's shared axis a side that finishes ten times sooner is a
//! sliver at the left, so exponential backoff's clusters show but full jitter's even spread does
//! not; here each panel spans its own run, and the heights share one scale so the sides compare.
//!
//! Drawing only: the counts are the first run's bins (`Report::bins`, the `attempts` column of
//! `retrylab run --format csv`) and the captions quote the first run's summary in the CLI's words.

use crate::charts::plot::{axis_names, x_ticks, AxisNames, XFit};
use crate::charts::sweepchart::PALETTE;
use crate::charts::timeline::YAxis;
use plotters::coord::Shift;
use plotters::prelude::*;
use retry_model::sim::{ScenarioKind, SimReport};
use retry_model::Params;

/// One side's panel.
#[derive(Clone, Debug, PartialEq)]
pub struct WritesSide {
    /// The caption: the side, its backoff and its first run's totals in the CLI's words.
    pub title: String,
    /// The bin width in milliseconds.
    pub bin_ms: f64,
    /// Write calls per bin, up to the last bin that has one.
    pub counts: Vec<u32>,
}

/// The panels of a 2015-study comparison (not a sweep), one per side (`reports` are side A's
/// and side B's, in that order); `None` for every other link. One side alone has the timeline,
/// on its own axis already.
pub fn panels(p: &Params, reports: &[SimReport]) -> Option<Vec<WritesSide>> {
    if p.sim.kind() != Some(ScenarioKind::Occ) || p.sweep().is_some() || reports.len() < 2 {
        return None;
    }
    let backoffs = [p.get("backoff"), p.side_b().and_then(|b| b.get("backoff"))];
    let panels = reports
        .iter()
        .zip(backoffs)
        .zip(["A: ", "B: "])
        .map(|((r, backoff), side)| {
            let backoff = backoff.unwrap_or_default();
            let rows = r.series.summary.rows();
            let row = |k: &str| {
                rows.iter()
                    .find(|(l, _)| l == k)
                    .map_or_else(|| "-".to_string(), |(_, v)| v.clone())
            };
            let mut counts: Vec<u32> = r.series.bins.iter().map(|b| b.attempts).collect();
            while counts.last() == Some(&0) {
                counts.pop();
            }
            WritesSide {
                title: format!(
                    "{side}backoff={backoff}, first run: {} write calls, the last answered at {}",
                    row("attempts"),
                    row("completion"),
                ),
                bin_ms: r.series.bin_ms,
                counts,
            }
        })
        .collect();
    Some(panels)
}

/// Draws the panels one above the other on `area` (device pixels; `scale` is the
/// devicePixelRatio). Each bin with write calls is a bar at least one device pixel wide.
pub fn draw_writes<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panels: &[WritesSide],
    scale: f64,
) -> Result<(), String> {
    let px = |v: f64| (v * scale).round() as i32;
    let font = |v: f64| (FontFamily::SansSerif, v * scale);
    area.fill(&WHITE).map_err(|e| e.to_string())?;
    let top = panels.iter().flat_map(|p| p.counts.iter().copied()).max();
    let y = YAxis::for_values(top.map(f64::from).into_iter());
    let parts = area.split_evenly((panels.len().max(1), 1));
    for (i, (panel, part)) in panels.iter().zip(parts.iter()).enumerate() {
        let bin_s = panel.bin_ms / 1000.0;
        let t1 = (panel.counts.len() as f64 * bin_s).max(bin_s).max(1e-3);
        let part = crate::charts::plot::caption(part, &panel.title, 14.0 * scale)?;
        let mut chart = ChartBuilder::on(&part)
            .margin(px(10.0))
            .x_label_area_size(px(36.0))
            .y_label_area_size(px(64.0))
            .build_cartesian_2d(0.0f64..t1, 0.0f64..y.hi)
            .map_err(|e| e.to_string())?;
        let plot_w = f64::from(chart.plotting_area().dim_in_pixel().0);
        let fit = XFit::of(&chart, &part, 12.0 * scale);
        chart
            .configure_mesh()
            .y_labels(6)
            .x_labels(x_ticks(plot_w, 12.0 * scale, 10))
            .x_label_formatter(&|v| fit.label(*v, crate::charts::timeline::round_sig(*v)))
            .y_label_formatter(&|v| y.label(*v))
            .label_style(font(12.0))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(|e| e.to_string())?;
        let y_name = format!("write calls per {} ms", panel.bin_ms);
        let names = AxisNames {
            x: Some("time (s)"),
            y: Some(&y_name),
            size: 13.0 * scale,
            bands: (36.0 * scale, 64.0 * scale),
        };
        axis_names(&chart, &part, &names)?;
        let (x0, _) = chart.backend_coord(&(0.0, 0.0));
        let (x1, _) = chart.backend_coord(&(t1, 0.0));
        let per_bin = f64::from(x1 - x0) / panel.counts.len().max(1) as f64;
        let style = ShapeStyle::from(&PALETTE[i % PALETTE.len()])
            .stroke_width(per_bin.floor().max(1.0) as u32);
        chart
            .draw_series(
                panel
                    .counts
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| **c > 0)
                    .map(|(k, c)| {
                        let t = (k as f64 + 0.5) * bin_s;
                        PathElement::new(vec![(t, 0.0), (t, f64::from(*c))], style)
                    }),
            )
            .map_err(|e| e.to_string())?;
    }
    area.present().map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use retry_model::sim::simulate;

    fn sides(q: &str) -> (Params, Vec<SimReport>) {
        let p: Params = q.parse().unwrap();
        let sides: Vec<Params> = core::iter::once(p.side_a())
            .chain(p.side_b().cloned())
            .collect();
        let reports = sides.iter().map(|s| simulate(s).unwrap()).collect();
        (p, reports)
    }

    /// The share of bins, up to the last write call, with no write call in them.
    fn idle(p: &WritesSide) -> f64 {
        p.counts.iter().filter(|c| **c == 0).count() as f64 / p.counts.len() as f64
    }

    #[test]
    fn each_side_gets_its_own_panel_with_the_runs_write_calls() {
        let (p, reports) = sides("preset=occ-2015&runs=1&backoff=exponential&b.backoff=full");
        let panels = panels(&p, &reports).expect("a 2015-study link has panels");
        assert_eq!(panels.len(), 2);
        for (panel, r) in panels.iter().zip(&reports) {
            let calls: u64 = panel.counts.iter().map(|c| u64::from(*c)).sum();
            assert_eq!(
                calls, r.series.summary.attempts,
                "every write call is in a bar"
            );
            assert_ne!(
                panel.counts.last(),
                Some(&0),
                "the panel ends at the last write call"
            );
            assert!(panel
                .title
                .contains(&format!("{} write calls", r.series.summary.attempts)));
        }
        assert!(panels[0]
            .title
            .starts_with("A: backoff=exponential, first run: "));
        assert!(panels[1].title.starts_with("B: backoff=full, first run: "));
        assert!(
            panels[0].counts.len() > 5 * panels[1].counts.len(),
            "exponential backoff takes far longer: its panel spans its own run"
        );
        // What the chart is for: without jitter the write calls come in clusters with long
        // silences between them (over 90% of the 10 ms bins empty); full jitter spreads them
        // out (29% of its bins have write calls, against 3%).
        assert!(idle(&panels[0]) > 0.9, "exponential: {}", idle(&panels[0]));
        assert!(idle(&panels[1]) < 0.8, "full jitter: {}", idle(&panels[1]));
    }

    #[test]
    fn other_links_sweeps_and_one_side_have_none() {
        let (p, reports) = sides("preset=occ-2015&runs=1&clients=20&b.backoff=none");
        for q in [
            "preset=payments-none&duration=5s",
            "preset=occ-2015&sweep.clients=10..30/10",
        ] {
            let other: Params = q.parse().unwrap();
            assert_eq!(panels(&other, &reports), None, "{q}");
        }
        assert_eq!(panels(&p, &reports).map(|v| v.len()), Some(2));
        let (p, reports) = sides("preset=occ-2015&runs=1&clients=20");
        assert_eq!(panels(&p, &reports), None, "one side: the timeline alone");
    }
}
