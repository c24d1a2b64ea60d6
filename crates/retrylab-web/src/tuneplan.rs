//! The "Find a better policy" view's data: a `tune=on` link's search, a batch at a time (each
//! batch's links run on the workers as a sweep's rows do), and once it is over, the frontier as
//! the chart, the table and the links a reader opens. Pure, so it is tested natively; every
//! number and every sentence is the core's (`retry_model::tune`), the same `retrylab tune`
//! prints.

use crate::charts::frontier::{Frontier, FrontierPoint};
use retry_model::sim::Summary;
use retry_model::tune::{self, Scored, Search, Tuned, Weather};
use retry_model::Params;

/// A search in progress: the link it started from, its weathers, and the batch in flight.
#[derive(Clone, Debug)]
pub struct Tuning {
    /// The link without its `tune` keys.
    pub base: String,
    /// The weathers every policy runs under.
    pub weathers: Vec<Weather>,
    search: Search,
    // The batch whose links are in flight: its policies' keys.
    batch: Vec<String>,
    ask: tune::TuneAsk,
}

/// What the next step of a search is.
#[derive(Clone, Debug, PartialEq)]
pub enum TuneStep {
    /// Run these links (each policy under each weather, in order) and give back their
    /// summaries.
    Run(Vec<String>),
    /// The search is over.
    Done(TuneOutcome),
}

impl Tuning {
    /// The search a `tune=on` link asks for; the error is why it cannot run.
    pub fn of(p: &Params) -> Result<Tuning, String> {
        let (base, ask) = tune::start_of(p)?;
        let weathers = tune::weathers_of(&ask);
        for w in &weathers {
            tune::weather_link(&base, w, "", 1)
                .map_err(|e| format!("tune_weather: {} does not open: {e}", w.name))?;
        }
        Ok(Tuning {
            base,
            weathers,
            search: Search::new(p, ask.candidates as usize, ask.runs, ask.limits()),
            batch: Vec::new(),
            ask,
        })
    }

    /// The format the link keeps the search to (`tune_format`): its pool then comes from the
    /// importer's worker, which holds the exporters ([`Tuning::set_pool`]).
    pub fn format(&self) -> Option<&'static str> {
        self.ask.format_name()
    }

    /// Starts the search over `pool` (`retry_import::pool_of`'s, one policy a line).
    pub fn set_pool(&mut self, pool: &str) {
        let pool = pool.lines().map(str::to_string).collect();
        self.search = Search::over(pool, self.ask.runs, self.ask.limits());
    }

    /// How far the search is, 0 to 1.
    pub fn fraction(&self) -> f64 {
        self.search.fraction()
    }

    /// The next batch's links, or the outcome once none is left.
    pub fn next_step(&mut self) -> Result<TuneStep, String> {
        match self.search.next_batch() {
            Some((batch, runs)) => {
                let links = tune::batch_links(&self.base, &self.weathers, &batch, runs)?;
                self.batch = batch;
                Ok(TuneStep::Run(links.into_iter().map(|(l, _)| l).collect()))
            }
            None => Ok(TuneStep::Done(TuneOutcome {
                base: self.base.clone(),
                weathers: self.weathers.clone(),
                tuned: self.search.clone().finish(),
                format: self.format(),
            })),
        }
    }

    /// The summaries of the links [`Tuning::next_step`] gave, in their order.
    pub fn give(&mut self, summaries: Vec<Summary>) -> Result<(), String> {
        let w = self.weathers.len().max(1);
        if summaries.len() != self.batch.len() * w {
            return Err(format!(
                "tune: {} results for {} links",
                summaries.len(),
                self.batch.len() * w
            ));
        }
        let mut it = summaries.into_iter();
        let results = self
            .batch
            .iter()
            .map(|_| it.by_ref().take(w).collect())
            .collect();
        self.search.give(results)
    }
}

