//! [`Error`]: the one error of every HTTP client in the crate (CLOB, Gamma, Data API, relayer):
//! opaque, one word wide, queried by predicates. Here: the transport and status predicates and
//! the reading of Polymarket's error bodies; the CLOB's own predicates (rails, trading
//! restrictions) are in `clob/error.rs`.

use core::fmt;
use std::time::Duration;

use super::rows::cut;

type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Everything that can go wrong in a call of a [CLOB](crate::clob::Client),
/// [Gamma](crate::gamma::Client) or [Data API](crate::data::Client) client.
///
/// One pointer wide (the details live behind a `Box`), `Send + Sync`, and queried by
/// predicates rather than matched, so new causes can be added without breaking callers.
///
/// ```
/// use polyclob::http::Error;
///
/// assert_eq!(core::mem::size_of::<Error>(), core::mem::size_of::<usize>());
/// ```
pub struct Error {
    inner: Box<Inner>,
}

struct Inner {
    kind: Kind,
    status: Option<u16>,
    message: Option<Box<str>>,
    retry_after: Option<Duration>,
    path: Option<Box<str>>,
    source: Option<BoxError>,
    /// The machine-readable `code` of an error body (the Data API's documented codes, the
    /// CLOB's `post_only_mode`).
    code: Option<ApiErrorCode>,
    /// The body's `retryable`: whether the server says the same request may succeed later.
    retryable: Option<bool>,
    /// The server's id of the request (the body's `trace_id`, else the `x-trace-id` header).
    trace_id: Option<Box<str>>,
    /// The request parameter the server refused (the body's `parameter`).
    parameter: Option<Box<str>>,
    /// Which client-side rail refused the request, if one did.
    rail: Option<Rail>,
    /// The `heartbeat_id` of an `Invalid Heartbeat ID` answer.
    heartbeat_id: Option<Box<str>>,
}

/// The client-side rails that refuse a request before any I/O (the CLOB's; its predicates on
/// them are in `clob/error.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rail {
    /// The rate-limit governor: the bucket is short (or the cost exceeds its capacity).
    Throttled { over_capacity: bool },
    /// A post-only window the exchange announced is still open.
    PostOnly,
    /// A cancel-only window the exchange announced is still open.
    CancelOnly,
    /// Heartbeats failed or stopped: the exchange will cancel resting orders.
    HeartbeatGuard,
    /// The order's signer, funder or API key do not belong together.
    Preflight(PreflightMismatch),
}

/// What a pre-flight check found wrong with an order's signer, maker and API key
/// ([`Error::preflight_mismatch`]); the error's message names the addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PreflightMismatch {
    /// "signer has to be the API KEY address": the key signing the order is not the one the
    /// API credentials belong to.
    ApiKeySigner,
    /// "maker address not allowed": the maker is not the wallet the signature type implies
    /// (an EOA order's maker is the key; a proxy's or Safe's is the one derived from the key).
    MakerNotAllowed,
    /// "signer mismatch": a POLY_1271 order's key is not the deposit wallet's owner (the
    /// wallet is neither deposit wallet the factory derives for that key), so the wallet would
    /// refuse the signature.
    NotWalletOwner,
    /// "maker address not allowed, please use the deposit wallet flow": the account trades
    /// from its deposit wallet (new API accounts do), and the order is not a POLY_1271 one.
    DepositWalletRequired,
}

crate::http::lenient::lenient_enum!(
    /// The `code` of a server's error body, as the Data API v2 documents it
    /// (`{error, code, retryable, trace_id, parameter?}`); a code this version does not know
    /// (the CLOB's `post_only_mode`, say) is kept as `Unknown(text)`. Read it with
    /// [`Error::api_code`].
    ApiErrorCode {
        /// `invalid_request` (400): a parameter is missing or wrong ([`Error::parameter`]
        /// names it).
        InvalidRequest = "invalid_request",
        /// `unauthorized` (401).
        Unauthorized = "unauthorized",
        /// `not_found` (404).
        NotFound = "not_found",
        /// `method_not_allowed` (405).
        MethodNotAllowed = "method_not_allowed",
        /// `request_timeout` (503, with `Retry-After`): the query ran out of time.
        RequestTimeout = "request_timeout",
        /// `rate_limited` (429).
        RateLimited = "rate_limited",
        /// `dependency_unavailable`: a service behind the API did not answer.
        DependencyUnavailable = "dependency_unavailable",
        /// `internal` (500).
        Internal = "internal",
    }
);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The client could not be built (TLS setup, bad host).
    Builder,
    /// A caller argument was rejected before any I/O.
    Argument,
    /// The call needs a signer or API credentials the client does not have.
    Auth,
    /// Connecting failed.
    Connect,
    /// The request or the whole call timed out.
    Timeout,
    /// Another transport failure (reset, protocol error, body read).
    Transport,
    /// The server answered with a non-2xx status.
    Status,
    /// A 2xx body did not have the documented shape.
    Decode,
    /// The circuit breaker is open: the call was refused without I/O.
    CircuitOpen,
    /// Signing (L1, L2, order) failed.
    Sign,
    /// A client-side rail (rate limit, trading restriction, heartbeat guard, pre-flight check)
    /// refused the request without I/O.
    Refused,
}

