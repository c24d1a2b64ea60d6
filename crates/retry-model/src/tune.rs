//! "What should I set?": a search for the retry policies on the frontier of success, load and
//! latency for the user's system, over the weather it must survive (`retrylab tune`).
//!
//! The method is successive halving (the inner loop of Hyperband) ranked by non-dominated
//! sorting (NSGA-II's ranking). Every evaluation is a noisy simulation, and most policies are
//! plainly poor after two runs, so a round evaluates every survivor at the current number of
//! runs under every weather, keeps the better half by Pareto front (within a front, by
//! NSGA-II's crowding distance, so that a front's extremes and its gaps stay; then by their
//! summed, normalised objectives), and doubles the runs, until the runs reach the most asked for. The
//! frontier is the non-dominated, feasible survivors at the last round's runs, each with its
//! 95% intervals. A grid over the same space is 8,484 distinct policies; the halving
//! spends its runs on the few that matter. No maintained crate does multi-objective successive
//! halving in `no_std`, so it is written here: about a hundred lines.
//!
//! Deterministic: the candidates are drawn from the link's seed with a pinned generator, and
//! each evaluation is a link of its own (`runs=r`), so the same link gives the same frontier
//! on every machine and in wasm.

use crate::retry::rng::{Rng, Words};
use crate::sim::Summary;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

pub use crate::link::tune_keys::{Limits, TuneAsk, Weather, DISTINCT, FORMATS, SPACE};

/// The random stream of the candidates (apart from every simulation's).
const STREAM_TUNE: u64 = 7 << 40;

/// The default weathers for an `outage` link: a 5 s outage, a 60 s one, a load spike of 40
/// more requests a second for 10 s, and a slow-down that halves the server's capacity for 20 s
/// (each with no other trigger).
pub fn default_weathers() -> Vec<Weather> {
    [
        ("blip", "outage=5s"),
        ("outage", "outage=60s&duration=120s"),
        (
            "spike",
            "outage=0ms&spike_start=10s&spike_for=10s&spike_rate=40",
        ),
        ("slow", "outage=0ms&slow=2&slow_start=10s&slow_for=20s"),
    ]
    .iter()
    .map(|(n, k)| Weather {
        name: n.to_string(),
        keys: k.to_string(),
    })
    .collect()
}

/// `base` with each of `adds` (link text, `k=v&k=v`) set: a key `base` already has is
/// replaced, since a link may name a key once. Empty parts are skipped.
pub fn link_with(base: &str, adds: &[&str]) -> String {
    let added: Vec<&str> = adds
        .iter()
        .flat_map(|a| a.split('&'))
        .filter(|kv| !kv.is_empty())
        .collect();
    let key = |kv: &str| kv.split('=').next().unwrap_or("").to_string();
    let names: Vec<String> = added.iter().map(|kv| key(kv)).collect();
    let mut parts: Vec<&str> = base
        .trim_start_matches('?')
        .split('&')
        .filter(|kv| !kv.is_empty() && !names.contains(&key(kv)))
        .collect();
    parts.extend(added);
    parts.join("&")
}

/// `base` with `adds` set (see [`link_with`]), parsed; a key of `base` that the new policy
/// leaves with no effect (`base` after `backoff=none`, `budget_scope` after `budget=none`) is
/// dropped rather than refused, so every policy of the space opens on any link. The link text
/// and the parameters.
pub fn policy_link(base: &str, adds: &[&str]) -> Result<(String, crate::Params), String> {
    let mut base = String::from(base);
    // A retry policy (its `attempts`) replaces the link's own hedging.
    if adds
        .iter()
        .flat_map(|a| a.split('&'))
        .any(|kv| kv.starts_with("attempts="))
    {
        base = base
            .split('&')
            .filter(|kv| {
                !["hedge=", "hedge_delay=", "hedge_max="]
                    .iter()
                    .any(|h| kv.starts_with(h))
            })
            .collect::<Vec<_>>()
            .join("&");
    }
    // Hedging leaves a dozen retry keys with no effect, each dropped in turn.
    for _ in 0..32 {
        let link = link_with(&base, adds);
        match link.parse::<crate::Params>() {
            Ok(p) => return Ok((link, p)),
            Err(e) => {
                // A base over the link's cap: the cap gives way (to its default) for the
                // policy's base.
                let field = match e.field {
                    "base" if base.split('&').any(|kv| kv.starts_with("cap=")) => "cap",
                    f => f,
                };
                let named = |kv: &str| kv.split('=').next() == Some(field);
                let ours = adds.iter().flat_map(|a| a.split('&')).any(named);
                if ours || !base.split('&').any(named) {
                    return Err(format!("{link}: {e}"));
                }
                base = base
                    .split('&')
                    .filter(|kv| !named(kv))
                    .collect::<Vec<_>>()
                    .join("&");
            }
        }
    }
    Err(format!("{base}: too many keys without effect"))
}

