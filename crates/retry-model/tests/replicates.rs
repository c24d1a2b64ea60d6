//! A link's runs split into parts (each part its replicates, run apart, as the CLI runs them
//! on several cores) and joined in order give the report the whole link gives on one core:
//! the means, their intervals, the first run's series, the band and the fingerprint, to the
//! bit; with `sequential`, the same early stop.

use retry_model::sim::{simulate, Run, RunInput, RunParts, SimReport};
use retry_model::Params;

/// The link's runs split at `cuts` (run indices), each part run alone, joined.
fn joined(link: &str, cuts: &[u32]) -> SimReport {
    let p: Params = link.parse().unwrap();
    let input = RunInput::try_from(&p).unwrap();
    let total = p.sim.runs.0;
    let mut bounds = vec![0];
    bounds.extend(cuts.iter().copied().filter(|c| *c > 0 && *c < total));
    bounds.push(total);
    let parts: Vec<RunParts> = bounds
        .windows(2)
        .map(|w| {
            Run::replicates(input.clone(), w[0], w[1] - w[0])
                .unwrap()
                .finish_parts()
        })
        .collect();
    RunParts::join(&input, parts)
}

#[test]
fn parts_of_a_links_runs_join_to_the_whole() {
    for (link, cuts) in [
        ("preset=payments-jitter&runs=12", vec![5]),
        ("preset=payments-jitter&runs=12", vec![1, 2, 3, 7, 11]),
        ("preset=burst-lab&runs=9&seed=4", vec![4, 8]),
        ("preset=occ-2015&runs=5&backoff=equal", vec![2]),
        ("preset=metastable-none&backoff=full&runs=7", vec![3]),
        // Runs of different lengths (random service times): the band on the first's bins.
        ("scenario=outage&attempt_timeout=1s&attempts=3&backoff=none&idempotent=true&rate=70&outage=0ms&server=queue&workers=4&service=40ms&spike_start=10s&service_dist=exp&arrivals=poisson&spike_rate=40&spike_for=9s&runs=24", vec![7, 13]),
        // engine=auto weighs all the runs: the parts run on the engine the whole picks.
        ("preset=payments-none&runs=40", vec![20]),
    ] {
        let whole = simulate(&link.parse::<Params>().unwrap()).unwrap();
        let parts = joined(link, &cuts);
        assert_eq!(parts, whole, "{link} cut at {cuts:?}");
        assert!(whole.runs > 1);
    }
}

/// `sequential` stops at the first run whose count of recoveries is clear of one half, in the
/// whole link and in its parts joined (which ran past it), alike.
#[test]
fn a_sequential_stop_is_the_same_in_parts() {
    let link = "scenario=outage&attempt_timeout=1s&attempts=3&backoff=none&idempotent=true&rate=70&outage=0ms&server=queue&workers=4&service=40ms&spike_start=10s&service_dist=exp&arrivals=poisson&spike_rate=20&spike_for=2s&runs=40&sequential=true";
    let whole = simulate(&link.parse::<Params>().unwrap()).unwrap();
    assert!(whole.runs < 40, "stopped early: {}", whole.runs);
    let parts = joined(link, &[4, 12, 30]);
    assert_eq!(parts, whole);
}