impl Error {
    pub(crate) fn new(kind: Kind) -> Self {
        Self {
            inner: Box::new(Inner {
                kind,
                status: None,
                message: None,
                retry_after: None,
                path: None,
                source: None,
                code: None,
                retryable: None,
                trace_id: None,
                parameter: None,
                rail: None,
                heartbeat_id: None,
            }),
        }
    }

    /// A request refused locally by `rail`, with the wait after which it could go.
    pub(crate) fn refused(rail: Rail, msg: impl Into<Box<str>>, wait: Option<Duration>) -> Self {
        let mut e = Self::new(Kind::Refused).with_message(msg);
        e.inner.rail = Some(rail);
        e.inner.retry_after = wait;
        e
    }

    pub(crate) fn with_message(mut self, msg: impl Into<Box<str>>) -> Self {
        self.inner.message = Some(msg.into());
        self
    }

    pub(crate) fn with_source(mut self, source: impl Into<BoxError>) -> Self {
        self.inner.source = Some(source.into());
        self
    }

    pub(crate) fn with_path(mut self, path: &str) -> Self {
        self.inner.path = Some(path.into());
        self
    }

    /// The `x-trace-id` header of the answer, when the body named no trace id of its own.
    pub(crate) fn with_trace_id(mut self, header: Option<&str>) -> Self {
        if self.inner.trace_id.is_none() {
            self.inner.trace_id = header
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(|t| bounded(t, MAX_ID));
        }
        self
    }

    pub(crate) fn argument(msg: impl Into<Box<str>>) -> Self {
        Self::new(Kind::Argument).with_message(msg)
    }

    pub(crate) fn auth(msg: &'static str) -> Self {
        Self::new(Kind::Auth).with_message(msg)
    }

    pub(crate) fn decode(msg: impl Into<Box<str>>) -> Self {
        Self::new(Kind::Decode).with_message(msg)
    }

    pub(crate) fn sign(source: impl Into<BoxError>) -> Self {
        Self::new(Kind::Sign).with_source(source)
    }

    /// A non-2xx answer. `body` is the raw response; its `{"error": …}` text (or the body
    /// itself, truncated) becomes the server message.
    /// A `{"code": …, "retry_after_seconds": …}` body (post-only mode) supplies the code and,
    /// when no `Retry-After` header did, the retry hint. The Data API's documented body
    /// `{error, code, retryable, trace_id, parameter?}` supplies all five.
    pub(crate) fn from_status(status: u16, body: &[u8], retry_after: Option<Duration>) -> Self {
        let mut e = Self::new(Kind::Status);
        let parts = server_message(body);
        e.inner.status = Some(status);
        e.inner.retry_after = retry_after.or(parts.retry_after);
        e.inner.message = parts.message;
        e.inner.code = parts.code.map(|c| ApiErrorCode::parse(&c));
        e.inner.retryable = parts.retryable;
        e.inner.trace_id = parts.trace_id;
        e.inner.parameter = parts.parameter;
        e.inner.heartbeat_id = parts.heartbeat_id;
        e
    }

    pub(crate) fn from_reqwest(err: reqwest::Error) -> Self {
        let kind = if err.is_timeout() {
            Kind::Timeout
        } else if err.is_connect() {
            Kind::Connect
        } else if err.is_builder() {
            Kind::Builder
        } else {
            Kind::Transport
        };
        // Without the URL: a node's URL often carries an API key, and the path is kept apart.
        Self::new(kind).with_source(err.without_url())
    }

