//! The importer as a worker: the page posts `{text, from, pick}` (the configuration, the format
//! or "" to detect it, and the gRPC method, the Envoy or Istio route, or the function or instance, or "") and gets back a
//! [`WorkerReply`], the same link, warnings and fields not modelled that `retrylab import` prints; or
//! `{export, link}` and gets the configuration `retrylab export` writes, with its notes; or
//! `{files: [[name, text], ...]}` and gets the `layers` link `retrylab import a b c` prints; or
//! `{tune_pool: "on", link}` and gets the policies a search kept to the link's `tune_format`
//! starts from.
//! It is a module of its own, loaded only when the page's Import box opens, so YAML and JSON
//! parsing add nothing to the page's first download.

#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// What the page asks.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct WorkerRequest {
    /// The configuration, as pasted or read from a file.
    pub text: String,
    /// The format's name, or "" to detect it.
    pub from: String,
    /// The gRPC method (`service/method`), the Envoy or Istio route's name, or the tenacity
    /// function's (or instance's) name, or "".
    pub pick: String,
    /// The format to write the link's policy as, for an export ("" for an import).
    pub export: String,
    /// The link to export.
    pub link: String,
    /// Several files to stack as layers, outermost first: each its name and its text.
    pub files: Vec<(String, String)>,
    /// The release whose rules to apply (`retrylab import --version`), or "" for the file's own.
    pub release: String,
    /// Non-empty: the policies a `tune=on` link (in `link`) searches, kept to its
    /// `tune_format` (the exporter decides, so this worker holds it).
    pub tune_pool: String,
}

/// What the page gets: the import, or the one-line reason it failed.
#[derive(Debug, Default, Serialize)]
pub struct WorkerReply {
    /// `import` or `export`: what was asked.
    pub kind: String,
    /// Whether the file was read (or the policy written).
    pub ok: bool,
    /// The configuration written, for an export.
    pub text: String,
    /// The format read.
    pub format: String,
    /// The link.
    pub link: String,
    /// Each warning: the field as written and one sentence.
    pub warnings: Vec<retry_import::Note>,
    /// Each field read but not modelled, and why.
    pub unsupported: Vec<retry_import::Note>,
    /// Each key the file does not write, with the default the link takes.
    pub defaults: Vec<retry_import::Note>,
    /// The release whose rules were applied (`Istio 1.24+`).
    pub release: String,
    /// Why the file was refused (`field: rule`), when it was.
    pub error: String,
}

/// Answers a request: an export when it names a format to write, else an import.
pub fn answer(req: &WorkerRequest) -> WorkerReply {
    if !req.tune_pool.is_empty() {
        return pool(req);
    }
    let reply = if req.export.is_empty() {
        import(req)
    } else {
        export(req)
    };
    in_page_words(reply)
}

/// A search's pool (`retry_import::pool_of`), one policy a line in `text`, as `retrylab tune`
/// draws it.
fn pool(req: &WorkerRequest) -> WorkerReply {
    let kind = String::from("tune_pool");
    match retry_import::pool_of(&req.link) {
        Ok(pool) => WorkerReply {
            kind,
            ok: true,
            text: pool.join("\n"),
            link: req.link.clone(),
            ..WorkerReply::default()
        },
        Err(error) => WorkerReply {
            kind,
            error,
            link: req.link.clone(),
            ..WorkerReply::default()
        },
    }
}

/// The reply with the CLI's options (`--route NAME`) named as the page's fields.
fn in_page_words(mut r: WorkerReply) -> WorkerReply {
    for n in r
        .warnings
        .iter_mut()
        .chain(&mut r.unsupported)
        .chain(&mut r.defaults)
    {
        n.field = retry_import::field_for_page(&n.field);
        n.text = retry_import::for_page(&n.text);
    }
    r.error = match r.error.split_once(": ") {
        Some((field, rule)) => format!(
            "{}: {}",
            retry_import::field_for_page(field),
            retry_import::for_page(rule)
        ),
        None => retry_import::for_page(&r.error),
    };
    r
}

