//! Borrowed, allocation-free views of RTDS messages.
//!
//! Every RTDS message is one JSON object `{"topic","type","timestamp","payload"}`
//! ([Polymarket RTDS]); [`decode`] walks it once with the same byte scanner as the market
//! channel's decoder, then reads the payload according to the topic. Strings are slices of
//! the frame, prices are parsed straight into fixed point ([`RefPrice`] for reference
//! prices, [`Price`]/[`Size`] for matched orders), and the snapshot's point list is a lazy
//! iterator. Nothing is allocated.
//!
//! Facts implemented:
//! - topics `crypto_prices` (Binance symbols such as `btcusdt`), `crypto_prices_chainlink`
//!   (`btc/usd`), `crypto_prices_twap_thirty`/`_sixty`, `equity_prices`, `comments`
//!   (`comment_created`, `comment_removed`, `reaction_created`, `reaction_removed`) and
//!   `activity` (`orders_matched`; the `trades` type has the same shape but the feed is off,
//!   real-time-data-client issue #42);
//! - a price `update` carries `symbol`, `timestamp`, `value` (a JSON number), optionally
//!   `full_accuracy_value` (a decimal string, or for Chainlink topics the oracle's E18
//!   integer), `received_at` and `window_s`; the first message after a filtered subscribe
//!   has type `subscribe` and a payload `{symbol, data:[{timestamp, value, full_accuracy_value?}, …]}`,
//!   whose points are read like updates (the exact value when present);
//! - keys may come in any order (the payload may precede the topic); unknown keys are skipped.
//!
//! ```
//! use polyclob::rtds::decode::{decode, Payload};
//!
//! let frame = r#"{"topic":"crypto_prices","type":"update","timestamp":1753314064237,
//!   "payload":{"symbol":"solusdt","timestamp":1753314064213,"value":189.55}}"#;
//! let msg = decode(frame)?;
//! let Payload::Price(p) = msg.payload else { panic!("a price") };
//! assert_eq!((p.symbol, p.price.to_string()), ("solusdt", "189.55".to_owned()));
//! assert_eq!(p.timestamp_ms, Some(1753314064213));
//! # Ok::<(), polyclob::decode::DecodeError>(())
//! ```
//!
//! [Polymarket RTDS]: https://docs.polymarket.com/market-data/websocket/rtds

use crate::decode::{DecodeError, DecodeErrorKind, JsonStr, opt_str, opt_text, req_str};
use crate::fixed::{ParseError, ParseErrorKind, Price, Size};
use crate::json::decimal::digits_u64;
use crate::json::{Cursor, Raw, RawKind, err, sub};
use crate::types::Side;

use super::ref_price::RefPrice;

/// One decoded RTDS message, borrowing from the frame.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Message<'a> {
    /// The topic (`crypto_prices`, `comments`, `activity`, …).
    pub topic: &'a str,
    /// The message type (`update`, `subscribe`, `orders_matched`, `comment_created`, …);
    /// `""` when absent.
    pub kind: &'a str,
    /// When the server sent the message (ms), when present and numeric.
    pub timestamp_ms: Option<u64>,
    /// The `connection_id` some messages carry.
    pub connection_id: Option<&'a str>,
    /// The payload, read according to the topic.
    pub payload: Payload<'a>,
    /// The message's JSON text.
    pub json: &'a str,
}

/// Where a reference price comes from, by topic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PriceSource {
    /// `crypto_prices`: Binance spot (symbols like `btcusdt`).
    Binance,
    /// `crypto_prices_chainlink`: the Chainlink data stream (symbols like `btc/usd`).
    Chainlink,
    /// `crypto_prices_twap_thirty` / `crypto_prices_twap_sixty`: Chainlink time-weighted
    /// averages (see [`PriceUpdate::window_s`]).
    ChainlinkTwap,
    /// `equity_prices` (symbols like `aapl`).
    Equity,
}

impl PriceSource {
    /// The source a topic carries, `None` for topics that are not price feeds.
    ///
    /// ```
    /// use polyclob::rtds::decode::PriceSource;
    /// assert_eq!(PriceSource::of_topic("crypto_prices_twap_sixty"), Some(PriceSource::ChainlinkTwap));
    /// assert_eq!(PriceSource::of_topic("comments"), None);
    /// ```
    #[must_use]
    pub fn of_topic(topic: &str) -> Option<Self> {
        match topic {
            "crypto_prices" => Some(Self::Binance),
            "crypto_prices_chainlink" => Some(Self::Chainlink),
            "equity_prices" => Some(Self::Equity),
            t if t.starts_with("crypto_prices_twap") => Some(Self::ChainlinkTwap),
            _ => None,
        }
    }

