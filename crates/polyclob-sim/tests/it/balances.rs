//! Accounts with money: orders refused without pUSD, tokens or allowance (the exchange's
//! error), reserved balance for open orders, balances moved by fills, `GET
//! /balance-allowance`, and Data API positions agreeing with the fills to the micro-unit.
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;

use alloy_primitives::U256;
use polyclob::types::Side;
use polyclob_sim::Simulator;
use serde_json::Value;
use support::*;

const S: u64 = 1_000_000; // one share / one pUSD in micro-units
const C: u64 = 10_000; // one cent
const REFUSED: &str = "not enough balance / allowance";

fn micros(text: &str) -> u64 {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let frac = format!("{frac:0<6}");
    int.parse::<u64>().unwrap() * S + frac[..6].parse::<u64>().unwrap()
}

/// A Data API number (a JSON float with at most six decimals) in micro-units.
fn api_micros(v: &Value) -> i128 {
    (v.as_f64().unwrap() * 1e6).round() as i128
}

fn refused(status: u16, body: &Value) -> bool {
    status == 400 && body["error"].as_str().unwrap_or("").starts_with(REFUSED)
}

async fn position(sim: &polyclob_sim::SimHandle, user: &str, token: &str) -> Option<Value> {
    let url = format!("{}/v2/positions?user={user}", sim.data_api_url());
    let text = http_client()
        .get(url)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["token_id"] == token)
        .cloned()
}

