//! DOM glue for wasm32: reads the controls, keeps the address bar in step with the state, draws.

pub(crate) mod canvas;
pub(crate) mod dom;
pub(crate) mod exec;
mod export;
mod import;
mod importer;
pub(crate) mod scenario;
mod wiring;

use crate::controls::{applies, controls, key_of, to_control, to_link, Kind};
use crate::panel::{Panel, PanelCtx};
use crate::state::{Msg, State};
use crate::web::dom::set_hidden;
use retry_model::link_keys::{Control, Domain, Group};
use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlCanvasElement, HtmlInputElement, HtmlSelectElement};

struct App {
    state: State,
    /// The policy side's panels (the schedule, the budget walk), registered in `views.rs`.
    panels: Vec<Box<dyn Panel>>,
    renders: u32,
    /// The scenario view and its run in slices.
    view: crate::web::scenario::ScenarioView,
    /// The slice runner, scheduled with `setTimeout(0)` while a run is in flight.
    tick: Option<js_sys::Function>,
    tick_pending: bool,
    /// While the page starts, the address bar is written once, in the last stage (a same-page
    /// navigation costs a cold page up to 35 ms, enough to make a stage a long task).
    starting: bool,
    /// When the scenario view was last rendered while a run was in flight (page clock, ms).
    progress_shown: f64,
    /// Each control's elements and what the page last wrote into them, in [`controls`] order,
    /// so a render writes only what changed (a control change on a scenario link used to
    /// rewrite about 40 controls, and the layout that followed made it a long task).
    shown: Vec<Option<ControlShown>>,
    /// Set by Commit: the answer's figure is scrolled into view once it is drawn.
    scroll_to_answer: bool,
}

/// One control's elements (the field and its note; its row holds its label and help) and
/// what is written in them.
struct ControlShown {
    el: Element,
    note: Option<Element>,
    /// Whether the key acts in the link (enabled, and for a system setting, in view), whether
    /// its value is refused, the note beside it and the value in the field, as last written;
    /// `None` until written.
    on: Option<bool>,
    invalid: Option<bool>,
    why: Option<String>,
    value: Option<String>,
}

impl ControlShown {
    fn of(key: &str) -> Option<ControlShown> {
        Some(ControlShown {
            el: by_id(key)?,
            note: by_id(&format!("{key}-note")),
            on: None,
            invalid: None,
            why: None,
            value: None,
        })
    }
}

/// Runs `f` on the app at every click of element `id`, for the page's lifetime.
fn on_click(
    app: &Rc<RefCell<App>>,
    id: &str,
    mut f: impl FnMut(&mut App) + 'static,
) -> Result<(), JsValue> {
    let app = app.clone();
    let handler = Closure::<dyn FnMut()>::new(move || f(&mut app.borrow_mut()));
    by_id(id)
        .ok_or_else(|| format!("no #{id}"))?
        .add_event_listener_with_callback("click", handler.as_ref().unchecked_ref())?;
    handler.forget(); // page-lifetime handler
    Ok(())
}

/// Writes the scenario view, and schedules the next of its drawing tasks if it asks for one.
fn render_view(a: &mut App) {
    if a.view.render(&a.state.params) {
        schedule(a);
    }
    scroll_to_answer(a);
}

/// After Commit, brings the answer's figure on screen once it is drawn (a run's when the run
/// is done, the traced request's at once); a refused guess leaves the page where it is.
fn scroll_to_answer(a: &mut App) {
    if !a.scroll_to_answer {
        return;
    }
    let p = &a.state.params;
    let (Some(ex), Some(_)) = (p.exercise(), p.get("guess")) else {
        a.scroll_to_answer = false;
        return;
    };
    let done = by_id("scenario-view")
        .is_some_and(|v| v.get_attribute("data-done").as_deref() == Some("true"));
    if p.sim.scenario.is_some() && !done {
        return;
    }
    a.scroll_to_answer = false;
    // An element laid out has an offset parent; one under `display: none` has none.
    let in_view = |e: &Element| {
        e.dyn_ref::<web_sys::HtmlElement>()
            .is_some_and(|h| h.offset_parent().is_some())
    };
    if let Some(figure) = crate::lessons::answer_figure(ex.answer)
        .iter()
        .filter_map(|id| by_id(id))
        .find(in_view)
    {
        figure.scroll_into_view_with_bool(true);
    }
}

