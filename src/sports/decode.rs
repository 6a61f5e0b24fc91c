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
//! As the live socket sends them (public captures of its frames; the docs do not say): no
//! `slug` and no message-type field; a game is keyed by `leagueAbbreviation` + `gameId`, or
//! by `metadataGameId` (a **string**) for cricket ([`GameKey`]); `status` comes in varying
//! casing (`InProgress`, `inprogress`, `running`, `finished`, `not_started`), read into a
//! [`GameState`] whatever its case.
//!
//! Only the key is required. A field of an unexpected type (a numeric `score`, a `live` that
//! is neither a boolean nor `"true"`/`"false"`) does not fail the frame: the field is read as
//! far as it can be (a number as its text, else `None`) and named in
//! [`SportResult::issues`], so the key and `ended` still arrive.
//!
//! ```
//! use polyclob::sports::decode::{decode, GameId, GameState};
//! let r = decode(r#"{"gameId":19439,"leagueAbbreviation":"nfl","slug":"nfl-lac-buf-2025-01-26",
//!   "homeTeam":"LAC","awayTeam":"BUF","status":"InProgress","score":"3-16","period":"Q4",
//!   "elapsed":"5:18","live":true,"ended":false,"turn":"lac"}"#)?;
//! assert_eq!((r.key.league, r.key.id), (Some("nfl"), GameId::Num(19439)));
//! assert_eq!((r.state, r.live, r.ended), (Some(GameState::InProgress), Some(true), Some(false)));
//! assert_eq!(r.score.map(|s| s.raw()), Some("3-16"));
//! assert!(r.issues.is_empty());
//! # Ok::<(), polyclob::decode::DecodeError>(())
//! ```
//!
//! [Sports WebSocket]: https://docs.polymarket.com/market-data/websocket/sports

use core::fmt;

use crate::decode::{DecodeError, DecodeErrorKind, JsonStr};
use crate::json::{Cursor, Raw, RawKind, err};
use crate::rtds::decode::{opt_u64, walk_object};

/// One `sport_result`, borrowing from the frame.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct SportResult<'a> {
    /// The game: league and id.
    pub key: GameKey<'a>,
    /// The market slug (`slug`; the live socket does not send it).
    pub slug: Option<&'a str>,
    /// Home team (`homeTeam`).
    pub home_team: Option<JsonStr<'a>>,
    /// Away team (`awayTeam`).
    pub away_team: Option<JsonStr<'a>>,
    /// Game status as sent (`status`; values and casing differ per sport).
    pub status: Option<JsonStr<'a>>,
    /// `status` read case-insensitively into a few states.
    pub state: Option<GameState>,
    /// Score as sent (`score`; format differs per sport).
    pub score: Option<JsonStr<'a>>,
    /// Period (`period`: `Q4`, `2H`, `HT`, `FT OT`, `2/3` …).
    pub period: Option<JsonStr<'a>>,
    /// Time elapsed in the period (`elapsed`).
    pub elapsed: Option<JsonStr<'a>>,
    /// The match is in progress (`live`: a boolean, or the string `"true"`/`"false"`); `None`
    /// when absent or unreadable (then named in `issues`).
    pub live: Option<bool>,
    /// The match has concluded (`ended`, read as `live` is). The live socket usually sends
    /// `true` once: after a gap, ask Gamma (`gamma::EventFilter::game_id`).
    pub ended: Option<bool>,
    /// Team with possession (`turn`; NFL and CFB only).
    pub turn: Option<JsonStr<'a>>,
    /// When the match ended (ISO 8601), once `ended`.
    pub finished_at: Option<&'a str>,
    /// Fields that held a value of an unexpected type.
    pub issues: SportIssues,
}

