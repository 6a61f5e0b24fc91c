//! The simulator's PolyBolt and sports endpoints through the crate's own streams: auth
//! against the simulator's API keys, snapshot then consecutive `seq`, exact prices, refused
//! credentials, close codes as faults; the sports socket's pings answered.
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;

use std::time::Duration;

use futures_util::StreamExt;
use polyclob::clob::Credentials;
use polyclob::polybolt::decode::{AckOp, BoltMessage, BoltPayload};
use polyclob::polybolt::{BoltSubscription, Channel, PolyBoltEvent, PolyBoltStream};
use polyclob::sports::{SportsEvent, SportsStream};
use polyclob::ws::continuity::Recovery;
use polyclob::ws::event::Status;
use polyclob_sim::{SimHandle, Simulator};
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

    // Draining: one reconnect, re-auth, a new snapshot with seq 1.
    sim.polybolt_close(4003);
    let mut saw_break = false;
    loop {
        let ev = next(&mut s).await;
        if let PolyBoltEvent::Break(b) = &ev {
            assert!(matches!(b.recovery, Recovery::Reconnect { .. }));
            saw_break = true;
        }
        if let Some((seq, snap, _)) = data_seq(&ev) {
            if saw_break {
                assert_eq!((seq, snap), (1, true));
                break;
            }
        }
    }
    // Authentication failure: the stream stops.
    sim.polybolt_close(4001);
    let mut stopped = false;
    while let Ok(Some(ev)) = tokio::time::timeout(5 * SEC, s.next()).await {
        stopped |= matches!(ev, PolyBoltEvent::Status(Status::Stopped { .. }));
    }
    assert!(stopped);
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
                assert_eq!((a.op, a.code), (AckOp::Error, Some("auth_invalid")));
                break;
            }
        }
    }
}

#[tokio::test]
async fn sports_pings_are_answered_and_results_decode() {
    let sim = sim().await;
    let mut s = SportsStream::builder()
        .url(sim.sports_url())
        .no_proxy()
        .ping_interval(Duration::from_millis(100))
        .silence_timeout(Duration::from_millis(500))
        .build()
        .unwrap();
    let mut results = 0;
    let deadline = tokio::time::Instant::now() + 5 * SEC;
    // The simulator drops a client that does not answer two intervals' pings: 40 ticks
    // on one connection prove the pongs arrive.
    while results < 40 {
        let ev = tokio::time::timeout_at(deadline, s.next())
            .await
            .expect("results")
            .expect("open");
        match ev {
            SportsEvent::Result(r) => {
                let r = r.result().unwrap();
                assert!(r.game_id == 19439 || r.game_id == 1317359);
                results += 1;
            }
            SportsEvent::Break(b) => panic!("{b}"),
            SportsEvent::Invalid { error, .. } => panic!("{error}"),
            _ => {}
        }
    }
}