    /// Whether `full_accuracy_value` is the oracle's E18 integer on this source.
    fn exact_is_e18(self) -> bool {
        matches!(self, Self::Chainlink | Self::ChainlinkTwap)
    }
}

/// A message's payload.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Payload<'a> {
    /// A price `update` (crypto or equity).
    Price(PriceUpdate<'a>),
    /// The recent-history dump sent after a filtered subscribe (type `subscribe`).
    PriceHistory(PriceHistory<'a>),
    /// An `activity` trade (`orders_matched`, or `trades`).
    Trade(ActivityTrade<'a>),
    /// `comment_created` / `comment_removed`.
    Comment(Comment<'a>),
    /// `reaction_created` / `reaction_removed`.
    Reaction(Reaction<'a>),
    /// A topic or type this decoder does not read; the payload's JSON text (`""` when the
    /// message had none).
    Other(&'a str),
}

/// One price from a price feed.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct PriceUpdate<'a> {
    /// The feed.
    pub source: PriceSource,
    /// The symbol as the feed spells it (`btcusdt`, `btc/usd`, `aapl`).
    pub symbol: &'a str,
    /// The price's own time (ms), when present.
    pub timestamp_ms: Option<u64>,
    /// The best value the message holds: `full_accuracy_value` when present (exact), else
    /// `value`.
    pub price: RefPrice,
    /// `value` as sent (a JSON number, rounded by the server for display).
    pub value: Option<RefPrice>,
    /// `full_accuracy_value`, when sent (decimal, or E18 integer on Chainlink topics).
    pub full_accuracy: Option<RefPrice>,
    /// `window_s` of a TWAP (30 or 60).
    pub window_s: Option<u32>,
    /// `received_at` (ms) of an equity price.
    pub received_at_ms: Option<u64>,
    /// `is_carried_forward` of an equity price (the market is closed; the last value is
    /// repeated).
    pub carried_forward: Option<bool>,
}

/// The history dump after a subscribe: a symbol and its recent points.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct PriceHistory<'a> {
    /// The feed.
    pub source: PriceSource,
    /// The symbol.
    pub symbol: &'a str,
    /// The points, oldest first as sent; read lazily.
    pub points: PricePoints<'a>,
}

/// One point of a [`PriceHistory`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RtdsPricePoint {
    /// Time of the point (ms).
    pub timestamp_ms: u64,
    /// The value: `full_accuracy_value` when the point carries it (exact), else the float
    /// `value`.
    pub value: RefPrice,
}

/// The `data` array of a [`PriceHistory`], read one point at a time without allocating.
///
/// ```
/// use polyclob::rtds::decode::{decode, Payload};
/// let frame = r#"{"topic":"equity_prices","type":"subscribe","timestamp":1,
///   "payload":{"symbol":"aapl","data":[{"timestamp":10,"value":307.91499},{"timestamp":11,"value":307.9}]}}"#;
/// let Payload::PriceHistory(h) = decode(frame)?.payload else { panic!() };
/// let values: Vec<String> = h.points.map(|p| p.map(|p| p.value.to_string())).collect::<Result<_, _>>()?;
/// assert_eq!(values, ["307.91499", "307.9"]);
/// # Ok::<(), polyclob::decode::DecodeError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PricePoints<'a> {
    src: &'a str,
    /// Whether `full_accuracy_value` is the oracle's E18 integer (Chainlink topics).
    e18: bool,
    /// Just inside the `[`, or after the previous point; `None` when done.
    pos: Option<usize>,
    first: bool,
}

impl<'a> PricePoints<'a> {
    /// The points of the array whose `[` is at `open` in `src` (PolyBolt snapshots share this
    /// reader; `e18` as in [`PriceSource`]).
    pub(crate) fn new(src: &'a str, open: usize, e18: bool) -> Self {
        Self {
            src,
            e18,
            pos: Some(open + 1),
            first: true,
        }
    }
}

impl<'a> Iterator for PricePoints<'a> {
    type Item = Result<RtdsPricePoint, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        let pos = self.pos?;
        let mut c = Cursor::new(self.src, pos);
        if self.first {
            self.first = false;
            if c.close_if(b']') {
                self.pos = None;
                return None;
            }
        } else {
            match c.next_or_close(b']') {
                Ok(true) => {}
                Ok(false) => {
                    self.pos = None;
                    return None;
                }
                Err(e) => {
                    self.pos = None;
                    return Some(Err(e));
                }
            }
        }
        let r = point(&mut c, self.e18);
        self.pos = match &r {
            Err(e) if e.kind().is_structural() => None,
            _ => Some(c.pos),
        };
        Some(r)
    }
}

