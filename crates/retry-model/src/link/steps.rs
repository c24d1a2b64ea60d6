//! Which piece solves which part: the steps from one side of a comparison to the other, one
//! piece of the retry policy at a time.
//!
//! Why? A comparison such as the course project's changes four settings at once (attempts, the
//! backoff, its jitter and its base), and the before/after table cannot say which of them tamed
//! the storm. [`Params::steps_to`] starts from side A and applies side B's changes a piece at a
//! time (which failures are retried, attempts, backoff, jitter, Retry-After, budget, deadline,
//! breaker, limiter, hedging, then the system), so each row of `retrylab compare --steps` and the
//! page's table is one piece's effect. A backoff that is jittered on side B and not on side A is
//! taken in two steps: its exponential growth, then its jitter.
//!
//! ```
//! use retry_model::Params;
//! let p: Params = "preset=payments-none&b.preset=payments-jitter".parse().unwrap();
//! let steps = p.side_a().steps_to(p.side_b().unwrap());
//! let names: Vec<&str> = steps.iter().map(|s| s.piece.name).collect();
//! assert_eq!(names, ["side A", "attempts", "backoff", "jitter"]);
//! assert_eq!(steps[2].changes, "backoff=exponential&base=300ms&cap=5s");
//! ```

use super::{all_keys, Params};
use crate::retry::backoff::BackoffKind;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// One piece of a retry policy (or the system around it), with what it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// Its name in the table.
    pub name: &'static str,
    /// What it does, in one line.
    pub meaning: &'static str,
    /// Its keys.
    keys: &'static [&'static str],
}

/// The pieces, in the order the steps apply them. A key in none of them is the system's.
pub const PIECES: [Piece; 10] = [
    Piece {
        name: "which failures are retried",
        meaning: "retry only what may succeed next time: a timeout or a 503, not a 400",
        keys: &["classify", "retry_on", "idempotent", "key", "outcomes", "waits"],
    },
    Piece {
        name: "attempts",
        meaning: "caps the tries per request, and so how far one request can multiply the load",
        keys: &["attempts"],
    },
    Piece {
        name: "backoff",
        meaning: "waits longer after each failure, so retries stop arriving faster than the server recovers",
        keys: &["backoff", "base", "cap", "multiplier", "first_exp", "floor", "first_wait", "sorted", "multiplier_from_base", "ceiling_sum", "whole_ms", "throttle_base"],
    },
    Piece {
        name: "jitter",
        meaning: "spreads the waits at random, so clients that failed together do not retry together",
        keys: &["jitter", "jitter_lo", "jitter_hi", "jitter_add", "jitter_after_cap"],
    },
    Piece {
        name: "Retry-After",
        meaning: "lets the server say how long to wait",
        keys: &["retry_after", "ra_mode", "ra_cap", "ra_max"],
    },
    Piece {
        name: "budget",
        meaning: "caps retries across all requests, so an outage cannot multiply the load whatever each request may do",
        keys: &["budget", "budget_start", "budget_scope", "bucket_max", "bucket_refill", "ratio_percent", "ratio_window", "ratio_min_per_s", "grpc_max_tokens", "grpc_token_ratio", "rate_per_window", "rate_window", "envoy_max_retries", "envoy_budget_percent", "envoy_min_retry_concurrency", "tenants"],
    },
    Piece {
        name: "deadline",
        meaning: "gives up when the caller no longer waits, and bounds each attempt",
        keys: &["deadline", "elapsed", "attempt_timeout", "reserve", "fit", "latency"],
    },
    Piece {
        name: "circuit breaker",
        meaning: "stops calling a dependency that keeps failing, then probes it",
        keys: &["breaker", "breaker_window", "breaker_failures", "breaker_min_calls", "breaker_open", "breaker_probes"],
    },
    Piece {
        name: "rate limiter",
        meaning: "the client slows its own sending when it sees throttling",
        keys: &["limiter", "limiter_scope"],
    },
    Piece {
        name: "hedging",
        meaning: "sends a second attempt when the first is slow, instead of retrying after a failure",
        keys: &["hedge", "hedge_delay", "hedge_max"],
    },
];

/// The first row's piece (side A as it is) and the last one's for what is left (the system).
const START: Piece = Piece {
    name: "side A",
    meaning: "the starting point",
    keys: &[],
};
const SYSTEM: Piece = Piece {
    name: "the system",
    meaning: "not the client: the load, the server or the run changes",
    keys: &[],
};

const REST: Piece = Piece {
    name: "the rest of B",
    meaning: "B's remaining settings, so the last row is B's own run",
    keys: &[],
};

/// Keys that are not settings of a run (the link's own bookkeeping).
const NOT_SETTINGS: [&str; 8] = [
    "v", "preset", "lesson", "guess", "ask", "q", "sheet", "sheet_at",
];

