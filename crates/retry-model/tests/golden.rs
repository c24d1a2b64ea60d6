//! Golden traces: the worked examples' full text, and pinned fingerprints that the wasm build
//! checks too. To re-pin after an intended change: `RETRYLAB_BLESS=1 cargo test -p retry-model --test golden`.

mod common;

use retry_model::{explain, trace, Params};

const LINKS: &str = include_str!("../../../tests/golden/links.txt");
const FINGERPRINTS: &str = include_str!("../../../tests/golden/fingerprints.txt");

fn text(q: &str) -> String {
    let p: Params = q.parse().unwrap();
    let e = explain(&p, &trace(&p).unwrap());
    let mut out = e.intro.join("\n");
    for s in &e.steps {
        out.push('\n');
        out.push_str(&s.lines.join("\n"));
    }
    out.push('\n');
    out.push_str(&e.outcome);
    out.push('\n');
    out
}

fn bless() -> bool {
    std::env::var_os("RETRYLAB_BLESS").is_some() // also read by common::check_pinned
}

#[test]
fn fingerprints_are_pinned() {
    let computed: Vec<String> = common::links(LINKS)
        .map(|q| {
            let p: Params = q.parse().unwrap_or_else(|e| panic!("{q}: {e}"));
            format!("{:016x} {q}", trace(&p).unwrap().fingerprint())
        })
        .collect();
    common::check_pinned("fingerprints.txt", FINGERPRINTS, &computed, "explain");
}

#[test]
fn worked_examples_read_as_pinned() {
    for (name, q) in [
        ("chapter", "preset=chapter"),
        ("guide-700ms", "preset=guide-700ms"),
        ("guide-700ms-150", "preset=guide-700ms&waits=150ms"),
    ] {
        let path = format!(
            "{}/../../tests/golden/{name}.txt",
            env!("CARGO_MANIFEST_DIR")
        );
        let got = text(q);
        if bless() {
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want =
            std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("missing {path}: re-bless"));
        assert_eq!(got, want, "{name}: the explanation of '{q}' changed");
    }
}
