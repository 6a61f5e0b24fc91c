//! The user channel against a misbehaving server, through `UserStream`: every failure ends in
//! one typed `Break` naming the user stream, a bounded reconnect that authenticates again, and
//! live events afterwards — never a panic, a hang or a silent loss.

use crate::support::trust_oracle::Checked;
use crate::support::ws_server;

use std::time::Duration;

use polyclob::account::user_events::{UserEvent as Item, UserFeed, UserStream};
use polyclob::clob::Credentials;
use polyclob::ws::continuity::{Cause, Lost, Recovery, StreamKind};
use polyclob::ws::event::Status;
use polyclob::ws::event::{ConnectError, Disconnect};
use polyclob::ws::feed::{FeedBuilder, FeedEvent};
use ws_server::client::until;
use ws_server::{Action, WsServer};

const SEC: Duration = Duration::from_secs(1);
const ORDER: &str = r#"{"event_type":"order","type":"PLACEMENT","id":"0xff354cd7ca7539dfa9c28d90943ab5779a4eac34b9b37a757d7b32bdfb11790b","market":"0xbd31dc8a20211944f6b70f31557f1001557b59905b7738480ca09bd4532f84af","asset_id":"52114319501245915516055106046884209969926127482827954674443846427813813222426","side":"SELL","price":"0.57","original_size":"10","size_matched":"0","status":"LIVE","timestamp":"1672290687"}"#;

type Events = Checked<UserFeed>;
type UserEvent = FeedEvent<Item>;

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

fn is_order(e: &UserEvent) -> bool {
    matches!(e, UserEvent::Message(Item::Order(o)) if o.id.starts_with("0xff35"))
}

fn breaks(evs: &[UserEvent]) -> Vec<polyclob::ws::continuity::Break> {
    evs.iter()
        .filter_map(|e| match e {
            UserEvent::Break(b) => Some(*b),
            _ => None,
        })
        .collect()
}

/// A stream that has received its first order event.
async fn started(server: &WsServer) -> Events {
    server.on_subscribe(vec![ORDER.to_owned()]);
    let mut s = Checked::new(fast(&server.url()).build().expect("build"));
    until(&mut s, 2 * SEC, is_order).await;
    s
}

/// After `action`: one break of the user stream with `cause`, loss unknown, a reconnect that
/// authenticates again, and the order event of the new connection.
async fn recovers(action: Action, cause: impl Fn(Cause) -> bool) -> Vec<UserEvent> {
    let server = WsServer::start().await;
    let mut s = started(&server).await;
    server.act(0, action);
    let evs = until(&mut s, 3 * SEC, is_order).await;
    let b = breaks(&evs);
    assert_eq!(b.len(), 1, "{evs:#?}");
    assert_eq!((b[0].stream, b[0].lost), (StreamKind::User, Lost::Unknown));
    assert!(cause(b[0].cause), "{:?}", b[0].cause);
    assert!(matches!(b[0].recovery, Recovery::Reconnect { .. }));
    assert!(evs.iter().any(|e| matches!(
        e,
        UserEvent::Status(Status::Connected {
            reconnect: true,
            ..
        })
    )));
    assert_eq!(server.connections(), 2);
    let first: serde_json::Value = serde_json::from_str(&server.conn(1).received[0]).expect("json");
    assert_eq!(first["type"], "user", "authenticated again");
    assert_eq!(first["auth"]["apiKey"], "key-1");
    evs
}

#[tokio::test]
async fn abrupt_close_is_one_break_and_reconnects() {
    recovers(Action::CloseAbrupt, |c| {
        c == Cause::Disconnected(Disconnect::Eof)
    })
    .await;
}

#[tokio::test]
async fn silence_is_one_break_and_reconnects() {
    recovers(Action::GoSilent, |c| {
        matches!(
            c,
            Cause::Disconnected(Disconnect::Silence | Disconnect::PongTimeout)
        )
    })
    .await;
}

#[tokio::test]
async fn invalid_utf8_is_one_protocol_break_and_reconnects() {
    recovers(Action::InvalidUtf8, |c| {
        c == Cause::Disconnected(Disconnect::Protocol)
    })
    .await;
}

#[tokio::test]
async fn close_codes_are_reported_and_reconnect() {
    for code in [1008, 1011, 4001] {
        recovers(Action::Close(code), |c| {
            c == Cause::Disconnected(Disconnect::Closed { code: Some(code) })
        })
        .await;
    }
}

