//! Native order posting against the verifying mock: HMAC over the exact body, EIP-712
//! signature recovered by the server side, no blind retries, version-mismatch recovery.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod async_exec;
mod cancel_chunks;
mod market;
mod open_orders_filter;
mod post_only;

use crate::support::mock_clob;

use std::time::Duration;

use mock_clob::{MockClob, Reply, auth_verifier, verify_order};
use polyclob::clob::{Client, Credentials};
use polyclob::http::RetryPolicy;
use polyclob::order::{LimitOrder, MarketOrder, OrderSigner};
use polyclob::sign::Signer;
use polyclob::sign::wallet::Wallet;
use polyclob::types::{Chain, ExchangeVersion, OrderType, Side, TickSize};

const KEY: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const SECRET: &str = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlYw==";
const TOKEN: &str = "71321045679252212594626385532706912750332728571942532289631379312455583992563";
const OK: &str = r#"{"success":true,"errorMsg":"","orderID":"0xabc","status":"live","makingAmount":"","takingAmount":"","transactionsHashes":[],"tradeIDs":[]}"#;

async fn setup() -> (MockClob, Client, OrderSigner) {
    let m = MockClob::start().await;
    m.set_verifier(auth_verifier("key-1", SECRET, "pp", 137));
    let signer = Signer::from_hex(KEY).unwrap();
    let c = Client::builder()
        .host(m.url())
        .signer(signer.clone())
        .credentials(Credentials::new("key-1", SECRET, "pp"))
        .retry(RetryPolicy {
            max_retries: 3,
            base: Duration::from_millis(1),
            max: Duration::from_millis(5),
        })
        .build()
        .unwrap();
    (
        m,
        c,
        OrderSigner::new(signer, Chain::Polygon, Wallet::Eoa).unwrap(),
    )
}

/// The account of [`setup`]'s key on the same mock.
fn account(m: &MockClob) -> polyclob::account::Account {
    polyclob::account::Account::builder(Signer::from_hex(KEY).unwrap())
        .client(Client::builder().host(m.url()))
        .credentials(Credentials::new("key-1", SECRET, "pp"))
        .build()
        .unwrap()
}

fn posted(m: &MockClob) -> Vec<serde_json::Value> {
    m.requests_to("/order")
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

#[tokio::test]
async fn build_without_io_then_post() {
    let (m, c, os) = setup().await;
    m.on("POST", "/order", vec![Reply::json(OK)]);
    let ctx = c
        .market_context_with(TOKEN, TickSize::Hundredth, true)
        .unwrap();
    let order = os
        .limit_order(
            &ctx,
            &LimitOrder::new(Side::Buy, "0.56".parse().unwrap(), "21.04".parse().unwrap()),
        )
        .unwrap();
    assert!(
        m.requests().is_empty(),
        "building an order with known tick/neg-risk does no I/O"
    );
    let r = c.post_order(&order).await.unwrap();
    assert!(r.success);
    assert_eq!(r.order_id, "0xabc");
    let req = &m.requests_to("/order")[0];
    assert_eq!(
        req.auth,
        Some(Ok(())),
        "HMAC and order signature verified by the server"
    );
    let body = &posted(&m)[0];
    assert_eq!(
        verify_order(&body["order"], 137).unwrap(),
        (ExchangeVersion::V2, true),
        "neg-risk V2 domain"
    );
    assert_eq!(body["owner"], "key-1");
    assert_eq!(body["order"]["makerAmount"], "11782400");
}

#[tokio::test]
async fn order_posts_are_never_retried_blindly() {
    let (m, c, os) = setup().await;
    m.on("POST", "/order", vec![Reply::status(502, "bad gateway")]);
    m.on("POST", "/orders", vec![Reply::hang_up()]);
    let ctx = c
        .market_context_with(TOKEN, TickSize::Hundredth, false)
        .unwrap();
    let order = os
        .limit_order(
            &ctx,
            &LimitOrder::new(Side::Sell, "0.5".parse().unwrap(), "10".parse().unwrap()),
        )
        .unwrap();
    assert_eq!(c.post_order(&order).await.unwrap_err().status(), Some(502));
    assert_eq!(m.requests_to("/order").len(), 1);
    assert!(c.post_orders(&[order, order]).await.is_err());
    assert_eq!(m.requests_to("/orders").len(), 1);
    // Batch limits are checked before I/O.
    let e = c.post_orders(&[order; 16]).await.unwrap_err();
    assert!(e.is_argument(), "{e:?}");
    assert!(c.post_orders(&[]).await.unwrap_err().is_argument());
    assert_eq!(m.requests_to("/orders").len(), 1);
}

#[tokio::test]
async fn batch_of_orders() {
    let (m, c, os) = setup().await;
    m.on(
        "POST",
        "/orders",
        vec![Reply::json(format!(
            "[{OK},{}]",
            r#"{"success":false,"errorMsg":"not enough balance / allowance"}"#
        ))],
    );
    let ctx = c
        .market_context_with(TOKEN, TickSize::Thousandth, false)
        .unwrap();
    let a = os
        .limit_order(
            &ctx,
            &LimitOrder::new(Side::Buy, "0.123".parse().unwrap(), "7.77".parse().unwrap()),
        )
        .unwrap();
    let b = os
        .limit_order(
            &ctx,
            &LimitOrder::new(Side::Sell, "0.9".parse().unwrap(), "5".parse().unwrap())
                .post_only(true),
        )
        .unwrap();
    let r = c.post_orders(&[a, b]).await.unwrap();
    assert!(r[0].success && !r[1].success);
    assert_eq!(r[1].error_msg, "not enough balance / allowance");
    let req = &m.requests_to("/orders")[0];
    assert_eq!(req.auth, Some(Ok(())));
    let v: serde_json::Value = serde_json::from_slice(&req.body).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 2);
    assert_eq!(v[1]["postOnly"], true);

    // Issue 47: an answer row that does not decode fails the call (each answer is the
    // order's at the same index, so none may vanish), naming where.
    m.on("POST", "/orders", vec![Reply::json(format!("[{OK},7]"))]);
    let e = c.post_orders(&[a, b]).await.unwrap_err();
    assert!(e.is_decode() && e.path() == Some("/orders"), "{e}");
}

