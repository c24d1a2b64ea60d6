//! The page's wiring steps, each its own function: `web::start` calls them in order.

use super::*;

/// The simulation workers' messages: read, then the view redrawn (and the next slice where the page runs a link itself).
pub(super) fn worker_messages(app: &Rc<RefCell<App>>) {
    {
        // Reads what the simulation workers posted and redraws; where the page runs the
        // simulation itself, one slice per task, rescheduled while work remains.
        let runner = app.clone();
        let tick = Closure::<dyn FnMut()>::new(move || {
            let Ok(mut a) = runner.try_borrow_mut() else {
                return; // called during an update, which renders anyway
            };
            a.tick_pending = false;
            let params = a.state.params.clone();
            let more = a.view.pump(&params);
            // While a run is in flight only its progress changes: showing it at most every
            // PROGRESS_MS leaves the cores to the workers (a sweep's rows arrive many a second).
            let t = crate::web::dom::now();
            if a.view.in_flight() && t - a.progress_shown < PROGRESS_MS {
                if more {
                    schedule(&mut a);
                }
                return;
            }
            a.progress_shown = t;
            let again = a.view.render(&params);
            render_policy(&mut a, "lesson");
            if more || again {
                schedule(&mut a);
            }
        });
        let f: js_sys::Function = tick.as_ref().unchecked_ref::<js_sys::Function>().clone();
        tick.forget(); // page-lifetime handler
                       // A search kept to a format gets its pool from the importer's worker.
        let pools = app.clone();
        super::importer::on_reply(
            "tune_pool",
            Box::new(move |r| {
                let Ok(mut a) = pools.try_borrow_mut() else {
                    return;
                };
                let params = a.state.params.clone();
                a.view.give_pool(&params, r);
                schedule(&mut a);
            }),
        );
        let mut a = app.borrow_mut();
        a.view.connect(f.clone());
        let params = a.state.params.clone();
        a.view.prestart(&params, false);
        a.tick = Some(f);
    }
}

/// The first render, in stages of one task each.
pub(super) fn first_render(app: &Rc<RefCell<App>>) -> Result<(), JsValue> {
    // The first render runs in stages, one task each, so that no task at start-up (when every
    // function runs for the first time and is compiled as it is called) blocks the page for
    // long. The wasm's instantiation has a task to itself; then the schedule chart (the first
    // chart), on a page that is still small to lay out; the controls; their values; the
    // deadline chart and tables; the scenario view and the rest; the address bar. The controls' handlers are
    // delegated (below), so nothing waits for the controls to exist.
    {
        let stages = app.clone();
        let stage = Rc::new(std::cell::Cell::new(0u8));
        let me: Rc<RefCell<Option<js_sys::Function>>> = Rc::default();
        let me2 = me.clone();
        let step = Closure::<dyn FnMut()>::new(move || {
            let Ok(mut a) = stages.try_borrow_mut() else {
                return;
            };
            let scenario = a.state.params.sim.scenario.is_some();
            let n = stage.get();
            match n {
                0 => {
                    if !scenario {
                        draw_schedule_chart(&mut a);
                    }
                    mark_ready(false);
                }
                1 => {
                    if build_controls(&document()).is_err() {
                        web_sys::console::error_1(&"the controls could not be built".into());
                    }
                }
                2 => {
                    if fill_menus(&document()).is_err() {
                        web_sys::console::error_1(&"the menus could not be filled".into());
                    }
                    render_controls(&mut a, true);
                }
                3 => {
                    if !scenario {
                        draw_deadline(&mut a);
                        if by_id("schedule-box").is_some_and(|b| b.has_attribute("open")) {
                            super::table_policy(&mut a, "schedule");
                        }
                    }
                }
                4 => {
                    render_rest(&mut a);
                    let params = a.state.params.clone();
                    a.view.prestart(&params, true);
                }
                _ => {
                    a.starting = false;
                    write_address(&a.state);
                    mark_ready(true);
                    return;
                }
            }
            stage.set(n + 1);
            if let (Some(w), Some(f)) = (web_sys::window(), me2.borrow().as_ref()) {
                let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(f, 0);
            }
        });
        let f: js_sys::Function = step.as_ref().unchecked_ref::<js_sys::Function>().clone();
        step.forget(); // runs six times at start-up; kept as small as a page-lifetime handler
        if let Some(w) = web_sys::window() {
            w.set_timeout_with_callback_and_timeout_and_arguments_0(&f, 0)?;
        }
        *me.borrow_mut() = Some(f);
    }
    Ok(())
}

