//! Fees as the venue charges and reports them, on markets configured with
//! `MarketSpec::fees` (rate 0.05, exponent 1, taker-only, rebate rate 0.25): the taker pays
//! `shares × 0.05 × p(1−p)` floored to 0.00001 pUSD, on top of a buy and out of a sell's
//! proceeds, and nothing else changes hands; the CLOB's fee answers, Gamma and the Data API
//! say so; makers accrue rebates that `GET /rebates/current` reports and the daily payout pays
//! as `MAKER_REBATE` activity. Fee-free markets stay free.

use crate::support::sim as support;

use alloy_primitives::{Address, U256};
use polyclob::fixed::{Price, Size};
use polyclob::order::{MarketAmount, MarketOrder};
use polyclob::types::{FeeSchedule, OrderType, Side, TickSize};
use polyclob_sim::{MarketSpec, SimHandle, Simulator};
use serde_json::{Value, json};
use support::*;

const C: u64 = 10_000; // one cent, in micro-pUSD
const S: u64 = 1_000_000; // one share

fn p(s: &str) -> Price {
    s.parse().unwrap()
}

fn q(s: &str) -> Size {
    s.parse().unwrap()
}

fn schedule() -> FeeSchedule {
    FeeSchedule::new(p("0.05"), 1, true, Some(p("0.25"))).unwrap()
}

/// The fixture markets, empty, fee-enabled when `fees`.
async fn start_fixture(fees: bool) -> SimHandle {
    let markets = MarketSpec::defaults()
        .into_iter()
        .map(|m| m.seed_levels(0))
        .map(|m| if fees { m.fees(schedule()) } else { m })
        .collect();
    Simulator::builder().markets(markets).start().await.unwrap()
}

fn pusd(sim: &SimHandle, who: Address) -> i128 {
    i128::try_from(sim.collateral_balance(who)).unwrap()
}

/// A Data API figure in micro-units.
fn micros(v: &Value) -> i128 {
    (v.as_f64().unwrap() * 1e6).round() as i128
}

async fn data(sim: &SimHandle, path: &str) -> (u16, Value) {
    let resp = http_client()
        .get(format!("{}{path}", sim.data_api_url()))
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (
        status,
        serde_json::from_str(&resp.text().await.unwrap()).unwrap(),
    )
}

async fn position(sim: &SimHandle, who: Address, token: &str) -> Value {
    let (_, v) = data(sim, &format!("/v2/positions?user={who:#x}")).await;
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["token_id"] == token)
        .cloned()
        .unwrap_or_else(|| panic!("no position in {token}"))
}

/// A FAK BUY of `spend` pUSD at worst `price`, its amounts as polyclob signs them.
fn fak_buy(token: &str, spend: &str, price: &str, salt: u64) -> OrderSpec {
    let order = MarketOrder::new(Side::Buy, MarketAmount::Usdc(q(spend)), p(price))
        .order_type(OrderType::Fak);
    let quote = order
        .quote(TickSize::Hundredth, [(p(price), q("1000000"))], None)
        .unwrap();
    let mut o = limit(token, Side::Buy, 0, 0, salt);
    o.maker_amount = q(spend).as_micros();
    o.taker_amount = quote.shares.as_micros();
    o.order_type = "FAK";
    o
}

/// The taker's trade row of `trader`'s last trade in `token`.
async fn last_trade(trader: &Trader, token: &str) -> Value {
    let (_, page, _) = trader
        .l2("GET", "/data/trades?next_cursor=MA==", None)
        .await;
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|t| t["asset_id"] == token)
        .cloned()
        .unwrap()
}

