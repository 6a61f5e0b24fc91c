//! YES and NO meet as on the venue: the exchange contract's COMPLEMENTARY, MINT and MERGE
//! matches. A BUY YES and a BUY NO whose prices sum to 1 or more mint the pair (each buyer
//! pays its own price, the pair's pUSD is escrowed where the market's positions live); a SELL
//! YES and a SELL NO summing to 1 or less merge it back (the escrow pays each seller); a
//! resting order shows in both tokens' books, the NO book the mirror of the YES book.

use crate::support::sim as support;

use alloy_primitives::{Address, U256};
use polyclob::types::{Chain, ExchangeVersion, Side, contracts};
use polyclob_sim::{MarketSpec, SimHandle, Simulator};
use serde_json::Value;
use support::*;

const C: u64 = 10_000; // one cent, in micro-pUSD
const S: u64 = 1_000_000; // one share

/// The fixture markets with empty books: CTF, 0.001 tick, neg-risk, Protocol V2.
async fn start_fixture() -> SimHandle {
    let markets = MarketSpec::defaults()
        .into_iter()
        .map(|m| m.seed_levels(0))
        .collect();
    Simulator::builder().markets(markets).start().await.unwrap()
}

/// Where a market's collateral is escrowed: ConditionalTokens, or the PositionManager of a
/// Protocol V2 market.
fn escrow(m: &MarketSpec) -> Address {
    if m.is_position_ids() {
        contracts(Chain::Polygon, ExchangeVersion::V3)
            .position_manager
            .unwrap()
    } else {
        contracts(Chain::Polygon, ExchangeVersion::V2).conditional_tokens
    }
}

fn pusd(sim: &SimHandle, who: Address) -> U256 {
    sim.collateral_balance(who)
}

fn held(sim: &SimHandle, who: Address, token: &str) -> U256 {
    sim.outcome_balance(who, token.parse().unwrap())
}

async fn positions(sim: &SimHandle, who: Address) -> Vec<Value> {
    let url = format!("{}/v2/positions?user={who:#x}", sim.data_api_url());
    let text = http_client()
        .get(url)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["data"].as_array().unwrap().clone()
}

/// A Data API figure in micro-units.
fn micros(v: &Value) -> i128 {
    (v.as_f64().unwrap() * 1e6).round() as i128
}

async fn position(sim: &SimHandle, who: Address, token: &str) -> Value {
    positions(sim, who)
        .await
        .into_iter()
        .find(|p| p["token_id"] == token)
        .unwrap_or_else(|| panic!("no position in {token}"))
}

/// Two traders with 100 pUSD each and nothing else.
async fn two_traders(sim: &SimHandle) -> (Trader, Trader) {
    let a = Trader::unfunded(sim, KEY_A).await;
    let b = Trader::unfunded(sim, KEY_B).await;
    sim.fund(a.address(), 100 * S);
    sim.fund(b.address(), 100 * S);
    (a, b)
}

