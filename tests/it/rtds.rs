//! RTDS: the captures and the documented message formats decode; the stream survives the
//! same faults as the market stream (abrupt close, silence, garbage, close 1008, refused
//! connects), resubscribing everything after each reconnect; lag is reported.

use crate::support::fixtures;
use crate::support::trust_oracle::Checked;
use crate::support::ws_server;

use std::time::Duration;

use polyclob::rtds::decode::{Payload, PriceSource, decode, decode_bytes};
use polyclob::rtds::{ActivityFilter, OwnedMessage, RefPrice, RtdsFeed, RtdsStream, Subscription};
use polyclob::types::Side;
use polyclob::ws::event::Status;
use polyclob::ws::event::{ConnectError, Disconnect};
use polyclob::ws::feed::{FeedBuilder, FeedEvent};
use tokio::time::Instant;

type RtdsEvent = FeedEvent<OwnedMessage>;
const BTC: (&str, &str) = ("crypto_prices", "btcusdt");
use ws_server::client::until;
use ws_server::{Action, WsServer};

const SEC: Duration = Duration::from_secs(1);

// ---- decoding ----------------------------------------------------------------------------

#[test]
fn captured_rtds_messages_decode() {
    let dir = "polymarket/nautilus_test_data";
    let Some(path) = fixtures::shared(dir) else {
        return;
    };
    let mut seen = 0;
    let mut names: Vec<_> = std::fs::read_dir(&path)
        .expect("list fixtures")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("rtds_") && n.ends_with(".json"))
        .collect();
    names.sort();
    for name in &names {
        let bytes = std::fs::read(path.join(name)).expect("read fixture");
        let msg = decode_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let oracle: serde_json::Value = serde_json::from_slice(&bytes).expect("json");
        assert_eq!(msg.topic, oracle["topic"], "{name}");
        assert_eq!(msg.kind, oracle["type"], "{name}");
        assert_eq!(msg.timestamp_ms, oracle["timestamp"].as_u64(), "{name}");
        let payload = &oracle["payload"];
        match msg.payload {
            Payload::Price(p) => {
                assert_eq!(p.symbol, payload["symbol"], "{name}");
                assert_eq!(p.timestamp_ms, payload["timestamp"].as_u64(), "{name}");
                // The float `value` and our fixed-point agree to the float's precision.
                let v = payload["value"].as_f64().expect("value");
                let ours = p.value.expect("value").to_string();
                assert_eq!(ours.parse::<f64>().expect("f64"), v, "{name}");
                if let Some(exact) = payload["full_accuracy_value"].as_str() {
                    let want = if p.source == PriceSource::ChainlinkTwap {
                        RefPrice::from_e18(exact.parse().expect("e18"))
                    } else {
                        exact.parse().expect("decimal")
                    };
                    assert_eq!(p.price, want, "{name}: the exact value wins");
                }
            }
            Payload::PriceHistory(h) => {
                assert_eq!(h.symbol, payload["symbol"], "{name}");
                let points: Vec<_> = h.points.collect::<Result<_, _>>().expect("points");
                let data = payload["data"].as_array().expect("data");
                assert_eq!(points.len(), data.len(), "{name}: no point lost");
                for (p, d) in points.iter().zip(data) {
                    assert_eq!(Some(p.timestamp_ms), d["timestamp"].as_u64());
                    let v: f64 = p.value.to_string().parse().expect("f64");
                    assert_eq!(Some(v), d["value"].as_f64());
                }
            }
            other => panic!("{name}: unexpected payload {other:?}"),
        }
        seen += 1;
    }
    assert!(
        seen >= 5,
        "expected the five rtds_* captures, found {names:?}"
    );
}

