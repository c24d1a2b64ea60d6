//! The Analytic panel's content: a queue-server link's analytic twin (the chain of
//! `retrylab analyze`, solved in the worker after the run) and its chart, the chain's
//! probability mass over (attempts at the server, requests waiting to retry) with the run's
//! path over it, second by second.
//!
//! The numbers are the core's: [`retry_model::analyze`] solves the chain, its rows are
//! [`retry_model::analysis_rows`] (the CLI's words), the path is the run's own series
//! (`at_server`, `retrying`). This file only decides whether the panel applies and draws.

use crate::charts::key::{self, LegendEntry, Swatch, DOTTED, SOLID};
use plotters::coord::Shift;
use plotters::prelude::*;
use retry_model::sim::{Rates, Scenario, ServerKind};
use retry_model::Params;
use serde::{Deserialize, Serialize};

/// The most states the page solves: about 1.6 s in the worker at this size, where the
/// 2,000-state chains of the lessons take tens of milliseconds. `retrylab analyze` solves up
/// to 200,000.
pub const PAGE_STATES: usize = 20_000;

/// A solved chain, as the panel shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Solved {
    /// The rows `retrylab analyze` prints, in its words.
    pub rows: Vec<(String, String)>,
    /// The stationary probability of each state, `n * orbit + m` for `n` attempts at the
    /// server and `m` requests waiting to retry.
    pub mass: Vec<f64>,
    /// Levels of attempts at the server (0 to workers + queue_limit).
    pub levels: u32,
    /// Levels of the orbit (0 to its cap).
    pub orbit: u32,
    /// From this many attempts at the server, a newcomer's expected time there passes the
    /// timeout: the high-queue mode.
    pub congested_at: u32,
    /// The chain's mixing time in seconds (`retrylab analyze`'s `mixing_s`), if it has one.
    pub mixing_s: Option<f64>,
}

/// What the Analytic panel shows for a link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Twin {
    /// The chain, solved.
    Solved(Box<Solved>),
    /// Why the link is outside the chain's assumptions (the key, then the reason).
    Refused(String),
}

/// The twin of an `outage` link's queue server; `None` where there is no queue server (the
/// panel stays hidden). A link the chain does not model, or one too large for the page, is
/// `Refused` with its reason.
pub fn twin_of(p: &Params) -> Option<Twin> {
    let Some(Scenario::Outage(o)) = &p.sim.scenario else {
        return None;
    };
    if o.server.kind != ServerKind::Queue {
        return None;
    }
    let a = match retry_model::analyze_within(p, PAGE_STATES) {
        Ok(a) => a,
        Err(e) => return Some(Twin::Refused(e.to_string())),
    };
    let rows = retry_model::analysis_rows(&a)
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    Some(Twin::Solved(Box::new(Solved {
        rows,
        levels: a.spec.workers + a.spec.queue_limit + 1,
        orbit: a.spec.orbit_max + 1,
        congested_at: a.spec.congested_at,
        mixing_s: a.result.mixing_s,
        mass: a.result.mass,
    })))
}

/// One second of the run: attempts at the server, requests on a retry, and whether the
/// trigger was on.
pub type Point = (u32, u32, bool);

/// The run's path through the chain's states, bin by bin.
pub fn path(rates: &[Rates], trigger: Option<(f64, f64)>) -> Vec<Point> {
    rates
        .iter()
        .map(|r| {
            let on = trigger.is_some_and(|(a, b)| r.t_s >= a && r.t_s < b);
            (r.at_server, r.retrying, on)
        })
        .collect()
}

/// The smallest probability shaded; less is drawn white.
const FLOOR: f64 = 1e-8;
const PATH: RGBColor = RGBColor(20, 20, 20);
const TRIGGER: RGBColor = RGBColor(200, 40, 40);

