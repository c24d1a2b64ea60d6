//! The exercise commands: `answer` (what a link asks, and the lab's answer) and `sheet` (a
//! teacher's file checked, its answer key, and the one link that opens it on the page).

use crate::json;
use crate::simcmd::{row_name, run_rows, simulate_with_progress};
use retry_model::json::{inputs, AnswerDoc, SheetDoc};
use retry_model::{Answer, Exercise, Figures, Params, Said, Sheet, SweepFigures};
use std::fmt::Write;

/// The lab's answer to what `p` asks: it runs what the answer needs (side A's run, the sweep's
/// rows, the traced request, the analytic twin), as the page does.
pub fn answer_of(p: &Params) -> Result<(Exercise, Said), String> {
    let ex = p.exercise().ok_or(
        "ask: this link asks nothing; add ask=<metric> (and q=...) or lesson=<id> (`retrylab keys` lists ask's values)",
    )?;
    let trace = retry_model::trace(p).map_err(|e| e.to_string())?;
    let side_a = p.side_a();
    let (mut run, mut mixing) = (None, None);
    let mut sweep = None;
    match ex.answer {
        Answer::Run(_) | Answer::OutlastsMixing => {
            run = Some(simulate_with_progress(&side_a, "run")?.summary);
            if ex.answer == Answer::OutlastsMixing {
                let a = retry_model::analyze(&side_a).map_err(|e| e.to_string())?;
                mixing = a.result.mixing_s;
            }
        }
        Answer::Least(_) | Answer::Most(_) | Answer::Same(_) | Answer::Helps(_) => {
            let (_, keys, jobs) = inputs::sweep_plan(&p.to_string(), &[])?;
            let rows = run_rows(&jobs);
            let summaries = rows
                .into_iter()
                .zip(&jobs)
                .map(|(s, (v, _))| s.map_err(|e| format!("{}: {e}", row_name(&keys, v))))
                .collect::<Result<Vec<_>, String>>()?;
            let values: Vec<Vec<String>> = jobs.into_iter().map(|(v, _)| v).collect();
            sweep = Some((values, summaries));
        }
        Answer::RemainingAt(_) | Answer::Made(_) => {}
    }
    let axes = p.sweep().map(|s| s.axes.clone()).unwrap_or_default();
    let figures = Figures {
        run: run.as_ref(),
        sweep: sweep.as_ref().map(|(values, rows)| SweepFigures {
            axes: &axes,
            values,
            rows,
        }),
        trace: Some(&trace),
        mixing_s: mixing,
    };
    let said = retry_model::answer(ex.answer, ex.unit, &figures)
        .ok_or("ask: the lab has no figure for this here (no successes to take a percentile of, or no trigger to recover from)")?;
    Ok((ex, said))
}

/// `retrylab answer '<link>'`.
pub fn cmd_answer(query: &str, fmt: &str) -> Result<String, String> {
    let p = query
        .parse::<retry_model::Params>()
        .map_err(|e| e.to_string())?;
    let (ex, said) = answer_of(&p)?;
    if fmt == "json" {
        return json::pretty(&AnswerDoc::new(&p, &ex, &said));
    }
    let mut out = String::new();
    let _ = writeln!(out, "question  {}", ex.question);
    let _ = writeln!(out, "answer    {}", said.shown);
    let _ = writeln!(out, "exact     {}{}", said.compared, unit_suffix(ex.unit));
    if let Some(after) = p.lesson.map(|l| l.after).filter(|a| !a.is_empty()) {
        let _ = writeln!(out, "shows     {after}");
    }
    if let Some(g) = &p.guess {
        let _ = writeln!(
            out,
            "guess     {}",
            retry_model::verdict(g, ex.unit, &said.shown, &said.compared).0
        );
    }
    Ok(out)
}

fn unit_suffix(unit: &str) -> String {
    if unit.is_empty() {
        String::new()
    } else {
        format!(" {unit}")
    }
}

