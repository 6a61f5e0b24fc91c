//! The typed event views and the conversion from the first pass's raw fields.

use super::lists::{Levels, MakerOrders, PriceChanges, StrList};
use super::{
    EventView, Fields, opt_price, opt_size, opt_str, opt_text, opt_tick, opt_u64, opt_word,
    req_price, req_side, req_size, req_str,
};
use crate::fixed::{Price, Size};
use crate::json::{DecodeError, DecodeErrorKind, JsonStr, Raw, RawKind, err};
use crate::types::{OrderType, Side, TickSize};

/// A `book` message: a full snapshot of one asset's order book.
///
/// ```
/// use polyclob::decode::{decode, EventView};
/// let frame = r#"{"event_type":"book","asset_id":"9","market":"0xab","timestamp":"123",
///   "hash":"0x0","bids":[{"price":".48","size":"30"}],"asks":[{"price":".52","size":"25"}]}"#;
/// let Some(Ok(EventView::Book(b))) = decode(frame).next() else { panic!() };
/// assert_eq!((b.asset_id, b.market, b.timestamp_ms, b.hash), ("9", "0xab", Some(123), Some("0x0")));
/// assert_eq!(b.asks.map(|l| l.unwrap().size.to_string()).collect::<Vec<_>>(), ["25"]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct BookMsg<'a> {
    /// Token id of the asset.
    pub asset_id: &'a str,
    /// Condition id of the market.
    pub market: &'a str,
    /// Exchange timestamp in milliseconds, when present and numeric.
    pub timestamp_ms: Option<u64>,
    /// Book hash, when sent.
    pub hash: Option<&'a str>,
    /// Bid levels in wire order (usually worst-first).
    pub bids: Levels<'a>,
    /// Ask levels in wire order (usually worst-first).
    pub asks: Levels<'a>,
    /// Tick size, when the snapshot carries it.
    pub tick_size: Option<TickSize>,
    /// Last trade price, when the snapshot carries it.
    pub last_trade_price: Option<Price>,
    /// `version` as sent: `"v2"` on Protocol V2 books ([`crate::types::Protocol::parse`]).
    pub version: Option<&'a str>,
    /// The element's JSON text.
    pub json: &'a str,
}

/// A `price_change` message: new level sizes, possibly for both tokens of a market.
///
/// ```
/// use polyclob::decode::{decode, EventView};
/// let frame = r#"{"event_type":"price_change","market":"m","timestamp":"5","price_changes":[
///   {"asset_id":"a","price":"0.5","size":"200","side":"BUY"},
///   {"asset_id":"b","price":"0.5","size":"0","side":"SELL"}]}"#;
/// let Some(Ok(EventView::PriceChange(pc))) = decode(frame).next() else { panic!() };
/// assert_eq!(pc.changes.filter_map(Result::ok).map(|c| c.asset_id).collect::<Vec<_>>(), ["a", "b"]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PriceChangeMsg<'a> {
    /// Condition id of the market.
    pub market: &'a str,
    /// Exchange timestamp in milliseconds, when present and numeric.
    pub timestamp_ms: Option<u64>,
    /// The entries, read lazily.
    pub changes: PriceChanges<'a>,
    /// The element's JSON text.
    pub json: &'a str,
}

/// A `tick_size_change` message.
///
/// ```
/// use polyclob::types::TickSize;
/// use polyclob::decode::{decode, EventView};
/// let frame = r#"{"event_type":"tick_size_change","asset_id":"a","market":"m",
///   "old_tick_size":"0.01","new_tick_size":"0.001","timestamp":"1"}"#;
/// let Some(Ok(EventView::TickSizeChange(t))) = decode(frame).next() else { panic!() };
/// assert_eq!((t.old_tick_size, t.new_tick_size), (Some(TickSize::Hundredth), TickSize::Thousandth));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TickSizeChangeMsg<'a> {
    /// Token id of the asset.
    pub asset_id: &'a str,
    /// Condition id of the market, when sent.
    pub market: Option<&'a str>,
    /// The previous tick, when sent.
    pub old_tick_size: Option<TickSize>,
    /// The new tick.
    pub new_tick_size: TickSize,
    /// Exchange timestamp in milliseconds, when present and numeric.
    pub timestamp_ms: Option<u64>,
    /// The element's JSON text.
    pub json: &'a str,
}

