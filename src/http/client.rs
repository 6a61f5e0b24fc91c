//! [`Client`]: one host on a tuned `reqwest` client. It builds URLs and requests ([`Req`]),
//! applies the per-attempt timeout, turns answers into bodies or [`Error`]s, and runs the one
//! retry loop (circuit breaker, backoff for idempotent requests). The CLOB client wraps it
//! with auth, rails and the order lane; Gamma, the Data API, the relayer calls and the
//! on-chain JSON-RPC use it as it is.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue, RETRY_AFTER};
use reqwest::{Method, RequestBuilder};

use super::breaker::{Breaker, BreakerState};
use super::counters::{ClientCounters, Counters};
use super::error::{Error, Kind};
use super::proxy::Setting;
use super::retry::{RetryPolicy, parse_retry_after};
use super::rows::Rows;

/// The header the Data API puts on every answer: the server's id of the request, to quote
/// when asking Polymarket about it.
const TRACE_ID: &str = "x-trace-id";

/// One host on the crate's transport: cheap to clone (one `Arc`), safe to share.
#[derive(Clone, Debug)]
pub(crate) struct Client {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    http: reqwest::Client,
    host: String,
    timeout: Option<Duration>,
    retry: RetryPolicy,
    breaker: Breaker,
    /// The builder's proxy choice, for connections opened beside reqwest (the order lane, and
    /// streams built with `proxy_from`).
    proxy: Setting,
    counters: Counters,
    /// The per-IP pacers of this host, when pacing is on.
    pacers: Option<super::limits::Pacers>,
}

