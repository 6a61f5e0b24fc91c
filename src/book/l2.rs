//! One asset's L2 order book with fixed-point price keys.
//!
//! Each side is a sorted `Vec<Level>` whose best level is the *last* element (bids ascending,
//! asks descending), with removed levels kept as empty slots until a delta fills them again
//! (`side.rs`). That makes the best bid/ask an O(1) read, makes most deltas an in-place store,
//! and lets a side keep its capacity, so steady-state updates never allocate. A `BTreeMap` (the
//! design card's default) allocates a node whenever a new level is inserted, which breaks the
//! zero-allocation guarantee; it is also slower on deltas near the top of the book
//! (`book_structure_*` in the `ws_hot_path` bench; figures in BENCHMARKS.md).

use std::time::{Duration, Instant};

use crate::decode::{DecodeError, DecodeErrorKind, Level};
use crate::fixed::{Notional, Price, Size};
use crate::types::{RoundConfig, Side, TickSize};

use super::side::{self, SideLevels};

/// Whether the book can be trusted for deltas.
///
/// ```
/// use polyclob::book::{Book, BookState};
/// assert_eq!(Book::new("1").state(), BookState::AwaitingSnapshot);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BookState {
    /// No snapshot yet in this epoch (new asset, or after a `tick_size_change`): deltas are
    /// ignored and counted until the next `book` message.
    AwaitingSnapshot,
    /// A snapshot was applied and deltas are applied on top of it.
    Live,
    /// The last snapshot's hash did not verify (`book::integrity`): its levels are shown but
    /// deltas are ignored and counted until the next snapshot.
    Suspect,
}

/// How the top of the book looks. Crossed and locked books are reported, never repaired.
///
/// ```
/// use polyclob::book::{Book, TopState};
/// assert_eq!(Book::new("1").top_state(), TopState::Empty);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TopState {
    /// Both sides empty.
    Empty,
    /// Only one side has levels.
    OneSided,
    /// Best bid below best ask.
    Normal,
    /// Best bid equals best ask.
    Locked,
    /// Best bid above best ask.
    Crossed,
}

/// The last trade recorded from `last_trade_price`.
///
/// ```
/// use polyclob::book::Book;
/// assert!(Book::new("1").last_trade().is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LastTrade {
    /// Trade price.
    pub price: Price,
    /// Trade size, when sent.
    pub size: Option<Size>,
    /// Taker side, when sent.
    pub side: Option<Side>,
    /// Exchange timestamp (ms), when sent.
    pub timestamp_ms: Option<u64>,
}

/// The exchange's own top of book, from `best_bid_ask` or `price_change` entries.
///
/// ```
/// use polyclob::book::Book;
/// assert_eq!(Book::new("1").reported_best().bid, None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ReportedBest {
    /// Best bid as reported.
    pub bid: Option<Price>,
    /// Best ask as reported.
    pub ask: Option<Price>,
    /// Exchange timestamp (ms) of the report, when sent.
    pub timestamp_ms: Option<u64>,
}

/// How much to trade when walking the book.
///
/// ```
/// use polyclob::book::WalkAmount;
/// use polyclob::fixed::Size;
/// let spend = WalkAmount::Pusd(Size::parse(b"100")?);
/// # let _ = spend;
/// # Ok::<(), polyclob::fixed::ParseError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WalkAmount {
    /// A number of shares.
    Shares(Size),
    /// An amount of pUSD to spend (buy) or receive (sell).
    Pusd(Size),
}

/// The result of walking the book from its best level, as a market order would.
///
/// ```
/// use polyclob::book::{WalkAmount, Book};
/// use polyclob::fixed::Size;
/// use polyclob::types::Side;
/// let fill = Book::new("1").walk(Side::Buy, WalkAmount::Shares(Size::ONE));
/// assert!(!fill.complete && fill.shares.is_zero());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fill {
    /// Shares that would trade.
    pub shares: Size,
    /// pUSD paid (buy) or received (sell), exact.
    pub cost: Notional,
    /// The last (worst) price touched, `None` when nothing would trade.
    pub worst_price: Option<Price>,
    /// Levels touched.
    pub levels: usize,
    /// Whether the whole amount could be filled.
    pub complete: bool,
}