/// A `last_trade_price` message.
///
/// ```
/// use polyclob::decode::{decode, EventView};
/// let frame = r#"{"event_type":"last_trade_price","asset_id":"a","price":"0.63","side":"",
///   "size":""}"#;
/// let Some(Ok(EventView::LastTradePrice(t))) = decode(frame).next() else { panic!() };
/// assert_eq!((t.price.as_micros(), t.side, t.size), (630_000, None, None));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct LastTradePriceMsg<'a> {
    /// Token id of the asset.
    pub asset_id: &'a str,
    /// Condition id of the market, when sent.
    pub market: Option<&'a str>,
    /// Trade price.
    pub price: Price,
    /// Taker side, when sent.
    pub side: Option<Side>,
    /// Trade size, when sent.
    pub size: Option<Size>,
    /// Fee rate in basis points, when sent.
    pub fee_rate_bps: Option<u64>,
    /// On-chain transaction hash, when sent.
    pub transaction_hash: Option<&'a str>,
    /// Exchange timestamp in milliseconds, when present and numeric.
    pub timestamp_ms: Option<u64>,
    /// The element's JSON text.
    pub json: &'a str,
}

/// A `best_bid_ask` message (custom feature).
///
/// ```
/// use polyclob::decode::{decode, EventView};
/// let frame = r#"{"event_type":"best_bid_ask","market":"m","asset_id":"a","best_bid":"0.73",
///   "best_ask":"0.77","spread":"0.04","timestamp":"1766789469958"}"#;
/// let Some(Ok(EventView::BestBidAsk(q))) = decode(frame).next() else { panic!() };
/// assert_eq!(q.spread.map(|p| p.as_micros()), Some(40_000));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct BestBidAskMsg<'a> {
    /// Token id of the asset.
    pub asset_id: &'a str,
    /// Condition id of the market, when sent.
    pub market: Option<&'a str>,
    /// Best bid, `None` when the bid side is empty or the field is blank.
    pub best_bid: Option<Price>,
    /// Best ask, `None` when the ask side is empty or the field is blank.
    pub best_ask: Option<Price>,
    /// Spread as sent by the exchange.
    pub spread: Option<Price>,
    /// Exchange timestamp in milliseconds, when present and numeric.
    pub timestamp_ms: Option<u64>,
    /// The element's JSON text.
    pub json: &'a str,
}

/// A `new_market` or `market_resolved` message (custom feature).
///
/// ```
/// use polyclob::decode::{decode, EventView};
/// let frame = r#"{"event_type":"market_resolved","market":"0x1","question":"Will \"X\" win?",
///   "assets_ids":["7","8"],"outcomes":["Yes","No"],"winning_asset_id":"7","winning_outcome":"Yes"}"#;
/// let Some(Ok(EventView::MarketResolved(m))) = decode(frame).next() else { panic!() };
/// assert_eq!(m.question.unwrap().to_unescaped()?, r#"Will "X" win?"#);
/// assert_eq!(m.winning_asset_id, Some("7"));
/// # Ok::<(), polyclob::decode::DecodeError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct MarketMsg<'a> {
    /// Gamma market id, when sent (string or number on the wire).
    pub id: Option<&'a str>,
    /// Condition id of the market.
    pub market: &'a str,
    /// The question, when sent.
    pub question: Option<JsonStr<'a>>,
    /// URL slug, when sent.
    pub slug: Option<JsonStr<'a>>,
    /// Description, when sent.
    pub description: Option<JsonStr<'a>>,
    /// Token ids of the market's outcomes.
    pub assets_ids: StrList<'a>,
    /// Outcome names, in the order of `assets_ids`.
    pub outcomes: StrList<'a>,
    /// The raw JSON of `event_message`, when sent.
    pub event_message: Option<&'a str>,
    /// The winning token id (`market_resolved` only).
    pub winning_asset_id: Option<&'a str>,
    /// The winning outcome name (`market_resolved` only).
    pub winning_outcome: Option<JsonStr<'a>>,
    /// Exchange timestamp in milliseconds, when present and numeric.
    pub timestamp_ms: Option<u64>,
    /// The element's JSON text.
    pub json: &'a str,
}

