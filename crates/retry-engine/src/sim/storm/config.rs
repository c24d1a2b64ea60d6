//! What a storm reads from its link: the server, the arrivals and the trigger's window, and the
//! requests and horizon they plan.

use super::*;

/// What a storm reads: the server, and for `outage` its arrivals and outage window (a burst
/// has no arrivals after t = 0 and no outage).
#[derive(Clone)]
pub(super) struct StormCfg {
    pub(super) rate_milli: u64,
    pub(super) poisson: bool,
    pub(super) duration: Micros,
    pub(super) capacity_milli: u64,
    pub(super) tick: Micros,
    pub(super) reject_cost_milli: u64,
    pub(super) outage_start: Micros,
    pub(super) outage: Micros,
    pub(super) outage_kind: OutageKind,
    pub(super) net: Micros,
    pub(super) tenants: u32,
    pub(super) breaker: Option<BreakerConfig>,
    pub(super) limiter: Option<super::LimiterScope>,
    pub(super) bin: Micros,
    pub(super) server: ServerKind,
    pub(super) queue: QueueServer,
    pub(super) slow: Window,
    pub(super) slow_milli: u64,
    pub(super) spike: Window,
    pub(super) spike_rate_milli: u64,
    pub(super) spike_requests: u64,
    pub(super) users: u32,
    pub(super) think: Micros,
    pub(super) hedge: Option<Hedge>,
    // `outage` only: how recovery after the trigger is judged.
    pub(super) recovery: Option<crate::sim::RecoveryRule>,
}

impl StormCfg {
    pub(super) fn of(s: &Scenario) -> StormCfg {
        let from_server = |sv: &Server| StormCfg {
            rate_milli: 1,
            poisson: false,
            duration: Micros::ZERO,
            capacity_milli: sv.capacity_milli,
            tick: sv.tick,
            reject_cost_milli: sv.reject_cost_milli,
            outage_start: Micros::ZERO,
            outage: Micros::ZERO,
            outage_kind: OutageKind::Status503,
            net: sv.net,
            tenants: sv.tenants,
            breaker: sv.breaker,
            limiter: sv.limiter.then_some(sv.limiter_scope),
            bin: sv.series.bin,
            server: sv.kind,
            queue: sv.queue,
            slow: sv.slow,
            slow_milli: sv.slow_milli,
            spike: Window::default(),
            spike_rate_milli: 0,
            spike_requests: 0,
            users: 0,
            think: Micros::ZERO,
            hedge: sv.hedge.on.then_some(sv.hedge),
            recovery: None,
        };
        match s {
            Scenario::Outage(o) => StormCfg {
                rate_milli: o.arrivals.rate_milli,
                poisson: o.poisson,
                duration: o.arrivals.duration,
                outage_start: o.outage_start,
                outage: o.outage,
                outage_kind: o.outage_kind,
                spike: o.spike,
                spike_rate_milli: o.spike_rate_milli,
                spike_requests: o.spike_requests(),
                users: o.users,
                think: o.think,
                recovery: Some(o.recovery),
                ..from_server(&o.server)
            },
            Scenario::Burst(b) => from_server(&b.server),
            // Only `outage` and `burst` run as storms (see `Run::start_repetition`).
            Scenario::Occ(_) | Scenario::Layers(_) | Scenario::Lost(_) => {
                from_server(&Server::default())
            }
        }
    }
}

impl StormCfg {
    /// The original requests a run makes (the burst's clients, or the steady arrivals, plus
    /// the spike's) and the time its series covers.
    /// The most requests closed-loop users make: each at most one a think time (and its
    /// first), with a load spike's.
    pub(super) fn users_planned(&self) -> u64 {
        let per_user = self.duration.0 / self.think.0.max(1) + 1;
        u64::from(self.users)
            .saturating_mul(per_user)
            .saturating_add(self.spike_requests)
    }