/// The pointer's position in device pixels, or `None` when it left the element.
fn pointer_at(e: &web_sys::PointerEvent) -> Option<(f64, f64)> {
    if e.type_() == "pointerleave" {
        return None;
    }
    let dpr = web_sys::window()
        .map(|w| w.device_pixel_ratio())
        .unwrap_or(1.0);
    Some((f64::from(e.offset_x()) * dpr, f64::from(e.offset_y()) * dpr))
}

/// Wires a step mode's four buttons, `{prefix}-start`, `-back`, `-step` and `-reset`, to `f`
/// with "start", "back", "step" or "reset".
fn on_steps(
    app: &Rc<RefCell<App>>,
    prefix: &str,
    f: impl Fn(&mut App, &'static str) + Clone + 'static,
) -> Result<(), JsValue> {
    for what in ["start", "back", "step", "reset"] {
        let f = f.clone();
        on_click(app, &format!("{prefix}-{what}"), move |a| f(a, what))?;
    }
    Ok(())
}

/// Saves `href` (a data URL) as the file `name`, through a temporary link.
fn download(name: &str, href: &str) {
    let doc = document();
    let Ok(a) = doc.create_element("a") else {
        return;
    };
    let _ = a.set_attribute("href", href);
    let _ = a.set_attribute("download", name);
    if let (Some(body), Ok(el)) = (doc.body(), a.dyn_into::<web_sys::HtmlElement>()) {
        let _ = body.append_child(&el);
        el.click();
        let _ = body.remove_child(&el);
    }
}

/// A canvas as a PNG data URL.
fn canvas_png(id: &str) -> Option<String> {
    by_id(id)?
        .dyn_into::<HtmlCanvasElement>()
        .ok()?
        .to_data_url()
        .ok()
}

/// Marks the start-up's progress on the body: `data-ready-ms`, when the first chart is up (ms
/// since navigation began, for the page benchmark); `data-ready`, when every part is drawn.
fn mark_ready(all: bool) {
    let Some(body) = document().body() else {
        return;
    };
    if all {
        let _ = body.set_attribute("data-ready", "true");
    } else {
        let at = crate::web::dom::now();
        let _ = body.set_attribute("data-ready-ms", &format!("{at:.0}"));
    }
}

/// How often a run's progress is shown, at most (ms).
const PROGRESS_MS: f64 = 100.0;

/// Schedules the next slice of the scenario run, once.
fn schedule(a: &mut App) {
    if a.tick_pending {
        return;
    }
    if let (Some(w), Some(f)) = (web_sys::window(), a.tick.as_ref()) {
        if w.set_timeout_with_callback_and_timeout_and_arguments_0(f, 0)
            .is_ok()
        {
            a.tick_pending = true;
        }
    }
}

fn document() -> Document {
    web_sys::window()
        .and_then(|w| w.document())
        .expect("a document")
}

fn by_id(id: &str) -> Option<Element> {
    document().get_element_by_id(id)
}

/// Starts the page: restores the link, fills the menus, wires the events, draws.
pub fn start() -> Result<(), JsValue> {
    console_error_panic_hook::set_once();
    // Loaded outside a page (Node, for measurements): nothing to wire up.
    if web_sys::window().and_then(|w| w.document()).is_none() {
        return Ok(());
    }
    let query = web_sys::window()
        .map(|w| w.location().search().unwrap_or_default())
        .unwrap_or_default();
    let opening = query.trim_start_matches('?').is_empty();
    let mut state = State::from_query(&query);
    if opening {
        show_start(&mut state);
    }
    let app = Rc::new(RefCell::new(App {
        state,
        panels: crate::views::panels(&[crate::views::Host::Policy, crate::views::Host::Page]),
        renders: 0,
        view: crate::web::scenario::ScenarioView::default(),
        tick: None,
        tick_pending: false,
        progress_shown: 0.0,
        starting: true,
        shown: Vec::new(),
        scroll_to_answer: false,
    }));
    wiring::worker_messages(&app);
    wiring::first_render(&app)?;
    wiring::controls(&app)?;
    wiring::buttons(&app)?;
    wiring::lessons(&app)?;
    wiring::exports(&app)?;
    wiring::stepping(&app)?;
    wiring::keyboard(&app)?;
    wiring::tables(&app)?;
    wiring::pointers(&app)?;
    wiring::deadline_links(&app)?;
    wiring::schedule_hover(&app)?;
    wiring::resize(&app)?;
    import::import_box(&app)?;
    export::export_menu(&app)?;
    Ok(())
}

/// A page opened with no link shows the start screen (journeys, all lessons, the free lab);
/// its address stays bare, and the lab behind it is the defaults' (`?v=2`), one link away.
fn show_start(state: &mut State) {
    state.kept_address = Some(String::new());
    if let Some(body) = document().body() {
        let _ = body.set_attribute("data-start", "true");
    }
    // One main landmark at a time: the start screen's, the lab's hidden behind it.
    if let (Some(start), Some(lab)) = (by_id("start"), by_id("lab")) {
        set_hidden(&start, false);
        set_hidden(&lab, true);
    }
    // Every lesson, as its bare link: it opens the lesson's own settings.
    if let Some(title) = by_id("start-lessons-title") {
        let n = retry_model::LESSONS.len();
        title.set_text_content(Some(&format!(
            "All {n} lessons (most ask a question before the run)"
        )));
    }
    let Some(list) = by_id("start-lessons") else {
        return;
    };
    let doc = document();
    for l in retry_model::LESSONS {
        let (Ok(li), Ok(a)) = (doc.create_element("li"), doc.create_element("a")) else {
            continue;
        };
        let _ = a.set_attribute("href", &format!("?lesson={}", l.id));
        a.set_text_content(Some(l.title));
        let _ = li.append_child(&a);
        let _ = list.append_child(&li);
    }
}

fn control_value(el: &Element) -> (String, bool) {
    if let Some(i) = el.dyn_ref::<HtmlInputElement>() {
        (i.value(), i.checked())
    } else if let Some(s) = el.dyn_ref::<HtmlSelectElement>() {
        (s.value(), false)
    } else {
        (String::new(), false)
    }
}

/// Builds every key's control from the key table into its form group: a label, the field
/// (a menu of the domain's choices, a number, a text or a checkbox) and a note that says why the
/// control is disabled when its key has no effect with the link's scenario.
fn build_controls(doc: &Document) -> Result<(), JsValue> {
    for group in Group::ALL {
        let Some(group_set) = by_id(group.id()) else {
            continue;
        };
        // The group's rows, in a box of their own so the buttons stay after them while a row
        // folds into "Not used by this scenario" and back.
        let set = doc.create_element("div")?;
        set.set_id(&format!("{}-fields", group.id()));
        set.set_class_name("fields");
        group_set.append_child(&set)?;
        let group_box = set.clone();
        for (k, _) in controls().filter(|(k, _)| k.group == group) {
            let set = doc.create_element("div")?;
            set.set_id(&format!("{}-row", k.name));
            set.set_class_name("fields");
            group_box.append_child(&set)?;
            let label = doc.create_element("label")?;
            label.set_attribute("for", k.name)?;
            label.set_text_content(Some(k.label));
            let field = control_field(doc, k)?;
            field.set_id(k.name);
            field.set_attribute("data-key", k.name)?;
            field.set_attribute("aria-describedby", &format!("{0}-help {0}-note", k.name))?;
            let note = doc.create_element("span")?;
            note.set_id(&format!("{}-note", k.name));
            note.set_class_name("note");
            // The key's meaning, in view (a phone shows no tooltips), in plain words.
            let help = doc.create_element("span")?;
            help.set_id(&format!("{}-help", k.name));
            help.set_class_name("help");
            help.set_text_content(Some(&k.meaning.replace('`', "")));
            if k.control == Control::Check {
                let wrap = doc.create_element("span")?;
                wrap.set_class_name("checks");
                wrap.append_child(&field)?;
                wrap.append_child(&label)?;
                set.append_child(&wrap)?;
            } else {
                set.append_child(&label)?;
                set.append_child(&field)?;
            }
            set.append_child(&help)?;
            set.append_child(&note)?;
        }
        // Buttons written in the page (New seed) go after the group's fields.
        if let Ok(buttons) = group_set.query_selector_all(":scope > button") {
            for i in 0..buttons.length() {
                if let Some(b) = buttons.item(i) {
                    group_set.append_child(&b)?;
                }
            }
        }
    }
    Ok(())
}

/// A key's field: a menu of its domain's choices, or a number, a text or a checkbox input.
fn control_field(doc: &Document, k: &retry_model::link_keys::Key) -> Result<Element, JsValue> {
    let field = match (k.control, k.domain) {
        (Control::Select, Domain::Switch) => {
            let sel = doc.create_element("select")?;
            for value in ["off", "on"] {
                let o = doc.create_element("option")?;
                o.set_attribute("value", value)?;
                o.set_text_content(Some(value));
                sel.append_child(&o)?;
            }
            sel
        }
        (Control::Select, Domain::Choice(choices)) => {
            let sel = doc.create_element("select")?;
            for (value, text) in choices {
                let o = doc.create_element("option")?;
                o.set_attribute("value", value)?;
                o.set_text_content(Some(text));
                sel.append_child(&o)?;
            }
            sel
        }
        (control, domain) => {
            let input = doc.create_element("input")?;
            let kind = match control {
                Control::Check => "checkbox",
                Control::Text => "text",
                Control::Number | Control::Millis | Control::Select | Control::None => "number",
            };
            input.set_attribute("type", kind)?;
            if kind == "text" {
                input.set_attribute("spellcheck", "false")?;
            }
            if let (Control::Number, Domain::Int { lo, hi }) = (control, domain) {
                input.set_attribute("min", &lo.to_string())?;
                input.set_attribute("max", &hi.to_string())?;
                input.set_attribute("step", "1")?;
            } else if kind == "number" {
                input.set_attribute("min", "0")?;
                input.set_attribute("step", "any")?;
            }
            input
        }
    };
    Ok(field)
}

/// Opens a folded group when the link sets one of its keys away from its default, where it
/// applies (a preset's breaker is seen, not hidden).
fn open_groups(s: &State) {
    for (k, _) in controls() {
        let set = s.params.get(k.name).is_some_and(|v| v != k.default);
        if !set || !applies(k, &s.params) {
            continue;
        }
        if let Some(d) = by_id(k.group.id()).filter(|d| d.tag_name() == "DETAILS") {
            if !d.has_attribute("open") {
                let _ = d.set_attribute("open", "");
            }
        }
    }
}

/// Moves every control whose key has no effect in the link into the closed group "Not used
/// by this scenario (N)", each with its reason, and every other back into its own group, in
/// the key table's order. The simulation's own settings a scenario lacks are hidden instead.
fn fold_unused(s: &State) {
    let (Some(unused), Some(details)) = (by_id("unused-fields"), by_id("unused")) else {
        return;
    };
    let mut n = 0;
    for (k, _) in controls().filter(|(k, _)| k.group != Group::System) {
        let Some(row) = by_id(&format!("{}-row", k.name)) else {
            continue;
        };
        let home = if applies(k, &s.params) {
            by_id(&format!("{}-fields", k.group.id()))
        } else {
            n += 1;
            Some(unused.clone())
        };
        if let Some(h) = home {
            let _ = h.append_child(&row);
        }
    }
    // A group left with no control of its own (the one request's, for a simulation) goes.
    for group in Group::ALL.into_iter().filter(|g| *g != Group::System) {
        if let (Some(set), Some(fields)) =
            (by_id(group.id()), by_id(&format!("{}-fields", group.id())))
        {
            let button = set.query_selector(":scope > button").ok().flatten();
            set_hidden(&set, fields.child_element_count() == 0 && button.is_none());
        }
    }
    if let Some(summary) = by_id("unused-summary") {
        summary.set_text_content(Some(&format!("Not used by this scenario ({n})")));
    }
    set_hidden(&details, n == 0);
}

fn fill_menus(doc: &Document) -> Result<(), JsValue> {
    let preset = by_id("preset").ok_or("no #preset")?;
    for (label, rows) in State::preset_groups() {
        let group = doc.create_element("optgroup")?;
        group.set_attribute("label", label)?;
        for (name, title) in rows {
            let o = doc.create_element("option")?;
            o.set_attribute("value", name)?;
            o.set_text_content(Some(title));
            group.append_child(&o)?;
        }
        preset.append_child(&group)?;
    }
    let lessons = by_id("lesson-menu").ok_or("no #lesson-menu")?;
    for l in retry_model::LESSONS {
        let o = doc.create_element("option")?;
        o.set_attribute("value", l.id)?;
        o.set_text_content(Some(l.title));
        lessons.append_child(&o)?;
    }
    Ok(())
}

/// Writes everything the state shows. `write_controls` also rewrites the controls from the
/// state (after a preset, a load, or a refused value); otherwise the field being edited is left
/// alone.
fn render(a: &mut App, write_controls: bool) {
    render_controls(a, write_controls);
    let scenario = a.state.params.sim.scenario.is_some();
    if !scenario {
        draw(a);
    }
    render_rest(a);
}

/// The controls, errors, notices, the step trace and the link (the first part of [`render`]).
/// Writes the link into the address bar, unless it is there already.
fn write_address(s: &State) {
    let Some(w) = web_sys::window() else {
        return;
    };
    if s.kept_address.is_some() {
        // A refused link stays as the reader wrote it until they change something.
        return;
    }
    let link = format!("?{}", s.link());
    if w.location().search().ok().as_deref() == Some(link.as_str()) {
        return;
    }
    if let Ok(h) = w.history() {
        let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(&link));
    }
}

