//! REST routes (protocol.md §4): public market data, L1 key management, L2 trading and
//! account data, heartbeats. Every error is the exchange's `{"error": "…"}` shape.

use alloy_primitives::{Address, U256};
use hyper::http::request::Parts;
use hyper::{Method, StatusCode};
use serde_json::{Value, json};

use polyclob::types::{Chain, Side};

use super::auth::{self, l2};
use super::http::{Reject, Resp, error_response, json_response, ok, page, parse_query, q};
use super::shared::Shared;
use crate::exchange::events;
use crate::exchange::keys::ApiKeyRec;
use crate::exchange::orders::{Canceled, NewOrder, Placed};
use crate::exchange::state::{Exchange, now_ms, now_s};
use crate::scenario::drift::Drift;
use polyclob::http::Bucket;

/// Most orders one `POST /orders` may carry.
const MAX_BATCH: usize = 15;

/// `DELETE /orders` takes at most this many ids (Polymarket changelog, 2026-06-15).
pub(crate) const MAX_CANCEL_IDS: usize = 1000;

/// `GET /data/orders` refuses an `asset_id` filter without `market` (announced for
/// 2026-12-14 with py-sdk polymarket-client v0.20.0).
const ASSET_WITHOUT_MARKET: &str = "market is required when filtering open orders by asset_id";

fn bad(msg: &str) -> Resp {
    error_response(StatusCode::BAD_REQUEST, msg)
}

