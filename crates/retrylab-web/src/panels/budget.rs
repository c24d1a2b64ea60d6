//! The budget walk of a policy link with a retry budget: a fixed run of successes and
//! transient errors, one row per event, with each retry allowed or refused and the level in
//! whole thousandths of a token, stepped Start / Step / Back / Reset.

use crate::panel::{Panel, PanelCtx};
use crate::web::dom::{append_row, by_id, document, set_hidden};
use retry_model::{BudgetEvent, BudgetStep, Params};

/// The walk of the link on the page and how many of its steps are shown.
#[derive(Default)]
pub(crate) struct BudgetPanel {
    link: String,
    walk: Option<Vec<BudgetStep>>,
    shown: usize,
}

impl Panel for BudgetPanel {
    fn sync(&mut self, p: &Params) {
        let link = p.to_string();
        if self.link != link {
            self.walk = if p.sim.scenario.is_none() {
                retry_model::budget_walk(p)
            } else {
                None
            };
            self.shown = self.walk.as_ref().map_or(0, Vec::len);
            self.link = link;
        }
    }

    fn act(&mut self, what: &str) {
        let n = self.walk.as_ref().map_or(0, Vec::len);
        self.shown = match what {
            "start" => 1,
            "step" => (self.shown + 1).min(n),
            "back" => self.shown.saturating_sub(1).max(1),
            _ => n,
        };
    }

    fn render(&mut self, _cx: &PanelCtx<'_>) {
        let Some(section) = by_id("budget-section") else {
            return;
        };
        let Some(walk) = &self.walk else {
            set_hidden(&section, true);
            return;
        };
        set_hidden(&section, false);
        let (Some(table), Some(doc)) = (by_id("budget-table"), document()) else {
            return;
        };
        let Ok(body) = doc.create_element("tbody") else {
            return;
        };
        table.set_inner_html(
            "<thead><tr><th>t</th><th>event</th><th>retry</th><th>cost</th><th>level after</th><th>of</th></tr></thead>",
        );
        for s in walk.iter().take(self.shown) {
            append_row(&doc, &body, &row(s), false);
        }
        let _ = table.append_child(&body);
        let _ = table.set_attribute("data-rows", &self.shown.min(walk.len()).to_string());
    }
}

/// One step's cells: time, event, retry allowed or refused, its cost, the level after, the most.
fn row(s: &BudgetStep) -> [String; 6] {
    let tokens = |m: u64| format!("{}.{:03}", m / 1000, m % 1000);
    let (event, retry, cost) = match s.event {
        BudgetEvent::Success => ("success, first try".to_string(), "", String::new()),
        BudgetEvent::RetrySucceeded => ("that retry succeeds".to_string(), "", String::new()),
        BudgetEvent::WindowPassed(before) => (
            format!(
                "the window moves on: what came before {} ms no longer counts",
                before.as_millis_f64()
            ),
            "",
            String::new(),
        ),
        BudgetEvent::Retry => (
            "transient error".to_string(),
            if s.allowed { "allowed" } else { "refused" },
            tokens(s.cost_milli),
        ),
    };
    [
        format!("{} ms", s.t.as_millis_f64()),
        event,
        retry.to_string(),
        cost,
        tokens(s.level_milli),
        tokens(s.max_milli),
    ]
}