/// Every control, through one delegated handler.
pub(super) fn controls(app: &Rc<RefCell<App>>) -> Result<(), JsValue> {
    // One delegated handler for every control; text fields apply on change, the rest on input.
    for event in ["input", "change"] {
        let app = app.clone();
        let handler = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            let Some(target) = e.target().and_then(|t| t.dyn_into::<Element>().ok()) else {
                return;
            };
            let id = target.id();
            let is_text = target.get_attribute("type").as_deref() == Some("text");
            if (e.type_() == "input") == is_text && id != "preset" && id != "lesson-menu" {
                return;
            }
            let msg = if id == "lesson-menu" {
                if e.type_() != "change" {
                    return;
                }
                Msg::Lesson(
                    target
                        .dyn_ref::<HtmlSelectElement>()
                        .map(|s| s.value())
                        .unwrap_or_default(),
                )
            } else if id == "lesson-guess" {
                Msg::Set(
                    "guess",
                    target
                        .dyn_ref::<HtmlInputElement>()
                        .map(|i| retry_model::guess_link_value(&i.value()))
                        .unwrap_or_default(),
                )
            } else if id == "preset" {
                if e.type_() != "change" {
                    return;
                }
                Msg::Preset(
                    target
                        .dyn_ref::<HtmlSelectElement>()
                        .map(|s| s.value())
                        .unwrap_or_default(),
                )
            } else if matches!(id.as_str(), "side-b" | "sweep-keys" | "layer-keys") {
                let text = target
                    .dyn_ref::<HtmlInputElement>()
                    .map(|i| i.value())
                    .unwrap_or_default();
                match id.as_str() {
                    "side-b" => Msg::SideB(text),
                    "sweep-keys" => Msg::Sweep(text),
                    _ => Msg::Layers(text),
                }
            } else if let Some((key, kind)) = key_of(&id) {
                let (value, checked) = control_value(&target);
                Msg::Set(key, to_link(kind, &value, checked))
            } else {
                return;
            };
            let mut a = app.borrow_mut();
            let changed = a.state.update(msg);
            let rewrite = id == "preset" || id == "lesson-menu";
            render(&mut a, rewrite || !changed);
        });
        by_id("controls")
            .ok_or("no #controls")?
            .add_event_listener_with_callback(event, handler.as_ref().unchecked_ref())?;
        handler.forget(); // page-lifetime handler
    }
    Ok(())
}

/// The buttons: a new seed, Cancel, copying the comparison and the sweep's table.
pub(super) fn buttons(app: &Rc<RefCell<App>>) -> Result<(), JsValue> {
    // A fresh seed from the platform's generator, written into the link: the run it gives stays
    // reproducible from the address bar.
    on_click(app, "new-seed", |a| {
        if let Ok(seed) = crate::fresh_seed() {
            a.state.update(Msg::Set("seed", seed.to_string()));
            render(a, true);
        }
    })?;

    on_click(app, "sim-cancel", |a| {
        a.view.cancel();
        render_view(a);
    })?;
    // Copies the before/after table as Markdown, byte for byte what `retrylab compare` prints.
    // Copies the sweep's table as Markdown, byte for byte what `retrylab sweep` prints.
    on_click(app, "sweep-copy", |_| {
        let md = by_id("sweep-md")
            .and_then(|e| e.text_content())
            .unwrap_or_default();
        if let (false, Some(w)) = (md.is_empty(), web_sys::window()) {
            let _ = w.navigator().clipboard().write_text(&md);
            if let Some(b) = by_id("sweep-copy") {
                b.set_text_content(Some("Copied"));
            }
        }
    })?;
    on_click(app, "compare-copy", |a| {
        if let (Some(md), Some(w)) = (a.view.compare_markdown(), web_sys::window()) {
            let _ = w.navigator().clipboard().write_text(&md);
            if let Some(b) = by_id("compare-copy") {
                b.set_text_content(Some("Copied"));
            }
        }
    })?;
    Ok(())
}

