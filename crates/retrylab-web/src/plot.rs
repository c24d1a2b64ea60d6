//! The charts' drawing layer: drawing areas, a Cartesian chart with its mesh and axis labels,
//! and the elements the charts draw (lines, dashed lines, filled areas, rectangles, circles and
//! text), straight onto a 2D canvas.
//!
//! Why not plotters: the charts were drawn with plotters and plotters-canvas until the page
//! outgrew its size budget (250 KB gzip for wasm, JavaScript and CSS together). Those two crates
//! and their generic code were about 50 KB of the page's gzipped wasm, while the charts use a
//! small part of them. This module keeps plotters' names and call shapes for the part the
//! charts use, so a chart reads as it did, and draws with a few canvas calls.
//!
//! Every drawing call goes through [`DrawingBackend`]: [`CanvasBackend`] in the browser and
//! [`Recorder`] in native tests, which keeps what was drawn so a test can check a chart's texts
//! and where its marks landed.

use core::fmt;
use core::marker::PhantomData;
use core::ops::Range;
use std::cell::RefCell;
use std::rc::Rc;

/// An opaque colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RGBColor(pub u8, pub u8, pub u8);

/// A colour with an opacity in `[0, 1]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RGBAColor(pub u8, pub u8, pub u8, pub f64);

/// White.
pub const WHITE: RGBColor = RGBColor(255, 255, 255);
/// Black.
pub const BLACK: RGBColor = RGBColor(0, 0, 0);

/// What a colour can become: an opacity mixed in, a fill, an outline.
pub trait Color {
    /// The colour with its opacity.
    fn to_rgba(&self) -> RGBAColor;
    /// The colour at `alpha` times its opacity.
    fn mix(&self, alpha: f64) -> RGBAColor {
        let c = self.to_rgba();
        RGBAColor(c.0, c.1, c.2, c.3 * alpha)
    }
    /// A filled shape of this colour.
    fn filled(&self) -> ShapeStyle {
        ShapeStyle {
            color: self.to_rgba(),
            filled: true,
            stroke_width: 1,
        }
    }
}

impl Color for RGBColor {
    fn to_rgba(&self) -> RGBAColor {
        RGBAColor(self.0, self.1, self.2, 1.0)
    }
}

impl Color for RGBAColor {
    fn to_rgba(&self) -> RGBAColor {
        *self
    }
}

impl RGBAColor {
    /// The colour as CSS text, `rgba(r,g,b,a)`.
    pub fn css(&self) -> String {
        format!("rgba({},{},{},{})", self.0, self.1, self.2, self.3)
    }
}

/// How a shape is drawn: its colour, filled or outlined, and the outline's width in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeStyle {
    /// The colour.
    pub color: RGBAColor,
    /// Filled (true) or outlined.
    pub filled: bool,
    /// The outline's (or line's) width in device pixels.
    pub stroke_width: u32,
}

impl ShapeStyle {
    /// The same style with this line width.
    pub fn stroke_width(mut self, width: u32) -> ShapeStyle {
        self.stroke_width = width;
        self
    }

    /// The same style, filled.
    pub fn filled(mut self) -> ShapeStyle {
        self.filled = true;
        self
    }
}

impl<C: Color> From<&C> for ShapeStyle {
    fn from(c: &C) -> ShapeStyle {
        ShapeStyle {
            color: c.to_rgba(),
            filled: false,
            stroke_width: 1,
        }
    }
}

impl From<RGBColor> for ShapeStyle {
    fn from(c: RGBColor) -> ShapeStyle {
        ShapeStyle::from(&c)
    }
}

impl From<RGBAColor> for ShapeStyle {
    fn from(c: RGBAColor) -> ShapeStyle {
        ShapeStyle::from(&c)
    }
}

/// The charts' one font family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FontFamily {
    /// The browser's sans-serif font.
    SansSerif,
}

/// Where a text sits against its anchor point, across.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HPos {
    /// The text starts at the point.
    Left,
    /// The text is centred on the point.
    Center,
    /// The text ends at the point.
    Right,
}

/// Where a text sits against its anchor point, up and down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VPos {
    /// The text hangs from the point.
    Top,
    /// The text is centred on the point.
    Center,
    /// The text stands on the point.
    Bottom,
}

/// A text's anchor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    /// Across.
    pub h: HPos,
    /// Up and down.
    pub v: VPos,
}

impl Pos {
    /// The anchor `h`, `v`.
    pub fn new(h: HPos, v: VPos) -> Pos {
        Pos { h, v }
    }
}

/// A text's size (device pixels), colour and anchor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextStyle {
    /// The font size in device pixels.
    pub size: f64,
    /// The colour.
    pub color: RGBAColor,
    /// The anchor; text hangs right of its point by default.
    pub pos: Pos,
}

impl TextStyle {
    /// The same text in this colour.
    pub fn color(mut self, c: &impl Color) -> TextStyle {
        self.color = c.to_rgba();
        self
    }

    /// The same text at this anchor.
    pub fn pos(mut self, pos: Pos) -> TextStyle {
        self.pos = pos;
        self
    }

    /// The CSS font, for example `12px sans-serif`.
    pub fn font(&self) -> String {
        format!("{}px sans-serif", self.size)
    }
}

/// Turns a (family, size) pair into a [`TextStyle`].
pub trait IntoFont {
    /// Black text of this size, hanging right of its point.
    fn into_font(self) -> TextStyle;
}

impl IntoFont for (FontFamily, f64) {
    fn into_font(self) -> TextStyle {
        TextStyle {
            size: self.1,
            color: BLACK.to_rgba(),
            pos: Pos::new(HPos::Left, VPos::Top),
        }
    }
}

impl From<(FontFamily, f64)> for TextStyle {
    fn from(f: (FontFamily, f64)) -> TextStyle {
        f.into_font()
    }
}

