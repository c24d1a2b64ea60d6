//! An exercise's answer (a lesson's question, or a link's own `ask`), read by the core's
//! [`retry_model::answer`] from what the page computed for the link on screen: side A's run,
//! the sweep's rows, the traced request, the analytic twin's mixing time. Pure, so it is tested
//! natively; the numbers and the words are the core's, the same `retrylab answer` prints.

use crate::sweepplan::Plan;
use retry_model::sim::Summary;
use retry_model::{Answer, Figures, Said, SweepFigures, Trace};

/// The answer as the page shows it and as a guess is compared with it.
pub fn answer(
    ask: Answer,
    unit: &str,
    run: Option<&Summary>,
    sweep: Option<(&Plan, &[Summary])>,
    trace: &Trace,
    mixing_s: Option<f64>,
) -> Option<Said> {
    let sweep = sweep.map(|(plan, rows)| SweepFigures {
        axes: &plan.axes,
        values: &plan.values,
        rows,
    });
    retry_model::answer(
        ask,
        unit,
        &Figures {
            run,
            sweep,
            trace: Some(trace),
            mixing_s,
        },
    )
}

/// Where an answer's figure is on the page, as element ids in the order tried (the first one
/// in view is the one the page scrolls to once the guess is committed): a comparison's table
/// before a run's tiles, the sweep's table, the traced request's steps, the analytic twin.
pub fn answer_figure(ask: Answer) -> &'static [&'static str] {
    match ask {
        Answer::Run(_) => &["compare-section", "run-summary", "tree-section"],
        Answer::Least(_) | Answer::Most(_) | Answer::Helps(_) | Answer::Same(_) => {
            &["sweep-summary", "sweep-section"]
        }
        Answer::RemainingAt(_) | Answer::Made(_) => &["trace-steps", "trace-view"],
        Answer::OutlastsMixing => &["analytic-section", "run-summary"],
    }
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
    use retry_model::{Lesson, Params};

    fn answer_of(
        l: &Lesson,
        run: Option<&Summary>,
        sweep: Option<(&Plan, &[Summary])>,
        t: &Trace,
        mixing_s: Option<f64>,
    ) -> Option<(String, String)> {
        answer(l.answer.unwrap(), l.unit, run, sweep, t, mixing_s).map(|s| (s.shown, s.compared))
    }

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
        assert_eq!(answer_of(&l, None, None, &t, None).unwrap().0, "3600 ms");
        let (l, _, t) = open("fit-700ms");
        assert_eq!(answer_of(&l, None, None, &t, None).unwrap().1, "no");
        let (l, p, t) = open("layers-three");
        let s = retry_model::sim::simulate(&p).unwrap().summary;
        let (shown, cmp) = answer_of(&l, Some(&s), None, &t, None).unwrap();
        assert_eq!(shown, "27 calls");
        assert!(Lesson::right(&cmp, "", "27"));
        assert_eq!(
            answer_of(&l, None, None, &t, None),
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
            answer_of(&l, None, Some((&plan, &rows)), &t, None)
                .unwrap()
                .1,
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
        let (shown, word) = answer_of(&l, Some(&s), None, &t, Some(mixing)).unwrap();
        assert_eq!(word, if r > mixing { "yes" } else { "no" });
        assert_eq!(
            shown,
            format!(
                "{word} (the run recovered {} s after the trigger ended; the chain's mixing time is {} s)",
                retry_model::sig3(r),
                retry_model::sig3(mixing)
            )
        );
        // The answer follows the two figures: a chain that mixed slower than the run recovered
        // says no; without the chain (or the run) there is no answer yet.
        assert_eq!(
            answer_of(&l, Some(&s), None, &t, Some(r + 1.0)).unwrap().1,
            "no"
        );
        assert_eq!(answer_of(&l, Some(&s), None, &t, None), None);
        assert_eq!(answer_of(&l, None, None, &t, Some(mixing)), None);
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
        answer_of(&l, None, Some((&plan, &rows)), &t, None).unwrap()
    }

    #[test]
    fn the_cheat_sheets_four_statements_hold_in_the_lab() {
        // 1: immediate and no-jitter exponential tie (5000 attempts each).
        assert_eq!(
            swept("burst-immediate"),
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
            "slow=1 (p999_ms: 502 ms with hedge=off, 27 ms with hedge=on)"
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
            answer_of(&l, None, Some((&plan, &rows)), &t, None)
                .unwrap()
                .1,
            "2"
        );
    }

    #[test]
    fn the_phase_boundary_lesson_is_answered_in_words() {
        let (l, p, t) = open("phase-boundary");
        let s = retry_model::sim::simulate(&p).unwrap().summary;
        let (shown, cmp) = answer_of(&l, Some(&s), None, &t, None).unwrap();
        assert_eq!((shown.as_str(), cmp.as_str()), ("no", "no"));
        assert!(Lesson::right(&cmp, "", "No"));
        assert!(!Lesson::right(&cmp, "", "yes"));
    }
}
