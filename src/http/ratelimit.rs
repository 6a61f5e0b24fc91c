//! Per-signer trading rate limits: the exchange's token buckets mirrored on the client.
//!
//! The exchange meters each signer's orders and cancels in two separate token buckets whose
//! refill rate and capacity ("burst") depend on the account's volume tier
//! (<https://docs.polymarket.com/api-reference/trading-rate-limits>). `POST /order` costs 1,
//! `POST /orders` one per order, `DELETE /order` 1, `DELETE /orders` one per id, cancel-all and
//! cancel-market-orders 1 + the number cancelled. A batch is admitted whole or not at all.
//!
//! [`Governor`] keeps the same two buckets locally, so an order the exchange would refuse with
//! a 429 is refused (or delayed) before it leaves the process. Each bucket is a lock-free GCRA
//! ("virtual scheduling") cell: one atomic word holds the theoretical arrival time, so taking
//! `n` tokens is one compare-and-swap, all or nothing, and a refusal knows exactly when the
//! request could go. The tier can change at run time (learnt from `Poly-RateLimit-Tier` or
//! `GET /v1/user/rate-limit-tier`) without losing what was already spent.
//!
//! The `governor` crate was evaluated and not used: its cells cannot be resized in place (a tier
//! change would reset the spent tokens to a full burst), it cannot take a server correction
//! ("you have 3 left") or a `Retry-After` hold, and it brings extra crates to the default tree.

use core::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// An account's trading tier, which sets both buckets' refill rate and capacity.
///
/// The table is the exchange's (docs.polymarket.com/api-reference/trading-rate-limits).
///
/// ```
/// use polyclob::http::{Bucket, Tier};
///
/// let std = Tier::Standard.limit(Bucket::Order);
/// assert_eq!((std.per_second, std.burst), (40, 60));
/// assert_eq!(Tier::parse("ELITE"), Some(Tier::Elite));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[non_exhaustive]
pub enum Tier {
    /// Orders 40/s, burst 60; cancels 80/s, burst 120.
    #[default]
    Standard,
    /// Orders 60/s, burst 90; cancels 120/s, burst 180.
    Copper,
    /// Orders 80/s, burst 120; cancels 160/s, burst 240.
    Bronze,
    /// Orders 200/s, burst 300; cancels 400/s, burst 600.
    Silver,
    /// Orders 400/s, burst 600; cancels 800/s, burst 1,200.
    Gold,
    /// Orders 450/s, burst 675; cancels 900/s, burst 1,350.
    Platinum,
    /// Orders 525/s, burst 787; cancels 1,050/s, burst 1,575.
    Diamond,
    /// Orders 600/s, burst 900; cancels 1,200/s, burst 1,800.
    Elite,
}

/// Every tier, lowest first.
const TIERS: [Tier; 8] = [
    Tier::Standard,
    Tier::Copper,
    Tier::Bronze,
    Tier::Silver,
    Tier::Gold,
    Tier::Platinum,
    Tier::Diamond,
    Tier::Elite,
];

/// A bucket's refill rate and capacity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limit {
    /// Tokens added per second.
    pub per_second: u32,
    /// The most tokens the bucket holds: the largest request that can ever be admitted.
    pub burst: u32,
}

impl Limit {
    /// A limit of `per_second` tokens a second with a capacity of `burst` (both at least 1).
    #[must_use]
    pub const fn new(per_second: u32, burst: u32) -> Self {
        Self {
            per_second: if per_second == 0 { 1 } else { per_second },
            burst: if burst == 0 { 1 } else { burst },
        }
    }

    /// `n` requests per 10 seconds: the shape of the exchange's per-IP limits
    /// ([`Pacer`](super::Pacer) keeps under it).
    #[must_use]
    pub const fn per_10s(n: u32) -> PerWindow {
        PerWindow {
            count: if n == 0 { 1 } else { n },
            window: Duration::from_secs(10),
        }
    }
}

/// Which of a signer's two buckets a request draws from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Bucket {
    /// Order placement (`POST /order`, `POST /orders`).
    Order,
    /// Cancellation (`DELETE /order`, `/orders`, `/cancel-all`, `/cancel-market-orders`).
    Cancel,
}

impl Bucket {
    /// `"order"` or `"cancel"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Order => "order",
            Self::Cancel => "cancel",
        }
    }
}

impl Tier {
    /// The tier's limit for one bucket.
    #[must_use]
    pub const fn limit(self, bucket: Bucket) -> Limit {
        let (rate, burst) = match self {
            Self::Standard => (40, 60),
            Self::Copper => (60, 90),
            Self::Bronze => (80, 120),
            Self::Silver => (200, 300),
            Self::Gold => (400, 600),
            Self::Platinum => (450, 675),
            Self::Diamond => (525, 787),
            Self::Elite => (600, 900),
        };
        // Cancels get twice the order rate and burst on every tier.
        match bucket {
            Bucket::Order => Limit::new(rate, burst),
            Bucket::Cancel => Limit::new(rate * 2, burst * 2),
        }
    }

    /// The tier's name as the exchange writes it, lowercase.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Standard => "standard",
            Self::Copper => "copper",
            Self::Bronze => "bronze",
            Self::Silver => "silver",
            Self::Gold => "gold",
            Self::Platinum => "platinum",
            Self::Diamond => "diamond",
            Self::Elite => "elite",
        }
    }

    /// Parses a tier name, ignoring case and surrounding blanks and quotes.
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim().trim_matches('"').trim();
        TIERS
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(s))
    }

    const fn index(self) -> u8 {
        self as u8
    }

    fn from_index(i: u8) -> Self {
        TIERS.get(usize::from(i)).copied().unwrap_or(Self::Standard)
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why the governor refused a request: which bucket, what it cost, and when it could go.
///
/// A small `Copy` value; the client turns it into an [`Error`](super::Error) for which
/// [`is_throttled`](super::Error::is_throttled) holds and
/// [`retry_after`](super::Error::retry_after) is [`wait`](Self::wait).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Throttled {
    /// The bucket that is short.
    pub bucket: Bucket,
    /// The request's cost in tokens.
    pub cost: u32,
    /// How long until the bucket holds `cost` tokens (zero when it never will).
    pub wait: Duration,
    /// The cost exceeds the bucket's capacity: the request can never be admitted at this
    /// tier, so it must be split (or it needs a higher tier).
    pub over_capacity: bool,
    /// The bucket's capacity at the time.
    pub burst: u32,
}

impl fmt::Display for Throttled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.over_capacity {
            write!(
                f,
                "{} costs {} tokens, more than the {} bucket's capacity of {}: split it",
                self.bucket.as_str(),
                self.cost,
                self.bucket.as_str(),
                self.burst
            )
        } else {
            write!(
                f,
                "{} bucket short of {} tokens: could go in {} ms",
                self.bucket.as_str(),
                self.cost,
                self.wait.as_millis()
            )
        }
    }
}

impl std::error::Error for Throttled {}

