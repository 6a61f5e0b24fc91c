//! [`PolyBoltStream`]: the PolyBolt connection, on the market channel's connection machinery.
//!
//! One connection (a [`ws::connection`](crate::ws::connection) shard) carries every
//! subscription. On each connection it sends one `auth` frame with the CLOB API credentials
//! (zeroized after sending, redacted in `Debug`), then — once the server answered `authed` —
//! every subscription in one `subscribe` frame. The server's WebSocket pings are answered by
//! the transport; the stream also sends `{"op":"ping"}` every `ping_interval`, and any inbound
//! message proves liveness. Close codes ([PolyBolt WebSocket]): 4001 (authentication) and
//! 4008 (policy) stop the stream with [`Status::Stopped`] and a [`Break`] whose recovery is
//! [`Recovery::Stop`] — no reconnect loop; 4003
//! (draining) reconnects once after a uniformly random delay of at most 10 s (or the backoff
//! maximum, if lower); 4002 (slow consumer) and any other end reconnect with backoff and
//! resubscribe, which brings new snapshots.
//!
//! Credentials the server refuses without closing (`{"op":"error","code":"auth_invalid"}`,
//! `auth_unavailable`) are delivered as an [`Ack`](super::decode::Ack) and nothing is
//! subscribed on that connection; the stream sends no second `auth` (fix the credentials, then
//! [`reconnect`](PolyBoltHandle::reconnect) or build a new stream).
//!
//! Continuity ([`crate::ws::continuity`]): the stream checks `seq` per channel within each
//! connection and reads `dropped`; every break is one [`Break`]. A loss within a connection
//! (the server's `dropped` count, a `seq` gap) makes the stream reconnect at once, because
//! only a new subscription brings a new snapshot; the reconnect is part of that break, not
//! another one. A channel is [trusted](PolyBoltStream::is_trusted) from its snapshot until
//! the next break.
//!
//! Two delivery tiers: zero-copy [`PolyBoltStream::dispatch`] with a [`PolyBoltHandler`]
//! (nothing allocated per message), and the owned `Stream` of [`PolyBoltEvent`]s.
//!
//! [PolyBolt WebSocket]: https://docs.polymarket.com/api-reference/live-data/overview

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_util::Stream;
use tokio::sync::mpsc;

use crate::clob::Credentials;
use crate::decode::{DecodeError, DecodeErrorKind};
use crate::ws::connection::{ChannelKind, Disconnect};
use crate::ws::continuity::{Break, Cause, Lost, Recovery, StreamKind};
use crate::ws::event::{Event, Frame, Handler, OwnedFrame, Status};
use crate::ws::options::{BuildError, Options, common_setters};
use crate::ws::shards::{Dispatcher, Shards, StreamCore};

use super::decode::{BoltMessage, Channel, Envelope, decode, decode_bytes};
use super::subscription::{
    BoltSubscription, LimitError, MAX_SUBSCRIBE_FRAMES_PER_SEC, MAX_SUBSCRIPTION_BYTES,
    MAX_SUBSCRIPTIONS,
};

/// Polymarket's production PolyBolt endpoint.
pub const POLYBOLT_URL: &str = "wss://ws-live-v2.polymarket.com/ws";

/// Builder of a [`PolyBoltStream`]. The setters shared with the market channel document the
/// market channel's defaults; here the keepalive is `{"op":"ping"}` (default every 10 s).
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use futures_util::StreamExt;
/// use polyclob::polybolt::{PolyBoltEvent, PolyBoltStream, BoltSubscription};
/// use polyclob::polybolt::decode::{BoltMessage, BoltPayload};
/// use polyclob::clob::Credentials;
///
/// let mut stream = PolyBoltStream::builder()
///     .credentials(Credentials::new("key", "secret", "passphrase"))
///     .subscribe(BoltSubscription::crypto_twap("btcusd"))
///     .build()?;
/// while let Some(ev) = stream.next().await {
///     match ev {
///         PolyBoltEvent::Message(m) => {
///             if let BoltMessage::Data(env) = m.message()? {
///                 if let BoltPayload::Price(p) = env.payload {
///                     println!("{} {}", p.symbol, p.price); // exact
///                 }
///             }
///         }
///         PolyBoltEvent::Break(b) => println!("{b}"),
///         _ => {}
///     }
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct PolyBoltStreamBuilder {
    opts: Options,
    auth: Option<Credentials>,
    subs: Vec<BoltSubscription>,
}

