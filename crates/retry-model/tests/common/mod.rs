//! Shared by the golden and simulation tests: compare computed lines with a pinned file, or
//! rewrite the file when `RETRYLAB_BLESS` is set.

/// The non-empty, non-comment lines of a golden list.
pub fn links(text: &'static str) -> impl Iterator<Item = &'static str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// Each computed line is `<hash> <link>`; `pinned` is the file's text, `file` its name under
/// `tests/golden/`, `command` the CLI command that reproduces a link.
pub fn check_pinned(file: &str, pinned: &str, computed: &[String], command: &str) {
    if std::env::var_os("RETRYLAB_BLESS").is_some() {
        let path = format!("{}/../../tests/golden/{file}", env!("CARGO_MANIFEST_DIR"));
        std::fs::write(path, computed.join("\n") + "\n").unwrap();
        return;
    }
    let pinned: Vec<&str> = pinned.lines().collect();
    assert_eq!(
        pinned.len(),
        computed.len(),
        "{file} is out of date: re-bless"
    );
    for (want, got) in pinned.iter().zip(computed) {
        let link = got.split_once(' ').map_or(got.as_str(), |(_, l)| l);
        assert_eq!(
            *want, got,
            "numbers changed; reproduce with: retrylab {command} '{link}'"
        );
    }
}