/// The lesson's guess: committed, it goes into the link and the run is shown.
pub(super) fn lessons(app: &Rc<RefCell<App>>) -> Result<(), JsValue> {
    on_click(app, "lesson-commit", |a| {
        let guess = by_id("lesson-guess")
            .and_then(|e| e.dyn_into::<HtmlInputElement>().ok())
            .map(|i| retry_model::guess_link_value(&i.value()))
            .unwrap_or_default();
        a.state.update(Msg::Set("guess", guess));
        a.scroll_to_answer = true;
        render(a, false);
    })
}

/// The exports: the series as CSV, the summary as Markdown, the charts as PNG.
pub(super) fn exports(app: &Rc<RefCell<App>>) -> Result<(), JsValue> {
    {
        // Exports: the run's series as CSV, its summary as Markdown, the timeline as PNG.
        let app = app.clone();
        let on_export = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            let id = e
                .target()
                .and_then(|t| t.dyn_into::<Element>().ok())
                .map(|t| t.id())
                .unwrap_or_default();
            let a = app.borrow();
            let Some((stem, csv, md)) = a.view.exports() else {
                return;
            };
            let (name, href) = match id.as_str() {
                "export-csv" => (
                    format!("{stem}.csv"),
                    format!(
                        "data:text/csv;charset=utf-8,{}",
                        js_sys::encode_uri_component(&csv)
                    ),
                ),
                "export-md" => (
                    format!("{stem}.md"),
                    format!(
                        "data:text/markdown;charset=utf-8,{}",
                        js_sys::encode_uri_component(&md)
                    ),
                ),
                "export-png" => {
                    // Every chart of the view, each at the device pixel ratio it is drawn at.
                    let ids = a.view.chart_ids();
                    for (i, id) in ids.iter().enumerate() {
                        if let Some(url) = canvas_png(id) {
                            let name = if ids.len() == 1 {
                                format!("{stem}.png")
                            } else {
                                format!("{stem}-{}.png", i + 1)
                            };
                            download(&name, &url);
                        }
                    }
                    return;
                }
                _ => return,
            };
            download(&name, &href);
        });
        by_id("exports")
            .ok_or("no #exports")?
            .add_event_listener_with_callback("click", on_export.as_ref().unchecked_ref())?;
        on_export.forget(); // page-lifetime handler
    }
    on_click(app, "export-schedule-png", |_| {
        if let Some(url) = canvas_png("schedule") {
            download("retrylab-schedule.png", &url);
        }
    })?;
    Ok(())
}

/// Stepping: the request's deadline, the budget walk, the ledger and the amplification tree
/// (their buttons, and the tree's mode menu).
pub(super) fn stepping(app: &Rc<RefCell<App>>) -> Result<(), JsValue> {
    // The amplification tree's stepping: buttons and the mode menu (its keys: `keyboard`).
    // Stepping through the request: the timeline draws attempt by attempt, the matching text
    // step ringed, the later ones dimmed.
    on_steps(app, "deadline", |a, what| act_policy(a, "trace", what))?;
    on_steps(app, "budget", |a, what| act_policy(a, "budget", what))?;
    on_steps(app, "ledger", |a, what| a.view.act("ledger", what))?;
    on_steps(app, "tree", |a, what| a.view.act("tree", what))?;
    {
        let app = app.clone();
        let on_mode = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            let mode = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlSelectElement>().ok())
                .map(|s| s.value())
                .unwrap_or_default();
            app.borrow_mut().view.act("tree", &mode);
        });
        by_id("tree-mode")
            .ok_or("no #tree-mode")?
            .add_event_listener_with_callback("change", on_mode.as_ref().unchecked_ref())?;
        on_mode.forget(); // page-lifetime handler
    }
    Ok(())
}

