//! Resolution and market figures of the Data API v2: `/v2/resolutions` (lifecycle, reporter,
//! payouts, settlement estimates), `/v2/oi` (open interest), `/v2/prices-history`,
//! `/v2/live-volume` (taker volume per market of an event), and whether a position can be
//! redeemed now ([`Redeemability`]).
//!
//! Facts: docs.polymarket.com, Data API v2 reference, "Get resolution state" (supply exactly
//! one of `question_id`, `condition` or `event_id`; condition and event selectors take up to
//! 20 comma-separated values; rows prefer the native V2 lifecycle, then the UMA lifecycle,
//! then the terminal CTF state; `reporter` `UMA_OO|CHAINLINK|EOA`, `payouts` in micro-units of
//! pUSD per share, `proposed_price` `69` meaning unset). Real rows carry
//! `last_update_timestamp` as ISO 8601 on condition rows (resolved, active) and as unix
//! seconds in a string on question rows (pending): both are a [`Timestamp`].

use serde::Deserialize;
use serde::de::Deserializer;

use super::client::{Client, Query};
use super::types::Position;
use crate::fixed::{Price, Size};
use crate::http::Error;
use crate::http::SkippedRow;
use crate::http::lenient::{self, lenient_enum};
use crate::http::rounded;
use crate::types::{Timestamp, timestamp_opt};

lenient_enum!(
    /// Where a market's resolution stands (`/v2/resolutions` `status`). The UMA lifecycle
    /// (`initialized` → `posed` → `proposed` → `challenged`/`reproposed`/`disputed` →
    /// `resolved`) and, on condition rows, the native V2 states (`active`, `arbitration`). A
    /// status this version does not know is kept as [`Unknown`](Self::Unknown), never an error.
    ///
    /// ```
    /// use polyclob::data::ResolutionStatus;
    /// assert_eq!(ResolutionStatus::parse("resolved"), ResolutionStatus::Resolved);
    /// assert_eq!(ResolutionStatus::parse("voided"), ResolutionStatus::Unknown("voided".into()));
    /// ```
    ResolutionStatus {
        /// The oracle request was initialized.
        Initialized = "initialized",
        /// The question was posed to the oracle.
        Posed = "posed",
        /// An answer was proposed; the challenge window runs.
        Proposed = "proposed",
        /// The first proposal was challenged.
        Challenged = "challenged",
        /// A second answer was proposed after a challenge.
        Reproposed = "reproposed",
        /// The proposal is disputed (a DVM vote).
        Disputed = "disputed",
        /// Final: payouts are set.
        Resolved = "resolved",
        /// A native V2 condition that trades and has no answer yet.
        Active = "active",
        /// A native V2 condition in arbitration.
        Arbitration = "arbitration",
    }
);

/// An absent status (a row without one): `Unknown("")`.
impl Default for ResolutionStatus {
    fn default() -> Self {
        Self::Unknown(String::new())
    }
}