/// Writes the link's policy, as `retrylab export` would; the notes come back as warnings.
fn export(req: &WorkerRequest) -> WorkerReply {
    match retry_import::export(&req.link, &req.export) {
        Ok(e) => WorkerReply {
            kind: String::from("export"),
            ok: true,
            format: e.format.to_string(),
            text: e.text,
            link: req.link.clone(),
            warnings: e.notes,
            ..WorkerReply::default()
        },
        Err(e) => WorkerReply {
            kind: String::from("export"),
            error: e.to_string(),
            ..WorkerReply::default()
        },
    }
}

/// Reads a request, as `retrylab import` would with the same options.
fn import(req: &WorkerRequest) -> WorkerReply {
    let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
    let from = some(&req.from);
    let opts = retry_import::Options {
        method: some(&req.pick).filter(|_| from.as_deref() == Some("grpc") || from.is_none()),
        route: some(&req.pick).filter(|_| from.as_deref() != Some("grpc")),
        instance: some(&req.pick).filter(|_| from.as_deref() != Some("grpc")),
        release: some(&req.release),
        from,
    };
    if !req.files.is_empty() {
        return stacked(req, &opts);
    }
    match retry_import::import(req.text.as_bytes(), &opts) {
        Ok(i) => WorkerReply {
            kind: String::from("import"),
            ok: true,
            format: i.format.to_string(),
            link: i.link,
            warnings: i.warnings,
            unsupported: i.unsupported,
            defaults: i.defaults,
            release: i.release,
            ..WorkerReply::default()
        },
        Err(e) => WorkerReply {
            kind: String::from("import"),
            error: e.to_string(),
            ..WorkerReply::default()
        },
    }
}

/// Stacks several files, as `retrylab import a b c` does.
fn stacked(req: &WorkerRequest, opts: &retry_import::Options) -> WorkerReply {
    let files: Vec<(String, Vec<u8>)> = req
        .files
        .iter()
        .map(|(name, text)| (name.clone(), text.as_bytes().to_vec()))
        .collect();
    match retry_import::stack(&files, opts) {
        Ok(s) => WorkerReply {
            kind: String::from("import"),
            ok: true,
            format: String::from("layers"),
            link: s.link,
            warnings: s.warnings,
            unsupported: s.unsupported,
            defaults: s.defaults,
            ..WorkerReply::default()
        },
        Err(e) => WorkerReply {
            kind: String::from("import"),
            error: e.to_string(),
            ..WorkerReply::default()
        },
    }
}

