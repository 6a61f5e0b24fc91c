//! Wire rendering: the JSON the exchange sends, for REST bodies and WS frames. Numbers are
//! strings, levels worst-first, timestamps in ms (market channel, books) or seconds (user
//! channel, orders, trades), as protocol.md §4–§5 describe.

use serde_json::{Value, json};

use crate::fixed::{Price, Size};
use crate::types::{Side, TickSize};

use super::engine::LevelChange;
use super::market::MarketSpec;
use super::state::{Exchange, OrderRec, SEED_OWNER, TradeRec};

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
    let b = &ex.markets[mi].books[ti];
    let text = format!(
        "{}|{}",
        levels(b.bids_worst_first()),
        levels(b.asks_worst_first())
    );
    let h = alloy_primitives::keccak256(text.as_bytes());
    alloy_primitives::hex::encode(&h.as_slice()[..20])
}

/// The REST `/book` object (levels worst-first), its `hash` by the exchange's formula
/// (`book::integrity`): SHA-1 of the compact JSON of market, asset_id, timestamp, `hash:""`,
/// bids, asks, min_order_size, tick_size, neg_risk, last_trade_price, in that order.
pub(crate) fn book(ex: &Exchange, mi: usize, ti: usize, ts_ms: u64) -> Value {
    let m = &ex.markets[mi];
    let b = &m.books[ti];
    let bids = levels(b.bids_worst_first());
    let asks = levels(b.asks_worst_first());
    let market = Value::from(m.spec.condition_id.as_str());
    let asset_id = Value::from(m.spec.tokens[ti].token_id());
    let timestamp = Value::from(ts_ms.to_string());
    let min_order_size = Value::from(size(m.spec.min_order_size.as_micros()));
    let tick_size = Value::from(m.spec.tick.as_str());
    let last_trade_price =
        Value::from(m.last_trade[ti].map_or_else(|| "0.5".to_owned(), |(p, _)| price(p)));
    // Hand-ordered: serde_json's maps sort their keys. `Value`'s Display is compact JSON.
    let input = format!(
        "{{\"market\":{market},\"asset_id\":{asset_id},\"timestamp\":{timestamp},\"hash\":\"\",\"bids\":{bids},\"asks\":{asks},\"min_order_size\":{min_order_size},\"tick_size\":{tick_size},\"neg_risk\":{},\"last_trade_price\":{last_trade_price}}}",
        m.spec.neg_risk
    );
    let hash =
        alloy_primitives::hex::encode(<sha1::Sha1 as sha1::Digest>::digest(input.as_bytes()));
    json!({
        "market": market,
        "asset_id": asset_id,
        "timestamp": timestamp,
        "hash": hash,
        "bids": bids,
        "asks": asks,
        "min_order_size": min_order_size,
        "tick_size": tick_size,
        "neg_risk": m.spec.neg_risk,
        "last_trade_price": last_trade_price,
    })
}

/// The WS `book` event: the REST object plus `event_type`, without `min_order_size` and
/// `neg_risk`, which the exchange's WS frame does not carry (its hash still covers them).
pub(crate) fn ws_book(ex: &Exchange, mi: usize, ti: usize, ts_ms: u64) -> Value {
    let mut v = book(ex, mi, ti, ts_ms);
    if let Some(o) = v.as_object_mut() {
        o.insert("event_type".into(), json!("book"));
        o.remove("min_order_size");
        o.remove("neg_risk");
    }
    v
}

fn best(ex: &Exchange, mi: usize, ti: usize) -> (String, String) {
    let b = &ex.markets[mi].books[ti];
    (
        b.best_bid().map_or_else(|| "0".to_owned(), price),
        b.best_ask().map_or_else(|| "1".to_owned(), price),
    )
}

