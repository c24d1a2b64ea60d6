//! The AWS SDKs' adaptive limiter (`limiter=aws-adaptive`) on counts: the sends that wait for
//! a token in line, first come first served, and the answers the limiter hears, in time order.
//! One line for the process, or one for each client (`limiter_scope=client`, up to
//! [`CLIENT_LINES`]), whose requests the cohorts are split over in turn.
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
use crate::sim::settings::LimiterScope;
use alloc::collections::{BTreeMap, VecDeque};
use alloc::vec::Vec;

/// The most clients with a limiter each that the population engine keeps: every cohort of
/// originals is split over them, and each event asks every line for its next moment.
pub(super) const CLIENT_LINES: u32 = 100;

/// The lines of a run: none without a limiter, one for the process (or a single client), or
/// one per client.
pub(super) fn lines_of(scope: Option<LimiterScope>, clients: u32) -> Vec<TokenLine> {
    let limiters = crate::sim::storm::limiter::limiters_of(scope, clients);
    limiters.into_iter().map(TokenLine::new).collect()
}

/// What the run's summary says of its limiters: every line's sends that waited and their
/// throttles, and the rate the enabled ones allow together (`None` without a limiter).
pub(super) fn summary(lines: &[TokenLine]) -> Option<LimiterSummary> {
    if lines.is_empty() {
        return None;
    }
    let waited: u64 = lines.iter().map(|l| l.waited).sum();
    let wait_us: u128 = lines.iter().map(|l| l.wait_us).sum();
    Some(LimiterSummary {
        waited,
        mean_wait_ms: if waited == 0 {
            0.0
        } else {
            wait_us as f64 / waited as f64 / 1000.0
        },
        throttles: lines.iter().map(|l| l.throttles).sum(),
        allowed_per_s: allowed(lines),
    })
}

/// The send rate the enabled limiters allow together, per second (folded from +0, as the
/// per-request engine sums it).
fn allowed(lines: &[TokenLine]) -> f64 {
    lines
        .iter()
        .filter(|l| l.limiter.enabled())
        .map(|l| l.limiter.fill_rate())
        .fold(0.0, |a, b| a + b)
}

/// Joins a waiting cohort to the one before it in line where they differ only in their starts
/// and those all fall within one tick (`width`): one cohort whose starts are spread over both
/// spans, so that a line of millions of single requests holds a few per tick. Whether it did.
/// Only without a deadline, where the spread of starts decides nothing but their latency.
fn merge_into(back: Option<&mut Waiting>, (c, joined, span): Waiting, width: u64) -> bool {
    let Some((b, b_joined, b_span)) = back else {
        return false;
    };
    let (low, high) = (b_span.0.min(span.0), b_span.1.max(span.1));
    let alike = Cohort {
        n: b.n,
        origin: b.origin,
        at: b.at,
        sched: b.sched,
        seq: b.seq,
        ..c
    } == *b;
    if !alike || high - low > width {
        return false;
    }
    let n = b.n + c.n;
    // When they joined, on average.
    let sum = u128::from(*b_joined) * u128::from(b.n) + u128::from(joined) * u128::from(c.n);
    *b_joined = (sum / u128::from(n)) as u64;
    b.origin = (low + high) / 2;
    b.n = n;
    *b_span = (low, high);
    true
}

/// A cohort waiting in line: with when it joined and the span its starts are spread over.
type Waiting = (Cohort, u64, (u64, u64));