/// One step: the piece it applies, the keys it changed (as link text), and the link after it.
#[derive(Clone, Debug)]
pub struct LadderStep {
    /// The piece applied.
    pub piece: Piece,
    /// The keys it changed, as link text (`attempts=2`); empty for the first row.
    pub changes: String,
    /// The link after this step.
    pub params: Params,
}

impl Params {
    /// The steps from this link (side A) to `b`: side A first, then one row per piece whose
    /// keys differ, in [`PIECES`] order, then the system's keys; the last row runs as `b` does.
    pub fn steps_to(&self, b: &Params) -> Vec<LadderStep> {
        let start = self.settings_only();
        let target = b.settings_only();
        let mut steps = alloc::vec![LadderStep {
            piece: START,
            changes: String::new(),
            params: start.clone(),
        }];
        let mut cur = start;
        let jitter_split = !cur.policy.backoff.kind.is_jittered()
            && target.policy.backoff.kind.is_jittered()
            && cur.policy.backoff.kind != target.policy.backoff.kind;
        for piece in PIECES.iter().copied().chain([SYSTEM]) {
            let keys: Vec<&'static str> =
                all_keys().filter(|k| piece_of(k) == Some(piece)).collect();
            let mut changed: Vec<(&str, String)> = Vec::new();
            for k in keys {
                // Checked as it goes: choosing a budget brings its own sizes.
                let Some(mut v) = target.get(k).filter(|v| cur.get(k).as_ref() != Some(v)) else {
                    continue;
                };
                if jitter_split && k == "backoff" && piece.name == "backoff" {
                    v = String::from(BackoffKind::Exponential.name());
                }
                if cur.set(k, &v).is_ok() {
                    changed.push((k, v));
                }
            }
            if jitter_split && piece.name == "jitter" {
                let v = String::from(target.policy.backoff.kind.name());
                if cur.set("backoff", &v).is_ok() {
                    changed.insert(0, ("backoff", v));
                }
            }
            cur = cur.without_inert_except(&[]).0;
            if !changed.is_empty() {
                steps.push(LadderStep {
                    piece,
                    changes: link_text(&changed),
                    params: cur.clone(),
                });
            }
        }
        // The ladder ends at B's own run: whatever the pieces could not carry over (a key set
        // one piece would make inert, say) is the last step, so its row is B's.
        let rest = cur.differing(&target);
        if !rest.is_empty() {
            let changed: Vec<(&str, String)> = rest
                .iter()
                .map(|k| (*k, target.get(k).unwrap_or_default()))
                .collect();
            steps.push(LadderStep {
                piece: REST,
                changes: link_text(&changed),
                params: target,
            });
        }
        steps
    }

    /// This link's settings alone: no second side, sweep, lesson or exercise.
    pub fn settings_only(&self) -> Params {
        Params {
            compare: None,
            sweep: None,
            lesson: None,
            guess: None,
            ask: None,
            question: None,
            sheet: None,
            sheet_at: 0,
            tune: super::tune_keys::TuneAsk::OFF,
            ..self.clone()
        }
    }

    /// Whether `other` runs exactly as this link does: every setting that has an effect in
    /// either is the same.
    pub fn same_settings(&self, other: &Params) -> bool {
        self.differing(other).is_empty()
    }

    /// The settings that differ between this link and `other` where either uses them.
    pub fn differing(&self, other: &Params) -> Vec<&'static str> {
        all_keys()
            .filter(|k| !NOT_SETTINGS.contains(k))
            .filter(|k| self.no_effect(k).is_none() || other.no_effect(k).is_none())
            .filter(|k| self.get(k) != other.get(k))
            .collect()
    }
}

/// The piece a key belongs to; `None` for the system's keys and the link's own.
fn piece_of(key: &str) -> Option<Piece> {
    if NOT_SETTINGS.contains(&key) {
        return None;
    }
    Some(
        PIECES
            .into_iter()
            .find(|p| p.keys.contains(&key))
            .unwrap_or(SYSTEM),
    )
}

fn link_text(pairs: &[(&str, String)]) -> String {
    let parts: Vec<String> = pairs
        .iter()
        .map(|(k, v)| alloc::format!("{k}={}", super::encode(v)))
        .collect();
    parts.join("&")
}

/// The course project's own before/after figures beside the lab's, with why they differ:
/// shown under the before/after table of `preset=payments-none` against
/// `preset=payments-jitter` (docs/scenarios.md has the whole table).
pub const COURSE_NOTE: &str = "The course's own table: 289.6x and 3 % success without control, 1.5x and 100 % with backoff and jitter. The lab's before agrees in kind (only the checkouts before the outage succeed; its peak and amplification are lower because its server refuses 50 ms ticks of attempts at 0.1 slot each); its after cannot reach 100 %, because a checkout that arrives during the 5 s outage spends both of its attempts, with waits under 0.6 s, inside it.";

