//! What the charts need beyond plotters, as small helpers over it: a caption and axis names
//! that fit a narrow canvas (broken onto two lines, then shrunk), the number of ticks a plot's
//! width has room for, the page's canvas backend (plotters-canvas's, with text measured by the
//! canvas itself) and [`CanvasRecorder`], a plotters backend for native tests that keeps every text
//! and counts every shape, so a test checks a chart's labels and that nothing lands off the
//! canvas.
//!
//! Every chart is a function over a plotters [`DrawingArea`]; the caller picks the backend.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind, FontTransform,
};
use std::cell::RefCell;
use std::rc::Rc;

/// Below this CSS width a canvas counts as narrow (a phone, a split screen): taller, and the
/// sweep chart puts its legend under the plot.
pub const NARROW_CSS_PX: f64 = 560.0;

/// A chart of `f64` across by `f64` up, as every chart here draws.
pub type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// A drawing error as the text the page logs.
pub fn err<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> String {
    e.to_string()
}

/// The sans-serif font at `size` pixels.
pub fn sans(size: f64) -> TextStyle<'static> {
    (FontFamily::SansSerif, size).into_font().into()
}

/// `text`'s width in `style` on `area`'s backend (a rough estimate if it cannot measure).
pub fn text_width<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    style: &TextStyle,
) -> f64 {
    area.estimate_text_size(text, style).map_or(
        text.chars().count() as f64 * style.font.get_size() * 0.55,
        |(w, _)| f64::from(w),
    )
}

/// A text set to fit `width` pixels at `size`: one line if it fits; else broken at a space into
/// two lines, as even as the words allow; and the font made smaller (to 70% at least) while a
/// line is still too wide. A narrow canvas keeps its captions and axis names whole.
pub fn fit<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    size: f64,
    width: f64,
) -> (Vec<String>, f64) {
    let w = |t: &str, s: f64| text_width(area, t, &sans(s));
    let mut lines = vec![text.to_string()];
    if width <= 0.0 || w(text, size) <= width {
        return (lines, size);
    }
    // The break that makes the wider of the two lines narrowest.
    let wider = |i: usize| w(&text[..i], size).max(w(&text[i + 1..], size));
    let cut = text
        .match_indices(' ')
        .map(|(i, _)| i)
        .min_by(|a, b| wider(*a).total_cmp(&wider(*b)));
    if let Some(cut) = cut {
        lines = vec![text[..cut].to_string(), text[cut + 1..].to_string()];
    }
    let widest = lines.iter().map(|l| w(l, size)).fold(0.0f64, f64::max);
    let size = if widest > width {
        size * (width / widest).max(0.7)
    } else {
        size
    };
    (lines, size)
}

/// `text` broken at spaces into lines of at most `width` pixels at `size` (a word wider than
/// that on a line of its own).
fn wrap<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    size: f64,
    width: f64,
) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let longer = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if !line.is_empty() && text_width(area, &longer, &sans(size)) > width {
            lines.push(core::mem::replace(&mut line, word.to_string()));
        } else {
            line = longer;
        }
    }
    lines.push(line);
    lines
}

/// Draws `text` centred along `area`'s top (fitted, see [`fit`]) and returns the area under it.
pub fn caption<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    size: f64,
) -> Result<DrawingArea<DB, Shift>, String> {
    let (w, h) = area.dim_in_pixel();
    let width = f64::from(w) - 2.0 * size;
    let (mut lines, mut fitted) = fit(area, text, size, width);
    if fitted < size {
        // Too long for two lines (a long caption on a phone): as many lines as it takes, at
        // the full size.
        (lines, fitted) = (wrap(area, text, size, width), size);
    }
    let size = fitted;
    let style = sans(size).pos(Pos::new(HPos::Center, VPos::Top));
    let mut y = size * 0.4;
    for line in &lines {
        let at = (i32::try_from(w / 2).unwrap_or(0), y.round() as i32);
        area.draw(&Text::new(line.clone(), at, style.clone()))
            .map_err(err)?;
        y += size * 1.2;
    }
    let band = (y + size * 0.2).round() as u32;
    Ok(area.split_vertically(band.min(h)).1)
}

