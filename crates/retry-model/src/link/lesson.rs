//! Lessons: the presets grouped as the lessons they illustrate, each with what to look for
//! and, where it fits, a question to answer before the run is shown (predict, then run).
//!
//! A lesson is a link: its settings (`link`, link text as a preset's are) plus `lesson=<id>`,
//! and the reader's guess as `guess=<value>`. The answer is never written down here: it is read
//! from what the lab computes for the link on screen ([`Answer`]), so a reader who changes a
//! setting sees the answer for the settings they chose.
//!
//! ```
//! use retry_model::{Lesson, Params};
//! let l = Lesson::from_id("layers-three").unwrap();
//! let p: Params = format!("{}&lesson={}&guess=9", l.link, l.id).parse().unwrap();
//! assert_eq!(p.lesson, Some(l));
//! assert_eq!(p.guess.as_deref(), Some("9"));
//! assert_eq!(p.to_string(), "v=2&preset=layers-333&lesson=layers-three&guess=9");
//! ```

use crate::sim::Metric;
use alloc::format;
use alloc::string::String;

/// Where a question's answer comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A summary metric of the run (side A of a comparison), as a number.
    Run(Metric),
    /// The value of the swept key whose row has the least of this metric.
    Least(Metric),
    /// The value of the swept key whose row has the most of this metric.
    Most(Metric),
    /// In a sweep of two keys whose second is a switch (`sweep.hedge=off,on`): the value of the
    /// first key where turning the second from its first value to its last lowers this metric
    /// by the largest factor (where the switch helps most).
    Helps(Metric),
    /// Whether every row of the sweep has the same value of this metric: `yes` or `no`.
    Same(Metric),
    /// How much of the deadline remains when this attempt (from 1) starts, in ms.
    RemainingAt(u32),
    /// Whether this attempt (from 1) is made: `yes` or `no`.
    Made(u32),
    /// Whether the run (side A) takes longer to recover after its trigger than its queue's
    /// analytic twin takes to mix (`retrylab analyze`'s `mixing_s`): `yes` or `no`; a run that
    /// never recovers takes longer.
    OutlastsMixing,
}

impl Answer {
    /// The answer's link text (the `ask` key): a metric's name for a run's figure
    /// (`amplification`), `least:<metric>`, `most:<metric>`, `helps:<metric>` and `same:<metric>`
    /// over a sweep's rows, `remaining_at:<n>` and `made:<n>` for the traced request, and
    /// `outlasts_mixing`.
    pub fn text(self) -> String {
        match self {
            Answer::Run(m) => String::from(m.name()),
            Answer::Least(m) => format!("least:{}", m.name()),
            Answer::Most(m) => format!("most:{}", m.name()),
            Answer::Helps(m) => format!("helps:{}", m.name()),
            Answer::Same(m) => format!("same:{}", m.name()),
            Answer::RemainingAt(n) => format!("remaining_at:{n}"),
            Answer::Made(n) => format!("made:{n}"),
            Answer::OutlastsMixing => String::from("outlasts_mixing"),
        }
    }

    /// Reads [`Answer::text`]; the error says what is accepted.
    pub fn parse(v: &str) -> Result<Answer, String> {
        let metric = |name: &str| {
            Metric::from_name(name).ok_or_else(|| {
                format!(
                    "'{}' is not a metric: accepted {}",
                    crate::retry::text::shorten(name),
                    Metric::names()
                )
            })
        };
        let attempt = |n: &str| match n.parse::<u32>() {
            Ok(n) if (1..=crate::retry::policy::MAX_ATTEMPTS).contains(&n) => Ok(n),
            _ => Err(format!(
                "'{}' is not an attempt number in [1, {}]",
                crate::retry::text::shorten(n),
                crate::retry::policy::MAX_ATTEMPTS
            )),
        };
        Ok(match v.split_once(':') {
            None if v == "outlasts_mixing" => Answer::OutlastsMixing,
            None => Answer::Run(metric(v)?),
            Some(("least", m)) => Answer::Least(metric(m)?),
            Some(("most", m)) => Answer::Most(metric(m)?),
            Some(("helps", m)) => Answer::Helps(metric(m)?),
            Some(("same", m)) => Answer::Same(metric(m)?),
            Some(("remaining_at", n)) => Answer::RemainingAt(attempt(n)?),
            Some(("made", n)) => Answer::Made(attempt(n)?),
            Some((other, _)) => {
                return Err(format!(
                    "'{}:' is not a kind of answer: accepted least:, most:, helps:, same:, remaining_at:, made:",
                    crate::retry::text::shorten(other)
                ))
            }
        })
    }

