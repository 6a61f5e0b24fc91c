//! Books keyed by asset id, fed straight from WebSocket frames.
//!
//! [`BookManager::apply`] decodes a frame and applies every event in a single pass: `book`
//! levels and `price_change` entries are parsed once, into scratch buffers the manager owns,
//! while the decoder walks them. After warm-up (every asset's book snapshot seen once, every
//! buffer grown to its largest size) applying a frame performs no heap allocation. A book
//! reserves its level storage at its first snapshot (or first level), not when its asset is
//! registered, so subscribed assets that never get a book cost no level storage.

use std::time::Instant;

use super::integrity::{BookMeta, HashStatus, Integrity};
use super::intern::AssetIndex;
use super::l2::{Book, LastTrade, ReportedBest};
use crate::decode::{DecodeError, EventView, Level, PriceChange, Sink, decode};
use crate::fixed::{Price, Size};
use crate::types::Side;

/// What applying one event did.
///
/// ```
/// use polyclob::book::{BookManager, Outcome};
/// let mut m = BookManager::new();
/// let mut outcomes = Vec::new();
/// m.apply_with("PONG", std::time::Instant::now(), |u| outcomes.push(u.outcome));
/// assert_eq!(outcomes, [Outcome::NotBook]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// The event changed or was recorded on at least one book.
    Applied,
    /// Deltas arrived for a book awaiting a snapshot and were ignored (and counted).
    Ignored,
    /// The element was malformed (or its book snapshot invalid); no book was changed.
    Rejected(DecodeError),
    /// A `book` snapshot whose hash did not verify ([`HashStatus::Mismatch`]): its levels
    /// were applied but the book is [`BookState::Suspect`](super::BookState::Suspect) (deltas
    /// ignored) until a snapshot verifies or is applied without a check. The streams
    /// (the market feed, [`MarketStream`](crate::ws::market::MarketStream))
    /// ask for a fresh snapshot when they see it. A snapshot the client cannot verify
    /// ([`HashStatus::Unverifiable`]) is [`Applied`](Self::Applied), never this.
    HashMismatch,
    /// The event does not concern books (user channel, market lifecycle, pong, unknown).
    NotBook,
}

/// One decoded event handed to the callback of [`BookManager::apply_with`], with read access
/// to the books after the event was applied.
///
/// ```
/// use polyclob::book::BookManager;
/// use polyclob::decode::EventView;
/// let mut m = BookManager::new();
/// m.apply_with(r#"{"event_type":"book","asset_id":"1","market":"m","bids":[],"asks":[]}"#,
///     std::time::Instant::now(), |u| {
///         if let Ok(EventView::Book(b)) = &u.event {
///             assert!(u.manager.book(b.asset_id).is_some());
///         }
///     });
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct Update<'m, 'a> {
    /// The books, after this event.
    pub manager: &'m BookManager,
    /// The decoded event (borrowing the frame), or the element's error.
    pub event: Result<EventView<'a>, DecodeError>,
    /// What applying it did.
    pub outcome: Outcome,
    /// The hash check of a `book` snapshot (`None` for any other event): tells a
    /// [`Verified`](HashStatus::Verified) snapshot from an
    /// [`Unverifiable`](HashStatus::Unverifiable) one, both [`Outcome::Applied`].
    pub hash: Option<HashStatus>,
}

/// Totals for one frame.
///
/// ```
/// use polyclob::book::BookManager;
/// let s = BookManager::new().apply("[{\"event_type\":\"x\"},7]", std::time::Instant::now());
/// assert_eq!((s.events, s.errors), (2, 1));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameSummary {
    /// Elements decoded (including rejected ones).
    pub events: u32,
    /// Events applied to a book.
    pub applied: u32,
    /// Events whose deltas were ignored while awaiting a snapshot.
    pub ignored: u32,
    /// Elements rejected.
    pub errors: u32,
    /// `book` snapshots whose hash did not verify ([`Outcome::HashMismatch`]); their levels
    /// were applied but they are counted here, not in `applied`.
    pub hash_mismatches: u32,
    /// `book` snapshots the client could not verify ([`HashStatus::Unverifiable`]); applied
    /// and counted in `applied` too, never as mismatches.
    pub hash_unverifiable: u32,
    /// The first error in the frame.
    pub first_error: Option<DecodeError>,
}

