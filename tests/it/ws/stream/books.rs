//! Books fed straight from the stream: exact after replay, gated across reconnects, equal
//! to the server's book after the resync snapshot, tick-size hook called.

use crate::support::trust_oracle::Checked;
use crate::support::ws_server;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use polyclob::book::{BookManager, BookState, Outcome};
use polyclob::types::{Side, TickSize};
use polyclob::ws::event::Status;
use polyclob::ws::feed::{Cx, FeedBuilder, FeedEvent, Handler};
use polyclob::ws::market::{MarketEvent, MarketFeed, MarketMessage, MarketStream};
use serde_json::Value;
use tokio::time::Instant;
use ws_server::client::{fixture_frames, until};
use ws_server::{Action, WsServer};

const A: &str = "71321045679252212594626385532706912750332728571942532289631379312455583992563";
const B: &str = "52114319501245915516055106046884209969926127482827954674443846427813813222426";
const SEC: Duration = Duration::from_secs(1);

type BookEvent = FeedEvent<MarketEvent>;

fn fast(url: &str) -> FeedBuilder<MarketFeed> {
    MarketStream::builder()
        .url(url)
        .assets([A, B])
        .ping_interval(Duration::from_millis(50))
        .pong_timeout(Duration::from_millis(150))
        .silence_timeout(Duration::from_millis(200))
        .connect_timeout(SEC)
        .backoff(Duration::from_millis(20), Duration::from_millis(200))
}

/// A side of a book as sorted `(price, size)` strings.
fn side(books: &BookManager, asset: &str, s: Side) -> Vec<(String, String)> {
    let book = books
        .book_unchecked(asset)
        .unwrap_or_else(|| panic!("no book {asset}"));
    let mut v: Vec<_> = book
        .levels(s)
        .map(|l| (l.price.to_string(), l.size.to_string()))
        .collect();
    v.sort();
    v
}

/// The same from a server `book` message, normalised through our fixed-point types.
fn server_side(book_json: &str, key: &str) -> Vec<(String, String)> {
    let v: Value = serde_json::from_str(book_json).expect("json");
    let mut out: Vec<_> = v[key]
        .as_array()
        .expect("levels")
        .iter()
        .map(|l| {
            let p: polyclob::fixed::Price = l["price"].as_str().expect("p").parse().expect("price");
            let s: polyclob::fixed::Size = l["size"].as_str().expect("s").parse().expect("size");
            (p.to_string(), s.to_string())
        })
        .filter(|(_, s)| s != "0")
        .collect();
    out.sort();
    out
}

