//! The user channel's faults as scenario rules, seen by a plain WebSocket client: history
//! replayed as a connection subscribes again, a stale status after a reconnect, and a trade
//! message sent malformed while REST has the trade.
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;

use std::time::Duration;

use polyclob::decode::{DecodeErrorKind, EventView};
use polyclob::types::Side;
use polyclob_sim::{Faults, Settlement, SimHandle, Simulator, Trigger, WsChannel, WsFault, WsRule};
use serde_json::Value;
use support::{COND, KEY_A, KEY_B, Trader, Ws, YES, limit, next_text, send, ws};

const S: u64 = 1_000_000;
const LONG: Duration = Duration::from_secs(5);

async fn sim(fault: WsFault, trigger: Trigger) -> SimHandle {
    Simulator::builder()
        .markets(vec![support::empty_market()])
        .settlement(
            Settlement::immediate()
                .mined_after(Duration::from_millis(20))
                .confirmed_after(Duration::from_millis(20)),
        )
        .faults(Faults::none().ws(WsRule::new(trigger, fault).channel(WsChannel::User)))
        .start()
        .await
        .unwrap()
}

/// `t`'s user channel, subscribed (its `PING` answered).
async fn user(sim: &SimHandle, t: &Trader) -> Ws {
    let mut w = ws(sim, "user").await;
    send(
        &mut w,
        &format!(
            r#"{{"auth":{{"apiKey":"{}","secret":"{}","passphrase":"{}"}},"markets":["{COND}"],"type":"user"}}"#,
            t.creds.api_key(),
            t.creds.secret(),
            t.creds.passphrase()
        ),
    )
    .await;
    w
}

/// A trade between `a` (a resting SELL) and `b` (a crossing BUY).
async fn trade(a: &Trader, b: &Trader, salt: u64) {
    let (status, v, _) = a.post(&limit(YES, Side::Sell, 500_000, 5 * S, salt)).await;
    assert_eq!(status, 200, "{v}");
    let (status, v, _) = b
        .post(&limit(YES, Side::Buy, 500_000, 5 * S, salt + 1))
        .await;
    assert_eq!(
        (status, v["status"].as_str()),
        (200, Some("matched")),
        "{v}"
    );
}

/// The next `n` trade messages (order messages skipped), as sent; panics after 5 s.
async fn trade_texts(w: &mut Ws, n: usize) -> Vec<String> {
    let mut out = Vec::new();
    while out.len() < n {
        let t = next_text(w, LONG)
            .await
            .unwrap_or_else(|| panic!("{} of {n} trade messages: {out:?}", out.len()));
        if t.contains(r#""event_type":"trade""#) {
            out.push(t);
        }
    }
    out
}

fn id_status(texts: &[String]) -> Vec<(String, String)> {
    texts
        .iter()
        .map(|t| {
            let v: Value = serde_json::from_str(t).unwrap();
            (
                v["id"].as_str().unwrap().to_owned(),
                v["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// A trade's three messages, then a reconnect: as the connection subscribes again, the
/// server sends them again, oldest first, in their historical statuses.
#[tokio::test]
async fn history_is_replayed_after_a_reconnect() {
    let sim = sim(WsFault::ReplayHistory { trades: 5 }, Trigger::EveryNth(1)).await;
    let (a, b) = (
        Trader::new(&sim, KEY_A).await,
        Trader::new(&sim, KEY_B).await,
    );
    let mut w = user(&sim, &a).await;
    trade(&a, &b, 1).await;
    let live = id_status(&trade_texts(&mut w, 3).await);
    let statuses: Vec<&str> = live.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(statuses, ["MATCHED", "MINED", "CONFIRMED"]);
    drop(w);
    let mut w = user(&sim, &a).await;
    assert_eq!(id_status(&trade_texts(&mut w, 3).await), live);
}

/// After a reconnect, the status before the latest: the trade seems to go backwards.
#[tokio::test]
async fn a_stale_status_after_a_reconnect() {
    let sim = sim(WsFault::StaleStatus { trades: 1 }, Trigger::EveryNth(1)).await;
    let (a, b) = (
        Trader::new(&sim, KEY_A).await,
        Trader::new(&sim, KEY_B).await,
    );
    let mut w = user(&sim, &a).await;
    trade(&a, &b, 1).await;
    let live = id_status(&trade_texts(&mut w, 3).await);
    sim.disconnect_ws();
    let mut w = user(&sim, &a).await;
    let stale = id_status(&trade_texts(&mut w, 1).await);
    assert_eq!(stale, [(live[0].0.clone(), "MINED".to_owned())]);
}

/// One trade message goes out malformed: it does not decode (its `price`), its id can still
/// be read, and `GET /data/trades` has the trade as it is.
#[tokio::test]
async fn a_malformed_trade_message_while_rest_has_the_trade() {
    let sim = sim(
        WsFault::MalformedTrade,
        Trigger::Window { first: 1, count: 1 },
    )
    .await;
    let (a, b) = (
        Trader::new(&sim, KEY_A).await,
        Trader::new(&sim, KEY_B).await,
    );
    let mut w = user(&sim, &a).await;
    trade(&a, &b, 1).await;
    let texts = trade_texts(&mut w, 3).await;
    let decoded: Vec<_> = texts
        .iter()
        .map(|t| polyclob::decode::decode(t).next().unwrap())
        .collect();
    let err = decoded[0].as_ref().unwrap_err();
    assert_eq!(err.field(), "price", "{err}");
    assert!(matches!(err.kind(), DecodeErrorKind::Decimal(_)));
    assert!(
        decoded[1..]
            .iter()
            .all(|d| matches!(d, Ok(EventView::Trade(_))))
    );
    let (id, _) = id_status(&texts[..1]).remove(0);
    let (status, page, _) = a.l2("GET", "/data/trades", None).await;
    assert_eq!(status, 200);
    let rest = page["data"].as_array().unwrap();
    let row = rest.iter().find(|t| t["id"] == id.as_str()).unwrap();
    assert_eq!(row["price"], "0.5");
}
