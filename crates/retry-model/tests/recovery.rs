//! Recovery after a trigger, as the report and the sweeps read it: whether goodput came back
//! to what it was before the trigger and held, and how long after the trigger ended. (The JSON
//! names are checked in the CLI's tests.)

use retry_model::sim::{simulate, Metric, Summary};
use retry_model::Params;

fn summary(q: &str) -> Summary {
    simulate(&q.parse::<Params>().unwrap_or_else(|e| panic!("{q}: {e}")))
        .unwrap()
        .summary
}

#[test]
fn the_queue_spike_stays_down_and_lifo_recovers() {
    let none = summary("preset=queue-spike-none").recovery.unwrap();
    // The spike ends at 15 s and the arrivals at 60 s: 45 s watched, never recovered.
    assert_eq!(none.trigger_end_s, 15.0);
    assert!(!none.recovered());
    assert_eq!(none.recovery_s(), None);
    assert_eq!(none.watched_s, 45.0);
    // The baseline is the goodput before the spike: the 94 requests a second.
    assert!((none.baseline_per_s - 94.0).abs() < 1.0, "{none:?}");
    let lifo = summary("preset=queue-spike-lifo").recovery.unwrap();
    assert!(lifo.recovered());
    let budget = summary("preset=queue-spike-budget").recovery.unwrap();
    let after = budget.recovery_s().unwrap();
    assert!(after > 5.0, "the budget drains the queue slowly: {after}");
}

#[test]
fn the_rule_decides_what_counts_as_recovered() {
    let strict = summary("preset=queue-spike-budget").recovery.unwrap();
    let loose = summary("preset=queue-spike-budget&recovery_tolerance=0.9")
        .recovery
        .unwrap();
    assert!(loose.recovery_s().unwrap() < strict.recovery_s().unwrap());
    // A hold longer than the run after the trigger cannot be met: no verdict at all.
    assert_eq!(
        summary("preset=queue-spike-budget&recovery_hold=50").recovery,
        None
    );
    // Wider windows are whole bins: 2 s windows over 1 s bins.
    let wide = summary("preset=queue-spike-lifo&recovery_window=2s")
        .recovery
        .unwrap();
    assert!(wide.recovered());
}

#[test]
fn every_trigger_counts_and_a_run_without_one_says_nothing() {
    // The outage (2 s for 5 s).
    let outage = summary("preset=metastable-breaker").recovery.unwrap();
    assert_eq!(outage.trigger_end_s, 3.0);
    // A capacity drop (5 s for 10 s).
    assert_eq!(
        summary("preset=hedge-overload")
            .recovery
            .unwrap()
            .trigger_end_s,
        15.0
    );
    // No trigger: no outage, no spike, no slow-down.
    assert_eq!(summary("preset=hedge-tail").recovery, None);
    assert_eq!(summary("preset=flaky-retries").recovery, None);
    // A burst has no steady load to come back to.
    assert_eq!(summary("preset=burst-lab").recovery, None);
}

#[test]
fn every_format_names_it() {
    let p: Params = "preset=queue-spike-none".parse().unwrap();
    let r = simulate(&p).unwrap();
    let rows = r.summary.rows();
    let row = rows.iter().find(|(k, _)| k == "recovered").unwrap();
    assert_eq!(
        row.1,
        "no: metastable, still degraded 45 s after the trigger ended"
    );
    let lifo = summary("preset=queue-spike-lifo");
    // Sweepable: the metrics by name, as numbers, text and CSV.
    assert_eq!(Metric::from_name("recovered"), Some(Metric::Recovered));
    assert_eq!(Metric::Recovered.value(&r.summary), Some(0.0));
    assert_eq!(Metric::Recovered.text(&lifo), "yes");
    assert_eq!(Metric::RecoveryS.value(&r.summary), None);
    assert_eq!(Metric::Recovered.csv(&r.summary), "false");
}

#[test]
fn a_sweep_finds_the_spike_that_tips_the_queue_over() {
    let p: Params = "preset=queue-spike-none&sweep.spike_for=1s,5s&sweep.plot=recovered,recovery_s"
        .parse()
        .unwrap();
    let s = p.sweep().unwrap();
    let rows = p.sweep_rows(&s.axes).unwrap();
    let verdicts: Vec<Option<bool>> = rows
        .iter()
        .map(|(_, row)| {
            simulate(row)
                .unwrap()
                .summary
                .recovery
                .map(|r| r.recovered())
        })
        .collect();
    assert_eq!(verdicts, [Some(true), Some(false)]);
}

#[test]
fn the_recovery_keys_are_refused_where_they_do_nothing() {
    for q in [
        "scenario=burst&recovery_hold=5",
        "scenario=occ&recovery_window=2s",
        "preset=payments-none&recovery_tolerance=2",
        "preset=payments-none&recovery_hold=0",
        "preset=hedge-tail&recovery_hold=5",
    ] {
        let e = q.parse::<Params>().unwrap_err();
        assert!(e.field.starts_with("recovery_"), "{q}: {e}");
    }
}
