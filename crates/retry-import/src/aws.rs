//! The AWS SDK's retry settings as botocore reads them: a config file's profile (`retry_mode`,
//! `max_attempts`), the environment (`AWS_RETRY_MODE`, `AWS_MAX_ATTEMPTS`, one `NAME=value` a
//! line), or a botocore `Config(retries={...})` call in Python, parsed and never run.
//! The file and the environment count attempts, the first included; `Config`'s `max_attempts`
//! counts retries and its `total_max_attempts` attempts. The modes are botocore 1.44's:
//! standard and adaptive wait `U(0, min(base x 2^(n-1), 20 s))` with a base of 50 ms (1 s after
//! a throttling answer), spend a 500-token quota and honour `x-amz-retry-after` within 5 s of
//! the drawn wait; legacy waits `U(0, 1) x 2^(n-1)` s, uncapped, with no quota.

use crate::common::Out;
use crate::formats::Format;
use crate::python::{call_at, Expr};
use crate::{short, ImportError, Imported, Options};
use retry_model::Micros;

mod export;
pub(crate) use export::export;

/// botocore's read timeout, which bounds each attempt unless `Config(read_timeout=...)` says.
const READ_TIMEOUT: Micros = Micros::from_secs(60);

/// How the file and the environment count.
const COUNTS_ATTEMPTS: &str = "counts every attempt, the first included (botocore's Config(retries={'max_attempts'}) counts retries)";

/// What a source says, each with the field it was read from.
#[derive(Default)]
struct Settings {
    /// The profile or source, as fields are named (`profile prod`, `environment`, `Config`).
    at: String,
    mode: Option<(String, String)>,
    /// Total attempts.
    attempts: Option<(u64, String)>,
    read_timeout: Option<Micros>,
}

/// Reads a config file, the environment or a `Config(...)` call.
pub(crate) fn import(text: &str, opts: &Options) -> Result<Imported, ImportError> {
    let mut out = Out::default();
    out.use_release(crate::release::choose(
        "aws",
        opts.release.as_deref(),
        None,
    )?);
    let s = if let Some(at) = config_call(text) {
        python(text, at, &mut out)?
    } else if text.lines().any(|l| env_line(l).is_some()) {
        environment(text, &mut out)?
    } else {
        profile(text, opts, &mut out)?
    };
    keys(&s, &mut out)?;
    out.finish(Format::Aws, &s.at)
}

/// `retry_mode`'s value, checked.
fn mode(v: &str, field: &str) -> Result<(String, String), ImportError> {
    match v.trim() {
        m @ ("legacy" | "standard" | "adaptive") => Ok((m.to_string(), field.to_string())),
        other => Err(ImportError::new(
            field,
            format!(
                "'{}' is not a retry mode: accepted legacy, standard, adaptive",
                short(other)
            ),
        )),
    }
}

/// A count of attempts (or retries, which `plus` turns into attempts), checked.
fn attempts(v: &str, field: &str, plus: u64) -> Result<(u64, String), ImportError> {
    let n: u64 = v
        .trim()
        .parse()
        .map_err(|_| ImportError::new(field, format!("'{}' is not a whole number", short(v))))?;
    let total = n.saturating_add(plus);
    if !(1..=1000).contains(&total) {
        return Err(ImportError::new(
            field,
            format!("{n} gives {total} attempts: the lab runs a whole number in [1, 1000]"),
        ));
    }
    Ok((total, field.to_string()))
}

