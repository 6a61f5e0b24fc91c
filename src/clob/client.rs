//! [`Client`]: the CLOB's layers around the crate's HTTP transport: auth headers signed per
//! attempt, the server clock, the rails around every attempt, and the order lane.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use super::auth::{Auth, Level};
use super::builder::ClientBuilder;
use super::cache::Caches;
use crate::http::{self, BreakerState, Error};
use crate::types::Chain;

/// The native CLOB REST client: cheap to clone (one `Arc`), safe to share between tasks.
///
/// ```no_run
/// # async fn f() -> Result<(), polyclob::clob::Error> {
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
    pub(crate) rails: super::rails::Rails,
    /// Token → condition id, for the open-orders filter rule (`token_market`).
    pub(crate) token_markets: super::token_market::TokenMarkets,
    /// The order lane, when switched on ([`ClientBuilder::order_lane`]).
    pub(crate) lane: Option<super::lane::Lane>,
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

/// One CLOB request: the transport's request and the auth level it is signed with.
#[derive(Debug)]
pub(crate) struct Req<'a> {
    req: http::Req<'a>,
    pub(crate) auth: Level,
}

impl<'a> core::ops::Deref for Req<'a> {
    type Target = http::Req<'a>;

    fn deref(&self) -> &Self::Target {
        &self.req
    }
}

impl<'a> Req<'a> {
    fn public(req: http::Req<'a>) -> Self {
        Self {
            req,
            auth: Level::None,
        }
    }

    pub(crate) fn get(path: &'a str) -> Self {
        Self::public(http::Req::get(path))
    }

    pub(crate) fn post(path: &'a str, body: Vec<u8>) -> Self {
        Self::public(http::Req::post(path, body))
    }

    pub(crate) fn post_empty(path: &'a str) -> Self {
        Self::public(http::Req::post_empty(path))
    }

    /// Cancels are idempotent: cancelling twice has the same effect as once.
    pub(crate) fn delete(path: &'a str, body: Option<Vec<u8>>) -> Self {
        Self::public(http::Req::delete(path, body))
    }

    pub(crate) fn query(mut self, key: &str, value: &str) -> Self {
        self.req = self.req.query(key, value);
        self
    }

    pub(crate) fn query_opt(mut self, key: &str, value: Option<&str>) -> Self {
        self.req = self.req.query_opt(key, value);
        self
    }

    pub(crate) fn auth(mut self, level: Level) -> Self {
        self.auth = level;
        self
    }

    pub(crate) fn idempotent(mut self, yes: bool) -> Self {
        self.req = self.req.idempotent(yes);
        self
    }
}

impl Client {
    /// A builder with every default (production host, Polygon).
    pub fn builder() -> ClientBuilder {
        ClientBuilder::new()
    }

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
    /// [order lane](ClientBuilder::order_lane) on, first one lane connection too.
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

    /// Open [order lane](ClientBuilder::order_lane) connections (0 when the lane is off).
    #[doc(hidden)]
    #[must_use]
    pub fn order_lane_connections(&self) -> usize {
        self.inner
            .lane
            .as_ref()
            .map_or(0, super::lane::Lane::open_connections)
    }

    /// Reads `GET /time` and stores the server-minus-local clock offset used when the client
    /// was built with [`server_time(true)`](ClientBuilder::server_time). Returns the offset in
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

    /// With [`server_time(true)`](ClientBuilder::server_time), learns the clock offset before
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
        bucket: Option<super::ratelimit::Bucket>,
    ) -> (
        Result<bytes::Bytes, Error>,
        Option<super::ratelimit::RateLimitStatus>,
    ) {
        let mut limits = None;
        let result = self.attempt(req, bucket, &mut limits).await;
        (result, limits)
    }

    async fn attempt(
        &self,
        req: &Req<'_>,
        bucket: Option<super::ratelimit::Bucket>,
        limits: &mut Option<super::ratelimit::RateLimitStatus>,
    ) -> Result<bytes::Bytes, Error> {
        if let Some(lane) = &self.inner.lane
            && super::lane::carries(req)
            && let Some(r) = self.lane_attempt(lane, req, bucket, limits).await
        {
            return r;
        }
        let mut rb = self.inner.http.request(req);
        // Signed per attempt: every retry and every page gets a fresh timestamp.
        let body = req.body.as_deref().unwrap_or_default();
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
                    *limits =
                        super::ratelimit::RateLimitStatus::from_headers(headers, status, bucket);
                }
            })
            .await
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
    /// few relaxed atomic loads; see [`ClientCounters`](super::ClientCounters).
    #[must_use]
    pub fn counters(&self) -> super::ClientCounters {
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
}

/// `clock_offset` before the server's clock was read.
pub(crate) const UNSYNCED: i64 = i64::MIN;

pub(crate) fn unix_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
