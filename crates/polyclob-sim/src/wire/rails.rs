//! The exchange's trading rails, enforced by the simulator: per-signer order and cancel token
//! buckets by tier (with the `Poly-RateLimit-*` headers, and `429` + `Retry-After` when a
//! bucket is short), post-only windows (`503` `{"code":"post_only_mode",
//! "retry_after_seconds":…}`), closed-only accounts, `GET /v1/user/rate-limit-tier`, and the
//! per-IP limits of the edge ([`SimBuilder::ip_limit`](crate::SimBuilder::ip_limit)).
//!
//! The per-IP limits are exact sliding logs (the docs: "Limits reset on sliding time
//! windows"): a request is refused when a limit covering it already counted `count`
//! requests in the `window` before its arrival. The live edge throttles (queues) such a
//! request, or, on the Data API, answers `429` with `Retry-After`; the simulator answers `429`
//! with `Retry-After` on every host, so that a client that exceeds a limit sees it. A refused
//! request is not counted.
//!
//! The buckets are an independent implementation of the documented rule
//! (docs.polymarket.com/api-reference/trading-rate-limits): a classic token bucket counted in
//! micro-tokens, refilled continuously at the tier's rate up to its burst. A request is
//! admitted only when the bucket holds its whole cost (batches are all or nothing). Being a
//! different formulation from the client's GCRA governor, it checks it rather than mirrors it.
//!
//! The buckets run on arrival times, stamped when the server reads a request's head: the
//! exchange's limiter sits at its edge, ahead of its handlers. Metering when the handler
//! reached the request instead would let the simulator's own queueing (one exchange lock, a
//! busy machine) bunch requests the client spaced correctly, and answer 429s the exchange
//! would not.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hyper::StatusCode;
use hyper::header::{HeaderName, HeaderValue, RETRY_AFTER};

use polyclob::http::{Bucket, Tier};

use super::http::{Resp, json_response};

const MICRO: u64 = 1_000_000;

/// What the rails did so far, for tests and dashboards.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RailStats {
    /// Metered trading requests admitted.
    pub admitted: u64,
    /// Trading requests answered `429`.
    pub rate_limited: u64,
    /// Requests answered with `Poly-RateLimit-Warning: true` (warning mode only).
    pub warned: u64,
    /// Orders refused by a post-only window.
    pub post_only_refused: u64,
    /// Requests answered `429` by a per-IP limit ([`SimBuilder::ip_limit`](crate::SimBuilder::ip_limit)).
    pub ip_rate_limited: u64,
}

/// One per-IP limit: `count` requests per sliding `window` on the requests it covers, and
/// the arrival times it counted, oldest first.
#[derive(Debug, Clone)]
pub(crate) struct IpLimit {
    /// `None` = every method.
    method: Option<String>,
    /// An exact path, or a prefix when it ends with `*`.
    path: String,
    count: u32,
    window: Duration,
    log: std::collections::VecDeque<Instant>,
}

impl IpLimit {
    pub(crate) fn new(method: Option<&str>, path: &str, count: u32, window: Duration) -> Self {
        Self {
            method: method.map(str::to_ascii_uppercase),
            path: path.to_owned(),
            count,
            window,
            log: std::collections::VecDeque::new(),
        }
    }

    fn covers(&self, method: &str, path: &str) -> bool {
        self.method.as_deref().is_none_or(|m| m == method)
            && match self.path.strip_suffix('*') {
                Some(prefix) => path.starts_with(prefix),
                None => path == self.path,
            }
    }

    /// Forgets arrivals out of every window that ends at `at` or later.
    fn expire(&mut self, at: Instant) {
        while self
            .log
            .front()
            .is_some_and(|&t| at.saturating_duration_since(t) >= self.window)
        {
            self.log.pop_front();
        }
    }
}

/// When the server read a request's head: its time in the rate-limit buckets. Set by the
/// server on every request's extensions before anything else runs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Arrival(pub(crate) Instant);

#[derive(Debug)]
struct TokenBucket {
    micro: u64,
    at: Instant,
}