/// One point: `full_accuracy_value` when present (exact; the oracle's E18 integer on
/// Chainlink topics), else the float `value`, exactly as the live updates are read.
fn point(c: &mut Cursor<'_>, e18: bool) -> Result<RtdsPricePoint, DecodeError> {
    let at = c.pos;
    let (mut ts, mut value, mut exact) = (Raw::default(), Raw::default(), Raw::default());
    walk_object(c, "data", |c, key| {
        match key {
            b"timestamp" => ts = c.raw()?,
            b"value" => value = c.raw()?,
            b"full_accuracy_value" => exact = c.raw()?,
            _ => c.skip(0)?,
        }
        Ok(())
    })?;
    let src = c.src;
    let timestamp_ms =
        opt_u64(src, &ts).ok_or_else(|| err(DecodeErrorKind::MissingField, "timestamp", at))?;
    let value = match opt_ref_price(src, &exact, "full_accuracy_value", e18)? {
        Some(v) => v,
        None => opt_ref_price(src, &value, "value", false)?
            .ok_or_else(|| err(DecodeErrorKind::MissingField, "value", at))?,
    };
    Ok(RtdsPricePoint {
        timestamp_ms,
        value,
    })
}

/// A matched order on the `activity` topic.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct ActivityTrade<'a> {
    /// Token id traded (`asset`).
    pub asset: &'a str,
    /// Condition id of the market (`conditionId`).
    pub condition_id: Option<&'a str>,
    /// Market slug (`slug`).
    pub slug: Option<JsonStr<'a>>,
    /// Event slug (`eventSlug`).
    pub event_slug: Option<JsonStr<'a>>,
    /// Event title (`title`).
    pub title: Option<JsonStr<'a>>,
    /// Outcome name (`outcome`).
    pub outcome: Option<JsonStr<'a>>,
    /// Outcome index (`outcomeIndex`).
    pub outcome_index: Option<u64>,
    /// Trade side.
    pub side: Side,
    /// Price (exact to 10⁻⁶; a float with more digits is rounded to the nearest 10⁻⁶).
    pub price: Price,
    /// Size in shares (exact to 10⁻⁶; rounded like `price`).
    pub size: Size,
    /// Trade time as sent (`timestamp`; seconds on the live feed).
    pub timestamp: Option<u64>,
    /// Settlement transaction hash (`transactionHash`).
    pub transaction_hash: Option<&'a str>,
    /// The trader's proxy wallet (`proxyWallet`).
    pub proxy_wallet: Option<&'a str>,
    /// The trader's display name (`name`).
    pub name: Option<JsonStr<'a>>,
    /// The trader's pseudonym (`pseudonym`).
    pub pseudonym: Option<JsonStr<'a>>,
}

/// A comment (`comment_created`, `comment_removed`).
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Comment<'a> {
    /// Comment id (`id`; a string or a number on the wire).
    pub id: &'a str,
    /// Text (`body`).
    pub body: Option<JsonStr<'a>>,
    /// `Event` or `Series` (`parentEntityType`).
    pub parent_entity_type: Option<&'a str>,
    /// Id of the event or series (`parentEntityID`).
    pub parent_entity_id: Option<u64>,
    /// The comment replied to (`parentCommentID`).
    pub parent_comment_id: Option<&'a str>,
    /// Author (`userAddress`).
    pub user_address: Option<&'a str>,
    /// Address replied to (`replyAddress`).
    pub reply_address: Option<&'a str>,
    /// Creation time as sent (`createdAt`, ISO 8601).
    pub created_at: Option<&'a str>,
}

/// A reaction to a comment (`reaction_created`, `reaction_removed`).
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Reaction<'a> {
    /// Reaction id (`id`).
    pub id: &'a str,
    /// The comment reacted to (`commentID`).
    pub comment_id: Option<u64>,
    /// Kind of reaction (`reactionType`).
    pub reaction_type: Option<JsonStr<'a>>,
    /// Icon (`icon`).
    pub icon: Option<JsonStr<'a>>,
    /// Who reacted (`userAddress`).
    pub user_address: Option<&'a str>,
    /// Creation time as sent (`createdAt`).
    pub created_at: Option<&'a str>,
}

