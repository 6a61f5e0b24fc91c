//! The ranked boards of the Data API v2: the trader leaderboard (the board, and one wallet's
//! standing on it), the builders' board and their volume over time, and the biggest wins.
//!
//! Facts: docs.polymarket.com, Data API v2 reference ("Get the trader leaderboard", "Get the
//! builders leaderboard", "Get builder volume over time", "List the biggest wins"). Ranks are
//! competition ranks on the boards (ties share one, the next skips) and unique on the
//! biggest wins; `volume` is in shares (both sides), `pnl` in pUSD. The finite windows
//! (`day`, `week`, `month`) serve the marked equity change net of flows, `all` the realized
//! lifetime figure. A board's cursor pins the board it was minted on: walk it with
//! [`Client::pages`] or [`Client::collect`] and the same query.

use serde::Deserialize;
use serde::de::Deserializer;

use super::client::{Client, Query};
use crate::fixed::Amount;
use crate::fixed::Size;
use crate::http::rounded::amount_opt;
use crate::http::{Error, SkippedRow, lenient, rounded};
use crate::types::{Timestamp, timestamp_opt};

/// The windows of the boards (`time_period`).
const PERIODS: &[&str] = &["day", "week", "month", "all"];

/// A rank: `0` and `null` both mean "unranked" (the docs' prose says `0`, their schema
/// `null`), so both are `None`.
fn rank<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    Ok(rounded::u32_opt(d)?.filter(|&r| r != 0))
}

/// One row of the trader leaderboard (`GET /v2/leaderboard`).
///
/// ```
/// use polyclob::data::LeaderboardEntry;
///
/// let e: LeaderboardEntry = serde_json::from_str(r#"{"rank":1,"user_id":"0x31e5","pnl":966725.578196,
///     "volume":1491184.383039,"user_name":"north","profile_image":"","x_username":"","verified":false}"#)?;
/// assert_eq!(e.rank, Some(1));
/// assert_eq!(e.pnl.unwrap().to_string(), "966725.578196");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct LeaderboardEntry {
    /// Competition rank on the board: tied wallets share one and the next skips.
    #[serde(deserialize_with = "rank")]
    pub rank: Option<u32>,
    /// The ranked wallet.
    #[serde(deserialize_with = "lenient::string")]
    pub user_id: String,
    /// PnL over the window in pUSD (marked for finite windows, realized for `all`).
    #[serde(deserialize_with = "amount_opt")]
    pub pnl: Option<Amount>,
    /// Volume over the window in shares, both sides.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub volume: Option<Size>,
    /// Profile display name.
    #[serde(deserialize_with = "lenient::string")]
    pub user_name: String,
    /// Profile image URL.
    #[serde(deserialize_with = "lenient::string")]
    pub profile_image: String,
    /// Linked X handle.
    #[serde(deserialize_with = "lenient::string")]
    pub x_username: String,
    /// Verification badge.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub verified: bool,
}

/// One wallet's standing on the leaderboard (`GET /v2/leaderboard?user=`): both its PnL and
/// its volume rank.
///
/// ```
/// use polyclob::data::LeaderboardStanding;
///
/// let s: LeaderboardStanding = serde_json::from_str(r#"{"user_id":"0x7c3d","pnl":-12.5,"volume":340.2,
///     "rank_pnl":null,"rank_volume":8812,"verified":false}"#)?;
/// assert_eq!((s.rank_pnl, s.rank_volume), (None, Some(8812)));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct LeaderboardStanding {
    /// The wallet.
    #[serde(deserialize_with = "lenient::string")]
    pub user_id: String,
    /// PnL over the window in pUSD.
    #[serde(deserialize_with = "amount_opt")]
    pub pnl: Option<Amount>,
    /// Volume over the window in shares, both sides.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub volume: Option<Size>,
    /// Rank on the PnL board; `None` when unranked there.
    #[serde(deserialize_with = "rank")]
    pub rank_pnl: Option<u32>,
    /// Rank on the volume board; `None` when unranked there.
    #[serde(deserialize_with = "rank")]
    pub rank_volume: Option<u32>,
    /// Profile display name.
    #[serde(deserialize_with = "lenient::string")]
    pub user_name: String,
    /// Profile image URL.
    #[serde(deserialize_with = "lenient::string")]
    pub profile_image: String,
    /// Linked X handle.
    #[serde(deserialize_with = "lenient::string")]
    pub x_username: String,
    /// Verification badge.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub verified: bool,
}

