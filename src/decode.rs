//! Borrowed, allocation-free views of Polymarket WebSocket frames.
//!
//! [`decode`] walks a frame's bytes once with a hand-written scanner and yields one
//! [`EventView`] per JSON object. Every string in an event is a slice of the frame, prices and
//! sizes are parsed straight into [`Price`]/[`Size`] (exact 10⁻⁶), and arrays of levels or
//! changes are lazy iterators over the frame bytes ([`Levels`], [`PriceChanges`], …).
//! No `String` or `Vec` is built per message.
//!
//! Facts implemented (Polymarket docs, *market channel* and *user channel* pages):
//! - a frame is one object or an array of objects; the text frames `PONG` and `NO NEW ASSETS`
//!   are not JSON;
//! - `event_type` may appear anywhere in the object (real captures put it last); user-channel
//!   events may carry only `type` (`TRADE`, `PLACEMENT`, `UPDATE`, `CANCELLATION`);
//! - numbers are strings, `""` stands for "no value", `price_change` entries may lack `size`,
//!   `hash`, `best_bid` and `best_ask`;
//! - unknown event types and unknown fields are skipped.
//!
//! How: a `book` or `price_change` in the exchange's exact layout takes one fast path
//! (`decode/fast.rs`); any other element, or a miss, is read by one general reader from the
//! element's start, with the same result (tested). Levels and entries are read by their
//! exact-layout reader or the general item reader (`decode/lists.rs`). The bytes are
//! walked by the crate's JSON scanner (`src/json/`). Nothing depends on frames decoded earlier.
//!
//! Errors are per element: a malformed event yields an `Err` and the next element of the
//! batch still decodes. Only a broken JSON structure ([`DecodeErrorKind::is_structural`])
//! ends the frame, because nothing after it can be located reliably.
//!
//! ```
//! use polyclob::decode::{decode, EventView};
//!
//! let frame = r#"[{"asset_id":"42","market":"0x1","bids":[{"price":".48","size":"30"}],
//!                 "asks":[],"timestamp":"1700000000000","event_type":"book"},
//!                {"event_type":"settlement_preview"}]"#;
//! let mut events = decode(frame);
//! let Some(Ok(EventView::Book(book))) = events.next() else { panic!("a book") };
//! assert_eq!(book.asset_id, "42");
//! let best = book.bids.clone().next().unwrap()?;
//! assert_eq!(best.price.to_string(), "0.48");
//! assert!(matches!(events.next(), Some(Ok(EventView::Unknown { event_type: "settlement_preview", .. }))));
//! assert!(events.next().is_none());
//! # Ok::<(), polyclob::decode::DecodeError>(())
//! ```

use core::fmt;

use crate::fixed::{ParseError, Price, Size};
use crate::json::decimal::{digits_u64, span_decimal};
use crate::json::{Cursor, HASH_LEN, ID_LEN, MARKET_LEN, Raw, RawKind, TIMESTAMP_LEN, err, sub};
pub use crate::json::{DecodeError, DecodeErrorKind, JsonStr};
use crate::types::{Side, TickSize};

mod events;
mod fast;
mod lists;
mod new_market;
mod owned;

pub use events::{
    BestBidAskMsg, BookMsg, LastTradePriceMsg, MarketMsg, OrderMsg, PriceChangeMsg,
    TickSizeChangeMsg, TradeMsg,
};
pub use lists::{Levels, MakerOrderView, MakerOrders, PriceChange, PriceChanges, StrList};
pub use new_market::NewMarketFields;
pub use owned::OwnedEvent;

/// One price level: a price and the total size resting there.
///
/// ```
/// use polyclob::fixed::{Price, Size};
/// use polyclob::decode::Level;
///
/// let level = Level { price: Price::parse(b"0.48")?, size: Size::parse(b"30")? };
/// assert_eq!(level.price.as_micros(), 480_000);
/// # Ok::<(), polyclob::fixed::ParseError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Level {
    /// Price of the level.
    pub price: Price,
    /// Total size resting at that price (shares).
    pub size: Size,
}

