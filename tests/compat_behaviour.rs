//! The drop-in's fixed behaviour (compat-api.md §0) against the verifying mock CLOB.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/mock_clob.rs"]
mod mock_clob;

use std::str::FromStr;

use mock_clob::{MockClob, Reply, auth_verifier};
use polyclob::{ApiCreds, ClobClient, OpenOrderParams, Side, TradeParams};
use rust_decimal::Decimal;

const KEY: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const SECRET: &str = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlYw==";

fn creds() -> ApiCreds {
    ApiCreds { api_key: "key-1".into(), secret: SECRET.into(), passphrase: "pp".into() }
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
    m.on("GET", "/last-trade-price", vec![Reply::status(404, r#"{"error":"no trades"}"#)]);
    let e = c.get_last_trade_price("1").await.unwrap_err();
    let typed = e.downcast_ref::<polyclob::clob::Error>().expect("typed error inside anyhow");
    assert_eq!(typed.status(), Some(404));
    assert_eq!(typed.message(), Some("no trades"));
    m.on("GET", "/midpoint", vec![Reply::status(503, r#"{"error":"cancel_only"}"#)]);
    let e = c.get_midpoint("1").await.unwrap_err();
    assert!(e.downcast_ref::<polyclob::clob::Error>().unwrap().is_cancel_only());
}

#[tokio::test]
async fn public_methods_decode_as_0_1_1_did() {
    let (m, c) = setup().await;
    m.on("POST", "/midpoints", vec![Reply::json(r#"{"1":"0.5","2":0.25}"#)]);
    m.on("GET", "/tick-size", vec![Reply::json(r#"{"minimum_tick_size":0.001}"#)]);
    m.on("GET", "/book", vec![Reply::json(r#"{"market":"m","asset_id":"1","hash":"h","timestamp":"123","bids":[{"price":"0.4","size":"10"}],"asks":[]}"#)]);
    m.on("GET", "/markets", vec![Reply::json(r#"{"data":[],"next_cursor":"LTE="}"#)]);
    m.on("GET", "/time", vec![Reply::json("1700000000")]);
    let mids = c.get_midpoints(&["1".into(), "2".into()]).await.unwrap();
    assert_eq!(mids["2"], Decimal::from_str("0.25").unwrap());
    assert_eq!(c.get_tick_size("1").await.unwrap(), Decimal::from_str("0.001").unwrap());
    let b = c.get_order_book("1").await.unwrap();
    assert_eq!((b.timestamp, b.bids[0].size), (123, Decimal::TEN));
    assert_eq!(c.get_markets(None).await.unwrap()["next_cursor"], "LTE=");
    assert_eq!(m.requests_to("/markets")[0].query, "next_cursor=MA%3D%3D");
    assert_eq!(c.get_server_time().await.unwrap(), 1_700_000_000);
    assert_eq!(c.get_address().as_deref(), Some("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"));
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
    m.on_query("GET", "/data/orders", Some("next_cursor=MA%3D%3D"), vec![Reply::json(format!(r#"{{"data":[{},{}],"next_cursor":"Mg=="}}"#, order("a"), order("b")))]);
    m.on_query("GET", "/data/orders", Some("next_cursor=Mg%3D%3D"), vec![Reply::json(format!(r#"{{"data":[{}],"next_cursor":"LTE="}}"#, order("c")))]);
    let p = OpenOrderParams { id: None, asset_id: Some("1".into()), market: None };
    let orders = c.get_orders(Some(&p), None).await.unwrap();
    assert_eq!(orders.iter().map(|o| o.id.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
    assert_eq!(orders[0].side, Side::BUY);
    let reqs = m.requests_to("/data/orders");
    assert_eq!(reqs.len(), 2);
    assert!(reqs.iter().all(|r| r.auth == Some(Ok(())) && r.query.starts_with("asset_id=1&")));

    m.on("GET", "/data/trades", vec![Reply::json(r#"{"data":[{"id":"t1"},{"id":"t2"}],"next_cursor":"LTE="}"#)]);
    let tp = TradeParams { id: None, maker_address: Some("0xabc".into()), market: None, asset_id: None, before: None, after: Some(5) };
    let trades = c.get_trades(Some(&tp), None).await.unwrap();
    assert_eq!(trades.len(), 2);
    assert_eq!(trades[1]["id"], "t2");
    assert_eq!(m.requests_to("/data/trades")[0].query, "after=5&maker_address=0xabc&next_cursor=MA%3D%3D");
}

#[tokio::test]
async fn l2_calls_sign_the_bytes_they_send() {
    let (m, c) = setup().await;
    m.on("DELETE", "/cancel-market-orders", vec![Reply::json(r#"{"canceled":[],"not_canceled":{}}"#)]);
    m.on("DELETE", "/orders", vec![Reply::json(r#"{"canceled":["0xa"]}"#)]);
    m.on("GET", "/balance-allowance", vec![Reply::json(r#"{"balance":"0"}"#)]);
    m.on("DELETE", "/notifications", vec![Reply::json("")]);
    c.cancel_market_orders(None, Some("7")).await.unwrap();
    assert_eq!(m.requests_to("/cancel-market-orders")[0].body, br#"{"market":"","asset_id":"7"}"#);
    assert_eq!(c.cancel_orders(&["0xa".into()]).await.unwrap()["canceled"][0], "0xa");
    c.get_balance_allowance(None).await.unwrap();
    assert_eq!(m.requests_to("/balance-allowance")[0].query, "signature_type=0");
    assert_eq!(c.drop_notifications(&["1".into(), "2".into()]).await.unwrap(), serde_json::Value::Null);
    assert!(m.requests().iter().all(|r| r.auth == Some(Ok(()))), "{:?}", m.requests());
}

#[tokio::test]
async fn no_panics_only_errors() {
    let m = MockClob::start().await;
    // A bad key: 0.1.1 panicked in the constructor.
    let c = ClobClient::with_l1_headers(&m.url(), "not a key", 137);
    assert_eq!(c.get_address(), None);
    assert_eq!(c.create_api_key(None).await.unwrap_err().to_string(), "Invalid private key");
    // No signer / no creds.
    let c = ClobClient::new(&m.url());
    assert_eq!(c.cancel_all().await.unwrap_err().to_string(), "Signer is not set");
    let c = ClobClient::with_l1_headers(&m.url(), KEY, 137);
    assert_eq!(c.get_api_keys().await.unwrap_err().to_string(), "API credentials not set.");
    // Default client: no host.
    let c = ClobClient::default();
    assert!(c.get_server_time().await.is_err());
    assert!(!c.get_ok().await);
    // Non-bool scoring.
    let (m, c) = setup().await;
    m.on("GET", "/order-scoring", vec![Reply::json(r#"{"scoring":"maybe"}"#)]);
    assert!(c.is_order_scoring("0x1").await.unwrap_err().to_string().contains("Unknown scoring value"));
    assert!(m.requests().iter().all(|r| r.auth == Some(Ok(()))));
    assert!(!format!("{:?}", creds()).contains(SECRET));
}
