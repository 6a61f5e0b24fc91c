//! Market streams feeding a [`BookManager`] directly.
//!
//! Two shapes over the same rules:
//! - [`BookFeed`], a zero-copy [`Handler`]: each frame is decoded in place from the
//!   transport's buffer (no `String` copy), applied to the books, and handed to a
//!   [`BookHandler`] as borrowed views together with the updated books;
//! - [`BookStream`], a `Stream` of owned [`BookEvent`]s with the books readable between
//!   items.
//!
//! Rules, for every shard: when its connection ends, lags, or (re)connects, every book it
//! carries stops trusting deltas ([`BookState::AwaitingSnapshot`](crate::book::BookState))
//! until a fresh `book` snapshot arrives, so a delta missed during a gap can never leave a
//! book silently wrong. A `tick_size_change` does the same (inside the manager) and is
//! reported to the optional tick-size hook, e.g. to refresh an order client's tick cache.
//!
//! Book hashes: a `book` snapshot whose hash does not verify (see
//! [`book::integrity`](crate::book::integrity); needs the asset's
//! [`BookMeta`](crate::book::BookMeta) in the manager) is reported as
//! [`Outcome::HashMismatch`], leaves its book [`Suspect`](crate::book::BookState::Suspect),
//! and makes the stream reconnect the shard that sent it, for fresh snapshots (once per run of
//! mismatches). A snapshot the client cannot verify (it omits a member the exchange fills
//! with a value the client cannot know exactly: [`HashStatus::Unverifiable`]) is applied and
//! trusted like an unchecked one; it is counted apart (`hash_unverifiable`) and traced apart
//! (`polyclob.book.hash_unverifiable`), never as a mismatch.
//!
//! Optional REST resync: a [`ResyncSender`] (from [`BookFeed::resync_sender`] or
//! [`BookStream::resync_sender`]) lets any task — typically an
//! [`on_reconnect`](super::market::MarketStreamBuilder::on_reconnect) hook that fetches
//! `GET /book` — hand snapshots to the books; they are applied on the consumer's task,
//! never over a newer book.

use std::collections::{HashSet, VecDeque};
use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use futures_util::Stream;
use tokio::sync::mpsc;

use super::continuity::{Break, StreamKind};
use super::counters::Counters;
use super::event::{Event, Frame, Handler, Status};
use super::market::{MarketHandle, MarketStream};
use crate::book::{BookManager, HashStatus, Outcome, Update};
use crate::decode::{DecodeError, EventView as Decoded, Level, OwnedEvent};
use crate::types::TickSize;

/// Called with `(asset_id, new_tick_size)` for every `tick_size_change`.
pub(crate) type TickSizeHook = Box<dyn FnMut(&str, TickSize) + Send + 'static>;

/// Receives book updates with borrowed data; see [`BookFeed`].
pub trait BookHandler {
    /// One decoded element of `frame`, after it was applied: `update.manager` holds the
    /// books as they are now, `update.event` borrows the frame.
    fn on_update(&mut self, frame: &Frame<'_>, update: Update<'_, '_>);

    /// A connection status change, after the affected books were gated. Default: ignore.
    fn on_status(&mut self, status: &Status, books: &BookManager) {
        let _ = (status, books);
    }

    /// A break in continuity, right after the status that reported it: the shard's books
    /// await fresh snapshots (see [`continuity`](super::continuity)). Default: ignore.
    fn on_break(&mut self, brk: &Break, books: &BookManager) {
        let _ = (brk, books);
    }

    /// A snapshot sent through a [`ResyncSender`] was processed. Default: ignore.
    fn on_resync(&mut self, asset_id: &str, outcome: ResyncOutcome, books: &BookManager) {
        let _ = (asset_id, outcome, books);
    }
}

/// A book snapshot obtained outside the stream (e.g. REST `GET /book`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// Token id of the asset.
    pub asset_id: String,
    /// Bid levels, in any order.
    pub bids: Vec<Level>,
    /// Ask levels, in any order.
    pub asks: Vec<Level>,
    /// Exchange timestamp (ms) of the snapshot. A snapshot older than the book's latest
    /// update is not applied; `None` applies only to a book awaiting a snapshot.
    pub timestamp_ms: Option<u64>,
}

/// What happened to a [`Snapshot`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResyncOutcome {
    /// The book was replaced and trusts deltas again.
    Applied,
    /// The book already had newer data; the snapshot was dropped.
    Stale,
    /// A level was invalid (e.g. a duplicate price); the book was left unchanged.
    Rejected(DecodeError),
}