/// A chart's axis names, drawn by [`axis_names`] where plotters' mesh would put them, fitted.
#[derive(Clone, Copy, Debug)]
pub struct AxisNames<'t> {
    /// Under the x axis's labels, at the bottom of the label band.
    pub x: Option<&'t str>,
    /// Upright left of the y axis's labels.
    pub y: Option<&'t str>,
    /// The font size in device pixels.
    pub size: f64,
    /// The chart's x and y label band sizes (`x_label_area_size`, `y_label_area_size`).
    pub bands: (f64, f64),
}

/// Draws `names` beside `chart`'s plot; `area` is the one the chart was built on.
pub fn axis_names<DB: DrawingBackend>(
    chart: &Chart<'_, DB>,
    area: &DrawingArea<DB, Shift>,
    names: &AxisNames<'_>,
) -> Result<(), String> {
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    let (bx, by) = area.get_base_pixel();
    let (l, r) = (f64::from(xs.start - bx), f64::from(xs.end - bx));
    let (t, b) = (f64::from(ys.start - by), f64::from(ys.end - by));
    let step = names.size * 1.15;
    if let Some(x) = names.x {
        let (lines, size) = fit(area, x, names.size, r - l);
        let style = sans(size).pos(Pos::new(HPos::Center, VPos::Bottom));
        let bottom = b + names.bands.0.max(size * 2.0 + 4.0);
        let n = lines.len() as f64;
        for (i, line) in lines.iter().enumerate() {
            let y = bottom - 2.0 - (n - 1.0 - i as f64) * step;
            let at = (((l + r) / 2.0).round() as i32, y.round() as i32);
            area.draw(&Text::new(line.clone(), at, style.clone()))
                .map_err(err)?;
        }
    }
    if let Some(y) = names.y {
        let (lines, size) = fit(area, y, names.size, b - t);
        let style = sans(size)
            .pos(Pos::new(HPos::Center, VPos::Top))
            .transform(FontTransform::Rotate270);
        let left = l - names.bands.1.max(size * 2.0);
        for (i, line) in lines.iter().enumerate() {
            let at = (
                (left + 2.0 + i as f64 * step).round() as i32,
                ((t + b) / 2.0).round() as i32,
            );
            area.draw(&Text::new(line.clone(), at, style.clone()))
                .map_err(err)?;
        }
    }
    Ok(())
}

/// How many ticks across a plot `width` pixels wide has room for at labels of `label_px`
/// (at most `want`): a narrow canvas gets fewer, so its labels never run into each other.
pub fn x_ticks(width: f64, label_px: f64, want: usize) -> usize {
    let room = (width / (label_px * 3.5)).max(2.0) as usize;
    want.min(room)
}

/// Whether an x tick's label, centred on its tick, stays inside the area the chart was built
/// on; a label that would run past its edge is left off (its tick stays).
#[derive(Clone, Copy, Debug)]
pub struct XFit {
    /// The plot's left and right pixel columns and the x range they show.
    px: (f64, f64),
    range: (f64, f64),
    /// The area's left and right edges.
    edges: (f64, f64),
    /// A character's width at the labels' size.
    char_px: f64,
}

impl XFit {
    /// The fit for `chart`, built on `area`, with labels of `label_px`.
    pub fn of<DB: DrawingBackend>(
        chart: &Chart<'_, DB>,
        area: &DrawingArea<DB, Shift>,
        label_px: f64,
    ) -> XFit {
        let (xs, _) = chart.plotting_area().get_pixel_range();
        let r = chart.x_range();
        let (bx, _) = area.get_base_pixel();
        let w = f64::from(area.dim_in_pixel().0);
        XFit {
            px: (f64::from(xs.start), f64::from(xs.end)),
            range: (r.start, r.end),
            edges: (f64::from(bx), f64::from(bx) + w),
            char_px: label_px * 0.55,
        }
    }

    /// `text` if its label at `v` fits, else nothing.
    pub fn label(&self, v: f64, text: String) -> String {
        let span = self.range.1 - self.range.0;
        if span <= 0.0 {
            return text;
        }
        let x = self.px.0 + (v - self.range.0) / span * (self.px.1 - self.px.0);
        let half = text.chars().count() as f64 * self.char_px / 2.0;
        if x - half < self.edges.0 || x + half > self.edges.1 - 1.0 {
            String::new()
        } else {
            text
        }
    }
}

