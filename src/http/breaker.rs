//! A circuit breaker: stop hammering a server that keeps failing.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Circuit-breaker settings.
///
/// After `threshold` consecutive failed calls the breaker *opens*: calls fail at once with
/// [`Error::is_circuit_open`](super::Error::is_circuit_open) for `cooldown`. Then it
/// *half-opens*: one trial call goes through; success closes it, failure opens it again.
/// Only transport failures and 5xx/425/429 answers count as failures; a 4xx is the caller's
/// problem, not the server's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BreakerConfig {
    /// Consecutive failures that open the breaker. `0` disables the breaker.
    pub threshold: u32,
    /// How long the breaker stays open before a trial call.
    pub cooldown: Duration,
}

impl Default for BreakerConfig {
    /// Disabled (`threshold` 0), 5 s cooldown.
    fn default() -> Self {
        Self {
            threshold: 0,
            cooldown: Duration::from_secs(5),
        }
    }
}

/// The breaker's state, as reported by [`Client::breaker_state`](crate::clob::Client::breaker_state).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BreakerState {
    /// Calls flow.
    Closed,
    /// Calls are refused until the cooldown ends.
    Open,
    /// One trial call is in flight or allowed.
    HalfOpen,
}

#[derive(Debug)]
pub(crate) struct Breaker {
    config: BreakerConfig,
    state: Mutex<Inner>,
}

#[derive(Debug)]
struct Inner {
    failures: u32,
    opened_at: Option<Instant>,
    trial_in_flight: bool,
}

impl Breaker {
    pub(crate) fn new(config: BreakerConfig) -> Self {
        Self {
            config,
            state: Mutex::new(Inner {
                failures: 0,
                opened_at: None,
                trial_in_flight: false,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A poisoned lock only means a panic elsewhere while holding plain counters; the
        // counters are still meaningful.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn state_at(&self, now: Instant) -> BreakerState {
        if self.config.threshold == 0 {
            return BreakerState::Closed;
        }
        let s = self.lock();
        match s.opened_at {
            None => BreakerState::Closed,
            Some(t) if now.duration_since(t) >= self.config.cooldown => BreakerState::HalfOpen,
            Some(_) => BreakerState::Open,
        }
    }

    /// Whether a call may proceed now. In half-open state only one trial call is admitted.
    pub(crate) fn admit(&self, now: Instant) -> bool {
        if self.config.threshold == 0 {
            return true;
        }
        let mut s = self.lock();
        match s.opened_at {
            None => true,
            Some(t) if now.duration_since(t) >= self.config.cooldown => {
                if s.trial_in_flight {
                    false
                } else {
                    s.trial_in_flight = true;
                    true
                }
            }
            Some(_) => false,
        }
    }

    pub(crate) fn record(&self, success: bool, now: Instant) {
        if self.config.threshold == 0 {
            return;
        }
        let mut s = self.lock();
        s.trial_in_flight = false;
        if success {
            s.failures = 0;
            s.opened_at = None;
        } else {
            s.failures = s.failures.saturating_add(1);
            if s.opened_at.is_some() || s.failures >= self.config.threshold {
                s.opened_at = Some(now);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_half_opens_closes() {
        let b = Breaker::new(BreakerConfig {
            threshold: 3,
            cooldown: Duration::from_secs(10),
        });
        let t0 = Instant::now();
        for _ in 0..2 {
            assert!(b.admit(t0));
            b.record(false, t0);
        }
        assert_eq!(b.state_at(t0), BreakerState::Closed);
        assert!(b.admit(t0));
        b.record(false, t0);
        assert_eq!(b.state_at(t0), BreakerState::Open);
        assert!(!b.admit(t0 + Duration::from_secs(9)));
        let t1 = t0 + Duration::from_secs(10);
        assert_eq!(b.state_at(t1), BreakerState::HalfOpen);
        assert!(b.admit(t1), "one trial call");
        assert!(!b.admit(t1), "only one trial call");
        b.record(false, t1);
        assert_eq!(b.state_at(t1), BreakerState::Open, "failed trial reopens");
        let t2 = t1 + Duration::from_secs(10);
        assert!(b.admit(t2));
        b.record(true, t2);
        assert_eq!(b.state_at(t2), BreakerState::Closed);
        assert!(b.admit(t2) && b.admit(t2));
    }

    #[test]
    fn success_resets_the_count() {
        let b = Breaker::new(BreakerConfig {
            threshold: 2,
            cooldown: Duration::from_secs(1),
        });
        let t = Instant::now();
        b.record(false, t);
        b.record(true, t);
        b.record(false, t);
        assert_eq!(b.state_at(t), BreakerState::Closed);
    }

    #[test]
    fn disabled_never_opens() {
        let b = Breaker::new(BreakerConfig::default());
        let t = Instant::now();
        for _ in 0..100 {
            b.record(false, t);
        }
        assert!(b.admit(t));
    }
}