/// The issue's two taker legs, on a CTF, a neg-risk and a Protocol V2 market: a SELL of 7.57
/// at 0.65 (a real V2 fill of the chain capture: fee 0.0861, out of the 4.9205 proceeds) and a
/// FAK BUY of 25 pUSD into an ask at 0.79 (31.6455 shares for 24.999945 pUSD plus a 0.26249
/// fee: 25.262435 in all, more than the 25 asked). The makers pay nothing; the client's own
/// quote of the buy agrees to the micro-unit.
#[tokio::test]
async fn taker_pays_the_documented_fee() {
    let sim = start_fixture(true).await;
    let a = Trader::unfunded(&sim, KEY_A).await;
    let b = Trader::unfunded(&sim, KEY_B).await;
    for (k, m) in sim.markets().iter().enumerate() {
        if k == 1 {
            continue; // 0.001 tick: a CTF market like the first
        }
        let yes = m.tokens()[0].token_id();
        let salt = 100 * k as u64;
        sim.fund(a.address(), 100 * S);
        sim.fund(b.address(), 100 * S);
        assert!(sim.fund_tokens(a.address(), yes, 10 * S));
        assert!(sim.fund_tokens(b.address(), yes, 100 * S));
        let (a0, b0) = (pusd(&sim, a.address()), pusd(&sim, b.address()));

        // The SELL: B bids 7.57 at 0.65, A sells into it.
        let (s, v, _) = b
            .post(&limit(yes, Side::Buy, 65 * C, 757 * S / 100, salt + 1))
            .await;
        assert_eq!((s, v["status"].as_str()), (200, Some("live")), "{v}");
        let (s, v, _) = a
            .post(&limit(yes, Side::Sell, 65 * C, 757 * S / 100, salt + 2))
            .await;
        assert_eq!((s, v["status"].as_str()), (200, Some("matched")), "{v}");
        assert_eq!(
            pusd(&sim, a.address()) - a0,
            4_920_500 - 86_100,
            "market {k}"
        );
        assert_eq!(
            pusd(&sim, b.address()) - b0,
            -4_920_500,
            "the maker pays no fee"
        );

        // The BUY: B asks 100 at 0.79, A spends 25 pUSD.
        let (a1, b1) = (pusd(&sim, a.address()), pusd(&sim, b.address()));
        let (s, v, _) = b
            .post(&limit(yes, Side::Sell, 79 * C, 100 * S, salt + 3))
            .await;
        assert_eq!((s, v["status"].as_str()), (200, Some("live")), "{v}");
        let held = sim.outcome_balance(a.address(), yes.parse().unwrap());
        let (s, v, _) = a.post(&fak_buy(yes, "25", "0.79", salt + 4)).await;
        assert_eq!((s, v["status"].as_str()), (200, Some("matched")), "{v}");
        assert_eq!(
            (v["makingAmount"].as_str(), v["takingAmount"].as_str()),
            (Some("24.999945"), Some("31.6455"))
        );
        assert_eq!(
            sim.outcome_balance(a.address(), yes.parse().unwrap()) - held,
            U256::from(31_645_500u64)
        );
        assert_eq!(pusd(&sim, a.address()) - a1, -25_262_435, "market {k}");
        assert_eq!(pusd(&sim, b.address()) - b1, 24_999_945);
        // polyclob's own arithmetic: the same shares, cost and fee.
        let quote = MarketOrder::new(Side::Buy, MarketAmount::Usdc(q("25")), p("0.79"))
            .order_type(OrderType::Fak)
            .quote(
                TickSize::Hundredth,
                [(p("0.79"), q("100"))],
                Some(schedule()),
            )
            .unwrap();
        assert_eq!(
            (quote.shares, quote.value, quote.fee),
            (q("31.6455"), q("24.999945"), q("0.26249"))
        );
        assert_eq!(quote.cash().as_micros(), -25_262_435);

        // The trade rows: the taker's rate in bps, none for the taker-only maker.
        let t = last_trade(&a, yes).await;
        assert_eq!(t["fee_rate_bps"], "500");
        assert_eq!(t["maker_orders"][0]["fee_rate_bps"], "0");
        // The Data API: the buy's fee is the position's entry fee, apart from its cost.
        let pos = position(&sim, a.address(), yes).await;
        assert_eq!(micros(&pos["entry_fees_usdc"]), 262_490, "market {k}");
        assert_eq!(micros(&pos["avg_price"]), 790_000);
        assert_eq!(micros(&pos["entry_cost_usdc"]), 24_999_945);
        assert_eq!(micros(&pos["total_cost_usdc"]), 25_262_435);
        // The sell realized 4.9205 − 0.0861 on shares without a basis (funded): nothing.
        assert_eq!(micros(&pos["realized_pnl"]), 0);
        // Cancel B's rest so the next market starts clean.
        b.l2("DELETE", "/cancel-all", None).await;
    }
    assert_eq!(sim.settlement_failures(), 0);

    // The CLOB's fee answers and Gamma's.
    let m = &sim.markets()[0];
    let yes = m.tokens()[0].token_id();
    let (_, fee) = get(&sim, &format!("/fee-rate?token_id={yes}")).await;
    assert_eq!(fee, json!({"base_fee": 1000}));
    let (_, fee) = get(&sim, &format!("/fee-rate/{yes}")).await;
    assert_eq!(fee, json!({"base_fee": 1000}));
    let (_, cm) = get(&sim, &format!("/clob-markets/{}", m.condition_id())).await;
    assert_eq!(cm["fd"], json!({"r": 0.05, "e": 1, "to": true}));
    let url = format!(
        "{}/markets/keyset?condition_ids={}",
        sim.gamma_url(),
        m.condition_id()
    );
    let (_, page) = http_get(&url).await;
    let gm = &page["markets"][0];
    assert_eq!(gm["feesEnabled"], true);
    assert_eq!(
        gm["feeSchedule"],
        json!({"exponent": 1, "rate": 0.05, "takerOnly": true, "rebateRate": 0.25})
    );
}

