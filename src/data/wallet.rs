//! One wallet's figures from the Data API v2: its indexed approvals, its PnL series, its
//! profile stats and its trading volume.
//!
//! Facts: docs.polymarket.com, Data API v2 reference ("Get wallet approvals", "Get a user's
//! PnL series", "Get a user's profile stats", "Get a user's trading volume"). Every amount of
//! a PnL point is cumulative through the point's time, in pUSD; a `null` atom means the
//! source is not covered, never zero, and is `None` here. The documented compositions hold
//! between the atoms: `realized_pnl = realized_market_pnl + realized_lp_pnl +
//! realized_combo_pnl`, `position_pnl = realized_pnl + unrealized_pnl`, `economic_pnl =
//! position_pnl + wallet_income`, `settled_pnl = realized_pnl + wallet_income`.

use serde::Deserialize;

use super::client::{Client, Query};
use crate::fixed::Amount;
use crate::fixed::Size;
use crate::http::rounded::amount_opt;
use crate::http::{Error, lenient, rounded};
use crate::types::{Timestamp, timestamp_opt};

/// A wallet's approval state as the Data API indexed it (`GET /v2/approvals`): one
/// [`ApprovalPair`] per token and spender pair the venue's catalog says a wallet may need.
///
/// ```
/// use polyclob::data::Approvals;
///
/// let a: Approvals = serde_json::from_str(r#"{"address":"0x5f0e","chain_id":137,"checked_at":"2026-12-07T10:15:00Z",
///     "contracts":[{"id":"pusd:exchange-v3","feature":"trading","token":"0xC011","spender":"0xe333",
///     "standard":"ERC20","amount":"max","approved":true}]}"#)?;
/// assert!(a.contracts[0].approved && a.contracts[0].is_unlimited());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct Approvals {
    /// The wallet checked.
    #[serde(default, deserialize_with = "lenient::string")]
    pub address: String,
    /// The chain the state was read on (137 = Polygon).
    #[serde(default, deserialize_with = "rounded::u32_opt")]
    pub chain_id: Option<u32>,
    /// When the chain was read (the server caches it for 20 s).
    #[serde(default, deserialize_with = "timestamp_opt")]
    pub checked_at: Option<Timestamp>,
    /// One row per pair of the catalog, in its order. One that does not decode fails the
    /// answer (an error, never a shorter list); so does an answer without the list (not
    /// read as "no pair to approve").
    #[serde(deserialize_with = "lenient::null_default")]
    pub contracts: Vec<ApprovalPair>,
}

/// One token and spender pair of [`Approvals`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct ApprovalPair {
    /// The catalog's id of the pair.
    #[serde(deserialize_with = "lenient::string")]
    pub id: String,
    /// What the approval enables (`trading`, …).
    #[serde(deserialize_with = "lenient::string")]
    pub feature: String,
    /// The token contract.
    #[serde(deserialize_with = "lenient::string")]
    pub token: String,
    /// The contract allowed to spend or operate it.
    #[serde(deserialize_with = "lenient::string")]
    pub spender: String,
    /// `ERC20` or `ERC1155`.
    #[serde(deserialize_with = "lenient::string")]
    pub standard: String,
    /// Whether the wallet grants it now.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub approved: bool,
    /// An ERC-20 allowance as served: `max` (unlimited) or the raw integer; `None` on an
    /// ERC-1155 operator approval (all or nothing).
    #[serde(deserialize_with = "lenient::string_opt")]
    pub amount: Option<String>,
}

impl ApprovalPair {
    /// Whether the allowance is unlimited (`amount` is `max`).
    #[must_use]
    pub fn is_unlimited(&self) -> bool {
        self.amount
            .as_deref()
            .is_some_and(|a| a.eq_ignore_ascii_case("max"))
    }
}

