//! The sports socket (`/sports`), as the live socket behaves (public captures of its frames;
//! the docs describe a text `ping` every 5 s, which the live socket never sends):
//!
//! - keepalive: a WebSocket ping frame every [`SimBuilder::rtds_interval`] (live: every 15 s),
//!   never a text `ping`; a client whose pong has not come within two intervals of a ping is
//!   dropped. With [`SimBuilder::sports_text_ping`] the socket follows the docs instead: a
//!   text `ping`, answered by a text `pong`.
//! - frames: one JSON object per game and tick, with no message type and no `slug`, keyed by
//!   `leagueAbbreviation` + `gameId` (a number), or `metadataGameId` (a string) for the
//!   cricket game; `score`, `period`, `live` and `ended` always present; `status` in varying
//!   casing (`not_started`, `Scheduled`, `InProgress`, `inprogress`, `running`, `finished`,
//!   `Final`).
//! - games: each scripted game runs in cycles of [`CYCLE`] ticks, a new game id each cycle:
//!   not started, in progress, then **one** frame with `ended: true` (and
//!   `finished_timestamp`), then nothing until the next game: a client away at that moment
//!   never hears the end on this socket.
//!
//! [`SimBuilder::rtds_interval`]: crate::SimBuilder::rtds_interval
//! [`SimBuilder::sports_text_ping`]: crate::SimBuilder::sports_text_ping

use std::sync::Arc;

use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio::time::Instant;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

use super::shared::Shared;
use super::socket::{End, Timed, finish};
use crate::exchange::state::now_ms;
use crate::scenario::faults::WsChannel;

/// Ticks per game: [`NOT_STARTED`] before it starts, then in progress until [`ENDS_AT`], the
/// one ended frame at [`ENDS_AT`], silence after.
pub(crate) const CYCLE: u64 = 40;
const NOT_STARTED: u64 = 4;
const ENDS_AT: u64 = 36;

/// A scripted game: its league, its id in its first cycle (the id grows by one per cycle),
/// whether the id is cricket's string `metadataGameId`, the teams, and where in the cycle it
/// starts (so the games do not all fall quiet at once).
pub(crate) struct Game {
    pub(crate) league: &'static str,
    first_id: u64,
    metadata_id: bool,
    pub(crate) home: &'static str,
    pub(crate) away: &'static str,
    offset: u64,
}

/// The games the socket plays (Gamma's `/teams` lists their teams).
pub(crate) const GAMES: [Game; 3] = [
    Game {
        league: "nfl",
        first_id: 19_439,
        metadata_id: false,
        home: "LAC",
        away: "BUF",
        offset: 0,
    },
    Game {
        league: "cs2",
        first_id: 1_317_359,
        metadata_id: false,
        home: "ARCRED",
        away: "The glecs",
        offset: 13,
    },
    Game {
        league: "cricket",
        first_id: 87_512,
        metadata_id: true,
        home: "MI",
        away: "CSK",
        offset: 26,
    },
];

/// `game`'s frame at tick `k`, if it sends one.
fn frame(k: u64, game: &Game) -> Option<String> {
    let k = k + game.offset;
    let (cycle, t) = (k / CYCLE, k % CYCLE);
    if t > ENDS_AT {
        return None;
    }
    let id = game.first_id + cycle;
    let (status, live, ended) = match t {
        t if t < NOT_STARTED => (["not_started", "Scheduled"][(k % 2) as usize], false, false),
        ENDS_AT => (["finished", "Final"][(cycle % 2) as usize], false, true),
        _ => (
            ["InProgress", "inprogress", "running"][(k % 3) as usize],
            true,
            false,
        ),
    };
    let played = t.saturating_sub(NOT_STARTED);
    let (score, period) = match game.league {
        "cs2" => (
            format!(
                "000-000|{}-{}|Bo3",
                (played / 16).min(2),
                (played / 24).min(1)
            ),
            format!("{}/3", played / 12 + 1),
        ),
        "cricket" => (
            format!("{}/{}", played * 7, played / 6),
            (if played < 16 { "1st" } else { "2nd" }).to_owned(),
        ),
        _ => (
            format!("{}-{}", played / 3, played / 5),
            format!("Q{}", (played / 8).min(3) + 1),
        ),
    };
    let mut v = json!({
        "leagueAbbreviation": game.league,
        "homeTeam": game.home,
        "awayTeam": game.away,
        "status": status,
        "score": score,
        "period": period,
        "live": live,
        "ended": ended,
    });
    if game.metadata_id {
        v["metadataGameId"] = Value::String(id.to_string());
    } else {
        v["gameId"] = json!(id);
    }
    if game.league == "nfl" && live {
        v["elapsed"] = Value::String(format!("{}:{:02}", 14 - played % 15, (k * 7) % 60));
        v["turn"] = Value::String(["lac", "buf"][(k % 2) as usize].to_owned());
    }
    if ended {
        v["finished_timestamp"] = Value::String("2026-11-27T23:00:00.000Z".to_owned());
    }
    Some(v.to_string())
}

