//! The page's views, which one a link opens, and the panels each is made of. A view is a set
//! of sections of `www/index.html`; a panel is one module under `panels/` behind the
//! `Panel` trait (`panel.rs`, on wasm32 only). This file is where both are registered: to add a
//! panel, write its module and give it one row of the registry below.

use retry_model::Params;

/// A view of the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// A policy-only link: the backoff schedule (`chart`) and one request's steps.
    Schedule,
    /// A scenario run, or two sides of a comparison: the timeline (`timeline`), the system
    /// under it (`system`), the scenario's own chart (`extras`, drawn by `bars`) and the tiles
    /// or the before/after table.
    Run,
    /// A sweep: one chart per metric against the swept key (`sweepchart`, from `sweepplan`).
    Sweep,
    /// A search for a better policy (`tune=on`): the frontier (`frontier`, from `tuneplan`).
    Tune,
}

impl View {
    /// Every view.
    pub const ALL: [View; 4] = [View::Schedule, View::Run, View::Sweep, View::Tune];

    /// The view a link opens.
    pub fn of(p: &Params) -> View {
        match (p.sim.scenario.is_some(), p.sweep().is_some()) {
            (false, _) => View::Schedule,
            (true, _) if p.tune.on => View::Tune,
            (true, false) => View::Run,
            (true, true) => View::Sweep,
        }
    }

    /// The page sections (element ids) the view shows; every other view's are hidden.
    pub fn sections(self) -> &'static [&'static str] {
        match self {
            View::Schedule => &["schedule-view-section", "trace-view"],
            View::Run => &["scenario-view", "run-section", "run-summary"],
            View::Sweep => &["scenario-view", "sweep-section", "sweep-summary"],
            View::Tune => &["scenario-view", "tune-section"],
        }
    }
}

/// Where a panel draws from: the policy side of the page (its schedule and traced request,
/// redrawn on every control change) or a scenario's last complete result (drawn in stages
/// when a run ends, in [`PANELS`] order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Host {
    /// Drawn from the page's state for a policy link.
    Policy,
    /// Drawn from a scenario run, comparison or sweep.
    Scenario,
    /// Drawn on every view, from the page's state and the scenario's finished result if there
    /// is one (the lesson and sheet bars).
    Page,
}

/// The registry: each panel's name, what it draws from, the element of `www/index.html` it
/// draws into and its type under `panels/`, written once. It gives [`PANELS`] and, on the page,
/// each panel's name and the panel of a name.
macro_rules! registry {
    ($(($name:literal, $host:expr, $element:literal, $panel:ident :: $ty:ident)),* $(,)?) => {
        /// Every panel: its name, what it draws from, and the element of `www/index.html` it
        /// draws into. A scenario result shows its panels in this order, one stage each.
        pub const PANELS: [(&str, Host, &str); [$($name),*].len()] = [$(($name, $host, $element)),*];

        $(
            #[cfg(target_arch = "wasm32")]
            impl crate::panel::PanelName for crate::panels::$panel::$ty {
                fn name(&self) -> &'static str {
                    $name
                }
            }
        )*

        /// The panel of this name.
        #[cfg(target_arch = "wasm32")]
        fn panel(name: &str) -> Option<Box<dyn crate::panel::Panel>> {
            match name {
                $($name => Some(Box::<crate::panels::$panel::$ty>::default()),)*
                _ => None,
            }
        }
    };
}

registry![
    ("lesson", Host::Page, "lesson-panel", lesson::LessonPanel),
    (
        "schedule",
        Host::Policy,
        "schedule",
        schedule::SchedulePanel
    ),
    ("trace", Host::Policy, "trace-view", trace::TracePanel),
    (
        "budget",
        Host::Policy,
        "budget-section",
        budget::BudgetPanel
    ),
    (
        "clients",
        Host::Policy,
        "clients-box",
        clients::ClientsPanel
    ),
    ("tiles", Host::Scenario, "tiles", tiles::Tiles),
    (
        "timeline",
        Host::Scenario,
        "timeline",
        timeline::TimelinePanel
    ),
    ("sweep", Host::Scenario, "sweep-charts", sweep::SweepPanel),
    (
        "system",
        Host::Scenario,
        "system-chart",
        system::SystemPanel
    ),
    ("extra", Host::Scenario, "extra-chart", extra::ExtraPanel),
    (
        "analytic",
        Host::Scenario,
        "analytic-section",
        analytic::AnalyticPanel
    ),
    ("tune", Host::Scenario, "tune-section", tune::TunePanel),
    ("tree", Host::Scenario, "tree-section", tree::Tree),
    ("ledger", Host::Scenario, "ledger-section", ledger::Ledger),
    (
        "readout",
        Host::Scenario,
        "timeline-readout",
        readout::Readout
    ),
];

/// The panels drawn from any of `hosts`, in [`PANELS`] order.
#[cfg(target_arch = "wasm32")]
pub(crate) fn panels(hosts: &[Host]) -> Vec<Box<dyn crate::panel::Panel>> {
    PANELS
        .iter()
        .filter(|(_, h, _)| hosts.contains(h))
        .filter_map(|(name, _, _)| panel(name))
        .collect()
}

/// The panel of this name among `panels`.
#[cfg(target_arch = "wasm32")]
pub(crate) fn find<'a>(
    panels: &'a mut [Box<dyn crate::panel::Panel>],
    name: &str,
) -> Option<&'a mut Box<dyn crate::panel::Panel>> {
    panels.iter_mut().find(|p| p.name() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_opens_its_view() {
        let of = |q: &str| View::of(&q.parse().unwrap());
        assert_eq!(of("preset=chapter"), View::Schedule);
        assert_eq!(of("preset=payments-none"), View::Run);
        assert_eq!(
            of("preset=payments-none&b.preset=payments-jitter"),
            View::Run
        );
        assert_eq!(of("preset=occ-2015&sweep.clients=10,20"), View::Sweep);
        assert_eq!(of("preset=payments-none&tune=on"), View::Tune);
        // Every view shows something, and no two views are the same sections.
        for v in View::ALL {
            assert!(!v.sections().is_empty());
        }
        assert_ne!(View::Run.sections(), View::Sweep.sections());
    }

    #[test]
    fn every_panel_has_its_element_and_a_name_of_its_own() {
        let html = include_str!("../../../www/index.html");
        for (i, (name, _, id)) in PANELS.iter().enumerate() {
            assert!(
                html.contains(&format!("id=\"{id}\"")),
                "{name}: no #{id} in the page"
            );
            assert!(
                PANELS[..i].iter().all(|(n, _, _)| n != name),
                "{name} twice"
            );
        }
        // Both hosts have panels; the scenario's stages start with its tiles.
        assert_eq!(
            PANELS.iter().find(|p| p.1 == Host::Scenario).map(|p| p.0),
            Some("tiles")
        );
        assert!(PANELS.iter().any(|p| p.1 == Host::Policy));
    }
}
