//! The feed machine's findings (issue 48), against loopback servers that misbehave on purpose:
//! a book that is not live is not shown, trust is per key, the backoff escalates across
//! breaks of any kind (at most one reconnect per step under sustained loss), every end the
//! client chooses sends a Close frame, a stalled reference price goes stale, and a consumer
//! that does slow work between items reads current books and is told it lagged. Every feed is
//! checked against the trust oracle after every item.

use crate::support::trust_oracle::Checked;
use crate::support::ws_server;

use std::time::Duration;

use futures_util::StreamExt;
use polyclob::book::BookState;
use polyclob::clob::Credentials;
use polyclob::polybolt::{BoltFeed, BoltSubscription, Channel, OwnedBoltMessage, PolyBoltStream};
use polyclob::ws::continuity::{Cause, Recovery};
use polyclob::ws::event::Disconnect;
use polyclob::ws::event::Status;
use polyclob::ws::feed::{Cx, FeedBuilder, FeedEvent, Handler};
use polyclob::ws::market::{MarketEvent, MarketFeed, MarketStream};
use polyclob::ws::trust::Trust;
use tokio::time::Instant;
use ws_server::client::{fixture_frames, until};
use ws_server::{Action, WsServer};

const A: &str = "71321045679252212594626385532706912750332728571942532289631379312455583992563";
const B: &str = "52114319501245915516055106046884209969926127482827954674443846427813813222426";
const SEC: Duration = Duration::from_secs(1);
const MS: Duration = Duration::from_millis(1);

fn market(url: &str) -> FeedBuilder<MarketFeed> {
    MarketStream::builder()
        .url(url)
        .assets([A, B])
        .ping_interval(50 * MS)
        .pong_timeout(150 * MS)
        .silence_timeout(200 * MS)
        .connect_timeout(SEC)
        .backoff(20 * MS, 200 * MS)
}

fn is_tick_change(ev: &FeedEvent<MarketEvent>) -> bool {
    matches!(ev, FeedEvent::Message(MarketEvent::Update { event, .. }) if event.json().contains("tick_size_change"))
}

/// Finding (market): after a break `levels()` and `best_bid()` still returned the old levels
/// unless the bot thought of checking `state()`. Now `book()` shows only live books.
#[tokio::test]
async fn a_book_that_is_not_live_is_not_shown() {
    let server = WsServer::start().await;
    server.on_subscribe(fixture_frames());
    let mut books = Checked::new(market(&server.url()).build().expect("build"));
    until(&mut books, 2 * SEC, is_tick_change).await;
    // B got its snapshot; A's tick size changed after its snapshot: it awaits a new one.
    assert!(
        books
            .state()
            .book(B)
            .is_some_and(|b| b.best_bid().is_some())
    );
    assert_eq!(books.trust(B), Trust::Trusted);
    assert!(books.state().book(A).is_none());
    assert_eq!(books.trust(A), Trust::AwaitingSnapshot);

    // The next connection sends nothing: every book stays not live.
    server.on_subscribe(Vec::new());
    server.act(0, Action::CloseAbrupt);
    until(&mut books, 2 * SEC, |e| {
        matches!(
            e,
            FeedEvent::Status(Status::Connected {
                reconnect: true,
                ..
            })
        )
    })
    .await;
    assert!(
        books.state().book(B).is_none(),
        "no read of old levels after a break"
    );
    assert_eq!(books.trust(B), Trust::AwaitingSnapshot);
    let old = books.state().book_unchecked(B).expect("kept, for display");
    assert_eq!(old.state(), BookState::AwaitingSnapshot);
    assert!(
        old.best_bid().is_some(),
        "the old levels are still there, unchecked"
    );
    assert_eq!(books.state().books().count(), 0);
    assert!(
        books.oracle.trusted_seen > 0,
        "the oracle saw trusted keys to check"
    );
}

