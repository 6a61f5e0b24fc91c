//! Zero allocation per PolyBolt message after warm-up, proved with a counting allocator: the
//! borrowed decoder (envelopes, prices, snapshots, acknowledgements) and the stream's
//! zero-copy handler tier, sequence tracking included.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::stream_replay::{
    MEASURED, WARM, assert_dispatch_allocates_nothing, assert_replay_allocates_nothing,
    server_thread,
};
use crate::support::ws_server;

use std::time::Duration;

use polyclob::clob::Credentials;
use polyclob::polybolt::decode::{BoltMessage, BoltPayload, decode};
use polyclob::polybolt::{BoltFeed, BoltSubscription, PolyBoltStream};
use polyclob::ws::continuity::Break;
use polyclob::ws::feed::{Cx, Handler};
use ws_server::Action;

fn replay() -> Vec<String> {
    let mut out = vec![
        r#"{"op":"authed","rid":"auth"}"#.to_owned(),
        r#"{"op":"subscribed","channel":"price.crypto","rid":"s1","provider":"pyth"}"#.to_owned(),
        r#"{"v":1,"channel":"price.crypto","seq":1,"ts":1788973000000,"snapshot":true,"payload":{"symbol":"btcusd","source":"pyth","data":[{"timestamp":1788972880000,"value":64123.5,"full_accuracy_value":"64123.50000000"},{"timestamp":1788972881000,"value":64125.1,"full_accuracy_value":"64125.10000000"}]}}"#.to_owned(),
        r#"{"op":"error","code":"bad_filter","channel":"price.polymarket","rid":"s2"}"#.to_owned(),
        r#"{"v":1,"channel":"price.polymarket","seq":1,"ts":1788973000123,"snapshot":true,"payload":[]}"#.to_owned(),
    ];
    for i in 0..300u64 {
        out.push(format!(
            r#"{{"v":1,"channel":"price.crypto","seq":{},"ts":{},"payload":{{"symbol":"btcusd","value":6412{}.5,"full_accuracy_value":"6412{}.5000000{}","timestamp":{},"source":"pyth"}}}}"#,
            i + 2,
            1_788_973_001_000 + i,
            i % 10,
            i % 10,
            i % 7,
            1_788_973_001_000 + i
        ));
        out.push(format!(
            r#"{{"v":1,"channel":"price.equity","seq":{},"ts":1,"dropped":{},"payload":{{"symbol":"aapl","value":307.9,"full_accuracy_value":"307.91{}","timestamp":1,"received_at":2,"is_carried_forward":false,"source":"massive"}}}}"#,
            i + 1,
            i % 3,
            i % 10
        ));
        out.push(format!(
            r#"{{"v":1,"channel":"price.polymarket","seq":{},"ts":1788973000123,"payload":{{"market":"0x9deb0baac40648821f96f01339229a422e2f5c877de55dc4dbf981f95a1e709c","asset_id":"21742633143463906290569050155826241533067272736897614950488156847949938836455","best_bid":"0.5{}","best_ask":"0.53","hash":"3f9c1e7a{}","timestamp":1788972999871}}}}"#,
            i + 2,
            i % 3,
            i % 10
        ));
    }
    out
}

fn consume(msg: &BoltMessage<'_>) -> u128 {
    match msg {
        BoltMessage::Data(e) => match e.payload {
            BoltPayload::Price(p) => p.price.as_e18() ^ u128::from(e.seq),
            BoltPayload::Snapshot(s) => s
                .points
                .map(|p| p.map_or(0, |p| p.value.as_e18()))
                .fold(0, u128::wrapping_add),
            BoltPayload::Top(t) => {
                u128::from(t.best_bid.map_or(0, |p| p.as_micros()))
                    + u128::from(t.best_ask.map_or(0, |p| p.as_micros()))
                    + t.hash.map_or(0, str::len) as u128
            }
            _ => 1,
        },
        BoltMessage::Ack(a) => a.op_name.len() as u128 + u128::from(a.code.is_some()),
        _ => 1,
    }
}

#[test]
fn decoding_a_long_replay_allocates_nothing() {
    assert_replay_allocates_nothing(&replay(), |f| consume(&decode(f).expect("decodes")));
}

#[derive(Default)]
struct Sum {
    messages: u64,
    total: u128,
    breaks: u64,
    invalid: u64,
}

impl Handler<BoltFeed> for Sum {
    fn on_message(&mut self, msg: &BoltMessage<'_>, _: &Cx<'_, BoltFeed>) {
        self.messages += 1;
        self.total = self.total.wrapping_add(consume(msg));
    }
    fn on_break(&mut self, _: &Break, _: &Cx<'_, BoltFeed>) {
        self.breaks += 1;
    }
    fn on_invalid(&mut self, _: &polyclob::decode::DecodeError, _: &Cx<'_, BoltFeed>) {
        self.invalid += 1;
    }
}

/// Queue pop, epoch check, decode, sequence check, handler call and release of the frame:
/// zero allocations. Only polls that complete without yielding are measured (as in
/// `no_alloc_rtds`), so the reading task never runs inside a measured window.
#[test]
fn dispatch_to_a_polybolt_handler_allocates_nothing() {
    let server = server_thread();
    server.reply_to(r#""op":"auth""#, vec![r#"{"op":"authed"}"#.to_owned()]);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("rt");
    rt.block_on(async {
        let mut stream = PolyBoltStream::builder()
            .url(server.url())
            .no_proxy()
            .credentials(Credentials::new("k", "s", "p"))
            .subscribe(BoltSubscription::crypto("btcusd"))
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
                    .is_some_and(|c| c.received.len() >= 2))
                .await
        );
        server.act(
            0,
            Action::Flood {
                template: r#"{"v":1,"channel":"price.crypto","seq":{n},"ts":1788973001000,"payload":{"symbol":"btcusd","value":6{n}.5,"full_accuracy_value":"6{n}.50000000","timestamp":1788973001000,"source":"pyth"}}"#.into(),
                count: (WARM + MEASURED) as usize,
            },
        );
        let mut h = Sum::default();
        assert_dispatch_allocates_nothing!(stream, h, |h: &Sum| h.messages);
        assert_eq!((h.invalid, h.breaks), (0, 0));
        assert!(h.total != 0);
    });
}