/// One asset's order book.
///
/// ```
/// use polyclob::book::{BookManager, TopState};
/// use std::time::Instant;
///
/// let mut books = BookManager::new();
/// books.apply(r#"{"event_type":"book","asset_id":"7","market":"0x1",
///   "bids":[{"price":"0.47","size":"10"},{"price":"0.48","size":"30"}],
///   "asks":[{"price":"0.53","size":"5"},{"price":"0.52","size":"25"}]}"#, Instant::now());
/// let book = books.book("7").unwrap();
/// assert_eq!(book.best_bid().unwrap().price.to_string(), "0.48");
/// assert_eq!(book.best_ask().unwrap().size.to_string(), "25");
/// assert_eq!(book.spread_micros(), Some(40_000));
/// assert_eq!(book.mid().unwrap().to_string(), "0.5");
/// assert_eq!(book.top_state(), TopState::Normal);
/// ```
#[derive(Clone, Debug)]
pub struct Book {
    asset_id: Box<str>,
    bids: SideLevels,
    asks: SideLevels,
    state: BookState,
    epoch: u32,
    tick_size: Option<TickSize>,
    /// [`side::grid`] of the tick size, 0 while it is unknown.
    grid: u64,
    ignored_deltas: u64,
    updates: u64,
    last_update: Option<Instant>,
    timestamp_ms: Option<u64>,
    last_trade: Option<LastTrade>,
    reported: ReportedBest,
}

impl Book {
    /// An empty book awaiting its first snapshot.
    ///
    /// ```
    /// use polyclob::book::Book;
    /// assert_eq!(Book::new("42").asset_id(), "42");
    /// ```
    #[must_use]
    pub fn new(asset_id: &str) -> Self {
        Self::with_capacity(asset_id, 0)
    }

    /// An empty book with room for `levels` levels per side before it allocates.
    ///
    /// ```
    /// use polyclob::book::Book;
    /// assert!(Book::with_capacity("42", 64).is_empty());
    /// ```
    #[must_use]
    pub fn with_capacity(asset_id: &str, levels: usize) -> Self {
        Self {
            asset_id: asset_id.into(),
            bids: SideLevels::new(false, levels),
            asks: SideLevels::new(true, levels),
            state: BookState::AwaitingSnapshot,
            epoch: 0,
            tick_size: None,
            grid: 0,
            ignored_deltas: 0,
            updates: 0,
            last_update: None,
            timestamp_ms: None,
            last_trade: None,
            reported: ReportedBest::default(),
        }
    }

    /// An empty book that allocates no levels until its first snapshot or level, then
    /// reserves `levels` per side (what [`BookManager`](super::BookManager) creates: a
    /// subscribed asset that never trades costs no level storage).
    pub(crate) fn deferred(asset_id: &str, levels: usize) -> Self {
        Self {
            bids: SideLevels::deferred(false, levels),
            asks: SideLevels::deferred(true, levels),
            ..Self::with_capacity(asset_id, 0)
        }
    }

    /// The asset (token) id.
    ///
    /// ```
    /// use polyclob::book::Book;
    /// assert_eq!(Book::new("9").asset_id(), "9");
    /// ```
    #[must_use]
    pub fn asset_id(&self) -> &str {
        &self.asset_id
    }

