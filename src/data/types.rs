//! Data API rows: positions, trades, activity, portfolio value and holders.
//!
//! v2 sends snake_case (`proxy_wallet`, `condition_id`); the v1 camelCase names are accepted
//! too, so captures of either generation decode (docs.polymarket.com, "Migrate from Data API
//! v1 to v2"). A missing or `null` number is "unavailable" (`None`), never zero. Server
//! computed figures (averages, PnL) are rounded to 6 decimals. Times are
//! [`Timestamp`]s, whatever form a row sends them in. A row's condition comes with its
//! protocol through `condition()`, derived from the row's token.

use serde::Deserialize;

use crate::fixed::{Amount, Price, Size};
use crate::http::lenient;
use crate::http::rounded;
use crate::types::{ConditionId, ProtocolError, Side, Timestamp, TokenId, timestamp_opt};

/// `outcome_index` value meaning "the outcome could not be labelled" (Data API v2 docs).
pub const UNLABELLED_OUTCOME: u32 = 999;

/// A wallet's position in one outcome token (`GET /v2/positions`).
///
/// ```
/// use polyclob::data::Position;
///
/// let p: Position = serde_json::from_str(r#"{"proxy_wallet":"0x98","token_id":"3197","status":"REDEEMABLE",
///     "current_size":86780.64,"avg_price":0.5203,"realized_pnl":-1082.5533}"#)?;
/// assert_eq!(p.size.unwrap().to_string(), "86780.64");
/// assert_eq!(p.avg_price.unwrap().to_string(), "0.5203");
/// assert!(p.realized_pnl.unwrap().is_negative());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct Position {
    /// The proxy wallet holding the position.
    #[serde(alias = "proxyWallet", deserialize_with = "lenient::string")]
    pub proxy_wallet: String,
    /// The market's condition id.
    #[serde(alias = "conditionId", deserialize_with = "lenient::string")]
    pub condition_id: String,
    /// The outcome token id (v1: `asset`).
    #[serde(alias = "asset", deserialize_with = "lenient::string")]
    pub token_id: String,
    /// Outcome label.
    #[serde(deserialize_with = "lenient::string")]
    pub outcome: String,
    /// Outcome index; [`UNLABELLED_OUTCOME`] when unknown to the server.
    #[serde(alias = "outcomeIndex", deserialize_with = "rounded::u32_opt")]
    pub outcome_index: Option<u32>,
    /// Market title.
    #[serde(deserialize_with = "lenient::string")]
    pub title: String,
    /// Market slug.
    #[serde(deserialize_with = "lenient::string")]
    pub slug: String,
    /// Event slug.
    #[serde(alias = "eventSlug", deserialize_with = "lenient::string")]
    pub event_slug: String,
    /// Lifecycle status (`OPEN`, `REDEEMABLE`, `REDEEMABLE_LOST`, `MERGEABLE`, `CLOSED`);
    /// empty on v1 rows.
    #[serde(deserialize_with = "lenient::string")]
    pub status: String,
    /// Shares held (v2 `current_size`, v1 `size`).
    #[serde(alias = "current_size", deserialize_with = "rounded::size_opt")]
    pub size: Option<Size>,
    /// Average entry price.
    #[serde(alias = "avgPrice", deserialize_with = "rounded::price_opt")]
    pub avg_price: Option<Price>,
    /// Current mark price.
    #[serde(
        alias = "curPrice",
        alias = "current_price",
        deserialize_with = "rounded::price_opt"
    )]
    pub cur_price: Option<Price>,
    /// Entry cost in pUSD (v2 `entry_cost_usdc`, v1 `initialValue`).
    #[serde(
        alias = "entry_cost_usdc",
        alias = "initialValue",
        deserialize_with = "rounded::size_opt"
    )]
    pub entry_cost: Option<Size>,
    /// Current value in pUSD.
    #[serde(alias = "currentValue", deserialize_with = "rounded::size_opt")]
    pub current_value: Option<Size>,
    /// Lifetime shares bought, the average-cost denominator (v2 `total_size`, v1
    /// `totalBought`); never the current holding, which is [`size`](Self::size).
    #[serde(
        alias = "total_size",
        alias = "totalBought",
        deserialize_with = "rounded::size_opt"
    )]
    pub total_bought: Option<Size>,
    /// Attributed buy fees in pUSD (v2 `entry_fees_usdc`); disclosure only, `entry_cost` is
    /// already fee-exclusive.
    #[serde(alias = "entry_fees_usdc", deserialize_with = "rounded::size_opt")]
    pub entry_fees: Option<Size>,
    /// Fee-inclusive basis in pUSD, `entry_cost + entry_fees` (v2 `total_cost_usdc`).
    #[serde(alias = "total_cost_usdc", deserialize_with = "rounded::size_opt")]
    pub total_cost: Option<Size>,
    /// Realized PnL in pUSD.
    #[serde(alias = "realizedPnl", deserialize_with = "rounded::amount_opt")]
    pub realized_pnl: Option<Amount>,
    /// Unrealized PnL in pUSD (v1 `cashPnl`).
    #[serde(alias = "cashPnl", deserialize_with = "rounded::amount_opt")]
    pub unrealized_pnl: Option<Amount>,
    /// Unrealized PnL in percent (v1 `percentPnl`).
    #[serde(alias = "percentPnl", deserialize_with = "rounded::amount_opt")]
    pub percent_pnl: Option<Amount>,
    /// Realized plus unrealized PnL in pUSD (v2 `total_pnl`).
    #[serde(alias = "totalPnl", deserialize_with = "rounded::amount_opt")]
    pub total_pnl: Option<Amount>,
    /// Realized PnL in percent (v2 `percent_realized_pnl`, v1 `percentRealizedPnl`).
    #[serde(alias = "percentRealizedPnl", deserialize_with = "rounded::amount_opt")]
    pub percent_realized_pnl: Option<Amount>,
    /// Whether the position can be redeemed.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub redeemable: bool,
    /// Whether the position can be merged.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub mergeable: bool,
    /// Whether the market is neg-risk.
    #[serde(alias = "negativeRisk", deserialize_with = "lenient::bool_lenient")]
    pub negative_risk: bool,
    /// Market end date.
    #[serde(alias = "endDate", deserialize_with = "timestamp_opt")]
    pub end_date: Option<Timestamp>,
    /// Whether the market is archived.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub archived: bool,
    /// Market icon URL.
    #[serde(deserialize_with = "lenient::string")]
    pub icon: String,
    /// The event's id.
    #[serde(alias = "eventId", deserialize_with = "lenient::string")]
    pub event_id: String,
    /// The other outcome's label.
    #[serde(alias = "oppositeOutcome", deserialize_with = "lenient::string")]
    pub opposite_outcome: String,
    /// The other outcome's token (or V2 position) id (v1 `oppositeAsset`).
    #[serde(
        alias = "oppositeAsset",
        alias = "opposite_asset_id",
        deserialize_with = "lenient::string"
    )]
    pub opposite_token_id: String,
    /// When the first entry was made; `None` when absent or 0 (no native economics).
    #[serde(alias = "firstEntryAt", deserialize_with = "timestamp_opt")]
    pub first_entry_at: Option<Timestamp>,
    /// When the row's last economics event happened; `None` when absent or 0.
    #[serde(alias = "lastEventAt", deserialize_with = "timestamp_opt")]
    pub last_event_at: Option<Timestamp>,
    /// The holder's display name.
    #[serde(deserialize_with = "lenient::string")]
    pub name: String,
    /// The holder's profile image URL.
    #[serde(alias = "profileImage", deserialize_with = "lenient::string")]
    pub profile_image: String,
    /// Whether the holder is verified.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub verified: bool,
}

