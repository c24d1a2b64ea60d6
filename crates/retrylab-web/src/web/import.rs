//! The Import box: a configuration pasted, dropped or picked as a file goes to the importer,
//! a worker of its own (`retrylab-import-web`) started the first time the box opens, so its
//! parsers never delay the first chart. Its link opens here, the same link `retrylab import`
//! prints, and its warnings and the fields it does not model stay listed under the box.

use super::*;
use web_sys::{HtmlTextAreaElement, MessageEvent, Worker};

/// The importer's script, as Trunk writes it beside the page.
const LOADER: &str = "./retrylab-import-web_loader.js";
/// The largest file read into the box: the importer's own limit (`retry_import::MAX_BYTES`,
/// which a test holds this to), so a huge file is refused before the page reads it.
const MAX_FILE: f64 = 1048576.0;

/// What the importer answers (`retrylab_import_web::Reply`), read field by field: a derived
/// `Deserialize` for these few fields cost the page's download more than the box's whole glue.
#[derive(Debug, Default)]
pub(super) struct Reply {
    pub(super) kind: String,
    pub(super) text: String,
    ok: bool,
    format: String,
    link: String,
    pub(super) warnings: Vec<Note>,
    unsupported: Vec<Note>,
    pub(super) error: String,
}

/// A field as written and one sentence about it (`retry_import::Note`).
#[derive(Debug, Default)]
pub(super) struct Note {
    field: String,
    text: String,
}

/// `v[key]` as text ("" when it is not).
fn text_of(v: &JsValue, key: &str) -> String {
    js_sys::Reflect::get(v, &key.into())
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_default()
}

/// `v[key]` as a list of notes.
fn notes_of(v: &JsValue, key: &str) -> Vec<Note> {
    let list = js_sys::Reflect::get(v, &key.into()).unwrap_or(JsValue::UNDEFINED);
    if !js_sys::Array::is_array(&list) {
        return Vec::new();
    }
    js_sys::Array::from(&list)
        .iter()
        .map(|n| Note {
            field: text_of(&n, "field"),
            text: text_of(&n, "text"),
        })
        .collect()
}

impl Reply {
    fn of(v: &JsValue) -> Reply {
        Reply {
            ok: js_sys::Reflect::get(v, &"ok".into())
                .ok()
                .and_then(|b| b.as_bool())
                .unwrap_or(false),
            kind: text_of(v, "kind"),
            text: text_of(v, "text"),
            format: text_of(v, "format"),
            link: text_of(v, "link"),
            warnings: notes_of(v, "warnings"),
            unsupported: notes_of(v, "unsupported"),
            error: text_of(v, "error"),
        }
    }
}

thread_local! {
    /// The importer, once started: one worker for the Import box and the Export menu.
    static WORKER: RefCell<Option<Worker>> = const { RefCell::new(None) };
    /// Whether the importer has said it is listening (its first message), and the request
    /// waiting for that, the latest only.
    static READY: RefCell<(bool, Option<JsValue>)> = const { RefCell::new((false, None)) };
}

/// The box's wiring: its worker started on first opening (or at once for `#import`), the
/// Import button, the file picker and a file dropped on the text.
pub(super) fn import_box(app: &Rc<RefCell<App>>) -> Result<(), JsValue> {
    let Some(details) = by_id("import") else {
        return Ok(());
    };
    {
        let app = app.clone();
        let on_toggle = Closure::<dyn FnMut()>::new(move || {
            if by_id("import").is_some_and(|d| d.has_attribute("open")) {
                ensure_worker(&app);
            }
        });
        details.add_event_listener_with_callback("toggle", on_toggle.as_ref().unchecked_ref())?;
        on_toggle.forget(); // page-lifetime handler
    }
    let hash = web_sys::window().and_then(|w| w.location().hash().ok());
    if hash.as_deref() == Some("#import") {
        // The browser scrolls to the box itself, as to any anchor.
        details.set_attribute("open", "")?;
    }
    {
        let app = app.clone();
        let on_go = Closure::<dyn FnMut()>::new(move || send(&app));
        by_id("import-go")
            .ok_or("no #import-go")?
            .add_event_listener_with_callback("click", on_go.as_ref().unchecked_ref())?;
        on_go.forget(); // page-lifetime handler
    }
    file_inputs()
}

/// Starts the importer once; its answers are shown as they come.
pub(super) fn ensure_worker(app: &Rc<RefCell<App>>) {
    if WORKER.with(|w| w.borrow().is_some()) {
        return;
    }
    let w = match Worker::new(LOADER) {
        Ok(w) => w,
        Err(_) => return status(UNAVAILABLE, true),
    };
    let app = app.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let reply = Reply::of(&e.data());
        if reply.kind == "ready" {
            let waiting = READY.with(|r| {
                let mut r = r.borrow_mut();
                r.0 = true;
                r.1.take()
            });
            if let Some(req) = waiting {
                post(&req);
            }
        } else if reply.kind == "export" {
            super::export::shown(&reply);
        } else {
            shown(&app, &reply);
        }
    });
    w.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget(); // the worker lives as long as the page
    let on_error = Closure::<dyn FnMut()>::new(|| status(UNAVAILABLE, true));
    w.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    WORKER.with(|slot| *slot.borrow_mut() = Some(w));
}