/// Decodes one RTDS text frame.
///
/// # Errors
/// [`DecodeError`] when the frame is not one JSON object, has no `topic`, or a payload the
/// decoder reads lacks a required field or holds an invalid value. Unknown topics and types
/// are not errors: they give [`Payload::Other`].
pub fn decode(frame: &str) -> Result<Message<'_>, DecodeError> {
    if u32::try_from(frame.len()).is_err() {
        return Err(err(DecodeErrorKind::TooDeep, "", u32::MAX as usize));
    }
    let mut c = Cursor::new(frame, 0);
    let start = match c.peek() {
        Some(b'{') => c.pos,
        Some(_) => return Err(err(DecodeErrorKind::WrongType, "", c.pos)),
        None => return Err(err(DecodeErrorKind::Eof, "", c.pos)),
    };
    let (mut topic, mut kind, mut ts, mut conn) = Default::default();
    let mut payload: Option<(usize, usize)> = None;
    walk_object(&mut c, "", |c, key| {
        match key {
            b"topic" => topic = c.raw()?,
            b"type" => kind = c.raw()?,
            b"timestamp" => ts = c.raw()?,
            b"connection_id" => conn = c.raw()?,
            b"payload" => {
                let at = c.pos;
                c.skip(0)?;
                payload = Some((at, c.pos));
            }
            _ => c.skip(0)?,
        }
        Ok(())
    })?;
    let end = c.pos;
    if c.peek().is_some() {
        return Err(err(DecodeErrorKind::Syntax, "", c.pos));
    }
    let topic_s = req_str(frame, &topic, "topic")?;
    let kind_s = opt_str(frame, &kind, "type")?.unwrap_or("");
    let payload = match payload {
        Some((a, b)) if frame.as_bytes().get(a) == Some(&b'{') => {
            read_payload(frame, a, b, topic_s, kind_s)?
        }
        Some((a, b)) => Payload::Other(sub(frame, a, b).unwrap_or("")),
        None => Payload::Other(""),
    };
    Ok(Message {
        topic: topic_s,
        kind: kind_s,
        timestamp_ms: opt_u64(frame, &ts),
        connection_id: opt_str(frame, &conn, "connection_id")?,
        payload,
        json: sub(frame, start, end).unwrap_or(""),
    })
}

/// Decodes a frame given as bytes, checking that it is UTF-8 first.
///
/// # Errors
/// [`DecodeErrorKind::Utf8`] for bytes that are not UTF-8, else as [`decode`].
pub fn decode_bytes(frame: &[u8]) -> Result<Message<'_>, DecodeError> {
    match core::str::from_utf8(frame) {
        Ok(s) => decode(s),
        Err(e) => Err(err(DecodeErrorKind::Utf8, "", e.valid_up_to())),
    }
}

/// Walks the object at the cursor (which must be at its `{`), calling `f` with the cursor
/// just after each key's `:`; `f` must consume the value.
pub(crate) fn walk_object<'a>(
    c: &mut Cursor<'a>,
    field: &'static str,
    mut f: impl FnMut(&mut Cursor<'a>, &'a [u8]) -> Result<(), DecodeError>,
) -> Result<(), DecodeError> {
    match c.peek() {
        Some(b'{') => c.pos += 1,
        Some(_) => {
            let at = c.pos;
            c.skip(0)?;
            return Err(err(DecodeErrorKind::WrongType, field, at));
        }
        None => return Err(err(DecodeErrorKind::Eof, field, c.pos)),
    }
    if c.close_if(b'}') {
        return Ok(());
    }
    loop {
        let key = c.key()?;
        f(c, key)?;
        if !c.next_or_close(b'}')? {
            return Ok(());
        }
    }
}

fn read_payload<'a>(
    src: &'a str,
    at: usize,
    end: usize,
    topic: &'a str,
    kind: &'a str,
) -> Result<Payload<'a>, DecodeError> {
    let other = Payload::Other(sub(src, at, end).unwrap_or(""));
    if let Some(source) = PriceSource::of_topic(topic) {
        return read_price(src, at, source);
    }
    match (topic, kind) {
        ("activity", "orders_matched" | "trades") => read_trade(src, at).map(Payload::Trade),
        ("comments", "comment_created" | "comment_removed") => {
            read_comment(src, at).map(Payload::Comment)
        }
        ("comments", "reaction_created" | "reaction_removed") => {
            read_reaction(src, at).map(Payload::Reaction)
        }
        _ => Ok(other),
    }
}

