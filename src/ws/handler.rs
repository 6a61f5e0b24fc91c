//! The one handler trait of every feed, what it is given, and what a feed's decoder supplies.

use std::collections::BTreeSet;
use std::fmt;
use std::marker::PhantomData;
use std::task::{Context, Poll};
use std::time::Duration;

use super::continuity::Break;
use super::event::{Frame, OwnedFrame, Status};
use super::feed::{BuildError, Feed};
use super::shards::{Closed, Shards};
use super::trust::Trust;
use crate::decode::DecodeError;

pub(crate) use sealed::{Control, Op, Reread, Sealed, Wire};

/// The crate-private half of [`Decoder`]: only the crate defines feeds.
#[allow(unreachable_pub, missing_debug_implementations)]
pub(crate) mod sealed {
    use super::*;

    /// Dynamic subscription direction.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Op {
        Subscribe,
        Unsubscribe,
    }

    impl Op {
        pub(crate) fn as_str(self) -> &'static str {
            match self {
                Op::Subscribe => "subscribe",
                Op::Unsubscribe => "unsubscribe",
            }
        }
    }

    /// What a text frame is to the connection.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Control {
        /// Data for the consumer.
        Data,
        /// The answer to our keepalive: consumed.
        Pong,
        /// A keepalive of the server's, answered with this text (consumed).
        Reply(&'static str),
        /// The credentials were accepted: the subscriptions go now (delivered too).
        Authed,
        /// An operation was refused with this code (delivered too): reconnect after the next
        /// backoff step, or stop.
        Refused { code: &'static str, stop: bool },
    }

    /// What a feed sends on its connection and recognises in what it receives. Runs on the
    /// connection's task.
    pub trait Wire: Send + Sync + fmt::Debug + 'static {
        /// The first message of a connection to `ids`; `false`: nothing to send.
        fn initial(&self, out: &mut String, ids: &BTreeSet<String>) -> bool;
        /// A subscription change on the open connection.
        fn operation(&self, out: &mut String, ids: &[String], op: Op);
        /// What a text frame is. Default: the text `PONG` answers the keepalive.
        fn control(&self, text: &str) -> Control {
            if text == "PONG" {
                Control::Pong
            } else {
                Control::Data
            }
        }
        /// The subscriptions wait for [`Control::Authed`]. Default: no.
        fn awaits_auth(&self) -> bool {
            false
        }
        /// The connection opens with nothing subscribed. Default: yes.
        fn connects_empty(&self) -> bool {
            true
        }
        /// The first message holds a secret, wiped once sent. Default: no.
        fn secret(&self) -> bool {
            false
        }
    }

    /// Feeds whose owned message is its frame, decoded again on demand ([`Owned`]).
    pub trait Reread: Decoder {
        /// Decodes a frame this feed delivered before.
        fn reread(frame: &[u8]) -> Result<Self::Message<'_>, DecodeError>;
    }

    /// What every feed supplies to the machine.
    pub trait Sealed: Send + Sized + 'static {
        /// What [`FeedHandle::subscribe`](super::super::feed::FeedHandle::subscribe) takes.
        type Sub;
        /// Why it refuses.
        type Refused: From<Closed> + fmt::Debug;
        /// What the handles carry besides the connections.
        type Remote: Clone + Send + Sync + fmt::Debug;
        /// A subscription as the connection keeps and sends it.
        fn render(sub: Self::Sub) -> String;
        /// The feed's wire; called once, at build.
        fn wire(&mut self) -> Result<Box<dyn Wire>, BuildError>;
        /// The handles' part.
        fn remote(&mut self) -> Self::Remote;
        /// Checks a subscription change against the documented limits.
        fn check(_: &Self::Remote, _: &[String], _: &[String]) -> Result<(), Self::Refused> {
            Ok(())
        }
        /// The state handlers and bots read.
        fn state(&self) -> &Self::State
        where
            Self: Decoder;
        /// The trust of one key.
        fn trust(state: &Self::State, key: Self::Key<'_>) -> Trust
        where
            Self: Decoder;
        /// Decodes one frame for `h` (`owned`: the owned tier's queue).
        fn frame<H: Handler<Self>>(&mut self, f: &OwnedFrame, s: &Shards, h: &mut H, owned: bool)
        where
            Self: Decoder;
        /// A status of a connection, before anyone hears of it: a break untrusts its keys.
        fn status(&mut self, status: &Status, shards: &Shards);
        /// The feed's own work (a REST fetch, queued resyncs); `Ready` when it called `h`.
        fn poll<H: Handler<Self>>(&mut self, _: &mut Context<'_>, _: &Shards, _: &mut H) -> Poll<()>
        where
            Self: Decoder,
        {
            Poll::Pending
        }
        /// The owned form of a message.
        fn to_owned(msg: &Self::Message<'_>, cx: &Cx<'_, Self>) -> Self::Owned
        where
            Self: Decoder;
        /// Writes the key under which a conflating feed keeps only the latest message;
        /// `false`: the message has none and is always kept.
        fn conflation_key(_: &Self::Message<'_>, _: &mut String) -> bool
        where
            Self: Decoder,
        {
            false
        }
    }
}

/// A feed's decoder: its messages, borrowed and owned, what trust is asked about, and the state
/// it keeps. The crate's feeds only: [`MarketFeed`](super::market::MarketFeed),
/// [`UserFeed`](crate::account::user_events::UserFeed), [`RtdsFeed`](crate::rtds::RtdsFeed),
/// [`BoltFeed`](crate::polybolt::BoltFeed), [`SportsFeed`](crate::sports::SportsFeed) and
/// [`Frames`].
pub trait Decoder: Sealed {
    /// What a [`Handler`] receives, borrowed from the frame.
    type Message<'a>;
    /// What the `Stream` yields in [`FeedEvent::Message`].
    type Owned: fmt::Debug + Send;
    /// What trust is asked about (an asset id, a channel and symbol, a game …).
    type Key<'a>: Copy;
    /// What the feed keeps across messages (the books; the trust of its keys).
    type State;
}

/// The handler of every feed: called on the consumer's task, in order, with borrowed data.
///
/// ```
/// use polyclob::ws::feed::{Cx, Handler};
/// use polyclob::ws::market::{MarketFeed, MarketMessage};
///
/// #[derive(Default)]
/// struct Mids(u64);
///
/// impl Handler<MarketFeed> for Mids {
///     fn on_message(&mut self, msg: &MarketMessage<'_>, cx: &Cx<'_, MarketFeed>) {
///         if let MarketMessage::Update(u) = msg {
///             // `book` is `None` unless the book is live: no stale read after a break.
///             if let Some(book) = u.asset_id.and_then(|id| cx.state().book(id)) {
///                 self.0 += u64::from(book.mid().is_some());
///             }
///         }
///     }
/// }
/// ```
pub trait Handler<D: Decoder> {
    /// A message.
    fn on_message(&mut self, msg: &D::Message<'_>, cx: &Cx<'_, D>);

    /// An element that did not decode; the rest of its frame still is. Default: ignore.
    fn on_invalid(&mut self, error: &DecodeError, cx: &Cx<'_, D>) {
        let _ = (error, cx);
    }

    /// A connection status change, after the keys it breaks were untrusted. Default: ignore.
    fn on_status(&mut self, status: &Status, cx: &Cx<'_, D>) {
        let _ = (status, cx);
    }

    /// A break in continuity (see [`continuity`](super::continuity)). Default: ignore.
    fn on_break(&mut self, brk: &Break, cx: &Cx<'_, D>) {
        let _ = (brk, cx);
    }

    /// The consumer is behind the socket (see [`Lag`]). Default: ignore.
    fn on_lag(&mut self, lag: &Lag, cx: &Cx<'_, D>) {
        let _ = (lag, cx);
    }
}

/// What a [`Handler`] callback sees besides its argument: the frame, the feed's state and the
/// trust of any key.
pub struct Cx<'a, D: Decoder> {
    frame: Option<&'a OwnedFrame>,
    state: &'a D::State,
}

