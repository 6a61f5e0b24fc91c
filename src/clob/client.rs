//! [`Client`]: the CLOB's layers around the crate's HTTP transport: auth headers signed per
//! attempt, the server clock, the rails around every attempt, and the order lane.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde::Deserialize;

use super::auth::{Auth, Level};
use super::cache::Caches;
use super::lane::{Lane, carries};
use super::rails::Rails;
use super::request::Req;
use crate::http::{
    self, BreakerState, Bucket, ClientCounters, Error, Governor, RateLimitStatus, Tier,
};
use crate::types::Chain;

/// The native CLOB REST client: cheap to clone (one `Arc`), safe to share between tasks.
///
/// ```no_run
/// # async fn f() -> Result<(), polyclob::http::Error> {
/// let client = polyclob::clob::Client::builder().build()?;
/// client.prewarm().await?;
/// let book = client.book("71321045679252212594626385532706912750332728571942532289631379312455583992563").await?;
/// println!("{} bids", book.bids.len());
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Client {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    /// The transport: host, pool, timeout, retries, breaker, proxy choice.
    pub(crate) http: http::Client,
    pub(crate) chain: Chain,
    pub(crate) server_time: bool,
    /// Server clock minus local clock, seconds; [`UNSYNCED`] until first learnt.
    pub(crate) clock_offset: AtomicI64,
    pub(crate) caches: Caches,
    pub(crate) auth: Auth,
    /// Rate-limit governor, read pacers, restriction windows, heartbeat guard.
    pub(crate) rails: Rails,
    /// The order lane, when switched on
    /// ([`ClientBuilder::order_lane`](super::ClientBuilder::order_lane)).
    pub(crate) lane: Option<Lane>,
}

impl core::fmt::Debug for Client {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Client")
            .field("host", &self.inner.http.host())
            .field("chain", &self.inner.chain)
            .field("auth", &self.inner.auth)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// The base URL requests go to.
    #[must_use]
    pub fn host(&self) -> &str {
        self.inner.http.host()
    }

    /// The chain orders and ClobAuth are signed for.
    #[must_use]
    pub fn chain(&self) -> Chain {
        self.inner.chain
    }

    /// The signer's address, if the client has a private key.
    #[must_use]
    pub fn address(&self) -> Option<alloy_primitives::Address> {
        self.inner.auth.signer().map(crate::sign::Signer::address)
    }

    /// The circuit breaker's current state.
    #[must_use]
    pub fn breaker_state(&self) -> BreakerState {
        self.inner.http.breaker_state()
    }

    /// Opens the pooled connection (DNS, TCP, TLS, HTTP/2) ahead of the first real request
    /// with a `GET /time`, so the first order does not pay for the handshake; with the
    /// [order lane](super::ClientBuilder::order_lane) on, first one lane connection too.
    ///
    /// # Errors
    ///
    /// When the server cannot be reached.
    pub async fn prewarm(&self) -> Result<(), Error> {
        if let Some(lane) = &self.inner.lane {
            lane.prewarm().await?;
        }
        self.server_time().await.map(drop)
    }

    /// Open [order lane](super::ClientBuilder::order_lane) connections (0 when the lane is off).
    #[doc(hidden)]
    #[must_use]
    pub fn order_lane_connections(&self) -> usize {
        self.inner.lane.as_ref().map_or(0, Lane::open_connections)
    }

    /// Reads `GET /time` and stores the server-minus-local clock offset used when the client
    /// was built with [`server_time(true)`](super::ClientBuilder::server_time). Returns the offset in
    /// seconds.
    ///
    /// # Errors
    ///
    /// Transport, status or decode errors of `GET /time`.
    pub async fn sync_clock(&self) -> Result<i64, Error> {
        let server = self.server_time().await?;
        let local = unix_secs();
        let offset = i64::try_from(server)
            .unwrap_or(i64::MAX)
            .saturating_sub(i64::try_from(local).unwrap_or(0));
        self.inner.clock_offset.store(offset, Ordering::Relaxed);
        Ok(offset)
    }

