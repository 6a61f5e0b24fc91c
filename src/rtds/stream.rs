//! [`RtdsStream`]: the RTDS connection, on the market channel's connection machinery.
//!
//! One connection (a [`ws::connection`](crate::ws::connection) shard) carries every
//! subscription: it sends the text `PING` every 5 s as the docs ask ([Polymarket RTDS]),
//! replaces a silent or broken connection with backoff, re-sends every subscription after a
//! reconnect, and reports a consumer that falls behind as [`Status::Lagged`]. Any message
//! from the server answers a `PING` (the RTDS server is not documented to reply `PONG`).
//!
//! Two delivery tiers:
//! - zero-copy: [`RtdsStream::dispatch`] decodes each frame in place and hands the borrowed
//!   [`Message`] to an [`RtdsHandler`] (no allocation per message);
//! - owned: the `Stream` of [`RtdsEvent`]s, each message holding the transport's
//!   reference-counted frame (no copy) and re-reading it on demand.
//!
//! [Polymarket RTDS]: https://docs.polymarket.com/market-data/websocket/rtds

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::Stream;
use tokio::sync::mpsc;

use crate::decode::{DecodeError, DecodeErrorKind};
use crate::ws::Closed;
use crate::ws::connection::ChannelKind;
use crate::ws::continuity::{Break, LiveEpoch, StreamKind};
use crate::ws::event::{Event, Frame, Handler, OwnedFrame, Status};
use crate::ws::options::{BuildError, Options, common_setters};
use crate::ws::shards::{Dispatcher, Shards, StreamCore};

use super::decode::{Message, decode, decode_bytes};
use super::subscription::Subscription;

/// Polymarket's production RTDS endpoint.
pub const RTDS_URL: &str = "wss://ws-live-data.polymarket.com";

/// The keepalive interval the RTDS docs ask for.
pub const RTDS_PING_INTERVAL: Duration = Duration::from_secs(5);

/// Builder of an [`RtdsStream`]. The setters shared with the market channel document the
/// market channel's defaults; here the ping interval defaults to [`RTDS_PING_INTERVAL`].
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use futures_util::StreamExt;
/// use polyclob::rtds::{RtdsEvent, RtdsStream, Subscription};
/// use polyclob::rtds::decode::Payload;
///
/// let mut stream = RtdsStream::builder()
///     .subscribe(Subscription::crypto_prices(["btcusdt"]))
///     .subscribe(Subscription::chainlink_prices(Some("btc/usd")))
///     .build()?;
/// while let Some(ev) = stream.next().await {
///     if let RtdsEvent::Message(m) = ev {
///         if let Payload::Price(p) = m.message()?.payload {
///             println!("{} {}", p.symbol, p.price);
///         }
///     }
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct RtdsStreamBuilder {
    opts: Options,
    subs: Vec<Subscription>,
}

impl RtdsStreamBuilder {
    common_setters!();

    /// Adds a subscription sent on connect (and re-sent after every reconnect). Default is
    /// none: the connection opens with the first subscription.
    #[must_use]
    pub fn subscribe(mut self, sub: Subscription) -> Self {
        self.subs.push(sub);
        self
    }

    /// Starts the connection (on the current Tokio runtime).
    ///
    /// # Errors
    /// [`BuildError`] for an invalid URL or setting, or when called outside a runtime.
    pub fn build(self) -> Result<RtdsStream, BuildError> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| BuildError::NoRuntime)?;
        let (cfg, capacity, busy_poll) = self.opts.into_config(ChannelKind::Rtds)?;
        let (tx, rx) = mpsc::channel(capacity);
        // One connection carries every subscription.
        let shards = Arc::new(Shards::new(
            Arc::new(cfg),
            tx,
            runtime,
            usize::MAX,
            Duration::ZERO,
        ));
        shards
            .subscribe(self.subs.iter().map(Subscription::to_json))
            .map_err(|_| BuildError::NoRuntime)?;
        Ok(RtdsStream {
            core: StreamCore {
                shards,
                dispatcher: Dispatcher::new(rx, busy_poll),
            },
            pending: None,
            live: LiveEpoch::default(),
        })
    }
}

/// Receives decoded RTDS messages, borrowed, on the consumer's task.
///
/// ```
/// use polyclob::rtds::decode::{Message, Payload};
/// use polyclob::rtds::RtdsHandler;
/// use polyclob::ws::event::Frame;
///
/// #[derive(Default)]
/// struct LastBtc(u128);
///
/// impl RtdsHandler for LastBtc {
///     fn on_message(&mut self, msg: &Message<'_>, _frame: &Frame<'_>) {
///         if let Payload::Price(p) = msg.payload {
///             if p.symbol == "btcusdt" {
///                 self.0 = p.price.as_e18();
///             }
///         }
///     }
/// }
/// ```
pub trait RtdsHandler {
    /// A message that decoded.
    fn on_message(&mut self, msg: &Message<'_>, frame: &Frame<'_>);