/// The keyboard: the arrow keys, Home and End step the amplification tree when it has focus.
pub(super) fn keyboard(app: &Rc<RefCell<App>>) -> Result<(), JsValue> {
    let app2 = app.clone();
    let on_key =
        Closure::<dyn FnMut(web_sys::KeyboardEvent)>::new(move |e: web_sys::KeyboardEvent| {
            let what = match e.key().as_str() {
                "ArrowRight" | "ArrowDown" => "step",
                "ArrowLeft" | "ArrowUp" => "back",
                "Home" => "start",
                "End" => "reset",
                _ => return,
            };
            e.prevent_default();
            app2.borrow_mut().view.act("tree", what);
        });
    by_id("tree")
        .ok_or("no #tree")?
        .add_event_listener_with_callback("keydown", on_key.as_ref().unchecked_ref())?;
    on_key.forget(); // page-lifetime handler
    Ok(())
}

/// The charts' tables, filled when opened.
pub(super) fn tables(app: &Rc<RefCell<App>>) -> Result<(), JsValue> {
    // The charts' tables are filled when opened (and kept current while open).
    {
        let app2 = app.clone();
        let app = app.clone();
        let on_rates =
            Closure::<dyn FnMut()>::new(move || app.borrow_mut().view.fill_rates_table());
        by_id("rates-box")
            .ok_or("no #rates-box")?
            .add_event_listener_with_callback("toggle", on_rates.as_ref().unchecked_ref())?;
        on_rates.forget(); // page-lifetime handler
        let on_sched = Closure::<dyn FnMut()>::new(move || {
            super::table_policy(&mut app2.borrow_mut(), "schedule")
        });
        by_id("schedule-box")
            .ok_or("no #schedule-box")?
            .add_event_listener_with_callback("toggle", on_sched.as_ref().unchecked_ref())?;
        on_sched.forget(); // page-lifetime handler
    }
    // The client table is built when first opened.
    let app = app.clone();
    let on_clients =
        Closure::<dyn FnMut()>::new(move || render_policy(&mut app.borrow_mut(), "clients"));
    by_id("clients-box")
        .ok_or("no #clients-box")?
        .add_event_listener_with_callback("toggle", on_clients.as_ref().unchecked_ref())?;
    on_clients.forget(); // page-lifetime handler
    Ok(())
}

/// The pointer on the timeline and the sweep's charts: the readout of the bin under it.
pub(super) fn pointers(app: &Rc<RefCell<App>>) -> Result<(), JsValue> {
    {
        let app = app.clone();
        let on_move =
            Closure::<dyn FnMut(web_sys::PointerEvent)>::new(move |e: web_sys::PointerEvent| {
                let mut a = app.borrow_mut();
                if a.view.hover(pointer_at(&e)) {
                    render_view(&mut a);
                }
            });
        // The timeline, and the sweep's charts (which share one x axis).
        for id in ["timeline", "sweep-charts"] {
            let el = by_id(id).ok_or_else(|| format!("no #{id}"))?;
            for event in ["pointermove", "pointerleave"] {
                el.add_event_listener_with_callback(event, on_move.as_ref().unchecked_ref())?;
            }
        }
        on_move.forget(); // page-lifetime handler
    }
    // The panels' own charts read out what lies under the pointer: the analytic twin's state,
    // the frontier's policy.
    for (panel, id) in [("analytic", "analytic-chart"), ("tune", "tune-chart")] {
        let app = app.clone();
        let on_move =
            Closure::<dyn FnMut(web_sys::PointerEvent)>::new(move |e: web_sys::PointerEvent| {
                app.borrow_mut().view.point(panel, pointer_at(&e));
            });
        let el = by_id(id).ok_or_else(|| format!("no #{id}"))?;
        for event in ["pointermove", "pointerleave"] {
            el.add_event_listener_with_callback(event, on_move.as_ref().unchecked_ref())?;
        }
        on_move.forget(); // page-lifetime handler
    }
    Ok(())
}

