//! The Data API v2 served from the simulator's own trades, under `/data-api`:
//! `/v2/positions`, `/v2/trades`, `/v2/activity`, `/v2/value`, `/v2/holders`, in the
//! `{data, pagination}` envelope, and the unpaginated `{data}` figures `/v2/resolutions`
//! (by `condition`: the ledger's payouts once a market is resolved), `/v2/oi` (open interest:
//! the value of the positions held) and `/v2/prices-history` (a token's fills) with opaque cursors (`cursor` in, `pagination.next_cursor`
//! out, `null` on the last page; `limit` applies to the first page only, the cursor carries it
//! after), snake_case fields, at most 20 `condition` ids a request.
//!
//! Trades and activity are derived from the CLOB's trade log, so a fill on the simulator shows
//! up here at once: one row per order fill (the taker's, and with `taker_only=false` each
//! maker's). Positions come from the ledger the fills settle on: the balance held, the
//! fill-weighted average entry price of the shares bought and still held (average-cost
//! method, polyclob's `CostBasis`), their entry cost and the buy fees attributed to them
//! (`entry_fees_usdc`; `total_cost_usdc` is both), and realized PnL net of fees. Activity
//! lists the maker rebates paid (`MAKER_REBATE`) beside the trades, filtered by `type`.
//! Wallets are the orders' `maker` addresses (the funder; the signer for EOA orders); a
//! `user` filter matches either the maker or the signer.
//!
//! Every answer carries an `x-trace-id` header, and every error the documented v2 body
//! `{error, code, retryable, trace_id, parameter?}` (`invalid_request` 400 naming the
//! parameter, `not_found` 404, `method_not_allowed` 405; injected faults answer
//! `rate_limited` 429 and `request_timeout` / `dependency_unavailable` 503, retryable, with
//! `Retry-After`).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};

use alloy_primitives::{Address, U256};

use bytes::Bytes;
use http_body_util::Full;
use hyper::http::request::Parts;
use hyper::{Method, Response, StatusCode};
use serde_json::{Value, json};

use super::http::{json_response, parse_query, q};
use super::shared::Shared;
use crate::exchange::rebates::Payout;
use crate::exchange::state::Exchange;
use crate::scenario::drift::Drift;
use crate::scenario::faults::HttpFault;
use polyclob::types::Side;

type Resp = Response<Full<Bytes>>;

/// Path prefix of the Data API routes.
pub(crate) const PREFIX: &str = "/data-api";

const DEFAULT_LIMIT: usize = 100;
/// The docs' `limit` maximum ("0..=1000" on every paged v2 route).
const MAX_LIMIT: usize = 1_000;
const MAX_CONDITIONS: usize = 20;
pub(super) const ONE: i128 = 1_000_000;

/// Whether `path` is one of the Data API's.
pub(crate) fn owns(path: &str) -> bool {
    path.strip_prefix(PREFIX)
        .is_some_and(|p| p.is_empty() || p.starts_with('/'))
}

/// Serves a `/data-api/...` request, with its `x-trace-id`; `None` for any other path.
pub(crate) fn route(shared: &Shared, parts: &Parts) -> Option<Resp> {
    if !owns(parts.uri.path()) {
        return None;
    }
    let mut r = answer(shared, parts)?;
    stamp(&mut r);
    Some(r)
}

/// An injected fault in the Data API's shape: `429 rate_limited` with the rule's
/// `Retry-After`; `503 request_timeout` for an outage and `503 dependency_unavailable` for a
/// restarting engine, each with `Retry-After: 1`. All retryable.
pub(crate) fn fault(f: HttpFault) -> Resp {
    let (status, code, retry_after) = match f {
        HttpFault::RateLimited { retry_after } => (
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0),
        ),
        HttpFault::TooEarly => (StatusCode::SERVICE_UNAVAILABLE, "dependency_unavailable", 1),
        _ => (StatusCode::SERVICE_UNAVAILABLE, "request_timeout", 1),
    };
    let mut r = api_error(status, code, f.message(), None);
    if let Ok(v) = hyper::header::HeaderValue::from_str(&retry_after.to_string()) {
        r.headers_mut().insert(hyper::header::RETRY_AFTER, v);
    }
    stamp(&mut r);
    r
}

/// The request's trace id, in the header and (for an error) already in the body.
fn stamp(r: &mut Resp) {
    if r.headers().contains_key(TRACE_ID) {
        return;
    }
    if let Ok(v) = hyper::header::HeaderValue::from_str(&next_trace_id()) {
        r.headers_mut().insert(TRACE_ID, v);
    }
}

