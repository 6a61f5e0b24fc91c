//! The client's one public error type: opaque, one word wide, queried by predicates.

use core::fmt;
use std::time::Duration;

type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Everything that can go wrong in a [`Client`](super::Client) call.
///
/// One pointer wide (the details live behind a `Box`), `Send + Sync`, and queried by
/// predicates rather than matched, so new causes can be added without breaking callers.
///
/// ```
/// use polyclob::clob::Error;
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
    /// The machine-readable `code` of an error body (`post_only_mode`).
    code: Option<Box<str>>,
    /// Which client-side rail refused the request, if one did.
    rail: Option<Rail>,
    /// The `heartbeat_id` of an `Invalid Heartbeat ID` answer.
    heartbeat_id: Option<Box<str>>,
}

/// The client-side rails that refuse a request before any I/O.
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
    Preflight,
}

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
    /// when no `Retry-After` header did, the retry hint.
    pub(crate) fn from_status(status: u16, body: &[u8], retry_after: Option<Duration>) -> Self {
        let mut e = Self::new(Kind::Status);
        let parts = server_message(body);
        e.inner.status = Some(status);
        e.inner.retry_after = retry_after.or(parts.retry_after);
        e.inner.message = parts.message;
        e.inner.code = parts.code;
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
        Self::new(kind).with_source(err)
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

    /// The client's rate-limit governor refused the request without sending it: the signer's
    /// bucket is short. [`retry_after`](Self::retry_after) is when it could go (zero when
    /// [`is_over_capacity`](Self::is_over_capacity)).
    #[must_use]
    pub fn is_throttled(&self) -> bool {
        matches!(self.inner.rail, Some(Rail::Throttled { .. }))
    }

    /// The request costs more tokens than the bucket can ever hold at the account's tier (a
    /// batch to split, or a cancel-all over too many orders); refused without sending.
    #[must_use]
    pub fn is_over_capacity(&self) -> bool {
        self.inner.rail
            == Some(Rail::Throttled {
                over_capacity: true,
            })
    }

    /// A client-side rail (governor, restriction window, heartbeat guard, pre-flight check)
    /// refused the request: nothing was sent.
    #[must_use]
    pub fn is_refused_locally(&self) -> bool {
        self.inner.kind == Kind::Refused
    }

    /// The heartbeat guard refused a new order: heartbeats failed or stopped, so the exchange
    /// will cancel resting orders. It lifts after the next successful heartbeat.
    #[must_use]
    pub fn is_heartbeat_guard(&self) -> bool {
        self.inner.rail == Some(Rail::HeartbeatGuard)
    }

    /// A pre-flight check found that the order's signer, funder (maker) and API credentials
    /// do not belong together ("maker address not allowed", "signer has to be the API KEY
    /// address" before the exchange says so). The message names both addresses.
    #[must_use]
    pub fn is_preflight(&self) -> bool {
        self.inner.rail == Some(Rail::Preflight)
    }

    /// HTTP 425: the matching engine is restarting; retry after a short pause
    /// ([`retry_after`](Self::retry_after) when the server named one).
    #[must_use]
    pub fn is_engine_restart(&self) -> bool {
        self.inner.status == Some(425)
    }

    /// HTTP 503: the exchange is unavailable, or in post-only or cancel-only mode.
    #[must_use]
    pub fn is_unavailable(&self) -> bool {
        self.inner.status == Some(503)
    }

    /// Post-only mode: HTTP 503 with `{"code":"post_only_mode","retry_after_seconds":…}`
    /// (the wait is [`retry_after`](Self::retry_after)), or a non-post-only order refused
    /// locally while that window is open. Post-only orders are still accepted.
    #[must_use]
    pub fn is_post_only_mode(&self) -> bool {
        self.inner.rail == Some(Rail::PostOnly)
            || (self.is_unavailable()
                && (self.inner.code.as_deref() == Some("post_only_mode")
                    || self.message_contains(&["post_only", "post-only", "post only"])))
    }

    /// Cancel-only mode (HTTP 503, or refused locally within a window the server announced
    /// with a retry hint): new orders are refused, cancels still work.
    #[must_use]
    pub fn is_cancel_only(&self) -> bool {
        self.inner.rail == Some(Rail::CancelOnly)
            || (self.is_unavailable()
                && (self.inner.code.as_deref() == Some("cancel_only_mode")
                    || self.message_contains(&["cancel_only", "cancel-only", "cancel only"])))
    }

    /// A post-only order the exchange refused because it would have matched on arrival: HTTP
    /// 400 `{"error":"invalid post-only order: order crosses book"}` (the exchange's
    /// `INVALID_POST_ONLY_ORDER`, docs.polymarket.com/resources/error-codes). Nothing was
    /// placed; re-price behind the touch and post again. A batch reports the same refusal per
    /// order in its `200` answer: see [`PostOrderResponse::is_post_only_crossing`].
    ///
    /// Not [`is_post_only_mode`](Self::is_post_only_mode) (the exchange accepting only
    /// post-only orders), nor the refusal of a post-only flag on a FOK or FAK order.
    ///
    /// [`PostOrderResponse::is_post_only_crossing`]: super::types::PostOrderResponse::is_post_only_crossing
    ///
    /// ```
    /// # async fn f(client: &polyclob::clob::Client, order: &polyclob::order::SignedOrder) {
    /// match client.post_order(order).await {
    ///     Err(e) if e.is_post_only_crossing() => { /* the book moved: quote one tick back */ }
    ///     other => drop(other),
    /// }
    /// # }
    /// ```
    #[must_use]
    pub fn is_post_only_crossing(&self) -> bool {
        self.inner.kind == Kind::Status
            && (self
                .inner
                .code
                .as_deref()
                .is_some_and(|c| c.eq_ignore_ascii_case(POST_ONLY_CROSSING_CODE))
                || self
                    .inner
                    .message
                    .as_deref()
                    .is_some_and(is_post_only_crossing_text))
    }

    /// The account is in closed-only mode (`GET /auth/ban-status/closed-only`): it may only
    /// reduce positions, so orders that open them are refused.
    #[must_use]
    pub fn is_closed_only(&self) -> bool {
        self.is_status() && self.message_contains(&["closed_only", "closed-only", "closed only"])
    }

    /// The server's current heartbeat id, when it answered a heartbeat with
    /// `{"error_msg":"Invalid Heartbeat ID","heartbeat_id":…}`: send the next heartbeat with it
    /// to resynchronise the chain.
    #[must_use]
    pub fn heartbeat_id(&self) -> Option<&str> {
        self.inner.heartbeat_id.as_deref()
    }

    /// The machine-readable `code` of the server's error body, when it sent one.
    #[must_use]
    pub fn code(&self) -> Option<&str> {
        self.inner.code.as_deref()
    }

    /// The order was signed for another exchange generation (`order_version_mismatch`):
    /// re-read `/version`, rebuild, re-sign.
    #[must_use]
    pub fn is_order_version_mismatch(&self) -> bool {
        self.message_contains(&["order_version_mismatch"])
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

    /// Whether retrying the same idempotent request later may succeed.
    #[must_use]
    pub fn is_transient(&self) -> bool {
        match self.inner.kind {
            Kind::Timeout | Kind::Connect | Kind::Transport => true,
            Kind::Status => matches!(self.inner.status, Some(425 | 429 | 500 | 502 | 503 | 504)),
            _ => false,
        }
    }

    fn message_contains(&self, needles: &[&str]) -> bool {
        self.inner.message.as_deref().is_some_and(|m| {
            let lower = m.to_ascii_lowercase();
            needles.iter().any(|n| lower.contains(n))
        })
    }
}

/// The exchange's name for a post-only order that would cross (its error table's
/// `INVALID_POST_ONLY_ORDER`; `INVALID_POST_ONLY_ORDER_TYPE` is another refusal).
const POST_ONLY_CROSSING_CODE: &str = "INVALID_POST_ONLY_ORDER";

/// Whether an error text is the exchange's post-only crossing refusal: `invalid post-only
/// order: order crosses book`, recognised case-insensitively and with the wordings that keep
/// both halves (a post-only marker and a crossing one), or the bare code name.
pub(crate) fn is_post_only_crossing_text(msg: &str) -> bool {
    let m = msg.to_ascii_lowercase();
    let post_only = ["post-only", "post_only", "post only"]
        .iter()
        .any(|n| m.contains(n));
    let crosses = [
        "crosses book",
        "crosses the book",
        "cross the book",
        "would cross",
    ]
    .iter()
    .any(|n| m.contains(n));
    if post_only && crosses {
        return true;
    }
    // The code as a whole word: `INVALID_POST_ONLY_ORDER_TYPE` (FOK/FAK with post-only) is not it.
    let code = POST_ONLY_CROSSING_CODE.to_ascii_lowercase();
    m.match_indices(&code).any(|(at, _)| {
        let before = m[..at].bytes().next_back();
        let after = m[at + code.len()..].bytes().next();
        ![before, after]
            .into_iter()
            .flatten()
            .any(|b| b == b'_' || b.is_ascii_alphanumeric())
    })
}

/// What an error body says.
#[derive(Default)]
struct Parts {
    message: Option<Box<str>>,
    code: Option<Box<str>>,
    retry_after: Option<Duration>,
    heartbeat_id: Option<Box<str>>,
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
    }
    if let Ok(mut b) = serde_json::from_slice::<ErrBody<'_>>(body) {
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
            return Parts {
                message: b
                    .error
                    .or_else(|| b.code.clone())
                    .map(|e| truncate(&e, MAX).into()),
                code: b.code.map(|c| truncate(&c, 64).into()),
                retry_after: secs
                    .filter(|s| s.is_finite() && (0.0..86_400.0).contains(s))
                    .map(Duration::from_secs_f64),
                heartbeat_id: b
                    .heartbeat_id
                    .filter(|h| !h.is_empty())
                    .map(|h| truncate(&h, 128).into()),
            };
        }
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    Parts {
        message: (!text.is_empty()).then(|| truncate(text, MAX).into()),
        ..Parts::default()
    }
}

fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
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
        // The underlying error is `source()`, not printed here: reporters that walk the chain
        // (`{:#}` of anyhow, eyre, tracing) would show it twice.
        Ok(())
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
    fn predicates_from_status() {
        let e = Error::from_status(503, br#"{"error":"trading is in post_only_mode"}"#, None);
        assert!(e.is_unavailable() && e.is_post_only_mode() && !e.is_cancel_only());
        assert_eq!(e.message(), Some("trading is in post_only_mode"));
        let e = Error::from_status(503, b"exchange in cancel-only mode", None);
        assert!(e.is_cancel_only() && !e.is_post_only_mode());
        let e = Error::from_status(429, b"", Some(Duration::from_secs(2)));
        assert!(e.is_rate_limited() && e.is_transient());
        assert_eq!(e.retry_after(), Some(Duration::from_secs(2)));
        assert_eq!(e.message(), None);
        let e = Error::from_status(425, b"{}", None);
        assert!(e.is_engine_restart());
        let e = Error::from_status(400, br#"{"error":"order_version_mismatch"}"#, None);
        assert!(e.is_order_version_mismatch() && !e.is_transient());
        assert_eq!(e.status(), Some(400));
    }

    #[test]
    fn restriction_bodies() {
        let e = Error::from_status(
            503,
            br#"{"code":"post_only_mode","retry_after_seconds":42}"#,
            None,
        );
        assert!(e.is_post_only_mode() && !e.is_cancel_only() && e.is_transient());
        assert_eq!(e.code(), Some("post_only_mode"));
        assert_eq!(e.retry_after(), Some(Duration::from_secs(42)));
        // A header wins over the body's hint.
        let e = Error::from_status(
            503,
            br#"{"code":"post_only_mode","retry_after_seconds":"7.5","error":"post only"}"#,
            Some(Duration::from_secs(3)),
        );
        assert_eq!(e.retry_after(), Some(Duration::from_secs(3)));
        assert_eq!(e.message(), Some("post only"));
        let e = Error::from_status(
            503,
            br#"{"error":"Trading is currently cancel-only. New orders are not accepted, but cancels are allowed."}"#,
            None,
        );
        assert!(e.is_cancel_only() && !e.is_post_only_mode());
        let e = Error::from_status(400, br#"{"error":"address is in closed-only mode"}"#, None);
        assert!(e.is_closed_only());
        let e = Error::from_status(
            400,
            br#"{"error_msg":"Invalid Heartbeat ID","heartbeat_id":"x"}"#,
            None,
        );
        assert_eq!(e.message(), Some("Invalid Heartbeat ID"));
        assert_eq!(e.heartbeat_id(), Some("x"));
        let e = Error::from_status(400, br#"{"error":"a","error_msg":"b","message":"c"}"#, None);
        assert_eq!(e.message(), Some("a"));
        let e = Error::from_status(503, br#"{"retry_after_seconds":-1,"code":"x"}"#, None);
        assert_eq!((e.retry_after(), e.message()), (None, Some("x")));
    }

    #[test]
    fn local_refusals() {
        let e = Error::refused(
            Rail::Throttled {
                over_capacity: false,
            },
            "short",
            Some(Duration::from_millis(25)),
        );
        assert!(e.is_throttled() && e.is_refused_locally() && !e.is_over_capacity());
        assert!(!e.is_rate_limited() && !e.is_transient());
        assert_eq!(e.retry_after(), Some(Duration::from_millis(25)));
        let e = Error::refused(Rail::PostOnly, "window", None);
        assert!(e.is_post_only_mode() && !e.is_throttled());
        let e = Error::refused(Rail::HeartbeatGuard, "hb", None);
        assert!(e.is_heartbeat_guard() && e.to_string().contains("refused before sending"));
        assert!(Error::refused(Rail::Preflight, "p", None).is_preflight());
        assert!(Error::refused(Rail::CancelOnly, "c", None).is_cancel_only());
    }

    #[test]
    fn post_only_crossing_is_its_own_predicate() {
        // The exchange's exact answer to a crossing post-only order.
        let e = Error::from_status(
            400,
            br#"{"error":"invalid post-only order: order crosses book"}"#,
            None,
        );
        assert!(e.is_post_only_crossing() && e.status() == Some(400));
        assert!(!e.is_post_only_mode() && !e.is_cancel_only() && !e.is_closed_only());
        assert!(!e.is_transient() && !e.is_refused_locally() && !e.is_unavailable());
        assert_eq!(
            e.message(),
            Some("invalid post-only order: order crosses book")
        );
        // Other wordings that keep both halves, and the bare code name.
        for body in [
            &br#"{"error":"INVALID POST-ONLY ORDER: ORDER CROSSES BOOK"}"#[..],
            br#"{"errorMsg":"order 0xab is invalid. Post-only order crosses the book"}"#,
            br#"{"error":"post only order would cross"}"#,
            br#"{"error":"INVALID_POST_ONLY_ORDER"}"#,
            br#"{"code":"INVALID_POST_ONLY_ORDER","error":"rejected"}"#,
        ] {
            let e = Error::from_status(400, body, None);
            assert!(e.is_post_only_crossing(), "{e:?}");
        }
        // The restriction answers are not it, and it is none of them.
        for (status, body) in [
            (
                503,
                &br#"{"error":"post-only mode: only post-only orders and cancels are allowed","code":"post_only_mode","retry_after_seconds":79}"#[..],
            ),
            (503, br#"{"error":"Trading is currently cancel-only. New orders are not accepted, but cancels are allowed."}"#),
            (400, br#"{"error":"'0xab' address in closed only mode"}"#),
            // Post-only on a FOK/FAK order, by message and by code name.
            (400, br#"{"error":"invalid post-only order: only GTC and GTD order types are allowed"}"#),
            (400, br#"{"error":"INVALID_POST_ONLY_ORDER_TYPE"}"#),
            // A taker order's own crossing message names no post-only flag.
            (400, br#"{"error":"order 0xab crosses the book"}"#),
            (400, b"invalid post-only"),
        ] {
            let e = Error::from_status(status, body, None);
            assert!(!e.is_post_only_crossing(), "{e:?}");
        }
        assert!(Error::from_status(503, br#"{"code":"post_only_mode"}"#, None).is_post_only_mode());
        // Only an answer from the exchange: a local refusal or a decode error is not.
        assert!(
            !Error::refused(Rail::PostOnly, "post-only order crosses book", None)
                .is_post_only_crossing()
        );
        assert!(!Error::decode("post-only order crosses book").is_post_only_crossing());
    }

    #[test]
    fn huge_bodies_are_truncated() {
        let body = vec![b'x'; 10_000];
        let e = Error::from_status(500, &body, None);
        assert_eq!(e.message().map(str::len), Some(512));
        assert!(e.to_string().contains("HTTP 500"));
    }
}