#[tokio::test]
async fn garbage_is_invalid_and_the_stream_continues() {
    let server = WsServer::start().await;
    let mut s = started(&server).await;
    server.act(0, Action::Text("{not json".to_owned()));
    server.act(0, Action::Binary(vec![0xff, 0x00]));
    server.act(
        0,
        Action::Text(r#"{"event_type":"trade","id":"t","maker_orders":7}"#.to_owned()),
    );
    server.act(0, Action::Text(ORDER.to_owned()));
    let evs = until(&mut s, 2 * SEC, is_order).await;
    let invalid = evs
        .iter()
        .filter(|e| matches!(e, UserEvent::Invalid { .. }))
        .count();
    assert_eq!(invalid, 3, "{evs:#?}");
    assert!(breaks(&evs).is_empty());
    assert_eq!(server.connections(), 1);
}

#[tokio::test]
async fn refused_connects_are_breaks_and_retried() {
    let server = WsServer::start().await;
    server.on_subscribe(vec![ORDER.to_owned()]);
    server.refuse_next(2);
    let mut s = Checked::new(fast(&server.url()).build().expect("build"));
    let evs = until(&mut s, 3 * SEC, is_order).await;
    let b = breaks(&evs);
    assert_eq!(b.len(), 2, "{evs:#?}");
    assert!(
        b.iter()
            .all(|b| matches!(b.cause, Cause::Disconnected(Disconnect::Connect(_))))
    );
}

#[tokio::test]
async fn an_http_refusal_is_retried_after_its_retry_after() {
    let server = WsServer::start().await;
    server.on_subscribe(vec![ORDER.to_owned()]);
    server.refuse_http(429, Some(1));
    let mut s = Checked::new(fast(&server.url()).build().expect("build"));
    let evs = until(&mut s, 4 * SEC, is_order).await;
    let opened = server.conn(0).opened_at;
    let refused = server.state().http_refused_at.clone();
    assert_eq!(refused.len(), 1);
    // The backoff alone would retry within 20 ms.
    assert!(
        opened.duration_since(refused[0]) >= Duration::from_millis(950),
        "retried after {:?}",
        opened.duration_since(refused[0])
    );
    let reported = evs.iter().find_map(|e| match e {
        UserEvent::Status(Status::Disconnected {
            reason: Disconnect::Connect(ConnectError::Rejected(429)),
            retry_in,
            ..
        }) => Some(*retry_in),
        _ => None,
    });
    assert!(reported.is_some_and(|d| d >= SEC), "{evs:#?}");
    assert_eq!(breaks(&evs).len(), 1);
}

#[tokio::test]
async fn a_flood_faster_than_the_consumer_is_a_counted_break() {
    let server = WsServer::start().await;
    server.on_subscribe(vec![ORDER.to_owned()]);
    let mut s = Checked::new(
        fast(&server.url())
            .queue_capacity(16)
            .build()
            .expect("build"),
    );
    until(&mut s, 2 * SEC, is_order).await;
    server.act(
        0,
        Action::Flood {
            template: ORDER.replace("\"size_matched\":\"0\"", "\"size_matched\":\"{n}\""),
            count: 5000,
        },
    );
    // The consumer sleeps while the flood arrives.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let evs = until(&mut s, 3 * SEC, |e| {
        matches!(
            e,
            UserEvent::Status(Status::Connected {
                reconnect: true,
                ..
            })
        )
    })
    .await;
    let b = breaks(&evs);
    let lag = b
        .iter()
        .find(|b| b.cause == Cause::LocalLag)
        .unwrap_or_else(|| panic!("{b:#?}"));
    assert!(matches!(lag.lost, Lost::Count(n) if n >= 1));
    assert_eq!(lag.stream, StreamKind::User);
    // Everything delivered before the lag is in order, with no hole.
    let matched: Vec<u64> = evs
        .iter()
        .filter_map(|e| match e {
            UserEvent::Message(Item::Order(o)) => o.size_matched.map(|s| s.as_micros() / 1_000_000),
            _ => None,
        })
        .collect();
    for w in matched.windows(2) {
        assert_eq!(w[1], w[0] + 1, "a hole before the lag was reported");
    }
    until(&mut s, 2 * SEC, is_order).await;
}