/// What the governor did with one bucket's requests since it was made: a snapshot of its
/// counters, from [`Governor::stats`].
///
/// Each counter is exact; they are read one after another, so a snapshot taken while other
/// threads acquire may be a few requests apart between fields. With
/// [`Throttle::Off`] the client does not consult the governor, so only the server's reports
/// ([`corrections`](Self::corrections), [`rate_limited`](Self::rate_limited)) are counted.
///
/// ```
/// use std::time::Duration;
/// use polyclob::http::{Bucket, Governor, Limit};
///
/// let g = Governor::with_limits(Limit::new(1, 2), Limit::new(2, 4));
/// for _ in 0..3 {
///     // The third must wait (up to a second) for a token; it reserves it now.
///     g.reserve(Bucket::Order, 1, Duration::from_secs(2)).unwrap();
/// }
/// g.try_acquire(Bucket::Order, 5).unwrap_err(); // more than the burst: never admitted
/// let s = g.stats(Bucket::Order);
/// assert_eq!((s.admitted, s.delayed, s.refused, s.over_capacity), (3, 1, 1, 1));
/// assert!(s.max_delay > Duration::ZERO && s.max_delay <= Duration::from_secs(1));
/// assert_eq!(s.total_delay, s.max_delay);
/// assert_eq!(g.stats(Bucket::Cancel), Default::default());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BucketStats {
    /// Requests admitted, at once or after a wait.
    pub admitted: u64,
    /// Of those, the ones that had to wait for their tokens ([`Throttle::Wait`],
    /// [`Governor::reserve`]).
    pub delayed: u64,
    /// Requests refused: the tokens would not come within the allowed wait, or the cost
    /// exceeds the bucket's capacity.
    pub refused: u64,
    /// Of those, the ones refused as over capacity.
    pub over_capacity: u64,
    /// The waits of the delayed requests, summed.
    pub total_delay: Duration,
    /// The longest of those waits.
    pub max_delay: Duration,
    /// Server reports (`Poly-RateLimit-Remaining`) that found at least one token fewer than
    /// the local bucket held when the request left, however late in the round trip the
    /// server counted. Every report may lower the bucket; only these are disagreements
    /// (another process spending the same key, a governor that is off), not the refill
    /// while an answer travelled.
    pub corrections: u64,
    /// HTTP 429 answers to this bucket's requests (each holds the bucket for `Retry-After`).
    pub rate_limited: u64,
    /// How far, in total, server reports moved the slots of requests waiting to be sent
    /// (each waiting request sleeps this much longer than its reserved wait, from the
    /// reports that came while it slept).
    pub slots_moved: Duration,
}

impl BucketStats {
    /// The mean wait of the delayed requests (zero when none waited).
    #[must_use]
    pub fn mean_delay(&self) -> Duration {
        if self.delayed == 0 {
            return Duration::ZERO;
        }
        let ns = self.total_delay.as_nanos() / u128::from(self.delayed);
        Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
    }
}

/// The counters behind [`BucketStats`]: plain relaxed atomics, one add per admitted request
/// and the rest only on the slow paths (a wait, a refusal, a server report).
#[derive(Debug, Default)]
struct Counters {
    admitted: AtomicU64,
    delayed: AtomicU64,
    refused: AtomicU64,
    over_capacity: AtomicU64,
    delay_ns: AtomicU64,
    max_delay_ns: AtomicU64,
    corrections: AtomicU64,
    rate_limited: AtomicU64,
}

impl Counters {
    #[inline]
    fn record(&self, result: &Result<Duration, Throttled>) {
        match result {
            Ok(wait) => {
                self.admitted.fetch_add(1, Ordering::Relaxed);
                if !wait.is_zero() {
                    self.record_delay(*wait);
                }
            }
            Err(t) => self.record_refusal(t.over_capacity),
        }
    }

