//! The simulator's PolyBolt endpoint through the crate's own streams: auth against the
//! simulator's API keys, snapshot then consecutive `seq`, exact prices, refused credentials,
//! `dropped` under a slow consumer and each close code as a scheduled fault.
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;

use std::time::Duration;

use futures_util::StreamExt;
use polyclob::clob::Credentials;
use polyclob::polybolt::decode::{AckCode, AckOp, BoltMessage, BoltPayload};
use polyclob::polybolt::{BoltSubscription, Channel, PolyBoltEvent, PolyBoltStream};
use polyclob::ws::connection::Disconnect;
use polyclob::ws::continuity::{Cause, Lost, Recovery};
use polyclob::ws::event::Status;
use polyclob_sim::{Faults, SimHandle, Simulator, Trigger, WsChannel, WsFault, WsRule};
use support::{KEY_A, Trader};

const SEC: Duration = Duration::from_secs(1);

async fn sim() -> SimHandle {
    Simulator::builder()
        .seed(3)
        .rtds_interval(Duration::from_millis(20))
        .start()
        .await
        .unwrap()
}

async fn next(s: &mut PolyBoltStream) -> PolyBoltEvent {
    tokio::time::timeout(5 * SEC, s.next())
        .await
        .expect("an event")
        .expect("open")
}

fn data_seq(ev: &PolyBoltEvent) -> Option<(u64, bool, String)> {
    let PolyBoltEvent::Message(m) = ev else {
        return None;
    };
    let Ok(BoltMessage::Data(e)) = m.message() else {
        return None;
    };
    let price = match e.payload {
        BoltPayload::Price(p) => p.price.to_string(),
        BoltPayload::Snapshot(s) => s
            .points
            .last()
            .and_then(Result::ok)
            .map(|p| p.value.to_string())
            .unwrap_or_default(),
        _ => String::new(),
    };
    Some((e.seq, e.snapshot, price))
}

#[tokio::test]
async fn polybolt_authenticates_snapshots_and_counts() {
    let sim = sim().await;
    let t = Trader::new(&sim, KEY_A).await;
    let mut s = PolyBoltStream::builder()
        .url(sim.polybolt_url())
        .no_proxy()
        .credentials(t.creds.clone())
        .subscribe(BoltSubscription::crypto_twap("btcusd"))
        .backoff(Duration::from_millis(10), Duration::from_millis(50))
        .build()
        .unwrap();
    let mut seqs = Vec::new();
    while seqs.len() < 5 {
        let ev = next(&mut s).await;
        assert!(!matches!(ev, PolyBoltEvent::Break(_)), "{ev:?}");
        if let Some(d) = data_seq(&ev) {
            seqs.push(d);
        }
    }
    assert!(seqs[0].1, "a snapshot first");
    assert_eq!(
        seqs.iter().map(|d| d.0).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5]
    );
    assert!(
        seqs.iter()
            .all(|d| d.2.contains('.') || d.2.parse::<u64>().is_ok())
    );
    assert!(s.is_trusted(Channel::CryptoTwap));
}

fn stream(sim: &SimHandle, t: &Trader, subs: &[BoltSubscription]) -> PolyBoltStream {
    subs.iter()
        .fold(
            PolyBoltStream::builder()
                .url(sim.polybolt_url())
                .no_proxy()
                .credentials(t.creds.clone()),
            |b, sub| b.subscribe(sub.clone()),
        )
        .backoff(Duration::from_millis(10), Duration::from_millis(50))
        .build()
        .unwrap()
}

/// Upgrades to `/polybolt` the simulator has seen.
fn polybolt_connects(sim: &SimHandle) -> usize {
    sim.requests()
        .iter()
        .filter(|r| r.ends_with(" /polybolt"))
        .count()
}