/// Dispatches one request.
pub(crate) fn route(shared: &Shared, parts: &Parts, body: &[u8]) -> Resp {
    let path = parts.uri.path();
    let query = parse_query(parts.uri.query());
    let m = &parts.method;
    let get = m == Method::GET;
    let post = m == Method::POST;
    let delete = m == Method::DELETE;
    if let Some(r) = super::programs::route(shared, parts, &query, body) {
        return r;
    }
    if shared.drift.removed(path) {
        return json_response(StatusCode::NOT_FOUND, r#"{"error":"not found"}"#.into());
    }
    match path {
        "/" | "/ok" if get => json_response(StatusCode::OK, "\"OK\"".into()),
        "/time" if get => json_response(StatusCode::OK, now_s().to_string()),
        "/version" if get => ok(&json!({"version": shared.clob_version})),
        "/markets" | "/sampling-markets" if get => markets(shared, &query, false),
        "/simplified-markets" | "/sampling-simplified-markets" if get => {
            markets(shared, &query, true)
        }
        "/book" if get => with_token(shared, &query, |ex, mi, ti| {
            json_response(
                StatusCode::OK,
                shared.drift.rest_book(events::book(ex, mi, ti, now_ms())),
            )
        }),
        "/books" if post => books(shared, body),
        "/price" if get => price(shared, &query),
        "/prices" if post => batch(shared, body, |ex, mi, ti, item| {
            let side = item.get("side").and_then(Value::as_str).unwrap_or("BUY");
            let b = ex.markets[mi].book.view(ti);
            let p = if side == "SELL" {
                b.best_ask()
            } else {
                b.best_bid()
            };
            json!({ side: p.map_or_else(|| "0".into(), events::price) })
        }),
        "/midpoint" if get => with_token(shared, &query, |ex, mi, ti| {
            ok(&json!({"mid": midpoint(ex, mi, ti)}))
        }),
        "/midpoints" if post => batch(shared, body, |ex, mi, ti, _| json!(midpoint(ex, mi, ti))),
        "/spread" if get => with_token(shared, &query, |ex, mi, ti| {
            ok(&json!({"spread": spread(ex, mi, ti)}))
        }),
        "/spreads" if post => batch(shared, body, |ex, mi, ti, _| json!(spread(ex, mi, ti))),
        "/tick-size" if get => with_token(shared, &query, |ex, mi, _| {
            ok(
                &json!({"minimum_tick_size": ex.markets[mi].spec.tick.as_str().parse::<f64>().unwrap_or(0.01)}),
            )
        }),
        "/neg-risk" if get => with_token(shared, &query, |ex, mi, _| {
            ok(&json!({"neg_risk": ex.markets[mi].spec.neg_risk}))
        }),
        "/fee-rate" if get => with_token(shared, &query, |ex, mi, _| fee_rate(ex, mi)),
        "/last-trade-price" if get => {
            with_token(shared, &query, |ex, mi, ti| ok(&last_trade(ex, mi, ti)))
        }
        "/last-trades-prices" if get || post => last_trades(shared, body),
        "/prices-history" if get => prices_history(shared, &query),
        "/auth/api-key" if post => l1_key(shared, parts, true),
        "/auth/derive-api-key" if get => l1_key(shared, parts, false),
        "/auth/api-keys" if get => l2(shared, parts, body, |ex, key| {
            ok(&json!({"apiKeys": ex.keys.of(&key.address)}))
        }),
        "/order" if post => l2(shared, parts, body, |ex, key| {
            shared.metered(parts, &key.address, Bucket::Order, 1, || {
                post_order(shared, ex, key, body)
            })
        }),
        "/orders" if post => l2(shared, parts, body, |ex, key| {
            let cost = match serde_json::from_slice::<Value>(body) {
                Ok(Value::Array(items)) => u32::try_from(items.len()).unwrap_or(u32::MAX).max(1),
                _ => 1,
            };
            shared.metered(parts, &key.address, Bucket::Order, cost, || {
                post_orders(shared, ex, key, body)
            })
        }),
        "/order" if delete => l2(shared, parts, body, |ex, key| {
            shared.metered(parts, &key.address, Bucket::Cancel, 1, || {
                let id = serde_json::from_slice::<Value>(body)
                    .ok()
                    .and_then(|v| v.get("orderID").and_then(Value::as_str).map(str::to_owned));
                match id {
                    Some(id) => cancel_resp(ex.cancel(&key.address, &[id])),
                    None => bad("Invalid order payload: expected {\"orderID\": \"0x…\"}"),
                }
            })
        }),
        "/orders" if delete => l2(
            shared,
            parts,
            body,
            |ex, key| match serde_json::from_slice::<Vec<String>>(body) {
                Ok(ids) if ids.len() > MAX_CANCEL_IDS => bad(&format!(
                    "Too many order IDs: at most {MAX_CANCEL_IDS} per request, got {}",
                    ids.len()
                )),
                Ok(ids) => {
                    let cost = u32::try_from(ids.len()).unwrap_or(u32::MAX).max(1);
                    shared.metered(parts, &key.address, Bucket::Cancel, cost, || {
                        cancel_resp(ex.cancel(&key.address, &ids))
                    })
                }
                Err(_) => bad("Invalid order payload: expected an array of order ids"),
            },
        ),
        "/cancel-all" if delete => l2(shared, parts, body, |ex, key| {
            // 1 + the number cancelled.
            let open = ex.open_orders(&key.address).len();
            let cost = u32::try_from(open).unwrap_or(u32::MAX).saturating_add(1);
            shared.metered(parts, &key.address, Bucket::Cancel, cost, || {
                cancel_resp(ex.cancel_where(&key.address, None, None))
            })
        }),
        "/v1/user/rate-limit-tier" if get => l2(shared, parts, body, |_, key| {
            ok(&json!({"tier": shared.rails().tier_of(&key.address).as_str()}))
        }),
        "/auth/ban-status/closed-only" if get => l2(shared, parts, body, |_, key| {
            ok(&json!({"closed_only": shared.rails().is_closed_only(&key.address)}))
        }),
        "/cancel-market-orders" if delete => l2(shared, parts, body, |ex, key| {
            // `{}` (or no body) has no filter: every market. Anything but an object is refused.
            let v: Value = match serde_json::from_slice(body) {
                Ok(v @ Value::Object(_)) => v,
                Err(_) if body.is_empty() => Value::Null,
                _ => return bad("Invalid payload: expected {\"market\": …, \"asset_id\": …}"),
            };
            let market = v
                .get("market")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty());
            let asset = v
                .get("asset_id")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty());
            let mi = market.map(|c| ex.market_by_condition(c));
            let ti = asset.map(|a| ex.token(a));
            // An unknown market or token matches nothing.
            let none = matches!(mi, Some(None)) || matches!(ti, Some(None));
            let (mi, ti) = (mi.flatten(), ti.flatten());
            // 1 + the number cancelled.
            let matching = if none {
                0
            } else {
                ex.open_orders(&key.address)
                    .iter()
                    .filter(|o| mi.is_none_or(|m| o.market == m))
                    .filter(|o| ti.is_none_or(|(m, t)| o.market == m && o.token == t))
                    .count()
            };
            let cost = u32::try_from(matching)
                .unwrap_or(u32::MAX)
                .saturating_add(1);
            shared.metered(parts, &key.address, Bucket::Cancel, cost, || {
                if none {
                    return cancel_resp(Canceled::default());
                }
                cancel_resp(ex.cancel_where(&key.address, mi, ti))
            })
        }),
        "/balance-allowance" | "/balance-allowance/update" if get => {
            l2(shared, parts, body, |ex, key| {
                balance_allowance(ex, key, &query, shared.chain)
            })
        }
        "/data/orders" if get => l2(shared, parts, body, |ex, key| {
            if q(&query, "asset_id").is_some() && q(&query, "market").is_none() {
                return bad(ASSET_WITHOUT_MARKET);
            }
            let items: Vec<Value> = ex
                .open_orders(&key.address)
                .into_iter()
                .filter(|o| q(&query, "id").is_none_or(|id| o.id.eq_ignore_ascii_case(id)))
                .filter(|o| {
                    q(&query, "market").is_none_or(|c| ex.markets[o.market].spec.condition_id == c)
                })
                .filter(|o| {
                    q(&query, "asset_id")
                        .is_none_or(|a| ex.markets[o.market].spec.tokens[o.token].token_id() == a)
                })
                .map(|o| events::order(ex, o))
                .collect();
            page(items, q(&query, "next_cursor"), shared.page_size)
        }),
        "/data/trades" if get => l2(shared, parts, body, |ex, key| {
            let before = q(&query, "before").and_then(|s| s.parse::<u64>().ok());
            let after = q(&query, "after").and_then(|s| s.parse::<u64>().ok());
            let items: Vec<Value> = ex
                .user_trades(&key.address)
                .into_iter()
                .filter(|t| q(&query, "id").is_none_or(|id| t.id == id))
                .filter(|t| {
                    q(&query, "market").is_none_or(|c| ex.markets[t.market].spec.condition_id == c)
                })
                .filter(|t| {
                    q(&query, "asset_id")
                        .is_none_or(|a| ex.markets[t.market].spec.tokens[t.token].token_id() == a)
                })
                .filter(|t| before.is_none_or(|b| t.match_time < b))
                .filter(|t| after.is_none_or(|a| t.match_time > a))
                .map(|t| events::trade(ex, t, &key.address))
                .filter(|v| {
                    q(&query, "maker_address").is_none_or(|m| {
                        v.get("maker_address")
                            .and_then(Value::as_str)
                            .is_some_and(|x| x.eq_ignore_ascii_case(m))
                    })
                })
                .collect();
            page(items, q(&query, "next_cursor"), shared.page_size)
        }),
        "/v1/heartbeats" | "/heartbeats" if post => l2(shared, parts, body, |ex, key| {
            let v: Value = if body.is_empty() {
                Value::Null
            } else {
                serde_json::from_slice(body).unwrap_or(Value::Null)
            };
            let id = v.get("heartbeat_id").and_then(Value::as_str);
            match ex.heartbeat(&key.address, id) {
                Ok(_) if shared.drift.has(Drift::HeartbeatWithoutId) => {
                    ok(&json!({"status": "ok"}))
                }
                Ok(next) => ok(&json!({"heartbeat_id": next, "error": null})),
                // The exchange's answer names the id the chain expects, so a client can
                // resynchronise (docs: order heartbeats).
                Err(e) => json_response(
                    StatusCode::BAD_REQUEST,
                    json!({
                        "error": e,
                        "error_msg": e,
                        "heartbeat_id": ex.heartbeat_id(&key.address),
                    })
                    .to_string(),
                ),
            }
        }),
        _ => {
            if let Some(rest) = path.strip_prefix("/markets/") {
                if get {
                    let ex = shared.ex();
                    return match ex.market_by_condition(rest) {
                        Some(mi) => ok(&events::market(&ex, mi)),
                        None => error_response(StatusCode::NOT_FOUND, "market not found"),
                    };
                }
            }
            // The docs' path form of `/fee-rate?token_id=`.
            if let Some(token) = path.strip_prefix("/fee-rate/").filter(|_| get) {
                let query = [("token_id".to_owned(), token.to_owned())];
                return with_token(shared, &query, |ex, mi, _| fee_rate(ex, mi));
            }
            if let Some(rest) = path.strip_prefix("/clob-markets/") {
                if get {
                    let ex = shared.ex();
                    return match ex.market_by_condition(rest) {
                        Some(mi) => ok(&events::clob_market(&ex, mi)),
                        None => error_response(StatusCode::NOT_FOUND, "market not found"),
                    };
                }
            }
            if let Some(rest) = path.strip_prefix("/markets-by-token/") {
                if get {
                    let ex = shared.ex();
                    return match ex.token(rest) {
                        Some((mi, _)) => {
                            let s = &ex.markets[mi].spec;
                            ok(&json!({
                                "condition_id": s.condition_id,
                                "primary_token_id": s.tokens[0].token_id(),
                                "secondary_token_id": s.tokens[1].token_id(),
                            }))
                        }
                        None => error_response(StatusCode::NOT_FOUND, "market not found"),
                    };
                }
            }
            if let Some(id) = path.strip_prefix("/data/order/") {
                if get {
                    let id = id.to_owned();
                    return l2(shared, parts, body, move |ex, key| match ex.order(&id) {
                        Some(o) if o.user == key.address => ok(&events::order(ex, o)),
                        _ => error_response(StatusCode::NOT_FOUND, "order not found"),
                    });
                }
            }
            error_response(StatusCode::NOT_FOUND, "Not Found")
        }
    }
}