impl<D: Decoder> fmt::Debug for Cx<'_, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cx").field("frame", &self.frame).finish()
    }
}

impl<'a, D: Decoder> Cx<'a, D> {
    pub(crate) fn new(frame: Option<&'a OwnedFrame>, state: &'a D::State) -> Self {
        Self { frame, state }
    }

    pub(crate) fn owned_frame(&self) -> Option<&'a OwnedFrame> {
        self.frame
    }

    /// The frame the message came from (`None` for statuses, breaks, lag and what came over
    /// REST).
    #[must_use]
    pub fn frame(&self) -> Option<Frame<'a>> {
        self.frame.map(OwnedFrame::as_frame)
    }

    /// The feed's state, as of this callback (the books after this message).
    #[must_use]
    pub fn state(&self) -> &'a D::State {
        self.state
    }

    /// The trust of `key` now.
    #[must_use]
    pub fn trust(&self, key: D::Key<'_>) -> Trust {
        D::trust(self.state, key)
    }
}

/// The consumer was behind the socket: the oldest frame it just took had waited `behind`
/// since the connection read it. Reported at most once per the feed's
/// [`lag_after`](super::feed::FeedBuilder::lag_after).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Lag {
    /// How long the oldest frame taken had waited.
    pub behind: Duration,
    /// Messages folded into later ones of their key since the last `Lag` (conflating feeds).
    pub conflated: u64,
}