    pub(super) fn planned(
        &self,
        kind: ScenarioKind,
        clients: u32,
        policy: &ValidPolicy,
    ) -> (u64, Micros) {
        let arrivals = match kind {
            ScenarioKind::Burst => u64::from(clients),
            ScenarioKind::Outage
            | ScenarioKind::Occ
            | ScenarioKind::Layers
            | ScenarioKind::Lost => {
                (u128::from(self.rate_milli) * u128::from(self.duration.0) / 1_000_000_000) as u64
            }
        };
        let horizon = match kind {
            ScenarioKind::Burst => Micros::ZERO,
            ScenarioKind::Outage
            | ScenarioKind::Occ
            | ScenarioKind::Layers
            | ScenarioKind::Lost => self.duration,
        }
        .max(self.spike.start.saturating_add(self.spike.length))
        .saturating_add(policy.policy().deadline.unwrap_or(Micros::from_secs(60)))
        .saturating_add(Micros::from_secs(1));
        (self.spike_requests + arrivals, horizon)
    }

    /// A storm's report from what it recorded, with whether it recovered after its trigger
    /// (either engine's).
    pub(super) fn report(
        &self,
        kind: ScenarioKind,
        rec: crate::sim::metrics::Recorder,
        at: Option<Micros>,
    ) -> crate::sim::metrics::Report {
        let (watch, rule, width) = (self.watch(kind), self.recovery, rec.width());
        let mut rep = rec.finish(at);
        rep.summary.recovery = watch.zip(rule).and_then(|(w, rule)| {
            let successes: Vec<u32> = rep.bins.iter().map(|b| b.successes).collect();
            crate::sim::recovery::detect(&successes, width, w, rule)
        });
        rep
    }

    /// The trigger (the outage, the load spike and the capacity drop, from the first start to
    /// the last end) and the arrivals around it, for recovery detection; `None` without one.
    pub(super) fn watch(&self, kind: ScenarioKind) -> Option<crate::sim::recovery::Watch> {
        let sp = self;
        let windows = [
            (kind == ScenarioKind::Outage, sp.outage_start, sp.outage),
            (sp.spike_requests > 0, sp.spike.start, sp.spike.length),
            (sp.slow_milli > 1000, sp.slow.start, sp.slow.length),
        ];
        let on = windows.iter().filter(|(on, _, len)| *on && len.0 > 0);
        let start = on.clone().map(|w| w.1).min()?;
        let end = on.map(|w| w.1.saturating_add(w.2)).max()?;
        Some(crate::sim::recovery::Watch {
            start,
            end,
            arrivals_end: sp.duration,
            rate_per_s: (sp.users == 0).then(|| sp.rate_milli as f64 / 1000.0),
        })
    }

    /// What the server can finish in a bin of `width`, in thousandths of an attempt: the tick
    /// server's capacity, or a queue's workers over its mean service time (0 for the flaky
    /// dependency, which has no capacity).
    pub(super) fn capacity_per(&self, width: Micros) -> u64 {
        match self.server {
            ServerKind::Tick => {
                (u128::from(self.capacity_milli) * u128::from(width.0) / 1_000_000) as u64
            }
            ServerKind::Queue if self.queue.mean_service().0 > 0 => {
                (u128::from(self.queue.workers) * u128::from(width.0) * 1000
                    / u128::from(self.queue.mean_service().0)) as u64
            }
            ServerKind::Queue | ServerKind::Flaky => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outage(set: impl FnOnce(&mut crate::sim::settings::Outage)) -> StormCfg {
        let mut s = Scenario::new(ScenarioKind::Outage);
        if let Scenario::Outage(o) = &mut s {
            set(o);
        }
        StormCfg::of(&s)
    }

    #[test]
    fn a_bin_holds_what_the_server_can_finish_in_it() {
        let second = Micros::from_secs(1);
        let tick = outage(|o| {
            o.server.kind = ServerKind::Tick;
            o.server.capacity_milli = 50_000;
        });
        assert_eq!(tick.capacity_per(second), 50_000);
        assert_eq!(tick.capacity_per(Micros::from_millis(100)), 5_000);
        // Four workers at 100 ms each finish 40 a second.
        let queue = outage(|o| {
            o.server.kind = ServerKind::Queue;
            o.server.queue.workers = 4;
            o.server.queue.service = Micros::from_millis(100);
        });
        assert_eq!(queue.capacity_per(second), 40_000);
        let flaky = outage(|o| o.server.kind = ServerKind::Flaky);
        assert_eq!(flaky.capacity_per(second), 0);
    }
}