fn markets(shared: &Shared, query: &[(String, String)], simplified: bool) -> Resp {
    let ex = shared.ex();
    let items: Vec<Value> = (0..ex.markets.len())
        .map(|mi| {
            if simplified {
                events::simplified_market(&ex, mi)
            } else {
                events::market(&ex, mi)
            }
        })
        .collect();
    page(items, q(query, "next_cursor"), shared.page_size)
}

/// `GET /prices-history?market=<token id>`: the token's taker fills as `{t, p}` points (the
/// interval and fidelity parameters are accepted and not applied); an unknown token has none.
fn prices_history(shared: &Shared, query: &[(String, String)]) -> Resp {
    let Some(token) = q(query, "market") else {
        return bad("market is required");
    };
    let ex = shared.ex();
    let history = ex
        .token(token)
        .map(|(mi, ti)| super::data_api::price_points(&ex, mi, ti))
        .unwrap_or_default();
    ok(&json!({ "history": history }))
}

/// `GET /fee-rate`: `base_fee`, the V1 fee authorization the venue still answers, 1000 on
/// every fee-charging market and 0 on fee-free ones (not the rate charged: that is `fd`).
fn fee_rate(ex: &Exchange, mi: usize) -> Resp {
    ok(&json!({"base_fee": events::base_fee_bps(&ex.markets[mi].spec)}))
}