/// Sends snapshots to a [`BookFeed`] or [`BookStream`] from any task. Cheap to clone.
#[derive(Debug, Clone)]
pub struct ResyncSender(mpsc::UnboundedSender<Snapshot>);

impl ResyncSender {
    /// Queue `snapshot`; it is applied before the next delivery.
    ///
    /// # Errors
    /// Gives the snapshot back when the feed or stream has been dropped.
    pub fn send(&self, snapshot: Snapshot) -> Result<(), Snapshot> {
        self.0.send(snapshot).map_err(|e| e.0)
    }
}

fn apply_snapshot(books: &mut BookManager, mut s: Snapshot) -> ResyncOutcome {
    use crate::book::BookState;
    let book = books.register(&s.asset_id);
    let newer_or_equal = match (s.timestamp_ms, book.timestamp_ms()) {
        (Some(snap), Some(have)) => snap >= have,
        (Some(_), None) => true,
        (None, _) => book.state() != BookState::Live,
    };
    if !newer_or_equal {
        return ResyncOutcome::Stale;
    }
    match book.replace(&mut s.bids, &mut s.asks, s.timestamp_ms, Instant::now()) {
        Ok(()) => ResyncOutcome::Applied,
        Err(e) => ResyncOutcome::Rejected(e),
    }
}

/// Runs after every applied element: counts decode errors, hash mismatches and unverifiable
/// snapshots in the stream's counters (apart); after a `book` snapshot failed its hash check
/// ([`Outcome::HashMismatch`]), asks the shard that sent it for fresh snapshots by
/// reconnecting it (the books it carries are gated when the connection ends). Only on the
/// first mismatch of a run: a second one in a row is reported but not chased, so wrong
/// [`BookMeta`](crate::book::BookMeta) cannot cause a reconnect loop.
fn resync_on_mismatch(update: &Update<'_, '_>, handle: &MarketHandle, shard: usize) {
    if update.event.is_err() {
        Counters::add(&handle.counter_cells().decode_errors, 1);
    }
    if update.hash == Some(HashStatus::Unverifiable) {
        Counters::add(&handle.counter_cells().hash_unverifiable, 1);
        #[cfg(feature = "tracing")]
        if let Ok(Decoded::Book(b)) = &update.event {
            crate::telemetry::event!(
                DEBUG,
                "polyclob.book.hash_unverifiable",
                channel = "market",
                shard,
                asset = b.asset_id,
            );
        }
    }
    if update.outcome != Outcome::HashMismatch {
        return;
    }
    Counters::add(&handle.counter_cells().hash_mismatches, 1);
    if let Ok(Decoded::Book(b)) = &update.event {
        crate::telemetry::event!(
            WARN,
            "polyclob.book.hash_mismatch",
            channel = "market",
            shard,
            asset = b.asset_id,
            streak = update.manager.hash_mismatch_streak(b.asset_id),
        );
        if update.manager.hash_mismatch_streak(b.asset_id) == 1 {
            // A closed stream has nothing left to resync.
            let _ = handle.reconnect(Some(shard));
        }
    }
}

/// Stop trusting deltas for every book carried by the shard `status` is about.
fn gate(books: &mut BookManager, handle: &MarketHandle, status: &Status) {
    // Rare (per connection event), so allocating the id list is irrelevant.
    for id in handle.shard_assets(status.shard()) {
        books.register(&id).await_snapshot();
    }
}

/// A [`Handler`] that applies frames to a [`BookManager`] and forwards borrowed updates.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use polyclob::book::Update;
/// use polyclob::ws::books::{BookFeed, BookHandler};
/// use polyclob::ws::event::Frame;
/// use polyclob::ws::market::MarketStream;
///
/// struct Top;
/// impl BookHandler for Top {
///     fn on_update(&mut self, _frame: &Frame<'_>, u: Update<'_, '_>) {
///         if let Ok(polyclob::decode::EventView::PriceChange(_)) = u.event {
///             for book in u.manager.books() {
///                 let _ = book.best_bid();
///             }
///         }
///     }
/// }
///
/// let mut stream = MarketStream::builder().assets(["123"]).build()?;
/// let mut feed = BookFeed::new(stream.handle(), Top);
/// stream.run(&mut feed).await;
/// # Ok(()) }
/// ```
pub struct BookFeed<H> {
    books: BookManager,
    handle: MarketHandle,
    handler: H,
    on_tick: Option<TickSizeHook>,
    resync_tx: mpsc::UnboundedSender<Snapshot>,
    resync_rx: mpsc::UnboundedReceiver<Snapshot>,
}