/// One request as an endpoint describes it.
#[derive(Debug)]
pub(crate) struct Req<'a> {
    pub(crate) method: Method,
    /// Path without query (what the CLOB's HMAC covers).
    pub(crate) path: &'a str,
    /// Already-encoded query string without `?`, possibly empty.
    pub(crate) query: String,
    /// The exact body bytes, sent as JSON (`Bytes`: handing them to reqwest per attempt is a
    /// reference count, not a copy).
    pub(crate) body: Option<Bytes>,
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
            idempotent: true,
        }
    }

    pub(crate) fn post(path: &'a str, body: Vec<u8>) -> Self {
        Self {
            method: Method::POST,
            path,
            query: String::new(),
            body: Some(body.into()),
            idempotent: false,
        }
    }

    /// A `POST` without a body (not even an empty JSON one).
    pub(crate) fn post_empty(path: &'a str) -> Self {
        Self {
            body: None,
            ..Self::post(path, Vec::new())
        }
    }

    pub(crate) fn delete(path: &'a str, body: Option<Vec<u8>>) -> Self {
        // Deleting twice has the effect of deleting once.
        Self {
            method: Method::DELETE,
            path,
            query: String::new(),
            body: body.map(Into::into),
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

    pub(crate) fn idempotent(mut self, yes: bool) -> Self {
        self.idempotent = yes;
        self
    }
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
fn encode_into(out: &mut String, s: &str) {
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

/// serde_json decode with the error naming the path and the position.
pub(crate) fn decode<'de, T: serde::Deserialize<'de>>(
    body: &'de [u8],
    path: &str,
) -> Result<T, Error> {
    crate::json::from_body(body)
        .map_err(|e| Error::new(Kind::Decode).with_path(path).with_source(e))
}

impl Client {
    pub(crate) fn new(
        http: reqwest::Client,
        host: String,
        timeout: Option<Duration>,
        retry: RetryPolicy,
        breaker: Breaker,
        proxy: Setting,
        pacers: Option<super::limits::Pacers>,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                http,
                host,
                timeout,
                retry,
                breaker,
                proxy,
                counters: Counters::default(),
                pacers,
            }),
        }
    }

    /// A transport over a `reqwest::Client` the caller built (its own pool, proxy and
    /// timeouts; no retries, no breaker).
    #[cfg(feature = "onchain")]
    pub(crate) fn from_reqwest(http: reqwest::Client, host: String) -> Self {
        Self::new(
            http,
            host,
            None,
            RetryPolicy::none(),
            Breaker::new(super::BreakerConfig::default()),
            Setting::Direct,
            None,
        )
    }

    /// The base URL requests go to.
    pub(crate) fn host(&self) -> &str {
        &self.inner.host
    }

    /// Deadline of one attempt.
    pub(crate) fn timeout(&self) -> Option<Duration> {
        self.inner.timeout
    }

    /// The circuit breaker's current state.
    pub(crate) fn breaker_state(&self) -> BreakerState {
        self.inner.breaker.state_at(Instant::now())
    }

    /// The transport's counters (the rest of [`ClientCounters`] is left at zero).
    pub(crate) fn counters(&self) -> ClientCounters {
        self.inner.counters.snapshot()
    }

    /// Counts a 2xx body that did not decode.
    pub(crate) fn count_decode(&self, e: &Error) {
        self.inner.counters.decode_error(e);
    }

    /// Where every row-returning answer of `path` passes once decoded: each skipped row is
    /// counted and traced (`polyclob.http.skipped_row`), a body that did not decode is
    /// counted and named by `path`. `path` is the route as the docs spell it (a template
    /// such as `/rewards/markets/{condition_id}` where the path carries an id).
    ///
    /// # Errors
    /// `decoded`'s error, with `path`.
    pub(crate) fn rows<P: Rows>(&self, path: &str, decoded: Result<P, Error>) -> Result<P, Error> {
        match decoded {
            Ok(answer) => {
                for row in answer.skipped() {
                    self.inner.counters.skipped_row();
                    crate::telemetry::event!(
                        WARN,
                        "polyclob.http.skipped_row",
                        endpoint = path,
                        list = row.list,
                        index = row.index,
                        reason = %row.reason,
                        raw_len = row.raw_len,
                    );
                    #[cfg(not(feature = "tracing"))]
                    let _ = row;
                }
                Ok(answer)
            }
            Err(e) => {
                let e = e.with_path(path);
                self.count_decode(&e);
                Err(e)
            }
        }
    }

    /// Sends `req` and decodes its rows with `decode`, through [`rows`](Self::rows): the one
    /// way a row-returning call of a host without a layer of its own is written.
    pub(crate) async fn get_rows<P: Rows>(
        &self,
        req: &Req<'_>,
        decode: impl FnOnce(&[u8]) -> Result<P, Error>,
    ) -> Result<P, Error> {
        let body = self.send(req).await?;
        self.rows(req.path, decode(&body))
    }

    /// The builder's proxy choice.
    pub(crate) fn proxy_setting(&self) -> &Setting {
        &self.inner.proxy
    }

    /// A request to an absolute `url` (another host on the same connection pool and proxy),
    /// with the per-attempt timeout.
    pub(crate) fn request_url(&self, method: Method, url: &str) -> RequestBuilder {
        let rb = self.inner.http.request(method, url);
        match self.inner.timeout {
            Some(t) => rb.timeout(t),
            None => rb,
        }
    }

    /// `req` on this host: URL, method, timeout, and its body as JSON.
    pub(crate) fn request(&self, req: &Req<'_>) -> RequestBuilder {
        let host = &self.inner.host;
        let mut url = String::with_capacity(host.len() + req.path.len() + req.query.len() + 1);
        url.push_str(host);
        url.push_str(req.path);
        if !req.query.is_empty() {
            url.push('?');
            url.push_str(&req.query);
        }
        let rb = self.request_url(req.method.clone(), &url);
        match &req.body {
            Some(b) => rb
                .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
                .body(b.clone()),
            None => rb,
        }
    }

    /// Sends one request and reads the whole answer, whatever its status.
    ///
    /// # Errors
    /// Transport failures only (connect, timeout, reset, body read).
    #[cfg(feature = "onchain")]
    pub(crate) async fn exchange(&self, rb: RequestBuilder) -> Result<(u16, Bytes), Error> {
        let resp = rb.send().await.map_err(Error::from_reqwest)?;
        let status = resp.status().as_u16();
        let body = resp.bytes().await.map_err(Error::from_reqwest)?;
        Ok((status, body))
    }

    /// Sends one request: the 2xx body, or the error (naming `path`) for a transport failure or
    /// another status, with the server's `Retry-After`. `head` sees the status and headers
    /// first.
    pub(crate) async fn execute(
        &self,
        rb: RequestBuilder,
        path: &str,
        head: impl FnOnce(u16, &HeaderMap),
    ) -> Result<Bytes, Error> {
        let resp = rb
            .send()
            .await
            .map_err(|e| Error::from_reqwest(e).with_path(path))?;
        let status = resp.status().as_u16();
        crate::telemetry::record!(tracing::Span::current(), "status", status);
        head(status, resp.headers());
        let retry_after = resp
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| parse_retry_after(v.as_bytes()));
        let trace_id = resp
            .headers()
            .get(TRACE_ID)
            .and_then(|v| v.to_str().ok())
            .map(|t| super::rows::cut(t.trim(), super::error::MAX_ID).to_owned());
        if let Some(t) = &trace_id {
            crate::telemetry::record!(tracing::Span::current(), "trace_id", t.as_str());
            #[cfg(not(feature = "tracing"))]
            let _ = t;
        }
        let body = resp
            .bytes()
            .await
            .map_err(|e| Error::from_reqwest(e).with_path(path))?;
        if (200..300).contains(&status) {
            Ok(body)
        } else {
            Err(Error::from_status(status, &body, retry_after)
                .with_trace_id(trace_id.as_deref())
                .with_path(path))
        }
    }

    /// The one retry loop: `attempt` is called once per try while the breaker admits it; a
    /// transient failure of an idempotent `req` is retried after the policy's backoff.
    /// `attempt` returns `Err` for a request refused before anything was sent (returned at
    /// once, neither counted by the breaker nor retried), else the outcome of the attempt.
    pub(crate) async fn retrying<F, Fut>(
        &self,
        req: &Req<'_>,
        mut attempt: F,
    ) -> Result<Bytes, Error>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<Result<Bytes, Error>, Error>>,
    {
        let mut n = 0u32;
        let counters = &self.inner.counters;
        loop {
            if !self.inner.breaker.admit(Instant::now()) {
                counters.refused();
                return Err(Error::new(Kind::CircuitOpen).with_path(req.path));
            }
            let span = crate::telemetry::span!(
                "polyclob.http.request",
                method = req.method.as_str(),
                endpoint = req.path,
                attempt = n,
                status = tracing::field::Empty,
                rate_limit_wait_ms = tracing::field::Empty,
                trace_id = tracing::field::Empty,
            );
            let result = match crate::telemetry::instrument(attempt(), &span).await {
                Ok(result) => result,
                Err(refused) => {
                    counters.refused();
                    return Err(refused);
                }
            };
            counters.attempt(&result);
            let failed = matches!(&result, Err(e) if e.is_transient());
            self.inner.breaker.record(!failed, Instant::now());
            let e = match result {
                Ok(body) => return Ok(body),
                Err(e) => e,
            };
            match req
                .idempotent
                .then(|| self.inner.retry.delay(n, &e))
                .flatten()
            {
                Some(wait) => {
                    crate::telemetry::event!(
                        WARN,
                        "polyclob.http.retry",
                        endpoint = req.path,
                        attempt = n,
                        status = e.status().unwrap_or(0),
                        error = %e,
                        delay_ms = crate::telemetry::ms(wait),
                        trace_id = e.trace_id().unwrap_or(""),
                    );
                    counters.retry();
                    tokio::time::sleep(wait).await;
                    n += 1;
                }
                None => return Err(e),
            }
        }
    }

    /// Waits for `req`'s slot under the host's per-IP limits, when pacing is on (every
    /// attempt: the edge counts retries too).
    pub(crate) async fn pace(&self, req: &Req<'_>) {
        let Some(pacers) = &self.inner.pacers else {
            return;
        };
        let wait = pacers.reserve(&req.method, req.path);
        if wait.is_zero() {
            return;
        }
        crate::telemetry::event!(
            DEBUG,
            "polyclob.pacer.wait",
            endpoint = req.path,
            wait_ms = crate::telemetry::ms(wait),
        );
        crate::telemetry::record!(
            tracing::Span::current(),
            "rate_limit_wait_ms",
            crate::telemetry::ms(wait)
        );
        self.inner.counters.paced(wait);
        tokio::time::sleep(wait).await;
    }

    /// Sends `req` (retrying it when idempotent) and returns the 2xx body.
    pub(crate) async fn send(&self, req: &Req<'_>) -> Result<Bytes, Error> {
        self.retrying(req, || async move {
            self.pace(req).await;
            Ok(self.execute(self.request(req), req.path, |_, _| {}).await)
        })
        .await
    }

    /// Sends `req` and decodes its JSON body.
    pub(crate) async fn json<T: serde::de::DeserializeOwned>(
        &self,
        req: &Req<'_>,
    ) -> Result<T, Error> {
        let body = self.send(req).await?;
        decode(&body, req.path).inspect_err(|e| self.count_decode(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::{BreakerConfig, Settings, proxy::Route};
    use std::cell::Cell;

    fn client(retries: u32, threshold: u32) -> Client {
        let mut s = Settings::new("http://127.0.0.1:1");
        s.retry = RetryPolicy {
            max_retries: retries,
            base: Duration::from_millis(1),
            max: Duration::from_millis(2),
        };
        s.breaker = BreakerConfig {
            threshold,
            cooldown: Duration::from_secs(60),
        };
        s.build(&Route::Direct).expect("a client with no I/O")
    }

    #[tokio::test]
    async fn retry_loop_retries_idempotent_transient_failures_only() {
        let c = client(2, 0);
        let calls = &Cell::new(0);
        let unavailable = || async move {
            calls.set(calls.get() + 1);
            Ok(Err(Error::from_status(503, b"", None)))
        };
        let e = c.retrying(&Req::get("/x"), unavailable).await.unwrap_err();
        assert_eq!((e.status(), calls.get()), (Some(503), 3));
        calls.set(0);
        let e = c
            .retrying(&Req::post("/x", Vec::new()), unavailable)
            .await
            .unwrap_err();
        assert_eq!(
            (e.status(), calls.get()),
            (Some(503), 1),
            "a post is sent once"
        );
        calls.set(0);
        let bad = || async move {
            calls.set(calls.get() + 1);
            Ok(Err(Error::from_status(400, b"", None)))
        };
        c.retrying(&Req::get("/x"), bad).await.unwrap_err();
        assert_eq!(calls.get(), 1, "a 400 is not retried");
    }

    /// The one retry loop follows the server's `retryable` where its body says it.
    #[tokio::test]
    async fn retry_loop_follows_the_servers_retryable() {
        let c = client(2, 0);
        let calls = &Cell::new(0);
        let said = |status: u16, retryable: bool| async move {
            calls.set(calls.get() + 1);
            let body = format!(r#"{{"error":"e","code":"c","retryable":{retryable}}}"#);
            Ok(Err(Error::from_status(status, body.as_bytes(), None)))
        };
        c.retrying(&Req::get("/x"), || said(503, false))
            .await
            .unwrap_err();
        assert_eq!(
            calls.get(),
            1,
            "a 503 the server calls final is not retried"
        );
        calls.set(0);
        c.retrying(&Req::get("/x"), || said(400, true))
            .await
            .unwrap_err();
        assert_eq!(calls.get(), 3, "a 400 the server calls retryable is");
    }

    #[tokio::test]
    async fn refusals_skip_the_breaker_and_failures_open_it() {
        let c = client(0, 2);
        let calls = &Cell::new(0);
        let refused = || async move {
            calls.set(calls.get() + 1);
            Err(Error::argument("refused before sending"))
        };
        let failing = || async { Ok(Err(Error::new(Kind::Connect))) };
        assert!(
            c.retrying(&Req::get("/x"), failing)
                .await
                .unwrap_err()
                .is_connect()
        );
        // A refusal between two failures neither counts as one nor resets the count.
        assert!(
            c.retrying(&Req::get("/x"), refused)
                .await
                .unwrap_err()
                .is_argument()
        );
        assert_eq!((calls.get(), c.breaker_state()), (1, BreakerState::Closed));
        assert!(
            c.retrying(&Req::get("/x"), failing)
                .await
                .unwrap_err()
                .is_connect()
        );
        assert_eq!(c.breaker_state(), BreakerState::Open);
        let e = c.retrying(&Req::get("/y"), refused).await.unwrap_err();
        assert!(e.is_circuit_open() && e.path() == Some("/y"));
        assert_eq!(calls.get(), 1, "an open breaker sends nothing");
    }

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
