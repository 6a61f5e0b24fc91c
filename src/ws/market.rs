//! The market channel as a feed: public book and price data for a set of asset (token) ids,
//! sharded over as many connections as needed, applied to a [`BookManager`] as it arrives.
//!
//! Subscriptions use `assets_ids` ([Polymarket market channel]); ids are spread over
//! connections of at most [`MAX_ASSETS_PER_CONNECTION`] each, whose first connects are
//! staggered so a large subscription does not open a burst of sockets at once.
//!
//! Trust is the book's: every book a connection carries awaits a fresh `book` snapshot from
//! the moment that connection ends, lags or (re)connects, and a `tick_size_change` does the
//! same; meanwhile [`BookManager::book`] does not show it (its old levels are only readable
//! through [`book_unchecked`](BookManager::book_unchecked)). A REST snapshot handed to
//! [`FeedHandle::restore`] re-establishes a book too, never over newer data.
//!
//! Book hashes: a `book` snapshot whose hash does not verify (see
//! [`book::integrity`](crate::book::integrity); needs the asset's
//! [`BookMeta`](crate::book::BookMeta)) is [`Outcome::HashMismatch`], leaves its book suspect,
//! and is a [`Break`] (`Cause::HashMismatch`): the connection that sent it reconnects for fresh
//! snapshots, paced by its backoff, once per run of mismatches. A snapshot the client cannot
//! verify ([`HashStatus::Unverifiable`]) is applied and trusted like an unchecked one, counted
//! (`hash_unverifiable`) and traced apart, never as a mismatch.
//!
//! [Polymarket market channel]: https://docs.polymarket.com/developers/CLOB/websocket/market-channel

use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::backoff::Jitter;
use super::connection::Policy;
use super::continuity::{Break, Cause, Lost, Recovery, StreamKind};
use super::counters::Counters;
use super::event::{OwnedFrame, Status};
use super::feed::{BuildError, Cx, Decoder, Feed, FeedBuilder, FeedHandle, Handler, Sealed, Wire};
use super::shards::{Closed, Shards};
use super::subscribe::{self, Op};
use super::trust::Trust;
use crate::book::{BookManager, BookState, HashStatus, Outcome};
use crate::decode::{DecodeError, EventView, Level, OwnedEvent};
use crate::types::TickSize;

/// Polymarket's production market-channel endpoint.
pub(crate) const MARKET_URL: &str = "wss://ws-subscriptions-clob.polymarket.com/ws/market";

/// The most asset ids one connection carries. Larger subscriptions are sharded.
pub const MAX_ASSETS_PER_CONNECTION: usize = 200;

/// The market channel's policy: text `PING` every 10 s answered by `PONG` within 30 s, dead
/// after 30 s of silence ([Polymarket WSS overview]); backoff 1 s → 60 s with equal jitter
/// (official clients), reset after 30 s up; no close codes are documented.
///
/// [Polymarket WSS overview]: https://docs.polymarket.com/developers/CLOB/websocket/wss-overview
pub(crate) const POLICY: Policy = Policy {
    kind: StreamKind::Market,
    url: MARKET_URL,
    keepalive: Some("PING"),
    any_frame_answers: false,
    ping_interval: Duration::from_secs(10),
    pong_timeout: Duration::from_secs(30),
    silence_timeout: Duration::from_secs(30),
    backoff: (Duration::from_secs(1), Duration::from_secs(60)),
    jitter: Jitter::Equal,
    healthy_after: Duration::from_secs(30),
    closes: &[],
};

/// The market channel's subscription messages.
#[derive(Debug)]
struct MarketWire {
    custom_feature_enabled: bool,
    initial_dump: bool,
}

