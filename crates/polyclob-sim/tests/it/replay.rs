//! Replay: a recorded market-channel feed drives the books, and a client's resting order is
//! filled by its queue position behind the recorded size at its level.
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;

use polyclob::types::Side;
use polyclob_sim::{Replay, SimHandle, Simulator};
use serde_json::json;
use support::{COND, KEY_A, Trader, YES, empty_market, get, limit};

fn book(bids: &[(&str, &str)], asks: &[(&str, &str)]) -> String {
    let levels = |l: &[(&str, &str)]| -> Vec<serde_json::Value> {
        l.iter()
            .map(|(p, s)| json!({"price": p, "size": s}))
            .collect()
    };
    json!([{"event_type":"book","asset_id":YES,"market":COND,"bids":levels(bids),"asks":levels(asks),"timestamp":"1","hash":"0x0"}]).to_string()
}

fn level(side: &str, price: &str, size: &str) -> String {
    json!({"event_type":"price_change","market":COND,"timestamp":"2","price_changes":[{"asset_id":YES,"price":price,"size":size,"side":side,"hash":"0x0","best_bid":"","best_ask":""}]}).to_string()
}

fn trade(side: &str, price: &str, size: &str) -> String {
    json!({"event_type":"last_trade_price","asset_id":YES,"market":COND,"price":price,"size":size,"side":side,"fee_rate_bps":"0","timestamp":"3"}).to_string()
}

/// The recorded size at a level of the REST book.
async fn size_at(sim: &SimHandle, side: &str, price: &str) -> f64 {
    let (_, b) = get(sim, &format!("/book?token_id={YES}")).await;
    b[side]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["price"] == price)
        .map_or(0.0, |l| l["size"].as_str().unwrap().parse().unwrap())
}

/// Shares of order `id` matched so far.
async fn matched(me: &Trader, id: &str) -> f64 {
    let (_, o, _) = me.l2("GET", &format!("/data/order/{id}"), None).await;
    o["size_matched"].as_str().unwrap().parse::<f64>().unwrap()
}

/// The "Done when": a recorded file replays with the client's order filled by queue
/// position: 100 shares rest at 0.48 before it, 30 arrive after it; a recorded sale of 60 does
/// not reach it, the next of 50 takes the 40 left ahead and 10 of its 10; a recorded cancel
/// comes out of the orders behind it.
#[tokio::test]
async fn a_recorded_feed_replays_with_orders_filled_by_queue_position() {
    let frames = [
        book(&[("0.48", "100"), ("0.47", "20")], &[("0.52", "50")]),
        level("BUY", "0.48", "130"), // 30 more, behind the client's order
        trade("SELL", "0.48", "60"), // a seller takes 60 of the 100 ahead
        level("BUY", "0.48", "70"),  // what the recording shows after it
        level("BUY", "0.48", "60"),  // a cancel of 10: from the back
        trade("SELL", "0.48", "50"), // 40 ahead, then the client's 10
        level("BUY", "0.48", "10"),
    ];
    // The same feed in both formats.
    let jsonl = frames.join("\n");
    let mut recording = b"polyclob-book-recording 1\n".to_vec();
    for (i, f) in frames.iter().enumerate() {
        recording.extend_from_slice(format!("F {i} 0 1 {}\n{f}\n", f.len()).as_bytes());
    }
    let from_file = Replay::from_recording(&recording).unwrap();
    assert_eq!(from_file, Replay::from_jsonl(&jsonl).unwrap());

    let sim = Simulator::builder()
        .markets(vec![empty_market()])
        .replay(from_file)
        .start()
        .await
        .unwrap();
    assert_eq!(sim.replay_left(), 7);
    assert_eq!(sim.replay_step(1), 1);
    assert_eq!(size_at(&sim, "bids", "0.48").await, 100.0);
    assert_eq!(size_at(&sim, "asks", "0.52").await, 50.0);

    let me = Trader::new(&sim, KEY_A).await;
    let (s, v, id) = me
        .post(&limit(YES, Side::Buy, 480_000, 10_000_000, 1))
        .await;
    assert_eq!((s, v["status"].as_str()), (200, Some("live")), "{v}");

    assert_eq!(sim.replay_step(2), 2); // +30 behind, a sale of 60
    assert_eq!(matched(&me, &id).await, 0.0, "60 of the 100 ahead traded");
    // 40 recorded ahead + the client's 10 + 30 recorded behind.
    assert_eq!(size_at(&sim, "bids", "0.48").await, 80.0);
    assert_eq!(sim.replay_step(2), 2); // the recorded 70 (no change), then a cancel of 10
    assert_eq!(size_at(&sim, "bids", "0.48").await, 70.0);
    assert_eq!(matched(&me, &id).await, 0.0);
    assert_eq!(sim.replay_step(1), 1); // a sale of 50: 40 ahead, then the client's 10
    assert_eq!(matched(&me, &id).await, 10.0, "filled by queue position");
    assert_eq!(sim.replay_step(5), 1, "the feed is over");
    assert_eq!(size_at(&sim, "bids", "0.48").await, 10.0);
    assert_eq!(size_at(&sim, "bids", "0.47").await, 20.0);
}
