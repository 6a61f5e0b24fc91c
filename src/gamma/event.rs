//! Gamma events (a group of markets), tags, series and their summaries, sports metadata and
//! teams, profiles and public-search results, decoded leniently like [`GammaMarket`].

use serde::Deserialize;
use serde_json::value::RawValue;

use super::market::GammaMarket;
use crate::fixed::Size;
use crate::http::{Rows, SkippedRow, decode_each, lenient, rounded};
use crate::types::{Timestamp, timestamp_opt};

/// A Gamma event: one question family (an election, a match, a price ladder) and its markets.
///
/// ```
/// use polyclob::gamma::GammaEvent;
///
/// let e: GammaEvent = serde_json::from_str(r#"{"id":"30829","slug":"dem-nominee-2028","negRisk":true,
///     "liquidity":43042905.16152,"markets":[{"id":"1","conditionId":"0xa"}],"tags":[{"id":"2","label":"Politics"}]}"#)?;
/// assert!(e.neg_risk);
/// assert_eq!(e.markets[0].condition_id, "0xa");
/// assert_eq!(e.liquidity.unwrap().to_string(), "43042905.16152");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct GammaEvent {
    /// Gamma's numeric id, as text.
    #[serde(deserialize_with = "lenient::string")]
    pub id: String,
    /// Ticker.
    #[serde(deserialize_with = "lenient::string")]
    pub ticker: String,
    /// URL slug.
    #[serde(deserialize_with = "lenient::string")]
    pub slug: String,
    /// Title.
    #[serde(deserialize_with = "lenient::string")]
    pub title: String,
    /// Description.
    #[serde(deserialize_with = "lenient::string")]
    pub description: String,
    /// Category (legacy events).
    #[serde(deserialize_with = "lenient::string")]
    pub category: String,
    /// Start date.
    #[serde(deserialize_with = "timestamp_opt")]
    pub start_date: Option<Timestamp>,
    /// End date (ISO 8601, or a date alone: midnight UTC).
    #[serde(deserialize_with = "timestamp_opt")]
    pub end_date: Option<Timestamp>,
    /// Whether the event is active.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub active: bool,
    /// Whether the event is closed.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub closed: bool,
    /// Whether the event is archived.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub archived: bool,
    /// Whether the event is featured.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub featured: bool,
    /// Whether the event's markets are neg-risk.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub neg_risk: bool,
    /// The neg-risk market id.
    #[serde(rename = "negRiskMarketID", deserialize_with = "lenient::string")]
    pub neg_risk_market_id: String,
    /// Liquidity in pUSD.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub liquidity: Option<Size>,
    /// Lifetime volume in pUSD.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub volume: Option<Size>,
    /// Volume over the last 24 hours.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub volume_24hr: Option<Size>,
    /// Open interest in pUSD.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub open_interest: Option<Size>,
    /// Number of comments.
    #[serde(deserialize_with = "lenient::u64_lenient")]
    pub comment_count: u64,
    /// The series slug, for recurring events.
    #[serde(deserialize_with = "lenient::string")]
    pub series_slug: String,
    /// The event's markets.
    #[serde(deserialize_with = "lenient::null_default")]
    pub markets: Vec<GammaMarket>,
    /// Tags.
    #[serde(deserialize_with = "lenient::null_default")]
    pub tags: Vec<Tag>,
    /// The series this event recurs in.
    #[serde(deserialize_with = "lenient::null_default")]
    pub series: Vec<Series>,
}

/// A Gamma tag (a topic used to filter markets and events).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tag {
    /// Numeric id, as text (what `tag_id` filters take).
    #[serde(deserialize_with = "lenient::string")]
    pub id: String,
    /// Display label.
    #[serde(deserialize_with = "lenient::string")]
    pub label: String,
    /// URL slug.
    #[serde(deserialize_with = "lenient::string")]
    pub slug: String,
    /// Whether the site always shows it.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub force_show: bool,
    /// Creation time.
    #[serde(deserialize_with = "timestamp_opt")]
    pub created_at: Option<Timestamp>,
    /// Last update.
    #[serde(deserialize_with = "timestamp_opt")]
    pub updated_at: Option<Timestamp>,
}

