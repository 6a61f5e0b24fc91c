//! The sports socket against a loopback server: no subscribe message, the server's `ping`
//! answered with `pong`, typed `sport_result`s, garbage skipped, and every break (abrupt
//! close, silence, refused connect) reported as one `Break` and followed by a reconnect.

use crate::support::trust_oracle::Checked;
use crate::support::ws_server;

use std::time::Duration;

use polyclob::sports::decode::{GameId, GameKey};
use polyclob::sports::{OwnedSportResult, SportsFeed, SportsStream};
use polyclob::ws::connection::Disconnect;
use polyclob::ws::continuity::{Cause, Lost, StreamKind};
use polyclob::ws::event::Status;
use polyclob::ws::feed::FeedEvent;
use ws_server::client::until;

type SportsEvent = FeedEvent<OwnedSportResult>;
const GAME: GameKey<'static> = GameKey {
    league: Some("nfl"),
    id: GameId::Num(19439),
};
use ws_server::{Action, WsServer};

const SEC: Duration = Duration::from_secs(1);
const NFL: &str = r#"{"gameId":19439,"leagueAbbreviation":"nfl","slug":"nfl-lac-buf-2025-01-26","homeTeam":"LAC","awayTeam":"BUF","status":"InProgress","score":"3-16","period":"Q4","elapsed":"5:18","live":true,"ended":false,"turn":"lac"}"#;

fn connected(ev: &SportsEvent) -> bool {
    matches!(ev, SportsEvent::Status(Status::Connected { .. }))
}

fn game(ev: &SportsEvent) -> Option<u64> {
    match ev {
        SportsEvent::Message(r) => match r.message().ok()?.key.id {
            GameId::Num(n) => Some(n),
            GameId::Text(_) => None,
        },
        _ => None,
    }
}

fn stream(s: &WsServer) -> Checked<SportsFeed> {
    let feed = SportsStream::builder()
        .url(s.url())
        .no_proxy()
        .backoff(Duration::from_millis(10), Duration::from_millis(50))
        .ping_interval(Duration::from_millis(100))
        .silence_timeout(Duration::from_millis(400))
        .build()
        .unwrap();
    Checked::new(feed)
}

#[tokio::test]
async fn pings_answered_results_typed_nothing_subscribed() {
    let s = WsServer::start().await;
    let mut st = stream(&s);
    until(&mut st, 5 * SEC, connected).await;
    s.act(0, Action::Text("ping".to_owned()));
    s.act(0, Action::Text("not json".to_owned()));
    s.act(0, Action::Text(NFL.to_owned()));
    let evs = until(&mut st, 5 * SEC, |e| game(e).is_some()).await;
    // `ping` is consumed, not delivered; garbage is reported and skipped.
    assert_eq!(
        evs.iter()
            .filter(|e| matches!(e, SportsEvent::Invalid { .. }))
            .count(),
        1,
        "{evs:#?}"
    );
    let SportsEvent::Message(r) = evs.last().unwrap() else {
        panic!()
    };
    let r = r.message().unwrap();
    assert_eq!(
        (r.key.id, r.live, r.ended),
        (GameId::Num(19439), Some(true), Some(false))
    );
    assert_eq!(r.score.unwrap().raw(), "3-16");
    // The client answered `pong` and sent nothing else: no subscribe, no keepalive.
    assert!(
        s.wait_for(5 * SEC, |st| st.conns[0].received == ["pong"])
            .await
    );
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert_eq!(s.conn(0).received, ["pong"]);
}

#[tokio::test]
async fn abrupt_close_silence_and_refusal_are_breaks_then_reconnects() {
    let s = WsServer::start().await;
    let mut st = stream(&s);
    until(&mut st, 5 * SEC, connected).await;
    s.act(0, Action::Text(NFL.to_owned()));
    until(&mut st, 5 * SEC, |e| game(e).is_some()).await;
    assert!(st.trust(GAME).is_trusted());
    s.act(0, Action::CloseAbrupt);
    let evs = until(&mut st, 5 * SEC, connected).await;
    // The game's last result is untrusted from the break until its next result.
    assert!(!st.trust(GAME).is_trusted());
    let b: Vec<_> = evs
        .iter()
        .filter_map(|e| match e {
            SportsEvent::Break(b) => Some(*b),
            _ => None,
        })
        .collect();
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].stream, StreamKind::Sports);
    assert_eq!(b[0].lost, Lost::Unknown);
    assert_eq!(b[0].cause, Cause::Disconnected(Disconnect::Eof));

    // The server stops pinging: the watchdog replaces the connection.
    s.act(1, Action::GoSilent);
    s.refuse_next(1);
    let evs = until(&mut st, 5 * SEC, connected).await;
    let causes: Vec<_> = evs
        .iter()
        .filter_map(|e| match e {
            SportsEvent::Break(b) => Some(b.cause),
            _ => None,
        })
        .collect();
    assert_eq!(causes.len(), 2, "{evs:#?}");
    assert_eq!(causes[0], Cause::Disconnected(Disconnect::Silence));
    assert!(matches!(
        causes[1],
        Cause::Disconnected(Disconnect::Connect(_))
    ));
    s.act(2, Action::Text(NFL.to_owned()));
    until(&mut st, 5 * SEC, |e| game(e) == Some(19439)).await;
    assert!(st.trust(GAME).is_trusted());
}
