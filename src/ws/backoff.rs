//! Reconnect delays: exponential growth with jitter, capped, reset after a healthy session.
//!
//! Official clients back off from 1 s to 60 s ([protocol facts §5.2]); jitter spreads the
//! reconnects of many shards (or many processes) so a server restart is not met by a
//! synchronised stampede.
//!
//! [protocol facts §5.2]: https://docs.polymarket.com/developers/CLOB/websocket/wss-overview

use std::time::Duration;

/// Exponential backoff with "equal jitter": each delay is drawn uniformly from
/// `[d/2, d]`, where `d` doubles after every failed attempt up to the cap.
///
/// Half of the delay is fixed so the growth is guaranteed; the other half is random so
/// shards never retry in lockstep.
///
/// ```
/// use polyclob::ws::backoff::Backoff;
/// use std::time::Duration;
///
/// let mut b = Backoff::new(Duration::from_millis(100), Duration::from_secs(1), 7);
/// let first = b.next_delay();
/// assert!(first >= Duration::from_millis(50) && first <= Duration::from_millis(100));
/// for _ in 0..10 {
///     assert!(b.next_delay() <= Duration::from_secs(1));
/// }
/// b.reset();
/// assert!(b.next_delay() <= Duration::from_millis(100));
/// ```
#[derive(Debug, Clone)]
pub struct Backoff {
    initial: Duration,
    max: Duration,
    current: Duration,
    rng: u64,
}

impl Backoff {
    /// A backoff starting at `initial`, doubling up to `max`, with jitter drawn from a
    /// generator seeded by `seed` (any value; shards use different seeds).
    ///
    /// `max` below `initial` is raised to `initial`.
    #[must_use]
    pub fn new(initial: Duration, max: Duration, seed: u64) -> Self {
        let max = max.max(initial);
        Self {
            initial,
            max,
            current: initial,
            rng: seed ^ 0x9E37_79B9_7F4A_7C15,
        }
    }

    /// The delay to wait before the next attempt; grows the base for the attempt after.
    pub fn next_delay(&mut self) -> Duration {
        let d = self.current;
        self.current = self.current.saturating_mul(2).min(self.max);
        let nanos = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        let half = nanos / 2;
        let span = nanos - half; // jitter range [0, span]
        let jitter = if span == 0 {
            0
        } else {
            self.next_u64() % (span + 1)
        };
        Duration::from_nanos(half + jitter)
    }

    /// Forget past failures: the next delay is drawn around `initial` again.
    pub fn reset(&mut self) {
        self.current = self.initial;
    }

    /// The base delay (before jitter) that the next call to [`next_delay`](Self::next_delay)
    /// will use.
    #[must_use]
    pub fn current_base(&self) -> Duration {
        self.current
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
    fn grows_doubles_and_caps() {
        let mut b = Backoff::new(100 * MS, 1000 * MS, 1);
        let bases: Vec<_> = (0..6)
            .map(|_| {
                let base = b.current_base();
                let d = b.next_delay();
                assert!(
                    d >= base / 2 && d <= base,
                    "{d:?} outside [{:?}, {base:?}]",
                    base / 2
                );
                base
            })
            .collect();
        assert_eq!(
            bases,
            [100 * MS, 200 * MS, 400 * MS, 800 * MS, 1000 * MS, 1000 * MS]
        );
    }

    #[test]
    fn reset_returns_to_initial() {
        let mut b = Backoff::new(10 * MS, 80 * MS, 2);
        for _ in 0..5 {
            b.next_delay();
        }
        assert_eq!(b.current_base(), 80 * MS);
        b.reset();
        assert_eq!(b.current_base(), 10 * MS);
    }

    #[test]
    fn jitter_spreads_and_seeds_decorrelate() {
        let draws = |seed| {
            let mut b = Backoff::new(1000 * MS, 1000 * MS, seed);
            (0..64).map(|_| b.next_delay()).collect::<Vec<_>>()
        };
        let a = draws(1);
        let distinct: std::collections::BTreeSet<_> = a.iter().collect();
        assert!(
            distinct.len() > 60,
            "jitter not spreading: {} distinct",
            distinct.len()
        );
        assert_ne!(a, draws(2));
        assert!(a.iter().any(|d| *d < 750 * MS) && a.iter().any(|d| *d > 750 * MS));
    }

    #[test]
    fn zero_and_inverted_bounds_do_not_panic() {
        let mut b = Backoff::new(Duration::ZERO, Duration::ZERO, 3);
        assert_eq!(b.next_delay(), Duration::ZERO);
        let mut b = Backoff::new(50 * MS, 10 * MS, 3);
        assert!(b.next_delay() <= 50 * MS);
        assert_eq!(b.current_base(), 50 * MS);
        let mut b = Backoff::new(Duration::MAX, Duration::MAX, 3);
        b.next_delay();
        b.next_delay();
    }
}