/// The rails' state, behind its own lock in the server's shared state.
#[derive(Debug, Default)]
pub(crate) struct Rails {
    /// The tier of signers without their own; `None` = trading limits off.
    default_tier: Option<Tier>,
    tiers: HashMap<String, Tier>,
    warning_only: bool,
    buckets: HashMap<(String, Bucket), TokenBucket>,
    post_only_until: Option<Instant>,
    closed_only: HashSet<String>,
    /// Accounts whose CLOB orders must come from their deposit wallet (POLY_1271).
    deposit_wallet_only: HashSet<String>,
    ip_limits: Vec<IpLimit>,
    stats: RailStats,
}

/// The headers of an admitted request.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Admitted {
    remaining: u64,
    reset: u64,
    tier: Tier,
    warning: bool,
}

fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

impl Rails {
    pub(crate) fn new(default_tier: Option<Tier>, warning_only: bool) -> Self {
        Self {
            default_tier,
            warning_only,
            ..Self::default()
        }
    }

    pub(crate) fn stats(&self) -> RailStats {
        self.stats
    }

    pub(crate) fn set_ip_limits(&mut self, limits: Vec<IpLimit>) {
        self.ip_limits = limits;
    }

    /// Counts a `method` request to `path` that arrived `at` in every per-IP limit covering
    /// it, or refuses it with the time until the limit that is full has room (every limit
    /// is checked before any counts it). An arrival later than `at` already counted (the
    /// handlers run in about, not exactly, arrival order) is counted as in the window.
    pub(crate) fn ip_admit(
        &mut self,
        method: &str,
        path: &str,
        at: Instant,
    ) -> Result<(), Duration> {
        let mut wait = Duration::ZERO;
        for l in self.ip_limits.iter_mut().filter(|l| l.covers(method, path)) {
            l.expire(at);
            if l.log.len() >= l.count as usize {
                let oldest = l.log.front().copied().unwrap_or(at);
                wait = wait.max(
                    l.window
                        .saturating_sub(at.saturating_duration_since(oldest)),
                );
            }
        }
        if !wait.is_zero() {
            self.stats.ip_rate_limited += 1;
            return Err(wait);
        }
        for l in self.ip_limits.iter_mut().filter(|l| l.covers(method, path)) {
            let i = l.log.partition_point(|&t| t <= at);
            l.log.insert(i, at);
        }
        Ok(())
    }

    pub(crate) fn set_tier(&mut self, address: String, tier: Tier) {
        self.tiers.insert(address, tier);
    }

    pub(crate) fn set_default_tier(&mut self, tier: Option<Tier>) {
        self.default_tier = tier;
    }

    pub(crate) fn tier_of(&self, address: &str) -> Tier {
        self.tiers
            .get(address)
            .copied()
            .or(self.default_tier)
            .unwrap_or_default()
    }

    pub(crate) fn set_post_only(&mut self, for_: Option<Duration>) {
        self.post_only_until = for_.map(|d| Instant::now() + d);
    }

    pub(crate) fn set_closed_only(&mut self, address: String, on: bool) {
        if on {
            self.closed_only.insert(address);
        } else {
            self.closed_only.remove(&address);
        }
    }

    pub(crate) fn is_closed_only(&self, address: &str) -> bool {
        self.closed_only.contains(address)
    }

    pub(crate) fn set_deposit_wallet_only(&mut self, address: String, on: bool) {
        if on {
            self.deposit_wallet_only.insert(address);
        } else {
            self.deposit_wallet_only.remove(&address);
        }
    }

    pub(crate) fn is_deposit_wallet_only(&self, address: &str) -> bool {
        self.deposit_wallet_only.contains(address)
    }