/// A user-channel `order` event (placement, update or cancellation).
///
/// ```
/// use polyclob::decode::{decode, EventView};
/// let frame = r#"{"id":"0x78","asset_id":"256","side":"BUY","original_size":"12",
///   "size_matched":"","price":"0.6","outcome":"","type":"CANCELLATION",
///   "status":"CANCELED_order couldn't be fully filled.","timestamp":"1777824065000",
///   "event_type":"order"}"#;
/// let Some(Ok(EventView::Order(o))) = decode(frame).next() else { panic!() };
/// assert_eq!(o.size_matched, None);
/// assert!(o.is_canceled());
/// assert_eq!(o.cancel_reason().unwrap().as_str(), Some("order couldn't be fully filled."));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct OrderMsg<'a> {
    /// Order id.
    pub id: &'a str,
    /// `PLACEMENT`, `UPDATE` or `CANCELLATION`, when sent.
    pub kind: Option<&'a str>,
    /// Condition id of the market, when sent.
    pub market: Option<&'a str>,
    /// Token id of the asset.
    pub asset_id: &'a str,
    /// Order side.
    pub side: Side,
    /// Limit price.
    pub price: Price,
    /// Original size, when sent and non-blank.
    pub original_size: Option<Size>,
    /// Size matched so far, when sent and non-blank (`""` on killed FOK orders).
    pub size_matched: Option<Size>,
    /// Outcome name, when sent.
    pub outcome: Option<JsonStr<'a>>,
    /// API key of the order owner, when sent.
    pub owner: Option<&'a str>,
    /// Status (`LIVE`, `MATCHED`, `DELAYED`, `UNMATCHED`, `CANCELED`, `CANCELED_<reason>`,
    /// …), when sent; kept as text so that new names pass through.
    pub status: Option<JsonStr<'a>>,
    /// Order type, when sent.
    pub order_type: Option<OrderType>,
    /// Maker address, when sent.
    pub maker_address: Option<&'a str>,
    /// Expiration (seconds), when sent and numeric.
    pub expiration: Option<u64>,
    /// Creation time as sent (numeric), when present.
    pub created_at: Option<u64>,
    /// Trade ids associated with the order (empty when `null` or absent).
    pub associate_trades: StrList<'a>,
    /// Timestamp as sent (numeric), when present.
    pub timestamp: Option<u64>,
    /// The element's JSON text.
    pub json: &'a str,
}

impl<'a> OrderMsg<'a> {
    /// Whether the status is a cancellation (`CANCELED` or `CANCELED_<reason>`).
    ///
    /// ```
    /// use polyclob::decode::{decode, EventView};
    /// let f = r#"{"event_type":"order","id":"1","asset_id":"2","side":"SELL","price":"0.5","status":"LIVE"}"#;
    /// let Some(Ok(EventView::Order(o))) = decode(f).next() else { panic!() };
    /// assert!(!o.is_canceled());
    /// ```
    #[must_use]
    pub fn is_canceled(&self) -> bool {
        self.status
            .is_some_and(|s| s.raw().starts_with("CANCELED") || s.raw().starts_with("CANCELLED"))
    }

    /// The reason suffix of a `CANCELED_<reason>` status.
    ///
    /// ```
    /// use polyclob::decode::{decode, EventView};
    /// let f = r#"{"event_type":"order","id":"1","asset_id":"2","side":"SELL","price":"0.5","status":"CANCELED"}"#;
    /// let Some(Ok(EventView::Order(o))) = decode(f).next() else { panic!() };
    /// assert!(o.is_canceled() && o.cancel_reason().is_none());
    /// ```
    #[must_use]
    pub fn cancel_reason(&self) -> Option<JsonStr<'a>> {
        let s = self.status?;
        let rest = s.raw().strip_prefix("CANCELED_")?;
        Some(JsonStr::from_raw(rest))
    }
}