#[tokio::test]
async fn orders_without_money_are_refused_and_open_orders_reserve_it() {
    let sim = start_empty().await;
    let a = Trader::unfunded(&sim, KEY_A).await;
    let me = a.address();

    let (s, v, _) = a.post(&limit(YES, Side::Sell, 55 * C, 10 * S, 1)).await;
    assert!(refused(s, &v), "a SELL without tokens: {s} {v}");
    let (s, v, _) = a.post(&limit(YES, Side::Buy, 40 * C, 10 * S, 2)).await;
    assert!(refused(s, &v), "a BUY without pUSD: {s} {v}");

    // Exactly enough for 10 at 0.40, but no allowance yet.
    sim.fund(me, 4 * S);
    sim.set_approved(me, false);
    let (s, v, _) = a.post(&limit(YES, Side::Buy, 40 * C, 10 * S, 3)).await;
    assert!(refused(s, &v), "a BUY without allowance: {s} {v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("allowance is not enough")
    );
    sim.set_approved(me, true);
    let (s, v, first) = a.post(&limit(YES, Side::Buy, 40 * C, 10 * S, 4)).await;
    assert_eq!((s, v["status"].as_str()), (200, Some("live")), "{v}");

    // The open bid reserves all 4 pUSD: a second one is refused until it is cancelled.
    let (s, v, _) = a.post(&limit(YES, Side::Buy, 40 * C, 5 * S, 5)).await;
    assert!(refused(s, &v), "the balance is reserved: {s} {v}");
    let body = format!(r#"{{"orderID":"{first}"}}"#);
    let (s, v, _) = a.l2("DELETE", "/order", Some(&body)).await;
    assert_eq!(s, 200, "{v}");
    let (s, v, _) = a.post(&limit(YES, Side::Buy, 40 * C, 5 * S, 6)).await;
    assert_eq!(s, 200, "released by the cancel: {v}");

    // GET /balance-allowance answers from the same ledger (the balance, not what is free).
    let (s, v, _) = a
        .l2(
            "GET",
            "/balance-allowance?asset_type=COLLATERAL&signature_type=0",
            None,
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["balance"], "4000000");
    let allowances = v["allowances"].as_object().unwrap();
    assert!(!allowances.is_empty());
    assert!(allowances.values().all(|a| a == &U256::MAX.to_string()));
    let (s, v, _) = a
        .l2(
            "GET",
            &format!("/balance-allowance?asset_type=CONDITIONAL&token_id={YES}"),
            None,
        )
        .await;
    assert_eq!((s, v["balance"].as_str()), (200, Some("0")), "{v}");
}

#[tokio::test]
async fn fills_move_both_sides_balances_exactly() {
    let sim = start_empty().await;
    let a = Trader::unfunded(&sim, KEY_A).await;
    let b = Trader::unfunded(&sim, KEY_B).await;
    let yes: U256 = YES.parse().unwrap();
    assert!(sim.fund_tokens(a.address(), YES, 10 * S));
    sim.fund(b.address(), 100 * S);

    let (s, v, _) = a.post(&limit(YES, Side::Sell, 55 * C, 10 * S, 1)).await;
    assert_eq!(s, 200, "{v}");
    // B takes 6 at the maker's 0.55 (its limit is 0.56).
    let (s, v, _) = b.post(&limit(YES, Side::Buy, 56 * C, 6 * S, 2)).await;
    assert_eq!((s, v["status"].as_str()), (200, Some("matched")), "{v}");
    assert_eq!(
        sim.collateral_balance(a.address()),
        U256::from(3_300_000u64)
    );
    assert_eq!(sim.outcome_balance(a.address(), yes), U256::from(4 * S));
    assert_eq!(
        sim.collateral_balance(b.address()),
        U256::from(100 * S - 3_300_000)
    );
    assert_eq!(sim.outcome_balance(b.address(), yes), U256::from(6 * S));
    assert_eq!(sim.settlement_failures(), 0);
    // A's 4 remaining shares are all reserved by its resting ask.
    let (s, v, _) = a.post(&limit(YES, Side::Sell, 60 * C, 5 * S, 3)).await;
    assert!(refused(s, &v), "{s} {v}");

    // The Data API reads the same ledger: B holds 6 at 0.55, A 4 with no purchase.
    let p = position(&sim, &format!("{:#x}", b.address()), YES)
        .await
        .unwrap();
    assert_eq!(api_micros(&p["current_size"]), 6_000_000);
    assert_eq!(api_micros(&p["avg_price"]), 550_000);
}

/// A long randomized run of fills against the seeded book: the ledger's balances, the Data
/// API's size, fill-weighted average price and realized PnL all equal an independent
/// average-cost replay of the fills, to the micro-unit.
#[tokio::test]
async fn data_api_agrees_with_the_fills_over_a_randomized_run() {
    let sim = Simulator::builder().seed(11).start().await.unwrap();
    let a = Trader::unfunded(&sim, KEY_A).await;
    let me = a.address();
    let user = format!("{me:#x}");
    let token = sim.markets()[0].tokens()[0].token_id().to_owned();
    let token_u: U256 = token.parse().unwrap();
    let funds = 10_000 * S;
    sim.fund(me, funds);

    // The oracle: average cost in exact units (micro-shares × micro-pUSD).
    let (mut held, mut basis_shares, mut cost, mut realized) = (0u128, 0u128, 0u128, 0i128);
    let mut bought = 0u128;
    let mut cash = i128::from(funds);
    let mut fills = 0;
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in 0..80u64 {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let (_, book) = get(&sim, &format!("/book?token_id={token}")).await;
        let best = |k: &str| {
            book[k].as_array().unwrap().last().map(|l| {
                (
                    micros(l["price"].as_str().unwrap()),
                    micros(l["size"].as_str().unwrap()),
                )
            })
        };
        let want = (5 + (x >> 33) % 16) * S;
        let buy = held < 5 * u128::from(S) || (x >> 20) % 3 != 0;
        let (side, (price, level)) = match (buy, best("asks"), best("bids")) {
            (true, Some(ask), _) => (Side::Buy, ask),
            (_, _, Some(bid)) if held >= 5 * u128::from(S) => (Side::Sell, bid),
            (_, Some(ask), _) => (Side::Buy, ask),
            _ => break,
        };
        let cap = match side {
            Side::Buy => level,
            Side::Sell => level.min(u64::try_from(held).unwrap()),
        };
        let size = want.min(cap / S * S);
        if size < 5 * S {
            continue;
        }
        let (s, v, _) = a.post(&limit(&token, side, price, size, 100 + i)).await;
        assert_eq!((s, v["status"].as_str()), (200, Some("matched")), "{v}");
        fills += 1;
        let (size, price) = (u128::from(size), u128::from(price));
        let notional = i128::try_from(size * price / u128::from(S)).unwrap();
        match side {
            Side::Buy => {
                held += size;
                bought += size;
                basis_shares += size;
                cost += size * price;
                cash -= notional;
            }
            Side::Sell => {
                let sold = size.min(basis_shares);
                let removed = cost * sold / basis_shares;
                realized +=
                    i128::try_from(sold * price).unwrap() - i128::try_from(removed).unwrap();
                cost -= removed;
                basis_shares -= sold;
                held -= size;
                cash += notional;
            }
        }
    }
    assert!(fills >= 30, "only {fills} fills: the run proves little");

    assert_eq!(sim.outcome_balance(me, token_u), U256::from(held));
    assert_eq!(
        sim.collateral_balance(me),
        U256::from(u128::try_from(cash).unwrap())
    );
    let p = position(&sim, &user, &token).await.unwrap();
    assert_eq!(
        api_micros(&p["current_size"]),
        i128::try_from(held).unwrap()
    );
    let avg = cost.checked_div(basis_shares).unwrap_or(0);
    assert_eq!(api_micros(&p["avg_price"]), i128::try_from(avg).unwrap());
    assert_eq!(api_micros(&p["realized_pnl"]), realized / 1_000_000);
    assert_eq!(
        api_micros(&p["total_bought"]),
        i128::try_from(bought).unwrap()
    );
}

/// RFQ checks funds as the book does: a requester without pUSD cannot accept a quote, and a
/// quoter without the tokens cannot approve one; funded, the same quote settles.
#[tokio::test]
async fn rfq_accept_and_approve_check_funds() {
    use polyclob::clob::Client;
    use polyclob::fixed::{Price, Size};
    use polyclob::order::OrderSigner;
    use polyclob::sign::Signer;
    use polyclob::sign::wallet::Wallet;
    use polyclob::types::{Chain, SignatureType};

    let sim = start_empty().await;
    let client = |key: &'static str| {
        let c = Client::builder()
            .host(sim.http_url())
            .signer(Signer::from_hex(key).unwrap())
            .build()
            .unwrap();
        async move {
            let creds = c
                .create_api_key(polyclob::clob::ApiKeyNonce::ZERO)
                .await
                .unwrap();
            c.set_credentials(creds);
            c
        }
    };
    let (a, b) = (client(KEY_A).await, client(KEY_B).await); // requester, quoter
    let signer = |key| {
        OrderSigner::new(Signer::from_hex(key).unwrap(), Chain::Polygon, Wallet::Eoa).unwrap()
    };
    let (sa, sb) = (signer(KEY_A), signer(KEY_B));
    let address = |key| Signer::from_hex(key).unwrap().address();
    let (addr_a, addr_b) = (address(KEY_A), address(KEY_B));
    let (px, sz) = (Price::new(500_000).unwrap(), Size::new(100 * S).unwrap());
    let eoa = SignatureType::Eoa;
    let later = now_s() + 3600;
    let quote = || async {
        let req = a
            .rfq_create_request(YES, Side::Buy, px, sz, eoa)
            .await
            .unwrap();
        let q = b
            .rfq_create_quote(&req.request_id, YES, Side::Sell, px, sz, eoa)
            .await
            .unwrap();
        (req.request_id, q.quote_id)
    };

    // The requester has no pUSD: its accept is refused with the exchange's error.
    let (r, q) = quote().await;
    let e = a.rfq_accept_quote(&sa, &r, &q, later).await.unwrap_err();
    assert_eq!(e.status(), Some(400));
    assert!(e.is_insufficient_balance(), "{e}");
    // Funded, it accepts; the quoter holds no YES, so its approval is refused.
    sim.fund(addr_a, 1_000 * S);
    a.rfq_accept_quote(&sa, &r, &q, later).await.unwrap();
    let e = b.rfq_approve_order(&sb, &r, &q, later).await.unwrap_err();
    assert_eq!(e.status(), Some(400));
    assert!(e.is_insufficient_balance(), "{e}");
    // With the tokens, the same quote settles: 100 YES for 50 pUSD.
    assert!(sim.fund_tokens(addr_b, YES, 100 * S));
    b.rfq_approve_order(&sb, &r, &q, later).await.unwrap();
    let data = sim.data_api_url();
    let pos: Value = serde_json::from_str(
        &http_client()
            .get(format!("{data}/v2/positions?user={addr_a:#x}"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        api_micros(&pos["data"][0]["current_size"]),
        i128::from(100 * S)
    );
    assert_eq!(api_micros(&pos["data"][0]["avg_price"]), 500_000);
}

/// The long randomized run of the issue's "Done when", with the crowd trading: 300 seeded
/// actions of one client on the four fixture markets (CTF, 0.001 tick, neg-risk, V2) — market
/// orders, resting orders the crowd's takers, sweeper and informed trader fill, cancels —
/// while one market's fair value walks. An oracle rebuilt from the client's own trades
/// (`/data/trades`: each taker trade one leg at the prices it paid, each maker fill one) by the
/// average-cost method agrees with the ledger's balances and with every Data API position
/// (size, average price, realized PnL, total bought) to the micro-unit.
#[tokio::test]
async fn data_api_agrees_with_the_fills_under_the_crowd() {
    use polyclob_sim::{Crowd, FairValue, PricePath};
    use std::collections::BTreeMap;

    let sim = Simulator::builder()
        .seed(5)
        .crowd(Crowd::standard(5))
        .page_size(100_000)
        .start()
        .await
        .unwrap();
    let markets = sim.markets();
    sim.drive_market(
        markets[0].condition_id(),
        FairValue::path(PricePath::random_walk(500_000, 10_000, 5).jumps(50_000, 50_000)),
    );
    let a = Trader::unfunded(&sim, KEY_A).await;
    let me = a.address();
    let user = format!("{me:#x}");
    let funds = 100_000 * S;
    sim.fund(me, funds);

    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let (mut taken, mut rested) = (0, 0);
    for i in 0..300u64 {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let m = &markets[((x >> 40) % 4) as usize];
        let token = m.tokens()[((x >> 38) % 2) as usize].token_id().to_owned();
        let tick = u64::from(m.tick().as_micros());
        let (_, book) = get(&sim, &format!("/book?token_id={token}")).await;
        let best = |k: &str| {
            book[k]
                .as_array()
                .unwrap()
                .last()
                .map(|l| micros(l["price"].as_str().unwrap()))
        };
        let size = (5 + (x >> 20) % 16) * S;
        // What the client holds, as `GET /balance-allowance` would tell it.
        let have = u64::try_from(sim.outcome_balance(me, token.parse().unwrap())).unwrap();
        let sell = have >= size && (x >> 12) % 2 == 0;
        let roll = (x >> 30) % 10;
        let spec = if roll < 4 {
            // A market order at the best price.
            let (side, px) = if sell {
                (Side::Sell, best("bids"))
            } else {
                (Side::Buy, best("asks"))
            };
            let Some(px) = px else { continue };
            let mut o = limit(&token, side, px, size, 1_000 + i);
            o.order_type = "FAK";
            taken += 1;
            o
        } else if roll < 8 {
            // A resting order one tick inside the spread (or at the top when it is one tick).
            let (bid, ask) = (best("bids"), best("asks"));
            let (side, px) = match (sell, bid, ask) {
                (false, Some(b), Some(a)) => (Side::Buy, (b + tick).min(a - tick)),
                (true, Some(b), Some(a)) => (Side::Sell, (a - tick).max(b + tick)),
                _ => continue,
            };
            rested += 1;
            limit(&token, side, px, size, 1_000 + i)
        } else {
            let (s, v, _) = a.l2("DELETE", "/cancel-all", None).await;
            assert_eq!(s, 200, "{v}");
            sim.step_activity(1);
            continue;
        };
        let (s, v, _) = a.post(&spec).await;
        // Refusals the exchange would give are part of the game: a sell of tokens open
        // orders already reserve, a market order that met an empty side.
        let refused = v["error"].as_str().unwrap_or("");
        assert!(
            s == 200 || refused.starts_with(REFUSED) || refused.contains("no orders found"),
            "{s} {v}"
        );
        sim.step_activity(1);
    }
    assert!(
        taken >= 50 && rested >= 50,
        "{taken} taken, {rested} rested"
    );

    // The oracle, from the client's trades in order.
    let (s, page, _) = a.l2("GET", "/data/trades?next_cursor=MA==", None).await;
    assert_eq!(s, 200);
    let trades = page["data"].as_array().unwrap();
    #[derive(Default, Debug)]
    struct Oracle {
        held: u128,
        shares: u128,
        cost: u128,
        bought: u128,
        realized: i128,
    }
    let mut book: BTreeMap<String, Oracle> = BTreeMap::new();
    let mut cash = i128::from(funds);
    let (mut as_taker, mut as_maker) = (0, 0);
    for t in trades {
        let taker = t["trader_side"] == "TAKER";
        // Legs of this trade: ((side, token), shares, exact cost in 10⁻¹², cash in 10⁻⁶). The
        // taker's is one leg for the whole trade; each of the client's maker fills is one.
        let mut legs = Vec::new();
        let mut taker_leg = (0u128, 0u128, 0u128);
        for mo in t["maker_orders"].as_array().unwrap() {
            let price = u128::from(micros(mo["price"].as_str().unwrap()));
            let size = u128::from(micros(mo["matched_amount"].as_str().unwrap()));
            // The maker's pUSD at its own price, floored; a maker on the other token met the
            // taker in a mint or a merge: the taker's price is the complement, its pUSD the
            // rest of the pair's one pUSD a share.
            let maker_pusd = size * price / u128::from(S);
            let crossed = mo["asset_id"] != t["asset_id"];
            let (taker_price, taker_pusd) = if crossed {
                (u128::from(S) - price, size - maker_pusd)
            } else {
                (price, maker_pusd)
            };
            if taker {
                taker_leg.0 += size;
                taker_leg.1 += size * taker_price;
                taker_leg.2 += taker_pusd;
                as_taker += 1;
            }
            if mo["maker_address"]
                .as_str()
                .unwrap()
                .eq_ignore_ascii_case(&user)
            {
                let leg = (
                    mo["side"].as_str().unwrap(),
                    mo["asset_id"].as_str().unwrap(),
                );
                legs.push((leg, size, size * price, maker_pusd));
                as_maker += 1;
            }
        }
        if taker {
            let leg = (t["side"].as_str().unwrap(), t["asset_id"].as_str().unwrap());
            legs.insert(0, (leg, taker_leg.0, taker_leg.1, taker_leg.2));
        }
        // The ledger books a trade's buyers before its sellers.
        legs.sort_by_key(|((side, _), ..)| *side != "BUY");
        for ((side, token), size, value, pusd) in legs {
            let o = book.entry(token.to_owned()).or_default();
            let notional = i128::try_from(pusd).unwrap();
            if side == "BUY" {
                o.held += size;
                o.shares += size;
                o.cost += value;
                o.bought += size;
                cash -= notional;
            } else {
                let sold = size.min(o.shares);
                let removed = (o.cost * sold).checked_div(o.shares).unwrap_or(0);
                let proceeds = if sold == size {
                    value
                } else {
                    value * sold / size
                };
                o.realized += i128::try_from(proceeds).unwrap() - i128::try_from(removed).unwrap();
                o.cost -= removed;
                o.shares -= sold;
                o.held -= size;
                cash += notional;
            }
        }
    }
    assert!(
        as_taker >= 30 && as_maker >= 10,
        "{as_taker} taker fills, {as_maker} maker fills"
    );
    assert!(book.len() >= 4, "{} tokens traded", book.len());
    // Every fill settled (a V2 market's fills once did not: see the ledger's approvals).
    assert_eq!(sim.settlement_failures(), 0);

    assert_eq!(
        sim.collateral_balance(me),
        U256::from(u128::try_from(cash).unwrap())
    );
    for (token, o) in &book {
        assert_eq!(
            sim.outcome_balance(me, token.parse().unwrap()),
            U256::from(o.held),
            "{token}"
        );
        let p = position(&sim, &user, token).await.unwrap();
        let held = i128::try_from(o.held).unwrap();
        assert_eq!(api_micros(&p["current_size"]), held, "{token}");
        let avg = if o.held > 0 {
            o.cost.checked_div(o.shares).unwrap_or(0)
        } else {
            0
        };
        assert_eq!(
            api_micros(&p["avg_price"]),
            i128::try_from(avg).unwrap(),
            "{token}"
        );
        assert_eq!(
            api_micros(&p["realized_pnl"]),
            o.realized / 1_000_000,
            "{token}"
        );
        assert_eq!(
            api_micros(&p["total_bought"]),
            i128::try_from(o.bought).unwrap(),
            "{token}"
        );
    }
}