fn read_price(src: &str, at: usize, source: PriceSource) -> Result<Payload<'_>, DecodeError> {
    let mut c = Cursor::new(src, at);
    let (mut symbol, mut ts, mut value, mut exact) = Default::default();
    let (mut window, mut received, mut carried) = Default::default();
    let mut data: Option<usize> = None;
    walk_object(&mut c, "payload", |c, key| {
        match key {
            b"symbol" => symbol = c.raw()?,
            b"timestamp" => ts = c.raw()?,
            b"value" => value = c.raw()?,
            b"full_accuracy_value" => exact = c.raw()?,
            b"window_s" => window = c.raw()?,
            b"received_at" => received = c.raw()?,
            b"is_carried_forward" => carried = c.raw()?,
            b"data" => {
                let a = c.pos;
                match c.peek() {
                    Some(b'[') => {
                        c.skip(0)?;
                        data = Some(a + 1);
                    }
                    _ => {
                        c.skip(0)?;
                        return Err(err(DecodeErrorKind::WrongType, "data", a));
                    }
                }
            }
            _ => c.skip(0)?,
        }
        Ok(())
    })?;
    let symbol = req_str(src, &symbol, "symbol")?;
    if let Some(pos) = data {
        return Ok(Payload::PriceHistory(PriceHistory {
            source,
            symbol,
            points: PricePoints {
                src,
                e18: source.exact_is_e18(),
                pos: Some(pos),
                first: true,
            },
        }));
    }
    let value = opt_ref_price(src, &value, "value", false)?;
    let full_accuracy = opt_ref_price(src, &exact, "full_accuracy_value", source.exact_is_e18())?;
    let price = full_accuracy
        .or(value)
        .ok_or_else(|| err(DecodeErrorKind::MissingField, "value", at))?;
    Ok(Payload::Price(PriceUpdate {
        source,
        symbol,
        timestamp_ms: opt_u64(src, &ts),
        price,
        value,
        full_accuracy,
        window_s: opt_u64(src, &window).and_then(|w| u32::try_from(w).ok()),
        received_at_ms: opt_u64(src, &received),
        carried_forward: opt_bool(src, &carried),
    }))
}

fn read_trade(src: &str, at: usize) -> Result<ActivityTrade<'_>, DecodeError> {
    let mut c = Cursor::new(src, at);
    let mut f: [Raw; 15] = Default::default();
    walk_object(&mut c, "payload", |c, key| {
        let k = match key {
            b"asset" => 0,
            b"conditionId" => 1,
            b"slug" => 2,
            b"eventSlug" => 3,
            b"title" => 4,
            b"outcome" => 5,
            b"outcomeIndex" => 6,
            b"side" => 7,
            b"price" => 8,
            b"size" => 9,
            b"timestamp" => 10,
            b"transactionHash" => 11,
            b"proxyWallet" => 12,
            b"name" => 13,
            b"pseudonym" => 14,
            _ => return c.skip(0),
        };
        f[k] = c.raw()?;
        Ok(())
    })?;
    let missing = |r: &Raw, name| {
        if r.is_blank() {
            Err(err(DecodeErrorKind::MissingField, name, at))
        } else {
            Ok(())
        }
    };
    missing(&f[0], "asset")?;
    missing(&f[7], "side")?;
    missing(&f[8], "price")?;
    missing(&f[9], "size")?;
    let side_text = req_str(src, &f[7], "side")?;
    let side = Side::parse(side_text.as_bytes())
        .ok_or_else(|| err(DecodeErrorKind::InvalidValue, "side", f[7].at()))?;
    let price = Price::new(
        u32::try_from(lenient_micros(src, &f[8], "price")?).map_err(|_| {
            err(
                DecodeErrorKind::Decimal(ParseErrorKind::OutOfRange),
                "price",
                f[8].at(),
            )
        })?,
    )
    .ok_or_else(|| {
        err(
            DecodeErrorKind::Decimal(ParseErrorKind::OutOfRange),
            "price",
            f[8].at(),
        )
    })?;
    Ok(ActivityTrade {
        asset: token(src, &f[0], "asset")?.unwrap_or(""),
        condition_id: opt_str(src, &f[1], "conditionId")?,
        slug: opt_text(src, &f[2], "slug")?,
        event_slug: opt_text(src, &f[3], "eventSlug")?,
        title: opt_text(src, &f[4], "title")?,
        outcome: opt_text(src, &f[5], "outcome")?,
        outcome_index: opt_u64(src, &f[6]),
        side,
        price,
        size: Size::from_micros(lenient_micros(src, &f[9], "size")?),
        timestamp: opt_u64(src, &f[10]),
        transaction_hash: opt_str(src, &f[11], "transactionHash")?,
        proxy_wallet: opt_str(src, &f[12], "proxyWallet")?,
        name: opt_text(src, &f[13], "name")?,
        pseudonym: opt_text(src, &f[14], "pseudonym")?,
    })
}