/// The link a search starts from: `p` without its `tune` keys (each policy's link is this
/// with the policy's keys set), and the settings those keys gave. `Err` names what a search
/// cannot run.
pub fn start_of(p: &crate::Params) -> Result<(String, TuneAsk), String> {
    if p.sweep().is_some() || p.compare.is_some() {
        return Err("tune: searches the policy of one link; drop its sweep. and b. keys".into());
    }
    if p.sim.kind() != Some(crate::sim::ScenarioKind::Outage) {
        return Err("scenario: tune runs an outage link (scenario=outage, or a preset such as payments-none): its weathers are outages and spikes".into());
    }
    let mut base = p.clone();
    base.tune = TuneAsk::OFF;
    Ok((base.to_string(), p.tune.clone()))
}

/// The weathers a search asks for: the link's `tune_weather`, or the defaults.
pub fn weathers_of(ask: &TuneAsk) -> Vec<Weather> {
    if ask.weathers.is_empty() {
        default_weathers()
    } else {
        ask.weathers.clone()
    }
}

/// The user's link `base` under weather `w` with a policy's `keys` set, `runs` runs: each key
/// replacing the link's own, and the link's keys the policy leaves without effect dropped.
pub fn weather_link(
    base: &str,
    w: &Weather,
    keys: &str,
    runs: u32,
) -> Result<(String, crate::Params), String> {
    policy_link(base, &[&w.keys, keys, &format!("runs={runs}")])
}

/// The links of a batch: each policy of `batch` under each weather, in order.
pub fn batch_links(
    base: &str,
    weathers: &[Weather],
    batch: &[String],
    runs: u32,
) -> Result<Vec<(String, crate::Params)>, String> {
    batch
        .iter()
        .flat_map(|keys| weathers.iter().map(move |w| (keys, w)))
        .map(|(keys, w)| weather_link(base, w, keys, runs))
        .collect()
}

/// A point's figures under one weather, in the sweep table's words (with intervals): what
/// `retrylab tune` prints and the page shows.
pub fn cell(s: &Summary) -> String {
    use crate::sim::Metric;
    let peak = match Metric::PeakAttemptsPerS.interval(s) {
        Some(i) if i.low != i.high => format!(
            "peak {} attempts/s ({}-{})",
            crate::retry::text::sig3(s.peak_attempts_per_s),
            crate::retry::text::sig3(i.low),
            crate::retry::text::sig3(i.high)
        ),
        _ => format!(
            "peak {} attempts/s",
            crate::retry::text::sig3(s.peak_attempts_per_s)
        ),
    };
    let mut out = format!(
        "{} success, {}, {peak}, p99 {}",
        Metric::SuccessRate.text(s),
        Metric::Amplification.text(s),
        Metric::P99Ms.text(s)
    );
    if let Some(r) = recovery_text(s) {
        out.push_str(", ");
        out.push_str(&r);
    }
    out
}

/// The share of a weather's runs that recovered (`None` where the run has no trigger to
/// recover from).
fn recovered_share(s: &Summary) -> Option<f64> {
    s.recovery?;
    crate::sim::Metric::Recovered.value(s)
}

/// Whether a weather's runs recovered, in words: `recovered 2 s after` (every run; the mean
/// time after the trigger ended), `recovered in 7 of 20 runs`, or `never recovered`.
fn recovery_text(s: &Summary) -> Option<String> {
    let share = recovered_share(s)?;
    let after = || {
        s.recovery
            .and_then(|r| r.recovery_s())
            .map(|v| format!("recovered {} s after", crate::retry::text::sig3(v)))
    };
    Some(match s.intervals.and_then(|i| i.recovered) {
        Some(r) if r.k > 0 && r.k < r.n => format!("recovered in {} of {} runs", r.k, r.n),
        _ if share >= 1.0 => after().unwrap_or_else(|| "recovered".to_string()),
        _ => "never recovered".to_string(),
    })
}

