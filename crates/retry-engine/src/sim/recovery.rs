//! Whether a run recovered after its trigger (an outage, a load spike, a capacity drop), and
//! when: the question the research on metastable failures asks of every experiment.
//!
//! Time is cut into windows of whole bins (`recovery_window`, rounded up to the bin width). The
//! baseline is the mean goodput (requests that succeeded, counted when they end) of the windows
//! that end before the trigger starts; with none (a trigger at t = 0), an open loop's arrival
//! rate. The windows after the trigger ends, up to the end of the arrivals, are compared with
//! it: the run recovered at the start of the first `recovery_hold` windows in a row whose
//! goodput is at least `1 - recovery_tolerance` of the baseline. A run whose arrivals end
//! before `recovery_hold` windows have passed after the trigger cannot tell, and says nothing.
//!
//! ```
//! use retry_model::{sim::simulate, Params};
//! let r = simulate(&"preset=queue-spike-lifo".parse::<Params>().unwrap()).unwrap();
//! let rec = r.summary.recovery.unwrap();
//! assert!(rec.recovered_at_s.is_some());
//! let r = simulate(&"preset=queue-spike-none".parse::<Params>().unwrap()).unwrap();
//! assert_eq!(r.summary.recovery.unwrap().recovered_at_s, None);
//! ```

use crate::retry::time::Micros;

/// How recovery is judged (`recovery_window`, `recovery_tolerance`, `recovery_hold`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecoveryRule {
    /// The window goodput is counted over (whole bins, rounded up).
    pub window: Micros,
    /// How far below the baseline a recovered window may be, in thousandths.
    pub tolerance_milli: u64,
    /// Windows in a row that must hold.
    pub hold: u32,
}

impl Default for RecoveryRule {
    fn default() -> Self {
        RecoveryRule {
            window: Micros::from_secs(1),
            tolerance_milli: 100,
            hold: 3,
        }
    }
}

/// What recovery detection found in one run (or the mean of several).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Recovery {
    /// When the trigger ended, in seconds.
    pub trigger_end_s: f64,
    /// The goodput before the trigger (or the arrival rate), per second.
    pub baseline_per_s: f64,
    /// When goodput came back and held, in seconds; `None`: it did not within the run.
    pub recovered_at_s: Option<f64>,
    /// How long after the trigger ended the run was watched, in seconds.
    pub watched_s: f64,
}

impl Recovery {
    /// Whether the run recovered.
    pub fn recovered(&self) -> bool {
        self.recovered_at_s.is_some()
    }

    /// Seconds from the trigger's end to the recovery.
    pub fn recovery_s(&self) -> Option<f64> {
        self.recovered_at_s.map(|t| t - self.trigger_end_s)
    }

    /// The sentence the report prints, rounded for people: "yes, 2 s after the trigger ended"
    /// or "no: metastable, still degraded 45 s after the trigger ended".
    pub fn text(&self) -> alloc::string::String {
        use crate::retry::text::sig3;
        match self.recovery_s() {
            Some(s) => alloc::format!("yes, {} s after the trigger ended", sig3(s)),
            None => alloc::format!(
                "no: metastable, still degraded {} s after the trigger ended",
                sig3(self.watched_s)
            ),
        }
    }

    /// The mean of several runs': recovered only if every run did, at their mean time.
    pub fn mean(all: &[Recovery]) -> Option<Recovery> {
        let n = all.len() as f64;
        let first = all.first()?;
        let at: Option<f64> = all.iter().map(|r| r.recovered_at_s).sum();
        Some(Recovery {
            trigger_end_s: first.trigger_end_s,
            baseline_per_s: all.iter().map(|r| r.baseline_per_s).sum::<f64>() / n,
            recovered_at_s: at.map(|t| t / n),
            watched_s: all.iter().map(|r| r.watched_s).sum::<f64>() / n,
        })
    }
}

/// The trigger and the run around it, as [`detect`] reads them.
#[derive(Clone, Copy, Debug)]
pub struct Watch {
    /// When the first trigger starts.
    pub start: Micros,
    /// When the last trigger ends.
    pub end: Micros,
    /// When the arrivals end.
    pub arrivals_end: Micros,
    /// The open loop's arrivals per second, for a trigger at t = 0.
    pub rate_per_s: Option<f64>,
}

