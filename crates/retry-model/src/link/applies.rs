//! No setting silently does nothing: a key set where it has no effect is refused.
//!
//! Simulation keys are refused by their types (a scenario's settings hold only what it reads,
//! `sim::settings`); this file refuses the policy keys a scenario does not use (`attempts` in
//! `occ`, `outcomes` in any simulation) and the keys that need another setting.
//!
//! Each key's row says where it acts (the one-request view, or some scenarios). A link that sets
//! a key elsewhere (`scenario=lost&breaker=on`) is refused with a message naming the key and
//! where it applies, so a student who turns the breaker on in the idempotency lab is told why
//! nothing would change. A few keys act only beside another setting (`tenants` needs
//! `budget_scope=tenant`); those rules are here too.
//!
//! ```
//! use retry_model::Params;
//! let e = "scenario=lost&breaker=on".parse::<Params>().unwrap_err();
//! assert_eq!(e.field, "breaker");
//! assert!(e.rule.contains("scenario=outage, burst"));
//! ```

use super::keys::{self, Applies};
use super::Params;
use super::BACKOFF_SHAPE_KEYS;
use crate::retry::backoff::BackoffKind;
use crate::retry::budget::{BudgetConfig, Scope};
use crate::retry::error::ConfigError;
use alloc::string::String;
use alloc::vec::Vec;

impl Params {
    /// Every key that is set (written in `explicit`, or differing from the preset or the
    /// defaults) where it has no effect, as errors naming the key.
    pub fn inapplicable(&self, explicit: &[&str]) -> Vec<ConfigError> {
        let mut set: Vec<&'static str> = self.written().into_iter().map(|(k, _)| k).collect();
        for k in explicit {
            if let Some(row) = keys::key(k) {
                if !set.contains(&row.name) {
                    set.push(row.name);
                }
            }
        }
        set.into_iter()
            .filter_map(|name| self.no_effect(name))
            .collect()
    }

    /// Why `name` would have no effect in this link (its scenario, or a setting it needs), if
    /// it would not. The page disables such a control and shows this beside it.
    pub fn no_effect(&self, name: &str) -> Option<ConfigError> {
        let scenario = self.sim.kind();
        let row = keys::key(name)?;
        if !row.applies.contains(Applies::of(scenario)) {
            return Some(row.not_here(scenario));
        }
        self.needs(row.name).map(|rule| row.error(rule))
    }

    /// This link without the keys that the edit of `edited` left with no effect: each is put
    /// back to its preset's (or default) value, and named with the reason. The page uses it so
    /// that switching `backoff` to `none` resets `base` instead of refusing the switch.
    pub fn without_inert(&self, edited: &str) -> (Params, Vec<ConfigError>) {
        self.without_inert_except(&[edited])
    }

    /// This link without every key that has no effect in it, but those in `keep`: each is put
    /// back to its preset's (or default) value, and named with the reason. A sweep's row and a
    /// comparison's side are made this way from a link whose keys act on other rows or sides.
    pub fn without_inert_except(&self, keep: &[&str]) -> (Params, Vec<ConfigError>) {
        let inert: Vec<ConfigError> = self
            .inapplicable(&[])
            .into_iter()
            .filter(|e| !keep.contains(&e.field))
            .collect();
        if inert.is_empty() {
            return (self.clone(), inert);
        }
        let kept: Vec<String> = self
            .written()
            .into_iter()
            .filter(|(k, _)| !inert.iter().any(|e| e.field == *k))
            .map(|(k, v)| alloc::format!("{k}={v}"))
            .collect();
        let (p, _) = Params::parse_lenient(&kept.join("&"));
        (p, inert)
    }