/// `price_change` (the post-2025-09-15 format with a `price_changes` array).
pub(crate) fn price_change(
    ex: &Exchange,
    mi: usize,
    ti: usize,
    changes: &[LevelChange],
    ts_ms: u64,
) -> String {
    let m = &ex.markets[mi];
    let hash = book_hash(ex, mi, ti);
    let (bb, ba) = best(ex, mi, ti);
    let list: Vec<Value> = changes
        .iter()
        .map(|c| {
            json!({
                "asset_id": m.spec.tokens[ti].token_id(),
                "price": price(c.price),
                "size": size(c.size),
                "side": c.side.as_str(),
                "hash": hash,
                "best_bid": bb,
                "best_ask": ba,
            })
        })
        .collect();
    json!({
        "market": m.spec.condition_id,
        "price_changes": list,
        "timestamp": ts_ms.to_string(),
        "event_type": "price_change",
    })
    .to_string()
}

/// `best_bid_ask` (a `custom_feature_enabled` event).
pub(crate) fn best_bid_ask(ex: &Exchange, mi: usize, ti: usize, ts_ms: u64) -> String {
    let m = &ex.markets[mi];
    let b = &m.books[ti];
    let (bb, ba) = best(ex, mi, ti);
    let spread = match (b.best_bid(), b.best_ask()) {
        (Some(bid), Some(ask)) => price(ask.saturating_sub(bid)),
        _ => "0".to_owned(),
    };
    json!({
        "event_type": "best_bid_ask",
        "market": m.spec.condition_id,
        "asset_id": m.spec.tokens[ti].token_id(),
        "best_bid": bb,
        "best_ask": ba,
        "spread": spread,
        "timestamp": ts_ms.to_string(),
    })
    .to_string()
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
    json!({
        "asset_id": m.spec.tokens[ti].token_id(),
        "event_type": "last_trade_price",
        "fee_rate_bps": "0",
        "market": m.spec.condition_id,
        "price": price(p),
        "side": side.as_str(),
        "size": size(sz),
        "timestamp": ts_ms.to_string(),
    })
    .to_string()
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
    json!({
        "event_type": "tick_size_change",
        "asset_id": m.spec.tokens[ti].token_id(),
        "market": m.spec.condition_id,
        "old_tick_size": old.as_str(),
        "new_tick_size": new.as_str(),
        "timestamp": ts_ms.to_string(),
    })
    .to_string()
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
                "fee_rate_bps": "0",
                "asset_id": m.spec.tokens[o.token].token_id(),
                "outcome": m.spec.tokens[o.token].outcome(),
                "side": o.side.as_str(),
            })
        })
        .collect()
}

/// User-channel `trade` event.
pub(crate) fn user_trade(ex: &Exchange, t: &TradeRec, status: &str) -> String {
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
        "fee_rate_bps": "0",
        "status": status,
        "outcome": m.spec.tokens[t.token].outcome(),
        "owner": owner,
        "trade_owner": owner,
        "maker_orders": maker_orders(ex, t),
        "matchtime": t.match_time.to_string(),
        "last_update": t.match_time.to_string(),
        "timestamp": t.match_time.to_string(),
        "trader_side": "TAKER",
    });
    if status == "CONFIRMED" {
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
        "fee_rate_bps": "0",
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
                let b = &m.books[ti];
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
        "maker_base_fee": 0,
        "taker_base_fee": 0,
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

/// The compact `/clob-markets/{condition_id}` object.
pub(crate) fn clob_market(ex: &Exchange, mi: usize) -> Value {
    let s = &ex.markets[mi].spec;
    json!({
        "c": s.condition_id,
        "t": s.tokens.iter().map(|t| json!({"t": t.token_id(), "o": t.outcome()})).collect::<Vec<_>>(),
        "mts": s.tick.as_str().parse::<f64>().unwrap_or(0.01),
        "mos": s.min_order_size.to_string().parse::<f64>().unwrap_or(5.0),
        "nr": s.neg_risk,
        "fd": {"r": 0, "e": 0, "to": false},
        "mbf": 0,
        "tbf": 0,
        "rfqe": s.rfq,
    })
}