impl Wire for MarketWire {
    fn initial(&self, out: &mut String, ids: &BTreeSet<String>) -> bool {
        let ids = ids.iter().map(String::as_str);
        subscribe::market_initial(out, ids, self.custom_feature_enabled, self.initial_dump);
        true
    }
    fn operation(&self, out: &mut String, ids: &[String], op: Op) {
        let ids = ids.iter().map(String::as_str);
        subscribe::market_operation(out, ids, op, self.custom_feature_enabled);
    }
    fn connects_empty(&self) -> bool {
        false
    }
}

/// A live market feed: books kept current from the market channel.
pub type MarketStream = Feed<MarketFeed>;

/// Called with `(asset_id, new_tick_size)` for every `tick_size_change`.
type TickSizeHook = Box<dyn FnMut(&str, TickSize) + Send + 'static>;

/// The market channel's decoder: frames applied to its [`BookManager`] (the feed's state).
pub struct MarketFeed {
    books: BookManager,
    ids: Ids,
    on_tick: Option<TickSizeHook>,
    custom_feature_enabled: bool,
    initial_dump: bool,
    restore_tx: mpsc::UnboundedSender<Snapshot>,
    restore_rx: mpsc::UnboundedReceiver<Snapshot>,
}

impl std::fmt::Debug for MarketFeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MarketFeed")
            .field("books", &self.books.len())
            .field("on_tick", &self.on_tick.is_some())
            .finish_non_exhaustive()
    }
}

/// An element's asset and market ids, shared by every owned event that names them.
type SharedIds = (Option<Arc<str>>, Option<Arc<str>>);

/// One decoded element of a market frame, after it was applied to the books.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct MarketUpdate<'a> {
    /// The element, borrowing the frame.
    pub event: EventView<'a>,
    /// What applying it did.
    pub outcome: Outcome,
    /// The hash check of a `book` snapshot (`None` for any other event).
    pub hash: Option<HashStatus>,
    /// The asset the element is about: `None` for a market-level event (`new_market`,
    /// `market_resolved`) and for a `price_change` whose entries name several assets.
    pub asset_id: Option<&'a str>,
    /// The market (condition id), when the element names it.
    pub market: Option<&'a str>,
    /// The ids above, shared (owned tier only).
    shared: Option<SharedIds>,
}

/// What a [`Handler`] of the market feed receives.
// Boxing the large variant would allocate per message on the hot path; it is passed by
// reference.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum MarketMessage<'a> {
    /// An element of a frame.
    Update(MarketUpdate<'a>),
    /// A snapshot handed to [`FeedHandle::restore`] was processed.
    Restored {
        /// The asset.
        asset_id: &'a str,
        /// What happened.
        outcome: ResyncOutcome,
    },
}

/// What the market feed's `Stream` yields in [`FeedEvent::Message`](super::feed::FeedEvent).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MarketEvent {
    /// One decoded element, already applied to the books.
    Update {
        /// Connection the frame came from.
        shard: usize,
        /// As [`MarketUpdate::asset_id`]; shared with every other event of the asset: no
        /// allocation per message.
        asset_id: Option<Arc<str>>,
        /// The market (condition id), when the element names it; shared like `asset_id`.
        market: Option<Arc<str>>,
        /// The element (owns its JSON text; [`OwnedEvent::event`] gives the typed view).
        event: OwnedEvent,
        /// What applying it did.
        outcome: Outcome,
    },
    /// A snapshot handed to [`FeedHandle::restore`] was processed.
    Restored {
        /// The asset.
        asset_id: String,
        /// What happened.
        outcome: ResyncOutcome,
    },
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

fn apply_snapshot(books: &mut BookManager, s: &mut Snapshot) -> ResyncOutcome {
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

/// Asset and market ids, each held once and shared by every owned event that names it.
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
}