/// One decoded WebSocket event, borrowing from the frame.
///
/// ```
/// use polyclob::decode::{decode, EventView};
/// assert!(matches!(decode("PONG").next(), Some(Ok(EventView::Pong))));
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum EventView<'a> {
    /// `book`: a full snapshot of one asset's book.
    Book(BookMsg<'a>),
    /// `price_change`: level updates, possibly for several assets.
    PriceChange(PriceChangeMsg<'a>),
    /// `tick_size_change`: the asset's tick changed; rounding changes with it.
    TickSizeChange(TickSizeChangeMsg<'a>),
    /// `last_trade_price`: a trade printed.
    LastTradePrice(LastTradePriceMsg<'a>),
    /// `best_bid_ask` (custom feature): the exchange's view of the top of book.
    BestBidAsk(BestBidAskMsg<'a>),
    /// `new_market` (custom feature).
    NewMarket(MarketMsg<'a>),
    /// `market_resolved` (custom feature); [`MarketMsg::winning_asset_id`] is set.
    MarketResolved(MarketMsg<'a>),
    /// User channel `order`.
    Order(OrderMsg<'a>),
    /// User channel `trade`.
    Trade(TradeMsg<'a>),
    /// The text frame `PONG` (answer to a `PING`).
    Pong,
    /// The text frame `NO NEW ASSETS` (a subscribe that added nothing).
    NoNewAssets,
    /// An event type this decoder does not know; skipped without error.
    Unknown {
        /// The `event_type` (or `type`) value, `""` when the object had neither.
        event_type: &'a str,
        /// The element's JSON text.
        json: &'a str,
    },
}

impl<'a> EventView<'a> {
    /// The JSON text of this element (empty for `Pong` / `NoNewAssets`).
    ///
    /// ```
    /// use polyclob::decode::decode;
    /// let frame = r#"[{"event_type":"x"} , {"event_type":"y"}]"#;
    /// let second = decode(frame).nth(1).unwrap()?;
    /// assert_eq!(second.json(), r#"{"event_type":"y"}"#);
    /// # Ok::<(), polyclob::decode::DecodeError>(())
    /// ```
    #[must_use]
    pub fn json(&self) -> &'a str {
        match self {
            Self::Book(m) => m.json,
            Self::PriceChange(m) => m.json,
            Self::TickSizeChange(m) => m.json,
            Self::LastTradePrice(m) => m.json,
            Self::BestBidAsk(m) => m.json,
            Self::NewMarket(m) | Self::MarketResolved(m) => m.json,
            Self::Order(m) => m.json,
            Self::Trade(m) => m.json,
            Self::Pong | Self::NoNewAssets => "",
            Self::Unknown { json, .. } => json,
        }
    }

    /// The wire name of the event (`"book"`, `"price_change"`, …; `"PONG"` for a pong).
    ///
    /// ```
    /// use polyclob::decode::decode;
    /// let e = decode(r#"{"type":"TRADE","event_type":"trade"}"#).next().unwrap();
    /// assert!(e.is_err()); // a trade needs its fields …
    /// assert_eq!(decode("NO NEW ASSETS").next().unwrap()?.name(), "NO NEW ASSETS");
    /// # Ok::<(), polyclob::decode::DecodeError>(())
    /// ```
    #[must_use]
    pub fn name(&self) -> &'a str {
        match self {
            Self::Book(_) => "book",
            Self::PriceChange(_) => "price_change",
            Self::TickSizeChange(_) => "tick_size_change",
            Self::LastTradePrice(_) => "last_trade_price",
            Self::BestBidAsk(_) => "best_bid_ask",
            Self::NewMarket(_) => "new_market",
            Self::MarketResolved(_) => "market_resolved",
            Self::Order(_) => "order",
            Self::Trade(_) => "trade",
            Self::Pong => "PONG",
            Self::NoNewAssets => "NO NEW ASSETS",
            Self::Unknown { event_type, .. } => event_type,
        }
    }

    /// Copies the element into an [`OwnedEvent`] that can outlive the frame.
    ///
    /// ```
    /// use polyclob::decode::{decode, EventView};
    /// let owned = {
    ///     let frame = String::from("PONG");
    ///     decode(&frame).next().unwrap()?.to_owned_event()
    /// };
    /// assert!(matches!(owned.event()?, EventView::Pong));
    /// # Ok::<(), polyclob::decode::DecodeError>(())
    /// ```
    #[must_use]
    pub fn to_owned_event(&self) -> OwnedEvent {
        OwnedEvent::from_event(self)
    }
}

/// Decodes a text frame into its events.
///
/// Returns a lazy iterator: each call to `next` decodes one element. See the
/// [module docs](self) for the error policy.
///
/// ```
/// use polyclob::decode::{decode, EventView};
///
/// let frame = r#"{"event_type":"last_trade_price","asset_id":"7","market":"0x2",
///                "price":"0.456","side":"BUY","size":"219.217767","fee_rate_bps":"0",
///                "timestamp":"1750428146322"}"#;
/// let Some(Ok(EventView::LastTradePrice(t))) = decode(frame).next() else { panic!() };
/// assert_eq!(t.size.map(|s| s.as_micros()), Some(219_217_767));
/// # Ok::<(), polyclob::decode::DecodeError>(())
/// ```
#[must_use]
pub fn decode(frame: &str) -> Events<'_> {
    Events::new(frame)
}

/// Decodes a frame given as bytes, checking that it is UTF-8 first.
///
/// ```
/// use polyclob::decode::{decode_bytes, DecodeErrorKind};
/// assert_eq!(decode_bytes(b"\xff").unwrap_err().kind(), DecodeErrorKind::Utf8);
/// assert!(decode_bytes(b"PONG").is_ok());
/// ```
///
/// # Errors
/// [`DecodeErrorKind::Utf8`] when the bytes are not UTF-8.
pub fn decode_bytes(frame: &[u8]) -> Result<Events<'_>, DecodeError> {
    match core::str::from_utf8(frame) {
        Ok(s) => Ok(Events::new(s)),
        Err(e) => Err(err(DecodeErrorKind::Utf8, "", e.valid_up_to())),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Fail(DecodeError),
    Control(u8),
    Single,
    ArrayFirst,
    ArrayRest,
    Done,
}

/// The events of one frame, decoded one element at a time. Created by [`decode`].
///
/// ```
/// use polyclob::decode::decode;
/// assert_eq!(decode("[]").count(), 0);
/// ```
#[derive(Clone, Debug)]
pub struct Events<'a> {
    cur: Cursor<'a>,
    mode: Mode,
}

/// Receives levels and changes while the decoder walks them, so that a consumer (the book
/// manager) parses each level once instead of skipping it and iterating it again.
pub(crate) trait Sink {
    /// Whether levels and changes are parsed and delivered (`false`: skipped structurally).
    const CAPTURE: bool;
    /// A new element starts: drop anything captured for the previous one.
    fn begin(&mut self);
    /// A level of `bids` (`Side::Buy`) or `asks` (`Side::Sell`).
    fn level(&mut self, side: Side, level: Result<Level, DecodeError>);
    /// An entry of `price_changes`.
    fn change(&mut self, change: Result<PriceChange<'_>, DecodeError>);
}

/// The sink of plain decoding: captures nothing.
#[derive(Debug)]
pub(crate) struct NoSink;

impl Sink for NoSink {
    const CAPTURE: bool = false;
    #[inline]
    fn begin(&mut self) {}
    #[inline]
    fn level(&mut self, _: Side, _: Result<Level, DecodeError>) {}
    #[inline]
    fn change(&mut self, _: Result<PriceChange<'_>, DecodeError>) {}
}

impl<'a> Events<'a> {
    fn new(frame: &'a str) -> Self {
        let mut cur = Cursor::new(frame, 0);
        if u32::try_from(frame.len()).is_err() {
            // Offsets are kept as u32; no exchange frame comes near 4 GiB.
            let e = err(DecodeErrorKind::TooDeep, "", u32::MAX as usize);
            return Self {
                cur,
                mode: Mode::Fail(e),
            };
        }
        let mode = match cur.peek() {
            Some(b'{') => Mode::Single,
            Some(b'[') => {
                cur.pos += 1;
                Mode::ArrayFirst
            }
            _ => match frame.trim() {
                "PONG" => Mode::Control(0),
                "NO NEW ASSETS" => Mode::Control(1),
                _ => Mode::Single,
            },
        };
        Self { cur, mode }
    }

    /// Decodes the next element, handing its levels and changes to `sink` as they are read.
    pub(crate) fn next_with<S: Sink>(
        &mut self,
        sink: &mut S,
    ) -> Option<Result<EventView<'a>, DecodeError>> {
        let mode = self.mode;
        self.mode = Mode::Done;
        match mode {
            Mode::Done => None,
            Mode::Fail(e) => Some(Err(e)),
            Mode::Control(0) => Some(Ok(EventView::Pong)),
            Mode::Control(_) => Some(Ok(EventView::NoNewAssets)),
            Mode::Single => Some(self.element(sink, true)),
            Mode::ArrayFirst | Mode::ArrayRest => {
                let more = if mode == Mode::ArrayFirst {
                    Ok(!self.cur.close_if(b']'))
                } else {
                    self.cur.next_or_close(b']')
                };
                match more {
                    Ok(true) => {}
                    Ok(false) => return None,
                    Err(e) => return Some(Err(e)),
                }
                let r = self.element(sink, false);
                if !matches!(&r, Err(e) if e.kind().is_structural()) {
                    self.mode = Mode::ArrayRest;
                }
                Some(r)
            }
        }
    }

    /// Decodes one object. Semantic errors are reported only after the whole object has been
    /// walked, so the cursor is always at its end unless the error is structural. A `single`
    /// object must end the frame: text after a valid one is a syntax error. (Checked here
    /// rather than by the caller, so that the event is built where the caller returns it
    /// instead of being copied there.)
    #[inline]
    fn element<S: Sink>(
        &mut self,
        sink: &mut S,
        single: bool,
    ) -> Result<EventView<'a>, DecodeError> {
        sink.begin();
        let c = &mut self.cur;
        c.peek();
        let start = c.pos;
        match c.peek() {
            Some(b'{') => c.pos += 1,
            Some(_) => {
                // Not an object: skip it (so a batch can continue) and report it.
                let at = c.pos;
                c.skip(0)?;
                return Err(err(DecodeErrorKind::WrongType, "", at));
            }
            None => return Err(err(DecodeErrorKind::Eof, "", c.pos)),
        }
        if let Some((event, end)) = fast::read(c.src, start, sink) {
            c.pos = end;
            ends_frame(c, single)?;
            return Ok(event);
        }
        // The fast path may have delivered levels or entries before it missed.
        sink.begin();
        general(c, sink, start, single)
    }
}

/// A `single` object must end the frame: text after it is a syntax error.
#[inline(always)]
fn ends_frame(c: &mut Cursor<'_>, single: bool) -> Result<(), DecodeError> {
    if single && c.peek().is_some() {
        return Err(err(DecodeErrorKind::Syntax, "", c.pos));
    }
    Ok(())
}

/// The general reader of one object, any keys in any order, from just after its `{` at
/// `start` (see [`Events::element`] for the error order and `single`).
#[inline(always)]
pub(crate) fn general<'a, S: Sink>(
    c: &mut Cursor<'a>,
    sink: &mut S,
    start: usize,
    single: bool,
) -> Result<EventView<'a>, DecodeError> {
    let mut f = Fields::default();
    if !c.close_if(b'}') {
        loop {
            let key = c.key()?;
            match key {
                b"asset_id" => f.asset_id = c.raw_guess::<ID_LEN>()?,
                b"market" => f.market = c.raw_guess::<MARKET_LEN>()?,
                b"timestamp" => f.timestamp = c.raw_guess::<TIMESTAMP_LEN>()?,
                b"hash" => f.hash = c.raw_guess::<HASH_LEN>()?,
                b"bids" => f.bids = Some(lists::walk_levels(c, Side::Buy, sink)?),
                b"asks" => f.asks = Some(lists::walk_levels(c, Side::Sell, sink)?),
                b"price_changes" => f.price_changes = Some(lists::walk_changes(c, sink)?),
                b"maker_orders" => f.maker_orders = Some(lists::array(c, "maker_orders")?),
                b"assets_ids" => f.assets_ids = Some(lists::array(c, "assets_ids")?),
                b"outcomes" => f.outcomes = Some(lists::array(c, "outcomes")?),
                b"associate_trades" => {
                    f.associate_trades = Some(lists::array(c, "associate_trades")?);
                }
                b"event_message" => {
                    let at = c.pos;
                    c.skip(0)?;
                    f.event_message = c.src.get(at..c.pos);
                }
                _ => match f.slot(key) {
                    Some(r) => *r = c.raw()?,
                    None => c.skip(0)?,
                },
            }
            if !c.next_or_close(b'}')? {
                break;
            }
        }
    }
    let json = sub(c.src, start, c.pos).unwrap_or("");
    if let Err(e) = ends_frame(c, single) {
        // A semantic error in the object comes first, as in an array.
        events::build(c.src, start, json, &f)?;
        return Err(e);
    }
    events::build(c.src, start, json, &f)
}

/// Whether [`general`] reads `key` (some event uses it). The fast path skips a member after
/// the levels or entries whose key is not one of these (a field the exchange added) and
/// misses on any other. Out of the hot path (a member the exchange's layout lacks).
pub(crate) fn is_event_key(key: &[u8]) -> bool {
    Fields::default().slot(key).is_some()
        || matches!(
            key,
            b"bids"
                | b"asks"
                | b"price_changes"
                | b"maker_orders"
                | b"assets_ids"
                | b"outcomes"
                | b"associate_trades"
                | b"event_message"
        )
}

impl<'a> Iterator for Events<'a> {
    type Item = Result<EventView<'a>, DecodeError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.next_with(&mut NoSink)
    }
}

/// Every field the first pass may capture, for any event type. `event_type` may come last, so
/// values are kept raw and converted once the type is known.
#[derive(Default)]
pub(crate) struct Fields<'a> {
    event_type: Raw,
    type_: Raw,
    asset_id: Raw,
    market: Raw,
    timestamp: Raw,
    hash: Raw,
    price: Raw,
    size: Raw,
    side: Raw,
    fee_rate_bps: Raw,
    best_bid: Raw,
    best_ask: Raw,
    spread: Raw,
    old_tick_size: Raw,
    new_tick_size: Raw,
    tick_size: Raw,
    last_trade_price: Raw,
    version: Raw,
    transaction_hash: Raw,
    id: Raw,
    question: Raw,
    slug: Raw,
    description: Raw,
    winning_asset_id: Raw,
    winning_outcome: Raw,
    status: Raw,
    outcome: Raw,
    owner: Raw,
    order_owner: Raw,
    trade_owner: Raw,
    original_size: Raw,
    size_matched: Raw,
    taker_order_id: Raw,
    trader_side: Raw,
    matchtime: Raw,
    last_update: Raw,
    order_type: Raw,
    maker_address: Raw,
    expiration: Raw,
    created_at: Raw,
    bucket_index: Raw,
    /// `Some(Err)`: the array held `null` or was not walked.
    bids: Option<lists::Span>,
    asks: Option<lists::Span>,
    price_changes: Option<lists::Span>,
    maker_orders: Option<Option<usize>>,
    assets_ids: Option<Option<usize>>,
    outcomes: Option<Option<usize>>,
    associate_trades: Option<Option<usize>>,
    event_message: Option<&'a str>,
}

