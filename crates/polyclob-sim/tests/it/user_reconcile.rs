//! The user channel reconciles what it missed: the simulator drops the connection in the
//! middle of a burst of fills, and the stream (with `reconcile`) still delivers
//! every fill exactly once — the missed ones fetched over REST and marked `recovered`, before
//! live events resume.
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use polyclob::account::reconcile::Reconcile;
use polyclob::account::user_events::{OrderEventKind, TradeStatus, UserEvent as Item, UserStream};
use polyclob::clob::{Client, TradeFilter};
use polyclob::sign::Signer;
use polyclob::types::Side;
use polyclob::ws::continuity::StreamKind;
use polyclob::ws::event::Status;
use polyclob::ws::feed::FeedEvent;

type UserEvent = FeedEvent<Item>;
use polyclob_sim::SimHandle;
use support::{KEY_A, KEY_B, Trader, YES, limit, start_empty};

const S: u64 = 1_000_000;
const SEC: Duration = Duration::from_secs(1);

type Log = Arc<Mutex<Vec<UserEvent>>>;

fn rest_client(sim: &SimHandle, t: &Trader, key: &str) -> Client {
    Client::builder()
        .host(sim.http_url())
        .signer(Signer::from_hex(key).unwrap())
        .credentials(t.creds.clone())
        .build()
        .unwrap()
}

/// A's user channel with reconciliation, collected into a log by a task of its own.
fn follow(sim: &SimHandle, a: &Trader) -> Log {
    let how = Reconcile::new(rest_client(sim, a, KEY_A)).settle(Duration::from_millis(100));
    let mut events = UserStream::builder(a.creds.clone())
        .url(format!("{}/ws/user", sim.ws_url()))
        // Long enough that fills happen while the client is away.
        .backoff(Duration::from_millis(200), Duration::from_millis(400))
        .reconcile(how)
        .build()
        .unwrap();
    let log: Log = Arc::default();
    let sink = Arc::clone(&log);
    tokio::spawn(async move {
        while let Some(ev) = events.next().await {
            sink.lock().unwrap().push(ev);
        }
    });
    log
}

async fn wait(log: &Log, what: &str, done: impl Fn(&[UserEvent]) -> bool) {
    let t0 = tokio::time::Instant::now();
    while !done(&log.lock().unwrap()) {
        assert!(
            t0.elapsed() < 15 * SEC,
            "timed out waiting for {what}: {:#?}",
            log.lock().unwrap()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn fills(log: &[UserEvent]) -> Vec<(String, bool)> {
    log.iter()
        .filter_map(|e| match e {
            UserEvent::Message(Item::Trade(t)) if t.first && t.status != TradeStatus::Failed => {
                Some((t.id.clone(), t.recovered))
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn every_fill_exactly_once_across_dropped_connections() {
    const N: usize = 40;
    let sim = start_empty().await;
    let a = Trader::new(&sim, KEY_A).await;
    let b = Trader::new(&sim, KEY_B).await;
    let log = follow(&sim, &a);
    wait(&log, "the first connection", |l| {
        l.iter().any(|e| matches!(e, UserEvent::Status(_)))
    })
    .await;

    let (status, _, a_id) = a
        .post(&limit(YES, Side::Sell, 550_000, 5 * N as u64 * S, 1))
        .await;
    assert_eq!(status, 200);
    wait(&log, "the placement", |l| {
        l.iter()
            .any(|e| matches!(e, UserEvent::Message(Item::Order(o)) if o.id == a_id))
    })
    .await;

    // A burst of fills against A's order; the connection is dropped twice in the middle (the
    // second time as soon as the client is back, while it reconciles the first break).
    let connects = |l: &[UserEvent]| {
        l.iter()
            .filter(|e| matches!(e, UserEvent::Status(Status::Connected { .. })))
            .count()
    };
    for i in 0..N {
        if i == N / 4 {
            sim.disconnect_ws();
        }
        if i == N / 2 {
            wait(&log, "the reconnect", |l| connects(l) >= 2).await;
            sim.disconnect_ws();
        }
        let (status, v, _) = b
            .post(&limit(YES, Side::Buy, 550_000, 5 * S, 100 + i as u64))
            .await;
        assert_eq!(
            (status, v["status"].as_str()),
            (200, Some("matched")),
            "{v}"
        );
    }
    wait(&log, "every fill", |l| {
        fills(l).iter().map(|f| &f.0).collect::<HashSet<_>>().len() == N
    })
    .await;
    // Room for a duplicate to show up, were there one.
    tokio::time::sleep(SEC / 2).await;
    let log = log.lock().unwrap().clone();

    let got = fills(&log);
    let ids: HashSet<&String> = got.iter().map(|f| &f.0).collect();
    assert_eq!(got.len(), N, "a fill delivered twice: {got:?}");
    assert_eq!(ids.len(), N);
    let (rest, skipped) = rest_client(&sim, &a, KEY_A)
        .all_trades(&TradeFilter::default())
        .await
        .unwrap();
    assert!(skipped.is_empty());
    let rest: HashSet<&String> = rest.iter().map(|t| &t.id).collect();
    assert_eq!(ids, rest, "the stream's fills are the exchange's");
    let recovered = got.iter().filter(|f| f.1).count();
    assert!(
        recovered > 0,
        "no fill fell into a gap: the test proves nothing"
    );

    // The sequence: live events only while trusted, recovered ones only between a break and
    // its `Reconciled`, which names what it delivered.
    let mut broken = false;
    let mut breaks = 0;
    let mut reconciled = 0;
    let mut recovered_since_break = (0, 0);
    for ev in &log {
        match ev {
            UserEvent::Break(b) => {
                assert_eq!(b.stream, StreamKind::User);
                broken = true;
                breaks += 1;
            }
            UserEvent::Message(Item::Reconciled(r)) => {
                assert!(broken, "Reconciled without a break");
                assert_eq!((r.trades, r.orders), recovered_since_break);
                assert!(r.skipped.is_empty());
                recovered_since_break = (0, 0);
                broken = false;
                reconciled += 1;
            }
            UserEvent::Message(Item::Trade(t)) => {
                assert_eq!(t.recovered, broken, "{t:?}");
                recovered_since_break.0 += usize::from(t.recovered);
            }
            UserEvent::Message(Item::Order(o)) => {
                assert_eq!(o.recovered, broken, "{o:?}");
                if o.recovered {
                    assert_eq!(o.kind, OrderEventKind::Open);
                    assert_eq!(o.id, a_id, "A's only open order");
                    recovered_since_break.1 += 1;
                }
            }
            _ => {}
        }
    }
    assert!(breaks >= 2, "{breaks} breaks");
    assert!(!broken, "the last break was reconciled");
    assert!(reconciled >= 1);
}