/// One market resolution (`GET /v2/resolutions`).
///
/// ```
/// use polyclob::data::{Resolution, ResolutionStatus};
/// let r: Resolution = serde_json::from_str(r#"{"condition_id":"0x01","status":"resolved",
///     "reporter":"CHAINLINK","payouts":[1000000,0],"market_type":"BINARY",
///     "last_update_timestamp":"2026-10-05T23:00:53Z"}"#)?;
/// assert!(r.is_resolved());
/// assert_eq!(r.status, ResolutionStatus::Resolved);
/// assert_eq!(r.payout(0), Some(1_000_000));
/// assert_eq!(r.payout(1), Some(0));
/// assert_eq!(r.last_update_timestamp.unwrap().as_secs(), 1_791_241_253);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct Resolution {
    /// The oracle question id; empty on condition rows.
    #[serde(deserialize_with = "lenient::string")]
    pub question_id: String,
    /// The market's condition id (64-hex form); empty on question rows.
    #[serde(deserialize_with = "lenient::string")]
    pub condition_id: String,
    /// Where the resolution stands.
    pub status: ResolutionStatus,
    /// The reporter family: `UMA_OO`, `CHAINLINK` or `EOA`; empty until known.
    #[serde(deserialize_with = "lenient::string")]
    pub reporter: String,
    /// `BINARY`, `INCREMENTAL_NEGRISK` or `ATOMIC_NEGRISK` (condition rows); empty when
    /// absent.
    #[serde(deserialize_with = "lenient::string")]
    pub market_type: String,
    /// Per-outcome payout in micro-units of pUSD per share (1 000 000 = $1), in outcome order;
    /// empty until resolved.
    #[serde(deserialize_with = "payouts")]
    pub payouts: Vec<u64>,
    /// `reported` (an oracle reported it) or `derived` (from a neg-risk sibling); empty when
    /// absent.
    #[serde(deserialize_with = "lenient::string")]
    pub resolution_source: String,
    /// Whether a managed proposal sits past its normal expiry in extended review.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub extended_review: bool,
    /// When the resolution is expected to settle: an estimate, not a deadline; `None` when
    /// the venue gives no timing (settled, in extended review, or nothing proposed yet).
    #[serde(deserialize_with = "timestamp_opt")]
    pub expected_settlement_time: Option<Timestamp>,
    /// What [`expected_settlement_time`](Self::expected_settlement_time) is based on:
    /// `managed_proposal_expiration`, `liveness` or `dvm_round_estimate`; empty when absent.
    #[serde(deserialize_with = "lenient::string")]
    pub settlement_time_basis: String,
    /// Whether the resolution was disputed at any point.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub was_disputed: bool,
    /// Whether it went to arbitration; `None` when the row does not say (the venue sends it
    /// on condition rows only), never a guessed `false`.
    #[serde(deserialize_with = "lenient::bool_opt")]
    pub was_arbitrated: Option<bool>,
    /// Whether the question's rules were updated after it was posed.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub new_version_q: bool,
    /// The first proposal's price, as served (a numeric string whose scale the docs do not
    /// give); `None` when absent or `69`, the venue's "unset".
    #[serde(deserialize_with = "oracle_price")]
    pub proposed_price: Option<String>,
    /// The second proposal's price, as [`proposed_price`](Self::proposed_price).
    #[serde(deserialize_with = "oracle_price")]
    pub reproposed_price: Option<String>,
    /// The settled price, as [`proposed_price`](Self::proposed_price).
    #[serde(deserialize_with = "oracle_price")]
    pub price: Option<String>,
    /// Transaction of the latest lifecycle event; empty when absent.
    #[serde(deserialize_with = "lenient::string")]
    pub transaction_hash: String,
    /// Log index of that event in its transaction; `None` when absent.
    #[serde(deserialize_with = "log_index")]
    pub log_index: Option<u64>,
    /// When the lifecycle last changed (ISO 8601 on condition rows, unix seconds on question
    /// rows); `None` when absent.
    #[serde(deserialize_with = "timestamp_opt")]
    pub last_update_timestamp: Option<Timestamp>,
    /// Block of the resolution (0 when absent).
    #[serde(deserialize_with = "lenient::u64_lenient")]
    pub resolved_block: u64,
    /// When it resolved; `None` before.
    #[serde(deserialize_with = "timestamp_opt")]
    pub resolved_at: Option<Timestamp>,
}

impl Resolution {
    /// Whether the resolution is final.
    #[must_use]
    pub fn is_resolved(&self) -> bool {
        self.status == ResolutionStatus::Resolved
    }

    /// The payout of outcome `index` in micro-units per share, when known.
    #[must_use]
    pub fn payout(&self, index: usize) -> Option<u64> {
        self.payouts.get(index).copied()
    }
}