fn with_token(
    shared: &Shared,
    query: &[(String, String)],
    f: impl FnOnce(&Exchange, usize, usize) -> Resp,
) -> Resp {
    let Some(token) = q(query, "token_id") else {
        return bad("Invalid token id");
    };
    let ex = shared.ex();
    match ex.token(token) {
        Some((mi, ti)) => f(&ex, mi, ti),
        None => error_response(
            StatusCode::NOT_FOUND,
            "No orderbook exists for the requested token id",
        ),
    }
}

fn price(shared: &Shared, query: &[(String, String)]) -> Resp {
    let side = match q(query, "side").map(str::as_bytes).and_then(Side::parse) {
        Some(s) => s,
        None => return bad("Invalid side"),
    };
    // Live exchange: side=BUY answers the best bid, side=SELL the best ask.
    with_token(shared, query, |ex, mi, ti| {
        let b = ex.markets[mi].book.view(ti);
        let p = match side {
            Side::Buy => b.best_bid(),
            Side::Sell => b.best_ask(),
        };
        match p {
            Some(p) => ok(&json!({"price": events::price(p)})),
            None => error_response(
                StatusCode::NOT_FOUND,
                "No orderbook exists for the requested token id",
            ),
        }
    })
}

fn midpoint(ex: &Exchange, mi: usize, ti: usize) -> String {
    let b = ex.markets[mi].book.view(ti);
    match (b.best_bid(), b.best_ask()) {
        // Every tick is a multiple of 100 micro-units, so the mean is a whole micro-unit.
        (Some(bid), Some(ask)) => events::price(((u64::from(bid) + u64::from(ask)) / 2) as u32),
        (Some(p), None) | (None, Some(p)) => events::price(p),
        (None, None) => "0".to_owned(),
    }
}

