//! The WS market and user channels: wire format, snapshot + delta consistency, keepalive,
//! dynamic subscriptions, user events and WS faults.
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;

use std::collections::BTreeMap;
use std::time::Duration;

use polyclob::fixed::{Price, Size};
use polyclob::types::{Side, TickSize};
use polyclob_sim::{Faults, Simulator, Trigger, WsFault, WsRule};
use serde_json::{Value, json};
use support::*;

const S: u64 = 1_000_000;
const C: u64 = 10_000;

fn px(v: &Value) -> u32 {
    Price::parse(v.as_str().unwrap().as_bytes())
        .unwrap()
        .as_micros()
}

fn sz(v: &Value) -> u64 {
    Size::parse(v.as_str().unwrap().as_bytes())
        .unwrap()
        .as_micros()
}

/// A client-side book built from `book` snapshots and `price_change` deltas.
#[derive(Debug, Default, PartialEq)]
struct LocalBook {
    bids: BTreeMap<u32, u64>,
    asks: BTreeMap<u32, u64>,
}

impl LocalBook {
    fn from_snapshot(e: &Value) -> Self {
        let mut b = Self::default();
        for l in e["bids"].as_array().unwrap() {
            b.bids.insert(px(&l["price"]), sz(&l["size"]));
        }
        for l in e["asks"].as_array().unwrap() {
            b.asks.insert(px(&l["price"]), sz(&l["size"]));
        }
        b
    }

    fn apply(&mut self, c: &Value) {
        let side = if c["side"] == "BUY" {
            &mut self.bids
        } else {
            &mut self.asks
        };
        let (p, s) = (px(&c["price"]), sz(&c["size"]));
        if s == 0 {
            side.remove(&p);
        } else {
            side.insert(p, s);
        }
    }
}

/// `text` (one compact event) has its members in the order the exchange writes them.
fn in_exchange_order(text: &str, kind: &str) {
    let keys: &[&str] = match kind {
        "book" => &[
            "market",
            "asset_id",
            "timestamp",
            "hash",
            "bids",
            "price",
            "size",
            "asks",
            "tick_size",
            "event_type",
            "last_trade_price",
        ],
        "price_change" => &[
            "market",
            "price_changes",
            "asset_id",
            "price",
            "size",
            "side",
            "hash",
            "best_bid",
            "best_ask",
            "timestamp",
            "event_type",
        ],
        "last_trade_price" => &[
            "asset_id",
            "event_type",
            "fee_rate_bps",
            "market",
            "price",
            "side",
            "size",
            "timestamp",
        ],
        other => panic!("no order known for {other}"),
    };
    let mut at = 0;
    for k in keys {
        let key = format!("\"{k}\":");
        let Some(i) = text[at..].find(&key) else {
            panic!("{kind}: `{k}` missing or out of the exchange's order in {text}")
        };
        at += i + key.len();
    }
}