/// Writes one control from the state (enabled or not, its note, refused or not, its value),
/// touching only what changed since it was last written. Returns whether it moved in or out
/// of use (so the folded group is redone).
fn write_control(
    s: &State,
    k: &'static retry_model::link_keys::Key,
    kind: Kind,
    shown: &mut Option<ControlShown>,
    write_controls: bool,
    active: &str,
) -> bool {
    let mut moved = false;
    let key = k.name;
    let Some(c) = shown else { return false };
    let invalid = s.errors.iter().any(|e| e.field == key);
    let (used, on, why) = crate::controls::standing(k, &s.params);
    if c.why.as_ref() != Some(&why) {
        if let Some(note) = &c.note {
            note.set_text_content(Some(&why));
        }
        c.why = Some(why);
    }
    if c.on != Some(on) {
        if on {
            let _ = c.el.remove_attribute("disabled");
        } else {
            let _ = c.el.set_attribute("disabled", "");
        }
        // A simulation setting the chosen scenario does not have is left out of view
        // (its whole row: label, field, help and note) rather than shown disabled: the group
        // lists what the scenario has.
        if k.group == Group::System {
            if let Some(row) = by_id(&format!("{key}-row")) {
                set_hidden(&row, !used);
            }
        }
        moved = k.group != Group::System;
        c.on = Some(on);
    }
    if c.invalid != Some(invalid) {
        let _ =
            c.el.set_attribute("aria-invalid", if invalid { "true" } else { "false" });
        c.invalid = Some(invalid);
    }
    if (!write_controls && key == active) || invalid {
        // The field being edited, or a refused value, stays as the reader typed it; the
        // next render writes the state's value again.
        c.value = None;
        return moved;
    }
    let text = s.params.get(key).unwrap_or_default();
    // A menu (built for a choice of values) holds the link's text as it is.
    let menu = matches!((k.control, k.domain), (Control::Select, Domain::Choice(_)));
    let value = if kind == Kind::Check || menu {
        text
    } else {
        to_control(kind, &text)
    };
    // A preset, a load or a refused value rewrites every field from the state, whatever
    // the page thinks is there.
    if !write_controls && c.value.as_deref() == Some(value.as_str()) {
        return moved;
    }
    if let Some(i) = c.el.dyn_ref::<HtmlInputElement>() {
        if kind == Kind::Check {
            i.set_checked(value == "true");
        } else {
            i.set_value(&value);
        }
    } else if let Some(sel) = c.el.dyn_ref::<HtmlSelectElement>() {
        sel.set_value(&value);
    }
    c.value = Some(value);
    moved
}

