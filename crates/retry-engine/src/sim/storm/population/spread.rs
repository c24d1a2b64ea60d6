//! Each retry's wait spread over the ticks it lands in: a multinomial over the eighths of a
//! tick the waits reach (or one draw each where there are fewer requests than eighths), the
//! draws past a cap waiting the cap exactly, and of those that fit, as many as the budget lets
//! go.

use super::{Cohort, Gate, Population, SLOTS};

/// The pieces of equal chance Polly's decorrelated-v2 is spread over: within one its wait is
/// taken as uniform, and its curve value as its middle's (a thirty-second of the draw).
const V2_PIECES: u32 = 32;
use crate::retry::backoff::WaitRange;
use crate::retry::policy::StopReason;
use crate::retry::time::Micros;
use crate::sim::split;
use alloc::vec::Vec;

/// How many of the draws `v` in `[low, high]` (every `step` µs from `low`) give a wait
/// `max(v, floor)` in `[a, b]`.
fn draws_giving(low: u64, high: u64, floor: u64, step: u64, a: u64, b: u64) -> u64 {
    if a > b || high < low {
        return 0;
    }
    // The draws in `[x, y]`.
    let within = |x: u64, y: u64| {
        let (x, y) = (x.max(low), y.min(high));
        if x > y {
            return 0;
        }
        (y - low) / step + 1 - (x - low).div_ceil(step)
    };
    // Draws above the floor wait themselves; those at or below it wait the floor.
    let above = within(floor.saturating_add(1).max(a), b);
    let at_floor = if floor >= a && floor <= b {
        within(low, floor)
    } else {
        0
    };
    above + at_floor
}

impl Population {
    /// `f` requests of `c`, failed at `t`, each draw a wait from `range` (uniform, capped, raised
    /// to its floor); those whose wait passes `limit` stop (`WontFit`); of the others, up to
    /// `allow` arrive at the server a wait and a hop later and the rest stop (`BudgetEmpty`).
    /// The draws past a cap (decorrelated jitter's) all wait the cap, exactly. Returns how many
    /// were sent again.
    pub(super) fn spread(
        &mut self,
        t: u64,
        c: Cohort,
        f: u64,
        range: WaitRange,
        limit: Option<u64>,
        (gate, prev): (Gate, Option<u64>),
    ) -> u64 {
        let (low, high, floor) = range.parts();
        let (cap, step) = (range.cap(), range.step());
        let net = self.sp.net.0;
        let span = range.draws();
        // The draws at or past the cap wait the cap; the rest, `[low, uhigh]`, are uniform.
        let plateau = draws_giving(low, high, 0, step, cap, u64::MAX);
        let (uhigh, plateau_wait) = (high.min(cap.saturating_sub(1)), cap.max(floor));
        let top = limit.unwrap_or(u64::MAX);
        let (shortest, longest) = (low.max(floor), uhigh.max(floor));
        let uniform = span - plateau;
        let least = if uniform > 0 { shortest } else { plateau_wait };
        if least > top {
            return self.none_fit(t, c, f, gate);
        }
        // Arrivals land in eighths of a tick (`SLOTS`), which order them at the server.
        let width = self.width;
        let slot = |x: u64| x * SLOTS / width;
        let start = move |j: u64| j * width / SLOTS;
        let (first, last) = (slot(t + shortest + net), slot(t + longest + net));
        let slots = if uniform > 0 { last - first + 1 } else { 0 };
        if f < slots + u64::from(plateau > 0) {
            return self.spread_each(t, c, f, range, limit, (gate, prev));
        }
        let mut weights = Vec::with_capacity(slots as usize + 2);
        let mut fit = 0;
        for j in (first..=last).take(slots as usize) {
            let a = start(j).saturating_sub(t + net);
            let b = start(j + 1).saturating_sub(t + net + 1).min(top);
            let m = draws_giving(low, uhigh, floor, step, a, b);
            fit += m;
            weights.push(m as f64 / span as f64);
        }
        let capped = if plateau_wait <= top { plateau } else { 0 };
        fit += capped;
        weights.push(capped as f64 / span as f64);
        weights.push((span - fit) as f64 / span as f64);
        let landed = self.land(f, gate, fit as f64 / span as f64, &weights, (t, c));
        let go = landed.iter().map(|&(_, n)| n).sum();
        for (i, n) in landed {
            let (at, wait) = if i as u64 == slots {
                (t + plateau_wait + net, cap)
            } else if shortest == longest {
                (t + shortest + net, shortest)
            } else {
                // The eighth's middle (shared by every retry landing there, so they merge), but
                // never sent before the failure it follows.
                let j = first + i as u64;
                let at = ((start(j) + start(j + 1)) / 2).max(t + net);
                (at, at.saturating_sub(t + net).clamp(low, uhigh))
            };
            let next = prev.unwrap_or_else(|| self.prev_after(&c, wait));
            self.schedule(at, c, n, next);
        }
        go
    }