    /// Replaces both sides atomically from unsorted candidate levels.
    ///
    /// `bids` and `asks` are sorted in place (they are caller-owned scratch); zero-size levels
    /// are dropped. On a duplicate price the book is left untouched. Starts trusting deltas
    /// (state [`BookState::Live`]).
    ///
    /// ```
    /// use polyclob::book::{Book, BookState};
    /// use polyclob::fixed::{Price, Size};
    /// use polyclob::decode::Level;
    /// use std::time::Instant;
    ///
    /// let l = |p: &str, s: &str| Level { price: p.parse().unwrap(), size: s.parse().unwrap() };
    /// let mut book = Book::new("1");
    /// let mut bids = vec![l("0.3", "1"), l("0.4", "2")];
    /// let mut asks = vec![l("0.6", "1")];
    /// book.replace(&mut bids, &mut asks, Some(5), Instant::now())?;
    /// assert_eq!(book.state(), BookState::Live);
    /// let mut dup = vec![l("0.3", "1"), l("0.3", "2")];
    /// assert!(book.replace(&mut dup, &mut asks, None, Instant::now()).is_err());
    /// assert_eq!(book.best_bid().unwrap().size.to_string(), "2"); // unchanged
    /// # Ok::<(), polyclob::decode::DecodeError>(())
    /// ```
    ///
    /// # Errors
    /// [`DecodeErrorKind::DuplicateLevel`] when a side lists a price twice.
    pub fn replace(
        &mut self,
        bids: &mut Vec<Level>,
        asks: &mut Vec<Level>,
        timestamp_ms: Option<u64>,
        now: Instant,
    ) -> Result<(), DecodeError> {
        // The general pass, out of line, only for what the exchange does not send.
        if !ready(bids, false) {
            prepare(bids, false, "bids")?;
        }
        if !ready(asks, true) {
            prepare(asks, true, "asks")?;
        }
        self.bids.replace(bids);
        self.asks.replace(asks);
        self.state = BookState::Live;
        self.touch(timestamp_ms, now);
        Ok(())
    }

    /// Sets the size of one level (`0` removes it), if the book is [`BookState::Live`].
    ///
    /// Returns `false` (and counts the delta) when the book awaits a snapshot.
    ///
    /// ```
    /// use polyclob::book::Book;
    /// use polyclob::types::Side;
    /// use std::time::Instant;
    ///
    /// let mut book = Book::new("1");
    /// let p = "0.5".parse()?;
    /// assert!(!book.set_level(Side::Buy, p, "10".parse()?, None, Instant::now()));
    /// assert_eq!(book.ignored_deltas(), 1);
    /// book.replace(&mut vec![], &mut vec![], None, Instant::now()).unwrap();
    /// assert!(book.set_level(Side::Buy, p, "10".parse()?, None, Instant::now()));
    /// assert_eq!(book.best_bid().unwrap().price, p);
    /// # Ok::<(), polyclob::fixed::ParseError>(())
    /// ```
    #[inline]
    pub fn set_level(
        &mut self,
        side: Side,
        price: Price,
        size: Size,
        timestamp_ms: Option<u64>,
        now: Instant,
    ) -> bool {
        if self.state != BookState::Live {
            self.ignored_deltas += 1;
            return false;
        }
        let levels = match side {
            Side::Buy => &mut self.bids,
            Side::Sell => &mut self.asks,
        };
        levels.set(price, size, self.grid);
        self.touch(timestamp_ms, now);
        true
    }

    /// Starts a new epoch after a `tick_size_change`: the tick (and so the rounding) changes
    /// and deltas are ignored until the next snapshot. Levels are kept for display but the
    /// state says they are not being maintained.
    ///
    /// ```
    /// use polyclob::book::{Book, BookState};
    /// use polyclob::types::TickSize;
    /// use std::time::Instant;
    ///
    /// let mut book = Book::new("1");
    /// book.replace(&mut vec![], &mut vec![], None, Instant::now())?;
    /// book.set_tick_size(TickSize::Thousandth, None, Instant::now());
    /// assert_eq!((book.state(), book.epoch()), (BookState::AwaitingSnapshot, 1));
    /// assert_eq!(book.round_config().unwrap().price, 3);
    /// # Ok::<(), polyclob::decode::DecodeError>(())
    /// ```
    pub fn set_tick_size(&mut self, tick: TickSize, timestamp_ms: Option<u64>, now: Instant) {
        self.set_tick_from_snapshot(tick);
        self.epoch = self.epoch.wrapping_add(1);
        self.state = BookState::AwaitingSnapshot;
        self.touch(timestamp_ms, now);
    }