/// A BUY YES resting at 0.40 and a BUY NO arriving at 0.65: they mint. The maker pays its own
/// 0.40, the taker the complement 0.60 (the price improvement is the taker's), each holds 10
/// of its token, and the escrow holds exactly the 10 pUSD the pair is worth. Then a SELL YES
/// resting at 0.45 and a SELL NO at 0.60 do not cross (1.05 > 1); at 0.50 they merge: the
/// maker gets 0.45, the taker 0.55, the tokens are burned and the escrow pays out the 10.
/// On a CTF, a neg-risk and a Protocol V2 market.
#[tokio::test]
async fn complementary_buys_mint_and_sells_merge() {
    let sim = start_fixture().await;
    let (a, b) = two_traders(&sim).await;
    for (k, m) in sim.markets().iter().enumerate() {
        if k == 1 {
            continue; // the 0.001 tick market is a CTF market like the first
        }
        let (a_base, b_base) = (pusd(&sim, a.address()), pusd(&sim, b.address()));
        let (yes, no) = (m.tokens()[0].token_id(), m.tokens()[1].token_id());
        let vault = escrow(m);
        let before = pusd(&sim, vault);
        let salt = 100 * k as u64;

        let (s, v, bid) = a
            .post(&limit(yes, Side::Buy, 40 * C, 10 * S, salt + 1))
            .await;
        assert_eq!((s, v["status"].as_str()), (200, Some("live")), "{v}");
        // The resting bid holds its 4 pUSD (a BUY NO at 0.50 does not cross it, 0.90 < 1,
        // and needs 100 more: refused).
        let (s, v, _) = a
            .post(&limit(no, Side::Buy, 50 * C, 200 * S, salt + 2))
            .await;
        assert_eq!(s, 400, "{v} {a_base}");
        assert!(
            v["error"].as_str().unwrap().contains("not enough balance"),
            "{v}"
        );

        let (s, v, _) = b
            .post(&limit(no, Side::Buy, 65 * C, 10 * S, salt + 3))
            .await;
        assert_eq!((s, v["status"].as_str()), (200, Some("matched")), "{v}");
        // The taker's answer: it gave 6 pUSD for 10 NO.
        assert_eq!(
            (v["makingAmount"].as_str(), v["takingAmount"].as_str()),
            (Some("6"), Some("10"))
        );
        assert_eq!(pusd(&sim, a.address()), a_base - U256::from(4 * S));
        assert_eq!(pusd(&sim, b.address()), b_base - U256::from(6 * S));
        assert_eq!(held(&sim, a.address(), yes), U256::from(10 * S));
        assert_eq!(held(&sim, b.address(), no), U256::from(10 * S));
        assert_eq!(held(&sim, a.address(), no), U256::ZERO);
        assert_eq!(pusd(&sim, vault), before + U256::from(10 * S), "market {k}");

        // The trade as the taker sees it: its token at its price, the maker's order on YES.
        let (_, page, _) = b.l2("GET", "/data/trades?next_cursor=MA==", None).await;
        let t = page["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["asset_id"] == no)
            .unwrap();
        assert_eq!(t["side"], "BUY");
        assert_eq!(t["price"], "0.6");
        let mo = &t["maker_orders"][0];
        assert_eq!(mo["order_id"], bid.as_str());
        assert_eq!(
            (mo["asset_id"].as_str(), mo["side"].as_str()),
            (Some(yes), Some("BUY"))
        );
        assert_eq!(
            (mo["price"].as_str(), mo["matched_amount"].as_str()),
            (Some("0.4"), Some("10"))
        );
        // Each position at the price its owner paid.
        assert_eq!(
            micros(&position(&sim, a.address(), yes).await["avg_price"]),
            400_000
        );
        assert_eq!(
            micros(&position(&sim, b.address(), no).await["avg_price"]),
            600_000
        );

        // Merge.
        let (s, v, _) = a
            .post(&limit(yes, Side::Sell, 45 * C, 10 * S, salt + 4))
            .await;
        assert_eq!((s, v["status"].as_str()), (200, Some("live")), "{v}");
        let (s, v, far) = b
            .post(&limit(no, Side::Sell, 60 * C, 10 * S, salt + 5))
            .await;
        assert_eq!(
            (s, v["status"].as_str()),
            (200, Some("live")),
            "0.45 + 0.60 > 1: {v}"
        );
        let (s, _, _) = b
            .l2(
                "DELETE",
                "/order",
                Some(&format!(r#"{{"orderID":"{far}"}}"#)),
            )
            .await;
        assert_eq!(s, 200);
        let (s, v, _) = b
            .post(&limit(no, Side::Sell, 50 * C, 10 * S, salt + 6))
            .await;
        assert_eq!((s, v["status"].as_str()), (200, Some("matched")), "{v}");
        assert_eq!(
            (v["makingAmount"].as_str(), v["takingAmount"].as_str()),
            (Some("10"), Some("5.5"))
        );
        assert_eq!(pusd(&sim, a.address()), a_base + U256::from(S / 2));
        assert_eq!(pusd(&sim, b.address()), b_base - U256::from(S / 2));
        assert_eq!(held(&sim, a.address(), yes), U256::ZERO);
        assert_eq!(held(&sim, b.address(), no), U256::ZERO);
        assert_eq!(
            pusd(&sim, vault),
            before,
            "market {k}: the escrow paid the pair back"
        );
        let realized = |p: &Value| micros(&p["realized_pnl"]);
        assert_eq!(realized(&position(&sim, a.address(), yes).await), 500_000);
        assert_eq!(realized(&position(&sim, b.address(), no).await), -500_000);
        assert_eq!(sim.settlement_failures(), 0);
    }
}

/// A resting BUY YES at 0.40 is a NO ask at 0.60: the REST books of both tokens show it
/// mirrored, a client subscribed to NO only hears it (one `price_change` with both tokens'
/// entries, the order's own first), and its cancel removes both.
#[tokio::test]
async fn mirrored_levels_appear_in_both_books() {
    let sim = start_empty().await;
    let (a, _) = two_traders(&sim).await;
    let mut ws = ws(&sim, "market").await;
    send(
        &mut ws,
        &format!(r#"{{"assets_ids":["{NO}"],"type":"market"}}"#),
    )
    .await;
    let snap = next_events(&mut ws, LONG).await.unwrap();
    assert_eq!(snap[0]["asset_id"], NO);

    let (_, _, id) = a.post(&limit(YES, Side::Buy, 40 * C, 10 * S, 1)).await;
    let levels = |b: &Value, side: &str| -> Vec<(String, String)> {
        b[side]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                (
                    l["price"].as_str().unwrap().to_owned(),
                    l["size"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let level = |p: &str, s: &str| vec![(p.to_owned(), s.to_owned())];
    let (_, yes_book) = get(&sim, &format!("/book?token_id={YES}")).await;
    let (_, no_book) = get(&sim, &format!("/book?token_id={NO}")).await;
    assert_eq!(levels(&yes_book, "bids"), level("0.4", "10"));
    assert_eq!(levels(&no_book, "asks"), level("0.6", "10"));
    assert!(levels(&no_book, "bids").is_empty() && levels(&yes_book, "asks").is_empty());
    let (_, mid) = get(&sim, &format!("/price?token_id={NO}&side=SELL")).await;
    assert_eq!(mid["price"], "0.6");

    let e = wait_event(&mut ws, "price_change", LONG).await.unwrap();
    let entry = |e: &Value, i: usize| {
        let c = &e["price_changes"][i];
        [
            &c["asset_id"],
            &c["side"],
            &c["price"],
            &c["size"],
            &c["best_bid"],
            &c["best_ask"],
        ]
        .map(|v| v.as_str().unwrap().to_owned())
    };
    assert_eq!(entry(&e, 0), [YES, "BUY", "0.4", "10", "0.4", "1"]);
    assert_eq!(entry(&e, 1), [NO, "SELL", "0.6", "10", "0", "0.6"]);

    let (s, _, _) = a
        .l2(
            "DELETE",
            "/order",
            Some(&format!(r#"{{"orderID":"{id}"}}"#)),
        )
        .await;
    assert_eq!(s, 200);
    let e = wait_event(&mut ws, "price_change", LONG).await.unwrap();
    assert_eq!(entry(&e, 0), [YES, "BUY", "0.4", "0", "0", "1"]);
    assert_eq!(entry(&e, 1), [NO, "SELL", "0.6", "0", "0", "1"]);
    let (_, no_book) = get(&sim, &format!("/book?token_id={NO}")).await;
    assert!(levels(&no_book, "asks").is_empty());
}
