//! The discrete-event driver: a model, its event queue, and `step`/`run`.

use super::metrics::{BinCounts, Report, Summary};
use super::queue::EventQueue;
use crate::retry::time::Micros;
use alloc::boxed::Box;

/// A simulated system: it handles one event at a time and may schedule more. Every scenario
/// is one (`outage` and `burst` share [`super::Storm`]), so [`super::Run`] drives any of them
/// the same way, in slices.
pub trait Model {
    /// The events it schedules.
    type Event: Copy;
    /// Handles `event` at `now`.
    fn handle(&mut self, now: Micros, event: Self::Event, queue: &mut EventQueue<Self::Event>);
    /// How far the run has come at `now`, in [0, 1): an honest share of its work or of the
    /// longest it can last.
    fn progress(&self, now: Micros) -> f64;
    /// What was measured, once no event is left; `at` is the link's `at`.
    fn finish(self, at: Option<Micros>) -> Report;
    /// [`Model::finish`] for a repetition whose bins are not kept: the summary, and each
    /// bin's attempts and successes (all that a run's fingerprint reads of the bins). A model
    /// whose bins cost more to build than to count gives these without building them.
    fn finish_summary(self, at: Option<Micros>) -> (Summary, BinCounts)
    where
        Self: Sized,
    {
        let r = self.finish(at);
        let bins = BinCounts::from_dense(r.bins.iter().map(|b| (b.attempts, b.successes)));
        (r.summary, bins)
    }
}

/// One repetition of any scenario, as [`super::Run`] holds it.
pub trait Repetition {
    /// Handles up to `n` events; returns whether it is done and how many it handled.
    fn step(&mut self, n: u64) -> (bool, u64);
    /// [`Model::progress`] at the current clock.
    fn progress(&self) -> f64;
    /// [`Model::finish`].
    fn finish(self: Box<Self>, at: Option<Micros>) -> Report;
    /// [`Model::finish_summary`].
    fn finish_summary(self: Box<Self>, at: Option<Micros>) -> (Summary, BinCounts);
}

impl<M: Model> Repetition for Sim<M> {
    fn step(&mut self, n: u64) -> (bool, u64) {
        let before = self.events;
        let done = Sim::step(self, n);
        (done, self.events - before)
    }

    fn progress(&self) -> f64 {
        self.model.progress(self.now).clamp(0.0, 0.999)
    }

    fn finish(self: Box<Self>, at: Option<Micros>) -> Report {
        self.model.finish(at)
    }

    fn finish_summary(self: Box<Self>, at: Option<Micros>) -> (Summary, BinCounts) {
        self.model.finish_summary(at)
    }
}

/// A model with its clock and pending events.
pub struct Sim<M: Model> {
    /// The model.
    pub model: M,
    queue: EventQueue<M::Event>,
    now: Micros,
    events: u64,
}

impl<M: Model> Sim<M> {
    /// A simulation of `model` with its first events.
    pub fn new(model: M, first: impl IntoIterator<Item = (Micros, M::Event)>) -> Self {
        let mut queue = EventQueue::default();
        for (t, e) in first {
            queue.push(t, e);
        }
        Sim {
            model,
            queue,
            now: Micros::ZERO,
            events: 0,
        }
    }

    /// Handles up to `n` events; returns true when nothing is left to do.
    pub fn step(&mut self, n: u64) -> bool {
        for _ in 0..n {
            let Some((t, e)) = self.queue.take() else {
                return true;
            };
            self.now = t;
            self.events += 1;
            self.model.handle(t, e, &mut self.queue);
        }
        self.queue.settle();
        self.queue.is_empty()
    }

    /// Runs to the end.
    pub fn run(&mut self) {
        while !self.step(u64::MAX) {}
    }

    /// The simulated clock.
    pub fn now(&self) -> Micros {
        self.now
    }

    /// Events handled so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Events pending.
    pub fn pending(&self) -> usize {
        self.queue.len()
    }
}
