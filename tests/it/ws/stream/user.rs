//! User stream: auth payload, markets filter, dynamic filter changes, and the reconcile
//! hook after a reconnect (the user channel does not replay).

use crate::support::ws_server;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use polyclob::account::user_events::{UserFeed, UserStream};
use polyclob::clob::Credentials;
use polyclob::ws::connection::Reconnected;
use polyclob::ws::feed::FeedBuilder;
use serde_json::Value;
use ws_server::client::{Event, frames, is_connected, until};
use ws_server::{Action, WsServer};

const SEC: Duration = Duration::from_secs(1);
const M1: &str = "0xbd31dc8a20211944f6b70f31557f1001557b59905b7738480ca09bd4532f84af";
const M2: &str = "0x5f65177b394277fd294cd75650044e32ba009a95022d88a0c1d565897d72f8f1";
const ORDER: &str = r#"{"event_type":"order","type":"PLACEMENT","id":"0xff354cd7ca7539dfa9c28d90943ab5779a4eac34b9b37a757d7b32bdfb11790b","market":"0xbd31dc8a20211944f6b70f31557f1001557b59905b7738480ca09bd4532f84af","asset_id":"52114319501245915516055106046884209969926127482827954674443846427813813222426","side":"SELL","price":"0.57","original_size":"10","size_matched":"0","outcome":"YES","owner":"9180014b-33c8-9240-a14b-bdca11c0a465","order_owner":"9180014b-33c8-9240-a14b-bdca11c0a465","associate_trades":null,"status":"LIVE","timestamp":"1672290687"}"#;

fn fast(url: &str) -> FeedBuilder<UserFeed> {
    UserStream::builder(Credentials::new(
        "key-1",
        "c2VjcmV0LXNlY3JldA==",
        "pass-phrase",
    ))
    .url(url)
    .ping_interval(Duration::from_millis(50))
    .pong_timeout(Duration::from_millis(150))
    .silence_timeout(Duration::from_millis(200))
    .connect_timeout(SEC)
    .backoff(Duration::from_millis(20), Duration::from_millis(200))
}

fn json(s: &str) -> Value {
    serde_json::from_str(s).expect("client sent JSON")
}

#[tokio::test]
async fn auth_payload_markets_filter_and_events() {
    let server = WsServer::start().await;
    server.on_subscribe(vec![ORDER.to_owned()]);
    let mut stream = fast(&server.url())
        .markets([M1])
        .frames()
        .build()
        .expect("build");
    let events = until(&mut stream, 2 * SEC, |e| matches!(e, Event::Message(_))).await;
    assert!(is_connected(&events[0], false));
    assert_eq!(frames(&events), [ORDER]);

    let first = json(&server.conn(0).received[0]);
    assert_eq!(first["type"], "user");
    assert_eq!(first["auth"]["apiKey"], "key-1");
    assert_eq!(first["auth"]["secret"], "c2VjcmV0LXNlY3JldA==");
    assert_eq!(first["auth"]["passphrase"], "pass-phrase");
    assert_eq!(first["markets"], serde_json::json!([M1]));

    stream.handle().subscribe([M2]).expect("subscribe");
    stream.handle().unsubscribe([M1]).expect("unsubscribe");
    assert!(
        server
            .wait_for(SEC, |s| s.conns[0].messages().len() >= 3)
            .await
    );
    let conn = server.conn(0);
    let msgs = conn.messages();
    assert_eq!(
        json(msgs[1]),
        serde_json::json!({"markets": [M2], "operation": "subscribe"})
    );
    assert_eq!(
        json(msgs[2]),
        serde_json::json!({"markets": [M1], "operation": "unsubscribe"})
    );
    assert!(
        server.wait_for(SEC, |s| s.conns[0].pings() >= 2).await,
        "keepalive on the user channel"
    );
}

#[tokio::test]
async fn empty_filter_still_authenticates() {
    let server = WsServer::start().await;
    let _stream = fast(&server.url()).build().expect("build");
    assert!(
        server
            .wait_for(2 * SEC, |s| s
                .conns
                .first()
                .is_some_and(|c| !c.received.is_empty()))
            .await
    );
    let first = json(&server.conn(0).received[0]);
    assert_eq!(first["markets"], serde_json::json!([]));
    assert_eq!(first["type"], "user");
}