/// Side B's and the sweep's keys, as text without their prefix.
fn render_side_fields(s: &State, write_controls: bool, active: &str) {
    let layers = s.params.sim.kind() == Some(retry_model::sim::ScenarioKind::Layers);
    for (id, field, text) in [
        ("side-b", "b", s.params.side_b_text()),
        ("sweep-keys", "sweep", s.params.sweep_text()),
        (
            "layer-keys",
            retry_model::layer_keys::FIELD,
            s.params.layer_text(),
        ),
    ] {
        let Some(el) = by_id(id) else { continue };
        let invalid = s.errors.iter().any(|e| e.field == field);
        let _ = el.set_attribute("aria-invalid", if invalid { "true" } else { "false" });
        // Side B applies to a policy link too (two clients' schedules); a sweep needs a run;
        // the layers' keys need the layers scenario.
        let (usable, why) = match id {
            "side-b" => (true, ""),
            "layer-keys" => (
                layers,
                "needs scenario=layers: each layer of the stack may run its own policy",
            ),
            _ => (
                s.params.sim.scenario.is_some(),
                "needs a scenario: comparisons and sweeps run simulations",
            ),
        };
        if usable {
            let _ = el.remove_attribute("disabled");
        } else {
            let _ = el.set_attribute("disabled", "");
        }
        if let Some(note) = by_id(&format!("{id}-note")) {
            note.set_text_content(Some(if usable { "" } else { why }));
        }
        if invalid || (!write_controls && id == active) {
            continue;
        }
        if let Some(i) = el.dyn_ref::<HtmlInputElement>() {
            i.set_value(&text);
        }
    }
}