/// What a [`CanvasRecorder`] saw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Drawn {
    /// Every text, its anchor point and whether it was turned upright.
    pub texts: Vec<(String, BackendCoord, bool)>,
    /// Rectangles drawn (filled or outlined).
    pub rects: usize,
    /// Lines drawn (each a path of points; a dashed line's every dash counts).
    pub paths: usize,
    /// Dashed lines: runs of short strokes, each starting a little past where the last ended.
    pub dashed: usize,
    /// Filled polygons.
    pub polygons: usize,
    /// Circles.
    pub circles: usize,
    /// Points drawn outside the surface (a layout error), with a pixel of slack; for a text,
    /// its two ends as the recorder measures it.
    pub outside: Vec<BackendCoord>,
    /// The last stroke's two ends and whether it was a dash of a run (for `dashed`).
    last: Option<(BackendCoord, BackendCoord, bool)>,
}

/// A plotters backend that draws nothing and records everything, for native tests. Clones
/// share one record: keep one, draw on the other.
#[derive(Clone, Debug)]
pub struct CanvasRecorder {
    size: (u32, u32),
    drawn: Rc<RefCell<Drawn>>,
}

impl CanvasRecorder {
    /// A surface of `w` by `h` pixels.
    pub fn new(w: u32, h: u32) -> CanvasRecorder {
        CanvasRecorder {
            size: (w, h),
            drawn: Rc::default(),
        }
    }

    /// What was drawn so far.
    pub fn drawn(&self) -> Drawn {
        self.drawn.borrow().clone()
    }

    /// Whether some text equals `s`, whole or broken into two lines by [`fit`].
    pub fn has_text(&self, s: &str) -> bool {
        let d = self.drawn.borrow();
        d.texts.iter().any(|(t, ..)| t == s)
            || d.texts.windows(2).any(|w| {
                s.strip_prefix(&*w[0].0).and_then(|r| r.strip_prefix(' ')) == Some(&w[1].0)
            })
    }

    fn check(&self, points: &[BackendCoord]) {
        let (w, h) = (self.size.0 as i32, self.size.1 as i32);
        let mut d = self.drawn.borrow_mut();
        for &(x, y) in points {
            if !(-1..=w + 1).contains(&x) || !(-1..=h + 1).contains(&y) {
                d.outside.push((x, y));
            }
        }
    }

    /// Counts a stroke from `a` to `b`; a short one that starts close past the last stroke's
    /// end continues a dashed run (tick marks are spaced far wider than a dash's gap).
    fn stroke(&self, a: BackendCoord, b: BackendCoord) {
        let mut d = self.drawn.borrow_mut();
        d.paths += 1;
        let len =
            |p: BackendCoord, q: BackendCoord| f64::from(p.0 - q.0).hypot(f64::from(p.1 - q.1));
        let short = len(a, b) <= 20.0;
        let dash = match d.last {
            Some((la, lb, _)) => short && len(la, lb) <= 20.0 && (1.0..=13.0).contains(&len(lb, a)),
            None => false,
        };
        if dash && !d.last.is_some_and(|l| l.2) {
            d.dashed += 1;
        }
        d.last = Some((a, b, dash));
    }
}

/// The recorder never fails.
#[derive(Debug)]
pub struct Never;

impl std::fmt::Display for Never {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("never")
    }
}

impl std::error::Error for Never {}

type Drew = Result<(), DrawingErrorKind<Never>>;

