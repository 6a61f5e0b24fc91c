//! Wire rendering: the JSON the exchange sends, for REST bodies and WS frames. Numbers are
//! strings, levels worst-first, timestamps in ms (market channel, books) or seconds (user
//! channel, orders, trades), as protocol.md §4–§5 describe.

use serde_json::{Value, json};

use polyclob::fixed::{Price, Size};
use polyclob::types::{Side, TickSize};

use super::engine::LevelChange;
use super::market::MarketSpec;
use super::orders::OrderRec;
use super::state::{Exchange, SEED_OWNER};
use super::trades::TradeRec;

/// A price in micro-units as the exchange's decimal text (`"0.52"`).
pub(crate) fn price(p: u32) -> String {
    Price::new(p).map_or_else(|| "0".to_owned(), |p| p.to_string())
}

/// A size in micro-units as decimal text (`"219.217767"`).
pub(crate) fn size(s: u64) -> String {
    Size::from_micros(s).to_string()
}

fn levels(it: impl Iterator<Item = (u32, u64)>) -> Value {
    Value::Array(
        it.map(|(p, s)| json!({"price": price(p), "size": size(s)}))
            .collect(),
    )
}

/// The `hash` of `price_change` entries: keccak-256 of the compact level list, first 20 bytes
/// as hex. Changes whenever any level changes; deltas cannot be hash-gated, so only `book`
/// snapshots carry the exchange's verifiable hash ([`book`]).
pub(crate) fn book_hash(ex: &Exchange, mi: usize, ti: usize) -> String {
    let b = ex.markets[mi].book.view(ti);
    let text = format!(
        "{}|{}",
        levels(b.bids_worst_first()),
        levels(b.asks_worst_first())
    );
    let h = alloy_primitives::keccak256(text.as_bytes());
    alloy_primitives::hex::encode(&h.as_slice()[..20])
}

/// A compact JSON object whose members keep the order they are written in, as the
/// exchange's frames do (`serde_json`'s maps sort their keys, which no exchange frame does).
struct Obj(String);

impl Obj {
    fn new() -> Self {
        Self(String::from("{"))
    }

    fn key(&mut self, k: &str) {
        if self.0.len() > 1 {
            self.0.push(',');
        }
        self.0.push('"');
        self.0.push_str(k);
        self.0.push_str("\":");
    }

    /// A string member, escaped as JSON requires.
    fn str(mut self, k: &str, v: &str) -> Self {
        self.key(k);
        if v.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
            self.0.push('"');
            self.0.push_str(v);
            self.0.push('"');
        } else {
            self.0.push_str(&Value::from(v).to_string());
        }
        self
    }

    /// A member whose value is already JSON text.
    fn raw(mut self, k: &str, json: &str) -> Self {
        self.key(k);
        self.0.push_str(json);
        self
    }

    /// A string member when there is a value.
    fn opt(self, k: &str, v: Option<&str>) -> Self {
        match v {
            Some(v) => self.str(k, v),
            None => self,
        }
    }

    fn end(mut self) -> String {
        self.0.push('}');
        self.0
    }
}

/// A side's levels as compact JSON, `[{"price":…,"size":…},…]`.
fn levels_json(it: impl Iterator<Item = (u32, u64)>) -> String {
    let mut out = String::from("[");
    for (k, (p, s)) in it.enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push_str(
            &Obj::new()
                .str("price", &price(p))
                .str("size", &size(s))
                .end(),
        );
    }
    out.push(']');
    out
}

/// What the REST and WS books share: the members in the exchange's order, and the hash.
struct BookParts {
    market: String,
    asset_id: String,
    timestamp: String,
    bids: String,
    asks: String,
    min_order_size: String,
    tick_size: &'static str,
    neg_risk: bool,
    last_trade_price: String,
    /// `"v2"` on Protocol V2 books (the hash covers it), absent on CTF books.
    version: Option<&'static str>,
    /// WS snapshots leave out `tick_size` and `last_trade_price` ([`MarketSpec::sparse_books`]).
    sparse: bool,
    hash: String,
}