/// Starts the worker: every message is a [`WorkerRequest`], answered with a [`WorkerReply`].
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply_to = scope.clone();
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            let reply = match serde_wasm_bindgen::from_value::<WorkerRequest>(e.data()) {
                Ok(req) => answer(&req),
                Err(err) => WorkerReply {
                    error: format!("message: not an import request ({err})"),
                    ..WorkerReply::default()
                },
            };
            if let Ok(v) = serde_wasm_bindgen::to_value(&reply) {
                let _ = reply_to.post_message(&v);
            }
        });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget(); // the worker's lifetime
                         // A message posted before this handler was set was lost: the page waits for this one.
    let ready = WorkerReply {
        kind: String::from("ready"),
        ok: true,
        ..WorkerReply::default()
    };
    if let Ok(v) = serde_wasm_bindgen::to_value(&ready) {
        let _ = scope.post_message(&v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page refuses a file before reading it at the importer's own limit.
    #[test]
    fn the_pages_file_limit_is_the_importers() {
        let glue = include_str!("../../retrylab-web/src/web/import.rs");
        let line = format!("const MAX_FILE: f64 = {}.0;", retry_import::MAX_BYTES);
        assert!(glue.contains(&line), "{line}");
    }

    /// The page's format menus offer every format the importer reads and writes, by name.
    #[test]
    fn the_pages_format_menus_are_the_importers() {
        let page = include_str!("../../../www/index.html");
        assert_eq!(menu(page, "import-from"), retry_import::FORMATS);
        // The export menu groups its formats by kind: each once, in any order.
        let mut offered = menu(page, "export-to");
        offered.sort_unstable();
        let mut written = retry_import::EXPORT_FORMATS.to_vec();
        written.sort_unstable();
        assert_eq!(offered, written);
    }

    /// The values of the page's `<select id="ID">`, the empty one left out.
    fn menu<'p>(page: &'p str, id: &str) -> Vec<&'p str> {
        let menu = &page[page.find(&format!("<select id=\"{id}\">")).unwrap()..];
        let menu = &menu[..menu.find("</select>").unwrap()];
        let values: Vec<&str> = menu
            .split("value=\"")
            .skip(1)
            .map(|v| &v[..v.find('"').unwrap()])
            .filter(|v| !v.is_empty())
            .collect();
        values
    }

    #[test]
    fn an_export_is_the_clis() {
        let req = WorkerRequest {
            export: "envoy".into(),
            link: "preset=envoy".into(),
            ..WorkerRequest::default()
        };
        let r = answer(&req);
        let cli = retry_import::export("preset=envoy", "envoy").unwrap();
        assert!(r.ok && r.kind == "export" && r.text == cli.text, "{r:?}");
        assert_eq!(r.warnings, cli.notes);
        let r = answer(&WorkerRequest {
            export: "grpc".into(),
            link: "backoff=decorrelated".into(),
            ..WorkerRequest::default()
        });
        assert!(!r.ok && r.error.starts_with("backoff: "), "{r:?}");
    }

    #[test]
    fn a_request_is_answered_as_the_cli_answers_it() {
        let text = "route:\n  retry_policy:\n    retry_on: 5xx\n    num_retries: 2\n";
        let r = answer(&WorkerRequest {
            text: text.into(),
            ..WorkerRequest::default()
        });
        assert!(r.ok && r.format == "envoy", "{r:?}");
        let cli = retry_import::import(text.as_bytes(), &retry_import::Options::default()).unwrap();
        assert_eq!(r.link, cli.link);
        assert_eq!(r.warnings, cli.warnings);
        assert_eq!(r.unsupported, cli.unsupported);
        let r = answer(&WorkerRequest {
            text: "route: [".into(),
            from: "envoy".into(),
            ..WorkerRequest::default()
        });
        assert!(!r.ok && r.error.starts_with("line "), "{r:?}");
        let r = answer(&WorkerRequest {
            text: "{}".into(),
            from: "grpc".into(),
            pick: "a.B/c".into(),
            ..WorkerRequest::default()
        });
        assert!(r.error.starts_with("methodConfig: "), "{r:?}");
        let two = "routes:\n- name: a\n  route: {retry_policy: {retry_on: 5xx}}\n- name: b\n  route: {retry_policy: {retry_on: 5xx, num_retries: 4}}\n";
        let r = answer(&WorkerRequest {
            text: two.into(),
            from: String::new(),
            pick: "b".into(),
            ..WorkerRequest::default()
        });
        assert!(r.link.contains("attempts=5"), "{r:?}");
        // The page names its own fields where the CLI names its options.
        let r = answer(&WorkerRequest {
            text: two.into(),
            ..WorkerRequest::default()
        });
        let w = r
            .warnings
            .iter()
            .find(|w| w.text.contains("took the first"))
            .unwrap();
        assert!(
            w.text.ends_with("in the \"Method, route or name\" field"),
            "{w:?}"
        );
        let r = answer(&WorkerRequest {
            text: text.into(),
            pick: "nope".into(),
            ..WorkerRequest::default()
        });
        assert!(r.error.starts_with("Method, route or name: "), "{r:?}");
    }
}
