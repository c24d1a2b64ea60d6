//! Each layer's own policy in the `layers` scenario. Keys written `l2.base=25ms` apply to layer
//! 2 (the top layer is 1) on top of the link's policy, so a stack can hold a browser that
//! retries quickly over a proxy with full jitter over a service with its own timeouts.
//!
//! The rules (docs/link.md, "Layers with their own policies"):
//! - Only policy keys the layers scenario reads: waits, timeouts, the deadline and statuses.
//!   A layer's attempts are its entry in `layers`, never an `lN.attempts` key.
//! - A layer's keys apply in the key table's order to a copy of the link's policy, checked as
//!   in any link: a key with no effect there, or a policy that fails its checks, is refused.
//! - A layer without keys runs the link's policy, and follows every edit of it.
//! - The canonical link writes them after the link's own keys, by layer, in table order.
//!
//! ```
//! use retry_model::Params;
//! let p: Params = "scenario=layers&layers=3,2&l2.backoff=none".parse().unwrap();
//! assert_eq!(p.layer_policy(2).unwrap().backoff.kind.name(), "none");
//! assert_eq!(p.layer_policy(1), None, "layer 1 runs the link's policy");
//! assert_eq!(p.to_string(), "v=2&scenario=layers&layers=3,2&l2.backoff=none");
//! ```

use super::keys::{self, Group};
use super::{all_keys, Params};
use crate::retry::error::ConfigError;
use crate::retry::policy::RetryPolicy;
use crate::sim::{Scenario, ScenarioKind};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// The field every layer key's error names (the page's box of layer keys).
pub const FIELD: &str = "l";

/// One layer's key as the link holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerKey {
    /// The layer, from 1 at the top.
    pub layer: u32,
    /// The key, without its prefix.
    pub key: &'static str,
    /// Its text as the canonical link writes it.
    pub value: String,
}

/// `l2.base` as `(2, "base")`: a layer from 1 to 8, then a key. `None` for any other key.
pub fn split_prefix(k: &str) -> Option<(u32, &str)> {
    let rest = k.strip_prefix('l')?;
    let (n, key) = rest.split_once('.')?;
    let n: u32 = n.parse().ok().filter(|n| (1..=8).contains(n))?;
    (!key.is_empty() && rest.as_bytes()[0] != b'0').then_some((n, key))
}

/// Why a layer may not set `name`, if it may not.
fn refusal(name: &str) -> Option<&'static str> {
    if name == "attempts" {
        return Some("a layer's attempts are its entry in layers, not a key of its own");
    }
    let row = keys::key(name)?;
    let layers = keys::Applies::of(Some(ScenarioKind::Layers));
    let policy = !matches!(row.group, Group::Exercise | Group::Schedule);
    let whole_link = matches!(name, "preset" | "v");
    (keys::is_sim(row) || !row.applies.contains(layers) || !policy || whole_link)
        .then_some("a layer sets only its own policy: its backoff, timeouts, deadline and statuses")
}

/// The keys a layer may set, in table order.
pub fn settable() -> impl Iterator<Item = &'static str> {
    all_keys().filter(|k| refusal(k).is_none())
}

fn bad(layer: u32, key: &str, rule: &str) -> ConfigError {
    ConfigError::new(FIELD, format!("l{layer}.{key}: {rule}"))
}

impl Params {
    /// Layer `layer`'s own policy (from 1 at the top), or `None` when it runs the link's.
    pub fn layer_policy(&self, layer: u32) -> Option<RetryPolicy> {
        match &self.sim.scenario {
            Some(Scenario::Layers(l)) => l.policies.get(layer as usize - 1).copied().flatten(),
            _ => None,
        }
    }

    /// The layers' own keys, by layer, in table order.
    pub fn layer_keys(&self) -> &[LayerKey] {
        &self.layer_keys
    }

    /// The layers' keys as text, prefixes included (`l2.backoff=none&l3.base=1s`).
    pub fn layer_text(&self) -> String {
        let pairs: Vec<String> = self
            .layer_keys
            .iter()
            .map(|k| format!("l{}.{}={}", k.layer, k.key, k.value))
            .collect();
        pairs.join("&")
    }

    /// Replaces the layers' keys with `text` (as [`Params::layer_text`] writes it); empty
    /// text gives every layer the link's policy. On a bad key nothing changes.
    pub fn set_layer_text(&mut self, text: &str) -> Result<(), ConfigError> {
        let mut pairs = Vec::new();
        for (k, v) in super::compare::split_pairs(text) {
            let Some((n, key)) = split_prefix(&k) else {
                let rule = format!(
                    "'{}' is not a layer's key: write l2.base=25ms (layer 1 is the top)",
                    keys::shorten(&k)
                );
                return Err(ConfigError::new(FIELD, rule));
            };
            pairs.push((n, String::from(key), v));
        }
        let mut next = self.clone();
        if let Some(e) = next.set_layer_keys(&pairs).into_iter().next() {
            return Err(e);
        }
        *self = next;
        Ok(())
    }