/// What the box says when the importer cannot start (the offline file has no importer).
const UNAVAILABLE: &str = "The importer could not start here (the single offline file does not include it): run `retrylab import FILE`, or open the lab's web page.";

/// Posts the box's text, format and method or route to the importer.
fn send(app: &Rc<RefCell<App>>) {
    ensure_worker(app);
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
    for (k, v) in [
        ("text", text),
        ("from", value("import-from")),
        ("pick", value("import-pick")),
    ] {
        let _ = js_sys::Reflect::set(&req, &k.into(), &v.into());
    }
    if post(&req) {
        status("Reading the configuration...", false);
    }
}

/// Posts `req` to the importer, if it started; whether it went.
pub(super) fn post(req: &JsValue) -> bool {
    WORKER.with(|w| {
        w.borrow()
            .as_ref()
            .is_some_and(|w| w.post_message(req).is_ok())
    })
}

/// The importer's answer: its link opened, its notes listed; or its one-line reason.
fn shown(app: &Rc<RefCell<App>>, r: &Reply) {
    if let Some(list) = by_id("import-notes") {
        list.set_inner_html("");
    }
    set_hidden_id("import-outage", true);
    if !r.ok {
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
        render(&mut a, true);
    }
    let count =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    status(
        &format!(
            "Imported from {}: the view now runs its policy. {} and {}, listed below.",
            format_name(&r.format),
            count(r.warnings.len(), "warning", "warnings"),
            count(
                r.unsupported.len(),
                "field not modelled",
                "fields not modelled"
            ),
        ),
        false,
    );
    if let Some(a) = by_id("import-outage") {
        let _ = a.set_attribute("href", &format!("?{}&scenario=outage", r.link));
        set_hidden(&a, false);
    }
    let notes = r.warnings.iter().map(|w| ("Warning", w));
    note_list(
        "import-notes",
        notes.chain(r.unsupported.iter().map(|u| ("Not modelled", u))),
    );
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
        other => other,
    }
}

/// Lists the notes under the box: each its kind, the field as written and its sentence.
pub(super) fn note_list<'n>(id: &str, notes: impl Iterator<Item = (&'static str, &'n Note)>) {
    let (Some(list), doc) = (by_id(id), document()) else {
        return;
    };
    for (kind, note) in notes {
        let parts = (
            doc.create_element("li"),
            doc.create_element("strong"),
            doc.create_element("code"),
        );
        let (Ok(li), Ok(b), Ok(field)) = parts else {
            continue;
        };
        b.set_text_content(Some(kind));
        field.set_text_content(Some(&note.field));
        let _ = li.append_child(&b);
        let _ = li.append_child(&field);
        let _ = li.append_with_str_1(&note.text);
        let _ = li.set_attribute("data-kind", kind);
        let _ = list.append_child(&li);
    }
}

/// The box's status line; `bad` marks a refusal.
fn status(text: &str, bad: bool) {
    if let Some(s) = by_id("import-status") {
        s.set_text_content(Some(text));
        let _ = s.set_attribute("data-bad", if bad { "true" } else { "false" });
    }
}

/// A file picked, or dropped on the text, is read into the text.
fn file_inputs() -> Result<(), JsValue> {
    let on_pick = Closure::<dyn FnMut()>::new(|| {
        let file = by_id("import-file")
            .and_then(|e| e.dyn_into::<HtmlInputElement>().ok())
            .and_then(|i| i.files())
            .and_then(|f| f.get(0));
        if let Some(f) = file {
            read_into_text(&f);
        }
    });
    by_id("import-file")
        .ok_or("no #import-file")?
        .add_event_listener_with_callback("change", on_pick.as_ref().unchecked_ref())?;
    on_pick.forget(); // page-lifetime handler
    let on_drop = Closure::<dyn FnMut(web_sys::DragEvent)>::new(|e: web_sys::DragEvent| {
        let file = e
            .data_transfer()
            .and_then(|d| d.files())
            .and_then(|f| f.get(0));
        if let Some(f) = file {
            e.prevent_default();
            read_into_text(&f);
        }
    });
    let text = by_id("import-text").ok_or("no #import-text")?;
    text.add_event_listener_with_callback("drop", on_drop.as_ref().unchecked_ref())?;
    on_drop.forget(); // page-lifetime handler
    Ok(())
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
