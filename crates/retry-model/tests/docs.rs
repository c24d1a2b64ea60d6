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
