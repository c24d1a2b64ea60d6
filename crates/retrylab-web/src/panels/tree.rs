//! The amplification tree of a `layers` link: every call of one request, stepped call by call
//! or level by level, with its readout and its table (the chart's text alternative).

use crate::charts::plot::Canvas as CanvasBackend;
use crate::charts::treechart::TreeShown;
use crate::panel::{Panel, PanelCtx};
use crate::web::dom::{by_id, document, set_hidden};
use plotters::prelude::IntoDrawingArea;
use retry_model::sim::ScenarioKind;
use retry_model::{CallTree, Params};

/// The tree of the link on the page and how far the stepping has got.
#[derive(Default)]
pub(crate) struct Tree {
    view: Option<TreeView>,
}

/// One link's tree.
struct TreeView {
    key: (String, String, u64, String, String),
    tree: CallTree,
    /// Each layer's name (`layer_names`), or none.
    names: Vec<String>,
    /// The stack's table, one row per layer (`Params::layer_rows`).
    rows: Vec<[String; 9]>,
    shown: TreeShown,
}

impl Panel for Tree {
    fn sync(&mut self, p: &Params) {
        // Predict, then run: the tree's counts are the answer to a layers question.
        if crate::web::scenario::awaiting_guess(p) {
            self.view = None;
            return;
        }
        let key = (
            p.get("layers").unwrap_or_default(),
            p.get("p").unwrap_or_default(),
            p.seed,
            p.get("layer_names").unwrap_or_default(),
            p.layer_text(),
        );
        if self.view.as_ref().map(|t| &t.key) != Some(&key) {
            self.view = TreeView::of(p);
        } else if TreeView::of(p).is_none() {
            self.view = None;
        }
    }

    fn act(&mut self, what: &str) {
        if let Some(t) = self.view.as_mut() {
            t.act(what);
        }
    }

    fn render(&mut self, _cx: &PanelCtx<'_>) {
        let Some(section) = by_id("tree-section") else {
            return;
        };
        let Some(t) = &self.view else {
            set_hidden(&section, true);
            return;
        };
        set_hidden(&section, false);
        if let Some(out) = by_id("tree-readout") {
            out.set_text_content(Some(&t.readout()));
        }
        t.draw();
        t.fill_table();
        t.fill_layer_table();
    }
}

impl TreeView {
    fn of(p: &Params) -> Option<TreeView> {
        if p.sim.kind() != Some(ScenarioKind::Layers) || p.compare.is_some() || p.sweep().is_some()
        {
            return None;
        }
        let (layers, prob) = (p.get("layers")?, p.get("p")?);
        // What each layer makes when every call below fails: a layer whose own policy does
        // not retry a 503 makes one attempt, whatever `layers` says.
        let ks = p.layer_attempts();
        let tree = retry_model::call_tree(&ks, retry_model::decimal_f64(&prob)?, p.seed).ok()?;
        let shown = if tree.calls.is_empty() {
            TreeShown::Levels(tree.worst.len() - 1)
        } else {
            TreeShown::Calls(tree.calls.len())
        };
        let names_text = p.get("layer_names").unwrap_or_default();
        let names = if names_text == "none" {
            Vec::new()
        } else {
            names_text.split(',').map(str::to_string).collect()
        };
        Some(TreeView {
            key: (layers, prob, p.seed, names_text, p.layer_text()),
            tree,
            names,
            rows: p.layer_rows(),
            shown,
        })
    }

    fn last(&self, by_level: bool) -> TreeShown {
        if by_level || self.tree.calls.is_empty() {
            TreeShown::Levels(self.tree.worst.len() - 1)
        } else {
            TreeShown::Calls(self.tree.calls.len())
        }
    }

    /// Start, Step, Back, Reset (show all), or the stepping mode.
    fn act(&mut self, what: &str) {
        let by_level = matches!(self.shown, TreeShown::Levels(_));
        self.shown = match (what, self.shown) {
            ("start", TreeShown::Calls(_)) => TreeShown::Calls(1),
            ("start", TreeShown::Levels(_)) => TreeShown::Levels(0),
            ("step", TreeShown::Calls(n)) => TreeShown::Calls((n + 1).min(self.tree.calls.len())),
            ("step", TreeShown::Levels(l)) => {
                TreeShown::Levels((l + 1).min(self.tree.worst.len() - 1))
            }
            ("back", TreeShown::Calls(n)) => TreeShown::Calls(n.saturating_sub(1).max(1)),
            ("back", TreeShown::Levels(l)) => TreeShown::Levels(l.saturating_sub(1)),
            ("reset", _) => self.last(by_level),
            ("level", _) => TreeShown::Levels(0),
            ("call", _) if !self.tree.calls.is_empty() => TreeShown::Calls(1),
            (_, now) => now,
        };
    }

