//! Sharded sweeps: `retrylab sweep LINK --shard i/n` runs every n-th row of the sweep (rows
//! `i-1`, `i-1+n`, ...: round robin, so the heavy rows at the end of a grid spread over all
//! parts) and writes a part file; `retrylab merge PART...` checks the parts and writes the
//! table the unsharded sweep prints, byte for byte. The rows are independent runs, so any
//! batch system can spread them: GNU parallel's `{#}`, a Slurm array's `SLURM_ARRAY_TASK_ID`, a
//! Kubernetes Indexed Job's `JOB_COMPLETION_INDEX` (the last two 0-based, through
//! `--shard-index-env VAR --shard-count N`). Recipes: docs/sweeps.md.
//!
//! A part file is JSON: what made it (the link, the `--param`s, the output format, `i` and
//! `n`, the number of rows) and each of its rows' values and summary. Floats are written in
//! the shortest form that reads back to the same bits (serde_json's `float_roundtrip`), so
//! the merged table is the sweep's own.

use crate::simcmd::{row_name, run_rows, sweep_output};
use retry_model::json::inputs;
use retry_model::sim::Summary;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The most parts a sweep is split into.
pub const MAX_SHARDS: u32 = 100_000;

/// What a part file says it is: a merge refuses anything else.
const KIND: &str = "retrylab sweep part";

/// Part `index` (0-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 0-based.
    pub index: u32,
    /// In [1, MAX_SHARDS].
    pub count: u32,
}

impl Shard {
    /// From `--shard i/n`, or `--shard-index-env VAR` with `--shard-count n`; `None` for an
    /// unsharded sweep.
    pub fn from_args(
        spec: Option<&str>,
        env: Option<&str>,
        count: Option<u32>,
    ) -> Result<Option<Shard>, String> {
        let (index, count, field) = match (spec, env, count) {
            (Some(s), _, _) => {
                let (i, n) = s.split_once('/').ok_or_else(|| {
                    format!("--shard: '{s}' is not accepted; give i/n, e.g. 2/7 for the second of seven parts")
                })?;
                let num = |x: &str| x.trim().parse::<u64>().ok();
                let (Some(i), Some(n)) = (num(i), num(n)) else {
                    return Err(format!("--shard: '{s}' is not accepted; give i/n with whole numbers, 1 <= i <= n <= {MAX_SHARDS}"));
                };
                if i == 0 || i > n {
                    return Err(format!(
                        "--shard: '{s}': i counts from 1 to n (1 <= i <= n)"
                    ));
                }
                (i - 1, n, "--shard")
            }
            (None, Some(var), Some(n)) => {
                let raw = std::env::var(var).map_err(|_| {
                    format!("--shard-index-env: the variable {var} is not set (a Slurm array sets SLURM_ARRAY_TASK_ID, an Indexed Job JOB_COMPLETION_INDEX)")
                })?;
                let i = raw.trim().parse::<u64>().map_err(|_| {
                    format!("--shard-index-env: {var}='{raw}' is not a whole number from 0")
                })?;
                if i >= u64::from(n) {
                    return Err(format!("--shard-index-env: {var}={i} is past the last part: with --shard-count {n}, 0 to {}", n.saturating_sub(1)));
                }
                (i, u64::from(n), "--shard-count")
            }
            _ => return Ok(None),
        };
        if count == 0 || count > u64::from(MAX_SHARDS) {
            return Err(format!(
                "{field}: {count} parts is not accepted; accepted 1 to {MAX_SHARDS}"
            ));
        }
        Ok(Some(Shard {
            index: index as u32,
            count: count as u32,
        }))
    }

    /// Whether row `row` (0-based) is this part's.
    fn holds(self, row: usize) -> bool {
        row % self.count as usize == self.index as usize
    }
}

/// A part file.
#[derive(Serialize, Deserialize)]
struct Part {
    kind: String,
    version: u32,
    link: String,
    params: Vec<String>,
    format: String,
    /// 1-based.
    shard: u32,
    shards: u32,
    /// Rows in the whole sweep.
    rows: usize,
    results: Vec<PartRow>,
}

