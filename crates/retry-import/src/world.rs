//! The world corpus (`tests/configs/world/`): configuration files in the shapes public
//! repositories write them, each with the schedule its proxy or library runs, settled from the
//! upstream source (`manifest.json`: the source of each rule, file and line). The test imports
//! every file and checks the schedule the lab draws, not the link's text: attempts, each
//! retry's wait range, the attempt timeout, the deadline, which statuses are retried and the
//! release whose rules apply; or that a file its system refuses is refused. A file whose
//! schedule the lab cannot draw yet carries a `gap`: the refusal the import gives instead, so
//! it is never silently run as something else.

use crate::{import, Options};
use retry_model::{Micros, Outcome, Params, ScriptedOutcome};
use serde_json::Value;

/// The statuses whose retrying the corpus states.
const STATUSES: [u16; 6] = [408, 429, 500, 502, 503, 504];

/// What the lab does with one corpus file, in the manifest's terms.
fn drawn(p: &Params) -> Value {
    // Each retry's range does not depend on how many clients draw it.
    let mut one = p.clone();
    one.clients = 1;
    let s = retry_model::schedule(&one).expect("a schedule");
    let waits: Vec<[u64; 2]> = s
        .retries
        .iter()
        .map(|r| [r.low.0 / 1_000, r.ceiling.0 / 1_000])
        .collect();
    let ms = |m: Micros| m.0 / 1_000;
    let day = Micros::from_secs(86_400);
    let retried: Vec<u16> = STATUSES
        .into_iter()
        .filter(|c| {
            p.policy.max_attempts > 1
                && p.policy.retries(&ScriptedOutcome::new(Outcome::Status(*c)))
        })
        .collect();
    serde_json::json!({
        "attempts": p.policy.max_attempts,
        "waits_ms": waits,
        "attempt_timeout_ms": (p.policy.attempt_timeout < day).then(|| ms(p.policy.attempt_timeout)),
        "deadline_ms": p.policy.deadline.map(ms),
        "retried": retried,
    })
}

