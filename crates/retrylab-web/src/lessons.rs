//! A lesson's answer, read from what the page computed for the link on screen: a run's metric
//! (side A), the swept key's value with the least of a metric, or the traced request's numbers.
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
) -> Option<(String, String)> {
    match lesson.answer? {
        Answer::Run(m) => {
            let s = run?;
            let v = m.value(s)?;
            Some((m.text(s), format!("{v}")))
        }
        Answer::Least(m) => {
            let (plan, rows) = sweep?;
            let best = plan
                .values
                .iter()
                .zip(rows)
                .filter_map(|(vals, s)| Some((vals.first()?, m.value(s)?)))
                .min_by(|a, b| a.1.total_cmp(&b.1))?;
            Some((
                format!("{} ({} {})", best.0, best.1, m.name()),
                best.0.clone(),
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
        assert_eq!(answer(&l, None, None, &t).unwrap().0, "3600 ms");
        let (l, _, t) = open("fit-700ms");
        assert_eq!(answer(&l, None, None, &t).unwrap().1, "no");
        let (l, p, t) = open("stack-27");
        let s = retry_model::sim::simulate(&p).unwrap().summary;
        let (shown, cmp) = answer(&l, Some(&s), None, &t).unwrap();
        assert_eq!(shown, "27.00x");
        assert!(Lesson::right(&cmp, "27"));
        assert_eq!(answer(&l, None, None, &t), None, "no run yet, no answer");
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
            answer(&l, None, Some((&plan, &rows)), &t).unwrap().1,
            "full"
        );
    }
}