/// A wallet's cumulative PnL series (`GET /v2/user-pnl`), oldest point first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct PnlSeries {
    /// The wallet.
    #[serde(default, deserialize_with = "lenient::string")]
    pub proxy_wallet: String,
    /// The window served (`max`, `all`, `1m`, `1w`, `1d`, `12h`, `6h`).
    #[serde(default, deserialize_with = "lenient::string")]
    pub interval: String,
    /// The grid the points sit on (`1d`, `18h`, `12h`, `3h`, `1h`).
    #[serde(default, deserialize_with = "lenient::string")]
    pub fidelity: String,
    /// The grid the observations were made on (historical ones are daily even on a finer
    /// grid).
    #[serde(default, deserialize_with = "lenient::string")]
    pub source_fidelity: String,
    /// The points, oldest first. One that does not decode fails the series (an error, never
    /// a gap); so does an answer without the list.
    #[serde(deserialize_with = "lenient::null_default")]
    pub points: Vec<PnlPoint>,
}

/// One point of a [`PnlSeries`] (and a wallet's [`UserStats::all_time_pnl`]): every figure
/// cumulative through [`timestamp`](Self::timestamp), in pUSD; `None` is "not covered".
///
/// ```
/// use polyclob::data::PnlPoint;
///
/// let p: PnlPoint = serde_json::from_str(r#"{"timestamp":1796601600,"source_block":93399250,
///     "realized_market_pnl":1498.628372,"realized_lp_pnl":0.0,"realized_combo_pnl":-24.666714,
///     "realized_pnl":1473.961658,"unrealized_pnl":null,"volume":18148.642472,"volume_usdc":11138.238625,
///     "trade_count":248}"#)?;
/// assert_eq!(p.realized_pnl.unwrap().to_string(), "1473.961658");
/// assert_eq!(p.unrealized_pnl, None);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct PnlPoint {
    /// The point's time.
    #[serde(deserialize_with = "timestamp_opt")]
    pub timestamp: Option<Timestamp>,
    /// The block it was observed at.
    #[serde(deserialize_with = "rounded::i64_opt")]
    pub source_block: Option<i64>,
    /// Realized PnL of market positions.
    #[serde(deserialize_with = "amount_opt")]
    pub realized_market_pnl: Option<Amount>,
    /// Realized PnL of liquidity provision.
    #[serde(deserialize_with = "amount_opt")]
    pub realized_lp_pnl: Option<Amount>,
    /// Realized PnL of combo positions.
    #[serde(deserialize_with = "amount_opt")]
    pub realized_combo_pnl: Option<Amount>,
    /// `realized_market_pnl + realized_lp_pnl + realized_combo_pnl`.
    #[serde(deserialize_with = "amount_opt")]
    pub realized_pnl: Option<Amount>,
    /// Mark-to-market of the open inventory.
    #[serde(deserialize_with = "amount_opt")]
    pub unrealized_pnl: Option<Amount>,
    /// Fees refunded.
    #[serde(deserialize_with = "amount_opt")]
    pub fees_refunded: Option<Amount>,
    /// Maker rebates credited.
    #[serde(deserialize_with = "amount_opt")]
    pub maker_rebate: Option<Amount>,
    /// Taker rebates credited.
    #[serde(deserialize_with = "amount_opt")]
    pub taker_rebate: Option<Amount>,
    /// Reward-program income.
    #[serde(deserialize_with = "amount_opt")]
    pub reward_income: Option<Amount>,
    /// Yield income.
    #[serde(deserialize_with = "amount_opt")]
    pub yield_income: Option<Amount>,
    /// Referral income.
    #[serde(deserialize_with = "amount_opt")]
    pub referral_income: Option<Amount>,
    /// Collateral moved into the wallet.
    #[serde(deserialize_with = "amount_opt")]
    pub deposits: Option<Amount>,
    /// Collateral moved out of the wallet.
    #[serde(deserialize_with = "amount_opt")]
    pub withdrawals: Option<Amount>,
    /// Rebates plus reward, yield and referral income.
    #[serde(deserialize_with = "amount_opt")]
    pub wallet_income: Option<Amount>,
    /// `realized_pnl + unrealized_pnl`.
    #[serde(deserialize_with = "amount_opt")]
    pub position_pnl: Option<Amount>,
    /// `realized_pnl + wallet_income`.
    #[serde(deserialize_with = "amount_opt")]
    pub settled_pnl: Option<Amount>,
    /// `position_pnl + wallet_income`: the all-in result.
    #[serde(deserialize_with = "amount_opt")]
    pub economic_pnl: Option<Amount>,
    /// The compatibility chart series (`position_pnl - realized_lp_pnl + fees charged -
    /// fees refunded`).
    #[serde(deserialize_with = "amount_opt")]
    pub trade_pnl: Option<Amount>,
    /// `reward_income + yield_income + referral_income`.
    #[serde(deserialize_with = "amount_opt")]
    pub sponsored_income: Option<Amount>,
    /// Fee charges, negative.
    #[serde(deserialize_with = "amount_opt")]
    pub fees: Option<Amount>,
    /// Refunds minus charges (a disclosure, not another adjustment).
    #[serde(deserialize_with = "amount_opt")]
    pub fees_paid: Option<Amount>,
    /// `deposits - withdrawals`.
    #[serde(deserialize_with = "amount_opt")]
    pub cashflow_net: Option<Amount>,
    /// Filled shares attributed to the wallet.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub volume: Option<Size>,
    /// Filled cash attributed to the wallet, in pUSD.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub volume_usdc: Option<Size>,
    /// Fills attributed to the wallet.
    #[serde(deserialize_with = "rounded::i64_opt")]
    pub trade_count: Option<i64>,
}

