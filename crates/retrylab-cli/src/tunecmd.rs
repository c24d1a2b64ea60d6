//! `retrylab tune LINK`: the retry policies on the frontier of success, load and latency for
//! the link's system under its weathers (the search is `retry_model::tune`; this file runs its
//! batches on every core and prints the answer).

use crate::args::TuneFlags;
use crate::simcmd::run_rows;
use retry_model::sim::Summary;
use retry_model::tune::{self, Scored, Tuned, Weather};
use retry_model::Params;

/// The weathers, from `--weather NAME=KEYS` (split at the first `=`) or the link's.
fn weathers(specs: &[String], ask: &tune::TuneAsk) -> Result<Vec<Weather>, String> {
    if specs.is_empty() {
        return Ok(tune::weathers_of(ask));
    }
    specs
        .iter()
        .map(|s| {
            let (name, keys) = s
                .split_once('=')
                .filter(|(n, k)| !n.is_empty() && !k.is_empty())
                .ok_or_else(|| {
                    format!("--weather: '{s}' is not accepted; give NAME=KEYS, e.g. blip=outage=5s")
                })?;
            Ok(Weather {
                name: name.to_string(),
                keys: keys.to_string(),
            })
        })
        .collect()
}

fn link_of(base: &str, w: &Weather, keys: &str, runs: u32) -> Result<(String, Params), String> {
    tune::weather_link(base, w, keys, runs)
}

/// The link's limits, each flag given overriding its key.
fn limits_of(ask: &tune::TuneAsk, args: &TuneFlags) -> Result<tune::Limits, String> {
    let mut limits = ask.limits();
    if args.max_amplification.is_some() {
        limits.max_amplification = args.max_amplification;
    }
    if args.p99.is_some() {
        limits.max_p99_ms = args.p99;
    }
    if let Some(m) = args.max_peak {
        if !(1..=1_000_000_000).contains(&m) {
            return Err(format!(
                "--max-peak: {m} is not accepted; accepted 1 to 1000000000 attempts a second"
            ));
        }
        limits.max_peak = Some(m as f64);
    }
    limits.must_recover |= args.must_recover;
    Ok(limits)
}

/// `retrylab tune`: the link's `tune_*` keys set the search, each flag given overrides its key.
pub fn cmd_tune(query: &str, args: &TuneFlags, fmt: &str) -> Result<String, String> {
    let link: Params = query.parse().map_err(|e| format!("link: {e}"))?;
    let (base, ask) = tune::start_of(&link)?;
    let limits = limits_of(&ask, args)?;
    let candidates = args.candidates.unwrap_or(ask.candidates as usize);
    let runs = args.runs.unwrap_or(ask.runs);
    let most = retry_model::tune::DISTINCT;
    if !(4..=most).contains(&candidates) {
        return Err(format!(
            "--candidates: {candidates} is not accepted; accepted 4 to {most}"
        ));
    }
    if !(1..=100).contains(&runs) {
        return Err(format!("--runs: {runs} is not accepted; accepted 1 to 100"));
    }
    let ws = weathers(&args.weather, &ask)?;
    // Every weather must open on this link before any search.
    for w in &ws {
        let field = if args.weather.is_empty() {
            "tune_weather"
        } else {
            "--weather"
        };
        link_of(&base, w, "", 1).map_err(|e| format!("{field}: {} does not open: {e}", w.name))?;
    }
    let mut eval = |batch: &[String], runs: u32| -> Result<Vec<Vec<Summary>>, String> {
        let jobs: Vec<(Vec<String>, Params)> = tune::batch_links(&base, &ws, batch, runs)?
            .into_iter()
            .map(|(l, p)| (vec![l], p))
            .collect();
        let mut out = run_rows(&jobs).into_iter();
        batch
            .iter()
            .map(|keys| {
                (0..ws.len())
                    .map(|_| {
                        out.next()
                            .unwrap_or_else(|| Err("no result".into()))
                            .map_err(|e| format!("{keys}: {e}"))
                    })
                    .collect()
            })
            .collect()
    };
    // `--format-of` overrides the link's `tune_format`.
    let format = match args.format_of.as_deref() {
        Some(arg) => Some(format_named(arg)?),
        None => ask.format_name(),
    };
    let pool = match format {
        Some(f) => {
            retry_import::pool_for(&base, f, candidates).map_err(|e| format!("--format-of: {e}"))?
        }
        None => tune::pool_where(&link, candidates, &|_| true),
    };
    let t = tune::search_over(pool, runs, &limits, &mut eval)?;
    Ok(match fmt {
        "json" => json_doc(&base, &ws, &t, format, &limits),
        _ => {
            let mut out = tune::markdown(&base, &ws, &t);
            if let Some(f) = format {
                out.push_str(&tune::format_note(f));
                out.push('\n');
            }
            out
        }
    })
}