impl Fields<'_> {
    /// Where the scalar member `key` goes (`None`: no event reads such a scalar).
    fn slot(&mut self, key: &[u8]) -> Option<&mut Raw> {
        Some(match key {
            b"event_type" => &mut self.event_type,
            b"type" => &mut self.type_,
            b"asset_id" => &mut self.asset_id,
            b"market" => &mut self.market,
            b"timestamp" => &mut self.timestamp,
            b"hash" => &mut self.hash,
            b"price" => &mut self.price,
            b"size" => &mut self.size,
            b"side" => &mut self.side,
            b"fee_rate_bps" => &mut self.fee_rate_bps,
            b"best_bid" => &mut self.best_bid,
            b"best_ask" => &mut self.best_ask,
            b"spread" => &mut self.spread,
            b"old_tick_size" => &mut self.old_tick_size,
            b"new_tick_size" => &mut self.new_tick_size,
            b"tick_size" => &mut self.tick_size,
            b"last_trade_price" => &mut self.last_trade_price,
            b"version" => &mut self.version,
            b"transaction_hash" => &mut self.transaction_hash,
            b"id" => &mut self.id,
            b"question" => &mut self.question,
            b"slug" => &mut self.slug,
            b"description" => &mut self.description,
            b"winning_asset_id" => &mut self.winning_asset_id,
            b"winning_outcome" => &mut self.winning_outcome,
            b"status" => &mut self.status,
            b"outcome" => &mut self.outcome,
            b"owner" => &mut self.owner,
            b"order_owner" => &mut self.order_owner,
            b"trade_owner" => &mut self.trade_owner,
            b"original_size" => &mut self.original_size,
            b"size_matched" => &mut self.size_matched,
            b"taker_order_id" => &mut self.taker_order_id,
            b"trader_side" => &mut self.trader_side,
            b"matchtime" | b"match_time" => &mut self.matchtime,
            b"last_update" => &mut self.last_update,
            b"order_type" => &mut self.order_type,
            b"maker_address" => &mut self.maker_address,
            b"expiration" => &mut self.expiration,
            b"created_at" => &mut self.created_at,
            b"bucket_index" => &mut self.bucket_index,
            _ => return None,
        })
    }
}

