//! The client table: every retry client library's preset with its formula, jitter, Retry-After
//! rule, statuses, version and source, each row a link that opens the preset. The cells are the
//! core's (`retry_model::client_row`, written from each preset's link), the same as
//! `retrylab presets --format markdown` prints.

use crate::panel::{Panel, PanelCtx};
use crate::web::dom::{by_id, document};
use web_sys::{Document, Element};

/// The table, built once when its box is first opened.
#[derive(Default)]
pub(crate) struct ClientsPanel {
    filled: bool,
}

impl Panel for ClientsPanel {
    fn render(&mut self, _cx: &PanelCtx<'_>) {
        let open = by_id("clients-box").is_some_and(|b| b.has_attribute("open"));
        if self.filled || !open {
            return;
        }
        let (Some(table), Some(doc)) = (by_id("clients-table"), document()) else {
            return;
        };
        if fill(&doc, &table).is_some() {
            self.filled = true;
        }
    }
}

/// Writes the head and one row per client, grouped under their ecosystem.
fn fill(doc: &Document, table: &Element) -> Option<()> {
    table.set_inner_html("");
    let head = doc.create_element("thead").ok()?;
    crate::web::dom::append_row(
        doc,
        &head,
        &retry_model::CLIENT_COLUMNS.map(String::from),
        true,
    );
    let body = doc.create_element("tbody").ok()?;
    for eco in retry_model::Ecosystem::ALL {
        let group = doc.create_element("tr").ok()?;
        let th = doc.create_element("th").ok()?;
        th.set_attribute("colspan", "9").ok()?;
        th.set_text_content(Some(eco.label()));
        group.append_child(&th).ok()?;
        body.append_child(&group).ok()?;
        for c in retry_model::CLIENTS.iter().filter(|c| c.ecosystem == eco) {
            let tr = row(doc, c)?;
            body.append_child(&tr).ok()?;
        }
    }
    table.append_child(&head).ok()?;
    table.append_child(&body).ok()?;
    table
        .set_attribute("data-rows", &retry_model::CLIENTS.len().to_string())
        .ok()
}

/// One client's row: its preset name as a link, then the core's cells.
fn row(doc: &Document, c: &retry_model::Client) -> Option<Element> {
    let tr = doc.create_element("tr").ok()?;
    let cells = retry_model::client_row(c);
    let first = doc.create_element("td").ok()?;
    let a = doc.create_element("a").ok()?;
    a.set_attribute("href", &format!("?preset={}", c.name))
        .ok()?;
    a.set_text_content(Some(&cells[0]));
    first.append_child(&a).ok()?;
    tr.append_child(&first).ok()?;
    for text in &cells[1..] {
        let td = doc.create_element("td").ok()?;
        td.set_text_content(Some(text));
        tr.append_child(&td).ok()?;
    }
    let _ = tr.set_attribute("title", c.meaning);
    Some(tr)
}