/// An oracle price as served; `null`, `""` and `69` (the venue's "unset") are `None`. A
/// value that is not a number fails the row.
fn oracle_price<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let t = lenient::text(d)?;
    let t = t.trim();
    if t.is_empty() || t == "69" {
        return Ok(None);
    }
    // A decimal of any length and sign (UMA answers are 18-decimal integers, and its "too
    // early" answer is the most negative int256).
    let digits = t.strip_prefix('-').unwrap_or(t);
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if int.is_empty() || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return Err(serde::de::Error::custom(format_args!(
            "an oracle price is not a number: {t:?}"
        )));
    }
    Ok(Some(t.to_owned()))
}

/// A log index: a number or a decimal string; `null`/`""` is `None`.
fn log_index<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    match lenient::scalar(d)? {
        lenient::Scalar::Null => Ok(None),
        lenient::Scalar::U64(n) => Ok(Some(n)),
        lenient::Scalar::Str(s) if s.trim().is_empty() => Ok(None),
        lenient::Scalar::Str(s) => s.trim().parse().map(Some).map_err(|_| {
            serde::de::Error::custom(format_args!("a log index is not an integer: {s:?}"))
        }),
        _ => Err(serde::de::Error::custom("a log index is not an integer")),
    }
}

/// Payouts: integers (or integer strings) of micro-units; `null` or absent is empty. A value
/// that is not a non-negative integer fails the row (reported in `skipped`), never a guess.
fn payouts<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
    let v: Option<Vec<serde_json::Value>> = Option::deserialize(d)?;
    v.unwrap_or_default()
        .iter()
        .map(|p| match p {
            serde_json::Value::Number(n) => n.as_u64(),
            serde_json::Value::String(s) => s.trim().parse().ok(),
            _ => None,
        })
        .map(|p| p.ok_or_else(|| serde::de::Error::custom("a payout is not a micro-unit integer")))
        .collect()
}

/// Open interest of one market, or of the whole exchange (`GET /v2/oi`).
///
/// ```
/// use polyclob::data::OpenInterest;
/// let g: OpenInterest = serde_json::from_str(r#"{"condition_id":"GLOBAL","value":"1250.5"}"#)?;
/// assert!(g.is_global());
/// assert_eq!(g.value.unwrap().to_string(), "1250.5");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct OpenInterest {
    /// The market's condition id, or `GLOBAL` for the exchange-wide figure.
    #[serde(deserialize_with = "lenient::string")]
    pub condition_id: String,
    /// Priced gross open interest in pUSD.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub value: Option<Size>,
}

impl OpenInterest {
    /// Whether this is the exchange-wide aggregate.
    #[must_use]
    pub fn is_global(&self) -> bool {
        self.condition_id.eq_ignore_ascii_case("GLOBAL")
    }
}

/// One point of a token's price history (`GET /v2/prices-history`), oldest first.
///
/// ```
/// use polyclob::data::DataPricePoint;
/// let p: DataPricePoint = serde_json::from_str(r#"{"t":1790000000,"p":0.52}"#)?;
/// assert_eq!(p.timestamp.unwrap().as_secs(), 1_790_000_000);
/// assert_eq!(p.price.unwrap().to_string(), "0.52");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct DataPricePoint {
    /// When (`t`, or `timestamp`; unix seconds on the wire); `None` when absent.
    #[serde(alias = "t", deserialize_with = "timestamp_opt")]
    pub timestamp: Option<Timestamp>,
    /// The price (`p`, or `price`).
    #[serde(alias = "p", deserialize_with = "rounded::price_opt")]
    pub price: Option<Price>,
}

/// The taker volume of every market of one or more events (`GET /v2/live-volume`), largest
/// first.
///
/// ```
/// use polyclob::data::LiveVolume;
///
/// let v: LiveVolume = serde_json::from_str(r#"{"taker_volume_total":1820.5,"conditions":[
///     {"condition_id":"0xdc92","taker_volume":1500.25},{"condition_id":"0x4356","taker_volume":320.25}]}"#)?;
/// assert_eq!(v.conditions.len(), 2);
/// assert_eq!(v.taker_volume_total.unwrap().to_string(), "1820.5");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct LiveVolume {
    /// The sum of the markets' taker volumes, in shares.
    #[serde(default, deserialize_with = "rounded::size_opt")]
    pub taker_volume_total: Option<Size>,
    /// One row per market of the events, largest first; empty when they have none. One that
    /// does not decode fails the answer (an error, never a shorter list); so does an answer
    /// without the list.
    #[serde(deserialize_with = "lenient::null_default")]
    pub conditions: Vec<ConditionVolume>,
}