/// The shade of the rarest state drawn and of the likeliest: pale to dark, so the states the
/// chain lives in stand out and the rare ones recede (one hue, ColorBrewer's "Blues").
const RARE: RGBColor = RGBColor(239, 243, 255);
const LIKELY: RGBColor = RGBColor(8, 69, 148);

/// A state's shade: log10 of its mass between [`FLOOR`] and the most likely state's.
fn shade_of(mass: f64, top: f64) -> Option<RGBColor> {
    if mass < FLOOR {
        return None;
    }
    let (lo, hi) = (libm::log10(FLOOR), libm::log10(top.max(FLOOR * 10.0)));
    let t = ((libm::log10(mass) - lo) / (hi - lo)).clamp(0.0, 1.0);
    let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * t).round() as u8;
    Some(RGBColor(
        mix(RARE.0, LIKELY.0),
        mix(RARE.1, LIKELY.1),
        mix(RARE.2, LIKELY.2),
    ))
}

/// The shade's scale as the legend gives it: a block per hundredfold step of the time share from
/// [`FLOOR`], then the likeliest state's share.
fn scale_keys(top: f64) -> Vec<LegendEntry> {
    let mut keys = Vec::new();
    let mut share = FLOOR;
    while share * 10.0 < top {
        if let Some(c) = shade_of(share, top) {
            let label = if keys.is_empty() {
                format!("time share {share:.0e}")
            } else {
                format!("{share:.0e}")
            };
            keys.push(LegendEntry::new(Swatch::Block(c.to_rgba()), label));
        }
        share *= 100.0;
    }
    keys.push(LegendEntry::new(
        Swatch::Block(LIKELY.to_rgba()),
        format!(
            "{} (the likeliest state; white: under {FLOOR:.0e})",
            retry_model::sig3(top)
        ),
    ));
    keys
}

fn legend(s: &Solved, top: f64, scale: f64) -> Vec<LegendEntry> {
    let line = |c: RGBColor, w: f64| ShapeStyle::from(&c).stroke_width((w * scale).round() as u32);
    let mut keys = scale_keys(top);
    keys.extend([
        LegendEntry::new(
            Swatch::Line(line(PATH, 1.5), SOLID),
            "the run, second by second",
        ),
        LegendEntry::new(
            Swatch::Line(line(TRIGGER, 2.5), SOLID),
            "during the trigger",
        ),
        LegendEntry::new(
            Swatch::Line(line(TRIGGER, 1.5), DOTTED),
            format!("congested from {} at the server", s.congested_at),
        ),
    ]);
    keys
}

/// Where the chart's cells landed, in canvas pixels: the state under the pointer.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TwinMap {
    // The plot's left and bottom edge, and a cell's width and height.
    left: f64,
    bottom: f64,
    cw: f64,
    ch: f64,
    levels: u32,
    orbit: u32,
}

impl TwinMap {
    /// The state (attempts at the server, requests waiting to retry) under pixel (`x`, `y`).
    pub fn state_at(&self, x: f64, y: f64) -> Option<(u32, u32)> {
        let (n, m) = ((x - self.left) / self.cw, (self.bottom - y) / self.ch);
        let inside =
            n >= 0.0 && m >= 0.0 && n < f64::from(self.levels) && m < f64::from(self.orbit);
        inside.then_some((n as u32, m as u32))
    }

    /// The plot's edges in canvas pixels: left, top, right, bottom.
    pub fn edges(&self) -> [f64; 4] {
        let (w, h) = (
            self.cw * f64::from(self.levels),
            self.ch * f64::from(self.orbit),
        );
        [self.left, self.bottom - h, self.left + w, self.bottom]
    }
}

