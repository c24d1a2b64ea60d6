//! The numbers of the last complete result as text: one run's summary tiles, a comparison's
//! before/after table with what B changes from A, or a sweep's table. The words and figures
//! are the CLI's (`Summary::rows`, the sweep's and comparison's Markdown).

use crate::panel::{Panel, PanelCtx, PanelOutcome};
use crate::web::dom::{by_id, document, set_hidden};
use web_sys::{Document, Element};

/// The tiles, the before/after table, or the sweep's table.
#[derive(Default)]
pub(crate) struct Tiles;

impl Panel for Tiles {
    fn render(&mut self, cx: &PanelCtx<'_>) {
        let (Some(tiles), Some(table), Some(md), Some(doc)) = (
            by_id("tiles"),
            by_id("compare"),
            by_id("compare-md"),
            document(),
        ) else {
            return;
        };
        tiles.set_inner_html("");
        table.set_inner_html("");
        md.set_text_content(None);
        if let Some(n) = by_id("run-note") {
            n.set_text_content(None);
        }
        let Some(d) = cx.done else {
            return;
        };
        if let Some(plan) = &d.plan {
            let text = plan.markdown(&d.summaries());
            if let Some(md) = by_id("sweep-md") {
                md.set_text_content(Some(&text));
            }
            if let Some(t) = by_id("sweep-table") {
                markdown_table(&doc, &t, &text);
            }
            return;
        }
        let compare = by_id("compare-section");
        if d.reports.len() == 2 {
            let _ = compare.as_ref().map(|c| set_hidden(c, false));
            set_hidden(&tiles, true);
            before_after(&doc, d, &table, &md);
            return;
        }
        let _ = compare.as_ref().map(|c| set_hidden(c, true));
        set_hidden(&tiles, false);
        one_run(&doc, d, &tiles);
    }
}

/// One run's summary, a tile per row, and where its preset reproduces a published figure it
/// does not match, why (`retrylab run` prints the same sentence).
fn one_run(doc: &Document, d: &PanelOutcome, tiles: &Element) {
    if let Some(n) = by_id("run-note") {
        n.set_text_content(d.params.preset.and_then(|p| p.reference_note()));
    }
    let Some(report) = d.reports.first() else {
        return;
    };
    engine_check(doc, d);
    for (label, value) in report.summary.rows() {
        let (Ok(div), Ok(dt), Ok(dd)) = (
            doc.create_element("div"),
            doc.create_element("dt"),
            doc.create_element("dd"),
        ) else {
            continue;
        };
        div.set_class_name("tile");
        dt.set_text_content(Some(&label));
        // Over several runs the figure, then its interval in a smaller type on its own line
        // (the same words as the CLI's row).
        let (figure, interval) = split_interval(&value);
        dd.set_text_content(Some(figure));
        if let (Some(iv), Ok(span)) = (interval, doc.create_element("span")) {
            span.set_class_name("interval");
            span.set_text_content(Some(iv));
            let _ = dd.append_child(&span);
        }
        // A long answer (the recovery sentence) in a smaller type than a number.
        if figure.chars().count() > 12 {
            dd.set_class_name("long");
        }
        let _ = div.append_child(&dt);
        let _ = div.append_child(&dd);
        // What the figure means, as visible text (a phone has no tooltips).
        if let (Some(m), Ok(help)) = (
            retry_model::sim::row_meaning(&label),
            doc.create_element("dd"),
        ) {
            help.set_class_name("help");
            help.set_text_content(Some(m));
            let _ = div.append_child(&help);
        }
        let _ = tiles.append_child(&div);
    }
}

/// A row's value split before its interval over runs (` (95%: ...)` or ` (alike in every
/// run)`), if it has one.
fn split_interval(value: &str) -> (&str, Option<&str>) {
    ["(95%: ", "(alike in every run)"]
        .iter()
        .find_map(|m| value.find(&format!(" {m}")))
        .map_or((value, None), |i| (&value[..i], Some(&value[i..])))
}

/// Under a population run, the link that checks it against the per-request engine (the
/// core's words, as `retrylab run` prints them).
fn engine_check(doc: &Document, d: &PanelOutcome) {
    let Some(p) = by_id("engine-check") else {
        return;
    };
    p.set_text_content(None);
    let note = retry_model::engine_check_note(&d.params);
    set_hidden(&p, note.is_none());
    let Some((text, link)) = note else {
        return;
    };
    p.set_text_content(Some(&format!("{text} ")));
    if let Ok(a) = doc.create_element("a") {
        let _ = a.set_attribute("href", &format!("?{link}"));
        a.set_text_content(Some("open the comparison"));
        let _ = p.append_child(&a);
    }
}