/// The profile on `--instance`, else `default`, else the first with a retry setting.
fn profile(text: &str, opts: &Options, out: &mut Out) -> Result<Settings, ImportError> {
    let ini = ini::Ini::load_from_str_noescape(text).map_err(|e| {
        ImportError::new(
            format!("line {}", e.line),
            format!("not an AWS config file: {}", e.msg),
        )
    })?;
    let mut found = Vec::new();
    for (section, props) in ini.iter() {
        let Some(section) = section else { continue };
        if section.starts_with("sso-session ") || section.starts_with("services ") {
            continue;
        }
        let name = section.strip_prefix("profile ").unwrap_or(section).trim();
        for key in ["retry_mode", "max_attempts"] {
            if props.get_all(key).count() > 1 {
                return Err(ImportError::new(
                    format!("[{section}] {key}"),
                    "written twice: botocore refuses a key written twice",
                ));
            }
        }
        let retry = props.contains_key("retry_mode") || props.contains_key("max_attempts");
        found.push((name.to_string(), section.to_string(), props, retry));
    }
    let with_retry = found.iter().filter(|f| f.3).count();
    let chosen = match opts.instance.as_deref() {
        Some(want) => found.iter().find(|f| f.0 == want).ok_or_else(|| {
            let names: Vec<&str> = found.iter().map(|f| f.0.as_str()).collect();
            ImportError::new(
                "--instance",
                format!("no profile '{}': found {}", short(want), names.join(", ")),
            )
        })?,
        None => found
            .iter()
            .find(|f| f.0 == "default" && f.3)
            .or_else(|| found.iter().find(|f| f.3))
            .or_else(|| found.first())
            .ok_or_else(|| {
                ImportError::new(
                    "file",
                    "no [default] or [profile NAME] section: not an AWS config file",
                )
            })?,
    };
    let at = format!("[{}]", chosen.1);
    if with_retry > 1 && opts.instance.is_none() {
        out.warn(&at, format!("{with_retry} profiles set retries: took this one; pick another with --instance NAME"));
    }
    if chosen.1 != "default" && !chosen.1.starts_with("profile ") {
        out.warn(&at, format!("not a profile botocore reads: in ~/.aws/config a profile other than default is written [profile {}]; in ~/.aws/credentials retry settings are not read", chosen.0));
    }
    let mut s = Settings {
        at: at.clone(),
        ..Settings::default()
    };
    // botocore reads a profile's other keys for other settings and ignores the rest: a key
    // spelt close to a retry setting is one that does nothing.
    for (k, _) in chosen.2.iter() {
        let near = ["retry_mode", "max_attempts"]
            .into_iter()
            .find(|r| k != *r && strsim::jaro_winkler(k, r) >= 0.9);
        if let Some(r) = near {
            out.warn(format!("{at} {k}"), format!("not a key botocore reads: it is ignored, so it does nothing; the nearest real key is {r}"));
        }
    }
    if let Some(v) = chosen.2.get("retry_mode") {
        s.mode = Some(mode(v, &format!("{at} retry_mode"))?);
    }
    if let Some(v) = chosen.2.get("max_attempts") {
        s.attempts = Some(attempts(v, &format!("{at} max_attempts"), 0)?);
        out.warn(format!("{at} max_attempts"), COUNTS_ATTEMPTS);
    }
    Ok(s)
}

/// A line `NAME=value` setting an AWS variable (`export` and quotes allowed): its name and value.
fn env_line(line: &str) -> Option<(&str, &str)> {
    let line = line.trim();
    let (name, value) = line
        .strip_prefix("export ")
        .unwrap_or(line)
        .split_once('=')?;
    let name = name.trim();
    name.starts_with("AWS_")
        .then(|| (name, value.trim().trim_matches(['"', '\''])))
}

/// `NAME=value` lines (`export` and quotes allowed); the retry variables are read.
fn environment(text: &str, out: &mut Out) -> Result<Settings, ImportError> {
    let mut s = Settings {
        at: String::from("environment"),
        ..Settings::default()
    };
    for (name, value) in text.lines().filter_map(env_line) {
        match name {
            "AWS_RETRY_MODE" => s.mode = Some(mode(value, "AWS_RETRY_MODE")?),
            "AWS_MAX_ATTEMPTS" => {
                s.attempts = Some(attempts(value, "AWS_MAX_ATTEMPTS", 0)?);
                out.warn("AWS_MAX_ATTEMPTS", COUNTS_ATTEMPTS);
            }
            "AWS_NEW_RETRIES_2026" => out.unsupported(
                "AWS_NEW_RETRIES_2026",
                "botocore 1.44 always retries the 2026 way; the variable changes nothing there",
            ),
            _ => {}
        }
    }
    Ok(s)
}

/// Where a botocore `Config(` call with `retries` starts (at its dotted name), if there is one.
fn config_call(text: &str) -> Option<usize> {
    text.match_indices("Config(").find_map(|(i, _)| {
        let start = text[..i]
            .trim_end_matches(|c: char| c.is_alphanumeric() || c == '_' || c == '.')
            .len();
        let module = &text[start..i];
        ((module.is_empty() || module.ends_with('.')) && text[i..].contains("retries"))
            .then_some(start)
    })
}