/// The header every Data API answer carries.
const TRACE_ID: &str = "x-trace-id";

/// A fresh trace id: distinct for every answer of the process.
fn next_trace_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!("sim{:013x}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// The documented v2 error: `{error, code, retryable, trace_id, parameter?}`, the trace id
/// also in `x-trace-id`. Only the documented transient codes are retryable.
pub(super) fn api_error(
    status: StatusCode,
    code: &str,
    msg: &str,
    parameter: Option<&str>,
) -> Resp {
    let trace = next_trace_id();
    let retryable = matches!(
        code,
        "request_timeout" | "rate_limited" | "dependency_unavailable"
    );
    let mut body = json!({"error": msg, "code": code, "retryable": retryable, "trace_id": trace});
    if let Some(p) = parameter {
        body["parameter"] = json!(p);
    }
    let mut r = json_response(status, body.to_string());
    if let Ok(v) = hyper::header::HeaderValue::from_str(&trace) {
        r.headers_mut().insert(TRACE_ID, v);
    }
    r
}

fn answer(shared: &Shared, parts: &Parts) -> Option<Resp> {
    let path = parts.uri.path().strip_prefix(PREFIX)?;
    if parts.method != Method::GET {
        return Some(api_error(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "GET only",
            None,
        ));
    }
    let query = parse_query(parts.uri.query());
    let conditions: Vec<String> = ["condition", "condition_id", "conditionId"]
        .iter()
        .filter_map(|k| q(&query, k))
        .flat_map(|v| v.split(','))
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty())
        .collect();
    let mut distinct = conditions.clone();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() > MAX_CONDITIONS {
        return Some(bad(
            "condition",
            &format!(
                "at most {MAX_CONDITIONS} distinct condition ids, got {}",
                distinct.len()
            ),
        ));
    }
    let ex = shared.ex();
    // A V2 (62-hex) condition id arrives right-padded to 64 hex, the form the API requires.
    let in_market = |mi: usize| {
        let own = &ex.markets[mi].spec.condition_id;
        let padded = polyclob::types::ConditionId::parse_for(own, polyclob::types::Protocol::V2)
            .map(|c| c.to_string());
        distinct.is_empty()
            || distinct.iter().any(|c| {
                c.eq_ignore_ascii_case(own)
                    || padded.as_ref().is_ok_and(|p| c.eq_ignore_ascii_case(p))
            })
    };
    let user = q(&query, "user").map(str::to_ascii_lowercase);
    Some(match path {
        "/v2/positions" => {
            let Some(user) = user else {
                return Some(bad("user", "user is required"));
            };
            let status = q(&query, "status").map(str::to_ascii_uppercase);
            let rows: Vec<Value> = positions(&ex)
                .into_iter()
                .filter(|p| p.wallet == user || p.signer == user)
                .filter(|p| in_market(p.market))
                .filter(|p| status.as_deref().is_none_or(|s| p.status() == s))
                .map(|p| p.to_json(&ex))
                .collect();
            page(rows, &query)
        }
        "/v2/trades" | "/v2/activity" => {
            let activity = path == "/v2/activity";
            if activity && user.is_none() {
                return Some(bad("user", "user is required"));
            }
            // The feed default serves each fill once, on its taker side; a user's own
            // activity lists both roles.
            let taker_only = !activity && q(&query, "taker_only") != Some("false");
            let side =
                q(&query, "side").and_then(|s| Side::parse(s.to_ascii_uppercase().as_bytes()));
            let kinds = match activity.then(|| q(&query, "type")).flatten().map(kinds) {
                Some(Ok(k)) => Some(k),
                Some(Err(e)) => return Some(bad("type", &e)),
                None => None,
            };
            let wants = |kind: &str| kinds.as_ref().is_none_or(|k| k.iter().any(|x| x == kind));
            let mut rows: Vec<(u64, Value)> = fills(&ex)
                .into_iter()
                .filter(|_| wants("TRADE"))
                .filter(|f| !taker_only || f.taker)
                .filter(|f| {
                    user.as_deref()
                        .is_none_or(|u| f.wallet == u || f.signer == u)
                })
                .filter(|f| in_market(f.market))
                .filter(|f| side.is_none_or(|s| f.side == s))
                .map(|f| (f.time, f.to_json(&ex, activity)))
                .collect();
            if activity && wants("MAKER_REBATE") && side.is_none() {
                let mine = |p: &&Payout| user.as_deref() == Some(p.wallet.as_str());
                let rebates = ex.rebates.payouts.iter().filter(mine);
                rows.extend(
                    rebates
                        .filter(|p| in_market(p.market))
                        .map(|p| (p.time, rebate_row(&ex, p))),
                );
                rows.sort_by_key(|(t, _)| *t); // stable: trades keep their order
            }
            let mut rows: Vec<Value> = rows.into_iter().map(|(_, v)| v).collect();
            rows.reverse(); // newest first
            page(rows, &query)
        }
        "/v2/value" => {
            let Some(user) = user else {
                return Some(bad("user", "user is required"));
            };
            let value: i128 = positions(&ex)
                .into_iter()
                .filter(|p| (p.wallet == user || p.signer == user) && in_market(p.market))
                .map(|p| p.current_value(&ex))
                .sum();
            ok(&json!({"data": {"proxy_wallet": user, "value": num(value)}}))
        }
        "/v2/holders" => {
            if distinct.is_empty() {
                return Some(bad("condition", "condition is required"));
            }
            let mut groups: BTreeMap<(usize, usize), Vec<Value>> = BTreeMap::new();
            let mut held: Vec<Pos> = positions(&ex)
                .into_iter()
                .filter(|p| in_market(p.market) && p.held > 0)
                .collect();
            held.sort_by_key(|p| std::cmp::Reverse(p.held));
            for p in held {
                groups.entry((p.market, p.token)).or_default().push(json!({
                    "proxy_wallet": p.wallet,
                    "amount": num(p.held),
                    "outcome_index": p.token,
                }));
            }
            let rows: Vec<Value> = groups
                .into_iter()
                .map(|((mi, ti), holders)| {
                    json!({"token_id": ex.markets[mi].spec.tokens[ti].token_id(), "holders": holders})
                })
                .collect();
            page(rows, &query)
        }
        "/v2/resolutions" => {
            if distinct.is_empty() {
                return Some(bad(
                    "condition",
                    "one of question_id, condition or event_id is required",
                ));
            }
            let payouts_key = if shared.drift.has(Drift::RenamedResolutionField) {
                "payout_numerators"
            } else {
                "payouts"
            };
            let rows: Vec<Value> = (0..ex.markets.len())
                .filter(|&mi| in_market(mi))
                .map(|mi| {
                    let s = &ex.markets[mi].spec;
                    let payouts = ex.ledger().payouts(&s.condition_id);
                    let mut row = json!({
                        "question_id": s.question_id,
                        "condition_id": s.condition_id,
                        "status": if payouts.is_some() { "resolved" } else { "initialized" },
                        "reporter": "UMA_OO",
                        "market_type": if s.neg_risk { "INCREMENTAL_NEGRISK" } else { "BINARY" },
                        "extended_review": false,
                        "was_disputed": false,
                        "was_arbitrated": false,
                    });
                    // Micro-units of pUSD per share: the winner pays $1.
                    row[payouts_key] = json!(
                        payouts
                            .map_or_else(Vec::new, |p| p.iter().map(|n| n * 1_000_000).collect())
                    );
                    row
                })
                .collect();
            ok(&json!({ "data": rows }))
        }
        "/v2/oi" => {
            let held = positions(&ex);
            let mut rows = Vec::new();
            let value = |mi: Option<usize>| -> i128 {
                held.iter()
                    .filter(|p| mi.is_none_or(|m| p.market == m))
                    .map(|p| p.current_value(&ex))
                    .sum()
            };
            if distinct.is_empty() {
                rows.push(json!({"condition_id": "GLOBAL", "value": num(value(None))}));
            }
            for mi in (0..ex.markets.len()).filter(|&mi| !distinct.is_empty() && in_market(mi)) {
                rows.push(json!({
                    "condition_id": ex.markets[mi].spec.condition_id,
                    "value": num(value(Some(mi))),
                }));
            }
            ok(&json!({ "data": rows }))
        }
        "/v2/prices-history" => {
            let Some(token) = q(&query, "token_id") else {
                return Some(bad("token_id", "token_id is required"));
            };
            let Some((market, index)) = ex.token(token) else {
                return Some(ok(&json!({ "data": [] })));
            };
            ok(&json!({ "data": price_points(&ex, market, index) }))
        }
        _ => super::data_figures::route(shared, &ex, path, &query, user.as_deref())
            .unwrap_or_else(|| api_error(StatusCode::NOT_FOUND, "not_found", "Not Found", None)),
    })
}

