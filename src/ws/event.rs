//! What a connection delivers: frames (borrowed or owned) and connection status changes.

use std::fmt;
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio_tungstenite::tungstenite::{self, Utf8Bytes};

/// One data frame as received, borrowed for the duration of a
/// [`Handler`](super::feed::Handler) call ([`Cx::frame`](super::feed::Cx::frame)).
///
/// Keepalive answers are filtered out before delivery; everything else the server sends as a
/// text or binary message arrives here unchanged, in order, tagged with the shard
/// (connection) and its epoch.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    pub(crate) shard: usize,
    pub(crate) epoch: u64,
    pub(crate) bytes: &'a [u8],
    /// Set for text frames, whose UTF-8 the transport has already validated.
    pub(crate) text: Option<&'a str>,
    pub(crate) received: Instant,
}

impl<'a> Frame<'a> {
    /// The frame payload, exactly as received (no copy).
    #[must_use]
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The payload as text: free for text frames (validated by the transport); binary
    /// frames are validated here and give `None` when not UTF-8.
    #[must_use]
    pub fn as_str(&self) -> Option<&'a str> {
        self.text.or_else(|| std::str::from_utf8(self.bytes).ok())
    }

    /// Whether the server sent this as a text frame.
    #[must_use]
    pub fn is_text(&self) -> bool {
        self.text.is_some()
    }

    /// Index of the connection the frame came from.
    #[must_use]
    pub fn shard(&self) -> usize {
        self.shard
    }

    /// Epoch of that connection: it increases every time the shard reconnects.
    #[must_use]
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// When the connection's task took this message from the socket's WebSocket reader,
    /// before the hand-over to the consumer. `received_at().elapsed()` at the top of a
    /// handler is the time the frame spent between the connection and the handler (the
    /// queue hop and, if the consumer slept, its wake-up); the socket read and the
    /// WebSocket framing came before it.
    ///
    /// ```
    /// use polyclob::ws::event::Frame;
    /// use polyclob::ws::feed::{Cx, Frames, Handler};
    /// struct Lag(Vec<std::time::Duration>);
    /// impl Handler<Frames> for Lag {
    ///     fn on_message(&mut self, frame: &Frame<'_>, _: &Cx<'_, Frames>) {
    ///         self.0.push(frame.received_at().elapsed());
    ///     }
    /// }
    /// ```
    #[must_use]
    pub fn received_at(&self) -> Instant {
        self.received
    }
}

/// An owned data frame, as a [`FrameStream`](super::feed::FrameStream) yields it.
///
/// Holds the transport's reference-counted buffer: creating it copies nothing.
///
/// Two frames are equal when their shard, epoch and payload are: the receive time is not
/// compared.
#[derive(Clone)]
pub struct OwnedFrame {
    pub(crate) shard: usize,
    pub(crate) epoch: u64,
    pub(crate) payload: Payload,
    pub(crate) received: Instant,
}

impl PartialEq for OwnedFrame {
    fn eq(&self, other: &Self) -> bool {
        (self.shard, self.epoch, &self.payload) == (other.shard, other.epoch, &other.payload)
    }
}

impl Eq for OwnedFrame {}

/// A message body as the transport produced it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Payload {
    Text(Utf8Bytes),
    Binary(Bytes),
}

impl Payload {
    pub(crate) fn as_bytes(&self) -> &[u8] {
        match self {
            Payload::Text(t) => t.as_bytes(),
            Payload::Binary(b) => b,
        }
    }

    pub(crate) fn text(&self) -> Option<&str> {
        match self {
            Payload::Text(t) => Some(t.as_str()),
            Payload::Binary(_) => None,
        }
    }
}

impl OwnedFrame {
    /// An empty text frame (what a message that came over REST is tied to).
    pub(crate) fn empty() -> Self {
        Self {
            shard: 0,
            epoch: 0,
            payload: Payload::Binary(Bytes::new()),
            received: Instant::now(),
        }
    }

