//! Request for quote: requests, quotes, accept (requester) and approve (quoter). An approved
//! quote settles as one trade between the two signed V1 orders, reported in `/data/trades`
//! and on the user channel like any book trade.
//!
//! Every match type the exchange knows settles: complementary (the quoter takes the other
//! side of the requested token), mint (both sides buy: the quoter buys the complement token,
//! and the two payments fund a split of the full set) and merge (both sides sell: the two
//! tokens merge back into collateral shared at the two prices).

use hyper::http::request::Parts;
use hyper::{Method, StatusCode};
use serde_json::{Value, json};

use super::auth::{self, l2};
use super::http::{Reject, Resp, error_response, ok, page, q};
use super::shared::Shared;
use crate::exchange::events;
use crate::exchange::keys::ApiKeyRec;
use crate::exchange::orders::NewOrder;
use crate::exchange::rfq::{Match, Phase, QuoteRec, RequestRec, Terms};
use crate::exchange::state::{Exchange, now_s};
use polyclob::types::Side;

/// How long a request stays open, seconds.
const REQUEST_TTL: u64 = 300;

fn bad(msg: &str) -> Resp {
    error_response(StatusCode::BAD_REQUEST, msg)
}

fn body_json(body: &[u8]) -> Result<Value, Reject> {
    serde_json::from_slice::<Value>(body)
        .ok()
        .filter(Value::is_object)
        .ok_or_else(|| Reject::bad("Invalid payload: expected a JSON object"))
}

fn field<'a>(v: &'a Value, k: &str) -> Result<&'a str, Reject> {
    v.get(k)
        .and_then(Value::as_str)
        .ok_or_else(|| Reject::bad(format!("Invalid payload: `{k}` must be a string")))
}

fn amount(v: &Value, k: &str) -> Result<u64, Reject> {
    field(v, k)?
        .parse::<u64>()
        .ok()
        .filter(|a| *a > 0)
        .ok_or_else(|| {
            Reject::bad(format!(
                "Invalid payload: `{k}` must be a positive integer string"
            ))
        })
}

/// Terms of a request or quote body: `{assetIn, assetOut, amountIn, amountOut}`.
fn terms(ex: &Exchange, v: &Value) -> Result<Terms, Reject> {
    let (a_in, a_out) = (field(v, "assetIn")?, field(v, "assetOut")?);
    let (n_in, n_out) = (amount(v, "amountIn")?, amount(v, "amountOut")?);
    let (token, side, shares, usdc) = match (a_in, a_out) {
        (t, "0") if t != "0" => (t, Side::Buy, n_in, n_out),
        ("0", t) if t != "0" => (t, Side::Sell, n_out, n_in),
        _ => {
            return Err(Reject::bad(
                "Invalid payload: exactly one of assetIn/assetOut must be \"0\"",
            ));
        }
    };
    let (mi, ti) = ex
        .token(token)
        .ok_or_else(|| Reject::bad(format!("market not found for token id {token}")))?;
    if !ex.markets[mi].spec.rfq {
        return Err(Reject::bad(format!(
            "RFQ is not enabled for market {}",
            ex.markets[mi].spec.condition_id
        )));
    }
    let t = Terms {
        mi,
        ti,
        side,
        shares,
        usdc,
    };
    let tick = ex.markets[mi].spec.tick.as_micros();
    let exact = u128::from(usdc) * 1_000_000 % u128::from(shares) == 0;
    let p = t.price();
    if !exact || p % tick != 0 || p < tick || p > 1_000_000 - tick {
        return Err(Reject::bad(format!(
            "invalid RFQ price: {usdc}/{shares} is not on the {} tick grid",
            ex.markets[mi].spec.tick.as_str()
        )));
    }
    Ok(t)
}

fn new_id(ex: &mut Exchange, prefix: &str) -> String {
    let rfq = &mut ex.programs.rfq;
    rfq.next += 1;
    format!("{prefix}-{}", rfq.next)
}

