//! [`Client`]: one tuned `reqwest` client, the retry loop, the breaker, status checks.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use reqwest::Method;
use reqwest::header::{CONTENT_TYPE, HeaderValue, RETRY_AFTER};

use super::auth::{Auth, Level};
use super::breaker::{Breaker, BreakerState};
use super::builder::ClientBuilder;
use super::cache::Caches;
use super::error::{Error, Kind};
use super::retry::{RetryPolicy, parse_retry_after};
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
    pub(crate) http: reqwest::Client,
    pub(crate) host: String,
    pub(crate) chain: Chain,
    pub(crate) timeout: Option<Duration>,
    pub(crate) retry: RetryPolicy,
    pub(crate) breaker: Breaker,
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
    /// The builder's proxy choice, for streams built with `proxy_from` ([`Proxy`](crate::clob::Proxy#where-it-applies)).
    pub(crate) proxy: crate::proxy::Setting,
}

impl core::fmt::Debug for Client {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Client")
            .field("host", &self.inner.host)
            .field("chain", &self.inner.chain)
            .field("auth", &self.inner.auth)
            .finish_non_exhaustive()
    }
}

/// One request as the endpoints describe it.
#[derive(Debug)]
pub(crate) struct Req<'a> {
    pub(crate) method: Method,
    /// Path without query: what the HMAC covers.
    pub(crate) path: &'a str,
    /// Already-encoded query string without `?`, possibly empty.
    pub(crate) query: String,
    /// The exact body bytes; signed and sent as they are (`Bytes`: handing them to reqwest
    /// per attempt is a reference count, not a copy).
    pub(crate) body: Option<bytes::Bytes>,
    pub(crate) auth: Level,
    /// Safe to send twice. Only idempotent requests are retried.
    pub(crate) idempotent: bool,
}

impl<'a> Req<'a> {
    pub(crate) fn get(path: &'a str) -> Self {
        Self {
            method: Method::GET,
            path,
            query: String::new(),
            body: None,
            auth: Level::None,
            idempotent: true,
        }
    }

    pub(crate) fn post(path: &'a str, body: Vec<u8>) -> Self {
        Self {
            method: Method::POST,
            path,
            query: String::new(),
            body: Some(body.into()),
            auth: Level::None,
            idempotent: false,
        }
    }

    pub(crate) fn delete(path: &'a str, body: Option<Vec<u8>>) -> Self {
        // Cancels are idempotent: cancelling twice has the same effect as once.
        Self {
            method: Method::DELETE,
            path,
            query: String::new(),
            body: body.map(Into::into),
            auth: Level::None,
            idempotent: true,
        }
    }

    pub(crate) fn query(mut self, key: &str, value: &str) -> Self {
        if !self.query.is_empty() {
            self.query.push('&');
        }
        encode_into(&mut self.query, key);
        self.query.push('=');
        encode_into(&mut self.query, value);
        self
    }

    pub(crate) fn query_opt(self, key: &str, value: Option<&str>) -> Self {
        match value {
            Some(v) => self.query(key, v),
            None => self,
        }
    }

    pub(crate) fn auth(mut self, level: Level) -> Self {
        self.auth = level;
        self
    }

    pub(crate) fn idempotent(mut self, yes: bool) -> Self {
        self.idempotent = yes;
        self
    }
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
pub(crate) fn encode_into(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
}

/// `prefix` + one percent-encoded path segment (ids never smuggle `/` or `?` into a path).
pub(crate) fn path_with(prefix: &str, segment: &str) -> String {
    let mut p = String::with_capacity(prefix.len() + segment.len());
    p.push_str(prefix);
    encode_into(&mut p, segment);
    p
}

impl Client {
    /// A builder with every default (production host, Polygon).
    pub fn builder() -> ClientBuilder {
        ClientBuilder::new()
    }

    /// The base URL requests go to.
    #[must_use]
    pub fn host(&self) -> &str {
        &self.inner.host
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
        self.inner.breaker.state_at(Instant::now())
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

    /// Sends `req` (retrying it when idempotent) and returns the 2xx body.
    pub(crate) async fn send(&self, req: &Req<'_>) -> Result<bytes::Bytes, Error> {
        self.ensure_clock(req.auth).await;
        let mut attempt = 0u32;
        loop {
            let now = Instant::now();
            if !self.inner.breaker.admit(now) {
                return Err(Error::new(Kind::CircuitOpen).with_path(req.path));
            }
            // Per attempt: every retry is metered by the exchange too.
            let bucket = self.inner.rails.before(req).await?;
            let (result, limits) = self.send_once(req, bucket).await;
            self.inner
                .rails
                .after(bucket, limits.as_ref(), &result, req.path);
            let failed = matches!(&result, Err(e) if e.is_transient());
            self.inner.breaker.record(!failed, Instant::now());
            match result {
                Ok(body) => return Ok(body),
                Err(e) => {
                    let retry = if req.idempotent {
                        self.inner.retry.delay(attempt, &e)
                    } else {
                        None
                    };
                    match retry {
                        Some(wait) => {
                            tokio::time::sleep(wait).await;
                            attempt += 1;
                        }
                        None => return Err(e),
                    }
                }
            }
        }
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
        let mut url =
            String::with_capacity(self.inner.host.len() + req.path.len() + req.query.len() + 1);
        url.push_str(&self.inner.host);
        url.push_str(req.path);
        if !req.query.is_empty() {
            url.push('?');
            url.push_str(&req.query);
        }
        let mut rb = self.inner.http.request(req.method.clone(), url);
        if let Some(t) = self.inner.timeout {
            rb = rb.timeout(t);
        }
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
        if let Some(b) = &req.body {
            rb = rb
                .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
                .body(b.clone());
        }
        let resp = rb
            .send()
            .await
            .map_err(|e| Error::from_reqwest(e).with_path(req.path))?;
        let status = resp.status().as_u16();
        if bucket.is_some() {
            *limits =
                super::ratelimit::RateLimitStatus::from_headers(resp.headers(), status, bucket);
        }
        let retry_after = resp
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| parse_retry_after(v.as_bytes()));
        let bytes = resp
            .bytes()
            .await
            .map_err(|e| Error::from_reqwest(e).with_path(req.path))?;
        if (200..300).contains(&status) {
            Ok(bytes)
        } else {
            Err(Error::from_status(status, &bytes, retry_after).with_path(req.path))
        }
    }

    /// Sends and decodes a JSON body.
    pub(crate) async fn json<T: serde::de::DeserializeOwned>(
        &self,
        req: &Req<'_>,
    ) -> Result<T, Error> {
        let body = self.send(req).await?;
        decode(&body, req.path)
    }
}

/// serde_json decode with the error naming the path and the position.
pub(crate) fn decode<'de, T: serde::Deserialize<'de>>(
    body: &'de [u8],
    path: &str,
) -> Result<T, Error> {
    serde_json::from_slice(body)
        .map_err(|e| Error::new(Kind::Decode).with_path(path).with_source(e))
}

/// `clock_offset` before the server's clock was read.
pub(crate) const UNSYNCED: i64 = i64::MIN;

pub(crate) fn unix_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_encoding() {
        let r = Req::get("/x")
            .query("next_cursor", "MA==")
            .query("ids", "a,b c");
        assert_eq!(r.query, "next_cursor=MA%3D%3D&ids=a%2Cb%20c");
        assert_eq!(
            path_with("/data/order/", "0xab/../c?d"),
            "/data/order/0xab%2F..%2Fc%3Fd"
        );
    }
}