    /// [`Population::spread`] under Polly's decorrelated-v2, whose wait follows from the
    /// curve's value each request carries (`c.prev`): where there are fewer failures than
    /// pieces each draws its own, exactly as one request does; else they are spread over the
    /// [`V2_PIECES`] pieces of equal chance (a multinomial), each piece's wait uniform over its
    /// range and its curve value its middle's. A server's Retry-After (`server`) then sets the
    /// wait under the client's rule while the curve moves on from the draw, as Polly's delay
    /// generator overrides the drawn delay. No budget stands beside it (refused), so every
    /// retry that fits the deadline's `limit` (`Some(None)`: none does) goes.
    pub(super) fn spread_v2(
        &mut self,
        t: u64,
        c: Cohort,
        f: u64,
        limit: Option<Option<u64>>,
        server: Option<Micros>,
    ) {
        let Some(limit) = limit.map_or(Some(None), |l| l.map(Some)) else {
            return self.end(t, c, StopReason::WontFit, f);
        };
        let retry = c.attempt - 1;
        if f < u64::from(V2_PIECES) {
            return self.v2_each(t, c, f, limit, server);
        }
        let Some(pieces) = self
            .policy
            .backoff()
            .decorrelated_v2_pieces(retry, c.prev, V2_PIECES)
        else {
            return;
        };
        let weights = alloc::vec![1.0 / pieces.len() as f64; pieces.len()];
        let mut counts = alloc::vec![0; pieces.len()];
        split::multinomial(&mut self.rng, f, &weights, |i, n| counts[i] = n);
        let p = *self.policy.policy();
        for ((range, next), n) in pieces.into_iter().zip(counts) {
            let range = match server {
                Some(sw) => p.retry_after_mode.range_after(sw, range, &p),
                None => Ok(Some(range)),
            };
            match range {
                _ if n == 0 => {}
                Ok(Some(range)) => {
                    let all = Gate {
                        allow: n,
                        first: false,
                    };
                    self.spread(t, c, n, range, limit, (all, Some(next)));
                }
                // The client gives up on the server's wait (or the clamp, refused).
                Ok(None) | Err(()) => self.end(t, c, StopReason::NotRetryable, n),
            }
        }
    }

    /// [`Population::spread_v2`] one request at a time, each its own draw (and, under Envoy's
    /// rule, its own spread of the server's value), as the per-request engine draws them.
    fn v2_each(&mut self, t: u64, c: Cohort, f: u64, limit: Option<u64>, server: Option<Micros>) {
        let (retry, net) = (c.attempt - 1, self.sp.net.0);
        let p = *self.policy.policy();
        let (mut wont, mut gave_up) = (0, 0);
        for _ in 0..f {
            let u = crate::retry::rng::Words::next_f64(&mut self.rng);
            let (drawn, next) = self.policy.backoff().decorrelated_v2_draw(retry, c.prev, u);
            let wait = match server {
                Some(sw) => match p.retry_after_mode.range_after(sw, WaitRange::at(drawn), &p) {
                    Ok(Some(r)) => Some(r.fixed().unwrap_or_else(|| r.draw(&mut self.rng))),
                    Ok(None) | Err(()) => None,
                },
                None => Some(drawn),
            };
            match wait {
                None => gave_up += 1,
                Some(w) if limit.is_some_and(|l| w.0 > l) => wont += 1,
                Some(w) => self.schedule(t + w.0 + net, c, 1, next),
            }
        }
        self.end(t, c, StopReason::NotRetryable, gave_up);
        self.end(t, c, StopReason::WontFit, wont);
    }

