//! L1/L2 endpoints against the mock CLOB, which verifies every signature it receives.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod l2_clock;

use crate::support::mock_clob;

use std::time::Duration;

use futures_util::TryStreamExt as _;
use mock_clob::{MockClob, Reply, auth_verifier};
use polyclob::clob::types::{AssetKind, OrderKind, OrderStatus, TradeStatus};
use polyclob::clob::{Client, Credentials, OrderFilter, TradeFilter};
use polyclob::http::RetryPolicy;
use polyclob::sign::Signer;
use polyclob::types::{Side, SignatureType};

const KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const API_KEY: &str = "00000000-1111-2222-3333-444444444444";
const SECRET: &str = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlYw==";
const PASS: &str = "pass-phrase";

async fn setup() -> (MockClob, Client) {
    let m = MockClob::start().await;
    m.set_verifier(auth_verifier(API_KEY, SECRET, PASS, 137));
    let c = Client::builder()
        .host(m.url())
        .signer(Signer::from_hex(KEY).unwrap())
        .credentials(Credentials::new(API_KEY, SECRET, PASS))
        .retry(RetryPolicy {
            max_retries: 2,
            base: Duration::from_millis(2),
            max: Duration::from_millis(10),
        })
        .build()
        .unwrap();
    (m, c)
}