fn read_comment(src: &str, at: usize) -> Result<Comment<'_>, DecodeError> {
    let mut c = Cursor::new(src, at);
    let mut f: [Raw; 8] = Default::default();
    walk_object(&mut c, "payload", |c, key| {
        let k = match key {
            b"id" => 0,
            b"body" => 1,
            b"parentEntityType" => 2,
            b"parentEntityID" => 3,
            b"parentCommentID" => 4,
            b"userAddress" => 5,
            b"replyAddress" => 6,
            b"createdAt" => 7,
            _ => return c.skip(0),
        };
        f[k] = c.raw()?;
        Ok(())
    })?;
    Ok(Comment {
        id: token(src, &f[0], "id")?.ok_or_else(|| err(DecodeErrorKind::MissingField, "id", at))?,
        body: opt_text(src, &f[1], "body")?,
        parent_entity_type: opt_str(src, &f[2], "parentEntityType")?,
        parent_entity_id: opt_u64(src, &f[3]),
        parent_comment_id: token(src, &f[4], "parentCommentID")?,
        user_address: opt_str(src, &f[5], "userAddress")?,
        reply_address: opt_str(src, &f[6], "replyAddress")?,
        created_at: opt_str(src, &f[7], "createdAt")?,
    })
}

fn read_reaction(src: &str, at: usize) -> Result<Reaction<'_>, DecodeError> {
    let mut c = Cursor::new(src, at);
    let mut f: [Raw; 6] = Default::default();
    walk_object(&mut c, "payload", |c, key| {
        let k = match key {
            b"id" => 0,
            b"commentID" => 1,
            b"reactionType" => 2,
            b"icon" => 3,
            b"userAddress" => 4,
            b"createdAt" => 5,
            _ => return c.skip(0),
        };
        f[k] = c.raw()?;
        Ok(())
    })?;
    Ok(Reaction {
        id: token(src, &f[0], "id")?.ok_or_else(|| err(DecodeErrorKind::MissingField, "id", at))?,
        comment_id: opt_u64(src, &f[1]),
        reaction_type: opt_text(src, &f[2], "reactionType")?,
        icon: opt_text(src, &f[3], "icon")?,
        user_address: opt_str(src, &f[4], "userAddress")?,
        created_at: opt_str(src, &f[5], "createdAt")?,
    })
}

// ---- field conversion ------------------------------------------------------------------------

/// An id sent as a string or a number.
fn token<'a>(src: &'a str, r: &Raw, field: &'static str) -> Result<Option<&'a str>, DecodeError> {
    if r.kind == RawKind::Num {
        Ok(Some(r.text(src)))
    } else {
        opt_str(src, r, field)
    }
}

/// An unsigned integer sent as a string or a number; anything else is `None` (informational
/// fields).
pub(crate) fn opt_u64(src: &str, r: &Raw) -> Option<u64> {
    if !matches!(r.kind, RawKind::Str | RawKind::Num) || r.len == 0 || r.len > 19 {
        return None;
    }
    digits_u64(src.as_bytes(), r.at(), r.len as usize)
}

pub(crate) fn opt_bool(src: &str, r: &Raw) -> Option<bool> {
    match (r.kind, src.as_bytes().get(r.at())) {
        (RawKind::Other, Some(b't')) => Some(true),
        (RawKind::Other, Some(b'f')) => Some(false),
        _ => None,
    }
}

fn dec_err(e: ParseError, field: &'static str, r: &Raw) -> DecodeError {
    err(
        DecodeErrorKind::Decimal(e.kind()),
        field,
        r.at() + e.offset(),
    )
}

/// The decimal text of a number or numeric string; `None` when blank.
fn number_text<'a>(
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

/// A reference price: decimal text, or with `e18` an all-digit string read as raw 10⁻¹⁸ units.
pub(crate) fn opt_ref_price(
    src: &str,
    r: &Raw,
    field: &'static str,
    e18: bool,
) -> Result<Option<RefPrice>, DecodeError> {
    let Some(t) = number_text(src, r, field)? else {
        return Ok(None);
    };
    if e18 && r.kind == RawKind::Str && t.bytes().all(|b| b.is_ascii_digit()) {
        return t
            .parse::<u128>()
            .map(|u| Some(RefPrice::from_e18(u)))
            .map_err(|_| {
                err(
                    DecodeErrorKind::Decimal(ParseErrorKind::Overflow),
                    field,
                    r.at(),
                )
            });
    }
    RefPrice::parse(t.as_bytes())
        .map(Some)
        .map_err(|e| dec_err(e, field, r))
}

