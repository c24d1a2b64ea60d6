//! Canvas sizing shared by every chart (wasm32 only): the drawing buffer at the device pixel
//! ratio, so charts stay sharp on high-density screens.

use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement;

/// The canvas with element id `id`, its buffer sized to its CSS width (at least 320 px) times
/// the device pixel ratio, its height `ratio` of the width clamped to `[lo, hi]` CSS pixels.
/// Returns the canvas and the ratio the chart should scale its pixels by.
pub(crate) fn fit(id: &str, ratio: f64, lo: f64, hi: f64) -> Option<(HtmlCanvasElement, f64)> {
    let window = web_sys::window()?;
    let canvas = window
        .document()?
        .get_element_by_id(id)?
        .dyn_into::<HtmlCanvasElement>()
        .ok()?;
    let dpr = window.device_pixel_ratio().max(1.0);
    let css_w = f64::from(canvas.client_width().max(320));
    let css_h = (css_w * ratio).clamp(lo, hi);
    let (w, h) = ((css_w * dpr).round() as u32, (css_h * dpr).round() as u32);
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
        let _ = canvas.style().set_property("height", &format!("{css_h}px"));
    }
    Some((canvas, dpr))
}