fn row(ex: &Exchange, t: &Terms, user: &str) -> serde_json::Map<String, Value> {
    let s = &ex.markets[t.mi].spec;
    let (size_in, size_out) = match t.side {
        Side::Buy => (t.shares, t.usdc),
        Side::Sell => (t.usdc, t.shares),
    };
    let mut m = serde_json::Map::new();
    m.insert("userAddress".into(), json!(user));
    m.insert("proxyAddress".into(), json!(user));
    m.insert("condition".into(), json!(s.condition_id));
    m.insert("token".into(), json!(s.tokens[t.ti].token_id()));
    m.insert("complement".into(), json!(s.tokens[1 - t.ti].token_id()));
    m.insert("side".into(), json!(t.side.as_str()));
    m.insert("sizeIn".into(), json!(events::size(size_in)));
    m.insert("sizeOut".into(), json!(events::size(size_out)));
    m.insert("price".into(), json!(events::price(t.price())));
    m
}

fn request_json(ex: &Exchange, r: &RequestRec) -> Value {
    let mut m = row(ex, &r.terms, &r.user);
    m.insert("requestId".into(), json!(r.id));
    m.insert("expiry".into(), json!(r.expiry));
    m.insert(
        "state".into(),
        json!(if r.phase == Phase::Active {
            "active"
        } else {
            "inactive"
        }),
    );
    Value::Object(m)
}

fn quote_json(ex: &Exchange, qr: &QuoteRec) -> Value {
    let mut m = row(ex, &qr.terms, &qr.user);
    m.insert("quoteId".into(), json!(qr.id));
    m.insert("requestId".into(), json!(qr.request_id));
    m.insert("matchType".into(), json!(qr.kind.as_str()));
    m.insert(
        "state".into(),
        json!(if qr.phase == Phase::Active {
            "active"
        } else {
            "inactive"
        }),
    );
    Value::Object(m)
}

fn all(query: &[(String, String)], key: &str) -> Vec<String> {
    query
        .iter()
        .filter(|(k, v)| k == key && !v.is_empty())
        .map(|(_, v)| v.clone())
        .collect()
}

fn state_ok(query: &[(String, String)], active: bool) -> bool {
    match q(query, "state") {
        Some("active") => active,
        Some("inactive") => !active,
        _ => true,
    }
}