/// A builder's standing: on the builders' board for a window (`GET /v2/builders/leaderboard`),
/// or in one bucket of the volume series (`GET /v2/builders/volume`, which adds
/// [`date`](Self::date)).
///
/// ```
/// use polyclob::data::BuilderStanding;
///
/// let b: BuilderStanding = serde_json::from_str(r#"{"date":"2026-12-06","rank":1,"builder_name":"Acme",
///     "builder_code":"0xa1","profile_image":"","verified":true,"volume":40210.75,"active_users":58}"#)?;
/// assert_eq!((b.date.as_deref(), b.active_users), (Some("2026-12-06"), Some(58)));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct BuilderStanding {
    /// The bucket's first day (`YYYY-MM-DD`, UTC) on a volume series row; `None` on the board.
    #[serde(deserialize_with = "lenient::string_opt")]
    pub date: Option<String>,
    /// Rank in the window (or within the bucket); ties share one.
    #[serde(deserialize_with = "rank")]
    pub rank: Option<u32>,
    /// Display name (falls back to the code).
    #[serde(deserialize_with = "lenient::string")]
    pub builder_name: String,
    /// The builder's stable key.
    #[serde(deserialize_with = "lenient::string")]
    pub builder_code: String,
    /// Profile image URL.
    #[serde(deserialize_with = "lenient::string")]
    pub profile_image: String,
    /// Verification badge.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub verified: bool,
    /// Volume attributed to the builder, in shares.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub volume: Option<Size>,
    /// Distinct makers attributed to the builder.
    #[serde(deserialize_with = "rounded::u32_opt")]
    pub active_users: Option<u32>,
}

/// One winning position (`GET /v2/biggest-winners`): `pnl = final_value - initial_value`.
///
/// ```
/// use polyclob::data::BiggestWin;
///
/// let w: BiggestWin = serde_json::from_str(r#"{"win_rank":1,"kind":"combo","user_id":"0x7c3d","pnl":812.44,
///     "initial_value":9.56,"final_value":822.0,"resolved_at":1796601600,"condition_id":"0x030b",
///     "position_id":"1377","event_id":0,"event_slug":"","event_title":"A / B"}"#)?;
/// assert!(w.is_combo());
/// assert_eq!(w.resolved_at.unwrap().as_secs(), 1_796_601_600);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct BiggestWin {
    /// Unique 1-based place in the window and category.
    #[serde(deserialize_with = "rank")]
    pub win_rank: Option<u32>,
    /// `market` or `combo`.
    #[serde(deserialize_with = "lenient::string")]
    pub kind: String,
    /// The winning wallet.
    #[serde(deserialize_with = "lenient::string")]
    pub user_id: String,
    /// `final_value - initial_value`, in pUSD.
    #[serde(deserialize_with = "amount_opt")]
    pub pnl: Option<Amount>,
    /// Cost basis of the position, in pUSD.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub initial_value: Option<Size>,
    /// Value at resolution, in pUSD.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub final_value: Option<Size>,
    /// When the position resolved.
    #[serde(deserialize_with = "timestamp_opt")]
    pub resolved_at: Option<Timestamp>,
    /// The market's condition (a combo row: the combo condition).
    #[serde(deserialize_with = "lenient::string")]
    pub condition_id: String,
    /// The winning position's token id.
    #[serde(deserialize_with = "lenient::string")]
    pub position_id: String,
    /// The Gamma event id; `"0"` on a combo row (which has no event).
    #[serde(deserialize_with = "lenient::string")]
    pub event_id: String,
    /// The event slug; empty on a combo row.
    #[serde(deserialize_with = "lenient::string")]
    pub event_slug: String,
    /// The event title; on a combo row its legs' questions joined by `" / "`.
    #[serde(deserialize_with = "lenient::string")]
    pub event_title: String,
    /// Profile display name.
    #[serde(deserialize_with = "lenient::string")]
    pub user_name: String,
    /// Profile image URL.
    #[serde(deserialize_with = "lenient::string")]
    pub profile_image: String,
}

impl BiggestWin {
    /// Whether this is a combo's win (no Gamma event: branch on it before linking one).
    #[must_use]
    pub fn is_combo(&self) -> bool {
        self.kind.eq_ignore_ascii_case("combo")
    }
}

impl Query<LeaderboardEntry> {
    /// `GET /v2/leaderboard`: the trader board (PnL by default).
    pub fn leaderboard() -> Self {
        Self::new("/v2/leaderboard")
    }