/// One row of a part.
#[derive(Serialize, Deserialize)]
struct PartRow {
    row: usize,
    values: Vec<String>,
    summary: Summary,
}

/// `retrylab sweep --shard`: runs this part's rows and writes its part file.
pub fn cmd_sweep_part(
    query: &str,
    specs: &[String],
    fmt: &str,
    shard: Shard,
) -> Result<String, String> {
    let (_, keys, jobs) = inputs::sweep_plan(query, specs)?;
    let rows = jobs.len();
    let mine: Vec<(usize, (Vec<String>, retry_model::Params))> = jobs
        .into_iter()
        .enumerate()
        .filter(|(i, _)| shard.holds(*i))
        .collect();
    let work: Vec<(Vec<String>, retry_model::Params)> =
        mine.iter().map(|(_, j)| j.clone()).collect();
    let mut results = Vec::with_capacity(work.len());
    for ((row, (values, _)), r) in mine.into_iter().zip(run_rows(&work)) {
        let summary = r.map_err(|e| format!("{}: {e}", row_name(&keys, &values)))?;
        results.push(PartRow {
            row,
            values,
            summary,
        });
    }
    let part = Part {
        kind: KIND.to_string(),
        version: 1,
        link: query.to_string(),
        params: specs.to_vec(),
        format: fmt.to_string(),
        shard: shard.index + 1,
        shards: shard.count,
        rows,
        results,
    };
    serde_json::to_string(&part)
        .map(|mut s| {
            s.push('\n');
            s
        })
        .map_err(|e| format!("part: {e}"))
}

/// Reads a part file, or says which and why not.
fn read_part(path: &Path) -> Result<Part, String> {
    let name = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    let part: Part = serde_json::from_str(&text)
        .map_err(|e| format!("{name}: not a part file of retrylab sweep --shard ({e})"))?;
    if part.kind != KIND || part.version != 1 {
        return Err(format!(
            "{name}: not a version 1 part file of retrylab sweep --shard"
        ));
    }
    Ok(part)
}

/// `retrylab merge`: checks the parts and writes the whole sweep's table.
pub fn cmd_merge(paths: &[PathBuf]) -> Result<String, String> {
    let parts: Vec<(String, Part)> = paths
        .iter()
        .map(|p| Ok((p.display().to_string(), read_part(p)?)))
        .collect::<Result<_, String>>()?;
    let Some((first_name, first)) = parts.first() else {
        return Err("parts: give the part files to merge".into());
    };
    let mut seen = vec![None::<&str>; first.shards as usize];
    for (name, p) in &parts {
        if (&p.link, &p.params, &p.format, p.shards, p.rows)
            != (
                &first.link,
                &first.params,
                &first.format,
                first.shards,
                first.rows,
            )
        {
            return Err(format!("{name}: made by another sweep than {first_name} (its link, --param, --format or part count differ): merge the parts of one sweep"));
        }
        if p.shard == 0 || p.shard > p.shards {
            return Err(format!(
                "{name}: part {}/{} does not exist; the part was altered",
                p.shard, p.shards
            ));
        }
        let slot = &mut seen[p.shard as usize - 1];
        if let Some(other) = slot.replace(name) {
            return Err(format!(
                "{name}: part {}/{} given twice (also {other})",
                p.shard, p.shards
            ));
        }
    }
    let missing: Vec<String> = (1..=first.shards)
        .filter(|i| seen[*i as usize - 1].is_none())
        .map(|i| i.to_string())
        .collect();
    if !missing.is_empty() {
        let more = match missing.len() {
            n if n > 10 => format!(" and {} more", n - 10),
            _ => String::new(),
        };
        return Err(format!(
            "parts: {} of {} given; missing part {}{more}",
            parts.len(),
            first.shards,
            missing[..missing.len().min(10)].join(", ")
        ));
    }
    assemble(parts.into_iter().map(|(_, p)| p).collect())
}