pub(super) fn ok(v: &Value) -> Resp {
    json_response(StatusCode::OK, v.to_string())
}

/// `400 invalid_request` naming the refused `parameter`.
pub(super) fn bad(parameter: &str, msg: &str) -> Resp {
    api_error(
        StatusCode::BAD_REQUEST,
        "invalid_request",
        msg,
        Some(parameter),
    )
}

/// A signed micro-unit figure as a JSON number (the v2 contract: amounts are numbers).
pub(super) fn num(micros: i128) -> Value {
    let sign = if micros < 0 { "-" } else { "" };
    let a = micros.unsigned_abs();
    let text = format!("{sign}{}.{:06}", a / 1_000_000, a % 1_000_000);
    text.parse::<f64>().map_or(Value::Null, |f| json!(f))
}

/// The activity `type`s the v2 feed takes (docs: "List account activity"); another is a 400.
const ACTIVITY_TYPES: [&str; 14] = [
    "TRADE",
    "SPLIT",
    "MERGE",
    "REDEEM",
    "CONVERSION",
    "MIGRATION",
    "REWARD",
    "YIELD",
    "MAKER_REBATE",
    "TAKER_REBATE",
    "REFERRAL_REWARD",
    "DEPOSIT",
    "WITHDRAWAL",
    "TIP",
];