/// One market of a [`LiveVolume`]: its cumulative one-side (taker) volume.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct ConditionVolume {
    /// The market's condition id.
    #[serde(deserialize_with = "lenient::string")]
    pub condition_id: String,
    /// Cumulative taker volume in shares (truncated to 6 decimals by the server).
    #[serde(deserialize_with = "rounded::size_opt")]
    pub taker_volume: Option<Size>,
}

/// The route, which takes exactly one selector family ([`Query::request`] checks it).
pub(super) const RESOLUTIONS: &str = "/v2/resolutions";

impl Query<Resolution> {
    /// `GET /v2/resolutions` of one or more markets ([`condition`](Self::condition) adds more,
    /// up to [`MAX_CONDITIONS`](super::MAX_CONDITIONS); a 62-hex V2 id is sent right-padded to
    /// 64, which the endpoint requires).
    pub fn resolutions(condition_id: impl Into<String>) -> Self {
        Self::new(RESOLUTIONS).condition(condition_id)
    }

    /// `GET /v2/resolutions?question_id=…`: one oracle question.
    pub fn resolution_of_question(question_id: impl Into<String>) -> Self {
        Self::new(RESOLUTIONS).pair("question_id", question_id.into())
    }

    /// `GET /v2/resolutions?event_id=…`: every market of an event (or of up to
    /// [`MAX_CONDITIONS`](super::MAX_CONDITIONS) comma-separated events).
    ///
    /// The route takes exactly one of `question_id`, `condition` and `event_id`: a query that
    /// mixes them (say, `resolutions_of_event(e).condition(c)`) is refused before it is sent
    /// ([`Error::is_argument`]).
    pub fn resolutions_of_event(event_id: impl Into<String>) -> Self {
        Self::new(RESOLUTIONS).pair("event_id", event_id.into())
    }
}

impl Query<OpenInterest> {
    /// `GET /v2/oi`: the exchange-wide figure; narrow it with [`condition`](Self::condition).
    pub fn open_interest() -> Self {
        Self::new("/v2/oi")
    }
}

impl Query<DataPricePoint> {
    /// `GET /v2/prices-history` of a token (or V2 position) id.
    pub fn prices_history(token_id: impl Into<String>) -> Self {
        Self::new("/v2/prices-history").pair("token_id", token_id.into())
    }

    /// The window: `1m`, `1h`, `6h`, `1d`, `1w`, `max` or `all`. Default is the server's.
    pub fn interval(self, interval: impl Into<String>) -> Self {
        self.pair("interval", interval.into())
    }

    /// Start and end, unix seconds. Default is the interval's window.
    pub fn between(self, start: u64, end: u64) -> Self {
        self.pair("start", start.to_string())
            .pair("end", end.to_string())
    }

    /// Bucket width in seconds. Default is the server's for the window.
    pub fn bucket_seconds(self, seconds: u64) -> Self {
        self.pair("bucket_seconds", seconds.to_string())
    }
}