/// Micro-units of a price or size sent as a JSON number: exact when it has at most six
/// decimals, else rounded half-up to the nearest 10⁻⁶ (floats carry binary noise such as
/// `0.30000000000000004`).
fn lenient_micros(src: &str, r: &Raw, field: &'static str) -> Result<u64, DecodeError> {
    let t = number_text(src, r, field)?
        .ok_or_else(|| err(DecodeErrorKind::MissingField, field, r.at()))?;
    match crate::fixed::parse_micros(t.as_bytes()) {
        Ok(v) => Ok(v),
        Err(e)
            if matches!(
                e.kind(),
                ParseErrorKind::TooPrecise | ParseErrorKind::Exponent
            ) =>
        {
            let v = RefPrice::parse(t.as_bytes()).map_err(|e| dec_err(e, field, r))?;
            let units = v.as_e18() / 1_000_000_000_000;
            let rounded = units + u128::from(v.as_e18() % 1_000_000_000_000 >= 500_000_000_000);
            u64::try_from(rounded).map_err(|_| {
                err(
                    DecodeErrorKind::Decimal(ParseErrorKind::Overflow),
                    field,
                    r.at(),
                )
            })
        }
        Err(e) => Err(dec_err(e, field, r)),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn envelope_in_any_order_and_unknown_keys() {
        let f = r#"{"payload":{"value":1.5,"symbol":"btc/usd","timestamp":7,"x":[1,{"y":2}]},
            "seq":3,"type":"update","topic":"crypto_prices_chainlink","timestamp":"9"}"#;
        let m = decode(f).unwrap();
        assert_eq!(
            (m.topic, m.kind, m.timestamp_ms),
            ("crypto_prices_chainlink", "update", Some(9))
        );
        let Payload::Price(p) = m.payload else {
            panic!()
        };
        assert_eq!(p.source, PriceSource::Chainlink);
        assert_eq!(p.price.to_string(), "1.5");
        assert_eq!(p.full_accuracy, None);
        assert_eq!(m.json, f);
    }

    #[test]
    fn chainlink_exact_value_is_e18() {
        let f = r#"{"topic":"crypto_prices_twap_sixty","type":"update","timestamp":1,
            "payload":{"symbol":"btc/usd","timestamp":2,"value":64997.81,
            "full_accuracy_value":"64997810000000000000001","window_s":60}}"#;
        let Payload::Price(p) = decode(f).unwrap().payload else {
            panic!()
        };
        assert_eq!(p.price.as_e18(), 64_997_810_000_000_000_000_001);
        assert_eq!(p.value.unwrap().to_string(), "64997.81");
        assert_eq!(p.window_s, Some(60));
        // On Binance the exact value is a decimal string.
        let f = r#"{"topic":"crypto_prices","type":"update","payload":{"symbol":"btcusdt",
            "value":61035.86,"full_accuracy_value":"61035.86000000"}}"#;
        let Payload::Price(p) = decode(f).unwrap().payload else {
            panic!()
        };
        assert_eq!(p.price, RefPrice::parse(b"61035.86").unwrap());
    }

    #[test]
    fn orders_matched() {
        let f = r#"{"topic":"activity","type":"orders_matched","timestamp":1,"payload":{
            "asset":"7604","conditionId":"0x31","eventSlug":"e","slug":"s","outcome":"Yes",
            "outcomeIndex":0,"price":0.30000000000000004,"side":"BUY","size":12.5,
            "timestamp":1766790415,"title":"T \"q\"","transactionHash":"0xab","proxyWallet":"0xcd"}}"#;
        let Payload::Trade(t) = decode(f).unwrap().payload else {
            panic!()
        };
        assert_eq!(t.asset, "7604");
        assert_eq!(t.price.as_micros(), 300_000);
        assert_eq!(t.size.as_micros(), 12_500_000);
        assert_eq!(t.side, Side::Buy);
        assert_eq!(t.title.unwrap().to_unescaped().unwrap(), "T \"q\"");
        assert_eq!(t.outcome_index, Some(0));
        let bad = f.replace("\"BUY\"", "\"HOLD\"");
        assert_eq!(decode(&bad).unwrap_err().field(), "side");
        let bad = f.replace("0.30000000000000004", "1.5");
        assert_eq!(decode(&bad).unwrap_err().field(), "price");
    }

    #[test]
    fn comments_and_reactions() {
        let f = r#"{"topic":"comments","type":"comment_created","timestamp":1,"payload":{
            "id":"1763355","body":"hi","parentEntityType":"Event","parentEntityID":100,
            "userAddress":"0xab","createdAt":"2025-01-01T00:00:00Z"}}"#;
        let Payload::Comment(c) = decode(f).unwrap().payload else {
            panic!()
        };
        assert_eq!((c.id, c.parent_entity_id), ("1763355", Some(100)));
        let f = r#"{"topic":"comments","type":"reaction_created","payload":{"id":5,"commentID":9,"reactionType":"HEART"}}"#;
        let Payload::Reaction(r) = decode(f).unwrap().payload else {
            panic!()
        };
        assert_eq!((r.id, r.comment_id), ("5", Some(9)));
    }

    #[test]
    fn errors_are_typed() {
        for (f, kind) in [
            ("", DecodeErrorKind::Eof),
            ("PONG", DecodeErrorKind::WrongType),
            ("[]", DecodeErrorKind::WrongType),
            (r#"{"type":"update"}"#, DecodeErrorKind::MissingField),
            (r#"{"topic":"x"} x"#, DecodeErrorKind::Syntax),
            (r#"{"topic":"x","#, DecodeErrorKind::Eof),
            (
                r#"{"topic":"crypto_prices","payload":{"symbol":"a"}}"#,
                DecodeErrorKind::MissingField,
            ),
            (
                r#"{"topic":"crypto_prices","payload":{"symbol":"a","value":-1}}"#,
                DecodeErrorKind::Decimal(ParseErrorKind::Sign),
            ),
            (
                r#"{"topic":"crypto_prices","payload":{"symbol":"a","data":{}}}"#,
                DecodeErrorKind::WrongType,
            ),
        ] {
            assert_eq!(decode(f).unwrap_err().kind(), kind, "{f}");
        }
        // Unknown topics and non-object payloads are not errors.
        assert!(matches!(
            decode(r#"{"topic":"x","payload":{"a":1}}"#)
                .unwrap()
                .payload,
            Payload::Other(r#"{"a":1}"#)
        ));
        assert!(matches!(
            decode(r#"{"topic":"crypto_prices","payload":null}"#)
                .unwrap()
                .payload,
            Payload::Other("null")
        ));
    }

    /// The issue's TWAP point: the float `value` is the rounded display, the exact price is
    /// the E18 `full_accuracy_value`, in snapshots as in updates.
    #[test]
    fn history_points_are_exact() {
        let f = r#"{"topic":"crypto_prices_twap_thirty","type":"subscribe","timestamp":1,
            "payload":{"symbol":"btc/usd","data":[{"timestamp":1753314060000,
            "value":79696.84099457346,"full_accuracy_value":"79696840994573453885440"},
            {"timestamp":1753314061000,"value":79697.5}]}}"#;
        let Payload::PriceHistory(h) = decode(f).unwrap().payload else {
            panic!()
        };
        let pts: Vec<RtdsPricePoint> = h.points.map(Result::unwrap).collect();
        assert_eq!(pts[0].value.as_e18(), 79_696_840_994_573_453_885_440);
        assert_eq!(pts[0].value.to_string(), "79696.84099457345388544");
        assert_eq!(
            pts[1].value.to_string(),
            "79697.5",
            "no exact value: the float"
        );
        // On Binance the exact value is a decimal string, not E18.
        let f = r#"{"topic":"crypto_prices","type":"subscribe","payload":{"symbol":"btcusdt",
            "data":[{"timestamp":1,"value":61035.86,"full_accuracy_value":"61035.86000001"}]}}"#;
        let Payload::PriceHistory(h) = decode(f).unwrap().payload else {
            panic!()
        };
        let p = h.points.map(Result::unwrap).next().unwrap();
        assert_eq!(p.value.to_string(), "61035.86000001");
        // A bad exact value is an error, not a silent fallback to the float.
        let f = r#"{"topic":"crypto_prices_chainlink","type":"subscribe","payload":{"symbol":"btc/usd",
            "data":[{"timestamp":1,"value":1.5,"full_accuracy_value":"-1"}]}}"#;
        let Payload::PriceHistory(mut h) = decode(f).unwrap().payload else {
            panic!()
        };
        assert_eq!(
            h.points.next().unwrap().unwrap_err().field(),
            "full_accuracy_value"
        );
    }

    #[test]
    fn history_points_stop_at_a_bad_point() {
        let f = r#"{"topic":"crypto_prices","type":"subscribe","payload":{"symbol":"btcusdt",
            "data":[{"timestamp":1,"value":2},{"value":3},{"timestamp":4,"value":5}]}}"#;
        let Payload::PriceHistory(h) = decode(f).unwrap().payload else {
            panic!()
        };
        let got: Vec<_> = h.points.map(|p| p.map(|p| p.timestamp_ms)).collect();
        assert_eq!(got.len(), 3);
        assert_eq!(got[0], Ok(1));
        assert!(got[1].is_err());
        assert_eq!(got[2], Ok(4));
    }
}
