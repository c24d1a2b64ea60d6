//! Canvas sizing shared by every chart (wasm32 only): the drawing buffer at the device pixel
//! ratio, so charts stay sharp on high-density screens; and the tables that give a chart's
//! numbers as text.

use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement;

/// The canvas with element id `id`, its buffer sized to its CSS width (at least 320 px) times
/// the device pixel ratio, its height `ratio` of the width clamped to `[lo, hi]` CSS pixels
/// (`lo` 1.6 times higher on a narrow canvas).
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
    // A narrow canvas (a phone) wraps its caption and legend into more lines: it gets more
    // height, so the plot itself keeps a readable size.
    let (lo, hi) = if css_w < crate::charts::plot::NARROW_CSS_PX {
        (lo * 1.6, hi.max(lo * 1.6))
    } else {
        (lo, hi)
    };
    let css_h = (css_w * ratio).clamp(lo, hi);
    let (w, h) = ((css_w * dpr).round() as u32, (css_h * dpr).round() as u32);
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
        let _ = canvas.style().set_property("height", &format!("{css_h}px"));
    }
    Some((canvas, dpr))
}

/// Fills table `id` with a head row and body rows of text (the charts' text alternatives).
pub(crate) fn fill_table(id: &str, head: &[String], rows: &[Vec<String>]) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(table) = doc.get_element_by_id(id) else {
        return;
    };
    table.set_inner_html("");
    let (Ok(thead), Ok(tbody), Ok(tr)) = (
        doc.create_element("thead"),
        doc.create_element("tbody"),
        doc.create_element("tr"),
    ) else {
        return;
    };
    for h in head {
        if let Ok(th) = doc.create_element("th") {
            th.set_text_content(Some(h));
            let _ = tr.append_child(&th);
        }
    }
    let _ = thead.append_child(&tr);
    for row in rows {
        let Ok(tr) = doc.create_element("tr") else {
            continue;
        };
        for cell in row {
            if let Ok(td) = doc.create_element("td") {
                td.set_text_content(Some(cell));
                let _ = tr.append_child(&td);
            }
        }
        let _ = tbody.append_child(&tr);
    }
    let _ = table.append_child(&thead);
    let _ = table.append_child(&tbody);
}