/// The most a sheet file may hold: 20 exercises whose links each carry the whole sheet cannot
/// pass the link cap together, so anything larger is not a sheet.
const MAX_SHEET_BYTES: u64 = 64 * 1024;

/// A sheet file's text, read no further than [`MAX_SHEET_BYTES`] and refused past it.
fn read_capped(path: &str) -> Result<String, String> {
    use std::io::Read;
    let name = if path == "-" { "-" } else { path };
    let reader: Box<dyn Read> = if path == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?)
    };
    let mut bytes = Vec::new();
    reader
        .take(MAX_SHEET_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{name}: {e}"))?;
    if bytes.len() as u64 > MAX_SHEET_BYTES {
        return Err(format!(
            "{name}: over {} KiB, more than a sheet of 20 exercises can hold",
            MAX_SHEET_BYTES / 1024
        ));
    }
    String::from_utf8(bytes).map_err(|_| format!("{name}: not UTF-8 text"))
}

/// `retrylab sheet FILE` (`-` for standard input): the sheet checked, its answer key, and the
/// link that opens it.
pub fn cmd_sheet(path: &str, base: &str, fmt: &str) -> Result<String, String> {
    let text = read_capped(path)?;
    let sheet = Sheet::from_file(&text).map_err(|e| format!("{path}: {e}"))?;
    let mut docs = Vec::new();
    for (i, link) in sheet.links.iter().enumerate() {
        let p = link
            .parse::<retry_model::Params>()
            .map_err(|e| format!("{path}: exercise {}: {e}", i + 1))?;
        let (ex, said) = answer_of(&p).map_err(|e| format!("{path}: exercise {}: {e}", i + 1))?;
        docs.push(AnswerDoc::new(&p, &ex, &said));
    }
    let link = format!("{base}?sheet={}", sheet.value_encoded());
    if fmt == "json" {
        return json::pretty(&SheetDoc {
            title: sheet.title,
            link,
            exercises: docs,
        });
    }
    let mut out = String::new();
    let _ = writeln!(out, "{} ({} exercises)", sheet.title, docs.len());
    for (i, d) in docs.iter().enumerate() {
        let _ = writeln!(out, "\n{}. {}", i + 1, d.question);
        let _ = writeln!(out, "   link    ?{}", d.link);
        let _ = writeln!(
            out,
            "   answer  {} (exact {}{})",
            d.answer,
            d.exact,
            unit_suffix(d.unit)
        );
    }
    let _ = writeln!(out, "\nThe sheet, for the class:\n{link}");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::commands::run;

    fn run_s(args: &[&str]) -> Result<String, String> {
        run(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    fn json(args: &[&str]) -> serde_json::Value {
        serde_json::from_str(&run_s(args).unwrap()).unwrap()
    }

    /// A file larger than any sheet is refused on one line, read no further than the cap.
    #[test]
    fn a_sheet_file_past_the_cap_is_refused() {
        let path = std::env::temp_dir().join("retrylab-big-sheet.md");
        std::fs::write(&path, "T\n".to_string() + &"x".repeat(70_000)).unwrap();
        let e = run_s(&["sheet", path.to_str().unwrap()]).unwrap_err();
        assert!(
            e.ends_with("over 64 KiB, more than a sheet of 20 exercises can hold"),
            "{e}"
        );
        assert_eq!(e.lines().count(), 1);
        std::fs::remove_file(path).ok();
    }

    #[test]
    fn answer_prints_what_a_link_asks_and_the_labs_figure() {
        let d = json(&["answer", "lesson=layers-three", "--format", "json"]);
        assert_eq!(d["answer"], "27 calls");
        assert_eq!(d["link"], "v=2&preset=layers-333&lesson=layers-three");
        let d = json(&[
            "answer",
            "preset=chapter&ask=remaining_at:3",
            "--format",
            "json",
        ]);
        assert_eq!(
            (d["answer"].as_str(), d["exact"].as_str()),
            (Some("3600 ms"), Some("3600"))
        );
        // The run's own figure, the same the run prints.
        let run: serde_json::Value = serde_json::from_str(
            &run_s(&["run", "preset=payments-none", "--format", "json"]).unwrap(),
        )
        .unwrap();
        let d = json(&[
            "answer",
            "preset=payments-none&ask=amplification",
            "--format",
            "json",
        ]);
        let exact: f64 = d["exact"].as_str().unwrap().parse().unwrap();
        // serde_json reads floats to within an ulp or two.
        let ran = run["summary"]["amplification"].as_f64().unwrap();
        assert!((exact - ran).abs() < 1e-9 * ran, "{exact} against {ran}");
        // A sweep's least row.
        let d = json(&[
            "answer",
            "preset=burst-lab&sweep.backoff=none,full&ask=least:attempts",
            "--format",
            "json",
        ]);
        assert_eq!(d["exact"], "full");
        let e = run_s(&["answer", "preset=payments-none"]).unwrap_err();
        assert!(e.starts_with("ask: this link asks nothing"), "{e}");
    }

    #[test]
    fn a_sheet_file_gives_its_answer_key_and_one_link_that_opens_it() {
        let dir = std::env::temp_dir().join(format!("retrylab-sheet-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("week3.md");
        std::fs::write(
            &path,
            "# Week 3\n\nHow many calls reach the bottom?\n?preset=layers-333&ask=amplification\n\nWhat is left at attempt 3?\npreset=chapter&ask=remaining_at:3\n",
        )
        .unwrap();
        let d = json(&["sheet", path.to_str().unwrap(), "--format", "json"]);
        assert_eq!(d["title"], "Week 3");
        assert_eq!(d["exercises"][0]["answer"], "27 attempts per original");
        assert_eq!(d["exercises"][1]["answer"], "3600 ms");
        assert_eq!(d["exercises"][1]["question"], "What is left at attempt 3?");
        // The sheet's link opens its first exercise, and sheet_at the second.
        let link = d["link"].as_str().unwrap();
        let p: retry_model::Params = link.parse().unwrap();
        assert_eq!(p.sheet_at, 1);
        assert_eq!(p.preset.map(|p| p.name()), Some("layers-333"));
        let second: retry_model::Params = format!("{link}&sheet_at=2").parse().unwrap();
        assert_eq!(second.preset.map(|p| p.name()), Some("chapter"));
        let e: retry_model::ConfigError = format!("{link}&sheet_at=3")
            .parse::<retry_model::Params>()
            .unwrap_err();
        assert_eq!(e.field, "sheet_at");
        std::fs::write(&path, "# Week 3\n\npreset=chapter&ask=made:0\n").unwrap();
        let e = run_s(&["sheet", path.to_str().unwrap()]).unwrap_err();
        assert!(e.contains("line 3: ask:"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn compare_steps_runs_from_a_to_b_one_piece_at_a_time() {
        let link = "preset=payments-none&b.preset=payments-jitter";
        let d = json(&["compare", link, "--steps", "--format", "json"]);
        let steps = d["steps"].as_array().unwrap();
        let names: Vec<&str> = steps.iter().map(|s| s["step"].as_str().unwrap()).collect();
        assert_eq!(names, ["side A", "attempts", "backoff", "jitter"]);
        let cmp: serde_json::Value =
            serde_json::from_str(&run_s(&["compare", link, "--format", "json"]).unwrap()).unwrap();
        // First row is A, last is B, the same numbers `compare` prints.
        assert_eq!(
            steps[0]["amplification"],
            cmp["a"]["summary"]["amplification"]
        );
        assert_eq!(
            steps[3]["amplification"],
            cmp["b"]["summary"]["amplification"]
        );
        assert_eq!(
            steps[3]["success_rate"],
            cmp["b"]["summary"]["success_rate"]
        );
        let text = run_s(&["compare", link, "--steps"]).unwrap();
        assert!(text.contains("| attempts | `attempts=2` |"), "{text}");
    }
}