/// A Gamma series: recurring events (e.g. "BTC Up or Down 5m").
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct Series {
    /// Numeric id, as text.
    #[serde(deserialize_with = "lenient::string")]
    pub id: String,
    /// Ticker.
    #[serde(deserialize_with = "lenient::string")]
    pub ticker: String,
    /// URL slug.
    #[serde(deserialize_with = "lenient::string")]
    pub slug: String,
    /// Title.
    #[serde(deserialize_with = "lenient::string")]
    pub title: String,
    /// Kind (`"single"`, …).
    #[serde(deserialize_with = "lenient::string")]
    pub series_type: String,
    /// Recurrence (`"5m"`, `"daily"`, …).
    #[serde(deserialize_with = "lenient::string")]
    pub recurrence: String,
    /// Whether the series is active.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub active: bool,
    /// Whether the series is closed.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub closed: bool,
    /// Lifetime volume in pUSD.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub volume: Option<Size>,
    /// Liquidity in pUSD.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub liquidity: Option<Size>,
    /// The series' events, when the endpoint embeds them.
    #[serde(deserialize_with = "lenient::null_default")]
    pub events: Vec<GammaEvent>,
}

/// Sports metadata from Gamma's `GET /sports`: one row per sport.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct Sport {
    /// Sport code (`"nba"`, `"epl"`, …).
    #[serde(deserialize_with = "lenient::string")]
    pub sport: String,
    /// Image URL.
    #[serde(deserialize_with = "lenient::string")]
    pub image: String,
    /// Resolution source URL.
    #[serde(deserialize_with = "lenient::string")]
    pub resolution: String,
    /// Display ordering (`"home"`/`"away"`).
    #[serde(deserialize_with = "lenient::string")]
    pub ordering: String,
    /// Comma-separated tag ids of the sport.
    #[serde(deserialize_with = "lenient::string")]
    pub tags: String,
    /// The sport's series id.
    #[serde(deserialize_with = "lenient::string")]
    pub series: String,
}

impl Sport {
    /// The tag ids of [`tags`](Self::tags), split.
    pub fn tag_ids(&self) -> impl Iterator<Item = &str> {
        self.tags
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
    }
}

/// A Gamma profile: one found by public search, a wallet's public profile
/// (`GET /public-profile`), or a comment's author ([`GammaComment::profile`](super::GammaComment)).
/// Every field may be absent or `null` on the wire (empty here).
///
/// ```
/// use polyclob::gamma::Profile;
///
/// let p: Profile = serde_json::from_str(r#"{"createdAt":"2025-03-01T12:00:00Z","proxyWallet":"0x7c3d",
///     "profileImage":null,"displayUsernamePublic":true,"bio":null,"pseudonym":"Quiet-Heron","name":"north",
///     "users":[{"id":"12345","creator":false,"mod":false}],"xUsername":null,"verifiedBadge":false}"#)?;
/// assert_eq!((p.name.as_str(), p.display_username_public), ("north", Some(true)));
/// assert_eq!(p.users[0].id, "12345");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct Profile {
    /// Display name.
    #[serde(deserialize_with = "lenient::string")]
    pub name: String,
    /// Generated pseudonym.
    #[serde(deserialize_with = "lenient::string")]
    pub pseudonym: String,
    /// The proxy wallet the profile trades from.
    #[serde(deserialize_with = "lenient::string")]
    pub proxy_wallet: String,
    /// The account's base address (comment authors).
    #[serde(deserialize_with = "lenient::string")]
    pub base_address: String,
    /// Whether the name is shown publicly; `None` when not said.
    #[serde(deserialize_with = "lenient::bool_opt")]
    pub display_username_public: Option<bool>,
    /// Bio.
    #[serde(deserialize_with = "lenient::string")]
    pub bio: String,
    /// Profile image URL.
    #[serde(deserialize_with = "lenient::string")]
    pub profile_image: String,
    /// Linked X handle.
    #[serde(deserialize_with = "lenient::string")]
    pub x_username: String,
    /// Verification badge; `None` when not said.
    #[serde(deserialize_with = "lenient::bool_opt")]
    pub verified_badge: Option<bool>,
    /// Whether the author is a moderator (comment authors).
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub is_mod: bool,
    /// Whether the author created the market (comment authors).
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub is_creator: bool,
    /// When the profile was created.
    #[serde(deserialize_with = "timestamp_opt")]
    pub created_at: Option<Timestamp>,
    /// The accounts behind the profile (public profile).
    #[serde(deserialize_with = "lenient::null_default")]
    pub users: Vec<ProfileUser>,
    /// The author's positions in the commented market (comments asked `get_positions`).
    #[serde(deserialize_with = "lenient::null_default")]
    pub positions: Vec<ProfilePosition>,
}

