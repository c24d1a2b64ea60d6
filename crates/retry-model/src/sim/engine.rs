//! The discrete-event driver: a model, its event queue, and `step`/`run`.

use super::queue::EventQueue;
use crate::time::Micros;

/// A simulated system: it handles one event at a time and may schedule more.
pub trait Model {
    /// The events it schedules.
    type Event: Copy;
    /// Handles `event` at `now`.
    fn handle(&mut self, now: Micros, event: Self::Event, queue: &mut EventQueue<Self::Event>);
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
