//! Zero allocation per sports message: the borrowed decoder over frames shaped as the docs
//! and the live socket send them (numeric and cricket string keys, varying status casing,
//! booleans as strings, fields of unexpected types listed in `issues`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::stream_replay::assert_replay_allocates_nothing;

use polyclob::sports::decode::{GameId, decode};

fn replay() -> Vec<String> {
    let mut out = Vec::new();
    for i in 0..200u64 {
        let status = [
            "InProgress",
            "inprogress",
            "running",
            "finished",
            "not_started",
        ][(i % 5) as usize];
        out.push(format!(
            r#"{{"gameId":{},"leagueAbbreviation":"nfl","homeTeam":"LAC","awayTeam":"BUF","status":"{status}","score":"{}-16","period":"Q4","elapsed":"5:18","live":true,"ended":false,"turn":"lac"}}"#,
            19_439 + i % 7,
            i % 40
        ));
        out.push(format!(
            r#"{{"metadataGameId":"ipl-2026-{}","leagueAbbreviation":"cricket","homeTeam":"MI","awayTeam":"CSK","status":"running","score":"{}/3","period":"1st","live":"true","ended":"false"}}"#,
            i % 5,
            100 + i
        ));
        out.push(format!(
            r#"{{"gameId":1317359,"leagueAbbreviation":"cs2","score":{},"live":false,"ended":true,"finished_timestamp":"2025-07-20T18:30:00.000Z"}}"#,
            i % 3
        ));
    }
    out
}

#[test]
fn decoding_a_long_replay_allocates_nothing() {
    assert_replay_allocates_nothing(&replay(), |f| {
        let r = decode(f).expect("decodes");
        let id = match r.key.id {
            GameId::Num(n) => u128::from(n),
            GameId::Text(t) => t.len() as u128,
        };
        id + u128::from(r.ended == Some(true))
            + r.issues.len() as u128
            + r.state.map_or(0, |s| s as u128)
    });
}