    /// Whether `name`, with no effect on this side, acts on side B or on some row of the sweep:
    /// then it is not refused here ("refuse only what nothing uses").
    pub fn used_elsewhere(&self, name: &str) -> bool {
        if let Some(b) = self.side_b() {
            if b.no_effect(name).is_none() {
                return true;
            }
        }
        self.sweep().is_some_and(|s| {
            let base = Params {
                sweep: None,
                ..self.clone()
            };
            super::sweep::combinations(&s.axes).any(|vals| {
                let mut row = base.clone();
                s.axes
                    .iter()
                    .zip(vals)
                    .all(|(a, v)| row.set(a.key, v).is_ok())
                    && row.no_effect(name).is_none()
            })
        })
    }

    /// A key that acts only beside another setting: the rule it breaks, if it does.
    /// `layer_names` names every layer of `layers`, or none.
    fn layer_names_needs(&self) -> Option<&'static str> {
        let Some(crate::sim::Scenario::Layers(l)) = &self.sim.scenario else {
            return None;
        };
        (!l.names.is_empty() && l.names.len() != l.layers.len())
            .then_some("needs one name for each layer of `layers`")
    }

    fn needs(&self, name: &str) -> Option<&'static str> {
        if let Some(rule) = self.server_needs(name) {
            return Some(rule);
        }
        if let Some(rule) = self.hedge_needs(name) {
            return Some(rule);
        }
        let pol = &self.policy;
        let no_budget = pol.budget == BudgetConfig::None;
        let kind = pol.backoff.kind;
        let grows = matches!(
            kind,
            BackoffKind::Exponential | BackoffKind::Full | BackoffKind::Equal
        );
        let fixed = matches!(kind, BackoffKind::Exponential | BackoffKind::Constant);
        let jitter = self.jitter_keys.jitter();
        if let Some(rule) = self.retry_after_needs(name) {
            return Some(rule);
        }
        if name == "layer_names" {
            return self.layer_names_needs();
        }
        match name {
            "multiplier" | "first_exp" | "multiplier_from_base" | "ceiling_sum" if !grows => Some(
                "has no effect with this backoff: it shapes backoff=exponential, full and equal",
            ),
            "whole_ms" if kind != BackoffKind::Full => {
                Some("has no effect with this backoff: it draws backoff=full's wait in whole ms")
            }
            "multiplier" if pol.backoff.multiplier_from_base => {
                Some("has no effect with multiplier_from_base=true: the base sets the growth")
            }
            "jitter" if !fixed => Some(
                "has no effect with this backoff: it spreads the fixed wait of backoff=exponential and constant",
            ),
            "jitter_lo" | "jitter_hi" if !matches!(jitter, crate::Jitter::Mult { .. }) => {
                Some("has no effect unless jitter=mult")
            }
            "jitter_add" if !matches!(jitter, crate::Jitter::Add(_)) => {
                Some("has no effect unless jitter=add")
            }
            "jitter_after_cap" if jitter == crate::Jitter::None => {
                Some("has no effect unless jitter=mult or add")
            }
            "sorted" if !kind.is_jittered() && jitter == crate::Jitter::None => Some(
                "has no effect unless the waits are random (a jittered backoff, or jitter=mult or add)",
            ),
            "first_wait" if kind == BackoffKind::None => {
                Some("has no effect with backoff=none (every wait is 0, or the floor)")
            }
            "base" | "cap" | "throttle_base" if kind == BackoffKind::None => {
                Some("has no effect with backoff=none (every wait is 0, or the floor)")
            }
            "budget_start" | "budget_scope" if no_budget => {
                Some("has no effect with budget=none: choose a budget first")
            }
            "sequential" if self.sim.runs.0 <= 1 => {
                Some("has no effect with runs=1: it stops a link's runs once the share that recovered is clear of 50%")
            }
            "tune_candidates" | "tune_runs" | "tune_max_amp" | "tune_p99" | "tune_format"
            | "tune_weather" | "tune_max_peak" | "tune_recover"
                if !self.tune.on =>
            {
                Some("has no effect unless tune=on: it sets the search for a better policy")
            }
            "tune" if self.sweep.is_some() || self.compare.is_some() => Some(
                "searches the policy of one link: drop the link's sweep. and b. keys first",
            ),
            "tenants" if pol.scope != Scope::Tenant => {
                Some("has no effect unless budget_scope=tenant")
            }
            "guess" if self.exercise().is_none() => Some(
                "has no effect without a question (lesson=layers-three, or ask=amplification, say)",
            ),
            "sheet_at" if self.sheet.is_none() => Some("has no effect without a sheet"),
            "q" if self.ask.is_none() => {
                Some("has no effect without ask: name the figure the question asks for")
            }
            _ => None,
        }
    }
}