    #[cold]
    fn record_refusal(&self, over_capacity: bool) {
        self.refused.fetch_add(1, Ordering::Relaxed);
        if over_capacity {
            self.over_capacity.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[cold]
    fn record_delay(&self, wait: Duration) {
        let ns = u64::try_from(wait.as_nanos()).unwrap_or(u64::MAX);
        self.delayed.fetch_add(1, Ordering::Relaxed);
        self.delay_ns.fetch_add(ns, Ordering::Relaxed);
        self.max_delay_ns.fetch_max(ns, Ordering::Relaxed);
    }

    fn snapshot(&self) -> BucketStats {
        let n = |a: &AtomicU64| a.load(Ordering::Relaxed);
        BucketStats {
            admitted: n(&self.admitted),
            delayed: n(&self.delayed),
            refused: n(&self.refused),
            over_capacity: n(&self.over_capacity),
            total_delay: Duration::from_nanos(n(&self.delay_ns)),
            max_delay: Duration::from_nanos(n(&self.max_delay_ns)),
            corrections: n(&self.corrections),
            rate_limited: n(&self.rate_limited),
            slots_moved: Duration::ZERO,
        }
    }
}

/// One lock-free GCRA bucket. Times are nanoseconds since the governor's origin.
///
/// `tat` is the theoretical arrival time: the bucket is full when `tat <= now`, and holds
/// `(burst * interval - (tat - now)) / interval` tokens otherwise. Taking `n` tokens moves
/// `tat` to `max(tat, now) + n * interval`, allowed while that stays within
/// `now + burst * interval`.
#[derive(Debug)]
pub(crate) struct Gcra {
    tat: AtomicU64,
    /// `interval_ns << 32 | burst`, so a tier change is one store seen whole.
    params: AtomicU64,
    /// Tokens reserved by requests still sleeping until their slot (not yet sent, so not yet
    /// counted by the exchange).
    unsent: AtomicU64,
    /// Total nanoseconds the server's reports moved the slots of sleeping requests later: a
    /// sleeper that wakes to a larger value than it saw when it reserved sleeps the difference.
    shift: AtomicU64,
    /// Percent of the burst kept in reserve against network jitter (see [`Governor`]).
    headroom_pct: u64,
}

const fn pack(limit: Limit) -> u64 {
    let interval = 1_000_000_000u64 / limit.per_second as u64;
    (interval << 32) | limit.burst as u64
}

fn unpack(p: u64) -> (u64, u64) {
    (p >> 32, p & 0xFFFF_FFFF)
}

impl Gcra {
    pub(crate) fn new(limit: Limit, headroom_pct: u8) -> Self {
        Self {
            tat: AtomicU64::new(0),
            params: AtomicU64::new(pack(limit)),
            unsent: AtomicU64::new(0),
            shift: AtomicU64::new(0),
            headroom_pct: u64::from(headroom_pct.min(90)),
        }
    }

    /// A cell that keeps under `w.count` requests per sliding `w.window`: 90 % of the rate, a
    /// burst of 5 % (at least 1); why, in [`limits`](super::limits).
    pub(crate) fn paced(w: PerWindow) -> Self {
        let count = u128::from(w.count.max(1));
        // interval = window / (0.9 · count), at least 1 ns and at most u32::MAX ns.
        let interval = (w.window.as_nanos() * 10 / (9 * count)).clamp(1, u128::from(u32::MAX));
        let burst = (w.count / 20).max(1);
        Self {
            tat: AtomicU64::new(0),
            params: AtomicU64::new((interval as u64) << 32 | u64::from(burst)),
            unsent: AtomicU64::new(0),
            shift: AtomicU64::new(0),
            headroom_pct: 0,
        }
    }

    /// The capacity used for admission: the burst less the headroom.
    fn usable(&self, burst: u64) -> u64 {
        burst - burst * self.headroom_pct / 100
    }

    fn burst(&self) -> u32 {
        u32::try_from(unpack(self.params.load(Ordering::Relaxed)).1).unwrap_or(u32::MAX)
    }

    /// Takes `n` tokens now or reports how long until it could; never takes part of them.
    /// With `max_wait`, a request that could go within `max_wait` reserves its tokens now and
    /// the returned `Ok` duration is how long the caller must sleep before sending.
    pub(crate) fn take(
        &self,
        bucket: Bucket,
        n: u32,
        now: u64,
        max_wait: Duration,
    ) -> Result<Duration, Throttled> {
        let (interval, burst) = unpack(self.params.load(Ordering::Relaxed));
        let refuse = |wait: u64, over: bool| Throttled {
            bucket,
            cost: n,
            wait: Duration::from_nanos(wait),
            over_capacity: over,
            burst: u32::try_from(burst).unwrap_or(u32::MAX),
        };
        if u64::from(n) > burst {
            return Err(refuse(0, true));
        }
        // A request larger than the usable part of the burst still goes on a full bucket.
        let tau = self.usable(burst).max(u64::from(n)) * interval;
        let cost = u64::from(n) * interval;
        let max_wait = u64::try_from(max_wait.as_nanos()).unwrap_or(u64::MAX);
        let mut tat = self.tat.load(Ordering::Acquire);
        loop {
            let new = tat.max(now) + cost;
            // Positive when the request would overflow the bucket: the time until it fits.
            let wait = new.saturating_sub(now.saturating_add(tau));
            if wait > max_wait {
                return Err(refuse(wait, false));
            }
            match self
                .tat
                .compare_exchange_weak(tat, new, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Ok(Duration::from_nanos(wait)),
                Err(seen) => tat = seen,
            }
        }
    }

    /// Whole tokens in the bucket at `now`.
    pub(crate) fn available(&self, now: u64) -> u32 {
        let (interval, burst) = unpack(self.params.load(Ordering::Relaxed));
        let used = self.tat.load(Ordering::Acquire).saturating_sub(now);
        let free = (self.usable(burst) * interval).saturating_sub(used) / interval.max(1);
        u32::try_from(free).unwrap_or(u32::MAX)
    }

    /// Changes the rate and capacity, keeping the tokens already owed (the debt is re-expressed
    /// at the new interval), so a tier change neither forgives nor double-counts spending.
    pub(crate) fn set_params(&self, packed: u64, now: u64) {
        let (old_interval, _) = unpack(self.params.swap(packed, Ordering::AcqRel));
        let (new_interval, _) = unpack(packed);
        let mut tat = self.tat.load(Ordering::Acquire);
        loop {
            let debt_ns = tat.saturating_sub(now);
            let tokens = debt_ns.div_ceil(old_interval.max(1));
            let new = if debt_ns == 0 {
                tat
            } else {
                now + tokens * new_interval
            };
            match self
                .tat
                .compare_exchange_weak(tat, new, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return,
                Err(seen) => tat = seen,
            }
        }
    }

    /// Lowers the balance to at most `remaining` tokens as of `now`, when the report came
    /// back (a server report of a request sent at `sent`); never raises it. Read as of `now`
    /// the report is at its most severe, which is the safe way to act on it. Requests still
    /// sleeping until their slot are not in the server's count: they go on top of it, and
    /// their slots move later by as much as the bucket's clock moved. (Read as of `sent`
    /// instead, the report let a busy machine's bunched arrivals through as 429s.)
    ///
    /// Returns whether the report found a whole token fewer than the bucket held, read as of
    /// `sent`: the server counted at some moment between `sent` and `now` (on a loaded machine
    /// or network that round trip is many refill intervals), so only a report that falls
    /// short even at its earliest possible time is a disagreement; the refill while the
    /// answer travelled is not. (Less than a whole token is the server's rounding down.)
    pub(crate) fn cap_remaining(&self, remaining: i64, sent: u64, now: u64) -> bool {
        let (interval, burst) = unpack(self.params.load(Ordering::Relaxed));
        // A negative balance (a cancel-all's debt) is owed beyond an empty bucket.
        let owed =
            i128::from(burst) - i128::from(remaining.min(i64::try_from(burst).unwrap_or(i64::MAX)));
        let debt = u64::try_from(owed)
            .unwrap_or(u64::MAX)
            .saturating_mul(interval);
        let unsent = self.unsent.load(Ordering::Acquire) * interval;
        let held = self.push(now + debt + unsent, now);
        // Our debt at `sent`, of requests sent by then, is at most this.
        let ours = (held.max(sent) - sent).saturating_sub(unsent);
        ours.saturating_add(interval) <= debt
    }

    /// Moves the bucket's clock to at least `tat` and the slots of sleeping requests later by
    /// as much; returns the clock it held.
    fn push(&self, tat: u64, now: u64) -> u64 {
        let held = self.tat.fetch_max(tat, Ordering::AcqRel);
        let late = tat.saturating_sub(held.max(now));
        if late > 0 && self.unsent.load(Ordering::Acquire) > 0 {
            self.shift.fetch_add(late, Ordering::AcqRel);
        }
        held
    }

    /// Sleeps `wait` (a slot reserved when [`Self::shift`] read `mark`), then as long again
    /// as server reports moved the slots meanwhile; counted as unsent until it returns or is
    /// dropped.
    async fn sleep_to_slot(&self, cost: u32, wait: Duration, mut mark: u64) {
        struct Unsent<'a>(&'a AtomicU64, u64);
        impl Drop for Unsent<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(self.1, Ordering::AcqRel);
            }
        }
        self.unsent.fetch_add(u64::from(cost), Ordering::AcqRel);
        let _unsent = Unsent(&self.unsent, u64::from(cost));
        tokio::time::sleep(wait).await;
        loop {
            let now = self.shift.load(Ordering::Acquire);
            if now == mark {
                return;
            }
            tokio::time::sleep(Duration::from_nanos(now.wrapping_sub(mark))).await;
            mark = now;
        }
    }

    /// Nothing is admitted before `until`, and then one token at a time (after a 429 whose
    /// `Retry-After` named `until`).
    pub(crate) fn hold_until(&self, until: u64, now: u64) {
        let (interval, burst) = unpack(self.params.load(Ordering::Relaxed));
        let unsent = self.unsent.load(Ordering::Acquire) * interval;
        self.push(until + burst.saturating_sub(1) * interval + unsent, now);
    }

    /// Empties the bucket (keeping any debt beyond empty).
    pub(crate) fn drain(&self, now: u64) {
        let (interval, burst) = unpack(self.params.load(Ordering::Relaxed));
        self.tat
            .fetch_max(now + self.usable(burst) * interval, Ordering::AcqRel);
    }

    /// Takes `n` tokens unconditionally, going into debt if needed (spending the server already
    /// did, e.g. the orders a cancel-all cancelled).
    pub(crate) fn charge(&self, n: u64, now: u64) {
        let (interval, _) = unpack(self.params.load(Ordering::Relaxed));
        let mut tat = self.tat.load(Ordering::Acquire);
        loop {
            let new = tat.max(now) + n * interval;
            match self
                .tat
                .compare_exchange_weak(tat, new, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return,
                Err(seen) => tat = seen,
            }
        }
    }
}