fn render_controls(a: &mut App, write_controls: bool) {
    let doc = document();
    if !a.starting {
        write_address(&a.state);
    }
    let active = doc.active_element().map(|e| e.id()).unwrap_or_default();
    if a.shown.is_empty() {
        a.shown = controls().map(|(k, _)| ControlShown::of(k.name)).collect();
    }
    let s = &a.state;
    let mut moved = false;
    for ((k, kind), shown) in controls().zip(a.shown.iter_mut()) {
        moved |= write_control(s, k, kind, shown, write_controls, &active);
    }
    if moved {
        fold_unused(s);
    }
    open_groups(s);
    render_side_fields(s, write_controls, &active);
    if let Some(p) = by_id("preset").and_then(|e| e.dyn_into::<HtmlSelectElement>().ok()) {
        p.set_value(s.params.preset.map_or("", |p| p.name()));
    }
    if let Some(errors) = by_id("errors") {
        errors.set_inner_html("");
        for e in &s.errors {
            if let Ok(p) = doc.create_element("p") {
                p.set_text_content(Some(&e.to_string()));
                let _ = errors.append_child(&p);
            }
        }
        let _ = errors.set_attribute("data-count", &s.errors.len().to_string());
    }
    if let Some(notices) = by_id("notices") {
        notices.set_text_content(Some(&s.notices.join("\n")));
    }
    if let Some(link) = by_id("share-link") {
        let href = web_sys::window()
            .map(|w| w.location().href().unwrap_or_default())
            .unwrap_or_default();
        let _ = link.set_attribute("href", &href);
        link.set_text_content(Some(&format!("?{}", s.link())));
    }
}