/// An account behind a [`Profile`] (`users` of `GET /public-profile`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct ProfileUser {
    /// Gamma's user id.
    #[serde(deserialize_with = "lenient::string")]
    pub id: String,
    /// Whether the user is a market creator.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub creator: bool,
    /// Whether the user is a moderator.
    #[serde(rename = "mod", deserialize_with = "lenient::bool_lenient")]
    pub moderator: bool,
}

/// A position a comment's author holds (`profile.positions` of a comment).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct ProfilePosition {
    /// The outcome token.
    #[serde(deserialize_with = "lenient::string")]
    pub token_id: String,
    /// Shares held (the wire sends 6-decimal base units: `"12500000"` is 12.5).
    #[serde(deserialize_with = "base_units")]
    pub position_size: Option<Size>,
}

/// A size in 6-decimal base units (an integer, or an integer string); `null`/`""` is `None`.
fn base_units<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Size>, D::Error> {
    let t = lenient::text(d)?;
    let t = t.trim();
    if t.is_empty() {
        return Ok(None);
    }
    t.parse::<u64>()
        .ok()
        .and_then(Size::new)
        .map(Some)
        .ok_or_else(|| serde::de::Error::custom(format_args!("not base units: {t:?}")))
}

/// A series' calendar (`GET /series-summary/{id}` and `/series-summary/slug/{slug}`).
///
/// ```
/// use polyclob::gamma::SeriesSummary;
///
/// let s: SeriesSummary = serde_json::from_str(r#"{"id":"10187","title":"NFL 2026","slug":"nfl-2026",
///     "eventDates":["2026-09-10","2026-09-13"],"eventWeeks":[1,2],"earliest_open_week":14,
///     "earliest_open_date":"2026-12-07","volume":120345.5,"volume24hr":5210.0}"#)?;
/// assert_eq!((s.event_weeks.len(), s.earliest_open_week), (2, Some(14)));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct SeriesSummary {
    /// The series' id.
    #[serde(deserialize_with = "lenient::string")]
    pub id: String,
    /// Title.
    #[serde(deserialize_with = "lenient::string")]
    pub title: String,
    /// URL slug.
    #[serde(deserialize_with = "lenient::string")]
    pub slug: String,
    /// The dates (`YYYY-MM-DD`) the series has events on.
    #[serde(rename = "eventDates", deserialize_with = "rounded::text_list")]
    pub event_dates: Vec<String>,
    /// The weeks it has events in.
    #[serde(rename = "eventWeeks", deserialize_with = "rounded::text_list")]
    pub event_weeks: Vec<String>,
    /// The first week with an open event.
    #[serde(deserialize_with = "rounded::u32_opt")]
    pub earliest_open_week: Option<u32>,
    /// The first date with an open event.
    #[serde(deserialize_with = "lenient::string")]
    pub earliest_open_date: String,
    /// Lifetime volume in pUSD.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub volume: Option<Size>,
    /// Volume over the last 24 hours.
    #[serde(rename = "volume24hr", deserialize_with = "rounded::size_opt")]
    pub volume_24hr: Option<Size>,
}

/// A sports team (`GET /teams`, `GET /teams/{id}`).
///
/// ```
/// use polyclob::gamma::Team;
///
/// let t: Team = serde_json::from_str(r#"{"id":417,"name":"Denver Broncos","league":"nfl","record":"8-5",
///     "logo":"https://x/den.png","abbreviation":"DEN","alias":"Broncos","createdAt":"2025-08-01T00:00:00Z"}"#)?;
/// assert_eq!((t.id.as_str(), t.abbreviation.as_str()), ("417", "DEN"));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct Team {
    /// Gamma's team id, as text.
    #[serde(deserialize_with = "lenient::string")]
    pub id: String,
    /// Name.
    #[serde(deserialize_with = "lenient::string")]
    pub name: String,
    /// League code (`nfl`, …).
    #[serde(deserialize_with = "lenient::string")]
    pub league: String,
    /// Win-loss record.
    #[serde(deserialize_with = "lenient::string")]
    pub record: String,
    /// Logo URL.
    #[serde(deserialize_with = "lenient::string")]
    pub logo: String,
    /// Abbreviation (`DEN`).
    #[serde(deserialize_with = "lenient::string")]
    pub abbreviation: String,
    /// Alias (`Broncos`).
    #[serde(deserialize_with = "lenient::string")]
    pub alias: String,
    /// Creation time.
    #[serde(deserialize_with = "timestamp_opt")]
    pub created_at: Option<Timestamp>,
    /// Last update.
    #[serde(deserialize_with = "timestamp_opt")]
    pub updated_at: Option<Timestamp>,
}

