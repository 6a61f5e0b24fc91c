//! Filtering open orders by `asset_id` requires `market` too (announced for 2026-12-14 with
//! Polymarket's py-sdk polymarket-client v0.20.0): the client fills `market` from what it
//! knows or refuses before any I/O naming the field; the simulator enforces the rule.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::mock_clob;
use crate::support::sim as support;

use futures_util::StreamExt;
use mock_clob::{MockClob, Reply};
use polyclob::clob::{Client, Credentials, OrderFilter};
use polyclob::order::LimitOrder;
use polyclob::sign::Signer;
use polyclob::types::Side;
use support::*;

const SECRET: &str = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlYw==";
const PAGE: &str = r#"{"data":[],"next_cursor":"LTE=","limit":100,"count":0}"#;

fn by_asset(asset: &str) -> OrderFilter {
    OrderFilter {
        asset_id: Some(asset.to_owned()),
        ..OrderFilter::default()
    }
}

fn mock_client(m: &MockClob) -> Client {
    Client::builder()
        .host(m.url())
        .signer(Signer::from_hex(KEY_A).unwrap())
        .credentials(Credentials::new("key-1", SECRET, "pp"))
        .build()
        .unwrap()
}

#[tokio::test]
async fn unknown_market_is_an_argument_error_before_any_request() {
    let m = MockClob::start().await;
    m.on("GET", "/data/orders", vec![Reply::json(PAGE)]);
    let c = mock_client(&m);
    let e = c.orders(&by_asset("77"), None).await.unwrap_err();
    assert!(e.is_argument(), "{e:?}");
    assert!(e.to_string().contains("market"), "{e}");
    let e = c.all_orders(&by_asset("77")).await.unwrap_err();
    assert!(e.is_argument());
    let items: Vec<_> = c.orders_stream(&by_asset("77")).collect().await;
    assert_eq!(items.len(), 1);
    assert!(items[0].as_ref().unwrap_err().is_argument());
    assert!(m.requests().is_empty(), "no request was sent");

    // Once the token's market is known, it is filled in.
    c.set_token_market("77", "0xc0");
    c.orders(&by_asset("77"), None).await.unwrap();
    let r = &m.requests_to("/data/orders")[0];
    assert_eq!(r.query_param("asset_id").as_deref(), Some("77"));
    assert_eq!(r.query_param("market").as_deref(), Some("0xc0"));
    // A market given by the caller is kept.
    m.clear_log();
    let f = OrderFilter {
        market: Some("0xother".into()),
        ..by_asset("77")
    };
    c.orders(&f, None).await.unwrap();
    let r = &m.requests_to("/data/orders")[0];
    assert_eq!(r.query_param("market").as_deref(), Some("0xother"));
}

#[tokio::test]
async fn market_lookups_teach_the_client_and_the_simulator_enforces_the_rule() {
    let sim = start(9).await;
    let t = Trader::new(&sim, KEY_A).await;
    let spec = &markets()[0];
    let (yes, no) = (spec.tokens()[0].token_id(), spec.tokens()[1].token_id());

    // The simulator: asset_id alone is refused, with market it is served.
    let (s, v, _) = t
        .l2("GET", &format!("/data/orders?asset_id={yes}"), None)
        .await;
    assert_eq!(s, 400, "{v}");
    assert!(v["error"].as_str().unwrap().contains("market"), "{v}");
    let (s, _, _) = t
        .l2(
            "GET",
            &format!("/data/orders?asset_id={yes}&market={}", spec.condition_id()),
            None,
        )
        .await;
    assert_eq!(s, 200);

    let signer = Signer::from_hex(KEY_A).unwrap();
    let account = polyclob::account::Account::builder(signer)
        .client(Client::builder().host(sim.http_url()))
        .credentials(t.creds.clone())
        .build()
        .unwrap();
    let c = account.client().clone();
    for token in [yes, no] {
        let r = account
            .place_limit_order(
                token,
                &LimitOrder::new(Side::Buy, "0.1".parse().unwrap(), "10".parse().unwrap()),
            )
            .await
            .unwrap();
        assert!(r.success, "{r:?}");
    }
    assert!(
        c.orders(&by_asset(yes), None)
            .await
            .unwrap_err()
            .is_argument()
    );
    // GET /markets-by-token records both tokens of the market.
    let mbt = c.market_by_token(yes).await.unwrap();
    assert_eq!(mbt.condition_id, spec.condition_id());
    assert_eq!(
        c.cached_token_market(no).as_deref(),
        Some(spec.condition_id())
    );
    for token in [yes, no] {
        let (orders, skipped) = c.all_orders(&by_asset(token)).await.unwrap();
        assert!(skipped.is_empty());
        assert_eq!(orders.len(), 1, "{orders:?}");
        assert_eq!(orders[0].asset_id, token);
    }

    // The drop-in client: its callers never set `market`, so it looks the market up once.
    let compat = polyclob::ClobClient::with_l2_headers(
        &sim.http_url(),
        KEY_A,
        137,
        polyclob::ApiCreds {
            api_key: t.creds.api_key().to_owned(),
            secret: t.creds.secret().to_owned(),
            passphrase: t.creds.passphrase().to_owned(),
        },
    );
    for token in [yes, no] {
        let params = polyclob::OpenOrderParams {
            asset_id: Some(token.to_owned()),
            ..Default::default()
        };
        let orders = compat.get_orders(Some(&params), None).await.unwrap();
        assert_eq!(orders.len(), 1, "{orders:?}");
        assert_eq!(orders[0].asset_id, token);
    }
}
