//! The page's views and which one a link opens. Each view is one module that draws (and
//! returns its pixel-to-data map) and one section of `www/index.html`; this table is where
//! they are registered. Pure, so it is tested natively.

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
}

impl View {
    /// Every view.
    pub const ALL: [View; 3] = [View::Schedule, View::Run, View::Sweep];

    /// The view a link opens.
    pub fn of(p: &Params) -> View {
        match (p.sim.scenario.is_some(), p.sweep().is_some()) {
            (false, _) => View::Schedule,
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
        }
    }
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
        // Every view shows something, and no two views are the same sections.
        for v in View::ALL {
            assert!(!v.sections().is_empty());
        }
        assert_ne!(View::Run.sections(), View::Sweep.sections());
    }
}