/// A user-channel `trade` event.
///
/// ```
/// use polyclob::decode::{decode, EventView};
/// let f = r#"{"event_type":"trade","type":"TRADE","id":"28c4","asset_id":"5211","side":"BUY",
///   "size":"10","price":"0.57","status":"MATCHED","matchtime":"1672290701","maker_orders":[],
///   "bucket_index":0}"#;
/// let Some(Ok(EventView::Trade(t))) = decode(f).next() else { panic!() };
/// assert_eq!((t.id, t.status.unwrap().as_str(), t.matchtime), ("28c4", Some("MATCHED"), Some("1672290701")));
/// assert_eq!(t.bucket_index, Some(0));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TradeMsg<'a> {
    /// Trade id.
    pub id: &'a str,
    /// Taker order id, when sent.
    pub taker_order_id: Option<&'a str>,
    /// Condition id of the market, when sent.
    pub market: Option<&'a str>,
    /// Token id of the asset.
    pub asset_id: &'a str,
    /// Taker side.
    pub side: Side,
    /// Trade size.
    pub size: Size,
    /// Trade price.
    pub price: Price,
    /// `MATCHED`, `MINED`, `CONFIRMED`, `RETRYING`, `FAILED`, when sent.
    pub status: Option<JsonStr<'a>>,
    /// Outcome name, when sent.
    pub outcome: Option<JsonStr<'a>>,
    /// API key of the owner, when sent.
    pub owner: Option<&'a str>,
    /// API key of the trade owner, when sent.
    pub trade_owner: Option<&'a str>,
    /// `TAKER` or `MAKER`, when sent.
    pub trader_side: Option<&'a str>,
    /// Fee rate in basis points, when sent and numeric.
    pub fee_rate_bps: Option<u64>,
    /// Match time as sent (epoch seconds or an ISO date).
    pub matchtime: Option<&'a str>,
    /// Last update as sent (epoch seconds or an ISO date).
    pub last_update: Option<&'a str>,
    /// Timestamp, when present and numeric.
    pub timestamp: Option<u64>,
    /// On-chain transaction hash, when sent and non-empty.
    pub transaction_hash: Option<&'a str>,
    /// `bucket_index`, when sent and a non-negative integer (the docs do not say what it
    /// counts).
    pub bucket_index: Option<u32>,
    /// The maker legs, read lazily.
    pub maker_orders: MakerOrders<'a>,
    /// The element's JSON text.
    pub json: &'a str,
}

/// A string or a bare number, as text (`id` fields come both ways).
fn opt_token<'a>(
    src: &'a str,
    r: &Raw,
    field: &'static str,
) -> Result<Option<&'a str>, DecodeError> {
    if r.kind == RawKind::Num {
        Ok(Some(r.text(src)))
    } else {
        opt_str(src, r, field)
    }
}

fn non_empty(s: Option<&str>) -> Option<&str> {
    s.filter(|s| !s.is_empty())
}