fn book_parts(ex: &Exchange, mi: usize, ti: usize, ts_ms: u64) -> BookParts {
    let m = &ex.markets[mi];
    let b = m.book.view(ti);
    let mut parts = BookParts {
        market: m.spec.condition_id.clone(),
        asset_id: m.spec.tokens[ti].token_id().to_owned(),
        timestamp: ts_ms.to_string(),
        bids: levels_json(b.bids_worst_first()),
        asks: levels_json(b.asks_worst_first()),
        min_order_size: size(m.spec.min_order_size.as_micros()),
        tick_size: m.spec.tick.as_str(),
        neg_risk: m.spec.neg_risk,
        last_trade_price: m.last_trade[ti].map_or_else(|| "0.5".to_owned(), |(p, _)| price(p)),
        version: m.spec.is_position_ids().then_some("v2"),
        sparse: m.spec.sparse_books,
        hash: String::new(),
    };
    let input = parts.rest_object("");
    parts.hash =
        alloy_primitives::hex::encode(<sha1::Sha1 as sha1::Digest>::digest(input.as_bytes()));
    parts
}

impl BookParts {
    /// The REST object with `hash` set to `hash` (`""` for the hash's own input).
    fn rest_object(&self, hash: &str) -> String {
        Obj::new()
            .str("market", &self.market)
            .str("asset_id", &self.asset_id)
            .str("timestamp", &self.timestamp)
            .str("hash", hash)
            .raw("bids", &self.bids)
            .raw("asks", &self.asks)
            .str("min_order_size", &self.min_order_size)
            .str("tick_size", self.tick_size)
            .raw("neg_risk", if self.neg_risk { "true" } else { "false" })
            .str("last_trade_price", &self.last_trade_price)
            .opt("version", self.version)
            .end()
    }
}

/// The REST `/book` object (levels worst-first), its `hash` by the exchange's formula
/// (`book::integrity`): SHA-1 of the compact JSON of market, asset_id, timestamp, `hash:""`,
/// bids, asks, min_order_size, tick_size, neg_risk, last_trade_price, in that order, plus
/// `version` on Protocol V2 books.
/// Compact JSON text, members in the exchange's order.
pub(crate) fn book(ex: &Exchange, mi: usize, ti: usize, ts_ms: u64) -> String {
    let parts = book_parts(ex, mi, ti, ts_ms);
    parts.rest_object(&parts.hash)
}

/// The WS `book` event in the exchange's member order: the REST object plus `event_type`,
/// without `min_order_size` and `neg_risk`, which the exchange's WS frame does not carry (its
/// hash still covers them); a sparse market's frame also leaves out `tick_size` and
/// `last_trade_price`, still hashed.
pub(crate) fn ws_book(ex: &Exchange, mi: usize, ti: usize, ts_ms: u64) -> String {
    let p = book_parts(ex, mi, ti, ts_ms);
    Obj::new()
        .str("market", &p.market)
        .str("asset_id", &p.asset_id)
        .str("timestamp", &p.timestamp)
        .str("hash", &p.hash)
        .raw("bids", &p.bids)
        .raw("asks", &p.asks)
        .opt("tick_size", (!p.sparse).then_some(p.tick_size))
        .str("event_type", "book")
        .opt(
            "last_trade_price",
            (!p.sparse).then_some(p.last_trade_price.as_str()),
        )
        .opt("version", p.version)
        .end()
}

fn best(ex: &Exchange, mi: usize, ti: usize) -> (String, String) {
    let b = ex.markets[mi].book.view(ti);
    (
        b.best_bid().map_or_else(|| "0".to_owned(), price),
        b.best_ask().map_or_else(|| "1".to_owned(), price),
    )
}

/// `price_change` (the post-2025-09-15 format with a `price_changes` array), members in the
/// exchange's order, for a change of market `mi`'s book made by an order of token `ti`: each
/// level's entry as token `ti` shows it, then as the other token shows it (a bid of one is an
/// ask of the other at the complement, same size), each with its own token's hash and best
/// bid and ask, as the venue's frames pair them.
pub(crate) fn price_change(
    ex: &Exchange,
    mi: usize,
    ti: usize,
    changes: &[LevelChange],
    ts_ms: u64,
) -> String {
    let m = &ex.markets[mi];
    let per_token = [ti, 1 - ti].map(|t| (t, book_hash(ex, mi, t), best(ex, mi, t)));
    let mut list = String::from("[");
    for c in changes {
        for (t, hash, (bb, ba)) in &per_token {
            if list.len() > 1 {
                list.push(',');
            }
            let (side, p) = c.seen_by(*t);
            let entry = Obj::new()
                .str("asset_id", m.spec.tokens[*t].token_id())
                .str("price", &price(p))
                .str("size", &size(c.size))
                .str("side", side.as_str())
                .str("hash", hash)
                .str("best_bid", bb)
                .str("best_ask", ba)
                .end();
            list.push_str(&entry);
        }
    }
    list.push(']');
    Obj::new()
        .str("market", &m.spec.condition_id)
        .raw("price_changes", &list)
        .str("timestamp", &ts_ms.to_string())
        .str("event_type", "price_change")
        .end()
}

