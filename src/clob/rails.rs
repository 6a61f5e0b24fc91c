//! The client-side rails every request passes before and after the wire: the rate-limit
//! governor, the trading-restriction windows and the heartbeat guard. (The per-IP pacers
//! are the transport's: [`http::Client::pace`](crate::http::Client::pace), after these.)
//!
//! [`Client::send`](super::Client) calls [`Rails::before`] for each attempt (which may wait, or
//! refuse with a typed error and no I/O) and [`Rails::after`] with the response's status and
//! headers. Requests the rails do not meter (market data without pacing, account reads) pass
//! through after one `match` on the path.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Deserialize;

use super::guard::HeartbeatGuard;
use super::request::Req;
use crate::http::{Bucket, Error, Governor, Rail, RateLimitStatus, Throttle, Tier};

/// What the builder chose.
#[derive(Debug, Clone, Default)]
pub(crate) struct RailsConfig {
    pub(crate) throttle: Throttle,
    pub(crate) tier: Option<Tier>,
    pub(crate) governor: Option<Arc<Governor>>,
}

/// A window announced by the exchange (post-only, cancel-only), as nanoseconds since `origin`
/// when it ends; 0 = none.
#[derive(Debug, Default)]
struct Window(AtomicU64);

impl Window {
    fn open_until(&self, end: u64) {
        self.0.fetch_max(end, Ordering::AcqRel);
    }

    /// The time left, if the window is open at `now`.
    fn left(&self, now: u64) -> Option<Duration> {
        let end = self.0.load(Ordering::Acquire);
        (end > now).then(|| Duration::from_nanos(end - now))
    }
}

/// The rails of one client (shared by its clones).
#[derive(Debug)]
pub(crate) struct Rails {
    origin: Instant,
    pub(crate) governor: Arc<Governor>,
    throttle: Throttle,
    post_only: Window,
    cancel_only: Window,
    pub(crate) heartbeat: HeartbeatGuard,
    /// Attempts delayed by the governor, and the nanoseconds they waited.
    delays: AtomicU64,
    delay_ns: AtomicU64,
    pub(crate) heartbeat_failures: AtomicU64,
}

impl Rails {
    /// Ids one `DELETE /orders` may carry here: the exchange's limit, or, with the governor
    /// on, the cancel bucket's burst when that is smaller (a batch must fit the bucket whole,
    /// else it is refused as over capacity).
    pub(crate) fn cancel_chunk(&self, exchange_limit: usize) -> usize {
        let burst = match self.throttle {
            Throttle::Off => usize::MAX,
            Throttle::Refuse | Throttle::Wait(_) => {
                usize::try_from(self.governor.burst(Bucket::Cancel)).unwrap_or(usize::MAX)
            }
        };
        exchange_limit.min(burst).max(1)
    }

    pub(crate) fn new(config: RailsConfig) -> Self {
        let governor = config
            .governor
            .unwrap_or_else(|| Arc::new(Governor::new(config.tier.unwrap_or_default())));
        if let Some(t) = config.tier {
            governor.set_tier(t);
        }
        Self {
            origin: Instant::now(),
            governor,
            throttle: config.throttle,
            post_only: Window::default(),
            cancel_only: Window::default(),
            heartbeat: HeartbeatGuard::new(),
            delays: AtomicU64::new(0),
            delay_ns: AtomicU64::new(0),
            heartbeat_failures: AtomicU64::new(0),
        }
    }

    /// Counts a rate-limit `wait` (non-zero) about to be slept and records it on the
    /// request's span.
    fn count_delay(&self, wait: Duration) {
        self.delays.fetch_add(1, Ordering::Relaxed);
        let ns = u64::try_from(wait.as_nanos()).unwrap_or(u64::MAX);
        self.delay_ns.fetch_add(ns, Ordering::Relaxed);
        crate::telemetry::record!(
            tracing::Span::current(),
            "rate_limit_wait_ms",
            crate::telemetry::ms(wait)
        );
    }

    /// The rails' share of [`ClientCounters`](crate::http::ClientCounters), added to the
    /// transport's (whose pacers delay attempts too).
    pub(crate) fn fill_counters(&self, c: &mut crate::http::ClientCounters) {
        c.throttle_delays += self.delays.load(Ordering::Relaxed);
        c.throttle_delay += Duration::from_nanos(self.delay_ns.load(Ordering::Relaxed));
        c.heartbeat_failures = self.heartbeat_failures.load(Ordering::Relaxed);
    }