/// A game's identity on the sports socket: its league and its id.
///
/// Shown as `league|id` (`nfl|19439`, `cricket|m-42`; no league: `|19439`).
///
/// ```
/// use polyclob::sports::decode::{decode, GameId};
/// let r = decode(r#"{"metadataGameId":"ipl-2026-17","leagueAbbreviation":"cricket"}"#)?;
/// assert_eq!(r.key.id, GameId::Text("ipl-2026-17"));
/// assert_eq!(r.key.to_string(), "cricket|ipl-2026-17");
/// # Ok::<(), polyclob::decode::DecodeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameKey<'a> {
    /// `leagueAbbreviation` (`nfl`, `nba`, `cs2`, `cricket` …), when sent as a string.
    pub league: Option<&'a str>,
    /// `gameId`, or `metadataGameId` when there is no `gameId`.
    pub id: GameId<'a>,
}

impl fmt::Display for GameKey<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}|{}", self.league.unwrap_or(""), self.id)
    }
}

/// A game id: `gameId` is a number (the docs); cricket's `metadataGameId` is a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GameId<'a> {
    /// `gameId` (a number, or a string of digits): what Gamma's `game_id` filter takes.
    Num(u64),
    /// `metadataGameId`, as sent.
    Text(&'a str),
}

impl fmt::Display for GameId<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Num(n) => write!(f, "{n}"),
            Self::Text(t) => f.write_str(t),
        }
    }
}

/// A game's `status`, read whatever its casing, `_`, `-` or spaces (`InProgress`,
/// `inprogress`, `in_progress` are one state).
///
/// ```
/// use polyclob::sports::decode::GameState;
/// assert_eq!(GameState::parse("not_started"), GameState::NotStarted);
/// assert_eq!(GameState::parse("running"), GameState::InProgress);
/// assert_eq!(GameState::parse("F/OT"), GameState::Finished);
/// assert_eq!(GameState::parse("Postponed"), GameState::Other); // the text stays in `status`
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GameState {
    /// `Scheduled`, `not_started`.
    NotStarted,
    /// `InProgress`, `running`.
    InProgress,
    /// `Final`, `F/OT`, `finished`.
    Finished,
    /// Any other status (`Suspended`, `Postponed`, `Delayed` …): see
    /// [`SportResult::status`].
    Other,
}

impl GameState {
    const WORDS: [(&'static str, Self); 7] = [
        ("scheduled", Self::NotStarted),
        ("notstarted", Self::NotStarted),
        ("inprogress", Self::InProgress),
        ("running", Self::InProgress),
        ("final", Self::Finished),
        ("f/ot", Self::Finished),
        ("finished", Self::Finished),
    ];

    /// The state a `status` names ([`GameState::Other`] for the rest).
    #[must_use]
    pub fn parse(status: &str) -> Self {
        Self::WORDS
            .into_iter()
            .find_map(|(w, s)| same_word(status, w).then_some(s))
            .unwrap_or(Self::Other)
    }
}

/// Whether `status` is `word` (lower case) once case, `_`, `-` and spaces are ignored.
fn same_word(status: &str, word: &str) -> bool {
    let mut a = status
        .bytes()
        .filter(|b| !matches!(b, b'_' | b'-' | b' '))
        .map(|b| b.to_ascii_lowercase());
    let mut w = word.bytes();
    loop {
        match (a.next(), w.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) if x == y => {}
            _ => return false,
        }
    }
}

/// The fields of a [`SportResult`] whose value had an unexpected type, as a set (no
/// allocation).
///
/// ```
/// use polyclob::sports::decode::decode;
/// let r = decode(r#"{"gameId":7,"leagueAbbreviation":"nba","score":3,"live":"yes","ended":true}"#)?;
/// assert_eq!(r.ended, Some(true)); // the frame still counts
/// assert_eq!(r.score.map(|s| s.raw()), Some("3")); // a number is kept as its text
/// assert_eq!(r.live, None);
/// assert_eq!(r.issues.iter().collect::<Vec<_>>(), ["score", "live"]);
/// assert!(r.issues.contains("live") && !r.issues.contains("ended"));
/// # Ok::<(), polyclob::decode::DecodeError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SportIssues(u16);