/// A drawing failed (the canvas refused a call).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawError(pub String);

impl fmt::Display for DrawError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Below this width in CSS pixels a chart's canvas is narrow (a phone, a split screen): it is
/// made taller (`canvas::fit`) and the sweep chart puts its legend under the plot.
pub const NARROW_CSS_PX: f64 = 560.0;

/// A point in device pixels.
pub type Px = (f64, f64);

/// What the charts draw on. Coordinates are device pixels from the top left.
pub trait DrawingBackend {
    /// The surface's width and height.
    fn size(&self) -> (u32, u32);
    /// A rectangle between two corners, filled or outlined.
    fn rect(&self, a: Px, b: Px, style: &ShapeStyle);
    /// A line through `points`; `dash` is (dash, gap) in pixels.
    fn path(&self, points: &[Px], style: &ShapeStyle, dash: Option<(f64, f64)>);
    /// A filled polygon.
    fn polygon(&self, points: &[Px], color: RGBAColor);
    /// A circle, filled or outlined.
    fn circle(&self, centre: Px, r: f64, style: &ShapeStyle);
    /// A text at `at`; `upright` turns it a quarter left (a y axis's description).
    fn text(&self, text: &str, at: Px, style: &TextStyle, upright: bool);
    /// A text's width in pixels.
    fn text_width(&self, text: &str, style: &TextStyle) -> f64;
    /// Only this rectangle is drawn on until [`DrawingBackend::unclip`].
    fn clip(&self, a: Px, b: Px);
    /// Ends [`DrawingBackend::clip`].
    fn unclip(&self);
}

/// Marks an area whose coordinates are pixels shifted to its own top left (plotters' name).
#[derive(Clone, Copy, Debug)]
pub struct Shift;

/// A rectangle of a backend; areas split from one share it.
pub struct DrawingArea<DB, S = Shift> {
    db: Rc<DB>,
    x: f64,
    y: f64,
    w: u32,
    h: u32,
    _s: PhantomData<S>,
}

impl<DB, S> Clone for DrawingArea<DB, S> {
    fn clone(&self) -> Self {
        DrawingArea {
            db: Rc::clone(&self.db),
            x: self.x,
            y: self.y,
            w: self.w,
            h: self.h,
            _s: PhantomData,
        }
    }
}

/// Makes a backend into the area of its whole surface.
pub trait IntoDrawingArea: DrawingBackend + Sized {
    /// The whole surface.
    fn into_drawing_area(self) -> DrawingArea<Self, Shift>;
}

impl<DB: DrawingBackend> IntoDrawingArea for DB {
    fn into_drawing_area(self) -> DrawingArea<DB, Shift> {
        let (w, h) = self.size();
        DrawingArea {
            db: Rc::new(self),
            x: 0.0,
            y: 0.0,
            w,
            h,
            _s: PhantomData,
        }
    }
}

impl<DB: DrawingBackend> DrawingArea<DB, Shift> {
    fn part(&self, x: f64, y: f64, w: u32, h: u32) -> Self {
        DrawingArea {
            db: Rc::clone(&self.db),
            x,
            y,
            w,
            h,
            _s: PhantomData,
        }
    }

    /// The backend under the area.
    pub fn backend(&self) -> &DB {
        &self.db
    }

    /// The area's top left corner on the backend.
    pub fn origin(&self) -> Px {
        (self.x, self.y)
    }

    /// The area's width and height in pixels.
    pub fn dim_in_pixel(&self) -> (u32, u32) {
        (self.w, self.h)
    }

    /// Fills the area with one colour.
    pub fn fill(&self, c: &impl Color) -> Result<(), DrawError> {
        let (x1, y1) = (self.x + f64::from(self.w), self.y + f64::from(self.h));
        self.db.rect((self.x, self.y), (x1, y1), &c.filled());
        Ok(())
    }

    /// Draws one element in the area's pixel coordinates.
    pub fn draw<E: Element<(i32, i32)>>(&self, e: &E) -> Result<(), DrawError> {
        let (ox, oy) = (self.x, self.y);
        e.render(&*self.db, &|(x, y)| (ox + f64::from(x), oy + f64::from(y)));
        Ok(())
    }

    /// Nothing to flush: every call has drawn already (kept for plotters' call shape).
    pub fn present(&self) -> Result<(), DrawError> {
        Ok(())
    }

    /// The width and height `text` takes in `style`.
    pub fn estimate_text_size(
        &self,
        text: &str,
        style: &TextStyle,
    ) -> Result<(u32, u32), DrawError> {
        let w = self.db.text_width(text, style);
        Ok((w.ceil().max(0.0) as u32, style.size.ceil() as u32))
    }

    /// The area cut at `y` pixels down: the part above and the part below.
    pub fn split_vertically(&self, y: u32) -> (Self, Self) {
        let y = y.min(self.h);
        (
            self.part(self.x, self.y, self.w, y),
            self.part(self.x, self.y + f64::from(y), self.w, self.h - y),
        )
    }

    /// The area cut at `x` pixels across: the left part and the right part.
    pub fn split_horizontally(&self, x: u32) -> (Self, Self) {
        let x = x.min(self.w);
        (
            self.part(self.x, self.y, x, self.h),
            self.part(self.x + f64::from(x), self.y, self.w - x, self.h),
        )
    }