/// Turns the captured fields into a typed event once the whole object has been read.
#[inline]
pub(crate) fn build<'a>(
    src: &'a str,
    start: usize,
    json: &'a str,
    f: &Fields<'a>,
) -> Result<EventView<'a>, DecodeError> {
    let tag: &'a str = match f.event_type.kind {
        RawKind::Str => f.event_type.text(src),
        RawKind::Missing | RawKind::Null => match (f.type_.kind, f.type_.text(src)) {
            (RawKind::Str, "TRADE") => "trade",
            (RawKind::Str, "PLACEMENT" | "UPDATE" | "CANCELLATION") => "order",
            _ => "",
        },
        _ => f.event_type.text(src),
    };
    let ts = opt_u64(src, &f.timestamp);
    let missing = |r: &Raw, name: &'static str| {
        if r.kind == RawKind::Missing {
            Err(err(DecodeErrorKind::MissingField, name, start))
        } else {
            Ok(())
        }
    };
    Ok(match tag {
        "book" => {
            missing(&f.asset_id, "asset_id")?;
            missing(&f.market, "market")?;
            let bids = f
                .bids
                .ok_or_else(|| err(DecodeErrorKind::MissingField, "bids", start))?;
            let asks = f
                .asks
                .ok_or_else(|| err(DecodeErrorKind::MissingField, "asks", start))?;
            EventView::Book(BookMsg {
                asset_id: req_str(src, &f.asset_id, "asset_id")?,
                market: req_str(src, &f.market, "market")?,
                timestamp_ms: ts,
                hash: opt_str(src, &f.hash, "hash")?,
                bids: Levels::new(src, bids, "bids"),
                asks: Levels::new(src, asks, "asks"),
                tick_size: opt_tick(src, &f.tick_size, "tick_size")?,
                last_trade_price: opt_price(src, &f.last_trade_price, "last_trade_price")?,
                version: opt_str(src, &f.version, "version")?,
                json,
            })
        }
        "price_change" => {
            missing(&f.market, "market")?;
            let changes = f
                .price_changes
                .ok_or_else(|| err(DecodeErrorKind::MissingField, "price_changes", start))?;
            EventView::PriceChange(PriceChangeMsg {
                market: req_str(src, &f.market, "market")?,
                timestamp_ms: ts,
                changes: PriceChanges::new(src, changes),
                json,
            })
        }
        "tick_size_change" => {
            missing(&f.asset_id, "asset_id")?;
            missing(&f.new_tick_size, "new_tick_size")?;
            EventView::TickSizeChange(TickSizeChangeMsg {
                asset_id: req_str(src, &f.asset_id, "asset_id")?,
                market: opt_str(src, &f.market, "market")?,
                old_tick_size: opt_tick(src, &f.old_tick_size, "old_tick_size")?,
                new_tick_size: opt_tick(src, &f.new_tick_size, "new_tick_size")?.ok_or_else(
                    || {
                        err(
                            DecodeErrorKind::MissingField,
                            "new_tick_size",
                            f.new_tick_size.at(),
                        )
                    },
                )?,
                timestamp_ms: ts,
                json,
            })
        }
        "last_trade_price" => {
            missing(&f.asset_id, "asset_id")?;
            missing(&f.price, "price")?;
            EventView::LastTradePrice(LastTradePriceMsg {
                asset_id: req_str(src, &f.asset_id, "asset_id")?,
                market: opt_str(src, &f.market, "market")?,
                price: req_price(src, &f.price, "price")?,
                side: opt_word(src, &f.side, "side", Side::parse)?,
                size: opt_size(src, &f.size, "size")?,
                fee_rate_bps: opt_u64(src, &f.fee_rate_bps),
                transaction_hash: non_empty(opt_str(src, &f.transaction_hash, "transaction_hash")?),
                timestamp_ms: ts,
                json,
            })
        }
        "best_bid_ask" => {
            missing(&f.asset_id, "asset_id")?;
            EventView::BestBidAsk(BestBidAskMsg {
                asset_id: req_str(src, &f.asset_id, "asset_id")?,
                market: opt_str(src, &f.market, "market")?,
                best_bid: opt_price(src, &f.best_bid, "best_bid")?,
                best_ask: opt_price(src, &f.best_ask, "best_ask")?,
                spread: opt_price(src, &f.spread, "spread")?,
                timestamp_ms: ts,
                json,
            })
        }
        "new_market" | "market_resolved" => {
            missing(&f.market, "market")?;
            let m = MarketMsg {
                id: opt_token(src, &f.id, "id")?,
                market: req_str(src, &f.market, "market")?,
                question: opt_text(src, &f.question, "question")?,
                slug: opt_text(src, &f.slug, "slug")?,
                description: opt_text(src, &f.description, "description")?,
                assets_ids: StrList::new(src, f.assets_ids.flatten(), "assets_ids"),
                outcomes: StrList::new(src, f.outcomes.flatten(), "outcomes"),
                event_message: f.event_message,
                winning_asset_id: opt_str(src, &f.winning_asset_id, "winning_asset_id")?,
                winning_outcome: opt_text(src, &f.winning_outcome, "winning_outcome")?,
                timestamp_ms: ts,
                json,
            };
            if tag == "new_market" {
                EventView::NewMarket(m)
            } else {
                EventView::MarketResolved(m)
            }
        }
        "order" => {
            missing(&f.id, "id")?;
            missing(&f.asset_id, "asset_id")?;
            missing(&f.side, "side")?;
            missing(&f.price, "price")?;
            EventView::Order(OrderMsg {
                id: req_str(src, &f.id, "id")?,
                kind: opt_str(src, &f.type_, "type")?,
                market: opt_str(src, &f.market, "market")?,
                asset_id: req_str(src, &f.asset_id, "asset_id")?,
                side: req_side(src, &f.side, "side")?,
                price: req_price(src, &f.price, "price")?,
                original_size: opt_size(src, &f.original_size, "original_size")?,
                size_matched: opt_size(src, &f.size_matched, "size_matched")?,
                outcome: opt_text(src, &f.outcome, "outcome")?,
                owner: opt_str(src, &f.owner, "owner")?,
                status: opt_text(src, &f.status, "status")?,
                order_type: opt_word(src, &f.order_type, "order_type", OrderType::parse)?,
                maker_address: opt_str(src, &f.maker_address, "maker_address")?,
                expiration: opt_u64(src, &f.expiration),
                created_at: opt_u64(src, &f.created_at),
                associate_trades: StrList::new(
                    src,
                    f.associate_trades.flatten(),
                    "associate_trades",
                ),
                timestamp: ts,
                json,
            })
        }
        "trade" => {
            missing(&f.id, "id")?;
            missing(&f.asset_id, "asset_id")?;
            missing(&f.side, "side")?;
            missing(&f.size, "size")?;
            missing(&f.price, "price")?;
            EventView::Trade(TradeMsg {
                id: req_str(src, &f.id, "id")?,
                taker_order_id: opt_str(src, &f.taker_order_id, "taker_order_id")?,
                market: opt_str(src, &f.market, "market")?,
                asset_id: req_str(src, &f.asset_id, "asset_id")?,
                side: req_side(src, &f.side, "side")?,
                size: req_size(src, &f.size, "size")?,
                price: req_price(src, &f.price, "price")?,
                status: opt_text(src, &f.status, "status")?,
                outcome: opt_text(src, &f.outcome, "outcome")?,
                owner: opt_str(src, &f.owner, "owner")?,
                trade_owner: opt_str(src, &f.trade_owner, "trade_owner")?,
                trader_side: opt_str(src, &f.trader_side, "trader_side")?,
                fee_rate_bps: opt_u64(src, &f.fee_rate_bps),
                matchtime: opt_token(src, &f.matchtime, "matchtime")?,
                last_update: opt_token(src, &f.last_update, "last_update")?,
                timestamp: ts,
                transaction_hash: non_empty(opt_str(src, &f.transaction_hash, "transaction_hash")?),
                bucket_index: opt_u64(src, &f.bucket_index).and_then(|b| u32::try_from(b).ok()),
                maker_orders: MakerOrders::new(src, f.maker_orders.flatten()),
                json,
            })
        }
        _ => EventView::Unknown {
            event_type: tag,
            json,
        },
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::{EventView, decode};

    fn trade(extra: &str) -> Option<u32> {
        let f = format!(
            r#"{{"event_type":"trade","id":"t1","asset_id":"7","side":"BUY","size":"5","price":"0.5","status":"MATCHED"{extra}}}"#
        );
        let Some(Ok(EventView::Trade(t))) = decode(&f).next() else {
            panic!("{f}")
        };
        t.bucket_index
    }

    #[test]
    fn trade_bucket_index() {
        assert_eq!(trade(r#","bucket_index":3"#), Some(3));
        assert_eq!(trade(r#","bucket_index":"12""#), Some(12));
        assert_eq!(trade(""), None);
        assert_eq!(trade(r#","bucket_index":null"#), None);
        // Informational and undocumented: a value that is not a small integer is `None`,
        // never a failed trade.
        assert_eq!(trade(r#","bucket_index":-1"#), None);
        assert_eq!(trade(r#","bucket_index":4294967296"#), None);
    }

    #[test]
    fn order_associate_trades_null_or_listed() {
        for (list, ids) in [("null", vec![]), (r#"["a","b"]"#, vec!["a", "b"])] {
            let f = format!(
                r#"{{"event_type":"order","id":"o1","asset_id":"7","side":"SELL","price":"0.5","associate_trades":{list},"status":"MATCHED"}}"#
            );
            let Some(Ok(EventView::Order(o))) = decode(&f).next() else {
                panic!("{f}")
            };
            let got: Vec<&str> = o.associate_trades.map(|s| s.unwrap().raw()).collect();
            assert_eq!(got, ids);
        }
    }
}