/// The format `--format-of` names: a format's name, or a file whose format is read from it.
fn format_named(arg: &str) -> Result<&'static str, String> {
    if let Some(f) = retry_import::EXPORT_FORMATS.iter().find(|f| **f == arg) {
        return Ok(f);
    }
    let bytes = std::fs::read(arg).map_err(|e| {
        format!(
            "--format-of: '{arg}' is neither a format ({}) nor a file that reads: {e}",
            retry_import::EXPORT_FORMATS.join(", ")
        )
    })?;
    retry_import::import(&bytes, &retry_import::Options::default())
        .map(|i| i.format)
        .map_err(|e| format!("--format-of: {arg}: {e}"))
}

fn json_doc(
    base: &str,
    ws: &[Weather],
    t: &Tuned,
    format_of: Option<&str>,
    limits: &tune::Limits,
) -> String {
    use serde_json::json;
    let point = |s: &Scored| {
        json!({
            "keys": s.keys,
            "runs": s.runs,
            "feasible": s.feasible,
            "objectives": {"failed_share": s.objectives[0], "amplification": s.objectives[1], "p99_ms": if s.objectives[2] == f64::MAX { None } else { Some(s.objectives[2]) }},
            "weathers": ws.iter().zip(&s.by_weather).map(|(w, sm)| json!({
                "weather": w.name,
                "link": link_of(base, w, &s.keys, s.runs).map(|(l, _)| l).unwrap_or_default(),
                "summary": retry_model::json::SummaryDoc::new(sm),
            })).collect::<Vec<_>>(),
        })
    };
    let doc = json!({
        "link": base,
        "weathers": ws.iter().map(|w| json!({"name": w.name, "keys": w.keys})).collect::<Vec<_>>(),
        "tried": t.tried,
        "runs_made": t.runs_made,
        "frontier": t.frontier.iter().map(point).collect::<Vec<_>>(),
        "yours": point(&t.yours),
        "dominated_by": t.better.map(|i| i + 1),
        "verdict": t.verdict(),
        "limits": {
            "max_amplification": limits.max_amplification,
            "p99_ms": limits.max_p99_ms,
            "max_peak_attempts_per_s": limits.max_peak,
            "must_recover": limits.must_recover,
        },
        "format_of": format_of,
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The link's `tune_weather` and the CLI's `--weather` flags give the same search, and a
    /// weather that does not open on the link is named before any run.
    #[test]
    fn the_links_weathers_are_the_flags_weathers() {
        let flags = |weather: Vec<String>| TuneFlags {
            weather,
            candidates: Some(4),
            runs: Some(1),
            max_amplification: None,
            format_of: None,
            p99: None,
            max_peak: None,
            must_recover: false,
        };
        let base = "preset=payments-jitter&tune=on";
        let by_link = cmd_tune(
            &format!("{base}&tune_weather=blip:outage=5s/long:outage=30s,duration=60s"),
            &flags(Vec::new()),
            "text",
        )
        .unwrap();
        let by_flags = cmd_tune(
            base,
            &flags(vec![
                "blip=outage=5s".into(),
                "long=outage=30s&duration=60s".into(),
            ]),
            "text",
        )
        .unwrap();
        assert_eq!(by_link, by_flags);
        assert!(by_link.contains("long (`outage=30s&duration=60s`)"));
        let e = cmd_tune(
            &format!("{base}&tune_weather=x:outage=99h"),
            &flags(Vec::new()),
            "text",
        )
        .unwrap_err();
        assert!(e.starts_with("tune_weather: x does not open"), "{e}");
        let none = TuneFlags {
            max_peak: Some(0),
            ..flags(Vec::new())
        };
        let e = cmd_tune(base, &none, "text").unwrap_err();
        assert!(e.starts_with("--max-peak: 0 is not accepted"), "{e}");
    }

    /// `--format-of` keeps the policies the format writes back with no new note: Envoy draws
    /// full jitter only and keeps its cluster's limit on retries in flight; a file names its
    /// format.
    #[test]
    fn a_format_bounds_the_search_to_what_it_writes() {
        let base = "preset=payments-none&backoff=full&base=25ms&cap=250ms&whole_ms=true&ra_mode=ignore&budget=envoy";
        let keep = retry_import::writes_back(base, "envoy").unwrap();
        assert!(keep("attempts=3&backoff=full&base=100ms"));
        assert!(
            !keep("attempts=3&backoff=exponential&base=100ms"),
            "no exponential without jitter in Envoy"
        );
        assert!(
            !keep("attempts=3&backoff=full&base=100ms&budget=none"),
            "an Envoy cluster always limits retries"
        );
        let pool = tune::candidates_where(1, 16, &keep);
        assert_eq!(pool.len(), 16);
        assert!(pool.iter().all(|k| keep(k)));
        assert_eq!(format_named("grpc").unwrap(), "grpc");
        let file = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/configs/envoy/blog-basic.yaml"
        );
        assert_eq!(format_named(file).unwrap(), "envoy");
        assert!(format_named("no-such-format")
            .unwrap_err()
            .contains("neither a format"));
    }
}