// ---- typed field conversion, shared by events and lists ------------------------------------

/// A verbatim string field (ids, hashes): escapes are an error, not silently kept.
pub(crate) fn req_str<'a>(
    src: &'a str,
    r: &Raw,
    field: &'static str,
) -> Result<&'a str, DecodeError> {
    match r.kind {
        RawKind::Str => Ok(r.text(src)),
        RawKind::Esc => Err(err(DecodeErrorKind::Escaped, field, r.at())),
        RawKind::Missing | RawKind::Null => Err(err(DecodeErrorKind::MissingField, field, r.at())),
        RawKind::Num | RawKind::Other => Err(err(DecodeErrorKind::WrongType, field, r.at())),
    }
}

pub(crate) fn opt_str<'a>(
    src: &'a str,
    r: &Raw,
    field: &'static str,
) -> Result<Option<&'a str>, DecodeError> {
    match r.kind {
        RawKind::Missing | RawKind::Null => Ok(None),
        _ => req_str(src, r, field).map(Some),
    }
}

/// Free text: escapes allowed (unescaped on demand by [`JsonStr`]).
pub(crate) fn opt_text<'a>(
    src: &'a str,
    r: &Raw,
    field: &'static str,
) -> Result<Option<JsonStr<'a>>, DecodeError> {
    match r.kind {
        RawKind::Missing | RawKind::Null => Ok(None),
        RawKind::Str => Ok(Some(JsonStr::new(r.text(src), false, r.at()))),
        RawKind::Esc => Ok(Some(JsonStr::new(r.text(src), true, r.at()))),
        RawKind::Num | RawKind::Other => Err(err(DecodeErrorKind::WrongType, field, r.at())),
    }
}