    /// The request or the call's deadline expired.
    #[must_use]
    pub fn is_timeout(&self) -> bool {
        self.inner.kind == Kind::Timeout
    }

    /// Connecting to the server failed (refused, DNS, TLS handshake).
    #[must_use]
    pub fn is_connect(&self) -> bool {
        self.inner.kind == Kind::Connect
    }

    /// The server answered with a non-2xx status; see [`status`](Self::status).
    #[must_use]
    pub fn is_status(&self) -> bool {
        self.inner.kind == Kind::Status
    }

    /// HTTP 429 from the server: slow down; [`retry_after`](Self::retry_after) says for how
    /// long when the server said so. (A refusal by the client's own governor is
    /// [`is_throttled`](Self::is_throttled) instead: it never reached the server.)
    #[must_use]
    pub fn is_rate_limited(&self) -> bool {
        self.inner.status == Some(429)
    }

    /// A client-side rail (governor, restriction window, heartbeat guard, pre-flight check)
    /// refused the request: nothing was sent.
    #[must_use]
    pub fn is_refused_locally(&self) -> bool {
        self.inner.kind == Kind::Refused
    }

    /// HTTP 503: the exchange is unavailable, or in post-only or cancel-only mode.
    #[must_use]
    pub fn is_unavailable(&self) -> bool {
        self.inner.status == Some(503)
    }

    /// The server's current heartbeat id, when it answered a heartbeat with
    /// `{"error_msg":"Invalid Heartbeat ID","heartbeat_id":…}`: send the next heartbeat with it
    /// to resynchronise the chain.
    #[must_use]
    pub fn heartbeat_id(&self) -> Option<&str> {
        self.inner.heartbeat_id.as_deref()
    }

    /// The machine-readable `code` of the server's error body, when it sent one, as text
    /// ([`api_code`](Self::api_code) reads it typed).
    #[must_use]
    pub fn code(&self) -> Option<&str> {
        self.inner.code.as_ref().map(ApiErrorCode::as_str)
    }

    /// The `code` of the server's error body, typed (the Data API v2's documented codes; any
    /// other is [`ApiErrorCode::Unknown`]).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let sim = polyclob_sim::Simulator::builder().start().await?;
    /// use polyclob::data::{Client, Query};
    /// use polyclob::http::ApiErrorCode;
    ///
    /// let data = Client::builder().host(sim.data_api_url()).build()?;
    /// // A cursor the server never handed out: refused, and not worth retrying.
    /// let e = data.page(&Query::trades(), Some("not-a-cursor")).await.unwrap_err();
    /// assert_eq!(e.api_code(), Some(&ApiErrorCode::InvalidRequest));
    /// assert_eq!((e.parameter(), e.retryable()), (Some("cursor"), Some(false)));
    /// assert!(e.trace_id().is_some());
    /// assert!(e.to_string().contains(e.trace_id().unwrap_or("?")));
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn api_code(&self) -> Option<&ApiErrorCode> {
        self.inner.code.as_ref()
    }

    /// The body's `retryable`: whether the server says the same request may succeed later
    /// (`None` when it did not say). The retry loop follows it when given
    /// ([`is_transient`](Self::is_transient)).
    #[must_use]
    pub fn retryable(&self) -> Option<bool> {
        self.inner.retryable
    }

    /// The server's id of the failed request: the body's `trace_id`, else the `x-trace-id`
    /// header (the Data API sends it on every answer). Quote it when asking Polymarket about
    /// the request; it is part of the error's `Display`.
    #[must_use]
    pub fn trace_id(&self) -> Option<&str> {
        self.inner.trace_id.as_deref()
    }

    /// The request parameter the server refused (the body's `parameter`), when it named one.
    #[must_use]
    pub fn parameter(&self) -> Option<&str> {
        self.inner.parameter.as_deref()
    }

    /// A 2xx body could not be decoded.
    #[must_use]
    pub fn is_decode(&self) -> bool {
        self.inner.kind == Kind::Decode
    }

    /// The circuit breaker refused the call without I/O.
    #[must_use]
    pub fn is_circuit_open(&self) -> bool {
        self.inner.kind == Kind::CircuitOpen
    }