/// What a search kept to `format` promises, in a sentence (`retrylab tune --format-of`, the
/// page's verdict).
pub fn format_note(format: &str) -> String {
    format!("Every policy searched is one {format} can write back with no note the link's own does not need: `retrylab export LINK --to {format}` writes a point's link.")
}

/// A policy's keys in words (`attempts=3 backoff=full`), or the user's own.
pub fn policy_words(keys: &str) -> String {
    if keys.is_empty() {
        String::from("(the link's own)")
    } else {
        keys.replace('&', " ")
    }
}

impl Tuned {
    /// Where the user's policy stands, in a sentence.
    pub fn verdict(&self) -> String {
        match self.better {
            Some(i) => {
                let (clear, n) = self.frontier.get(i).map_or((0, 0), |p| clear_in(p, &self.yours));
                format!(
                    "Your policy is dominated by #{}: as much success or more, as little load or less and as short a p99 or shorter, over every weather's mean. It has more success or less load beyond the runs' 95% intervals in {clear} of {n} weathers.",
                    i + 1
                )
            }
            None if self.frontier.is_empty() => format!(
                "None of the {} policies tried keeps to the limits you set{}: loosen a limit or name gentler weathers.",
                self.tried,
                if self.yours.feasible { "" } else { ", and yours does not either" }
            ),
            None if !self.yours.feasible => String::from(
                "Your policy breaks a limit you set; every point of the frontier keeps to them.",
            ),
            None => String::from("No policy found dominates yours: it is on the frontier, or off it by less than the runs can tell."),
        }
    }
}

/// In how many weathers `a` has more success or less load than `b` beyond the runs' 95%
/// intervals (without intervals, alike in every run: beyond their means), of how many.
pub fn clear_in(a: &Scored, b: &Scored) -> (usize, usize) {
    let span =
        |s: &Summary,
         get: fn(&crate::sim::interval::Intervals) -> Option<crate::sim::interval::Interval>,
         mean: f64| {
            s.intervals
                .as_ref()
                .and_then(get)
                .map_or((mean, mean), |i| (i.low, i.high))
        };
    let clear = a
        .by_weather
        .iter()
        .zip(&b.by_weather)
        .filter(|(x, y)| {
            let (xs, ys) = (
                span(x, |i| i.success_rate, x.success_rate),
                span(y, |i| i.success_rate, y.success_rate),
            );
            let (xa, ya) = (
                span(x, |i| i.amplification, x.amplification),
                span(y, |i| i.amplification, y.amplification),
            );
            xs.0 > ys.1 || xa.1 < ya.0
        })
        .count();
    (clear, a.by_weather.len().min(b.by_weather.len()))
}

fn markdown_row(label: &str, s: &Scored, base: &str) -> String {
    let cells: Vec<String> = s.by_weather.iter().map(cell).collect();
    let policy = policy_words(&s.keys);
    let link = policy_link(base, &[&s.keys]).map_or_else(|e| e, |(l, _)| format!("?{l}"));
    format!(
        "| {label} | {policy} | {} | {} | `{link}` |\n",
        cells.join(" | "),
        s.runs
    )
}

/// The search's answer as Markdown: the frontier, the user's own, the verdict: what
/// `retrylab tune` prints and the page exports.
pub fn markdown(base: &str, ws: &[Weather], t: &Tuned) -> String {
    let names: Vec<String> = ws
        .iter()
        .map(|w| format!("{} (`{}`)", w.name, w.keys))
        .collect();
    let mut out = format!(
        "`?{base}` tuned over {}: {} policies tried, {} runs made.\n\n",
        names.join(", "),
        t.tried,
        t.runs_made
    );
    let heads: Vec<&str> = ws.iter().map(|w| w.name.as_str()).collect();
    out.push_str(&format!(
        "| # | policy | {} | runs | link |\n",
        heads.join(" | ")
    ));
    out.push_str(&format!("|---|---|{}---:|---|\n", "---|".repeat(ws.len())));
    for (i, p) in t.frontier.iter().enumerate() {
        out.push_str(&markdown_row(&(i + 1).to_string(), p, base));
    }
    out.push_str(&markdown_row("yours", &t.yours, base));
    out.push('\n');
    out.push_str(&t.verdict());
    out.push('\n');
    out.push_str("The frontier: the policies no other found beats on success, attempts per original and p99 at once (each the mean over the weathers). Open a point's link, add a weather's keys to see it in that weather, and `retrylab export LINK --to FORMAT` to write it in your configuration.\n");
    out
}