    /// The area cut into `rows` by `cols` equal parts, row by row.
    pub fn split_evenly(&self, (rows, cols): (usize, usize)) -> Vec<Self> {
        let (rows, cols) = (rows.max(1), cols.max(1));
        let edge = |n: usize, i: usize, len: u32| (u64::from(len) * i as u64 / n as u64) as u32;
        let mut parts = Vec::with_capacity(rows * cols);
        for r in 0..rows {
            let (y0, y1) = (edge(rows, r, self.h), edge(rows, r + 1, self.h));
            for c in 0..cols {
                let (x0, x1) = (edge(cols, c, self.w), edge(cols, c + 1, self.w));
                parts.push(self.part(
                    self.x + f64::from(x0),
                    self.y + f64::from(y0),
                    x1 - x0,
                    y1 - y0,
                ));
            }
        }
        parts
    }
}

/// Something drawn: it maps its points to device pixels with `map` and draws on `db`.
pub trait Element<C> {
    /// Draws the element.
    fn render<DB: DrawingBackend + ?Sized>(&self, db: &DB, map: &dyn Fn(C) -> Px);
    /// Whether a chart cuts the element at its plot's edges (every shape; not text).
    fn clipped(&self) -> bool {
        true
    }
}

/// A text at a point.
pub struct Text<C> {
    text: String,
    at: C,
    style: TextStyle,
}

impl<C> Text<C> {
    /// `text` at `at` in `style`.
    pub fn new(text: impl Into<String>, at: C, style: impl Into<TextStyle>) -> Self {
        Text {
            text: text.into(),
            at,
            style: style.into(),
        }
    }
}

impl<C: Copy> Element<C> for Text<C> {
    fn render<DB: DrawingBackend + ?Sized>(&self, db: &DB, map: &dyn Fn(C) -> Px) {
        db.text(&self.text, map(self.at), &self.style, false);
    }
    fn clipped(&self) -> bool {
        false
    }
}

/// A circle of a radius in pixels around a point.
pub struct Circle<C> {
    at: C,
    r: i32,
    style: ShapeStyle,
}

impl<C> Circle<C> {
    /// A circle of radius `r` pixels around `at`.
    pub fn new(at: C, r: i32, style: impl Into<ShapeStyle>) -> Self {
        Circle {
            at,
            r,
            style: style.into(),
        }
    }
}

impl<C: Copy> Element<C> for Circle<C> {
    fn render<DB: DrawingBackend + ?Sized>(&self, db: &DB, map: &dyn Fn(C) -> Px) {
        db.circle(map(self.at), f64::from(self.r.max(0)), &self.style);
    }
}

/// A rectangle between two corners.
pub struct Rectangle<C> {
    corners: [C; 2],
    style: ShapeStyle,
}

impl<C> Rectangle<C> {
    /// The rectangle between `corners`.
    pub fn new(corners: [C; 2], style: impl Into<ShapeStyle>) -> Self {
        Rectangle {
            corners,
            style: style.into(),
        }
    }
}

impl<C: Copy> Element<C> for Rectangle<C> {
    fn render<DB: DrawingBackend + ?Sized>(&self, db: &DB, map: &dyn Fn(C) -> Px) {
        db.rect(map(self.corners[0]), map(self.corners[1]), &self.style);
    }
}

/// A line through points, solid or dashed.
pub struct PathElement<C> {
    points: Vec<C>,
    style: ShapeStyle,
    dash: Option<(f64, f64)>,
}

impl<C> PathElement<C> {
    /// A solid line through `points`.
    pub fn new(points: impl Into<Vec<C>>, style: impl Into<ShapeStyle>) -> Self {
        PathElement {
            points: points.into(),
            style: style.into(),
            dash: None,
        }
    }
}

impl<C: Copy> Element<C> for PathElement<C> {
    fn render<DB: DrawingBackend + ?Sized>(&self, db: &DB, map: &dyn Fn(C) -> Px) {
        let points: Vec<Px> = self.points.iter().map(|p| map(*p)).collect();
        db.path(&points, &self.style, self.dash);
    }
}

/// The area between a line and a baseline, filled.
pub struct AreaElement {
    points: Vec<(f64, f64)>,
    baseline: f64,
    color: RGBAColor,
}

impl Element<(f64, f64)> for AreaElement {
    fn render<DB: DrawingBackend + ?Sized>(&self, db: &DB, map: &dyn Fn((f64, f64)) -> Px) {
        let (Some(first), Some(last)) = (self.points.first(), self.points.last()) else {
            return;
        };
        let mut outline: Vec<Px> = Vec::with_capacity(self.points.len() + 2);
        outline.push(map((first.0, self.baseline)));
        outline.extend(self.points.iter().map(|p| map(*p)));
        outline.push(map((last.0, self.baseline)));
        db.polygon(&outline, self.color);
    }
}

/// A line through data points, as one element (plotters' name).
pub struct LineSeries;

impl LineSeries {
    /// A solid line through `points`.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(
        points: impl IntoIterator<Item = (f64, f64)>,
        style: impl Into<ShapeStyle>,
    ) -> core::iter::Once<PathElement<(f64, f64)>> {
        core::iter::once(PathElement::new(
            points.into_iter().collect::<Vec<_>>(),
            style,
        ))
    }
}

/// A dashed line through data points, as one element (plotters' name).
pub struct DashedLineSeries;

impl DashedLineSeries {
    /// A line through `points` of `dash` pixels on, `gap` off.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(
        points: impl IntoIterator<Item = (f64, f64)>,
        dash: i32,
        gap: i32,
        style: impl Into<ShapeStyle>,
    ) -> core::iter::Once<PathElement<(f64, f64)>> {
        let mut p = PathElement::new(points.into_iter().collect::<Vec<_>>(), style);
        p.dash = Some((f64::from(dash.max(1)), f64::from(gap.max(1))));
        core::iter::once(p)
    }
}

/// The filled area under a line down to a baseline, as one element (plotters' name).
pub struct AreaSeries;