/// A `price_change` entry captured during the walk. The asset id is kept as a position in the
/// frame so that the buffer can be reused across frames of any lifetime.
#[derive(Clone, Copy, Debug)]
struct ChangeRec {
    id_at: usize,
    id_len: usize,
    side: Side,
    price: Price,
    size: Option<Size>,
    best_bid: Option<Price>,
    best_ask: Option<Price>,
}

/// Scratch buffers the decoder fills while walking an element.
#[derive(Debug, Default)]
struct Scratch {
    frame_at: usize,
    bids: Vec<Level>,
    asks: Vec<Level>,
    changes: Vec<ChangeRec>,
    error: Option<DecodeError>,
}

impl Sink for Scratch {
    const CAPTURE: bool = true;

    #[inline]
    fn begin(&mut self) {
        self.bids.clear();
        self.asks.clear();
        self.changes.clear();
        self.error = None;
    }

    #[inline]
    fn level(&mut self, side: Side, level: Result<Level, DecodeError>) {
        match level {
            Ok(l) => match side {
                Side::Buy => self.bids.push(l),
                Side::Sell => self.asks.push(l),
            },
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
    }

    #[inline(always)]
    fn change(&mut self, change: Result<PriceChange<'_>, DecodeError>) {
        match change {
            Ok(c) => self.changes.push(ChangeRec {
                id_at: (c.asset_id.as_ptr() as usize).wrapping_sub(self.frame_at),
                id_len: c.asset_id.len(),
                side: c.side,
                price: c.price,
                size: c.size,
                best_bid: c.best_bid,
                best_ask: c.best_ask,
            }),
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
    }
}

/// L2 books for many assets, keyed by interned asset id.
///
/// New assets register themselves on their first event. Lookups by id hash the borrowed
/// string; only registration allocates.
///
/// ```
/// use polyclob::book::{BookManager, BookState};
/// use std::time::Instant;
///
/// let mut books = BookManager::new();
/// let now = Instant::now();
/// books.apply(r#"{"event_type":"book","asset_id":"7","market":"m",
///   "bids":[{"price":"0.4","size":"10"}],"asks":[{"price":"0.6","size":"10"}]}"#, now);
/// books.apply(r#"{"event_type":"price_change","market":"m","price_changes":[
///   {"asset_id":"7","price":"0.45","size":"3","side":"BUY"}]}"#, now);
/// let b = books.book("7").unwrap();
/// assert_eq!((b.best_bid().unwrap().price.to_string(), b.state()), ("0.45".into(), BookState::Live));
/// ```
#[derive(Debug)]
pub struct BookManager {
    index: AssetIndex,
    books: Vec<Book>,
    scratch: Scratch,
    level_capacity: usize,
    /// The slots of the last two assets looked up, most recent first: see [`Self::slot`].
    recent: [usize; 2],
    /// Book-hash verification (`book::integrity`).
    integrity: Integrity,
}

impl Default for BookManager {
    fn default() -> Self {
        Self::new()
    }
}

impl BookManager {
    /// An empty manager. New books reserve room for 32 levels per side at their first
    /// snapshot.
    ///
    /// ```
    /// use polyclob::book::BookManager;
    /// assert_eq!(BookManager::new().len(), 0);
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::with_level_capacity(32)
    }

    /// An empty manager whose new books reserve `levels` levels per side at their first
    /// snapshot, so that books up to that depth never reallocate.
    ///
    /// ```
    /// use polyclob::book::BookManager;
    /// assert!(BookManager::with_level_capacity(128).is_empty());
    /// ```
    #[must_use]
    pub fn with_level_capacity(levels: usize) -> Self {
        Self {
            index: AssetIndex::default(),
            books: Vec::new(),
            scratch: Scratch {
                bids: Vec::with_capacity(levels),
                asks: Vec::with_capacity(levels),
                changes: Vec::with_capacity(8),
                ..Scratch::default()
            },
            level_capacity: levels,
            recent: [0; 2],
            integrity: Integrity::default(),
        }
    }

    /// Decodes `frame` and applies every event; returns the frame's totals.
    ///
    /// ```
    /// use polyclob::book::BookManager;
    /// let mut m = BookManager::new();
    /// let s = m.apply(r#"{"event_type":"book","asset_id":"1","market":"m","bids":[],"asks":[]}"#,
    ///     std::time::Instant::now());
    /// assert_eq!((s.events, s.applied), (1, 1));
    /// ```
    pub fn apply(&mut self, frame: &str, now: Instant) -> FrameSummary {
        self.apply_with(frame, now, |_| {})
    }

    /// Decodes `frame`, applies every event, and calls `on_update` after each with the
    /// borrowed event, what was done, and read access to the books.
    ///
    /// `now` is the caller's monotonic clock, used for staleness ([`Book::age`]).
    ///
    /// ```
    /// use polyclob::book::{BookManager, Outcome};
    /// let mut m = BookManager::new();
    /// let frame = r#"[{"event_type":"price_change","market":"m","price_changes":[
    ///   {"asset_id":"1","price":"0.5","size":"1","side":"BUY"}]},
    ///   {"event_type":"book","asset_id":"1","market":"m","bids":[{"price":"x","size":"1"}],"asks":[]}]"#;
    /// let mut seen = Vec::new();
    /// m.apply_with(frame, std::time::Instant::now(), |u| seen.push(u.outcome));
    /// assert_eq!(seen[0], Outcome::Ignored); // no snapshot yet
    /// assert!(matches!(seen[1], Outcome::Rejected(_))); // bad level: book untouched
    /// ```
    pub fn apply_with<'a, F>(
        &mut self,
        frame: &'a str,
        now: Instant,
        mut on_update: F,
    ) -> FrameSummary
    where
        F: FnMut(Update<'_, 'a>),
    {
        let mut summary = FrameSummary::default();
        let mut events = decode(frame);
        self.scratch.frame_at = frame.as_ptr() as usize;
        while let Some(r) = events.next_with(&mut self.scratch) {
            summary.events += 1;
            let (outcome, hash) = match &r {
                Ok(e) => self.commit(frame, e, now),
                Err(e) => (Outcome::Rejected(*e), None),
            };
            if hash == Some(HashStatus::Unverifiable) {
                summary.hash_unverifiable += 1;
            }
            match outcome {
                Outcome::Applied => summary.applied += 1,
                Outcome::Ignored => summary.ignored += 1,
                Outcome::HashMismatch => summary.hash_mismatches += 1,
                Outcome::Rejected(e) => {
                    summary.errors += 1;
                    summary.first_error.get_or_insert(e);
                }
                Outcome::NotBook => {}
            }
            on_update(Update {
                manager: self,
                event: r,
                outcome,
                hash,
            });
        }
        summary
    }

