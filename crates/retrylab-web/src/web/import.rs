//! The Import box: a configuration pasted, dropped or picked as a file goes to the importer,
//! a worker of its own (`retrylab-import-web`) started the first time the box opens, so its
//! parsers never delay the first chart. Its link opens here, the same link `retrylab import`
//! prints, and its warnings and the fields it does not model stay listed under the box.

use super::importer::{ensure_worker, note_list, notes, post, ImportReply};
use super::*;
use web_sys::HtmlTextAreaElement;

thread_local! {
    /// Files picked or dropped together, outermost first, waiting to be stacked as layers;
    /// emptied when the text is edited or one file is read.
    static STACK: RefCell<Vec<(String, String)>> = const { RefCell::new(Vec::new()) };
}

/// The largest file read into the box: the importer's own limit (`retry_import::MAX_BYTES`,
/// which a test holds this to), so a huge file is refused before the page reads it.
const MAX_FILE: f64 = 1048576.0;

/// The box's wiring: its worker started on first opening (or at once for `#import`), the
/// Import button, the file picker and a file dropped on the text.
pub(super) fn import_box(app: &Rc<RefCell<App>>) -> Result<(), JsValue> {
    let Some(details) = by_id("import") else {
        return Ok(());
    };
    {
        let app = app.clone();
        super::importer::on_reply("import", Box::new(move |r| shown(&app, r)));
    }
    let on_toggle = Closure::<dyn FnMut()>::new(|| {
        if by_id("import").is_some_and(|d| d.has_attribute("open")) {
            ensure_worker();
        }
    });
    details.add_event_listener_with_callback("toggle", on_toggle.as_ref().unchecked_ref())?;
    on_toggle.forget(); // page-lifetime handler
    let hash = web_sys::window().and_then(|w| w.location().hash().ok());
    if hash.as_deref() == Some("#import") {
        // The browser scrolls to the box itself, as to any anchor.
        details.set_attribute("open", "")?;
    }
    let on_go = Closure::<dyn FnMut()>::new(send);
    by_id("import-go")
        .ok_or("no #import-go")?
        .add_event_listener_with_callback("click", on_go.as_ref().unchecked_ref())?;
    on_go.forget(); // page-lifetime handler
                    // A control changed by hand no longer holds what the file said: its notes go.
    let on_change = Closure::<dyn FnMut(web_sys::Event)>::new(|e: web_sys::Event| {
        let key = e
            .target()
            .and_then(|t| t.dyn_into::<Element>().ok())
            .and_then(|t| t.get_attribute("data-key"));
        if let Some(row) = key.and_then(|k| by_id(&format!("{k}-row"))) {
            clear_beside(&row);
        }
    });
    document().add_event_listener_with_callback("change", on_change.as_ref().unchecked_ref())?;
    on_change.forget(); // page-lifetime handler
    file_inputs()
}

/// Removes the imported notes inside `root`.
fn clear_beside(root: &Element) {
    if let Ok(list) = root.query_selector_all(".imported-note") {
        for i in 0..list.length() {
            if let Some(n) = list.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                n.remove();
            }
        }
    }
}

/// Each note with a link key shown beside that key's control too, as the box lists it.
fn notes_beside(r: &ImportReply) {
    let doc = document();
    if let Some(body) = doc.body() {
        clear_beside(&body);
    }
    for (kind, n) in notes(r) {
        let Some(row) = by_id(&format!("{}-row", n.key)).filter(|_| !n.key.is_empty()) else {
            continue;
        };
        if let Ok(span) = doc.create_element("span") {
            span.set_class_name("imported-note");
            let _ = span.set_attribute("data-kind", kind);
            span.set_text_content(Some(&format!(
                "From your file ({kind}), {}: {}",
                n.field, n.text
            )));
            let _ = row.append_child(&span);
        }
    }
}