    fn ns(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.origin).as_nanos()).unwrap_or(u64::MAX)
    }

    /// Runs before each attempt of `req`: may wait (`Throttle::Wait`) or refuse. Returns the
    /// bucket the request drew from, for [`after`](Self::after).
    pub(crate) async fn before(&self, req: &Req<'_>) -> Result<Option<Bucket>, Error> {
        let body = req.body.as_deref().unwrap_or_default();
        let Some((bucket, cost)) = crate::http::ratelimit::price(&req.method, req.path, body)
        else {
            return Ok(None);
        };
        if bucket == Bucket::Order {
            self.check_order(body, cost)?;
        }
        let max_wait = match self.throttle {
            Throttle::Off => return Ok(Some(bucket)),
            Throttle::Refuse => Duration::ZERO,
            Throttle::Wait(d) => d,
        };
        let admitted = self.governor.admit(bucket, cost, max_wait, |wait| {
            crate::telemetry::event!(
                INFO,
                "polyclob.governor.wait",
                endpoint = req.path,
                bucket = ?bucket,
                cost,
                wait_ms = crate::telemetry::ms(wait),
            );
            self.count_delay(wait);
        });
        match admitted.await {
            Ok(()) => Ok(Some(bucket)),
            Err(t) => Err({
                crate::telemetry::event!(
                    WARN,
                    "polyclob.governor.refused",
                    endpoint = req.path,
                    bucket = ?bucket,
                    cost,
                    wait_ms = crate::telemetry::ms(t.wait),
                    over_capacity = t.over_capacity,
                );
                Error::refused(
                    Rail::Throttled {
                        over_capacity: t.over_capacity,
                    },
                    t.to_string(),
                    (!t.over_capacity).then_some(t.wait),
                )
                .with_path(req.path)
            }),
        }
    }

    /// The order-only rails: heartbeat guard, cancel-only and post-only windows.
    fn check_order(&self, body: &[u8], cost: u32) -> Result<(), Error> {
        let now = Instant::now();
        self.heartbeat.check(now)?;
        let t = self.ns(now);
        if let Some(left) = self.cancel_only.left(t) {
            return Err(Error::refused(
                Rail::CancelOnly,
                format!(
                    "the exchange is cancel-only for another {} ms: new orders are not accepted",
                    left.as_millis()
                ),
                Some(left),
            ));
        }
        if let Some(left) = self.post_only.left(t) {
            if post_only_count(body) < cost {
                return Err(Error::refused(
                    Rail::PostOnly,
                    format!(
                        "the exchange is post-only for another {} ms: only post-only orders are accepted",
                        left.as_millis()
                    ),
                    Some(left),
                ));
            }
        }
        Ok(())
    }

    /// Runs after each answer of a metered request sent at `sent` (when [`before`](Self::before)
    /// let it go): folds the rate-limit headers into the governor and opens restriction
    /// windows the server announced.
    pub(crate) fn after(
        &self,
        bucket: Option<Bucket>,
        sent: Instant,
        status: Option<&RateLimitStatus>,
        result: &Result<bytes::Bytes, Error>,
        path: &str,
    ) {
        let Some(bucket) = bucket else { return };
        let now = Instant::now();
        if let Some(st) = status {
            self.governor.observe(st, sent, now);
        } else if let Err(e) = result {
            // A 429 without the exchange's headers still holds the bucket for Retry-After.
            if e.is_rate_limited() {
                let st = RateLimitStatus {
                    bucket: Some(bucket),
                    status: 429,
                    retry_after: e.retry_after(),
                    ..RateLimitStatus::default()
                };
                self.governor.observe(&st, sent, now);
            }
        }
        match result {
            Ok(body) if matches!(path, "/cancel-all" | "/cancel-market-orders") => {
                // Cancel-all costs 1 + the number cancelled; the 1 was taken before sending.
                let n = cancelled_count(body);
                if n > 0 {
                    self.governor.charge(Bucket::Cancel, n, now);
                }
            }
            Err(e) if bucket == Bucket::Order => {
                let Some(wait) = e.retry_after() else { return };
                let end = self
                    .ns(now)
                    .saturating_add(u64::try_from(wait.as_nanos()).unwrap_or(0));
                if e.is_post_only_mode() {
                    self.post_only.open_until(end);
                } else if e.is_cancel_only() {
                    self.cancel_only.open_until(end);
                }
            }
            _ => {}
        }
    }
}

/// How many orders of a body say `"postOnly": true`.
fn post_only_count(body: &[u8]) -> u32 {
    const KEY: &[u8] = b"\"postOnly\"";
    let mut n = 0u32;
    let mut i = 0;
    while let Some(at) = body[i..].windows(KEY.len()).position(|w| w == KEY) {
        let mut j = i + at + KEY.len();
        while j < body.len() && matches!(body[j], b' ' | b':' | b'\t' | b'\r' | b'\n') {
            j += 1;
        }
        if body[j..].starts_with(b"true") {
            n += 1;
        }
        i = j;
    }
    n
}

/// The length of a cancel answer's `canceled` array (0 when it does not parse).
fn cancelled_count(body: &[u8]) -> u64 {
    #[derive(Deserialize)]
    struct C {
        #[serde(default)]
        canceled: Vec<serde::de::IgnoredAny>,
    }
    crate::json::from_body::<C>(body).map_or(0, |c| c.canceled.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn post_only_bodies() {
        assert_eq!(post_only_count(br#"{"order":{},"postOnly":true}"#), 1);
        assert_eq!(post_only_count(br#"{"order":{},"postOnly":false}"#), 0);
        assert_eq!(
            post_only_count(br#"[{"postOnly": true},{"postOnly":false},{"postOnly" :true}]"#),
            2
        );
        assert_eq!(post_only_count(br#"{"postOnly""#), 0);
        assert_eq!(post_only_count(b""), 0);
    }

    #[test]
    fn cancelled_counts() {
        assert_eq!(
            cancelled_count(br#"{"canceled":["a","b"],"not_canceled":{}}"#),
            2
        );
        assert_eq!(cancelled_count(b"garbage"), 0);
    }

    #[test]
    fn windows_close() {
        let w = Window::default();
        assert_eq!(w.left(0), None);
        w.open_until(100);
        assert_eq!(w.left(40), Some(Duration::from_nanos(60)));
        w.open_until(50);
        assert_eq!(w.left(99), Some(Duration::from_nanos(1)));
        assert_eq!(w.left(100), None);
    }
}