/// Two sides: the before/after table, its Markdown exactly as `retrylab compare` writes it,
/// and what B changes from A.
fn before_after(doc: &Document, d: &PanelOutcome, table: &Element, md: &Element) {
    let [a, b] = d.reports.as_slice() else {
        return;
    };
    // The table is the Markdown's, row by row by label: a row only one side has (a hedged
    // side's, a queue server's) reads "-" on the other, as `retrylab compare` prints it.
    let text = retry_model::sim::compare_markdown(&d.sides[0], &a.summary, &d.sides[1], &b.summary);
    markdown_table(doc, table, &text);
    md.set_text_content(Some(&text));
    if let Some(t) = by_id("compare-changes") {
        changes_table(doc, &t, &d.sides[0], &d.sides[1]);
    }
    if let Some(t) = by_id("steps-table") {
        let text = d
            .ladder
            .as_ref()
            .map(|(steps, rows)| retry_model::steps_markdown(steps, rows))
            .unwrap_or_default();
        markdown_table(doc, &t, &text);
        if let Some(box_) = by_id("steps-box") {
            set_hidden(&box_, text.is_empty());
        }
    }
    if let Some(n) = by_id("course-note") {
        let sides = (
            d.sides[0].parse::<retry_model::Params>(),
            d.sides[1].parse::<retry_model::Params>(),
        );
        let note = match sides {
            (Ok(a), Ok(b)) => retry_model::course_note(&a, &b),
            _ => None,
        };
        n.set_text_content(Some(note.unwrap_or("")));
    }
}

/// Fills `table` from a Markdown pipe table (`| a | b |` lines, the second the alignment row),
/// cell for cell: the sweep's table as the core writes it for `retrylab sweep`. Only the first
/// table (a phase plot's grids follow it in the Markdown). Written as one HTML string, every
/// cell escaped: a phase plot's 400 rows as DOM calls one by one took a long task.
fn markdown_table(_doc: &Document, table: &Element, md: &str) {
    let rows: Vec<Vec<&str>> = md
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim()
                .trim_matches('|')
                .split('|')
                .map(str::trim)
                .collect()
        })
        .collect();
    let mut html = String::with_capacity(md.len() * 2);
    for (i, cells) in rows.iter().enumerate() {
        if i == 1 {
            html.push_str("</thead><tbody>");
            continue; // |---|---:|
        }
        html.push_str(if i == 0 { "<thead><tr>" } else { "<tr>" });
        for (j, c) in cells.iter().enumerate() {
            // Markdown's code marks are for the text copy; the table shows the words.
            let text = escape(&c.replace('`', ""));
            if i == 0 {
                html.push_str(&format!("<th>{text}</th>"));
            } else {
                // Each cell names its column, for a phone's one-row-a-card layout.
                let column = rows[0]
                    .get(j)
                    .map_or(String::new(), |h| escape(&h.replace('`', "")));
                html.push_str(&format!("<td data-label=\"{column}\">{text}</td>"));
            }
        }
        html.push_str("</tr>");
    }
    html.push_str("</tbody>");
    table.set_inner_html(&html);
}

/// Text as HTML: `&`, `<`, `>` and `"` escaped.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Fills `table` with what side B changes from side A, key by key (each key's value on both
/// sides and its one-line meaning from the key table): which piece of B does what.
fn changes_table(doc: &Document, table: &Element, a: &str, b: &str) {
    table.set_inner_html(
        "<thead><tr><th>key</th><th>A</th><th>B</th><th>what it sets</th></tr></thead>",
    );
    let (Ok(pa), Ok(pb)) = (
        a.parse::<retry_model::Params>(),
        b.parse::<retry_model::Params>(),
    ) else {
        return;
    };
    let Ok(body) = doc.create_element("tbody") else {
        return;
    };
    for k in retry_model::all_keys().filter(|k| *k != "v") {
        let (va, vb) = (pa.get(k), pb.get(k));
        if va == vb {
            continue;
        }
        let meaning = retry_model::link_keys::key(k).map_or("", |row| row.meaning);
        let Ok(tr) = doc.create_element("tr") else {
            continue;
        };
        let show = |v: Option<String>| v.filter(|s| !s.is_empty()).unwrap_or_else(|| "-".into());
        let cells = [k.to_string(), show(va), show(vb), meaning.replace('`', "")];
        for (text, column) in cells.iter().zip(["key", "A", "B", "what it sets"]) {
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
