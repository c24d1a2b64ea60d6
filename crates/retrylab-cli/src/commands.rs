//! The commands. Each returns its whole output as a string, or a one-line error.

use crate::args::{self, Command, Parsed};
use crate::json;
use retry_model::json::inputs;
use retry_model::{explain_in, trace, Digits, Params};
use std::fmt::Write;

/// Parses `argv` (without the program name) and runs the command.
pub fn run(argv: &[String]) -> Result<String, String> {
    let cli = match args::parse(argv)? {
        Parsed::Run(cli) => cli,
        Parsed::Print(text) => return Ok(text),
    };
    match cli.command {
        Command::Explain {
            link,
            format,
            exact,
        } => cmd_explain(&link.query, &format, exact),
        Command::Schedule {
            link,
            clients,
            format,
        } => cmd_schedule(&link.query, clients.as_deref(), &format),
        Command::Amplify { layers, p, format } => cmd_amplify(&layers, p.as_deref(), &format),
        Command::Run { link, format } => crate::simcmd::cmd_run(&link.query, &format),
        Command::Compare {
            a,
            b,
            steps: false,
            format,
        } => crate::simcmd::cmd_compare(&a, b.as_deref(), &format),
        Command::Compare {
            a,
            b,
            steps: true,
            format,
        } => crate::simcmd::cmd_steps(&a, b.as_deref(), &format),
        Command::Sweep {
            link,
            param,
            format,
            part,
        } => crate::shard::cmd_sweep_any(&link.query, &param, &format, &part),
        Command::Tune {
            link,
            flags,
            format,
        } => crate::tunecmd::cmd_tune(&link.query, &flags, &format),
        Command::Merge { parts, out } => {
            crate::shard::write_out(out.as_deref(), crate::shard::cmd_merge(&parts)?)
        }
        Command::Analyze { link, format } => cmd_analyze(&link.query, &format),
        Command::Answer { link, format } => crate::exercise::cmd_answer(&link.query, &format),
        Command::Sheet { file, base, format } => crate::exercise::cmd_sheet(&file, &base, &format),
        Command::Import {
            files,
            from,
            method,
            route,
            instance,
            version,
            format,
        } => cmd_import(
            &files,
            &retry_import::Options {
                from,
                method,
                route,
                release: version,
                instance,
            },
            &format,
        ),
        Command::Export { link, to, format } => cmd_export(&link.query, &to, &format),
        Command::Link { link } => Ok(format!("{}\n", params(&link.query)?)),
        Command::Fingerprint { link } => {
            let p = params(&link.query)?;
            let t = trace(&p).map_err(|e| e.to_string())?;
            Ok(format!("{:016x}\n", t.fingerprint()))
        }
        Command::Presets { format } => crate::listing::presets(&format),
        Command::Keys { format } => crate::listing::keys(&format),
        Command::Lessons { format } => crate::listing::lessons(&format),
    }
}

/// Reads a link.
pub fn params(query: &str) -> Result<Params, String> {
    query.parse::<Params>().map_err(|e| e.to_string())
}

fn cmd_explain(query: &str, fmt: &str, exact: bool) -> Result<String, String> {
    let (p, t) = inputs::explain_of(query)?;
    if fmt == "json" {
        return json::pretty(&json::Explain::new(&p, &t));
    }
    let digits = if exact { Digits::Exact } else { Digits::People };
    let e = explain_in(digits, &p, &t);
    let mut out = String::new();
    for l in &e.intro {
        let _ = writeln!(out, "{l}");
    }
    for s in &e.steps {
        let _ = writeln!(out);
        for (i, l) in s.lines.iter().enumerate() {
            let _ = writeln!(out, "{}{l}", if i == 0 { "" } else { "  " });
        }
    }
    let _ = writeln!(out, "\n{}", e.outcome);
    Ok(out)
}

fn cmd_schedule(query: &str, clients: Option<&str>, fmt: &str) -> Result<String, String> {
    let (p, s) = inputs::schedule_of(query, clients)?;
    let b = retry_model::json::schedule_b(&p);
    let mut out = String::new();
    match fmt {
        "json" => out.push_str(&json::pretty(&json::ScheduleDoc::new(&p, &s))?),
        "csv" => {
            // A link with a side B gets a `side` column; a plain one keeps its columns.
            let side = if b.is_some() { "side," } else { "" };
            let _ = writeln!(out, "{side}retry,client,low_ms,ceiling_ms,wait_ms");
            schedule_csv(&mut out, &s, if b.is_some() { "A," } else { "" });
            if let Some((_, sb)) = &b {
                schedule_csv(&mut out, sb, "B,");
            }
        }
        _ => {
            let _ = writeln!(out, "{} ({} clients, seed {})", p, s.clients, p.seed);
            let label = if b.is_some() { "A: " } else { "" };
            let _ = writeln!(out, "{label}{}", retry_model::describe_policy(&p.side_a()));
            schedule_table(&mut out, &s);
            if let Some((pb, sb)) = &b {
                let _ = writeln!(out, "\nB: {}", retry_model::describe_policy(pb));
                schedule_table(&mut out, sb);
            }
        }
    }
    Ok(out)
}