/// The course note for a comparison of exactly the course project's two presets, unchanged.
pub fn course_note(a: &Params, b: &Params) -> Option<&'static str> {
    let is = |p: &Params, preset: &str| {
        p.preset.map(|x| x.name()) == Some(preset)
            && format!("preset={preset}")
                .parse::<Params>()
                .is_ok_and(|q| q.same_settings(p))
    };
    (is(a, "payments-none") && is(b, "payments-jitter")).then_some(COURSE_NOTE)
}

/// The ladder as `retrylab compare --steps` prints it and the page copies it: one row per step
/// with its changes, amplification, success rate, p99 and what the piece does.
pub fn steps_markdown(steps: &[LadderStep], summaries: &[crate::sim::Summary]) -> String {
    use crate::sim::Metric;
    let mut out = String::from(
        "| step | changes | amplification | success | p99 | what the piece does |\n|---|---|---|---|---|---|\n",
    );
    for (st, s) in steps.iter().zip(summaries) {
        let changes = if st.changes.is_empty() {
            alloc::format!("`{}`", st.params)
        } else {
            alloc::format!("`{}`", st.changes)
        };
        out.push_str(&alloc::format!(
            "| {} | {changes} | {} | {} | {} | {} |\n",
            st.piece.name,
            Metric::Amplification.text(s),
            Metric::SuccessRate.text(s),
            Metric::P99Ms.text(s),
            st.piece.meaning
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_step_runs_as_side_b_does() {
        for link in [
            "preset=payments-none&b.preset=payments-jitter",
            "preset=metastable-none&b.preset=metastable-budget",
            "preset=queue-spike-none&b.preset=queue-spike-lifo",
            "preset=openai&b.preset=urllib3",
            "preset=payments-none&b.budget=ratio&b.deadline=5s&b.seed=9",
        ] {
            let p: Params = link.parse().unwrap();
            let (a, b) = (p.side_a(), p.side_b().unwrap().clone());
            let steps = a.steps_to(&b);
            assert!(steps[0].params.same_settings(&a), "{link}");
            let last = &steps.last().unwrap().params;
            assert_eq!(last.differing(&b), Vec::<&str>::new(), "{link}");
            assert!(steps.len() >= 2, "{link}");
            // Every step changes something, and no piece comes twice.
            for w in steps.windows(2) {
                assert!(
                    !w[1].params.same_settings(&w[0].params),
                    "{link}: {}",
                    w[1].changes
                );
                assert_ne!(w[0].piece, w[1].piece);
            }
        }
    }

    /// Whatever A holds (hedging on, a breaker, another scenario), the last row is B's own run:
    /// every ordered pair of presets, and each with hedging turned on in A.
    #[test]
    fn every_pair_of_presets_ends_at_side_b() {
        use crate::link::preset::Preset;
        for a in Preset::ALL {
            for extra in ["", "&hedge=on"] {
                let Ok(a) = format!("preset={}{extra}", a.name()).parse::<Params>() else {
                    continue;
                };
                for b in Preset::ALL {
                    let b: Params = format!("preset={}", b.name()).parse().unwrap();
                    let b = b.settings_only();
                    let last = a.settings_only().steps_to(&b).pop().unwrap().params;
                    assert_eq!(last.differing(&b), Vec::<&str>::new(), "{a} to {b}");
                }
            }
        }
    }

    #[test]
    fn the_system_comes_last_and_the_seed_is_the_systems() {
        let p: Params = "preset=payments-none&b.budget=ratio&b.rate=30&b.seed=9"
            .parse()
            .unwrap();
        let steps = p.side_a().steps_to(p.side_b().unwrap());
        let names: Vec<&str> = steps.iter().map(|s| s.piece.name).collect();
        assert_eq!(names, ["side A", "budget", "the system"]);
        assert_eq!(steps[1].changes, "budget=ratio");
        assert_eq!(steps[2].changes, "rate=30&seed=9");
    }

    #[test]
    fn the_course_note_stands_under_the_course_projects_own_comparison_only() {
        let p: Params = "preset=payments-none&b.preset=payments-jitter"
            .parse()
            .unwrap();
        assert_eq!(
            course_note(&p.side_a(), p.side_b().unwrap()),
            Some(COURSE_NOTE)
        );
        let changed: Params = "preset=payments-none&b.preset=payments-jitter&b.attempts=3"
            .parse()
            .unwrap();
        assert_eq!(
            course_note(&changed.side_a(), changed.side_b().unwrap()),
            None
        );
    }
}