/// The rows of complete, matching parts, checked against the sweep's own plan, as its table.
fn assemble(parts: Vec<Part>) -> Result<String, String> {
    let (link, params, format) = (
        parts[0].link.clone(),
        parts[0].params.clone(),
        parts[0].format.clone(),
    );
    let (base, keys, jobs) = inputs::sweep_plan(&link, &params)?;
    let mut rows: Vec<Option<(Vec<String>, Summary)>> = vec![None; jobs.len()];
    for p in parts {
        let shard = Shard {
            index: p.shard - 1,
            count: p.shards,
        };
        for r in p.results {
            let planned = jobs.get(r.row).map(|j| &j.0);
            if planned != Some(&r.values) || !shard.holds(r.row) || rows[r.row].is_some() {
                return Err(format!(
                    "part {}/{}: row {} is not the sweep's row there; the part was altered",
                    p.shard,
                    p.shards,
                    r.row + 1
                ));
            }
            rows[r.row] = Some((r.values, r.summary));
        }
    }
    let rows: Vec<(Vec<String>, Summary)> = rows
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            r.ok_or_else(|| format!("parts: row {} of {} is in no part", i + 1, jobs.len()))
        })
        .collect::<Result<_, _>>()?;
    sweep_output(&link, &base, &keys, &rows, &format)
}

/// `retrylab sweep`, whole or a part of it, written where `--out` says.
pub fn cmd_sweep_any(
    query: &str,
    specs: &[String],
    fmt: &str,
    part: &crate::args::ShardFlags,
) -> Result<String, String> {
    let shard = Shard::from_args(
        part.shard.as_deref(),
        part.shard_index_env.as_deref(),
        part.shard_count,
    )?;
    let text = match shard {
        Some(s) => cmd_sweep_part(query, specs, fmt, s),
        None => crate::simcmd::cmd_sweep(query, specs, fmt),
    }?;
    write_out(part.out.as_deref(), text)
}

/// Writes `text` to `out`, or returns it for stdout.
pub fn write_out(out: Option<&Path>, text: String) -> Result<String, String> {
    match out {
        None => Ok(text),
        Some(path) => std::fs::write(path, text)
            .map(|()| String::new())
            .map_err(|e| format!("--out: {}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_is_read_or_refused_naming_its_flag() {
        let s = |spec| Shard::from_args(Some(spec), None, None);
        assert_eq!(s("2/7"), Ok(Some(Shard { index: 1, count: 7 })));
        assert_eq!(s("1/1"), Ok(Some(Shard { index: 0, count: 1 })));
        for bad in ["0/3", "4/3", "x", "1/", "1/0", "-1/3", "1/100001"] {
            let e = s(bad).unwrap_err();
            assert!(e.starts_with("--shard"), "{bad}: {e}");
        }
        assert_eq!(Shard::from_args(None, None, None), Ok(None));
        let var = "RETRYLAB_TEST_SHARD_INDEX";
        std::env::set_var(var, "6");
        assert_eq!(
            Shard::from_args(None, Some(var), Some(7)),
            Ok(Some(Shard { index: 6, count: 7 }))
        );
        let past = Shard::from_args(None, Some(var), Some(6)).unwrap_err();
        assert!(past.contains("past the last part"), "{past}");
        std::env::set_var(var, "six");
        assert!(Shard::from_args(None, Some(var), Some(7)).is_err());
        std::env::remove_var(var);
        let unset = Shard::from_args(None, Some(var), Some(7)).unwrap_err();
        assert!(unset.contains("is not set"), "{unset}");
    }

    /// Every row is in exactly one part, whatever the number of parts.
    #[test]
    fn the_parts_hold_every_row_once() {
        for count in [1u32, 2, 3, 7, 64] {
            for row in 0..200 {
                let holders = (0..count)
                    .filter(|&index| Shard { index, count }.holds(row))
                    .count();
                assert_eq!(holders, 1, "row {row} of {count} parts");
            }
        }
    }
}