/// The deadline chart and the request's text steps point at each other; "Exact numbers"
/// rewrites the steps to the microsecond.
pub(super) fn deadline_links(app: &Rc<RefCell<App>>) -> Result<(), JsValue> {
    {
        let app = app.clone();
        let on_exact = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            let exact = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
                .is_some_and(|i| i.checked());
            let what = if exact { "exact" } else { "people" };
            act_policy(&mut app.borrow_mut(), "trace", what);
        });
        by_id("trace-exact")
            .ok_or("no #trace-exact")?
            .add_event_listener_with_callback("change", on_exact.as_ref().unchecked_ref())?;
        on_exact.forget(); // page-lifetime handler
    }
    {
        // The deadline timeline and the text steps point at each other.
        let app2 = app.clone();
        let app = app.clone();
        let on_move =
            Closure::<dyn FnMut(web_sys::PointerEvent)>::new(move |e: web_sys::PointerEvent| {
                let mut a = app.borrow_mut();
                let at = if e.type_() == "pointerleave" {
                    None
                } else {
                    pointer_at(&e)
                };
                if let Some(x) = crate::views::find(&mut a.panels, "trace") {
                    x.point(at);
                }
                draw_deadline(&mut a);
            });
        let el = by_id("deadline-chart").ok_or("no #deadline-chart")?;
        for event in ["pointermove", "pointerleave"] {
            el.add_event_listener_with_callback(event, on_move.as_ref().unchecked_ref())?;
        }
        on_move.forget(); // page-lifetime handler
        let app = app2;
        let on_step = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            let hit = if e.type_() == "pointerleave" {
                None
            } else {
                e.target()
                    .and_then(|t| t.dyn_into::<Element>().ok())
                    .and_then(|t| t.closest("li").ok().flatten())
                    .and_then(|li| li.get_attribute("data-attempt"))
                    .and_then(|n| n.parse::<usize>().ok())
                    .map(|n| n.saturating_sub(1))
            };
            let what = hit.map_or("at:none".to_string(), |h| format!("at:{h}"));
            act_policy(&mut app.borrow_mut(), "trace", &what);
        });
        let list = by_id("trace-steps").ok_or("no #trace-steps")?;
        for event in ["pointerover", "pointerleave"] {
            list.add_event_listener_with_callback(event, on_step.as_ref().unchecked_ref())?;
        }
        on_step.forget(); // page-lifetime handler
    }
    Ok(())
}

/// The pointer on the schedule: the client under it is followed across its retries.
pub(super) fn schedule_hover(app: &Rc<RefCell<App>>) -> Result<(), JsValue> {
    let canvas = by_id("schedule").ok_or("no #schedule")?;
    {
        let app = app.clone();
        let on_move =
            Closure::<dyn FnMut(web_sys::PointerEvent)>::new(move |e: web_sys::PointerEvent| {
                let dpr = web_sys::window()
                    .map(|w| w.device_pixel_ratio())
                    .unwrap_or(1.0);
                let (x, y) = (f64::from(e.offset_x()) * dpr, f64::from(e.offset_y()) * dpr);
                let mut a = app.borrow_mut();
                let hit = schedule_client_at(&a, x, y, 10.0 * dpr);
                if hit != a.state.hover {
                    a.state.update(Msg::Hover(hit));
                    draw(&mut a);
                }
            });
        canvas.add_event_listener_with_callback("pointermove", on_move.as_ref().unchecked_ref())?;
        on_move.forget();
    }
    {
        let app = app.clone();
        let on_leave = Closure::<dyn FnMut(web_sys::PointerEvent)>::new(move |_| {
            let mut a = app.borrow_mut();
            if a.state.hover.is_some() {
                a.state.update(Msg::Hover(None));
                draw(&mut a);
            }
        });
        canvas
            .add_event_listener_with_callback("pointerleave", on_leave.as_ref().unchecked_ref())?;
        on_leave.forget();
    }
    Ok(())
}

/// A resized window redraws the charts at their new size.
pub(super) fn resize(app: &Rc<RefCell<App>>) -> Result<(), JsValue> {
    {
        let app = app.clone();
        let on_resize = Closure::<dyn FnMut()>::new(move || {
            let mut a = app.borrow_mut();
            if a.state.params.sim.scenario.is_none() {
                draw(&mut a);
            }
            a.view.redraw_charts();
            schedule(&mut a); // the charts under the timeline follow in the next task
        });
        web_sys::window()
            .ok_or("no window")?
            .add_event_listener_with_callback("resize", on_resize.as_ref().unchecked_ref())?;
        on_resize.forget();
    }
    Ok(())
}