/// The asset and the market an element names.
fn names<'a>(e: &EventView<'a>) -> (Option<&'a str>, Option<&'a str>) {
    let (asset, market) = match e {
        EventView::Book(b) => (Some(b.asset_id), Some(b.market)),
        EventView::PriceChange(p) => {
            let mut assets = p.changes.filter_map(Result::ok).map(|c| c.asset_id);
            let first = assets.next();
            (first.filter(|a| assets.all(|b| b == *a)), Some(p.market))
        }
        EventView::TickSizeChange(t) => (Some(t.asset_id), t.market),
        EventView::LastTradePrice(t) => (Some(t.asset_id), t.market),
        EventView::BestBidAsk(b) => (Some(b.asset_id), b.market),
        EventView::NewMarket(m) | EventView::MarketResolved(m) => (None, Some(m.market)),
        _ => (None, None),
    };
    (
        asset.filter(|s| !s.is_empty()),
        market.filter(|s| !s.is_empty()),
    )
}

impl Feed<MarketFeed> {
    /// A builder with the market channel's policy (`wss://ws-subscriptions-clob.polymarket.com/ws/market`; keepalive, timeouts and
    /// backoff as documented on each setter of [`FeedBuilder`]).
    #[must_use]
    pub fn builder() -> FeedBuilder<MarketFeed> {
        let (restore_tx, restore_rx) = mpsc::unbounded_channel();
        let feed = MarketFeed {
            books: BookManager::new(),
            ids: Ids::default(),
            on_tick: None,
            custom_feature_enabled: true,
            initial_dump: true,
            restore_tx,
            restore_rx,
        };
        let mut b = FeedBuilder::new(feed, &POLICY);
        b.opts.per_connection = MAX_ASSETS_PER_CONNECTION;
        b.opts.stagger = Duration::from_millis(250);
        b
    }

    /// The books, mutably (e.g. to set an asset's [`BookMeta`](crate::book::BookMeta) for hash
    /// checks, or to pre-register assets).
    pub fn books_mut(&mut self) -> &mut BookManager {
        &mut self.decoder_mut().books
    }
}

impl FeedBuilder<MarketFeed> {
    /// Asset ids to subscribe at start; more later with [`FeedHandle::subscribe`]. Default is
    /// none.
    #[must_use]
    pub fn assets<I, S>(mut self, ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.opts.ids.extend(ids.into_iter().map(Into::into));
        self
    }

    /// Request the `best_bid_ask`, `new_market` and `market_resolved` events. Default is `true`.
    #[must_use]
    pub fn custom_feature_enabled(mut self, on: bool) -> Self {
        self.decoder_mut().custom_feature_enabled = on;
        self
    }

    /// Ask for a `book` snapshot of every asset on subscribe. Default is `true` (books need it
    /// to start, and to restart after a reconnect).
    #[must_use]
    pub fn initial_dump(mut self, on: bool) -> Self {
        self.decoder_mut().initial_dump = on;
        self
    }

    /// Asset ids per connection, capped at [`MAX_ASSETS_PER_CONNECTION`]. Default is 200.
    #[must_use]
    pub fn assets_per_connection(mut self, n: usize) -> Self {
        self.opts.per_connection = n.clamp(1, MAX_ASSETS_PER_CONNECTION);
        self
    }

    /// Delay between the first connects of successive connections. Default is 250 ms.
    #[must_use]
    pub fn connect_stagger(mut self, delay: Duration) -> Self {
        self.opts.stagger = delay;
        self
    }

    /// Start from `books` (e.g. one sized with [`BookManager::with_level_capacity`], or with
    /// book metadata set). Default is an empty manager.
    #[must_use]
    pub fn books(mut self, books: BookManager) -> Self {
        self.decoder_mut().books = books;
        self
    }

    /// Call `hook(asset_id, new_tick)` on every `tick_size_change`. Default is none.
    #[must_use]
    pub fn on_tick_size_change(
        mut self,
        hook: impl FnMut(&str, TickSize) + Send + 'static,
    ) -> Self {
        self.decoder_mut().on_tick = Some(Box::new(hook));
        self
    }

