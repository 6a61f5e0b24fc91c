//! The heartbeat guard: with heartbeats running, the exchange cancels every resting order of
//! a user whose heartbeats stop. So once a heartbeat fails (or the task stops, or no heartbeat
//! has succeeded for two intervals) new orders are refused locally, with a typed error, until a
//! heartbeat succeeds again: an order placed then would rest only until the exchange cancels it.
//!
//! Cancels are never guarded. The check is two relaxed atomic loads on the order path.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::http::{Error, Rail};

const OFF: u8 = 0;
const ARMED: u8 = 1;
const FAILED: u8 = 2;
const STOPPED: u8 = 3;

/// The guard's state, shared by the heartbeat task and the order path.
#[derive(Debug)]
pub(crate) struct HeartbeatGuard {
    origin: Instant,
    state: AtomicU8,
    /// Nanoseconds since `origin` of the last accepted heartbeat (or of arming).
    last_ok: AtomicU64,
    /// Silence after which orders are refused even without a reported failure.
    stale_after: AtomicU64,
}

impl HeartbeatGuard {
    pub(crate) fn new() -> Self {
        Self {
            origin: Instant::now(),
            state: AtomicU8::new(OFF),
            last_ok: AtomicU64::new(0),
            stale_after: AtomicU64::new(u64::MAX),
        }
    }

    fn ns(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.origin).as_nanos()).unwrap_or(u64::MAX)
    }

    /// Heartbeats every `interval` start: orders pass until one fails.
    pub(crate) fn arm(&self, interval: Duration) {
        let stale = u64::try_from(interval.saturating_mul(2).as_nanos()).unwrap_or(u64::MAX);
        self.stale_after.store(stale, Ordering::Relaxed);
        self.last_ok
            .store(self.ns(Instant::now()), Ordering::Relaxed);
        self.state.store(ARMED, Ordering::Release);
    }

    /// A heartbeat was accepted: orders pass again.
    pub(crate) fn succeeded(&self) {
        if self.state.load(Ordering::Acquire) == OFF {
            return;
        }
        self.last_ok
            .store(self.ns(Instant::now()), Ordering::Relaxed);
        self.state.store(ARMED, Ordering::Release);
    }

    /// A heartbeat failed: orders are refused until the next success.
    pub(crate) fn failed(&self) {
        // Only a running guard can fail; a deliberate stop stays off.
        let _ = self
            .state
            .compare_exchange(ARMED, FAILED, Ordering::AcqRel, Ordering::Acquire);
    }

    /// The heartbeat task ended without a deliberate stop.
    pub(crate) fn stopped(&self) {
        let s = self.state.load(Ordering::Acquire);
        if s == ARMED || s == FAILED {
            self.state.store(STOPPED, Ordering::Release);
        }
    }

    /// Heartbeats were stopped on purpose: no guard.
    pub(crate) fn disarm(&self) {
        self.state.store(OFF, Ordering::Release);
    }

    /// Whether a new order may be sent at `now`.
    pub(crate) fn check(&self, now: Instant) -> Result<(), Error> {
        let why = match self.state.load(Ordering::Acquire) {
            OFF => return Ok(()),
            ARMED => {
                let silent = self
                    .ns(now)
                    .saturating_sub(self.last_ok.load(Ordering::Relaxed));
                if silent <= self.stale_after.load(Ordering::Relaxed) {
                    return Ok(());
                }
                "no heartbeat has succeeded for two intervals"
            }
            FAILED => "the last heartbeat failed",
            _ => "the heartbeat task stopped",
        };
        Err(Error::refused(
            Rail::HeartbeatGuard,
            format!(
                "order refused: {why}, so the exchange will cancel resting orders; \
                 orders resume after the next successful heartbeat"
            ),
            None,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifecycle() {
        let g = HeartbeatGuard::new();
        let now = Instant::now();
        assert!(g.check(now).is_ok(), "off until heartbeats start");
        g.failed();
        assert!(
            g.check(now).is_ok(),
            "a failure without a running task is ignored"
        );
        g.arm(Duration::from_secs(5));
        assert!(g.check(Instant::now()).is_ok());
        g.failed();
        let e = g.check(Instant::now()).unwrap_err();
        assert!(e.is_heartbeat_guard() && e.is_refused_locally());
        assert!(e.to_string().contains("last heartbeat failed"), "{e}");
        g.succeeded();
        assert!(g.check(Instant::now()).is_ok(), "one success lifts it");
        // Silence for more than two intervals.
        let later = Instant::now() + Duration::from_secs(11);
        assert!(g.check(later).unwrap_err().is_heartbeat_guard());
        g.stopped();
        assert!(g.check(Instant::now()).is_err());
        g.succeeded();
        assert!(g.check(Instant::now()).is_ok());
        g.disarm();
        g.failed();
        assert!(g.check(later).is_ok());
    }
}