impl plotters_backend::DrawingBackend for CanvasRecorder {
    type ErrorType = Never;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }
    fn ensure_prepared(&mut self) -> Drew {
        Ok(())
    }
    fn present(&mut self) -> Drew {
        Ok(())
    }
    fn draw_pixel(&mut self, p: BackendCoord, _: BackendColor) -> Drew {
        self.check(&[p]);
        Ok(())
    }
    fn draw_line<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, _: &S) -> Drew {
        self.stroke(a, b);
        self.check(&[a, b]);
        Ok(())
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        _: &S,
        _: bool,
    ) -> Drew {
        self.drawn.borrow_mut().rects += 1;
        self.check(&[a, b]);
        Ok(())
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        _: &S,
    ) -> Drew {
        let points: Vec<BackendCoord> = path.into_iter().collect();
        if let (Some(a), Some(b)) = (points.first(), points.last()) {
            self.stroke(*a, *b);
        }
        self.check(&points);
        Ok(())
    }
    fn draw_circle<S: BackendStyle>(&mut self, c: BackendCoord, _: u32, _: &S, _: bool) -> Drew {
        self.drawn.borrow_mut().circles += 1;
        self.check(&[c]);
        Ok(())
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        v: I,
        _: &S,
    ) -> Drew {
        self.drawn.borrow_mut().polygons += 1;
        self.check(&v.into_iter().collect::<Vec<_>>());
        Ok(())
    }
    fn draw_text<T: BackendTextStyle>(&mut self, text: &str, style: &T, at: BackendCoord) -> Drew {
        let upright = !matches!(style.transform(), FontTransform::None);
        self.drawn
            .borrow_mut()
            .texts
            .push((text.to_string(), at, upright));
        // The text's two ends along its line, from its anchor.
        let len = (text.chars().count() as f64 * style.size() * 0.55).round() as i32;
        let before = match style.anchor().h_pos {
            HPos::Left => 0,
            HPos::Center => len / 2,
            HPos::Right => len,
        };
        let ends = if upright {
            // Turned a quarter left: it runs upwards from its anchor.
            [(at.0, at.1 + before), (at.0, at.1 + before - len)]
        } else {
            [(at.0 - before, at.1), (at.0 - before + len, at.1)]
        };
        self.check(&ends);
        Ok(())
    }
    fn estimate_text_size<T: BackendTextStyle>(
        &self,
        text: &str,
        style: &T,
    ) -> Result<(u32, u32), DrawingErrorKind<Never>> {
        let w = text.chars().count() as f64 * style.size() * 0.55;
        Ok((w.round() as u32, style.size().round() as u32))
    }
}

/// The page's canvas backend: plotters-canvas's, measuring text with the canvas's own
/// `measureText` (plotters' browser font measures every label through a DOM element, which
/// forces a layout per label).
#[cfg(target_arch = "wasm32")]
pub struct Canvas {
    inner: plotters_canvas::CanvasBackend,
    ctx: web_sys::CanvasRenderingContext2d,
}

#[cfg(target_arch = "wasm32")]
impl Canvas {
    /// The backend of `canvas`'s 2D context, if it has one.
    pub fn with_canvas_object(canvas: web_sys::HtmlCanvasElement) -> Option<Canvas> {
        use wasm_bindgen::JsCast;
        let ctx = canvas
            .get_context("2d")
            .ok()??
            .dyn_into::<web_sys::CanvasRenderingContext2d>()
            .ok()?;
        let inner = plotters_canvas::CanvasBackend::with_canvas_object(canvas)?;
        Some(Canvas { inner, ctx })
    }
}

#[cfg(target_arch = "wasm32")]
type CanvasDrew = Result<
    (),
    DrawingErrorKind<
        <plotters_canvas::CanvasBackend as plotters_backend::DrawingBackend>::ErrorType,
    >,
>;

