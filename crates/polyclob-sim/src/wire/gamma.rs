//! Gamma (market discovery) served from the simulator's own markets, under `/gamma`:
//! `/markets/keyset` and `/events/keyset` with keyset cursors (`after_cursor` in,
//! `next_cursor` out, absent on the last page; `offset` refused; at most 100 markets or
//! 500 events a page and 100 `condition_ids` a request), single markets and events by id
//! or slug, `/public-search`, `/tags`, `/sports`; the rest of Gamma's reads (comments,
//! profiles, series, teams, tags by id, and the one tag every market carries) are
//! `gamma_more`'s.
//!
//! Markets are rendered in Gamma's vocabulary (camelCase, JSON arrays inside strings) from
//! the CLOB state, so tick sizes, neg-risk flags, token ids and prices agree with the CLOB
//! routes at every moment. Each market is its own event (id `1000 + index`).

use bytes::Bytes;
use http_body_util::Full;
use hyper::http::request::Parts;
use hyper::{Method, Response, StatusCode};
use serde_json::{Value, json};

use super::gamma_more::{TAG, tag};
use super::http::{error_response, json_response, parse_query, q};
use super::shared::Shared;
use crate::exchange::events::{self, price};
use crate::exchange::state::Exchange;

type Resp = Response<Full<Bytes>>;

/// Path prefix of the Gamma routes.
pub(crate) const PREFIX: &str = "/gamma";

const MAX_MARKETS: usize = 100;
const MAX_EVENTS: usize = 500;
const MAX_CONDITION_IDS: usize = 100;
const DEFAULT_LIMIT: usize = 20;

/// Serves a `/gamma/...` request; `None` for any other path.
pub(crate) fn route(shared: &Shared, parts: &Parts) -> Option<Resp> {
    let path = parts.uri.path().strip_prefix(PREFIX)?;
    if !path.is_empty() && !path.starts_with('/') {
        return None;
    }
    if parts.method != Method::GET {
        return Some(error_response(StatusCode::METHOD_NOT_ALLOWED, "GET only"));
    }
    let query = parse_query(parts.uri.query());
    let ex = shared.ex();
    Some(match path {
        "/markets/keyset" => keyset(&ex, &query, MAX_MARKETS, "markets", |ex, mi| {
            market(ex, mi, true)
        }),
        "/events/keyset" => keyset(&ex, &query, MAX_EVENTS, "events", event),
        "/public-search" => search(&ex, &query),
        "/tags" => ok(&json!([tag()])),
        "/sports" => ok(&json!([])),
        _ => {
            super::gamma_more::route(shared, &ex, path, &query).unwrap_or_else(|| by_id(&ex, path))
        }
    })
}

fn ok(v: &Value) -> Resp {
    json_response(StatusCode::OK, v.to_string())
}

fn bad(msg: &str) -> Resp {
    error_response(StatusCode::BAD_REQUEST, msg)
}

/// The Gamma market object of market `mi` (with its event unless `with_event` is false).
pub(crate) fn market(ex: &Exchange, mi: usize, with_event: bool) -> Value {
    let m = &ex.markets[mi];
    let s = &m.spec;
    let ids: Vec<&str> = s.tokens.iter().map(|t| t.token_id()).collect();
    let outcomes: Vec<&str> = s.tokens.iter().map(|t| t.outcome()).collect();
    let mids: Vec<String> = (0..2).map(|ti| price(mid(ex, mi, ti))).collect();
    let best = |p: Option<u32>| p.map_or(Value::Null, |p| num(&price(p)));
    let mut v = json!({
        "id": (mi + 1).to_string(),
        "question": s.question,
        "conditionId": s.condition_id,
        "questionID": s.question_id,
        "slug": s.slug,
        "endDate": s.end_date_iso,
        "description": format!("Simulated market: {}", s.question),
        "outcomes": json!(outcomes).to_string(),
        "outcomePrices": json!(mids).to_string(),
        "active": true,
        "closed": false,
        "archived": false,
        "restricted": false,
        "enableOrderBook": true,
        "acceptingOrders": !ex.cancel_only,
        "orderPriceMinTickSize": num(s.tick.as_str()),
        "orderMinSize": num(&events::size(s.min_order_size.as_micros())),
        "negRisk": s.neg_risk,
        "negRiskMarketID": s.neg_risk_market_id,
        "feesEnabled": s.fees.is_some(),
        "feeType": (!s.fee_type.is_empty()).then_some(s.fee_type.as_str()),
        "feeSchedule": s.fees.map(|f| json!({
            "exponent": f.exponent(),
            "rate": events::decimal(f.rate()),
            "takerOnly": f.taker_only(),
            "rebateRate": f.rebate_rate().map(events::decimal),
        })),
        "makerBaseFee": events::base_fee_bps(s),
        "takerBaseFee": events::base_fee_bps(s),
        "bestBid": best(m.book.view(0).best_bid()),
        "bestAsk": best(m.book.view(0).best_ask()),
        "lastTradePrice": best(m.last_trade[0].map(|(p, _)| p)),
        "volume": events::size(volume(ex, mi)),
        "volumeNum": num(&events::size(volume(ex, mi))),
        "liquidity": events::size(liquidity(ex, mi)),
        "liquidityNum": num(&events::size(liquidity(ex, mi))),
        "tags": [tag()],
    });
    if s.position_ids {
        v["version"] = json!("v2");
        v["positionIds"] = json!(ids);
    } else {
        v["version"] = json!("v1");
        v["clobTokenIds"] = json!(json!(ids).to_string());
    }
    if with_event {
        v["events"] = json!([event_head(ex, mi)]);
    }
    v
}