#[tokio::test]
async fn subscribe_gets_one_frame_with_both_books_worst_first() {
    let sim = start(2).await;
    let m = &markets()[0];
    let (yes, no) = (m.tokens()[0].token_id(), m.tokens()[1].token_id());
    let mut ws = ws(&sim, "market").await;
    send(
        &mut ws,
        &format!(r#"{{"assets_ids":["{yes}","{no}"],"type":"market"}}"#),
    )
    .await;
    let text = next_text(&mut ws, LONG).await.unwrap();
    assert!(text.starts_with(r#"[{"market":""#), "{text}");
    in_exchange_order(&text, "book");
    let v: Value = serde_json::from_str(&text).unwrap();
    let evs = v.as_array().expect("the initial dump is one JSON array");
    assert_eq!(evs.len(), 2);
    for (e, id) in evs.iter().zip([yes, no]) {
        assert_eq!(e["event_type"], "book");
        assert_eq!(e["asset_id"], id);
        assert_eq!(e["market"], m.condition_id());
        assert!(e["timestamp"].is_string() && e["hash"].is_string());
        let bids: Vec<u32> = e["bids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| px(&l["price"]))
            .collect();
        let asks: Vec<u32> = e["asks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| px(&l["price"]))
            .collect();
        assert!(bids.windows(2).all(|w| w[0] < w[1]));
        assert!(asks.windows(2).all(|w| w[0] > w[1]));
    }
    // Keepalive: text PING, text PONG.
    send(&mut ws, "PING").await;
    assert_eq!(next_text(&mut ws, LONG).await.as_deref(), Some("PONG"));
    // Unknown assets are ignored (no frame), garbage is ignored.
    send(&mut ws, r#"{"assets_ids":["42"],"operation":"subscribe"}"#).await;
    send(&mut ws, "{oops").await;
    send(&mut ws, "PING").await;
    assert_eq!(next_text(&mut ws, LONG).await.as_deref(), Some("PONG"));
}

#[tokio::test]
async fn deltas_keep_a_client_book_equal_to_the_rest_book() {
    let sim = start(9).await;
    let m = &markets()[0];
    let yes = m.tokens()[0].token_id().to_owned();
    let no = m.tokens()[1].token_id().to_owned();
    let mut ws = ws(&sim, "market").await;
    send(
        &mut ws,
        &format!(r#"{{"assets_ids":["{yes}"],"type":"market"}}"#),
    )
    .await;
    let snap = next_events(&mut ws, LONG).await.unwrap();
    let mut local = LocalBook::from_snapshot(&snap[0]);

    let a = Trader::new(&sim, KEY_A).await;
    let b = Trader::new(&sim, KEY_B).await;
    // A deterministic mixed flow: resting orders on both sides, crossing sweeps, cancels.
    let mut x: u64 = 12345;
    let mut resting = Vec::new();
    let mut trades_seen = 0;
    let mut books_seen = 0;
    for i in 0..40u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let side = if (x >> 33) % 2 == 0 {
            Side::Buy
        } else {
            Side::Sell
        };
        let price = (45 + (x >> 40) % 15) * C;
        let size = (5 + (x >> 20) % 40) * S;
        let t = if i % 2 == 0 { &a } else { &b };
        let (s, r, id) = t.post(&limit(&yes, side, price, size, 1000 + i)).await;
        assert_eq!(s, 200, "{r}");
        if r["status"] == "live" {
            resting.push((i % 2, id));
        }
        if i % 7 == 6 {
            if let Some((who, id)) = resting.pop() {
                let t = if who == 0 { &a } else { &b };
                t.l2(
                    "DELETE",
                    "/order",
                    Some(&format!(r#"{{"orderID":"{id}"}}"#)),
                )
                .await;
            }
        }
    }
    // Drain everything published so far (PONG marks the end: frames are in order).
    send(&mut ws, "PING").await;
    loop {
        let t = next_text(&mut ws, LONG).await.unwrap();
        if t == "PONG" {
            break;
        }
        let v: Value = serde_json::from_str(&t).unwrap();
        // Members come in the exchange's order (what a client's fast path is written for),
        // not sorted as `serde_json`'s maps would have them.
        in_exchange_order(&t, v["event_type"].as_str().unwrap());
        match v["event_type"].as_str().unwrap() {
            "price_change" => {
                assert_eq!(v["market"], m.condition_id());
                assert!(v["timestamp"].is_string());
                // Each level comes as a pair, YES's entry (the orders were YES orders) then
                // NO's mirror: the other side at the complement, the same size.
                let entries = v["price_changes"].as_array().unwrap();
                assert_eq!(entries.len() % 2, 0);
                for pair in entries.chunks(2) {
                    let (c, mirror) = (&pair[0], &pair[1]);
                    assert_eq!(c["asset_id"], yes.as_str());
                    assert_eq!(mirror["asset_id"], no.as_str());
                    assert_eq!(px(&c["price"]) + px(&mirror["price"]), 1_000_000);
                    assert_ne!(c["side"], mirror["side"]);
                    assert_eq!(c["size"], mirror["size"]);
                    assert!(
                        c["best_bid"].is_string()
                            && c["best_ask"].is_string()
                            && c["hash"].is_string()
                    );
                    local.apply(c);
                }
                // best_bid/best_ask describe the book after the change.
                let last = &entries[entries.len() - 2];
                let bb = local.bids.keys().next_back().copied().unwrap_or(0);
                assert_eq!(px(&last["best_bid"]), bb);
            }
            // After a trade the exchange re-sends the whole book; the deltas before it must
            // already have brought ours to the same state.
            "book" => {
                assert_eq!(v["asset_id"], yes.as_str());
                assert_eq!(local, LocalBook::from_snapshot(&v));
                books_seen += 1;
            }
            "last_trade_price" => {
                trades_seen += 1;
                assert!(v["size"].is_string() && v["side"].is_string());
            }
            other => panic!("unexpected {other}"),
        }
    }
    assert!(
        trades_seen > 0,
        "the flow should have crossed at least once"
    );
    assert_eq!(books_seen, trades_seen, "one book per trade");
    let (_, rest) = get(&sim, &format!("/book?token_id={yes}")).await;
    assert_eq!(local, LocalBook::from_snapshot(&rest));
    // The REST book too keeps the exchange's member order.
    let text = http_client()
        .get(format!("{}/book?token_id={yes}", sim.http_url()))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mut at = 0;
    for k in [
        "market",
        "asset_id",
        "timestamp",
        "hash",
        "bids",
        "asks",
        "min_order_size",
        "tick_size",
        "neg_risk",
        "last_trade_price",
    ] {
        let key = format!("\"{k}\":");
        at += text[at..]
            .find(&key)
            .unwrap_or_else(|| panic!("`{k}` missing or out of order in {text}"))
            + key.len();
    }
}

#[tokio::test]
async fn dynamic_subscribe_and_unsubscribe() {
    let sim = start_empty().await;
    let a = Trader::new(&sim, KEY_A).await;
    let mut ws = ws(&sim, "market").await;
    send(
        &mut ws,
        &format!(r#"{{"assets_ids":["{YES}"],"type":"market"}}"#),
    )
    .await;
    assert_eq!(
        next_events(&mut ws, LONG).await.unwrap()[0]["asset_id"],
        YES
    );
    a.post(&limit(NO, Side::Buy, 40 * C, 10 * S, 1)).await;
    a.post(&limit(YES, Side::Buy, 40 * C, 10 * S, 2)).await;
    // A BUY NO at 0.40 is a YES ask at 0.60: YES's subscriber hears it, in the venue's paired
    // frame (the order's own token first).
    let e = wait_event(&mut ws, "price_change", LONG).await.unwrap();
    let pair = |e: &Value, i: usize| {
        let c = &e["price_changes"][i];
        (
            c["asset_id"].as_str().unwrap().to_owned(),
            c["side"].as_str().unwrap().to_owned(),
            c["price"].as_str().unwrap().to_owned(),
            c["size"].as_str().unwrap().to_owned(),
        )
    };
    let own =
        |a: &str, s: &str, p: &str| (a.to_owned(), s.to_owned(), p.to_owned(), "10".to_owned());
    assert_eq!(pair(&e, 0), own(NO, "BUY", "0.4"));
    assert_eq!(pair(&e, 1), own(YES, "SELL", "0.6"));
    let e = wait_event(&mut ws, "price_change", LONG).await.unwrap();
    assert_eq!(pair(&e, 0), own(YES, "BUY", "0.4"));
    assert_eq!(pair(&e, 1), own(NO, "SELL", "0.6"));
    // Add NO: its snapshot already contains both orders, the mirror of the other's.
    send(
        &mut ws,
        &format!(r#"{{"assets_ids":["{NO}"],"operation":"subscribe"}}"#),
    )
    .await;
    let e = next_events(&mut ws, LONG).await.unwrap();
    assert_eq!(
        (
            e[0]["event_type"].as_str().unwrap(),
            e[0]["asset_id"].as_str().unwrap()
        ),
        ("book", NO)
    );
    assert_eq!(
        (&e[0]["bids"][0]["price"], &e[0]["bids"][0]["size"]),
        (&json!("0.4"), &json!("10"))
    );
    assert_eq!(
        (&e[0]["asks"][0]["price"], &e[0]["asks"][0]["size"]),
        (&json!("0.6"), &json!("10"))
    );
    // Drop YES: YES's own frames (its book after a trade) are not delivered; the paired
    // changes are, for NO.
    send(
        &mut ws,
        &format!(r#"{{"assets_ids":["{YES}"],"operation":"unsubscribe"}}"#),
    )
    .await;
    send(&mut ws, "PING").await;
    assert_eq!(next_text(&mut ws, LONG).await.as_deref(), Some("PONG"));
    let b = Trader::new(&sim, KEY_B).await;
    b.post(&limit(YES, Side::Sell, 40 * C, 10 * S, 3)).await;
    send(&mut ws, "PING").await;
    let mut books = Vec::new();
    loop {
        let t = next_text(&mut ws, LONG).await.unwrap();
        if t == "PONG" {
            break;
        }
        let v: Value = serde_json::from_str(&t).unwrap();
        match v["event_type"].as_str().unwrap() {
            "book" => books.push(v["asset_id"].as_str().unwrap().to_owned()),
            "price_change" => assert_eq!(
                pair(&v, 1),
                (
                    NO.to_owned(),
                    "SELL".to_owned(),
                    "0.6".to_owned(),
                    "0".to_owned()
                )
            ),
            _ => {}
        }
    }
    assert_eq!(books, [NO]);
}

#[tokio::test]
async fn tick_size_change_is_announced() {
    let sim = start_empty().await;
    let mut ws = ws(&sim, "market").await;
    send(
        &mut ws,
        &format!(r#"{{"assets_ids":["{YES}"],"type":"market"}}"#),
    )
    .await;
    next_events(&mut ws, LONG).await.unwrap();
    assert!(sim.set_tick_size(COND, TickSize::Thousandth));
    assert!(!sim.set_tick_size("0xnope", TickSize::Thousandth));
    let e = wait_event(&mut ws, "tick_size_change", LONG).await.unwrap();
    assert_eq!(
        (
            e["old_tick_size"].as_str().unwrap(),
            e["new_tick_size"].as_str().unwrap()
        ),
        ("0.01", "0.001")
    );
    assert_eq!(e["asset_id"], YES);
    let (_, t) = get(&sim, &format!("/tick-size?token_id={YES}")).await;
    assert_eq!(t["minimum_tick_size"], 0.001);
    // The new grid is enforced.
    let a = Trader::new(&sim, KEY_A).await;
    assert_eq!(
        a.post(&limit(YES, Side::Buy, 405_000, 10 * S, 1)).await.0,
        200
    );
}

#[tokio::test]
async fn user_channel_orders_and_trades_for_the_authenticated_user_only() {
    let sim = start_empty().await;
    let a = Trader::new(&sim, KEY_A).await;
    let b = Trader::new(&sim, KEY_B).await;
    let auth = |t: &Trader, markets: &str| {
        format!(
            r#"{{"auth":{{"apiKey":"{}","secret":"{}","passphrase":"{}"}},"markets":[{markets}],"type":"user"}}"#,
            t.creds.api_key(),
            t.creds.secret(),
            t.creds.passphrase()
        )
    };
    let mut wa = ws(&sim, "user").await;
    send(&mut wa, &auth(&a, &format!(r#""{COND}""#))).await;
    let mut wb = ws(&sim, "user").await;
    send(&mut wb, &auth(&b, "")).await;
    let mut wa_other = ws(&sim, "user").await;
    send(&mut wa_other, &auth(&a, r#""0xother""#)).await;
    // Let the subscriptions land.
    for w in [&mut wa, &mut wb, &mut wa_other] {
        send(w, "PING").await;
        assert_eq!(next_text(w, LONG).await.as_deref(), Some("PONG"));
    }

    let (_, _, a_id) = a.post(&limit(YES, Side::Sell, 55 * C, 10 * S, 1)).await;
    let e = wait_event(&mut wa, "order", LONG).await.unwrap();
    assert_eq!(
        (e["type"].as_str().unwrap(), e["id"].as_str().unwrap()),
        ("PLACEMENT", a_id.as_str())
    );
    assert_eq!(e["market"], COND);
    assert_eq!(e["original_size"], "10");
    assert_eq!(e["size_matched"], "0");
    assert_eq!(e["owner"], a.creds.api_key());

    let (s, r, b_id) = b.post(&limit(YES, Side::Buy, 55 * C, 6 * S, 2)).await;
    assert_eq!((s, r["status"].as_str().unwrap()), (200, "matched"));
    let e = wait_event(&mut wa, "order", LONG).await.unwrap();
    assert_eq!(
        (
            e["type"].as_str().unwrap(),
            e["size_matched"].as_str().unwrap()
        ),
        ("UPDATE", "6")
    );
    let t1 = wait_event(&mut wa, "trade", LONG).await.unwrap();
    assert_eq!(t1["status"], "MATCHED");
    assert_eq!(t1["taker_order_id"], b_id.as_str());
    assert_eq!(t1["maker_orders"][0]["order_id"], a_id.as_str());
    assert_eq!(t1["maker_orders"][0]["matched_amount"], "6");
    let t2 = wait_event(&mut wa, "trade", LONG).await.unwrap();
    assert_eq!(t2["status"], "CONFIRMED");
    assert!(t2["transaction_hash"].as_str().unwrap().starts_with("0x"));
    // B (taker) sees the same trade.
    let tb = wait_event(&mut wb, "trade", LONG).await.unwrap();
    assert_eq!(tb["id"], t1["id"]);

    a.l2(
        "DELETE",
        "/order",
        Some(&format!(r#"{{"orderID":"{a_id}"}}"#)),
    )
    .await;
    let e = wait_event(&mut wa, "order", LONG).await.unwrap();
    assert_eq!(e["type"], "CANCELLATION");

    // A's connection filtered on another market saw nothing; B saw no order events of A's.
    send(&mut wa_other, "PING").await;
    assert_eq!(
        next_text(&mut wa_other, LONG).await.as_deref(),
        Some("PONG")
    );
    send(&mut wb, "PING").await;
    loop {
        let t = next_text(&mut wb, LONG).await.unwrap();
        if t == "PONG" {
            break;
        }
        let v: Value = serde_json::from_str(&t).unwrap();
        assert_ne!(v["owner"], a.creds.api_key(), "B got A's event: {v}");
    }
}

#[tokio::test]
async fn user_channel_rejects_bad_credentials() {
    let sim = start_empty().await;
    let a = Trader::new(&sim, KEY_A).await;
    let mut w = ws(&sim, "user").await;
    let msg = format!(
        r#"{{"auth":{{"apiKey":"{}","secret":"{}","passphrase":"wrong"}},"markets":[],"type":"user"}}"#,
        a.creds.api_key(),
        a.creds.secret()
    );
    send(&mut w, &msg).await;
    use futures_util::StreamExt;
    let frame = tokio::time::timeout(LONG, w.next()).await.unwrap();
    match frame {
        Some(Ok(tokio_tungstenite::tungstenite::Message::Close(Some(c)))) => {
            assert_eq!(c.reason.as_str(), "invalid auth")
        }
        other => panic!("expected a close frame, got {other:?}"),
    }
}

/// An initial market subscribe that sends no frame (no assets).
const SUBSCRIBE_NOTHING: &str = r#"{"assets_ids":[],"type":"market"}"#;

#[tokio::test]
async fn handle_can_drop_every_connection() {
    let sim = start_empty().await;
    let mut w = ws(&sim, "market").await;
    // No PING before the initial subscribe (the exchange rejects it).
    send(&mut w, SUBSCRIBE_NOTHING).await;
    send(&mut w, "PING").await;
    assert_eq!(next_text(&mut w, LONG).await.as_deref(), Some("PONG"));
    sim.disconnect_ws();
    assert_eq!(next_text(&mut w, LONG).await, None);
    // New connections work.
    let mut w = ws(&sim, "market").await;
    send(&mut w, SUBSCRIBE_NOTHING).await;
    send(&mut w, "PING").await;
    assert_eq!(next_text(&mut w, LONG).await.as_deref(), Some("PONG"));
}

#[tokio::test]
async fn scheduled_disconnect_and_silence() {
    let sim = Simulator::builder()
        .markets(vec![empty_market()])
        .faults(Faults::none().ws(WsRule::new(Trigger::EveryNth(3), WsFault::Disconnect)))
        .start()
        .await
        .unwrap();
    let mut w = ws(&sim, "market").await;
    send(&mut w, SUBSCRIBE_NOTHING).await;
    for _ in 0..2 {
        send(&mut w, "PING").await;
        assert_eq!(next_text(&mut w, LONG).await.as_deref(), Some("PONG"));
    }
    send(&mut w, "PING").await;
    assert_eq!(
        next_text(&mut w, LONG).await,
        None,
        "third frame drops the connection"
    );

    sim.set_faults(Faults::none().ws(WsRule::new(
        Trigger::Window { first: 2, count: 1 },
        WsFault::Silence(Duration::from_millis(400)),
    )));
    let mut w = ws(&sim, "market").await;
    send(&mut w, SUBSCRIBE_NOTHING).await;
    send(&mut w, "PING").await;
    assert_eq!(next_text(&mut w, LONG).await.as_deref(), Some("PONG"));
    send(&mut w, "PING").await; // frame 2: silence starts, dropped
    send(&mut w, "PING").await; // during silence: dropped
    assert_eq!(next_text(&mut w, Duration::from_millis(250)).await, None);
    tokio::time::sleep(Duration::from_millis(500)).await;
    send(&mut w, "PING").await;
    assert_eq!(
        next_text(&mut w, LONG).await.as_deref(),
        Some("PONG"),
        "alive again after the silence"
    );
}

#[tokio::test]
async fn best_bid_ask_only_with_custom_features() {
    let sim = start_empty().await;
    let a = Trader::new(&sim, KEY_A).await;
    let mut custom = ws(&sim, "market").await;
    send(
        &mut custom,
        &format!(r#"{{"assets_ids":["{YES}"],"type":"market","custom_feature_enabled":true}}"#),
    )
    .await;
    next_events(&mut custom, LONG).await.unwrap();
    let mut plain = ws(&sim, "market").await;
    send(
        &mut plain,
        &format!(r#"{{"assets_ids":["{YES}"],"type":"market"}}"#),
    )
    .await;
    next_events(&mut plain, LONG).await.unwrap();

    a.post(&limit(YES, Side::Buy, 40 * C, 10 * S, 1)).await;
    a.post(&limit(YES, Side::Sell, 60 * C, 10 * S, 2)).await;
    a.post(&limit(YES, Side::Buy, 39 * C, 10 * S, 3)).await; // not the top: no best_bid_ask
    a.post(&limit(YES, Side::Buy, 42 * C, 10 * S, 4)).await;
    let mut tops = Vec::new();
    send(&mut custom, "PING").await;
    loop {
        let t = next_text(&mut custom, LONG).await.unwrap();
        if t == "PONG" {
            break;
        }
        let v: Value = serde_json::from_str(&t).unwrap();
        if v["event_type"] == "best_bid_ask" {
            tops.push((
                v["best_bid"].as_str().unwrap().to_owned(),
                v["best_ask"].as_str().unwrap().to_owned(),
                v["spread"].as_str().unwrap().to_owned(),
            ));
        }
    }
    let s = |a: &str, b: &str, c: &str| (a.to_owned(), b.to_owned(), c.to_owned());
    assert_eq!(
        tops,
        vec![
            s("0.4", "1", "0"),
            s("0.4", "0.6", "0.2"),
            s("0.42", "0.6", "0.18")
        ]
    );
    send(&mut plain, "PING").await;
    loop {
        let t = next_text(&mut plain, LONG).await.unwrap();
        if t == "PONG" {
            break;
        }
        let v: Value = serde_json::from_str(&t).unwrap();
        assert_ne!(v["event_type"], "best_bid_ask");
    }
}

#[tokio::test]
async fn simulated_activity_streams_consistently() {
    let sim = Simulator::builder()
        .seed(21)
        .activity(Some(Duration::from_millis(2)))
        .start()
        .await
        .unwrap();
    let tokens: Vec<String> = markets()
        .iter()
        .flat_map(|m| m.tokens().iter().map(|t| t.token_id().to_owned()))
        .collect();
    let mut w = ws(&sim, "market").await;
    send(
        &mut w,
        &serde_json::json!({"assets_ids": tokens, "type": "market"}).to_string(),
    )
    .await;
    let mut local: BTreeMap<String, LocalBook> = BTreeMap::new();
    for e in next_events(&mut w, LONG).await.unwrap() {
        local.insert(
            e["asset_id"].as_str().unwrap().to_owned(),
            LocalBook::from_snapshot(&e),
        );
    }
    assert_eq!(local.len(), 8);
    let (mut changes, mut trades) = (0, 0);
    let started = std::time::Instant::now();
    let apply = |v: &Value, local: &mut BTreeMap<String, LocalBook>| match v["event_type"]
        .as_str()
        .unwrap()
    {
        "price_change" => {
            for c in v["price_changes"].as_array().unwrap() {
                local
                    .get_mut(c["asset_id"].as_str().unwrap())
                    .unwrap()
                    .apply(c);
            }
            1
        }
        "book" => {
            let id = v["asset_id"].as_str().unwrap();
            assert_eq!(
                local[id],
                LocalBook::from_snapshot(v),
                "deltas drifted from the book"
            );
            0
        }
        "last_trade_price" => 2,
        _ => 0,
    };
    while started.elapsed() < Duration::from_millis(1500) {
        let Some(t) = next_text(&mut w, LONG).await else {
            break;
        };
        let v: Value = serde_json::from_str(&t).unwrap();
        match apply(&v, &mut local) {
            1 => changes += 1,
            2 => trades += 1,
            _ => {}
        }
    }
    sim.set_activity(None);
    tokio::time::sleep(Duration::from_millis(20)).await;
    send(&mut w, "PING").await;
    loop {
        let t = next_text(&mut w, LONG).await.unwrap();
        if t == "PONG" {
            break;
        }
        apply(&serde_json::from_str(&t).unwrap(), &mut local);
    }
    assert!(changes > 50, "{changes} price changes");
    assert!(trades > 3, "{trades} trades");
    for (id, book) in &local {
        let (_, rest) = get(&sim, &format!("/book?token_id={id}")).await;
        assert_eq!(*book, LocalBook::from_snapshot(&rest), "{id}");
        assert!(
            !book.bids.is_empty() && !book.asks.is_empty(),
            "activity keeps both sides populated"
        );
        let (bb, ba) = (
            book.bids.keys().next_back().unwrap(),
            book.asks.keys().next().unwrap(),
        );
        assert!(bb < ba, "never crossed");
    }
}

#[tokio::test]
async fn stepped_activity_is_deterministic() {
    let books = |sim: &polyclob_sim::SimHandle| {
        let sim_url = sim.http_url();
        async move {
            let mut out = Vec::new();
            for m in markets() {
                for t in m.tokens() {
                    let r = http_client()
                        .get(format!("{sim_url}/book?token_id={}", t.token_id()))
                        .send()
                        .await
                        .unwrap();
                    let v: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
                    out.push((v["bids"].clone(), v["asks"].clone()));
                }
            }
            out
        }
    };
    let a = start(5).await;
    let b = start(5).await;
    let c = start(6).await;
    let before = books(&a).await;
    for s in [&a, &b, &c] {
        s.step_activity(300);
    }
    let after = books(&a).await;
    assert_ne!(before, after, "activity changed the books");
    assert_eq!(after, books(&b).await);
    assert_ne!(after, books(&c).await);
}

/// Counts a market stream's frames: snapshot frames (arrays) apart, and any status change
/// other than a first connection.
#[derive(Default)]
struct FrameCount {
    snapshots: usize,
    frames: u64,
    trouble: Vec<String>,
}

type RawCx<'a> = polyclob::ws::feed::Cx<'a, polyclob::ws::feed::Frames>;

impl polyclob::ws::feed::Handler<polyclob::ws::feed::Frames> for FrameCount {
    fn on_message(&mut self, frame: &polyclob::ws::event::Frame<'_>, _: &RawCx<'_>) {
        if frame.as_str().is_some_and(|t| t.starts_with('[')) {
            self.snapshots += 1;
        } else {
            self.frames += 1;
        }
    }

    fn on_status(&mut self, status: &polyclob::ws::event::Status, _: &RawCx<'_>) {
        if !matches!(
            status,
            polyclob::ws::event::Status::Connected {
                reconnect: false,
                ..
            }
        ) {
            self.trouble.push(format!("{status:?}"));
        }
    }
}

/// 400 assets over two connections while the simulator is paced to about 2,000 frames a
/// second for a second (`market_frames_published`): every frame it published reaches the
/// client exactly once (none left in a connection's write buffer by the batched flush, none
/// lost to a lag), with no disconnect.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paced_activity_reaches_every_shard() {
    use polyclob_sim::MarketSpec;
    let ids: Vec<String> = (0..400u64).map(|i| format!("{}", 7_000_000 + i)).collect();
    let specs: Vec<MarketSpec> = ids
        .chunks(2)
        .enumerate()
        .map(|(i, p)| {
            MarketSpec::binary(format!("0x{:064x}", i + 1), format!("M{i}"), [&p[0], &p[1]])
        })
        .collect();
    let sim = std::sync::Arc::new(
        Simulator::builder()
            .seed(21)
            .markets(specs)
            .start()
            .await
            .unwrap(),
    );
    let mut stream = polyclob::ws::market::MarketStream::builder()
        .url(sim.market_ws_url())
        .assets(ids)
        .frames()
        .build()
        .unwrap();
    assert_eq!(stream.handle().shard_count(), 2);
    let mut count = FrameCount::default();
    tokio::time::timeout(Duration::from_secs(10), async {
        while count.snapshots < 2 {
            assert!(stream.dispatch(&mut count).await);
        }
    })
    .await
    .expect("both snapshots");
    let p0 = sim.market_frames_published();
    count.frames = 0;
    let driver = {
        let sim = std::sync::Arc::clone(&sim);
        tokio::spawn(async move {
            let t0 = std::time::Instant::now();
            while t0.elapsed() < Duration::from_secs(1) {
                let due = p0 + (t0.elapsed().as_secs_f64() * 2_000.0) as u64;
                while sim.market_frames_published() < due {
                    sim.step_activity(1);
                }
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            sim.market_frames_published() - p0
        })
    };
    let published = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let published = driver
                .is_finished()
                .then(|| sim.market_frames_published() - p0);
            if published.is_some_and(|p| count.frames >= p) {
                return published.unwrap_or(0);
            }
            // Cancel-safe: the dispatcher only awaits its queue.
            let _ =
                tokio::time::timeout(Duration::from_millis(20), stream.dispatch(&mut count)).await;
        }
    })
    .await
    .unwrap_or_else(|_| {
        panic!(
            "{} frames received, {} published",
            count.frames,
            sim.market_frames_published() - p0
        )
    });
    assert!(
        published >= 1_000,
        "the pacing published {published} frames"
    );
    assert_eq!(count.frames, published, "every published frame, once");
    assert!(count.trouble.is_empty(), "{:?}", count.trouble);
}