/// The fast decimal path on a delimited field (see [`span_decimal`]); `None` defers to the
/// `fixed` parsers.
#[inline]
fn fast_micros(src: &str, r: &Raw) -> Option<u64> {
    span_decimal(src.as_bytes(), r.at(), r.at() + r.len as usize)
}

/// Text of a decimal field, or `None` when blank. Bare JSON numbers are accepted too.
fn decimal_text<'a>(
    src: &'a str,
    r: &Raw,
    field: &'static str,
) -> Result<Option<&'a str>, DecodeError> {
    if r.is_blank() {
        return Ok(None);
    }
    match r.kind {
        RawKind::Str | RawKind::Num => Ok(Some(r.text(src))),
        RawKind::Esc => Err(err(DecodeErrorKind::Escaped, field, r.at())),
        _ => Err(err(DecodeErrorKind::WrongType, field, r.at())),
    }
}

pub(crate) fn opt_price(
    src: &str,
    r: &Raw,
    field: &'static str,
) -> Result<Option<Price>, DecodeError> {
    match decimal_text(src, r, field)? {
        None => Ok(None),
        Some(t) => fast_micros(src, r)
            .and_then(|m| Price::new(u32::try_from(m).ok()?))
            .map_or_else(|| Price::parse(t.as_bytes()), Ok)
            .map(Some)
            .map_err(|e| decimal_err(e, field, r)),
    }
}

