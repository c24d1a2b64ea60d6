//! The key table in `docs/link.md` is the one the code parses with: rendered from
//! `link_keys::TABLE` and compared here. `RETRYLAB_BLESS=1 cargo test --test docs` rewrites it.

use retry_model::link_keys;

const BEGIN: &str = "<!-- keys: generated from crates/retry-model/src/link/keys.rs -->\n";
const END: &str = "<!-- end of keys -->\n";

#[test]
fn link_md_holds_the_key_table() {
    let path = format!("{}/../../docs/link.md", env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(&path).unwrap();
    let (head, rest) = doc
        .split_once(BEGIN)
        .expect("docs/link.md lacks the keys marker");
    let (table, tail) = rest
        .split_once(END)
        .expect("docs/link.md lacks the end marker");
    let want = link_keys::markdown();
    if std::env::var_os("RETRYLAB_BLESS").is_some() {
        std::fs::write(&path, format!("{head}{BEGIN}{want}{END}{tail}")).unwrap();
        return;
    }
    for (i, (got, want)) in table.lines().zip(want.lines()).enumerate() {
        assert_eq!(
            got, want,
            "docs/link.md key table, row {i}: re-bless with RETRYLAB_BLESS=1"
        );
    }
    assert_eq!(
        table, want,
        "docs/link.md key table has a different number of rows"
    );
}

const CLIENTS_BEGIN: &str =
    "<!-- clients: generated from crates/retry-model/src/link/clients.rs -->\n";
const CLIENTS_END: &str = "<!-- end of clients -->\n";

/// docs/presets.md holds the client table `retrylab presets --format markdown` prints.
#[test]
fn presets_md_holds_the_client_table() {
    let path = format!("{}/../../docs/presets.md", env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(&path).unwrap();
    let (head, rest) = doc
        .split_once(CLIENTS_BEGIN)
        .expect("docs/presets.md lacks the clients marker");
    let (table, tail) = rest
        .split_once(CLIENTS_END)
        .expect("docs/presets.md lacks the clients end marker");
    let want = retry_model::client_table_markdown();
    if std::env::var_os("RETRYLAB_BLESS").is_some() {
        std::fs::write(
            &path,
            format!("{head}{CLIENTS_BEGIN}{want}{CLIENTS_END}{tail}"),
        )
        .unwrap();
        return;
    }
    for (i, (got, want)) in table.lines().zip(want.lines()).enumerate() {
        assert_eq!(
            got, want,
            "docs/presets.md client table, line {i}: re-bless with RETRYLAB_BLESS=1"
        );
    }
    assert_eq!(
        table, want,
        "docs/presets.md client table has a different number of lines"
    );
}

/// ARCHITECTURE.md stays true: every source file of the three crates is named in it (as
/// `name`, `name/` or `name.rs`).
#[test]
fn architecture_names_every_source_file() {
    let root = format!("{}/../..", env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(format!("{root}/ARCHITECTURE.md")).unwrap();
    let mut missing = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(format!("{root}/crates"))];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "target") {
                    stack.push(path);
                }
                continue;
            }
            let in_src = path.components().any(|c| c.as_os_str() == "src");
            if !in_src || path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let stem = path.file_stem().unwrap().to_string_lossy().to_string();
            let name = match stem.as_str() {
                "lib" | "main" => continue,
                "mod" => path
                    .parent()
                    .and_then(|p| p.file_name())
                    .unwrap()
                    .to_string_lossy()
                    .to_string(),
                _ => stem,
            };
            let named = [
                format!("`{name}`"),
                format!("`{name}/`"),
                format!("{name}.rs"),
                format!("`{name}("),
            ]
            .iter()
            .any(|n| doc.contains(n.as_str()));
            if !named {
                missing.push(path.display().to_string());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md does not name: {missing:?}"
    );
}

#[test]
fn link_md_lists_every_lesson_with_its_link() {
    let path = format!("{}/../../docs/link.md", env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(path).unwrap();
    for l in retry_model::LESSONS {
        let row = format!("| `{}` | `{}` |", l.id, l.link);
        assert!(
            doc.contains(&row),
            "docs/link.md lacks the lesson row {row}"
        );
    }
}
