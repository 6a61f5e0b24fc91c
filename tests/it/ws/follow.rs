//! Following new markets: the `new_market` capture's 2026 fields decode, and on a live
//! (loopback) market stream the tokens of accepted new markets are subscribed on the open
//! connection while rejected ones are not.

use crate::support::fixtures;
use crate::support::ws_server;

use std::time::Duration;

use polyclob::decode::{EventView, decode_bytes};
use polyclob::ws::feed::{Cx, Handler};
use polyclob::ws::follow::{FollowFilter, FollowNewMarkets};
use polyclob::ws::market::{MarketFeed, MarketMessage, MarketStream};
use tokio::time::Instant;
use ws_server::{Action, WsServer};

const A: &str = "71321045679252212594626385532706912750332728571942532289631379312455583992563";
const Y: &str = "76043073756653678226373981964075571318267289248134717369284518995922789326425";
const N: &str = "31690934263385727664202099278545688007799199447969475608906331829650099442770";

/// Written from the documented 2026 shape (ts-sdk `NewMarketEventSchema`).
fn new_market(market: &str, tags: &str, yes: &str, no: &str) -> String {
    format!(
        r#"{{"event_type":"new_market","id":"1031769","question":"Will NVIDIA (NVDA) close above $240 end of January?","market":"{market}","slug":"nvda-above-240","assets_ids":["{yes}","{no}"],"outcomes":["Yes","No"],"timestamp":"1766790415550","tags":{tags},"condition_id":"{market}","active":true,"clob_token_ids":["{yes}","{no}"],"sports_market_type":"","line":"","game_start_time":"","order_price_min_tick_size":"0.01","fees_enabled":true,"taker_base_fee":"1000","fee_schedule":{{"exponent":"1","rate":"0.07","taker_only":true,"rebate_rate":"0.2"}}}}"#
    )
}

#[test]
fn the_new_market_capture_decodes_with_its_2026_fields() {
    let Some(bytes) =
        fixtures::read_shared("polymarket/nautilus_test_data/ws_market_new_market_msg.json")
    else {
        return;
    };
    let oracle: serde_json::Value = serde_json::from_slice(&bytes).expect("json");
    let mut events = decode_bytes(&bytes).expect("utf-8");
    let Some(Ok(EventView::NewMarket(m))) = events.next() else {
        panic!("a new_market event")
    };
    let f = m.fields().expect("fields");
    assert_eq!(f.condition_id, oracle["condition_id"].as_str());
    let ids: Vec<&str> = f.clob_token_ids.map(|s| s.expect("id").raw()).collect();
    let want: Vec<&str> = oracle["clob_token_ids"]
        .as_array()
        .expect("ids")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert_eq!(ids, want);
    let tags: Vec<&str> = f.tags.map(|s| s.expect("tag").raw()).collect();
    assert_eq!(tags, ["stocks"]);
    assert_eq!(
        f.order_price_min_tick_size.map(|t| t.as_str()),
        Some("0.01")
    );
    assert_eq!(f.active, Some(true));
    // Blank optional fields read as absent.
    assert_eq!(
        (f.sports_market_type, f.line, f.game_start_time),
        (None, None, None)
    );
    assert_eq!(
        f.group_item_title.and_then(|t| t.as_str()),
        oracle["group_item_title"].as_str()
    );
    assert!(FollowFilter::any().tag("STOCKS").matches(&m, &f));
}