/// A `type` filter: a comma-separated list of [`ACTIVITY_TYPES`].
fn kinds(text: &str) -> Result<Vec<String>, String> {
    text.split(',')
        .map(|k| k.trim().to_ascii_uppercase())
        .map(|k| {
            if ACTIVITY_TYPES.contains(&k.as_str()) {
                Ok(k)
            } else {
                Err(format!(
                    "invalid type {k:?}: expected one of {}",
                    ACTIVITY_TYPES.join(", ")
                ))
            }
        })
        .collect()
}

/// A paid maker rebate as an activity row.
fn rebate_row(ex: &Exchange, p: &Payout) -> Value {
    let s = &ex.markets[p.market].spec;
    json!({
        "proxy_wallet": p.wallet,
        "timestamp": p.time,
        "type": "MAKER_REBATE",
        "condition_id": s.condition_id,
        "size": num(i128::from(p.amount)),
        "usdc_size": num(i128::from(p.amount)),
        "title": s.question,
        "slug": s.slug,
        "event_slug": s.slug,
        "transaction_hash": p.tx_hash,
    })
}

/// One order's share of a trade.
pub(super) struct FillRow {
    pub(super) wallet: String,
    pub(super) signer: String,
    pub(super) taker: bool,
    pub(super) side: Side,
    pub(super) market: usize,
    pub(super) token: usize,
    pub(super) size: u64,
    /// Size-weighted average price in micro-units.
    pub(super) price: u64,
    pub(super) time: u64,
    pub(super) tx: String,
}

impl FillRow {
    fn to_json(&self, ex: &Exchange, activity: bool) -> Value {
        let s = &ex.markets[self.market].spec;
        let size = i128::from(self.size);
        let price = i128::from(self.price);
        let mut v = json!({
            "proxy_wallet": self.wallet,
            "side": self.side.as_str(),
            "token_id": s.tokens[self.token].token_id(),
            "condition_id": s.condition_id,
            "size": num(size),
            "price": num(price),
            "timestamp": self.time,
            "title": s.question,
            "slug": s.slug,
            "event_slug": s.slug,
            "outcome": s.tokens[self.token].outcome(),
            "outcome_index": self.token,
            "transaction_hash": self.tx,
        });
        if activity {
            v["type"] = json!("TRADE");
            v["usdc_size"] = num(size * price / ONE);
        }
        v
    }
}

/// A token's price history: `{t, p}` per taker fill, oldest first (the Data API's
/// `/v2/prices-history` rows and the CLOB's `/prices-history` `history`).
pub(crate) fn price_points(ex: &Exchange, market: usize, index: usize) -> Vec<Value> {
    fills(ex)
        .into_iter()
        .filter(|f| f.taker && f.market == market && f.token == index)
        .map(|f| json!({"t": f.time, "p": num(i128::from(f.price))}))
        .collect()
}

