//! A lesson's answer, read from what the page computed for the link on screen: a run's metric
//! (side A), the swept key's value with the least of a metric, the traced request's numbers, or
//! a run's recovery beside its analytic twin's mixing time.
//! Pure, so it is tested natively; the numbers are the core's.

use crate::sweepplan::Plan;
use retry_model::sim::Summary;
use retry_model::{Answer, Lesson, Trace};

/// The answer as the page shows it and as a guess is compared with it: (shown, compared).
pub fn answer(
    lesson: &Lesson,
    run: Option<&Summary>,
    sweep: Option<(&Plan, &[Summary])>,
    trace: &Trace,
    mixing_s: Option<f64>,
) -> Option<(String, String)> {
    match lesson.answer? {
        Answer::OutlastsMixing => outlasts(run?, mixing_s?),
        Answer::Run(m) => {
            let s = run?;
            let v = m.value(s)?;
            // A yes-or-no metric is compared in words.
            let compared = if m == retry_model::sim::Metric::Recovered {
                m.text(s)
            } else {
                format!("{v}")
            };
            Some((m.text(s), compared))
        }
        Answer::Least(m) => extreme(m, sweep?, core::cmp::Ordering::Less),
        Answer::Most(m) => extreme(m, sweep?, core::cmp::Ordering::Greater),
        Answer::Helps(m) => helps(m, sweep?),
        Answer::Same(m) => {
            let (_, rows) = sweep?;
            let vals: Vec<f64> = rows.iter().filter_map(|s| m.value(s)).collect();
            let first = *vals.first()?;
            let same = if vals.iter().all(|v| *v == first) {
                "yes"
            } else {
                "no"
            };
            let list: Vec<String> = rows.iter().map(|s| m.text(s)).collect();
            Some((
                format!("{same} ({}: {})", m.name(), list.join(", ")),
                same.to_string(),
            ))
        }
        Answer::RemainingAt(n) => {
            let r = trace.steps.get(n as usize - 1)?.plan.remaining?;
            let ms = r.as_millis_f64();
            Some((format!("{ms} ms"), format!("{ms}")))
        }
        Answer::Made(n) => {
            let made = if trace.steps.len() >= n as usize {
                "yes"
            } else {
                "no"
            };
            Some((made.to_string(), made.to_string()))
        }
    }
}

/// Whether `run` took longer to recover after its trigger than `mixing_s` (a run that never
/// recovered did), with both figures.
fn outlasts(run: &Summary, mixing_s: f64) -> Option<(String, String)> {
    let rec = run.recovery?;
    let (longer, said) = match rec.recovery_s() {
        Some(r) => (
            r > mixing_s,
            format!("the run recovered {r:.1} s after the trigger ended"),
        ),
        None => (true, "the run had not recovered when it ended".to_string()),
    };
    let word = if longer { "yes" } else { "no" };
    Some((
        format!("{word} ({said}; the chain's mixing time is {mixing_s:.1} s)"),
        word.to_string(),
    ))
}

/// The swept value whose row has the least (`Less`) or the most (`Greater`) of `m`; the first
/// such row on a tie.
fn extreme(
    m: retry_model::sim::Metric,
    (plan, rows): (&Plan, &[Summary]),
    want: core::cmp::Ordering,
) -> Option<(String, String)> {
    let best = plan
        .values
        .iter()
        .zip(rows)
        .filter_map(|(vals, s)| Some((vals.first()?, m.value(s)?)))
        .reduce(|a, b| if b.1.total_cmp(&a.1) == want { b } else { a })?;
    Some((
        format!("{} ({} {})", best.0, best.1, m.name()),
        best.0.clone(),
    ))
}

/// The first swept key's value where the second key's last value lowers `m` by the largest
/// factor against its first value (`hedge` from off to on); the first such value on a tie.
fn helps(
    m: retry_model::sim::Metric,
    (plan, rows): (&Plan, &[Summary]),
) -> Option<(String, String)> {
    let lines = &plan.axes.get(1)?.values;
    let (off, on) = (lines.first()?, lines.last()?);
    let at = |x: &String, line: &String| {
        plan.values
            .iter()
            .zip(rows)
            .find(|(v, _)| v.first() == Some(x) && v.get(1) == Some(line))
            .and_then(|(_, s)| Some((m.value(s)?, s)))
    };
    let best = plan.axes[0]
        .values
        .iter()
        .filter_map(|x| Some((x, at(x, off)?, at(x, on)?)))
        .filter(|(_, before, _)| before.0 > 0.0)
        .reduce(|a, b| {
            if b.2 .0 / b.1 .0 < a.2 .0 / a.1 .0 {
                b
            } else {
                a
            }
        })?;
    let (x, before, after) = best;
    let (key, line) = (plan.axes[0].key, plan.axes[1].key);
    Some((
        format!(
            "{key}={x} ({}: {} with {line}={off}, {} with {line}={on})",
            m.name(),
            m.text(before.1),
            m.text(after.1)
        ),
        x.clone(),
    ))
}

