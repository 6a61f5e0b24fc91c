//! Reconnect delays: one step per break, exponential, capped, with jitter.
//!
//! Every break of a stream (a close, a failed connect, silence, a sequence gap, lag …) takes
//! one step; the delay of step `n` is drawn from `min(cap, base·2ⁿ)` with jitter, so shards
//! (and processes) restarting together do not stampede the server. The connection resets the
//! steps only after it stayed up, unbroken, for a healthy period (see the feed policies in
//! [`feed`](super::feed)) — not on the first data frame, so a server that answers and then
//! breaks again is met with a growing delay. Official clients back off from 1 s to 60 s on the
//! CLOB channels ([Polymarket WSS overview]); PolyBolt's docs ask for full jitter from 1 s
//! to 30 s ([PolyBolt WebSocket]).
//!
//! [Polymarket WSS overview]: https://docs.polymarket.com/developers/CLOB/websocket/wss-overview
//! [PolyBolt WebSocket]: https://docs.polymarket.com/api-reference/live-data/overview

use std::time::Duration;

/// How a step's delay `d` is randomised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Jitter {
    /// Uniform on `[0, d]` ("full jitter").
    Full,
    /// Uniform on `[d/2, d]`: half of the growth is guaranteed.
    Equal,
}

/// Exponential backoff counted in steps.
///
/// ```
/// use polyclob::ws::backoff::{Backoff, Jitter};
/// use std::time::Duration;
///
/// let mut b = Backoff::new(Duration::from_millis(100), Duration::from_secs(1), Jitter::Equal, 7);
/// let first = b.next_delay();
/// assert!(first >= Duration::from_millis(50) && first <= Duration::from_millis(100));
/// assert_eq!(b.step(), 1);
/// for _ in 0..10 {
///     assert!(b.next_delay() <= Duration::from_secs(1));
/// }
/// b.reset();
/// assert_eq!(b.step(), 0);
/// ```
#[derive(Debug, Clone)]
pub struct Backoff {
    base: Duration,
    cap: Duration,
    jitter: Jitter,
    step: u32,
    rng: u64,
}

impl Backoff {
    /// A backoff whose step `n` waits about `min(cap, base·2ⁿ)`, randomised by `jitter` with a
    /// generator seeded by `seed` (any value; shards use different seeds). A `cap` below
    /// `base` is raised to `base`.
    #[must_use]
    pub fn new(base: Duration, cap: Duration, jitter: Jitter, seed: u64) -> Self {
        Self {
            base,
            cap: cap.max(base),
            jitter,
            step: 0,
            rng: seed ^ 0x9E37_79B9_7F4A_7C15,
        }
    }

    /// The delay of the current step; then takes the step (the next delay is drawn from twice
    /// the base, up to the cap).
    pub fn next_delay(&mut self) -> Duration {
        let d = self.ceiling();
        self.step = self.step.saturating_add(1);
        match self.jitter {
            Jitter::Full => self.uniform(d),
            Jitter::Equal => d / 2 + self.uniform(d - d / 2),
        }
    }

    /// The undrawn delay of the current step: `min(cap, base·2^step)`.
    #[must_use]
    pub fn ceiling(&self) -> Duration {
        let factor = 1u32.checked_shl(self.step.min(31)).unwrap_or(u32::MAX);
        self.base.saturating_mul(factor).min(self.cap)
    }

    /// Steps taken since the last reset.
    #[must_use]
    pub fn step(&self) -> u32 {
        self.step
    }

    /// Forgets past breaks: the next delay is step 0's again.
    pub fn reset(&mut self) {
        self.step = 0;
    }

    /// A delay drawn uniformly from `[0, max]`.
    pub fn uniform(&mut self, max: Duration) -> Duration {
        let nanos = u64::try_from(max.as_nanos()).unwrap_or(u64::MAX);
        if nanos == 0 {
            return Duration::ZERO;
        }
        Duration::from_nanos(self.next_u64() % nanos.saturating_add(1))
    }

    // splitmix64: tiny, fast, and good enough to decorrelate retry times.
    fn next_u64(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// A seed that differs between processes and between calls (time and a counter), for
/// callers that do not need reproducible jitter.
pub(crate) fn entropy_seed() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    t ^ n.wrapping_mul(0xA24B_AED4_963E_E407) ^ u64::from(std::process::id()).rotate_left(32)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn steps_double_and_cap_within_their_jitter() {
        for jitter in [Jitter::Equal, Jitter::Full] {
            let mut b = Backoff::new(100 * MS, 1000 * MS, jitter, 1);
            let ceilings: Vec<_> = (0..6)
                .map(|n| {
                    assert_eq!(b.step(), n);
                    let c = b.ceiling();
                    let d = b.next_delay();
                    let low = if jitter == Jitter::Equal {
                        c / 2
                    } else {
                        Duration::ZERO
                    };
                    assert!(d >= low && d <= c, "{d:?} outside [{low:?}, {c:?}]");
                    c
                })
                .collect();
            assert_eq!(
                ceilings,
                [100 * MS, 200 * MS, 400 * MS, 800 * MS, 1000 * MS, 1000 * MS]
            );
        }
    }

    #[test]
    fn reset_returns_to_step_zero() {
        let mut b = Backoff::new(10 * MS, 80 * MS, Jitter::Equal, 2);
        for _ in 0..5 {
            b.next_delay();
        }
        assert_eq!(b.ceiling(), 80 * MS);
        b.reset();
        assert_eq!((b.step(), b.ceiling()), (0, 10 * MS));
    }

    #[test]
    fn jitter_spreads_and_seeds_decorrelate() {
        let draws = |seed, jitter| {
            let mut b = Backoff::new(1000 * MS, 1000 * MS, jitter, seed);
            (0..64).map(|_| b.next_delay()).collect::<Vec<_>>()
        };
        let a = draws(1, Jitter::Equal);
        let distinct: std::collections::BTreeSet<_> = a.iter().collect();
        assert!(distinct.len() > 60, "{} distinct", distinct.len());
        assert_ne!(a, draws(2, Jitter::Equal));
        assert!(a.iter().any(|d| *d < 750 * MS) && a.iter().any(|d| *d > 750 * MS));
        // Full jitter reaches below half the ceiling.
        assert!(draws(3, Jitter::Full).iter().any(|d| *d < 250 * MS));
    }

    #[test]
    fn zero_huge_and_inverted_bounds_do_not_panic() {
        let mut b = Backoff::new(Duration::ZERO, Duration::ZERO, Jitter::Full, 3);
        assert_eq!(b.next_delay(), Duration::ZERO);
        let mut b = Backoff::new(50 * MS, 10 * MS, Jitter::Equal, 3);
        assert!(b.next_delay() <= 50 * MS);
        assert_eq!(b.ceiling(), 50 * MS);
        let mut b = Backoff::new(Duration::MAX, Duration::MAX, Jitter::Equal, 3);
        for _ in 0..40 {
            b.next_delay();
        }
        assert_eq!(b.uniform(Duration::ZERO), Duration::ZERO);
    }
}