    /// What the answer needs from the link, if the link lacks it: a run's figure needs a
    /// scenario, a row's needs a sweep (`helps:` one of two keys).
    pub fn needs(self, scenario: bool, swept_keys: usize) -> Option<&'static str> {
        let (run, rows, two) = match self {
            Answer::Run(_) | Answer::OutlastsMixing => (true, false, false),
            Answer::Least(_) | Answer::Most(_) | Answer::Same(_) => (false, true, false),
            Answer::Helps(_) => (false, true, true),
            Answer::RemainingAt(_) | Answer::Made(_) => (false, false, false),
        };
        if run && !scenario {
            Some("asks for a run's figure, and this link runs no scenario (set scenario or a preset)")
        } else if run && swept_keys > 0 {
            Some("asks for one run's figure, and this link sweeps: ask least:, most: or same: and a metric")
        } else if two && swept_keys < 2 {
            Some("asks where the second swept key helps most, and needs a sweep of two keys")
        } else if rows && swept_keys == 0 {
            Some("asks for a sweep's row, and this link sweeps nothing (add a sweep.<key>)")
        } else {
            None
        }
    }

    /// The unit a number answer is given in ("" for a word).
    pub fn unit(self) -> &'static str {
        match self {
            Answer::Run(m) => match m {
                Metric::Amplification => "attempts per original",
                Metric::SuccessRate => "%",
                Metric::CompletionMs | Metric::P50Ms | Metric::P99Ms | Metric::P999Ms => "ms",
                Metric::PeakAttemptsPerS => "attempts/s",
                Metric::RecoveryS => "s",
                Metric::Recovered => "",
                Metric::Originals => "requests",
                Metric::Attempts => "attempts",
                Metric::Successes => "requests",
                Metric::Duplicates => "charges",
            },
            Answer::RemainingAt(_) => "ms",
            Answer::Least(_)
            | Answer::Most(_)
            | Answer::Helps(_)
            | Answer::Same(_)
            | Answer::Made(_)
            | Answer::OutlastsMixing => "",
        }
    }

    /// A question in plain words for a link that asks this without saying how.
    pub fn default_question(self) -> String {
        match self {
            Answer::Run(Metric::Recovered) => String::from("Does the run recover after its trigger? (yes or no)"),
            Answer::Run(m) => format!("What is the run's {} (side A)?", m.label()),
            Answer::Least(m) => format!("Which swept value gives the least {}?", m.label()),
            Answer::Most(m) => format!("Which swept value gives the most {}?", m.label()),
            Answer::Helps(m) => format!("At which value of the first swept key does the second key lower the {} most?", m.label()),
            Answer::Same(m) => format!("Does every row give the same {}? (yes or no)", m.label()),
            Answer::RemainingAt(n) => format!("How much of the deadline remains when attempt {n} starts?"),
            Answer::Made(n) => format!("Is attempt {n} made? (yes or no)"),
            Answer::OutlastsMixing => String::from("Does the run take longer to recover than its analytic twin takes to mix? (yes or no)"),
        }
    }
}

/// The longest question a link's `q` may hold, in characters.
pub const MAX_QUESTION: usize = 300;

/// The question a link asks, from its lesson or its own `ask` and `q`: what the page hides
/// until the reader has guessed, and what `retrylab answer` answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exercise {
    /// The question, in words.
    pub question: String,
    /// Where its answer comes from.
    pub answer: Answer,
    /// The unit of a number answer ("" for none).
    pub unit: &'static str,
}

