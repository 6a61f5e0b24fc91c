//! Zero allocation per RTDS message after warm-up, proved with a counting allocator: the
//! borrowed decoder over a long mixed replay, the stream's zero-copy handler tier, and the
//! new-market follower on frames that are not `new_market`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::stream_replay::{
    MEASURED, WARM, assert_dispatch_allocates_nothing, assert_replay_allocates_nothing,
    server_thread,
};
use crate::support::counting_alloc;
use crate::support::ws_server;

use std::time::Duration;

use polyclob::rtds::decode::{Message, Payload, decode};
use polyclob::rtds::{RtdsFeed, RtdsStream, Subscription};
use polyclob::ws::feed::{Cx, Handler};
use polyclob::ws::follow::{FollowFilter, FollowNewMarkets};
use polyclob::ws::market::MarketStream;
use polyclob::ws::market::{MarketFeed, MarketMessage};
use ws_server::Action;

fn replay() -> Vec<String> {
    let mut out = Vec::new();
    let mut x: u64 = 7;
    for i in 0..400u64 {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1442695040888963407);
        let cents = 6_000_000 + (x >> 40) % 100_000;
        out.push(format!(
            r#"{{"topic":"crypto_prices","type":"update","timestamp":{},"payload":{{"symbol":"btcusdt","timestamp":{},"value":{}.{:02},"full_accuracy_value":"{}.{:02}000000"}}}}"#,
            1_753_314_064_237 + i,
            1_753_314_064_000 + i,
            cents / 100,
            cents % 100,
            cents / 100,
            cents % 100
        ));
        out.push(format!(
            r#"{{"connection_id":"11111111-2222-3333-4444-555555555555","topic":"crypto_prices_twap_sixty","type":"update","timestamp":1786179814147,"payload":{{"symbol":"btc/usd","timestamp":1786179814000,"value":{}.81,"full_accuracy_value":"{}810000000000000000","window_s":60}}}}"#,
            cents / 100,
            cents / 100
        ));
        if i % 4 == 0 {
            out.push(format!(
                r#"{{"topic":"activity","type":"orders_matched","timestamp":1753314064300,"payload":{{"asset":"71321045679252212594626385532706912750332728571942532289631379312455583992563","conditionId":"0x5f65177b394277fd294cd75650044e32ba009a95022d88a0c1d565897d72f8f1","eventSlug":"e","slug":"s","title":"Will \"it\" rain?","outcome":"Yes","outcomeIndex":0,"price":0.{:02},"side":"BUY","size":{},"timestamp":1753314064,"transactionHash":"0x2b7c","proxyWallet":"0x5668"}}}}"#,
                10 + i % 80,
                1 + i % 50
            ));
        }
        if i % 10 == 0 {
            out.push(r#"{"topic":"equity_prices","type":"subscribe","timestamp":1780907896598,"payload":{"symbol":"aapl","data":[{"timestamp":1780907777000,"value":307.91499},{"timestamp":1780907778000,"value":307.91578},{"timestamp":1780907779000,"value":307.91547}]}}"#.to_owned());
            out.push(r#"{"topic":"comments","type":"comment_created","timestamp":1,"payload":{"id":"1763355","body":"up \ud83d\ude80","parentEntityType":"Event","parentEntityID":100,"userAddress":"0xab","createdAt":"2025-07-23T23:41:04.217Z"}}"#.to_owned());
        }
    }
    out
}

/// Touches every decoded value so nothing is optimised away.
fn consume(msg: &Message<'_>) -> u128 {
    match msg.payload {
        Payload::Price(p) => p.price.as_e18() ^ u128::from(p.timestamp_ms.unwrap_or(0)),
        Payload::PriceHistory(h) => h
            .points
            .map(|p| p.map_or(0, |p| p.value.as_e18()))
            .fold(0, u128::wrapping_add),
        Payload::Trade(t) => u128::from(t.price.as_micros()) + u128::from(t.size.as_micros()),
        Payload::Comment(c) => c.id.len() as u128,
        _ => 1,
    }
}

#[test]
fn decoding_a_long_mixed_replay_allocates_nothing() {
    assert_replay_allocates_nothing(&replay(), |f| consume(&decode(f).expect("decodes")));
}

#[test]
fn following_new_markets_costs_nothing_on_other_frames() {
    struct Nop(u64);
    impl Handler<MarketFeed> for Nop {
        fn on_message(&mut self, _: &MarketMessage<'_>, _: &Cx<'_, MarketFeed>) {
            self.0 += 1;
        }
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let stream = rt.block_on(async { MarketStream::builder().build().unwrap() });
    let mut follow = FollowNewMarkets::new(stream.handle(), FollowFilter::any(), Nop(0));
    let frames = [
        r#"{"event_type":"price_change","market":"0x5f","price_changes":[{"asset_id":"7","price":"0.5","size":"200","side":"BUY"}],"timestamp":"1766789470012"}"#,
        r#"{"event_type":"best_bid_ask","asset_id":"7","best_bid":"0.5","best_ask":"0.52"}"#,
    ];
    for f in frames {
        follow.observe(f);
    }
    let before = counting_alloc::allocations();
    for _ in 0..50_000 {
        for f in frames {
            assert_eq!(follow.observe(f), 0);
        }
    }
    assert_eq!(counting_alloc::allocations() - before, 0);
    drop(stream);
}

#[derive(Default)]
struct Sum {
    messages: u64,
    total: u128,
    invalid: u64,
}

impl Handler<RtdsFeed> for Sum {
    fn on_message(&mut self, msg: &Message<'_>, _: &Cx<'_, RtdsFeed>) {
        self.messages += 1;
        self.total = self.total.wrapping_add(consume(msg));
    }
    fn on_invalid(&mut self, _: &polyclob::decode::DecodeError, _: &Cx<'_, RtdsFeed>) {
        self.invalid += 1;
    }
}

/// Queue pop, epoch check, decode, handler call and release of the frame: zero
/// allocations. As in `ws_stream_alloc`, only polls that complete without yielding are
/// measured, so the reading task (same thread) never runs inside a measured window.
#[test]
fn dispatch_to_an_rtds_handler_allocates_nothing() {
    let server = server_thread();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("rt");
    rt.block_on(async {
        let mut stream = RtdsStream::builder()
            .url(server.url())
            .subscribe(Subscription::crypto_prices(["btcusdt"]))
            .ping_interval(Duration::from_secs(5))
            .silence_timeout(Duration::from_secs(10))
            .queue_capacity(1 << 16)
            .build()
            .expect("build");
        assert!(
            server
                .wait_for(Duration::from_secs(2), |s| s
                    .conns
                    .first()
                    .is_some_and(|c| !c.received.is_empty()))
                .await
        );
        server.act(
            0,
            Action::Flood {
                template: r#"{"topic":"crypto_prices","type":"update","timestamp":1753314064237,"payload":{"symbol":"btcusdt","timestamp":1753314064213,"value":6{n}.55,"full_accuracy_value":"6{n}.55000000"}}"#.into(),
                count: (WARM + MEASURED) as usize,
            },
        );
        let mut h = Sum::default();
        assert_dispatch_allocates_nothing!(stream, h, |h: &Sum| h.messages);
        assert_eq!(h.invalid, 0);
        assert!(h.total != 0);
    });
}
