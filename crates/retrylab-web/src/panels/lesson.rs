//! The lesson bar and the sheet bar: a lesson's or an exercise's question, the reader's guess,
//! and (once the run is done and the guess is in) the lab's answer beside it in the question's
//! unit; for a sheet, which exercise is on screen and the links to the ones either side.

use crate::panel::{Panel, PanelCtx, PanelOutcome};
use crate::web::dom::{by_id, document, set_hidden};
use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, HtmlSelectElement};

/// The exercise's result line: what to do next, or the guess beside the lab's answer, in the
/// question's unit, and whether it is right.
fn lesson_result(
    ex: &retry_model::Exercise,
    guess: Option<&str>,
    answer: Option<retry_model::Said>,
    waiting: bool,
) -> (String, Option<bool>) {
    match (guess, answer, waiting) {
        (_, _, true) => (
            "Commit a guess to see the run and the lab's answer.".to_string(),
            None,
        ),
        (Some(g), Some(said), _) => {
            let (line, right) = retry_model::verdict(g, ex.unit, &said.shown, &said.compared);
            (line, Some(right))
        }
        (Some(g), None, _) => (
            format!("Your guess: {g}. The lab is working out its answer..."),
            None,
        ),
        (None, _, _) => (String::new(), None),
    }
}

/// The lesson bar: what to look for, the question (the lesson's, or the link's own `ask` and
/// `q`), the reader's guess and, once the lab has computed it for the link on screen, its
/// answer beside the guess.
#[derive(Default)]
pub(crate) struct LessonPanel;

impl Panel for LessonPanel {
    fn render(&mut self, cx: &PanelCtx<'_>) {
        let Some(s) = cx.state else { return };
        let (Some(panel), Some(menu)) = (by_id("lesson-panel"), by_id("lesson-menu")) else {
            return;
        };
        let p = &s.params;
        render_sheet(p);
        if let Some(m) = menu.dyn_ref::<HtmlSelectElement>() {
            m.set_value(p.lesson.map_or("", |l| l.id));
        }
        let exercise = p.exercise();
        set_hidden(&panel, p.lesson.is_none() && exercise.is_none());
        set_text("lesson-look", p.lesson.map_or("", |l| l.look_for));
        // What the run shows, once the reader has guessed: never before.
        let after = p.lesson.map_or("", |l| l.after);
        set_text("lesson-after", if p.guess.is_some() { after } else { "" });
        if let Some(el) = by_id("lesson-after") {
            set_hidden(&el, p.guess.is_none() || after.is_empty());
        }
        set_text(
            "lesson-question",
            exercise.as_ref().map_or("", |e| e.question.as_str()),
        );
        if let Some(ask) = by_id("lesson-ask") {
            set_hidden(&ask, exercise.is_none());
        }
        write_guess_field(
            p.guess.as_deref(),
            exercise.as_ref().map_or("", |e| e.question.as_str()),
        );
        // The unit the answer is in, beside the field (a guess may also carry its own).
        set_text("lesson-unit", exercise.as_ref().map_or("", |e| e.unit));
        let (Some(result), Some(ex)) = (by_id("lesson-result"), exercise) else {
            set_text("lesson-result", "");
            return;
        };
        let answer = answer_of(&ex, s, cx.done);
        let waiting = crate::web::scenario::awaiting_guess(p);
        let (text, right) = lesson_result(&ex, p.guess.as_deref(), answer, waiting);
        result.set_text_content(Some(&text));
        match right {
            Some(r) => {
                let _ = result.set_attribute("data-right", if r { "true" } else { "false" });
            }
            None => {
                let _ = result.remove_attribute("data-right");
            }
        }
    }
}

/// The lab's answer to the exercise from the figures on screen: the finished run or sweep
/// (and its analytic twin's mixing time), or the traced request.
fn answer_of(
    ex: &retry_model::Exercise,
    s: &crate::state::State,
    done: Option<&PanelOutcome>,
) -> Option<retry_model::Said> {
    let mixing = done.and_then(|d| match &d.analytic {
        Some((crate::twin::Twin::Solved(t), _)) => t.mixing_s,
        _ => None,
    });
    let rows = done
        .filter(|d| d.plan.is_some())
        .map(PanelOutcome::summaries);
    let sweep = done.and_then(|d| d.plan.as_ref()).zip(rows.as_deref());
    let run = done
        .filter(|d| d.plan.is_none())
        .and_then(|d| d.reports.first())
        .map(|r| &r.summary);
    crate::lessons::answer(ex.answer, ex.unit, run, sweep, &s.trace, mixing)
}

/// Writes `text` into the element `id`, if the page has it.
fn set_text(id: &str, text: &str) {
    if let Some(el) = by_id(id) {
        el.set_text_content(Some(text));
    }
}

/// The sheet bar: the sheet's title, which exercise is on screen, and links to the one
/// before and after (each the exercise's own link with the sheet).
fn render_sheet(p: &retry_model::Params) {
    let Some(bar) = by_id("sheet-bar") else {
        return;
    };
    let Some(sheet) = p.sheet.as_deref() else {
        set_hidden(&bar, true);
        return;
    };
    set_hidden(&bar, false);
    let n = sheet.links.len() as u32;
    if let Some(t) = by_id("sheet-title") {
        t.set_text_content(Some(&sheet.title));
    }
    if let Some(pos) = by_id("sheet-pos") {
        pos.set_text_content(Some(&format!("Exercise {} of {n}", p.sheet_at)));
    }
    for (id, at) in [
        ("sheet-prev", p.sheet_at.checked_sub(1)),
        ("sheet-next", Some(p.sheet_at + 1)),
    ] {
        let Some(el) = by_id(id) else { continue };
        match at.and_then(|at| sheet.open_link(at)) {
            Some(link) => {
                let _ = el.set_attribute("href", &format!("?{link}"));
                let _ = el.remove_attribute("aria-disabled");
            }
            None => {
                let _ = el.remove_attribute("href");
                let _ = el.set_attribute("aria-disabled", "true");
            }
        }
    }
}

/// The guess field shows the link's guess, unless the reader is typing in it.
fn write_guess_field(guess: Option<&str>, question: &str) {
    thread_local! {
        /// The link's guess when the field was last written.
        static WRITTEN: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
    }
    let Some(input) = by_id("lesson-guess").and_then(|e| e.dyn_into::<HtmlInputElement>().ok())
    else {
        return;
    };
    let active = document()
        .and_then(|d| d.active_element())
        .map(|e| e.id())
        .unwrap_or_default();
    // Only a change of the question or the link's guess (a lesson opened, a link loaded)
    // rewrites the field: a
    // guess the link refused stays as typed beside its one-line message, never emptied.
    let changed = WRITTEN.with(|w| {
        let now = Some(format!("{question}\n{}", guess.unwrap_or("")));
        let changed = *w.borrow() != now;
        *w.borrow_mut() = now;
        changed
    });
    // The field already saying the link's guess (`none` for `None`) is left as typed.
    let same = guess == Some(retry_model::guess_link_value(&input.value()).as_str());
    if changed && !same && active != "lesson-guess" {
        input.set_value(guess.unwrap_or(""));
    }
}
