//! YAML documents read into JSON values, so each format's reader walks one kind of tree.
//! A mapping with a key twice is an error, not a silent overwrite. Hostile files are bounded
//! before anything is built: flow nesting past 128 is refused by a linear scan of the text
//! (the parser's own scanner slows down with it), and a first pass counts what the documents
//! expand to, aliases replayed, refusing past [`MAX_EXPANDED`] before the tree is made.

use crate::ImportError;
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Number, Value};
use serde_yaml_ng::Value as Yaml;
use std::cell::Cell;

/// The most the documents may expand to, aliases replayed: about the bytes of the tree built
/// (32 a node, and each string's length), so any file under the 1 MB cap is read in bounded
/// memory whatever its anchors.
pub(crate) const MAX_EXPANDED: u64 = 32 << 20;

/// The deepest flow nesting (`[` and `{`) read.
const MAX_FLOW_DEPTH: usize = 128;

/// Refuses flow nesting past [`MAX_FLOW_DEPTH`], in one pass over the text (brackets inside
/// quotes and comments aside; a quote is taken to end with its line, so a bound, not a parse).
fn flow_depth(text: &str) -> Result<(), ImportError> {
    let (mut depth, mut quote, mut comment, mut line) = (0usize, None, false, 1usize);
    let mut prev = ' ';
    for c in text.chars() {
        match (quote, c) {
            (_, '\n') => {
                (comment, quote) = (false, None);
                line += 1;
            }
            _ if comment => {}
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            // A quote opens a scalar only where a token starts (not in `don't`).
            (None, '"' | '\'') if prev.is_whitespace() || "[{,:".contains(prev) => {
                quote = Some(c);
            }
            (None, '#') if prev.is_whitespace() => comment = true,
            (None, '[' | '{') => {
                depth += 1;
                if depth > MAX_FLOW_DEPTH {
                    return Err(ImportError::new(
                        format!("line {line}"),
                        format!("not YAML the importer reads: nested deeper than {MAX_FLOW_DEPTH}"),
                    ));
                }
            }
            (None, ']' | '}') => depth = depth.saturating_sub(1),
            (None, _) => {}
        }
        prev = c;
    }
    Ok(())
}

/// A pass that builds nothing and counts what a document expands to, stopping past the limit.
#[derive(Clone, Copy)]
struct Count<'b>(&'b Cell<u64>);

impl Count<'_> {
    fn add<E: serde::de::Error>(self, n: u64) -> Result<(), E> {
        let total = self.0.get().saturating_add(n);
        self.0.set(total);
        if total > MAX_EXPANDED {
            return Err(E::custom(format!(
                "its aliases expand past {} MiB",
                MAX_EXPANDED >> 20
            )));
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Count<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Count<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a YAML document")
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        self.add(32)
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        self.add(32)
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        self.add(32)
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        self.add(32)
    }
    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<(), E> {
        self.add(32 + s.len() as u64)
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.add(32)
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        self.add(32)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.add(32)?;
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.add(32)?;
        while map.next_key_seed(self)?.is_some() {
            map.next_value_seed(self)?;
        }
        Ok(())
    }
    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, e: A) -> Result<(), A::Error> {
        // A tagged value: counted here, refused when the tree is built.
        let ((), v) = e.variant_seed(self)?;
        serde::de::VariantAccess::newtype_variant_seed(v, self)
    }
}

/// The error for a document that does not read, at its line.
fn not_yaml(e: &serde_yaml_ng::Error) -> ImportError {
    let at = e
        .location()
        .map_or_else(|| String::from("file"), |l| format!("line {}", l.line()));
    let why = e.to_string().replace('\n', " ");
    ImportError::new(at, format!("not YAML the importer reads: {why}"))
}

/// Every document in `text` (YAML, or JSON, which YAML reads too), in order.
pub(crate) fn documents(text: &str) -> Result<Vec<Value>, ImportError> {
    flow_depth(text)?;
    let total = Cell::new(0);
    for doc in serde_yaml_ng::Deserializer::from_str(text) {
        Count(&total).deserialize(doc).map_err(|e| not_yaml(&e))?;
    }
    let mut docs = Vec::new();
    for doc in serde_yaml_ng::Deserializer::from_str(text) {
        let yaml = Yaml::deserialize(doc).map_err(|e| not_yaml(&e))?;
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