impl PolyBoltStreamBuilder {
    common_setters!();

    /// The CLOB API credentials sent in the `auth` frame (required: every price channel is
    /// gated).
    #[must_use]
    pub fn credentials(mut self, auth: Credentials) -> Self {
        self.auth = Some(auth);
        self
    }

    /// Adds a subscription sent once authenticated (and after every reconnect). Default is
    /// none.
    #[must_use]
    pub fn subscribe(mut self, sub: BoltSubscription) -> Self {
        self.subs.push(sub);
        self
    }

    /// Starts the connection (on the current Tokio runtime).
    ///
    /// # Errors
    /// [`BuildError`] for an invalid URL or setting, missing credentials, subscriptions
    /// beyond the documented limits, or when called outside a runtime.
    pub fn build(self) -> Result<PolyBoltStream, BuildError> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| BuildError::NoRuntime)?;
        let auth = self.auth.ok_or(BuildError::Invalid(
            "credentials: PolyBolt's price channels need CLOB API credentials",
        ))?;
        let mut ids: Vec<String> = self.subs.iter().map(BoltSubscription::to_json).collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.len() > MAX_SUBSCRIPTIONS {
            return Err(BuildError::Invalid(
                "subscriptions: PolyBolt allows 64 per connection",
            ));
        }
        if ids.iter().any(|s| s.len() > MAX_SUBSCRIPTION_BYTES) {
            return Err(BuildError::Invalid(
                "subscriptions: one renders past 1000 bytes (frames are limited to 64 KB)",
            ));
        }
        let (cfg, capacity, busy_poll) = self.opts.into_config(ChannelKind::PolyBolt { auth })?;
        let (tx, rx) = mpsc::channel(capacity);
        let shards = Arc::new(Shards::new(
            Arc::new(cfg),
            tx,
            runtime,
            usize::MAX,
            Duration::ZERO,
        ));
        shards
            .spawn_single(ids)
            .map_err(|_| BuildError::NoRuntime)?;
        let handle = PolyBoltHandle {
            shards: Arc::clone(&shards),
            sent: Arc::new(Mutex::new(VecDeque::new())),
        };
        Ok(PolyBoltStream {
            core: StreamCore {
                shards,
                dispatcher: Dispatcher::new(rx, busy_poll),
            },
            handle,
            tracker: Tracker::default(),
            pending: None,
            stopped: false,
        })
    }
}

/// Receives decoded PolyBolt frames, borrowed, on the consumer's task.
pub trait PolyBoltHandler {
    /// A frame that decoded (data envelope or acknowledgement).
    fn on_message(&mut self, msg: &BoltMessage<'_>, frame: &Frame<'_>);

    /// A break in continuity (delivered before the frame that revealed it).
    fn on_break(&mut self, brk: &Break) {
        let _ = brk;
    }

    /// A frame that did not decode. Default: ignore.
    fn on_invalid(&mut self, error: DecodeError, frame: &Frame<'_>) {
        let _ = (error, frame);
    }

    /// A connection status change. Default: ignore.
    fn on_status(&mut self, status: &Status) {
        let _ = status;
    }
}

/// Channels tracked (one slot each).
const CHANNELS: usize = Channel::ALL.len();

