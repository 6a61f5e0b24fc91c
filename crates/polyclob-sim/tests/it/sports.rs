//! The sports socket as the live one behaves: WebSocket ping frames, never a text `ping`;
//! frames without a type or `slug`, keyed by `gameId` or cricket's string `metadataGameId`,
//! `status` in varying casing, `ended: true` once per game; a client that does not answer
//! is dropped. And the docs' text-ping mode, on request.
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use polyclob::sports::decode::{GameId, GameState, decode};
use polyclob::sports::{OwnedSportResult, SportsStream};
use polyclob::ws::feed::FeedEvent;

type SportsEvent = FeedEvent<OwnedSportResult>;
use polyclob_sim::{SimHandle, Simulator};
use tokio_tungstenite::tungstenite::Message;

use crate::support::sim::Ws;

const TICK: Duration = Duration::from_millis(40);
const SEC: Duration = Duration::from_secs(1);

async fn sim(text_ping: bool) -> SimHandle {
    Simulator::builder()
        .seed(3)
        .rtds_interval(TICK)
        .sports_text_ping(text_ping)
        .start()
        .await
        .unwrap()
}

async fn connect(sim: &SimHandle) -> Ws {
    tokio_tungstenite::connect_async(sim.sports_url())
        .await
        .unwrap()
        .0
}

/// Reads for `d` (answering text pings with `pong` when `answer`): the text frames, the ping
/// frames counted, and whether the server ended the connection.
async fn read_for(ws: &mut Ws, d: Duration, answer: bool) -> (Vec<String>, usize, bool) {
    let end = tokio::time::Instant::now() + d;
    let (mut texts, mut pings) = (Vec::new(), 0);
    loop {
        match tokio::time::timeout_at(end, ws.next()).await {
            Err(_) => return (texts, pings, false),
            Ok(Some(Ok(Message::Ping(_)))) => pings += 1,
            Ok(Some(Ok(Message::Text(t)))) => {
                if t.as_str() == "ping" && answer {
                    ws.send(Message::Text("pong".into())).await.unwrap();
                }
                texts.push(t.to_string());
            }
            Ok(Some(Ok(Message::Close(_))) | None | Some(Err(_))) => return (texts, pings, true),
            Ok(Some(Ok(_))) => {}
        }
    }
}

#[tokio::test]
async fn ping_frames_only_and_frames_keyed_as_live() {
    let sim = sim(false).await;
    let mut ws = connect(&sim).await;
    // Over two game cycles (40 ticks each) on one connection: reading answers the pings.
    let (texts, pings, ended) = read_for(&mut ws, 85 * TICK, false).await;
    assert!(!ended, "a client that answers stays connected");
    assert!(pings >= 20, "{pings} ping frames");
    assert!(!texts.iter().any(|t| t == "ping"), "no text ping");
    let mut ends: BTreeMap<String, usize> = BTreeMap::new();
    let mut keys = BTreeSet::new();
    let mut statuses = BTreeSet::new();
    for t in &texts {
        let v: serde_json::Value = serde_json::from_str(t).unwrap();
        assert!(
            v.get("slug").is_none() && v.get("event_type").is_none(),
            "{t}"
        );
        let r = decode(t).unwrap();
        assert!(r.issues.is_empty(), "{t}");
        keys.insert(r.key.to_string());
        statuses.insert(r.status.unwrap().raw().to_owned());
        if r.ended == Some(true) {
            assert_eq!(r.state, Some(GameState::Finished), "{t}");
            *ends.entry(r.key.to_string()).or_default() += 1;
        }
        if let GameId::Text(id) = r.key.id {
            assert_eq!(
                (r.key.league, v["metadataGameId"].as_str()),
                (Some("cricket"), Some(id))
            );
        }
    }
    assert!(keys.iter().any(|k| k.starts_with("cricket|")), "{keys:?}");
    assert!(keys.iter().any(|k| k.starts_with("nfl|")), "{keys:?}");
    assert!(
        !ends.is_empty() && ends.values().all(|n| *n == 1),
        "{ends:?}"
    );
    for s in ["InProgress", "inprogress", "running"] {
        assert!(statuses.contains(s), "{s}: {statuses:?}");
    }
}

#[tokio::test]
async fn a_client_that_does_not_answer_is_dropped() {
    let sim = sim(false).await;
    let mut ws = connect(&sim).await;
    // Not reading: no pong goes back. Past two intervals of the first ping, the server drops
    // the connection; what it sent before is still read, then the end.
    tokio::time::sleep(6 * TICK).await;
    let (texts, _, ended) = read_for(&mut ws, 2 * SEC, false).await;
    assert!(
        ended && !texts.is_empty(),
        "{} frames, ended {ended}",
        texts.len()
    );
}

#[tokio::test]
async fn the_docs_text_ping_on_request() {
    let sim = sim(true).await;
    let mut ws = connect(&sim).await;
    let (texts, pings, ended) = read_for(&mut ws, 10 * TICK, true).await;
    assert!(!ended && pings == 0, "pings {pings}, ended {ended}");
    assert!(texts.iter().filter(|t| *t == "ping").count() >= 5);
    // Reading without answering: dropped.
    let (_, _, ended) = read_for(&mut ws, 2 * SEC, false).await;
    assert!(ended);
}

/// polyclob's sports stream against it: one connection, no break, every frame decodes.
#[tokio::test]
async fn the_sports_stream_stays_up_and_decodes() {
    let sim = sim(false).await;
    let mut s = SportsStream::builder()
        .url(sim.sports_url())
        .no_proxy()
        .ping_interval(Duration::from_millis(100))
        .silence_timeout(Duration::from_millis(500))
        .build()
        .unwrap();
    let mut results = 0;
    let deadline = tokio::time::Instant::now() + 5 * SEC;
    // 40 ticks on one connection: the simulator would drop a client whose pongs did not come.
    while results < 100 {
        let ev = tokio::time::timeout_at(deadline, s.next())
            .await
            .expect("results")
            .expect("open");
        match ev {
            SportsEvent::Message(r) => {
                let r = r.message().unwrap();
                assert!(r.live.is_some() && r.ended.is_some(), "{r:?}");
                results += 1;
            }
            SportsEvent::Break(b) => panic!("{b}"),
            SportsEvent::Invalid { error, .. } => panic!("{error}"),
            _ => {}
        }
    }
}