/// A wallet's profile card (`GET /v2/user-stats`).
///
/// ```
/// use polyclob::data::UserStats;
///
/// let s: UserStats = serde_json::from_str(r#"{"proxy_wallet":"0x7c3d","trades":37,"biggest_win":412.5,
///     "views":0,"join_date":1771200000,"all_time_pnl":null}"#)?;
/// assert_eq!((s.trades, s.all_time_pnl), (Some(37), None));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct UserStats {
    /// The wallet.
    #[serde(deserialize_with = "lenient::string")]
    pub proxy_wallet: String,
    /// Distinct markets traded (exact; v1's `/traded`).
    #[serde(deserialize_with = "rounded::i64_opt")]
    pub trades: Option<i64>,
    /// The best single resolved win in pUSD (combos included); 0 when none over $1.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub biggest_win: Option<Size>,
    /// Profile views.
    #[serde(deserialize_with = "rounded::i64_opt")]
    pub views: Option<i64>,
    /// When the wallet joined; `None` when unknown.
    #[serde(deserialize_with = "timestamp_opt")]
    pub join_date: Option<Timestamp>,
    /// The newest cumulative PnL point; `None` before the first is published.
    pub all_time_pnl: Option<PnlPoint>,
}

/// A wallet's trading volume over whole UTC days (`GET /v2/user-volume`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct UserVolume {
    /// Filled shares, both sides.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub volume: Option<Size>,
    /// The same fills' cash, in pUSD.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub volume_usdc: Option<Size>,
    /// Fills in the window.
    #[serde(deserialize_with = "rounded::i64_opt")]
    pub trade_count: Option<i64>,
}

impl Client {
    /// `GET /v2/approvals?user=`: the approvals `user` grants, as indexed (every pair of the
    /// venue's catalog, granted or not).
    ///
    /// # Errors
    /// Transport, status (400 for an address that is not one), or an answer that did not
    /// decode.
    pub async fn approvals(&self, user: &str) -> Result<Approvals, Error> {
        self.single(&Query::new("/v2/approvals").pair("user", user.to_owned()))
            .await
    }