    /// Stops trusting deltas until the next snapshot, keeping the levels for display: used
    /// when the stream feeding this book reconnected or lagged, since deltas may have been
    /// missed.
    ///
    /// ```
    /// use polyclob::book::{Book, BookState};
    /// use std::time::Instant;
    ///
    /// let mut book = Book::new("1");
    /// book.replace(&mut vec![], &mut vec![], None, Instant::now())?;
    /// book.await_snapshot();
    /// assert_eq!(book.state(), BookState::AwaitingSnapshot);
    /// # Ok::<(), polyclob::decode::DecodeError>(())
    /// ```
    pub fn await_snapshot(&mut self) {
        self.state = BookState::AwaitingSnapshot;
    }

    /// Marks the book [`BookState::Suspect`]: its last snapshot failed the hash check.
    pub(crate) fn mark_suspect(&mut self) {
        self.state = BookState::Suspect;
    }

    /// Records a trade print.
    ///
    /// ```
    /// use polyclob::book::{Book, LastTrade};
    /// let mut book = Book::new("1");
    /// let t = LastTrade { price: "0.4".parse()?, size: None, side: None, timestamp_ms: Some(1) };
    /// book.record_trade(t);
    /// assert_eq!(book.last_trade(), Some(t));
    /// # Ok::<(), polyclob::fixed::ParseError>(())
    /// ```
    pub fn record_trade(&mut self, trade: LastTrade) {
        self.last_trade = Some(trade);
    }

    /// Records the exchange's reported top of book.
    ///
    /// ```
    /// use polyclob::book::{Book, ReportedBest};
    /// let mut book = Book::new("1");
    /// book.record_reported_best(ReportedBest { bid: Some("0.4".parse()?), ask: None, timestamp_ms: None });
    /// assert_eq!(book.reported_best().bid.unwrap().to_string(), "0.4");
    /// # Ok::<(), polyclob::fixed::ParseError>(())
    /// ```
    pub fn record_reported_best(&mut self, best: ReportedBest) {
        self.reported = best;
    }

    /// Records the tick a snapshot carries (no new epoch, unlike [`Self::set_tick_size`]).
    pub(crate) fn set_tick_from_snapshot(&mut self, tick: TickSize) {
        self.tick_size = Some(tick);
        self.grid = side::grid(tick.as_micros());
    }

    fn touch(&mut self, timestamp_ms: Option<u64>, now: Instant) {
        self.updates += 1;
        self.last_update = Some(now);
        if timestamp_ms.is_some() {
            self.timestamp_ms = timestamp_ms;
        }
    }

    // ---- queries ----------------------------------------------------------------------------

    /// The best (highest) bid, O(1).
    ///
    /// ```
    /// use polyclob::book::Book;
    /// assert!(Book::new("1").best_bid().is_none());
    /// ```
    #[inline]
    #[must_use]
    pub fn best_bid(&self) -> Option<Level> {
        self.bids.best()
    }

    /// The best (lowest) ask, O(1).
    ///
    /// ```
    /// use polyclob::book::Book;
    /// assert!(Book::new("1").best_ask().is_none());
    /// ```
    #[inline]
    #[must_use]
    pub fn best_ask(&self) -> Option<Level> {
        self.asks.best()
    }

    /// Best ask minus best bid in 10⁻⁶ units; negative when crossed, `None` when a side is empty.
    ///
    /// ```
    /// use polyclob::book::Book;
    /// assert_eq!(Book::new("1").spread_micros(), None);
    /// ```
    #[must_use]
    pub fn spread_micros(&self) -> Option<i64> {
        let (b, a) = (self.best_bid()?, self.best_ask()?);
        Some(i64::from(a.price.as_micros()) - i64::from(b.price.as_micros()))
    }

    /// Midpoint of best bid and best ask, rounded down to 10⁻⁶ (exact for every tick size).
    ///
    /// ```
    /// use polyclob::book::Book;
    /// assert_eq!(Book::new("1").mid(), None);
    /// ```
    #[must_use]
    pub fn mid(&self) -> Option<Price> {
        let (b, a) = (self.best_bid()?, self.best_ask()?);
        Price::new(((u64::from(b.price.as_micros()) + u64::from(a.price.as_micros())) / 2) as u32)
    }