/// Routes this module serves; `None` leaves the request to others.
pub(crate) fn route(
    shared: &Shared,
    parts: &Parts,
    query: &[(String, String)],
    body: &[u8],
) -> Option<Resp> {
    let m = &parts.method;
    let (get, post, delete) = (m == Method::GET, m == Method::POST, m == Method::DELETE);
    let size = shared.page_size;
    Some(match parts.uri.path() {
        "/rfq/request" if post => l2(shared, parts, body, |ex, key| create_request(ex, key, body)),
        "/rfq/quote" if post => l2(shared, parts, body, |ex, key| create_quote(ex, key, body)),
        "/rfq/request" if delete => l2(shared, parts, body, |ex, key| {
            cancel(ex, key, body, "requestId", true)
        }),
        "/rfq/quote" if delete => l2(shared, parts, body, |ex, key| {
            cancel(ex, key, body, "quoteId", false)
        }),
        "/rfq/data/requests" if get => l2(shared, parts, body, |ex, _| {
            expire(ex);
            let ids = all(query, "requestIds");
            let markets = all(query, "markets");
            let rows = ex
                .programs
                .rfq
                .requests
                .iter()
                .filter(|r| ids.is_empty() || ids.contains(&r.id))
                .filter(|r| {
                    markets.is_empty()
                        || markets.contains(&ex.markets[r.terms.mi].spec.condition_id)
                })
                .filter(|r| state_ok(query, r.phase == Phase::Active))
                .map(|r| request_json(ex, r))
                .collect();
            page(rows, q(query, "next_cursor"), size)
        }),
        "/rfq/data/requester/quotes" | "/rfq/data/quoter/quotes" if get => {
            let requester = parts.uri.path().contains("requester");
            l2(shared, parts, body, move |ex, key| {
                let ids = all(query, "quoteIds");
                let rfq = &ex.programs.rfq;
                let mine = |qr: &QuoteRec| {
                    if requester {
                        rfq.requests
                            .iter()
                            .any(|r| r.id == qr.request_id && r.user == key.address)
                    } else {
                        qr.user == key.address
                    }
                };
                let rows = rfq
                    .quotes
                    .iter()
                    .filter(|qr| mine(qr))
                    .filter(|qr| ids.is_empty() || ids.contains(&qr.id))
                    .filter(|qr| state_ok(query, qr.phase == Phase::Active))
                    .map(|qr| quote_json(ex, qr))
                    .collect();
                page(rows, q(query, "next_cursor"), size)
            })
        }
        "/rfq/data/best-quote" if get => l2(shared, parts, body, |ex, key| {
            let Some(rid) = q(query, "requestId") else {
                return bad("requestId is required");
            };
            let rfq = &ex.programs.rfq;
            let Some(r) = rfq
                .requests
                .iter()
                .find(|r| r.id == rid && r.user == key.address)
            else {
                return error_response(StatusCode::NOT_FOUND, "request not found");
            };
            let live = rfq
                .quotes
                .iter()
                .filter(|qr| qr.request_id == rid && qr.phase == Phase::Active);
            // The requester buys as cheaply, or sells as dearly, as any quote allows.
            let best = match r.terms.side {
                Side::Buy => live.min_by_key(|qr| qr.terms.price()),
                Side::Sell => live.max_by_key(|qr| qr.terms.price()),
            };
            match best {
                Some(qr) => ok(&quote_json(ex, qr)),
                None => error_response(StatusCode::NOT_FOUND, "no active quote"),
            }
        }),
        "/rfq/request/accept" if post => {
            l2(shared, parts, body, |ex, key| accept(shared, ex, key, body))
        }
        "/rfq/quote/approve" if post => l2(shared, parts, body, |ex, key| {
            approve(shared, ex, key, body)
        }),
        "/rfq/config" if get => l2(shared, parts, body, |_, _| {
            ok(&json!({
                "requestTtlSeconds": REQUEST_TTL,
                "matchTypes": ["COMPLEMENTARY", "MINT", "MERGE"]
            }))
        }),
        _ => return None,
    })
}

fn expire(ex: &mut Exchange) {
    let now = now_s();
    for r in &mut ex.programs.rfq.requests {
        if r.phase == Phase::Active && r.expiry <= now {
            r.phase = Phase::Canceled;
        }
    }
}

fn create_request(ex: &mut Exchange, key: &ApiKeyRec, body: &[u8]) -> Resp {
    let v = match body_json(body) {
        Ok(v) => v,
        Err(r) => return r.into_response(),
    };
    let t = match terms(ex, &v) {
        Ok(t) => t,
        Err(r) => return r.into_response(),
    };
    let id = new_id(ex, "req");
    let expiry = now_s() + REQUEST_TTL;
    ex.programs.rfq.requests.push(RequestRec {
        id: id.clone(),
        user: key.address.clone(),
        terms: t,
        expiry,
        phase: Phase::Active,
    });
    ok(&json!({"requestId": id, "expiry": expiry}))
}

