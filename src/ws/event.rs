//! What a stream delivers: frames (borrowed or owned) and connection status changes.

use std::fmt;
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::connection::{ConnectError, Disconnect};

/// One data frame as received, borrowed for the duration of a [`Handler`] call.
///
/// PONG replies are filtered out before delivery; everything else the server sends as a
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
    /// use polyclob::ws::event::{Frame, Handler, Status};
    /// struct Lag(Vec<std::time::Duration>);
    /// impl Handler for Lag {
    ///     fn on_frame(&mut self, frame: Frame<'_>) {
    ///         self.0.push(frame.received_at().elapsed());
    ///     }
    ///     fn on_status(&mut self, _: &Status) {}
    /// }
    /// ```
    #[must_use]
    pub fn received_at(&self) -> Instant {
        self.received
    }
}

/// An owned data frame, as yielded by the `Stream` implementations.
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
        /// Frames of the ended connection that were still queued and were discarded.
        discarded: u64,
    },
    /// The connection ended in a way retrying cannot fix (PolyBolt close 4001,
    /// authentication, or 4008, policy): the shard does not reconnect and its stream ends.
    Stopped {
        /// Connection index.
        shard: usize,
        /// Why.
        reason: Disconnect,
    },
    /// The consumer fell behind: the queue was full and `dropped` frames of this shard
    /// were lost. The shard reconnects at once to obtain fresh snapshots.
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

/// An owned stream item.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event {
    /// A data frame.
    Frame(OwnedFrame),
    /// A connection status change.
    Status(Status),
}

/// The zero-copy delivery API: called on the consumer's task for every frame and status
/// change, in order, with borrowed data. Nothing is allocated per call by the stream.
///
/// ```
/// use polyclob::ws::event::{Frame, Handler, Status};
///
/// #[derive(Default)]
/// struct Count { frames: u64, gaps: u64 }
///
/// impl Handler for Count {
///     fn on_frame(&mut self, frame: Frame<'_>) {
///         self.frames += frame.as_bytes().len().min(1) as u64;
///     }
///     fn on_status(&mut self, status: &Status) {
///         if matches!(status, Status::Lagged { .. }) {
///             self.gaps += 1;
///         }
///     }
/// }
/// ```
pub trait Handler {
    /// A data frame.
    fn on_frame(&mut self, frame: Frame<'_>);

    /// A connection status change. Default: ignore.
    fn on_status(&mut self, status: &Status) {
        let _ = status;
    }
}

impl<H: Handler + ?Sized> Handler for &mut H {
    fn on_frame(&mut self, frame: Frame<'_>) {
        (**self).on_frame(frame);
    }
    fn on_status(&mut self, status: &Status) {
        (**self).on_status(status);
    }
}