pub(crate) fn req_price(src: &str, r: &Raw, field: &'static str) -> Result<Price, DecodeError> {
    opt_price(src, r, field)?.ok_or_else(|| err(DecodeErrorKind::MissingField, field, r.at()))
}

pub(crate) fn opt_size(
    src: &str,
    r: &Raw,
    field: &'static str,
) -> Result<Option<Size>, DecodeError> {
    match decimal_text(src, r, field)? {
        None => Ok(None),
        Some(t) => fast_micros(src, r)
            .map(Size::from_micros)
            .map_or_else(|| Size::parse(t.as_bytes()), Ok)
            .map(Some)
            .map_err(|e| decimal_err(e, field, r)),
    }
}

pub(crate) fn req_size(src: &str, r: &Raw, field: &'static str) -> Result<Size, DecodeError> {
    opt_size(src, r, field)?.ok_or_else(|| err(DecodeErrorKind::MissingField, field, r.at()))
}

/// A field whose string names one of a set (`parse`), or `None` when blank.
pub(crate) fn opt_word<T>(
    src: &str,
    r: &Raw,
    field: &'static str,
    parse: fn(&[u8]) -> Option<T>,
) -> Result<Option<T>, DecodeError> {
    if r.is_blank() {
        return Ok(None);
    }
    let t = req_str(src, r, field)?;
    parse(t.as_bytes())
        .map(Some)
        .ok_or_else(|| err(DecodeErrorKind::InvalidValue, field, r.at()))
}

