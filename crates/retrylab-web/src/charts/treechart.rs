//! The amplification tree: one click through the layers, one row per level, each call a dot
//! under the call that made it (green succeeded, vermillion failed, a faint ring where the
//! worst case would put a call not made), and the step's call ringed. A level with more than
//! [`MAX_DOTS`] slots is drawn as a bar of calls made against the worst case instead of
//! hundreds of unreadable dots.
//!
//! Drawing and layout only: the calls and counts are the core's (`retry_model::call_tree`).

use plotters::coord::Shift;
use plotters::prelude::*;
use retry_model::CallTree;

/// The most slots a level draws as dots.
pub const MAX_DOTS: u64 = 81;

/// How far the stepping has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeShown {
    /// The first `n` calls, in the order they were made.
    Calls(usize),
    /// Every call down to this level.
    Levels(usize),
}

impl TreeShown {
    /// Whether call `i` (at `level`) is shown.
    pub fn has(self, i: usize, level: usize) -> bool {
        match self {
            TreeShown::Calls(n) => i < n,
            TreeShown::Levels(l) => level <= l,
        }
    }
}

/// Each call's slot in its level: its parent's slot times the parent layer's attempts, plus
/// its attempt number less one, so a call sits where the worst case would put it.
pub fn slots(t: &CallTree) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::with_capacity(t.calls.len());
    for c in &t.calls {
        let s = match c.parent {
            None => 0,
            Some(p) => {
                let k = u64::from(t.layers[usize::from(c.level) - 1]);
                out[p as usize] * k + u64::from(c.attempt - 1)
            }
        };
        out.push(s);
    }
    out
}

/// The row labels, top first: each layer by its name (`layer_names`) or its number.
pub fn level_names(t: &CallTree, names: &[String]) -> Vec<String> {
    let n = t.layers.len();
    let layer = |l: usize| match names.get(l - 1) {
        Some(name) if names.len() == n => name.clone(),
        _ => format!("layer {l}"),
    };
    (0..=n)
        .map(|l| match l {
            0 => format!("the click, into {}", layer(1)),
            l if l == n => format!("{} -> bottom", layer(n)),
            l => format!("{} -> {}", layer(l), layer(l + 1)),
        })
        .collect()
}

const OK: RGBColor = RGBColor(0, 158, 115);
const FAIL: RGBColor = RGBColor(213, 94, 0);
const FAINT: RGBColor = RGBColor(205, 205, 212);

/// Draws the tree on `area` (device pixels; `scale` is the devicePixelRatio).
pub fn draw_tree<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    t: &CallTree,
    names: &[String],
    shown: TreeShown,
    scale: f64,
) -> Result<(), String> {
    let err = crate::charts::plot::err;
    area.fill(&WHITE).map_err(err)?;
    let (w, h) = area.dim_in_pixel();
    let (w, h) = (f64::from(w), f64::from(h));
    // Labels sit left of their row when they fit in 40% of the width, else above it.
    let widest = level_names(t, names)
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0);
    let label_w = (widest as f64 * 6.8 + 16.0) * scale;
    let above = label_w.max(150.0 * scale) > 0.4 * w;
    let left = if above {
        12.0 * scale
    } else {
        label_w.max(150.0 * scale)
    };
    let (right, top) = (90.0 * scale, if above { 24.0 } else { 16.0 } * scale);
    let lay = Layout {
        left,
        right,
        top,
        above,
        row: (h - top * 2.0) / t.worst.len().max(1) as f64,
        plot_w: (w - left - right).max(10.0),
        w,
        scale,
    };
    let made = match shown {
        TreeShown::Calls(n) => t.counts(n),
        TreeShown::Levels(l) => t.counts_to_level(l),
    };
    draw_levels(area, t, names, &made, &lay)?;
    draw_calls(area, t, shown, &lay)?;
    area.present().map_err(err)
}

/// Where the tree's rows and slots sit on the canvas.
struct Layout {
    left: f64,
    /// Whether the level names sit above their rows (too long to sit left of them).
    above: bool,
    right: f64,
    top: f64,
    row: f64,
    plot_w: f64,
    w: f64,
    scale: f64,
}

impl Layout {
    fn y_of(&self, l: usize) -> f64 {
        self.top + self.row * (l as f64 + 0.5)
    }
    fn x_of(&self, t: &CallTree, l: usize, slot: u64) -> f64 {
        self.left + self.plot_w * (slot as f64 + 0.5) / t.worst[l].max(1) as f64
    }
}

