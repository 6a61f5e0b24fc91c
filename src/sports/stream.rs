//! [`SportsStream`]: the sports socket, on the market channel's connection machinery.
//!
//! One connection, nothing to subscribe ([Sports WebSocket]): the stream connects, answers
//! every text `ping` from the server with `pong` at once (the server wants it within 10 s),
//! and sends nothing else. The server pings every 5 s, so silence for the silence timeout
//! (default 15 s: three missed pings) means a dead connection; it is replaced with backoff,
//! like any other end. Every break is one [`Break`] (the socket has no snapshot: what
//! happened during an outage is lost, and each game is current again at its next message).
//!
//! [Sports WebSocket]: https://docs.polymarket.com/market-data/websocket/sports

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::Stream;
use tokio::sync::mpsc;

use crate::decode::{DecodeError, DecodeErrorKind};
use crate::ws::connection::ChannelKind;
use crate::ws::continuity::{Break, LiveEpoch, StreamKind};
use crate::ws::event::{Event, Frame, Handler, OwnedFrame, Status};
use crate::ws::options::{BuildError, Options, common_setters};
use crate::ws::shards::{Dispatcher, Shards, StreamCore};

use super::decode::{SportResult, decode};

/// Polymarket's production sports socket.
pub const SPORTS_URL: &str = "wss://sports-api.polymarket.com/ws";

/// Builder of a [`SportsStream`]. The setters shared with the market channel document the
/// market channel's defaults; here the silence timeout defaults to 15 s (three of the
/// server's 5 s pings), and `ping_interval` only has to stay below it (the client sends no
/// keepalive of its own).
#[derive(Debug)]
pub struct SportsStreamBuilder {
    opts: Options,
}

impl SportsStreamBuilder {
    common_setters!();

    /// Starts the connection (on the current Tokio runtime).
    ///
    /// # Errors
    /// [`BuildError`] for an invalid URL or setting, or when called outside a runtime.
    pub fn build(self) -> Result<SportsStream, BuildError> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| BuildError::NoRuntime)?;
        let (cfg, capacity, busy_poll) = self.opts.into_config(ChannelKind::Sports)?;
        let (tx, rx) = mpsc::channel(capacity);
        let shards = Arc::new(Shards::new(
            Arc::new(cfg),
            tx,
            runtime,
            usize::MAX,
            Duration::ZERO,
        ));
        shards
            .spawn_single(std::iter::empty())
            .map_err(|_| BuildError::NoRuntime)?;
        Ok(SportsStream {
            core: StreamCore {
                shards,
                dispatcher: Dispatcher::new(rx, busy_poll),
            },
            pending: None,
            live: LiveEpoch::default(),
        })
    }
}

/// Receives decoded `sport_result`s, borrowed, on the consumer's task.
pub trait SportsHandler {
    /// A result that decoded.
    fn on_result(&mut self, result: &SportResult<'_>, frame: &Frame<'_>);

    /// A break in continuity. Default: ignore.
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

struct Decoding<'h, H: ?Sized>(&'h mut H, &'h mut LiveEpoch);

impl<H: SportsHandler + ?Sized> Handler for Decoding<'_, H> {
    fn on_frame(&mut self, frame: Frame<'_>) {
        let decoded = match frame.as_str() {
            Some(text) => decode(text),
            None => Err(DecodeError::new(DecodeErrorKind::Utf8, "", 0)),
        };
        match decoded {
            Ok(r) => self.0.on_result(&r, &frame),
            Err(e) => self.0.on_invalid(e, &frame),
        }
    }

    fn on_status(&mut self, status: &Status) {
        self.1.on_status(status);
        self.0.on_status(status);
        if let Some(b) = Break::from_status(StreamKind::Sports, status) {
            self.0.on_break(&b);
        }
    }
}

/// A `sport_result` that owns its frame (reference-counted, not a copy).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedSportResult {
    frame: OwnedFrame,
}