/// A decimal as a JSON number, the way Gamma sends most figures.
fn num(text: &str) -> Value {
    text.parse::<f64>().map_or(Value::Null, |f| json!(f))
}

/// Midpoint of the book, else the last trade, else the seeded mid.
fn mid(ex: &Exchange, mi: usize, ti: usize) -> u32 {
    let m = &ex.markets[mi];
    let b = m.book.view(ti);
    match (b.best_bid(), b.best_ask()) {
        (Some(bid), Some(ask)) => (bid + ask) / 2,
        _ => m.last_trade[ti].map_or_else(
            || {
                let seed = m.spec.mid.as_micros();
                if ti == 0 { seed } else { 1_000_000 - seed }
            },
            |(p, _)| p,
        ),
    }
}

/// Traded notional of a market in micro-pUSD (size × price of every fill).
fn volume(ex: &Exchange, mi: usize) -> u64 {
    ex.markets[mi].traded_notional
}

/// Resting notional of both tokens' books in micro-pUSD.
fn liquidity(ex: &Exchange, mi: usize) -> u64 {
    let book = &ex.markets[mi].book;
    let notional = |t: usize| {
        let b = book.view(t);
        b.bids_worst_first()
            .chain(b.asks_worst_first())
            .map(|(p, s)| s.saturating_mul(u64::from(p)) / 1_000_000)
            .fold(0u64, u64::saturating_add)
    };
    notional(0).saturating_add(notional(1))
}

fn event_head(ex: &Exchange, mi: usize) -> Value {
    let s = &ex.markets[mi].spec;
    json!({
        "id": (1000 + mi).to_string(),
        "ticker": s.slug,
        "slug": s.slug,
        "title": s.question,
        "active": true,
        "closed": false,
        "negRisk": s.neg_risk,
        "negRiskMarketID": s.neg_risk_market_id,
        "volume": num(&events::size(volume(ex, mi))),
        "liquidity": num(&events::size(liquidity(ex, mi))),
    })
}

fn event(ex: &Exchange, mi: usize) -> Value {
    let mut e = event_head(ex, mi);
    e["markets"] = json!([market(ex, mi, false)]);
    e["tags"] = json!([tag()]);
    e
}

/// Whether market `mi` passes the keyset filters Gamma documents and the simulator models.
fn matches(ex: &Exchange, mi: usize, query: &[(String, String)]) -> bool {
    let s = &ex.markets[mi].spec;
    let any_of = |key: &str, hit: &dyn Fn(&str) -> bool| {
        let mut vals = query.iter().filter(|(k, _)| k == key).peekable();
        vals.peek().is_none() || vals.any(|(_, v)| hit(v))
    };
    // Every simulated market is open, active and unarchived.
    q(query, "closed") != Some("true")
        && q(query, "active") != Some("false")
        && q(query, "archived") != Some("true")
        && any_of("condition_ids", &|c| {
            c.eq_ignore_ascii_case(&s.condition_id)
        })
        && any_of("clob_token_ids", &|t| {
            s.tokens.iter().any(|x| x.token_id() == t)
        })
        && any_of("slug", &|x| x == s.slug)
        && any_of("tag_id", &|t| t == TAG.0)
        && min_ok(query, "liquidity_num_min", liquidity(ex, mi))
        && min_ok(query, "liquidity_min", liquidity(ex, mi))
        && min_ok(query, "volume_num_min", volume(ex, mi))
        && min_ok(query, "volume_min", volume(ex, mi))
}