/// The readout for state `(n, m)`: its probability in the chain, and the seconds the run was
/// there (`bin_s` seconds a point).
pub fn readout(s: &Solved, path: &[Point], bin_s: f64, (n, m): (u32, u32)) -> String {
    let p = s
        .mass
        .get((n * s.orbit + m) as usize)
        .copied()
        .unwrap_or(0.0);
    let mode = if n >= s.congested_at { "high" } else { "low" };
    let share = if p >= 1e-3 {
        format!("{:.1}%", p * 100.0)
    } else {
        format!("{p:.1e} of the time")
    };
    let mut out = format!(
        "{n} attempts at the server, {m} waiting to retry ({mode}-queue mode): the chain is here {share}"
    );
    let at: Vec<String> = path
        .iter()
        .enumerate()
        .filter(|(_, q)| q.0 == n && q.1 == m)
        .map(|(i, _)| format!("{:.0} s", i as f64 * bin_s))
        .collect();
    match at.len() {
        0 => out.push_str("; the run was never here at a bin's end."),
        1..=6 => out.push_str(&format!("; the run was here at {}.", at.join(", "))),
        k => out.push_str(&format!(
            "; the run was here at {} and {} more bins' ends.",
            at[..6].join(", "),
            k - 6
        )),
    }
    out
}

/// Draws the chain's mass and the run's path on `area` (device pixels; `scale` is the
/// devicePixelRatio), the cell `marked` (the one under the pointer) outlined; returns where its
/// cells landed.
pub fn draw_twin<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    s: &Solved,
    path: &[Point],
    scale: f64,
    marked: Option<(u32, u32)>,
) -> Result<TwinMap, String> {
    area.fill(&WHITE).map_err(|e| e.to_string())?;
    let top = s.mass.iter().copied().fold(0.0, f64::max);
    let plot = key::split_with_keys(area, &legend(s, top, scale), 60.0 * scale, 12.0, scale)?;
    let title = "The analytic twin: where the chain spends its time, and the run's path";
    let plot = crate::charts::plot::caption(&plot, title, 15.0 * scale)?;
    let px = |v: f64| (v * scale).round() as i32;
    let (nx, ny) = (f64::from(s.levels), f64::from(s.orbit));
    let mut chart = ChartBuilder::on(&plot)
        .margin(px(10.0))
        .x_label_area_size(px(40.0))
        .y_label_area_size(px(56.0))
        .build_cartesian_2d(0.0..nx, 0.0..ny)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .x_desc("attempts at the server (waiting and in service)")
        .y_desc("requests waiting to retry")
        .label_style((FontFamily::SansSerif, 11.0 * scale))
        .axis_desc_style((FontFamily::SansSerif, 12.0 * scale))
        .draw()
        .map_err(|e| e.to_string())?;
    let m1 = s.orbit as usize;
    let cells = s.mass.iter().enumerate().filter_map(|(i, p)| {
        let (x, y) = ((i / m1) as f64, (i % m1) as f64);
        let c = shade_of(*p, top)?;
        Some(Rectangle::new([(x, y), (x + 1.0, y + 1.0)], c.filled()))
    });
    chart.draw_series(cells).map_err(|e| e.to_string())?;
    let congested = f64::from(s.congested_at);
    let dotted = ShapeStyle::from(&TRIGGER).stroke_width(px(1.5).max(1) as u32);
    chart
        .draw_series(DashedLineSeries::new(
            [(congested, 0.0), (congested, ny)],
            px(3.0),
            px(4.0),
            dotted,
        ))
        .map_err(|e| e.to_string())?;
    draw_path(&mut chart, path, (nx, ny), scale)?;
    if let Some((n, m)) = marked {
        let (x, y) = (f64::from(n), f64::from(m));
        let edge = ShapeStyle::from(&BLACK).stroke_width(px(2.0).max(1) as u32);
        chart
            .draw_series(core::iter::once(Rectangle::new(
                [(x, y), (x + 1.0, y + 1.0)],
                edge,
            )))
            .map_err(|e| e.to_string())?;
    }
    let (x0, y0) = chart.backend_coord(&(0.0, 0.0));
    let (x1, y1) = chart.backend_coord(&(nx, ny));
    area.present().map_err(|e| e.to_string())?;
    Ok(TwinMap {
        left: f64::from(x0),
        bottom: f64::from(y0),
        cw: f64::from(x1 - x0) / nx,
        ch: f64::from(y0 - y1) / ny,
        levels: s.levels,
        orbit: s.orbit,
    })
}

