//! The adaptive limiters inside a storm: which limiter a client sends through, the sends
//! waiting for a token (first come first served), and what each answer tells its limiter.

use super::*;

/// The adaptive limiters of a storm: none, one for the process, or one per client.
pub(super) fn limiters_of(scope: Option<LimiterScope>, clients: u32) -> Vec<AdaptiveLimiter> {
    let n = match scope {
        None => 0,
        Some(LimiterScope::Process) => 1,
        Some(LimiterScope::Client) => clients as usize,
    };
    alloc::vec![AdaptiveLimiter::new(Micros::ZERO); n]
}

impl Storm {
    /// The adaptive limiter serving `client`, if there is one.
    pub(super) fn limiter_index(&self, client: u32) -> Option<usize> {
        match self.limiters.len() {
            0 => None,
            1 => Some(0),
            _ => Some(client as usize),
        }
    }

    /// Whether the send of request `id` must first wait for its limiter's token: then it joins
    /// the limiter's queue, and is sent when a token is there.
    pub(super) fn waits_for_token(&mut self, now: Micros, id: u32, q: &mut EventQueue<Ev>) -> bool {
        let r = &mut self.reqs[id];
        // A wait for the limiter's token is the request's time too.
        r.retry.wait_until(now);
        if r.take(TOKEN) {
            return false; // handed its token by `hand_out_tokens`
        }
        let client = r.client;
        let Some(li) = self.limiter_index(client) else {
            return false;
        };
        if self.token_queues[li].is_empty() && self.limiters[li].try_take(now) {
            return false;
        }
        self.reqs[id].queued_at = now;
        self.token_queues[li].push_back(id);
        self.wake_limiter(li, now, q);
        true
    }

    /// Schedules limiter `li` to look for a token when the next one is due (unless it already
    /// looks sooner).
    pub(super) fn wake_limiter(&mut self, li: usize, now: Micros, q: &mut EventQueue<Ev>) {
        let at = now.saturating_add(self.limiters[li].due_in());
        if self.token_wake[li].is_none_or(|w| at < w) {
            self.token_wake[li] = Some(at);
            q.push(at, Ev::Token(li as u32));
        }
    }

    /// Hands limiter `li`'s tokens to the sends waiting, first come first served; a send whose
    /// request's deadline has passed while it waited ends without one.
    pub(super) fn hand_out_tokens(&mut self, now: Micros, li: usize, q: &mut EventQueue<Ev>) {
        if self.token_wake[li] != Some(now) {
            return; // a later look replaced this one
        }
        self.token_wake[li] = None;
        let deadline = self.policy.policy().deadline;
        while let Some(&id) = self.token_queues[li].front() {
            let r = &self.reqs[id];
            if deadline.is_some_and(|d| now >= r.retry.origin().saturating_add(d)) {
                self.token_queues[li].pop_front();
                self.unsent(now, id);
                self.reqs[id].retry.stop(StopReason::DeadlinePassed);
                self.finish(now, id, StopReason::DeadlinePassed, q);
                continue;
            }
            if !self.limiters[li].try_take(now) {
                break;
            }
            self.token_queues[li].pop_front();
            let r = &mut self.reqs[id];
            r.set(TOKEN, true);
            self.limited.waited += 1;
            self.limit_wait = self
                .limit_wait
                .saturating_add(now.saturating_sub(r.queued_at));
            self.send(now, id, q);
        }
        if !self.token_queues[li].is_empty() {
            self.wake_limiter(li, now, q);
        }
    }

    /// An answer reaches request `id`'s limiter: a 429 or 503 is a throttling answer.
    pub(super) fn tell_limiter(
        &mut self,
        now: Micros,
        client: u32,
        outcome: Outcome,
        q: &mut EventQueue<Ev>,
    ) {
        let Some(li) = self.limiter_index(client) else {
            return;
        };
        let throttled = matches!(outcome, Outcome::Status(429 | 503));
        self.limited.throttles += u64::from(throttled);
        self.limiters[li].on_response(now, throttled);
        if !self.token_queues[li].is_empty() {
            self.token_wake[li] = None; // the rate changed: look again at the new one
        }
        let allowed: f64 = self
            .limiters
            .iter()
            .filter(|l| l.enabled())
            .map(AdaptiveLimiter::fill_rate)
            .sum();
        self.rec.limiter(now, (allowed * 1000.0) as u64);
        if !self.token_queues[li].is_empty() {
            self.wake_limiter(li, now, q);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_storm_has_no_limiter_one_for_the_process_or_one_per_client() {
        assert_eq!(limiters_of(None, 5).len(), 0);
        assert_eq!(limiters_of(Some(LimiterScope::Process), 5).len(), 1);
        assert_eq!(limiters_of(Some(LimiterScope::Client), 5).len(), 5);
        // Each starts open: a send takes its token at once.
        let mut l = limiters_of(Some(LimiterScope::Process), 1);
        assert!(l[0].try_take(Micros::ZERO));
    }
}
