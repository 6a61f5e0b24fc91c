//! Market stream against a loopback server: subscription payloads, replay, dynamic
//! subscriptions, keepalive timing and sharding.

use crate::support::ws_server;

use std::collections::BTreeSet;
use std::time::Duration;

use polyclob::ws::event::Status;
use polyclob::ws::feed::FeedBuilder;
use polyclob::ws::market::{MarketFeed, MarketStream};
use serde_json::Value;
use ws_server::client::{Event, fixture_frames, frames, is_connected, until};
use ws_server::{Action, WsServer};

const A: &str = "71321045679252212594626385532706912750332728571942532289631379312455583992563";
const B: &str = "52114319501245915516055106046884209969926127482827954674443846427813813222426";
const SEC: Duration = Duration::from_secs(1);

fn fast(url: &str) -> FeedBuilder<MarketFeed> {
    MarketStream::builder()
        .url(url)
        .ping_interval(Duration::from_millis(50))
        .pong_timeout(Duration::from_millis(150))
        .silence_timeout(Duration::from_millis(200))
        .connect_timeout(SEC)
        .backoff(Duration::from_millis(20), Duration::from_millis(200))
        .connect_stagger(Duration::from_millis(100))
}

fn json(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("client sent invalid JSON {s:?}: {e}"))
}

fn ids(v: &Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} missing in {v}"))
        .iter()
        .map(|x| x.as_str().expect("string id").to_owned())
        .collect()
}

#[tokio::test]
async fn subscribes_with_documented_payload_and_delivers_replay_in_order() {
    let server = WsServer::start().await;
    let fixture = fixture_frames();
    server.on_subscribe(fixture.clone());
    let mut stream = fast(&server.url())
        .assets([A, B])
        .frames()
        .build()
        .expect("build");

    let count = std::cell::Cell::new(0);
    let seen = until(&mut stream, 2 * SEC, |e| {
        count.set(count.get() + usize::from(matches!(e, Event::Message(_))));
        count.get() == fixture.len()
    })
    .await;
    assert!(
        is_connected(&seen[0], false),
        "Connected comes first: {:?}",
        seen[0]
    );
    let got = frames(&seen);
    assert_eq!(got, fixture, "frames must arrive byte-exact and in order");

    let conn = server.conn(0);
    let first = json(&conn.received[0]);
    assert_eq!(
        ids(&first, "assets_ids"),
        [B, A].map(String::from),
        "sorted, all assets"
    );
    assert_eq!(first["type"], "market");
    assert_eq!(first["custom_feature_enabled"], true);
    assert_eq!(first["initial_dump"], true);
    assert_eq!(server.connections(), 1);
}

