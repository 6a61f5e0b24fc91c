//! Market orders whose amount names its unit, and "nothing to match" as a predicate, against
//! the simulator.
#![allow(clippy::unwrap_used)]

use polyclob::account::Account;
use polyclob::clob::{ClientBuilder, Credentials};
use polyclob::fixed::Size;
use polyclob::order::{LimitOrder, MarketAmount, MarketOrder, OrderError};
use polyclob::sign::Signer;
use polyclob::types::{OrderType, Side};
use polyclob_sim::{MarketSpec, SimHandle, Simulator};

const KEY_A: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const KEY_B: &str = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const COND: &str = "0x00000000000000000000000000000000000000000000000000000000000000c1";
const YES: &str = "1001";
const NO: &str = "1002";

fn q(s: &str) -> Size {
    s.parse().unwrap()
}

async fn setup() -> (SimHandle, Account, Account) {
    let market = MarketSpec::binary(COND, "Empty test market", [YES, NO]).seed_levels(0);
    let sim = Simulator::builder()
        .markets(vec![market])
        .start()
        .await
        .unwrap();
    let account = |key: &str| {
        Account::builder(Signer::from_hex(key).unwrap())
            .client(ClientBuilder::new().host(sim.http_url()))
            .connect()
    };
    let maker = account(KEY_A).await.unwrap();
    let taker = account(KEY_B).await.unwrap();
    // The simulator, like the exchange, refuses orders an account cannot pay for.
    for a in [&maker, &taker] {
        crate::support::sim::fund_all(&sim, a.maker());
    }
    // Asks: 10 at 0.50, 10 at 0.55.
    for price in ["0.50", "0.55"] {
        let ask = LimitOrder::new(Side::Sell, price.parse().unwrap(), q("10"));
        assert!(maker.place_limit_order(YES, &ask).await.unwrap().success);
    }
    (sim, maker, taker)
}

#[tokio::test]
async fn a_buy_sized_in_shares_walks_the_book_and_gets_those_shares() {
    let (_sim, _maker, taker) = setup().await;
    let buy = MarketOrder::new(
        Side::Buy,
        MarketAmount::Shares(q("15")),
        "0.60".parse().unwrap(),
    )
    .order_type(OrderType::Fak);
    // Tightened to the book: 15 shares reach the 0.55 level, so at most 15 × 0.55 is signed.
    let book = taker.client().book(YES).await.unwrap();
    let asks = book.asks.iter().rev().map(|l| (l.price, l.size));
    let buy = buy.with_book(asks).unwrap();
    assert_eq!(buy.price(), "0.55".parse().unwrap());
    let ctx = taker.market_context(YES).await.unwrap();
    let signed = taker.order_signer().market_order(&ctx, &buy).unwrap();
    assert_eq!(
        (signed.order().maker_amount, signed.order().taker_amount),
        (8_250_000, 15_000_000)
    );
    let r = taker.post_order(&signed).await.unwrap();
    assert!(r.success, "{r:?}");
    // 10 × 0.50 + 5 × 0.55 = 7.75 pUSD for exactly 15 shares.
    assert_eq!(
        (r.making_amount, r.taking_amount),
        (q("7.75"), q("15")),
        "{r:?}"
    );
    // Without the book walk, at its own worst price: the 5 shares left at 0.55 cost 2.75.
    let rest = MarketOrder::new(
        Side::Buy,
        MarketAmount::Shares(q("5")),
        "0.60".parse().unwrap(),
    );
    let r = taker.place_market_order(YES, &rest).await.unwrap();
    assert_eq!(
        (r.making_amount, r.taking_amount),
        (q("2.75"), q("5")),
        "{r:?}"
    );
}

#[tokio::test]
async fn nothing_to_match_is_a_predicate_not_message_text() {
    let (_sim, _maker, taker) = setup().await;
    // The NO book is empty: the exchange answers 400 "no orders found to match".
    let spend = MarketOrder::new(
        Side::Buy,
        MarketAmount::Usdc(q("5")),
        "0.60".parse().unwrap(),
    )
    .order_type(OrderType::Fak);
    let ctx = taker.market_context(NO).await.unwrap();
    let signed = taker.order_signer().market_order(&ctx, &spend).unwrap();
    let e = taker.post_order(&signed).await.unwrap_err();
    assert!(e.is_no_match() && e.status() == Some(400), "{e}");
    // A FOK the exchange cannot fill in full.
    let too_much = MarketOrder::new(
        Side::Buy,
        MarketAmount::Usdc(q("50")),
        "0.55".parse().unwrap(),
    );
    let ctx = taker.market_context(YES).await.unwrap();
    let signed = taker.order_signer().market_order(&ctx, &too_much).unwrap();
    let e = taker.post_order(&signed).await.unwrap_err();
    assert!(e.is_no_match(), "{e}");
    // A FOK sized in shares the book cannot fill: refused by the exchange, or before sending
    // by the book walk.
    let fok = MarketOrder::new(
        Side::Buy,
        MarketAmount::Shares(q("25")),
        "0.60".parse().unwrap(),
    );
    let e = taker.place_market_order(YES, &fok).await.unwrap_err();
    assert!(e.is_no_match() && e.status() == Some(400), "{e}");
    let book = taker.client().book(YES).await.unwrap();
    let asks = book.asks.iter().rev().map(|l| (l.price, l.size));
    assert_eq!(fok.with_book(asks).unwrap_err(), OrderError::NoMatch);
    // Other refusals are not no-matches.
    let bad = LimitOrder::new(Side::Buy, "0.10".parse().unwrap(), q("1"));
    let e = taker.place_limit_order(YES, &bad).await.unwrap_err();
    assert!(e.is_below_min_size() && !e.is_no_match(), "{e}");
}

#[test]
fn units_a_side_cannot_be_sized_in_are_refused_when_signed() {
    let signer = Signer::from_hex(KEY_A).unwrap();
    let account = Account::builder(signer)
        .client(ClientBuilder::new().host("http://127.0.0.1:9"))
        .credentials(Credentials::new("k", "AAAA", "p"))
        .build()
        .unwrap();
    let ctx = account
        .client()
        .market_context_with(YES, polyclob::types::TickSize::Hundredth, false)
        .unwrap();
    let price = "0.5".parse().unwrap();
    let sell_usdc = MarketOrder::new(Side::Sell, MarketAmount::Usdc(q("5")), price);
    assert_eq!(
        account
            .order_signer()
            .market_order(&ctx, &sell_usdc)
            .unwrap_err(),
        OrderError::AmountUnit { side: Side::Sell }
    );
    // A BUY in shares names the shares it takes; one in pUSD the pUSD it gives.
    let buy_shares = MarketOrder::new(Side::Buy, MarketAmount::Shares(q("5")), price);
    let o = account
        .order_signer()
        .market_order(&ctx, &buy_shares)
        .unwrap();
    assert_eq!(
        (o.order().maker_amount, o.order().taker_amount),
        (2_500_000, 5_000_000)
    );
    let buy_usdc = MarketOrder::new(Side::Buy, MarketAmount::Usdc(q("5")), price);
    let o = account
        .order_signer()
        .market_order(&ctx, &buy_usdc)
        .unwrap();
    assert_eq!(
        (o.order().maker_amount, o.order().taker_amount),
        (5_000_000, 10_000_000)
    );
}