/// A `Config(retries={...}, read_timeout=...)` call.
fn python(text: &str, at: usize, out: &mut Out) -> Result<Settings, ImportError> {
    let (call, _) = call_at(text, at)?;
    let mut s = Settings {
        at: String::from("Config"),
        ..Settings::default()
    };
    if let Some(t) = call.arg(usize::MAX, "read_timeout") {
        let secs = t.number().ok_or_else(|| {
            ImportError::new(
                "Config.read_timeout",
                format!("'{}' is not a number of seconds", t.text()),
            )
        })?;
        s.read_timeout = Some(crate::common::seconds(secs, "Config.read_timeout")?)
            .filter(|t| *t > Micros::ZERO);
    }
    if call.arg(usize::MAX, "connect_timeout").is_some() {
        out.unsupported(
            "Config.connect_timeout",
            "the lab has one timeout per attempt: read_timeout is the one written",
        );
    }
    let Some(retries) = call.arg(usize::MAX, "retries") else {
        return Ok(s);
    };
    let Expr::Dict(entries) = retries else {
        return Err(ImportError::new(
            "Config.retries",
            format!("'{}' is not a dict", retries.text()),
        ));
    };
    let mut retries_only = None;
    for (k, v) in entries {
        let Expr::Str(key) = k else { continue };
        let field = format!("Config.retries['{key}']");
        let value = v.value();
        match key.as_str() {
            "mode" => s.mode = Some(mode(&value, &field)?),
            "total_max_attempts" => s.attempts = Some(attempts(&value, &field, 0)?),
            "max_attempts" => retries_only = Some(attempts(&value, &field, 1)?),
            other => {
                return Err(ImportError::new(
                    field,
                    format!(
                    "'{}' is not a retries key: accepted mode, max_attempts, total_max_attempts",
                    short(other)
                ),
                ))
            }
        }
    }
    if let Some((total, field)) = retries_only {
        if s.attempts.is_some() {
            out.warn(
                &field,
                "ignored: total_max_attempts is given too, and botocore takes it",
            );
        } else {
            out.warn(&field, format!("counts retries, not attempts: botocore makes {total} attempts (the config file's max_attempts and AWS_MAX_ATTEMPTS count attempts)"));
            s.attempts = Some((total, field));
        }
    }
    Ok(s)
}

/// The link's keys for what a source says, botocore's defaults written out.
fn keys(s: &Settings, out: &mut Out) -> Result<(), ImportError> {
    let release = out
        .release()
        .ok_or_else(|| ImportError::new("file", "no release chosen for the format"))?;
    let (old, go) = (release.name == "1.43", release.name == "go-v2");
    let (mut mode, mode_at) = match &s.mode {
        Some((m, f)) => (m.as_str(), f.clone()),
        None => {
            let at = if s.at == "environment" {
                String::from("AWS_RETRY_MODE")
            } else {
                format!("{} retry_mode", s.at)
            };
            let mode = if old { "legacy" } else { "standard" };
            out.warn(&at, format!("absent: {} uses {mode} mode (botocore 1.44 and later, and the Go SDK v2, use standard; botocore 1.43 and earlier, and tools built on them, legacy: 5 attempts, U(0, 1) x 2^(n-1) s with no cap and no quota); --version names another", release.label));
            (mode, at)
        }
    };
    if go && mode == "legacy" {
        out.warn(
            &mode_at,
            "the Go SDK v2 has no legacy mode: it runs standard",
        );
        mode = "standard";
    }
    let legacy = mode == "legacy";
    let attempts = s
        .attempts
        .as_ref()
        .map_or(if legacy { 5 } else { 3 }, |a| a.0);
    out.set("attempts", attempts.to_string());
    out.set("deadline", "none");
    out.set(
        "attempt_timeout",
        s.read_timeout.unwrap_or(READ_TIMEOUT).to_string(),
    );
    out.set("backoff", "full");
    out.set("multiplier", "2");
    out.set("first_exp", "0");
    out.set("classify", "aws");
    if legacy {
        out.warn(
            &mode_at,
            "legacy: waits U(0, 1) x 2^(n-1) s with no cap, and no retry quota limits a storm",
        );
        out.set("base", "1s");
        out.set("cap", "24h");
        out.set("ra_mode", "ignore");
        out.set("budget", "none");
        return Ok(());
    }
    // botocore 1.44 cut standard mode's base from 1 s to 50 ms; older botocore and the Go SDK
    // v2 keep 1 s (clients.md: botocore 1.44.8, aws-smithy-runtime's v2_0).
    if old || go {
        out.warn(&mode_at, format!("{}: standard waits U(0, min(1 s x 2^(n-1), 20 s)), 20 times botocore 1.44's first wait", release.label));
        out.set("base", "1s");
    } else {
        out.set("base", "50ms");
    }
    out.set("cap", "20s");
    if old || go {
        // Before the 2026 behaviour: the classic quota (5 a retry, 10 a timeout) and no
        // x-amz-retry-after.
        out.set("ra_mode", "ignore");
        out.set("budget", "aws");
    } else {
        out.set("ra_mode", "clamp");
        out.set("budget", "aws2026");
    }
    out.unsupported(&mode_at, "the retry quota is per client object in botocore; the lab's budget is shared by the process unless budget_scope=client in a storm");
    if mode == "adaptive" {
        out.warn(&mode_at, "adaptive: the client-side rate limiter acts across requests, so the link opens the outage scenario to show it");
        out.set("scenario", "outage");
        out.set("limiter", "aws-adaptive");
        out.unsupported(&mode_at, "the 1 s base after a throttling answer: the lab's storms answer 503, never 429, so it is left out of the outage link");
    } else if !(old || go) {
        out.set("throttle_base", "1s");
    }
    Ok(())
}

#[cfg(test)]
mod tests;
