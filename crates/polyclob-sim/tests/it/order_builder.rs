//! End to end with the crate's own order builder: `OrderSigner` output, posted as-is, is
//! accepted by the simulator on every fixture market and wallet kind, and a market order priced
//! from the simulator's book with `market_price` fills.
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;

use polyclob::fixed::{Price, Size};
use polyclob::order::{LimitOrder, MarketContext, MarketOrder, OrderSigner, TokenId, market_price};
use polyclob::sign::Signer;
use polyclob::sign::wallet::Wallet;
use polyclob::types::{Chain, ExchangeVersion, OrderType, Side};
use serde_json::Value;
use support::*;

fn context(m: &polyclob_sim::MarketSpec, token: usize) -> MarketContext {
    let version = if m.is_position_ids() {
        ExchangeVersion::V3
    } else {
        ExchangeVersion::V2
    };
    let id = TokenId::parse(m.tokens()[token].token_id().as_bytes()).unwrap();
    MarketContext::new(Chain::Polygon, version, id, m.tick(), m.is_neg_risk()).unwrap()
}

#[tokio::test]
async fn builder_orders_are_accepted_on_every_market_and_wallet() {
    let sim = start(4).await;
    let t = Trader::new(&sim, KEY_A).await;
    let eoa = t.address();
    let wallets = [
        Wallet::Eoa,
        Wallet::derived_safe(eoa, Chain::Polygon),
        Wallet::derived_proxy(eoa, Chain::Polygon).unwrap(),
        Wallet::DepositWallet(
            "0x1111111111111111111111111111111111111111"
                .parse()
                .unwrap(),
        ),
    ];
    // The deposit wallet is no derived one: fund it as its owner would.
    sim.fund(
        "0x1111111111111111111111111111111111111111"
            .parse()
            .unwrap(),
        FUNDS,
    );
    let mut accepted = 0;
    for wallet in wallets {
        let orders =
            OrderSigner::new(Signer::from_hex(KEY_A).unwrap(), Chain::Polygon, wallet).unwrap();
        for m in markets() {
            let ctx = context(&m, 0);
            // A resting bid well below the seeded book.
            let price = Price::new(m.tick().as_micros() * 3).unwrap();
            let signed = orders
                .limit_order(
                    &ctx,
                    &LimitOrder::new(Side::Buy, price, "10".parse().unwrap()),
                )
                .unwrap();
            let body = String::from_utf8(signed.to_json(t.creds.api_key())).unwrap();
            let (s, v, _) = t.l2("POST", "/order", Some(&body)).await;
            assert_eq!(s, 200, "{wallet:?} {}: {v}", m.question());
            assert_eq!(v["orderID"], format!("{:#x}", signed.hash()));
            assert_eq!(v["status"], "live");
            accepted += 1;
        }
    }
    assert_eq!(accepted, 16);
    // A builder configured for the wrong chain signs a domain the simulator refuses.
    let amoy =
        OrderSigner::new(Signer::from_hex(KEY_A).unwrap(), Chain::Amoy, Wallet::Eoa).unwrap();
    let m = &markets()[0];
    let id = TokenId::parse(m.tokens()[0].token_id().as_bytes()).unwrap();
    let ctx = MarketContext::new(Chain::Amoy, ExchangeVersion::V2, id, m.tick(), false).unwrap();
    let signed = amoy
        .limit_order(
            &ctx,
            &LimitOrder::new(Side::Buy, "0.05".parse().unwrap(), "10".parse().unwrap()),
        )
        .unwrap();
    let (s, v, _) = t
        .l2(
            "POST",
            "/order",
            Some(&String::from_utf8(signed.to_json(t.creds.api_key())).unwrap()),
        )
        .await;
    assert_eq!(s, 400);
    assert!(v["error"].as_str().unwrap().contains("invalid signature"));
}

#[tokio::test]
async fn market_order_priced_from_the_book_fills() {
    let sim = start(4).await;
    let t = Trader::new(&sim, KEY_B).await;
    let m = &markets()[0];
    let token = m.tokens()[0].token_id();
    let (_, book) = get(&sim, &format!("/book?token_id={token}")).await;
    // REST levels are worst-first: walk them from the end.
    let asks: Vec<(Price, Size)> = book["asks"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .map(|l| {
            (
                Price::parse(l["price"].as_str().unwrap().as_bytes()).unwrap(),
                Size::parse(l["size"].as_str().unwrap().as_bytes()).unwrap(),
            )
        })
        .collect();
    let amount: Size = "25".parse().unwrap(); // pUSD to spend
    let price = market_price(Side::Buy, amount, OrderType::Fok, asks.iter().copied()).unwrap();
    let orders = OrderSigner::new(
        Signer::from_hex(KEY_B).unwrap(),
        Chain::Polygon,
        Wallet::Eoa,
    )
    .unwrap();
    let signed = orders
        .market_order(
            &context(m, 0),
            &MarketOrder::new(
                Side::Buy,
                polyclob::order::MarketAmount::Usdc(amount),
                price,
            )
            .order_type(OrderType::Fok),
        )
        .unwrap();
    let (s, v, _) = t
        .l2(
            "POST",
            "/order",
            Some(&String::from_utf8(signed.to_json(t.creds.api_key())).unwrap()),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["status"], "matched");
    let spent: f64 = v["makingAmount"].as_str().unwrap().parse().unwrap();
    assert!(spent > 0.0 && spent <= 25.0, "{v}");
    let (_, trades, _) = t.l2("GET", "/data/trades", None).await;
    assert_eq!(trades["data"].as_array().unwrap().len(), 1);
    let t0: &Value = &trades["data"][0];
    assert_eq!(t0["trader_side"], "TAKER");
}