    /// Applies one decoded element whose levels/changes are in the scratch buffers; for a
    /// `book` snapshot, also its hash check.
    fn commit(
        &mut self,
        frame: &str,
        event: &EventView<'_>,
        now: Instant,
    ) -> (Outcome, Option<HashStatus>) {
        if let Some(e) = self.scratch.error {
            if matches!(event, EventView::Book(_) | EventView::PriceChange(_)) {
                return (Outcome::Rejected(e), None);
            }
        }
        if let EventView::Book(b) = event {
            return self.commit_book(b, now);
        }
        (self.commit_other(frame, event, now), None)
    }

    /// A `book` snapshot: its hash checked, its levels applied (the book suspect only after a
    /// real mismatch), its tick size and last trade noted.
    fn commit_book(
        &mut self,
        b: &crate::decode::BookMsg<'_>,
        now: Instant,
    ) -> (Outcome, Option<HashStatus>) {
        let slot = self.slot(b.asset_id);
        let status = self.integrity.check(slot, b.json, b.hash);
        let Scratch { bids, asks, .. } = &mut self.scratch;
        let book = &mut self.books[slot];
        if let Err(e) = book.replace(bids, asks, b.timestamp_ms, now) {
            return (Outcome::Rejected(e), None);
        }
        if status.is_mismatch() {
            book.mark_suspect();
        }
        if let Some(t) = b.tick_size {
            book.set_tick_from_snapshot(t);
            self.integrity.note_tick(slot, t);
        }
        if let Some(p) = b.last_trade_price {
            self.integrity.note_trade(slot, p);
            let prev = book.last_trade();
            if prev.is_none_or(|t| t.price != p) {
                book.record_trade(LastTrade {
                    price: p,
                    size: None,
                    side: None,
                    timestamp_ms: b.timestamp_ms,
                });
            }
        }
        let outcome = if status.is_mismatch() {
            Outcome::HashMismatch
        } else {
            Outcome::Applied
        };
        (outcome, Some(status))
    }