    /// A borrowed view of this frame.
    #[must_use]
    pub fn as_frame(&self) -> Frame<'_> {
        Frame {
            shard: self.shard,
            epoch: self.epoch,
            bytes: self.payload.as_bytes(),
            text: self.payload.text(),
            received: self.received,
        }
    }

    /// The frame payload.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        self.payload.as_bytes()
    }

    /// The payload as text (free for text frames; see [`Frame::as_str`]).
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        self.as_frame().as_str()
    }

    /// The underlying buffer (no copy).
    #[must_use]
    pub fn into_bytes(self) -> Bytes {
        match self.payload {
            Payload::Text(t) => Bytes::from(t),
            Payload::Binary(b) => b,
        }
    }

    /// Index of the connection the frame came from.
    #[must_use]
    pub fn shard(&self) -> usize {
        self.shard
    }

    /// Epoch of that connection.
    #[must_use]
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// When the connection's task took this message from the transport (see
    /// [`Frame::received_at`]).
    #[must_use]
    pub fn received_at(&self) -> Instant {
        self.received
    }
}

impl fmt::Debug for OwnedFrame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnedFrame")
            .field("shard", &self.shard)
            .field("epoch", &self.epoch)
            .field("bytes", &String::from_utf8_lossy(self.as_bytes()))
            .finish()
    }
}

/// A change in a connection's state. Every discontinuity in the frame sequence of a
/// shard is announced by one of these — frames are never dropped silently.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Status {
    /// The shard is connected and (if it has anything to subscribe) subscribed.
    Connected {
        /// Connection index.
        shard: usize,
        /// Epoch of this connection; frames from earlier epochs are discarded.
        epoch: u64,
        /// `false` for the first connection of the shard, `true` after a reconnect:
        /// state derived from earlier frames (books, open orders) must be rebuilt.
        reconnect: bool,
    },
    /// The connection ended (or a connection attempt failed); the shard retries after
    /// `retry_in`.
    Disconnected {
        /// Connection index.
        shard: usize,
        /// Epoch of the connection that ended.
        epoch: u64,
        /// Why.
        reason: Disconnect,
        /// Delay before the next attempt (exponential backoff with jitter).
        retry_in: Duration,
        /// The backoff step this delay was drawn for (0 after a healthy period; each break
        /// takes one step; see [`backoff`](super::backoff)).
        step: u32,
        /// Frames of the ended connection that were still queued and were discarded.
        discarded: u64,
    },
    /// The connection ended in a way retrying cannot fix (PolyBolt close 4001,
    /// authentication, 4008, policy, or an `auth_invalid` error acknowledgement): the shard
    /// does not reconnect and its stream ends.
    Stopped {
        /// Connection index.
        shard: usize,
        /// Why.
        reason: Disconnect,
    },
    /// The consumer fell behind: the queue was full and `dropped` frames of this shard
    /// were lost. The shard reconnects for fresh snapshots (at once after a healthy period,
    /// else after its backoff step).
    Lagged {
        /// Connection index.
        shard: usize,
        /// Frames lost (the one that did not fit plus the queued ones of the same
        /// connection that were discarded).
        dropped: u64,
    },
}

impl Status {
    /// The shard this status is about.
    #[must_use]
    pub fn shard(&self) -> usize {
        match self {
            Status::Connected { shard, .. }
            | Status::Disconnected { shard, .. }
            | Status::Stopped { shard, .. }
            | Status::Lagged { shard, .. } => *shard,
        }
    }

    /// The connect error, if this status reports a failed connection attempt.
    #[must_use]
    pub fn connect_error(&self) -> Option<ConnectError> {
        match self {
            Status::Disconnected {
                reason: Disconnect::Connect(e),
                ..
            } => Some(*e),
            _ => None,
        }
    }
}

/// Why a connection attempt failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConnectError {
    /// The URL is not a `ws://` or `wss://` URL with a host.
    InvalidUrl,
    /// The TLS configuration could not be built.
    Tls,
    /// TCP or TLS failed (refused, reset, unreachable, certificate rejected …).
    Io(std::io::ErrorKind),
    /// The server answered the upgrade request with this HTTP status. A `Retry-After` in
    /// that answer (a 429 or 503) is honoured: the next attempt waits at least that long
    /// ([`Status::Disconnected`]'s `retry_in` says how long).
    Rejected(u16),
    /// The WebSocket handshake failed for another reason.
    Handshake,
    /// Connect + TLS + handshake did not finish within `connect_timeout`.
    Timeout,
    /// The proxy did not open a tunnel to the endpoint (the step that failed; never the
    /// proxy's credentials).
    Proxy(crate::http::ProxyFailure),
}

