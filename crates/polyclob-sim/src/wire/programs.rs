//! The exchange's programs beside trading: builder API keys, builder fees and attributed
//! trades, liquidity rewards, and pre-migration (V1) orders.
//!
//! Everything is derived from the simulator's own markets, orders and fills, so the numbers
//! agree with what the trading routes report:
//!
//! * every market carries one reward program paid in the chain's collateral
//!   ([`RATE_PER_DAY`] a day, orders within [`MAX_SPREAD_CENTS`] of the midpoint and at least
//!   the market's minimum size score);
//! * `/rewards/user/percentages` is the user's share of the scoring resting size, now;
//! * `/rewards/user*` pays each market's daily rate pro rata to the maker volume filled that
//!   (UTC) day;
//! * `/rebates/current` reports the maker rebates of a day (`exchange/rebates.rs`);
//! * `/builder/trades` lists, per trade, every order signed with the builder code (taker or
//!   maker), with the builder's fee from `/fees/builder-fees/{code}` applied; sizes and fees
//!   are raw 6-decimal integers and the status `TRADE_STATUS_*`, as the exchange documents.

use alloy_primitives::{Address, B256, U256};
use hyper::http::request::Parts;
use hyper::{Method, StatusCode};
use serde_json::{Value, json};

use super::auth::{builder_auth, l2, relayer_auth};
use super::http::{Resp, error_response, ok, page, q};
use super::shared::Shared;
use crate::exchange::events;
use crate::exchange::keys::ApiKeyRec;
use crate::exchange::orders::{OrderRec, Status};
use crate::exchange::programs::BuilderKey;
use crate::exchange::rng;
use crate::exchange::state::{Exchange, now_s};
use polyclob::types::{ExchangeVersion, Timestamp, contracts};

/// Daily reward of every simulated market, in collateral micro-units (10 pUSD).
pub(crate) const RATE_PER_DAY: u64 = 10_000_000;
/// Largest distance from the midpoint at which an order scores, in cents.
pub(crate) const MAX_SPREAD_CENTS: u32 = 3;
const START_DATE: &str = "2026-01-01";
const END_DATE: &str = "2500-12-31";
const BPS: u128 = 10_000;

use polyclob::clob::SessionScope;
use polyclob::relayer::{SessionSignerAction, SessionSignerBatch};

/// The relayer's routes (Polymarket's Relayer API reference).
const EXECUTE_PARAMS: &str = "/v1/account/transactions/params";
const SUBMIT: &str = "/submit";
const DEPLOYED: &str = "/deployed";
const TRANSACTION: &str = "/v1/account/transactions/";
const AUTHORIZATIONS: &str = "/v1/session-signers/authorizations";
const REVOCATIONS: &str = "/v1/session-signers/revocations";

