//! The sports socket against a loopback server: no subscribe message, the server's `ping`
//! answered with `pong`, typed `sport_result`s, garbage skipped, and every break (abrupt
//! close, silence, refused connect) reported as one `Break` and followed by a reconnect.

use crate::support::trust_oracle::Checked;
use crate::support::ws_server;

use std::time::Duration;

use polyclob::sports::decode::{GameId, GameKey};
use polyclob::sports::{OwnedSportResult, SportsFeed, SportsStream};
use polyclob::ws::continuity::{Cause, Lost, StreamKind};
use polyclob::ws::event::Disconnect;
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

/// The live socket pings (protocol pings) every 15 s and sends nothing between matches: the
/// default liveness is three missed pings, so a quiet period is not a break. Scaled here to
/// 150 ms pings with the same default count. (Main's default silence timeout was 15 s, one
/// live ping interval: between matches it broke and reconnected every ~16 s.)
#[tokio::test]
async fn a_quiet_period_between_matches_is_not_a_break() {
    let b = format!("{:?}", SportsStream::builder());
    assert!(b.contains("silence_timeout: 45s"), "{b}");
    let s = WsServer::start().await;
    let every = Duration::from_millis(150);
    let mut st = Checked::new(
        SportsStream::builder()
            .url(s.url())
            .no_proxy()
            .server_pings(every, 3)
            .build()
            .unwrap(),
    );
    until(&mut st, 5 * SEC, connected).await;
    s.act(0, Action::Text(NFL.to_owned()));
    let pings = async {
        for _ in 0..13 {
            tokio::time::sleep(every).await;
            s.act(0, Action::Ping);
        }
    };
    // 2 s: thirteen ping intervals with no data after the first result.
    let (evs, ()) = tokio::join!(ws_server::client::drain_for(&mut st, 2 * SEC), pings);
    assert!(
        !evs.iter().any(|e| matches!(e, SportsEvent::Break(_))),
        "{evs:#?}"
    );
    assert_eq!(s.connections(), 1);
    // The same server falling silent is a break within three intervals.
    let evs = until(&mut st, 2 * SEC, |e| matches!(e, SportsEvent::Break(_))).await;
    let SportsEvent::Break(b) = evs.last().unwrap() else {
        panic!()
    };
    assert_eq!(b.cause, Cause::Disconnected(Disconnect::Silence));
}

/// After a break the stream runs its reconnect hook, says its games come back over REST, and
/// names them, typed (cricket's string id too), to look up with Gamma's `game_id` filter: a
/// game that ended during the outage is learnt there. (On main `on_reconnect` was accepted
/// and never ran on the sports stream, the break promised snapshots, games were untyped and
/// `gamma::EventFilter` had no `game_id`.)
#[tokio::test]
async fn a_break_runs_the_hook_and_names_the_games_to_reconcile_through_gamma() {
    use crate::support::mock_clob::{MockClob, Reply};
    use polyclob::gamma::{self, EventFilter};
    use polyclob::ws::continuity::RestoredBy;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    const CRICKET: &str = r#"{"metadataGameId":"icc-t20-7","leagueAbbreviation":"cricipl","status":"InProgress","live":"true","ended":"false"}"#;
    let s = WsServer::start().await;
    let hooks = Arc::new(AtomicUsize::new(0));
    let mut st = Checked::new(
        SportsStream::builder()
            .url(s.url())
            .no_proxy()
            .backoff(Duration::from_millis(10), Duration::from_millis(50))
            .on_reconnect({
                let hooks = Arc::clone(&hooks);
                move |_| {
                    hooks.fetch_add(1, Ordering::SeqCst);
                    async {}
                }
            })
            .build()
            .unwrap(),
    );
    until(&mut st, 5 * SEC, connected).await;
    s.act(0, Action::Text(NFL.to_owned()));
    s.act(0, Action::Text(CRICKET.to_owned()));
    let mut n = 0;
    until(&mut st, 5 * SEC, |e| {
        n += usize::from(matches!(e, SportsEvent::Message(_)));
        n == 2
    })
    .await;
    assert_eq!(st.untrusted_games().count(), 0);
    s.act(0, Action::CloseAbrupt);
    let evs = until(&mut st, 5 * SEC, connected).await;
    let b = evs
        .iter()
        .find_map(|e| match e {
            SportsEvent::Break(b) => Some(*b),
            _ => None,
        })
        .unwrap();
    assert_eq!(b.restored_by(), RestoredBy::Rest);
    let mut games: Vec<_> = st.untrusted_games().map(|g| g.id.to_string()).collect();
    games.sort();
    assert_eq!(games, ["19439", "icc-t20-7"]);
    assert!(
        s.wait_for(2 * SEC, |_| hooks.load(Ordering::SeqCst) == 1)
            .await,
        "the reconnect hook ran"
    );

    // The bot's reconciliation: the numeric ids through Gamma.
    let filter = st
        .untrusted_games()
        .fold(EventFilter::new(), |f, g| match g.id {
            GameId::Num(id) => f.game_id(id),
            GameId::Text(_) => f,
        });
    let mock = MockClob::start().await;
    mock.on(
        "GET",
        "/events/keyset",
        vec![Reply::json(r#"{"events":[]}"#)],
    );
    let gamma = gamma::Client::builder().host(mock.url()).build().unwrap();
    gamma.events_page(&filter, None).await.unwrap();
    let asked = mock.requests_to("/events/keyset");
    assert_eq!(asked[0].query_param("game_id").as_deref(), Some("19439"));
    // The game's next message restores it.
    s.act(1, Action::Text(NFL.to_owned()));
    until(&mut st, 5 * SEC, |e| game(e) == Some(19439)).await;
    assert!(st.trust(GAME).is_trusted());
    let left: Vec<_> = st.untrusted_games().map(|g| g.id.to_string()).collect();
    assert_eq!(left, ["icc-t20-7"]);
}