pub(crate) fn req_side(src: &str, r: &Raw, field: &'static str) -> Result<Side, DecodeError> {
    opt_word(src, r, field, Side::parse)?
        .ok_or_else(|| err(DecodeErrorKind::MissingField, field, r.at()))
}

fn opt_tick(src: &str, r: &Raw, field: &'static str) -> Result<Option<TickSize>, DecodeError> {
    match decimal_text(src, r, field)? {
        None => Ok(None),
        Some(t) => TickSize::parse(t.as_bytes())
            .map(Some)
            .ok_or_else(|| err(DecodeErrorKind::InvalidValue, field, r.at())),
    }
}

/// The `fixed` parse error `e` of the value `r` of `field`, at its byte in the frame.
fn decimal_err(e: ParseError, field: &'static str, r: &Raw) -> DecodeError {
    err(
        DecodeErrorKind::Decimal(e.kind()),
        field,
        r.at() + e.offset(),
    )
}

/// An unsigned integer sent as a string or a number (timestamps, basis points). Lenient:
/// anything that is not a plain integer is `None`, because these fields are informational
/// and the user channel mixes epoch seconds with ISO dates.
fn opt_u64(src: &str, r: &Raw) -> Option<u64> {
    if !matches!(r.kind, RawKind::Str | RawKind::Num) || r.len == 0 || r.len > 19 {
        return None;
    }
    digits_u64(src.as_bytes(), r.at as usize, r.len as usize)
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} @ {}", self.size, self.price)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    /// A random JSON value of every type, compact, for a field the exchange might add.
    pub(super) fn value(next: &mut dyn FnMut(u64) -> u64, depth: u32) -> String {
        match if depth > 2 { next(4) } else { next(6) } {
            0 => ["true", "false", "null"][next(3) as usize].to_string(),
            1 => ["0", "-1.5e3", "12", "0.001", "7E+2"][next(5) as usize].to_string(),
            2 => ["\"\"", "\"5\"", "\"a \\\"quoted\\\" word\"", "\"0xabc\""][next(4) as usize]
                .to_string(),
            3 => format!("\"{}\"", "x".repeat(next(40) as usize)),
            4 => {
                let items: Vec<String> = (0..next(4)).map(|_| value(next, depth + 1)).collect();
                format!("[{}]", items.join(","))
            }
            _ => {
                let members: Vec<String> = (0..next(4))
                    .map(|i| format!("\"k{i}\":{}", value(next, depth + 1)))
                    .collect();
                format!("{{{}}}", members.join(","))
            }
        }
    }

    /// A `price_change` message in the exchange's layout around `entries` (each an entry's
    /// text), with a random market and timestamp.
    pub(super) fn exchange_message_of(
        next: &mut dyn FnMut(u64) -> u64,
        entries: &[String],
    ) -> String {
        format!(
            r#"{{"market":"0x{:064x}","price_changes":[{}],"timestamp":"{}","event_type":"price_change"}}"#,
            next(u64::MAX),
            entries.join(","),
            1_790_658_674_035u64 + next(1000),
        )
    }

    /// A `price_change` entry in the exchange's layout with random values; `i` ends its asset
    /// id.
    pub(super) fn exchange_entry(next: &mut dyn FnMut(u64) -> u64, i: usize) -> String {
        format!(
            r#"{{"asset_id":"71321045679252212594626385532706912750332728571942532289631379312455583992{i:02}","price":"0.{}","size":"{}.{}","side":"{}","hash":"{:040x}","best_bid":"0.4{}","best_ask":"0.5{}"}}"#,
            10 + next(89),
            next(100_000),
            next(100),
            if next(2) == 0 { "BUY" } else { "SELL" },
            next(u64::MAX),
            next(10),
            next(10),
        )
    }

    /// A `book` snapshot in the exchange's layout with random values and `levels` levels a
    /// side (sizes of up to ten bytes, as in the captured snapshots).
    pub(super) fn exchange_book(next: &mut dyn FnMut(u64) -> u64, levels: usize) -> String {
        let mut side = |n: usize| -> String {
            let items: Vec<String> = (0..n)
                .map(|_| {
                    format!(
                        r#"{{"price":"0.{}","size":"{}.{}"}}"#,
                        1 + next(998),
                        next(10_000_000),
                        next(100)
                    )
                })
                .collect();
            items.join(",")
        };
        let (bids, asks) = (side(levels), side(levels));
        format!(
            r#"{{"market":"0x{:064x}","asset_id":"713210456792522125946263855327069127503327285719425322896313793124555839925{}","timestamp":"{}","hash":"{:040x}","bids":[{bids}],"asks":[{asks}],"tick_size":"0.001","event_type":"book","last_trade_price":"0.4{}"}}"#,
            next(u64::MAX),
            next(100),
            1_790_658_674_035u64 + next(1000),
            next(u64::MAX),
            next(100),
        )
    }

    /// Splits a compact object's text into its members (no nesting-aware JSON needed: the
    /// generated members are joined with `,"` only at the top level).
    pub(super) fn members(obj: &str) -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(obj).unwrap();
        let map = v.as_object().unwrap();
        // serde_json's map keeps insertion order only with `preserve_order`; rebuild the
        // members from the text instead, in order.
        let mut out = Vec::new();
        let mut depth = 0i32;
        let mut in_str = false;
        let mut esc = false;
        let mut start = 1;
        for (i, ch) in obj.char_indices() {
            if in_str {
                match ch {
                    _ if esc => esc = false,
                    '\\' => esc = true,
                    '"' => in_str = false,
                    _ => {}
                }
                continue;
            }
            match ch {
                '"' => in_str = true,
                '{' | '[' => depth += 1,
                '}' | ']' => {
                    depth -= 1;
                    if depth == 0 {
                        out.push(obj[start..i].to_string());
                    }
                }
                ',' if depth == 1 => {
                    out.push(obj[start..i].to_string());
                    start = i + 1;
                }
                _ => {}
            }
        }
        assert_eq!(out.len(), map.len(), "{obj}");
        out
    }

    /// The `b"…"` keys in `text`, in order of first appearance.
    fn keys(text: &str) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for part in text.split("b\"").skip(1) {
            if let Some(key) = part.split('"').next() {
                if !out.contains(&key) {
                    out.push(key);
                }
            }
        }
        out
    }

    /// `is_event_key` names every key `general` reads, in its own arms or through
    /// `Fields::slot`: a key added to `general` alone would make the fast path skip a field
    /// some event needs.
    #[test]
    fn event_keys_are_the_general_readers_keys() {
        let src = include_str!("decode.rs");
        let text = |from: &str, to: &str| {
            let at = src.find(from).unwrap();
            &src[at..at + src[at..].find(to).unwrap()]
        };
        let read = keys(text("fn general<", "let json = sub("));
        let slots = keys(text("fn slot(&mut self", "_ => return None"));
        assert!(read.len() > 10 && slots.len() > 35, "{read:?} {slots:?}");
        for k in read.iter().chain(&slots) {
            assert!(super::is_event_key(k.as_bytes()), "{k}");
        }
        assert!(!super::is_event_key(b"min_order_size"));
    }
}
