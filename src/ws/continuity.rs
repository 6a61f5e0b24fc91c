//! One continuity contract for every stream: each break is one typed [`Break`].
//!
//! A bot needs to know when what it derived from a stream (a book, its open orders, a price
//! history) stopped being complete. Every stream of the crate reports every break in its
//! sequence the same way: one [`Break`] that names the stream, the cause, what was lost
//! ([`Lost`]: a count, or unknown) and what the library does about it ([`Recovery`]). From the
//! break until the recovery completes, data derived from the stream is **untrusted**.
//!
//! | stream | break | lost | what the library does | trusted again when |
//! |---|---|---|---|---|
//! | market ([`MarketStream`](super::market::MarketStream)) | reconnect, silence (watchdog), close | unknown | reconnects with backoff, resubscribes; [`BookStream`](super::books::BookStream) drops the shard's books | a fresh `book` snapshot per asset |
//! | market | local lag (queue full) | count | reconnects at once for fresh snapshots | a fresh `book` snapshot per asset |
//! | user ([`UserStream`](super::user::UserStream)) | reconnect, failed connect, silence, close | unknown | reconnects, resubscribes; [`UserEvents`](crate::account::user_events::UserEvents) with [`reconcile`](crate::account::reconcile) fetches open orders and the trades since the last one delivered, delivers the missed ones marked `recovered`, holding live events until then | [`UserEvent::Reconciled`](crate::account::user_events::UserEvent::Reconciled) |
//! | user | local lag | count | reconnects at once; reconciles as above | as above |
//! | PolyBolt ([`PolyBoltStream`](crate::polybolt::PolyBoltStream)) | reconnect, silence, close 4002 (slow consumer), 4003 (draining: one reconnect after 0–10 s) | unknown | re-authenticates, resubscribes every subscription | the channel's new `snapshot` ([`is_trusted`](crate::polybolt::PolyBoltStream::is_trusted) per channel) |
//! | PolyBolt | sequence gap (`seq` not previous + 1 within a connection) | count | reconnects at once (only a new subscription brings a snapshot); the reconnect's own `Disconnected` status is no second break | the channel's new `snapshot` |
//! | PolyBolt | server `dropped: n` (it discarded `n` updates for a client reading too slowly) | count (`n`) | as above | as above |
//! | PolyBolt | close 4001 (auth) or 4008 (policy) | unknown | **stops**: no reconnect loop; the stream reports and ends | never (fix credentials or the request) |
//! | PolyBolt | local lag | count | reconnects at once for fresh snapshots | the new snapshots |
//! | RTDS ([`RtdsStream`](crate::rtds::RtdsStream)) | reconnect, silence, close | unknown | reconnects, resubscribes (no sequence numbers: gaps inside a connection are invisible) | per symbol, its next price (a filtered subscription's `subscribe` history dump also refills the history); missed activity is not replayed; [`is_current`](crate::rtds::RtdsStream::is_current) says whether a kept message is from before the break |
//! | RTDS | local lag | count | reconnects at once | as above |
//! | sports ([`SportsStream`](crate::sports::SportsStream)) | reconnect, silence (no `ping` for the silence timeout), close | unknown | reconnects with backoff (no subscribe message) | per game, its next `sport_result` (the socket sends no snapshot); [`is_current`](crate::sports::SportsStream::is_current) as for RTDS |
//! | sports | local lag | count | reconnects at once | as above |
//!
//! Where the break is heard: every owned stream yields it as an item right after the
//! [`Status`] that reported it — [`BookEvent::Break`](super::books::BookEvent::Break),
//! [`UserEvent::Break`](crate::account::user_events::UserEvent::Break),
//! [`PolyBoltEvent::Break`](crate::polybolt::PolyBoltEvent::Break),
//! [`RtdsEvent::Break`](crate::rtds::RtdsEvent::Break),
//! [`SportsEvent::Break`](crate::sports::SportsEvent::Break),
//! [`DecodedEvent::Break`](super::decoded::DecodedEvent::Break) — and the zero-copy handlers have an
//! `on_break` hook ([`BookHandler`](super::books::BookHandler::on_break),
//! [`RtdsHandler`](crate::rtds::RtdsHandler::on_break),
//! [`PolyBoltHandler`](crate::polybolt::PolyBoltHandler::on_break),
//! [`SportsHandler`](crate::sports::SportsHandler::on_break)). The raw connection streams
//! ([`MarketStream`](super::market::MarketStream), [`UserStream`](super::user::UserStream))
//! yield only the [`Status`]; [`Break::from_status`] reads it as a [`Break`].

use std::fmt;
use std::time::Duration;

use super::connection::Disconnect;
use super::event::Status;

/// Which stream a [`Break`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StreamKind {
    /// The CLOB market channel.
    Market,
    /// The CLOB user channel.
    User,
    /// PolyBolt reference prices.
    PolyBolt,
    /// The real-time data socket.
    Rtds,
    /// The sports socket.
    Sports,
}

/// What interrupted the sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Cause {
    /// The connection ended (the reason says how: close code, EOF, I/O, silence …).
    Disconnected(Disconnect),
    /// A sequence number skipped: `got` arrived where `expected` was due.
    SequenceGap {
        /// The PolyBolt channel, when the stream has several.
        channel: &'static str,
        /// The number that was due.
        expected: u64,
        /// The number that arrived.
        got: u64,
    },
    /// The server said it dropped frames for this client (PolyBolt `dropped`).
    ServerDropped {
        /// The PolyBolt channel.
        channel: &'static str,
    },
    /// The consumer fell behind and the local queue overflowed.
    LocalLag,
}

