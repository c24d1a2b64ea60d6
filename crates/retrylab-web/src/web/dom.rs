//! The few DOM helpers every panel and the page's glue share (wasm32 only).

use web_sys::{Document, Element};

/// The page's document. Only called on a page (`web::start` returns early elsewhere).
pub(crate) fn document() -> Option<Document> {
    web_sys::window()?.document()
}

/// The element with this id, if the page has one.
pub(crate) fn by_id(id: &str) -> Option<Element> {
    document()?.get_element_by_id(id)
}

/// Shows or hides an element through its `hidden` attribute.
pub(crate) fn set_hidden(el: &Element, hidden: bool) {
    if hidden {
        let _ = el.set_attribute("hidden", "");
    } else {
        let _ = el.remove_attribute("hidden");
    }
}

/// The page's clock (ms since navigation began; 0 where there is no window).
pub(crate) fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// Appends a row of cells (`td`, or `th` for a head row) to `parent`.
pub(crate) fn append_row(doc: &Document, parent: &Element, cells: &[String], head: bool) {
    let Ok(tr) = doc.create_element("tr") else {
        return;
    };
    for text in cells {
        if let Ok(td) = doc.create_element(if head { "th" } else { "td" }) {
            td.set_text_content(Some(text));
            let _ = tr.append_child(&td);
        }
    }
    let _ = parent.append_child(&tr);
}