/// The relayer's session-signer routes: the body is checked like the deposit wallet checks
/// the batch (owner signature over the `Batch` digest, the owner's next nonce, a deadline
/// still ahead, a wallet no other owner signed for), then the signer is added or removed at
/// once (the simulator's relayer confirms in the same breath). The request must carry a live
/// builder key's `POLY_BUILDER_*` headers.
fn session_signer_batch(shared: &Shared, parts: &Parts, authorize: bool, body: &[u8]) -> Resp {
    let checked = builder_auth(shared, &shared.ex(), parts, body);
    if let Err(r) = checked {
        return r.into_response();
    }
    let bad = |m: &str| error_response(StatusCode::BAD_REQUEST, m);
    let Ok(v) = serde_json::from_slice::<Value>(body) else {
        return bad("Invalid payload: expected a JSON object");
    };
    let text = |k: &str| v.get(k).and_then(Value::as_str);
    let addr = |k: &str| text(k).and_then(|s| s.parse::<Address>().ok());
    let num = |k: &str| text(k).and_then(|s| s.parse::<u64>().ok());
    let (Some(wallet), Some(signer), Some(nonce), Some(deadline)) = (
        addr("walletAddress"),
        addr("sessionSignerAddress"),
        num("nonce"),
        num("deadline"),
    ) else {
        return bad(
            "Invalid payload: walletAddress, sessionSignerAddress, nonce and deadline are required",
        );
    };
    let Some(sig) = text("signature").and_then(|s| polyclob::sign::Signature::parse_hex(s).ok())
    else {
        return bad("Invalid payload: signature must be 65 bytes of hex");
    };
    let action = if authorize {
        let scopes: Vec<SessionScope> = v
            .get("scopes")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(SessionScope::parse)
                    .collect()
            })
            .unwrap_or_default();
        if scopes.is_empty() || (scopes.len() > 1 && scopes.contains(&SessionScope::All)) {
            return bad("scopes must name ALL alone or other scopes");
        }
        let Some(valid_until) = num("validUntil") else {
            return bad("Invalid payload: validUntil is required");
        };
        // The docs: now + 180 days, other values rejected; the simulator refuses what lies
        // further ahead (a batch signed up to its deadline before it runs is within that).
        if valid_until > now_s() + 180 * 86_400 + 600 {
            return bad("Invalid payload: validUntil must be now + 180 days");
        }
        SessionSignerAction::Authorize {
            scopes,
            valid_until,
        }
    } else {
        SessionSignerAction::Revoke
    };
    let batch =
        SessionSignerBatch::new(wallet, signer, action.clone(), U256::from(nonce), deadline);
    let digest = batch.digest(shared.chain);
    let Ok(owner) = polyclob::sign::eip712::recover_address(&digest.0, &sig) else {
        return bad("invalid signature");
    };
    let mut ex = shared.ex();
    let me = format!("{owner:#x}");
    let Some(next) = ex.programs.wallet_owner_nonce(owner, wallet) else {
        return bad("the signature is not the deposit wallet owner's");
    };
    if nonce != next {
        return bad(&format!("invalid nonce: expected {next}"));
    }
    if deadline <= now_s() {
        return bad("the batch deadline has passed");
    }
    ex.programs.spend_wallet_nonce(owner, wallet);
    let rec = ex.programs.session_signers.entry(me).or_default();
    rec.signers.retain(|(a, _, _)| *a != signer);
    let id = format!(
        "tx-session-{}-{}",
        rec.nonce,
        if authorize { "auth" } else { "revoke" }
    );
    match action {
        SessionSignerAction::Authorize {
            scopes,
            valid_until,
        } => {
            let names = scopes.iter().map(|s| s.as_str().to_owned()).collect();
            rec.signers.push((signer, names, valid_until));
            ok(&json!({"status": "REGISTERED", "transactionId": id, "transactionHash": null}))
        }
        _ => ok(&json!({"status": "CONFIRMED", "fenced": true, "transactionId": id})),
    }
}