    /// Reads the layers' keys (layer, key without its prefix, value). Returns the problems, each
    /// naming [`FIELD`] and the key; the good keys still apply.
    pub(crate) fn set_layer_keys(&mut self, pairs: &[(u32, String, String)]) -> Vec<ConfigError> {
        let mut errors = Vec::new();
        let layers = match &self.sim.scenario {
            Some(Scenario::Layers(l)) => l.layers.len() as u32,
            _ => 0,
        };
        let mut known: Vec<(u32, usize, &'static str, String)> = Vec::new();
        for (n, k, v) in pairs {
            let Some(i) = all_keys().position(|name| name == k) else {
                errors.push(bad(*n, k, "unknown key: see docs/link.md"));
                continue;
            };
            let name = all_keys().nth(i).unwrap_or("v");
            if let Some(rule) = refusal(name) {
                errors.push(bad(*n, k, rule));
            } else if layers == 0 {
                errors.push(bad(*n, k, "applies only with scenario=layers"));
            } else if *n > layers {
                errors.push(bad(
                    *n,
                    k,
                    &format!("the stack has {layers} layers (layers=)"),
                ));
            } else if known.iter().any(|(m, j, _, _)| m == n && *j == i) {
                errors.push(bad(*n, k, "appears more than once"));
            } else {
                known.push((*n, i, name, v.clone()));
            }
        }
        // Each (layer, key) once, so an unstable sort orders them exactly.
        known.sort_unstable_by_key(|(n, i, _, _)| (*n, *i));
        self.layer_keys = known
            .into_iter()
            .map(|(layer, _, key, value)| LayerKey { layer, key, value })
            .collect();
        errors.extend(self.refresh_layers());
        errors
    }

    /// Works out each layer's policy again from the link's and the layer's keys (after any
    /// edit); a key refused now is dropped. Returns the problems.
    pub(crate) fn refresh_layers(&mut self) -> Vec<ConfigError> {
        let mut errors = Vec::new();
        let Some(Scenario::Layers(l)) = &self.sim.scenario else {
            self.layer_keys.clear();
            return errors;
        };
        let count = l.layers.len() as u32;
        let mut policies = Vec::new();
        let mut kept = Vec::new();
        for n in 1..=count {
            let own: Vec<&LayerKey> = self.layer_keys.iter().filter(|k| k.layer == n).collect();
            if own.is_empty() {
                policies.push(None);
                continue;
            }
            let (policy, applied) = self.layer_side(n, &own, &mut errors);
            kept.extend(
                own.into_iter()
                    .filter(|k| applied.contains(&k.key))
                    .cloned(),
            );
            policies.push(policy);
        }
        for k in self.layer_keys.iter().filter(|k| k.layer > count) {
            errors.push(bad(
                k.layer,
                k.key,
                &format!("the stack has {count} layers (layers=)"),
            ));
        }
        self.layer_keys = kept;
        if let Some(Scenario::Layers(l)) = &mut self.sim.scenario {
            l.policies = policies;
        }
        errors
    }

    /// Layer `n`'s policy: the link's with `own` keys on top, and the keys that applied.
    fn layer_side(
        &self,
        n: u32,
        own: &[&LayerKey],
        errors: &mut Vec<ConfigError>,
    ) -> (Option<RetryPolicy>, Vec<&'static str>) {
        let mut side = Params {
            compare: None,
            sweep: None,
            layer_keys: Vec::new(),
            ..self.clone()
        };
        let mut applied: Vec<&'static str> = Vec::new();
        for k in own {
            match side.set(k.key, &k.value) {
                Ok(()) => applied.push(k.key),
                Err(e) => errors.push(bad(n, k.key, &e.rule)),
            }
        }
        for e in side.inapplicable(&applied) {
            if applied.contains(&e.field) {
                errors.push(bad(n, e.field, &e.rule));
                applied.retain(|k| *k != e.field);
            } else {
                // The link's key does not fit this layer's own policy (whole_ms under a layer's
                // exponential backoff): the layer is reset to the key's default, not refused.
                reset(&mut side, e.field);
            }
        }
        let attempts = match &self.sim.scenario {
            Some(Scenario::Layers(l)) => l.layers[n as usize - 1],
            _ => side.policy.max_attempts,
        };
        // Each pass resets one inherited key the layer's policy cannot take; a key of the
        // layer's own that breaks it is refused.
        for _ in 0..keys::TABLE.len() {
            let policy = side.policy.with_max_attempts(attempts);
            match policy.validate() {
                Ok(_) => return (Some(policy).filter(|_| !applied.is_empty()), applied),
                Err(e) if !applied.contains(&e.field) && reset(&mut side, e.field) => {}
                Err(e) => {
                    errors.push(bad(n, e.field, &e.rule));
                    return (None, Vec::new());
                }
            }
        }
        (None, Vec::new())
    }
}

/// Sets `key` back to its default on `side`; whether that changed anything.
fn reset(side: &mut Params, key: &str) -> bool {
    let Some(row) = keys::key(key) else {
        return false;
    };
    if side.get(key).as_deref() == Some(row.default) {
        return false;
    }
    side.set(row.name, row.default).is_ok()
}

/// The columns of `layer_rows`, as the page's table and `retrylab run` head them.
pub const LAYER_COLUMNS: [&str; 9] = [
    "layer",
    "attempts",
    "when every call fails",
    "wait (k = 0 at the first retry)",
    "jitter",
    "per attempt",
    "deadline",
    "statuses retried",
    "policy",
];

/// The 503 a failed layer (and the failing bottom dependency) answers.
fn failed() -> crate::ScriptedOutcome {
    crate::ScriptedOutcome::new(crate::Outcome::Status(503))
}

impl Params {
    /// The attempts each layer makes when every call below it fails, top first: its entry in
    /// `layers`, or 1 when its policy does not retry the 503 a failed layer answers (a
    /// deadline or timeout may cut it further; the run says by how much). Empty without a
    /// `layers` scenario.
    pub fn layer_attempts(&self) -> Vec<u32> {
        let Some(Scenario::Layers(l)) = &self.sim.scenario else {
            return Vec::new();
        };
        l.layers
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                let pol = self.layer_policy(i as u32 + 1).unwrap_or(self.policy);
                if pol.retries(&failed()) {
                    k
                } else {
                    1
                }
            })
            .collect()
    }

    /// One row per layer, top first, in [`LAYER_COLUMNS`] order: the page's table of the
    /// stack and what `retrylab run` prints for a `layers` link, in the same words.
    pub fn layer_rows(&self) -> Vec<[String; 9]> {
        let Some(Scenario::Layers(l)) = &self.sim.scenario else {
            return Vec::new();
        };
        let effective = self.layer_attempts();
        let rows = l.layers.iter().zip(effective).enumerate();
        rows.map(|(i, (&k, when))| {
            let n = i as u32 + 1;
            let own = self.layer_policy(n);
            let pol = own.unwrap_or(self.policy);
            let name = l.names.get(i).map_or(String::new(), |x| format!(" {x}"));
            let top = if n == 1 { " (top)" } else { "" };
            let keys: Vec<String> = self
                .layer_keys
                .iter()
                .filter(|k| k.layer == n)
                .map(|k| format!("{}={}", k.key, k.value))
                .collect();
            [
                format!("{n}{top}{name}"),
                k.to_string(),
                if when == k {
                    k.to_string()
                } else {
                    format!("{when} (503 is not retried)")
                },
                super::client_table::wait_formula(&pol.backoff),
                super::client_table::jitter_text(&pol.backoff),
                pol.attempt_timeout.to_string(),
                pol.deadline
                    .map_or_else(|| String::from("none"), |d| d.to_string()),
                super::client_table::statuses_text(&pol),
                if keys.is_empty() {
                    String::from("the link's")
                } else {
                    format!("own: {}", keys.join(", "))
                },
            ]
        })
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(q: &str) -> crate::sim::Summary {
        let p: Params = q.parse().unwrap_or_else(|e| panic!("{q}: {e}"));
        crate::sim::simulate(&p).unwrap().summary
    }

    #[test]
    fn a_layer_may_set_its_policy_and_nothing_else() {
        let keys: Vec<&str> = settable().collect();
        for k in [
            "deadline",
            "attempt_timeout",
            "backoff",
            "base",
            "cap",
            "jitter",
            "retry_on",
        ] {
            assert!(keys.contains(&k), "{k}");
        }
        for k in [
            "attempts", "preset", "seed", "scenario", "layers", "p", "budget", "q", "v",
        ] {
            assert!(!keys.contains(&k), "{k}");
        }
        assert_eq!(split_prefix("l2.base"), Some((2, "base")));
        for k in ["l0.base", "l9.base", "l02.base", "l2.", "lx.base", "b.base"] {
            assert_eq!(split_prefix(k), None, "{k}");
        }
    }

    #[test]
    fn bad_layer_keys_name_the_layer_and_the_rule() {
        let errs = |q: &str| {
            let (_, e) = Params::parse_lenient(q);
            e.into_iter().map(|e| e.to_string()).collect::<Vec<_>>()
        };
        let stack = "scenario=layers&layers=3,3";
        let e = errs(&format!("{stack}&l3.base=1s"));
        assert!(e[0].contains("l3.base: the stack has 2 layers"), "{e:?}");
        let e = errs(&format!("{stack}&l2.attempts=5"));
        assert!(e[0].contains("entry in layers"), "{e:?}");
        let e = errs(&format!("{stack}&l2.p=0.5"));
        assert!(e[0].contains("only its own policy"), "{e:?}");
        let e = errs("scenario=outage&l1.base=1s");
        assert!(e[0].contains("applies only with scenario=layers"), "{e:?}");
        let e = errs(&format!("{stack}&l2.base=2s&l2.cap=1s"));
        assert!(e.iter().any(|e| e.starts_with("l: l2.")), "{e:?}");
        let e = errs(&format!("{stack}&l2.base=soon"));
        assert!(e[0].starts_with("l: l2.base:"), "{e:?}");
        // The good keys still apply.
        let (p, _) = Params::parse_lenient(&format!("{stack}&l2.base=soon&l1.backoff=none"));
        assert_eq!(p.layer_text(), "l1.backoff=none");
    }

    #[test]
    fn layer_keys_round_trip_and_follow_the_links_policy() {
        let q = "v=2&scenario=layers&layers=3,3&l2.cap=5s&l1.backoff=none&l2.base=1s";
        let mut p: Params = q.parse().unwrap();
        assert_eq!(
            p.to_string(),
            "v=2&scenario=layers&layers=3,3&l1.backoff=none&l2.base=1s&l2.cap=5s"
        );
        assert_eq!(p.to_string().parse::<Params>().unwrap(), p);
        // Layer 2 keeps its own base and takes the link's new timeout.
        p.set("attempt_timeout", "700ms").unwrap();
        let two = p.layer_policy(2).unwrap();
        assert_eq!(two.attempt_timeout, crate::Micros::from_millis(700));
        assert_eq!(two.backoff.base, crate::Micros::from_secs(1));
        assert_eq!(two.max_attempts, 3, "its attempts are its entry in layers");
        // An edit that would break a layer's policy is refused, naming the layer.
        let e = p.clone().set("layers", "3").unwrap_err();
        assert_eq!(e.field, "layers");
        assert!(e.rule.contains("l2."), "{e}");
        p.set_layer_text("").unwrap();
        assert_eq!(p.layer_policy(2), None);
        assert!(
            p.set_layer_text("base=1s").is_err(),
            "a key without its layer"
        );
    }

    #[test]
    fn a_links_key_a_layer_cannot_take_is_reset_for_it() {
        // Envoy's whole-millisecond draws on top, a layer with gRPC's exponential backoff and
        // multiplicative jitter below: the layer runs its own backoff, without whole_ms.
        let q = "scenario=layers&layers=3,4&backoff=full&whole_ms=true&l2.backoff=exponential&l2.jitter=mult";
        let p: Params = q.parse().unwrap_or_else(|e| panic!("{e}"));
        let two = p.layer_policy(2).expect("layer 2 keeps its own policy");
        assert_eq!(two.backoff.kind.name(), "exponential");
        assert!(!two.backoff.whole_ms);
        assert_ne!(two.backoff.jitter, crate::retry::jitter::Jitter::None);
        assert!(p.policy.backoff.whole_ms, "the link's own policy keeps it");
        // A layer's own key that does not fit is still refused, naming it.
        let bad: Result<Params, _> =
            "scenario=layers&layers=3,4&l2.backoff=exponential&l2.whole_ms=true".parse();
        let e = bad.unwrap_err();
        assert!(e.rule.contains("l2.whole_ms"), "{e}");
    }

    #[test]
    fn each_layer_runs_its_own_policy() {
        // Under total failure with no deadline, every layer still makes its attempts.
        let stack = "scenario=layers&layers=3,3,3&p=1&requests=20&deadline=none&attempt_timeout=24h&backoff=none";
        assert_eq!(run(stack).attempts, 20 * 27);
        assert_eq!(
            run(&format!("{stack}&l2.backoff=full&l2.base=10ms&l2.cap=1s")).attempts,
            20 * 27
        );
        // A middle layer that does not retry 503 makes one attempt: 3 x 1 x 3.
        assert_eq!(run(&format!("{stack}&l2.retry_on=429")).attempts, 20 * 9);
        // A top layer whose deadline ends before its second attempt's answer: 1 x 3 x 3, as
        // the layers below take 9 ms (9 bottom calls of 1 ms) per call.
        let deadline = run(&format!("{stack}&l1.deadline=5ms"));
        assert_eq!(deadline.attempts, 20 * 9, "{deadline:?}");
        // The same keys on the link reach every layer instead.
        assert_eq!(
            run(&stack.replace("&backoff=none", "&backoff=none&retry_on=429")).attempts,
            20
        );
    }
}