fn creds_json() -> String {
    format!(r#"{{"apiKey":"{API_KEY}","secret":"{SECRET}","passphrase":"{PASS}"}}"#)
}

#[tokio::test]
async fn l1_create_and_derive() {
    let (m, c) = setup().await;
    m.on("POST", "/auth/api-key", vec![Reply::json(creds_json())]);
    m.on(
        "GET",
        "/auth/derive-api-key",
        vec![Reply::json(creds_json())],
    );
    let creds = c
        .create_api_key(polyclob::clob::ApiKeyNonce::new(5))
        .await
        .unwrap();
    assert_eq!(creds.api_key(), API_KEY);
    assert_eq!(creds.secret(), SECRET);
    let r = m.requests_to("/auth/api-key").pop().unwrap();
    assert_eq!(r.auth, Some(Ok(())), "L1 signature recovers to the address");
    assert_eq!(r.header("poly_nonce"), Some("5"));
    assert_eq!(
        r.header("poly_address"),
        Some("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
    );
    assert!(r.body.is_empty());
    assert_eq!(r.header("content-length").unwrap_or("0"), "0");
    let d = c
        .derive_api_key(polyclob::clob::ApiKeyNonce::ZERO)
        .await
        .unwrap();
    assert_eq!(d.passphrase(), PASS);
    assert_eq!(
        m.requests_to("/auth/derive-api-key").pop().unwrap().auth,
        Some(Ok(()))
    );

    // create refused → derive.
    m.on(
        "POST",
        "/auth/api-key",
        vec![Reply::status(
            400,
            r#"{"error":"Could not create api key"}"#,
        )],
    );
    assert_eq!(
        c.create_or_derive_api_key(polyclob::clob::ApiKeyNonce::ZERO)
            .await
            .unwrap()
            .api_key(),
        API_KEY
    );

    // A failed create is never retried: the server may have created the key.
    m.clear_log();
    m.on("POST", "/auth/api-key", vec![Reply::status(502, "")]);
    assert_eq!(
        c.create_api_key(polyclob::clob::ApiKeyNonce::ZERO)
            .await
            .unwrap_err()
            .status(),
        Some(502)
    );
    assert_eq!(m.requests_to("/auth/api-key").len(), 1);
}

#[tokio::test]
async fn l2_hmac_covers_the_exact_bytes() {
    let (m, c) = setup().await;
    m.on(
        "GET",
        "/auth/api-keys",
        vec![Reply::json(format!(r#"{{"apiKeys":["{API_KEY}"]}}"#))],
    );
    let canceled = r#"{"canceled":["0xa"],"not_canceled":{"0xb":"order not found"}}"#;
    for p in ["/order", "/orders", "/cancel-all", "/cancel-market-orders"] {
        m.on("DELETE", p, vec![Reply::json(canceled)]);
    }
    assert_eq!(c.api_keys().await.unwrap(), [API_KEY]);
    let r = c.cancel("0xa").await.unwrap();
    assert_eq!(r.canceled, ["0xa".to_owned()]);
    assert_eq!(r.not_canceled["0xb"], "order not found");
    c.cancel_orders(&["0xa", "0xb"]).await.unwrap();
    c.cancel_all().await.unwrap();
    c.cancel_market_orders(Some("0xc0"), None).await.unwrap();
    for r in m.requests() {
        assert_eq!(r.auth, Some(Ok(())), "{} {}", r.method, r.path);
        assert_eq!(r.header("poly_api_key"), Some(API_KEY));
    }
    assert_eq!(m.requests_to("/order")[0].body, br#"{"orderID":"0xa"}"#);
    assert_eq!(m.requests_to("/orders")[0].body, br#"["0xa","0xb"]"#);
    assert!(m.requests_to("/cancel-all")[0].body.is_empty());
    assert_eq!(
        m.requests_to("/cancel-market-orders")[0].body,
        br#"{"market":"0xc0"}"#
    );
}

#[tokio::test]
async fn wrong_secret_is_a_401_not_retried() {
    let (m, _) = setup().await;
    let c = Client::builder()
        .host(m.url())
        .signer(Signer::from_hex(KEY).unwrap())
        .credentials(Credentials::new(
            API_KEY,
            "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
            PASS,
        ))
        .build()
        .unwrap();
    let e = c.api_keys().await.unwrap_err();
    assert_eq!(e.status(), Some(401));
    assert!(e.message().unwrap().contains("HMAC mismatch"));
    assert_eq!(m.requests().len(), 1);
    // A secret that is not base64 fails before I/O, without echoing the secret.
    c.set_credentials(Credentials::new(API_KEY, "not base64 !!", PASS));
    let e = c.api_keys().await.unwrap_err();
    assert!(!e.to_string().contains("not base64 !!"), "{e}");
    assert_eq!(m.requests().len(), 1);
    // No credentials at all.
    let c = Client::builder()
        .host(m.url())
        .signer(Signer::from_hex(KEY).unwrap())
        .build()
        .unwrap();
    assert!(c.api_keys().await.unwrap_err().is_auth());
}

fn order_row(id: &str, status: &str) -> String {
    format!(
        r#"{{"id":"{id}","status":"{status}","owner":"{API_KEY}","maker_address":"0xf39F","market":"0xc","asset_id":"1","side":"BUY",
        "original_size":"10","size_matched":"","price":"0.5","associate_trades":null,"outcome":"Yes","created_at":1700000000,
        "expiration":"0","order_type":"GTC"}}"#
    )
}

#[tokio::test]
async fn orders_paginate_and_every_page_is_signed_afresh() {
    let (m, c) = setup().await;
    let page = |rows: Vec<String>, next: &str| {
        format!(
            r#"{{"data":[{}],"next_cursor":"{next}","limit":2,"count":2}}"#,
            rows.join(",")
        )
    };
    m.on_query(
        "GET",
        "/data/orders",
        Some("next_cursor=MA%3D%3D"),
        // The delay pushes page 2 into a later second, so a re-used header would be visible.
        vec![
            Reply::json(page(
                vec![
                    order_row("0x1", "LIVE"),
                    order_row("0x2", "CANCELED_MARKET_CLOSED"),
                ],
                "MQ==",
            ))
            .delay(Duration::from_millis(1100)),
        ],
    );
    m.on_query(
        "GET",
        "/data/orders",
        Some("next_cursor=MQ%3D%3D"),
        vec![Reply::json(page(
            vec![order_row("0x3", "MATCHED"), "{\"id\":[]}".into()],
            "LTE=",
        ))],
    );
    let f = OrderFilter {
        market: Some("0xc".into()),
        ..OrderFilter::default()
    };
    let (orders, skipped) = c.all_orders(&f).await.unwrap();
    assert_eq!(
        orders.iter().map(|o| o.id.as_str()).collect::<Vec<_>>(),
        ["0x1", "0x2", "0x3"]
    );
    assert_eq!(orders[0].status, OrderStatus::Live);
    assert_eq!(
        orders[1].status,
        OrderStatus::Unknown("CANCELED_MARKET_CLOSED".into())
    );
    assert_eq!(orders[0].order_type, OrderKind::Gtc);
    assert_eq!(orders[0].side, Some(Side::Buy));
    assert_eq!(skipped.len(), 1);
    let reqs = m.requests_to("/data/orders");
    assert_eq!(reqs.len(), 2);
    for r in &reqs {
        assert_eq!(r.auth, Some(Ok(())));
        assert_eq!(r.query_param("market").as_deref(), Some("0xc"));
    }
    let ts: Vec<u64> = reqs
        .iter()
        .map(|r| r.header("poly_timestamp").unwrap().parse().unwrap())
        .collect();
    assert!(ts[1] > ts[0], "page 2 carries its own signature: {ts:?}");
    assert_ne!(
        reqs[0].header("poly_signature"),
        reqs[1].header("poly_signature")
    );
}

#[tokio::test]
async fn trades_stream_and_one_order() {
    let (m, c) = setup().await;
    let trade = r#"{"id":"t1","taker_order_id":"0x1","market":"0xc","asset_id":"1","side":"SELL","size":"5","fee_rate_bps":"0","price":"0.4",
        "status":"CONFIRMED","match_time":"1700000000","last_update":"1700000001","outcome":"No","owner":"k","maker_address":"0xf",
        "maker_orders":[{"order_id":"0x9","owner":"o","maker_address":"0xm","matched_amount":"5","price":"0.4","fee_rate_bps":"0","asset_id":"1","outcome":"No","side":"BUY"}],
        "transaction_hash":"0xtx","trader_side":"TAKER","bucket_index":0}"#;
    m.on(
        "GET",
        "/data/trades",
        vec![Reply::json(format!(
            r#"{{"data":[{trade}],"next_cursor":"LTE=","limit":1,"count":1}}"#
        ))],
    );
    m.on(
        "GET",
        "/data/order/0xabc",
        vec![Reply::json(order_row("0xabc", "LIVE"))],
    );
    let f = TradeFilter {
        maker_address: Some("0xf".into()),
        after: Some(1),
        ..TradeFilter::default()
    };
    let pages: Vec<_> = c.trades_stream(&f).try_collect().await.unwrap();
    assert_eq!(pages.len(), 1);
    let t = &pages[0].data[0];
    assert_eq!(t.status, TradeStatus::Confirmed);
    assert_eq!(t.maker_orders.len(), 1);
    assert_eq!(t.match_time.map(|t| t.as_secs()), Some(1_700_000_000));
    let r = m.requests_to("/data/trades").pop().unwrap();
    assert_eq!(r.query, "maker_address=0xf&after=1&next_cursor=MA%3D%3D");
    assert_eq!(c.order("0xabc").await.unwrap().id, "0xabc");
    assert!(m.requests().iter().all(|r| r.auth == Some(Ok(()))));
}

#[tokio::test]
async fn account_endpoints() {
    let (m, c) = setup().await;
    m.on("GET", "/balance-allowance", vec![Reply::json(r#"{"balance":"1500000","allowances":{"0xex":"115792089237316195423570985008687907853269984665640564039457584007913129639935"}}"#)]);
    m.on("GET", "/balance-allowance/update", vec![Reply::json("")]);
    m.on(
        "GET",
        "/notifications",
        vec![Reply::json(
            r#"[{"id":"1","type":1,"owner":"k","payload":{"x":1}}]"#,
        )],
    );
    m.on("DELETE", "/notifications", vec![Reply::json("")]);
    m.on(
        "GET",
        "/order-scoring",
        vec![Reply::json(r#"{"scoring":true}"#)],
    );
    m.on(
        "POST",
        "/orders-scoring",
        vec![Reply::json(r#"{"0xa":true,"0xb":false}"#)],
    );
    m.on(
        "GET",
        "/auth/ban-status/closed-only",
        vec![Reply::json(r#"{"closed_only":false}"#)],
    );
    m.on("DELETE", "/auth/api-key", vec![Reply::json("OK")]);
    let b = c
        .balance_allowance(
            AssetKind::Conditional,
            Some("7"),
            SignatureType::PolyGnosisSafe,
        )
        .await
        .unwrap();
    assert_eq!(b.balance, 1_500_000);
    assert_eq!(
        m.requests_to("/balance-allowance")[0].query,
        "asset_type=CONDITIONAL&token_id=7&signature_type=2"
    );
    c.update_balance_allowance(AssetKind::Collateral, None, SignatureType::Eoa)
        .await
        .unwrap();
    assert_eq!(
        m.requests_to("/balance-allowance/update")[0].query,
        "asset_type=COLLATERAL&signature_type=0"
    );
    let (n, skipped) = c.notifications(SignatureType::Eoa).await.unwrap();
    assert!(skipped.is_empty());
    assert_eq!((n[0].id.as_str(), n[0].kind.as_str()), ("1", "1"));
    c.drop_notifications(&["a", "b"]).await.unwrap();
    assert_eq!(m.requests_to("/notifications")[1].query, "ids=a%2Cb");
    assert!(c.order_scoring("0xa").await.unwrap());
    let s = c.orders_scoring(&["0xa", "0xb"]).await.unwrap();
    assert!(s["0xa"] && !s["0xb"]);
    assert!(!c.closed_only().await.unwrap());
    assert_eq!(c.delete_api_key().await.unwrap(), "OK");
    assert!(m.requests().iter().all(|r| r.auth == Some(Ok(()))));
}

#[tokio::test]
async fn heartbeats_chain_ids_and_stop_when_dropped() {
    let (m, c) = setup().await;
    m.on(
        "POST",
        "/v1/heartbeats",
        vec![
            Reply::json(r#"{"heartbeat_id":"a"}"#),
            Reply::json(r#"{"heartbeat_id":"b"}"#),
            Reply::status(400, r#"{"error":"invalid heartbeat id"}"#),
            Reply::json(r#"{"heartbeat_id":"c"}"#),
        ],
    );
    let h = c.start_heartbeats(Duration::from_millis(20));
    // Wait for five beats (bounded), not a fixed sleep: a loaded machine may be slower.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while m.requests_to("/v1/heartbeats").len() < 5 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "heartbeats did not run"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let st = h.status();
    drop(h);
    let bodies: Vec<String> = m
        .requests_to("/v1/heartbeats")
        .iter()
        .map(|r| String::from_utf8(r.body.clone()).unwrap())
        .collect();
    assert!(bodies.len() >= 5, "{bodies:?}");
    assert_eq!(
        bodies[..5],
        [
            r#"{"heartbeat_id":null}"#,
            r#"{"heartbeat_id":"a"}"#,
            r#"{"heartbeat_id":"b"}"#,
            r#"{"heartbeat_id":null}"#,
            r#"{"heartbeat_id":"c"}"#
        ]
    );
    assert!(st.failed >= 1 && st.sent >= 3, "{st:?}");
    assert!(m.requests().iter().all(|r| r.auth == Some(Ok(()))));
    let n = m.requests_to("/v1/heartbeats").len();
    tokio::time::sleep(Duration::from_millis(80)).await;
    assert_eq!(
        m.requests_to("/v1/heartbeats").len(),
        n,
        "dropping the handle stops the task"
    );
}