/// `best_bid_ask` (a `custom_feature_enabled` event).
pub(crate) fn best_bid_ask(ex: &Exchange, mi: usize, ti: usize, ts_ms: u64) -> String {
    let m = &ex.markets[mi];
    let b = m.book.view(ti);
    let (bb, ba) = best(ex, mi, ti);
    let spread = match (b.best_bid(), b.best_ask()) {
        (Some(bid), Some(ask)) => price(ask.saturating_sub(bid)),
        _ => "0".to_owned(),
    };
    Obj::new()
        .str("event_type", "best_bid_ask")
        .str("market", &m.spec.condition_id)
        .str("asset_id", m.spec.tokens[ti].token_id())
        .str("best_bid", &bb)
        .str("best_ask", &ba)
        .str("spread", &spread)
        .str("timestamp", &ts_ms.to_string())
        .end()
}

/// `last_trade_price`.
pub(crate) fn last_trade_price(
    ex: &Exchange,
    mi: usize,
    ti: usize,
    p: u32,
    side: Side,
    sz: u64,
    ts_ms: u64,
) -> String {
    let m = &ex.markets[mi];
    Obj::new()
        .str("asset_id", m.spec.tokens[ti].token_id())
        .str("event_type", "last_trade_price")
        .str("fee_rate_bps", &fee_rate_bps(&m.spec, true))
        .str("market", &m.spec.condition_id)
        .str("price", &price(p))
        .str("side", side.as_str())
        .str("size", &size(sz))
        .str("timestamp", &ts_ms.to_string())
        .end()
}

/// `tick_size_change`.
pub(crate) fn tick_size_change(
    ex: &Exchange,
    mi: usize,
    ti: usize,
    old: TickSize,
    new: TickSize,
    ts_ms: u64,
) -> String {
    let m = &ex.markets[mi];
    Obj::new()
        .str("event_type", "tick_size_change")
        .str("asset_id", m.spec.tokens[ti].token_id())
        .str("market", &m.spec.condition_id)
        .str("old_tick_size", old.as_str())
        .str("new_tick_size", new.as_str())
        .str("timestamp", &ts_ms.to_string())
        .end()
}

/// User-channel `order` event (`PLACEMENT`, `UPDATE`, `CANCELLATION`).
pub(crate) fn user_order(ex: &Exchange, o: &OrderRec, kind: &str) -> String {
    let m = &ex.markets[o.market];
    json!({
        "event_type": "order",
        "type": kind,
        "id": o.id,
        "market": m.spec.condition_id,
        "asset_id": m.spec.tokens[o.token].token_id(),
        "side": o.side.as_str(),
        "price": price(o.price),
        "original_size": size(o.original),
        "size_matched": size(o.matched),
        "outcome": m.spec.tokens[o.token].outcome(),
        "owner": o.owner,
        "order_owner": o.owner,
        "associate_trades": if o.trades.is_empty() { Value::Null } else { json!(o.trades) },
        "status": o.status.as_str(),
        "order_type": o.order_type.as_str(),
        "maker_address": o.maker_address,
        "expiration": o.expiration.to_string(),
        "created_at": o.created_at.to_string(),
        "timestamp": super::state::now_s().to_string(),
    })
    .to_string()
}

fn maker_orders(ex: &Exchange, t: &TradeRec) -> Vec<Value> {
    t.fills
        .iter()
        .filter_map(|f| ex.order_by_seq(f.maker_seq).map(|o| (f, o)))
        .map(|(f, o)| {
            let m = &ex.markets[o.market];
            json!({
                "order_id": o.id,
                "owner": o.owner,
                "maker_address": o.maker_address,
                "matched_amount": size(f.size),
                "price": price(f.price),
                "fee_rate_bps": fee_rate_bps(&m.spec, false),
                "asset_id": m.spec.tokens[o.token].token_id(),
                "outcome": m.spec.tokens[o.token].outcome(),
                "side": o.side.as_str(),
            })
        })
        .collect()
}

