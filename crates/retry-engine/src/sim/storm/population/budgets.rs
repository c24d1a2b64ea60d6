//! The retry budget on counts: how many of a cohort's failures it lets retry, the originals'
//! deposits in send order, and its level for the chart.

use super::{Cohort, Gate, Population};
use crate::retry::budget::{BudgetConfig, RetryCost};
use crate::retry::time::Micros;

impl Population {
    /// How many of `f` failures of `c` at `t` the budget lets retry. It is asked before the
    /// fit, and paid only for the retries that fit: of the failures that fit, as many go as the
    /// level allows (`min(fit, allowed)`, exactly as one at a time), the rest stop with the
    /// budget empty. gRPC throttling (`first`, its answer) and Envoy's limit let the first ones
    /// ask whatever their fit ([`Gate::first`]).
    pub(super) fn gate(
        &mut self,
        t: u64,
        (c, f): (Cohort, u64),
        first: Option<u64>,
        zero: bool,
        cost: RetryCost,
    ) -> Gate {
        self.deposit_to(t);
        let first = first.or_else(|| {
            self.budget
                .in_flight_fail(Micros(t), c.attempt, f, true, zero)
        });
        match first {
            Some(allow) => Gate { allow, first: true },
            None => Gate {
                allow: self.budget.allows_many(Micros(t), cost, f),
                first: false,
            },
        }
    }

    /// Gives the budget the deposits of the evenly spaced originals sent by `t`, earliest
    /// first, each group at the first one's send time within its slot of the budget's window
    /// (where it counts), as the per-request engine deposits each as it is sent; closed-loop
    /// users' later originals at their own send times, among them.
    pub(super) fn deposit_to(&mut self, t: u64) {
        let Some(slot) = self.budget.deposit_slot() else {
            return;
        };
        let slot = slot.0.max(1);
        loop {
            let (a, b) = (
                self.steady.next_deposit(t + 1),
                self.spike.next_deposit(t + 1),
            );
            let stream = a.into_iter().chain(b).min().unwrap_or(u64::MAX);
            if let Some(entry) = self.user_sends.first_entry() {
                if *entry.key() <= t && *entry.key() <= stream {
                    let (at, n) = entry.remove_entry();
                    self.budget.on_originals(Micros(at), n);
                    continue;
                }
            }
            let (s, stream) = match (a, b) {
                (Some(x), Some(y)) if y < x => (y, &mut self.spike),
                (Some(x), _) => (x, &mut self.steady),
                (None, Some(y)) => (y, &mut self.spike),
                (None, None) => return,
            };
            let next = (s / slot + 1) * slot;
            let upto = stream.sent_before(t + 1);
            let end = stream.sent_before(next).min(upto).max(stream.deposited + 1);
            let n = end - stream.deposited;
            stream.deposited = end;
            self.budget.on_originals(Micros(s), n);
        }
    }

    /// Records the budget's level at `t`, when the link has one.
    pub(super) fn record_budget(&mut self, t: u64) {
        if *self.budget.config() != BudgetConfig::None {
            let level = self.budget.level(Micros(t)).milli;
            self.rec.budget(Micros(t), level);
        }
    }
}
