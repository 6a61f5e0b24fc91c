//! Async execution (issue 17, item 5): post responses with `tradeIDs` (that casing) and no
//! `transactionsHashes`, order statuses DELAYED / UNMATCHED, trade statuses
//! MATCHED_NOT_BROADCASTED and `TRADE_STATUS_*` spellings, missing transaction hashes and
//! `""` for absent decimals: every row decodes, none is skipped.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::fixtures;
use crate::support::mock_clob;

use mock_clob::{MockClob, Reply};
use polyclob::clob::types::{OrderStatus, PostOrderResponse, TradeStatus};
use polyclob::clob::{Client, Credentials, OrderFilter, TradeFilter};
use polyclob::fixed::Size;
use polyclob::sign::Signer;

const KEY: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const SECRET: &str = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlYw==";

#[test]
fn post_responses_with_trade_ids_and_no_transaction_hashes() {
    let dir = "polymarket/nautilus_test_data/";
    if let Some(b) = fixtures::read_shared(&format!("{dir}http_order_response_trade_ids_only.json"))
    {
        let r: PostOrderResponse = serde_json::from_slice(&b).unwrap();
        assert!(r.success);
        assert_eq!(
            r.trade_ids.as_deref(),
            Some(&["trade-0x101".to_owned(), "trade-0x102".to_owned()][..])
        );
        assert_eq!(r.transactions_hashes, None);
    }
    if let Some(b) = fixtures::read_shared(&format!("{dir}http_order_response_async_exec.json")) {
        let r: PostOrderResponse = serde_json::from_slice(&b).unwrap();
        assert_eq!(r.trade_ids.as_ref().map(Vec::len), Some(2));
        assert_eq!(r.transactions_hashes.as_ref().map(Vec::len), Some(2));
    }
    // Delayed: "" amounts, no hashes; the exact casing `tradeIDs` is what is read.
    let r: PostOrderResponse = serde_json::from_str(
        r#"{"success":true,"errorMsg":"","orderID":"0xa","status":"delayed",
            "makingAmount":"","takingAmount":"","tradeIDs":["t1"]}"#,
    )
    .unwrap();
    assert_eq!(r.status, polyclob::clob::types::OrderStatus::Delayed);
    assert_eq!((r.making_amount, r.taking_amount), (Size::ZERO, Size::ZERO));
    assert_eq!(r.trade_ids.as_deref(), Some(&["t1".to_owned()][..]));
    let r: PostOrderResponse =
        serde_json::from_str(r#"{"success":true,"orderID":"0xa","tradeIds":["t1"]}"#).unwrap();
    assert_eq!(r.trade_ids, None, "only the exact casing is the field");
}

#[test]
fn status_names_old_new_and_prefixed() {
    for (wire, want) in [
        ("MATCHED", TradeStatus::Matched),
        (
            "MATCHED_NOT_BROADCASTED",
            TradeStatus::MatchedNotBroadcasted,
        ),
        (
            "TRADE_STATUS_MATCHED_NOT_BROADCASTED",
            TradeStatus::MatchedNotBroadcasted,
        ),
        ("TRADE_STATUS_CONFIRMED", TradeStatus::Confirmed),
        ("trade_status_failed", TradeStatus::Failed),
        ("MINED", TradeStatus::Mined),
        ("RETRYING", TradeStatus::Retrying),
    ] {
        assert_eq!(TradeStatus::parse(wire), want, "{wire}");
    }
    // Unknown names are kept verbatim, prefix included.
    assert_eq!(
        TradeStatus::parse("TRADE_STATUS_SOMETHING_NEW"),
        TradeStatus::Unknown("TRADE_STATUS_SOMETHING_NEW".into())
    );
    assert_eq!(
        TradeStatus::parse("TRADE_STATUS_"),
        TradeStatus::Unknown("TRADE_STATUS_".into())
    );
    for (wire, want) in [
        ("LIVE", OrderStatus::Live),
        ("DELAYED", OrderStatus::Delayed),
        ("UNMATCHED", OrderStatus::Unmatched),
        ("MATCHED", OrderStatus::Matched),
    ] {
        assert_eq!(OrderStatus::parse(wire), want, "{wire}");
    }
}

fn client(m: &MockClob) -> Client {
    Client::builder()
        .host(m.url())
        .signer(Signer::from_hex(KEY).unwrap())
        .credentials(Credentials::new("key-1", SECRET, "pp"))
        .build()
        .unwrap()
}

#[tokio::test]
async fn pages_during_async_execution_decode_whole() {
    let m = MockClob::start().await;
    let trade = |id: &str, status: &str, hash: Option<&str>| {
        let hash = hash.map_or(String::new(), |h| format!(r#","transaction_hash":"{h}""#));
        format!(
            r#"{{"id":"{id}","taker_order_id":"0x1","market":"0xm","asset_id":"7","side":"BUY",
            "size":"10","fee_rate_bps":"","price":"0.5","status":"{status}","match_time":"1777824065",
            "last_update":"","outcome":"Yes","owner":"k","maker_address":"0xa",
            "maker_orders":[{{"order_id":"0x2","matched_amount":"","price":"","fee_rate_bps":"",
            "asset_id":"7","side":"SELL"}}],"trader_side":"TAKER"{hash}}}"#
        )
    };
    let rows = [
        trade("t1", "TRADE_STATUS_MATCHED_NOT_BROADCASTED", None),
        trade("t2", "MATCHED_NOT_BROADCASTED", Some("")),
        trade("t3", "TRADE_STATUS_CONFIRMED", Some("0xfeed")),
        trade("t4", "TRADE_STATUS_FUTURE", None),
    ];
    m.on(
        "GET",
        "/data/trades",
        vec![Reply::json(format!(
            r#"{{"data":[{}],"next_cursor":"LTE="}}"#,
            rows.join(",")
        ))],
    );
    let c = client(&m);
    let (trades, skipped) = c.all_trades(&TradeFilter::default()).await.unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    assert_eq!(
        trades.iter().map(|t| t.status.clone()).collect::<Vec<_>>(),
        [
            TradeStatus::MatchedNotBroadcasted,
            TradeStatus::MatchedNotBroadcasted,
            TradeStatus::Confirmed,
            TradeStatus::Unknown("TRADE_STATUS_FUTURE".into()),
        ]
    );
    assert_eq!(
        trades
            .iter()
            .map(|t| t.transaction_hash.as_str())
            .collect::<Vec<_>>(),
        ["", "", "0xfeed", ""]
    );
    assert_eq!(trades[0].fee_rate_bps, 0);
    assert_eq!(trades[0].maker_orders[0].matched_amount, Size::ZERO);

    let order = |id: &str, status: &str| {
        format!(
            r#"{{"id":"{id}","status":"{status}","owner":"k","maker_address":"0xa","market":"0xm",
            "asset_id":"7","side":"BUY","original_size":"10","size_matched":"","price":"0.5",
            "associate_trades":null,"outcome":"Yes","created_at":"1777824065","expiration":"0",
            "order_type":"GTC"}}"#
        )
    };
    m.on(
        "GET",
        "/data/orders",
        vec![Reply::json(format!(
            r#"{{"data":[{},{}],"next_cursor":"LTE="}}"#,
            order("0x1", "DELAYED"),
            order("0x2", "UNMATCHED")
        ))],
    );
    let (orders, skipped) = c.all_orders(&OrderFilter::default()).await.unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    assert_eq!(
        orders.iter().map(|o| o.status.clone()).collect::<Vec<_>>(),
        [OrderStatus::Delayed, OrderStatus::Unmatched]
    );
    assert_eq!(orders[0].size_matched, Size::ZERO);
}