/// Routes this module serves; `None` leaves the request to the trading routes.
pub(crate) fn route(
    shared: &Shared,
    parts: &Parts,
    query: &[(String, String)],
    body: &[u8],
) -> Option<Resp> {
    if let Some(r) = super::rfq::route(shared, parts, query, body) {
        return Some(r);
    }
    let path = parts.uri.path();
    let m = &parts.method;
    let get = m == Method::GET;
    Some(match path {
        "/auth/builder-api-key" if m == Method::POST => l2(shared, parts, body, create_key),
        "/auth/builder-api-key" if get => l2(shared, parts, body, |ex, key| {
            let rows: Vec<Value> = ex
                .programs
                .builder_keys
                .iter()
                .filter(|k| k.owner == key.address)
                .map(|k| {
                    json!({
                        "key": k.key,
                        "createdAt": rfc3339(k.created_at),
                        "revokedAt": k.revoked_at.map(rfc3339),
                    })
                })
                .collect();
            ok(&Value::Array(rows))
        }),
        "/auth/builder-api-key" if m == Method::DELETE => l2(shared, parts, body, revoke_key),
        // polymarket.com's geoblock check: the simulator refuses no one.
        "/api/geoblock" if get => ok(&json!({
            "blocked": false,
            "ip": "127.0.0.1",
            "country": "",
            "region": "",
        })),
        "/v1/user/session-signers" if get => l2(shared, parts, body, |ex, key| {
            let now = now_s();
            let rec = ex.programs.session_signers.get(&key.address);
            let wallet = rec
                .and_then(|r| r.wallet)
                .map_or_else(|| key.address.clone(), |w| w.to_checksum(None));
            let signers: Vec<Value> = rec
                .map(|r| r.signers.as_slice())
                .unwrap_or_default()
                .iter()
                .filter(|(_, _, until)| *until > now)
                .map(|(a, scopes, until)| {
                    json!({"address": a.to_checksum(None), "scopes": scopes, "valid_until": until})
                })
                .collect();
            ok(&json!({"wallet": wallet, "signers": signers}))
        }),
        EXECUTE_PARAMS if get => {
            let Some(owner) = q(query, "address").and_then(|a| a.parse::<Address>().ok()) else {
                return Some(error_response(
                    StatusCode::BAD_REQUEST,
                    "address is required",
                ));
            };
            let ex = shared.ex();
            if let Err(r) = relayer_auth(shared, &ex, parts, body) {
                return Some(r.into_response());
            }
            let key = format!("{owner:#x}");
            let nonce = ex.programs.session_signers.get(&key).map_or(0, |r| r.nonce);
            ok(&json!({"address": owner.to_checksum(None), "nonce": nonce.to_string()}))
        }
        SUBMIT if m == Method::POST => super::relayer::submit(shared, parts, body),
        DEPLOYED if get => super::relayer::deployed(shared, query),
        AUTHORIZATIONS | REVOCATIONS if m == Method::POST => {
            session_signer_batch(shared, parts, path == AUTHORIZATIONS, body)
        }
        "/builder/trades" if get => builder_trades(shared, query),
        "/data/pre-migration-orders" if get => l2(shared, parts, body, |ex, key| {
            let items: Vec<Value> = ex
                .open_orders(&key.address)
                .into_iter()
                .filter(|o| o.v1)
                .map(|o| events::order(ex, o))
                .collect();
            page(items, q(query, "next_cursor"), shared.page_size)
        }),
        "/rebates/current" if get => rebates_current(shared, query),
        "/rewards/markets/current" if get => {
            let ex = shared.ex();
            let items = (0..ex.markets.len())
                .map(|mi| current_reward(shared, &ex, mi))
                .collect();
            page(items, q(query, "next_cursor"), shared.page_size)
        }
        "/rewards/user/percentages" if get => l2(shared, parts, body, |ex, key| {
            let mut out = serde_json::Map::new();
            for mi in 0..ex.markets.len() {
                let (mine, all) = scoring_size(ex, mi, &key.address);
                if mine > 0 && all > 0 {
                    out.insert(
                        ex.markets[mi].spec.condition_id.clone(),
                        amount(ratio(100_000_000, mine, all)),
                    );
                }
            }
            ok(&Value::Object(out))
        }),
        "/rewards/user" | "/rewards/user/total" | "/rewards/user/markets" if get => {
            let Some(day) = q(query, "date").and_then(parse_date) else {
                return Some(error_response(
                    StatusCode::BAD_REQUEST,
                    "invalid date: expected YYYY-MM-DD",
                ));
            };
            let path = path.to_owned();
            l2(shared, parts, body, move |ex, key| {
                user_rewards(shared, ex, key, &path, day, query)
            })
        }
        _ => {
            if let Some(id) = path.strip_prefix(TRANSACTION) {
                if !get {
                    return None;
                }
                return Some(super::relayer::transaction(shared, parts, id));
            }
            if let Some(code) = path.strip_prefix("/fees/builder-fees/") {
                if !get {
                    return None;
                }
                return Some(match code.parse::<B256>() {
                    Ok(c) if c != B256::ZERO => {
                        let (maker, taker) = shared.ex().programs.fee(&c);
                        ok(&json!({
                            "builder_maker_fee_rate_bps": maker,
                            "builder_taker_fee_rate_bps": taker,
                        }))
                    }
                    _ => error_response(StatusCode::BAD_REQUEST, "invalid builder code"),
                });
            }
            if let Some(cid) = path.strip_prefix("/rewards/markets/") {
                if !get {
                    return None;
                }
                let ex = shared.ex();
                return Some(match ex.market_by_condition(cid) {
                    Some(mi) => page(
                        vec![market_reward(shared, &ex, mi)],
                        q(query, "next_cursor"),
                        shared.page_size,
                    ),
                    None => error_response(StatusCode::NOT_FOUND, "market not found"),
                });
            }
            return None;
        }
    })
}