#[tokio::test]
async fn a_small_read_buffer_still_delivers_large_messages_whole() {
    // Messages from far below to far above the 1 KiB read size (the floor of the setting):
    // the large ones take many socket reads and must arrive byte-exact, in order.
    let server = WsServer::start().await;
    let sizes = [90usize, 1_023, 1_024, 1_025, 5_000, 300_000, 64];
    let frames_sent: Vec<String> = sizes
        .iter()
        .enumerate()
        .map(|(k, &n)| {
            let head = format!(r#"{{"event_type":"x","k":{k},"pad":""#);
            let pad = n.saturating_sub(head.len() + 2);
            format!(
                "{head}{}\"}}",
                "abcdefgh".repeat(pad / 8 + 1)[..pad].to_owned()
            )
        })
        .collect();
    server.on_subscribe(frames_sent.clone());
    let mut stream = fast(&server.url())
        .assets([A])
        .read_buffer_size(10)
        .frames()
        .build()
        .expect("build");
    let count = std::cell::Cell::new(0);
    let seen = until(&mut stream, 2 * SEC, |e| {
        count.set(count.get() + usize::from(matches!(e, Event::Message(_))));
        count.get() == frames_sent.len()
    })
    .await;
    assert_eq!(frames(&seen), frames_sent);
}

#[tokio::test]
async fn builder_options_change_the_payload() {
    let server = WsServer::start().await;
    let _stream = fast(&server.url())
        .assets([A])
        .custom_feature_enabled(false)
        .initial_dump(false)
        .frames()
        .build()
        .expect("build");
    assert!(
        server
            .wait_for(2 * SEC, |s| s
                .conns
                .first()
                .is_some_and(|c| !c.received.is_empty()))
            .await
    );
    let first = json(&server.conn(0).received[0]);
    assert_eq!(first["custom_feature_enabled"], false);
    assert_eq!(first["initial_dump"], false);
    assert_eq!(ids(&first, "assets_ids"), [A]);
}

#[tokio::test]
async fn dynamic_subscribe_and_unsubscribe_then_resubscribe_the_current_set() {
    let server = WsServer::start().await;
    let mut stream = fast(&server.url())
        .assets([A, B])
        .frames()
        .build()
        .expect("build");
    until(&mut stream, 2 * SEC, |e| is_connected(e, false)).await;

    stream.handle().subscribe(["C", A]).expect("subscribe"); // A is already subscribed: not resent
    stream
        .handle()
        .unsubscribe([A, "unknown"])
        .expect("unsubscribe");
    assert!(
        server
            .wait_for(2 * SEC, |s| s.conns[0].messages().len() >= 3)
            .await
    );
    let msgs = server
        .conn(0)
        .messages()
        .iter()
        .map(|m| json(m))
        .collect::<Vec<_>>();
    assert_eq!(ids(&msgs[1], "assets_ids"), ["C"]);
    assert_eq!(msgs[1]["operation"], "subscribe");
    assert_eq!(msgs[1]["custom_feature_enabled"], true);
    assert_eq!(ids(&msgs[2], "assets_ids"), [A]);
    assert_eq!(msgs[2]["operation"], "unsubscribe");
    assert_eq!(msgs.len(), 3, "nothing else sent: {msgs:?}");

    // After a reconnect the subscription is the current set: B and C, not A.
    server.act(0, Action::CloseAbrupt);
    until(&mut stream, 2 * SEC, |e| is_connected(e, true)).await;
    assert!(
        server
            .wait_for(SEC, |s| s.conns.len() == 2
                && !s.conns[1].received.is_empty())
            .await
    );
    let resub = json(&server.conn(1).received[0]);
    assert_eq!(resub["type"], "market");
    assert_eq!(ids(&resub, "assets_ids"), [B, "C"].map(String::from));
}

#[tokio::test]
async fn no_connection_and_no_ping_before_the_first_subscribe() {
    let server = WsServer::start().await;
    let mut stream = fast(&server.url()).frames().build().expect("build");
    // Six ping intervals with nothing subscribed: nothing is opened, nothing is sent.
    let quiet = ws_server::client::drain_for(&mut stream, Duration::from_millis(300)).await;
    assert!(quiet.is_empty(), "{quiet:?}");
    assert_eq!(server.connections(), 0);

    stream.handle().subscribe([A]).expect("subscribe");
    until(&mut stream, 2 * SEC, |e| is_connected(e, false)).await;
    assert!(
        server.wait_for(2 * SEC, |s| s.conns[0].pings() >= 3).await,
        "pings start after subscribe"
    );
    let conn = server.conn(0);
    assert_ne!(conn.received[0], "PING", "the subscribe comes first");
    assert_eq!(json(&conn.received[0])["type"], "market");
    // Pings are spaced by the interval (50 ms), not sent in a burst.
    for w in conn.pings_at.windows(2) {
        let gap = w[1] - w[0];
        assert!(gap >= Duration::from_millis(40), "pings {gap:?} apart");
    }
}

#[tokio::test]
async fn pongs_keep_a_quiet_connection_alive() {
    let server = WsServer::start().await;
    let mut stream = fast(&server.url())
        .assets([A])
        .frames()
        .build()
        .expect("build");
    until(&mut stream, 2 * SEC, |e| is_connected(e, false)).await;
    // 4× the silence timeout with no data, only PING/PONG: must stay up.
    let events = ws_server::client::drain_for(&mut stream, Duration::from_millis(800)).await;
    assert!(
        events.is_empty(),
        "PONGs must be filtered and the connection kept: {events:?}"
    );
    assert_eq!(server.connections(), 1);
    assert!(
        server.conn(0).pings() >= 8,
        "pings: {}",
        server.conn(0).pings()
    );
    assert!(!server.conn(0).closed);
}

#[tokio::test]
async fn shards_at_most_200_assets_with_staggered_connects() {
    let server = WsServer::start().await;
    let all: Vec<String> = (0..450).map(|i| format!("{i:077}")).collect();
    let t0 = tokio::time::Instant::now();
    let mut stream = fast(&server.url())
        .assets(all.clone())
        .frames()
        .build()
        .expect("build");
    let handle = stream.handle();
    assert_eq!(handle.shard_count(), 3);

    until(&mut stream, 3 * SEC, |e| {
        matches!(e, Event::Status(Status::Connected { shard: 2, .. }))
    })
    .await;
    assert!(
        server
            .wait_for(2 * SEC, |s| s.conns.len() == 3
                && s.conns.iter().all(|c| !c.received.is_empty()))
            .await
    );
    let mut union = BTreeSet::new();
    for k in 0..3 {
        let conn = server.conn(k);
        let sub = ids(&json(&conn.received[0]), "assets_ids");
        assert!(sub.len() <= 200, "connection {k} carries {}", sub.len());
        for id in sub {
            assert!(union.insert(id), "an asset is on two connections");
        }
    }
    assert_eq!(union, all.iter().cloned().collect::<BTreeSet<_>>());

    // The k-th connect is not made before k staggers (100 ms) after the build. Measured from
    // the build, not between two connects: a connect a loaded machine delays shortens the gap
    // to the next one without any connect having come early.
    let opened: Vec<_> = (0..3).map(|k| server.conn(k).opened_at).collect();
    let mut sorted = opened.clone();
    sorted.sort();
    for (k, at) in sorted.iter().enumerate() {
        assert!(
            *at - t0 >= Duration::from_millis(100) * k as u32,
            "connects not staggered: connect {k} after {:?}",
            *at - t0
        );
    }

    // Ten more assets fill the last shard (50 → 60) instead of opening a fourth.
    let more: Vec<String> = (450..460).map(|i| format!("{i:077}")).collect();
    stream.handle().subscribe(more.clone()).expect("subscribe");
    assert_eq!(handle.shard_count(), 3);
    let assignment = handle.assignment();
    assert_eq!(
        assignment.iter().map(Vec::len).collect::<Vec<_>>(),
        [200, 200, 60]
    );
    // And 150 more overflow into a new shard.
    stream
        .handle()
        .subscribe((460..610).map(|i| format!("{i:077}")))
        .expect("subscribe");
    let sizes: Vec<_> = handle.assignment().iter().map(Vec::len).collect();
    assert_eq!(sizes, [200, 200, 200, 10]);
    assert!(server.wait_for(3 * SEC, |s| s.conns.len() == 4).await);
}

#[tokio::test]
async fn per_connection_limit_is_capped_at_200() {
    let server = WsServer::start().await;
    let stream = fast(&server.url())
        .assets_per_connection(10_000)
        .assets((0..201).map(|i| i.to_string()))
        .frames()
        .build()
        .expect("build");
    assert_eq!(
        stream
            .handle()
            .assignment()
            .iter()
            .map(Vec::len)
            .collect::<Vec<_>>(),
        [200, 1]
    );
}

#[tokio::test]
async fn build_rejects_bad_settings() {
    use polyclob::ws::BuildError;
    let err = |b: FeedBuilder<MarketFeed>| b.build().expect_err("must fail");
    assert_eq!(
        err(MarketStream::builder().url("http://x/")),
        BuildError::InvalidUrl
    );
    assert!(matches!(
        err(MarketStream::builder()
            .ping_interval(SEC)
            .silence_timeout(SEC)),
        BuildError::Invalid(_)
    ));
    assert!(matches!(
        err(MarketStream::builder().queue_capacity(0)),
        BuildError::Invalid(_)
    ));
}

#[test]
fn build_outside_a_runtime_is_an_error() {
    let err = MarketStream::builder().build().expect_err("no runtime");
    assert_eq!(err, polyclob::ws::BuildError::NoRuntime);
}
