//! The Gamma market object, decoded leniently: numbers that arrive as strings, JSON arrays
//! inside strings (`outcomes`, `clobTokenIds`, `outcomePrices`), and missing fields.
//!
//! Field names follow Gamma's market schema (docs.polymarket.com, Gamma "List markets").

use serde::Deserialize;

use super::event::{GammaEvent, Tag};
use crate::fixed::{Amount, Price, Size};
use crate::http::lenient;
use crate::http::rounded;
use crate::types::{
    ConditionId, FeeSchedule, Protocol, ProtocolError, TickSize, Timestamp, timestamp_opt,
};

/// One Gamma market: identity, outcomes and their token ids, trading parameters, fees,
/// status and activity figures.
///
/// Every field is optional on the wire; what is missing decodes to its default (`""`, `false`,
/// an empty list, `None`). Analytics figures (volume, liquidity, prices) are rounded to the
/// crate's 6 decimals; trading parameters (tick size, minimum size) are exact.
///
/// ```
/// use polyclob::gamma::GammaMarket;
///
/// let m: GammaMarket = serde_json::from_str(r#"{
///     "id": "1557558", "conditionId": "0x78",
///     "outcomes": "[\"Up\", \"Down\"]", "outcomePrices": "[\"0.505\", \"0.495\"]",
///     "clobTokenIds": "[\"1042\", \"7118\"]", "orderPriceMinTickSize": 0.01,
///     "orderMinSize": 5, "negRisk": false, "liquidity": "20328.3747"
/// }"#)?;
/// assert_eq!(m.outcomes, ["Up", "Down"]);
/// assert_eq!(m.clob_token_ids[1], "7118");
/// assert_eq!(m.outcome_prices[0].to_string(), "0.505");
/// assert_eq!(m.liquidity.unwrap().to_string(), "20328.3747");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct GammaMarket {
    /// Gamma's numeric id, as text.
    #[serde(deserialize_with = "lenient::string")]
    pub id: String,
    /// The question.
    #[serde(deserialize_with = "lenient::string")]
    pub question: String,
    /// The CTF condition id (`0x…`): the CLOB's `market`.
    #[serde(deserialize_with = "lenient::string")]
    pub condition_id: String,
    /// The CTF question id.
    #[serde(rename = "questionID", deserialize_with = "lenient::string")]
    pub question_id: String,
    /// URL slug.
    #[serde(deserialize_with = "lenient::string")]
    pub slug: String,
    /// Long description (resolution rules).
    #[serde(deserialize_with = "lenient::string")]
    pub description: String,
    /// Category (legacy markets).
    #[serde(deserialize_with = "lenient::string")]
    pub category: String,
    /// Title of the market inside its group (e.g. a strike or a team).
    #[serde(deserialize_with = "lenient::string")]
    pub group_item_title: String,
    /// Outcome labels, in token order.
    #[serde(deserialize_with = "rounded::text_list")]
    pub outcomes: Vec<String>,
    /// Indicative outcome prices, in token order.
    #[serde(deserialize_with = "rounded::price_list")]
    pub outcome_prices: Vec<Price>,
    /// CLOB token ids (decimal), in outcome order (token-ID markets, Gamma `version` `"v1"`).
    #[serde(deserialize_with = "rounded::text_list")]
    pub clob_token_ids: Vec<String>,
    /// Position ids (decimal), in outcome order (position-ID markets, Gamma `version` `"v2"`,
    /// settled on ExchangeV3).
    #[serde(deserialize_with = "rounded::text_list")]
    pub position_ids: Vec<String>,
    /// Gamma's market generation: `"v1"` (token ids) or `"v2"` (position ids); empty when absent.
    /// [`Self::protocol`] reads it.
    #[serde(deserialize_with = "lenient::string")]
    pub version: String,
    /// Resolution state of a V2 market: `"inactive"`, `"active"` (being resolved) or
    /// `"resolved"`; empty when absent (docs: Gamma `resolutionStatus`).
    #[serde(deserialize_with = "lenient::string")]
    pub resolution_status: String,
    /// Whether the market is active.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub active: bool,
    /// Whether the market is closed.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub closed: bool,
    /// Whether the market is archived.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub archived: bool,
    /// Whether the market is restricted in some regions.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub restricted: bool,
    /// Whether the CLOB accepts orders now.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub accepting_orders: bool,
    /// Whether the market trades on the CLOB.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub enable_order_book: bool,
    /// Whether orders settle on the neg-risk exchange.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub neg_risk: bool,
    /// The neg-risk market id, when neg-risk.
    #[serde(rename = "negRiskMarketID", deserialize_with = "lenient::string")]
    pub neg_risk_market_id: String,
    /// Minimum tick size; `None` when absent or not a tick the CLOB knows.
    #[serde(
        rename = "orderPriceMinTickSize",
        deserialize_with = "lenient::tick_opt"
    )]
    pub tick_size: Option<TickSize>,
    /// Minimum order size in shares.
    #[serde(rename = "orderMinSize", deserialize_with = "rounded::size_opt")]
    pub min_order_size: Option<Size>,
    /// Whether trading fees apply.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub fees_enabled: bool,
    /// The fee programme (`"crypto_fees"`, `"sports_fees_v2"`, …); empty when absent.
    #[serde(deserialize_with = "lenient::string")]
    pub fee_type: String,
    /// The fee schedule (`feeSchedule`), when the market has fees and Gamma lists a whole one.
    #[serde(deserialize_with = "lenient::fee_schedule_opt")]
    pub fee_schedule: Option<FeeSchedule>,
    /// Maker base fee in basis points (legacy V1 field).
    #[serde(deserialize_with = "rounded::u32_opt")]
    pub maker_base_fee: Option<u32>,
    /// Taker base fee in basis points (legacy V1 field).
    #[serde(deserialize_with = "rounded::u32_opt")]
    pub taker_base_fee: Option<u32>,
    /// Best bid.
    #[serde(deserialize_with = "rounded::price_opt")]
    pub best_bid: Option<Price>,
    /// Best ask.
    #[serde(deserialize_with = "rounded::price_opt")]
    pub best_ask: Option<Price>,
    /// Last trade price.
    #[serde(deserialize_with = "rounded::price_opt")]
    pub last_trade_price: Option<Price>,
    /// Liquidity in pUSD (Gamma's `liquidity`, a string).
    #[serde(deserialize_with = "rounded::size_opt")]
    pub liquidity: Option<Size>,
    /// Liquidity in pUSD (Gamma's `liquidityNum`, a number).
    #[serde(deserialize_with = "rounded::size_opt")]
    pub liquidity_num: Option<Size>,
    /// Lifetime volume in pUSD (Gamma's `volume`, a string).
    #[serde(deserialize_with = "rounded::size_opt")]
    pub volume: Option<Size>,
    /// Lifetime volume in pUSD (Gamma's `volumeNum`, a number).
    #[serde(deserialize_with = "rounded::size_opt")]
    pub volume_num: Option<Size>,
    /// Volume over the last 24 hours.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub volume_24hr: Option<Size>,
    /// End date (Gamma sends ISO 8601, sometimes a date alone: midnight UTC).
    #[serde(deserialize_with = "timestamp_opt")]
    pub end_date: Option<Timestamp>,
    /// Start date.
    #[serde(deserialize_with = "timestamp_opt")]
    pub start_date: Option<Timestamp>,
    /// When a sports game starts (the CLOB delays matching from then on); Gamma writes it
    /// `2026-01-02 20:00:00+00`.
    #[serde(deserialize_with = "timestamp_opt")]
    pub game_start_time: Option<Timestamp>,
    /// When the market closed.
    #[serde(deserialize_with = "timestamp_opt")]
    pub closed_time: Option<Timestamp>,
    /// Matching delay in seconds once a game has started.
    #[serde(deserialize_with = "lenient::u64_lenient")]
    pub seconds_delay: u64,
    /// Sports market type (`"moneyline"`, `"spreads"`, `"totals"`, …); empty otherwise.
    #[serde(deserialize_with = "lenient::string")]
    pub sports_market_type: String,
    /// Handicap or total line of a sports market.
    #[serde(deserialize_with = "rounded::amount_opt")]
    pub line: Option<Amount>,
    /// The events this market belongs to.
    #[serde(deserialize_with = "lenient::null_default")]
    pub events: Vec<GammaEvent>,
    /// Tags.
    #[serde(deserialize_with = "lenient::null_default")]
    pub tags: Vec<Tag>,
}