#[cfg(target_arch = "wasm32")]
impl plotters_backend::DrawingBackend for Canvas {
    type ErrorType =
        <plotters_canvas::CanvasBackend as plotters_backend::DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }
    fn ensure_prepared(&mut self) -> CanvasDrew {
        self.inner.ensure_prepared()
    }
    fn present(&mut self) -> CanvasDrew {
        self.inner.present()
    }
    fn draw_pixel(&mut self, p: BackendCoord, c: BackendColor) -> CanvasDrew {
        self.inner.draw_pixel(p, c)
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
    ) -> CanvasDrew {
        self.inner.draw_line(a, b, s)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
        fill: bool,
    ) -> CanvasDrew {
        self.inner.draw_rect(a, b, s, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        p: I,
        s: &S,
    ) -> CanvasDrew {
        self.inner.draw_path(p, s)
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        c: BackendCoord,
        r: u32,
        s: &S,
        fill: bool,
    ) -> CanvasDrew {
        self.inner.draw_circle(c, r, s, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        v: I,
        s: &S,
    ) -> CanvasDrew {
        self.inner.fill_polygon(v, s)
    }
    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &T,
        at: BackendCoord,
    ) -> CanvasDrew {
        self.inner.draw_text(text, style, at)
    }
    fn estimate_text_size<T: BackendTextStyle>(
        &self,
        text: &str,
        style: &T,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        let font = format!(
            "{} {}px {}",
            style.style().as_str(),
            style.size(),
            style.family().as_str()
        );
        self.ctx.set_font(&font);
        let w = self
            .ctx
            .measure_text(text)
            .map_or(text.chars().count() as f64 * style.size() * 0.55, |m| {
                m.width()
            });
        Ok((w.ceil() as u32, style.size().ceil() as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_break_into_two_lines_then_shrink() {
        let area = CanvasRecorder::new(100, 100).into_drawing_area();
        // The recorder measures 5.5 px a character at 10 px.
        let (lines, s) = fit(&area, "short", 10.0, 100.0);
        assert_eq!((lines, s), (vec!["short".to_string()], 10.0));
        let (lines, s) = fit(&area, "requests in flight and the budget", 10.0, 110.0);
        assert_eq!(lines, ["requests in flight", "and the budget"]);
        assert_eq!(s, 10.0, "18 characters fit in 110 px");
        let (lines, s) = fit(&area, "requests in flight and the budget", 10.0, 88.0);
        assert_eq!(lines.len(), 2);
        assert!((7.0..10.0).contains(&s), "shrunk to fit: {s}");
        let (lines, s) = fit(&area, "unbreakable_and_very_long", 10.0, 20.0);
        assert_eq!(lines, ["unbreakable_and_very_long"]);
        assert_eq!(s, 7.0, "never below 70%");
    }

    #[test]
    fn a_narrow_plot_gets_fewer_ticks_across() {
        assert_eq!(
            x_ticks(160.0, 12.0, 10),
            3,
            "160 px holds three 12 px labels"
        );
        assert_eq!(x_ticks(1600.0, 12.0, 10), 10);
        assert_eq!(x_ticks(10.0, 12.0, 10), 2, "never fewer than two");
    }

    #[test]
    fn captions_and_axis_names_land_inside_and_name_the_axes() {
        let rec = CanvasRecorder::new(400, 300);
        let root = rec.clone().into_drawing_area();
        let area = caption(&root, "Title", 14.0).unwrap();
        assert!(area.dim_in_pixel().1 < 300, "the caption takes a band");
        let mut chart = ChartBuilder::on(&area)
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0.0..4.0, 0.0..1.0)
            .unwrap();
        chart
            .configure_mesh()
            .x_labels(5)
            .y_labels(3)
            .draw()
            .unwrap();
        let names = AxisNames {
            x: Some("time (s)"),
            y: Some("per second"),
            size: 13.0,
            bands: (40.0, 50.0),
        };
        axis_names(&chart, &area, &names).unwrap();
        let d = rec.drawn();
        assert_eq!(d.texts[0].0, "Title");
        assert!(rec.has_text("time (s)") && rec.has_text("per second"));
        assert!(d.texts.last().unwrap().2, "the y name stands upright");
        assert!(d.outside.is_empty(), "{:?}", d.outside);
        assert_eq!(d.dashed, 0, "a mesh is not dashed");
    }

    #[test]
    fn a_dashed_line_counts_once() {
        let rec = CanvasRecorder::new(400, 300);
        let area = rec.clone().into_drawing_area();
        let mut chart = ChartBuilder::on(&area)
            .build_cartesian_2d(0.0..10.0, 0.0..10.0)
            .unwrap();
        chart
            .draw_series(LineSeries::new([(0.0, 1.0), (10.0, 1.0)], BLACK))
            .unwrap();
        chart
            .draw_series(DashedLineSeries::new(
                [(0.0, 5.0), (10.0, 6.0)],
                6,
                4,
                BLACK.into(),
            ))
            .unwrap();
        let d = rec.drawn();
        assert_eq!(d.dashed, 1, "{d:?}");
        assert!(d.paths > 10, "every dash is a stroke");
    }
}