impl AreaSeries {
    /// The area between `points` and `baseline`, filled with `color`.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(
        points: impl IntoIterator<Item = (f64, f64)>,
        baseline: f64,
        color: impl Color,
    ) -> core::iter::Once<AreaElement> {
        core::iter::once(AreaElement {
            points: points.into_iter().collect(),
            baseline,
            color: color.to_rgba(),
        })
    }
}

/// A chart's coordinate system, across by up (plotters' name; only `f64` by `f64` exists).
pub struct Cartesian2d<X, Y>(PhantomData<(X, Y)>);

/// A linear `f64` axis (plotters' name).
pub struct RangedCoordf64;

/// Lays out a chart on an area: margins, caption, label areas.
pub struct ChartBuilder<'a, DB> {
    area: &'a DrawingArea<DB, Shift>,
    /// Top, right, bottom, left.
    margin: [f64; 4],
    caption: Option<(String, TextStyle)>,
    x_label_area: f64,
    y_label_area: f64,
}

impl<'a, DB: DrawingBackend> ChartBuilder<'a, DB> {
    /// A chart filling `area`.
    pub fn on(area: &'a DrawingArea<DB, Shift>) -> Self {
        ChartBuilder {
            area,
            margin: [0.0; 4],
            caption: None,
            x_label_area: 0.0,
            y_label_area: 0.0,
        }
    }

    /// The same margin on every side, in pixels.
    pub fn margin(&mut self, px: i32) -> &mut Self {
        self.margin = [f64::from(px); 4];
        self
    }

    /// The top margin.
    pub fn margin_top(&mut self, px: i32) -> &mut Self {
        self.margin[0] = f64::from(px);
        self
    }

    /// The right margin.
    pub fn margin_right(&mut self, px: i32) -> &mut Self {
        self.margin[1] = f64::from(px);
        self
    }

    /// The left margin.
    pub fn margin_left(&mut self, px: i32) -> &mut Self {
        self.margin[3] = f64::from(px);
        self
    }

    /// A caption centred above the chart.
    pub fn caption(&mut self, text: impl AsRef<str>, style: impl Into<TextStyle>) -> &mut Self {
        self.caption = Some((text.as_ref().to_string(), style.into()));
        self
    }

    /// The height of the band under the plot for the x axis's labels and description.
    pub fn x_label_area_size(&mut self, px: i32) -> &mut Self {
        self.x_label_area = f64::from(px.max(0));
        self
    }

    /// The width of the band left of the plot for the y axis's labels and description.
    pub fn y_label_area_size(&mut self, px: i32) -> &mut Self {
        self.y_label_area = f64::from(px.max(0));
        self
    }

    /// Draws the caption and returns the chart of `x` across by `y` up.
    pub fn build_cartesian_2d(
        &mut self,
        x: Range<f64>,
        y: Range<f64>,
    ) -> Result<ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>, DrawError> {
        let (ox, oy) = self.area.origin();
        let (w, h) = self.area.dim_in_pixel();
        let [top, right, bottom, left] = self.margin;
        let mut top_edge = oy + top;
        if let Some((text, style)) = &self.caption {
            let mut style = *style;
            style.pos = Pos::new(HPos::Center, VPos::Top);
            let width = f64::from(w) - left - right;
            let centre = ox + left + width / 2.0;
            let (lines, style) = fit(&*self.area.db, text, style, width);
            for line in &lines {
                self.area.db.text(line, (centre, top_edge), &style, false);
                top_edge += style.size * 1.2;
            }
            top_edge += style.size * 0.15;
        }
        let x0 = ox + left + self.y_label_area;
        let x1 = (ox + f64::from(w) - right).max(x0 + 1.0);
        let y1 = oy + f64::from(h) - bottom - self.x_label_area;
        let y1 = y1.max(top_edge + 1.0);
        let fix = |r: Range<f64>| {
            if r.end > r.start && r.start.is_finite() && r.end.is_finite() {
                r
            } else {
                r.start..r.start + 1.0
            }
        };
        Ok(ChartContext {
            area: self.area,
            plot: (x0, top_edge, x1, y1),
            x: fix(x),
            y: fix(y),
            x_label_area: self.x_label_area,
            y_label_area: self.y_label_area,
            _c: PhantomData,
        })
    }
}

/// A chart: its plot rectangle on the backend and its data ranges.
pub struct ChartContext<'a, DB, CT> {
    area: &'a DrawingArea<DB, Shift>,
    /// Left, top, right, bottom, in backend pixels.
    plot: (f64, f64, f64, f64),
    x: Range<f64>,
    y: Range<f64>,
    x_label_area: f64,
    y_label_area: f64,
    _c: PhantomData<CT>,
}

impl<'a, DB: DrawingBackend> ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>> {
    /// Where data point `(x, y)` lands, in backend pixels (not rounded).
    pub fn map(&self, (x, y): (f64, f64)) -> Px {
        let (l, t, r, b) = self.plot;
        let fx = (x - self.x.start) / (self.x.end - self.x.start);
        let fy = (y - self.y.start) / (self.y.end - self.y.start);
        (l + fx * (r - l), b - fy * (b - t))
    }

    /// Where data point `p` lands, in whole backend pixels.
    pub fn backend_coord(&self, p: &(f64, f64)) -> (i32, i32) {
        let (x, y) = self.map(*p);
        (x.round() as i32, y.round() as i32)
    }

    /// Draws `series`' elements, cut at the plot's edges (texts are not cut).
    pub fn draw_series<E, I>(&mut self, series: I) -> Result<(), DrawError>
    where
        E: Element<(f64, f64)>,
        I: IntoIterator<Item = E>,
    {
        let (l, t, r, b) = self.plot;
        let db = &*self.area.db;
        let map = |p: (f64, f64)| self.map(p);
        let mut clipped = false;
        for e in series {
            if e.clipped() != clipped {
                if clipped {
                    db.unclip();
                } else {
                    db.clip((l, t), (r, b));
                }
                clipped = !clipped;
            }
            e.render(db, &map);
        }
        if clipped {
            db.unclip();
        }
        Ok(())
    }

    /// The axes, their labels and the grid, set up then drawn with [`MeshStyle::draw`].
    pub fn configure_mesh<'b>(&'b mut self) -> MeshStyle<'a, 'b, DB> {
        let label = (FontFamily::SansSerif, 12.0).into_font();
        MeshStyle {
            chart: self,
            x_desc: None,
            y_desc: None,
            x_labels: 10,
            y_labels: 10,
            x_format: None,
            y_format: None,
            label,
            desc: label,
            light: RGBAColor(0, 0, 0, 0.1),
            x_mesh: true,
            y_mesh: true,
        }
    }
}

