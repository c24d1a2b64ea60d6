//! Several configurations, outermost first, stacked into a `layers` link: each file is one
//! layer, named after the file, retrying with the attempts its own configuration gives, so the
//! link's worst case is the product of the real settings (a browser's 3, Envoy's 2, a service's
//! 4: 24 bottom calls a click). The link's policy is the outermost file's; every other layer
//! runs its own file's policy through its `lN.` keys, written where it differs from the link's.

use crate::{import, ImportError, Imported, Note, Options};
use retry_model::Params;
use serde::Serialize;

/// One layer of a stack.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Layer {
    /// Its name in the link (`layer_names`): the file's name.
    pub name: String,
    /// The format read.
    pub format: &'static str,
    /// Its own link, as `retrylab import FILE` prints it.
    pub link: String,
    /// Its attempts, the first included.
    pub attempts: u32,
}

/// What several files give.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Stack {
    /// The `layers` link.
    pub link: String,
    /// Each layer, top first.
    pub layers: Vec<Layer>,
    /// Every file's warnings, each field prefixed with its file, and the stack's own.
    pub warnings: Vec<Note>,
    /// Every file's fields not modelled, and what the stack cannot say.
    pub unsupported: Vec<Note>,
    /// Every file's defaults (keys it does not write), each field prefixed with its file.
    pub defaults: Vec<Note>,
}

/// A file's name as a layer's name: its last path part, in the letters the link takes.
fn layer_name(path: &str) -> String {
    let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let name: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .take(40)
        .collect();
    if name.is_empty() || name == "-" {
        String::from("stdin")
    } else {
        name
    }
}

/// The most files a stack takes (the layers scenario's limit).
pub const MAX_STACK: usize = 8;

/// Stacks `files` (each a path, or a name, and its bytes), outermost first.
pub fn stack(files: &[(String, Vec<u8>)], opts: &Options) -> Result<Stack, ImportError> {
    if !(2..=MAX_STACK).contains(&files.len()) {
        return Err(ImportError::new(
            "files",
            format!(
                "{} files: a stack takes 2 to {MAX_STACK}, outermost first",
                files.len()
            ),
        ));
    }
    let (mut layers, mut read) = (Vec::new(), Vec::new());
    let (mut warnings, mut unsupported, mut defaults) = (Vec::new(), Vec::new(), Vec::new());
    for (path, bytes) in files {
        let name = unique(layer_name(path), &layers);
        let i = import(bytes, opts)
            .map_err(|e| ImportError::new(format!("{name}: {}", e.field), e.rule))?;
        let p: Params = i
            .link
            .parse()
            .map_err(|e: retry_model::ConfigError| ImportError::new(&name, e.to_string()))?;
        let attempts = p.policy.max_attempts;
        if attempts > 100 {
            return Err(ImportError::new(
                format!("{name}: attempts"),
                format!("{attempts} attempts: a layer of the layers scenario makes at most 100"),
            ));
        }
        let note = |n: &Note| Note {
            field: format!("{name}: {}", n.field),
            text: n.text.clone(),
            key: n.key,
        };
        warnings.extend(i.warnings.iter().map(note));
        unsupported.extend(i.unsupported.iter().map(note));
        defaults.extend(i.defaults.iter().map(note));
        layers.push(Layer {
            name,
            format: i.format,
            link: i.link.clone(),
            attempts,
        });
        read.push((i, p));
    }
    let link = link(&layers, &read, &mut unsupported)?;
    let product: u64 = layers.iter().map(|l| u64::from(l.attempts)).product();
    let factors: Vec<String> = layers
        .iter()
        .map(|l| format!("{} ({})", l.attempts, l.name))
        .collect();
    warnings.push(Note {
        key: "layers",
        field: String::from("layers"),
        text: format!(
            "{} = {product} bottom calls for one request when every call fails",
            factors.join(" x ")
        ),
    });
    Ok(Stack {
        link,
        layers,
        warnings,
        unsupported,
        defaults,
    })
}

/// `name`, or `name-2`, `name-3`... when an earlier layer has it.
fn unique(name: String, layers: &[Layer]) -> String {
    let taken = |n: &str| layers.iter().any(|l| l.name == n);
    if !taken(&name) {
        return name;
    }
    (2..)
        .map(|i| format!("{}-{i}", name.chars().take(36).collect::<String>()))
        .find(|n| !taken(n))
        .unwrap_or(name)
}