/// Per-channel sequence state of the current connection. Fixed size: nothing allocated.
#[derive(Debug, Default)]
struct Tracker {
    epoch: u64,
    last: [Option<u64>; CHANNELS],
    trusted: [bool; CHANNELS],
    /// The connection (epoch) this stream asked to replace for new snapshots: its
    /// `Requested` disconnect is part of the break already reported, not a second one.
    resnapshot: Option<u64>,
    /// A reconnect to ask of the shard, set by [`Tracker::on_data`].
    ask: Option<usize>,
}

impl Tracker {
    /// The break a data envelope reveals, if any; updates the state. A loss within the
    /// connection (a server `dropped` count, a `seq` gap) asks for one reconnect, which
    /// brings a new snapshot of every subscription.
    fn on_data(&mut self, shard: usize, epoch: u64, env: &Envelope<'_>) -> Option<Break> {
        if epoch != self.epoch {
            // Sequence numbers start over on every connection.
            self.epoch = epoch;
            self.last = [None; CHANNELS];
        }
        let ch = env.channel?;
        let i = ch.index();
        let expected = self.last[i].map(|s| s.wrapping_add(1));
        self.last[i] = Some(env.seq);
        let (cause, lost) = if env.dropped > 0 {
            (
                Cause::ServerDropped {
                    channel: ch.as_str(),
                },
                Lost::Count(env.dropped),
            )
        } else {
            match expected {
                Some(e) if e != env.seq => (
                    Cause::SequenceGap {
                        channel: ch.as_str(),
                        expected: e,
                        got: env.seq,
                    },
                    if env.seq > e {
                        Lost::Count(env.seq - e)
                    } else {
                        Lost::Unknown
                    },
                ),
                _ => {
                    if env.snapshot {
                        self.trusted[i] = true;
                    }
                    return None;
                }
            }
        };
        self.trusted[i] = env.snapshot;
        if self.resnapshot != Some(epoch) {
            self.resnapshot = Some(epoch);
            self.ask = Some(shard);
        }
        Some(Break {
            stream: StreamKind::PolyBolt,
            shard,
            cause,
            lost,
            recovery: Recovery::Reconnect {
                retry_in: Duration::ZERO,
            },
        })
    }

    /// The break a status reports, if any; a break untrusts every channel.
    fn on_status(&mut self, status: &Status) -> Option<Break> {
        let b = Break::from_status(StreamKind::PolyBolt, status)?;
        self.trusted = [false; CHANNELS];
        match *status {
            Status::Disconnected {
                reason: Disconnect::Requested,
                epoch,
                ..
            } if self.resnapshot == Some(epoch) => None,
            _ => Some(b),
        }
    }
}

/// Decodes frames and tracks continuity for a [`PolyBoltHandler`].
struct Decoding<'h, H: ?Sized> {
    handler: &'h mut H,
    tracker: &'h mut Tracker,
    shards: &'h Shards,
    stopped: &'h mut bool,
}

impl<H: PolyBoltHandler + ?Sized> Handler for Decoding<'_, H> {
    fn on_frame(&mut self, frame: Frame<'_>) {
        let decoded = match frame.as_str() {
            Some(text) => decode(text),
            None => Err(DecodeError::new(DecodeErrorKind::Utf8, "", 0)),
        };
        match decoded {
            Ok(msg) => {
                if let BoltMessage::Data(env) = &msg {
                    if let Some(b) = self.tracker.on_data(frame.shard(), frame.epoch(), env) {
                        self.handler.on_break(&b);
                    }
                    if let Some(shard) = self.tracker.ask.take() {
                        // Fails only after shutdown, when there is nothing to recover.
                        let _ = self.shards.reconnect(Some(shard));
                    }
                }
                self.handler.on_message(&msg, &frame);
            }
            Err(e) => self.handler.on_invalid(e, &frame),
        }
    }

    fn on_status(&mut self, status: &Status) {
        self.handler.on_status(status);
        if let Some(b) = self.tracker.on_status(status) {
            self.handler.on_break(&b);
        }
        if matches!(status, Status::Stopped { .. }) {
            *self.stopped = true;
        }
    }
}

