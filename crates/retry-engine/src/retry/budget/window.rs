//! A sliding window of ten slots, the shape tower and Finagle use for their retry budgets.

use crate::retry::time::Micros;

/// Ten slots covering `window`; each slot sums the amounts recorded during its tenth of the
/// window. Entries older than the window drop out as time moves on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotWindow {
    slot_len: u64,     // window / 10, > 0
    epochs: [u64; 10], // which slot period each entry belongs to
    sums: [i64; 10],
}

impl SlotWindow {
    /// An empty window of `window`, split into ten slots.
    pub fn new(window: Micros) -> Self {
        SlotWindow {
            slot_len: (window.0 / 10).max(1),
            epochs: [u64::MAX; 10],
            sums: [0; 10],
        }
    }

    fn epoch(&self, now: Micros) -> u64 {
        now.0 / self.slot_len
    }

    /// Adds `amount` to the slot that holds `now`.
    pub fn add(&mut self, now: Micros, amount: i64) {
        let e = self.epoch(now);
        let i = (e % 10) as usize;
        if self.epochs[i] != e {
            self.epochs[i] = e;
            self.sums[i] = 0;
        }
        self.sums[i] += amount;
    }

    /// The sum over the slots still inside the window at `now`.
    pub fn sum(&self, now: Micros) -> i64 {
        let e = self.epoch(now);
        let oldest = e.saturating_sub(9);
        self.epochs
            .iter()
            .zip(self.sums.iter())
            .filter(|(ep, _)| **ep != u64::MAX && **ep >= oldest && **ep <= e)
            .map(|(_, s)| *s)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_expire_after_the_window() {
        let mut w = SlotWindow::new(Micros::from_secs(10));
        w.add(Micros::ZERO, 5);
        w.add(Micros::from_millis(4_500), 3);
        assert_eq!(w.sum(Micros::from_millis(9_999)), 8);
        assert_eq!(w.sum(Micros::from_secs(10)), 3);
        assert_eq!(w.sum(Micros::from_millis(13_999)), 3);
        assert_eq!(w.sum(Micros::from_secs(14)), 0);
    }
}