    /// `GET /v2/user-pnl`: `user`'s cumulative PnL over `interval` (`max`, `all`, `1m`, `1w`,
    /// `1d`, `12h`, `6h`) on a grid of `fidelity` (`1d`, `18h`, `12h`, `3h`, `1h`).
    ///
    /// # Errors
    /// An `interval` or `fidelity` outside the documented sets ([`Error::is_argument`]);
    /// transport, status, or a series that did not decode.
    pub async fn user_pnl(
        &self,
        user: &str,
        interval: &str,
        fidelity: &str,
    ) -> Result<PnlSeries, Error> {
        let q = Query::new("/v2/user-pnl")
            .pair("user", user.to_owned())
            .one_of(
                "interval",
                interval,
                &["max", "all", "1m", "1w", "1d", "12h", "6h"],
            )
            .one_of("fidelity", fidelity, &["1d", "18h", "12h", "3h", "1h"]);
        self.single(&q).await
    }

    /// `GET /v2/user-stats?user=`: `user`'s profile card; `None` for a wallet the Data API
    /// does not know (a known wallet that never traded has zeros).
    ///
    /// # Errors
    /// Transport, status, or a card that did not decode.
    pub async fn user_stats(&self, user: &str) -> Result<Option<UserStats>, Error> {
        self.one(&Query::new("/v2/user-stats").pair("user", user.to_owned()))
            .await
    }

    /// `GET /v2/user-volume`: `user`'s volume between `start` and `end` (unix seconds,
    /// inclusive, each floored to its UTC day; 0 leaves that side unbounded).
    ///
    /// # Errors
    /// Transport, status, or an answer that did not decode.
    pub async fn user_volume(&self, user: &str, start: u64, end: u64) -> Result<UserVolume, Error> {
        let mut q = Query::new("/v2/user-volume").pair("user", user.to_owned());
        if start > 0 {
            q = q.pair("start", start.to_string());
        }
        if end > 0 {
            q = q.pair("end", end.to_string());
        }
        self.single(&q).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_values_are_checked() {
        let q = Query::<PnlSeries>::new("/v2/user-pnl")
            .one_of("interval", "1W", &["1w"])
            .one_of("fidelity", "2h", &["1h"]);
        assert!(q.request(None).unwrap_err().is_argument());
    }

    /// A missing list is not an empty one: `contracts` absent is not "nothing to approve".
    #[test]
    fn an_answer_without_its_list_is_an_error() {
        let a: Approvals = serde_json::from_str(r#"{"address":"0x1","contracts":[]}"#).unwrap();
        assert!(a.contracts.is_empty());
        let a: Approvals = serde_json::from_str(r#"{"address":"0x1","contracts":null}"#).unwrap();
        assert!(a.contracts.is_empty());
        let e = serde_json::from_str::<Approvals>(r#"{"address":"0x1"}"#).unwrap_err();
        assert!(e.to_string().contains("missing field `contracts`"), "{e}");
        assert!(serde_json::from_str::<PnlSeries>(r#"{"interval":"1d"}"#).is_err());
        assert!(
            serde_json::from_str::<crate::data::LiveVolume>(r#"{"taker_volume_total":1}"#).is_err()
        );
        let s: PnlSeries = serde_json::from_str(r#"{"points":[]}"#).unwrap();
        assert!(s.proxy_wallet.is_empty() && s.points.is_empty());
    }

    #[test]
    fn nulls_are_unavailable_not_zero() {
        let p: PnlPoint = serde_json::from_str(
            r#"{"timestamp":1,"realized_pnl":0.0,"fees":-3.260825,"maker_rebate":null}"#,
        )
        .unwrap();
        assert_eq!(p.realized_pnl, Some(Amount::ZERO));
        assert_eq!(p.maker_rebate, None);
        assert_eq!(p.fees.unwrap().as_micros(), -3_260_825);
        let a: ApprovalPair = serde_json::from_str(
            r#"{"token":"0x1","spender":"0x2","standard":"ERC1155","approved":false}"#,
        )
        .unwrap();
        assert_eq!((a.amount.as_deref(), a.is_unlimited()), (None, false));
    }
}