/// A label formatter.
type Format<'b> = &'b dyn Fn(&f64) -> String;

/// The mesh's settings (plotters' names).
pub struct MeshStyle<'a, 'b, DB> {
    chart: &'b ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    x_desc: Option<String>,
    y_desc: Option<String>,
    x_labels: usize,
    y_labels: usize,
    x_format: Option<Format<'b>>,
    y_format: Option<Format<'b>>,
    label: TextStyle,
    desc: TextStyle,
    light: RGBAColor,
    x_mesh: bool,
    y_mesh: bool,
}

impl<'b, DB: DrawingBackend> MeshStyle<'_, 'b, DB> {
    /// The x axis's description, under its labels.
    pub fn x_desc(&mut self, d: impl Into<String>) -> &mut Self {
        self.x_desc = Some(d.into());
        self
    }

    /// The y axis's description, upright left of its labels.
    pub fn y_desc(&mut self, d: impl Into<String>) -> &mut Self {
        self.y_desc = Some(d.into());
        self
    }

    /// At most this many ticks across.
    pub fn x_labels(&mut self, n: usize) -> &mut Self {
        self.x_labels = n;
        self
    }

    /// At most this many ticks up.
    pub fn y_labels(&mut self, n: usize) -> &mut Self {
        self.y_labels = n;
        self
    }

    /// The x ticks' text; an empty text leaves the tick unlabelled.
    pub fn x_label_formatter(&mut self, f: Format<'b>) -> &mut Self {
        self.x_format = Some(f);
        self
    }

    /// The y ticks' text; an empty text leaves the tick unlabelled.
    pub fn y_label_formatter(&mut self, f: Format<'b>) -> &mut Self {
        self.y_format = Some(f);
        self
    }

    /// The ticks' text style.
    pub fn label_style(&mut self, s: impl Into<TextStyle>) -> &mut Self {
        self.label = s.into();
        self
    }

    /// The descriptions' text style.
    pub fn axis_desc_style(&mut self, s: impl Into<TextStyle>) -> &mut Self {
        self.desc = s.into();
        self
    }

    /// The grid lines' colour.
    pub fn light_line_style(&mut self, c: impl Color) -> &mut Self {
        self.light = c.to_rgba();
        self
    }

    /// No vertical grid lines.
    pub fn disable_x_mesh(&mut self) -> &mut Self {
        self.x_mesh = false;
        self
    }

    /// No horizontal grid lines.
    pub fn disable_y_mesh(&mut self) -> &mut Self {
        self.y_mesh = false;
        self
    }

    /// Draws the grid, the axes, the ticks and their labels, and the descriptions.
    pub fn draw(&mut self) -> Result<(), DrawError> {
        let c = self.chart;
        let db = &*c.area.db;
        let (l, t, r, b) = c.plot;
        let grid = ShapeStyle::from(&self.light);
        let axis = ShapeStyle::from(&RGBAColor(0, 0, 0, 0.75));
        let tick = (self.label.size * 0.4).max(3.0);
        let plain = |v: &f64| format!("{v}");
        let x_format: &dyn Fn(&f64) -> String = match self.x_format {
            Some(f) => f,
            None => &plain,
        };
        let y_format: &dyn Fn(&f64) -> String = match self.y_format {
            Some(f) => f,
            None => &plain,
        };
        let mut label = self.label;
        label.pos = Pos::new(HPos::Center, VPos::Top);
        // No more ticks across than fit with room between their labels (a narrow canvas).
        let room = ((r - l) / (self.label.size * 3.5)).max(2.0) as usize;
        for v in ticks(c.x.start, c.x.end, self.x_labels.min(room)) {
            let (x, _) = c.map((v, c.y.start));
            if self.x_mesh {
                db.path(&[(x, t), (x, b)], &grid, None);
            }
            let text = x_format(&v);
            if !text.is_empty() {
                db.path(&[(x, b), (x, b + tick)], &axis, None);
                // A label centred on a tick near the area's edge is moved in to show whole.
                let half = db.text_width(&text, &label) / 2.0;
                let (ax, aw) = (c.area.x, f64::from(c.area.w));
                let at = x.min(ax + aw - half - 1.0).max(ax + half + 1.0);
                db.text(&text, (at, b + tick + 2.0), &label, false);
            }
        }
        label.pos = Pos::new(HPos::Right, VPos::Center);
        for v in ticks(c.y.start, c.y.end, self.y_labels) {
            let (_, y) = c.map((c.x.start, v));
            if self.y_mesh {
                db.path(&[(l, y), (r, y)], &grid, None);
            }
            let text = y_format(&v);
            if !text.is_empty() {
                db.path(&[(l - tick, y), (l, y)], &axis, None);
                db.text(&text, (l - tick - 3.0, y), &label, false);
            }
        }
        db.path(&[(l, t), (l, b), (r, b)], &axis, None);
        if let Some(d) = &self.x_desc {
            let mut s = self.desc;
            s.pos = Pos::new(HPos::Center, VPos::Bottom);
            let bottom = b + c.x_label_area.max(s.size * 2.0 + tick);
            let (lines, s) = fit(db, d, s, r - l);
            let n = lines.len() as f64;
            for (i, line) in lines.iter().enumerate() {
                let y = bottom - 2.0 - (n - 1.0 - i as f64) * s.size * 1.15;
                db.text(line, ((l + r) / 2.0, y), &s, false);
            }
        }
        if let Some(d) = &self.y_desc {
            let mut s = self.desc;
            s.pos = Pos::new(HPos::Center, VPos::Top);
            let left = l - c.y_label_area.max(s.size * 2.0);
            let (lines, s) = fit(db, d, s, b - t);
            for (i, line) in lines.iter().enumerate() {
                let x = left + 2.0 + i as f64 * s.size * 1.15;
                db.text(line, (x, (t + b) / 2.0), &s, true);
            }
        }
        Ok(())
    }
}