    /// Meters `cost` tokens of `address`'s `bucket` for a request that arrived `at`: the
    /// headers to stamp, or the `429`.
    ///
    /// Requests are handled in about, not exactly, their arrival order: one that arrived
    /// before the bucket's last update is metered at that update's time (the bucket's clock
    /// never runs back, so no refill is counted twice).
    pub(crate) fn admit(
        &mut self,
        address: &str,
        bucket: Bucket,
        cost: u32,
        at: Instant,
    ) -> Result<Option<Admitted>, Box<Resp>> {
        if self.default_tier.is_none() && !self.tiers.contains_key(address) {
            return Ok(None);
        }
        let tier = self.tier_of(address);
        let limit = tier.limit(bucket);
        let (rate, cap) = (u64::from(limit.per_second), u64::from(limit.burst) * MICRO);
        let b = self
            .buckets
            .entry((address.to_owned(), bucket))
            .or_insert(TokenBucket { micro: cap, at });
        let now = at.max(b.at);
        // Refill: `rate` tokens a second = `rate` micro-tokens a microsecond.
        let elapsed_us = u64::try_from(now.duration_since(b.at).as_micros()).unwrap_or(u64::MAX);
        b.micro = b
            .micro
            .saturating_add(elapsed_us.saturating_mul(rate))
            .min(cap);
        b.at = now;
        let need = u64::from(cost) * MICRO;
        let full_in = |micro: u64| (cap - micro.min(cap)) as f64 / (rate * MICRO) as f64;
        if b.micro >= need || self.warning_only {
            let warning = b.micro < need;
            b.micro = b.micro.saturating_sub(need);
            let left = b.micro;
            self.stats.admitted += 1;
            self.stats.warned += u64::from(warning);
            return Ok(Some(Admitted {
                remaining: left / MICRO,
                reset: (unix_now() + full_in(left)).ceil() as u64,
                tier,
                warning,
            }));
        }
        self.stats.rate_limited += 1;
        // Whole seconds, rounded up, never 0: the soonest the whole cost is there (a cost
        // above the burst never is; the answer then names the time to a full bucket).
        let short = need.min(cap).saturating_sub(b.micro);
        let wait = (short as f64 / (rate * MICRO) as f64).ceil().max(1.0) as u64;
        let mut r = json_response(
            StatusCode::TOO_MANY_REQUESTS,
            serde_json::json!({
                "error": format!(
                    "rate limit exceeded: {} bucket of tier {} holds {} tokens, request costs {cost}",
                    bucket.as_str(),
                    tier.as_str(),
                    b.micro / MICRO
                )
            })
            .to_string(),
        );
        let h = r.headers_mut();
        h.insert(RETRY_AFTER, HeaderValue::from(wait));
        stamp(
            h,
            &Admitted {
                remaining: b.micro / MICRO,
                reset: (unix_now() + full_in(b.micro)).ceil() as u64,
                tier,
                warning: false,
            },
        );
        Err(Box::new(r))
    }

    /// The open post-only window's time left.
    pub(crate) fn post_only_left(&self) -> Option<Duration> {
        self.post_only_until
            .and_then(|end| end.checked_duration_since(Instant::now()))
            .filter(|d| !d.is_zero())
    }

    /// The exchange's post-only refusal.
    pub(crate) fn post_only_refusal(&mut self, left: Duration) -> Resp {
        self.stats.post_only_refused += 1;
        let secs = left.as_secs() + u64::from(left.subsec_nanos() > 0);
        json_response(
            StatusCode::SERVICE_UNAVAILABLE,
            serde_json::json!({
                "error": "post-only mode: only post-only orders and cancels are allowed",
                "code": "post_only_mode",
                "retry_after_seconds": secs,
            })
            .to_string(),
        )
    }
}

fn stamp(h: &mut hyper::HeaderMap, a: &Admitted) {
    let pairs = [
        ("poly-ratelimit-remaining", a.remaining.to_string()),
        ("poly-ratelimit-reset", a.reset.to_string()),
        ("poly-ratelimit-tier", a.tier.as_str().to_owned()),
    ];
    for (k, v) in pairs {
        if let Ok(v) = HeaderValue::from_str(&v) {
            h.insert(HeaderName::from_static(k), v);
        }
    }
    if a.warning {
        h.insert(
            HeaderName::from_static("poly-ratelimit-warning"),
            HeaderValue::from_static("true"),
        );
    }
}

