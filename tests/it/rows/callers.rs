//! The calls built on the row calls: the account's lists and positions, the tracker's REST
//! refresh, and the drop-in client's lists (their 0.1.1 `Vec` has no room for a skipped row,
//! so one fails the call, naming it).

use polyclob::account::{Account, Tracker};
use polyclob::clob::{ClientBuilder, Credentials, OrderFilter, TradeFilter};
use polyclob::sign::Signer;
use polyclob::{ApiCreds, ClobClient};
use serde_json::{Value as Json, json};

use super::{the_bad_row_at_1, with_bad};
use crate::support::mock_clob::{MockClob, Reply};

const KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const SECRET: &str = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlYw==";
const TOKEN: &str = "71321045679252212594626385532706912750332728571942532289631379312455583992563";
const MARKET: &str = "0x5f65177b394277fd294cd75650044e32ba009a95022d88a0c1d565897d72f8f1";

fn page(rows: &[Json]) -> String {
    json!({"data": rows, "next_cursor": "LTE=", "limit": 100, "count": rows.len()}).to_string()
}

fn order(id: &str) -> Json {
    json!({"id": id, "status": "LIVE", "owner": "key-1", "maker_address": "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
        "market": MARKET, "asset_id": TOKEN, "side": "BUY", "original_size": "10", "size_matched": "0",
        "price": "0.5", "associate_trades": [], "outcome": "Yes", "created_at": 1703875200,
        "expiration": "0", "order_type": "GTC"})
}

fn trade(id: &str) -> Json {
    json!({"id": id, "taker_order_id": "0xa", "market": MARKET, "asset_id": TOKEN, "side": "BUY",
        "size": "5", "fee_rate_bps": "0", "price": "0.5", "status": "CONFIRMED",
        "match_time": "1703875300", "last_update": "1703875300", "outcome": "Yes",
        "bucket_index": 0, "owner": "key-1", "maker_address": "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
        "maker_orders": [], "transaction_hash": "0xb", "trader_side": "TAKER"})
}

#[tokio::test]
async fn the_account_and_the_tracker_return_skipped_rows() {
    let m = MockClob::start().await;
    let account = Account::builder(Signer::from_hex(KEY).unwrap())
        .client(ClientBuilder::new().host(m.url()))
        .credentials(Credentials::new("key-1", SECRET, "pp"))
        .build()
        .unwrap();
    let bad_order = json!({"id": "0xbad", "side": "BUY", "size_matched": "some"});
    m.on(
        "GET",
        "/data/orders",
        vec![Reply::json(page(&with_bad(
            vec![order("0x1"), order("0x2")],
            bad_order.clone(),
        )))],
    );
    let (orders, skipped) = account.all_orders(&OrderFilter::default()).await.unwrap();
    assert_eq!(orders.len(), 2);
    the_bad_row_at_1("Account::all_orders", &skipped, &bad_order);

    let bad_trade = json!({"id": "t-bad", "side": "BUY", "size": [5]});
    m.on(
        "GET",
        "/data/trades",
        vec![Reply::json(page(&with_bad(
            vec![trade("t-1"), trade("t-2")],
            bad_trade.clone(),
        )))],
    );
    let (trades, skipped) = account.all_trades(&TradeFilter::default()).await.unwrap();
    assert_eq!(trades.len(), 2);
    the_bad_row_at_1("Account::all_trades", &skipped, &bad_trade);

    // The tracker's refresh returns the trade rows it could not count.
    m.on(
        "GET",
        "/data/order/0x1",
        vec![Reply::json(order("0x1").to_string())],
    );
    let mut tracker = Tracker::new();
    let skipped = tracker
        .refresh_order(account.client(), "0x1")
        .await
        .unwrap();
    the_bad_row_at_1("Tracker::refresh_order", &skipped, &bad_trade);
    assert_eq!(account.client().counters().skipped_rows, 3);

    // Positions through the Data API.
    let data = polyclob::data::Client::builder()
        .host(m.url())
        .build()
        .unwrap();
    let position = |token: &str| {
        json!({"proxy_wallet": "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", "token_id": token,
            "condition_id": MARKET, "current_size": "10", "avg_price": "0.5", "status": "OPEN"})
    };
    let bad_position = json!({"token_id": "9", "current_size": "lots"});
    m.on(
        "GET",
        "/v2/positions",
        vec![Reply::json(
            json!({"data": with_bad(vec![position("1"), position("2")], bad_position.clone()),
                "pagination": {"has_more": false, "next_cursor": null}})
            .to_string(),
        )],
    );
    let (positions, skipped) = account.positions(&data).await.unwrap();
    assert_eq!(positions.len(), 2);
    the_bad_row_at_1("Account::positions", &skipped, &bad_position);
    assert_eq!(data.counters().skipped_rows, 1);
}

#[tokio::test]
async fn the_drop_in_lists_fail_on_a_row_they_cannot_show() {
    let m = MockClob::start().await;
    let c = ClobClient::with_l2_headers(
        &m.url(),
        KEY,
        137,
        ApiCreds {
            api_key: "key-1".into(),
            secret: SECRET.into(),
            passphrase: "pp".into(),
        },
    );
    let good = vec![order("0x1"), order("0x2")];
    m.on("GET", "/data/orders", vec![Reply::json(page(&good))]);
    assert_eq!(c.get_orders(None, None).await.unwrap().len(), 2);
    m.on(
        "GET",
        "/data/orders",
        vec![Reply::json(page(&with_bad(
            good,
            json!({"id": "0xbad", "price": "half"}),
        )))],
    );
    let e = c.get_orders(None, None).await.unwrap_err().to_string();
    assert!(
        e.contains("/data/orders") && e.contains("row 1") && e.contains("0xbad"),
        "{e}"
    );
    // Trades are JSON values: only a row that is not an object can fail.
    m.on(
        "GET",
        "/data/trades",
        vec![Reply::json(page(&[trade("t-1"), json!(7), trade("t-2")]))],
    );
    let e = c.get_trades(None, None).await.unwrap_err().to_string();
    assert!(e.contains("row 1"), "{e}");
}