fn spread(ex: &Exchange, mi: usize, ti: usize) -> String {
    let b = ex.markets[mi].book.view(ti);
    match (b.best_bid(), b.best_ask()) {
        (Some(bid), Some(ask)) => events::price(ask.saturating_sub(bid)),
        _ => "0".to_owned(),
    }
}

fn last_trade(ex: &Exchange, mi: usize, ti: usize) -> Value {
    match ex.markets[mi].last_trade[ti] {
        Some((p, side)) => json!({"price": events::price(p), "side": side.as_str()}),
        None => json!({"price": "0.5", "side": ""}),
    }
}

/// Parses `[{"token_id": …}, …]`.
fn token_list(body: &[u8]) -> Result<Vec<Value>, Reject> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Array(items)) if items.len() <= 500 => Ok(items),
        Ok(Value::Array(_)) => Err(Reject::bad("Payload exceeds the limit")),
        _ => Err(Reject::bad("Invalid payload")),
    }
}

fn books(shared: &Shared, body: &[u8]) -> Resp {
    let items = match token_list(body) {
        Ok(i) => i,
        Err(r) => return r.into_response(),
    };
    let ex = shared.ex();
    let ts = now_ms();
    let out: Vec<String> = items
        .iter()
        .filter_map(|i| i.get("token_id").and_then(Value::as_str))
        .filter_map(|t| ex.token(t))
        .map(|(mi, ti)| events::book(&ex, mi, ti, ts))
        .collect();
    json_response(StatusCode::OK, format!("[{}]", out.join(",")))
}

/// `{token_id: f(..)}` over a `[{"token_id": …}]` body; unknown tokens are skipped.
fn batch(
    shared: &Shared,
    body: &[u8],
    f: impl Fn(&Exchange, usize, usize, &Value) -> Value,
) -> Resp {
    let items = match token_list(body) {
        Ok(i) => i,
        Err(r) => return r.into_response(),
    };
    let ex = shared.ex();
    let mut out = serde_json::Map::new();
    for item in &items {
        let Some(t) = item.get("token_id").and_then(Value::as_str) else {
            continue;
        };
        let Some((mi, ti)) = ex.token(t) else {
            continue;
        };
        let v = f(&ex, mi, ti, item);
        match (out.get_mut(t), v) {
            // /prices may ask both sides of one token: merge {"BUY":…} and {"SELL":…}.
            (Some(Value::Object(prev)), Value::Object(new)) => prev.extend(new),
            (_, v) => {
                out.insert(t.to_owned(), v);
            }
        }
    }
    ok(&Value::Object(out))
}

fn last_trades(shared: &Shared, body: &[u8]) -> Resp {
    let items = match token_list(body) {
        Ok(i) => i,
        Err(r) => return r.into_response(),
    };
    let ex = shared.ex();
    let out: Vec<Value> = items
        .iter()
        .filter_map(|i| i.get("token_id").and_then(Value::as_str))
        .filter_map(|t| ex.token(t).map(|x| (t, x)))
        .map(|(t, (mi, ti))| {
            let mut v = last_trade(&ex, mi, ti);
            if let Some(o) = v.as_object_mut() {
                o.insert("token_id".into(), json!(t));
            }
            v
        })
        .collect();
    ok(&Value::Array(out))
}