/// Adds an admitted request's headers to its answer.
pub(crate) fn stamped(mut r: Resp, a: Option<Admitted>) -> Resp {
    if let Some(a) = a {
        stamp(r.headers_mut(), &a);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_burst_then_429_with_retry_after() {
        let mut r = Rails::new(Some(Tier::Standard), false);
        for i in 0..60 {
            let a = r
                .admit("0xa", Bucket::Order, 1, Instant::now())
                .ok()
                .flatten();
            assert_eq!(a.map(|a| a.remaining), Some(59 - i));
        }
        let refused = r.admit("0xa", Bucket::Order, 1, Instant::now()).err();
        let refused = refused.map(|resp| {
            (
                resp.status(),
                resp.headers()
                    .get(RETRY_AFTER)
                    .and_then(|v| v.to_str().ok().map(str::to_owned)),
            )
        });
        assert_eq!(
            refused,
            Some((StatusCode::TOO_MANY_REQUESTS, Some("1".to_owned())))
        );
        // Cancels and other signers are untouched.
        assert!(r.admit("0xa", Bucket::Cancel, 120, Instant::now()).is_ok());
        assert!(r.admit("0xb", Bucket::Order, 60, Instant::now()).is_ok());
        // All or nothing: 121 never fits a Standard cancel bucket.
        assert!(r.admit("0xb", Bucket::Cancel, 121, Instant::now()).is_err());
        assert!(r.admit("0xb", Bucket::Cancel, 120, Instant::now()).is_ok());
        assert_eq!(r.stats().rate_limited, 2);
    }

    #[test]
    fn buckets_run_on_arrival_times() {
        let mut r = Rails::new(Some(Tier::Standard), false);
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        assert!(r.admit("0xa", Bucket::Order, 60, at(0)).is_ok());
        // Arrived 10 ms after the burst: less than a token back.
        assert!(r.admit("0xa", Bucket::Order, 1, at(10)).is_err());
        // Arrived one refill interval (25 ms at 40/s) after the burst: one token.
        assert!(r.admit("0xa", Bucket::Order, 1, at(25)).is_ok());
        // Arrived before that one but handled after it: the bucket's clock does not run back
        // to refill the same interval again.
        assert!(r.admit("0xa", Bucket::Order, 1, at(20)).is_err());
        assert!(r.admit("0xa", Bucket::Order, 1, at(49)).is_err());
        assert!(r.admit("0xa", Bucket::Order, 1, at(50)).is_ok());
        assert_eq!(r.stats().rate_limited, 3);
    }

    #[test]
    fn off_by_default_and_per_signer_tiers() {
        let mut r = Rails::new(None, false);
        assert!(matches!(
            r.admit("0xa", Bucket::Order, 1000, Instant::now()),
            Ok(None)
        ));
        r.set_tier("0xa".into(), Tier::Silver);
        assert!(r.admit("0xa", Bucket::Order, 300, Instant::now()).is_ok());
        assert!(r.admit("0xa", Bucket::Order, 1, Instant::now()).is_err());
        assert!(matches!(
            r.admit("0xb", Bucket::Order, 1000, Instant::now()),
            Ok(None)
        ));
    }

    #[test]
    fn warning_mode_admits_and_flags() {
        let mut r = Rails::new(Some(Tier::Standard), true);
        assert!(r.admit("0xa", Bucket::Order, 60, Instant::now()).is_ok());
        let a = r
            .admit("0xa", Bucket::Order, 1, Instant::now())
            .ok()
            .flatten();
        assert!(a.is_some_and(|a| a.warning));
        assert_eq!(r.stats().warned, 1);
    }

    #[test]
    fn post_only_windows() {
        let mut r = Rails::default();
        assert_eq!(r.post_only_left(), None);
        r.set_post_only(Some(Duration::from_secs(30)));
        let left = r.post_only_left().unwrap_or_default();
        assert!(left > Duration::from_secs(29));
        let resp = r.post_only_refusal(left);
        assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
        r.set_post_only(None);
        assert_eq!(r.post_only_left(), None);
    }

    #[test]
    fn ip_limits_are_sliding_logs() {
        let mut r = Rails::default();
        r.set_ip_limits(vec![
            IpLimit::new(Some("delete"), "/cancel-all", 3, Duration::from_secs(10)),
            IpLimit::new(None, "/data-api/*", 4, Duration::from_secs(10)),
        ]);
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        for i in 0..3 {
            assert_eq!(r.ip_admit("DELETE", "/cancel-all", at(i)), Ok(()));
        }
        // Full until the first of the three leaves the window, 10 s after it came.
        assert_eq!(
            r.ip_admit("DELETE", "/cancel-all", at(5_000)),
            Err(Duration::from_millis(5_000))
        );
        assert_eq!(
            r.ip_admit("GET", "/cancel-all", at(5_000)),
            Ok(()),
            "another method"
        );
        assert_eq!(r.ip_admit("DELETE", "/cancel-all", at(10_000)), Ok(()));
        for _ in 0..4 {
            assert_eq!(r.ip_admit("GET", "/data-api/v2/trades", at(1)), Ok(()));
        }
        assert!(r.ip_admit("GET", "/data-api/v2/status", at(2)).is_err());
        assert_eq!(r.stats().ip_rate_limited, 2);
    }
}