impl<H: fmt::Debug> fmt::Debug for BookFeed<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BookFeed")
            .field("books", &self.books.len())
            .field("handler", &self.handler)
            .field("on_tick", &self.on_tick.is_some())
            .finish_non_exhaustive()
    }
}

impl<H: BookHandler> BookFeed<H> {
    /// A feed with an empty [`BookManager`] for the stream behind `handle`.
    #[must_use]
    pub fn new(handle: MarketHandle, handler: H) -> Self {
        Self::with_books(handle, handler, BookManager::new())
    }

    /// A feed over an existing manager (e.g. one sized with
    /// [`BookManager::with_level_capacity`]).
    #[must_use]
    pub fn with_books(handle: MarketHandle, handler: H, books: BookManager) -> Self {
        let (resync_tx, resync_rx) = mpsc::unbounded_channel();
        Self {
            books,
            handle,
            handler,
            on_tick: None,
            resync_tx,
            resync_rx,
        }
    }

    /// A sender for out-of-band snapshots (REST resync), applied before the next delivery.
    #[must_use]
    pub fn resync_sender(&self) -> ResyncSender {
        ResyncSender(self.resync_tx.clone())
    }

    fn drain_resync(&mut self) {
        while let Ok(snap) = self.resync_rx.try_recv() {
            let id = snap.asset_id.clone();
            let outcome = apply_snapshot(&mut self.books, snap);
            self.handler.on_resync(&id, outcome, &self.books);
        }
    }

    /// Call `hook(asset_id, new_tick)` on every `tick_size_change`. Default is none.
    #[must_use]
    pub fn on_tick_size_change(
        mut self,
        hook: impl FnMut(&str, TickSize) + Send + 'static,
    ) -> Self {
        self.on_tick = Some(Box::new(hook));
        self
    }

    /// Keep `client`'s tick-size cache fresh from this stream: every `tick_size_change`
    /// updates it, so orders built afterwards round to the new tick with no `GET /tick-size`.
    ///
    /// A shorthand for [`on_tick_size_change`](Self::on_tick_size_change) (it replaces any hook
    /// set there).
    #[must_use]
    pub fn tick_size_cache(self, client: &crate::clob::Client) -> Self {
        let client = client.clone();
        self.on_tick_size_change(move |asset_id, tick| client.set_tick_size(asset_id, tick))
    }

    /// The books.
    #[must_use]
    pub fn books(&self) -> &BookManager {
        &self.books
    }

    /// The books, mutably (e.g. to apply a REST `/book` resync or pre-register assets).
    pub fn books_mut(&mut self) -> &mut BookManager {
        &mut self.books
    }

    /// The handler.
    pub fn handler_mut(&mut self) -> &mut H {
        &mut self.handler
    }

    /// Split into the books and the handler.
    pub fn into_parts(self) -> (BookManager, H) {
        (self.books, self.handler)
    }
}

impl<H: BookHandler> Handler for BookFeed<H> {
    fn on_frame(&mut self, frame: Frame<'_>) {
        if !self.resync_rx.is_empty() {
            self.drain_resync();
        }
        // Text frames are already valid UTF-8; a binary frame that is not UTF-8 cannot be a
        // market message and is reported as such.
        let text = frame.as_str().unwrap_or("\u{fffd}");
        let Self {
            books,
            handler,
            on_tick,
            handle,
            ..
        } = self;
        let shard = frame.shard();
        books.apply_with(text, Instant::now(), |u| {
            if let (Some(hook), Ok(Decoded::TickSizeChange(t))) = (on_tick.as_mut(), &u.event) {
                hook(t.asset_id, t.new_tick_size);
            }
            resync_on_mismatch(&u, handle, shard);
            handler.on_update(&frame, u);
        });
    }

    fn on_status(&mut self, status: &Status) {
        self.drain_resync();
        // A failed attempt changes nothing: the books were gated when the connection ended.
        if status.connect_error().is_none() {
            gate(&mut self.books, &self.handle, status);
        }
        self.handler.on_status(status, &self.books);
        if let Some(b) = Break::from_status(StreamKind::Market, status) {
            self.handler.on_break(&b, &self.books);
        }
    }
}