fn create_quote(ex: &mut Exchange, key: &ApiKeyRec, body: &[u8]) -> Resp {
    let v = match body_json(body) {
        Ok(v) => v,
        Err(r) => return r.into_response(),
    };
    let rid = match field(&v, "requestId") {
        Ok(r) => r.to_owned(),
        Err(r) => return r.into_response(),
    };
    let t = match terms(ex, &v) {
        Ok(t) => t,
        Err(r) => return r.into_response(),
    };
    expire(ex);
    let Some(r) = ex.programs.rfq.requests.iter().find(|r| r.id == rid) else {
        return error_response(StatusCode::NOT_FOUND, "request not found");
    };
    if r.phase != Phase::Active {
        return bad(&format!("request {rid} is not active"));
    }
    if r.user == key.address {
        return bad("cannot quote your own request");
    }
    if t.mi != r.terms.mi {
        return bad("a quote must trade the request's market");
    }
    let kind = match (t.ti == r.terms.ti, t.side == r.terms.side, t.side) {
        (true, false, _) => Match::Complementary,
        (false, true, Side::Buy) => Match::Mint,
        (false, true, Side::Sell) => Match::Merge,
        (true, true, _) => {
            return bad("a quote on the requested token takes the other side of the request");
        }
        (false, false, _) => {
            return bad("a quote on the complement token takes the same side as the request");
        }
    };
    if t.shares != r.terms.shares {
        return bad(&format!(
            "quote size {} differs from the requested {}",
            events::size(t.shares),
            events::size(r.terms.shares)
        ));
    }
    let id = new_id(ex, "quote");
    ex.programs.rfq.quotes.push(QuoteRec {
        id: id.clone(),
        request_id: rid.clone(),
        user: key.address.clone(),
        terms: t,
        kind,
        phase: Phase::Active,
        accepted: None,
    });
    ok(&json!({"requestId": rid, "quoteId": id}))
}

fn cancel(ex: &mut Exchange, key: &ApiKeyRec, body: &[u8], k: &str, request: bool) -> Resp {
    let v = match body_json(body) {
        Ok(v) => v,
        Err(r) => return r.into_response(),
    };
    let id = match field(&v, k) {
        Ok(i) => i.to_owned(),
        Err(r) => return r.into_response(),
    };
    let rfq = &mut ex.programs.rfq;
    let phase = if request {
        rfq.requests
            .iter_mut()
            .find(|r| r.id == id && r.user == key.address)
            .map(|r| &mut r.phase)
    } else {
        rfq.quotes
            .iter_mut()
            .find(|qr| qr.id == id && qr.user == key.address)
            .map(|qr| &mut qr.phase)
    };
    match phase {
        Some(p) if *p == Phase::Active => {
            *p = Phase::Canceled;
            ok(&json!("OK"))
        }
        Some(_) => bad(&format!("{id} is not active")),
        None => error_response(StatusCode::NOT_FOUND, &format!("{id} not found")),
    }
}

/// The flat V1 order of an accept/approve body, checked like any order and against the
/// terms it must carry.
fn signed_order(
    shared: &Shared,
    ex: &Exchange,
    key: &ApiKeyRec,
    v: &Value,
    want: &Terms,
) -> Result<NewOrder, Reject> {
    let mut order = v.clone();
    if let Value::Object(o) = &mut order {
        for k in ["requestId", "quoteId", "owner"] {
            o.remove(k);
        }
    }
    let wrapped = json!({
        "order": order,
        "owner": v.get("owner").cloned().unwrap_or(Value::Null),
        "orderType": "GTC",
    });
    let o = auth::parse_rfq_order(shared, ex, key, &wrapped).map_err(Reject::bad)?;
    let token = ex.markets[want.mi].spec.tokens[want.ti].token_id();
    let (making, taking) = match want.side {
        Side::Buy => (want.usdc, want.shares),
        Side::Sell => (want.shares, want.usdc),
    };
    if o.token_id != token
        || o.side != want.side
        || (o.maker_amount, o.taker_amount) != (making, taking)
    {
        return Err(Reject::bad(format!(
            "the signed order does not match the quote: expected {} {} of {token} for {making}/{taking}, got {} {}/{} of {}",
            want.side.as_str(),
            events::size(want.shares),
            o.side.as_str(),
            o.maker_amount,
            o.taker_amount,
            o.token_id,
        )));
    }
    Ok(o)
}

fn find_quote(ex: &Exchange, v: &Value) -> Result<(usize, usize), Reject> {
    let rid = field(v, "requestId")?;
    let qid = field(v, "quoteId")?;
    let rfq = &ex.programs.rfq;
    let ri = rfq
        .requests
        .iter()
        .position(|r| r.id == rid)
        .ok_or_else(|| Reject::new(StatusCode::NOT_FOUND, "request not found"))?;
    let qi = rfq
        .quotes
        .iter()
        .position(|qr| qr.id == qid && qr.request_id == rid)
        .ok_or_else(|| Reject::new(StatusCode::NOT_FOUND, "quote not found"))?;
    Ok((ri, qi))
}