/// Whether a position can be redeemed now, and if not, why.
///
/// ```
/// use polyclob::data::{Position, Redeemability, Resolution, ResolutionStatus};
/// let p: Position = serde_json::from_str(r#"{"condition_id":"0x01","outcome_index":1,"current_size":10}"#)?;
/// let r: Resolution = serde_json::from_str(r#"{"status":"proposed"}"#)?;
/// assert_eq!(Redeemability::assess(&p, Some(&r)), Redeemability::NotResolved { status: ResolutionStatus::Proposed });
/// let r: Resolution = serde_json::from_str(r#"{"status":"resolved","payouts":[0,1000000]}"#)?;
/// assert_eq!(Redeemability::assess(&p, Some(&r)), Redeemability::Redeemable { payout_per_share: 1_000_000 });
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Redeemability {
    /// Resolved and this outcome pays: redeem now. Micro-units of pUSD per share.
    Redeemable {
        /// The payout per share, in micro-units (1 000 000 = $1).
        payout_per_share: u64,
    },
    /// Resolved, but this outcome pays nothing (a losing position; redeeming burns it for 0).
    Lost,
    /// Not resolved yet: the resolution's current `status`.
    NotResolved {
        /// The lifecycle status the Data API reports.
        status: ResolutionStatus,
    },
    /// The Data API has no resolution for the market yet (it answered, and no row was left
    /// out).
    NoResolution,
    /// Not known: the Data API sent a resolution row for the market that did not decode, so
    /// whether it resolved cannot be told. Never read as [`NoResolution`](Self::NoResolution).
    Unknown {
        /// Why the row did not decode.
        reason: String,
    },
    /// The position holds no shares.
    NothingHeld,
    /// The position's outcome index is unknown, so its payout cannot be read.
    UnknownOutcome,
    /// Resolved, but the payouts do not cover this outcome.
    NoPayout,
}

impl Redeemability {
    /// Whether redeeming now pays something.
    #[must_use]
    pub fn is_redeemable(&self) -> bool {
        matches!(self, Self::Redeemable { .. })
    }

    /// Decides from a position and its market's resolution (if the Data API has one).
    #[must_use]
    pub fn assess(position: &Position, resolution: Option<&Resolution>) -> Self {
        if position.size.is_none_or(|s| s == Size::ZERO) {
            return Self::NothingHeld;
        }
        let Some(r) = resolution else {
            return Self::NoResolution;
        };
        if !r.is_resolved() {
            return Self::NotResolved {
                status: r.status.clone(),
            };
        }
        let Some(index) = position
            .outcome_index
            .filter(|&i| i != super::types::UNLABELLED_OUTCOME)
        else {
            return Self::UnknownOutcome;
        };
        match usize::try_from(index).ok().and_then(|i| r.payout(i)) {
            None => Self::NoPayout,
            Some(0) => Self::Lost,
            Some(p) => Self::Redeemable {
                payout_per_share: p,
            },
        }
    }
}

impl std::fmt::Display for Redeemability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Redeemable { payout_per_share } => {
                write!(
                    f,
                    "redeemable now for {payout_per_share} micro-pUSD per share"
                )
            }
            Self::Lost => f.write_str("resolved against this outcome: it pays nothing"),
            Self::NotResolved { status } => {
                write!(f, "not resolved yet (status {:?})", status.as_str())
            }
            Self::NoResolution => f.write_str("the market has no resolution yet"),
            Self::Unknown { reason } => {
                write!(
                    f,
                    "unknown: the market's resolution did not decode ({reason})"
                )
            }
            Self::NothingHeld => f.write_str("the position holds no shares"),
            Self::UnknownOutcome => f.write_str("the position's outcome index is unknown"),
            Self::NoPayout => f.write_str("the resolution lists no payout for this outcome"),
        }
    }
}

impl Redeemability {
    /// Decides from the rows `/v2/resolutions` answered for the position's market: the row
    /// that names the condition (or the only row), else [`Unknown`](Self::Unknown) when a row
    /// did not decode, else [`NoResolution`](Self::NoResolution).
    fn of_rows(position: &Position, rows: &[Resolution], skipped: &[SkippedRow]) -> Self {
        let want = crate::types::padded_condition(&position.condition_id);
        let named = rows
            .iter()
            .find(|r| r.condition_id.eq_ignore_ascii_case(&want));
        let row = match (named, skipped.first()) {
            (Some(r), _) => Some(r),
            // A row that did not decode may be this market's: nothing can be said.
            (None, Some(bad)) if position.size.is_some_and(|s| s != Size::ZERO) => {
                return Self::Unknown {
                    reason: format!("row {}: {}", bad.index, bad.reason),
                };
            }
            (None, _) => rows.first(),
        };
        Self::assess(position, row)
    }
}

