//! Open and closed loops on one bimodal server (Brooker, "Open and Closed, Omission and
//! Collapse"): a closed-loop benchmark hides the tail an open-loop system sees, and a retry on
//! a tight timeout makes the open loop's queue grow without bound.

use retry_model::sim::{simulate, SimReport};
use retry_model::Params;

fn run(q: &str) -> SimReport {
    simulate(&q.parse::<Params>().unwrap_or_else(|e| panic!("{q}: {e}"))).unwrap()
}

#[test]
fn a_closed_loop_hides_the_tail_the_open_loop_sees() {
    let closed = run("preset=omission-closed").summary;
    let open = run("preset=omission-open").summary;
    // The same server at the same load: about 8000 requests a second each.
    let (c, o) = (closed.server.unwrap(), open.server.unwrap());
    assert!(
        (c.throughput_per_s / o.throughput_per_s - 1.0).abs() < 0.03,
        "{} against {}",
        c.throughput_per_s,
        o.throughput_per_s
    );
    // Closed: a slow service delays only its own user (and at most one other), so the p99 is
    // a fast service.
    assert!(closed.p99_ms.unwrap() < 1.0, "{:?}", closed.p99_ms);
    // Open: arrivals keep coming behind a 10 ms service; the p99 is two hundred times longer.
    let p99 = open.p99_ms.unwrap();
    assert!(p99 > 20.0 && p99 > 200.0 * closed.p99_ms.unwrap(), "{p99}");
    assert!(open.p999_ms.unwrap() > 25.0, "{:?}", open.p999_ms);
    assert_eq!((closed.success_rate, open.success_rate), (1.0, 1.0));
}

#[test]
fn the_open_loop_is_the_m_g_1_queue_of_pollaczek_and_khinchine() {
    let sv = run("preset=omission-open").summary.server.unwrap();
    // Poisson at 8/ms, service 0.1 ms w.p. 0.999 and 10 ms w.p. 0.001:
    // E[S] = 0.1099 ms, E[S^2] = 0.10999 ms^2, rho = 0.8792,
    // W = lambda E[S^2] / (2 (1 - rho)) = 3.642 ms, T = W + E[S] = 3.752 ms.
    let (es, es2, lambda) = (0.1099, 0.999 * 0.01 + 0.001 * 100.0, 8.0);
    let rho: f64 = lambda * es;
    let t = lambda * es2 / (2.0 * (1.0 - rho)) + es;
    assert!(
        (sv.mean_time_ms / t - 1.0).abs() < 0.05,
        "{} against {t}",
        sv.mean_time_ms
    );
    // Little's law on the same run.
    assert!((sv.mean_in_system / (lambda * t) - 1.0).abs() < 0.05);
}

#[test]
fn a_retry_on_a_tight_timeout_grows_the_queue_without_bound() {
    let r = run("preset=omission-retry");
    let s = &r.summary;
    assert!(s.success_rate < 0.05, "{}", s.success_rate);
    assert!(s.amplification > 2.9, "{}", s.amplification);
    // The queue grows every second of the run's arrivals, to hundreds of thousands.
    let queue: Vec<u32> = r.series.bins.iter().take(60).map(|b| b.queue).collect();
    assert!(queue.windows(2).skip(1).all(|w| w[1] > w[0]), "{queue:?}");
    assert!(s.server.unwrap().max_queue > 500_000);
    // The same timeout without the retries: some requests time out, the queue stays short.
    let alone = run("preset=omission-retry&attempts=1").summary;
    assert!(alone.success_rate > 0.9, "{}", alone.success_rate);
    assert!(alone.server.unwrap().max_queue < 5_000);
}