/// What the requester signs to meet `qr`: the quoted token on the other side at the quoted
/// price (complementary), or the complement token on the same side at `1 − price` (mint,
/// merge), for the same shares.
fn requester_terms(qr: &QuoteRec) -> Terms {
    match qr.kind {
        Match::Complementary => Terms {
            side: qr.terms.side.opposite(),
            ..qr.terms.clone()
        },
        Match::Mint | Match::Merge => Terms {
            ti: 1 - qr.terms.ti,
            // Exact: the quote's price is on the tick grid, so shares × price is whole.
            usdc: qr.terms.shares - qr.terms.usdc,
            ..qr.terms.clone()
        },
    }
}

fn accept(shared: &Shared, ex: &mut Exchange, key: &ApiKeyRec, body: &[u8]) -> Resp {
    let v = match body_json(body) {
        Ok(v) => v,
        Err(r) => return r.into_response(),
    };
    expire(ex);
    let (ri, qi) = match find_quote(ex, &v) {
        Ok(x) => x,
        Err(r) => return r.into_response(),
    };
    let (r, qr) = (&ex.programs.rfq.requests[ri], &ex.programs.rfq.quotes[qi]);
    if r.user != key.address {
        return bad("only the requester can accept a quote");
    }
    if r.phase != Phase::Active || qr.phase != Phase::Active {
        return bad("the request or the quote is no longer active");
    }
    let want = requester_terms(qr);
    let o = match signed_order(shared, ex, key, &v, &want) {
        Ok(o) => o,
        Err(r) => return r.into_response(),
    };
    // The exchange checks the requester's balance and allowance as for any order.
    if let Err(e) = ex.check_funds(&o, (want.mi, want.ti), want.usdc, want.shares) {
        return bad(&e);
    }
    let rfq = &mut ex.programs.rfq;
    rfq.requests[ri].phase = Phase::Accepted;
    rfq.quotes[qi].phase = Phase::Accepted;
    rfq.quotes[qi].accepted = Some(o);
    ok(&json!("OK"))
}

fn approve(shared: &Shared, ex: &mut Exchange, key: &ApiKeyRec, body: &[u8]) -> Resp {
    let v = match body_json(body) {
        Ok(v) => v,
        Err(r) => return r.into_response(),
    };
    let (ri, qi) = match find_quote(ex, &v) {
        Ok(x) => x,
        Err(r) => return r.into_response(),
    };
    let qr = &ex.programs.rfq.quotes[qi];
    if qr.user != key.address {
        return bad("only the quoter can approve its quote");
    }
    if qr.phase != Phase::Accepted {
        return bad("the quote has not been accepted");
    }
    let want = qr.terms.clone();
    let o = match signed_order(shared, ex, key, &v, &want) {
        Ok(o) => o,
        Err(r) => return r.into_response(),
    };
    let theirs = requester_terms(&ex.programs.rfq.quotes[qi]);
    // Both sides must still be covered when the trade settles: the quoter's order, and the
    // requester's (its funds may have moved since it accepted).
    if let Err(e) = ex.check_funds(&o, (want.mi, want.ti), want.usdc, want.shares) {
        return bad(&e);
    }
    if let Some(taker) = &ex.programs.rfq.quotes[qi].accepted
        && let Err(e) = ex.check_funds(taker, (theirs.mi, theirs.ti), theirs.usdc, theirs.shares)
    {
        return bad(&format!("the requester's order: {e}"));
    }
    let rfq = &mut ex.programs.rfq;
    let Some(taker) = rfq.quotes[qi].accepted.take() else {
        return bad("the quote has not been accepted");
    };
    rfq.quotes[qi].phase = Phase::Filled;
    rfq.requests[ri].phase = Phase::Filled;
    let trade = ex.settle_pair(
        taker,
        o,
        want.mi,
        (theirs.ti, theirs.price()),
        (want.ti, want.price()),
        want.shares,
    );
    ok(&json!({"tradeIds": [trade]}))
}