pub(crate) async fn run<T>(ws: WebSocketStream<T>, shared: Arc<Shared>)
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let Timed {
        mut conn,
        mut rx,
        mut ticker,
        interval,
        interval_ms,
        mut kick,
        mut shutdown,
    } = Timed::new(ws, &shared, WsChannel::Sports);
    let text_ping = shared.sports_text_ping;
    // The oldest unanswered ping.
    let mut ping_at: Option<Instant> = None;
    // The last tick whose frames went out: the tick number comes from the wall clock, and a
    // late timer tick followed by an on-time one can land in the same number (the games'
    // frames would go twice, an `ended` one among them).
    let mut sent_k: Option<u64> = None;
    let end = loop {
        let step: Result<(), End> = tokio::select! {
            msg = rx.next() => match msg {
                Some(Ok(Message::Pong(_))) if !text_ping => {
                    ping_at = None;
                    Ok(())
                }
                Some(Ok(Message::Text(t))) if text_ping && t.as_str() == "pong" => {
                    ping_at = None;
                    Ok(())
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => Err(End::Close(None)),
                Some(Ok(_)) => Ok(()),
            },
            _ = ticker.tick() => {
                if ping_at.is_some_and(|t| t.elapsed() > interval * 2) {
                    Err(End::Drop)
                } else {
                    ping_at.get_or_insert_with(Instant::now);
                    let k = now_ms() / interval_ms;
                    let fresh = sent_k.is_none_or(|s| k > s);
                    sent_k = Some(k);
                    let mut r = if text_ping {
                        conn.send("ping").await
                    } else {
                        conn.ping().await
                    };
                    for text in GAMES.iter().filter(|_| fresh).filter_map(|g| frame(k, g)) {
                        if r.is_ok() {
                            r = conn.send(text).await;
                        }
                    }
                    r
                }
            },
            _ = kick.changed() => Err(End::Drop),
            _ = shutdown.changed() => Err(End::going_away()),
        };
        if let Err(e) = step {
            break e;
        }
    };
    finish(conn, end).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(k: u64, g: &Game) -> Option<Value> {
        frame(k, g).map(|f| serde_json::from_str(&f).unwrap_or(Value::Null))
    }

    #[test]
    fn games_are_keyed_as_live_and_end_once() {
        for g in &GAMES {
            let mut ended = 0;
            let mut quiet = 0;
            for k in 0..2 * CYCLE {
                let Some(v) = parse(k, g) else {
                    quiet += 1;
                    continue;
                };
                assert!(v.get("slug").is_none() && v.get("type").is_none(), "{v}");
                for key in ["score", "period", "live", "ended", "status"] {
                    assert!(v.get(key).is_some(), "{key}: {v}");
                }
                if g.metadata_id {
                    assert!(v["metadataGameId"].is_string() && v.get("gameId").is_none());
                } else {
                    assert!(v["gameId"].is_u64() && v.get("metadataGameId").is_none());
                }
                if v["ended"] == json!(true) {
                    ended += 1;
                    assert_eq!(v["live"], json!(false));
                    assert!(v["finished_timestamp"].is_string());
                }
            }
            // One end per game (two cycles, two games), silence between games.
            assert_eq!(ended, 2, "{}", g.league);
            assert_eq!(quiet, 2 * (CYCLE - ENDS_AT - 1));
        }
        // A new id per cycle.
        let id = |k| parse(k, &GAMES[0]).map(|v| v["gameId"].clone());
        assert_eq!(id(0), Some(json!(19_439)));
        assert_eq!(id(CYCLE), Some(json!(19_440)));
    }

    #[test]
    fn status_casing_varies() {
        let statuses: std::collections::BTreeSet<String> = (0..CYCLE * 2)
            .filter_map(|k| parse(k, &GAMES[0]))
            .map(|v| v["status"].as_str().unwrap_or("").to_owned())
            .collect();
        for s in [
            "InProgress",
            "inprogress",
            "running",
            "not_started",
            "Scheduled",
            "finished",
            "Final",
        ] {
            assert!(statuses.contains(s), "{s}: {statuses:?}");
        }
    }
}
