//! How sure the figures over several runs are: the 95% intervals `runs` gives, checked for
//! what they promise (they hold the mean of many more runs about 95% of the time), and the
//! `replicate` key that opens any one run as its own link.

use retry_model::sim::{simulate, sweep_csv, Summary};
use retry_model::Params;

fn summary(link: &str) -> Summary {
    let p: Params = link.parse().unwrap_or_else(|e| panic!("{link}: {e}"));
    simulate(&p)
        .unwrap_or_else(|e| panic!("{link}: {e}"))
        .summary
}

/// A storm whose figures vary from seed to seed: a 1 s outage, immediate retries with full
/// jitter.
const STORM: &str = "preset=metastable-none&backoff=full";

/// Over 100 disjoint sets of 20 runs, the 95% intervals of the mean amplification and p99
/// hold the mean of 1000 other runs at least 85 times (a 95% interval from 20 runs by the
/// bootstrap covers about 92% of the time; 85 of 100 is three standard errors below). An
/// interval half as wide would cover about 67% of the time (a normal mean's) and fail.
#[test]
fn the_intervals_hold_the_mean_of_many_more_runs() {
    let truth = summary(&format!("{STORM}&runs=1000&replicate=900001"));
    let (mut amp, mut p99) = (0, 0);
    for set in 0..100 {
        let s = summary(&format!("{STORM}&runs=20&replicate={}", 20 * set + 1));
        let iv = s.intervals.expect("intervals with runs=20");
        assert_eq!(iv.runs, 20);
        let (a, p) = (iv.amplification.unwrap(), iv.p99_ms.unwrap());
        assert!(
            a.low <= s.amplification && s.amplification <= a.high,
            "{a:?}"
        );
        amp += u32::from(a.low <= truth.amplification && truth.amplification <= a.high);
        let t = truth.p99_ms.unwrap();
        p99 += u32::from(p.low <= t && t <= p.high);
    }
    eprintln!("coverage: amplification {amp}/100, p99 {p99}/100");
    assert!(amp >= 85, "amplification covered {amp} of 100");
    assert!(p99 >= 85, "p99 covered {p99} of 100");
    assert!(amp < 100 || p99 < 100, "intervals too wide to ever miss");
}

/// Run `r` of a seed is the same whether it runs alone (`replicate=r`) or among others.
#[test]
fn a_replicate_opens_one_run_of_many() {
    let alone: Vec<Summary> = (2..=4)
        .map(|r| summary(&format!("{STORM}&replicate={r}")))
        .collect();
    let together = summary(&format!("{STORM}&runs=3&replicate=2"));
    let mean = alone.iter().map(|s| s.amplification).sum::<f64>() / 3.0;
    assert!((together.amplification - mean).abs() < 1e-12);
    let attempts = alone.iter().map(|s| s.attempts).sum::<u64>() as f64 / 3.0;
    assert_eq!(together.attempts, attempts.round() as u64);
    assert_ne!(alone[0].attempts, alone[1].attempts, "the runs differ");
    assert_eq!(
        summary(&format!("{STORM}&replicate=1")),
        summary(STORM),
        "replicate=1 is the link without it"
    );
    let err = format!("{STORM}&replicate=0")
        .parse::<Params>()
        .unwrap_err();
    assert_eq!(err.field, "replicate");
}

/// How many runs recovered is counted run by run, with its exact interval.
#[test]
fn the_share_of_runs_that_recovered_has_its_exact_interval() {
    for (link, recovered) in [(STORM, true), ("preset=queue-spike-none", false)] {
        let s = summary(&format!("{link}&runs=12"));
        let r = s.intervals.and_then(|i| i.recovered).expect("a trigger");
        assert_eq!(r.n, 12);
        assert_eq!(r.k, if recovered { 12 } else { 0 }, "{link}");
        let i = r.interval;
        if recovered {
            assert!((i.low - 0.025f64.powf(1.0 / 12.0)).abs() < 1e-6 && i.high == 1.0);
        } else {
            assert!(i.low == 0.0 && (i.high - (1.0 - 0.025f64.powf(1.0 / 12.0))).abs() < 1e-6);
        }
        let rows: Vec<String> = s
            .rows()
            .into_iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        assert!(
            rows.iter().any(|r| r.starts_with(&format!(
                "recovered in runs: {} of 12 (95%: ",
                if recovered { 12 } else { 0 }
            ))),
            "{rows:#?}"
        );
    }
}