#[test]
fn documented_fee_fields_decode() {
    let text = new_market("0x31", r#"["crypto"]"#, Y, N);
    let mut events = decode_bytes(text.as_bytes()).expect("utf-8");
    let Some(Ok(EventView::NewMarket(m))) = events.next() else {
        panic!()
    };
    let f = m.fields().expect("fields");
    let fee = f.fee_schedule.expect("fee schedule");
    assert_eq!(fee.rate().as_micros(), 70_000);
    assert_eq!(fee.rebate_rate().map(|p| p.as_micros()), Some(200_000));
    assert_eq!((fee.exponent(), fee.taker_only()), (1, true));
    assert_eq!((f.fees_enabled, f.taker_base_fee), (Some(true), Some(1000)));
}

#[derive(Default)]
struct Count(u64);

impl Handler<MarketFeed> for Count {
    fn on_message(&mut self, _: &MarketMessage<'_>, _: &Cx<'_, MarketFeed>) {
        self.0 += 1;
    }
}

#[tokio::test]
async fn accepted_new_markets_are_subscribed_on_the_open_connection() {
    let server = WsServer::start().await;
    let mut stream = MarketStream::builder()
        .url(server.url())
        .assets([A])
        .build()
        .expect("build");
    let handle = stream.handle();
    let mut follow = FollowNewMarkets::new(
        stream.handle(),
        FollowFilter::any().tag("stocks"),
        Count::default(),
    );
    assert!(
        server
            .wait_for(Duration::from_secs(2), |s| s
                .conns
                .first()
                .is_some_and(|c| !c.received.is_empty()))
            .await
    );
    let sub: serde_json::Value = serde_json::from_str(&server.conn(0).received[0]).expect("json");
    assert_eq!(sub["custom_feature_enabled"], true, "new_market needs it");

    // A market of another tag, then one of ours inside an array frame.
    server.act(
        0,
        Action::Text(new_market("0xaa", r#"["sports"]"#, "11", "12")),
    );
    server.act(
        0,
        Action::Text(format!(
            r#"[{{"event_type":"best_bid_ask","asset_id":"{A}","best_bid":"0.5"}},{}]"#,
            new_market("0x31", r#"["stocks"]"#, Y, N)
        )),
    );
    let deadline = Instant::now() + Duration::from_secs(2);
    while follow.inner().0 < 3 && Instant::now() < deadline {
        assert!(
            tokio::time::timeout_at(deadline, stream.dispatch(&mut follow))
                .await
                .expect("frames in time")
        );
    }
    assert_eq!(
        follow.inner().0,
        3,
        "every message reaches the inner handler"
    );
    assert_eq!(follow.followed(), 1);
    assert!(
        server
            .wait_for(Duration::from_secs(2), |s| s.conns[0]
                .received
                .iter()
                .any(|m| m.contains("\"operation\":\"subscribe\"")))
            .await
    );
    let conn = server.conn(0);
    let ops: Vec<serde_json::Value> = conn
        .messages()
        .iter()
        .skip(1)
        .map(|m| serde_json::from_str(m).expect("json"))
        .collect();
    assert_eq!(ops.len(), 1, "only the accepted market: {ops:?}");
    assert_eq!(ops[0]["assets_ids"], serde_json::json!([Y, N]));
    let mut carried = handle.shard_assets(0);
    carried.sort();
    let mut want = vec![A.to_owned(), Y.to_owned(), N.to_owned()];
    want.sort();
    assert_eq!(carried, want);
}

/// The documented `new_market` cut at every byte and with bytes overwritten: the field
/// reader and the filter return or fail with a typed error, never panic. (The fuzz target
/// `new_market` does this without end.)
#[test]
fn truncated_and_mutated_new_markets_never_panic() {
    let text = new_market("0x31", r#"["stocks","a\"b"]"#, Y, N);
    let b = text.as_bytes();
    let filter = FollowFilter::any().tag("stocks").question_contains("above");
    let mut read = 0usize;
    let mut check = |bytes: &[u8]| {
        let Ok(events) = decode_bytes(bytes) else {
            return;
        };
        for e in events {
            let Ok(EventView::NewMarket(m)) = e else {
                continue;
            };
            if let Ok(f) = m.fields() {
                read += 1;
                f.tags.chain(f.clob_token_ids).for_each(drop);
                let _ = filter.matches(&m, &f);
            }
        }
    };
    for cut in 0..b.len() {
        check(&b[..cut]);
    }
    for i in 0..b.len() {
        for s in [
            b'"', b'\\', b'{', b'}', b'[', b']', b':', b',', b'-', b'n', b't', b'0', 0xff,
        ] {
            let mut m = b.to_vec();
            m[i] = s;
            check(&m);
        }
    }
    assert!(read > 500, "mutations whose fields still read: {read}");
}

/// Following composes with the books: a delta for a token before its market is followed
/// and snapshotted is not applied; after the follow, the token's snapshot makes its book
/// live and later deltas apply — the book gating rules, unchanged.
#[tokio::test]
async fn a_followed_market_gets_a_live_book_under_the_usual_gating() {
    use polyclob::book::BookState;

    struct Nop;
    impl Handler<MarketFeed> for Nop {
        fn on_message(&mut self, _: &MarketMessage<'_>, _: &Cx<'_, MarketFeed>) {}
    }
    let server = WsServer::start().await;
    let mut stream = MarketStream::builder()
        .url(server.url())
        .assets([A])
        .build()
        .expect("build");
    let mut follow = FollowNewMarkets::new(stream.handle(), FollowFilter::any().tag("stocks"), Nop);
    assert!(
        server
            .wait_for(Duration::from_secs(2), |s| s
                .conns
                .first()
                .is_some_and(|c| !c.received.is_empty()))
            .await
    );
    let delta = |price: &str, size: &str, ts: u64| {
        format!(
            r#"{{"event_type":"price_change","market":"0x31","price_changes":[{{"asset_id":"{Y}","price":"{price}","size":"{size}","side":"BUY"}}],"timestamp":"{ts}"}}"#
        )
    };
    let frames = [
        delta("0.5", "10", 1_766_790_415_551),
        new_market("0x31", r#"["stocks"]"#, Y, N),
        format!(
            r#"{{"event_type":"book","asset_id":"{Y}","market":"0x31","bids":[{{"price":"0.48","size":"30"}}],"asks":[{{"price":"0.52","size":"25"}}],"timestamp":"1766790415552","hash":"0x0"}}"#
        ),
        delta("0.49", "5", 1_766_790_415_553),
    ];
    for f in frames {
        server.act(0, Action::Text(f));
    }
    let bid_is = |f: &MarketStream, micros| {
        f.state()
            .book(Y)
            .and_then(|b| b.best_bid())
            .is_some_and(|l| l.price.as_micros() == micros)
    };
    let deadline = Instant::now() + Duration::from_secs(2);
    while follow.followed() == 0 {
        assert!(
            tokio::time::timeout_at(deadline, stream.dispatch(&mut follow))
                .await
                .expect("frames in time")
        );
    }
    // Followed, not snapshotted yet: the earlier delta made no live book.
    assert!(stream.state().book(Y).is_none());
    assert!(
        stream
            .state()
            .book_unchecked(Y)
            .is_none_or(|b| b.state() != BookState::Live)
    );
    while !bid_is(&stream, 490_000) {
        assert!(
            tokio::time::timeout_at(deadline, stream.dispatch(&mut follow))
                .await
                .expect("frames in time")
        );
    }
    assert_eq!(follow.followed(), 1);
    let book = stream
        .state()
        .book(Y)
        .expect("the followed token has a book");
    assert_eq!(book.state(), BookState::Live);
    let bid = book.best_bid().expect("bids");
    assert_eq!(
        (bid.price.as_micros(), bid.size.as_micros()),
        (490_000, 5_000_000)
    );
    assert_eq!(
        book.len(polyclob::types::Side::Buy),
        2,
        "0.49 on top of the snapshot's 0.48"
    );
}
