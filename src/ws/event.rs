//! What a connection delivers: frames (borrowed or owned) and connection status changes.

use std::fmt;
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::connection::{ConnectError, Disconnect};

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
