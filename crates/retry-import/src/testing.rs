//! What the readers' tests share: the corpus, reading with options, and looking for a note.

use crate::{import, Imported, Options};
use retry_model::Params;

/// A file of the corpus, `tests/configs/PATH`.
pub(crate) fn corpus(path: &str) -> Vec<u8> {
    let path = format!("{}/../../tests/configs/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `bytes` read by `opts`, which must succeed.
pub(crate) fn read_with(bytes: &[u8], opts: &Options) -> Imported {
    import(bytes, opts).unwrap_or_else(|e| panic!("{e}"))
}

/// Whether a warning on `field` says `words`.
pub(crate) fn warned(i: &Imported, field: &str, words: &str) -> bool {
    i.warnings
        .iter()
        .any(|w| w.field == field && w.text.contains(words))
}

/// Whether a field not modelled, named with `field` in it, says `words`.
pub(crate) fn unmodelled(i: &Imported, field: &str, words: &str) -> bool {
    i.unsupported
        .iter()
        .any(|u| u.field.contains(field) && u.text.contains(words))
}

/// The canonical link of `query`, as `retrylab link` prints it.
pub(crate) fn link(query: &str) -> String {
    query.parse::<Params>().unwrap().to_string()
}