/// The rate-limit headers of one trading response.
///
/// `Poly-RateLimit-Remaining` (tokens left after this request), `Poly-RateLimit-Reset` (unix
/// time at which the wait ends), `Poly-RateLimit-Tier`, `Poly-RateLimit-Warning` (`true` while
/// the exchange only warns) and, on a 429, `Retry-After`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RateLimitStatus {
    /// The bucket the request drew from.
    pub bucket: Option<Bucket>,
    /// `Poly-RateLimit-Remaining`: negative when the bucket is in debt (a cancel-all or
    /// cancel-market-orders charges the orders it cancelled after the fact; docs
    /// "Trading rate limits").
    pub remaining: Option<i64>,
    /// `Poly-RateLimit-Reset`, unix seconds.
    pub reset: Option<u64>,
    /// `Poly-RateLimit-Tier`, parsed.
    pub tier: Option<Tier>,
    /// `Poly-RateLimit-Tier` as sent, when it names a tier this crate does not know.
    pub tier_name: Option<String>,
    /// `Poly-RateLimit-Warning: true`: the request would have been refused under enforcement.
    pub warning: bool,
    /// `Retry-After` of a 429.
    pub retry_after: Option<Duration>,
    /// The HTTP status of the response.
    pub status: u16,
}

impl RateLimitStatus {
    /// Reads the headers; `None` when the response carried none of them.
    pub(crate) fn from_headers(
        headers: &reqwest::header::HeaderMap,
        status: u16,
        bucket: Option<Bucket>,
    ) -> Option<Self> {
        let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let remaining = text("poly-ratelimit-remaining");
        let reset = text("poly-ratelimit-reset");
        let tier = text("poly-ratelimit-tier");
        let warning = text("poly-ratelimit-warning");
        if remaining.is_none() && reset.is_none() && tier.is_none() && warning.is_none() {
            return None;
        }
        let parsed_tier = tier.and_then(Tier::parse);
        Some(Self {
            bucket,
            remaining: remaining.and_then(|s| s.trim().parse::<i64>().ok()),
            reset: reset.and_then(|s| s.trim().parse().ok()),
            tier: parsed_tier,
            tier_name: tier
                .filter(|_| parsed_tier.is_none())
                .map(|s| s.chars().take(32).collect()),
            warning: warning.is_some_and(|w| w.trim().eq_ignore_ascii_case("true")),
            retry_after: headers
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| crate::http::parse_retry_after(v.as_bytes())),
            status,
        })
    }
}

/// What the client does with an order or cancel its governor would refuse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Throttle {
    /// No client-side governor: every request is sent and the exchange decides.
    Off,
    /// Refuse at once, without I/O, with an error saying when the request could go.
    Refuse,
    /// Wait for the tokens when they come within this long; refuse otherwise.
    Wait(Duration),
}

impl Default for Throttle {
    /// `Wait(5 s)`.
    fn default() -> Self {
        Self::Wait(Duration::from_secs(5))
    }
}

/// The client-side mirror of one signer's two buckets.
///
/// Shared by every clone of a CLOB [`Client`](crate::clob::Client); reachable with
/// [`Client::governor`](crate::clob::Client::governor). Until the exchange names the tier (a
/// `Poly-RateLimit-Tier` header, or
/// [`Client::sync_rate_limit_tier`](crate::clob::Client::sync_rate_limit_tier))
/// the tightest one, Standard, is assumed, and a request costing more than Standard's capacity
/// is let through (a higher tier may admit it); once the tier is known such a request is
/// refused locally as [over capacity](super::Error::is_over_capacity).
///
/// ```
/// use std::time::Duration;
/// use polyclob::http::{Bucket, Governor, Tier};
///
/// let g = Governor::new(Tier::Standard);
/// for _ in 0..54 {
///     g.try_acquire(Bucket::Order, 1).unwrap(); // a full burst, less the 10% headroom
/// }
/// let refused = g.try_acquire(Bucket::Order, 1).unwrap_err();
/// assert!(refused.wait > Duration::ZERO && refused.wait <= Duration::from_millis(25));
/// // Cancels have their own bucket: never starved by orders.
/// g.try_acquire(Bucket::Cancel, 108).unwrap();
/// ```
#[derive(Debug)]
pub struct Governor {
    origin: Instant,
    order: Gcra,
    cancel: Gcra,
    tier: AtomicU8,
    confirmed: AtomicBool,
    warnings: AtomicU64,
    last: Mutex<[Option<RateLimitStatus>; 2]>,
    /// Per bucket, indexed by `Bucket as usize`.
    counters: [Counters; 2],
}

impl Default for Governor {
    fn default() -> Self {
        Self::new(Tier::Standard)
    }
}

impl Governor {
    /// A governor with both buckets full at `tier`'s limits, keeping 10% of each burst in
    /// reserve (see [`with_headroom`](Self::with_headroom)). The tier counts as assumed, not
    /// confirmed, until [`set_tier`](Self::set_tier) or a server report.
    #[must_use]
    pub fn new(tier: Tier) -> Self {
        Self::with_headroom(tier, 10)
    }

    /// A governor with limits of its own rather than a tier's (another venue, a test, a
    /// self-imposed budget), no headroom, and the tier counted as confirmed so over-capacity
    /// requests are refused. [`set_tier`](Self::set_tier) replaces the limits with a tier's.
    ///
    /// ```
    /// use polyclob::http::{Bucket, Governor, Limit};
    ///
    /// let g = Governor::with_limits(Limit::new(5, 10), Limit::new(10, 20));
    /// assert_eq!(g.burst(Bucket::Cancel), 20);
    /// assert!(g.try_acquire(Bucket::Order, 11).unwrap_err().over_capacity);
    /// ```
    #[must_use]
    pub fn with_limits(order: Limit, cancel: Limit) -> Self {
        let g = Self::with_headroom(Tier::Standard, 0);
        g.order.params.store(pack(order), Ordering::Relaxed);
        g.cancel.params.store(pack(cancel), Ordering::Relaxed);
        g.confirmed.store(true, Ordering::Relaxed);
        // An impossible index: the first `set_tier` always re-prices.
        g.tier.store(u8::MAX, Ordering::Relaxed);
        g
    }

    /// A governor that admits bursts only up to `100 - headroom_pct` percent of the exchange's
    /// capacity (at most 90% is kept back); the refill rate is the exchange's.
    ///
    /// The exchange meters a request when it arrives, the governor when it is due to leave.
    /// Requests that leave on time but arrive late by different amounts (a busy machine, a
    /// slow connection) reach the exchange closer together than they left; the headroom
    /// absorbs that much bunching (10% of Standard's order burst: 6 tokens, 150 ms of
    /// refill). Beyond it the exchange's `Poly-RateLimit-Remaining` reports a lower balance:
    /// the governor adopts it and moves the slots of requests still waiting to be sent later
    /// by the difference, before they can draw a 429. A single request larger than the
    /// usable part still goes on a full bucket.
    #[must_use]
    pub fn with_headroom(tier: Tier, headroom_pct: u8) -> Self {
        Self {
            origin: Instant::now(),
            order: Gcra::new(tier.limit(Bucket::Order), headroom_pct),
            cancel: Gcra::new(tier.limit(Bucket::Cancel), headroom_pct),
            tier: AtomicU8::new(tier.index()),
            confirmed: AtomicBool::new(false),
            warnings: AtomicU64::new(0),
            last: Mutex::new([None, None]),
            counters: [Counters::default(), Counters::default()],
        }
    }