impl GammaMarket {
    /// The market's protocol from Gamma `version` (docs `/migrate/polymarket-v2/api-integrations`:
    /// choose the ids by `version`, even when both lists are present; reject unknown versions).
    ///
    /// The docs also reject a missing `version`; here a record without one that lists no
    /// `positionIds` is read as CTF, because Gamma's older records (and the archived captures)
    /// predate the field and are all CTF. A record without `version` that lists `positionIds`
    /// is refused: nothing says which list to trade.
    ///
    /// ```
    /// use polyclob::gamma::GammaMarket;
    /// use polyclob::types::Protocol;
    /// let m: GammaMarket = serde_json::from_str(r#"{"version":"v2","positionIds":["5"],"clobTokenIds":"[\"1\"]"}"#)?;
    /// assert_eq!(m.protocol()?, Protocol::V2);
    /// assert_eq!(m.token_ids(), ["5"]);
    /// let odd: GammaMarket = serde_json::from_str(r#"{"version":"v3"}"#)?;
    /// assert!(odd.protocol().is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ProtocolError::UnknownVersion`] for a `version` other than `"v1"`/`"v2"`, or none
    /// beside `positionIds`.
    pub fn protocol(&self) -> Result<Protocol, ProtocolError> {
        if self.version.trim().is_empty() && self.position_ids.is_empty() {
            return Ok(Protocol::Ctf);
        }
        Protocol::parse(&self.version)
    }