    /// Every other element: deltas, tick-size changes, trades, reported best prices.
    fn commit_other(&mut self, frame: &str, event: &EventView<'_>, now: Instant) -> Outcome {
        match event {
            EventView::PriceChange(pc) => {
                let mut applied = false;
                for i in 0..self.scratch.changes.len() {
                    let c = self.scratch.changes[i];
                    let Some(id) = frame.get(c.id_at..c.id_at + c.id_len) else {
                        continue;
                    };
                    let slot = self.slot(id);
                    let book = &mut self.books[slot];
                    if c.best_bid.is_some() || c.best_ask.is_some() {
                        book.record_reported_best(ReportedBest {
                            bid: c.best_bid,
                            ask: c.best_ask,
                            timestamp_ms: pc.timestamp_ms,
                        });
                    }
                    if let Some(size) = c.size {
                        applied |= book.set_level(c.side, c.price, size, pc.timestamp_ms, now);
                    }
                }
                if applied || self.scratch.changes.is_empty() {
                    Outcome::Applied
                } else {
                    Outcome::Ignored
                }
            }
            EventView::TickSizeChange(t) => {
                let slot = self.slot(t.asset_id);
                self.books[slot].set_tick_size(t.new_tick_size, t.timestamp_ms, now);
                self.integrity.note_tick(slot, t.new_tick_size);
                Outcome::Applied
            }
            EventView::LastTradePrice(t) => {
                let slot = self.slot(t.asset_id);
                self.integrity.note_trade(slot, t.price);
                self.books[slot].record_trade(LastTrade {
                    price: t.price,
                    size: t.size,
                    side: t.side,
                    timestamp_ms: t.timestamp_ms,
                });
                Outcome::Applied
            }
            EventView::BestBidAsk(q) => {
                let slot = self.slot(q.asset_id);
                self.books[slot].record_reported_best(ReportedBest {
                    bid: q.best_bid,
                    ask: q.best_ask,
                    timestamp_ms: q.timestamp_ms,
                });
                Outcome::Applied
            }
            _ => Outcome::NotBook,
        }
    }

    /// The slot of `asset_id`, registering a new book when unknown.
    ///
    /// The last two assets are checked first, by comparing ids: a binary market's two tokens
    /// take turns in the stream (each `price_change` of the real captures carries both), and
    /// comparing an id is cheaper than hashing it and probing the index.
    #[inline]
    fn slot(&mut self, asset_id: &str) -> usize {
        let [a, b] = self.recent;
        let is = |slot: usize| {
            self.books
                .get(slot)
                .is_some_and(|k| k.asset_id() == asset_id)
        };
        if is(a) {
            return a;
        }
        if is(b) {
            self.recent = [b, a];
            return b;
        }
        let next = u32::try_from(self.books.len()).unwrap_or(u32::MAX);
        let (slot, new) = self.index.get_or_insert(asset_id, next);
        if new {
            self.books
                .push(Book::deferred(asset_id, self.level_capacity));
        }
        let slot = slot as usize;
        self.recent = [slot, a];
        slot
    }

    /// Registers `asset_id` (if new) and returns its book, e.g. to pre-warm before streaming.
    ///
    /// ```
    /// use polyclob::book::BookManager;
    /// let mut m = BookManager::new();
    /// m.register("7");
    /// assert!(m.book_unchecked("7").is_some());
    /// ```
    pub fn register(&mut self, asset_id: &str) -> &mut Book {
        let slot = self.slot(asset_id);
        &mut self.books[slot]
    }

    /// Registers what the hash of `asset_id`'s `book` snapshots covers but the frame does not
    /// carry (minimum order size, neg-risk), so that its snapshots are verified
    /// ([`book::integrity`](super::integrity)).
    ///
    /// ```
    /// use polyclob::book::{BookManager, BookMeta, HashStatus};
    /// use polyclob::fixed::Size;
    /// let mut m = BookManager::new();
    /// m.set_book_meta("7", BookMeta::new(Size::parse(b"5")?, false));
    /// m.apply(r#"{"event_type":"book","asset_id":"7","market":"m","bids":[],"asks":[],
    ///   "tick_size":"0.01","last_trade_price":"0.5",
    ///   "hash":"0000000000000000000000000000000000000000"}"#, std::time::Instant::now());
    /// assert_eq!(m.hash_status("7"), Some(HashStatus::Mismatch));
    /// # Ok::<(), polyclob::fixed::ParseError>(())
    /// ```
    pub fn set_book_meta(&mut self, asset_id: &str, meta: BookMeta) {
        let slot = self.slot(asset_id);
        self.integrity.set_meta(slot, meta);
    }