/// An item of a feed's owned tier.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FeedEvent<M> {
    /// A message.
    Message(M),
    /// An element that did not decode; the rest of its frame was still processed.
    Invalid {
        /// Why.
        error: DecodeError,
        /// The frame (a reference-counted buffer, not a copy).
        frame: OwnedFrame,
    },
    /// A connection status change (the keys it breaks are already untrusted).
    Status(Status),
    /// A break in continuity (see [`continuity`](super::continuity)).
    Break(Break),
    /// The consumer is behind the socket.
    Lag(Lag),
}

/// A message that owns its frame (a reference-counted buffer, not a copy) and decodes it again
/// on demand: the owned message of RTDS, PolyBolt and the sports socket.
pub struct Owned<D>(OwnedFrame, PhantomData<fn() -> D>);

impl<D: Reread> Owned<D> {
    pub(crate) fn new(cx: &Cx<'_, D>) -> Self {
        // A message of these feeds always comes from a frame.
        Self(
            cx.frame.cloned().unwrap_or_else(OwnedFrame::empty),
            PhantomData,
        )
    }

    /// The decoded view.
    ///
    /// # Errors
    /// None in practice: the frame decoded when this message was made.
    pub fn message(&self) -> Result<D::Message<'_>, DecodeError> {
        D::reread(self.0.as_bytes())
    }

    /// The frame as received.
    #[must_use]
    pub fn frame(&self) -> &OwnedFrame {
        &self.0
    }
}

impl<D> Clone for Owned<D> {
    fn clone(&self) -> Self {
        Self(self.0.clone(), PhantomData)
    }
}

impl<D> PartialEq for Owned<D> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl<D> Eq for Owned<D> {}

impl<D> fmt::Debug for Owned<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The raw decoder: every frame as received, undecoded (for recorders and tools), from any
/// feed's builder with [`frames`](super::feed::FeedBuilder::frames): the connection stays that
/// feed's. No key is ever trusted: nothing is decoded.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Frames;

/// A feed of raw frames.
pub type FrameStream = Feed<Frames>;

impl Sealed for Frames {
    type Sub = String;
    type Refused = Closed;
    type Remote = ();
    fn render(sub: String) -> String {
        sub
    }
    fn wire(&mut self) -> Result<Box<dyn Wire>, BuildError> {
        Err(BuildError::Invalid("frames: build from a feed's builder"))
    }
    fn remote(&mut self) {}
    fn state(&self) -> &() {
        &()
    }
    fn trust(_: &(), _: ()) -> Trust {
        Trust::Unknown
    }
    fn frame<H: Handler<Self>>(&mut self, f: &OwnedFrame, _: &Shards, h: &mut H, _: bool) {
        h.on_message(&f.as_frame(), &Cx::new(Some(f), &()));
    }
    fn status(&mut self, _: &Status, _: &Shards) {}
    fn to_owned(_: &Frame<'_>, cx: &Cx<'_, Self>) -> OwnedFrame {
        cx.frame.cloned().unwrap_or_else(OwnedFrame::empty)
    }
}

impl Decoder for Frames {
    type Message<'a> = Frame<'a>;
    type Owned = OwnedFrame;
    type Key<'a> = ();
    type State = ();
}
