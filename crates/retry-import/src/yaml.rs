//! YAML documents read into JSON values, so each format's reader walks one kind of tree.
//! `serde_yaml_ng` keeps its parser's limits: nesting deeper than 128 and aliases that expand
//! without bound are refused, and a mapping with a key twice is an error, not a silent
//! overwrite.

use crate::ImportError;
use serde::Deserialize;
use serde_json::{Map, Number, Value};
use serde_yaml_ng::Value as Yaml;

/// Every document in `text` (YAML, or JSON, which YAML reads too), in order.
pub(crate) fn documents(text: &str) -> Result<Vec<Value>, ImportError> {
    let mut docs = Vec::new();
    for doc in serde_yaml_ng::Deserializer::from_str(text) {
        let yaml = Yaml::deserialize(doc).map_err(|e| {
            let at = e
                .location()
                .map_or_else(|| String::from("file"), |l| format!("line {}", l.line()));
            let why = e.to_string().replace('\n', " ");
            ImportError::new(at, format!("not YAML the importer reads: {why}"))
        })?;
        if !yaml.is_null() {
            docs.push(json(yaml, "")?);
        }
    }
    Ok(docs)
}

/// How the readers name document `i` (from 0) of `count` in a field's path: `document 2`, or
/// nothing when the file holds one.
pub(crate) fn document_name(i: usize, count: usize) -> String {
    if count > 1 {
        format!("document {}", i + 1)
    } else {
        String::new()
    }
}

/// A YAML value as JSON: mapping keys must be strings, numbers or booleans (written as text),
/// numbers finite, and tags are refused. `at`: its path, for errors.
fn json(v: Yaml, at: &str) -> Result<Value, ImportError> {
    let field = || {
        if at.is_empty() {
            String::from("file")
        } else {
            at.to_string()
        }
    };
    Ok(match v {
        Yaml::Null => Value::Null,
        Yaml::Bool(b) => Value::Bool(b),
        Yaml::Number(n) => {
            let num = if let Some(u) = n.as_u64() {
                Some(Number::from(u))
            } else if let Some(i) = n.as_i64() {
                Some(Number::from(i))
            } else {
                n.as_f64().and_then(Number::from_f64)
            };
            Value::Number(
                num.ok_or_else(|| ImportError::new(field(), "a number that is not finite"))?,
            )
        }
        Yaml::String(s) => Value::String(s),
        Yaml::Sequence(list) => Value::Array(
            list.into_iter()
                .enumerate()
                .map(|(i, v)| json(v, &format!("{at}[{i}]")))
                .collect::<Result<_, _>>()?,
        ),
        Yaml::Mapping(m) => {
            let mut out = Map::new();
            for (k, v) in m {
                let key = match k {
                    Yaml::String(s) => s,
                    Yaml::Number(n) => n.to_string(),
                    Yaml::Bool(b) => b.to_string(),
                    Yaml::Null | Yaml::Sequence(_) | Yaml::Mapping(_) | Yaml::Tagged(_) => {
                        return Err(ImportError::new(
                            field(),
                            "a mapping key that is not text, a number or true/false",
                        ))
                    }
                };
                let path = if at.is_empty() {
                    key.clone()
                } else {
                    format!("{at}.{key}")
                };
                let value = json(v, &path)?;
                out.insert(key, value);
            }
            Value::Object(out)
        }
        Yaml::Tagged(t) => {
            return Err(ImportError::new(
                field(),
                format!(
                    "a YAML tag ({}) is not read",
                    crate::short(&t.tag.to_string())
                ),
            ))
        }
    })
}