/// One lesson.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lesson {
    /// The `lesson=` value.
    pub id: &'static str,
    /// The menu's title.
    pub title: &'static str,
    /// The lesson's settings, as link text.
    pub link: &'static str,
    /// What to look for, in a sentence or two: the set-up, never the answer.
    pub look_for: &'static str,
    /// What the run shows, said once the reader has guessed ("" for nothing more).
    pub after: &'static str,
    /// The question asked before the run is shown, if any.
    pub question: Option<&'static str>,
    /// Where its answer comes from.
    pub answer: Option<Answer>,
    /// The unit of a number answer ("" for none).
    pub unit: &'static str,
}

/// Every lesson, in the menu's order.
pub static LESSONS: [Lesson; 24] = [
    Lesson {
        id: "course-project",
        title: "Course project: the payments outage, before and after",
        link: "preset=payments-none&b.preset=payments-jitter",
        look_for: "During the 5 s outage side A (no backoff, up to 1000 attempts) sends far more attempts than there are checkouts, and keeps the server saturated after it ends; side B (2 attempts, full jitter) stays close to the offered load.",
        after: "",
        question: Some("With no retry control (side A), how many attempts does each checkout make on average?"),
        answer: Some(Answer::Run(Metric::Amplification)),
        unit: "attempts per checkout",
    },
    Lesson {
        id: "course-retry-on",
        title: "Course project, exercise 1: which failures to retry",
        link: "outcomes=400,ok&attempts=3",
        look_for: "Which failures are worth a second attempt? The first attempt's outcome is set by `outcomes`; try 400, 503 or connect_timeout.",
        after: "Retry what is transient (timeouts, a dropped connection, 503, 429); a 400 will fail the same way every time, so retrying it is pure waste.",
        question: Some("The first attempt gets 400 Bad Request. Is attempt 2 made? (yes or no)"),
        answer: Some(Answer::Made(2)),
        unit: "",
    },
    Lesson {
        id: "course-base",
        title: "Course project, exercise 2: base from 100 ms to 2 s",
        link: "preset=payments-jitter&sweep.base=100ms..2000ms/100ms",
        look_for: "How amplification and the success rate move as the first wait grows, against the same 5 s outage.",
        after: "",
        question: None,
        answer: None,
        unit: "",
    },
    Lesson {
        id: "course-budget",
        title: "Course project, exercise 3: an aggregate retry budget",
        link: "preset=payments-none&budget=ratio&b.preset=payments-none",
        look_for: "Side A is the storm with a retry budget that allows retries up to 20% of the traffic; side B is the storm without it. The budget caps the storm whatever the per-request limit says.",
        after: "",
        question: Some("With the budget (side A), how many attempts does each checkout make on average?"),
        answer: Some(Answer::Run(Metric::Amplification)),
        unit: "attempts per checkout",
    },
    Lesson {
        id: "burst-lab",
        title: "Cheat sheet: the burst lab, five kinds of backoff",
        link: "preset=burst-lab&sweep.backoff=none,exponential,full,equal,decorrelated&sweep.plot=completion_ms,attempts",
        look_for: "500 clients at once against a small server, with five kinds of backoff: compare the attempts and the completion time of each.",
        after: "Without jitter the clients retry in lockstep; jitter spreads them so the server can keep up.",
        question: Some("Which kind of backoff makes the fewest attempts?"),
        answer: Some(Answer::Least(Metric::Attempts)),
        unit: "",
    },
    Lesson {
        id: "burst-immediate",
        title: "Cheat sheet, statement 1: immediate retries against exponential without jitter",
        link: "preset=burst-lab&sweep.backoff=none,exponential&sweep.plot=attempts,success_rate",
        look_for: "500 clients at once against a small server: compare the two rows' attempts and success.",
        after: "Both send every client's attempts in the same ticks: 500 refusals at 0.1 slot each use the tick's 50 slots, so nobody is served, wave after identical wave. Waiting longer between identical waves changes when they end, not what they do.",
        question: Some("Do immediate retries and exponential backoff without jitter make exactly the same number of attempts (yes or no)?"),
        answer: Some(Answer::Same(Metric::Attempts)),
        unit: "",
    },
    Lesson {
        id: "burst-free-refusals",
        title: "Cheat sheet, statement 2: refusals that cost nothing",
        link: "preset=burst-lab&reject_cost=0&sweep.backoff=none,exponential,full,equal,decorrelated&sweep.plot=completion_ms,attempts",
        look_for: "With reject_cost=0 a refusal uses no capacity: compare the completion chart with the attempts chart.",
        after: "Retrying at once no longer starves the server, while jitter still makes fewer calls.",
        question: Some("With free refusals, which kind finishes the burst first?"),
        answer: Some(Answer::Least(Metric::CompletionMs)),
        unit: "",
    },
    Lesson {
        id: "burst-capacity",
        title: "Cheat sheet, statement 3: twice the capacity",
        link: "preset=burst-lab&capacity=10000&sweep.backoff=none,exponential,full,equal,decorrelated&sweep.plot=completion_ms,attempts",
        look_for: "The server now takes 100 per 10 ms tick: compare the completion chart with the attempts chart.",
        after: "At 100 per tick the server can refuse every wave and still serve: the collapse needed refusals to use all of a tick. Jitter still makes fewer calls.",
        question: Some("With 100 per tick, which kind finishes the burst first?"),
        answer: Some(Answer::Least(Metric::CompletionMs)),
        unit: "",
    },
    Lesson {
        id: "jitter-loser",
        title: "Cheat sheet, statement 4: three kinds of jitter",
        link: "preset=occ-2015&sweep.backoff=full,equal,decorrelated&sweep.plot=completion_ms,attempts",
        look_for: "Brooker's setting: 100 clients updating one row, three kinds of jitter. Look at both charts for each kind.",
        after: "Brooker calls equal jitter the loser and full against decorrelated less clear: one kind is slowest, and the other two trade calls for time.",
        question: Some("Of the three jittered kinds, which takes longest to finish?"),
        answer: Some(Answer::Most(Metric::CompletionMs)),
        unit: "",
    },
    Lesson {
        id: "deadline-walk",
        title: "Book chapter: a 10 s deadline, attempt by attempt",
        link: "preset=chapter",
        look_for: "Each attempt's timeout is the smaller of its ceiling and what remains of the deadline; the remaining time is the arithmetic to follow.",
        after: "",
        question: Some("How much of the 10 s deadline remains when attempt 3 starts?"),
        answer: Some(Answer::RemainingAt(3)),
        unit: "ms",
    },
    Lesson {
        id: "fit-700ms",
        title: "Guide: 700 ms left, does the retry fit?",
        link: "preset=guide-700ms",
        look_for: "The client checks before sleeping: the wait, the next attempt's timeout and the reserve must all fit in what remains.",
        after: "",
        question: Some("Is attempt 2 made? (yes or no)"),
        answer: Some(Answer::Made(2)),
        unit: "",
    },
    Lesson {
        id: "layers-three",
        title: "Guide: 3 attempts at 3 layers",
        link: "preset=layers-333",
        look_for: "Each layer retries the one below. Step through the tree.",
        after: "The calls multiply level by level: 3 x 3 x 3.",
        question: Some("When the bottom dependency is down, how many calls reach it for one click?"),
        answer: Some(Answer::Run(Metric::Amplification)),
        unit: "calls",
    },
    Lesson {
        id: "layers-sre",
        title: "SRE book: \"3 retries\" at 3 layers",
        link: "preset=layers-333&layers=4,4,4",
        look_for: "The SRE book's \"3 retries\" at each of 3 layers. Step through the tree.",
        after: "\"3 retries\" is 4 attempts: 4 x 4 x 4.",
        question: Some("How many calls reach the bottom dependency for one click?"),
        answer: Some(Answer::Run(Metric::Amplification)),
        unit: "calls",
    },
    Lesson {
        id: "layers-five",
        title: "Five layers of 3 attempts",
        link: "preset=layers-333&layers=3,3,3,3,3",
        look_for: "Five layers, each making up to 3 attempts. Step through the tree.",
        after: "Every layer you add multiplies the worst case again; retrying at one layer only brings it back to 3.",
        question: Some("How many calls reach the bottom dependency for one click?"),
        answer: Some(Answer::Run(Metric::Amplification)),
        unit: "calls",
    },
    Lesson {
        id: "occ-2015",
        title: "The 2015 study at 100 clients",
        link: "preset=occ-2015&sweep.backoff=none,exponential,full,equal,decorrelated",
        look_for: "Optimistic concurrency on one row: 100 clients, five kinds of backoff. Compare the write calls and the completion time.",
        after: "No backoff finishes fast with many wasted writes, exponential without jitter takes far longer, jitter does both well.",
        question: Some("Which kind makes the fewest write calls?"),
        answer: Some(Answer::Least(Metric::Attempts)),
        unit: "",
    },
    Lesson {
        id: "metastable",
        title: "Metastability: a 1 s outage that does not end",
        link: "preset=metastable-none&b.preset=metastable-budget",
        look_for: "Side A retries at once with no limit; side B has a retry budget. Watch both after the 1 s outage ends.",
        after: "Side A's retries alone fill the server after the outage ends. Side B's retry budget lets it recover.",
        question: Some("After the 1 s outage, what share of side A's requests succeed?"),
        answer: Some(Answer::Run(Metric::SuccessRate)),
        unit: "%",
    },
    Lesson {
        id: "metastable-queue",
        title: "Metastability in a queue: the trigger ends, the collapse stays",
        link: "preset=queue-spike-none&b.preset=queue-spike-lifo",
        look_for: "The shaded band is the trigger, a 5 s load spike. Side A serves first in, first out; side B serves the newest first. Watch both after the spike ends.",
        after: "Side A's queue stays full after the spike, every answer comes after its 1 s timeout, and the retries of those timeouts are the sustaining effect. Side B serves the newest first and recovers.",
        question: Some("After the spike, what share of side A's requests succeed?"),
        answer: Some(Answer::Run(Metric::SuccessRate)),
        unit: "%",
    },
    Lesson {
        id: "idempotency",
        title: "Lost responses without an idempotency key",
        link: "preset=lost-nokey",
        look_for: "A lost answer looks like a failure; retrying it charges again. The chart beside the timeline runs the same link with a key.",
        after: "",
        question: Some("How many duplicate charges in the run's 1200 checkouts?"),
        answer: Some(Answer::Run(Metric::Duplicates)),
        unit: "charges",
    },
    Lesson {
        id: "hedging",
        title: "Hedging: a long tail, then a slow-down",
        link: "preset=hedge-overload&sweep.slow=1,2&sweep.hedge=off,on&sweep.plot=p999_ms,success_rate,peak_attempts_per_s",
        look_for: "One queue, hedged after 15 ms. At slow=1 one answer in 200 takes 500 ms; at slow=2 every answer takes 20 ms for 10 s. Compare the p99.9 lines.",
        after: "At slow=1 a second attempt rarely goes, and when it does it wins. At slow=2 every answer is slower than the hedging delay, so every request sends two attempts: twice the load on a queue that was coping alone.",
        question: Some("Hedging is one line, no hedging the other. At which slow-down factor does hedging cut the p99.9 latency: 1 or 2?"),
        answer: Some(Answer::Helps(Metric::P999Ms)),
        unit: "",
    },
    Lesson {
        id: "phase-boundary",
        title: "Metastability: which side of the boundary?",
        link: "preset=queue-spike-none&rate=70&spike_start=10s&spike_rate=60&spike_for=4s",
        look_for: "A queue at 70% with 1 s timeouts and two immediate retries, hit at 10 s by 60 extra requests a second for 4 s. It survives small or short spikes and stays down after large or long ones. Then open ?preset=phase-spike: this run is one cell of that phase plot, next to the boundary.",
        after: "",
        question: Some("After this spike, does the queue recover? (yes or no)"),
        answer: Some(Answer::Run(Metric::Recovered)),
        unit: "",
    },
    Lesson {
        id: "phase-chance",
        title: "Metastability by chance: a spike on the boundary",
        link: "scenario=outage&attempt_timeout=1s&attempts=3&backoff=none&idempotent=true&rate=70&outage=0ms&server=queue&workers=4&service=40ms&spike_start=10s&service_dist=exp&arrivals=poisson&spike_rate=40&spike_for=9s&runs=100",
        look_for: "The phase-boundary queue again, now with random service times and Poisson arrivals, hit by a spike that sits on the boundary: 40 extra requests a second for 9 s. The link runs it 100 times, each run from its own seed; the tiles give the means with their 95% intervals, and the runs that recovered.",
        after: "On the boundary, whether the queue recovers is a coin toss the seed decides: one run tells you nothing, and only the count over many runs, with its interval (the tile 'recovered in runs'), says how likely a collapse is. Open ?preset=phase-spike&service_dist=exp&arrivals=poisson&runs=100&sequential=true for the whole phase plot as probabilities.",
        question: Some("Of these 100 runs, each from its own seed, how many recover after the spike?"),
        answer: Some(Answer::Run(Metric::Recovered)),
        unit: "runs",
    },
    Lesson {
        id: "analytic-twin",
        title: "The analytic twin: a chain's time scale against a run",
        link: "preset=twin-spike",
        look_for: "Under the charts, the Analytic panel solves the same queue as a Markov chain over attempts at the server and requests waiting to retry: how much of the time it is congested, its mixing time (how long it takes to forget a disturbance) and how long a full queue takes to drain. The run's path is drawn over the chain: the spike pushes it into the high-queue mode. Point at a cell to read how much of the time the chain spends there, and when the run was there.",
        after: "In the chain a waiting request comes back after a random, exponential time, some of them early; the simulator's retries come back exactly one timeout later, together.",
        question: Some("The chain for this queue forgets a disturbance in about 20 s (its mixing time). After the spike ends, does the run take longer than that to recover? (yes or no)"),
        answer: Some(Answer::OutlastsMixing),
        unit: "",
    },
    Lesson {
        id: "scale-herd",
        title: "At production size: a herd of a thousand to a million clients",
        link: "scenario=burst&capacity=100000&tick=10ms&reject_cost=0.1&attempts=10&deadline=none&base=100ms&cap=30s&sweep.clients=1000,10000,100000,1000000&sweep.backoff=exponential,full",
        look_for: "A deploy drops every connection and the clients reconnect at once, against a server that takes 100,000 a second: from a thousand clients to a million, with exponential backoff and no jitter, and with full jitter. Watch the success rate and the attempts per client as the herd grows; the largest rows run as counts of requests (the population engine).",
        after: "Without jitter, once the herd outgrows what the server takes in one tick, the clients that failed together retry together, each wave as large as the last, and not one request succeeds from 10,000 clients on. Full jitter spreads each wave over its whole backoff: at 10,000 clients that is enough (2x the calls, every request served), but its price grows with the herd (4.8x at 100,000, 8.3x at a million, where the reconnect takes 35 s). Jitter decides whether the herd gets in; what it costs is the next lesson's budget.",
        question: Some("At which number of clients does full jitter, against exponential backoff without it, cut the attempts per client by the largest factor? (1000, 10000, 100000 or 1000000)"),
        answer: Some(Answer::Helps(Metric::Amplification)),
        unit: "",
    },
    Lesson {
        id: "scale-budget",
        title: "At production size: a retry budget's share against a fixed number of retries",
        link: "scenario=burst&capacity=100000&tick=10ms&reject_cost=0.1&attempts=4&deadline=none&backoff=full&base=100ms&cap=30s&sweep.clients=1000,10000,100000,1000000&sweep.budget=none,ratio",
        look_for: "The same reconnect with up to 4 attempts each, without a budget and with a ratio budget (retries at most 20% of the calls plus 10 a second). Watch the attempts per client as the number of clients grows a thousandfold: without a budget the herd's retries grow with it; the budget's share keeps them to a fifth of the calls at every size.",
        after: "A fixed number of retries is a promise per request: at a thousand clients the server absorbs it, at a million every client spends all of them. A ratio budget is a promise per process: retries may be a fifth of the calls, whatever the number of callers, so the load it allows grows with the traffic and never with the failures.",
        question: Some("At which number of clients does the ratio budget, against no budget, cut the attempts per client by the largest factor? (1000, 10000, 100000 or 1000000)"),
        answer: Some(Answer::Helps(Metric::Amplification)),
        unit: "",
    },
];

