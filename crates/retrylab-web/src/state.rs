//! The page's state and its pure update function. No DOM here, so it is tested natively.

use retry_model::{schedule, trace, ConfigError, Params, Preset, Schedule, Trace};

/// What the user did.
#[derive(Clone, Debug, PartialEq)]
pub enum Msg {
    /// A control changed: link key and its link text.
    Set(&'static str, String),
    /// A preset was picked ("" for none: back to the defaults).
    Preset(String),
    /// The page opened (or went back) with this query.
    Load(String),
    /// The pointer is over this schedule dot (client index), or left the chart.
    Hover(Option<u32>),
    /// Side B's keys, as link text without the `b.` prefix ("" ends the comparison).
    SideB(String),
    /// The sweep's keys, as link text without the `sweep.` prefix ("" ends the sweep).
    Sweep(String),
    /// The layers' own keys (`l2.base=25ms&...`), as text.
    Layers(String),
    /// A lesson was picked from the menu ("" for none): its link, with `lesson=<id>`.
    Lesson(String),
}

/// Everything the page shows, derived from the link.
pub struct State {
    /// The settings shown and shared.
    pub params: Params,
    /// Problems with the last input, each naming its key. The rest of the page keeps the last
    /// good settings.
    pub errors: Vec<ConfigError>,
    /// The schedule drawn on the chart.
    pub schedule: Schedule,
    /// Side B's schedule, for a policy link with `b.` keys (two clients compared).
    pub schedule_b: Option<Schedule>,
    /// The traced request.
    pub trace: Trace,
    /// The client highlighted across every retry, if any.
    pub hover: Option<u32>,
    /// Keys the last edit put back because it left them with no effect, each with the reason.
    pub notices: Vec<String>,
    /// The address as the reader opened it, kept in the address bar while its errors stand,
    /// so a refused link is not silently rewritten; the first good edit ends it.
    pub kept_address: Option<String>,
}

impl State {
    /// The state for a query, applying every good key and listing the bad ones.
    pub fn from_query(query: &str) -> State {
        let mut s = Self::read_query(query);
        if !s.errors.is_empty() {
            s.kept_address = Some(query.to_string());
        }
        s
    }

    fn read_query(query: &str) -> State {
        let (params, mut errors) = Params::parse_lenient(query);
        match Self::derive(&params) {
            Ok((schedule, trace)) => State {
                schedule_b: retry_model::json::schedule_b(&params).map(|b| b.1),
                params,
                errors,
                schedule,
                trace,
                hover: None,
                notices: Vec::new(),
                kept_address: None,
            },
            Err(e) => {
                errors.push(e);
                let params = Params::default();
                // Not `expect`: that formats the error with `Debug`, whose string escaping links
                // Unicode tables into the page's wasm for a message no one should see.
                let (schedule, trace) = match Self::derive(&params) {
                    Ok(both) => both,
                    Err(e) => panic!("the defaults are valid: {e}"),
                };
                State {
                    schedule_b: retry_model::json::schedule_b(&params).map(|b| b.1),
                    params,
                    errors,
                    schedule,
                    trace,
                    hover: None,
                    notices: Vec::new(),
                    kept_address: None,
                }
            }
        }
    }

    /// The schedule and the traced request of the link's policy. A scenario link's clients
    /// are its storm's (up to a million) and its view shows no schedule: its schedule is
    /// drawn for as many of them as the schedule's limit allows.
    fn derive(p: &Params) -> Result<(Schedule, Trace), ConfigError> {
        let drawn = if p.sim.scenario.is_some() {
            let retries = p.policy.max_attempts.saturating_sub(1).max(1);
            let most = retry_model::MAX_SCHEDULE_DRAWS / u64::from(retries);
            let mut q = p.clone();
            q.clients = p
                .clients
                .min(most.clamp(1, u64::from(retry_model::MAX_CLIENTS)) as u32);
            schedule(&q)?
        } else {
            schedule(p)?
        };
        Ok((drawn, trace(p)?))
    }

    /// The query to put in the address bar.
    pub fn link(&self) -> String {
        self.params.to_string()
    }

