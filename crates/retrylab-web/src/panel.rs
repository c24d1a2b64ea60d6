//! What every panel of the page is: a small trait over the link and the last complete result.
//!
//! A panel owns what it alone needs (a stepping position, where its marks landed for the
//! pointer) and draws one part of a view: the schedule, the budget walk, the tiles, the
//! timeline, a sweep's charts, the system's charts, the scenario's own chart, the call tree,
//! the ledger, the readout. `views.rs` registers them; the glue calls them through this trait
//! and never reaches into one (their modules keep what they draw with to themselves). Nothing here computes: the numbers are the core's.

use crate::state::State;
use crate::sweepplan::Plan;
use retry_model::sim::SimReport;
use retry_model::Params;

/// A scenario link's last complete result: one run, the two sides of a comparison, or a
/// sweep's rows.
pub(crate) struct PanelOutcome {
    /// A sweep's rows; `None` for one run or a comparison.
    pub plan: Option<Plan>,
    /// The link the result is for.
    pub link: String,
    /// Each side's link (one, or A and B).
    pub sides: Vec<String>,
    /// Each side's report (or a sweep's rows, in the plan's order).
    pub reports: Vec<SimReport>,
    /// A `lost` link's twin: the same link with the idempotency key switched.
    pub twin: Option<SimReport>,
    /// Side A's analytic twin (a queue server's chain), if the link has a queue server, and
    /// the milliseconds the worker took to solve it.
    pub analytic: Option<(crate::twin::Twin, f64)>,
    /// A comparison's steps from A to B, each with its run's summary (which piece solves
    /// which part).
    pub ladder: Option<(Vec<retry_model::LadderStep>, Vec<retry_model::sim::Summary>)>,
    /// The link's parameters.
    pub params: Params,
    /// The trigger's window in seconds and its name, shaded on the timeline.
    pub outage: Option<(f64, f64, &'static str)>,
    /// A `tune=on` link's search, once it is over (its rounds' reports are not kept).
    pub tune: Option<crate::tuneplan::TuneOutcome>,
}

impl PanelOutcome {
    /// Each report's summary, in order.
    pub fn summaries(&self) -> Vec<retry_model::sim::Summary> {
        self.reports.iter().map(|r| r.summary.clone()).collect()
    }
}

/// What a panel draws from.
pub(crate) struct PanelCtx<'a> {
    /// The page's state for a policy link (its schedule, its traced request, the client under
    /// the pointer); `None` where a panel is drawn for a scenario result.
    pub state: Option<&'a State>,
    /// The last complete scenario result, if any.
    pub done: Option<&'a PanelOutcome>,
    /// The time bin or sweep row under the pointer.
    pub hover: Option<usize>,
}

/// A panel's name: given by its row in the registry (`views.rs`), which writes this for it.
pub(crate) trait PanelName {
    /// The panel's name, as [`crate::views::PANELS`] lists it.
    fn name(&self) -> &'static str;
}

/// One panel of the page.
pub(crate) trait Panel: PanelName {
    /// Takes in the link on the page: a panel with a stepping position of its own starts it
    /// again when the link changed.
    fn sync(&mut self, _p: &Params) {}
    /// A stepping control: "start", "step", "back", "reset", or a mode of the panel.
    fn act(&mut self, _what: &str) {}
    /// Writes or draws the panel (hides it where it does not apply).
    fn render(&mut self, cx: &PanelCtx<'_>);
    /// Fills the panel's table alternative to its chart (when its details box opens).
    fn table(&mut self, _cx: &PanelCtx<'_>) {}
    /// Keeps the panel's place on the page for `p` while its first result is on its way, so
    /// nothing under it moves when the result arrives.
    fn reserve(&self, _p: &Params) {}
    /// The index of what lies under the pointer at CSS pixel `(x, y)` (a time bin, a sweep
    /// row, a client), within `radius` pixels where that matters.
    fn at(&self, _x: f64, _y: f64, _radius: f64) -> Option<usize> {
        None
    }
    /// The pointer moved over the panel's own chart (canvas pixels; `None`: it left): the
    /// panel writes its own readout.
    fn point(&mut self, _at: Option<(f64, f64)>) {}
}