/// Our own fixtures, written from the formats the RTDS page and the real-time-data-client
/// README document (one message per line).
#[test]
fn documented_formats_decode() {
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/rtds_documented.jsonl"
    ));
    let msgs: Vec<_> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| decode(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    let mut kinds = Vec::new();
    for m in &msgs {
        match m.payload {
            Payload::Price(p) => kinds.push(format!("{:?}:{}={}", p.source, p.symbol, p.price)),
            Payload::PriceHistory(h) => kinds.push(format!(
                "history:{}:{}",
                h.symbol,
                h.points.filter(Result::is_ok).count()
            )),
            Payload::Trade(t) => {
                assert_eq!(t.side, Side::Buy);
                kinds.push(format!("trade:{}@{}x{}", t.asset, t.price, t.size));
            }
            Payload::Comment(c) => kinds.push(format!("comment:{}", c.id)),
            Payload::Reaction(r) => kinds.push(format!("reaction:{}", r.id)),
            Payload::Other(o) => kinds.push(format!("other:{o}")),
            _ => kinds.push("?".into()),
        }
    }
    assert_eq!(
        kinds,
        [
            "Binance:solusdt=189.55",
            "Binance:btcusdt=67234.5",
            "Chainlink:btc/usd=67234.50322",
            "Chainlink:eth/usd=3520.12",
            "ChainlinkTwap:btc/usd=64997.81",
            "Equity:AAPL=198.4523",
            "history:btcusdt:2",
            "trade:71321045679252212594626385532706912750332728571942532289631379312455583992563@0.57x10",
            "comment:1763355",
            "reaction:4405",
            "other:{\"anything\":true}",
        ]
    );
}

// ---- the stream under faults -------------------------------------------------------------

fn replay() -> Vec<String> {
    vec![
        r#"{"topic":"crypto_prices","type":"update","timestamp":1753314064237,"payload":{"symbol":"btcusdt","timestamp":1753314064213,"value":67234.5}}"#.into(),
        r#"{"topic":"activity","type":"orders_matched","timestamp":1753314064300,"payload":{"asset":"7","conditionId":"0x1","price":0.57,"side":"SELL","size":3,"timestamp":1753314064}}"#.into(),
    ]
}

fn fast(url: &str) -> FeedBuilder<RtdsFeed> {
    RtdsStream::builder()
        .url(url)
        .subscribe(Subscription::crypto_prices(["btcusdt"]))
        .subscribe(Subscription::orders_matched(ActivityFilter::All))
        .ping_interval(Duration::from_millis(50))
        .pong_timeout(Duration::from_millis(150))
        .silence_timeout(Duration::from_millis(200))
        .connect_timeout(SEC)
        .backoff(Duration::from_millis(20), Duration::from_millis(200))
}

fn messages(events: &[RtdsEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            RtdsEvent::Message(m) => Some(m.frame().as_str().unwrap_or("").to_owned()),
            _ => None,
        })
        .collect()
}