/// The lesson menu: `(id, title)`, as the `lesson` key's accepted values.
pub static MENU: [(&str, &str); LESSONS.len()] = {
    let mut m = [("", ""); LESSONS.len()];
    let mut i = 0;
    while i < LESSONS.len() {
        m[i] = (LESSONS[i].id, LESSONS[i].title);
        i += 1;
    }
    m
};

/// Old lesson ids, whose numbers gave the answer away, and the ids they open now: every old
/// link keeps opening its lesson.
pub const ALIASES: [(&str, &str); 4] = [
    ("burst-tie", "burst-immediate"),
    ("stack-27", "layers-three"),
    ("sre-64", "layers-sre"),
    ("brooker-243", "layers-five"),
];

/// The id `id` stands for: itself, or the lesson an old id was renamed to.
pub fn canonical_id(id: &str) -> &str {
    ALIASES
        .iter()
        .find(|(old, _)| *old == id)
        .map_or(id, |(_, new)| *new)
}

impl Lesson {
    /// The lesson with this id (an old id included, see `ALIASES`).
    pub fn from_id(id: &str) -> Option<Lesson> {
        let id = canonical_id(id);
        LESSONS.into_iter().find(|l| l.id == id)
    }

    /// Whether `guess` matches `answer` in `unit`: see [`crate::judge`].
    pub fn right(answer: &str, unit: &str, guess: &str) -> bool {
        super::guess::judge(answer, unit, guess)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Params;

    #[test]
    fn every_lesson_link_opens_and_names_itself() {
        for l in LESSONS {
            let p: Params = format!("{}&lesson={}", l.link, l.id)
                .parse()
                .unwrap_or_else(|e| panic!("{}: {e}", l.id));
            assert_eq!(p.lesson, Some(l));
            assert_eq!(l.question.is_some(), l.answer.is_some(), "{}", l.id);
        }
        assert_eq!(MENU[0].0, "course-project");
    }

    /// An old lesson id, whose number gave the answer away, still opens its lesson, and the
    /// link the lab writes names the new id.
    #[test]
    fn an_old_lesson_id_opens_its_lesson_under_its_new_id() {
        for (old, new) in ALIASES {
            let p: Params = format!("lesson={old}").parse().unwrap();
            assert_eq!(p.lesson.map(|l| l.id), Some(new));
            assert!(p.to_string().contains(&format!("lesson={new}")), "{p}");
            assert!(!new.chars().any(|c| c.is_ascii_digit()), "{new}");
        }
    }

    /// `ask=recovered` on a run with nothing to recover from is refused by key, not answered `-`.
    #[test]
    fn asking_about_recovery_needs_a_trigger() {
        let e = "scenario=outage&outage=0ms&ask=recovered"
            .parse::<Params>()
            .unwrap_err();
        assert_eq!(e.field, "ask");
        assert!(e.rule.contains("nothing to recover from"), "{e}");
        assert!("preset=metastable-none&ask=recovered"
            .parse::<Params>()
            .is_ok());
        assert!(
            "scenario=outage&outage=0ms&spike_rate=60&spike_start=5s&spike_for=2s&ask=recovery_s"
                .parse::<Params>()
                .is_ok()
        );
    }

    #[test]
    fn a_guess_needs_a_lesson_and_is_checked() {
        let e = "guess=3".parse::<Params>().unwrap_err();
        assert_eq!(e.field, "guess");
        assert!("lesson=layers-three&preset=layers-333&guess=a%3Cb"
            .parse::<Params>()
            .is_err());
        let none: Params = "preset=layers-333&lesson=layers-three&guess=none"
            .parse()
            .unwrap();
        assert_eq!(none.guess, None, "guess=none is no guess, as the default");
        assert_eq!(
            none.to_string(),
            "v=2&preset=layers-333&lesson=layers-three"
        );
        assert!(Lesson::right("27", "", "27"));
        assert!(Lesson::right("194.80", "", "190"));
        assert!(!Lesson::right("194.80", "", "100"));
        assert!(Lesson::right("full", "", " Full"));
        assert!(!Lesson::right("full", "", "equal"));
    }

    #[test]
    fn a_bare_lesson_link_opens_the_lessons_own_set_up() {
        for l in LESSONS {
            let picked: Params = format!("{}&lesson={}", l.link, l.id).parse().unwrap();
            let bare: Params = format!("lesson={}", l.id).parse().unwrap();
            assert_eq!(bare.to_string(), picked.to_string(), "{}", l.id);
            if l.question.is_none() {
                continue;
            }
            let guessed: Params = format!("lesson={}&guess=7", l.id)
                .parse()
                .unwrap_or_else(|e| panic!("{}: {e}", l.id));
            assert_eq!(guessed.guess.as_deref(), Some("7"));
            assert_eq!(guessed.sim, picked.sim, "{}", l.id);
        }
        // A lesson link with settings of its own keeps them: it is not bare; nor is a link the
        // lab wrote (with `v`), whose settings are all written.
        let own: Params = "lesson=layers-three&seed=5".parse().unwrap();
        assert_eq!(own.preset, None);
        assert_eq!(own.seed, 5);
        let written: Params = "v=2&lesson=layers-three".parse().unwrap();
        assert_eq!(written.preset, None);
        assert_eq!(written.to_string(), "v=2&lesson=layers-three");
    }

    #[test]
    fn every_answer_reads_back_from_its_link_text() {
        let mut all = alloc::vec![
            Answer::RemainingAt(3),
            Answer::Made(2),
            Answer::OutlastsMixing
        ];
        for m in Metric::ALL {
            all.extend([
                Answer::Run(m),
                Answer::Least(m),
                Answer::Most(m),
                Answer::Helps(m),
                Answer::Same(m),
            ]);
        }
        for a in all {
            assert_eq!(Answer::parse(&a.text()), Ok(a), "{}", a.text());
        }
        for bad in [
            "",
            "amp",
            "least:",
            "fewest:attempts",
            "made:0",
            "made:x",
            "remaining_at:1001",
        ] {
            assert!(Answer::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn ask_turns_any_link_into_an_exercise_where_it_can_be_answered() {
        let p: Params = "preset=payments-none&ask=success_rate&q=What%20share%20succeeds%3F"
            .parse()
            .unwrap();
        let ex = p.exercise().unwrap();
        assert_eq!(ex.question, "What share succeeds?");
        assert_eq!(
            (ex.answer, ex.unit),
            (Answer::Run(Metric::SuccessRate), "%")
        );
        assert_eq!(
            p.to_string(),
            "v=2&preset=payments-none&ask=success_rate&q=What%20share%20succeeds%3F"
        );
        // Without q the question is worded from the metric.
        let p: Params = "preset=chapter&ask=made:2".parse().unwrap();
        assert_eq!(
            p.exercise().unwrap().question,
            "Is attempt 2 made? (yes or no)"
        );
        // ask overrides a lesson's own question.
        let p: Params = "preset=layers-333&lesson=layers-three&ask=success_rate"
            .parse()
            .unwrap();
        assert_eq!(
            p.exercise().unwrap().answer,
            Answer::Run(Metric::SuccessRate)
        );
        for (link, field, words) in [
            ("ask=amplification", "ask", "runs no scenario"),
            (
                "preset=payments-none&ask=least:attempts",
                "ask",
                "sweeps nothing",
            ),
            (
                "preset=burst-lab&sweep.backoff=none,full&ask=attempts",
                "ask",
                "this link sweeps",
            ),
            (
                "preset=burst-lab&sweep.backoff=none,full&ask=helps:attempts",
                "ask",
                "two keys",
            ),
            ("preset=payments-none&q=Why", "q", "without ask"),
            (
                "preset=payments-none&ask=attempts&q=a%0Ab",
                "q",
                "plain text",
            ),
            (
                "preset=payments-none&guess=3",
                "guess",
                "without a question",
            ),
        ] {
            let e = link.parse::<Params>().unwrap_err();
            assert_eq!(e.field, field, "{link}: {e}");
            assert!(e.to_string().contains(words), "{link}: {e}");
        }
        let long = "x".repeat(MAX_QUESTION + 1);
        let e = format!("preset=payments-none&ask=attempts&q={long}")
            .parse::<Params>()
            .unwrap_err();
        assert_eq!(e.field, "q");
        assert!(
            e.to_string().contains("at most 300 characters, got 301"),
            "{e}"
        );
    }
}