/// A finished search, as the view shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneOutcome {
    /// The link without its `tune` keys.
    pub base: String,
    /// The weathers.
    pub weathers: Vec<Weather>,
    /// The frontier and the user's own policy.
    pub tuned: Tuned,
    /// The format the search was kept to (`tune_format`), if any.
    pub format: Option<&'static str>,
}

/// A point as the chart places it: the means over the weathers.
fn placed(label: String, s: &Scored) -> FrontierPoint {
    FrontierPoint {
        label,
        success: 1.0 - s.objectives[0],
        load: s.objectives[1],
        p99_ms: (s.objectives[2] < f64::MAX).then_some(s.objectives[2]),
    }
}

impl TuneOutcome {
    /// The chart.
    pub fn frontier(&self) -> Frontier {
        let names: Vec<&str> = self.weathers.iter().map(|w| w.name.as_str()).collect();
        Frontier {
            title: format!(
                "The frontier over {}: success against attempts per original; p99 from green (short) to red (long)",
                names.join(", ")
            ),
            points: (self.tuned.frontier.iter().enumerate())
                .map(|(i, s)| placed((i + 1).to_string(), s))
                .collect(),
            yours: placed("yours".into(), &self.tuned.yours),
        }
    }

    /// Point `i` of the frontier, or the user's own past its end.
    fn point(&self, i: usize) -> &Scored {
        self.tuned.frontier.get(i).unwrap_or(&self.tuned.yours)
    }

    /// The link that opens point `i`'s policy on the user's system.
    pub fn open_link(&self, i: usize) -> String {
        tune::policy_link(&self.base, &[&self.point(i).keys])
            .map_or_else(|_| self.base.clone(), |(l, _)| l)
    }

    /// The link that compares the user's policy (side A) with point `i`'s (side B), the
    /// ladder between them included; `None` where the two cannot share a link.
    pub fn compare_link(&self, i: usize) -> Option<String> {
        let keys = &self.point(i).keys;
        if keys.is_empty() {
            return None;
        }
        let b: Vec<String> = keys.split('&').map(|kv| format!("b.{kv}")).collect();
        let link = format!("{}&{}", self.base, b.join("&"));
        link.parse::<Params>().ok().map(|p| p.to_string())
    }

    /// The table's head: the point, its policy, a column a weather, its runs.
    pub fn head(&self) -> Vec<String> {
        let mut h = vec!["#".to_string(), "policy".to_string()];
        h.extend(self.weathers.iter().map(|w| w.name.clone()));
        h.push("runs".to_string());
        h
    }

    /// The table's rows: the frontier's points, then the user's own (`yours`). A weather's
    /// cell is the CLI's, each figure on a line of its own (a phone's column is narrow).
    pub fn rows(&self) -> Vec<Vec<String>> {
        let row = |label: String, s: &Scored| {
            let mut r = vec![label, tune::policy_words(&s.keys)];
            r.extend(
                s.by_weather
                    .iter()
                    .map(|w| tune::cell(w).replace(", ", "\n")),
            );
            r.push(s.runs.to_string());
            r
        };
        let mut rows: Vec<Vec<String>> = (self.tuned.frontier.iter().enumerate())
            .map(|(i, s)| row((i + 1).to_string(), s))
            .collect();
        rows.push(row("yours".to_string(), &self.tuned.yours));
        rows
    }

    /// What the readout says of point `i` (the user's own past the frontier's end).
    pub fn readout(&self, i: usize) -> String {
        let s = self.point(i);
        let name = if i < self.tuned.frontier.len() {
            format!("#{}", i + 1)
        } else {
            "Yours".to_string()
        };
        let cells: Vec<String> = (self.weathers.iter().zip(&s.by_weather))
            .map(|(w, sm)| format!("{}: {}", w.name, tune::cell(sm)))
            .collect();
        format!(
            "{name} ({}): {}; over {} runs each.",
            tune::policy_words(&s.keys),
            cells.join("; "),
            s.runs
        )
    }