#[tokio::test]
async fn reconcile_hook_runs_after_resubscribing_on_every_reconnect_only() {
    let server = Arc::new(WsServer::start().await);
    let calls: Arc<Mutex<Vec<Reconnected>>> = Arc::default();
    let mut stream = fast(&server.url())
        .markets([M1])
        .on_reconnect({
            let calls = Arc::clone(&calls);
            move |r| {
                calls.lock().expect("lock").push(r);
                async {}
            }
        })
        .frames()
        .build()
        .expect("build");
    until(&mut stream, 2 * SEC, |e| is_connected(e, false)).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        calls.lock().expect("lock").is_empty(),
        "not called on the first connect"
    );

    server.act(0, Action::CloseAbrupt);
    until(&mut stream, 2 * SEC, |e| is_connected(e, true)).await;
    assert!(
        server
            .wait_for(SEC, |_| !calls.lock().expect("lock").is_empty())
            .await
    );
    assert!(
        server
            .wait_for(SEC, |s| s.conns.len() == 2
                && !s.conns[1].received.is_empty())
            .await
    );
    server.act(1, Action::Close(1008));
    until(&mut stream, 2 * SEC, |e| is_connected(e, true)).await;
    assert!(
        server
            .wait_for(SEC, |_| calls.lock().expect("lock").len() == 2)
            .await
    );

    assert!(
        server
            .wait_for(SEC, |s| s.conns.len() == 3
                && !s.conns[2].received.is_empty())
            .await
    );
    let calls = calls.lock().expect("lock");
    for (i, r) in calls.iter().enumerate() {
        assert_eq!(r.epoch, i as u64 + 2);
        assert_eq!(r.ids, [M1]);
    }
    for k in 1..3 {
        let first = json(&server.conn(k).received[0]);
        assert_eq!(first["type"], "user", "re-authenticated on connection {k}");
        assert_eq!(first["markets"], serde_json::json!([M1]));
    }
}

#[tokio::test]
async fn secrets_stay_out_of_debug_output() {
    let server = WsServer::start().await;
    let builder = fast(&server.url());
    assert!(!format!("{builder:?}").contains("c2VjcmV0"));
    let stream = builder.build().expect("build");
    assert!(!format!("{stream:?}").contains("c2VjcmV0"));
}

#[tokio::test]
async fn decoded_stream_yields_owned_order_and_trade_events() {
    use futures_util::StreamExt;
    use polyclob::account::user_events::{TradeStatus, UserEvent};
    use polyclob::ws::feed::FeedEvent;

    const TRADE: &str = r#"{"event_type":"trade","type":"TRADE","id":"28c4d2eb-bbea-40e7-a9f0-b2fdb56b2c2e","taker_order_id":"0x06bc63e346ed4ceddce9efd6b3af37c8f8f440c92fe7da6b2d0f9e4ccbc50c42","market":"0xbd31dc8a20211944f6b70f31557f1001557b59905b7738480ca09bd4532f84af","asset_id":"52114319501245915516055106046884209969926127482827954674443846427813813222426","side":"BUY","size":"10","price":"0.57","status":"MATCHED","outcome":"YES","owner":"9180014b-33c8-9240-a14b-bdca11c0a465","trade_owner":"9180014b-33c8-9240-a14b-bdca11c0a465","matchtime":"1672290701","last_update":"1672290701","timestamp":"1672290701","maker_orders":[{"asset_id":"52114319501245915516055106046884209969926127482827954674443846427813813222426","matched_amount":"10","order_id":"0xff354cd7ca7539dfa9c28d90943ab5779a4eac34b9b37a757d7b32bdfb11790b","outcome":"YES","owner":"9180014b-33c8-9240-a14b-bdca11c0a465","price":"0.57"}]}"#;
    let server = WsServer::start().await;
    server.on_subscribe(vec![format!("[{ORDER},{TRADE}]"), "{broken".to_owned()]);
    let mut events = fast(&server.url()).markets([M1]).build().expect("build");
    let mut got = Vec::new();
    while got.len() < 4 {
        let ev = tokio::time::timeout(2 * SEC, events.next())
            .await
            .expect("timely")
            .expect("open");
        got.push(ev);
    }
    assert!(matches!(got[0], FeedEvent::Status(_)));
    let FeedEvent::Message(UserEvent::Order(o)) = &got[1] else {
        panic!("{got:?}")
    };
    assert_eq!(
        o.id,
        "0xff354cd7ca7539dfa9c28d90943ab5779a4eac34b9b37a757d7b32bdfb11790b"
    );
    let FeedEvent::Message(UserEvent::Trade(t)) = &got[2] else {
        panic!("{got:?}")
    };
    assert_eq!(t.id, "28c4d2eb-bbea-40e7-a9f0-b2fdb56b2c2e");
    assert_eq!(t.size.as_micros(), 10_000_000);
    assert_eq!((t.status.clone(), t.first), (TradeStatus::Matched, true));
    assert!(
        matches!(&got[3], FeedEvent::Invalid { frame, .. } if frame.shard() == 0),
        "{:?}",
        got[3]
    );
    // The stream is still up after the broken frame.
    assert_eq!(server.connections(), 1);

    // A break is a typed item right after the status that reported it.
    server.act(0, Action::CloseAbrupt);
    let evs = until(&mut events, 2 * SEC, |e| matches!(e, FeedEvent::Break(_))).await;
    let Some(FeedEvent::Break(b)) = evs.last() else {
        unreachable!()
    };
    assert_eq!(b.stream, polyclob::ws::continuity::StreamKind::User);
    assert_eq!(b.lost, polyclob::ws::continuity::Lost::Unknown);
    assert!(matches!(
        &evs[evs.len() - 2],
        FeedEvent::Status(polyclob::ws::event::Status::Disconnected { .. })
    ));
    assert!(
        !events.trust(None).is_trusted(),
        "untrusted after the break"
    );
}