fn create_key(ex: &mut Exchange, key: &ApiKeyRec) -> Resp {
    let n = ex.programs.builder_keys.len() as u64;
    let mut material = Vec::with_capacity(96);
    material.extend_from_slice(b"polyclob-sim builder key");
    material.extend_from_slice(key.key.as_bytes());
    material.extend_from_slice(&n.to_be_bytes());
    let k = alloy_primitives::keccak256(&material);
    material.push(1);
    let s = alloy_primitives::keccak256(&material);
    material.push(2);
    let p = alloy_primitives::keccak256(&material);
    use base64::Engine as _;
    let rec = ApiKeyRec {
        key: rng::uuid_from(k.as_slice()),
        secret: base64::engine::general_purpose::URL_SAFE.encode(s.as_slice()),
        passphrase: alloy_primitives::hex::encode(p.as_slice()),
        address: key.address.clone(),
    };
    // Builder keys authenticate like API keys; a nonce space no wallet uses keeps them
    // apart from the account's own (address, nonce) keys.
    ex.keys.insert(rec.clone(), u64::MAX - n);
    ex.programs.builder_keys.push(BuilderKey {
        key: rec.key.clone(),
        owner: key.address.clone(),
        created_at: now_s(),
        revoked_at: None,
    });
    ok(&json!({"apiKey": rec.key, "secret": rec.secret, "passphrase": rec.passphrase}))
}

fn revoke_key(ex: &mut Exchange, key: &ApiKeyRec) -> Resp {
    let now = now_s();
    let Some(k) = ex
        .programs
        .builder_keys
        .iter_mut()
        .find(|k| k.key == key.key && k.revoked_at.is_none())
    else {
        return error_response(
            StatusCode::BAD_REQUEST,
            "the request is not signed with a live builder API key",
        );
    };
    k.revoked_at = Some(now);
    let revoked = k.key.clone();
    ex.keys.remove(&revoked);
    ok(&json!("OK"))
}

/// `num / den` of `scale`, floored, in micro-units.
fn ratio(scale: u64, num: u64, den: u64) -> u64 {
    if den == 0 {
        return 0;
    }
    let v = u128::from(scale) * u128::from(num) / u128::from(den);
    u64::try_from(v).unwrap_or(u64::MAX)
}

/// A micro-unit amount as a JSON number, the way the rewards endpoints send amounts.
fn amount(micros: u64) -> Value {
    events::size(micros)
        .parse::<serde_json::Number>()
        .map_or(Value::Null, Value::Number)
}

fn collateral(shared: &Shared) -> String {
    format!(
        "{:#x}",
        contracts(shared.chain, ExchangeVersion::V2).collateral
    )
}

fn config(shared: &Shared) -> Value {
    json!([{
        "id": 1,
        "asset_address": collateral(shared),
        "start_date": START_DATE,
        "end_date": END_DATE,
        "rate_per_day": amount(RATE_PER_DAY),
        "total_rewards": amount(RATE_PER_DAY * 365),
        "total_days": 365,
    }])
}