fn l1_key(shared: &Shared, parts: &Parts, create: bool) -> Resp {
    let l1 = match auth::l1(shared, &parts.headers) {
        Ok(l1) => l1,
        Err(r) => return r.into_response(),
    };
    let mut ex = shared.ex();
    let rec = if create {
        ex.keys.create(&l1.address, l1.nonce)
    } else {
        ex.keys.derive(&l1.address, l1.nonce)
    };
    match rec {
        Ok(k) => ok(&json!({"apiKey": k.key, "secret": k.secret, "passphrase": k.passphrase})),
        Err(e) => bad(e),
    }
}

fn placed_json(p: &Placed) -> Value {
    let amount = |v: u64| {
        if v == 0 {
            String::new()
        } else {
            events::size(v)
        }
    };
    json!({
        "success": true,
        "errorMsg": "",
        "orderID": p.id,
        "status": p.status,
        "makingAmount": amount(p.making),
        "takingAmount": amount(p.taking),
        "transactionsHashes": p.tx_hashes,
        "tradeIDs": p.trade_ids,
    })
}

/// Validates and places one order object; errors are `(status, message)`.
fn place_one(
    shared: &Shared,
    ex: &mut Exchange,
    key: &ApiKeyRec,
    v: &Value,
) -> Result<Placed, (StatusCode, String)> {
    let order = auth::parse_order(shared, ex, key, v).map_err(|e| (StatusCode::BAD_REQUEST, e))?;
    place_parsed(ex, order)
}

fn place_parsed(ex: &mut Exchange, order: NewOrder) -> Result<Placed, (StatusCode, String)> {
    ex.place(order).map_err(|e| {
        let status = if ex.cancel_only {
            StatusCode::SERVICE_UNAVAILABLE
        } else {
            StatusCode::BAD_REQUEST
        };
        (status, e)
    })
}

fn post_order(shared: &Shared, ex: &mut Exchange, key: &ApiKeyRec, body: &[u8]) -> Resp {
    let v: Value = match serde_json::from_slice(body) {
        Ok(v @ Value::Object(_)) => v,
        _ => return bad("Invalid order payload"),
    };
    let order = match auth::parse_order(shared, ex, key, &v) {
        Ok(o) => o,
        Err(e) => return bad(&e),
    };
    if let Some(r) = shared.order_gate(&key.address, order.post_only, order.side == Side::Buy) {
        return r;
    }
    match place_parsed(ex, order) {
        Ok(p) => ok(&placed_json(&p)),
        Err((status, e)) => error_response(status, &e),
    }
}

fn post_orders(shared: &Shared, ex: &mut Exchange, key: &ApiKeyRec, body: &[u8]) -> Resp {
    let items = match serde_json::from_slice::<Value>(body) {
        Ok(Value::Array(items)) if !items.is_empty() => items,
        _ => return bad("Invalid order payload"),
    };
    if items.len() > MAX_BATCH {
        return bad(&format!(
            "Too many orders in payload: {}, max allowed: {MAX_BATCH}",
            items.len()
        ));
    }
    if ex.cancel_only {
        return error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            "Trading is currently cancel-only. New orders are not accepted, but cancels are allowed.",
        );
    }
    let all_post_only = items
        .iter()
        .all(|v| v.get("postOnly").and_then(Value::as_bool) == Some(true));
    let any_buy = items.iter().any(|v| {
        v.get("order")
            .and_then(|o| o.get("side"))
            .is_some_and(|s| s.as_str() == Some("BUY") || s.as_u64() == Some(0))
    });
    if let Some(r) = shared.order_gate(&key.address, all_post_only, any_buy) {
        return r;
    }
    let out: Vec<Value> = items
        .iter()
        .map(|v| match place_one(shared, ex, key, v) {
            Ok(p) => placed_json(&p),
            Err((_, e)) => json!({
                "success": false,
                "errorMsg": e,
                "orderID": "",
                "status": "",
                "makingAmount": "",
                "takingAmount": "",
                "transactionsHashes": [],
                "tradeIDs": [],
            }),
        })
        .collect();
    ok(&Value::Array(out))
}

