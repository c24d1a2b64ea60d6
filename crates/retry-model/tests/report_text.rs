//! The series and summary text the CLI prints and the page shows (`sim::report_text`), checked
//! on whole runs of links: the breaker's bins, the labels' width, the rates against the totals.

use retry_model::sim::simulate;
use retry_model::Params;

#[test]
fn bins_record_the_breaker_and_failures_by_reason() {
    let p: Params = "preset=metastable-breaker".parse().unwrap();
    let r = simulate(&p).unwrap();
    let rates = r.series.rates();
    assert_eq!(rates[0].breaker, 1, "closed before the outage");
    assert!(rates.iter().any(|b| b.breaker == 3), "open after it");
    let open = retry_model::StopReason::BreakerOpen.index();
    let secs = r.series.bin_ms / 1000.0;
    let refused: f64 = rates.iter().map(|b| b.failures_by[open] * secs).sum();
    assert!((refused - r.summary.failures[open] as f64).abs() < 1e-6);
    let q: Params = "preset=payments-jitter".parse().unwrap();
    assert!(
        simulate(&q)
            .unwrap()
            .series
            .rates()
            .iter()
            .all(|b| b.breaker == 0),
        "no breaker"
    );
}

#[test]
fn every_row_has_its_meaning_for_the_page() {
    // A queue server with recovery, a flaky dependency's closed forms, the limiter, hedging.
    for link in [
        "preset=queue-spike-none&duration=12s",
        "preset=payments-none&duration=10s&limiter=aws-adaptive",
        "preset=hedge-tail&duration=5s",
        "preset=flaky-retries&duration=5s",
    ] {
        let p: Params = link.parse().unwrap_or_else(|e| panic!("{link}: {e}"));
        for (k, _) in simulate(&p).unwrap().summary.rows() {
            let m = retry_model::sim::row_meaning(&k);
            assert!(
                m.is_some_and(|m| !m.is_empty()),
                "{link}: no meaning for `{k}`"
            );
        }
    }
    assert_eq!(retry_model::sim::row_meaning("no such row"), None);
}

#[test]
fn every_label_fits_the_cli_column() {
    // `retrylab run` pads labels to 26 columns; a longer one would run into its value.
    let p: Params = "preset=queue-spike-none&duration=12s".parse().unwrap();
    let s = simulate(&p).unwrap().summary;
    assert!(s.server.is_some());
    for (k, _) in s.rows() {
        assert!(k.len() <= 25, "{k}");
    }
}

#[test]
fn rates_add_up_to_the_totals() {
    let p: Params = "preset=payments-jitter&duration=20s".parse().unwrap();
    let r = simulate(&p).unwrap();
    let rates = r.series.rates();
    let secs = r.series.bin_ms / 1000.0;
    let attempts: f64 = rates.iter().map(|x| x.attempts * secs).sum();
    assert!((attempts - r.summary.attempts as f64).abs() < 1e-6);
    let originals: f64 = rates.iter().map(|x| x.originals * secs).sum();
    assert!((originals - r.summary.originals as f64).abs() < 1e-6);
    assert_eq!(r.summary.rows()[0].1, r.summary.originals.to_string());
}