    /// Keep `client`'s tick-size cache fresh from this feed: every `tick_size_change` updates
    /// it, so orders built afterwards round to the new tick with no `GET /tick-size`. A
    /// shorthand for [`on_tick_size_change`](Self::on_tick_size_change) (it replaces any hook
    /// set there).
    #[must_use]
    pub fn tick_size_cache(self, client: &crate::clob::Client) -> Self {
        let client = client.clone();
        self.on_tick_size_change(move |asset_id, tick| client.set_tick_size(asset_id, tick))
    }
}

impl FeedHandle<MarketFeed> {
    /// Hands a REST snapshot (e.g. `GET /book`, fetched in an
    /// [`on_reconnect`](FeedBuilder::on_reconnect) hook) to the books: applied on the consumer's
    /// task before the next delivery, never over newer data, reported as
    /// [`MarketMessage::Restored`].
    ///
    /// # Errors
    /// Gives the snapshot back when the feed has been dropped.
    pub fn restore(&self, snapshot: Snapshot) -> Result<(), Snapshot> {
        self.remote.send(snapshot).map_err(|e| e.0)
    }
}

impl MarketFeed {
    /// Every book connection `shard` carries awaits its snapshot. Rare (per connection event
    /// or loss), so allocating the id list is irrelevant.
    fn gate(&mut self, shard: usize, shards: &Shards) {
        for id in shards.ids_of(shard) {
            self.books.register(&id).await_snapshot();
        }
    }

    /// Counts decode errors, hash mismatches and unverifiable snapshots; a mismatch (the first
    /// of a run: wrong metadata cannot cause a reconnect loop) asks the connection for fresh
    /// snapshots and is a break.
    fn account(u: &crate::book::Update<'_, '_>, shards: &Shards, shard: usize) -> Option<Break> {
        let counters = shards.counter_cells();
        if u.event.is_err() {
            Counters::add(&counters.decode_errors, 1);
        }
        let Ok(EventView::Book(b)) = &u.event else {
            return None;
        };
        if u.hash == Some(HashStatus::Unverifiable) {
            Counters::add(&counters.hash_unverifiable, 1);
            crate::telemetry::event!(
                DEBUG,
                "polyclob.book.hash_unverifiable",
                channel = "market",
                shard,
                asset = b.asset_id,
            );
        }
        if u.outcome != Outcome::HashMismatch {
            return None;
        }
        Counters::add(&counters.hash_mismatches, 1);
        let streak = u.manager.hash_mismatch_streak(b.asset_id);
        crate::telemetry::event!(
            WARN,
            "polyclob.book.hash_mismatch",
            channel = "market",
            shard,
            asset = b.asset_id,
            streak,
        );
        if streak != 1 {
            return None;
        }
        shards.resnapshot(shard);
        Some(Break {
            stream: StreamKind::Market,
            shard,
            cause: Cause::HashMismatch,
            lost: Lost::Unknown,
            recovery: Recovery::Resnapshot,
        })
    }
}

impl Sealed for MarketFeed {
    type Sub = String;
    type Refused = Closed;
    type Remote = mpsc::UnboundedSender<Snapshot>;

    fn render(sub: String) -> String {
        sub
    }

    fn wire(&mut self) -> Result<Box<dyn Wire>, BuildError> {
        Ok(Box::new(MarketWire {
            custom_feature_enabled: self.custom_feature_enabled,
            initial_dump: self.initial_dump,
        }))
    }

    fn remote(&mut self) -> Self::Remote {
        self.restore_tx.clone()
    }

    fn state(&self) -> &BookManager {
        &self.books
    }

    fn trust(books: &BookManager, asset_id: &str) -> Trust {
        match books.book_unchecked(asset_id).map(crate::book::Book::state) {
            Some(BookState::Live) => Trust::Trusted,
            Some(_) => Trust::AwaitingSnapshot,
            None => Trust::Unknown,
        }
    }