impl Params {
    /// What `hedge=on` replaces: the retry loop's attempts, waits and Retry-After (a hedged
    /// request's attempts are `hedge_max`, sent every `hedge_delay`), and what the lab does not
    /// run beside it (the breaker, the adaptive limiter).
    fn hedge_needs(&self, name: &str) -> Option<&'static str> {
        let on = self.sim.server().is_some_and(|sv| sv.hedge.on);
        if !on {
            return match name {
                "hedge_delay" | "hedge_max" => Some("has no effect unless hedge=on"),
                _ => None,
            };
        }
        match name {
            "attempts" => Some("has no effect with hedge=on: hedge_max counts a hedged request's attempts"),
            "backoff" | "base" | "cap" | "multiplier" | "first_exp" | "floor" | "throttle_base"
            | "fit" => Some("has no effect with hedge=on: further attempts go every hedge_delay, or at once after a failure, never after a backoff"),
            n if BACKOFF_SHAPE_KEYS.contains(&n) => Some("has no effect with hedge=on: further attempts go every hedge_delay, or at once after a failure, never after a backoff"),
            "retry_after" | "ra_mode" | "ra_cap" | "ra_max" => {
                Some("has no effect with hedge=on: a hedged request reads no Retry-After")
            }
            "breaker" | "limiter" | "limiter_scope" => Some(
                "is not run beside hedge=on (gRPC's hedging has neither): turn hedging off to use it",
            ),
            "budget" | "envoy_max_retries" | "envoy_budget_percent" | "envoy_min_retry_concurrency"
                if matches!(
                    self.policy.budget,
                    BudgetConfig::Envoy(_) | BudgetConfig::EnvoyBudget(_)
                ) =>
            {
                Some(
                    "Envoy's budgets are not run beside hedge=on: they count retries, and a hedged request sends none; use budget=grpc, gRPC's throttle on hedges",
                )
            }
            _ => None,
        }
    }

    /// `ra_cap` and `ra_max` act only with their Retry-After rule.
    fn retry_after_needs(&self, name: &str) -> Option<&'static str> {
        use crate::retry::policy::RetryAfterMode;
        let mode = self.policy.retry_after_mode;
        match name {
            "ra_cap" if mode != RetryAfterMode::Cap => Some("has no effect unless ra_mode=cap"),
            "ra_max" if !matches!(mode, RetryAfterMode::RefuseAbove | RetryAfterMode::Envoy) => {
                Some("has no effect unless ra_mode=refuse_above or ra_mode=envoy")
            }
            _ => None,
        }
    }

    /// The server keys that act only with some servers (`capacity` with `server=tick`,
    /// `workers` with `server=queue`...): the rule `name` breaks in this link, if it does.
    fn server_needs(&self, name: &str) -> Option<&'static str> {
        use crate::sim::{ServerKind, ServiceDist};
        if let Some(crate::sim::Scenario::Outage(o)) = &self.sim.scenario {
            match name {
                "rate" | "arrivals" if o.users > 0 => {
                    return Some("has no effect with users > 0: a closed loop's users send their next request after their answer and think time")
                }
                "think" if o.users == 0 => return Some("has no effect unless users > 0 (a closed loop)"),
                n if n.starts_with("recovery_") && !has_trigger(o) => {
                    return Some("has no effect without a trigger (an outage, a load spike or a capacity drop) to recover from")
                }
                _ => {}
            }
        }
        let sv = self.sim.server()?;
        let kind = sv.kind;
        match name {
            "capacity" | "tick" | "reject_cost" if kind != ServerKind::Tick => {
                Some("has no effect with this server: it shapes server=tick")
            }
            "workers"
            | "queue_limit"
            | "discipline"
            | "latency_per_inflight"
            | "server_deadline"
                if kind != ServerKind::Queue =>
            {
                Some("has no effect unless server=queue")
            }
            "fail" if kind != ServerKind::Flaky => Some("has no effect unless server=flaky"),
            "limiter_scope" if !sv.limiter => Some("has no effect unless limiter=aws-adaptive"),
            "service" | "service_dist" if kind == ServerKind::Tick => {
                Some("has no effect with server=tick: it shapes server=queue and flaky")
            }
            "service_cv" if sv.queue.dist != ServiceDist::Lognormal => {
                Some("has no effect unless service_dist=lognormal")
            }
            "service_tail" | "service_tail_p" if sv.queue.dist != ServiceDist::Mix => {
                Some("has no effect unless service_dist=mix")
            }
            _ => None,
        }
    }
}