    /// Whether the book is empty, locked, crossed, one-sided or normal.
    ///
    /// ```
    /// use polyclob::book::{BookManager, TopState};
    /// let mut m = BookManager::new();
    /// m.apply(r#"{"event_type":"book","asset_id":"1","market":"m",
    ///   "bids":[{"price":"0.6","size":"1"}],"asks":[{"price":"0.5","size":"1"}]}"#, std::time::Instant::now());
    /// assert_eq!(m.book("1").unwrap().top_state(), TopState::Crossed);
    /// ```
    #[must_use]
    pub fn top_state(&self) -> TopState {
        match (self.best_bid(), self.best_ask()) {
            (None, None) => TopState::Empty,
            (Some(_), None) | (None, Some(_)) => TopState::OneSided,
            (Some(b), Some(a)) => match b.price.cmp(&a.price) {
                core::cmp::Ordering::Less => TopState::Normal,
                core::cmp::Ordering::Equal => TopState::Locked,
                core::cmp::Ordering::Greater => TopState::Crossed,
            },
        }
    }

    /// Whether our top of book differs from the exchange's last reported one
    /// (`best_bid_ask` or a `price_change` entry); `false` when nothing was reported.
    ///
    /// ```
    /// use polyclob::book::Book;
    /// assert!(!Book::new("1").differs_from_reported());
    /// ```
    #[must_use]
    pub fn differs_from_reported(&self) -> bool {
        let r = self.reported;
        if r.bid.is_none() && r.ask.is_none() {
            return false;
        }
        r.bid != self.best_bid().map(|l| l.price) || r.ask != self.best_ask().map(|l| l.price)
    }