/// One policy: a value index per key of [`SPACE`].
pub type Pick = [usize; SPACE.len()];

/// A policy's figures under the weathers, each the mean over the runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Scored {
    /// The policy's keys as link text (`attempts=3&backoff=full&base=100ms&budget=none`), or
    /// empty for the user's own.
    pub keys: String,
    /// The summaries, one a weather, over `runs` runs.
    pub by_weather: Vec<Summary>,
    /// The runs each summary is over.
    pub runs: u32,
    /// Minimised: the share that failed, attempts per original, p99 in ms (each the mean over
    /// the weathers; a weather with no success counts the p99 as `f64::MAX`).
    pub objectives: [f64; 3],
    /// Within the constraints.
    pub feasible: bool,
}

/// The link text of `c`: a key left at the link's own (`kept`) is not written; nor are a
/// base and a cap for `backoff=none` (no wait to scale), nor a backoff, cap or budget for a
/// single attempt (no retry for them to act on).
pub fn keys_of(c: &Pick) -> String {
    let value = |key: &str| {
        let i = SPACE.iter().position(|(k, _)| *k == key).unwrap_or(0);
        SPACE[i].1[c[i]]
    };
    let hedge = value("hedge");
    if hedge != "off" {
        // A hedged request sends `hedge_max` attempts every delay: no backoff, cap or breaker.
        let mut parts = alloc::vec![format!(
            "hedge=on&hedge_delay={hedge}&hedge_max={}",
            value("attempts")
        )];
        for k in ["attempt_timeout", "budget"] {
            if value(k) != "kept" {
                parts.push(format!("{k}={}", value(k)));
            }
        }
        return parts.join("&");
    }
    let single = value("attempts") == "1";
    let none = value("backoff") == "none";
    let parts: Vec<String> = SPACE
        .iter()
        .zip(c)
        .map(|((k, vals), i)| (*k, vals[*i]))
        .filter(|(k, v)| *v != "kept" && *k != "hedge")
        .filter(|(k, _)| !(none && matches!(*k, "base" | "cap")))
        .filter(|(k, _)| !(single && matches!(*k, "backoff" | "base" | "cap" | "budget")))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    parts.join("&")
}

/// `n` distinct policies (as link text) drawn from `seed`.
/// The first `n` policies of the seed's order that `keep` accepts (a format that can write
/// them); with every policy kept, [`candidates`].
pub fn candidates_where(seed: u64, n: usize, keep: &dyn Fn(&str) -> bool) -> Vec<String> {
    drawn(seed)
        .iter()
        .map(keys_of)
        .filter(|k| keep(k))
        .take(n)
        .collect()
}

/// Whether pick `c` is a policy: a hedged one sends 2 to 5 attempts (gRPC's `maxAttempts`
/// for hedging) and keeps no breaker (the lab runs none beside hedging).
fn hedgeable(c: &Pick) -> bool {
    let value = |i: usize| SPACE[i].1[c[i]];
    value(HEDGE) == "off"
        || (matches!(value(ATTEMPTS), "2" | "3" | "4" | "5") && value(BREAKER) == "kept")
}

/// Whether a search of link `p` may hedge: its call is idempotent or carries an idempotency
/// key, or the link hedges already (its owner has judged the call safe to send twice). gRFC A6
/// hedges only what is safe to send twice at once; a charge without a key would be made twice.
pub fn hedging_applies(p: &crate::Params) -> bool {
    let op = p.policy.operation;
    op.idempotent || op.key || p.sim.server().is_some_and(|s| s.hedge.on)
}

/// The search's pool for link `p`: the first `n` policies of its seed's order that `keep`
/// accepts, hedged ones only where [`hedging_applies`].
pub fn pool_where(p: &crate::Params, n: usize, keep: &dyn Fn(&str) -> bool) -> Vec<String> {
    let hedge = hedging_applies(p);
    candidates_where(p.seed, n, &|k| {
        (hedge || !k.starts_with("hedge=on")) && keep(k)
    })
}

