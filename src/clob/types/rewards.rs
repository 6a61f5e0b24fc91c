//! Liquidity rewards: a user's earnings, reward percentages, and the markets' reward
//! configurations (docs.polymarket.com/api-reference/rewards).
//!
//! The server sends reward amounts as JSON floats (`"earnings": 0.237519`). They are held
//! as fixed-point [`Size`] (six decimals, the collateral's own precision); digits past the
//! sixth decimal, which only a float artefact produces, are truncated toward zero.

use std::collections::HashMap;

use serde::Deserialize;
use serde::de::{self, Deserializer};

use crate::fixed::Size;
use crate::http::lenient::{self, Scalar};

/// A non-negative reward amount or rate from a number or a decimal string; `""`/`null` → 0.
pub(crate) fn amount<'de, D: Deserializer<'de>>(d: D) -> Result<Size, D::Error> {
    let text = match lenient::scalar(d)? {
        Scalar::Null => return Ok(Size::ZERO),
        Scalar::Str(s) => s.trim().to_owned(),
        Scalar::U64(n) => n.to_string(),
        Scalar::F64(f) if f.is_finite() && f >= 0.0 => f.to_string(),
        Scalar::I64(_) | Scalar::F64(_) => return Err(de::Error::custom("negative amount")),
        Scalar::Bool(_) | Scalar::Other => return Err(de::Error::custom("expected an amount")),
    };
    parse_amount(&text).map_err(|e| de::Error::custom(format_args!("amount {text:?}: {e}")))
}

/// Parses decimal text, truncating past the sixth decimal.
fn parse_amount(text: &str) -> Result<Size, crate::fixed::ParseError> {
    if text.is_empty() {
        return Ok(Size::ZERO);
    }
    let cut = match text.find('.') {
        Some(dot) if text.len() > dot + 7 => &text[..dot + 7],
        _ => text,
    };
    Size::parse(cut.as_bytes())
}

/// A map of amounts; an entry whose value is not an amount fails the answer (naming the
/// entry), never vanishes from it.
fn amount_map<'de, D: Deserializer<'de>>(d: D) -> Result<HashMap<String, Size>, D::Error> {
    #[derive(Deserialize)]
    struct A(#[serde(deserialize_with = "amount")] Size);
    let m: HashMap<String, serde_json::Value> = HashMap::deserialize(d)?;
    m.into_iter()
        .map(|(k, v)| match serde_json::from_value::<A>(v) {
            Ok(A(v)) => Ok((k, v)),
            Err(e) => Err(de::Error::custom(format_args!("{k}: {e}"))),
        })
        .collect()
}

/// `GET /rewards/user/percentages`: condition id → the percentage of the market's rewards the
/// user is earning right now.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
#[non_exhaustive]
pub struct RewardPercentages {
    /// Percent (0–100) per condition id.
    #[serde(deserialize_with = "amount_map")]
    pub by_market: HashMap<String, Size>,
}

/// One row of `GET /rewards/user`: what the user earned in one market on one day.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct UserEarning {
    /// The day, as sent (`2024-03-26T00:00:00Z`).
    #[serde(default, deserialize_with = "lenient::string")]
    pub date: String,
    /// Condition id of the market.
    #[serde(default, deserialize_with = "lenient::string")]
    pub condition_id: String,
    /// Token the reward is paid in.
    #[serde(default, deserialize_with = "lenient::string")]
    pub asset_address: String,
    /// The maker address that earned it.
    #[serde(default, deserialize_with = "lenient::string")]
    pub maker_address: String,
    /// Amount earned, in units of the reward asset.
    #[serde(default, deserialize_with = "amount")]
    pub earnings: Size,
    /// The asset's exchange rate to USD.
    #[serde(default, deserialize_with = "amount")]
    pub asset_rate: Size,
}

/// One row of `GET /rewards/user/total`: a day's earnings summed per reward asset.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct TotalEarning {
    /// The day, as sent.
    #[serde(default, deserialize_with = "lenient::string")]
    pub date: String,
    /// Token the reward is paid in.
    #[serde(default, deserialize_with = "lenient::string")]
    pub asset_address: String,
    /// The maker address.
    #[serde(default, deserialize_with = "lenient::string")]
    pub maker_address: String,
    /// Amount earned, in units of the reward asset.
    #[serde(default, deserialize_with = "amount")]
    pub earnings: Size,
    /// The asset's exchange rate to USD.
    #[serde(default, deserialize_with = "amount")]
    pub asset_rate: Size,
}

