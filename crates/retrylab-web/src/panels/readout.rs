//! The readout under a run's or a sweep's charts: the exact values of the time bin or the
//! sweep row under the pointer, in words.

use crate::panel::{Panel, PanelCtx, PanelOutcome};
use crate::web::dom::by_id;
use retry_model::sim::Rates;

/// The readout line.
#[derive(Default)]
pub(crate) struct Readout;

impl Panel for Readout {
    fn render(&mut self, cx: &PanelCtx<'_>) {
        if let Some((d, plan)) = cx.done.and_then(|d| Some((d, d.plan.as_ref()?))) {
            if let Some(out) = by_id("sweep-readout") {
                if plan.heatmap {
                    cell_words(&out, plan, &d.summaries(), cx.hover);
                    return;
                }
                let text = match cx.hover {
                    Some(i) => plan.readout(&d.summaries(), i),
                    None => "Point at a chart to read every line's values there.".to_string(),
                };
                out.set_text_content(Some(&text));
            }
            return;
        }
        let Some(out) = by_id("timeline-readout") else {
            return;
        };
        let text = match (cx.done, cx.hover) {
            (Some(d), Some(i)) => {
                let r = d
                    .reports
                    .first()
                    .map(|r| r.series.rates())
                    .unwrap_or_default();
                r.get(i)
                    .map_or_else(String::new, |b| bin_words(d, &r, i, b))
            }
            (Some(_), None) => {
                "Point at the chart to read one time bin's exact values.".to_string()
            }
            (None, _) => String::new(),
        };
        out.set_text_content(Some(&text));
    }
}

/// A phase plot's cell under the pointer: its values and verdict in words, and its run's link.
fn cell_words(
    out: &web_sys::Element,
    plan: &crate::sweepplan::Plan,
    summaries: &[retry_model::sim::Summary],
    hover: Option<usize>,
) {
    let Some(i) = hover else {
        out.set_text_content(Some(
            "Point at a cell to read its run, and open it from its link.",
        ));
        return;
    };
    let (text, link) = plan.readout_row(summaries, i);
    out.set_text_content(Some(&text));
    let a = crate::web::dom::document().and_then(|d| d.create_element("a").ok());
    if let Some(a) = a {
        let _ = a.set_attribute("href", &link);
        a.set_text_content(Some(&link));
        let _ = out.append_child(&a);
    }
}

/// One time bin of side A's first run, in words.
fn bin_words(d: &PanelOutcome, r: &[Rates], i: usize, b: &Rates) -> String {
    let mut text = format!(
        "t = {} s: {:.0} original requests/s, {:.0} attempts/s, {:.0} successes/s, {:.0} failures/s",
        b.t_s, b.originals, b.attempts, b.successes, b.failures
    );
    let reasons: Vec<String> = crate::charts::system::failure_reasons()
        .into_iter()
        .filter(|x| b.failures_by[x.index()] > 0.0)
        .map(|x| format!("{:.0} {}", b.failures_by[x.index()], x.name()))
        .collect();
    if !reasons.is_empty() {
        text.push_str(&format!(" ({})", reasons.join(", ")));
    }
    match d.params.get("server").as_deref() {
        Some("flaky") => text.push_str(&format!(
            ", {:.0} attempts/s of work done, {} in flight",
            b.served, b.in_flight
        )),
        Some("queue") => text.push_str(&format!(
            ", {:.0}% of capacity serving attempts, {} in flight, {} waiting in the queue",
            b.utilisation * 100.0,
            b.in_flight,
            b.queue
        )),
        _ => text.push_str(&format!(
            ", {:.0}% of capacity serving attempts, {} in flight",
            b.utilisation * 100.0,
            b.in_flight
        )),
    }
    if d.params.get("budget").is_some_and(|x| x != "none") {
        text.push_str(&format!(", budget {} tokens", b.budget));
    }
    if b.limiter > 0.0 {
        text.push_str(&format!(", the limiter allows {:.1} sends/s", b.limiter));
    }
    if d.params.get("breaker").as_deref() == Some("on") {
        let state = crate::charts::system::breaker_states(r)[i];
        let name = ["no attempt yet", "closed", "half-open", "open"][usize::from(state.min(3))];
        text.push_str(&format!(", breaker {name}"));
    }
    text
}