    fn ns(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.origin).as_nanos()).unwrap_or(u64::MAX)
    }

    fn cell(&self, bucket: Bucket) -> &Gcra {
        match bucket {
            Bucket::Order => &self.order,
            Bucket::Cancel => &self.cancel,
        }
    }

    /// The tier in force.
    #[must_use]
    pub fn tier(&self) -> Tier {
        Tier::from_index(self.tier.load(Ordering::Relaxed))
    }

    /// Whether the exchange (or the caller) named the tier, rather than it being assumed.
    #[must_use]
    pub fn tier_confirmed(&self) -> bool {
        self.confirmed.load(Ordering::Relaxed)
    }

    /// Switches both buckets to `tier`, keeping the tokens already spent, and marks the tier
    /// confirmed.
    pub fn set_tier(&self, tier: Tier) {
        self.set_tier_at(tier, Instant::now());
    }

    pub(crate) fn set_tier_at(&self, tier: Tier, now: Instant) {
        self.confirmed.store(true, Ordering::Relaxed);
        if self.tier.swap(tier.index(), Ordering::AcqRel) == tier.index() {
            return;
        }
        let t = self.ns(now);
        self.order.set_params(pack(tier.limit(Bucket::Order)), t);
        self.cancel.set_params(pack(tier.limit(Bucket::Cancel)), t);
    }

    /// Takes `cost` tokens from `bucket` now, all or nothing.
    ///
    /// # Errors
    ///
    /// [`Throttled`] with the wait until the tokens will be there, or `over_capacity` when
    /// `cost` exceeds the bucket's capacity.
    pub fn try_acquire(&self, bucket: Bucket, cost: u32) -> Result<(), Throttled> {
        self.acquire_at(bucket, cost, Instant::now(), Duration::ZERO)
            .map(drop)
    }

    /// Reserves `cost` tokens if they come within `max_wait` and returns how long to wait
    /// before sending (zero when they are there now); refuses otherwise.
    ///
    /// # Errors
    ///
    /// As [`try_acquire`](Self::try_acquire).
    pub fn reserve(
        &self,
        bucket: Bucket,
        cost: u32,
        max_wait: Duration,
    ) -> Result<Duration, Throttled> {
        self.acquire_at(bucket, cost, Instant::now(), max_wait)
    }

    // Always inlined, so `try_acquire`'s zero `max_wait` folds away as it did before the
    // counters made this function too big for the inliner's own choice.
    #[inline(always)]
    pub(crate) fn acquire_at(
        &self,
        bucket: Bucket,
        cost: u32,
        now: Instant,
        max_wait: Duration,
    ) -> Result<Duration, Throttled> {
        let cell = self.cell(bucket);
        let t = self.ns(now);
        let r = match cell.take(bucket, cost, t, max_wait) {
            // Standard is only a guess until confirmed: a higher tier may take the batch. It
            // empties the bucket (charging its whole cost would invent a debt of seconds when
            // no answer ever names the tier); the tier the answer names re-prices what is owed.
            Err(e) if e.over_capacity && !self.tier_confirmed() => {
                cell.drain(t);
                Ok(Duration::ZERO)
            }
            r => r,
        };
        // The wait `take` computed is the delay: no second clock read.
        self.counters[bucket as usize].record(&r);
        r
    }

    /// Reserves `cost` tokens as [`reserve`](Self::reserve) does and sleeps until their slot,
    /// later still if the exchange's reports meanwhile showed it counted more than the
    /// governor did (the slots of all sleeping requests move together). `on_wait` hears the
    /// reserved wait, when there is one, before the sleep.
    pub(crate) async fn admit(
        &self,
        bucket: Bucket,
        cost: u32,
        max_wait: Duration,
        on_wait: impl FnOnce(Duration),
    ) -> Result<(), Throttled> {
        let cell = self.cell(bucket);
        let mark = cell.shift.load(Ordering::Acquire);
        let wait = self.acquire_at(bucket, cost, Instant::now(), max_wait)?;
        if !wait.is_zero() {
            on_wait(wait);
            cell.sleep_to_slot(cost, wait, mark).await;
        }
        Ok(())
    }

    /// What the governor did with `bucket`'s requests so far: admitted, delayed (and for how
    /// long), refused, and the server's corrections and 429s. Lock-free; see [`BucketStats`].
    ///
    /// From a client: `client.governor().stats(Bucket::Order)`.
    #[must_use]
    pub fn stats(&self, bucket: Bucket) -> BucketStats {
        BucketStats {
            slots_moved: Duration::from_nanos(self.cell(bucket).shift.load(Ordering::Relaxed)),
            ..self.counters[bucket as usize].snapshot()
        }
    }

    /// Whole tokens in `bucket` now.
    #[must_use]
    pub fn available(&self, bucket: Bucket) -> u32 {
        self.cell(bucket).available(self.ns(Instant::now()))
    }

    /// The capacity of `bucket` at the tier in force.
    #[must_use]
    pub fn burst(&self, bucket: Bucket) -> u32 {
        self.cell(bucket).burst()
    }

    /// Responses that carried `Poly-RateLimit-Warning: true`.
    #[must_use]
    pub fn warnings(&self) -> u64 {
        self.warnings.load(Ordering::Relaxed)
    }

    /// The last rate-limit headers seen for `bucket`.
    #[must_use]
    pub fn last_status(&self, bucket: Bucket) -> Option<RateLimitStatus> {
        let last = self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        last[bucket as usize].clone()
    }

    /// Spending the server did that the request's price did not cover (cancel-all's
    /// per-order cost).
    pub(crate) fn charge(&self, bucket: Bucket, n: u64, now: Instant) {
        self.cell(bucket).charge(n, self.ns(now));
    }

    /// Folds the headers of a response to a request sent at `sent` in: adopts a reported
    /// tier, lowers the balance to what the server reports, and after a 429 holds the bucket
    /// until `Retry-After` has passed.
    pub(crate) fn observe(&self, status: &RateLimitStatus, sent: Instant, now: Instant) {
        if let Some(tier) = status.tier {
            self.set_tier_at(tier, now);
        }
        if status.warning {
            self.warnings.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(bucket) = status.bucket {
            let cell = self.cell(bucket);
            let counters = &self.counters[bucket as usize];
            let t = self.ns(now);
            if let Some(r) = status.remaining {
                if cell.cap_remaining(r, self.ns(sent), t) {
                    counters.corrections.fetch_add(1, Ordering::Relaxed);
                }
            }
            if status.status == 429 {
                counters.rate_limited.fetch_add(1, Ordering::Relaxed);
                let ra = status.retry_after.unwrap_or(Duration::from_secs(1));
                cell.hold_until(
                    t.saturating_add(u64::try_from(ra.as_nanos()).unwrap_or(0)),
                    t,
                );
            }
            let mut last = self
                .last
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            last[bucket as usize] = Some(status.clone());
        }
    }
}

/// Which bucket a request draws from and what it costs, from its method, path and body.
/// `None` for requests the trading limits do not meter.
pub(crate) fn price(method: &reqwest::Method, path: &str, body: &[u8]) -> Option<(Bucket, u32)> {
    use reqwest::Method;
    if *method == Method::POST {
        match path {
            "/order" => Some((Bucket::Order, 1)),
            "/orders" => Some((Bucket::Order, count_items(body).max(1))),
            _ => None,
        }
    } else if *method == Method::DELETE {
        match path {
            "/order" | "/cancel-all" | "/cancel-market-orders" => Some((Bucket::Cancel, 1)),
            "/orders" => Some((Bucket::Cancel, count_items(body).max(1))),
            _ => None,
        }
    } else {
        None
    }
}