    fn readout(&self) -> String {
        let t = &self.tree;
        let names = crate::charts::treechart::level_names(t, &self.names);
        let made = match self.shown {
            TreeShown::Calls(n) => t.counts(n),
            TreeShown::Levels(l) => t.counts_to_level(l),
        };
        let per_level: Vec<String> = made.iter().map(u64::to_string).collect();
        let head = match self.shown {
            TreeShown::Calls(n) => match t.calls.get(n.wrapping_sub(1)) {
                Some(c) => format!(
                    "Call {n} of {}: {}, attempt {}: {}.",
                    t.calls.len(),
                    names[usize::from(c.level)],
                    c.attempt,
                    if c.ok { "succeeded" } else { "failed" }
                ),
                None => String::new(),
            },
            TreeShown::Levels(l) => format!("Down to {}.", names[l]),
        };
        format!(
            "{head} Calls so far, level by level: {} (worst case {}).",
            per_level.join(", "),
            t.worst
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )
    }

    /// The tree on its canvas, with how many calls each level has made so far.
    fn draw(&self) {
        let Some((canvas, dpr)) = crate::web::canvas::fit("tree", 0.32, 220.0, 360.0) else {
            return;
        };
        if let Some(backend) = CanvasBackend::with_canvas_object(canvas.clone()) {
            if let Err(e) = crate::charts::treechart::draw_tree(
                &backend.into_drawing_area(),
                &self.tree,
                &self.names,
                self.shown,
                dpr,
            ) {
                web_sys::console::error_1(&format!("tree: {e}").into());
            }
        }
        let made = match self.shown {
            TreeShown::Calls(n) => self.tree.counts(n),
            TreeShown::Levels(l) => self.tree.counts_to_level(l),
        };
        let text: Vec<String> = made.iter().map(u64::to_string).collect();
        let _ = canvas.set_attribute("data-counts", &text.join(","));
    }

    /// The table: each level's calls on this click, worst case, expected, and with retries at
    /// one layer only.
    /// The stack's table: each layer's attempts and policy, in `retrylab run`'s words.
    fn fill_layer_table(&self) {
        let (Some(table), Some(doc)) = (by_id("layer-table"), document()) else {
            return;
        };
        for old in ["thead", "tbody"] {
            while let Ok(Some(el)) = table.query_selector(old) {
                el.remove();
            }
        }
        let Ok(head) = doc.create_element("thead") else {
            return;
        };
        let columns = retry_model::layer_keys::LAYER_COLUMNS.map(String::from);
        crate::web::dom::append_row(&doc, &head, &columns, true);
        let _ = table.append_child(&head);
        let Ok(body) = doc.create_element("tbody") else {
            return;
        };
        for row in &self.rows {
            let Ok(tr) = doc.create_element("tr") else {
                return;
            };
            // Each cell names its column, so a phone can show a layer as a card.
            for (text, column) in row.iter().zip(retry_model::layer_keys::LAYER_COLUMNS) {
                if let Ok(td) = doc.create_element("td") {
                    td.set_text_content(Some(text));
                    let _ = td.set_attribute("data-label", column);
                    let _ = tr.append_child(&td);
                }
            }
            let _ = body.append_child(&tr);
        }
        let _ = table.append_child(&body);
    }

    fn fill_table(&self) {
        let t = &self.tree;
        let all = t.counts(t.calls.len());
        let (Some(table), Some(doc)) = (by_id("tree-table"), document()) else {
            return;
        };
        table.set_inner_html(
            "<thead><tr><th>level</th><th>calls (this click)</th><th>worst case</th><th>expected</th><th>retry at one layer only</th></tr></thead>",
        );
        let Ok(body) = doc.create_element("tbody") else {
            return;
        };
        for (l, name) in crate::charts::treechart::level_names(t, &self.names)
            .iter()
            .enumerate()
        {
            let made = if t.calls.is_empty() {
                "-".to_string()
            } else {
                all[l].to_string()
            };
            let cells = [
                name.clone(),
                made,
                t.worst[l].to_string(),
                format!("{:.4}", t.expected[l]),
                t.fix_worst[l].to_string(),
            ];
            crate::web::dom::append_row(&doc, &body, &cells, false);
        }
        let _ = table.append_child(&body);
    }
}