    /// The levels of one side, best first. `Side::Buy` = bids, `Side::Sell` = asks.
    ///
    /// ```
    /// use polyclob::book::Book;
    /// use polyclob::types::Side;
    /// assert_eq!(Book::new("1").levels(Side::Buy).count(), 0);
    /// ```
    pub fn levels(&self, side: Side) -> impl ExactSizeIterator<Item = Level> + '_ {
        self.side(side).iter()
    }

    /// The best `n` levels of one side (fewer when the side is shallower).
    ///
    /// ```
    /// use polyclob::book::Book;
    /// use polyclob::types::Side;
    /// assert_eq!(Book::new("1").depth(Side::Sell, 5).count(), 0);
    /// ```
    pub fn depth(&self, side: Side, n: usize) -> impl ExactSizeIterator<Item = Level> + '_ {
        self.levels(side).take(n)
    }

    /// Number of levels on one side.
    ///
    /// ```
    /// use polyclob::book::Book;
    /// use polyclob::types::Side;
    /// assert_eq!(Book::new("1").len(Side::Buy), 0);
    /// ```
    #[must_use]
    pub fn len(&self, side: Side) -> usize {
        self.side(side).len()
    }

    /// Whether both sides are empty.
    ///
    /// ```
    /// use polyclob::book::Book;
    /// assert!(Book::new("1").is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bids.len() == 0 && self.asks.len() == 0
    }

    /// Total size resting on `side` at prices at least as good as `limit` for a taker:
    /// bids priced `>= limit`, asks priced `<= limit`.
    ///
    /// ```
    /// use polyclob::book::BookManager;
    /// use polyclob::types::Side;
    /// let mut m = BookManager::new();
    /// m.apply(r#"{"event_type":"book","asset_id":"1","market":"m","bids":[],
    ///   "asks":[{"price":"0.6","size":"5"},{"price":"0.5","size":"1"}]}"#, std::time::Instant::now());
    /// let book = m.book("1").unwrap();
    /// assert_eq!(book.size_up_to(Side::Sell, "0.55".parse()?).to_string(), "1");
    /// assert_eq!(book.size_up_to(Side::Sell, "0.6".parse()?).to_string(), "6");
    /// # Ok::<(), polyclob::fixed::ParseError>(())
    /// ```
    pub fn size_up_to(&self, side: Side, limit: Price) -> Size {
        let mut total = Size::ZERO;
        for l in self.levels(side) {
            let ok = match side {
                Side::Buy => l.price >= limit,
                Side::Sell => l.price <= limit,
            };
            if !ok {
                break;
            }
            total = total.checked_add(l.size).unwrap_or(Size::MAX);
        }
        total
    }

    /// Walks the opposite side from its best level as a market order of `taker` side would:
    /// a buy consumes asks, a sell consumes bids.
    ///
    /// ```
    /// use polyclob::book::{WalkAmount, BookManager};
    /// use polyclob::types::Side;
    /// let mut m = BookManager::new();
    /// m.apply(r#"{"event_type":"book","asset_id":"1","market":"m","bids":[],
    ///   "asks":[{"price":"0.6","size":"100"},{"price":"0.5","size":"10"}]}"#, std::time::Instant::now());
    /// let fill = m.book("1").unwrap().walk(Side::Buy, WalkAmount::Pusd("11".parse()?));
    /// // 10 shares at 0.5 cost 5; the remaining 6 buy 10 shares at 0.6.
    /// assert_eq!(fill.shares.to_string(), "20");
    /// assert_eq!(fill.cost.to_string(), "11");
    /// assert_eq!(fill.worst_price.unwrap().to_string(), "0.6");
    /// assert!(fill.complete);
    /// # Ok::<(), polyclob::fixed::ParseError>(())
    /// ```
    #[must_use]
    pub fn walk(&self, taker: Side, amount: WalkAmount) -> Fill {
        let mut fill = Fill {
            shares: Size::ZERO,
            cost: Notional::ZERO,
            worst_price: None,
            levels: 0,
            complete: false,
        };
        let mut left_shares = match amount {
            WalkAmount::Shares(s) => s,
            WalkAmount::Pusd(_) => Size::ZERO,
        };
        let mut left_pusd = match amount {
            WalkAmount::Pusd(p) => Notional::from_micros(p.as_micros()),
            WalkAmount::Shares(_) => Notional::ZERO,
        };
        let by_pusd = matches!(amount, WalkAmount::Pusd(_));
        if (by_pusd && left_pusd.is_zero()) || (!by_pusd && left_shares.is_zero()) {
            fill.complete = true;
            return fill;
        }
        for l in self.levels(taker.opposite()) {
            let take = if by_pusd {
                let Some(level_cost) = l.price.checked_mul_size(l.size) else {
                    break;
                };
                if level_cost <= left_pusd {
                    l.size
                } else {
                    left_pusd
                        .checked_div_price_floor(l.price)
                        .unwrap_or(Size::ZERO)
                }
            } else if l.size <= left_shares {
                l.size
            } else {
                left_shares
            };
            if take.is_zero() {
                // Not even one 10⁻⁶ share is affordable at this level: the amount is used up.
                fill.complete = true;
                break;
            }
            let Some(cost) = l.price.checked_mul_size(take) else {
                break;
            };
            fill.shares = fill.shares.checked_add(take).unwrap_or(Size::MAX);
            fill.cost = fill.cost.checked_add(cost).unwrap_or(Notional::MAX);
            fill.worst_price = Some(l.price);
            fill.levels += 1;
            if by_pusd {
                left_pusd = left_pusd.checked_sub(cost).unwrap_or(Notional::ZERO);
                if left_pusd.is_zero() || take < l.size {
                    fill.complete = true;
                    break;
                }
            } else {
                left_shares = left_shares.saturating_sub(take);
                if left_shares.is_zero() {
                    fill.complete = true;
                    break;
                }
            }
        }
        fill
    }

    /// The worst price a market order of `taker` side for `amount` would reach, when the book
    /// can fill it entirely.
    ///
    /// ```
    /// use polyclob::book::{WalkAmount, Book};
    /// use polyclob::types::Side;
    /// assert_eq!(Book::new("1").market_price(Side::Sell, WalkAmount::Shares("1".parse()?)), None);
    /// # Ok::<(), polyclob::fixed::ParseError>(())
    /// ```
    #[must_use]
    pub fn market_price(&self, taker: Side, amount: WalkAmount) -> Option<Price> {
        let f = self.walk(taker, amount);
        if f.complete { f.worst_price } else { None }
    }

    /// Whether deltas are being applied.
    ///
    /// ```
    /// use polyclob::book::{Book, BookState};
    /// assert_ne!(Book::new("1").state(), BookState::Live);
    /// ```
    #[must_use]
    pub fn state(&self) -> BookState {
        self.state
    }

    /// Incremented by each `tick_size_change`.
    ///
    /// ```
    /// use polyclob::book::Book;
    /// assert_eq!(Book::new("1").epoch(), 0);
    /// ```
    #[must_use]
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    /// The current tick size, when known (from a snapshot or a `tick_size_change`).
    ///
    /// ```
    /// use polyclob::book::Book;
    /// assert_eq!(Book::new("1").tick_size(), None);
    /// ```
    #[must_use]
    pub fn tick_size(&self) -> Option<TickSize> {
        self.tick_size
    }

    /// Rounding decimals for the current tick (the rounding table of Polymarket's SDKs), when
    /// the tick is known.
    ///
    /// ```
    /// use polyclob::book::Book;
    /// assert!(Book::new("1").round_config().is_none());
    /// ```
    #[must_use]
    pub fn round_config(&self) -> Option<RoundConfig> {
        self.tick_size.map(TickSize::round_config)
    }

    /// Deltas ignored because the book was awaiting a snapshot.
    ///
    /// ```
    /// use polyclob::book::Book;
    /// assert_eq!(Book::new("1").ignored_deltas(), 0);
    /// ```
    #[must_use]
    pub fn ignored_deltas(&self) -> u64 {
        self.ignored_deltas
    }

    /// Snapshots, deltas and tick changes applied so far.
    ///
    /// ```
    /// use polyclob::book::Book;
    /// assert_eq!(Book::new("1").updates(), 0);
    /// ```
    #[must_use]
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// Exchange timestamp (ms) of the last applied update, when the exchange sent one.
    ///
    /// ```
    /// use polyclob::book::Book;
    /// assert_eq!(Book::new("1").timestamp_ms(), None);
    /// ```
    #[must_use]
    pub fn timestamp_ms(&self) -> Option<u64> {
        self.timestamp_ms
    }

    /// Time since the last applied update, by the caller's monotonic clock; `None` before any.
    ///
    /// ```
    /// use polyclob::book::Book;
    /// use std::time::Instant;
    /// assert_eq!(Book::new("1").age(Instant::now()), None);
    /// ```
    #[must_use]
    pub fn age(&self, now: Instant) -> Option<Duration> {
        self.last_update.map(|t| now.saturating_duration_since(t))
    }

    /// Whether no update arrived within `max_age` (always `true` before the first update).
    ///
    /// ```
    /// use polyclob::book::Book;
    /// use std::time::{Duration, Instant};
    /// assert!(Book::new("1").is_stale(Instant::now(), Duration::from_secs(30)));
    /// ```
    #[must_use]
    pub fn is_stale(&self, now: Instant, max_age: Duration) -> bool {
        self.age(now).is_none_or(|a| a > max_age)
    }

    /// The last recorded trade.
    ///
    /// ```
    /// use polyclob::book::Book;
    /// assert_eq!(Book::new("1").last_trade(), None);
    /// ```
    #[must_use]
    pub fn last_trade(&self) -> Option<LastTrade> {
        self.last_trade
    }

    /// The exchange's last reported top of book.
    ///
    /// ```
    /// use polyclob::book::Book;
    /// assert_eq!(Book::new("1").reported_best().ask, None);
    /// ```
    #[must_use]
    pub fn reported_best(&self) -> ReportedBest {
        self.reported
    }

    /// An owned copy for users who keep it past the next update.
    ///
    /// ```
    /// use polyclob::book::Book;
    /// let snap = Book::new("1").to_snapshot();
    /// assert!(snap.bids.is_empty() && snap.asset_id == "1");
    /// ```
    #[must_use]
    pub fn to_snapshot(&self) -> BookSnapshot {
        BookSnapshot {
            asset_id: self.asset_id.to_string(),
            bids: self.levels(Side::Buy).collect(),
            asks: self.levels(Side::Sell).collect(),
            state: self.state,
            epoch: self.epoch,
            tick_size: self.tick_size,
            timestamp_ms: self.timestamp_ms,
            last_trade: self.last_trade,
        }
    }

    fn side(&self, side: Side) -> &SideLevels {
        match side {
            Side::Buy => &self.bids,
            Side::Sell => &self.asks,
        }
    }
}

