//! Originals sent evenly spaced: a storm's steady arrivals (or a burst's clients, all at once)
//! and a load spike's, each spaced as the per-request engine spaces them.

/// One stream of originals: the `i`-th is sent at `start + i / rate`, in whole µs (or, spread
/// over a span, at `start + span x i / count`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Even {
    start: u64,
    /// Requests a second, in thousandths; 0 sends every one at `start` (a burst).
    rate_milli: u64,
    /// Closed-loop users' first requests: spread over this span (one think time) instead.
    span: Option<u64>,
    count: u64,
    /// Sent so far (landed at the server in a tick already settled).
    pub(super) made: u64,
    /// Sent so far whose deposits the budget has.
    pub(super) deposited: u64,
}

impl Even {
    /// `count` originals from `start`, `rate_milli` a thousand seconds (0: all at `start`).
    pub(super) const fn new(start: u64, rate_milli: u64, count: u64) -> Even {
        Even {
            start,
            rate_milli,
            span: None,
            count,
            made: 0,
            deposited: 0,
        }
    }

    /// `count` originals spread over `span` from `start`, as closed-loop users start: the
    /// `i`-th at `start + span x i / count`.
    pub(super) const fn spread(start: u64, span: u64, count: u64) -> Even {
        Even {
            span: Some(span),
            ..Even::new(start, 0, count)
        }
    }

    /// How many the stream sends.
    pub(super) const fn count(&self) -> u64 {
        self.count
    }

    /// When the `i`-th is sent.
    pub(super) fn send_time(&self, i: u64) -> u64 {
        if let Some(span) = self.span {
            let at = u128::from(span) * u128::from(i) / u128::from(self.count.max(1));
            return self.start.saturating_add(at as u64);
        }
        if self.rate_milli == 0 {
            return self.start;
        }
        let gap = u128::from(i) * 1_000_000_000 / u128::from(self.rate_milli);
        self.start.saturating_add(gap as u64)
    }

    /// How many are sent before `t`.
    pub(super) fn sent_before(&self, t: u64) -> u64 {
        if t <= self.start {
            return 0;
        }
        if let Some(span) = self.span {
            // span x i / count < t - start exactly when span x i < (t - start) x count.
            if span == 0 {
                return self.count;
            }
            let d = u128::from(t - self.start) * u128::from(self.count);
            return d.div_ceil(u128::from(span)).min(u128::from(self.count)) as u64;
        }
        if self.rate_milli == 0 {
            return self.count;
        }
        // The i-th is sent before t when i x 1e9 / rate < t - start.
        let n = (u128::from(t - self.start) * u128::from(self.rate_milli)).div_ceil(1_000_000_000);
        n.min(u128::from(self.count)) as u64
    }

    /// When the next one not yet made is sent, if any is left.
    pub(super) fn next_send(&self) -> Option<u64> {
        (self.made < self.count).then(|| self.send_time(self.made))
    }

    /// When the next one whose deposit the budget lacks is sent, if it is sent before `t`.
    pub(super) fn next_deposit(&self, t: u64) -> Option<u64> {
        (self.deposited < self.sent_before(t)).then(|| self.send_time(self.deposited))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `sent_before` counts exactly the `send_time`s before each moment, at a rate that does
    /// not divide a second and from a late start.
    #[test]
    fn sent_before_counts_the_send_times() {
        for s in [
            Even::new(0, 3_000, 50),
            Even::new(7_000_000, 1_700_333, 200),
            Even::new(5, 0, 9),
            Even::spread(0, 1_000_000, 7),
            Even::spread(3, 333_333, 1000),
            Even::spread(0, 0, 5),
        ] {
            for t in (0..8_000_000).step_by(977) {
                let want = (0..s.count).filter(|&i| s.send_time(i) < t).count() as u64;
                assert_eq!(s.sent_before(t), want, "{s:?} at {t}");
            }
        }
    }
}