impl Client {
    /// `GET /v2/live-volume`: the taker volume of every market of up to
    /// [`MAX_CONDITIONS`](super::MAX_CONDITIONS) Gamma events (integer ids).
    ///
    /// # Errors
    /// No ids, an id that is not an integer, or more than 20 distinct ids
    /// ([`Error::is_argument`]); transport, status, or an answer that did not decode.
    pub async fn live_volume(&self, event_ids: &[&str]) -> Result<LiveVolume, Error> {
        let mut ids: Vec<&str> = event_ids.iter().map(|s| s.trim()).collect();
        ids.sort_unstable();
        ids.dedup();
        if let Some(bad) = ids
            .iter()
            .find(|id| id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()))
        {
            return Err(Error::argument(format!(
                "event id {bad:?} is not an integer (`/v2/live-volume`)"
            )));
        }
        if ids.is_empty() || ids.len() > super::MAX_CONDITIONS {
            return Err(Error::argument(format!(
                "{} event ids given; `/v2/live-volume` takes 1 to {}",
                ids.len(),
                super::MAX_CONDITIONS
            )));
        }
        self.single(&Query::new("/v2/live-volume").pair("event_id", ids.join(",")))
            .await
    }

    /// Every resolution row of a market (`GET /v2/resolutions?condition=…`), with the rows
    /// that did not decode.
    ///
    /// # Errors
    /// Transport, status or a body that is not a v2 envelope.
    pub async fn resolutions(
        &self,
        condition_id: &str,
    ) -> Result<(Vec<Resolution>, Vec<SkippedRow>), Error> {
        self.collect(Query::resolutions(condition_id)).await
    }

    /// Open interest of a market (`None`: the exchange-wide figure).
    ///
    /// # Errors
    /// Transport, status or decode; an answer without a row.
    pub async fn open_interest(&self, condition_id: Option<&str>) -> Result<OpenInterest, Error> {
        let mut q = Query::open_interest();
        if let Some(c) = condition_id {
            q = q.condition(c);
        }
        let page = self.page(&q, None).await?;
        super::client::single_row(page).map_err(|e| e.with_path(q.path()))
    }

    /// Whether `position` can be redeemed now, from its market's resolution. A resolution row
    /// that does not decode makes the answer [`Redeemability::Unknown`], never
    /// [`Redeemability::NoResolution`].
    ///
    /// # Errors
    /// As [`resolutions`](Self::resolutions).
    pub async fn redeemability(&self, position: &Position) -> Result<Redeemability, Error> {
        let (rows, skipped) = self.resolutions(&position.condition_id).await?;
        Ok(Redeemability::of_rows(position, &rows, &skipped))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn position(size: &str, index: u32) -> Position {
        serde_json::from_str(&format!(
            r#"{{"condition_id":"0x01","current_size":{size},"outcome_index":{index}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn assess_every_reason() {
        let resolved: Resolution =
            serde_json::from_str(r#"{"status":"resolved","payouts":["0",1000000]}"#).unwrap();
        assert_eq!(
            Redeemability::assess(&position("5", 1), Some(&resolved)),
            Redeemability::Redeemable {
                payout_per_share: 1_000_000
            }
        );
        assert_eq!(
            Redeemability::assess(&position("5", 0), Some(&resolved)),
            Redeemability::Lost
        );
        assert_eq!(
            Redeemability::assess(&position("5", 2), Some(&resolved)),
            Redeemability::NoPayout
        );
        assert_eq!(
            Redeemability::assess(&position("5", 999), Some(&resolved)),
            Redeemability::UnknownOutcome
        );
        assert_eq!(
            Redeemability::assess(&position("0", 1), Some(&resolved)),
            Redeemability::NothingHeld
        );
        assert_eq!(
            Redeemability::assess(&position("5", 1), None),
            Redeemability::NoResolution
        );
        let active: Resolution = serde_json::from_str(r#"{"status":"active"}"#).unwrap();
        assert!(!Redeemability::assess(&position("5", 1), Some(&active)).is_redeemable());
    }

    #[test]
    fn an_undecoded_row_is_unknown_not_no_resolution() {
        let p = position("5", 1);
        let bad = SkippedRow::new("data", 0, "not a timestamp", r#"{"status":1}"#);
        assert_eq!(
            Redeemability::of_rows(&p, &[], std::slice::from_ref(&bad)),
            Redeemability::Unknown {
                reason: "row 0: not a timestamp".into()
            }
        );
        assert_eq!(
            Redeemability::of_rows(&p, &[], &[]),
            Redeemability::NoResolution
        );
        // A decoded row naming the condition wins over a bad row beside it.
        let resolved: Resolution = serde_json::from_str(
            r#"{"condition_id":"0x01","status":"resolved","payouts":[0,1000000]}"#,
        )
        .unwrap();
        assert!(
            Redeemability::of_rows(&p, &[resolved], std::slice::from_ref(&bad)).is_redeemable()
        );
        // Nothing held is nothing held, whatever the rows.
        assert_eq!(
            Redeemability::of_rows(&position("0", 1), &[], &[bad]),
            Redeemability::NothingHeld
        );
    }

    #[test]
    fn every_status_and_unknown_ones_kept() {
        for (text, want) in [
            ("initialized", ResolutionStatus::Initialized),
            ("posed", ResolutionStatus::Posed),
            ("proposed", ResolutionStatus::Proposed),
            ("challenged", ResolutionStatus::Challenged),
            ("reproposed", ResolutionStatus::Reproposed),
            ("disputed", ResolutionStatus::Disputed),
            ("resolved", ResolutionStatus::Resolved),
            ("active", ResolutionStatus::Active),
            ("arbitration", ResolutionStatus::Arbitration),
            ("settling", ResolutionStatus::Unknown("settling".into())),
        ] {
            let r: Resolution = serde_json::from_str(&format!(r#"{{"status":"{text}"}}"#)).unwrap();
            assert_eq!(r.status, want);
            assert_eq!(r.status.as_str(), text);
        }
        let r: Resolution = serde_json::from_str("{}").unwrap();
        assert_eq!(r.status, ResolutionStatus::Unknown(String::new()));
    }

    #[test]
    fn oracle_prices_and_log_indexes() {
        let r: Resolution = serde_json::from_str(
            r#"{"proposed_price":"69","reproposed_price":"1000000000000000000","price":"-57896044618658097711785492504343953926634992332820282019728792003956564819968","log_index":"17"}"#,
        )
        .unwrap();
        assert_eq!(r.proposed_price, None, "69 is unset");
        assert_eq!(r.reproposed_price.as_deref(), Some("1000000000000000000"));
        assert!(r.price.unwrap().starts_with("-5789"));
        assert_eq!(r.log_index, Some(17));
        let r: Resolution = serde_json::from_str(r#"{"log_index":3,"price":null}"#).unwrap();
        assert_eq!((r.log_index, r.price), (Some(3), None));
        assert!(serde_json::from_str::<Resolution>(r#"{"price":"yes"}"#).is_err());
        assert!(serde_json::from_str::<Resolution>(r#"{"log_index":"x"}"#).is_err());
    }

    #[test]
    fn bad_payouts_fail_the_row() {
        assert!(serde_json::from_str::<Resolution>(r#"{"payouts":[-1]}"#).is_err());
        assert!(serde_json::from_str::<Resolution>(r#"{"payouts":["x"]}"#).is_err());
        let r: Resolution = serde_json::from_str(r#"{"payouts":null}"#).unwrap();
        assert!(r.payouts.is_empty());
    }

    #[test]
    fn queries_pad_v2_conditions() {
        let v2 = format!("0x{}", "ab".repeat(31));
        let q = Query::resolutions(v2.clone());
        let r = q.request(None).unwrap();
        assert_eq!(r.query, format!("condition={v2}00"));
        assert_eq!(
            Query::prices_history("7").interval("1d").path(),
            "/v2/prices-history"
        );
    }
}