    /// The window: `day`, `week`, `month` or `all`. Default is the server's (`day`).
    pub fn period(self, period: &str) -> Self {
        self.one_of("time_period", period, PERIODS)
    }

    /// `overall`, a Gamma market category (`sports`, …), `combos` (PnL board only) or
    /// `esports`. Default is the server's (`overall`).
    pub fn category(self, category: impl Into<String>) -> Self {
        self.pair("category", category.into())
    }

    /// Which board: `PNL` or `VOLUME`. Default is the server's (`PNL`).
    pub fn sort_by(self, board: &str) -> Self {
        self.one_of("sort_by", board, &["PNL", "VOLUME"])
    }
}

impl Query<BuilderStanding> {
    /// `GET /v2/builders/leaderboard`: builders ranked by volume.
    pub fn builders() -> Self {
        Self::new("/v2/builders/leaderboard")
    }

    /// The window: `day`, `week`, `month` or `all`. Default is the server's (`day`).
    pub fn period(self, period: &str) -> Self {
        self.one_of("time_period", period, PERIODS)
    }
}

impl Query<BiggestWin> {
    /// `GET /v2/biggest-winners`: the biggest single winning positions.
    pub fn biggest_winners() -> Self {
        Self::new("/v2/biggest-winners")
    }

    /// The window on the resolution time: `day`, `week`, `month` or `all`. Default is the
    /// server's (`day`).
    pub fn period(self, period: &str) -> Self {
        self.one_of("time_period", period, PERIODS)
    }

    /// `overall`, a Gamma market category, `combos` or `esports`. Default is the server's
    /// (`overall`).
    pub fn category(self, category: impl Into<String>) -> Self {
        self.pair("category", category.into())
    }
}

impl Client {
    /// `GET /v2/leaderboard?user=`: `user`'s standing on the boards of `period` (`day`,
    /// `week`, `month`, `all`) and `category` (`overall`, a Gamma category, …); `None` when
    /// the boards do not know the wallet.
    ///
    /// # Errors
    /// A `period` outside the documented set ([`Error::is_argument`]); transport, status, or
    /// a standing that did not decode.
    pub async fn leaderboard_standing(
        &self,
        user: &str,
        period: &str,
        category: &str,
    ) -> Result<Option<LeaderboardStanding>, Error> {
        let q = Query::<LeaderboardStanding>::new("/v2/leaderboard")
            .pair("user", user.to_owned())
            .one_of("time_period", period, PERIODS)
            .pair("category", category.to_owned());
        self.one(&q).await
    }

    /// `GET /v2/builders/volume`: every builder's volume in each of the latest `buckets`
    /// buckets of width `interval` (`day`, `week`, `month`, or `all` for calendar years),
    /// newest bucket first, ranked within each; with the rows that did not decode.
    ///
    /// # Errors
    /// An `interval` outside the documented set or more than 90 buckets
    /// ([`Error::is_argument`]); as [`collect`](Self::collect).
    pub async fn builder_volume(
        &self,
        interval: &str,
        buckets: u32,
    ) -> Result<(Vec<BuilderStanding>, Vec<SkippedRow>), Error> {
        if buckets > 90 {
            return Err(Error::argument(format!(
                "{buckets} buckets asked; `/v2/builders/volume` serves at most 90"
            )));
        }
        let q = Query::<BuilderStanding>::new("/v2/builders/volume")
            .one_of("interval", interval, PERIODS)
            .limit(buckets);
        self.collect(q).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_values_are_checked_before_sending() {
        let q = Query::leaderboard()
            .period("WEEK")
            .sort_by("volume")
            .category("sports");
        let r = q.request(None).unwrap();
        assert_eq!(r.query, "time_period=week&sort_by=VOLUME&category=sports");
        for bad in [
            Query::leaderboard().period("year"),
            Query::leaderboard().sort_by("rank"),
        ] {
            assert!(bad.request(None).unwrap_err().is_argument());
        }
        assert!(
            Query::biggest_winners()
                .period("fortnight")
                .request(None)
                .unwrap_err()
                .is_argument()
        );
    }

    #[test]
    fn unranked_is_none_whether_zero_or_null() {
        let s: LeaderboardStanding =
            serde_json::from_str(r#"{"user_id":"0x1","rank_pnl":0,"rank_volume":null}"#).unwrap();
        assert_eq!((s.rank_pnl, s.rank_volume), (None, None));
        let b: BuilderStanding = serde_json::from_str(r#"{"rank":3,"volume":1.5}"#).unwrap();
        assert_eq!((b.date, b.rank), (None, Some(3)));
    }
}