/// The fields [`SportIssues`] can name, by bit.
const FIELDS: [&str; 13] = [
    "gameId",
    "leagueAbbreviation",
    "slug",
    "homeTeam",
    "awayTeam",
    "status",
    "score",
    "period",
    "elapsed",
    "live",
    "ended",
    "turn",
    "finished_timestamp",
];

impl SportIssues {
    /// Whether every field had its expected type.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// How many fields had an unexpected type.
    #[must_use]
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether `field` (its wire name: `score`, `live` …) had an unexpected type.
    #[must_use]
    pub fn contains(self, field: &str) -> bool {
        self.iter().any(|f| f == field)
    }

    /// The fields' wire names, in the order of [`SportResult`]'s fields.
    pub fn iter(self) -> impl Iterator<Item = &'static str> {
        FIELDS
            .into_iter()
            .enumerate()
            .filter_map(move |(i, f)| (self.0 & (1 << i) != 0).then_some(f))
    }

    fn add(&mut self, i: usize) {
        self.0 |= 1 << i;
    }
}

impl fmt::Display for SportIssues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, field) in self.iter().enumerate() {
            if n > 0 {
                f.write_str(", ")?;
            }
            f.write_str(field)?;
        }
        Ok(())
    }
}

/// Reads the optional fields leniently, noting each one of an unexpected type.
struct Fields<'a> {
    src: &'a str,
    issues: SportIssues,
}

impl<'a> Fields<'a> {
    /// Free text (escapes allowed); a number is kept as its text, and noted.
    fn text(&mut self, r: &Raw, i: usize) -> Option<JsonStr<'a>> {
        match r.kind {
            RawKind::Missing | RawKind::Null => None,
            RawKind::Str => Some(JsonStr::new(r.text(self.src), false, r.at())),
            RawKind::Esc => Some(JsonStr::new(r.text(self.src), true, r.at())),
            RawKind::Num => {
                self.issues.add(i);
                Some(JsonStr::new(r.text(self.src), false, r.at()))
            }
            RawKind::Other => {
                self.issues.add(i);
                None
            }
        }
    }

    /// A verbatim string (no escapes), else noted.
    fn word(&mut self, r: &Raw, i: usize) -> Option<&'a str> {
        match r.kind {
            RawKind::Missing | RawKind::Null => None,
            RawKind::Str => Some(r.text(self.src)),
            _ => {
                self.issues.add(i);
                None
            }
        }
    }

    /// `true`/`false`, or the strings `"true"`/`"false"` (any case); anything else is noted.
    fn flag(&mut self, r: &Raw, i: usize) -> Option<bool> {
        let read = match r.kind {
            RawKind::Missing | RawKind::Null => return None,
            // `true`, `false`, an object or an array: the scanner checked the literal.
            RawKind::Other => match self.src.as_bytes().get(r.at()) {
                Some(b't') => Some(true),
                Some(b'f') => Some(false),
                _ => None,
            },
            RawKind::Str => {
                let text = r.text(self.src);
                if text.eq_ignore_ascii_case("true") {
                    Some(true)
                } else if text.eq_ignore_ascii_case("false") {
                    Some(false)
                } else {
                    None
                }
            }
            RawKind::Esc | RawKind::Num => None,
        };
        if read.is_none() {
            self.issues.add(i);
        }
        read
    }
}