/// The text and the CSV carry the interval beside the value; one run has none.
#[test]
fn every_output_gives_the_interval_beside_the_value() {
    let one = summary(STORM);
    assert!(one.intervals.is_none());
    assert!(!one.rows().iter().any(|(_, v)| v.contains("95%")));
    let many = summary(&format!("{STORM}&runs=30"));
    let rows = many.rows();
    let amp = rows.iter().find(|(k, _)| k == "amplification").unwrap();
    assert!(
        amp.1.contains(" (95%: ") && amp.1.ends_with("x)"),
        "{amp:?}"
    );
    let keys = ["runs"];
    let csv_one = sweep_csv(&keys, &[(vec!["1".into()], one)]);
    assert!(!csv_one.contains("_low"));
    let csv = sweep_csv(&keys, &[(vec!["30".into()], many.clone())]);
    let (head, row) = csv.split_once('\n').unwrap();
    let cols: Vec<&str> = head.split(',').collect();
    let cells: Vec<&str> = row.trim_end().split(',').collect();
    assert_eq!(cols.len(), cells.len(), "{csv}");
    let at = |name: &str| {
        cells[cols.iter().position(|c| *c == name).unwrap()]
            .parse::<f64>()
            .unwrap()
    };
    let iv = many.intervals.unwrap().success_rate.unwrap();
    assert_eq!(at("success_rate_low"), iv.low);
    assert_eq!(at("success_rate_high"), iv.high);
    assert!(
        at("success_rate_low") <= at("success_rate")
            && at("success_rate") <= at("success_rate_high")
    );
}

/// The phase plot's seed-dependent queue (exponential service, Poisson arrivals).
const PHASE: &str = "scenario=outage&attempt_timeout=1s&attempts=3&backoff=none&idempotent=true&rate=70&duration=60s&outage=0ms&server=queue&workers=4&queue_limit=1000&service=40ms&spike_start=10s&service_dist=exp&arrivals=poisson";

/// `sequential` stops a cell's runs once the interval of the share that recovered is clear of
/// one half, and goes on to the end where the cell sits on the boundary.
#[test]
fn sequential_runs_stop_once_the_share_is_clear_of_half() {
    let clear = summary(&format!(
        "{PHASE}&spike_rate=10&spike_for=1s&runs=100&sequential=true"
    ));
    let iv = clear.intervals.unwrap();
    assert_eq!(
        (iv.runs, iv.planned),
        (6, 100),
        "6 of 6 is the first clear count"
    );
    assert_eq!(clear.verdict(), Some(true));
    assert_eq!(clear.collapse(), Some(0.0));
    let down = summary(&format!(
        "{PHASE}&spike_rate=190&spike_for=19s&runs=100&sequential=true"
    ));
    let iv = down.intervals.unwrap();
    assert_eq!((iv.runs, iv.recovered.unwrap().k), (6, 0));
    assert_eq!(down.verdict(), Some(false));
    assert_eq!(down.collapse(), Some(1.0));
    // On the boundary the share stays near a half and every planned run is made.
    let edge = summary(&format!(
        "{PHASE}&spike_rate=40&spike_for=9s&runs=100&sequential=true"
    ));
    let r = edge.intervals.unwrap().recovered.unwrap();
    assert_eq!(r.n, 100);
    assert!(r.interval.low < 0.5 && 0.5 < r.interval.high, "{r:?}");
    // Runs that disagree are not summed up as the mean run's "no".
    let said = edge
        .rows()
        .into_iter()
        .find(|(k, _)| k == "recovered")
        .unwrap()
        .1;
    assert_eq!(said, format!("in {} of 100 runs, not in every one", r.k));
    // With one run there is nothing to stop: the key is refused, not ignored.
    let err = format!("{PHASE}&sequential=true")
        .parse::<Params>()
        .unwrap_err();
    assert_eq!(err.field, "sequential", "{err}");
    // Without `sequential`, the same cell runs all 100 whatever they show.
    let all = summary(&format!("{PHASE}&spike_rate=10&spike_for=1s&runs=100"));
    assert_eq!(all.intervals.unwrap().runs, 100);
    let text: Vec<String> = clear
        .rows()
        .into_iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    assert!(
        text.iter().any(|t| t.starts_with(
            "runs: 6 of 100 (stopped once the share that recovered was clear of 50%)"
        )),
        "{text:#?}"
    );
}