/// An owned copy of a book, best levels first on each side.
///
/// ```
/// use polyclob::book::BookManager;
/// let mut m = BookManager::new();
/// m.apply(r#"{"event_type":"book","asset_id":"1","market":"m",
///   "bids":[{"price":"0.1","size":"1"},{"price":"0.2","size":"2"}],"asks":[]}"#, std::time::Instant::now());
/// let snap = m.snapshot("1").unwrap();
/// assert_eq!(snap.bids[0].price.to_string(), "0.2");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookSnapshot {
    /// The asset (token) id.
    pub asset_id: String,
    /// Bids, best (highest) first.
    pub bids: Vec<Level>,
    /// Asks, best (lowest) first.
    pub asks: Vec<Level>,
    /// Whether deltas were being applied.
    pub state: BookState,
    /// Tick-size epoch.
    pub epoch: u32,
    /// Tick size, when known.
    pub tick_size: Option<TickSize>,
    /// Exchange timestamp (ms) of the last update, when sent.
    pub timestamp_ms: Option<u64>,
    /// Last recorded trade.
    pub last_trade: Option<LastTrade>,
}

/// Whether `levels` are already in storage order with no empty level, as the exchange sends a
/// snapshot: one pass that checks both, where the general path below walks them twice.
#[inline]
fn ready(levels: &[Level], descending: bool) -> bool {
    // Asks are stored by descending price: flipping the bits makes both sides ascending.
    let flip = if descending { u32::MAX } else { 0 };
    let Some((first, rest)) = levels.split_first() else {
        return true;
    };
    let mut prev = first.price.as_micros() ^ flip;
    let mut ok = !first.size.is_zero();
    for l in rest {
        let key = l.price.as_micros() ^ flip;
        ok &= (prev < key) & !l.size.is_zero();
        prev = key;
    }
    ok
}