/// Whether an `outage` link has something to recover from: the outage, a load spike or a
/// capacity drop.
pub(super) fn has_trigger(o: &crate::sim::Outage) -> bool {
    let sv = &o.server;
    o.outage.0 > 0
        || (o.spike_rate_milli > 0 && o.spike.length.0 > 0)
        || (sv.slow_milli > 1000 && sv.slow.length.0 > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_idempotency_lab_refuses_what_it_does_not_model() {
        let (p, errors) = Params::parse_lenient(
            "scenario=lost&breaker=on&arrivals=poisson&budget_scope=tenant&tenants=7",
        );
        let fields: Vec<&str> = errors.iter().map(|e| e.field).collect();
        assert_eq!(fields, ["budget_scope", "arrivals", "tenants", "breaker"]);
        assert!(
            errors[3].rule.contains("applies to scenario=outage, burst"),
            "{}",
            errors[3]
        );
        // The refused keys are left out; the rest of the link stands.
        assert_eq!(p.to_string(), "v=2&scenario=lost");
    }

    #[test]
    fn keys_refused_outside_their_scenarios() {
        for (q, field) in [
            ("breaker=on", "breaker"),
            ("scenario=occ&attempts=5", "attempts"),
            ("scenario=occ&budget=bucket", "budget"),
            ("scenario=layers&budget=aws", "budget"),
            ("scenario=layers&attempts=4", "attempts"),
            ("scenario=outage&outcomes=503", "outcomes"),
            ("scenario=burst&duration=5s", "duration"),
            ("scenario=lost&capacity=10", "capacity"),
            ("scenario=occ&bin=2s", "bin"),
            ("scenario=outage&net_sd=1ms", "net_sd"),
            ("budget_scope=client", "budget_scope"),
            ("scenario=outage&budget=aws&tenants=4", "tenants"),
            // Written with the default value, still a setting that would do nothing.
            ("scenario=lost&breaker=off", "breaker"),
        ] {
            let e = q.parse::<Params>().unwrap_err();
            assert_eq!(e.field, field, "{q}: {e}");
            assert!(e.rule.contains("no effect"), "{q}: {e}");
        }
        for q in [
            "scenario=outage&budget=aws&budget_scope=tenant&tenants=4",
            "scenario=outage&budget=aws&budget_scope=client&clients=5",
            // `clients` also sets the schedule view's clients, whatever the scope.
            "scenario=outage&clients=5",
            "scenario=occ&backoff=equal&clients=50&net_sd=1ms",
            "scenario=layers&layers=2,3&p=0.5",
            "preset=payments-none&breaker=on",
        ] {
            q.parse::<Params>().unwrap_or_else(|e| panic!("{q}: {e}"));
        }
    }

    #[test]
    fn backoff_shape_keys_need_their_kind() {
        for (q, field) in [
            ("backoff=decorrelated&multiplier=3", "multiplier"),
            ("backoff=constant&first_exp=2", "first_exp"),
            ("backoff=none&base=10ms", "base"),
            ("preset=payments-none&cap=5s", "cap"),
        ] {
            let e = q.parse::<Params>().unwrap_err();
            assert_eq!(e.field, field, "{q}: {e}");
        }
        "backoff=equal&multiplier=3&first_exp=1"
            .parse::<Params>()
            .unwrap();
        "backoff=none&floor=5ms".parse::<Params>().unwrap();
    }

    #[test]
    fn an_edit_resets_what_it_made_inert() {
        let mut p: Params = "base=10ms&multiplier=3&budget=aws&budget_scope=client&scenario=outage"
            .parse()
            .unwrap();
        p.set("backoff", "none").unwrap();
        let (q, reset) = p.without_inert("backoff");
        let fields: Vec<&str> = reset.iter().map(|e| e.field).collect();
        assert_eq!(fields, ["base", "multiplier"]);
        assert_eq!(
            q.to_string(),
            "v=2&backoff=none&budget=aws&budget_scope=client&scenario=outage"
        );
        q.validate().unwrap();
        p.set("budget", "none").unwrap();
        let (q, reset) = p.without_inert("budget");
        assert!(reset.iter().any(|e| e.field == "budget_scope"));
        assert_eq!(q.to_string(), "v=2&backoff=none&scenario=outage");
    }

    #[test]
    fn every_preset_sets_only_what_applies() {
        for preset in crate::Preset::ALL {
            let p: Params = alloc::format!("preset={}", preset.name()).parse().unwrap();
            let mut bare = Params {
                preset: None,
                ..p.clone()
            };
            bare.preset = None;
            let errors = bare.inapplicable(&[]);
            assert!(errors.is_empty(), "{}: {:?}", preset.name(), errors);
        }
    }

    #[test]
    fn the_client_vocabulary_is_refused_where_it_does_nothing() {
        for (q, field) in [
            ("backoff=full&jitter=mult", "jitter"),
            (
                "backoff=exponential&jitter=mult&jitter_add=5ms",
                "jitter_add",
            ),
            ("backoff=exponential&jitter=add&jitter_lo=0.5", "jitter_lo"),
            (
                "backoff=exponential&jitter_after_cap=true",
                "jitter_after_cap",
            ),
            ("backoff=exponential&sorted=true", "sorted"),
            ("backoff=none&first_wait=0", "first_wait"),
            ("backoff=constant&ceiling_sum=true", "ceiling_sum"),
            (
                "backoff=exponential&multiplier_from_base=true&multiplier=3",
                "multiplier",
            ),
            ("ra_cap=1h", "ra_cap"),
            ("ra_mode=cap&ra_max=10s", "ra_max"),
        ] {
            let (_, errors) = Params::parse_lenient(q);
            assert!(errors.iter().any(|e| e.field == field), "{q}: {errors:?}");
        }
        let q = "backoff=exponential&base=500ms&cap=8s&jitter=mult&jitter_lo=0.75&jitter_hi=1&jitter_after_cap=true&first_wait=0&sorted=true&ra_mode=refuse_above&ra_max=2m&retry_on=408,429,500-599";
        let (p, errors) = Params::parse_lenient(q);
        assert!(errors.is_empty(), "{errors:?}");
        let again: Params = p.to_string().parse().unwrap();
        assert_eq!(again, p);
        assert_eq!(again.get("ra_max").as_deref(), Some("120s"));
        assert_eq!(again.get("retry_on").as_deref(), Some("408,429,500-599"));
    }
}