async fn http_get(url: &str) -> (u16, Value) {
    let resp = http_client().get(url).send().await.unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// The same two trades on fee-free markets: no fee anywhere, `/fee-rate` 0, `fd` all zero.
#[tokio::test]
async fn fee_free_markets_stay_free() {
    let sim = start_fixture(false).await;
    let a = Trader::unfunded(&sim, KEY_A).await;
    let b = Trader::unfunded(&sim, KEY_B).await;
    let m = &sim.markets()[0];
    let yes = m.tokens()[0].token_id();
    sim.fund(a.address(), 100 * S);
    sim.fund(b.address(), 100 * S);
    assert!(sim.fund_tokens(a.address(), yes, 10 * S));
    assert!(sim.fund_tokens(b.address(), yes, 100 * S));
    let (a0, b0) = (pusd(&sim, a.address()), pusd(&sim, b.address()));
    b.post(&limit(yes, Side::Buy, 65 * C, 757 * S / 100, 1))
        .await;
    a.post(&limit(yes, Side::Sell, 65 * C, 757 * S / 100, 2))
        .await;
    b.post(&limit(yes, Side::Sell, 79 * C, 100 * S, 3)).await;
    let (s, v, _) = a.post(&fak_buy(yes, "25", "0.79", 4)).await;
    assert_eq!((s, v["status"].as_str()), (200, Some("matched")), "{v}");
    assert_eq!(pusd(&sim, a.address()) - a0, 4_920_500 - 24_999_945);
    assert_eq!(pusd(&sim, b.address()) - b0, 24_999_945 - 4_920_500);
    assert_eq!(last_trade(&a, yes).await["fee_rate_bps"], "0");
    assert_eq!(
        micros(&position(&sim, a.address(), yes).await["entry_fees_usdc"]),
        0
    );
    let (_, fee) = get(&sim, &format!("/fee-rate?token_id={yes}")).await;
    assert_eq!(fee, json!({"base_fee": 0}));
    let (_, cm) = get(&sim, &format!("/clob-markets/{}", m.condition_id())).await;
    assert_eq!(cm["fd"], json!({"r": 0, "e": 0, "to": false}));
}

/// Maker fills of 1,000 shares at 0.50 carried 12.5 pUSD of fee-equivalent: a quarter, 3.125,
/// is the maker's rebate of the day, reported by `/rebates/current` and paid by the daily
/// payout as a `MAKER_REBATE` activity row. A maker with 0.40 accrued is below the $1 payout
/// minimum: listed, not paid.
#[tokio::test]
async fn maker_rebates_appear_where_the_venue_shows_them() {
    let sim = start_fixture(true).await;
    let m = &sim.markets()[0];
    let yes = m.tokens()[0].token_id();
    let a = Trader::unfunded(&sim, KEY_A).await;
    let b = Trader::unfunded(&sim, KEY_B).await;
    let c = Trader::unfunded(
        &sim,
        "5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
    )
    .await;
    sim.fund(a.address(), 1_000 * S);
    assert!(sim.fund_tokens(b.address(), yes, 1_000 * S));
    assert!(sim.fund_tokens(c.address(), yes, 128 * S));
    b.post(&limit(yes, Side::Sell, 50 * C, 1_000 * S, 1)).await;
    c.post(&limit(yes, Side::Sell, 50 * C, 128 * S, 2)).await;
    let (s, v, _) = a.post(&limit(yes, Side::Buy, 50 * C, 1_128 * S, 3)).await;
    assert_eq!((s, v["status"].as_str()), (200, Some("matched")), "{v}");
    // The taker paid the whole trade's fee: 0.05 · 0.25 · 1,128 = 14.1.
    assert_eq!(
        pusd(&sim, a.address()),
        1_000_000_000 - 564_000_000 - 14_100_000
    );

    let today = polyclob::types::Timestamp::from_secs(now_s())
        .unwrap()
        .to_string();
    let today = &today[..10];
    let report = |who: Address| format!("/rebates/current?date={today}&maker_address={who:#x}");
    let (s, rows) = get(&sim, &report(b.address())).await;
    assert_eq!(s, 200, "{rows}");
    assert_eq!(rows.as_array().unwrap().len(), 1, "{rows}");
    let row = &rows[0];
    assert_eq!(row["date"], today);
    assert_eq!(row["condition_id"], m.condition_id());
    assert_eq!(row["rebated_fees_usdc"], "3.125");
    assert_eq!(
        row["asset_address"],
        "0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB"
    );
    let (_, rows) = get(&sim, &report(c.address())).await;
    assert_eq!(rows[0]["rebated_fees_usdc"], "0.4");
    // Missing or malformed parameters are refused.
    assert_eq!(get(&sim, "/rebates/current?date=2026-01-01").await.0, 400);
    let bad = format!(
        "/rebates/current?date=today&maker_address={:#x}",
        b.address()
    );
    assert_eq!(get(&sim, &bad).await.0, 400);

    // The payout: B is paid, C (below $1) is not; the row is B's activity.
    assert_eq!(sim.pay_rebates(), 3_125_000);
    assert_eq!(pusd(&sim, b.address()), 500_000_000 + 3_125_000);
    assert_eq!(pusd(&sim, c.address()), 64_000_000);
    assert_eq!(sim.pay_rebates(), 0, "paid once");
    let (s, v) = data(
        &sim,
        &format!("/v2/activity?user={:#x}&type=MAKER_REBATE", b.address()),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    let rows = v["data"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{v}");
    assert_eq!(rows[0]["type"], "MAKER_REBATE");
    assert_eq!(micros(&rows[0]["usdc_size"]), 3_125_000);
    assert_eq!(rows[0]["condition_id"], m.condition_id());
    let (_, v) = data(
        &sim,
        &format!(
            "/v2/activity?user={:#x}&type=TRADE,MAKER_REBATE",
            b.address()
        ),
    )
    .await;
    assert_eq!(v["data"].as_array().unwrap().len(), 2);
    let (_, v) = data(
        &sim,
        &format!("/v2/activity?user={:#x}&type=TRADE", b.address()),
    )
    .await;
    assert_eq!(v["data"].as_array().unwrap().len(), 1);
    let (s, _) = data(
        &sim,
        &format!("/v2/activity?user={:#x}&type=BOGUS", b.address()),
    )
    .await;
    assert_eq!(s, 400);
    let (_, rows) = get(&sim, &report(c.address())).await;
    assert_eq!(rows[0]["rebated_fees_usdc"], "0.4", "still accrued");
}

/// The venue takes a sell's shares to 2 decimals: the 31.6455 shares a FAK buy of 25 pUSD
/// left cannot be sold whole; the lot, 31.64, can (the dust stays).
#[tokio::test]
async fn sells_of_more_than_the_lot_are_refused() {
    let sim = start_fixture(false).await;
    let yes = sim.markets()[0].tokens()[0].token_id().to_owned();
    let a = Trader::unfunded(&sim, KEY_A).await;
    let b = Trader::unfunded(&sim, KEY_B).await;
    sim.fund(b.address(), 100 * S);
    assert!(sim.fund_tokens(a.address(), &yes, 31_645_500));
    b.post(&limit(&yes, Side::Buy, 70 * C, 100 * S, 1)).await;
    let held = q("31.6455");
    let mut whole = limit(&yes, Side::Sell, 70 * C, held.as_micros(), 2);
    whole.order_type = "FAK";
    let (s, v, _) = a.post(&whole).await;
    assert_eq!(s, 400, "{v}");
    assert_eq!(
        v["error"],
        "invalid amounts, the market sell orders maker amount supports a max accuracy of 2 decimals, taker amount a max of 4 decimals"
    );
    let (lot, dust) = held.split_lot();
    let mut sell = limit(&yes, Side::Sell, 70 * C, lot.as_micros(), 3);
    sell.order_type = "FAK";
    let (s, v, _) = a.post(&sell).await;
    assert_eq!((s, v["status"].as_str()), (200, Some("matched")), "{v}");
    assert_eq!(
        sim.outcome_balance(a.address(), yes.parse().unwrap()),
        U256::from(dust.as_micros())
    );
}