/// A schedule's rows as CSV, each after `prefix` (the side, or nothing).
fn schedule_csv(out: &mut String, s: &retry_model::Schedule, prefix: &str) {
    for r in &s.retries {
        for (c, w) in r.waits.iter().enumerate() {
            let _ = writeln!(
                out,
                "{prefix}{},{},{},{},{}",
                r.retry,
                c,
                r.low.as_millis_f64(),
                r.ceiling.as_millis_f64(),
                w.as_millis_f64()
            );
        }
    }
}

/// A schedule as a table: each retry's range, mean and first waits.
fn schedule_table(out: &mut String, s: &retry_model::Schedule) {
    let _ = writeln!(
        out,
        "{:>5}  {:>12}  {:>12}  {:>12}  waits",
        "retry", "low", "ceiling", "mean"
    );
    for (r, mean) in s.retries.iter().zip(s.means()) {
        let shown: Vec<String> = r.waits.iter().take(8).map(|w| w.human()).collect();
        let more = if r.waits.len() > 8 {
            format!(", ... ({} more)", r.waits.len() - 8)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "{:>5}  {:>12}  {:>12}  {:>12}  {}{}",
            r.retry,
            r.low.human(),
            r.ceiling.human(),
            mean.human(),
            shown.join(", "),
            more
        );
    }
}

fn cmd_amplify(layers_text: &str, p: Option<&str>, fmt: &str) -> Result<String, String> {
    let r = inputs::amplify_of(layers_text, p)?;
    if fmt == "json" {
        return json::pretty(&json::AmplifyDoc::new(&r));
    }
    let mut out = String::new();
    let product: Vec<String> = r.layers.iter().map(|k| k.to_string()).collect();
    let _ = writeln!(
        out,
        "worst case (every bottom call fails): {} = {} bottom calls per user request",
        product.join(" x "),
        r.worst_case
    );
    let _ = writeln!(
        out,
        "expected at p = {}: {:.4} bottom calls; the request fails with probability {:.3e}",
        r.p, r.expected, r.failure_probability
    );
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{:>5}  {:>8}  {:>14}  {:>15}  {:>18}  {:>10}",
        "layer", "attempts", "worst calls in", "worst calls out", "expected calls out", "P(fails)"
    );
    for row in &r.rows {
        let _ = writeln!(
            out,
            "{:>5}  {:>8}  {:>14}  {:>15}  {:>18.4}  {:>10.3e}",
            row.layer,
            row.attempts,
            row.worst_calls_in,
            row.worst_calls_out,
            row.expected_calls_out,
            row.failure_probability
        );
    }
    let fix: Vec<String> = r.fix_layers.iter().map(|k| k.to_string()).collect();
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "fix, retry at one layer only ({}): worst case {}, expected {:.4} bottom calls",
        fix.join(","),
        r.fix_worst_case,
        r.fix_expected
    );
    Ok(out)
}

/// `retrylab import FILE`: the link, then a line per warning and per field not modelled; or
/// JSON (`format`, `link`, `warnings`, `unsupported`).
fn cmd_import(paths: &[String], opts: &retry_import::Options, fmt: &str) -> Result<String, String> {
    if let [path] = paths {
        let bytes = read_config(path)?;
        let i = retry_import::import(&bytes, opts).map_err(|e| format!("{path}: {e}"))?;
        if fmt == "json" {
            return json::pretty(&i);
        }
        let mut text = format!("{}\nrules: {}\n", i.link, i.release);
        text.push_str(&notes_text(&i.warnings, &i.unsupported, &i.defaults));
        return Ok(text);
    }
    if paths.len() > retry_import::MAX_STACK {
        return Err(format!(
            "files: {} files: a stack takes 2 to {}, outermost first",
            paths.len(),
            retry_import::MAX_STACK
        ));
    }
    let files = paths
        .iter()
        .map(|p| read_config(p).map(|b| (p.clone(), b)))
        .collect::<Result<Vec<_>, String>>()?;
    let s = retry_import::stack(&files, opts).map_err(|e| e.to_string())?;
    if fmt == "json" {
        return json::pretty(&s);
    }
    Ok(format!(
        "{}\n{}",
        s.link,
        notes_text(&s.warnings, &s.unsupported, &s.defaults)
    ))
}

