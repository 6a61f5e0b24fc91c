//! Borrowed, allocation-free view of a `sport_result` message.
//!
//! Facts ([Sports WebSocket]): every data message is one JSON object of game state, sent when
//! a match goes live, the score or period changes, a match ends, or (NFL, CFB) possession
//! changes: `gameId` (number), `leagueAbbreviation`, `slug` (`{league}-{team1}-{team2}-{date}`),
//! `homeTeam`, `awayTeam`, `status` (per sport: `InProgress`, `Final`, `finished` …), `score`
//! (format per sport: `3-16`, `000-000|2-0|Bo3`), `period` (`Q4`, `2H`, `2/3` …), `elapsed`,
//! `live`, `ended`, `turn` (possession, NFL/CFB) and, once ended, the finish time
//! (`finished_timestamp` in the examples, `finishedTimestamp` in the field table: both are read).
//!
//! ```
//! use polyclob::sports::decode::decode;
//! let r = decode(r#"{"gameId":19439,"leagueAbbreviation":"nfl","slug":"nfl-lac-buf-2025-01-26",
//!   "homeTeam":"LAC","awayTeam":"BUF","status":"InProgress","score":"3-16","period":"Q4",
//!   "elapsed":"5:18","live":true,"ended":false,"turn":"lac"}"#)?;
//! assert_eq!((r.game_id, r.live, r.ended), (19439, true, false));
//! assert_eq!(r.score.map(|s| s.raw()), Some("3-16"));
//! # Ok::<(), polyclob::decode::DecodeError>(())
//! ```
//!
//! [Sports WebSocket]: https://docs.polymarket.com/market-data/websocket/sports

use crate::decode::json::{Cursor, Raw, err};
use crate::decode::{DecodeError, DecodeErrorKind, JsonStr, opt_str, opt_text};
use crate::rtds::decode::{opt_bool, opt_u64, walk_object};

/// One `sport_result`, borrowing from the frame.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct SportResult<'a> {
    /// The game (`gameId`).
    pub game_id: u64,
    /// The league (`leagueAbbreviation`: `nfl`, `nba`, `cs2` …).
    pub league: Option<&'a str>,
    /// The market slug (`slug`).
    pub slug: Option<&'a str>,
    /// Home team (`homeTeam`).
    pub home_team: Option<JsonStr<'a>>,
    /// Away team (`awayTeam`).
    pub away_team: Option<JsonStr<'a>>,
    /// Game status as sent (`status`; values differ per sport).
    pub status: Option<JsonStr<'a>>,
    /// Score as sent (`score`; format differs per sport).
    pub score: Option<JsonStr<'a>>,
    /// Period (`period`: `Q4`, `2H`, `HT`, `FT OT`, `2/3` …).
    pub period: Option<JsonStr<'a>>,
    /// Time elapsed in the period (`elapsed`).
    pub elapsed: Option<JsonStr<'a>>,
    /// The match is in progress (`live`; `false` when absent).
    pub live: bool,
    /// The match has concluded (`ended`; `false` when absent).
    pub ended: bool,
    /// Team with possession (`turn`; NFL and CFB only).
    pub turn: Option<JsonStr<'a>>,
    /// When the match ended (ISO 8601), once `ended`.
    pub finished_at: Option<&'a str>,
}

/// Decodes one sports frame.
///
/// # Errors
/// [`DecodeError`] when the frame is not one JSON object or has no numeric `gameId`.
pub fn decode(frame: &str) -> Result<SportResult<'_>, DecodeError> {
    if u32::try_from(frame.len()).is_err() {
        return Err(err(DecodeErrorKind::TooDeep, "", u32::MAX as usize));
    }
    let mut c = Cursor::new(frame, 0);
    match c.peek() {
        Some(b'{') => {}
        Some(_) => return Err(err(DecodeErrorKind::WrongType, "", c.pos)),
        None => return Err(err(DecodeErrorKind::Eof, "", c.pos)),
    }
    let mut f: [Raw; 13] = Default::default();
    walk_object(&mut c, "", |c, key| {
        let k = match key {
            b"gameId" => 0,
            b"leagueAbbreviation" => 1,
            b"slug" => 2,
            b"homeTeam" => 3,
            b"awayTeam" => 4,
            b"status" => 5,
            b"score" => 6,
            b"period" => 7,
            b"elapsed" => 8,
            b"live" => 9,
            b"ended" => 10,
            b"turn" => 11,
            b"finished_timestamp" | b"finishedTimestamp" => 12,
            _ => return c.skip(0),
        };
        f[k] = c.raw()?;
        Ok(())
    })?;
    if c.peek().is_some() {
        return Err(err(DecodeErrorKind::Syntax, "", c.pos));
    }
    let game_id = match opt_u64(frame, &f[0]) {
        Some(id) => id,
        None if f[0].is_blank() => return Err(err(DecodeErrorKind::MissingField, "gameId", 0)),
        None => return Err(err(DecodeErrorKind::InvalidValue, "gameId", f[0].at())),
    };
    Ok(SportResult {
        game_id,
        league: opt_str(frame, &f[1], "leagueAbbreviation")?,
        slug: opt_str(frame, &f[2], "slug")?,
        home_team: opt_text(frame, &f[3], "homeTeam")?,
        away_team: opt_text(frame, &f[4], "awayTeam")?,
        status: opt_text(frame, &f[5], "status")?,
        score: opt_text(frame, &f[6], "score")?,
        period: opt_text(frame, &f[7], "period")?,
        elapsed: opt_text(frame, &f[8], "elapsed")?,
        live: opt_bool(frame, &f[9]).unwrap_or(false),
        ended: opt_bool(frame, &f[10]).unwrap_or(false),
        turn: opt_text(frame, &f[11], "turn")?,
        finished_at: opt_str(frame, &f[12], "finished_timestamp")?,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn documented_examples() {
        let r = decode(
            r#"{"gameId":1317359,"leagueAbbreviation":"cs2","slug":"cs2-arcred-the-glecs-2025-07-20",
            "homeTeam":"ARCRED","awayTeam":"The glecs","status":"finished","score":"000-000|2-0|Bo3",
            "period":"2/3","live":false,"ended":true,"finished_timestamp":"2025-07-20T18:30:00.000Z"}"#,
        )
        .unwrap();
        assert!(r.ended && !r.live);
        assert_eq!(r.finished_at, Some("2025-07-20T18:30:00.000Z"));
        assert_eq!(r.away_team.unwrap().raw(), "The glecs");
        assert_eq!(r.turn.map(|t| t.raw()), None);
        let r = decode(r#"{"gameId":"7","finishedTimestamp":"x","homeTeam":"A \"B\""}"#).unwrap();
        assert_eq!(r.game_id, 7);
        assert_eq!(r.finished_at, Some("x"));
        assert_eq!(r.home_team.unwrap().to_unescaped().unwrap(), "A \"B\"");
    }

    #[test]
    fn errors_are_typed() {
        for (f, kind) in [
            ("ping", DecodeErrorKind::WrongType),
            ("", DecodeErrorKind::Eof),
            (r#"{"slug":"x"}"#, DecodeErrorKind::MissingField),
            (r#"{"gameId":-1}"#, DecodeErrorKind::InvalidValue),
            (r#"{"gameId":1,"homeTeam":5}"#, DecodeErrorKind::WrongType),
            (r#"{"gameId":1} {"#, DecodeErrorKind::Syntax),
        ] {
            assert_eq!(decode(f).unwrap_err().kind(), kind, "{f}");
        }
    }
}