/// Posts the box's text, format and method or route to the importer.
fn send() {
    ensure_worker();
    let text = by_id("import-text")
        .and_then(|e| e.dyn_into::<HtmlTextAreaElement>().ok())
        .map(|t| t.value())
        .unwrap_or_default();
    if text.trim().is_empty() {
        return status("Paste a configuration or pick its file first.", true);
    }
    let value = |id: &str| {
        by_id(id)
            .map(|e| control_value(&e).0.trim().to_string())
            .unwrap_or_default()
    };
    let req = js_sys::Object::new();
    let files = STACK.with(|s| s.borrow().clone());
    if files.len() > 1 {
        let list = js_sys::Array::new();
        for (name, text) in files {
            list.push(&js_sys::Array::of2(&name.into(), &text.into()));
        }
        let _ = js_sys::Reflect::set(&req, &"files".into(), &list);
    }
    for (k, v) in [
        ("text", text),
        ("from", value("import-from")),
        ("pick", value("import-pick")),
        ("release", value("import-release")),
    ] {
        let _ = js_sys::Reflect::set(&req, &k.into(), &v.into());
    }
    if post(&req) {
        status("Reading the configuration...", false);
    }
}

/// The importer's answer: its link opened, its notes listed; or its one-line reason.
fn shown(app: &Rc<RefCell<App>>, r: &ImportReply) {
    if let Some(list) = by_id("import-notes") {
        list.set_inner_html("");
    }
    set_hidden_id("import-outage", true);
    if !r.ok {
        if let Some(body) = document().body() {
            clear_beside(&body);
        }
        let why = if r.error.is_empty() {
            "the importer gave no answer"
        } else {
            &r.error
        };
        return status(&format!("Not imported: {why}"), true);
    }
    {
        let mut a = app.borrow_mut();
        a.state.update(Msg::Load(r.link.clone()));
        let policy = a.state.params.policy;
        a.view.imported = Some((policy, r.format.clone()));
        render(&mut a, true);
    }
    let count =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    status(
        &format!(
            "Imported from {}{}: the view now runs its policy. {}, {} and {}, listed below.",
            format_name(&r.format),
            if r.release.is_empty() {
                String::new()
            } else {
                format!(" by the rules of {}", r.release)
            },
            count(r.warnings.len(), "warning", "warnings"),
            count(
                r.unsupported.len(),
                "field not modelled",
                "fields not modelled"
            ),
            count(r.defaults.len(), "default", "defaults"),
        ),
        false,
    );
    // The same policy in the outage scenario, unless the import already opened it (a
    // resilience4j breaker does). The link is set by key, never by appending text.
    if let (Some(a), Ok(mut p)) = (
        by_id("import-outage"),
        r.link.parse::<retry_model::Params>(),
    ) {
        if p.get("scenario").as_deref() != Some("outage") && p.set("scenario", "outage").is_ok() {
            let _ = a.set_attribute("href", &format!("?{p}"));
            set_hidden(&a, false);
        }
    }
    notes_beside(r);
    note_list("import-notes", notes(r));
}

/// Hides or shows the element `id`, if it is there.
fn set_hidden_id(id: &str, hidden: bool) {
    if let Some(e) = by_id(id) {
        set_hidden(&e, hidden);
    }
}

/// The format's name as the box's menu gives it.
fn format_name(format: &str) -> &str {
    match format {
        "grpc" => "a gRPC service config",
        "envoy" => "an Envoy route",
        "istio" => "an Istio VirtualService",
        "linkerd" => "Linkerd's annotations",
        "gateway-api" => "a Gateway API HTTPRoute",
        "resilience4j" => "a resilience4j instance",
        "polly" => "Polly options",
        "aws" => "the AWS SDK's settings",
        "tenacity" => "a tenacity policy",
        "spring-gateway" => "a Spring Cloud Gateway Retry filter",
        "layers" => "several files, stacked as layers",
        other => other,
    }
}

/// The box's status line; `bad` marks a refusal.
fn status(text: &str, bad: bool) {
    if let Some(s) = by_id("import-status") {
        s.set_text_content(Some(text));
        let _ = s.set_attribute("data-bad", if bad { "true" } else { "false" });
    }
}

