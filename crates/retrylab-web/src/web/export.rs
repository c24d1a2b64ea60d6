//! The Export menu under the link: the view's policy written as a gRPC service config, an
//! Envoy route or an Istio VirtualService by the importer's worker (the text `retrylab export`
//! prints), with what the format cannot say listed under it, and a copy button.

use super::importer::{ensure_worker, note_list, on_reply, post, ImportReply};
use super::*;

/// The menu's wiring: opening it or picking a format writes the view's policy; Copy copies it.
pub(super) fn export_menu(app: &Rc<RefCell<App>>) -> Result<(), JsValue> {
    let Some(details) = by_id("export-config") else {
        return Ok(());
    };
    on_reply("export", Box::new(shown));
    let write = {
        let app = app.clone();
        Closure::<dyn FnMut()>::new(move || {
            if by_id("export-config").is_some_and(|d| d.has_attribute("open")) {
                request(&app);
            }
        })
    };
    details.add_event_listener_with_callback("toggle", write.as_ref().unchecked_ref())?;
    by_id("export-to")
        .ok_or("no #export-to")?
        .add_event_listener_with_callback("change", write.as_ref().unchecked_ref())?;
    write.forget(); // page-lifetime handler
    on_click(app, "export-copy", |_| {
        let text = by_id("export-text")
            .and_then(|e| e.text_content())
            .unwrap_or_default();
        if let (false, Some(w)) = (text.is_empty(), web_sys::window()) {
            let _ = w.navigator().clipboard().write_text(&text);
            if let Some(b) = by_id("export-copy") {
                b.set_text_content(Some("Copied"));
            }
        }
    })
}

/// Asks the importer for the view's policy in the chosen format.
fn request(app: &Rc<RefCell<App>>) {
    ensure_worker();
    let to = by_id("export-to")
        .map(|e| control_value(&e).0)
        .unwrap_or_default();
    let link = app.borrow().state.link();
    let req = js_sys::Object::new();
    for (k, v) in [("export", to), ("link", link.clone())] {
        let _ = js_sys::Reflect::set(&req, &k.into(), &v.into());
    }
    if post(&req) {
        status(&format!("Writing the policy of ?{link} ..."));
    }
}

/// The importer's export: the text, its notes, and the link it was written from.
fn shown(r: &ImportReply) {
    if let Some(b) = by_id("export-copy") {
        b.set_text_content(Some("Copy"));
    }
    if let Some(list) = by_id("export-notes") {
        list.set_inner_html("");
    }
    let text = if r.error.is_empty() {
        r.text.as_str()
    } else {
        ""
    };
    if let Some(pre) = by_id("export-text") {
        pre.set_text_content(Some(text));
    }
    if !r.error.is_empty() {
        return status(&format!("Not written: {}", r.error));
    }
    let n = r.warnings.len();
    status(&match n {
        0 => String::from("Written with nothing left out."),
        1 => String::from("Written; 1 setting the format cannot say is listed below."),
        n => format!("Written; {n} settings the format cannot say are listed below."),
    });
    note_list(
        "export-notes",
        r.warnings.iter().map(|w| ("Not expressed", w)),
    );
}

/// The menu's status line.
fn status(text: &str) {
    if let Some(s) = by_id("export-status") {
        s.set_text_content(Some(text));
    }
}
