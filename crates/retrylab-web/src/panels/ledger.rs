//! The idempotency walk of a `lost` link: one checkout whose first answer is lost, run without
//! and with a key, stepped side by side with each side's durable charges.

use crate::panel::{Panel, PanelCtx};
use crate::web::dom::{by_id, document, set_hidden};
use retry_model::Params;

/// The walk of the link on the page: the link it is for, the random stream of the checkout,
/// both sides and how many of their steps are shown.
#[derive(Default)]
pub(crate) struct Ledger {
    walk: Option<(String, u32, [retry_model::LedgerSide; 2], usize)>,
}

impl Panel for Ledger {
    fn sync(&mut self, p: &Params) {
        // Predict, then run: the walk counts the charges a question may ask for.
        if crate::web::scenario::awaiting_guess(p) {
            self.walk = None;
            return;
        }
        let link_now = p.to_string();
        if self.walk.as_ref().map(|l| &l.0) != Some(&link_now) {
            self.walk = retry_model::ledger(p).map(|(run, sides)| {
                let n = sides[0].steps.len().max(sides[1].steps.len());
                (link_now.clone(), run, sides, n)
            });
        }
    }

    fn act(&mut self, what: &str) {
        if let Some((_, _, sides, shown)) = self.walk.as_mut() {
            let n = sides[0].steps.len().max(sides[1].steps.len());
            *shown = match what {
                "start" => 1,
                "step" => (*shown + 1).min(n),
                "back" => shown.saturating_sub(1).max(1),
                _ => n,
            };
        }
    }

    fn render(&mut self, _cx: &PanelCtx<'_>) {
        let Some(section) = by_id("ledger-section") else {
            return;
        };
        let Some((_, run, sides, shown)) = &self.walk else {
            set_hidden(&section, true);
            return;
        };
        set_hidden(&section, false);
        for (side, id) in sides.iter().zip(["ledger-a", "ledger-b"]) {
            side_steps(side, id, *shown);
        }
        if let Some(note) = by_id("ledger-note") {
            note.set_text_content(Some(&format!(
                "The first checkout of this seed whose first answer is lost (random stream {run}), run alone twice: once without a key (retrying read timeouts), once with one. The lesson: one durable order, not one response received."
            )));
        }
    }
}

/// One side's first `shown` steps as a list, and its charges so far.
fn side_steps(side: &retry_model::LedgerSide, id: &str, shown: usize) {
    let (Some(list), Some(doc)) = (by_id(id), document()) else {
        return;
    };
    list.set_inner_html("");
    for step in side.steps.iter().take(shown) {
        if let Ok(li) = doc.create_element("li") {
            li.set_text_content(Some(&crate::lessons::ledger_line(step)));
            let _ = list.append_child(&li);
        }
    }
    let made = side
        .steps
        .iter()
        .take(shown)
        .filter(|s| matches!(s.what, retry_model::sim::LostWhat::Committed { .. }))
        .count();
    if let Some(total) = by_id(&format!("{id}-total")) {
        total.set_text_content(Some(&format!(
            "Durable charges on the ledger so far: {made} (in all: {})",
            side.charges
        )));
        let _ = total.set_attribute("data-charges", &side.charges.to_string());
    }
}
