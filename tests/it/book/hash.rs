//! Book integrity (issue 17, item 4): the exchange's `book` hash is reproduced from the
//! captured snapshot, a corrupted snapshot is flagged, leaves its book suspect, and the
//! streams resync it once (not in a loop); the simulator's snapshots verify.

use crate::support::fixtures;
use crate::support::ws_server;

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use polyclob::book::{BookManager, BookMeta, BookState, HashStatus, Outcome, book_hash};
use polyclob::fixed::Size;
use polyclob::ws::feed::FeedEvent;
use polyclob::ws::market::{MarketEvent, MarketStream};

type BookEvent = FeedEvent<MarketEvent>;
type BookStream = MarketStream;
use serde_json::Value;
use ws_server::client::until;
use ws_server::{Action, WsServer};

const CAPTURED: &str = "polymarket/nautilus_test_data/ws_book_snapshot_captured.json";

fn meta(neg_risk: bool) -> BookMeta {
    BookMeta::new(Size::parse(b"5").expect("size"), neg_risk)
}

#[test]
fn captured_hash_is_reproduced() {
    let Some(bytes) = fixtures::read_shared(CAPTURED) else {
        return;
    };
    let text = String::from_utf8(bytes).expect("utf-8");
    let v: Value = serde_json::from_str(&text).expect("json");
    let sent = v["hash"].as_str().expect("hash");
    assert_eq!(sent, "ed47eb91f3c7985fac1cb18cb7c19535eddd3c0a");

    // The pretty-printed capture, as is: layout does not matter, values do.
    let mut scratch = Vec::new();
    let h = book_hash(&text, meta(false), &mut scratch).expect("hash input");
    assert!(h.matches(sent), "{h} != {sent}");
    assert_eq!(h.to_string(), sent);
    // The metadata is part of it: the other neg_risk or min_order_size does not match.
    assert!(
        !book_hash(&text, meta(true), &mut scratch)
            .unwrap()
            .matches(sent)
    );
    let ten = BookMeta::new(Size::parse(b"10").unwrap(), false);
    assert!(!book_hash(&text, ten, &mut scratch).unwrap().matches(sent));

    // Through the manager: verified, live.
    let asset = v["asset_id"].as_str().unwrap();
    let mut m = BookManager::new();
    m.set_book_meta(asset, meta(false));
    let mut outcomes = Vec::new();
    let s = m.apply_with(&text, Instant::now(), |u| outcomes.push(u.outcome));
    assert_eq!(outcomes, [Outcome::Applied]);
    assert_eq!(s.hash_mismatches, 0);
    assert_eq!(m.hash_status(asset), Some(HashStatus::Verified));
    assert_eq!(m.book_unchecked(asset).unwrap().state(), BookState::Live);
}