/// One line of the idempotency walk, in words.
pub fn ledger_line(step: &retry_model::sim::LostStep) -> String {
    use retry_model::sim::LostWhat;
    let t = step.t.as_millis_f64();
    let what = match step.what {
        LostWhat::Sent => format!("attempt {} sent", step.attempt),
        LostWhat::Working => format!("attempt {} reaches the endpoint, which starts a charge", step.attempt),
        LostWhat::InFlight => format!(
            "attempt {} reaches the endpoint: 409_in_flight, the key's first attempt is still working",
            step.attempt
        ),
        LostWhat::Replayed => format!(
            "attempt {} reaches the endpoint: the key's charge is made, so it replays the first answer (no new charge)",
            step.attempt
        ),
        LostWhat::Committed { charge, lost: true } => {
            format!("charge #{charge} committed on the ledger; its answer is lost")
        }
        LostWhat::Committed { charge, lost: false } => {
            format!("charge #{charge} committed on the ledger; the answer is sent")
        }
        LostWhat::TimedOut => format!("the client times out waiting for attempt {}'s answer", step.attempt),
        LostWhat::Answered(o) => format!("the client gets {o} for attempt {}", step.attempt),
        LostWhat::Ended(r) => format!("the checkout ends: {}", r.name()),
    };
    format!("t = {t} ms: {what}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use retry_model::Params;

    fn open(id: &str) -> (Lesson, Params, Trace) {
        let l = Lesson::from_id(id).unwrap();
        let p: Params = format!("{}&lesson={id}", l.link).parse().unwrap();
        let t = retry_model::trace(&p).unwrap();
        (l, p, t)
    }

    #[test]
    fn the_ledger_reads_one_charge_with_a_key_and_more_without() {
        let p: Params = "preset=lost-nokey".parse().unwrap();
        let (_, sides) = retry_model::ledger(&p).unwrap();
        let lines: Vec<String> = sides[0].steps.iter().map(ledger_line).collect();
        assert!(lines[0].ends_with("attempt 1 sent"), "{lines:?}");
        assert!(lines
            .iter()
            .any(|l| l.contains("charge #1 committed on the ledger; its answer is lost")));
        assert!(
            lines.iter().any(|l| l.contains("charge #2 committed")),
            "{lines:?}"
        );
        let keyed: Vec<String> = sides[1].steps.iter().map(ledger_line).collect();
        assert!(!keyed.iter().any(|l| l.contains("charge #2")), "{keyed:?}");
        assert!(
            keyed
                .iter()
                .any(|l| l.contains("409_in_flight") || l.contains("replays")),
            "{keyed:?}"
        );
    }

    #[test]
    fn answers_come_from_the_lab() {
        let (l, _, t) = open("deadline-walk");
        assert_eq!(answer(&l, None, None, &t, None).unwrap().0, "3600 ms");
        let (l, _, t) = open("fit-700ms");
        assert_eq!(answer(&l, None, None, &t, None).unwrap().1, "no");
        let (l, p, t) = open("stack-27");
        let s = retry_model::sim::simulate(&p).unwrap().summary;
        let (shown, cmp) = answer(&l, Some(&s), None, &t, None).unwrap();
        assert_eq!(shown, "27.00x");
        assert!(Lesson::right(&cmp, "27"));
        assert_eq!(
            answer(&l, None, None, &t, None),
            None,
            "no run yet, no answer"
        );
        let (l, p, t) = open("occ-2015");
        let plan = Plan::of(&p).unwrap().unwrap();
        let rows: Vec<Summary> = plan
            .values
            .iter()
            .map(|v| Summary {
                attempts: if v[0] == "full" { 5 } else { 9 },
                ..Summary::default()
            })
            .collect();
        assert_eq!(
            answer(&l, None, Some((&plan, &rows)), &t, None).unwrap().1,
            "full"
        );
    }

    #[test]
    fn the_twin_lesson_sets_the_runs_recovery_against_the_chains_mixing_time() {
        let (l, p, t) = open("analytic-twin");
        let s = retry_model::sim::simulate(&p).unwrap().summary;
        let Some(crate::twin::Twin::Solved(twin)) = crate::twin::twin_of(&p) else {
            panic!("twin-spike has a chain");
        };
        let mixing = twin.mixing_s.unwrap();
        assert!((19.0..21.0).contains(&mixing), "{mixing}");
        let r = s.recovery.unwrap().recovery_s().unwrap();
        let (shown, word) = answer(&l, Some(&s), None, &t, Some(mixing)).unwrap();
        assert_eq!(word, if r > mixing { "yes" } else { "no" });
        assert_eq!(
            shown,
            format!("{word} (the run recovered {r:.1} s after the trigger ended; the chain's mixing time is {mixing:.1} s)")
        );
        // The answer follows the two figures: a chain that mixed slower than the run recovered
        // says no; without the chain (or the run) there is no answer yet.
        assert_eq!(
            answer(&l, Some(&s), None, &t, Some(r + 1.0)).unwrap().1,
            "no"
        );
        assert_eq!(answer(&l, Some(&s), None, &t, None), None);
        assert_eq!(answer(&l, None, None, &t, Some(mixing)), None);
    }

    /// A sweep lesson's answer, from the rows the lab simulates for its link.
    fn swept(id: &str) -> (String, String) {
        let (l, p, t) = open(id);
        let plan = Plan::of(&p).unwrap().unwrap();
        let rows: Vec<Summary> = plan
            .links
            .iter()
            .map(|link| {
                let row: Params = link.parse().unwrap();
                retry_model::sim::simulate(&row).unwrap().summary
            })
            .collect();
        answer(&l, None, Some((&plan, &rows)), &t, None).unwrap()
    }

    #[test]
    fn the_cheat_sheets_four_statements_hold_in_the_lab() {
        // 1: immediate and no-jitter exponential tie (5000 attempts each).
        assert_eq!(
            swept("burst-tie"),
            ("yes (attempts: 5000, 5000)".into(), "yes".into())
        );
        // 2 and 3: when refusals are free, or capacity doubles, immediate retries finish first.
        assert_eq!(swept("burst-free-refusals").1, "none");
        assert_eq!(swept("burst-capacity").1, "none");
        // 4: in the 2015 setting equal jitter is the slowest jittered kind.
        assert_eq!(swept("jitter-loser").1, "equal");
        // And the burst lab itself: with costly refusals a jittered kind makes the fewest calls.
        let fewest = swept("burst-lab").1;
        assert!(
            ["full", "equal", "decorrelated"].contains(&fewest.as_str()),
            "{fewest}"
        );
    }

    #[test]
    fn hedging_helps_the_long_tail_and_not_the_slow_down() {
        let (shown, value) = swept("hedging");
        assert_eq!(value, "1", "{shown}");
        assert_eq!(
            shown,
            "slow=1 (p999_ms: 501.8 ms with hedge=off, 27.0 ms with hedge=on)"
        );
        // The answer follows the rows: had the slow-down's rows gained more, it would say 2.
        let (l, p, t) = open("hedging");
        let plan = Plan::of(&p).unwrap().unwrap();
        let rows: Vec<Summary> = plan
            .values
            .iter()
            .map(|v| Summary {
                p999_ms: Some(match (v[0].as_str(), v[1].as_str()) {
                    ("2", "on") => 10.0,
                    ("1", "on") => 400.0,
                    _ => 500.0,
                }),
                ..Summary::default()
            })
            .collect();
        assert_eq!(
            answer(&l, None, Some((&plan, &rows)), &t, None).unwrap().1,
            "2"
        );
    }

    #[test]
    fn the_phase_boundary_lesson_is_answered_in_words() {
        let (l, p, t) = open("phase-boundary");
        let s = retry_model::sim::simulate(&p).unwrap().summary;
        let (shown, cmp) = answer(&l, Some(&s), None, &t, None).unwrap();
        assert_eq!((shown.as_str(), cmp.as_str()), ("no", "no"));
        assert!(Lesson::right(&cmp, "No"));
        assert!(!Lesson::right(&cmp, "yes"));
    }
}