/// A text set to fit `width` pixels: one line if it fits; else broken at spaces into two lines,
/// as even as the words allow; and the font made smaller (to 70% at least) while a line is still
/// too wide. A narrow canvas keeps its captions and axis names whole instead of cut at its edges.
pub fn fit<DB: DrawingBackend + ?Sized>(
    db: &DB,
    text: &str,
    style: TextStyle,
    width: f64,
) -> (Vec<String>, TextStyle) {
    let wide = |lines: &[String], s: &TextStyle| {
        lines
            .iter()
            .map(|l| db.text_width(l, s))
            .fold(0.0f64, f64::max)
    };
    let mut lines = vec![text.to_string()];
    if width <= 0.0 || db.text_width(text, &style) <= width {
        return (lines, style);
    }
    // The break that makes the wider of the two lines narrowest.
    let breaks = text.match_indices(' ').map(|(i, _)| i);
    if let Some(cut) = breaks.min_by(|a, b| {
        let w = |i: usize| {
            db.text_width(&text[..i], &style)
                .max(db.text_width(&text[i + 1..], &style))
        };
        w(*a).total_cmp(&w(*b))
    }) {
        lines = vec![text[..cut].to_string(), text[cut + 1..].to_string()];
    }
    let mut style = style;
    let w = wide(&lines, &style);
    if w > width {
        style.size *= (width / w).max(0.7);
    }
    (lines, style)
}

/// Round ticks from `lo` to `hi`, at most `max` of them: multiples of 1, 2 or 5 times a power
/// of ten, the finest step that fits.
pub fn ticks(lo: f64, hi: f64, max: usize) -> Vec<f64> {
    if !lo.is_finite() || !hi.is_finite() || hi <= lo || max == 0 {
        return Vec::new();
    }
    let raw = (hi - lo) / max as f64;
    let mut exp = libm::floor(libm::log10(raw)) as i32;
    loop {
        for m in [1.0, 2.0, 5.0] {
            // The step is m * 10^exp; values are k * step, written so whole numbers stay exact.
            let (num, den) = if exp >= 0 {
                (m * 10f64.powi(exp), 1.0)
            } else {
                (m, 10f64.powi(-exp))
            };
            let first = (lo * den / num).ceil();
            let last = (hi * den / num).floor();
            if last >= first && last - first < max as f64 {
                return (first as i64..=last as i64)
                    .map(|k| k as f64 * num / den)
                    .collect();
            }
        }
        exp += 1;
        if exp > 308 {
            return Vec::new();
        }
    }
}

/// A backend that keeps what was drawn, for tests: every text with its point, and how many
/// shapes of each kind, with every shape's pixels checked against the surface.
#[derive(Debug, Default)]
pub struct Recorder {
    size: (u32, u32),
    drawn: RefCell<Drawn>,
}

/// What a [`Recorder`] saw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Drawn {
    /// Every text, its point and whether it was upright.
    pub texts: Vec<(String, Px, bool)>,
    /// Rectangles drawn (filled or outlined).
    pub rects: usize,
    /// Lines drawn (each a path of points).
    pub paths: usize,
    /// Dashed lines among them.
    pub dashed: usize,
    /// Filled polygons.
    pub polygons: usize,
    /// Circles.
    pub circles: usize,
    /// Points drawn outside the surface (a layout error), with a pixel of slack; for a text,
    /// its two ends as the recorder measures it.
    pub outside: Vec<Px>,
}