/// A configuration file (or standard input for `-`), at most one byte over the importer's
/// limit so that it can say the file is too large.
fn read_config(path: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let limit = retry_import::MAX_BYTES as u64 + 1;
    let read = if path == "-" {
        std::io::Read::read_to_end(
            &mut std::io::Read::take(std::io::stdin(), limit),
            &mut bytes,
        )
    } else {
        std::fs::File::open(path).and_then(|f| {
            std::io::Read::read_to_end(&mut std::io::Read::take(f, limit), &mut bytes)
        })
    };
    read.map_err(|e| format!("{path}: {e}"))?;
    Ok(bytes)
}

/// A line per warning, per field not modelled and per default the file does not write.
fn notes_text(
    warnings: &[retry_import::Note],
    unsupported: &[retry_import::Note],
    defaults: &[retry_import::Note],
) -> String {
    let mut out = String::new();
    for w in warnings {
        out.push_str(&format!("warning: {}: {}\n", w.field, w.text));
    }
    for u in unsupported {
        out.push_str(&format!("not modelled: {}: {}\n", u.field, u.text));
    }
    for d in defaults {
        out.push_str(&format!("default: {}={}\n", d.field, d.text));
    }
    out
}

/// `retrylab export '<link>' --to FORMAT`: the configuration, with what the format cannot say
/// on standard error (and, in YAML, as comments); or JSON (`format`, `text`, `notes`).
fn cmd_export(query: &str, to: &str, fmt: &str) -> Result<String, String> {
    let p = params(query)?;
    let e = retry_import::export(&p.to_string(), to).map_err(|e| e.to_string())?;
    if fmt == "json" {
        return json::pretty(&e);
    }
    for n in &e.notes {
        eprintln!("note: {}: {}", n.field, n.text);
    }
    Ok(e.text)
}