fn book_msg(asset: &str, bids: &[(&str, &str)], asks: &[(&str, &str)]) -> String {
    let lv = |v: &[(&str, &str)]| {
        v.iter()
            .map(|(p, s)| format!(r#"{{"price":"{p}","size":"{s}"}}"#))
            .collect::<Vec<_>>()
            .join(",")
    };
    format!(
        r#"{{"event_type":"book","asset_id":"{asset}","market":"0x5f65","bids":[{}],"asks":[{}],"timestamp":"1766789480000","hash":"0xabc"}}"#,
        lv(bids),
        lv(asks)
    )
}

fn is_tick_change(ev: &BookEvent) -> bool {
    matches!(ev, BookEvent::Message(MarketEvent::Update { event, .. }) if event.json().contains("tick_size_change"))
}

#[tokio::test]
async fn replay_builds_exact_books_and_reports_tick_changes() {
    let server = WsServer::start().await;
    server.on_subscribe(fixture_frames());
    let ticks: Arc<Mutex<Vec<(String, TickSize)>>> = Arc::default();
    let sink = Arc::clone(&ticks);
    let mut books = Checked::new(
        fast(&server.url())
            .on_tick_size_change(move |id, t| sink.lock().expect("lock").push((id.to_owned(), t)))
            .build()
            .expect("build"),
    );
    let events = until(&mut books, 2 * SEC, |e| {
        matches!(e, BookEvent::Message(MarketEvent::Update { event, .. }) if event.json().contains("some_future_event"))
    })
    .await;
    // Two snapshots, one price_change, trade, best_bid_ask, tick change, unknown.
    let outcomes: Vec<Outcome> = events
        .iter()
        .filter_map(|e| match e {
            BookEvent::Message(MarketEvent::Update { outcome, .. }) => Some(*outcome),
            _ => None,
        })
        .collect();
    assert_eq!(outcomes.len(), 7, "{events:#?}");
    assert!(
        outcomes[..6].iter().all(|o| *o == Outcome::Applied),
        "{outcomes:?}"
    );
    assert_eq!(outcomes[6], Outcome::NotBook);

    let b = books.state();
    // B: snapshot then SELL 0.5 → 200.
    assert_eq!(
        side(b, B, Side::Buy),
        [("0.46".into(), "15".into()), ("0.47".into(), "12".into())]
    );
    assert_eq!(
        side(b, B, Side::Sell),
        [
            ("0.5".into(), "200".into()),
            ("0.51".into(), "30".into()),
            ("0.52".into(), "5".into())
        ]
    );
    // A: snapshot, BUY 0.5 → 200, then the tick change gates it.
    assert_eq!(
        b.book_unchecked(A)
            .expect("A")
            .best_bid()
            .expect("bid")
            .size
            .to_string(),
        "200"
    );
    assert_eq!(
        b.book_unchecked(A).expect("A").state(),
        BookState::AwaitingSnapshot
    );
    assert_eq!(b.book(B).expect("B").state(), BookState::Live);
    assert_eq!(
        *ticks.lock().expect("lock"),
        [(A.to_owned(), TickSize::Thousandth)]
    );
}

#[tokio::test]
async fn tick_size_change_refreshes_the_rest_clients_cache() {
    let server = WsServer::start().await;
    server.on_subscribe(fixture_frames());
    // No request is made: the cache is local, so the client needs no reachable server.
    let client = polyclob::clob::Client::builder()
        .host("http://127.0.0.1:9")
        .build()
        .expect("client");
    client.set_tick_size(A, TickSize::Hundredth);
    let mut books = Checked::new(
        fast(&server.url())
            .tick_size_cache(&client)
            .build()
            .expect("build"),
    );
    until(&mut books, 2 * SEC, is_tick_change).await;
    assert_eq!(client.cached_tick_size(A), Some(TickSize::Thousandth));
}

#[tokio::test]
async fn reconnect_gates_deltas_until_the_snapshot_and_books_equal_the_servers() {
    let server = WsServer::start().await;
    server.on_subscribe(fixture_frames());
    let mut books = Checked::new(fast(&server.url()).build().expect("build"));
    until(&mut books, 2 * SEC, is_tick_change).await;
    assert_eq!(
        books.state().book_unchecked(B).expect("B").state(),
        BookState::Live
    );

    // While we are away the server's book for B changes. On the new connection it sends
    // a delta *before* the snapshot: the delta must be ignored, the snapshot taken whole.
    let new_b = book_msg(
        B,
        &[("0.40", "7"), ("0.41", "8.5")],
        &[("0.60", "1.25"), ("0.61", "3")],
    );
    let early_delta = format!(
        r#"{{"event_type":"price_change","market":"0x5f65","price_changes":[{{"asset_id":"{B}","price":"0.3","size":"99","side":"BUY"}}],"timestamp":"1766789479000"}}"#
    );
    server.on_subscribe(vec![early_delta, new_b.clone()]);
    server.act(0, Action::CloseAbrupt);

    let events = until(&mut books, 2 * SEC, |e| {
        matches!(e, FeedEvent::Status(Status::Disconnected { .. }))
    })
    .await;
    assert!(!events.is_empty());
    assert_eq!(
        books.state().book_unchecked(B).expect("B").state(),
        BookState::AwaitingSnapshot,
        "gated at disconnect"
    );

    let events = until(
        &mut books,
        2 * SEC,
        |e| matches!(e, BookEvent::Message(MarketEvent::Update { event, .. }) if event.json().contains("\"book\"")),
    )
    .await;
    let outcomes: Vec<Outcome> = events
        .iter()
        .filter_map(|e| match e {
            BookEvent::Message(MarketEvent::Update { outcome, .. }) => Some(*outcome),
            _ => None,
        })
        .collect();
    assert_eq!(
        outcomes,
        [Outcome::Ignored, Outcome::Applied],
        "{events:#?}"
    );
    let b = books.state();
    assert_eq!(side(b, B, Side::Buy), server_side(&new_b, "bids"));
    assert_eq!(side(b, B, Side::Sell), server_side(&new_b, "asks"));
    assert_eq!(b.book(B).expect("B").state(), BookState::Live);
    // A got no snapshot on the new connection: still gated.
    assert_eq!(
        b.book_unchecked(A).expect("A").state(),
        BookState::AwaitingSnapshot
    );
}

#[tokio::test]
async fn lag_gates_books_and_the_fresh_snapshot_restores_them() {
    let server = WsServer::start().await;
    server.on_subscribe(fixture_frames());
    let mut books = Checked::new(
        fast(&server.url())
            .queue_capacity(8)
            .build()
            .expect("build"),
    );
    until(&mut books, 2 * SEC, is_tick_change).await;
    let delta = format!(
        r#"{{"event_type":"price_change","market":"0x5f65","price_changes":[{{"asset_id":"{B}","price":"0.2","size":"{{n}}","side":"BUY"}}],"timestamp":"1766789479000"}}"#
    );
    server.act(
        0,
        Action::Flood {
            template: delta,
            count: 2000,
        },
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let events = until(&mut books, 2 * SEC, |e| {
        matches!(e, FeedEvent::Status(Status::Lagged { .. }))
    })
    .await;
    assert!(!events.is_empty());
    assert_eq!(
        books.state().book_unchecked(B).expect("B").state(),
        BookState::AwaitingSnapshot,
        "gated on lag"
    );
    // The reconnect replays the fixture: B's snapshot makes it live again.
    until(&mut books, 2 * SEC, is_tick_change).await;
    assert_eq!(
        books.state().book_unchecked(B).expect("B").state(),
        BookState::Live
    );
    assert_eq!(
        side(books.state(), B, Side::Buy),
        [("0.46".into(), "15".into()), ("0.47".into(), "12".into())]
    );
}

#[derive(Default)]
struct Recorder {
    updates: Vec<(usize, Outcome, Option<String>)>,
    statuses: Vec<Status>,
    gated_on_status: Vec<BookState>,
}

impl Handler<MarketFeed> for Recorder {
    fn on_message(&mut self, msg: &MarketMessage<'_>, cx: &Cx<'_, MarketFeed>) {
        let MarketMessage::Update(u) = msg else {
            return;
        };
        let best = cx
            .state()
            .book_unchecked(B)
            .and_then(|b| b.best_ask())
            .map(|l| l.price.to_string());
        let shard = cx.frame().map_or(usize::MAX, |f| f.shard());
        self.updates.push((shard, u.outcome, best));
    }
    fn on_status(&mut self, status: &Status, cx: &Cx<'_, MarketFeed>) {
        self.statuses.push(status.clone());
        if let Some(b) = cx.state().book_unchecked(B) {
            self.gated_on_status.push(b.state());
        }
    }
}

#[tokio::test]
async fn zero_copy_feed_hands_borrowed_events_and_updated_books() {
    let server = WsServer::start().await;
    server.on_subscribe(fixture_frames());
    let ticks = Arc::new(Mutex::new(0));
    let t = Arc::clone(&ticks);
    let mut stream = fast(&server.url())
        .on_tick_size_change(move |_, _| *t.lock().expect("lock") += 1)
        .build()
        .expect("build");
    let mut feed = Recorder::default();
    let deadline = Instant::now() + 2 * SEC;
    while feed.updates.len() < 7 {
        assert!(Instant::now() < deadline, "timeout");
        assert!(
            tokio::time::timeout(SEC, stream.dispatch(&mut feed))
                .await
                .expect("dispatch")
        );
    }
    let rec = &feed;
    // After B's snapshot (2nd element of the first frame) best ask is 0.51; the
    // price_change sets 0.5.
    assert_eq!(rec.updates[1].2.as_deref(), Some("0.51"));
    assert_eq!(rec.updates[2].2.as_deref(), Some("0.5"));
    assert!(matches!(
        rec.statuses[0],
        Status::Connected {
            reconnect: false,
            ..
        }
    ));
    assert_eq!(*ticks.lock().expect("lock"), 1);

    server.act(0, Action::CloseAbrupt);
    let deadline = Instant::now() + 2 * SEC;
    while !feed.statuses.iter().any(|s| {
        matches!(
            s,
            Status::Connected {
                reconnect: true,
                ..
            }
        )
    }) {
        assert!(Instant::now() < deadline, "no reconnect");
        assert!(
            tokio::time::timeout(SEC, stream.dispatch(&mut feed))
                .await
                .expect("dispatch")
        );
    }
    let rec = &feed;
    assert!(
        rec.gated_on_status
            .iter()
            .skip(1)
            .all(|s| *s == BookState::AwaitingSnapshot),
        "books gated when the handler hears of the disconnect: {:?}",
        rec.gated_on_status
    );
}

#[tokio::test]
async fn rest_resync_snapshots_apply_unless_older_than_the_book() {
    use polyclob::decode::Level;
    use polyclob::ws::market::{ResyncOutcome, Snapshot};

    let server = WsServer::start().await;
    server.on_subscribe(fixture_frames());
    let mut books = Checked::new(fast(&server.url()).build().expect("build"));
    until(&mut books, 2 * SEC, is_tick_change).await;
    let lv = |p: &str, s: &str| Level {
        price: p.parse().expect("p"),
        size: s.parse().expect("s"),
    };
    let resync = books.handle();

    // A is gated by the tick change: a REST snapshot (as an on_reconnect hook would fetch)
    // makes it live again with exactly those levels.
    let snap = Snapshot {
        asset_id: A.to_owned(),
        bids: vec![lv("0.401", "5"), lv("0.402", "6")],
        asks: vec![lv("0.6", "7")],
        timestamp_ms: Some(1_766_789_480_000),
    };
    let sender = resync.clone();
    tokio::spawn(async move { sender.restore(snap).expect("send") });
    let ev = until(&mut books, SEC, |e| {
        matches!(e, BookEvent::Message(MarketEvent::Restored { .. }))
    })
    .await;
    assert!(
        matches!(
            ev.last(),
            Some(BookEvent::Message(MarketEvent::Restored {
                outcome: ResyncOutcome::Applied,
                ..
            }))
        ),
        "{ev:?}"
    );
    let b = books.state();
    assert_eq!(b.book(A).expect("A").state(), BookState::Live);
    assert_eq!(
        side(b, A, Side::Buy),
        [("0.401".into(), "5".into()), ("0.402".into(), "6".into())]
    );

    // An older snapshot never overwrites newer data.
    let old = Snapshot {
        asset_id: B.to_owned(),
        bids: vec![],
        asks: vec![],
        timestamp_ms: Some(1),
    };
    resync.restore(old).expect("send");
    let ev = until(&mut books, SEC, |e| {
        matches!(e, BookEvent::Message(MarketEvent::Restored { .. }))
    })
    .await;
    assert!(
        matches!(
            ev.last(),
            Some(BookEvent::Message(MarketEvent::Restored {
                outcome: ResyncOutcome::Stale,
                ..
            }))
        ),
        "{ev:?}"
    );
    assert_eq!(
        side(books.state(), B, Side::Buy),
        [("0.46".into(), "15".into()), ("0.47".into(), "12".into())]
    );

    // A duplicate price is rejected and leaves the book as it was.
    let dup = Snapshot {
        asset_id: B.to_owned(),
        bids: vec![lv("0.3", "1"), lv("0.3", "2")],
        asks: vec![],
        timestamp_ms: Some(1_766_789_490_000),
    };
    resync.restore(dup).expect("send");
    let ev = until(&mut books, SEC, |e| {
        matches!(e, BookEvent::Message(MarketEvent::Restored { .. }))
    })
    .await;
    assert!(
        matches!(
            ev.last(),
            Some(BookEvent::Message(MarketEvent::Restored {
                outcome: ResyncOutcome::Rejected(_),
                ..
            }))
        ),
        "{ev:?}"
    );
    assert_eq!(
        books
            .state()
            .book_unchecked(B)
            .expect("B")
            .best_bid()
            .expect("bid")
            .price
            .to_string(),
        "0.47"
    );
}

#[tokio::test]
async fn book_feed_applies_resync_snapshots_before_the_next_delivery() {
    use polyclob::decode::Level;
    use polyclob::ws::market::{ResyncOutcome, Snapshot};

    #[derive(Default)]
    struct Resyncs(Vec<(String, ResyncOutcome, BookState)>);
    impl Handler<MarketFeed> for Resyncs {
        fn on_message(&mut self, msg: &MarketMessage<'_>, cx: &Cx<'_, MarketFeed>) {
            let MarketMessage::Restored {
                asset_id: id,
                outcome,
            } = *msg
            else {
                return;
            };
            let state = cx
                .state()
                .book_unchecked(id)
                .map_or(BookState::AwaitingSnapshot, |b| b.state());
            self.0.push((id.to_owned(), outcome, state));
        }
    }

    let server = WsServer::start().await;
    let mut stream = fast(&server.url()).build().expect("build");
    let mut feed = Resyncs::default();
    let lv = |p: &str, s: &str| Level {
        price: p.parse().expect("p"),
        size: s.parse().expect("s"),
    };
    stream
        .handle()
        .restore(Snapshot {
            asset_id: A.to_owned(),
            bids: vec![lv("0.5", "1")],
            asks: vec![],
            timestamp_ms: None,
        })
        .expect("send");
    // The first delivery applies it (nothing was ever received for A, so a snapshot without
    // a timestamp is accepted); the second is `Connected`.
    for _ in 0..2 {
        assert!(
            tokio::time::timeout(2 * SEC, stream.dispatch(&mut feed))
                .await
                .expect("dispatch")
        );
    }
    let got = &feed.0;
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].1, ResyncOutcome::Applied);
    // `Connected` gates A again right after (its shard just connected): a snapshot from the
    // stream is still required, which is the safe order.
    assert_eq!(
        stream.state().book_unchecked(A).expect("A").state(),
        BookState::AwaitingSnapshot
    );
    assert_eq!(
        stream
            .state()
            .book_unchecked(A)
            .expect("A")
            .best_bid()
            .expect("kept for display")
            .size
            .to_string(),
        "1"
    );
}

#[tokio::test]
async fn events_name_their_asset_and_market_shared_not_copied_and_breaks_are_typed() {
    use polyclob::ws::continuity::{Lost, StreamKind};
    let server = WsServer::start().await;
    let two_assets = format!(
        r#"{{"event_type":"price_change","market":"0x5f65","price_changes":[{{"asset_id":"{A}","price":"0.3","size":"9","side":"BUY"}},{{"asset_id":"{B}","price":"0.6","size":"9","side":"SELL"}}],"timestamp":"1766789481000"}}"#
    );
    let one_asset = format!(
        r#"{{"event_type":"price_change","market":"0x5f65","price_changes":[{{"asset_id":"{B}","price":"0.39","size":"1","side":"BUY"}}],"timestamp":"1766789482000"}}"#
    );
    server.on_subscribe(vec![
        book_msg(A, &[("0.40", "7")], &[("0.60", "1")]),
        book_msg(B, &[("0.40", "7")], &[("0.60", "1")]),
        two_assets,
        one_asset,
    ]);
    let mut books = Checked::new(fast(&server.url()).build().expect("build"));
    let mut got = Vec::new();
    while got.len() < 4 {
        let ev = tokio::time::timeout(2 * SEC, books.next())
            .await
            .expect("timely")
            .expect("open");
        if let BookEvent::Message(MarketEvent::Update {
            asset_id, market, ..
        }) = ev
        {
            got.push((asset_id, market));
        }
    }
    let ids: Vec<(Option<&str>, Option<&str>)> = got
        .iter()
        .map(|(a, m)| (a.as_deref(), m.as_deref()))
        .collect();
    assert_eq!(
        ids,
        [
            (Some(A), Some("0x5f65")),
            (Some(B), Some("0x5f65")),
            (None, Some("0x5f65")), // two assets: each entry names its own
            (Some(B), Some("0x5f65")),
        ]
    );
    // One allocation per id, shared by every event that names it.
    let (b1, b2) = (got[1].0.as_ref().unwrap(), got[3].0.as_ref().unwrap());
    assert!(Arc::ptr_eq(b1, b2));
    assert!(Arc::ptr_eq(
        got[0].1.as_ref().unwrap(),
        got[2].1.as_ref().unwrap()
    ));

    // A break is one typed event right after its status.
    server.act(0, Action::CloseAbrupt);
    let evs = until(&mut books, 2 * SEC, |e| matches!(e, BookEvent::Break(_))).await;
    assert!(matches!(
        evs[evs.len() - 2],
        BookEvent::Status(Status::Disconnected { .. })
    ));
    let BookEvent::Break(b) = evs[evs.len() - 1] else {
        unreachable!()
    };
    assert_eq!((b.stream, b.lost), (StreamKind::Market, Lost::Unknown));
}