    /// A frame that did not decode (not UTF-8, not an RTDS object, a bad field). Default:
    /// ignore.
    fn on_invalid(&mut self, error: DecodeError, frame: &Frame<'_>) {
        let _ = (error, frame);
    }

    /// A connection status change. Default: ignore.
    fn on_status(&mut self, status: &Status) {
        let _ = status;
    }

    /// A break in continuity, right after the status that reported it (see
    /// [`continuity`](crate::ws::continuity)). Default: ignore.
    fn on_break(&mut self, brk: &Break) {
        let _ = brk;
    }
}

/// Decodes frames for an [`RtdsHandler`].
struct Decoding<'h, H: ?Sized>(&'h mut H, &'h mut LiveEpoch);

impl<H: RtdsHandler + ?Sized> Handler for Decoding<'_, H> {
    fn on_frame(&mut self, frame: Frame<'_>) {
        let decoded = match frame.as_str() {
            Some(text) => decode(text),
            None => Err(DecodeError::new(DecodeErrorKind::Utf8, "", 0)),
        };
        match decoded {
            Ok(msg) => self.0.on_message(&msg, &frame),
            Err(e) => self.0.on_invalid(e, &frame),
        }
    }

    fn on_status(&mut self, status: &Status) {
        self.1.on_status(status);
        self.0.on_status(status);
        if let Some(b) = Break::from_status(StreamKind::Rtds, status) {
            self.0.on_break(&b);
        }
    }
}

/// An RTDS message that owns its frame (a reference-counted buffer, not a copy).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedMessage {
    frame: OwnedFrame,
}

impl OwnedMessage {
    /// The decoded view.
    ///
    /// # Errors
    /// None in practice: the frame decoded when this message was made.
    pub fn message(&self) -> Result<Message<'_>, DecodeError> {
        decode_bytes(self.frame.as_bytes())
    }

    /// The frame as received.
    #[must_use]
    pub fn frame(&self) -> &OwnedFrame {
        &self.frame
    }
}

/// An item of the owned tier.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RtdsEvent {
    /// A message that decoded.
    Message(OwnedMessage),
    /// A frame that did not decode; later frames are still delivered.
    Invalid {
        /// Why.
        error: DecodeError,
        /// The frame.
        frame: OwnedFrame,
    },
    /// A connection status change.
    Status(Status),
    /// A break in continuity, right after the status that reported it: prices and
    /// activity derived from the stream are untrusted until the resubscription's history
    /// (see [`continuity`](crate::ws::continuity)).
    Break(Break),
}

impl RtdsEvent {
    fn from_event(ev: Event) -> Self {
        match ev {
            Event::Frame(frame) => match decode_bytes(frame.as_bytes()) {
                Ok(_) => Self::Message(OwnedMessage { frame }),
                Err(error) => Self::Invalid { error, frame },
            },
            Event::Status(s) => Self::Status(s),
        }
    }
}

/// The live RTDS connection. Deliver with [`dispatch`](Self::dispatch) and an
/// [`RtdsHandler`] (zero-copy), or poll it as a `Stream` of [`RtdsEvent`]s.
#[derive(Debug)]
pub struct RtdsStream {
    core: StreamCore,
    /// The break that follows the status just delivered.
    pending: Option<Break>,
    live: LiveEpoch,
}

impl RtdsStream {
    /// A builder with the defaults listed on each setter (ping every 5 s, production URL).
    #[must_use]
    pub fn builder() -> RtdsStreamBuilder {
        let mut opts = Options::new(RTDS_URL);
        opts.ping_interval = RTDS_PING_INTERVAL;
        RtdsStreamBuilder {
            opts,
            subs: Vec::new(),
        }
    }

    /// This stream's counters: connects, breaks, frames, bytes, … (see
    /// [`StreamCounters`](crate::ws::StreamCounters)).
    #[must_use]
    pub fn counters(&self) -> crate::ws::StreamCounters {
        self.core.shards.counters()
    }

    /// A cloneable handle for subscription changes from other tasks.
    #[must_use]
    pub fn handle(&self) -> RtdsHandle {
        RtdsHandle {
            shards: Arc::clone(&self.core.shards),
        }
    }