/// The scenario view, the lesson and the budget walk (the last part of [`render`]).
fn render_rest(a: &mut App) {
    let doc = document();
    let params = a.state.params.clone();
    if a.view.sync(&params) {
        schedule(a);
    }
    if a.view.render(&params) {
        schedule(a);
    }
    // Predict, then run: a policy-only lesson's trace stays hidden until the guess is in.
    let waiting = params.sim.scenario.is_none() && crate::web::scenario::awaiting_guess(&params);
    if waiting {
        if let Some(t) = by_id("trace-view") {
            let _ = t.set_attribute("hidden", "");
        }
    }
    // Its place says what will appear there, rather than a blank column.
    if let Some(w) = by_id("trace-waiting") {
        set_hidden(&w, !waiting);
    }
    render_policy(a, "lesson");
    render_policy(a, "budget");
    scroll_to_answer(a);
    a.renders += 1;
    if let Some(body) = doc.body() {
        let _ = body.set_attribute("data-renders", &a.renders.to_string());
    }
}

/// Calls `f` on one of the page's own panels, with what it draws from.
fn with_policy_panel(a: &mut App, name: &str, f: impl FnOnce(&mut Box<dyn Panel>, &PanelCtx<'_>)) {
    let App {
        panels,
        state,
        view,
        ..
    } = a;
    let cx = PanelCtx {
        state: Some(state),
        done: view.finished(),
        hover: None,
    };
    if let Some(x) = crate::views::find(panels, name) {
        f(x, &cx);
    }
}

/// Draws one of the page's own panels (after taking in the link, which resets its stepping
/// when the link changed).
fn render_policy(a: &mut App, name: &str) {
    with_policy_panel(a, name, |x, cx| {
        if let Some(s) = cx.state {
            x.sync(&s.params);
        }
        x.render(cx);
    });
}

/// Fills one of the page's own panels' table alternative (its details box opened).
fn table_policy(a: &mut App, name: &str) {
    with_policy_panel(a, name, |x, cx| x.table(cx));
}

/// A stepping control of one of the policy side's panels; draws it again.
fn act_policy(a: &mut App, name: &str, what: &str) {
    if let Some(x) = crate::views::find(&mut a.panels, name) {
        x.act(what);
    }
    render_policy(a, name);
}

/// The client under the pointer at device pixel `(x, y)` on the schedule chart.
fn schedule_client_at(a: &App, x: f64, y: f64, radius: f64) -> Option<u32> {
    let at = a
        .panels
        .iter()
        .find(|p| p.name() == "schedule")?
        .at(x, y, radius)?;
    u32::try_from(at).ok()
}

/// The request's steps and its deadline timeline.
fn draw_deadline(a: &mut App) {
    render_policy(a, "trace");
}

fn draw(a: &mut App) {
    draw_deadline(a);
    if by_id("schedule-box").is_some_and(|b| b.has_attribute("open")) {
        table_policy(a, "schedule");
    }
    draw_schedule_chart(a);
}

/// The schedule chart, its data attributes and its readout.
fn draw_schedule_chart(a: &mut App) {
    render_policy(a, "schedule");
}