/// The number of elements of a top-level JSON array (0 for anything else), counted in one
/// pass that skips strings and nested values.
pub(crate) fn count_items(body: &[u8]) -> u32 {
    let mut depth = 0u32;
    let mut in_str = false;
    let mut escaped = false;
    let mut items = 0u32;
    let mut seen_value = false;
    for &b in body {
        if in_str {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_str = false;
            }
            continue;
        }
        match b {
            b'"' => {
                in_str = true;
                if depth == 1 {
                    seen_value = true;
                }
            }
            b'[' | b'{' => {
                if depth == 1 {
                    seen_value = true;
                }
                depth += 1;
            }
            b']' | b'}' => {
                if depth == 1 && seen_value {
                    items += 1;
                }
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return items;
                }
            }
            b',' if depth == 1 => {
                items += 1;
                seen_value = false;
            }
            b' ' | b'\t' | b'\r' | b'\n' => {}
            _ if depth == 1 => seen_value = true,
            _ => {}
        }
    }
    if depth == 0 { items } else { 0 }
}

/// `count` requests per `window`: one row of the exchange's per-IP limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PerWindow {
    /// Requests per window.
    pub count: u32,
    /// The window.
    pub window: Duration,
}

/// Paces requests to stay under `count` per sliding `window`, waiting rather than refusing:
/// the client side of the exchange's per-IP limits (docs.polymarket.com/api-reference/rate-limits),
/// usable for any host.
///
/// The rule: a cell with burst `B` and interval `T` admits fewer than `B + W/T` requests in
/// any window of length `W`, so a pacer runs at 90 % of the rate (`W/T = 0.9·count`) with a
/// burst of 5 % (`B = max(1, ⌊count/20⌋)`): at most `0.95·count` in any window, and within
/// Cloudflare's two-window estimate too. (Refilling a bucket of `count` at `count/W` would
/// admit nearly `2·count` in one sliding window.)
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// use std::time::Duration;
/// use polyclob::http::{Limit, Pacer};
///
/// let tags = Pacer::new(Limit::per_10s(200)); // Gamma's `/tags`
/// tags.wait().await; // immediate while the burst (10 here) lasts
/// for _ in 1..10 {
///     assert_eq!(tags.reserve(), Duration::ZERO);
/// }
/// assert!(tags.reserve() > Duration::ZERO); // then 18 a second
/// # }
/// ```
#[derive(Debug)]
pub struct Pacer {
    origin: Instant,
    cell: Gcra,
}

impl Pacer {
    /// A pacer keeping under `limit.count` requests per `limit.window`.
    #[must_use]
    pub fn new(limit: PerWindow) -> Self {
        Self {
            origin: Instant::now(),
            cell: Gcra::paced(limit),
        }
    }

