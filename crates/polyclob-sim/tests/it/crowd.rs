//! Price paths and the crowd: a signal bot sees the book react to a driven reference price, a
//! copy-trader follows a named simulated account, books move to a price at once, and one
//! account is rate-limited while another is not.
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;

use std::time::Duration;

use futures_util::StreamExt;
use polyclob::fixed::Price;
use polyclob::types::Side;
use polyclob_sim::{Crowd, CrowdTrader, FairValue, MarketSpec, PricePath, SimHandle, Simulator};
use serde_json::{Value, json};
use support::{COND, KEY_A, KEY_B, NO, Trader, Ws, YES, get, limit, send, start_empty};
use tokio::time::Instant;

/// One dollar in the reference paths' micro-dollars.
const USD: u64 = 1_000_000;

fn btc_market() -> MarketSpec {
    MarketSpec::binary(COND, "Will BTC end the day above $100,000?", [YES, NO])
}

async fn connect(url: &str) -> Ws {
    tokio_tungstenite::connect_async(url).await.unwrap().0
}

/// Reads text frames until one satisfies `want` (parsed as JSON; arrays are searched
/// element-wise); panics after five seconds.
async fn wait_for(ws: &mut Ws, what: &str, want: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let msg = tokio::time::timeout_at(deadline, ws.next())
            .await
            .unwrap_or_else(|_| panic!("no {what} in time"))
            .expect("open")
            .unwrap();
        let Ok(text) = msg.to_text() else { continue };
        let Ok(v) = serde_json::from_str::<Value>(text) else {
            continue;
        };
        let items = match v {
            Value::Array(a) => a,
            v => vec![v],
        };
        if let Some(hit) = items.into_iter().find(|v| want(v)) {
            return hit;
        }
    }
}

/// The first token's best bid and ask on the REST book, in micro-units.
async fn top(sim: &SimHandle) -> (u64, u64) {
    let (_, book) = get(sim, &format!("/book?token_id={YES}")).await;
    let px = |side: &str| -> u64 {
        let p = book[side].as_array().unwrap().last().unwrap()["price"]
            .as_str()
            .unwrap()
            .parse::<f64>()
            .unwrap();
        (p * 1e6).round() as u64
    };
    (px("bids"), px("asks"))
}