/// The `layers` link: the attempts and names, and the outermost file's policy where the
/// scenario takes it.
fn link(
    layers: &[Layer],
    read: &[(Imported, Params)],
    unsupported: &mut Vec<Note>,
) -> Result<String, ImportError> {
    let ks: Vec<String> = layers.iter().map(|l| l.attempts.to_string()).collect();
    let names: Vec<&str> = layers.iter().map(|l| l.name.as_str()).collect();
    let mut link = format!(
        "v={}&scenario=layers&layers={}&layer_names={}&p=1",
        retry_model::LINK_VERSION,
        ks.join(","),
        names.join(",")
    );
    let (outer, _) = &read[0];
    // The outermost file's keys, less those the layers scenario refuses, each named.
    let mut pairs: Vec<(&str, &str)> = outer
        .link
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .filter(|(k, _)| !matches!(*k, "v" | "scenario" | "attempts"))
        .collect();
    loop {
        let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let candidate = format!("{link}&{}", query.join("&"));
        match candidate.parse::<Params>() {
            Ok(_) => {
                link = candidate;
                break;
            }
            Err(e) => {
                let Some(at) = pairs.iter().position(|(k, _)| *k == e.field) else {
                    return Err(ImportError::new(
                        &layers[0].name,
                        format!("gives a layers link the lab refuses: {e}"),
                    ));
                };
                let (k, v) = pairs.remove(at);
                // A key at its default changes nothing by being left out.
                if retry_model::link_keys::key(k).is_some_and(|row| row.default == v) {
                    continue;
                }
                unsupported.push(Note {
                    key: retry_model::link_keys::key(k).map_or("", |row| row.name),
                    field: format!("{}: {k}", layers[0].name),
                    text: format!("{k}={v} is left out of the stack: {}", e.rule),
                });
            }
        }
    }
    let linked: Params = link.parse().map_err(|e: retry_model::ConfigError| {
        ImportError::new(
            &layers[0].name,
            format!("gives a layers link the lab refuses: {e}"),
        )
    })?;
    for (n, (layer, (_, p))) in layers.iter().zip(read).enumerate().skip(1) {
        link = own_policy(link, &linked, n + 1, layer, p, unsupported);
    }
    Ok(link)
}

/// `link` with layer `n`'s own keys (`lN.key`): each key a layer may set where its file's
/// policy differs from the link's. A key the lab refuses there is left out and named.
fn own_policy(
    link: String,
    linked: &Params,
    n: usize,
    layer: &Layer,
    p: &Params,
    unsupported: &mut Vec<Note>,
) -> String {
    let mut pairs: Vec<(&'static str, String)> = retry_model::layer_keys::settable()
        .filter_map(|k| Some((k, p.get(k)?)).filter(|(_, v)| linked.get(k).as_ref() != Some(v)))
        .collect();
    loop {
        let own: Vec<String> = pairs
            .iter()
            .map(|(k, v)| format!("l{n}.{k}={}", retry_model::encode(v)))
            .collect();
        let candidate = [link.as_str()]
            .into_iter()
            .chain(own.iter().map(String::as_str));
        let candidate = candidate.collect::<Vec<_>>().join("&");
        let Err(e) = candidate.parse::<Params>() else {
            return candidate;
        };
        let prefix = format!("l{n}.");
        let refused = e.rule.strip_prefix(&prefix).and_then(|r| r.split_once(':'));
        let Some(at) = refused.and_then(|(k, _)| pairs.iter().position(|(p, _)| *p == k)) else {
            // Not one key's fault: the layer runs the link's policy, and says so.
            unsupported.push(Note {
                key: "",
                field: layer.name.clone(),
                text: format!(
                    "its own policy is left out of the stack, so it runs the outermost file's: {}",
                    e.rule
                ),
            });
            return link;
        };
        let (k, v) = pairs.remove(at);
        // A key at its default is what the layer gets anyway once the link's key that does not
        // fit its policy is reset for it.
        if retry_model::link_keys::key(k).is_some_and(|row| row.default == v) {
            continue;
        }
        unsupported.push(Note {
            key: k,
            field: format!("{}: {k}", layer.name),
            text: format!("{k}={v} is left out of the stack: {}", e.rule),
        });
    }
}

#[cfg(test)]
mod tests;