    /// Applies a message. Returns true when the link changed.
    pub fn update(&mut self, msg: Msg) -> bool {
        match msg {
            Msg::Hover(h) => {
                self.hover = h.filter(|c| *c < self.schedule.clients);
                false
            }
            Msg::Load(q) => {
                *self = State::from_query(&q);
                true
            }
            Msg::Preset(name) => {
                self.notices.clear();
                let mut next = Params::default();
                let res = if name.is_empty() {
                    Ok(())
                } else {
                    next.set("preset", &name)
                };
                self.try_apply(res.map(|_| next))
            }
            Msg::Lesson(id) => {
                self.notices.clear();
                let next = match retry_model::Lesson::from_id(&id) {
                    Some(l) => format!("{}&lesson={}", l.link, l.id).parse::<Params>(),
                    None => Ok(Params::default()),
                };
                self.try_apply(next)
            }
            Msg::SideB(text) => {
                let mut next = self.params.clone();
                let res = next.set_side_b(&text).map(|_| next);
                self.try_apply(res)
            }
            Msg::Sweep(text) => {
                let mut next = self.params.clone();
                let res = next.set_sweep_text(&text).map(|_| next);
                self.try_apply(res)
            }
            Msg::Layers(text) => {
                let mut next = self.params.clone();
                let res = next.set_layer_text(&text).map(|_| next);
                self.try_apply(res)
            }
            Msg::Set(key, value) => {
                let mut next = self.params.clone();
                let res = next.set(key, &value).map(|_| {
                    // Keys this edit left with no effect go back to their preset's or default
                    // value, and the page says so (backoff=none resets base), instead of the
                    // edit being refused.
                    let (kept, reset) = next.without_inert(key);
                    (kept, reset)
                });
                // Any edit leaves the preset's exact settings, but the link keeps naming the preset
                // it started from, with the edits written after it.
                match res {
                    Ok((next, reset)) => {
                        let changed = self.try_apply(Ok(next));
                        if changed {
                            self.notices = reset
                                .iter()
                                .map(|e| format!("{} reset: {}", e.field, e.rule))
                                .collect();
                        }
                        changed
                    }
                    Err(e) => self.try_apply(Err(e)),
                }
            }
        }
    }

    fn try_apply(&mut self, next: Result<Params, ConfigError>) -> bool {
        let next = match next {
            Ok(n) => n,
            Err(e) => {
                self.set_error(e);
                return false;
            }
        };
        match Self::derive(&next) {
            Ok((schedule, trace)) => {
                self.errors.clear();
                self.kept_address = None;
                self.schedule_b = retry_model::json::schedule_b(&next).map(|b| b.1);
                self.params = next;
                self.schedule = schedule;
                self.trace = trace;
                self.hover = self.hover.filter(|c| *c < self.schedule.clients);
                true
            }
            Err(e) => {
                self.set_error(e);
                false
            }
        }
    }

    fn set_error(&mut self, e: ConfigError) {
        self.errors.retain(|old| old.field != e.field);
        self.errors.push(e);
    }

    /// The preset names for the menu.
    pub fn presets() -> impl Iterator<Item = (&'static str, &'static str)> {
        Preset::ALL.into_iter().map(|p| (p.name(), p.title()))
    }

    /// The preset menu's groups, in order: the worked examples and scenarios, the first client
    /// policies, then the retry client libraries by ecosystem; each group's `(name, title)`s.
    pub fn preset_groups() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
        let own = |scenario: bool| -> Vec<(&'static str, &'static str)> {
            Preset::ALL
                .into_iter()
                .filter(|p| p.client().is_none() && p.is_scenario() == scenario)
                .map(|p| (p.name(), p.title()))
                .collect()
        };
        let mut groups = vec![
            ("Policies and worked examples", own(false)),
            ("Scenarios", own(true)),
        ];
        for eco in retry_model::Ecosystem::ALL {
            let rows: Vec<_> = Preset::ALL
                .into_iter()
                .filter(|p| p.client().is_some_and(|c| c.ecosystem == eco))
                .map(|p| (p.name(), p.title()))
                .collect();
            if !rows.is_empty() {
                groups.push((eco.label(), rows));
            }
        }
        groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preset_menu_groups_every_preset_once() {
        let groups = State::preset_groups();
        let names: Vec<&str> = groups
            .iter()
            .flat_map(|(_, g)| g.iter().map(|r| r.0))
            .collect();
        assert_eq!(names.len(), Preset::ALL.len());
        for p in Preset::ALL {
            assert_eq!(
                names.iter().filter(|n| **n == p.name()).count(),
                1,
                "{}",
                p.name()
            );
        }
        let python = groups.iter().find(|g| g.0 == "Python clients").unwrap();
        assert!(python.1.iter().any(|r| r.0 == "openai"));
        let specs = groups
            .iter()
            .find(|g| g.0 == "Proxies and specifications")
            .unwrap();
        assert!(specs.1.iter().any(|r| r.0 == "envoy-docs"));
    }

    #[test]
    fn a_refused_link_keeps_its_address_until_the_reader_changes_something() {
        let s = State::from_query("preset=nope&attempts=4");
        assert_eq!(s.errors[0].field, "preset");
        assert_eq!(s.kept_address.as_deref(), Some("preset=nope&attempts=4"));
        assert_eq!(s.params.policy.max_attempts, 4, "the good keys still apply");
        let mut s = s;
        assert!(s.update(Msg::Set("attempts", "5".into())));
        assert_eq!(s.kept_address, None);
        assert!(State::from_query("preset=chapter").kept_address.is_none());
    }

