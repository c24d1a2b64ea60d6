//! Runs in wasm (Node, through wasm-bindgen-test-runner) and natively: the same links give the
//! fingerprints pinned by the native golden test, so wasm and native agree bit for bit.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const FINGERPRINTS: &str = include_str!("../../../tests/golden/fingerprints.txt");

#[test]
fn fingerprints_match_native() {
    let mut n = 0;
    for line in FINGERPRINTS.lines().filter(|l| !l.trim().is_empty()) {
        let (want, query) = line.split_once(' ').expect("'<hash> <link>'");
        let got =
            retrylab_web::fingerprint_of(query).unwrap_or_else(|_| panic!("{query} should parse"));
        assert_eq!(got, want, "{query}");
        n += 1;
    }
    assert!(n >= 10, "expected the pinned links, found {n}");
}

#[test]
fn schedule_is_identical_across_targets() {
    // A sum of every drawn wait for a 1000-client decorrelated schedule: any difference in the
    // generator or the integer sampling shows up here.
    let p: retry_model::Params =
        "backoff=decorrelated&base=10ms&cap=2s&attempts=11&clients=1000&seed=2015"
            .parse()
            .unwrap();
    let s = retry_model::schedule(&p).unwrap();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for r in &s.retries {
        for w in &r.waits {
            h ^= w.as_micros();
            h = h.wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
    let native = include_str!("../../../tests/golden/schedule_hash.txt").trim();
    assert_eq!(format!("{h:016x}"), native);
}

#[test]
fn bad_links_name_the_key() {
    let msg = retrylab_web::canonical_of("attempts=0").unwrap_err();
    assert!(msg.starts_with("attempts:"), "{msg}");
    assert_eq!(
        retrylab_web::canonical_of("preset=chapter&seed=1").unwrap(),
        "v=2&preset=chapter"
    );
    #[cfg(target_arch = "wasm32")]
    {
        let js = retrylab_web::canonical_link("base=9s&cap=1s")
            .unwrap_err()
            .as_string()
            .unwrap();
        assert!(js.starts_with("base:"), "{js}");
    }
}

#[test]
fn simulations_match_native() {
    const PINNED: &str = include_str!("../../../tests/golden/sim_fingerprints.txt");
    let mut n = 0;
    for line in PINNED.lines().filter(|l| !l.trim().is_empty()) {
        let (want, query) = line.split_once(' ').expect("'<hash> <link>'");
        let got = retrylab_web::simulate_of(query).unwrap_or_else(|e| panic!("{query}: {e}"));
        assert_eq!(got.split(' ').next().unwrap(), want, "{query}");
        n += 1;
    }
    assert!(n >= 8);
}