    /// The call needs a signer or API credentials that the client was not given.
    #[must_use]
    pub fn is_auth(&self) -> bool {
        self.inner.kind == Kind::Auth
    }

    /// A caller argument was rejected before any I/O.
    #[must_use]
    pub fn is_argument(&self) -> bool {
        self.inner.kind == Kind::Argument
    }

    /// The HTTP status of a non-2xx answer.
    #[must_use]
    pub fn status(&self) -> Option<u16> {
        self.inner.status
    }

    /// When the request could be retried: the server's `Retry-After` (or the
    /// `retry_after_seconds` of a post-only answer), or the wait a client-side rail computed.
    #[must_use]
    pub fn retry_after(&self) -> Option<Duration> {
        self.inner.retry_after
    }

    /// The server's error message (`{"error": "…"}`), or this crate's description of the
    /// problem.
    #[must_use]
    pub fn message(&self) -> Option<&str> {
        self.inner.message.as_deref()
    }

    /// The request path (without query) the error belongs to.
    #[must_use]
    pub fn path(&self) -> Option<&str> {
        self.inner.path.as_deref()
    }

    /// Whether retrying the same idempotent request later may succeed: the server's own
    /// word when its error body says (`retryable`), else by status (425, 429, 500, 502, 503,
    /// 504) or kind (timeouts, connection and transport failures). The retry loop retries
    /// exactly these, no sooner than [`retry_after`](Self::retry_after).
    #[must_use]
    pub fn is_transient(&self) -> bool {
        match self.inner.kind {
            Kind::Timeout | Kind::Connect | Kind::Transport => true,
            Kind::Status => self.inner.retryable.unwrap_or(matches!(
                self.inner.status,
                Some(425 | 429 | 500 | 502 | 503 | 504)
            )),
            _ => false,
        }
    }

    /// Which rail refused the request, if one did.
    pub(crate) fn rail(&self) -> Option<Rail> {
        self.inner.rail
    }

    /// Whether the message contains one of `needles` (lower case), ASCII case ignored.
    pub(crate) fn message_contains(&self, needles: &[&str]) -> bool {
        self.inner.message.as_deref().is_some_and(|m| {
            let lower = m.to_ascii_lowercase();
            needles.iter().any(|n| lower.contains(n))
        })
    }
}

/// What an error body says.
#[derive(Default)]
struct Parts {
    message: Option<Box<str>>,
    code: Option<Box<str>>,
    retry_after: Option<Duration>,
    heartbeat_id: Option<Box<str>>,
    retryable: Option<bool>,
    trace_id: Option<Box<str>>,
    parameter: Option<Box<str>>,
}

/// The longest id or name kept from an error body (a trace id, a parameter, a heartbeat id).
/// The longest server id kept (an error's `trace_id`, the span's `trace_id` field): the rest
/// of a longer one is cut, so a server cannot make errors and logs grow without bound.
pub(super) const MAX_ID: usize = 128;

fn bounded(s: &str, max: usize) -> Box<str> {
    cut(s, max).into()
}

