//! The AWS SDKs' adaptive limiter (`limiter=aws-adaptive`, one for the process) on counts: the
//! sends that wait for a token in line, first come first served, and the answers the limiter
//! hears, in time order.
//!
//! A cohort's send takes the tokens the bucket holds (`AdaptiveLimiter::take_up_to`, the same
//! bucket as one send at a time); the rest wait in line behind any that already wait. Tokens
//! come at the fill rate: those due within an eighth of a tick go together, sent at their mean
//! time, to the front of the line (one at a time below one token a second, where the bucket
//! holds no more than one). A send whose deadline less the reserve has passed when its token
//! comes ends there without one, as one at a time. The answers reach the limiter in time order
//! (`AdaptiveLimiter::on_responses`: successes before the throttling answers of the same
//! moment), each before the sends after it. What it approximates: a token's send time to within
//! an eighth of a tick, and a rate that changes within an eighth is read at its start.

use super::{Cohort, Population, ORIGIN_GROUPS, SLOTS};
use crate::retry::limiter::AdaptiveLimiter;
use crate::retry::policy::StopReason;
use crate::retry::time::Micros;
use crate::sim::metrics::LimiterSummary;
use alloc::collections::{BTreeMap, VecDeque};

/// The process's limiter, the sends waiting for its tokens, and the answers it has yet to hear.
#[derive(Debug)]
pub(super) struct TokenLine {
    limiter: AdaptiveLimiter,
    // Cohorts waiting for a token, first come first served, each with when it joined and the
    // span its starts are spread over.
    waiting: VecDeque<(Cohort, u64, (u64, u64))>,
    queued: u64,
    // Answers not yet heard, by time: (successes and timeouts, throttling answers).
    heard: BTreeMap<u64, (u64, u64)>,
    // The last moment the limiter was moved to.
    time: u64,
    waited: u64,
    wait_us: u128,
    throttles: u64,
}

impl TokenLine {
    pub(super) fn new() -> TokenLine {
        TokenLine {
            limiter: AdaptiveLimiter::new(Micros::ZERO),
            waiting: VecDeque::new(),
            queued: 0,
            heard: BTreeMap::new(),
            time: 0,
            waited: 0,
            wait_us: 0,
            throttles: 0,
        }
    }

    /// What the run's summary says of the limiter.
    pub(super) fn summary(&self) -> LimiterSummary {
        LimiterSummary {
            waited: self.waited,
            mean_wait_ms: if self.waited == 0 {
                0.0
            } else {
                self.wait_us as f64 / self.waited as f64 / 1000.0
            },
            throttles: self.throttles,
            allowed_per_s: if self.limiter.enabled() {
                self.limiter.fill_rate()
            } else {
                0.0
            },
        }
    }

    /// The next moment the line must move (a token due, or an answer that may change the rate
    /// while sends wait), if any sends wait.
    pub(super) fn next_move(&self) -> Option<u64> {
        if self.waiting.is_empty() {
            return None;
        }
        let due = self.limiter.next_token_at().0.max(self.time);
        let heard = self.heard.keys().next().copied().unwrap_or(u64::MAX);
        Some(due.min(heard))
    }
}

impl Population {
    /// `ok` successes (or timeouts) and `throttled` throttling answers (a 429 or 503) reach the
    /// limiter at `t`, heard before the sends after `t`.
    pub(super) fn limiter_hears(&mut self, t: u64, ok: u64, throttled: u64) {
        if let Some(line) = self.line.as_mut() {
            let e = line.heard.entry(t).or_default();
            e.0 += ok;
            e.1 += throttled;
        }
    }

    /// Of the `c.n` sends of `c` at `send`, how many take a token and go at once; the rest wait
    /// in line (all of them if any already wait). All go while the limiter is off.
    pub(super) fn take_tokens(&mut self, send: u64, c: &Cohort) -> u64 {
        self.limiter_to(send);
        let span_half = self.width / (2 * ORIGIN_GROUPS);
        let Some(line) = self.line.as_mut() else {
            return c.n;
        };
        let at = send.max(line.time);
        let go = if line.waiting.is_empty() {
            line.limiter.take_up_to(Micros(at), c.n)
        } else {
            0
        };
        if go < c.n {
            // Several requests' starts spread over an eighth of a tick (see `tokens_to_line`).
            let half = if c.n - go > 1 { span_half } else { 0 };
            let span = (c.origin.saturating_sub(half), c.origin + half);
            line.waiting
                .push_back((Cohort { n: c.n - go, ..*c }, send, span));
            line.queued += c.n - go;
        }
        go
    }

