//! The importer's worker (`retrylab-import-web`), shared by the Import box and the Export menu:
//! started the first time either needs it, so its parsers never delay the first chart. Its
//! answers go to the handler registered for their kind; a request made before the worker says
//! it is listening waits for that.

use super::*;
use web_sys::{MessageEvent, Worker};

/// The importer's script, as Trunk writes it beside the page.
const LOADER: &str = "./retrylab-import-web_loader.js";

/// What the page says when the importer cannot start (the offline file has no importer).
const UNAVAILABLE: &str = "the importer could not start here (the single offline file does not include it): run `retrylab import FILE` or `retrylab export`, or open the lab's web page";

/// A handler of the importer's answers of one kind.
type Handler = Box<dyn Fn(&ImportReply)>;

thread_local! {
    /// The importer, once started.
    static WORKER: RefCell<Option<Worker>> = const { RefCell::new(None) };
    /// Whether the importer has said it is listening (its first message), and the request
    /// waiting for that, the latest only.
    static READY: RefCell<(bool, Option<JsValue>)> = const { RefCell::new((false, None)) };
    /// The handlers, by the kind of answer they take (`import`, `export`).
    static HANDLERS: RefCell<Vec<(&'static str, Handler)>> = const { RefCell::new(Vec::new()) };
}

/// Registers `handler` for the importer's answers of `kind`.
pub(super) fn on_reply(kind: &'static str, handler: Handler) {
    HANDLERS.with(|h| h.borrow_mut().push((kind, handler)));
}

/// Gives `r` to the handlers of its kind, or to every handler when it has none (a failure to
/// start concerns them all).
fn dispatch(r: &ImportReply) {
    HANDLERS.with(|h| {
        for (kind, handler) in h.borrow().iter() {
            if r.kind.is_empty() || *kind == r.kind {
                handler(r);
            }
        }
    });
}

/// Starts the importer once.
pub(super) fn ensure_worker() {
    if WORKER.with(|w| w.borrow().is_some()) {
        return;
    }
    let failed = || {
        dispatch(&ImportReply {
            error: String::from(UNAVAILABLE),
            ..ImportReply::default()
        })
    };
    let Ok(w) = Worker::new(LOADER) else {
        return failed();
    };
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|e: MessageEvent| {
        let reply = ImportReply::of(&e.data());
        if reply.kind != "ready" {
            return dispatch(&reply);
        }
        let waiting = READY.with(|r| {
            let mut r = r.borrow_mut();
            r.0 = true;
            r.1.take()
        });
        if let Some(req) = waiting {
            post(&req);
        }
    });
    w.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget(); // the worker lives as long as the page
    let on_error = Closure::<dyn FnMut()>::new(failed);
    w.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    WORKER.with(|slot| *slot.borrow_mut() = Some(w));
}

/// Posts `req` to the importer, or keeps it until the importer is listening; whether the
/// importer started.
pub(super) fn post(req: &JsValue) -> bool {
    let ready = READY.with(|r| {
        let mut r = r.borrow_mut();
        if !r.0 {
            r.1 = Some(req.clone());
        }
        r.0
    });
    WORKER.with(|w| {
        w.borrow()
            .as_ref()
            .is_some_and(|w| !ready || w.post_message(req).is_ok())
    })
}

/// What the importer answers (`retrylab_import_web::Reply`), read field by field: a derived
/// `Deserialize` for these few fields cost the page's download more than the box's whole glue.
#[derive(Debug, Default)]
pub(crate) struct ImportReply {
    pub(super) kind: String,
    pub(super) text: String,
    pub(super) ok: bool,
    pub(super) format: String,
    pub(super) link: String,
    pub(super) warnings: Vec<ImportNote>,
    pub(super) unsupported: Vec<ImportNote>,
    pub(super) defaults: Vec<ImportNote>,
    pub(super) release: String,
    pub(super) error: String,
}

/// A field as written and one sentence about it (`retry_import::Note`).
#[derive(Debug, Default)]
pub(super) struct ImportNote {
    pub(super) field: String,
    pub(super) text: String,
    /// The link key the field becomes, or "".
    pub(super) key: String,
}

/// `v[key]` as text ("" when it is not).
fn text_of(v: &JsValue, key: &str) -> String {
    js_sys::Reflect::get(v, &key.into())
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_default()
}

/// `v[key]` as a list of notes.
fn notes_of(v: &JsValue, key: &str) -> Vec<ImportNote> {
    let list = js_sys::Reflect::get(v, &key.into()).unwrap_or(JsValue::UNDEFINED);
    if !js_sys::Array::is_array(&list) {
        return Vec::new();
    }
    js_sys::Array::from(&list)
        .iter()
        .map(|n| ImportNote {
            field: text_of(&n, "field"),
            text: text_of(&n, "text"),
            key: text_of(&n, "key"),
        })
        .collect()
}

impl ImportReply {
    fn of(v: &JsValue) -> ImportReply {
        ImportReply {
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
            defaults: notes_of(v, "defaults"),
            release: text_of(v, "release"),
            error: text_of(v, "error"),
        }
    }
}

/// Every note of a reply with its kind, in the order `retrylab import` prints them.
pub(super) fn notes(r: &ImportReply) -> impl Iterator<Item = (&'static str, &ImportNote)> {
    let warnings = r.warnings.iter().map(|w| ("Warning", w));
    let unsupported = r.unsupported.iter().map(|u| ("Not modelled", u));
    warnings
        .chain(unsupported)
        .chain(r.defaults.iter().map(|d| ("Default", d)))
}

/// Lists the notes under the box: each its kind, the field as written and its sentence.
pub(super) fn note_list<'n>(id: &str, notes: impl Iterator<Item = (&'static str, &'n ImportNote)>) {
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