/// `retrylab analyze '<link>'`: the chain's figures, as text or JSON (the names
/// `mean_queue`, `p_high_mode`, `relaxation_per_s`, `mixing_s`, `drain_s`).
fn cmd_analyze(query: &str, fmt: &str) -> Result<String, String> {
    let p = params(query)?;
    let a = crate::simcmd::analyze_with_progress(&p)?;
    if fmt == "json" {
        return json::pretty(&json::AnalyzeDoc::new(&p, &a));
    }
    let mut out = format!("{p} (analytic twin)\n");
    for (k, v) in retry_model::analysis_rows(&a) {
        out.push_str(&format!("  {k:<26} {v}\n"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn run_s(args: &[&str]) -> Result<String, String> {
        run(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    /// Nine files or more are refused naming the limit, before any is read (the paths need not
    /// exist).
    #[test]
    fn a_stack_past_eight_files_names_the_limit() {
        let mut args = vec!["import"];
        args.extend(["no-such-file.yaml"; 9]);
        let e = run_s(&args).unwrap_err();
        assert_eq!(e, "files: 9 files: a stack takes 2 to 8, outermost first");
    }

    /// With `runs`, the JSON gives each mean's interval beside it and the runs that recovered;
    /// with one run, none.
    #[test]
    fn run_json_gives_the_intervals_over_runs() {
        let link = "preset=metastable-none&backoff=full";
        let one: Value =
            serde_json::from_str(&run_s(&["run", link, "--format", "json"]).unwrap()).unwrap();
        assert!(one["summary"].get("intervals").is_none());
        let many = format!("{link}&runs=8");
        let v: Value =
            serde_json::from_str(&run_s(&["run", &many, "--format", "json"]).unwrap()).unwrap();
        let iv = &v["summary"]["intervals"];
        assert_eq!(iv["runs"], json!(8));
        let amp = v["summary"]["amplification"].as_f64().unwrap();
        let (lo, hi) = (
            iv["amplification"]["low"].as_f64().unwrap(),
            iv["amplification"]["high"].as_f64().unwrap(),
        );
        assert!(lo < amp && amp < hi, "{lo} {amp} {hi}");
        assert_eq!(iv["recovered"]["k"], json!(8));
        let text = run_s(&["run", &many]).unwrap();
        assert!(text.contains("runs                       8: 95% intervals by bootstrap over the runs, rough under 10 runs"), "{text}");
    }

    #[test]
    fn explain_json_has_the_documented_keys() {
        let out = run_s(&["explain", "preset=chapter", "--format", "json"]).unwrap();
        let v: Value = serde_json::from_str(&out).unwrap();
        let steps = v["steps"].as_array().unwrap();
        assert_eq!(steps.len(), 3);
        for key in [
            "attempt",
            "t_ms",
            "remaining_ms",
            "timeout_ms",
            "outcome",
            "decision",
            "reason",
            "ceiling_ms",
            "wait_ms",
            "fits",
        ] {
            assert!(steps[0].get(key).is_some(), "missing {key}");
        }
        assert_eq!(steps[0]["remaining_ms"], json!(9900.0));
        assert_eq!(steps[1]["remaining_ms"], json!(6800.0));
        assert_eq!(steps[2]["remaining_ms"], json!(3600.0));
        assert_eq!(steps[0]["wait_ms"], json!(100.0));
        assert_eq!(v["stop_reason"], json!("attempts_used_up"));
    }

    #[test]
    fn explain_text_shows_the_arithmetic() {
        let out = run_s(&["explain", "preset=guide-700ms"]).unwrap();
        assert!(
            out.contains("= 750 ms > 700 ms remaining -> refused before sleeping"),
            "{out}"
        );
        let out = run_s(&["explain", "preset=guide-700ms&waits=150ms"]).unwrap();
        assert!(
            out.contains("= 650 ms <= 700 ms remaining -> fits"),
            "{out}"
        );
        // A drawn wait is rounded for people unless --exact asks for every microsecond.
        let link = "preset=chapter&waits=&seed=7";
        let people = run_s(&["explain", link]).unwrap();
        let exact = run_s(&["explain", link, "--exact"]).unwrap();
        let drawn = |t: &str| {
            t.lines()
                .find(|l| l.contains("drawn uniformly"))
                .and_then(|l| l.rsplit(": ").next())
                .map(str::to_string)
                .unwrap()
        };
        assert!(
            drawn(&exact).len() > drawn(&people).len(),
            "{exact}\n{people}"
        );
        assert_eq!(people.lines().count(), exact.lines().count());
    }

    #[test]
    fn schedule_formats() {
        let out = run_s(&[
            "schedule",
            "backoff=full&base=10ms&cap=2s&attempts=11",
            "--clients",
            "3",
            "--format",
            "csv",
        ])
        .unwrap();
        let rows: Vec<&str> = out.lines().collect();
        assert_eq!(rows[0], "retry,client,low_ms,ceiling_ms,wait_ms");
        assert_eq!(rows.len(), 1 + 10 * 3);
        let ceilings: Vec<f64> = rows[1..]
            .iter()
            .step_by(3)
            .map(|r| r.split(',').nth(3).unwrap().parse().unwrap())
            .collect();
        assert_eq!(
            ceilings,
            [10.0, 20.0, 40.0, 80.0, 160.0, 320.0, 640.0, 1280.0, 2000.0, 2000.0]
        );
        let v: Value = serde_json::from_str(
            &run_s(&[
                "schedule",
                "attempts=3",
                "--clients",
                "4",
                "--format",
                "json",
            ])
            .unwrap(),
        )
        .unwrap();
        assert_eq!(v["retries"][1]["waits_ms"].as_array().unwrap().len(), 4);
    }

    #[test]
    fn client_presets_carry_their_source_in_json() {
        let v: Value =
            serde_json::from_str(&run_s(&["presets", "--format", "json"]).unwrap()).unwrap();
        let all = v.as_array().unwrap();
        let got = all.iter().find(|p| p["name"] == "got").unwrap();
        assert_eq!(got["client"]["version"], "got 14.6.6");
        assert_eq!(got["client"]["ecosystem"], "JavaScript clients");
        assert!(got["client"]["formula"]
            .as_str()
            .unwrap()
            .contains("+ U(0, 100ms) after the cap"));
        let chapter = all.iter().find(|p| p["name"] == "chapter").unwrap();
        assert!(chapter.get("client").is_none());
        assert_eq!(
            all.iter().filter(|p| p.get("client").is_some()).count(),
            retry_model::CLIENTS.len()
        );
    }

    #[test]
    fn two_clients_side_by_side() {
        let link = "preset=openai&b.preset=urllib3&b.base=500ms";
        let text = run_s(&["schedule", link, "--clients", "3"]).unwrap();
        assert!(
            text.contains(
                "A: 3 attempts; wait min(8s, 500ms x 2^k); jitter x U(0.75, 1) after the cap"
            ),
            "{text}"
        );
        assert!(
            text.contains("B: 4 attempts; wait 0, then min(120s, 500ms x 2^k)"),
            "{text}"
        );
        let csv = run_s(&["schedule", link, "--clients", "3", "--format", "csv"]).unwrap();
        assert!(csv.starts_with("side,retry,client,"));
        assert_eq!(csv.lines().filter(|l| l.starts_with("B,")).count(), 3 * 3);
        assert!(csv.lines().any(|l| l == "B,2,0,1000,1000,1000"), "{csv}");
        let v: Value = serde_json::from_str(
            &run_s(&["schedule", link, "--clients", "2", "--format", "json"]).unwrap(),
        )
        .unwrap();
        assert_eq!(v["b"]["retries"].as_array().unwrap().len(), 3);
        assert_eq!(v["b"]["retries"][0]["waits_ms"][1], 0.0);
        let e = run_s(&["schedule", "preset=openai&b.jitter_lo=3"]).unwrap_err();
        assert!(
            e.contains("b.jitter_lo") && e.contains("at most jitter_hi"),
            "{e}"
        );
    }

    #[test]
    fn amplify_numbers() {
        let v: Value =
            serde_json::from_str(&run_s(&["amplify", "3,3,3", "--format", "json"]).unwrap())
                .unwrap();
        assert_eq!(v["worst_case"], json!(27));
        assert_eq!(v["fix"]["worst_case"], json!(3));
        let out = run_s(&["amplify", "4,4,4"]).unwrap();
        assert!(out.contains("4 x 4 x 4 = 64"), "{out}");
        let v: Value = serde_json::from_str(
            &run_s(&["amplify", "3", "--p", "0.5", "--format", "json"]).unwrap(),
        )
        .unwrap();
        assert_eq!(v["expected"], json!(1.75));
    }

    #[test]
    fn import_prints_the_link_and_its_warnings_or_refuses_naming_the_field() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/configs/grpc/");
        let a6 = format!("{dir}a6-example.json");
        let text = run_s(&["import", &a6, "--method", "pkg.Echo/Get"]).unwrap();
        let mut lines = text.lines();
        let link = lines.next().unwrap();
        assert!(link.starts_with("v=2&deadline=2500ms&"), "{text}");
        // The link opens: the CLI explains it.
        assert!(run_s(&["explain", link]).is_ok());
        assert!(lines.any(|l| l.starts_with("warning: methodConfig[0].retryPolicy.maxAttempts: ")));
        let d: Value =
            serde_json::from_str(&run_s(&["import", &a6, "--format", "json"]).unwrap()).unwrap();
        assert_eq!(d["format"], "grpc");
        assert_eq!(d["link"].as_str(), Some(link));
        assert!(d["unsupported"].as_array().is_some());
        let go = format!("{dir}grpc-go-example.json");
        let d: Value =
            serde_json::from_str(&run_s(&["import", &go, "--format", "json"]).unwrap()).unwrap();
        assert_eq!(d["unsupported"][1]["field"], "methodConfig[0].waitForReady");
        let e = run_s(&["import", &a6, "--method", "nope.Svc"]).unwrap_err();
        assert!(
            e.contains("--method: no method config names 'nope.Svc'"),
            "{e}"
        );
        let e = run_s(&["import", "/no/such/file.json"]).unwrap_err();
        assert!(e.starts_with("/no/such/file.json: "), "{e}");
        let envoy = format!("{dir}../envoy/blog-basic.yaml");
        let text = run_s(&["import", &envoy]).unwrap();
        assert!(text.starts_with("v=2&fit=cut&deadline=15s&"), "{text}");
        assert!(text.contains("\nwarning: circuit_breakers: "), "{text}");
        let istio = format!("{dir}../istio/ratings.yaml");
        let d: Value =
            serde_json::from_str(&run_s(&["import", &istio, "--format", "json"]).unwrap()).unwrap();
        assert_eq!(d["format"], "istio");
        let e = run_s(&["import", &envoy, "--from", "istio"]).unwrap_err();
        assert!(e.contains("no VirtualService"), "{e}");
        let d: Value = serde_json::from_str(
            &run_s(&[
                "export",
                "preset=grpc-2024",
                "--to",
                "grpc",
                "--format",
                "json",
            ])
            .unwrap(),
        )
        .unwrap();
        assert_eq!(d["format"], "grpc");
        assert!(
            d["text"].as_str().unwrap().contains("\"maxAttempts\": 4"),
            "{d}"
        );
        let yaml = run_s(&["export", "preset=envoy", "--to", "envoy"]).unwrap();
        assert!(yaml.contains("    num_retries: 1\n"), "{yaml}");
        let e = run_s(&["export", "backoff=decorrelated", "--to", "grpc"]).unwrap_err();
        assert!(e.starts_with("backoff: "), "{e}");
        let e = run_s(&["import", &envoy, "--from", "yaml"]).unwrap_err();
        assert!(e.contains("grpc, envoy, istio"), "{e}");
    }

    #[test]
    fn analyze_prints_the_chains_figures_by_their_documented_names() {
        let q = "scenario=outage&outage=0ms&server=queue&workers=1&service=10ms&service_dist=exp&arrivals=poisson&rate=60&queue_limit=50&attempt_timeout=100ms&attempts=3&backoff=none&idempotent=true";
        let v: Value =
            serde_json::from_str(&run_s(&["analyze", q, "--format", "json"]).unwrap()).unwrap();
        for key in [
            "mean_queue",
            "p_high_mode",
            "relaxation_per_s",
            "mixing_s",
            "drain_s",
        ] {
            assert!(v[key].is_number(), "{key}: {v}");
        }
        assert!(v["p_high_mode"].as_f64().unwrap() > 0.9);
        let text = run_s(&["analyze", q]).unwrap();
        assert!(text.contains("p(high-queue mode)"), "{text}");
        let e = run_s(&["analyze", "preset=payments-none"]).unwrap_err();
        assert!(e.starts_with("server: analyze: "), "{e}");
    }

    #[test]
    fn recovery_is_named_in_json_as_documented() {
        let json_of = |q: &str| -> Value {
            serde_json::from_str(&run_s(&["run", q, "--format", "json"]).unwrap()).unwrap()
        };
        let v = json_of("preset=queue-spike-none");
        assert_eq!(v["summary"]["recovered"], json!(false));
        assert_eq!(v["summary"]["recovery_s"], Value::Null);
        assert!(v["summary"].as_object().unwrap().contains_key("recovery_s"));
        assert_eq!(v["summary"]["recovery"]["watched_s"], json!(45.0));
        let v = json_of("preset=queue-spike-lifo");
        assert_eq!(v["summary"]["recovered"], json!(true));
        assert!(v["summary"]["recovery_s"].as_f64().unwrap() >= 0.0);
        let v = json_of("preset=flaky-retries");
        assert!(!v["summary"].as_object().unwrap().contains_key("recovered"));
        let csv = run_s(&[
            "sweep",
            "preset=queue-spike-none&sweep.spike_for=1s,5s",
            "--format",
            "csv",
        ])
        .unwrap();
        let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        let col = head.iter().position(|h| *h == "recovered").unwrap();
        let vals: Vec<&str> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(col).unwrap())
            .collect();
        assert_eq!(vals, ["true", "false"]);
    }

    #[test]
    fn run_json_has_the_documented_keys() {
        let out = run_s(&["run", "preset=layers-333", "--format", "json"]).unwrap();
        let v: Value = serde_json::from_str(&out).unwrap();
        for key in [
            "originals",
            "attempts",
            "amplification",
            "successes",
            "success_rate",
            "peak_attempts_per_s",
            "completion_ms",
            "p50_ms",
            "p99_ms",
            "duplicates",
        ] {
            assert!(v["summary"].get(key).is_some(), "missing summary.{key}");
        }
        assert_eq!(v["summary"]["amplification"], json!(27.0));
        assert_eq!(v["summary"]["originals"], json!(100));
        let series = &v["series"];
        assert_eq!(
            series["attempts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .sum::<u64>(),
            2700
        );
        assert!(
            v["summary"].get("server").is_none(),
            "the tick server has no server figures"
        );
        // A queue server's own figures, the numbers its table prints.
        let q = "preset=queue-spike-none&duration=20s";
        let v: Value =
            serde_json::from_str(&run_s(&["run", q, "--format", "json"]).unwrap()).unwrap();
        let sv = &v["summary"]["server"];
        let table = run_s(&["run", q]).unwrap();
        // The table rounds for people, to three significant figures; the JSON keeps every digit.
        for (label, key) in [
            ("goodput (successes/s)", "goodput_per_s"),
            ("throughput (work done/s)", "throughput_per_s"),
            ("mean number at the server", "mean_in_system"),
        ] {
            let x = sv[key]
                .as_f64()
                .unwrap_or_else(|| panic!("summary.server.{key}"));
            let shown = retry_model::sig3(x);
            assert!(
                table
                    .lines()
                    .any(|l| l.starts_with(&format!("  {label}")) && l.ends_with(&shown)),
                "{label}: {shown} not in\n{table}"
            );
        }
        assert!(sv["max_queue"].as_u64().unwrap() > 0);
        let csv = run_s(&["run", "preset=burst-lab", "--format", "csv"]).unwrap();
        assert!(csv.starts_with("t_ms,originals,attempts,retries,successes,"));
        let md = run_s(&["run", "preset=lost-key&duration=5s", "--format", "markdown"]).unwrap();
        assert!(md.contains("| duplicate effects | 0 |"), "{md}");
    }

    #[test]
    fn compare_reads_one_link_with_b_keys_as_two() {
        let one = run_s(&["compare", "preset=layers-333&b.layers=1,1,3"]).unwrap();
        let two = run_s(&[
            "compare",
            "preset=layers-333",
            "preset=layers-333&layers=1,1,3",
        ])
        .unwrap();
        assert_eq!(
            one.lines().skip(2).collect::<Vec<_>>(),
            two.lines().skip(2).collect::<Vec<_>>()
        );
        assert!(one.contains("| amplification | 27x | 3x |"), "{one}");
        assert!(run_s(&["compare", "preset=layers-333"])
            .unwrap_err()
            .starts_with("b: nothing to compare"));
        assert!(
            run_s(&["compare", "preset=layers-333&b.p=0.5", "preset=layers-fix"])
                .unwrap_err()
                .starts_with("b:")
        );
    }

    #[test]
    fn a_preset_that_misses_its_published_figure_says_why() {
        let out = run_s(&["run", "preset=omission-open&duration=5s"]).unwrap();
        assert!(
            out.contains("Brooker's post reports a p99 over 25 ms"),
            "{out}"
        );
        let out = run_s(&["run", "preset=omission-closed&duration=5s"]).unwrap();
        assert!(!out.contains("Brooker's post"), "{out}");
    }

    #[test]
    fn compare_prints_both_columns() {
        let out = run_s(&["compare", "preset=layers-333", "preset=layers-fix"]).unwrap();
        assert!(out.contains("| amplification | 27x | 3x |"), "{out}");
        let e = run_s(&["compare", "preset=layers-333", "attempts=0"]).unwrap_err();
        assert!(e.starts_with("B: attempts:"), "{e}");
        // A side over the simulator's caps is named too.
        let e = run_s(&[
            "compare",
            "preset=payments-none&b.rate=10000&b.duration=3600s&b.engine=request",
        ])
        .unwrap_err();
        assert!(e.starts_with("B: rate:"), "{e}");
    }

    #[test]
    fn sweep_rows_per_value() {
        let out = run_s(&[
            "sweep",
            "preset=layers-333&requests=10",
            "--param",
            "layers=2,3",
            "--param",
            "p=0,1",
            "--format",
            "csv",
        ])
        .unwrap();
        let rows: Vec<&str> = out.lines().collect();
        assert_eq!(rows.len(), 5);
        assert!(rows[0].starts_with("layers,p,originals,attempts,"));
        // layers=2 means one layer of 2 attempts: p=0 -> 1 call each, p=1 -> 2 calls each.
        assert!(rows[1].starts_with("2,0,10,10,"), "{}", rows[1]);
        assert!(rows[2].starts_with("2,1,10,20,"), "{}", rows[2]);
        let out = run_s(&[
            "sweep",
            "preset=occ-2015&runs=2",
            "--param",
            "clients=10..30/10",
        ])
        .unwrap();
        assert_eq!(
            out.lines()
                .filter(|l| l.starts_with("| 10 ")
                    || l.starts_with("| 20 ")
                    || l.starts_with("| 30 "))
                .count(),
            3,
            "{out}"
        );
        assert!(
            run_s(&["sweep", "preset=occ-2015", "--param", "clients=10..5/1"])
                .unwrap_err()
                .starts_with("--param:")
        );
        assert!(
            run_s(&["sweep", "preset=occ-2015", "--param", "clients=0..20/10"])
                .unwrap_err()
                .contains("clients")
        );
        assert!(run_s(&["sweep", "preset=occ-2015"])
            .unwrap_err()
            .starts_with("--param:"));
    }

    #[test]
    fn a_sweep_too_large_is_refused_even_when_the_count_overflows() {
        // 64 different keys of two values each: 2^64 rows, past what a usize counts.
        let specs: Vec<String> = retry_model::all_keys()
            .filter(|k| !matches!(*k, "v" | "preset"))
            .take(64)
            .map(|k| format!("{k}=1,2"))
            .collect();
        assert_eq!(specs.len(), 64);
        let mut args = vec!["sweep", "preset=occ-2015"];
        for s in &specs {
            args.extend(["--param", s.as_str()]);
        }
        let e = run_s(&args).unwrap_err();
        assert!(e.starts_with("--param: 2 x 2 x"), "{e}");
        assert!(e.contains("more than the 2000 rows"), "{e}");
        let e = run_s(&[
            "sweep",
            "preset=occ-2015",
            "--param",
            "clients=1..999",
            "--param",
            "seed=1,2,3",
        ])
        .unwrap_err();
        assert!(e.contains("999 x 3 combinations"), "{e}");
    }

    #[test]
    fn version_help_presets_and_keys() {
        assert_eq!(
            run_s(&["--version"]).unwrap(),
            format!("retrylab {}\n", env!("CARGO_PKG_VERSION"))
        );
        for cmd in [
            "explain",
            "schedule",
            "amplify",
            "run",
            "compare",
            "sweep",
            "link",
            "fingerprint",
            "presets",
            "keys",
        ] {
            let help = run_s(&[cmd, "--help"]).unwrap_or_else(|e| panic!("{cmd} --help: {e}"));
            assert!(
                help.contains(&format!("Usage: retrylab {cmd}")),
                "{cmd}: {help}"
            );
        }
        assert!(run_s(&["sweep", "--help"])
            .unwrap()
            .contains("--param <KEY=VALUES>"));
        let presets = run_s(&["presets"]).unwrap();
        assert_eq!(presets.lines().count(), 2 * retry_model::Preset::ALL.len());
        assert!(presets.contains("guide-700ms"));
        // Each preset's keys, as a link that reproduces it.
        let chapter = presets
            .lines()
            .skip_while(|l| !l.starts_with("chapter"))
            .nth(1)
            .unwrap();
        let link = chapter.trim().strip_prefix("sets ").unwrap();
        let mut p: Params = link.parse().unwrap();
        let q: Params = "preset=chapter".parse().unwrap();
        p.preset = q.preset;
        assert_eq!(p, q);
        for (name, line) in presets
            .lines()
            .step_by(2)
            .zip(presets.lines().skip(1).step_by(2))
        {
            let name = name.split_whitespace().next().unwrap();
            let link = line.trim().strip_prefix("sets ").unwrap();
            let mut p: Params = link.parse().unwrap_or_else(|e| panic!("{name}: {e}"));
            let q: Params = format!("preset={name}").parse().unwrap();
            p.preset = q.preset;
            assert_eq!(p, q, "{name}");
        }
        let keys = run_s(&["keys"]).unwrap();
        assert!(keys.contains("attempts  default 3"));
        assert!(keys.contains("accepts a whole number in [1, 1000]"));
        assert_eq!(
            run_s(&["keys", "--format", "markdown"]).unwrap(),
            retry_model::link_keys::markdown()
        );
    }

    #[test]
    fn errors_are_one_line_naming_the_key_or_flag() {
        let cases: [(&[&str], &str); 15] = [
            (&["run", "attempts=3"], "scenario:"),
            (
                &[
                    "run",
                    "scenario=outage&rate=100000&duration=1h&engine=request",
                ],
                "rate:",
            ),
            (&["run", "preset=burst-lab", "--format", "xml"], "--format:"),
            (&["run", "scenario=occ&clients=2000"], "clients:"),
            (&["explain", "attempts=0"], "attempts:"),
            (&["explain", "base=3s&cap=1s"], "base:"),
            (
                &["explain", "preset=chapter", "--format", "xml"],
                "--format:",
            ),
            (&["explain", "bogus=1"], "unknown key 'bogus'"),
            (&["schedule", "attempts=3", "--clients", "0"], "--clients:"),
            (
                &["schedule", "attempts=8", "--clients", "10000"],
                "--clients: the schedule",
            ),
            (&["explain", "seed=%0A"], "seed: '\\n' is not"),
            (&["amplify", "3,x"], "layers:"),
            (&["amplify", "3,3", "--p", "2"], "--p:"),
            (&["explain", "seed=1", "--verbose", "1"], "--verbose:"),
            (&["frobnicate"], "unknown command"),
        ];
        for (args, needle) in cases {
            let e = run_s(args).unwrap_err();
            assert!(e.contains(needle), "{args:?}: {e}");
            assert!(!e.contains('\n'), "one line: {e}");
        }
    }
}
