//! Resolution and market figures of the Data API v2: `/v2/resolutions` (lifecycle, reporter,
//! payouts), `/v2/oi` (open interest), `/v2/prices-history`, and whether a position can be
//! redeemed now ([`Redeemability`]).
//!
//! Facts: docs.polymarket.com, Data API v2 reference (resolutions: `status`, `reporter`
//! `UMA_OO|CHAINLINK|EOA`, `payouts` in micro-units of pUSD per share, `market_type`;
//! queries by `condition`, `question_id` or `event_id`).

use serde::Deserialize;
use serde::de::Deserializer;

use super::client::{Client, Query};
use super::types::Position;
use crate::fixed::{Price, Size};
use crate::http::Error;
use crate::http::lenient;
use crate::http::rounded;

/// One market resolution (`GET /v2/resolutions`).
///
/// ```
/// use polyclob::data::Resolution;
/// let r: Resolution = serde_json::from_str(r#"{"condition_id":"0x01","status":"resolved",
///     "reporter":"CHAINLINK","payouts":[1000000,0],"market_type":"BINARY"}"#)?;
/// assert!(r.is_resolved());
/// assert_eq!(r.payout(0), Some(1_000_000));
/// assert_eq!(r.payout(1), Some(0));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct Resolution {
    /// The oracle question id, when there is one.
    #[serde(deserialize_with = "lenient::string")]
    pub question_id: String,
    /// The market's condition id (64-hex form), when selected by condition or event.
    #[serde(deserialize_with = "lenient::string")]
    pub condition_id: String,
    /// Lifecycle: `initialized`, `posed`, `proposed`, `challenged`, `reproposed`, `disputed`,
    /// `active`, `arbitration`, `resolved`.
    #[serde(deserialize_with = "lenient::string")]
    pub status: String,
    /// The reporter family: `UMA_OO`, `CHAINLINK` or `EOA`; empty until known.
    #[serde(deserialize_with = "lenient::string")]
    pub reporter: String,
    /// `BINARY`, `INCREMENTAL_NEGRISK` or `ATOMIC_NEGRISK`; empty when absent.
    #[serde(deserialize_with = "lenient::string")]
    pub market_type: String,
    /// Per-outcome payout in micro-units of pUSD per share (1 000 000 = $1), in outcome order;
    /// empty until resolved.
    #[serde(deserialize_with = "payouts")]
    pub payouts: Vec<u64>,
    /// `reported` or `derived`; empty when absent.
    #[serde(deserialize_with = "lenient::string")]
    pub resolution_source: String,
    /// Whether a managed proposal is in extended review.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub extended_review: bool,
    /// Whether the resolution was disputed at any point.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub was_disputed: bool,
    /// Whether it went to arbitration.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub was_arbitrated: bool,
    /// Transaction of the latest lifecycle event; empty when absent.
    #[serde(deserialize_with = "lenient::string")]
    pub transaction_hash: String,
    /// Unix seconds of the latest lifecycle change (0 when absent).
    #[serde(deserialize_with = "lenient::u64_lenient")]
    pub last_update_timestamp: u64,
    /// Block of the resolution (0 when absent).
    #[serde(deserialize_with = "lenient::u64_lenient")]
    pub resolved_block: u64,
    /// When it resolved (ISO 8601), empty before.
    #[serde(deserialize_with = "lenient::string")]
    pub resolved_at: String,
}

impl Resolution {
    /// Whether the resolution is final.
    #[must_use]
    pub fn is_resolved(&self) -> bool {
        self.status.eq_ignore_ascii_case("resolved")
    }

    /// The payout of outcome `index` in micro-units per share, when known.
    #[must_use]
    pub fn payout(&self, index: usize) -> Option<u64> {
        self.payouts.get(index).copied()
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
/// assert_eq!((p.timestamp, p.price.unwrap().to_string()), (1_790_000_000, "0.52".to_owned()));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct DataPricePoint {
    /// Unix seconds (`t`, or `timestamp`).
    #[serde(alias = "t", deserialize_with = "lenient::u64_lenient")]
    pub timestamp: u64,
    /// The price (`p`, or `price`).
    #[serde(alias = "p", deserialize_with = "rounded::price_opt")]
    pub price: Option<Price>,
}

impl Query<Resolution> {
    /// `GET /v2/resolutions` of one or more markets ([`condition`](Self::condition) adds more;
    /// a 62-hex V2 id is sent right-padded to 64, which the endpoint requires).
    pub fn resolutions(condition_id: impl Into<String>) -> Self {
        Self::new("/v2/resolutions").condition(condition_id)
    }

    /// `GET /v2/resolutions?question_id=…`.
    pub fn resolution_of_question(question_id: impl Into<String>) -> Self {
        Self::new("/v2/resolutions").pair("question_id", question_id.into())
    }

    /// `GET /v2/resolutions?event_id=…`: every market of an event.
    pub fn resolutions_of_event(event_id: impl Into<String>) -> Self {
        Self::new("/v2/resolutions").pair("event_id", event_id.into())
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
/// use polyclob::data::{Position, Redeemability, Resolution};
/// let p: Position = serde_json::from_str(r#"{"condition_id":"0x01","outcome_index":1,"current_size":10}"#)?;
/// let r: Resolution = serde_json::from_str(r#"{"status":"proposed"}"#)?;
/// assert_eq!(Redeemability::assess(&p, Some(&r)), Redeemability::NotResolved { status: "proposed".into() });
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
        status: String,
    },
    /// The Data API has no resolution for the market yet.
    NoResolution,
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
            Self::NotResolved { status } => write!(f, "not resolved yet (status {status:?})"),
            Self::NoResolution => f.write_str("the market has no resolution yet"),
            Self::NothingHeld => f.write_str("the position holds no shares"),
            Self::UnknownOutcome => f.write_str("the position's outcome index is unknown"),
            Self::NoPayout => f.write_str("the resolution lists no payout for this outcome"),
        }
    }
}

impl Client {
    /// Every resolution row of a market (`GET /v2/resolutions?condition=…`).
    ///
    /// # Errors
    /// Transport, status or a body that is not a v2 envelope.
    pub async fn resolutions(&self, condition_id: &str) -> Result<Vec<Resolution>, Error> {
        Ok(self.collect(Query::resolutions(condition_id)).await?.0)
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
        page.data
            .into_iter()
            .next()
            .ok_or_else(|| Error::decode("`/v2/oi` answered without a row").with_path(q.path()))
    }

    /// Whether `position` can be redeemed now, from its market's resolution.
    ///
    /// # Errors
    /// As [`resolutions`](Self::resolutions).
    pub async fn redeemability(&self, position: &Position) -> Result<Redeemability, Error> {
        let rows = self.resolutions(&position.condition_id).await?;
        let want = crate::types::padded_condition(&position.condition_id);
        // One market per condition; prefer the row that names it.
        let row = rows
            .iter()
            .find(|r| r.condition_id.eq_ignore_ascii_case(&want))
            .or_else(|| rows.first());
        Ok(Redeemability::assess(position, row))
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