    /// The timestamp (unix seconds) signed into auth headers.
    pub(crate) fn timestamp(&self) -> u64 {
        let local = unix_secs();
        if !self.inner.server_time {
            return local;
        }
        match self.inner.clock_offset.load(Ordering::Relaxed) {
            UNSYNCED => local,
            offset => local.saturating_add_signed(offset),
        }
    }

    /// With [`server_time(true)`](super::ClientBuilder::server_time), learns the clock offset before
    /// the first signed request if [`Client::sync_clock`] was not called: the exchange accepts
    /// an L2 signature for 30 s only, so a skewed local clock would fail every call. When
    /// `GET /time` fails the local clock is used (offset 0) until `sync_clock` succeeds.
    async fn ensure_clock(&self, level: Level) {
        if level == Level::None
            || !self.inner.server_time
            || self.inner.clock_offset.load(Ordering::Relaxed) != UNSYNCED
        {
            return;
        }
        // One plain attempt (`send` would recurse into here).
        let server = self
            .send_once(&Req::get("/time"), None)
            .await
            .0
            .ok()
            .and_then(|body| {
                core::str::from_utf8(&body)
                    .ok()?
                    .trim()
                    .trim_matches('"')
                    .parse::<i64>()
                    .ok()
            });
        let offset = server.map_or(0, |s| {
            s.saturating_sub(i64::try_from(unix_secs()).unwrap_or(0))
        });
        let _ = self.inner.clock_offset.compare_exchange(
            UNSYNCED,
            offset,
            Ordering::Relaxed,
            Ordering::Relaxed,
        );
    }

    /// Sends `req` (retrying it when idempotent) and returns the 2xx body. Every attempt
    /// passes the rails first (each retry is metered by the exchange too) and reports back to
    /// them.
    pub(crate) async fn send(&self, req: &Req<'_>) -> Result<bytes::Bytes, Error> {
        self.ensure_clock(req.auth).await;
        self.inner
            .http
            .retrying(req, || async move {
                let bucket = self.inner.rails.before(req).await?;
                // The per-IP limits after the signer's: a request the governor refuses takes
                // no slot of the IP's.
                self.inner.http.pace(req).await;
                let sent = Instant::now();
                let (result, limits) = self.send_once(req, bucket).await;
                self.inner
                    .rails
                    .after(bucket, sent, limits.as_ref(), &result, req.path);
                Ok(result)
            })
            .await
    }

    /// One attempt; with a `bucket` (a metered trading request) also the rate-limit headers.
    async fn send_once(
        &self,
        req: &Req<'_>,
        bucket: Option<Bucket>,
    ) -> (Result<bytes::Bytes, Error>, Option<RateLimitStatus>) {
        let mut limits = None;
        let result = self.attempt(req, bucket, &mut limits).await;
        (result, limits)
    }

    async fn attempt(
        &self,
        req: &Req<'_>,
        bucket: Option<Bucket>,
        limits: &mut Option<RateLimitStatus>,
    ) -> Result<bytes::Bytes, Error> {
        // Signed per attempt: every retry and every page gets a fresh timestamp.
        let body = req.body.as_deref().unwrap_or_default();
        if let Some(lane) = &self.inner.lane
            && carries(req)
        {
            let headers = |w: &mut Vec<u8>| {
                self.inner.auth.write_headers(
                    req.auth,
                    self.inner.chain.id(),
                    self.timestamp(),
                    req.method.as_str(),
                    req.path,
                    body,
                    w,
                )
            };
            let timeout = self.inner.http.timeout();
            if let Some(r) = lane.attempt(req, timeout, headers, bucket, limits).await {
                return r;
            }
        }
        let mut rb = self.inner.http.request(req);
        for (name, value) in self.inner.auth.headers(
            req.auth,
            self.inner.chain.id(),
            self.timestamp(),
            req.method.as_str(),
            req.path,
            body,
        )? {
            rb = rb.header(name, value);
        }
        self.inner
            .http
            .execute(rb, req.path, |status, headers| {
                if bucket.is_some() {
                    *limits = RateLimitStatus::from_headers(headers, status, bucket);
                }
            })
            .await
    }