/// Pulls the human-readable part, the `code` and a `retry_after_seconds` out of an error body,
/// bounded so a huge HTML page does not end up in an error.
fn server_message(body: &[u8]) -> Parts {
    const MAX: usize = 512;
    // Separate fields, not aliases: a body may carry several of them (serde rejects an
    // alias seen twice as a duplicate field).
    #[derive(serde::Deserialize)]
    struct ErrBody<'a> {
        #[serde(borrow, default)]
        error: Option<std::borrow::Cow<'a, str>>,
        #[serde(borrow, default, rename = "errorMsg")]
        error_msg_camel: Option<std::borrow::Cow<'a, str>>,
        #[serde(borrow, default)]
        error_msg: Option<std::borrow::Cow<'a, str>>,
        #[serde(borrow, default)]
        message: Option<std::borrow::Cow<'a, str>>,
        #[serde(borrow, default)]
        code: Option<std::borrow::Cow<'a, str>>,
        #[serde(default)]
        retry_after_seconds: Option<serde_json::Value>,
        #[serde(borrow, default)]
        heartbeat_id: Option<std::borrow::Cow<'a, str>>,
        #[serde(default)]
        retryable: Option<serde_json::Value>,
        #[serde(borrow, default)]
        trace_id: Option<std::borrow::Cow<'a, str>>,
        #[serde(borrow, default)]
        parameter: Option<std::borrow::Cow<'a, str>>,
    }
    if let Ok(mut b) = crate::json::from_body::<ErrBody<'_>>(body) {
        b.error = b
            .error
            .take()
            .or(b.error_msg_camel.take())
            .or(b.error_msg.take())
            .or(b.message.take());
        if b.error.is_some() || b.code.is_some() {
            let secs = b.retry_after_seconds.as_ref().and_then(|v| match v {
                serde_json::Value::Number(n) => n.as_f64(),
                serde_json::Value::String(s) => s.trim().parse().ok(),
                _ => None,
            });
            let id = |t: Option<std::borrow::Cow<'_, str>>| {
                t.filter(|t| !t.trim().is_empty())
                    .map(|t| bounded(t.trim(), MAX_ID))
            };
            return Parts {
                message: b
                    .error
                    .or_else(|| b.code.clone())
                    .map(|e| cut(&e, MAX).into()),
                code: b.code.map(|c| cut(&c, 64).into()),
                retry_after: secs
                    .filter(|s| s.is_finite() && (0.0..86_400.0).contains(s))
                    .map(Duration::from_secs_f64),
                heartbeat_id: id(b.heartbeat_id),
                retryable: b.retryable.as_ref().and_then(serde_json::Value::as_bool),
                trace_id: id(b.trace_id),
                parameter: id(b.parameter),
            };
        }
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    Parts {
        message: (!text.is_empty()).then(|| cut(text, MAX).into()),
        ..Parts::default()
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Error");
        d.field("kind", &self.inner.kind);
        if let Some(s) = self.inner.status {
            d.field("status", &s);
        }
        if let Some(m) = &self.inner.message {
            d.field("message", m);
        }
        if let Some(p) = &self.inner.path {
            d.field("path", p);
        }
        if let Some(r) = self.inner.retry_after {
            d.field("retry_after", &r);
        }
        if let Some(c) = &self.inner.code {
            d.field("code", c);
        }
        if let Some(r) = self.inner.retryable {
            d.field("retryable", &r);
        }
        if let Some(t) = &self.inner.trace_id {
            d.field("trace_id", t);
        }
        if let Some(p) = &self.inner.parameter {
            d.field("parameter", p);
        }
        if let Some(r) = &self.inner.rail {
            d.field("rail", r);
        }
        if let Some(s) = &self.inner.source {
            d.field("source", s);
        }
        d.finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.inner.kind {
            Kind::Builder => "client setup failed",
            Kind::Argument => "invalid argument",
            Kind::Auth => "missing credentials",
            Kind::Connect => "connection failed",
            Kind::Timeout => "request timed out",
            Kind::Transport => "transport error",
            Kind::Status => "server returned an error",
            Kind::Decode => "unexpected response body",
            Kind::CircuitOpen => "circuit breaker open: call refused",
            Kind::Sign => "signing failed",
            Kind::Refused => "refused before sending",
        };
        f.write_str(what)?;
        if let Some(s) = self.inner.status {
            write!(f, " (HTTP {s})")?;
        }
        if let Some(p) = &self.inner.path {
            write!(f, " on {p}")?;
        }
        if let Some(m) = &self.inner.message {
            write!(f, ": {m}")?;
        }
        self.write_api_parts(f)?;
        // The underlying error is `source()`, not printed here: reporters that walk the chain
        // (`{:#}` of anyhow, eyre, tracing) would show it twice.
        Ok(())
    }
}