/// User-channel `trade` event, for the taker's user or a maker's.
pub(crate) fn user_trade(ex: &Exchange, t: &TradeRec, status: &str, is_taker: bool) -> String {
    let m = &ex.markets[t.market];
    let taker = ex.order_by_seq(t.taker_seq);
    let owner = taker.map_or(SEED_OWNER, |o| o.owner.as_str());
    let mut v = json!({
        "event_type": "trade",
        "type": "TRADE",
        "id": t.id,
        "taker_order_id": taker.map_or("", |o| o.id.as_str()),
        "market": m.spec.condition_id,
        "asset_id": m.spec.tokens[t.token].token_id(),
        "side": t.side.as_str(),
        "size": size(t.size),
        "price": price(t.price),
        "fee_rate_bps": fee_rate_bps(&m.spec, true),
        "status": status,
        "outcome": m.spec.tokens[t.token].outcome(),
        "owner": owner,
        "trade_owner": owner,
        "maker_orders": maker_orders(ex, t),
        "matchtime": t.match_time.to_string(),
        "last_update": t.match_time.to_string(),
        "timestamp": t.match_time.to_string(),
        "trader_side": if is_taker { "TAKER" } else { "MAKER" },
    });
    if matches!(status, "MINED" | "CONFIRMED") {
        if let Some(o) = v.as_object_mut() {
            o.insert("transaction_hash".into(), json!(t.tx_hash));
        }
    }
    v.to_string()
}

/// The REST open-order object (`/data/orders`, `/data/order/{id}`).
pub(crate) fn order(ex: &Exchange, o: &OrderRec) -> Value {
    let m = &ex.markets[o.market];
    json!({
        "id": o.id,
        "status": o.status.as_str(),
        "owner": o.owner,
        "maker_address": o.maker_address,
        "market": m.spec.condition_id,
        "asset_id": m.spec.tokens[o.token].token_id(),
        "side": o.side.as_str(),
        "original_size": size(o.original),
        "size_matched": size(o.matched),
        "price": price(o.price),
        "associate_trades": o.trades,
        "outcome": m.spec.tokens[o.token].outcome(),
        "created_at": o.created_at,
        "expiration": o.expiration.to_string(),
        "order_type": o.order_type.as_str(),
    })
}

/// The REST trade object (`/data/trades`), seen by `user` (taker or maker side).
pub(crate) fn trade(ex: &Exchange, t: &TradeRec, user: &str) -> Value {
    let m = &ex.markets[t.market];
    let taker = ex.order_by_seq(t.taker_seq);
    let is_taker = taker.is_some_and(|o| o.user == user);
    json!({
        "id": t.id,
        "taker_order_id": taker.map_or("", |o| o.id.as_str()),
        "market": m.spec.condition_id,
        "asset_id": m.spec.tokens[t.token].token_id(),
        "side": t.side.as_str(),
        "size": size(t.size),
        "fee_rate_bps": fee_rate_bps(&m.spec, true),
        "price": price(t.price),
        "status": t.status,
        "match_time": t.match_time.to_string(),
        "last_update": t.match_time.to_string(),
        "outcome": m.spec.tokens[t.token].outcome(),
        "bucket_index": 0,
        "owner": taker.map_or(SEED_OWNER, |o| o.owner.as_str()),
        "maker_address": taker.map_or("", |o| o.maker_address.as_str()),
        "maker_orders": maker_orders(ex, t),
        "transaction_hash": t.tx_hash,
        "trader_side": if is_taker { "TAKER" } else { "MAKER" },
        "error_msg": "",
    })
}

fn tokens_json(ex: &Exchange, mi: usize) -> Value {
    let m = &ex.markets[mi];
    Value::Array(
        (0..2)
            .map(|ti| {
                let b = m.book.view(ti);
                let mid = match (b.best_bid(), b.best_ask()) {
                    (Some(bid), Some(ask)) => (bid + ask) / 2,
                    _ => m.last_trade[ti].map_or(500_000, |(p, _)| p),
                };
                json!({
                    "token_id": m.spec.tokens[ti].token_id(),
                    "outcome": m.spec.tokens[ti].outcome(),
                    "price": price(mid).parse::<f64>().unwrap_or(0.5),
                    "winner": false,
                })
            })
            .collect(),
    )
}

fn rewards() -> Value {
    json!({"rates": null, "min_size": 0, "max_spread": 0})
}