fn current_reward(shared: &Shared, ex: &Exchange, mi: usize) -> Value {
    let s = &ex.markets[mi].spec;
    json!({
        "condition_id": s.condition_id,
        "rewards_max_spread": MAX_SPREAD_CENTS,
        "rewards_min_size": amount(s.min_order_size.as_micros()),
        "rewards_config": config(shared),
        "sponsored_daily_rate": 0,
        "sponsors_count": 0,
        "native_daily_rate": amount(RATE_PER_DAY),
        "total_daily_rate": amount(RATE_PER_DAY),
    })
}

fn market_reward(shared: &Shared, ex: &Exchange, mi: usize) -> Value {
    let m = &ex.markets[mi];
    let s = &m.spec;
    let (_, all) = scoring_size(ex, mi, "");
    json!({
        "condition_id": s.condition_id,
        "question": s.question,
        "market_slug": s.slug,
        "event_slug": s.slug,
        "image": "",
        "rewards_max_spread": MAX_SPREAD_CENTS,
        "rewards_min_size": amount(s.min_order_size.as_micros()),
        // More scoring size competing for the same rate: the scoring size in shares.
        "market_competitiveness": amount(all),
        "tokens": (0..2).map(|ti| json!({
            "token_id": s.tokens[ti].token_id(),
            "outcome": s.tokens[ti].outcome(),
            "price": events::price(midpoint(ex, mi, ti).unwrap_or(500_000)),
        })).collect::<Vec<_>>(),
        "rewards_config": config(shared),
    })
}

fn midpoint(ex: &Exchange, mi: usize, ti: usize) -> Option<u32> {
    let b = ex.markets[mi].book.view(ti);
    match (b.best_bid(), b.best_ask()) {
        (Some(bid), Some(ask)) => Some(bid / 2 + ask / 2 + (bid % 2 + ask % 2) / 2),
        (Some(p), None) | (None, Some(p)) => Some(p),
        (None, None) => ex.markets[mi].last_trade[ti].map(|(p, _)| p),
    }
}

/// Whether a live order scores: large enough and within the spread of its token's midpoint.
fn scores(ex: &Exchange, o: &OrderRec) -> bool {
    let s = &ex.markets[o.market].spec;
    let remaining = o.original.saturating_sub(o.matched);
    let Some(mid) = midpoint(ex, o.market, o.token) else {
        return false;
    };
    o.status == Status::Live
        && remaining >= s.min_order_size.as_micros()
        && o.price.abs_diff(mid) <= MAX_SPREAD_CENTS * 10_000
}

/// (user's, everyone's) scoring resting size in market `mi`, micro-shares.
fn scoring_size(ex: &Exchange, mi: usize, user: &str) -> (u64, u64) {
    let mut mine = 0u64;
    let mut all = 0u64;
    for o in ex.orders.values() {
        if o.market == mi && scores(ex, o) {
            let r = o.original.saturating_sub(o.matched);
            all = all.saturating_add(r);
            if o.user == user {
                mine = mine.saturating_add(r);
            }
        }
    }
    (mine, all)
}

/// Per market: (user's maker volume, all maker volume) filled on `day`, micro-shares.
fn maker_volume(ex: &Exchange, user: &str, day: u64) -> Vec<(u64, u64)> {
    let mut v = vec![(0u64, 0u64); ex.markets.len()];
    for t in &ex.trades {
        if t.match_time / 86_400 != day {
            continue;
        }
        for f in &t.fills {
            let slot = &mut v[t.market];
            slot.1 = slot.1.saturating_add(f.size);
            if ex.order_by_seq(f.maker_seq).is_some_and(|o| o.user == user) {
                slot.0 = slot.0.saturating_add(f.size);
            }
        }
    }
    v
}