/// One limiter, the sends waiting for its tokens, and the answers it has yet to hear.
#[derive(Debug)]
pub(super) struct TokenLine {
    limiter: AdaptiveLimiter,
    // Cohorts waiting for a token, first come first served, each with when it joined and the
    // span its starts are spread over.
    waiting: VecDeque<Waiting>,
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
    fn new(limiter: AdaptiveLimiter) -> TokenLine {
        TokenLine {
            limiter,
            waiting: VecDeque::new(),
            queued: 0,
            heard: BTreeMap::new(),
            time: 0,
            waited: 0,
            wait_us: 0,
            throttles: 0,
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
    /// The line of `client`'s sends (the only one for the process).
    fn line_of(&self, client: u32) -> usize {
        if self.lines.len() > 1 {
            client as usize
        } else {
            0
        }
    }

    /// `ok` successes (or timeouts) and `throttled` throttling answers (a 429 or 503) reach
    /// `client`'s limiter at `t`, heard before the sends after `t`.
    #[inline]
    pub(super) fn limiter_hears(&mut self, t: u64, client: u32, ok: u64, throttled: u64) {
        if self.lines.is_empty() {
            return;
        }
        let li = self.line_of(client);
        if let Some(line) = self.lines.get_mut(li) {
            let e = line.heard.entry(t).or_default();
            e.0 += ok;
            e.1 += throttled;
        }
    }

    /// Of the `c.n` sends of `c` at `send`, how many take a token and go at once; the rest wait
    /// in line (all of them if any already wait). All go while the limiter is off.
    pub(super) fn take_tokens(&mut self, send: u64, c: &Cohort) -> u64 {
        let li = self.line_of(c.client);
        self.limiter_to(li, send);
        let (width, span_half) = (self.width, self.width / (2 * ORIGIN_GROUPS));
        let no_deadline = self.policy.policy().deadline.is_none();
        let Some(line) = self.lines.get_mut(li) else {
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
            let wait = (Cohort { n: c.n - go, ..*c }, send, span);
            line.queued += c.n - go;
            // Without a deadline no start decides a send's fate at its token: neighbours merge.
            let merged = no_deadline && merge_into(line.waiting.back_mut(), wait, width);
            if !merged {
                line.waiting.push_back(wait);
            }
        }
        go
    }

    /// Moves line `li` to `to`: the answers up to it heard in time order, and the tokens due
    /// up to it handed out between them (their sends join `self.now`).
    pub(super) fn limiter_to(&mut self, li: usize, to: u64) {
        loop {
            let Some(line) = self.lines.get_mut(li) else {
                return;
            };
            let next = line.heard.first_key_value().map(|(&t, &n)| (t, n));
            let Some((t, (ok, throttled))) = next.filter(|&(t, _)| t <= to) else {
                self.hand_out(li, to);
                if let Some(line) = self.lines.get_mut(li) {
                    line.time = line.time.max(to);
                }
                return;
            };
            self.hand_out(li, t);
            let Some(line) = self.lines.get_mut(li) else {
                return;
            };
            line.heard.remove(&t);
            let at = Micros(t.max(line.time));
            line.limiter.on_responses(at, false, ok);
            line.limiter.on_responses(at, true, throttled);
            line.throttles += throttled;
            line.time = at.0;
            let allowed = allowed(&self.lines);
            self.rec.limiter(at, (allowed * 1000.0) as u64);
        }
    }

    /// The limiters' next moment up to `to` while sends wait, if any (see
    /// [`TokenLine::next_move`]), and whose.
    fn next_line(&self, to: u64) -> Option<(u64, usize)> {
        let moves = self.lines.iter().enumerate();
        let next = moves
            .filter_map(|(i, l)| l.next_move().map(|m| (m, i)))
            .min();
        next.filter(|&(m, _)| m <= to)
    }

    /// The limiters' next moment up to `to` while sends wait, if any.
    pub(super) fn limiter_due(&self, to: u64) -> Option<u64> {
        self.next_line(to).map(|(m, _)| m)
    }

    /// Moves the limiter to its next moment up to `to` while sends wait (the next token due, or
    /// the next answer heard), or else to `to`: whether it moved, handing out tokens (their
    /// sends join `self.now`) or hearing an answer. A tick's sends and answers go one such
    /// moment at a time, so that an answer to a send that waited is heard before the tokens
    /// after it.
    pub(super) fn limiter_step(&mut self, to: u64) -> bool {
        let Some((m, li)) = self.next_line(to) else {
            for li in 0..self.lines.len() {
                self.limiter_to(li, to);
            }
            return false;
        };
        let line = &self.lines[li];
        let before = (line.queued, line.heard.len());
        self.limiter_to(li, m);
        let line = &self.lines[li];
        (line.queued, line.heard.len()) != before
    }

    /// Hands out the tokens due up to `to` to the sends waiting, an eighth of a tick's at a
    /// time (one at a time below one a second).
    fn hand_out(&mut self, li: usize, to: u64) {
        let slot = (self.width / SLOTS).max(1);
        loop {
            let Some(line) = self.lines.get_mut(li) else {
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
            self.tokens_to_line(li, mean.min(end), k);
        }
    }

    /// `k` tokens at `t` go to the sends at the front of the line; a send whose deadline less
    /// the reserve has passed ends without one. Tokens left over go back to the bucket. A
    /// waiting cohort of several requests has their starts spread evenly over its span (an
    /// eighth of a tick, the originals' groups), so that at the deadline's edge the earlier
    /// starts end and the later ones go, each part with its own mean start, as one at a time
    /// they would.
    fn tokens_to_line(&mut self, li: usize, t: u64, mut k: u64) {
        let p = *self.policy.policy();
        // Starts at or before this have passed their deadline less the reserve at `t`.
        let edge = p
            .deadline
            .and_then(|d| t.checked_sub(d.0.saturating_sub(p.reserve.0)));
        while k > 0 {
            let Some(line) = self.lines.get_mut(li) else {
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
                let b = self.budget_of(c.client);
                self.budgets[b].attempts_ended(Micros(t), c.attempt, take);
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
