//! The 2026 WebSocket changes (issue 17, item 5): new fields in the decoder, and the
//! subscription rules (one initial subscribe per connection, then the dynamic-subscription
//! message; no `PING` before the first subscribe), which the simulator now enforces and the
//! client meets.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::fixtures;
use crate::support::sim as support;

use std::time::Duration;

use futures_util::StreamExt;
use polyclob::decode::{EventView, decode};
use polyclob::types::{OrderType, Side};
use polyclob::ws::feed::FeedEvent as StreamEvent;
use polyclob::ws::market::MarketStream;
use support::*;

fn one(frame: &str) -> EventView<'_> {
    let mut it = decode(frame);
    let e = it.next().expect("one element").expect("decodes");
    assert!(it.next().is_none());
    e
}

#[test]
fn last_trade_price_carries_the_transaction_hash() {
    let f = r#"{"event_type":"last_trade_price","asset_id":"7","market":"0xm","price":"0.51",
        "side":"BUY","size":"25","fee_rate_bps":"0","timestamp":"1703875202000",
        "transaction_hash":"0xabc123"}"#;
    let EventView::LastTradePrice(t) = one(f) else {
        panic!()
    };
    assert_eq!(t.transaction_hash, Some("0xabc123"));
    // Absent or "" is None, not an error.
    let f =
        r#"{"event_type":"last_trade_price","asset_id":"7","price":"0.5","transaction_hash":""}"#;
    let EventView::LastTradePrice(t) = one(f) else {
        panic!()
    };
    assert_eq!(t.transaction_hash, None);
}

#[test]
fn user_orders_carry_created_at_expiration_order_type_and_new_statuses() {
    if let Some(bytes) =
        fixtures::read_shared("polymarket/nautilus_test_data/ws_user_order_placement.json")
    {
        let text = String::from_utf8(bytes).unwrap();
        let EventView::Order(o) = one(&text) else {
            panic!()
        };
        assert_eq!(o.created_at, Some(1_703_875_200_000));
        assert_eq!(o.expiration, None); // null
        assert_eq!(o.order_type, Some(OrderType::Gtc));
        assert_eq!(o.status.unwrap().as_str(), Some("LIVE"));
    }
    for status in ["LIVE", "MATCHED", "DELAYED", "UNMATCHED", "CANCELED"] {
        let f = format!(
            r#"{{"event_type":"order","type":"UPDATE","id":"0x1","asset_id":"2","side":"BUY",
            "price":"0.5","original_size":"10","size_matched":"","status":"{status}",
            "created_at":"1777824065","expiration":"1777900000","order_type":"GTD"}}"#
        );
        let EventView::Order(o) = one(&f) else {
            panic!()
        };
        assert_eq!(o.status.unwrap().as_str(), Some(status));
        assert_eq!(o.created_at, Some(1_777_824_065));
        assert_eq!(o.expiration, Some(1_777_900_000));
        assert_eq!(o.order_type, Some(OrderType::Gtd));
        assert_eq!(o.size_matched, None, "\"\" is an absent decimal");
        assert_eq!(o.is_canceled(), status == "CANCELED");
    }
}

#[test]
fn maker_orders_carry_outcome_index_and_side() {
    let f = r#"{"event_type":"trade","id":"t","asset_id":"a","side":"BUY","size":"10",
        "price":"0.57","status":"MATCHED","maker_orders":[
        {"asset_id":"a","matched_amount":"6","order_id":"0x1","price":"0.57","side":"SELL","outcome_index":1},
        {"asset_id":"b","matched_amount":"4","order_id":"0x2","price":"0.43","side":"BUY","outcome_index":"0"},
        {"asset_id":"a","matched_amount":"1","order_id":"0x3","price":"0.57"}]}"#;
    let EventView::Trade(t) = one(f) else {
        panic!()
    };
    let legs: Vec<_> = t.maker_orders.map(Result::unwrap).collect();
    assert_eq!(
        legs.iter()
            .map(|l| (l.outcome_index, l.side))
            .collect::<Vec<_>>(),
        [
            (Some(1), Some(Side::Sell)),
            (Some(0), Some(Side::Buy)),
            (None, None)
        ]
    );
    // A trade without a transaction hash yet (async execution) decodes.
    assert_eq!(t.transaction_hash, None);
}

#[tokio::test]
async fn simulator_refuses_an_early_ping_and_a_second_initial_subscribe() {
    let sim = start_empty().await;
    let mut w = ws(&sim, "market").await;
    send(&mut w, "PING").await;
    assert_eq!(
        next_text(&mut w, LONG).await.as_deref(),
        Some("INVALID OPERATION")
    );
    let initial = format!(r#"{{"assets_ids":["{YES}"],"type":"market"}}"#);
    send(&mut w, &initial).await;
    next_events(&mut w, LONG).await.expect("snapshot");
    send(
        &mut w,
        &format!(r#"{{"assets_ids":["{NO}"],"type":"market"}}"#),
    )
    .await;
    assert_eq!(
        next_text(&mut w, LONG).await.as_deref(),
        Some("INVALID OPERATION")
    );
    // The documented dynamic message works, and PING is answered now.
    send(
        &mut w,
        &format!(r#"{{"assets_ids":["{NO}"],"operation":"subscribe"}}"#),
    )
    .await;
    let books = next_events(&mut w, LONG).await.expect("snapshot of NO");
    assert_eq!(books[0]["asset_id"], NO);
    send(&mut w, "PING").await;
    assert_eq!(next_text(&mut w, LONG).await.as_deref(), Some("PONG"));
}

#[tokio::test]
async fn the_client_meets_the_subscription_rules_of_the_simulator() {
    let sim = start_empty().await;
    let mut s = MarketStream::builder()
        .url(format!("{}/ws/market", sim.ws_url()))
        .ping_interval(Duration::from_millis(30))
        .frames()
        .build()
        .unwrap();
    let h = s.handle();
    // Nothing subscribed for a few ping intervals, then one asset, then another.
    tokio::time::sleep(Duration::from_millis(120)).await;
    h.subscribe([YES]).unwrap();
    let mut texts = Vec::new();
    let mut subscribed_no = false;
    let deadline = tokio::time::Instant::now() + LONG;
    let mut seen_no_book = false;
    while !seen_no_book {
        let ev = tokio::time::timeout_at(deadline, s.next())
            .await
            .expect("in time")
            .expect("open");
        if let StreamEvent::Message(f) = ev {
            let t = f.as_str().unwrap_or_default().to_owned();
            if !subscribed_no && t.contains(YES) {
                // Pings go out meanwhile; then a second subscription on the same connection.
                tokio::time::sleep(Duration::from_millis(100)).await;
                h.subscribe([NO]).unwrap();
                subscribed_no = true;
            }
            seen_no_book = t.contains(r#""event_type":"book""#) && t.contains(NO);
            texts.push(t);
        }
    }
    assert!(
        texts.iter().all(|t| !t.contains("INVALID OPERATION")),
        "{texts:?}"
    );
}