fn user_rewards(
    shared: &Shared,
    ex: &Exchange,
    key: &ApiKeyRec,
    path: &str,
    day: u64,
    query: &[(String, String)],
) -> Resp {
    let date = format!("{}T00:00:00Z", civil(day));
    let asset = collateral(shared);
    let vols = maker_volume(ex, &key.address, day);
    let mut rows = Vec::new();
    let mut total = 0u64;
    for (mi, &(mine, all)) in vols.iter().enumerate() {
        if mine == 0 {
            continue;
        }
        let earned = ratio(RATE_PER_DAY, mine, all);
        total = total.saturating_add(earned);
        let cid = &ex.markets[mi].spec.condition_id;
        rows.push(match path {
            "/rewards/user/markets" => {
                let mut v = market_reward(shared, ex, mi);
                if let Value::Object(o) = &mut v {
                    o.insert("maker_address".into(), json!(key.address));
                    o.insert(
                        "earning_percentage".into(),
                        amount(ratio(100_000_000, mine, all)),
                    );
                    o.insert(
                        "earnings".into(),
                        json!([{"asset_address": asset, "earnings": amount(earned), "asset_rate": 1}]),
                    );
                }
                v
            }
            _ => json!({
                "date": date,
                "condition_id": cid,
                "asset_address": asset,
                "maker_address": key.address,
                "earnings": amount(earned),
                "asset_rate": 1,
            }),
        });
    }
    if path == "/rewards/user/total" {
        let rows = if total == 0 {
            Vec::new()
        } else {
            vec![json!({
                "date": date,
                "asset_address": asset,
                "maker_address": key.address,
                "earnings": amount(total),
                "asset_rate": 1,
            })]
        };
        return ok(&Value::Array(rows));
    }
    page(rows, q(query, "next_cursor"), shared.page_size)
}

fn builder_trades(shared: &Shared, query: &[(String, String)]) -> Resp {
    let code = match q(query, "builder_code").map(str::parse::<B256>) {
        Some(Ok(c)) if c != B256::ZERO => c,
        _ => {
            return error_response(
                StatusCode::BAD_REQUEST,
                "builder_code is required and cannot be zero",
            );
        }
    };
    let before = q(query, "before").and_then(|s| s.parse::<u64>().ok());
    let after = q(query, "after").and_then(|s| s.parse::<u64>().ok());
    let ex = shared.ex();
    let (maker_bps, taker_bps) = ex.programs.fee(&code);
    let mut rows = Vec::new();
    for t in &ex.trades {
        if before.is_some_and(|b| t.match_time >= b) || after.is_some_and(|a| t.match_time <= a) {
            continue;
        }
        let m = &ex.markets[t.market].spec;
        if q(query, "market").is_some_and(|c| m.condition_id != c)
            || q(query, "asset_id").is_some_and(|a| m.tokens[t.token].token_id() != a)
            || q(query, "id").is_some_and(|id| t.id != id)
        {
            continue;
        }
        let taker = ex.order_by_seq(t.taker_seq);
        // (order, shares, notional micro-units, is taker)
        let mut legs: Vec<(&OrderRec, u64, u64, bool)> = Vec::new();
        if let Some(o) = taker.filter(|o| o.builder == code) {
            let notional = t
                .fills
                .iter()
                .map(|f| notional(f.size, ex.taker_view_price(t, f)))
                .sum();
            legs.push((o, t.fills.iter().map(|f| f.size).sum(), notional, true));
        }
        for f in &t.fills {
            if let Some(o) = ex.order_by_seq(f.maker_seq).filter(|o| o.builder == code) {
                legs.push((o, f.size, notional(f.size, f.price), false));
            }
        }
        for (o, shares, usdc, is_taker) in legs {
            if q(query, "maker_address").is_some_and(|a| !o.maker_address.eq_ignore_ascii_case(a)) {
                continue;
            }
            let bps = u128::from(if is_taker { taker_bps } else { maker_bps });
            let fee = u64::try_from(u128::from(usdc) * bps / BPS).unwrap_or(u64::MAX);
            let price = if shares == 0 {
                0
            } else {
                u32::try_from(u128::from(usdc) * 1_000_000 / u128::from(shares)).unwrap_or(0)
            };
            let at = rfc3339(t.match_time);
            rows.push(json!({
                "id": format!("{}-{}", t.id, o.id),
                "tradeType": if is_taker { "TAKER" } else { "MAKER" },
                "takerOrderHash": taker.map_or("", |o| o.id.as_str()),
                "builder": format!("{code:#x}"),
                "market": m.condition_id,
                "assetId": m.tokens[t.token].token_id(),
                "side": o.side.as_str(),
                // Raw 6-decimal integers, as the exchange documents this endpoint.
                "size": shares.to_string(),
                "sizeUsdc": usdc.to_string(),
                "price": events::price(price),
                "status": format!("TRADE_STATUS_{}", t.status),
                "outcome": m.tokens[t.token].outcome(),
                "outcomeIndex": t.token,
                "owner": o.owner,
                "maker": o.maker_address,
                "transactionHash": t.tx_hash,
                "matchTime": t.match_time.to_string(),
                "bucketIndex": 0,
                "fee": fee.to_string(),
                "feeUsdc": fee.to_string(),
                "createdAt": at,
                "updatedAt": at,
            }));
        }
    }
    page(rows, q(query, "next_cursor"), shared.page_size)
}