    /// The summary line: the weathers, policies tried, runs made, and where the user's policy
    /// stands.
    pub fn verdict(&self) -> String {
        let names: Vec<String> = (self.weathers.iter())
            .map(|w| format!("{} ({})", w.name, w.keys))
            .collect();
        let kept = self
            .format
            .map_or_else(String::new, |f| format!(" {}", tune::format_note(f)));
        format!(
            "Over {}: {} policies tried, {} runs made. {}{kept}",
            names.join(", "),
            self.tuned.tried,
            self.tuned.runs_made,
            self.tuned.verdict()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stepped batch by batch with each link run here, the page's search gives the frontier
    /// `retrylab tune` gives (the same `Search`), and every point's links open.
    #[test]
    fn a_search_batch_by_batch_gives_the_frontier_and_its_links() {
        let p: Params = "preset=payments-jitter&tune=on&tune_runs=2&tune_candidates=8"
            .parse()
            .unwrap();
        let mut t = Tuning::of(&p).unwrap();
        assert!(!t.base.contains("tune"), "{}", t.base);
        let mut batches = 0;
        let outcome = loop {
            match t.next_step().unwrap() {
                TuneStep::Run(links) => {
                    batches += 1;
                    let sums = links
                        .iter()
                        .map(|l| {
                            let q: Params = l.parse().unwrap();
                            retry_model::sim::simulate(&q).unwrap().summary
                        })
                        .collect();
                    t.give(sums).unwrap();
                }
                TuneStep::Done(o) => break o,
            }
        };
        assert_eq!(batches, 2, "one round at 2 runs, then the user's own");
        assert!((t.fraction() - 1.0).abs() < 1e-9);
        let f = outcome.frontier();
        assert_eq!(f.points.len(), outcome.tuned.frontier.len());
        assert!(!f.points.is_empty());
        let rows = outcome.rows();
        assert_eq!(rows.len(), f.points.len() + 1);
        assert_eq!(rows.last().unwrap()[0], "yours");
        assert!(rows.iter().all(|r| r.len() == outcome.head().len()));
        let yours = &outcome.tuned.yours.by_weather[0];
        assert_eq!(
            rows.last().unwrap()[2].replace('\n', ", "),
            tune::cell(yours)
        );
        for i in 0..f.points.len() {
            let open: Params = outcome.open_link(i).parse().unwrap();
            assert!(!open.tune.on);
            if let Some(c) = outcome.compare_link(i) {
                let c: Params = c.parse().unwrap();
                assert!(c.compare.is_some());
            }
            assert!(outcome.readout(i).starts_with(&format!("#{}", i + 1)));
        }
        assert!(outcome.readout(f.points.len()).starts_with("Yours"));
        assert!(outcome.verdict().contains("policies tried"));
        // A link the search cannot run says why.
        let sweep: Params = "preset=payments-jitter&sweep.attempts=1,2".parse().unwrap();
        assert!(Tuning::of(&sweep).unwrap_err().contains("sweep"));
    }
    /// A search kept to a format names it, and runs over the pool it is given (the importer's
    /// worker's), in order.
    #[test]
    fn a_search_kept_to_a_format_runs_its_given_pool() {
        let p: Params = "preset=payments-jitter&tune=on&tune_runs=2&tune_format=envoy"
            .parse()
            .unwrap();
        let mut t = Tuning::of(&p).unwrap();
        assert_eq!(t.format(), Some("envoy"));
        t.set_pool("attempts=2&backoff=full&base=25ms\nattempts=3&backoff=full&base=100ms");
        let TuneStep::Run(links) = t.next_step().unwrap() else {
            panic!("a round first");
        };
        // Each of the two policies under each of the four weathers.
        assert_eq!(links.len(), 2 * t.weathers.len());
        assert!(links[0].contains("attempts=2") && links[4].contains("attempts=3"));
        let plain: Params = "preset=payments-jitter&tune=on".parse().unwrap();
        assert_eq!(Tuning::of(&plain).unwrap().format(), None);
    }
}