    /// Whether this is a position-ID market (Gamma `version` `"v2"`, ExchangeV3).
    #[must_use]
    pub fn is_position_id(&self) -> bool {
        self.protocol() == Ok(Protocol::V2)
    }

    /// The condition id, typed by the market's protocol (`bytes31` on V2).
    ///
    /// # Errors
    /// An unknown `version`, or a condition id of the wrong width for the protocol.
    pub fn condition(&self) -> Result<ConditionId, ProtocolError> {
        ConditionId::parse_for(&self.condition_id, self.protocol()?)
    }

    /// The ids orders are placed on, in outcome order: `positionIds` on V2 markets,
    /// `clobTokenIds` on CTF ones; none when the `version` is unknown.
    #[must_use]
    pub fn token_ids(&self) -> &[String] {
        match self.protocol() {
            Ok(Protocol::V2) => &self.position_ids,
            Ok(_) => &self.clob_token_ids,
            Err(_) => &[],
        }
    }

    /// The index of `outcome` (ASCII case-insensitive) in [`outcomes`](Self::outcomes).
    #[must_use]
    pub fn outcome_index(&self, outcome: &str) -> Option<usize> {
        self.outcomes
            .iter()
            .position(|o| o.eq_ignore_ascii_case(outcome))
    }

    /// Whether the market can take orders now: active, not closed or archived, on the order
    /// book and accepting orders.
    #[must_use]
    pub fn is_tradable(&self) -> bool {
        self.active
            && !self.closed
            && !self.archived
            && self.enable_order_book
            && self.accepting_orders
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_strings_numbers_and_gaps() {
        let m: GammaMarket = serde_json::from_str(
            r#"{"id":1,"conditionId":"0xc","questionID":"0xq","outcomes":["Yes","No"],
                "clobTokenIds":"[\"1\", \"2\"]","orderPriceMinTickSize":"0.001","orderMinSize":"5",
                "volume":"26458.188064999995","volumeNum":26458.188064999995,"line":-1.5,
                "feeSchedule":{"exponent":1,"rate":0.03,"rebateRate":0.25,"takerOnly":true},
                "makerBaseFee":1000,"acceptingOrders":"true","events":[{"id":"9"}],"tags":null,
                "unknownField":{"nested":[1,2]}}"#,
        )
        .unwrap();
        assert_eq!(m.id, "1");
        assert_eq!(m.tick_size, Some(TickSize::Thousandth));
        assert_eq!(m.min_order_size, Size::new(5_000_000));
        assert_eq!(m.volume, Size::new(26_458_188_065));
        assert_eq!(m.volume, m.volume_num);
        assert_eq!(m.line, Some(Amount::from_micros(-1_500_000)));
        let fs = m.fee_schedule.unwrap();
        assert_eq!(Some(fs.rate()), Price::new(30_000));
        assert_eq!(fs.rebate_rate(), Price::new(250_000));
        assert!(fs.taker_only());
        assert_eq!(m.maker_base_fee, Some(1000));
        assert!(m.accepting_orders);
        assert_eq!(m.events.len(), 1);
        assert!(m.tags.is_empty(), "null is an empty list");
        // A bad nested event fails the market, which the page then reports: never dropped.
        let e = serde_json::from_str::<GammaMarket>(r#"{"id":1,"events":[{"id":"9"},7]}"#);
        assert!(e.is_err());
        assert_eq!(m.token_ids(), ["1", "2"]);
        assert_eq!(m.outcome_index("no"), Some(1));

        let v2: GammaMarket =
            serde_json::from_str(r#"{"version":"v2","positionIds":["7","8"],"clobTokenIds":null}"#)
                .unwrap();
        assert!(v2.is_position_id());
        assert_eq!(v2.token_ids(), ["7", "8"]);
        assert!(serde_json::from_str::<GammaMarket>(r#"{"outcomePrices":"[\"2\"]"}"#).is_err());
    }
}