/// Finding (every feed): a reconnect the client chose dropped TCP without a Close frame.
#[tokio::test]
async fn every_end_the_client_chooses_sends_a_close_frame() {
    let server = WsServer::start().await;
    server.on_subscribe(fixture_frames());
    let mut books = Checked::new(market(&server.url()).build().expect("build"));
    until(&mut books, 2 * SEC, is_tick_change).await;
    // Requested.
    books.handle().reconnect(None).expect("reconnect");
    assert!(server.wait_for(2 * SEC, |s| s.conns.len() == 2).await);
    assert_eq!(server.conn(0).close_received, Some(1000));
    // Silence (the server stops sending and answering, the socket stays open).
    until(&mut books, 2 * SEC, is_tick_change).await;
    server.act(1, Action::GoSilent);
    assert!(server.wait_for(2 * SEC, |s| s.conns.len() == 3).await);
    assert_eq!(server.conn(1).close_received, Some(1000));
    // Shutdown.
    until(&mut books, 2 * SEC, is_tick_change).await;
    books.handle().shutdown();
    assert!(server.wait_for(2 * SEC, |s| s.conns[2].closed).await);
    assert_eq!(server.conn(2).close_received, Some(1000));
}

const AUTHED: &str = r#"{"op":"authed","rid":"auth"}"#;

fn snapshot(symbol: &str, seq: u64) -> String {
    format!(
        r#"{{"v":1,"channel":"price.crypto","seq":{seq},"ts":1788973000000,"snapshot":true,"payload":{{"symbol":"{symbol}","data":[{{"timestamp":1788972880000,"value":1.5,"full_accuracy_value":"1.5"}}]}}}}"#
    )
}

fn update(symbol: &str, seq: u64, dropped: u64) -> String {
    format!(
        r#"{{"v":1,"channel":"price.crypto","seq":{seq},"ts":1788973001000,"dropped":{dropped},"payload":{{"symbol":"{symbol}","full_accuracy_value":"2.5","timestamp":1788973001000}}}}"#
    )
}

fn bolt(s: &WsServer, symbols: &[&str]) -> FeedBuilder<BoltFeed> {
    symbols.iter().fold(
        PolyBoltStream::builder()
            .url(s.url())
            .no_proxy()
            .credentials(Credentials::new("key-1", "c2VjcmV0", "pass-1"))
            .backoff(50 * MS, 400 * MS),
        |b, sym| b.subscribe(BoltSubscription::crypto(sym)),
    )
}

type BoltEvent = FeedEvent<OwnedBoltMessage>;

fn is_snapshot_of(ev: &BoltEvent, symbol: &str) -> bool {
    matches!(ev, FeedEvent::Message(m) if m.frame().as_str().is_some_and(|t| t.contains("\"snapshot\":true") && t.contains(symbol)))
}

/// What a handler sees of one key's trust, inside the callback.
#[derive(Default)]
struct Seen(Vec<(String, Trust)>);

impl Handler<BoltFeed> for Seen {
    fn on_message(
        &mut self,
        msg: &polyclob::polybolt::decode::BoltMessage<'_>,
        cx: &Cx<'_, BoltFeed>,
    ) {
        if let polyclob::polybolt::decode::BoltMessage::Data(env) = msg {
            if let polyclob::polybolt::decode::BoltPayload::Snapshot(s) = env.payload {
                self.0
                    .push((s.symbol.to_owned(), cx.trust((Channel::Crypto, "ethusd"))));
            }
        }
    }
}