    pub(super) fn now(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// How long the next request must wait, reserving its slot.
    #[must_use]
    pub fn reserve(&self) -> Duration {
        self.reserve_at(self.now())
    }

    /// Reserves a slot for a request sent no earlier than `at` (nanoseconds since the
    /// pacer's origin); the wait from `at`.
    pub(super) fn reserve_at(&self, at: u64) -> Duration {
        self.cell
            .take(Bucket::Order, 1, at, Duration::MAX)
            .unwrap_or_else(|t: Throttled| t.wait)
    }

    /// Waits for a slot.
    pub async fn wait(&self) {
        let d = self.reserve();
        if !d.is_zero() {
            tokio::time::sleep(d).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn tier_table_and_names() {
        for t in TIERS {
            let o = t.limit(Bucket::Order);
            let c = t.limit(Bucket::Cancel);
            assert_eq!((c.per_second, c.burst), (o.per_second * 2, o.burst * 2));
            assert_eq!(Tier::parse(t.as_str()), Some(t));
            assert_eq!(Tier::from_index(t.index()), t);
        }
        let e = Tier::Elite.limit(Bucket::Cancel);
        assert_eq!((e.per_second, e.burst), (1_200, 1_800));
        assert_eq!(Tier::parse(" \"Gold\" "), Some(Tier::Gold));
        assert_eq!(Tier::parse("unobtainium"), None);
    }

    #[test]
    fn burst_then_refill_rate() {
        let g = Gcra::new(Limit::new(40, 60), 0);
        let b = Bucket::Order;
        for _ in 0..60 {
            assert_eq!(g.take(b, 1, 0, Duration::ZERO), Ok(Duration::ZERO));
        }
        let e = g.take(b, 1, 0, Duration::ZERO).unwrap_err();
        assert_eq!(e.wait, Duration::from_millis(25));
        assert!(!e.over_capacity);
        // One token every 25 ms.
        assert!(g.take(b, 1, 24 * MS, Duration::ZERO).is_err());
        assert!(g.take(b, 1, 25 * MS, Duration::ZERO).is_ok());
        assert!(g.take(b, 1, 25 * MS, Duration::ZERO).is_err());
        // After a full second idle, 40 more tokens (60 capacity minus the 20 not yet back).
        assert_eq!(g.available(25 * MS + 1_000 * MS), 40);
        assert_eq!(g.available(10_000 * MS), 60);
    }

    #[test]
    fn batches_are_all_or_nothing() {
        let g = Gcra::new(Limit::new(40, 60), 0);
        let b = Bucket::Order;
        assert!(g.take(b, 50, 0, Duration::ZERO).is_ok());
        let e = g.take(b, 15, 0, Duration::ZERO).unwrap_err();
        // 10 left, 15 needed: 5 tokens at 25 ms each.
        assert_eq!(e.wait, Duration::from_millis(125));
        assert_eq!(g.available(0), 10, "a refused batch takes nothing");
        assert!(g.take(b, 10, 0, Duration::ZERO).is_ok());
        let over = g.take(b, 61, 0, Duration::ZERO).unwrap_err();
        assert!(over.over_capacity && over.burst == 60);
    }

    #[test]
    fn reservations_queue_in_order() {
        let g = Gcra::new(Limit::new(40, 60), 0);
        let b = Bucket::Order;
        assert!(g.take(b, 60, 0, Duration::ZERO).is_ok());
        let max = Duration::from_secs(1);
        assert_eq!(g.take(b, 1, 0, max), Ok(Duration::from_millis(25)));
        assert_eq!(g.take(b, 1, 0, max), Ok(Duration::from_millis(50)));
        assert_eq!(g.take(b, 38, 0, max), Ok(Duration::from_millis(1_000)));
        assert!(g.take(b, 1, 0, max).is_err(), "beyond max_wait");
    }

    #[test]
    fn tier_change_keeps_the_debt() {
        let g = Governor::with_headroom(Tier::Standard, 0);
        let t0 = g.origin;
        g.acquire_at(Bucket::Order, 60, t0, Duration::ZERO).unwrap();
        assert!(g.acquire_at(Bucket::Order, 1, t0, Duration::ZERO).is_err());
        g.set_tier_at(Tier::Silver, t0);
        // Silver: burst 300, 60 already spent.
        assert_eq!(g.order.available(0), 240);
        assert!(g.tier_confirmed() && g.tier() == Tier::Silver);
        g.set_tier_at(Tier::Standard, t0);
        assert_eq!(g.order.available(0), 0);
    }

    #[test]
    fn over_capacity_passes_until_the_tier_is_confirmed() {
        let g = Governor::new(Tier::Standard);
        let t0 = g.origin;
        assert_eq!(
            g.acquire_at(Bucket::Cancel, 500, t0, Duration::ZERO),
            Ok(Duration::ZERO)
        );
        // The bucket is empty afterwards, not 380 tokens in debt: one token comes back in
        // one interval (12.5 ms at 80/s).
        assert_eq!(g.cancel.available(0), 0);
        let e = g
            .acquire_at(Bucket::Cancel, 1, t0, Duration::ZERO)
            .unwrap_err();
        assert_eq!(e.wait, Duration::from_nanos(12_500_000));
        g.set_tier_at(Tier::Standard, t0);
        let e = g
            .acquire_at(Bucket::Cancel, 500, t0, Duration::ZERO)
            .unwrap_err();
        assert!(e.over_capacity && e.burst == 120);
        assert!(e.to_string().contains("capacity of 120"), "{e}");
    }

    #[test]
    fn server_reports_correct_the_balance() {
        let g = Governor::with_headroom(Tier::Standard, 0);
        let t0 = g.origin;
        let st = RateLimitStatus {
            bucket: Some(Bucket::Order),
            remaining: Some(3),
            tier: Some(Tier::Standard),
            warning: true,
            status: 200,
            ..RateLimitStatus::default()
        };
        g.observe(&st, t0, t0);
        assert_eq!(g.order.available(0), 3);
        assert_eq!(g.warnings(), 1);
        // A higher report never raises our balance.
        g.observe(
            &RateLimitStatus {
                remaining: Some(50),
                ..st.clone()
            },
            t0,
            t0,
        );
        assert_eq!(g.order.available(0), 3);
        // A 429 holds the bucket until Retry-After has passed.
        g.observe(
            &RateLimitStatus {
                remaining: None,
                status: 429,
                retry_after: Some(Duration::from_secs(1)),
                ..st
            },
            t0,
            t0,
        );
        let e = g
            .acquire_at(Bucket::Order, 1, t0, Duration::ZERO)
            .unwrap_err();
        assert_eq!(e.wait, Duration::from_secs(1));
        assert_eq!(g.cancel.available(0), 120, "the other bucket is untouched");
        assert_eq!(g.last_status(Bucket::Order).map(|s| s.status), Some(429));
        // The lowering report was a correction, the higher one not; the 429 was seen.
        let s = g.stats(Bucket::Order);
        assert_eq!((s.corrections, s.rate_limited), (1, 1));
        assert_eq!((s.admitted, s.refused), (0, 1));
        assert_eq!(g.stats(Bucket::Cancel), BucketStats::default());
    }

    #[test]
    fn reports_move_the_slots_of_requests_still_sleeping() {
        let g = Governor::with_headroom(Tier::Standard, 0);
        let c = &g.order;
        let ms = |n: u64| Duration::from_millis(n);
        let shift = || c.shift.load(Ordering::Acquire);
        // 60 sent at 0 ms, then 10 reserved for the slots 25..=250 ms and sleeping.
        c.take(Bucket::Order, 60, 0, Duration::ZERO).unwrap();
        for i in 1..=10 {
            assert_eq!(c.take(Bucket::Order, 1, 0, ms(1_000)), Ok(ms(25 * i)));
        }
        c.unsent.store(10, Ordering::Release);
        // The server counted the 60 and nothing else: it agrees, nothing moves.
        assert!(!c.cap_remaining(0, 0, 0));
        assert_eq!((shift(), c.tat.load(Ordering::Acquire)), (0, 1_750 * MS));
        // At 100 ms it still reports an empty bucket: it counted 4 tokens more than we sent
        // (another process on the key, or bunched arrivals). The sleepers go 100 ms later,
        // on top of the server's count.
        assert!(c.cap_remaining(0, 100 * MS, 100 * MS));
        assert_eq!(
            (shift(), c.tat.load(Ordering::Acquire)),
            (100 * MS, 1_850 * MS)
        );
        // A second answer saying the same moves nothing twice.
        assert!(!c.cap_remaining(0, 100 * MS, 100 * MS));
        assert_eq!(shift(), 100 * MS);
        // A slow answer (500 ms on the way) is no disagreement, but it is acted on as of its
        // arrival: the sleepers move by the 500 ms.
        assert!(!c.cap_remaining(0, 100 * MS, 600 * MS));
        assert_eq!(
            (shift(), c.tat.load(Ordering::Acquire)),
            (600 * MS, 2_350 * MS)
        );
        // Without sleepers a report lowers the balance and moves no slot.
        c.unsent.store(0, Ordering::Release);
        c.cap_remaining(0, 2_500 * MS, 2_500 * MS);
        assert_eq!(shift(), 600 * MS);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_sleeper_waits_out_the_shift_it_slept_through_and_is_uncounted_when_dropped() {
        let g = Governor::with_headroom(Tier::Standard, 0);
        let c = &g.order;
        let mark = c.shift.load(Ordering::Acquire);
        let started = Instant::now();
        let sleeper = c.sleep_to_slot(2, Duration::from_millis(20), mark);
        c.shift.fetch_add(30 * MS, Ordering::AcqRel);
        sleeper.await;
        assert!(started.elapsed() >= Duration::from_millis(50));
        assert_eq!(c.unsent.load(Ordering::Acquire), 0);
        // A caller that gives up while sleeping leaves no reservation counted as unsent.
        let gave_up = tokio::time::timeout(
            Duration::from_millis(5),
            c.sleep_to_slot(3, Duration::from_secs(5), mark),
        )
        .await;
        assert!(gave_up.is_err());
        assert_eq!(c.unsent.load(Ordering::Acquire), 0);
    }

    #[test]
    fn corrections_are_disagreements_beyond_the_round_trip() {
        let g = Governor::with_headroom(Tier::Standard, 0);
        let t0 = g.origin;
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let report = |remaining| RateLimitStatus {
            bucket: Some(Bucket::Order),
            remaining: Some(remaining),
            status: 200,
            ..RateLimitStatus::default()
        };
        let corrections = || g.stats(Bucket::Order).corrections;
        // An order at 0 ms; the server counted it at once (59 left) and the answer took 40 ms,
        // more than the 25 ms our bucket needed to refill that token.
        g.acquire_at(Bucket::Order, 1, at(0), Duration::ZERO)
            .unwrap();
        g.observe(&report(59), at(0), at(40));
        assert_eq!(corrections(), 0, "the report's age is no disagreement");
        // Acted on as of its arrival all the same: one token owed at 40 ms.
        assert_eq!(g.order.available(40 * MS), 59);
        // At 50 ms we hold 58.4 after the next order (1.6 owed); the server's 58.x shows as 58.
        g.acquire_at(Bucket::Order, 1, at(50), Duration::ZERO)
            .unwrap();
        g.observe(&report(58), at(50), at(50));
        assert_eq!(corrections(), 0, "the server's rounding is no disagreement");
        // Someone else spent the key's tokens: the server holds 50 where we hold 59.
        g.acquire_at(Bucket::Order, 1, at(100), Duration::ZERO)
            .unwrap();
        g.observe(&report(50), at(100), at(130));
        assert_eq!(corrections(), 1);
        assert_eq!(g.order.available(130 * MS), 50);
    }

    #[test]
    fn stats_count_admissions_delays_and_refusals() {
        // 10 tokens/s (one every 100 ms), burst 3.
        let g = Governor::with_limits(Limit::new(10, 3), Limit::new(20, 6));
        let t0 = g.origin;
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        for _ in 0..3 {
            assert_eq!(
                g.acquire_at(Bucket::Order, 1, t0, Duration::ZERO),
                Ok(Duration::ZERO)
            );
        }
        assert_eq!(
            g.stats(Bucket::Order).delayed,
            0,
            "a full burst waits for nothing"
        );
        // Two more reserved at once: 100 ms and 200 ms away.
        let max = Duration::from_secs(1);
        let w1 = g.acquire_at(Bucket::Order, 1, t0, max).unwrap();
        let w2 = g.acquire_at(Bucket::Order, 1, t0, max).unwrap();
        assert_eq!((w1.as_millis(), w2.as_millis()), (100, 200));
        // Refused: short within no wait, and over capacity.
        assert!(
            g.acquire_at(Bucket::Order, 1, at(10), Duration::ZERO)
                .is_err()
        );
        assert!(
            g.acquire_at(Bucket::Order, 4, at(10), max)
                .unwrap_err()
                .over_capacity
        );
        // 50 ms later the next token is 250 ms away.
        let w3 = g.acquire_at(Bucket::Order, 1, at(50), max).unwrap();
        assert_eq!(w3.as_millis(), 250);
        let s = g.stats(Bucket::Order);
        assert_eq!(
            (s.admitted, s.delayed, s.refused, s.over_capacity),
            (6, 3, 2, 1)
        );
        assert_eq!(s.total_delay, w1 + w2 + w3);
        assert_eq!(s.max_delay, w3);
        assert_eq!(s.mean_delay().as_millis(), 183);
        assert_eq!(g.stats(Bucket::Cancel), BucketStats::default());
        assert_eq!(BucketStats::default().mean_delay(), Duration::ZERO);
    }

    #[test]
    fn headroom_keeps_part_of_the_burst() {
        let g = Gcra::new(Limit::new(40, 60), 10);
        let b = Bucket::Order;
        assert_eq!(g.available(0), 54);
        assert!(g.take(b, 54, 0, Duration::ZERO).is_ok());
        assert!(g.take(b, 1, 0, Duration::ZERO).is_err());
        // A batch above the usable 54 but within 60 goes on a full bucket.
        let g = Gcra::new(Limit::new(40, 60), 10);
        assert!(g.take(b, 58, 0, Duration::ZERO).is_ok());
        assert!(g.take(b, 61, 0, Duration::ZERO).unwrap_err().over_capacity);
        assert_eq!(Governor::new(Tier::Standard).available(Bucket::Cancel), 108);
    }

    #[test]
    fn charge_goes_into_debt() {
        let g = Gcra::new(Limit::new(80, 120), 0);
        g.charge(200, 0);
        let e = g.take(Bucket::Cancel, 1, 0, Duration::ZERO).unwrap_err();
        // 200 owed, 120 capacity: 81 tokens until one is free, at 12.5 ms each.
        assert_eq!(e.wait, Duration::from_nanos(81 * 12_500_000));
    }

    #[test]
    fn pricing_by_endpoint() {
        use reqwest::Method;
        assert_eq!(
            price(&Method::POST, "/order", b"{}"),
            Some((Bucket::Order, 1))
        );
        assert_eq!(
            price(&Method::POST, "/orders", br#"[{"a":[1,2]},{"b":"],"}]"#),
            Some((Bucket::Order, 2))
        );
        assert_eq!(
            price(&Method::DELETE, "/orders", br#"["0x1","0x2","0x3"]"#),
            Some((Bucket::Cancel, 3))
        );
        assert_eq!(
            price(&Method::DELETE, "/cancel-all", b""),
            Some((Bucket::Cancel, 1))
        );
        assert_eq!(price(&Method::GET, "/order", b""), None);
        assert_eq!(price(&Method::POST, "/orders-scoring", b"[]"), None);
    }

    #[test]
    fn item_counts() {
        for (json, n) in [
            (&b"[]"[..], 0),
            (b" [ ] ", 0),
            (b"[1]", 1),
            (br#"["a\"],", "b"]"#, 2),
            (br#"[{"x":[1,2,3]}, {"y":{}}, 3]"#, 3),
            (b"[1,2", 0),
            (b"{}", 0),
            (b"", 0),
        ] {
            assert_eq!(count_items(json), n, "{}", String::from_utf8_lossy(json));
        }
    }

    #[test]
    fn headers_are_read() {
        use reqwest::header::{HeaderMap, HeaderValue};
        let mut h = HeaderMap::new();
        assert_eq!(RateLimitStatus::from_headers(&h, 200, None), None);
        h.insert("poly-ratelimit-remaining", HeaderValue::from_static("17"));
        h.insert(
            "poly-ratelimit-reset",
            HeaderValue::from_static("1790000000"),
        );
        h.insert("poly-ratelimit-tier", HeaderValue::from_static("Bronze"));
        h.insert("poly-ratelimit-warning", HeaderValue::from_static("true"));
        h.insert("retry-after", HeaderValue::from_static("2"));
        let s = RateLimitStatus::from_headers(&h, 429, Some(Bucket::Cancel)).unwrap();
        assert_eq!(s.remaining, Some(17));
        assert_eq!(s.reset, Some(1_790_000_000));
        assert_eq!(s.tier, Some(Tier::Bronze));
        assert!(s.warning && s.tier_name.is_none());
        assert_eq!(s.retry_after, Some(Duration::from_secs(2)));
        h.insert("poly-ratelimit-tier", HeaderValue::from_static("mythril"));
        h.insert("poly-ratelimit-remaining", HeaderValue::from_static("x"));
        let s = RateLimitStatus::from_headers(&h, 200, None).unwrap();
        assert_eq!((s.tier, s.tier_name.as_deref()), (None, Some("mythril")));
        assert_eq!(s.remaining, None);
    }

    /// `Poly-RateLimit-Remaining` goes negative after a cancel-all on the tiers that allow
    /// debt: the governor learns of the debt (it was read as "no header" when the header was
    /// parsed unsigned) and waits it out before the next cancel.
    #[test]
    fn a_negative_remaining_is_debt() {
        use reqwest::header::{HeaderMap, HeaderValue};
        let mut h = HeaderMap::new();
        h.insert("poly-ratelimit-remaining", HeaderValue::from_static("-40"));
        let s = RateLimitStatus::from_headers(&h, 200, Some(Bucket::Cancel)).unwrap();
        assert_eq!(s.remaining, Some(-40));
        let g = Governor::with_headroom(Tier::Standard, 0);
        let t0 = g.origin;
        g.observe(&s, t0, t0);
        // 120 capacity, 40 owed beyond empty: 41 tokens of refill (12.5 ms each) before one
        // cancel fits.
        let e = g
            .acquire_at(Bucket::Cancel, 1, t0, Duration::ZERO)
            .unwrap_err();
        assert_eq!(e.wait, Duration::from_nanos(41 * 12_500_000));
        assert_eq!(g.stats(Bucket::Cancel).corrections, 1);
    }
}