/// A file picked, or dropped on the text, is read into the text; several are read to be
/// stacked as layers, in the order given.
fn file_inputs() -> Result<(), JsValue> {
    let on_pick = Closure::<dyn FnMut()>::new(|| {
        let files = by_id("import-file")
            .and_then(|e| e.dyn_into::<HtmlInputElement>().ok())
            .and_then(|i| i.files());
        if let Some(f) = files {
            read_files(&f);
        }
    });
    by_id("import-file")
        .ok_or("no #import-file")?
        .add_event_listener_with_callback("change", on_pick.as_ref().unchecked_ref())?;
    on_pick.forget(); // page-lifetime handler
    let on_drop = Closure::<dyn FnMut(web_sys::DragEvent)>::new(|e: web_sys::DragEvent| {
        if let Some(f) = e.data_transfer().and_then(|d| d.files()) {
            if f.length() > 0 {
                e.prevent_default();
                read_files(&f);
            }
        }
    });
    let text = by_id("import-text").ok_or("no #import-text")?;
    text.add_event_listener_with_callback("drop", on_drop.as_ref().unchecked_ref())?;
    on_drop.forget(); // page-lifetime handler
    let on_edit = Closure::<dyn FnMut()>::new(|| STACK.with(|s| s.borrow_mut().clear()));
    text.add_event_listener_with_callback("input", on_edit.as_ref().unchecked_ref())?;
    on_edit.forget(); // page-lifetime handler
    Ok(())
}

/// One file into the text; two to eight kept to be stacked, the first shown in the text.
fn read_files(files: &web_sys::FileList) {
    STACK.with(|s| s.borrow_mut().clear());
    let n = files.length();
    if n == 1 || n > 8 {
        if n > 8 {
            return status(
                &format!("Not imported: files: {n} files: a stack takes 2 to 8, outermost first"),
                true,
            );
        }
        if let Some(f) = files.get(0) {
            read_into_text(&f);
        }
        return;
    }
    let list: Vec<web_sys::File> = (0..n).filter_map(|i| files.get(i)).collect();
    if let Some(big) = list.iter().find(|f| f.size() > MAX_FILE) {
        return status(&format!("Not imported: {}: file: {} bytes is over the {MAX_FILE}-byte limit of a configuration", big.name(), big.size()), true);
    }
    let reads = js_sys::Array::new();
    for f in &list {
        reads.push(&f.text());
    }
    let names: Vec<String> = list.iter().map(web_sys::File::name).collect();
    let put = Closure::<dyn FnMut(JsValue)>::new(move |texts: JsValue| {
        let texts = js_sys::Array::from(&texts);
        let files: Vec<(String, String)> = names
            .iter()
            .cloned()
            .zip(texts.iter().map(|t| t.as_string().unwrap_or_default()))
            .collect();
        if let Some(t) = by_id("import-text").and_then(|e| e.dyn_into::<HtmlTextAreaElement>().ok())
        {
            t.set_value(files.first().map_or("", |f| f.1.as_str()));
        }
        status(
            &format!(
                "{} files read, to stack outermost first: {}. Press Import.",
                files.len(),
                names.join(", ")
            ),
            false,
        );
        STACK.with(|s| *s.borrow_mut() = files);
    });
    let _ = js_sys::Promise::all(&reads).then(&put);
    put.forget(); // one read, kept until it resolves
}

/// Reads `file` as text into the box, refusing one over the importer's 1 MB at once.
fn read_into_text(file: &web_sys::File) {
    if file.size() > MAX_FILE {
        return status(
            &format!(
                "Not imported: file: {} bytes is over the {MAX_FILE}-byte limit of a configuration",
                file.size()
            ),
            true,
        );
    }
    let put = Closure::<dyn FnMut(JsValue)>::new(|text: JsValue| {
        if let (Some(t), Some(s)) = (
            by_id("import-text").and_then(|e| e.dyn_into::<HtmlTextAreaElement>().ok()),
            text.as_string(),
        ) {
            t.set_value(&s);
            status("File read: press Import.", false);
        }
    });
    let _ = file.text().then(&put);
    put.forget(); // one read, kept until it resolves
}