    #[test]
    fn a_lesson_opens_its_link_and_a_guess_goes_in_the_link() {
        let mut s = State::from_query("");
        assert!(s.update(Msg::Lesson("layers-three".into())));
        assert_eq!(s.link(), "v=2&preset=layers-333&lesson=layers-three");
        assert!(s.update(Msg::Set("guess", "27".into())));
        assert_eq!(
            s.link(),
            "v=2&preset=layers-333&lesson=layers-three&guess=27"
        );
        assert!(!s.update(Msg::Set("guess", "2 < 7".into())));
        assert_eq!(s.errors[0].field, "guess");
        assert!(s.update(Msg::Lesson(String::new())));
        assert_eq!(s.link(), "v=2");
    }

    #[test]
    fn side_b_and_the_sweep_are_edited_and_a_bad_edit_keeps_the_last_good_link() {
        let mut s = State::from_query("preset=payments-none&b.preset=payments-jitter");
        assert!(s.update(Msg::SideB("preset=payments-jitter&attempts=3".into())));
        assert_eq!(
            s.link(),
            "v=2&preset=payments-none&b.preset=payments-jitter&b.attempts=3"
        );
        assert!(!s.update(Msg::SideB("attempts=0".into())));
        assert_eq!(s.errors[0].field, "b");
        assert!(
            s.link().ends_with("b.attempts=3"),
            "the last good link stays"
        );
        assert!(s.update(Msg::SideB(String::new())));
        assert!(s.errors.is_empty());
        assert!(s.update(Msg::Sweep("outage=1s..3s/1s".into())));
        assert_eq!(s.link(), "v=2&preset=payments-none&sweep.outage=1s..3s/1s");
        assert!(!s.update(Msg::Sweep("wat=1".into())));
        assert_eq!(s.errors[0].field, "sweep");
        assert!(!s.update(Msg::SideB("backoff=none".into())), "not both");
        assert_eq!(s.params.sweep().map(|w| w.axes.len()), Some(1));
    }

    #[test]
    fn bad_input_keeps_the_last_good_state() {
        let mut s = State::from_query("attempts=4");
        let before = s.trace.fingerprint();
        assert!(
            !s.update(Msg::Set("base", "50s".into())),
            "base > cap is refused"
        );
        assert_eq!(s.errors.len(), 1);
        assert_eq!(s.errors[0].field, "base");
        assert_eq!(s.trace.fingerprint(), before);
        assert!(s.update(Msg::Set("base", "200ms".into())));
        assert!(s.errors.is_empty());
        assert_eq!(s.link(), "v=2&attempts=4&base=200ms");
    }

    #[test]
    fn bad_link_applies_the_good_keys() {
        let s = State::from_query("?attempts=5&clients=zero&seed=3");
        assert_eq!(s.params.policy.max_attempts, 5);
        assert_eq!(s.params.seed, 3);
        assert_eq!(s.errors[0].field, "clients");
        assert_eq!(s.schedule.retries.len(), 4);
    }

    #[test]
    fn invalid_combination_falls_back_to_defaults_with_a_message() {
        let s = State::from_query("base=9s&cap=1s");
        assert_eq!(s.errors[0].field, "base");
        assert_eq!(s.params, Params::default());
    }

    #[test]
    fn preset_then_edit() {
        let mut s = State::from_query("");
        assert!(s.update(Msg::Preset("guide-700ms".into())));
        assert_eq!(s.trace.stop_reason.name(), "wont_fit");
        assert!(s.update(Msg::Set("waits", "150ms".into())));
        assert_eq!(s.trace.stop_reason.name(), "success");
        assert_eq!(s.link(), "v=2&preset=guide-700ms&waits=150ms");
        assert!(!s.update(Msg::Preset("nope".into())));
        assert_eq!(s.errors[0].field, "preset");
    }

    #[test]
    fn an_edit_that_makes_a_key_inert_resets_it_and_says_so() {
        let mut s = State::from_query("base=10ms&multiplier=3");
        assert!(s.update(Msg::Set("backoff", "none".into())));
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        assert_eq!(s.link(), "v=2&backoff=none");
        assert_eq!(s.notices.len(), 2);
        assert!(s.notices[0].starts_with("base reset: has no effect with backoff=none"));
        assert!(s.update(Msg::Set("backoff", "full".into())));
        assert!(s.notices.is_empty());
    }

    #[test]
    fn hover_is_bounded() {
        let mut s = State::from_query("clients=5");
        s.update(Msg::Hover(Some(4)));
        assert_eq!(s.hover, Some(4));
        s.update(Msg::Hover(Some(5)));
        assert_eq!(s.hover, None);
    }

    /// A storm of a million clients opens: its hidden schedule is drawn for as many clients as
    /// the schedule's limit allows (50,000 waits over 9 retries).
    #[test]
    fn a_million_client_storm_keeps_a_schedule_the_page_can_draw() {
        let big = State::from_query("scenario=burst&clients=1000000&attempts=10&deadline=none");
        assert!(big.errors.is_empty(), "{:?}", big.errors);
        assert_eq!(big.schedule.clients, 5555);
        // A policy link's own schedule still refuses what it cannot draw.
        let policy = State::from_query("clients=20000");
        assert_eq!(policy.errors.first().map(|e| e.field), Some("clients"));
    }
}