/// Every order fill, oldest first: the taker's row per trade, then one row per maker fill.
pub(super) fn fills(ex: &Exchange) -> Vec<FillRow> {
    let mut out = Vec::new();
    for t in &ex.trades {
        // A failed trade never happened (one still settling is listed, as matched).
        if t.status == "FAILED" {
            continue;
        }
        let who = |seq: u64| {
            ex.order_by_seq(seq).map_or_else(
                || (String::new(), String::new()),
                |o| (o.maker_address.to_ascii_lowercase(), o.user.clone()),
            )
        };
        let notional: u128 = t
            .fills
            .iter()
            .map(|f| u128::from(f.size) * u128::from(ex.taker_view_price(t, f)))
            .sum();
        let avg = notional
            .checked_div(u128::from(t.size))
            .and_then(|p| u64::try_from(p).ok())
            .unwrap_or(u64::from(t.price));
        let (wallet, signer) = who(t.taker_seq);
        out.push(FillRow {
            wallet,
            signer,
            taker: true,
            side: t.side,
            market: t.market,
            token: t.token,
            size: t.size,
            price: avg,
            time: t.match_time,
            tx: t.tx_hash.clone(),
        });
        for f in &t.fills {
            let (wallet, signer) = who(f.maker_seq);
            // A maker on the other token (an RFQ mint or merge) shares the taker's side.
            let (side, token) = ex
                .order_by_seq(f.maker_seq)
                .map_or((t.side.opposite(), t.token), |o| (o.side, o.token));
            out.push(FillRow {
                wallet,
                signer,
                taker: false,
                side,
                market: t.market,
                token,
                size: f.size,
                price: u64::from(f.price),
                time: t.match_time,
                tx: t.tx_hash.clone(),
            });
        }
    }
    out
}

/// A wallet's position in one token: the ledger's balance and cost basis.
struct Pos {
    wallet: String,
    signer: String,
    market: usize,
    token: usize,
    /// Shares held (micro-units), the ledger's balance.
    held: i128,
    /// Fill-weighted average price of the shares bought and still held (micro-pUSD).
    avg: i128,
    /// Cost basis of the shares bought and still held (micro-pUSD), fees apart.
    cost: i128,
    /// The buy fees attributed to the shares held (micro-pUSD).
    fees: i128,
    bought: i128,
    realized: i128,
}

impl Pos {
    fn status(&self) -> &'static str {
        if self.held > 0 { "OPEN" } else { "CLOSED" }
    }

    fn avg_price(&self) -> i128 {
        if self.held > 0 { self.avg } else { 0 }
    }

    fn mark(&self, ex: &Exchange) -> i128 {
        let m = &ex.markets[self.market];
        let b = m.book.view(self.token);
        let p = match (b.best_bid(), b.best_ask()) {
            (Some(bid), Some(ask)) => (bid + ask) / 2,
            _ => m.last_trade[self.token].map_or(0, |(p, _)| p),
        };
        i128::from(p)
    }

    fn current_value(&self, ex: &Exchange) -> i128 {
        self.held.max(0) * self.mark(ex) / ONE
    }

    fn to_json(&self, ex: &Exchange) -> Value {
        let s = &ex.markets[self.market].spec;
        let value = self.current_value(ex);
        json!({
            "proxy_wallet": self.wallet,
            "condition_id": s.condition_id,
            "token_id": s.tokens[self.token].token_id(),
            "outcome": s.tokens[self.token].outcome(),
            "outcome_index": self.token,
            "title": s.question,
            "slug": s.slug,
            "event_slug": s.slug,
            "status": self.status(),
            "current_size": num(self.held.max(0)),
            "avg_price": num(self.avg_price()),
            "current_price": num(self.mark(ex)),
            "entry_cost_usdc": num(self.cost.max(0)),
            "entry_fees_usdc": num(self.fees),
            "total_cost_usdc": num(self.cost.max(0) + self.fees),
            "current_value": num(value),
            "total_bought": num(self.bought),
            "realized_pnl": num(self.realized),
            "unrealized_pnl": num(value - self.cost.max(0) - self.fees),
            "redeemable": false,
            "mergeable": false,
            "negative_risk": s.neg_risk,
            "end_date": s.end_date_iso,
        })
    }
}