/// Where `key` sits in [`SPACE`], found while compiling (a key not there fails the build).
const fn slot(key: &str) -> usize {
    let mut i = 0;
    while i < SPACE.len() {
        let (k, want) = (SPACE[i].0.as_bytes(), key.as_bytes());
        if k.len() == want.len() {
            let mut j = 0;
            while j < k.len() && k[j] == want[j] {
                j += 1;
            }
            if j == k.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!("a key the space does not have")
}

const ATTEMPTS: usize = slot("attempts");
const BACKOFF: usize = slot("backoff");
const BASE: usize = slot("base");
const CAP: usize = slot("cap");
const TIMEOUT: usize = slot("attempt_timeout");
const BREAKER: usize = slot("breaker");
const BUDGET: usize = slot("budget");
const HEDGE: usize = slot("hedge");

/// Whether pick `c` is the first of the picks [`keys_of`] writes alike: every key its policy
/// leaves without effect (a hedged one's backoff, base and cap; a single attempt's backoff,
/// base, cap and budget; `backoff=none`'s base and cap) at its first value. Only these are
/// written, which spares formatting five of every six picks.
fn canonical(c: &Pick) -> bool {
    let first = |slots: &[usize]| slots.iter().all(|i| c[*i] == 0);
    if c[HEDGE] != 0 {
        first(&[BACKOFF, BASE, CAP])
    } else if c[ATTEMPTS] == 0 {
        first(&[BACKOFF, BASE, CAP, BUDGET])
    } else {
        c[BACKOFF] != 0 || first(&[BASE, CAP])
    }
}

/// Every distinct policy of the space, as the first pick of each ([`canonical`]), in order.
/// Picks, not their link text: only the policies a search draws are written.
fn every_pick() -> Vec<Pick> {
    let sizes: Vec<usize> = SPACE.iter().map(|(_, v)| v.len()).collect();
    let mut pick: Pick = [0; SPACE.len()];
    let mut out = Vec::with_capacity(DISTINCT);
    let value = |pick: &Pick, i: usize| SPACE[i].1[pick[i]].parse::<crate::Micros>().ok();
    loop {
        if canonical(&pick) && hedgeable(&pick) {
            // A base over the cap set beside it is no policy (`kept`: the link's cap gives way).
            let over =
                matches!((value(&pick, BASE), value(&pick, CAP)), (Some(b), Some(c)) if b > c);
            if !(over && keys_of(&pick).contains("cap=")) {
                out.push(pick);
            }
        }
        // The next pick, the last key fastest.
        let Some(i) = (0..pick.len()).rev().find(|&i| pick[i] + 1 < sizes[i]) else {
            return out;
        };
        pick[i] += 1;
        pick[i + 1..].fill(0);
    }
}

/// Every distinct policy of the space, as link text, in the order of its picks.
#[cfg(test)]
fn every_policy() -> Vec<String> {
    every_pick().iter().map(keys_of).collect()
}

/// `n` distinct policies drawn from the seed, by turns from two orders the seed's generator
/// shuffles (Fisher-Yates): the core of the space (attempts, backoff, base and budget, with the
/// link's own cap, timeout and breaker, and hedges with its own timeout: 532 policies), and the whole of it. Half the pool then
/// covers the trade-off most links turn on as densely as a small space would, and the other
/// half reaches every key.
pub fn candidates(seed: u64, n: usize) -> Vec<String> {
    candidates_where(seed, n, &|_| true)
}

/// Every policy in the seed's order ([`candidates`]), as picks.
fn drawn(seed: u64) -> Vec<Pick> {
    let mut rng = Rng::stream(seed, STREAM_TUNE);
    let all = every_pick();
    // The core: no cap, attempt timeout or breaker written (`keys_of` writes a cap only for
    // retries of 2 or more attempts with a backoff).
    let core_of = |c: &Pick| {
        let cap = c[HEDGE] == 0 && c[ATTEMPTS] != 0 && c[BACKOFF] != 0;
        !(cap && c[CAP] != 0) && c[TIMEOUT] == 0 && c[BREAKER] == 0
    };
    let core: Vec<Pick> = all.iter().copied().filter(core_of).collect();
    let (core, all) = (shuffled(core, &mut rng), shuffled(all, &mut rng));
    let mut seen = alloc::collections::BTreeSet::new();
    let mut out = Vec::with_capacity(DISTINCT);
    let (mut core, mut all) = (core.into_iter(), all.into_iter());
    loop {
        let (c, a) = (core.next(), all.next());
        if c.is_none() && a.is_none() {
            return out;
        }
        for k in [c, a].into_iter().flatten() {
            if seen.insert(k) {
                out.push(k);
            }
        }
    }
}

/// `v` in the order the generator's Fisher-Yates shuffle gives.
fn shuffled<T>(mut v: Vec<T>, rng: &mut Rng) -> Vec<T> {
    for i in 0..v.len() {
        let j = i + rng.below((v.len() - i) as u64) as usize;
        v.swap(i, j);
    }
    v
}

/// The objectives and feasibility of a policy's summaries, one a weather.
pub fn score(keys: String, by_weather: Vec<Summary>, runs: u32, limits: &Limits) -> Scored {
    let n = by_weather.len().max(1) as f64;
    let fail = by_weather.iter().map(|s| 1.0 - s.success_rate).sum::<f64>() / n;
    let amp = by_weather.iter().map(|s| s.amplification).sum::<f64>() / n;
    let p99 = if by_weather.iter().all(|s| s.p99_ms.is_some()) {
        by_weather.iter().filter_map(|s| s.p99_ms).sum::<f64>() / n
    } else {
        f64::MAX
    };
    let feasible = by_weather.iter().all(|s| {
        limits
            .max_amplification
            .is_none_or(|m| s.amplification <= m)
            && limits
                .max_p99_ms
                .is_none_or(|m| s.p99_ms.is_some_and(|p| p <= m))
            && limits.max_peak.is_none_or(|m| s.peak_attempts_per_s <= m)
            && (!limits.must_recover || recovered_share(s).is_none_or(|r| r >= 1.0))
    });
    Scored {
        keys,
        by_weather,
        runs,
        objectives: [fail, amp, p99],
        feasible,
    }
}

/// Whether `a` dominates `b`: no worse in every objective and better in one (a feasible point
/// dominates an infeasible one, as Optuna's constrained sort has it).
pub fn dominates(a: &Scored, b: &Scored) -> bool {
    if a.feasible != b.feasible {
        return a.feasible;
    }
    let (x, y) = (&a.objectives, &b.objectives);
    x.iter().zip(y).all(|(p, q)| p <= q) && x.iter().zip(y).any(|(p, q)| p < q)
}

/// Each point's Pareto front, from 0 (dominated by none).
pub fn fronts(points: &[Scored]) -> Vec<usize> {
    let mut rank = alloc::vec![usize::MAX; points.len()];
    let mut front = 0;
    while rank.contains(&usize::MAX) {
        let open: Vec<usize> = (0..points.len())
            .filter(|i| rank[*i] == usize::MAX)
            .collect();
        let next: Vec<usize> = open
            .iter()
            .copied()
            .filter(|i| !open.iter().any(|j| dominates(&points[*j], &points[*i])))
            .collect();
        for i in next {
            rank[i] = front;
        }
        front += 1;
    }
    rank
}

/// Each point's crowding distance within its front (NSGA-II's): for each objective, the gap
/// between its two neighbours in the front, scaled to the front's range, summed; a front's
/// extremes in any objective are infinitely far. The larger, the more of the frontier's spread
/// the point holds.
pub fn crowding(points: &[Scored], rank: &[usize]) -> Vec<f64> {
    let mut d = alloc::vec![0.0f64; points.len()];
    let fronts = rank.iter().copied().max().map_or(0, |m| m + 1);
    for front in 0..fronts {
        let mut members: Vec<usize> = (0..points.len()).filter(|i| rank[*i] == front).collect();
        for k in 0..3 {
            let obj = |i: usize| points[i].objectives[k].min(1e12);
            members.sort_by(|a, b| obj(*a).total_cmp(&obj(*b)).then(a.cmp(b)));
            let (Some(&lo), Some(&hi)) = (members.first(), members.last()) else {
                continue;
            };
            let span = (obj(hi) - obj(lo)).max(1e-12);
            d[lo] = f64::INFINITY;
            d[hi] = f64::INFINITY;
            for w in members.windows(3) {
                d[w[1]] += (obj(w[2]) - obj(w[0])) / span;
            }
        }
    }
    d
}

/// The better half of `points` (at least `keep_at_least`): by front, then within a front the
/// points that hold its spread first (crowding distance, as NSGA-II keeps a front's extremes
/// and its gaps), then by the sum of their objectives scaled to the points' range.
pub fn better_half(points: Vec<Scored>, keep_at_least: usize) -> Vec<Scored> {
    let rank = fronts(&points);
    let crowd = crowding(&points, &rank);
    let scale: Vec<(f64, f64)> = (0..3)
        .map(|k| {
            let v = points.iter().map(|p| p.objectives[k].min(1e12));
            let lo = v.clone().fold(f64::INFINITY, f64::min);
            let hi = v.fold(f64::NEG_INFINITY, f64::max);
            (lo, (hi - lo).max(1e-12))
        })
        .collect();
    let sum = |p: &Scored| -> f64 {
        (0..3)
            .map(|k| (p.objectives[k].min(1e12) - scale[k].0) / scale[k].1)
            .sum()
    };
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|a, b| {
        rank[*a]
            .cmp(&rank[*b])
            .then(crowd[*b].total_cmp(&crowd[*a]))
            .then(sum(&points[*a]).total_cmp(&sum(&points[*b])))
            .then(a.cmp(b))
    });
    let keep = points
        .len()
        .div_ceil(2)
        .max(keep_at_least)
        .min(points.len());
    let mut chosen: Vec<usize> = order[..keep].to_vec();
    chosen.sort_unstable();
    let mut points: Vec<Option<Scored>> = points.into_iter().map(Some).collect();
    chosen.iter().filter_map(|i| points[*i].take()).collect()
}

/// The runs each round uses, doubling from 2 to `max_runs`.
pub fn rounds(max_runs: u32) -> Vec<u32> {
    let mut r = alloc::vec![2u32.min(max_runs.max(1))];
    while *r.last().unwrap_or(&1) < max_runs {
        let next = (r[r.len() - 1] * 2).min(max_runs);
        r.push(next);
    }
    r
}

/// What a search found: the frontier, and the user's own policy beside it.
#[derive(Clone, Debug, PartialEq)]
pub struct Tuned {
    /// The non-dominated, feasible policies, best success first.
    pub frontier: Vec<Scored>,
    /// The user's policy at the last round's runs.
    pub yours: Scored,
    /// The frontier point that dominates the user's policy by the most (the largest sum of
    /// objective gains, scaled), if any does.
    pub better: Option<usize>,
    /// Policies tried, and runs made in all (over every weather).
    pub tried: usize,
    /// Every simulation run.
    pub runs_made: u64,
}

/// Runs a batch of policies (link text each, empty for the user's own) at a number of runs,
/// giving one summary a weather for each, in order.
pub type Evaluate<'a> = dyn FnMut(&[String], u32) -> Result<Vec<Vec<Summary>>, String> + 'a;

/// [`search`] over the policies of `pool` (from [`candidates_where`]).
pub fn search_over(
    pool: Vec<String>,
    max_runs: u32,
    limits: &Limits,
    eval: &mut Evaluate<'_>,
) -> Result<Tuned, String> {
    let mut s = Search::over(pool, max_runs, *limits);
    while let Some((batch, runs)) = s.next_batch() {
        let results = eval(&batch, runs)?;
        s.give(results)?;
    }
    Ok(s.finish())
}

/// Runs the search. `eval(keys, runs)` runs the user's link with `keys` added (none: the
/// user's policy) under every weather, `runs` runs each, and gives one summary a weather, in
/// order; the caller may run a batch on every core. Each round asks for its whole batch at
/// once. The page runs the same [`Search`] a batch at a time on its workers.
pub fn search(
    seed: u64,
    n: usize,
    max_runs: u32,
    limits: &Limits,
    eval: &mut Evaluate<'_>,
) -> Result<Tuned, String> {
    search_over(candidates(seed, n), max_runs, limits, eval)
}

/// A search in progress, a batch at a time: [`Search::next_batch`] names the policies to run
/// (each round's survivors, then the user's own), [`Search::give`] takes their summaries, and
/// [`Search::finish`] ranks the last round.
#[derive(Clone, Debug)]
pub struct Search {
    limits: Limits,
    plan: Vec<u32>,
    // The round whose batch is next (`plan.len()`: the user's own; past it: done).
    round: usize,
    pool: Vec<String>,
    scored: Vec<Scored>,
    yours: Option<Scored>,
    tried: usize,
    runs_made: u64,
    // Policy-runs (a policy at r runs counts r) done and planned, for progress.
    done_units: u64,
    all_units: u64,
}

impl Search {
    /// A search of link `p` over `n` candidates drawn from its seed ([`pool_where`]),
    /// doubling the runs up to `max_runs`.
    pub fn new(p: &crate::Params, n: usize, max_runs: u32, limits: Limits) -> Search {
        Search::over(pool_where(p, n, &|_| true), max_runs, limits)
    }

    /// A search over the policies of `pool` (link keys each).
    pub fn over(pool: Vec<String>, max_runs: u32, limits: Limits) -> Search {
        let plan = rounds(max_runs);
        // Each round keeps about half (at least 4); then the user's own at the last runs.
        let mut left = pool.len() as u64;
        let mut all_units = 0;
        for r in &plan {
            all_units += left * u64::from(*r);
            left = left.div_ceil(2).max(4).min(left);
        }
        all_units += u64::from(*plan.last().unwrap_or(&1));
        Search {
            limits,
            tried: pool.len(),
            plan,
            round: 0,
            pool,
            scored: Vec::new(),
            yours: None,
            runs_made: 0,
            done_units: 0,
            all_units,
        }
    }

    /// The next batch: the policies' keys (empty for the user's own) and the runs each, or
    /// `None` once every batch is in.
    pub fn next_batch(&self) -> Option<(Vec<String>, u32)> {
        let last = *self.plan.last().unwrap_or(&1);
        match self.round {
            r if r < self.plan.len() => Some((self.pool.clone(), self.plan[r])),
            r if r == self.plan.len() => Some((alloc::vec![String::new()], last)),
            _ => None,
        }
    }

    /// How far: the share of the planned policy-runs made.
    pub fn fraction(&self) -> f64 {
        self.done_units as f64 / self.all_units.max(1) as f64
    }

    /// The summaries of the batch [`Search::next_batch`] named, one list a policy, one summary
    /// a weather.
    pub fn give(&mut self, results: Vec<Vec<Summary>>) -> Result<(), String> {
        let Some((batch, runs)) = self.next_batch() else {
            return Err("the search is over".into());
        };
        if results.len() != batch.len() {
            return Err(format!(
                "{} results for {} policies",
                results.len(),
                batch.len()
            ));
        }
        let weathers = results.first().map_or(0, Vec::len) as u64;
        self.runs_made += batch.len() as u64 * weathers * u64::from(runs);
        self.done_units += batch.len() as u64 * u64::from(runs);
        let scored: Vec<Scored> = batch
            .iter()
            .zip(results)
            .map(|(k, s)| score(k.clone(), s, runs, &self.limits))
            .collect();
        if self.round == self.plan.len() {
            self.yours = scored.into_iter().next();
        } else if self.round + 1 < self.plan.len() {
            self.scored = better_half(scored, 4);
            self.pool = self.scored.iter().map(|s| s.keys.clone()).collect();
        } else {
            self.scored = scored;
        }
        self.round += 1;
        Ok(())
    }

    /// The frontier, once every batch is in (before then, of what is in).
    pub fn finish(self) -> Tuned {
        let yours = self
            .yours
            .unwrap_or_else(|| score(String::new(), Vec::new(), 0, &self.limits));
        frontier_of(self.scored, yours, self.tried, self.runs_made)
    }
}

/// The non-dominated, feasible points of the last round beside the user's own.
fn frontier_of(scored: Vec<Scored>, yours: Scored, tried: usize, runs_made: u64) -> Tuned {
    let rank = fronts(&scored);
    let mut frontier: Vec<Scored> = scored
        .into_iter()
        .zip(rank)
        .filter(|(s, r)| *r == 0 && s.feasible)
        .map(|(s, _)| s)
        .collect();
    // Policies that score alike (they differ where it does not matter here): the first.
    let mut seen: Vec<[f64; 3]> = Vec::new();
    frontier.retain(|p| {
        let new = !seen.contains(&p.objectives);
        seen.push(p.objectives);
        new
    });
    frontier.sort_by(|a, b| {
        a.objectives[0]
            .total_cmp(&b.objectives[0])
            .then(a.objectives[1].total_cmp(&b.objectives[1]))
    });
    let gain = |p: &Scored| -> f64 {
        (0..3)
            .map(|k| {
                let (a, b) = (yours.objectives[k].min(1e12), p.objectives[k].min(1e12));
                (a - b) / a.abs().max(1e-9)
            })
            .sum()
    };
    let better = (0..frontier.len())
        .filter(|i| dominates(&frontier[*i], &yours))
        .max_by(|a, b| gain(&frontier[*a]).total_cmp(&gain(&frontier[*b])));
    Tuned {
        frontier,
        yours,
        better,
        tried,
        runs_made,
    }
}

#[cfg(test)]
mod tests;