#[test]
fn corrupted_captured_snapshot_is_flagged_then_recovers() {
    let Some(bytes) = fixtures::read_shared(CAPTURED) else {
        return;
    };
    let text = String::from_utf8(bytes).expect("utf-8");
    let asset = serde_json::from_str::<Value>(&text).unwrap()["asset_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // One size off by a cent.
    assert!(text.contains(r#""size": "9.37""#));
    let corrupted = text.replace(r#""size": "9.37""#, r#""size": "9.38""#);

    let mut m = BookManager::new();
    m.set_book_meta(&asset, meta(false));
    let now = Instant::now();
    let mut outcomes = Vec::new();
    let s = m.apply_with(&corrupted, now, |u| outcomes.push(u.outcome));
    assert_eq!(outcomes, [Outcome::HashMismatch]);
    assert_eq!((s.hash_mismatches, s.applied, s.errors), (1, 0, 0));
    assert_eq!(m.hash_status(&asset), Some(HashStatus::Mismatch));
    assert_eq!(m.hash_mismatch_streak(&asset), 1);
    let book = m.book_unchecked(&asset).unwrap();
    assert_eq!(book.state(), BookState::Suspect);
    // Levels are shown, deltas are not trusted.
    assert!(book.best_bid().is_some());
    let delta = format!(
        r#"{{"event_type":"price_change","market":"m","price_changes":[{{"asset_id":"{asset}","price":"0.05","size":"1","side":"BUY"}}]}}"#
    );
    let mut o = Vec::new();
    m.apply_with(&delta, now, |u| o.push(u.outcome));
    assert_eq!(o, [Outcome::Ignored]);
    assert_eq!(m.book_unchecked(&asset).unwrap().ignored_deltas(), 1);

    // The true snapshot verifies and the book trusts deltas again.
    let mut o = Vec::new();
    m.apply_with(&text, now, |u| o.push(u.outcome));
    assert_eq!(o, [Outcome::Applied]);
    assert_eq!(m.hash_status(&asset), Some(HashStatus::Verified));
    assert_eq!(m.hash_mismatch_streak(&asset), 0);
    assert_eq!(m.book_unchecked(&asset).unwrap().state(), BookState::Live);
}

#[test]
fn unchecked_without_meta_or_when_off() {
    let frame = r#"{"event_type":"book","asset_id":"1","market":"m","bids":[],"asks":[],
        "tick_size":"0.01","last_trade_price":"0.5",
        "hash":"0000000000000000000000000000000000000000"}"#;
    let mut m = BookManager::new();
    let mut o = Vec::new();
    m.apply_with(frame, Instant::now(), |u| o.push(u.outcome));
    assert_eq!(o, [Outcome::Applied]);
    assert_eq!(m.hash_status("1"), Some(HashStatus::Unchecked));
    m.set_book_meta("1", meta(false));
    m.set_verify_hashes(false);
    m.apply(frame, Instant::now());
    assert_eq!(m.hash_status("1"), Some(HashStatus::Unchecked));
    assert_eq!(m.book_unchecked("1").unwrap().state(), BookState::Live);
    m.set_verify_hashes(true);
    m.apply(frame, Instant::now());
    assert_eq!(m.hash_status("1"), Some(HashStatus::Mismatch));
}

const ASSET: &str = "350977769852917329387037893294763093471844346281449484439085576212613048126";

/// A compact `book` frame for `ASSET` whose hash is right for `meta(false)` (or, with
/// `corrupt`, whose first bid size was changed after hashing).
fn frame(bid_size: &str, corrupt: bool) -> String {
    let body = |size: &str, hash: &str| {
        format!(
            r#"{{"event_type":"book","market":"0x6bd5","asset_id":"{ASSET}","timestamp":"1786604072222","hash":"{hash}","bids":[{{"price":"0.4","size":"{size}"}}],"asks":[{{"price":"0.6","size":"3"}}],"tick_size":"0.01","last_trade_price":"0.5"}}"#
        )
    };
    let h = book_hash(&body(bid_size, ""), meta(false), &mut Vec::new()).expect("hash");
    let size = if corrupt { "999" } else { bid_size };
    body(size, &h.to_string())
}

fn outcome(ev: &BookEvent) -> Option<Outcome> {
    match ev {
        BookEvent::Message(MarketEvent::Update { outcome, .. }) => Some(*outcome),
        _ => None,
    }
}

fn stream(url: &str) -> BookStream {
    MarketStream::builder()
        .url(url)
        .assets([ASSET])
        .backoff(Duration::from_millis(10), Duration::from_millis(50))
        .build()
        .expect("build")
}

#[tokio::test]
async fn stream_resyncs_a_corrupted_snapshot() {
    let server = WsServer::start().await;
    server.on_subscribe(vec![frame("10", false)]);
    let mut books = stream(&server.url());
    books.books_mut().set_book_meta(ASSET, meta(false));
    until(&mut books, Duration::from_secs(3), |e| {
        outcome(e) == Some(Outcome::Applied)
    })
    .await;
    assert_eq!(books.state().hash_status(ASSET), Some(HashStatus::Verified));

    // A corrupted snapshot mid-stream: flagged, suspect, and the shard reconnects for a
    // fresh one, which verifies.
    server.act(0, Action::Text(frame("10", true)));
    until(&mut books, Duration::from_secs(3), |e| {
        outcome(e) == Some(Outcome::HashMismatch)
    })
    .await;
    assert_eq!(
        books.state().book_unchecked(ASSET).unwrap().state(),
        BookState::Suspect
    );
    until(&mut books, Duration::from_secs(3), |e| {
        outcome(e) == Some(Outcome::Applied)
    })
    .await;
    assert_eq!(books.state().hash_status(ASSET), Some(HashStatus::Verified));
    assert_eq!(
        books.state().book_unchecked(ASSET).unwrap().state(),
        BookState::Live
    );
    assert_eq!(server.connections(), 2);
    assert_eq!(
        books
            .state()
            .book_unchecked(ASSET)
            .unwrap()
            .best_bid()
            .unwrap()
            .size
            .to_string(),
        "10"
    );
}

#[tokio::test]
async fn wrong_metadata_is_reported_without_a_reconnect_loop() {
    let server = WsServer::start().await;
    server.on_subscribe(vec![frame("10", false)]);
    let mut books = stream(&server.url());
    // neg_risk is wrong: every snapshot mismatches.
    books.books_mut().set_book_meta(ASSET, meta(true));
    until(&mut books, Duration::from_secs(3), |e| {
        outcome(e) == Some(Outcome::HashMismatch)
    })
    .await;
    // One resync is tried; its snapshot mismatches again and is not chased.
    until(&mut books, Duration::from_secs(3), |e| {
        outcome(e) == Some(Outcome::HashMismatch)
    })
    .await;
    assert_eq!(books.state().hash_mismatch_streak(ASSET), 2);
    let quiet = tokio::time::timeout(Duration::from_millis(300), books.next()).await;
    assert!(quiet.is_err(), "no further events expected: {quiet:?}");
    assert_eq!(server.connections(), 2);
}

#[tokio::test]
async fn simulator_snapshots_verify() {
    use polyclob_sim::{MarketSpec, Simulator};
    let sim = Simulator::builder()
        .markets(MarketSpec::defaults())
        .start()
        .await
        .expect("sim");
    let client = polyclob::clob::Client::builder()
        .host(sim.http_url())
        .build()
        .expect("client");
    let spec = &MarketSpec::defaults()[0];
    let token = spec.tokens()[0].token_id().to_owned();
    // The metadata the WS frame lacks, from REST.
    let rest = client.book(&token).await.expect("rest book");
    let meta = BookMeta::new(
        rest.min_order_size.expect("min_order_size"),
        rest.neg_risk.expect("neg_risk"),
    );
    let mut books = MarketStream::builder()
        .url(format!("{}/ws/market", sim.ws_url()))
        .assets([token.as_str()])
        .build()
        .expect("build");
    books.books_mut().set_book_meta(&token, meta);
    let seen = until(&mut books, Duration::from_secs(3), |e| outcome(e).is_some()).await;
    assert_eq!(
        outcome(seen.last().unwrap()),
        Some(Outcome::Applied),
        "{seen:#?}"
    );
    assert_eq!(
        books.state().hash_status(&token),
        Some(HashStatus::Verified)
    );

    // Simulated traders trade: the fresh snapshots after each trade verify too.
    let is_book_of = |e: &BookEvent| {
        matches!(e, BookEvent::Message(MarketEvent::Update { event, .. })
            if event.json().contains(r#""event_type":"book""#) && event.json().contains(&token))
    };
    let mut snapshots = 0;
    for _ in 0..200 {
        sim.step_activity(5);
        while let Ok(Some(ev)) = tokio::time::timeout(Duration::from_millis(20), books.next()).await
        {
            if is_book_of(&ev) {
                assert_eq!(outcome(&ev), Some(Outcome::Applied), "{ev:#?}");
                assert_eq!(
                    books.state().hash_status(&token),
                    Some(HashStatus::Verified)
                );
                snapshots += 1;
            }
        }
        if snapshots >= 3 {
            break;
        }
    }
    assert!(snapshots >= 3, "only {snapshots} fresh snapshots");
    assert_eq!(books.state().hash_mismatch_streak(&token), 0);
}

mod props {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Map, json};

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            "[0-9.]{0,8}".prop_map(Value::from),
            any::<String>().prop_map(Value::from),
        ]
    }

    fn value() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::btree_map("[a-z_]{1,6}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    fn level() -> impl Strategy<Value = Value> {
        (leaf(), leaf(), prop::option::of(value())).prop_map(|(p, s, extra)| {
            let mut m = Map::new();
            m.insert("size".into(), s);
            m.insert("price".into(), p);
            if let Some(x) = extra {
                m.insert("x".into(), x);
            }
            Value::Object(m)
        })
    }

    fn book() -> impl Strategy<Value = Value> {
        (
            prop::collection::vec(prop::option::of(leaf()), 5),
            prop::option::of(prop::collection::vec(level(), 0..5)),
            prop::option::of(prop::collection::vec(level(), 0..5)),
            prop::option::of(value()),
        )
            .prop_map(|(scalars, bids, asks, extra)| {
                let mut m = Map::new();
                let keys = [
                    "market",
                    "asset_id",
                    "timestamp",
                    "tick_size",
                    "last_trade_price",
                ];
                for (k, v) in keys.iter().zip(scalars) {
                    if let Some(v) = v {
                        m.insert((*k).into(), v);
                    }
                }
                if let Some(b) = bids {
                    m.insert("bids".into(), Value::from(b));
                }
                if let Some(a) = asks {
                    m.insert("asks".into(), Value::from(a));
                }
                if let Some(x) = extra {
                    m.insert("other".into(), x);
                }
                m.insert("event_type".into(), json!("book"));
                Value::Object(m)
            })
    }

    proptest! {
        /// Any JSON book object, compact or pretty: the hash input is a JSON object with
        /// exactly the hashed keys in the exchange's order.
        #[test]
        fn hash_input_is_json_in_the_exchanges_key_order(b in book(), pretty in any::<bool>()) {
            let text = if pretty { serde_json::to_string_pretty(&b) } else { serde_json::to_string(&b) }.unwrap();
            let mut out = Vec::new();
            let h = book_hash(&text, meta(false), &mut out).unwrap();
            let parsed: Value = serde_json::from_slice(&out).unwrap();
            let text_out = std::str::from_utf8(&out).unwrap();
            let order = ["\"market\":", "\"asset_id\":", "\"timestamp\":", "\"hash\":\"\"", "\"bids\":",
                "\"asks\":", "\"min_order_size\":\"5\"", "\"tick_size\":", "\"neg_risk\":false",
                "\"last_trade_price\":"];
            let mut at = 0;
            for k in order {
                let i = text_out[at..].find(k).map(|i| i + at);
                prop_assert!(i.is_some(), "{} missing after {} in {}", k, at, text_out);
                at = i.unwrap() + k.len();
            }
            prop_assert_eq!(parsed.as_object().unwrap().len(), 10);
            // Layout does not matter.
            let other = if pretty { serde_json::to_string(&b) } else { serde_json::to_string_pretty(&b) }.unwrap();
            prop_assert_eq!(book_hash(&other, meta(false), &mut Vec::new()).unwrap(), h);
        }

        /// Arbitrary text never panics.
        #[test]
        fn arbitrary_text_never_panics(s in any::<String>()) {
            let _ = book_hash(&s, meta(true), &mut Vec::new());
        }
    }
}

mod zero_copy {
    use super::*;
    use polyclob::ws::feed::{Cx, Handler};
    use polyclob::ws::market::{MarketFeed, MarketMessage};

    #[derive(Debug, Default)]
    struct Outcomes(Vec<Outcome>);

    impl Handler<MarketFeed> for Outcomes {
        fn on_message(&mut self, msg: &MarketMessage<'_>, _: &Cx<'_, MarketFeed>) {
            if let MarketMessage::Update(u) = msg {
                self.0.push(u.outcome);
            }
        }
    }

    #[tokio::test]
    async fn book_feed_resyncs_a_corrupted_snapshot() {
        let server = WsServer::start().await;
        server.on_subscribe(vec![frame("10", false)]);
        let mut stream = MarketStream::builder()
            .url(server.url())
            .assets([ASSET])
            .backoff(Duration::from_millis(10), Duration::from_millis(50))
            .build()
            .expect("build");
        let mut feed = Outcomes::default();
        stream.books_mut().set_book_meta(ASSET, meta(false));
        let mut pump = async |feed: &mut Outcomes, n: usize| {
            let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
            while feed.0.len() < n {
                assert!(tokio::time::Instant::now() < deadline, "timeout");
                let _ =
                    tokio::time::timeout(Duration::from_millis(100), stream.dispatch(feed)).await;
            }
        };
        pump(&mut feed, 1).await;
        server.act(0, Action::Text(frame("10", true)));
        pump(&mut feed, 3).await;
        assert_eq!(
            feed.0,
            [Outcome::Applied, Outcome::HashMismatch, Outcome::Applied]
        );
        assert_eq!(
            server.connections(),
            2,
            "the shard reconnected for a fresh snapshot"
        );
        assert_eq!(
            stream.state().hash_status(ASSET),
            Some(HashStatus::Verified)
        );
        assert_eq!(
            stream.state().book_unchecked(ASSET).unwrap().state(),
            BookState::Live
        );
    }
}

/// Issue 47, item 2: a recorded session replayed over loopback. Its last snapshot omits
/// `tick_size` and `last_trade_price`, and the session carries no `last_trade_price` message
/// (the capture kept books and deltas only), so the client cannot know the price the
/// exchange hashed: that genuine snapshot is "cannot verify", never a mismatch. The book stays
/// trusted, the stream does not reconnect, and the counters keep the two apart.
#[tokio::test]
async fn a_recorded_sparse_session_replayed_never_cries_wolf() {
    let Some(bytes) = fixtures::read_shared(
        "polymarket/nautilus_test_data/ws_market_price_change_crossing_burst.json",
    ) else {
        return;
    };
    let frames: Vec<Value> = serde_json::from_slice(&bytes).expect("json");
    let asset = frames[0]["asset_id"].as_str().unwrap().to_owned();
    let books_sent = frames.iter().filter(|f| f["event_type"] == "book").count();
    assert_eq!(books_sent, 2);
    assert!(frames.last().unwrap().get("tick_size").is_none());

    let server = WsServer::start().await;
    server.on_subscribe(frames.iter().map(Value::to_string).collect());
    let mut books = MarketStream::builder()
        .url(server.url())
        .assets([asset.as_str()])
        .backoff(Duration::from_millis(10), Duration::from_millis(50))
        .build()
        .expect("build");
    books.books_mut().set_book_meta(&asset, meta(false));
    let mut checks = Vec::new();
    let mut outcomes = Vec::new();
    let seen = until(&mut books, Duration::from_secs(5), |e| {
        if let BookEvent::Message(MarketEvent::Update { event, outcome, .. }) = e {
            outcomes.push(*outcome);
            if event.json().contains(r#""event_type":"book""#) {
                checks.push(*outcome);
                return checks.len() == books_sent;
            }
        }
        false
    })
    .await;
    assert!(!seen.is_empty());
    assert!(
        !outcomes.contains(&Outcome::HashMismatch),
        "no mismatch in a genuine session: {outcomes:?}"
    );
    assert_eq!(checks, [Outcome::Applied, Outcome::Applied]);
    assert_eq!(
        books.state().hash_status(&asset),
        Some(HashStatus::Unverifiable)
    );
    assert_eq!(
        books.state().book_unchecked(&asset).unwrap().state(),
        BookState::Live
    );
    assert_eq!(books.state().hash_mismatch_streak(&asset), 0);
    let c = books.counters();
    assert_eq!((c.hash_mismatches, c.hash_unverifiable), (0, 1));
    let quiet = tokio::time::timeout(Duration::from_millis(200), books.next()).await;
    assert!(quiet.is_err(), "nothing more: {quiet:?}");
    assert_eq!(server.connections(), 1, "no resync was chased");
}
