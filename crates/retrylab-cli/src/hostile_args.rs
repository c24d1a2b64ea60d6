//! Hostile command lines, each one a user found, pinned: refused by name, never a panic.

use crate::commands::run;

fn run_s(args: &[&str]) -> Result<String, String> {
    run(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
}

fn err(args: &[&str]) -> String {
    match run_s(args) {
        Ok(out) => panic!("{args:?} was accepted: {out}"),
        Err(e) => e,
    }
}

const BURST: &str = "scenario=burst&clients=500&capacity=5000&tick=10ms&reject_cost=0.1&attempts=10&deadline=none&base=10ms&cap=2s";

/// The table's rows, without the header line that names the link.
fn rows(markdown: &str) -> Vec<&str> {
    markdown.lines().filter(|l| l.starts_with("| ")).collect()
}

#[test]
fn the_burst_lab_sweeps_by_hand_as_its_preset_does() {
    let by_hand = run_s(&["sweep", BURST, "--param", "backoff=none,exponential,full"]).unwrap();
    let preset = run_s(&[
        "sweep",
        "preset=burst-lab",
        "--param",
        "backoff=none,exponential,full",
    ])
    .unwrap();
    assert_eq!(rows(&by_hand), rows(&preset));
    assert_eq!(
        rows(&by_hand).len(),
        4,
        "a header and three rows: {by_hand}"
    );
    // A key no row uses is still refused, and says so.
    let e = err(&[
        "sweep",
        "scenario=burst&clients=50&base=10ms",
        "--param",
        "backoff=none",
    ]);
    assert!(
        e.contains("base: has no effect") && e.contains("every row"),
        "{e}"
    );
    let e = err(&[
        "sweep",
        "scenario=burst&clients=50&base=10ms&backoff=none",
        "--param",
        "seed=1,2",
    ]);
    assert!(e.starts_with("base: has no effect"), "{e}");
}

#[test]
fn a_key_one_side_uses_is_not_refused_and_a_side_names_itself() {
    let out = run_s(&[
        "compare",
        &format!("{BURST}&backoff=full&b.backoff=none"),
        "--format",
        "json",
    ])
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_ne!(
        v["a"]["summary"]["attempts"], v["b"]["summary"]["attempts"],
        "{out}"
    );
    // A key only B uses, written on A.
    assert!(run_s(&[
        "compare",
        "scenario=burst&clients=50&backoff=none&base=10ms&b.backoff=full"
    ])
    .is_ok());
    // A key neither side uses.
    let e = err(&[
        "compare",
        "scenario=burst&clients=50&backoff=none&base=10ms&b.attempts=4",
    ]);
    assert!(e.starts_with("A: base:"), "{e}");
    let e = err(&[
        "compare",
        "scenario=burst&clients=50&b.backoff=none&b.base=20ms",
    ]);
    assert!(e.starts_with("B: b.base: has no effect"), "{e}");
}

#[test]
fn b_keys_outside_compare_are_refused_by_name() {
    let e = err(&["run", "scenario=burst&clients=50&b.attempts=2"]);
    assert!(
        e.starts_with("b.attempts:") && e.contains("retrylab compare"),
        "{e}"
    );
    let e = err(&[
        "sweep",
        "scenario=burst&clients=50&b.attempts=2",
        "--param",
        "seed=1,2",
    ]);
    assert!(e.starts_with("b.attempts:"), "{e}");
}

#[test]
fn sweep_arguments_are_checked_before_anything_runs() {
    let e = err(&[
        "sweep",
        "scenario=burst&clients=50",
        "--param",
        "seed=5",
        "--param",
        "seed=7",
    ]);
    assert!(e.starts_with("--param seed: given more than once"), "{e}");
    let e = err(&["sweep", "attempts=3", "--param", "attempts=2,3"]);
    assert!(e.starts_with("scenario:"), "{e}");
    let e = err(&["sweep", "scenario=burst", "--param"]);
    assert_eq!(e, "--param: needs a value; see --help");
}

#[test]
fn negative_numbers_are_values_and_stray_words_are_unexpected() {
    let e = err(&["amplify", "3,3", "--p", "-1"]);
    assert!(
        e.starts_with("--p: '-1' is not a probability in [0, 1]"),
        "{e}"
    );
    let e = err(&["schedule", "attempts=3", "--clients", "-5"]);
    assert!(e.starts_with("--clients: '-5'"), "{e}");
    for word in ["extra", "", "-"] {
        let e = err(&["amplify", "3,3", word]);
        assert_eq!(e, format!("unexpected argument '{word}'; see --help"));
    }
    assert_eq!(
        err(&["amplify", "3,3", "--bogus"]),
        "--bogus: unknown flag; see --help"
    );
}

#[test]
fn a_trigger_after_the_run_and_a_zero_deadline_are_refused() {
    let e = err(&[
        "run",
        "scenario=outage&duration=20s&spike_rate=100&spike_for=1s&spike_start=20s",
    ]);
    assert!(e.starts_with("spike_start:"), "{e}");
    let keys = run_s(&["keys"]).unwrap();
    let deadline = keys
        .lines()
        .skip_while(|l| !l.starts_with("deadline "))
        .nth(1)
        .unwrap();
    assert!(deadline.contains("[1us, 24h]"), "{deadline}");
}