/// A phase plot of several runs a cell stops each cell once it is clear of 50% unless the link
/// says `sequential=false`; a version 1 link's phase plot keeps making every run, as it did.
#[test]
fn a_phase_plots_cells_stop_once_clear_unless_the_link_is_older() {
    let plot = format!(
        "{PHASE}&runs=100&sweep.spike_rate=10,190&sweep.spike_for=1s,19s&sweep.plot=recovered"
    );
    // The rows as `retrylab sweep` and its shards make them (`json::inputs::sweep_plan`).
    let rows_of = |link: &str| {
        let p: Params = link.parse().unwrap();
        p.sweep_base().sweep_rows(&p.sweep().unwrap().axes).unwrap()
    };
    let cells = |link: &str| {
        rows_of(link)
            .iter()
            .map(|(_, row)| {
                (
                    row.to_string(),
                    summary(&row.to_string()).intervals.unwrap().runs,
                )
            })
            .collect::<Vec<_>>()
    };
    let now = cells(&plot);
    // The clear corners stop at 6 runs, and each cell's own link says it stops.
    for (link, runs) in &now {
        assert!(link.contains("sequential=true"), "{link}");
        assert_eq!(*runs, 6, "{link}");
    }
    for old in [
        format!("v=2&{plot}&sequential=false"),
        format!("v=1&{plot}"),
    ] {
        let p: Params = old.parse().unwrap();
        assert!(p.to_string().contains("&sequential=false"), "{p}");
        for (link, runs) in cells(&old) {
            assert!(link.contains("sequential=false"), "{link}");
            assert_eq!(runs, 100, "{link}");
        }
    }
    // A link without `v` is read as this version; one run a cell has nothing to stop; and a
    // sweep that plots more than recovery, or one link, makes every run.
    assert!(!plot
        .parse::<Params>()
        .unwrap()
        .to_string()
        .contains("sequential"));
    let one = plot.replace("runs=100", "runs=1");
    assert_eq!(rows_of(&one)[0].1.sim.sequential, None);
    // The page plans its rows from the link itself: the same stop.
    let p: Params = plot.parse().unwrap();
    let rows = p.sweep_rows(&p.sweep().unwrap().axes).unwrap();
    assert!(rows.iter().all(|(_, r)| r.sim.sequential == Some(true)));
    let lines = plot.replace("sweep.plot=recovered", "sweep.plot=recovered,success_rate");
    assert!(cells(&lines).iter().all(|(_, runs)| *runs == 100));
    let single = format!("v=1&{PHASE}&spike_rate=10&spike_for=1s&runs=100");
    assert_eq!(summary(&single).intervals.unwrap().runs, 100);
}

/// With several runs the series CSV gives each bin's range of attempts over the runs, around
/// the first run's own count; a single run's CSV has no such columns.
#[test]
fn the_series_csv_gives_each_bins_range_over_the_runs() {
    let run = |link: &str| {
        let p: retry_model::Params = link.parse().unwrap();
        let r = retry_model::sim::simulate(&p).unwrap();
        retry_model::sim::series_csv(&r.series, r.band.as_ref())
    };
    let one = run("preset=payments-jitter");
    assert!(!one.lines().next().unwrap().contains("attempts_low"));
    let many = run("preset=payments-jitter&runs=12");
    let head: Vec<&str> = many.lines().next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let (att, lo, hi) = (col("attempts"), col("attempts_low"), col("attempts_high"));
    let mut spread = 0;
    for line in many.lines().skip(1) {
        let v: Vec<u64> = line
            .split(',')
            .map(|x| x.parse::<f64>().unwrap() as u64)
            .collect();
        assert!(v[lo] <= v[att] && v[att] <= v[hi], "{line}");
        spread += v[hi] - v[lo];
    }
    assert!(spread > 0, "twelve jittered runs never differed");
}