impl ConnectError {
    pub(crate) fn from_handshake(e: &tungstenite::Error) -> Self {
        match e {
            tungstenite::Error::Http(resp) => ConnectError::Rejected(resp.status().as_u16()),
            tungstenite::Error::Io(io) => ConnectError::Io(io.kind()),
            _ => ConnectError::Handshake,
        }
    }
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectError::InvalidUrl => {
                f.write_str("invalid WebSocket URL (need ws:// or wss:// and a host)")
            }
            ConnectError::Tls => f.write_str("could not build the TLS configuration"),
            ConnectError::Io(kind) => write!(f, "connection failed: {kind}"),
            ConnectError::Rejected(status) => {
                write!(f, "server rejected the upgrade with HTTP {status}")
            }
            ConnectError::Handshake => f.write_str("WebSocket handshake failed"),
            ConnectError::Timeout => f.write_str("connect timed out"),
            ConnectError::Proxy(p) => fmt::Display::fmt(p, f),
        }
    }
}

impl std::error::Error for ConnectError {}

/// Why a connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Disconnect {
    /// The connection attempt itself failed.
    Connect(ConnectError),
    /// The server sent a Close frame with this code (e.g. 1008, policy violation).
    Closed {
        /// The close code, if the frame carried one.
        code: Option<u16>,
    },
    /// The TCP stream ended without a Close frame.
    Eof,
    /// A read or write failed.
    Io(std::io::ErrorKind),
    /// The server broke the WebSocket protocol (bad framing, invalid UTF-8 text …).
    Protocol,
    /// A message exceeded `max_message_size`.
    TooLarge,
    /// Nothing was received for `silence_timeout` (or a write stalled that long):
    /// the connection is presumed half-open.
    Silence,
    /// No `PONG` arrived within `pong_timeout` of a `PING`.
    PongTimeout,
    /// The consumer fell behind; reconnecting for fresh snapshots (see [`Status::Lagged`]).
    Lagged,
    /// The stream saw a loss inside the connection (a sequence gap, a server `dropped`, a
    /// book hash mismatch) and reconnects for fresh snapshots.
    Resnapshot,
    /// The server refused an operation with this error code (a PolyBolt error
    /// acknowledgement such as `auth_unavailable` or `auth_invalid`).
    Refused(&'static str),
    /// A reconnect was requested through the API.
    Requested,
}

impl Disconnect {
    /// Whether the client chose to end the connection (it then sends a Close frame first).
    pub(super) fn is_local(self) -> bool {
        matches!(
            self,
            Disconnect::Silence
                | Disconnect::PongTimeout
                | Disconnect::Lagged
                | Disconnect::Resnapshot
                | Disconnect::Refused(_)
                | Disconnect::Requested
        )
    }

    pub(super) fn from_ws(e: &tungstenite::Error) -> Self {
        match e {
            tungstenite::Error::ConnectionClosed | tungstenite::Error::AlreadyClosed => {
                Disconnect::Eof
            }
            tungstenite::Error::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
                Disconnect::Eof
            }
            tungstenite::Error::Protocol(
                tungstenite::error::ProtocolError::ResetWithoutClosingHandshake,
            ) => Disconnect::Eof,
            tungstenite::Error::Io(io) => Disconnect::Io(io.kind()),
            tungstenite::Error::Capacity(_) => Disconnect::TooLarge,
            _ => Disconnect::Protocol,
        }
    }
}

impl fmt::Display for Disconnect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Disconnect::Connect(e) => write!(f, "{e}"),
            Disconnect::Closed { code: Some(c) } => {
                write!(f, "server closed the connection (code {c})")
            }
            Disconnect::Closed { code: None } => f.write_str("server closed the connection"),
            Disconnect::Eof => f.write_str("connection ended without a close frame"),
            Disconnect::Io(kind) => write!(f, "I/O error: {kind}"),
            Disconnect::Protocol => f.write_str("WebSocket protocol error"),
            Disconnect::TooLarge => f.write_str("message too large"),
            Disconnect::Silence => {
                f.write_str("no data within the silence timeout (half-open connection)")
            }
            Disconnect::PongTimeout => f.write_str("no PONG within the pong timeout"),
            Disconnect::Lagged => f.write_str("consumer lagged; reconnecting for fresh snapshots"),
            Disconnect::Resnapshot => f.write_str("a loss; reconnecting for fresh snapshots"),
            Disconnect::Refused(code) => write!(f, "the server refused with {code}"),
            Disconnect::Requested => f.write_str("reconnect requested"),
        }
    }
}