/// Decodes one sports frame.
///
/// # Errors
/// [`DecodeError`] when the frame is not one JSON object or names no game: neither a
/// `gameId` (a non-negative integer, as a number or a string of digits) nor a non-empty
/// `metadataGameId` (`MissingField` when neither is sent, `InvalidValue` when what is sent
/// is not one). Other fields of an unexpected type are listed in [`SportResult::issues`].
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
    // Slots 0..13 in the order of `FIELDS`; 13 is `metadataGameId`.
    let mut f: [Raw; 14] = Default::default();
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
            b"metadataGameId" => 13,
            _ => return c.skip(0),
        };
        f[k] = c.raw()?;
        Ok(())
    })?;
    if c.peek().is_some() {
        return Err(err(DecodeErrorKind::Syntax, "", c.pos));
    }
    let mut r = Fields {
        src: frame,
        issues: SportIssues::default(),
    };
    let metadata = match f[13].kind {
        RawKind::Str | RawKind::Num if f[13].len > 0 => Some(f[13].text(frame)),
        _ => None,
    };
    let absent = |r: &Raw| matches!(r.kind, RawKind::Missing | RawKind::Null);
    let id = match (opt_u64(frame, &f[0]), metadata) {
        (Some(n), _) => GameId::Num(n),
        (None, Some(m)) => {
            if !absent(&f[0]) {
                r.issues.add(0);
            }
            GameId::Text(m)
        }
        (None, None) if absent(&f[0]) && absent(&f[13]) => {
            return Err(err(DecodeErrorKind::MissingField, "gameId", 0));
        }
        (None, None) if absent(&f[0]) => {
            return Err(err(
                DecodeErrorKind::InvalidValue,
                "metadataGameId",
                f[13].at(),
            ));
        }
        (None, None) => return Err(err(DecodeErrorKind::InvalidValue, "gameId", f[0].at())),
    };
    let key = GameKey {
        league: r.word(&f[1], 1),
        id,
    };
    let status = r.text(&f[5], 5);
    Ok(SportResult {
        key,
        slug: r.word(&f[2], 2),
        home_team: r.text(&f[3], 3),
        away_team: r.text(&f[4], 4),
        status,
        state: status.map(|s| GameState::parse(s.raw())),
        score: r.text(&f[6], 6),
        period: r.text(&f[7], 7),
        elapsed: r.text(&f[8], 8),
        live: r.flag(&f[9], 9),
        ended: r.flag(&f[10], 10),
        turn: r.text(&f[11], 11),
        finished_at: r.word(&f[12], 12),
        issues: r.issues,
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
        assert_eq!((r.ended, r.live), (Some(true), Some(false)));
        assert_eq!(r.state, Some(GameState::Finished));
        assert_eq!(r.finished_at, Some("2025-07-20T18:30:00.000Z"));
        assert_eq!(r.away_team.unwrap().raw(), "The glecs");
        assert_eq!(r.turn.map(|t| t.raw()), None);
        assert!(r.issues.is_empty());
        let r = decode(r#"{"gameId":"7","finishedTimestamp":"x","homeTeam":"A \"B\""}"#).unwrap();
        assert_eq!(
            r.key,
            GameKey {
                league: None,
                id: GameId::Num(7)
            }
        );
        assert_eq!(r.key.to_string(), "|7");
        assert_eq!((r.finished_at, r.live, r.ended), (Some("x"), None, None));
        assert_eq!(r.home_team.unwrap().to_unescaped().unwrap(), "A \"B\"");
    }

    /// Frames shaped as the live socket sends them: no slug, cricket keyed by a string
    /// `metadataGameId`, status casing that varies.
    #[test]
    fn live_shapes() {
        let r = decode(
            r#"{"metadataGameId":"87512","leagueAbbreviation":"cricket","homeTeam":"MI","awayTeam":"CSK","status":"running","score":"145/3","period":"1st","live":true,"ended":false}"#,
        )
        .unwrap();
        assert_eq!(
            r.key,
            GameKey {
                league: Some("cricket"),
                id: GameId::Text("87512")
            }
        );
        assert_eq!((r.state, r.slug), (Some(GameState::InProgress), None));
        for (status, state) in [
            ("InProgress", GameState::InProgress),
            ("inprogress", GameState::InProgress),
            ("IN_PROGRESS", GameState::InProgress),
            ("running", GameState::InProgress),
            ("finished", GameState::Finished),
            ("Final", GameState::Finished),
            ("F/OT", GameState::Finished),
            ("not_started", GameState::NotStarted),
            ("Scheduled", GameState::NotStarted),
            ("Suspended", GameState::Other),
            ("", GameState::Other),
            ("finishedx", GameState::Other),
        ] {
            let f = format!(r#"{{"gameId":1,"status":"{status}"}}"#);
            let r = decode(&f).unwrap();
            assert_eq!(r.state, Some(state), "{status}");
            assert_eq!(r.status.unwrap().raw(), status);
        }
        // `gameId` wins over `metadataGameId`; a broken `gameId` beside one is noted.
        let r = decode(r#"{"gameId":5,"metadataGameId":"m"}"#).unwrap();
        assert_eq!(r.key.id, GameId::Num(5));
        let r = decode(r#"{"gameId":"x5","metadataGameId":"m"}"#).unwrap();
        assert_eq!(r.key.id, GameId::Text("m"));
        assert_eq!(r.issues.iter().collect::<Vec<_>>(), ["gameId"]);
    }

    #[test]
    fn booleans_as_strings_are_read_or_reported() {
        for (v, read, noted) in [
            ("true", Some(true), false),
            ("false", Some(false), false),
            (r#""true""#, Some(true), false),
            (r#""False""#, Some(false), false),
            ("null", None, false),
            (r#""yes""#, None, true),
            ("1", None, true),
            ("{}", None, true),
            (r#""""#, None, true),
        ] {
            let f = format!(r#"{{"gameId":1,"live":{v},"ended":{v}}}"#);
            let r = decode(&f).unwrap();
            assert_eq!((r.live, r.ended), (read, read), "{v}");
            assert_eq!(
                (r.issues.contains("live"), r.issues.contains("ended")),
                (noted, noted),
                "{v}"
            );
        }
    }

    /// An optional field of an unexpected type never loses the frame's key or `ended`.
    #[test]
    fn odd_optional_fields_keep_the_key() {
        let r = decode(
            r#"{"gameId":19439,"leagueAbbreviation":"nfl","score":3,"period":[1],"homeTeam":{"a":1},"slug":"a\"b","status":7,"elapsed":true,"turn":null,"finished_timestamp":5,"ended":true}"#,
        )
        .unwrap();
        assert_eq!(r.key.to_string(), "nfl|19439");
        assert_eq!(r.ended, Some(true));
        assert_eq!(r.score.map(|s| s.raw()), Some("3"));
        assert_eq!(
            (r.status.map(|s| s.raw()), r.state),
            (Some("7"), Some(GameState::Other))
        );
        assert_eq!(
            (r.period, r.home_team, r.slug, r.turn),
            (None, None, None, None)
        );
        assert_eq!(
            r.issues.iter().collect::<Vec<_>>(),
            [
                "slug",
                "homeTeam",
                "status",
                "score",
                "period",
                "elapsed",
                "finished_timestamp"
            ]
        );
        assert_eq!(r.issues.len(), 7);
        assert_eq!(
            r.issues.to_string(),
            "slug, homeTeam, status, score, period, elapsed, finished_timestamp"
        );
        let r = decode(r#"{"gameId":1,"leagueAbbreviation":5}"#).unwrap();
        assert_eq!(
            (r.key.league, r.issues.contains("leagueAbbreviation")),
            (None, true)
        );
    }

    #[test]
    fn errors_are_typed() {
        for (f, kind, field) in [
            ("ping", DecodeErrorKind::WrongType, ""),
            ("", DecodeErrorKind::Eof, ""),
            (r#"{"slug":"x"}"#, DecodeErrorKind::MissingField, "gameId"),
            (r#"{"gameId":-1}"#, DecodeErrorKind::InvalidValue, "gameId"),
            (r#"{"gameId":1.5}"#, DecodeErrorKind::InvalidValue, "gameId"),
            (
                r#"{"metadataGameId":""}"#,
                DecodeErrorKind::InvalidValue,
                "metadataGameId",
            ),
            (
                r#"{"metadataGameId":{}}"#,
                DecodeErrorKind::InvalidValue,
                "metadataGameId",
            ),
            (
                r#"{"gameId":null,"metadataGameId":null}"#,
                DecodeErrorKind::MissingField,
                "gameId",
            ),
            (r#"{"gameId":1} {"#, DecodeErrorKind::Syntax, ""),
        ] {
            let e = decode(f).unwrap_err();
            assert_eq!((e.kind(), e.field()), (kind, field), "{f}");
        }
    }
}