type TwinChart<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// The run's path: a point per second at the middle of its state's cell, joined; the seconds
/// of the trigger in red. States past the chart's edges are drawn at its edge.
fn draw_path<DB: DrawingBackend>(
    chart: &mut TwinChart<'_, DB>,
    path: &[Point],
    (nx, ny): (f64, f64),
    scale: f64,
) -> Result<(), String> {
    let at = |p: &Point| {
        (
            (f64::from(p.0) + 0.5).min(nx - 0.5),
            (f64::from(p.1) + 0.5).min(ny - 0.5),
        )
    };
    let px = |v: f64| (v * scale).round().max(1.0) as u32;
    for w in path.windows(2) {
        let (c, width) = if w[1].2 { (TRIGGER, 2.5) } else { (PATH, 1.5) };
        let style = ShapeStyle::from(&c).stroke_width(px(width));
        chart
            .draw_series(core::iter::once(PathElement::new(
                vec![at(&w[0]), at(&w[1])],
                style,
            )))
            .map_err(|e| e.to_string())?;
    }
    let dots = path.iter().map(|p| {
        let c = if p.2 { TRIGGER } else { PATH };
        Circle::new(at(p), px(2.0), c.filled())
    });
    chart.draw_series(dots).map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINK: &str = "scenario=outage&outage=0ms&server=queue&service_dist=exp&arrivals=poisson&backoff=none&idempotent=true&deadline=none&workers=1&service=10ms&rate=45&queue_limit=40&attempts=3&attempt_timeout=100ms&spike_start=10s&spike_for=3s&spike_rate=60&duration=60s";

    #[test]
    fn rare_states_are_pale_and_the_legend_gives_the_scale() {
        let light = |c: RGBColor| u32::from(c.0) + u32::from(c.1) + u32::from(c.2);
        let top = 0.541;
        let shades: Vec<u32> = [1e-8, 1e-6, 1e-4, 1e-2, top]
            .iter()
            .map(|m| light(shade_of(*m, top).unwrap()))
            .collect();
        assert!(shades.windows(2).all(|w| w[0] > w[1]), "{shades:?}");
        assert_eq!(shade_of(1e-9, top), None, "under the floor: white");
        let keys = scale_keys(top);
        let labels: Vec<&str> = keys.iter().map(|k| k.label.as_str()).collect();
        assert_eq!(labels[..4], ["time share 1e-8", "1e-6", "1e-4", "1e-2"]);
        assert!(
            labels[4].starts_with("0.541 (the likeliest state"),
            "{labels:?}"
        );
    }

    #[test]
    fn a_queue_link_gets_the_clis_rows_and_its_mass() {
        let p: Params = LINK.parse().unwrap();
        let Some(Twin::Solved(s)) = twin_of(&p) else {
            panic!("not solved")
        };
        let a = retry_model::analyze(&p).unwrap();
        let rows = retry_model::analysis_rows(&a);
        assert_eq!(s.rows.len(), rows.len());
        assert!(s
            .rows
            .iter()
            .zip(&rows)
            .all(|(x, y)| x.0 == y.0 && x.1 == y.1));
        assert_eq!(s.mass.len(), (s.levels * s.orbit) as usize);
        assert!((s.mass.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert_eq!(s.levels, 42);
    }

    #[test]
    fn it_applies_to_queue_servers_and_names_what_it_does_not_model() {
        assert_eq!(twin_of(&"preset=payments-none".parse().unwrap()), None);
        assert_eq!(twin_of(&"preset=chapter".parse().unwrap()), None);
        let with = |kv: &[(&str, &str)]| {
            let mut p: Params = LINK.parse().unwrap();
            for (k, v) in kv {
                p.set(k, v).unwrap();
            }
            p
        };
        let fixed = with(&[("service_dist", "const")]);
        match twin_of(&fixed) {
            Some(Twin::Refused(e)) => assert!(e.starts_with("service_dist: analyze: "), "{e}"),
            other => panic!("{other:?}"),
        }
        let big = with(&[("workers", "40"), ("queue_limit", "400"), ("rate", "4000")]);
        match twin_of(&big) {
            Some(Twin::Refused(e)) => assert!(e.contains("70560 states"), "{e}"),
            other => panic!("{other:?}"),
        }
        // Small enough to solve natively, too many states for the page.
        let page = with(&[("queue_limit", "700")]);
        match twin_of(&page) {
            Some(Twin::Refused(e)) => {
                assert!(e.contains("more than the 20000 states solved here"), "{e}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_runs_path_climbs_into_the_high_mode_during_the_spike_and_is_drawn() {
        let p: Params = LINK.parse().unwrap();
        let Some(Twin::Solved(s)) = twin_of(&p) else {
            panic!("not solved")
        };
        let rep = retry_model::sim::simulate(&p).unwrap();
        let pts = path(&rep.series.rates(), Some((10.0, 13.0)));
        // Calm before the spike, congested (past the chain's high-mode line) right after it,
        // with requests on their retries.
        assert!(pts[..9].iter().all(|p| p.0 < s.congested_at && !p.2));
        assert!(pts[10..13].iter().all(|p| p.2));
        assert!(
            pts[13].0 >= s.congested_at && pts[13].1 > 0,
            "{:?}",
            &pts[8..16]
        );
        let rec = crate::charts::plot::CanvasRecorder::new(700, 460);
        let map = draw_twin(&rec.clone().into_drawing_area(), &s, &pts, 1.0, None).unwrap();
        // The pointer on the bottom-left cell is the empty server; the readout says how much
        // of the time the chain is there and when the run was.
        let (x, y) = (map.left + 1.0, map.bottom - 1.0);
        assert_eq!(map.state_at(x, y), Some((0, 0)));
        assert_eq!(map.state_at(map.left - 2.0, y), None);
        let top = (
            map.left + map.cw * (f64::from(s.levels) - 0.5),
            map.bottom - map.ch * (f64::from(s.orbit) - 0.5),
        );
        assert_eq!(
            map.state_at(top.0, top.1),
            Some((s.levels - 1, s.orbit - 1))
        );
        let said = readout(&s, &pts, 1.0, (0, 0));
        assert!(said.starts_with("0 attempts at the server, 0 waiting to retry (low-queue mode): the chain is here 54.1%; the run was here at "), "{said}");
        assert!(said.ends_with(" more bins' ends."), "{said}");
        let never = readout(&s, &pts, 1.0, (s.levels - 1, s.orbit - 1));
        assert!(
            never.contains("(high-queue mode)") && never.ends_with("never here at a bin's end."),
            "{never}"
        );
        let d = rec.drawn();
        assert!(d.outside.is_empty(), "{:?}", d.outside);
        for t in [
            "requests waiting to retry",
            "the run, second by second",
            "during the trigger",
            "congested from 11 at the server",
        ] {
            assert!(rec.has_text(t), "{t} missing from {:?}", d.texts);
        }
        // The cell under the pointer is outlined: one rectangle more, the cells where they were.
        let marked = crate::charts::plot::CanvasRecorder::new(700, 460);
        let again = draw_twin(
            &marked.clone().into_drawing_area(),
            &s,
            &pts,
            1.0,
            Some((3, 2)),
        )
        .unwrap();
        assert_eq!(again, map);
        assert_eq!(marked.drawn().rects, d.rects + 1);
        assert!(marked.drawn().outside.is_empty());
    }
}