    /// The metadata registered for `asset_id`.
    ///
    /// ```
    /// use polyclob::book::BookManager;
    /// assert!(BookManager::new().book_meta("7").is_none());
    /// ```
    #[must_use]
    pub fn book_meta(&self, asset_id: &str) -> Option<BookMeta> {
        let slot = self.index.get(asset_id)?;
        self.integrity.meta(slot as usize)
    }

    /// Turns book-hash verification on or off for every asset. Default is on; it only runs
    /// for assets with [`BookMeta`] ([`Self::set_book_meta`]).
    ///
    /// ```
    /// use polyclob::book::BookManager;
    /// let mut m = BookManager::new();
    /// m.set_verify_hashes(false);
    /// assert!(!m.verifies_hashes());
    /// ```
    pub fn set_verify_hashes(&mut self, on: bool) {
        self.integrity.enabled = on;
    }

    /// Whether book-hash verification is on.
    ///
    /// ```
    /// use polyclob::book::BookManager;
    /// assert!(BookManager::new().verifies_hashes());
    /// ```
    #[must_use]
    pub fn verifies_hashes(&self) -> bool {
        self.integrity.enabled
    }

    /// The result of checking the last `book` snapshot of `asset_id` (`None` before any).
    ///
    /// ```
    /// use polyclob::book::BookManager;
    /// assert!(BookManager::new().hash_status("7").is_none());
    /// ```
    #[must_use]
    pub fn hash_status(&self, asset_id: &str) -> Option<HashStatus> {
        let slot = self.index.get(asset_id)?;
        self.integrity.last(slot as usize)
    }

    /// How many `book` snapshots of `asset_id` in a row failed the hash check (0 after one
    /// that did not). The streams ask for a fresh snapshot only on the first of a run, so
    /// wrong metadata cannot make them reconnect in a loop.
    ///
    /// ```
    /// use polyclob::book::BookManager;
    /// assert_eq!(BookManager::new().hash_mismatch_streak("7"), 0);
    /// ```
    #[must_use]
    pub fn hash_mismatch_streak(&self, asset_id: &str) -> u32 {
        self.index
            .get(asset_id)
            .map_or(0, |slot| self.integrity.streak(slot as usize))
    }

    /// The book of `asset_id` if it is [`Live`](super::BookState::Live): its levels can be
    /// relied on. A book awaiting its snapshot after a break (or a tick-size change), or
    /// suspect after a hash mismatch, is `None` here; [`book_unchecked`](Self::book_unchecked)
    /// shows it anyway.
    ///
    /// ```
    /// use polyclob::book::BookManager;
    /// let mut m = BookManager::new();
    /// m.register("7");
    /// assert!(m.book("7").is_none(), "no snapshot yet");
    /// assert!(m.book_unchecked("7").is_some());
    /// ```
    #[must_use]
    pub fn book(&self, asset_id: &str) -> Option<&Book> {
        self.book_unchecked(asset_id)
            .filter(|b| b.state() == super::BookState::Live)
    }

    /// The book of `asset_id` in whatever state it is (check [`Book::state`] before reading
    /// its levels: after a break they are the old ones).
    #[must_use]
    pub fn book_unchecked(&self, asset_id: &str) -> Option<&Book> {
        self.index
            .get(asset_id)
            .and_then(|s| self.books.get(s as usize))
    }

    /// An owned copy of the book of `asset_id`.
    ///
    /// ```
    /// use polyclob::book::BookManager;
    /// assert!(BookManager::new().snapshot("7").is_none());
    /// ```
    #[must_use]
    pub fn snapshot(&self, asset_id: &str) -> Option<super::BookSnapshot> {
        self.book_unchecked(asset_id).map(Book::to_snapshot)
    }

    /// Every book in whatever state, in registration order (check [`Book::state`]).
    ///
    /// ```
    /// use polyclob::book::BookManager;
    /// assert_eq!(BookManager::new().books_unchecked().count(), 0);
    /// ```
    pub fn books_unchecked(&self) -> impl ExactSizeIterator<Item = &Book> + '_ {
        self.books.iter()
    }

    /// Every [`Live`](super::BookState::Live) book, in registration order.
    pub fn books(&self) -> impl Iterator<Item = &Book> + '_ {
        self.books
            .iter()
            .filter(|b| b.state() == super::BookState::Live)
    }

    /// Number of books.
    ///
    /// ```
    /// use polyclob::book::BookManager;
    /// assert_eq!(BookManager::new().len(), 0);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.books.len()
    }

    /// Whether no book is registered.
    ///
    /// ```
    /// use polyclob::book::BookManager;
    /// assert!(BookManager::new().is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.books.is_empty()
    }
}