/// Finding (PolyBolt): `is_trusted(Channel)` turned true at a channel's *first* snapshot after
/// a reconnect while its other symbols still held pre-break prices. Trust is per key now, in
/// the owned tier and inside callbacks.
#[tokio::test]
async fn trust_is_per_key_after_a_break() {
    let s = WsServer::start().await;
    s.reply_to(r#""op":"auth""#, vec![AUTHED.to_owned()]);
    s.reply_to(
        r#""op":"subscribe""#,
        vec![snapshot("btcusd", 1), snapshot("ethusd", 2)],
    );
    let mut stream = Checked::new(bolt(&s, &["btcusd", "ethusd"]).build().unwrap());
    until(&mut stream, 5 * SEC, |e| is_snapshot_of(e, "ethusd")).await;
    assert!(stream.trust((Channel::Crypto, "btcusd")).is_trusted());
    assert!(stream.trust((Channel::Crypto, "ethusd")).is_trusted());

    // After a break the server sends btc's snapshot only; eth's comes later.
    s.clear_replies();
    s.reply_to(r#""op":"auth""#, vec![AUTHED.to_owned()]);
    s.reply_to(r#""op":"subscribe""#, vec![snapshot("btcusd", 1)]);
    s.act(0, Action::CloseAbrupt);
    until(&mut stream, 5 * SEC, |e| is_snapshot_of(e, "btcusd")).await;
    assert!(stream.trust((Channel::Crypto, "btcusd")).is_trusted());
    assert_eq!(
        stream.trust((Channel::Crypto, "ethusd")),
        Trust::AwaitingSnapshot,
        "eth's pre-break price is not trusted at btc's snapshot"
    );
    // The handler tier answers the same, per key, inside the callback.
    let mut seen = Seen::default();
    s.act(1, Action::Text(snapshot("btcusd", 2)));
    s.act(1, Action::Text(snapshot("ethusd", 3)));
    while seen.0.len() < 2 {
        assert!(
            tokio::time::timeout(5 * SEC, stream.dispatch(&mut seen))
                .await
                .unwrap()
        );
    }
    assert_eq!(
        seen.0,
        [
            ("btcusd".to_owned(), Trust::AwaitingSnapshot),
            ("ethusd".to_owned(), Trust::Trusted)
        ]
    );
}

/// Finding (PolyBolt): sequence gaps and `dropped` reconnected at once, however often they
/// recurred (7 reconnects a second under sustained loss). Now every loss takes one backoff
/// step: the first after a healthy period is immediate, the next ones wait, and each
/// reconnect uses its own step.
#[tokio::test]
async fn sustained_loss_makes_at_most_one_reconnect_per_backoff_step() {
    let s = WsServer::start().await;
    s.reply_to(r#""op":"auth""#, vec![AUTHED.to_owned()]);
    // Every connection loses frames right after its snapshot.
    s.reply_to(
        r#""op":"subscribe""#,
        vec![snapshot("btcusd", 1), update("btcusd", 5, 0)],
    );
    let mut stream = Checked::new(bolt(&s, &["btcusd"]).build().unwrap());
    let t0 = Instant::now();
    let mut steps = Vec::new();
    let mut waited = Duration::ZERO;
    let mut losses = 0;
    while t0.elapsed() < 2 * SEC {
        match tokio::time::timeout(5 * SEC, stream.next())
            .await
            .unwrap()
            .unwrap()
        {
            FeedEvent::Break(b) => {
                assert!(matches!(b.cause, Cause::SequenceGap { .. }), "{b:?}");
                assert_eq!(b.recovery, Recovery::Resnapshot);
                losses += 1;
            }
            FeedEvent::Status(Status::Disconnected {
                reason,
                retry_in,
                step,
                ..
            }) => {
                assert_eq!(reason, Disconnect::Resnapshot);
                steps.push(step);
                waited += retry_in;
            }
            _ => {}
        }
    }
    let connections = s.connections();
    // One step per loss: 0, 1, 2 … (the cap is a ceiling on the delay, not on the count).
    assert!(steps.len() >= 3, "{steps:?}");
    assert_eq!(steps, (0..steps.len() as u32).collect::<Vec<_>>());
    assert!(
        losses >= steps.len() && losses <= steps.len() + 1,
        "{losses} losses, {steps:?}"
    );
    assert!(
        connections <= steps.len() + 1,
        "{connections} connections for {} steps",
        steps.len()
    );
    // The stream waited the delays it reported: reconnects are not a storm.
    assert!(waited <= t0.elapsed(), "{waited:?}");
    assert!(
        connections < 20,
        "a reconnect storm: {connections} connections in 2 s"
    );
}

/// Finding (PolyBolt): repeated 4002 after data never escalated (the backoff reset on any
/// data). Now the steps grow across breaks of any kind and reset only after a connection stayed
/// up, unbroken, for the healthy period.
#[tokio::test]
async fn repeated_4002_after_data_escalates_until_a_healthy_period() {
    let s = WsServer::start().await;
    s.reply_to(r#""op":"auth""#, vec![AUTHED.to_owned()]);
    s.reply_to(r#""op":"subscribe""#, vec![snapshot("btcusd", 1)]);
    let mut stream = Checked::new(
        bolt(&s, &["btcusd"])
            .backoff(10 * MS, 80 * MS)
            .healthy_after(300 * MS)
            .build()
            .unwrap(),
    );
    let mut steps = Vec::new();
    for k in 0..4 {
        until(&mut stream, 5 * SEC, |e| is_snapshot_of(e, "btcusd")).await;
        s.act(k, Action::Close(4002));
        let evs = until(&mut stream, 5 * SEC, |e| {
            matches!(e, FeedEvent::Status(Status::Disconnected { .. }))
        })
        .await;
        let Some(FeedEvent::Status(Status::Disconnected { step, reason, .. })) = evs.last() else {
            unreachable!()
        };
        assert_eq!(*reason, Disconnect::Closed { code: Some(4002) });
        steps.push(*step);
    }
    assert_eq!(steps, [0, 1, 2, 3], "each 4002 after data is one more step");
    // A connection that stays up for the healthy period starts the steps over.
    until(&mut stream, 5 * SEC, |e| is_snapshot_of(e, "btcusd")).await;
    tokio::time::sleep(400 * MS).await;
    s.act(4, Action::Close(4002));
    let evs = until(&mut stream, 5 * SEC, |e| {
        matches!(e, FeedEvent::Status(Status::Disconnected { .. }))
    })
    .await;
    assert!(
        matches!(
            evs.last(),
            Some(FeedEvent::Status(Status::Disconnected { step: 0, .. }))
        ),
        "{evs:?}"
    );
}

/// Finding (PolyBolt): with the default timeouts a silent stall kept every channel trusted for
/// 30 s while reference prices tick several times a second. A key without an update for its
/// channel's bound is stale, and the connection is replaced when its pings go unanswered.
#[tokio::test]
async fn a_silent_stall_makes_prices_stale_then_replaces_the_connection() {
    let s = WsServer::start().await;
    s.reply_to(r#""op":"auth""#, vec![AUTHED.to_owned()]);
    s.reply_to(r#""op":"subscribe""#, vec![snapshot("btcusd", 1)]);
    let mut stream = Checked::new(
        bolt(&s, &["btcusd"])
            .stale_after(Channel::Crypto, Some(50 * MS))
            .ping_interval(200 * MS)
            .pong_timeout(200 * MS)
            .build()
            .unwrap(),
    );
    until(&mut stream, 5 * SEC, |e| is_snapshot_of(e, "btcusd")).await;
    let btc = (Channel::Crypto, "btcusd");
    assert!(stream.trust(btc).is_trusted());
    let t0 = Instant::now();
    s.act(0, Action::GoSilent);
    tokio::time::sleep(100 * MS).await;
    assert!(
        matches!(stream.trust(btc), Trust::Stale { .. }),
        "{:?}",
        stream.trust(btc)
    );
    let evs = until(&mut stream, 2 * SEC, |e| matches!(e, FeedEvent::Break(_))).await;
    let Some(FeedEvent::Break(b)) = evs.last() else {
        unreachable!()
    };
    assert!(matches!(
        b.cause,
        Cause::Disconnected(Disconnect::PongTimeout | Disconnect::Silence)
    ));
    // Ping interval + pong timeout (+ scheduling slack).
    assert!(t0.elapsed() <= 700 * MS, "{:?}", t0.elapsed());
}

/// Finding (market): a bot that awaits REST calls between `next()` calls fell behind the feed
/// (its book several cents stale) and the owned stream had no latest-state mode and no lag
/// event. With `conflate(true)` each item is the latest of its key, the books current, and a
/// `Lag` says how far behind the consumer was.
#[tokio::test]
async fn a_conflating_consumer_reads_current_books_and_is_told_it_lagged() {
    let server = WsServer::start().await;
    server.on_subscribe(fixture_frames());
    let mut books = Checked::new(
        market(&server.url())
            .conflate(true)
            .lag_after(20 * MS)
            .build()
            .expect("build"),
    );
    until(&mut books, 2 * SEC, is_tick_change).await;
    // 200 deltas of B's bid while the bot "awaits a REST call" (sleeps) between items.
    let delta = format!(
        r#"{{"event_type":"price_change","market":"0x5f65","price_changes":[{{"asset_id":"{B}","price":"0.2","size":"{{n}}","side":"BUY"}}],"timestamp":"1766789479000"}}"#
    );
    server.act(
        0,
        Action::Flood {
            template: delta,
            count: 200,
        },
    );
    let (mut items, mut lag) = (0, None);
    let bid = |books: &Checked<MarketFeed>| {
        books
            .state()
            .book(B)
            .and_then(|b| {
                b.levels(polyclob::types::Side::Buy)
                    .find(|l| l.price.as_micros() == 200_000)
            })
            .map(|l| l.size.as_micros() / 1_000_000)
    };
    while bid(&books) != Some(199) {
        let ev = tokio::time::timeout(2 * SEC, books.next())
            .await
            .unwrap()
            .unwrap();
        match ev {
            FeedEvent::Lag(l) => lag = Some(l),
            FeedEvent::Message(_) => items += 1,
            _ => {}
        }
        tokio::time::sleep(100 * MS).await; // slow work between items
    }
    assert!(
        items < 20,
        "{items} items for 200 deltas: the backlog was folded"
    );
    let lag = lag.expect("a Lag item");
    assert!(lag.behind >= 20 * MS, "{lag:?}");
    assert!(books.counters().conflated > 150, "{:?}", books.counters());
}

/// The oracle itself fails on a feed that trusts a key after a break before the key's own
/// snapshot: the items of a real session with one reconnect, replayed against a trust table
/// that trusts everything.
#[tokio::test]
#[should_panic(expected = "read as trusted although it was not re-established")]
async fn the_oracle_catches_trust_before_re_establishment() {
    use crate::support::trust_oracle::TrustOracle;
    let s = WsServer::start().await;
    s.reply_to(r#""op":"auth""#, vec![AUTHED.to_owned()]);
    s.reply_to(r#""op":"subscribe""#, vec![snapshot("btcusd", 1)]);
    let mut stream = bolt(&s, &["btcusd"]).build().unwrap();
    let mut items = until(&mut stream, 5 * SEC, |e| is_snapshot_of(e, "btcusd")).await;
    s.clear_replies(); // the next connection sends no snapshot
    s.reply_to(r#""op":"auth""#, vec![AUTHED.to_owned()]);
    s.act(0, Action::CloseAbrupt);
    items.extend(
        until(&mut stream, 5 * SEC, |e| {
            matches!(
                e,
                FeedEvent::Status(Status::Connected {
                    reconnect: true,
                    ..
                })
            )
        })
        .await,
    );
    s.act(1, Action::Close(4002));
    items.extend(until(&mut stream, 5 * SEC, |e| matches!(e, FeedEvent::Break(_))).await);
    let mut oracle = TrustOracle::default();
    for ev in &items {
        oracle.observe::<BoltFeed>(ev);
        oracle.check(|_| Trust::Trusted);
    }
}