    /// Sends `req` and decodes its rows with `decode`, through the transport's
    /// [`rows`](http::Client::rows) (every skipped row counted and traced): the one way a
    /// row-returning CLOB call is written.
    pub(crate) async fn rows<P: http::Rows>(
        &self,
        req: &Req<'_>,
        decode: impl FnOnce(&[u8]) -> Result<P, Error>,
    ) -> Result<P, Error> {
        let body = self.send(req).await?;
        self.inner.http.rows(req.path, decode(&body))
    }

    /// Sends and decodes a JSON body.
    pub(crate) async fn json<T: serde::de::DeserializeOwned>(
        &self,
        req: &Req<'_>,
    ) -> Result<T, Error> {
        let body = self.send(req).await?;
        http::decode(&body, req.path).inspect_err(|e| self.inner.http.count_decode(e))
    }

    /// What this client (and its clones) has done since it was built: requests, errors by
    /// kind, 429s, client-side rate-limit delays, heartbeat failures, presign fallbacks. A
    /// few relaxed atomic loads; see [`ClientCounters`].
    #[must_use]
    pub fn counters(&self) -> ClientCounters {
        let mut c = self.inner.http.counters();
        self.inner.rails.fill_counters(&mut c);
        #[cfg(feature = "presign")]
        {
            c.presign_fallbacks = self
                .inner
                .auth
                .signer()
                .and_then(crate::sign::Signer::nonce_pool)
                .map_or(0, |p| p.stats().fallbacks);
        }
        c
    }

    /// The transport's proxy choice (streams built with `proxy_from` reuse it).
    pub(crate) fn proxy_setting(&self) -> &crate::http::proxy::Setting {
        self.inner.http.proxy_setting()
    }

    /// The signer's rate-limit governor (shared by every clone of this client).
    #[must_use]
    pub fn governor(&self) -> &Arc<Governor> {
        &self.inner.rails.governor
    }

    /// The last `Poly-RateLimit-*` headers the exchange sent for `bucket`'s requests.
    #[must_use]
    pub fn rate_limit_status(&self, bucket: Bucket) -> Option<RateLimitStatus> {
        self.inner.rails.governor.last_status(bucket)
    }

    /// `GET /v1/user/rate-limit-tier` (L2): the account's tier, adopted by the governor.
    ///
    /// The answer is read leniently: a JSON string, or an object with `tier` (or
    /// `rate_limit_tier`, `name`).
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status, or a tier this crate does not know.
    pub async fn sync_rate_limit_tier(&self) -> Result<Tier, Error> {
        const PATH: &str = "/v1/user/rate-limit-tier";
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Answer {
            Name(String),
            Object {
                #[serde(alias = "rate_limit_tier", alias = "name", alias = "rateLimitTier")]
                tier: String,
            },
        }
        let a: Answer = self.json(&Req::get(PATH).auth(Level::L2)).await?;
        let name = match a {
            Answer::Name(n) | Answer::Object { tier: n } => n,
        };
        let tier = Tier::parse(&name).ok_or_else(|| {
            let shown: String = name.chars().take(32).collect();
            Error::decode(format!("unknown rate-limit tier {shown:?}")).with_path(PATH)
        })?;
        self.inner.rails.governor.set_tier(tier);
        Ok(tier)
    }
}

/// `clock_offset` before the server's clock was read.
pub(crate) const UNSYNCED: i64 = i64::MIN;

pub(crate) fn unix_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
