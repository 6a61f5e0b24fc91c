//! Retry policy: which requests may be retried, and how long to wait.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::error::Error;

/// How idempotent requests are retried: exponential backoff with full jitter, honouring the
/// server's `Retry-After` as a minimum and spreading retries past it with jitter (so many
/// requests refused together do not come back as one synchronised wave). A `Retry-After`
/// longer than [`max`](Self::max) is not waited for: the error is returned with it.
///
/// Non-idempotent requests (`POST /order`, `POST /orders`, API-key creation) are never
/// retried: the exchange may already have acted on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt. `0` disables retrying.
    pub max_retries: u32,
    /// The first backoff ceiling; doubled on every retry.
    pub base: Duration,
    /// The largest wait, also the cap on a server's `Retry-After`.
    pub max: Duration,
}

impl Default for RetryPolicy {
    /// Two retries, 50 ms base, 2 s cap.
    fn default() -> Self {
        Self {
            max_retries: 2,
            base: Duration::from_millis(50),
            max: Duration::from_secs(2),
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    #[must_use]
    pub const fn none() -> Self {
        Self {
            max_retries: 0,
            base: Duration::ZERO,
            max: Duration::ZERO,
        }
    }

    /// The wait before retry number `attempt` (0-based) after `err`, or `None` when the error
    /// is not worth retrying or the budget is spent.
    pub(crate) fn delay(&self, attempt: u32, err: &Error) -> Option<Duration> {
        if attempt >= self.max_retries || !err.is_transient() {
            return None;
        }
        if let Some(ra) = err.retry_after() {
            // Retrying before Retry-After only draws another refusal.
            if ra > self.max {
                return None;
            }
            let spread = (ra / 4).max(self.base);
            return Some((ra + extra(spread)).min(self.max.max(ra)));
        }
        let ceiling = self
            .base
            .saturating_mul(1u32 << attempt.min(16))
            .min(self.max);
        Some(jitter(ceiling))
    }
}

/// Full jitter: uniform in `[ceiling/2, ceiling]` so retries of many clients spread out but
/// never collapse to zero.
fn jitter(ceiling: Duration) -> Duration {
    let nanos = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX);
    let half = nanos / 2;
    Duration::from_nanos(half + if half == 0 { 0 } else { random() % (half + 1) })
}

/// Uniform in `[0, spread]`: what is added to a `Retry-After`.
fn extra(spread: Duration) -> Duration {
    let nanos = u64::try_from(spread.as_nanos()).unwrap_or(u64::MAX);
    Duration::from_nanos(if nanos == 0 {
        0
    } else {
        random() % (nanos + 1)
    })
}

fn random() -> u64 {
    static STATE: AtomicU64 = AtomicU64::new(0x9E37_79B9_7F4A_7C15);
    // splitmix64 over a shared counter: cheap, lock-free, good enough to decorrelate clients.
    let mut z = STATE.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
        ^ u64::from(std::process::id())
        ^ std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::from(d.subsec_nanos()));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Parses `Retry-After` in its delta-seconds form (the form APIs use). HTTP dates are ignored.
pub(crate) fn parse_retry_after(value: &[u8]) -> Option<Duration> {
    let s = core::str::from_utf8(value).ok()?.trim();
    if let Ok(secs) = s.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let f = s.parse::<f64>().ok()?;
    (f.is_finite() && (0.0..86_400.0).contains(&f)).then(|| Duration::from_secs_f64(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        let p = RetryPolicy {
            max_retries: 10,
            base: Duration::from_millis(100),
            max: Duration::from_millis(400),
        };
        let e = Error::from_status(502, b"", None);
        for attempt in 0..10 {
            let d = p.delay(attempt, &e).expect("transient error within budget");
            let ceiling = Duration::from_millis(100 * (1 << attempt.min(2)));
            assert!(d <= ceiling && d >= ceiling / 2, "{attempt}: {d:?}");
        }
        assert_eq!(p.delay(10, &e), None);
    }

    #[test]
    fn retry_after_is_a_minimum_spread_by_jitter() {
        let p = RetryPolicy::default();
        let e = Error::from_status(429, b"", Some(Duration::from_millis(300)));
        // 300 ms plus up to max(300/4, 50) ms.
        let waits: Vec<Duration> = (0..200).map(|_| p.delay(0, &e).unwrap()).collect();
        assert!(
            waits
                .iter()
                .all(|d| *d >= Duration::from_millis(300) && *d <= Duration::from_millis(375)),
            "{waits:?}"
        );
        let distinct: std::collections::HashSet<_> = waits.iter().collect();
        assert!(
            distinct.len() > 100,
            "retries must not come back as one wave"
        );
        let e = Error::from_status(429, b"", Some(Duration::from_secs(1)));
        let p2 = RetryPolicy {
            max: Duration::from_secs(1),
            ..p
        };
        assert_eq!(
            p2.delay(0, &e),
            Some(Duration::from_secs(1)),
            "capped at max"
        );
        // Longer than the policy waits: not retried, the caller sees the hint.
        let e = Error::from_status(429, b"", Some(Duration::from_secs(60)));
        assert_eq!(p.delay(0, &e), None);
    }

    #[test]
    fn permanent_errors_are_not_retried() {
        let p = RetryPolicy::default();
        assert_eq!(p.delay(0, &Error::from_status(400, b"", None)), None);
        assert_eq!(p.delay(0, &Error::decode("x")), None);
    }

    #[test]
    fn retry_after_forms() {
        assert_eq!(parse_retry_after(b" 3 "), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after(b"0.5"), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after(b"Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(parse_retry_after(b"-1"), None);
        assert_eq!(parse_retry_after(b"\xff"), None);
    }
}