/// Recovery after `w`'s trigger, by `rule`, from the successes of each bin of `width`; `None`
/// when the run cannot tell (no baseline, or too few windows after the trigger).
pub fn detect(bins: &[u32], width: Micros, w: Watch, rule: RecoveryRule) -> Option<Recovery> {
    let width = width.0.max(1);
    let k = rule.window.0.div_ceil(width).max(1) as usize;
    let span = k as u64 * width;
    let secs = |us: u64| us as f64 / 1e6;
    let goodput =
        |from: usize| -> u64 { bins.iter().skip(from).take(k).map(|&b| u64::from(b)).sum() };
    let before = (w.start.0 / span) as usize;
    let baseline = if before > 0 {
        (0..before).map(|i| goodput(i * k)).sum::<u64>() as f64 / before as f64
    } else {
        w.rate_per_s? * secs(span)
    };
    let first = w.end.0.div_ceil(width) as usize;
    let last_end = w.arrivals_end.0.min(bins.len() as u64 * width);
    let windows = (last_end.saturating_sub(first as u64 * width) / span) as usize;
    if windows < rule.hold.max(1) as usize || baseline <= 0.0 {
        return None;
    }
    let floor = baseline * (1000 - rule.tolerance_milli.min(1000)) as f64 / 1000.0;
    let good: alloc::vec::Vec<bool> = (0..windows)
        .map(|j| goodput(first + j * k) as f64 >= floor)
        .collect();
    let hold = rule.hold.max(1) as usize;
    let at = (0..=windows - hold).find(|&j| good[j..j + hold].iter().all(|g| *g));
    Some(Recovery {
        trigger_end_s: secs(w.end.0),
        baseline_per_s: baseline / secs(span),
        recovered_at_s: at.map(|j| secs((first + j * k) as u64 * width)),
        watched_s: secs(first as u64 * width + windows as u64 * span - w.end.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bins(successes: &[u32]) -> alloc::vec::Vec<u32> {
        successes.to_vec()
    }

    const S: fn(u64) -> Micros = Micros::from_secs;

    fn watch(start: u64, end: u64, arrivals_end: u64) -> Watch {
        Watch {
            start: S(start),
            end: S(end),
            arrivals_end: S(arrivals_end),
            rate_per_s: None,
        }
    }

    #[test]
    fn recovery_is_the_first_of_hold_good_windows_in_a_row() {
        // Baseline 100/s over 0..2 s; trigger 2..4 s; one good window, a dip, then good.
        let b = bins(&[100, 100, 0, 0, 95, 50, 91, 100, 100, 100]);
        let r = detect(&b, S(1), watch(2, 4, 10), RecoveryRule::default()).unwrap();
        assert_eq!(r.baseline_per_s, 100.0);
        assert_eq!(r.recovered_at_s, Some(6.0));
        assert_eq!(r.recovery_s(), Some(2.0));
        assert_eq!(r.text(), "yes, 2 s after the trigger ended");
        // A 5% tolerance refuses the 91 at 6 s: recovery waits for 7 s.
        let strict = RecoveryRule {
            tolerance_milli: 50,
            ..RecoveryRule::default()
        };
        let r = detect(&b, S(1), watch(2, 4, 10), strict).unwrap();
        assert_eq!(r.recovered_at_s, Some(7.0));
    }

    #[test]
    fn a_run_that_stays_down_is_metastable_and_says_for_how_long() {
        let b = bins(&[100, 100, 0, 0, 10, 10, 10, 10, 10, 10, 0, 0]);
        let r = detect(&b, S(1), watch(2, 4, 10), RecoveryRule::default()).unwrap();
        assert!(!r.recovered());
        assert_eq!(r.watched_s, 6.0);
        assert_eq!(
            r.text(),
            "no: metastable, still degraded 6 s after the trigger ended"
        );
    }

    #[test]
    fn windows_are_whole_bins_and_the_run_may_be_too_short_to_tell() {
        // 500 ms bins, a 1 s window: two bins each.
        let b = bins(&[50, 50, 50, 50, 0, 0, 50, 50, 50, 50, 50, 50, 50, 50]);
        let r = detect(
            &b,
            Micros::from_millis(500),
            watch(2, 3, 7),
            RecoveryRule::default(),
        )
        .unwrap();
        assert_eq!(r.baseline_per_s, 100.0);
        assert_eq!(r.recovered_at_s, Some(3.0));
        // Two windows after the trigger, three needed: no verdict.
        assert_eq!(
            detect(
                &b,
                Micros::from_millis(500),
                watch(2, 5, 7),
                RecoveryRule::default()
            ),
            None
        );
    }

    #[test]
    fn a_trigger_at_the_start_compares_with_the_arrival_rate() {
        let b = bins(&[0, 0, 20, 20, 20, 20]);
        let mut w = watch(0, 2, 6);
        assert_eq!(detect(&b, S(1), w, RecoveryRule::default()), None);
        w.rate_per_s = Some(20.0);
        let r = detect(&b, S(1), w, RecoveryRule::default()).unwrap();
        assert_eq!(r.recovered_at_s, Some(2.0));
    }

    #[test]
    fn the_mean_of_runs_recovers_only_if_each_did() {
        let a = Recovery {
            trigger_end_s: 4.0,
            baseline_per_s: 100.0,
            recovered_at_s: Some(6.0),
            watched_s: 6.0,
        };
        let b = Recovery {
            recovered_at_s: Some(8.0),
            ..a
        };
        assert_eq!(Recovery::mean(&[a, b]).unwrap().recovery_s(), Some(3.0));
        let c = Recovery {
            recovered_at_s: None,
            ..a
        };
        assert!(!Recovery::mean(&[a, c]).unwrap().recovered());
    }
}
