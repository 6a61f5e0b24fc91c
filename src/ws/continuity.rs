//! One continuity contract for every stream: each break is one typed [`Break`], and what a
//! bot derived from a stream is trusted again **key by key**.
//!
//! A bot needs to know when what it derived from a stream (a book, its open orders, a price)
//! stopped being complete. Every feed ([`Feed`](super::feed::Feed)) reports every break the
//! same way: one [`Break`] that names the stream, the cause, what was lost ([`Lost`]: a count,
//! or unknown) and what the library does about it ([`Recovery`]). From the break on, every key
//! of the broken connection (an asset's book, a PolyBolt channel + symbol, a game, the user's
//! account) is untrusted until **its own** re-establishment ([`RestoredBy`]); the feed answers
//! per key ([`Feed::trust`](super::feed::Feed::trust), [`Cx::trust`](super::feed::Cx::trust),
//! [`Trust`](super::trust::Trust)).
//!
//! | stream | breaks | what the library does | a key is trusted again at |
//! |---|---|---|---|
//! | market ([`MarketStream`](super::market::MarketStream)) | disconnect, silence, close, local lag, a `book` whose hash does not verify | reconnects (backoff step), resubscribes; books of the connection await their snapshot ([`BookManager::book`](crate::book::BookManager::book) shows only live books) | the asset's next `book` snapshot, or a REST snapshot sent through [`FeedHandle::restore`](super::feed::FeedHandle::restore) |
//! | user ([`UserStream`](crate::account::user_events::UserStream)) | disconnect, failed connect, silence, close, local lag, a `trade` element that does not decode | reconnects (a malformed trade: on the open connection); with [`catch_up`](crate::account::user_events::UserFeed) fetches open orders and the trades since the newest delivered one over REST, delivers the missed ones marked `recovered`, live events held and age-checked meanwhile | [`UserEvent::Reconciled`](crate::account::user_events::UserEvent::Reconciled) (the account; a market added on the open socket after its own catch-up) |
//! | RTDS ([`RtdsStream`](crate::rtds::RtdsStream)) | disconnect, silence, close, local lag (no sequence numbers: gaps inside a connection are invisible) | reconnects, resubscribes | the symbol's next price (a filtered subscription's history dump refills history); activity is not replayed |
//! | PolyBolt ([`PolyBoltStream`](crate::polybolt::PolyBoltStream)) | disconnect, silence, pong timeout, closes 4002/4003, a `seq` gap, server `dropped`, local lag, `auth_unavailable`/`auth_expired` | reconnects (4003: once after a uniform 0–10 s; loss: at once after a healthy period, else after its step), authenticates, resubscribes every subscription | the key's (channel + symbol or asset) own new snapshot |
//! | PolyBolt | close 4001 or 4008, `auth_invalid` | **stops**: the stream reports and ends | never |
//! | sports ([`SportsStream`](crate::sports::SportsStream)) | disconnect, missed protocol pings, close, local lag | reconnects (no subscribe message) | the game's next message; a game that ended during the outage is only learnt over REST: Gamma `/events?game_id=` ([`gamma::EventFilter`](crate::gamma::EventFilter)), games listed by [`Keys::untrusted`](super::trust::Keys::untrusted) |
//!
//! Every break takes one backoff step ([`backoff`](super::backoff)); steps reset only after a
//! connection stayed up, unbroken, for the feed's healthy period. Under sustained loss a feed
//! therefore reconnects at most once per step. Where the break is heard: the owned tier yields
//! [`FeedEvent::Break`](super::feed::FeedEvent::Break) right after the
//! [`Status`] that reported it (or before the message that revealed a loss); handlers get
//! [`Handler::on_break`](super::feed::Handler::on_break).

use std::fmt;
use std::time::Duration;

use super::event::Disconnect;
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
    /// A `book` snapshot did not verify against its hash (market): fresh snapshots are asked.
    HashMismatch,
    /// An element the stream cannot afford to lose did not decode (a user `trade`): what it
    /// carried is fetched again over REST.
    Malformed,
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
    /// Reconnects after this delay, authenticates and resubscribes; keys come back as
    /// [`Break::restored_by`] says.
    Reconnect {
        /// Delay before the attempt.
        retry_in: Duration,
        /// The backoff step the delay was drawn for (0 after a healthy period).
        step: u32,
    },
    /// Reconnects for fresh snapshots after a loss inside the connection (a sequence gap,
    /// `dropped`, local lag, a hash mismatch): at once after a healthy period, else after the
    /// next backoff step. The [`Status::Disconnected`] of that reconnect carries the delay and
    /// is no second break.
    Resnapshot,
    /// Keeps the connection and fetches what was missed over REST (user channel).
    Refetch,
    /// Does not reconnect: the stream ends (authentication or policy failure).
    Stop,
}

/// How the keys of a broken stream are re-established (the table in the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RestoredBy {
    /// Each key by its own snapshot on the new connection (market books, PolyBolt), or a REST
    /// snapshot of it.
    Snapshot,
    /// Each key by its next message (RTDS prices): the socket has no snapshot.
    NextMessage,
    /// Over REST: the user channel's catch-up; sports games through Gamma
    /// `/events?game_id=` (a game's next message also restores it).
    Rest,
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
    /// How this stream's keys come back after the break.
    #[must_use]
    pub fn restored_by(&self) -> RestoredBy {
        match self.stream {
            StreamKind::Market | StreamKind::PolyBolt => RestoredBy::Snapshot,
            StreamKind::Rtds => RestoredBy::NextMessage,
            StreamKind::User | StreamKind::Sports => RestoredBy::Rest,
        }
    }

    /// Reads a connection [`Status`] of `stream` as a break: `Disconnected`, `Stopped` and
    /// `Lagged` are breaks, `Connected` is not, nor the disconnect a loss asked for (its break
    /// was reported with the loss).
    pub(crate) fn from_status(stream: StreamKind, status: &Status) -> Option<Self> {
        let (shard, cause, lost, recovery) = match *status {
            Status::Disconnected {
                reason: Disconnect::Lagged | Disconnect::Resnapshot,
                ..
            }
            | Status::Connected { .. } => return None,
            Status::Disconnected {
                shard,
                reason,
                retry_in,
                step,
                ..
            } => (
                shard,
                Cause::Disconnected(reason),
                Lost::Unknown,
                Recovery::Reconnect { retry_in, step },
            ),
            Status::Stopped { shard, reason } => (
                shard,
                Cause::Disconnected(reason),
                Lost::Unknown,
                Recovery::Stop,
            ),
            Status::Lagged { shard, dropped } => (
                shard,
                Cause::LocalLag,
                Lost::Count(dropped),
                Recovery::Resnapshot,
            ),
        };
        Some(Self {
            stream,
            shard,
            cause,
            lost,
            recovery,
        })
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
            Cause::HashMismatch => f.write_str("a book snapshot failed its hash check")?,
            Cause::Malformed => f.write_str("an element that must not be lost did not decode")?,
        }
        match self.lost {
            Lost::Count(n) => write!(f, "; {n} lost")?,
            Lost::Unknown => f.write_str("; loss unknown")?,
        }
        match self.recovery {
            Recovery::Reconnect { retry_in, step } => {
                write!(f, "; reconnecting in {retry_in:?} (step {step})")
            }
            Recovery::Resnapshot => f.write_str("; reconnecting for fresh snapshots"),
            Recovery::Refetch => f.write_str("; fetching what was missed"),
            Recovery::Stop => f.write_str("; stopped"),
        }
    }
}