/// A rule closing PolyBolt with `code` once, on its `n`-th frame from now.
fn close_on(code: u16, n: u64) -> Faults {
    Faults::none().ws(
        WsRule::new(Trigger::Window { first: n, count: 1 }, WsFault::Close(code))
            .channel(WsChannel::PolyBolt),
    )
}

/// 4002 (slow consumer) and 4003 (draining) as scheduled faults: one break, a reconnect
/// (4003's within the jitter bound), re-authentication and a new snapshot.
#[tokio::test]
async fn polybolt_close_4002_and_4003_reconnect_with_a_new_snapshot() {
    let sim = sim().await;
    let t = Trader::new(&sim, KEY_A).await;
    let mut s = stream(&sim, &t, &[BoltSubscription::crypto("btcusd")]);
    // Connected and subscribed before the faults are set.
    while data_seq(&next(&mut s).await).is_none() {}
    for code in [4002, 4003] {
        // The 10th frame from now is an update.
        sim.set_faults(close_on(code, 10));
        let connects = polybolt_connects(&sim);
        let mut breaks = Vec::new();
        loop {
            let ev = next(&mut s).await;
            if let PolyBoltEvent::Break(b) = &ev {
                breaks.push(*b);
            }
            if let Some((seq, snap, _)) = data_seq(&ev) {
                if !breaks.is_empty() {
                    assert_eq!(
                        (seq, snap),
                        (1, true),
                        "a new snapshot opens the new connection"
                    );
                    break;
                }
            }
        }
        assert_eq!(breaks.len(), 1, "{breaks:?}");
        assert_eq!(
            breaks[0].cause,
            Cause::Disconnected(Disconnect::Closed { code: Some(code) })
        );
        let Recovery::Reconnect { retry_in } = breaks[0].recovery else {
            panic!("{:?}", breaks[0])
        };
        // 4003: one reconnect after min(10 s, backoff max = 50 ms) at most.
        assert!(retry_in <= Duration::from_millis(50), "{retry_in:?}");
        assert!(s.is_trusted(Channel::Crypto));
        assert_eq!(polybolt_connects(&sim), connects + 1);
    }
}