/// One row of `GET /rebates/current`: a maker's rebate of one market on one day
/// (docs.polymarket.com, "Get current rebated fees for a maker").
///
/// ```
/// use polyclob::clob::types::MakerRebate;
/// let r: MakerRebate = serde_json::from_str(r#"{"date":"2026-02-27","condition_id":"0xbd31",
///   "asset_address":"0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB",
///   "maker_address":"0xFeA4cB3dD4ca7CefD3368653B7D6FF9BcDFca604","rebated_fees_usdc":"0.237519"}"#)?;
/// assert_eq!(r.rebated_fees.to_string(), "0.237519");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct MakerRebate {
    /// The day (`YYYY-MM-DD`).
    #[serde(default, deserialize_with = "lenient::string")]
    pub date: String,
    /// Condition id of the market.
    #[serde(default, deserialize_with = "lenient::string")]
    pub condition_id: String,
    /// Token the rebate is paid in (pUSD).
    #[serde(default, deserialize_with = "lenient::string")]
    pub asset_address: String,
    /// The maker address.
    #[serde(default, deserialize_with = "lenient::string")]
    pub maker_address: String,
    /// The rebate (`rebated_fees_usdc`).
    #[serde(rename = "rebated_fees_usdc", default, deserialize_with = "amount")]
    pub rebated_fees: Size,
}

/// One reward program on a market.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct RewardConfig {
    /// Program id (a number or a string on the wire; `0` when not given).
    #[serde(default, deserialize_with = "lenient::string")]
    pub id: String,
    /// Token the reward is paid in.
    #[serde(default, deserialize_with = "lenient::string")]
    pub asset_address: String,
    /// First day (`YYYY-MM-DD`).
    #[serde(default, deserialize_with = "lenient::string")]
    pub start_date: String,
    /// Last day (`YYYY-MM-DD`).
    #[serde(default, deserialize_with = "lenient::string")]
    pub end_date: String,
    /// Rewards paid per day.
    #[serde(default, deserialize_with = "amount")]
    pub rate_per_day: Size,
    /// Rewards over the whole program.
    #[serde(default, deserialize_with = "amount")]
    pub total_rewards: Size,
    /// Length of the program in days, when sent.
    #[serde(default, deserialize_with = "lenient::u64_lenient")]
    pub total_days: u64,
}

/// One row of `GET /rewards/markets/current`: a market with active rewards.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct CurrentReward {
    /// Condition id.
    #[serde(default, deserialize_with = "lenient::string")]
    pub condition_id: String,
    /// Largest distance from the midpoint, in cents, at which orders score.
    #[serde(default, deserialize_with = "amount")]
    pub rewards_max_spread: Size,
    /// Smallest order size that scores.
    #[serde(default, deserialize_with = "amount")]
    pub rewards_min_size: Size,
    /// The programs.
    #[serde(default, deserialize_with = "configs")]
    pub rewards_config: Vec<RewardConfig>,
    /// Daily rate paid by sponsors.
    #[serde(default, deserialize_with = "amount")]
    pub sponsored_daily_rate: Size,
    /// Number of sponsors.
    #[serde(default, deserialize_with = "lenient::u64_lenient")]
    pub sponsors_count: u64,
    /// Daily rate paid by Polymarket.
    #[serde(default, deserialize_with = "amount")]
    pub native_daily_rate: Size,
    /// Sponsored plus native.
    #[serde(default, deserialize_with = "amount")]
    pub total_daily_rate: Size,
}

/// A token of a reward market.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct RewardToken {
    /// Token id.
    #[serde(default, deserialize_with = "lenient::string")]
    pub token_id: String,
    /// Outcome name.
    #[serde(default, deserialize_with = "lenient::string")]
    pub outcome: String,
    /// Last price, when sent.
    #[serde(default, deserialize_with = "lenient::price_opt")]
    pub price: Option<crate::fixed::Price>,
}

/// A market's rewards: one row of `GET /rewards/markets/{condition_id}`, and the market part
/// of `GET /rewards/user/markets`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct MarketReward {
    /// Condition id.
    #[serde(default, deserialize_with = "lenient::string")]
    pub condition_id: String,
    /// The question.
    #[serde(default, deserialize_with = "lenient::string")]
    pub question: String,
    /// Market slug.
    #[serde(default, deserialize_with = "lenient::string")]
    pub market_slug: String,
    /// Event slug.
    #[serde(default, deserialize_with = "lenient::string")]
    pub event_slug: String,
    /// Image URL.
    #[serde(default, deserialize_with = "lenient::string")]
    pub image: String,
    /// Largest scoring distance from the midpoint, in cents.
    #[serde(default, deserialize_with = "amount")]
    pub rewards_max_spread: Size,
    /// Smallest scoring order size.
    #[serde(default, deserialize_with = "amount")]
    pub rewards_min_size: Size,
    /// How contested the market's rewards are.
    #[serde(default, deserialize_with = "amount")]
    pub market_competitiveness: Size,
    /// The tokens.
    #[serde(default, deserialize_with = "tokens")]
    pub tokens: Vec<RewardToken>,
    /// The programs.
    #[serde(default, deserialize_with = "configs")]
    pub rewards_config: Vec<RewardConfig>,
}