/// Sorts candidate levels into storage order (best last), drops empty levels and rejects
/// duplicate prices. Sorting is skipped when the wire order already matches (the exchange
/// sends worst-first, which is exactly storage order).
#[inline(never)]
fn prepare(
    levels: &mut Vec<Level>,
    descending: bool,
    field: &'static str,
) -> Result<(), DecodeError> {
    let ordered = if descending {
        levels.windows(2).all(|w| w[0].price > w[1].price)
    } else {
        levels.windows(2).all(|w| w[0].price < w[1].price)
    };
    if !ordered {
        if descending {
            levels.sort_unstable_by_key(|l| core::cmp::Reverse(l.price));
        } else {
            levels.sort_unstable_by_key(|l| l.price);
        }
        if levels.windows(2).any(|w| w[0].price == w[1].price) {
            return Err(DecodeError::new(DecodeErrorKind::DuplicateLevel, field, 0));
        }
    }
    // `retain` walks and rewrites every level; a snapshot seldom holds an empty one.
    if levels.iter().any(|l| l.size.is_zero()) {
        levels.retain(|l| !l.size.is_zero());
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The one-pass check equals its definition (strictly in storage order, no empty level)
    /// on short random sides with repeated prices and zero sizes, both directions.
    #[test]
    fn ready_is_storage_order_without_empty_levels() {
        let mut next = crate::testutil::lcg(11);
        let mut both = [0u32; 2];
        for _ in 0..20_000 {
            let len = next(6) as usize;
            let levels: Vec<Level> = (0..len)
                .map(|_| Level {
                    price: Price::new(10_000 * (1 + next(5) as u32)).unwrap(),
                    size: Size::from_micros(next(4)),
                })
                .collect();
            for descending in [false, true] {
                let ordered = levels.windows(2).all(|w| {
                    if descending {
                        w[0].price > w[1].price
                    } else {
                        w[0].price < w[1].price
                    }
                });
                let want = ordered && levels.iter().all(|l| !l.size.is_zero());
                assert_eq!(ready(&levels, descending), want, "{levels:?} {descending}");
                both[usize::from(want)] += 1;
            }
        }
        // Both answers were exercised.
        assert!(both.iter().all(|&n| n > 1_000), "{both:?}");
    }
}