impl Error {
    /// ` (code invalid_request, parameter user, not retryable, trace_id 7f3a)`: what a typed
    /// error body added, each part only when the server sent it (the code only when the
    /// message is not the code itself).
    fn write_api_parts(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.inner;
        let code = i
            .code
            .as_ref()
            .map(ApiErrorCode::as_str)
            .filter(|c| i.message.as_deref() != Some(*c));
        let mut parts = Vec::with_capacity(4);
        if let Some(c) = code {
            parts.push(format!("code {c}"));
        }
        if let Some(p) = &i.parameter {
            parts.push(format!("parameter {p}"));
        }
        match i.retryable {
            Some(true) => parts.push("retryable".to_owned()),
            Some(false) => parts.push("not retryable".to_owned()),
            None => {}
        }
        if let Some(t) = &i.trace_id {
            parts.push(format!("trace_id {t}"));
        }
        if parts.is_empty() {
            return Ok(());
        }
        write!(f, " ({})", parts.join(", "))
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner.source.as_deref().map(|e| e as _)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_word_send_sync() {
        fn assert_send_sync<T: Send + Sync + 'static>() {}
        assert_send_sync::<Error>();
        assert_eq!(size_of::<Error>(), size_of::<usize>());
    }

    #[test]
    fn generic_predicates() {
        let e = Error::from_status(429, b"", Some(Duration::from_secs(2)));
        assert!(e.is_rate_limited() && e.is_transient() && e.is_status());
        assert_eq!(e.retry_after(), Some(Duration::from_secs(2)));
        assert_eq!(e.message(), None);
        let e = Error::from_status(503, br#"{"code":"x","retry_after_seconds":"1.5"}"#, None);
        assert!(e.is_unavailable() && e.is_transient());
        assert_eq!((e.code(), e.message()), (Some("x"), Some("x")));
        assert_eq!(e.retry_after(), Some(Duration::from_millis(1500)));
        let e = Error::from_status(400, br#"{"error":"bad"}"#, None);
        assert!(!e.is_transient() && !e.is_rate_limited());
        assert_eq!((e.status(), e.message()), (Some(400), Some("bad")));
        let e = Error::new(Kind::CircuitOpen).with_path("/x");
        assert!(e.is_circuit_open() && e.path() == Some("/x") && !e.is_transient());
    }

    /// The Data API v2's documented error body, read whole: code, retryable, trace id and
    /// parameter, the trace id in `Display`, `retryable` deciding over the status.
    #[test]
    fn data_api_errors_are_typed() {
        let body = br#"{"error":"user is required","code":"invalid_request","retryable":false,
            "trace_id":"4bf92f3577b34da6","parameter":"user"}"#;
        let e = Error::from_status(400, body, None).with_trace_id(Some("other"));
        assert_eq!(e.api_code(), Some(&ApiErrorCode::InvalidRequest));
        assert_eq!(e.code(), Some("invalid_request"));
        assert_eq!(e.retryable(), Some(false));
        assert_eq!(e.trace_id(), Some("4bf92f3577b34da6"), "the body's id wins");
        assert_eq!(e.parameter(), Some("user"));
        assert!(!e.is_transient());
        assert_eq!(
            e.with_path("/v2/positions").to_string(),
            "server returned an error (HTTP 400) on /v2/positions: user is required \
             (code invalid_request, parameter user, not retryable, trace_id 4bf92f3577b34da6)"
        );
        // A timeout the server calls retryable, with its Retry-After and the header's id.
        let body = br#"{"error":"query timed out","code":"request_timeout","retryable":true}"#;
        let e =
            Error::from_status(503, body, Some(Duration::from_secs(1))).with_trace_id(Some("t1"));
        assert_eq!(e.api_code(), Some(&ApiErrorCode::RequestTimeout));
        assert!(e.is_transient() && e.retryable() == Some(true));
        assert_eq!(
            (e.trace_id(), e.retry_after()),
            (Some("t1"), Some(Duration::from_secs(1)))
        );
        // The server's word decides over the status table, both ways.
        let e = Error::from_status(
            503,
            br#"{"error":"x","code":"internal","retryable":false}"#,
            None,
        );
        assert!(!e.is_transient());
        let e = Error::from_status(
            409,
            br#"{"error":"x","code":"busy","retryable":true}"#,
            None,
        );
        assert!(e.is_transient());
        assert_eq!(e.api_code(), Some(&ApiErrorCode::Unknown("busy".into())));
        // A body without them: nothing invented; the CLOB's code is kept as text.
        let e = Error::from_status(503, br#"{"code":"post_only_mode"}"#, None);
        assert_eq!(
            (e.retryable(), e.trace_id(), e.parameter()),
            (None, None, None)
        );
        assert_eq!(e.code(), Some("post_only_mode"));
        assert!(e.is_transient());
        assert!(!e.to_string().contains("code post_only_mode"), "{e}");
    }

    #[test]
    fn huge_bodies_are_truncated() {
        let body = vec![b'x'; 10_000];
        let e = Error::from_status(500, &body, None);
        assert_eq!(e.message().map(str::len), Some(512));
        assert!(e.to_string().contains("HTTP 500"));
    }
}