/// The full market object (`/markets`, `/sampling-markets`, `/markets/{condition_id}`).
pub(crate) fn market(ex: &Exchange, mi: usize) -> Value {
    let s: &MarketSpec = &ex.markets[mi].spec;
    json!({
        "enable_order_book": true,
        "active": true,
        "closed": false,
        "archived": false,
        "accepting_orders": true,
        "accepting_order_timestamp": "2026-01-01T00:00:00Z",
        "minimum_order_size": s.min_order_size.to_string().parse::<f64>().unwrap_or(5.0),
        "minimum_tick_size": s.tick.as_str().parse::<f64>().unwrap_or(0.01),
        "condition_id": s.condition_id,
        "question_id": s.question_id,
        "question": s.question,
        "description": format!("Simulated market: {}", s.question),
        "market_slug": s.slug,
        "end_date_iso": s.end_date_iso,
        "game_start_time": null,
        "seconds_delay": 0,
        "fpmm": "",
        "maker_base_fee": base_fee_bps(s),
        "taker_base_fee": base_fee_bps(s),
        "notifications_enabled": false,
        "neg_risk": s.neg_risk,
        "neg_risk_market_id": s.neg_risk_market_id,
        "neg_risk_request_id": "",
        "icon": "",
        "image": "",
        "rewards": rewards(),
        "is_50_50_outcome": false,
        "tokens": tokens_json(ex, mi),
        "tags": ["Simulated"],
    })
}

/// The simplified market object.
pub(crate) fn simplified_market(ex: &Exchange, mi: usize) -> Value {
    let s = &ex.markets[mi].spec;
    json!({
        "condition_id": s.condition_id,
        "tokens": tokens_json(ex, mi),
        "rewards": rewards(),
        "active": true,
        "closed": false,
        "archived": false,
        "accepting_orders": true,
    })
}

/// The `fee_rate_bps` of a trade row for its taker (`taker`) or a maker: the schedule's rate
/// in basis points (0.05 is `"500"`) for whoever pays on a fee-enabled market, `"0"` otherwise
/// (the docs' reading; a live capture has shown `"0"` on a charged trade, so the README tells
/// bots to read fees from balances and the Data API).
pub(crate) fn fee_rate_bps(s: &MarketSpec, taker: bool) -> String {
    match s.fees {
        Some(f) if taker || !f.taker_only() => (f.rate().as_micros() / 100).to_string(),
        _ => "0".to_owned(),
    }
}

/// The `base_fee` the venue answers for a market (`/fee-rate`, `maker_base_fee`,
/// `taker_base_fee`, `mbf`, `tbf`): 1000 on every fee-charging market, 0 on fee-free ones (the
/// V1 fee authorization, not the rate charged; Polymarket's py-clob-client-v2 #107, #110).
pub(crate) fn base_fee_bps(s: &MarketSpec) -> u64 {
    if s.fees.is_some() { 1000 } else { 0 }
}

/// A market's `fd`: the schedule's rate, exponent and taker-only flag, all zero when fee-free.
fn fee_curve(s: &MarketSpec) -> Value {
    match s.fees {
        Some(f) => json!({
            "r": decimal(f.rate()),
            "e": f.exponent(),
            "to": f.taker_only(),
        }),
        None => json!({"r": 0, "e": 0, "to": false}),
    }
}

/// A fraction as the JSON number the venue sends (`0.05`).
pub(crate) fn decimal(p: Price) -> Value {
    p.to_string()
        .parse::<f64>()
        .map_or(Value::Null, |f| json!(f))
}

/// The compact `/clob-markets/{condition_id}` object.
pub(crate) fn clob_market(ex: &Exchange, mi: usize) -> Value {
    let s = &ex.markets[mi].spec;
    json!({
        "c": s.condition_id,
        "t": s.tokens.iter().map(|t| json!({"t": t.token_id(), "o": t.outcome()})).collect::<Vec<_>>(),
        "mts": s.tick.as_str().parse::<f64>().unwrap_or(0.01),
        "mos": s.min_order_size.to_string().parse::<f64>().unwrap_or(5.0),
        "nr": s.neg_risk,
        "fd": fee_curve(s),
        "mbf": base_fee_bps(s),
        "tbf": base_fee_bps(s),
        "rfqe": s.rfq,
        "v": s.protocol().as_str(),
    })
}