/// A world file's bytes.
fn bytes_of(file: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../tests/configs/world/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A manifest entry's import options (`version` is `--version`).
fn options_of(entry: &Value) -> Options {
    let opt = |k: &str| entry["options"][k].as_str().map(str::to_string);
    Options {
        route: opt("route"),
        instance: opt("instance"),
        release: opt("version"),
        method: opt("method"),
        from: opt("from"),
    }
}

/// One manifest entry checked: `None` when the lab matches it, else what differs.
fn check(entry: &Value) -> Option<String> {
    let file = entry["file"].as_str()?;
    let got = import(&bytes_of(file), &options_of(entry));
    // A schedule the lab cannot draw yet (`gap`): the import must refuse it with that message,
    // never run something else; the file's real schedule stays in the manifest beside it.
    if let Some(why) = entry["gap"].as_str() {
        return match got {
            Err(e) if e.to_string().contains(why) => None,
            Err(e) => Some(format!("{file}: a gap refused with '{e}', not '{why}'")),
            Ok(i) => Some(format!("{file}: a gap ({why}) now imports as {}: check it against the manifest's schedule and drop the gap", i.link)),
        };
    }
    if let Some(why) = entry["refused"].as_str() {
        return match got {
            Err(e) if e.to_string().contains(why) => None,
            Err(e) => Some(format!("{file}: refused, but with '{e}', not '{why}'")),
            Ok(i) => Some(format!(
                "{file}: expected refused ({why}), imported {}",
                i.link
            )),
        };
    }
    let i = match got {
        Ok(i) => i,
        Err(e) => return Some(format!("{file}: refused: {e}")),
    };
    let p: Params = i.link.parse().ok()?;
    let lab = drawn(&p);
    let mut wrong = Vec::new();
    for k in [
        "attempts",
        "waits_ms",
        "attempt_timeout_ms",
        "deadline_ms",
        "retried",
    ] {
        // A wait the upstream draws from a distribution with no closed range (Polly's
        // decorrelated jitter) is checked against the library by tests/clients instead.
        if entry[k] == "unchecked" {
            continue;
        }
        if entry[k] != lab[k] {
            wrong.push(format!("{k} {} (expected {})", lab[k], entry[k]));
        }
    }
    if entry["release"].as_str() != Some(i.release.as_str()) {
        wrong.push(format!(
            "release '{}' (expected {})",
            i.release, entry["release"]
        ));
    }
    (!wrong.is_empty()).then(|| format!("{file}: {}", wrong.join("; ")))
}

#[test]
fn every_world_file_imports_to_the_schedule_its_system_runs() {
    let path = format!(
        "{}/../../tests/configs/world/manifest.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let entries = manifest["files"].as_array().unwrap();
    assert!(entries.len() >= 150, "{} files", entries.len());
    let wrong: Vec<String> = entries.iter().filter_map(check).collect();
    assert!(
        wrong.is_empty(),
        "{} of {} files differ:\n{}",
        wrong.len(),
        entries.len(),
        wrong.join("\n")
    );
    for f in crate::FORMATS {
        let n = entries
            .iter()
            .filter(|e| {
                e["file"]
                    .as_str()
                    .is_some_and(|p| p.starts_with(&format!("{f}/")))
            })
            .count();
        assert!(n >= 15, "{f}: {n} files");
    }
    for e in entries {
        assert!(
            e["rules"].as_str().is_some_and(|r| !r.is_empty()),
            "{}",
            e["file"]
        );
    }
}

/// The link's value of `key`, if it writes one.
fn key<'l>(link: &'l str, key: &str) -> Option<&'l str> {
    link.split('&')
        .find_map(|kv| kv.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
}

/// Every world file that imports, exported to its own format and imported again, runs the same
/// schedule, retries the same failures and keeps its budget: an export writes what the policy
/// is, and what it cannot write is a note, not a different policy.
#[test]
fn every_world_file_round_trips_through_its_own_format() {
    let path = format!(
        "{}/../../tests/configs/world/manifest.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for e in manifest["files"].as_array().unwrap() {
        if e["refused"].is_string() || e["gap"].is_string() {
            continue;
        }
        let file = e["file"].as_str().unwrap();
        let first = import(&bytes_of(file), &options_of(e)).unwrap();
        let out = match crate::export(&first.link, first.format) {
            Ok(x) => x,
            Err(err) => {
                wrong.push(format!("{file}: export refused: {err}"));
                continue;
            }
        };
        let again = Options {
            release: options_of(e).release,
            ..Options::default()
        };
        let second = match import(out.text.as_bytes(), &again) {
            Ok(i) => i,
            Err(err) => {
                wrong.push(format!("{file}: its export does not import: {err}"));
                continue;
            }
        };
        let (a, b): (Params, Params) = (first.link.parse().unwrap(), second.link.parse().unwrap());
        let (da, db) = (drawn(&a), drawn(&b));
        // A difference is allowed only where the export's notes name the key it could not write.
        let noted = |k: &str| out.notes.iter().any(|n| n.key == k);
        let fields = [
            ("attempts", "attempts"),
            ("waits_ms", "base"),
            ("attempt_timeout_ms", "attempt_timeout"),
            ("deadline_ms", "deadline"),
            ("retried", "retry_on"),
        ];
        for (f, k) in fields {
            if da[f] != db[f] && !noted(k) {
                wrong.push(format!("{file}: {f} {} became {}", da[f], db[f]));
            }
        }
        // A budget limits retries: with one attempt there is none to limit.
        let budget = |l: &str| key(l, "budget").unwrap_or("none").to_string();
        if a.policy.max_attempts > 1
            && budget(&first.link) != budget(&second.link)
            && !noted("budget")
        {
            wrong.push(format!(
                "{file}: budget {} became {}",
                budget(&first.link),
                budget(&second.link)
            ));
        }
        checked += 1;
    }
    assert!(
        wrong.is_empty(),
        "{} of {checked} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(checked >= 80, "{checked} files");
}