/// Earnings in one reward asset.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct AssetEarning {
    /// Token the reward is paid in.
    #[serde(default, deserialize_with = "lenient::string")]
    pub asset_address: String,
    /// Amount earned.
    #[serde(default, deserialize_with = "amount")]
    pub earnings: Size,
    /// The asset's exchange rate to USD.
    #[serde(default, deserialize_with = "amount")]
    pub asset_rate: Size,
}

/// One row of `GET /rewards/user/markets`: a reward market with the user's share and earnings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct UserMarketEarning {
    /// The market and its programs.
    #[serde(flatten)]
    pub market: MarketReward,
    /// The user's maker address.
    #[serde(default, deserialize_with = "lenient::string")]
    pub maker_address: String,
    /// Percent of the market's rewards the user earns.
    #[serde(default, deserialize_with = "amount")]
    pub earning_percentage: Size,
    /// Earnings per reward asset.
    #[serde(default, deserialize_with = "earnings")]
    pub earnings: Vec<AssetEarning>,
}

/// `null` → empty; an element that does not decode fails the row, which its page then
/// reports (a row thinned unsaid would look whole).
fn lenient_vec<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<Vec<T>>::deserialize(d).map(Option::unwrap_or_default)
}

fn configs<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<RewardConfig>, D::Error> {
    lenient_vec(d)
}

fn tokens<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<RewardToken>, D::Error> {
    lenient_vec(d)
}

fn earnings<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<AssetEarning>, D::Error> {
    lenient_vec(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_fixed_point_and_truncated() {
        let e: UserEarning = serde_json::from_str(
            r#"{"date":"2024-03-26T00:00:00Z","condition_id":"0xbd","earnings":0.237519,"asset_rate":"1"}"#,
        )
        .unwrap();
        assert_eq!(e.earnings, Size::from_micros(237_519));
        assert_eq!(e.asset_rate, Size::from_micros(1_000_000));
        let e: UserEarning = serde_json::from_str(r#"{"earnings":0.30000000000000004}"#).unwrap();
        assert_eq!(e.earnings, Size::from_micros(300_000));
        assert!(serde_json::from_str::<UserEarning>(r#"{"earnings":-1}"#).is_err());
        assert!(serde_json::from_str::<UserEarning>(r#"{"earnings":"x"}"#).is_err());
        let p: RewardPercentages = serde_json::from_str(r#"{"0x29":20,"0xbd":"12.5"}"#).unwrap();
        assert_eq!(p.by_market["0xbd"], Size::from_micros(12_500_000));
        let e =
            serde_json::from_str::<RewardPercentages>(r#"{"0x29":20,"0xbd":"lots"}"#).unwrap_err();
        assert!(e.to_string().contains("0xbd"), "{e}");
    }

    #[test]
    fn an_odd_config_fails_its_row_never_vanishes() {
        let row = |configs: &str| {
            serde_json::from_str::<CurrentReward>(&format!(
                r#"{{"condition_id":"0xbd","rewards_max_spread":99,"rewards_min_size":10,
                    "rewards_config":{configs},"total_daily_rate":3}}"#
            ))
        };
        let e = row(r#"[{"id":0,"rate_per_day":2,"total_rewards":92},{"rate_per_day":"bad"}]"#)
            .unwrap_err();
        assert!(e.to_string().contains("bad"), "{e}");
        let r = row(r#"[{"id":0,"rate_per_day":2,"total_rewards":92}]"#).unwrap();
        assert_eq!(r.rewards_config.len(), 1);
        assert_eq!(r.rewards_config[0].id, "0");
        assert_eq!(r.rewards_max_spread, Size::from_micros(99_000_000));
        let u: UserMarketEarning = serde_json::from_str(
            r#"{"condition_id":"0xbd","tokens":null,"earning_percentage":20,
                "earnings":[{"asset_address":"0x9c","earnings":1.5,"asset_rate":1}]}"#,
        )
        .unwrap();
        assert_eq!(u.market.condition_id, "0xbd");
        assert_eq!(u.earnings[0].earnings, Size::from_micros(1_500_000));
    }
}