/// An owned item of a [`BookStream`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BookEvent {
    /// One decoded element, already applied to the books.
    Market {
        /// Connection the frame came from.
        shard: usize,
        /// The asset (token id) the element is about: `None` for a market-level event
        /// (`new_market`, `market_resolved`) and for a `price_change` whose entries name
        /// several assets (each entry names its own). Shared with every other event of the
        /// asset: no allocation per message.
        asset_id: Option<Arc<str>>,
        /// The market (condition id), when the element names it. Shared like `asset_id`.
        market: Option<Arc<str>>,
        /// The element (owns its JSON text; [`OwnedEvent::event`] gives the typed view).
        event: OwnedEvent,
        /// What applying it did.
        outcome: Outcome,
    },
    /// An element that could not be decoded; the rest of its frame was still processed.
    Invalid {
        /// Connection the frame came from.
        shard: usize,
        /// Why.
        error: DecodeError,
    },
    /// A connection status change (the affected books are already gated).
    Status(Status),
    /// A break in continuity, right after the status that reported it: the shard's books
    /// await fresh snapshots (see [`continuity`](super::continuity)).
    Break(Break),
    /// A snapshot sent through a [`ResyncSender`] was processed.
    Resynced {
        /// The asset.
        asset_id: String,
        /// What happened.
        outcome: ResyncOutcome,
    },
}

/// Asset and market ids, each held once and shared by every event that names it.
#[derive(Debug, Default)]
struct Ids(HashSet<Arc<str>>);

/// Ids held at most; past it the set starts over (an id then costs one allocation more).
const IDS_CAP: usize = 1 << 16;

impl Ids {
    fn get(&mut self, id: &str) -> Arc<str> {
        if let Some(a) = self.0.get(id) {
            return Arc::clone(a);
        }
        if self.0.len() >= IDS_CAP {
            self.0.clear();
        }
        let a: Arc<str> = id.into();
        self.0.insert(Arc::clone(&a));
        a
    }

    /// The asset and the market an element names.
    fn of(&mut self, e: &Decoded<'_>) -> (Option<Arc<str>>, Option<Arc<str>>) {
        let (asset, market) = match e {
            Decoded::Book(b) => (Some(b.asset_id), Some(b.market)),
            Decoded::PriceChange(p) => {
                let mut assets = p.changes.filter_map(Result::ok).map(|c| c.asset_id);
                let first = assets.next();
                let single = first.filter(|a| assets.all(|b| b == *a));
                (single, Some(p.market))
            }
            Decoded::TickSizeChange(t) => (Some(t.asset_id), t.market),
            Decoded::LastTradePrice(t) => (Some(t.asset_id), t.market),
            Decoded::BestBidAsk(b) => (Some(b.asset_id), b.market),
            Decoded::NewMarket(m) | Decoded::MarketResolved(m) => (None, Some(m.market)),
            _ => (None, None),
        };
        let mut id = |s: &str| (!s.is_empty()).then(|| self.get(s));
        (asset.and_then(&mut id), market.and_then(&mut id))
    }
}

/// A market stream that keeps a [`BookManager`] current and yields owned events.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use futures_util::StreamExt;
/// use polyclob::ws::books::{BookEvent, BookStream};
/// use polyclob::ws::market::MarketStream;
///
/// let mut books = BookStream::new(MarketStream::builder().assets(["123"]).build()?);
/// while let Some(ev) = books.next().await {
///     if let BookEvent::Market { .. } = ev {
///         let _best = books.books().book("123").and_then(|b| b.best_bid());
///     }
/// }
/// # Ok(()) }
/// ```
pub struct BookStream {
    stream: MarketStream,
    handle: MarketHandle,
    books: BookManager,
    ids: Ids,
    pending: VecDeque<BookEvent>,
    on_tick: Option<TickSizeHook>,
    resync_tx: mpsc::UnboundedSender<Snapshot>,
    resync_rx: mpsc::UnboundedReceiver<Snapshot>,
}

impl fmt::Debug for BookStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BookStream")
            .field("stream", &self.stream)
            .field("books", &self.books.len())
            .field("pending", &self.pending.len())
            .finish_non_exhaustive()
    }
}