/// Positions of every account (the simulator's own liquidity excepted) from the ledger:
/// sizes are its balances, average prices and PnL its cost bases, so they agree with the
/// fills that moved them (and outlive the trade log).
fn positions(ex: &Exchange) -> Vec<Pos> {
    let ledger = ex.ledger();
    let signers: HashMap<String, &str> = ex
        .orders
        .values()
        .map(|o| (o.maker_address.to_ascii_lowercase(), o.user.as_str()))
        .collect();
    let mut keys: BTreeSet<(Address, U256)> = ledger.basis.keys().copied().collect();
    keys.extend(ledger.holdings().map(|(who, id, _)| (who, id)));
    let micros = |v: u128| i128::try_from(v).unwrap_or(i128::MAX);
    let mut out: BTreeMap<(String, usize, usize), Pos> = BTreeMap::new();
    for (who, id) in keys {
        let Some((market, token)) = ex.token(&id.to_string()) else {
            continue;
        };
        let wallet = format!("{who:#x}");
        let basis = ledger.basis.get(&(who, id)).copied().unwrap_or_default();
        let held = u128::try_from(ledger.token_of(who, id)).unwrap_or(u128::MAX);
        let signer = signers
            .get(&wallet)
            .map_or_else(|| wallet.clone(), |s| (*s).to_owned());
        out.insert(
            (wallet.clone(), market, token),
            Pos {
                wallet,
                signer,
                market,
                token,
                held: micros(held),
                avg: basis.avg_price().map_or(0, |p| i128::from(p.as_micros())),
                cost: basis.cost().floor_micros().map_or(i128::MAX, i128::from),
                fees: i128::from(basis.fees().as_micros()),
                bought: i128::from(basis.bought().as_micros()),
                realized: i128::from(basis.realized().as_micros()),
            },
        );
    }
    out.into_values().collect()
}

/// A cursor page of `rows`: `limit` on the first request, the cursor's own size after.
pub(super) fn page(rows: Vec<Value>, query: &[(String, String)]) -> Resp {
    let (start, limit) = match q(query, "cursor") {
        Some(c) => match decode_cursor(c) {
            Some(v) => v,
            None => return bad("cursor", "invalid cursor"),
        },
        None => match q(query, "limit").map(str::parse::<usize>) {
            None => (0, DEFAULT_LIMIT),
            Some(Ok(l)) if (1..=MAX_LIMIT).contains(&l) => (0, l),
            Some(_) => return bad("limit", &format!("limit must be between 1 and {MAX_LIMIT}")),
        },
    };
    let total = rows.len();
    let data: Vec<Value> = rows.into_iter().skip(start).take(limit).collect();
    let end = start + data.len();
    let has_more = end < total;
    let next = if has_more {
        json!(encode_cursor(end, limit))
    } else {
        Value::Null
    };
    ok(&json!({
        "data": data,
        "pagination": {"limit": limit, "offset": start, "has_more": has_more, "next_cursor": next},
    }))
}

fn encode_cursor(offset: usize, limit: usize) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("sim-data:{offset}:{limit}"))
}

fn decode_cursor(c: &str) -> Option<(usize, usize)> {
    use base64::Engine as _;
    let b = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(c)
        .ok()?;
    let s = String::from_utf8(b).ok()?;
    let (o, l) = s.strip_prefix("sim-data:")?.split_once(':')?;
    let limit: usize = l.parse().ok()?;
    (1..=MAX_LIMIT)
        .contains(&limit)
        .then_some(())
        .and(o.parse().ok().map(|o| (o, limit)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn errors_have_the_documented_shape() {
        let r = bad("user", "user is required");
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
        let trace = r.headers()[TRACE_ID].to_str().unwrap().to_owned();
        let body: Value = serde_json::from_slice(&body_bytes(r).await).unwrap();
        assert_eq!(body["code"], "invalid_request");
        assert_eq!(body["retryable"], false);
        assert_eq!(body["parameter"], "user");
        assert_eq!(body["trace_id"], trace.as_str());
        let r = fault(HttpFault::Unavailable);
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(r.headers()[hyper::header::RETRY_AFTER], "1");
        let body: Value = serde_json::from_slice(&body_bytes(r).await).unwrap();
        assert_eq!(
            (&body["code"], &body["retryable"]),
            (&json!("request_timeout"), &json!(true))
        );
        assert!(body.get("parameter").is_none());
    }

    async fn body_bytes(r: Resp) -> Bytes {
        use http_body_util::BodyExt as _;
        r.into_body().collect().await.unwrap().to_bytes()
    }

    #[test]
    fn cursors_and_numbers() {
        assert_eq!(decode_cursor(&encode_cursor(7, 3)), Some((7, 3)));
        assert_eq!(decode_cursor(&encode_cursor(7, 0)), None);
        assert_eq!(decode_cursor("junk"), None);
        assert_eq!(num(-1_500_000), json!(-1.5));
        assert_eq!(num(520_000), json!(0.52));
    }
}