/// The "Done when": a signal bot watching the reference price (RTDS and PolyBolt) and
/// the market channel sees the reference jump and the crowd's maker requote the book around
/// the new fair value.
#[tokio::test]
async fn a_signal_bot_sees_the_book_react_to_a_driven_reference_price() {
    let sim = Simulator::builder()
        .markets(vec![btc_market()])
        .crowd(Crowd::new().trader(CrowdTrader::maker("mm").levels(2)))
        .rtds_interval(Duration::from_millis(20))
        .start()
        .await
        .unwrap();
    // "Above $100,000": 0.5 at the strike, +0.1 per $200.
    assert!(sim.drive_market(
        COND,
        FairValue::reference("btc", 100_000 * USD, 2_000 * USD)
    ));
    sim.drive_reference(
        "btc/usd",
        PricePath::scripted([100_000 * USD, 100_000 * USD, 100_600 * USD]),
    );
    assert_eq!(sim.fair_value(COND), Price::new(500_000));

    // The bot's three feeds.
    let mut rtds = connect(&sim.rtds_url()).await;
    let sub = json!({"action":"subscribe","subscriptions":[{"topic":"crypto_prices_chainlink","type":"update","filters":"{\"symbol\":\"btc/usd\"}"}]});
    send(&mut rtds, &sub.to_string()).await;
    let mut bolt = connect(&sim.polybolt_url()).await;
    let creds = sim.api_credentials("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", 0);
    let auth = json!({"op":"auth","auth":{"apiKey":creds.api_key(),"secret":creds.secret(),"passphrase":creds.passphrase()}});
    send(&mut bolt, &auth.to_string()).await;
    wait_for(&mut bolt, "authed", |v| v["op"] == "authed").await;
    let sub = json!({"op":"subscribe","subscriptions":[{"channel":"price.crypto","filter":{"symbol":"btcusd"}}]});
    send(&mut bolt, &sub.to_string()).await;
    let mut market = connect(&sim.market_ws_url()).await;
    send(
        &mut market,
        &json!({"assets_ids":[YES],"type":"market"}).to_string(),
    )
    .await;
    wait_for(&mut market, "book", |v| v["event_type"] == "book").await;

    // Before: the driven reference, not the synthetic series, and the seeded book at 0.50.
    let chainlink = |v: &Value| {
        v["payload"]["full_accuracy_value"]
            .as_str()
            .map(str::to_owned)
    };
    let before = wait_for(&mut rtds, "a price", |v| chainlink(v).is_some()).await;
    assert_eq!(
        chainlink(&before).as_deref(),
        Some("100000000000000000000000")
    );
    assert_eq!(top(&sim).await, (490_000, 510_000));

    // Two steps: the reference jumps to $100,600 on the second.
    sim.step_activity(1);
    assert_eq!(sim.fair_value(COND), Price::new(500_000));
    sim.step_activity(1);
    assert_eq!(sim.fair_value(COND), Price::new(800_000));

    wait_for(&mut rtds, "the jump on RTDS", |v| {
        chainlink(v).as_deref() == Some("100600000000000000000000")
    })
    .await;
    wait_for(&mut bolt, "the jump on PolyBolt", |v| {
        v["payload"]["full_accuracy_value"] == "100600.00000000"
    })
    .await;
    // The book reacts: the maker's quotes now sit a tick either side of 0.80.
    wait_for(&mut market, "the requoted top of book", |v| {
        v["event_type"] == "price_change"
            && v["price_changes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["best_bid"] == "0.79" && c["best_ask"] == "0.81")
    })
    .await;
    assert_eq!(top(&sim).await, (790_000, 810_000));
    // The mirror image on the second token.
    let (_, no) = get(&sim, &format!("/book?token_id={NO}")).await;
    assert_eq!(
        no["bids"].as_array().unwrap().last().unwrap()["price"],
        "0.19"
    );
}

/// The "Done when": a copy-trader watching RTDS activity mirrors every trade of one
/// named simulated account (an informed trader) and none of another's (a noise taker); the
/// Data API shows the followed account's trades under its address.
#[tokio::test]
async fn a_copy_trader_follows_a_named_simulated_account() {
    let ivy = CrowdTrader::informed("ivy").size(20).seed(1);
    let noise = CrowdTrader::taker("noise").rate(0.5).seed(2);
    let sim = Simulator::builder()
        .markets(vec![btc_market()])
        .crowd(Crowd::new().trader(noise.clone()).trader(ivy.clone()))
        .start()
        .await
        .unwrap();
    let ivy_addr = format!("{:#x}", ivy.address());
    let noise_addr = format!("{:#x}", noise.address());
    let copier = Trader::new(&sim, KEY_A).await;
    let mut rtds = connect(&sim.rtds_url()).await;
    let sub = json!({"action":"subscribe","subscriptions":[{"topic":"activity","type":"orders_matched"}]});
    send(&mut rtds, &sub.to_string()).await;
    // Let the subscription land before the first trade.
    tokio::time::sleep(Duration::from_millis(50)).await;

    // News: the market is worth 0.60. Ivy buys the asks below it; noise trades at random.
    sim.drive_market(
        COND,
        FairValue::path(PricePath::scripted([500_000, 600_000])),
    );
    let mut copied = std::collections::BTreeSet::new();
    let mut seen_noise = 0;
    let mut salt = 0;
    for _ in 0..20 {
        sim.step_activity(1);
        // Drain this step's activity.
        while let Ok(Some(Ok(msg))) =
            tokio::time::timeout(Duration::from_millis(100), rtds.next()).await
        {
            let Ok(v) = serde_json::from_str::<Value>(msg.to_text().unwrap_or("")) else {
                continue;
            };
            let p = &v["payload"];
            let who = p["proxyWallet"].as_str().unwrap_or("");
            if who == noise_addr {
                seen_noise += 1;
            }
            if who != ivy_addr || !copied.insert(p["transactionHash"].as_str().unwrap().to_owned())
            {
                continue;
            }
            // Mirror: same token and side, 5 shares, up to two ticks worse.
            assert_eq!(p["asset"], YES);
            assert_eq!(p["side"], "BUY");
            let cents = (p["price"].as_f64().unwrap() * 100.0).round() as u64 + 2;
            salt += 1;
            let mut o = limit(YES, Side::Buy, cents * 10_000, 5_000_000, salt);
            o.order_type = "FAK";
            let (s, r, _) = copier.post(&o).await;
            assert_eq!((s, r["status"].as_str()), (200, Some("matched")), "{r}");
        }
    }
    assert!(copied.len() >= 3, "ivy traded {} times", copied.len());
    assert!(seen_noise > 0, "the other account traded too");

    // The Data API names ivy as the taker of exactly the trades copied.
    let data = sim.data_api_url();
    let rows: Value = serde_json::from_str(
        &crate::support::sim::http_client()
            .get(format!("{data}/v2/trades?user={ivy_addr}&limit=500"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
    )
    .unwrap();
    let hashes: std::collections::BTreeSet<String> = rows["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r["proxy_wallet"], ivy_addr.as_str());
            r["transaction_hash"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(hashes, copied);
    // And the copier holds what it copied, at the ledger's micro-unit.
    let me = format!("{:#x}", copier.address());
    let pos: Value = serde_json::from_str(
        &crate::support::sim::http_client()
            .get(format!("{data}/v2/positions?user={me}"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
    )
    .unwrap();
    let yes = pos["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["token_id"] == YES)
        .unwrap();
    // Funded with 100,000 shares by `Trader::new`, plus 5 a copy.
    let want = 100_000.0 + 5.0 * copied.len() as f64;
    assert_eq!(yes["current_size"].as_f64(), Some(want));
}

/// `move_book` takes every order priced through the new level, clients' included, and the
/// crowd's maker requotes around it; without a maker one order rests a tick either side.
#[tokio::test]
async fn a_book_moves_to_a_price_at_once() {
    let sim = Simulator::builder()
        .markets(vec![btc_market()])
        .start()
        .await
        .unwrap();
    let me = Trader::new(&sim, KEY_A).await;
    // A stale ask of the client at 0.56: moving to 0.70 takes it.
    let (s, v, id) = me
        .post(&limit(YES, Side::Sell, 560_000, 7_000_000, 1))
        .await;
    assert_eq!(s, 200, "{v}");
    assert!(sim.move_book(COND, Price::new(700_000).unwrap()));
    assert_eq!(top(&sim).await, (690_000, 710_000));
    assert_eq!(sim.fair_value(COND), Price::new(700_000));
    let (_, o, _) = me.l2("GET", &format!("/data/order/{id}"), None).await;
    assert_eq!(o["status"], "MATCHED", "{o}");
    assert!(!sim.move_book("0xunknown", Price::new(700_000).unwrap()));

    // With a crowd maker, the maker's quotes frame the new price.
    let sim = Simulator::builder()
        .markets(vec![btc_market()])
        .crowd(Crowd::new().trader(CrowdTrader::maker("mm").spread_ticks(2)))
        .start()
        .await
        .unwrap();
    sim.move_book(COND, Price::new(300_000).unwrap());
    assert_eq!(top(&sim).await, (280_000, 320_000));
}

/// Per-account limits: the exchange's rate limit applies to one signer (its own tier) while
/// another trades without limits; and a limit on one endpoint (cancels) leaves the same
/// signer's orders alone. (Per-market HTTP faults: `faults.rs`.)
#[tokio::test]
async fn one_account_is_rate_limited_while_another_is_not() {
    let sim = start_empty().await;
    let a = Trader::new(&sim, KEY_A).await;
    let b = Trader::new(&sim, KEY_B).await;
    sim.set_rate_limit_tier(
        &a.address().to_checksum(None),
        polyclob::http::Tier::Standard,
    );
    // 121 cancels in one request: more than a Standard cancel bucket ever holds.
    let ids: Vec<String> = (0..121).map(|i| format!("0x{i:064x}")).collect();
    let body = serde_json::to_string(&ids).unwrap();
    let (s, v, h) = a.l2("DELETE", "/orders", Some(&body)).await;
    assert_eq!(s, 429, "{v}");
    assert!(h.get("retry-after").is_some());
    let (s, v, h) = b.l2("DELETE", "/orders", Some(&body)).await;
    assert_eq!(s, 200, "{v}");
    assert!(
        h.get("poly-ratelimit-remaining").is_none(),
        "B is unlimited"
    );
    // A's order bucket is untouched by its cancel bucket.
    let (s, v, _) = a.post(&limit(YES, Side::Buy, 400_000, 5_000_000, 1)).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(sim.rail_stats().rate_limited, 1);
}