#[tokio::test]
async fn version_mismatch_rebuilds_resigns_and_retries_once() {
    let (m, _, _) = setup().await;
    let a = account(&m);
    m.on(
        "GET",
        "/tick-size",
        vec![Reply::json(r#"{"minimum_tick_size":"0.01"}"#)],
    );
    m.on(
        "GET",
        "/neg-risk",
        vec![Reply::json(r#"{"neg_risk":false}"#)],
    );
    m.on(
        "GET",
        "/version",
        vec![
            Reply::json(r#"{"version":2}"#),
            Reply::json(r#"{"version":1}"#),
        ],
    );
    m.on(
        "POST",
        "/order",
        vec![
            Reply::status(400, r#"{"error":"order_version_mismatch"}"#),
            Reply::json(OK),
        ],
    );
    let r = a
        .place_limit_order(
            TOKEN,
            &LimitOrder::new(Side::Buy, "0.5".parse().unwrap(), "10".parse().unwrap()),
        )
        .await
        .unwrap();
    assert!(r.success);
    let bodies = posted(&m);
    assert_eq!(bodies.len(), 2);
    assert_eq!(
        verify_order(&bodies[0]["order"], 137).unwrap().0,
        ExchangeVersion::V2
    );
    assert_eq!(
        verify_order(&bodies[1]["order"], 137).unwrap().0,
        ExchangeVersion::V1,
        "re-signed for the server's version"
    );
    assert_eq!(m.requests_to("/version").len(), 2);
    assert_eq!(
        a.client().cached_exchange_version(),
        Some(ExchangeVersion::V1)
    );

    // A second mismatch is returned, not looped on.
    m.on(
        "POST",
        "/order",
        vec![Reply::status(400, r#"{"error":"order_version_mismatch"}"#)],
    );
    m.on("GET", "/version", vec![Reply::json(r#"{"version":2}"#)]);
    let e = a
        .place_market_order(
            TOKEN,
            &MarketOrder::new(
                Side::Buy,
                polyclob::order::MarketAmount::Usdc("10".parse().unwrap()),
                "0.5".parse().unwrap(),
            )
            .order_type(OrderType::Fok),
        )
        .await
        .unwrap_err();
    assert!(e.is_order_version_mismatch());
    assert_eq!(m.requests_to("/order").len(), 4);
}

#[tokio::test]
async fn tampered_orders_are_rejected_by_the_mock() {
    // The mock's order check must be able to fail: flip one amount after signing.
    let (_m, c, os) = setup().await;
    let ctx = c
        .market_context_with(TOKEN, TickSize::Hundredth, false)
        .unwrap();
    let order = os
        .limit_order(
            &ctx,
            &LimitOrder::new(Side::Buy, "0.5".parse().unwrap(), "10".parse().unwrap()),
        )
        .unwrap();
    let mut body: serde_json::Value = serde_json::from_slice(&order.to_json("key-1")).unwrap();
    assert!(verify_order(&body["order"], 137).is_ok());
    body["order"]["makerAmount"] = "5000001".into();
    assert!(verify_order(&body["order"], 137).is_err());
}