    /// Adds subscriptions (ones already active are ignored).
    ///
    /// # Errors
    /// [`Closed`] after shutdown.
    pub fn subscribe(&self, subs: impl IntoIterator<Item = Subscription>) -> Result<(), Closed> {
        self.handle().subscribe(subs)
    }

    /// Removes subscriptions (unknown ones are ignored).
    ///
    /// # Errors
    /// [`Closed`] after shutdown.
    pub fn unsubscribe(&self, subs: impl IntoIterator<Item = Subscription>) -> Result<(), Closed> {
        self.handle().unsubscribe(subs)
    }

    /// Whether what came in a frame of connection `epoch` ([`Frame::epoch`],
    /// [`OwnedFrame::epoch`]) is still current: no break since. After a break, what a bot
    /// keeps from earlier messages (a symbol's last price, the activity it has seen) is
    /// untrusted until a message of the new connection replaces it: a price at the symbol's
    /// next update (a filtered subscription's history dump also refills the history);
    /// activity missed during the outage is not replayed.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// use futures_util::StreamExt;
    /// use polyclob::rtds::{RtdsEvent, RtdsStream, Subscription};
    ///
    /// let mut rtds = RtdsStream::builder()
    ///     .subscribe(Subscription::crypto_prices(["btcusdt"]))
    ///     .build()?;
    /// let mut last = None; // the last BTC message
    /// while let Some(ev) = rtds.next().await {
    ///     if let RtdsEvent::Message(m) = ev {
    ///         last = Some(m);
    ///     }
    ///     let trusted = last.as_ref().is_some_and(|m| rtds.is_current(m.frame().epoch()));
    ///     println!("trusted: {trusted}");
    /// }
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn is_current(&self, epoch: u64) -> bool {
        self.live.is_current(epoch)
    }

    /// Delivers the next message (decoded, borrowed) or status change to `handler`. Returns
    /// `false` once the stream has shut down.
    pub async fn dispatch<H: RtdsHandler + ?Sized>(&mut self, handler: &mut H) -> bool {
        let mut d = Decoding(handler, &mut self.live);
        self.core.dispatcher.dispatch(&mut d).await
    }

    /// [`dispatch`](Self::dispatch) until the stream shuts down.
    pub async fn run<H: RtdsHandler + ?Sized>(&mut self, handler: &mut H) {
        while self.dispatch(handler).await {}
    }

    /// Delivers the next raw frame or status change to a frame [`Handler`].
    pub async fn dispatch_frames<H: Handler + ?Sized>(&mut self, handler: &mut H) -> bool {
        self.core.dispatcher.dispatch(handler).await
    }

    /// The next owned event (`None` once shut down).
    pub async fn next_event(&mut self) -> Option<RtdsEvent> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }
}

impl Stream for RtdsStream {
    type Item = RtdsEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<RtdsEvent>> {
        let this = self.get_mut();
        if let Some(b) = this.pending.take() {
            return Poll::Ready(Some(RtdsEvent::Break(b)));
        }
        Pin::new(&mut this.core).poll_next(cx).map(|e| {
            e.map(|ev| {
                if let Event::Status(s) = &ev {
                    this.live.on_status(s);
                    this.pending = Break::from_status(StreamKind::Rtds, s);
                }
                RtdsEvent::from_event(ev)
            })
        })
    }
}

/// A cloneable handle to an [`RtdsStream`]'s subscriptions.
#[derive(Debug, Clone)]
pub struct RtdsHandle {
    shards: Arc<Shards>,
}

impl RtdsHandle {
    /// See [`RtdsStream::subscribe`].
    ///
    /// # Errors
    /// [`Closed`] after shutdown.
    pub fn subscribe(&self, subs: impl IntoIterator<Item = Subscription>) -> Result<(), Closed> {
        self.shards.subscribe(subs.into_iter().map(|s| s.to_json()))
    }

    /// See [`RtdsStream::unsubscribe`].
    ///
    /// # Errors
    /// [`Closed`] after shutdown.
    pub fn unsubscribe(&self, subs: impl IntoIterator<Item = Subscription>) -> Result<(), Closed> {
        self.shards
            .unsubscribe(subs.into_iter().map(|s| s.to_json()))
    }

    /// Reconnects now.
    ///
    /// # Errors
    /// [`Closed`] after shutdown.
    pub fn reconnect(&self) -> Result<(), Closed> {
        self.shards.reconnect(None)
    }

    /// Closes the connection; the stream then ends.
    pub fn shutdown(&self) {
        self.shards.shutdown();
    }
}
