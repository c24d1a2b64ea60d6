//! The importer as a worker: the page posts `{text, from, pick}` (the configuration, the format
//! or "" to detect it, and the gRPC method or Envoy/Istio route or "") and gets back a
//! [`Reply`], the same link, warnings and fields not modelled that `retrylab import` prints.
//! It is a module of its own, loaded only when the page's Import box opens, so YAML and JSON
//! parsing add nothing to the page's first download.

#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// What the page asks.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Request {
    /// The configuration, as pasted or read from a file.
    pub text: String,
    /// The format's name, or "" to detect it.
    pub from: String,
    /// The gRPC method (`service/method`) or the Envoy or Istio route's name, or "".
    pub pick: String,
}

/// What the page gets: the import, or the one-line reason it failed.
#[derive(Debug, Default, Serialize)]
pub struct Reply {
    /// Whether the file was read.
    pub ok: bool,
    /// The format read.
    pub format: String,
    /// The link.
    pub link: String,
    /// Each warning: the field as written and one sentence.
    pub warnings: Vec<retry_import::Note>,
    /// Each field read but not modelled, and why.
    pub unsupported: Vec<retry_import::Note>,
    /// Why the file was refused (`field: rule`), when it was.
    pub error: String,
}

/// Reads a request, as `retrylab import` would with the same options.
pub fn answer(req: &Request) -> Reply {
    let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
    let from = some(&req.from);
    let opts = retry_import::Options {
        method: some(&req.pick).filter(|_| from.as_deref() == Some("grpc") || from.is_none()),
        route: some(&req.pick).filter(|_| from.as_deref() != Some("grpc")),
        from,
    };
    match retry_import::import(req.text.as_bytes(), &opts) {
        Ok(i) => Reply {
            ok: true,
            format: i.format.to_string(),
            link: i.link,
            warnings: i.warnings,
            unsupported: i.unsupported,
            error: String::new(),
        },
        Err(e) => Reply {
            error: e.to_string(),
            ..Reply::default()
        },
    }
}

/// Starts the worker: every message is a [`Request`], answered with a [`Reply`].
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply_to = scope.clone();
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            let reply = match serde_wasm_bindgen::from_value::<Request>(e.data()) {
                Ok(req) => answer(&req),
                Err(err) => Reply {
                    error: format!("message: not an import request ({err})"),
                    ..Reply::default()
                },
            };
            if let Ok(v) = serde_wasm_bindgen::to_value(&reply) {
                let _ = reply_to.post_message(&v);
            }
        });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget(); // the worker's lifetime
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

    /// The page's format menu offers every format the importer reads, by its name.
    #[test]
    fn the_pages_format_menu_is_the_importers() {
        let page = include_str!("../../../www/index.html");
        let menu = &page[page.find("<select id=\"import-from\">").unwrap()..];
        let menu = &menu[..menu.find("</select>").unwrap()];
        let values: Vec<&str> = menu
            .split("value=\"")
            .skip(1)
            .map(|v| &v[..v.find('"').unwrap()])
            .filter(|v| !v.is_empty())
            .collect();
        assert_eq!(values, retry_import::FORMATS);
    }

    #[test]
    fn a_request_is_answered_as_the_cli_answers_it() {
        let text = "route:\n  retry_policy:\n    retry_on: 5xx\n    num_retries: 2\n";
        let r = answer(&Request {
            text: text.into(),
            ..Request::default()
        });
        assert!(r.ok && r.format == "envoy", "{r:?}");
        let cli = retry_import::import(text.as_bytes(), &retry_import::Options::default()).unwrap();
        assert_eq!(r.link, cli.link);
        assert_eq!(r.warnings, cli.warnings);
        assert_eq!(r.unsupported, cli.unsupported);
        let r = answer(&Request {
            text: "route: [".into(),
            from: "envoy".into(),
            pick: String::new(),
        });
        assert!(!r.ok && r.error.starts_with("line "), "{r:?}");
        let r = answer(&Request {
            text: "{}".into(),
            from: "grpc".into(),
            pick: "a.B/c".into(),
        });
        assert!(r.error.starts_with("methodConfig: "), "{r:?}");
        let two = "routes:\n- name: a\n  route: {retry_policy: {retry_on: 5xx}}\n- name: b\n  route: {retry_policy: {retry_on: 5xx, num_retries: 4}}\n";
        let r = answer(&Request {
            text: two.into(),
            from: String::new(),
            pick: "b".into(),
        });
        assert!(r.link.contains("attempts=5"), "{r:?}");
    }
}