/// `GET /rebates/current?date=YYYY-MM-DD&maker_address=0x…` (no auth): the maker's rebates
/// of that UTC day, one row per market with a non-zero amount, paid or not
/// (`exchange/rebates.rs`), as the docs' array of `{date, condition_id, asset_address,
/// maker_address, rebated_fees_usdc}`.
fn rebates_current(shared: &Shared, query: &[(String, String)]) -> Resp {
    let bad = |m: &str| error_response(StatusCode::BAD_REQUEST, m);
    let Some(day) = q(query, "date").and_then(parse_date) else {
        return bad("date is required, as YYYY-MM-DD");
    };
    let Some(maker) = q(query, "maker_address").filter(|a| a.parse::<Address>().is_ok()) else {
        return bad("maker_address is required, as a 0x address");
    };
    let ex = shared.ex();
    let pusd = ex.ledger().contracts.collateral.to_checksum(None);
    let rows: Vec<Value> = ex
        .rebates_of(maker, day)
        .into_iter()
        .map(|(mi, amount)| {
            json!({
                "date": civil(day),
                "condition_id": ex.markets[mi].spec.condition_id,
                "asset_address": pusd,
                "maker_address": maker,
                "rebated_fees_usdc": events::size(amount),
            })
        })
        .collect();
    ok(&json!(rows))
}

/// Collateral micro-units of `size` micro-shares at `price` micro-units, floored.
fn notional(size: u64, price: u32) -> u64 {
    u64::try_from(u128::from(size) * u128::from(price) / 1_000_000).unwrap_or(u64::MAX)
}

/// Days since the epoch of a `YYYY-MM-DD` date (the crate's one time parser, held to the
/// date form the route takes).
fn parse_date(s: &str) -> Option<u64> {
    if s.len() != 10 {
        return None;
    }
    let t: Timestamp = s.parse().ok()?;
    Some(t.as_secs() / 86_400)
}

/// `YYYY-MM-DD` of a day number since the epoch.
fn civil(day: u64) -> String {
    let mut text = rfc3339(day.saturating_mul(86_400));
    text.truncate(10);
    text
}

/// RFC 3339 in UTC, as the venue writes it.
fn rfc3339(secs: u64) -> String {
    Timestamp::from_secs(secs).map_or_else(String::new, |t| t.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip() {
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(parse_date("2026-01-01"), Some(20_454));
        assert_eq!(civil(20_454), "2026-01-01");
        assert_eq!(civil(parse_date("2024-02-29").unwrap()), "2024-02-29");
        assert_eq!(rfc3339(1_767_225_661), "2026-01-01T00:01:01Z");
        assert_eq!(parse_date("2026-13-01"), None);
        assert_eq!(parse_date("x"), None);
    }
}