impl Position {
    /// The market's condition with its protocol, derived from the position's token: V2 when
    /// [`token_id`](Self::token_id) is a V2 position id of this condition, CTF otherwise
    /// ([`ConditionId::parse_with_token`]). The Data API sends a V2 condition right-padded to
    /// 64 hex digits, which alone could be either protocol.
    ///
    /// ```
    /// use polyclob::data::Position;
    /// use polyclob::types::Protocol;
    ///
    /// let p: Position = serde_json::from_str(r#"{"condition_id":"0x5f65177b394277fd294cd75650044e32ba009a95022d88a0c1d565897d72f8f1",
    ///     "token_id":"71321045679252212594626385532706912750332728571942532289631379312455583992563"}"#)?;
    /// assert_eq!(p.condition()?.protocol(), Protocol::Ctf);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`ConditionId::parse_with_token`]; without a token id, as [`ConditionId::parse`]
    /// (an id that may be either protocol is refused).
    pub fn condition(&self) -> Result<ConditionId, ProtocolError> {
        row_condition(&self.condition_id, &self.token_id)
    }
}

/// The condition of a row from its condition and token id texts.
fn row_condition(condition: &str, token: &str) -> Result<ConditionId, ProtocolError> {
    match TokenId::parse(token.trim().as_bytes()) {
        Ok(t) => ConditionId::parse_with_token(condition, &t),
        Err(_) => ConditionId::parse(condition),
    }
}

/// One fill in the trade feed (`GET /v2/trades`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct DataTrade {
    /// The trading proxy wallet.
    #[serde(alias = "proxyWallet", deserialize_with = "lenient::string")]
    pub proxy_wallet: String,
    /// Buy or sell; `None` for an unknown value.
    #[serde(deserialize_with = "lenient::side_opt")]
    pub side: Option<Side>,
    /// The outcome token id (v1: `asset`).
    #[serde(alias = "asset", deserialize_with = "lenient::string")]
    pub token_id: String,
    /// The market's condition id.
    #[serde(alias = "conditionId", deserialize_with = "lenient::string")]
    pub condition_id: String,
    /// Shares.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub size: Option<Size>,
    /// Price.
    #[serde(deserialize_with = "rounded::price_opt")]
    pub price: Option<Price>,
    /// When it traded (unix seconds on the wire); `None` when absent.
    #[serde(deserialize_with = "timestamp_opt")]
    pub timestamp: Option<Timestamp>,
    /// Market title.
    #[serde(deserialize_with = "lenient::string")]
    pub title: String,
    /// Market slug.
    #[serde(deserialize_with = "lenient::string")]
    pub slug: String,
    /// Event slug.
    #[serde(alias = "eventSlug", deserialize_with = "lenient::string")]
    pub event_slug: String,
    /// Outcome label.
    #[serde(deserialize_with = "lenient::string")]
    pub outcome: String,
    /// Outcome index; [`UNLABELLED_OUTCOME`] when unknown to the server.
    #[serde(alias = "outcomeIndex", deserialize_with = "rounded::u32_opt")]
    pub outcome_index: Option<u32>,
    /// Trader's display name.
    #[serde(deserialize_with = "lenient::string")]
    pub name: String,
    /// Trader's pseudonym.
    #[serde(deserialize_with = "lenient::string")]
    pub pseudonym: String,
    /// Settlement transaction hash.
    #[serde(alias = "transactionHash", deserialize_with = "lenient::string")]
    pub transaction_hash: String,
}

