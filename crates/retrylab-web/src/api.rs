//! The JavaScript API: `window.retrylab` on the page (a student scripts an exercise in the
//! browser console) and the ES module `dist/retrylab.mjs` (Node, notebooks).
//!
//! Every function takes a link (a query string, or a plain object of link keys such as
//! `{preset: "payments-none", seed: 7}`) and returns plain JavaScript objects made by
//! serde-wasm-bindgen from the same documents `retrylab ... --format json` prints
//! (`retry_model::json`), so their field names and values are the CLI's. Bad input throws
//! (or, for a run, rejects) with an `Error` whose message is the CLI's one-line message. The
//! runs (`run`, `compare`, `sweep`) return Promises and run in Web Workers (`api_runs`).
//!
//! This file turns JavaScript values into link text and documents into JavaScript values; the
//! link text itself is made by [`query_of`], which native tests check.

use retry_model::MAX_LINK_LEN;

/// A link key's value as JavaScript gives it.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    /// A string, used as it is.
    Text(String),
    /// A number, written as the link writes numbers (`7`, `0.5`).
    Number(f64),
    /// `true` or `false`.
    Flag(bool),
}

/// Percent-encodes what would end a key or value in a query (`&`, `=`, `#`, `%`, spaces and
/// anything outside plain ASCII), so every value reaches the link's parser whole.
fn encode(out: &mut String, s: &str) {
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~,:/*".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

/// The link text of an object's keys: `k=v&k=v`, each value encoded; a number that is not
/// finite is refused, naming its key, and so is a link longer than the parser reads.
pub fn query_of(pairs: &[(String, Scalar)]) -> Result<String, String> {
    let mut q = String::new();
    for (k, v) in pairs {
        if !q.is_empty() {
            q.push('&');
        }
        encode(&mut q, k);
        q.push('=');
        match v {
            Scalar::Text(s) => encode(&mut q, s),
            Scalar::Number(x) if !x.is_finite() => {
                return Err(format!("{k}: '{x}' is not a finite number"))
            }
            Scalar::Number(x) => q.push_str(&format!("{x}")),
            Scalar::Flag(b) => q.push_str(if *b { "true" } else { "false" }),
        }
        if q.len() > MAX_LINK_LEN {
            return Err(format!(
                "link: longer than {MAX_LINK_LEN} bytes (at key '{}')",
                k.chars().take(40).collect::<String>()
            ));
        }
    }
    Ok(q)
}

#[cfg(target_arch = "wasm32")]
pub use wasm::*;

#[cfg(target_arch = "wasm32")]
mod wasm {
    use super::{query_of, Scalar};
    use retry_model::json::{self, inputs};
    use serde::Serialize;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;

    /// An `Error` with the CLI's one-line message.
    pub(crate) fn error(msg: &str) -> JsValue {
        js_sys::Error::new(msg).into()
    }

    /// A document as plain JavaScript objects (maps as objects, `None` as `null`).
    pub(crate) fn to_js<T: Serialize>(doc: &T) -> Result<JsValue, JsValue> {
        doc.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
            .map_err(|e| error(&format!("result: {e}")))
    }

    fn kind_of(v: &JsValue) -> String {
        if v.is_null() {
            "null".into()
        } else if js_sys::Array::is_array(v) {
            "an array".into()
        } else if v.is_object() && !v.is_function() && !is_plain(v) {
            // A Map, a Date, a boxed number: named by its constructor.
            let name = js_sys::Reflect::get(v, &"constructor".into())
                .ok()
                .and_then(|c| js_sys::Reflect::get(&c, &"name".into()).ok())
                .and_then(|n| n.as_string())
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| "object".into());
            format!("a {name}")
        } else if v.is_object() && !v.is_function() {
            "an object".into()
        } else {
            format!("a {}", v.js_typeof().as_string().unwrap_or_default())
        }
    }

    /// Whether `v` is a plain object (`{...}`, or one made with no prototype): a `Map`, a
    /// `Date` or a boxed number is an object too, but its keys are not the link's.
    fn is_plain(v: &JsValue) -> bool {
        if !v.is_object() || js_sys::Array::is_array(v) || v.is_function() {
            return false;
        }
        let proto = js_sys::Object::get_prototype_of(v);
        let object = js_sys::Object::get_prototype_of(&js_sys::Object::new());
        proto.is_null() || js_sys::Object::is(&proto, &object)
    }

    /// One value of a link object.
    fn scalar(key: &str, v: &JsValue) -> Result<Scalar, String> {
        if let Some(s) = v.as_string() {
            Ok(Scalar::Text(s))
        } else if let Some(x) = v.as_f64() {
            Ok(Scalar::Number(x))
        } else if let Some(b) = v.as_bool() {
            Ok(Scalar::Flag(b))
        } else {
            let key: String = key.chars().take(40).collect();
            Err(format!(
                "{key}: expected a string, a number or true/false, not {}",
                kind_of(v)
            ))
        }
    }

    /// A link from JavaScript: a query string as it is, or a plain object's own keys.
    pub(crate) fn link_text(v: &JsValue) -> Result<String, String> {
        if let Some(s) = v.as_string() {
            return Ok(s);
        }
        if !is_plain(v) {
            return Err(format!(
                "link: expected a link (a query string) or an object of link keys, not {}",
                kind_of(v)
            ));
        }
        let mut pairs = Vec::new();
        // Key by key, so that a getter that throws is named by its key.
        for key in js_sys::Object::keys(v.unchecked_ref::<js_sys::Object>()).iter() {
            let name = key.as_string().unwrap_or_default();
            let value = js_sys::Reflect::get(v, &key).map_err(|e| {
                let why = e
                    .dyn_ref::<js_sys::Error>()
                    .map(|e| String::from(e.message()))
                    .or_else(|| e.as_string())
                    .unwrap_or_else(|| "an exception".into());
                let short: String = name.chars().take(40).collect();
                let why: String = why.chars().take(80).collect();
                format!("{short}: reading the value threw: {why}")
            })?;
            pairs.push((name.clone(), scalar(&name, &value)?));
        }
        query_of(&pairs)
    }

    /// An optional argument given as a string or a number (`clients`, `p`).
    fn optional_text(name: &str, v: &JsValue) -> Result<Option<String>, String> {
        if v.is_undefined() || v.is_null() {
            return Ok(None);
        }
        match scalar(name, v)? {
            Scalar::Text(s) => Ok(Some(s)),
            Scalar::Number(x) => Ok(Some(format!("{x}"))),
            Scalar::Flag(b) => Err(format!("{name}: expected a number, not {b}")),
        }
    }

    /// `retrylab explain --format json`.
    #[wasm_bindgen(js_name = explain)]
    pub fn api_explain(link: JsValue) -> Result<JsValue, JsValue> {
        let q = link_text(&link).map_err(|e| error(&e))?;
        let (p, t) = inputs::explain_of(&q).map_err(|e| error(&e))?;
        to_js(&json::Explain::new(&p, &t))
    }

    /// `retrylab schedule --format json [--clients N]`.
    #[wasm_bindgen(js_name = schedule)]
    pub fn api_schedule(link: JsValue, clients: JsValue) -> Result<JsValue, JsValue> {
        let q = link_text(&link).map_err(|e| error(&e))?;
        let clients = optional_text("--clients", &clients).map_err(|e| error(&e))?;
        let (p, s) = inputs::schedule_of(&q, clients.as_deref()).map_err(|e| error(&e))?;
        to_js(&json::ScheduleDoc::new(&p, &s))
    }

    /// `retrylab amplify 3,3,3 --format json [--p P]`; the layers as `"3,3,3"` or `[3, 3, 3]`.
    #[wasm_bindgen(js_name = amplify)]
    pub fn api_amplify(layers: JsValue, p: JsValue) -> Result<JsValue, JsValue> {
        let text = if js_sys::Array::is_array(&layers) {
            let a: js_sys::Array = layers.unchecked_into();
            let parts: Vec<String> = a
                .iter()
                .map(|v| v.as_f64().map_or_else(|| "?".into(), |x| format!("{x}")))
                .collect();
            parts.join(",")
        } else {
            optional_text("layers", &layers)
                .map_err(|e| error(&e))?
                .unwrap_or_default()
        };
        let p = optional_text("--p", &p).map_err(|e| error(&e))?;
        let r = inputs::amplify_of(&text, p.as_deref()).map_err(|e| error(&e))?;
        to_js(&json::AmplifyDoc::new(&r))
    }

    /// `retrylab analyze --format json`: the analytic twin of a queue-server link, solved on
    /// the calling thread (tens of milliseconds for the lessons' chains of about 2,000 states).
    #[wasm_bindgen(js_name = analyze)]
    pub fn api_analyze(link: JsValue) -> Result<JsValue, JsValue> {
        let q = link_text(&link).map_err(|e| error(&e))?;
        let p = inputs::params(&q).map_err(|e| error(&e))?;
        let a = retry_model::analyze(&p).map_err(|e| error(&e.to_string()))?;
        to_js(&json::AnalyzeDoc::new(&p, &a))
    }

    /// `retrylab keys --format json`.
    #[wasm_bindgen(js_name = keys)]
    pub fn api_keys() -> Result<JsValue, JsValue> {
        to_js(&json::keys())
    }

    /// `retrylab presets --format json`.
    #[wasm_bindgen(js_name = presets)]
    pub fn api_presets() -> Result<JsValue, JsValue> {
        to_js(&json::presets())
    }

    /// `retrylab lessons --format json`.
    #[wasm_bindgen(js_name = lessons)]
    pub fn api_lessons() -> Result<JsValue, JsValue> {
        to_js(&json::lessons())
    }

    /// The canonical form of a link (`retrylab link`), without the newline.
    #[wasm_bindgen(js_name = link)]
    pub fn api_link(link: JsValue) -> Result<String, JsValue> {
        let q = link_text(&link).map_err(|e| error(&e))?;
        inputs::params(&q)
            .map(|p| p.to_string())
            .map_err(|e| error(&e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(k: &str, v: &str) -> (String, Scalar) {
        (k.to_string(), Scalar::Text(v.to_string()))
    }

    #[test]
    fn an_object_becomes_the_link_its_keys_say() {
        let q = query_of(&[
            text("preset", "layers-333"),
            ("seed".into(), Scalar::Number(7.0)),
            ("p".into(), Scalar::Number(0.5)),
            ("idempotent".into(), Scalar::Flag(true)),
        ])
        .unwrap();
        assert_eq!(q, "preset=layers-333&seed=7&p=0.5&idempotent=true");
        let p: retry_model::Params = q.parse().unwrap();
        assert_eq!(p.seed, 7);
    }

    #[test]
    fn a_value_cannot_smuggle_in_another_key() {
        let q = query_of(&[text("preset", "chapter&attempts=9")]).unwrap();
        assert_eq!(q, "preset=chapter%26attempts%3D9");
        let e = q.parse::<retry_model::Params>().unwrap_err();
        assert_eq!(e.field, "preset", "one value, refused whole: {e}");
        let e = query_of(&[text("__proto__", "x")])
            .unwrap()
            .parse::<retry_model::Params>()
            .unwrap_err();
        assert!(e.to_string().contains("unknown key '__proto__'"), "{e}");
    }

    #[test]
    fn hostile_values_are_named() {
        let e = query_of(&[("seed".into(), Scalar::Number(f64::NAN))]).unwrap_err();
        assert!(e.starts_with("seed: "), "{e}");
        let huge = "9".repeat(MAX_LINK_LEN + 1);
        let e = query_of(&[text("seed", &huge)]).unwrap_err();
        assert!(e.starts_with("link: longer than"), "{e}");
    }
}