/// A PolyBolt frame that owns its buffer (reference-counted, not a copy).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedBoltMessage {
    frame: OwnedFrame,
}

impl OwnedBoltMessage {
    /// The decoded view.
    ///
    /// # Errors
    /// None in practice: the frame decoded when this message was made.
    pub fn message(&self) -> Result<BoltMessage<'_>, DecodeError> {
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
pub enum PolyBoltEvent {
    /// A frame that decoded.
    Message(OwnedBoltMessage),
    /// A break in continuity (delivered before the frame that revealed it).
    Break(Break),
    /// A frame that did not decode; later frames are still delivered.
    Invalid {
        /// Why.
        error: DecodeError,
        /// The frame.
        frame: OwnedFrame,
    },
    /// A connection status change.
    Status(Status),
}

/// The live PolyBolt connection. Deliver with [`dispatch`](Self::dispatch) and a
/// [`PolyBoltHandler`] (zero-copy), or poll it as a `Stream` of [`PolyBoltEvent`]s. After
/// close 4001 or 4008 it reports [`Status::Stopped`] and a [`Break`], then ends.
#[derive(Debug)]
pub struct PolyBoltStream {
    core: StreamCore,
    handle: PolyBoltHandle,
    tracker: Tracker,
    /// The second event of a pair (a break, then what revealed it).
    pending: Option<PolyBoltEvent>,
    stopped: bool,
}

impl PolyBoltStream {
    /// A builder with the defaults listed on each setter (production URL; credentials
    /// required).
    #[must_use]
    pub fn builder() -> PolyBoltStreamBuilder {
        PolyBoltStreamBuilder {
            opts: Options::new(POLYBOLT_URL),
            auth: None,
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
    pub fn handle(&self) -> PolyBoltHandle {
        self.handle.clone()
    }

    /// Whether `channel` is trusted: a snapshot arrived on it since the last break (a
    /// reconnect, a sequence gap, a server `dropped`, local lag).
    #[must_use]
    pub fn is_trusted(&self, channel: Channel) -> bool {
        self.tracker.trusted[channel.index()]
    }

    /// Adds subscriptions (ones already active are ignored).
    ///
    /// # Errors
    /// [`LimitError`] when the documented limits would be exceeded, or after shutdown.
    pub fn subscribe(
        &self,
        subs: impl IntoIterator<Item = BoltSubscription>,
    ) -> Result<(), LimitError> {
        self.handle.subscribe(subs)
    }

    /// Removes subscriptions (unknown ones are ignored).
    ///
    /// # Errors
    /// [`LimitError::Rate`] past 20 calls per second, [`LimitError::Closed`] after shutdown.
    pub fn unsubscribe(
        &self,
        subs: impl IntoIterator<Item = BoltSubscription>,
    ) -> Result<(), LimitError> {
        self.handle.unsubscribe(subs)
    }

    /// Delivers the next frame (decoded, borrowed), break or status change to `handler`.
    /// Returns `false` once the stream has ended.
    pub async fn dispatch<H: PolyBoltHandler + ?Sized>(&mut self, handler: &mut H) -> bool {
        if self.stopped {
            self.core.shards.shutdown();
            return false;
        }
        let mut d = Decoding {
            handler,
            tracker: &mut self.tracker,
            shards: &self.core.shards,
            stopped: &mut self.stopped,
        };
        self.core.dispatcher.dispatch(&mut d).await
    }

    /// [`dispatch`](Self::dispatch) until the stream ends.
    pub async fn run<H: PolyBoltHandler + ?Sized>(&mut self, handler: &mut H) {
        while self.dispatch(handler).await {}
    }

    fn translate(&mut self, ev: Event) -> PolyBoltEvent {
        match ev {
            Event::Frame(frame) => match decode_bytes(frame.as_bytes()) {
                Ok(msg) => {
                    let brk = match &msg {
                        BoltMessage::Data(env) => {
                            self.tracker.on_data(frame.shard(), frame.epoch(), env)
                        }
                        BoltMessage::Ack(_) => None,
                    };
                    if let Some(shard) = self.tracker.ask.take() {
                        // Fails only after shutdown, when there is nothing to recover.
                        let _ = self.core.shards.reconnect(Some(shard));
                    }
                    let m = PolyBoltEvent::Message(OwnedBoltMessage { frame });
                    match brk {
                        Some(b) => {
                            self.pending = Some(m);
                            PolyBoltEvent::Break(b)
                        }
                        None => m,
                    }
                }
                Err(error) => PolyBoltEvent::Invalid { error, frame },
            },
            Event::Status(s) => {
                if matches!(s, Status::Stopped { .. }) {
                    self.stopped = true;
                }
                if let Some(b) = self.tracker.on_status(&s) {
                    self.pending = Some(PolyBoltEvent::Break(b));
                }
                PolyBoltEvent::Status(s)
            }
        }
    }
}

impl Stream for PolyBoltStream {
    type Item = PolyBoltEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<PolyBoltEvent>> {
        let this = self.get_mut();
        if let Some(ev) = this.pending.take() {
            return Poll::Ready(Some(ev));
        }
        if this.stopped {
            this.core.shards.shutdown();
            return Poll::Ready(None);
        }
        match Pin::new(&mut this.core).poll_next(cx) {
            Poll::Ready(Some(ev)) => Poll::Ready(Some(this.translate(ev))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// A cloneable handle to a [`PolyBoltStream`]'s subscriptions. It enforces the documented
/// limits locally ([`LimitError`]) rather than letting the server close the connection
/// with 4008.
#[derive(Debug, Clone)]
pub struct PolyBoltHandle {
    shards: Arc<Shards>,
    /// When the recent subscribe/unsubscribe requests were made (at most 20 kept).
    sent: Arc<Mutex<VecDeque<Instant>>>,
}

impl PolyBoltHandle {
    /// Counts one subscribe/unsubscribe frame against the per-second limit.
    fn take_rate(&self) -> Result<(), LimitError> {
        let mut sent = self
            .sent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let now = Instant::now();
        while sent
            .front()
            .is_some_and(|t| now.duration_since(*t) >= Duration::from_secs(1))
        {
            sent.pop_front();
        }
        if sent.len() >= MAX_SUBSCRIBE_FRAMES_PER_SEC {
            return Err(LimitError::Rate);
        }
        sent.push_back(now);
        Ok(())
    }

    /// See [`PolyBoltStream::subscribe`].
    ///
    /// # Errors
    /// [`LimitError`].
    pub fn subscribe(
        &self,
        subs: impl IntoIterator<Item = BoltSubscription>,
    ) -> Result<(), LimitError> {
        let active = self.shards.ids_of(0);
        let mut fresh: Vec<String> = subs.into_iter().map(|s| s.to_json()).collect();
        if let Some(big) = fresh.iter().find(|s| s.len() > MAX_SUBSCRIPTION_BYTES) {
            return Err(LimitError::FrameTooLarge { bytes: big.len() });
        }
        fresh.sort_unstable();
        fresh.dedup();
        fresh.retain(|s| active.binary_search(s).is_err());
        if fresh.is_empty() {
            return Ok(());
        }
        if active.len() + fresh.len() > MAX_SUBSCRIPTIONS {
            return Err(LimitError::Subscriptions {
                active: active.len(),
                adding: fresh.len(),
            });
        }
        self.take_rate()?;
        self.shards.subscribe(fresh).map_err(|_| LimitError::Closed)
    }

    /// See [`PolyBoltStream::unsubscribe`].
    ///
    /// # Errors
    /// [`LimitError`].
    pub fn unsubscribe(
        &self,
        subs: impl IntoIterator<Item = BoltSubscription>,
    ) -> Result<(), LimitError> {
        self.take_rate()?;
        self.shards
            .unsubscribe(subs.into_iter().map(|s| s.to_json()))
            .map_err(|_| LimitError::Closed)
    }

    /// The active subscriptions, as sent.
    #[must_use]
    pub fn subscriptions(&self) -> Vec<String> {
        self.shards.ids_of(0)
    }

    /// Reconnects now (new snapshots follow).
    ///
    /// # Errors
    /// [`LimitError::Closed`] after shutdown.
    pub fn reconnect(&self) -> Result<(), LimitError> {
        self.shards.reconnect(None).map_err(|_| LimitError::Closed)
    }

    /// Closes the connection; the stream then ends.
    pub fn shutdown(&self) {
        self.shards.shutdown();
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn env(ch: &str, seq: u64, snapshot: bool, dropped: u64) -> String {
        let s = if snapshot { r#","snapshot":true"# } else { "" };
        let payload = if snapshot {
            r#"{"symbol":"btcusd","data":[]}"#
        } else {
            r#"{"symbol":"btcusd","full_accuracy_value":"1"}"#
        };
        format!(
            r#"{{"v":1,"channel":"{ch}","seq":{seq},"dropped":{dropped}{s},"payload":{payload}}}"#
        )
    }

    fn feed(t: &mut Tracker, epoch: u64, f: &str) -> Option<Break> {
        let BoltMessage::Data(e) = decode(f).unwrap() else {
            panic!()
        };
        t.on_data(0, epoch, &e)
    }

    #[test]
    fn tracker_reports_each_break_once() {
        let mut t = Tracker::default();
        assert!(!t.trusted[0]);
        assert_eq!(feed(&mut t, 1, &env("price.crypto", 1, true, 0)), None);
        assert!(t.trusted[0]);
        assert_eq!(feed(&mut t, 1, &env("price.crypto", 2, false, 0)), None);
        // Another channel has its own sequence.
        assert_eq!(feed(&mut t, 1, &env("price.equity", 1, true, 0)), None);
        let b = feed(&mut t, 1, &env("price.crypto", 5, false, 0)).unwrap();
        assert_eq!(b.lost, Lost::Count(2));
        assert!(matches!(
            b.cause,
            Cause::SequenceGap {
                expected: 3,
                got: 5,
                ..
            }
        ));
        assert!(!t.trusted[0] && t.trusted[2]);
        // A loss asks for one reconnect (new snapshots), whatever follows on the connection.
        assert_eq!(
            b.recovery,
            Recovery::Reconnect {
                retry_in: Duration::ZERO
            }
        );
        assert_eq!(t.ask.take(), Some(0));
        // The server's count wins over the seq arithmetic: one break, not two.
        let b = feed(&mut t, 1, &env("price.crypto", 9, false, 3)).unwrap();
        assert_eq!(b.lost, Lost::Count(3));
        assert!(matches!(b.cause, Cause::ServerDropped { .. }));
        assert_eq!(t.ask, None);
        // The requested reconnect is part of the break already reported.
        let requested = |epoch| Status::Disconnected {
            shard: 0,
            epoch,
            reason: Disconnect::Requested,
            retry_in: Duration::ZERO,
            discarded: 0,
        };
        assert_eq!(t.on_status(&requested(1)), None);
        assert_eq!(t.trusted, [false; CHANNELS]);
        // A new connection restarts the sequence without a break of its own.
        assert_eq!(feed(&mut t, 2, &env("price.crypto", 1, true, 0)), None);
        assert!(t.trusted[0]);
        // A reconnect the user asks for is a break.
        assert!(t.on_status(&requested(2)).is_some());
        t.trusted[0] = true;
        let lag = Status::Lagged {
            shard: 0,
            dropped: 4,
        };
        assert_eq!(t.on_status(&lag).unwrap().lost, Lost::Count(4));
        assert_eq!(t.trusted, [false; CHANNELS]);
    }
}