/// Each level's name, its tally of calls made, and its slots (faint rings where the worst case
/// puts every call, or a bar of calls made where there are too many to draw).
fn draw_levels<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    t: &CallTree,
    names: &[String],
    made: &[u64],
    lay: &Layout,
) -> Result<(), String> {
    let err = crate::charts::plot::err;
    let scale = lay.scale;
    let px = |v: f64| (v * scale).round() as i32;
    let (left, right, plot_w, w) = (lay.left, lay.right, lay.plot_w, lay.w);
    let y_of = |l: usize| lay.y_of(l);
    let x_of = |l: usize, slot: u64| lay.x_of(t, l, slot);
    let font = (FontFamily::SansSerif, 12.0 * scale).into_font();
    for (l, name) in level_names(t, names).iter().enumerate() {
        let at = if lay.above {
            (px(8.0), (y_of(l) - lay.row * 0.5) as i32 + px(2.0))
        } else {
            (px(8.0), y_of(l) as i32 - px(7.0))
        };
        area.draw(&Text::new(name.clone(), at, font.clone()))
            .map_err(err)?;
        let tally = format!("{} of {}", made[l], t.worst[l]);
        area.draw(&Text::new(
            tally,
            ((w - right + 10.0 * scale) as i32, y_of(l) as i32 - px(7.0)),
            font.clone(),
        ))
        .map_err(err)?;
        if t.worst[l] > MAX_DOTS || t.calls.is_empty() {
            // Too many to draw one by one: a bar of calls made against the worst case.
            let y = y_of(l);
            let frac = made[l] as f64 / t.worst[l].max(1) as f64;
            let frame = [
                (left as i32, (y - 6.0 * scale) as i32),
                ((left + plot_w) as i32, (y + 6.0 * scale) as i32),
            ];
            area.draw(&Rectangle::new(
                frame,
                ShapeStyle::from(&FAINT).stroke_width(px(1.0) as u32),
            ))
            .map_err(err)?;
            let fill = [frame[0], ((left + plot_w * frac) as i32, frame[1].1)];
            area.draw(&Rectangle::new(fill, FAIL.mix(0.8).filled()))
                .map_err(err)?;
        } else {
            // Where the worst case puts every call of this level: faint rings.
            let r = (plot_w / t.worst[l] as f64 / 2.6).clamp(2.0 * scale, 7.0 * scale) as i32;
            for s in 0..t.worst[l] {
                area.draw(&Circle::new(
                    (x_of(l, s) as i32, y_of(l) as i32),
                    r,
                    ShapeStyle::from(&FAINT).stroke_width(1),
                ))
                .map_err(err)?;
            }
        }
    }
    Ok(())
}

/// Every call shown: a dot in its slot, joined to its parent, the latest one ringed.
fn draw_calls<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    t: &CallTree,
    shown: TreeShown,
    lay: &Layout,
) -> Result<(), String> {
    let err = crate::charts::plot::err;
    let scale = lay.scale;
    let px = |v: f64| (v * scale).round() as i32;
    let plot_w = lay.plot_w;
    let y_of = |l: usize| lay.y_of(l);
    let x_of = |l: usize, slot: u64| lay.x_of(t, l, slot);
    let slot = slots(t);
    let last = match shown {
        TreeShown::Calls(n) => n.checked_sub(1),
        TreeShown::Levels(_) => None,
    };
    for (i, c) in t.calls.iter().enumerate() {
        let l = usize::from(c.level);
        if !shown.has(i, l) || t.worst[l] > MAX_DOTS {
            continue;
        }
        let at = (x_of(l, slot[i]) as i32, y_of(l) as i32);
        if let Some(p) = c.parent {
            let pl = l - 1;
            if t.worst[pl] <= MAX_DOTS {
                let from = (x_of(pl, slot[p as usize]) as i32, y_of(pl) as i32);
                area.draw(&PathElement::new(
                    vec![from, at],
                    ShapeStyle::from(&RGBColor(150, 150, 160)).stroke_width(px(1.0) as u32),
                ))
                .map_err(err)?;
            }
        }
        let r = (plot_w / t.worst[l] as f64 / 2.6).clamp(2.0 * scale, 7.0 * scale) as i32;
        let color = if c.ok { OK } else { FAIL };
        area.draw(&Circle::new(at, r, color.filled()))
            .map_err(err)?;
        if Some(i) == last {
            area.draw(&Circle::new(
                at,
                r + px(4.0),
                ShapeStyle::from(&BLACK).stroke_width(px(2.0) as u32),
            ))
            .map_err(err)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_call_sits_in_its_worst_case_slot() {
        let t = retry_model::call_tree(&[2, 3, 4], 1.0, 1).unwrap();
        let s = slots(&t);
        // The bottom level's slots are 0..24, each once.
        let mut bottom: Vec<u64> = t
            .calls
            .iter()
            .zip(&s)
            .filter(|(c, _)| c.level == 3)
            .map(|(_, s)| *s)
            .collect();
        bottom.sort_unstable();
        assert_eq!(bottom, (0..24).collect::<Vec<_>>());
        assert_eq!(level_names(&t, &[])[3], "layer 3 -> bottom");
        let named: Vec<String> = ["browser.json", "envoy.yaml", "service.yml"]
            .map(String::from)
            .to_vec();
        assert_eq!(level_names(&t, &named)[0], "the click, into browser.json");
        assert_eq!(level_names(&t, &named)[2], "envoy.yaml -> service.yml");
        assert!(TreeShown::Calls(2).has(1, 3) && !TreeShown::Calls(2).has(2, 0));
        assert!(TreeShown::Levels(1).has(99, 1) && !TreeShown::Levels(1).has(0, 2));
    }
}