    /// Of `f` failures of cohort `c` at `t`, those whose wait fits (`fits`, a share) and that
    /// the budget lets go (`allow`): drawn over `weights` (the last weight: does not fit), the
    /// rest ended. The cells they land in, and how many in each.
    fn land(
        &mut self,
        f: u64,
        gate: Gate,
        fits: f64,
        weights: &[f64],
        (t, c): (u64, Cohort),
    ) -> Vec<(usize, u64)> {
        let mut landed = Vec::new();
        let last = weights.len() - 1;
        let allow = gate.allow;
        if allow >= f {
            split::multinomial(&mut self.rng, f, weights, |i, n| landed.push((i, n)));
            let wont = landed.iter().filter(|&&(i, _)| i == last).map(|&(_, n)| n);
            self.end(t, c, StopReason::WontFit, wont.sum());
            landed.retain(|&(i, _)| i != last);
            return landed;
        }
        // How many fit, then which of them the budget lets go: a multinomial over the fitting
        // cells alone, each weight a share of the fitting ones (the split of a multinomial
        // given its total).
        let (go, wont) = if gate.first {
            // The first `allow` ask; of them, those that fit go.
            let go = split::binomial(&mut self.rng, allow, fits);
            (go, allow - go)
        } else {
            let fit = split::binomial(&mut self.rng, f, fits);
            (fit.min(allow), f - fit)
        };
        self.end(t, c, StopReason::WontFit, wont);
        self.end(t, c, StopReason::BudgetEmpty, f - wont - go);
        let shares: Vec<f64> = weights[..last].iter().map(|w| w / fits).collect();
        split::multinomial(&mut self.rng, go, &shares, |i, n| landed.push((i, n)));
        landed
    }

    /// None of `f` failures of `c` at `t` fits: the budget's refusals stop with it empty under
    /// [`Gate::first`], the rest will not fit. Nothing was sent.
    pub(super) fn none_fit(&mut self, t: u64, c: Cohort, f: u64, gate: Gate) -> u64 {
        let asked = if gate.first { gate.allow.min(f) } else { f };
        self.end(t, c, StopReason::BudgetEmpty, f - asked);
        self.end(t, c, StopReason::WontFit, asked);
        0
    }

    /// The previous wait a retry of `c` after `wait` carries on: its wait under decorrelated
    /// jitter (but not after a first retry that waits nothing), nothing under other backoffs.
    fn prev_after(&self, c: &Cohort, wait: u64) -> u64 {
        let zero_first = self.policy.backoff().config().first_wait_zero && c.attempt == 1;
        match (self.decorrelated, zero_first) {
            (false, _) => 0,
            (true, true) => c.prev,
            (true, false) => wait,
        }
    }

    /// [`Population::spread`] one request at a time, where there are fewer requests than ticks.
    fn spread_each(
        &mut self,
        t: u64,
        c: Cohort,
        f: u64,
        range: WaitRange,
        limit: Option<u64>,
        (gate, prev): (Gate, Option<u64>),
    ) -> u64 {
        let net = self.sp.net.0;
        let (mut wont, mut go, mut empty) = (0, 0, 0);
        let allow = gate.allow;
        for i in 0..f {
            let wait = range.draw(&mut self.rng).0;
            if gate.first && i >= allow {
                empty += 1;
            } else if limit.is_some_and(|l| wait > l) {
                wont += 1;
            } else if go == allow {
                empty += 1;
            } else {
                go += 1;
                let next = prev.unwrap_or_else(|| self.prev_after(&c, wait));
                self.schedule(t + wait + net, c, 1, next);
            }
        }
        self.end(t, c, StopReason::WontFit, wont);
        self.end(t, c, StopReason::BudgetEmpty, empty);
        go
    }
}

#[cfg(test)]
mod tests {
    use super::draws_giving;

    /// The count is the brute-force count of the draws whose raised wait falls in `[a, b]`,
    /// every µs and every whole millisecond, with floors on and off the draws' lattice.
    #[test]
    fn draws_giving_counts_each_draw_once() {
        for (low, high, step) in [
            (0, 40, 1),
            (3, 17, 1),
            (0, 24_000, 1000),
            (2000, 9000, 1000),
        ] {
            for floor in [0, 5, 2500, 7000, 30_000] {
                for a in (0..=26_000).step_by(700) {
                    for b in (a..=26_000).step_by(1300) {
                        let want = (low..=high)
                            .step_by(step as usize)
                            .filter(|v: &u64| (a..=b).contains(&(*v).max(floor)))
                            .count() as u64;
                        let got = draws_giving(low, high, floor, step, a, b);
                        assert_eq!(
                            got, want,
                            "{low}..={high} by {step}, floor {floor}, [{a}, {b}]"
                        );
                    }
                }
            }
        }
    }
}