    /// Moves the limiter to `to`: the answers up to it heard in time order, and the tokens due
    /// up to it handed out between them (their sends join `self.now`).
    pub(super) fn limiter_to(&mut self, to: u64) {
        loop {
            let Some(line) = self.line.as_mut() else {
                return;
            };
            let next = line.heard.first_key_value().map(|(&t, &n)| (t, n));
            let Some((t, (ok, throttled))) = next.filter(|&(t, _)| t <= to) else {
                self.hand_out(to);
                if let Some(line) = self.line.as_mut() {
                    line.time = line.time.max(to);
                }
                return;
            };
            self.hand_out(t);
            let Some(line) = self.line.as_mut() else {
                return;
            };
            line.heard.remove(&t);
            let at = Micros(t.max(line.time));
            line.limiter.on_responses(at, false, ok);
            line.limiter.on_responses(at, true, throttled);
            line.throttles += throttled;
            line.time = at.0;
            let allowed = if line.limiter.enabled() {
                line.limiter.fill_rate()
            } else {
                0.0
            };
            self.rec.limiter(at, (allowed * 1000.0) as u64);
        }
    }

    /// The limiter's next moment up to `to` while sends wait, if any (see
    /// [`TokenLine::next_move`]).
    pub(super) fn limiter_due(&self, to: u64) -> Option<u64> {
        self.line.as_ref()?.next_move().filter(|&m| m <= to)
    }

    /// Moves the limiter to its next moment up to `to` while sends wait (the next token due, or
    /// the next answer heard), or else to `to`: whether it moved, handing out tokens (their
    /// sends join `self.now`) or hearing an answer. A tick's sends and answers go one such
    /// moment at a time, so that an answer to a send that waited is heard before the tokens
    /// after it.
    pub(super) fn limiter_step(&mut self, to: u64) -> bool {
        let Some(line) = self.line.as_ref() else {
            return false;
        };
        let Some(m) = line.next_move().filter(|&m| m <= to) else {
            self.limiter_to(to);
            return false;
        };
        let before = (line.queued, line.heard.len());
        self.limiter_to(m);
        self.line
            .as_ref()
            .is_some_and(|l| (l.queued, l.heard.len()) != before)
    }

    /// Hands out the tokens due up to `to` to the sends waiting, an eighth of a tick's at a
    /// time (one at a time below one a second).
    fn hand_out(&mut self, to: u64) {
        let slot = (self.width / SLOTS).max(1);
        loop {
            let Some(line) = self.line.as_mut() else {
                return;
            };
            if line.waiting.is_empty() || !line.limiter.enabled() {
                return;
            }
            let due = line.limiter.next_token_at().0.max(line.time);
            if due > to {
                return;
            }
            let rate = line.limiter.fill_rate();
            let end = if rate < 1.0 {
                due
            } else {
                to.min(due + slot - 1)
            };
            let k = line.limiter.take_up_to(Micros(end), line.queued);
            line.time = end;
            if k == 0 {
                return;
            }
            // The mean of the k tokens' times, one every 1/rate s from `due`.
            let mean = due + libm::round((k - 1) as f64 / rate * 1e6 / 2.0) as u64;
            self.tokens_to_line(mean.min(end), k);
        }
    }

    /// `k` tokens at `t` go to the sends at the front of the line; a send whose deadline less
    /// the reserve has passed ends without one. Tokens left over go back to the bucket. A
    /// waiting cohort of several requests has their starts spread evenly over its span (an
    /// eighth of a tick, the originals' groups), so that at the deadline's edge the earlier
    /// starts end and the later ones go, each part with its own mean start, as one at a time
    /// they would.
    fn tokens_to_line(&mut self, t: u64, mut k: u64) {
        let p = *self.policy.policy();
        // Starts at or before this have passed their deadline less the reserve at `t`.
        let edge = p
            .deadline
            .and_then(|d| t.checked_sub(d.0.saturating_sub(p.reserve.0)));
        while k > 0 {
            let Some(line) = self.line.as_mut() else {
                return;
            };
            let Some(&(c, joined, (low, high))) = line.waiting.front() else {
                line.limiter.give_back_n(k);
                return;
            };
            let expired = match edge {
                Some(e) if e >= high => c.n,
                Some(e) if e >= low => {
                    let part = u128::from(e - low + 1) * u128::from(c.n);
                    (part / u128::from(high - low + 1)) as u64
                }
                _ => 0,
            };
            let take = if expired > 0 { expired } else { k.min(c.n) };
            // The part that goes (or ends): the earliest starts of the span.
            let cut = low + ((u128::from(high - low) * u128::from(take)) / u128::from(c.n)) as u64;
            let part = Cohort {
                n: take,
                origin: (low + cut) / 2,
                ..c
            };
            line.queued -= take;
            if take == c.n {
                line.waiting.pop_front();
            } else if let Some(front) = line.waiting.front_mut() {
                front.0.n -= take;
                front.0.origin = (cut + high) / 2;
                front.2 = (cut, high);
            }
            if expired > 0 {
                self.budget.attempts_ended(Micros(t), c.attempt, take);
                // Its attempt was never made.
                let made = Cohort {
                    attempt: c.attempt - 1,
                    ..part
                };
                self.end(t, made, StopReason::DeadlinePassed, take);
                continue;
            }
            k -= take;
            line.waited += take;
            line.wait_us += u128::from(take) * u128::from(t.saturating_sub(joined));
            self.seq += 1;
            self.now.push(Cohort {
                at: t + self.sp.net.0,
                sched: t,
                seq: self.seq,
                limited: true,
                ..part
            });
        }
    }
}
