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
            }),
        }
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
    pub(crate) fn from_status(status: u16, body: &[u8], retry_after: Option<Duration>) -> Self {
        let mut e = Self::new(Kind::Status);
        e.inner.status = Some(status);
        e.inner.retry_after = retry_after;
        e.inner.message = server_message(body);
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

    /// HTTP 429: slow down; [`retry_after`](Self::retry_after) says for how long when the
    /// server said so.
    #[must_use]
    pub fn is_rate_limited(&self) -> bool {
        self.inner.status == Some(429)
    }

    /// HTTP 425: the matching engine is restarting; retry after a short pause.
    #[must_use]
    pub fn is_engine_restart(&self) -> bool {
        self.inner.status == Some(425)
    }

    /// HTTP 503: the exchange is unavailable, or in post-only or cancel-only mode.
    #[must_use]
    pub fn is_unavailable(&self) -> bool {
        self.inner.status == Some(503)
    }

    /// HTTP 503 with `post_only_mode`: only post-only orders are accepted right now.
    #[must_use]
    pub fn is_post_only_mode(&self) -> bool {
        self.is_unavailable() && self.message_contains(&["post_only", "post-only", "post only"])
    }

    /// HTTP 503 in cancel-only mode: new orders are refused, cancels still work.
    #[must_use]
    pub fn is_cancel_only(&self) -> bool {
        self.is_unavailable()
            && self.message_contains(&["cancel_only", "cancel-only", "cancel only"])
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

    /// The server's `Retry-After`, when it sent one.
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

/// Pulls the human-readable part out of an error body, bounded so a huge HTML page does not
/// end up in an error.
fn server_message(body: &[u8]) -> Option<Box<str>> {
    const MAX: usize = 512;
    #[derive(serde::Deserialize)]
    struct ErrBody<'a> {
        #[serde(borrow, alias = "errorMsg", alias = "message")]
        error: Option<std::borrow::Cow<'a, str>>,
    }
    if let Ok(ErrBody { error: Some(e) }) = serde_json::from_slice::<ErrBody<'_>>(body) {
        return Some(truncate(&e, MAX).into());
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        None
    } else {
        Some(truncate(text, MAX).into())
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
        if let Some(s) = &self.inner.source {
            write!(f, ": {s}")?;
        }
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
    fn huge_bodies_are_truncated() {
        let body = vec![b'x'; 10_000];
        let e = Error::from_status(500, &body, None);
        assert_eq!(e.message().map(str::len), Some(512));
        assert!(e.to_string().contains("HTTP 500"));
    }
}