fn min_ok(query: &[(String, String)], key: &str, micros: u64) -> bool {
    q(query, key)
        .and_then(|v| polyclob::fixed::Size::parse(v.as_bytes()).ok())
        .is_none_or(|min| micros >= min.as_micros())
}

fn keyset(
    ex: &Exchange,
    query: &[(String, String)],
    max: usize,
    key: &str,
    render: impl Fn(&Exchange, usize) -> Value,
) -> Resp {
    if q(query, "offset").is_some() {
        return bad("offset is not supported on keyset endpoints; use after_cursor");
    }
    let ids = query.iter().filter(|(k, _)| k == "condition_ids").count();
    if ids > MAX_CONDITION_IDS {
        return bad(&format!(
            "at most {MAX_CONDITION_IDS} condition_ids per request, got {ids}"
        ));
    }
    let limit = match q(query, "limit").map(str::parse::<usize>) {
        None => DEFAULT_LIMIT,
        Some(Ok(l)) if (1..=max).contains(&l) => l,
        Some(_) => return bad(&format!("limit must be between 1 and {max}")),
    };
    let start = match q(query, "after_cursor").map(decode_cursor) {
        None => 0,
        Some(Some(s)) => s,
        Some(None) => return bad("invalid after_cursor"),
    };
    let hits: Vec<usize> = (0..ex.markets.len())
        .filter(|&mi| matches(ex, mi, query))
        .collect();
    let rows: Vec<Value> = hits
        .iter()
        .skip(start)
        .take(limit)
        .map(|&mi| render(ex, mi))
        .collect();
    let end = start + rows.len();
    let mut body = json!({ key: rows });
    if end < hits.len() {
        body["next_cursor"] = json!(encode_cursor(end));
    }
    ok(&body)
}

fn encode_cursor(offset: usize) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(format!("sim-keyset:{offset}"))
}

fn decode_cursor(c: &str) -> Option<usize> {
    use base64::Engine as _;
    let b = base64::engine::general_purpose::STANDARD.decode(c).ok()?;
    String::from_utf8(b)
        .ok()?
        .strip_prefix("sim-keyset:")?
        .parse()
        .ok()
}

fn search(ex: &Exchange, query: &[(String, String)]) -> Resp {
    let Some(text) = q(query, "q") else {
        return bad("q is required");
    };
    let needle = text.to_lowercase();
    let events: Vec<Value> = (0..ex.markets.len())
        .filter(|&mi| {
            let s = &ex.markets[mi].spec;
            s.question.to_lowercase().contains(&needle) || s.slug.contains(&needle)
        })
        .map(|mi| event(ex, mi))
        .collect();
    let tags: Vec<Value> = if TAG.1.to_lowercase().contains(&needle) {
        vec![tag()]
    } else {
        Vec::new()
    };
    let total = events.len();
    ok(&json!({
        "events": events,
        "tags": tags,
        "profiles": [],
        "pagination": {"hasMore": false, "totalResults": total},
    }))
}

fn by_id(ex: &Exchange, path: &str) -> Resp {
    let find = |f: &dyn Fn(usize) -> bool| (0..ex.markets.len()).find(|&mi| f(mi));
    let spec = |mi: usize| &ex.markets[mi].spec;
    let found = if let Some(slug) = path.strip_prefix("/markets/slug/") {
        find(&|mi| spec(mi).slug == slug).map(|mi| market(ex, mi, true))
    } else if let Some(id) = path.strip_prefix("/markets/") {
        find(&|mi| (mi + 1).to_string() == id).map(|mi| market(ex, mi, true))
    } else if let Some(slug) = path.strip_prefix("/events/slug/") {
        find(&|mi| spec(mi).slug == slug).map(|mi| event(ex, mi))
    } else if let Some(id) = path.strip_prefix("/events/") {
        find(&|mi| (1000 + mi).to_string() == id).map(|mi| event(ex, mi))
    } else {
        None
    };
    found.map_or_else(
        || error_response(StatusCode::NOT_FOUND, "not found"),
        |v| ok(&v),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_junk() {
        assert_eq!(decode_cursor(&encode_cursor(42)), Some(42));
        assert_eq!(decode_cursor("MA=="), None);
        assert_eq!(decode_cursor("!!"), None);
    }
}