impl OwnedSportResult {
    /// The decoded view.
    ///
    /// # Errors
    /// None in practice: the frame decoded when this was made.
    pub fn result(&self) -> Result<SportResult<'_>, DecodeError> {
        match core::str::from_utf8(self.frame.as_bytes()) {
            Ok(s) => decode(s),
            Err(e) => Err(DecodeError::new(DecodeErrorKind::Utf8, "", e.valid_up_to())),
        }
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
pub enum SportsEvent {
    /// A `sport_result`.
    Result(OwnedSportResult),
    /// A break in continuity (after the status that reported it).
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

/// The live sports connection: deliver with [`dispatch`](Self::dispatch) and a
/// [`SportsHandler`] (zero-copy), or poll it as a `Stream` of [`SportsEvent`]s.
#[derive(Debug)]
pub struct SportsStream {
    core: StreamCore,
    pending: Option<SportsEvent>,
    live: LiveEpoch,
}

impl SportsStream {
    /// A builder with the defaults listed on each setter (production URL, silence 15 s).
    #[must_use]
    pub fn builder() -> SportsStreamBuilder {
        let mut opts = Options::new(SPORTS_URL);
        opts.ping_interval = Duration::from_secs(5);
        opts.silence_timeout = Duration::from_secs(15);
        SportsStreamBuilder { opts }
    }

    /// Delivers the next result (decoded, borrowed), break or status change to `handler`.
    /// Returns `false` once the stream has shut down.
    pub async fn dispatch<H: SportsHandler + ?Sized>(&mut self, handler: &mut H) -> bool {
        let mut d = Decoding(handler, &mut self.live);
        self.core.dispatcher.dispatch(&mut d).await
    }

    /// Whether what came in a frame of connection `epoch` ([`Frame::epoch`],
    /// [`OwnedFrame::epoch`]) is still current: no break since. After a break, a game's last
    /// result is untrusted until the game's next `sport_result` (the socket sends no
    /// snapshot; what happened during the outage is not replayed).
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::collections::HashMap;
    /// use futures_util::StreamExt;
    /// use polyclob::sports::{SportsEvent, SportsStream};
    ///
    /// let mut sports = SportsStream::builder().build()?;
    /// let mut games = HashMap::new(); // game (league|id) → its last result
    /// while let Some(ev) = sports.next().await {
    ///     if let SportsEvent::Result(r) = ev {
    ///         games.insert(r.result()?.key.to_string(), r);
    ///     }
    ///     let stale = games.values().filter(|r| !sports.is_current(r.frame().epoch())).count();
    ///     println!("{stale} games not current");
    /// }
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn is_current(&self, epoch: u64) -> bool {
        self.live.is_current(epoch)
    }

    /// This stream's counters: connects, breaks, frames, bytes, … (see
    /// [`StreamCounters`](crate::ws::StreamCounters)).
    #[must_use]
    pub fn counters(&self) -> crate::ws::StreamCounters {
        self.core.shards.counters()
    }

    /// Reconnects now.
    pub fn reconnect(&self) {
        let _ = self.core.shards.reconnect(None);
    }

    /// Closes the connection; the stream then ends.
    pub fn shutdown(&self) {
        self.core.shards.shutdown();
    }

    fn translate(&mut self, ev: Event) -> SportsEvent {
        match ev {
            Event::Frame(frame) => {
                let ok = core::str::from_utf8(frame.as_bytes()).map_or_else(
                    |e| Err(DecodeError::new(DecodeErrorKind::Utf8, "", e.valid_up_to())),
                    |s| decode(s).map(drop),
                );
                match ok {
                    Ok(()) => SportsEvent::Result(OwnedSportResult { frame }),
                    Err(error) => SportsEvent::Invalid { error, frame },
                }
            }
            Event::Status(s) => {
                self.live.on_status(&s);
                self.pending = Break::from_status(StreamKind::Sports, &s).map(SportsEvent::Break);
                SportsEvent::Status(s)
            }
        }
    }
}

impl Stream for SportsStream {
    type Item = SportsEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<SportsEvent>> {
        let this = self.get_mut();
        if let Some(ev) = this.pending.take() {
            return Poll::Ready(Some(ev));
        }
        match Pin::new(&mut this.core).poll_next(cx) {
            Poll::Ready(Some(ev)) => Poll::Ready(Some(this.translate(ev))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}