impl BookStream {
    /// Books fed from `stream`.
    #[must_use]
    pub fn new(stream: MarketStream) -> Self {
        let handle = stream.handle();
        let (resync_tx, resync_rx) = mpsc::unbounded_channel();
        Self {
            stream,
            handle,
            books: BookManager::new(),
            ids: Ids::default(),
            pending: VecDeque::new(),
            on_tick: None,
            resync_tx,
            resync_rx,
        }
    }

    /// A sender for out-of-band snapshots (REST resync); each yields a
    /// [`BookEvent::Resynced`].
    #[must_use]
    pub fn resync_sender(&self) -> ResyncSender {
        ResyncSender(self.resync_tx.clone())
    }

    /// Call `hook(asset_id, new_tick)` on every `tick_size_change`. Default is none.
    #[must_use]
    pub fn on_tick_size_change(
        mut self,
        hook: impl FnMut(&str, TickSize) + Send + 'static,
    ) -> Self {
        self.on_tick = Some(Box::new(hook));
        self
    }

    /// Keep `client`'s tick-size cache fresh from this stream: every `tick_size_change`
    /// updates it, so orders built afterwards round to the new tick with no `GET /tick-size`.
    ///
    /// A shorthand for [`on_tick_size_change`](Self::on_tick_size_change) (it replaces any hook
    /// set there).
    #[must_use]
    pub fn tick_size_cache(self, client: &crate::clob::Client) -> Self {
        let client = client.clone();
        self.on_tick_size_change(move |asset_id, tick| client.set_tick_size(asset_id, tick))
    }

    /// The books, as of the last item yielded.
    #[must_use]
    pub fn books(&self) -> &BookManager {
        &self.books
    }

    /// The books, mutably (e.g. to apply a REST `/book` resync).
    pub fn books_mut(&mut self) -> &mut BookManager {
        &mut self.books
    }

    /// A handle to change subscriptions.
    #[must_use]
    pub fn handle(&self) -> MarketHandle {
        self.handle.clone()
    }

    /// The stream's counters, with the decode errors and hash mismatches this book stream
    /// saw (see [`StreamCounters`](crate::ws::StreamCounters)).
    #[must_use]
    pub fn counters(&self) -> crate::ws::StreamCounters {
        self.handle.counters()
    }

    fn ingest(&mut self, ev: Event) {
        match ev {
            Event::Frame(f) => {
                let frame = f.as_frame();
                let shard = frame.shard();
                let text = frame.as_str().unwrap_or("\u{fffd}");
                let Self {
                    books,
                    pending,
                    on_tick,
                    handle,
                    ids,
                    ..
                } = self;
                books.apply_with(text, Instant::now(), |u| match &u.event {
                    Ok(e) => {
                        resync_on_mismatch(&u, handle, shard);
                        if let (Some(hook), Decoded::TickSizeChange(t)) = (on_tick.as_mut(), e) {
                            hook(t.asset_id, t.new_tick_size);
                        }
                        if !matches!(e, Decoded::Pong) {
                            let (asset_id, market) = ids.of(e);
                            pending.push_back(BookEvent::Market {
                                shard,
                                asset_id,
                                market,
                                event: e.to_owned_event(),
                                outcome: u.outcome,
                            });
                        }
                    }
                    Err(error) => {
                        resync_on_mismatch(&u, handle, shard);
                        pending.push_back(BookEvent::Invalid {
                            shard,
                            error: *error,
                        });
                    }
                });
            }
            Event::Status(s) => {
                if s.connect_error().is_none() {
                    gate(&mut self.books, &self.handle, &s);
                }
                let b = Break::from_status(StreamKind::Market, &s);
                self.pending.push_back(BookEvent::Status(s));
                if let Some(b) = b {
                    self.pending.push_back(BookEvent::Break(b));
                }
            }
        }
    }
}

impl Stream for BookStream {
    type Item = BookEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<BookEvent>> {
        let this = self.get_mut();
        loop {
            if let Some(ev) = this.pending.pop_front() {
                return Poll::Ready(Some(ev));
            }
            // Never Ready(None): the stream holds a sender itself.
            if let Poll::Ready(Some(snap)) = this.resync_rx.poll_recv(cx) {
                let asset_id = snap.asset_id.clone();
                let outcome = apply_snapshot(&mut this.books, snap);
                this.pending
                    .push_back(BookEvent::Resynced { asset_id, outcome });
                continue;
            }
            match Pin::new(&mut this.stream).poll_next(cx) {
                Poll::Ready(Some(ev)) => this.ingest(ev),
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}
