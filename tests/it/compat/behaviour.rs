//! The drop-in's fixed behaviour (compat-api.md §0) against the verifying mock CLOB.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::mock_clob;

use std::str::FromStr;

use mock_clob::{MockClob, Reply, auth_verifier};
use polyclob::{ApiCreds, ClobClient, OpenOrderParams, Side, TradeParams};
use rust_decimal::Decimal;

const KEY: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const SECRET: &str = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlYw==";

fn creds() -> ApiCreds {
    ApiCreds {
        api_key: "key-1".into(),
        secret: SECRET.into(),
        passphrase: "pp".into(),
    }
}

async fn setup() -> (MockClob, ClobClient) {
    let m = MockClob::start().await;
    m.set_verifier(auth_verifier("key-1", SECRET, "pp", 137));
    let c = ClobClient::with_l2_headers(&m.url(), KEY, 137, creds());
    (m, c)
}

#[tokio::test]
async fn non_2xx_is_an_err_that_downcasts() {
    let (m, c) = setup().await;
    m.on(
        "GET",
        "/last-trade-price",
        vec![Reply::status(404, r#"{"error":"no trades"}"#)],
    );
    let e = c.get_last_trade_price("1").await.unwrap_err();
    let typed = e
        .downcast_ref::<polyclob::http::Error>()
        .expect("typed error inside anyhow");
    assert_eq!(typed.status(), Some(404));
    assert_eq!(typed.message(), Some("no trades"));
    m.on(
        "GET",
        "/midpoint",
        vec![Reply::status(503, r#"{"error":"cancel_only"}"#)],
    );
    let e = c.get_midpoint("1").await.unwrap_err();
    assert!(
        e.downcast_ref::<polyclob::http::Error>()
            .unwrap()
            .is_cancel_only()
    );
}

#[tokio::test]
async fn public_methods_decode_as_0_1_1_did() {
    let (m, c) = setup().await;
    m.on(
        "POST",
        "/midpoints",
        vec![Reply::json(r#"{"1":"0.5","2":0.25}"#)],
    );
    m.on(
        "GET",
        "/tick-size",
        vec![Reply::json(r#"{"minimum_tick_size":0.001}"#)],
    );
    m.on("GET", "/book", vec![Reply::json(r#"{"market":"m","asset_id":"1","hash":"h","timestamp":"123","bids":[{"price":"0.4","size":"10"}],"asks":[]}"#)]);
    m.on(
        "GET",
        "/markets",
        vec![Reply::json(r#"{"data":[],"next_cursor":"LTE="}"#)],
    );
    m.on("GET", "/time", vec![Reply::json("1700000000")]);
    let mids = c.get_midpoints(&["1".into(), "2".into()]).await.unwrap();
    assert_eq!(mids["2"], Decimal::from_str("0.25").unwrap());
    assert_eq!(
        c.get_tick_size("1").await.unwrap(),
        Decimal::from_str("0.001").unwrap()
    );
    let b = c.get_order_book("1").await.unwrap();
    assert_eq!((b.timestamp, b.bids[0].size), (123, Decimal::TEN));
    assert_eq!(c.get_markets(None).await.unwrap()["next_cursor"], "LTE=");
    assert_eq!(m.requests_to("/markets")[0].query, "next_cursor=MA%3D%3D");
    assert_eq!(c.get_server_time().await.unwrap(), 1_700_000_000);
    assert_eq!(
        c.get_address().as_deref(),
        Some("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266")
    );
    assert!(c.get_exchange_address().is_some());
    assert_eq!(ClobClient::new(&m.url()).get_exchange_address(), None);
}

fn order(id: &str) -> String {
    format!(
        r#"{{"associate_trades":[],"id":"{id}","status":"LIVE","market":"m","original_size":"10","outcome":"Yes","maker_address":"0x1",
        "owner":"key-1","price":"0.5","side":"BUY","size_matched":"0","asset_id":"1","expiration":"0","type":"GTC","created_at":1700000000}}"#
    )
}

#[tokio::test]
async fn get_orders_and_trades_page_to_the_end() {
    let (m, c) = setup().await;
    m.on_query(
        "GET",
        "/data/orders",
        Some("next_cursor=MA%3D%3D"),
        vec![Reply::json(format!(
            r#"{{"data":[{},{}],"next_cursor":"Mg=="}}"#,
            order("a"),
            order("b")
        ))],
    );
    m.on_query(
        "GET",
        "/data/orders",
        Some("next_cursor=Mg%3D%3D"),
        vec![Reply::json(format!(
            r#"{{"data":[{}],"next_cursor":"LTE="}}"#,
            order("c")
        ))],
    );
    // An asset_id filter needs the market since 2026-12-14: looked up once, then cached.
    m.on(
        "GET",
        "/markets-by-token/1",
        vec![Reply::json(
            r#"{"condition_id":"0xc0","primary_token_id":"1","secondary_token_id":"2"}"#,
        )],
    );
    let p = OpenOrderParams {
        id: None,
        asset_id: Some("1".into()),
        market: None,
    };
    let orders = c.get_orders(Some(&p), None).await.unwrap();
    assert_eq!(
        orders.iter().map(|o| o.id.as_str()).collect::<Vec<_>>(),
        ["a", "b", "c"]
    );
    assert_eq!(orders[0].side, Side::BUY);
    let reqs = m.requests_to("/data/orders");
    assert_eq!(reqs.len(), 2);
    assert!(
        reqs.iter()
            .all(|r| r.auth == Some(Ok(())) && r.query.starts_with("asset_id=1&"))
    );
    assert!(
        reqs.iter()
            .all(|r| r.query_param("market").as_deref() == Some("0xc0"))
    );
    c.get_orders(Some(&p), None).await.unwrap();
    assert_eq!(m.requests_to("/markets-by-token/1").len(), 1, "cached");

    m.on(
        "GET",
        "/data/trades",
        vec![Reply::json(
            r#"{"data":[{"id":"t1"},{"id":"t2"}],"next_cursor":"LTE="}"#,
        )],
    );
    let tp = TradeParams {
        id: None,
        maker_address: Some("0xabc".into()),
        market: None,
        asset_id: None,
        before: None,
        after: Some(5),
    };
    let trades = c.get_trades(Some(&tp), None).await.unwrap();
    assert_eq!(trades.len(), 2);
    assert_eq!(trades[1]["id"], "t2");
    assert_eq!(
        m.requests_to("/data/trades")[0].query,
        "after=5&maker_address=0xabc&next_cursor=MA%3D%3D"
    );
}

#[tokio::test]
async fn l2_calls_sign_the_bytes_they_send() {
    let (m, c) = setup().await;
    m.on(
        "DELETE",
        "/cancel-market-orders",
        vec![Reply::json(r#"{"canceled":[],"not_canceled":{}}"#)],
    );
    m.on(
        "DELETE",
        "/orders",
        vec![Reply::json(r#"{"canceled":["0xa"]}"#)],
    );
    m.on(
        "GET",
        "/balance-allowance",
        vec![Reply::json(r#"{"balance":"0"}"#)],
    );
    m.on("DELETE", "/notifications", vec![Reply::json("")]);
    c.cancel_market_orders(None, Some("7")).await.unwrap();
    assert_eq!(
        m.requests_to("/cancel-market-orders")[0].body,
        br#"{"market":"","asset_id":"7"}"#
    );
    assert_eq!(
        c.cancel_orders(&["0xa".into()]).await.unwrap()["canceled"][0],
        "0xa"
    );
    c.get_balance_allowance(None).await.unwrap();
    assert_eq!(
        m.requests_to("/balance-allowance")[0].query,
        "signature_type=0"
    );
    assert_eq!(
        c.drop_notifications(&["1".into(), "2".into()])
            .await
            .unwrap(),
        serde_json::Value::Null
    );
    assert!(
        m.requests().iter().all(|r| r.auth == Some(Ok(()))),
        "{:?}",
        m.requests()
    );
}

#[tokio::test]
async fn no_panics_only_errors() {
    let m = MockClob::start().await;
    // A bad key: 0.1.1 panicked in the constructor.
    let c = ClobClient::with_l1_headers(&m.url(), "not a key", 137);
    assert_eq!(c.get_address(), None);
    assert_eq!(
        c.create_api_key(None).await.unwrap_err().to_string(),
        "Invalid private key: expected 64 hex digits"
    );
    // No signer / no creds.
    let c = ClobClient::new(&m.url());
    assert_eq!(
        c.cancel_all().await.unwrap_err().to_string(),
        "Signer is not set"
    );
    let c = ClobClient::with_l1_headers(&m.url(), KEY, 137);
    assert_eq!(
        c.get_api_keys().await.unwrap_err().to_string(),
        "API credentials not set."
    );
    // Default client: no host.
    let c = ClobClient::default();
    assert!(c.get_server_time().await.is_err());
    assert!(!c.get_ok().await);
    // Non-bool scoring.
    let (m, c) = setup().await;
    m.on(
        "GET",
        "/order-scoring",
        vec![Reply::json(r#"{"scoring":"maybe"}"#)],
    );
    assert!(
        c.is_order_scoring("0x1")
            .await
            .unwrap_err()
            .to_string()
            .contains("Unknown scoring value")
    );
    assert!(m.requests().iter().all(|r| r.auth == Some(Ok(()))));
    assert!(!format!("{:?}", creds()).contains(SECRET));
}

fn opts(tick: &str, neg_risk: bool) -> polyclob::CreateOrderOptions {
    polyclob::CreateOrderOptions {
        tick_size: Some(Decimal::from_str(tick).unwrap()),
        neg_risk: Some(neg_risk),
    }
}

#[tokio::test]
async fn create_order_signs_v2_without_io_when_told_the_market() {
    let (m, c) = setup().await;
    let args = polyclob::OrderArgs::new(
        "1234",
        Decimal::from_str("0.5").unwrap(),
        Decimal::TEN,
        Side::BUY,
    );
    let o = c
        .create_order(&args, None, None, Some(&opts("0.01", false)))
        .await
        .unwrap();
    assert!(
        m.requests().is_empty(),
        "no /tick-size, /neg-risk or /version round trip"
    );
    assert_eq!(
        (o.maker_amount.as_str(), o.taker_amount.as_str()),
        ("5000000", "10000000")
    );
    assert_eq!(o.maker, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
    assert_eq!(
        (o.side.as_str(), o.signature_type, o.expiration.as_str()),
        ("BUY", 0, "0")
    );
    assert_eq!(o.metadata, format!("0x{}", "0".repeat(64)));
    let json: serde_json::Value = serde_json::to_value(&o).unwrap();
    assert!(
        json.get("timestamp").is_some() && json.get("taker").is_none(),
        "the V2 wire shape: {json}"
    );
    assert_eq!(
        mock_clob::verify_order(&json, 137).unwrap(),
        (polyclob::types::ExchangeVersion::V2, false)
    );

    // 0.1.1 rounds the price to the tick (half toward zero) and checks the range first.
    let args = polyclob::OrderArgs::new(
        "1234",
        Decimal::from_str("0.565").unwrap(),
        Decimal::ONE,
        Side::BUY,
    );
    let o = c
        .create_order(&args, None, None, Some(&opts("0.01", true)))
        .await
        .unwrap();
    assert_eq!(o.maker_amount, "560000");
    let json = serde_json::to_value(&o).unwrap();
    assert!(
        mock_clob::verify_order(&json, 137).unwrap().1,
        "neg-risk exchange"
    );
    let args = polyclob::OrderArgs::new(
        "1234",
        Decimal::from_str("0.995").unwrap(),
        Decimal::ONE,
        Side::SELL,
    );
    assert_eq!(
        c.create_order(&args, None, None, Some(&opts("0.01", false)))
            .await
            .unwrap_err()
            .to_string(),
        "Price is not in range of tick_size"
    );
    // Ticks 0.1.1 panicked on are errors or supported.
    let args = polyclob::OrderArgs::new(
        "1234",
        Decimal::from_str("0.345").unwrap(),
        Decimal::TEN,
        Side::BUY,
    );
    assert!(
        c.create_order(&args, None, None, Some(&opts("0.005", false)))
            .await
            .is_ok()
    );
    assert!(
        c.create_order(&args, None, None, Some(&opts("0.05", false)))
            .await
            .is_err()
    );
    // Large orders do not overflow (0.1.1 panicked above u32::MAX micro-units).
    let args = polyclob::OrderArgs::new(
        "1234",
        Decimal::from_str("0.5").unwrap(),
        Decimal::from(50_000),
        Side::BUY,
    );
    assert_eq!(
        c.create_order(&args, None, None, Some(&opts("0.01", false)))
            .await
            .unwrap()
            .maker_amount,
        "25000000000"
    );
    // Bad token id and taker are errors.
    let args = polyclob::OrderArgs::new(
        "0xzz",
        Decimal::from_str("0.5").unwrap(),
        Decimal::TEN,
        Side::BUY,
    );
    assert!(
        c.create_order(&args, None, None, Some(&opts("0.01", false)))
            .await
            .unwrap_err()
            .to_string()
            .contains("Incorrect tokenId format")
    );
    let args = polyclob::OrderArgs::new(
        "1234",
        Decimal::from_str("0.5").unwrap(),
        Decimal::TEN,
        Side::BUY,
    );
    let extras = polyclob::ExtraOrderArgs {
        taker: "nope".into(),
        ..Default::default()
    };
    assert!(
        c.create_order(&args, None, Some(extras), Some(&opts("0.01", false)))
            .await
            .unwrap_err()
            .to_string()
            .contains("Invalid taker address")
    );
    assert!(m.requests().is_empty());
}

#[tokio::test]
async fn create_order_looks_up_what_it_is_not_told_and_posts() {
    let (m, c) = setup().await;
    m.on(
        "GET",
        "/tick-size",
        vec![Reply::json(r#"{"minimum_tick_size":0.001}"#)],
    );
    m.on(
        "GET",
        "/neg-risk",
        vec![Reply::json(r#"{"neg_risk":false}"#)],
    );
    m.on("GET", "/version", vec![Reply::json(r#"{"version":2}"#)]);
    m.on(
        "POST",
        "/order",
        vec![Reply::json(
            r#"{"success":true,"errorMsg":"","orderID":"0x1","status":"live"}"#,
        )],
    );
    let args = polyclob::OrderArgs::new(
        "1234",
        Decimal::from_str("0.123").unwrap(),
        Decimal::from_str("7.77").unwrap(),
        Side::BUY,
    );
    let r = c.create_and_post_order(&args).await.unwrap();
    assert_eq!(r["orderID"], "0x1");
    assert_eq!(m.requests_to("/tick-size").len(), 1);
    let post = &m.requests_to("/order")[0];
    assert_eq!(
        post.auth,
        Some(Ok(())),
        "HMAC over the exact bytes and a valid order signature"
    );
    let body: serde_json::Value = serde_json::from_slice(&post.body).unwrap();
    assert_eq!(
        (body["owner"].as_str(), body["orderType"].as_str()),
        (Some("key-1"), Some("GTC"))
    );
    assert_eq!(body["order"]["makerAmount"], "955710");
    // Second order: everything cached, no lookups.
    c.create_order(&args, None, None, None).await.unwrap();
    assert_eq!(m.requests_to("/tick-size").len(), 1);
    assert_eq!(m.requests_to("/neg-risk").len(), 1);
    assert_eq!(m.requests_to("/version").len(), 1);
}

#[tokio::test]
async fn market_order_walks_from_the_best_ask() {
    let (m, c) = setup().await;
    // REST asks come worst (highest) first.
    m.on("GET", "/book", vec![Reply::json(r#"{"market":"m","asset_id":"1","hash":"h","timestamp":"1","bids":[],"asks":[{"price":"0.6","size":"1000"},{"price":"0.53","size":"1000"},{"price":"0.52","size":"10"}]}"#)]);
    let args = polyclob::MarketOrderArgs {
        token_id: "1234".into(),
        amount: Decimal::from(100),
    };
    let o = c
        .create_market_order(&args, None, Some(&opts("0.01", false)))
        .await
        .unwrap();
    assert_eq!(o.maker_amount, "100000000");
    // 100 / 0.53 = 188.679245… shares, not 100 / 0.6 (the worst level 0.1.1 walked from).
    assert!(o.taker_amount.starts_with("188679"), "{}", o.taker_amount);
    let args = polyclob::MarketOrderArgs {
        token_id: "1234".into(),
        amount: Decimal::from(100_000),
    };
    let e = c
        .create_market_order(&args, None, Some(&opts("0.01", false)))
        .await
        .unwrap_err();
    assert!(e.to_string().starts_with("Not enough liquidity"), "{e}");
}

#[tokio::test]
async fn post_order_recovers_from_a_version_mismatch_once() {
    let (m, c) = setup().await;
    m.on("GET", "/version", vec![Reply::json(r#"{"version":1}"#)]);
    m.on(
        "POST",
        "/order",
        vec![
            Reply::json(r#"{"success":false,"errorMsg":"order_version_mismatch"}"#),
            Reply::json(r#"{"success":true,"orderID":"0x2"}"#),
        ],
    );
    let args = polyclob::OrderArgs::new(
        "1234",
        Decimal::from_str("0.5").unwrap(),
        Decimal::TEN,
        Side::SELL,
    );
    let o = c
        .create_order(&args, None, None, Some(&opts("0.01", false)))
        .await
        .unwrap();
    let r = c.post_order(o, polyclob::OrderType::GTC).await.unwrap();
    assert_eq!(r["orderID"], "0x2");
    let posts = m.requests_to("/order");
    assert_eq!(posts.len(), 2);
    assert!(posts.iter().all(|p| p.auth == Some(Ok(()))));
    let second: serde_json::Value = serde_json::from_slice(&posts[1].body).unwrap();
    assert_eq!(
        mock_clob::verify_order(&second["order"], 137).unwrap().0,
        polyclob::types::ExchangeVersion::V1
    );
    // A failed post is not retried.
    m.on(
        "POST",
        "/order",
        vec![Reply::status(500, r#"{"error":"boom"}"#)],
    );
    let o = c
        .create_order(&args, None, None, Some(&opts("0.01", false)))
        .await
        .unwrap();
    assert!(c.post_order(o, polyclob::OrderType::GTC).await.is_err());
    assert_eq!(m.requests_to("/order").len(), 3);
}
