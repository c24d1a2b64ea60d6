//! The retry budget on counts: how many of a cohort's failures it lets retry, the originals'
//! deposits in send order, and its level for the chart. One budget for the process, or one for
//! each client or tenant (`budget_scope`), each hearing its clients' originals, retries and
//! answers.

use super::limiter::CLIENT_LINES;
use super::{Cohort, Gate, Population};
use crate::retry::budget::{Budget, BudgetConfig, RetryCost, Scope};
use crate::retry::policy::RetryPolicy;
use crate::retry::time::Micros;
use crate::sim::storm::config::StormCfg;
use alloc::vec::Vec;

/// The budgets of a run: one for the process, or one per client or per tenant.
pub(super) fn budgets_of(
    sp: &StormCfg,
    pol: &RetryPolicy,
    start: Option<u64>,
    clients: u32,
) -> Vec<Budget> {
    let n = if pol.budget == BudgetConfig::None {
        1
    } else {
        super::super::budget_count(pol.scope, clients, sp.tenants)
    };
    (0..n).map(|_| Budget::new(pol.budget, start)).collect()
}

/// How many clients the cohorts of originals are split over: the link's clients where each
/// has a limiter or a budget of its own (a tenant's budget is its clients'), else 1.
pub(super) fn split_of(sp: &StormCfg, pol: &RetryPolicy, clients: u32) -> u64 {
    let own_limiter = sp.limiter == Some(crate::sim::settings::LimiterScope::Client);
    let own_budget = pol.budget != BudgetConfig::None && pol.scope != Scope::Process;
    if own_limiter || own_budget {
        u64::from(clients.max(1))
    } else {
        1
    }
}

/// Whether the population engine keeps a budget for each client or tenant apart: for at most
/// [`CLIENT_LINES`] clients, each cohort holding one client's requests.
pub(super) fn kept_apart(clients: u32) -> bool {
    clients <= CLIENT_LINES
}

impl Population {
    /// The budget of `client`'s requests.
    #[inline]
    pub(super) fn budget_of(&self, client: u32) -> usize {
        if self.budgets.len() <= 1 {
            return 0;
        }
        super::super::budget_slot(self.policy.policy().scope, client, self.sp.tenants)
    }

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
        let b = self.budget_of(c.client);
        let first =
            first.or_else(|| self.budgets[b].in_flight_fail(Micros(t), c.attempt, f, true, zero));
        match first {
            Some(allow) => Gate { allow, first: true },
            None => Gate {
                allow: self.budgets[b].allows_many(Micros(t), cost, f),
                first: false,
            },
        }
    }

    /// Gives the budget the deposits of the evenly spaced originals sent by `t`, earliest
    /// first, each group at the first one's send time within its slot of the budget's window
    /// (where it counts), as the per-request engine deposits each as it is sent; closed-loop
    /// users' later originals at their own send times, among them.
    pub(super) fn deposit_to(&mut self, t: u64) {
        // Every budget of a run is of one kind: the first says whether they take deposits.
        let Some(slot) = self.budgets[0].deposit_slot() else {
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
                if entry.key().0 <= t && entry.key().0 <= stream {
                    let ((at, client), n) = entry.remove_entry();
                    let b = self.budget_of(client);
                    self.budgets[b].on_originals(Micros(at), n);
                    continue;
                }
            }
            // Users' first requests are theirs by number; every other original is the next
            // client's in turn.
            let users = self.sp.users > 0;
            let (s, stream, numbered) = match (a, b) {
                (Some(x), Some(y)) if y < x => (y, &mut self.spike, false),
                (Some(x), _) => (x, &mut self.steady, users),
                (None, Some(y)) => (y, &mut self.spike, false),
                (None, None) => return,
            };
            let next = (s / slot + 1) * slot;
            let upto = stream.sent_before(t + 1);
            let from = stream.deposited;
            let end = stream.sent_before(next).min(upto).max(from + 1);
            stream.deposited = end;
            let n = end - from;
            let first = if numbered {
                from
            } else {
                self.deposit_turn += n;
                self.deposit_turn - n
            };
            self.originals_to(s, first, n);
        }
    }

    /// Gives `n` originals sent at `at` to their budgets: the one for the process, or each
    /// client's (or its tenant's) its share, the clients in turn from `first` as the cohorts
    /// are split (`by_client`).
    pub(super) fn originals_to(&mut self, at: u64, first: u64, n: u64) {
        let k = self.split;
        if self.budgets.len() <= 1 || k <= 1 {
            return self.budgets[0].on_originals(Micros(at), n);
        }
        for t in 0..n.min(k) {
            let b = self.budget_of(((first + t) % k) as u32);
            self.budgets[b].on_originals(Micros(at), n / k + u64::from(t < n % k));
        }
    }

    /// Records budget `b`'s level at `t`, when the link has one: the first budget's only, as
    /// the per-request engine charts it.
    pub(super) fn record_budget(&mut self, t: u64, b: usize) {
        if b == 0 && *self.budgets[0].config() != BudgetConfig::None {
            let level = self.budgets[0].level(Micros(t)).milli;
            self.rec.budget(Micros(t), level);
        }
    }
}