fn statuses(events: &[RtdsEvent]) -> Vec<Status> {
    events
        .iter()
        .filter_map(|e| match e {
            RtdsEvent::Status(s) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

fn disconnect_reason(events: &[RtdsEvent]) -> Disconnect {
    statuses(events)
        .into_iter()
        .find_map(|s| match s {
            Status::Disconnected { reason, .. } => Some(reason),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no Disconnected in {events:#?}"))
}

fn is_connected(e: &RtdsEvent, reconnect: bool) -> bool {
    matches!(e, RtdsEvent::Status(Status::Connected { reconnect: r, .. }) if *r == reconnect)
}

async fn n_messages(s: &mut Checked<RtdsFeed>, n: usize) -> Vec<RtdsEvent> {
    let mut k = 0;
    until(s, 2 * SEC, |e| {
        k += usize::from(matches!(e, RtdsEvent::Message(_)));
        k == n
    })
    .await
}

/// The first message of connection `k` subscribes both topics in one request.
fn assert_subscribed(server: &WsServer, k: usize) {
    let conn = server.conn(k);
    let sub: serde_json::Value = serde_json::from_str(&conn.received[0]).expect("json");
    assert_eq!(sub["action"], "subscribe");
    let topics: Vec<&str> = sub["subscriptions"]
        .as_array()
        .expect("subscriptions")
        .iter()
        .map(|s| s["topic"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(topics, ["activity", "crypto_prices"], "{sub}");
    assert_eq!(sub["subscriptions"][1]["filters"], "btcusdt");
}

async fn started(server: &WsServer) -> Checked<RtdsFeed> {
    server.on_subscribe(replay());
    let mut stream = Checked::new(fast(&server.url()).build().expect("build"));
    let events = n_messages(&mut stream, replay().len()).await;
    assert_eq!(messages(&events), replay());
    assert_subscribed(server, 0);
    stream
}

/// After a failure: reported, reconnected within `bound`, resubscribed, replayed again.
async fn assert_recovers(
    server: &WsServer,
    stream: &mut Checked<RtdsFeed>,
    bound: Duration,
) -> Vec<RtdsEvent> {
    let before = server.connections();
    let t0 = Instant::now();
    let events = until(stream, bound, |e| is_connected(e, true)).await;
    assert!(t0.elapsed() <= bound);
    let again = n_messages(stream, replay().len()).await;
    assert_eq!(messages(&again), replay(), "fresh replay after reconnect");
    assert!(server.connections() > before);
    assert_subscribed(server, server.connections() - 1);
    events
}

#[tokio::test]
async fn pings_every_interval_and_decodes_what_arrives() {
    let server = WsServer::start().await;
    let mut stream = started(&server).await;
    // PINGs keep coming, spaced by the interval: four take at least three intervals (less
    // some delivery jitter); timers fire late under load, never early.
    assert!(
        server
            .wait_for(2 * SEC, |s| s.conns[0].pings_at.len() >= 4)
            .await
    );
    let at = server.conn(0).pings_at;
    assert!(at[3] - at[0] >= Duration::from_millis(100), "{at:?}");
    server.act(0, Action::Text(replay()[1].clone()));
    let ev = n_messages(&mut stream, 1).await;
    let Some(RtdsEvent::Message(m)) = ev.last() else {
        panic!()
    };
    let Payload::Trade(t) = m.message().expect("decodes").payload else {
        panic!()
    };
    assert_eq!(
        (t.asset, t.side, t.price.as_micros()),
        ("7", Side::Sell, 570_000)
    );
}

#[test]
fn the_default_ping_interval_is_the_documented_five_seconds() {
    let b = format!("{:?}", RtdsStream::builder());
    assert!(b.contains("ping_interval: 5s"), "{b}");
    assert!(b.contains("wss://ws-live-data.polymarket.com"), "{b}");
}

fn last_message(events: Vec<RtdsEvent>) -> polyclob::rtds::OwnedMessage {
    match events.into_iter().last() {
        Some(RtdsEvent::Message(m)) => m,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn abrupt_close_reconnects_and_resubscribes() {
    let server = WsServer::start().await;
    let mut stream = started(&server).await;
    server.act(0, Action::Text(replay()[0].clone()));
    last_message(n_messages(&mut stream, 1).await);
    assert!(stream.trust(BTC).is_trusted());
    server.act(0, Action::CloseAbrupt);
    let mut events = until(&mut stream, SEC, |e| matches!(e, RtdsEvent::Break(_))).await;
    // What a bot kept from before the break is untrusted from the break on.
    assert!(!stream.trust(BTC).is_trusted());
    events.extend(assert_recovers(&server, &mut stream, SEC).await);
    assert!(
        matches!(
            disconnect_reason(&events),
            Disconnect::Eof | Disconnect::Io(_)
        ),
        "{events:#?}"
    );
    // The symbol's next price on the new connection re-establishes it.
    server.act_last(Action::Text(replay()[0].clone()));
    last_message(n_messages(&mut stream, 1).await);
    assert!(stream.trust(BTC).is_trusted());
}

#[tokio::test]
async fn silent_half_open_connection_is_detected() {
    let server = WsServer::start().await;
    let mut stream = started(&server).await;
    let t0 = Instant::now();
    server.act(0, Action::GoSilent);
    let events = until(&mut stream, 2 * SEC, |e| {
        matches!(e, RtdsEvent::Status(Status::Disconnected { .. }))
    })
    .await;
    assert!(
        matches!(
            disconnect_reason(&events),
            Disconnect::Silence | Disconnect::PongTimeout
        ),
        "{events:#?}"
    );
    assert!(
        t0.elapsed() <= Duration::from_millis(600),
        "{:?}",
        t0.elapsed()
    );
    assert_recovers(&server, &mut stream, SEC).await;
}

#[tokio::test]
async fn garbage_is_reported_without_breaking_the_connection() {
    let server = WsServer::start().await;
    let mut stream = started(&server).await;
    for bad in [
        "this is not json {",
        "",
        "[1,2,",
        r#"{"type":"update"}"#,
        "PING",
    ] {
        server.act(0, Action::Text(bad.into()));
    }
    server.act(0, Action::Text(replay()[0].clone()));
    let events = n_messages(&mut stream, 1).await;
    let invalid: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            RtdsEvent::Invalid { error, .. } => Some(error.kind()),
            _ => None,
        })
        .collect();
    assert_eq!(invalid.len(), 5, "{events:#?}");
    assert!(statuses(&events).is_empty(), "no disconnect: {events:#?}");
    assert_eq!(server.connections(), 1);
}

#[tokio::test]
async fn invalid_utf8_is_a_protocol_error_and_recovers() {
    let server = WsServer::start().await;
    let mut stream = started(&server).await;
    server.act(0, Action::InvalidUtf8);
    let events = assert_recovers(&server, &mut stream, SEC).await;
    assert_eq!(disconnect_reason(&events), Disconnect::Protocol);
}

#[tokio::test]
async fn close_1008_is_reported_with_its_code_and_recovers() {
    let server = WsServer::start().await;
    let mut stream = started(&server).await;
    server.act(0, Action::Close(1008));
    let events = assert_recovers(&server, &mut stream, SEC).await;
    assert_eq!(
        disconnect_reason(&events),
        Disconnect::Closed { code: Some(1008) }
    );
}

#[tokio::test]
async fn refused_connections_back_off_then_recover() {
    let server = WsServer::start().await;
    let mut stream = started(&server).await;
    server.stop_listening();
    server.act(0, Action::CloseAbrupt);
    let mut n = 0;
    let events = until(&mut stream, 3 * SEC, |e| {
        n += usize::from(matches!(e, RtdsEvent::Status(s) if s.connect_error().is_some()));
        n == 3
    })
    .await;
    let delays: Vec<Duration> = statuses(&events)
        .into_iter()
        .filter_map(|s| match s {
            Status::Disconnected {
                reason: Disconnect::Connect(ConnectError::Io(_)),
                retry_in,
                ..
            } => Some(retry_in),
            _ => None,
        })
        .collect();
    assert_eq!(delays.len(), 3, "{events:#?}");
    assert!(
        delays.iter().all(|d| *d <= Duration::from_millis(200)),
        "{delays:?}"
    );
    server.resume_listening().await;
    assert_recovers(&server, &mut stream, 2 * SEC).await;
}

#[tokio::test]
async fn flood_faster_than_the_consumer_reports_lag_and_resubscribes() {
    let server = WsServer::start().await;
    server.on_subscribe(replay());
    let mut stream = Checked::new(
        fast(&server.url())
            .queue_capacity(8)
            .build()
            .expect("build"),
    );
    n_messages(&mut stream, replay().len()).await;
    server.act(
        0,
        Action::Flood {
            template: r#"{"topic":"crypto_prices","type":"update","payload":{"symbol":"btcusdt","value":{n}}}"#.into(),
            count: 2_000,
        },
    );
    // Do not read while the flood arrives.
    tokio::time::sleep(Duration::from_millis(150)).await;
    let events = until(&mut stream, 2 * SEC, |e| {
        matches!(e, RtdsEvent::Status(Status::Lagged { .. }))
    })
    .await;
    let Some(RtdsEvent::Status(Status::Lagged { dropped, .. })) = events.last() else {
        panic!()
    };
    assert!(*dropped >= 1);
    assert_recovers(&server, &mut stream, SEC).await;
}

#[tokio::test]
async fn subscriptions_change_on_the_open_connection() {
    let server = WsServer::start().await;
    let mut stream = started(&server).await;
    let eq = Subscription::equity_prices(Some("AAPL"));
    stream.handle().subscribe([eq.clone()]).expect("open");
    stream
        .handle()
        .unsubscribe([Subscription::crypto_prices(["btcusdt"])])
        .expect("open");
    assert!(
        server
            .wait_for(SEC, |s| s.conns[0]
                .received
                .iter()
                .filter(|m| m.contains("action"))
                .count()
                == 3)
            .await
    );
    let conn = server.conn(0);
    let msgs: Vec<serde_json::Value> = conn
        .messages()
        .iter()
        .map(|m| serde_json::from_str(m).expect("json"))
        .collect();
    assert_eq!(msgs[1]["action"], "subscribe");
    assert_eq!(msgs[1]["subscriptions"][0]["topic"], "equity_prices");
    assert_eq!(msgs[2]["action"], "unsubscribe");
    assert_eq!(msgs[2]["subscriptions"][0]["topic"], "crypto_prices");
    // A reconnect re-sends exactly what is active now.
    stream.handle().reconnect(None).expect("open");
    until(&mut stream, SEC, |e| is_connected(e, true)).await;
    assert!(
        server
            .wait_for(SEC, |s| s.conns.len() == 2
                && !s.conns[1].received.is_empty())
            .await
    );
    let sub: serde_json::Value = serde_json::from_str(&server.conn(1).received[0]).expect("json");
    let topics: Vec<&str> = sub["subscriptions"]
        .as_array()
        .expect("array")
        .iter()
        .map(|s| s["topic"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(topics, ["activity", "equity_prices"]);
}

#[tokio::test]
async fn zero_copy_handler_tier_sees_decoded_messages() {
    use polyclob::rtds::decode::Message;
    use polyclob::ws::feed::{Cx, Handler};

    #[derive(Default)]
    struct H {
        prices: Vec<String>,
        trades: usize,
        invalid: usize,
    }
    impl Handler<RtdsFeed> for H {
        fn on_message(&mut self, msg: &Message<'_>, _: &Cx<'_, RtdsFeed>) {
            match msg.payload {
                Payload::Price(p) => self.prices.push(p.price.to_string()),
                Payload::Trade(_) => self.trades += 1,
                _ => {}
            }
        }
        fn on_invalid(&mut self, _: &polyclob::decode::DecodeError, _: &Cx<'_, RtdsFeed>) {
            self.invalid += 1;
        }
    }
    let server = WsServer::start().await;
    server.on_subscribe(replay());
    let mut stream = Checked::new(fast(&server.url()).build().expect("build"));
    let mut h = H::default();
    let deadline = Instant::now() + 2 * SEC;
    while h.prices.len() + h.trades < 2 && Instant::now() < deadline {
        assert!(stream.dispatch(&mut h).await);
    }
    server.act(0, Action::Text("nope".into()));
    while h.invalid == 0 && Instant::now() < deadline {
        assert!(stream.dispatch(&mut h).await);
    }
    assert_eq!(
        (h.prices, h.trades, h.invalid),
        (vec!["67234.5".to_owned()], 1, 1)
    );
}

/// Every documented message cut at every byte, and with bytes overwritten by JSON-significant
/// ones, decodes or fails with a typed error: never a panic, and whatever decodes decodes the
/// same way from its own JSON. (The fuzz target `rtds_decode` does this without end.)
#[test]
fn truncated_and_mutated_messages_never_panic() {
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/rtds_documented.jsonl"
    ));
    let specials = [
        b'"', b'\\', b'{', b'}', b'[', b']', b':', b',', b'-', b'e', b'.', b'0', 0xff,
    ];
    let mut decoded = 0usize;
    let mut check = |bytes: &[u8]| {
        if let Ok(m) = decode_bytes(bytes) {
            decoded += 1;
            if let Payload::PriceHistory(h) = m.payload {
                h.points.for_each(drop);
            }
            let again = decode(m.json).expect("own JSON decodes");
            assert_eq!((again.topic, again.kind), (m.topic, m.kind));
        }
    };
    for line in text.lines().filter(|l| !l.is_empty()) {
        let b = line.as_bytes();
        for cut in 0..b.len() {
            check(&b[..cut]);
        }
        for i in 0..b.len() {
            for &s in &specials {
                let mut m = b.to_vec();
                m[i] = s;
                check(&m);
            }
        }
    }
    assert!(decoded > 1000, "mutations that still decode: {decoded}");
}