/// What was lost in a break.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Lost {
    /// Exactly this many messages.
    Count(u64),
    /// Unknown (the connection was down: the server does not say what it sent meanwhile).
    Unknown,
}

/// What the library does about a break.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Recovery {
    /// Reconnects after this delay and resubscribes; state is re-established by the
    /// stream's snapshots (books, PolyBolt snapshots, RTDS history dumps).
    Reconnect {
        /// Delay before the attempt.
        retry_in: Duration,
    },
    /// Does not reconnect: the stream ends (authentication or policy failure).
    Stop,
}

/// One break in a stream's continuity. See the [module docs](self) for the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Break {
    /// The stream.
    pub stream: StreamKind,
    /// The connection (shard) index.
    pub shard: usize,
    /// What happened.
    pub cause: Cause,
    /// What was lost.
    pub lost: Lost,
    /// What the library does.
    pub recovery: Recovery,
}

impl Break {
    /// Reads a connection [`Status`] of `stream` as a break: `Disconnected` and `Lagged`
    /// are breaks, `Connected` is not.
    ///
    /// ```
    /// use polyclob::ws::connection::Disconnect;
    /// use polyclob::ws::continuity::{Break, Cause, Lost, Recovery, StreamKind};
    /// use polyclob::ws::event::Status;
    /// use std::time::Duration;
    ///
    /// let lag = Status::Lagged { shard: 0, dropped: 3 };
    /// let b = Break::from_status(StreamKind::Market, &lag).unwrap();
    /// assert_eq!((b.cause, b.lost), (Cause::LocalLag, Lost::Count(3)));
    /// ```
    #[must_use]
    pub fn from_status(stream: StreamKind, status: &Status) -> Option<Self> {
        match *status {
            Status::Disconnected {
                shard,
                reason,
                retry_in,
                ..
            } => Some(Self {
                stream,
                shard,
                cause: Cause::Disconnected(reason),
                lost: Lost::Unknown,
                recovery: Recovery::Reconnect { retry_in },
            }),
            Status::Stopped { shard, reason } => Some(Self {
                stream,
                shard,
                cause: Cause::Disconnected(reason),
                lost: Lost::Unknown,
                recovery: Recovery::Stop,
            }),
            Status::Lagged { shard, dropped } => Some(Self {
                stream,
                shard,
                cause: Cause::LocalLag,
                lost: Lost::Count(dropped),
                recovery: Recovery::Reconnect {
                    retry_in: Duration::ZERO,
                },
            }),
            Status::Connected { .. } => None,
        }
    }
}

impl fmt::Display for Break {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} stream (connection {}) broke: ",
            self.stream, self.shard
        )?;
        match self.cause {
            Cause::Disconnected(d) => write!(f, "{d}")?,
            Cause::SequenceGap {
                channel,
                expected,
                got,
            } => write!(f, "{channel}: seq {got} where {expected} was due")?,
            Cause::ServerDropped { channel } => write!(f, "{channel}: the server dropped frames")?,
            Cause::LocalLag => f.write_str("the consumer fell behind")?,
        }
        match self.lost {
            Lost::Count(n) => write!(f, "; {n} lost")?,
            Lost::Unknown => f.write_str("; loss unknown")?,
        }
        match self.recovery {
            Recovery::Reconnect { retry_in } => write!(f, "; reconnecting in {retry_in:?}"),
            Recovery::Stop => f.write_str("; stopped"),
        }
    }
}

/// Which connection's data is current, for the streams whose state comes back message by
/// message (RTDS, sports): data from a frame is current while its connection is, and
/// untrusted from the next break until a message of a new connection replaces it.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct LiveEpoch {
    /// The epoch of the connection delivered as `Connected` and not broken since.
    live: Option<u64>,
}

impl LiveEpoch {
    pub(crate) fn on_status(&mut self, status: &Status) {
        self.live = match *status {
            Status::Connected { epoch, .. } => Some(epoch),
            Status::Disconnected { .. } | Status::Stopped { .. } | Status::Lagged { .. } => None,
        };
    }

    pub(crate) fn is_current(self, epoch: u64) -> bool {
        self.live == Some(epoch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_epoch_follows_connects_and_breaks() {
        let mut l = LiveEpoch::default();
        assert!(!l.is_current(0));
        l.on_status(&Status::Connected {
            shard: 0,
            epoch: 0,
            reconnect: false,
        });
        assert!(l.is_current(0));
        l.on_status(&Status::Disconnected {
            shard: 0,
            epoch: 0,
            reason: Disconnect::Eof,
            retry_in: Duration::ZERO,
            discarded: 0,
        });
        assert!(!l.is_current(0));
        // A failed attempt keeps the next epoch number; only its `Connected` makes it live.
        l.on_status(&Status::Disconnected {
            shard: 0,
            epoch: 1,
            reason: Disconnect::Silence,
            retry_in: Duration::ZERO,
            discarded: 0,
        });
        assert!(!l.is_current(1));
        l.on_status(&Status::Connected {
            shard: 0,
            epoch: 1,
            reconnect: true,
        });
        assert!(l.is_current(1) && !l.is_current(0));
        l.on_status(&Status::Lagged {
            shard: 0,
            dropped: 2,
        });
        assert!(!l.is_current(1));
    }
}