fn cancel_resp(c: Canceled) -> Resp {
    let not: serde_json::Map<String, Value> = c
        .not_canceled
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    ok(&json!({"canceled": c.canceled, "not_canceled": not}))
}

/// The address whose balances an API key's `signature_type` names: the key's own EOA (0), its
/// proxy wallet (1), its Safe (2), or its deposit wallet (3): the wallet the relayer knows as
/// the owner's, the one a session key is authorized for, else the owner's beacon wallet (the
/// one the factory deploys now).
fn funder(
    ex: &Exchange,
    key: &ApiKeyRec,
    signature_type: Option<&str>,
    chain: Chain,
) -> Option<Address> {
    let eoa: Address = key.address.parse().ok()?;
    match signature_type.unwrap_or("0") {
        "0" => Some(eoa),
        "1" => polyclob::sign::wallet::derive_proxy_wallet(eoa, chain),
        "2" => Some(polyclob::sign::wallet::derive_safe_wallet(eoa, chain)),
        "3" => {
            let signers = &ex.programs.session_signers;
            let own = signers.get(&format!("{eoa:#x}")).and_then(|r| r.wallet);
            let session = || {
                signers
                    .values()
                    .find(|r| r.signers.iter().any(|(a, _, _)| *a == eoa))
                    .and_then(|r| r.wallet)
            };
            Some(
                own.or_else(session)
                    .unwrap_or_else(|| polyclob::sign::wallet::derive_deposit_wallets(eoa)[1]),
            )
        }
        _ => None,
    }
}

/// `GET /balance-allowance?asset_type=COLLATERAL|CONDITIONAL&token_id=…&signature_type=…`:
/// `{"balance": "<micro-units>", "allowances": {spender: "<amount>"}}` from the ledger
/// (for outcome tokens an operator's allowance is the maximum when approved, else 0).
pub(crate) fn balance_allowance(
    ex: &Exchange,
    key: &ApiKeyRec,
    query: &[(String, String)],
    chain: Chain,
) -> Resp {
    let q = |k: &str| query.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    let Some(who) = funder(ex, key, q("signature_type"), chain) else {
        return error_response(
            StatusCode::BAD_REQUEST,
            "invalid signature_type: expected 0 (EOA), 1 (proxy), 2 (Safe) or 3 (deposit wallet)",
        );
    };
    let ledger = ex.ledger();
    let c = &ledger.contracts;
    let body = match q("asset_type").map(str::to_ascii_uppercase).as_deref() {
        Some("COLLATERAL") => {
            let allowances: serde_json::Map<String, Value> = c
                .collateral_spenders()
                .into_iter()
                .map(|s| {
                    (
                        s.to_checksum(None),
                        json!(ledger.allowance_of(who, s).to_string()),
                    )
                })
                .collect();
            json!({"balance": ledger.collateral_of(who).to_string(), "allowances": allowances})
        }
        Some("CONDITIONAL" | "CONDITIONAL-V2") => {
            let Some(token) = q("token_id").and_then(|t| t.parse::<U256>().ok()) else {
                return error_response(
                    StatusCode::BAD_REQUEST,
                    "token_id is required for asset_type CONDITIONAL",
                );
            };
            let allowances: serde_json::Map<String, Value> = c
                .token_operators()
                .into_iter()
                .map(|op| {
                    let v = if ledger.is_operator(who, op) {
                        U256::MAX
                    } else {
                        U256::ZERO
                    };
                    (op.to_checksum(None), json!(v.to_string()))
                })
                .collect();
            json!({"balance": ledger.token_of(who, token).to_string(), "allowances": allowances})
        }
        _ => {
            return error_response(
                StatusCode::BAD_REQUEST,
                "asset_type must be COLLATERAL or CONDITIONAL",
            );
        }
    };
    ok(&body)
}