    fn frame<H: Handler<Self>>(&mut self, f: &OwnedFrame, s: &Shards, h: &mut H, owned: bool) {
        // Text frames are already valid UTF-8; a binary frame that is not UTF-8 cannot be a
        // market message and is reported as such.
        let text = f.as_str().unwrap_or("\u{fffd}");
        let shard = f.shard();
        let Self {
            books,
            ids,
            on_tick,
            ..
        } = self;
        let mut lost = None;
        books.apply_with(text, Instant::now(), |u| {
            lost = lost.or(Self::account(&u, s, shard));
            let cx = Cx::new(Some(f), u.manager);
            let event = match u.event {
                Err(error) => return h.on_invalid(&error, &cx),
                Ok(EventView::Pong) => return,
                Ok(event) => event,
            };
            if let (Some(hook), EventView::TickSizeChange(t)) = (on_tick.as_mut(), &event) {
                hook(t.asset_id, t.new_tick_size);
            }
            let (asset_id, market) = names(&event);
            let shared = owned.then(|| (asset_id.map(|a| ids.get(a)), market.map(|m| ids.get(m))));
            let update = MarketUpdate {
                event,
                outcome: u.outcome,
                hash: u.hash,
                asset_id,
                market,
                shared,
            };
            h.on_message(&MarketMessage::Update(update), &cx);
        });
        if let Some(b) = lost {
            // The connection is replaced for fresh snapshots: its live books wait for theirs
            // (the suspect one stays suspect).
            for id in s.ids_of(shard) {
                let book = self.books.register(&id);
                if book.state() == BookState::Live {
                    book.await_snapshot();
                }
            }
            h.on_break(&b, &Cx::new(None, &self.books));
        }
    }

    fn status(&mut self, status: &Status, shards: &Shards) {
        // A failed attempt changes nothing: the books were gated when the connection ended.
        if status.connect_error().is_none() {
            self.gate(status.shard(), shards);
        }
    }

    fn poll<H: Handler<Self>>(&mut self, cx: &mut Context<'_>, _: &Shards, h: &mut H) -> Poll<()> {
        // Never `Ready(None)`: the feed holds a sender itself.
        let Poll::Ready(Some(mut snap)) = self.restore_rx.poll_recv(cx) else {
            return Poll::Pending;
        };
        let outcome = apply_snapshot(&mut self.books, &mut snap);
        let msg = MarketMessage::Restored {
            asset_id: &snap.asset_id,
            outcome,
        };
        h.on_message(&msg, &Cx::new(None, &self.books));
        Poll::Ready(())
    }

    fn to_owned(msg: &MarketMessage<'_>, cx: &Cx<'_, Self>) -> MarketEvent {
        match msg {
            MarketMessage::Update(u) => {
                let (asset_id, market) = u.shared.clone().unwrap_or_default();
                MarketEvent::Update {
                    shard: cx.frame().map_or(0, |f| f.shard()),
                    asset_id,
                    market,
                    event: u.event.to_owned_event(),
                    outcome: u.outcome,
                }
            }
            MarketMessage::Restored { asset_id, outcome } => MarketEvent::Restored {
                asset_id: (*asset_id).to_owned(),
                outcome: *outcome,
            },
        }
    }

    fn conflation_key(msg: &MarketMessage<'_>, key: &mut String) -> bool {
        let MarketMessage::Update(u) = msg else {
            return false;
        };
        let state = matches!(
            u.event,
            EventView::Book(_) | EventView::PriceChange(_) | EventView::BestBidAsk(_)
        );
        let id = u.asset_id.or(u.market).filter(|_| state);
        id.inspect(|id| key.push_str(id)).is_some()
    }
}

impl Decoder for MarketFeed {
    type Message<'a> = MarketMessage<'a>;
    type Owned = MarketEvent;
    type Key<'a> = &'a str;
    type State = BookManager;
}