/// 4001 (authentication) and 4008 (policy) as scheduled faults: the stream reports the
/// break, stops and ends, with no reconnect loop.
#[tokio::test]
async fn polybolt_close_4001_and_4008_stop_and_report() {
    let sim = sim().await;
    let t = Trader::new(&sim, KEY_A).await;
    // 4008 for this account only: PolyBolt connections are authenticated by API key.
    let other = Trader::new(&sim, support::KEY_B).await;
    for (code, account) in [(4001, None), (4008, Some(&t))] {
        let mut rule = WsRule::new(Trigger::Window { first: 6, count: 1 }, WsFault::Close(code))
            .channel(WsChannel::PolyBolt);
        if let Some(a) = account {
            rule = rule.account(a.address().to_checksum(None));
            // Another account's connection does not count: its frames leave the rule alone.
            let mut o = stream(&sim, &other, &[BoltSubscription::crypto("solusd")]);
            sim.set_faults(Faults::none().ws(rule.clone()));
            for _ in 0..12 {
                assert!(!matches!(next(&mut o).await, PolyBoltEvent::Break(_)));
            }
        } else {
            sim.set_faults(Faults::none().ws(rule));
        }
        let connects = polybolt_connects(&sim);
        let mut s = stream(&sim, &t, &[BoltSubscription::crypto("ethusd")]);
        let mut evs = Vec::new();
        while let Ok(Some(ev)) = tokio::time::timeout(5 * SEC, s.next()).await {
            evs.push(ev);
        }
        let breaks: Vec<_> = evs
            .iter()
            .filter_map(|e| match e {
                PolyBoltEvent::Break(b) => Some(*b),
                _ => None,
            })
            .collect();
        assert_eq!(breaks.len(), 1, "{evs:#?}");
        assert_eq!(breaks[0].recovery, Recovery::Stop);
        assert!(
            evs.iter()
                .any(|e| matches!(e, PolyBoltEvent::Status(Status::Stopped {
                reason: Disconnect::Closed { code: Some(c) }, .. }) if *c == code)),
            "{evs:#?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(polybolt_connects(&sim), connects + 1, "no reconnect");
    }
}

/// A client that reads too slowly (the server's writes stall): the server discards what
/// overflows the connection's send queue and says how much in `dropped`; the client reports
/// one break with that count and resnapshots.
#[tokio::test]
async fn a_slow_consumer_hears_what_was_dropped_and_resnapshots() {
    let sim = Simulator::builder()
        .seed(3)
        .rtds_interval(Duration::from_millis(5))
        .start()
        .await
        .unwrap();
    let t = Trader::new(&sim, KEY_A).await;
    // authed, then `subscribed` and a snapshot for each of five symbols: the 20th frame
    // is an update, and the writes stop there for a while.
    sim.set_faults(
        Faults::none().ws(WsRule::new(
            Trigger::Window {
                first: 20,
                count: 1,
            },
            WsFault::Stall(Duration::from_millis(1500)),
        )
        .channel(WsChannel::PolyBolt)),
    );
    let symbols = ["btcusd", "ethusd", "solusd", "xrpusd", "dogeusd"];
    let subs: Vec<_> = symbols
        .iter()
        .map(|s| BoltSubscription::crypto(s))
        .collect();
    let mut s = stream(&sim, &t, &subs);
    let mut evs = Vec::new();
    let resnapshot = loop {
        let ev = next(&mut s).await;
        let after_break = evs.iter().any(|e| matches!(e, PolyBoltEvent::Break(_)));
        if let (true, Some((1, true, _))) = (after_break, data_seq(&ev)) {
            break ev;
        }
        evs.push(ev);
    };
    let breaks: Vec<_> = evs
        .iter()
        .filter_map(|e| match e {
            PolyBoltEvent::Break(b) => Some(*b),
            _ => None,
        })
        .collect();
    // One break per `dropped` the server sent (one, unless the queue overflowed again before
    // the reconnect), each with the server's count.
    assert!(!breaks.is_empty(), "{evs:#?}");
    for b in &breaks {
        assert_eq!(
            b.cause,
            Cause::ServerDropped {
                channel: "price.crypto"
            }
        );
        assert!(matches!(b.lost, Lost::Count(n) if n > 0), "{b:?}");
        assert_eq!(
            b.recovery,
            Recovery::Reconnect {
                retry_in: Duration::ZERO
            }
        );
    }
    // The stream asked for one reconnect itself: reported as a status, not as another break.
    let requested = evs
        .iter()
        .filter(|e| {
            matches!(
                e,
                PolyBoltEvent::Status(Status::Disconnected {
                    reason: Disconnect::Requested,
                    ..
                })
            )
        })
        .count();
    assert_eq!(requested, 1, "{evs:#?}");
    // Until the new snapshot, nothing after the break was trusted; now it is.
    assert!(data_seq(&resnapshot).is_some());
    assert!(s.is_trusted(Channel::Crypto));
    // Every update delivered before the break was consecutive: nothing was lost silently.
    let seqs: Vec<u64> = evs.iter().filter_map(data_seq).map(|d| d.0).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{seqs:?}");
}

#[tokio::test]
async fn polybolt_refuses_unknown_credentials() {
    let sim = sim().await;
    let mut s = PolyBoltStream::builder()
        .url(sim.polybolt_url())
        .no_proxy()
        .credentials(Credentials::new("nope", "c2VjcmV0", "x"))
        .subscribe(BoltSubscription::crypto("btcusd"))
        .build()
        .unwrap();
    loop {
        if let PolyBoltEvent::Message(m) = next(&mut s).await {
            if let Ok(BoltMessage::Ack(a)) = m.message() {
                assert_eq!((a.op, a.code), (AckOp::Error, Some(AckCode::AuthInvalid)));
                break;
            }
        }
    }
}