impl Recorder {
    /// A surface of `w` by `h` pixels.
    pub fn new(w: u32, h: u32) -> Recorder {
        Recorder {
            size: (w, h),
            drawn: RefCell::new(Drawn::default()),
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

    fn check(&self, points: &[Px]) {
        let (w, h) = (f64::from(self.size.0), f64::from(self.size.1));
        let mut d = self.drawn.borrow_mut();
        for &(x, y) in points {
            if !(-1.0..=w + 1.0).contains(&x) || !(-1.0..=h + 1.0).contains(&y) {
                d.outside.push((x, y));
            }
        }
    }
}

impl DrawingBackend for Recorder {
    fn size(&self) -> (u32, u32) {
        self.size
    }
    fn rect(&self, a: Px, b: Px, _: &ShapeStyle) {
        self.drawn.borrow_mut().rects += 1;
        self.check(&[a, b]);
    }
    fn path(&self, points: &[Px], _: &ShapeStyle, dash: Option<(f64, f64)>) {
        let mut d = self.drawn.borrow_mut();
        d.paths += 1;
        d.dashed += usize::from(dash.is_some());
        drop(d);
        self.check(points);
    }
    fn polygon(&self, points: &[Px], _: RGBAColor) {
        self.drawn.borrow_mut().polygons += 1;
        self.check(points);
    }
    fn circle(&self, centre: Px, _: f64, _: &ShapeStyle) {
        self.drawn.borrow_mut().circles += 1;
        self.check(&[centre]);
    }
    fn text(&self, text: &str, at: Px, style: &TextStyle, upright: bool) {
        self.drawn
            .borrow_mut()
            .texts
            .push((text.to_string(), at, upright));
        // The text's two ends along its line, from its anchor.
        let len = self.text_width(text, style);
        let before = match style.pos.h {
            HPos::Left => 0.0,
            HPos::Center => len / 2.0,
            HPos::Right => len,
        };
        let ends = if upright {
            // Turned a quarter left: it runs upwards from its anchor.
            [(at.0, at.1 + before), (at.0, at.1 + before - len)]
        } else {
            [(at.0 - before, at.1), (at.0 - before + len, at.1)]
        };
        self.check(&ends);
    }
    fn text_width(&self, text: &str, style: &TextStyle) -> f64 {
        text.chars().count() as f64 * style.size * 0.55
    }
    fn clip(&self, _: Px, _: Px) {}
    fn unclip(&self) {}
}

/// A 2D canvas as a backend.
#[cfg(target_arch = "wasm32")]
pub struct CanvasBackend {
    canvas: web_sys::HtmlCanvasElement,
    ctx: web_sys::CanvasRenderingContext2d,
}

#[cfg(target_arch = "wasm32")]
impl CanvasBackend {
    /// The backend of `canvas`'s 2D context, if it has one.
    pub fn with_canvas_object(canvas: web_sys::HtmlCanvasElement) -> Option<CanvasBackend> {
        use wasm_bindgen::JsCast;
        let ctx = canvas
            .get_context("2d")
            .ok()??
            .dyn_into::<web_sys::CanvasRenderingContext2d>()
            .ok()?;
        Some(CanvasBackend { canvas, ctx })
    }

    fn stroke_with(&self, style: &ShapeStyle) {
        self.ctx.set_stroke_style_str(&style.color.css());
        self.ctx
            .set_line_width(f64::from(style.stroke_width.max(1)));
    }
}

#[cfg(target_arch = "wasm32")]
impl DrawingBackend for CanvasBackend {
    fn size(&self) -> (u32, u32) {
        (self.canvas.width(), self.canvas.height())
    }
    fn rect(&self, a: Px, b: Px, style: &ShapeStyle) {
        let (x, y) = (a.0.min(b.0), a.1.min(b.1));
        let (w, h) = ((a.0 - b.0).abs(), (a.1 - b.1).abs());
        if style.filled {
            self.ctx.set_fill_style_str(&style.color.css());
            self.ctx.fill_rect(x, y, w, h);
        } else {
            self.stroke_with(style);
            self.ctx.stroke_rect(x, y, w, h);
        }
    }
    fn path(&self, points: &[Px], style: &ShapeStyle, dash: Option<(f64, f64)>) {
        let Some((first, rest)) = points.split_first() else {
            return;
        };
        self.stroke_with(style);
        if let Some((on, off)) = dash {
            let pattern = js_sys::Array::of2(&on.into(), &off.into());
            let _ = self.ctx.set_line_dash(&pattern);
        }
        self.ctx.begin_path();
        self.ctx.move_to(first.0, first.1);
        for p in rest {
            self.ctx.line_to(p.0, p.1);
        }
        self.ctx.stroke();
        if dash.is_some() {
            let _ = self.ctx.set_line_dash(&js_sys::Array::new());
        }
    }
    fn polygon(&self, points: &[Px], color: RGBAColor) {
        let Some((first, rest)) = points.split_first() else {
            return;
        };
        self.ctx.set_fill_style_str(&color.css());
        self.ctx.begin_path();
        self.ctx.move_to(first.0, first.1);
        for p in rest {
            self.ctx.line_to(p.0, p.1);
        }
        self.ctx.close_path();
        self.ctx.fill();
    }
    fn circle(&self, centre: Px, r: f64, style: &ShapeStyle) {
        self.ctx.begin_path();
        let _ = self
            .ctx
            .arc(centre.0, centre.1, r, 0.0, core::f64::consts::TAU);
        if style.filled {
            self.ctx.set_fill_style_str(&style.color.css());
            self.ctx.fill();
        } else {
            self.stroke_with(style);
            self.ctx.stroke();
        }
    }
    fn text(&self, text: &str, at: Px, style: &TextStyle, upright: bool) {
        let ctx = &self.ctx;
        ctx.set_font(&style.font());
        ctx.set_fill_style_str(&style.color.css());
        ctx.set_text_align(match style.pos.h {
            HPos::Left => "left",
            HPos::Center => "center",
            HPos::Right => "right",
        });
        ctx.set_text_baseline(match style.pos.v {
            VPos::Top => "top",
            VPos::Center => "middle",
            VPos::Bottom => "bottom",
        });
        if upright {
            ctx.save();
            let _ = ctx.translate(at.0, at.1);
            let _ = ctx.rotate(-core::f64::consts::FRAC_PI_2);
            let _ = ctx.fill_text(text, 0.0, 0.0);
            ctx.restore();
        } else {
            let _ = ctx.fill_text(text, at.0, at.1);
        }
    }
    fn text_width(&self, text: &str, style: &TextStyle) -> f64 {
        self.ctx.set_font(&style.font());
        self.ctx
            .measure_text(text)
            .map_or(text.chars().count() as f64 * style.size * 0.55, |m| {
                m.width()
            })
    }
    fn clip(&self, a: Px, b: Px) {
        self.ctx.save();
        self.ctx.begin_path();
        self.ctx.rect(a.0, a.1, b.0 - a.0, b.1 - a.1);
        self.ctx.clip();
    }
    fn unclip(&self) {
        self.ctx.restore();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_fit() {
        assert_eq!(
            ticks(0.0, 10.0, 11),
            [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]
        );
        assert_eq!(ticks(0.0, 10.0, 5), [0.0, 5.0, 10.0]);
        assert_eq!(
            ticks(1.0, 5.0, 5),
            [1.0, 2.0, 3.0, 4.0, 5.0],
            "a log axis's decades"
        );
        assert_eq!(ticks(-0.5, 2.5, 12), [-0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5]);
        let small = ticks(0.0, 0.3, 4);
        assert_eq!(small, [0.0, 0.1, 0.2, 0.3], "tenths stay exact: {small:?}");
        assert_eq!(
            ticks(0.0, 46_000.0, 8),
            [0.0, 10_000.0, 20_000.0, 30_000.0, 40_000.0]
        );
        assert!(ticks(3.0, 3.0, 5).is_empty(), "an empty range has no ticks");
        assert!(ticks(0.0, f64::NAN, 5).is_empty());
        assert!(ticks(0.0, 1.0, 0).is_empty());
    }

    #[test]
    fn areas_split_without_gaps() {
        let area = Recorder::new(101, 300).into_drawing_area();
        let parts = area.split_evenly((3, 1));
        let heights: Vec<u32> = parts.iter().map(|p| p.dim_in_pixel().1).collect();
        assert_eq!(heights.iter().sum::<u32>(), 300);
        assert_eq!(parts[2].origin(), (0.0, 200.0));
        let (left, right) = area.split_horizontally(60);
        assert_eq!((left.dim_in_pixel().0, right.dim_in_pixel().0), (60, 41));
        assert_eq!(right.origin(), (60.0, 0.0));
        let (_, below) = area.split_vertically(500);
        assert_eq!(
            below.dim_in_pixel(),
            (101, 0),
            "a cut past the edge leaves an empty part"
        );
    }

    #[test]
    fn a_chart_maps_its_ranges_onto_its_plot() {
        let area = Recorder::new(400, 300).into_drawing_area();
        let mut b = ChartBuilder::on(&area);
        b.margin(10).x_label_area_size(40).y_label_area_size(50);
        let chart = b.build_cartesian_2d(0.0..10.0, 0.0..100.0).unwrap();
        assert_eq!(chart.backend_coord(&(0.0, 0.0)), (60, 250));
        assert_eq!(chart.backend_coord(&(10.0, 100.0)), (390, 10));
        assert_eq!(chart.backend_coord(&(5.0, 50.0)), (225, 130));
        // An empty range still maps (to a unit range) instead of dividing by zero.
        let flat = b.build_cartesian_2d(2.0..2.0, 0.0..1.0).unwrap();
        assert_eq!(flat.backend_coord(&(2.0, 0.0)), (60, 250));
    }

    #[test]
    fn a_narrow_plot_gets_fewer_ticks_across() {
        let area = Recorder::new(160, 100).into_drawing_area();
        let mut b = ChartBuilder::on(&area);
        let mut chart = b.build_cartesian_2d(0.0..10.0, 0.0..1.0).unwrap();
        chart.configure_mesh().y_labels(0).draw().unwrap();
        let texts: Vec<String> = area
            .backend()
            .drawn()
            .texts
            .into_iter()
            .map(|t| t.0)
            .collect();
        assert_eq!(
            texts,
            ["0", "5", "10"],
            "160 px holds three 12 px labels, not ten"
        );
    }

    #[test]
    fn long_texts_break_into_two_lines_then_shrink() {
        let rec = Recorder::new(100, 100);
        let style = (FontFamily::SansSerif, 10.0).into_font();
        // The recorder measures 5.5 px a character at 10 px.
        let (lines, s) = fit(&rec, "short", style, 100.0);
        assert_eq!((lines, s.size), (vec!["short".to_string()], 10.0));
        let (lines, s) = fit(&rec, "requests in flight and the budget", style, 110.0);
        assert_eq!(lines, ["requests in flight", "and the budget"]);
        assert_eq!(s.size, 10.0, "18 characters fit in 110 px");
        let (lines, s) = fit(&rec, "requests in flight and the budget", style, 88.0);
        assert_eq!(lines.len(), 2);
        assert!(
            (s.size - 88.0 / 99.0 * 10.0).abs() < 1e-9,
            "shrunk to fit: {}",
            s.size
        );
        let (lines, s) = fit(&rec, "unbreakable_and_very_long", style, 20.0);
        assert_eq!(lines, ["unbreakable_and_very_long"]);
        assert_eq!(s.size, 7.0, "never below 70%");
    }

    #[test]
    fn the_mesh_labels_ticks_with_the_formatter_and_names_the_axes() {
        let rec = Recorder::new(400, 300);
        let area = rec.into_drawing_area();
        let mut b = ChartBuilder::on(&area);
        b.margin(10)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .caption("Title", (FontFamily::SansSerif, 14.0));
        let mut chart = b.build_cartesian_2d(0.0..4.0, 0.0..1.0).unwrap();
        chart
            .configure_mesh()
            .x_desc("time (s)")
            .y_desc("per second")
            .x_labels(5)
            .x_label_formatter(&|v| {
                if *v == 2.0 {
                    String::new()
                } else {
                    format!("t{v}")
                }
            })
            .y_labels(3)
            .draw()
            .unwrap();
        let d = area.backend().drawn();
        let texts: Vec<&str> = d.texts.iter().map(|(t, ..)| t.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Title",
                "t0",
                "t1",
                "t3",
                "t4",
                "0",
                "0.5",
                "1",
                "time (s)",
                "per second"
            ],
            "an empty label leaves its tick bare"
        );
        assert!(
            d.texts.last().unwrap().2,
            "the y description stands upright"
        );
        assert!(d.outside.is_empty(), "{:?}", d.outside);
    }
}