/// One on-chain activity row (`GET /v2/activity`): trades, splits, merges, redeems, rewards.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct Activity {
    /// The proxy wallet.
    #[serde(alias = "proxyWallet", deserialize_with = "lenient::string")]
    pub proxy_wallet: String,
    /// When it happened (unix seconds on the wire); `None` when absent.
    #[serde(deserialize_with = "timestamp_opt")]
    pub timestamp: Option<Timestamp>,
    /// Kind (`TRADE`, `SPLIT`, `MERGE`, `REDEEM`, `REWARD`, `CONVERSION`, …).
    #[serde(rename = "type", deserialize_with = "lenient::string")]
    pub kind: String,
    /// The market's condition id.
    #[serde(alias = "conditionId", deserialize_with = "lenient::string")]
    pub condition_id: String,
    /// The outcome token id (v1: `asset`).
    #[serde(alias = "asset", deserialize_with = "lenient::string")]
    pub token_id: String,
    /// Buy or sell for trades.
    #[serde(deserialize_with = "lenient::side_opt")]
    pub side: Option<Side>,
    /// Shares.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub size: Option<Size>,
    /// pUSD amount.
    #[serde(alias = "usdcSize", deserialize_with = "rounded::size_opt")]
    pub usdc_size: Option<Size>,
    /// Price for trades.
    #[serde(deserialize_with = "rounded::price_opt")]
    pub price: Option<Price>,
    /// Outcome label.
    #[serde(deserialize_with = "lenient::string")]
    pub outcome: String,
    /// Outcome index.
    #[serde(alias = "outcomeIndex", deserialize_with = "rounded::u32_opt")]
    pub outcome_index: Option<u32>,
    /// Market title.
    #[serde(deserialize_with = "lenient::string")]
    pub title: String,
    /// Market slug.
    #[serde(deserialize_with = "lenient::string")]
    pub slug: String,
    /// Event slug.
    #[serde(alias = "eventSlug", deserialize_with = "lenient::string")]
    pub event_slug: String,
    /// Transaction hash.
    #[serde(alias = "transactionHash", deserialize_with = "lenient::string")]
    pub transaction_hash: String,
}

impl DataTrade {
    /// The market's condition with its protocol, derived from the traded token (as
    /// [`Position::condition`]).
    ///
    /// # Errors
    /// As [`Position::condition`].
    pub fn condition(&self) -> Result<ConditionId, ProtocolError> {
        row_condition(&self.condition_id, &self.token_id)
    }
}

impl Activity {
    /// The market's condition with its protocol, derived from the row's token (as
    /// [`Position::condition`]).
    ///
    /// # Errors
    /// As [`Position::condition`].
    pub fn condition(&self) -> Result<ConditionId, ProtocolError> {
        row_condition(&self.condition_id, &self.token_id)
    }
}

/// A wallet's portfolio value (`GET /v2/value`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct PortfolioValue {
    /// The wallet (v1: `user`).
    #[serde(alias = "user", deserialize_with = "lenient::string")]
    pub proxy_wallet: String,
    /// Holdings marked to market plus unresolved combos at cost, in pUSD.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub value: Option<Size>,
}

/// The top holders of one outcome token (`GET /v2/holders`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct HolderGroup {
    /// The outcome token id (v1: `token`).
    #[serde(alias = "token", deserialize_with = "lenient::string")]
    pub token_id: String,
    /// Holders, largest first. One that does not decode fails the group, which the page
    /// then reports.
    #[serde(deserialize_with = "lenient::null_default")]
    pub holders: Vec<Holder>,
}

/// One holder of an outcome token.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct Holder {
    /// The proxy wallet.
    #[serde(alias = "proxyWallet", deserialize_with = "lenient::string")]
    pub proxy_wallet: String,
    /// Shares held.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub amount: Option<Size>,
    /// Outcome index.
    #[serde(alias = "outcomeIndex", deserialize_with = "rounded::u32_opt")]
    pub outcome_index: Option<u32>,
    /// Display name.
    #[serde(deserialize_with = "lenient::string")]
    pub name: String,
    /// Pseudonym.
    #[serde(deserialize_with = "lenient::string")]
    pub pseudonym: String,
}