/// Gamma's `GET /public-search` answer: matching events, tags and profiles.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SearchResults {
    /// Matching events (with their markets).
    pub events: Vec<GammaEvent>,
    /// Matching tags.
    pub tags: Vec<Tag>,
    /// Matching profiles.
    pub profiles: Vec<Profile>,
    /// Whether another page exists (`pagination.hasMore`, or the top-level `hasMore` of an
    /// `optimized=true` answer).
    pub has_more: bool,
    /// Total matches (`pagination.totalResults`).
    pub total_results: u64,
    /// Rows that did not decode: their list (`events`, `tags`, `profiles`), index, reason
    /// and raw text.
    pub skipped: Vec<SkippedRow>,
}

impl Rows for SearchResults {
    fn skipped(&self) -> &[SkippedRow] {
        &self.skipped
    }
}

impl<'de> Deserialize<'de> for SearchResults {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize, Default)]
        #[serde(default, rename_all = "camelCase")]
        struct Pagination {
            #[serde(deserialize_with = "lenient::bool_lenient")]
            has_more: bool,
            #[serde(deserialize_with = "lenient::u64_lenient")]
            total_results: u64,
        }
        #[derive(Deserialize, Default)]
        #[serde(default)]
        struct Raw {
            events: Option<Vec<Box<RawValue>>>,
            tags: Option<Vec<Box<RawValue>>>,
            profiles: Option<Vec<Box<RawValue>>>,
            pagination: Option<Pagination>,
            /// `optimized=true` answers carry it here instead of in `pagination`.
            #[serde(rename = "hasMore", deserialize_with = "lenient::bool_lenient")]
            has_more: bool,
        }
        let raw = Raw::deserialize(d)?;
        let mut skipped = Vec::new();
        let events = rows(raw.events, "events", &mut skipped);
        let tags = rows(raw.tags, "tags", &mut skipped);
        let profiles = rows(raw.profiles, "profiles", &mut skipped);
        let p = raw.pagination.unwrap_or_default();
        Ok(Self {
            events,
            tags,
            profiles,
            has_more: p.has_more || raw.has_more,
            total_results: p.total_results,
            skipped,
        })
    }
}

/// Decodes each row of `list` on its own; failures are reported in `skipped`.
fn rows<T: serde::de::DeserializeOwned>(
    raw: Option<Vec<Box<RawValue>>>,
    list: &'static str,
    skipped: &mut Vec<SkippedRow>,
) -> Vec<T> {
    let raw = raw.unwrap_or_default();
    let (rows, bad) = decode_each(list, raw.iter().map(AsRef::as_ref).collect());
    skipped.extend(bad);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_reports_bad_rows() {
        let r: SearchResults = serde_json::from_str(
            r#"{"events":[{"id":"1","markets":[]},{"id":"2","negRisk":[1]}],
                "tags":[{"id":3,"label":"x"}],"pagination":{"hasMore":true,"totalResults":"46940"}}"#,
        )
        .unwrap();
        assert_eq!(r.events.len(), 1);
        assert_eq!(r.skipped.len(), 1);
        assert_eq!((r.skipped[0].list, r.skipped[0].index), ("events", 1));
        assert_eq!(r.skipped[0].raw, r#"{"id":"2","negRisk":[1]}"#);
        assert_eq!(r.tags[0].id, "3");
        assert!(r.has_more);
        assert_eq!(r.total_results, 46_940);
        // `optimized=true`: `hasMore` at the top level, no `pagination`.
        let r: SearchResults =
            serde_json::from_str(r#"{"events":[{"id":"1"}],"hasMore":true}"#).unwrap();
        assert!(r.has_more);
        let r: SearchResults = serde_json::from_str(r#"{"events":[],"hasMore":false}"#).unwrap();
        assert!(!r.has_more);
        let s: Sport = serde_json::from_str(r#"{"sport":"nba","tags":"1, 745,"}"#).unwrap();
        assert_eq!(s.tag_ids().collect::<Vec<_>>(), ["1", "745"]);
    }
}
